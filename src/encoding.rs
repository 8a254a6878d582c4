//! Bytes in and bytes out: finding a document's encoding, decoding it, and
//! mapping positions in the decoded text back to the bytes.
//!
//! HTML sniffs BOM, transport, `<meta>` prescan, then UTF-8 if the bytes
//! are, else windows-1252 ([`sniff_decode_html`]); CSS BOM, `@charset`,
//! transport ([`sniff_decode_css`]). Each decodes as it sniffs. A `<meta>`
//! past the first 1024 bytes makes a browser change the encoding, so the
//! rest is prescanned too when a fast search finds one that may declare it.

use std::borrow::Cow;
use std::fmt;
use std::ops::Range;

use crate::lanes;
use encoding_rs::{
    DecoderResult, Encoding, UTF_8, UTF_16BE, UTF_16LE, WINDOWS_1252, X_USER_DEFINED,
};

/// Where a document's encoding came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EncodingSource {
    /// A byte order mark.
    Bom,
    /// The transport layer: a MIME part's charset, or `--encoding`.
    Transport,
    /// A `<meta>` element, or `@charset` in CSS.
    Declared,
    /// Nothing said; the bytes are valid UTF-8.
    Utf8Default,
    /// Nothing said; the bytes are not UTF-8.
    Fallback,
}

impl fmt::Display for EncodingSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            EncodingSource::Bom => "byte order mark",
            EncodingSource::Transport => "transport",
            EncodingSource::Declared => "declared in the document",
            EncodingSource::Utf8Default => "valid utf-8",
            EncodingSource::Fallback => "fallback",
        })
    }
}

/// A document's encoding and its byte order mark.
#[derive(Debug, Clone, Copy)]
pub struct Sniffed {
    /// The encoding.
    pub encoding: &'static Encoding,
    /// The length of the byte order mark, 0 if none.
    pub bom_len: usize,
    /// Where it came from (read by the tests of the prescan).
    #[cfg_attr(not(feature = "_internal"), allow(dead_code))]
    pub source: EncodingSource,
}

/// The encoding of an HTML document, for the tests ([`sniff_decode_html`] decodes too).
#[cfg(any(test, feature = "_internal"))]
pub fn sniff_html(bytes: &[u8], transport: Option<&'static Encoding>) -> Sniffed {
    sniff_with(bytes, transport, meta_declared, WINDOWS_1252)
}

/// A style sheet decoded by BOM, `@charset` or transport (CSS Syntax 3.2), else UTF-8 or windows-1252.
pub fn sniff_decode_css<'a>(
    bytes: &'a [u8],
    transport: Option<&'static Encoding>,
) -> (Sniffed, Cow<'a, str>) {
    sniff_decode_with(bytes, transport, charset_rule, WINDOWS_1252)
}

/// What a style sheet's `@charset` declares: the exact bytes `@charset "` first (CSS Syntax 3.2).
fn charset_rule(head: &[u8]) -> Option<&'static Encoding> {
    let rest = head.strip_prefix(b"@charset \"")?;
    let end = rest.iter().position(|&b| b == b'"')?;
    if rest.get(end + 1) != Some(&b';') {
        return None;
    }
    Encoding::for_label(&rest[..end]).map(|e| {
        if e == UTF_16BE || e == UTF_16LE {
            UTF_8
        } else {
            e
        }
    })
}

/// A text that declares no encoding decoded by BOM or transport, else UTF-8 or windows-1252.
pub fn sniff_decode_text<'a>(
    bytes: &'a [u8],
    transport: Option<&'static Encoding>,
) -> (Sniffed, Cow<'a, str>) {
    sniff_decode_with(bytes, transport, |_| None, WINDOWS_1252)
}

/// The one order every format sniffs in: byte order mark, transport,
/// `declared` (the format's own rule), then UTF-8 if the bytes are, else
/// `fallback` (windows-1252; UTF-8 for XML, appendix F).
#[cfg(any(test, feature = "_internal"))]
pub fn sniff_with(
    bytes: &[u8],
    transport: Option<&'static Encoding>,
    declared: impl Fn(&[u8]) -> Option<&'static Encoding>,
    fallback: &'static Encoding,
) -> Sniffed {
    stated(bytes, transport, declared).unwrap_or_else(|| {
        // (encoding_rs's validator, the one decoding takes: vector code.)
        match Encoding::utf8_valid_up_to(bytes) == bytes.len() {
            true => undeclared(UTF_8, EncodingSource::Utf8Default),
            false => undeclared(fallback, EncodingSource::Fallback),
        }
    })
}

