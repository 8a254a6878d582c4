//! The command line at scale, run as a user would: many files and
//! mirrors, safe in-place edits, reports, and exit statuses.

use std::path::{Path, PathBuf};

use crate::cli::relink;

mod faults;
mod files;
use crate::{files_under, make_old};

pub fn write(path: &Path, text: &[u8]) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

pub fn s(path: &Path) -> &str {
    path.to_str().unwrap()
}

/// A small saved site: nested directories, a name with a space, an image.
fn site(root: &Path) -> PathBuf {
    let site = root.join("site");
    write(
        &site.join("index.html"),
        b"<a href=\"docs/a.html\">docs</a>\n",
    );
    write(
        &site.join("docs/a.html"),
        b"<a href=\"../index.html\">up</a> <img src=\"img/p.png\">\n",
    );
    write(
        &site.join("docs/my page.html"),
        b"<a href=\"#top\">top</a> <a href=\"x;y\">x</a>\n",
    );
    write(&site.join("docs/img/p.png"), b"\x89PNG\r\n\x1a\n<a href=x>");
    write(
        &site.join("style/s.css"),
        b"body { background: url(../docs/img/p.png) }\n",
    );
    site
}

pub fn read(path: &Path) -> String {
    String::from_utf8(std::fs::read(path).unwrap()).unwrap()
}

#[test]
fn a_mirror_gives_each_file_its_own_url() {
    let dir = tempfile::tempdir().unwrap();
    let site = site(dir.path());
    let out_dir = dir.path().join("out");
    let out = relink(
        &[
            s(&site),
            "--retrieved-from",
            "https://example.com/root/",
            "-o",
            s(&out_dir),
        ],
        b"",
    );
    crate::cli::assert_ok(&out);
    assert_eq!(
        read(&out_dir.join("index.html")),
        "<a href=\"https://example.com/root/docs/a.html\">docs</a>\n"
    );
    assert_eq!(
        read(&out_dir.join("docs/a.html")),
        "<a href=\"https://example.com/root/index.html\">up</a> <img src=\"https://example.com/root/docs/img/p.png\">\n"
    );
    // The file's own URL, percent-encoded, is its base: `#top` is this page.
    assert_eq!(
        read(&out_dir.join("docs/my page.html")),
        "<a href=\"https://example.com/root/docs/my%20page.html#top\">top</a> <a href=\"https://example.com/root/docs/x;y\">x</a>\n"
    );
    assert_eq!(
        read(&out_dir.join("style/s.css")),
        "body { background: url(https://example.com/root/docs/img/p.png) }\n"
    );
    // Files relink does not read are copied as they are.
    assert_eq!(
        std::fs::read(out_dir.join("docs/img/p.png")).unwrap(),
        std::fs::read(site.join("docs/img/p.png")).unwrap()
    );
    // The source is untouched.
    assert_eq!(
        read(&site.join("index.html")),
        "<a href=\"docs/a.html\">docs</a>\n"
    );
}

#[test]
fn a_single_file_keeps_the_url_as_given() {
    let dir = tempfile::tempdir().unwrap();
    let site = site(dir.path());
    let out = relink(
        &[
            s(&site.join("docs/a.html")),
            "--retrieved-from",
            "https://example.com/elsewhere/",
        ],
        b"",
    );
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        "<a href=\"https://example.com/index.html\">up</a> <img src=\"https://example.com/elsewhere/img/p.png\">\n"
    );
}

#[test]
fn in_place_leaves_unchanged_files_alone() {
    let dir = tempfile::tempdir().unwrap();
    let site = site(dir.path());
    write(&site.join("absolute.html"), b"<a href=\"http://x/\">x</a>");
    let old = make_old(&site.join("absolute.html"));
    make_old(&site.join("docs/a.html"));
    let out = relink(
        &[
            s(&site),
            "--retrieved-from",
            "https://e.com/",
            "--in-place",
            "-q",
        ],
        b"",
    );
    assert!(out.status.success());
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mtime = |name: &str| {
        std::fs::metadata(site.join(name))
            .unwrap()
            .modified()
            .unwrap()
    };
    assert_eq!(mtime("absolute.html"), old);
    assert_ne!(mtime("docs/a.html"), old);
    assert!(read(&site.join("docs/a.html")).contains("https://e.com/index.html"));
}

