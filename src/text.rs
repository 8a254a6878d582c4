//! The resolver of a text: the links a reader finds in a decoded text are
//! resolved against the document's base, recorded, and turned into edits
//! in the document's own encoding; and [`Documents`], through which an
//! archive reader hands an embedded document on. It knows no reader, so
//! readers never import each other.

use std::borrow::Cow;
use std::fmt;
use std::ops::Range;

use crate::base::{Base, BaseChain, BaseSource, Layer, LayerStatus};
use crate::encoding::{self, Sniffed};
use crate::error::Error;
use crate::links::{Link, LinkDetails, LinkRow, Outcome, Place, Warning, WarningKind};
use crate::options::{MAX_DOCUMENT_BYTES, Options, Placed};
use crate::splice::{Edit, Edits, Make, Splice};
use crate::style;

/// The kinds of document a reader can hand on (a message part, a WARC payload).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Embedded {
    /// An HTML document.
    Html,
    /// A style sheet.
    Css,
    /// An XML document: a feed, SVG, XHTML.
    Xml,
    /// A Markdown document (a notebook's cell).
    Markdown,
}

/// Rewrites an embedded document, so that a message or WARC reader need not know HTML's or CSS's.
pub trait Documents: Sync + fmt::Debug {
    /// Rewrites `bytes`, a document of `kind`.
    fn rewrite(
        &self,
        kind: Embedded,
        bytes: &[u8],
        options: &Options<'_>,
    ) -> Result<Outcome, Error>;

    /// Rewrites `bytes`, a document of `kind`, its new bytes given as `make` asks when it can.
    fn rewrite_made(
        &self,
        kind: Embedded,
        bytes: &[u8],
        options: &Options<'_>,
        make: Make,
    ) -> Result<Outcome, Error> {
        let _ = make;
        self.rewrite(kind, bytes, options)
    }
}

/// Lines of a text, to report where links are. Offsets asked in order
/// (as a reader finds links) are counted on from the last one asked, so a
/// listing reads each byte once and keeps nothing a line; an offset before
/// the last one builds the index of every line's start, used from then on.
#[derive(Debug, Default)]
pub struct LineIndex {
    starts: std::cell::OnceCell<Vec<usize>>,
    /// Where counting has reached: the offset, the line there (from 1) and its start.
    counted: std::cell::Cell<(usize, usize, usize)>,
}

impl LineIndex {
    /// The line and column (from 1, column in bytes) of an offset in `text`.
    pub fn locate(&self, text: &str, offset: usize) -> (usize, usize) {
        if self.starts.get().is_none() {
            let (at, line, start) = self.counted.get();
            if offset >= at {
                let line = line.max(1);
                let end = offset.min(text.len());
                let seen = text.as_bytes().get(at.min(end)..end).unwrap_or_default();
                let (line, start) = match memchr::memrchr(b'\n', seen) {
                    Some(last) => (line + count_line_feeds(seen), at + last + 1),
                    None => (line, start),
                };
                self.counted.set((offset.max(at), line, start));
                return (line, offset - start + 1);
            }
        }
        locate(self.starts(text), offset)
    }

    /// The line (from 1) of an offset, counting line feeds rather than indexing for one offset.
    pub fn line_of(&self, text: &str, offset: usize) -> usize {
        match self.starts.get() {
            Some(starts) => locate(starts, offset).0,
            None => {
                let before = text.as_bytes().get(..offset).unwrap_or(text.as_bytes());
                1 + count_line_feeds(before)
            }
        }
    }

    /// Where each line of `text` (the text this index is for) starts.
    pub fn starts(&self, text: &str) -> &[usize] {
        self.starts.get_or_init(|| {
            let mut starts = vec![0];
            starts.extend(memchr::memchr_iter(b'\n', text.as_bytes()).map(|i| i + 1));
            starts
        })
    }
}

