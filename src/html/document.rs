//! A parsed document as the rest of relink sees it: its tags that can hold
//! a link, with their attribute spans and the elements they made, and which
//! one is the base. Both ways of parsing ([`super::tracker`] and
//! html5ever's tree builder in [`super::tree`]) give one.

use std::borrow::Cow;
use std::ops::Range;

use html5ever::LocalName;
use html5ever::tokenizer::TagKind;

use super::arena::{Element, Landmark, Tree};
use super::charref;
use super::tokenizer::{AttrSpan, SpanLog, TagSpan};

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
    /// The element this start tag created or added attributes to, if in the final tree.
    pub element: Option<Element>,
    /// The innermost landmark its element is or lies in, when the parse found them ([`Tree::landmarks`]).
    pub landmark: Option<Landmark>,
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

/// A parsed document: the tags that can hold a link, in source order
/// (every tag with [`Attributes::All`](super::tokenizer::Attributes::All)),
/// and which one is the base. A few vectors of small records, as a document
/// may hold millions of tags.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Document {
    spans: Vec<TagSpan>,
    names: Vec<LocalName>,
    elements: Vec<Option<Element>>,
    /// Empty unless the parse found landmarks.
    landmarks: Vec<Option<Landmark>>,
    attrs: Vec<AttrSpan>,
    /// The first HTML `base` with an `href` in tree order, outside template contents.
    pub base: Option<usize>,
}

impl Document {
    /// A document of these records, one each per tag, `base` its base tag's index.
    pub(super) fn from_parts(
        spans: Vec<TagSpan>,
        names: Vec<LocalName>,
        (elements, landmarks): (Vec<Option<Element>>, Vec<Option<Landmark>>),
        attrs: Vec<AttrSpan>,
        base: Option<usize>,
    ) -> Self {
        Document {
            spans,
            names,
            elements,
            landmarks,
            attrs,
            base,
        }
    }

    /// The document of a parse: the logged tags, their names, and the tree's facts.
    pub(super) fn assemble(log: SpanLog, names: Vec<LocalName>, mut tree: Tree) -> Self {
        let (spans, attrs) = log.into_flat();
        // One slot for each tag (a tracker's tree stops at the last tied one).
        tree.elements.resize(spans.len(), None);
        if !tree.landmarks.is_empty() {
            tree.landmarks.resize(spans.len(), None);
        }
        let parts = (tree.elements, tree.landmarks);
        Self::from_parts(spans, names, parts, attrs, tree.base)
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
            landmark: self.landmarks.get(index).copied().flatten(),
            attrs: self.attrs.get(span.attr_range()).unwrap_or_default(),
        })
    }

    /// Every tag, in source order.
    pub fn tags(&self) -> impl Iterator<Item = Tag<'_>> {
        (0..self.len()).filter_map(|i| self.tag(i))
    }
}

/// An attribute's name as the tokenizer gives it: ASCII upper case lowered, NUL replaced.
pub fn attr_name<'s>(src: &'s str, attr: &AttrSpan) -> Cow<'s, str> {
    super::tokenizer::given_name(&src[attr.name()])
}

/// An attribute's value, references decoded as the tokenizer decodes them.
pub fn decoded_value<'s>(src: &'s str, attr: &AttrSpan) -> Cow<'s, str> {
    let raw = &src[attr.value()];
    if raw.bytes().any(|b| matches!(b, b'&' | b'\r' | 0)) {
        charref::decode_attribute(raw).text
    } else {
        Cow::Borrowed(raw)
    }
}
