//! Link records for other tools: `relink links` (`--list --format urls`)
//! for link checkers, and `--list --format wat` for readers of Common
//! Crawl's WAT files, each checked against the rows of `--list --format
//! json`.

use std::collections::HashSet;
use std::path::Path;
use std::process::Command;

use crate::cli::{assert_ok, relink};
use crate::fixture;

fn text(bytes: &[u8]) -> String {
    String::from_utf8(bytes.to_vec()).expect("utf-8")
}

/// What `relink links` should print, from the rows of `--list --format
/// json`: each absolute resolved URL once per document, message or
/// record, in order (`data:` and `javascript:` left out, and a message
/// part's own `Content-Location`, its address).
fn expected_urls(json_rows: &str) -> Vec<String> {
    let mut urls = Vec::new();
    let mut unit = None;
    let mut seen = HashSet::new();
    for line in json_rows.lines() {
        let row: serde_json::Value = serde_json::from_str(line).expect("a json row");
        let key = (
            row["file"].clone(),
            row["message"].clone(),
            row["record"].clone(),
        );
        if unit.as_ref() != Some(&key) {
            seen.clear();
            unit = Some(key);
        }
        let url = row["resolved"].as_str().expect("resolved");
        let scheme = url.split_once(':').map(|(s, _)| s.to_ascii_lowercase());
        let absolute = scheme.as_deref().is_some_and(|s| {
            s.starts_with(|c: char| c.is_ascii_alphabetic())
                && s.chars()
                    .all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c))
                && s != "data"
                && s != "javascript"
        });
        let address = row["element"] == "" && row["attribute"] == "Content-Location";
        if absolute && !address && seen.insert(url.to_owned()) {
            urls.push(url.replace(' ', "%20"));
        }
    }
    urls
}

#[test]
fn links_prints_each_absolute_url_once_per_document_of_every_kind() {
    let inputs = [
        "warc/site.warc.gz",
        "html/quoting.html",
        "mail/archive.mboxrd",
        "mail/related.eml",
        "feeds/podcast.rss",
    ];
    for name in inputs {
        let file = fixture(name);
        let file = file.to_str().unwrap();
        let base = "http://example.test/d/page";
        let json = relink(
            &[
                "--list",
                "--format",
                "json",
                "-q",
                "--retrieved-from",
                base,
                file,
            ],
            b"",
        );
        assert_ok(&json);
        let expected = expected_urls(&text(&json.stdout));
        assert!(!expected.is_empty(), "{name}: no urls to compare");
        let links = relink(&["links", "--retrieved-from", base, file], b"");
        assert_ok(&links);
        let got: Vec<String> = text(&links.stdout).lines().map(str::to_owned).collect();
        assert_eq!(got, expected, "{name}");
        let listed = relink(
            &[
                "--list",
                "--format",
                "urls",
                "-q",
                "--retrieved-from",
                base,
                file,
            ],
            b"",
        );
        assert_eq!(listed.stdout, links.stdout, "{name}: --format urls");
        // No summary: standard error carries warnings only.
        assert!(!text(&links.stderr).contains(" files, "), "{name}");
    }
}

#[test]
fn a_record_linking_twice_to_a_url_gives_it_once_and_the_next_record_again() {
    let out = relink(
        &["links", fixture("warc/site.warc.gz").to_str().unwrap()],
        b"",
    );
    assert_ok(&out);
    let stdout = text(&out.stdout);
    let style = stdout
        .lines()
        .filter(|l| *l == "http://127.0.0.1:8769/site/style.css")
        .count();
    // Linked once by each of several pages.
    assert!(style > 1, "{stdout}");
    let per_record: Vec<&str> = stdout.lines().collect();
    assert!(per_record.iter().all(|l| !l.is_empty() && !l.contains(' ')));
}

#[test]
fn urls_lychee_and_wat_need_list() {
    for format in ["urls", "lychee", "wat"] {
        let out = relink(&["--format", format, "x.html"], b"");
        assert_eq!(out.status.code(), Some(2), "{format}");
    }
}

/// The wrapper script of `docs/link-checkers.md`, as the page shows it.
pub(crate) fn recipe_script() -> String {
    let page = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/link-checkers.md"),
    )
    .unwrap();
    let start = page
        .find("<!-- relink-links: begin -->")
        .expect("begin mark");
    let end = page.find("<!-- relink-links: end -->").expect("end mark");
    let block = &page[start..end];
    let body = block.split_once("```sh\n").expect("a sh block").1;
    body.split_once("```")
        .expect("the block's end")
        .0
        .to_owned()
}

