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
// The only module that calls the relink crate. It uses:
//   relink::Error (ArchiveAsDocument)
//   relink::compressed::{compression_of, Compression, gunzip,
//     MAX_DECOMPRESSED_BYTES, Gunzipped (bytes, gzip_again)}
//   relink::resolve, relink::url::{BaseUrl::parse, Rules (FromStr)}
//   relink::base::{Base::new, BaseSource::RetrievedFrom}
//   relink::document::{rewrite_html, rewrite_css, Options, Link, LinkPlace
//     (through Link::place), Outcome (its output, links, warnings)}
//   relink::kind::{detect_file, Kind}
//   relink::mime::message::rewrite_message (MessageOutcome's output, warnings)
//   relink::mime::mbox::{detect, rewrite_mbox} (ArchiveMessage's number,
//     outcome.warnings)
//   relink::warc::{links, rewrite, looks_like_warc, WarcOptions, WarcError,
//     WarcLink (record, target_uri, record_id, link), WarcSummary (changed,
//     warnings)}
// ---------------------------------------------------------------------

/// Every use of the relink crate, behind plain types: the rest of this
/// file speaks Python and never names a relink item.
mod engine {
    /// The library's warnings, as the words Python shows.
    fn texts(warnings: &[relink::Warning]) -> Vec<String> {
        warnings.iter().map(ToString::to_string).collect()
    }

