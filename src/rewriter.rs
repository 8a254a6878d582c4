//! The library's front door: one call for the common cases, and a builder
//! for everything else.

use std::io::{BufRead, BufReader, Read, Write};
use std::sync::Arc;

use encoding_rs::Encoding;
use flate2::read::MultiGzDecoder;

use crate::front::{Event, Input, Output};
use crate::Error;
use crate::base::{Base, BaseSource, Layer};
use crate::compressed;
use crate::document::{self, DocumentReport, Engine};
use crate::kind::Kind;
use crate::links::{Link, LinkRow, RecordName, Warning};
use crate::mime::mbox::{self, ArchiveMessage, MboxFormat};
use crate::mime::message;
use crate::options::{Details, ExtraAttribute, Options};
use crate::url::{BaseUrl, Rules};
use crate::warc::{self, WarcOptions, WarcSummary};

/// Makes the relative links of an HTML document absolute, taking
/// `retrieved_from` as the URL it was retrieved from (RFC 1808 section
/// 3.3): its own BASE element still wins. Every other byte stays.
///
/// ```
/// let page = br#"<p><a href="../guide/">Guide</a> <img src=logo.png></p>"#;
/// let out = relink::absolutize_html(page, "https://example.com/docs/index.html")?;
/// assert_eq!(
///     out,
///     br#"<p><a href="https://example.com/guide/">Guide</a> <img src=https://example.com/docs/logo.png></p>"#
/// );
/// assert!(relink::absolutize_html(page, "example.com/docs/").is_err());
/// # Ok::<(), relink::Error>(())
/// ```
pub fn absolutize_html(input: &[u8], retrieved_from: &str) -> Result<Vec<u8>, Error> {
    let rewritten = Rewriter::new()
        .retrieved_from(retrieved_from)
        .kind(Kind::Html)
        .rewrite(input)?;
    Ok(rewritten.into_bytes())
}

/// Resolves `reference` against `base` under `rules` (RFC 1808 section 4
/// by default).
///
/// ```
/// use relink::Rules;
/// assert_eq!(relink::resolve("http://a/b/c/d;p?q#f", "../g", Rules::Rfc1808)?, "http://a/b/g");
/// assert_eq!(relink::resolve("http://a/b/c/d;p?q#f", "g?", Rules::Rfc1808)?, "http://a/b/c/g?");
/// assert_eq!(relink::resolve("http://a/b/c/d;p?q", "../../../g", Rules::Rfc3986)?, "http://a/g");
/// # Ok::<(), relink::Error>(())
/// ```
pub fn resolve(base: &str, reference: &str, rules: Rules) -> Result<String, Error> {
    Ok(BaseUrl::parse(base, rules)?
        .resolve(reference)?
        .into_owned())
}

/// A rewrite set up once, for any number of documents: rules, bases,
/// encoding, extra link attributes and the kind of input.
///
/// ```
/// use relink::{Kind, Rewriter, Rules};
/// let rewriter = Rewriter::new()
///     .rules(Rules::Rfc1808)
///     .retrieved_from("https://example.com/news/story.html")
///     .attribute("data-src".parse()?)
///     .kind(Kind::Html);
/// let page = br#"<img data-src="img/a.jpg" src="data:,"><a href="">top</a>"#;
/// let out = rewriter.rewrite(page)?;
/// assert!(out.changed());
/// assert_eq!(out.links().len(), 3);
/// assert_eq!(
///     out.bytes(),
///     br#"<img data-src="https://example.com/news/img/a.jpg" src="data:,"><a href="https://example.com/news/story.html">top</a>"#
/// );
/// # Ok::<(), relink::Error>(())
/// ```
#[derive(Debug, Clone, Default)]
pub struct Rewriter {
    pub(crate) rules: Rules,
    pub(crate) base: Option<String>,
    pub(crate) retrieved_from: Option<String>,
    pub(crate) resource_base: Option<String>,
    pub(crate) encoding: Option<&'static Encoding>,
    pub(crate) attributes: Vec<ExtraAttribute>,
    pub(crate) kind: Option<Kind>,
    pub(crate) keep_fragment_links: bool,
    pub(crate) details: Details,
    pub(crate) mbox_format: Option<MboxFormat>,
    pub(crate) keep_layers: bool,
}

impl Rewriter {
    /// A rewrite under RFC 1808 with no base but what documents give.
    pub fn new() -> Self {
        Rewriter::default()
    }

