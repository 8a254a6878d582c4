//! Writing files safely: temporary files named so a later run knows them
//! (`.NAME.relink-XXXXXX`) and removes those a killed run left, atomic
//! renames, the source's permissions and owner kept, advisory locks so two
//! runs over one tree never interleave, and targets that are links or
//! device nodes never replaced by regular files.

use std::collections::HashMap;
use std::ffi::OsString;
use std::fs::{File, Metadata};
use std::io::{self, Write};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};

/// What comes between a file's name and the random part in the names of
/// relink's temporary files.
const TEMP_MARK: &str = ".relink-";
/// How many random characters end a temporary file's name.
const TEMP_RANDOM: usize = 6;

/// Whether a file name is one of relink's temporary files:
/// `.NAME.relink-XXXXXX`.
pub fn is_temporary_name(name: &str) -> bool {
    let Some(at) = name.rfind(TEMP_MARK) else {
        return false;
    };
    let random = &name[at + TEMP_MARK.len()..];
    name.starts_with('.')
        && at > 1
        && random.len() == TEMP_RANDOM
        && random.bytes().all(|b| b.is_ascii_alphanumeric())
}

/// The directory a file is in (`.` for a bare name).
fn parent_of(path: &Path) -> &Path {
    match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    }
}

/// The directories this process writes temporary files in, each with the
/// shared lock it holds on it for the rest of the process.
fn entered() -> &'static Mutex<HashMap<PathBuf, Option<File>>> {
    static ENTERED: OnceLock<Mutex<HashMap<PathBuf, Option<File>>>> = OnceLock::new();
    ENTERED.get_or_init(Default::default)
}

/// Prepares to write temporary files in `dir`, once per process: removes
/// the temporary files a killed run left there, then holds a shared lock on
/// the directory. A run that finds the directory locked by another run
/// leaves its temporary files alone (they may be in use).
pub fn enter_dir(dir: &Path) {
    let Ok(mut map) = entered().lock() else {
        return;
    };
    if map.contains_key(dir) {
        return;
    }
    let handle = File::open(dir).ok();
    if let Some(handle) = &handle {
        if handle.try_lock().is_ok() {
            sweep(dir);
        }
        let _ = handle.lock_shared();
    }
    map.insert(dir.to_path_buf(), handle);
}

/// The user this process runs as, where the system says.
fn own_uid() -> Option<u32> {
    std::fs::metadata("/proc/self").ok().map(|m| m.uid())
}

