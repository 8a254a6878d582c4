//! Stepping over the tokens of a style sheet that cannot start, end or change
//! a URL (identifiers, numbers, hashes, white space, CDC, delimiters), none of
//! which holds a byte [`is_significant`] stops at: the next significant byte
//! is searched a lane at a time ([`next_significant`]), and tokens are read
//! again only from a function name that may take URLs ([`token_start`]) or,
//! at an escape, from where the skip began.

use super::Blocks;

/// The bytes that start or end a token that matters, or that no other token
/// holds: brackets, quotes, `/` (comments), `\`, `@` (`@import`), `<`
/// (CDO); and `|`, always a delimiter of its own where the scan skips. With
/// it, `[\]` and `{|}` are one range once bit 5 is set, and `'()` another:
/// fewer compares a lane.
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
    // One flag byte a byte, tested as one word: a few vector compares a lane.
    let mut flags = [0u8; LANE];
    for (flag, &b) in flags.iter_mut().zip(lane) {
        *flag = stop(b);
    }
    u128::from_le_bytes(flags)
}

/// Where the first byte from `from` is for which `stop` is not 0, or the end;
/// `stop` must be branch-free so lanes are vector compares. A lane a step at
/// first, as most URLs end there, then [`BLOCK`] lanes (a long `data:` URL).
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
    // A block's flags or-ed over its 64 bytes at once; built otherwise, byte by byte.
    let passed = blocks
        .iter()
        .position(|block| block.as_flattened().iter().fold(0, |any, &b| any | stop(b)) != 0);
    // From the block that holds the stop, lane by lane again.
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

/// Where a skip stopped: at `at`, the significant byte the scan must read (or
/// the end); `token`, where the token before it starts.
pub(super) struct Stop {
    pub(super) at: usize,
    pub(super) token: usize,
}

/// Skips from `from` (a token's start, in a block that may skip) to the first
/// significant byte the scan must read, reading brackets on the way
/// ([`Blocks::bracket`]); a `(` after a name stops it only if the name may
/// take URLs ([`plain_function`]).
pub(super) fn next_significant(bytes: &[u8], from: usize, blocks: &mut Blocks) -> Stop {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        #[allow(unsafe_code)]
        // SAFETY: `next_significant_avx2` asks for AVX2 alone, and the processor has it.
        return unsafe { next_significant_avx2(bytes, from, blocks) };
    }
    next_significant_here(bytes, from, blocks)
}

/// [`next_significant_here`] with AVX2: 64 bytes a step made one bit each
/// ([`avx2::SIGNIFICANT`]), the bits read in turn.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn next_significant_avx2(bytes: &[u8], from: usize, blocks: &mut Blocks) -> Stop {
    let mut token = from;
    let mut at = from.min(bytes.len());
    while at < bytes.len() {
        let mut mask = avx2::block_bits(bytes, at, &avx2::SIGNIFICANT);
        while mask != 0 {
            let stop = at + mask.trailing_zeros() as usize;
            if !read_here(bytes, stop, &mut token, blocks) {
                return Stop { at: stop, token };
            }
            mask &= mask - 1;
        }
        at += 64;
    }
    Stop {
        at: bytes.len(),
        token,
    }
}

/// The bytes of a class among 64 found by AVX2 instructions, which the
/// compiler does not make of [`lane_word`]: each byte's class looked up by its
/// low and by its high four bits (`vpshufb`), the answers gathered as bits
/// (`vpmovmskb`).
#[cfg(target_arch = "x86_64")]
mod avx2 {
    use std::arch::x86_64::{
        __m256i, _mm256_and_si256, _mm256_cmpeq_epi8, _mm256_movemask_epi8, _mm256_set1_epi8,
        _mm256_setr_epi64x, _mm256_setzero_si256, _mm256_shuffle_epi8, _mm256_srli_epi16,
    };

    /// A set of bytes: a byte is in it when the entry of its low four bits
    /// and that of its high four bits share a bit.
    pub(super) struct Class {
        low: [u8; 16],
        high: [u8; 16],
    }

    /// [`super::is_significant`]: the high four bits pick a group (`2_`,
    /// `3_`, `4_`, `5_`, `7_`), the low ones the bytes of each: `"'()/`, `<`,
    /// `@`, `[\]`, `{|}`.
    pub(super) const SIGNIFICANT: Class = Class {
        low: [4, 0, 1, 0, 0, 0, 0, 1, 1, 1, 0, 24, 26, 24, 0, 1],
        high: [0, 0, 1, 2, 4, 8, 0, 16, 0, 0, 0, 0, 0, 0, 0, 0],
    };

    /// What ends a run of an unquoted URL ([`super::url_stop`]): controls and
    /// space (`0_`, `1_`, and `2_` with `"'()`), `\\` and DEL.
    pub(super) const URL_STOP: Class = Class {
        low: [3, 1, 3, 1, 1, 1, 1, 3, 3, 3, 1, 1, 5, 1, 1, 9],
        high: [1, 1, 2, 0, 0, 4, 0, 8, 0, 0, 0, 0, 0, 0, 0, 0],
    };

