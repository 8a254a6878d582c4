//! Files written whole or not at all: into a temporary file beside the
//! target, renamed over it once written, so that a failure leaves nothing
//! half-written and the input may be the output. What is not a regular
//! file is never replaced, as the command line's `-o` does: a character
//! device (`/dev/null`) or a FIFO is written into, a symbolic link to a
//! file is written through, a directory is refused.

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

use crate::engine::Failure;

/// How many bytes are written at a time.
const CHUNK: usize = 256 << 10;

/// A temporary file in `folder`, with the permissions of the file it
/// replaces, or those a new file gets (0666 less the umask on Unix, where
/// a temporary file would be 0600).
fn temp_file(
    folder: &Path,
    like: Option<std::fs::Permissions>,
) -> io::Result<tempfile::NamedTempFile> {
    let mut builder = tempfile::Builder::new();
    builder.prefix(".relink-");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        builder.permissions(std::fs::Permissions::from_mode(0o666));
    }
    let temp = builder.tempfile_in(folder)?;
    if let Some(permissions) = like {
        temp.as_file().set_permissions(permissions)?;
    }
    Ok(temp)
}

/// Runs `job` into the file at `path`, written whole or not at all.
/// Opening, writing or renaming the file is a failure of the file; what
/// `job` returns stays as it was.
pub fn write_file<T, E: From<Failure>>(
    path: &Path,
    job: impl FnOnce(&mut dyn Write) -> Result<T, E>,
) -> Result<T, E> {
    let mut done = None;
    let written = write_with(path, |output| match job(output) {
        Ok(value) => {
            done = Some(Ok(value));
            Ok(())
        }
        Err(error) => {
            done = Some(Err(error));
            // Abandons the file; the job's own error is the one returned.
            Err(Failure::Value(String::new()))
        }
    });
    match (done, written) {
        (Some(Err(error)), _) => Err(error),
        (Some(Ok(value)), Ok(())) => Ok(value),
        (_, Err(failure)) => Err(E::from(failure)),
        (None, Ok(())) => Err(E::from(Failure::Value("nothing was written".into()))),
    }
}

/// Runs `job` into the file at `path`; written in place only when `job`
/// succeeds.
fn write_with(
    path: &Path,
    job: impl FnOnce(&mut dyn Write) -> Result<(), Failure>,
) -> Result<(), Failure> {
    let target = match std::fs::metadata(path) {
        Ok(meta) if meta.is_dir() => {
            return Err(Failure::Io(io::Error::new(
                io::ErrorKind::IsADirectory,
                "is a directory",
            )));
        }
        Ok(meta) if !meta.is_file() => {
            let mut output = BufWriter::with_capacity(CHUNK, File::create(path)?);
            job(&mut output)?;
            output.flush()?;
            return Ok(());
        }
        Ok(meta) => Some((std::fs::canonicalize(path)?, meta.permissions())),
        Err(error) if error.kind() == io::ErrorKind::NotFound => None,
        Err(error) => return Err(error.into()),
    };
    let (target, like) = match target {
        Some((target, permissions)) => (target, Some(permissions)),
        None => (path.to_owned(), None),
    };
    let folder = match target.parent() {
        Some(folder) if !folder.as_os_str().is_empty() => folder.to_owned(),
        _ => PathBuf::from("."),
    };
    let temp = temp_file(&folder, like)?;
    let mut output = BufWriter::with_capacity(CHUNK, temp);
    job(&mut output)?;
    let temp = output
        .into_inner()
        .map_err(io::IntoInnerError::into_error)?;
    temp.persist(&target).map_err(|error| error.error)?;
    Ok(())
}
