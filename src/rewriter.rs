//! The library's front door: one call for the common cases, and a builder
//! for everything else.

use std::io::{BufRead, Read, Write};

use encoding_rs::Encoding;

use crate::Error;
use crate::base::{Base, BaseSource, Layer};
use crate::compressed;
use crate::document::{self, DocumentReport, Engine};
use crate::kind::{self, Kind};
use crate::links::{Link, LinkRow, Warning};
use crate::mime::mbox;
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
    rules: Rules,
    base: Option<String>,
    retrieved_from: Option<String>,
    resource_base: Option<String>,
    encoding: Option<&'static Encoding>,
    attributes: Vec<ExtraAttribute>,
    kind: Option<Kind>,
    keep_fragment_links: bool,
    details: Details,
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
    /// another kind, it is an error.
    ///
    /// The links of an archive come in order, message by message or record
    /// by record; each record's own base serves, not
    /// [`Rewriter::retrieved_from`].
    pub fn rewrite<'i>(&self, input: &'i [u8]) -> Result<Rewritten<'i>, Error> {
        let archive = warc::looks_like_warc(input);
        match self.kind {
            Some(Kind::Warc) => return self.rewrite_as(input, Kind::Warc),
            Some(_) if archive => return Err(Error::ArchiveAsDocument),
            None if archive => return self.rewrite_as(input, Kind::Warc),
            Some(Kind::Wacz) => return self.rewrite_as(input, Kind::Wacz),
            None if warc::wacz::looks_like_wacz(input) => {
                return self.rewrite_as(input, Kind::Wacz);
            }
            _ => {}
        }
        match compressed::compression_of(input) {
            Some(compressed::Compression::Gzip) => self.rewrite_gzipped(input),
            Some(other) => Err(Error::Compressed(other.name())),
            None => self.rewrite_as(input, self.kind_of(input)),
        }
    }

    /// The kind of an input that is neither an archive nor compressed.
    fn kind_of(&self, input: &[u8]) -> Kind {
        self.kind
            .or_else(|| kind::sniff(input))
            .unwrap_or(Kind::Html)
    }

    /// [`Rewriter::rewrite`] of an input of a known kind, not compressed
    /// (but for a gzipped WARC): the one dispatch,
    /// [`crate::document::rewrite_document`].
    fn rewrite_as<'i>(&self, input: &'i [u8], kind: Kind) -> Result<Rewritten<'i>, Error> {
        let (forced, outer) = self.bases()?;
        let resource = self.resource()?;
        let options = Options {
            resource_base: resource.as_ref(),
            ..self.options(forced.as_ref(), outer.as_ref())
        };
        let report = document::rewrite_document(kind, input, &options)?;
        Ok(Rewritten { input, report })
    }

    /// A gzipped document: undone, rewritten, gzipped again with its header.
    fn rewrite_gzipped<'i>(&self, input: &'i [u8]) -> Result<Rewritten<'i>, Error> {
        let gunzipped = compressed::gunzip(input, compressed::MAX_DECOMPRESSED_BYTES)?;
        let document = &gunzipped.bytes[..];
        if warc::looks_like_warc(document) {
            return Err(Error::ArchiveAsDocument);
        }
        if let Some(inner) = compressed::compression_of(document) {
            // Compressed twice: not undone again (a gzip file can even
            // decompress to itself).
            return Err(Error::Compressed(inner.name()));
        }
        let inner = self.rewrite_as(document, self.kind_of(document))?;
        let mut report = inner.report;
        report.output = match &report.output {
            Some(document) => Some(gunzipped.gzip_again(document)?),
            None => None,
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
