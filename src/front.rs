//! The front door: one call, [`Rewriter::run`], that takes any input (a
//! path, an open file, a reader, bytes), tells what it is (archive format,
//! compression, kind: the only place that decides), reads it as a stream,
//! writes the output to a writer the caller gives (or nowhere, to list),
//! and reports as it goes, one [`Event`] at a time. The command line, the
//! Python package and the Spark job all come in here.

use std::fs::File;
use std::io::{self, BufRead, BufReader, Read, Seek, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use flate2::read::MultiGzDecoder;

use crate::base::{Base, BaseSource, Layer};
use crate::compressed::{self, Compression};
use crate::document::{self, DocumentReport, Engine};
use crate::error::Error;
use crate::kind::{self, Kind};
use crate::links::{LinkRow, LinkSink, RecordName, Warning, WarningKind};
use crate::local::{Mirror, MirrorDocument, SavedFolders};
use crate::mime::mbox::{ArchiveMessage, MboxFormat};
use crate::options::Options;
use crate::options::Rows;
use crate::rewriter::{Rewriter, Rewritten};
use crate::splice::{Make, Splice};
use crate::url::BaseUrl;
use crate::warc::{self, RecordReport, WarcOptions, wacz};

/// How many bytes are read to tell what an input is (an mbox's first
/// message is measured against its Content-Length).
pub const HEAD_BYTES: usize = 1 << 20;

/// Up to this size, an input's buffer is made the size of the whole input
/// when it is opened ([`Opened::read_all`] then reads on into it).
const WHOLE_AT_ONCE: usize = 16 << 20;

/// How many rows are gathered before they are handed on together.
const ROWS_AT_ONCE: usize = 256;

/// One input for [`Rewriter::run`]: where its bytes come from, and what
/// the caller knows of it (its name, its kind, where it was retrieved
/// from).
///
/// ```
/// use relink::{Input, Kind};
/// let page = relink::Input::bytes(b"<a href=x>x</a>").retrieved_from("http://a/b/");
/// let sheet = Input::reader(&b"p { background: url(x.png) }"[..]).kind(Kind::Css);
/// let named = Input::bytes(b"# Title").named("README.md");
/// # let _ = (page, sheet, named);
/// ```
pub struct Input<'a> {
    source: Source<'a>,
    name: Option<PathBuf>,
    kind: Option<Kind>,
    retrieved_from: Option<String>,
    resource_base: Option<String>,
    counter: Option<Arc<AtomicU64>>,
}