/// [`sniff_with`] and [`decode`] at once: bytes stating nothing are checked as decoded.
pub fn sniff_decode_with<'a>(
    bytes: &'a [u8],
    transport: Option<&'static Encoding>,
    declared: impl Fn(&[u8]) -> Option<&'static Encoding>,
    fallback: &'static Encoding,
) -> (Sniffed, Cow<'a, str>) {
    if let Some(sniffed) = stated(bytes, transport, declared) {
        return (sniffed, decode(bytes, &sniffed));
    }
    match UTF_8.decode_without_bom_handling_and_without_replacement(bytes) {
        Some(text) => (undeclared(UTF_8, EncodingSource::Utf8Default), text),
        None => {
            let sniffed = undeclared(fallback, EncodingSource::Fallback);
            (sniffed, decode(bytes, &sniffed))
        }
    }
}

/// [`sniff_decode_with`] for an HTML document ([`sniff_html`]).
pub fn sniff_decode_html<'a>(
    bytes: &'a [u8],
    transport: Option<&'static Encoding>,
) -> (Sniffed, Cow<'a, str>) {
    sniff_decode_with(bytes, transport, meta_declared, WINDOWS_1252)
}

/// An HTML document's encoding as its first bytes tell it: settled, or left open.
pub enum HtmlSniff<'a> {
    /// The encoding, and the text decoded by it.
    Settled(Sniffed, Cow<'a, str>),
    /// Nothing in the first [`PRESCAN_BYTES`] states the encoding and the bytes
    /// are UTF-8 (`text`): UTF-8 unless a `<meta>` from `late_from` on says else,
    /// found through [`MetaSeen`] and [`late_meta_may_declare`].
    Unsettled {
        /// The bytes, as text.
        text: &'a str,
        /// Where the prescan of the first bytes left off.
        late_from: usize,
    },
}

/// [`sniff_decode_html`], leaving a late `<meta>` to the rewrite when the bytes are UTF-8.
pub fn sniff_decode_html_early<'a>(
    bytes: &'a [u8],
    transport: Option<&'static Encoding>,
) -> HtmlSniff<'a> {
    if transport.is_none()
        && Encoding::for_bom(bytes).is_none()
        && let Prescan::Unfinished(late_from) = prescan_until(bytes, 0, PRESCAN_BYTES)
    {
        if let Some(Cow::Borrowed(text)) =
            UTF_8.decode_without_bom_handling_and_without_replacement(bytes)
        {
            return HtmlSniff::Unsettled { text, late_from };
        }
        // Not UTF-8: searched now.
        let sniffed = match meta_declares_after(bytes, late_from) {
            true => declared_after(bytes, late_from).map(Sniffed::declared),
            false => None,
        }
        .unwrap_or_else(|| undeclared(WINDOWS_1252, EncodingSource::Fallback));
        return HtmlSniff::Settled(sniffed, decode(bytes, &sniffed));
    }
    let (sniffed, text) = sniff_decode_html(bytes, transport);
    HtmlSniff::Settled(sniffed, text)
}

impl Sniffed {
    /// UTF-8, as an unsettled document is read until a late `<meta>` says otherwise.
    pub fn utf8_default() -> Sniffed {
        undeclared(UTF_8, EncodingSource::Utf8Default)
    }

    /// `encoding`, as a `<meta>` declares it ([`meta_declared`]).
    pub fn declared(encoding: &'static Encoding) -> Sniffed {
        undeclared(encoding, EncodingSource::Declared)
    }
}

/// What the tokenizer saw of `<meta` in the runs of script and RAWTEXT it
/// read: the ranges it tested and the `<meta` starts in them (byte offsets).
#[derive(Debug, Default)]
pub struct MetaSeen {
    /// Where every position was tested, in order, apart.
    covered: Vec<Range<usize>>,
    /// The `<meta` starts found there, in order (at most [`MetaSeen::MAX_STARTS`]).
    starts: Vec<usize>,
    /// Whether more was seen than is kept: then nothing of it counts.
    overflow: bool,
}

