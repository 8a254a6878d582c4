//! What a rewrite tells: each link (where it was, what it was, what it
//! became and against which base), each warning (a kind to act on and the
//! places, outermost first), and the outcome of one document. One type of
//! each, shown by the command line and converted by the Python package.

use std::borrow::Cow;
use std::fmt;

use encoding_rs::Encoding;

use crate::base::{Base, Layer, LayerStatus};

/// The kinds of trouble relink reports while it goes on: each leaves some
/// part of the input as it was.
///
/// See the example of [`Warning`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum WarningKind {
    /// No layer gave a base: the links are left as they are.
    NoBase,
    /// A layer (a BASE element, a header, a codebase) that could not serve.
    LayerIgnored,
    /// A reference the rules cannot resolve.
    Unresolvable,
    /// Documents or messages nested past a limit.
    TooDeep,
    /// Edits that overlapped: the later ones are dropped.
    OverlappingEdits,
    /// A rewritten line of a 7bit or 8bit body would pass 998 octets.
    LineTooLong,
    /// A transfer or content coding relink does not know.
    UnknownEncoding,
    /// A part, body or payload that could not be read or decoded.
    Unreadable,
    /// A payload past the size relink decodes.
    TooLarge,
    /// A rewritten mbox message that would split differently.
    ArchiveSplit,
    /// A file rewritten in place whose other names keep the old content.
    HardLinks,
    /// A backup that already existed, kept instead of the content replaced.
    BackupKept,
    /// Bytes of an archive that are not what its format says (a record
    /// whose length is wrong, stray bytes between records): copied as
    /// they are.
    Malformed,
    /// The kind of an input was guessed (nothing told it) and nothing in
    /// it was rewritten: it may be of another kind.
    KindGuessed,
    /// A link in a reStructuredText grid or simple table that its cell has
    /// no room to make longer (the table's columns are where its text
    /// is), or that relink does not read there: left as it is.
    InTable,
    /// A URL its document may not hold: a sitemap's `loc` on another
    /// host than the sitemap's, which the sitemap protocol drops. It is
    /// rewritten all the same.
    OtherHost,
    /// A link inside a container (an EPUB book) to a file the container
    /// does not hold: left as it is.
    NotInContainer,
}

/// What could not be done, and where: a kind to act on, and words for
/// people. Shown as `part 1.2: line 4, column 7: what happened`.
///
/// ```
/// use relink::WarningKind;
/// let out = relink::Rewriter::new().rewrite(b"<a href=x>x</a>")?;
/// let warning = &out.warnings()[0];
/// assert_eq!(warning.kind, WarningKind::NoBase);
/// assert!(warning.place.is_empty());
/// assert_eq!(warning.to_string(), "no base url: links left as they are");
/// # Ok::<(), relink::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Warning {
    /// What kind of trouble it is.
    pub kind: WarningKind,
    /// Where, outermost first (`message 3`, `part 1.2`, `line 4, column 7`).
    pub place: Vec<String>,
    /// What happened and what became of it.
    pub message: String,
}

impl Warning {
    /// A warning of `kind`.
    pub fn new(kind: WarningKind, message: impl fmt::Display) -> Self {
        Warning {
            kind,
            place: Vec::new(),
            message: message.to_string(),
        }
    }

    /// The same warning, inside `place` (which encloses the places it has).
    pub fn within(mut self, place: impl Into<String>) -> Self {
        self.place.insert(0, place.into());
        self
    }
}

impl fmt::Display for Warning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for place in &self.place {
            write!(f, "{place}: ")?;
        }
        f.write_str(&self.message)
    }
}

