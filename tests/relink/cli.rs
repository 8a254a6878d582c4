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
    child.stdin.take().unwrap().write_all(stdin).unwrap();
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

/// The README's library example, kept honest.
#[test]
fn the_readme_library_example_runs() -> Result<(), relink::Error> {
    use relink::base::{Base, BaseSource};
    use relink::document::{Options, rewrite_html};
    use relink::url::{BaseUrl, Rules};

    let base = BaseUrl::parse("http://www.ics.uci.edu/Test/a/b/c", Rules::Rfc1808)?;
    assert_eq!(base.resolve("../x")?, "http://www.ics.uci.edu/Test/a/x");
    let retrieved = Base::new(
        BaseUrl::parse("http://h/d/", Rules::Rfc1808)?,
        BaseSource::RetrievedFrom,
    );
    let options = Options {
        outer: Some(&retrieved),
        ..Options::default()
    };
    let outcome = rewrite_html(b"<a href=x>", &options)?;
    assert_eq!(outcome.output.unwrap(), b"<a href=http://h/d/x>");
    Ok(())
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
        text.contains("\timg\tdata-src\timg/photo.jpg\thttp://example.org/news/img/photo.jpg\t"),
        "{text}"
    );
    let bad = relink(&[page, "--attr", "data-src=css"], b"");
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("data-src=css"));
}
