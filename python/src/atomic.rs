//! Files written whole or not at all: into a temporary file beside the
//! target, renamed over it once written, so that a failure leaves nothing
//! half-written.

use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

use crate::engine::CHUNK;
use crate::error::Failure;

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

/// Writes the file at `path` (named `name` in errors) with `write`: into a
/// temporary file beside it, renamed over it once `write` succeeded. A
/// failure removes the temporary file and leaves `path` as it was.
pub fn write_file<T>(
    path: &Path,
    name: &str,
    write: impl FnOnce(&mut (dyn Write + Send)) -> Result<T, Failure>,
) -> Result<T, Failure> {
    let folder = match path.parent() {
        Some(folder) if !folder.as_os_str().is_empty() => folder.to_owned(),
        _ => PathBuf::from("."),
    };
    let named = |error: io::Error| Failure::Io(error, Some(name.to_owned()));
    let temp = temp_file(&folder).map_err(named)?;
    let mut output = BufWriter::with_capacity(CHUNK, temp);
    let done = write(&mut output)?;
    let temp = output.into_inner().map_err(|e| named(e.into_error()))?;
    temp.persist(path).map_err(|e| named(e.error))?;
    Ok(done)
}
