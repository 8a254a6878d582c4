//! Markdown: CommonMark with GitHub's tables, footnotes, strikethrough and
//! task lists, read by pulldown-cmark, which gives each link's range in the
//! source. Only destinations change: those of inline links and images and
//! of reference definitions; HTML blocks and inline HTML go to the HTML
//! reader through [`Documents`], their edits placed back at their offsets.
//! Code spans, code blocks, autolinks and link text stay as they are, and
//! so does a link to the document itself (`#name`, or empty). Autolinks
//! (`<URL>`) and the bare URLs GitHub's autolink extension makes links
//! are absolute: listed, never rewritten.
//!
//! Images (and reference definitions only images use) take the resource
//! base (`--resource-base`) when one is given and the page's base is the
//! retrieval URL; links take the page's base.

use std::collections::HashMap;
use std::ops::Range;

use pulldown_cmark::{
    BrokenLink, BrokenLinkCallback, CowStr, Event, LinkType, OffsetIter, Options as Extensions,
    Parser, RefDefs, Tag, TagEnd,
};
use unicase::UniCase;

use crate::base::Base;
use crate::encoding;
use crate::error::Error;
use crate::links::{Link, Outcome, Place, WarningKind};
use crate::options::Options;
use crate::splice::{Edit, Make};
use crate::text::{self, Documents, Resolver, SameDocument, TextRewrite};

/// Where an inline link's destination is, in the place lists.
const LINK: Place<'static> = Place::Markdown("link");
/// An autolink, or a bare URL GitHub makes a link.
const AUTOLINK: Place<'static> = Place::Markdown("autolink");
const IMAGE: Place<'static> = Place::Markdown("image");
const DEFINITION: Place<'static> = Place::Markdown("definition");

