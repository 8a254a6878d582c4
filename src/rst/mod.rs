//! reStructuredText: the links docutils renders, found by source position
//! and rewritten in place. No Rust crate parses reStructuredText with the
//! byte ranges of what it reads, so this reader is a line-oriented scanner
//! of the constructs that hold URLs, following the reStructuredText Markup
//! Specification and docutils' own reading of it:
//!
//! - external hyperlink targets, `.. _name: URL` (continued on following
//!   lines) and anonymous ones (`.. __: URL`, `__ URL`), and embedded URIs
//!   of phrase references (`` `text <URL>`_ `` and `__`): the page base;
//! - the path of `image` and `figure` directives, in substitution
//!   definitions too (`.. |logo| image:: path`): the resource base; their
//!   `:target:` option: the page base;
//! - `.. raw:: html` content: the HTML reader, through [`Documents`].
//!
//! Listed, never rewritten: standalone URIs and e-mail addresses
//! (`implicit.rs`). Left alone: internal and indirect
//! targets, interpreted text with a role (Sphinx's `:doc:`), literal
//! blocks (after `::`), doctest blocks, comments, inline literals, and the
//! content of any directive not known to hold body elements (`code`,
//! `code-block`, `math`, ...). Every line is read a bounded number of times:
//! nesting deeper than [`MAX_DEPTH`] is left as it is.
//!
//! A new URL is written so that docutils reads it back as that URL:
//! backslash, white space, `<`, `>` and backquote escaped, and a final `_`
//! too (it would make an embedded URI an alias).

mod implicit;
mod inline;
mod table;

use std::ops::Range;

use crate::base::Base;
use crate::encoding;
use crate::error::Error;
use crate::links::{Link, Outcome, Place, WarningKind};
use crate::options::Options;
use crate::splice::{Edit, Make};
use crate::text::{self, Documents, Resolver, SameDocument, TextRewrite};

use implicit::{Standalone, implicit};
use inline::{Escaped, Inline};
use table::Table;

/// How deep directives, footnotes and the like nest before their content
/// is left as it is.
pub const MAX_DEPTH: usize = 32;

const LINK: Place<'static> = Place::Rst("link");
const TARGET: Place<'static> = Place::Rst("target");
const IMAGE: Place<'static> = Place::Rst("image");

/// Directives whose content is body elements, read as the document is.
const BODY_DIRECTIVES: &[&str] = &[
    "attention",
    "caution",
    "danger",
    "error",
    "hint",
    "important",
    "note",
    "tip",
    "warning",
    "admonition",
    "seealso",
    "topic",
    "sidebar",
    "container",
    "compound",
    "epigraph",
    "highlights",
    "pull-quote",
    "table",
    "list-table",
    "only",
    "class",
    "replace",
    "versionadded",
    "versionchanged",
    "deprecated",
    "tab",
    "group-tab",
    "tabs",
];