/// Where an input's bytes come from.
enum Source<'a> {
    Path(PathBuf),
    File(File),
    Reader(Box<dyn Read + 'a>),
    Bytes(&'a [u8]),
}

impl<'a> Input<'a> {
    fn from_source(source: Source<'a>, name: Option<PathBuf>) -> Self {
        Input {
            source,
            name,
            kind: None,
            retrieved_from: None,
            resource_base: None,
            counter: None,
        }
    }

    /// The file at `path`, opened when the run starts; its name tells its
    /// kind before its content does.
    pub fn path(path: impl Into<PathBuf>) -> Self {
        let path = path.into();
        Input::from_source(Source::Path(path.clone()), Some(path))
    }

    /// A file already open (a WACZ package is read from its end), named
    /// `path`.
    pub fn file(file: File, path: impl Into<PathBuf>) -> Self {
        Input::from_source(Source::File(file), Some(path.into()))
    }

    /// Bytes from any reader, read once, as a stream.
    pub fn reader(reader: impl Read + 'a) -> Self {
        Input::from_source(Source::Reader(Box::new(reader)), None)
    }

    /// Bytes held in memory.
    pub fn bytes(bytes: &'a [u8]) -> Self {
        Input::from_source(Source::Bytes(bytes), None)
    }

    /// The input's name: its extension tells its kind before its content
    /// does (`.md`, `.mbox`, `.warc.gz`). When it names a page on disk, the
    /// folder a browser saved beside it is looked for there.
    pub fn named(mut self, name: impl Into<PathBuf>) -> Self {
        self.name = Some(name.into());
        self
    }

    /// What the input is, above [`Rewriter::kind`] and anything its name or
    /// content say.
    pub fn kind(mut self, kind: Kind) -> Self {
        self.kind = Some(kind);
        self
    }

    /// The URL this input was retrieved from, above
    /// [`Rewriter::retrieved_from`] (each file of a site mirror has its
    /// own).
    pub fn retrieved_from(mut self, url: &str) -> Self {
        self.retrieved_from = Some(url.to_owned());
        self
    }

    /// The base of this input's embedded resources, above
    /// [`Rewriter::resource_base`] (each file of a directory has its own,
    /// below the directory's as its retrieval URL is).
    pub fn resource_base(mut self, url: &str) -> Self {
        self.resource_base = Some(url.to_owned());
        self
    }

    /// The file the input is, on disk, by its path or name: where the
    /// folder a browser saved with a page is looked for.
    fn local_path(&self) -> Option<&Path> {
        self.name.as_deref()
    }

    /// Adds every byte read from the input to `counter` as it is read: a
    /// progress bar that moves through one large archive.
    pub fn count_into(mut self, counter: Arc<AtomicU64>) -> Self {
        self.counter = Some(counter);
        self
    }
}

/// Where [`Rewriter::run`] writes the input with its links made absolute.
///
/// ```
/// use relink::{Input, Output, Rewriter};
/// let rewriter = Rewriter::new().retrieved_from("http://a/d/");
/// let mut out = Vec::new();
/// // Unchanged, so not written: an in-place rewrite keeps the file.
/// let report = rewriter.run(Input::bytes(b"<p>no links</p>"), Output::WhenChanged(&mut out), &mut |_| Ok(()))?;
/// assert!(!report.changed && out.is_empty());
/// // Every byte, changed or not: standard output.
/// rewriter.run(Input::bytes(b"<p>no links</p>"), Output::Always(&mut out), &mut |_| Ok(()))?;
/// assert_eq!(out, b"<p>no links</p>");
/// # Ok::<(), relink::Error>(())
/// ```
pub enum Output<'w> {
    /// Nowhere: the links are only read (a listing, a check).
    Nowhere,
    /// Every byte of the output, changed or not.
    Always(&'w mut dyn Write),
    /// The output, which may be left unwritten when nothing changed (the
    /// caller keeps the input then): a document held in memory is written
    /// only when it changed; a stream is written as it is read.
    WhenChanged(&'w mut dyn Write),
}

/// What [`Rewriter::run`] reports as it goes, in input order.
///
/// ```
/// use relink::{Event, Input, Kind, Output, Rewriter, Unit};
/// let mbox = b"From a@b Thu Jan  1 00:00:00 1970\nContent-Base: http://h/\nContent-Type: text/html\n\n<a href=x>x</a>\n";
/// let mut seen = Vec::new();
/// Rewriter::new().run(Input::bytes(mbox), Output::Nowhere, &mut |event| {
///     match event {
///         Event::Start { kind, .. } => seen.push(format!("{kind:?}")),
///         Event::Rows(rows) => seen.push(rows[0].link.resolved.clone()),
///         Event::Done(done) => {
///             if let Unit::Message(n) = done.unit {
///                 seen.push(format!("message {n}, changed: {}", done.changed));
///             }
///         }
///         _ => {}
///     }
///     Ok(())
/// })?;
/// assert_eq!(seen, ["Mbox", "http://h/x", "message 1, changed: true"]);
/// # Ok::<(), relink::Error>(())
/// ```
#[derive(Debug)]
#[non_exhaustive]
pub enum Event<'e> {
    /// What the input is, told before anything is written: its kind, and
    /// whether its output is compressed bytes (gzip, zstd, a WACZ
    /// package). A handler that returns an error here stops the run before
    /// any byte is written.
    Start {
        /// The kind the input is read as.
        kind: Kind,
        /// Whether the output is compressed bytes.
        compressed: bool,
        /// The compression of the input when relink does not read it
        /// (`zstd`, `xz`, `bzip2`): a document is then left as it is, an
        /// archive refused.
        unread: Option<&'static str>,
    },
    /// Link rows, as they are found, a few at a time (only with
    /// [`crate::options::Details::Links`]).
    Rows(&'e [LinkRow]),
    /// A document, a message or a record done.
    Done(Done<'e>),
}

/// One document, message or record done: what a diff is made of (see the
/// example of [`Event`]).
#[derive(Debug)]
#[non_exhaustive]
pub struct Done<'e> {
    /// Which: the document, a message of an mbox, a record of an archive.
    pub unit: Unit,
    /// Its bytes as read (gzip undone), for a document or a message.
    pub original: Option<&'e [u8]>,
    /// Its new bytes, when it changed: a message's, and a document's
    /// with [`Rewriter::keep_new_bytes`].
    pub output: Option<&'e [u8]>,
    /// Whether any of its bytes changed.
    pub changed: bool,
    /// How many of its links were rewritten.
    pub rewritten: usize,
    /// What could not be done in it, each naming where.
    pub warnings: &'e [Warning],
    /// An HTML document's title and metas (a record's payload's), with
    /// [`crate::options::Details::Attributes`] only.
    pub head: Option<&'e crate::links::HtmlHead>,
}

/// Which document, message or record a [`Done`] speaks of (see the
/// example of [`Event`]).
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum Unit {
    /// The input, one document (or one message file).
    Document,
    /// A message of an mbox, numbered from 1.
    Message(usize),
    /// A record of a web archive (in a WACZ package, of its entry).
    Record(Arc<RecordName>),
}

/// What became of one input, once [`Rewriter::run`] is done.
///
/// ```
/// use relink::{Input, Kind, Output, Rewriter};
/// let report = Rewriter::new().run(Input::bytes(b"<a href=x>x</a>"), Output::Nowhere, &mut |_| Ok(()))?;
/// assert_eq!((report.kind, report.changed, report.without_base), (Some(Kind::Html), false, 1));
/// assert_eq!(report.warnings[0].to_string(), "no base url: links left as they are");
/// # Ok::<(), relink::Error>(())
/// ```
#[derive(Debug, Default)]
#[non_exhaustive]
pub struct Report {
    /// The kind it was read as.
    pub kind: Option<Kind>,
    /// Whether any byte changed.
    pub changed: bool,
    /// How many links were rewritten.
    pub rewritten: usize,
    /// Every warning, each naming where, in input order.
    pub warnings: Vec<Warning>,
    /// How many of its documents (parts, records) had no base, so kept
    /// their relative links.
    pub without_base: usize,
    /// Each document's base layers, innermost first, under a label naming
    /// it (with [`Rewriter::keep_layers`]); a web archive record whose
    /// HTTP head has links is one even without a document (`record 4
    /// URI`), with the layers its head's links resolve against.
    pub layers: Vec<(String, Vec<Layer>)>,
    /// How many messages an mbox holds.
    pub messages: usize,
    /// How many records a web archive (every WARC of a WACZ) holds.
    pub records: usize,
}

/// The handler of a run's events (see the example of [`Event`]): an
/// error it returns on [`Event::Start`] stops the run before anything is
/// written; a later one is returned when the run ends.
pub type Handler<'h> = &'h mut (dyn FnMut(Event<'_>) -> io::Result<()> + Send);

/// The events of a run on their way to the caller's handler, the rows
/// gathered a few at a time. The first error the handler returns is kept
/// for the end of the run (standard output closed while rows were listed).
struct Channel<'h> {
    state: Mutex<ChannelState<'h>>,
}

struct ChannelState<'h> {
    rows: Vec<LinkRow>,
    handler: Handler<'h>,
    error: Option<io::Error>,
}

impl<'h> Channel<'h> {
    fn new(handler: Handler<'h>) -> Self {
        Channel {
            state: Mutex::new(ChannelState {
                rows: Vec::new(),
                handler,
                error: None,
            }),
        }
    }

    fn state(&self) -> MutexGuard<'_, ChannelState<'h>> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Hands on the rows gathered, then `event`.
    fn emit(&self, event: Option<Event<'_>>) {
        let mut state = self.state();
        let state = &mut *state;
        if state.error.is_some() {
            state.rows.clear();
            return;
        }
        let mut result = Ok(());
        if !state.rows.is_empty() {
            result = (state.handler)(Event::Rows(&state.rows));
            state.rows.clear();
        }
        if let (Ok(()), Some(event)) = (&result, event) {
            result = (state.handler)(event);
        }
        if let Err(err) = result {
            state.error = Some(err);
        }
    }

    /// Hands on the rows of a report read with no sink, and clears them.
    fn rows_of(&self, report: &mut DocumentReport) {
        if !report.rows.is_empty() {
            self.emit(Some(Event::Rows(&report.rows)));
        }
        report.rows.clear();
    }

    /// The first error the handler returned.
    fn error(&self) -> Option<io::Error> {
        self.emit(None);
        self.state().error.take()
    }
}

impl LinkSink for Channel<'_> {
    fn row(&self, row: LinkRow) {
        let mut state = self.state();
        state.rows.push(row);
        if state.rows.len() >= ROWS_AT_ONCE {
            drop(state);
            self.emit(None);
        }
    }
}

/// A reader that adds what it reads to a counter.
struct Counting<R> {
    inner: R,
    count: Arc<AtomicU64>,
}

impl<R: Read> Read for Counting<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.count.fetch_add(n as u64, Ordering::Relaxed);
        Ok(n)
    }
}

