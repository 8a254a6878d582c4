//! Every use of the relink crate, behind plain types: the other modules
//! speak Python and name no relink item but a link's [`Row`] and its
//! fields' values ([`RowValue`]), the crate's own, which give the keys of
//! the command line's rows. Every input goes through the crate's one front
//! door, `Rewriter::run`, as the command line's does: it alone tells what
//! an input is.

use std::io::{self, BufReader, Read, Write};
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};

use relink::wat::{WatWriter, warcinfo};
use relink::{Event, Input, Kind, Output, Rewriter, Rules};
pub use relink::{LinkRow as Row, RowValue};

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

/// A kind's name, as the command line's `--type` takes it.
fn kind_name(kind: Kind) -> &'static str {
    kind.name()
}

/// The names of the kinds, in order: the names `kind` takes (the crate's
/// one kind table).
pub fn kind_names() -> Vec<&'static str> {
    Kind::entries().iter().map(|entry| entry.name).collect()
}

fn kind(name: &str) -> Result<Kind, Failure> {
    Kind::named(name).ok_or_else(|| {
        Failure::Value(format!(
            "unknown kind '{name}' (expected {})",
            kind_names().join(", ")
        ))
    })
}

/// A rewrite under the named rules (the lazy-loading attributes read as
/// links if `lazy`), from a retrieval URL, of a kind: the one named, else
/// the one a file's name and first bytes give (as the command line finds
/// it), else the one `data` gives when it is read.
fn rewriter(
    base: Option<&str>,
    (rules_name, lazy): (&str, bool),
    kind_name: Option<&str>,
) -> Result<Rewriter, Failure> {
    let mut rewriter = Rewriter::new().rules(rules(rules_name)?);
    if lazy {
        rewriter = rewriter.lazy_attributes();
    }
    if let Some(base) = base {
        rewriter = rewriter.retrieved_from(base);
    }
    if let Some(name) = kind_name {
        rewriter = rewriter.kind(kind(name)?);
    }
    Ok(rewriter)
}

/// `rewriter`, checking each record's digests when `verify` asks
/// (`relink --verify-digests`).
fn verifying(rewriter: Rewriter, verify: bool) -> Rewriter {
    match verify {
        true => rewriter.verify_digests(),
        false => rewriter,
    }
}

/// An input held in memory, named by the file it was read from (its name
/// tells its kind before its content does).
fn input<'a>(data: &'a [u8], path: Option<&Path>) -> Input<'a> {
    match path {
        Some(path) => Input::bytes(data).named(path),
        None => Input::bytes(data),
    }
}

pub fn resolve(base: &str, reference: &str, rules_name: &str) -> Result<String, Failure> {
    Ok(relink::resolve(base, reference, rules(rules_name)?)?)
}

/// An HTML document rewritten against the URL it was retrieved from.
pub fn absolutize(
    data: &[u8],
    base: &str,
    (rules_name, lazy): (&str, bool),
) -> Result<Rewritten, Failure> {
    rewrite(data, None, Some(base), (rules_name, Some("html"), lazy))
}

/// Every link of any input relink reads, held in memory, and what could
/// not be done; `path` is the file it was read from, if any.
pub fn links(
    data: &[u8],
    path: Option<&Path>,
    base: Option<&str>,
    (rules_name, kind_name, lazy): (&str, Option<&str>, bool),
    verify: bool,
) -> Result<(Vec<Row>, Vec<String>), Failure> {
    let rewriter = verifying(rewriter(base, (rules_name, lazy), kind_name)?, verify);
    given_kind_fits(data, path, kind_name)?;
    let mut rows = Vec::new();
    let report = rewriter.run(input(data, path), Output::Nowhere, &mut |event| {
        if let Event::Rows(found) = event {
            rows.extend(found.iter().cloned());
        }
        Ok(())
    })?;
    let warnings = report.warnings.iter().map(ToString::to_string).collect();
    Ok((rows, warnings))
}

/// Any input relink reads, its kind given or found from its name and
/// bytes (an archive is never taken for a document); `path` is the file
/// it was read from, if any.
pub fn rewrite(
    data: &[u8],
    path: Option<&Path>,
    base: Option<&str>,
    (rules_name, kind_name, lazy): (&str, Option<&str>, bool),
) -> Result<Rewritten, Failure> {
    // Only the bytes and warnings are given back: no record of each link.
    let rewriter = rewriter(base, (rules_name, lazy), kind_name)?.details(relink::Details::Counts);
    given_kind_fits(data, path, kind_name)?;
    // Room for the input and its links made longer, grown past that only.
    let mut output = Vec::with_capacity(data.len().saturating_add(data.len() / 8));
    let report = rewriter.run(
        input(data, path),
        Output::WhenChanged(&mut output),
        &mut |_| Ok(()),
    )?;
    let warnings = report.warnings.iter().map(ToString::to_string).collect();
    let bytes = report.changed.then_some(output);
    Ok(Rewritten { bytes, warnings })
}