#[test]
fn the_lychee_recipe_prints_the_urls_of_a_mirrored_page() {
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("relink-links");
    std::fs::write(&script, recipe_script()).unwrap();
    std::fs::create_dir_all(dir.path().join("site/docs")).unwrap();
    std::fs::copy(
        fixture("html/quoting.html"),
        dir.path().join("site/docs/quoting.html"),
    )
    .unwrap();
    let bin = Path::new(env!("CARGO_BIN_EXE_relink")).parent().unwrap();
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    // As lychee runs it: the path alone.
    let out = Command::new("sh")
        .arg(&script)
        .arg("site/docs/quoting.html")
        .current_dir(dir.path())
        .env("PATH", path)
        .output()
        .unwrap();
    assert_ok(&out);
    let json = relink(
        &[
            "--list",
            "--format",
            "json",
            "-q",
            "--retrieved-from",
            "https://example.com/docs/quoting.html",
            fixture("html/quoting.html").to_str().unwrap(),
        ],
        b"",
    );
    // An `.html` file: each URL as lychee's HTML parser reads it.
    let stdout = text(&out.stdout);
    let got: Vec<&str> = stdout.lines().collect();
    let want: Vec<String> = expected_urls(&text(&json.stdout))
        .iter()
        .map(|url| format!("<a href=\"{}\">", url.replace('&', "&amp;")))
        .collect();
    assert_eq!(got, want);
    assert!(
        got.contains(&"<a href=\"https://example.com/docs/unquoted.html\">"),
        "{stdout}"
    );
    assert!(
        got.contains(&"<a href=\"https://example.com/char-refs.html\">"),
        "{stdout}"
    );
}

/// A link as `tests/relink/wat_reader.py` reads it: target, url, abs,
/// path, and whether it is under relink's own `Relink-Links`.
type WatLink = (String, String, Option<String>, String, bool);

/// Runs `tests/relink/wat_reader.py` over a WAT file made from `source`:
/// the links a reader of Common Crawl's WAT files gets, and relink's own.
fn wat_links(wat: &[u8], source: &Path) -> Vec<WatLink> {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("out.wat.gz");
    std::fs::write(&path, wat).unwrap();
    let python = crate::python();
    let reader = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/relink/wat_reader.py");
    let out = Command::new(&python)
        .arg(reader)
        .arg(&path)
        .arg(source)
        .output()
        .unwrap_or_else(|e| panic!("{} is needed to read WAT files ({e})", python.display()));
    let stderr = String::from_utf8_lossy(&out.stderr);
    match out.status.code() {
        Some(0) => {}
        Some(2) => panic!(
            "warcio is needed to read WAT files: set RELINK_TEST_PYTHON to a Python that has it ({} has not)",
            python.display()
        ),
        _ => panic!("the WAT file is not read as one:\n{stderr}"),
    }
    serde_json::from_slice(&out.stdout).expect("the reader's json")
}

/// The Python block of docs/spark.md that reads a WAT record as
/// cc-pyspark does, run over the WAT file of `site.warc.gz`: it gives the
/// links `wat_reader.py` reads under those key paths, each by `abs` where
/// relink has it.
#[test]
fn the_spark_guides_wat_reading_gives_what_common_crawls_key_paths_hold() {
    let guide =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/spark.md"))
            .unwrap();
    let block = guide
        .split("```python\n")
        .find(|b| b.contains("def links_of_wat"))
        .and_then(|b| b.split("```").next())
        .expect("docs/spark.md: the block that reads a WAT record");
    let source = fixture("warc/site.warc.gz");
    let wat = relink(
        &["--list", "--format", "wat", "-q", source.to_str().unwrap()],
        b"",
    );
    assert_ok(&wat);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("site.wat.gz");
    std::fs::write(&path, &wat.stdout).unwrap();
    let driver = format!(
        "{block}\nimport sys\nwith open(sys.argv[1], 'rb') as s:\n    \
         print(json.dumps([[u, p] for _, u, p in links_of_wat(s)]))\n"
    );
    let out = Command::new(crate::python())
        .args(["-c", &driver])
        .arg(&path)
        .output()
        .expect("a Python with warcio (RELINK_TEST_PYTHON)");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut got: Vec<(String, String)> = serde_json::from_slice(&out.stdout).unwrap();
    let mut want: Vec<(String, String)> = wat_links(&wat.stdout, &source)
        .into_iter()
        .filter(|l| !l.4 && l.3 != "BASE@/href")
        .map(|l| (l.2.unwrap_or(l.1), l.3))
        .collect();
    got.sort();
    want.sort();
    assert!(want.len() > 20, "{want:?}");
    assert_eq!(got, want);
}

