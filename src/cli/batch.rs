//! Running relink over many inputs: directories expanded, each file of a
//! site mirror given its own retrieval URL, every input rewritten and
//! written safely, and a report of what happened to each.

use std::io::{self, BufRead, Read, Write};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

mod walk;
mod write;

pub use walk::expand;
pub use write::write_atomically;
use write::{
    Backup, Durability, Replace, Target, enter_dir, finish, keep_backup, open_locked,
    output_target, resolve_target,
};

use relink::kind::{self, Kind};
use relink::{
    Base, BaseSource, BaseUrl, Details, DocumentReport, Engine, ExtraAttribute, Layer, LinkRow,
    MboxFormat, Options, Rules, Warning, WarningKind, compressed, maildir, warc,
};
use std::fs::Metadata;

/// How many bytes are read to tell what a file is (an mbox's first message
/// is measured against its Content-Length).
pub const HEAD_BYTES: usize = 1 << 20;

/// Where an input comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    /// Standard input.
    Stdin,
    /// A file.
    File(PathBuf),
}

/// One input to rewrite.
#[derive(Debug, Clone)]
pub struct Job {
    /// Where it comes from.
    pub source: Source,
    /// How messages name it.
    pub name: String,
    /// Its path below the directory argument it was found under (its file
    /// name for a file argument): where `-o DIR` puts it.
    pub relative: PathBuf,
    /// The URL it was retrieved from, if known.
    pub retrieved_from: Option<String>,
    /// What the input is to relink.
    pub role: Role,
}

/// What an input is to relink.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// A document, its kind told by its content.
    Document,
    /// A message file of a Maildir (its `,S=` size follows the content).
    MaildirMessage,
    /// A file found in a directory that relink does not read (an image, a
    /// script): copied as it is under `-o DIR`, so the tree stays whole.
    CopyOnly,
    /// A symbolic link found in a directory: made again under `-o DIR`,
    /// else left as it is (never followed, never replaced by a file).
    Link,
    /// A device node, FIFO or socket found in a directory: never read;
    /// under `-o DIR` an error, as it cannot be copied.
    Special,
}

impl Role {
    /// Whether relink reads the input (a document or a message).
    pub fn is_document(self) -> bool {
        matches!(self, Role::Document | Role::MaildirMessage)
    }
}

/// The retrieval URL of a file at `relative` below a mirror whose root was
/// retrieved from `prefix`: the prefix, a `/`, then each path segment with
/// the bytes a URL cannot hold percent-encoded.
pub fn mirror_url(prefix: &str, relative: &Path) -> String {
    let mut url = prefix.trim_end_matches('/').to_owned();
    for segment in relative.components() {
        url.push('/');
        let bytes = segment.as_os_str().as_encoded_bytes();
        for &b in bytes {
            let keep = b.is_ascii_alphanumeric() || b"-._~!$&'()*+,;=:@".contains(&b);
            if keep {
                url.push(b as char);
            } else {
                url.push_str(&format!("%{b:02X}"));
            }
        }
    }
    url
}

/// Where the rewritten inputs go.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Destination {
    /// The writer handed to [`process`] (standard output).
    Writer,
    /// This file.
    File(PathBuf),
    /// Under this directory, at each input's relative path.
    Dir(PathBuf),
    /// Over each input, keeping the original with this suffix if given.
    InPlace {
        /// The backup suffix.
        backup: Option<String>,
    },
    /// Nowhere: a dry run, a list, a diff or an explanation.
    Nowhere,
}

/// How to run.
#[derive(Debug, Clone)]
pub struct Settings {
    /// The rule set.
    pub rules: Rules,
    /// A base forced above every layer (`--base`).
    pub forced: Option<Base>,
    /// The base of embedded resources (`--resource-base`).
    pub resource_base: Option<Base>,
    /// Leave `#name` links as they are.
    pub keep_fragment_links: bool,
    /// The transport encoding (`--encoding`).
    pub transport: Option<&'static encoding_rs::Encoding>,
    /// The mbox variant, if given.
    pub mbox_format: Option<MboxFormat>,
    /// The kind of every document, instead of telling it by name and
    /// content (`--type`).
    pub kind: Option<Kind>,
    /// Further attributes holding URLs on every HTML element (`--attr`).
    pub extra_attributes: Vec<ExtraAttribute>,
    /// Where output goes.
    pub destination: Destination,
    /// Produce a unified diff of each change.
    pub diff: bool,
    /// Read every link and hand it to the rows sink of [`process`] (for
    /// `--list`, `--check` and `--compare-rules`); else only count links.
    pub links: bool,
    /// Keep each document's or part's base layers in the report (for
    /// `explain`); else drop them as each record or message is done, so
    /// memory stays bounded on large archives.
    pub layers: bool,
    /// Where to count the bytes read from the inputs as they are read, for
    /// a progress bar that moves through one large archive too.
    pub bytes_read: Option<Arc<AtomicU64>>,
    /// Whether the writer of [`Destination::Writer`] is a terminal: a
    /// compressed archive is then not written to it (see
    /// [`refuses_terminal`]).
    pub writer_is_terminal: bool,
}