/// Removes relink's temporary files in `dir` that belong to this user.
fn sweep(dir: &Path) {
    let Ok(list) = std::fs::read_dir(dir) else {
        return;
    };
    let uid = own_uid();
    for entry in list.flatten() {
        if !is_temporary_name(&entry.file_name().to_string_lossy()) {
            continue;
        }
        let Ok(meta) = entry.metadata() else { continue };
        if (meta.is_file() || meta.file_type().is_symlink()) && uid.is_none_or(|u| u == meta.uid())
        {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

/// The name prefix of temporary files beside `path`: `.NAME.relink-`.
fn temp_prefix(path: &Path) -> OsString {
    let mut prefix = OsString::from(".");
    prefix.push(path.file_name().unwrap_or_default());
    prefix.push(TEMP_MARK);
    prefix
}

/// A temporary file in the directory of `path`, to be renamed over it.
/// Created with mode 0666 less the umask, like any new file. An error names
/// `path`, never the temporary file (a name the user never gave).
pub fn temp_file_beside(path: &Path) -> io::Result<tempfile::NamedTempFile> {
    use std::os::unix::fs::PermissionsExt;
    let dir = parent_of(path);
    enter_dir(dir);
    tempfile::Builder::new()
        .prefix(&temp_prefix(path))
        .rand_bytes(TEMP_RANDOM)
        .permissions(std::fs::Permissions::from_mode(0o666))
        .tempfile_in(dir)
        .map_err(|err| cannot_write(path, &err))
}

/// An error writing `path`, in words that name it (an error of the
/// tempfile crate names its temporary file instead).
fn cannot_write(path: &Path, err: &io::Error) -> io::Error {
    let dir = parent_of(path);
    let reason = if err.kind() == io::ErrorKind::NotFound && !dir.exists() {
        format!("no such directory: {}", dir.display())
    } else {
        err.kind().to_string()
    };
    io::Error::new(
        err.kind(),
        format!("cannot write {}: {reason}", path.display()),
    )
}

/// Where the file `-o` names is written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    /// A regular file (or none yet): replaced atomically.
    Replace(PathBuf),
    /// A character device (`/dev/null`, a terminal) or a FIFO, links
    /// followed: written into, as a shell's `>` does; it is never replaced.
    Into(PathBuf),
}

/// Where a write to `path`, named by `-o`, lands: see [`Target`] and
/// [`resolve_target`] (a directory, a block device, a socket or a dangling
/// link is refused).
pub fn output_target(path: &Path) -> io::Result<Target> {
    use std::os::unix::fs::FileTypeExt;
    if let Ok(meta) = std::fs::metadata(path) {
        let kind = meta.file_type();
        if kind.is_char_device() || kind.is_fifo() {
            return Ok(Target::Into(path.to_path_buf()));
        }
    }
    resolve_target(path).map(Target::Replace)
}

/// Opens a [`Target::Into`] for writing: neither created nor truncated.
pub fn open_into(path: &Path) -> io::Result<File> {
    File::options()
        .write(true)
        .open(path)
        .map_err(|err| cannot_write(path, &err))
}

/// Gives the temporary file the permissions (and, where the process may,
/// the owner) of `like`.
fn take_mode(file: &File, like: &Metadata) -> io::Result<()> {
    // Changing the owner is allowed to fail (only root may give files away).
    let _ = std::os::unix::fs::fchown(file, Some(like.uid()), Some(like.gid()));
    file.set_permissions(like.permissions())
}

/// Where a write to `path` lands: `path` itself if nothing is there or a
/// regular file is; the file a symbolic link leads to if it is a regular
/// file; anything else is refused, so a link, a device or a directory is
/// never replaced by a regular file.
pub fn resolve_target(path: &Path) -> io::Result<PathBuf> {
    let meta = match std::fs::symlink_metadata(path) {
        Ok(meta) => meta,
        Err(err) if err.kind() == io::ErrorKind::NotFound => return Ok(path.to_path_buf()),
        Err(err) => return Err(err),
    };
    if meta.is_file() {
        return Ok(path.to_path_buf());
    }
    if meta.file_type().is_symlink() {
        return match std::fs::metadata(path) {
            Ok(target) if target.is_file() => std::fs::canonicalize(path),
            Ok(_) => Err(refusal(
                path,
                "a symbolic link to something not a regular file",
            )),
            Err(_) => Err(refusal(path, "a symbolic link to nothing")),
        };
    }
    let what = if meta.is_dir() {
        "a directory"
    } else {
        "not a regular file"
    };
    Err(refusal(path, what))
}

fn refusal(path: &Path, what: &str) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidInput,
        format!("{}: {what}: not replaced", path.display()),
    )
}

/// How [`finish`] puts a temporary file in place.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Replace {
    /// Over whatever file is there.
    Over,
    /// Only where no file is (a renamed Maildir message never overwrites
    /// another).
    Never,
}

/// Whether [`finish`] flushes a file to disk before it renames it.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Durability {
    /// Flushed first: a crash leaves the old file or the new one, never an
    /// empty one. What an in-place rewrite (and a backup) needs.
    Flushed,
    /// Left to the system: a copy under `-o`, whose source is untouched,
    /// needs no flush per file (the cost was a quarter of the run).
    Lazy,
}

/// Flushes a temporary file to disk (as `durability` says), gives it the
/// mode of `like` (else of the file it replaces, if any), and renames it to
/// `path`.
pub fn finish(
    temp: tempfile::NamedTempFile,
    path: &Path,
    like: Option<&Metadata>,
    (replace, durability): (Replace, Durability),
) -> io::Result<()> {
    if durability == Durability::Flushed {
        temp.as_file().sync_all()?;
    }
    // The file replaced is looked at only when no mode is given.
    let existing = match like {
        Some(_) => None,
        None => std::fs::metadata(path).ok(),
    };
    if let Some(meta) = like.or(existing.as_ref()) {
        take_mode(temp.as_file(), meta)?;
    }
    let result = match replace {
        Replace::Over => temp.persist(path),
        Replace::Never => temp.persist_noclobber(path),
    };
    result.map(|_| ()).map_err(|e| {
        if e.error.kind() == io::ErrorKind::AlreadyExists {
            io::Error::new(
                e.error.kind(),
                format!("{}: already exists: not overwritten", path.display()),
            )
        } else {
            e.error
        }
    })
}

/// Writes `bytes` to `path` atomically (a temporary file in the same
/// directory, renamed over it) with the mode of `like`, for `-o`: not
/// flushed to disk, as the source stays.
pub fn write_atomically(path: &Path, bytes: &[u8], like: Option<&Metadata>) -> io::Result<()> {
    let mut temp = temp_file_beside(path)?;
    temp.write_all(bytes)?;
    finish(temp, path, like, (Replace::Over, Durability::Lazy))
}