#[test]
fn a_wat_file_read_as_common_crawls_readers_do_gives_the_listed_links() {
    let source = fixture("warc/site.warc.gz");
    let file = source.to_str().unwrap();
    let wat = relink(&["--list", "--format", "wat", "-q", file], b"");
    assert_ok(&wat);
    assert_eq!(&wat.stdout[..2], b"\x1f\x8b", "gzipped");
    let json = relink(&["--list", "--format", "json", "-q", file], b"");
    assert_ok(&json);
    let mut expected = Vec::new();
    let mut base_given = HashSet::new();
    for line in text(&json.stdout).lines() {
        let row: serde_json::Value = serde_json::from_str(line).unwrap();
        let target = row["target_uri"].as_str().unwrap().to_owned();
        let original = row["original"].as_str().unwrap().to_owned();
        // A record's first BASE element is its head's `Base`, as written.
        let first_base = row["element"] == "base"
            && row["attribute"] == "href"
            && base_given.insert(row["record"].clone());
        let resolved = (!first_base).then(|| row["resolved"].as_str().unwrap().to_owned());
        expected.push((target, original, resolved));
    }
    // The head's `Link` comes before the body's `Links` in a record.
    let got = wat_links(&wat.stdout, &source);
    let order = |v: Vec<(String, String, Option<String>)>| {
        let mut v = v;
        v.sort();
        v
    };
    let all = got.iter().map(|l| (l.0.clone(), l.1.clone(), l.2.clone()));
    assert_eq!(order(all.collect()), order(expected.clone()));
    // What cc-pyspark's key paths give is every link an HTML element
    // holds; the rest, under `Relink-Links`, is the HTTP layer's and a
    // style sheet's.
    let (own, read): (Vec<&WatLink>, Vec<&WatLink>) = got.iter().partition(|l| l.4);
    let own_paths: HashSet<&str> = own.iter().map(|l| l.3.as_str()).collect();
    assert_eq!(
        own_paths,
        HashSet::from(["HTTP@/Location", "HTTP@/Content-Location", "CSS/#text"])
    );
    let mut rest = expected;
    for link in &own {
        let at = rest
            .iter()
            .position(|e| (&e.0, &e.1, &e.2) == (&link.0, &link.1, &link.2));
        rest.remove(at.expect("an own link is a listed one"));
    }
    let read = read.iter().map(|l| (l.0.clone(), l.1.clone(), l.2.clone()));
    assert_eq!(order(read.collect()), order(rest));
    let mut targets: Vec<&String> = got.iter().map(|l| &l.0).collect();
    targets.dedup();
    assert!(targets.len() > 5, "links of several records");
}

/// The JSON blocks of a WAT file's metadata records.
fn wat_blocks(wat: &[u8]) -> Vec<serde_json::Value> {
    let mut text = String::new();
    std::io::Read::read_to_string(&mut flate2::read::MultiGzDecoder::new(wat), &mut text).unwrap();
    text.lines()
        .filter(|line| line.starts_with("{\"Envelope\"") || line.starts_with("{\"Container\""))
        .map(|line| serde_json::from_str(line).unwrap())
        .collect()
}

/// The WAT blocks of `page` as the command line lists them, retrieved from
/// `http://h/p`.
fn page_wat_blocks(page: &[u8]) -> Vec<serde_json::Value> {
    let args = ["--list", "--format", "wat", "-q"];
    let out = relink(
        &[&args[..], &["--retrieved-from", "http://h/p", "-"]].concat(),
        page,
    );
    assert_ok(&out);
    wat_blocks(&out.stdout)
}

#[test]
fn a_wat_link_carries_the_attributes_common_crawl_keeps() {
    let page = b"<base href=http://b.example/d/><link rel=stylesheet type=text/css href=s.css>\
        <a href=x title='T &amp; t' target=_blank rel=nofollow>x</a>\
        <img src=i.png srcset='j.png 2x' alt='An image'><form method=post action=f></form>";
    let blocks = page_wat_blocks(page);
    assert_eq!(blocks.len(), 1);
    let envelope = &blocks[0]["Envelope"];
    assert_eq!(
        envelope["WARC-Header-Metadata"]["WARC-Target-URI"],
        "http://h/p"
    );
    let html = &envelope["Payload-Metadata"]["HTTP-Response-Metadata"]["HTML-Metadata"];
    assert_eq!(html["Head"]["Base"], "http://b.example/d/");
    let link = &html["Head"]["Link"][0];
    assert_eq!(
        (&link["path"], &link["url"], &link["rel"], &link["type"]),
        (
            &"LINK@/href".into(),
            &"s.css".into(),
            &"stylesheet".into(),
            &"text/css".into()
        )
    );
    assert_eq!(link["abs"], "http://b.example/d/s.css");
    assert_eq!(link["base_from"], "the BASE element at line 1");
    let links = html["Links"].as_array().unwrap();
    let paths: Vec<&str> = links.iter().map(|l| l["path"].as_str().unwrap()).collect();
    assert_eq!(
        paths,
        ["A@/href", "IMG@/src", "IMG@/srcset", "FORM@/action"]
    );
    assert_eq!(
        (&links[0]["title"], &links[0]["target"], &links[0]["rel"]),
        (&"T & t".into(), &"_blank".into(), &"nofollow".into())
    );
    assert_eq!(links[0]["text"], "x");
    assert!(links[1].get("text").is_none());
    assert_eq!(
        (&links[1]["alt"], &links[2]["url"]),
        (&"An image".into(), &"j.png".into())
    );
    assert_eq!(links[2]["abs"], "http://b.example/d/j.png");
    assert_eq!(links[3]["method"], "post");
    // No attribute the element does not have.
    assert!(links[3].get("alt").is_none());
}