/// Whether an input of `kind` starting with `head` would be written to a
/// terminal as compressed bytes (a gzipped or zstd WARC, a gzipped
/// document, a WACZ package, each written back compressed), which relink
/// refuses as gzip does: they would only garble the terminal.
pub fn refuses_terminal(kind: Kind, head: &[u8], writer_is_terminal: bool) -> bool {
    const GZIP: &[u8] = &[0x1f, 0x8b];
    const ZSTD: &[u8] = &[0x28, 0xb5, 0x2f, 0xfd];
    writer_is_terminal && (kind == Kind::Wacz || head.starts_with(GZIP) || head.starts_with(ZSTD))
}

/// What happened to one input.
#[derive(Debug, Default)]
pub struct Report {
    /// The input's name.
    pub name: String,
    /// Its kind, once known.
    pub kind: Option<Kind>,
    /// How many links were rewritten.
    pub rewritten: usize,
    /// Warnings, each naming where.
    pub warnings: Vec<Warning>,
    /// Whether the content changed.
    pub changed: bool,
    /// Whether the changed content was written to the destination (never
    /// for [`Destination::Nowhere`]: a dry run, a diff or a list only say
    /// what would change).
    pub written: bool,
    /// How many of its documents (an HTML or CSS file, or the HTML and CSS
    /// parts and payloads of an archive) had no base, so kept their links.
    pub no_base: usize,
    /// The error that stopped this input, if any (nothing was written).
    pub error: Option<String>,
    /// A unified diff, when asked for.
    pub diff: Option<String>,
    /// Each document or part and the layers of its base, when
    /// [`Settings::layers`] asks for them.
    pub layers: Vec<(String, Vec<Layer>)>,
}

impl Report {
    /// Takes in what the library reported of a document, or of an
    /// archive's messages or records, once its rows are handed on.
    fn absorb_document(&mut self, document: DocumentReport) {
        debug_assert!(document.rows.is_empty(), "rows are handed on, not kept");
        self.rewritten += document.rewritten;
        self.no_base += document.without_base;
        self.warnings.extend(document.warnings);
        self.layers.extend(document.layers);
    }
}

/// Where the link rows of an input go, a few at a time, in input order:
/// the rows of a document, record or message are never held whole.
pub type Rows<'a> = &'a (dyn Fn(&[LinkRow]) -> io::Result<()> + Sync);

/// How many rows are gathered before they are handed on together.
const ROWS_AT_ONCE: usize = 256;

/// Takes the rows of an input as the library finds them and hands them on
/// a few at a time, keeping the first error (standard output closed) for
/// the end of the input.
struct RowSink<'a> {
    to: Rows<'a>,
    state: std::sync::Mutex<Gathered>,
}

/// The rows gathered, and the first error.
#[derive(Default)]
struct Gathered {
    rows: Vec<LinkRow>,
    error: Option<io::Error>,
}

impl RowSink<'_> {
    fn state(&self) -> std::sync::MutexGuard<'_, Gathered> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Hands on the rows gathered.
    fn flush(&self) {
        let mut state = self.state();
        let state = &mut *state;
        if !state.rows.is_empty()
            && state.error.is_none()
            && let Err(err) = (self.to)(&state.rows)
        {
            state.error = Some(err);
        }
        state.rows.clear();
    }

    /// Hands on the rows gathered, then those `document` holds (when it
    /// was read with no sink), and clears them.
    fn send(&self, document: &mut DocumentReport) {
        self.flush();
        let mut state = self.state();
        if !document.rows.is_empty()
            && state.error.is_none()
            && let Err(err) = (self.to)(&document.rows)
        {
            state.error = Some(err);
        }
        document.rows.clear();
    }
}

impl relink::LinkSink for RowSink<'_> {
    fn row(&self, row: LinkRow) {
        let mut state = self.state();
        state.rows.push(row);
        if state.rows.len() >= ROWS_AT_ONCE {
            drop(state);
            self.flush();
        }
    }
}

/// Where the output of an input goes: standard output (when it is the
/// destination), and the rows sink.
struct Out<'a> {
    writer: &'a mut dyn Write,
    rows: &'a RowSink<'a>,
}

