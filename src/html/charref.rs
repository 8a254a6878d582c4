//! Decoding an attribute value as the HTML tokenizer does (preprocessing,
//! NUL, character references), keeping a map from the decoded text back to
//! the source, so that part of a value (one srcset candidate, one CSS
//! `url()`) can be rewritten alone. The named references are html5ever's
//! table, kept sorted ([`longest_name`], which the tokenizer shares).

use html5ever::data::C1_REPLACEMENTS;
use std::borrow::Cow;
use std::ops::Range;

use super::entities;

/// The named character references, sorted by name.
static SORTED: &[(&[u8], u32, u32)] = &entities::SORTED;

/// For each ASCII byte, the range of [`SORTED`] whose names start with it.
static BY_FIRST: [(u16, u16); 128] = by_first(&entities::SORTED);

/// [`BY_FIRST`], worked out by the compiler.
const fn by_first(sorted: &[(&[u8], u32, u32)]) -> [(u16, u16); 128] {
    let mut ranges = [(0u16, 0u16); 128];
    let mut i = 0;
    while i < sorted.len() {
        let b = sorted[i].0[0] as usize;
        if ranges[b].1 == 0 {
            ranges[b].0 = i as u16;
        }
        // 2,231 names: the offsets fit in u16.
        ranges[b].1 = i as u16 + 1;
        i += 1;
    }
    ranges
}

/// The names pages write most, each ending in `;`, which no longer name starts with.
const COMMON_NAMES: [(&[u8], u32); 6] = [
    (b"quot;", 0x22),
    (b"amp;", 0x26),
    (b"apos;", 0x27),
    (b"gt;", 0x3e),
    (b"lt;", 0x3c),
    (b"nbsp;", 0xa0),
];

/// The longest named reference `rest` (after `&`) starts with, as §13.2.5.73
/// matches: its length and code points (the second 0 if one).
#[inline]
pub(crate) fn longest_name(rest: &[u8]) -> Option<(usize, u32, u32)> {
    for (name, c) in COMMON_NAMES {
        if rest.starts_with(name) {
            return Some((name.len(), c, 0));
        }
    }
    longest_in_sorted(rest)
}

/// [`longest_name`] by the sorted list, linear: the candidates a range narrowed a byte at a time.
fn longest_in_sorted(rest: &[u8]) -> Option<(usize, u32, u32)> {
    let first = *rest.first()?;
    let &(start, end) = BY_FIRST.get(usize::from(first))?;
    let mut range = &SORTED[usize::from(start)..usize::from(end)];
    let mut matched = None;
    // `range` holds the names starting with `rest[..k]`, sorted: an equal one first.
    for k in 1.. {
        if range.len() <= 8 {
            // Sorted, a longer name that `rest` starts with comes later.
            for &(name, c1, c2) in range {
                if rest.get(k..name.len()) == name.get(k..) {
                    matched = Some((name.len(), c1, c2));
                }
            }
            break;
        }
        let Some(&(name, c1, c2)) = range.first() else {
            break;
        };
        if name.len() == k {
            matched = Some((k, c1, c2));
            range = &range[1..];
        }
        let Some(&b) = rest.get(k) else {
            break;
        };
        // Every name left is longer than `k`.
        let from = range.partition_point(|(name, ..)| name[k] < b);
        range = &range[from..];
        let to = range.partition_point(|(name, ..)| name[k] == b);
        range = &range[..to];
    }
    matched
}

/// A stretch of decoded text that did not come verbatim from the source.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Piece {
    decoded: Range<usize>,
    raw: Range<usize>,
    /// A reference not closed by `;` (`&quot`, `&#34`): what follows decides
    /// how it reads, so it is rewritten with what replaces the text after it.
    open: bool,
}

/// Pieces of the same lengths, adjacent in both texts (`&amp;&amp;`), kept
/// as one run, so a value of millions of references keeps few runs.
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

    /// Whether a piece follows the run's last in both texts, with its lengths.
    #[inline]
    fn follows(
        &self,
        decoded: usize,
        decoded_len: usize,
        raw: usize,
        raw_len: usize,
        open: bool,
    ) -> bool {
        let count = self.count as usize;
        self.raw as usize + count * self.raw_len as usize == raw
            && self.decoded as usize + count * usize::from(self.decoded_len) == decoded
            && self.raw_len as usize == raw_len
            && usize::from(self.decoded_len) == decoded_len
            && self.open == open
            && self.count < u32::MAX
    }
}

/// A decoded attribute value with the way back to its source.
#[derive(Debug, Clone, Default)]
pub struct Decoded<'a> {
    /// The value as the tokenizer gives it (the source when nothing is decoded).
    pub text: Cow<'a, str>,
    /// The non-verbatim stretches, in order, in runs.
    runs: Vec<Run>,
}

