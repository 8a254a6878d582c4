//! relink's WAT output against real WAT records of the same WARCs.
//!
//! `fixtures/corpus/wat` (or the directory `RELINK_REAL_WAT` names) holds
//! WARCs with the WAT records that Common Crawl's extractor (ia-web-commons,
//! the one its WAT files are made with) makes of them, and the WAT Common
//! Crawl published for one of them; its `MANIFEST.tsv` says where each file
//! comes from. `tests/relink/real_wat.py` compares each with what `--list --format wat`
//! writes for the same WARC, record by record: the key paths they have that
//! we lack, the `path url` pairs of the link lists as multisets and in
//! order, the other keys of the links both have, and the scalars both have.
//! relink may add keys and link entries; every other difference must be one
//! of `fixtures/real-wat-differences.tsv`, which says why each is there, and
//! each row there must still be seen, so that a difference that goes away,
//! or a new one, fails the test.

use std::path::Path;
use std::process::Command;

use serde_json::Value;

use crate::cli::{assert_ok, relink};
use crate::table;

/// Each WARC, with the file of their WAT records for it.
const SOURCES: &[(&str, &str)] = &[
    (
        "link-extraction-test.warc",
        "link-extraction-test.wat.jsonl",
    ),
    ("html-lang-attribute.warc", "html-lang-attribute.wat.jsonl"),
    ("meta-itemprop.warc", "meta-itemprop.wat.jsonl"),
    (
        "title-extraction-embedded-SVG.warc",
        "title-extraction-embedded-SVG.wat.jsonl",
    ),
    ("IAH-urls-wget.warc.gz", "IAH-urls-wget.wat.jsonl"),
    ("whirlwind.warc.gz", "whirlwind.wat.jsonl"),
    ("whirlwind.warc.gz", "whirlwind.warc.wat.gz"),
];

/// One difference: the file of their records, the record's target, the
/// kind and the value, as `tests/relink/real_wat.py` reports them.
#[derive(Debug, Clone, PartialEq)]
struct Difference {
    source: String,
    target: String,
    kind: String,
    value: String,
}

/// What the comparison of one WARC found.
#[derive(Clone)]
struct Comparison {
    differences: Vec<Difference>,
    matched: u64,
    shared_links: u64,
}

/// A file of the real WAT data: in `fixtures/corpus/wat`, or in the
/// directory `RELINK_REAL_WAT` names.
fn corpus(name: &str) -> std::path::PathBuf {
    let dir = std::env::var_os("RELINK_REAL_WAT")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/corpus/wat"));
    let path = dir.join(name);
    assert!(
        path.exists(),
        "{} is missing: fixtures/corpus/wat/MANIFEST.tsv says where it comes from",
        path.display()
    );
    path
}

/// Runs relink's `--list --format wat` on `warc` and compares the WAT file
/// with `theirs`, once for all the tests that ask (each comparison runs
/// relink and Python).
fn compare(warc: &str, theirs: &str) -> Comparison {
    use std::collections::HashMap;
    use std::sync::Mutex;
    static DONE: Mutex<Option<HashMap<(String, String), Comparison>>> = Mutex::new(None);
    let key = (warc.to_owned(), theirs.to_owned());
    let held = |done: &Option<HashMap<_, Comparison>>| done.as_ref()?.get(&key).cloned();
    if let Some(found) = held(&DONE.lock().unwrap_or_else(|e| e.into_inner())) {
        return found;
    }
    // Run without the lock: tests asking for other WARCs go on meanwhile.
    let found = run_comparison(warc, theirs);
    let mut done = DONE.lock().unwrap_or_else(|e| e.into_inner());
    done.get_or_insert_default().insert(key, found.clone());
    found
}

/// [`compare`], run.
fn run_comparison(warc: &str, theirs: &str) -> Comparison {
    let source = corpus(warc);
    let wat = relink(
        &["--list", "--format", "wat", "-q", source.to_str().unwrap()],
        b"",
    );
    assert_ok(&wat);
    let dir = tempfile::tempdir().unwrap();
    let ours = dir.path().join("ours.wat.gz");
    std::fs::write(&ours, &wat.stdout).unwrap();
    let python = crate::python();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/relink/real_wat.py");
    let out = Command::new(&python)
        .arg(script)
        .arg(corpus(theirs))
        .arg(&ours)
        .output()
        .unwrap_or_else(|e| panic!("{} is needed to read WAT files ({e})", python.display()));
    match out.status.code() {
        Some(0) => {}
        Some(2) => panic!(
            "warcio is needed to read WAT files: set RELINK_TEST_PYTHON to a Python that has it ({} has not)",
            python.display()
        ),
        _ => panic!(
            "comparing {warc} with {theirs}:\n{}",
            String::from_utf8_lossy(&out.stderr)
        ),
    }
    let report: Value = serde_json::from_slice(&out.stdout).expect("the comparison's json");
    let differences = report["differences"]
        .as_array()
        .expect("differences")
        .iter()
        .map(|row| Difference {
            source: theirs.to_owned(),
            target: row[0].as_str().unwrap().to_owned(),
            kind: row[1].as_str().unwrap().to_owned(),
            value: row[2].as_str().unwrap().to_owned(),
        })
        .collect();
    Comparison {
        differences,
        matched: report["matched"].as_u64().unwrap(),
        shared_links: report["shared_links"].as_u64().unwrap(),
    }
}

