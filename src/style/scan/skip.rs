//! Stepping over the tokens of a style sheet that cannot start, end or
//! change a URL, without reading them one by one.
//!
//! Between two tokens that matter, a style sheet holds identifiers,
//! numbers, dimensions, hashes, white space, CDC and delimiters; none of
//! them holds a byte that [`is_significant`] stops at (`|` only as a
//! delimiter of its own), and none changes what the scan finds where it
//! is allowed to skip (see `Level::may_skip`). The scan therefore
//! searches for the next significant byte (a word at a time, in lanes the
//! compiler turns into vector compares), reads the brackets and the
//! functions that take no URL it finds on the way itself
//! ([`next_significant`]), and reads tokens again only from the first
//! other stop: from the start of the name of a function that may take one
//! ([`token_start`]), or, at an escape, from where the skip began (or its
//! last bracket), since an escape can hide anything.

use super::Blocks;

/// The bytes that start or end a token that matters, or that a token that
/// does not matter never holds: blocks and functions (`(`, `)`, `[`, `]`,
/// `{`, `}`), strings (`"`, `'`), comments (`/`), escapes (`\`),
/// at-keywords (`@`, for `@import`) and CDO (`<`, for `<!--`, which ends
/// in name bytes); and `|`, which is none of these but is always a
/// delimiter token of its own where the scan skips, so stopping at it
/// reads what reading every token reads. With it, the bracket bytes
/// `[\]` and `{|}` are one range once bit 5 is set, and `'()` another:
/// fewer compares a lane than one for each byte.
const fn is_significant(b: u8) -> bool {
    ((b | 0x20).wrapping_sub(b'{') < 3)
        | (b.wrapping_sub(b'\'') < 3)
        | (b == b'"')
        | (b == b'/')
        | (b == b'@')
        | (b == b'<')
}

/// How many bytes one vector compare of [`first_where`] looks at.
const LANE: usize = 16;

/// How many lanes [`first_where`] tests at once in a long run.
const BLOCK: usize = 4;

/// The flags of the bytes of `lane` (`stop` of each), as one word.
#[inline(always)]
fn lane_word(lane: &[u8; LANE], stop: &impl Fn(u8) -> u8) -> u128 {
    // One flag byte for each byte, tested as one word: the form that the
    // compiler turns into a few vector compares for the lane.
    let mut flags = [0u8; LANE];
    for (flag, &b) in flags.iter_mut().zip(lane) {
        *flag = stop(b);
    }
    u128::from_le_bytes(flags)
}

/// Where the first byte at or after `from` is for which `stop` is not 0,
/// or the end. `stop` must be a few compares and bit operations, with no
/// branch or table: the lanes are then vector compares. (Not every such
/// `stop` is: one with a compare against a variable, or with `<` alone,
/// compiles to a compare for each byte; check the machine code.)
///
/// The first lanes are looked at one a step, as most URLs end within
/// them; past those the run is a long one (a `data:` URL of a font or an
/// image, hundreds of kilobytes), looked at [`BLOCK`] lanes a step with
/// one test for all of them.
#[inline(always)]
fn first_where(bytes: &[u8], from: usize, stop: impl Fn(u8) -> u8) -> usize {
    let mut at = from;
    let rest = bytes.get(from..).unwrap_or_default();
    let (lanes, tail) = rest.as_chunks::<LANE>();
    let (near, far) = lanes.split_at(lanes.len().min(BLOCK));
    for lane in near {
        let word = lane_word(lane, &stop);
        if word != 0 {
            return at + (word.trailing_zeros() / 8) as usize;
        }
        at += LANE;
    }
    let (blocks, _) = far.as_chunks::<BLOCK>();
    // A block's flags or-ed together over its 64 bytes at once: built as
    // four lane words first (an array of them mapped, or or-ed in turn),
    // the compiler tests them a byte at a time, ten times the work.
    let passed = blocks
        .iter()
        .position(|block| block.as_flattened().iter().fold(0, |any, &b| any | stop(b)) != 0);
    // From the block that holds the stop (or after the last block), lane
    // by lane again.
    let passed = passed.unwrap_or(blocks.len()) * BLOCK;
    at += passed * LANE;
    for lane in &far[passed..] {
        let word = lane_word(lane, &stop);
        if word != 0 {
            return at + (word.trailing_zeros() / 8) as usize;
        }
        at += LANE;
    }
    at + tail
        .iter()
        .position(|&b| stop(b) != 0)
        .unwrap_or(tail.len())
}

