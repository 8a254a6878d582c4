//! A structure fuzzer for web archives: archives built from random record
//! dialects (WARC versions, line ends, record types, HTTP codings,
//! digests), stray bytes, record text quoted inside blocks, wrong lengths,
//! gzip groupings, cuts and flipped bytes, each rewritten and held to what
//! an archivist relies on:
//!
//! 1. relink never panics: it rewrites the archive or refuses it;
//! 2. an archive with nothing to rewrite comes back byte for byte;
//! 3. warcio reads the same records (type and target URI, in order) from
//!    the output as from the input, as far as it reads the input;
//! 4. every digest that verified in the input verifies in the output;
//! 5. gzip that decodes whole in the input decodes whole in the output.
//!
//! The run is seeded: `RELINK_FUZZ_CASES` (default 1,500) sets how many
//! archives, `RELINK_FUZZ_SEED` the seed, so a failure is found again by
//! its seed and number.

use std::fmt::Write as _;
use std::io::{Read, Write};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::process::Command;

use base64::Engine as _;
use relink::warc::{self, WarcOptions};
use serde_json::Value;
use sha2::Digest as _;

use crate::python;

/// splitmix64: small, seeded, the same on every machine.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }

    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

const BASE32: &[u8; 32] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";

fn base32(bytes: &[u8]) -> String {
    let mut out = String::new();
    for chunk in bytes.chunks(5) {
        let mut buf = [0u8; 5];
        buf[..chunk.len()].copy_from_slice(chunk);
        let n = u64::from_be_bytes([0, 0, 0, buf[0], buf[1], buf[2], buf[3], buf[4]]);
        let chars = (chunk.len() * 8).div_ceil(5);
        for i in 0..8 {
            if i < chars {
                out.push(BASE32[((n >> (35 - 5 * i)) & 31) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().fold(String::new(), |mut s, b| {
        let _ = write!(s, "{b:02x}");
        s
    })
}

/// A digest field's value over `bytes`, in an algorithm and encoding the
/// real tools write.
fn digest(rng: &mut Rng, bytes: &[u8]) -> String {
    match rng.below(5) {
        0 | 1 => format!(
            "sha1:{}",
            base32(&sha1_smol::Sha1::from(bytes).digest().bytes())
        ),
        2 => format!("sha256:{}", hex(&sha2::Sha256::digest(bytes))),
        3 => format!("sha256:{}", base32(&sha2::Sha256::digest(bytes))),
        _ => format!(
            "sha512:{}",
            base64::engine::general_purpose::STANDARD.encode(sha2::Sha512::digest(bytes))
        ),
    }
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut w = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    w.write_all(bytes).unwrap();
    w.finish().unwrap()
}

fn chunked(body: &[u8], rng: &mut Rng) -> Vec<u8> {
    let mut out = Vec::new();
    let mut rest = body;
    while !rest.is_empty() {
        let n = (1 + rng.below(40)).min(rest.len());
        out.extend_from_slice(format!("{n:x}\r\n").as_bytes());
        out.extend_from_slice(&rest[..n]);
        out.extend_from_slice(b"\r\n");
        rest = &rest[n..];
    }
    out.extend_from_slice(b"0\r\n\r\n");
    out
}

/// An HTML page, with relative links unless `absolute`.
fn html(rng: &mut Rng, absolute: bool) -> String {
    let mut page = String::from("<!DOCTYPE html><html><head><title>t</title>");
    if rng.chance(15) {
        page.push_str(if absolute {
            "<base href=\"http://base.example/dir/\">"
        } else {
            "<base href=\"../up/\">"
        });
    }
    page.push_str("</head><body>\n");
    for i in 0..1 + rng.below(6) {
        let link = if absolute {
            format!("http://abs.example/{i}.html")
        } else {
            rng.pick(&[
                "a.html",
                "../b/c.html",
                "?q",
                "#f",
                "",
                "/root.css",
                "d e.png",
            ])
            .to_string()
        };
        match rng.below(4) {
            0 => {
                let _ = writeln!(page, "<a href=\"{link}\">x{i}</a>");
            }
            1 => {
                let _ = writeln!(page, "<img src='{link}' alt=y>");
            }
            2 => {
                let _ = writeln!(page, "<p style=\"background:url({link})\">z</p>");
            }
            _ => {
                let _ = writeln!(page, "<link rel=stylesheet href={link}>");
            }
        }
    }
    page.push_str("</body></html>\n");
    page
}

/// WARC record text, as a page that shows one would quote it.
fn quoted_record(rng: &mut Rng, absolute: bool) -> String {
    let body = html(rng, absolute);
    format!(
        "WARC/1.0\r\nWARC-Type: response\r\nWARC-Target-URI: http://quoted.example/\r\n\
         Content-Type: application/http; msgtype=response\r\nContent-Length: {}\r\n\r\n\
         HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n{body}\r\n\r\n",
        body.len() + 45
    )
}

/// One record's bytes, as some tool would write them.
fn record(rng: &mut Rng, n: usize, absolute: bool) -> Vec<u8> {
    let eol: &str = if rng.chance(85) { "\r\n" } else { "\n" };
    let version = *rng.pick(&["1.0", "1.0", "1.0", "1.1", "0.17", "0.18"]);
    let uri = format!("http://site{}.example/path/{n}/page.html", rng.below(3));
    let kind = *rng.pick(&[
        "response", "response", "response", "resource", "request", "metadata", "revisit",
        "warcinfo", "quote",
    ]);
    let (warc_type, content_type, block, payload): (&str, &str, Vec<u8>, Option<Vec<u8>>) =
        match kind {
            "response" | "quote" | "revisit" => {
                let (media, body) = if kind == "quote" {
                    ("text/plain", quoted_record(rng, absolute).into_bytes())
                } else {
                    ("text/html; charset=utf-8", html(rng, absolute).into_bytes())
                };
                let mut head = format!("HTTP/1.1 200 OK\r\nContent-Type: {media}\r\n");
                let mut sent = body.clone();
                if rng.chance(20) {
                    sent = gzip(&sent);
                    head.push_str("Content-Encoding: gzip\r\n");
                }
                if rng.chance(20) {
                    sent = chunked(&sent, rng);
                    head.push_str("Transfer-Encoding: chunked\r\n");
                } else if rng.chance(70) {
                    let _ = write!(head, "Content-Length: {}\r\n", sent.len());
                }
                if !absolute && rng.chance(20) {
                    head.push_str("Location: ../moved.html\r\n");
                }
                head.push_str("\r\n");
                let block = [head.as_bytes(), &sent].concat();
                let t = if kind == "revisit" {
                    "revisit"
                } else {
                    "response"
                };
                (t, "application/http; msgtype=response", block, Some(sent))
            }
            "resource" => (
                "resource",
                "text/html",
                html(rng, absolute).into_bytes(),
                None,
            ),
            "request" => (
                "request",
                "application/http; msgtype=request",
                format!("GET /path/{n}/page.html HTTP/1.1\r\nHost: site.example\r\n\r\n")
                    .into_bytes(),
                None,
            ),
            "metadata" => (
                "metadata",
                "application/warc-fields",
                b"outlink: ../x.html\r\nvia: a.html\r\n".to_vec(),
                None,
            ),
            _ => (
                "warcinfo",
                "application/warc-fields",
                b"software: relink-fuzz\r\nformat: WARC File Format 1.0\r\n".to_vec(),
                None,
            ),
        };
    let mut head = format!("WARC/{version}{eol}WARC-Type: {warc_type}{eol}");
    let _ = write!(head, "WARC-Record-ID: <urn:uuid:fuzz-{n}>{eol}");
    if warc_type != "warcinfo" {
        let _ = write!(head, "WARC-Target-URI: {uri}{eol}");
    }
    let _ = write!(head, "WARC-Date: 2026-01-01T00:00:00Z{eol}");
    if rng.chance(60) {
        let value = digest(rng, &block);
        let _ = write!(head, "WARC-Block-Digest: {value}{eol}");
        if let Some(payload) = &payload {
            let value = digest(rng, payload);
            let _ = write!(head, "WARC-Payload-Digest: {value}{eol}");
        }
    }
    let _ = write!(head, "Content-Type: {content_type}{eol}");
    let length = match rng.below(20) {
        0 => block.len().saturating_sub(1 + rng.below(6)),
        1 => block.len() + 1 + rng.below(6),
        2 => block.len() + 100 + rng.below(400),
        _ => block.len(),
    };
    let _ = write!(head, "Content-Length: {length}{eol}{eol}");
    let close = if rng.chance(5) {
        "\r\nstray line\r\n"
    } else if eol == "\n" && rng.chance(50) {
        "\n\n"
    } else {
        "\r\n\r\n"
    };
    [head.as_bytes(), &block, close.as_bytes()].concat()
}

/// Stray bytes between records, sometimes.
fn stray(rng: &mut Rng) -> Vec<u8> {
    match rng.below(12) {
        0 => b"junk that is no record\r\n".to_vec(),
        1 => b"\0\0\0".to_vec(),
        2 => vec![b' '; 1 + rng.below(300)],
        3 => b"\r\n\r\n\r\n".to_vec(),
        4 => b"WARC/1.0\r\n".to_vec(),
        _ => Vec::new(),
    }
}

/// One archive: its bytes, whether it holds no relative link at all, and
/// whether a byte of it was flipped (a flip can make any text a link, or
/// any field no field).
fn archive(rng: &mut Rng) -> (Vec<u8>, bool, bool) {
    let absolute = rng.chance(20);
    let count = 1 + rng.below(6);
    let mut records: Vec<Vec<u8>> = (0..count)
        .map(|n| {
            let mut bytes = stray(rng);
            bytes.extend(record(rng, n, absolute));
            bytes
        })
        .collect();
    if rng.chance(10) {
        records.push(stray(rng));
    }
    let mut out = match rng.below(4) {
        0 => records.concat(),
        1 => records.iter().flat_map(|r| gzip(r)).collect(),
        2 => gzip(&records.concat()),
        _ => {
            let mut out = Vec::new();
            let mut group = Vec::new();
            for r in &records {
                group.extend_from_slice(r);
                if rng.chance(50) {
                    out.extend(gzip(&group));
                    group.clear();
                }
            }
            if !group.is_empty() {
                out.extend(gzip(&group));
            }
            out
        }
    };
    if rng.chance(8) && out.len() > 2 {
        let cut = 1 + rng.below(out.len() - 1);
        out.truncate(cut);
    }
    let flipped = rng.chance(8) && !out.is_empty();
    if flipped {
        let at = rng.below(out.len());
        out[at] ^= 1 << rng.below(8);
    }
    (out, absolute, flipped)
}

fn gzip_whole(bytes: &[u8]) -> bool {
    let mut out = Vec::new();
    flate2::read::MultiGzDecoder::new(bytes)
        .read_to_end(&mut out)
        .is_ok()
}

/// What warcio reads of each file: its records (type, target URI, whether
/// their digests verified) and the error it stopped at, if any.
const READ_ALL: &str = r#"
import json, sys
from warcio.archiveiterator import ArchiveIterator
for path in sys.argv[1:]:
    records, error = [], None
    try:
        with open(path, 'rb') as f:
            it = ArchiveIterator(f, check_digests=True)
            for record in it:
                record.content_stream().read()
                passed = record.digest_checker.passed
                records.append([record.rec_type,
                                record.rec_headers.get_header('WARC-Target-URI'),
                                passed])
    except Exception as e:
        error = type(e).__name__ + ': ' + str(e)[:200]
    print(json.dumps({'records': records, 'error': error}))
"#;

/// With `RELINK_FUZZ_KEEP=DIR`, a failing case's input and output are
/// written there, to be looked at.
fn keep(number: usize, input: &[u8], output: &[u8]) {
    if let Some(dir) = std::env::var_os("RELINK_FUZZ_KEEP") {
        let dir = std::path::PathBuf::from(dir);
        let _ = std::fs::create_dir_all(&dir);
        let _ = std::fs::write(dir.join(format!("{number}.in")), input);
        let _ = std::fs::write(dir.join(format!("{number}.out")), output);
    }
}

struct Case {
    number: usize,
    input: Vec<u8>,
    output: Vec<u8>,
    /// Whether relink read record text that a block quotes as a record.
    quoted: bool,
}

#[test]
fn archives_built_at_random_are_never_damaged() {
    let cases: usize = std::env::var("RELINK_FUZZ_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1500);
    let seed: u64 = std::env::var("RELINK_FUZZ_SEED")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1808);
    let mut rng = Rng(seed);
    let mut failures = Vec::new();
    let mut done = Vec::new();
    for number in 0..cases {
        let (input, absolute, flipped) = archive(&mut rng);
        let options = WarcOptions {
            max_payload_bytes: if rng.chance(15) { 300 } else { 256 << 20 },
            ..WarcOptions::default()
        };
        let small = options.max_payload_bytes < 1000;
        let mut uris = Vec::new();
        let run = catch_unwind(AssertUnwindSafe(|| {
            let mut out = Vec::new();
            warc::rewrite_with(&input[..], &mut out, &options, |r| uris.push(r.target_uri))
                .map(|_| out)
        }));
        let output = match run {
            Err(_) => {
                failures.push(format!("case {number}: panicked"));
                continue;
            }
            // A refusal is an answer; the input is left to the caller.
            Ok(Err(_)) => continue,
            Ok(Ok(out)) => out,
        };
        // A gzip member holding a record over the payload limit with
        // others is compressed again as it is read, whatever changed.
        if absolute && !flipped && output != input && !small {
            keep(number, &input, &output);
            failures.push(format!(
                "case {number}: nothing to rewrite, yet the output differs"
            ));
        }
        if input.starts_with(&[0x1f, 0x8b]) && gzip_whole(&input) && !gzip_whole(&output) {
            failures.push(format!("case {number}: the output is not gzip-valid"));
        }
        done.push(Case {
            number,
            input,
            output,
            quoted: !flipped && uris.iter().any(|u| u.contains("quoted.example")),
        });
    }

    // warcio reads every input and output in one run.
    let dir = tempfile::tempdir().unwrap();
    let mut paths = Vec::new();
    for case in &done {
        for (side, bytes) in [("in", &case.input), ("out", &case.output)] {
            let path = dir.path().join(format!("{}.{side}", case.number));
            std::fs::write(&path, bytes).unwrap();
            paths.push(path);
        }
    }
    let result = Command::new(python())
        .arg("-c")
        .arg(READ_ALL)
        .args(&paths)
        .output()
        .expect("python runs");
    assert!(
        result.status.success(),
        "warcio: {}",
        String::from_utf8_lossy(&result.stderr)
    );
    let reads: Vec<Value> = String::from_utf8(result.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(reads.len(), paths.len());
    for (case, pair) in done.iter().zip(reads.chunks(2)) {
        let (before, after) = (&pair[0], &pair[1]);
        let old = before["records"].as_array().unwrap();
        let new = after["records"].as_array().unwrap();
        let same = |a: &Value, b: &Value| a[0] == b[0] && a[1] == b[1];
        // warcio read the input whole, and read records (it reads white
        // space before the first record as a record of no type).
        let complete = before["error"].is_null() && old.iter().all(|r| !r[0].is_null());
        let agree = if complete {
            old.len() == new.len() && old.iter().zip(new).all(|(a, b)| same(a, b))
        } else {
            // As far as warcio reads the input, it reads the output alike.
            old.len() <= new.len() && old.iter().zip(new).all(|(a, b)| same(a, b))
        };
        if !agree {
            failures.push(format!(
                "case {}: warcio reads other records ({} then {}; input error {})",
                case.number,
                old.len(),
                new.len(),
                before["error"]
            ));
            continue;
        }
        // Where warcio reads the input whole, the framing is sound, and
        // record text a block quotes is never a record.
        if complete && case.quoted {
            keep(case.number, &case.input, &case.output);
            failures.push(format!(
                "case {}: quoted record text read as a record",
                case.number
            ));
        }
        if complete && !after["error"].is_null() {
            failures.push(format!(
                "case {}: warcio reads the input whole, not the output: {}",
                case.number, after["error"]
            ));
        }
        for (i, (a, b)) in old.iter().zip(new).enumerate() {
            if a[2] == Value::Bool(true) && b[2] != Value::Bool(true) {
                failures.push(format!(
                    "case {}: record {} verified in the input, not in the output",
                    case.number,
                    i + 1
                ));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "seed {seed}, {cases} cases ({} rewritten):\n{}",
        done.len(),
        failures.join("\n")
    );
    // The run is worth its time only when most archives were rewritten.
    assert!(
        done.len() * 2 > cases,
        "{} of {cases} rewritten",
        done.len()
    );
}