/// The kind `data` (the file at `path`, if any) reads as when none is
/// given, as the command line finds it: a run stopped at its start.
fn found_kind(data: &[u8], path: Option<&Path>) -> Option<Kind> {
    let mut found = None;
    let _ = Rewriter::new().run(input(data, path), Output::Nowhere, &mut |event| {
        if let Event::Start { kind, .. } = event {
            found = Some(kind);
        }
        Err(io::Error::other("the kind is known"))
    });
    found
}

/// Refuses an archive kind given for data that is no such archive (a page
/// read as a web archive would have no links, never an error), naming
/// what the data reads as. An empty input is an empty archive.
fn given_kind_fits(data: &[u8], path: Option<&Path>, given: Option<&str>) -> Result<(), Failure> {
    let archive = match given.map(kind).transpose()? {
        Some(Kind::Warc) => Archive::Warc,
        Some(Kind::Mbox) => Archive::Mbox,
        _ => return Ok(()),
    };
    match found_kind(data, path) {
        Some(found) if !data.is_empty() && found != archive.kind() => Err(Failure::Value(format!(
            "{}: it reads as {} (give kind=\"{}\" or none)",
            archive.not(),
            kind_name(found),
            kind_name(found)
        ))),
        _ => Ok(()),
    }
}

/// The archives read as streams.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Archive {
    Warc,
    Mbox,
}

impl Archive {
    fn kind(self) -> Kind {
        match self {
            Archive::Warc => Kind::Warc,
            Archive::Mbox => Kind::Mbox,
        }
    }

    fn not(self) -> &'static str {
        match self {
            Archive::Warc => "not a web archive (WARC or ARC)",
            Archive::Mbox => "not an mbox",
        }
    }
}

/// Which functions read an input of `kind`, for a message that turns the
/// caller to them.
fn readers_of(kind: Kind) -> &'static str {
    match kind {
        Kind::Warc => "warc_links and rewrite_warc read it",
        Kind::Mbox => "mbox_links and rewrite_mbox read it",
        _ => "links and rewrite read it",
    }
}

/// The events of an archive's run: the input must be the reader's kind,
/// told before anything is written (an input of another kind is an error
/// naming what it is, never an archive with nothing in it); each row goes
/// to `on_row`; each record or message that changed is counted.
struct ArchiveEvents<'a> {
    archive: Archive,
    on_row: Option<&'a mut (dyn FnMut(Row) -> bool + Send)>,
    stop: &'a AtomicBool,
    changed: usize,
}

impl ArchiveEvents<'_> {
    fn event(&mut self, event: Event<'_>) -> io::Result<()> {
        match event {
            Event::Start {
                unread: Some(_), ..
            } => refuse_unread(&event),
            Event::Start { kind, .. } if kind != self.archive.kind() => Err(io::Error::new(
                io::ErrorKind::InvalidData,
                format!(
                    "{}: it reads as {} ({})",
                    self.archive.not(),
                    kind_name(kind),
                    readers_of(kind)
                ),
            )),
            Event::Rows(found) => {
                if let Some(on_row) = &mut self.on_row {
                    for link in found {
                        if self.stop.load(Ordering::Relaxed) {
                            break;
                        }
                        if !on_row(link.clone()) {
                            self.stop.store(true, Ordering::Relaxed);
                        }
                    }
                }
                Ok(())
            }
            Event::Done(done) => {
                self.changed += usize::from(done.changed);
                Ok(())
            }
            _ => Ok(()),
        }
    }
}

/// Refuses an input in a compression relink does not undo (its `Start`
/// says which), before anything is read of it: the caller is told to
/// decompress it.
fn refuse_unread(event: &Event<'_>) -> io::Result<()> {
    match event {
        Event::Start {
            unread: Some(compression),
            ..
        } => Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!(
                "{}: decompress it first",
                relink::Error::Compressed(compression)
            ),
        )),
        _ => Ok(()),
    }
}

/// How an archive is read: its kind, and the rewrite for it.
pub struct ArchiveReader {
    archive: Archive,
    rewriter: Rewriter,
}

/// How many bytes are asked of the input at a time.
pub const CHUNK: usize = 256 << 10;

/// An input read as a stream, named by its file; `None` when it is empty
/// (an empty archive, with nothing in it).
fn streamed<'a>(input: impl Read + 'a, path: Option<&Path>) -> io::Result<Option<Input<'a>>> {
    let mut input = BufReader::with_capacity(CHUNK, input);
    if std::io::BufRead::fill_buf(&mut input)?.is_empty() {
        return Ok(None);
    }
    let input = Input::reader(input);
    Ok(Some(match path {
        Some(path) => input.named(path),
        None => input,
    }))
}