/// How many line feeds `bytes` holds: summed in a byte over blocks of
/// 255 and over the rest (no more can overflow it), which the compiler
/// makes vector code.
fn count_line_feeds(bytes: &[u8]) -> usize {
    let (blocks, rest) = bytes.as_chunks::<255>();
    let mut count = 0;
    for block in blocks {
        let mut here = 0u8;
        for &b in block {
            here = here.wrapping_add(u8::from(b == b'\n'));
        }
        count += usize::from(here);
    }
    let mut here = 0u8;
    for &b in rest {
        here = here.wrapping_add(u8::from(b == b'\n'));
    }
    count + usize::from(here)
}

/// The line and column (from 1) of `offset` in a text whose lines start at `starts`.
pub fn locate(starts: &[usize], offset: usize) -> (usize, usize) {
    let line = starts.partition_point(|&s| s <= offset).max(1);
    (
        line,
        offset - starts.get(line - 1).copied().unwrap_or(0) + 1,
    )
}

/// What rewriting a decoded document gives.
#[derive(Debug, Default)]
pub struct TextRewrite {
    /// Sorted, non-overlapping edits of the text.
    pub edits: Edits,
    /// Every link found, changed or not, unless handed to [`Options::rows`].
    pub links: Vec<Link>,
    /// How many links changed.
    pub rewritten: usize,
    /// What could not be done, each naming where.
    pub warnings: Vec<Warning>,
    /// The document's base, if it had one.
    pub base: Option<Base>,
    /// The layers the document had, innermost first.
    pub layers: Vec<Layer>,
    /// An HTML document's title and metas, when asked.
    pub head: Option<Box<crate::links::HtmlHead>>,
}

/// What becomes of a link of a file of a container ([`Resolver::contained`]).
enum Contained<'o> {
    /// A link as any other.
    Link,
    /// Kept as written, and recorded.
    Kept,
    /// Resolved against this base, outside the container.
    Outer(&'o Base),
}

/// Whether a reference to the document itself (`#name`, or empty) stays as written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SameDocument {
    /// It is a link like any other (unless `--keep-fragment-links`).
    Resolve,
    /// It names something inside the document (SVG `href="#id"`, CSS `url(#id)`): kept.
    Keep,
}

/// The base a document with no base is walked with when links are recorded (`--list`, `--check`).
pub fn stand_in(options: &Options<'_>) -> Option<Base> {
    if !options.details.records() {
        return None;
    }
    Base::stand_in(options.rules)
}

/// Resolves the links of one text against their bases, recording each in a [`TextRewrite`].
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
    /// What the element being read says of its links ([`Details::Attributes`](crate::options::Details::Attributes)).
    pub details: Option<Box<LinkDetails>>,
    /// Whether [`Resolver::details`] go with one link only (an attribute
    /// that holds one URL): moved into its row, not copied.
    pub details_once: bool,
    /// Whether links are read as a browser reads them (HTML, XML, CSS): ASCII
    /// tab and newline removed before resolving, as the URL Standard does.
    pub browser: bool,
}

impl<'t, 'o> Resolver<'t, 'o> {
    /// A resolver for the links of `text`.
    pub fn new(text: &'t str, options: &'o Options<'o>) -> Self {
        Resolver {
            text,
            options,
            lines: LineIndex::default(),
            out: TextRewrite::default(),
            details: None,
            details_once: false,
            browser: false,
        }
    }

    /// Records a warning about what lies at `at` in the text.
    pub fn warn(&mut self, at: usize, kind: WarningKind, message: impl fmt::Display) {
        let (line, column) = self.lines.locate(self.text, at);
        let warning = Warning::new(kind, message).within(format!("line {line}, column {column}"));
        self.out.warnings.push(warning);
    }

    /// Records that the document has no base (RFC 1808 section 3.4): links left as they are.
    pub fn warn_no_base(&mut self) {
        self.out.warnings.push(Warning::new(
            WarningKind::NoBase,
            "no base url: links left as they are",
        ));
    }

