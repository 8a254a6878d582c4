//! The HTTP message inside a WARC `response` record: folded header
//! fields, codings that do not decode (read as identity, as warcio reads
//! them), interim `1xx` responses, and the links of the HTTP head. Each
//! rewritten file is checked by warcio, a reader that shares no code with
//! relink.

use std::collections::BTreeMap;
use std::io::Write;
use std::process::Command;

use flate2::Compression;
use relink::{Input, Rewriter, Rules};
use serde_json::Value;

use crate::fixture;
use crate::warc::{RecordLink, Summary, run_archive};

const HTTP: &str = "application/http; msgtype=response";

fn sha1(bytes: &[u8]) -> String {
    sha1_smol::Sha1::from(bytes).digest().to_string()
}

/// A `response` record: `fields` are WARC header fields written as they
/// are (`WARC-Target-URI` among them), then a hex SHA-1 block digest, a
/// payload digest over `payload` when given, and the length.
fn record(fields: &str, block: &[u8], payload: Option<&[u8]>) -> Vec<u8> {
    let mut head = format!(
        "WARC/1.1\r\nWARC-Type: response\r\nWARC-Record-ID: <urn:uuid:{}>\r\n{fields}Content-Type: {HTTP}\r\nWARC-Block-Digest: sha1:{}\r\n",
        sha1(fields.as_bytes()),
        sha1(block)
    );
    if let Some(payload) = payload {
        head.push_str(&format!("WARC-Payload-Digest: sha1:{}\r\n", sha1(payload)));
    }
    head.push_str(&format!("Content-Length: {}\r\n\r\n", block.len()));
    [head.as_bytes(), block, b"\r\n\r\n"].concat()
}

/// A response record for `uri` whose HTTP message is `head` (blank line
/// included) and `body`, the payload digest over the body.
fn response(uri: &str, head: &str, body: &[u8]) -> Vec<u8> {
    let block = [head.as_bytes(), body].concat();
    record(&format!("WARC-Target-URI: {uri}\r\n"), &block, Some(body))
}

/// `input` rewritten through the front door, and what the run reported.
fn rewrite(input: &[u8]) -> (Vec<u8>, Summary) {
    run_archive(&Rewriter::new(), Input::bytes(input), true)
        .unwrap()
        .summary()
}

/// The links of `input` listed by `rewriter`, each with its record.
fn links_by(rewriter: &Rewriter, input: &[u8]) -> Vec<RecordLink> {
    run_archive(rewriter, Input::bytes(input), false)
        .unwrap()
        .links()
}

fn links(input: &[u8]) -> Vec<RecordLink> {
    links_by(&Rewriter::new(), input)
}

fn find(haystack: &[u8], needle: &[u8]) -> bool {
    memchr::memmem::find(haystack, needle).is_some()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Runs python3 with `args`, failing with what it said.
fn python(args: &[&str]) -> Vec<u8> {
    let output = Command::new(crate::python()).args(args).output().unwrap_or_else(|e| {
        panic!("python3 is needed to check WARC output with warcio ({e}); install python3 and run: python3 -m pip install warcio brotli")
    });
    let stderr = text(&output.stderr);
    match output.status.code() {
        Some(0) => output.stdout,
        Some(2) => {
            panic!("warcio is needed to check WARC output: python3 -m pip install warcio\n{stderr}")
        }
        _ => panic!("python3 {args:?} failed:\n{stderr}"),
    }
}

/// Every record of a WARC file as warcio reads it, after `warcio check`
/// passed on it (see fixtures/warc/check_warc.py).
fn warcio(bytes: &[u8]) -> Vec<Value> {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("out.warc");
    std::fs::write(&path, bytes).unwrap();
    let check = fixture("warc/check_warc.py");
    let out = python(&[check.to_str().unwrap(), path.to_str().unwrap()]);
    serde_json::from_slice::<Value>(&out)
        .unwrap()
        .as_array()
        .unwrap()
        .clone()
}

fn payload<'a>(records: &'a [Value], uri: &str) -> &'a str {
    records
        .iter()
        .find(|r| r["type"] == "response" && r["uri"] == uri)
        .and_then(|r| r["payload"].as_str())
        .unwrap_or_else(|| panic!("no response for {uri}"))
}