/// Where a skip stopped: at `at`, the significant byte that the scan must
/// read as a token (or the end), and where the token before it starts,
/// `token`: where the skip began, or after the last bracket it read.
pub(super) struct Stop {
    pub(super) at: usize,
    pub(super) token: usize,
}

/// Skips from `from` (the start of a token, in a block that may skip) to
/// the first significant byte that the scan must read, or the end.
///
/// The brackets on the way are read here, found a lane at a time like
/// the rest (most significant bytes are brackets: `{}` a rule, `()` a
/// function): `blocks` opens and ends them as the scan does
/// ([`Blocks::bracket`]). Each block the skip opens is one that may skip
/// too (a plain block), and each that it ends hands back to a block that
/// has read a token since its function's name, so may skip as well. A `(`
/// after a name byte stops the skip only when it may end the name of a
/// function that takes URLs ([`plain_function`]); `|` never does: it is a
/// delimiter of its own.
pub(super) fn next_significant(bytes: &[u8], from: usize, blocks: &mut Blocks) -> Stop {
    let mut token = from;
    let mut at = from;
    let rest = bytes.get(from..).unwrap_or_default();
    let (lanes, tail) = rest.as_chunks::<LANE>();
    for lane in lanes {
        let mut word = lane_word(lane, &|b| u8::from(is_significant(b)));
        // Each flag is one bit, the lowest of its byte: cleared in turn.
        while word != 0 {
            let stop = at + (word.trailing_zeros() / 8) as usize;
            if !read_here(bytes, stop, &mut token, blocks) {
                return Stop { at: stop, token };
            }
            word &= word - 1;
        }
        at += LANE;
    }
    for (i, &b) in tail.iter().enumerate() {
        if is_significant(b) && !read_here(bytes, at + i, &mut token, blocks) {
            return Stop { at: at + i, token };
        }
    }
    Stop {
        at: bytes.len(),
        token,
    }
}

/// Reads the significant byte at `at` if it is a token that the skip
/// reads itself: `|`, a bracket, or a `(` that opens a block or ends the
/// name of a function that takes no URL. `token` moves past it.
#[inline(always)]
fn read_here(bytes: &[u8], at: usize, token: &mut usize, blocks: &mut Blocks) -> bool {
    let b = bytes[at];
    let read = match b {
        b'|' => true,
        b'(' if at > *token && super::NAME_BYTE[usize::from(bytes[at - 1])] => {
            plain_function(bytes, *token, at) && blocks.bracket(b)
        }
        _ => blocks.bracket(b),
    };
    if read {
        *token = at + 1;
    }
    read
}

/// Whether the `(` at `open`, after a name byte, when `from` is the start
/// of a token and no byte of `from..open` is significant, opens what
/// reading the tokens would open as a plain block: a `(` block (the name
/// bytes before it are no function's name, [`token_start`]), or a
/// function whose name is none of those that take URLs
/// ([`URL_FUNCTIONS`], in any case, as `Scanner::ident_like` reads them;
/// there is no escape in it). Both end the same way as the bracket: the
/// block it is in has read a token, and a plain one is open. (Style
/// sheets hold thousands of functions, `:not(`, `rgba(`, `translate(`,
/// each of which stopped the skip.)
#[inline(always)]
fn plain_function(bytes: &[u8], from: usize, open: usize) -> bool {
    let start = token_start(bytes, from, open);
    let name = &bytes[start..open];
    start == open
        || !URL_FUNCTIONS
            .iter()
            .any(|f| name.eq_ignore_ascii_case(f.as_bytes()))
}

/// The functions whose arguments may be URLs: a quoted string first in
/// `url(` and `src(`, the strings of `image-set(`.
const URL_FUNCTIONS: [&str; 4] = ["url", "src", "image-set", "-webkit-image-set"];