/// An input opened: its first bytes, the rest, and the file it is (a WACZ
/// package is read from its end).
struct Opened<'a> {
    head: Vec<u8>,
    /// The input's size, when known.
    size: usize,
    rest: Box<dyn Read + 'a>,
    file: Option<File>,
}

/// An input's first bytes put back before the rest.
type Restored<'a> = io::Chain<io::Cursor<Vec<u8>>, Box<dyn Read + 'a>>;

/// A reader that seeks.
trait SeekRead: Read + Seek {}
impl<T: Read + Seek> SeekRead for T {}

/// An input that cannot be opened, named (the command line opens its own
/// files and names them in its report).
fn cannot_read(path: &Path, e: io::Error) -> io::Error {
    io::Error::new(e.kind(), format!("{}: cannot read: {e}", path.display()))
}

impl<'a> Opened<'a> {
    fn open(source: Source<'a>, counter: Option<Arc<AtomicU64>>) -> io::Result<Self> {
        match source {
            Source::Path(path) => {
                let file = File::open(&path).map_err(|e| cannot_read(&path, e))?;
                Opened::of_file(file, counter)
            }
            Source::File(file) => Opened::of_file(file, counter),
            Source::Reader(reader) => Opened::of_reader(reader, None, 0, counter),
            Source::Bytes(bytes) => {
                Opened::of_reader(Box::new(bytes), None, bytes.len() as u64, counter)
            }
        }
    }

    /// An input read from `reader` (the file it is, if any, of `size`
    /// bytes if known, else 0): its head read, the rest to read.
    fn of_reader(
        reader: Box<dyn Read + 'a>,
        file: Option<File>,
        size: u64,
        counter: Option<Arc<AtomicU64>>,
    ) -> io::Result<Self> {
        let mut rest: Box<dyn Read + 'a> = match counter {
            Some(count) => Box::new(Counting {
                inner: reader,
                count,
            }),
            None => reader,
        };
        let size = usize::try_from(size).unwrap_or(0);
        // Room for the whole input when it is small enough to be read
        // whole, so that a document past the head is not copied again as
        // its buffer grows; room that is not read into is never touched.
        let room = if size <= WHOLE_AT_ONCE {
            size.max(8192)
        } else {
            HEAD_BYTES
        };
        let mut head = Vec::with_capacity(room + 1);
        (&mut rest).take(HEAD_BYTES as u64).read_to_end(&mut head)?;
        Ok(Opened {
            head,
            size,
            rest,
            file,
        })
    }

    /// An open file: a file no larger than its head read whole at once (a
    /// read the size of the file and one that finds its end, not reads that
    /// double from 8 KiB and then a second look at its size), else its head
    /// and the rest to read.
    fn of_file(file: File, counter: Option<Arc<AtomicU64>>) -> io::Result<Self> {
        let size = file.metadata().map_or(0, |m| m.len());
        if size == 0 || size > HEAD_BYTES as u64 {
            let reader: Box<dyn Read + 'a> = Box::new(file.try_clone()?);
            return Opened::of_reader(reader, Some(file), size, counter);
        }
        // Room for the file and the byte that finds its end; the standard
        // library reads a file into room for the size it says, and on to
        // its end if it grew.
        let mut head = Vec::with_capacity(size as usize + 1);
        (&file).read_to_end(&mut head)?;
        if let Some(count) = counter {
            count.fetch_add(head.len() as u64, Ordering::Relaxed);
        }
        Ok(Opened {
            head,
            size: size as usize,
            rest: Box::new(io::empty()),
            file: Some(file),
        })
    }

    /// The whole input in memory, with room for it read at once.
    fn read_all(self) -> io::Result<Vec<u8>> {
        let Opened {
            head: mut bytes,
            size,
            mut rest,
            ..
        } = self;
        bytes.reserve(size.saturating_sub(bytes.len()) + 1);
        rest.read_to_end(&mut bytes)?;
        Ok(bytes)
    }

    /// The input as a buffered stream, its first bytes put back.
    fn stream(self) -> BufReader<Restored<'a>> {
        BufReader::new(io::Cursor::new(self.head).chain(self.rest))
    }
}

/// The kind of an input: the one given, else the one its name and first
/// bytes tell ([`kind::detect_file`], [`kind::sniff`]), else HTML, then
/// guessed (nothing told it).
fn kind_of(given: Option<Kind>, name: Option<&Path>, head: &[u8]) -> (Kind, bool) {
    if let Some(kind) = given {
        return (kind, false);
    }
    match name {
        Some(name) => {
            let kind = kind::detect_file(name, head);
            let guessed = kind == Kind::Html
                && kind::from_name(name).is_none()
                && kind::sniff(head).is_none();
            (kind, guessed)
        }
        None => {
            let sniffed = kind::sniff(head);
            (sniffed.unwrap_or(Kind::Html), sniffed.is_none())
        }
    }
}

/// Whether an input of `kind` starting with `head` is written back as
/// compressed bytes (a gzipped or zstd input, a WACZ package).
fn writes_compressed(kind: Kind, head: &[u8]) -> bool {
    const GZIP: &[u8] = &[0x1f, 0x8b];
    const ZSTD: &[u8] = &[0x28, 0xb5, 0x2f, 0xfd];
    kind == Kind::Wacz || head.starts_with(GZIP) || head.starts_with(ZSTD)
}

/// Whether a name says it is a web archive (`.warc`, `.arc`, in any part).
fn named_archive(name: Option<&Path>) -> bool {
    name.is_some_and(|n| {
        let n = n.to_string_lossy().to_ascii_lowercase();
        n.contains(".warc") || n.contains(".arc")
    })
}

