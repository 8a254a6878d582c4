//! The `relink` binary, run as a user would.

use std::io::Write;
use std::process::{Command, Output, Stdio};

/// Runs `relink` with `args` and `stdin`.
pub fn relink(args: &[&str], stdin: &[u8]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_relink"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("relink runs");
    // relink may end (a usage error) before it reads its input.
    if let Err(err) = child.stdin.take().unwrap().write_all(stdin) {
        assert_eq!(err.kind(), std::io::ErrorKind::BrokenPipe, "{err}");
    }
    child.wait_with_output().unwrap()
}

/// Asserts that relink succeeded, showing what it said if not.
#[track_caller]
pub fn assert_ok(out: &Output) {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

fn stdout(out: &Output) -> &str {
    std::str::from_utf8(&out.stdout).unwrap()
}

#[test]
fn resolve_prints_one_url_per_reference_in_order() {
    let out = relink(
        &[
            "resolve",
            "http://a/b/c/d;p?q#f",
            "g",
            "../../../g",
            ";x",
            "",
            "#s",
        ],
        b"",
    );
    assert!(out.status.success());
    assert_eq!(
        stdout(&out),
        "http://a/b/c/g\nhttp://a/../g\nhttp://a/b/c/d;x\nhttp://a/b/c/d;p?q#f\nhttp://a/b/c/d;p?q#s\n"
    );
}

#[test]
fn resolve_keeps_an_empty_net_loc() {
    let out = relink(
        &[
            "resolve",
            "file:///usr/share/doc/index.html",
            "../lib/x.html",
        ],
        b"",
    );
    assert_eq!(stdout(&out), "file:///usr/share/lib/x.html\n");
}

#[test]
fn resolve_takes_other_rules() {
    let out = relink(
        &[
            "resolve",
            "--rules",
            "rfc3986",
            "http://a/b/c/d;p?q",
            "../../../g",
        ],
        b"",
    );
    assert_eq!(stdout(&out), "http://a/g\n");
    let out = relink(&["resolve", "--rules", "whatwg", "HTTP://A/b", "c d"], b"");
    assert_eq!(stdout(&out), "http://a/c%20d\n");
}

#[test]
fn resolve_reads_standard_input_without_references() {
    let out = relink(&["resolve", "http://a/b/c/d;p?q#f"], b"g\r\n../g\n\n?y");
    assert!(out.status.success());
    assert_eq!(
        stdout(&out),
        "http://a/b/c/g\nhttp://a/b/g\nhttp://a/b/c/d;p?q#f\nhttp://a/b/c/d;p?y\n"
    );
}

#[test]
fn resolve_reports_a_failed_reference_and_goes_on() {
    let out = relink(
        &[
            "resolve",
            "--rules",
            "whatwg",
            "http://a/",
            "http://[x",
            "g",
        ],
        b"",
    );
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(stdout(&out), "\nhttp://a/g\n");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("http://[x"), "{err}");
}

#[test]
fn resolve_reports_a_line_that_is_not_utf8() {
    let out = relink(&["resolve", "http://a/b"], b"\xff\nc\n");
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(stdout(&out), "\nhttp://a/c\n");
    assert!(String::from_utf8_lossy(&out.stderr).contains("line 1"));
}

#[test]
fn resolve_keeps_one_line_out_per_line_in() {
    let out = relink(
        &["resolve", "--rules", "whatwg", "http://a/b"],
        b"g\nhttp://[x\n\xff\nh\n",
    );
    assert_eq!(out.status.code(), Some(1));
    let lines: Vec<&str> = stdout(&out).lines().collect();
    assert_eq!(lines, ["http://a/g", "", "", "http://a/h"]);
}

#[test]
fn resolve_rejects_a_base_without_scheme_as_usage_error() {
    let out = relink(&["resolve", "a/b", "g"], b"");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("'a/b'"));
}

fn fixture_bytes(name: &str) -> Vec<u8> {
    std::fs::read(crate::fixture(name)).unwrap()
}

#[test]
fn rewrites_a_page_to_standard_output() {
    let page = crate::fixture("html/rfc1808-appendix.html");
    let out = relink(
        &[
            page.to_str().unwrap(),
            "--retrieved-from",
            "http://example.org/",
        ],
        b"",
    );
    assert_ok(&out);
    assert_eq!(
        out.stdout,
        fixture_bytes("html/rfc1808-appendix.expected.html")
    );
}

#[test]
fn reads_standard_input_and_says_when_there_is_no_base() {
    let out = relink(&["-"], b"<a href=x>x</a>");
    assert!(out.status.success());
    assert_eq!(out.stdout, b"<a href=x>x</a>");
    assert!(String::from_utf8_lossy(&out.stderr).contains("standard input: no base url"));
    let out = relink(
        &["-", "--retrieved-from", "http://h/d/"],
        b"<a href=x>x</a>",
    );
    assert_eq!(out.stdout, b"<a href=http://h/d/x>x</a>");
}

#[test]
fn writes_to_an_output_file() {
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("out.html");
    let page = crate::fixture("html/quoting.html");
    let out = relink(
        &[
            page.to_str().unwrap(),
            "--retrieved-from",
            "http://example.org/a/b/page.html",
            "-o",
            target.to_str().unwrap(),
        ],
        b"",
    );
    assert!(out.status.success());
    assert!(out.stdout.is_empty());
    assert_eq!(
        std::fs::read(&target).unwrap(),
        fixture_bytes("html/quoting.expected.html")
    );
}