#[test]
fn backup_keeps_the_originals() {
    let dir = tempfile::tempdir().unwrap();
    let page = dir.path().join("p.html");
    write(&page, b"<a href=x>");
    let out = relink(
        &[
            s(&page),
            "--retrieved-from",
            "http://h/",
            "--in-place",
            "--backup",
            ".orig",
        ],
        b"",
    );
    assert!(out.status.success());
    assert_eq!(read(&page), "<a href=http://h/x>");
    assert_eq!(read(&dir.path().join("p.html.orig")), "<a href=x>");
}

#[test]
fn one_unreadable_file_fails_and_the_rest_are_rewritten() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (dir.path().join("a.html"), dir.path().join("b.html"));
    write(&a, b"<a href=x>");
    write(&b, b"<a href=y>");
    let missing = dir.path().join("missing.html");
    let out = relink(
        &[
            s(&a),
            s(&missing),
            s(&b),
            "--in-place",
            "--retrieved-from",
            "http://h/",
        ],
        b"",
    );
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(read(&a), "<a href=http://h/x>");
    assert_eq!(read(&b), "<a href=http://h/y>");
    let stderr = String::from_utf8_lossy(&out.stderr);
    let errors: Vec<&str> = stderr
        .lines()
        .filter(|l| l.contains("missing.html"))
        .collect();
    assert_eq!(errors.len(), 1, "{stderr}");
    assert!(stderr.contains("1 error"), "{stderr}");
}

