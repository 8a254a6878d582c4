//! Base URLs named by message headers (RFC 1808 section 3.1, RFC 2110,
//! RFC 2557).

use std::borrow::Cow;

use mailparse::MailHeader;

/// The base headers of one header block, in precedence order: within one
/// block `Content-Base`, then `Base`, then `Content-Location`.
pub const BASE_HEADERS: [&str; 3] = ["Content-Base", "Base", "Content-Location"];

/// Chrome's MHTML header naming the saved page, consulted at the top only.
pub const SNAPSHOT_HEADER: &str = "Snapshot-Content-Location";

/// Why a header's value gives no URL.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum HeaderUrlError {
    /// An RFC 2047 encoded word that does not decode (a charset or an
    /// encoding mailparse does not know, or bad data).
    #[error("encoded word {0:?} does not decode")]
    EncodedWord(String),
}

/// The first value of header `name`, read into a URL as an RFC 2557 reader
/// reads it; `None` when the header is absent or empty.
pub fn header_url(
    headers: &[MailHeader<'_>],
    name: &str,
) -> Option<Result<String, HeaderUrlError>> {
    let header = headers
        .iter()
        .find(|h| h.get_key_ref().eq_ignore_ascii_case(name))?;
    url_value(header.get_value_raw())
}

/// A raw header value read into a URL: white space (folding included)
/// removed, as RFC 2557 section 4.4.2 folds a long URL (by RFC 2017
/// section 3.1: white space inside it is no part of it); then RFC 2047
/// encoded words decoded, which section 4.4.1 says a reader does before
/// matching; then surrounding quotes or angle brackets dropped, and a
/// `URL:` prefix (RFC 1808's `Base: <URL:...>`). `None` when nothing is
/// left.
pub fn url_value(raw: &[u8]) -> Option<Result<String, HeaderUrlError>> {
    let compact: String = String::from_utf8_lossy(raw)
        .chars()
        .filter(|c| !c.is_whitespace())
        .collect();
    let decoded = match decode_words(&compact) {
        Ok(decoded) => decoded,
        Err(err) => return Some(Err(err)),
    };
    let mut url = decoded.trim();
    for (open, close) in [('"', '"'), ('<', '>'), ('\'', '\'')] {
        if let Some(inner) = url.strip_prefix(open).and_then(|u| u.strip_suffix(close)) {
            url = inner.trim();
        }
    }
    // Byte-wise: the value may start with any character.
    if url
        .as_bytes()
        .get(..4)
        .is_some_and(|p| p.eq_ignore_ascii_case(b"url:"))
    {
        url = url[4..].trim_start();
    }
    (!url.is_empty()).then(|| Ok(url.to_owned()))
}

/// Where an RFC 2047 encoded word (`=?charset?encoding?text?=`) starts at
/// `at` in `text`, its length; `None` when what starts there is not one.
fn encoded_word_at(text: &str, at: usize) -> Option<usize> {
    let rest = text[at..].strip_prefix("=?")?;
    let charset = rest.find('?')?;
    let after = &rest[charset + 1..];
    let mut chars = after.chars();
    let _encoding = chars.next()?;
    let body = chars.as_str().strip_prefix('?')?;
    let end = body.find("?=")?;
    let word = 2 + charset + 1 + (after.len() - body.len()) + end + 2;
    (charset > 0 && !body[..end].contains('?')).then_some(word)
}

/// `text` with each RFC 2047 encoded word decoded (by mailparse, which
/// knows the charsets); a `=?` that starts no encoded word is kept. A word
/// that does not decode is an error: the text is then not what its writer
/// meant.
pub fn decode_words(text: &str) -> Result<Cow<'_, str>, HeaderUrlError> {
    if !text.contains("=?") {
        return Ok(Cow::Borrowed(text));
    }
    let mut out = String::with_capacity(text.len());
    let mut copied = 0;
    let mut at = 0;
    while let Some(found) = text[at..].find("=?").map(|i| at + i) {
        let Some(len) = encoded_word_at(text, found) else {
            at = found + 2;
            continue;
        };
        let word = &text[found..found + len];
        // mailparse decodes the words of a header's value; one that does
        // not decode is given back as it is.
        let header = format!("X: {word}");
        let decoded = mailparse::parse_header(header.as_bytes())
            .map(|(h, _)| h.get_value())
            .ok()
            .filter(|v| v != word)
            .ok_or_else(|| HeaderUrlError::EncodedWord(word.to_owned()))?;
        out.push_str(&text[copied..found]);
        out.push_str(&decoded);
        at = found + len;
        copied = at;
    }
    out.push_str(&text[copied..]);
    Ok(Cow::Owned(out))
}

