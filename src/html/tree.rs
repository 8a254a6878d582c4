//! Parsing a document: relink's positioned tokenizer ([`super::tokenizer`])
//! feeds the tracker ([`super::tracker`]), which follows the stack of open
//! elements of common documents; a document it bails on goes, from its
//! start, to html5ever's tree builder, which builds a lean arena
//! ([`super::arena`]).
//!
//! The tokenizer records where every tag and attribute lies in the source;
//! the tree builder decides, exactly as a browser does, each element's
//! namespace, whether it lies in template contents, and which `base` comes
//! first in tree order. The arena ties each element to the tag token that
//! made it. The tree stays behind this module: the rest of relink sees only
//! [`Document`].

use std::borrow::Cow;
use std::cell::RefCell;
use std::collections::HashMap;
use std::ops::Range;

use html5ever::tokenizer::{TagKind, Token, TokenSink, TokenSinkResult};
use html5ever::tree_builder::{TreeBuilder, TreeBuilderOpts};
use html5ever::{LocalName, local_name};

use super::arena::{Arena, NodeRef, Tree};
use super::charref;
use super::tokenizer::{self, AttrSpan, Attributes, SpanLog, TagSpan};
use super::tracker::{self, Tracker};

pub use super::tokenizer::Quote;
pub use super::tracker::Bail;

pub use super::arena::{Element, Namespace};

/// What kind of document is parsed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DocumentKind {
    /// A document of its own.
    Document,
    /// An `iframe srcdoc` document (never in quirks mode).
    IframeSrcdoc,
}

/// One tag of the source, as [`Document::tags`] shows it.
#[derive(Debug, Clone)]
pub struct Tag<'d> {
    /// Its index among the document's tags (those it keeps).
    pub index: usize,
    /// Start or end tag.
    pub kind: TagKind,
    /// The name, as the tokenizer gave it (lower-cased).
    pub name: &'d LocalName,
    /// From its `<` to just after its `>`.
    pub span: Range<usize>,
    /// The element this start tag created or added attributes to, if it is
    /// in the final tree.
    pub element: Option<Element>,
    attrs: &'d [AttrSpan],
}

impl<'d> Tag<'d> {
    /// Its attributes, in source order, duplicates dropped.
    pub fn attrs(&self) -> &'d [AttrSpan] {
        self.attrs
    }

    /// The decoded value of an attribute, by its (lower-case) name.
    pub fn attr_value<'s>(&self, src: &'s str, name: &str) -> Option<Cow<'s, str>> {
        let attr = self.attrs.iter().find(|a| attr_name(src, a) == name)?;
        Some(decoded_value(src, attr))
    }
}

/// A parsed document: the tags that can hold a link in source order (start
/// tags with an attribute that may hold a URL, or with any attribute when
/// parsed with [`Attributes::TreeBuilderAnyAttribute`], and `style` start
/// and end tags; every tag when parsed with [`Attributes::All`]), and which
/// one is the base.
///
/// Kept compact, a few vectors of small records, as a document may hold
/// millions of tags; a tag no link can be in keeps no record.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Document {
    spans: Vec<TagSpan>,
    names: Vec<LocalName>,
    elements: Vec<Option<Element>>,
    attrs: Vec<AttrSpan>,
    /// The first HTML `base` element with an `href` in tree order, outside
    /// template contents (its index among the tags).
    pub base: Option<usize>,
}

impl Document {
    /// A document of these records, one each per tag (`attrs` as the tags'
    /// spans index them), with `base` the index of its base tag.
    pub(super) fn from_parts(
        spans: Vec<TagSpan>,
        names: Vec<LocalName>,
        elements: Vec<Option<Element>>,
        attrs: Vec<AttrSpan>,
        base: Option<usize>,
    ) -> Self {
        Document {
            spans,
            names,
            elements,
            attrs,
            base,
        }
    }

    /// How many tags the document has.
    pub fn len(&self) -> usize {
        self.spans.len()
    }

    /// Whether it has no tags.
    #[cfg_attr(not(feature = "_internal"), allow(dead_code))]
    pub fn is_empty(&self) -> bool {
        self.spans.is_empty()
    }

    /// Tag `index`, if there is one.
    pub fn tag(&self, index: usize) -> Option<Tag<'_>> {
        let span = self.spans.get(index)?;
        Some(Tag {
            index,
            kind: span.kind(),
            name: self.names.get(index)?,
            span: span.span(),
            element: self.elements.get(index).copied().flatten(),
            attrs: self.attrs.get(span.attr_range()).unwrap_or_default(),
        })
    }

    /// Every tag, in source order.
    pub fn tags(&self) -> impl Iterator<Item = Tag<'_>> {
        (0..self.len()).filter_map(|i| self.tag(i))
    }
}

