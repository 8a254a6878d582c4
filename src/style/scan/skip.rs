//! Stepping over the tokens of a style sheet that cannot start, end or
//! change a URL, without reading them one by one.
//!
//! Between two tokens that matter, a style sheet holds identifiers,
//! numbers, dimensions, hashes, white space, CDC and delimiters; none of
//! them holds a byte of [`SIGNIFICANT`], and none changes what the scan
//! finds where it is allowed to skip (see `Level::may_skip`). The scan
//! therefore searches for the next significant byte (a word at a time, in
//! lanes the compiler turns into vector compares) and reads tokens again
//! only from there: from the `(` itself, from the start of the function
//! name before it ([`token_start`]), or, at an escape, from where the
//! skip began, since an escape can hide anything.

/// The bytes that start or end a token that matters, or that a token that
/// does not matter never holds: blocks and functions (`(`, `)`, `[`, `]`,
/// `{`, `}`), strings (`"`, `'`), comments (`/`), escapes (`\`),
/// at-keywords (`@`, for `@import`) and CDO (`<`, for `<!--`, which ends
/// in name bytes).
const fn is_significant(b: u8) -> bool {
    (b == b'(')
        | (b == b')')
        | (b == b'[')
        | (b == b']')
        | (b == b'{')
        | (b == b'}')
        | (b == b'"')
        | (b == b'\'')
        | (b == b'/')
        | (b == b'\\')
        | (b == b'@')
        | (b == b'<')
}

/// [`is_significant`] as a table, for the bytes after the last whole lane.
static SIGNIFICANT: [bool; 256] = {
    let mut table = [false; 256];
    let mut b = 0;
    while b < 256 {
        table[b] = is_significant(b as u8);
        b += 1;
    }
    table
};

/// How many bytes one step of [`next_significant`] looks at.
const LANE: usize = 16;

/// Where the first significant byte at or after `from` is, or the end.
pub(super) fn next_significant(bytes: &[u8], from: usize) -> usize {
    let mut at = from;
    let rest = bytes.get(from..).unwrap_or_default();
    let (lanes, tail) = rest.as_chunks::<LANE>();
    for lane in lanes {
        // One flag byte for each byte, tested as one word: the form that
        // the compiler turns into a few vector compares for the lane.
        let mut flags = [0u8; LANE];
        for (flag, &b) in flags.iter_mut().zip(lane) {
            *flag = u8::from(is_significant(b));
        }
        let word = u128::from_le_bytes(flags);
        if word != 0 {
            return at + (word.trailing_zeros() / 8) as usize;
        }
        at += LANE;
    }
    at + tail.iter().position(|&b| SIGNIFICANT[usize::from(b)]).unwrap_or(tail.len())
}

/// Whether `b` may be part of a name (CSS Syntax 3, 4.3.12): ASCII letters
/// and digits, `-`, `_`, NUL and every byte of a non-ASCII character.
fn is_name_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'-' || b == b'_' || b == 0 || b >= 0x80
}

/// Where the token to read again starts, for the `(` at `open`, when
/// `from` is the start of a token and no byte of `from..open` is
/// significant: the start of the function name that the `(` ends, if it
/// ends one, else `open` itself (a `(` block).
///
/// No escape is in `from..open`, so the name is the bytes of the run of
/// name bytes before the `(`, if a token starts where the run does and
/// that token is an identifier (section 4.3.4). The run starts a token
/// unless the byte before it is `#` (a hash holds the run) or `.` or `+`
/// before a digit (a number holds it, and a digit starts no identifier
/// either); at a token's start, only an identifier start makes the run an
/// identifier (a digit or `-` and a digit start a number, which runs on as
/// a dimension or another number to the `(`).
pub(super) fn token_start(bytes: &[u8], from: usize, open: usize) -> usize {
    let mut start = open;
    while start > from && is_name_byte(bytes[start - 1]) {
        start -= 1;
    }
    if start == open || (start > from && bytes[start - 1] == b'#') {
        return open;
    }
    let ident = match bytes[start] {
        b'-' => {
            let next = bytes[start + 1];
            next.is_ascii_alphabetic() || matches!(next, b'-' | b'_' | 0) || next >= 0x80
        }
        b => !b.is_ascii_digit(),
    };
    if ident { start } else { open }
}
