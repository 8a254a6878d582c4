//! Inputs built to make a reader re-read its bytes: each grows with `n`,
//! and a reader that reads each byte a bounded number of times takes twice
//! as long on twice `n`. Timed at two sizes by the archive bench; small
//! ones are held to the fuzzer's invariants by the integration tests.

use std::fmt::Write as _;
use std::io::{Cursor, Write as _};

use super::generate::gzip;

/// A `response` record of a page with one relative link, its HTTP message
/// `http_head` then the page.
fn page(uri: &str, http_head: &str) -> Vec<u8> {
    let block =
        format!("{http_head}HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n<a href=x>x</a>");
    record(uri, block.as_bytes(), block.len())
}

/// A `response` record holding `block`, its `Content-Length` saying
/// `length`.
fn record(uri: &str, block: &[u8], length: usize) -> Vec<u8> {
    let head = format!(
        "WARC/1.0\r\nWARC-Type: response\r\nWARC-Target-URI: {uri}\r\n\
         Content-Type: application/http; msgtype=response\r\nContent-Length: {length}\r\n\r\n"
    );
    [head.as_bytes(), block, b"\r\n\r\n"].concat()
}

/// `n` thousand `WARC/1.0` lines and no end of a head, gzipped: each line
/// starts what could be a record head.
pub fn version_lines(n: usize) -> Vec<u8> {
    gzip(&b"WARC/1.0\r\n".repeat(n * 1000))
}

/// `n` thousand record heads that never end: a version line and a field,
/// again and again, gzipped.
pub fn heads_without_end(n: usize) -> Vec<u8> {
    gzip(&b"WARC/1.0\r\nWARC-Type: response\r\n".repeat(n * 1000))
}

/// Two records with `n` MiB of white space between them (spaces and line
/// ends), gzipped.
pub fn white_space(n: usize) -> Vec<u8> {
    let run = b"    \r\n  \n".repeat((n << 20) / 9);
    gzip(
        &[
            page("http://a.example/1/", ""),
            run,
            page("http://a.example/2/", ""),
        ]
        .concat(),
    )
}

/// One record whose HTTP message has `n` thousand interim `100 Continue`
/// heads before its final one.
pub fn interim_heads(n: usize) -> Vec<u8> {
    page(
        "http://a.example/",
        &"HTTP/1.1 100 Continue\r\n\r\n".repeat(n * 1000),
    )
}

/// `n` thousand records, each of whose `Content-Length` runs past the end
/// of the file, over every record after it.
pub fn lengths_into_later(n: usize) -> Vec<u8> {
    let count = n * 1000;
    let mut out = Vec::new();
    for i in 0..count {
        let block = b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n<a href=x>x</a>";
        // Far more than the records after it hold.
        let length = block.len() + (count - i) * 400 + 1000;
        out.extend(record(&format!("http://a.example/{i}/"), block, length));
    }
    out
}

/// The archives above at size `n`, by name.
pub fn warcs(n: usize) -> Vec<(&'static str, Vec<u8>)> {
    vec![
        ("WARC/1.0 lines with no head end, gzipped", version_lines(n)),
        ("record heads with no end, gzipped", heads_without_end(n)),
        (
            "white space between records, gzipped",
            white_space(n.div_ceil(16)),
        ),
        ("interim 1xx heads in one record", interim_heads(n)),
        ("Content-Lengths into later records", lengths_into_later(n)),
    ]
}

/// An Atom feed whose text holds `n` thousand distinct character
/// references, and a relative link.
pub fn feed_references(n: usize) -> Vec<u8> {
    let mut feed = String::from(
        "<?xml version=\"1.0\"?>\n<feed xmlns=\"http://www.w3.org/2005/Atom\">\
         <link href=\"a.html\"/><entry><content type=\"html\">",
    );
    // Code points from U+0100 up, skipping the surrogates.
    let mut cp = 0x100u32;
    for _ in 0..n * 1000 {
        while char::from_u32(cp).is_none() {
            cp += 1;
        }
        let _ = write!(feed, "&#x{cp:x};");
        cp += 1;
    }
    feed.push_str("&lt;a href=&quot;b.html&quot;&gt;b&lt;/a&gt;</content></entry></feed>\n");
    feed.into_bytes()
}

/// An Atom feed of `n` thousand elements nested each in the one before,
/// each with a relative `xml:base`.
pub fn nested_xml_base(n: usize) -> Vec<u8> {
    let depth = n * 1000;
    let mut feed =
        String::from("<?xml version=\"1.0\"?>\n<feed xmlns=\"http://www.w3.org/2005/Atom\">");
    for _ in 0..depth {
        feed.push_str("<x xml:base=\"d/\">");
    }
    feed.push_str("<link href=\"a.html\"/>");
    for _ in 0..depth {
        feed.push_str("</x>");
    }
    feed.push_str("</feed>\n");
    feed.into_bytes()
}

/// The feeds above at size `n`, by name.
pub fn feeds(n: usize) -> Vec<(&'static str, Vec<u8>)> {
    vec![
        ("feed of distinct character references", feed_references(n)),
        ("feed of nested xml:base", nested_xml_base(n)),
    ]
}

/// A WACZ whose WARC has one record with a relative link, and a ZipNum
/// index of `n` thousand blocks, a line each, all pointing at the record:
/// every block moves when the record changes.
pub fn zipnum(n: usize) -> Vec<u8> {
    use sha2::Digest as _;
    let warc = gzip(&page("http://example.com/", ""));
    let mut blocks = Vec::new();
    let mut summary =
        String::from("!meta 0 {\"format\": \"cdxj-gzip-1.0\", \"filename\": \"index.cdx.gz\"}\n");
    for i in 0..n * 1000 {
        let key = format!("com,example)/ 2026010100{:06}", i);
        let line = format!(
            "{key} {{\"url\": \"http://example.com/\", \"mime\": \"text/html\", \"status\": \"200\", \
             \"offset\": 0, \"length\": {}, \"filename\": \"data.warc.gz\"}}\n",
            warc.len()
        );
        let block = gzip(line.as_bytes());
        let hash = super::generate::hex(&sha2::Sha256::digest(&block));
        let _ = writeln!(
            summary,
            "{key} {{\"offset\": {}, \"length\": {}, \"digest\": \"sha256:{hash}\"}}",
            blocks.len(),
            block.len()
        );
        blocks.extend(block);
    }
    let mut zip = zip::ZipWriter::new(Cursor::new(Vec::new()));
    let stored =
        zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Stored);
    for (name, bytes) in [
        (
            "datapackage.json",
            b"{\"profile\": \"data-package\", \"wacz_version\": \"1.1.1\", \"resources\": []}"
                .to_vec(),
        ),
        ("archive/data.warc.gz", warc),
        ("indexes/index.cdx.gz", blocks),
        ("indexes/index.idx", summary.into_bytes()),
    ] {
        zip.start_file(name, stored).unwrap();
        zip.write_all(&bytes).unwrap();
    }
    zip.finish().unwrap().into_inner()
}
