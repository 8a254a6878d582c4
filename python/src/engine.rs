//! Every use of the relink crate, behind plain types: the other modules
//! speak Python and name no relink item but [`RecordName`], the record a
//! row shares with the others of its record. It uses what the crate's
//! root exports (`resolve`, `Rewriter`, `Rewritten`, `Kind`, `Rules`,
//! `LinkRow`, `RecordName`, `BaseSource`, `Error`) and its public
//! detection: `kind::detect_file` and `kind::sniff`,
//! `warc::looks_like_warc_past_junk`, `compressed::compression_of`.

use std::io::{self, BufRead, BufReader, Read, Write};
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

pub use relink::RecordName;
use relink::compressed::{self, Compression};
use relink::{BaseSource, Kind, LinkRow, Rewriter, Rules};

use crate::error::Failure;

/// A failure of the crate: reading or writing, or bad input.
impl From<relink::Error> for Failure {
    fn from(error: relink::Error) -> Self {
        match error {
            relink::Error::Io(error) => Failure::Io(error, None),
            other => Failure::Value(other.to_string()),
        }
    }
}

/// One link, with the fields of `relink --list --format json` but `file`,
/// which the caller knows.
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

/// Where a base came from, as the command line names it (the same mapping
/// as its report's `source_name`): the flags the user gave by their
/// names, every other layer as the library says it.
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

/// A rewritten document: its new bytes (`None` when nothing changed) and
/// what could not be done.
#[derive(Debug)]
pub struct Rewritten {
    pub bytes: Option<Vec<u8>>,
    pub warnings: Vec<String>,
}

fn rules(name: &str) -> Result<Rules, Failure> {
    Ok(name.parse::<Rules>()?)
}

/// The kinds taken by name, in the order the command line's `--type`
/// lists them.
const KINDS: [Kind; 8] = [
    Kind::Html,
    Kind::Css,
    Kind::Message,
    Kind::Mbox,
    Kind::Warc,
    Kind::Wacz,
    Kind::Xml,
    Kind::Markdown,
];

/// A kind's name, as the command line's `--type` takes it. The match has
/// no catch-all: a kind the crate adds fails the build here.
fn kind_name(kind: Kind) -> &'static str {
    match kind {
        Kind::Html => "html",
        Kind::Css => "css",
        Kind::Message => "message",
        Kind::Mbox => "mbox",
        Kind::Warc => "warc",
        Kind::Wacz => "wacz",
        Kind::Xml => "xml",
        Kind::Markdown => "markdown",
    }
}

/// The names of the kinds, in order: the names `kind` takes.
pub fn kind_names() -> Vec<&'static str> {
    KINDS.into_iter().map(kind_name).collect()
}

fn kind(name: &str) -> Result<Kind, Failure> {
    KINDS
        .into_iter()
        .find(|&kind| kind_name(kind).eq_ignore_ascii_case(name))
        .ok_or_else(|| {
            Failure::Value(format!(
                "unknown kind '{name}' (expected {})",
                kind_names().join(", ")
            ))
        })
}

/// A rewrite under the named rules, from a retrieval URL, of a kind: the
/// one named, else the one a file's name and first bytes give (as the
/// command line finds it), else the one `data` gives when it is read.
fn rewriter(
    base: Option<&str>,
    rules_name: &str,
    kind_name: Option<&str>,
    file: Option<(&Path, &[u8])>,
) -> Result<Rewriter, Failure> {
    let mut rewriter = Rewriter::new().rules(rules(rules_name)?);
    if let Some(base) = base {
        rewriter = rewriter.retrieved_from(base);
    }
    match (kind_name, file) {
        (Some(name), _) => rewriter = rewriter.kind(kind(name)?),
        (None, Some((path, data))) => {
            rewriter = rewriter.kind(relink::kind::detect_file(path, data))
        }
        (None, None) => {}
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
    let rewriter = rewriter(Some(base), rules_name, Some("html"), None)?;
    Ok(rewritten(rewriter.rewrite(data)?))
}

/// Every link of any input relink reads, held in memory; `path` is the
/// file it was read from, if any.
pub fn links(
    data: &[u8],
    path: Option<&Path>,
    base: Option<&str>,
    (rules_name, kind_name): (&str, Option<&str>),
) -> Result<Vec<Row>, Failure> {
    let rewriter = rewriter(base, rules_name, kind_name, path.map(|p| (p, data)))?;
    Ok(rewriter.link_rows(data)?.into_iter().map(row).collect())
}

/// Any input relink reads, its kind given or found from its bytes (an
/// archive is never taken for a document); `path` is the file it was
/// read from, if any.
pub fn rewrite(
    data: &[u8],
    path: Option<&Path>,
    base: Option<&str>,
    (rules_name, kind_name): (&str, Option<&str>),
) -> Result<Rewritten, Failure> {
    let rewriter = rewriter(base, rules_name, kind_name, path.map(|p| (p, data)))?;
    Ok(rewritten(rewriter.rewrite(data)?))
}

/// The archives read as streams.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Archive {
    Warc,
    Mbox,
}

