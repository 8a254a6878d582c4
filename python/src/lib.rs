//! The Python module `relink`: relink's resolver and rewriters for Python,
//! built with PyO3 and maturin. The Python side is described in
//! `relink.pyi`; every call into the relink crate is in [`engine`].
#![forbid(unsafe_code)]

use std::collections::VecDeque;
use std::ffi::CString;
use std::sync::Mutex;
use std::sync::mpsc::{Receiver, sync_channel};
use std::thread;

use pyo3::exceptions::{PyUserWarning, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};
use pyo3::{intern, pyclass, pymethods};

// ---------------------------------------------------------------------
// The only module that calls the relink crate. It uses only what the
// crate's root exports: relink::{resolve, Rewriter, Rewritten, Kind,
// Rules, Link, WarcLink, Error}.
// ---------------------------------------------------------------------

/// Every use of the relink crate, behind plain types: the rest of this
/// file speaks Python and never names a relink item.
mod engine {
    use std::fs::File;
    use std::io::{self, BufReader, Read};
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, Ordering};

    use relink::{Kind, Link, Rewriter, Rules};

    /// What went wrong: bad arguments or input (`ValueError`), or reading
    /// a file (`OSError`).
    #[derive(Debug)]
    pub enum Failure {
        /// A bad base, rules name, kind, or unreadable input.
        Value(String),
        /// Opening or reading a file.
        Io(io::Error),
    }

    impl From<relink::Error> for Failure {
        fn from(error: relink::Error) -> Self {
            match error {
                relink::Error::Io(error) => Failure::Io(error),
                other => Failure::Value(other.to_string()),
            }
        }
    }

    impl From<io::Error> for Failure {
        fn from(error: io::Error) -> Self {
            Failure::Io(error)
        }
    }

    /// One link, as `relink --list --format json` gives it.
    #[derive(Debug)]
    pub struct LinkRow {
        pub original: String,
        pub resolved: String,
        /// The base it was resolved against, if any.
        pub base: Option<String>,
        /// Where that base came from (`none` without one).
        pub base_from: String,
        pub element: String,
        pub attribute: String,
        pub line: usize,
        pub column: usize,
    }

    /// One link of a WARC file, with its record.
    #[derive(Debug)]
    pub struct WarcLinkRow {
        pub record: usize,
        pub target_uri: String,
        pub record_id: String,
        pub link: LinkRow,
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

    /// A rewrite under the named rules, from a retrieval URL, of a kind.
    fn rewriter(
        base: Option<&str>,
        rules_name: &str,
        kind: Option<Kind>,
    ) -> Result<Rewriter, Failure> {
        let mut rewriter = Rewriter::new().rules(rules(rules_name)?);
        if let Some(base) = base {
            rewriter = rewriter.retrieved_from(base);
        }
        if let Some(kind) = kind {
            rewriter = rewriter.kind(kind);
        }
        Ok(rewriter)
    }

    fn row(link: Link) -> LinkRow {
        let (base, base_from) = match link.base {
            Some(base) => (Some(base.url.as_str().to_owned()), base.source.to_string()),
            None => (None, "none".to_owned()),
        };
        LinkRow {
            original: link.original,
            resolved: link.resolved,
            base,
            base_from,
            element: link.place.element,
            attribute: link.place.attribute,
            line: link.line,
            column: link.column,
        }
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
        let rewriter = rewriter(Some(base), rules_name, Some(Kind::Html))?;
        Ok(rewritten(rewriter.rewrite(data)?))
    }

    /// Every link of an HTML document retrieved from `base`.
    pub fn links(data: &[u8], base: &str, rules_name: &str) -> Result<Vec<LinkRow>, Failure> {
        let rewriter = rewriter(Some(base), rules_name, Some(Kind::Html))?;
        let out = rewriter.rewrite(data)?;
        Ok(out.links().into_iter().cloned().map(row).collect())
    }

    /// The kinds `rewrite` takes by name.
    pub const KINDS: [(&str, Kind); 6] = [
        ("html", Kind::Html),
        ("css", Kind::Css),
        ("message", Kind::Message),
        ("mbox", Kind::Mbox),
        ("warc", Kind::Warc),
        ("wacz", Kind::Wacz),
    ];

    /// Any input relink reads, its kind given or found from its bytes (an
    /// archive is never taken for a document).
    pub fn rewrite(
        data: &[u8],
        base: Option<&str>,
        rules_name: &str,
        kind_name: Option<&str>,
    ) -> Result<Rewritten, Failure> {
        let kind = match kind_name {
            Some(name) => Some(
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
                    })?,
            ),
            None => None,
        };
        let rewriter = rewriter(base, rules_name, kind)?;
        Ok(rewritten(rewriter.rewrite(data)?))
    }

    /// A WARC file opened for [`WarcSource::run`].
    pub struct WarcSource {
        file: File,
        path: String,
        rules: Rules,
    }

    impl WarcSource {
        /// Opens `path` and checks the rules, so that both fail at once.
        pub fn open(path: &str, rules_name: &str) -> Result<WarcSource, Failure> {
            let rules = rules(rules_name)?;
            let file = File::open(path)?;
            Ok(WarcSource {
                file,
                path: path.to_owned(),
                rules,
            })
        }

        /// Calls `on_link` for every link, in order, reading the file as a
        /// stream; stops early when `on_link` returns `false`.
        pub fn run(self, mut on_link: impl FnMut(WarcLinkRow) -> bool) -> Result<(), Failure> {
            let stop = Arc::new(AtomicBool::new(false));
            let reader = Stoppable {
                inner: self.file,
                stop: Arc::clone(&stop),
            };
            let rewriter = Rewriter::new().rules(self.rules);
            let result = rewriter.warc_links(BufReader::new(reader), |link| {
                if stop.load(Ordering::Relaxed) {
                    return;
                }
                let row = WarcLinkRow {
                    record: link.record,
                    target_uri: link.target_uri,
                    record_id: link.record_id,
                    link: row(link.link),
                };
                if !on_link(row) {
                    stop.store(true, Ordering::Relaxed);
                }
            });
            match result {
                _ if stop.load(Ordering::Relaxed) => Ok(()),
                Ok(_) => Ok(()),
                Err(relink::Error::Io(error)) => Err(Failure::Io(io::Error::new(
                    error.kind(),
                    format!("{}: {error}", self.path),
                ))),
                Err(other) => Err(Failure::Value(format!("{}: {other}", self.path))),
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

use engine::{Failure, LinkRow, WarcLinkRow};

pyo3::create_exception!(
    relink,
    RelinkWarning,
    PyUserWarning,
    "What relink could not do in a document: the part is left as it was."
);

fn py_err(failure: Failure) -> PyErr {
    match failure {
        Failure::Value(message) => PyValueError::new_err(message),
        Failure::Io(error) => error.into(),
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

fn link_dict<'py>(py: Python<'py>, dict: &Bound<'py, PyDict>, link: LinkRow) -> PyResult<()> {
    dict.set_item(intern!(py, "original"), link.original)?;
    dict.set_item(intern!(py, "resolved"), link.resolved)?;
    dict.set_item(intern!(py, "base"), link.base)?;
    dict.set_item(intern!(py, "base_from"), link.base_from)?;
    dict.set_item(intern!(py, "element"), link.element)?;
    dict.set_item(intern!(py, "attribute"), link.attribute)?;
    dict.set_item(intern!(py, "line"), link.line)?;
    dict.set_item(intern!(py, "column"), link.column)?;
    Ok(())
}

fn warc_link_dict(py: Python<'_>, row: WarcLinkRow) -> PyResult<Bound<'_, PyDict>> {
    let dict = PyDict::new(py);
    dict.set_item(intern!(py, "target_uri"), row.target_uri)?;
    dict.set_item(intern!(py, "record_id"), row.record_id)?;
    dict.set_item(intern!(py, "record"), row.record)?;
    link_dict(py, &dict, row.link)?;
    Ok(dict)
}

/// The bytes of a rewrite: the input object itself when nothing changed.
fn rewritten<'py>(
    py: Python<'py>,
    data: &Bound<'py, PyBytes>,
    out: engine::Rewritten,
) -> PyResult<Bound<'py, PyBytes>> {
    warn_all(py, &out.warnings)?;
    Ok(match out.bytes {
        Some(bytes) => PyBytes::new(py, &bytes),
        None => data.clone(),
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
/// `base` is the URL the document was retrieved from; a BASE element in the
/// document still wins. Everything but the changed URLs is kept byte for
/// byte; what cannot be done is issued as a RelinkWarning. Raises
/// ValueError for a bad base or rules name.
#[pyfunction]
#[pyo3(signature = (data, base, rules = "rfc1808"))]
fn absolutize<'py>(
    py: Python<'py>,
    data: &Bound<'py, PyBytes>,
    base: &str,
    rules: &str,
) -> PyResult<Bound<'py, PyBytes>> {
    let bytes = data.as_bytes();
    let out = py
        .detach(|| engine::absolutize(bytes, base, rules))
        .map_err(py_err)?;
    rewritten(py, data, out)
}

/// Every link of an HTML document retrieved from `base`, as dicts with the
/// fields of `relink --list`: original, resolved, base, base_from, element,
/// attribute, line, column.
#[pyfunction]
#[pyo3(signature = (data, base, rules = "rfc1808"))]
fn links<'py>(
    py: Python<'py>,
    data: &Bound<'py, PyBytes>,
    base: &str,
    rules: &str,
) -> PyResult<Vec<Bound<'py, PyDict>>> {
    let bytes = data.as_bytes();
    let rows = py
        .detach(|| engine::links(bytes, base, rules))
        .map_err(py_err)?;
    rows.into_iter()
        .map(|link| {
            let dict = PyDict::new(py);
            link_dict(py, &dict, link)?;
            Ok(dict)
        })
        .collect()
}

/// Rewrites any document relink reads: HTML, CSS, a message or MHTML file,
/// an mbox, or a WARC file.
///
/// `kind` ("html", "css", "message", "mbox", "warc") is found from the
/// bytes when not given (CSS must be named). `base` is the URL the document
/// was retrieved from; without one only the document's own bases apply.
/// The records of a WARC file use their own bases, and `base` is not used.
#[pyfunction]
#[pyo3(signature = (data, base = None, rules = "rfc1808", kind = None))]
fn rewrite<'py>(
    py: Python<'py>,
    data: &Bound<'py, PyBytes>,
    base: Option<&str>,
    rules: &str,
    kind: Option<&str>,
) -> PyResult<Bound<'py, PyBytes>> {
    let bytes = data.as_bytes();
    let out = py
        .detach(|| engine::rewrite(bytes, base, rules, kind))
        .map_err(py_err)?;
    rewritten(py, data, out)
}