/// One run: the settings made into options, the events on their way out,
/// what is gathered for the report.
struct Run<'r, 'h> {
    options: Options<'r>,
    mbox_format: Option<MboxFormat>,
    keep_layers: bool,
    keep_new_bytes: bool,
    verify_digests: bool,
    channel: &'r Channel<'h>,
    gathered: DocumentReport,
}

impl Rewriter {
    /// Reads any input relink reads and writes it to `output` with its
    /// relative links made absolute, as a stream (an archive record by
    /// record, an mbox message by message; a document is held whole),
    /// calling `events` as it goes. An error of `events` on
    /// [`Event::Start`] stops the run before anything is written; a later
    /// one is returned when the run ends.
    ///
    /// ```
    /// use relink::{Event, Input, Output, Rewriter};
    /// let mut out = Vec::new();
    /// let mut rows = Vec::new();
    /// let report = Rewriter::new().run(
    ///     Input::bytes(b"<a href=../x>x</a>").retrieved_from("http://a/b/c"),
    ///     Output::Always(&mut out),
    ///     &mut |event| {
    ///         if let Event::Rows(found) = event {
    ///             rows.extend(found.iter().map(|r| r.link.resolved.clone()));
    ///         }
    ///         Ok(())
    ///     },
    /// )?;
    /// assert!(report.changed);
    /// assert_eq!(out, b"<a href=http://a/x>x</a>");
    /// assert_eq!(rows, ["http://a/x"]);
    /// # Ok::<(), relink::Error>(())
    /// ```
    pub fn run(
        &self,
        input: Input<'_>,
        output: Output<'_>,
        events: Handler<'_>,
    ) -> Result<Report, Error> {
        let mut bases = self.parsed_bases(
            input.retrieved_from.as_deref(),
            input.resource_base.as_deref(),
        )?;
        if !self.absolute_saved_assets {
            bases.saved = input.local_path().and_then(SavedFolders::of);
        }
        if let Some((root, prefix, files)) = &self.local_mirror {
            let mirror = Mirror::new(root, prefix)?.sharing(files);
            bases.local = input.local_path().and_then(|path| mirror.document(path));
        }
        let channel = Channel::new(events);
        let details = self.details;
        let mut run = Run {
            options: Options {
                rows: details.records().then_some(Rows(&channel as &dyn LinkSink)),
                ..self.options_with(&bases)
            },
            mbox_format: self.mbox_format,
            keep_layers: self.keep_layers,
            keep_new_bytes: self.keep_new_bytes,
            verify_digests: self.verify_digests,
            channel: &channel,
            gathered: DocumentReport::default(),
        };
        let mut report = Report::default();
        let result = run.input(self, input, output, &mut report);
        if let Some(err) = channel.error() {
            return Err(Error::Io(err));
        }
        result?;
        let gathered = run.gathered;
        report.rewritten += gathered.rewritten;
        report.without_base += gathered.without_base;
        report.warnings.extend(gathered.warnings);
        report.layers.extend(gathered.layers);
        Ok(report)
    }
}

impl Rewriter {
    /// Rewrites any input relink reads, held in memory: HTML, a style
    /// sheet, a message or MHTML file, an mbox, a web archive (WARC or
    /// ARC, plain or gzipped) or a WACZ package, by [`Rewriter::kind`],
    /// else by its content: [`Rewriter::run`] over bytes, its output
    /// held in memory ([`Rewriter::run`] reads archives as streams).
    ///
    /// A gzipped document is rewritten inside its compression and comes
    /// back gzipped. A web archive is never read as a document: given
    /// another kind, it is an error; with no kind given, an archive found
    /// after junk (a byte order mark, NUL bytes, stray lines) is read as
    /// an archive.
    ///
    /// The links of an archive come in order, message by message or record
    /// by record; each record's own base serves, not
    /// [`Rewriter::retrieved_from`].
    pub fn rewrite<'i>(&self, input: &'i [u8]) -> Result<Rewritten<'i>, Error> {
        let mut rows = Vec::new();
        let mut head = None;
        let mut output = Vec::with_capacity(input.len());
        let done = Rewriter {
            keep_layers: true,
            ..self.clone()
        }
        .run(
            Input::bytes(input),
            Output::WhenChanged(&mut output),
            &mut |event| {
                match event {
                    Event::Rows(found) => rows.extend_from_slice(found),
                    // The first document's, as a page has one.
                    Event::Done(done) if head.is_none() => {
                        head = done.head.map(|h| Box::new(h.clone()));
                    }
                    _ => {}
                }
                Ok(())
            },
        )?;
        let report = DocumentReport {
            head,
            output: done.changed.then_some(output),
            splice: None,
            rows,
            rewritten: done.rewritten,
            warnings: done.warnings,
            layers: done.layers,
            without_base: done.without_base,
        };
        Ok(Rewritten { input, report })
    }

    /// The options of a run over `bases`.
    pub(crate) fn options_with<'a>(&'a self, bases: &'a Bases) -> Options<'a> {
        Options {
            rules: self.rules,
            forced: bases.forced.as_ref(),
            outer: bases.outer.as_ref(),
            resource_base: bases.resource.as_ref(),
            transport: self.encoding,
            saved: bases.saved.as_ref(),
            local: bases.local.as_ref(),
            keep_fragment_links: self.keep_fragment_links,
            extra_attributes: &self.attributes,
            details: self.details,
            rows: None,
        }
    }
}

/// The bases of a run, parsed once.
pub(crate) struct Bases {
    pub(crate) forced: Option<Base>,
    pub(crate) outer: Option<Base>,
    pub(crate) resource: Option<Base>,
    pub(crate) saved: Option<SavedFolders>,
    pub(crate) local: Option<MirrorDocument>,
}

impl Rewriter {
    fn parsed_bases(
        &self,
        retrieved_from: Option<&str>,
        resource_base: Option<&str>,
    ) -> Result<Bases, Error> {
        let rules = self.rules;
        let parse = |url: Option<&str>, source: BaseSource| {
            url.map(|u| BaseUrl::parse(u, rules).map(|u| Base::new(u, source)))
                .transpose()
        };
        Ok(Bases {
            forced: parse(self.base.as_deref(), BaseSource::Forced)?,
            outer: parse(
                retrieved_from.or(self.retrieved_from.as_deref()),
                BaseSource::RetrievedFrom,
            )?,
            resource: parse(
                resource_base.or(self.resource_base.as_deref()),
                BaseSource::ResourceBase,
            )?,
            saved: None,
            local: None,
        })
    }
}