impl MetaSeen {
    /// The `<meta` starts seen (read by the tests).
    #[cfg(test)]
    pub(crate) fn starts(&self) -> &[usize] {
        &self.starts
    }

    /// Where every position was tested (read by the tests).
    #[cfg(test)]
    pub(crate) fn covered(&self) -> &[Range<usize>] {
        &self.covered
    }

    /// How many `<meta` starts are kept; past that [`meta_declared`] searches all.
    const MAX_STARTS: usize = 64;
    /// How many ranges are kept; past that [`meta_declared`] searches all.
    const MAX_RANGES: usize = 1 << 16;

    /// Every position in `range` was tested (its `<meta` starts given to
    /// [`MetaSeen::saw`]); a range a few `<`-free bytes after the last extends it.
    pub(crate) fn cover(&mut self, bytes: &[u8], range: Range<usize>) {
        if self.overflow || range.is_empty() {
            return;
        }
        if let Some(last) = self.covered.last_mut() {
            if range.start < last.end {
                // Not in order: a second reading of the text.
                self.overflow = true;
                return;
            }
            let gap = &bytes[last.end..range.start];
            if gap.len() <= 16 && !gap.contains(&b'<') {
                last.end = range.end;
                return;
            }
        }
        if self.covered.len() == Self::MAX_RANGES {
            self.overflow = true;
            return;
        }
        self.covered.push(range);
    }

    /// A `<meta` start at `at`, in a range [`MetaSeen::cover`] is given.
    pub(crate) fn saw(&mut self, at: usize) {
        if self.starts.len() == Self::MAX_STARTS {
            self.overflow = true;
        } else {
            self.starts.push(at);
        }
    }
}

/// Whether a `<meta` from `from` on may declare an encoding, skipping what the tokenizer tested.
pub fn late_meta_may_declare(bytes: &[u8], from: usize, seen: &MetaSeen) -> bool {
    if seen.overflow {
        return meta_declares_after(bytes, from);
    }
    // The positions from `from` on that no range covers.
    let mut gaps = Vec::with_capacity(seen.covered.len() + 1);
    let mut at = from;
    for range in &seen.covered {
        if range.start > at {
            gaps.push(at..range.start);
        }
        at = at.max(range.end);
    }
    gaps.push(at..bytes.len());
    let searched = gaps
        .into_iter()
        .flat_map(|gap| meta_starts(bytes, gap.start, gap.end));
    let read = seen.starts.iter().copied().filter(|&i| i >= from);
    declares_among(bytes, from, searched.chain(read))
}

/// The encoding the BOM, transport or `declared` states, in that order.
fn stated(
    bytes: &[u8],
    transport: Option<&'static Encoding>,
    declared: impl Fn(&[u8]) -> Option<&'static Encoding>,
) -> Option<Sniffed> {
    if let Some((encoding, bom_len)) = Encoding::for_bom(bytes) {
        return Some(Sniffed {
            encoding,
            bom_len,
            source: EncodingSource::Bom,
        });
    }
    if let Some(encoding) = transport {
        return Some(undeclared(encoding, EncodingSource::Transport));
    }
    declared(bytes).map(|encoding| undeclared(encoding, EncodingSource::Declared))
}

/// An encoding with no byte order mark, from `source`.
fn undeclared(encoding: &'static Encoding, source: EncodingSource) -> Sniffed {
    Sniffed {
        encoding,
        bom_len: 0,
        source,
    }
}

/// Decodes the bytes after the BOM, borrowing them when they are valid UTF-8.
pub fn decode<'a>(bytes: &'a [u8], sniffed: &Sniffed) -> Cow<'a, str> {
    sniffed
        .encoding
        .decode_without_bom_handling(&bytes[sniffed.bom_len..])
        .0
}