#[test]
fn list_rows_come_in_three_formats() {
    let dir = tempfile::tempdir().unwrap();
    let site = site(dir.path());
    let args = [
        s(&site),
        "--retrieved-from",
        "https://e.com/r/",
        "--list",
        "--format",
    ];
    let json = relink(&[&args[..], &["json"]].concat(), b"");
    assert!(json.status.success());
    let rows: Vec<serde_json::Value> = String::from_utf8(json.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON row"))
        .collect();
    assert_eq!(rows.len(), 6);
    let row = rows
        .iter()
        .find(|r| r["original"] == "../index.html")
        .unwrap();
    assert_eq!(row["resolved"], "https://e.com/r/index.html");
    assert_eq!(row["base"], "https://e.com/r/docs/a.html");
    assert_eq!(row["base_from"], "--retrieved-from");
    assert_eq!(row["element"], "a");
    assert_eq!(row["attribute"], "href");
    assert_eq!(row["line"], 1);
    assert!(row["file"].as_str().unwrap().ends_with("a.html"));

    let tsv = String::from_utf8(relink(&[&args[..], &["tsv"]].concat(), b"").stdout).unwrap();
    let lines: Vec<&str> = tsv.lines().collect();
    assert_eq!(lines.len(), 7);
    // The columns are the JSON keys, in the JSON order, and each value is
    // the JSON one (empty for null).
    let json = String::from_utf8(relink(&[&args[..], &["json"]].concat(), b"").stdout).unwrap();
    let header: Vec<&str> = lines[0].split('\t').collect();
    for (line, object) in lines.iter().skip(1).zip(json.lines()) {
        let object: serde_json::Map<String, serde_json::Value> =
            serde_json::from_str(object).unwrap();
        assert_eq!(
            header,
            object.keys().map(String::as_str).collect::<Vec<_>>()
        );
        let values: Vec<String> = object
            .values()
            .map(|v| match v {
                serde_json::Value::Null => String::new(),
                serde_json::Value::String(s) => s.clone(),
                other => other.to_string(),
            })
            .collect();
        assert_eq!(line.split('\t').collect::<Vec<_>>(), values);
    }

    let text = String::from_utf8(relink(&[&args[..], &["text"]].concat(), b"").stdout).unwrap();
    assert!(text.contains("<a href> ../index.html -> https://e.com/r/index.html (base https://e.com/r/docs/a.html from --retrieved-from)"), "{text}");
    // Nothing was written.
    assert_eq!(
        read(&site.join("index.html")),
        "<a href=\"docs/a.html\">docs</a>\n"
    );
}

#[test]
fn list_names_the_mail_part_and_the_header_base() {
    let eml = crate::fixture("mail/rfc822-nested.eml");
    let out = relink(&[s(&eml), "--list", "--format", "json"], b"");
    let rows: Vec<serde_json::Value> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let inner = rows.iter().find(|r| r["original"] == "story.html").unwrap();
    assert_eq!(inner["part"], "2");
    assert_eq!(inner["base_from"], "Content-Base of part 2");
    let outer = rows.iter().find(|r| r["original"] == "after.html").unwrap();
    assert_eq!(outer["base_from"], "Content-Base of the message");
}

#[test]
fn one_and_two_threads_give_the_same_results() {
    let dir = tempfile::tempdir().unwrap();
    let site = site(dir.path());
    for i in 0..20 {
        write(
            &site.join(format!("many/p{i}.html")),
            format!("<a href=\"../docs/{i}.html\">{i}</a>").as_bytes(),
        );
    }
    let mut trees = Vec::new();
    let mut lists = Vec::new();
    for j in ["1", "2"] {
        let out_dir = dir.path().join(format!("out{j}"));
        let out = relink(
            &[
                s(&site),
                "--retrieved-from",
                "https://e.com/",
                "-o",
                s(&out_dir),
                "-j",
                j,
            ],
            b"",
        );
        assert!(out.status.success());
        trees.push(files_under(&out_dir));
        let list = relink(
            &[
                s(&site),
                "--retrieved-from",
                "https://e.com/",
                "--list",
                "-j",
                j,
            ],
            b"",
        );
        lists.push(list.stdout);
    }
    assert_eq!(trees[0], trees[1]);
    assert_eq!(lists[0], lists[1]);
    assert_eq!(trees[0].len(), 25);
}

#[test]
fn base_is_forced_above_every_layer() {
    let out = relink(
        &[
            "-",
            "--base",
            "http://forced/d/",
            "--retrieved-from",
            "http://r/",
        ],
        b"<base href=\"http://wrong/\"><a href=x>",
    );
    assert_eq!(
        out.stdout,
        b"<base href=\"http://wrong/\"><a href=http://forced/d/x>"
    );
}

#[test]
fn rules_reach_every_document() {
    let dir = tempfile::tempdir().unwrap();
    let site = site(dir.path());
    let out_dir = dir.path().join("out");
    let out = relink(
        &[
            s(&site),
            "--retrieved-from",
            "https://e.com/",
            "--rules",
            "whatwg",
            "-o",
            s(&out_dir),
        ],
        b"",
    );
    assert!(out.status.success());
    // WHATWG resolves `x;y` as a path, as RFC 1808 does here; `#top`
    // against a URL with a space gives the percent-encoded form.
    assert!(
        read(&out_dir.join("docs/my page.html")).contains("https://e.com/docs/my%20page.html#top")
    );
    let out = relink(
        &[
            "-",
            "--rules",
            "rfc3986",
            "--retrieved-from",
            "http://a/b/c/d;p?q",
        ],
        b"<a href=\";x\">",
    );
    assert_eq!(out.stdout, b"<a href=\"http://a/b/c/;x\">");
}

#[test]
fn fragment_links_can_be_kept() {
    let out = relink(
        &[
            "-",
            "--retrieved-from",
            "http://h/p.html",
            "--keep-fragment-links",
        ],
        b"<a href=\"#s\"><a href=t>",
    );
    assert_eq!(out.stdout, b"<a href=\"#s\"><a href=http://h/t>");
}

#[test]
fn explain_shows_each_layer_and_the_one_used() {
    let page = crate::fixture("html/two-bases.html");
    let out = relink(
        &[
            "explain",
            s(&page),
            "--retrieved-from",
            "http://example.org/page.html",
        ],
        b"",
    );
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("the BASE element at line 3: http://first.example/a/ (gives the base)"),
        "{text}"
    );
    assert!(
        text.contains("--retrieved-from: http://example.org/page.html (below the one used)"),
        "{text}"
    );

    let mhtml = crate::fixture("mail/chrome.mhtml");
    let text = String::from_utf8(relink(&["explain", s(&mhtml)], b"").stdout).unwrap();
    assert!(text.contains("part 3 (text/css)"), "{text}");
    assert!(text.contains("Content-Location of part 3: cid:css-1@mhtml.blink (ignored: a cid: or mid: location names the part)"), "{text}");
    assert!(text.contains("Snapshot-Content-Location of the message: http://example.com/blog/post.html (gives the base)"), "{text}");
}

