//! The functions of the Python package: each takes its input through
//! [`Input::of`] (a path, data in memory, or a binary file object), calls
//! the [`engine`](crate::engine) with the GIL released, and gives back
//! Python values, warnings and exceptions.

use std::io::{BufWriter, Read, Write};
use std::path::{Path, PathBuf};

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyString};

use crate::atomic;
use crate::engine::{self, Archive, ArchiveReader};
use crate::error::{Failure, py_err, warn_all};
use crate::io::{Data, Input, Output, PyWriter, optional, unicode};
use crate::row::row_dict;
use crate::stream::{self, LinkStream};

/// The bytes of a rewrite: the input's own bytes object when nothing
/// changed.
fn rewritten<'py>(
    py: Python<'py>,
    data: Data,
    out: engine::Rewritten,
) -> PyResult<Bound<'py, PyBytes>> {
    warn_all(py, &out.warnings)?;
    Ok(match out.bytes {
        Some(bytes) => PyBytes::new(py, &bytes),
        None => data.into_bytes(py),
    })
}

/// Resolves `reference` against the absolute URL `base`.
///
/// `rules` is "rfc1808" (the default), "rfc3986" or "whatwg". Raises
/// ValueError for a base that is not absolute, a rules name not known, or
/// a str that is not Unicode text (a lone surrogate).
#[pyfunction]
#[pyo3(signature = (base, reference, rules = "rfc1808"))]
pub fn resolve(
    py: Python<'_>,
    base: &Bound<'_, PyString>,
    reference: &Bound<'_, PyString>,
    rules: &str,
) -> PyResult<String> {
    let (base, reference) = (unicode(base, "base")?, unicode(reference, "reference")?);
    py.detach(|| engine::resolve(&base, &reference, rules))
        .map_err(py_err)
}

/// Makes the links of an HTML document absolute.
///
/// `data` is a path (str or os.PathLike, the file is read), any
/// bytes-like object, or a binary file object. `base` is the URL the
/// document was retrieved from; a BASE element in the document still wins.
/// Everything but the changed URLs is kept byte for byte; what cannot be
/// done is issued as a RelinkWarning. Raises ValueError for a bad base or
/// rules name.
#[pyfunction]
#[pyo3(signature = (data, base, rules = "rfc1808", lazy = false))]
pub fn absolutize<'py>(
    py: Python<'py>,
    data: &Bound<'py, PyAny>,
    base: &Bound<'py, PyString>,
    rules: &str,
    lazy: bool,
) -> PyResult<Bound<'py, PyBytes>> {
    let base = unicode(base, "base")?;
    let base = base.as_ref();
    let input = Input::of(data)?;
    let label = input.label().map(str::to_owned);
    let data = input.data(py)?;
    let out = py
        .detach(|| engine::absolutize(&data, base, (rules, lazy)))
        .map_err(|failure| py_err(failure.in_file(label.as_deref())))?;
    rewritten(py, data, out)
}

/// Every link of a document or archive, as dicts with the keys of
/// `relink --list --format json`, in its order.
///
/// `data` is a path (str or os.PathLike, the file is read), any
/// bytes-like object, or a binary file object (read to its end): HTML,
/// CSS, a message or MHTML file, an mbox, a web archive or a WACZ
/// package, its `kind` found when not given as the command line finds it
/// (a file by its name, then its bytes; data by its bytes). A message's
/// links resolve against its own headers (Base, Content-Base,
/// Content-Location) above `base`, the URL it was retrieved from.
/// `lazy=True`, on this function and the others that read documents,
/// reads the lazy-loading attributes (data-src, data-srcset,
/// data-original, data-lazy-src, data-background) as links, as
/// `relink --lazy` does. `verify_digests=True`, on this function and the
/// others that list a web archive's links, checks each record's digests
/// as `relink --list --verify-digests` does: a record whose digests do
/// not match is said in a RelinkWarning, and its links are not `changed`
/// (a rewrite would leave it as it is).
#[pyfunction]
#[pyo3(signature = (data, base = None, rules = "rfc1808", kind = None, lazy = false, verify_digests = false))]
pub fn links<'py>(
    py: Python<'py>,
    data: &Bound<'py, PyAny>,
    base: Option<&Bound<'_, PyString>>,
    rules: &str,
    kind: Option<&str>,
    lazy: bool,
    verify_digests: bool,
) -> PyResult<Vec<Bound<'py, PyDict>>> {
    let base = optional(base, "base")?;
    let base = base.as_deref();
    let input = Input::of(data)?;
    let file = input.file().map(str::to_owned);
    let label = input.label().map(str::to_owned);
    let path = input.path().map(PathBuf::from);
    let data = input.data(py)?;
    let (rows, warnings) = py
        .detach(|| {
            let settings = (rules, kind, lazy);
            engine::links(&data, path.as_deref(), base, settings, verify_digests)
        })
        .map_err(|failure| py_err(failure.in_file(label.as_deref())))?;
    warn_all(py, &warnings)?;
    rows.iter()
        .map(|row| row_dict(py, file.as_deref(), row))
        .collect()
}

