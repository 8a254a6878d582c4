//! The span log: where each logged tag and its attributes lie in the source.

use std::cell::{Cell, Ref, RefCell};
use std::ops::Range;

use html5ever::tokenizer::TagKind;

use super::Quote;
use crate::encoding::MetaSeen;

/// An offset as stored: documents are at most `u32::MAX` bytes, as tendrils.
#[inline]
pub(super) fn offset(at: usize) -> u32 {
    u32::try_from(at).unwrap_or(u32::MAX)
}

#[inline]
pub(super) fn range(span: (u32, u32)) -> Range<usize> {
    span.0 as usize..span.1 as usize
}

/// Where one attribute lies in the source, in 16 bytes ([`AttrSpan::quote`] reads its quoting).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AttrSpan {
    pub(super) name: (u32, u32),
    pub(super) value: (u32, u32),
}

impl AttrSpan {
    /// The name, as written (before lowercasing).
    #[inline]
    pub fn name(&self) -> Range<usize> {
        range(self.name)
    }

    /// The raw value, without quotes, references not decoded.
    #[inline]
    pub fn value(&self) -> Range<usize> {
        range(self.value)
    }

    /// How the value was written, read from `src`: none if it starts where the
    /// name ends, quoted if after its quote, else unquoted.
    #[inline]
    pub fn quote(&self, src: &str) -> Quote {
        if self.value.0 == self.name.1 {
            return Quote::Valueless;
        }
        let before = (self.value.0 as usize).checked_sub(1);
        match before.and_then(|at| src.as_bytes().get(at)) {
            Some(b'"') => Quote::Double,
            Some(b'\'') => Quote::Single,
            _ => Quote::Unquoted,
        }
    }
}

/// The top bit of [`TagSpan`]'s attribute end, set for an end tag.
pub(super) const END_TAG: u32 = 1 << 31;

/// Where one tag token lies in the source, in 16 bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TagSpan {
    pub(super) span: (u32, u32),
    /// Its attributes' spans in [`SpanLog`]'s flat list, in the token's order
    /// (duplicates dropped); the end's top bit marks an end tag ([`END_TAG`]).
    pub(super) attrs: (u32, u32),
}

impl TagSpan {
    #[inline]
    pub(super) fn new(kind: TagKind, span: (u32, u32), attrs: (u32, u32)) -> Self {
        let end = attrs.1.min(END_TAG - 1);
        let flag = if kind == TagKind::EndTag { END_TAG } else { 0 };
        TagSpan {
            span,
            attrs: (attrs.0.min(end), end | flag),
        }
    }

    /// Start or end tag.
    #[inline]
    pub fn kind(&self) -> TagKind {
        if self.attrs.1 & END_TAG != 0 {
            TagKind::EndTag
        } else {
            TagKind::StartTag
        }
    }

    /// From its `<` to just after its `>`.
    #[inline]
    pub fn span(&self) -> Range<usize> {
        range(self.span)
    }

    /// Where this tag's attributes are in [`SpanLog::into_flat`]'s list.
    #[inline]
    pub fn attr_range(&self) -> Range<usize> {
        range((self.attrs.0, self.attrs.1 & !END_TAG))
    }
}

/// The spans of the tag tokens emitted so far, in order. A tag is logged
/// just before its token goes to the sink, so while a sink of html5ever's
/// tokens processes it [`SpanLog::current`] is its index; for any other
/// token, `None` (a [`super::Sink`] of relink's own has it in [`super::TagToken::index`]).
#[derive(Debug, Default)]
pub struct SpanLog {
    pub(super) tags: RefCell<Vec<TagSpan>>,
    pub(super) attrs: RefCell<Vec<AttrSpan>>,
    pub(super) current: Cell<Option<usize>>,
    /// What runs of script and RAWTEXT showed of `<meta` ([`super::Options::watch_meta`]).
    pub meta: RefCell<MetaSeen>,
}

impl SpanLog {
    /// A log with room for `tags` tags (at most one a `<`), so it never grows by copying.
    #[cfg_attr(not(feature = "_internal"), allow(dead_code))]
    #[inline]
    pub fn with_capacity(tags: usize) -> Self {
        SpanLog {
            tags: RefCell::new(Vec::with_capacity(tags)),
            ..SpanLog::default()
        }
    }

    /// Makes room for `tags` more tags and their attributes, so a log does not grow by copying.
    #[inline]
    pub fn reserve(&self, tags: usize) {
        self.tags.borrow_mut().reserve(tags);
        self.attrs.borrow_mut().reserve(tags.saturating_mul(3));
    }

    /// How many tag tokens have been emitted.
    #[inline]
    pub fn len(&self) -> usize {
        self.tags.borrow().len()
    }

    /// Whether no tag token has been emitted.
    #[cfg_attr(not(feature = "_internal"), allow(dead_code))]
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The index of the tag token the sink is processing, if any.
    #[inline]
    pub fn current(&self) -> Option<usize> {
        self.current.get()
    }

    /// The span of tag `index`; panics if no such tag was emitted.
    #[cfg_attr(not(feature = "_internal"), allow(dead_code))]
    #[inline]
    pub fn tag(&self, index: usize) -> TagSpan {
        self.tags.borrow()[index].clone()
    }

    /// The spans of tag `index`'s attributes in token order; panics if no such tag.
    #[cfg_attr(not(feature = "_internal"), allow(dead_code))]
    #[inline]
    pub fn attrs(&self, index: usize) -> Ref<'_, [AttrSpan]> {
        let range = self.tags.borrow()[index].attr_range();
        Ref::map(self.attrs.borrow(), |all| &all[range])
    }

    /// Takes the tags logged so far, leaving the log empty (a document in pieces).
    #[inline]
    pub fn take(&self) -> (Vec<TagSpan>, Vec<AttrSpan>) {
        (self.tags.take(), self.attrs.take())
    }

    /// Every tag span, and every attribute's span in one list ([`TagSpan::attr_range`]).
    #[inline]
    pub fn into_flat(self) -> (Vec<TagSpan>, Vec<AttrSpan>) {
        (self.tags.into_inner(), self.attrs.into_inner())
    }

    /// Every tag span, and every attribute's span with the tag it is on.
    #[cfg_attr(not(feature = "_internal"), allow(dead_code))]
    #[inline]
    pub fn into_parts(self) -> (Vec<TagSpan>, Vec<Vec<AttrSpan>>) {
        let tags = self.tags.into_inner();
        let attrs = self.attrs.into_inner();
        let per_tag = tags
            .iter()
            .map(|t| attrs[t.attr_range()].to_vec())
            .collect();
        (tags, per_tag)
    }
}