#[test]
fn compare_rules_reports_where_the_rule_sets_disagree() {
    let out = relink(
        &[
            "-",
            "--retrieved-from",
            "http://a/b/c/d;p?q",
            "--compare-rules",
        ],
        b"<a href=\";x\"><a href=\"g\">",
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    let warnings: Vec<&str> = stdout
        .lines()
        .filter(|l| l.contains("resolves differently"))
        .collect();
    assert_eq!(warnings.len(), 1, "{stdout}");
    assert!(warnings[0].contains("rfc1808 http://a/b/c/d;x"));
    assert!(warnings[0].contains("whatwg http://a/b/c/;x"));
}

#[test]
fn diff_and_dry_run_change_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let page = dir.path().join("p.html");
    write(&page, b"<p>\n<a href=x>\n</p>\n");
    let out = relink(&[s(&page), "--retrieved-from", "http://h/", "--diff"], b"");
    assert!(out.status.success());
    let diff = String::from_utf8(out.stdout).unwrap();
    assert!(
        diff.contains("-<a href=x>\n+<a href=http://h/x>\n"),
        "{diff}"
    );
    assert!(diff.contains("+++ b/"), "{diff}");
    assert_eq!(read(&page), "<p>\n<a href=x>\n</p>\n");
    let out = relink(
        &[s(&page), "--retrieved-from", "http://h/", "--dry-run"],
        b"",
    );
    assert!(out.stdout.is_empty());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("1 file, 1 would change, 1 link would be rewritten")
            && stderr.contains("nothing written"),
        "{stderr}"
    );
    assert_eq!(read(&page), "<p>\n<a href=x>\n</p>\n");
}

#[test]
fn usage_errors_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let site = site(dir.path());
    let out = relink(&[s(&site), "--retrieved-from", "https://e.com/"], b"");
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("is a directory: give -o DIR to write a copy, or --in-place"),
        "{stderr}"
    );
    assert_eq!(
        relink(&["--backup", ".b", "x.html"], b"").status.code(),
        Some(2)
    );
    assert_eq!(
        relink(&["x.html", "--retrieved-from", "not absolute"], b"")
            .status
            .code(),
        Some(2)
    );
}

#[test]
fn completions_and_manual_are_printed() {
    let bash = relink(&["completions", "bash"], b"");
    assert!(bash.status.success());
    assert!(String::from_utf8_lossy(&bash.stdout).contains("--retrieved-from"));
    let man = relink(&["man"], b"");
    assert!(man.status.success());
    assert!(String::from_utf8_lossy(&man.stdout).contains(".TH relink"));
}

/// Names of the files below `root`, sorted.
fn names_under(root: &Path) -> Vec<String> {
    files_under(root).into_iter().map(|(n, _)| n).collect()
}

#[test]
fn a_second_in_place_run_neither_reads_backups_nor_replaces_them() {
    let dir = tempfile::tempdir().unwrap();
    let site = dir.path().join("site");
    write(&site.join("page.html"), b"<a href=x>");
    write(&site.join("sub/other.html"), b"<img src=y.png>");
    let run = |from: &str| {
        relink(
            &[
                s(&site),
                "-i",
                "--backup",
                ".orig",
                "--retrieved-from",
                from,
            ],
            b"",
        )
    };
    crate::cli::assert_ok(&run("http://h/"));
    assert_eq!(
        names_under(&site),
        [
            "page.html",
            "page.html.orig",
            "sub/other.html",
            "sub/other.html.orig"
        ]
    );
    // A second run that changes a file again (here one edited by hand
    // since): the backups are not read, and the one that exists is kept.
    write(&site.join("page.html"), b"<a href=z>");
    let out = run("http://other/");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        names_under(&site),
        [
            "page.html",
            "page.html.orig",
            "sub/other.html",
            "sub/other.html.orig"
        ]
    );
    assert_eq!(read(&site.join("page.html")), "<a href=http://other/z>");
    assert_eq!(read(&site.join("page.html.orig")), "<a href=x>");
    assert_eq!(read(&site.join("sub/other.html.orig")), "<img src=y.png>");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("page.html: backup page.html.orig already exists: kept as it is"),
        "{stderr}"
    );
    assert!(stderr.contains("2 files, 1 changed"), "{stderr}");
    // Listing the tree lists each page once, not its backup.
    let out = relink(&[s(&site), "--list", "--retrieved-from", "http://h/"], b"");
    assert_eq!(String::from_utf8_lossy(&out.stdout).lines().count(), 2);
}