/// Maps sorted decoded offsets (on character boundaries) to offsets in
/// `bytes`, decoding again in bulk then a byte at a time, so each lands right
/// after its character's bytes; a malformed sequence counts as its U+FFFD.
pub fn byte_offsets(bytes: &[u8], sniffed: &Sniffed, decoded_offsets: &[usize]) -> Vec<usize> {
    // The most UTF-8 one input byte can make a decoder write at once.
    const MARGIN: usize = 16;
    let src = &bytes[sniffed.bom_len..];
    let mut decoder = sniffed.encoding.new_decoder_without_bom_handling();
    let mut scratch = vec![0u8; 4096];
    let (mut read, mut written) = (0usize, 0usize);
    let mut out = Vec::with_capacity(decoded_offsets.len());
    for &target in decoded_offsets {
        while written < target && read < src.len() {
            let gap = target - written;
            // In bulk while far from the target; else one byte at a time.
            let (input, room) = if gap > 2 * MARGIN {
                (&src[read..], (gap - MARGIN).min(scratch.len()))
            } else {
                (&src[read..read + 1], MARGIN * 2)
            };
            let (result, r, w) =
                decoder.decode_to_utf8_without_replacement(input, &mut scratch[..room], false);
            read += r;
            written += w;
            match result {
                DecoderResult::Malformed(_, extra) => {
                    // Replacement writes U+FFFD; the bytes after the bad sequence go with what follows.
                    written += '\u{fffd}'.len_utf8();
                    if written >= target {
                        read -= usize::from(extra).min(read);
                    }
                }
                DecoderResult::InputEmpty | DecoderResult::OutputFull => {
                    if r == 0 && w == 0 {
                        break;
                    }
                }
            }
        }
        out.push(sniffed.bom_len + read);
    }
    out
}

/// Encodes text in `encoding`, what it cannot hold as numeric character references.
pub fn encode<'a>(text: &'a str, encoding: &'static Encoding) -> Cow<'a, [u8]> {
    if encoding == UTF_16LE {
        Cow::Owned(text.encode_utf16().flat_map(u16::to_le_bytes).collect())
    } else if encoding == UTF_16BE {
        Cow::Owned(text.encode_utf16().flat_map(u16::to_be_bytes).collect())
    } else {
        encoding.encode(text).0
    }
}

/// How many bytes the prescan reads ("prescan a byte stream", step 2).
pub const PRESCAN_BYTES: usize = 1024;

/// The encoding a document's `<meta>` declares: the prescan of its first
/// [`PRESCAN_BYTES`], else of the rest where `meta_declares_after` finds one,
/// as a later `<meta>` "changes the encoding" (HTML 13.2.6.4.4).
pub fn meta_declared(bytes: &[u8]) -> Option<&'static Encoding> {
    match prescan_until(bytes, 0, PRESCAN_BYTES) {
        Prescan::Found(encoding) => Some(encoding),
        Prescan::Stopped => None,
        Prescan::Unfinished(at) if meta_declares_after(bytes, at) => declared_after(bytes, at),
        Prescan::Unfinished(_) => None,
    }
}

/// [`meta_declared`]'s answer from `at` on, where the prescan of the first bytes left off.
pub fn declared_after(bytes: &[u8], at: usize) -> Option<&'static Encoding> {
    match prescan_until(bytes, at, bytes.len()) {
        Prescan::Found(encoding) => Some(encoding),
        Prescan::Stopped | Prescan::Unfinished(_) => None,
    }
}

/// Whether a `<meta` from `at` on declares an encoding as the prescan reads
/// it; also true (leaving it to the prescan) when a `<meta>` runs out of bytes
/// or the tags read outgrow the document, as overlapping tags would repeat.
fn meta_declares_after(bytes: &[u8], at: usize) -> bool {
    declares_among(bytes, at, meta_starts(bytes, at, bytes.len()))
}

/// [`meta_declares_after`] over the `<m` pairs `starts` from `at` on, in any order.
fn declares_among(bytes: &[u8], at: usize, starts: impl Iterator<Item = usize>) -> bool {
    let mut budget = bytes.len().saturating_sub(at);
    for start in starts {
        if !is_meta_start(bytes, start) {
            continue;
        }
        let mut end = start + 5;
        match meta_charset(bytes, &mut end) {
            MetaResult::Found(_) | MetaResult::OutOfBytes => return true,
            MetaResult::NotFound => {}
        }
        match budget.checked_sub(end - start) {
            Some(left) => budget = left,
            None => return true,
        }
    }
    false
}

/// Where `<m` or `<M` stands in `bytes` in `from..to`, in order: every
/// `<meta` starts with one; one pass tests [`lanes::LANES`] positions at once.
fn meta_starts(bytes: &[u8], mut from: usize, to: usize) -> impl Iterator<Item = usize> + '_ {
    std::iter::from_fn(move || {
        let at = lanes::first(bytes, from, to, |a, b, _| {
            (a == b'<') & ((b | 0x20) == b'm')
        })?;
        from = at + 1;
        Some(at)
    })
}