/// Where a link was: an element's attribute, an element's text, a style
/// sheet, a header field, a Markdown or reStructuredText construct. Shown
/// as `<img src>`, `<style>`, `css`, `<http Location>`,
/// `Content-Location`, `link`; [`LinkPlace::element`] and
/// [`LinkPlace::attribute`] give the two names the rows have always had
/// (`http` and the field for an HTTP header, an empty element for a
/// header field of a message, a style sheet or a Markdown construct).
///
/// Names are as the document wrote them (an XML element's prefix kept).
/// The readers build it borrowed (`S` a `&str`) and own it only for a
/// link they keep.
///
/// ```
/// use relink::LinkPlace;
/// let out = relink::Rewriter::new().retrieved_from("http://a/").rewrite(b"<img src=x>")?;
/// let place = &out.links()[0].place;
/// assert_eq!(place, &LinkPlace::Attribute("img".into(), "src".into()));
/// assert_eq!((place.element(), place.attribute(), place.to_string().as_str()), ("img", "src", "<img src>"));
/// assert_eq!(LinkPlace::<&str>::HttpHeader("Location").to_string(), "<http Location>");
/// # Ok::<(), relink::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum LinkPlace<S = String> {
    /// An attribute of an HTML, XHTML or SVG element that holds links, by
    /// the element's name and the attribute's (`<a href>`, `<img srcset>`,
    /// `<div style>`, `<use xlink:href>`).
    Attribute(S, S),
    /// An attribute of an HTML element named as holding URLs by
    /// [`Rewriter::attribute`](crate::Rewriter::attribute) (`--attr`).
    Given(S, S),
    /// An attribute of a feed's or RDF's element (`<enclosure url>`,
    /// `<atom:link href>`, `rdf:about`).
    Feed(S, S),
    /// An element's text, by the element's name: a `<style>` element's
    /// style sheet, a feed's `<link>`.
    Text(S),
    /// A style sheet read as a document.
    StyleSheet,
    /// A field of a web archive response's HTTP head, by its name as
    /// written (`Location`, `Link`, `Refresh`, `Content-Location`).
    HttpHeader(S),
    /// A header field of a message or part (`Content-Location`).
    MimeHeader(S),
    /// A Markdown destination: `link`, `autolink`, `image` or `definition`
    /// (a link reference definition).
    Markdown(&'static str),
    /// A reStructuredText reference: `link`, `target` or `image`.
    Rst(&'static str),
}

/// Where a link is, borrowed: what a reader passes while it works, so that
/// a [`LinkPlace`] is made only for a link that is recorded.
pub type Place<'a> = LinkPlace<&'a str>;

impl<S: AsRef<str>> LinkPlace<S> {
    /// The element's name and the attribute's, as the rows name them:
    /// `http` and the field for an HTTP header; no element for a style
    /// sheet (`css`), a message's header, Markdown or reStructuredText;
    /// no attribute for an element's text.
    fn names(&self) -> (&str, &str) {
        match self {
            LinkPlace::Attribute(element, attribute)
            | LinkPlace::Given(element, attribute)
            | LinkPlace::Feed(element, attribute) => (element.as_ref(), attribute.as_ref()),
            LinkPlace::Text(element) => (element.as_ref(), ""),
            LinkPlace::StyleSheet => ("", "css"),
            LinkPlace::HttpHeader(name) => ("http", name.as_ref()),
            LinkPlace::MimeHeader(name) => ("", name.as_ref()),
            LinkPlace::Markdown(name) | LinkPlace::Rst(name) => ("", name),
        }
    }

    /// The element's name, as the rows' `element` (see [`LinkPlace`]).
    pub fn element(&self) -> &str {
        self.names().0
    }

    /// The attribute's name, as the rows' `attribute` (see [`LinkPlace`]).
    pub fn attribute(&self) -> &str {
        self.names().1
    }

    /// The place, owned.
    pub fn to_link_place(&self) -> LinkPlace {
        let own = |s: &S| s.as_ref().to_owned();
        match self {
            LinkPlace::Attribute(element, name) => LinkPlace::Attribute(own(element), own(name)),
            LinkPlace::Given(element, name) => LinkPlace::Given(own(element), own(name)),
            LinkPlace::Feed(element, name) => LinkPlace::Feed(own(element), own(name)),
            LinkPlace::Text(element) => LinkPlace::Text(own(element)),
            LinkPlace::StyleSheet => LinkPlace::StyleSheet,
            LinkPlace::HttpHeader(name) => LinkPlace::HttpHeader(own(name)),
            LinkPlace::MimeHeader(name) => LinkPlace::MimeHeader(own(name)),
            LinkPlace::Markdown(name) => LinkPlace::Markdown(name),
            LinkPlace::Rst(name) => LinkPlace::Rst(name),
        }
    }
}

impl<S: AsRef<str>> fmt::Display for LinkPlace<S> {
    /// `<element attribute>`, `<element>` for an element's text, the
    /// attribute alone where there is no element.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.names() {
            (element, "") => write!(f, "<{element}>"),
            ("", attribute) => f.write_str(attribute),
            (element, attribute) => write!(f, "<{element} {attribute}>"),
        }
    }
}

/// One link of a document.
///
/// ```
/// use relink::BaseSource;
/// let out = relink::Rewriter::new()
///     .retrieved_from("http://a.example/d/page.html")
///     .rewrite(b"<p>\n<img src=../logo.png> <a href=http://b.example/>b</a>")?;
/// let (logo, other) = (&out.links()[0], &out.links()[1]);
/// assert_eq!((logo.line, logo.column), (2, 10));
/// assert_eq!((logo.place.element(), logo.place.attribute()), ("img", "src"));
/// assert_eq!((logo.original.as_str(), logo.resolved.as_str()), ("../logo.png", "http://a.example/logo.png"));
/// assert!(logo.changed && !other.changed);
/// let base = logo.base.as_ref().unwrap();
/// assert_eq!((base.url.as_str(), &base.source), ("http://a.example/d/page.html", &BaseSource::RetrievedFrom));
/// # Ok::<(), relink::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct Link {
    /// The line of the value (from 1).
    pub line: usize,
    /// The column of the value (from 1, in bytes of the decoded text).
    pub column: usize,
    /// The element and attribute.
    pub place: LinkPlace,
    /// The URL as written (character references decoded, trimmed).
    pub original: String,
    /// The URL resolved.
    pub resolved: String,
    /// The base it was resolved against.
    pub base: Option<Base>,
    /// Whether the document changed here.
    pub changed: bool,
    /// Whether it is a relative reference left as written because its
    /// document had no base (`base` is then `None`, `resolved` the
    /// original): what `--check` counts as left.
    ///
    /// ```
    /// let out = relink::Rewriter::new().rewrite(b"<a href=a.html></a><a href=http://h/></a>")?;
    /// let left: Vec<bool> = out.links().iter().map(|link| link.unresolved).collect();
    /// assert_eq!(left, [true, false]);
    /// assert!(out.links().iter().all(|link| link.base.is_none() && !link.changed));
    /// # Ok::<(), relink::Error>(())
    /// ```
    pub unresolved: bool,
    /// What else its element says of it, with
    /// [`Details::Attributes`](crate::options::Details::Attributes) only.
    pub details: Option<Box<LinkDetails>>,
}

