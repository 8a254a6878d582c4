//! Pages saved by a browser: the saved-from mark as the retrieval URL.

use crate::cli::{assert_ok, relink};
use crate::fixture;

fn page() -> String {
    fixture("saved/chrome/post.html")
        .to_string_lossy()
        .into_owned()
}

fn text(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// `--list --format json` rows: (original, resolved, base_from).
fn rows(args: &[&str]) -> Vec<(String, String, String)> {
    let out = relink(&[&["--list", "--format", "json"], args].concat(), b"");
    assert_ok(&out);
    text(&out)
        .lines()
        .map(|line| {
            let row: serde_json::Value = serde_json::from_str(line).unwrap();
            let field = |name: &str| row[name].as_str().unwrap_or_default().to_owned();
            (field("original"), field("resolved"), field("base_from"))
        })
        .collect()
}

fn resolved<'r>(rows: &'r [(String, String, String)], original: &str) -> &'r str {
    let row = rows.iter().find(|row| row.0 == original);
    &row.unwrap_or_else(|| panic!("no row for {original}: {rows:?}"))
        .1
}

#[test]
fn a_saved_page_s_mark_is_its_retrieval_url() {
    let rows = rows(&[&page()]);
    assert_eq!(
        resolved(&rows, "../../about/"),
        "https://example.com/about/"
    );
    assert_eq!(
        resolved(&rows, "feed.xml"),
        "https://example.com/blog/2024/feed.xml"
    );
    let about = rows.iter().find(|row| row.0 == "../../about/").unwrap();
    assert_eq!(about.2, "the saved-from mark");
    let explained = text(&relink(&["explain", &page()], b""));
    assert!(
        explained.contains(
            "the saved-from mark: https://example.com/blog/2024/post.html (gives the base)"
        ),
        "{explained}"
    );
}

#[test]
fn retrieved_from_is_above_the_saved_from_mark() {
    let rows = rows(&[&page(), "--retrieved-from", "http://h/x/y.html"]);
    assert_eq!(resolved(&rows, "feed.xml"), "http://h/x/feed.xml");
    let others = rows.iter().filter(|row| !row.0.contains("post_files/"));
    assert!(others.clone().count() > 3);
    assert!(
        others.clone().all(|row| row.2 == "--retrieved-from"),
        "{rows:?}"
    );
}

#[test]
fn a_base_element_is_above_the_mark_and_resolved_against_it() {
    let page = b"<!doctype html><!-- saved from url=(0022)http://h/a/b/page.html -->\n\
                 <base href=../c/><a href=d.html>d</a>";
    let out = relink(&[], page);
    assert_ok(&out);
    let written = text(&out);
    assert!(
        written.contains("<a href=http://h/a/c/d.html>"),
        "{written}"
    );
    assert!(written.contains("<base href=../c/>"), "{written}");
    // Only at the top: a mark after the first element is a comment.
    let late = b"<p>x</p><!-- saved from url=(0022)http://h/a/b/page.html --><a href=d.html>d</a>";
    let out = relink(&[], late);
    assert_eq!(out.stdout, late);
}

/// The rewrite of the saved page, to standard output.
fn rewritten(args: &[&str]) -> String {
    let out = relink(args, b"");
    assert_ok(&out);
    text(&out)
}