// Folded header fields.

#[test]
fn a_folded_warc_target_uri_is_read_whole() {
    let page = b"<a href=x>x</a>";
    let block = [
        &b"HTTP/1.1 200 OK\r\nContent-Type:\r\n text/html\r\nContent-Location:\r\n\tsub/\r\n\r\n"[..],
        page,
    ]
    .concat();
    // The block digest is folded too: it is written again on one line.
    let input = record(
        "WARC-Target-URI:\r\n http://a.example/dir/\r\n",
        &block,
        Some(page),
    );
    let input = text(&input).replacen(
        "WARC-Block-Digest: sha1:",
        "WARC-Block-Digest:\r\n sha1:",
        1,
    );
    let input = input.as_bytes();
    let found = links(input);
    let resolved: Vec<(&str, &str)> = found
        .iter()
        .map(|l| (l.link.original.as_str(), l.link.resolved.as_str()))
        .collect();
    assert_eq!(
        resolved,
        [
            ("sub/", "http://a.example/dir/sub/"),
            ("x", "http://a.example/dir/sub/x"),
        ]
    );
    assert_eq!(found[0].target_uri, "http://a.example/dir/");
    let (out, summary) = rewrite(input);
    assert_eq!(summary.changed, 1, "{:?}", summary.warnings);
    // warcio keeps the fold's space in a WARC field's value (it reads
    // this target URI as not HTTP), so the record is checked here.
    let new_page = b"<a href=http://a.example/dir/sub/x>x</a>";
    let new_block = [
        &b"HTTP/1.1 200 OK\r\nContent-Type:\r\n text/html\r\nContent-Location:\r\n\thttp://a.example/dir/sub/\r\n\r\n"[..],
        new_page,
    ]
    .concat();
    let want = format!(
        "WARC-Target-URI:\r\n http://a.example/dir/\r\nContent-Type: {HTTP}\r\nWARC-Block-Digest: sha1:{}\r\nWARC-Payload-Digest: sha1:{}\r\nContent-Length: {}\r\n\r\n",
        sha1(&new_block),
        sha1(new_page),
        new_block.len()
    );
    assert!(
        find(&out, &[want.as_bytes(), &new_block, b"\r\n\r\n"].concat()),
        "{}",
        text(&out)
    );
    assert!(links(&out).iter().all(|l| !l.link.changed));
}

// Codings that do not decode.

fn deflate(bytes: &[u8]) -> Vec<u8> {
    let mut w = flate2::write::ZlibEncoder::new(Vec::new(), Compression::default());
    w.write_all(bytes).unwrap();
    w.finish().unwrap()
}

#[test]
fn codings_that_do_not_decode_are_read_as_identity() {
    let page = b"<!doctype html>\n<a href=x>x</a>\n";
    let gzip_fields = format!(
        "Content-Encoding: gzip\r\nContent-Length: {}\r\n",
        page.len()
    );
    let cases = [
        (
            "chunked",
            "Transfer-Encoding: chunked\r\nContent-Length: -1\r\n",
        ),
        ("gzip", &gzip_fields),
        ("deflate", "Content-Encoding: deflate\r\n"),
        ("br", "Content-Encoding: br\r\n"),
    ];
    let input: Vec<u8> = cases
        .iter()
        .flat_map(|(name, fields)| {
            let head = format!("HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n{fields}\r\n");
            response(&format!("http://a.example/{name}/"), &head, page)
        })
        .collect();
    let found = links(&input);
    assert_eq!(found.len(), 4);
    let (out, summary) = rewrite(&input);
    assert_eq!(summary.changed, 4, "{:?}", summary.warnings);
    let warnings: Vec<String> = summary.warnings.iter().map(|w| w.to_string()).collect();
    assert_eq!(warnings.len(), 4, "{warnings:?}");
    for ((name, _), warning) in cases.iter().zip(&warnings) {
        let header = if *name == "chunked" {
            "transfer-encoding"
        } else {
            "content-encoding"
        };
        assert!(
            warning.contains(&format!(
                "http://a.example/{name}/: {header} {name} does not decode ("
            )),
            "{warning}"
        );
        assert!(warning.ends_with("; read as it is"), "{warning}");
    }
    let after = warcio(&out);
    for (name, _) in &cases {
        assert_eq!(
            payload(&after, &format!("http://a.example/{name}/")),
            format!("<!doctype html>\n<a href=http://a.example/{name}/x>x</a>\n")
        );
    }
    assert!(after.iter().all(|r| r["length_ok"] != false));
    // Nothing was undone, so nothing is redone: the body is written as it
    // came, and a Content-Length that did not give its length stays.
    let new_page = b"<!doctype html>\n<a href=http://a.example/chunked/x>x</a>\n";
    let chunked = b"Transfer-Encoding: chunked\r\nContent-Length: -1\r\n\r\n";
    assert!(
        find(&out, &[&chunked[..], new_page].concat()),
        "{}",
        text(&out)
    );
    let gzip_page = b"<!doctype html>\n<a href=http://a.example/gzip/x>x</a>\n";
    let gzip_fields = format!(
        "Content-Encoding: gzip\r\nContent-Length: {}\r\n\r\n",
        gzip_page.len()
    );
    assert!(
        find(&out, &[gzip_fields.as_bytes(), gzip_page].concat()),
        "{}",
        text(&out)
    );
    // A second pass finds the same links, now absolute.
    assert_eq!(rewrite(&out).1.changed, 0);
}