/// An attribute's name as the tokenizer gives it: ASCII upper case
/// lowered, NUL replaced.
pub fn attr_name<'s>(src: &'s str, attr: &AttrSpan) -> Cow<'s, str> {
    let raw = &src[attr.name()];
    if raw.bytes().any(|b| b.is_ascii_uppercase() || b == 0) {
        Cow::Owned(raw.to_ascii_lowercase().replace('\0', "\u{fffd}"))
    } else {
        Cow::Borrowed(raw)
    }
}

/// An attribute's value, character references decoded as the tokenizer
/// decodes them.
pub fn decoded_value<'s>(src: &'s str, attr: &AttrSpan) -> Cow<'s, str> {
    let raw = &src[attr.value()];
    if raw.bytes().any(|b| matches!(b, b'&' | b'\r' | 0)) {
        charref::decode_attribute(raw).text
    } else {
        Cow::Borrowed(raw)
    }
}

/// Parses `src` as an HTML document of `kind`, with scripting disabled (as
/// relink must see `<noscript>`'s links).
///
/// A document too large for html5ever's `u32` offsets (over 4 GiB) gives an
/// empty [`Document`]: nothing in it is located, so nothing is changed.
///
/// The tracker ([`super::tracker`]) decides the tree facts of most
/// documents on its own; a document it bails on is parsed again, from its
/// start, by html5ever's tree builder.
#[cfg_attr(not(feature = "_internal"), allow(dead_code))]
pub fn parse(src: &str, kind: DocumentKind) -> Document {
    parse_lean(src, kind, Attributes::TreeBuilder)
}

/// [`parse`] with `attributes`, one of the lean ones
/// ([`Attributes::TreeBuilder`], [`Attributes::TreeBuilderAnyAttribute`]).
pub fn parse_lean(src: &str, kind: DocumentKind, attributes: Attributes) -> Document {
    parse_tracked(src, kind, attributes).unwrap_or_else(|_| parse_with(src, kind, attributes))
}

/// [`parse_with`] with the tracker alone: the document, or why the tracker
/// bailed.
pub(super) fn parse_tracked(
    src: &str,
    kind: DocumentKind,
    attributes: Attributes,
) -> Result<Document, Bail> {
    if u32::try_from(src.len()).is_err() {
        return Ok(Document::default());
    }
    let log = SpanLog::default();
    let options = tokenizer::Options {
        discard_bom: false,
        attributes,
        formatting_stand_in: false,
        lines: false,
        ..tokenizer::Options::default()
    };
    let tracker = tokenizer::tokenize_into(src, Tracker::new(&log, kind), &log, options);
    let (names, tree) = tracker.finish()?;
    Ok(assemble(log, names, tree))
}

/// Parses `src` on the tracker's path, handing its tags to `on_chunk` in
/// pieces as they are settled (see [`Tracker::in_chunks`]), so that the
/// records of a document of millions of tags are never all alive. Each
/// piece is a [`Document`] of its own: its tags in source order, and its
/// `base` the document's first `base` if that is among them.
///
/// On an error nothing handed over counts: [`tracker::BASE_AFTER_LINKS`]
/// when `on_chunk` stopped, else why the tracker bailed; then
/// [`parse_after_chunks`] parses the whole document.
pub fn parse_in_chunks(
    src: &str,
    (kind, attributes): (DocumentKind, Attributes),
    on_chunk: &mut dyn FnMut(Document) -> bool,
) -> Result<(), Bail> {
    if u32::try_from(src.len()).is_err() {
        // As [`parse`]: nothing in it is located.
        on_chunk(Document::default());
        return Ok(());
    }
    let log = SpanLog::default();
    let options = tokenizer::Options {
        discard_bom: false,
        attributes,
        formatting_stand_in: false,
        lines: false,
        ..tokenizer::Options::default()
    };
    let tracker = Tracker::in_chunks(&log, kind, on_chunk);
    tokenizer::tokenize_into(src, tracker, &log, options).finish_chunks()
}

/// The whole document, after [`parse_in_chunks`] failed with `bail`: on
/// the tracker's path when only a late `base` stopped it, else straight on
/// html5ever's (the tracker would bail again).
pub fn parse_after_chunks(
    src: &str,
    (kind, attributes): (DocumentKind, Attributes),
    bail: Bail,
) -> Document {
    if bail == tracker::BASE_AFTER_LINKS {
        parse_lean(src, kind, attributes)
    } else {
        parse_with(src, kind, attributes)
    }
}

