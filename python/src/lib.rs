//! The Python module `relink`: relink's resolver and rewriters for Python,
//! built with PyO3 and maturin. The Python side is described in
//! `relink.pyi`; every call into the relink crate is in [`engine`].
#![forbid(unsafe_code)]

use std::collections::VecDeque;
use std::ffi::CString;
use std::fs::File;
use std::io::{self, BufWriter, Read, Write};
use std::path::PathBuf;
use std::sync::mpsc::{Receiver, RecvTimeoutError, SyncSender, sync_channel};
use std::sync::{Mutex, MutexGuard, PoisonError, TryLockError};
use std::thread;
use std::time::Duration;

use pyo3::exceptions::{PyOSError, PyTypeError, PyUserWarning, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyMemoryView, PyString};
use pyo3::{intern, pyclass, pymethods};

// ---------------------------------------------------------------------
// The only module that calls the relink crate. It uses only what the
// crate's root exports: relink::{resolve, Rewriter, Rewritten, Kind,
// Rules, LinkRow, RecordName, BaseSource, Error}, and the WarcSummary and
// ArchiveMessage values the Rewriter's methods hand back.
// ---------------------------------------------------------------------

/// Every use of the relink crate, behind plain types: the rest of this
/// file speaks Python and names no relink item but [`RecordName`], the
/// record a row shares with the others of its record.
mod engine {
    use std::io::{self, BufRead, BufReader, Read, Write};
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, Ordering};

    pub use relink::RecordName;
    use relink::{BaseSource, Kind, LinkRow, Rewriter, Rules};

    /// What went wrong: bad arguments or input (`ValueError`), or reading
    /// or writing (`OSError`, or the Python error a stream raised).
    #[derive(Debug)]
    pub enum Failure {
        /// A bad base, rules name, kind, or unreadable input.
        Value(String),
        /// Opening, reading or writing, and the file it was, if known.
        Io(io::Error, Option<String>),
    }

    impl From<relink::Error> for Failure {
        fn from(error: relink::Error) -> Self {
            match error {
                relink::Error::Io(error) => Failure::Io(error, None),
                other => Failure::Value(other.to_string()),
            }
        }
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
                (Failure::Value(message), Some(file)) => {
                    Failure::Value(format!("{file}: {message}"))
                }
                (other, _) => other,
            }
        }
    }

    /// One link, with the fields of `relink --list --format json` but
    /// `file`, which the caller knows.
    #[derive(Debug)]
    pub struct Row {
        /// The mbox message it is in, from 1.
        pub message: Option<usize>,
        /// The MIME part it is in (empty for a single-part message).
        pub part: Option<String>,
        /// The web archive record it is in.
        pub record: Option<Arc<RecordName>>,
        pub line: usize,
        pub column: usize,
        pub element: String,
        pub attribute: String,
        pub original: String,
        pub resolved: String,
        /// The base it was resolved against, if any.
        pub base: Option<String>,
        /// Where that base came from, as the command line says it.
        pub base_from: String,
        pub changed: bool,
    }

    /// Where a base came from, as the command line names it (the same
    /// mapping as its report's `source_name`): the flags the user gave by
    /// their names, every other layer as the library says it.
    fn source_name(source: &BaseSource) -> String {
        match source {
            BaseSource::Forced => "--base".to_owned(),
            BaseSource::RetrievedFrom => "--retrieved-from".to_owned(),
            BaseSource::Enclosing(outer) => {
                format!("the enclosing document ({})", source_name(outer))
            }
            other => other.to_string(),
        }
    }

    fn row(row: LinkRow) -> Row {
        let link = row.link;
        let (base, base_from) = match link.base {
            Some(base) => (
                Some(base.url.as_str().to_owned()),
                source_name(&base.source),
            ),
            None => (None, "none".to_owned()),
        };
        Row {
            message: row.message,
            part: row.part,
            record: row.record,
            line: link.line,
            column: link.column,
            element: link.place.element,
            attribute: link.place.attribute,
            original: link.original,
            resolved: link.resolved,
            base,
            base_from,
            changed: link.changed,
        }
    }

    /// A rewritten document: its new bytes (`None` when nothing changed)
    /// and what could not be done.
    #[derive(Debug)]
    pub struct Rewritten {
        pub bytes: Option<Vec<u8>>,
        pub warnings: Vec<String>,
    }

    fn rules(name: &str) -> Result<Rules, Failure> {
        Ok(name.parse::<Rules>()?)
    }

    /// The kinds taken by name.
    pub const KINDS: [(&str, Kind); 8] = [
        ("html", Kind::Html),
        ("css", Kind::Css),
        ("message", Kind::Message),
        ("mbox", Kind::Mbox),
        ("warc", Kind::Warc),
        ("wacz", Kind::Wacz),
        ("xml", Kind::Xml),
        ("markdown", Kind::Markdown),
    ];

    fn kind(name: &str) -> Result<Kind, Failure> {
        KINDS
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|&(_, kind)| kind)
            .ok_or_else(|| {
                let names: Vec<&str> = KINDS.iter().map(|(k, _)| *k).collect();
                Failure::Value(format!(
                    "unknown kind '{name}' (expected {})",
                    names.join(", ")
                ))
            })
    }

    /// A rewrite under the named rules, from a retrieval URL, of a kind
    /// (found from the bytes when `None`).
    fn rewriter(
        base: Option<&str>,
        rules_name: &str,
        kind_name: Option<&str>,
    ) -> Result<Rewriter, Failure> {
        let mut rewriter = Rewriter::new().rules(rules(rules_name)?);
        if let Some(base) = base {
            rewriter = rewriter.retrieved_from(base);
        }
        if let Some(name) = kind_name {
            rewriter = rewriter.kind(kind(name)?);
        }
        Ok(rewriter)
    }

    fn rewritten(out: relink::Rewritten<'_>) -> Rewritten {
        let warnings = out.warnings().iter().map(ToString::to_string).collect();
        let bytes = out.changed().then(|| out.into_bytes());
        Rewritten { bytes, warnings }
    }

    pub fn resolve(base: &str, reference: &str, rules_name: &str) -> Result<String, Failure> {
        Ok(relink::resolve(base, reference, rules(rules_name)?)?)
    }

    /// An HTML document rewritten against the URL it was retrieved from.
    pub fn absolutize(data: &[u8], base: &str, rules_name: &str) -> Result<Rewritten, Failure> {
        let rewriter = rewriter(Some(base), rules_name, Some("html"))?;
        Ok(rewritten(rewriter.rewrite(data)?))
    }

    /// Every link of any input relink reads, held in memory.
    pub fn links(
        data: &[u8],
        base: Option<&str>,
        rules_name: &str,
        kind_name: Option<&str>,
    ) -> Result<Vec<Row>, Failure> {
        let rewriter = rewriter(base, rules_name, kind_name)?;
        Ok(rewriter.link_rows(data)?.into_iter().map(row).collect())
    }

    /// Any input relink reads, its kind given or found from its bytes (an
    /// archive is never taken for a document).
    pub fn rewrite(
        data: &[u8],
        base: Option<&str>,
        rules_name: &str,
        kind_name: Option<&str>,
    ) -> Result<Rewritten, Failure> {
        let rewriter = rewriter(base, rules_name, kind_name)?;
        Ok(rewritten(rewriter.rewrite(data)?))
    }

    /// The archives read as streams.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub enum Archive {
        Warc,
        Mbox,
    }

    /// How an archive is read: its kind, and the rewrite for it.
    pub struct ArchiveReader {
        archive: Archive,
        rewriter: Rewriter,
    }

    /// How many bytes are asked of the input at a time.
    pub const CHUNK: usize = 256 << 10;

    impl ArchiveReader {
        /// Checks the rules and base at once, before anything is read.
        pub fn new(
            archive: Archive,
            base: Option<&str>,
            rules_name: &str,
        ) -> Result<ArchiveReader, Failure> {
            let rewriter = rewriter(base, rules_name, None)?;
            // A bad base fails here, not in the middle of the stream.
            if let Some(base) = base {
                relink::resolve(base, "", rules(rules_name)?)?;
            }
            Ok(ArchiveReader { archive, rewriter })
        }

        /// Calls `on_row` for every link of `input`, in order, reading it
        /// as a stream; stops early when `on_row` returns `false`. Returns
        /// how many records (or messages) were read.
        pub fn links(
            &self,
            input: impl Read,
            mut on_row: impl FnMut(Row) -> bool,
        ) -> Result<usize, Failure> {
            let stop = Arc::new(AtomicBool::new(false));
            let reader = Stoppable {
                inner: input,
                stop: Arc::clone(&stop),
            };
            let reader = BufReader::with_capacity(CHUNK, reader);
            let mut each = |link: LinkRow| {
                if stop.load(Ordering::Relaxed) {
                    return;
                }
                if !on_row(row(link)) {
                    stop.store(true, Ordering::Relaxed);
                }
            };
            let result = match self.archive {
                Archive::Warc => (self.rewriter)
                    .warc_link_rows(reader, &mut each)
                    .map(|summary| summary.records),
                Archive::Mbox => self.rewriter.mbox_link_rows(reader, &mut each),
            };
            match result {
                _ if stop.load(Ordering::Relaxed) => Ok(0),
                Ok(records) => Ok(records),
                Err(error) => Err(error.into()),
            }
        }

        /// Rewrites the archive from `input` to `output` as a stream;
        /// returns how many records (or messages) changed, and what could
        /// not be done.
        pub fn rewrite(
            &self,
            input: impl BufRead,
            output: impl Write,
        ) -> Result<(usize, Vec<String>), Failure> {
            match self.archive {
                Archive::Warc => {
                    let summary = self.rewriter.rewrite_warc(input, output)?;
                    let warnings = summary.warnings.iter().map(ToString::to_string);
                    Ok((summary.changed, warnings.collect()))
                }
                Archive::Mbox => {
                    let mut warnings = Vec::new();
                    let changed = self.rewriter.rewrite_mbox_with(input, output, |message| {
                        let n = message.number;
                        let each = message.outcome.warnings.iter();
                        warnings.extend(each.map(|w| format!("message {n}: {w}")));
                    })?;
                    Ok((changed, warnings))
                }
            }
        }
    }

    /// A reader that ends with an error once `stop` is set, so that a
    /// reader no one listens to any more stops at its next read.
    struct Stoppable<R> {
        inner: R,
        stop: Arc<AtomicBool>,
    }

    impl<R: Read> Read for Stoppable<R> {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            if self.stop.load(Ordering::Relaxed) {
                return Err(io::Error::other("stopped"));
            }
            self.inner.read(buf)
        }
    }
}