/// Rewrites a reStructuredText document; its raw HTML goes to `documents`.
pub fn rewrite_rst(
    bytes: &[u8],
    (options, make): (&Options<'_>, Make),
    documents: &dyn Documents,
) -> Result<Outcome, Error> {
    let decode = |bytes| encoding::sniff_decode_text(bytes, options.transport);
    // Links of raw HTML come back after the document's own.
    text::rewrite_bytes_in_order(bytes, decode, (options, make), |text, options| {
        rewrite_text(text, options, documents)
    })
}

/// The edits of a reStructuredText document given as text.
pub fn rewrite_text(text: &str, options: &Options<'_>, documents: &dyn Documents) -> TextRewrite {
    let (page, resource, layers, no_base) = text::page_bases(options);
    let escaped = Escaped::new(text);
    let mut work = Work {
        r: Resolver::new(text, options),
        e: &escaped,
        page,
        resource,
        documents,
    };
    work.r.out.layers = layers;
    if no_base {
        work.r.warn_no_base();
    }
    if work.page.is_some() || work.resource.is_some() {
        let lines = lines(text);
        work.body(&lines, None, 0);
    }
    let page = work.page.filter(|page| !page.is_stand_in());
    let mut out = work.r.finish(page);
    out.links.sort_by_key(|link| (link.line, link.column));
    out
}

/// One line of the text: where it starts and ends (before its line
/// ending), its first character that is not white space, and its
/// indentation in columns (a tab to the next multiple of 8, as docutils
/// expands it).
#[derive(Debug, Clone, Copy)]
struct Line {
    start: usize,
    end: usize,
    text_at: usize,
    indent: usize,
}

impl Line {
    fn blank(&self) -> bool {
        self.text_at == self.end
    }

    /// This line read from `at` on (a body that starts after a marker).
    fn from(self, text: &str, at: usize) -> Line {
        let mut line = measure(text, self.start, self.end, at);
        line.start = self.start;
        line
    }
}

/// A line from `at`, its indentation counted from `start`.
fn measure(text: &str, start: usize, end: usize, at: usize) -> Line {
    let b = text.as_bytes();
    let mut column = 0;
    let mut i = start;
    while i < end && (i < at || matches!(b[i], b' ' | b'\t' | b'\x0b' | b'\x0c')) {
        column = if b[i] == b'\t' {
            (column / 8 + 1) * 8
        } else if b[i] < 0x80 || b[i] >= 0xc0 {
            column + 1
        } else {
            column
        };
        i += 1;
    }
    Line {
        start,
        end,
        text_at: i,
        indent: column,
    }
}

/// Whether `c` ends a line as docutils reads it (Python's
/// `str.splitlines`, `\r\n` being one ending; `\x0b` and `\x0c` are
/// spaces to it).
fn is_line_end(c: char) -> bool {
    matches!(
        c,
        '\n' | '\r' | '\x1c' | '\x1d' | '\x1e' | '\u{85}' | '\u{2028}' | '\u{2029}'
    )
}

/// The lines of a text, split where docutils splits them.
fn lines(text: &str) -> Vec<Line> {
    let mut out = Vec::new();
    let mut start = 0;
    for (at, c) in text.char_indices().filter(|&(_, c)| is_line_end(c)) {
        if at < start {
            continue; // The `\n` of a `\r\n`.
        }
        out.push(measure(text, start, at, start));
        start = at + c.len_utf8();
        if c == '\r' && text[start..].starts_with('\n') {
            start += 1;
        }
    }
    if start < text.len() {
        out.push(measure(text, start, text.len(), start));
    }
    out
}

/// The end of the indented block after `lines[0]`: the lines that are
/// blank or indented more than it (`until_blank`: up to the first blank
/// one), trailing blank lines left out.
fn block_end(lines: &[Line], until_blank: bool) -> usize {
    let indent = lines[0].indent;
    let mut end = 1;
    while end < lines.len() {
        let line = &lines[end];
        if line.blank() {
            if until_blank {
                break;
            }
        } else if line.indent <= indent {
            break;
        }
        end += 1;
    }
    while end > 1 && lines[end - 1].blank() {
        end -= 1;
    }
    end
}

struct Work<'t, 'o, 'd, 'e> {
    r: Resolver<'t, 'o>,
    e: &'e Escaped<'t>,
    page: Option<Base>,
    resource: Option<Base>,
    documents: &'d dyn Documents,
}

impl Work<'_, '_, '_, '_> {
    /// Body elements: `lines`, the first read from `first` on when given
    /// (with whether its indentation is known there).
    fn body(&mut self, lines: &[Line], first: Option<(usize, bool)>, depth: usize) {
        if depth > MAX_DEPTH {
            if let Some(line) = lines.first() {
                self.r.warn(
                    line.start,
                    WarningKind::Unreadable,
                    format_args!("nested more than {MAX_DEPTH} deep; left as it is"),
                );
            }
            return;
        }
        let text = self.r.text;
        // The first line read from `first` on. Its indentation is that of
        // where it is read from after a bullet or an enumerator (docutils'
        // known indentation: explicit markup after a bullet takes what is
        // indented more than its text); after a field marker or explicit
        // markup, the block's other lines are taken as indented as it
        // (docutils' first known indentation: their least is its).
        let owned: Vec<Line>;
        let lines = match first {
            Some((at, known)) if !lines.is_empty() => {
                let mut copy = lines.to_vec();
                copy[0] = lines[0].from(text, at);
                let least = lines[1..]
                    .iter()
                    .filter(|l| !l.blank())
                    .map(|l| l.indent)
                    .min();
                if let Some(least) = least.filter(|_| !known) {
                    copy[0].indent = least;
                }
                owned = copy;
                &owned[..]
            }
            _ => lines,
        };
        let mut i = 0;
        while i < lines.len() {
            let line = lines[i];
            if line.blank() {
                i += 1;
                continue;
            }
            let rest = &text[line.text_at..line.end];
            let slice = &lines[i..];
            if marker(rest, "..") {
                i += self.explicit(slice, line, depth);
            } else if marker(rest, "__") {
                let end = block_end(slice, true);
                self.target(slice, &line, line.text_at + 2, end);
                i += end;
            } else if let Some(item) = item_body(text, &line, slice.get(1)) {
                // A list item or a field: its body is body elements.
                let end = item_end(slice, &item);
                self.body(&slice[..end], Some((item.at, item.known)), depth + 1);
                i += end;
            } else {
                i += self.paragraph(slice, line, depth);
            }
        }
    }

    /// A text block (a paragraph, a list item's first paragraph, a title,
    /// a table) from `lines[0]` (read as `line`): its inline markup, then
    /// the literal block after it if it ends with `::`. Returns how many
    /// lines it took.
    fn paragraph(&mut self, lines: &[Line], line: Line, depth: usize) -> usize {
        let text = self.r.text;
        let column = line.indent;
        if lines
            .get(1)
            .is_some_and(|l| !l.blank() && l.indent > column)
        {
            // A definition list item: its term is this one line, its
            // definition the block indented after it.
            self.term(line);
            let end = block_end(lines, false);
            self.body(&lines[1..end], None, depth + 1);
            return end;
        }
        let mut end = 1;
        while end < lines.len() && !lines[end].blank() && lines[end].indent == column {
            end += 1;
        }
        let last = &lines[end - 1];
        let range = line.text_at..last.end;
        let content = &text[range.clone()];
        let doctest = content.starts_with(">>>")
            && (content.len() == 3 || content[3..].starts_with([' ', '\t', '\n', '\r']));
        if !doctest {
            let mut table = is_table(content)
                .then(|| Table::new(text, &lines[..end], content.starts_with('+')));
            self.inline(range.clone(), table.as_mut());
            if let Some(table) = table.as_mut() {
                for (url, image, place) in cell_links(text, range.clone()) {
                    self.rewrite_in(url, image, place, Some(table));
                }
            }
        }
        let literal = content.trim_end().ends_with("::")
            && !content.trim_end().ends_with("\\::")
            && !content.starts_with(">>>");
        if literal {
            end += literal_block(text, &lines[end..], column);
        }
        end
    }

    /// A definition list item's term (with its classifiers): its inline
    /// markup alone, a reference left open in it being text.
    fn term(&mut self, line: Line) {
        self.inline(line.text_at..line.end, None);
    }

    /// The inline markup of `range`: its embedded URIs rewritten (in a
    /// table's cell when `table` is given), its standalone URIs and
    /// e-mail addresses listed.
    fn inline(&mut self, range: Range<usize>, mut table: Option<&mut Table>) {
        let found = Inline::scan(self.e, range);
        for uri in found.embedded {
            self.rewrite_in(uri, false, LINK, table.as_deref_mut());
        }
        let mut standalone = Vec::new();
        for plain in found.plain {
            implicit(self.e, plain, &mut standalone);
        }
        for one in standalone {
            self.standalone(one);
        }
    }

    /// A standalone URI or e-mail address: absolute, so never rewritten;
    /// listed as an absolute link is, an address as its `mailto:` URL.
    fn standalone(&mut self, (range, email): Standalone) {
        let Some(page) = self.page.as_ref() else {
            return;
        };
        if !self.r.options.details.records() {
            return;
        }
        let text = self.r.text;
        let mut url = String::from(if email { "mailto:" } else { "" });
        url.extend(
            text[range.clone()]
                .char_indices()
                .filter(|&(i, _)| !self.e.esc(range.start + i))
                .map(|(_, c)| c),
        );
        let (line, column) = self.r.lines.locate(text, range.start);
        self.r.record(Link {
            line,
            column,
            place: LINK.to_link_place(),
            original: url.clone(),
            resolved: url,
            base: (!page.is_stand_in()).then(|| page.clone()),
            changed: false,
            unresolved: false,
            details: self.r.details.clone(),
        });
    }

    /// An explicit markup block (`.. `): returns how many lines it took.
    fn explicit(&mut self, lines: &[Line], line: Line, depth: usize) -> usize {
        let text = self.r.text;
        let after = skip_spaces(text, line.text_at + 2, line.end);
        let rest = &text[after..line.end];
        if rest.is_empty() {
            // An empty comment: it takes only lines right after it.
            return block_end(lines, true);
        }
        if rest.starts_with('_') {
            let end = block_end(lines, true);
            let mut block = lines[..end].to_vec();
            block[0] = line;
            if let Some((k, url_at)) = target_url_start(text, &block, after + 1) {
                self.target(&block[k..], &block[k], url_at, end - k);
            }
            return end;
        }
        let end = block_end(lines, false);
        let block = &lines[..end];
        if let Some(label_end) = footnote_label_end(rest) {
            let at = skip_spaces(text, after + label_end, line.end);
            self.body(block, Some((at, false)), depth + 1);
            return end;
        }
        let mut directive_at = after;
        if rest.starts_with('|')
            && let Some(close) = rest[1..].find("| ").or_else(|| rest[1..].find("|\t"))
        {
            directive_at = skip_spaces(text, after + close + 2, line.end);
        }
        if let Some((name, arg_at)) = directive(text, directive_at, line.end) {
            let name = name.to_ascii_lowercase();
            self.directive(&name, block, arg_at, depth);
        }
        end
    }

    /// A directive's block, its arguments starting at `arg_at`.
    fn directive(&mut self, name: &str, block: &[Line], arg_at: usize, depth: usize) {
        let text = self.r.text;
        match name {
            "image" | "figure" => {
                let content = self.image(block, arg_at);
                if name == "figure" && content < block.len() {
                    self.body(&block[content..], None, depth + 1);
                }
            }
            "raw" => {
                let (args, options, content) = parts(text, block, arg_at);
                let format = decode(text, self.e, args.clone());
                let from_file = options
                    .iter()
                    .any(|(n, _)| matches!(&text[n.clone()], "file" | "url"));
                if format.trim().eq_ignore_ascii_case("html") && !from_file && content < block.len()
                {
                    let range = block[content].start..block[block.len() - 1].end;
                    self.html(range);
                }
            }
            "parsed-literal" => {
                // Its content is inline markup, white space kept.
                let (_, _, content) = parts(text, block, arg_at);
                if content < block.len() {
                    let range = block[content].start..block[block.len() - 1].end;
                    self.inline(range, None);
                }
            }
            name if BODY_DIRECTIVES.contains(&name) => {
                self.body(block, Some((arg_at, false)), depth + 1)
            }
            _ => {}
        }
    }

    /// An `image` or `figure` directive: its path to the resource base, its
    /// `:target:` to the page's. Returns where its content starts.
    fn image(&mut self, block: &[Line], arg_at: usize) -> usize {
        let text = self.r.text;
        let (args, options, content) = parts(text, block, arg_at);
        if !args.is_empty() {
            self.rewrite(args, true, IMAGE);
        }
        for (name, value) in options {
            if &text[name] == "target" && !value.is_empty() && !is_reference(&text[value.clone()]) {
                self.rewrite(value, false, TARGET);
            }
        }
        content
    }

    /// A hyperlink target whose URL starts at `url_at` in `lines[0]` (read
    /// as `line`), in a block of `end` lines: an external one is rewritten;
    /// an internal one (no URL) or an indirect one (`name_`) is left.
    fn target(&mut self, lines: &[Line], line: &Line, url_at: usize, end: usize) {
        let text = self.r.text;
        let mut range = skip_spaces(text, url_at, line.end)..line.end;
        for l in &lines[1..end] {
            if range.start == range.end {
                range.start = l.text_at;
            }
            range.end = l.end;
        }
        let range = trim(text, range);
        if range.is_empty() || is_reference(&text[range.clone()]) {
            return;
        }
        self.rewrite(range, false, TARGET);
    }

    /// Resolves the URL written at `range` against the resource base
    /// (`image`) or the page's, and writes the new one.
    fn rewrite(&mut self, range: Range<usize>, image: bool, place: Place<'_>) {
        self.rewrite_in(range, image, place, None);
    }

    /// [`Work::rewrite`], in a table's cell when `table` is given: there
    /// the new URL is written only where its cell line has the spaces to
    /// give for it (taken out), else it is left, with a warning.
    fn rewrite_in(
        &mut self,
        range: Range<usize>,
        image: bool,
        place: Place<'_>,
        table: Option<&mut Table>,
    ) {
        let base = if image { &self.resource } else { &self.page };
        let Some(base) = base.clone() else { return };
        let text = self.r.text;
        let value = decode(text, self.e, range.clone());
        if value.is_empty() || is_email(&value) {
            return;
        }
        let raw = &text[range.clone()];
        let mut spaces = None;
        if let Some(table) = table
            && !base.is_stand_in()
            && !value.starts_with('#')
            && let Ok(new) = base.url.resolve(&value)
            && new.trim_ascii() != value
        {
            let written = written(raw, &value, new.trim_ascii());
            let room = table::growth(raw, &written).and_then(|g| table.room(text, range.start, g));
            if room.is_none() {
                self.left_in_table(range.start, &value, &base, place);
                return;
            }
            spaces = room;
        }
        let Some(new) = self
            .r
            .resolve(range.start, &value, &base, place, SameDocument::Keep)
        else {
            return;
        };
        let written = written(raw, &value, &new);
        let edits = &mut self.r.out.edits;
        edits.push_narrowed(Edit::new(range, written), text);
        if let Some(spaces) = spaces.filter(|s| !s.is_empty()) {
            edits.push(Edit::new(spaces, ""));
        }
    }

    /// A link in a table's cell that has no room for its longer URL: left
    /// as it is, listed as left, with a warning.
    fn left_in_table(&mut self, at: usize, value: &str, base: &Base, place: Place<'_>) {
        self.r.warn(
            at,
            WarningKind::InTable,
            "link in a table left as it is: its cell has no room for the longer url",
        );
        if self.r.options.details.records() {
            let (line, column) = self.r.lines.locate(self.r.text, at);
            self.r.record(Link {
                line,
                column,
                place: place.to_link_place(),
                original: value.to_owned(),
                resolved: value.to_owned(),
                base: Some(base.clone()),
                changed: false,
                unresolved: true,
                details: self.r.details.clone(),
            });
        }
    }

    /// `.. raw:: html` content, rewritten by the HTML reader against the
    /// page's base, its edits placed back.
    fn html(&mut self, range: Range<usize>) {
        let Some(page) = self.page.as_ref() else {
            return;
        };
        self.r
            .embedded_html(self.documents, range, page, "raw html");
    }
}

/// Whether a line's text starts with an explicit markup start (`..`) or
/// an anonymous target's (`__`): the marker, then white space or nothing.
fn marker(rest: &str, mark: &str) -> bool {
    rest.strip_prefix(mark)
        .is_some_and(|after| after.is_empty() || after.starts_with([' ', '\t']))
}

fn skip_spaces(text: &str, mut at: usize, end: usize) -> usize {
    let b = text.as_bytes();
    while at < end && matches!(b[at], b' ' | b'\t') {
        at += 1;
    }
    at
}

/// `range` without the white space at its ends.
fn trim(text: &str, range: Range<usize>) -> Range<usize> {
    let s = &text[range.clone()];
    let start = range.start + (s.len() - s.trim_start().len());
    let end = range.end - (s.len() - s.trim_end().len());
    start..end.max(start)
}

/// Where a list item's or a field's body starts on its first line.
struct Item {
    /// The body's first byte (the line's end when it starts below).
    at: usize,
    /// The column its following lines are indented to at least.
    column: usize,
    /// Whether its body's indentation is that column (a list item's),
    /// else its following lines' (a field's).
    known: bool,
}

/// A bullet (`-`, `*`, `+`, `•`, `‣`, `⁃`), an enumerator (`1.`, `a)`,
/// `(iv)`, `#.`) or a field marker (`:name:`) at the start of a line,
/// then spaces or the line's end, as docutils' `Body` patterns read them
/// (`next` the line after it): where the item's body starts.
fn item_body(text: &str, line: &Line, next: Option<&Line>) -> Option<Item> {
    let rest = &text[line.text_at..line.end];
    let (marker, field) = if rest.starts_with([':']) {
        (field_marker(rest)?, true)
    } else if let Some(c) = rest.chars().next().filter(|c| "-*+•‣⁃".contains(*c)) {
        (c.len_utf8(), false)
    } else {
        // An enumerator starts a list only before a blank line, an
        // indented one or another enumerator (else "A. Name wrote" is
        // text).
        let followed = next.is_none_or(|n| {
            n.blank() || n.indent > line.indent || enumerator(&text[n.text_at..n.end]).is_some()
        });
        (enumerator(rest).filter(|_| followed)?, false)
    };
    let after = &rest[marker..];
    let spaces = after.len() - after.trim_start_matches([' ', '\t']).len();
    if spaces == 0 && !after.is_empty() {
        return None;
    }
    let at = line.text_at + marker + spaces;
    let column = if field {
        line.indent + 1
    } else {
        measure(text, line.start, line.end, at).indent
    };
    Some(Item {
        at,
        column,
        known: !field,
    })
}

/// The length of an enumerator with its `.`, `)` or parentheses: arabic
/// numbers, one letter, roman numerals, or `#`.
fn enumerator(rest: &str) -> Option<usize> {
    let b = rest.as_bytes();
    let open = usize::from(b.first() == Some(&b'('));
    let body = &b[open..];
    let digits = body.iter().take_while(|c| c.is_ascii_digit()).count();
    let roman = |set: &[u8]| body.iter().take_while(|c| set.contains(c)).count();
    let n = if digits > 0 {
        digits
    } else if body.first() == Some(&b'#') {
        1
    } else {
        let n = roman(b"ivxlcdm").max(roman(b"IVXLCDM"));
        if n > 0 {
            n
        } else if body.first().is_some_and(u8::is_ascii_alphabetic) {
            1
        } else {
            return None;
        }
    };
    match body.get(n) {
        Some(b'.') if open == 0 => Some(n + 1),
        Some(b')') => Some(open + n + 1),
        _ => None,
    }
}

/// The length of a field marker (`:name:`) at the start of `rest`, as
/// docutils' pattern reads it: a name not starting with a space or a
/// colon, its colons not before a space or a backquote, backslash escapes
/// kept, no space before the closing colon.
fn field_marker(rest: &str) -> Option<usize> {
    let b = rest.as_bytes();
    if matches!(b.get(1), None | Some(b':' | b' ' | b'\t')) {
        return None;
    }
    let mut i = 1;
    while i < b.len() {
        match b[i] {
            b'\\' => i += 2,
            b':' => match b.get(i + 1) {
                None | Some(b' ' | b'\t') => return (b[i - 1] != b' ').then_some(i + 1),
                Some(b'`') => return None,
                _ => i += 1,
            },
            _ => i += 1,
        }
    }
    None
}

/// How many lines a list item or field starting at `lines[0]` takes: the
/// blank lines and those indented to its body, trailing blank lines left
/// out.
fn item_end(lines: &[Line], item: &Item) -> usize {
    let mut end = 1;
    while end < lines.len() && (lines[end].blank() || lines[end].indent >= item.column) {
        end += 1;
    }
    while end > 1 && lines[end - 1].blank() {
        end -= 1;
    }
    end
}

/// Whether a text block is a table: a grid table's border (`+---+`), or
/// a simple table's (`===  ===`, two columns or more; one column is a
/// section title's over- or underline).
fn is_table(content: &str) -> bool {
    let first = content.lines().next().unwrap_or_default().trim_end();
    if first.starts_with("+-") || first.starts_with("+=") {
        return first.bytes().all(|b| matches!(b, b'+' | b'-' | b'='));
    }
    let columns = first.split(' ').filter(|w| !w.is_empty()).count();
    columns > 1 && first.bytes().all(|b| matches!(b, b'=' | b' '))
}

/// The URLs of explicit markup in a table's cells (a cell's text is body
/// elements to docutils), each with whether it is an image's and its
/// place: the paths of `image` and `figure` directives (in substitution
/// definitions too), their `:target:` options, and hyperlink targets'
/// URLs, each up to a space or a `|`.
fn cell_links(text: &str, range: Range<usize>) -> Vec<(Range<usize>, bool, Place<'static>)> {
    let marks = [
        (".. image::", true),
        (".. figure::", true),
        ("| image::", true),
        (":target:", false),
        (".. _", false),
    ];
    let mut out = Vec::new();
    let cells = &text[range.clone()];
    for (mark, image) in marks {
        for (at, _) in cells.match_indices(mark) {
            let mut from = range.start + at + mark.len();
            let place = if image {
                IMAGE
            } else if mark == ".. _" {
                // The target's name, up to its `: `.
                let line_end = text[from..range.end]
                    .find(is_line_end)
                    .map_or(range.end, |n| from + n);
                let Some(colon) = text[from..line_end].find(": ") else {
                    continue;
                };
                from += colon + 1;
                TARGET
            } else {
                TARGET
            };
            let start = skip_spaces(text, from, range.end);
            let len = text[start..range.end]
                .find([' ', '\t', '\n', '\r', '|'])
                .unwrap_or(range.end - start);
            if len > 0 && !is_reference(&text[start..start + len]) {
                out.push((start..start + len, image, place));
            }
        }
    }
    out
}

/// How many lines the literal block after a paragraph ending with `::`
/// takes: the blank lines, then lines indented more than `column`, or a
/// quoted block (lines starting with the same punctuation at `column`).
fn literal_block(text: &str, lines: &[Line], column: usize) -> usize {
    let mut i = 0;
    while i < lines.len() && lines[i].blank() {
        i += 1;
    }
    let Some(first) = lines.get(i) else {
        return i;
    };
    if first.indent > column {
        while i < lines.len() && (lines[i].blank() || lines[i].indent > column) {
            i += 1;
        }
        return i;
    }
    let quote = text.as_bytes()[first.text_at];
    if first.indent == column && quote.is_ascii_punctuation() {
        while i < lines.len() && !lines[i].blank() && text.as_bytes()[lines[i].text_at] == quote {
            i += 1;
        }
    }
    i
}

/// How many lines a hyperlink target's name may span before the block is
/// taken for a malformed one (docutils joins them all).
const MAX_NAME_LINES: usize = 64;

/// Where a hyperlink target's URL starts, `at` being just after `.. _`:
/// the line of the block it is on, and its place (the end of that line
/// when the URL is on the following ones). As docutils reads it
/// (`Body.hyperlink_target`): the block's lines are joined, escapes made
/// nulls, until its pattern matches; `None` when it never does (a
/// malformed target, which docutils reads as a comment).
fn target_url_start(text: &str, block: &[Line], at: usize) -> Option<(usize, usize)> {
    let mut joined: Vec<(char, usize)> = Vec::new();
    for (k, line) in block.iter().enumerate().take(MAX_NAME_LINES) {
        let from = if k == 0 { at } else { line.start };
        let mut chars = text[from..line.end].char_indices();
        while let Some((i, c)) = chars.next() {
            if c == '\\' {
                joined.push(('\0', from + i));
                if let Some((j, n)) = chars.next() {
                    joined.push((n, from + j));
                }
            } else {
                joined.push((c, from + i));
            }
        }
        if let Some(end) = target_match(&joined) {
            return Some((k, joined.get(end).map_or(line.end, |&(_, at)| at)));
        }
    }
    None
}

/// docutils' hyperlink target pattern (`Body.explicit.patterns.target`)
/// matched at the start of `c` (escapes made nulls): where the match ends.
fn target_match(c: &[(char, usize)]) -> Option<usize> {
    let ch = |i: usize| c.get(i).map(|&(c, _)| c);
    let white = |c: char| c.is_whitespace() || ('\x1c'..='\x1f').contains(&c) || c == '\0';
    // After the name: no unescaped colon nor white space at its end, an
    // optional space, `:`, then spaces or the end.
    let tail = |pos: usize| -> Option<usize> {
        let prev = ch(pos - 1)?;
        if (prev == ':' && (pos < 2 || ch(pos - 2) != Some('\0'))) || white(prev) {
            return None;
        }
        let spaced = (ch(pos) == Some(' ')).then_some(pos + 1);
        for p in spaced.into_iter().chain([pos]) {
            if ch(p) == Some(':') {
                let mut q = p + 1;
                if q == c.len() || ch(q) == Some(' ') {
                    while ch(q) == Some(' ') {
                        q += 1;
                    }
                    return Some(q);
                }
            }
        }
        None
    };
    if ch(0) == Some('_') {
        return tail(1);
    }
    let quote = usize::from(ch(0) == Some('`'));
    if matches!(ch(quote), None | Some(' ' | '`')) {
        return None;
    }
    (quote + 1..=c.len()).find_map(|name_end| {
        if white(ch(name_end - 1)?) {
            return None;
        }
        if quote == 1 {
            (ch(name_end) == Some('`'))
                .then(|| tail(name_end + 1))
                .flatten()
        } else {
            tail(name_end)
        }
    })
}

/// The length of a footnote or citation label (`[1]`, `[#]`, `[name]`)
/// with its `]` and a space after it, at the start of `rest`.
fn footnote_label_end(rest: &str) -> Option<usize> {
    let inner = rest.strip_prefix('[')?;
    let close = inner.find(']')?;
    let label = &inner[..close];
    let ok = !label.is_empty()
        && label
            .chars()
            .all(|c| c.is_alphanumeric() || matches!(c, '#' | '*' | '-' | '_' | '.' | '+' | ':'));
    let after = &inner[close + 1..];
    (ok && (after.is_empty() || after.starts_with([' ', '\t']))).then_some(close + 2)
}

/// A directive's name and where its arguments start: `name::` then white
/// space or the line's end.
fn directive(text: &str, at: usize, end: usize) -> Option<(&str, usize)> {
    let rest = &text[at..end];
    let colons = rest.find("::")?;
    // One space may come before the `::` (docutils' `[ ]?::`).
    let name = rest[..colons].strip_suffix(' ').unwrap_or(&rest[..colons]);
    let valid = !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_alphanumeric() || matches!(c, '-' | '_' | '.' | ':' | '+'));
    let after = at + colons + 2;
    let spaced = after >= end || matches!(text.as_bytes()[after], b' ' | b'\t');
    (valid && spaced).then(|| (name, skip_spaces(text, after, end)))
}