#[test]
fn every_record_has_a_wat_record_with_its_heads() {
    let file = fixture("warc/site.warc.gz");
    let out = relink(
        &["--list", "--format", "wat", "-q", file.to_str().unwrap()],
        b"",
    );
    assert_ok(&out);
    let blocks = wat_blocks(&out.stdout);
    // warcinfo, 13 request and response pairs, a metadata and 2 resources.
    assert_eq!(blocks.len(), 30);
    let of_type = |kind: &str| {
        blocks
            .iter()
            .filter(|b| b["Envelope"]["WARC-Header-Metadata"]["WARC-Type"] == kind)
            .collect::<Vec<_>>()
    };
    let request = &of_type("request")[0]["Envelope"];
    assert_eq!(
        request["WARC-Header-Metadata"]["WARC-IP-Address"],
        "127.0.0.1"
    );
    // A request's block, as its head names it, and its request line and
    // fields; no response's metadata.
    let payload = &request["Payload-Metadata"];
    // As Common Crawl's reader names what it read, not as written
    // (`application/http;msgtype=request`).
    assert_eq!(
        payload["Actual-Content-Type"],
        "application/http; msgtype=request"
    );
    assert_eq!(payload["HTTP-Response-Metadata"], serde_json::Value::Null);
    let http = &payload["HTTP-Request-Metadata"];
    assert_eq!(
        http["Request-Message"],
        serde_json::json!({"Method": "GET", "Path": "/site/index.html", "Version": "HTTP/1.1"})
    );
    assert_eq!(http["Headers"]["User-Agent"], "Wget/1.21.3");
    let response = &of_type("response")[0]["Envelope"];
    let header = &response["WARC-Header-Metadata"];
    assert_eq!(header["WARC-Date"], "2026-11-22T01:57:13Z");
    assert_eq!(header["Content-Length"], "621");
    let http = &response["Payload-Metadata"]["HTTP-Response-Metadata"];
    assert_eq!(
        http["Response-Message"],
        serde_json::json!({"Version": "HTTP/1.1", "Status": "200", "Reason": "OK"})
    );
    assert_eq!(http["Headers"]["Content-Type"], "text/html; charset=utf-8");
    assert_eq!(http["Headers"]["Content-Length"], "468");
    assert!(http["HTML-Metadata"]["Links"].as_array().unwrap().len() > 1);
    // As warcio reads the entity after the HTTP head, and hashlib its SHA-1.
    assert_eq!(http["Headers-Length"], "153");
    assert_eq!(http["Entity-Length"], "468");
    assert_eq!(
        http["Entity-Digest"],
        "sha1:FL3ZKQE3LEY36IHWEUPD3YPBHO6MIF4P"
    );
}

#[test]
fn a_message_with_no_links_has_its_wat_record() {
    let file = fixture("mail/archive.mboxrd");
    let out = relink(
        &[
            "--list",
            "--format",
            "wat",
            "-q",
            "--retrieved-from",
            "http://e.example/",
            file.to_str().unwrap(),
        ],
        b"",
    );
    assert_ok(&out);
    let blocks = wat_blocks(&out.stdout);
    let numbers: Vec<_> = blocks
        .iter()
        .map(|b| b["Envelope"]["Message-Number"].as_u64())
        .collect();
    assert_eq!(numbers, [Some(1), Some(2), Some(3)]);
    // The second message has no link: no HTML-Metadata.
    assert_eq!(
        blocks[1]["Envelope"]["Payload-Metadata"],
        serde_json::json!({})
    );
    assert!(blocks[0]["Envelope"]["Payload-Metadata"]["HTTP-Response-Metadata"]["HTML-Metadata"]["Links"].is_array());
}

#[test]
fn a_wat_head_has_the_title_metas_and_scripts() {
    let page = b"<html><head><title>A &amp;\n B</title><meta charset=utf-8>\
        <meta name=description content=D><meta property=og:image content=/i.png>\
        <script src=s.js></script><svg><title>not it</title></svg></head>\
        <body><title>nor this</title><a href=x>x</a><script src=t.js></script></body>";
    let blocks = page_wat_blocks(page);
    let html =
        &blocks[0]["Envelope"]["Payload-Metadata"]["HTTP-Response-Metadata"]["HTML-Metadata"];
    let head = &html["Head"];
    assert_eq!(head["Title"], "A & B");
    assert_eq!(
        head["Metas"],
        serde_json::json!([
            {"name": "description", "content": "D"},
            {"property": "og:image", "content": "/i.png"}
        ])
    );
    let scripts: Vec<(&str, &str, &str)> = head["Scripts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            (
                s["path"].as_str().unwrap(),
                s["url"].as_str().unwrap(),
                s["abs"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        scripts,
        [
            ("SCRIPT@/src", "s.js", "http://h/s.js"),
            ("SCRIPT@/src", "t.js", "http://h/t.js")
        ]
    );
    let paths: Vec<&str> = html["Links"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["path"].as_str().unwrap())
        .collect();
    assert_eq!(paths, ["A@/href"]);
}

#[test]
fn the_head_is_only_read_when_asked() {
    let page = b"<title>T</title><meta name=a content=b><a href=x>x</a>";
    let listed = relink::Rewriter::new()
        .retrieved_from("http://h/")
        .rewrite(page)
        .unwrap();
    assert!(listed.head().is_none());
    let asked = relink::Rewriter::new()
        .retrieved_from("http://h/")
        .details(relink::Details::Attributes)
        .rewrite(page)
        .unwrap();
    assert_eq!(asked.head().unwrap().title.as_deref(), Some("T"));
    // The same rows either way.
    let urls = |r: &relink::Rewritten<'_>| {
        r.links()
            .iter()
            .map(|l| l.resolved.clone())
            .collect::<Vec<_>>()
    };
    assert_eq!(urls(&listed), urls(&asked));
}

