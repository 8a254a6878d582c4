//! The attribute being read, duplicates, and how a tag's attributes are
//! gathered (all, or on the lean path those the tree builder reads).

use std::borrow::Cow;
use std::collections::HashSet;
use std::ops::Range;

use html5ever::tendril::StrTendril;
use html5ever::tokenizer::TagKind;
use html5ever::{Attribute, LocalName, QualName, local_name, ns};

use super::names::{is_formatting, read_by_tree_builder};
use super::spans::{AttrSpan, offset};
use super::text::Text;
use super::{Quote, Sink, Tokenizer};

/// The attribute being read.
#[derive(Debug)]
pub(super) struct CurrentAttr {
    /// The name, unless `name_is_source`.
    pub(super) name: String,
    /// Whether the name is the source over `name_span` (no upper case or NUL), not copied.
    pub(super) name_is_source: bool,
    pub(super) name_span: Range<usize>,
    pub(super) value: Text,
    pub(super) value_span: Range<usize>,
    pub(super) quote: Quote,
}

impl CurrentAttr {
    /// The name as the tokenizer gives it, once it is ended.
    #[inline]
    pub(super) fn name<'s>(&'s self, input: &'s str) -> &'s str {
        if self.name_is_source {
            &input[self.name_span.clone()]
        } else {
            &self.name
        }
    }

    #[inline]
    pub(super) fn value(&self) -> Range<usize> {
        self.value_span.clone()
    }

    /// Its span in `input`; the quoting read back from it must be what the tokenizer saw.
    #[inline]
    pub(super) fn span(&self, input: &str) -> AttrSpan {
        let span = AttrSpan {
            name: (offset(self.name_span.start), offset(self.name_span.end)),
            value: (offset(self.value_span.start), offset(self.value_span.end)),
        };
        debug_assert_eq!(span.quote(input), self.quote, "{span:?}");
        span
    }
}

/// A tag's attribute names past [`SCAN_LIMIT`], to find duplicates in constant
/// time; below it the kept spans are scanned when a bit of `seen` matches.
#[derive(Debug, Default)]
pub(super) struct SeenNames {
    pub(super) set: HashSet<Box<[u8]>>,
    /// A bit for each name kept, by [`name_bit`]: a name whose bit is clear is new.
    seen: u64,
}

/// The bit of [`SeenNames::seen`] for a name as the tokenizer gives it.
#[inline]
fn name_bit(name: &[u8]) -> u64 {
    let first = usize::from(name.first().copied().unwrap_or(0));
    1 << ((first ^ (name.len() << 2)) & 63)
}

impl SeenNames {
    #[inline]
    pub(super) fn clear(&mut self) {
        self.seen = 0;
        if !self.set.is_empty() {
            self.set.clear();
        }
    }

    /// Whether the tag already has an attribute `name` (of those kept since
    /// [`SeenNames::clear`]), noting it if not: a scan, then a hash set, so no
    /// tag takes more than linear time.
    #[inline(always)]
    pub(super) fn seen_before(&mut self, input: &str, kept: &[AttrSpan], name: &[u8]) -> bool {
        if kept.len() < SCAN_LIMIT {
            let bit = name_bit(name);
            if self.seen & bit == 0 {
                self.seen |= bit;
                return false;
            }
        }
        self.seen_slow(input, kept, name)
    }

    /// [`SeenNames::seen_before`] past its first test: a scan, or past [`SCAN_LIMIT`] the set.
    #[inline(never)]
    fn seen_slow(&mut self, input: &str, kept: &[AttrSpan], name: &[u8]) -> bool {
        if kept.len() < SCAN_LIMIT {
            return kept
                .iter()
                .any(|a| is_name(&input.as_bytes()[a.name()], name));
        }
        if self.set.is_empty() {
            for a in kept {
                self.set
                    .insert(Box::from(given_name(&input[a.name()]).as_bytes()));
            }
        }
        !self.set.insert(Box::from(name))
    }
}

/// An attribute name as the tokenizer gives it: ASCII upper case lowered,
/// NUL replaced.
#[inline]
pub(in crate::html) fn given_name(raw: &str) -> Cow<'_, str> {
    if raw.bytes().any(|b| b.is_ascii_uppercase() || b == 0) {
        Cow::Owned(raw.to_ascii_lowercase().replace('\0', "\u{fffd}"))
    } else {
        Cow::Borrowed(raw)
    }
}

