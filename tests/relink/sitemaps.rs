//! Sitemaps, OPML outlines and robots.txt: each fixture of
//! `fixtures/sitemaps/` rewritten as `expected/` holds, told by its name
//! and root element; every other byte kept; a sitemap's `loc` on another
//! host warned of; the outputs parsed back by Python's xml.etree; and
//! hostile shapes at two sizes in linear time and memory.

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use relink::{Details, Event, Input, Kind, LinkRow, Output, Report, Rewriter, WarningKind};

use crate::cli::{assert_ok, relink};
use crate::{fixture, python};

/// Each fixture, the URL it was retrieved from, and the kind it is told as.
const CASES: [(&str, &str, Kind); 4] = [
    (
        "sitemap.xml",
        "https://www.example.com/sitemap.xml",
        Kind::Sitemap,
    ),
    (
        "sitemap-index.xml",
        "https://www.example.com/sitemap-index.xml",
        Kind::Sitemap,
    ),
    (
        "subscriptions.opml",
        "https://www.example.com/lists/subscriptions.opml",
        Kind::Sitemap,
    ),
    (
        "robots.txt",
        "https://www.example.com/robots.txt",
        Kind::Robots,
    ),
];

fn read(name: &str) -> Vec<u8> {
    std::fs::read(fixture(name)).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// What a run over bytes named `name` gave: its report, output and rows.
fn run(rewriter: &Rewriter, name: &str, bytes: &[u8]) -> (Report, Vec<u8>, Vec<LinkRow>) {
    let mut out = Vec::new();
    let mut rows = Vec::new();
    let report = rewriter
        .run(
            Input::bytes(bytes).named(name),
            Output::Always(&mut out),
            &mut |event| {
                if let Event::Rows(found) = event {
                    rows.extend_from_slice(found);
                }
                Ok(())
            },
        )
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    (report, out, rows)
}

/// Each fixture, told by its name (and a sitemap's root element), comes
/// out as `expected/` holds, and a second pass changes nothing.
#[test]
fn each_fixture_is_rewritten_as_expected() {
    for (name, url, kind) in CASES {
        let input = read(&format!("sitemaps/{name}"));
        let expected = read(&format!("sitemaps/expected/{name}"));
        let rewriter = Rewriter::new().retrieved_from(url);
        let (report, out, _) = run(&rewriter, name, &input);
        assert_eq!(report.kind, Some(kind), "{name}");
        assert_eq!(
            String::from_utf8_lossy(&out),
            String::from_utf8_lossy(&expected),
            "{name}"
        );
        let (again, out, _) = run(&rewriter, name, &expected);
        assert!(!again.changed && out == expected, "{name}: a second pass");
    }
}

/// With no base, every fixture comes back byte for byte, with the one
/// warning that says so.
#[test]
fn without_a_base_the_output_is_the_input() {
    for (name, _, _) in CASES {
        let input = read(&format!("sitemaps/{name}"));
        let (report, out, rows) = run(&Rewriter::new(), name, &input);
        assert!(!report.changed && out == input, "{name}");
        assert!(!rows.is_empty() && rows.iter().all(|r| !r.link.changed));
        // (A relative `xml:base` with nothing to resolve against is
        // ignored, and says so.)
        let kinds: Vec<WarningKind> = report.warnings.iter().map(|w| w.kind).collect();
        assert!(kinds.contains(&WarningKind::NoBase), "{name}");
        let others = [WarningKind::NoBase, WarningKind::LayerIgnored];
        assert!(
            kinds.iter().all(|k| others.contains(k)),
            "{name}: {kinds:?}"
        );
    }
}

/// A sitemap's every `loc` (and extension's URL) comes out absolute, and
/// the bytes between them are the input's, in order: what the sitemap
/// schema asks of a `loc` (an absolute URL), without its file.
#[test]
fn every_loc_is_absolute_and_every_other_byte_unchanged() {
    let marks: Vec<(String, String)> = [
        "loc",
        "image:loc",
        "video:content_loc",
        "video:player_loc",
        "video:thumbnail_loc",
    ]
    .iter()
    .map(|tag| (format!("<{tag}>"), format!("</{tag}>")))
    .chain([(" href=\"".to_owned(), "\"".to_owned())])
    .collect();
    for name in ["sitemap.xml", "sitemap-index.xml"] {
        let input = String::from_utf8(read(&format!("sitemaps/{name}"))).unwrap();
        let rewriter = Rewriter::new().retrieved_from("https://www.example.com/sitemap.xml");
        let (_, out, _) = run(&rewriter, name, input.as_bytes());
        let out = String::from_utf8(out).unwrap();
        let (input_parts, input_urls) = split_urls(&input, &marks);
        let (out_parts, out_urls) = split_urls(&out, &marks);
        assert_eq!(input_parts, out_parts, "{name}: the bytes outside the URLs");
        assert_eq!(input_urls.len(), out_urls.len());
        assert!(input_urls.iter().any(|u| !u.contains("://")));
        for url in out_urls {
            let url = url.trim().replace("&amp;", "&");
            assert!(url.starts_with("https://"), "{name}: {url}");
        }
    }
}

/// The text outside the URLs written between each pair of `marks` (the
/// pieces between them), and the URLs.
fn split_urls<'t>(text: &'t str, marks: &[(String, String)]) -> (Vec<&'t str>, Vec<&'t str>) {
    let mut parts = Vec::new();
    let mut urls = Vec::new();
    let mut rest = text;
    loop {
        let next = marks
            .iter()
            .filter_map(|(open, close)| Some((rest.find(open.as_str())?, open, close)))
            .min();
        let Some((at, open, close)) = next else {
            parts.push(rest);
            return (parts, urls);
        };
        let start = at + open.len();
        let end = start + rest[start..].find(close.as_str()).unwrap();
        parts.push(&rest[..start]);
        urls.push(&rest[start..end]);
        rest = &rest[end..];
    }
}