use engine::{Archive, ArchiveReader, Failure, Row};

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
fn py_err(failure: Failure) -> PyErr {
    let (error, file) = match failure {
        Failure::Value(message) => return PyValueError::new_err(message),
        Failure::Io(error, file) => (error, file),
    };
    if error.get_ref().is_some_and(|e| e.is::<PyErr>()) {
        return error.into();
    }
    if let Some(errno) = error.raw_os_error() {
        // OSError(errno, strerror, filename) is made the subclass its errno
        // names, as Python's own open() raises it.
        let text = error.to_string();
        let strerror = match text.rfind(" (os error ") {
            Some(at) => text[..at].to_owned(),
            None => text,
        };
        return PyOSError::new_err((errno, strerror, file));
    }
    let named = match &file {
        Some(file) => format!("{file}: {error}"),
        None => error.to_string(),
    };
    match error.kind() {
        // Bytes that do not decode (a gzip stream cut short or corrupt).
        io::ErrorKind::InvalidData | io::ErrorKind::UnexpectedEof => PyValueError::new_err(named),
        kind => io::Error::new(kind, named).into(),
    }
}

/// Issues each warning as a `RelinkWarning`.
fn warn_all(py: Python<'_>, warnings: &[String]) -> PyResult<()> {
    let category = py.get_type::<RelinkWarning>();
    for warning in warnings {
        let message = CString::new(warning.replace('\0', "\u{FFFD}")).unwrap_or_default();
        PyErr::warn(py, &category, &message, 1)?;
    }
    Ok(())
}