/// Rewrites one input as `settings` say; standard output (when it is the
/// destination) goes to `out`, and the link rows (when
/// [`Settings::links`] asks for them) to `rows` as each document, record
/// or message is done. An error is in the report; only a broken `out`, or
/// an error of `rows`, is returned as an error.
pub fn process(
    job: &Job,
    settings: &Settings,
    out: &mut dyn Write,
    rows: Rows<'_>,
) -> io::Result<Report> {
    let mut report = Report {
        name: job.name.clone(),
        ..Report::default()
    };
    let sink = RowSink {
        to: rows,
        state: std::sync::Mutex::default(),
    };
    let mut out = Out {
        writer: out,
        rows: &sink,
    };
    let result = run(job, settings, &mut out, &mut report);
    sink.flush();
    if let Some(err) = sink.state().error.take() {
        return Err(err);
    }
    match result {
        Ok(()) => {}
        Err(err) if err.kind() == io::ErrorKind::BrokenPipe => return Err(err),
        Err(err) => report.error = Some(format!("{}: {err}", job.name)),
    }
    Ok(report)
}

/// Where an input is read from, and, for an in-place rewrite, the file
/// that is rewritten (a symbolic link named on the command line leads to
/// it) with its metadata.
struct Opened {
    reader: Box<dyn Read>,
    /// The file itself (links followed) and its metadata, for a file.
    file: Option<(PathBuf, Metadata)>,
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

/// Opens the input, its reads counted in [`Settings::bytes_read`].
fn open_input(job: &Job, settings: &Settings) -> io::Result<Opened> {
    let opened = open_uncounted(job, settings)?;
    Ok(match &settings.bytes_read {
        Some(count) => Opened {
            reader: Box::new(Counting {
                inner: opened.reader,
                count: Arc::clone(count),
            }),
            file: opened.file,
        },
        None => opened,
    })
}

fn open_uncounted(job: &Job, settings: &Settings) -> io::Result<Opened> {
    let path = match &job.source {
        Source::Stdin => {
            return Ok(Opened {
                reader: Box::new(io::stdin().lock()),
                file: None,
            });
        }
        Source::File(path) => path,
    };
    let cannot = |e: io::Error| io::Error::new(e.kind(), format!("cannot read: {e}"));
    if let Destination::InPlace { .. } = settings.destination {
        let real = std::fs::canonicalize(path).map_err(cannot)?;
        // Checked before opening: opening a FIFO would wait for a writer.
        if !std::fs::metadata(&real).map_err(cannot)?.is_file() {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "not a regular file: cannot rewrite it in place",
            ));
        }
        enter_dir(real.parent().unwrap_or(Path::new("/")));
        let (file, meta) = open_locked(&real).map_err(cannot)?;
        return Ok(Opened {
            reader: Box::new(file),
            file: Some((real, meta)),
        });
    }
    let file = std::fs::File::open(path).map_err(cannot)?;
    let meta = file.metadata()?;
    Ok(Opened {
        reader: Box::new(file),
        file: Some((path.clone(), meta)),
    })
}

/// The path an input at `relative` gets under the output directory.
fn under(dir: &Path, job: &Job) -> PathBuf {
    dir.join(&job.relative)
}

fn run(job: &Job, settings: &Settings, out: &mut Out<'_>, report: &mut Report) -> io::Result<()> {
    if let Some(done) = copy_entry(job, settings) {
        return done;
    }
    let retrieved = match &job.retrieved_from {
        Some(url) => Some(
            BaseUrl::parse(url, settings.rules)
                .map(|u| Base::new(u, BaseSource::RetrievedFrom))
                .map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, e))?,
        ),
        None => None,
    };
    let options = Options::default()
        .rules(settings.rules)
        .forced(settings.forced.as_ref())
        .outer(retrieved.as_ref())
        .resource_base(settings.resource_base.as_ref())
        .transport(settings.transport)
        .keep_fragment_links(settings.keep_fragment_links)
        .extra_attributes(&settings.extra_attributes)
        .details(if settings.links {
            Details::Links
        } else {
            Details::Counts
        })
        .rows(settings.links.then_some(out.rows as &dyn relink::LinkSink));
    let Opened { mut reader, file } = open_input(job, settings)?;
    let size = file
        .as_ref()
        .map_or(0, |(_, meta)| usize::try_from(meta.len()).unwrap_or(0));
    let mut head = Vec::with_capacity(size.clamp(8192, HEAD_BYTES) + 1);
    (&mut reader)
        .take(HEAD_BYTES as u64)
        .read_to_end(&mut head)?;
    let kind = kind_of(job, settings, &head);
    report.kind = Some(kind);
    if settings.destination == Destination::Writer
        && refuses_terminal(kind, &head, settings.writer_is_terminal)
    {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "compressed output is not written to a terminal: give -o FILE, or redirect standard output",
        ));
    }
    if kind != Kind::Warc && warc::looks_like_warc(&head) {
        // Told to read it as something else: an archive is never a document.
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            "a web archive (WARC or ARC) is read as one (--type warc), never as a document",
        ));
    }
    if kind == Kind::Wacz {
        return run_wacz(job, settings, &options, (head, reader, file), out, report);
    }
    if kind != Kind::Warc
        && let Some(compression) = compressed::compression_of(&head)
    {
        return run_compressed(
            job,
            settings,
            &options,
            (kind, compression),
            (head, reader, file),
            out,
            report,
        );
    }
    if matches!(kind, Kind::Mbox | Kind::Warc) {
        let format = settings
            .mbox_format
            .unwrap_or_else(|| MboxFormat::detect(&head));
        let reader = io::BufReader::new(io::Cursor::new(head).chain(reader));
        let input = Stream { reader, file };
        return if kind == Kind::Warc {
            run_warc(job, settings, &options, input, out, report)
        } else {
            run_mbox(job, settings, &options, (input, format), None, out, report)
        };
    }
    let mut input = head;
    // Room for the whole file at once: no regrowth, no copies.
    input.reserve(size.saturating_sub(input.len()) + 1);
    reader.read_to_end(&mut input)?;
    let output = rewrite_in_memory(kind, &input, &options, out, report)?;
    let rewritten = Rewritten {
        document: &input,
        new: output.as_deref(),
        bytes: output.as_deref(),
    };
    finish_document(
        job,
        settings,
        (&input, rewritten, file.as_ref()),
        out,
        report,
    )
}