/// Rewrites a Markdown document; its HTML goes to `documents`.
pub fn rewrite_markdown(
    bytes: &[u8],
    (options, make): (&Options<'_>, Make),
    documents: &dyn Documents,
) -> Result<Outcome, Error> {
    let decode = |bytes| encoding::sniff_decode_text(bytes, options.transport);
    // Links are found out of order (a definition's at the end).
    text::rewrite_bytes_in_order(bytes, decode, (options, make), |text, options| {
        rewrite_text(text, options, documents)
    })
}

/// The edits of a Markdown document given as text.
pub fn rewrite_text(text: &str, options: &Options<'_>, documents: &dyn Documents) -> TextRewrite {
    rewrite_in_pieces(text, options, documents, PIECE)
}

/// The edits of a Markdown document given as text, read in pieces of
/// about `size` bytes when it is longer: the same edits, links and
/// warnings as read whole.
pub(crate) fn rewrite_in_pieces(
    text: &str,
    options: &Options<'_>,
    documents: &dyn Documents,
    size: usize,
) -> TextRewrite {
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
        work.run(size);
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

/// Documents longer than this are read in pieces of about this size: the
/// tree pulldown-cmark builds of what it parses takes about twenty times
/// the text.
const PIECE: usize = 1 << 20;

/// What pulldown-cmark lets the reference links of a text copy at least
/// (destinations and titles, bytes), and at most the text's length when
/// longer: past it, references are not resolved (`link_ref_expansion_limit`).
const EXPANSION_FLOOR: usize = 100_000;

/// A string of the definitions: `len` bytes of the text from `at`, or of
/// [`Pieces::owned`] from `at` less [`OWNED`].
#[derive(Clone, Copy)]
struct Str {
    at: u32,
    len: u32,
}

/// Where [`Pieces::owned`] starts among the offsets of a [`Str`]: a text
/// read in pieces is shorter.
const OWNED: u32 = 1 << 31;

/// A reference definition of the document, kept small (a document may
/// hold one every few dozen bytes): where it is, its label, and its
/// destination and title as pulldown-cmark reads them.
struct Definition {
    start: u32,
    end: u32,
    label: Str,
    dest: Str,
    title: Str,
}

/// A document cut into pieces that read as they do in the whole document,
/// and the definitions of all of them.
///
/// CommonMark reads blocks line by line (section 3), and a block ended by
/// a later line has its lines whatever comes after. A piece ends where a
/// block at the top level starts after a blank line (no open container
/// or leaf goes on past a blank line and a line that starts a top-level
/// block, and such a line is read the same with or without what came
/// before), or inside a paragraph or run of definitions at the top level,
/// before a line that reads as the first of a document and with nothing
/// inline open (see [`last_cut`]): found by parsing a window of the text,
/// and taking the last such place in it; lines near the window's end may
/// read otherwise than in the document (a definition whose destination is
/// past it), but not the lines before a cut, nor the line after one,
/// which is whole in the window. Definitions are global: a reference to one in
/// another piece is answered through pulldown-cmark's callback for unknown
/// references, with the same destination and title.
struct Pieces<'t> {
    text: &'t str,
    /// Where each piece starts, then the document's end.
    bounds: Vec<usize>,
    /// The definitions in the order they are written, as pulldown-cmark
    /// keeps them: the first of each label.
    definitions: Vec<Definition>,
    /// Each definition by a hash of its label as pulldown-cmark matches
    /// labels (Unicode case folding); two labels of one hash are read
    /// whole.
    labels: HashMap<u64, u32>,
    /// The strings of the definitions that are not the text's as written.
    owned: String,
}

impl<'t> Pieces<'t> {
    /// The pieces of `text` of about `size` bytes, or `None` when it is to
    /// be read whole: when it is not longer, is one piece, has a label
    /// defined in two pieces (the first would be hidden from the second),
    /// or may have footnotes (`[^`), whose definitions are global too.
    fn plan(text: &'t str, size: usize) -> Option<Pieces<'t>> {
        if text.len() <= size
            || text.len() >= OWNED as usize
            || memchr::memmem::find(text.as_bytes(), b"[^").is_some()
        {
            return None;
        }
        let mut pieces = Pieces {
            text,
            bounds: vec![0],
            definitions: Vec::new(),
            labels: HashMap::new(),
            owned: String::new(),
        };
        let mut start = 0;
        while start < text.len() {
            start = pieces.next(start, size.max(1))?;
            pieces.bounds.push(start);
        }
        (pieces.bounds.len() > 2).then_some(pieces)
    }

    /// Where the piece from `start` ends, its definitions recorded: the
    /// last cut in a window of `size` bytes, or in one twice as long when
    /// there is none, up to the rest of the text; `None` when that is the
    /// whole text.
    fn next(&mut self, start: usize, size: usize) -> Option<usize> {
        let text = self.text;
        let mut size = size;
        loop {
            let end = window_end(text, start, size);
            if start == 0 && end == text.len() {
                // One piece: read whole.
                return None;
            }
            let window = &text[start..end];
            // Every reference is taken as defined: `[a]` and `[a][b]` then
            // read as links, closed, whichever piece defines them.
            let defined = |_: BrokenLink<'_>| Some((CowStr::from(""), CowStr::from("")));
            let parser = Parser::new_with_broken_link_callback(window, extensions(), Some(defined));
            if end == text.len() {
                self.record(parser.reference_definitions(), start, window.len())?;
                return Some(end);
            }
            let mut events = parser.into_offset_iter();
            if let Some(cut) = last_cut(window, &mut events) {
                self.record(events.reference_definitions(), start, cut)?;
                return Some(start + cut);
            }
            size = size.saturating_mul(2);
        }
    }

    /// Records the definitions of the window from `start` that are in its
    /// first `len` bytes; `None` when a label has one already.
    fn record(&mut self, definitions: &RefDefs<'_>, start: usize, len: usize) -> Option<()> {
        let mut found: Vec<_> = definitions
            .iter()
            .filter(|(_, def)| def.span.start < len)
            .collect();
        found.sort_by_key(|(_, def)| def.span.start);
        for (label, def) in found {
            let index = u32::try_from(self.definitions.len()).ok()?;
            if self.labels.insert(hash(label), index).is_some() {
                return None;
            }
            let offset = |at: usize| u32::try_from(at + start).ok();
            let definition = Definition {
                start: offset(def.span.start)?,
                end: offset(def.span.end)?,
                label: self.keep(label)?,
                dest: self.keep(&def.dest)?,
                title: self.keep(def.title.as_deref().unwrap_or(""))?,
            };
            self.definitions.push(definition);
        }
        Some(())
    }

    /// `s` kept: where it is in the text, or a copy.
    fn keep(&mut self, s: &str) -> Option<Str> {
        let len = u32::try_from(s.len()).ok()?;
        let at = (s.as_ptr() as usize).wrapping_sub(self.text.as_ptr() as usize);
        if self.text.get(at..at.wrapping_add(s.len())) == Some(s) {
            return Some(Str { at: at as u32, len });
        }
        let at = u32::try_from(self.owned.len()).ok()?.checked_add(OWNED)?;
        self.owned.push_str(s);
        Some(Str { at, len })
    }

    /// The string kept as `s`.
    fn get(&self, s: Str) -> &str {
        let (from, at) = match s.at.checked_sub(OWNED) {
            Some(at) => (self.owned.as_str(), at),
            None => (self.text, s.at),
        };
        &from[at as usize..(at + s.len) as usize]
    }

    /// The definition of a label, by its number.
    fn find(&self, label: &str) -> Option<usize> {
        let at = *self.labels.get(&hash(label))? as usize;
        let def = self.definitions.get(at)?;
        (UniCase::new(self.get(def.label)) == UniCase::new(label)).then_some(at)
    }

    /// The number of the definition at `start`.
    fn at(&self, start: usize) -> Option<usize> {
        let start = u32::try_from(start).ok()?;
        self.definitions
            .binary_search_by_key(&start, |def| def.start)
            .ok()
    }

    /// The destination and title of a label, for pulldown-cmark.
    fn answer<'a>(&self, label: &str) -> Option<(CowStr<'a>, CowStr<'a>)> {
        let def = &self.definitions[self.find(label)?];
        let copy = |s: Str| CowStr::from(self.get(s).to_owned());
        Some((copy(def.dest), copy(def.title)))
    }

    /// Whether neither a piece nor the whole document can exhaust what
    /// pulldown-cmark lets reference links copy, so that each resolves
    /// the references the whole document does: at most the longest
    /// destination and title for each `]`, else as counted by reading.
    fn within_budget(&self) -> bool {
        let defs = self.definitions.iter();
        let longest = defs
            .map(|d| d.dest.len as usize + d.title.len as usize)
            .max();
        let longest = longest.unwrap_or(0);
        let bound = |piece: &str| memchr::memchr_iter(b']', piece.as_bytes()).count() * longest;
        self.fits(bound) || self.fits(|piece| self.copied(piece))
    }

    /// Whether what `copied` says each piece's references copy stays below
    /// the budget of each piece and of the document.
    fn fits(&self, copied: impl Fn(&str) -> usize) -> bool {
        let budget = |len: usize| len.max(EXPANSION_FLOOR);
        let mut total = 0usize;
        for bounds in self.bounds.windows(2) {
            let piece = &self.text[bounds[0]..bounds[1]];
            let copied = copied(piece);
            if copied >= budget(piece.len()) {
                return false;
            }
            total = total.saturating_add(copied);
        }
        total < budget(self.text.len())
    }

    /// What the reference links of a piece copy: their destinations and
    /// titles.
    fn copied(&self, piece: &str) -> usize {
        let answer = |link: BrokenLink<'_>| self.answer(&link.reference);
        Parser::new_with_broken_link_callback(piece, extensions(), Some(answer))
            .map(|event| match event {
                Event::Start(
                    Tag::Link {
                        link_type,
                        dest_url,
                        title,
                        ..
                    }
                    | Tag::Image {
                        link_type,
                        dest_url,
                        title,
                        ..
                    },
                ) if link_type != LinkType::Inline => dest_url.len() + title.len(),
                _ => 0,
            })
            .sum()
    }
}

/// A hash of a label as pulldown-cmark matches labels.
fn hash(label: &str) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    UniCase::new(label).hash(&mut hasher);
    hasher.finish()
}

/// The end of the line at `size` bytes from `start`, or of the text.
fn window_end(text: &str, start: usize, size: usize) -> usize {
    let at = start.saturating_add(size).saturating_sub(1);
    if at >= text.len() {
        return text.len();
    }
    memchr::memchr(b'\n', &text.as_bytes()[at..]).map_or(text.len(), |i| at + i + 1)
}