    /// The end of every reader's rewrite: the base set, the edits sorted with
    /// overlaps dropped (and counted in a warning), for [`rewrite_bytes_made`].
    pub fn finish(self, base: Option<Base>) -> TextRewrite {
        let mut out = self.out;
        out.base = base;
        let dropped = out.edits.normalize(self.text.len());
        if dropped > 0 {
            out.warnings.push(Warning::new(
                WarningKind::OverlappingEdits,
                format_args!("{dropped} overlapping edits dropped"),
            ));
        }
        out
    }

    /// Records a link: hands it to the options' sink, or keeps it.
    pub fn record(&mut self, link: Link) {
        match self.options.rows {
            Some(rows) => rows.0.row(LinkRow::new(link)),
            None => self.out.links.push(link),
        }
    }

    /// Resolves one URL found at `at` and records it; the new text if it changed.
    pub fn resolve(
        &mut self,
        at: usize,
        value: &str,
        base: &Base,
        place: Place<'_>,
        same_document: SameDocument,
    ) -> Option<String> {
        self.resolve_as(at, value, base, place, same_document, |new| new)
    }

    /// [`Resolver::resolve`], a changed URL passed through `finish` before it is recorded.
    pub fn resolve_as(
        &mut self,
        at: usize,
        value: &str,
        base: &Base,
        place: Place<'_>,
        same_document: SameDocument,
        finish: impl FnOnce(String) -> String,
    ) -> Option<String> {
        let mut new = String::new();
        let finish = |new: &mut String, _: usize| *new = finish(std::mem::take(new));
        let link = (at, value, place, same_document);
        self.resolve_into(link, base, &mut new, finish)?;
        Some(new)
    }

