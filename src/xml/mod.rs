//! XML documents: Atom (RFC 4287) and RSS feeds, RSS 1.0 (RDF), SVG, and
//! XHTML read as XML.
//!
//! The base of an element is its `xml:base`, a relative one resolved
//! against its parent's base (XML Base, section 4.3), scoped to its
//! subtree; above the root, the document's own layers as for any document
//! (the enclosing entity, HTTP headers in a WARC, the retrieval URL). The
//! places that hold URLs are the table of [`links`]. Escaped HTML in a feed
//! (RSS `description`, `content:encoded`, Atom text constructs with
//! `type="html"`) is an HTML document whose base is its element's: it is
//! handed to the HTML reader through [`Documents`], and its changes are
//! written back escaped the way the content was ([`content`]).
//!
//! quick-xml gives each event's byte position in the text, and its
//! borrowed attribute values lie in the text, so every URL is replaced in
//! place; nothing is serialised. A document that is not well-formed is
//! left as it is, with a warning naming the line.

mod content;
mod links;

use std::borrow::Cow;
use std::ops::Range;

use encoding_rs::{Encoding, UTF_8, UTF_16BE, UTF_16LE};
use quick_xml::events::{BytesStart, Event};
use quick_xml::name::ResolveResult;
use quick_xml::reader::NsReader;

use crate::base::{Base, BaseChain, BaseSource, Layer, LayerStatus};
use crate::encoding;
use crate::error::Error;
use crate::links::{Outcome, Place, WarningKind};
use crate::options::Options;
use crate::splice::{self, Edit, Make};
use crate::text::{self, Documents, Embedded, Resolver, SameDocument, TextRewrite};
use crate::{srcset, style};

use content::{Content, Written};
use links::{Holder, LinkRow, Root, Syntax};

/// Rewrites an XML document. A document whose root is `html` outside the
/// XHTML namespace, or that is not well-formed and starts as HTML, is HTML
/// (an `.xhtml` file that browsers would read as HTML): it goes to the HTML
/// reader through `documents`.
pub fn rewrite(
    bytes: &[u8],
    (options, make): (&Options<'_>, Make),
    documents: &dyn Documents,
) -> Result<Outcome, Error> {
    let decode = |bytes| encoding::sniff_decode_with(bytes, options.transport, declared, UTF_8);
    let mut as_html = false;
    let rewrite = |text: &str| {
        let (out, html) = rewrite_text_rows(text, options, documents);
        as_html = html;
        out
    };
    let outcome = text::rewrite_bytes_made(bytes, decode, rewrite, make)?;
    if as_html {
        return documents.rewrite(Embedded::Html, bytes, options);
    }
    Ok(outcome)
}

/// The encoding of an XML document (XML 1.0 appendix F, with the transport
/// first as RFC 7303 says): a byte order mark, the transport's charset, the
/// XML declaration's `encoding`, UTF-16 told by its first bytes, else
/// UTF-8 (the rewrite decodes as it sniffs, by [`encoding::sniff_decode_with`]).
#[cfg(test)]
fn sniff(bytes: &[u8], transport: Option<&'static Encoding>) -> encoding::Sniffed {
    encoding::sniff_with(bytes, transport, declared, UTF_8)
}

/// What an XML document declares of its encoding without a byte order
/// mark: UTF-16 told by the first bytes of its declaration, else the
/// declaration's `encoding`.
fn declared(bytes: &[u8]) -> Option<&'static Encoding> {
    if bytes.starts_with(b"<\0?\0") {
        return Some(UTF_16LE);
    }
    if bytes.starts_with(b"\0<\0?") {
        return Some(UTF_16BE);
    }
    declared_encoding(bytes)
}

/// The `encoding` of an XML declaration in an ASCII-compatible encoding
/// (UTF-16 named there without a byte order mark is read as UTF-8: the
/// bytes say otherwise).
fn declared_encoding(bytes: &[u8]) -> Option<&'static Encoding> {
    let head = bytes.strip_prefix(b"<?xml")?;
    let end = memchr::memmem::find(&head[..head.len().min(1024)], b"?>")?;
    let decl = &head[..end];
    let at = memchr::memmem::find(decl, b"encoding")? + "encoding".len();
    let rest = decl[at..]
        .trim_ascii_start()
        .strip_prefix(b"=")?
        .trim_ascii_start();
    let quote = *rest.first()?;
    if quote != b'"' && quote != b'\'' {
        return None;
    }
    let label = &rest[1..];
    let label = &label[..label.iter().position(|&b| b == quote)?];
    let encoding = Encoding::for_label(label)?;
    Some(if encoding == UTF_16LE || encoding == UTF_16BE {
        UTF_8
    } else {
        encoding
    })
}

/// Whether bytes start like an XML document relink reads: an Atom feed, an
/// RSS feed, RSS 1.0 (RDF), SVG, or an XHTML document with an XML
/// declaration, told by the root element after the prolog.
pub fn looks_like_xml(head: &[u8]) -> bool {
    let head = head.strip_prefix(b"\xef\xbb\xbf").unwrap_or(head);
    let declared = head.trim_ascii_start().starts_with(b"<?xml");
    root_tag(head).is_some_and(|(local, tag)| {
        matches!(local, b"rss" | b"feed" | b"RDF" | b"svg")
            || (declared
                && local == b"html"
                && memchr::memmem::find(tag, links::XHTML.as_bytes()).is_some())
    })
}

/// Whether bytes start like a sitemap or an OPML outline, told by the root
/// element after the prolog: `urlset` or `sitemapindex` whose start tag
/// names the sitemaps.org namespace, or `opml`.
pub fn looks_like_sitemap(head: &[u8]) -> bool {
    let head = head.strip_prefix(b"\xef\xbb\xbf").unwrap_or(head);
    root_tag(head).is_some_and(|(local, tag)| {
        // The namespace declared in the start tag itself.
        let start_tag = &tag[..memchr::memchr(b'>', tag).unwrap_or(tag.len())];
        local == b"opml"
            || (matches!(local, b"urlset" | b"sitemapindex")
                && memchr::memmem::find(start_tag, links::SITEMAP.as_bytes()).is_some())
    })
}