/// Rewrites any document relink reads: HTML, CSS, a message or MHTML file,
/// an mbox, a web archive (WARC or ARC) or a WACZ package.
///
/// `data` is a path, any bytes-like object or a binary file object, as
/// for links; the rewritten bytes are returned (a path's file is not
/// written). `kind` ("html", "css", "message", "mbox", "warc", "wacz",
/// "xml", "markdown", "rst", "sitemap", "robots", "notebook", "epub") is found when not given, as the command line finds
/// it. `base` is the URL the document was retrieved from; without one
/// only the document's own bases apply. The records of a WARC file use
/// their own bases, and `base` is not used.
#[pyfunction]
#[pyo3(signature = (data, base = None, rules = "rfc1808", kind = None, lazy = false))]
pub fn rewrite<'py>(
    py: Python<'py>,
    data: &Bound<'py, PyAny>,
    base: Option<&Bound<'_, PyString>>,
    rules: &str,
    kind: Option<&str>,
    lazy: bool,
) -> PyResult<Bound<'py, PyBytes>> {
    let base = optional(base, "base")?;
    let base = base.as_deref();
    let input = Input::of(data)?;
    let label = input.label().map(str::to_owned);
    let path = input.path().map(PathBuf::from);
    let data = input.data(py)?;
    let out = py
        .detach(|| engine::rewrite(&data, path.as_deref(), base, (rules, kind, lazy)))
        .map_err(|failure| py_err(failure.in_file(label.as_deref())))?;
    rewritten(py, data, out)
}

/// Every link of a web archive (WARC or ARC, plain or gzipped), as dicts
/// with the keys of `relink --list --format json`.
///
/// `source` is a path, any bytes-like object, or any binary file object
/// (an open() file, a gzip.open stream, an HTTP response, an fsspec or
/// boto3 stream): it is read as a stream, in chunks, on a
/// background thread, a little ahead of the iteration. Raises OSError
/// (FileNotFoundError, ...) at once when a path cannot be opened,
/// ValueError for a bad rules name (at once), and during the iteration
/// for an input that is no web archive or cannot be read, and what the
/// file object's read raises. `verify_digests` is as for links.
#[pyfunction]
#[pyo3(signature = (source, rules = "rfc1808", lazy = false, verify_digests = false))]
pub fn warc_links(
    source: &Bound<'_, PyAny>,
    rules: &str,
    lazy: bool,
    verify_digests: bool,
) -> PyResult<LinkStream> {
    let input = Input::of(source)?;
    stream::start(Archive::Warc, input, None, (rules, lazy), verify_digests)
}

/// Every link of an mbox (plain or gzipped), message by message, as dicts
/// with the keys of `relink --list --format json`.
///
/// `source` is a path, any bytes-like object or any binary file object,
/// read as a stream on a background thread, as warc_links reads it; an
/// input that is no mbox raises ValueError during the iteration. Each
/// message's links resolve against its own headers above `base`, the URL
/// the mbox was retrieved from.
#[pyfunction]
#[pyo3(signature = (source, base = None, rules = "rfc1808", lazy = false))]
pub fn mbox_links(
    source: &Bound<'_, PyAny>,
    base: Option<&Bound<'_, PyString>>,
    rules: &str,
    lazy: bool,
) -> PyResult<LinkStream> {
    let base = optional(base, "base")?;
    let base = base.as_deref();
    stream::start(
        Archive::Mbox,
        Input::of(source)?,
        base,
        (rules, lazy),
        false,
    )
}

/// Rewrites an archive from `src` to `dst`, as a stream; returns how many
/// records or messages changed.
fn rewrite_stream(
    py: Python<'_>,
    archive: Archive,
    (src, dst): (&Bound<'_, PyAny>, &Bound<'_, PyAny>),
    base: Option<&str>,
    rules: (&str, bool),
) -> PyResult<usize> {
    let reader = ArchiveReader::new(archive, base, rules, false).map_err(py_err)?;
    stream_job(py, (src, dst), |input, (path, _), output| {
        reader.rewrite(input, path, output)
    })
}

