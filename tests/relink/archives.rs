//! Web archives as they are found: the sample archives a replay tool ships
//! (fixtures/archives/pywb), read as warcio reads them, and hand-made
//! hostile ones. warcio is the yardstick: every record it indexes, relink
//! lists; every output relink writes passes `warcio check` and `warcio
//! index` with the same records, whenever the input did.

use std::io::Write;
use std::path::Path;
use std::process::Command;

use relink::{Input, Kind, Rewriter};
use serde_json::Value;

use crate::warc::{Archive, run_archive, run_limited};
use crate::{fixture, python};

/// What warcio makes of a file: `warcio index` rows (type and target URI),
/// whether the index ran to the end, and whether `warcio check` passed.
struct Warcio {
    records: Vec<(String, String)>,
    indexed: bool,
    checked: bool,
}

fn warcio(path: &Path) -> Warcio {
    let run = |args: &[&str]| {
        Command::new(python())
            .args([
                "-c",
                "import sys; from warcio.cli import main; main(sys.argv[1:])",
            ])
            .args(args)
            .arg(path)
            .output()
            .unwrap_or_else(|e| panic!("python3 with warcio is needed ({e})"))
    };
    let index = run(&["index", "-f", "warc-type,warc-target-uri"]);
    let stderr = String::from_utf8_lossy(&index.stderr);
    assert!(
        !stderr.contains("No module named"),
        "warcio is needed: {stderr}"
    );
    let records = String::from_utf8_lossy(&index.stdout)
        .lines()
        .map(|line| {
            let row: Value = serde_json::from_str(line).unwrap();
            let get = |k: &str| row[k].as_str().unwrap_or_default().to_owned();
            (get("warc-type"), get("warc-target-uri"))
        })
        .collect();
    let checked = run(&["check"]).status.success();
    Warcio {
        records,
        indexed: index.status.success(),
        checked,
    }
}

/// The records relink reads (type and target URI), and its warnings.
fn relink_records(bytes: &[u8]) -> (Vec<(String, String)>, Vec<String>) {
    let run = archive(bytes, false);
    let records = run
        .records
        .iter()
        .map(|r| (r.name.record_type.clone(), r.name.target_uri.clone()))
        .collect();
    let warnings = run.warnings().iter().map(ToString::to_string).collect();
    (records, warnings)
}

/// A run over the web archive `bytes` through the front door, written
/// when `write`.
fn archive(bytes: &[u8], write: bool) -> Archive {
    let input = Input::bytes(bytes).kind(Kind::Warc);
    run_archive(&Rewriter::new(), input, write).unwrap()
}

fn samples() -> Vec<std::path::PathBuf> {
    let mut paths: Vec<_> = std::fs::read_dir(fixture("archives/pywb"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            let name = p.file_name().unwrap().to_string_lossy();
            name.contains(".warc") || name.contains(".arc")
        })
        .collect();
    paths.sort();
    assert!(paths.len() >= 15, "{paths:?}");
    paths
}

/// Whether warcio's records are relink's, in order (warcio gives an ARC
/// file's version block no type; a WARC's warcinfo no target URI).
fn same_records(warcio: &[(String, String)], relink: &[(String, String)]) -> bool {
    warcio.len() == relink.len()
        && warcio.iter().zip(relink).all(|((wt, wu), (rt, ru))| {
            (wt == rt || wt.is_empty() || (wt == "warcinfo" && rt == "warcinfo"))
                && (wu == ru || (wu.is_empty() && rt == "warcinfo"))
        })
}

#[test]
fn every_record_warcio_indexes_relink_lists() {
    for path in samples() {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let expected = warcio(&path);
        let (records, _) = relink_records(&std::fs::read(&path).unwrap());
        if expected.indexed {
            assert!(
                same_records(&expected.records, &records),
                "{name}: warcio {:?}\nrelink {records:?}",
                expected.records
            );
        } else {
            // warcio stops early (a gzip stream over several records):
            // relink reads at least as far.
            assert!(
                records.len() > expected.records.len(),
                "{name}: {records:?}"
            );
        }
    }
}

