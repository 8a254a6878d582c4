//! What Python gives as input and output, taken one way by every function:
//! a path (`str` or `os.PathLike`), data in memory (any bytes-like
//! object), or a binary file object, read and written through its `read`
//! and `write` with the GIL taken for each call only.

use std::borrow::Cow;
use std::fs::File;
use std::io::{self, Read, Write};
use std::ops::Deref;
use std::path::{Path, PathBuf};

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::pybacked::PyBackedBytes;
use pyo3::types::{PyBytes, PyMemoryView, PyString};
use pyo3::{IntoPyObject, intern};

use crate::error::{Failure, py_err};

/// An input as Python gave it.
pub enum Input {
    /// A file, by the path given, and that path as text (for rows and
    /// messages).
    Path(PathBuf, String),
    /// Data in memory: a `bytes` object itself, or a copy of another
    /// bytes-like object.
    Data(PyBackedBytes),
    /// A binary file object with `read`, and its `name`, if it has one
    /// (for messages).
    Stream(Py<PyAny>, Option<String>),
}

/// Whether `object` is a path: a `str` or an `os.PathLike`.
fn is_path(object: &Bound<'_, PyAny>) -> PyResult<bool> {
    Ok(
        object.is_instance_of::<PyString>()
            || object.hasattr(intern!(object.py(), "__fspath__"))?,
    )
}

/// `object` as a path, and that path as text.
fn path_of(object: &Bound<'_, PyAny>) -> PyResult<(PathBuf, String)> {
    let path = object.extract::<PathBuf>()?;
    let name = path.to_string_lossy().into_owned();
    Ok((path, name))
}

impl Input {
    /// The one conversion of an input argument: a `str` or `os.PathLike`
    /// is a path (the file is read), a bytes-like object (`bytes`,
    /// `bytearray`, `memoryview`, `mmap`, `array`) is the data, an object
    /// with `read` is a binary file object.
    pub fn of(object: &Bound<'_, PyAny>) -> PyResult<Input> {
        if let Ok(bytes) = object.cast::<PyBytes>() {
            return Ok(Input::Data(PyBackedBytes::from(bytes.clone())));
        }
        if is_path(object)? {
            let (path, name) = path_of(object)?;
            return Ok(Input::Path(path, name));
        }
        if PyMemoryView::from(object).is_ok() {
            return Ok(Input::Data(PyBackedBytes::from(bytes_of(object)?)));
        }
        if object.hasattr(intern!(object.py(), "read"))? {
            let name = object.getattr(intern!(object.py(), "name")).ok();
            let name = name.and_then(|name| name.extract::<String>().ok());
            return Ok(Input::Stream(object.clone().unbind(), name));
        }
        Err(PyTypeError::new_err(format!(
            "expected a path, a bytes-like object or a binary file object (with read), not {}",
            object.get_type().name()?
        )))
    }

    /// The path given, if any: the `file` of its rows.
    pub fn file(&self) -> Option<&str> {
        match self {
            Input::Path(_, name) => Some(name),
            _ => None,
        }
    }

    /// The path given, if any, to tell a file's kind by its name.
    pub fn path(&self) -> Option<&Path> {
        match self {
            Input::Path(path, _) => Some(path),
            _ => None,
        }
    }

    /// What names the input in a message: its path, or a file object's
    /// `name`.
    pub fn label(&self) -> Option<&str> {
        match self {
            Input::Path(_, name) | Input::Stream(_, Some(name)) => Some(name),
            _ => None,
        }
    }

    /// The input as a reader: a file opened, the data, or the object's
    /// `read`.
    pub fn reader(self) -> Result<Box<dyn Read + Send>, Failure> {
        match self {
            Input::Path(path, name) => match File::open(&path) {
                Ok(file) => Ok(Box::new(file)),
                Err(error) => Err(Failure::Io(error, Some(name))),
            },
            Input::Data(data) => Ok(Box::new(io::Cursor::new(data))),
            Input::Stream(stream, _) => Ok(Box::new(PyReader::new(stream))),
        }
    }

    /// The whole input in memory, read with the GIL released.
    pub fn data(self, py: Python<'_>) -> PyResult<Data> {
        let label = self.label().map(str::to_owned);
        let mut reader = match self {
            Input::Data(data) => return Ok(Data::Python(data)),
            other => other.reader().map_err(py_err)?,
        };
        py.detach(|| {
            let mut data = Vec::new();
            reader.read_to_end(&mut data)?;
            Ok(Data::Read(data))
        })
        .map_err(|error: io::Error| py_err(Failure::Io(error, label)))
    }
}

/// An input held in memory.
pub enum Data {
    /// A `bytes` object, or a copy of another bytes-like object.
    Python(PyBackedBytes),
    /// What was read from a file or a file object.
    Read(Vec<u8>),
}

impl Deref for Data {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        match self {
            Data::Python(data) => data,
            Data::Read(data) => data,
        }
    }
}

