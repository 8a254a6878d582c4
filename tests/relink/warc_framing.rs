//! How records are framed, and what is copied when the framing is wrong:
//! hand-made archives that once were damaged. Each output is checked for
//! what matters: it is gzip-valid, warcio reads the same records from it
//! as from the input, the bytes outside the rewritten URLs are the input's,
//! and what relink cannot rewrite is copied byte for byte.

use std::io::{Read, Write};
use std::process::Command;

use relink::{Input, Rewriter};
use serde_json::Value;

use crate::python;
use crate::warc::{Done, Summary, record_of, run_archive, run_limited};

/// A `response` record of an HTML page holding `body`.
fn page(uri: &str, body: &str) -> Vec<u8> {
    let http = format!("HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n{body}");
    record(
        "response",
        uri,
        "application/http; msgtype=response",
        http.as_bytes(),
    )
}

/// A record of `kind` holding `block`, its `Content-Length` right.
fn record(kind: &str, uri: &str, content_type: &str, block: &[u8]) -> Vec<u8> {
    record_with_length(kind, uri, content_type, block, block.len())
}

/// A record whose `Content-Length` says `length`, whatever the block holds.
fn record_with_length(
    kind: &str,
    uri: &str,
    content_type: &str,
    block: &[u8],
    length: usize,
) -> Vec<u8> {
    let head = format!(
        "WARC/1.0\r\nWARC-Type: {kind}\r\nWARC-Target-URI: {uri}\r\n\
         Content-Type: {content_type}\r\nContent-Length: {length}\r\n\r\n"
    );
    [head.as_bytes(), block, b"\r\n\r\n"].concat()
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut w = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    w.write_all(bytes).unwrap();
    w.finish().unwrap()
}

/// The bytes a gzip file holds; panics when it is not gzip-valid to its
/// end (a CRC error, a member cut short).
fn gunzip(bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    flate2::read::MultiGzDecoder::new(bytes)
        .read_to_end(&mut out)
        .expect("the output is gzip-valid");
    out
}

/// The payload limit a run is read with: the front door's, or one of 1000
/// bytes, which only the archive reader's own options set (the front
/// door's is 256 MiB, too large a record for these tests).
#[derive(Debug, Clone, Copy, PartialEq)]
enum Limit {
    Default,
    Small,
}

/// Runs `input` through the front door (the default limit) or, for the
/// small limit, through the archive reader; writing it when `write`.
fn run(input: &[u8], limit: Limit, write: bool) -> (Vec<u8>, Summary, Vec<Done>) {
    if limit == Limit::Small {
        return run_limited(input, 1000, write).unwrap_or_else(|e| panic!("refused: {e}"));
    }
    let run = run_archive(&Rewriter::new(), Input::bytes(input), write)
        .unwrap_or_else(|e| panic!("refused: {e}"));
    let done = run
        .records
        .iter()
        .map(|record| Done {
            target_uri: record.name.target_uri.clone(),
            changed: record.changed,
            links: run
                .rows
                .iter()
                .filter(|row| record_of(row).number == record.name.number)
                .map(|row| row.link.clone())
                .collect(),
            warnings: record.warnings.clone(),
        })
        .collect();
    let (out, summary) = run.summary();
    (out, summary, done)
}

/// Rewrites `input`; the output, the summary and each record's report.
fn rewrite(input: &[u8], limit: Limit) -> (Vec<u8>, Summary, Vec<Done>) {
    run(input, limit, true)
}

/// Each record's report of a listing of `input`.
fn inspect(input: &[u8], limit: Limit) -> Vec<Done> {
    run(input, limit, false).2
}

/// The target URIs of the records relink lists.
fn listed(input: &[u8], limit: Limit) -> Vec<String> {
    inspect(input, limit)
        .into_iter()
        .map(|r| r.target_uri)
        .collect()
}

/// What warcio's `ArchiveIterator` reads of a file, as far as it goes: each
/// record's type, target URI and raw block length, and the error it
/// stopped at, if any.
struct Warcio {
    records: Vec<(String, String, u64)>,
    error: Option<String>,
}

const WARCIO_READ: &str = r#"
import json, sys
from warcio.archiveiterator import ArchiveIterator
records, error = [], None
try:
    with open(sys.argv[1], "rb") as f:
        for r in ArchiveIterator(f):
            uri = r.rec_headers.get_header("WARC-Target-URI") or ""
            records.append([r.rec_type, uri, len(r.raw_stream.read())])