#[test]
fn every_rewritten_sample_passes_warcio_as_its_input_did() {
    let dir = tempfile::tempdir().unwrap();
    for path in samples() {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let out = dir.path().join(format!("out-{name}"));
        let run = crate::cli::relink(
            &[
                path.to_str().unwrap(),
                "--rules",
                "rfc3986",
                "-o",
                out.to_str().unwrap(),
            ],
            b"",
        );
        assert!(
            run.status.success(),
            "{name}: {}",
            String::from_utf8_lossy(&run.stderr)
        );
        let before = warcio(&path);
        let after = warcio(&out);
        assert_eq!(after.indexed, before.indexed, "{name}");
        assert_eq!(after.records, before.records, "{name}");
        assert!(
            after.checked || !before.checked,
            "{name}: warcio check fails"
        );
        let input = std::fs::read(&path).unwrap();
        let output = std::fs::read(&out).unwrap();
        let (records_in, _) = relink_records(&input);
        let (records_out, _) = relink_records(&output);
        assert_eq!(records_in, records_out, "{name}");
    }
}

#[test]
fn the_samples_give_links_and_some_change() {
    // The ARC, plain WARC and gzipped WARC samples each hold a page whose
    // links relink lists with their record's URL as the base.
    for name in [
        "example.arc",
        "example.arc.gz",
        "example.warc.gz",
        "example-wpull.warc.gz",
    ] {
        let bytes = std::fs::read(fixture(&format!("archives/pywb/{name}"))).unwrap();
        let links = archive(&bytes, false).links();
        assert!(!links.is_empty(), "{name}");
        assert!(
            links.iter().all(|l| l.link.resolved.starts_with("http")),
            "{name}: {links:?}"
        );
    }
}

#[test]
fn a_record_whose_length_is_short_does_not_stop_the_file() {
    // pywb's own example.warc: record 5's Content-Length is a byte short.
    let path = fixture("archives/pywb/example.warc");
    let bytes = std::fs::read(&path).unwrap();
    let (records, warnings) = relink_records(&bytes);
    assert_eq!(records.len(), 6);
    assert_eq!(records[5].1, "http://www.iana.org/domains/example");
    assert!(
        warnings
            .iter()
            .any(|w| w.starts_with("record 5") && w.contains("offset 4061")),
        "{warnings:?}"
    );
    // Rewritten, the bad record and the byte after it are as they were.
    let out = archive(&bytes, true).out;
    let bad = &bytes[4061..4771];
    assert!(memchr::memmem::find(&out, bad).is_some());
}

/// WARC records, hand-made.
fn record(version: &str, uri: &str, body: &str) -> String {
    let http = format!("HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n{body}");
    format!(
        "{version}\r\nWARC-Type: response\r\nWARC-Target-URI: {uri}\r\n\
         Content-Type: application/http; msgtype=response\r\nContent-Length: {}\r\n\r\n{http}\r\n\r\n",
        http.len()
    )
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut w = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    w.write_all(bytes).unwrap();
    w.finish().unwrap()
}

/// Runs the command line on `bytes` saved as `name`, with `args`; the
/// output file's bytes.
fn cli_rewrite(name: &str, bytes: &[u8], args: &[&str]) -> (Vec<u8>, String) {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join(name);
    std::fs::write(&input, bytes).unwrap();
    let out = dir.path().join(format!("out-{name}"));
    let mut all = vec![input.to_str().unwrap(), "-o", out.to_str().unwrap()];
    all.extend_from_slice(args);
    let run = crate::cli::relink(&all, b"");
    let stderr = String::from_utf8_lossy(&run.stderr).into_owned();
    assert!(run.status.success(), "{name}: {stderr}");
    (std::fs::read(&out).unwrap(), stderr)
}

#[test]
fn an_archive_of_any_version_is_never_rewritten_as_html() {
    for (name, file) in [
        (
            "old.warc",
            record("WARC/0.17", "http://a.example/d/", "<a href=x>x</a>"),
        ),
        (
            "old18.html",
            record("WARC/0.18", "http://a.example/d/", "<a href=x>x</a>"),
        ),
        (
            "lead.html",
            format!(
                "\r\n{}",
                record("WARC/1.0", "http://a.example/d/", "<a href=x>x</a>")
            ),
        ),
    ] {
        let (out, _) = cli_rewrite(
            name,
            file.as_bytes(),
            &["--retrieved-from", "http://wrong/"],
        );
        let out = String::from_utf8(out).unwrap();
        // Read as an archive: the record's own URI is the base, and its
        // Content-Length follows the new payload.
        assert!(
            out.contains("<a href=http://a.example/d/x>"),
            "{name}: {out}"
        );
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out.warc");
        std::fs::write(&path, &out).unwrap();
        let checked = warcio(&path);
        assert!(checked.indexed && checked.records.len() == 1, "{name}");
    }
    // An ARC file, whatever its name.
    let arc = std::fs::read(fixture("archives/pywb/example.arc")).unwrap();
    let (out, _) = cli_rewrite("page.html", &arc, &[]);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("out.arc");
    std::fs::write(&path, &out).unwrap();
    let checked = warcio(&path);
    assert_eq!(checked.records.len(), 2);
    assert!(checked.checked);
}