/// A link row as a dict, with the keys of `relink --list --format json`.
fn row_dict<'py>(
    py: Python<'py>,
    file: Option<&Py<PyString>>,
    row: Row,
) -> PyResult<Bound<'py, PyDict>> {
    let dict = PyDict::new(py);
    dict.set_item(intern!(py, "file"), file.map(|f| f.bind(py)))?;
    dict.set_item(intern!(py, "message"), row.message)?;
    dict.set_item(intern!(py, "part"), row.part)?;
    let record = row.record.as_deref();
    dict.set_item(intern!(py, "record"), record.map(|r| r.number))?;
    dict.set_item(intern!(py, "record_id"), record.map(|r| &r.record_id))?;
    dict.set_item(intern!(py, "target_uri"), record.map(|r| &r.target_uri))?;
    dict.set_item(intern!(py, "line"), row.line)?;
    dict.set_item(intern!(py, "column"), row.column)?;
    dict.set_item(intern!(py, "element"), row.element)?;
    dict.set_item(intern!(py, "attribute"), row.attribute)?;
    dict.set_item(intern!(py, "original"), row.original)?;
    dict.set_item(intern!(py, "resolved"), row.resolved)?;
    dict.set_item(intern!(py, "base"), row.base)?;
    dict.set_item(intern!(py, "base_from"), row.base_from)?;
    dict.set_item(intern!(py, "changed"), row.changed)?;
    Ok(dict)
}