/// How many links go through the channel at once, and how many such
/// batches may wait: the reader stays at most this far ahead.
const LINKS_PER_BATCH: usize = 256;
const BATCHES_AHEAD: usize = 16;

enum Batch {
    Links(Vec<WarcLinkRow>),
    End(Result<(), Failure>),
}

/// The links of a WARC file, read on a background thread as they are
/// taken.
#[pyclass(module = "relink")]
struct WarcLinks {
    receiver: Mutex<Receiver<Batch>>,
    buffer: VecDeque<WarcLinkRow>,
    done: bool,
}

#[pymethods]
impl WarcLinks {
    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    fn __next__<'py>(mut slf: PyRefMut<'py, Self>) -> PyResult<Option<Bound<'py, PyDict>>> {
        let py = slf.py();
        let this = &mut *slf;
        loop {
            if let Some(row) = this.buffer.pop_front() {
                return warc_link_dict(py, row).map(Some);
            }
            if this.done {
                return Ok(None);
            }
            let receiver = &mut this.receiver;
            let batch = py.detach(|| match receiver.get_mut() {
                Ok(receiver) => receiver.recv().ok(),
                Err(_) => None,
            });
            match batch {
                Some(Batch::Links(rows)) => this.buffer.extend(rows),
                Some(Batch::End(result)) => {
                    this.done = true;
                    result.map_err(py_err)?;
                }
                // The reader died without a word.
                None => {
                    this.done = true;
                    return Err(PyValueError::new_err("the WARC reader stopped"));
                }
            }
        }
    }
}