/// A document rewritten in memory: the document as read and as rewritten
/// (for the diff), and the bytes to write when it changed (the new
/// document, compressed again if it was compressed).
struct Rewritten<'a> {
    document: &'a [u8],
    new: Option<&'a [u8]>,
    bytes: Option<&'a [u8]>,
}

/// Reports and writes a document rewritten in memory; `input` is the file's
/// bytes as read.
fn finish_document(
    job: &Job,
    settings: &Settings,
    (input, rewritten, file): (&[u8], Rewritten<'_>, Option<&(PathBuf, Metadata)>),
    out: &mut Out<'_>,
    report: &mut Report,
) -> io::Result<()> {
    report.changed = rewritten.bytes.is_some();
    if settings.diff
        && let Some(new) = rewritten.new
    {
        report.diff = Some(unified_diff(&job.name, rewritten.document, new));
    }
    let document = Document {
        bytes: rewritten.bytes.unwrap_or(input),
        changed: rewritten.bytes.is_some(),
        file,
    };
    write_document(job, settings, document, out.writer, report)?;
    if !matches!(
        settings.destination,
        Destination::Nowhere | Destination::InPlace { .. }
    ) {
        report.written = report.changed;
    }
    Ok(())
}

/// What is done with an entry relink does not read (a file copied as it
/// is, a link made again, a device refused), or `None` for a document.
fn copy_entry(job: &Job, settings: &Settings) -> Option<io::Result<()>> {
    let done = match (job.role, &settings.destination, &job.source) {
        (Role::CopyOnly, Destination::Dir(dir), Source::File(path)) => {
            let target = under(dir, job);
            create_parent(&target).and_then(|()| write::copy_file(path, &target, Durability::Lazy))
        }
        (Role::Link, Destination::Dir(dir), Source::File(path)) => {
            let target = under(dir, job);
            create_parent(&target).and_then(|()| write::copy_link(path, &target))
        }
        (Role::Special, Destination::Dir(_), _) => Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "not a regular file, directory or symbolic link: not copied",
        )),
        (Role::CopyOnly | Role::Link | Role::Special, _, _) => Ok(()),
        (Role::Document | Role::MaildirMessage, _, _) => return None,
    };
    Some(done)
}

/// The input of a job: its first bytes, the rest, and the file.
type Input = (Vec<u8>, Box<dyn Read>, Option<(PathBuf, Metadata)>);

