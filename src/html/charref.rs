//! Decoding an attribute value as the HTML tokenizer does (input stream
//! preprocessing, NUL, and character references in an attribute), keeping a
//! map from the decoded text back to the raw source.
//!
//! html5ever decodes values but keeps no positions; relink needs both, to
//! rewrite part of a value (one srcset candidate, one CSS `url()`) without
//! touching the rest. The named references come from html5ever's own table.

use std::borrow::Cow;
use std::ops::Range;

use html5ever::data::{C1_REPLACEMENTS, NAMED_ENTITIES};

/// The longest named character reference, `&CounterClockwiseContourIntegral;`.
const LONGEST_NAME: usize = 32;

/// A stretch of decoded text that did not come verbatim from the source.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Piece {
    decoded: Range<usize>,
    raw: Range<usize>,
    /// A character reference not closed by `;` (`&quot`, `&#34`): what
    /// follows it decides how it reads, so it is rewritten with what
    /// replaces the text after it.
    open: bool,
}

/// Pieces of the same lengths, one right after the other in both the
/// decoded and the raw text (`&amp;&amp;&amp;`), kept as one: a value made
/// of millions of references keeps a few runs, not a piece each. Offsets
/// fit in `u32`, as every document does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Run {
    decoded: u32,
    raw: u32,
    raw_len: u32,
    count: u32,
    decoded_len: u8,
    open: bool,
}

impl Run {
    /// Its `k`-th piece.
    fn piece(&self, k: u32) -> Piece {
        let decoded = self.decoded as usize + k as usize * usize::from(self.decoded_len);
        let raw = self.raw as usize + k as usize * self.raw_len as usize;
        Piece {
            decoded: decoded..decoded + usize::from(self.decoded_len),
            raw: raw..raw + self.raw_len as usize,
            open: self.open,
        }
    }

    /// Adds `piece` if it follows the run's last and has its lengths.
    fn extend(&mut self, piece: &Piece) -> bool {
        let last = self.piece(self.count - 1);
        let fits = last.decoded.end == piece.decoded.start
            && last.raw.end == piece.raw.start
            && last.decoded.len() == piece.decoded.len()
            && last.raw.len() == piece.raw.len()
            && self.open == piece.open
            && self.count < u32::MAX;
        self.count += u32::from(fits);
        fits
    }
}

/// A decoded attribute value with the way back to its source.
#[derive(Debug, Clone, Default)]
pub struct Decoded<'a> {
    /// The value as the tokenizer gives it (the source itself when nothing
    /// in it is decoded).
    pub text: Cow<'a, str>,
    /// The non-verbatim stretches, in order, in runs.
    runs: Vec<Run>,
}

impl Decoded<'_> {
    /// Whether the decoded text is the raw text, byte for byte (for tests).
    #[cfg_attr(not(feature = "_internal"), allow(dead_code))]
    pub fn is_verbatim(&self) -> bool {
        self.runs.is_empty()
    }

    /// The last piece that starts at or before `at`.
    fn piece_from(&self, at: usize) -> Option<Piece> {
        let i = self.runs.partition_point(|r| r.decoded as usize <= at);
        let run = self.runs.get(i.checked_sub(1)?)?;
        let k = (at - run.decoded as usize) / usize::from(run.decoded_len.max(1));
        let k = u32::try_from(k).unwrap_or(u32::MAX).min(run.count - 1);
        Some(run.piece(k))
    }

    /// Adds a piece, after every other.
    fn push(&mut self, piece: Piece) {
        if self.runs.last_mut().is_some_and(|run| run.extend(&piece)) {
            return;
        }
        // A value is at most a document long, so its offsets fit in u32;
        // a decoded piece is at most two characters long.
        let (Ok(decoded), Ok(raw), Ok(raw_len), Ok(decoded_len)) = (
            u32::try_from(piece.decoded.start),
            u32::try_from(piece.raw.start),
            u32::try_from(piece.raw.len()),
            u8::try_from(piece.decoded.len()),
        ) else {
            return;
        };
        self.runs.push(Run {
            decoded,
            raw,
            raw_len,
            count: 1,
            decoded_len,
            open: piece.open,
        });
    }

    /// The decoded and raw offsets of a decoded offset. An offset inside a
    /// character reference moves to the reference's start (`round_up`
    /// false) or end.
    fn locate(&self, at: usize, round_up: bool) -> (usize, usize) {
        let Some(piece) = self.piece_from(at) else {
            return (at, at);
        };
        if at >= piece.decoded.end {
            // Verbatim text after the piece.
            (at, piece.raw.end + (at - piece.decoded.end))
        } else if at == piece.decoded.start || !round_up {
            (piece.decoded.start, piece.raw.start)
        } else {
            (piece.decoded.end, piece.raw.end)
        }
    }

    /// Widens a decoded range to whole character references; returns the
    /// widened decoded range and the raw range it came from.
    pub fn widen(&self, decoded: Range<usize>) -> (Range<usize>, Range<usize>) {
        let (mut d_start, mut r_start) = self.locate(decoded.start, false);
        // A reference without its `;` just before the range reads as it
        // does only because of the text after it: it goes with the range.
        if let Some(piece) = d_start.checked_sub(1).and_then(|at| self.piece_from(at))
            && piece.open
            && piece.decoded.end == d_start
            && piece.raw.end == r_start
        {
            (d_start, r_start) = (piece.decoded.start, piece.raw.start);
        }
        let (d_end, r_end) = self.locate(decoded.end, true);
        (d_start..d_end, r_start..r_end)
    }
}

