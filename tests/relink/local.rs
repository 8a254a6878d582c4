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

// Real mirrors: the fixture site served on 127.0.0.1 and mirrored by
// wget, then opened in headless Chromium from `file:` with the network
// blocked (tests/mirror_browser.py).

/// A program the test needs, or a failing test that says how to get it.
fn tool(name: &str, package: &str) -> &'static str {
    let found = std::env::var_os("PATH")
        .is_some_and(|path| std::env::split_paths(&path).any(|dir| dir.join(name).is_file()));
    assert!(
        found,
        "{name} is needed for the mirror tests (Debian: apt-get install {package})"
    );
    name.to_owned().leak()
}

/// The fixture site served on a free port, stopped when dropped.
struct Server(std::process::Child, u16);

impl Server {
    fn start() -> Server {
        use std::io::BufRead;
        let mut child = std::process::Command::new(crate::python())
            .arg(script("mirror_serve.py"))
            .arg(crate::fixture("mirror/site"))
            .stdout(std::process::Stdio::piped())
            .spawn()
            .expect("a Python (RELINK_TEST_PYTHON) for the test server");
        let mut line = String::new();
        std::io::BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let port = line.trim().parse().expect("the server's port");
        Server(child, port)
    }

    fn prefix(&self) -> String {
        format!("http://127.0.0.1:{}/", self.1)
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn script(name: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests")
        .join(name)
}

/// Mirrors the served site into `into` with wget `-m -E -p` and `extra`;
/// the mirror's root folder (`127.0.0.1:PORT`).
fn wget(server: &Server, into: &Path, extra: &[&str]) -> std::path::PathBuf {
    std::fs::create_dir_all(into).unwrap();
    let run = std::process::Command::new(tool("wget", "wget"))
        .args(["-q", "-m", "-E", "-p"])
        .args(extra)
        .arg(server.prefix())
        .current_dir(into)
        .output()
        .unwrap();
    assert!(run.status.success(), "wget: {run:?}");
    into.join(format!("127.0.0.1:{}", server.1))
}

/// The HTML pages below `root`, sorted.
fn pages(root: &Path) -> Vec<std::path::PathBuf> {
    let mut pages: Vec<_> = crate::files_under(root)
        .into_iter()
        .map(|(name, _)| root.join(name))
        .filter(|path| path.extension().is_some_and(|e| e == "html"))
        .collect();
    pages.sort();
    pages
}

/// What Chromium requested opening each page, and where its links lead:
/// by page path, `requests` ([url, "ok" or the error]) and `links`.
pub fn browse(pages: &[std::path::PathBuf]) -> serde_json::Value {
    tool("chromium", "chromium");
    let run = std::process::Command::new(crate::python())
        .arg(script("mirror_browser.py"))
        .args(pages)
        .output()
        .expect("a Python (RELINK_TEST_PYTHON) to drive chromium");
    assert!(
        run.status.success(),
        "the browser: {}",
        String::from_utf8_lossy(&run.stderr)
    );
    serde_json::from_slice(&run.stdout).unwrap()
}

/// A URL the browser saw, with the mirror's root as `./`.
fn in_mirror(url: &str, root: &Path) -> String {
    let root = url::Url::from_directory_path(std::fs::canonicalize(root).unwrap()).unwrap();
    // Chromium writes the `:` of `127.0.0.1:PORT` as `%3A`.
    let written = root.as_str().replacen("file://", "", 1).replace(':', "%3A");
    match url.strip_prefix(&format!("file://{written}")) {
        Some(rest) => format!("./{rest}"),
        None => url.to_owned(),
    }
}

/// Each page's (requests, links) as the browser saw them, the mirror's
/// root written `./`.
type Seen = Vec<(String, Vec<(String, String)>, Vec<String>)>;

fn seen(root: &Path) -> Seen {
    let pages = pages(root);
    let seen = browse(&pages);
    pages
        .iter()
        .map(|page| {
            let one = &seen[page.to_str().unwrap()];
            let pair = |r: &serde_json::Value| {
                (
                    in_mirror(r[0].as_str().unwrap(), root),
                    r[1].as_str().unwrap().to_owned(),
                )
            };
            let requests = one["requests"].as_array().unwrap().iter().map(pair);
            let links = one["links"].as_array().unwrap().iter();
            let at = |path: &Path| std::fs::canonicalize(path).unwrap();
            let top = url::Url::from_directory_path(at(root)).unwrap();
            let page = url::Url::from_file_path(at(page)).unwrap();
            let name = format!("./{}", &page.as_str()[top.as_str().len()..]);
            (
                name,
                requests.collect(),
                links
                    .map(|l| in_mirror(l.as_str().unwrap(), root))
                    .collect(),
            )
        })
        .collect()
}

/// The wget mirror (without `-k`) made local by relink, and wget's own
/// `-k` mirror of the same site; with the server's prefix.
fn both_mirrors(dir: &Path) -> (std::path::PathBuf, std::path::PathBuf, String) {
    let server = Server::start();
    let ours = wget(&server, &dir.join("relink"), &[]);
    let theirs = wget(&server, &dir.join("wget"), &["-k"]);
    let prefix = server.prefix();
    drop(server);
    assert_ok(&relink(
        &[
            s(&ours),
            "--retrieved-from",
            &prefix,
            "--local",
            "--in-place",
        ],
        b"",
    ));
    (ours, theirs, prefix)
}

#[test]
fn a_mirror_made_local_works_in_a_browser_offline() {
    let dir = tempfile::tempdir().unwrap();
    let (ours, _, prefix) = both_mirrors(dir.path());
    let seen = seen(&ours);
    assert_eq!(seen.len(), 8, "{seen:?}");
    let top = url::Url::from_directory_path(std::fs::canonicalize(&ours).unwrap()).unwrap();
    let exists = |local: &str| {
        local.starts_with("./")
            && top
                .join(&local[2..])
                .is_ok_and(|u| u.to_file_path().is_ok_and(|f| f.is_file()))
    };
    for (page, requests, links) in &seen {
        for (url, outcome) in requests {
            // Everything the page needs loads from the mirror: no request
            // to the site, none for a file the mirror lacks.
            assert!(
                url.starts_with("./") && outcome == "ok",
                "{page}: {url} {outcome}"
            );
        }
        for link in links {
            // A link to the site lands on its file in the mirror.
            let local = link.split('#').next().unwrap();
            assert!(
                !link.starts_with(&prefix)
                    && (link.starts_with("http://example.invalid/") || exists(local)),
                "{page}: {link}"
            );
        }
    }
    let index = &seen.iter().find(|p| p.0 == "./index.html").unwrap().1;
    // The SVG image, the style sheet's @import and url(), srcset.
    for file in [
        "img/sprite.png",
        "css/print.css",
        "img/bg.png",
        "img/caf%C3%A9.png",
    ] {
        assert!(
            index.iter().any(|(u, _)| u == &format!("./{file}")),
            "{file}"
        );
    }
    // The meta refresh leads to the local guide.
    let moved = &seen.iter().find(|p| p.0 == "./moved.html").unwrap().1;
    assert!(
        moved.iter().any(|(u, _)| u == "./docs/guide.html"),
        "{moved:?}"
    );
}

#[test]
fn relink_agrees_with_wget_k_and_the_browser_says_who_is_right_where_not() {
    let dir = tempfile::tempdir().unwrap();
    let (ours, theirs, _) = both_mirrors(dir.path());
    let (ours_seen, theirs_seen) = (seen(&ours), seen(&theirs));
    assert_eq!(ours_seen.len(), theirs_seen.len());
    for (a, b) in ours_seen.iter().zip(&theirs_seen) {
        assert_eq!(a.0, b.0);
        // Every link lands where wget's lands.
        assert_eq!(a.2, b.2, "{}", a.0);
        let lost: Vec<_> = b.1.iter().filter(|r| !a.1.contains(r)).collect();
        let gained: Vec<_> = a.1.iter().filter(|r| !b.1.contains(r)).collect();
        if a.0 == "./index.html" {
            // wget leaves the SVG image's root-relative xlink:href as it
            // is: from file: it names /img/sprite.png at the disk's root,
            // which fails; relink's loads from the mirror.
            assert_eq!(
                lost.iter().map(|r| r.0.as_str()).collect::<Vec<_>>(),
                ["file:///img/sprite.png"],
                "{lost:?}"
            );
            assert_ne!(lost[0].1, "ok");
            assert_eq!(gained, [&("./img/sprite.png".to_owned(), "ok".to_owned())]);
        } else {
            assert!(
                lost.is_empty() && gained.is_empty(),
                "{}: {lost:?} {gained:?}",
                a.0
            );
        }
    }
    // Where the bytes differ and the browser cannot tell: wget changes
    // bytes outside the links, relink only the links.
    let site = crate::fixture("mirror/site");
    let wget_moved = read(&theirs.join("moved.html"));
    assert!(wget_moved.contains("content=\"1; URL=docs/guide.html\""));
    assert_eq!(
        read(&ours.join("moved.html")),
        read(&site.join("moved.html"))
    );
    let wget_index = read(&theirs.join("index.html"));
    assert!(wget_index.contains("<img src=\"img/a&#32;b.png\""));
    assert!(wget_index.contains("<a href=\"caf\u{e9}.html\">"));
    assert!(wget_index.contains("xlink:href=\"/img/sprite.png\""));
    assert_eq!(
        read(&ours.join("index.html")),
        read(&site.join("index.html"))
            .replace("\"docs/\"", "\"docs/index.html\"")
            .replace("\"/docs/guide.html#start\"", "\"docs/guide.html#start\"")
            .replace("\"about\"", "\"about.html\"")
            .replace("\"search?q=relink\"", "\"search%3Fq=relink.html\"")
            .replace("\"/img/sprite.png\"", "\"img/sprite.png\"")
    );
}

#[test]
fn an_httrack_mirror_made_local_still_works_in_a_browser() {
    // HTTrack writes its mirror local already, under its own names (the
    // page `/index.html` beside `/` becomes `index-2.html`); relink reads
    // its links against the mirror's own paths and keeps them local.
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start();
    let run = std::process::Command::new(tool("httrack", "httrack"))
        .arg(server.prefix())
        .args([
            "-O",
            s(dir.path()),
            "-q",
            "-%v0",
            "-c8",
            "-%c0",
            "-A0",
            "-I0",
            "-s0",
        ])
        // Without its limits HTTrack takes a second or more per file.
        .arg("--disable-security-limits")
        .output()
        .unwrap();
    assert!(run.status.success(), "httrack: {run:?}");
    let root = dir.path().join(format!("127.0.0.1_{}", server.1));
    let prefix = server.prefix();
    drop(server);
    assert!(root.join("index-2.html").is_file());
    assert_ok(&relink(
        &[
            s(&root),
            "--retrieved-from",
            &prefix,
            "--local",
            "--in-place",
        ],
        b"",
    ));
    let top = url::Url::from_directory_path(std::fs::canonicalize(&root).unwrap()).unwrap();
    for (page, requests, links) in seen(&root) {
        for (url, outcome) in requests {
            assert!(
                url.starts_with("./") && outcome == "ok",
                "{page}: {url} {outcome}"
            );
        }
        for link in links {
            let file = link.split('#').next().unwrap();
            let file = top.join(file.trim_start_matches("./")).unwrap();
            assert!(
                link.starts_with("http://example.invalid/")
                    || file.to_file_path().is_ok_and(|f| f.is_file()),
                "{page}: {link}"
            );
        }
    }
}