/// A compressed document. gzip is undone, the document rewritten as its
/// kind, and gzip done again with the file's header (an mbox streamed
/// through both); a compression relink does not read leaves the file as it
/// is, with a warning.
fn run_compressed(
    job: &Job,
    settings: &Settings,
    options: &Options<'_>,
    (kind, compression): (Kind, compressed::Compression),
    (head, reader, file): Input,
    out: &mut Out<'_>,
    report: &mut Report,
) -> io::Result<()> {
    let mut input = head;
    let name = job.name.to_ascii_lowercase();
    if compression != compressed::Compression::Gzip
        && (name.contains(".warc") || name.contains(".arc"))
    {
        // An archive relink cannot look into is refused, never passed over.
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!(
                "a web archive compressed with {}, which relink does not read: decompress it first",
                compression.name()
            ),
        ));
    }
    if compression != compressed::Compression::Gzip {
        report.warnings.push(Warning::new(
            WarningKind::UnknownEncoding,
            format_args!(
                "compressed with {}, which relink does not read; left as it is",
                compression.name()
            ),
        ));
        let mut reader = reader;
        reader.read_to_end(&mut input)?;
        let document = Document {
            bytes: &input,
            changed: false,
            file: file.as_ref(),
        };
        return write_document(job, settings, document, out.writer, report);
    }
    let header = compressed::Header::read(&input);
    if kind == Kind::Mbox {
        let decoder = flate2::read::MultiGzDecoder::new(io::Cursor::new(input).chain(reader));
        let mut inner = io::BufReader::new(decoder);
        let format = match settings.mbox_format {
            Some(format) => format,
            None => MboxFormat::detect(inner.fill_buf()?),
        };
        let stream = Stream {
            reader: inner,
            file,
        };
        return run_mbox(
            job,
            settings,
            options,
            (stream, format),
            Some(&header),
            out,
            report,
        );
    }
    let mut reader = reader;
    reader.read_to_end(&mut input)?;
    let gunzipped = compressed::gunzip(&input, compressed::MAX_DECOMPRESSED_BYTES)
        .map_err(|e| io::Error::new(io::ErrorKind::InvalidData, format!("gzip: {e}")))?;
    let document = &gunzipped.bytes[..];
    if warc::looks_like_warc(document) || compressed::compression_of(document).is_some() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            "gzip around an archive or another compression: not read as a document",
        ));
    }
    let output = rewrite_in_memory(kind, document, options, out, report)?;
    let zipped = output
        .as_deref()
        .map(|new| gunzipped.gzip_again(new))
        .transpose()?;
    let rewritten = Rewritten {
        document,
        new: output.as_deref(),
        bytes: zipped.as_deref(),
    };
    finish_document(
        job,
        settings,
        (&input, rewritten, file.as_ref()),
        out,
        report,
    )
}

/// Rewrites (or lists) a WACZ package: every WARC inside it, its indexes
/// and digests made right. The package is read from the file itself (a
/// zip is read from its end); standard input is held in memory.
fn run_wacz(
    job: &Job,
    settings: &Settings,
    options: &Options<'_>,
    (head, reader, file): Input,
    out: &mut Out<'_>,
    report: &mut Report,
) -> io::Result<()> {
    let mut reader = reader;
    let input: Box<dyn SeekRead> = match &file {
        Some((path, _)) => Box::new(std::fs::File::open(path)?),
        None => {
            let mut bytes = head;
            reader.read_to_end(&mut bytes)?;
            Box::new(io::Cursor::new(bytes))
        }
    };
    let options = warc::WarcOptions {
        document: *options,
        ..warc::WarcOptions::new(&Engine)
    };
    let mut rows = DocumentReport::default();
    let mut collect = |entry: &str, mut record: warc::RecordReport| {
        // The package's summary holds every warning, each naming its entry.
        record.warnings.clear();
        let labels = rows.layers.len();
        rows.add_record(record);
        out.rows.send(&mut rows);
        if !settings.layers {
            rows.layers.clear();
        } else if let Some(label) = rows.layers.get_mut(labels) {
            label.0 = format!("{entry} {}", label.0);
        }
    };
    let failed = |e: warc::wacz::WaczError| io::Error::new(io::ErrorKind::InvalidData, e);
    let mut warnings = Vec::new();
    let mut input = Some(input);
    let changed = stream_to_destination(job, settings, file, out.writer, report, &mut |writer| {
        let input = input.take().ok_or_else(|| io::Error::other("read twice"))?;
        if settings.destination == Destination::Nowhere && !settings.diff {
            let summary = warc::wacz::inspect(input, &options, &mut collect).map_err(failed)?;
            let changed = summary.changed() > 0;
            warnings = summary.warnings;
            return Ok(changed);
        }
        // A zip is written with seeks: into a temporary file, then copied.
        let mut temp = tempfile::tempfile()?;
        let summary =
            warc::wacz::rewrite_with(input, &mut temp, &options, &mut collect).map_err(failed)?;
        io::Seek::seek(&mut temp, io::SeekFrom::Start(0))?;
        io::copy(&mut temp, writer)?;
        let changed = !summary.unchanged();
        warnings = summary.warnings;
        Ok(changed)
    })?;
    rows.warnings = warnings;
    report.absorb_document(rows);
    report.changed = changed;
    report.written = changed && settings.destination != Destination::Nowhere;
    Ok(())
}

/// A reader that seeks (a zip is read from its end).
trait SeekRead: Read + io::Seek {}
impl<T: Read + io::Seek> SeekRead for T {}