/// A directive's arguments (their range, white space at the ends left
/// out), its options (each name's and value's range), and the line its
/// content starts on (after the first blank line; the block's length
/// when there is none).
type Parts = (Range<usize>, Vec<(Range<usize>, Range<usize>)>, usize);

fn parts(text: &str, block: &[Line], arg_at: usize) -> Parts {
    let mut args = arg_at..block[0].end;
    let mut options: Vec<(Range<usize>, Range<usize>)> = Vec::new();
    let mut i = 0;
    while i < block.len() {
        let line = if i == 0 {
            block[0].from(text, arg_at)
        } else {
            block[i]
        };
        if line.blank() && i > 0 {
            break;
        }
        let rest = &text[line.text_at..line.end];
        if let Some(name_len) = option_name(rest) {
            let name = line.text_at + 1..line.text_at + 1 + name_len;
            let value = skip_spaces(text, name.end + 1, line.end)..line.end;
            options.push((name, value));
        } else if let Some((_, value)) = options.last_mut() {
            if value.start == value.end {
                value.start = line.text_at;
            }
            value.end = line.end;
        } else if i > 0 {
            args.end = line.end;
        }
        i += 1;
    }
    let content = (i + 1).min(block.len());
    let options = options
        .into_iter()
        .map(|(n, v)| (n, trim(text, v)))
        .collect();
    (trim(text, args), options, content)
}

