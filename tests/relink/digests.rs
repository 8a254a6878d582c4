//! WARC digests: a rewritten record gets its `WARC-Block-Digest` and
//! `WARC-Payload-Digest` again in the algorithm and encoding the input
//! used; a record whose digest relink cannot compute, or that does not
//! verify in the input, is left as it is and said so alike in every mode.
//! warcio, which verifies every algorithm hashlib knows, is the yardstick.

use std::path::Path;
use std::process::Command;

use base64::Engine;
use base64::engine::general_purpose::{STANDARD, URL_SAFE};
use relink::{Input, Link, Rewriter};
use sha2::Digest as _;

use crate::cli::relink;
use crate::warc::{Summary, run_archive};
use crate::{fixture, python};

/// The hash of `bytes` under a hashlib name.
fn hash(algorithm: &str, bytes: &[u8]) -> Vec<u8> {
    match algorithm {
        "md5" => md5::Md5::digest(bytes).to_vec(),
        "sha1" => sha1_smol::Sha1::from(bytes).digest().bytes().to_vec(),
        "sha256" => sha2::Sha256::digest(bytes).to_vec(),
        "sha512" => sha2::Sha512::digest(bytes).to_vec(),
        other => panic!("{other}"),
    }
}

/// RFC 4648 base32, padded.
fn base32(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 32] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
    let mut out = String::new();
    for group in bytes.chunks(5) {
        let mut five = [0u8; 5];
        five[..group.len()].copy_from_slice(group);
        let bits = five.iter().fold(0u64, |acc, &b| acc << 8 | u64::from(b));
        let used = (group.len() * 8).div_ceil(5);
        for i in 0..8 {
            out.push(if i < used {
                char::from(ALPHABET[(bits >> (35 - 5 * i) & 31) as usize])
            } else {
                '='
            });
        }
    }
    out
}

/// `bytes` hashed and written in one of the encodings warcio reads.
fn encode(form: &str, hash: &[u8]) -> String {
    match form {
        "base16" => hash.iter().map(|b| format!("{b:02x}")).collect(),
        "BASE16" => hash.iter().map(|b| format!("{b:02X}")).collect(),
        "base32" => base32(hash),
        "base64" => STANDARD.encode(hash),
        "base64url" => URL_SAFE.encode(hash),
        other => panic!("{other}"),
    }
}

/// A `response` record of an HTML page with one relative link, its
/// digests `algorithm:value` as `form` writes them (`None`: no digests).
fn response(label: &str, algorithm: &str, form: &str, body: &str) -> Vec<u8> {
    let block = format!("HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n{body}");
    let head_len = block.find("\r\n\r\n").unwrap() + 4;
    let digest = |bytes: &[u8]| format!("{label}:{}", encode(form, &hash(algorithm, bytes)));
    format!(
        "WARC/1.0\r\nWARC-Type: response\r\nWARC-Target-URI: http://a/x/\r\n\
         WARC-Record-ID: <urn:uuid:{label}-{form}>\r\n\
         WARC-Block-Digest: {}\r\nWARC-Payload-Digest: {}\r\n\
         Content-Type: application/http; msgtype=response\r\nContent-Length: {}\r\n\r\n{block}\r\n\r\n",
        digest(block.as_bytes()),
        digest(&block.as_bytes()[head_len..]),
        block.len()
    )
    .into_bytes()
}

/// Whether `warcio check` passes on a file (every digest verifies).
fn warcio_check(path: &Path) -> (bool, String) {
    let out = Command::new(python())
        .args([
            "-c",
            "import sys; from warcio.cli import main; main(sys.argv[1:])",
            "check",
            "-v",
        ])
        .arg(path)
        .output()
        .unwrap_or_else(|e| panic!("python3 with warcio is needed ({e})"));
    let said =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    assert!(
        !said.contains("No module named"),
        "warcio is needed: {said}"
    );
    (out.status.success(), said)
}