except Exception as e:
    error = str(e) or type(e).__name__
print(json.dumps({"records": records, "error": error}))
"#;

fn warcio(bytes: &[u8]) -> Warcio {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("file.warc.gz");
    std::fs::write(&path, bytes).unwrap();
    let run = Command::new(python())
        .args(["-c", WARCIO_READ])
        .arg(&path)
        .output()
        .unwrap_or_else(|e| panic!("python3 with warcio is needed ({e})"));
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(run.status.success(), "warcio is needed: {stderr}");
    let out: Value = serde_json::from_slice(&run.stdout).unwrap();
    let records = out["records"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r[0].as_str().unwrap().to_owned(),
                r[1].as_str().unwrap().to_owned(),
                r[2].as_u64().unwrap(),
            )
        })
        .collect();
    Warcio {
        records,
        error: out["error"].as_str().map(str::to_owned),
    }
}

/// The record types and target URIs warcio reads.
fn warcio_uris(bytes: &[u8]) -> Vec<String> {
    warcio(bytes).records.into_iter().map(|r| r.1).collect()
}

/// `input` with `from` replaced by `to`, once: what an output that
/// changed only those bytes is.
fn replaced(input: &[u8], from: &[u8], to: &[u8]) -> Vec<u8> {
    let at = memchr::memmem::find(input, from).expect("the bytes to replace");
    [&input[..at], to, &input[at + from.len()..]].concat()
}

/// A record with its `Content-Length` set to `length`.
fn with_length(record: &[u8], length: u64) -> Vec<u8> {
    let start = memchr::memmem::find(record, b"Content-Length: ").unwrap() + 16;
    let end = start + memchr::memchr(b'\r', &record[start..]).unwrap();
    [
        &record[..start],
        length.to_string().as_bytes(),
        &record[end..],
    ]
    .concat()
}

/// A record as relink rewrites it alone.
fn alone(record: &[u8]) -> Vec<u8> {
    rewrite(record, Limit::Default).0
}

// A gzip member holding records past the payload limit.

#[test]
fn a_member_of_two_records_over_the_limit_is_copied_byte_for_byte() {
    // unit: the small payload limit is set only on the archive reader's options.
    let big = |n: usize| format!("<a href=big{n}>{}</a>", "x".repeat(5000));
    let shapes: Vec<Vec<Vec<u8>>> = vec![
        vec![
            page("http://a.example/1/", &big(1)),
            page("http://a.example/2/", &big(2)),
        ],
        vec![
            page("http://a.example/1/", &big(1)),
            page("http://a.example/s/", "<a href=s>s</a>"),
            page("http://a.example/2/", &big(2)),
        ],
        vec![
            page("http://a.example/1/", &big(1)),
            b"stray line\r\n".to_vec(),
            page("http://a.example/2/", &big(2)),
            page("http://a.example/3/", &big(3)),
        ],
    ];
    for (n, shape) in shapes.into_iter().enumerate() {
        let member = gzip(&shape.concat());
        let last = gzip(&page("http://a.example/last/", "<a href=y>y</a>"));
        let input = [member.clone(), last].concat();
        let (out, _, reports) = rewrite(&input, Limit::Small);
        assert!(out.starts_with(&member), "shape {n}: the member changed");
        let plain = gunzip(&out);
        assert!(
            memchr::memmem::find(&plain, b"<a href=http://a.example/last/y>").is_some(),
            "shape {n}: the next member is rewritten"
        );
        assert!(
            reports.iter().filter(|r| r.changed).count() == 1,
            "shape {n}"
        );
        // warcio stops after the first record of a member of several, in
        // the input as in the output.
        assert_eq!(warcio(&out).records, warcio(&input).records, "shape {n}");
    }
}

#[test]
fn a_member_whose_records_over_the_limit_follow_a_small_one_is_compressed_again_whole() {
    // unit: the small payload limit is set only on the archive reader's options.
    let big = |n: usize| format!("<a href=big{n}>{}</a>", "x".repeat(5000));
    let records = [
        page("http://a.example/s/", "<a href=s>s</a>"),
        page("http://a.example/1/", &big(1)),
        page("http://a.example/2/", &big(2)),
    ];
    let input = gzip(&records.concat());
    let (out, summary, _) = rewrite(&input, Limit::Small);
    assert_eq!((summary.records, summary.changed), (3, 1));
    // One valid member, holding the input's bytes but for the one URL.
    let expected = replaced(&records.concat(), &records[0], &alone(&records[0]));
    assert!(gunzip(&out) == expected);
    assert_eq!(warcio_uris(&out), warcio_uris(&input));
}