impl Run<'_, '_> {
    /// Opens the input, tells what it is, and reads it as that.
    fn input(
        &mut self,
        rewriter: &Rewriter,
        input: Input<'_>,
        output: Output<'_>,
        report: &mut Report,
    ) -> Result<(), Error> {
        let Input {
            source,
            name,
            kind,
            counter,
            ..
        } = input;
        let opened = Opened::open(source, counter)?;
        let (kind, guessed) = kind_of(kind.or(rewriter.kind), name.as_deref(), &opened.head);
        report.kind = Some(kind);
        let unread = compressed::compression_of(&opened.head)
            .filter(|&c| c != Compression::Gzip)
            .map(Compression::name);
        self.start(kind, writes_compressed(kind, &opened.head), unread)?;
        if kind != Kind::Warc && warc::looks_like_warc(&opened.head) {
            // Told to read it as something else: an archive is never a
            // document.
            return Err(Error::ArchiveAsDocument);
        }
        if kind == Kind::Wacz {
            return self.wacz(opened, output, report);
        }
        if kind != Kind::Warc
            && let Some(compression) = compressed::compression_of(&opened.head)
        {
            return self.compressed((kind, compression), name.as_deref(), opened, output, report);
        }
        match kind {
            Kind::Warc => self.warc(opened.stream(), output, report),
            Kind::Mbox => {
                let format = self
                    .mbox_format
                    .unwrap_or_else(|| MboxFormat::detect(&opened.head));
                self.mbox(opened.stream(), format, None, output, report)
            }
            _ => {
                let bytes = opened.read_all()?;
                let make = if self.keep_new_bytes {
                    Make::Bytes
                } else {
                    Make::Splice
                };
                let new = self.in_memory(kind, &bytes, make)?;
                if guessed && self.gathered.rewritten == 0 && self.gathered.without_base == 0 {
                    self.gathered.warnings.push(Warning::new(
                        WarningKind::KindGuessed,
                        "read as html, its kind guessed, and no link rewritten: if it is a style \
                         sheet, Markdown or XML, give its kind (--type, or kind= in Python)",
                    ));
                }
                report.changed = new.changed();
                new.write(output, &bytes)
            }
        }
    }

    /// Tells the handler what the input is; its error stops the run.
    fn start(
        &self,
        kind: Kind,
        compressed: bool,
        unread: Option<&'static str>,
    ) -> Result<(), Error> {
        self.channel.emit(Some(Event::Start {
            kind,
            compressed,
            unread,
        }));
        match self.channel.state().error.take() {
            Some(err) => Err(Error::Io(err)),
            None => Ok(()),
        }
    }

    /// Takes in what a document, message or record reported.
    fn absorb(&mut self, document: DocumentReport) {
        absorb(self.channel, self.keep_layers, &mut self.gathered, document);
    }

    /// Rewrites a document held in memory (HTML, CSS, XML, Markdown, a
    /// message): its new bytes, if any changed.
    fn in_memory(&mut self, kind: Kind, document: &[u8], make: Make) -> Result<NewBytes, Error> {
        let mut report = document::rewrite_document_made(kind, document, &self.options, make)?;
        let new = match (report.output.take(), report.splice.take()) {
            (Some(bytes), _) => NewBytes::Made(bytes),
            (None, Some(splice)) => NewBytes::Splice(Box::new(splice)),
            (None, None) => NewBytes::Unchanged,
        };
        // Asked for a splice (a gzipped document, whose edits place it in
        // its members), the new bytes are made for the handler only when
        // it keeps them.
        let made = match &new {
            NewBytes::Splice(splice) if self.keep_new_bytes => Some(splice.bytes(document)),
            _ => None,
        };
        let output = match &new {
            NewBytes::Made(bytes) => Some(&bytes[..]),
            _ => made.as_deref(),
        };
        self.channel.rows_of(&mut report);
        self.channel.emit(Some(Event::Done(Done {
            unit: Unit::Document,
            original: Some(document),
            output,
            changed: new.changed(),
            rewritten: report.rewritten,
            warnings: &report.warnings,
            head: report.head.as_deref(),
        })));
        self.absorb(report);
        Ok(new)
    }

    /// A compressed input. gzip is undone, the document rewritten as its
    /// kind, and gzip done again with the input's header (an mbox streamed
    /// through both); a compression relink does not read leaves a document
    /// as it is, with a warning, and a web archive refused.
    fn compressed(
        &mut self,
        (kind, compression): (Kind, Compression),
        name: Option<&Path>,
        opened: Opened<'_>,
        output: Output<'_>,
        report: &mut Report,
    ) -> Result<(), Error> {
        if compression != Compression::Gzip {
            if named_archive(name) {
                // An archive relink cannot look into is refused, never
                // passed over.
                return Err(Error::CompressedArchive(compression.name()));
            }
            report.warnings.push(Warning::new(
                WarningKind::UnknownEncoding,
                format_args!(
                    "compressed with {}, which relink does not read; left as it is",
                    compression.name()
                ),
            ));
            let bytes = opened.read_all()?;
            return write_whole(output, &bytes, false);
        }
        let header = compressed::Header::read(&opened.head);
        if kind == Kind::Mbox {
            let decoder = MultiGzDecoder::new(io::Cursor::new(opened.head).chain(opened.rest));
            let mut inner = BufReader::new(decoder);
            let format = match self.mbox_format {
                Some(format) => format,
                None => MboxFormat::detect(inner.fill_buf()?),
            };
            return self.mbox(inner, format, Some(&header), output, report);
        }
        let input = opened.read_all()?;
        let gunzipped = compressed::gunzip(&input, compressed::MAX_DECOMPRESSED_BYTES)
            .map_err(|e| io::Error::new(io::ErrorKind::InvalidData, format!("gzip: {e}")))?;
        let document = &gunzipped.bytes[..];
        if warc::looks_like_warc(document) {
            return Err(Error::ArchiveAsDocument);
        }
        if let Some(inner) = compressed::compression_of(document) {
            // Compressed twice: not undone again (a gzip file can even
            // decompress to itself).
            return Err(Error::Compressed(inner.name()));
        }
        // Each member kept: the edits say which members changed.
        let zipped = match self.in_memory(kind, document, Make::Splice)? {
            NewBytes::Made(bytes) => Some(gunzipped.gzip_again(&input, &bytes)?),
            NewBytes::Splice(splice) => Some(gunzipped.gzip_edits(&input, splice.edits())?),
            NewBytes::Unchanged => None,
        };
        report.changed = zipped.is_some();
        write_whole(output, zipped.as_deref().unwrap_or(&input), report.changed)
    }

