//! Markdown: CommonMark with GitHub's tables, footnotes, strikethrough and
//! task lists, read by pulldown-cmark, which gives each link's range in the
//! source. Only destinations change: those of inline links and images and
//! of reference definitions; HTML blocks and inline HTML go to the HTML
//! reader through [`Documents`], their edits placed back at their offsets.
//! Code spans, code blocks, autolinks and link text stay as they are, and
//! so does a link to the document itself (`#name`, or empty).
//!
//! Images (and reference definitions only images use) take the resource
//! base (`--resource-base`) when one is given and the page's base is the
//! retrieval URL; links take the page's base.

use std::collections::HashMap;
use std::ops::Range;

use pulldown_cmark::{Event, LinkType, Options as Extensions, Parser, Tag, TagEnd};

use crate::Error;
use crate::base::Base;
use crate::encoding;
use crate::links::{Outcome, Place, WarningKind};
use crate::options::Options;
use crate::splice::Edit;
use crate::text::{self, Documents, Resolver, SameDocument, TextRewrite};

/// Where an inline link's destination is, in the place lists.
const LINK: Place<'static> = Place {
    element: "",
    attribute: "link",
};
const IMAGE: Place<'static> = Place {
    element: "",
    attribute: "image",
};
const DEFINITION: Place<'static> = Place {
    element: "",
    attribute: "definition",
};

/// Rewrites a Markdown document; its HTML goes to `documents`.
pub fn rewrite_markdown(
    bytes: &[u8],
    options: &Options<'_>,
    documents: &dyn Documents,
) -> Result<Outcome, Error> {
    let decode = |bytes| encoding::sniff_decode_text(bytes, options.transport);
    // Links are found out of order (a definition's at the end).
    text::rewrite_bytes_in_order(bytes, decode, options, |text, options| {
        rewrite_text(text, options, documents)
    })
}

/// The edits of a Markdown document given as text.
pub fn rewrite_text(text: &str, options: &Options<'_>, documents: &dyn Documents) -> TextRewrite {
    let (page, resource, layers, no_base) = text::page_bases(options);
    let mut work = Work {
        r: Resolver::new(text, options),
        page,
        resource,
        documents,
    };
    work.r.out.layers = layers;
    if no_base {
        work.r.warn_no_base();
    }
    if work.page.is_some() || work.resource.is_some() {
        work.run();
    }
    let page = work.page.filter(|page| !page.is_stand_in());
    let mut out = work.r.finish(page);
    // Links are found in the order they end (a definition's at the end):
    // they are reported in the order they are written.
    out.links.sort_by_key(|link| (link.line, link.column));
    out
}

/// The extensions GitHub's Markdown has that pulldown-cmark reads.
fn extensions() -> Extensions {
    Extensions::ENABLE_TABLES
        | Extensions::ENABLE_FOOTNOTES
        | Extensions::ENABLE_STRIKETHROUGH
        | Extensions::ENABLE_TASKLISTS
        | Extensions::ENABLE_GFM
}

/// An inline link or image being read: its range, and where its text ends
/// so far (its destination comes after).
struct Open {
    range: Range<usize>,
    image: bool,
    inline: bool,
    dest: String,
    text_end: usize,
}

/// How often a reference definition is used by links and by images.
#[derive(Default, Clone, Copy)]
struct Uses {
    links: usize,
    images: usize,
}

struct Work<'t, 'o, 'd> {
    r: Resolver<'t, 'o>,
    page: Option<Base>,
    resource: Option<Base>,
    documents: &'d dyn Documents,
}

