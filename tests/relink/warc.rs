//! Web archives: the links of every record against its own base, the
//! rewritten file checked by warcio (a reader that shares no code with
//! relink), unchanged records byte-identical, each compression kept.

use std::io::{Read, Write};
use std::process::Command;
use std::sync::Arc;

use flate2::Compression;
use flate2::write::GzEncoder;
use relink::{
    Event, Input, Kind, Layer, Link, LinkRow, Output, RecordName, Report, Rewriter, Rules, Unit,
    Warning,
};
use serde_json::Value;

use crate::{fixture, python, table};

const SITE: &str = "http://127.0.0.1:8769";

fn read(name: &str) -> Vec<u8> {
    std::fs::read(fixture(name)).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// One record done, as [`Event::Done`] names it.
#[derive(Debug)]
pub(crate) struct Record {
    pub(crate) name: Arc<RecordName>,
    pub(crate) changed: bool,
    pub(crate) warnings: Vec<Warning>,
}

/// What a run over an archive gave: the bytes written, each record done,
/// the rows, whether the output was told compressed, and the report.
#[derive(Debug)]
pub(crate) struct Archive {
    pub(crate) out: Vec<u8>,
    pub(crate) compressed: bool,
    pub(crate) records: Vec<Record>,
    pub(crate) rows: Vec<LinkRow>,
    /// Each document's base layers, under its label, from its unit's `Done`.
    pub(crate) layers: Vec<(String, Vec<Layer>)>,
    pub(crate) report: Report,
}

impl Archive {
    /// How many records changed.
    pub(crate) fn changed(&self) -> usize {
        self.records.iter().filter(|r| r.changed).count()
    }

    /// The warnings of the whole input, in input order.
    pub(crate) fn warnings(&self) -> &[Warning] {
        &self.report.warnings
    }

    /// The output and what the run reported, in a summary's shape.
    pub(crate) fn summary(self) -> (Vec<u8>, Summary) {
        let summary = Summary {
            records: self.report.records,
            changed: self.changed(),
            warnings: self.report.warnings,
        };
        (self.out, summary)
    }

    /// Each link with the record it is in.
    pub(crate) fn links(&self) -> Vec<RecordLink> {
        self.rows
            .iter()
            .map(|row| {
                let record = record_of(row);
                RecordLink {
                    record: record.number,
                    target_uri: record.target_uri.clone(),
                    record_id: record.record_id.clone(),
                    link: row.link.clone(),
                }
            })
            .collect()
    }
}

/// What a run over an archive reported: how many records it holds, how
/// many changed, every warning.
#[derive(Debug)]
pub(crate) struct Summary {
    pub(crate) records: usize,
    pub(crate) changed: usize,
    pub(crate) warnings: Vec<Warning>,
}

/// One link of an archive, with the record it is in (its number, target
/// URI and ID), from its row.
#[derive(Debug, Clone)]
pub(crate) struct RecordLink {
    pub(crate) record: usize,
    pub(crate) target_uri: String,
    pub(crate) record_id: String,
    pub(crate) link: Link,
}

/// Runs `rewriter` over `input` through the front door, writing every
/// byte of the output when `write`, else nothing (a listing).
pub(crate) fn run_archive(
    rewriter: &Rewriter,
    input: Input<'_>,
    write: bool,
) -> Result<Archive, relink::Error> {
    let mut out = Vec::new();
    let mut compressed = false;
    let (mut records, mut rows, mut layers) = (Vec::new(), Vec::new(), Vec::new());
    let output = if write {
        Output::Always(&mut out)
    } else {
        Output::Nowhere
    };
    let report = rewriter.run(input, output, &mut |event| {
        match event {
            Event::Start { compressed: c, .. } => compressed = c,
            Event::Rows(found) => rows.extend_from_slice(found),
            Event::Done(done) => {
                layers.extend_from_slice(done.layers);
                if let Unit::Record(name) = done.unit {
                    records.push(Record {
                        name,
                        changed: done.changed,
                        warnings: done.warnings.to_vec(),
                    });
                }
            }
            _ => {}
        }
        Ok(())
    })?;
    Ok(Archive {
        out,
        compressed,
        records,
        rows,
        layers,
        report,
    })
}

/// `input` rewritten by the default rewriter.
fn rewrite(input: &[u8]) -> Archive {
    run_archive(&Rewriter::new(), Input::bytes(input), true).unwrap()
}

/// The rows of `input`, listed by the rules `rules`.
fn links(input: &[u8], rules: Rules) -> Vec<LinkRow> {
    let rewriter = Rewriter::new().rules(rules);
    run_archive(&rewriter, Input::bytes(input), false)
        .unwrap()
        .rows
}

/// `input` rewritten with a payload limit of `limit` bytes.
fn rewrite_limited(input: &[u8], limit: usize) -> (Vec<u8>, Summary) {
    let (out, summary, _) = run_limited(input, limit, true).unwrap();
    (out, summary)
}

/// One record as a run reported it: its target URI, whether it changed,
/// its links and warnings.
#[derive(Debug)]
pub(crate) struct Done {
    pub(crate) target_uri: String,
    pub(crate) changed: bool,
    pub(crate) links: Vec<Link>,
    pub(crate) warnings: Vec<Warning>,
}

/// A run over `input`, read as a web archive, with a payload limit of
/// `limit` bytes, writing when `write`; or the message it refused the
/// input with.
pub(crate) fn run_limited(
    input: &[u8],
    limit: usize,
    write: bool,
) -> Result<(Vec<u8>, Summary, Vec<Done>), String> {
    let rewriter = Rewriter::new().max_payload_bytes(limit);
    let input = Input::bytes(input).kind(Kind::Warc);
    let archive = run_archive(&rewriter, input, write).map_err(|e| e.to_string())?;
    let links_of = |number| {
        let rows = archive
            .rows
            .iter()
            .filter(|row| record_of(row).number == number);
        rows.map(|row| row.link.clone()).collect()
    };
    let reports = archive.records.iter().map(|r| Done {
        target_uri: r.name.target_uri.clone(),
        changed: r.changed,
        links: links_of(r.name.number),
        warnings: r.warnings.clone(),
    });
    let summary = Summary {
        records: archive.report.records,
        changed: archive.records.iter().filter(|r| r.changed).count(),
        warnings: archive.report.warnings,
    };
    Ok((archive.out, summary, reports.collect()))
}

/// The record a row is in.
pub(crate) fn record_of(row: &LinkRow) -> &RecordName {
    row.record
        .as_deref()
        .expect("a row of an archive names its record")
}

/// The kind the front door tells `input` to be, by its content.
pub(crate) fn kind_of(input: &[u8]) -> Option<Kind> {
    let mut kind = None;
    let _ = Rewriter::new().run(Input::bytes(input), Output::Nowhere, &mut |event| {
        if let Event::Start { kind: k, .. } = event {
            kind = Some(k);
        }
        Ok(())
    });
    kind
}

/// Every record of a WARC file as warcio reads it, after `warcio check`
/// passed on it (see fixtures/warc/check_warc.py).
fn warcio(bytes: &[u8]) -> Vec<Value> {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("out.warc.gz");
    std::fs::write(&path, bytes).unwrap();
    let python = python();
    let output = Command::new(&python)
        .arg(fixture("warc/check_warc.py"))
        .arg(&path)
        .output()
        .unwrap_or_else(|e| {
            panic!("{} is needed to check WARC output with warcio ({e}): run the tests with tests/run.sh, which makes a virtualenv with warcio, or set RELINK_TEST_PYTHON to a Python that has warcio and brotli", python.display())
        });
    let stderr = String::from_utf8_lossy(&output.stderr);
    match output.status.code() {
        Some(0) => {}
        Some(2) => {
            panic!(
                "warcio is needed to check WARC output: run the tests with tests/run.sh, which makes a virtualenv with warcio, or set RELINK_TEST_PYTHON to a Python that has it ({} has not)\n{stderr}",
                python.display()
            )
        }
        _ => panic!("warcio rejects the output:\n{stderr}"),
    }
    let records: Value = serde_json::from_slice(&output.stdout).unwrap();
    records.as_array().unwrap().clone()
}

fn gunzip(bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    flate2::read::MultiGzDecoder::new(bytes)
        .read_to_end(&mut out)
        .unwrap();
    out
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut w = GzEncoder::new(Vec::new(), Compression::default());
    w.write_all(bytes).unwrap();
    w.finish().unwrap()
}

/// The gzip members of a file, as they are written.
fn members(bytes: &[u8]) -> Vec<&[u8]> {
    let mut out = Vec::new();
    let mut rest = bytes;
    while !rest.is_empty() {
        let mut decoder = flate2::bufread::GzDecoder::new(rest);
        std::io::copy(&mut decoder, &mut std::io::sink()).unwrap();
        let left = decoder.into_inner().len();
        out.push(&rest[..rest.len() - left]);
        rest = &rest[rest.len() - left..];
    }
    out
}

fn payload<'a>(records: &'a [Value], uri: &str) -> &'a str {
    records
        .iter()
        .find(|r| r["type"] == "response" && r["uri"] == uri)
        .and_then(|r| r["payload"].as_str())
        .unwrap_or_else(|| panic!("no response for {uri}"))
}