/// Whether `raw`, a name as written, is `name` as the tokenizer gives it ([`given_name`]).
#[inline]
pub(super) fn is_name(raw: &[u8], name: &[u8]) -> bool {
    if raw.len() == name.len() {
        return raw.eq_ignore_ascii_case(name);
    }
    // Each NUL, one byte, becomes U+FFFD, three.
    raw.len() < name.len()
        && (name.len() - raw.len()).is_multiple_of(2)
        && raw.contains(&0)
        && std::str::from_utf8(raw).is_ok_and(|raw| given_name(raw).as_bytes() == name)
}

/// Whether a WAT file's reader reads an attribute named `raw` as written on
/// the element `tag` (beyond the link table's, [`crate::html::links::may_hold_url`]):
/// a link it lists that the table does not rewrite, `html`'s language,
/// `meta`'s names and contents. None holds what a NUL becomes.
#[inline]
fn read_by_wat(raw: &[u8], tag: &str) -> bool {
    let is = |name: &&str| raw.eq_ignore_ascii_case(name.as_bytes());
    crate::wat_links::may_be_listed(raw)
        || match tag {
            "html" => ["lang", "xml:lang"].iter().any(is),
            "meta" => crate::links::HtmlHead::META_NAMES.iter().any(is),
            _ => false,
        }
}

/// Up to this many attributes duplicates are found by a scan, beyond by a hash set.
pub(super) const SCAN_LIMIT: usize = 16;

impl<'a, S: Sink> Tokenizer<'a, S> {
    /// [`Tokenizer::lean`], known at compile time for a sink of relink's own:
    /// values are not gathered, only their spans kept.
    #[inline(always)]
    pub(super) fn is_lean(&self) -> bool {
        !S::HTML5EVER || self.lean
    }

    /// Starts a new attribute whose name starts at the current position.
    #[inline(always)]
    pub(super) fn start_attr(&mut self) {
        self.finish_attr();
        let at = self.pos;
        let lean = self.is_lean();
        let attr = &mut self.attr;
        attr.name.clear();
        attr.name_is_source = false;
        attr.name_span = at..at;
        if !lean {
            attr.value.clear(at);
        }
        attr.value_span = at..at;
        attr.quote = Quote::Valueless;
        self.in_attr = true;
    }

    /// Starts a new attribute whose name, read in one run, is the source
    /// `start..end` (the lean path), its name ended: each field stored once.
    #[inline(always)]
    pub(super) fn start_attr_lean(&mut self, start: usize, end: usize) {
        self.finish_attr();
        let attr = &mut self.attr;
        attr.name_is_source = true;
        attr.name_span = start..end;
        attr.value_span = end..end;
        attr.quote = Quote::Valueless;
        self.in_attr = true;
    }

    /// The current attribute's value, quoted by `quote`, is `start..end` (the lean path).
    #[inline(always)]
    pub(super) fn attr_value_lean(&mut self, quote: Quote, start: usize, end: usize) {
        self.attr.quote = quote;
        self.attr.value_span = start..end;
    }

    /// Ends the current attribute's name at the current position.
    pub(super) fn end_attr_name(&mut self) {
        let at = self.pos;
        let lean = self.is_lean();
        let attr = &mut self.attr;
        attr.name_span.end = at;
        if !lean {
            attr.value.clear(at);
        }
        attr.value_span = at..at;
    }

    /// Starts the current attribute's value at the current position.
    pub(super) fn start_attr_value(&mut self, quote: Quote) {
        let at = self.pos;
        let lean = self.is_lean();
        let attr = &mut self.attr;
        attr.quote = quote;
        if !lean {
            attr.value.clear(at);
        }
        attr.value_span = at..at;
    }

    /// Appends the source `input[from..to]` to the current value (the lean path
    /// decodes values from their spans instead, [`Tokenizer::lean_value`]).
    pub(super) fn value_raw(&mut self, from: usize, to: usize) {
        if !self.is_lean() {
            self.attr.value.push_raw(self.input, from, to);
        }
    }

    /// Appends text that is not the source to the current attribute's value.
    pub(super) fn value_str(&mut self, s: &str) {
        if !self.is_lean() {
            self.attr.value.push_str(self.input, s);
        }
    }