#[test]
fn editor_and_tool_backups_in_a_tree_are_copied_not_read() {
    let dir = tempfile::tempdir().unwrap();
    let site = dir.path().join("site");
    for name in [
        "page.html",
        "page.html~",
        "page.html.bak",
        "page.html.orig",
        "page.html.old",
    ] {
        write(&site.join(name), b"<!DOCTYPE html><a href=x>");
    }
    let out_dir = dir.path().join("out");
    let out = relink(
        &[s(&site), "--retrieved-from", "http://h/", "-o", s(&out_dir)],
        b"",
    );
    crate::cli::assert_ok(&out);
    // `.old` is no backup suffix of relink's, so it is read as the page its
    // content says it is; the others are copied as they are.
    let got: Vec<(String, String)> = files_under(&out_dir)
        .into_iter()
        .map(|(n, b)| (n, String::from_utf8(b).unwrap()))
        .collect();
    let want: Vec<(String, String)> = [
        ("page.html", "http://h/x"),
        ("page.html.bak", "x"),
        ("page.html.old", "http://h/x"),
        ("page.html.orig", "x"),
        ("page.html~", "x"),
    ]
    .iter()
    .map(|(n, b)| (n.to_string(), format!("<!DOCTYPE html><a href={b}>")))
    .collect();
    assert_eq!(got, want);
    // This run's own suffix is a backup too.
    let out = relink(
        &[
            s(&site),
            "-i",
            "--backup",
            ".old",
            "--retrieved-from",
            "http://h/",
        ],
        b"",
    );
    crate::cli::assert_ok(&out);
    assert_eq!(
        read(&site.join("page.html.old")),
        "<!DOCTYPE html><a href=x>"
    );
    // A file named on the command line is read, whatever its name.
    let out = relink(
        &[s(&site.join("page.html~")), "--retrieved-from", "http://h/"],
        b"",
    );
    assert_eq!(out.stdout, b"<!DOCTYPE html><a href=http://h/x>");
}

#[test]
fn a_backup_suffix_that_cannot_serve_is_a_usage_error() {
    let dir = tempfile::tempdir().unwrap();
    let page = dir.path().join("p.html");
    write(&page, b"<a href=x>");
    for suffix in ["", "/x", ".html", ".eml"] {
        let out = relink(
            &[
                s(&page),
                "-i",
                "--backup",
                suffix,
                "--retrieved-from",
                "http://h/",
            ],
            b"",
        );
        assert_eq!(out.status.code(), Some(2), "{suffix:?}");
        assert_eq!(read(&page), "<a href=x>");
    }
}

/// `--exclude GLOB` leaves out what a directory walk finds: a file whose
/// path below the directory, or one of whose folders, matches is not read,
/// and under `-o DIR` is copied as it is; a bad glob is a usage error.
#[test]
fn exclude_leaves_out_files_and_folders_of_a_walk() {
    let dir = tempfile::tempdir().unwrap();
    let site = dir.path().join("site");
    for name in ["a.html", "b.min.html", "drafts/c.html", "docs/d.html"] {
        let path = site.join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, "<a href=x>").unwrap();
    }
    let out = dir.path().join("out");
    let (s, o) = (site.to_str().unwrap(), out.to_str().unwrap());
    let run = relink(
        &[
            s,
            "-o",
            o,
            "--retrieved-from",
            "http://h/",
            "--exclude",
            "*.min.html",
            "--exclude",
            "drafts",
        ],
        b"",
    );
    crate::cli::assert_ok(&run);
    let read = |name: &str| std::fs::read_to_string(out.join(name)).unwrap();
    assert_eq!(read("a.html"), "<a href=http://h/x>");
    assert_eq!(read("docs/d.html"), "<a href=http://h/docs/x>");
    assert_eq!(read("b.min.html"), "<a href=x>");
    assert_eq!(read("drafts/c.html"), "<a href=x>");
    let listed = relink(
        &[
            s,
            "--list",
            "--retrieved-from",
            "http://h/",
            "--exclude",
            "drafts/**",
        ],
        b"",
    );
    let rows = String::from_utf8(listed.stdout).unwrap();
    assert!(
        rows.contains("a.html") && !rows.contains("c.html"),
        "{rows}"
    );
    let bad = relink(&[s, "--list", "--exclude", "["], b"");
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("--exclude '['"));
}