/// The value of a head field, in the record that holds `record_id`.
fn field<'a>(warc: &'a str, record_id: &str, name: &str) -> &'a str {
    let start = warc.find(record_id).unwrap();
    let head = &warc[warc[..start].rfind("WARC/1.0").unwrap()..];
    let head = &head[..head.find("\r\n\r\n").unwrap()];
    let at = head.find(&format!("{name}: ")).unwrap() + name.len() + 2;
    head[at..].split("\r\n").next().unwrap()
}

#[test]
fn every_algorithm_is_written_again_in_the_encoding_the_input_used() {
    let cases = [
        ("sha256", "sha256", "base16"),
        ("sha-256", "sha256", "base32"),
        ("SHA256", "sha256", "BASE16"),
        ("sha256", "sha256", "base64"),
        ("sha512", "sha512", "base16"),
        ("sha512", "sha512", "base32"),
        // warcio reads an MD5 in base16 as base32 (both 32 characters):
        // these are the encodings of it that it verifies.
        ("md5", "md5", "base32"),
        ("md5", "md5", "base64url"),
        ("sha1", "sha1", "base32"),
        ("sha1", "sha1", "base16"),
        ("sha1", "sha1", "base64"),
    ];
    let input: Vec<u8> = cases
        .iter()
        .flat_map(|(label, algorithm, form)| {
            response(label, algorithm, form, "<a href=\"b\">b</a>")
        })
        .collect();
    let dir = tempfile::tempdir().unwrap();
    let before = dir.path().join("in.warc");
    std::fs::write(&before, &input).unwrap();
    let (passed, said) = warcio_check(&before);
    assert!(passed, "the input verifies: {said}");

    let (out, summary) = rewrite(&input);
    assert_eq!(summary.changed, cases.len(), "{:?}", summary.warnings);
    assert!(summary.warnings.is_empty(), "{:?}", summary.warnings);
    let after = dir.path().join("out.warc");
    std::fs::write(&after, &out).unwrap();
    let (passed, said) = warcio_check(&after);
    assert!(passed, "{said}");
    assert_eq!(said.matches("digest pass").count(), cases.len(), "{said}");

    let (old, new) = (
        String::from_utf8(input).unwrap(),
        String::from_utf8(out).unwrap(),
    );
    assert_eq!(new.matches("href=\"http://a/x/b\"").count(), cases.len());
    for (label, _, form) in cases {
        let id = format!("<urn:uuid:{label}-{form}>");
        for name in ["WARC-Block-Digest", "WARC-Payload-Digest"] {
            let (was, now) = (field(&old, &id, name), field(&new, &id, name));
            assert_ne!(was, now, "{id} {name}");
            // The same label, and the value in the same encoding: of the
            // same length, case and padding.
            let (was_label, was_value) = was.split_once(':').unwrap();
            let (now_label, now_value) = now.split_once(':').unwrap();
            assert_eq!(was_label, now_label, "{id}");
            assert_eq!(was_value.len(), now_value.len(), "{id} {now}");
            assert_eq!(
                was_value.ends_with('='),
                now_value.ends_with('='),
                "{id} {now}"
            );
            if form == "BASE16" {
                assert_eq!(now_value, now_value.to_ascii_uppercase(), "{id}");
            }
        }
    }
}

/// The summary line relink prints last on standard error.
fn summary_line(stderr: &[u8]) -> String {
    let text = String::from_utf8_lossy(stderr);
    text.lines().last().unwrap_or_default().to_owned()
}

