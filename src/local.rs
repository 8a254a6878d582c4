//! What a browser saved with a page ("Save Page As", complete): the folder
//! beside it named after the page (`post_files/`, `post-Dateien/`), which
//! its links already point at. A link to a file that exists there is left
//! as it is: made absolute, it would point at a URL that never held it.
//! And a mirror made local ([`Mirror`]): links to its files made relative.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use url::Url;

use crate::base::{Base, BaseSource};
use crate::url::{BaseUrl, Rules};

/// The words browsers put after a saved page's name for its folder, by language.
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

/// The extensions of a saved page and of saved files linking to their neighbours.
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
    /// The folders saved with the page at `path`: the folder named after it,
    /// and for a file inside such a folder (a saved style sheet) that folder.
    #[cfg(test)]
    pub fn of(path: &Path) -> Option<SavedFolders> {
        SavedFolders::listed(path, &SavedDirs::default())
    }

    /// [`SavedFolders::of`], each directory listed once for all the pages
    /// of `dirs` (a run over a folder of pages probes no names per page).
    pub fn listed(path: &Path, dirs: &SavedDirs) -> Option<SavedFolders> {
        // Only a page or what is saved with one links into the folder.
        let extension = path.extension()?.to_str()?.to_ascii_lowercase();
        if !SAVED_EXTENSIONS.contains(&extension.as_str()) {
            return None;
        }
        if std::fs::symlink_metadata(path).ok()?.is_symlink() {
            // A link to a page: its folders are those beside the page it names.
            return SavedFolders::probed(path);
        }
        let given = match path.parent()? {
            dir if dir.as_os_str().is_empty() => Path::new("."),
            dir => dir,
        };
        let listing = Arc::clone(
            lock(dirs)
                .entry(given.to_path_buf())
                .or_insert_with(|| Listing::of(given).map(Arc::new))
                .as_ref()?,
        );
        let path = listing.dir.join(path.file_name()?);
        let mut folders = Vec::new();
        if let Some(stem) = path.file_stem().and_then(|s| s.to_str()) {
            folders.extend(match &listing.folders {
                Some(names) => listing.named_after(names, stem).into_iter().collect(),
                None => named_after(&listing.dir, stem),
            });
        }
        if listing.inside_saved {
            folders.push(listing.dir.clone());
        }
        SavedFolders::made(&path, folders)
    }

    /// [`SavedFolders::of`] by asking for each name a folder could have.
    fn probed(path: &Path) -> Option<SavedFolders> {
        let path = std::fs::canonicalize(path).ok()?;
        let dir = path.parent()?;
        let mut folders = Vec::new();
        if let Some(stem) = path.file_stem().and_then(|s| s.to_str()) {
            folders.extend(named_after(dir, stem));
        }
        if inside_saved(dir) {
            folders.push(dir.to_path_buf());
        }
        SavedFolders::made(&path, folders)
    }

    /// The saved folders of the page at `path` (canonical), if it has any.
    fn made(path: &Path, folders: Vec<PathBuf>) -> Option<SavedFolders> {
        if folders.is_empty() {
            return None;
        }
        let page = Url::from_file_path(path).ok()?;
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

    /// The `file:` URL of the file a relative `reference` names in a saved folder, if it exists.
    pub fn holds(&self, reference: &str) -> Option<String> {
        let reference = reference.trim_matches(|c: char| c <= ' ');
        if reference.is_empty() || reference.starts_with('#') || names_no_saved_file(reference) {
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

/// The directories listed in a run, by their path as given (none: not a directory).
pub type SavedDirs = Arc<Mutex<HashMap<PathBuf, Option<Arc<Listing>>>>>;

fn lock(dirs: &SavedDirs) -> std::sync::MutexGuard<'_, HashMap<PathBuf, Option<Arc<Listing>>>> {
    dirs.lock().unwrap_or_else(|e| e.into_inner())
}

/// What a directory holds of saved pages, read once.
#[derive(Debug)]
pub struct Listing {
    /// The directory, its links resolved.
    dir: PathBuf,
    /// Its folders (no symbolic links) whose names end as a saved folder's
    /// do; none if it could not be listed.
    folders: Option<Vec<String>>,
    /// Whether it is itself the folder saved with a page beside it.
    inside_saved: bool,
}

impl Listing {
    fn of(given: &Path) -> Option<Listing> {
        let dir = std::fs::canonicalize(given).ok()?;
        let folders = std::fs::read_dir(&dir).ok().map(|entries| {
            entries
                .filter_map(|entry| {
                    let entry = entry.ok()?;
                    // A symbolic link is no folder a browser saved.
                    entry.file_type().ok()?.is_dir().then_some(())?;
                    let name = entry.file_name().into_string().ok()?;
                    page_named(&name).is_some().then_some(name)
                })
                .collect()
        });
        let inside_saved = inside_saved(&dir);
        Some(Listing {
            dir,
            folders,
            inside_saved,
        })
    }

    /// [`named_after`], from the folders listed: the first name in the
    /// order `named_after` asks for them.
    fn named_after(&self, names: &[String], stem: &str) -> Option<PathBuf> {
        let rank = |name: &str| {
            let rest = name.strip_prefix(stem)?;
            let sep = ['_', '-'].iter().position(|&c| rest.starts_with(c))?;
            let word = FOLDER_WORDS.iter().position(|w| &rest[1..] == *w)?;
            Some((sep, word))
        };
        let (_, name) = names
            .iter()
            .filter_map(|name| Some((rank(name)?, name)))
            .min()?;
        Some(self.dir.join(name))
    }
}

/// Whether `dir` is a folder saved with a page: a page beside it has its name.
fn inside_saved(dir: &Path) -> bool {
    if let Some(name) = dir.file_name().and_then(|n| n.to_str())
        && let Some(stem) = page_named(name)
        && let Some(up) = dir.parent()
    {
        ["html", "htm", "xhtml", "xht", "shtml"]
            .iter()
            .any(|ext| up.join(format!("{stem}.{ext}")).is_file())
    } else {
        false
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

/// The page name a saved folder's name is made of (`post` of `post_files`).
fn page_named(folder: &str) -> Option<&str> {
    FOLDER_WORDS.iter().find_map(|word| {
        let stem = folder.strip_suffix(word)?;
        let stem = stem.strip_suffix(['_', '-'])?;
        (!stem.is_empty()).then_some(stem)
    })
}

/// Whether `reference` starts with a scheme (`http:`, `data:`) or is a
/// network-path reference (`//host/`): it names no saved file.
fn names_no_saved_file(reference: &str) -> bool {
    reference.starts_with("//")
        || reference.starts_with("\\\\")
        || crate::url::BaseUrl::has_scheme(reference)
}

/// A site mirror made local (wget's `--convert-links`): links to its files become relative paths.
#[derive(Debug, Clone)]
pub struct Mirror {
    /// The mirror's root folder, its links resolved.
    root: PathBuf,
    /// The URL of the root, ending in `/`.
    prefix: String,
    /// An HTTrack mirror (`hts-cache/` beside the root): a page with a query
    /// is saved under its own name and linked with the query after it.
    query_after_name: bool,
    /// The file each URL below the root names, shared by every document.
    files: MirrorFiles,
}

/// The files of a mirror found so far, by the URL below its root.
pub type MirrorFiles = Arc<Mutex<HashMap<String, Option<PathBuf>>>>;

/// One document of a [`Mirror`]: where its links are made relative from.
#[derive(Debug)]
pub struct MirrorDocument {
    mirror: Mirror,
    /// The document's folder, its links resolved, inside the root.
    dir: PathBuf,
    /// The relative path to the file each URL below the root named, as found.
    found: Mutex<HashMap<String, Option<String>>>,
}

impl Mirror {
    /// The mirror whose root folder `root` was retrieved from `prefix`.
    pub fn new(root: &Path, prefix: &str) -> std::io::Result<Mirror> {
        let mut prefix = prefix.to_owned();
        if !prefix.ends_with('/') {
            prefix.push('/');
        }
        let root = std::fs::canonicalize(root)?;
        let query_after_name = root
            .parent()
            .is_some_and(|up| up.join("hts-cache").is_dir());
        Ok(Mirror {
            root,
            prefix,
            query_after_name,
            files: MirrorFiles::default(),
        })
    }

    /// The mirror, its files found shared with others made with `files`.
    pub fn sharing(mut self, files: &MirrorFiles) -> Mirror {
        self.files = Arc::clone(files);
        self
    }

    /// The document at `path`, if it lies in the mirror.
    pub fn document(&self, path: &Path) -> Option<MirrorDocument> {
        let path = std::fs::canonicalize(path).ok()?;
        let dir = path.parent()?;
        dir.starts_with(&self.root).then(|| MirrorDocument {
            mirror: self.clone(),
            dir: dir.to_path_buf(),
            found: Mutex::default(),
        })
    }
}

impl MirrorDocument {
    /// The relative path (fragment kept) `url` becomes, when it names a mirror file.
    pub fn local(&self, url: &str) -> Option<String> {
        let (url, fragment) = match url.split_once('#') {
            Some((url, fragment)) => (url, Some(fragment)),
            None => (url, None),
        };
        let prefix = &self.mirror.prefix;
        if url.len() < prefix.len() || !url[..prefix.len()].eq_ignore_ascii_case(prefix) {
            return None;
        }
        let rest = &url[prefix.len()..];
        let (mut path, query) = match self.found(rest) {
            Some(path) => (path, None),
            // HTTrack's link to a page with a query: its file, the query after it.
            None if self.mirror.query_after_name => {
                let (path, query) = rest.split_once('?')?;
                (self.found(path)?, Some(query))
            }
            None => return None,
        };
        if let Some(query) = query {
            path.push('?');
            path.push_str(query);
        }
        if let Some(fragment) = fragment {
            path.push('#');
            path.push_str(fragment);
        }
        Some(path)
    }

    /// The mirror's file a URL's path and query name: the path, `index.html`
    /// for a folder, the query in the name (`?`, or `@` on Windows), `.html`
    /// or `.css` added (wget's `--adjust-extension`).
    fn file_of(&self, rest: &str) -> Option<PathBuf> {
        let (path, query) = match rest.split_once('?') {
            Some((path, query)) => (path, Some(query)),
            None => (rest, None),
        };
        let mut below = PathBuf::new();
        for segment in path.split('/').filter(|s| !s.is_empty()) {
            let segment = percent_decoded(segment)?;
            // Only names: never `..` out of the root, never a root.
            if segment == "." || segment == ".." || segment.contains(['/', '\\', '\0']) {
                return None;
            }
            below.push(segment);
        }
        let mut names = Vec::new();
        let base = self.mirror.root.join(&below);
        if path.is_empty() || path.ends_with('/') {
            names.push(base.join("index.html"));
        } else {
            let mut stems = Vec::new();
            match query {
                Some(query) => {
                    let query = percent_decoded(query)?;
                    stems.push(format!("{}?{query}", base.to_str()?));
                    stems.push(format!("{}@{query}", base.to_str()?));
                }
                None => stems.push(base.to_str()?.to_owned()),
            }
            for stem in stems {
                for extension in ["", ".html", ".css"] {
                    names.push(PathBuf::from(format!("{stem}{extension}")));
                }
            }
            if query.is_none() {
                names.push(base.join("index.html"));
            }
        }
        names.into_iter().find_map(|name| {
            // A file inside the root by its own path (links out are not followed).
            if !std::fs::metadata(&name).is_ok_and(|m| m.is_file()) {
                return None;
            }
            let real = std::fs::canonicalize(&name).ok()?;
            real.starts_with(&self.mirror.root).then_some(real)
        })
    }

    /// The relative path to [`MirrorDocument::file_of`], each URL looked up once.
    fn found(&self, rest: &str) -> Option<String> {
        let mut found = self.found.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(path) = found.get(rest) {
            return path.clone();
        }
        let file = {
            let mut files = self.mirror.files.lock().unwrap_or_else(|e| e.into_inner());
            match files.get(rest) {
                Some(file) => file.clone(),
                None => {
                    let file = self.file_of(rest);
                    files.insert(rest.to_owned(), file.clone());
                    file
                }
            }
        };
        let path = file.map(|file| relative_path(&self.dir, &file));
        found.insert(rest.to_owned(), path.clone());
        path
    }
}

/// `text` with its `%XX` escapes decoded, if the result is UTF-8.
fn percent_decoded(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: u8| (b as char).to_digit(16);
        match (bytes[i], bytes.get(i + 1), bytes.get(i + 2)) {
            (b'%', Some(&h), Some(&l)) if hex(h).is_some() && hex(l).is_some() => {
                out.push((hex(h)? * 16 + hex(l)?) as u8);
                i += 3;
            }
            (b, _, _) => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8(out).ok()
}

/// The shortest relative URL path from folder `from` to `file`, segments escaped.
fn relative_path(from: &Path, file: &Path) -> String {
    let from: Vec<_> = from.components().collect();
    let to: Vec<_> = file.components().collect();
    let common = from.iter().zip(&to).take_while(|(a, b)| a == b).count();
    let mut path = "../".repeat(from.len() - common);
    let segments: Vec<String> = to[common..]
        .iter()
        .map(|c| escape_segment(&c.as_os_str().to_string_lossy()))
        .collect();
    path.push_str(&segments.join("/"));
    // A first segment with a `:` would read as a scheme.
    if !path.starts_with("../") && path.split('/').next().is_some_and(|s| s.contains(':')) {
        path.insert_str(0, "./");
    }
    path
}

/// A file name as a URL path segment, percent-encoded where a path cannot hold it.
fn escape_segment(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    for &b in name.as_bytes() {
        if b.is_ascii_alphanumeric() || b"-._~!$&'()*+,;=:@".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
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

#[cfg(test)]
mod mirror_tests {
    use super::*;

    fn mirror(files: &[&str]) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        for file in files {
            let path = dir.path().join(file);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, "x").unwrap();
        }
        dir
    }

    #[test]
    fn urls_of_the_mirror_become_the_shortest_paths_to_their_files() {
        let dir = mirror(&[
            "index.html",
            "a/b.html",
            "a/c d.html",
            "a/q.php?x=1",
            "a/w.php@y=2",
            "a/e.html",
            "a/sub/index.html",
            "caf\u{e9}.html",
            "a/ti:me.html",
        ]);
        let m = Mirror::new(dir.path(), "http://h/s").unwrap();
        let doc = m.document(&dir.path().join("a/b.html")).unwrap();
        let local = |u: &str| doc.local(u);
        assert_eq!(
            local("http://h/s/a/b.html#top").as_deref(),
            Some("b.html#top")
        );
        assert_eq!(local("http://h/s/").as_deref(), Some("../index.html"));
        assert_eq!(
            local("http://h/s/a/c%20d.html").as_deref(),
            Some("c%20d.html")
        );
        assert_eq!(
            local("http://h/s/a/q.php?x=1").as_deref(),
            Some("q.php%3Fx=1")
        );
        assert_eq!(
            local("http://h/s/a/w.php?y=2").as_deref(),
            Some("w.php@y=2")
        );
        assert_eq!(local("http://h/s/a/e").as_deref(), Some("e.html"));
        assert_eq!(
            local("http://h/s/a/sub/").as_deref(),
            Some("sub/index.html")
        );
        assert_eq!(local("http://h/s/a/sub").as_deref(), Some("sub/index.html"));
        assert_eq!(
            local("http://h/s/caf%C3%A9.html").as_deref(),
            Some("../caf%C3%A9.html")
        );
        assert_eq!(
            local("http://h/s/a/ti:me.html").as_deref(),
            Some("./ti:me.html")
        );
        assert_eq!(local("HTTP://H/s/a/b.html").as_deref(), Some("b.html"));
        // Not in the mirror: left for the caller to write absolute.
        assert_eq!(local("http://h/s/a/absent.html"), None);
        assert_eq!(local("http://h/other/a/b.html"), None);
        assert_eq!(local("http://h/s/../s/a/b.html"), None);
        assert_eq!(local("http://h/s/a/%2e%2e/b.html"), None);
    }

    #[test]
    fn an_httrack_mirror_keeps_the_query_after_the_name() {
        let dir = mirror(&[
            "site/index.html",
            "site/search6a04.html",
            "hts-cache/new.txt",
        ]);
        let m = Mirror::new(&dir.path().join("site"), "http://h/").unwrap();
        let doc = m.document(&dir.path().join("site/index.html")).unwrap();
        assert_eq!(
            doc.local("http://h/search6a04.html?q=x#r").as_deref(),
            Some("search6a04.html?q=x#r")
        );
        assert_eq!(doc.local("http://h/absent.html?q=x"), None);
        // Elsewhere another query is another page, not that file.
        std::fs::remove_dir_all(dir.path().join("hts-cache")).unwrap();
        let m = Mirror::new(&dir.path().join("site"), "http://h/").unwrap();
        let doc = m.document(&dir.path().join("site/index.html")).unwrap();
        assert_eq!(doc.local("http://h/search6a04.html?q=x"), None);
    }

    #[test]
    fn a_link_out_of_the_mirror_is_not_followed() {
        let outside = mirror(&["secret.html"]);
        let dir = mirror(&["index.html"]);
        std::os::unix::fs::symlink(
            outside.path().join("secret.html"),
            dir.path().join("s.html"),
        )
        .unwrap();
        let m = Mirror::new(dir.path(), "http://h/").unwrap();
        let doc = m.document(&dir.path().join("index.html")).unwrap();
        assert_eq!(doc.local("http://h/s.html"), None);
        assert_eq!(
            doc.local("http://h/index.html").as_deref(),
            Some("index.html")
        );
    }
}