#[test]
fn an_archive_after_junk_is_never_rewritten_as_html() {
    let records = [
        record("WARC/1.0", "http://a.example/d/", "<a href=x>x</a>"),
        record("WARC/1.0", "http://b.example/d/", "<a href=x>x</a>"),
    ]
    .concat();
    let junk_lines: String = (0..2000).map(|i| format!("junk line {i}\n")).collect();
    let cases: [(&str, Vec<u8>); 6] = [
        (
            "crawl.dat",
            [&b"a stray first line\n"[..], records.as_bytes()].concat(),
        ),
        (
            "crawl.warc.open",
            [&b"\xef\xbb\xbf"[..], records.as_bytes()].concat(),
        ),
        ("crawl.warc.gz.open", gzip(records.as_bytes())),
        (
            "crawl.dat.gz",
            gzip(&[&b"\0\0\0\0"[..], records.as_bytes()].concat()),
        ),
        (
            "crawl",
            [junk_lines.as_bytes(), records.as_bytes()].concat(),
        ),
        (
            "bom.html",
            [&b"\xef\xbb\xbf\0"[..], records.as_bytes()].concat(),
        ),
    ];
    let dir = tempfile::tempdir().unwrap();
    for (name, file) in &cases {
        let (out, _) = cli_rewrite(name, file, &["--retrieved-from", "http://wrong/"]);
        let plain = if name.ends_with(".gz") || name.ends_with(".gz.open") {
            let mut plain = Vec::new();
            std::io::Read::read_to_end(
                &mut flate2::read::MultiGzDecoder::new(&out[..]),
                &mut plain,
            )
            .unwrap();
            plain
        } else {
            out.clone()
        };
        let plain = String::from_utf8_lossy(&plain);
        // Read as an archive: the second record's own URI is its base; no
        // link was resolved against the base given for documents.
        assert!(
            plain.contains("<a href=http://b.example/d/x>"),
            "{name}: {plain}"
        );
        assert!(!plain.contains("http://wrong/"), "{name}: {plain}");
        // warcio reads the same records in the output as in the input.
        let (input, output) = (dir.path().join("in"), dir.path().join("out"));
        std::fs::write(&input, file).unwrap();
        std::fs::write(&output, &out).unwrap();
        assert_eq!(warcio(&input).records, warcio(&output).records, "{name}");
    }
    // In memory, with no kind given, the same.
    let file = &cases[4].1;
    let out = relink::Rewriter::new()
        .retrieved_from("http://wrong/")
        .rewrite(file)
        .unwrap();
    let resolved: Vec<&str> = out.links().iter().map(|l| l.resolved.as_str()).collect();
    assert_eq!(resolved, ["http://a.example/d/x", "http://b.example/d/x"]);
    // A document that names WARC, or quotes a record deep inside, under a
    // document's name, is still a document.
    let page = format!("<!doctype html>\n<p>notes</p>\n<pre>\n{records}</pre>\n<a href=x>x</a>\n");
    let (out, _) = cli_rewrite(
        "notes.html",
        page.as_bytes(),
        &["--retrieved-from", "http://h/"],
    );
    assert!(String::from_utf8_lossy(&out).contains("<a href=http://h/x>"));
}

#[test]
fn an_archive_on_standard_input_is_read_as_an_archive() {
    let file = gzip(record("WARC/1.0", "http://a.example/d/", "<a href=x>x</a>").as_bytes());
    let run = crate::cli::relink(&["--list", "--format", "json"], &file);
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    assert!(stdout.contains("http://a.example/d/x"), "{stdout}");
}