#[test]
fn a_one_stream_file_whose_first_record_is_large_is_copied_as_it_is() {
    // unit: the small payload limit is set only on the archive reader's options.
    let mut records = vec![page("http://a.example/big/", &"x".repeat(5000))];
    for n in 0..200 {
        records.push(page(&format!("http://a.example/{n}/"), "<a href=x>x</a>"));
        records.push(page(
            &format!("http://a.example/big{n}/"),
            &"y".repeat(3000),
        ));
    }
    let input = gzip(&records.concat());
    let (out, summary, _) = rewrite(&input, Limit::Small);
    assert!(out == input, "the one member is copied byte for byte");
    assert_eq!(summary.records, 401);
    assert_eq!(summary.changed, 0);
}

// Record text quoted in a block.

/// A WARC record quoted whole, as a page showing it or a WARC served as
/// text would hold it.
fn quoted() -> Vec<u8> {
    [
        &b"Here is a record:\r\n"[..],
        &page("http://quoted.example/", "<a href=q>q</a>"),
        b"That was it.\r\n",
    ]
    .concat()
}

/// The record after the one quoting: its link is rewritten.
fn after() -> Vec<u8> {
    page("http://a.example/after/", "<a href=y>y</a>")
}

/// Files where a record's block quotes a record, and what follows it is
/// no record boundary: one CRLF and a stray line, or a length a few bytes
/// short.
fn quoting_files() -> Vec<(&'static str, Vec<u8>)> {
    let block = quoted();
    let after = after();
    let one_crlf = [
        &b"WARC/1.0\r\nWARC-Type: resource\r\nWARC-Target-URI: http://a.example/text\r\n\
           Content-Type: text/plain\r\n"[..],
        format!("Content-Length: {}\r\n\r\n", block.len()).as_bytes(),
        &block,
        b"\r\nstray line\r\n",
        &after,
    ]
    .concat();
    let short = |by: usize| {
        [
            record_with_length(
                "resource",
                "http://a.example/text",
                "text/plain",
                &block,
                block.len() - by,
            ),
            after.clone(),
        ]
        .concat()
    };
    let html_short = [
        record_with_length(
            "response",
            "http://a.example/page",
            "application/http; msgtype=response",
            &[
                &b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n<pre>"[..],
                &block,
            ]
            .concat(),
            block.len() + 40,
        ),
        after.clone(),
    ]
    .concat();
    vec![
        ("one CRLF and a stray line", one_crlf),
        ("a length 3 bytes short", short(3)),
        ("a length 20 bytes short", short(20)),
        ("a page showing a record, its length short", html_short),
    ]
}

#[test]
fn quoted_record_text_is_never_read_as_a_record() {
    for (name, file) in quoting_files() {
        for gzipped in [false, true] {
            let input = if gzipped { gzip(&file) } else { file.clone() };
            let (out, summary, reports) = rewrite(&input, Limit::Default);
            let uris: Vec<&str> = reports.iter().map(|r| r.target_uri.as_str()).collect();
            assert!(
                !uris.contains(&"http://quoted.example/"),
                "{name} (gzip {gzipped}): the quoted record was read: {uris:?}"
            );
            // The record is marked bad and copied; the next one is read
            // and rewritten; nothing else changed.
            assert!(!reports[0].changed, "{name}");
            assert!(
                summary.warnings[0]
                    .to_string()
                    .contains("no record boundary"),
                "{name}: {:?}",
                summary.warnings
            );
            assert_eq!(
                reports.last().unwrap().target_uri,
                "http://a.example/after/"
            );
            let plain_in = if gzipped {
                gunzip(&input)
            } else {
                input.clone()
            };
            let plain_out = if gzipped { gunzip(&out) } else { out.clone() };
            let after = after();
            let expected = replaced(&plain_in, &after, &alone(&after));
            assert!(
                plain_out == expected,
                "{name} (gzip {gzipped}): bytes outside the URL changed:\n{}",
                String::from_utf8_lossy(&plain_out)
            );
            // What warcio reads, it reads the same in the output.
            let (before, after) = (warcio(&input), warcio(&out));
            let names = |w: &Warcio| w.records.iter().map(|r| r.1.clone()).collect::<Vec<_>>();
            assert_eq!(names(&after), names(&before), "{name}");
            assert!(!names(&before).contains(&"http://quoted.example/".to_owned()));
        }
    }
}