/// What an HTML element says of the link it holds, besides the URL: the
/// attributes Common Crawl's WAT files keep with each link.
///
/// ```
/// use relink::{Details, Rewriter};
/// let page = b"<nav><a href=x rel=nofollow title=Next>next</a></nav>";
/// let done = Rewriter::new().retrieved_from("http://a/").details(Details::Attributes).rewrite(page)?;
/// let details = done.links()[0].details.as_deref().unwrap();
/// assert_eq!(details.attributes, [("title", "Next".to_owned()), ("rel", "nofollow".to_owned())]);
/// assert_eq!(details.text.as_deref(), Some("next"));
/// assert_eq!(details.context, Some("nav"));
/// # Ok::<(), relink::Error>(())
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LinkDetails {
    /// Each of [`LinkDetails::NAMES`] the element has, with its decoded
    /// value, in that order.
    pub attributes: Vec<(&'static str, String)>,
    /// An `<a>`'s text: what the source holds from the start tag to its
    /// `</a>` (or the next `<a`), tags and comments left out with nothing
    /// in their place, character references decoded, no-break spaces as
    /// spaces, white space collapsed, its first 100
    /// characters (as a WAT file keeps it); `None` for another element.
    pub text: Option<String>,
    /// The innermost of the HTML elements `nav`, `header`, `footer`,
    /// `aside` and `main` that the element is or lies in, by its name, as
    /// `element.closest("nav, header, footer, aside, main")` finds it in
    /// the tree an HTML parser builds (misnested and implied tags as it
    /// has them; a template's contents are a fragment of their own, so
    /// only landmarks inside them count); `None` when there is none. It
    /// tells navigation and page furniture from content.
    pub context: Option<&'static str>,
}

/// What an HTML document's head says besides its links, as a WAT file's
/// `Head` keeps it: its title and its `meta` elements. Gathered with
/// [`Details::Attributes`](crate::options::Details::Attributes) only.
///
/// ```
/// use relink::{Details, Rewriter};
/// let page = b"<title>A &amp; B</title><meta name=robots content=noindex><a href=x>x</a>";
/// let done = Rewriter::new().retrieved_from("http://a/").details(Details::Attributes).rewrite(page)?;
/// let head = done.head().unwrap();
/// assert_eq!(head.title.as_deref(), Some("A & B"));
/// assert_eq!(head.metas, [vec![("name", "robots".to_owned()), ("content", "noindex".to_owned())]]);
/// # Ok::<(), relink::Error>(())
/// ```
#[derive(Debug, Clone, Default)]
pub struct HtmlHead {
    /// The first HTML `title` element's text: character references
    /// decoded, white space collapsed.
    pub title: Option<String>,
    /// Each HTML `meta` element with any of [`HtmlHead::META_NAMES`], those
    /// it has with their decoded values, in that order.
    pub metas: Vec<Vec<(&'static str, String)>>,
    /// The links a WAT file lists that relink never rewrites (`data-href`,
    /// a URL in `onclick`...), as Common Crawl's WAT extractor lists them,
    /// in document order: no browser fetches them, so they are in no row.
    pub listed: Vec<Link>,
}

impl HtmlHead {
    /// The attributes of a `meta` element kept: `name`, `property`,
    /// `http-equiv`, `content`.
    pub const META_NAMES: [&'static str; 4] = ["name", "property", "http-equiv", "content"];
}

impl LinkDetails {
    /// The attributes kept: `alt`, `title`, `rel`, `target`, `type`,
    /// `hreflang`, `method`.
    pub const NAMES: [&'static str; 7] = [
        "alt", "title", "rel", "target", "type", "hreflang", "method",
    ];
}

/// Where the link rows of a document go as they are found, when
/// [`Options::rows`](crate::Options::rows) names one: each link is handed
/// over at once, in document order, and the reports keep only counts (their
/// `links` stay empty), so memory does not grow with the links of one
/// document, message or record. A reader of archives fills in the
/// message, part and record of each row before it reaches the sink.
///
/// It is `Sync` because the records of a web archive and the messages of
/// an mbox are rewritten in parallel; each still hands its rows over in
/// input order, one record or message after another.
pub trait LinkSink: Sync {
    /// Takes one row.
    fn row(&self, row: LinkRow);
}

impl<F: Fn(LinkRow) + Sync> LinkSink for F {
    fn row(&self, row: LinkRow) {
        self(row);
    }
}

/// A sink that changes each row (its place inside an archive, its line
/// inside an enclosing text) and hands it on.
pub(crate) struct Mapped<'a, F> {
    /// Where the rows go.
    pub(crate) to: &'a dyn LinkSink,
    /// What is done to each row first.
    pub(crate) map: F,
}

impl<F: Fn(&mut LinkRow) + Sync> LinkSink for Mapped<'_, F> {
    fn row(&self, mut row: LinkRow) {
        (self.map)(&mut row);
        self.to.row(row);
    }
}

/// The rows of one record or message of a batch rewritten in parallel,
/// held until the records before it have handed theirs over.
#[derive(Default)]
pub(crate) struct HeldRows(std::sync::Mutex<Vec<LinkRow>>);

impl HeldRows {
    /// The rows held, in order.
    pub(crate) fn take(self) -> Vec<LinkRow> {
        self.0.into_inner().unwrap_or_else(|e| e.into_inner())
    }
}

impl LinkSink for HeldRows {
    fn row(&self, row: LinkRow) {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).push(row);
    }
}

