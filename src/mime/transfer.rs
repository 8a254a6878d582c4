//! Content-Transfer-Encodings (RFC 2045 section 6), decoded and encoded
//! again the way the body was written: its line endings, its base64 line
//! length, and whether it ended with a line break.
//!
//! Quoted-printable is written here rather than with a crate: relink must
//! keep the file's own line endings (CRLF in MHTML, LF in a Unix mbox)
//! through a decode and encode, and write a line that starts with `From `
//! as `=46rom ` so that no mbox reader takes it for a separator.

use std::borrow::Cow;
use std::ops::Range;

use base64::Engine;
use base64::engine::general_purpose::{GeneralPurpose, GeneralPurposeConfig};
use base64::engine::{DecodePaddingMode, general_purpose};

/// The longest encoded line quoted-printable allows (RFC 2045 6.7), soft
/// break included.
pub const QP_LINE: usize = 76;

/// The longest line 7bit and 8bit bodies allow (RFC 5322 2.1.1), without
/// its CRLF.
pub const MAX_LINE_OCTETS: usize = 998;

/// A Content-Transfer-Encoding.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TransferEncoding {
    /// `7bit`, the default.
    SevenBit,
    /// `8bit`.
    EightBit,
    /// `binary`.
    Binary,
    /// `quoted-printable`.
    QuotedPrintable,
    /// `base64`.
    Base64,
}

impl TransferEncoding {
    /// The encoding a header value names; `None` for one relink does not
    /// know (the part is then left alone).
    pub fn from_header(value: Option<&str>) -> Option<Self> {
        let Some(value) = value else {
            return Some(TransferEncoding::SevenBit);
        };
        match value.trim().to_ascii_lowercase().as_str() {
            "" | "7bit" => Some(TransferEncoding::SevenBit),
            "8bit" => Some(TransferEncoding::EightBit),
            "binary" => Some(TransferEncoding::Binary),
            "quoted-printable" => Some(TransferEncoding::QuotedPrintable),
            "base64" => Some(TransferEncoding::Base64),
            _ => None,
        }
    }
}

/// How an encoded body was laid out, to write a new one alike.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Layout {
    /// `\r\n` or `\n`.
    pub line_ending: &'static [u8],
    /// Whether the body ended with a line ending.
    pub final_newline: bool,
    /// The length of a full base64 line.
    pub base64_line: usize,
}

impl Layout {
    /// The layout of an encoded body.
    pub fn of(body: &[u8]) -> Self {
        let crlf = match memchr::memchr(b'\n', body) {
            Some(i) => i > 0 && body[i - 1] == b'\r',
            None => true,
        };
        let first_line = body
            .split(|&b| b == b'\n')
            .next()
            .map_or(0, |l| l.strip_suffix(b"\r").unwrap_or(l).len());
        Layout {
            line_ending: if crlf { b"\r\n" } else { b"\n" },
            final_newline: body.ends_with(b"\n"),
            base64_line: if (4..=QP_LINE).contains(&first_line) && first_line % 4 == 0 {
                first_line
            } else {
                QP_LINE
            },
        }
    }
}

/// A transfer decoding that failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct DecodeError(String);

const BASE64: GeneralPurpose = GeneralPurpose::new(
    &base64::alphabet::STANDARD,
    GeneralPurposeConfig::new().with_decode_padding_mode(DecodePaddingMode::Indifferent),
);

/// Decodes a body; an identity encoding borrows it.
pub fn decode<'a>(
    body: &'a [u8],
    encoding: TransferEncoding,
    layout: &Layout,
) -> Result<Cow<'a, [u8]>, DecodeError> {
    match encoding {
        TransferEncoding::SevenBit | TransferEncoding::EightBit | TransferEncoding::Binary => {
            Ok(Cow::Borrowed(body))
        }
        TransferEncoding::Base64 => decode_base64(body).map(Cow::Owned),
        TransferEncoding::QuotedPrintable => Ok(Cow::Owned(decode_qp(body, layout.line_ending))),
    }
}