/// The HTML standard's prescan over all of `bytes`, every tag read: what [`meta_declared`] answers.
#[cfg(any(test, feature = "_internal"))]
pub fn prescan(bytes: &[u8]) -> Option<&'static Encoding> {
    match prescan_until(bytes, 0, bytes.len()) {
        Prescan::Found(encoding) => Some(encoding),
        Prescan::Stopped | Prescan::Unfinished(_) => None,
    }
}

/// Where a prescan ended.
enum Prescan {
    /// A `<meta>` declared this encoding.
    Found(&'static Encoding),
    /// The bytes ran out inside a construct: the prescan gives up.
    Stopped,
    /// No construct starts before the limit; the next one may start here.
    Unfinished(usize),
}

/// The prescan of the constructs starting in `from..limit`, each read to its end.
fn prescan_until(bytes: &[u8], from: usize, limit: usize) -> Prescan {
    let starts = |i: usize, s: &[u8]| {
        bytes.len() >= i + s.len() && bytes[i..i + s.len()].eq_ignore_ascii_case(s)
    };
    let mut i = from;
    while i < bytes.len() {
        if bytes[i] != b'<' {
            match memchr::memchr(b'<', &bytes[i..]) {
                Some(p) => i += p,
                None => break,
            }
        }
        if i >= limit {
            return Prescan::Unfinished(i);
        }
        if starts(i, b"<!--") {
            // To the end of the first "-->" whose ">" follows the "<".
            let mut j = i + 2;
            loop {
                j += 1;
                if j >= bytes.len() {
                    return Prescan::Stopped;
                }
                if bytes[j] == b'>' && bytes[j - 1] == b'-' && bytes[j - 2] == b'-' {
                    break;
                }
            }
            i = j;
        } else if is_meta_start(bytes, i) {
            i += 5;
            match meta_charset(bytes, &mut i) {
                MetaResult::Found(encoding) => return Prescan::Found(encoding),
                MetaResult::NotFound => {}
                MetaResult::OutOfBytes => return Prescan::Stopped,
            }
        } else if bytes[i] == b'<'
            && (bytes.get(i + 1).is_some_and(u8::is_ascii_alphabetic)
                || (bytes.get(i + 1) == Some(&b'/')
                    && bytes.get(i + 2).is_some_and(u8::is_ascii_alphabetic)))
        {
            while i < bytes.len() && !bytes[i].is_ascii_whitespace() && bytes[i] != b'>' {
                i += 1;
            }
            loop {
                match attribute(bytes, &mut i) {
                    Attr::Found(..) => {}
                    Attr::None => break,
                    Attr::OutOfBytes => return Prescan::Stopped,
                }
            }
        } else if starts(i, b"<!") || starts(i, b"</") || starts(i, b"<?") {
            match memchr::memchr(b'>', &bytes[i..]) {
                Some(p) => i += p,
                None => return Prescan::Stopped,
            }
        }
        i += 1;
    }
    Prescan::Unfinished(bytes.len())
}

/// Whether `<meta` and a white space or `/` start at `i`, in any case.
pub(crate) fn is_meta_start(bytes: &[u8], i: usize) -> bool {
    bytes
        .get(i..i + 5)
        .is_some_and(|s| s.eq_ignore_ascii_case(b"<meta"))
        && bytes
            .get(i + 5)
            .is_some_and(|&b| b.is_ascii_whitespace() || b == b'/')
}

enum MetaResult {
    Found(&'static Encoding),
    NotFound,
    OutOfBytes,
}

/// The `<meta>` branch of the prescan, from just after `<meta`.
fn meta_charset(bytes: &[u8], i: &mut usize) -> MetaResult {
    let mut seen = [false; 3];
    let mut got_pragma = false;
    let mut need_pragma: Option<bool> = None;
    let mut charset: Option<&'static Encoding> = None;
    loop {
        let (name, value) = match attribute(bytes, i) {
            Attr::Found(name, value) => (&bytes[name], &bytes[value]),
            Attr::None => break,
            Attr::OutOfBytes => return MetaResult::OutOfBytes,
        };
        let Some(which) = [&b"http-equiv"[..], b"content", b"charset"]
            .iter()
            .position(|n| n.eq_ignore_ascii_case(name))
        else {
            continue;
        };
        if std::mem::replace(&mut seen[which], true) {
            continue;
        }
        match which {
            0 => got_pragma |= value.eq_ignore_ascii_case(b"content-type"),
            1 if charset.is_none() => {
                if let Some(found) = charset_from_content(value) {
                    charset = Some(found);
                    need_pragma = Some(true);
                }
            }
            1 => {}
            _ => {
                charset = Encoding::for_label(value);
                need_pragma = Some(false);
            }
        }
    }
    match (need_pragma, charset) {
        (None, _) | (_, None) => MetaResult::NotFound,
        (Some(true), _) if !got_pragma => MetaResult::NotFound,
        (Some(_), Some(encoding)) => {
            MetaResult::Found(if encoding == UTF_16BE || encoding == UTF_16LE {
                UTF_8
            } else if encoding == X_USER_DEFINED {
                WINDOWS_1252
            } else {
                encoding
            })
        }
    }
}

/// An attribute as the prescan reads it: where its name and value lie, as written.
enum Attr {
    Found(Range<usize>, Range<usize>),
    None,
    OutOfBytes,
}

/// The prescan's "get an attribute".
fn attribute(bytes: &[u8], i: &mut usize) -> Attr {
    let at = |i: usize| bytes.get(i).copied();
    while at(*i).is_some_and(|b| b.is_ascii_whitespace() || b == b'/') {
        *i += 1;
    }
    let Some(first) = at(*i) else {
        return Attr::OutOfBytes;
    };
    if first == b'>' {
        return Attr::None;
    }
    // The name: a first `=` is part of it.
    let start = *i;
    *i += 1;
    let name_ends = |b: u8| b.is_ascii_whitespace() || matches!(b, b'=' | b'/' | b'>');
    match bytes[*i..].iter().position(|&b| name_ends(b)) {
        Some(n) => *i += n,
        None => return Attr::OutOfBytes,
    }
    let name = start..*i;
    let none = |at: usize| Attr::Found(name.clone(), at..at);
    if bytes[*i].is_ascii_whitespace() {
        // Spaces, then "=" or the attribute ends without a value.
        while at(*i).is_some_and(|b| b.is_ascii_whitespace()) {
            *i += 1;
        }
        match at(*i) {
            None => return Attr::OutOfBytes,
            Some(b'=') => {}
            Some(_) => return none(*i),
        }
    } else if bytes[*i] != b'=' {
        return none(*i);
    }
    *i += 1;
    // The value.
    while at(*i).is_some_and(|b| b.is_ascii_whitespace()) {
        *i += 1;
    }
    match at(*i) {
        None => Attr::OutOfBytes,
        Some(q @ (b'"' | b'\'')) => {
            let from = *i + 1;
            let Some(n) = memchr::memchr(q, &bytes[from..]) else {
                *i = bytes.len();
                return Attr::OutOfBytes;
            };
            *i = from + n + 1;
            Attr::Found(name, from..from + n)
        }
        Some(b'>') => none(*i),
        Some(_) => {
            let from = *i;
            match bytes[from..]
                .iter()
                .position(|&b| b.is_ascii_whitespace() || b == b'>')
            {
                Some(n) => {
                    *i = from + n;
                    Attr::Found(name, from..*i)
                }
                None => {
                    *i = bytes.len();
                    Attr::OutOfBytes
                }
            }
        }
    }
}

/// The HTML standard's "extract a character encoding from a meta element".
fn charset_from_content(content: &[u8]) -> Option<&'static Encoding> {
    let mut i = 0;
    loop {
        let found = content[i..]
            .windows(7)
            .position(|w| w.eq_ignore_ascii_case(b"charset"))?;
        i += found + 7;
        while content.get(i).is_some_and(|&b| b.is_ascii_whitespace()) {
            i += 1;
        }
        if content.get(i) != Some(&b'=') {
            continue;
        }
        i += 1;
        while content.get(i).is_some_and(|&b| b.is_ascii_whitespace()) {
            i += 1;
        }
        return match content.get(i) {
            Some(&q @ (b'"' | b'\'')) => {
                let rest = &content[i + 1..];
                let end = rest.iter().position(|&b| b == q)?;
                Encoding::for_label(&rest[..end])
            }
            Some(_) => {
                let rest = &content[i..];
                let end = rest
                    .iter()
                    .position(|&b| b.is_ascii_whitespace() || b == b';')
                    .unwrap_or(rest.len());
                Encoding::for_label(&rest[..end])
            }
            None => None,
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prescan_reads_meta_charset_and_pragma() {
        assert_eq!(
            prescan(b"<meta charset=\"shift_jis\">"),
            Some(encoding_rs::SHIFT_JIS)
        );
        assert_eq!(
            prescan(b"<meta http-equiv=Content-Type content='text/html; charset=iso-8859-2'>"),
            Some(encoding_rs::ISO_8859_2)
        );
        assert_eq!(
            prescan(b"<meta content='text/html; charset=iso-8859-2'>"),
            None
        );
        assert_eq!(prescan(b"<!-- <meta charset=koi8-r> --><p>"), None);
        assert_eq!(prescan(b"<meta charset=utf-16le>"), Some(UTF_8));
    }

    /// Pieces of documents that hide a `<meta>` or not when joined.
    const PIECES: &[&str] = &[
        "<meta charset=koi8-r>",
        "<META http-equiv=Content-Type content='text/html; charset=shift_jis'>",
        "<meta content=\"charset=iso-8859-2\" http-equiv=content-type>",
        "<meta charset=nonsense>",
        "<meta name=x>",
        "<meta",
        "<!--",
        "-->",
        "--",
        "<p title=\"",
        "<a href='",
        "\"",
        "'",
        ">",
        "<",
        "<!x",
        "</",
        "</p",
        "<?",
        " ",
        "=",
        "/",
        "\n",
        "x",
        "<script>if (a<b) { s = '",
    ];

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(3000))]
        #[test]
        fn meta_declared_answers_as_the_whole_prescan(
            pieces in proptest::collection::vec(proptest::sample::select(PIECES), 0..24),
            pad in proptest::sample::select(vec![0usize, 990, 1015, 1020, 1024, 1030]),
        ) {
            let doc = " ".repeat(pad) + &pieces.concat();
            proptest::prop_assert_eq!(meta_declared(doc.as_bytes()), prescan(doc.as_bytes()));
        }
    }