/// What rewriting a document gave.
#[derive(Debug)]
#[cfg_attr(not(feature = "_internal"), allow(dead_code))]
pub struct Outcome {
    /// The new bytes, or `None` when nothing changed or they were left
    /// as a splice.
    pub output: Option<Vec<u8>>,
    /// The new bytes as the edits to splice into the input, when they were
    /// asked so ([`crate::splice::Make::Splice`]) and something changed.
    pub splice: Option<crate::splice::Splice>,
    /// The encoding the document was read and written in.
    pub encoding: &'static Encoding,
    /// The document's base, if it had one.
    pub base: Option<Base>,
    /// Every link found (none when only [`Details::Counts`](crate::options::Details::Counts)
    /// were asked, or when they went to [`Options::rows`](crate::Options::rows)).
    pub links: Vec<Link>,
    /// How many links were rewritten.
    pub rewritten: usize,
    /// What could not be done, each naming where.
    pub warnings: Vec<Warning>,
    /// The layers of the base the document had, innermost first.
    pub layers: Vec<Layer>,
    /// An HTML document's title and `meta` elements, with
    /// [`Details::Attributes`](crate::options::Details::Attributes) only.
    pub head: Option<Box<HtmlHead>>,
}

#[cfg_attr(not(feature = "_internal"), allow(dead_code))]
impl Outcome {
    /// The bytes to write: the new ones, or the input when nothing changed.
    pub fn bytes<'a>(&'a self, input: &'a [u8]) -> &'a [u8] {
        self.output.as_deref().unwrap_or(input)
    }

    /// Whether any byte changed, whether the new bytes were made or left as
    /// a splice.
    pub fn changed(&self) -> bool {
        self.output.is_some() || self.splice.is_some()
    }
}

/// What one unit (a document, a message, a web archive record) gave, in
/// the one shape every reader reports: the new bytes, every link with where
/// it is, what could not be done, and the layers of each document's base.
#[derive(Debug, Default)]
pub struct UnitReport {
    /// The new bytes, or `None` when nothing changed or they were left as
    /// a splice.
    pub output: Option<Vec<u8>>,
    /// The new bytes as the edits to splice into the input, when a text
    /// document changed and they were asked so.
    pub splice: Option<crate::splice::Splice>,
    /// Every link (none when only counts were asked, or when they went to
    /// [`Options::rows`](crate::options::Options::rows)), in input order.
    pub rows: Vec<LinkRow>,
    /// How many links were rewritten.
    pub rewritten: usize,
    /// What could not be done, each naming where.
    pub warnings: Vec<Warning>,
    /// Each document's base layers (innermost first), under a label that
    /// says which document: `document`, `part 1.2 (text/html)`, `message 3,
    /// the message (text/html)`, `record 4 URI (text/html)`.
    pub layers: Vec<(String, Vec<Layer>)>,
    /// How many documents had no base, so that their links were left.
    pub without_base: usize,
    /// An HTML document's title and metas (of a web archive record's
    /// payload too), with [`Details::Attributes`](crate::options::Details::Attributes) only.
    pub head: Option<Box<HtmlHead>>,
}

impl UnitReport {
    /// Takes in a document's outcome (its new bytes and layers aside),
    /// its links placed by `row`, its base's `layers` under `label`.
    pub(crate) fn add_document(
        &mut self,
        (label, layers): (String, Vec<Layer>),
        outcome: Outcome,
        row: impl Fn(Link) -> LinkRow,
    ) {
        self.without_base += usize::from(!layers.iter().any(|l| l.status == LayerStatus::Used));
        self.layers.push((label, layers));
        self.warnings.extend(outcome.warnings);
        self.rewritten += outcome.rewritten;
        self.rows.extend(outcome.links.into_iter().map(row));
        self.head = self.head.take().or(outcome.head);
    }

    /// Places everything reported inside message `n` of an mbox: its rows,
    /// warnings and labels.
    pub(crate) fn in_message(&mut self, n: usize) {
        self.rows.iter_mut().for_each(|row| row.message = Some(n));
        for warning in &mut self.warnings {
            *warning = warning.clone().within(format!("message {n}"));
        }
        for (label, _) in &mut self.layers {
            *label = format!("message {n}, {label}");
        }
    }
}

/// The web archive record a link is in.
///
/// See the example of [`LinkRow`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecordName {
    /// Its number in the file, from 1.
    pub number: usize,
    /// Its `WARC-Target-URI` (an ARC record's URL).
    pub target_uri: String,
    /// Its `WARC-Record-ID`, as written (empty for ARC).
    pub record_id: String,
    /// Its `WARC-Type` (`response`, `resource`; an ARC record's is
    /// `response`, as warcio calls it).
    pub record_type: String,
    /// Its heads as read, with [`Details::Attributes`](crate::options::Details::Attributes)
    /// only: what a WAT record's `WARC-Header-Metadata` and
    /// `HTTP-Response-Metadata` are made of.
    pub heads: Option<std::sync::Arc<RecordHeads>>,
}