/// Whether a row of the table (`source`, `target`, `kind`, `value`) covers
/// a difference: `*` is any source or target; a `key` row covers its key
/// path and the paths under it; a link row whose value has no space covers
/// every URL of that path; other values cover the values they begin.
fn covers(row: &[String], difference: &Difference) -> bool {
    let any = |field: &String, value: &String| field == "*" || field == value;
    if !any(&row[0], &difference.source)
        || !any(&row[1], &difference.target)
        || row[2] != difference.kind
    {
        return false;
    }
    let (pattern, value) = (&row[3], &difference.value);
    match difference.kind.as_str() {
        "key" => {
            value == pattern
                || value.starts_with(&format!("{pattern}."))
                || value.starts_with(&format!("{pattern}["))
        }
        "link-missing" | "link-extra" if !pattern.contains(' ') => {
            value.split(' ').next() == Some(pattern.as_str())
        }
        _ => value.starts_with(pattern.as_str()),
    }
}

#[test]
fn relinks_wat_records_agree_with_real_ones_but_for_the_known_differences() {
    let rows = table("real-wat-differences.tsv", 6);
    let mut differences = Vec::new();
    for (warc, theirs) in SOURCES {
        let comparison = compare(warc, theirs);
        assert!(comparison.matched > 0, "{theirs}: no record matched");
        differences.extend(comparison.differences);
    }
    let unknown: Vec<&Difference> = differences
        .iter()
        .filter(|d| !rows.iter().any(|row| covers(row, d)))
        .collect();
    let unseen: Vec<&Vec<String>> = rows
        .iter()
        .filter(|row| !differences.iter().any(|d| covers(row, d)))
        .collect();
    assert!(
        unknown.is_empty() && unseen.is_empty(),
        "differences not in fixtures/real-wat-differences.tsv:\n{}\nrows of it no longer seen:\n{}",
        unknown
            .iter()
            .map(|d| format!("{}\t{}\t{}\t{}", d.source, d.target, d.kind, d.value))
            .collect::<Vec<_>>()
            .join("\n"),
        unseen
            .iter()
            .map(|row| row[..4].join("\t"))
            .collect::<Vec<_>>()
            .join("\n"),
    );
}

/// The comparison is not empty: on the Wikipedia page that Common Crawl
/// crawled, and on the extractor's link test pages, the links both list
/// are many, so their `path` and `url` values are compared one for one.
#[test]
fn the_real_pages_share_their_links_with_relinks_records() {
    let wikipedia = compare("whirlwind.warc.gz", "whirlwind.wat.jsonl");
    assert!(wikipedia.shared_links >= 200, "{}", wikipedia.shared_links);
    let tests = compare(
        "link-extraction-test.warc",
        "link-extraction-test.wat.jsonl",
    );
    assert!(tests.matched >= 10, "{}", tests.matched);
    assert!(tests.shared_links >= 20, "{}", tests.shared_links);
}

/// The JSON blocks of a WAT file's `metadata` records, with each record's
/// own `WARC-Target-URI`.
fn metadata_blocks(wat: &[u8]) -> Vec<(Option<String>, Value)> {
    use std::io::Read;
    let mut text = String::new();
    flate2::read::MultiGzDecoder::new(wat)
        .read_to_string(&mut text)
        .unwrap();
    let mut out = Vec::new();
    let mut rest = text.as_str();
    while let Some((head, after)) = rest.split_once("\r\n\r\n") {
        let field = |name: &str| {
            head.lines()
                .find_map(|l| l.strip_prefix(name))
                .map(str::to_owned)
        };
        let length: usize = field("Content-Length: ").unwrap().parse().unwrap();
        if field("WARC-Type: ").as_deref() == Some("metadata") {
            let json = serde_json::from_str(&after[..length]).unwrap();
            out.push((field("WARC-Target-URI: "), json));
        }
        rest = &after[length + 4..];
    }
    out
}

