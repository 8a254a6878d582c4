//! Time on hostile inputs, each at two sizes: doubling an input should at
//! most double the time (plus noise), as every byte is read a bounded
//! number of times. Nothing is asserted: the ratios are printed, for a
//! person to read. Run with `cargo bench --bench hostile`;
//! `RELINK_HOSTILE_SCALE` multiplies every size (1 by default), and
//! `RELINK_HOSTILE_ONLY=name,...` runs some of the shapes.
//!
//! The shapes: record lines with no head end (gzipped), long runs of white
//! space between records (gzipped), thousands of interim `1xx` HTTP heads
//! in one record, `Content-Length`s that run into later records and ones
//! a few bytes short, a feed with hundreds of thousands of distinct
//! character references, deeply nested `xml:base`, and pages whose
//! `<meta` tags after the first 1024 bytes stand each in the attributes
//! of the one before (to one `>` at the end, or to no end).

use std::io::Write;
use std::time::{Duration, Instant};

use relink::warc::{self, WarcOptions};
use relink::{Kind, Rewriter};

fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut w = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    w.write_all(bytes).unwrap();
    w.finish().unwrap()
}

fn record(uri: &str, http: &[u8], length: usize) -> Vec<u8> {
    let head = format!(
        "WARC/1.0\r\nWARC-Type: response\r\nWARC-Target-URI: {uri}\r\n\
         Content-Type: application/http; msgtype=response\r\nContent-Length: {length}\r\n\r\n"
    );
    [head.as_bytes(), http, b"\r\n\r\n"].concat()
}

fn page(n: usize) -> Vec<u8> {
    format!("HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n<a href=p{n}>{n}</a>").into_bytes()
}

/// `WARC/1.0` lines without end, gzipped.
fn head_without_end(n: usize) -> Vec<u8> {
    gzip(&b"WARC/1.0\r\n".repeat(n))
}

/// Two records with `n` bytes of white space between them, gzipped.
fn white_space(n: usize) -> Vec<u8> {
    let first = page(1);
    let second = page(2);
    let mut plain = record("http://a.example/1", &first, first.len());
    plain.extend(std::iter::repeat_n(b' ', n));
    plain.extend(b"\r\n");
    plain.extend(record("http://a.example/2", &second, second.len()));
    gzip(&plain)
}

/// One record whose HTTP message has `n` interim `100 Continue` heads.
fn interim_heads(n: usize) -> Vec<u8> {
    let mut http = b"HTTP/1.1 100 Continue\r\n\r\n".repeat(n);
    http.extend(page(0));
    record("http://a.example/", &http, http.len())
}

/// `n` records, each `Content-Length` `delta` bytes off.
fn wrong_lengths(n: usize, delta: isize) -> Vec<u8> {
    (0..n)
        .flat_map(|i| {
            let http = page(i);
            let length = http.len().saturating_add_signed(delta);
            record(&format!("http://a.example/{i}"), &http, length)
        })
        .collect()
}

/// A feed whose entries hold `n` distinct character references.
fn references(n: usize) -> Vec<u8> {
    let mut feed = String::from(
        "<?xml version=\"1.0\"?><feed xmlns=\"http://www.w3.org/2005/Atom\">\
         <entry><content type=\"html\">",
    );
    for i in 0..n {
        let c = char::from_u32(0x4e00 + (i as u32 % 20000)).unwrap_or('x');
        // Distinct spellings: decimal, hex, with leading zeros.
        feed.push_str(&format!("&#{:0width$};", c as u32, width = 5 + i / 20000));
    }
    feed.push_str("&lt;a href=&quot;x&quot;&gt;</content></entry></feed>");
    feed.into_bytes()
}

/// `n` nested elements, each with an `xml:base`.
fn nested_bases(n: usize) -> Vec<u8> {
    let mut doc =
        String::from("<?xml version=\"1.0\"?><feed xmlns=\"http://www.w3.org/2005/Atom\">");
    for _ in 0..n {
        doc.push_str("<div xml:base=\"d/\">");
    }
    doc.push_str("<link href=\"x\"/>");
    for _ in 0..n {
        doc.push_str("</div>");
    }
    doc.push_str("</feed>");
    doc.into_bytes()
}

/// A page whose `<meta` tags after the first 1024 bytes stand each in the
/// attributes of the one before, `<meta a=x ` to a `>` at the end, or
/// `<meta a='` to no end.
fn overlapping_metas(n: usize, each: &str, end: &str) -> Vec<u8> {
    [" ".repeat(1100), each.repeat(n), end.to_owned()]
        .concat()
        .into_bytes()
}

fn time_html(input: &[u8]) -> Duration {
    let rewriter = Rewriter::new()
        .retrieved_from("http://a.example/page")
        .kind(Kind::Html);
    let start = Instant::now();
    let _ = rewriter.rewrite(input);
    start.elapsed()
}

fn time_archive(input: &[u8]) -> Duration {
    let start = Instant::now();
    let mut out = Vec::new();
    let _ = warc::rewrite(input, &mut out, &WarcOptions::default());
    start.elapsed()
}

fn time_feed(input: &[u8]) -> Duration {
    let rewriter = Rewriter::new()
        .retrieved_from("http://a.example/feed")
        .kind(Kind::Xml);
    let start = Instant::now();
    let _ = rewriter.rewrite(input);
    start.elapsed()
}

type Shape = (
    &'static str,
    usize,
    fn(usize) -> Vec<u8>,
    fn(&[u8]) -> Duration,
);

fn main() {
    let scale: usize = std::env::var("RELINK_HOSTILE_SCALE")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1);
    let only: Vec<String> = std::env::var("RELINK_HOSTILE_ONLY")
        .map(|v| v.split(',').map(str::to_owned).collect())
        .unwrap_or_default();
    let shapes: [Shape; 9] = [
        ("head-without-end", 1 << 20, head_without_end, time_archive),
        ("white-space", 64 << 20, white_space, time_archive),
        ("interim-heads", 20_000, interim_heads, time_archive),
        (
            "length-too-long",
            50_000,
            |n| wrong_lengths(n, 200),
            time_archive,
        ),
        (
            "length-too-short",
            50_000,
            |n| wrong_lengths(n, -5),
            time_archive,
        ),
        ("references", 150_000, references, time_feed),
        ("nested-xml-base", 30_000, nested_bases, time_feed),
        (
            "overlapping-metas",
            100_000,
            |n| overlapping_metas(n, "<meta a=x ", ">"),
            time_html,
        ),
        (
            "unclosed-metas",
            100_000,
            |n| overlapping_metas(n, "<meta a='", ""),
            time_html,
        ),
    ];
    println!("shape\tsize\tseconds\tsize x2\tseconds\tratio");
    for (name, size, make, time) in shapes {
        if !only.is_empty() && !only.iter().any(|o| o == name) {
            continue;
        }
        let size = size * scale;
        let small = time(&make(size));
        let large = time(&make(size * 2));
        println!(
            "{name}\t{size}\t{:.3}\t{}\t{:.3}\t{:.2}",
            small.as_secs_f64(),
            size * 2,
            large.as_secs_f64(),
            large.as_secs_f64() / small.as_secs_f64().max(1e-9)
        );
    }
}