#[test]
fn site_links_resolve_against_each_records_layers() {
    let input = read("warc/site.warc.gz");
    let rows = table("warc/site-links.tsv", 5);
    assert!(rows.len() >= 20);
    for row in rows {
        let rules: Rules = row[0].parse().unwrap();
        let target = format!("{SITE}{}", row[1]);
        let found = links(&input, rules);
        let link = found
            .iter()
            .find(|l| record_of(l).target_uri == target && l.link.original == row[2])
            .unwrap_or_else(|| panic!("{row:?}: no such link"));
        assert_eq!(link.link.resolved, row[3], "{row:?}");
        let from = link.link.base.as_ref().unwrap().source.to_string();
        assert_eq!(from, row[4], "{row:?}");
        assert!(
            record_of(link).record_id.starts_with("<urn:uuid:"),
            "{row:?}"
        );
    }
}

#[test]
fn listing_finds_no_links_in_requests_images_or_text_resources() {
    let found = links(&read("warc/site.warc.gz"), Rules::default());
    let targets: std::collections::BTreeSet<&str> = found
        .iter()
        .map(|l| record_of(l).target_uri.as_str())
        .collect();
    assert!(!targets.contains(&*format!("{SITE}/site/img.png")));
    assert!(!targets.iter().any(|t| t.starts_with("metadata:")));
    // 11 HTML pages and the style sheet.
    assert_eq!(targets.len(), 12, "{targets:?}");
}