/// A WARC record of `block`, of type `kind` and media type `media`, that
/// says its block is `length` bytes long.
fn warc_record(kind: &str, media: &str, block: &[u8], length: usize) -> Vec<u8> {
    let head = format!(
        "WARC/1.1\r\nWARC-Type: {kind}\r\nWARC-Target-URI: http://h.example/{kind}{length}\r\n\
         WARC-Record-ID: <urn:uuid:{kind}-{length}>\r\nContent-Type: {media}\r\n\
         Content-Length: {length}\r\n\r\n"
    );
    [head.as_bytes(), block, b"\r\n\r\n"].concat()
}

#[test]
fn a_wat_envelope_gives_the_entity_as_it_lies_in_the_block() {
    let response = "application/http; msgtype=response";
    let head = b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n";
    let block = [&head[..], b"abc"].concat();
    let interim = b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\n\r\nabc";
    let request = b"GET / HTTP/1.1\r\nHost: h.example\r\n\r\n";
    // One byte past the entity its Content-Length says.
    let sloppy = b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nabc";
    let archive = [
        warc_record("response", response, &block, block.len()),
        warc_record("response", response, interim, interim.len()),
        warc_record(
            "request",
            "application/http;msgtype=request",
            request,
            request.len(),
        ),
        warc_record(
            "response",
            "application/http;msgtype=response",
            sloppy,
            sloppy.len(),
        ),
        // The file ends inside this block.
        warc_record("response", response, &block, block.len() + 100),
    ]
    .concat();
    let out = relink(&["--list", "--format", "wat", "-q", "-"], &archive);
    assert_ok(&out);
    let blocks = wat_blocks(&out.stdout);
    assert_eq!(blocks.len(), 5);
    let payload = |n: usize| &blocks[n]["Envelope"]["Payload-Metadata"];
    let entity = |n: usize| {
        let http = &payload(n)["HTTP-Response-Metadata"];
        let keys = [
            "Headers-Length",
            "Entity-Length",
            "Entity-Trailing-Slop-Length",
            "Entity-Digest",
        ];
        keys.map(|key| http[key].as_str().map(str::to_owned))
    };
    let some = |v: [&str; 4]| v.map(|v| Some(v.to_owned()));
    // The SHA-1 of "abc" and "ab" in base32, as Heritrix writes digests.
    let abc = "sha1:VGMT4NSHA2AWVOR6EVYXQUGCNSONBWE5";
    let ab = "sha1:3IRWCTQCI2NA27D32G62WXE4I5FRSBG4";
    let length = head.len().to_string();
    assert_eq!(entity(0), some([&length, "3", "0", abc]));
    let length = (sloppy.len() - 3).to_string();
    assert_eq!(entity(3), some([&length, "2", "1", ab]));
    // Common Crawl's reader reads the first head: after an interim
    // response, and in a block cut short, none is said.
    assert_eq!(entity(1), [None, None, None, None]);
    assert_eq!(
        payload(1)["HTTP-Response-Metadata"]["Response-Message"]["Status"],
        "200"
    );
    assert_eq!(entity(4), [None, None, None, None]);
    // What the block was read as, however the record's head spells it.
    for n in [0, 1, 3, 4] {
        assert_eq!(payload(n)["Actual-Content-Type"], response);
    }
    assert_eq!(
        payload(2)["Actual-Content-Type"],
        "application/http; msgtype=request"
    );
    let request = &payload(2)["HTTP-Request-Metadata"];
    assert_eq!(request["Request-Message"]["Path"], "/");
    assert_eq!(request["Headers"]["Host"], "h.example");
}