#[test]
fn a_member_of_several_records_stays_one_member_and_others_are_copied() {
    let two = gzip(
        [
            record("WARC/1.0", "http://a.example/1/", "<a href=x>x</a>"),
            record("WARC/1.0", "http://a.example/2/", "<p>no links</p>"),
        ]
        .concat()
        .as_bytes(),
    );
    let empty = gzip(b"");
    let crlf = gzip(b"\r\n");
    let same = gzip(record("WARC/1.0", "http://a.example/3/", "<p>none</p>").as_bytes());
    let file = [two, empty.clone(), crlf.clone(), same.clone()].concat();
    let (out, summary) = archive(&file, true).summary();
    assert_eq!((summary.records, summary.changed), (3, 1));
    // The unchanged members come back byte for byte, after the first.
    assert!(out.ends_with(&[empty, crlf, same].concat()));
    // The first is one member again: one gzip header before them.
    let first_len = out.len() - 3;
    let starts = out[..first_len]
        .windows(3)
        .filter(|w| w == &[0x1f, 0x8b, 0x08])
        .count();
    assert!(starts >= 1);
    let mut plain = Vec::new();
    use std::io::Read;
    flate2::read::MultiGzDecoder::new(&out[..])
        .read_to_end(&mut plain)
        .unwrap();
    assert!(memchr::memmem::find(&plain, b"http://a.example/1/x").is_some());
}

#[test]
fn stray_bytes_between_records_are_copied_and_warned() {
    let file = [
        record("WARC/1.0", "http://a.example/1/", "<a href=x>x</a>"),
        "GARBAGE LINE\r\n".to_owned(),
        record("WARC/1.0", "http://a.example/2/", "<a href=y>y</a>"),
    ]
    .concat();
    let (out, summary) = archive(file.as_bytes(), true).summary();
    assert_eq!((summary.records, summary.changed), (2, 2));
    let out = String::from_utf8(out).unwrap();
    assert!(out.contains("\r\n\r\nGARBAGE LINE\r\nWARC/1.0"));
    assert!(out.contains("http://a.example/2/y"));
    let warning = summary.warnings[0].to_string();
    assert!(warning.contains("14 bytes at offset"), "{warning}");
}

#[test]
fn a_gzipped_document_comes_back_gzipped_with_its_header() {
    use std::io::Read;
    let mut encoder = flate2::GzBuilder::new()
        .filename("page.html")
        .mtime(1_600_000_000)
        .write(Vec::new(), flate2::Compression::best());
    encoder.write_all(b"<a href=x>x</a>").unwrap();
    let file = encoder.finish().unwrap();
    let rewriter = relink::Rewriter::new().retrieved_from("http://a.example/d/");
    let out = rewriter.rewrite(&file).unwrap();
    assert!(out.changed());
    let mut decoder = flate2::read::GzDecoder::new(out.bytes());
    let mut text = String::new();
    decoder.read_to_string(&mut text).unwrap();
    assert_eq!(text, "<a href=http://a.example/d/x>x</a>");
    let header = decoder.header().unwrap();
    assert_eq!(header.filename(), Some(&b"page.html"[..]));
    assert_eq!(header.mtime(), 1_600_000_000);
    // Unchanged, the file is the input itself.
    let same = relink::Rewriter::new().rewrite(&file).unwrap();
    assert!(!same.changed());
    assert_eq!(same.bytes(), &file[..]);
}

/// A gzip member written by hand (RFC 1952): `header`, `data` deflated,
/// the CRC-32 and length.
fn gzip_member(header: &[u8], data: &[u8]) -> Vec<u8> {
    let mut deflate =
        flate2::write::DeflateEncoder::new(header.to_vec(), flate2::Compression::fast());
    deflate.write_all(data).unwrap();
    let mut out = deflate.finish().unwrap();
    let mut crc = flate2::Crc::new();
    crc.update(data);
    out.extend_from_slice(&crc.sum().to_le_bytes());
    out.extend_from_slice(&crc.amount().to_le_bytes());
    out
}