/// The bytes of any bytes-like object: a `bytes` object as it is, any
/// other (`bytearray`, `memoryview`, `mmap`, `array`) copied once, since
/// its memory may change while relink reads it without the GIL.
fn bytes_of<'py>(data: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyBytes>> {
    if let Ok(bytes) = data.cast::<PyBytes>() {
        return Ok(bytes.clone());
    }
    if data.is_instance_of::<PyString>() {
        return Err(PyTypeError::new_err(
            "expected a bytes-like object, not str (encode it, or open the file in binary mode)",
        ));
    }
    let view = PyMemoryView::from(data)?;
    Ok(view
        .call_method0(intern!(data.py(), "tobytes"))?
        .cast_into::<PyBytes>()?)
}

/// The bytes of a rewrite: the input object itself when nothing changed.
fn rewritten<'py>(
    py: Python<'py>,
    data: Bound<'py, PyBytes>,
    out: engine::Rewritten,
) -> PyResult<Bound<'py, PyBytes>> {
    warn_all(py, &out.warnings)?;
    Ok(match out.bytes {
        Some(bytes) => PyBytes::new(py, &bytes),
        None => data,
    })
}

/// Resolves `reference` against the absolute URL `base`.
///
/// `rules` is "rfc1808" (the default), "rfc3986" or "whatwg". Raises
/// ValueError for a base that is not absolute or a rules name not known.
#[pyfunction]
#[pyo3(signature = (base, reference, rules = "rfc1808"))]
fn resolve(py: Python<'_>, base: &str, reference: &str, rules: &str) -> PyResult<String> {
    py.detach(|| engine::resolve(base, reference, rules))
        .map_err(py_err)
}

/// Makes the links of an HTML document absolute.
///
/// `data` is any bytes-like object. `base` is the URL the document was
/// retrieved from; a BASE element in the document still wins. Everything
/// but the changed URLs is kept byte for byte; what cannot be done is
/// issued as a RelinkWarning. Raises ValueError for a bad base or rules
/// name.
#[pyfunction]
#[pyo3(signature = (data, base, rules = "rfc1808"))]
fn absolutize<'py>(
    py: Python<'py>,
    data: &Bound<'py, PyAny>,
    base: &str,
    rules: &str,
) -> PyResult<Bound<'py, PyBytes>> {
    let data = bytes_of(data)?;
    let bytes = data.as_bytes();
    let out = py
        .detach(|| engine::absolutize(bytes, base, rules))
        .map_err(py_err)?;
    rewritten(py, data, out)
}