    /// The rule set for every resolution.
    pub fn rules(mut self, rules: Rules) -> Self {
        self.rules = rules;
        self
    }

    /// A base forced above every layer, for documents whose BASE is wrong.
    pub fn base(mut self, url: &str) -> Self {
        self.base = Some(url.to_owned());
        self
    }

    /// The URL the documents were retrieved from: the lowest layer.
    pub fn retrieved_from(mut self, url: &str) -> Self {
        self.retrieved_from = Some(url.to_owned());
        self
    }

    /// The base of embedded resources (images, media, `srcset`, CSS
    /// `url()`), standing in for [`Rewriter::retrieved_from`] for them: a
    /// README's images served from a raw-content host while its links go
    /// to the repository's pages.
    pub fn resource_base(mut self, url: &str) -> Self {
        self.resource_base = Some(url.to_owned());
        self
    }

    /// The documents' encoding, overriding what they say (a WHATWG label).
    pub fn encoding(mut self, label: &str) -> Result<Self, Error> {
        let encoding = Encoding::for_label(label.as_bytes())
            .ok_or_else(|| Error::UnknownEncoding(label.to_owned()))?;
        self.encoding = Some(encoding);
        Ok(self)
    }

    /// A further attribute holding URLs on every HTML element.
    pub fn attribute(mut self, attribute: ExtraAttribute) -> Self {
        self.attributes.push(attribute);
        self
    }

    /// What the input is, instead of telling it by its content.
    pub fn kind(mut self, kind: Kind) -> Self {
        self.kind = Some(kind);
        self
    }

    /// Leaves `#name` links as they are.
    pub fn keep_fragment_links(mut self) -> Self {
        self.keep_fragment_links = true;
        self
    }

    /// Whether links are recorded ([`Details::Links`], the default) or only
    /// counted.
    pub fn details(mut self, details: Details) -> Self {
        self.details = details;
        self
    }

    /// The variant of every mbox, instead of telling it from the first
    /// message.
    pub fn mbox_format(mut self, format: MboxFormat) -> Self {
        self.mbox_format = Some(format);
        self
    }

    /// Keeps the base layers of every document in the run's report (for an
    /// explanation); else they are dropped as each document is done, so
    /// that memory stays bounded on large archives.
    pub fn keep_layers(mut self) -> Self {
        self.keep_layers = true;
        self
    }

    /// The options of a run over `bases`.
    pub(crate) fn options_with<'a>(&'a self, bases: &'a crate::front::Bases) -> Options<'a> {
        Options {
            rules: self.rules,
            forced: bases.forced.as_ref(),
            outer: bases.outer.as_ref(),
            resource_base: bases.resource.as_ref(),
            transport: self.encoding,
            keep_fragment_links: self.keep_fragment_links,
            extra_attributes: &self.attributes,
            details: self.details,
            rows: None,
        }
    }

    fn bases(&self) -> Result<(Option<Base>, Option<Base>), Error> {
        let parse = |url: &Option<String>, source: BaseSource| {
            url.as_deref()
                .map(|u| BaseUrl::parse(u, self.rules).map(|u| Base::new(u, source)))
                .transpose()
        };
        Ok((
            parse(&self.base, BaseSource::Forced)?,
            parse(&self.retrieved_from, BaseSource::RetrievedFrom)?,
        ))
    }

    fn resource(&self) -> Result<Option<Base>, Error> {
        self.resource_base
            .as_deref()
            .map(|u| BaseUrl::parse(u, self.rules).map(|u| Base::new(u, BaseSource::ResourceBase)))
            .transpose()
    }