/// The kind of an input: a Maildir's messages are messages; else `--type`,
/// else the name and the first bytes.
fn kind_of(job: &Job, settings: &Settings, head: &[u8]) -> Kind {
    if job.role == Role::MaildirMessage {
        Kind::Message
    } else if let Some(kind) = settings.kind {
        kind
    } else {
        match &job.source {
            Source::File(path) => kind::detect_file(path, head),
            Source::Stdin => kind::sniff(head).unwrap_or(Kind::Html),
        }
    }
}

/// Rewrites a document held in memory (HTML, CSS, a message), reporting its
/// links, warnings and layers; its new bytes, if any changed.
fn rewrite_in_memory(
    kind: Kind,
    input: &[u8],
    options: &Options<'_>,
    out: &mut Out<'_>,
    report: &mut Report,
) -> io::Result<Option<Vec<u8>>> {
    let mut document = relink::rewrite_document(kind, input, options)
        .map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e))?;
    let output = document.output.take();
    out.rows.send(&mut document);
    report.absorb_document(document);
    Ok(output)
}

/// A rewritten document on its way out.
struct Document<'a> {
    bytes: &'a [u8],
    changed: bool,
    /// The file it was read from, and its metadata.
    file: Option<&'a (PathBuf, Metadata)>,
}

/// Writes a document where the settings say.
fn write_document(
    job: &Job,
    settings: &Settings,
    document: Document<'_>,
    out: &mut dyn Write,
    report: &mut Report,
) -> io::Result<()> {
    let bytes = document.bytes;
    // A Maildir message's `,S=` size follows its new length.
    let target = |path: &Path| -> PathBuf {
        if job.role == Role::MaildirMessage {
            let name = path.file_name().unwrap_or_default().to_string_lossy();
            path.with_file_name(maildir::sized_name(&name, bytes.len()))
        } else {
            path.to_path_buf()
        }
    };
    let like = document.file.map(|(_, meta)| meta);
    match &settings.destination {
        Destination::Writer => out.write_all(bytes).and_then(|()| out.flush())?,
        Destination::File(path) => match output_target(path)? {
            Target::Replace(path) => write_atomically(&path, bytes, like)?,
            Target::Into(device) => write::open_into(&device)?.write_all(bytes)?,
        },
        Destination::Dir(dir) => {
            let path = target(&under(dir, job));
            create_parent(&path)?;
            write_atomically(&resolve_target(&path)?, bytes, like)?;
        }
        Destination::InPlace { backup } => {
            if let (true, Some((path, meta))) = (document.changed, document.file) {
                warn_hard_links(meta, report);
                if let Some(suffix) = backup {
                    backed_up(keep_backup(path, suffix)?, path, suffix, report);
                }
                replace_in_place(path, &target(path), (bytes, meta), report)?;
            }
        }
        Destination::Nowhere => {}
    }
    Ok(())
}

/// Writes `bytes` over `path`, or, for a Maildir message whose size is in
/// its name, under `new_path` and then removes the old name.
fn replace_in_place(
    path: &Path,
    new_path: &Path,
    (bytes, meta): (&[u8], &Metadata),
    report: &mut Report,
) -> io::Result<()> {
    let mut temp = write::temp_file_beside(new_path)?;
    temp.write_all(bytes)?;
    if new_path == path {
        finish(temp, path, Some(meta), (Replace::Over, Durability::Flushed))?;
        report.written = true;
        return Ok(());
    }
    finish(
        temp,
        new_path,
        Some(meta),
        (Replace::Never, Durability::Flushed),
    )?;
    report.written = true;
    std::fs::remove_file(path).map_err(|e| {
        let (old, new) = (path.display(), new_path.display());
        let message = if e.kind() == io::ErrorKind::NotFound {
            // A mail program moved it meanwhile: it may now be there twice,
            // moved and rewritten.
            format!("{old} was moved while being rewritten: the rewritten message is {new}, the moved one may be its duplicate")
        } else {
            format!("the message is now both {old} and {new}: cannot remove the old name: {e}")
        };
        io::Error::new(e.kind(), message)
    })
}

/// Creates the directories above `path`. The directory made last is
/// remembered, so that the files of one directory cost one `mkdir`, not
/// one each.
fn create_parent(path: &Path) -> io::Result<()> {
    thread_local! {
        static MADE: std::cell::RefCell<PathBuf> = std::cell::RefCell::default();
    }
    match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => MADE.with(|made| {
            if *made.borrow() == parent {
                return Ok(());
            }
            std::fs::create_dir_all(parent)?;
            parent.clone_into(&mut made.borrow_mut());
            Ok(())
        }),
        _ => Ok(()),
    }
}

/// Warns that a file rewritten in place has other names, which keep the
/// old content (the new file replaces this name only).
fn warn_hard_links(meta: &Metadata, report: &mut Report) {
    if meta.nlink() > 1 {
        report.warnings.push(Warning::new(
            WarningKind::HardLinks,
            format_args!(
                "has {} hard links: only this name gets the new content",
                meta.nlink()
            ),
        ));
    }
}

