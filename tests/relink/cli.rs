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
    assert_eq!(stdout(&out), "http://a/g\n");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("http://[x"), "{err}");
}

#[test]
fn resolve_reports_a_line_that_is_not_utf8() {
    let out = relink(&["resolve", "http://a/b"], b"\xff\nc\n");
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(stdout(&out), "http://a/c\n");
    assert!(String::from_utf8_lossy(&out.stderr).contains("line 1"));
}

#[test]
fn resolve_rejects_a_base_without_scheme_as_usage_error() {
    let out = relink(&["resolve", "a/b", "g"], b"");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("'a/b'"));
}