    fn options<'a>(&'a self, forced: Option<&'a Base>, outer: Option<&'a Base>) -> Options<'a> {
        Options {
            rules: self.rules,
            forced,
            outer,
            resource_base: None,
            transport: self.encoding,
            keep_fragment_links: self.keep_fragment_links,
            extra_attributes: &self.attributes,
            details: self.details,
            rows: None,
        }
    }

    /// Rewrites any input relink reads, held in memory: HTML, a style
    /// sheet, a message or MHTML file, an mbox, a web archive (WARC or
    /// ARC, plain or gzipped) or a WACZ package, by [`Rewriter::kind`],
    /// else by its content. [`Rewriter::rewrite_mbox`] and
    /// [`Rewriter::rewrite_warc`] do the same for archives as streams.
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
        let mut output = Vec::new();
        let mut rows = Vec::new();
        let done = Rewriter {
            keep_layers: true,
            ..self.clone()
        }
        .run(
            Input::bytes(input),
            Output::WhenChanged(&mut output),
            &mut |event| {
                if let Event::Rows(found) = event {
                    rows.extend_from_slice(found);
                }
                Ok(())
            },
        )?;
        let report = DocumentReport {
            output: done.changed.then_some(output),
            rows,
            rewritten: done.rewritten,
            warnings: done.warnings,
            layers: done.layers,
            without_base: done.without_base,
        };
        Ok(Rewritten { input, report })
    }

    /// Rewrites an mbox from `input` to `output` as a stream, in memory
    /// bounded by a batch of messages; returns how many messages changed.
    pub fn rewrite_mbox(
        &self,
        input: impl BufRead,
        mut output: impl Write,
    ) -> Result<usize, Error> {
        let (forced, outer) = self.bases()?;
        let resource = self.resource()?;
        let options = Options {
            resource_base: resource.as_ref(),
            ..self.options(forced.as_ref(), outer.as_ref())
        };
        // The variant is told from the first message, measured against its
        // Content-Length: up to a megabyte is read for it, then put back.
        let mut head = Vec::new();
        let mut input = input;
        (&mut input).take(1 << 20).read_to_end(&mut head)?;
        let format = mbox::detect(&head);
        let input = std::io::Cursor::new(head).chain(input);
        let mut changed = 0;
        document::rewrite_mbox(input, format, &mut output, &options, |message, _| {
            changed += usize::from(message.outcome.output.is_some())
        })?;
        output.flush()?;
        Ok(changed)
    }

    /// Rewrites a WARC file (gzipped or not) from `input` to `output` as a
    /// stream, record by record, each against its own layers.
    pub fn rewrite_warc(
        &self,
        input: impl BufRead,
        output: impl Write,
    ) -> Result<WarcSummary, Error> {
        let (forced, _) = self.bases()?;
        let options = WarcOptions {
            document: self.options(forced.as_ref(), None),
            ..WarcOptions::new(&Engine)
        };
        Ok(warc::rewrite(input, output, &options)?)
    }
}

impl Rewriter {
    /// Calls `on_link` for every link of a web archive (WARC or ARC, plain
    /// or gzipped), record by record, as a stream in memory bounded by the
    /// record; writes nothing. Each record's own base serves.
    ///
    /// ```
    /// let page = b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n<a href=b>b</a>";
    /// let head = format!(
    ///     "WARC/1.1\r\nWARC-Type: response\r\nWARC-Target-URI: http://a/x/\r\n\
    ///      Content-Length: {}\r\n\r\n",
    ///     page.len()
    /// );
    /// let archive = [head.as_bytes(), page, b"\r\n\r\n"].concat();
    /// let mut found = Vec::new();
    /// relink::Rewriter::new().warc_links(&archive[..], |link| found.push(link.link.resolved))?;
    /// assert_eq!(found, ["http://a/x/b"]);
    /// # Ok::<(), relink::Error>(())
    /// ```
    pub fn warc_links(
        &self,
        input: impl BufRead,
        on_link: impl FnMut(warc::WarcLink),
    ) -> Result<WarcSummary, Error> {
        let (forced, _) = self.bases()?;
        let options = WarcOptions {
            document: self.options(forced.as_ref(), None),
            ..WarcOptions::new(&Engine)
        };
        Ok(warc::links(input, &options, on_link)?)
    }
}