/// [`parse`], with tag tokens carrying `attributes`: [`parse`] gives the
/// tree builder only the attributes it reads and keeps only the tags that
/// can hold a link; with [`Attributes::All`] the tree builder sees every
/// attribute and every tag is kept, and each tag both keep must come out
/// the same (the tests compare them).
pub fn parse_with(src: &str, kind: DocumentKind, attributes: Attributes) -> Document {
    // With every attribute, every node is kept: the reference the lean
    // parse, which releases closed nodes, is tested against.
    let arena = match attributes {
        Attributes::All => Arena::keeping_every_node(),
        Attributes::TreeBuilder | Attributes::TreeBuilderAnyAttribute
            if src.len() >= COUNT_HANDLES_FROM =>
        {
            Arena::counting_handles()
        }
        Attributes::TreeBuilder | Attributes::TreeBuilderAnyAttribute => Arena::default(),
    };
    parse_on(src, kind, attributes, arena)
}

/// [`parse_with`] with [`Attributes::TreeBuilderAnyAttribute`] on an arena
/// counting handles whatever the document's size (the tests compare it
/// with the reference on small documents, every tag with attributes kept).
#[cfg(feature = "_internal")]
pub fn parse_counting_handles(src: &str, kind: DocumentKind) -> Document {
    parse_on(
        src,
        kind,
        Attributes::TreeBuilderAnyAttribute,
        Arena::counting_handles(),
    )
}

/// [`parse_with`] on a given arena.
fn parse_on(src: &str, kind: DocumentKind, attributes: Attributes, arena: Arena) -> Document {
    if u32::try_from(src.len()).is_err() {
        return Document::default();
    }
    let opts = TreeBuilderOpts {
        scripting_enabled: false,
        iframe_srcdoc: kind == DocumentKind::IframeSrcdoc,
        ..TreeBuilderOpts::default()
    };
    let log = SpanLog::default();
    let recorder = Recorder {
        builder: TreeBuilder::new(arena, opts),
        log: &log,
        names: RefCell::new(Vec::new()),
        flattened: RefCell::new(HashMap::new()),
    };
    let options = tokenizer::Options {
        discard_bom: false,
        attributes,
        ..tokenizer::Options::default()
    };
    let recorder = tokenizer::tokenize(src, recorder, &log, options);
    let names = recorder.names.into_inner();
    let tree = recorder.builder.sink.finish_tree(log.len());
    assemble(log, names, tree)
}

/// The document of a parse: the logged tags, their names, and what the
/// tree says of them.
fn assemble(log: SpanLog, names: Vec<LocalName>, mut tree: Tree) -> Document {
    let (spans, attrs) = log.into_flat();
    // One slot for each tag (a tracker's tree stops at the last tied one).
    tree.elements.resize(spans.len(), None);
    Document {
        spans,
        names,
        elements: tree.elements,
        attrs,
        base: tree.base,
    }
}

/// From how many bytes a document's parse on html5ever's path counts the
/// tree builder's handles, to release the elements html5ever closes
/// without telling the sink (see [`Arena::counting_handles`]): below it,
/// what they keep is small beside the rest, and counting would cost time.
pub const COUNT_HANDLES_FROM: usize = 1 << 20;

/// How deep HTML elements nest before further ones are flattened (on
/// html5ever's path only: the tracker bails before this depth).
///
/// html5ever's tree builder looks through the whole stack of open elements
/// for most start tags, so a document of 100,000 nested `<div>`s would take
/// quadratic time. Past this depth (Chromium stops nesting at 512), an
/// ordinary HTML start tag goes to the tree builder as a `<wbr>`, which
/// opens nothing, and its end tag is dropped: the element keeps its tag, its
/// attributes and its namespace, and the depth stops growing. Raw text
/// elements, `template`, `svg`, `math` and void elements are never
/// flattened (a `template` is, when already inside template contents), so
/// tokenizing, template contents and namespaces stay exact. In foreign content (SVG, MathML) a start tag too deep is made
/// self-closing instead, its end tag dropped likewise; integration points
/// and tags that lead back to HTML are never flattened.
pub const MAX_TREE_DEPTH: u32 = 1024;

