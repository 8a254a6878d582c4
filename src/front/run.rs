//! One run: the input told, read as what it is, written, reported.

use std::io::{self, BufRead, BufReader, Read, Seek, Write};
use std::path::Path;

use flate2::read::MultiGzDecoder;

use super::documents::{Engine, rewrite_in_memory};
use super::events::*;
use super::input::*;
use super::{Done, Event, Handler, Input, Output, Report, Unit};
use crate::base::{Base, BaseSource};
use crate::compressed::{self, Compression};
use crate::epub::{self, EntryDone};
use crate::error::Error;
use crate::kind::Kind;
use crate::links::UnitReport;
use crate::links::{LinkSink, Warning, WarningKind};
use crate::local::{Mirror, MirrorDocument, SavedFolders};
use crate::mime::mbox::{self, ArchiveMessage, MboxFormat};
use crate::options::Options;
use crate::options::Rows;
use crate::rewriter::{Rewriter, Rewritten};
use crate::splice::{Make, Splice};
use crate::text::Documents;
use crate::url::BaseUrl;
use crate::warc::{self, RecordReport, WarcOptions, wacz};

/// One run: the settings made into options, the events on their way out,
/// what is gathered for the report.
pub(super) struct Run<'r, 'h> {
    options: Options<'r>,
    mbox_format: Option<MboxFormat>,
    keep_new_bytes: bool,
    verify_digests: bool,
    max_payload_bytes: usize,
    channel: &'r Channel<'h>,
    gathered: UnitReport,
}