impl Decoded<'_> {
    /// Whether the raw text holds no `&`, CR or NUL, so it is the decoded text.
    pub fn holds_no_reference(&self) -> bool {
        matches!(self.text, Cow::Borrowed(_))
    }

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

    /// Adds a piece after every other: `decoded_len` bytes at `decoded` from `raw_len` at `raw`.
    #[inline]
    fn push(&mut self, decoded: usize, decoded_len: usize, raw: usize, raw_len: usize, open: bool) {
        if let Some(run) = self.runs.last_mut()
            && run.follows(decoded, decoded_len, raw, raw_len, open)
        {
            run.count += 1;
            return;
        }
        // Offsets fit in u32 as a document does; a piece decodes to two characters at most.
        let (Ok(decoded), Ok(raw), Ok(raw_len), Ok(decoded_len)) = (
            u32::try_from(decoded),
            u32::try_from(raw),
            u32::try_from(raw_len),
            u8::try_from(decoded_len),
        ) else {
            return;
        };
        self.runs.push(Run {
            decoded,
            raw,
            raw_len,
            count: 1,
            decoded_len,
            open,
        });
    }

    /// The decoded and raw offsets of a decoded offset, inside a reference moved to its start or end.
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

    /// Widens a decoded range to whole references: the decoded range and its raw one.
    pub fn widen(&self, decoded: Range<usize>) -> (Range<usize>, Range<usize>) {
        let (mut d_start, mut r_start) = self.locate(decoded.start, false);
        // An open reference just before the range reads as it does by the text after it.
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

/// The first byte that may start a replacement (`&`, CR, NUL): `probe` bytes alone, then `memchr3`.
#[inline]
fn find_special(bytes: &[u8], probe: usize) -> Option<usize> {
    let special = |b: &u8| matches!(b, b'&' | b'\r' | 0);
    let probe = probe.min(bytes.len());
    if let Some(i) = bytes[..probe].iter().position(special) {
        return Some(i);
    }
    if probe == bytes.len() {
        return None;
    }
    memchr::memchr3(b'&', b'\r', 0, &bytes[probe..]).map(|i| i + probe)
}

/// How many bytes [`find_special`] reads one at a time.
const PROBE: usize = 16;

/// Decodes `raw`, the source of an attribute value between its quotes.
#[inline]
pub fn decode_attribute(raw: &str) -> Decoded<'_> {
    let bytes = raw.as_bytes();
    // Most values hold nothing to decode: short ones read outright, long ones by `memchr3`.
    let probe = if bytes.len() <= PROBE { PROBE } else { 0 };
    match find_special(bytes, probe) {
        None => Decoded {
            text: Cow::Borrowed(raw),
            runs: Vec::new(),
        },
        Some(first) => decode_from(raw, first),
    }
}

/// The bytes of `word` that are `&`, CR or NUL (only `&` if `AMP_ONLY`) as
/// high bits; the lowest marks the first (a borrow marks only bytes above).
#[inline]
fn special_bytes<const AMP_ONLY: bool>(word: u64) -> u64 {
    const ONES: u64 = u64::from_le_bytes([1; 8]);
    const HIGH: u64 = u64::from_le_bytes([0x80; 8]);
    let zero = |w: u64| w.wrapping_sub(ONES) & !w;
    let amp = zero(word ^ (ONES * u64::from(b'&')));
    if AMP_ONLY {
        return amp & HIGH;
    }
    (amp | zero(word ^ (ONES * u64::from(b'\r'))) | zero(word)) & HIGH
}

/// The first byte at or after `from` that may start a replacement, by word
/// then `memchr3`; with `AMP_ONLY`, no CR or NUL follows.
#[inline]
fn next_special<const AMP_ONLY: bool>(bytes: &[u8], from: usize) -> Option<usize> {
    let rest = bytes.get(from..)?;
    let mut at = 0;
    while let Some(chunk) = rest.get(at..).and_then(<[u8]>::first_chunk::<8>) {
        let found = special_bytes::<AMP_ONLY>(u64::from_le_bytes(*chunk));
        if found != 0 {
            return Some(from + at + (found.trailing_zeros() / 8) as usize);
        }
        at += 8;
        if at == 64 {
            let found = if AMP_ONLY {
                memchr::memchr(b'&', &rest[at..])
            } else {
                find_special(&rest[at..], 0)
            };
            return found.map(|i| from + at + i);
        }
    }
    let tail = rest.get(at..)?;
    let special = |b: &u8| matches!(b, b'&' | b'\r' | 0);
    tail.iter().position(special).map(|i| from + at + i)
}