/// Two gzip headers few writers make: FEXTRA, FNAME, FCOMMENT, a time,
/// XFL 4 (fastest), OS 3 (Unix); FHCRC (its CRC-16 as the header's own),
/// XFL 2 (best), OS 11 (NTFS).
fn unusual_headers() -> [Vec<u8>; 2] {
    let mut first = vec![0x1f, 0x8b, 8, 4 | 8 | 16, 0x00, 0xe1, 0xf5, 0x05, 4, 3];
    first.extend_from_slice(b"\x04\x00Ab\x00\x00page.html\0kept\0");
    let mut second = vec![0x1f, 0x8b, 8, 2, 1, 2, 3, 4, 2, 11];
    let mut crc = flate2::Crc::new();
    crc.update(&second);
    second.extend_from_slice(&(crc.sum() as u16).to_le_bytes());
    [first, second]
}

#[test]
fn a_gzipped_document_keeps_each_header_byte_for_byte() {
    use std::io::Read;
    let [first, second] = unusual_headers();
    let a = gzip_member(&first, b"<p>intro</p>\n");
    let b = gzip_member(&second, b"<a href=x>x</a>\n");
    let c = gzip_member(&first, b"<p>end</p>\n");
    let file = [a.clone(), b, c.clone()].concat();
    let (out, _) = cli_rewrite(
        "page.html.gz",
        &file,
        &["--retrieved-from", "http://a.example/d/"],
    );
    // The members around the change as they were; the changed one with
    // its own header.
    assert!(out.starts_with(&a));
    assert!(out.ends_with(&c));
    assert!(out[a.len()..].starts_with(&second));
    let mut text = String::new();
    flate2::read::MultiGzDecoder::new(&out[..])
        .read_to_string(&mut text)
        .unwrap();
    assert_eq!(
        text,
        "<p>intro</p>\n<a href=http://a.example/d/x>x</a>\n<p>end</p>\n"
    );
    // One member: its header, XFL and all, is the file's.
    let one = gzip_member(&first, b"<a href=x>x</a>");
    let (out, _) = cli_rewrite(
        "page.html.gz",
        &one,
        &["--retrieved-from", "http://a.example/d/"],
    );
    assert!(out.starts_with(&first));
    assert_ne!(out, one);
}

/// Each gzip member of `file`: where it starts, and what it holds.
fn gzip_members(file: &[u8]) -> Vec<(usize, Vec<u8>)> {
    use std::io::Read;
    let mut members = Vec::new();
    let mut rest = file;
    while !rest.is_empty() {
        let start = file.len() - rest.len();
        let mut decoder = flate2::bufread::GzDecoder::new(rest);
        let mut data = Vec::new();
        decoder.read_to_end(&mut data).unwrap();
        rest = decoder.into_inner();
        members.push((start, data));
    }
    members
}

/// A gzipped document of several members keeps them all, each with its
/// header: a member whose text changed is compressed again under its own
/// header, the others copied as they were. A URL whose change spans a
/// member boundary is written whole into the member where it starts; the
/// next member loses what it held of the old URL.
#[test]
fn a_multi_member_gzipped_document_keeps_each_member_and_its_header() {
    // FNAME alone, no time, OS 255.
    let [first, second] = unusual_headers();
    let mut third = vec![0x1f, 0x8b, 8, 8, 0, 0, 0, 0, 0, 255];
    third.extend_from_slice(b"part3\0");
    let headers = [first, second, third];
    let html = [
        "<p><a href=x>x</a></p>\n",
        "<p>unchanged</p>\n",
        "<img src=y.png>\n",
    ];
    let css = [
        "a { background: url(.",
        "./x.png) }\nb { color: red }\n",
        "i { color: blue }\n",
    ];
    let base = "http://a.example/d/e/";
    for (name, kind, parts, kept) in [
        ("page.html.gz", relink::Kind::Html, html, 1),
        ("style.css.gz", relink::Kind::Css, css, 2),
    ] {
        let members: Vec<Vec<u8>> = headers
            .iter()
            .zip(parts)
            .map(|(header, part)| gzip_member(header, part.as_bytes()))
            .collect();
        let file = members.concat();
        let (out, _) = cli_rewrite(name, &file, &["--retrieved-from", base]);
        let got = gzip_members(&out);
        assert_eq!(got.len(), 3, "{name}: members");
        for ((start, _), header) in got.iter().zip(&headers) {
            assert!(
                out[*start..].starts_with(header),
                "{name}: header at {start}"
            );
        }
        let ends: Vec<usize> = got.iter().skip(1).map(|m| m.0).chain([out.len()]).collect();
        assert_eq!(out[got[kept].0..ends[kept]], members[kept], "{name}: kept");
        let document = parts.concat();
        let want = relink::Rewriter::new()
            .retrieved_from(base)
            .kind(kind)
            .rewrite(document.as_bytes())
            .unwrap();
        let whole: Vec<u8> = got.iter().flat_map(|(_, data)| data.clone()).collect();
        assert_eq!(
            String::from_utf8_lossy(&whole),
            String::from_utf8_lossy(want.bytes()),
            "{name}"
        );
    }
    // The boundary inside `../x.png`: the new URL in the first member.
    let (out, _) = cli_rewrite(
        "style.css.gz",
        &headers
            .iter()
            .zip(css)
            .map(|(h, p)| gzip_member(h, p.as_bytes()))
            .collect::<Vec<_>>()
            .concat(),
        &["--retrieved-from", base],
    );
    let got = gzip_members(&out);
    assert_eq!(got[0].1, b"a { background: url(http://a.example/d");
    assert!(got[1].1.starts_with(b"/x.png) }"), "{:?}", got[1].1);
}