impl Work<'_, '_, '_> {
    fn run(&mut self) {
        let text = self.r.text;
        let parser = Parser::new_ext(text, extensions());
        let mut definitions: Vec<(Range<usize>, String)> = parser
            .reference_definitions()
            .iter()
            .map(|(_, def)| (def.span.clone(), def.dest.to_string()))
            .collect();
        definitions.sort_by_key(|(span, _)| span.start);
        let mut uses: HashMap<usize, Uses> = HashMap::new();
        let mut stack: Vec<Open> = Vec::new();
        let mut html: Option<Range<usize>> = None;
        let mut events = parser.into_offset_iter();
        while let Some((event, range)) = events.next() {
            // Adjacent pieces of HTML (the lines of a block) go together.
            if matches!(event, Event::Html(_) | Event::InlineHtml(_)) {
                match &mut html {
                    Some(pending) if pending.end == range.start => pending.end = range.end,
                    _ => {
                        if let Some(done) = html.replace(range.clone()) {
                            self.html(done);
                        }
                    }
                }
            } else if let Some(done) = html.take() {
                self.html(done);
            }
            match event {
                Event::Start(Tag::Link {
                    link_type,
                    dest_url,
                    id,
                    ..
                })
                | Event::Start(Tag::Image {
                    link_type,
                    dest_url,
                    id,
                    ..
                }) => {
                    let image = text[range.start..].starts_with('!');
                    if matches!(
                        link_type,
                        LinkType::Reference | LinkType::Collapsed | LinkType::Shortcut
                    ) && let Some(def) = events.reference_definitions().get(&id)
                    {
                        let count = uses.entry(def.span.start).or_default();
                        if image {
                            count.images += 1;
                        } else {
                            count.links += 1;
                        }
                    }
                    stack.push(Open {
                        text_end: range.start + if image { 2 } else { 1 },
                        range,
                        image,
                        inline: link_type == LinkType::Inline,
                        dest: dest_url.into_string(),
                    });
                    continue;
                }
                Event::End(TagEnd::Link | TagEnd::Image) => {
                    if let Some(open) = stack.pop() {
                        if let Some(parent) = stack.last_mut() {
                            parent.text_end = parent.text_end.max(open.range.end);
                        }
                        if open.inline {
                            self.inline(&open);
                        }
                    }
                    continue;
                }
                _ => {}
            }
            if let Some(top) = stack.last_mut() {
                top.text_end = top.text_end.max(range.end);
            }
        }
        if let Some(done) = html.take() {
            self.html(done);
        }
        for (span, dest) in definitions {
            let used = uses.get(&span.start).copied().unwrap_or_default();
            let image = used.images > 0 && used.links == 0;
            self.definition(span, &dest, image);
        }
    }

    /// An inline link or image: its destination found after its text.
    fn inline(&mut self, open: &Open) {
        if open.dest.is_empty() {
            return;
        }
        let text = self.r.text;
        match find_inline_destination(text, &open.range, open.text_end, &open.dest) {
            Some(dest) => {
                let place = if open.image { IMAGE } else { LINK };
                self.rewrite(dest, &open.dest, open.image, place);
            }
            None => self.r.warn(
                open.range.start,
                WarningKind::Unreadable,
                "markdown link whose destination could not be placed; left as it is",
            ),
        }
    }

    /// A reference definition (`[id]: dest "title"`).
    fn definition(&mut self, span: Range<usize>, value: &str, image: bool) {
        if value.is_empty() {
            return;
        }
        match find_definition_destination(self.r.text, &span, value) {
            Some(dest) => self.rewrite(dest, value, image, DEFINITION),
            None => self.r.warn(
                span.start,
                WarningKind::Unreadable,
                "reference definition whose destination could not be placed; left as it is",
            ),
        }
    }

    /// Resolves a destination whose decoded value is `value`, and writes
    /// the new one so that it reads back as the new URL.
    fn rewrite(&mut self, dest: Destination, value: &str, image: bool, place: Place<'_>) {
        let base = if image { &self.resource } else { &self.page };
        let Some(base) = base.clone() else { return };
        let at = dest.range.start;
        let Some(new) = self.r.resolve(at, value, &base, place, SameDocument::Keep) else {
            return;
        };
        let text = self.r.text;
        let raw = &text[dest.range.clone()];
        let following = &text[dest.range.end..];
        let written = write_destination(raw, value, &new, dest.pointy, following);
        self.r
            .out
            .edits
            .push(Edit::new(dest.range, written).narrowed(text));
    }

    /// A run of HTML (a block, or inline tags) rewritten by the HTML reader
    /// against the page's base, its edits placed back in the Markdown.
    fn html(&mut self, range: Range<usize>) {
        let Some(page) = self.page.as_ref() else {
            return;
        };
        self.r.embedded_html(self.documents, range, page, "html");
    }
}

/// A destination in the source: its range (with the `<` `>` of one
/// written in angle brackets).
#[derive(Debug, Clone, PartialEq, Eq)]
struct Destination {
    range: Range<usize>,
    pointy: bool,
}

/// The destination of the inline link or image at `range`, whose text ends
/// at or after `text_end`: the first `](` from there that opens a
/// destination which reads as `value` and is followed by nothing but a
/// title and the closing `)`. pulldown-cmark gives the whole link's range
/// only.
fn find_inline_destination(
    text: &str,
    range: &Range<usize>,
    text_end: usize,
    value: &str,
) -> Option<Destination> {
    let mut at = text_end.max(range.start);
    while let Some(i) = text.get(at..range.end)?.find("](") {
        let open = at + i + 2;
        if let Some(dest) = parse_destination(text, open, range.end, true)
            && reads_as(&text[dest.range.clone()], dest.pointy, value)
            && closes(&text[dest.range.end..range.end])
        {
            return Some(dest);
        }
        at += i + 1;
    }
    None
}