/// A `loc` on another host than the sitemap's, or another scheme, is
/// warned of at its line (the sitemap protocol drops it), rewritten all
/// the same; one on the sitemap's own host, with its default port
/// written, is not; image locations may be anywhere.
#[test]
fn a_loc_on_another_host_is_warned_of() {
    let sitemap = b"<urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\" \
        xmlns:image=\"http://www.google.com/schemas/sitemap-image/1.1\">\n\
        <url><loc>a.html</loc><image:loc>//cdn.example.net/i.png</image:loc></url>\n\
        <url><loc>HTTPS://WWW.example.com:443/b.html</loc></url>\n\
        <url><loc>//other.example.com/c.html</loc></url>\n\
        <url><loc>http://www.example.com/d.html</loc></url>\n\
        </urlset>";
    let rewriter = Rewriter::new().retrieved_from("https://www.example.com/sitemap.xml");
    let (report, out, _) = run(&rewriter, "sitemap.xml", sitemap);
    let out = String::from_utf8(out).unwrap();
    assert!(out.contains("<loc>https://other.example.com/c.html</loc>"));
    let warned: Vec<(WarningKind, &str)> = report
        .warnings
        .iter()
        .map(|w| (w.kind, w.place[0].as_str()))
        .collect();
    assert_eq!(
        warned,
        [
            (WarningKind::OtherHost, "line 4, column 11"),
            (WarningKind::OtherHost, "line 5, column 11")
        ]
    );
    assert!(
        report.warnings[0]
            .message
            .contains("https://other.example.com/c.html is not on the host of the sitemap"),
        "{}",
        report.warnings[0]
    );
    // The command line prints it as a warning line, and exits 0.
    let path = fixture("sitemaps/sitemap.xml");
    let out = relink(
        &[
            "--list",
            "--retrieved-from",
            "https://www.example.com/sitemap.xml",
            path.to_str().unwrap(),
        ],
        b"",
    );
    assert_ok(&out);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let line = "line 34, column 10: <loc>: https://cdn.example.net/elsewhere.html is not on the \
                host of the sitemap (https://www.example.com/sitemap.xml)";
    assert!(stderr.contains(line), "{stderr}");
}