/// Decodes base64, white space ignored, a bounded chunk at a time (no copy
/// of the whole body without its line breaks).
fn decode_base64(body: &[u8]) -> Result<Vec<u8>, DecodeError> {
    const CHUNK: usize = 1 << 16;
    let bad = |e: base64::DecodeError| DecodeError(format!("bad base64: {e}"));
    let mut out = Vec::with_capacity(body.len() / 4 * 3 + 3);
    let mut chunk = Vec::with_capacity(CHUNK + 4);
    for &b in body {
        if b.is_ascii_whitespace() {
            continue;
        }
        chunk.push(b);
        // Whole groups of four, and never a padded group mid-way: a chunk
        // is decoded only when it ends on a group without padding.
        if chunk.len() >= CHUNK && chunk.len() % 4 == 0 && b != b'=' {
            BASE64.decode_vec(&chunk, &mut out).map_err(bad)?;
            chunk.clear();
        }
    }
    BASE64.decode_vec(&chunk, &mut out).map_err(bad)?;
    Ok(out)
}

/// Encodes a body as `layout` says.
pub fn encode(data: &[u8], encoding: TransferEncoding, layout: &Layout) -> Vec<u8> {
    match encoding {
        TransferEncoding::SevenBit | TransferEncoding::EightBit | TransferEncoding::Binary => {
            data.to_vec()
        }
        TransferEncoding::Base64 => {
            let text = general_purpose::STANDARD.encode(data);
            let mut out = Vec::with_capacity(text.len() + text.len() / layout.base64_line * 2 + 2);
            for (i, line) in text.as_bytes().chunks(layout.base64_line).enumerate() {
                if i > 0 {
                    out.extend_from_slice(layout.line_ending);
                }
                out.extend_from_slice(line);
            }
            if layout.final_newline {
                out.extend_from_slice(layout.line_ending);
            }
            out
        }
        TransferEncoding::QuotedPrintable => encode_qp(data, layout),
    }
}

fn hex_value(b: u8) -> Option<u8> {
    (b as char).to_digit(16).map(|d| d as u8)
}

/// One line of a quoted-printable body as it is stored: its text (without
/// trailing white space and without the `=` of a soft break) and its tail
/// (that white space, the `=`, the line ending).
#[derive(Debug, Clone, Copy)]
struct QpLine {
    start: usize,
    content_end: usize,
    end: usize,
    /// Whether the line ends with a hard line break (which decodes to a
    /// line ending); a soft break and the end of the body decode to
    /// nothing.
    hard: bool,
    /// Whether it ends with a soft break.
    soft: bool,
}

/// The stored lines of a quoted-printable body, as [`decode_qp`] reads
/// them: split at each `\n`, a `\r` before it dropped, trailing white space
/// not data (RFC 2045 6.7 rule 3), a final `=` a soft break. The last line
/// is what follows the last `\n` (maybe nothing).
fn qp_lines(body: &[u8]) -> impl Iterator<Item = QpLine> + '_ {
    let mut at = 0;
    let mut done = false;
    std::iter::from_fn(move || {
        if done {
            return None;
        }
        let start = at;
        let (mut content_end, end, newline) = match memchr::memchr(b'\n', &body[at..]) {
            Some(i) => (at + i, at + i + 1, true),
            None => {
                done = true;
                (body.len(), body.len(), false)
            }
        };
        at = end;
        if content_end > start && body[content_end - 1] == b'\r' {
            content_end -= 1;
        }
        while content_end > start && matches!(body[content_end - 1], b' ' | b'\t') {
            content_end -= 1;
        }
        let soft = content_end > start && body[content_end - 1] == b'=';
        if soft {
            content_end -= 1;
        }
        Some(QpLine {
            start,
            content_end,
            end,
            hard: newline && !soft,
            soft,
        })
    })
}