/// relink's WAT records of a WARC of the corpus.
fn wat_of(warc: &str) -> Vec<(Option<String>, Value)> {
    let source = corpus(warc);
    let wat = relink(
        &["--list", "--format", "wat", "-q", source.to_str().unwrap()],
        b"",
    );
    assert_ok(&wat);
    metadata_blocks(&wat.stdout)
}

/// A target URI written in angle brackets (WARC/1.0 as wget writes it) is
/// given to WAT readers without them, in the record's head and in its
/// `WARC-Header-Metadata` where cc-pyspark reads it.
#[test]
fn a_target_uri_in_angle_brackets_is_given_without_them() {
    let records = wat_of("link-extraction-test.warc");
    let anchor = "http://example.org/cc/link-extraction-test-anchor-text.html";
    let (target, json) = records
        .iter()
        .find(|(t, _)| t.as_deref() == Some(anchor))
        .expect("the anchor text page's record");
    assert_eq!(target.as_deref(), Some(anchor));
    let header = &json["Envelope"]["WARC-Header-Metadata"];
    assert_eq!(header["WARC-Target-URI"], anchor);
    for (target, json) in &records {
        let header = json["Envelope"]["WARC-Header-Metadata"]["WARC-Target-URI"].as_str();
        assert!(header.is_none_or(|t| !t.starts_with('<')), "{target:?}");
    }
}

/// How many link entries a file of the extractor's WAT record bodies has
/// where Common Crawl's readers take them (`Head.Link`, `Head.Scripts`,
/// `Links`).
fn their_links(jsonl: &str) -> u64 {
    let text = std::fs::read_to_string(corpus(jsonl)).unwrap();
    let mut count = 0;
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let body: Value = serde_json::from_str(line).unwrap();
        let html = &body["Envelope"]["Payload-Metadata"]["HTTP-Response-Metadata"]["HTML-Metadata"];
        for list in [
            &html["Head"]["Link"],
            &html["Head"]["Scripts"],
            &html["Links"],
        ] {
            count += list.as_array().map_or(0, |l| l.len() as u64);
        }
    }
    count
}

/// Every link Common Crawl's extractor lists for a record is in relink's
/// WAT record, with the same `path` and `url`: on its own test pages
/// (`data-href`, `data-uri`, URLs in `onclick`...) and on the Wikipedia
/// page Common Crawl crawled.
#[test]
fn every_link_common_crawls_extractor_lists_is_listed() {
    for (warc, theirs) in [
        (
            "link-extraction-test.warc",
            "link-extraction-test.wat.jsonl",
        ),
        ("whirlwind.warc.gz", "whirlwind.wat.jsonl"),
        ("IAH-urls-wget.warc.gz", "IAH-urls-wget.wat.jsonl"),
    ] {
        let listed = their_links(theirs);
        assert!(listed > 50, "{theirs}: {listed}");
        assert_eq!(compare(warc, theirs).shared_links, listed, "{theirs}");
    }
}

/// What a WAT file lists but relink never rewrites (`data-href`, a URL in
/// `onclick`) is in the WAT record's `Links`, resolved, and in no other
/// output: the page is written unchanged there, and `--list` has no row
/// for it.
#[test]
fn data_href_and_onclick_are_listed_in_wat_only() {
    let page =
        b"<div data-href=a.html onclick=\"location.href='b.html'\"></div><a href=c.html>c</a>";
    let args = ["--retrieved-from", "http://h.example/d/", "-q", "-"];
    let wat = relink(&[&["--list", "--format", "wat"][..], &args].concat(), page);
    assert_ok(&wat);
    let records = metadata_blocks(&wat.stdout);
    let html =
        &records[0].1["Envelope"]["Payload-Metadata"]["HTTP-Response-Metadata"]["HTML-Metadata"];
    let links: Vec<(&str, &str, &str)> = html["Links"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| {
            let field = |k: &str| l[k].as_str().unwrap();
            (field("path"), field("url"), field("abs"))
        })
        .collect();
    assert_eq!(
        links,
        [
            ("A@/href", "c.html", "http://h.example/d/c.html"),
            ("DIV@/data-href", "a.html", "http://h.example/d/a.html"),
            ("DIV@/onclick", "b.html", "http://h.example/d/b.html"),
        ]
    );
    let rewritten = relink(&args, page);
    assert_ok(&rewritten);
    let out = String::from_utf8(rewritten.stdout).unwrap();
    assert!(
        out.starts_with("<div data-href=a.html onclick=\"location.href='b.html'\">"),
        "{out}"
    );
    assert!(out.contains("href=http://h.example/d/c.html"), "{out}");
    let json = relink(&[&["--list", "--format", "json"][..], &args].concat(), page);
    assert_ok(&json);
    let rows = String::from_utf8(json.stdout).unwrap();
    assert_eq!(rows.lines().count(), 1, "{rows}");
}

