//! What a file is, by its content (the file name only as a hint). A
//! Maildir, a directory, is found by [`crate::mime::maildir::is_maildir`].

use std::path::Path;

use crate::mime::mbox;

/// The kinds of input relink reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// An HTML document.
    Html,
    /// A style sheet.
    Css,
    /// One message: `.eml`, or MHTML.
    Message,
    /// An mbox archive.
    Mbox,
}

/// Whether `head` starts with an RFC 5322 header field (`Name: value`).
fn starts_with_header(head: &[u8]) -> bool {
    let name_len = head
        .iter()
        .take_while(|b| b.is_ascii_alphanumeric() || **b == b'-')
        .count();
    name_len > 0 && head.get(name_len) == Some(&b':')
}

/// The kind of a file from its first bytes and its name.
pub fn detect_file(path: &Path, head: &[u8]) -> Kind {
    let extension = path
        .extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default();
    if mbox::looks_like_mbox(head) {
        return Kind::Mbox;
    }
    if starts_with_header(head) {
        return Kind::Message;
    }
    match extension.as_str() {
        "css" => Kind::Css,
        "eml" | "mht" | "mhtml" | "msg" => Kind::Message,
        _ => Kind::Html,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn content_decides_before_the_name() {
        let p = Path::new;
        assert_eq!(detect_file(p("a.html"), b"<!DOCTYPE html>"), Kind::Html);
        assert_eq!(
            detect_file(p("a.txt"), b"From: x@y\r\nTo: z\r\n\r\n"),
            Kind::Message
        );
        assert_eq!(
            detect_file(p("page.mhtml"), b"From: <Saved by Blink>\r\n"),
            Kind::Message
        );
        assert_eq!(
            detect_file(p("inbox"), b"From x@y Mon Jan  1 00:00:00 2024\n"),
            Kind::Mbox
        );
        assert_eq!(detect_file(p("s.css"), b"body { }"), Kind::Css);
        assert_eq!(detect_file(p("s.css"), b"@import 'x';"), Kind::Css);
        assert_eq!(detect_file(p("odd.eml"), b"\r\n\r\nbody"), Kind::Message);
    }
}