    /// [`Resolver::resolve_as`] for a link `(at, value, place,
    /// same_document)`, its new URL appended to `out` rather than made a
    /// string of its own, so that a reader's links share one buffer: where
    /// it starts in `out` if it changed (nothing is left appended if not).
    /// `finish(out, start)` changes the new URL in place before it is recorded.
    pub fn resolve_into(
        &mut self,
        (at, value, place, same_document): (usize, &str, Place<'_>, SameDocument),
        base: &Base,
        out: &mut String,
        finish: impl FnOnce(&mut String, usize),
    ) -> Option<usize> {
        // An empty reference links to the base (RFC 1808 §4 step 2a), unless kept.
        if value.is_empty() && same_document == SameDocument::Keep {
            return None;
        }
        // A browser reads the URL without tabs and newlines; unchanged if it resolves to that.
        let read = if self.browser {
            without_tabs_and_newlines(value)
        } else {
            Cow::Borrowed(value)
        };
        if let Some(saved) = self.options.saved
            && matches!(
                base.source,
                BaseSource::RetrievedFrom | BaseSource::SavedFrom
            )
            && let Some(file) = saved.holds(&read)
        {
            self.record_held(at, value, place, file, saved.base());
            return None;
        }
        let keep = read.starts_with('#')
            && (same_document == SameDocument::Keep || self.options.keep_fragment_links);
        // Whether the URL was written at `out[start..]`; if not, it is `read` as it is.
        let start = out.len();
        let mut written = if keep {
            Ok(false)
        } else {
            base.url.resolve_into(&read, out)
        };
        let mut base = base;
        // (Only a container's file asks where its links land.)
        if let (Ok(wrote), false, true) = (&written, keep, self.options.container.is_some()) {
            let url = if *wrote { &out[start..] } else { &*read };
            match self.contained(at, (value, place), base, url) {
                Contained::Link => {}
                Contained::Kept => {
                    out.truncate(start);
                    return None;
                }
                Contained::Outer(outer) => {
                    base = outer;
                    out.truncate(start);
                    written = outer.url.resolve_into(&read, out);
                }
            }
        }
        if base.is_stand_in() {
            // No base: the link is recorded as it is, never written.
            let left = match written {
                Ok(true) => out[start..].trim_ascii() != read,
                Ok(false) => read.trim_ascii() != read,
                Err(_) => false,
            };
            out.truncate(start);
            self.record_left(at, value, place, left);
            return None;
        }
        let written = match written {
            Ok(written) => written,
            Err(err) => {
                out.truncate(start);
                let message = format_args!("{place}: {err}");
                self.warn(at, WarningKind::Unresolvable, message);
                return None;
            }
        };
        let changed = self.written_url(&read, out, start, written);
        self.out.rewritten += usize::from(changed);
        if changed {
            finish(out, start);
        } else {
            out.truncate(start);
        }
        if self.options.details.records() {
            let resolved = match changed {
                true => out[start..].to_owned(),
                false => read.into_owned(),
            };
            self.record_resolved(at, (value, place), resolved, Some(base), (changed, false));
        }
        changed.then_some(start)
    }

    /// The URL a link `read` resolved to (at `out[start..]` if `written`,
    /// else `read` itself) made what is written: its ends trimmed, as HTML
    /// reads a URL (trailing white space, `:\n#`, is not written), and in a
    /// mirror made local the path to one of its files. Whether it differs
    /// from `read`, then at `out[start..]`.
    #[inline(always)]
    fn written_url(&self, read: &str, out: &mut String, start: usize, written: bool) -> bool {
        let mut written = written;
        if written {
            let url = &out[start..];
            let (lead, kept) = (
                url.len() - url.trim_ascii_start().len(),
                url.trim_ascii().len(),
            );
            out.truncate(start + lead + kept);
            if lead > 0 {
                out.drain(start..start + lead);
            }
        } else if read.trim_ascii().len() != read.len() {
            out.push_str(read.trim_ascii());
            written = true;
        }
        let url = if written { &out[start..] } else { read };
        if let Some(path) = self.options.local.and_then(|doc| doc.local(url)) {
            out.truncate(start);
            out.push_str(&path);
            written = true;
        }
        // A reference resolving to itself is unchanged, its text not compared.
        written && out[start..] != *read
    }

    /// What becomes of a link resolved to `url` against `base` when the
    /// document is a file of a container (an EPUB book): one that reaches
    /// a file of it is kept as written and recorded with its container
    /// path (a warning if the container lacks the file); one that leaves
    /// it is resolved against the container's outer base, or left.
    fn contained(
        &mut self,
        at: usize,
        (value, place): (&str, Place<'_>),
        base: &Base,
        url: &str,
    ) -> Contained<'o> {
        let Some(container) = self.options.container else {
            return Contained::Link;
        };
        match container.place(base.url.as_str(), url) {
            Placed::Elsewhere => Contained::Link,
            Placed::Inside { path, exists } => {
                if !exists {
                    let message = format_args!("{place}: the container holds no {path}");
                    self.warn(at, WarningKind::NotInContainer, message);
                }
                if self.options.details.records() {
                    self.record_resolved(at, (value, place), path, Some(base), (false, false));
                }
                Contained::Kept
            }
            Placed::Outside => match container.outer() {
                Some(outer) => Contained::Outer(outer),
                None => {
                    self.record_left(at, value, place, true);
                    Contained::Kept
                }
            },
        }
    }

    /// Records a link to a file saved with the page, left as it is (resolved to its `file:` URL).
    fn record_held(&mut self, at: usize, value: &str, place: Place<'_>, file: String, page: &Base) {
        if self.options.details.records() {
            self.record_resolved(at, (value, place), file, Some(page), (false, false));
        }
    }

    /// Records the link `value` at `at`, resolved against `base` (none: `unresolved`).
    fn record_resolved(
        &mut self,
        at: usize,
        (value, place): (&str, Place<'_>),
        resolved: String,
        base: Option<&Base>,
        (changed, unresolved): (bool, bool),
    ) {
        let (line, column) = self.lines.locate(self.text, at);
        let details = match self.details_once {
            true => self.details.take(),
            false => self.details.clone(),
        };
        self.record(Link {
            line,
            column,
            place: place.to_link_place(),
            original: value.to_owned(),
            resolved,
            base: base.cloned(),
            changed,
            unresolved,
            details,
        });
    }

    /// A run of HTML inside a text (Markdown, `raw:: html`) at `range`, rewritten
    /// by the HTML reader against the page's base: links at their lines in the
    /// text, warnings under `label`, the change an edit. With no base, its links
    /// are listed as left and only the page says it has no base.
    pub fn embedded_html(
        &mut self,
        documents: &dyn Documents,
        range: Range<usize>,
        page: &Base,
        label: &str,
    ) {
        let text = self.text;
        let options = Options {
            outer: Some(page),
            forced: if page.is_stand_in() {
                Some(page)
            } else {
                self.options.forced
            },
            transport: Some(encoding_rs::UTF_8),
            keep_fragment_links: true,
            ..*self.options
        };
        let (line, column) = self.lines.locate(text, range.start);
        let chunk = text[range.clone()].as_bytes();
        let outcome = match documents.rewrite(Embedded::Html, chunk, &options) {
            Ok(outcome) => outcome,
            Err(err) => {
                let message = format_args!("html: {err}; left as it is");
                return self.warn(range.start, WarningKind::Unreadable, message);
            }
        };
        for mut link in outcome.links {
            if link.line == 1 {
                link.column += column - 1;
            }
            link.line += line - 1;
            self.out.links.push(link);
        }
        self.out.rewritten += outcome.rewritten;
        let warnings = outcome.warnings.into_iter();
        let warnings = warnings.filter(|w| !(page.is_stand_in() && w.kind == WarningKind::NoBase));
        let here = format!("{label} at line {line}");
        self.out
            .warnings
            .extend(warnings.map(|w| w.within(here.clone())));
        if let Some(output) = outcome.output {
            let Ok(new) = String::from_utf8(output) else {
                let message = "html that did not come back as utf-8; left as it is";
                return self.warn(range.start, WarningKind::Unreadable, message);
            };
            self.out.edits.push(Edit::new(range, new).narrowed(text));
        }
    }

    /// Records a link of a document with no base as written; `left` if it is relative.
    fn record_left(&mut self, at: usize, value: &str, place: Place<'_>, left: bool) {
        if self.options.details.records() {
            self.record_resolved(at, (value, place), value.to_owned(), None, (false, left));
        }
    }

    /// The one loop over a style sheet's URLs, `css` starting at `at`: the new
    /// URLs escaped for their quoting, with ranges. An empty `url()` (CSS Values
    /// 4) and `url(#id)` stay.
    pub fn css_urls(
        &mut self,
        css: &str,
        at: usize,
        base: &Base,
        place: Place<'_>,
    ) -> Vec<(Range<usize>, String)> {
        let mut found = Vec::new();
        self.each_css_url(css, at, base, place, &mut |range, new| {
            found.push((range, new));
        });
        found
    }

    /// [`Resolver::css_urls`], each new URL handed to `found`, so none is held.
    pub fn each_css_url(
        &mut self,
        css: &str,
        at: usize,
        base: &Base,
        place: Place<'_>,
        found: &mut dyn FnMut(Range<usize>, String),
    ) {
        style::each_url(css, &mut |url| {
            // An empty `url()` is no link; one of C0 controls alone is.
            let (empty, quoting) = (url.value.is_empty(), url.quoting);
            let (range, value) = css_url_read(css, url);
            if empty || value.starts_with('#') {
                return;
            }
            let here = at + range.start;
            if let Some(new) = self.resolve(here, &value, base, place, SameDocument::Keep) {
                found(range, style::escape(new, quoting));
            }
        });
    }
}

/// A URL of a style sheet as a browser reads it ([`browser_trim`]), with
/// the range of `css` it comes from (the stripped ends keep their bytes).
pub fn css_url_read<'a>(css: &str, url: style::CssUrl<'a>) -> (Range<usize>, Cow<'a, str>) {
    let (lead, core) = browser_trim(&url.value);
    if core.len() == url.value.len() {
        return (url.range, url.value);
    }
    let raw = &css[url.range.clone()];
    let source = if raw == url.value {
        Some(lead..lead + core.len())
    } else {
        let before = url.value[..lead].chars().count();
        style::source_of_chars(raw, before..before + core.chars().count())
    };
    let Some(source) = source else {
        return (url.range, url.value);
    };
    let range = url.range.start + source.start..url.range.start + source.end;
    let value = match url.value {
        Cow::Borrowed(value) => Cow::Borrowed(browser_trim(value).1),
        Cow::Owned(value) => Cow::Owned(browser_trim(&value).1.to_owned()),
    };
    (range, value)
}

/// A URL as the basic URL parser reads it, C0 controls and spaces stripped
/// from its ends: the length stripped in front, and the rest.
#[inline]
pub fn browser_trim(value: &str) -> (usize, &str) {
    // By bytes: a character at or below U+0020 is one byte, and no byte of
    // a longer one is at or below 0x20.
    let bytes = value.as_bytes();
    let start = bytes.iter().position(|&b| b > b' ').unwrap_or(bytes.len());
    let end = bytes
        .iter()
        .rposition(|&b| b > b' ')
        .map_or(start, |i| i + 1);
    (start, value.get(start..end).unwrap_or_default())
}

/// `value` without the tabs and newlines the basic URL parser removes anywhere.
#[inline]
pub fn without_tabs_and_newlines(value: &str) -> Cow<'_, str> {
    if !has_tab_or_newline(value.as_bytes()) {
        return Cow::Borrowed(value);
    }
    Cow::Owned(value.replace(['\t', '\n', '\r'], ""))
}