#[test]
fn in_place_rewrites_changed_files_only() {
    let dir = tempfile::tempdir().unwrap();
    let changed = dir.path().join("changed.html");
    let unchanged = dir.path().join("unchanged.html");
    std::fs::write(&changed, "<img src=a.png>").unwrap();
    std::fs::write(&unchanged, "<img src=http://x/a.png>").unwrap();
    crate::make_old(&changed);
    let old = crate::make_old(&unchanged);
    let out = relink(
        &[
            changed.to_str().unwrap(),
            unchanged.to_str().unwrap(),
            "--in-place",
            "--retrieved-from",
            "http://h/",
        ],
        b"",
    );
    assert_ok(&out);
    assert_eq!(
        std::fs::read_to_string(&changed).unwrap(),
        "<img src=http://h/a.png>"
    );
    assert_eq!(
        std::fs::metadata(&unchanged).unwrap().modified().unwrap(),
        old
    );
    // No temporary file is left behind.
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 2);
}

#[test]
fn encoding_overrides_detection() {
    // windows-1252 bytes declared as latin-1 by the user: é stays 0xE9.
    let out = relink(
        &[
            "-",
            "--encoding",
            "iso-8859-1",
            "--retrieved-from",
            "http://h/",
        ],
        b"<a href=\xe9.html>",
    );
    assert_eq!(out.stdout, b"<a href=http://h/\xe9.html>");
    let out = relink(&["-", "--encoding", "no-such-thing"], b"");
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn an_unreadable_file_is_named_and_fails() {
    let out = relink(&["no/such/file.html", "--retrieved-from", "http://h/"], b"");
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no/such/file.html"));
}

#[test]
fn attr_names_lazy_loading_attributes_as_links() {
    let page = crate::fixture("html/lazy.html");
    let page = page.to_str().unwrap();
    let from = "http://example.org/news/story.html";
    let plain = relink(&[page, "--retrieved-from", from], b"");
    assert!(plain.status.success());
    assert_eq!(plain.stdout, std::fs::read(page).unwrap());
    let out = relink(
        &[
            page,
            "--retrieved-from",
            from,
            "--attr",
            "data-src",
            "--attr",
            "data-srcset=srcset",
            "--attr",
            "data-original",
            "--attr",
            "data-lazy-src=url",
            "--attr",
            "data-urls=list",
        ],
        b"",
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        out.stdout,
        std::fs::read(crate::fixture("html/lazy.expected.html")).unwrap()
    );
    let listed = relink(
        &[
            page,
            "--retrieved-from",
            from,
            "--attr",
            "data-src",
            "--list",
            "--format",
            "tsv",
        ],
        b"",
    );
    let text = String::from_utf8(listed.stdout).unwrap();
    assert!(
        text.lines().any(|l| l.starts_with("data-src\t")
            && l.contains("\timg\t")
            && l.contains("\timg/photo.jpg\t\t\t\thttp://example.org/news/img/photo.jpg\t")),
        "{text}"
    );
    let bad = relink(&[page, "--attr", "data-src=css"], b"");
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("data-src=css"));
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn s(path: &std::path::Path) -> &str {
    path.to_str().unwrap()
}

/// A temporary directory with `p.html`, one relative link.
fn page() -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let page = dir.path().join("p.html");
    std::fs::write(&page, "<a href=x>\n").unwrap();
    (dir, page)
}

#[test]
fn conflicting_modes_are_usage_errors_and_write_nothing() {
    let (dir, page) = page();
    let copy = dir.path().join("copy.html");
    let (p, o) = (s(&page), s(&copy));
    let cases: [&[&str]; 14] = [
        &["--diff", "--in-place"],
        &["--diff", "-o", o],
        &["--list", "--diff"],
        &["--list", "-o", o],
        &["--list", "-i"],
        &["--check", "--list"],
        &["--check", "--in-place"],
        &["--dry-run", "--in-place"],
        &["--dry-run", "--diff"],
        &["-o", o, "-i"],
        &["--compare-rules", "--check"],
        &["--compare-rules", "-o", o],
        &["--compare-rules", "--list"],
        &["--format", "tsv"],
    ];
    for flags in cases {
        let mut args = vec![p, "--retrieved-from", "http://h/"];
        args.extend_from_slice(flags);
        let out = relink(&args, b"");
        assert_eq!(out.status.code(), Some(2), "{flags:?}: {}", stderr(&out));
        assert!(stderr(&out).contains("cannot be used with") || flags[0] == "--format");
        assert!(out.stdout.is_empty(), "{flags:?}");
        assert_eq!(std::fs::read_to_string(&page).unwrap(), "<a href=x>\n");
        assert!(!copy.exists(), "{flags:?}");
    }
}

/// A usage error names the options that were given, and no other.
#[test]
fn a_conflict_names_only_the_options_given() {
    let (dir, page) = page();
    let copy = dir.path().join("copy.html");
    let (p, o) = (s(&page), s(&copy));
    let all = [
        "--in-place",
        "--output",
        "--list",
        "--check",
        "--compare-rules",
        "--diff",
        "--dry-run",
        "--backup",
    ];
    let cases: [&[&str]; 5] = [
        &["--in-place", "--dry-run"],
        &["--list", "--diff"],
        &["--check", "-o", o],
        &["--compare-rules", "--in-place"],
        &["--dry-run", "--list"],
    ];
    for flags in cases {
        let mut args = vec![p, "--retrieved-from", "http://h/"];
        args.extend_from_slice(flags);
        let out = relink(&args, b"");
        assert_eq!(out.status.code(), Some(2), "{flags:?}");
        let error = stderr(&out);
        let error = error.lines().next().unwrap_or_default();
        let given =
            |name: &str| flags.contains(&name) || (name == "--output" && flags.contains(&"-o"));
        for name in all {
            let named =
                error.contains(&format!("'{name}'")) || error.contains(&format!("'{name} "));
            assert_eq!(named, given(name), "{flags:?}: {error}");
        }
    }
}