/// The length of an option's name in a line of a directive's options
/// (`:name: value`, or `:name:` alone).
fn option_name(rest: &str) -> Option<usize> {
    let inner = rest.strip_prefix(':')?;
    let close = inner.find(':')?;
    let after = &inner[close + 1..];
    (close > 0 && (after.is_empty() || after.starts_with([' ', '\t']))).then_some(close)
}

/// Whether a target's text is a reference to another target (`name_`,
/// `` `a name`_ ``), which makes the target indirect.
fn is_reference(s: &str) -> bool {
    let s = s.trim();
    if s.ends_with("\\_") || !s.ends_with('_') || inline::starts_with_scheme(s.as_bytes()) {
        return false;
    }
    let inner = &s[..s.len() - 1];
    if let Some(phrase) = inner.strip_prefix('`') {
        return phrase.ends_with('`') && phrase.len() > 1;
    }
    !inner.is_empty()
        && inner
            .split(['-', '.', '_', '+', ':'])
            .all(|w| !w.is_empty() && w.chars().all(char::is_alphanumeric))
}

/// Whether a URL is an e-mail address, which docutils makes a `mailto:`.
fn is_email(value: &str) -> bool {
    let Some(at) = value.find('@') else {
        return false;
    };
    at > 0
        && at + 1 < value.len()
        && !value.contains(':')
        && value
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_!~*'{|}/#?^`&=+$%.@".contains(c))
}

