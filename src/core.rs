//! What every reader shares: the options of a rewrite, the base chain
//! (RFC 1808 section 3), a link, the edits of a text and how they become
//! bytes, the one loop over a style sheet's URLs, and the interface through
//! which a reader hands an embedded document on.
//!
//! This module knows no reader: HTML, CSS, messages, mbox and WARC all
//! build on it, and none of them imports another.

use std::borrow::Cow;
use std::fmt;
use std::ops::Range;
use std::str::FromStr;

use encoding_rs::Encoding;

use crate::base::{Base, BaseSource, Layer, LayerStatus};
use crate::encoding::{self, Sniffed};
use crate::splice::{self, Edit};
use crate::url::{BaseUrl, Rules};
use crate::{Error, css};

/// The largest document relink takes (html5ever indexes text by `u32`).
pub const MAX_DOCUMENT_BYTES: usize = u32::MAX as usize;

/// How to rewrite one document.
#[derive(Debug, Clone, Copy, Default)]
pub struct Options<'a> {
    /// The rule set for every resolution, the BASE element's included.
    pub rules: Rules,
    /// A base forced above every layer (`--base`).
    pub forced: Option<&'a Base>,
    /// The base from the layers outside the document: the enclosing
    /// entity's, else the retrieval URL.
    pub outer: Option<&'a Base>,
    /// The transport's charset (a MIME part's, or `--encoding`).
    pub transport: Option<&'static Encoding>,
    /// Leave `#name` links as they are.
    pub keep_fragment_links: bool,
    /// Further attributes holding URLs on every HTML element (`--attr`).
    pub extra_attributes: &'a [ExtraAttribute],
    /// Whether each link is recorded, or only counted.
    pub details: Details,
}

/// How much a rewrite tells of the links it found.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Details {
    /// A [`Link`] record for each link (for a listing or a report).
    #[default]
    Links,
    /// Only how many were rewritten: no record per link, so memory stays
    /// in proportion to the document, not to its links.
    Counts,
}

/// How an attribute named with `--attr` holds its URLs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AttrSyntax {
    /// One URL.
    Url,
    /// A `srcset`: candidates of a URL and descriptors.
    Srcset,
    /// URLs separated by ASCII white space.
    List,
}

/// An attribute the user names as holding URLs on every HTML element, such
/// as a lazy-loading `data-src` (`--attr NAME[=url|srcset|list]`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExtraAttribute {
    /// The attribute's name, lower-cased as the tokenizer gives it.
    pub name: String,
    /// How its value holds URLs.
    pub syntax: AttrSyntax,
}

impl FromStr for ExtraAttribute {
    type Err = Error;

    /// Reads `NAME`, `NAME=url`, `NAME=srcset` or `NAME=list`.
    ///
    /// ```
    /// use relink::{AttrSyntax, ExtraAttribute};
    /// let a: ExtraAttribute = "Data-Srcset=srcset".parse()?;
    /// assert_eq!(a, ExtraAttribute { name: "data-srcset".into(), syntax: AttrSyntax::Srcset });
    /// assert_eq!("data-src".parse::<ExtraAttribute>()?.syntax, AttrSyntax::Url);
    /// assert!("data-src=css".parse::<ExtraAttribute>().is_err());
    /// # Ok::<(), relink::Error>(())
    /// ```
    fn from_str(spec: &str) -> Result<Self, Self::Err> {
        let invalid = |reason: &str| Error::InvalidAttribute {
            spec: spec.to_owned(),
            reason: reason.to_owned(),
        };
        let (name, syntax) = spec.split_once('=').unwrap_or((spec, "url"));
        let syntax = match syntax.to_ascii_lowercase().as_str() {
            "url" => AttrSyntax::Url,
            "srcset" => AttrSyntax::Srcset,
            "list" => AttrSyntax::List,
            _ => return Err(invalid("the syntax is url, srcset or list")),
        };
        let bad = |b: u8| b.is_ascii_whitespace() || matches!(b, b'/' | b'>' | b'=' | b'"' | b'\'');
        if name.is_empty() || name.bytes().any(bad) {
            return Err(invalid("not an attribute name"));
        }
        Ok(ExtraAttribute {
            name: name.to_ascii_lowercase(),
            syntax,
        })
    }
}