#[test]
fn rewritten_site_passes_warcio_with_every_coding_redone() {
    let input = read("warc/site.warc.gz");
    let run = rewrite(&input);
    let out = run.out.clone();
    // Written in gzip, one member a record, as it came.
    assert!(run.compressed);
    assert_eq!(members(&out).len(), run.report.records);
    assert_eq!(run.changed(), 12, "{:?}", run.warnings());
    assert!(run.warnings().is_empty(), "{:?}", run.warnings());
    let before = warcio(&input);
    let after = warcio(&out);
    assert_eq!(before.len(), after.len());
    for (was, now) in before.iter().zip(&after) {
        assert_eq!(was["type"], now["type"]);
        assert_eq!(was["uri"], now["uri"]);
        if now["type"] == "response" {
            assert_eq!(now["length_ok"], true, "{}", now["uri"]);
        }
    }
    for page in ["gzipped", "chunked", "gzipped-chunked", "untyped", "moved"] {
        let text = payload(&after, &format!("{SITE}/site/{page}.html"));
        assert!(
            text.contains(&format!(r#"href="{SITE}/site/other.html""#)),
            "{page}: {text}"
        );
        assert!(
            text.contains(&format!(r#"href="{SITE}/up.html""#)),
            "{page}"
        );
    }
    let located = payload(&after, &format!("{SITE}/site/located.html"));
    assert!(located.contains(&format!(r#"href="{SITE}/moved/other.html""#)));
    let css = payload(&after, &format!("{SITE}/site/style.css"));
    assert_eq!(
        css,
        format!(
            "body {{ background: url({SITE}/site/img/back.png) }}\n@import \"{SITE}/site/print.css\";\n"
        )
    );
    // The image is what it was.
    let png = format!("{SITE}/site/img.png");
    assert_eq!(payload(&before, &png), payload(&after, &png));
}

#[test]
fn unchanged_records_keep_their_gzip_members_byte_for_byte() {
    let input = read("warc/site.warc.gz");
    let run = rewrite(&input);
    let (old, new) = (members(&input), members(&run.out));
    // One member per record, in and out.
    assert_eq!(old.len(), run.report.records);
    assert_eq!(new.len(), run.report.records);
    let same = old.iter().zip(&new).filter(|(a, b)| a == b).count();
    assert_eq!(same, run.report.records - run.changed());
    // Every changed member holds exactly one record.
    for member in new {
        let text = gunzip(member);
        assert_eq!(memchr::memmem::find_iter(&text, b"WARC/1.0\r\n").count(), 1);
    }
}

/// A changed member is compressed again at the level its header names
/// (RFC 1952's extra flags: 2 the best, 4 the fastest, 0 the default),
/// one member a record, its input deflated whole by libdeflate (levels
/// 9, 1 and 6): the same bytes on every run and every thread count. An
/// unchanged one is copied as it was, whatever its level.
#[test]
fn a_changed_member_is_deflated_whole_at_the_level_its_header_names() {
    let page = |name: &str| {
        let body = format!("<a href=\"{name}\">{}</a>", "x".repeat(2000));
        let headers = "Content-Type: text/html\r\n";
        response(
            &format!("http://h.example/d/{name}"),
            headers,
            body.as_bytes(),
        )
    };
    let plain = record("resource", "http://h.example/t", "text/plain", b"t", None);
    // Each level, and the level libdeflate is asked for.
    let levels = [
        (Compression::best(), 9),
        (Compression::fast(), 1),
        (Compression::new(5), 6),
    ];
    let mut input = Vec::new();
    for (i, (level, _)) in levels.into_iter().enumerate() {
        for bytes in [page(&format!("p{i}")), plain.clone()] {
            let mut w = GzEncoder::new(Vec::new(), level);
            w.write_all(&bytes).unwrap();
            input.extend(w.finish().unwrap());
        }
    }
    let run = rewrite(&input);
    assert_eq!(run.changed(), 3);
    let out = run.out;
    let (old, new) = (members(&input), members(&out));
    assert_eq!(new.len(), 6);
    for (i, (old, new)) in old.iter().zip(&new).enumerate() {
        // The header as flate2 writes it, the extra flags the input's.
        assert_eq!(new[..10], [0x1f, 0x8b, 8, 0, 0, 0, 0, 0, old[8], 255]);
        if i % 2 == 1 {
            assert_eq!(old, new);
            continue;
        }
        let text = gunzip(new);
        let level = libdeflater::CompressionLvl::new(levels[i / 2].1).unwrap();
        let mut deflater = libdeflater::Compressor::new(level);
        let mut deflated = vec![0; deflater.deflate_compress_bound(text.len())];
        let n = deflater.deflate_compress(&text, &mut deflated).unwrap();
        assert_eq!(new[10..new.len() - 8], deflated[..n], "member {i}");
    }
    assert!(
        gunzip(&out)
            .windows(26)
            .any(|w| w == b"http://h.example/d/p2\">xxx")
    );
    for jobs in ["1", "3"] {
        let cli = crate::cli::relink(&["-q", "-j", jobs, "-"], &input);
        crate::cli::assert_ok(&cli);
        assert!(cli.stdout == out, "-j {jobs}");
    }
}

#[test]
fn a_second_pass_changes_nothing() {
    let input = read("warc/site.warc.gz");
    let once = rewrite(&input).out;
    let twice = rewrite(&once);
    assert_eq!(twice.changed(), 0);
    assert!(twice.out == once);
    for link in links(&once, Rules::default()) {
        assert_eq!(link.link.original, link.link.resolved);
    }
}

#[test]
fn plain_and_whole_stream_gzip_files_are_written_as_they_came() {
    let members_out = gunzip(&rewrite(&read("warc/site.warc.gz")).out);
    let plain = gunzip(&read("warc/site.warc.gz"));
    assert_eq!(kind_of(&plain), Some(Kind::Warc));
    let run = rewrite(&plain);
    assert!(!run.compressed);
    let out = run.out;
    assert!(out.starts_with(b"WARC/1.0\r\n"));
    assert!(out == members_out, "plain output differs from the members'");
    warcio(&out);

    let stream = gzip(&plain);
    assert_eq!(kind_of(&stream), Some(Kind::Warc));
    let run = rewrite(&stream);
    // One gzip stream in, one out.
    assert!(run.compressed);
    let out = run.out;
    assert_eq!(members(&out).len(), 1);
    assert!(gunzip(&out) == members_out);
    // warcio checks no whole-stream gzip file; it checks what it holds.
    warcio(&gunzip(&out));
}

#[test]
fn corpus_warc_is_rewritten_and_passes_warcio() {
    let input = read("corpus/warc/python-tutorial.warc.gz");
    assert_eq!(kind_of(&input[..1024]), Some(Kind::Warc));
    let run = rewrite(&input);
    assert_eq!(run.report.records, 40);
    // The 17 tutorial pages (the 404 page for robots.txt has no links).
    assert_eq!(run.changed(), 17, "{:?}", run.warnings());
    let out = run.out;
    let after = warcio(&out);
    assert_eq!(after.len(), 40);
    let index = payload(&after, "http://127.0.0.1:8768/tutorial/index.html");
    assert!(index.contains(r#"href="http://127.0.0.1:8768/_static/pygments.css""#));
    let found = links(&input, Rules::default());
    assert!(found.len() > 1000, "{}", found.len());
    let odd: Vec<&str> = found
        .iter()
        .map(|l| l.link.resolved.as_str())
        .filter(|r| ::url::Url::parse(r).is_err())
        .collect();
    assert!(odd.is_empty(), "{odd:?}");
    assert_eq!(rewrite(&out).changed(), 0);
}

// Hand-made records, for what wget does not send.

/// A record with a hex SHA-1 block digest (and a payload digest over
/// `payload_digest_of`, when given).
fn record(
    kind: &str,
    uri: &str,
    content_type: &str,
    block: &[u8],
    payload_digest_of: Option<&[u8]>,
) -> Vec<u8> {
    let mut head = format!(
        "WARC/1.1\r\nWARC-Type: {kind}\r\nWARC-Record-ID: <urn:uuid:{kind}-{}>\r\nWARC-Target-URI: {uri}\r\nContent-Type: {content_type}\r\nWARC-Block-Digest: sha1:{}\r\n",
        block.len(),
        sha1_smol::Sha1::from(block).digest()
    );
    if let Some(payload) = payload_digest_of {
        head.push_str(&format!(
            "WARC-Payload-Digest: sha1:{}\r\n",
            sha1_smol::Sha1::from(payload).digest()
        ));
    }
    head.push_str(&format!("Content-Length: {}\r\n\r\n", block.len()));
    [head.as_bytes(), block, b"\r\n\r\n"].concat()
}

fn response(uri: &str, headers: &str, body: &[u8]) -> Vec<u8> {
    let block = [format!("HTTP/1.1 200 OK\r\n{headers}\r\n").as_bytes(), body].concat();
    let http = "application/http; msgtype=response";
    let body_start = block.len() - body.len();
    record("response", uri, http, &block, Some(&block[body_start..]))
}

fn brotli(bytes: &[u8]) -> Vec<u8> {
    let mut w = brotli::CompressorWriter::new(Vec::new(), 4096, 5, 22);
    w.write_all(bytes).unwrap();
    w.flush().unwrap();
    w.into_inner()
}

#[test]
fn brotli_and_deflate_payloads_are_rewritten_and_encoded_again() {
    let page = b"<a href=x.html>x</a>";
    let mut zlib = flate2::write::ZlibEncoder::new(Vec::new(), Compression::default());
    zlib.write_all(page).unwrap();
    let zlib = zlib.finish().unwrap();
    let br = brotli(page);
    let input = [
        response(
            "http://a.example/br/",
            &format!(
                "Content-Type: text/html\r\nContent-Encoding: br\r\nContent-Length: {}\r\n",
                br.len()
            ),
            &br,
        ),
        response(
            "http://a.example/zlib/",
            &format!(
                "Content-Type: text/html\r\nContent-Encoding: deflate\r\nContent-Length: {}\r\n",
                zlib.len()
            ),
            &zlib,
        ),
    ]
    .concat();
    let run = rewrite(&input);
    assert_eq!(run.changed(), 2, "{:?}", run.warnings());
    let out = run.out;
    let after = warcio(&out);
    assert_eq!(
        payload(&after, "http://a.example/br/"),
        "<a href=http://a.example/br/x.html>x</a>"
    );
    assert_eq!(
        payload(&after, "http://a.example/zlib/"),
        "<a href=http://a.example/zlib/x.html>x</a>"
    );
    assert!(after.iter().all(|r| r["length_ok"] != false));
    // Digests stay in the hex form the input wrote.
    let text = String::from_utf8_lossy(&out);
    let digests = text
        .lines()
        .filter(|l| l.starts_with("WARC-Block-Digest: sha1:"));
    assert!(digests.clone().count() == 2);
    assert!(
        digests
            .into_iter()
            .all(|l| l.trim_end().len() == "WARC-Block-Digest: sha1:".len() + 40)
    );
}

#[test]
fn payload_digest_over_the_dechunked_body_stays_so() {
    let page = b"<a href=x>x</a>";
    let chunked = [
        format!("{:x}\r\n", page.len()).as_bytes(),
        page,
        b"\r\n0\r\n\r\n",
    ]
    .concat();
    let block = [
        &b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nTransfer-Encoding: chunked\r\n\r\n"[..],
        &chunked,
    ]
    .concat();
    // The digest over the payload, as some writers compute it.
    let input = record(
        "response",
        "http://a.example/",
        "application/http; msgtype=response",
        &block,
        Some(page),
    );
    let run = rewrite(&input);
    assert_eq!(run.changed(), 1);
    let out = run.out;
    let new_page = b"<a href=http://a.example/x>x</a>";
    let digest = format!(
        "WARC-Payload-Digest: sha1:{}\r\n",
        sha1_smol::Sha1::from(&new_page[..]).digest()
    );
    assert!(
        memchr::memmem::find(&out, digest.as_bytes()).is_some(),
        "{}",
        String::from_utf8_lossy(&out)
    );
}

#[test]
fn decompression_bomb_is_passed_through_with_a_warning_naming_the_record() {
    let bomb = gzip(&[b"<a href=x>".as_slice(), &vec![b' '; 8 << 20]].concat());
    let input = [
        response(
            "http://a.example/bomb",
            "Content-Type: text/html\r\nContent-Encoding: gzip\r\n",
            &bomb,
        ),
        response(
            "http://a.example/ok/",
            "Content-Type: text/html\r\n",
            b"<a href=x>",
        ),
    ]
    .concat();
    // unit: the payload limit is set only on the archive reader's options
    // (the front door's is 256 MiB, too large a bomb for a test).
    let (out, summary) = rewrite_limited(&input, 1 << 20);
    assert_eq!(summary.changed, 1);
    assert_eq!(summary.warnings.len(), 1, "{:?}", summary.warnings);
    let warning = summary.warnings[0].to_string();
    assert!(warning.contains("<urn:uuid:response-"), "{warning}");
    assert!(warning.contains("http://a.example/bomb"), "{warning}");
    assert!(warning.contains("limit"), "{warning}");
    // The bomb's record is copied as it was.
    let first = response(
        "http://a.example/bomb",
        "Content-Type: text/html\r\nContent-Encoding: gzip\r\n",
        &bomb,
    );
    assert!(out.starts_with(&first));
    warcio(&out);
}

#[test]
fn a_block_past_the_limit_is_streamed_through_unread() {
    let big = vec![b'x'; 5000];
    // One gzip member per record, as crawlers write them; the large
    // record's member at its best compression, which relink's would not
    // give back.
    let mut best = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    best.write_all(&response(
        "http://a.example/big",
        "Content-Type: text/html\r\n",
        &big,
    ))
    .unwrap();
    let large_member = best.finish().unwrap();
    let input = [
        large_member.clone(),
        gzip(&response(
            "http://a.example/ok/",
            "Content-Type: text/html\r\n",
            b"<a href=x>",
        )),
    ]
    .concat();
    // unit: the payload limit is set only on the archive reader's options
    // (the front door's is 256 MiB, too large a block for a test).
    let (out, summary) = rewrite_limited(&input, 1000);
    assert_eq!((summary.records, summary.changed), (2, 1));
    assert!(
        summary.warnings[0]
            .to_string()
            .contains("http://a.example/big"),
        "{:?}",
        summary.warnings
    );
    // The large record's member is copied byte for byte.
    assert!(out.starts_with(&large_member));
    let plain = gunzip(&out);
    assert!(memchr::memmem::find(&plain, &big).is_some());
    assert!(memchr::memmem::find(&plain, b"<a href=http://a.example/ok/x>").is_some());
    warcio(&out);
}

#[test]
fn broken_codings_leave_the_record_as_it_is() {
    let cases = [
        ("Content-Encoding: gzip\r\n", &b"not gzip"[..]),
        ("Content-Encoding: compress\r\n", b"x"),
        ("Transfer-Encoding: chunked\r\n", b"zz\r\nx"),
    ];
    for (header, body) in cases {
        let input = response(
            "http://a.example/",
            &format!("Content-Type: text/html\r\n{header}"),
            body,
        );
        let run = rewrite(&input);
        assert!(run.out == input, "{header}");
        assert_eq!(run.warnings().len(), 1, "{header}");
        assert!(
            run.warnings()[0]
                .to_string()
                .starts_with("record 1 <urn:uuid:"),
            "{:?}",
            run.warnings()
        );
    }
}

#[test]
fn resource_records_use_the_target_uri_and_others_pass_through() {
    let page = b"<a href=x>x</a>";
    let input = [
        record("resource", "http://a.example/dir/", "text/html", page, None),
        record(
            "request",
            "http://a.example/dir/",
            "application/http; msgtype=request",
            b"GET / HTTP/1.1\r\n\r\n",
            None,
        ),
        record(
            "revisit",
            "http://a.example/dir/",
            "application/http; msgtype=response",
            b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n",
            None,
        ),
        record("metadata", "http://a.example/dir/", "text/html", page, None),
    ]
    .concat();
    let run = rewrite(&input);
    assert_eq!(run.changed(), 1);
    let out = run.out;
    let after = warcio(&out);
    assert_eq!(after[0]["payload"], "<a href=http://a.example/dir/x>x</a>");
    let first_end = record("resource", "http://a.example/dir/", "text/html", page, None).len();
    assert!(out.ends_with(&input[first_end..]));
}

#[test]
fn content_length_of_the_http_message_follows_the_body() {
    let input = response(
        "http://a.example/d/",
        "Content-Type: text/html\r\nContent-Length: 10\r\n",
        b"<a href=x>",
    );
    let out = rewrite(&input).out;
    let new_body = b"<a href=http://a.example/d/x>";
    let want = format!("Content-Length: {}\r\n\r\n", new_body.len());
    assert!(
        memchr::memmem::find(&out, want.as_bytes()).is_some(),
        "{}",
        String::from_utf8_lossy(&out)
    );
    assert_eq!(warcio(&out)[0]["length_ok"], true);
}

#[test]
fn html_base_element_and_layers_are_reported_per_record() {
    let input = read("warc/site.warc.gz");
    let run = run_archive(&Rewriter::new(), Input::bytes(&input), false).unwrap();
    let number = run
        .records
        .iter()
        .find(|r| r.name.target_uri.ends_with("/element.html") && r.name.record_type == "response")
        .unwrap()
        .name
        .number;
    let label = format!("record {number} ");
    let layers: Vec<String> = run
        .layers
        .iter()
        .find(|(name, _)| name.starts_with(&label))
        .unwrap()
        .1
        .iter()
        .map(|l| format!("{} = {} ({})", l.source, l.value, l.status))
        .collect();
    assert_eq!(
        layers,
        [
            "the BASE element at line 2 = http://base.example/element/ (gives the base)",
            "Content-Location of the message = http://base.example/location/ (below the one used)",
            &format!(
                "WARC-Target-URI of the record = {SITE}/site/element.html (below the one used)"
            ),
        ]
    );
}

#[test]
fn a_file_cut_short_keeps_its_records_and_every_byte() {
    let input = read("warc/site.warc.gz");
    let cut = &input[..input.len() / 2];
    let run = rewrite(cut);
    assert!(run.report.records > 0 && run.changed() > 0, "{run:?}");
    let last = run.warnings().last().unwrap().to_string();
    assert!(last.contains("cannot be read"), "{last}");
    assert!(last.contains("offset"), "{last}");
    // The cut member is copied as it was: the output ends with it.
    let whole = rewrite(&input);
    assert!(whole.warnings().is_empty(), "{:?}", whole.warnings());
    let tail = &cut[cut.len() - 100..];
    assert!(run.out.ends_with(tail));
    assert_ne!(
        kind_of(b"From a@b Mon Jan  1 00:00:00 2024\n"),
        Some(Kind::Warc)
    );
}

/// The command line reads a WARC by its content, whatever its name.
#[test]
fn the_command_line_rewrites_lists_and_explains_a_warc() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("crawl.bin");
    std::fs::write(&input, read("corpus/warc/python-tutorial.warc.gz")).unwrap();
    let input = input.to_str().unwrap();
    let out = dir.path().join("out.warc.gz");
    let run = crate::cli::relink(&[input, "-o", out.to_str().unwrap()], b"");
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let written = std::fs::read(&out).unwrap();
    let library = run_archive(
        &Rewriter::new().rules(Rules::Rfc1808),
        Input::bytes(&read("corpus/warc/python-tutorial.warc.gz")),
        true,
    )
    .unwrap()
    .out;
    assert!(
        written == library,
        "the command line writes what the library does"
    );
    warcio(&written);

    let listed = crate::cli::relink(&[input, "--list", "--format", "json"], b"");
    let rows: Vec<Value> = String::from_utf8(listed.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let library = links(&read("corpus/warc/python-tutorial.warc.gz"), Rules::Rfc1808);
    assert_eq!(rows.len(), library.len());
    for (row, link) in rows.iter().zip(&library) {
        assert_eq!(row["target_uri"], record_of(link).target_uri.as_str());
        assert_eq!(row["record_id"], record_of(link).record_id.as_str());
        assert_eq!(row["resolved"], link.link.resolved.as_str());
    }

    let explained = crate::cli::relink(&["explain", input], b"");
    let text = String::from_utf8(explained.stdout).unwrap();
    assert!(
        text.contains("WARC-Target-URI of the record: http://127.0.0.1:8768/tutorial/index.html (gives the base)"),
        "{text}"
    );

    // In place: once rewritten, a second run changes nothing.
    let again = crate::cli::relink(&[input, "--in-place"], b"");
    assert!(again.status.success());
    assert_eq!(std::fs::read(input).unwrap(), written);
    let third = crate::cli::relink(&[input, "--in-place"], b"");
    assert!(String::from_utf8_lossy(&third.stderr).contains("0 changed"));
}