/// The root element's local name and the rest of the head from its name
/// on, past the prolog (declaration, processing instructions, comments, a
/// document type declaration), if the head shows it.
fn root_tag(head: &[u8]) -> Option<(&[u8], &[u8])> {
    fn skip_past<'a>(rest: &'a [u8], end: &[u8]) -> Option<&'a [u8]> {
        memchr::memmem::find(rest, end).map(|i| &rest[i + end.len()..])
    }
    let mut rest = head;
    loop {
        rest = rest.trim_ascii_start();
        rest = if rest.starts_with(b"<?") {
            skip_past(rest, b"?>")?
        } else if rest.starts_with(b"<!--") {
            skip_past(rest, b"-->")?
        } else if rest.starts_with(b"<!") {
            // A document type declaration, its internal subset included.
            let close = rest.iter().position(|&b| b == b'>');
            let open = rest.iter().position(|&b| b == b'[');
            match (open, close) {
                (Some(o), Some(c)) if o < c => skip_past(rest, b"]>")?,
                _ => skip_past(rest, b">")?,
            }
        } else {
            let tag = rest.strip_prefix(b"<")?;
            let len = tag
                .iter()
                .position(|b| b.is_ascii_whitespace() || matches!(b, b'>' | b'/'))
                .unwrap_or(tag.len());
            let name = &tag[..len];
            let local = name.rsplit(|&b| b == b':').next().unwrap_or(name);
            return Some((local, tag));
        };
    }
}

/// Where a namespace URI is known to the table, its constant; `""` for no
/// namespace; else a name no row matches.
fn known_namespace(resolved: &ResolveResult<'_>) -> &'static str {
    const KNOWN: &[&str] = &[
        links::ATOM,
        links::ATOM_03,
        links::RSS_10,
        links::RSS_090,
        links::RDF,
        links::CONTENT,
        links::WFW,
        links::XHTML,
        links::SVG,
        links::XLINK,
        links::SITEMAP,
        links::SITEMAP_IMAGE,
        links::SITEMAP_VIDEO,
        links::OPF,
        links::NCX,
        links::OCF,
    ];
    match resolved {
        ResolveResult::Bound(ns) => {
            let ns = ns.into_inner();
            KNOWN.iter().find(|k| **k == ns).copied().unwrap_or("\u{0}")
        }
        ResolveResult::Unbound => "",
        // A prefix never declared: nothing the table knows.
        ResolveResult::Unknown(_) => "\u{0}",
    }
}

/// An element whose content is being gathered: a URL in its text, or an
/// HTML document.
#[derive(Debug)]
struct Capture<'t> {
    row: &'static LinkRow,
    /// The element's name as written.
    name: String,
    /// Where its start tag is.
    at: usize,
    content: Content<'t>,
    /// Whether the content has an element or an unknown entity in it: it
    /// is no URL or HTML document relink can rewrite.
    mixed: bool,
}

/// How deep `xml:base` attributes nest (each inside an element of the one
/// before) before relink stops following them, as the HTML reader stops
/// nesting elements at its `MAX_TREE_DEPTH`. Each
/// relative `xml:base` resolves against its parent's base, so a deep
/// chain of them makes bases ever longer: time and memory grow with the
/// square of the depth. An element whose `xml:base` would be deeper, and
/// every element inside it, keeps its links as they are, with one
/// warning; the links outside it are rewritten as usual.
pub const MAX_XML_BASE_DEPTH: u32 = 1024;

/// The base of the elements inside an `xml:base` nested past
/// [`MAX_XML_BASE_DEPTH`]: an index into no list.
const TOO_DEEP: usize = usize::MAX;

/// An open element.
#[derive(Debug)]
struct Frame<'t> {
    /// Its base, an index into [`Walk::bases`].
    base: usize,
    /// Boxed: few elements capture, and a frame is kept for each element
    /// open, thousands deep in a hostile document (a frame of the capture
    /// itself took some ten bytes of memory a byte of such a document).
    capture: Option<Box<Capture<'t>>>,
}

/// Why a document is not read.
enum Stop {
    /// Not well-formed: where, and what.
    Malformed(usize, String),
    /// HTML after all.
    Html,
}

/// One pass over a document's events.
struct Walk<'t, 'o, 'd> {
    r: Resolver<'t, 'o>,
    documents: &'d dyn Documents,
    /// Every base met: the document's first (given at the root), then one
    /// per `xml:base`.
    bases: Vec<Option<Base>>,
    /// How many `xml:base` attributes each base of [`Walk::bases`] is
    /// nested in (the root's, if any, counts).
    base_depths: Vec<u32>,
    /// Whether an `xml:base` nested past [`MAX_XML_BASE_DEPTH`] was met.
    too_deep: bool,
    frames: Vec<Frame<'t>>,
    /// What the root element says the document is (RSS, whose elements
    /// are in no namespace, a sitemap, OPML): the rows that apply only
    /// under it.
    root: Root,
    /// A sitemap's own site, whose host every `loc` must be on.
    sitemap_site: Option<Site>,
    /// Whether the root is named `html`: such a document that is not
    /// well-formed is HTML.
    root_html: bool,
    root_closed: bool,
    /// The layers of each `xml:base` below the root.
    nested: Vec<Layer>,
    /// Whether a link was left for want of a base.
    lacking_base: bool,
    /// What a link with no base is recorded against, when links are.
    stand_in: Option<Base>,
    /// An XHTML document's first `base` element with an `href`: its value
    /// and where its tag starts, found before the walk
    /// ([`xhtml_base`]).
    base_element: Option<(String, usize)>,
    /// The layer below the document (the retrieval URL, the enclosing
    /// entity's base), an index into [`Walk::bases`] once a `base`
    /// element's own `href` needed it.
    fallback: Option<usize>,
}

/// The largest XML text whose links are kept until it is read whole when
/// they go to a sink; a larger one is read twice. A link kept takes some
/// 370 bytes, and a sitemap or a nav has one every 30 or 40 bytes: kept
/// up to a mebibyte, they took ten times the text.
const HELD_XML_BYTES: usize = 64 << 10;

/// [`rewrite_text`], for options that may hand links to a sink. A document
/// found not well-formed at its end is left as it is and hands over no
/// link, so none may leave before the end: a small one keeps its links and
/// hands them over once read; a large one is first read for counts only,
/// and read again handing its links over only if it is well-formed XML.
fn rewrite_text_rows(
    text: &str,
    options: &Options<'_>,
    documents: &dyn Documents,
) -> (TextRewrite, bool) {
    let Some(rows) = options.rows else {
        return rewrite_text(text, options, documents);
    };
    if text.len() <= HELD_XML_BYTES {
        let kept = Options {
            rows: None,
            ..*options
        };
        let (mut out, html) = rewrite_text(text, &kept, documents);
        for link in out.links.drain(..) {
            rows.0.row(crate::LinkRow::new(link));
        }
        return (out, html);
    }
    let counts = Options {
        rows: None,
        details: crate::options::Details::Counts,
        ..*options
    };
    let (out, html) = rewrite_text(text, &counts, documents);
    let malformed = out
        .warnings
        .iter()
        .any(|w| w.kind == WarningKind::Malformed && w.message.starts_with("not well-formed xml"));
    if html || malformed {
        return (out, html);
    }
    rewrite_text(text, options, documents)
}