/// [`decode_attribute`] from `first`, the first byte that may start a replacement.
#[inline(never)]
fn decode_from(raw: &str, first: usize) -> Decoded<'_> {
    // CR and NUL are rare: a value without them past its first special byte is searched for `&`.
    let rest = &raw.as_bytes()[first..];
    if rest.len() >= AMP_ONLY_FROM && memchr::memchr2(b'\r', 0, rest).is_none() {
        decode_with::<true>(raw, first)
    } else {
        decode_with::<false>(raw, first)
    }
}

/// From how many bytes past the first special one [`decode_from`] looks for CR and NUL.
const AMP_ONLY_FROM: usize = 64;

/// [`decode_from`], with [`next_special`]'s `AMP_ONLY`.
#[inline(always)]
fn decode_with<const AMP_ONLY: bool>(raw: &str, first: usize) -> Decoded<'_> {
    let bytes = raw.as_bytes();
    let mut out = Decoded {
        text: Cow::Borrowed(""),
        // A value with one reference most often has a few.
        runs: Vec::with_capacity(8),
    };
    let mut text = String::with_capacity(raw.len());
    let mut at = Some(first);
    let mut verbatim_from = 0;
    // Only these bytes start a replacement: the text between is skipped whole.
    while let Some(i) = at {
        let rest = &bytes[i + 1..];
        // The raw length, what it stands for, and whether it is open (no `;`).
        let (len, replacement, open) = match bytes[i] {
            // The commonest references: `amp;` in queries, `quot;` in style attributes and `srcdoc`s.
            b'&' if rest.starts_with(b"amp;") => (5, Replacement::Ascii(b'&'), false),
            b'&' if rest.starts_with(b"quot;") => (6, Replacement::Ascii(b'"'), false),
            b'\r' if rest.first() == Some(&b'\n') => (2, Replacement::Ascii(b'\n'), false),
            b'\r' => (1, Replacement::Ascii(b'\n'), false),
            0 => (1, Replacement::Char('\u{fffd}'), false),
            _ => match char_reference(&raw[i + 1..]) {
                Some((len, r)) => (len + 1, r, rest[len - 1] != b';'),
                None => {
                    at = next_special::<AMP_ONLY>(bytes, i + 1);
                    continue;
                }
            },
        };
        text.push_str(&raw[verbatim_from..i]);
        let start = text.len();
        match replacement {
            // (Masked, so that the compiler knows it is one byte long.)
            Replacement::Ascii(b) => text.push(char::from(b & 0x7f)),
            Replacement::Char(c) => text.push(c),
            Replacement::Pair(a, b) => {
                text.push(a);
                if let Some(b) = b {
                    text.push(b);
                }
            }
        }
        out.push(start, text.len() - start, i, len, open);
        verbatim_from = i + len;
        at = next_special::<AMP_ONLY>(bytes, verbatim_from);
    }
    text.push_str(&raw[verbatim_from..]);
    out.text = Cow::Owned(text);
    out
}

#[derive(Debug, PartialEq, Eq)]
enum Replacement {
    /// An ASCII character.
    Ascii(u8),
    Char(char),
    Pair(char, Option<char>),
}

/// The character reference state in an attribute value after `&`: its length and replacement.
fn char_reference(rest: &str) -> Option<(usize, Replacement)> {
    let bytes = rest.as_bytes();
    match bytes.first()? {
        b'#' => numeric_reference(bytes),
        b if b.is_ascii_alphanumeric() => named_reference(rest),
        _ => None,
    }
}