    proptest::proptest! {
        #[test]
        fn sniffing_as_it_decodes_answers_as_sniffing_then_decoding(
            pieces in proptest::collection::vec(proptest::sample::select(vec![
                &b"a"[..], b"\xc3\xa9", b"\xe9", b"\xc3", b"\xef\xbb\xbf", b"\xff\xfe",
                b"<meta charset=latin1>", b"<meta charset=utf-8>", b"\0", b"<", b" ",
            ]), 0..16),
            transport in proptest::sample::select(vec![None, Some(UTF_8), Some(WINDOWS_1252)]),
        ) {
            let doc = pieces.concat();
            let sniffed = sniff_html(&doc, transport);
            let (both, text) = sniff_decode_html(&doc, transport);
            proptest::prop_assert_eq!(both.encoding, sniffed.encoding);
            proptest::prop_assert_eq!(both.bom_len, sniffed.bom_len);
            proptest::prop_assert_eq!(both.source, sniffed.source);
            proptest::prop_assert_eq!(text, decode(&doc, &sniffed));
        }
    }

    proptest::proptest! {
        #[test]
        fn meta_starts_are_every_pair_in_order(
            bytes in proptest::collection::vec(
                proptest::sample::select(b"<<mMnx ".to_vec()), 0..200),
        ) {
            let bytewise: Vec<usize> = (0..bytes.len())
                .filter(|&i| bytes[i] == b'<' && bytes.get(i + 1).is_some_and(|&b| b == b'm' || b == b'M'))
                .collect();
            proptest::prop_assert_eq!(meta_starts(&bytes, 0, bytes.len()).collect::<Vec<_>>(), bytewise);
        }
    }

