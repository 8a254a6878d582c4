//! Searches that test [`LANES`] positions at once, each for a byte and the
//! two after it: one pass for what would be several `memchr` and `memmem`
//! searches, written so the compiler makes vector code. The three bytes are
//! loaded as three whole arrays: shifting one array compiles to code ten
//! times slower. On x86-64 the same code is compiled a second time for AVX2
//! and taken when the processor has it (twice the lanes an instruction);
//! calling it is `unsafe`.

/// How many positions [`first`] tests at once.
pub(crate) const LANES: usize = 64;

/// What [`first`] reads past the end: never in UTF-8, so ASCII tests fail there.
pub(crate) const PAST_END: u8 = 0xFF;

/// The first position in `from..to` at which `hit` holds of the byte there
/// and the two after it ([`PAST_END`] past the end). `hit` uses `&` and
/// `|`, not `&&` and `||`, so lanes are tested without a branch.
#[inline(always)]
pub(crate) fn first(
    bytes: &[u8],
    from: usize,
    to: usize,
    hit: impl Fn(u8, u8, u8) -> bool,
) -> Option<usize> {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        #[allow(unsafe_code)]
        // SAFETY: `first_avx2` asks for AVX2 alone, and the processor has it.
        return unsafe { first_avx2(bytes, from, to, hit) };
    }
    first_here(bytes, from, to, hit)
}

/// [`first_here`] compiled for AVX2: see the module documentation.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn first_avx2(
    bytes: &[u8],
    from: usize,
    to: usize,
    hit: impl Fn(u8, u8, u8) -> bool,
) -> Option<usize> {
    first_here(bytes, from, to, hit)
}

/// [`first`] as the target compiles it.
#[inline(always)]
fn first_here(
    bytes: &[u8],
    from: usize,
    to: usize,
    hit: impl Fn(u8, u8, u8) -> bool,
) -> Option<usize> {
    let to = to.min(bytes.len());
    let mut at = from;
    // Lanes that hold no hit, passed over in one tight loop.
    while at.saturating_add(LANES) <= to {
        let Some((now, next, after)) = arrays(bytes, at) else {
            break;
        };
        let mut any = 0u8;
        for k in 0..LANES {
            any |= u8::from(hit(now[k], next[k], after[k]));
        }
        if any != 0 {
            return Some(at + first_in_lanes((now, next, after), &hit));
        }
        at += LANES;
    }
    // The last few positions.
    let byte = |i: usize| bytes.get(i).copied().unwrap_or(PAST_END);
    (at..to).find(|&i| hit(bytes[i], byte(i + 1), byte(i + 2)))
}

/// The first lane at which `hit` holds, given that one does: each lane's
/// answer as a byte, tested in vectors as the search is, then eight at a
/// time as words (a position at a time costs ten times more).
#[inline(always)]
#[allow(clippy::type_complexity)]
fn first_in_lanes(
    (now, next, after): (&[u8; LANES], &[u8; LANES], &[u8; LANES]),
    hit: &impl Fn(u8, u8, u8) -> bool,
) -> usize {
    let mut flags = [0u8; LANES];
    for k in 0..LANES {
        flags[k] = u8::from(hit(now[k], next[k], after[k]));
    }
    let words = flags.as_chunks::<8>().0.iter();
    words
        .map(|word| u64::from_le_bytes(*word))
        .enumerate()
        .find(|(_, word)| *word != 0)
        .map_or(LANES, |(i, word)| {
            i * 8 + (word.trailing_zeros() / 8) as usize
        })
}

/// The [`LANES`] bytes from `at`, `at + 1` and `at + 2`, when all are in `bytes`.
#[inline(always)]
#[allow(clippy::type_complexity)]
fn arrays(bytes: &[u8], at: usize) -> Option<(&[u8; LANES], &[u8; LANES], &[u8; LANES])> {
    let now = bytes.get(at..)?.first_chunk::<LANES>()?;
    let next = bytes.get(at + 1..)?.first_chunk::<LANES>()?;
    let after = bytes.get(at + 2..)?.first_chunk::<LANES>()?;
    Some((now, next, after))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What [`first`] answers, a position at a time.
    fn bytewise(
        bytes: &[u8],
        from: usize,
        to: usize,
        hit: impl Fn(u8, u8, u8) -> bool,
    ) -> Option<usize> {
        let byte = |i: usize| bytes.get(i).copied().unwrap_or(PAST_END);
        (from..to.min(bytes.len())).find(|&i| hit(byte(i), byte(i + 1), byte(i + 2)))
    }

    proptest::proptest! {
        /// Every lane is tested, the last positions too; none before `from` or at `to`.
        #[test]
        fn first_is_the_first_hit_a_position_at_a_time(
            bytes in proptest::collection::vec(
                proptest::sample::select(vec![b'<', b'/', b's', b'S', b'x', 0]),
                0..300,
            ),
            from in 0usize..300,
            to in 0usize..310,
        ) {
            let hit = |a: u8, b: u8, c: u8| (a == 0) | ((a == b'<') & (b == b'/') & ((c | 0x20) == b's'));
            let want = bytewise(&bytes, from, to, hit);
            proptest::prop_assert_eq!(first(&bytes, from, to, hit), want);
            // The code compiled for the target alone, where AVX2 is taken.
            proptest::prop_assert_eq!(first_here(&bytes, from, to, hit), want);
        }
    }

    #[test]
    fn the_bytes_past_the_end_match_no_ascii_test() {
        let hit = |a: u8, b: u8, c: u8| (a == b'<') & ((b == b'/') | (c < 0x80));
        assert_eq!(first(b"x<", 0, 2, hit), None);
        assert_eq!(first(b"x</", 0, 3, hit), Some(1));
        let long = [b"x".repeat(200), b"</".to_vec()].concat();
        assert_eq!(first(&long, 0, long.len(), hit), Some(200));
        assert_eq!(first(&long, 0, 200, hit), None);
    }
}