/// The kinds of trouble relink reports while it goes on: each leaves some
/// part of the input as it was.
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
}

/// What could not be done, and where: a kind to act on, and words for
/// people. Shown as `part 1.2: line 4, column 7: what happened`.
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

/// Where a link was: the element and attribute (`style` with no attribute
/// for a `<style>` element's text; `css` for a style sheet).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LinkPlace {
    /// The element's name.
    pub element: String,
    /// The attribute's name, empty for an element's text.
    pub attribute: String,
}

/// Where a link is, borrowed: what a reader passes while it works, so that
/// a [`LinkPlace`] is made only for a link that is recorded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Place<'a> {
    /// The element's name.
    pub element: &'a str,
    /// The attribute's name, empty for an element's text.
    pub attribute: &'a str,
}

impl Place<'_> {
    /// The place, owned.
    pub fn to_link_place(self) -> LinkPlace {
        LinkPlace {
            element: self.element.to_owned(),
            attribute: self.attribute.to_owned(),
        }
    }
}

impl fmt::Display for Place<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.element, self.attribute) {
            (element, "") => write!(f, "<{element}>"),
            ("", attribute) => f.write_str(attribute),
            (element, attribute) => write!(f, "<{element} {attribute}>"),
        }
    }
}

impl fmt::Display for LinkPlace {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.element.as_str(), self.attribute.as_str()) {
            (element, "") => write!(f, "<{element}>"),
            ("", attribute) => f.write_str(attribute),
            (element, attribute) => write!(f, "<{element} {attribute}>"),
        }
    }
}

/// One link of a document.
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
}

/// What rewriting a document gave.
#[derive(Debug)]
pub struct Outcome {
    /// The new bytes, or `None` when nothing changed.
    pub output: Option<Vec<u8>>,
    /// The encoding the document was read and written in.
    pub encoding: &'static Encoding,
    /// The document's base, if it had one.
    pub base: Option<Base>,
    /// Every link found (none when only [`Details::Counts`] were asked).
    pub links: Vec<Link>,
    /// How many links were rewritten.
    pub rewritten: usize,
    /// What could not be done, each naming where.
    pub warnings: Vec<Warning>,
    /// The layers of the base the document had, innermost first.
    pub layers: Vec<Layer>,
}

impl Outcome {
    /// The bytes to write: the new ones, or the input when nothing changed.
    pub fn bytes<'a>(&'a self, input: &'a [u8]) -> &'a [u8] {
        self.output.as_deref().unwrap_or(input)
    }
}

/// The kinds of document a reader can hand on (a message's part, a WARC
/// record's payload).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Embedded {
    /// An HTML document.
    Html,
    /// A style sheet.
    Css,
}

/// Rewrites an embedded document: how a message or WARC reader hands an
/// HTML or CSS payload on without knowing the readers of those.
pub trait Documents: Sync + fmt::Debug {
    /// Rewrites `bytes`, a document of `kind`.
    fn rewrite(
        &self,
        kind: Embedded,
        bytes: &[u8],
        options: &Options<'_>,
    ) -> Result<Outcome, Error>;
}

/// The base of a document or entity, layer by layer (RFC 1808 section 3),
/// innermost first: a forced base above all, then the layers the document
/// itself gives, then the one outside it (the enclosing entity's, else the
/// retrieval URL). The first that serves gives the base; every layer is
/// recorded with what became of it, for `relink explain`.
#[derive(Debug)]
pub struct BaseChain<'a> {
    rules: Rules,
    outer: Option<&'a Base>,
    chosen: Option<Base>,
    layers: Vec<Layer>,
}

impl<'a> BaseChain<'a> {
    /// A chain under `rules`, with the forced base (if any) on top and
    /// `outer` below all the document's own layers.
    pub fn new(rules: Rules, forced: Option<&'a Base>, outer: Option<&'a Base>) -> Self {
        let mut chain = BaseChain {
            rules,
            outer,
            chosen: None,
            layers: Vec::new(),
        };
        if let Some(forced) = forced {
            chain.push(
                forced.source.clone(),
                forced.url.as_str(),
                LayerStatus::Used,
            );
            chain.chosen = Some(forced.clone());
        }
        chain
    }

    fn push(&mut self, source: BaseSource, value: &str, status: LayerStatus) {
        self.layers.push(Layer::new(source, value, status));
    }