/// The start of the line of the last place in `window` a piece may end:
/// a block at the top level that follows a blank line, or a line inside a
/// paragraph or a run of reference definitions at the top level that
/// reads the same as the start of a document (see [`Paragraph`] and
/// [`definition_cut`]). HTML read as one run (adjacent HTML events) is
/// never split there: a run is one line's inline HTML or an HTML block's
/// lines, and neither goes on past a blank line or into a line that
/// starts with a letter or `[`.
fn last_cut<'w, F: BrokenLinkCallback<'w>>(
    window: &'w str,
    events: &mut OffsetIter<'w, F>,
) -> Option<usize> {
    let mut depth = 0usize;
    let mut cut = None;
    let mut paragraph: Option<Paragraph> = None;
    // The ranges of the blocks at the top level, for the definitions.
    let mut blocks: Vec<Range<usize>> = Vec::new();
    for (event, range) in events.by_ref() {
        let top = depth == 0;
        match &event {
            Event::Start(tag) => {
                if top {
                    blocks.push(range.clone());
                    if matches!(tag, Tag::Paragraph) {
                        paragraph = Some(Paragraph::new(window, &range));
                    }
                }
                depth += 1;
            }
            Event::End(tag) => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    if let Some(at) = paragraph.take().and_then(|p| p.finish(window)) {
                        cut = cut.max(Some(at));
                    }
                } else if let (Some(p), TagEnd::Link | TagEnd::Image) = (&mut paragraph, tag) {
                    p.link_end = range.end;
                }
                continue;
            }
            _ => {}
        }
        if top {
            if let Some(at) = after_blank_line(window, range.start) {
                cut = cut.max(Some(at));
            }
        } else if let Some(p) = &mut paragraph {
            p.event(window, &event, &range);
        }
    }
    cut.max(definition_cut(
        window,
        events.reference_definitions(),
        &blocks,
    ))
}

/// A paragraph at the top level of a window being read for where it may
/// be cut: before a line that a piece may start with.
///
/// Such a line `b` reads as the start of a paragraph (see [`starts_piece`])
/// and nothing inline is open at it, so that the text before it reads as
/// a paragraph of its own and the text from it as one too, each as in the
/// whole document. Inline, only code spans, links and images (their text,
/// destination and title) and raw HTML go on past the end of a line; one
/// open at `b` either closes in the window (its event's range holds `b`)
/// or is left as text in it (its opener, `[`, `` ` `` or `<`, unescaped in
/// a text event; `(` after a link read as a reference, whose inline
/// destination may close later). Either one stops the cut, the second for
/// the rest of the paragraph (nothing before it is reread). Every
/// reference is read as defined, so that a closed `[a]` is a link, not
/// text. Emphasis may pair across `b`; it is not read.
struct Paragraph {
    /// Where its text ends.
    end: usize,
    /// The furthest end of an event read so far: a line starting before
    /// it is inside that event.
    reach: usize,
    /// Whether an opener was left as text: no later line is a cut.
    open: bool,
    /// Where the last link or image ended.
    link_end: usize,
    /// The last line found to be a cut.
    cut: Option<usize>,
}

impl Paragraph {
    fn new(window: &str, range: &Range<usize>) -> Self {
        // Text that may be the title of a definition before it (its
        // closing quote on a later line) is not cut, nor one that may be
        // a definition whose title on its line closes past the window
        // (read as text without the closing quote).
        let bytes = window.as_bytes();
        let open = match bytes.get(range.start) {
            Some(b'"' | b'\'' | b'(') => true,
            Some(b'[') => may_define(bytes, range.start, range.end),
            _ => false,
        };
        Paragraph {
            end: range.end,
            reach: range.start + 1,
            open,
            link_end: usize::MAX,
            cut: None,
        }
    }

    /// Reads an event inside the paragraph.
    fn event(&mut self, window: &str, event: &Event<'_>, range: &Range<usize>) {
        self.consider(window, range.start);
        self.reach = self.reach.max(range.end);
        if let Event::Text(_) = event {
            let bytes = window.as_bytes();
            // A collapsed reference's range leaves out its `[]`, which an
            // inline link's `(` may follow.
            let after = |c| range.start.checked_sub(1).map(|i| bytes[i]) == Some(c);
            let link = range.start == self.link_end || after(b']');
            if link && bytes.get(range.start) == Some(&b'(') {
                self.open = true;
            }
            let text = &bytes[range.clone()];
            for at in memchr::memchr3_iter(b'[', b'`', b'<', text) {
                if !escaped(bytes, range.start + at) {
                    self.open = true;
                }
            }
        }
    }

    /// Takes the last line that starts between the furthest end read and
    /// `upto` as the cut, when a piece may start with it.
    fn consider(&mut self, window: &str, upto: usize) {
        if self.open || upto < self.reach {
            return;
        }
        let bytes = window.as_bytes();
        let upto = upto.min(self.end.saturating_sub(1));
        let from = self.reach - 1;
        if upto <= from {
            return;
        }
        if let Some(newline) = memchr::memrchr(b'\n', &bytes[from..upto]) {
            let line = from + newline + 1;
            if starts_piece(bytes, line) {
                self.cut = Some(line);
            }
        }
    }

    /// The last cut, once the paragraph's last event is read.
    fn finish(mut self, window: &str) -> Option<usize> {
        self.consider(window, self.end);
        self.cut
    }
}

/// Whether the line at `at` of a paragraph's text may start a piece: it
/// reads as a paragraph's first line, as it read going on one. It starts
/// with an ASCII letter (no block does), or with `[` not followed by a
/// label and `:` on the line (a definition may start only a paragraph);
/// neither it nor the line after it, which must be whole in `bytes`, has a
/// `|`, so that neither is read as a table's head.
fn starts_piece(bytes: &[u8], at: usize) -> bool {
    let line_end = |from: usize| memchr::memchr(b'\n', &bytes[from..]).map(|i| from + i);
    let Some(end) = line_end(at) else {
        return false;
    };
    let Some(next_end) = line_end(end + 1) else {
        return false;
    };
    if memchr::memchr(b'|', &bytes[at..next_end]).is_some() {
        return false;
    }
    match bytes[at] {
        c if c.is_ascii_alphabetic() => true,
        b'[' => !may_define(bytes, at, end),
        _ => false,
    }
}

/// Whether the `[` at `at` may open a reference definition's label: no
/// `[` comes before its first unescaped `]`, which a `:` follows, or
/// none comes before `end` (the label may go on).
fn may_define(bytes: &[u8], at: usize, end: usize) -> bool {
    let mut i = at + 1;
    while i < end {
        match bytes[i] {
            b'\\' => i += 2,
            b'[' => return false,
            b']' => return bytes.get(i + 1) == Some(&b':'),
            _ => i += 1,
        }
    }
    true
}

/// Whether the byte at `at` is escaped by a backslash.
fn escaped(bytes: &[u8], at: usize) -> bool {
    let backslashes = bytes[..at]
        .iter()
        .rev()
        .take_while(|&&c| c == b'\\')
        .count();
    backslashes % 2 == 1
}

/// The start of the last reference definition of `window` at the top
/// level (in none of `blocks`) that starts a line after another
/// definition, or after a blank line: a run of definitions may be cut
/// before it. The line before ends a definition (one of its title cannot
/// go on into a line that starts with `[`), and the definition reads the
/// same as the first line of a document.
fn definition_cut(
    window: &str,
    definitions: &RefDefs<'_>,
    blocks: &[Range<usize>],
) -> Option<usize> {
    let bytes = window.as_bytes();
    definitions
        .iter()
        .map(|(_, def)| def.span.start)
        .filter(|&at| at > 0 && bytes[at - 1] == b'\n' && bytes[at] == b'[')
        .filter(|&at| {
            // The last block starting before it, which would hold it.
            let before = blocks.partition_point(|block| block.start < at);
            before == 0 || blocks[before - 1].end <= at
        })
        .max()
}