#[test]
fn an_archive_is_never_a_document_even_when_told() {
    let file = record("WARC/0.18", "http://a.example/", "<a href=x>x</a>");
    for kind in [relink::Kind::Html, relink::Kind::Css, relink::Kind::Message] {
        let err = relink::Rewriter::new()
            .retrieved_from("http://b.example/")
            .kind(kind)
            .rewrite(file.as_bytes())
            .unwrap_err();
        assert!(matches!(err, relink::Error::ArchiveAsDocument), "{err}");
    }
    // Without a kind, an archive is read as one, in memory.
    let arc = std::fs::read(fixture("archives/pywb/example.arc.gz")).unwrap();
    let out = relink::Rewriter::new().rewrite(&arc).unwrap();
    assert!(!out.links().is_empty());
    assert!(out.links()[0].resolved.starts_with("http://"));
    // A compression relink does not read: left as it is, with a warning
    // naming it, as the command line does.
    let zstd = [0x28, 0xb5, 0x2f, 0xfd, 0, 0, 0];
    let out = relink::Rewriter::new().rewrite(&zstd).unwrap();
    assert!(!out.changed());
    assert!(
        out.warnings()[0].to_string().contains("zstd"),
        "{:?}",
        out.warnings()
    );
}

#[test]
fn the_command_line_reads_gzipped_documents_and_reports_other_compressions() {
    use std::io::Read;
    let page = {
        let mut encoder = flate2::GzBuilder::new()
            .filename("page.html")
            .write(Vec::new(), flate2::Compression::default());
        encoder.write_all(b"<a href=x>x</a>").unwrap();
        encoder.finish().unwrap()
    };
    let (out, _) = cli_rewrite(
        "page.html.gz",
        &page,
        &["--retrieved-from", "http://a.example/d/"],
    );
    let mut decoder = flate2::read::GzDecoder::new(&out[..]);
    let mut text = String::new();
    decoder.read_to_string(&mut text).unwrap();
    assert_eq!(text, "<a href=http://a.example/d/x>x</a>");
    assert_eq!(
        decoder.header().unwrap().filename(),
        Some(&b"page.html"[..])
    );
    // A gzipped mbox is streamed through and comes back gzipped.
    let mbox = std::fs::read(fixture("mail/archive.mboxrd")).unwrap();
    let (plain, _) = cli_rewrite("a.mbox", &mbox, &["--retrieved-from", "http://a.example/"]);
    let (zipped, _) = cli_rewrite(
        "a.mbox.gz",
        &gzip(&mbox),
        &["--retrieved-from", "http://a.example/"],
    );
    let mut unzipped = Vec::new();
    flate2::read::MultiGzDecoder::new(&zipped[..])
        .read_to_end(&mut unzipped)
        .unwrap();
    assert_ne!(plain, mbox);
    assert_eq!(unzipped, plain);
    // Its header as the file's (the extra flags byte included).
    assert_eq!(zipped[..10], gzip(&mbox)[..10]);
    // xz is not read: the file is left as it is, with a warning naming it.
    let xz = b"\xfd7zXZ\0\0\0rest".to_vec();
    let (out, stderr) = cli_rewrite("page.html.xz", &xz, &[]);
    assert_eq!(out, xz);
    assert!(
        stderr.contains("page.html.xz: compressed with xz"),
        "{stderr}"
    );
}