impl<'r> Run<'r, '_> {
    /// The options of the web archive reader in this run.
    fn warc_options(&self) -> WarcOptions<'r> {
        WarcOptions {
            document: self.options,
            verify_digests: self.verify_digests,
            max_payload_bytes: self.max_payload_bytes,
            ..WarcOptions::new(&Engine)
        }
    }
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
            bases.saved = input
                .local_path()
                .and_then(|path| SavedFolders::listed(path, &self.saved_dirs));
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
            keep_new_bytes: self.keep_new_bytes,
            verify_digests: self.verify_digests,
            max_payload_bytes: self.max_payload_bytes.unwrap_or(warc::MAX_PAYLOAD_BYTES),
            channel: &channel,
            gathered: UnitReport::default(),
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
        let mut layers = Vec::new();
        let done = self.run(
            Input::bytes(input),
            Output::WhenChanged(&mut output),
            &mut |event| {
                match event {
                    Event::Rows(found) => rows.extend_from_slice(found),
                    Event::Done(done) => {
                        layers.extend_from_slice(done.layers);
                        // The first document's, as a page has one.
                        if head.is_none() {
                            head = done.head.map(|h| Box::new(h.clone()));
                        }
                    }
                    _ => {}
                }
                Ok(())
            },
        )?;
        let report = UnitReport {
            head,
            output: done.changed.then_some(output),
            splice: None,
            rows,
            rewritten: done.rewritten,
            warnings: done.warnings,
            layers,
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
            container: None,
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
    pub(super) fn parsed_bases(
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
    pub(super) fn input(
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
        if kind == Kind::Epub {
            return self.epub(opened, output, report);
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
    pub(super) fn start(
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
    pub(super) fn absorb(&mut self, document: UnitReport) {
        absorb(self.channel, &mut self.gathered, document);
    }

    /// Rewrites a document held in memory (HTML, CSS, XML, Markdown, a
    /// message): its new bytes, if any changed.
    pub(super) fn in_memory(
        &mut self,
        kind: Kind,
        document: &[u8],
        make: Make,
    ) -> Result<NewBytes, Error> {
        let mut report = rewrite_in_memory(kind, document, &self.options, make)?;
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
            layers: &report.layers,
        })));
        self.absorb(report);
        Ok(new)
    }

    /// A compressed input. gzip is undone, the document rewritten as its
    /// kind, and gzip done again with the input's header (an mbox streamed
    /// through both); a compression relink does not read leaves a document
    /// as it is, with a warning, and a web archive refused.
    pub(super) fn compressed(
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
                format_args!("{}; left as it is", Error::Compressed(compression.name())),
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
    pub(super) fn mbox(
        &mut self,
        input: impl BufRead,
        format: MboxFormat,
        gzip: Option<&compressed::Header>,
        output: Output<'_>,
        report: &mut Report,
    ) -> Result<(), Error> {
        let mut messages = 0;
        let channel = self.channel;
        let gathered = &mut self.gathered;
        let mut collect = |message: &mut ArchiveMessage, original: &[u8]| {
            let n = message.number;
            let output = message.outcome.output.take();
            let mut done = std::mem::take(&mut message.outcome);
            channel.rows_of(&mut done);
            channel.emit(Some(Event::Done(Done {
                unit: Unit::Message(n),
                original: Some(original),
                output: output.as_deref(),
                changed: output.is_some(),
                rewritten: done.rewritten,
                warnings: &done.warnings,
                head: None,
                layers: &done.layers,
            })));
            message.outcome.output = output;
            absorb(channel, gathered, done);
            messages = n;
        };
        let engine = (&self.options, &Engine as &dyn Documents);
        let changed = match output {
            Output::Nowhere => {
                mbox::rewrite_mbox(input, format, &mut io::sink(), engine, &mut collect)?
            }
            Output::Always(writer) | Output::WhenChanged(writer) => {
                let mut writer = io::BufWriter::new(writer);
                let changed = match gzip {
                    None => mbox::rewrite_mbox(input, format, &mut writer, engine, &mut collect)?,
                    Some(header) => {
                        // A gzipped mbox comes back gzipped, with its header.
                        let mut encoder = header.encoder(&mut writer)?;
                        let changed =
                            mbox::rewrite_mbox(input, format, &mut encoder, engine, &mut collect)?;
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
    pub(super) fn warc(
        &mut self,
        input: impl BufRead,
        output: Output<'_>,
        report: &mut Report,
    ) -> Result<(), Error> {
        let options = self.warc_options();
        let channel = self.channel;
        let gathered = &mut self.gathered;
        let mut collect = |record: RecordReport| {
            record_done(channel, gathered, None, record);
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
    pub(super) fn wacz(
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
        let options = self.warc_options();
        let channel = self.channel;
        let gathered = &mut self.gathered;
        let mut collect = |entry: &str, record: RecordReport| {
            record_done(channel, gathered, Some(entry), record);
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

impl Run<'_, '_> {
    /// An EPUB book, held in memory: each of its files that holds links
    /// one document done, the book written again (by splicing its zip,
    /// straight to the output) only when one changed and it is wanted.
    pub(super) fn epub(
        &mut self,
        opened: Opened<'_>,
        output: Output<'_>,
        report: &mut Report,
    ) -> Result<(), Error> {
        let input = opened.read_all()?;
        let channel = self.channel;
        let gathered = &mut self.gathered;
        let mut collect = |entry: EntryDone<'_>| {
            let mut done = entry.report;
            let new = done.output.take();
            channel.rows_of(&mut done);
            channel.emit(Some(Event::Done(Done {
                unit: Unit::Document,
                original: Some(entry.original),
                output: new.as_deref(),
                changed: new.is_some(),
                rewritten: done.rewritten,
                warnings: &done.warnings,
                head: None,
                layers: &done.layers,
            })));
            absorb(channel, gathered, done);
        };
        let write = !matches!(output, Output::Nowhere);
        let written = epub::rewrite(&input, &self.options, &Engine, write, &mut collect)?;
        report.changed = written.is_some();
        match (written, output) {
            (Some(book), Output::Always(writer) | Output::WhenChanged(writer)) => {
                book.write_to(&input, writer)
            }
            (_, output) => write_whole(output, &input, false),
        }
    }
}

/// A document's new bytes, if it changed.
pub(super) enum NewBytes {
    Unchanged,
    Made(Vec<u8>),
    /// The edits, written between the bytes read.
    Splice(Box<Splice>),
}

impl NewBytes {
    pub(super) fn changed(&self) -> bool {
        !matches!(self, NewBytes::Unchanged)
    }

    /// Writes the document, read as `input`, where `output` says.
    pub(super) fn write(&self, output: Output<'_>, input: &[u8]) -> Result<(), Error> {
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
pub(super) fn write_whole(output: Output<'_>, bytes: &[u8], changed: bool) -> Result<(), Error> {
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