#[test]
fn a_wat_envelope_gives_the_record_as_it_lies_in_the_file() {
    // WARC 1.0 writes the target URI in angle brackets.
    let head = "WARC/1.0\r\nWARC-Type: resource\r\nWARC-Target-URI: <http://h.example/a>\r\n\
                WARC-Record-ID: <urn:uuid:r-1>\r\nContent-Type: text/plain\r\nContent-Length: 3\r\n\r\n";
    let archive = [
        head.as_bytes(),
        b"abc\r\n\r\n",
        // The file ends inside this block.
        &warc_record("resource", "text/plain", b"abc", 10),
    ]
    .concat();
    let out = relink(&["--list", "--format", "wat", "-q", "-"], &archive);
    assert_ok(&out);
    let blocks = wat_blocks(&out.stdout);
    assert_eq!(blocks.len(), 2);
    let envelope = &blocks[0]["Envelope"];
    assert_eq!(envelope["Format"], "WARC/1.0");
    assert_eq!(blocks[1]["Envelope"]["Format"], "WARC/1.1");
    // Given to WAT readers without the brackets.
    assert_eq!(
        envelope["WARC-Header-Metadata"]["WARC-Target-URI"],
        "http://h.example/a"
    );
    assert_eq!(envelope["WARC-Header-Length"], head.len().to_string());
    let payload = &envelope["Payload-Metadata"];
    assert_eq!(payload["Actual-Content-Length"], "3");
    assert_eq!(payload["Trailing-Slop-Length"], "4");
    // The SHA-1 of "abc" in base32.
    assert_eq!(
        payload["Block-Digest"],
        "sha1:VGMT4NSHA2AWVOR6EVYXQUGCNSONBWE5"
    );
    // A block cut short is not said to be anything.
    let cut = &blocks[1]["Envelope"];
    assert!(cut.get("WARC-Header-Length").is_none());
    assert!(cut["Payload-Metadata"].get("Block-Digest").is_none());
}

#[test]
fn a_wat_record_has_the_pages_language_and_anchor_texts_as_common_crawls() {
    let page = b"<html lang=en xml:lang=en-GB><title>T</title><meta name=a content=b>\
        <meta http-equiv=refresh content='0; url=r'>\
        <a href=x><b>char</b>acter&nbsp;set</a>";
    let blocks = page_wat_blocks(page);
    let html =
        &blocks[0]["Envelope"]["Payload-Metadata"]["HTTP-Response-Metadata"]["HTML-Metadata"];
    assert_eq!(
        html["Head"]["Metas"],
        serde_json::json!([
            {"name": "HTML@/lang", "content": "en"},
            {"name": "HTML@/xml:lang", "content": "en-GB"},
            {"name": "a", "content": "b"},
            {"http-equiv": "refresh", "content": "0; url=r"}
        ])
    );
    let links = html["Links"].as_array().unwrap();
    assert_eq!(links.len(), 1);
    assert_eq!(links[0]["text"], "character set");
    // The refresh URL is relink's own: Common Crawl keeps it in the metas.
    let own = html["Relink-Links"].as_array().unwrap();
    assert_eq!(
        (&own[0]["path"], &own[0]["url"], &own[0]["abs"]),
        (&"META@/content".into(), &"r".into(), &"http://h/r".into())
    );
    assert_eq!(own.len(), 1);
}

/// Unverified, a record's SHA-1 block digest is taken as written (in
/// Common Crawl's form); with `--verify-digests`, only when it matches.
#[test]
fn a_block_digest_is_the_records_own_when_it_matches_else_computed() {
    let record = |digest: &str| {
        format!(
            "WARC/1.1\r\nWARC-Type: resource\r\nWARC-Target-URI: http://h.example/{digest}\r\n\
             WARC-Block-Digest: {digest}\r\nContent-Type: text/plain\r\nContent-Length: 3\r\n\r\nabc\r\n\r\n"
        )
    };
    // The SHA-1 of "abc" in base32, written in lower case; then a digest
    // that does not match the block.
    let archive = record("sha1:vgmt4nsha2awvor6evyxqugcnsonbwe5")
        + &record("sha1:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA");
    let digests = |verify: &[&str]| {
        let args = [verify, &["--list", "--format", "wat", "-q", "-"]].concat();
        let out = relink(&args, archive.as_bytes());
        assert_ok(&out);
        let blocks = wat_blocks(&out.stdout);
        let digest =
            |b: &serde_json::Value| b["Envelope"]["Payload-Metadata"]["Block-Digest"].clone();
        blocks.iter().map(digest).collect::<Vec<_>>()
    };
    let abc = "sha1:VGMT4NSHA2AWVOR6EVYXQUGCNSONBWE5";
    assert_eq!(digests(&["--verify-digests"]), [abc, abc]);
    assert_eq!(digests(&[]), [abc, "sha1:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"]);
}

#[test]
fn a_feeds_links_are_relinks_own_in_a_wat_record() {
    let feed = b"HTTP/1.1 200 OK\r\nContent-Type: application/rss+xml\r\n\r\n\
        <rss version='2.0'><channel><link>http://h.example/</link>\
        <item><link>a.html</link></item></channel></rss>";
    let archive = warc_record(
        "response",
        "application/http; msgtype=response",
        feed,
        feed.len(),
    );
    let out = relink(&["--list", "--format", "wat", "-q", "-"], &archive);
    assert_ok(&out);
    let blocks = wat_blocks(&out.stdout);
    let html =
        &blocks[0]["Envelope"]["Payload-Metadata"]["HTTP-Response-Metadata"]["HTML-Metadata"];
    assert_eq!(html["Links"], serde_json::json!([]));
    assert!(html["Head"].get("Link").is_none());
    let own: Vec<(&str, &str)> = html["Relink-Links"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| (l["path"].as_str().unwrap(), l["url"].as_str().unwrap()))
        .collect();
    assert_eq!(
        own,
        [
            ("LINK/#text", "http://h.example/"),
            ("LINK/#text", "a.html")
        ]
    );
}