#[test]
fn links_into_the_folder_saved_with_the_page_stay_local() {
    let written = rewritten(&[&page()]);
    let original = std::fs::read_to_string(page()).unwrap();
    // What the browser saved is linked as it was, byte for byte.
    assert!(written.contains(r#"<link rel="stylesheet" href="./post_files/site.css">"#));
    assert!(written.contains(r#"<img src="./post_files/chart.png""#));
    // A file the folder does not hold, and every other link, absolute.
    assert!(written.contains(
        r#"srcset="./post_files/chart.png 1x, https://example.com/blog/2024/images/chart@2x.png 2x""#
    ));
    assert!(written.contains(r#"<a href="https://example.com/about/">"#));
    assert_eq!(written.lines().count(), original.lines().count());
    // The listing says why: the base is the page's own file.
    let rows = rows(&[&page()]);
    let sheet = rows
        .iter()
        .find(|row| row.0 == "./post_files/site.css")
        .unwrap();
    assert!(
        sheet.1.starts_with("file:///") && sheet.1.ends_with("/saved/chrome/post_files/site.css")
    );
    assert_eq!(sheet.2, "the page's file (saved with it)");
    // Asked for, they are made absolute too.
    let absolute = rewritten(&[&page(), "--absolute-saved-assets"]);
    assert!(absolute.contains(r#"href="https://example.com/blog/2024/post_files/site.css""#));
}

#[test]
fn a_firefox_saved_page_with_retrieved_from_keeps_its_folder_too() {
    // Firefox writes no mark: --retrieved-from gives the URL.
    let dir = tempfile::tempdir().unwrap();
    let page = dir.path().join("Seite.html");
    std::fs::write(
        &page,
        "<img src=Seite-Dateien/a.png><img src=Seite-Dateien/b.png>",
    )
    .unwrap();
    std::fs::create_dir(dir.path().join("Seite-Dateien")).unwrap();
    std::fs::write(dir.path().join("Seite-Dateien/a.png"), "png").unwrap();
    let page = page.to_string_lossy().into_owned();
    let written = rewritten(&[&page, "--retrieved-from", "http://h/d/Seite.html"]);
    assert_eq!(
        written,
        "<img src=Seite-Dateien/a.png><img src=http://h/d/Seite-Dateien/b.png>"
    );
}

#[test]
fn files_that_happen_to_exist_change_nothing_elsewhere() {
    // A plain page beside a folder not named after it, and a directory
    // rewrite: every link absolute, existing file or not.
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("page.html"),
        "<img src=img/a.png><a href=other.html>o</a>",
    )
    .unwrap();
    std::fs::write(dir.path().join("other.html"), "<a href=page.html>p</a>").unwrap();
    std::fs::create_dir(dir.path().join("img")).unwrap();
    std::fs::write(dir.path().join("img/a.png"), "png").unwrap();
    let root = dir.path().to_string_lossy().into_owned();
    let out = relink(
        &[
            "--list",
            "--format",
            "json",
            &root,
            "--retrieved-from",
            "http://h/",
        ],
        b"",
    );
    assert_ok(&out);
    let listed = text(&out);
    assert!(
        listed.contains(r#""resolved":"http://h/img/a.png""#),
        "{listed}"
    );
    assert!(
        listed.contains(r#""resolved":"http://h/other.html""#),
        "{listed}"
    );
    assert!(!listed.contains("file:"), "{listed}");
}

/// Opens the saved page fixture, rewritten by relink with `args`, in
/// headless Chromium (network blocked): each request the page made, by
/// its name below the page's folder (`post_files/site.css`) or its URL.
fn opened_in_a_browser(args: &[&str]) -> (Vec<(String, String)>, Vec<String>) {
    let dir = tempfile::tempdir().unwrap();
    let from = fixture("mirror/saved");
    for (name, bytes) in crate::files_under(&from) {
        let path = dir.path().join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, bytes).unwrap();
    }
    let page = dir.path().join("post.html");
    let page_arg = page.to_str().unwrap();
    assert_ok(&relink(&[&[page_arg, "--in-place"], args].concat(), b""));
    let seen = crate::local::browse(std::slice::from_ref(&page));
    let top = url::Url::from_directory_path(std::fs::canonicalize(dir.path()).unwrap()).unwrap();
    let name = |url: &serde_json::Value| {
        let url = url.as_str().unwrap();
        url.strip_prefix(top.as_str()).unwrap_or(url).to_owned()
    };
    let one = &seen[page_arg];
    let requests = one["requests"].as_array().unwrap().iter();
    let mut requests: Vec<_> = requests
        .map(|r| (name(&r[0]), r[1].as_str().unwrap().to_owned()))
        .collect();
    // In the order of their names: the browser's order may vary.
    requests.sort();
    let links = one["links"].as_array().unwrap().iter().map(name).collect();
    (requests, links)
}

#[test]
fn a_saved_page_rewritten_loads_its_folder_in_a_browser() {
    let (requests, links) = opened_in_a_browser(&[]);
    let ok = |file: &str| (file.to_owned(), "ok".to_owned());
    // Its style sheet, the image the style sheet loads beside it, and
    // its image, all from its folder; nothing else asked for.
    assert_eq!(
        requests,
        [
            ok("post.html"),
            ok("post_files/chart.png"),
            ok("post_files/paper.png"),
            ok("post_files/site.css")
        ]
    );
    // Its links lead to the site.
    assert_eq!(
        links,
        [
            "https://example.com/about/",
            "https://example.org/elsewhere",
            "https://example.com/blog/2024/post.html#comments",
            "https://example.com/blog/2024/feed.xml"
        ]
    );
    // Made absolute as well, the saved files are asked of the network,
    // which has them not.
    let (requests, _) = opened_in_a_browser(&["--absolute-saved-assets"]);
    let sheet = requests
        .iter()
        .find(|r| r.0 == "https://example.com/blog/2024/post_files/site.css")
        .unwrap();
    assert_ne!(sheet.1, "ok");
}
