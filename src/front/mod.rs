//! The front door: one call, [`Rewriter::run`], that takes any input (a
//! path, an open file, a reader, bytes), tells what it is (archive format,
//! compression, kind: the only place that decides), reads it as a stream,
//! writes the output to a writer the caller gives (or nowhere, to list),
//! and reports as it goes, one [`Event`] at a time. The command line, the
//! Python package and the Spark job all come in here.

pub(crate) mod documents;
mod events;
mod input;
mod run;

#[cfg(test)]
mod tests;

use std::fs::File;
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::AtomicU64;

use crate::base::Layer;
use crate::kind::Kind;
use crate::links::{LinkRow, RecordName, Warning};
#[cfg(doc)]
use crate::rewriter::Rewriter;

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
    pub(super) source: Source<'a>,
    pub(super) name: Option<PathBuf>,
    pub(super) kind: Option<Kind>,
    pub(super) retrieved_from: Option<String>,
    pub(super) resource_base: Option<String>,
    pub(super) counter: Option<Arc<AtomicU64>>,
}

/// Where an input's bytes come from.
pub(super) enum Source<'a> {
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
    /// The layers of the base of each of its documents, innermost first,
    /// under a label naming the document (`document`, `part 1.2
    /// (text/html)`, `record 4 URI (text/html)`); a web archive record
    /// whose HTTP head has links has them even without a document.
    pub layers: &'e [(String, Vec<Layer>)],
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
    /// How many messages an mbox holds.
    pub messages: usize,
    /// How many records a web archive (every WARC of a WACZ) holds.
    pub records: usize,
}

/// The handler of a run's events (see the example of [`Event`]): an
/// error it returns on [`Event::Start`] stops the run before anything is
/// written; a later one is returned when the run ends.
pub type Handler<'h> = &'h mut (dyn FnMut(Event<'_>) -> io::Result<()> + Send);