/// Whether `bytes` hold a tab, LF or CR: up to 128 bytes by word (no byte
/// below 0x0E, the common answer, is eight tested at once; the last word
/// overlaps the one before), a longer value by `memchr3`, whose set-up
/// costs more than a URL's usual length.
#[inline]
fn has_tab_or_newline(bytes: &[u8]) -> bool {
    const ONES: u64 = u64::from_le_bytes([1; 8]);
    let exact = |part: &[u8]| part.iter().any(|b| matches!(b, b'\t' | b'\n' | b'\r'));
    // The high bit of a byte below 0x0E (a borrow may flag bytes above it).
    let flagged = |word: &[u8; 8]| {
        let word = u64::from_le_bytes(*word);
        word.wrapping_sub(ONES * 0x0e) & !word & (ONES * 0x80) != 0
    };
    let len = bytes.len();
    if len > 128 {
        return memchr::memchr3(b'\t', b'\n', b'\r', bytes).is_some();
    }
    let Some(last) = bytes.last_chunk::<8>() else {
        return exact(bytes);
    };
    let mut at = 0;
    while at + 8 < len {
        if bytes
            .get(at..)
            .and_then(<[u8]>::first_chunk::<8>)
            .is_some_and(flagged)
        {
            return exact(&bytes[at..]);
        }
        at += 8;
    }
    flagged(last) && exact(&bytes[len - 8..])
}