/// Warns when an existing backup was kept instead of the content replaced.
fn backed_up(backup: Backup, path: &Path, suffix: &str, report: &mut Report) {
    if backup == Backup::Kept {
        let mut name = path.file_name().unwrap_or_default().to_owned();
        name.push(suffix);
        report.warnings.push(Warning::new(
            WarningKind::BackupKept,
            format_args!(
                "backup {} already exists: kept as it is (it holds an earlier original), so the content replaced now has no backup",
                name.to_string_lossy()
            ),
        ));
    }
}

/// An archive read as a stream (an mbox or a WARC): where it comes from,
/// and the file it is.
struct Stream<R> {
    reader: R,
    file: Option<(PathBuf, Metadata)>,
}

/// Writes an archive to the destination as `write` streams it there (the
/// rewrite tells whether anything changed); an unchanged archive is not
/// written in place.
fn stream_to_destination(
    job: &Job,
    settings: &Settings,
    file: Option<(PathBuf, Metadata)>,
    out: &mut dyn Write,
    report: &mut Report,
    write: &mut dyn FnMut(&mut dyn Write) -> io::Result<bool>,
) -> io::Result<bool> {
    let destination = &settings.destination;
    match destination {
        Destination::Writer => {
            let mut writer = io::BufWriter::new(out);
            let changed = write(&mut writer)?;
            writer.flush()?;
            return Ok(changed);
        }
        Destination::Nowhere => return write(&mut io::sink()),
        Destination::File(path) => {
            if let Target::Into(device) = output_target(path)? {
                let mut writer = io::BufWriter::new(write::open_into(&device)?);
                let changed = write(&mut writer)?;
                writer.flush()?;
                return Ok(changed);
            }
        }
        _ => {}
    }
    let in_place = matches!(destination, Destination::InPlace { .. });
    let like = file.as_ref().map(|(_, meta)| meta);
    let path = match (destination, &file) {
        (Destination::File(path), _) => resolve_target(path)?,
        (Destination::Dir(dir), _) => {
            let path = under(dir, job);
            create_parent(&path)?;
            resolve_target(&path)?
        }
        (_, Some((path, _))) => path.clone(),
        (_, None) => return Err(io::Error::other("cannot rewrite standard input in place")),
    };
    let mut temp = write::temp_file_beside(&path)?;
    let mut writer = io::BufWriter::new(temp.as_file_mut());
    let changed = write(&mut writer)?;
    writer.flush()?;
    drop(writer);
    if changed || !in_place {
        if let Destination::InPlace {
            backup: Some(suffix),
        } = destination
        {
            backed_up(keep_backup(&path, suffix)?, &path, suffix, report);
        }
        if in_place && let Some(meta) = like {
            warn_hard_links(meta, report);
        }
        let durability = if in_place {
            Durability::Flushed
        } else {
            Durability::Lazy
        };
        finish(temp, &path, like, (Replace::Over, durability))?;
    }
    Ok(changed)
}

fn run_mbox(
    job: &Job,
    settings: &Settings,
    options: &Options<'_>,
    (input, format): (Stream<impl BufRead>, MboxFormat),
    gzip: Option<&compressed::Header>,
    out: &mut Out<'_>,
    report: &mut Report,
) -> io::Result<()> {
    let Stream {
        reader: input,
        file,
    } = input;
    let mut diff = String::new();
    let mut rows = DocumentReport::default();
    let mut collect = |message: &relink::ArchiveMessage, original: &[u8]| {
        let n = message.number;
        rows.add_message(Some(n), &message.outcome);
        out.rows.send(&mut rows);
        if !settings.layers {
            rows.layers.clear();
        }
        if settings.diff
            && let Some(new) = &message.outcome.output
        {
            diff.push_str(&unified_diff(
                &format!("{} (message {n})", job.name),
                original,
                new,
            ));
        }
    };
    let mut input = Some(input);
    let changed = stream_to_destination(job, settings, file, out.writer, report, &mut |writer| {
        let input = input.take().ok_or_else(|| io::Error::other("read twice"))?;
        let Some(header) = gzip else {
            return relink::rewrite_mbox(input, format, writer, options, &mut collect);
        };
        // A gzipped mbox comes back gzipped, with its header.
        let mut encoder = header.encoder(writer);
        let changed = relink::rewrite_mbox(input, format, &mut encoder, options, &mut collect)?;
        encoder.finish()?;
        Ok(changed)
    })?;
    report.absorb_document(rows);
    report.changed = changed;
    report.written = changed && settings.destination != Destination::Nowhere;
    if !diff.is_empty() {
        report.diff = Some(diff);
    }
    Ok(())
}