    /// An mbox, message by message, gzipped again with `gzip` when given.
    fn mbox(
        &mut self,
        input: impl BufRead,
        format: MboxFormat,
        gzip: Option<&compressed::Header>,
        output: Output<'_>,
        report: &mut Report,
    ) -> Result<(), Error> {
        let mut messages = 0;
        let (channel, keep) = (self.channel, self.keep_layers);
        let gathered = &mut self.gathered;
        let mut collect = |message: &ArchiveMessage, original: &[u8]| {
            let n = message.number;
            let mut done = DocumentReport::default();
            done.add_message(Some(n), &message.outcome);
            channel.rows_of(&mut done);
            channel.emit(Some(Event::Done(Done {
                unit: Unit::Message(n),
                original: Some(original),
                output: message.outcome.output.as_deref(),
                changed: message.outcome.output.is_some(),
                rewritten: message.outcome.rewritten,
                warnings: &done.warnings,
                head: None,
            })));
            absorb(channel, keep, gathered, done);
            messages = n;
        };
        let options = &self.options;
        let changed = match output {
            Output::Nowhere => {
                document::rewrite_mbox(input, format, &mut io::sink(), options, &mut collect)?
            }
            Output::Always(writer) | Output::WhenChanged(writer) => {
                let mut writer = io::BufWriter::new(writer);
                let changed = match gzip {
                    None => {
                        document::rewrite_mbox(input, format, &mut writer, options, &mut collect)?
                    }
                    Some(header) => {
                        // A gzipped mbox comes back gzipped, with its header.
                        let mut encoder = header.encoder(&mut writer)?;
                        let changed = document::rewrite_mbox(
                            input,
                            format,
                            &mut encoder,
                            options,
                            &mut collect,
                        )?;
                        encoder.finish()?;
                        changed
                    }
                };
                writer.flush()?;
                changed
            }
        };
        report.changed = changed;
        report.messages = messages;
        Ok(())
    }

    /// A web archive (WARC or ARC, plain or gzipped), record by record.
    fn warc(
        &mut self,
        input: impl BufRead,
        output: Output<'_>,
        report: &mut Report,
    ) -> Result<(), Error> {
        let options = WarcOptions {
            document: self.options,
            verify_digests: self.verify_digests,
            ..WarcOptions::new(&Engine)
        };
        let (channel, keep) = (self.channel, self.keep_layers);
        let gathered = &mut self.gathered;
        let mut collect = |record: RecordReport| {
            record_done(channel, keep, gathered, None, record);
        };
        let summary = match output {
            Output::Nowhere => warc::inspect(input, &options, &mut collect)?,
            Output::Always(writer) | Output::WhenChanged(writer) => {
                let mut writer = io::BufWriter::new(writer);
                let summary = warc::rewrite_with(input, &mut writer, &options, &mut collect)?;
                writer.flush()?;
                summary
            }
        };
        // The summary holds every warning, those of bytes outside records
        // too, in file order.
        self.gathered.warnings.extend(summary.warnings);
        report.changed = summary.changed > 0;
        report.records = summary.records;
        Ok(())
    }

    /// A WACZ package: every WARC inside it, its indexes and digests made
    /// right. A zip is read from its end: from the file itself, else held
    /// in memory; and written with seeks, into a temporary file first.
    fn wacz(
        &mut self,
        opened: Opened<'_>,
        output: Output<'_>,
        report: &mut Report,
    ) -> Result<(), Error> {
        let input: Box<dyn SeekRead> = match opened.file {
            Some(mut file) => {
                file.seek(io::SeekFrom::Start(0))?;
                Box::new(file)
            }
            None => Box::new(io::Cursor::new(opened.read_all()?)),
        };
        let options = WarcOptions {
            document: self.options,
            verify_digests: self.verify_digests,
            ..WarcOptions::new(&Engine)
        };
        let (channel, keep) = (self.channel, self.keep_layers);
        let gathered = &mut self.gathered;
        let mut collect = |entry: &str, record: RecordReport| {
            record_done(channel, keep, gathered, Some(entry), record);
        };
        let (changed, summary) = match output {
            Output::Nowhere => {
                let summary = wacz::inspect(input, &options, &mut collect)?;
                (summary.changed() > 0, summary)
            }
            Output::Always(writer) | Output::WhenChanged(writer) => {
                let mut temp = tempfile::tempfile()?;
                let summary = wacz::rewrite_with(input, &mut temp, &options, &mut collect)?;
                temp.seek(io::SeekFrom::Start(0))?;
                let mut writer = io::BufWriter::new(writer);
                io::copy(&mut temp, &mut writer)?;
                writer.flush()?;
                (!summary.unchanged(), summary)
            }
        };
        report.records = summary.records();
        // The package's summary holds every warning, each naming its entry.
        self.gathered.warnings.extend(summary.warnings);
        report.changed = changed;
        Ok(())
    }
}

/// Takes in what a document, message or record reported, once its rows
/// are handed on; its layers only when they are kept.
fn absorb(
    channel: &Channel<'_>,
    keep: bool,
    gathered: &mut DocumentReport,
    mut done: DocumentReport,
) {
    channel.rows_of(&mut done);
    gathered.rewritten += done.rewritten;
    gathered.without_base += done.without_base;
    gathered.warnings.extend(done.warnings);
    if keep {
        gathered.layers.extend(done.layers);
    }
}

/// A record of a web archive done (of a WACZ package's `entry`): its rows
/// and its event handed on. Its warnings are in the archive's summary.
fn record_done(
    channel: &Channel<'_>,
    keep: bool,
    gathered: &mut DocumentReport,
    entry: Option<&str>,
    mut record: RecordReport,
) {
    let warnings = std::mem::take(&mut record.warnings);
    let name = Arc::new(RecordName {
        number: record.number,
        target_uri: record.target_uri.clone(),
        record_id: record.record_id.clone(),
        record_type: record.record_type.clone(),
        heads: record.heads.clone(),
    });
    let (rewritten, changed) = (record.rewritten, record.changed);
    let head = record.head.take();
    let mut done = DocumentReport::default();
    done.add_record(record);
    if let (Some(entry), Some(label)) = (entry, done.layers.first_mut()) {
        label.0 = format!("{entry} {}", label.0);
    }
    channel.rows_of(&mut done);
    channel.emit(Some(Event::Done(Done {
        unit: Unit::Record(name),
        original: None,
        output: None,
        changed,
        rewritten,
        warnings: &warnings,
        head: head.as_deref(),
    })));
    absorb(channel, keep, gathered, done);
}