/// Calls `byte` with each decoded byte of a line's text, leniently: a `=`
/// not followed by two hex digits is kept.
fn decode_text(text: &[u8], mut byte: impl FnMut(u8)) {
    let mut i = 0;
    while i < text.len() {
        if text[i] == b'='
            && let (Some(hi), Some(lo)) = (
                text.get(i + 1).copied().and_then(hex_value),
                text.get(i + 2).copied().and_then(hex_value),
            )
        {
            byte(hi << 4 | lo);
            i += 3;
            continue;
        }
        byte(text[i]);
        i += 1;
    }
}

/// Decodes quoted-printable (RFC 2045 6.7), leniently: a `=` not followed
/// by two hex digits or a line end is kept. Hard line breaks become
/// `line_ending`; a soft break (`=` at the end of a line, trailing white
/// space allowed) joins the lines.
pub fn decode_qp(body: &[u8], line_ending: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(body.len());
    for line in qp_lines(body) {
        decode_text(&body[line.start..line.content_end], |b| out.push(b));
        if line.hard {
            out.extend_from_slice(line_ending);
        }
    }
    out
}

/// How a quoted-printable writer put the line breaks of the data.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Breaks {
    /// As hard line breaks (RFC 2045).
    Hard,
    /// Escaped (`=0D=0A`, `=0A`), each followed by a soft break, as
    /// Internet Explorer and Outlook write.
    EscapedThenSoft,
    /// Escaped, the line going on, as .NET writes.
    Escaped,
}

/// How the line breaks of the data are written in `encoded`, if it holds
/// an escaped one.
fn breaks_in(encoded: &[u8]) -> Option<Breaks> {
    let mut from = 0;
    while let Some(i) = memchr::memchr(b'=', &encoded[from..]).map(|i| from + i) {
        from = i + 1;
        if encoded.get(i + 1) == Some(&b'0')
            && encoded
                .get(i + 2)
                .is_some_and(|b| b.eq_ignore_ascii_case(&b'a'))
        {
            let rest = &encoded[i + 3..];
            let line = &rest[..memchr::memchr(b'\n', rest).unwrap_or(rest.len())];
            let line = line.strip_suffix(b"\r").unwrap_or(line);
            let soft_next = line.trim_ascii_end() == b"=";
            return Some(if soft_next {
                Breaks::EscapedThenSoft
            } else {
                Breaks::Escaped
            });
        }
    }
    None
}

/// The width of the widest line a body's writer broke for width, `=`
/// included (capped at [`QP_LINE`]); [`QP_LINE`] when there is none. A
/// soft break after an escaped line break, or at the very end, says
/// nothing of the width.
fn soft_width(body: &[u8]) -> usize {
    let mut lines = qp_lines(body).peekable();
    let mut width = None;
    while let Some(l) = lines.next() {
        let text = &body[l.start..l.content_end];
        let more = lines.peek().is_some_and(|n| n.start < n.end);
        let after_break = text.len() >= 3 && text[text.len() - 3..].eq_ignore_ascii_case(b"=0A");
        if l.soft && more && !after_break {
            width = width.max(Some(l.content_end - l.start + 1));
        }
    }
    width.map_or(QP_LINE, |w| w.clamp(8, QP_LINE))
}