impl Data {
    /// The data as a `bytes` object: the very object given, if it was one.
    pub fn into_bytes(self, py: Python<'_>) -> Bound<'_, PyBytes> {
        match self {
            Data::Python(data) => match data.into_pyobject(py) {
                Ok(bytes) => bytes,
                Err(never) => match never {},
            },
            Data::Read(data) => PyBytes::new(py, &data),
        }
    }
}

/// Where an output goes.
pub enum Output {
    /// A file, by the path given, and that path as text.
    Path(PathBuf, String),
    /// A Python object with `write`.
    Stream(Py<PyAny>),
}

impl Output {
    /// The one conversion of an output argument: a `str` or `os.PathLike`
    /// is a path, an object with `write` a binary file object.
    pub fn of(object: &Bound<'_, PyAny>) -> PyResult<Output> {
        if object.hasattr(intern!(object.py(), "write"))? {
            return Ok(Output::Stream(object.clone().unbind()));
        }
        if is_path(object)? {
            let (path, name) = path_of(object)?;
            return Ok(Output::Path(path, name));
        }
        Err(PyTypeError::new_err(format!(
            "expected a path or a binary file object (with write), not {}",
            object.get_type().name()?
        )))
    }
}

/// The text of a `str` argument named `name`: one with a lone surrogate,
/// which is no Unicode text, raises ValueError saying where.
pub fn unicode<'a>(text: &'a Bound<'_, PyString>, name: &str) -> PyResult<Cow<'a, str>> {
    text.to_cow().map_err(|error| {
        let py = text.py();
        let at = error.value(py).getattr(intern!(py, "start"));
        let at = at.and_then(|at| at.extract::<usize>()).unwrap_or_default();
        PyValueError::new_err(format!(
            "{name}: a lone surrogate at position {at}: not Unicode text"
        ))
    })
}

/// The text of an optional `str` argument, as [`unicode`] takes it.
pub fn optional<'a>(
    text: Option<&'a Bound<'_, PyString>>,
    name: &str,
) -> PyResult<Option<Cow<'a, str>>> {
    text.map(|text| unicode(text, name)).transpose()
}

/// The bytes of any bytes-like object: a `bytes` object as it is, any
/// other (`bytearray`, `memoryview`, `mmap`, `array`) copied once, since
/// its memory may change while relink reads it without the GIL.
pub fn bytes_of<'py>(data: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyBytes>> {
    if let Ok(bytes) = data.cast::<PyBytes>() {
        return Ok(bytes.clone());
    }
    if data.is_instance_of::<PyString>() {
        return Err(PyTypeError::new_err(
            "expected a bytes-like object, not str (open the file in binary mode)",
        ));
    }
    let view = PyMemoryView::from(data)?;
    Ok(view
        .call_method0(intern!(data.py(), "tobytes"))?
        .cast_into::<PyBytes>()?)
}

/// A Python binary file object as a Rust reader: each read calls its
/// `read(n)`, with the GIL taken for that call only. An error it raises
/// travels inside the `io::Error`, and is raised again as it was.
pub struct PyReader {
    stream: Py<PyAny>,
    /// Bytes `read` gave beyond what was asked, not yet taken.
    pending: Vec<u8>,
    at: usize,
    /// Whether `read` gave nothing: it is not asked again (some streams
    /// warn when read past their end).
    ended: bool,
}

impl PyReader {
    pub fn new(stream: Py<PyAny>) -> PyReader {
        PyReader {
            stream,
            pending: Vec::new(),
            at: 0,
            ended: false,
        }
    }
}

impl Read for PyReader {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if buf.is_empty() || (self.ended && self.at == self.pending.len()) {
            return Ok(0);
        }
        if self.at < self.pending.len() {
            let n = buf.len().min(self.pending.len() - self.at);
            buf[..n].copy_from_slice(&self.pending[self.at..self.at + n]);
            self.at += n;
            return Ok(n);
        }
        let pending = &mut self.pending;
        let n = Python::try_attach(|py| -> PyResult<usize> {
            py.check_signals()?;
            let data = self
                .stream
                .bind(py)
                .call_method1(intern!(py, "read"), (buf.len(),))?;
            if data.is_none() {
                return Err(PyValueError::new_err(
                    "read() gave None: a non-blocking stream cannot be read",
                ));
            }
            let data = bytes_of(&data)?;
            let data = data.as_bytes();
            // A stream may give more than it was asked for: the rest waits.
            let n = buf.len().min(data.len());
            buf[..n].copy_from_slice(&data[..n]);
            pending.clear();
            pending.extend_from_slice(&data[n..]);
            Ok(n)
        })
        .ok_or_else(|| io::Error::other("the Python interpreter is shutting down"))?
        .map_err(io::Error::other)?;
        self.at = 0;
        self.ended = n == 0;
        Ok(n)
    }
}

/// A Python binary file object as a Rust writer: each write calls its
/// `write` with the GIL taken for that call only.
pub struct PyWriter {
    pub stream: Py<PyAny>,
}

impl PyWriter {
    fn call(&self, f: impl FnOnce(Python<'_>) -> PyResult<usize>) -> io::Result<usize> {
        Python::try_attach(f)
            .ok_or_else(|| io::Error::other("the Python interpreter is shutting down"))?
            .map_err(io::Error::other)
    }
}

impl Write for PyWriter {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.call(|py| {
            py.check_signals()?;
            let written = self
                .stream
                .bind(py)
                .call_method1(intern!(py, "write"), (PyBytes::new(py, buf),))?;
            // A buffered stream writes everything and says so (or, some,
            // says nothing); a raw one may write less.
            Ok(match written.is_none() {
                true => buf.len(),
                false => written.extract::<usize>()?.min(buf.len()),
            })
        })
    }

    fn flush(&mut self) -> io::Result<()> {
        self.call(|py| {
            let stream = self.stream.bind(py);
            if stream.hasattr(intern!(py, "flush"))? {
                stream.call_method0(intern!(py, "flush"))?;
            }
            Ok(0)
        })
        .map(drop)
    }
}