    /// The current attribute's value decoded from its span (the lean path does not gather it).
    pub(super) fn lean_value(&self) -> Cow<'a, str> {
        let raw = self.input.get(self.attr.value()).unwrap_or_default();
        crate::html::charref::decode_attribute(raw).text
    }

    /// Ends the current attribute's value at the current position.
    pub(super) fn end_attr_value(&mut self) {
        self.attr.value_span.end = self.pos;
    }

    /// Adds the current attribute to the tag, unless it has one of that name.
    #[inline]
    pub(super) fn finish_attr(&mut self) {
        if !std::mem::take(&mut self.in_attr) {
            return;
        }
        if self.is_lean() {
            self.finish_attr_lean();
        } else {
            self.finish_attr_full();
        }
    }

    /// [`Tokenizer::finish_attr`] with every attribute as an atom.
    pub(super) fn finish_attr_full(&mut self) {
        let name = LocalName::from(self.attr.name(self.input));
        let duplicate = if self.attrs.len() < SCAN_LIMIT {
            self.attrs.iter().any(|a| a.name.local == name)
        } else {
            if self.attr_names.is_empty() {
                self.attr_names
                    .extend(self.attrs.iter().map(|a| a.name.local.clone()));
            }
            !self.attr_names.insert(name.clone())
        };
        if duplicate {
            self.had_duplicate = true;
            self.error("Duplicate attribute");
        } else {
            let value = self.text_tendril(&self.attr.value);
            self.attrs.push(Attribute {
                name: QualName::new(None, ns!(), name),
                value,
            });
            self.attr_spans.push(self.attr.span(self.input));
        }
    }

    /// [`Tokenizer::finish_attr`] on the lean path, with no atom for a name the tree builder ignores.
    #[inline(always)]
    pub(super) fn finish_attr_lean(&mut self) {
        let input = self.input;
        // The name as written and as the tokenizer gives it, looked up once.
        let raw = self
            .bytes
            .get(self.attr.name_span.clone())
            .unwrap_or_default();
        let name = if self.attr.name_is_source {
            raw
        } else {
            self.attr.name.as_bytes()
        };
        if self.seen.seen_before(input, &self.attr_spans, name) {
            self.had_duplicate = true;
            self.error("Duplicate attribute");
            return;
        }
        let log = self.log_tag
            || self.log_any_attribute
            || crate::html::links::may_hold_url(raw)
            || (self.log_title && read_by_wat(raw, self.current_tag_name()));
        // (A match, not `Option::filter`, which was a call an attribute.)
        let read = match read_by_tree_builder(name) {
            Some((name, on)) if self.current_tag_name() == on => Some(name),
            _ => None,
        };
        if let Some(name) = read {
            if S::HTML5EVER {
                let value = StrTendril::from_slice(&self.lean_value());
                self.attrs.push(Attribute {
                    name: QualName::new(None, ns!(), name),
                    value,
                });
            } else {
                let value = self.lean_value();
                self.read.push((name, value));
            }
        } else if S::HTML5EVER
            && self.formatting_stand_in
            && self.tag_kind == TagKind::StartTag
            && self.is_formatting()
        {
            let value = self.lean_value();
            let (attr, text) = (&self.attr, &mut self.dropped_text);
            let attr_name = attr.name(input);
            let name = text.len()..text.len() + attr_name.len();
            text.push_str(attr_name);
            let at = text.len();
            text.push_str(&value);
            self.dropped.push((name, at..text.len()));
        }
        self.log_tag = log;
        let span = self.attr.span(input);
        self.attr_spans.push(span);
    }

    /// Whether the tag is a formatting element's (asked once a tag).
    pub(super) fn is_formatting(&mut self) -> bool {
        if self.formatting.is_none() {
            self.formatting = Some(is_formatting(self.current_tag_name()));
        }
        self.formatting == Some(true)
    }

    /// The current tag's name as the tokenizer gives it.
    pub(super) fn current_tag_name(&self) -> &str {
        match &self.tag_name_source {
            Some(span) => &self.input[span.clone()],
            None => &self.tag_name,
        }
    }

    /// On the lean path, the attribute standing for those left out of a
    /// formatting element's token: an empty name, and as value each (name,
    /// value) pair sorted by name, NUL after each part. Two such tokens compare
    /// equal exactly when their attribute lists do, as "Noah's Ark" compares.
    pub(super) fn dropped_attribute(&mut self) -> Option<Attribute> {
        if self.dropped.is_empty() {
            return None;
        }
        let text = &self.dropped_text;
        self.dropped
            .sort_unstable_by(|a, b| text[a.0.clone()].cmp(&text[b.0.clone()]));
        let mut value = String::with_capacity(text.len() + 2 * self.dropped.len());
        for (name, val) in &self.dropped {
            value.push_str(&text[name.clone()]);
            value.push('\0');
            value.push_str(&text[val.clone()]);
            value.push('\0');
        }
        Some(Attribute {
            name: QualName::new(None, ns!(), local_name!("")),
            value: StrTendril::from_slice(&value),
        })
    }
}