/// A document's new bytes, if it changed.
enum NewBytes {
    Unchanged,
    Made(Vec<u8>),
    /// The edits, written between the bytes read.
    Splice(Box<Splice>),
}

impl NewBytes {
    fn changed(&self) -> bool {
        !matches!(self, NewBytes::Unchanged)
    }

    /// Writes the document, read as `input`, where `output` says.
    fn write(&self, output: Output<'_>, input: &[u8]) -> Result<(), Error> {
        match (self, output) {
            (NewBytes::Unchanged, output) => write_whole(output, input, false),
            (NewBytes::Made(bytes), output) => write_whole(output, bytes, true),
            (NewBytes::Splice(splice), Output::Always(writer) | Output::WhenChanged(writer)) => {
                splice.write_to(input, writer)?;
                Ok(writer.flush()?)
            }
            (NewBytes::Splice(_), Output::Nowhere) => Ok(()),
        }
    }
}

/// Writes a document whole where `output` says.
fn write_whole(output: Output<'_>, bytes: &[u8], changed: bool) -> Result<(), Error> {
    match output {
        Output::Always(writer) => {
            writer.write_all(bytes)?;
            writer.flush()?;
        }
        Output::WhenChanged(writer) if changed => {
            writer.write_all(bytes)?;
            writer.flush()?;
        }
        Output::WhenChanged(_) | Output::Nowhere => {}
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compressed_output_is_told_before_it_is_written() {
        let gzip = [0x1f, 0x8b, 8, 0];
        let zstd = [0x28, 0xb5, 0x2f, 0xfd, 0];
        assert!(writes_compressed(Kind::Warc, &gzip));
        assert!(writes_compressed(Kind::Warc, &zstd));
        assert!(writes_compressed(Kind::Html, &gzip));
        assert!(writes_compressed(Kind::Wacz, b"PK\x03\x04"));
        assert!(!writes_compressed(Kind::Warc, b"WARC/1.1\r\n"));
        assert!(!writes_compressed(Kind::Html, b"<p>"));
        assert!(!writes_compressed(Kind::Mbox, b"From a@b"));
    }

    /// A document written from its splice is the document made whole,
    /// in every encoding (decoded in place, or into a copy whose offsets
    /// are found again in the bytes) and kind; its bytes reach the events
    /// only when kept.
    #[test]
    fn a_splice_writes_the_bytes_made_whole() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut inputs: Vec<(Kind, Vec<u8>)> = [
            "utf-16le.html",
            "utf-16be.html",
            "shift_jis.html",
            "windows-1252.html",
            "fallback-1252.html",
            "crlf.html",
            "empty-url.css",
        ]
        .iter()
        .map(|name| {
            let kind = if name.ends_with(".css") {
                Kind::Css
            } else {
                Kind::Html
            };
            (
                kind,
                std::fs::read(root.join("fixtures/html").join(name)).unwrap(),
            )
        })
        .collect();
        inputs.push((
            Kind::Html,
            b"\xef\xbb\xbf<a href=x>\xff\xfe<img src=y>".to_vec(),
        ));
        inputs.push((Kind::Markdown, b"[a](x) <a href=y>\n\n[d]: z\n".to_vec()));
        inputs.push((
            Kind::Xml,
            b"<feed xmlns='http://www.w3.org/2005/Atom'><link href='x'/></feed>".to_vec(),
        ));
        let rewriter = Rewriter::new().retrieved_from("http://h/a/");
        let url = BaseUrl::parse("http://h/a/", crate::url::Rules::Rfc1808).unwrap();
        let base = Base::new(url, BaseSource::RetrievedFrom);
        let options = Options::default().outer(Some(&base));
        for (kind, input) in &inputs {
            let report = document::rewrite_document(*kind, input, &options).unwrap();
            let made = report.output.expect("changed");
            for keep in [false, true] {
                let mut out = Vec::new();
                let mut seen = None;
                let report = rewriter
                    .clone()
                    .kind(*kind)
                    .keep_new_bytes(keep)
                    .run(
                        Input::bytes(input),
                        Output::Always(&mut out),
                        &mut |event| {
                            if let Event::Done(done) = event {
                                seen = Some(done.output.map(<[u8]>::to_vec));
                            }
                            Ok(())
                        },
                    )
                    .unwrap();
                assert!(report.changed);
                assert_eq!(out, made, "{kind:?}");
                assert_eq!(seen, Some(keep.then(|| made.clone())), "{kind:?}");
            }
        }
    }

    #[test]
    fn an_error_on_start_stops_the_run_before_a_byte_is_written() {
        let mut out = Vec::new();
        let result = Rewriter::new().retrieved_from("http://a/").run(
            Input::bytes(b"<a href=x>x</a>"),
            Output::Always(&mut out),
            &mut |event| match event {
                Event::Start {
                    kind: Kind::Html, ..
                } => Err(io::Error::other("refused")),
                _ => Ok(()),
            },
        );
        assert!(matches!(result, Err(Error::Io(e)) if e.to_string() == "refused"));
        assert!(out.is_empty());
    }

    #[test]
    fn a_path_that_cannot_be_opened_is_named() {
        let missing = std::env::temp_dir().join("relink-no-such-file.html");
        let err = Rewriter::new()
            .run(Input::path(&missing), Output::Nowhere, &mut |_| Ok(()))
            .unwrap_err();
        assert!(matches!(&err, Error::Io(e) if e.kind() == io::ErrorKind::NotFound));
        assert!(
            err.to_string()
                .starts_with(&format!("{}: cannot read", missing.display()))
        );
    }

    #[test]
    fn a_guessed_kind_that_finds_nothing_says_so() {
        let rewriter = Rewriter::new().retrieved_from("http://a/");
        let guessed = |input: Input<'_>| {
            let report = rewriter
                .run(input, Output::Nowhere, &mut |_| Ok(()))
                .unwrap();
            report
                .warnings
                .iter()
                .any(|w| w.kind == WarningKind::KindGuessed)
        };
        // A style sheet or Markdown with nothing to tell its kind.
        assert!(guessed(Input::bytes(b"a { background: url(x.png) }")));
        assert!(guessed(Input::bytes(b"[a](x)").named("notes")));
        // Told by its kind, its name or its content; or links found.
        assert!(!guessed(Input::bytes(b"[a](x)").kind(Kind::Markdown)));
        assert!(!guessed(Input::bytes(b"[a](x)").named("notes.md")));
        assert!(!guessed(Input::bytes(b"<!doctype html><p>no links")));
        assert!(!guessed(Input::bytes(b"<p><a href=x>x</a>")));
    }

    #[test]
    fn a_document_written_when_changed_is_not_written_unchanged() {
        let rewriter = Rewriter::new().retrieved_from("http://a/");
        let mut out = Vec::new();
        let report = rewriter
            .run(
                Input::bytes(b"<a href=http://b/>b</a>"),
                Output::WhenChanged(&mut out),
                &mut |_| Ok(()),
            )
            .unwrap();
        assert!(!report.changed && out.is_empty());
        let report = rewriter
            .run(
                Input::bytes(b"<a href=x>x</a>"),
                Output::WhenChanged(&mut out),
                &mut |_| Ok(()),
            )
            .unwrap();
        assert!(report.changed);
        assert_eq!(out, b"<a href=http://a/x>x</a>");
    }
}

