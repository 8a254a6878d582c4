//! What a browser saved with a page ("Save Page As", complete): the folder
//! beside it named after the page's file (`post.html` and `post_files/`,
//! or `post-Dateien/` as the browser localizes it), whose files the page's
//! links already point at. A link to a file in that folder that exists is
//! left as it is: made absolute, it would point at a URL that never held
//! the file.

use std::path::{Path, PathBuf};

use url::Url;

use crate::base::{Base, BaseSource};
use crate::url::{BaseUrl, Rules};

/// The words browsers put after a saved page's name for the folder of
/// what they saved with it (`NAME_files`, `NAME-Dateien`...), by language.
const FOLDER_WORDS: &[&str] = &[
    "files",
    "Dateien",
    "fichiers",
    "archivos",
    "arquivos",
    "file",
    "bestanden",
    "pliki",
    "soubory",
    "súbory",
    "filer",
    "tiedostot",
    "fájlok",
    "dosyalar",
    "αρχεία",
    "файлы",
    "файли",
    "ファイル",
    "文件",
    "檔案",
    "파일",
];

/// The extensions of a saved page and of the saved files whose links
/// point at their neighbours (style sheets, frames, SVG images).
const SAVED_EXTENSIONS: &[&str] = &["html", "htm", "xhtml", "xht", "shtml", "css", "svg"];

/// The folders saved with one page, and the page's own `file:` URL.
#[derive(Debug, Clone)]
pub struct SavedFolders {
    page: Url,
    /// The page's file as the base of the links held.
    base: Base,
    /// Each folder as a `file:` URL ending in `/`, and its path.
    folders: Vec<(String, PathBuf)>,
}

impl SavedFolders {
    /// The folders saved with the page at `path`: the folder beside it
    /// named after it, and, for a file inside such a folder (a saved
    /// style sheet), that folder. None when there is none.
    pub fn of(path: &Path) -> Option<SavedFolders> {
        // Only a page or what is saved with one links into the folder.
        let extension = path.extension()?.to_str()?.to_ascii_lowercase();
        if !SAVED_EXTENSIONS.contains(&extension.as_str()) {
            return None;
        }
        let path = std::fs::canonicalize(path).ok()?;
        let dir = path.parent()?;
        let mut folders = Vec::new();
        if let Some(stem) = path.file_stem().and_then(|s| s.to_str()) {
            folders.extend(named_after(dir, stem));
        }
        // A file inside a saved folder: its folder, if a page beside the
        // folder has the name it is named after.
        if let Some(name) = dir.file_name().and_then(|n| n.to_str())
            && let Some(stem) = page_named(name)
            && let Some(up) = dir.parent()
            && ["html", "htm", "xhtml", "xht", "shtml"]
                .iter()
                .any(|ext| up.join(format!("{stem}.{ext}")).is_file())
        {
            folders.push(dir.to_path_buf());
        }
        let page = Url::from_file_path(&path).ok()?;
        let folders: Vec<(String, PathBuf)> = folders
            .into_iter()
            .filter_map(|folder| {
                let url = Url::from_directory_path(&folder).ok()?;
                Some((url.as_str().to_owned(), folder))
            })
            .collect();
        let base = Base::new(
            BaseUrl::parse(page.as_str(), Rules::Rfc3986).ok()?,
            BaseSource::SavedWithPage,
        );
        (!folders.is_empty()).then_some(SavedFolders {
            page,
            base,
            folders,
        })
    }

    /// The page's own `file:` URL, as the base of the links held.
    pub fn base(&self) -> &Base {
        &self.base
    }

    /// The `file:` URL of the file `reference` names, when it is relative
    /// and names a file that exists in a saved folder.
    pub fn holds(&self, reference: &str) -> Option<String> {
        let reference = reference.trim_matches(|c: char| c <= ' ');
        if reference.is_empty() || reference.starts_with('#') || has_scheme(reference) {
            return None;
        }
        let mut url = self.page.join(reference).ok()?;
        url.set_fragment(None);
        url.set_query(None);
        let (_, folder) = self
            .folders
            .iter()
            .find(|(prefix, _)| url.as_str().starts_with(prefix.as_str()))?;
        let file = url.to_file_path().ok()?;
        // Resolution removed every `..`: the file is inside the folder.
        (file.starts_with(folder) && file.is_file()).then(|| url.as_str().to_owned())
    }
}