/// The heads of a web archive record, as read: their start lines and
/// header fields, each field's name as written and its value unfolded
/// (bytes that are not UTF-8 replaced), in order. Kept only when asked,
/// since they cost a copy a record.
///
/// ```
/// use relink::{Details, Rewriter};
/// let page = b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n<a href=b>b</a>";
/// let head = format!(
///     "WARC/1.1\r\nWARC-Type: response\r\nWARC-Target-URI: http://a/x/\r\n\
///      Content-Length: {}\r\n\r\n",
///     page.len()
/// );
/// let archive = [head.as_bytes(), page, b"\r\n\r\n"].concat();
/// let out = Rewriter::new().details(Details::Attributes).rewrite(&archive)?;
/// let heads = out.rows()[0].record.as_ref().unwrap().heads.as_deref().unwrap();
/// assert_eq!(heads.version.as_deref(), Some("WARC/1.1"));
/// assert_eq!(heads.warc[1], ("WARC-Target-URI".to_owned(), "http://a/x/".to_owned()));
/// assert_eq!(heads.start_line, Some(["HTTP/1.1", "200", "OK"].map(String::from)));
/// assert_eq!(heads.http, [("Content-Type".to_owned(), "text/html".to_owned())]);
/// let entity = heads.entity.as_ref().unwrap();
/// let http_head = "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n";
/// assert_eq!((entity.headers_length, entity.length), (http_head.len(), b"<a href=b>b</a>".len()));
/// assert_eq!(entity.trailing_slop, 0);
/// assert_eq!(entity.digest, "sha1:6QAIZVDM7SIXYDF5BZQRFVFXPLMG2QCM");
/// let block = heads.block.as_ref().unwrap();
/// assert_eq!((block.header_length, block.length), (head.len(), page.len()));
/// assert_eq!((block.trailing_slop, block.offset, block.compressed), (4, Some(0), false));
/// // Not kept unless asked.
/// let out = Rewriter::new().rewrite(&archive)?;
/// assert!(out.rows()[0].record.as_ref().unwrap().heads.is_none());
/// # Ok::<(), relink::Error>(())
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RecordHeads {
    /// Its WARC version line (`WARC/1.1`; `None` for ARC).
    pub version: Option<String>,
    /// Its WARC header fields (none for ARC).
    pub warc: Vec<(String, String)>,
    /// A response's final HTTP status line (`HTTP/1.1`, `200`, `OK`) or a
    /// request's request line (`GET`, `/x`, `HTTP/1.1`), split at its first
    /// two spaces; `None` for a record that holds neither.
    pub start_line: Option<[String; 3]>,
    /// That head's header fields.
    pub http: Vec<(String, String)>,
    /// The response's message as it lies in the block, when the block is
    /// whole and holds one response whose head ends in a blank line (no
    /// interim `1xx` responses): what a WAT record's `Headers-Length`,
    /// `Entity-Length` and `Entity-Digest` say of it.
    pub entity: Option<HttpEntity>,
    /// A WARC record as it lies in the file, when its block is whole.
    pub block: Option<RecordBlock>,
}

/// A WARC record as it lies in its file: the length of its head, of its
/// block and of what follows the block, and the block's SHA-1, what a
/// Common Crawl WAT record's `WARC-Header-Length`, `Actual-Content-Length`,
/// `Trailing-Slop-Length` and `Block-Digest` say of it.
///
/// See the example of [`RecordHeads`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RecordBlock {
    /// The head's length in bytes: version line, fields and blank line.
    pub header_length: usize,
    /// The block's length in bytes.
    pub length: usize,
    /// The line ends after the block (`CRLF CRLF`, 4).
    pub trailing_slop: usize,
    /// The block's SHA-1, `sha1:` and base32 (RFC 4648).
    pub digest: String,
    /// Where the record starts in its file, when the reader knows it as a
    /// WAT record's `Container` gives it: in a file that is not
    /// compressed, or at the start of the gzip member that holds it alone.
    pub offset: Option<u64>,
    /// Whether that file is gzipped.
    pub compressed: bool,
}

/// An HTTP response as it lies in a record's block: the length of its
/// head and of its entity (the body as sent, any transfer and content
/// codings kept, no longer than the head's `Content-Length`), what
/// follows the entity, and the entity's SHA-1, as Common Crawl's WAT
/// records give them.
///
/// See the example of [`RecordHeads`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HttpEntity {
    /// The head's length in bytes: status line, fields and blank line.
    pub headers_length: usize,
    /// The entity's length in bytes: the rest of the block, or as much
    /// of it as the head's `Content-Length` says.
    pub length: usize,
    /// The bytes of the block after the entity (past its
    /// `Content-Length`).
    pub trailing_slop: usize,
    /// The entity's SHA-1, `sha1:` and base32 (RFC 4648), as Heritrix
    /// writes a payload digest.
    pub digest: String,
}

/// Which document, message or record a [`LinkRow`] is in ([`LinkRow::unit`]):
/// the rows of one unit come one after another, so a writer that groups
/// them (a WAT record, the URLs of a document once each) ends a unit where
/// the key changes.
///
/// ```
/// let page = b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n<a href=b>b</a><a href=c>c</a>";
/// let record = |id: u32| {
///     let head = format!(
///         "WARC/1.1\r\nWARC-Type: response\r\nWARC-Target-URI: http://a/{id}/\r\n\
///          WARC-Record-ID: <urn:uuid:{id}>\r\nContent-Length: {}\r\n\r\n",
///         page.len()
///     );
///     [head.as_bytes(), page, b"\r\n\r\n"].concat()
/// };
/// let archive = [record(1), record(2)].concat();
/// let out = relink::Rewriter::new().rewrite(&archive)?;
/// let units: Vec<_> = out.rows().iter().map(|row| row.unit()).collect();
/// assert_eq!(units.len(), 4);
/// assert_eq!(units[0], units[1]);
/// assert_ne!(units[1], units[2]);
/// # Ok::<(), relink::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnitKey {
    pub(crate) message: Option<usize>,
    pub(crate) record: Option<(usize, String)>,
}

