//! The mark a browser writes at the top of a page it saves,
//! `<!-- saved from url=(NNNN)URL -->` (the "mark of the web": Internet
//! Explorer wrote it first, Chrome and Edge write it still): the URL the
//! page was retrieved from, `NNNN` its length in four digits.

/// How far into a document the mark is looked for: browsers write it
/// before the first element, after the doctype at most.
const MARK_WITHIN: usize = 4096;

/// The URL of the saved-from mark, if the document has one before its
/// first element (only a byte order mark, white space, a doctype and
/// comments before it). `about:` URLs (a page saved from no address) are
/// no mark.
pub fn saved_from(text: &str) -> Option<&str> {
    let mut rest = text.strip_prefix('\u{feff}').unwrap_or(text);
    rest = &rest[..floor_boundary(rest, MARK_WITHIN)];
    loop {
        rest = rest.trim_start_matches(|c: char| c.is_ascii_whitespace());
        if let Some(comment) = rest.strip_prefix("<!--") {
            let end = comment.find("-->")?;
            if let Some(url) = mark_url(&comment[..end]) {
                return Some(url);
            }
            rest = &comment[end + 3..];
        } else if rest.len() >= 2 && rest.as_bytes()[..2].eq_ignore_ascii_case(b"<!") {
            // A doctype.
            rest = &rest[rest.find('>')? + 1..];
        } else {
            return None;
        }
    }
}

/// The URL of a comment's text ` saved from url=(0039)https://... `.
fn mark_url(comment: &str) -> Option<&str> {
    let after = comment.trim_start().strip_prefix("saved from url=(")?;
    let close = after.find(')')?;
    let digits = &after[..close];
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let value = &after[close + 1..];
    // The length written first, when it ends where the comment does;
    // else the comment's text up to its end.
    let url = match digits.parse::<usize>() {
        Ok(n)
            if value.is_char_boundary(n.min(value.len()))
                && value[n.min(value.len())..].trim().is_empty() =>
        {
            &value[..n.min(value.len())]
        }
        _ => value.trim(),
    };
    let url = url.trim();
    let about = url.len() >= 6 && url.as_bytes()[..6].eq_ignore_ascii_case(b"about:");
    (!url.is_empty() && !about).then_some(url)
}

/// The largest character boundary of `s` at or below `at`.
fn floor_boundary(s: &str, at: usize) -> usize {
    let mut at = at.min(s.len());
    while !s.is_char_boundary(at) {
        at -= 1;
    }
    at
}

#[cfg(test)]
mod tests {
    use super::saved_from;

    #[test]
    fn the_mark_is_read_where_browsers_write_it() {
        let cases: &[(&str, Option<&str>)] = &[
            (
                "<!DOCTYPE html>\n<!-- saved from url=(0039)https://example.com/blog/2024/post.html -->\n<html>",
                Some("https://example.com/blog/2024/post.html"),
            ),
            (
                "\u{feff}<!-- saved from url=(0022)http://www.example.com/ --><html>",
                Some("http://www.example.com/"),
            ),
            // Internet Explorer's line ends and a comment before it.
            (
                "<!-- a note -->\r\n<!-- saved from url=(0017)http://h/a/b.html -->\r\n",
                Some("http://h/a/b.html"),
            ),
            // A length that does not fit: the comment's text serves.
            (
                "<!-- saved from url=(0005)http://h/x.html -->",
                Some("http://h/x.html"),
            ),
            // A page saved from no address.
            ("<!-- saved from url=(0014)about:internet -->", None),
            // After the first element it is only a comment.
            ("<html><!-- saved from url=(0009)http://h/ -->", None),
            ("<!-- saved from url=(abc)http://h/ -->", None),
            ("<!-- saved from url=(0009)http://h/", None),
            ("", None),
        ];
        for (text, want) in cases {
            assert_eq!(saved_from(text), *want, "{text:?}");
        }
    }

    #[test]
    fn a_mark_past_the_first_four_kilobytes_is_not_read() {
        let text = format!(
            "<!--{}--><!-- saved from url=(0009)http://h/ -->",
            "é".repeat(2100)
        );
        assert_eq!(saved_from(&text), None);
    }
}