#[test]
fn bytes_after_a_coded_body_are_kept_when_the_record_is_rewritten() {
    let page = b"<!doctype html>\n<a href=x>x</a>\n";
    let gzip = |bytes: &[u8]| {
        let mut w = flate2::write::GzEncoder::new(Vec::new(), Compression::default());
        w.write_all(bytes).unwrap();
        w.finish().unwrap()
    };
    let stray = b"\r\nstray bytes after the stream\n";
    let two_members = [gzip(b"<!doctype html>\n"), gzip(b"<a href=x>x</a>\n")].concat();
    let cases: [(&str, &str, Vec<u8>); 3] = [
        ("zlib", "deflate", [deflate(page), stray.to_vec()].concat()),
        ("gzip", "gzip", [gzip(page), stray.to_vec()].concat()),
        ("members", "gzip", [two_members, stray.to_vec()].concat()),
    ];
    let input: Vec<u8> = cases
        .iter()
        .flat_map(|(name, coding, body)| {
            let head = format!(
                "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Encoding: {coding}\r\n\r\n"
            );
            response(&format!("http://a.example/{name}/"), &head, body)
        })
        .collect();
    let (out, summary) = rewrite(&input);
    assert_eq!(summary.changed, 3, "{:?}", summary.warnings);
    let warnings: Vec<String> = summary.warnings.iter().map(|w| w.to_string()).collect();
    assert_eq!(warnings.len(), 3, "{warnings:?}");
    assert!(
        warnings.iter().all(|w| w.ends_with(&format!(
            "ends {} bytes before the body does; those bytes kept as they are",
            stray.len()
        ))),
        "{warnings:?}"
    );
    for (name, _, _) in &cases {
        let uri = format!("http://a.example/{name}/");
        // The record, from its target URI on, ends with the stray bytes.
        let at = memchr::memmem::find(&out, uri.as_bytes()).unwrap();
        let end =
            memchr::memmem::find(&out[at..], b"\r\n\r\nWARC/").map_or(out.len() - 4, |e| at + e);
        assert!(
            out[at..end].ends_with(stray),
            "{name}: {}",
            text(&out[at..end])
        );
    }
    let after = warcio(&out);
    for (name, _, _) in &cases {
        assert_eq!(
            payload(&after, &format!("http://a.example/{name}/")),
            format!("<!doctype html>\n<a href=http://a.example/{name}/x>x</a>\n")
        );
    }
    assert!(after.iter().all(|r| r["length_ok"] != false));
}

