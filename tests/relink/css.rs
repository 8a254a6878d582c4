//! The scan that passes over CSS without URL syntax and the scanner that
//! reads the rest, held to cssparser's tokenizer on real CSS: the style
//! sheets, `<style>` elements and `style` attributes of the fixtures, of
//! the real pages of `fixtures/pages/real/` and of the installed Python
//! documentation (when it is there), and the fixtures read whole as CSS.

use std::io::Read;

use relink::css::{may_hold_url, urls, urls_parsed};

use crate::{files_under, fixture, installed_python_docs};

/// The files whose text may hold CSS.
fn holds_css(name: &str) -> bool {
    [
        ".css", ".html", ".htm", ".xhtml", ".mhtml", ".eml", ".xml", ".md",
    ]
    .iter()
    .any(|ext| name.ends_with(ext))
}

/// The text of the `<style>` elements and the values of the `style`
/// attributes of `html`, found by their bytes (values as written, their
/// character references not decoded).
fn style_pieces(html: &str) -> Vec<&str> {
    let lower = html.to_ascii_lowercase();
    let mut pieces = Vec::new();
    let mut at = 0;
    while let Some(found) = lower[at..].find("<style") {
        let start = at + found;
        let Some(open) = lower[start..].find('>') else {
            break;
        };
        let text = start + open + 1;
        let end = lower[text..]
            .find("</style")
            .map_or(html.len(), |e| text + e);
        pieces.push(&html[text..end]);
        at = end;
    }
    at = 0;
    while let Some(found) = lower[at..].find("style=") {
        let value = at + found + "style=".len();
        at = value;
        let Some(quote @ (b'"' | b'\'')) = html.as_bytes().get(value).copied() else {
            continue;
        };
        if let Some(end) = html[value + 1..].find(quote as char) {
            pieces.push(&html[value + 1..value + 1 + end]);
            at = value + 1 + end;
        }
    }
    pieces
}

/// The real pages of `fixtures/pages/real/`, unpacked, each with its name.
fn real_pages() -> Vec<(String, Vec<u8>)> {
    files_under(&fixture("pages/real"))
        .into_iter()
        .filter(|(name, _)| name.ends_with(".html.gz"))
        .map(|(name, gz)| {
            let mut page = Vec::new();
            flate2::read::GzDecoder::new(gz.as_slice())
                .read_to_end(&mut page)
                .expect("a real page unpacks");
            (name, page)
        })
        .collect()
}

#[test]
fn the_scan_finds_what_the_tokenizer_finds_in_real_css() {
    let mut files: Vec<(String, Vec<u8>, bool)> = files_under(&fixture(""))
        .into_iter()
        .filter(|(name, _)| holds_css(name))
        .map(|(name, bytes)| (name, bytes, true))
        .collect();
    if let Some(root) = installed_python_docs() {
        files.extend(
            files_under(&root)
                .into_iter()
                .filter(|(name, _)| name.ends_with(".html") || name.ends_with(".css"))
                .map(|(name, bytes)| (name, bytes, false)),
        );
    }
    files.extend(
        real_pages()
            .into_iter()
            .map(|(name, bytes)| (name, bytes, false)),
    );
    let (mut scanned, mut tokenized) = (0, 0);
    for (name, bytes, whole) in &files {
        let text = String::from_utf8_lossy(bytes);
        let mut pieces = style_pieces(&text);
        if *whole || name.ends_with(".css") {
            pieces.push(&text);
        }
        for css in pieces {
            let parsed = urls_parsed(css);
            if may_hold_url(css.as_bytes()) {
                tokenized += 1;
            } else {
                assert!(parsed.is_empty(), "{name}: {parsed:?} in {css:?}");
                scanned += 1;
            }
            assert_eq!(urls(css), parsed, "{name}: {css:?}");
        }
    }
    assert!(
        scanned >= 1000 && tokenized >= 500,
        "{scanned} scanned, {tokenized} tokenized"
    );
}