/// What is written for a URL whose text is `raw` (read as `value`) and
/// which resolved to `new`: the base's part before the text as it was
/// when `new` ends with it, else the whole URL.
fn written(raw: &str, value: &str, new: &str) -> String {
    match new.strip_suffix(value) {
        Some(prefix) if !prefix.is_empty() && !value.ends_with('_') => {
            format!("{}{raw}", escape(prefix, false))
        }
        _ => escape(new, true),
    }
}

/// A URL as docutils reads it from `range` (`directives.uri`,
/// `parse_target`): backslash escapes undone, white space removed, an
/// escaped white space one space.
fn decode(text: &str, e: &Escaped<'_>, range: Range<usize>) -> String {
    let mut out = String::with_capacity(range.len());
    let mut i = range.start;
    while i < range.end {
        let Some(c) = text[i..].chars().next() else {
            break;
        };
        if e.esc(i) {
            let next = text[i + 1..range.end].chars().next();
            match next {
                Some(n) if n == ' ' || n == '\n' => out.push(' '),
                Some('\r') if text[i + 2..].starts_with('\n') => {
                    out.push(' ');
                    i += 1;
                }
                Some(n) if is_line_end(n) => out.push(' '),
                Some(n) => out.push(n),
                None => {}
            }
            i += 1 + next.map_or(0, char::len_utf8);
            continue;
        }
        if !c.is_whitespace() {
            out.push(c);
        }
        i += c.len_utf8();
    }
    out
}