/// `--backup` serves `--in-place` only: with `-o` or a mode that writes
/// nothing it is a usage error, and nothing is written.
#[test]
fn backup_without_in_place_is_a_usage_error() {
    let (dir, page) = page();
    let copy = dir.path().join("copy.html");
    let (p, o) = (s(&page), s(&copy));
    let cases: [&[&str]; 6] = [
        &["-o", o],
        &["--list"],
        &["--check"],
        &["--dry-run"],
        &["--diff"],
        &[],
    ];
    for flags in cases {
        let mut args = vec![p, "--retrieved-from", "http://h/", "--backup", ".orig"];
        args.extend_from_slice(flags);
        let out = relink(&args, b"");
        assert_eq!(out.status.code(), Some(2), "{flags:?}: {}", stderr(&out));
        assert!(stderr(&out).contains("--backup"), "{flags:?}");
        assert!(!copy.exists(), "{flags:?}");
        assert!(!dir.path().join("p.html.orig").exists(), "{flags:?}");
    }
}

#[test]
fn short_i_rewrites_in_place() {
    let (_dir, page) = page();
    let out = relink(&["-i", s(&page), "--retrieved-from", "http://h/"], b"");
    assert_ok(&out);
    assert_eq!(
        std::fs::read_to_string(&page).unwrap(),
        "<a href=http://h/x>\n"
    );
}

#[test]
fn no_input_reads_standard_input_when_it_is_not_a_terminal() {
    let out = relink(&["--retrieved-from", "http://h/d/"], b"<a href=x>");
    assert_ok(&out);
    assert_eq!(out.stdout, b"<a href=http://h/d/x>");
}

#[test]
fn compare_rules_exits_1_when_it_reports_and_prints_no_document() {
    let base = "http://a/b/c/d;p?q";
    let out = relink(
        &["--retrieved-from", base, "--compare-rules"],
        b"<a href=\";x\">",
    );
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert_eq!(
        stdout(&out),
        "standard input:1:10: ';x' resolves differently: rfc1808 http://a/b/c/d;x, rfc3986 http://a/b/c/;x, whatwg http://a/b/c/;x\n"
    );
    let out = relink(
        &["--retrieved-from", base, "--compare-rules"],
        b"<a href=g>",
    );
    assert_ok(&out);
    assert!(out.stdout.is_empty());
    // In JSON: the link's row, with each rule set's result (null for none).
    let out = relink(
        &[
            "--retrieved-from",
            base,
            "--compare-rules",
            "--format",
            "json",
        ],
        b"<a href=g>\n<a href=\";x\"><a href='//['>",
    );
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let rows: Vec<serde_json::Value> = stdout(&out)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(rows.len(), 2, "{}", stdout(&out));
    assert_eq!(
        (&rows[0]["line"], &rows[0]["column"], &rows[0]["original"]),
        (
            &serde_json::json!(2),
            &serde_json::json!(10),
            &serde_json::json!(";x")
        )
    );
    assert_eq!(rows[0]["rfc1808"], "http://a/b/c/d;x");
    assert_eq!(rows[0]["whatwg"], "http://a/b/c/;x");
    assert_eq!(rows[1]["whatwg"], serde_json::Value::Null);
    // The summary, in JSON too, is still the last line of standard error.
    let summary: serde_json::Value = serde_json::from_str(&summary(&out)).unwrap();
    assert_eq!(summary["warnings"], 2);
}