/// Every link of a document or archive held in memory, as dicts with the
/// keys of `relink --list --format json` (file, message, part, record,
/// record_id, target_uri, line, column, element, attribute, original,
/// resolved, base, base_from, changed).
///
/// `data` is any bytes-like object: HTML, CSS, a message or MHTML file, an
/// mbox, a web archive or a WACZ package, its `kind` found from the bytes
/// when not given, as `rewrite` finds it. A message's links resolve
/// against its own headers (Base, Content-Base, Content-Location) above
/// `base`, the URL it was retrieved from.
#[pyfunction]
#[pyo3(signature = (data, base = None, rules = "rfc1808", kind = None))]
fn links<'py>(
    py: Python<'py>,
    data: &Bound<'py, PyAny>,
    base: Option<&str>,
    rules: &str,
    kind: Option<&str>,
) -> PyResult<Vec<Bound<'py, PyDict>>> {
    let data = bytes_of(data)?;
    let bytes = data.as_bytes();
    let rows = py
        .detach(|| engine::links(bytes, base, rules, kind))
        .map_err(py_err)?;
    rows.into_iter()
        .map(|row| row_dict(py, None, row))
        .collect()
}

/// Rewrites any document relink reads: HTML, CSS, a message or MHTML file,
/// an mbox, a web archive (WARC or ARC) or a WACZ package.
///
/// `data` is any bytes-like object. `kind` ("html", "css", "message",
/// "mbox", "warc", "wacz") is found from the bytes when not given, as the
/// command line finds it (CSS must be named). `base` is the URL the
/// document was retrieved from; without one only the document's own bases
/// apply. The records of a WARC file use their own bases, and `base` is
/// not used.
#[pyfunction]
#[pyo3(signature = (data, base = None, rules = "rfc1808", kind = None))]
fn rewrite<'py>(
    py: Python<'py>,
    data: &Bound<'py, PyAny>,
    base: Option<&str>,
    rules: &str,
    kind: Option<&str>,
) -> PyResult<Bound<'py, PyBytes>> {
    let data = bytes_of(data)?;
    let bytes = data.as_bytes();
    let out = py
        .detach(|| engine::rewrite(bytes, base, rules, kind))
        .map_err(py_err)?;
    rewritten(py, data, out)
}

// ---------------------------------------------------------------------
// Archives as streams: a path, or any binary file object.
// ---------------------------------------------------------------------

/// Where an archive is read from or written to.
enum Source {
    /// A file, by the path given (and that path as text, for rows and
    /// errors).
    Path(PathBuf, String),
    /// A Python object with `read` (or `write`).
    Stream(Py<PyAny>),
}

impl Source {
    /// A path (`str` or `os.PathLike`), or an object with `method`.
    fn of(object: &Bound<'_, PyAny>, method: &Bound<'_, PyString>) -> PyResult<Source> {
        if object.hasattr(method)? {
            return Ok(Source::Stream(object.clone().unbind()));
        }
        match object.extract::<PathBuf>() {
            Ok(path) => {
                let name = path.to_string_lossy().into_owned();
                Ok(Source::Path(path, name))
            }
            Err(_) => {
                let hint = match PyMemoryView::from(object) {
                    Ok(_) => " (for data in memory, use links() or rewrite())",
                    Err(_) => "",
                };
                Err(PyTypeError::new_err(format!(
                    "expected a path or a binary file object (with {method}), not {}{hint}",
                    object.get_type().name()?
                )))
            }
        }
    }

    /// The path given, if any.
    fn name(&self) -> Option<&str> {
        match self {
            Source::Path(_, name) => Some(name),
            Source::Stream(_) => None,
        }
    }

    /// The input as a reader: a file opened, or the object's `read`.
    fn reader(self) -> Result<Box<dyn Read + Send>, Failure> {
        match self {
            Source::Path(path, name) => match File::open(&path) {
                Ok(file) => Ok(Box::new(file)),
                Err(error) => Err(Failure::Io(error, Some(name))),
            },
            Source::Stream(stream) => Ok(Box::new(PyReader {
                stream,
                pending: Vec::new(),
                at: 0,
                ended: false,
            })),
        }
    }
}