/// Encodes `text` as quoted-printable lines of at most `width` characters,
/// the data's line breaks written as `breaks` says. `ends_line` says
/// whether the text ends a stored line (a hard break or the end of the
/// body follows, not a soft break). A line that would start with `From `
/// is written `=46rom `; no `=0D` is written before a hard break (a hard
/// break is CRLF, RFC 2045 6.7 rule 4).
fn encode_text(
    text: &[u8],
    breaks: Breaks,
    width: usize,
    le: &[u8],
    ends_line: bool,
    out: &mut Vec<u8>,
) {
    let hard_break_at = |j: usize| -> Option<usize> {
        if breaks != Breaks::Hard {
            return None;
        }
        let rest = &text[j..];
        if rest.starts_with(le) {
            Some(le.len())
        } else if le == b"\n" && rest.starts_with(b"\r\n") {
            Some(2)
        } else {
            None
        }
    };
    let mut i = 0;
    let mut col = 0;
    while i < text.len() {
        if let Some(n) = hard_break_at(i) {
            out.extend_from_slice(le);
            col = 0;
            i += n;
            continue;
        }
        let b = text[i];
        let line_ends_after = if i + 1 == text.len() {
            ends_line
        } else {
            hard_break_at(i + 1).is_some()
        };
        let literal = match b {
            b'=' => false,
            b' ' | b'\t' => !line_ends_after,
            b'F' if col == 0 && text[i..].starts_with(b"From ") => false,
            b'.' if col == 0 && line_ends_after => false,
            33..=126 => true,
            _ => false,
        };
        let size = if literal { 1 } else { 3 };
        // Room for this character and, unless it ends the line, a "=".
        let room = if line_ends_after { width } else { width - 1 };
        if col > 0 && col + size > room {
            out.push(b'=');
            out.extend_from_slice(le);
            col = 0;
            continue;
        }
        if literal {
            out.push(b);
        } else {
            const HEX: &[u8; 16] = b"0123456789ABCDEF";
            out.extend_from_slice(&[b'=', HEX[usize::from(b >> 4)], HEX[usize::from(b & 15)]]);
        }
        col += size;
        i += 1;
        if breaks == Breaks::EscapedThenSoft && b == b'\n' && i < text.len() {
            out.push(b'=');
            out.extend_from_slice(le);
            col = 0;
        }
    }
}

/// Encodes quoted-printable with lines of at most [`QP_LINE`] characters,
/// hard line breaks where the data has `layout.line_ending`.
pub fn encode_qp(data: &[u8], layout: &Layout) -> Vec<u8> {
    let le = layout.line_ending;
    let mut out = Vec::with_capacity(data.len() + data.len() / 8);
    encode_text(data, Breaks::Hard, QP_LINE, le, true, &mut out);
    if layout.final_newline && !data.ends_with(le) {
        out.extend_from_slice(le);
    }
    out
}

/// The stretches where `new` differs from `old`, as (old range, new
/// range), in order: lines are paired one to one when both have as many,
/// else the lines the two share at the start and the end are paired and
/// what lies between is one stretch; each stretch is then narrowed to
/// what differs.
fn changed_stretches(old: &[u8], new: &[u8]) -> Vec<(Range<usize>, Range<usize>)> {
    let narrow = |o: Range<usize>, n: Range<usize>| {
        let (a, b) = (&old[o.clone()], &new[n.clone()]);
        let prefix = a.iter().zip(b).take_while(|(x, y)| x == y).count();
        let room = a.len().min(b.len()) - prefix;
        let suffix = a
            .iter()
            .rev()
            .zip(b.iter().rev())
            .take(room)
            .take_while(|(x, y)| x == y)
            .count();
        (
            o.start + prefix..o.end - suffix,
            n.start + prefix..n.end - suffix,
        )
    };
    let count = |d: &[u8]| memchr::memchr_iter(b'\n', d).count();
    let mut out = Vec::new();
    if count(old) == count(new) {
        let (mut o, mut n) = (0, 0);
        for (a, b) in old
            .split_inclusive(|&c| c == b'\n')
            .zip(new.split_inclusive(|&c| c == b'\n'))
        {
            if a != b {
                out.push(narrow(o..o + a.len(), n..n + b.len()));
            }
            o += a.len();
            n += b.len();
        }
        // A last line only one of them has (both end at a line break).
        if o < old.len() || n < new.len() {
            out.push(narrow(o..old.len(), n..new.len()));
        }
        return out;
    }
    let mut head = 0;
    for (a, b) in old
        .split_inclusive(|&c| c == b'\n')
        .zip(new.split_inclusive(|&c| c == b'\n'))
    {
        if a != b {
            break;
        }
        head += a.len();
    }
    let mut tail = 0;
    let (old_rest, new_rest) = (&old[head..], &new[head..]);
    for (a, b) in old_rest
        .rsplit_inclusive_lines()
        .zip(new_rest.rsplit_inclusive_lines())
    {
        if a != b {
            break;
        }
        tail += a.len();
    }
    out.push(narrow(head..old.len() - tail, head..new.len() - tail));
    out
}