#[test]
fn an_archive_given_another_type_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("crawl.warc");
    let file = record("WARC/1.0", "http://a.example/d/", "<a href=x>x</a>");
    std::fs::write(&input, &file).unwrap();
    let run = crate::cli::relink(&[input.to_str().unwrap(), "--type", "html", "-i"], b"");
    assert!(!run.status.success());
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(
        stderr.contains("crawl.warc") && stderr.contains("web archive"),
        "{stderr}"
    );
    assert_eq!(std::fs::read(&input).unwrap(), file.as_bytes());
}

#[test]
fn the_command_line_lists_and_rewrites_a_wacz() {
    let package = std::fs::read(fixture("archives/wacz/example.wacz")).unwrap();
    let run = crate::cli::relink(&["--list", "--format", "json", "-"], &package);
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let rows = String::from_utf8_lossy(&run.stdout);
    assert!(
        rows.contains("http://www.iana.org/domains/reserved"),
        "{rows}"
    );
    let typed = crate::cli::relink(
        &["--list", "--format", "json", "--type", "wacz", "-"],
        &package,
    );
    assert_eq!(typed.stdout, run.stdout);
    let (out, _) = cli_rewrite("example.wacz", &package, &["--rules", "rfc3986"]);
    assert_ne!(out, package);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("out.wacz");
    std::fs::write(&path, &out).unwrap();
    let check = Command::new(python())
        .args([
            "-c",
            "import sys; from wacz.main import main; sys.exit(main(sys.argv[1:]))",
        ])
        .args(["validate", "-f"])
        .arg(&path)
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&check.stdout).into_owned()
        + &String::from_utf8_lossy(&check.stderr);
    if said.contains("No module named") {
        eprintln!("SKIPPED: the wacz validator is not installed");
        return;
    }
    assert!(check.status.success(), "{said}");
}

#[test]
fn the_command_line_warns_of_stray_bytes_naming_their_offset() {
    let file = [
        record("WARC/1.0", "http://a.example/1/", "<a href=x>x</a>"),
        "GARBAGE LINE\r\n".to_owned(),
        record("WARC/1.0", "http://a.example/2/", "<a href=y>y</a>"),
    ]
    .concat();
    let (out, stderr) = cli_rewrite("crawl.warc", file.as_bytes(), &[]);
    assert!(
        stderr.contains("crawl.warc: 14 bytes at offset"),
        "{stderr}"
    );
    let out = String::from_utf8(out).unwrap();
    assert!(out.contains("GARBAGE LINE\r\n") && out.contains("http://a.example/2/y"));
}

#[test]
fn a_member_holding_a_record_too_large_is_copied_byte_for_byte() {
    let big = "x".repeat(5000);
    let member = gzip(
        [
            record("WARC/1.0", "http://a.example/big/", &big),
            record("WARC/1.0", "http://a.example/after/", "<a href=x>x</a>"),
        ]
        .concat()
        .as_bytes(),
    );
    let last = gzip(record("WARC/1.0", "http://a.example/last/", "<a href=y>y</a>").as_bytes());
    let file = [member.clone(), last].concat();
    // unit: the payload limit is set only on the archive reader's options.
    let (out, summary, reports) = run_limited(&file, 1000, true).unwrap();
    assert_eq!(summary.records, 3);
    // The member is as it was; the record after the large one is listed
    // but, sharing that member, not rewritten (with a warning).
    assert!(out.starts_with(&member), "member changed");
    assert_eq!(reports[1].links.len(), 1);
    assert!(!reports[1].changed);
    assert!(
        reports[1]
            .warnings
            .iter()
            .any(|w| w.to_string().contains("too large")),
        "{:?}",
        reports[1].warnings
    );
    // The next member is rewritten as ever.
    assert!(reports[2].changed);
    use std::io::Read;
    let mut plain = Vec::new();
    flate2::read::MultiGzDecoder::new(&out[member.len()..])
        .read_to_end(&mut plain)
        .unwrap();
    assert!(memchr::memmem::find(&plain, b"http://a.example/last/y").is_some());
}