impl UnitKey {
    /// The key of a message (from 1) or a record, or of a lone document.
    pub(crate) fn new(message: Option<usize>, record: Option<&RecordName>) -> UnitKey {
        UnitKey {
            message,
            record: record.map(|r| (r.number, r.record_id.clone())),
        }
    }

    /// Whether this is the key of `message` and `record`, without making
    /// one (a record's ID is not copied a row).
    pub(crate) fn is(&self, message: Option<usize>, record: Option<&RecordName>) -> bool {
        self.message == message
            && match (&self.record, record) {
                (None, None) => true,
                (Some((number, id)), Some(r)) => *number == r.number && *id == r.record_id,
                _ => false,
            }
    }
}

/// One link with where it is inside its input: the row every report
/// shows, the same fields in the command line's JSON Lines and TSV, the
/// Python package's dicts and the Spark job's columns.
///
/// ```
/// let page = b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n<a href=b>b</a>";
/// let head = format!(
///     "WARC/1.1\r\nWARC-Type: response\r\nWARC-Target-URI: http://a/x/\r\n\
///      WARC-Record-ID: <urn:uuid:1>\r\nContent-Length: {}\r\n\r\n",
///     page.len()
/// );
/// let archive = [head.as_bytes(), page, b"\r\n\r\n"].concat();
/// let out = relink::Rewriter::new().rewrite(&archive)?;
/// let row = &out.rows()[0];
/// let record = row.record.as_deref().unwrap();
/// assert_eq!((record.number, record.target_uri.as_str(), record.record_id.as_str()), (1, "http://a/x/", "<urn:uuid:1>"));
/// assert_eq!((row.message, row.part.as_deref()), (None, None));
/// assert_eq!(row.link.resolved, "http://a/x/b");
/// # Ok::<(), relink::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct LinkRow {
    /// The mbox message it is in, from 1.
    pub message: Option<usize>,
    /// The MIME part it is in (`1.2`; empty for a single-part message).
    pub part: Option<String>,
    /// The web archive record it is in (shared by the rows of one record).
    pub record: Option<std::sync::Arc<RecordName>>,
    /// The link.
    pub link: Link,
}

impl LinkRow {
    /// A link of a document that is no part of an archive or message.
    pub fn new(link: Link) -> Self {
        LinkRow {
            message: None,
            part: None,
            record: None,
            link,
        }
    }

    /// Which document, message or record the link is in.
    pub fn unit(&self) -> UnitKey {
        UnitKey::new(self.message, self.record.as_deref())
    }

    /// Where the link is, as text: `message 3, part 1.2, 4:7`, or for a
    /// record `TARGET-URI 4:7`.
    pub fn location(&self) -> String {
        let mut out = String::new();
        if let Some(n) = self.message {
            out.push_str(&format!("message {n}, "));
        }
        if let Some(record) = &self.record {
            out.push_str(&format!("{} ", record.target_uri));
        }
        if let Some(part) = self.part.as_deref().filter(|p| !p.is_empty()) {
            out.push_str(&format!("part {part}, "));
        }
        out.push_str(&format!("{}:{}", self.link.line, self.link.column));
        out
    }
}

/// The text of a `title` whose start tag ends where `after` begins (RCDATA:
/// up to the first `</title` followed by white space, `/` or `>`, ASCII
/// case-insensitive), `decode`d (the reader's character references) and
/// white space collapsed, as `document.title` gives it (HTML, "The title
/// element"). The HTML and XML readers share it, each with its decoder.
pub(crate) fn title_text(after: &str, decode: fn(&str) -> Cow<'_, str>) -> String {
    let bytes = after.as_bytes();
    let end = (0..bytes.len())
        .find(|&i| {
            bytes[i..].len() >= 7
                && bytes[i..i + 2] == *b"</"
                && bytes[i + 2..i + 7].eq_ignore_ascii_case(b"title")
                && bytes
                    .get(i + 7)
                    .is_none_or(|b| b"\t\n\x0c\r />".contains(b))
        })
        .unwrap_or(after.len());
    let decoded = decode(&after[..end]);
    let words: Vec<&str> = decoded.split_ascii_whitespace().collect();
    words.join(" ")
}

/// The most characters of an anchor's text kept, as a WAT file keeps them.
const ANCHOR_TEXT_CHARS: usize = 100;