/// How many bytes of an archive's start are read to tell what it is: as
/// many as the command line reads before it chooses a file's kind.
const HEAD_BYTES: usize = relink::warc::SNIFF_BYTES;

/// Which functions read an input of `kind`, for a message that turns the
/// caller to them.
fn readers_of(kind: Kind) -> &'static str {
    match kind {
        Kind::Warc => "warc_links and rewrite_warc read it",
        Kind::Mbox => "mbox_links and rewrite_mbox read it",
        _ => "links and rewrite read it",
    }
}

/// Checks that `head`, the start of an input (of the file at `path`, if
/// any), is an archive of `archive`'s kind, as the command line tells a
/// kind (a file by its name and first bytes, data by its bytes), and for
/// a web archive, that its content holds a record (WARC or ARC, plain or
/// gzipped, after any junk the reader skips). An input of another kind is
/// an error naming what it is, never an archive with nothing in it; an
/// empty input is an empty archive.
fn check(archive: Archive, head: &[u8], path: Option<&Path>) -> Result<(), Failure> {
    if head.is_empty() {
        return Ok(());
    }
    if let Some(compression) = compressed::compression_of(head)
        && compression != Compression::Gzip
    {
        return Err(Failure::Value(format!(
            "compressed with {}, which relink does not read: decompress it first",
            compression.name()
        )));
    }
    let is_warc = relink::warc::looks_like_warc_past_junk(head);
    let found = match path {
        Some(path) => Some(relink::kind::detect_file(path, head)),
        None => relink::kind::sniff(head),
    };
    let (fits, not) = match archive {
        Archive::Warc => (
            is_warc && found == Some(Kind::Warc),
            "not a web archive (WARC or ARC)",
        ),
        Archive::Mbox => (found == Some(Kind::Mbox), "not an mbox"),
    };
    // A file named as a WARC but with no record in it: nothing tells its
    // kind.
    match found.filter(|&kind| kind != Kind::Warc || is_warc) {
        _ if fits => Ok(()),
        Some(kind) => Err(Failure::Value(format!(
            "{not}: it reads as {} ({})",
            kind_name(kind),
            readers_of(kind)
        ))),
        None => Err(Failure::Value(not.to_owned())),
    }
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
        let rewriter = rewriter(base, rules_name, None, None)?;
        // A bad base fails here, not in the middle of the stream.
        if let Some(base) = base {
            relink::resolve(base, "", rules(rules_name)?)?;
        }
        Ok(ArchiveReader { archive, rewriter })
    }

    /// `input` once its first bytes show it is this reader's archive (see
    /// [`check`]): those bytes, then the rest.
    fn checked<R: Read>(&self, mut input: R, path: Option<&Path>) -> Result<impl Read, Failure> {
        let mut head = Vec::new();
        (&mut input)
            .take(HEAD_BYTES as u64)
            .read_to_end(&mut head)?;
        check(self.archive, &head, path)?;
        Ok(io::Cursor::new(head).chain(input))
    }

    /// Calls `on_row` for every link of `input` (the file at `path`, if
    /// any), in order, reading it as a stream; stops early when `on_row`
    /// returns `false`. Returns how many records (or messages) were read.
    pub fn links(
        &self,
        input: impl Read,
        path: Option<&Path>,
        mut on_row: impl FnMut(Row) -> bool,
    ) -> Result<usize, Failure> {
        let stop = Arc::new(AtomicBool::new(false));
        let reader = Stoppable {
            inner: self.checked(input, path)?,
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

    /// Rewrites the archive from `input` (the file at `path`, if any) to
    /// `output` as a stream; returns how many records (or messages)
    /// changed, and what could not be done.
    pub fn rewrite(
        &self,
        input: impl Read,
        path: Option<&Path>,
        output: impl Write,
    ) -> Result<(usize, Vec<String>), Failure> {
        let input = BufReader::with_capacity(CHUNK, self.checked(input, path)?);
        self.rewrite_checked(input, output)
    }

    fn rewrite_checked(
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

/// A reader that ends with an error once `stop` is set, so that a reader
/// no one listens to any more stops at its next read.
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