/// A Python binary file object as a Rust reader: each read calls its
/// `read(n)`, with the GIL taken for that call only. An error it raises
/// travels inside the `io::Error`, and is raised again as it was.
struct PyReader {
    stream: Py<PyAny>,
    /// Bytes `read` gave beyond what was asked, not yet taken.
    pending: Vec<u8>,
    at: usize,
    /// Whether `read` gave nothing: it is not asked again (some streams
    /// warn when read past their end).
    ended: bool,
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
struct PyWriter {
    stream: Py<PyAny>,
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

/// How many links go through the channel at once, and how many such
/// batches may wait: the reader stays at most this far ahead.
const LINKS_PER_BATCH: usize = 256;
const BATCHES_AHEAD: usize = 16;

/// How long a wait for links goes on before signals (Ctrl-C) are looked at.
const SIGNAL_CHECK: Duration = Duration::from_millis(100);

enum Batch {
    Rows(Vec<Row>),
    /// The end: how many records or messages were read, or what failed.
    End(Result<usize, Failure>),
}

/// The iterator's state, behind a lock: one thread at a time takes a row.
struct StreamState {
    receiver: Receiver<Batch>,
    buffer: VecDeque<Row>,
    done: bool,
    records: Option<usize>,
}

/// What a step of the iteration gave (a value on the stack, moved once:
/// its size costs nothing).
#[allow(clippy::large_enum_variant)]
enum Step {
    Row(Row),
    End,
    /// Nothing yet: wait for the reader.
    Wait,
}

impl StreamState {
    fn take(&mut self) -> Step {
        match self.buffer.pop_front() {
            Some(row) => Step::Row(row),
            None if self.done => Step::End,
            None => Step::Wait,
        }
    }

    /// Waits for the reader, up to `SIGNAL_CHECK`.
    fn wait(&mut self) -> Result<Step, Failure> {
        match self.receiver.recv_timeout(SIGNAL_CHECK) {
            Ok(Batch::Rows(rows)) => {
                self.buffer.extend(rows);
                Ok(self.take())
            }
            Ok(Batch::End(result)) => {
                self.done = true;
                self.records = Some(result?);
                Ok(self.take())
            }
            Err(RecvTimeoutError::Timeout) => Ok(Step::Wait),
            Err(RecvTimeoutError::Disconnected) => {
                self.done = true;
                Err(Failure::Value("the archive's reader stopped".to_owned()))
            }
        }
    }
}

/// The links of an archive (a WARC or an mbox), read on a background
/// thread as they are taken. Safe to share between threads: each link is
/// given to one of them.
#[pyclass(module = "relink", frozen)]
struct LinkStream {
    state: Mutex<StreamState>,
    file: Option<Py<PyString>>,
}

impl LinkStream {
    fn lock(&self) -> MutexGuard<'_, StreamState> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

#[pymethods]
impl LinkStream {
    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    fn __next__<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyDict>>> {
        // The common case, a row in the buffer, without letting go of the
        // GIL.
        let mut step = match self.state.try_lock() {
            Ok(mut state) => state.take(),
            Err(TryLockError::Poisoned(poisoned)) => poisoned.into_inner().take(),
            Err(TryLockError::WouldBlock) => Step::Wait,
        };
        while let Step::Wait = step {
            step = py
                .detach(|| {
                    let mut state = self.lock();
                    match state.take() {
                        Step::Wait => state.wait(),
                        other => Ok(other),
                    }
                })
                .map_err(py_err)?;
            py.check_signals()?;
        }
        match step {
            Step::Row(row) => row_dict(py, self.file.as_ref(), row).map(Some),
            _ => Ok(None),
        }
    }