/// The rows of links, each saying where it is (the message, part or record
/// of an archive): what the command line's `--list` shows, for any input.
impl Rewriter {
    /// Every link of any input relink reads, held in memory, read as
    /// [`Rewriter::rewrite`] reads it (the same kinds, told the same way),
    /// as rows that say the message, MIME part or web archive record of
    /// each; writes nothing. A message's links resolve against its own
    /// headers (`Content-Base`, `Base`, `Content-Location`) above
    /// [`Rewriter::retrieved_from`].
    ///
    /// ```
    /// let message = b"Base: <URL:http://a.example/d/>\r\nContent-Type: text/html\r\n\r\n<a href=x>x</a>\r\n";
    /// let rows = relink::Rewriter::new().link_rows(message)?;
    /// assert_eq!(rows[0].link.resolved, "http://a.example/d/x");
    /// assert_eq!(rows[0].part.as_deref(), Some(""));
    /// let css = relink::Rewriter::new()
    ///     .retrieved_from("http://a.example/s/main.css")
    ///     .kind(relink::Kind::Css)
    ///     .link_rows(b"body { background: url(bg.png) }")?;
    /// assert_eq!(css[0].link.resolved, "http://a.example/s/bg.png");
    /// # Ok::<(), relink::Error>(())
    /// ```
    pub fn link_rows(&self, input: &[u8]) -> Result<Vec<LinkRow>, Error> {
        // The one dispatch: the rows are those of a rewrite.
        let rewritten = self.rewrite(input)?;
        Ok(rewritten.report.rows)
    }

    /// Calls `on_row` for every link of an mbox (gzipped or not), message
    /// by message, as a stream in memory bounded by the message; writes
    /// nothing. Returns how many messages it holds. Each message's links
    /// resolve against its own headers above [`Rewriter::retrieved_from`].
    ///
    /// ```
    /// let mbox = b"From a@b Thu Jan  1 00:00:00 1970\nBase: <URL:http://a.example/d/>\n\
    ///     Content-Type: text/html\n\n<a href=x>x</a>\n\n\
    ///     From a@b Thu Jan  1 00:00:00 1970\nBase: <URL:http://b.example/>\n\
    ///     Content-Type: text/html\n\n<a href=y>y</a>\n";
    /// let mut rows = Vec::new();
    /// let messages = relink::Rewriter::new().mbox_link_rows(&mbox[..], |row| {
    ///     rows.push((row.message, row.link.resolved))
    /// })?;
    /// assert_eq!(messages, 2);
    /// assert_eq!(
    ///     rows,
    ///     [
    ///         (Some(1), "http://a.example/d/x".to_owned()),
    ///         (Some(2), "http://b.example/y".to_owned())
    ///     ]
    /// );
    /// # Ok::<(), relink::Error>(())
    /// ```
    pub fn mbox_link_rows(
        &self,
        input: impl BufRead,
        mut on_row: impl FnMut(LinkRow),
    ) -> Result<usize, Error> {
        let (forced, outer) = self.bases()?;
        let options = self.options(forced.as_ref(), outer.as_ref());
        let (input, format, _) = mbox_stream(input)?;
        let mut reader = mbox::MboxReader::new(input, format)?;
        let mut messages = 0;
        while let Some(message) = reader.next_message()? {
            messages = message.number;
            let outcome =
                message::rewrite_message(&message.bytes, &options, format.from_lines(), &Engine);
            for (part, link) in outcome.links {
                on_row(LinkRow {
                    message: Some(message.number),
                    part: Some(part),
                    ..LinkRow::new(link)
                });
            }
        }
        Ok(messages)
    }

    /// Calls `on_row` for every link of a web archive (WARC or ARC, plain
    /// or gzipped), record by record, as a stream in memory bounded by the
    /// record; writes nothing. The rows of a record share its
    /// [`RecordName`]; each record's own base serves.
    ///
    /// ```
    /// let page = b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n<a href=b>b</a>";
    /// let head = format!(
    ///     "WARC/1.1\r\nWARC-Type: response\r\nWARC-Target-URI: http://a/x/\r\n\
    ///      WARC-Record-ID: <urn:uuid:1>\r\nContent-Length: {}\r\n\r\n",
    ///     page.len()
    /// );
    /// let archive = [head.as_bytes(), page, b"\r\n\r\n"].concat();
    /// let mut rows = Vec::new();
    /// let summary = relink::Rewriter::new().warc_link_rows(&archive[..], |row| rows.push(row))?;
    /// assert_eq!(summary.records, 1);
    /// let record = rows[0].record.as_deref().unwrap();
    /// assert_eq!((record.number, record.record_id.as_str()), (1, "<urn:uuid:1>"));
    /// assert_eq!(rows[0].link.resolved, "http://a/x/b");
    /// # Ok::<(), relink::Error>(())
    /// ```
    pub fn warc_link_rows(
        &self,
        input: impl BufRead,
        mut on_row: impl FnMut(LinkRow),
    ) -> Result<WarcSummary, Error> {
        let (forced, _) = self.bases()?;
        let options = WarcOptions {
            document: self.options(forced.as_ref(), None),
            ..WarcOptions::new(&Engine)
        };
        Ok(warc::inspect(input, &options, |record| {
            record_rows(record, &mut on_row)
        })?)
    }