/// Copies the file `from` to `to` atomically, with its mode.
pub fn copy_file(from: &Path, to: &Path, durability: Durability) -> io::Result<()> {
    copy_into(from, to, (Replace::Over, durability))
}

fn copy_into(from: &Path, to: &Path, how: (Replace, Durability)) -> io::Result<()> {
    let mut source =
        File::open(from).map_err(|e| io::Error::new(e.kind(), format!("cannot read: {e}")))?;
    let meta = source.metadata()?;
    let to = resolve_target(to)?;
    let mut temp = temp_file_beside(&to)?;
    io::copy(&mut source, temp.as_file_mut())?;
    finish(temp, &to, Some(&meta), how)
}

/// Makes `to` a symbolic link with the same target as the link `from`,
/// replacing an older link or file there.
pub fn copy_link(from: &Path, to: &Path) -> io::Result<()> {
    let target = std::fs::read_link(from)?;
    if let Ok(meta) = std::fs::symlink_metadata(to)
        && !(meta.is_file() || meta.file_type().is_symlink())
    {
        return Err(refusal(to, "not a regular file or link"));
    }
    let dir = parent_of(to);
    enter_dir(dir);
    let made = tempfile::Builder::new()
        .prefix(&temp_prefix(to))
        .rand_bytes(TEMP_RANDOM)
        .make_in(dir, |p| std::os::unix::fs::symlink(&target, p))?;
    made.persist(to).map(|_| ()).map_err(|e| e.error)
}

/// What [`keep_backup`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backup {
    /// The original is now the backup.
    Made,
    /// A backup was there already (an earlier run's): it is kept, and the
    /// content being replaced has none.
    Kept,
}

/// Keeps the original of `path` as `path` + `suffix`: a hard link where the
/// file system allows, else a copy, made under a temporary name and renamed,
/// so a backup is never half-written. An existing backup is never replaced:
/// it holds the oldest original (a second run rewrites what the first one
/// already rewrote, and only links differ between the two).
pub fn keep_backup(path: &Path, suffix: &str) -> io::Result<Backup> {
    let mut backup = path.as_os_str().to_owned();
    backup.push(suffix);
    let backup = PathBuf::from(backup);
    match std::fs::symlink_metadata(&backup) {
        Err(err) if err.kind() == io::ErrorKind::NotFound => {}
        Err(err) => return Err(err),
        // Already the original (a run stopped after making it) or an
        // earlier original: either way it stays.
        Ok(b) => {
            let same =
                std::fs::metadata(path).is_ok_and(|a| (a.dev(), a.ino()) == (b.dev(), b.ino()));
            return Ok(if same { Backup::Made } else { Backup::Kept });
        }
    }
    let dir = parent_of(&backup);
    enter_dir(dir);
    let made = match tempfile::Builder::new()
        .prefix(&temp_prefix(&backup))
        .rand_bytes(TEMP_RANDOM)
        .make_in(dir, |p| std::fs::hard_link(path, p))
    {
        Ok(made) => made
            .persist_noclobber(&backup)
            .map(|_| ())
            .map_err(|e| e.error),
        Err(_) => copy_into(path, &backup, (Replace::Never, Durability::Flushed)),
    };
    match made {
        Ok(()) => Ok(Backup::Made),
        // Another run made it meanwhile, from the same original.
        Err(err) if err.kind() == io::ErrorKind::AlreadyExists => Ok(Backup::Kept),
        Err(err) => Err(err),
    }
}

/// Opens `path` for an in-place rewrite, holding an advisory lock on it:
/// another run waits, then finds the rewritten file (the lock is taken
/// again if the name was renamed over meanwhile).
pub fn open_locked(path: &Path) -> io::Result<(File, Metadata)> {
    for _ in 0..100 {
        let file = File::open(path)?;
        // A file system without locks (some network ones) still gets an
        // atomic rewrite, only without the guard against a second run.
        let _ = file.lock();
        let meta = file.metadata()?;
        let now = std::fs::metadata(path)?;
        if (now.dev(), now.ino()) == (meta.dev(), meta.ino()) {
            return Ok((file, meta));
        }
    }
    Err(io::Error::other("keeps changing while being read"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn temporary_names_are_known_again() {
        assert!(is_temporary_name(".page.html.relink-a1B2c3"));
        assert!(!is_temporary_name("page.html.relink-a1B2c3"));
        assert!(!is_temporary_name(".page.html.relink-a1B2c"));
        assert!(!is_temporary_name(".relink-a1B2c3"));
        assert!(!is_temporary_name(".page.html"));
    }
}
