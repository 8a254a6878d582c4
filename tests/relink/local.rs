//! A site mirror made local (`--local`, wget's `--convert-links`): links to
//! the mirror's files become relative paths to them, every other link
//! absolute.

use std::path::Path;

use crate::cli::{assert_ok, relink};

/// Writes each (path, text) below `root`.
fn write_tree(root: &Path, files: &[(&str, &str)]) {
    for (name, text) in files {
        let path = root.join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn s(path: &Path) -> &str {
    path.to_str().unwrap()
}

const SITE: &[(&str, &str)] = &[
    (
        "index.html",
        "<a href=\"a/b.html#x\">b</a><img src=img/p.png srcset=\"img/p.png 1x, img/none.png 2x\">\
         <a href=http://h/docs/a/>a</a><a href=../elsewhere.html>e</a><a href=\"img/a b.png\">s</a>\
         <style>body{background:url(img/p.png)}</style>\n",
    ),
    (
        "a/b.html",
        "<a href=\"../index.html\">up</a><a href=\"/docs/a/b.html\">self</a>\
         <link rel=stylesheet href=../s.css><a href=\"https://other.example/\">o</a>\n",
    ),
    ("a/index.html", "<p>a</p>\n"),
    ("img/p.png", "png"),
    ("img/a b.png", "png"),
    (
        "s.css",
        "p{background:url(img/p.png)} q{background:url(img/gone.png)}\n",
    ),
];

#[test]
fn links_to_the_mirrors_files_become_paths_to_them() {
    let dir = tempfile::tempdir().unwrap();
    let (site, out) = (dir.path().join("site"), dir.path().join("out"));
    write_tree(&site, SITE);
    let run = relink(
        &[
            s(&site),
            "--retrieved-from",
            "http://h/docs/",
            "--local",
            "-o",
            s(&out),
        ],
        b"",
    );
    assert_ok(&run);
    assert_eq!(
        read(&out.join("index.html")),
        "<a href=\"a/b.html#x\">b</a><img src=img/p.png srcset=\"img/p.png 1x, http://h/docs/img/none.png 2x\">\
         <a href=a/index.html>a</a><a href=http://h/elsewhere.html>e</a><a href=\"img/a%20b.png\">s</a>\
         <style>body{background:url(img/p.png)}</style>\n"
    );
    assert_eq!(
        read(&out.join("a/b.html")),
        "<a href=\"../index.html\">up</a><a href=\"b.html\">self</a>\
         <link rel=stylesheet href=../s.css><a href=\"https://other.example/\">o</a>\n"
    );
    assert_eq!(
        read(&out.join("s.css")),
        "p{background:url(img/p.png)} q{background:url(http://h/docs/img/gone.png)}\n"
    );
}

#[test]
fn made_local_then_absolute_is_the_same_as_absolute() {
    // Every link names its file by relink's own mapping (the prefix plus
    // the path): made local and then absolute, the bytes are those of the
    // plain rewrite.
    let files: Vec<(&str, &str)> = SITE
        .iter()
        .copied()
        .filter(|(name, _)| *name != "index.html")
        .chain([(
            "index.html",
            "<a href=\"a/b.html#x\">b</a><img src=img/p.png><a href=http://h/docs/s.css>c</a>\n",
        )])
        .collect();
    let dir = tempfile::tempdir().unwrap();
    let site = dir.path().join("site");
    write_tree(&site, &files);
    let (plain, local, again) = (
        dir.path().join("plain"),
        dir.path().join("local"),
        dir.path().join("again"),
    );
    let prefix = "http://h/docs/";
    assert_ok(&relink(
        &[s(&site), "--retrieved-from", prefix, "-o", s(&plain)],
        b"",
    ));
    assert_ok(&relink(
        &[
            s(&site),
            "--retrieved-from",
            prefix,
            "--local",
            "-o",
            s(&local),
        ],
        b"",
    ));
    assert_ok(&relink(
        &[s(&local), "--retrieved-from", prefix, "-o", s(&again)],
        b"",
    ));
    for (name, _) in &files {
        assert_eq!(read(&again.join(name)), read(&plain.join(name)), "{name}");
    }
    assert_ne!(
        read(&local.join("index.html")),
        read(&plain.join("index.html"))
    );
}

#[test]
fn no_link_leaves_the_mirror() {
    let dir = tempfile::tempdir().unwrap();
    let site = dir.path().join("site");
    write_tree(
        &site,
        &[(
            "index.html",
            "<a href=../outside.html>o</a><a href=out.html>l</a>",
        )],
    );
    write_tree(dir.path(), &[("outside.html", "x")]);
    std::os::unix::fs::symlink(dir.path().join("outside.html"), site.join("out.html")).unwrap();
    let run = relink(
        &[
            s(&site),
            "--retrieved-from",
            "http://h/",
            "--local",
            "--list",
            "--format",
            "tsv",
        ],
        b"",
    );
    assert_ok(&run);
    let listed = String::from_utf8_lossy(&run.stdout);
    let resolved: Vec<&str> = listed
        .lines()
        .skip(1)
        .map(|row| row.split('\t').nth(13).unwrap())
        .collect();
    // Above the root stays above it (RFC 1808), and a link out of the
    // mirror is not followed: both absolute.
    assert_eq!(
        resolved,
        ["http://h/../outside.html", "http://h/out.html"],
        "{listed}"
    );
}

#[test]
fn local_needs_one_directory_and_its_url() {
    let dir = tempfile::tempdir().unwrap();
    let page = dir.path().join("p.html");
    std::fs::write(&page, "<a href=x>x</a>").unwrap();
    for args in [
        vec![s(dir.path()), "--local"],
        vec![s(&page), "--local", "--retrieved-from", "http://h/"],
    ] {
        let run = relink(&args, b"");
        assert_eq!(run.status.code(), Some(2), "{args:?}");
        assert!(String::from_utf8_lossy(&run.stderr).contains("--local"));
    }
}