#[cfg(test)]
mod rewriter_tests {
    use super::*;
    use std::io::Write;

    const MBOX: &[u8] = b"From a@b Thu Jan  1 00:00:00 1970\nContent-Type: text/html\n\n\
        <a href=x>x</a>\n\nFrom a@b Thu Jan  1 00:00:00 1970\n\
        Content-Base: http://b.example/m/\nContent-Type: text/html\n\n<a href=y>y</a>\n";

    fn gzip(bytes: &[u8]) -> Vec<u8> {
        let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        encoder.write_all(bytes).unwrap();
        encoder.finish().unwrap()
    }

    /// The rows of a run over `input`, written to `output`.
    fn run(
        rewriter: &Rewriter,
        input: Input<'_>,
        output: Output<'_>,
    ) -> Result<(Vec<LinkRow>, Report), Error> {
        let mut rows = Vec::new();
        let report = rewriter.run(input, output, &mut |event| {
            if let Event::Rows(found) = event {
                rows.extend_from_slice(found);
            }
            Ok(())
        })?;
        Ok((rows, report))
    }

    fn resolved(rows: &[LinkRow]) -> Vec<(Option<usize>, &str)> {
        rows.iter()
            .map(|r| (r.message, r.link.resolved.as_str()))
            .collect()
    }

    #[test]
    fn rows_of_html_are_the_links_of_rewrite() {
        let rewriter = Rewriter::new().retrieved_from("http://a.example/d/");
        let page = b"<a href=x>x</a><img src=../i.png>";
        let (rows, _) = run(&rewriter, Input::bytes(page), Output::Nowhere).unwrap();
        let links = rewriter.rewrite(page).unwrap();
        let expected: Vec<&str> = links.links().iter().map(|l| l.resolved.as_str()).collect();
        assert_eq!(resolved(&rows), [(None, expected[0]), (None, expected[1])]);
        assert!(rows.iter().all(|r| r.part.is_none() && r.record.is_none()));
    }

    #[test]
    fn an_mbox_gives_its_rows_gzipped_or_not() {
        let rewriter = Rewriter::new().retrieved_from("http://a.example/");
        let (plain, report) = run(&rewriter, Input::reader(MBOX), Output::Nowhere).unwrap();
        assert_eq!(report.messages, 2);
        assert_eq!(
            resolved(&plain),
            [
                (Some(1), "http://a.example/x"),
                (Some(2), "http://b.example/m/y")
            ]
        );
        let packed = gzip(MBOX);
        let (unpacked, _) = run(&rewriter, Input::reader(&packed[..]), Output::Nowhere).unwrap();
        assert_eq!(resolved(&unpacked), resolved(&plain));
        assert_eq!(
            resolved(rewriter.rewrite(&packed).unwrap().rows()),
            resolved(&plain)
        );
    }

    #[test]
    fn a_gzipped_mbox_is_rewritten_gzipped() {
        let rewriter = Rewriter::new().retrieved_from("http://a.example/");
        let mut plain = Vec::new();
        let (_, report) = run(&rewriter, Input::bytes(MBOX), Output::Always(&mut plain)).unwrap();
        assert!(report.changed);
        let mut packed = Vec::new();
        let mut numbers = Vec::new();
        rewriter
            .run(
                Input::bytes(&gzip(MBOX)),
                Output::Always(&mut packed),
                &mut |event| {
                    if let Event::Done(done) = event
                        && let crate::front::Unit::Message(n) = done.unit
                    {
                        numbers.push(n);
                    }
                    Ok(())
                },
            )
            .unwrap();
        assert_eq!(numbers, [1, 2]);
        assert!(packed.starts_with(&[0x1f, 0x8b]));
        let unpacked = crate::compressed::gunzip(&packed, 1 << 20).unwrap().bytes;
        assert_eq!(unpacked, plain);
        assert_eq!(plain, rewriter.rewrite(MBOX).unwrap().bytes());
    }

    #[test]
    fn rows_of_an_archive_given_another_kind_are_refused() {
        let warc = b"WARC/1.1\r\nWARC-Type: warcinfo\r\nContent-Length: 0\r\n\r\n\r\n\r\n";
        let rewriter = Rewriter::new().kind(Kind::Html);
        assert!(matches!(
            run(&rewriter, Input::bytes(warc), Output::Nowhere),
            Err(Error::ArchiveAsDocument)
        ));
        let (rows, report) = run(&Rewriter::new(), Input::bytes(warc), Output::Nowhere).unwrap();
        assert!(rows.is_empty());
        assert_eq!((report.kind, report.records), (Some(Kind::Warc), 1));
    }

    #[test]
    fn a_zstd_document_is_left_as_it_is_with_a_warning() {
        let zstd = [0x28, 0xb5, 0x2f, 0xfd, 0, 0, 0];
        let out = Rewriter::new()
            .retrieved_from("http://a/")
            .rewrite(&zstd)
            .unwrap();
        assert!(!out.changed());
        assert_eq!(out.bytes(), zstd);
        assert!(out.warnings()[0].message.contains("zstd"));
        let named = Rewriter::new().run(
            Input::bytes(&zstd).named("crawl.warc.zst"),
            Output::Nowhere,
            &mut |_| Ok(()),
        );
        assert!(matches!(named, Err(Error::CompressedArchive("zstd"))));
    }
}