/// The edits of an XML document given as text, and whether it is HTML
/// after all.
fn rewrite_text(
    text: &str,
    options: &Options<'_>,
    documents: &dyn Documents,
) -> (TextRewrite, bool) {
    let mut walk = Walk {
        r: Resolver {
            browser: true,
            ..Resolver::new(text, options)
        },
        documents,
        bases: Vec::new(),
        base_depths: Vec::new(),
        too_deep: false,
        frames: Vec::new(),
        root: Root::Other,
        sitemap_site: None,
        root_html: false,
        root_closed: false,
        nested: Vec::new(),
        lacking_base: false,
        stand_in: text::stand_in(options),
        base_element: xhtml_base(text),
        fallback: None,
    };
    match walk.run() {
        Ok(()) => {}
        Err(Stop::Html) => return (TextRewrite::default(), true),
        Err(Stop::Malformed(..)) if walk.root_html => return (TextRewrite::default(), true),
        Err(Stop::Malformed(at, what)) => {
            let mut out = std::mem::take(&mut walk.r.out);
            out.edits = splice::Edits::new();
            out.links.clear();
            out.rewritten = 0;
            out.warnings.clear();
            walk.r.out = out;
            walk.r.warn(
                at,
                WarningKind::Malformed,
                format_args!("not well-formed xml ({what}): left as it is"),
            );
            walk.r.out.base = walk.bases.iter().flatten().next().cloned();
            return (walk.r.out, false);
        }
    }
    // The layers: the document's (forced, the root's `xml:base`), each
    // `xml:base` below the root, then the outer one.
    let layers = &mut walk.r.out.layers;
    let outer_at = layers.len() - usize::from(options.outer.is_some());
    layers.splice(outer_at..outer_at, walk.nested);
    if walk.lacking_base {
        walk.r.warn_no_base();
    }
    let base = walk.bases.iter().flatten().next().cloned();
    (walk.r.finish(base), false)
}

/// Where a URL is served from, as the sitemap protocol compares a `loc`
/// with the sitemap: scheme, host (lowercase) and port (the scheme's
/// default when none is written).
#[derive(Debug, PartialEq, Eq)]
struct Site {
    scheme: String,
    host: Option<String>,
    port: Option<u16>,
}

impl Site {
    /// The site of an absolute URL, if it parses.
    fn of(url: &str) -> Option<Site> {
        let url = url::Url::parse(url).ok()?;
        Some(Site {
            scheme: url.scheme().to_owned(),
            host: url.host_str().map(str::to_ascii_lowercase),
            port: url.port_or_known_default(),
        })
    }
}

/// XML white space (XML 1.0 production 3).
fn is_xml_space(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\n' | '\r')
}