    /// Offers the document's next layer: if none above gave the base, its
    /// value (resolved against the outer base when relative) gives it.
    /// A value that cannot serve is recorded as ignored, and the error
    /// returned so the reader can say where it was.
    pub fn offer(&mut self, source: BaseSource, value: &str) -> Result<(), Error> {
        if self.chosen.is_some() {
            self.push(source, value, LayerStatus::Below);
            return Ok(());
        }
        let resolved = match self.outer {
            Some(outer) => outer.url.resolve(value).map(Cow::into_owned),
            None => Ok(value.to_owned()),
        };
        match resolved.and_then(|url| BaseUrl::parse(&url, self.rules)) {
            Ok(url) => {
                self.push(source.clone(), value, LayerStatus::Used);
                self.chosen = Some(Base::new(url, source));
                Ok(())
            }
            Err(err) => {
                self.push(source, value, LayerStatus::Ignored(err.to_string()));
                Err(err)
            }
        }
    }

    /// Records a layer that cannot serve, and why.
    pub fn ignore(&mut self, source: BaseSource, value: &str, why: impl Into<String>) {
        let status = if self.chosen.is_some() {
            LayerStatus::Below
        } else {
            LayerStatus::Ignored(why.into())
        };
        self.push(source, value, status);
    }

    /// The chosen base, the outer one when no layer above served, and every
    /// layer with what became of it.
    pub fn finish(mut self) -> (Option<Base>, Vec<Layer>) {
        if let Some(outer) = self.outer {
            let status = if self.chosen.is_some() {
                LayerStatus::Below
            } else {
                LayerStatus::Used
            };
            self.push(outer.source.clone(), outer.url.as_str(), status);
        }
        let base = self.chosen.or_else(|| self.outer.cloned());
        (base, self.layers)
    }
}

/// The layers of a document inside an entity (a message part, a WARC
/// payload), innermost first: the document's own (its BASE element, or a
/// forced base), then the entity's. When one of the document's own gave
/// the base, the entity's lie below it.
pub fn stack_layers(document: Vec<Layer>, mut entity: Vec<Layer>) -> Vec<Layer> {
    let own: Vec<Layer> = document
        .into_iter()
        .filter(|l| {
            matches!(
                l.source,
                BaseSource::BaseElement { .. } | BaseSource::Forced
            )
        })
        .collect();
    if own.iter().any(|l| l.status == LayerStatus::Used) {
        for layer in &mut entity {
            if layer.status == LayerStatus::Used {
                layer.status = LayerStatus::Below;
            }
        }
    }
    own.into_iter().chain(entity).collect()
}

/// Lines of a text, to report where links are. Built on first use: a
/// rewrite that records no link and meets no trouble never needs it.
#[derive(Debug, Default)]
pub struct LineIndex {
    starts: std::cell::OnceCell<Vec<usize>>,
}

impl LineIndex {
    /// The line and column (both from 1, column in bytes) of an offset in
    /// `text`, the text this index is for.
    pub fn locate(&self, text: &str, offset: usize) -> (usize, usize) {
        let starts = self.starts.get_or_init(|| {
            let mut starts = vec![0];
            starts.extend(memchr::memchr_iter(b'\n', text.as_bytes()).map(|i| i + 1));
            starts
        });
        let line = starts.partition_point(|&s| s <= offset);
        (line, offset - starts[line - 1] + 1)
    }
}

/// What rewriting a decoded document gives.
#[derive(Debug, Default)]
pub struct TextRewrite {
    /// Sorted, non-overlapping edits of the text.
    pub edits: Vec<Edit>,
    /// Every link found, changed or not (when links are recorded).
    pub links: Vec<Link>,
    /// How many links changed.
    pub rewritten: usize,
    /// What could not be done, each naming where.
    pub warnings: Vec<Warning>,
    /// The document's base, if it had one.
    pub base: Option<Base>,
    /// The layers the document had, innermost first.
    pub layers: Vec<Layer>,
}

/// Whether a reference to the document itself (`#name`, and an empty one)
/// stays as written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SameDocument {
    /// It is a link like any other (unless `--keep-fragment-links`).
    Resolve,
    /// It names something inside the document (SVG `href="#id"` outside
    /// `<a>`, CSS `url(#id)`): kept.
    Keep,
}