/// Whether what follows a destination inside `(...)` is an optional title
/// and the closing parenthesis.
fn closes(rest: &str) -> bool {
    let Some(inner) = rest.strip_suffix(')') else {
        return false;
    };
    let title = inner.trim_start_matches([' ', '\t', '\n', '\r']);
    title.is_empty()
        || (title.len() < inner.len()
            && title.starts_with(['"', '\'', '('])
            && title.trim_end_matches([' ', '\t', '\n', '\r']).len() >= 2)
}

/// The destination of the reference definition at `span`.
fn find_definition_destination(
    text: &str,
    span: &Range<usize>,
    value: &str,
) -> Option<Destination> {
    let b = text.as_bytes();
    let mut i = span.start;
    if b.get(i) != Some(&b'[') {
        return None;
    }
    i += 1;
    // A label holds no unescaped bracket.
    while i < span.end {
        match b[i] {
            b'\\' => i += 2,
            b']' => break,
            _ => i += 1,
        }
    }
    if b.get(i + 1) != Some(&b':') {
        return None;
    }
    let dest = parse_destination(text, i + 2, span.end, false)?;
    reads_as(&text[dest.range.clone()], dest.pointy, value).then_some(dest)
}

/// Skips spaces and tabs, at most one line ending, and after it the marks
/// of the containers the line continues (`>` of a block quote).
fn skip_space(b: &[u8], mut i: usize, end: usize) -> usize {
    let blank = |c: u8| c == b' ' || c == b'\t';
    while i < end && blank(b[i]) {
        i += 1;
    }
    if i < end && (b[i] == b'\n' || b[i] == b'\r') {
        i += if b[i] == b'\r' && b.get(i + 1) == Some(&b'\n') {
            2
        } else {
            1
        };
        while i < end && (blank(b[i]) || b[i] == b'>') {
            i += 1;
        }
    }
    i
}

/// A link destination (CommonMark 6.3) starting after white space at
/// `from`, before `end`: `<...>` with no line ending or unescaped `<` `>`,
/// or a run of no space or control character in which parentheses balance
/// unless escaped (`inline`: the run also ends at an unbalanced `)`).
fn parse_destination(text: &str, from: usize, end: usize, inline: bool) -> Option<Destination> {
    let b = text.as_bytes();
    let start = skip_space(b, from, end);
    let mut i = start;
    if b.get(i) == Some(&b'<') && i < end {
        i += 1;
        while i < end {
            match b[i] {
                b'>' => {
                    return Some(Destination {
                        range: start..i + 1,
                        pointy: true,
                    });
                }
                b'\n' | b'\r' | b'<' => return None,
                b'\\' if b.get(i + 1).is_some_and(u8::is_ascii_punctuation) => i += 2,
                _ => i += 1,
            }
        }
        return None;
    }
    let mut depth = 0usize;
    while i < end {
        match b[i] {
            c if c <= b' ' || c == 0x7f => break,
            b'\\' if b.get(i + 1).is_some_and(u8::is_ascii_punctuation) && i + 1 < end => {
                i += 2;
                continue;
            }
            b'(' => depth += 1,
            b')' if depth == 0 && inline => break,
            b')' => depth = depth.saturating_sub(1),
            _ => {}
        }
        i += 1;
    }
    (i > start).then_some(Destination {
        range: start..i,
        pointy: false,
    })
}

/// Whether a destination as written reads as `value` (backslash escapes
/// undone; one with an entity reference is taken as it is, pulldown-cmark
/// having decoded it).
fn reads_as(raw: &str, pointy: bool, value: &str) -> bool {
    let inner = if pointy { &raw[1..raw.len() - 1] } else { raw };
    if inner.contains('&') {
        return true;
    }
    let mut decoded = String::with_capacity(inner.len());
    let mut chars = inner.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\\'
            && let Some(&next) = chars.peek()
            && next.is_ascii_punctuation()
        {
            decoded.push(next);
            chars.next();
            continue;
        }
        decoded.push(c);
    }
    decoded == value
}

/// Whether a URL must be written in angle brackets: a bare destination
/// holds no space or control character.
fn needs_brackets(url: &str) -> bool {
    url.bytes().any(|b| b <= b' ' || b == 0x7f)
}

