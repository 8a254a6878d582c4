//! The URL in a refresh value, by the HTML standard's declarative refresh
//! steps: `<meta http-equiv="refresh">` in HTML and a WARC response's
//! `Refresh` header alike, so that neither reader imports the other.

use std::ops::Range;

/// The range of the URL in a refresh `content` value, trimmed, or `None`.
pub fn url(content: &str) -> Option<Range<usize>> {
    let b = content.as_bytes();
    let skip_space = |mut i: usize| {
        while i < b.len() && b[i].is_ascii_whitespace() {
            i += 1;
        }
        i
    };
    let eq = |i: usize, c: u8| b.get(i).is_some_and(|x| x.eq_ignore_ascii_case(&c));
    let mut i = skip_space(0);
    // The time: digits, then any digits and dots.
    let digits_start = i;
    while i < b.len() && b[i].is_ascii_digit() {
        i += 1;
    }
    if i == digits_start && b.get(i) != Some(&b'.') {
        return None;
    }
    while i < b.len() && (b[i].is_ascii_digit() || b[i] == b'.') {
        i += 1;
    }
    if i < b.len() {
        if !(b[i].is_ascii_whitespace() || b[i] == b';' || b[i] == b',') {
            return None;
        }
        i = skip_space(i);
        if matches!(b.get(i), Some(b';' | b',')) {
            i += 1;
        }
        i = skip_space(i);
    }
    if i >= b.len() {
        return None;
    }
    let mut start = i;
    let mut quote = None;
    // "url=", loosely; a partial match leaves the URL where it began.
    let after_prefix = (|| {
        let mut j = i;
        if !eq(j, b'u') {
            return Some(j);
        }
        j += 1;
        if !eq(j, b'r') || !eq(j + 1, b'l') {
            return None;
        }
        j = skip_space(j + 2);
        if b.get(j) != Some(&b'=') {
            return None;
        }
        Some(skip_space(j + 1))
    })();
    if let Some(j) = after_prefix {
        // Skip quotes.
        start = j;
        if let Some(&q @ (b'"' | b'\'')) = b.get(j) {
            quote = Some(q);
            start = j + 1;
        }
    }
    let mut end = b.len();
    if let Some(q) = quote
        && let Some(close) = b[start..].iter().position(|&c| c == q)
    {
        end = start + close;
    }
    while start < end && b[start].is_ascii_whitespace() {
        start += 1;
    }
    while end > start && b[end - 1].is_ascii_whitespace() {
        end -= 1;
    }
    (end > start).then_some(start..end)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn found(v: &str) -> Option<&str> {
        url(v).map(|r| &v[r])
    }

    #[test]
    fn follows_the_refresh_steps() {
        assert_eq!(found("5; url=next.html"), Some("next.html"));
        assert_eq!(found("0;URL='a b.html'x"), Some("a b.html"));
        assert_eq!(found("3, url = \"q.html\""), Some("q.html"));
        assert_eq!(found("1; next.html"), Some("next.html"));
        assert_eq!(found(".5 ur=x"), Some("ur=x"));
        assert_eq!(found("5"), None);
        assert_eq!(found("5;"), None);
        assert_eq!(found("x; url=a"), None);
        assert_eq!(found("5x url=a"), None);
    }
}