#[test]
fn a_coding_that_decodes_is_still_redone_beside_one_that_does_not() {
    // Chunked as said, but not deflated: only chunked is redone.
    let page = b"<a href=x>x</a>";
    let body = [
        format!("{:x}\r\n", page.len()).as_bytes(),
        page,
        b"\r\n0\r\n\r\n",
    ]
    .concat();
    let head = "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nTransfer-Encoding: chunked\r\nContent-Encoding: deflate\r\n\r\n";
    let input = response("http://a.example/", head, &body);
    let (out, summary) = rewrite(&input);
    assert_eq!(summary.changed, 1);
    assert_eq!(summary.warnings.len(), 1, "{:?}", summary.warnings);
    let new_page = b"<a href=http://a.example/x>x</a>";
    let new_body = [
        format!("{:x}\r\n", new_page.len()).as_bytes(),
        new_page,
        b"\r\n0\r\n\r\n",
    ]
    .concat();
    assert!(
        find(&out, &[head.as_bytes(), &new_body].concat()),
        "{}",
        text(&out)
    );
    assert_eq!(payload(&warcio(&out), "http://a.example/"), text(new_page));
    // Deflated as said: redone.
    let head = "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Encoding: deflate\r\n\r\n";
    let input = response("http://a.example/", head, &deflate(page));
    let (out, summary) = rewrite(&input);
    assert!(summary.warnings.is_empty(), "{:?}", summary.warnings);
    assert!(find(&out, &[head.as_bytes(), &deflate(new_page)].concat()));
}

#[test]
fn a_gzip_body_cut_short_is_read_as_far_as_it_goes() {
    let page: String = (0..300)
        .map(|i| format!("<a href=p{i}.html>{i}</a>\n"))
        .collect();
    let mut w = flate2::write::GzEncoder::new(Vec::new(), Compression::default());
    w.write_all(page.as_bytes()).unwrap();
    let gz = w.finish().unwrap();
    let cut = &gz[..gz.len() / 2];
    let head = "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Encoding: gzip\r\n\r\n";
    let input = response("http://a.example/", head, cut);
    let found = links(&input);
    assert!(found.len() > 50, "{}", found.len());
    let (out, summary) = rewrite(&input);
    assert_eq!(summary.changed, 1);
    assert!(
        summary.warnings[0]
            .to_string()
            .contains("content-encoding gzip breaks off after"),
        "{:?}",
        summary.warnings
    );
    let after = payload(&warcio(&out), "http://a.example/").to_owned();
    assert!(after.starts_with("<a href=http://a.example/p0.html>0</a>\n"));
}

/// The links of the text/html responses of a WARC file, counted per
/// record by warcio and Python's own HTML parser: each `href` and `src`
/// attribute of a start tag.
const COUNT_LINKS: &str = r#"
import json, sys
from html.parser import HTMLParser
from warcio.archiveiterator import ArchiveIterator