#[test]
fn an_unchanged_quoting_file_is_written_back_identical() {
    for (name, file) in quoting_files() {
        // Nothing to rewrite: the last record's link made absolute.
        let after = after();
        let file = replaced(&file, &after, &alone(&after));
        for input in [file.clone(), gzip(&file)] {
            let (out, summary, _) = rewrite(&input, Limit::Default);
            assert_eq!(summary.changed, 0, "{name}");
            assert!(out == input, "{name}: not identical");
        }
    }
}

#[test]
fn a_length_running_into_later_records_takes_them_and_is_copied() {
    let first = page("http://a.example/1/", "<a href=x>x</a>");
    let second = page("http://a.example/2/", "<a href=x>x</a>");
    let third = page("http://a.example/3/", "<a href=x>x</a>");
    // Record 1's length runs 30 bytes into record 2.
    let block_start = memchr::memmem::find(&first, b"\r\n\r\n").unwrap() + 4;
    let length = first.len() - block_start - 4;
    let long = with_length(&first, length as u64 + 30);
    let input = [long.clone(), second, third].concat();
    let (out, _, reports) = rewrite(&input, Limit::Default);
    let uris: Vec<&str> = reports.iter().map(|r| r.target_uri.as_str()).collect();
    assert_eq!(uris, ["http://a.example/1/", "http://a.example/3/"]);
    assert!(!reports[0].changed && reports[1].changed);
    // Everything up to record 3 is as it was.
    let at = memchr::memmem::find(&input, b"WARC-Target-URI: http://a.example/3/").unwrap();
    assert_eq!(out[..at], input[..at]);
    // warcio stops at the same place in both.
    let (before, after) = (warcio(&input), warcio(&out));
    assert_eq!(before.records, after.records);
    assert!(before.error.is_some());
}

// A gzip member cut short: the last record of a killed crawl.

#[test]
fn a_member_cut_short_lists_what_warcio_reads_and_is_copied_as_it_is() {
    // unit: the small payload limit is set only on the archive reader's options.
    let body = (0..400)
        .map(|n| format!("<a href=p{n}>{n}</a>"))
        .collect::<String>();
    let members = [
        gzip(&page("http://a.example/1/", "<a href=x>x</a>")),
        gzip(&page("http://a.example/2/", "<a href=y>y</a>")),
        gzip(&page("http://a.example/3/", &body)),
    ];
    let whole = members.concat();
    let start = whole.len() - members[2].len();
    for cut in [
        whole.len() - 4,
        whole.len() - members[2].len() / 2,
        start + 30,
    ] {
        let input = &whole[..cut];
        for options in [Limit::Default, Limit::Small] {
            let from_warcio = warcio_uris(input);
            assert_eq!(listed(input, options), from_warcio, "cut at {cut}");
            let (out, summary, reports) = rewrite(input, options);
            assert!(
                out.ends_with(&input[start..]),
                "cut at {cut}: member changed"
            );
            // The members before it are rewritten as ever.
            assert!(reports[0].changed && reports[1].changed);
            assert!(
                summary
                    .warnings
                    .iter()
                    .any(|w| w.to_string().contains("cannot be read")),
                "{:?}",
                summary.warnings
            );
            assert_eq!(warcio_uris(&out), from_warcio, "cut at {cut}");
        }
    }
    // Cut inside the record's block, the record is listed, as warcio
    // lists it.
    assert_eq!(warcio_uris(&whole[..whole.len() - 4]).len(), 3);
}