/// Runs every mode over `input` (a WARC written to a file): the summary
/// and warnings each gives, and the bytes `-o` wrote. The modes that
/// write nothing are given `--verify-digests` when `verify`.
fn every_mode(input: &[u8], verify: bool) -> (Vec<(String, String)>, Vec<u8>) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("in.warc");
    std::fs::write(&path, input).unwrap();
    let out = dir.path().join("out.warc");
    let file = path.to_str().unwrap();
    let mut said = Vec::new();
    for mut args in [
        vec!["--list", "--format", "json", file],
        vec!["--check", file],
        vec!["--dry-run", file],
        vec!["-o", out.to_str().unwrap(), file],
    ] {
        if verify && args[0] != "-o" {
            args.insert(0, "--verify-digests");
        }
        let run = relink(&args, b"");
        let args = &args[usize::from(verify && args[0] == "--verify-digests")..];
        let stderr = String::from_utf8_lossy(&run.stderr).into_owned();
        if args[0] == "--list" {
            // No row says a link changed.
            let rows = String::from_utf8_lossy(&run.stdout).into_owned();
            assert!(rows.contains("\"changed\":false"), "{rows}");
            assert!(!rows.contains("\"changed\":true"), "{rows}");
        }
        said.push((summary_line(&run.stderr), stderr));
    }
    (said, std::fs::read(&out).unwrap())
}

/// Asserts that every mode left the record as it is, with one warning
/// that says `why` of record 1, and counted no link.
#[track_caller]
fn assert_left_alike(input: &[u8], why: &str, verify: bool) {
    let (said, written) = every_mode(input, verify);
    assert_eq!(written, input, "the record is left as it is");
    for (i, (summary, stderr)) in said.iter().enumerate() {
        let want = if i == 3 {
            "1 file, 0 changed, no links rewritten, 1 warning, no errors"
        } else {
            "1 file, 0 would change, no links would be rewritten, 1 warning, no errors (nothing written)"
        };
        assert!(summary.ends_with(want), "{summary}\n{stderr}");
        let warning = stderr.lines().find(|l| l.contains("warning")).unwrap();
        assert!(
            warning.contains("record 1 ") && warning.contains(why),
            "{warning}"
        );
    }
}

#[test]
fn a_digest_relink_cannot_compute_is_said_alike_in_every_mode() {
    let record = response("sha256", "sha256", "base16", "<a href=\"b\">b</a>");
    let text = String::from_utf8(record).unwrap();
    let sha3 = text.replacen(
        "WARC-Block-Digest: sha256:",
        "WARC-Block-Digest: sha3-256:",
        1,
    );
    // Read, not computed: every mode says so, verifying or not.
    for verify in [false, true] {
        assert_left_alike(sha3.as_bytes(), "WARC-Block-Digest \"sha3-256:", verify);
    }
    let odd = text.replacen(
        "WARC-Payload-Digest: sha256:",
        "WARC-Payload-Digest: sha256:zz",
        1,
    );
    for verify in [false, true] {
        assert_left_alike(odd.as_bytes(), "is in no encoding relink reads", verify);
    }
}

#[test]
fn a_digest_that_does_not_verify_leaves_the_record_as_it_is() {
    // A block digest of other bytes: the record was damaged, or written
    // wrong. relink never writes a matching digest over it.
    let good = response("sha256", "sha256", "base16", "<a href=\"b\">b</a>");
    let other = response("sha256", "sha256", "base16", "<a href=\"c\">c</a>");
    let (good, other) = (
        String::from_utf8(good).unwrap(),
        String::from_utf8(other).unwrap(),
    );
    let id = "<urn:uuid:sha256-base16>";
    let block = field(&other, id, "WARC-Block-Digest");
    let bad_block = good.replacen(field(&good, id, "WARC-Block-Digest"), block, 1);
    assert_left_alike(bad_block.as_bytes(), "WARC-Block-Digest \"sha256:", true);
    let (said, _) = every_mode(bad_block.as_bytes(), true);
    assert!(
        said[3].1.contains("does not match the block as read"),
        "{said:?}"
    );
    let payload = field(&other, id, "WARC-Payload-Digest");
    let bad_payload = good.replacen(field(&good, id, "WARC-Payload-Digest"), payload, 1);
    assert_left_alike(
        bad_payload.as_bytes(),
        "WARC-Payload-Digest \"sha256:",
        true,
    );
    // Each still fails warcio's check after, as before.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bad.warc");
    std::fs::write(&path, bad_block.as_bytes()).unwrap();
    assert!(!warcio_check(&path).0);
}