/// Where the first byte at or after `from` is that an unquoted URL (CSS
/// Syntax 3, 4.3.6) must look at, or the end: white space, `)`, what makes
/// it bad (quotes, `(`, non-printable bytes) and escapes. NUL and the C0
/// bytes that are not white space are among them, as every byte up to
/// space is: those have the top bit of `(b - 0x21) & !b` set, the form
/// of `b <= b' '` that compiles to vector compares.
pub(super) fn url_stop(bytes: &[u8], from: usize) -> usize {
    first_where(bytes, from, |b| {
        (b.wrapping_sub(b' ' + 1) & !b & 0x80)
            | u8::from(b.wrapping_sub(b'\'') < 3)
            | u8::from(b == b'"')
            | u8::from(b == b'\\')
            | u8::from(b == 0x7f)
    })
}

/// Where the first byte at or after `from` is that a string quoted by
/// `quote` (`"` or `'`) must look at, or the end: its quote, an escape,
/// or a newline (which makes it bad). One search for each quote, so that
/// each compares with constants only.
pub(super) fn string_stop(bytes: &[u8], from: usize, quote: u8) -> usize {
    let common = |b: u8| {
        u8::from(b == b'\\') | u8::from(b == b'\n') | u8::from(b == b'\r') | u8::from(b == 0x0c)
    };
    if quote == b'"' {
        first_where(bytes, from, |b| common(b) | u8::from(b == b'"'))
    } else {
        first_where(bytes, from, |b| common(b) | u8::from(b == b'\''))
    }
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
    let before = bytes.get(from..open).unwrap_or_default();
    let run = before
        .iter()
        .rev()
        .take_while(|&&b| super::NAME_BYTE[usize::from(b)])
        .count();
    let start = open - run;
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

#[cfg(test)]
mod tests {
    use super::*;

    /// What [`url_stop`] finds, a byte at a time.
    fn url_stop_bytewise(bytes: &[u8], from: usize) -> usize {
        let stop = |b: u8| b <= b' ' || matches!(b, b'\'' | b'(' | b')' | b'"' | b'\\' | 0x7f);
        bytes[from..]
            .iter()
            .position(|&b| stop(b))
            .map_or(bytes.len(), |i| from + i)
    }

    /// What [`string_stop`] finds, a byte at a time.
    fn string_stop_bytewise(bytes: &[u8], from: usize, quote: u8) -> usize {
        let stop = |b: u8| b == quote || matches!(b, b'\\' | b'\n' | b'\r' | 0x0c);
        bytes[from..]
            .iter()
            .position(|&b| stop(b))
            .map_or(bytes.len(), |i| from + i)
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(3000))]
        /// Strings as long as a quoted `data:` URL's start, with either
        /// quote, escapes, newlines and the other quote anywhere: the first
        /// stop, as a byte at a time finds it.
        #[test]
        fn the_string_search_finds_the_first_stop(
            len in 0usize..700,
            stops in proptest::collection::vec((0usize..700, proptest::sample::select(&[b'"', b'\'', b'\\', b'\n', b'\r', 0x0c, 0u8, b' '][..])), 0..3),
            from in 0usize..40,
            double in proptest::bool::ANY,
        ) {
            let mut bytes = vec![b'A'; len];
            for (at, b) in stops {
                if at < len {
                    bytes[at] = b;
                }
            }
            let from = from.min(len);
            let quote = if double { b'"' } else { b'\'' };
            proptest::prop_assert_eq!(string_stop(&bytes, from, quote), string_stop_bytewise(&bytes, from, quote));
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(3000))]
        /// Runs of URL bytes as long as a `data:` URL's start (past the
        /// first lanes, in blocks, after them and in the tail), with stops
        /// anywhere: the first stop, as a byte at a time finds it.
        #[test]
        fn the_url_search_finds_the_first_stop_of_a_long_run(
            len in 0usize..700,
            stops in proptest::collection::vec((0usize..700, proptest::sample::select(&[b' ', b')', b'\\', b'"', 0u8, 0x7f, b'\n'][..])), 0..3),
            from in 0usize..40,
        ) {
            let mut bytes = vec![b'A'; len];
            for (at, b) in stops {
                if at < len {
                    bytes[at] = b;
                }
            }
            let from = from.min(len);
            proptest::prop_assert_eq!(url_stop(&bytes, from), url_stop_bytewise(&bytes, from));
        }
    }
}