/// Where the line holding `at` starts, when only spaces or tabs come
/// before `at` on it and the line before is blank (spaces and tabs).
fn after_blank_line(text: &str, at: usize) -> Option<usize> {
    let b = text.as_bytes();
    // Where the spaces and tabs before `end` start, if a line starts there.
    let blank_to = |end: usize| {
        let start = end
            - b[..end]
                .iter()
                .rev()
                .take_while(|&&c| c == b' ' || c == b'\t')
                .count();
        (start == 0 || matches!(b[start - 1], b'\n' | b'\r')).then_some(start)
    };
    let start = blank_to(at)?;
    if start == 0 {
        return None;
    }
    let mut end = start - 1;
    if b[end] == b'\n' && end > 0 && b[end - 1] == b'\r' {
        end -= 1;
    }
    blank_to(end).map(|_| start)
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

impl Uses {
    /// One use more, by an image or a link.
    fn add(&mut self, image: bool) {
        if image {
            self.images += 1;
        } else {
            self.links += 1;
        }
    }
}

struct Work<'t, 'o, 'd> {
    r: Resolver<'t, 'o>,
    page: Option<Base>,
    resource: Option<Base>,
    documents: &'d dyn Documents,
}

impl<'t> Work<'t, '_, '_> {
    /// Reads the document, in pieces of about `size` bytes when it is
    /// longer and can be (see [`Pieces`]), else whole.
    fn run(&mut self, size: usize) {
        match Pieces::plan(self.r.text, size).filter(Pieces::within_budget) {
            Some(pieces) => self.run_pieces(&pieces),
            None => self.run_whole(),
        }
    }

    /// Reads the document in one parse.
    fn run_whole(&mut self) {
        let text = self.r.text;
        let parser = Parser::new_ext(text, extensions());
        let mut definitions: Vec<(Range<usize>, String)> = parser
            .reference_definitions()
            .iter()
            .map(|(_, def)| (def.span.clone(), def.dest.to_string()))
            .collect();
        definitions.sort_by_key(|(span, _)| span.start);
        let mut uses: HashMap<usize, Uses> = HashMap::new();
        let mut count = |at: usize, image: bool| uses.entry(at).or_default().add(image);
        self.read(parser.into_offset_iter(), 0, &mut count, |_| None);
        self.definitions(definitions.iter().map(|(span, dest)| {
            let used = uses.get(&span.start).copied().unwrap_or_default();
            (span.clone(), dest.as_str(), used)
        }));
    }

    /// Reads the document piece by piece, each piece's references to
    /// definitions in other pieces answered from the whole document's;
    /// the definitions are rewritten last, with the uses of every piece.
    fn run_pieces(&mut self, pieces: &Pieces<'t>) {
        let text = self.r.text;
        let mut uses = vec![Uses::default(); pieces.definitions.len()];
        for bounds in pieces.bounds.windows(2) {
            let (start, end) = (bounds[0], bounds[1]);
            let answer = |link: BrokenLink<'t>| pieces.answer(&link.reference);
            let parser = Parser::new_with_broken_link_callback(
                &text[start..end],
                extensions(),
                Some(answer),
            );
            let mut count = |at: usize, image: bool| {
                if let Some(used) = pieces.at(at).and_then(|i| uses.get_mut(i)) {
                    used.add(image);
                }
            };
            let find = |label: &str| {
                let def = pieces.find(label)?;
                Some(pieces.definitions[def].start as usize)
            };
            self.read(parser.into_offset_iter(), start, &mut count, find);
        }
        let definitions = pieces.definitions.iter().zip(&uses);
        self.definitions(definitions.map(|(def, used)| {
            let span = def.start as usize..def.end as usize;
            (span, pieces.get(def.dest), *used)
        }));
    }

