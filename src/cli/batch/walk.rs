//! Expanding the command line's arguments into inputs: directories walked
//! once each, every entry kept (a file relink does not read is copied under
//! `-o DIR`, a symbolic link stays a link), and an entry that cannot be read
//! reported by name while the walk goes on.

use std::collections::HashSet;
use std::ffi::OsStr;
use std::io;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use super::{Job, Role, Source, mirror_url, write::is_temporary_name};
use relink::Kind;

use crate::cli::maildir;

/// What the walk has seen: directories by device and inode (so a link loop
/// or a directory named twice is walked once), and files, so none is
/// handed out twice in one run.
#[derive(Default)]
struct Seen {
    dirs: HashSet<(u64, u64)>,
    files: HashSet<FileKey>,
}

/// A file's identity: device and inode, or, for a file with several hard
/// links, its canonical path (each name of it is its own input).
#[derive(Hash, PartialEq, Eq)]
enum FileKey {
    Inode(u64, u64),
    Path(PathBuf),
}

impl Seen {
    /// Whether `path` (metadata `meta`, links followed) is new to the run.
    fn first_file(&mut self, path: &Path, meta: &std::fs::Metadata) -> bool {
        let key = if meta.nlink() > 1 {
            match std::fs::canonicalize(path) {
                Ok(p) => FileKey::Path(p),
                Err(_) => return true,
            }
        } else {
            FileKey::Inode(meta.dev(), meta.ino())
        };
        self.files.insert(key)
    }
}

/// The endings of the backup files editors and tools leave beside a file
/// (`page.html~` of Emacs and Vim, `.orig` of patch and merge tools and of
/// `relink --backup .orig`, `.bak` of `sed -i.bak`): a file found in a
/// directory whose name ends so is never read, only copied under `-o DIR`.
pub const BACKUP_SUFFIXES: &[&str] = &["~", ".orig", ".bak"];

/// Whether a file found while walking is a backup: its name ends with one
/// of [`BACKUP_SUFFIXES`] or with `backup`, this run's `--backup` suffix.
pub fn is_backup_name(name: &OsStr, backup: Option<&str>) -> bool {
    let name = name.as_encoded_bytes();
    let longer = |suffix: &str| name.len() > suffix.len() && name.ends_with(suffix.as_bytes());
    BACKUP_SUFFIXES.iter().any(|s| longer(s)) || backup.is_some_and(|s| !s.is_empty() && longer(s))
}

/// The inputs the arguments name, in order: directories walked (sorted; a
/// Maildir's `cur/` and `new/` files are messages; backups, see
/// [`is_backup_name`], only copied), files as they are. `urls` are the
/// run's `--retrieved-from` and `--resource-base`, which a file found in a
/// directory has below them at its path ([`mirror_url`]); `backup` is the
/// run's `--backup` suffix. Errors name the entry and do not stop the walk.
pub fn expand(
    args: &[PathBuf],
    urls: (Option<&str>, Option<&str>),
    (backup, exclude): (Option<&str>, &globset::GlobSet),
) -> (Vec<Job>, Vec<String>) {
    let (retrieved_from, resource_base) = urls;
    let mut jobs = Vec::new();
    let mut errors = Vec::new();
    let mut seen = Seen::default();
    for arg in args {
        if arg.as_os_str() == "-" {
            jobs.push(Job {
                source: Source::Stdin,
                name: "standard input".to_owned(),
                relative: PathBuf::from("-"),
                retrieved_from: retrieved_from.map(str::to_owned),
                resource_base: resource_base.map(str::to_owned),
                role: Role::Document,
            });
            continue;
        }
        // Links named on the command line are followed.
        let meta = match std::fs::metadata(arg) {
            Ok(meta) => meta,
            Err(_) => {
                // The job reports why it cannot be read.
                jobs.push(file_job(arg, urls));
                continue;
            }
        };
        if !meta.is_dir() {
            if seen.first_file(arg, &meta) {
                jobs.push(file_job(arg, urls));
            }
            continue;
        }
        let mut walker = Walker {
            root: arg,
            retrieved_from,
            resource_base,
            backup,
            exclude,
            jobs: &mut jobs,
            errors: &mut errors,
            seen: &mut seen,
        };
        let in_maildir = maildir::is_maildir(arg);
        walker.dir(arg, &meta, in_maildir.then_some(0));
    }
    (jobs, errors)
}

fn file_job(arg: &Path, (retrieved_from, resource_base): (Option<&str>, Option<&str>)) -> Job {
    Job {
        source: Source::File(arg.to_path_buf()),
        relative: arg
            .file_name()
            .map(PathBuf::from)
            .unwrap_or_else(|| arg.to_path_buf()),
        name: arg.display().to_string(),
        retrieved_from: retrieved_from.map(str::to_owned),
        resource_base: resource_base.map(str::to_owned),
        role: Role::Document,
    }
}