/// Rewrites (or lists) a WARC, record by record.
fn run_warc(
    job: &Job,
    settings: &Settings,
    options: &Options<'_>,
    input: Stream<impl BufRead>,
    out: &mut Out<'_>,
    report: &mut Report,
) -> io::Result<()> {
    let Stream {
        reader: input,
        file,
    } = input;
    let options = warc::WarcOptions {
        document: *options,
        ..warc::WarcOptions::new(&Engine)
    };
    let mut rows = DocumentReport::default();
    let mut collect = |mut record: warc::RecordReport| {
        // The summary holds every warning, those of bytes outside records
        // too, in file order.
        record.warnings.clear();
        rows.add_record(record);
        out.rows.send(&mut rows);
        if !settings.layers {
            rows.layers.clear();
        }
    };
    let mut warnings = Vec::new();
    let mut input = Some(input);
    let changed = stream_to_destination(job, settings, file, out.writer, report, &mut |writer| {
        let input = input.take().ok_or_else(|| io::Error::other("read twice"))?;
        let summary = if settings.destination == Destination::Nowhere && !settings.diff {
            warc::inspect(input, &options, &mut collect)
        } else {
            warc::rewrite_with(input, writer, &options, &mut collect)
        };
        let summary = summary.map_err(|e| match e {
            // A closed standard output stays one, so the run ends quietly.
            warc::WarcError::Io(e) if e.kind() == io::ErrorKind::BrokenPipe => e,
            e => io::Error::new(io::ErrorKind::InvalidData, e),
        })?;
        warnings = summary.warnings;
        Ok(summary.changed > 0)
    })?;
    rows.warnings = warnings;
    report.absorb_document(rows);
    report.changed = changed;
    report.written = changed && settings.destination != Destination::Nowhere;
    Ok(())
}

/// A unified diff of a change, lossy for bytes that are not UTF-8.
pub fn unified_diff(name: &str, old: &[u8], new: &[u8]) -> String {
    let (old, new) = (String::from_utf8_lossy(old), String::from_utf8_lossy(new));
    similar::TextDiff::from_lines(old.as_ref(), new.as_ref())
        .unified_diff()
        .header(&format!("a/{name}"), &format!("b/{name}"))
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_are_counted_for_progress() {
        use std::sync::Arc;
        use std::sync::atomic::{AtomicU64, Ordering};
        let archive =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/mail/archive.mboxrd");
        let count = Arc::new(AtomicU64::new(0));
        let settings = Settings {
            rules: relink::Rules::Rfc1808,
            forced: None,
            resource_base: None,
            keep_fragment_links: false,
            transport: None,
            mbox_format: None,
            kind: None,
            extra_attributes: Vec::new(),
            destination: Destination::Nowhere,
            diff: false,
            links: false,
            layers: false,
            bytes_read: Some(Arc::clone(&count)),
            writer_is_terminal: false,
        };
        let (jobs, errors) = expand(std::slice::from_ref(&archive), Some("http://h/"), None);
        assert!(errors.is_empty());
        let report = process(&jobs[0], &settings, &mut std::io::sink(), &|_| Ok(())).unwrap();
        assert!(report.error.is_none(), "{:?}", report.error);
        let size = std::fs::metadata(&archive).unwrap().len();
        assert_eq!(count.load(Ordering::Relaxed), size);
    }

    #[test]
    fn compressed_output_is_not_written_to_a_terminal() {
        let gzip = [0x1f, 0x8b, 8, 0];
        let zstd = [0x28, 0xb5, 0x2f, 0xfd, 0];
        assert!(refuses_terminal(Kind::Warc, &gzip, true));
        assert!(refuses_terminal(Kind::Warc, &zstd, true));
        // Not to a terminal, or not compressed: written.
        assert!(!refuses_terminal(Kind::Warc, &gzip, false));
        assert!(!refuses_terminal(Kind::Warc, b"WARC/1.1\r\n", true));
        assert!(refuses_terminal(Kind::Html, &gzip, true));
        assert!(refuses_terminal(Kind::Wacz, b"PK\x03\x04", true));
        assert!(!refuses_terminal(Kind::Html, b"<p>", true));
        assert!(!refuses_terminal(Kind::Mbox, b"From a@b", true));
    }

    #[test]
    fn mirror_urls_percent_encode_what_urls_cannot_hold() {
        let p = Path::new;
        assert_eq!(
            mirror_url("https://e.com/docs/", p("a/b.html")),
            "https://e.com/docs/a/b.html"
        );
        assert_eq!(
            mirror_url("https://e.com/docs", p("a b/c#d%.html")),
            "https://e.com/docs/a%20b/c%23d%25.html"
        );
        assert_eq!(
            mirror_url("https://e.com/", p("caf\u{e9}.html")),
            "https://e.com/caf%C3%A9.html"
        );
    }
}