    /// What ends a run of a string in double quotes ([`super::string_stop`]):
    /// newlines (LF, FF, CR), the quote and `\\`.
    pub(super) const STRING_STOP_DOUBLE: Class = Class {
        low: [0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 1, 0, 5, 1, 0, 0],
        high: [1, 0, 2, 0, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
    };

    /// The same for a string in single quotes.
    pub(super) const STRING_STOP_SINGLE: Class = Class {
        low: [0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 1, 0, 5, 1, 0, 0],
        high: [1, 0, 2, 0, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
    };

    /// A bit for each of the 64 bytes from `at` in `class`; past the end of
    /// `bytes`, none (the last few bytes are copied into a block of their own).
    #[target_feature(enable = "avx2")]
    #[inline]
    pub(super) fn block_bits(bytes: &[u8], at: usize, class: &Class) -> u64 {
        let rest = bytes.get(at..).unwrap_or_default();
        let bits = |block: &[u8; 64]| {
            let (halves, _) = block.as_chunks::<32>();
            u64::from(half(&halves[0], class)) | (u64::from(half(&halves[1], class)) << 32)
        };
        match rest.first_chunk::<64>() {
            Some(block) => bits(block),
            None if rest.is_empty() => 0,
            None => {
                let mut block = [0u8; 64];
                block[..rest.len()].copy_from_slice(rest);
                bits(&block) & (u64::MAX >> (64 - rest.len()))
            }
        }
    }

    /// Where the first byte of `class` from `from` is, or the end.
    #[target_feature(enable = "avx2")]
    pub(super) fn first(bytes: &[u8], from: usize, class: &Class) -> usize {
        let mut at = from;
        while at < bytes.len() {
            let bits = block_bits(bytes, at, class);
            if bits != 0 {
                return at + bits.trailing_zeros() as usize;
            }
            at += 64;
        }
        bytes.len().max(from)
    }

    /// A bit for each of 32 bytes in `class`.
    #[target_feature(enable = "avx2")]
    #[inline]
    fn half(bytes: &[u8; 32], class: &Class) -> u32 {
        let v = load(bytes);
        let nibble = _mm256_set1_epi8(0x0f);
        let low = _mm256_shuffle_epi8(table(&class.low), _mm256_and_si256(v, nibble));
        let high = _mm256_and_si256(_mm256_srli_epi16::<4>(v), nibble);
        let high = _mm256_shuffle_epi8(table(&class.high), high);
        let none = _mm256_cmpeq_epi8(_mm256_and_si256(low, high), _mm256_setzero_si256());
        // The sign bits of the bytes that are in no class, as an `i32`'s bits.
        !_mm256_movemask_epi8(none).cast_unsigned()
    }

    /// A table of 16 entries in each half of a vector, as `vpshufb` reads it.
    #[target_feature(enable = "avx2")]
    #[inline]
    fn table(entries: &[u8; 16]) -> __m256i {
        let (words, _) = entries.as_chunks::<8>();
        let (a, b) = (i64::from_le_bytes(words[0]), i64::from_le_bytes(words[1]));
        _mm256_setr_epi64x(a, b, a, b)
    }

    /// The 32 bytes of `bytes` as a vector, read as four words in order (no
    /// pointer, so no `unsafe`), which the compiler makes one load.
    #[target_feature(enable = "avx2")]
    #[inline]
    fn load(bytes: &[u8; 32]) -> __m256i {
        let (words, _) = bytes.as_chunks::<8>();
        let word = |i: usize| i64::from_le_bytes(words[i]);
        _mm256_setr_epi64x(word(0), word(1), word(2), word(3))
    }
}

/// [`next_significant`] as the target compiles it.
#[inline(always)]
fn next_significant_here(bytes: &[u8], from: usize, blocks: &mut Blocks) -> Stop {
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

/// Reads the significant byte at `at` if the skip reads it itself: `|`, a
/// bracket, or a `(` of a block or of a function taking no URL.
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

/// Whether the `(` at `open`, after a name byte, with no significant byte
/// in `from..open`, opens a plain block to the scan: a `(` block, or a
/// function whose name is not in [`URL_FUNCTIONS`] (any case, no escape),
/// so that `:not(`, `rgba(` and the like do not stop the skip.
#[inline(always)]
fn plain_function(bytes: &[u8], from: usize, open: usize) -> bool {
    // Each name of them ends in `l`, `c` or `t` and is 3, 9 or 17 bytes long:
    // other names are told without looking back over them.
    if !matches!(bytes[open - 1] | 0x20, b'l' | b'c' | b't') {
        return true;
    }
    let start = token_start(bytes, from, open);
    let name = &bytes[start..open];
    start == open
        || !matches!(name.len(), 3 | 9 | 17)
        || !URL_FUNCTIONS
            .iter()
            .any(|f| name.eq_ignore_ascii_case(f.as_bytes()))
}

/// The functions whose arguments may be URLs.
const URL_FUNCTIONS: [&str; 4] = ["url", "src", "image-set", "-webkit-image-set"];

/// Where the first byte from `from` is that an unquoted URL (4.3.6) must look
/// at: white space, `)`, quotes, `(`, controls, escapes (`(b - 0x21) & !b` is
/// `b <= b' '` as vector compares).
pub(super) fn url_stop(bytes: &[u8], from: usize) -> usize {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        #[allow(unsafe_code)]
        // SAFETY: `avx2::first` asks for AVX2 alone, and the processor has it.
        return unsafe { avx2::first(bytes, from, &avx2::URL_STOP) };
    }
    first_where(bytes, from, |b| {
        (b.wrapping_sub(b' ' + 1) & !b & 0x80)
            | u8::from(b.wrapping_sub(b'\'') < 3)
            | u8::from(b == b'"')
            | u8::from(b == b'\\')
            | u8::from(b == 0x7f)
    })
}

/// Where a string quoted by `quote` must look next from `from`: quote, escape, newline.
pub(super) fn string_stop(bytes: &[u8], from: usize, quote: u8) -> usize {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        let class = if quote == b'"' {
            &avx2::STRING_STOP_DOUBLE
        } else {
            &avx2::STRING_STOP_SINGLE
        };
        #[allow(unsafe_code)]
        // SAFETY: `avx2::first` asks for AVX2 alone, and the processor has it.
        return unsafe { avx2::first(bytes, from, class) };
    }
    let common = |b: u8| {
        u8::from(b == b'\\') | u8::from(b == b'\n') | u8::from(b == b'\r') | u8::from(b == 0x0c)
    };
    if quote == b'"' {
        first_where(bytes, from, |b| common(b) | u8::from(b == b'"'))
    } else {
        first_where(bytes, from, |b| common(b) | u8::from(b == b'\''))
    }
}

/// Where the token to read again starts for the `(` at `open`, with no
/// significant byte in `from..open`: the start of the function name the
/// `(` ends, else `open` (a `(` block). The name is the run of name bytes
/// before the `(`, if a token starts there (not after `#`, nor `.` or `+`
/// before a digit) and it is an identifier (4.3.4), not a number.
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
        /// The skip compiled for AVX2, where the processor has it, stops
        /// where the target's own code stops, with the same blocks open.
        #[test]
        fn the_skip_stops_where_the_code_for_the_target_stops(
            bytes in proptest::collection::vec(
                proptest::sample::select(&b"a-(){}[]|'\"/@<\\ u.rl:;#9~^?`\xc3\x00"[..]),
                0..300,
            ),
            from in 0usize..40,
        ) {
            let from = from.min(bytes.len());
            let (mut fast, mut here) = (Blocks::new(), Blocks::new());
            let got = next_significant(&bytes, from, &mut fast);
            let want = next_significant_here(&bytes, from, &mut here);
            proptest::prop_assert_eq!((got.at, got.token), (want.at, want.token));
            proptest::prop_assert_eq!(fast.closers, here.closers);
            proptest::prop_assert_eq!(fast.level, here.level);
        }
    }

    /// Each byte value, at each end of the two halves of a block, and runs
    /// shorter than a block: each AVX2 lookup finds the bytes of its class
    /// (as tested a byte at a time) and no others, none past the end.
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn the_avx2_lookups_find_the_bytes_of_their_class() {
        if !std::arch::is_x86_feature_detected!("avx2") {
            return;
        }
        let url = |b: u8| b <= b' ' || matches!(b, b'\'' | b'(' | b')' | b'"' | b'\\' | 0x7f);
        let double = |b: u8| matches!(b, b'"' | b'\\' | b'\n' | b'\r' | 0x0c);
        let single = |b: u8| matches!(b, b'\'' | b'\\' | b'\n' | b'\r' | 0x0c);
        let classes: [(&avx2::Class, &dyn Fn(u8) -> bool); 4] = [
            (&avx2::SIGNIFICANT, &is_significant),
            (&avx2::URL_STOP, &url),
            (&avx2::STRING_STOP_DOUBLE, &double),
            (&avx2::STRING_STOP_SINGLE, &single),
        ];
        for (n, (class, holds)) in classes.into_iter().enumerate() {
            for b in 0..=255u8 {
                for at in [0, 1, 31, 32, 33, 63] {
                    let mut block = [b'a'; 64];
                    block[at] = b;
                    let want = if holds(b) { 1u64 << at } else { 0 };
                    #[allow(unsafe_code)]
                    // SAFETY: the processor has AVX2, asked above.
                    let got = unsafe { avx2::block_bits(&block, 0, class) };
                    assert_eq!(got, want, "class {n}: {b:#04x} at {at}");
                }
            }
            for len in 0..80 {
                let run = vec![b'\\'; len];
                let want = if len == 0 {
                    0
                } else {
                    u64::MAX >> 64usize.saturating_sub(len)
                };
                #[allow(unsafe_code)]
                // SAFETY: the processor has AVX2, asked above.
                let got = unsafe { avx2::block_bits(&run, 0, class) };
                assert_eq!(got, want, "class {n}: {len} bytes");
            }
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(3000))]
        /// Strings as long as a quoted `data:` URL's start, quotes, escapes and
        /// newlines anywhere: the first stop, as a byte at a time finds it.
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
        /// Runs of URL bytes as long as a `data:` URL's start: the first stop, as a byte at a time finds.
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