/// [`rewrite_bytes_made`] for a reader that finds links out of document
/// order (Markdown's definitions, reStructuredText's targets): they are
/// kept, put in order, and only then handed to the sink of `options`.
/// `rewrite` takes the text and the options less the sink.
pub fn rewrite_bytes_in_order<'b>(
    bytes: &'b [u8],
    decode: impl FnOnce(&'b [u8]) -> (Sniffed, Cow<'b, str>),
    (options, make): (&Options<'_>, Make),
    rewrite: impl FnOnce(&str, &Options<'_>) -> TextRewrite,
) -> Result<Outcome, Error> {
    let Some(rows) = options.rows else {
        return rewrite_bytes_made(bytes, decode, |text| rewrite(text, options), make);
    };
    let kept = Options {
        rows: None,
        ..*options
    };
    let rewrite = |text: &str| {
        let mut out = rewrite(text, &kept);
        for link in out.links.drain(..) {
            rows.0.row(LinkRow::new(link));
        }
        out
    };
    rewrite_bytes_made(bytes, decode, rewrite, make)
}

/// The bases of a page whose resources may have their own (a README's
/// images on a raw-content host): the page's, the images'
/// (`--resource-base` for the retrieval URL, else the page's), the layers
/// to report, and whether the page had no base ([`stand_in`]).
pub fn page_bases(options: &Options<'_>) -> (Option<Base>, Option<Base>, Vec<Layer>, bool) {
    let (page, mut layers) = BaseChain::new(options.rules, options.forced, options.outer).finish();
    let resource = match (options.resource_base, &page) {
        (Some(resource), None) => Some(resource.clone()),
        (Some(resource), Some(page)) if page.source == BaseSource::RetrievedFrom => {
            Some(resource.clone())
        }
        (_, page) => page.clone(),
    };
    if let Some(given) = options.resource_base {
        let used = resource
            .as_ref()
            .is_some_and(|r| r.source == BaseSource::ResourceBase);
        let status = if used {
            LayerStatus::Used
        } else {
            LayerStatus::Below
        };
        layers.push(Layer::new(
            BaseSource::ResourceBase,
            given.url.as_str(),
            status,
        ));
    }
    if page.is_none() {
        let page = stand_in(options);
        let resource = resource.or_else(|| page.clone());
        return (page, resource, layers, true);
    }
    (page, resource, layers, false)
}

/// Decodes a document by `decode`, rewrites its text by `rewrite`, and splices
/// the edits, encoded as the document is, into its bytes (or as `make` says).
pub fn rewrite_bytes_made<'b>(
    bytes: &'b [u8],
    decode: impl FnOnce(&'b [u8]) -> (Sniffed, Cow<'b, str>),
    rewrite: impl FnOnce(&str) -> TextRewrite,
    make: Make,
) -> Result<Outcome, Error> {
    if bytes.len() > MAX_DOCUMENT_BYTES {
        return Err(Error::TooLarge(bytes.len()));
    }
    let (sniffed, text) = decode(bytes);
    let TextRewrite {
        edits,
        links,
        rewritten,
        warnings,
        base,
        layers,
        head,
    } = rewrite(&text);
    let splice = (!edits.is_empty()).then(|| {
        // The text is the bytes after the BOM, or a decoded copy with offsets into the bytes.
        let offsets = matches!(text, Cow::Owned(_)).then(|| {
            let bounds: Vec<usize> = edits
                .iter()
                .flat_map(|e| [e.range.start, e.range.end])
                .collect();
            encoding::byte_offsets(bytes, &sniffed, &bounds)
        });
        Splice::new(edits, sniffed.bom_len, offsets, sniffed.encoding)
    });
    let (output, splice) = match make {
        Make::Bytes => (splice.map(|s| s.bytes(bytes)), None),
        Make::Splice => (None, splice),
    };
    Ok(Outcome {
        output,
        splice,
        encoding: sniffed.encoding,
        base,
        links,
        rewritten,
        warnings,
        layers,
        head,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        /// Tabs and newlines are found by word as a scan finds them, in
        /// values of every length around the words and the 128 bytes read
        /// so, among the bytes below 0x0E the word test also flags.
        #[test]
        fn tabs_and_newlines_are_found_as_a_scan_finds_them(
            value in proptest::collection::vec(
                proptest::prop_oneof![
                    8 => proptest::sample::select(b"az/.:%".to_vec()),
                    1 => proptest::sample::select(b"\t\n\r\0\x0b\x0c\x0e\x1f ".to_vec()),
                    1 => proptest::sample::select(vec![0x80u8, 0x8d, 0x89, 0xff]),
                ],
                0..150,
            ),
        ) {
            let scan = value.iter().any(|b| matches!(b, b'\t' | b'\n' | b'\r'));
            proptest::prop_assert_eq!(has_tab_or_newline(&value), scan);
        }

        /// The ends are trimmed of what is at or below a space, whatever the characters.
        #[test]
        fn a_url_is_trimmed_as_by_characters(value in "[ \t\n\x00\x1fa-cé€😀]{0,12}") {
            let core = value.trim_start_matches(|c| c <= ' ');
            let want = (value.len() - core.len(), core.trim_end_matches(|c| c <= ' '));
            proptest::prop_assert_eq!(browser_trim(&value), want);
        }
    }

    #[test]
    fn line_index_counts_from_one() {
        let text = "ab\ncd\n";
        let lines = LineIndex::default();
        assert_eq!(lines.locate(text, 0), (1, 1));
        assert_eq!(lines.locate(text, 4), (2, 2));
        assert_eq!(lines.locate(text, 6), (3, 1));
    }

    #[test]
    fn links_located_in_order_are_counted_on_without_an_index() {
        let text = "ab\ncd\n\nef";
        let lines = LineIndex::default();
        assert_eq!(lines.locate(text, 1), (1, 2));
        assert_eq!(lines.locate(text, 4), (2, 2));
        assert_eq!(lines.locate(text, 4), (2, 2));
        assert_eq!(lines.locate(text, 8), (4, 2));
        assert!(lines.starts.get().is_none());
        // An offset before the last one asked is found in the index.
        assert_eq!(lines.locate(text, 3), (2, 1));
        assert!(lines.starts.get().is_some());
        assert_eq!(lines.locate(text, 8), (4, 2));
    }

    #[test]
    fn line_feeds_are_counted_past_what_a_lane_holds() {
        let text = "a\n\n".repeat(5000);
        assert_eq!(count_line_feeds(text.as_bytes()), 10_000);
        assert_eq!(count_line_feeds(&[b'\n'; 40_001]), 40_001);
        let lines = LineIndex::default();
        assert_eq!(lines.locate(&text, text.len() - 1), (10_000, 1));
    }

    proptest::proptest! {
        /// Offsets asked in any order (some past the end) are where the
        /// index of every line's start puts them.
        #[test]
        fn a_place_is_the_same_counted_on_or_indexed(
            text in "[ab\n\r]{0,200}",
            offsets in proptest::collection::vec(0usize..210, 0..20),
        ) {
            let index = LineIndex::default();
            let starts = index.starts(&text).to_vec();
            let counted = LineIndex::default();
            for at in offsets {
                proptest::prop_assert_eq!(counted.locate(&text, at), locate(&starts, at));
                proptest::prop_assert_eq!(counted.line_of(&text, at), locate(&starts, at).0);
            }
        }
    }

    #[test]
    fn a_line_is_the_same_counted_or_indexed() {
        let text = "a\nb\n\ncd";
        let counted: Vec<usize> = (0..=text.len())
            .map(|at| LineIndex::default().line_of(text, at))
            .collect();
        let index = LineIndex::default();
        let indexed: Vec<usize> = (0..=text.len())
            .map(|at| index.locate(text, at).0)
            .collect();
        assert_eq!(counted, indexed);
        assert_eq!(counted, [1, 1, 2, 2, 3, 4, 4, 4]);
        assert_eq!(index.line_of(text, 5), 4);
    }

    #[test]
    fn finishing_sorts_the_edits_and_counts_those_dropped() {
        let options = Options::default();
        let mut r = Resolver::new("abcdef", &options);
        r.out.edits.push(Edit::new(3..5, "X"));
        r.out.edits.push(Edit::new(0..2, "Y"));
        r.out.edits.push(Edit::new(1..3, "Z"));
        r.warn_no_base();
        let out = r.finish(None);
        let edits: Vec<_> = out.edits.iter().map(|e| (e.range, e.text)).collect();
        assert_eq!(edits, [(0..2, "Y"), (3..5, "X")]);
        let kinds: Vec<_> = out.warnings.iter().map(|w| w.kind).collect();
        assert_eq!(kinds, [WarningKind::NoBase, WarningKind::OverlappingEdits]);
        assert_eq!(out.warnings[1].message, "1 overlapping edits dropped");
        assert!(out.base.is_none());
    }
}