/// A run that writes nothing reads each digest but hashes none unless
/// asked: a digest that does not match goes unsaid by `--list`, `--check`
/// and `--dry-run`, which count the record as a rewrite of it would if it
/// held; `--verify-digests` says it, and a rewrite still leaves the record
/// as it is.
#[test]
fn a_digest_is_verified_by_a_rewrite_or_when_asked_only() {
    let good = response("sha1", "sha1", "base32", "<a href=\"b\">b</a>");
    let other = response("sha1", "sha1", "base32", "<a href=\"c\">c</a>");
    let (good, other) = (
        String::from_utf8(good).unwrap(),
        String::from_utf8(other).unwrap(),
    );
    let id = "<urn:uuid:sha1-base32>";
    for name in ["WARC-Block-Digest", "WARC-Payload-Digest"] {
        let bad = good.replacen(field(&good, id, name), field(&other, id, name), 1);
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("in.warc");
        std::fs::write(&path, &bad).unwrap();
        let file = path.to_str().unwrap();
        let mismatch = format!("{name} \"sha1:");
        for args in [
            vec!["--list", "--format", "json", file],
            vec!["--check", file],
            vec!["--dry-run", file],
        ] {
            let run = relink(&args, b"");
            let stderr = String::from_utf8_lossy(&run.stderr);
            assert!(!stderr.contains(&mismatch), "{args:?}: {stderr}");
            assert!(
                summary_line(&run.stderr).contains("1 would change"),
                "{stderr}"
            );
            let verified = relink(&[&["--verify-digests"], &args[..]].concat(), b"");
            let stderr = String::from_utf8_lossy(&verified.stderr);
            assert!(stderr.contains(&mismatch), "{args:?}: {stderr}");
            assert!(summary_line(&verified.stderr).contains("0 would change"));
        }
        let rows = relink(&["--list", "--format", "json", file], b"").stdout;
        assert!(String::from_utf8_lossy(&rows).contains("\"changed\":true"));
        let out = dir.path().join("out.warc");
        let run = relink(&["-o", out.to_str().unwrap(), file], b"");
        assert_eq!(std::fs::read(&out).unwrap(), bad.as_bytes());
        let stderr = String::from_utf8_lossy(&run.stderr);
        assert!(stderr.contains(&mismatch), "{stderr}");
        // The library alike: reading verifies when its options ask.
        for verify in [false, true] {
            let rewriter = match verify {
                true => Rewriter::new().verify_digests(),
                false => Rewriter::new(),
            };
            let listed = run_archive(&rewriter, Input::bytes(bad.as_bytes()), false).unwrap();
            let warned: usize = listed.records.iter().map(|r| r.warnings.len()).sum();
            assert_eq!(warned, usize::from(verify), "{name}");
        }
    }
}

/// A WARC written by ArchiveWeb.page (sha256 digests in base16), from the
/// replay tool's sample package: rewritten, every digest verifies, and
/// its relative link is absolute.
#[test]
fn a_real_sha256_archive_is_rewritten_and_verifies() {
    let path = fixture("archives/webrecorder/archiveweb-page.warc.gz");
    assert!(warcio_check(&path).0);
    let input = std::fs::read(&path).unwrap();
    let (out, summary) = rewrite(&input);
    assert_eq!(summary.changed, 1, "{:?}", summary.warnings);
    assert!(summary.warnings.is_empty(), "{:?}", summary.warnings);
    let dir = tempfile::tempdir().unwrap();
    let after = dir.path().join("out.warc.gz");
    std::fs::write(&after, &out).unwrap();
    let (passed, said) = warcio_check(&after);
    assert!(passed, "{said}");
    // Four records with digests, each verified.
    assert_eq!(said.matches("digest pass").count(), 4, "{said}");
    let mut text = Vec::new();
    std::io::Read::read_to_end(&mut flate2::read::MultiGzDecoder::new(&out[..]), &mut text)
        .unwrap();
    let text = String::from_utf8_lossy(&text);
    assert!(
        text.contains("<iframe src=\"http://localhost:20000/iframe.html\">"),
        "{text}"
    );
    assert!(text.contains("WARC-Block-Digest: sha256:"));
    assert!(
        !text.contains("WARC-Block-Digest: sha256:becf7c9c"),
        "the old digest is gone"
    );
}