    /// How many records (of a WARC) or messages (of an mbox) were read,
    /// once the iteration has ended; None before.
    #[getter]
    fn records(&self) -> Option<usize> {
        self.lock().records
    }
}

/// Starts the reader of `source` on a background thread.
fn stream(
    py: Python<'_>,
    archive: Archive,
    source: &Bound<'_, PyAny>,
    base: Option<&str>,
    rules: &str,
) -> PyResult<LinkStream> {
    let source = Source::of(source, intern!(py, "read"))?;
    let reader = ArchiveReader::new(archive, base, rules).map_err(py_err)?;
    let name = source.name().map(str::to_owned);
    let file = name.as_deref().map(|n| PyString::new(py, n).unbind());
    let input = source.reader().map_err(py_err)?;
    let (sender, receiver) = sync_channel(BATCHES_AHEAD);
    thread::Builder::new()
        .name("relink-archive".to_owned())
        .spawn(move || read_links(reader, input, name, sender))?;
    Ok(LinkStream {
        state: Mutex::new(StreamState {
            receiver,
            buffer: VecDeque::new(),
            done: false,
            records: None,
        }),
        file,
    })
}

/// The background thread: the links of `input`, in batches, then the end.
fn read_links(
    reader: ArchiveReader,
    input: Box<dyn Read + Send>,
    name: Option<String>,
    sender: SyncSender<Batch>,
) {
    let mut batch = Vec::with_capacity(LINKS_PER_BATCH);
    let result = reader.links(input, |row| {
        batch.push(row);
        if batch.len() < LINKS_PER_BATCH {
            return true;
        }
        let full = std::mem::replace(&mut batch, Vec::with_capacity(LINKS_PER_BATCH));
        sender.send(Batch::Rows(full)).is_ok()
    });
    let result = result.map_err(|failure| failure.in_file(name.as_deref()));
    if !batch.is_empty() && sender.send(Batch::Rows(batch)).is_err() {
        return;
    }
    let _ = sender.send(Batch::End(result));
}

/// Every link of a WARC file (plain or gzipped; WARC or ARC), as dicts
/// with the keys of `relink --list --format json`.
///
/// `source` is a path, or any binary file object (an open() file, a
/// gzip.open stream, an HTTP response, an fsspec or boto3 stream): it is
/// read as a stream, in chunks, on a background thread, a little ahead of
/// the iteration. Raises OSError (FileNotFoundError, ...) at once when a
/// path cannot be opened, ValueError for a bad rules name (at once) or
/// input that cannot be read (during the iteration), and what the file
/// object's read raises.
#[pyfunction]
#[pyo3(signature = (source, rules = "rfc1808"))]
fn warc_links(py: Python<'_>, source: &Bound<'_, PyAny>, rules: &str) -> PyResult<LinkStream> {
    stream(py, Archive::Warc, source, None, rules)
}

/// Every link of an mbox (plain or gzipped), message by message, as dicts
/// with the keys of `relink --list --format json`.
///
/// `source` is a path or any binary file object, read as a stream on a
/// background thread, as warc_links reads it. Each message's links
/// resolve against its own headers above `base`, the URL the mbox was
/// retrieved from.
#[pyfunction]
#[pyo3(signature = (source, base = None, rules = "rfc1808"))]
fn mbox_links(
    py: Python<'_>,
    source: &Bound<'_, PyAny>,
    base: Option<&str>,
    rules: &str,
) -> PyResult<LinkStream> {
    stream(py, Archive::Mbox, source, base, rules)
}

/// Rewrites an archive from `src` to `dst`, as a stream; returns how many
/// records or messages changed.
fn rewrite_stream(
    py: Python<'_>,
    archive: Archive,
    (src, dst): (&Bound<'_, PyAny>, &Bound<'_, PyAny>),
    base: Option<&str>,
    rules: &str,
) -> PyResult<usize> {
    let source = Source::of(src, intern!(py, "read"))?;
    let destination = Source::of(dst, intern!(py, "write"))?;
    let reader = ArchiveReader::new(archive, base, rules).map_err(py_err)?;
    if let (Source::Path(from, _), Source::Path(to, name)) = (&source, &destination)
        && to.exists()
        && std::fs::canonicalize(from).ok() == std::fs::canonicalize(to).ok()
    {
        return Err(PyValueError::new_err(format!(
            "{name}: the output would overwrite the input"
        )));
    }
    let name = source.name().map(str::to_owned);
    let input = source.reader().map_err(py_err)?;
    let result = match destination {
        Source::Path(path, out_name) => py.detach(|| {
            // Written beside its place, then renamed over it: a failure
            // leaves no half-written file.
            let folder = match path.parent() {
                Some(folder) if !folder.as_os_str().is_empty() => folder.to_owned(),
                _ => PathBuf::from("."),
            };
            let named = |error: io::Error| Failure::Io(error, Some(out_name.clone()));
            let temp = temp_file(&folder).map_err(named)?;
            let mut output = BufWriter::with_capacity(engine::CHUNK, temp);
            let done = run_rewrite(&reader, input, &mut output, name.as_deref())?;
            let temp = output.into_inner().map_err(|e| named(e.into_error()))?;
            temp.persist(&path).map_err(|e| named(e.error))?;
            Ok(done)
        }),
        Source::Stream(stream) => py.detach(|| {
            let mut output = BufWriter::with_capacity(engine::CHUNK, PyWriter { stream });
            let done = run_rewrite(&reader, input, &mut output, name.as_deref())?;
            output.flush()?;
            Ok(done)
        }),
    };
    let (changed, warnings) = result.map_err(py_err)?;
    warn_all(py, &warnings)?;
    Ok(changed)
}

/// A temporary file in `folder`, made with the permissions a new file gets
/// (0666 less the umask on Unix, where a temporary file would be 0600).
fn temp_file(folder: &std::path::Path) -> io::Result<tempfile::NamedTempFile> {
    let mut builder = tempfile::Builder::new();
    builder.prefix(".relink-");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        builder.permissions(std::fs::Permissions::from_mode(0o666));
    }
    builder.tempfile_in(folder)
}

fn run_rewrite(
    reader: &ArchiveReader,
    input: Box<dyn Read + Send>,
    output: &mut impl Write,
    name: Option<&str>,
) -> Result<(usize, Vec<String>), Failure> {
    let input = io::BufReader::with_capacity(engine::CHUNK, input);
    reader
        .rewrite(input, output)
        .map_err(|failure| failure.in_file(name))
}

/// Rewrites a WARC file (plain or gzipped; WARC or ARC) from `src` to
/// `dst`, record by record, each against its own base; returns how many
/// records changed.
///
/// `src` is a path or any binary file object with `read`; `dst` a path
/// (written whole or not at all) or any binary file object with `write`.
/// Both are streamed, in memory bounded by a batch of records. What cannot
/// be done is issued as a RelinkWarning.
#[pyfunction]
#[pyo3(signature = (src, dst, rules = "rfc1808"))]
fn rewrite_warc(
    py: Python<'_>,
    src: &Bound<'_, PyAny>,
    dst: &Bound<'_, PyAny>,
    rules: &str,
) -> PyResult<usize> {
    rewrite_stream(py, Archive::Warc, (src, dst), None, rules)
}

/// Rewrites an mbox (plain or gzipped: it comes back gzipped) from `src`
/// to `dst`, message by message; returns how many messages changed.
///
/// `src` and `dst` are as for rewrite_warc. `base` is the URL the mbox was
/// retrieved from, below each message's own headers.
#[pyfunction]
#[pyo3(signature = (src, dst, base = None, rules = "rfc1808"))]
fn rewrite_mbox(
    py: Python<'_>,
    src: &Bound<'_, PyAny>,
    dst: &Bound<'_, PyAny>,
    base: Option<&str>,
    rules: &str,
) -> PyResult<usize> {
    rewrite_stream(py, Archive::Mbox, (src, dst), base, rules)
}

/// Make the relative links of documents absolute, by RFC 1808.
#[pymodule(name = "relink")]
mod relink_module {
    use pyo3::prelude::*;

    #[pymodule_export]
    use super::{
        LinkStream, absolutize, links, mbox_links, resolve, rewrite, rewrite_mbox, rewrite_warc,
        warc_links,
    };

    #[pymodule_init]
    fn init(m: &Bound<'_, PyModule>) -> PyResult<()> {
        m.add("RelinkWarning", m.py().get_type::<super::RelinkWarning>())?;
        m.add("__version__", env!("CARGO_PKG_VERSION"))?;
        Ok(())
    }
}