    #[test]
    fn overlapping_meta_tags_after_the_first_1024_bytes_answer_as_the_prescan() {
        // Each `<meta` stands in the attributes of the one before.
        let doc = " ".repeat(1100) + &"<meta a=x ".repeat(5000) + ">";
        assert_eq!(meta_declared(doc.as_bytes()), None);
        let doc = doc + "<meta charset=koi8-r>";
        assert_eq!(meta_declared(doc.as_bytes()), Some(encoding_rs::KOI8_R));
        let unclosed = " ".repeat(1100) + &"<meta a='<meta ".repeat(5000);
        assert_eq!(meta_declared(unclosed.as_bytes()), None);
    }

    #[test]
    fn only_the_positions_the_tokenizer_did_not_test_are_searched() {
        let doc = format!(
            "{}<script>x<meta charset=koi8-r></script><p>",
            " ".repeat(1030)
        );
        let meta = doc.find("<meta").unwrap();
        let script = doc.find("<script>").unwrap() + 8..doc.find("</script>").unwrap();
        let HtmlSniff::Unsettled { late_from, .. } = sniff_decode_html_early(doc.as_bytes(), None)
        else {
            panic!("settled before the rewrite");
        };
        assert_eq!(late_from, 1030);
        let mut seen = MetaSeen::default();
        seen.cover(doc.as_bytes(), script.clone());
        seen.saw(meta);
        assert!(late_meta_may_declare(doc.as_bytes(), late_from, &seen));
        // Where the tokenizer tested, only what it handed over is read.
        let mut unseen = MetaSeen::default();
        unseen.cover(doc.as_bytes(), script);
        assert!(!late_meta_may_declare(doc.as_bytes(), late_from, &unseen));
        // Elsewhere the search finds it.
        assert!(late_meta_may_declare(
            doc.as_bytes(),
            late_from,
            &MetaSeen::default()
        ));
        // And nothing before where the prescan left off counts.
        assert!(!late_meta_may_declare(
            doc.as_bytes(),
            meta + 1,
            &MetaSeen::default()
        ));
    }