/// The text of an `<a>` whose start tag ends where `after` begins: up to
/// its `</a` or the next `<a` (which closes it), whichever comes first, so
/// that reading every anchor of a document reads each byte about once.
/// Tags and comments are left out with nothing in their place (the text of
/// `<b>char</b>acter` is `character`), `decode`d (the reader's references), no-break spaces
/// taken as spaces and white space collapsed, as Common Crawl's WAT records
/// give an anchor's text; the first [`ANCHOR_TEXT_CHARS`] characters.
///
/// `decode` leaves a text without `&`, CR or NUL as it is (HTML's and
/// XML's do), so such text goes to the words as it comes, piece by piece
/// between tags, and nothing is read past the words kept; only an anchor
/// whose text has one is gathered and decoded whole (a reference may go
/// on past a tag, and XML's decoder leaves a text with a bad one as it is).
pub(crate) fn anchor_text(after: &str, decode: fn(&str) -> Cow<'_, str>) -> String {
    let bytes = after.as_bytes();
    let mut words = Collapsed::new(ANCHOR_TEXT_CHARS);
    let mut at = 0;
    while !words.is_full() {
        let open = memchr::memchr(b'<', &bytes[at..]).map(|i| at + i);
        let text = &after[at..open.unwrap_or(bytes.len())];
        if memchr::memchr3(b'&', b'\r', 0, text.as_bytes()).is_some() {
            return decoded_whole(after, decode);
        }
        words.push(text);
        match open.and_then(|open| tag_end(bytes, open)) {
            Some(close) => at = close,
            None => break,
        }
    }
    words.text
}

/// [`anchor_text`] of a text that may hold something to decode: gathered
/// whole (borrowed when no tag comes before its end), then decoded.
fn decoded_whole(after: &str, decode: fn(&str) -> Cow<'_, str>) -> String {
    let bytes = after.as_bytes();
    let mut plain = Cow::Borrowed("");
    let mut at = 0;
    loop {
        let open = memchr::memchr(b'<', &bytes[at..]).map(|i| at + i);
        let text = &after[at..open.unwrap_or(bytes.len())];
        plain = match plain {
            Cow::Borrowed("") => Cow::Borrowed(text),
            Cow::Borrowed(_) if text.is_empty() => plain,
            Cow::Borrowed(before) => Cow::Owned([before, text].concat()),
            Cow::Owned(mut before) => {
                before.push_str(text);
                Cow::Owned(before)
            }
        };
        match open.and_then(|open| tag_end(bytes, open)) {
            Some(close) => at = close,
            None => break,
        }
    }
    let mut words = Collapsed::new(ANCHOR_TEXT_CHARS);
    words.push(&decode(&plain));
    words.text
}

/// Where the tag or comment starting at `open` ends, past its `>`; none
/// for an anchor's start or end tag (the end of an anchor's text) and for
/// one that never ends.
fn tag_end(bytes: &[u8], open: usize) -> Option<usize> {
    let tag = &bytes[open + 1..];
    let name = tag.strip_prefix(b"/").unwrap_or(tag);
    let is_a = name.first().is_some_and(|b| b.eq_ignore_ascii_case(&b'a'))
        && name
            .get(1)
            .is_none_or(|b| b.is_ascii_whitespace() || *b == b'>' || *b == b'/');
    match is_a {
        true => None,
        false if tag.starts_with(b"!--") => {
            memchr::memmem::find(&bytes[open..], b"-->").map(|i| open + i + 3)
        }
        false => memchr::memchr(b'>', &bytes[open..]).map(|i| open + i + 1),
    }
}

/// Words joined by one space as they come (split at ASCII white space and
/// no-break spaces), up to `most` characters.
struct Collapsed {
    text: String,
    chars: usize,
    most: usize,
    /// Whether white space came since the last word.
    space: bool,
}

impl Collapsed {
    fn new(most: usize) -> Collapsed {
        Collapsed {
            text: String::new(),
            chars: 0,
            most,
            space: false,
        }
    }

    fn is_full(&self) -> bool {
        self.chars == self.most
    }

    /// Takes the next piece of text: a run of white space at once, ASCII
    /// words joined by single spaces (text as it is kept) as one run, any
    /// other character as one.
    fn push(&mut self, piece: &str) {
        let bytes = piece.as_bytes();
        let mut at = 0;
        while at < bytes.len() {
            let b = bytes[at];
            if b.is_ascii_whitespace() {
                at += 1;
                while bytes.get(at).is_some_and(u8::is_ascii_whitespace) {
                    at += 1;
                }
                self.space = !self.text.is_empty();
                continue;
            }
            let end = match b.is_ascii() {
                true => ascii_run_end(bytes, at),
                false => {
                    let c = piece[at..].chars().next().unwrap_or_default();
                    if c == '\u{a0}' {
                        self.space = !self.text.is_empty();
                        at += c.len_utf8();
                        continue;
                    }
                    at + c.len_utf8()
                }
            };
            if self.space {
                if self.is_full() {
                    return;
                }
                self.text.push(' ');
                self.chars += 1;
                self.space = false;
            }
            if self.is_full() {
                return;
            }
            if self.text.capacity() == 0 {
                // Room for as many characters as are kept, of ASCII, at
                // once: an anchor's text that grew piece by piece was
                // reallocated as it grew.
                self.text.reserve(self.most);
            }
            // A run of ASCII is as many characters as bytes; another
            // character is one.
            let word = match b.is_ascii() {
                true => &piece[at..end.min(at + self.most - self.chars)],
                false => &piece[at..end],
            };
            self.text.push_str(word);
            self.chars += if b.is_ascii() { word.len() } else { 1 };
            at = end;
        }
    }
}

/// Where the run of ASCII words starting at `at` ends: words of ASCII
/// other than white space, each but the first after one space (as they
/// are kept), up to other white space, a space that ends them, or a
/// character beyond ASCII.
fn ascii_run_end(bytes: &[u8], at: usize) -> usize {
    let word = |b: u8| b.is_ascii() && !b.is_ascii_whitespace();
    let mut end = at + 1;
    while let Some(&b) = bytes.get(end) {
        match b {
            b' ' if bytes.get(end + 1).is_some_and(|&n| word(n)) => end += 2,
            _ if word(b) => end += 1,
            _ => break,
        }
    }
    end
}