/// Whether `url` can be written in a header as it is: printable ASCII
/// without white space (RFC 5322 section 2.2), and nothing a reader would
/// take for an encoded word.
pub fn is_plain(url: &str) -> bool {
    url.bytes().all(|b| b.is_ascii_graphic())
        && !url
            .match_indices("=?")
            .any(|(at, _)| encoded_word_at(url, at).is_some())
}

/// `text` as RFC 2047 encoded words in UTF-8 with the Q encoding, each at
/// most 75 characters long (section 2) and holding whole characters
/// (section 5), separated by `separator` (folding white space: a reader
/// drops it between two encoded words, section 6.2). Written here rather
/// than with a crate: mailparse only decodes, and the words must fit the
/// header's own line endings.
pub fn encode_words(text: &str, separator: &str) -> String {
    const OPEN: &str = "=?utf-8?q?";
    const CLOSE: &str = "?=";
    const ROOM: usize = 75 - OPEN.len() - CLOSE.len();
    let mut out = String::from(OPEN);
    let mut used = 0;
    for c in text.chars() {
        let mut encoded = String::new();
        if c.is_ascii_alphanumeric() || matches!(c, '!' | '*' | '+' | '-' | '/') {
            encoded.push(c);
        } else if c == ' ' {
            encoded.push('_');
        } else {
            let mut buf = [0; 4];
            for b in c.encode_utf8(&mut buf).bytes() {
                encoded.push_str(&format!("={b:02X}"));
            }
        }
        if used + encoded.len() > ROOM && used > 0 {
            out.push_str(CLOSE);
            out.push_str(separator);
            out.push_str(OPEN);
            used = 0;
        }
        out.push_str(&encoded);
        used += encoded.len();
    }
    out.push_str(CLOSE);
    out
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
        header_url(&headers, name).map(Result::unwrap)
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

    #[test]
    fn encoded_words_are_decoded_after_unfolding() {
        let value = |raw: &str| url_value(raw.as_bytes());
        assert_eq!(
            value(" =?utf-8?q?sub/page=2Ehtml?=").unwrap().as_deref(),
            Ok("sub/page.html")
        );
        // Folded between two words, and inside quotes.
        assert_eq!(
            value(" \"=?utf-8?q?caf=C3=A9?=\r\n =?ISO-8859-1?B?Lmh0bWw=?=\"")
                .unwrap()
                .as_deref(),
            Ok("café.html")
        );
        // A `=?` that starts no word is kept.
        assert_eq!(value("p?a=?b").unwrap().as_deref(), Ok("p?a=?b"));
        assert_eq!(
            value("=?x-unknown?q?a?="),
            Some(Err(HeaderUrlError::EncodedWord(
                "=?x-unknown?q?a?=".to_owned()
            )))
        );
        assert!(matches!(value("=?utf-8?b?***?="), Some(Err(_))));
        assert_eq!(value(" =?utf-8?q??= "), None);
    }

    #[test]
    fn encoded_words_decode_back_to_the_text() {
        for text in [
            "http://h/café x.html",
            "a".repeat(200).as_str(),
            "€€€/ü?q=1",
        ] {
            let words = encode_words(text, "\r\n ");
            assert!(words.split("\r\n ").all(|w| w.len() <= 75), "{words}");
            assert_eq!(url_value(words.as_bytes()).unwrap().as_deref(), Ok(text));
        }
        assert!(is_plain("http://h/a%20b"));
        assert!(!is_plain("http://h/a b"));
        assert!(!is_plain("http://h/é"));
        assert!(is_plain("http://h/p?a=?b"));
        assert!(!is_plain("http://h/=?utf-8?q?x?="));
    }
}