/// Streams `src` through `job` into `dst`, the two as the streaming
/// functions take them: refused if the output is the input, a path
/// written whole or not at all, a file object through a buffer; the job's
/// failure named after the input, its warnings issued. `job` is given the
/// input, its path and name (`-` if none), and the output.
fn stream_job(
    py: Python<'_>,
    (src, dst): (&Bound<'_, PyAny>, &Bound<'_, PyAny>),
    job: impl FnOnce(
        Box<dyn Read + Send>,
        (Option<&Path>, &str),
        &mut (dyn Write + Send),
    ) -> Result<(usize, Vec<String>), Failure>
    + Send,
) -> PyResult<usize> {
    let source = Input::of(src)?;
    let destination = Output::of(dst)?;
    if let (Input::Path(from, _), Output::Path(to, name)) = (&source, &destination)
        && to.exists()
        && std::fs::canonicalize(from).ok() == std::fs::canonicalize(to).ok()
    {
        return Err(PyValueError::new_err(format!(
            "{name}: the output would overwrite the input"
        )));
    }
    let label = source.label().map(str::to_owned);
    let name = label.clone().unwrap_or_else(|| "-".to_owned());
    let path = source.path().map(PathBuf::from);
    let input = source.reader().map_err(py_err)?;
    let run = |output: &mut (dyn Write + Send)| {
        job(input, (path.as_deref(), &name), output)
            .map_err(|failure| failure.in_file(label.as_deref()))
    };
    let result = match destination {
        Output::Path(path, name) => py.detach(|| atomic::write_file(&path, &name, run)),
        Output::Stream(stream) => py.detach(|| {
            let mut output = BufWriter::with_capacity(engine::CHUNK, PyWriter { stream });
            let done = run(&mut output)?;
            output.flush()?;
            Ok(done)
        }),
    };
    let (done, warnings) = result.map_err(py_err)?;
    warn_all(py, &warnings)?;
    Ok(done)
}

/// Rewrites a WARC file (plain or gzipped; WARC or ARC) from `src` to
/// `dst`, record by record, each against its own base; returns how many
/// records changed.
///
/// `src` is a path, any bytes-like object or any binary file object with
/// `read`; `dst` a path (written whole or not at all) or any binary file
/// object with `write`. Both are streamed, in memory bounded by a batch of
/// records. An input that is no web archive raises ValueError, and
/// nothing is written; what cannot be done is issued as a RelinkWarning.
#[pyfunction]
#[pyo3(signature = (src, dst, rules = "rfc1808", lazy = false))]
pub fn rewrite_warc(
    py: Python<'_>,
    src: &Bound<'_, PyAny>,
    dst: &Bound<'_, PyAny>,
    rules: &str,
    lazy: bool,
) -> PyResult<usize> {
    rewrite_stream(py, Archive::Warc, (src, dst), None, (rules, lazy))
}

/// Rewrites an mbox (plain or gzipped: it comes back gzipped) from `src`
/// to `dst`, message by message; returns how many messages changed.
///
/// `src` and `dst` are as for rewrite_warc; an input that is no mbox
/// raises ValueError. `base` is the URL the mbox was retrieved from, below
/// each message's own headers.
#[pyfunction]
#[pyo3(signature = (src, dst, base = None, rules = "rfc1808", lazy = false))]
pub fn rewrite_mbox(
    py: Python<'_>,
    src: &Bound<'_, PyAny>,
    dst: &Bound<'_, PyAny>,
    base: Option<&Bound<'_, PyString>>,
    rules: &str,
    lazy: bool,
) -> PyResult<usize> {
    let base = optional(base, "base")?;
    let base = base.as_deref();
    rewrite_stream(py, Archive::Mbox, (src, dst), base, (rules, lazy))
}

/// Writes the WAT file of any input relink reads to `dst`: a WARC of one
/// gzipped `metadata` record per document, message or record, in Common
/// Crawl's JSON layout (`Envelope` ... `HTML-Metadata` `Head` and
/// `Links`), each link's `url` as written and relink's `abs` (the
/// resolved URL), `base` and `base_from` beside it, as `relink --list
/// --format wat` writes it. Returns how many metadata records were
/// written.
///
/// `src` is a path, any bytes-like object or any binary file object, read
/// as a stream; `dst` a path (written whole or not at all) or any binary
/// file object with `write`. `base` is the URL the input was retrieved
/// from (the target URI of a page's or an mbox's records; a WARC's records
/// have their own); `kind` is found when not given, as for links. Raises
/// ValueError for a bad base, rules or kind name, or an input that cannot
/// be read; what cannot be done is issued as a RelinkWarning.
/// `verify_digests` is as for links: digests found to match are written
/// as they are, not computed again.
#[pyfunction]
#[pyo3(signature = (src, dst, base = None, rules = "rfc1808", kind = None, lazy = false, verify_digests = false))]
#[allow(clippy::too_many_arguments)]
pub fn wat(
    py: Python<'_>,
    src: &Bound<'_, PyAny>,
    dst: &Bound<'_, PyAny>,
    base: Option<&Bound<'_, PyString>>,
    rules: &str,
    kind: Option<&str>,
    lazy: bool,
    verify_digests: bool,
) -> PyResult<usize> {
    let base = optional(base, "base")?;
    let base = base.as_deref();
    stream_job(py, (src, dst), |input, named, output| {
        let settings = (rules, kind, lazy, verify_digests);
        engine::wat(input, named, base, settings, output)
    })
}