/// A record whose `Content-Length` runs past the end of the file (10^15,
/// or a file cut short) lists the links of what its block holds, as the
/// last record of a gzip member cut short does, whatever the size limit;
/// rewritten, it is copied as it is, with the warning that says so.
#[test]
fn a_length_past_the_end_lists_what_the_block_holds_and_is_copied_as_it_is() {
    // unit: the small payload limit is set only on the archive reader's options.
    let first = page("http://a.example/1/", "<a href=x>x</a>");
    let last = page("http://a.example/2/", "<a href=y>y</a> <img src=z.png>");
    for length in [10u64.pow(15), 5000] {
        let long = with_length(&last, length);
        let plain = [first.clone(), long.clone()].concat();
        let members = [gzip(&first), gzip(&long)].concat();
        for (shape, input) in [
            ("plain", plain.clone()),
            ("one gzip stream", gzip(&plain)),
            ("a member a record", members.clone()),
        ] {
            for options in [Limit::Default, Limit::Small] {
                let case = format!("{shape}, length {length}, limit {options:?}");
                let listed = inspect(&input, options);
                let (out, summary, reports) = rewrite(&input, options);
                for reports in [&listed, &reports] {
                    assert_eq!(reports.len(), 2, "{case}");
                    let links: Vec<(&str, bool)> = reports[1]
                        .links
                        .iter()
                        .map(|l| (l.resolved.as_str(), l.changed))
                        .collect();
                    assert_eq!(
                        links,
                        [
                            ("http://a.example/2/y", false),
                            ("http://a.example/2/z.png", false)
                        ],
                        "{case}"
                    );
                    assert!(!reports[1].changed, "{case}");
                    assert!(
                        reports[1]
                            .warnings
                            .iter()
                            .any(|w| w.to_string().contains("the input ends")),
                        "{case}: {:?}",
                        reports[1].warnings
                    );
                }
                assert_eq!(summary.changed, 1, "{case}");
                let kept = match shape {
                    "plain" => &long,
                    "a member a record" => &members[gzip(&first).len()..],
                    _ => &out[..0],
                };
                assert!(out.ends_with(kept), "{case}: not copied as it is");
                assert_eq!(gunzip_or_plain(&out), alone_then(&first, &long), "{case}");
            }
        }
    }
}

/// The same, its gzip member cut short too (a killed crawl): what decodes
/// of the block is listed when it is within the size limit (else only
/// copied, with the warning that says so), and the member copied as it was
/// read; the record is named by its member's offset in every mode.
#[test]
fn a_length_past_the_end_in_a_member_cut_short_lists_what_decodes() {
    // unit: the small payload limit is set only on the archive reader's options.
    let body: String = (0..300).map(|n| format!("<a href=p{n}>{n}</a>")).collect();
    let first = gzip(&page("http://a.example/1/", "<a href=x>x</a>"));
    let long = with_length(&page("http://a.example/2/", &body), 10u64.pow(15));
    let member = gzip(&long);
    let cut = &member[..member.len() / 2];
    let input = [first.clone(), cut.to_vec()].concat();
    for options in [Limit::Default, Limit::Small] {
        let listed = inspect(&input, options);
        let (out, _, reports) = rewrite(&input, options);
        for (mode, reports) in [("listed", &listed), ("rewritten", &reports)] {
            let case = format!("{mode}, limit {options:?}");
            let (links, warnings) = (&reports[1].links, &reports[1].warnings);
            let said = |text: &str| warnings.iter().any(|w| w.to_string().contains(text));
            if options == Limit::Small {
                assert!(links.is_empty(), "{case}");
                assert!(
                    said("passes the limit of 1000 bytes"),
                    "{case}: {warnings:?}"
                );
                continue;
            }
            assert!(links.len() > 10, "{case}: {} links", links.len());
            for (n, link) in links.iter().enumerate() {
                assert_eq!(link.resolved, format!("http://a.example/2/p{n}"), "{case}");
                assert!(!link.changed, "{case}");
            }
            let at = format!("at offset {}: the input ends", first.len());
            assert!(said(&at), "{case}: {warnings:?}");
        }
        assert!(out.ends_with(cut), "limit {options:?}");
    }
}

/// The bytes of a file, gzip undone when it is gzipped.
fn gunzip_or_plain(bytes: &[u8]) -> Vec<u8> {
    if bytes.starts_with(&[0x1f, 0x8b]) {
        gunzip(bytes)
    } else {
        bytes.to_vec()
    }
}

/// `first` as relink rewrites it alone, then `rest` as it is.
fn alone_then(first: &[u8], rest: &[u8]) -> Vec<u8> {
    [alone(first), rest.to_vec()].concat()
}

// Shapes that once took time or memory out of proportion; they are timed
// in the benches, here only checked to be copied as they are.

