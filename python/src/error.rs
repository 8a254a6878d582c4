//! Failures and warnings, and how they reach Python: a [`Failure`] becomes
//! the Python exception its kind calls for, a warning a `RelinkWarning`.

use std::ffi::CString;
use std::io;

use pyo3::exceptions::{PyOSError, PyUserWarning, PyValueError};
use pyo3::prelude::*;

/// What went wrong: bad arguments or input (`ValueError`), or reading or
/// writing (`OSError`, or the Python error a stream raised).
#[derive(Debug)]
pub enum Failure {
    /// A bad base, rules name, kind, or unreadable input.
    Value(String),
    /// Opening, reading or writing, and the file it was, if known.
    Io(io::Error, Option<String>),
}

impl From<io::Error> for Failure {
    fn from(error: io::Error) -> Self {
        Failure::Io(error, None)
    }
}

impl Failure {
    /// The failure, naming `file` (when there is one).
    pub fn in_file(self, file: Option<&str>) -> Failure {
        match (self, file) {
            (Failure::Io(error, None), Some(file)) => Failure::Io(error, Some(file.to_owned())),
            (Failure::Value(message), Some(file)) => Failure::Value(format!("{file}: {message}")),
            (other, _) => other,
        }
    }
}

/// A path that is not written, and why: raised as the `OSError` of
/// `errno`, its `strerror` the reason, its `filename` the path.
#[derive(Debug)]
pub struct Refused {
    pub errno: i32,
    pub why: &'static str,
}

impl std::fmt::Display for Refused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.why)
    }
}

impl std::error::Error for Refused {}

pyo3::create_exception!(
    relink,
    RelinkWarning,
    PyUserWarning,
    "What relink could not do in a document: the part is left as it was."
);

/// The Python exception of a failure: `ValueError` for bad input, the
/// error a Python stream raised as it was, else an `OSError` of the class
/// its errno gives (`FileNotFoundError`, `PermissionError`, ...) with
/// `errno`, `strerror` and `filename` set.
pub fn py_err(failure: Failure) -> PyErr {
    let (error, file) = match failure {
        Failure::Value(message) => return PyValueError::new_err(message),
        Failure::Io(error, file) => (error, file),
    };
    if error.get_ref().is_some_and(|e| e.is::<PyErr>()) {
        return error.into();
    }
    if let Some(refused) = error.get_ref().and_then(|e| e.downcast_ref::<Refused>()) {
        return PyOSError::new_err((refused.errno, refused.why, file));
    }
    let hint = not_a_path_hint(&error, file.as_deref());
    if let Some(errno) = error.raw_os_error() {
        // OSError(errno, strerror, filename) is made the subclass its errno
        // names, as Python's own open() raises it.
        let text = error.to_string();
        let strerror = match text.rfind(" (os error ") {
            Some(at) => text[..at].to_owned(),
            None => text,
        };
        return PyOSError::new_err((errno, strerror + hint, file));
    }
    let named = match &file {
        Some(file) => format!("{file}: {error}{hint}"),
        None => error.to_string(),
    };
    match error.kind() {
        // Bytes that do not decode (a gzip stream cut short or corrupt).
        io::ErrorKind::InvalidData | io::ErrorKind::UnexpectedEof => PyValueError::new_err(named),
        kind => io::Error::new(kind, named).into(),
    }
}

/// What to add to the error of a path that names no file but reads as a
/// document (markup, a style sheet, lines): a `str` given as the data.
fn not_a_path_hint(error: &io::Error, file: Option<&str>) -> &'static str {
    let missing = matches!(
        error.kind(),
        io::ErrorKind::NotFound | io::ErrorKind::InvalidFilename | io::ErrorKind::InvalidInput
    );
    match file {
        Some(file) if missing && file.contains(['<', '{', '\n']) => {
            " (a str is a path: pass a document as bytes, text.encode())"
        }
        _ => "",
    }
}

/// Issues each warning as a `RelinkWarning`.
pub fn warn_all(py: Python<'_>, warnings: &[String]) -> PyResult<()> {
    let category = py.get_type::<RelinkWarning>();
    for warning in warnings {
        let message = CString::new(warning.replace('\0', "\u{FFFD}")).unwrap_or_default();
        PyErr::warn(py, &category, &message, 1)?;
    }
    Ok(())
}