#[test]
fn compare_rules_skips_absolute_urls_that_only_normalise_differently() {
    let page = b"<a href=\"https://json.org\"><a href=\"HTTP://A/b/../c\"><a href=x>";
    let out = relink(&["--retrieved-from", "http://h/", "--compare-rules"], page);
    assert_ok(&out);
    assert!(out.stdout.is_empty(), "{}", stdout(&out));
    // The base's scheme without `//` is relative to WHATWG: reported.
    let out = relink(
        &["--retrieved-from", "http://a/b/c/d", "--compare-rules"],
        b"<a href=\"http:g\">",
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(stdout(&out).contains("'http:g' resolves differently"));
}

/// `--check` means no relative link is left: a document with no base
/// fails it when it has a relative link (listed as written), and passes
/// with absolute links alone; on standard input too, read once.
#[test]
fn check_fails_on_relative_links_left_without_a_base() {
    let dir = tempfile::tempdir().unwrap();
    let site = dir.path().join("site");
    std::fs::create_dir(&site).unwrap();
    let page = site.join("a.html");
    std::fs::write(&page, "<a href=x>\n<a href=http://z/>\n<a href=y>\n").unwrap();
    let absolute = site.join("abs.html");
    std::fs::write(&absolute, "<a href=http://z/>\n").unwrap();
    let readme = dir.path().join("README.md");
    std::fs::write(&readme, "[a](x.md) ![i](i.png) [b](https://z/) [c]()\n").unwrap();

    let out = relink(&["--check", s(&readme)], b"");
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let want = format!("no base for {} (2 relative links left)\n", s(&readme));
    assert_eq!(stdout(&out), want);
    let out = relink(&[s(&site), "--check", "-v"], b"");
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let want = format!(
        "{0}:1:9: <a href> 'x' left: no base\n{0}:3:9: <a href> 'y' left: no base\n",
        s(&page)
    );
    assert_eq!(stdout(&out), want);
    // In JSON, each link left is a row with no base and no resolution.
    let out = relink(&[s(&page), "--check", "--format", "json"], b"");
    assert_eq!(out.status.code(), Some(1));
    let rows: Vec<serde_json::Value> = stdout(&out)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let originals: Vec<&str> = rows
        .iter()
        .map(|r| r["original"].as_str().unwrap())
        .collect();
    assert_eq!(originals, ["x", "y"]);
    assert!(
        rows.iter()
            .all(|r| r["resolved"].is_null() && r["base"].is_null())
    );
    // Standard input is checked as it is read.
    let out = relink(&["--check", "--type", "html"], b"<a href=x>");
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert_eq!(
        stdout(&out),
        "no base for standard input (1 relative link left)\n"
    );
    // Absolute links alone pass, base or none; and a base given passes
    // once nothing is left to rewrite.
    let out = relink(&[s(&absolute), "--check"], b"");
    assert_ok(&out);
    assert!(out.stdout.is_empty());
    // And --help says what --check means.
    let help = relink(&["--help"], b"");
    assert!(stdout(&help).contains("no relative link is left"));
}

/// `--list` on a document with no base lists every link as written, with
/// no resolution (null in JSON, empty in TSV) and the warning: "show me the
/// links of this page" never gives nothing.
#[test]
fn list_without_a_base_lists_every_link_unresolved() {
    let dir = tempfile::tempdir().unwrap();
    let page = dir.path().join("p.html");
    std::fs::write(
        &page,
        "<a href=a.html>a</a><img srcset=\"i.png 1x, http://h/j.png 2x\"><p style=\"background:url(k.png)\">",
    )
    .unwrap();
    let out = relink(&["--list", s(&page)], b"");
    assert_ok(&out);
    assert!(stderr(&out).contains("no base url"), "{}", stderr(&out));
    let lines: Vec<&str> = stdout(&out).lines().collect();
    assert_eq!(lines.len(), 4, "{}", stdout(&out));
    assert!(
        lines[0].ends_with(": <a href> a.html (no base)"),
        "{}",
        lines[0]
    );
    let out = relink(&["--list", "--format", "json", s(&page)], b"");
    let rows: Vec<serde_json::Value> = stdout(&out)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let originals: Vec<&str> = rows
        .iter()
        .map(|r| r["original"].as_str().unwrap())
        .collect();
    assert_eq!(originals, ["a.html", "i.png", "http://h/j.png", "k.png"]);
    assert!(
        rows.iter()
            .all(|r| r["resolved"].is_null() && r["base_from"] == "none")
    );
    let out = relink(&["--list", "--format", "tsv", s(&page)], b"");
    let header: Vec<&str> = stdout(&out).lines().next().unwrap().split('\t').collect();
    let column = header.iter().position(|k| *k == "resolved").unwrap();
    for line in stdout(&out).lines().skip(1) {
        assert_eq!(line.split('\t').nth(column), Some(""), "{line}");
    }
    // The document itself is not changed by listing or rewriting.
    let out = relink(&[s(&page)], b"");
    assert_eq!(out.stdout, std::fs::read(&page).unwrap());
}

/// `--check` as rustfmt and black mean it: exit 1 when a rewrite would
/// change a document, listing each link it would change and where.
#[test]
fn check_lists_what_a_rewrite_would_change_and_exits_1() {
    let (dir, page) = page();
    let absolute = dir.path().join("abs.html");
    std::fs::write(&absolute, "<a href=http://x/>").unwrap();
    let empty = dir.path().join("empty.html");
    std::fs::write(&empty, "<p>\n  <a href=\"\">top</a>").unwrap();
    let args = [
        s(&page),
        s(&absolute),
        s(&empty),
        "--retrieved-from",
        "http://h/d/",
    ];
    // One line a file; each link with --verbose.
    let out = relink(&[&args[..], &["--check"]].concat(), b"");
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert_eq!(
        stdout(&out),
        format!(
            "would rewrite {} (1 link)\nwould rewrite {} (1 link)\n",
            s(&page),
            s(&empty)
        )
    );
    let verbose = relink(&[&args[..], &["--check", "--verbose"]].concat(), b"");
    assert_eq!(verbose.status.code(), Some(1), "{}", stderr(&verbose));
    assert_eq!(
        stdout(&verbose),
        format!(
            "{}:1:9: <a href> 'x' -> http://h/d/x\n{}:2:12: <a href> '' -> http://h/d/\n",
            s(&page),
            s(&empty)
        )
    );
    // With --diff, as black and ruff allow: the diff too, and the status
    // of the check.
    let diff = relink(&[&args[..], &["--check", "--diff"]].concat(), b"");
    assert_eq!(diff.status.code(), Some(1), "{}", stderr(&diff));
    assert!(
        stdout(&diff).contains("+<a href=http://h/d/x>"),
        "{}",
        stdout(&diff)
    );
    assert!(stdout(&diff).contains(&format!("would rewrite {} (1 link)", s(&page))));
    assert_eq!(
        summary(&out),
        "relink: 3 files, 2 would change, 2 links would be rewritten, no warnings, no errors (nothing written)"
    );
    // Nothing was written.
    assert_eq!(std::fs::read_to_string(&page).unwrap(), "<a href=x>\n");
    // The same rows in JSON, as --list writes them.
    let out = relink(&[&args[..], &["--check", "--format", "json"]].concat(), b"");
    assert_eq!(out.status.code(), Some(1));
    let rows: Vec<serde_json::Value> = stdout(&out)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(rows.len(), 2);
    assert_eq!(rows[1]["file"], s(&empty));
    assert_eq!(
        (rows[1]["line"].as_u64(), rows[1]["column"].as_u64()),
        (Some(2), Some(12))
    );
    assert_eq!(rows[1]["original"], "");
    assert_eq!(rows[1]["resolved"], "http://h/d/");
    // A tree with nothing left to rewrite passes.
    let out = relink(
        &[s(&absolute), "--retrieved-from", "http://h/", "--check"],
        b"",
    );
    assert_ok(&out);
    assert!(out.stdout.is_empty());
}

#[test]
fn a_missing_input_named_like_a_subcommand_gets_a_hint() {
    let (_dir, page) = page();
    let out = relink(&["expain", s(&page)], b"");
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(err.contains("expain: no such file or directory"), "{err}");
    assert!(err.contains("did you mean `relink explain`?"), "{err}");
    assert!(!err.contains("several inputs"), "{err}");
    assert!(out.stdout.is_empty());
}

#[test]
fn a_missing_input_is_named_and_the_rest_are_done() {
    let (dir, page) = page();
    let missing = dir.path().join("gone.html");
    let out_dir = dir.path().join("out");
    let out = relink(
        &[
            s(&missing),
            s(&page),
            "-o",
            s(&out_dir),
            "--retrieved-from",
            "http://h/",
        ],
        b"",
    );
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(
        err.contains(&format!("{}: no such file or directory", s(&missing))),
        "{err}"
    );
    assert!(!err.contains("did you mean"), "{err}");
    assert_eq!(
        std::fs::read_to_string(out_dir.join("p.html")).unwrap(),
        "<a href=http://h/x>\n"
    );
}

#[test]
fn one_directory_without_output_names_it_and_the_choices() {
    let (dir, _page) = page();
    let out = relink(&[s(dir.path())], b"");
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(
        err.contains(&format!(
            "{} is a directory: give -o DIR to write a copy, or --in-place",
            s(dir.path())
        )),
        "{err}"
    );
}

#[test]
fn no_base_url_suggests_retrieved_from_once() {
    let (dir, page) = page();
    let other = dir.path().join("q.html");
    std::fs::write(&other, "<a href=y>").unwrap();
    let out = relink(&[s(&page), s(&other), "--dry-run"], b"");
    assert_ok(&out);
    let err = stderr(&out);
    assert_eq!(
        err.matches("no base url: links left as they are").count(),
        2
    );
    let hints: Vec<&str> = err
        .lines()
        .filter(|l| l.contains("--retrieved-from URL"))
        .collect();
    assert_eq!(hints.len(), 1, "{err}");
    assert!(hints[0].contains("2 documents have no base url"), "{err}");
}

#[test]
fn a_base_without_scheme_suggests_https() {
    let runs: [&[&str]; 3] = [
        &["-", "--retrieved-from", "example.com/x"],
        &["-", "--base", "example.com/x"],
        &["resolve", "example.com/x", "g"],
    ];
    for args in runs {
        let out = relink(args, b"<a href=y>");
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = stderr(&out);
        assert!(err.contains("did you mean https://example.com/x?"), "{err}");
    }
    // A path is no host name: no https: guess.
    let out = relink(&["resolve", "a/b", "g"], b"");
    assert!(!stderr(&out).contains("https://"), "{}", stderr(&out));
}

/// The last line of standard error: the summary.
fn summary(out: &Output) -> String {
    stderr(out).lines().last().unwrap_or_default().to_owned()
}

#[test]
fn the_summary_speaks_english() {
    let (dir, page) = page();
    let other = dir.path().join("q.html");
    std::fs::write(&other, "<a href=http://x/>").unwrap();
    let args = [s(&page), "--retrieved-from", "http://h/"];
    let out = relink(&args, b"");
    assert_eq!(
        summary(&out),
        "relink: 1 file, 1 changed, 1 link rewritten, no warnings, no errors"
    );
    let out = relink(
        &[s(&page), s(&other), "-i", "--retrieved-from", "http://h/"],
        b"",
    );
    assert_eq!(
        summary(&out),
        "relink: 2 files, 1 changed, 1 link rewritten, no warnings, no errors"
    );
    let out = relink(&[s(&page), s(&other), "-q", "--dry-run"], b"");
    assert_ok(&out);
    assert!(!stderr(&out).contains("files"), "{}", stderr(&out));
}

#[test]
fn a_file_is_changed_only_once_it_is_written() {
    for mode in ["--dry-run", "--diff", "--list"] {
        let (_dir, page) = page();
        let out = relink(&[s(&page), "--retrieved-from", "http://h/", mode], b"");
        assert_ok(&out);
        assert_eq!(
            summary(&out),
            "relink: 1 file, 1 would change, 1 link would be rewritten, no warnings, no errors (nothing written)",
            "{mode}"
        );
    }
    let (dir, page) = page();
    let unchanged = dir.path().join("abs.html");
    std::fs::write(&unchanged, "<a href=http://x/>").unwrap();
    let out = relink(
        &[
            s(&page),
            s(&unchanged),
            "--retrieved-from",
            "http://h/",
            "-o",
        ],
        b"",
    );
    assert_eq!(out.status.code(), Some(2), "-o needs its PATH");
    let out_dir = dir.path().join("out");
    let out = relink(
        &[
            s(&page),
            s(&unchanged),
            "--retrieved-from",
            "http://h/",
            "-o",
            s(&out_dir),
        ],
        b"",
    );
    assert!(
        summary(&out).contains("2 files, 1 changed,"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn format_json_gives_the_summary_as_one_object() {
    let (dir, page) = page();
    let other = dir.path().join("q.html");
    std::fs::write(&other, "<a href=a><a href=b>").unwrap();
    let run = |extra: &str| {
        let out = relink(
            &[
                s(&page),
                s(&other),
                "--retrieved-from",
                "http://h/",
                "--format",
                "json",
                extra,
            ],
            b"",
        );
        assert_ok(&out);
        serde_json::from_str::<serde_json::Value>(&summary(&out)).unwrap()
    };
    let dry = run("--dry-run");
    assert_eq!(
        dry,
        serde_json::json!({"files": 2, "changed": 0, "would_change": 2,
            "links_rewritten": 3, "warnings": 0, "errors": 0, "no_base": 0})
    );
    let done = run("-i");
    assert_eq!(
        (done["changed"].as_u64(), done["would_change"].as_u64()),
        (Some(2), Some(0))
    );
    // Listing keeps JSON for the rows on standard output.
    let listed = relink(
        &[
            s(&page),
            "--list",
            "--format",
            "json",
            "--retrieved-from",
            "http://h/",
        ],
        b"",
    );
    let row: serde_json::Value =
        serde_json::from_slice(listed.stdout.split(|&b| b == b'\n').next().unwrap()).unwrap();
    assert_eq!(row["resolved"], "http://h/x");
}

#[test]
fn the_manual_has_examples_and_exit_status_and_no_missing_pages() {
    let out = relink(&["man"], b"");
    assert_ok(&out);
    let man = stdout(&out);
    assert!(man.contains(".SH EXAMPLES"), "{man}");
    assert!(man.contains(".SH \"EXIT STATUS\""), "{man}");
    assert!(man.contains("relink resolve"), "{man}");
    assert!(!man.contains("relink\\-resolve(1)"), "{man}");
    assert!(!man.contains("(1)"), "{man}");
}

/// Runs `relink` with standard output a pipe whose reading end is closed
/// at once, as `relink ... | head -c 0` leaves it.
fn with_stdout_closed(args: &[&str]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_relink"))
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("relink runs");
    drop(child.stdout.take());
    child.wait_with_output().unwrap()
}

/// A closed standard output (`| head`) ends every mode quietly: exit 0,
/// nothing on standard error. Each output is larger than a pipe holds, so
/// relink meets the closed pipe whenever it starts writing.
#[test]
fn a_closed_pipe_ends_every_mode_quietly() {
    let dir = tempfile::tempdir().unwrap();
    let page = dir.path().join("big.html");
    std::fs::write(&page, "<a href=\";x\">link</a>\n".repeat(20_000)).unwrap();
    let mbox = dir.path().join("big.mbox");
    let message = "From a@b Mon Jan  1 00:00:00 2024\nContent-Type: text/html\n\n<a href=x>\n\n";
    std::fs::write(&mbox, message.repeat(5_000)).unwrap();
    let warc = crate::fixture("corpus/warc/python-tutorial.warc.gz");
    let from = "http://a/b/c/d;p?q";
    let runs: Vec<Vec<&str>> = vec![
        vec![s(&page), "--retrieved-from", from],
        vec![s(&mbox), "--retrieved-from", from],
        vec![s(&warc)],
        vec![s(&warc), "--list", "--format", "json"],
        vec![s(&page), "--list", "--retrieved-from", from],
        vec![s(&page), "--diff", "--retrieved-from", from],
        vec!["explain", s(&mbox)],
        vec!["man"],
        vec!["completions", "bash"],
        vec!["--help"],
    ];
    for args in runs {
        let out = with_stdout_closed(&args);
        // A check that found what it writes keeps its status: 1.
        let check = args.contains(&"--check") || args.contains(&"--compare-rules");
        let status = if check { 1 } else { 0 };
        assert_eq!(
            out.status.code(),
            Some(status),
            "{args:?}: {}",
            stderr(&out)
        );
        assert_eq!(stderr(&out), "", "{args:?}");
    }
    // relink resolve, answering many references.
    let refs: Vec<String> = (0..20_000).map(|n| format!("g{n}")).collect();
    let mut args = vec!["resolve", from];
    args.extend(refs.iter().map(String::as_str));
    let out = with_stdout_closed(&args);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(stderr(&out), "");
}

/// `--check`, `--compare-rules` and `--strict` exit with their status
/// when standard output is closed early (`set -o pipefail; relink --check
/// ... | head`): what the first two write is what they found, and
/// `--strict` reads every input on, its output dropped.
#[test]
fn a_closed_pipe_keeps_the_status_of_the_checks() {
    let dir = tempfile::tempdir().unwrap();
    let page = dir.path().join("big.html");
    std::fs::write(&page, "<a href=\";x\">link</a>\n".repeat(20_000)).unwrap();
    // A page with a base, more rows than a pipe holds, then one without.
    let based_page = dir.path().join("a.html");
    let links = "<a href=\";x\">link</a>\n".repeat(20_000);
    std::fs::write(&based_page, format!("<base href=http://h/>{links}")).unwrap();
    let bare = dir.path().join("b.html");
    std::fs::write(&bare, "<p>no base</p>").unwrap();
    // An mbox whose last message has no base, after more than a pipe holds.
    let mbox = dir.path().join("big.mbox");
    let message = "From a@b Mon Jan  1 00:00:00 2024\nContent-Type: text/html\n";
    let based = format!("{message}Content-Location: http://h/m\n\n<a href=x>\n\n");
    let last = format!("{message}\n<a href=x>\n\n");
    std::fs::write(&mbox, based.repeat(5_000) + &last).unwrap();
    let from = "http://a/b/c/d;p?q";
    let runs: Vec<Vec<&str>> = vec![
        vec![s(&page), "--check", "--retrieved-from", from],
        vec![
            s(&page),
            "--check",
            "--format",
            "json",
            "--retrieved-from",
            from,
        ],
        vec![s(&page), "--compare-rules", "--retrieved-from", from],
        vec![s(&based_page), s(&bare), "--list", "--strict", "-j", "1"],
        vec![s(&mbox), "--strict"],
    ];
    for args in runs {
        let out = with_stdout_closed(&args);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {}", stderr(&out));
    }
    // Nothing found: still 0.
    let out = with_stdout_closed(&[s(&based_page), "--list", "--strict"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
}

#[test]
fn output_under_a_missing_directory_names_the_path_given() {
    let (dir, page) = page();
    let target = dir.path().join("newdir/out.html");
    let out = relink(
        &[s(&page), "--retrieved-from", "http://h/", "-o", s(&target)],
        b"",
    );
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(
        err.contains(&format!(
            "relink: error: {}: cannot write {}: no such directory: {}",
            s(&page),
            s(&target),
            s(&dir.path().join("newdir"))
        )),
        "{err}"
    );
    // Never a temporary file's name, and a summary that agrees.
    assert!(!err.contains(".relink-"), "{err}");
    assert_eq!(
        summary(&out),
        "relink: 1 file, 0 changed, no links rewritten, no warnings, 1 error"
    );
    assert!(!dir.path().join("newdir").exists());
}

#[test]
fn output_into_a_device_writes_into_it() {
    let (_dir, page) = page();
    let out = relink(
        &[s(&page), "--retrieved-from", "http://h/", "-o", "/dev/null"],
        b"",
    );
    assert_ok(&out);
    assert_eq!(
        summary(&out),
        "relink: 1 file, 1 changed, 1 link rewritten, no warnings, no errors"
    );
    use std::os::unix::fs::FileTypeExt;
    assert!(
        std::fs::metadata("/dev/null")
            .unwrap()
            .file_type()
            .is_char_device()
    );
    // An archive, streamed, goes into it too.
    let warc = crate::fixture("warc/site.warc.gz");
    assert_ok(&relink(&[s(&warc), "-o", "/dev/null"], b""));
}

#[test]
fn strict_makes_a_warning_fail_the_run() {
    let (_dir, page) = page();
    // No base: a warning, and the summary counts the document left.
    let out = relink(&[s(&page)], b"");
    assert_ok(&out);
    assert_eq!(
        summary(&out),
        "relink: 1 file, 0 changed, 1 document left without a base url, no links rewritten, 1 warning, no errors"
    );
    let out = relink(&[s(&page), "--strict"], b"");
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert_eq!(out.stdout, b"<a href=x>\n");
    // Without warnings, --strict changes nothing.
    let out = relink(
        &[s(&page), "--strict", "--retrieved-from", "http://h/"],
        b"",
    );
    assert_ok(&out);
}

#[test]
fn every_message_is_relink_error_or_warning() {
    let (dir, page) = page();
    // clap's usage errors, in relink's words.
    let out = relink(&["--no-such-flag"], b"");
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).starts_with("relink: error: unexpected argument '--no-such-flag'"),
        "{}",
        stderr(&out)
    );
    let out = relink(&[s(&page), "--list", "--diff"], b"");
    assert!(
        stderr(&out).starts_with("relink: error: "),
        "{}",
        stderr(&out)
    );
    // relink's own.
    let gone = dir.path().join("gone.html");
    let out = relink(&[s(&gone), "--retrieved-from", "http://h/"], b"");
    assert!(
        stderr(&out).starts_with(&format!("relink: error: {}: no such file", s(&gone))),
        "{}",
        stderr(&out)
    );
    let out = relink(&[s(&page)], b"");
    assert!(
        stderr(&out).starts_with(&format!("relink: warning: {}: no base url", s(&page))),
        "{}",
        stderr(&out)
    );
    // --help and --version are no errors.
    let out = relink(&["--version"], b"");
    assert_ok(&out);
    assert!(stdout(&out).starts_with("relink "));
}

#[test]
fn a_path_given_as_a_base_suggests_its_file_url() {
    let dir = tempfile::tempdir().unwrap();
    let library = dir.path().join("library");
    std::fs::create_dir(&library).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_relink"))
        .args(["resolve", "./library/", "g"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let want = url::Url::from_directory_path(library.canonicalize().unwrap()).unwrap();
    let err = stderr(&out);
    assert!(err.contains(&format!("did you mean {want}?")), "{err}");
    assert!(!err.contains("https://"), "{err}");
    let out = relink(&["-", "--retrieved-from", "/srv/www/page.html"], b"");
    assert!(
        stderr(&out).contains("did you mean file:///srv/www/page.html?"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn a_page_url_given_for_a_directory_warns() {
    let (dir, _page) = page();
    let out_dir = dir.path().join("out");
    let args = [s(dir.path()), "-o", s(&out_dir), "--retrieved-from"];
    let out = relink(&[&args[..], &["https://h/docs/index.html"]].concat(), b"");
    assert_ok(&out);
    let err = stderr(&out);
    assert!(
        err.contains(&format!(
            "relink: warning: --retrieved-from https://h/docs/index.html names a page, but {} is a directory: its files get URLs below it (https://h/docs/index.html/index.html); give the directory's URL, https://h/docs/",
            s(dir.path())
        )),
        "{err}"
    );
    assert!(summary(&out).contains("1 warning"), "{err}");
    // A directory's URL, with or without its slash, is no page.
    for url in ["https://h/docs/", "https://h/docs", "https://h"] {
        let out = relink(&[&args[..], &[url]].concat(), b"");
        assert!(
            !stderr(&out).contains("names a page"),
            "{url}: {}",
            stderr(&out)
        );
    }
}

#[test]
fn help_and_manual_name_web_archives() {
    let help = relink(&["--help"], b"");
    assert!(stdout(&help).contains("WARC"), "{}", stdout(&help));
    assert!(stdout(&help).contains("relink crawl.warc.gz -o crawl.abs.warc.gz"));
    let short = relink(&["-h"], b"");
    assert!(stdout(&short).contains("WARC web archives"));
    let man = relink(&["man"], b"");
    let man = stdout(&man);
    let description = &man[man.find(".SH DESCRIPTION").unwrap()..man.find(".SH OPTIONS").unwrap()];
    assert!(description.contains("WARC"), "{description}");
    assert!(
        man.contains("relink crawl.warc.gz \\-\\-list \\-\\-format json"),
        "{man}"
    );
    // The resolve example is quoted: a shell reads `;` and `?` itself.
    assert!(
        man.contains("relink resolve 'http://a/b/c/d;p?q' ../g"),
        "{man}"
    );
    assert!(!man.contains("resolve http://a/b/c/d;p?q"), "{man}");
}

/// `--help` and the manual's description name every kind of the kind
/// table, by the words a user looks for.
#[test]
fn help_and_manual_name_every_kind() {
    let words = |name: &str| -> &[&str] {
        match name {
            "html" => &["HTML"],
            "css" => &["CSS"],
            "message" => &["message", "MHTML"],
            "mbox" => &["mbox", "Maildir"],
            "warc" => &["WARC", "ARC"],
            "wacz" => &["WACZ"],
            "xml" => &["XML", "feed", "SVG", "XHTML"],
            "markdown" => &["Markdown"],
            "rst" => &["reStructuredText"],
            "sitemap" => &["sitemap", "OPML"],
            "robots" => &["robots.txt"],
            "notebook" => &["Jupyter"],
            "epub" => &["EPUB"],
            other => panic!("kind {other} has no words here: add them"),
        }
    };
    let help = stdout(&relink(&["--help"], b"")).to_string();
    let man = stdout(&relink(&["man"], b"")).to_string();
    let description = &man[man.find(".SH DESCRIPTION").unwrap()..man.find(".SH OPTIONS").unwrap()];
    for entry in relink::Kind::entries() {
        for word in words(entry.name) {
            assert!(help.contains(word), "--help does not name {word}");
            assert!(
                description.contains(word),
                "the manual does not name {word}"
            );
        }
    }
}

#[test]
fn no_progress_bar_is_drawn_off_a_terminal() {
    let archive = crate::fixture("mail/archive.mboxrd");
    // Standard error is a pipe here: only the summary, no bar drawn.
    let (_dir, page) = page();
    let out = relink(&[s(&page), s(&archive), "--dry-run"], b"");
    assert!(!out.stderr.contains(&b'\r') && !out.stderr.contains(&0x1b));
}

/// The exit status of `--check` is its own when standard output closes
/// early (`set -o pipefail; relink --check DIR | head -1`): links would
/// change, so it fails.
#[test]
fn check_fails_when_standard_output_closes_early() {
    use std::io::Read;
    use std::process::{Command, Stdio};
    let dir = tempfile::tempdir().unwrap();
    for i in 0..200 {
        let page = format!("<a href=x{i}>a</a>\n").repeat(50);
        std::fs::write(dir.path().join(format!("p{i}.html")), page).unwrap();
    }
    let mut child = Command::new(env!("CARGO_BIN_EXE_relink"))
        .args(["--check", "-q", "-j", "1", "--retrieved-from", "http://a/"])
        .arg(dir.path())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdout = child.stdout.take().unwrap();
    let mut first = [0u8; 64];
    stdout.read_exact(&mut first).unwrap();
    drop(stdout);
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(1), "{status:?}");
}

/// `--diff` is coloured as `--color` says: `always` even off a terminal
/// and with `NO_COLOR` set, `never` not; by default, not off a terminal.
#[test]
fn color_decides_whether_the_diff_is_coloured() {
    let (_dir, page) = page();
    let args = [s(&page), "--diff", "--retrieved-from", "http://h/"];
    let red = "\x1b[31m-<a href=x>\x1b[0m\n";
    let always = Command::new(env!("CARGO_BIN_EXE_relink"))
        .args(args)
        .args(["--color", "always"])
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    assert!(stdout(&always).contains(red), "{}", stdout(&always));
    assert!(stdout(&always).contains("\x1b[32m+<a href=http://h/x>\x1b[0m\n"));
    for extra in [&["--color", "never"][..], &[]] {
        let out = relink(&[&args[..], extra].concat(), b"");
        assert_ok(&out);
        assert!(stdout(&out).contains("-<a href=x>\n"), "{extra:?}");
        assert!(!stdout(&out).contains('\x1b'), "{extra:?}");
    }
    let bad = relink(&[&args[..], &["--color", "sometimes"]].concat(), b"");
    assert_eq!(bad.status.code(), Some(2));
}