#[test]
fn an_xhtml_pages_wat_record_has_its_head_and_link_details_as_an_html_pages() {
    let page = b"HTTP/1.1 200 OK\r\nContent-Type: application/xhtml+xml\r\n\r\n\
        <?xml version='1.0'?><html xmlns='http://www.w3.org/1999/xhtml' xml:lang='en'>\
        <head><title>A &amp; B</title><meta name='description' content='D'/></head>\
        <body><a href='x' rel='next' target='_top'><b>char</b>acter</a>\
        <img src='i.png' alt='An &lt;image&gt;'/></body></html>";
    let archive = warc_record(
        "response",
        "application/http; msgtype=response",
        page,
        page.len(),
    );
    let out = relink(&["--list", "--format", "wat", "-q", "-"], &archive);
    assert_ok(&out);
    let blocks = wat_blocks(&out.stdout);
    let html =
        &blocks[0]["Envelope"]["Payload-Metadata"]["HTTP-Response-Metadata"]["HTML-Metadata"];
    assert_eq!(html["Head"]["Title"], "A & B");
    assert_eq!(
        html["Head"]["Metas"],
        serde_json::json!([
            {"name": "HTML@/xml:lang", "content": "en"},
            {"name": "description", "content": "D"}
        ])
    );
    let links = html["Links"].as_array().unwrap();
    assert_eq!(
        (
            &links[0]["path"],
            &links[0]["text"],
            &links[0]["rel"],
            &links[0]["target"]
        ),
        (
            &"A@/href".into(),
            &"character".into(),
            &"next".into(),
            &"_top".into()
        )
    );
    assert_eq!(
        (&links[1]["path"], &links[1]["alt"]),
        (&"IMG@/src".into(), &"An <image>".into())
    );
    assert!(links[1].get("text").is_none());
}

/// A WAT record's `Entity-Digest`: with `--verify-digests`, the body's
/// SHA-1 whatever `WARC-Payload-Digest` says; without, a SHA-1 payload
/// digest as written (in base32) when it can only go over the body as
/// stored (no transfer or content coding, no bytes past the head's
/// `Content-Length`), else the body's SHA-1.
#[test]
fn an_entity_digest_is_the_bodys_sha1_with_verify_digests_else_the_payload_digest_when_usable() {
    let plain = "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\nabc";
    let record = |response: &str, digest: &str| {
        let head = format!(
            "WARC/1.1\r\nWARC-Type: response\r\nWARC-Target-URI: http://h.example/{digest}\r\n\
             WARC-Payload-Digest: {digest}\r\nContent-Type: application/http; msgtype=response\r\n\
             Content-Length: {}\r\n\r\n",
            response.len()
        );
        [head.as_bytes(), response.as_bytes(), b"\r\n\r\n"].concat()
    };
    let body = "sha1:VGMT4NSHA2AWVOR6EVYXQUGCNSONBWE5";
    let wrong = "sha1:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAB";
    let coded = |field: &str| plain.replace("\r\n\r\n", &format!("\r\n{field}\r\n\r\n"));
    // (response, payload digest, Entity-Digest unverified).
    let cases = [
        // The SHA-1 of "abc" in lower-case base32: the same either way.
        (
            plain.to_owned(),
            "sha1:vgmt4nsha2awvor6evyxqugcnsonbwe5",
            body,
        ),
        // One that does not match, in base32, then in base16.
        (
            plain.to_owned(),
            "sha1:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAB",
            wrong,
        ),
        (
            plain.to_owned(),
            "sha1:0000000000000000000000000000000000000001",
            wrong,
        ),
        // Not a SHA-1, not over the body as stored, or not over the
        // entity only: the body's.
        (
            plain.to_owned(),
            "md5:00000000000000000000000000000001",
            body,
        ),
        (coded("Content-Encoding: x-unknown"), wrong, body),
        (coded("Transfer-Encoding: x-unknown"), wrong, body),
        (
            plain
                .replace("abc", "abcd")
                .replace("text/plain", "text/plain\r\nContent-Length: 3"),
            wrong,
            body,
        ),
    ];
    let archive: Vec<u8> = cases
        .iter()
        .flat_map(|(response, digest, _)| record(response, digest))
        .collect();
    for verify in [false, true] {
        let mut args = vec!["--list", "--format", "wat", "-q", "-"];
        if verify {
            args.insert(0, "--verify-digests");
        }
        let out = relink(&args, &archive);
        let blocks = wat_blocks(&out.stdout);
        assert_eq!(blocks.len(), cases.len());
        for (block, (_, written, unverified)) in blocks.iter().zip(&cases) {
            let http = &block["Envelope"]["Payload-Metadata"]["HTTP-Response-Metadata"];
            let expected = if verify { body } else { unverified };
            assert_eq!(
                http["Entity-Digest"], *expected,
                "{written}, verified: {verify}"
            );
        }
    }
}