/// The named character reference state in an attribute value: the longest name.
fn named_reference(rest: &str) -> Option<(usize, Replacement)> {
    let bytes = rest.as_bytes();
    let (len, c1, c2) = longest_name(bytes)?;
    // In an attribute, a match without ";" before "=" or an alphanumeric is no reference.
    if bytes[len - 1] != b';' {
        let next = bytes.get(len);
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

/// Whether a literal `&` before `rest` would read as a reference in an attribute value.
pub fn ampersand_needs_escape(rest: &str) -> bool {
    char_reference(rest).is_some()
}

#[cfg(test)]
mod tests {

    /// The common names read as the sorted list reads them, whatever follows.
    #[test]
    fn common_names_are_the_tables() {
        for (name, _) in super::COMMON_NAMES {
            for after in ["", ";", "x", "=", "&", " ", "amp;"] {
                let rest = [name, after.as_bytes()].concat();
                let fast = super::longest_name(&rest);
                assert_eq!(fast, super::longest_in_sorted(&rest), "{after}");
                assert_eq!(fast.map(|m| m.0), Some(name.len()), "{after}");
            }
        }
    }
    use super::*;
    use html5ever::data::NAMED_ENTITIES;

    /// The sorted list is html5ever's table, in bytewise order.
    #[test]
    fn sorted_names_are_html5evers() {
        let names: Vec<(&str, (u32, u32))> = NAMED_ENTITIES
            .entries()
            .filter(|(_, (c1, _))| *c1 != 0)
            .map(|(name, &value)| (*name, value))
            .collect();
        assert_eq!(SORTED.len(), names.len());
        for (name, value) in names {
            let at = SORTED.binary_search_by(|(n, ..)| n.cmp(&name.as_bytes()));
            let (_, c1, c2) = SORTED[at.unwrap_or_else(|_| panic!("{name} missing"))];
            assert_eq!((c1, c2), value, "{name}");
        }
        assert!(SORTED.windows(2).all(|w| w[0].0 < w[1].0));
    }

    /// The longest match as html5ever finds it: each prefix looked up in its table.
    fn longest_by_prefixes(rest: &[u8]) -> Option<(usize, u32, u32)> {
        let mut matched = None;
        for len in 1..=rest.len() {
            let Ok(prefix) = std::str::from_utf8(&rest[..len]) else {
                break;
            };
            match NAMED_ENTITIES.get(prefix) {
                Some(&(0, _)) => {}
                Some(&(c1, c2)) => matched = Some((len, c1, c2)),
                None => break,
            }
        }
        matched
    }

    /// The sorted list finds what the prefix walk finds, on names, prefixes and random strings.
    #[test]
    fn longest_name_is_the_prefix_walks() {
        let afters: [&[u8]; 9] = [
            b"",
            b";",
            b"x",
            b"=",
            b"&",
            b" ",
            b"1",
            b"\xc3\xa9",
            b"amp;",
        ];
        let mut inputs: Vec<Vec<u8>> = Vec::new();
        for (name, _) in NAMED_ENTITIES.entries() {
            for after in afters {
                inputs.push([name.as_bytes(), after].concat());
            }
            for i in 0..name.len() {
                for b in [b'a', b'Z', b'0', b';', b'~', 0x80] {
                    let mut changed = name.as_bytes().to_vec();
                    changed[i] = b;
                    inputs.push(changed);
                }
            }
        }
        let alphabet = b"aAeElLmnopqstuxyz;01";
        let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
        for _ in 0..20_000 {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1);
            let len = (state >> 59) as usize;
            let input = (0..len)
                .map(|i| alphabet[((state >> (i * 3 % 50)) as usize) % alphabet.len()])
                .collect();
            inputs.push(input);
        }
        for input in inputs {
            assert_eq!(
                longest_name(&input),
                longest_by_prefixes(&input),
                "{:?}",
                String::from_utf8_lossy(&input)
            );
        }
        assert_eq!(longest_name(b"notin;"), Some((6, 0x2209, 0)));
        assert_eq!(longest_name(b"notit;"), Some((3, 0xac, 0)));
        assert_eq!(longest_name(b"\xff"), None);
    }

    /// The word search finds what a byte at a time finds, short and past `memchr3`'s stretch.
    #[test]
    fn the_word_search_finds_the_first_special_byte() {
        let alphabet = [
            b'&', b'\r', 0, b'%', b'\'', 0x0c, 0x0e, 1, 0x80, 0xa6, 0xff, b'a',
        ];
        let mut state: u64 = 0x2545_f491_4f6c_dd1d;
        for round in 0..4_000 {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1);
            let len = (state >> 57) as usize + if round % 4 == 0 { 64 } else { 0 };
            // Mostly plain bytes, so that the first special one lies anywhere.
            let bytes: Vec<u8> = (0..len)
                .map(|i| {
                    let r = state.rotate_left(i as u32 * 7) ^ (i as u64).wrapping_mul(0x9e37_79b9);
                    if r.is_multiple_of(23) {
                        alphabet[(r >> 8) as usize % 3]
                    } else {
                        alphabet[3 + (r >> 8) as usize % 9]
                    }
                })
                .collect();
            for from in 0..=len + 1 {
                let naive = bytes
                    .get(from..)
                    .and_then(|rest| rest.iter().position(|b| matches!(b, b'&' | b'\r' | 0)))
                    .map(|i| from + i);
                assert_eq!(
                    next_special::<false>(&bytes, from),
                    naive,
                    "{bytes:?} from {from}"
                );
            }
        }
    }

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
            // Long enough that the rest is searched for `&` alone; spaced so references read the same.
            let pad = format!(" {} ", "x".repeat(70));
            for (raw, want) in [
                (format!("&amp;{raw}{pad}"), format!("&{want}{pad}")),
                (format!("{raw}{pad}{raw}"), format!("{want}{pad}{want}")),
            ] {
                let d = decode_attribute(&raw);
                assert_eq!(d.text, want, "{raw:?}");
                let end = d.text.len();
                assert_eq!(d.widen(0..end), (0..end, 0..raw.len()), "{raw:?}");
            }
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