/// Whether a start tag in foreign content may be flattened (see
/// [`MAX_TREE_DEPTH`]): made self-closing, so that it opens nothing. Not
/// `svg` or `math`, not an HTML or MathML text integration point, not
/// `script`, and none of the tags that break out of foreign content into
/// HTML.
fn flattenable_foreign(name: &LocalName) -> bool {
    !matches!(
        &**name,
        "svg"
            | "math"
            | "foreignobject"
            | "desc"
            | "title"
            | "annotation-xml"
            | "mi"
            | "mo"
            | "mn"
            | "ms"
            | "mtext"
            | "script"
            | "b"
            | "big"
            | "blockquote"
            | "body"
            | "br"
            | "center"
            | "code"
            | "dd"
            | "div"
            | "dl"
            | "dt"
            | "em"
            | "embed"
            | "h1"
            | "h2"
            | "h3"
            | "h4"
            | "h5"
            | "h6"
            | "head"
            | "hr"
            | "i"
            | "img"
            | "li"
            | "listing"
            | "menu"
            | "meta"
            | "nobr"
            | "ol"
            | "p"
            | "pre"
            | "ruby"
            | "s"
            | "small"
            | "span"
            | "strong"
            | "strike"
            | "sub"
            | "sup"
            | "table"
            | "tt"
            | "u"
            | "ul"
            | "var"
            | "font"
    )
}

/// Whether a start tag may be flattened (see [`MAX_TREE_DEPTH`]).
fn flattenable(name: &LocalName) -> bool {
    !matches!(
        &**name,
        "script"
            | "style"
            | "textarea"
            | "title"
            | "xmp"
            | "iframe"
            | "noembed"
            | "noframes"
            | "noscript"
            | "plaintext"
            | "template"
            | "svg"
            | "math"
            | "select"
            | "table"
            | "html"
            | "head"
            | "body"
            | "frameset"
            | "area"
            | "base"
            | "br"
            | "col"
            | "embed"
            | "hr"
            | "img"
            | "image"
            | "input"
            | "link"
            | "meta"
            | "param"
            | "source"
            | "track"
            | "wbr"
            | "keygen"
    )
}

/// The token sink: hands each token to the tree builder, telling the arena
/// which tag token it is, and keeps each tag's name.
struct Recorder<'l> {
    builder: TreeBuilder<NodeRef, Arena>,
    log: &'l SpanLog,
    names: RefCell<Vec<LocalName>>,
    /// Start tags flattened past [`MAX_TREE_DEPTH`] whose end tags are yet
    /// to come, by name.
    flattened: RefCell<HashMap<LocalName, usize>>,
}

impl Recorder<'_> {
    /// Flattens a start tag too deep, or drops the end tag of one.
    /// Returns `None` when the token is dropped.
    fn flatten(&self, mut token: Token) -> Option<Token> {
        let Token::TagToken(tag) = &mut token else {
            return Some(token);
        };
        let mut flattened = self.flattened.borrow_mut();
        match tag.kind {
            TagKind::StartTag => {
                let (depth, namespace, in_template) = self.builder.sink.last_inserted();
                if depth <= MAX_TREE_DEPTH {
                    return Some(token);
                }
                // A template inside template contents makes nothing new
                // of what follows: all of it is in template contents.
                let template = in_template && &*tag.name == "template";
                if namespace == Namespace::Html && (flattenable(&tag.name) || template) {
                    *flattened.entry(tag.name.clone()).or_default() += 1;
                    tag.name = local_name!("wbr");
                    tag.self_closing = false;
                } else if namespace != Namespace::Html
                    && self
                        .builder
                        .adjusted_current_node_present_but_not_in_html_namespace()
                    && !tag.self_closing
                    && flattenable_foreign(&tag.name)
                {
                    *flattened.entry(tag.name.clone()).or_default() += 1;
                    tag.self_closing = true;
                }
            }
            TagKind::EndTag => {
                if let Some(open) = flattened.get_mut(&tag.name)
                    && *open > 0
                {
                    *open -= 1;
                    return None;
                }
            }
        }
        Some(token)
    }
}

impl TokenSink for Recorder<'_> {
    type Handle = NodeRef;

    fn process_token(&self, token: Token, line_number: u64) -> TokenSinkResult<NodeRef> {
        if let Token::TagToken(tag) = &token
            && self.log.current().is_some()
        {
            self.names.borrow_mut().push(tag.name.clone());
        }
        let Some(token) = self.flatten(token) else {
            return TokenSinkResult::Continue;
        };
        let mut self_closing = None;
        if let Token::TagToken(tag) = &token {
            let index = self.log.current().unwrap_or(usize::MAX);
            self.builder
                .sink
                .set_current(Some((index, tag.kind, &tag.name)));
            self_closing = Some(tag.self_closing);
        }
        let result = self.builder.process_token(token, line_number);
        if let Some(self_closing) = self_closing {
            self.builder.sink.release_unpushed(self_closing);
        }
        self.builder.sink.set_current(None);
        result
    }

    fn end(&self) {
        self.builder.end();
    }

    fn adjusted_current_node_present_but_not_in_html_namespace(&self) -> bool {
        self.builder
            .adjusted_current_node_present_but_not_in_html_namespace()
    }
}