impl ArchiveReader {
    /// Checks the rules and base at once, before anything is read.
    pub fn new(
        archive: Archive,
        base: Option<&str>,
        (rules_name, lazy): (&str, bool),
        verify: bool,
    ) -> Result<ArchiveReader, Failure> {
        let rewriter = rewriter(base, (rules_name, lazy), None)?.details(relink::Details::Links);
        let rewriter = verifying(rewriter, verify);
        // A bad base fails here, not in the middle of the stream.
        if let Some(base) = base {
            relink::resolve(base, "", rules(rules_name)?)?;
        }
        Ok(ArchiveReader { archive, rewriter })
    }

    /// Calls `on_row` for every link of `input` (the file at `path`, if
    /// any), in order, reading it as a stream; stops early when `on_row`
    /// returns `false`. Returns how many records (or messages) were read,
    /// and what could not be done.
    pub fn links(
        &self,
        input: impl Read,
        path: Option<&Path>,
        mut on_row: impl FnMut(Row) -> bool + Send,
    ) -> Result<(usize, Vec<String>), Failure> {
        let stop = AtomicBool::new(false);
        let reader = Stoppable {
            inner: input,
            stop: &stop,
        };
        let Some(input) = streamed(reader, path)? else {
            return Ok((0, Vec::new()));
        };
        let mut events = ArchiveEvents {
            archive: self.archive,
            on_row: Some(&mut on_row),
            stop: &stop,
            changed: 0,
        };
        let result = self
            .rewriter
            .run(input, Output::Nowhere, &mut |event| events.event(event));
        match result {
            _ if stop.load(Ordering::Relaxed) => Ok((0, Vec::new())),
            Ok(report) => {
                let warnings = report.warnings.iter().map(ToString::to_string).collect();
                Ok((report.records.max(report.messages), warnings))
            }
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
        mut output: impl Write,
    ) -> Result<(usize, Vec<String>), Failure> {
        let Some(input) = streamed(input, path)? else {
            return Ok((0, Vec::new()));
        };
        let stop = AtomicBool::new(false);
        let mut events = ArchiveEvents {
            archive: self.archive,
            on_row: None,
            stop: &stop,
            changed: 0,
        };
        let rewriter = self.rewriter.clone().details(relink::Details::Counts);
        let report = rewriter.run(input, Output::Always(&mut output), &mut |event| {
            events.event(event)
        })?;
        output.flush()?;
        let warnings = report.warnings.iter().map(ToString::to_string).collect();
        Ok((events.changed, warnings))
    }
}

/// A reader that ends with an error once `stop` is set, so that a reader
/// no one listens to any more stops at its next read.
struct Stoppable<'s, R> {
    inner: R,
    stop: &'s AtomicBool,
}

impl<R: Read> Read for Stoppable<'_, R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.stop.load(Ordering::Relaxed) {
            return Err(io::Error::other("stopped"));
        }
        self.inner.read(buf)
    }
}

/// Writes the WAT file of `input` (the file at `path`, if any, named
/// `name`) to `output`, read as a stream: its `warcinfo` record, then one
/// `metadata` record a document, message or record, as the command
/// line's `--list --format wat` writes it. Returns how many `metadata`
/// records were written, and what could not be done.
pub fn wat(
    input: impl Read,
    (path, name): (Option<&Path>, &str),
    base: Option<&str>,
    (rules_name, kind_name, lazy, verify): (&str, Option<&str>, bool, bool),
    output: &mut (dyn Write + Send),
) -> Result<(usize, Vec<String>), Failure> {
    let rewriter =
        rewriter(base, (rules_name, lazy), kind_name)?.details(relink::Details::Attributes);
    let rewriter = verifying(rewriter, verify);
    let mut writer = WatWriter::new(name);
    if let Some(base) = base {
        // A bad base fails here, before anything is written.
        relink::resolve(base, "", rules(rules_name)?)?;
        writer = writer.retrieved_from(base);
    }
    warcinfo(output, &[name])?;
    let Some(input) = streamed(input, path)? else {
        output.flush()?;
        return Ok((0, Vec::new()));
    };
    let report = rewriter.run(input, Output::Nowhere, &mut |event| {
        refuse_unread(&event)?;
        Ok(writer.event(output, &event)?)
    })?;
    writer.finish(output)?;
    output.flush()?;
    let warnings = report.warnings.iter().map(ToString::to_string).collect();
    Ok((writer.records(), warnings))
}
