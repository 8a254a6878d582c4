//! The URLs of a `srcset` or `imagesrcset` value, by the HTML standard's
//! "parse a srcset attribute": each candidate's URL, with its descriptors
//! and the separators left where they are. Shared by the HTML reader and
//! the XML reader's XHTML.

use std::ops::Range;

/// The ranges of the candidates' URLs in `value`.
pub fn urls(value: &str) -> Vec<Range<usize>> {
    let b = value.as_bytes();
    let mut found = Vec::new();
    let mut i = 0;
    loop {
        // Splitting loop: skip white space and commas.
        while i < b.len() && (b[i].is_ascii_whitespace() || b[i] == b',') {
            i += 1;
        }
        if i >= b.len() {
            return found;
        }
        // The URL runs to the next white space.
        let start = i;
        i = next_white_space(b, i);
        let mut end = i;
        if b[end - 1] == b',' {
            // Trailing commas end the candidate; there are no descriptors.
            while end > start && b[end - 1] == b',' {
                end -= 1;
            }
        } else {
            // Descriptors run to a comma outside parentheses.
            let mut in_parens = false;
            while i < b.len() {
                match b[i] {
                    b'(' => in_parens = true,
                    b')' => in_parens = false,
                    b',' if !in_parens => break,
                    _ => {}
                }
                i += 1;
            }
        }
        if end > start {
            found.push(start..end);
        }
    }
}

/// The first ASCII white space in `b` at or after `i`, or its length:
/// eight bytes a test while none is at or below U+0020, as a URL seldom
/// holds one.
fn next_white_space(b: &[u8], mut i: usize) -> usize {
    const ONES: u64 = u64::from_le_bytes([1; 8]);
    while let Some(word) = b.get(i..).and_then(<[u8]>::first_chunk::<8>) {
        let word = u64::from_le_bytes(*word);
        // The high bit of a byte below 0x21 (exact as a whole).
        if word.wrapping_sub(ONES * 0x21) & !word & (ONES * 0x80) != 0 {
            break;
        }
        i += 8;
    }
    while i < b.len() && !b[i].is_ascii_whitespace() {
        i += 1;
    }
    i
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        /// White space is found where a byte at a time finds it, past
        /// words of other bytes and bytes at or below U+0020 that are none.
        #[test]
        fn white_space_is_found_as_a_byte_at_a_time_finds_it(
            bytes in proptest::collection::vec(proptest::sample::select(vec![b'a', b',', b' ', b'\t', b'\n', 0x0b, 0x0c, b'\r', 0, 0x21, 0x80, 0xff]), 0..40),
            from in 0usize..40,
        ) {
            let from = from.min(bytes.len());
            let one_at_a_time = bytes[from..]
                .iter()
                .position(u8::is_ascii_whitespace)
                .map_or(bytes.len(), |at| from + at);
            proptest::prop_assert_eq!(next_white_space(&bytes, from), one_at_a_time);
        }
    }

    fn found(v: &str) -> Vec<&str> {
        urls(v).into_iter().map(|r| &v[r]).collect()
    }

    #[test]
    fn finds_each_candidate_url() {
        assert_eq!(found("a.png"), ["a.png"]);
        assert_eq!(
            found(" a.png 1x, b.png 2x ,c.png"),
            ["a.png", "b.png", "c.png"]
        );
        assert_eq!(found("a.png,b.png"), ["a.png,b.png"]);
        assert_eq!(found("a.png, b.png,, c.png"), ["a.png", "b.png", "c.png"]);
        assert_eq!(found("a,b.png 100w, data:x,y 1x"), ["a,b.png", "data:x,y"]);
        assert_eq!(found("a.png (x, y) 1x, b.png"), ["a.png", "b.png"]);
        assert!(found(" , ,").is_empty());
    }
}