    /// Reads the events of the text from `start` on (their ranges are in
    /// that text): rewrites its inline links and HTML, and counts the uses
    /// of each definition (by where it starts): those of this text, and
    /// through `find` those of other pieces, which pulldown-cmark gives as
    /// references of unknown definitions.
    fn read<F: BrokenLinkCallback<'t>>(
        &mut self,
        mut events: OffsetIter<'t, F>,
        start: usize,
        count: &mut impl FnMut(usize, bool),
        find: impl Fn(&str) -> Option<usize>,
    ) {
        let text = self.r.text;
        let mut stack: Vec<Open> = Vec::new();
        let mut html: Option<Range<usize>> = None;
        let mut prose = Prose::default();
        while let Some((event, range)) = events.next() {
            let range = range.start + start..range.end + start;
            self.follow_prose(&mut prose, &event, &range, stack.is_empty());
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
                    let definition = match link_type {
                        LinkType::Reference | LinkType::Collapsed | LinkType::Shortcut => events
                            .reference_definitions()
                            .get(&id)
                            .map(|def| def.span.start + start),
                        LinkType::ReferenceUnknown
                        | LinkType::CollapsedUnknown
                        | LinkType::ShortcutUnknown => find(&id),
                        _ => None,
                    };
                    if let Some(at) = definition {
                        count(at, image);
                    }
                    match link_type {
                        LinkType::Autolink => {
                            self.listed(range.start + 1, &dest_url, dest_url.to_string())
                        }
                        LinkType::Email => {
                            self.listed(range.start + 1, &dest_url, format!("mailto:{dest_url}"))
                        }
                        _ => {}
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
        self.bare_urls(&mut prose);
        if let Some(done) = html.take() {
            self.html(done);
        }
    }

    /// Runs together the text outside links and code, for its bare URLs;
    /// lists them when something else comes.
    fn follow_prose(
        &mut self,
        prose: &mut Prose,
        event: &Event<'_>,
        range: &Range<usize>,
        outside_links: bool,
    ) {
        // Only a listing reads them: a rewrite does no work for them.
        let listing = self.r.options.details.records();
        match event {
            Event::Text(words) if listing && outside_links && prose.code == 0 => {
                prose.push(words, range.clone());
            }
            _ => self.bare_urls(prose),
        }
        match event {
            Event::Start(Tag::CodeBlock(_)) => prose.code += 1,
            Event::End(TagEnd::CodeBlock) => prose.code = prose.code.saturating_sub(1),
            _ => {}
        }
    }

    /// Lists the bare URLs of the text run together so far, and empties it.
    fn bare_urls(&mut self, prose: &mut Prose) {
        if prose.text.is_empty() {
            return;
        }
        for (found, url) in gfm_autolinks(&prose.text) {
            let at = prose.source(found.start);
            self.listed(at, &prose.text[found], url);
        }
        prose.text.clear();
        prose.pieces.clear();
    }

    /// Lists an absolute URL found at `at` (an autolink, a bare URL): a
    /// row that says it stays as it is, whatever the base.
    fn listed(&mut self, at: usize, written: &str, url: String) {
        if !self.r.options.details.records() {
            return;
        }
        let (line, column) = self.r.lines.locate(self.r.text, at);
        self.r.record(Link {
            line,
            column,
            place: AUTOLINK.to_link_place(),
            original: written.to_owned(),
            resolved: url,
            base: self.page.clone().filter(|page| !page.is_stand_in()),
            changed: false,
            unresolved: false,
            details: self.r.details.clone(),
        });
    }

    /// Rewrites the reference definitions, given in the order they are
    /// written with their uses, each against the image base when only
    /// images use it.
    fn definitions<'a>(
        &mut self,
        definitions: impl Iterator<Item = (Range<usize>, &'a str, Uses)>,
    ) {
        for (span, dest, used) in definitions {
            let image = used.images > 0 && used.links == 0;
            self.definition(span, dest, image);
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

/// Text events run together, with where each came from: the source
/// offset of a character of the text is known where the source reads as
/// the text (no escape, no character reference), else its event's start.
#[derive(Default)]
struct Prose {
    text: String,
    /// Where each event starts in `text`, its range in the source.
    pieces: Vec<(usize, Range<usize>)>,
    /// How many code blocks are open.
    code: usize,
}

impl Prose {
    fn push(&mut self, words: &str, range: Range<usize>) {
        self.pieces.push((self.text.len(), range));
        self.text.push_str(words);
    }

    /// The source offset of offset `at` of the text.
    fn source(&self, at: usize) -> usize {
        let i = self.pieces.partition_point(|(start, _)| *start <= at);
        let Some((start, range)) = i.checked_sub(1).and_then(|i| self.pieces.get(i)) else {
            return 0;
        };
        let end = self
            .pieces
            .get(i)
            .map_or(self.text.len(), |(next, _)| *next);
        if end - start == range.len() {
            range.start + (at - start)
        } else {
            range.start
        }
    }
}

/// The bare URLs GitHub's autolink extension makes links in `text` (GFM
/// spec, "Autolinks (extension)"): `www.` (given `http://`), `http://`
/// and `https://` URLs, `mailto:` and `xmpp:` addresses, where a line or
/// a word starts or after `*`, `_`, `~` or `(`, and e-mail addresses
/// (given `mailto:`); each with where it is written in `text`.
fn gfm_autolinks(text: &str) -> Vec<(Range<usize>, String)> {
    let bytes = text.as_bytes();
    let mut found = Vec::new();
    let mut done = 0;
    let mut i = 0;
    while i < bytes.len() {
        let starts = text.is_char_boundary(i)
            && text[..i]
                .chars()
                .next_back()
                .is_none_or(|c| c.is_whitespace() || matches!(c, '*' | '_' | '~' | '('));
        let link = if starts {
            extended_link(&text[i..])
        } else {
            None
        };
        if let Some((len, url)) = link {
            found.push((i..i + len, url));
            i += len;
            done = i;
            continue;
        }
        if bytes[i] == b'@'
            && let Some((from, len)) = email_at(bytes, done, i)
        {
            found.push((
                from..from + len,
                format!("mailto:{}", &text[from..from + len]),
            ));
            i = from + len;
            done = i;
            continue;
        }
        i += 1;
    }
    found
}

/// The extended www, url or protocol autolink `rest` starts with: its
/// length and its URL.
fn extended_link(rest: &str) -> Option<(usize, String)> {
    let prefix = |p: &str| {
        rest.get(..p.len())
            .is_some_and(|s| s.eq_ignore_ascii_case(p))
    };
    if rest.starts_with("www.") {
        let domain = valid_domain(rest, false)?;
        let len = autolink_end(rest, domain);
        return Some((len, format!("http://{}", &rest[..len])));
    }
    for scheme in ["http://", "https://"] {
        if prefix(scheme) {
            let domain = valid_domain(&rest[scheme.len()..], true)?;
            let len = autolink_end(rest, scheme.len() + domain);
            return Some((len, rest[..len].to_owned()));
        }
    }
    for scheme in ["mailto:", "xmpp:"] {
        if prefix(scheme) {
            let bytes = rest.as_bytes();
            let at = scheme.len() + bytes[scheme.len()..].iter().position(|&b| b == b'@')?;
            let (from, mut len) = email_at(bytes, scheme.len(), at)?;
            (from == scheme.len()).then_some(())?;
            len += from;
            // An XMPP address may name a resource: `/` and more.
            if scheme == "xmpp:" && bytes.get(len) == Some(&b'/') {
                let resource = bytes[len + 1..]
                    .iter()
                    .take_while(|b| b.is_ascii_alphanumeric() || matches!(b, b'@' | b'.'))
                    .count();
                let resource = rest[len + 1..len + 1 + resource].trim_end_matches('.');
                if !resource.is_empty() {
                    len += 1 + resource.len();
                }
            }
            return Some((len, rest[..len].to_owned()));
        }
    }
    None
}

/// The length of the valid domain `text` starts with: segments of
/// letters, digits, `_` and `-` between periods, with no `_` in the last
/// two, and a period unless `short` is allowed (`http://localhost`).
fn valid_domain(text: &str, short: bool) -> Option<usize> {
    let first = text.chars().next()?;
    if !first.is_alphanumeric() {
        return None;
    }
    let len = text
        .find(|c: char| !(c.is_alphanumeric() || matches!(c, '-' | '_' | '.')))
        .unwrap_or(text.len());
    let domain = text[..len].trim_end_matches('.');
    let mut segments = domain.rsplit('.');
    let last_two = segments.next().into_iter().chain(segments.next());
    if last_two.clone().any(|s| s.contains('_')) || !short && !domain.contains('.') {
        return None;
    }
    Some(len)
}

/// Where an extended autolink whose domain ends at `from` ends: at white
/// space or `<`, less its trailing punctuation, an entity-like `&name;` and
/// the `)` that close no `(` of its own.
fn autolink_end(text: &str, from: usize) -> usize {
    let mut end = from
        + text[from..]
            .find(|c: char| c.is_whitespace() || c == '<')
            .unwrap_or(text.len() - from);
    loop {
        let link = &text[..end];
        match link.as_bytes().last() {
            Some(b'?' | b'!' | b'.' | b',' | b':' | b'*' | b'_' | b'~' | b'\'' | b'"') => end -= 1,
            Some(b';') => {
                let name = link[..end - 1]
                    .bytes()
                    .rev()
                    .take_while(u8::is_ascii_alphanumeric)
                    .count();
                let amp = end - 1 - name;
                end = if name > 0 && link[..amp].ends_with('&') {
                    amp - 1
                } else {
                    end - 1
                };
            }
            Some(b')') if link.matches(')').count() > link.matches('(').count() => end -= 1,
            _ => return end,
        }
    }
}

/// The e-mail address whose `@` is at `at`, starting at or after `from`:
/// its start and length. Letters, digits and `.+-_` before the `@`;
/// letters, digits, `-`, `_` and at least one `.` (followed by a letter or
/// digit) after it, ending in a letter (a last `.` left out).
fn email_at(bytes: &[u8], from: usize, at: usize) -> Option<(usize, usize)> {
    let local = bytes[from..at]
        .iter()
        .rev()
        .take_while(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'+' | b'-' | b'_'))
        .count();
    if local == 0 {
        return None;
    }
    let start = at - local;
    let mut end = at + 1;
    let mut periods = 0;
    while let Some(&c) = bytes.get(end) {
        let next_alnum = bytes.get(end + 1).is_some_and(u8::is_ascii_alphanumeric);
        if c == b'.' && next_alnum {
            periods += 1;
        } else if !(c.is_ascii_alphanumeric() || c == b'-' || c == b'_') {
            break;
        }
        end += 1;
    }
    let last = bytes[end - 1];
    if periods == 0 || end == at + 1 || !last.is_ascii_alphabetic() {
        return None;
    }
    Some((start, end - start))
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
    use crate::base::BaseSource;
    use crate::url::{BaseUrl, Rules};
    use proptest::prelude::*;

    proptest! {
        /// Any text: no panic, and each bare URL is the text where it is
        /// found (`http://` given to `www.`, `mailto:` to an address).
        #[test]
        fn bare_urls_are_read_from_the_text_where_found(
            text in "([ (*_~]|www\\.|https?://|mailto:|xmpp:|@|[a-z_.-]{1,4}|[é🦀]|[)&;<?.,/])*"
        ) {
            for (found, url) in gfm_autolinks(&text) {
                let at = found.start;
                let rest = &text[found];
                let given = [("http://www.", "www."), ("mailto:", "")]
                    .iter()
                    .filter_map(|(given, kept)| Some(format!("{kept}{}", url.strip_prefix(given)?)));
                let read = rest == url || given.into_iter().any(|w| rest == w);
                prop_assert!(read, "{text:?}: {url} at {at}");
            }
        }
    }

    /// The HTML reader as the pieces see it: each document it is handed
    /// (with its base) is kept, and comes back in capitals, so that where
    /// its edit lands shows.
    #[derive(Debug, Default)]
    struct Capitals(std::sync::Mutex<Vec<(String, Vec<u8>)>>);

    impl Documents for Capitals {
        fn rewrite(
            &self,
            _: crate::text::Embedded,
            bytes: &[u8],
            options: &Options<'_>,
        ) -> Result<Outcome, Error> {
            let url = options.outer.map_or("", |b| b.url.as_str()).to_owned();
            let mut kept = self.0.lock().unwrap_or_else(|e| e.into_inner());
            kept.push((url, bytes.to_vec()));
            let upper = bytes.to_ascii_uppercase();
            Ok(Outcome {
                rewritten: usize::from(upper != bytes),
                output: (upper != bytes).then_some(upper),
                splice: None,
                encoding: encoding_rs::UTF_8,
                base: None,
                links: Vec::new(),
                warnings: Vec::new(),
                layers: Vec::new(),
                head: None,
            })
        }
    }

    /// The rewrite of `text` read whole and read in pieces of `size`
    /// bytes, as text, with the HTML documents handed on; and whether it
    /// was cut.
    fn whole_and_pieces(text: &str, size: usize) -> (String, String, bool) {
        let base = |url| BaseUrl::parse(url, Rules::Rfc1808).unwrap();
        let page = Base::new(base("http://h/a/b/page.md"), BaseSource::RetrievedFrom);
        let raw = Base::new(base("http://raw/a/b/page.md"), BaseSource::ResourceBase);
        let options = Options {
            outer: Some(&page),
            resource_base: Some(&raw),
            ..Options::default()
        };
        let (html_whole, html_pieces) = (Capitals::default(), Capitals::default());
        let whole = rewrite_in_pieces(text, &options, &html_whole, usize::MAX);
        let pieces = rewrite_in_pieces(text, &options, &html_pieces, size);
        let cut = Pieces::plan(text, size).is_some_and(|p| p.within_budget());
        (
            format!("{whole:#?}{html_whole:?}"),
            format!("{pieces:#?}{html_pieces:?}"),
            cut,
        )
    }

    /// How many kinds of [`part`] there are.
    const PARTS: usize = 77;

    /// A block or line of Markdown, `n` choosing its labels and names.
    fn part(kind: usize, n: usize) -> String {
        // Labels that match by case folding and collapsed white space.
        let l = [
            "a", "A", "Ä", "ä", "Foo  bar", "foo\nBAR", "ǅ", "ǆ", "x y", "X\tY",
        ][n % 10];
        let parts: [&str; PARTS] = [
            "para [x](u{n}) and ![i](i{n}.png \"t\")\n",
            "a line of text\nanother [r][{l}] line\n",
            "[{l}]: d{n}/x \"title\"\n",
            "[{l}]:\n  <d {n}>\n  'title'\n",
            "[{l}]\n",
            "![{l}][]\n",
            "[text][{l}] and [{l}][] and ![{l}]\n",
            "- item [x](l{n})\n- item\n",
            "- item\n\n  para ![i](p{n})\n",
            "1. one\n   - nested [n](n{n})\n     - deeper\n",
            "* a\n* b\n",
            "> quote [q](q{n})\n> > nested\n",
            "> lazy\ncontinued [c](c{n})\n",
            "```\n[in](code)\n",
            "```\n",
            "~~~ rust\n<a href=x>\n~~~\n",
            "~~~\n",
            "    indented [no](code)\n",
            "<!-- comment [x](y)\n",
            "-->\n",
            "<!-- whole --> <a href=\"c{n}\">\n",
            "<script>\nvar a = '<a href=s>';\n",
            "</script>\n",
            "<div>\n<a href=\"d{n}\">x</a>\n",
            "</div>\n",
            "<div><img src=\"i{n}\"></div>\n",
            "<pre>\n[p](q)\n</pre>\n",
            "<?php x ?>\n",
            "<!DOCTYPE html>\n",
            "<![CDATA[\n]]>\n",
            "text with <a href=\"in{n}\">inline</a> html\n",
            "<span title='a\n",
            "b'>x</span>\n",
            "Heading\n===\n",
            "---\n",
            "| a | [t](t{n}) |\n| - | - |\n| <a href=x> | c |\n",
            "text[^{n}] note\n",
            "[^{n}]: the note [f](f{n})\n",
            "<http://auto/{n}> `[code](x)`\n",
            "[a [nested](n{n})](outer)\n",
            "\t\n",
            "   \n",
            "  ",
            "\r\n",
            // Lines that join a paragraph, some opening what a later line
            // closes.
            "open `code\n",
            "span` closed [k](k{n})\n",
            "`` two\n",
            "[link text\n",
            "goes on](u{n}) after\n",
            "[x](u{n}\n",
            "\"title\n",
            "ends\") after\n",
            "[x](\n",
            "/dest{n}) here\n",
            "(after{n})\n",
            "x | y\n",
            "--|--\n",
            "2. two\n",
            "1) one\n",
            "lettered [r{n}][{l}] line\n",
            "[{l}]: after{n} text\n",
            "[{l}]:\n",
            "  d{n}\n",
            "\"quoted start\n",
            "text <!-- comment\n",
            "<a title='x\n",
            "y'> end\n",
            "\\[escaped [e](e{n})\n",
            "\\\\[not escaped\n",
            "![img\n",
            "alt](i{n}.png)\n",
            "text *emph\n",
            "closed* [m](m{n})\n",
            "    four spaces [s](s{n})\n",
            "===\n",
            "a [{l}]\n",
            "[{l}] b\n",
        ];
        parts[kind % parts.len()]
            .replace("{n}", &n.to_string())
            .replace("{l}", l)
    }

    proptest! {
        /// Generated Markdown of many kinds of blocks reads the same in
        /// pieces as whole.
        #[test]
        fn pieces_read_as_the_whole_document(
            parts in proptest::collection::vec((0usize..PARTS, 0usize..10, 0usize..4), 1..80),
            size in 16usize..256,
            notes in proptest::bool::weighted(0.1),
            crlf in proptest::bool::weighted(0.3),
        ) {
            let mut text = String::new();
            for (kind, n, blank) in parts {
                if !notes && part(kind, n).contains("[^") {
                    continue;
                }
                text.push_str(&part(kind, n));
                text.push_str(&"\n".repeat(blank / 2));
            }
            if crlf {
                text = text.replace('\n', "\r\n");
            }
            let (whole, pieces, cut) = whole_and_pieces(&text, size);
            if std::env::var_os("RELINK_SHOW_CUTS").is_some() {
                eprintln!("cut {cut} {}", text.len());
            }
            prop_assert_eq!(whole, pieces, "{:?}", text);
        }
    }

    /// Paragraphs are cut inside only where nothing is open: texts where
    /// a cut in the wrong line would change a link, read in pieces of
    /// every size from 8 bytes up, so that a window ends at every line.
    #[test]
    fn paragraphs_cut_only_where_nothing_is_open() {
        let texts = [
            // A line that would be a table's head in a piece of its own.
            "para line\nand more\n[p](u|v) x\n--|--\nend [e](e)\n",
            // A title going on past lines that start with letters.
            "text [x](u \"title [n](n)\nword one\nword two\nend\") after [a](a)\ntail\n",
            // A definition's title on later lines, a link inside it.
            "[d]: /u\n\"title [n](n)\nword one\nword two\nend\"\n\n[d]\n",
            // A link read as a reference, its destination on later lines.
            "[d]: /u\n\ntext [d](\n/dest \"t\nword\nword\n\") [b](b)\n",
            // A code span and raw HTML over lines.
            "text `code [c](c)\nword\nword` [a](a)\nword\nword <b title='[x](x)\nword\nword'> [z](z)\nend\n",
            // A link's text over lines, and a label at the start of a line.
            "[text\nword\nword](t) [y](y)\n[d]: /v\nword [d]\nword\n",
            // A definition in a list item, by a lazy line: what follows
            // is still the item's.
            "- [a]: /u\n[b]: /v\n\n    [x](y)\n",
            // A definition whose title on its line closes lines later: a
            // window that ends before reads it as a paragraph.
            "[a]: /u \"title\nword [z](z)\nword\nword\nend\"\n\n[a]\n",
            "[a\nb]: /u 'title\nword [z](z)\nword\nword\nend'\n\n[a b]\n",
            "[a]:\n/u (title\nword <b title=z>\nword\nword\nend)\n\n[a]\n",
            "[x]: /x\n[a]: /u \"title\nword [z](z)\nword\nword\nend\"\n\n[a] [x]\n",
            // A collapsed reference, its `[]` an inline link's text when
            // the label is not defined.
            "[a][](\nu)\nword\n",
            "![a][](\nu)\nword\n",
        ];
        for text in texts {
            // A paragraph that may be cut comes first.
            let text = format!("first [f](f)\nword one\nword two\n\n{text}");
            let mut cut = false;
            for size in 8..text.len() + 8 {
                let (whole, pieces, was_cut) = whole_and_pieces(&text, size);
                assert_eq!(whole, pieces, "{size}: {text:?}");
                cut |= was_cut;
            }
            assert!(cut, "never cut: {text:?}");
        }
    }

    /// A paragraph of a link a line, and a run of definitions, are cut
    /// between lines: pieces stay small however long the block.
    #[test]
    fn long_paragraphs_and_runs_of_definitions_are_cut() {
        let links: String = (0..2000).map(|i| format!("[l{i}](x{i})\n")).collect();
        let mut references: String = (0..1000).map(|i| format!("[l{i}][d{i}]\n")).collect();
        references.push('\n');
        references.extend((0..1000).map(|i| format!("[d{i}]: y{i}\n")));
        for text in [links, references] {
            let pieces = Pieces::plan(&text, 1024).expect("cut");
            let longest = pieces.bounds.windows(2).map(|b| b[1] - b[0]).max();
            assert!(longest.unwrap() <= 1024, "{longest:?}");
            let (whole, pieces, cut) = whole_and_pieces(&text, 1024);
            assert!(cut);
            assert_eq!(whole, pieces);
        }
    }

    /// Bits of a line of Markdown, most of them opening or closing what
    /// may go on past a line's end, `l` a label and `n` a name.
    fn bit(kind: usize, n: usize) -> String {
        let l = ["a", "A", "Ä", "foo\nBAR", "x y", "ǅ"][n % 6];
        let bits: [&str; 64] = [
            "word",
            "Text ",
            "z",
            " ",
            "[x](u{n})",
            "[x](<u {n}>)",
            "[x](u{n} \"t\")",
            "![i](i{n})",
            "[r][{l}]",
            "[{l}]",
            "[{l}][]",
            "[",
            "]",
            "](u{n})",
            "[x](",
            "u{n})",
            "\"t",
            "t\")",
            "(",
            ")",
            "`",
            "``",
            "<",
            ">",
            "<a href='",
            "'>",
            "<!--",
            "-->",
            "<?",
            "?>",
            "<!X",
            "<![CDATA[",
            "]]>",
            "<http://a/{n}>",
            "\\",
            "\\[",
            "&amp;",
            "&#91;",
            "*",
            "_",
            "~~",
            "|",
            "  ",
            "\t",
            "[{l}]: d{n}",
            "[{l}]: d{n} \"t",
            "[{l}]:",
            "   ",
            "    ",
            "> ",
            "- ",
            "1. ",
            "# ",
            "===",
            "---",
            "```",
            "<div>",
            "\"",
            "'",
            "Ä",
            "[{l}]: <d {n}> 't'",
            " 't'",
            "(t)",
            "![",
        ];
        bits[kind % bits.len()]
            .replace("{n}", &n.to_string())
            .replace("{l}", l)
    }

    proptest! {
        /// Lines of links, openers and closers, most of them joined in
        /// one paragraph or run of definitions, read the same in pieces
        /// as whole.
        #[test]
        fn lines_read_as_the_whole_document(
            lines in proptest::collection::vec(
                (proptest::collection::vec((0usize..64, 0usize..12), 0..5), 0usize..40),
                1..60,
            ),
            size in 8usize..300,
        ) {
            let mut text = String::new();
            for (bits, end) in lines {
                for (kind, n) in bits {
                    text.push_str(&bit(kind, n));
                }
                text.push_str(match end {
                    0 => "\r\n",
                    1 => "\r",
                    2 | 3 => "\n\n",
                    _ => "\n",
                });
            }
            let (whole, pieces, _) = whole_and_pieces(&text, size);
            prop_assert_eq!(whole, pieces, "{}: {:?}", size, text);
        }
    }

    /// The Markdown files under the directories of `RELINK_MARKDOWN`
    /// (separated by `:`; by default the project's and the crates' of
    /// the registry) read the same in pieces as whole, at several sizes.
    #[test]
    #[ignore = "reads every Markdown file of many directories"]
    fn markdown_files_read_as_whole_in_pieces() {
        let root = env!("CARGO_MANIFEST_DIR");
        let home = std::env::var("HOME").unwrap_or_default();
        let dirs = std::env::var("RELINK_MARKDOWN").unwrap_or(format!(
            "{root}/fixtures:{root}/docs:{home}/.cargo/registry/src"
        ));
        let mut dirs: Vec<_> = dirs.split(':').map(std::path::PathBuf::from).collect();
        let (mut files, mut cut) = (0, 0);
        while let Some(dir) = dirs.pop() {
            let Ok(entries) = std::fs::read_dir(&dir) else {
                continue;
            };
            for path in entries.flatten().map(|e| e.path()) {
                if path.is_dir() && !path.ends_with("target") {
                    dirs.push(path);
                    continue;
                }
                let md = path
                    .extension()
                    .is_some_and(|e| e.eq_ignore_ascii_case("md"));
                let Some(text) = md.then(|| std::fs::read_to_string(&path).ok()).flatten() else {
                    continue;
                };
                if text.len() > 4 << 20 {
                    continue;
                }
                files += 1;
                let mut was = false;
                for size in [64, 200, 1000] {
                    let (whole, pieces, was_cut) = whole_and_pieces(&text, size);
                    assert!(whole == pieces, "{size}: {}", path.display());
                    was |= was_cut;
                }
                cut += usize::from(was);
            }
        }
        eprintln!("{files} files, {cut} cut");
        assert!(files > 0);
    }

    /// pulldown-cmark stops resolving references once they have copied
    /// more than the document's length (at least 100,000 bytes): past it,
    /// a link no longer makes a definition only images use take the page's
    /// base. Such a document is read whole; one whose many `]` only seem
    /// to reach it is still cut.
    #[test]
    fn references_past_pulldown_cmarks_budget_read_as_whole() {
        let long = "x".repeat(1000);
        let mut text = format!("[d]: {long}\n\n");
        text.push_str(&"![d]\n\n".repeat(120));
        text.push_str("[d]\n");
        let (whole, pieces, cut) = whole_and_pieces(&text, 256);
        assert_eq!(whole, pieces);
        assert!(whole.contains("http://raw/"), "{whole}");
        assert!(!cut);
        let mut text = format!("[d]: {long}\n\n![d]\n\n");
        text.push_str(&"x]\n\n".repeat(120));
        text.push_str("[d]\n");
        let (whole, pieces, cut) = whole_and_pieces(&text, 256);
        assert_eq!(whole, pieces);
        assert!(whole.contains("http://h/"), "{whole}");
        assert!(cut);
        // In a longer document, the budget of one piece is the smaller.
        let mut text = format!("[d]: {long}\n\n");
        text.push_str(&"filler\n\n".repeat(30_000));
        text.push_str(&"![d]\n".repeat(120));
        text.push_str("[d]\n");
        let (whole, pieces, cut) = whole_and_pieces(&text, 4096);
        assert_eq!(whole, pieces);
        assert!(whole.contains("http://h/"), "{whole}");
        assert!(!cut);
    }

    /// The project's Markdown files and the CommonMark spec's examples of
    /// links (one after another, as one document) read the same in pieces
    /// as whole, at several sizes; most of them are cut.
    #[test]
    fn real_documents_read_as_whole_in_pieces() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut documents = Vec::new();
        let mut dirs = vec![root.join("fixtures"), root.join("docs")];
        documents.push(std::fs::read_to_string(root.join("README.md")).unwrap());
        while let Some(dir) = dirs.pop() {
            for entry in std::fs::read_dir(dir).unwrap() {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    dirs.push(path);
                } else if path.extension().is_some_and(|e| e == "md") {
                    documents.push(std::fs::read_to_string(path).unwrap());
                }
            }
        }
        let spec = std::fs::read(root.join("fixtures/markdown/commonmark-spec-links.json"));
        let spec: serde_json::Value = serde_json::from_slice(&spec.unwrap()).unwrap();
        let examples = spec.as_array().unwrap().iter();
        let examples = examples.filter_map(|e| e["markdown"].as_str());
        documents.push(examples.collect::<Vec<_>>().join("\n"));
        assert!(documents.len() > 10);
        let mut cut = 0;
        for text in &documents {
            for size in [16, 64, 256, 1024] {
                let (whole, pieces, was_cut) = whole_and_pieces(text, size);
                assert_eq!(whole, pieces, "{size}: {text}");
                cut += usize::from(was_cut);
            }
        }
        assert!(cut > documents.len(), "only {cut} cut");
    }

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