    /// [`Rewriter::rewrite_mbox`], an mbox gzipped or not (a gzipped one
    /// comes back gzipped, with its header), calling `on_message` for each
    /// message in order with its links and warnings.
    pub fn rewrite_mbox_with(
        &self,
        input: impl BufRead,
        mut output: impl Write,
        mut on_message: impl FnMut(&ArchiveMessage),
    ) -> Result<usize, Error> {
        let (forced, outer) = self.bases()?;
        let options = self.options(forced.as_ref(), outer.as_ref());
        let (input, format, gzip) = mbox_stream(input)?;
        let mut changed = 0;
        let mut report = |message: &ArchiveMessage, _: &[u8]| {
            changed += usize::from(message.outcome.output.is_some());
            on_message(message);
        };
        match gzip {
            Some(header) => {
                let mut encoder = header.encoder(&mut output);
                document::rewrite_mbox(input, format, &mut encoder, &options, &mut report)?;
                encoder.finish()?;
            }
            None => {
                document::rewrite_mbox(input, format, &mut output, &options, &mut report)?;
            }
        }
        output.flush()?;
        Ok(changed)
    }
}

/// The rows of one record's links, sharing its name.
fn record_rows(record: warc::RecordReport, on_row: &mut dyn FnMut(LinkRow)) {
    if record.links.is_empty() {
        return;
    }
    let name = Arc::new(RecordName {
        number: record.number,
        target_uri: record.target_uri,
        record_id: record.record_id,
    });
    for link in record.links {
        on_row(LinkRow {
            record: Some(Arc::clone(&name)),
            ..LinkRow::new(link)
        });
    }
}

/// An mbox stream, gzip undone, with its variant told from the first
/// message measured against its Content-Length (up to a megabyte is read
/// for it, then put back), and the gzip header it had.
#[allow(clippy::type_complexity)]
fn mbox_stream<'r>(
    input: impl BufRead + 'r,
) -> Result<
    (
        Box<dyn BufRead + 'r>,
        mbox::MboxFormat,
        Option<compressed::Header>,
    ),
    Error,
> {
    const HEAD: u64 = 1 << 20;
    let mut head = Vec::new();
    let mut input = input;
    (&mut input).take(HEAD).read_to_end(&mut head)?;
    if compressed::compression_of(&head) != Some(compressed::Compression::Gzip) {
        let format = mbox::detect(&head);
        return Ok((
            Box::new(std::io::Cursor::new(head).chain(input)),
            format,
            None,
        ));
    }
    let header = compressed::Header::read(&head);
    let input = std::io::Cursor::new(head).chain(input);
    let mut input = BufReader::new(MultiGzDecoder::new(input));
    let mut plain = Vec::new();
    (&mut input).take(HEAD).read_to_end(&mut plain)?;
    let format = mbox::detect(&plain);
    let input = std::io::Cursor::new(plain).chain(input);
    Ok((Box::new(input), format, Some(header)))
}

/// A rewritten document: its bytes, whether they changed, its links (when
/// recorded) and what could not be done.
#[derive(Debug)]
pub struct Rewritten<'i> {
    input: &'i [u8],
    report: DocumentReport,
}