impl Walk<'_, '_, '_> {
    fn run(&mut self) -> Result<(), Stop> {
        let text = self.r.text;
        let mut reader = NsReader::from_str(text);
        let mut root_seen = false;
        loop {
            let at = usize::try_from(reader.buffer_position()).unwrap_or(usize::MAX);
            let (namespace, event) = match reader.read_resolved_event() {
                Ok((ns, event)) => (known_namespace(&ns), event),
                Err(err) => {
                    let at = usize::try_from(reader.error_position()).unwrap_or(0);
                    return Err(Stop::Malformed(at.min(text.len()), err.to_string()));
                }
            };
            let end = usize::try_from(reader.buffer_position()).unwrap_or(usize::MAX);
            match event {
                Event::Start(e) | Event::Empty(e) => {
                    let empty = text.as_bytes().get(end.wrapping_sub(2)) == Some(&b'/');
                    if self.root_closed {
                        return Err(Stop::Malformed(at, "a second root element".into()));
                    }
                    if !root_seen {
                        root_seen = true;
                        self.root(&e, namespace)?;
                    }
                    if let Some(capture) = self.frames.last_mut().and_then(|f| f.capture.as_mut()) {
                        capture.mixed = true;
                    }
                    self.element(&reader, &e, namespace, (at, end), empty)?;
                    if empty && self.frames.is_empty() {
                        self.root_closed = true;
                    }
                }
                Event::End(_) => {
                    let Some(frame) = self.frames.pop() else {
                        return Err(Stop::Malformed(at, "an end tag with no start".into()));
                    };
                    if let Some(capture) = frame.capture.filter(|c| !c.mixed) {
                        self.captured(*capture, frame.base);
                    }
                    self.root_closed = self.frames.is_empty();
                }
                Event::Text(_) => {
                    let raw = &text[at.min(end)..end.min(text.len())];
                    match self.frames.last_mut() {
                        Some(frame) => {
                            if let Some(capture) = frame.capture.as_mut() {
                                capture.content.push(raw, at, Written::Literal);
                            }
                        }
                        None if !raw.trim_matches(is_xml_space).is_empty() => {
                            return Err(Stop::Malformed(at, "text outside the root element".into()));
                        }
                        None => {}
                    }
                }
                Event::CData(_) => {
                    let inner = at + "<![CDATA[".len()..end.saturating_sub("]]>".len());
                    if self.frames.is_empty() {
                        return Err(Stop::Malformed(at, "text outside the root element".into()));
                    }
                    if let Some(capture) = self.frames.last_mut().and_then(|f| f.capture.as_mut()) {
                        let raw = text.get(inner.clone()).unwrap_or("");
                        capture.content.push(raw, inner.start, Written::Cdata);
                    }
                }
                Event::GeneralRef(r) => {
                    if self.frames.is_empty() {
                        return Err(Stop::Malformed(at, "a reference outside the root element".into()));
                    }
                    let ch = if r.is_char_ref() {
                        r.resolve_char_ref().ok().flatten()
                    } else {
                        quick_xml::escape::resolve_predefined_entity(r.as_ref())
                            .and_then(|s| s.chars().next())
                    };
                    if let Some(capture) = self.frames.last_mut().and_then(|f| f.capture.as_mut()) {
                        match ch {
                            Some(ch) => capture.content.push_reference(ch, &text[at..end], at..end),
                            None => capture.mixed = true,
                        }
                    }
                }
                Event::Eof => {
                    if !self.frames.is_empty() {
                        return Err(Stop::Malformed(text.len(), "an element left open".into()));
                    }
                    if !root_seen {
                        return Err(Stop::Malformed(0, "no root element".into()));
                    }
                    return Ok(());
                }
                Event::Decl(_) if at > 0 => self.r.warn(
                    at,
                    WarningKind::Malformed,
                    "the xml declaration is not at the start (white space or a comment before it); read as xml all the same",
                ),
                Event::Comment(_) | Event::Decl(_) | Event::PI(_) | Event::DocType(_) => {}
            }
        }
    }

    /// The root element: `html` outside the XHTML namespace is an HTML
    /// document; `rss`, and RSS 1.0's `RDF`, make a feed; `urlset` and
    /// `sitemapindex` a sitemap, `opml` an outline.
    fn root(&mut self, e: &BytesStart<'_>, namespace: &'static str) -> Result<(), Stop> {
        let local = e.local_name().into_inner();
        self.root_html = local.eq_ignore_ascii_case("html");
        if self.root_html && namespace != links::XHTML {
            return Err(Stop::Html);
        }
        self.root = Root::of(namespace, local);
        if self.root == Root::Sitemap {
            let own = self.r.options.outer.or(self.r.options.forced);
            self.sitemap_site = own.and_then(|b| Site::of(b.url.as_str()));
        }
        Ok(())
    }

    /// A start tag (or an empty element): its base, the URLs of its
    /// attributes, and whether its content holds one.
    fn element(
        &mut self,
        reader: &NsReader<&[u8]>,
        e: &BytesStart<'_>,
        namespace: &'static str,
        (at, end): (usize, usize),
        empty: bool,
    ) -> Result<(), Stop> {
        let text = self.r.text;
        let name = e.name().into_inner();
        let local = e.local_name().into_inner();
        // The attributes, with where each value lies in the text.
        let mut attributes = Vec::new();
        let mut xml_base = None;
        let mut type_attribute = None;
        for attribute in e.attributes() {
            let attribute = attribute.map_err(|err| Stop::Malformed(at, err.to_string()))?;
            let Cow::Borrowed(value) = attribute.value else {
                continue;
            };
            let offset = (value.as_ptr() as usize).wrapping_sub(text.as_ptr() as usize);
            if offset > text.len() {
                continue;
            }
            let key = attribute.key;
            if key.into_inner() == "xml:base" {
                xml_base = Some((value, offset));
                continue;
            }
            let (attr_ns, attr_local) = reader.resolver().resolve_attribute(key);
            let attr_ns = known_namespace(&attr_ns);
            let attr_local = attr_local.into_inner();
            if attr_ns.is_empty() && attr_local == "type" {
                type_attribute = Some(value.trim_matches(is_xml_space));
            }
            attributes.push((key.into_inner(), attr_ns, attr_local, value, offset));
        }
        let parent = self.frames.last().map(|f| f.base);
        let base = self.base_of(parent, xml_base, at);
        let is_base = namespace == links::XHTML && local == "base";
        if namespace == links::XHTML
            && self.r.options.details == crate::options::Details::Attributes
        {
            let named: Vec<(&str, &str)> = attributes.iter().map(|a| (a.0, a.3)).collect();
            self.xhtml_details(local, &named, text.get(end..).unwrap_or(""));
            self.xhtml_listed((name, local), &attributes, base);
        }
        for (qname, attr_ns, attr_local, value, offset) in attributes {
            let Some(row) = links::attribute(namespace, local, attr_ns, attr_local, self.root)
            else {
                continue;
            };
            debug_assert!(matches!(row.holder, Holder::Attribute(..)));
            let same = links::same_document(namespace, local, attr_ns);
            let place = links::place(row, name, qname);
            match row.syntax {
                // A `base` element's own `href` resolves against the layer
                // below the document, as in HTML: not against itself (a
                // forced base is above both).
                Syntax::Url
                    if is_base && attr_local == "href" && self.r.options.forced.is_none() =>
                {
                    if let Some(fallback) = self.fallback() {
                        self.attribute_url(fallback, place, value, offset, same);
                    }
                }
                Syntax::Url => self.attribute_url(base, place, value, offset, same),
                Syntax::Srcset | Syntax::Css => {
                    self.attribute_list(base, place, value, offset, row.syntax)
                }
            }
        }
        self.r.details = None;
        if !empty {
            let capture = links::content(namespace, local, type_attribute, self.root).map(|row| {
                Box::new(Capture {
                    row,
                    name: name.to_owned(),
                    at,
                    content: Content::new(self.r.text, 0),
                    mixed: false,
                })
            });
            self.frames.push(Frame { base, capture });
        }
        Ok(())
    }

    /// What an XHTML element says besides its links, as an HTML one's: the title, metas and language of the
    /// document's head, and the attributes and text kept with the links of
    /// the element (set as the resolver's details until its end). `named`
    /// are its attributes' names and values as written; `after` is the
    /// text after the start tag.
    fn xhtml_details(&mut self, local: &str, named: &[(&str, &str)], after: &str) {
        use crate::links::{HtmlHead, LinkDetails};
        let value = |n: &str| {
            let (_, v) = named.iter().find(|(name, _)| *name == n)?;
            Some(quick_xml::escape::unescape(v).map_or_else(|_| (*v).to_owned(), Cow::into_owned))
        };
        match local {
            "title" => {
                let head = self.r.out.head.get_or_insert_default();
                if head.title.is_none() {
                    head.title = Some(crate::links::title_text(after, xml_text));
                }
            }
            "html" => {
                for (attribute, name) in [("lang", "HTML@/lang"), ("xml:lang", "HTML@/xml:lang")] {
                    if let Some(content) = value(attribute) {
                        let meta = vec![("name", name.to_owned()), ("content", content)];
                        self.r.out.head.get_or_insert_default().metas.push(meta);
                    }
                }
            }
            "meta" => {
                let meta: Vec<(&'static str, String)> = HtmlHead::META_NAMES
                    .iter()
                    .filter_map(|&n| Some((n, value(n)?)))
                    .collect();
                if !meta.is_empty() {
                    self.r.out.head.get_or_insert_default().metas.push(meta);
                }
            }
            _ => {}
        }
        let attributes: Vec<(&'static str, String)> = LinkDetails::NAMES
            .iter()
            .filter_map(|&n| Some((n, value(n)?)))
            .collect();
        let text = (local == "a").then(|| crate::links::anchor_text(after, xml_text));
        // (An XHTML link's landmark is not looked for: the XML reader keeps
        // no stack of element names.)
        self.r.details = (!attributes.is_empty() || text.is_some()).then(|| {
            Box::new(LinkDetails {
                attributes,
                text,
                context: None,
            })
        });
    }

    /// Keeps the URLs of an XHTML element's attributes that a WAT file
    /// lists but the link table does not rewrite (`data-href`,
    /// `onclick`...: see [`crate::wat_links`]), as an HTML element's: for
    /// the WAT file only, the document does not change there.
    fn xhtml_listed(
        &mut self,
        (name, local): (&str, &str),
        attributes: &[(&str, &'static str, &str, &str, usize)],
        base: usize,
    ) {
        use crate::links::{Link, LinkPlace};
        use crate::wat_links::{Listed, listed, onclick_urls};
        let base = self.bases.get(base).cloned().flatten();
        for &(qname, attr_ns, attr_local, value, offset) in attributes {
            let Some(how) = listed(local, attr_local).filter(|_| attr_ns.is_empty()) else {
                continue;
            };
            if links::attribute(links::XHTML, local, attr_ns, attr_local, self.root).is_some() {
                continue;
            }
            let unescaped;
            let urls: Vec<&str> = match how {
                Listed::Value => {
                    unescaped = quick_xml::escape::unescape(value).unwrap_or(Cow::Borrowed(value));
                    vec![&unescaped]
                }
                Listed::OnClick => onclick_urls(value).collect(),
            };
            let (line, column) = self.r.lines.locate(self.r.text, offset);
            for url in urls {
                let resolved = base
                    .as_ref()
                    .and_then(|b| b.url.resolve(url.trim_matches(is_xml_space)).ok());
                let link = Link {
                    line,
                    column,
                    place: LinkPlace::Attribute(name.to_owned(), qname.to_owned()),
                    original: url.to_owned(),
                    resolved: resolved.as_deref().unwrap_or(url).to_owned(),
                    base: resolved.is_some().then(|| base.clone()).flatten(),
                    changed: false,
                    unresolved: resolved.is_none(),
                    details: None,
                };
                self.r.out.head.get_or_insert_default().listed.push(link);
            }
        }
    }

    /// The base of an element: its parent's, or the one its `xml:base`
    /// gives; at the root, the document's (the root's `xml:base`, else the
    /// outer base). Returns its index in `bases`.
    fn base_of(
        &mut self,
        parent: Option<usize>,
        xml_base: Option<(&str, usize)>,
        at: usize,
    ) -> usize {
        let options = self.r.options;
        let value = xml_base.map(|(raw, offset)| {
            let value = quick_xml::escape::unescape(raw).map_or(Cow::Borrowed(raw), |v| v);
            (value.trim_matches(is_xml_space).to_owned(), offset)
        });
        let Some(parent) = parent else {
            // The root: the document's chain.
            let base = self.root_base(value.as_ref(), at);
            self.bases.push(base);
            self.base_depths.push(u32::from(value.is_some()));
            return self.bases.len() - 1;
        };
        let Some((value, offset)) = value else {
            return parent;
        };
        if parent == TOO_DEEP {
            return TOO_DEEP;
        }
        let depth = self.base_depths[parent] + 1;
        if depth > MAX_XML_BASE_DEPTH {
            if !std::mem::replace(&mut self.too_deep, true) {
                self.r.warn(
                    offset,
                    WarningKind::TooDeep,
                    format_args!("xml:base nested deeper than {MAX_XML_BASE_DEPTH}; the links inside left as they are"),
                );
            }
            return TOO_DEEP;
        }
        let line = self.r.lines.locate(self.r.text, at).0;
        let mut chain = BaseChain::new(options.rules, options.forced, self.bases[parent].as_ref());
        if let Err(err) = chain.offer(BaseSource::XmlBase { line }, &value) {
            self.r.warn(
                offset,
                WarningKind::LayerIgnored,
                format_args!("xml:base ignored: {err}"),
            );
        }
        let (base, layers) = chain.finish();
        // The layers are the forced base (if any), this one, the parent's:
        // this one is the first that is not forced.
        self.nested
            .extend(layers.into_iter().find(|l| l.source != BaseSource::Forced));
        self.bases.push(base);
        self.base_depths.push(depth);
        self.bases.len() - 1
    }

    /// The document's base, given at its root: a forced base, else the
    /// root's `xml:base`, else an XHTML `base` element's `href`, else the
    /// outer base. The `base` element gives the document's base as in an
    /// HTML document (browsers read XHTML's `base` and no longer any
    /// `xml:base`); `xml:base`, relink's reading of XML, scopes its
    /// element's subtree above it, a relative one resolved against it.
    fn root_base(&mut self, xml_base: Option<&(String, usize)>, at: usize) -> Option<Base> {
        let options = self.r.options;
        let (below, below_layers) = match self.base_element.clone() {
            Some((href, tag_at)) => {
                let (base, layers) = self.base_element_chain(&href, tag_at);
                (base, Some(layers))
            }
            None => (options.outer.cloned(), None),
        };
        let mut chain = BaseChain::new(options.rules, options.forced, below.as_ref());
        if let Some((value, offset)) = xml_base {
            let line = self.r.lines.locate(self.r.text, at).0;
            if let Err(err) = chain.offer(BaseSource::XmlBase { line }, value) {
                self.r.warn(
                    *offset,
                    WarningKind::LayerIgnored,
                    format_args!("xml:base ignored: {err}"),
                );
            }
        }
        let (base, mut layers) = chain.finish();
        if let Some(below_layers) = below_layers {
            // The last layer stands for the `base` element's chain: its
            // layers instead, below any layer above that gave the base.
            if below.is_some() {
                layers.pop();
            }
            let above = layers.iter().any(|l| l.status == LayerStatus::Used);
            layers.extend(below_layers.into_iter().map(|mut layer| {
                if above && layer.status == LayerStatus::Used {
                    layer.status = LayerStatus::Below;
                }
                layer
            }));
        }
        self.r.out.layers = layers;
        base
    }

    /// The base an XHTML `base` element gives, over the outer base, as the
    /// HTML reader takes a BASE element: an empty, `data:` or `javascript:`
    /// `href` is ignored.
    fn base_element_chain(&mut self, href: &str, at: usize) -> (Option<Base>, Vec<Layer>) {
        let options = self.r.options;
        let mut chain = BaseChain::new(options.rules, None, options.outer);
        let line = self.r.lines.locate(self.r.text, at).0;
        let source = BaseSource::BaseElement { line };
        let scheme = |name: &str| {
            href.get(..name.len())
                .is_some_and(|s| s.eq_ignore_ascii_case(name))
        };
        if href.is_empty() {
            chain.ignore(source, href, "empty href");
        } else if scheme("data:") || scheme("javascript:") {
            chain.ignore(source, href, "a data: or javascript: URL");
        } else if let Err(err) = chain.offer(source, href)
            && options.forced.is_none()
        {
            self.r.warn(
                at,
                WarningKind::LayerIgnored,
                format_args!("BASE element ignored: {err}"),
            );
        }
        chain.finish()
    }

    /// The layer below the document, for a `base` element's own `href`:
    /// an index into [`Walk::bases`], `None` when there is none.
    fn fallback(&mut self) -> Option<usize> {
        let outer = self.r.options.outer?;
        if self.fallback.is_none() {
            self.bases.push(Some(outer.clone()));
            self.base_depths.push(0);
            self.fallback = Some(self.bases.len() - 1);
        }
        self.fallback
    }

    /// The URLs of a `srcset` or `style` attribute, `raw` as written at
    /// `offset`: each resolved, and written back escaped as the value was.
    fn attribute_list(
        &mut self,
        base: usize,
        place: Place<'_>,
        raw: &str,
        offset: usize,
        syntax: Syntax,
    ) {
        let text = self.r.text;
        if base == TOO_DEEP {
            return;
        }
        let content = match attribute_content(raw, offset) {
            Ok(content) => content,
            Err(err) => {
                self.r.warn(
                    offset,
                    WarningKind::Unreadable,
                    format_args!("{place}: {err}"),
                );
                return;
            }
        };
        let base = match self.bases[base].as_ref() {
            Some(base) => base,
            None => {
                self.lacking_base |= match syntax {
                    Syntax::Css => style::may_hold_url(content.text.as_bytes()),
                    _ => !content.text.trim_matches(is_xml_space).is_empty(),
                };
                let Some(stand_in) = self.stand_in.as_ref() else {
                    return;
                };
                stand_in
            }
        };
        let edits = match syntax {
            Syntax::Srcset => srcset_edits(&mut self.r, &content, base, place),
            Syntax::Css => css_edits(&mut self.r, &content, base, place),
            Syntax::Url => Vec::new(),
        };
        let quote = text.as_bytes().get(offset.wrapping_sub(1)).copied();
        for mut edit in edits {
            match quote {
                Some(b'"') => edit.text = edit.text.replace('"', "&quot;"),
                Some(b'\'') => edit.text = edit.text.replace('\'', "&apos;"),
                _ => {}
            }
            self.r.out.edits.push_narrowed(edit, text);
        }
    }

    /// One URL in an attribute value, `raw` as written at `offset`.
    fn attribute_url(
        &mut self,
        base: usize,
        place: Place<'_>,
        raw: &str,
        offset: usize,
        same: SameDocument,
    ) {
        let text = self.r.text;
        let trimmed = raw.trim_start_matches(is_xml_space);
        let core = trimmed.trim_end_matches(is_xml_space);
        let value = if core.contains('&') {
            match quick_xml::escape::unescape(core) {
                Ok(value) => value,
                Err(err) => {
                    self.r.warn(
                        offset,
                        WarningKind::Unreadable,
                        format_args!("{place}: {err}"),
                    );
                    return;
                }
            }
        } else {
            Cow::Borrowed(core)
        };
        if base == TOO_DEEP {
            return;
        }
        let base = match self.bases[base].as_ref() {
            Some(base) => base,
            None => {
                self.lacking_base = true;
                let Some(stand_in) = self.stand_in.as_ref() else {
                    return;
                };
                stand_in
            }
        };
        // The URL a browser reads: what it strips keeps its bytes.
        let (value, core) = match browser_core(core, &value) {
            Some((range, read)) => (Cow::Owned(read.to_owned()), &core[range.clone()]),
            None => (value, core),
        };
        let lead = core.as_ptr() as usize - raw.as_ptr() as usize;
        let start = offset + lead;
        if let Some(new) = self.r.resolve(start, &value, base, place, same) {
            let quote = text
                .as_bytes()
                .get(offset.wrapping_sub(1))
                .copied()
                .unwrap_or(b'"');
            let escaped = escape_attribute(&new, quote);
            let edit = Edit::new(start..start + core.len(), escaped).narrowed(text);
            self.r.out.edits.push(edit);
        }
    }

    /// The end of an element whose content holds a URL or an HTML document.
    fn captured(&mut self, capture: Capture<'_>, base: usize) {
        let text = self.r.text;
        let content = &capture.content;
        if base == TOO_DEEP {
            return;
        }
        let Some(base) = self.bases[base].clone().or_else(|| {
            self.lacking_base |= match capture.row.holder {
                Holder::Css => style::may_hold_url(content.text.as_bytes()),
                _ => !content.text.trim_matches(is_xml_space).is_empty(),
            };
            self.stand_in.clone()
        }) else {
            return;
        };
        match capture.row.holder {
            Holder::Text => {
                let trimmed = content.text.trim_start_matches(is_xml_space);
                let start = content.text.len() - trimmed.len();
                let value = trimmed.trim_end_matches(is_xml_space);
                if value.is_empty() {
                    return;
                }
                let place = Place::Text(&capture.name);
                let at = content.source_offset(start);
                let new = self
                    .r
                    .resolve(at, value, &base, place, SameDocument::Resolve);
                if capture.row.namespace == links::SITEMAP && !base.is_stand_in() {
                    self.same_site(at, new.as_deref().unwrap_or(value), place);
                }
                if let Some(new) = new
                    && let Some(edit) = content.source_edit(start..start + value.len(), &new)
                {
                    self.r.out.edits.push_narrowed(edit, text);
                }
            }
            Holder::Html => self.html(&capture, &base),
            Holder::Css => {
                let place = Place::Text(&capture.name);
                for edit in css_edits(&mut self.r, content, &base, place) {
                    self.r.out.edits.push_narrowed(edit, text);
                }
            }
            Holder::Attribute(..) => {}
        }
    }

    /// Warns of a sitemap's `loc` whose URL, `resolved`, is on another
    /// site (scheme, host, port) than the sitemap's own URL (the retrieval
    /// URL, else the forced base): the sitemap protocol drops it. It is
    /// rewritten all the same.
    fn same_site(&mut self, at: usize, resolved: &str, place: Place<'_>) {
        let Some(own) = &self.sitemap_site else {
            return;
        };
        let Some(site) = Site::of(resolved) else {
            return;
        };
        if site != *own {
            let own = self
                .r
                .options
                .outer
                .or(self.r.options.forced)
                .map_or("", |b| b.url.as_str());
            self.r.warn(
                at,
                WarningKind::OtherHost,
                format_args!(
                    "{place}: {resolved} is not on the host of the sitemap ({own}): \
                     the sitemap protocol drops it"
                ),
            );
        }
    }

    /// Escaped HTML: rewritten by the HTML reader against the element's
    /// base, each change written back as the content was written.
    fn html(&mut self, capture: &Capture<'_>, base: &Base) {
        let text = self.r.text;
        let content = &capture.content;
        if content.text.trim_matches(is_xml_space).is_empty() {
            return;
        }
        // With no base, the HTML's links are listed as left too, whatever
        // base it names.
        let options = Options {
            outer: Some(base),
            forced: if base.is_stand_in() {
                Some(base)
            } else {
                self.r.options.forced
            },
            transport: Some(UTF_8),
            ..*self.r.options
        };
        let line = self.r.lines.locate(text, capture.at).0;
        let here = format!("line {line}, <{}>", capture.name);
        // Each link's line and column, in the HTML, become the feed's.
        let starts: Vec<usize> = std::iter::once(0)
            .chain(memchr::memchr_iter(b'\n', content.text.as_bytes()).map(|i| i + 1))
            .collect();
        let feed_starts = self.r.lines.starts(text);
        let place = |link: &mut crate::links::Link| {
            let start = starts
                .get(link.line.saturating_sub(1))
                .copied()
                .unwrap_or(0);
            let offset = (start + link.column.saturating_sub(1)).min(content.text.len());
            (link.line, link.column) = text::locate(feed_starts, content.source_offset(offset));
        };
        let mut mapped = None;
        let options = options.mapped(&mut mapped, |row| place(&mut row.link));
        let outcome = match self.documents.rewrite_made(
            Embedded::Html,
            content.text.as_bytes(),
            &options,
            Make::Splice,
        ) {
            Ok(outcome) => outcome,
            Err(err) => {
                self.r.out.warnings.push(
                    crate::links::Warning::new(
                        WarningKind::Unreadable,
                        format_args!("{err}; left as it is"),
                    )
                    .within(here),
                );
                return;
            }
        };
        self.r.out.rewritten += outcome.rewritten;
        // Where the feed has no base, it says so once.
        let warnings = outcome
            .warnings
            .into_iter()
            .filter(|w| !(base.is_stand_in() && w.kind == WarningKind::NoBase));
        self.r
            .out
            .warnings
            .extend(warnings.map(|w| w.within(here.clone())));
        for mut link in outcome.links {
            place(&mut link);
            self.r.out.links.push(link);
        }
        self.html_edits(content, (outcome.splice, outcome.output), here);
    }

    /// The HTML reader's edits of escaped HTML `content`, each a range of
    /// the content and its new text, written back into the source where
    /// they are, as the content was written: no diff, so the same edits
    /// every run, in time linear in the content.
    fn html_edits(
        &mut self,
        content: &Content<'_>,
        (splice, output): (Option<splice::Splice>, Option<Vec<u8>>),
        here: String,
    ) {
        let text = self.r.text;
        let unreadable = |r: &mut Resolver<'_, '_>| {
            r.out.warnings.push(
                crate::links::Warning::new(
                    WarningKind::Unreadable,
                    "the rewritten html is not utf-8; left as it is",
                )
                .within(here.clone()),
            );
        };
        // A reader that gives whole bytes makes one edit of the whole.
        let whole = output.map(|new| (0..content.text.len(), new));
        let each = || {
            let whole = whole.iter().map(|(range, new)| (range.clone(), &new[..]));
            let splice = splice.iter().flat_map(|s| s.edits());
            let splice = splice.map(|e| (e.range, e.text));
            // The texts of a splice are borrowed or, in another encoding
            // than UTF-8 (which the HTML was read in), owned.
            whole
                .map(|(range, new)| (range, Cow::Borrowed(new)))
                .chain(splice)
        };
        let fits = |(range, new): &(std::ops::Range<usize>, Cow<'_, [u8]>)| {
            range.start <= range.end
                && content.text.get(range.clone()).is_some()
                && std::str::from_utf8(new).is_ok()
        };
        if !each().all(|edit| fits(&edit)) {
            return unreadable(&mut self.r);
        }
        for (range, new) in each() {
            let new = std::str::from_utf8(&new).unwrap_or_default();
            // Only what changed: the bytes around it are the content's own.
            let (prefix, suffix) = splice::common_affixes(&content.text[range.clone()], new);
            let range = range.start + prefix..range.end - suffix;
            if let Some(edit) = content.source_edit(range, &new[prefix..new.len() - suffix]) {
                self.r.out.edits.push_narrowed(edit, text);
            }
        }
    }
}

/// The first `base` element with an `href` in an XHTML document (its root
/// `html` in the XHTML namespace): the `href` unescaped and trimmed, and
/// where the tag starts. Found before the walk, so that it is the base of
/// the links before it too, as in HTML.
fn xhtml_base(text: &str) -> Option<(String, usize)> {
    memchr::memmem::find(text.as_bytes(), b"base")?;
    let mut reader = NsReader::from_str(text);
    let mut root = true;
    loop {
        let at = usize::try_from(reader.buffer_position()).ok()?;
        let (namespace, e) = match reader.read_resolved_event().ok()? {
            (ns, Event::Start(e) | Event::Empty(e)) => (known_namespace(&ns), e),
            (_, Event::Eof) => return None,
            _ => continue,
        };
        let local = e.local_name().into_inner();
        if std::mem::replace(&mut root, false) {
            if namespace != links::XHTML || local != "html" {
                return None;
            }
            continue;
        }
        if namespace != links::XHTML || local != "base" {
            continue;
        }
        let href = e
            .attributes()
            .flatten()
            .find(|a| a.key.into_inner() == "href");
        if let Some(href) = href {
            let value = quick_xml::escape::unescape(&href.value).ok()?;
            return Some((value.trim_matches(is_xml_space).to_owned(), at));
        }
    }
}

/// An attribute value, `raw` as written at `offset`, as content: its
/// character and entity references resolved, with the map back to the
/// source.
fn attribute_content(raw: &str, offset: usize) -> Result<Content<'_>, String> {
    let mut content = Content::new(raw, offset);
    let mut from = 0;
    while let Some(amp) = raw[from..].find('&').map(|i| from + i) {
        content.push(&raw[from..amp], offset + from, Written::Literal);
        let end = raw[amp..]
            .find(';')
            .map(|i| amp + i)
            .ok_or("a reference with no ';'")?;
        let name = &raw[amp + 1..end];
        let ch = match name.strip_prefix('#') {
            Some(number) => match number.strip_prefix('x') {
                Some(hex) => u32::from_str_radix(hex, 16).ok(),
                None => number.parse().ok(),
            }
            .and_then(char::from_u32),
            None => {
                quick_xml::escape::resolve_predefined_entity(name).and_then(|s| s.chars().next())
            }
        };
        let ch = ch.ok_or_else(|| format!("unknown reference &{name};"))?;
        content.push_reference(ch, &raw[amp..=end], offset + amp..offset + end + 1);
        from = end + 1;
    }
    content.push(&raw[from..], offset + from, Written::Literal);
    Ok(content)
}

/// The URLs of a `srcset` held in `content`, resolved: their edits of the
/// source. White space a new URL brings is percent-encoded, as the URL
/// Standard encodes it, so the list splits as it did.
fn srcset_edits(
    r: &mut Resolver<'_, '_>,
    content: &Content<'_>,
    base: &Base,
    place: Place<'_>,
) -> Vec<Edit> {
    let protect = |new: String| {
        if !new.bytes().any(|b| b.is_ascii_whitespace()) {
            return new;
        }
        let mut out = String::with_capacity(new.len() + 8);
        for c in new.chars() {
            match u8::try_from(c) {
                Ok(b) if b.is_ascii_whitespace() => out.push_str(&format!("%{b:02X}")),
                _ => out.push(c),
            }
        }
        out
    };
    let mut edits = Vec::new();
    for range in srcset::urls(&content.text) {
        let (lead, url) = text::browser_trim(&content.text[range.clone()]);
        let range = range.start + lead..range.start + lead + url.len();
        let at = content.source_offset(range.start);
        if let Some(new) = r.resolve_as(at, url, base, place, SameDocument::Resolve, protect) {
            edits.extend(content.source_edit(range, &new));
        }
    }
    edits
}

/// The URLs of a style sheet held in `content` (a `style` attribute, a
/// `<style>` element), found by the style module and kept or resolved as
/// [`Resolver::css_urls`] does (an empty `url()` and `url(#id)` stay),
/// each recorded at its place in the source: their edits of the source.
fn css_edits(
    r: &mut Resolver<'_, '_>,
    content: &Content<'_>,
    base: &Base,
    place: Place<'_>,
) -> Vec<Edit> {
    let mut edits = Vec::new();
    style::each_url(&content.text, &mut |url| {
        let (empty, quoting) = (url.value.is_empty(), url.quoting);
        let (range, value) = text::css_url_read(&content.text, url);
        if empty || value.starts_with('#') {
            return;
        }
        let at = content.source_offset(range.start);
        if let Some(new) = r.resolve(at, &value, base, place, SameDocument::Keep) {
            edits.extend(content.source_edit(range, &style::escape(new, quoting)));
        }
    });
    edits
}

/// The URL a browser reads in an attribute value whose source is `raw` and
/// whose value (references decoded) is `value`, when it strips characters
/// at either end ([`text::browser_trim`]): the range of `raw` the URL is
/// written in, and the URL. A reference is read whole, `&` to `;`.
fn browser_core<'v>(raw: &str, value: &'v str) -> Option<(Range<usize>, &'v str)> {
    let (lead, core) = text::browser_trim(value);
    if core.len() == value.len() {
        return None;
    }
    let before = value[..lead].chars().count();
    let chars = before..before + core.chars().count();
    let (mut i, mut count, mut start) = (0, 0, None);
    loop {
        if count == chars.start && start.is_none() {
            start = Some(i);
        }
        if count == chars.end {
            return Some((start?..i, core));
        }
        i += match raw.get(i..)?.chars().next()? {
            '&' => raw[i..].find(';')? + 1,
            c => c.len_utf8(),
        };
        count += 1;
    }
}

/// A URL written into an attribute value quoted with `quote`.
fn escape_attribute(value: &str, quote: u8) -> String {
    let mut out = String::with_capacity(value.len());
    for ch in value.chars() {
        match ch {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '"' if quote == b'"' => out.push_str("&quot;"),
            '\'' if quote == b'\'' => out.push_str("&apos;"),
            _ => out.push(ch),
        }
    }
    out
}

/// Text of an XHTML page as XML reads it: its character and entity
/// references unescaped (as written where one is not XML's), for a
/// title's or an anchor's text.
fn xml_text(text: &str) -> Cow<'_, str> {
    quick_xml::escape::unescape(text).unwrap_or(Cow::Borrowed(text))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::encoding::EncodingSource;

    #[test]
    fn the_root_element_tells_an_xml_document() {
        assert!(looks_like_xml(
            b"<?xml version=\"1.0\"?>\n<feed xmlns=\"http://www.w3.org/2005/Atom\">"
        ));
        assert!(looks_like_xml(b"\xef\xbb\xbf<rss version=\"2.0\">"));
        assert!(looks_like_xml(
            b"<?xml version='1.0'?><!-- c --><!DOCTYPE svg [ <!ENTITY a 'b'> ]><svg>"
        ));
        assert!(looks_like_xml(b"<rdf:RDF xmlns:rdf=\"x\">"));
        assert!(looks_like_xml(
            b"<?xml version=\"1.0\"?><html xmlns=\"http://www.w3.org/1999/xhtml\">"
        ));
        assert!(!looks_like_xml(
            b"<html xmlns=\"http://www.w3.org/1999/xhtml\">"
        ));
        assert!(!looks_like_xml(b"<?xml version=\"1.0\"?><urlset>"));
        let sitemap = b"<?xml version=\"1.0\"?>\n<!-- c -->\n<urlset\n  \
            xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">";
        assert!(looks_like_sitemap(sitemap) && !looks_like_xml(sitemap));
        assert!(looks_like_sitemap(b"\xef\xbb\xbf<opml version=\"2.0\">"));
        assert!(!looks_like_sitemap(
            b"<urlset><loc>http://www.sitemaps.org/schemas/sitemap/0.9</loc>"
        ));
        assert!(!looks_like_sitemap(b"<rss version=\"2.0\">"));
        assert!(!looks_like_xml(b"<!doctype html><p>"));
        assert!(!looks_like_xml(b"<?xml version="));
    }

    #[test]
    fn the_declaration_names_the_encoding() {
        let s = sniff(b"<?xml version='1.0' encoding = 'ISO-8859-1'?><rss/>", None);
        assert_eq!(s.encoding, encoding_rs::WINDOWS_1252);
        let s = sniff(b"<?xml version='1.0' encoding='utf-16'?><rss/>", None);
        assert_eq!(s.encoding, UTF_8);
        let s = sniff(b"<\0?\0x\0", None);
        assert_eq!(s.encoding, UTF_16LE);
        let s = sniff(b"<rss/>", Some(encoding_rs::WINDOWS_1252));
        assert_eq!(s.source, EncodingSource::Transport);
        // Bytes that are not UTF-8 and declare nothing stay UTF-8 (XML 1.0
        // appendix F), not the windows-1252 of HTML.
        let s = sniff(b"<rss>caf\xe9</rss>", None);
        assert_eq!((s.encoding, s.source), (UTF_8, EncodingSource::Fallback));
        let s = sniff(b"\xef\xbb\xbf<rss/>", None);
        assert_eq!((s.bom_len, s.source), (3, EncodingSource::Bom));
    }

    #[test]
    fn an_attribute_is_escaped_for_its_quotes() {
        assert_eq!(escape_attribute("a&b\"'<", b'"'), "a&amp;b&quot;'&lt;");
        assert_eq!(escape_attribute("a\"'", b'\''), "a\"&apos;");
    }
}