struct Walker<'a> {
    root: &'a Path,
    retrieved_from: Option<&'a str>,
    resource_base: Option<&'a str>,
    backup: Option<&'a str>,
    /// What `--exclude` leaves out, matched below the root.
    exclude: &'a globset::GlobSet,
    jobs: &'a mut Vec<Job>,
    errors: &'a mut Vec<String>,
    seen: &'a mut Seen,
}

impl Walker<'_> {
    fn push(&mut self, path: PathBuf, role: Role) {
        let below = path.strip_prefix(self.root).unwrap_or(&path).to_path_buf();
        // Left out by --exclude: the file or one of its folders matches.
        let excluded =
            !self.exclude.is_empty() && below.ancestors().any(|p| self.exclude.is_match(p));
        let role = match role {
            Role::Document | Role::MaildirMessage if excluded => Role::CopyOnly,
            role => role,
        };
        self.jobs.push(Job {
            name: path.display().to_string(),
            retrieved_from: self.retrieved_from.map(|prefix| mirror_url(prefix, &below)),
            resource_base: self.resource_base.map(|prefix| mirror_url(prefix, &below)),
            relative: below,
            source: Source::File(path),
            role,
        });
    }

    /// Walks `dir` (metadata `meta`). `maildir_depth` is `Some(0)` in a
    /// Maildir's root and `Some(1)` in its `cur/` or `new/`.
    fn dir(&mut self, dir: &Path, meta: &std::fs::Metadata, maildir_depth: Option<u8>) {
        if !self.seen.dirs.insert((meta.dev(), meta.ino())) {
            return;
        }
        let mut entries = Vec::new();
        match std::fs::read_dir(dir) {
            Ok(list) => {
                for entry in list {
                    match entry {
                        Ok(entry) => entries.push(entry),
                        Err(err) => self
                            .errors
                            .push(format!("{}: cannot list: {err}", dir.display())),
                    }
                }
            }
            Err(err) => {
                self.errors
                    .push(format!("{}: cannot list: {err}", dir.display()));
                return;
            }
        }
        entries.sort_by_key(|e| e.file_name());
        for entry in entries {
            let path = entry.path();
            let file_name = entry.file_name();
            if is_temporary_name(&file_name.to_string_lossy()) {
                continue;
            }
            // Not followed: a symbolic link is an entry of its own.
            let meta = match std::fs::symlink_metadata(&path) {
                Ok(meta) => meta,
                Err(err) => {
                    self.errors
                        .push(format!("{}: cannot read: {err}", path.display()));
                    continue;
                }
            };
            let kind = meta.file_type();
            if kind.is_symlink() {
                self.push(path, Role::Link);
            } else if kind.is_dir() {
                if maildir_depth == Some(0) && file_name == "tmp" {
                    // Messages still being delivered: never touched nor copied.
                    continue;
                }
                let depth =
                    if maildir_depth == Some(0) && (file_name == "cur" || file_name == "new") {
                        Some(1)
                    } else if maildir::is_maildir(&path) {
                        // A Maildir inside, such as a Maildir++ folder `.Sent`.
                        Some(0)
                    } else {
                        None
                    };
                self.dir(&path, &meta, depth);
            } else if !kind.is_file() {
                self.push(path, Role::Special);
            } else if !self.seen.first_file(&path, &meta) {
                continue;
            } else if maildir_depth == Some(1) && !file_name.to_string_lossy().starts_with('.') {
                self.push(path, Role::MaildirMessage);
            } else {
                let role = if !is_backup_name(&file_name, self.backup) && wanted(&path) {
                    Role::Document
                } else {
                    Role::CopyOnly
                };
                self.push(path, role);
            }
        }
    }
}

/// Whether a file found while walking a directory is one relink reads: its
/// name's extension is a known one, or (with neither a document's nor
/// another known extension) its first bytes say so. A file that cannot be opened is taken, so that its error is
/// reported by name.
fn wanted(path: &Path) -> bool {
    match Kind::of_file(path) {
        Ok(kind) => kind.is_some(),
        Err(err) => err.kind() != io::ErrorKind::NotFound,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backups_are_known_by_their_endings() {
        let backup = |name: &str, suffix| is_backup_name(OsStr::new(name), suffix);
        assert!(backup("page.html~", None));
        assert!(backup("page.html.orig", None));
        assert!(backup("page.html.bak", None));
        assert!(backup("page.html.old", Some(".old")));
        assert!(backup("page.html-2024", Some("-2024")));
        assert!(!backup("page.html", None));
        assert!(!backup("page.html", Some("")));
        assert!(!backup("page.html.old", None));
        // A name that is the ending alone is no backup of anything.
        assert!(!backup(".orig", None));
        assert!(!backup("~", None));
    }
}