class Count(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.n = 0
    def handle_starttag(self, tag, attrs):
        self.n += sum(1 for name, _ in attrs if name in ("href", "src"))
    handle_startendtag = handle_starttag

counts = {}
with open(sys.argv[1], "rb") as f:
    for record in ArchiveIterator(f):
        if record.rec_type != "response" or record.http_headers is None:
            continue
        kind = record.http_headers.get_header("Content-Type") or ""
        if kind.split(";")[0].strip().lower() != "text/html":
            continue
        parser = Count()
        parser.feed(record.content_stream().read().decode("utf-8", "replace"))
        parser.close()
        counts[record.rec_headers.get_header("WARC-Record-ID")] = parser.n
print(json.dumps(counts))
"#;

/// `warcio index`: one JSON line per record.
fn warcio_index(path: &str) -> Vec<Value> {
    let cli = "import sys; from warcio.cli import main; main(sys.argv[1:])";
    let out = python(&["-c", cli, "index", path]);
    text(&out)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// pywb's sample crawl of www.iana.org says `Transfer-Encoding: chunked`
/// over every body, already de-chunked: each page is read as it is, as
/// warcio reads it, and every link of it found.
#[test]
fn pywb_iana_archive_is_read_as_warcio_reads_it() {
    let path = fixture("archives/pywb/iana.warc.gz");
    let path = path.to_str().unwrap();
    let input = std::fs::read(path).unwrap();
    let found = links(&input);
    let mut ours: BTreeMap<String, usize> = BTreeMap::new();
    for link in &found {
        if matches!(link.link.place.attribute(), "href" | "src") {
            *ours.entry(link.record_id.clone()).or_default() += 1;
        }
    }
    let theirs: BTreeMap<String, usize> =
        serde_json::from_slice(&python(&["-c", COUNT_LINKS, path])).unwrap();
    let theirs_with_links: BTreeMap<String, usize> =
        theirs.into_iter().filter(|&(_, n)| n > 0).collect();
    assert_eq!(ours, theirs_with_links);
    assert_eq!(ours.len(), 18);
    assert!(found.len() > 5_000, "{}", found.len());
    let locations: Vec<(&str, bool)> = found
        .iter()
        .filter(|l| l.link.place.element() == "http")
        .map(|l| (l.link.original.as_str(), l.link.changed))
        .collect();
    assert_eq!(locations.len(), 4, "{locations:?}");
    assert_eq!(locations.iter().filter(|l| l.1).count(), 2, "{locations:?}");
    assert!(ours.values().sum::<usize>() > 5_000);

    let (out, summary) = rewrite(&input);
    // The 16 pages, 2 redirects whose bodies hold a link, and the 2 style
    // sheets; the pages, style sheets and 3 SVG images (read, with no
    // relative link) warn that they are not chunked. 2 more redirects name
    // an absolute Location: listed, not changed.
    assert_eq!(summary.changed, 20, "{:?}", summary.warnings);
    assert_eq!(summary.warnings.len(), 21, "{:?}", summary.warnings);
    assert!(
        summary.warnings.iter().all(|w| w
            .message
            .starts_with("transfer-encoding chunked does not decode")),
        "{:?}",
        summary.warnings
    );
    let dir = tempfile::tempdir().unwrap();
    let written = dir.path().join("iana.warc.gz");
    std::fs::write(&written, &out).unwrap();
    let written = written.to_str().unwrap();
    let cli = "import sys; from warcio.cli import main; main(sys.argv[1:])";
    python(&["-c", cli, "check", written]);
    let before = warcio_index(path);
    let after = warcio_index(written);
    assert_eq!(before.len(), 343);
    assert_eq!(after.len(), before.len());
    for (was, now) in before.iter().zip(&after) {
        assert_eq!(was["warc-type"], now["warc-type"]);
        assert_eq!(was["warc-target-uri"], now["warc-target-uri"]);
    }
    let home = payload(&warcio(&out), "http://www.iana.org/").to_owned();
    assert!(home.contains(r#"href="http://www.iana.org/_css/2013.1/screen.css""#));
    assert!(home.contains(r#"<a href="http://www.iana.org/about/" class="avoid-break">"#));
    assert_eq!(rewrite(&out).1.changed, 0);
}

// Interim responses.

#[test]
fn an_interim_response_is_kept_before_the_final_one() {
    let interim = "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </s.css>\r\n\r\n";
    let head = "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nLink: </s.css>; rel=preload\r\nContent-Length: 10\r\n\r\n";
    let body = b"<a href=x>";
    let block = [interim.as_bytes(), head.as_bytes(), body].concat();
    // The payload digest as warcio reckons it: all after the first head.
    let first = "HTTP/1.1 100 Continue\r\n\r\n".len();
    let input = record(
        "WARC-Target-URI: http://a.example/d/\r\n",
        &block,
        Some(&block[first..]),
    );
    let found = links(&input);
    let rows: Vec<(&str, usize, &str)> = found
        .iter()
        .map(|l| {
            let link = &l.link;
            (link.place.attribute(), link.line, link.resolved.as_str())
        })
        .collect();
    assert_eq!(
        rows,
        [
            ("Link", 8, "http://a.example/s.css"),
            ("href", 1, "http://a.example/d/x"),
        ]
    );
    let (out, summary) = rewrite(&input);
    assert_eq!(summary.changed, 1, "{:?}", summary.warnings);
    let want = [
        interim.as_bytes(),
        b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nLink: <http://a.example/s.css>; rel=preload\r\nContent-Length: 29\r\n\r\n",
        b"<a href=http://a.example/d/x>",
    ]
    .concat();
    assert!(find(&out, &want), "{}", text(&out));
    warcio(&out);
}

// Links of the HTTP head.

fn head_links(input: &[u8], rewriter: &Rewriter) -> Vec<(String, usize, usize, String, String)> {
    links_by(rewriter, input)
        .into_iter()
        .filter(|l| l.link.place.element() == "http")
        .map(|l| {
            let link = l.link;
            (
                link.place.attribute().to_owned(),
                link.line,
                link.column,
                link.original,
                link.resolved,
            )
        })
        .collect()
}

fn row(
    name: &str,
    line: usize,
    column: usize,
    original: &str,
    resolved: &str,
) -> (String, usize, usize, String, String) {
    (
        name.to_owned(),
        line,
        column,
        original.to_owned(),
        resolved.to_owned(),
    )
}

#[test]
fn location_of_a_redirect_is_a_link_of_the_record() {
    let head =
        "HTTP/1.1 301 Moved Permanently\r\nlocation: ../new/page.html\r\nContent-Length: 0\r\n\r\n";
    let input = response("http://a.example/dir/old", head, b"");
    assert_eq!(
        head_links(&input, &Rewriter::new()),
        [row(
            "location",
            2,
            11,
            "../new/page.html",
            "http://a.example/new/page.html"
        )]
    );
    let found = links(&input);
    let base = found[0].link.base.as_ref().unwrap();
    assert_eq!(base.source, relink::BaseSource::TargetUri);
    assert!(found[0].link.changed);
    let (out, summary) = rewrite(&input);
    assert_eq!(summary.changed, 1, "{:?}", summary.warnings);
    let new_head = "HTTP/1.1 301 Moved Permanently\r\nlocation: http://a.example/new/page.html\r\nContent-Length: 0\r\n\r\n";
    let want = format!(
        "WARC-Block-Digest: sha1:{}\r\nWARC-Payload-Digest: sha1:{}\r\nContent-Length: {}\r\n\r\n{new_head}\r\n\r\n",
        sha1(new_head.as_bytes()),
        sha1(b""),
        new_head.len()
    );
    assert!(text(&out).ends_with(&want), "{}", text(&out));
    warcio(&out);
}

#[test]
fn link_headers_of_any_media_type_are_rewritten_with_the_payload_digest_kept() {
    let png = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR";
    let head = "HTTP/1.1 200 OK\r\nContent-Type: image/png\r\nLink: <meta.json>; rel=\"describedby\"; title=\"a, <b>\",\r\n\t<http://b.example/abs>; rel=x, <>\r\n\r\n";
    let input = response("http://a.example/img/a.png", head, png);
    assert_eq!(
        head_links(&input, &Rewriter::new()),
        [
            row("Link", 3, 8, "meta.json", "http://a.example/img/meta.json"),
            row("Link", 4, 3, "http://b.example/abs", "http://b.example/abs"),
        ]
    );
    let (out, summary) = rewrite(&input);
    assert_eq!(summary.changed, 1, "{:?}", summary.warnings);
    let new_head = head.replace("<meta.json>", "<http://a.example/img/meta.json>");
    let block = [new_head.as_bytes(), png].concat();
    assert!(find(&out, &block));
    assert!(find(&out, format!("sha1:{}\r\n", sha1(&block)).as_bytes()));
    // The body did not change, nor did its digest.
    assert!(find(
        &out,
        format!("WARC-Payload-Digest: sha1:{}\r\n", sha1(png)).as_bytes()
    ));
    let after = warcio(&out);
    assert_eq!(
        payload(&after, "http://a.example/img/a.png").as_bytes(),
        {
            let latin1: String = png.iter().map(|&b| b as char).collect();
            latin1
        }
        .as_bytes()
    );
}

#[test]
fn head_links_resolve_against_the_target_uri_not_the_payloads_base() {
    let head = |location: &str, length: usize| {
        format!(
            "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Location: {location}\r\nRefresh: 5; url={}next.html\r\nLocation: not-a-link.html\r\nLink: <>\r\nContent-Length: {length}\r\n\r\n",
            if location == "sub/" {
                ""
            } else {
                "http://a.example/p/"
            }
        )
    };
    let body = b"<base href=http://other.example/><a href=x>x</a>";
    let input = response("http://a.example/p/q", &head("sub/", body.len()), body);
    assert_eq!(
        head_links(&input, &Rewriter::new()),
        [
            row("Content-Location", 3, 19, "sub/", "http://a.example/p/sub/"),
            row(
                "Refresh",
                4,
                17,
                "next.html",
                "http://a.example/p/next.html"
            ),
        ]
    );
    let found = links(&input);
    assert_eq!(
        found.last().unwrap().link.resolved,
        "http://other.example/x"
    );
    // Without the BASE element, the payload's base is Content-Location,
    // resolved against the target URI.
    let plain = response(
        "http://a.example/p/q",
        &head("sub/", 15),
        b"<a href=x>x</a>",
    );
    let found = links(&plain);
    assert_eq!(
        found.last().unwrap().link.resolved,
        "http://a.example/p/sub/x"
    );
    let (out, summary) = rewrite(&input);
    assert_eq!(summary.changed, 1, "{:?}", summary.warnings);
    let new_body = b"<base href=http://other.example/><a href=http://other.example/x>x</a>";
    let new_head = head("http://a.example/p/sub/", new_body.len());
    assert!(
        find(&out, &[new_head.as_bytes(), new_body].concat()),
        "{}",
        text(&out)
    );
    let after = warcio(&out);
    assert_eq!(payload(&after, "http://a.example/p/q"), text(new_body));
    assert!(after.iter().all(|r| r["length_ok"] != false));
}

#[test]
fn head_links_follow_the_rules_and_leave_what_needs_no_change() {
    let head = "HTTP/1.1 302 Found\r\nLocation: ../../../g\r\n\r\n";
    let input = response("http://a/b/c/d;p?q", head, b"");
    let resolved = |rules: Rules| {
        head_links(&input, &Rewriter::new().rules(rules))[0]
            .4
            .clone()
    };
    assert_eq!(resolved(Rules::Rfc1808), "http://a/../g");
    assert_eq!(resolved(Rules::Whatwg), "http://a/g");
    // An absolute Location is listed, not changed; an empty one is no
    // link; a record with neither is copied as it was.
    for (head, listed) in [
        (
            "HTTP/1.1 302 Found\r\nLocation: http://b.example/x\r\n\r\n",
            1,
        ),
        ("HTTP/1.1 302 Found\r\nLocation: \r\n\r\n", 0),
        ("HTTP/1.1 302 Found\r\nLocation:\r\n\r\n", 0),
    ] {
        let input = response("http://a.example/", head, b"");
        assert_eq!(links(&input).len(), listed, "{head}");
        let (out, summary) = rewrite(&input);
        assert!(out == input, "{head}");
        assert_eq!((summary.changed, summary.warnings.len()), (0, 0), "{head}");
    }
}

#[test]
fn the_command_line_lists_and_rewrites_head_links() {
    let head = "HTTP/1.1 301 Moved Permanently\r\nLocation: new.html\r\n\r\n";
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("moved.warc");
    std::fs::write(&path, response("http://a.example/old", head, b"")).unwrap();
    let path = path.to_str().unwrap();
    let listed = crate::cli::relink(&[path, "--list", "--format", "json"], b"");
    crate::cli::assert_ok(&listed);
    let rows: Vec<Value> = text(&listed.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(rows.len(), 1, "{rows:?}");
    assert_eq!(rows[0]["element"], "http");
    assert_eq!(rows[0]["attribute"], "Location");
    assert_eq!(
        (rows[0]["line"].as_u64(), rows[0]["column"].as_u64()),
        (Some(2), Some(11))
    );
    assert_eq!(rows[0]["resolved"], "http://a.example/new.html");
    assert_eq!(rows[0]["target_uri"], "http://a.example/old");
    let out = dir.path().join("out.warc");
    let run = crate::cli::relink(&[path, "-o", out.to_str().unwrap()], b"");
    crate::cli::assert_ok(&run);
    let written = std::fs::read(&out).unwrap();
    assert!(find(
        &written,
        b"\r\nLocation: http://a.example/new.html\r\n"
    ));
    warcio(&written);
}