#[cfg(test)]
mod tests {
    use super::*;

    fn title_text_plain(after: &str) -> String {
        title_text(after, |s| Cow::Borrowed(s))
    }

    fn anchor_text_plain(after: &str) -> String {
        anchor_text(after, |s| Cow::Borrowed(s))
    }

    #[test]
    fn a_titles_text_ends_at_its_end_tag() {
        assert_eq!(
            title_text_plain(" A &amp;\n <b>B</b> </TITLE ><p>x"),
            "A &amp; <b>B</b>"
        );
        assert_eq!(title_text_plain("a</titles></title>"), "a</titles>");
        assert_eq!(title_text_plain("no end"), "no end");
        assert_eq!(title_text_plain("</title"), "");
    }

    #[test]
    fn an_anchors_text_is_its_words_up_to_its_end() {
        let cases = [
            ("Next <b>page</b></a> after", "Next page"),
            ("one\n  two <!-- <a> --> three</A>", "one two three"),
            ("<abbr>HTML</abbr> spec</a>", "HTML spec"),
            ("", ""),
            ("unclosed <img src=x", "unclosed"),
            // Elements join their text with nothing between, and no-break
            // spaces are spaces, as Common Crawl's WAT records have it.
            ("<b>char</b>acter</a>", "character"),
            ("<span>1</span><span>Two</span></a>", "1Two"),
            ("a\u{a0}\u{a0}b</a>", "a b"),
        ];
        for (after, text) in cases {
            assert_eq!(anchor_text_plain(after), text, "{after:?}");
        }
        let long = "x".repeat(300) + "</a>";
        assert_eq!(anchor_text_plain(&long).len(), ANCHOR_TEXT_CHARS);
    }

    /// An anchor's text as its words listed and joined: the oracle of
    /// [`anchor_text`]'s one pass.
    fn anchor_text_listed(after: &str, decode: fn(&str) -> Cow<'_, str>) -> String {
        let mut plain = String::new();
        let mut rest = after;
        while let Some(open) = rest.find('<') {
            plain.push_str(&rest[..open]);
            let tag = &rest.as_bytes()[open + 1..];
            let name = tag.strip_prefix(b"/").unwrap_or(tag);
            if name.first().is_some_and(|b| b.eq_ignore_ascii_case(&b'a'))
                && name
                    .get(1)
                    .is_none_or(|b| b.is_ascii_whitespace() || *b == b'>' || *b == b'/')
            {
                rest = "";
                break;
            }
            let close = match tag.starts_with(b"!--") {
                true => rest[open..].find("-->").map(|i| open + i + 3),
                false => rest[open..].find('>').map(|i| open + i + 1),
            };
            rest = close.map_or("", |close| &rest[close..]);
        }
        plain.push_str(rest);
        let decoded = decode(&plain);
        let words: Vec<&str> = decoded
            .split(|c: char| c.is_ascii_whitespace() || c == '\u{a0}')
            .filter(|w| !w.is_empty())
            .collect();
        words.join(" ").chars().take(ANCHOR_TEXT_CHARS).collect()
    }

    /// The bytes handed to the decoder by `an_anchors_text_of_words_is_read_no_further`.
    static DECODED: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

    #[test]
    fn an_anchors_text_of_words_is_read_no_further() {
        use std::sync::atomic::Ordering;
        fn counted(s: &str) -> Cow<'_, str> {
            DECODED.fetch_add(s.len(), Ordering::Relaxed);
            Cow::Borrowed(s)
        }
        // A card of a thousand paragraphs: its first words are its text,
        // and the rest is neither gathered nor decoded.
        let card = "<p>one two</p>\n".repeat(1000) + "</a>";
        let text = anchor_text(&card, counted);
        assert_eq!(text, "one two ".repeat(13)[..100]);
        assert!(DECODED.load(Ordering::Relaxed) < 1000, "{DECODED:?}");
    }

    #[test]
    fn an_anchors_text_is_its_words_listed_and_joined() {
        fn plain(s: &str) -> Cow<'_, str> {
            Cow::Borrowed(s)
        }
        fn references(s: &str) -> Cow<'_, str> {
            Cow::Owned(s.replace("&x;", "X"))
        }
        let long = "x".repeat(97);
        let pieces = [
            "a",
            " ",
            // Words and one space, read as one run; a control character
            // that is no white space.
            "b c",
            "\u{b}",
            "\u{a0}",
            "\u{e9}",
            "<b>",
            "</b>",
            "<!-- c -->",
            "<!-->",
            "<",
            ">",
            "</a>",
            "<a",
            "<ab>",
            "&x",
            ";",
            "\n",
            &long,
        ];
        // Every text of up to four pieces.
        let mut texts = vec![String::new()];
        for _ in 0..4 {
            let longer: Vec<String> = texts
                .iter()
                .flat_map(|t| pieces.iter().map(move |p| format!("{t}{p}")))
                .collect();
            texts.extend(longer);
        }
        for text in &texts {
            for decode in [plain, references] {
                let listed = anchor_text_listed(text, decode);
                assert_eq!(anchor_text(text, decode), listed, "{text:?}");
            }
        }
    }
}