/// Thousands of record lines with no head end; white space between
/// records; a length of 10^15.
fn hostile_shapes() -> Vec<(&'static str, Vec<u8>)> {
    let ok = page("http://a.example/ok/", "<a href=http://a.example/x>x</a>");
    vec![
        (
            "record lines without head end",
            b"WARC/1.0\r\n".repeat(20_000),
        ),
        (
            "record lines, then a record",
            [
                b"WARC/1.0\r\n".repeat(5_000),
                b"\r\n\r\n".to_vec(),
                ok.clone(),
            ]
            .concat(),
        ),
        (
            "white space between records",
            [ok.clone(), b"\r\n \t".repeat(1 << 20), ok.clone()].concat(),
        ),
        (
            "a length of 10^15",
            [ok.clone(), with_length(&ok, 10u64.pow(15)), ok.clone()].concat(),
        ),
    ]
}

#[test]
fn hostile_shapes_are_read_as_warcio_reads_them_and_copied_as_they_are() {
    for (name, file) in hostile_shapes() {
        for input in [file.clone(), gzip(&file)] {
            let (out, summary, _) = rewrite(&input, Limit::Default);
            assert_eq!(summary.changed, 0, "{name}");
            assert!(out == input, "{name}: not identical");
        }
    }
    // A length of 10^15 runs to the end of the file, for warcio as for
    // relink: two records, the second's block the rest of the file.
    let (_, file) = &hostile_shapes()[3];
    let listed = listed(file, Limit::Default);
    let from_warcio = warcio(file);
    assert_eq!(listed, warcio_uris(file));
    assert_eq!(listed.len(), 2);
    let rest = file.len() - memchr::memmem::rfind(file, b"\r\n\r\nWARC/1.0").unwrap();
    assert!(from_warcio.records[1].2 as usize > rest);
}

// A length too long: the head of the record it runs into is spoiled, and
// that record quotes a record.

#[test]
fn quoted_record_after_a_length_too_long_is_never_read_as_a_record() {
    let first = page("http://a.example/1/", "<a href=x>x</a>");
    let quoting = record("resource", "http://a.example/text", "text/plain", &quoted());
    let after = after();
    let block = memchr::memmem::find(&first, b"\r\n\r\n").unwrap() + 4;
    let length = first.len() - block - 4;
    let head = memchr::memmem::find(&quoting, b"\r\n\r\n").unwrap() + 4;
    // How far record 1's block runs on past its own: into the line ends
    // after it, through the quoting record's record line, inside its
    // `Content-Length` line, to its blank line, into its block.
    let shapes = [
        ("5 bytes", 5),
        ("into its head", 4 + 30),
        ("inside its Content-Length line", 4 + head - 6),
        ("to its blank line", 4 + head - 2),
        ("into its block", 4 + head + 10),
    ];
    for (name, over) in shapes {
        let long = with_length(&first, (length + over) as u64);
        let file = [long, quoting.clone(), after.clone()].concat();
        for input in [file.clone(), gzip(&file)] {
            // Record 1, bad and copied; the quoting record, its head
            // spoiled, copied as junk; the record after it, rewritten.
            let (out, reports) = quoting_stepped_over(&input, &after, name);
            assert!(!reports[0].changed && reports[1].changed, "{name}");
            let (before, now) = (warcio(&input), warcio(&out));
            assert_eq!(before.records, now.records, "{name}");
        }
    }
}

// Found by the fuzzer: a length too long runs into the record line of a
// record quoting a record, and that record's own length is too long as
// well (it takes its line ends, and a stray line follows).

#[test]
fn quoted_record_after_two_lengths_too_long_is_never_read_as_a_record() {
    let first = page("http://a.example/1/", "<a href=x>x</a>");
    let block = memchr::memmem::find(&first, b"\r\n\r\n").unwrap() + 4;
    let length = first.len() - block - 4;
    let text = quoted();
    let quoting = record_with_length(
        "resource",
        "http://a.example/text",
        "text/plain",
        &text,
        text.len() + 4,
    );
    let after = after();
    // Record 1's block runs through its line ends into `WA` of the next.
    let long = with_length(&first, (length + 6) as u64);
    let file = [long, quoting, b"stray line\r\n".to_vec(), after.clone()].concat();
    for input in [file.clone(), gzip(&file)] {
        // The quoting record is stepped over by its own length, though no
        // boundary follows there: what it quotes stays its text.
        quoting_stepped_over(&input, &after, "two lengths too long");
    }
}