/// Decodes `raw`, the source of an attribute value between its quotes.
pub fn decode_attribute(raw: &str) -> Decoded<'_> {
    let bytes = raw.as_bytes();
    // Most values hold nothing to decode: they are their source.
    let Some(first) = memchr::memchr3(b'&', b'\r', 0, bytes) else {
        return Decoded {
            text: Cow::Borrowed(raw),
            runs: Vec::new(),
        };
    };
    let mut out = Decoded {
        text: Cow::Borrowed(""),
        runs: Vec::new(),
    };
    let mut text = String::with_capacity(raw.len());
    let mut i = first;
    let mut verbatim_from = 0;
    // Only these bytes can start a replacement: the text between them is
    // skipped whole.
    while let Some(skip) = memchr::memchr3(b'&', b'\r', 0, &bytes[i..]) {
        i += skip;
        let replaced: Option<(usize, Replacement)> = match bytes[i] {
            b'\r' if bytes.get(i + 1) == Some(&b'\n') => Some((2, Replacement::Char('\n'))),
            b'\r' => Some((1, Replacement::Char('\n'))),
            0 => Some((1, Replacement::Char('\u{fffd}'))),
            b'&' => char_reference(&raw[i + 1..]).map(|(len, r)| (len + 1, r)),
            _ => None,
        };
        match replaced {
            Some((len, replacement)) => {
                text.push_str(&raw[verbatim_from..i]);
                let start = text.len();
                match replacement {
                    Replacement::Char(c) => text.push(c),
                    Replacement::Pair(a, b) => {
                        text.push(a);
                        text.extend(b);
                    }
                }
                out.push(Piece {
                    decoded: start..text.len(),
                    raw: i..i + len,
                    open: bytes[i] == b'&' && bytes[i + len - 1] != b';',
                });
                i += len;
                verbatim_from = i;
            }
            None => i += 1,
        }
    }
    text.push_str(&raw[verbatim_from..]);
    out.text = Cow::Owned(text);
    out
}

#[derive(Debug, PartialEq, Eq)]
enum Replacement {
    Char(char),
    Pair(char, Option<char>),
}

/// The character reference state, in an attribute value: `rest` follows the
/// `&`. Returns how many bytes of `rest` the reference takes and what it
/// stands for, or `None` when the `&` is literal.
fn char_reference(rest: &str) -> Option<(usize, Replacement)> {
    let bytes = rest.as_bytes();
    match bytes.first()? {
        b'#' => numeric_reference(bytes),
        b if b.is_ascii_alphanumeric() => named_reference(rest),
        _ => None,
    }
}

/// Names of the table that links and pages write most, with what each
/// stands for.
const COMMON_NAMES: [(&str, char); 5] = [
    ("amp;", '&'),
    ("quot;", '"'),
    ("lt;", '<'),
    ("gt;", '>'),
    ("nbsp;", '\u{a0}'),
];

/// The named character reference state: the longest name in the table that
/// the text starts with, found by extending while the text is a prefix of
/// some name.
fn named_reference(rest: &str) -> Option<(usize, Replacement)> {
    // The commonest names, ending in ";": no longer name starts with one,
    // so each is the longest match, found without hashing its prefixes.
    for (name, c) in COMMON_NAMES {
        if rest.as_bytes().starts_with(name.as_bytes()) {
            return Some((name.len(), Replacement::Pair(c, None)));
        }
    }
    named_in_table(rest)
}

/// [`named_reference`] by the table alone.
fn named_in_table(rest: &str) -> Option<(usize, Replacement)> {
    let mut matched: Option<(usize, (u32, u32))> = None;
    for len in 1..=rest.len().min(LONGEST_NAME) {
        if !rest.is_char_boundary(len) {
            break;
        }
        match NAMED_ENTITIES.get(&rest[..len]) {
            Some(&(0, _)) => {}
            Some(&m) => matched = Some((len, m)),
            None => break,
        }
    }
    let (len, (c1, c2)) = matched?;
    // In an attribute, a match not ending in ";" followed by "=" or an
    // alphanumeric is not a reference, for historical reasons.
    if !rest[..len].ends_with(';') {
        let next = rest.as_bytes().get(len);
        if next.is_some_and(|&b| b == b'=' || b.is_ascii_alphanumeric()) {
            return None;
        }
    }
    let first = char::from_u32(c1)?;
    let second = (c2 != 0).then(|| char::from_u32(c2)).flatten();
    Some((len, Replacement::Pair(first, second)))
}