/// The lines of a text from the end, each with its line break.
trait RevLines {
    fn rsplit_inclusive_lines(&self) -> impl Iterator<Item = &[u8]>;
}

impl RevLines for [u8] {
    fn rsplit_inclusive_lines(&self) -> impl Iterator<Item = &[u8]> {
        let mut end = self.len();
        std::iter::from_fn(move || {
            if end == 0 {
                return None;
            }
            let start = memchr::memrchr(b'\n', &self[..end - 1]).map_or(0, |i| i + 1);
            let line = &self[start..end];
            end = start;
            Some(line)
        })
    }
}

/// Encodes `new` as quoted-printable the way `body` (which decodes to
/// `old`) was written. Each stored line whose decoded text did not change
/// keeps its bytes, soft breaks and all; the lines a change touches are
/// encoded again in the style of the body: the same way of writing the
/// data's line breaks (hard breaks, or `=0D=0A` / `=0A` escapes with or
/// without a soft break after them), the same width of soft-broken lines,
/// and the same tail (a soft break at the very end stays).
pub fn reencode_qp(body: &[u8], old: &[u8], new: &[u8], layout: &Layout) -> Vec<u8> {
    let le = layout.line_ending;
    let stretches = changed_stretches(old, new);
    let mut out = Vec::with_capacity(body.len() + new.len().saturating_sub(old.len()) + 64);
    if stretches.is_empty() {
        out.extend_from_slice(body);
        return out;
    }
    let body_breaks = breaks_in(body).unwrap_or(Breaks::Hard);
    let width = soft_width(body);
    let mut next = 0;
    // The end of the last stretch handled, in old and new.
    let mut mapped = (0, 0);
    let map = |x: usize, mapped: (usize, usize)| mapped.1 + (x - mapped.0);
    // An open group of touched lines: where its first line starts, and
    // where its text starts in `new`.
    let mut group: Option<(usize, usize)> = None;
    let mut offset = 0;
    let mut lines = qp_lines(body).peekable();
    while let Some(line) = lines.next() {
        let last = lines.peek().is_none();
        let mut length = 0;
        decode_text(&body[line.start..line.content_end], |_| length += 1);
        if line.hard {
            length += le.len();
        }
        let (a, b) = (offset, offset + length);
        offset = b;
        let touched = next < stretches.len() && (stretches[next].0.start < b || last);
        if group.is_none() && !touched {
            out.extend_from_slice(&body[line.start..line.end]);
            continue;
        }
        let (start, new_start) = *group.get_or_insert((line.start, map(a, mapped)));
        while next < stretches.len()
            && (stretches[next].0.start < b && stretches[next].0.end <= b || last)
        {
            let (o, n) = &stretches[next];
            mapped = (o.end, n.end);
            next += 1;
        }
        if next < stretches.len() && stretches[next].0.start < b {
            // A change runs on into the next line.
            continue;
        }
        group = None;
        let new_end = if last { new.len() } else { map(b, mapped) };
        let text = &new[new_start..new_end];
        let breaks = breaks_in(&body[start..line.end]).unwrap_or(body_breaks);
        match text.strip_suffix(le) {
            Some(text) if line.hard => {
                encode_text(text, breaks, width, le, true, &mut out);
                out.extend_from_slice(&body[line.content_end..line.end]);
            }
            // The hard break is gone from the text: the line goes on.
            _ if line.hard => {
                encode_text(text, breaks, width, le, false, &mut out);
                out.push(b'=');
                out.extend_from_slice(le);
            }
            _ => {
                encode_text(text, breaks, width, le, !line.soft, &mut out);
                out.extend_from_slice(&body[line.content_end..line.end]);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    const CRLF: Layout = Layout {
        line_ending: b"\r\n",
        final_newline: false,
        base64_line: 76,
    };

    #[test]
    fn quoted_printable_decodes_soft_breaks_and_escapes() {
        assert_eq!(decode_qp(b"a=3Db=\r\nc\r\nd=", b"\r\n"), b"a=bc\r\nd");
        assert_eq!(decode_qp(b"x  \ny=20\n", b"\n"), b"x\ny \n");
        assert_eq!(decode_qp(b"=ZZ=4", b"\n"), b"=ZZ=4");
    }

    #[test]
    fn quoted_printable_keeps_lines_short_and_from_escaped() {
        let long = "x".repeat(200);
        let encoded = encode_qp(long.as_bytes(), &CRLF);
        assert!(
            encoded
                .split(|&b| b == b'\n')
                .all(|l| l.len() <= QP_LINE + 1)
        );
        assert_eq!(decode_qp(&encoded, b"\r\n"), long.as_bytes());
        assert_eq!(
            encode_qp(b"From me\r\na =\r\nb ", &CRLF),
            b"=46rom me\r\na =3D\r\nb=20"
        );
    }

    #[test]
    fn reencoding_keeps_unchanged_lines_byte_for_byte() {
        let body = b"<p>one very long line that the encoder wrapped early =\r\nhere</p>\r\n<a href=3D\"x.html\">\r\nend=\r\n";
        let layout = Layout::of(body);
        let old = decode_qp(body, layout.line_ending);
        let new: Vec<u8> = String::from_utf8(old.clone())
            .unwrap()
            .replace("x.html", "http://h/x.html")
            .into_bytes();
        let out = reencode_qp(body, &old, &new, &layout);
        assert_eq!(
            out,
            b"<p>one very long line that the encoder wrapped early =\r\nhere</p>\r\n<a href=3D\"http://h/x.html\">\r\nend=\r\n"
        );
        assert_eq!(decode_qp(&out, layout.line_ending), new);
    }

    fn canonical_lf(data: &[u8]) -> Vec<u8> {
        let mut out = Vec::with_capacity(data.len());
        let mut i = 0;
        while i < data.len() {
            if data[i..].starts_with(b"\r\n") {
                i += 1;
            }
            out.push(data[i]);
            i += 1;
        }
        out
    }

    /// Rewrites `body` with `from` replaced by `to` in its text.
    fn replace_in(body: &[u8], from: &str, to: &str) -> Vec<u8> {
        let layout = Layout::of(body);
        let old = decode_qp(body, layout.line_ending);
        let new = String::from_utf8(old.clone())
            .unwrap()
            .replace(from, to)
            .into_bytes();
        assert_ne!(old, new);
        let out = reencode_qp(body, &old, &new, &layout);
        assert_eq!(decode_qp(&out, layout.line_ending), new);
        out
    }

    #[test]
    fn escaped_crlf_before_a_soft_break_stays_escaped() {
        // As Internet Explorer and Outlook write: no hard break at all.
        let body = b"<html>=0D=0A<body>=0D=0A<p>A long paragraph that goes on for a while a=\r\nnd on.</p>=0D=0A<a href=3D\"x.html\">x</a>=0D=0A=\r\n</body>=0D=0A</html>";
        let out = replace_in(body, "x.html", "http://h/d/x.html");
        assert_eq!(
            out,
            b"<html>=0D=0A<body>=0D=0A<p>A long paragraph that goes on for a while a=\r\nnd on.</p>=0D=0A<a href=3D\"http://h/d/x.html\">x</a>=0D=0A=\r\n</body>=0D=0A</html>"
        );
        let body = b"<p>one</p>=0D=0A=\n<a href=3D\"x.html\">x</a>=0D=0A=\n<p>two</p>=0D=0A=\n";
        let out = replace_in(
            body,
            "x.html",
            "http://h/d/a/rather/long/path/that/needs/more/room/x.html",
        );
        assert_eq!(
            out,
            b"<p>one</p>=0D=0A=\n<a href=3D\"http://h/d/a/rather/long/path/that/needs/more/room/x.html\">x</a>=\n=0D=0A=\n<p>two</p>=0D=0A=\n"
        );
    }

    #[test]
    fn escaped_lf_at_the_end_of_soft_lines_stays_escaped() {
        let body = b"<p>one</p>=0A=\n<p><img src=3D\"a.png\"></p>=0A=\n<p>three</p>=0A=\n";
        let out = replace_in(body, "a.png", "http://h/a.png");
        assert_eq!(
            out,
            b"<p>one</p>=0A=\n<p><img src=3D\"http://h/a.png\"></p>=0A=\n<p>three</p>=0A=\n"
        );
        // A change that adds a line break writes it as the body does.
        let out = replace_in(body, "<p>three", "<p>\nthree");
        assert_eq!(
            out,
            b"<p>one</p>=0A=\n<p><img src=3D\"a.png\"></p>=0A=\n<p>=0A=\nthree</p>=0A=\n"
        );
    }

    #[test]
    fn escaped_crlf_inside_lines_keeps_the_other_soft_lines() {
        // As .NET writes: =0D=0A inside lines, soft breaks at the width.
        let body = b"<html>=0D=0A<head><title>Report</title></head>=0D=0A<body><p>Intro.</=\r\np>=0D=0A<a href=3D\"r.html\">r</a>=0D=0A<p>The end of a long r=\r\neport.</p>=0D=0A</body></html>";
        let out = replace_in(body, "r.html", "http://h/r.html");
        let lines: Vec<&[u8]> = out.split(|&b| b == b'\n').collect();
        assert_eq!(
            lines[0],
            b"<html>=0D=0A<head><title>Report</title></head>=0D=0A<body><p>Intro.</=\r"
        );
        assert_eq!(lines[lines.len() - 1], b"eport.</p>=0D=0A</body></html>");
        assert!(!out.windows(4).any(|w| w == b"=0D\r" || w == b"=0D\n"));
        assert!(out.split(|&b| b == b'\n').all(|l| l.len() <= 77));
    }

    #[test]
    fn no_carriage_return_is_added_before_a_hard_break() {
        // LF storage, data with CRLF from escapes, a changed line.
        let body = b"<a href=3D\"x.html\">=0D=0A=\nnext=0D=0A=\n";
        let out = replace_in(body, "x.html", "y/x.html");
        assert_eq!(out, b"<a href=3D\"y/x.html\">=0D=0A=\nnext=0D=0A=\n");
        let encoded = encode_qp(
            b"a\r\nb",
            &Layout {
                line_ending: b"\n",
                final_newline: false,
                base64_line: 76,
            },
        );
        assert_eq!(encoded, b"a\nb");
    }

    #[test]
    fn a_soft_break_at_the_very_end_stays() {
        let body = b"<a href=3D\"x.html\">x</a>=\n";
        assert_eq!(
            replace_in(body, "x.html", "http://h/x.html"),
            b"<a href=3D\"http://h/x.html\">x</a>=\n"
        );
        let body = b"<a href=3D\"x.html\">x</a>=";
        assert_eq!(
            replace_in(body, "x.html", "http://h/x.html"),
            b"<a href=3D\"http://h/x.html\">x</a>="
        );
    }

    #[test]
    fn base64_follows_the_layout() {
        let layout = Layout::of(b"QUJD\nREVG\n");
        assert_eq!(layout.base64_line, 4);
        assert_eq!(layout.line_ending, b"\n");
        let data = decode(b"QUJD\nREVG\n", TransferEncoding::Base64, &layout).unwrap();
        assert_eq!(&*data, b"ABCDEF");
        assert_eq!(
            encode(&data, TransferEncoding::Base64, &layout),
            b"QUJD\nREVG\n"
        );
        assert!(decode(b"%%%", TransferEncoding::Base64, &layout).is_err());
    }

    #[test]
    fn base64_decodes_across_its_chunks() {
        let data: Vec<u8> = (0..300_001u32).map(|i| (i * 7 % 251) as u8).collect();
        for line in [76, 64, 4] {
            let layout = Layout {
                line_ending: b"\r\n",
                final_newline: true,
                base64_line: line,
            };
            let encoded = encode(&data, TransferEncoding::Base64, &layout);
            let decoded = decode(&encoded, TransferEncoding::Base64, &layout).unwrap();
            assert!(*decoded == data[..], "line {line}");
        }
    }

    proptest! {
        #[test]
        fn quoted_printable_round_trips(data in prop::collection::vec(any::<u8>(), 0..300), crlf: bool, final_newline: bool) {
            let layout = Layout {
                line_ending: if crlf { b"\r\n" } else { b"\n" },
                final_newline,
                base64_line: 76,
            };
            let encoded = encode_qp(&data, &layout);
            prop_assert!(encoded.split(|&b| b == b'\n').all(|l| l.len() <= QP_LINE + 1));
            let mut decoded = decode_qp(&encoded, layout.line_ending);
            // A hard break is CRLF: where the file's line ending is LF, a
            // CR before LF in the data is the hard break's own.
            let data = if crlf { data } else { canonical_lf(&data) };
            if final_newline && !data.ends_with(layout.line_ending) {
                // The body's own final newline is layout, not data.
                let cut = decoded.len() - layout.line_ending.len();
                prop_assert_eq!(&decoded[cut..], layout.line_ending);
                decoded.truncate(cut);
            }
            prop_assert_eq!(decoded, data);
        }

        #[test]
        fn reencoding_changes_only_the_lines_a_change_touches(
            words in prop::collection::vec("[a-z=. ]{0,12}|\r\n|\n|From ", 1..60),
            style in 0..3usize,
            crlf: bool,
            edits in prop::collection::vec((any::<prop::sample::Index>(), "[a-z:/]{0,9}"), 1..4),
        ) {
            let le: &[u8] = if crlf { b"\r\n" } else { b"\n" };
            let breaks = [Breaks::Hard, Breaks::EscapedThenSoft, Breaks::Escaped][style];
            let data = words.concat().into_bytes();
            let mut body = Vec::new();
            encode_text(&data, breaks, 40, le, true, &mut body);
            let layout = Layout::of(&body);
            let old = decode_qp(&body, layout.line_ending);
            let mut new = old.clone();
            for (at, text) in &edits {
                let at = at.index(new.len() + 1);
                new.splice(at..at, text.bytes());
            }
            let out = reencode_qp(&body, &old, &new, &layout);
            prop_assert_eq!(decode_qp(&out, layout.line_ending), new.clone());
            // Every stored line of the output is either one of the body's,
            // or within the limit.
            let kept: std::collections::HashSet<&[u8]> = body.split(|&b| b == b'\n').collect();
            for line in out.split(|&b| b == b'\n') {
                prop_assert!(kept.contains(line) || line.len() <= QP_LINE + 1, "{:?}", String::from_utf8_lossy(line));
                prop_assert!(!line.starts_with(b"From "));
            }
            // Nothing changed, nothing re-encoded.
            prop_assert_eq!(reencode_qp(&body, &old, &old, &layout), body);
        }

        #[test]
        fn base64_round_trips(data in prop::collection::vec(any::<u8>(), 0..300)) {
            let layout = Layout { line_ending: b"\r\n", final_newline: true, base64_line: 76 };
            let encoded = encode(&data, TransferEncoding::Base64, &layout);
            prop_assert_eq!(decode(&encoded, TransferEncoding::Base64, &layout).unwrap().into_owned(), data);
        }
    }
}