/// `input` (plain or gzip) rewritten: it must give record 1 and `after`
/// only, the quoting record between them copied as junk, and no byte
/// changed but `after`'s URL. Its output and reports.
fn quoting_stepped_over(input: &[u8], after: &[u8], name: &str) -> (Vec<u8>, Vec<Done>) {
    let gzipped = input.starts_with(&[0x1f, 0x8b]);
    let (out, _, reports) = rewrite(input, Limit::Default);
    let uris: Vec<&str> = reports.iter().map(|r| r.target_uri.as_str()).collect();
    assert_eq!(
        uris,
        ["http://a.example/1/", "http://a.example/after/"],
        "{name} (gzip {gzipped})"
    );
    let plain = |b: &[u8]| if gzipped { gunzip(b) } else { b.to_vec() };
    let expected = replaced(&plain(input), after, &alone(after));
    assert!(plain(&out) == expected, "{name}: bytes outside the URL");
    (out, reports)
}

// A gzip member of several records, one of them past the payload limit.

#[test]
fn a_shared_member_holding_a_record_past_the_limit_is_copied_as_it_was_when_nothing_changed() {
    // unit: the small payload limit is set only on the archive reader's options.
    let big = format!("<a href=http://a.example/b>{}</a>", "x".repeat(5000));
    let absolute = page("http://a.example/s/", "<a href=http://a.example/s>s</a>");
    let relative = page("http://a.example/r/", "<a href=r>r</a>");
    let stray = b"stray line\r\n".to_vec();
    let shapes = [
        (
            "a record, then one past the limit",
            vec![absolute.clone(), page("http://a.example/1/", &big)],
        ),
        (
            "stray bytes, then a record past the limit",
            vec![
                stray.clone(),
                page("http://a.example/1/", &big),
                absolute.clone(),
            ],
        ),
        (
            "stray bytes, then a length of 10^15",
            vec![stray.clone(), with_length(&absolute, 10u64.pow(15))],
        ),
    ];
    for (name, records) in shapes {
        let member = gzip(&records.concat());
        let input = [member.clone(), gzip(&absolute)].concat();
        let (out, summary, _) = rewrite(&input, Limit::Small);
        assert_eq!(summary.changed, 0, "{name}");
        assert!(out == input, "{name}: not the input's bytes");
        // A record that changes after it: the member is compressed again,
        // holding the input's bytes but for the one URL.
        let mut records = records;
        records.insert(records.len() - 1, relative.clone());
        let input = gzip(&records.concat());
        let (out, summary, _) = rewrite(&input, Limit::Small);
        assert_eq!(summary.changed, 1, "{name}");
        let expected = replaced(&records.concat(), &relative, &alone(&relative));
        assert!(
            gunzip(&out) == expected,
            "{name}: the member compressed again"
        );
        assert_eq!(warcio_uris(&out), warcio_uris(&input), "{name}");
    }
}

#[test]
fn quoted_record_after_a_length_too_long_on_a_record_past_the_limit_is_never_read() {
    // unit: the small payload limit is set only on the archive reader's options.
    // Record 1 is past the payload limit: streamed through, never held,
    // its end checked all the same.
    let first = page("http://a.example/1/", &"x".repeat(3000));
    let quoting = record("resource", "http://a.example/text", "text/plain", &quoted());
    let after = after();
    let block = memchr::memmem::find(&first, b"\r\n\r\n").unwrap() + 4;
    let length = first.len() - block - 4;
    let head = memchr::memmem::find(&quoting, b"\r\n\r\n").unwrap() + 4;
    for over in [5, 4 + 30, 4 + head + 10] {
        let long = with_length(&first, (length + over) as u64);
        let file = [long, quoting.clone(), after.clone()].concat();
        for input in [file.clone(), gzip(&file)] {
            let gzipped = input.starts_with(&[0x1f, 0x8b]);
            let (out, summary, reports) = rewrite(&input, Limit::Small);
            let uris: Vec<&str> = reports.iter().map(|r| r.target_uri.as_str()).collect();
            assert_eq!(
                uris,
                ["http://a.example/1/", "http://a.example/after/"],
                "{over} (gzip {gzipped})"
            );
            assert!(
                summary
                    .warnings
                    .iter()
                    .any(|w| w.to_string().contains("no record boundary")),
                "{:?}",
                summary.warnings
            );
            if gzipped {
                // The one member holds a record past the limit first: it is
                // copied as it was, nothing in it rewritten.
                assert!(out == input, "{over}");
            } else {
                assert!(out == replaced(&input, &after, &alone(&after)), "{over}");
            }
        }
    }
}

// A chunked body whose framing breaks off inside.