/// Resolves the links of one text against their bases, recording each
/// link (or only counting it) in a [`TextRewrite`].
#[derive(Debug)]
pub struct Resolver<'t, 'o> {
    /// The text the links are in.
    pub text: &'t str,
    /// How to rewrite.
    pub options: &'o Options<'o>,
    /// Where lines start in the text.
    pub lines: LineIndex,
    /// What has been found so far.
    pub out: TextRewrite,
}

impl<'t, 'o> Resolver<'t, 'o> {
    /// A resolver for the links of `text`.
    pub fn new(text: &'t str, options: &'o Options<'o>) -> Self {
        Resolver {
            text,
            options,
            lines: LineIndex::default(),
            out: TextRewrite::default(),
        }
    }

    /// Records a warning about what lies at `at` in the text.
    pub fn warn(&mut self, at: usize, kind: WarningKind, message: impl fmt::Display) {
        let (line, column) = self.lines.locate(self.text, at);
        let warning = Warning::new(kind, message).within(format!("line {line}, column {column}"));
        self.out.warnings.push(warning);
    }

    /// Resolves one URL, found at `at`; returns the new text if it changed,
    /// and records the link.
    pub fn resolve(
        &mut self,
        at: usize,
        value: &str,
        base: &Base,
        place: Place<'_>,
        same_document: SameDocument,
    ) -> Option<String> {
        // An empty reference is a link to the base (RFC 1808 section 4
        // step 2a), except where a same-document reference is kept.
        if value.is_empty() && same_document == SameDocument::Keep {
            return None;
        }
        let keep = value.starts_with('#')
            && (same_document == SameDocument::Keep || self.options.keep_fragment_links);
        let resolved = if keep {
            Ok(Cow::Borrowed(value))
        } else {
            base.url.resolve(value)
        };
        match resolved {
            Ok(resolved) => {
                // A URL in HTML is read with its ends trimmed, so a result
                // that ends in white space (`:\n#` drops its empty fragment)
                // is written without it.
                let trimmed = resolved.trim_ascii();
                let resolved = if trimmed.len() == resolved.len() {
                    resolved
                } else {
                    Cow::Owned(trimmed.to_owned())
                };
                let changed = resolved != value;
                self.out.rewritten += usize::from(changed);
                if self.options.details == Details::Links {
                    let (line, column) = self.lines.locate(self.text, at);
                    self.out.links.push(Link {
                        line,
                        column,
                        place: place.to_link_place(),
                        original: value.to_owned(),
                        resolved: resolved.to_string(),
                        base: Some(base.clone()),
                        changed,
                    });
                }
                changed.then(|| resolved.into_owned())
            }
            Err(err) => {
                self.warn(
                    at,
                    WarningKind::Unresolvable,
                    format_args!("{place}: {err}"),
                );
                None
            }
        }
    }

    /// The one loop over a style sheet's URLs (a `.css` file, a `<style>`
    /// element, a `style` attribute): each URL of `css`, which starts at
    /// `at` in the text, resolved; returns the new ones, escaped for their
    /// CSS quoting, with their ranges in `css`. An empty `url()` resolves
    /// to no resource (CSS Values 4) and `url(#id)` names something in the
    /// document: both stay.
    pub fn css_urls(
        &mut self,
        css: &str,
        at: usize,
        base: &Base,
        place: Place<'_>,
    ) -> Vec<(Range<usize>, String)> {
        let mut found = Vec::new();
        for url in css::urls(css) {
            if url.value.is_empty() || url.value.starts_with('#') {
                continue;
            }
            let here = at + url.range.start;
            if let Some(new) = self.resolve(here, &url.value, base, place, SameDocument::Keep) {
                found.push((url.range, css::escape(&new, url.quoting)));
            }
        }
        found
    }
}