    #[test]
    fn ranges_a_few_bytes_apart_with_no_lt_between_are_one() {
        let bytes = b"aaaa<bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb";
        let mut seen = MetaSeen::default();
        seen.cover(bytes, 0..2);
        seen.cover(bytes, 3..4);
        seen.cover(bytes, 6..8);
        seen.cover(bytes, 30..32);
        assert_eq!(seen.covered, [0..4, 6..8, 30..32]);
        seen.cover(bytes, 31..33);
        assert!(seen.overflow);
        let mut seen = MetaSeen::default();
        for at in 0..=MetaSeen::MAX_STARTS {
            seen.saw(at);
        }
        assert!(seen.overflow);
    }

    #[test]
    fn byte_offsets_follow_multibyte_text() {
        let bytes = "a\u{e9}b<x>".as_bytes();
        let sniffed = sniff_html(bytes, Some(UTF_8));
        assert_eq!(
            byte_offsets(bytes, &sniffed, &[0, 1, 3, 4]),
            vec![0, 1, 3, 4]
        );
        let (sjis, _, _) = encoding_rs::SHIFT_JIS.encode("\u{65e5}\u{672c}<a href=x>");
        let sniffed = sniff_html(&sjis, Some(encoding_rs::SHIFT_JIS));
        let text = decode(&sjis, &sniffed);
        let x = text.find('x').unwrap();
        assert_eq!(
            byte_offsets(&sjis, &sniffed, &[x]),
            vec![sjis.iter().position(|&b| b == b'x').unwrap()]
        );
    }

    #[test]
    fn byte_offsets_end_after_a_two_byte_character() {
        // windows-1252 `café>`: the decoded `é` is two bytes, the source's one.
        let bytes = b"<a href=p?x=caf\xe9>";
        let sniffed = sniff_html(bytes, Some(WINDOWS_1252));
        let text = decode(bytes, &sniffed);
        let end = text.find('>').unwrap();
        assert_eq!(byte_offsets(bytes, &sniffed, &[8, end]), vec![8, 16]);
        // Invalid UTF-8: the U+FFFD of `\xff` is three bytes, the source's one.
        let bytes = b"a\xffb\xc3\xa9\xff>";
        let sniffed = sniff_html(bytes, Some(UTF_8));
        let text = decode(bytes, &sniffed);
        assert_eq!(text, "a\u{fffd}b\u{e9}\u{fffd}>");
        let offsets: Vec<usize> = text.char_indices().map(|(i, _)| i).collect();
        assert_eq!(
            byte_offsets(bytes, &sniffed, &offsets),
            vec![0, 1, 2, 3, 5, 6]
        );
    }

    #[test]
    fn encode_writes_references_for_what_the_encoding_cannot_hold() {
        assert_eq!(&*encode("a\u{2603}", WINDOWS_1252), b"a&#9731;");
        assert_eq!(&*encode("a", UTF_16LE), b"a\0");
    }
}