impl Rewritten<'_> {
    /// Whether any byte changed.
    pub fn changed(&self) -> bool {
        self.report.output.is_some()
    }

    /// The document's bytes: the input with its links made absolute.
    pub fn bytes(&self) -> &[u8] {
        self.report.output.as_deref().unwrap_or(self.input)
    }

    /// The document's bytes, owned.
    pub fn into_bytes(self) -> Vec<u8> {
        self.report.output.unwrap_or_else(|| self.input.to_vec())
    }

    /// Every link found, changed or not, in input order.
    pub fn links(&self) -> Vec<&Link> {
        self.report.rows.iter().map(|row| &row.link).collect()
    }

    /// Every link with where it is (the message, part or record): the rows
    /// the command line lists.
    pub fn rows(&self) -> &[LinkRow] {
        &self.report.rows
    }

    /// How many links were rewritten.
    pub fn rewritten(&self) -> usize {
        self.report.rewritten
    }

    /// What could not be done, each naming where.
    pub fn warnings(&self) -> &[Warning] {
        &self.report.warnings
    }

    /// The layers of the base (RFC 1808 section 3), innermost first, with
    /// what became of each; of every document, for an archive.
    pub fn layers(&self) -> impl Iterator<Item = &Layer> {
        self.report.layers.iter().flat_map(|(_, layers)| layers)
    }

    /// The layers of each document's base, under a label that names the
    /// document (`part 1.2 (text/html)`, `record 4 URI (text/html)`).
    pub fn documents(&self) -> &[(String, Vec<Layer>)] {
        &self.report.layers
    }

    /// How many documents had no base, so that their links were left.
    pub fn without_base(&self) -> usize {
        self.report.without_base
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MBOX: &[u8] = b"From a@b Thu Jan  1 00:00:00 1970\nContent-Type: text/html\n\n\
        <a href=x>x</a>\n\nFrom a@b Thu Jan  1 00:00:00 1970\n\
        Content-Base: http://b.example/m/\nContent-Type: text/html\n\n<a href=y>y</a>\n";

    fn gzip(bytes: &[u8]) -> Vec<u8> {
        let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        encoder.write_all(bytes).unwrap();
        encoder.finish().unwrap()
    }

    fn resolved(rows: &[LinkRow]) -> Vec<(Option<usize>, &str)> {
        rows.iter()
            .map(|r| (r.message, r.link.resolved.as_str()))
            .collect()
    }

    #[test]
    fn link_rows_of_html_are_the_links_of_rewrite() {
        let rewriter = Rewriter::new().retrieved_from("http://a.example/d/");
        let page = b"<a href=x>x</a><img src=../i.png>";
        let rows = rewriter.link_rows(page).unwrap();
        let links = rewriter.rewrite(page).unwrap();
        let expected: Vec<&str> = links.links().iter().map(|l| l.resolved.as_str()).collect();
        assert_eq!(resolved(&rows), [(None, expected[0]), (None, expected[1])]);
        assert!(rows.iter().all(|r| r.part.is_none() && r.record.is_none()));
    }

    #[test]
    fn an_mbox_gives_its_rows_gzipped_or_not() {
        let rewriter = Rewriter::new().retrieved_from("http://a.example/");
        let mut plain = Vec::new();
        let messages = rewriter
            .mbox_link_rows(MBOX, |row| plain.push(row))
            .unwrap();
        assert_eq!(messages, 2);
        assert_eq!(
            resolved(&plain),
            [
                (Some(1), "http://a.example/x"),
                (Some(2), "http://b.example/m/y")
            ]
        );
        let mut packed = Vec::new();
        rewriter
            .mbox_link_rows(&gzip(MBOX)[..], |row| packed.push(row))
            .unwrap();
        assert_eq!(resolved(&packed), resolved(&plain));
        assert_eq!(
            resolved(&rewriter.link_rows(&gzip(MBOX)).unwrap()),
            resolved(&plain)
        );
    }

    #[test]
    fn a_gzipped_mbox_is_rewritten_gzipped() {
        let rewriter = Rewriter::new().retrieved_from("http://a.example/");
        let mut plain = Vec::new();
        let changed = rewriter
            .rewrite_mbox_with(MBOX, &mut plain, |_| {})
            .unwrap();
        assert_eq!(changed, 2);
        let mut packed = Vec::new();
        let mut numbers = Vec::new();
        rewriter
            .rewrite_mbox_with(&gzip(MBOX)[..], &mut packed, |m| numbers.push(m.number))
            .unwrap();
        assert_eq!(numbers, [1, 2]);
        assert!(packed.starts_with(&[0x1f, 0x8b]));
        let unpacked = compressed::gunzip(&packed, 1 << 20).unwrap().bytes;
        assert_eq!(unpacked, plain);
        assert_eq!(plain, rewriter.rewrite(MBOX).unwrap().bytes());
    }

    #[test]
    fn rows_of_an_archive_given_another_kind_are_refused() {
        let warc = b"WARC/1.1\r\nWARC-Type: warcinfo\r\nContent-Length: 0\r\n\r\n\r\n\r\n";
        let rewriter = Rewriter::new().kind(Kind::Html);
        assert!(matches!(
            rewriter.link_rows(warc),
            Err(Error::ArchiveAsDocument)
        ));
        assert!(Rewriter::new().link_rows(warc).unwrap().is_empty());
    }
}
