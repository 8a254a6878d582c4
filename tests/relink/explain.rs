//! `relink explain`: each document's base layers with the base a relative
//! one resolved to (`xml:base` scopes, `Content-Location`), and the links
//! of a web archive record's HTTP head with what each resolves to.

use crate::cli::relink;

/// A WARC response record for `uri`, its HTTP message `http` as written.
fn response(number: usize, uri: &str, http: &str) -> Vec<u8> {
    format!(
        "WARC/1.0\r\nWARC-Type: response\r\nWARC-Record-ID: <urn:uuid:{number}>\r\n\
         WARC-Target-URI: {uri}\r\nContent-Type: application/http; msgtype=response\r\n\
         Content-Length: {}\r\n\r\n{http}\r\n\r\n",
        http.len()
    )
    .into_bytes()
}

/// `relink explain ARGS... FILE` over `bytes` written to a file named
/// `name`: its standard output, past the file's own line.
fn explain(name: &str, bytes: &[u8], args: &[&str]) -> String {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(name);
    std::fs::write(&path, bytes).unwrap();
    let path = path.to_str().unwrap();
    let run = relink(&[&["explain"], args, &[path]].concat(), b"");
    let out = String::from_utf8(run.stdout).unwrap();
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let (first, rest) = out.split_once('\n').unwrap();
    assert_eq!(first, path);
    rest.to_owned()
}

/// A redirect with no document, a page whose head has links, and a page
/// whose head has none.
fn crawl() -> Vec<u8> {
    let redirect = "HTTP/1.1 301 Moved\r\nLocation: ../new/\r\n\
                    Link: <style.css>; rel=preload, <http://cdn.example/f.woff>; rel=preload\r\n\
                    Content-Length: 0\r\n\r\n";
    let page = "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Location: /en/page.html\r\n\
                Refresh: 5; url=later.html\r\n\r\n<a href=x>x</a>";
    let plain = "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n<a href=y>y</a>";
    [
        response(1, "http://a.example/d/old", redirect),
        response(2, "http://a.example/d/page", page),
        response(3, "http://a.example/d/plain", plain),
    ]
    .concat()
}

#[test]
fn explain_shows_each_link_of_an_http_head_with_what_it_resolves_to() {
    let shown = explain("crawl.warc", &crawl(), &[]);
    let expected = "  record 1 http://a.example/d/old
    WARC-Target-URI of the record: http://a.example/d/old (gives the base)
    links of the HTTP head, against http://a.example/d/old (WARC-Target-URI of the record):
      Location: ../new/ -> http://a.example/new/
      Link: style.css -> http://a.example/d/style.css
      Link: http://cdn.example/f.woff -> http://cdn.example/f.woff
  record 2 http://a.example/d/page (text/html)
    Content-Location of the message: /en/page.html -> http://a.example/en/page.html (gives the base)
    WARC-Target-URI of the record: http://a.example/d/page (below the one used)
    links of the HTTP head, against http://a.example/d/page (WARC-Target-URI of the record):
      Content-Location: /en/page.html -> http://a.example/en/page.html
      Refresh: later.html -> http://a.example/d/later.html
  record 3 http://a.example/d/plain (text/html)
    WARC-Target-URI of the record: http://a.example/d/plain (gives the base)
";
    assert_eq!(shown, expected);
}

/// `--base` stands above the target URI for the head's links too, and
/// the explanation says so.
#[test]
fn explain_names_the_forced_base_of_an_http_head() {
    let shown = explain("crawl.warc", &crawl(), &["--base", "http://b.example/x/"]);
    let first: Vec<&str> = shown.lines().take(6).collect();
    assert_eq!(
        first,
        [
            "  record 1 http://a.example/d/old",
            "    --base: http://b.example/x/ (gives the base)",
            "    WARC-Target-URI of the record: http://a.example/d/old (below the one used)",
            "    links of the HTTP head, against http://b.example/x/ (--base):",
            "      Location: ../new/ -> http://b.example/new/",
            "      Link: style.css -> http://b.example/x/style.css",
        ]
    );
}

/// Inside a WACZ package, each record's label names its entry; the head
/// links still go under their record.
#[test]
fn explain_places_head_links_under_their_record_in_a_wacz_package() {
    let shown = explain(
        "site.wacz",
        &std::fs::read(crate::fixture("archives/wacz/site.wacz")).unwrap(),
        &[],
    );
    let lines: Vec<&str> = shown.lines().collect();
    let at = lines
        .iter()
        .position(|l| {
            l.ends_with(" record 23 http://127.0.0.1:8769/site/redirect.html (text/html)")
        })
        .unwrap_or_else(|| panic!("{shown}"));
    assert_eq!(
        lines[at + 1..at + 4],
        [
            "    WARC-Target-URI of the record: http://127.0.0.1:8769/site/redirect.html (gives the base)",
            "    links of the HTTP head, against http://127.0.0.1:8769/site/redirect.html (WARC-Target-URI of the record):",
            "      Location: /site/moved.html -> http://127.0.0.1:8769/site/moved.html",
        ]
    );
    // Every head link is under a record's label, none left for the end.
    assert!(lines.last().unwrap().starts_with("    "), "{shown}");
    let heads = lines
        .iter()
        .filter(|l| l.contains("links of the HTTP head"))
        .count();
    assert_eq!(heads, 4, "{shown}");
}

#[test]
fn explain_shows_the_base_each_xml_base_scope_resolves_to() {
    let feed = br#"<?xml version="1.0"?>
<feed xmlns="http://www.w3.org/2005/Atom" xml:base="/blog/">
  <entry xml:base="2024/">
    <link href="a.html"/>
    <content type="xhtml" xml:base="../pages/"><div xmlns="http://www.w3.org/1999/xhtml"><a href="p.html">p</a></div></content>
  </entry>
  <entry xml:base="http://mirror.example/m/"><link href="b.html"/></entry>
</feed>
"#;
    let shown = explain(
        "feed.atom",
        feed,
        &["--retrieved-from", "http://a.example/d/feed.atom"],
    );
    let expected = "  document
    xml:base at line 2: /blog/ -> http://a.example/blog/ (gives the base)
    xml:base at line 3: 2024/ -> http://a.example/blog/2024/ (gives the base)
    xml:base at line 5: ../pages/ -> http://a.example/blog/pages/ (gives the base)
    xml:base at line 7: http://mirror.example/m/ (gives the base)
    --retrieved-from: http://a.example/d/feed.atom (below the one used)
";
    assert_eq!(shown, expected);
}