    use std::fs::File;
    use std::io::{self, BufReader, Read};
    use std::path::Path;
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, Ordering};

    use relink::base::{Base, BaseSource};
    use relink::compressed;
    use relink::document::{self, Link, Options};
    use relink::kind::{self, Kind};
    use relink::mime::mbox;
    use relink::url::{BaseUrl, Rules};
    use relink::warc::{self, WarcError, WarcOptions};

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
            Failure::Value(error.to_string())
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

    /// The retrieval URL as the lowest layer of a document's base.
    fn retrieved_from(base: &str, rules: Rules) -> Result<Base, Failure> {
        Ok(Base::new(
            BaseUrl::parse(base, rules)?,
            BaseSource::RetrievedFrom,
        ))
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

    pub fn resolve(base: &str, reference: &str, rules_name: &str) -> Result<String, Failure> {
        Ok(relink::resolve(base, reference, rules(rules_name)?)?)
    }

    /// An HTML document rewritten against the URL it was retrieved from.
    pub fn absolutize(data: &[u8], base: &str, rules_name: &str) -> Result<Rewritten, Failure> {
        let rules = rules(rules_name)?;
        let base = retrieved_from(base, rules)?;
        let options = Options {
            rules,
            outer: Some(&base),
            ..Options::default()
        };
        let outcome = document::rewrite_html(data, &options)?;
        Ok(Rewritten {
            bytes: outcome.output,
            warnings: texts(&outcome.warnings),
        })
    }

    /// Every link of an HTML document retrieved from `base`.
    pub fn links(data: &[u8], base: &str, rules_name: &str) -> Result<Vec<LinkRow>, Failure> {
        let rules = rules(rules_name)?;
        let base = retrieved_from(base, rules)?;
        let options = Options {
            rules,
            outer: Some(&base),
            ..Options::default()
        };
        let outcome = document::rewrite_html(data, &options)?;
        Ok(outcome.links.into_iter().map(row).collect())
    }

    /// The kinds `rewrite` takes by name.
    pub const KINDS: [&str; 5] = ["html", "css", "message", "mbox", "warc"];

    /// Any document relink reads, its kind given or found from its bytes.
    pub fn rewrite(
        data: &[u8],
        base: Option<&str>,
        rules_name: &str,
        kind_name: Option<&str>,
    ) -> Result<Rewritten, Failure> {
        if kind_name.is_some_and(|k| !k.eq_ignore_ascii_case("warc")) && warc::looks_like_warc(data)
        {
            return Err(Failure::Value(relink::Error::ArchiveAsDocument.to_string()));
        }
        if kind_name.is_none_or(|k| !k.eq_ignore_ascii_case("warc"))
            && compressed::compression_of(data) == Some(compressed::Compression::Gzip)
        {
            return rewrite_gzipped(data, base, rules_name, kind_name);
        }
        let rules = rules(rules_name)?;
        let base = base.map(|b| retrieved_from(b, rules)).transpose()?;
        let options = Options {
            rules,
            outer: base.as_ref(),
            ..Options::default()
        };
        let kind = match kind_name {
            Some(name) => KINDS
                .into_iter()
                .find(|k| k.eq_ignore_ascii_case(name))
                .ok_or_else(|| {
                    Failure::Value(format!(
                        "unknown kind '{name}' (expected {})",
                        KINDS.join(", ")
                    ))
                })?,
            None if warc::looks_like_warc(data) => "warc",
            // Only the content decides: there is no file name.
            None => match kind::detect_file(Path::new(""), data) {
                Kind::Html => "html",
                Kind::Css => "css",
                Kind::Message => "message",
                Kind::Mbox => "mbox",
                Kind::Warc => "warc",
                Kind::Wacz => {
                    return Err(Failure::Value(
                        "a WACZ package is read from a file: relink PATH.wacz".to_owned(),
                    ));
                }
            },
        };
        match kind {
            "css" => {
                let outcome = document::rewrite_css(data, &options)?;
                Ok(Rewritten {
                    bytes: outcome.output,
                    warnings: texts(&outcome.warnings),
                })
            }
            "message" => {
                let outcome = relink::rewrite_message(data, &options);
                Ok(Rewritten {
                    bytes: outcome.output,
                    warnings: texts(&outcome.warnings),
                })
            }
            "mbox" => {
                let mut out = Vec::with_capacity(data.len());
                let mut warnings = Vec::new();
                let changed =
                    relink::rewrite_mbox(data, mbox::detect(data), &mut out, &options, |m, _| {
                        let number = m.number;
                        warnings.extend(
                            (m.outcome.warnings.iter()).map(|w| format!("message {number}: {w}")),
                        );
                    })?;
                Ok(Rewritten {
                    bytes: changed.then_some(out),
                    warnings,
                })
            }
            "warc" => {
                let options = WarcOptions {
                    document: options,
                    ..WarcOptions::default()
                };
                let mut out = Vec::with_capacity(data.len());
                let summary = warc::rewrite(data, &mut out, &options).map_err(warc_failure)?;
                Ok(Rewritten {
                    bytes: (summary.changed > 0).then_some(out),
                    warnings: texts(&summary.warnings),
                })
            }
            _ => {
                let outcome = document::rewrite_html(data, &options)?;
                Ok(Rewritten {
                    bytes: outcome.output,
                    warnings: texts(&outcome.warnings),
                })
            }
        }
    }

    /// A gzipped document: undone, rewritten, gzipped again with its header.
    fn rewrite_gzipped(
        data: &[u8],
        base: Option<&str>,
        rules_name: &str,
        kind_name: Option<&str>,
    ) -> Result<Rewritten, Failure> {
        let gunzipped = compressed::gunzip(data, compressed::MAX_DECOMPRESSED_BYTES)
            .map_err(|e| Failure::Value(format!("gzip data cannot be read: {e}")))?;
        if compressed::compression_of(&gunzipped.bytes).is_some() {
            return Err(Failure::Value("compressed twice: not read".to_owned()));
        }
        let inner = rewrite(&gunzipped.bytes, base, rules_name, kind_name)?;
        let bytes = match inner.bytes {
            Some(document) => Some(gunzipped.gzip_again(&document).map_err(Failure::Io)?),
            None => None,
        };
        Ok(Rewritten {
            bytes,
            warnings: inner.warnings,
        })
    }

    fn warc_failure(error: WarcError) -> Failure {
        match error {
            WarcError::Io(error) => Failure::Io(error),
            other => Failure::Value(other.to_string()),
        }
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
            let options = WarcOptions {
                document: Options {
                    rules: self.rules,
                    ..Options::default()
                },
                ..WarcOptions::default()
            };
            let result = warc::links(BufReader::new(reader), &options, |link| {
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
                Err(WarcError::Io(error)) => Err(Failure::Io(io::Error::new(
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