/// Whether every parenthesis of `s` has its pair.
fn balanced(s: &str) -> bool {
    let mut depth = 0usize;
    for b in s.bytes() {
        match b {
            b'(' => depth += 1,
            b')' if depth == 0 => return false,
            b')' => depth -= 1,
            _ => {}
        }
    }
    depth == 0
}

/// Whether `&` followed by `rest` would be read as an entity or numeric
/// character reference.
fn starts_reference(rest: &str) -> bool {
    let name = rest.strip_prefix('#').unwrap_or(rest);
    let len = name.bytes().take_while(u8::is_ascii_alphanumeric).count();
    len > 0 && name.as_bytes().get(len) == Some(&b';')
}

/// `url` escaped for a destination (`pointy`: inside `<...>`), so that it
/// reads back as itself when `following` comes after it.
fn escape(url: &str, following: &str, pointy: bool) -> String {
    let escape_parens = !pointy && !balanced(url);
    let mut out = String::with_capacity(url.len() + 4);
    for (i, c) in url.char_indices() {
        let rest = &url[i + c.len_utf8()..];
        let next = rest.chars().next().or_else(|| following.chars().next());
        match c {
            '\\' if next.is_some_and(|n| n.is_ascii_punctuation()) => out.push_str("\\\\"),
            '<' | '>' if pointy => {
                out.push('\\');
                out.push(c);
            }
            '<' if i == 0 => out.push_str("\\<"),
            '(' | ')' if escape_parens => {
                out.push('\\');
                out.push(c);
            }
            '&' if starts_reference(&format!("{rest}{following}")) => out.push_str("\\&"),
            '\n' => out.push_str("%0A"),
            '\r' => out.push_str("%0D"),
            c => out.push(c),
        }
    }
    out
}

/// The new destination for `raw` (which reads as `value`) resolved to
/// `new`: when `new` ends with `value`, only what the base brings is
/// written before the reference as it was; else the whole URL, in angle
/// brackets when the old one had them or the new one needs them.
/// `following` is the text after the destination.
fn write_destination(raw: &str, value: &str, new: &str, pointy: bool, following: &str) -> String {
    if let Some(prefix) = new.strip_suffix(value).filter(|p| !p.is_empty()) {
        if pointy {
            return format!("<{}{}", escape(prefix, &raw[1..], true), &raw[1..]);
        }
        if !needs_brackets(prefix) && balanced(prefix) {
            return format!("{}{raw}", escape(prefix, raw, false));
        }
    }
    if pointy || needs_brackets(new) {
        format!("<{}>", escape(new, ">", true))
    } else {
        escape(new, following, false)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn destinations_are_found_as_commonmark_reads_them() {
        let text = "[a](b(c)d \"t\")";
        let dest = find_inline_destination(text, &(0..text.len()), 2, "b(c)d").unwrap();
        assert_eq!(&text[dest.range], "b(c)d");
        let text = "[a](<my file.png>)";
        let dest = find_inline_destination(text, &(0..text.len()), 2, "my file.png").unwrap();
        assert_eq!(&text[dest.range], "<my file.png>");
        let text = "[`](x)`](real)";
        let dest = find_inline_destination(text, &(0..text.len()), 1, "real").unwrap();
        assert_eq!(&text[dest.range], "real");
        let text = "[id]:\n  <a b> 'title'";
        let dest = find_definition_destination(text, &(0..text.len()), "a b").unwrap();
        assert_eq!(&text[dest.range], "<a b>");
    }

    #[test]
    fn new_destinations_read_back_as_the_url() {
        assert_eq!(
            write_destination("x.png", "x.png", "http://a/b/x.png", false, ")"),
            "http://a/b/x.png"
        );
        assert_eq!(
            write_destination("a\\(b", "a(b", "http://a/a(b", false, ")"),
            "http://a/a\\(b"
        );
        assert_eq!(
            write_destination("../a(b", "../a(b", "http://h/a(b", false, ")"),
            "http://h/a\\(b"
        );
        assert_eq!(
            write_destination("x", "x", "http://h/my dir/x", false, ")"),
            "<http://h/my dir/x>"
        );
        assert_eq!(
            write_destination("<a b>", "a b", "http://h/a b", true, ")"),
            "<http://h/a b>"
        );
        assert_eq!(
            write_destination("?q", "?q", "http://h/p&amp;?q", false, ")"),
            "http://h/p\\&amp;?q"
        );
        assert_eq!(
            write_destination("../y", "../y", "http://h/y\\", false, ")"),
            "http://h/y\\\\"
        );
    }
}
