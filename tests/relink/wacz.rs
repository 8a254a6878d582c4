//! WACZ packages: the records of their WARCs read as any WARC's, and a
//! rewritten package checked by the tools that wrote it (py-wacz's
//! validator, warcio reading the records its new indexes point at).

use std::io::{Cursor, Read, Write};
use std::process::Command;

use relink::{Input, Kind, Rewriter, Warning};
use serde_json::Value;
use zip::write::SimpleFileOptions;
use zip::{CompressionMethod, ZipArchive, ZipWriter};

use crate::fixture;
use crate::warc::{Archive, RecordLink, kind_of, run_archive};

const FIXTURES: [&str; 3] = ["example.wacz", "example-plain.wacz", "site.wacz"];

fn read(name: &str) -> Vec<u8> {
    let path = fixture(&format!("archives/wacz/{name}"));
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// What a run over a package reported, in a summary's shape.
#[derive(Debug)]
struct Package {
    /// The WARC entries, in entry order, as the run's documents name them.
    archives: Vec<String>,
    /// The entries written anew: those the output stores otherwise than
    /// the input, in entry order.
    rewritten: Vec<String>,
    warnings: Vec<Warning>,
    changed: usize,
    /// Whether the run said the output changed.
    run_changed: bool,
}

impl Package {
    fn changed(&self) -> usize {
        self.changed
    }

    /// Whether the output holds the same entries as the input.
    fn unchanged(&self) -> bool {
        assert_eq!(self.run_changed, !self.rewritten.is_empty());
        self.rewritten.is_empty()
    }
}

/// A run over the package `input` through the front door, told a WACZ (its
/// layers' labels name each record's entry).
fn run(rewriter: &Rewriter, input: &[u8], write: bool) -> Result<Archive, relink::Error> {
    let input = Input::bytes(input).kind(Kind::Wacz);
    run_archive(rewriter, input, write)
}

/// The entry a label of the run's layers names, with the record's number
/// and target URI (`ENTRY record N URI (TYPE)`).
fn entry_of_label(label: &str) -> (String, usize, String) {
    let (entry, rest) = label.split_once(" record ").unwrap();
    let (number, rest) = rest.split_once(' ').unwrap();
    let uri = rest.split(" (").next().unwrap();
    (entry.to_owned(), number.parse().unwrap(), uri.to_owned())
}

/// The WARC entries the run's documents name, in the order first named.
fn archives(run: &Archive) -> Vec<String> {
    let mut found: Vec<String> = Vec::new();
    for (label, _) in &run.layers {
        let (entry, _, _) = entry_of_label(label);
        if !found.contains(&entry) {
            found.push(entry);
        }
    }
    found
}

/// The names of the entries `out` stores otherwise than `input` (or adds).
fn written_anew(input: &[u8], out: &[u8]) -> Vec<String> {
    let old = entries(input);
    entries(out)
        .into_iter()
        .filter(|(name, method, bytes)| {
            !old.iter()
                .any(|(n, m, b)| n == name && m == method && b == bytes)
        })
        .map(|(name, _, _)| name)
        .collect()
}

fn rewrite_by(rewriter: &Rewriter, input: &[u8]) -> (Vec<u8>, Package) {
    let run = run(rewriter, input, true).unwrap();
    let package = Package {
        archives: archives(&run),
        rewritten: written_anew(input, &run.out),
        changed: run.changed(),
        run_changed: run.report.changed,
        warnings: run.report.warnings,
    };
    (run.out, package)
}

fn rewrite(input: &[u8]) -> (Vec<u8>, Package) {
    rewrite_by(&Rewriter::new(), input)
}

/// The links of a package, each with the entry its record is in.
fn links(input: &[u8]) -> Vec<(String, RecordLink)> {
    let run = run(&Rewriter::new(), input, false).unwrap();
    let entries: Vec<(String, usize, String)> = run
        .layers
        .iter()
        .map(|(label, _)| entry_of_label(label))
        .collect();
    run.links()
        .into_iter()
        .map(|link| {
            let (entry, _, _) = entries
                .iter()
                .find(|(_, n, uri)| *n == link.record && *uri == link.target_uri)
                .unwrap_or_else(|| panic!("no document of record {}", link.record));
            (entry.clone(), link)
        })
        .collect()
}

/// Every entry of a zip: name, compression, and bytes as stored.
fn entries(zip: &[u8]) -> Vec<(String, CompressionMethod, Vec<u8>)> {
    let mut archive = ZipArchive::new(Cursor::new(zip)).unwrap();
    (0..archive.len())
        .map(|i| {
            let mut entry = archive.by_index_raw(i).unwrap();
            let mut raw = Vec::new();
            entry.read_to_end(&mut raw).unwrap();
            (entry.name().unwrap().into_owned(), entry.compression(), raw)
        })
        .collect()
}

/// The error a rewrite of `input` is refused with, and what was written.
fn refused(input: &[u8]) -> (relink::Error, Vec<u8>) {
    let mut out = Vec::new();
    let err = Rewriter::new()
        .run(
            Input::bytes(input).kind(Kind::Wacz),
            relink::Output::Always(&mut out),
            &mut |_| Ok(()),
        )
        .unwrap_err();
    (err, out)
}

fn entry(zip: &[u8], name: &str) -> Vec<u8> {
    let mut archive = ZipArchive::new(Cursor::new(zip)).unwrap();
    let mut out = Vec::new();
    archive
        .by_name(name)
        .unwrap_or_else(|e| panic!("{name}: {e}"))
        .read_to_end(&mut out)
        .unwrap();
    out
}

/// A copy of a zip with some entries replaced (`Some`) or dropped (`None`),
/// new ones added at the end; the rest copied as stored.
fn edit_zip(zip: &[u8], changes: &[(&str, Option<Vec<u8>>)]) -> Vec<u8> {
    let mut archive = ZipArchive::new(Cursor::new(zip)).unwrap();
    let mut writer = ZipWriter::new(Cursor::new(Vec::new()));
    let stored = SimpleFileOptions::default().compression_method(CompressionMethod::Stored);
    let mut done = Vec::new();
    for i in 0..archive.len() {
        let file = archive.by_index_raw(i).unwrap();
        let name = file.name().unwrap().into_owned();
        match changes.iter().find(|(n, _)| *n == name) {
            None => writer.raw_copy_file(file).unwrap(),
            Some((_, None)) => {}
            Some((_, Some(bytes))) => {
                drop(file);
                writer.start_file(name.as_str(), stored).unwrap();
                writer.write_all(bytes).unwrap();
            }
        }
        done.push(name);
    }
    for (name, bytes) in changes {
        if let (false, Some(bytes)) = (done.iter().any(|d| d == name), bytes) {
            writer.start_file(*name, stored).unwrap();
            writer.write_all(bytes).unwrap();
        }
    }
    writer.finish().unwrap().into_inner()
}

fn python(args: &[&str]) -> std::process::Output {
    Command::new(crate::python()).args(args).output().unwrap_or_else(|e| {
        panic!("python3 is needed to check WACZ output ({e}); install python3 and run: python3 -m pip install warcio wacz")
    })
}

/// py-wacz's validator on a package: `None` when the `wacz` module is not
/// installed (the check is then skipped, saying so).
fn validate(zip: &[u8]) -> Option<Result<(), String>> {
    if !python(&["-c", "import wacz.main"]).status.success() {
        eprintln!(
            "SKIPPED: py-wacz's validator: the wacz module is not installed (python3 -m pip install wacz)"
        );
        return None;
    }
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("out.wacz");
    std::fs::write(&path, zip).unwrap();
    let output = python(&[
        "-c",
        "import sys; from wacz.main import main; sys.exit(main(['validate', '-f', sys.argv[1]]))",
        path.to_str().unwrap(),
    ]);
    let text = String::from_utf8_lossy(&output.stdout).into_owned()
        + &String::from_utf8_lossy(&output.stderr);
    Some(
        (output.status.success() && text.contains("Validation succeeded"))
            .then_some(())
            .ok_or(text),
    )
}

/// What fixtures/archives/wacz/check_wacz.py finds: warcio reads the record
/// at each index line's offset.
fn check_indexes(zip: &[u8]) -> Value {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("out.wacz");
    std::fs::write(&path, zip).unwrap();
    let script = fixture("archives/wacz/check_wacz.py");
    let output = python(&[script.to_str().unwrap(), path.to_str().unwrap()]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    match output.status.code() {
        Some(0) => {}
        Some(2) => {
            panic!("warcio is needed to check WACZ output: python3 -m pip install warcio\n{stderr}")
        }
        _ => panic!("check_wacz.py failed:\n{stderr}"),
    }
    serde_json::from_slice(&output.stdout).unwrap()
}

fn assert_indexes_point_at_records(zip: &[u8], lines: usize) -> Vec<String> {
    let report = check_indexes(zip);
    assert_eq!(report["problems"], Value::Array(vec![]), "{report}");
    assert_eq!(report["checked"], lines, "{report}");
    report["urls"]
        .as_array()
        .unwrap()
        .iter()
        .map(|u| u.as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn wacz_is_told_by_its_head_and_a_warc_is_not() {
    for name in FIXTURES {
        let bytes = read(name);
        // A package holding a WARC stored uncompressed too, with no name.
        assert_eq!(kind_of(&bytes), Some(Kind::Wacz), "{name}");
        let warc = entry(
            &bytes,
            &format!(
                "archive/{}",
                name.replace(".wacz", ".warc.gz")
                    .replace("-plain.warc.gz", ".warc")
            ),
        );
        assert_eq!(kind_of(&warc), Some(Kind::Warc), "{name}");
    }
}

#[test]
fn links_of_a_wacz_are_those_of_its_warc_named_by_entry() {
    for (name, warc_entry) in [
        ("example.wacz", "archive/example.warc.gz"),
        ("example-plain.wacz", "archive/example.warc"),
        ("site.wacz", "archive/site.warc.gz"),
    ] {
        let bytes = read(name);
        let found = links(&bytes);
        let listed = run(&Rewriter::new(), &bytes, false).unwrap();
        let inner = entry(&bytes, warc_entry);
        let direct_run = run_archive(&Rewriter::new(), Input::bytes(&inner), false).unwrap();
        let direct = direct_run.links();
        assert!(!direct.is_empty(), "{name}");
        assert_eq!(found.len(), direct.len(), "{name}");
        for ((entry, link), want) in found.iter().zip(&direct) {
            assert_eq!(entry, warc_entry);
            assert_eq!(link.record, want.record);
            assert_eq!(link.target_uri, want.target_uri);
            assert_eq!(link.link.original, want.link.original);
            assert_eq!(link.link.resolved, want.link.resolved);
        }
        assert_eq!(archives(&listed), [warc_entry]);
        assert_eq!(listed.report.records, direct_run.report.records);
        // A listing writes nothing.
        assert!(listed.out.is_empty());
    }
    // The one relative link of pywb's sample, in its last record.
    let found = links(&read("example.wacz"));
    let (_, reserved) = found
        .iter()
        .find(|(_, l)| l.link.original == "/domains/reserved")
        .unwrap();
    assert_eq!(
        reserved.link.resolved,
        "http://www.iana.org/domains/reserved"
    );
    assert_eq!(reserved.target_uri, "http://www.iana.org/domains/example");
}

#[test]
fn inspect_reports_every_record_with_its_entry() {
    let listed = run(&Rewriter::new(), &read("site.wacz"), false).unwrap();
    let seen = &listed.records;
    assert_eq!(seen.len(), listed.report.records);
    assert_eq!(seen.len(), 30);
    // The records with a document name their entry in its label.
    assert!(!listed.layers.is_empty());
    assert_eq!(archives(&listed), ["archive/site.warc.gz"]);
    let numbers: Vec<usize> = seen.iter().map(|r| r.name.number).collect();
    assert_eq!(numbers, (1..=30).collect::<Vec<_>>());
}

#[test]
fn rewritten_wacz_validates_and_its_indexes_point_at_the_new_records() {
    for (name, lines, changed) in [
        ("example.wacz", 3, 1),
        ("example-plain.wacz", 3, 1),
        ("site.wacz", 16, 12),
    ] {
        let input = read(name);
        let before = assert_indexes_point_at_records(&input, lines);
        let (out, summary) = rewrite(&input);
        assert_eq!(summary.changed(), changed, "{name}: {:?}", summary.warnings);
        assert!(
            summary.warnings.is_empty(),
            "{name}: {:?}",
            summary.warnings
        );
        let warc_entry = &summary.archives[0];
        assert_eq!(
            summary.rewritten,
            [
                "indexes/index.cdx.gz",
                "indexes/index.idx",
                warc_entry,
                "datapackage.json",
                "datapackage-digest.json"
            ],
            "{name}"
        );
        // Every index line points at the record it named, in the new WARC.
        let after = assert_indexes_point_at_records(&out, lines);
        assert_eq!(before, after, "{name}");
        if let Some(result) = validate(&out) {
            result.unwrap_or_else(|e| panic!("{name}: wacz validate rejects the output:\n{e}"));
        }
        // The links are absolute in the new package, and warcio reads its
        // WARC (every digest checked).
        let found = links(&out);
        assert!(!found.is_empty(), "{name}");
        assert!(
            found
                .iter()
                .all(|(_, l)| l.link.original == l.link.resolved),
            "{name}"
        );
        if name == "example.wacz" {
            let warc = entry(&out, warc_entry);
            assert!(
                memchr::memmem::find(&gunzip(&warc), b"http://www.iana.org/domains/reserved")
                    .is_some()
            );
        }
    }
}

fn gunzip(bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    flate2::read::MultiGzDecoder::new(bytes)
        .read_to_end(&mut out)
        .unwrap();
    out
}

#[test]
fn a_forced_base_moves_every_record_and_the_package_stays_valid() {
    let forced = Rewriter::new().base("http://mirror.example/archive/");
    let input = read("site.wacz");
    let (out, summary) = rewrite_by(&forced, &input);
    assert!(summary.changed() >= 12, "{:?}", summary.warnings);
    assert_indexes_point_at_records(&out, 16);
    if let Some(result) = validate(&out) {
        result.unwrap_or_else(|e| panic!("wacz validate rejects the output:\n{e}"));
    }
    let found = links(&out);
    assert!(
        found
            .iter()
            .any(|(_, l)| l.link.original.starts_with("http://mirror.example/"))
    );
}

#[test]
fn entries_that_did_not_change_are_copied_as_stored_in_their_place() {
    let input = read("site.wacz");
    let (out, summary) = rewrite(&input);
    let (old, new) = (entries(&input), entries(&out));
    let names = |e: &[(String, CompressionMethod, Vec<u8>)]| -> Vec<(String, CompressionMethod)> {
        e.iter().map(|(n, m, _)| (n.clone(), *m)).collect()
    };
    assert_eq!(names(&old), names(&new));
    assert_eq!(new[2].1, CompressionMethod::Stored, "{}", new[2].0);
    // Only the indexes, the WARC and the package description are written
    // anew; every other entry is copied as it was stored.
    let changed: Vec<&str> = old
        .iter()
        .zip(&new)
        .filter(|((_, _, was), (_, _, now))| was != now)
        .map(|((name, _, _), _)| name.as_str())
        .collect();
    assert_eq!(
        changed,
        [
            "indexes/index.cdx.gz",
            "indexes/index.idx",
            "archive/site.warc.gz",
            "datapackage.json",
            "datapackage-digest.json"
        ]
    );
    assert_eq!(changed, summary.rewritten);
    // The package description keeps its text but for the new hashes and sizes.
    let package = String::from_utf8(entry(&out, "datapackage.json")).unwrap();
    let old_package = String::from_utf8(entry(&input, "datapackage.json")).unwrap();
    let diff: Vec<_> = old_package
        .lines()
        .zip(package.lines())
        .filter(|(a, b)| a != b)
        .collect();
    assert_eq!(old_package.lines().count(), package.lines().count());
    assert!(
        diff.iter()
            .all(|(a, _)| a.contains("\"hash\"") || a.contains("\"bytes\"")),
        "{diff:?}"
    );
    // The index, its summary and the WARC.
    let hashes = diff.iter().filter(|(a, _)| a.contains("\"hash\"")).count();
    assert_eq!(hashes, 3, "{diff:?}");
}

#[test]
fn a_second_pass_reports_unchanged_and_copies_every_entry() {
    let (once, _) = rewrite(&read("site.wacz"));
    let (twice, summary) = rewrite(&once);
    assert!(summary.unchanged(), "{:?}", summary.rewritten);
    assert_eq!(summary.changed(), 0);
    assert_eq!(entries(&once), entries(&twice));
    assert!(twice == once, "byte-identical");
}

#[test]
fn a_signed_wacz_is_listed_but_not_rewritten() {
    let input = read("example.wacz");
    let digest: Value = serde_json::from_slice(&entry(&input, "datapackage-digest.json")).unwrap();
    let mut signed = digest.clone();
    signed["signedData"] = serde_json::json!({"hash": digest["hash"], "signature": "MEUCIQ"});
    let signed = edit_zip(
        &input,
        &[(
            "datapackage-digest.json",
            Some(serde_json::to_vec_pretty(&signed).unwrap()),
        )],
    );
    assert!(!links(&signed).is_empty());
    let (err, out) = refused(&signed);
    assert!(matches!(err, relink::Error::Wacz(_)), "{err}");
    assert!(err.to_string().contains("signedData"), "{err}");
    assert!(err.to_string().contains("cannot sign it again"), "{err}");
    assert!(out.is_empty());
}

/// The lines of the ZipNum index of a package, decompressed.
fn zipnum_lines(zip: &[u8]) -> String {
    String::from_utf8(gunzip(&entry(zip, "indexes/index.cdx.gz"))).unwrap()
}

#[test]
fn plain_cdxj_and_classic_cdx_indexes_follow_the_records() {
    let input = read("site.wacz");
    let cdxj = zipnum_lines(&input);
    // The same lines as classic CDX 11: N b a m s k r M S V g.
    let mut cdx = String::from(" CDX N b a m s k r M S V g\n");
    for line in cdxj.lines() {
        let (key, rest) = line.split_once(' ').unwrap();
        let (stamp, json) = rest.split_once(' ').unwrap();
        let f: Value = serde_json::from_str(json).unwrap();
        let s = |k: &str| f[k].as_str().unwrap_or("-").to_owned();
        cdx += &format!(
            "{key} {stamp} {} {} {} {} - - {} {} {}\n",
            s("url"),
            s("mime"),
            s("status"),
            s("digest"),
            s("length"),
            s("offset"),
            s("filename")
        );
    }
    let (zipnum_out, _) = rewrite(&input);
    let want = zipnum_lines(&zipnum_out);
    for (index, text) in [("indexes/index.cdxj", &cdxj), ("indexes/index.cdx", &cdx)] {
        let variant = edit_zip(
            &input,
            &[
                ("indexes/index.cdx.gz", None),
                ("indexes/index.idx", None),
                (index, Some(text.as_bytes().to_vec())),
            ],
        );
        let (out, summary) = rewrite(&variant);
        assert!(
            summary.rewritten.iter().any(|r| r == index),
            "{index}: {:?}",
            summary.rewritten
        );
        // The package did not list the new index: said, not fatal.
        assert!(
            summary
                .warnings
                .iter()
                .any(|w| w.to_string().contains(index)),
            "{index}: {:?}",
            summary.warnings
        );
        assert_indexes_point_at_records(&out, 16);
        let lines = String::from_utf8(entry(&out, index)).unwrap();
        if index.ends_with("cdxj") {
            // The same lines as the ZipNum index rewritten.
            assert_eq!(lines, want);
        } else {
            let old: Vec<_> = cdx.lines().collect();
            let new: Vec<_> = lines.lines().collect();
            assert_eq!(old[0], new[0]);
            for (was, now) in old.iter().zip(&new).skip(1) {
                let (was, now): (Vec<_>, Vec<_>) =
                    (was.split(' ').collect(), now.split(' ').collect());
                assert_eq!(was[..5], now[..5]);
                assert_eq!(was[10], now[10]);
            }
        }
    }
}

#[test]
fn an_index_line_pointing_inside_a_record_is_refused() {
    let input = read("example.wacz");
    let lines = zipnum_lines(&input).replace("\"offset\": \"1864\"", "\"offset\": \"1865\"");
    let variant = edit_zip(
        &input,
        &[
            ("indexes/index.cdx.gz", None),
            ("indexes/index.idx", None),
            ("indexes/index.cdxj", Some(lines.into_bytes())),
        ],
    );
    let (err, out) = refused(&variant);
    let text = err.to_string();
    assert!(
        text.starts_with("indexes/index.cdxj: line 2: offset 1865"),
        "{text}"
    );
    assert!(text.contains("stale index"), "{text}");
    assert!(out.is_empty());
}

#[test]
fn a_package_hashed_with_md5_keeps_md5() {
    use md5::Digest;
    let input = read("example.wacz");
    let package = String::from_utf8(entry(&input, "datapackage.json")).unwrap();
    let mut md5_package = String::new();
    for line in package.split_inclusive('\n') {
        match line.find("\"sha256:") {
            Some(at) => md5_package += &format!("{}\"md5:0\",\n", &line[..at]),
            None => md5_package += line,
        }
    }
    let variant = edit_zip(
        &input,
        &[("datapackage.json", Some(md5_package.into_bytes()))],
    );
    let (out, summary) = rewrite(&variant);
    let package: Value = serde_json::from_slice(&entry(&out, "datapackage.json")).unwrap();
    let mut recomputed = 0;
    for resource in package["resources"].as_array().unwrap() {
        let path = resource["path"].as_str().unwrap();
        let bytes = entry(&out, path);
        let hex: String = md5::Md5::digest(&bytes)
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        if summary.rewritten.iter().any(|r| r == path) {
            assert_eq!(resource["hash"], format!("md5:{hex}"), "{path}");
            assert_eq!(resource["bytes"], bytes.len(), "{path}");
            recomputed += 1;
        } else {
            assert_eq!(resource["hash"], "md5:0", "{path}");
        }
    }
    assert_eq!(recomputed, 3);
    // The digest file keeps its own algorithm.
    let digest: Value = serde_json::from_slice(&entry(&out, "datapackage-digest.json")).unwrap();
    let hex: String = sha2::Sha256::digest(entry(&out, "datapackage.json"))
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    assert_eq!(digest["hash"], format!("sha256:{hex}"));
}

#[test]
fn a_package_with_nothing_to_change_is_written_back_as_it_was() {
    // No payload is small enough to be looked at: nothing changes.
    let rewriter = Rewriter::new().max_payload_bytes(0);
    for name in FIXTURES {
        let input = read(name);
        let ran = run_archive(&rewriter, Input::bytes(&input), true).unwrap();
        let out = ran.out;
        assert!(
            !ran.report.changed,
            "{name}: {} rewritten",
            ran.report.rewritten
        );
        assert_eq!(entries(&input), entries(&out), "{name}");
        assert!(out == input, "{name}: not byte-identical");
    }
}

#[test]
fn zipnum_blocks_move_and_an_unchanged_block_is_kept_as_it_was() {
    use sha2::Digest;
    // pywb's sample with a block per index line: only the last record
    // changes, so only the last block does.
    let input = read("example.wacz");
    let lines = zipnum_lines(&input);
    let mut blocks = Vec::new();
    let mut summary =
        String::from("!meta 0 {\"format\": \"cdxj-gzip-1.0\", \"filename\": \"index.cdx.gz\"}\n");
    let mut offset = 0;
    for line in lines.lines() {
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        gz.write_all(format!("{line}\n").as_bytes()).unwrap();
        let block = gz.finish().unwrap();
        let hex: String = sha2::Sha256::digest(&block)
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        let prefix = line.split(" {").next().unwrap();
        summary += &format!(
            "{prefix} {{\"offset\": {offset}, \"length\": {}, \"digest\": \"sha256:{hex}\"}}\n",
            block.len()
        );
        offset += block.len();
        blocks.push(block);
    }
    assert_eq!(blocks.len(), 3);
    let variant = edit_zip(
        &input,
        &[
            ("indexes/index.cdx.gz", Some(blocks.concat())),
            ("indexes/index.idx", Some(summary.clone().into_bytes())),
        ],
    );
    assert_indexes_point_at_records(&variant, 3);
    let (out, result) = rewrite(&variant);
    assert_eq!(result.changed(), 1);
    assert_indexes_point_at_records(&out, 3);
    let new_blocks = entry(&out, "indexes/index.cdx.gz");
    let kept = blocks[0].len() + blocks[1].len();
    assert_eq!(new_blocks[..kept], blocks[..2].concat());
    assert_ne!(new_blocks[kept..], blocks[2]);
    let new_summary = String::from_utf8(entry(&out, "indexes/index.idx")).unwrap();
    let (old, new): (Vec<_>, Vec<_>) = (summary.lines().collect(), new_summary.lines().collect());
    assert_eq!(old[..3], new[..3]);
    assert_ne!(old[3], new[3]);
    if let Some(result) = validate(&out) {
        result.unwrap_or_else(|e| panic!("wacz validate rejects the output:\n{e}"));
    }
}

#[test]
fn index_lines_follow_the_warc_they_name_among_several() {
    // Browsertrix writes several WARCs and one index over them all.
    let site = read("site.wacz");
    let example = read("example.wacz");
    let mut lines = zipnum_lines(&site);
    lines += &zipnum_lines(&example);
    lines += "com,example)/x 20140103030321 {\"url\": \"http://example.com/x\", \"offset\": \"5\", \"length\": \"1\", \"filename\": \"missing.warc.gz\"}\n";
    let variant = edit_zip(
        &site,
        &[
            ("indexes/index.cdx.gz", None),
            ("indexes/index.idx", None),
            ("indexes/index.cdxj", Some(lines.clone().into_bytes())),
            (
                "archive/example.warc.gz",
                Some(entry(&example, "archive/example.warc.gz")),
            ),
        ],
    );
    let (out, summary) = rewrite(&variant);
    assert_eq!(summary.archives.len(), 2);
    assert_eq!(summary.changed(), 13);
    let said: Vec<String> = summary.warnings.iter().map(|w| w.to_string()).collect();
    assert!(
        said.iter()
            .any(|w| w.starts_with("indexes/index.cdxj: lines naming a WARC file")),
        "{said:?}"
    );
    let new_lines = String::from_utf8(entry(&out, "indexes/index.cdxj")).unwrap();
    assert_eq!(new_lines.lines().last(), lines.lines().last());
    // check_wacz.py cannot read the line for the missing WARC: check the rest.
    let without_missing = new_lines
        .lines()
        .filter(|l| !l.contains("missing.warc.gz"))
        .collect::<Vec<_>>()
        .join("\n");
    let checked = edit_zip(
        &out,
        &[("indexes/index.cdxj", Some(without_missing.into_bytes()))],
    );
    assert_indexes_point_at_records(&checked, 19);
}

#[test]
fn damaged_packages_give_errors_not_panics() {
    let input = read("example.wacz");
    for at in (0..input.len()).step_by(13) {
        let mut damaged = input.clone();
        damaged[at] ^= 0x55;
        let _ = run(&Rewriter::new(), &damaged, false);
        let _ = run(&Rewriter::new(), &damaged, true);
    }
    for len in (0..input.len()).step_by(97) {
        assert!(run(&Rewriter::new(), &input[..len], true).is_err());
    }
}

/// A SURT key holding `{` (real URLs do): the line is split at its first
/// two spaces, the key kept, and the JSON after it brought up to date.
#[test]
fn a_cdxj_key_holding_a_brace_is_read_at_its_first_two_spaces() {
    let input = read("site.wacz");
    let braced = |lines: &str| -> String {
        lines
            .lines()
            .map(|line| {
                let (key, rest) = line.split_once(' ').unwrap();
                format!("{key}?q={{%22a%22:1}} {rest}\n")
            })
            .collect()
    };
    let (zipnum_out, _) = rewrite(&input);
    let want = braced(&zipnum_lines(&zipnum_out));
    let cdxj = braced(&zipnum_lines(&input));
    let variant = edit_zip(
        &input,
        &[
            ("indexes/index.cdx.gz", None),
            ("indexes/index.idx", None),
            ("indexes/index.cdxj", Some(cdxj.clone().into_bytes())),
        ],
    );
    let (out, summary) = rewrite(&variant);
    assert!(
        summary.rewritten.iter().any(|r| r == "indexes/index.cdxj"),
        "{:?}",
        summary.rewritten
    );
    let lines = String::from_utf8(entry(&out, "indexes/index.cdxj")).unwrap();
    assert_ne!(lines, cdxj);
    assert_eq!(lines, want);
}

/// Two zip entries of one name: a zip reader keeps one, so the other (a
/// whole WARC here) would be lost. Refused, in every mode.
#[test]
fn a_wacz_with_two_entries_of_one_name_is_refused() {
    let input = read("example.wacz");
    let warc = entry(&input, "archive/example.warc.gz");
    let twin = edit_zip(&input, &[("archive/examplx.warc.gz", Some(warc))]);
    // The second entry renamed to the first's name, in its local header
    // and in the central directory (names are under no checksum).
    let (from, to) = (b"archive/examplx.warc.gz", b"archive/example.warc.gz");
    let mut twin = twin;
    let mut at = 0;
    let mut renamed = 0;
    while let Some(found) = twin[at..].windows(from.len()).position(|w| w == from) {
        twin[at + found..at + found + to.len()].copy_from_slice(to);
        at += found + to.len();
        renamed += 1;
    }
    assert_eq!(renamed, 2);
    let (err, out) = refused(&twin);
    assert!(matches!(err, relink::Error::Wacz(_)), "{err}");
    assert!(
        err.to_string().contains("two entries have one name"),
        "{err}"
    );
    assert!(out.is_empty());
    let err = run(&Rewriter::new(), &twin, false).unwrap_err();
    assert!(matches!(err, relink::Error::Wacz(_)), "{err}");
    assert!(
        err.to_string().contains("two entries have one name"),
        "{err}"
    );
}

/// py-wacz writes a ZipNum summary line with its block's first key cut at
/// its first `{` and no timestamp (readers find the JSON at the first
/// `{`): the line cannot be read as a CDXJ line, so the summary is built
/// again from the rewritten blocks, each line as py-wacz writes it.
#[test]
fn a_zipnum_summary_cut_at_a_brace_is_built_again_from_the_blocks() {
    use sha2::Digest;
    let input = read("brace.wacz");
    let old = String::from_utf8(entry(&input, "indexes/index.idx")).unwrap();
    let old_lines: Vec<&str> = old.lines().collect();
    assert!(
        old_lines[1].starts_with("com,example)/a?q= {\"offset\": 0, "),
        "{old}"
    );
    let (out, summary) = rewrite(&input);
    assert_eq!(summary.changed(), 2);
    assert!(
        summary.rewritten.iter().any(|r| r == "indexes/index.idx"),
        "{:?}",
        summary.rewritten
    );
    assert_indexes_point_at_records(&out, 2);
    let blocks = entry(&out, "indexes/index.cdx.gz");
    assert_ne!(blocks, entry(&input, "indexes/index.cdx.gz"));
    let hex: String = sha2::Sha256::digest(&blocks)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    let new = String::from_utf8(entry(&out, "indexes/index.idx")).unwrap();
    let want = format!(
        "{}\ncom,example)/a?q= {{\"offset\": 0, \"length\": {}, \"digest\": \"sha256:{hex}\"}}\n",
        old_lines[0],
        blocks.len()
    );
    assert_eq!(new, want);
    if let Some(result) = validate(&out) {
        result.unwrap_or_else(|e| panic!("wacz validate rejects the output:\n{e}"));
    }
}
