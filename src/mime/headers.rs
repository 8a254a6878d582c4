//! Base URLs named by message headers (RFC 1808 section 3.1, RFC 2110,
//! RFC 2557).

use mailparse::MailHeader;

/// The base headers of one header block, in precedence order: within one
/// block `Content-Base`, then `Base`, then `Content-Location`.
pub const BASE_HEADERS: [&str; 3] = ["Content-Base", "Base", "Content-Location"];

/// Chrome's MHTML header naming the saved page, consulted at the top only.
pub const SNAPSHOT_HEADER: &str = "Snapshot-Content-Location";

/// The first value of header `name`, cleaned into a URL: white space
/// (folding included) removed, then surrounding quotes or angle brackets,
/// then a `URL:` prefix (RFC 1808's `Base: <URL:...>`).
pub fn header_url(headers: &[MailHeader<'_>], name: &str) -> Option<String> {
    let header = headers
        .iter()
        .find(|h| h.get_key_ref().eq_ignore_ascii_case(name))?;
    let compact: String = String::from_utf8_lossy(header.get_value_raw())
        .chars()
        .filter(|c| !c.is_whitespace())
        .collect();
    let mut url = compact.as_str();
    for (open, close) in [('"', '"'), ('<', '>'), ('\'', '\'')] {
        if let Some(inner) = url.strip_prefix(open).and_then(|u| u.strip_suffix(close)) {
            url = inner;
        }
    }
    // Byte-wise: the value may start with any character.
    if url
        .as_bytes()
        .get(..4)
        .is_some_and(|p| p.eq_ignore_ascii_case(b"url:"))
    {
        url = &url[4..];
    }
    (!url.is_empty()).then(|| url.to_owned())
}

/// Where the URL lies in a header's raw value: past white space (folding
/// included), surrounding quotes or angle brackets and a `URL:` prefix, as
/// [`header_url`] reads it; `None` when nothing is left.
pub fn url_token(raw: &[u8]) -> Option<std::ops::Range<usize>> {
    let mut start = raw.iter().position(|b| !b.is_ascii_whitespace())?;
    let mut end = raw.len() - raw.iter().rev().position(|b| !b.is_ascii_whitespace())?;
    for (open, close) in [(b'"', b'"'), (b'<', b'>'), (b'\'', b'\'')] {
        if end - start >= 2 && raw[start] == open && raw[end - 1] == close {
            start += 1;
            end -= 1;
            while start < end && raw[start].is_ascii_whitespace() {
                start += 1;
            }
            while end > start && raw[end - 1].is_ascii_whitespace() {
                end -= 1;
            }
        }
    }
    if raw[start..end]
        .get(..4)
        .is_some_and(|p| p.eq_ignore_ascii_case(b"url:"))
    {
        start += 4;
        while start < end && raw[start].is_ascii_whitespace() {
            start += 1;
        }
    }
    (start < end).then_some(start..end)
}

/// Whether a Content-Location names the part rather than locating it: a
/// `cid:` or `mid:` URL (RFC 2392) is no base.
pub fn names_a_part(url: &str) -> bool {
    let head = url.as_bytes().get(..4);
    head.is_some_and(|h| h.eq_ignore_ascii_case(b"cid:") || h.eq_ignore_ascii_case(b"mid:"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn url(raw: &[u8], name: &str) -> Option<String> {
        let (headers, _) = mailparse::parse_headers(raw).unwrap();
        header_url(&headers, name)
    }

    #[test]
    fn cleans_each_form() {
        assert_eq!(
            url(b"Base: <URL:http://a.example/\r\n b/c>\r\n\r\n", "Base").as_deref(),
            Some("http://a.example/b/c")
        );
        assert_eq!(
            url(b"Content-Base: \"http://a/b/\"\n\n", "content-base").as_deref(),
            Some("http://a/b/")
        );
        assert_eq!(
            url(b"Content-Location: page.html\n\n", "Content-Location").as_deref(),
            Some("page.html")
        );
        assert_eq!(url(b"Content-Location:\n\n", "Content-Location"), None);
        assert!(names_a_part("CID:x@y"));
        assert!(!names_a_part("http://x"));
    }

    #[test]
    fn a_non_ascii_character_at_the_start_of_a_location_is_no_panic() {
        for value in ["abcé", "ab€/x", "é", "\u{1F600}x", "ürl:x"] {
            let raw = format!("Content-Location: {value}\n\n");
            assert_eq!(
                url(raw.as_bytes(), "Content-Location").as_deref(),
                Some(value)
            );
            assert!(!names_a_part(value));
        }
        assert_eq!(
            url("Content-Base: URL:é\n\n".as_bytes(), "Content-Base").as_deref(),
            Some("é")
        );
    }
}