/// A response whose body is `chunked` over `chunks`, then the last chunk.
fn chunked_page(uri: &str, chunks: &[&str]) -> Vec<u8> {
    let mut http =
        b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nTransfer-Encoding: chunked\r\n\r\n"
            .to_vec();
    for chunk in chunks {
        http.extend_from_slice(format!("{:x}\r\n{chunk}\r\n", chunk.len()).as_bytes());
    }
    http.extend_from_slice(b"0\r\n\r\n");
    record("response", uri, "application/http; msgtype=response", &http)
}

#[test]
fn a_chunk_size_past_the_rest_of_the_body_leaves_the_payload_as_it_is() {
    let chunks = [
        "<a href=\"ht",
        "tp://abs.example/x.html\">x</a><a href=rel>r</a>",
    ];
    let good = chunked_page("http://a.example/c/", &chunks);
    // The first size made larger: past the end of the body; so that the
    // chunk runs into the CR of a later line end; one byte too large.
    let size = format!("\r\n{:x}\r\n", chunks[0].len());
    let rest = good.len() - memchr::memmem::find(&good, size.as_bytes()).unwrap();
    let tail = memchr::memmem::find(&good, b"\r\n0\r\n").unwrap();
    let start = memchr::memmem::find(&good, size.as_bytes()).unwrap() + size.len();
    let shapes = [
        ("past the end", rest + 100),
        ("onto a later line end", tail + 1 - start),
        ("one byte too large", chunks[0].len() + 1),
    ];
    for (name, wrong) in shapes {
        let bad = replaced(
            &good,
            size.as_bytes(),
            format!("\r\n{wrong:x}\r\n").as_bytes(),
        );
        let file = [bad.clone(), after()].concat();
        let (out, summary, reports) = rewrite(&file, Limit::Default);
        assert!(!reports[0].changed, "{name}");
        assert!(
            reports[0]
                .warnings
                .iter()
                .any(|w| w.to_string().contains("chunk")),
            "{name}: {:?}",
            reports[0].warnings
        );
        assert_eq!(summary.changed, 1, "{name}: the record after is rewritten");
        assert!(
            out.starts_with(&bad),
            "{name}: the record is copied as it is"
        );
    }
    // A whole chunked body is rewritten, its split URL read whole.
    let (out, _, reports) = rewrite(&good, Limit::Default);
    assert!(reports[0].changed);
    let plain = String::from_utf8_lossy(&out);
    assert!(
        plain.contains("href=\"http://abs.example/x.html\""),
        "{plain}"
    );
    assert!(plain.contains("href=http://a.example/c/rel"), "{plain}");
}

// Errors name records from 1.

#[test]
fn gzip_data_that_cannot_be_read_in_a_streamed_member_names_a_record_from_1() {
    // A record past the limit after a small one: the member is streamed;
    // its CRC is wrong.
    let records = [
        page("http://a.example/s/", "<a href=s>s</a>"),
        page("http://a.example/1/", &"x".repeat(5000)),
        page("http://a.example/2/", "<a href=t>t</a>"),
    ];
    let mut input = gzip(&records.concat());
    let crc = input.len() - 8;
    input[crc] ^= 0xff;
    // unit: the payload limit is set only on the archive reader's options.
    let message = run_limited(&input, 1000, true).unwrap_err();
    assert!(message.starts_with("record 3: gzip data"), "{message}");
}

#[test]
fn a_streamed_member_cut_short_with_nothing_to_rewrite_is_copied_as_it_was() {
    // unit: the small payload limit is set only on the archive reader's options.
    let absolute = |n: usize| {
        page(
            &format!("http://a.example/{n}/"),
            &format!("<a href=http://a.example/{n}>{}</a>", "y".repeat(n * 7)),
        )
    };
    let mut records: Vec<Vec<u8>> = (0..20).map(absolute).collect();
    // A record past the limit after others: the member is streamed.
    records.insert(3, page("http://a.example/big/", &"x".repeat(5000)));
    let whole = gzip(&records.concat());
    for cut in [whole.len() - 4, whole.len() * 2 / 3] {
        let input = &whole[..cut];
        let (out, summary, _) = rewrite(input, Limit::Small);
        assert_eq!(summary.changed, 0, "cut at {cut}");
        assert!(
            summary
                .warnings
                .iter()
                .any(|w| w.to_string().contains("cannot be read")),
            "{:?}",
            summary.warnings
        );
        assert!(out == input, "cut at {cut}: not the input's bytes");
    }
}