/// The numeric character reference states; `bytes` starts at `#`.
fn numeric_reference(bytes: &[u8]) -> Option<(usize, Replacement)> {
    let hex = matches!(bytes.get(1), Some(b'x' | b'X'));
    let digits_start = if hex { 2 } else { 1 };
    let radix = if hex { 16 } else { 10 };
    let digits = bytes[digits_start..]
        .iter()
        .take_while(|b| (**b as char).is_digit(radix))
        .count();
    if digits == 0 {
        // No digits: the "&#" (or "&#x") is literal.
        return None;
    }
    let end = digits_start + digits;
    let value = bytes[digits_start..end].iter().fold(0u32, |n, &b| {
        n.saturating_mul(radix)
            .saturating_add((b as char).to_digit(radix).unwrap_or(0))
    });
    let len = if bytes.get(end) == Some(&b';') {
        end + 1
    } else {
        end
    };
    Some((len, Replacement::Char(numeric_value(value))))
}

/// The numeric character reference end state: what a number stands for.
fn numeric_value(n: u32) -> char {
    match n {
        0 | 0xD800..=0xDFFF | 0x110000.. => '\u{fffd}',
        0x80..=0x9F => C1_REPLACEMENTS[(n - 0x80) as usize]
            .unwrap_or_else(|| char::from_u32(n).unwrap_or('\u{fffd}')),
        _ => char::from_u32(n).unwrap_or('\u{fffd}'),
    }
}

/// Whether a literal `&` at the start of `rest` (the text after it) would be
/// read as a character reference in an attribute value.
pub fn ampersand_needs_escape(rest: &str) -> bool {
    char_reference(rest).is_some()
}

#[cfg(test)]
mod tests {

    /// The common names are read as the whole table reads them, whatever
    /// follows.
    #[test]
    fn common_names_are_the_tables() {
        for (name, _) in super::COMMON_NAMES {
            for after in ["", ";", "x", "=", "&", " ", "amp;"] {
                let rest = format!("{name}{after}");
                let fast = super::named_reference(&rest);
                let table = super::named_in_table(&rest);
                assert_eq!(fast, table, "{rest}");
                assert!(fast.is_some(), "{rest}");
            }
        }
    }
    use super::*;

    #[test]
    fn decodes_as_the_tokenizer_does() {
        for (raw, want) in [
            ("a&amp;b", "a&b"),
            ("a&ampb", "a&ampb"),
            ("a&amp=b", "a&amp=b"),
            ("a&amp b", "a& b"),
            ("&lt;&gt", "<>"),
            ("&notit;", "&notit;"),
            ("&#x41;&#66;&#67", "ABC"),
            ("&#x80;", "\u{20ac}"),
            ("&#0;&#xD800;", "\u{fffd}\u{fffd}"),
            ("&#;&#x;&;", "&#;&#x;&;"),
            ("a\r\nb\rc", "a\nb\nc"),
            ("a\0b", "a\u{fffd}b"),
            ("&NotEqualTilde;", "\u{2242}\u{338}"),
        ] {
            assert_eq!(decode_attribute(raw).text, want, "{raw:?}");
        }
    }

    #[test]
    fn maps_decoded_ranges_to_raw_ranges() {
        let d = decode_attribute("a&amp;b c");
        assert_eq!(d.text, "a&b c");
        assert_eq!(d.widen(0..1), (0..1, 0..1));
        assert_eq!(d.widen(1..2), (1..2, 1..6));
        assert_eq!(d.widen(2..5), (2..5, 6..9));
        assert_eq!(d.widen(0..5), (0..5, 0..9));
        let d = decode_attribute("&#x68;ttp");
        assert_eq!(d.widen(0..4), (0..4, 0..9));
        assert_eq!(d.widen(1..4), (1..4, 6..9));
        let d = decode_attribute("a&NotEqualTilde;b");
        assert_eq!(d.widen(2..3), (1..6, 1..16));
        assert!(decode_attribute("plain").is_verbatim());
    }

    #[test]
    fn knows_which_ampersands_need_escaping() {
        assert!(ampersand_needs_escape("amp;x"));
        assert!(ampersand_needs_escape("copy x"));
        assert!(ampersand_needs_escape("#38"));
        assert!(!ampersand_needs_escape("b=2"));
        assert!(!ampersand_needs_escape("copy=2"));
        assert!(!ampersand_needs_escape("#x"));
        assert!(!ampersand_needs_escape(""));
    }
}