/// `url` written so that docutils reads it back as itself (`whole`: the
/// whole URL, whose final `_` is escaped too).
fn escape(url: &str, whole: bool) -> String {
    let mut out = String::with_capacity(url.len() + 4);
    for c in url.chars() {
        match c {
            '\\' | '<' | '>' | '`' | ' ' => {
                out.push('\\');
                out.push(c);
            }
            '\n' => out.push_str("%0A"),
            '\r' => out.push_str("%0D"),
            '\t' => out.push_str("%09"),
            c => out.push(c),
        }
    }
    if whole && out.ends_with('_') {
        out.insert(out.len() - 1, '\\');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_read_and_written_as_docutils_reads_them() {
        let text = "a\\ b\n  c\\>d";
        let e = Escaped::new(text);
        assert_eq!(decode(text, &e, 0..text.len()), "a bc>d");
        assert_eq!(
            escape("http://h/a b<c>`d\\_", true),
            "http://h/a\\ b\\<c\\>\\`d\\\\\\_"
        );
        assert!(is_reference("name_"));
        assert!(is_reference("`a name`_"));
        assert!(!is_reference("http://x/a_"));
        assert!(!is_reference("docs/x_"));
        assert!(is_email("me@example.com"));
        assert!(!is_email("mailto:me@example.com"));
    }

    #[test]
    fn target_names_end_at_a_colon_and_space() {
        let start = |t: &str| {
            let block: Vec<Line> = lines(t);
            target_url_start(t, &block, 4)
        };
        assert_eq!(start(".. _a b: x"), Some((0, 9)));
        assert_eq!(start(".. _`a: b`: x"), Some((0, 12)));
        assert_eq!(start(".. __: x"), Some((0, 7)));
        assert_eq!(start(".. _a\\: b: x"), Some((0, 11)));
        assert_eq!(start(".. _a:"), Some((0, 6)));
        // A name over two lines; malformed ones.
        assert_eq!(start(".. _`a\n   b`: x"), Some((1, 14)));
        assert_eq!(start(".. __a: x"), None);
        assert_eq!(start(".. _a:: x"), None);
        assert_eq!(start(".. _:: x"), None);
        assert_eq!(start(".. _ a: x"), None);
    }
}
