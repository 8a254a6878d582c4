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
        while i < b.len() && !b[i].is_ascii_whitespace() {
            i += 1;
        }
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

#[cfg(test)]
mod tests {
    use super::*;

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