/// A response record with no `WARC-Target-URI` gets no WAT record, as
/// Common Crawl's extractor writes none, with a warning naming it; the
/// records after it get theirs.
#[test]
fn a_response_with_no_target_uri_gets_no_wat_record_but_a_warning() {
    let page = b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n<a href=b>b</a>";
    let record = |fields: &str| {
        let head = format!(
            "WARC/1.0\r\nWARC-Type: response\r\n{fields}Content-Type: application/http; msgtype=response\r\nContent-Length: {}\r\n\r\n",
            page.len()
        );
        [head.as_bytes(), page, b"\r\n\r\n"].concat()
    };
    let archive = [
        record("WARC-Record-ID: <urn:uuid:1>\r\n"),
        record("WARC-Target-URI: http://a.example/x\r\nWARC-Record-ID: <urn:uuid:2>\r\n"),
    ]
    .concat();
    let wat = relink(&["--list", "--format", "wat", "-"], &archive);
    assert_ok(&wat);
    let records = metadata_blocks(&wat.stdout);
    let targets: Vec<Option<&str>> = records.iter().map(|(t, _)| t.as_deref()).collect();
    assert_eq!(targets, [Some("http://a.example/x")]);
    let stderr = String::from_utf8_lossy(&wat.stderr);
    assert!(
        stderr.contains("warning: standard input: record 1 <urn:uuid:1>: response with no WARC-Target-URI: no WAT record"),
        "{stderr}"
    );
}

/// An attribute a WAT file lists that the user has relink rewrite
/// (`--attr data-href`) is listed once, in `Links` where Common Crawl's
/// readers take it, resolved and rewritten.
#[test]
fn a_listed_attribute_given_with_attr_is_listed_once_in_links() {
    let page = b"<div data-href=a.html></div>";
    let args = [
        "--attr",
        "data-href",
        "--retrieved-from",
        "http://h.example/d/",
        "-q",
        "-",
    ];
    let wat = relink(&[&["--list", "--format", "wat"][..], &args].concat(), page);
    assert_ok(&wat);
    let records = metadata_blocks(&wat.stdout);
    let html =
        &records[0].1["Envelope"]["Payload-Metadata"]["HTTP-Response-Metadata"]["HTML-Metadata"];
    let links = html["Links"].as_array().unwrap();
    assert_eq!(links.len(), 1, "{html}");
    assert_eq!(links[0]["path"], "DIV@/data-href");
    assert_eq!(links[0]["abs"], "http://h.example/d/a.html");
    assert!(html.get("Relink-Links").is_none(), "{html}");
    let rewritten = relink(&args, page);
    assert_ok(&rewritten);
    assert_eq!(
        String::from_utf8(rewritten.stdout).unwrap(),
        "<div data-href=http://h.example/d/a.html></div>"
    );
}

/// An XHTML page read as XML lists what an HTML page lists but relink
/// never rewrites, as Common Crawl's extractor does.
#[test]
fn an_xhtml_page_lists_data_href_and_onclick_too() {
    let page: &[u8] = b"HTTP/1.1 200 OK\r\nContent-Type: application/xhtml+xml\r\n\r\n\
        <html xmlns=\"http://www.w3.org/1999/xhtml\"><body>\
        <div data-href=\"a.html?x=1&amp;y=2\" onclick=\"location.href='b.html'\"/>\
        <a href=\"c.html\">c</a></body></html>";
    let head = format!(
        "WARC/1.0\r\nWARC-Type: response\r\nWARC-Target-URI: http://h.example/d/\r\n\
         WARC-Record-ID: <urn:uuid:1>\r\nContent-Type: application/http; msgtype=response\r\n\
         Content-Length: {}\r\n\r\n",
        page.len()
    );
    let archive = [head.as_bytes(), page, b"\r\n\r\n"].concat();
    let wat = relink(&["--list", "--format", "wat", "-q", "-"], &archive);
    assert_ok(&wat);
    let records = metadata_blocks(&wat.stdout);
    let html =
        &records[0].1["Envelope"]["Payload-Metadata"]["HTTP-Response-Metadata"]["HTML-Metadata"];
    let links: Vec<(&str, &str, &str)> = html["Links"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| {
            let field = |k: &str| l[k].as_str().unwrap();
            (field("path"), field("url"), field("abs"))
        })
        .collect();
    assert_eq!(
        links,
        [
            ("A@/href", "c.html", "http://h.example/d/c.html"),
            (
                "DIV@/data-href",
                "a.html?x=1&y=2",
                "http://h.example/d/a.html?x=1&y=2"
            ),
            ("DIV@/onclick", "b.html", "http://h.example/d/b.html"),
        ]
    );
}
