//! Files written whole or not at all: into a temporary file beside the
//! target, renamed over it once written, so that a failure leaves nothing
//! half-written. What is not a regular file is never replaced, as the
//! command line's `-o` does: a character device (`/dev/null`) or a FIFO is
//! written into, a symbolic link to a regular file is written through, and
//! anything else (a directory, a block device, a socket, a dangling link)
//! is refused.

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

use crate::engine::CHUNK;
use crate::error::{Failure, Refused};

/// A temporary file in `folder`, made with the permissions a new file gets
/// (0666 less the umask on Unix, where a temporary file would be 0600).
fn temp_file(folder: &Path) -> io::Result<tempfile::NamedTempFile> {
    let mut builder = tempfile::Builder::new();
    builder.prefix(".relink-");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        builder.permissions(std::fs::Permissions::from_mode(0o666));
    }
    builder.tempfile_in(folder)
}

/// Where a write to a path lands.
#[derive(Debug, PartialEq, Eq)]
enum Target {
    /// A regular file (or none yet), links followed: replaced atomically.
    Replace(PathBuf),
    /// A character device or a FIFO, links followed: written into, as a
    /// shell's `>` does, never replaced.
    Into,
}

/// Whether `kind` is written into rather than replaced.
#[cfg(unix)]
fn written_into(kind: std::fs::FileType) -> bool {
    use std::os::unix::fs::FileTypeExt;
    kind.is_char_device() || kind.is_fifo()
}

#[cfg(not(unix))]
fn written_into(_: std::fs::FileType) -> bool {
    false
}

/// Where a write to `path` lands (see [`Target`]); a directory, a block
/// device, a socket, a link to one of them or a link to nothing is refused.
fn target(path: &Path) -> io::Result<Target> {
    if std::fs::metadata(path).is_ok_and(|meta| written_into(meta.file_type())) {
        return Ok(Target::Into);
    }
    let meta = match std::fs::symlink_metadata(path) {
        Ok(meta) => meta,
        Err(error) if error.kind() == io::ErrorKind::NotFound => {
            return Ok(Target::Replace(path.to_owned()));
        }
        Err(error) => return Err(error),
    };
    if meta.is_file() {
        return Ok(Target::Replace(path.to_owned()));
    }
    let (kind, errno, why) = if meta.file_type().is_symlink() {
        match std::fs::metadata(path) {
            Ok(to) if to.is_file() => return std::fs::canonicalize(path).map(Target::Replace),
            Ok(_) => (
                io::ErrorKind::InvalidInput,
                EINVAL,
                "a symbolic link to something not a regular file: not replaced",
            ),
            Err(_) => (
                io::ErrorKind::NotFound,
                ENOENT,
                "a symbolic link to nothing: not replaced",
            ),
        }
    } else if meta.is_dir() {
        (
            io::ErrorKind::IsADirectory,
            EISDIR,
            "a directory: not replaced",
        )
    } else {
        (
            io::ErrorKind::InvalidInput,
            EINVAL,
            "not a regular file: not replaced",
        )
    };
    Err(io::Error::new(kind, Refused { errno, why }))
}

// The errno values of a refusal (the same on every Unix), which Python
// makes `FileNotFoundError`, `IsADirectoryError` and `OSError`.
const ENOENT: i32 = 2;
const EINVAL: i32 = 22;
const EISDIR: i32 = 21;

/// Gives the file that replaces another the permissions of the one it
/// replaces and, where the process may, its owner (only root may give a
/// file away), as the command line does: a private file stays private.
fn keep_mode(file: &File, old: &std::fs::Metadata) -> io::Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        let _ = std::os::unix::fs::fchown(file, Some(old.uid()), Some(old.gid()));
    }
    file.set_permissions(old.permissions())
}

/// A writer that keeps the errno of its last failure: a failure to write
/// the output is then told as the output's, never as the input's.
struct Watched<W> {
    inner: W,
    errno: Option<i32>,
}

impl<W> Watched<W> {
    fn note<T>(&mut self, result: io::Result<T>) -> io::Result<T> {
        if let Err(error) = &result {
            self.errno = error.raw_os_error().or(self.errno);
        }
        result
    }
}

impl<W: Write> Write for Watched<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let result = self.inner.write(buf);
        self.note(result)
    }

    fn flush(&mut self) -> io::Result<()> {
        let result = self.inner.flush();
        self.note(result)
    }
}

/// Writes `file` (named `name` in errors) with `write`, through a buffer,
/// and gives it back written.
fn write_into<T, W: Write + Send>(
    file: W,
    name: &str,
    write: impl FnOnce(&mut (dyn Write + Send)) -> Result<T, Failure>,
) -> Result<(T, W), Failure> {
    let named = |error: io::Error| Failure::Io(error, Some(name.to_owned()));
    let mut output = BufWriter::with_capacity(
        CHUNK,
        Watched {
            inner: file,
            errno: None,
        },
    );
    let done = write(&mut output);
    let done = match output.get_ref().errno {
        Some(errno) if done.is_err() => return Err(named(io::Error::from_raw_os_error(errno))),
        _ => done?,
    };
    let file = output.into_inner().map_err(|e| named(e.into_error()))?;
    Ok((done, file.inner))
}

/// Writes the file at `path` (named `name` in errors) with `write`: into a
/// temporary file beside it, renamed over it once `write` succeeded (a
/// failure removes the temporary file and leaves `path` as it was), or
/// into the device or FIFO that `path` is.
pub fn write_file<T>(
    path: &Path,
    name: &str,
    write: impl FnOnce(&mut (dyn Write + Send)) -> Result<T, Failure>,
) -> Result<T, Failure> {
    let named = |error: io::Error| Failure::Io(error, Some(name.to_owned()));
    let path = match target(path).map_err(named)? {
        Target::Replace(path) => path,
        Target::Into => {
            // Neither created nor truncated: what a device or FIFO is.
            let file = File::options().write(true).open(path).map_err(named)?;
            return write_into(file, name, write).map(|(done, _)| done);
        }
    };
    let folder = match path.parent() {
        Some(folder) if !folder.as_os_str().is_empty() => folder.to_owned(),
        _ => PathBuf::from("."),
    };
    let temp = temp_file(&folder).map_err(named)?;
    let (done, temp) = write_into(temp, name, write)?;
    if let Ok(old) = std::fs::metadata(&path) {
        keep_mode(temp.as_file(), &old).map_err(named)?;
    }
    temp.persist(&path).map_err(|e| named(e.error))?;
    Ok(done)
}