/// The folders in `dir` named after a page whose name is `stem`.
fn named_after(dir: &Path, stem: &str) -> Vec<PathBuf> {
    for sep in ['_', '-'] {
        for word in FOLDER_WORDS {
            let folder = dir.join(format!("{stem}{sep}{word}"));
            // A symbolic link is no folder a browser saved.
            if std::fs::symlink_metadata(&folder).is_ok_and(|m| m.is_dir()) {
                // A browser saves one folder with a page.
                return vec![folder];
            }
        }
    }
    Vec::new()
}

/// The page name a saved folder's name is made of (`post` of
/// `post_files`), if it is one.
fn page_named(folder: &str) -> Option<&str> {
    FOLDER_WORDS.iter().find_map(|word| {
        let stem = folder.strip_suffix(word)?;
        let stem = stem.strip_suffix(['_', '-'])?;
        (!stem.is_empty()).then_some(stem)
    })
}

/// Whether `reference` starts with a scheme (`http:`, `data:`) or is a
/// network-path reference (`//host/`): it names no saved file.
fn has_scheme(reference: &str) -> bool {
    if reference.starts_with("//") || reference.starts_with("\\\\") {
        return true;
    }
    let Some(colon) = reference.find(':') else {
        return false;
    };
    let scheme = &reference[..colon];
    scheme.starts_with(|c: char| c.is_ascii_alphabetic())
        && scheme
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A page, its folder and what is in it, in a new temporary folder.
    fn saved(page: &str, folder: &str, files: &[&str]) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join(page), "<p>").unwrap();
        std::fs::create_dir(dir.path().join(folder)).unwrap();
        for file in files {
            std::fs::write(dir.path().join(folder).join(file), "x").unwrap();
        }
        dir
    }

    #[test]
    fn links_into_the_folder_saved_with_the_page_are_held() {
        let dir = saved("post.html", "post_files", &["site.css", "a b.png"]);
        let folders = SavedFolders::of(&dir.path().join("post.html")).unwrap();
        let held = |r: &str| {
            folders
                .holds(r)
                .map(|u| u.rsplit('/').next().unwrap().to_owned())
        };
        assert_eq!(held("./post_files/site.css").as_deref(), Some("site.css"));
        assert_eq!(
            held("post_files/site.css?v=2#x").as_deref(),
            Some("site.css")
        );
        assert_eq!(held("post_files/a%20b.png").as_deref(), Some("a%20b.png"));
        assert_eq!(held("post_files/absent.css"), None);
        assert_eq!(held("post_files/"), None);
        assert_eq!(held("other/site.css"), None);
        assert_eq!(held("https://h/post_files/site.css"), None);
        assert_eq!(held("//h/post_files/site.css"), None);
        assert_eq!(held("#post_files"), None);
        assert_eq!(held("post_files/../post.html"), None);
    }

    #[test]
    fn the_folder_is_named_after_the_page_as_browsers_localize_it() {
        let dir = saved("Seite.htm", "Seite-Dateien", &["bild.png"]);
        let folders = SavedFolders::of(&dir.path().join("Seite.htm")).unwrap();
        assert!(folders.holds("Seite-Dateien/bild.png").is_some());
        // Another page's folder is not this page's.
        let dir = saved("post.html", "other_files", &["a.png"]);
        assert!(SavedFolders::of(&dir.path().join("post.html")).is_none());
        // Nor a folder that only looks like one.
        let dir = saved("post.html", "post_images", &["a.png"]);
        assert!(SavedFolders::of(&dir.path().join("post.html")).is_none());
    }

    #[test]
    fn a_file_inside_a_saved_folder_holds_its_neighbours() {
        let dir = saved("post.html", "post_files", &["site.css", "paper.png"]);
        let sheet = dir.path().join("post_files/site.css");
        let folders = SavedFolders::of(&sheet).unwrap();
        assert!(folders.holds("paper.png").is_some());
        assert!(folders.holds("../post.html").is_none());
    }
}