/// The package it came from is signed: now that its record changes,
/// rewriting it is refused (it was copied as it was, though a link was
/// counted as rewritten).
#[test]
fn a_real_signed_sha256_package_is_refused_not_copied() {
    let path = fixture("archives/webrecorder/iframetest.wacz");
    let out = relink(&["-o", "/dev/null", path.to_str().unwrap()], b"");
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("signed"), "{stderr}");
    // Listing it says the record would change.
    let list = relink(&["--dry-run", path.to_str().unwrap()], b"");
    let summary = summary_line(&list.stderr);
    assert!(
        summary.contains("1 would change, 1 link would be rewritten, no warnings"),
        "{summary}"
    );
}

/// warcio's ARC sample whose URL holds spaces: the URL is every field
/// before the last four, as warcio reads it, and is the base.
#[test]
fn an_arc_url_with_spaces_is_read_as_warcio_reads_it() {
    let path = fixture("archives/webrecorder/example-space-in-url.arc");
    let out = Command::new(python())
        .args([
            "-c",
            "import sys\n\
             from warcio.archiveiterator import ArchiveIterator\n\
             for r in ArchiveIterator(open(sys.argv[1], 'rb'), arc2warc=False):\n\
             \x20   print(r.rec_headers.get_header('uri') or '')",
        ])
        .arg(&path)
        .output()
        .unwrap_or_else(|e| panic!("python3 with warcio is needed ({e})"));
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let warcio: Vec<String> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(str::to_owned)
        .collect();
    let url = "http://example.com/index.cfm?FuseAction=Email&EmailTitle=Examples From The Live Web&IsPopUp=False";
    assert_eq!(warcio.last().map(String::as_str), Some(url));

    let listed = list(&std::fs::read(&path).unwrap());
    let uris: Vec<String> = listed
        .records
        .iter()
        .map(|r| r.name.target_uri.clone())
        .collect();
    let mut links: Vec<Link> = listed.rows.into_iter().map(|r| r.link).collect();
    assert_eq!(uris.last(), warcio.last());
    // Its one link is absolute. Made relative, and a space put in the
    // URL's path (the header line is not counted in the record's length),
    // it resolves against the whole URL, not one cut at its first space.
    let text = std::fs::read(&path).unwrap();
    let text = String::from_utf8_lossy(&text)
        .replace(
            "http://www.iana.org/domains/example",
            "more/information/here/./example.htm",
        )
        .replace(
            "\nhttp://example.com/index.cfm",
            "\nhttp://example.com/a b/index.cfm",
        );
    links.extend(list(text.as_bytes()).rows.into_iter().map(|r| r.link));
    let resolved: Vec<&str> = links.iter().map(|l| l.resolved.as_str()).collect();
    assert_eq!(
        resolved,
        [
            "http://www.iana.org/domains/example",
            "http://example.com/a b/more/information/here/example.htm"
        ]
    );
}

/// `input` rewritten through the front door, and what the run reported.
fn rewrite(input: &[u8]) -> (Vec<u8>, Summary) {
    run_archive(&Rewriter::new(), Input::bytes(input), true)
        .unwrap()
        .summary()
}

/// A listing of `input` through the front door.
fn list(input: &[u8]) -> crate::warc::Archive {
    run_archive(&Rewriter::new(), Input::bytes(input), false).unwrap()
}