/// A `.xml` file is a sitemap when its root is `urlset` or `sitemapindex`
/// in the sitemaps.org namespace, or `opml`; else it is XML as before. A
/// robots.txt is told by its name, in any case, gzipped or not; `--type`
/// takes `sitemap`, `opml` and `robots`.
#[test]
fn kinds_are_told_by_name_and_root_element() {
    let told = |name: &str, bytes: &[u8]| run(&Rewriter::new(), name, bytes).0.kind;
    let urlset = b"<?xml version=\"1.0\"?>\n<!-- c -->\n<urlset \
        xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\"><url><loc>x</loc></url></urlset>";
    assert_eq!(told("sitemap.xml", urlset), Some(Kind::Sitemap));
    assert_eq!(told("sitemap", urlset), Some(Kind::Sitemap));
    assert_eq!(
        told("list.xml", b"<opml version=\"2.0\"/>"),
        Some(Kind::Sitemap)
    );
    assert_eq!(told("a.opml", b"<opml/>"), Some(Kind::Sitemap));
    // No sitemaps.org namespace: no sitemap, and its `loc` is no link.
    let plain = b"<urlset><url><loc>x</loc></url></urlset>";
    assert_eq!(told("other.xml", plain), Some(Kind::Xml));
    let (_, out, _) = run(
        &Rewriter::new().retrieved_from("http://h/"),
        "other.xml",
        plain,
    );
    assert_eq!(out, plain);
    assert_eq!(told("feed.xml", b"<rss version=\"2.0\"/>"), Some(Kind::Xml));
    assert_eq!(told("ROBOTS.TXT", b"Sitemap: x"), Some(Kind::Robots));
    assert_eq!(told("notes.txt", b"Sitemap: x"), Some(Kind::Html));
    assert_eq!(
        Kind::from_name("robots.txt.gz".as_ref()),
        Some(Kind::Robots)
    );
    for (name, kind) in [
        ("sitemap", Kind::Sitemap),
        ("OPML", Kind::Sitemap),
        ("robots", Kind::Robots),
    ] {
        assert_eq!(Kind::named(name), Some(kind));
    }
    let out = relink(
        &[
            "--type",
            "robots",
            "--retrieved-from",
            "http://h/robots.txt",
        ],
        b"Sitemap: s.xml\n",
    );
    assert_ok(&out);
    assert_eq!(out.stdout, b"Sitemap: http://h/s.xml\n");
}

/// robots.txt: only the URLs of `Sitemap:` lines change; a field of
/// another name, a comment, the value's white space, CRLF and a byte
/// order mark are kept; each link is listed with its field's name.
#[test]
fn robots_txt_keeps_every_byte_but_its_sitemap_urls() {
    let input = b"\xef\xbb\xbfSitemap : a.xml \t# one\r\n\
        #Sitemap: commented.xml\r\n\
        Disallow: /sitemap: b.xml\r\n\
        sitemap:\r\n\
        SiteMap:\t/c.xml\n";
    let rewriter = Rewriter::new().retrieved_from("http://h.example/d/robots.txt");
    let (report, out, rows) = run(&rewriter, "robots.txt", input);
    let expected = b"\xef\xbb\xbfSitemap : http://h.example/d/a.xml \t# one\r\n\
        #Sitemap: commented.xml\r\n\
        Disallow: /sitemap: b.xml\r\n\
        sitemap:\r\n\
        SiteMap:\thttp://h.example/c.xml\n";
    assert_eq!(
        String::from_utf8_lossy(&out),
        String::from_utf8_lossy(expected)
    );
    assert_eq!(report.rewritten, 2);
    let listed: Vec<(&str, usize, usize)> = rows
        .iter()
        .map(|r| (r.link.place.attribute(), r.link.line, r.link.column))
        .collect();
    assert_eq!(listed, [("Sitemap", 1, 11), ("SiteMap", 5, 10)]);
}