/// Decodes a document as `sniffed` says, lets `rewrite` find the edits of
/// its text, and splices them, encoded again, into the bytes.
pub fn rewrite_bytes(
    bytes: &[u8],
    sniffed: Sniffed,
    rewrite: impl FnOnce(&str) -> TextRewrite,
) -> Result<Outcome, Error> {
    if bytes.len() > MAX_DOCUMENT_BYTES {
        return Err(Error::TooLarge(bytes.len()));
    }
    let text = encoding::decode(bytes, &sniffed);
    let TextRewrite {
        edits,
        links,
        rewritten,
        warnings,
        base,
        layers,
    } = rewrite(&text);
    let output = (!edits.is_empty()).then(|| {
        let byte_edits: Vec<Edit<Cow<'_, [u8]>>> = match &text {
            // The text is the bytes after the byte order mark.
            Cow::Borrowed(_) => edits
                .iter()
                .map(|e| {
                    let at = sniffed.bom_len;
                    Edit::new(
                        e.range.start + at..e.range.end + at,
                        encoding::encode(&e.text, sniffed.encoding),
                    )
                })
                .collect(),
            Cow::Owned(_) => {
                let bounds: Vec<usize> = edits
                    .iter()
                    .flat_map(|e| [e.range.start, e.range.end])
                    .collect();
                let offsets = encoding::byte_offsets(bytes, &sniffed, &bounds);
                edits
                    .iter()
                    .zip(offsets.chunks(2))
                    .map(|(e, at)| {
                        Edit::new(at[0]..at[1], encoding::encode(&e.text, sniffed.encoding))
                    })
                    .collect()
            }
        };
        splice::apply(bytes, &byte_edits)
    });
    Ok(Outcome {
        output,
        encoding: sniffed.encoding,
        base,
        links,
        rewritten,
        warnings,
        layers,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn base(url: &str, source: BaseSource) -> Base {
        Base::new(BaseUrl::parse(url, Rules::Rfc1808).unwrap(), source)
    }

    #[test]
    fn the_first_layer_that_serves_gives_the_base() {
        let outer = base("http://a/b/c", BaseSource::RetrievedFrom);
        let mut chain = BaseChain::new(Rules::Rfc1808, None, Some(&outer));
        chain.ignore(BaseSource::BaseElement { line: 1 }, "", "empty href");
        chain
            .offer(BaseSource::BaseElement { line: 2 }, "d/")
            .unwrap();
        chain
            .offer(BaseSource::BaseElement { line: 3 }, "e/")
            .unwrap();
        let (chosen, layers) = chain.finish();
        assert_eq!(chosen.unwrap().url.as_str(), "http://a/b/d/");
        let statuses: Vec<&LayerStatus> = layers.iter().map(|l| &l.status).collect();
        assert_eq!(
            statuses,
            [
                &LayerStatus::Ignored("empty href".into()),
                &LayerStatus::Used,
                &LayerStatus::Below,
                &LayerStatus::Below,
            ]
        );
    }

    #[test]
    fn a_forced_base_stands_above_every_layer() {
        let forced = base("http://f/", BaseSource::Forced);
        let outer = base("http://a/", BaseSource::RetrievedFrom);
        let mut chain = BaseChain::new(Rules::Rfc1808, Some(&forced), Some(&outer));
        chain
            .offer(BaseSource::BaseElement { line: 1 }, "x/")
            .unwrap();
        let (chosen, layers) = chain.finish();
        assert_eq!(chosen.unwrap().source, BaseSource::Forced);
        assert_eq!(layers.len(), 3);
        assert!(layers[1..].iter().all(|l| l.status == LayerStatus::Below));
    }

    #[test]
    fn without_layers_the_outer_base_serves() {
        let chain = BaseChain::new(Rules::Rfc1808, None, None);
        assert_eq!(chain.finish().0.map(|b| b.source), None);
        let outer = base("http://a/", BaseSource::RetrievedFrom);
        let mut chain = BaseChain::new(Rules::Whatwg, None, Some(&outer));
        assert!(
            chain
                .offer(BaseSource::BaseElement { line: 1 }, "http://[")
                .is_err()
        );
        let (chosen, layers) = chain.finish();
        assert_eq!(chosen.unwrap().source, BaseSource::RetrievedFrom);
        assert_eq!(layers[1].status, LayerStatus::Used);
    }

    #[test]
    fn line_index_counts_from_one() {
        let text = "ab\ncd\n";
        let lines = LineIndex::default();
        assert_eq!(lines.locate(text, 0), (1, 1));
        assert_eq!(lines.locate(text, 4), (2, 2));
        assert_eq!(lines.locate(text, 6), (3, 1));
    }
}