/// The `Container` of each WAT record made of the WARC file `path`.
fn containers(path: &Path) -> Vec<serde_json::Value> {
    let out = relink(
        &["--list", "--format", "wat", "-q", path.to_str().unwrap()],
        b"",
    );
    assert_ok(&out);
    let blocks = wat_blocks(&out.stdout);
    blocks.iter().map(|b| b["Container"].clone()).collect()
}

#[test]
fn a_wat_record_says_where_its_record_is_in_the_file() {
    let gzip = |bytes: &[u8]| {
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        std::io::Write::write_all(&mut gz, bytes).unwrap();
        gz.finish().unwrap()
    };
    let first = warc_record("resource", "text/plain", b"abc", 3);
    let second = warc_record("resource", "text/plain", b"de", 2);
    let dir = tempfile::tempdir().unwrap();
    let plain = dir.path().join("two.warc");
    std::fs::write(&plain, [&first[..], &second].concat()).unwrap();
    let members = dir.path().join("two.warc.gz");
    let member = gzip(&first);
    std::fs::write(&members, [member.clone(), gzip(&second)].concat()).unwrap();
    let container = |file: &str, compressed: bool, offset: usize| serde_json::json!({"Filename": file, "Compressed": compressed, "Offset": offset.to_string()});
    assert_eq!(
        containers(&plain),
        [
            container("two.warc", false, 0),
            container("two.warc", false, first.len())
        ]
    );
    assert_eq!(
        containers(&members),
        [
            container("two.warc.gz", true, 0),
            container("two.warc.gz", true, member.len())
        ]
    );
    // One gzip stream over both: where a record is in the compressed file
    // is not known.
    let stream = dir.path().join("one.warc.gz");
    std::fs::write(&stream, gzip(&[&first[..], &second].concat())).unwrap();
    assert_eq!(
        containers(&stream),
        [serde_json::Value::Null, serde_json::Value::Null]
    );
}

/// The heads of a WAT file's records, each as `(name, value)` pairs.
fn wat_heads(wat: &[u8]) -> Vec<Vec<(String, String)>> {
    let mut text = String::new();
    std::io::Read::read_to_string(&mut flate2::read::MultiGzDecoder::new(wat), &mut text).unwrap();
    text.split("WARC/1.0\r\n")
        .skip(1)
        .map(|record| {
            let head = record.split("\r\n\r\n").next().unwrap();
            head.lines()
                .filter_map(|l| l.split_once(": "))
                .map(|(n, v)| (n.to_owned(), v.to_owned()))
                .collect()
        })
        .collect()
}

/// A WAT file is the same bytes on every run: each metadata record dated
/// as its source record (as Common Crawl's are), the warcinfo and a
/// document's record by `SOURCE_DATE_EPOCH` or the epoch, never the clock;
/// and no two records share an ID.
#[test]
fn a_wat_file_is_the_same_on_every_run_and_dated_by_its_sources() {
    let file = fixture("warc/site.warc.gz");
    let args = ["--list", "--format", "wat", "-q", file.to_str().unwrap()];
    let first = relink(&args, b"");
    assert_ok(&first);
    // Past a second boundary, where a date of the clock would change.
    std::thread::sleep(std::time::Duration::from_millis(1100));
    let second = relink(&args, b"");
    assert_eq!(first.stdout, second.stdout);
    let heads = wat_heads(&first.stdout);
    let field = |head: &[(String, String)], name: &str| {
        head.iter().find(|(n, _)| n == name).map(|(_, v)| v.clone())
    };
    assert_eq!(field(&heads[0], "WARC-Type").as_deref(), Some("warcinfo"));
    assert_eq!(
        field(&heads[0], "WARC-Date").as_deref(),
        Some("1970-01-01T00:00:00Z")
    );
    let blocks = wat_blocks(&first.stdout);
    assert_eq!(heads.len(), blocks.len() + 1);
    for (head, block) in heads.iter().skip(1).zip(&blocks) {
        let source = &block["Envelope"]["WARC-Header-Metadata"]["WARC-Date"];
        assert_eq!(field(head, "WARC-Date").as_deref(), source.as_str());
    }

    // A document outside an archive: its record and the warcinfo, dated by
    // SOURCE_DATE_EPOCH, with IDs of their own.
    let page = fixture("html/rfc1808-appendix.html");
    let out = Command::new(env!("CARGO_BIN_EXE_relink"))
        .args(["--list", "--format", "wat", "-q", page.to_str().unwrap()])
        .env("SOURCE_DATE_EPOCH", "1700000000")
        .output()
        .unwrap();
    assert_ok(&out);
    let heads = wat_heads(&out.stdout);
    assert_eq!(heads.len(), 2);
    let ids: HashSet<_> = heads.iter().map(|h| field(h, "WARC-Record-ID")).collect();
    assert_eq!(ids.len(), 2, "{heads:?}");
    for head in &heads {
        assert_eq!(
            field(head, "WARC-Date").as_deref(),
            Some("2023-11-14T22:13:20Z")
        );
    }
}