/// Python's xml.etree reads the rewritten OPML and sitemap, and finds
/// every URL attribute and `loc` absolute, with the values expected.
#[test]
fn python_reads_the_rewritten_opml_and_sitemap() {
    const SCRIPT: &str = r#"
import json, sys
import xml.etree.ElementTree as ET
urls = []
for path in sys.argv[1:]:
    root = ET.parse(path).getroot()
    for el in root.iter():
        local = el.tag.rsplit("}", 1)[-1]
        for attr in ("xmlUrl", "htmlUrl", "url"):
            if local == "outline" and el.get(attr) is not None:
                urls.append(el.get(attr))
        if local in ("docs", "ownerId", "loc", "content_loc", "player_loc", "thumbnail_loc"):
            urls.append(el.text.strip())
print(json.dumps(urls))
"#;
    let dir = tempfile::tempdir().unwrap();
    let mut paths = Vec::new();
    for (name, url, _) in &CASES[..3] {
        let input = read(&format!("sitemaps/{name}"));
        let (_, out, _) = run(&Rewriter::new().retrieved_from(url), name, &input);
        let path = dir.path().join(name);
        std::fs::write(&path, out).unwrap();
        paths.push(path);
    }
    let out = Command::new(python())
        .args(["-c", SCRIPT])
        .args(&paths)
        .output()
        .expect("python runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let urls: Vec<String> = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(urls.len(), 18, "{urls:?}");
    assert!(urls.iter().all(|u| u.starts_with("http")), "{urls:?}");
    for url in [
        "https://www.example.com/videos/media/grilling.mp4",
        "https://www.example.com/news/sitemap-news.xml",
        "https://www.example.com/lists/news/rss?lang=fr&cat=caf%C3%A9",
        "https://www.example.com/lists/lists/more.opml",
        "https://www.example.com/spec/opml.html",
    ] {
        assert!(urls.iter().any(|u| u == url), "{url} in {urls:?}");
    }
}

/// The sizes of the hostile shapes: 10^5 and 10^6 lines when the tests
/// (and the binary they run) are optimised, a tenth of that in a debug
/// build.
fn sizes() -> [usize; 2] {
    if cfg!(debug_assertions) {
        [10_000, 100_000]
    } else {
        [100_000, 1_000_000]
    }
}

/// The hostile shapes, of `n` lines: a sitemap of relative `loc`s (every
/// tenth on another host, with a reference), an OPML of outlines, a
/// robots.txt of `Sitemap:` lines.
fn shapes(n: usize) -> [(&'static str, Vec<u8>); 3] {
    let mut sitemap =
        String::from("<urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\n");
    let mut opml = String::from("<opml version=\"2.0\"><body>\n");
    let mut robots = String::new();
    for i in 0..n {
        if i % 10 == 0 {
            sitemap.push_str(&format!("<url><loc>//o.example/{i}?a&amp;b</loc></url>\n"));
        } else {
            sitemap.push_str(&format!("<url><loc>p/{i}.html</loc></url>\n"));
        }
        opml.push_str(&format!("<outline xmlUrl=\"f/{i}\" htmlUrl=\"h/{i}\"/>\n"));
        robots.push_str(&format!("Sitemap: s/{i}.xml # {i}\r\n"));
    }
    sitemap.push_str("</urlset>\n");
    opml.push_str("</body></opml>\n");
    [
        ("sitemap.xml", sitemap.into_bytes()),
        ("list.opml", opml.into_bytes()),
        ("robots.txt", robots.into_bytes()),
    ]
}

/// Hostile shapes at two sizes, ten times apart: every line rewritten, no
/// panic, the larger no more than 30 times slower (linear with room for a
/// loaded machine; quadratic would be 100; CPU time, not the clock), and the peak memory of the
/// command line on the larger at most 5 times its size above the peak on
/// an empty input.
#[test]
fn hostile_shapes_take_linear_time_and_memory() {
    let [small, large] = sizes();
    // Counts only: a large XML document whose links are handed over is
    // read twice (see the XML reader), which would double the ratio.
    let rewriter = Rewriter::new()
        .details(Details::Counts)
        .retrieved_from("https://www.example.com/sitemap.xml");
    let time = |n: usize| -> Vec<Duration> {
        shapes(n)
            .iter()
            .map(|(name, bytes)| {
                let start = crate::thread_time();
                let (report, _, _) = run(&rewriter, name, bytes);
                let spent = crate::thread_time() - start;
                let lines = if *name == "list.opml" { 2 * n } else { n };
                assert_eq!(report.rewritten, lines, "{name}");
                spent
            })
            .collect()
    };
    let (short, long) = (time(small), time(large));
    for (i, (name, _)) in shapes(1).iter().enumerate() {
        eprintln!(
            "{name}: {:?} for {small} lines, {:?} for {large}",
            short[i], long[i]
        );
        let bound = short[i].max(Duration::from_millis(20)) * 30;
        assert!(
            long[i] <= bound,
            "{name}: {:?} then {:?}",
            short[i],
            long[i]
        );
    }
    #[cfg(target_os = "linux")]
    peaks_in_proportion(large);
}

/// The command line's peak on each hostile shape of `n` lines, written to
/// `-o`, is at most 5 times the shape's size above its peak on an empty
/// sitemap.
#[cfg(target_os = "linux")]
fn peaks_in_proportion(n: usize) {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let to_file = [std::ffi::OsStr::new("-o"), out.as_os_str()];
    let peak = |input: &Path| measured(input, &to_file).peak;
    let empty = dir.path().join("empty.xml");
    std::fs::write(&empty, shapes(1)[0].1.as_slice()).unwrap();
    let floor = peak(&empty);
    for (name, bytes) in shapes(n) {
        let input = dir.path().join(name);
        std::fs::write(&input, &bytes).unwrap();
        let used = peak(&input);
        let size = bytes.len() as u64;
        eprintln!("{name}: {size} bytes, peak {used} ({floor} on a small input)");
        assert!(
            used <= floor + 5 * size,
            "{name}: {used} over 5 times {size} above {floor}"
        );
    }
}

/// Every prefix of each fixture, and each with bytes changed here and
/// there to the bytes that matter to its syntax, is read without panic;
/// what changes settles in one pass, and a document cut short (an XML
/// one is then not well-formed) comes out as it went in.
#[test]
fn cut_and_changed_fixtures_are_read_without_panic() {
    for (name, url, _) in CASES {
        let input = read(&format!("sitemaps/{name}"));
        let rewriter = Rewriter::new().retrieved_from(url);
        let xml = name != "robots.txt";
        for cut in (0..input.trim_ascii_end().len()).step_by(3) {
            let (_, out, _) = run(&rewriter, name, &input[..cut]);
            if xml {
                assert_eq!(out, &input[..cut], "{name} cut at {cut}");
            }
        }
        for at in (0..input.len()).step_by(5) {
            for byte in [b'<', b'&', b'"', b'>', b':', b'#', b'\r', b'\n', 0xc3] {
                let mut changed = input.clone();
                changed[at] = byte;
                let (report, out, _) = run(&rewriter, name, &changed);
                if report.changed {
                    let (again, _, _) = run(&rewriter, name, &out);
                    assert!(!again.changed, "{name}: {byte} at {at}");
                }
            }
        }
    }
}

/// A sitemap served in a WARC response (`application/xml`) is read as a
/// sitemap: its `loc`s resolved against the record's target URI, and one
/// on another host warned of under its record.
#[test]
fn a_sitemap_in_a_warc_resolves_against_its_target_uri() {
    let sitemap = b"<urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\
        <url><loc>a.html</loc></url><url><loc>//x.example/b</loc></url></urlset>";
    let block = [
        format!(
            "HTTP/1.1 200 OK\r\nContent-Type: application/xml\r\nContent-Length: {}\r\n\r\n",
            sitemap.len()
        )
        .as_bytes(),
        sitemap,
    ]
    .concat();
    let warc = [
        format!(
            "WARC/1.1\r\nWARC-Type: response\r\nWARC-Record-ID: <urn:uuid:1>\r\n\
             WARC-Target-URI: http://w.example/maps/sitemap.xml\r\n\
             Content-Type: application/http; msgtype=response\r\nContent-Length: {}\r\n\r\n",
            block.len()
        )
        .as_bytes(),
        &block,
        b"\r\n\r\n",
    ]
    .concat();
    let (report, out, _) = run(&Rewriter::new(), "crawl.warc", &warc);
    let out = String::from_utf8(out).unwrap();
    assert!(
        out.contains("<loc>http://w.example/maps/a.html</loc>"),
        "{out}"
    );
    assert!(out.contains("<loc>http://x.example/b</loc>"), "{out}");
    let kinds: Vec<WarningKind> = report.warnings.iter().map(|w| w.kind).collect();
    assert_eq!(kinds, [WarningKind::OtherHost], "{:?}", report.warnings);
    assert!(
        report.warnings[0]
            .to_string()
            .contains("http://x.example/b")
    );
}

/// A sitemap of `n` `<url><loc>` lines, as [`shapes`] makes it.
fn loc_lines(n: usize) -> Vec<u8> {
    shapes(n).into_iter().next().unwrap().1
}

/// The command line on a sitemap, measured: its CPU time, peak resident
/// set and lines on standard output.
#[cfg(target_os = "linux")]
fn measured(input: &Path, args: &[&std::ffi::OsStr]) -> crate::memory::Run {
    let given = [
        input.as_os_str(),
        "--retrieved-from".as_ref(),
        "https://www.example.com/x".as_ref(),
        "-j".as_ref(),
        "1".as_ref(),
    ];
    let binary = Path::new(env!("CARGO_BIN_EXE_relink"));
    let run = crate::memory::measure(binary, &[&given[..], args].concat());
    assert_eq!(run.status, 0, "relink {args:?}");
    run
}

/// A sitemap of many `loc` lines through the command line, written with
/// `-o` and listed, at two sizes four times apart: 25,000 and 100,000
/// lines in the debug build, 250,000 and 10^6 (some 37 MB) in a release
/// build; the shape scales, and the debug sizes keep the test within
/// seconds. The larger takes at most ten times the CPU time (a
/// quadratic reading takes sixteen), and each peaks at
/// most 5 times the sitemap's size above the peak on a one-line sitemap;
/// every line is rewritten and listed.
#[cfg(target_os = "linux")]
#[test]
fn many_loc_lines_take_linear_time_and_at_most_five_times_their_size() {
    let sizes = if cfg!(debug_assertions) {
        [25_000, 100_000]
    } else {
        [250_000, 1_000_000]
    };
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.xml");
    let to_file = [std::ffi::OsStr::new("-o"), out.as_os_str()];
    let list = [std::ffi::OsStr::new("--list")];
    for args in [&to_file[..], &list] {
        let shape = format!("loc lines {args:?}");
        crate::memory::linear_at_two_sizes(&shape, sizes, 5, |n| {
            let path = dir.path().join(format!("{n}.xml"));
            let bytes = loc_lines(n);
            std::fs::write(&path, &bytes).unwrap();
            let run = measured(&path, args);
            if args == list {
                assert_eq!(run.lines, n, "{n} rows");
            } else {
                let written = std::fs::read_to_string(&out).unwrap();
                let absolute = written.matches("<loc>https://www.example.com/p/").count();
                assert_eq!(absolute, n - n.div_ceil(10), "{n}");
                assert!(n == 1 || written.contains("<loc>https://o.example/10?a&amp;b</loc>"));
            }
            (bytes.len() as u64, run)
        });
    }
}