/// Every link of a WARC file, as dicts with the fields target_uri,
/// record_id, record, original, resolved, base, base_from, element,
/// attribute, line and column.
///
/// The file (plain or gzipped) is read as a stream on a background thread,
/// a little ahead of the iteration. Raises OSError when it cannot be
/// opened, ValueError for a bad rules name (at once) or a record that
/// cannot be read (during the iteration).
#[pyfunction]
#[pyo3(signature = (path, rules = "rfc1808"))]
fn warc_links(path: std::path::PathBuf, rules: &str) -> PyResult<WarcLinks> {
    let path = path.to_string_lossy().into_owned();
    let source = engine::WarcSource::open(&path, rules).map_err(py_err)?;
    let (sender, receiver) = sync_channel(BATCHES_AHEAD);
    thread::Builder::new()
        .name("relink-warc".to_owned())
        .spawn(move || {
            let mut batch = Vec::with_capacity(LINKS_PER_BATCH);
            let result = source.run(|row| {
                batch.push(row);
                if batch.len() < LINKS_PER_BATCH {
                    return true;
                }
                let full = std::mem::replace(&mut batch, Vec::with_capacity(LINKS_PER_BATCH));
                sender.send(Batch::Links(full)).is_ok()
            });
            if !batch.is_empty() && sender.send(Batch::Links(batch)).is_err() {
                return;
            }
            let _ = sender.send(Batch::End(result));
        })?;
    Ok(WarcLinks {
        receiver: Mutex::new(receiver),
        buffer: VecDeque::new(),
        done: false,
    })
}

/// Make the relative links of documents absolute, by RFC 1808.
#[pymodule(name = "relink")]
mod relink_module {
    use pyo3::prelude::*;

    #[pymodule_export]
    use super::{WarcLinks, absolutize, links, resolve, rewrite, warc_links};

    #[pymodule_init]
    fn init(m: &Bound<'_, PyModule>) -> PyResult<()> {
        m.add("RelinkWarning", m.py().get_type::<super::RelinkWarning>())?;
        m.add("__version__", env!("CARGO_PKG_VERSION"))?;
        Ok(())
    }
}
