//! Feeds and other XML documents: feedparser's xml:base cases, real-shaped
//! feeds checked against lxml's `element.base`, escaped HTML written back as
//! it was escaped, feeds inside a WARC and a message, and a feed that is not
//! well-formed left byte-identical.

use std::process::Command;

use relink::{BaseSource, Kind, Layer, LinkRow, Rewriter, Rewritten, Rules, Warning, WarningKind};

use crate::{fixture, python, table};

fn read(name: &str) -> Vec<u8> {
    std::fs::read(fixture(name)).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// What a run gave, owned: the new bytes when any changed, the rows, the
/// warnings, each document's layers.
struct DocumentReport {
    output: Option<Vec<u8>>,
    rows: Vec<LinkRow>,
    rewritten: usize,
    warnings: Vec<Warning>,
    layers: Vec<(String, Vec<Layer>)>,
}

impl From<Rewritten<'_>> for DocumentReport {
    fn from(done: Rewritten<'_>) -> Self {
        DocumentReport {
            output: done.changed().then(|| done.bytes().to_vec()),
            rows: done.rows().to_vec(),
            rewritten: done.rewritten(),
            warnings: done.warnings().to_vec(),
            layers: done.documents().to_vec(),
        }
    }
}

fn rewrite(kind: Kind, input: &[u8], rules: Rules, retrieved_from: &str) -> DocumentReport {
    let rewriter = Rewriter::new()
        .rules(rules)
        .kind(kind)
        .retrieved_from(retrieved_from);
    rewriter.rewrite(input).unwrap().into()
}

/// Whether rewriting `output` again changes nothing.
fn settled(kind: Kind, output: &[u8], retrieved_from: &str) -> bool {
    rewrite(kind, output, Rules::Rfc1808, retrieved_from)
        .output
        .is_none()
}

/// Non-ASCII characters as numeric character references.
fn as_references(s: &str) -> String {
    s.chars()
        .map(|c| {
            if c.is_ascii() {
                c.to_string()
            } else {
                format!("&#{};", u32::from(c))
            }
        })
        .collect()
}

#[test]
fn feedparser_xml_base_cases_resolve_as_feedparser_expects() {
    let rows = table("feeds/feedparser.tsv", 3);
    assert!(rows.len() > 80, "{} rows", rows.len());
    for row in rows {
        let [file, retrieved_from, expected] = &row[..] else {
            unreachable!()
        };
        let input = read(&format!("feeds/feedparser/{file}"));
        let report = rewrite(Kind::Xml, &input, Rules::Rfc1808, retrieved_from);
        assert!(report.warnings.is_empty(), "{file}: {:?}", report.warnings);
        let resolved: Vec<&str> = report
            .rows
            .iter()
            .map(|r| r.link.resolved.as_str())
            .collect();
        assert!(
            resolved.contains(&expected.as_str()),
            "{file}: {expected} not among {resolved:?}"
        );
        // Byte-faithful: each changed link put back, last first, gives the
        // input.
        let output = report.output.expect(file);
        let mut back = String::from_utf8(output.clone()).unwrap();
        let mut limit = back.len();
        for row in report.rows.iter().rev().filter(|r| r.link.changed) {
            // A character the input wrote as a reference is written so again.
            let (mut new, mut old) = (row.link.resolved.clone(), row.link.original.clone());
            if !back[..limit].contains(&new) {
                (new, old) = (as_references(&new), as_references(&old));
            }
            let at = back[..limit].rfind(&new).expect(file);
            back.replace_range(at..at + new.len(), &old);
            limit = at;
        }
        assert_eq!(back.as_bytes(), input, "{file}");
        assert!(settled(Kind::Xml, &output, retrieved_from), "{file}");
    }
}

/// The links lxml finds in a feed, each resolved against its element's
/// `base` (xml:base aware) with `urljoin`: the places of relink's table, and
/// `a href` and `img src` in escaped HTML content.
const LXML_LINKS: &str = r#"
import json, sys
from urllib.parse import urljoin
from lxml import etree, html

ATOM = "http://www.w3.org/2005/Atom"
RSS10 = "http://purl.org/rss/1.0/"
RDF = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
CONTENT = "http://purl.org/rss/1.0/modules/content/"
WFW = "http://wellformedweb.org/CommentAPI/"
XHTML = "http://www.w3.org/1999/xhtml"
ATTRS = {(ATOM, "link"): "href", (ATOM, "content"): "src", (ATOM, "generator"): "uri",
         (None, "enclosure"): "url", (None, "source"): "url",
         (XHTML, "a"): "href", (XHTML, "img"): "src"}
TEXT = {(ATOM, "icon"), (ATOM, "logo"), (ATOM, "uri"), (None, "link"), (None, "comments"),
        (None, "docs"), (None, "url"), (RSS10, "link"), (RSS10, "url"), (WFW, "comment"),
        (WFW, "commentRss")}
HTML = {(None, "description"), (RSS10, "description"), (CONTENT, "encoded")}
ATOM_HTML = {"title", "subtitle", "summary", "content", "rights"}

tree = etree.parse(sys.argv[1], base_url=sys.argv[2])
found = []
for el in tree.iter(etree.Element):
    q = etree.QName(el)
    key = (q.namespace, q.localname)
    if key in ATTRS and el.get(ATTRS[key]) is not None:
        found.append((el.get(ATTRS[key]).strip(), el.base))
    for name in ("{%s}about" % RDF, "{%s}resource" % RDF):
        if el.get(name) is not None:
            found.append((el.get(name).strip(), el.base))
    text = (el.text or "").strip()
    if key in TEXT and text:
        found.append((text, el.base))
    if key in HTML or (q.namespace == ATOM and q.localname in ATOM_HTML and el.get("type") == "html"):
        if text:
            for h in html.fragment_fromstring(el.text, create_parent="div").iter():
                for attr in ("href", "src"):
                    if h.tag in ("a", "img") and h.get(attr) is not None:
                        found.append((h.get(attr).strip(), el.base))
print(json.dumps(sorted([v, urljoin(b, v)] for v, b in found)))
"#;

fn lxml_links(path: &std::path::Path, retrieved_from: &str) -> Vec<(String, String)> {
    let out = Command::new(python())
        .args(["-c", LXML_LINKS])
        .arg(path)
        .arg(retrieved_from)
        .output()
        .expect("python runs");
    assert!(
        out.status.success(),
        "lxml (in the test virtualenv, tests/run.sh): {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let pairs: Vec<(String, String)> = serde_json::from_slice(&out.stdout).unwrap();
    pairs
}

#[test]
fn real_shaped_feeds_resolve_as_lxml_bases_say() {
    for (name, url) in [
        ("feeds/blog.atom", "http://example.org/blog/feed.atom"),
        (
            "feeds/podcast.rss",
            "http://radio.example.org/show/feed.rss",
        ),
        ("feeds/news.rdf", "http://news.example.org/rss/news.rdf"),
    ] {
        let input = read(name);
        let report = rewrite(Kind::Xml, &input, Rules::Rfc3986, url);
        assert!(report.warnings.is_empty(), "{name}: {:?}", report.warnings);
        let mut ours: Vec<(String, String)> = report
            .rows
            .iter()
            .map(|r| (r.link.original.clone(), r.link.resolved.clone()))
            .collect();
        ours.sort();
        let theirs = lxml_links(&fixture(name), url);
        assert!(theirs.len() >= 8, "{name}: {theirs:?}");
        assert_eq!(ours, theirs, "{name}");
        assert!(report.output.is_some(), "{name}");
    }
}

#[test]
fn escaped_html_is_written_back_escaped_as_it_was() {
    let report = rewrite(
        Kind::Xml,
        &read("feeds/blog.atom"),
        Rules::Rfc1808,
        "http://example.org/blog/feed.atom",
    );
    let out = String::from_utf8(report.output.unwrap()).unwrap();
    // Entities as they were, the URL's `&` escaped twice (HTML, then XML).
    assert!(out.contains(
        "&lt;a href=\"http://example.org/blog/2024/05/first.html?part=2&amp;amp;x=1\"&gt;part two&lt;/a&gt; and &lt;img src='http://example.org/blog/2024/05/pics/a.jpg' alt=\"\"&gt;"
    ), "{out}");
    assert!(out.contains(
        "<title type=\"html\"><![CDATA[Moved to <a href=\"http://mirror.example.net/archive/new/\">a new home</a>]]></title>"
    ), "{out}");
    // XHTML content in place, against its own xml:base.
    assert!(out.contains("<a href=\"http://example.org/blog/2024/05/pages/more.html\">"));
    assert!(out.contains("<img src=\"http://example.org/blog/2024/05/pics/b.png\""));
    assert!(out.contains("<logo>  http://example.org/blog/images/logo.png  </logo>"));
    // Text constructs of type text are no HTML.
    assert!(out.contains("<title type=\"text\">Notes &amp; Drafts</title>"));

    let input = read("feeds/podcast.rss");
    let report = rewrite(
        Kind::Xml,
        &input,
        Rules::Rfc1808,
        "http://r.example/show/feed.rss",
    );
    let out = report.output.unwrap();
    // ISO-8859-1 kept; character references kept as they were written.
    assert!(out.windows(4).any(|w| w == b"Caf\xe9"));
    let out = String::from_utf8_lossy(&out);
    assert!(out.contains(
        "With &#60;a href=&#34;https://example.com/guests/bio.html&#34;&#62;our guest&#60;/a&#62;"
    ), "{out}");
    assert!(out.contains("<enclosure url='https://example.com/guests/ep2.mp3'"));
    assert!(out.contains("<docs>http://www.rssboard.org/rss-specification</docs>"));
}

#[test]
fn explain_and_list_name_each_xml_base() {
    let report = rewrite(
        Kind::Xml,
        &read("feeds/news.rdf"),
        Rules::Rfc1808,
        "http://n.example/rss/news.rdf",
    );
    let (label, layers) = &report.layers[0];
    assert_eq!(label, "document");
    let shown: Vec<String> = layers
        .iter()
        .map(|l| format!("{}: {}", l.source, l.value))
        .collect();
    assert_eq!(
        shown,
        [
            "xml:base at line 28: archive/",
            "the retrieval URL: http://n.example/rss/news.rdf"
        ]
    );
    let two = report
        .rows
        .iter()
        .find(|r| r.link.original == "stories/2.html" && r.link.place.attribute().is_empty())
        .unwrap();
    assert_eq!(
        two.link.resolved,
        "http://n.example/rss/archive/stories/2.html"
    );
    assert_eq!(
        two.link.base.as_ref().unwrap().source,
        BaseSource::XmlBase { line: 28 }
    );
}

#[test]
fn a_feed_that_is_not_well_formed_is_left_byte_identical() {
    let input = b"<?xml version=\"1.0\"?>\n<rss version=\"2.0\"><channel>\n<link>a/</link>\n<item><link>b</link></channel></rss>\n";
    let report = rewrite(Kind::Xml, input, Rules::Rfc1808, "http://h/feed");
    assert!(report.output.is_none());
    assert!(report.rows.is_empty());
    assert_eq!(report.warnings.len(), 1, "{:?}", report.warnings);
    let warning = &report.warnings[0];
    assert_eq!(warning.kind, WarningKind::Malformed);
    assert!(warning.to_string().contains("line 4"), "{warning}");
    assert!(warning.to_string().contains("not well-formed"), "{warning}");
    // Cut short.
    let report = rewrite(
        Kind::Xml,
        b"<feed xmlns=\"http://www.w3.org/2005/Atom\"><link href=\"x\"/>",
        Rules::Rfc1808,
        "http://h/",
    );
    assert!(report.output.is_none());
    assert_eq!(report.warnings[0].kind, WarningKind::Malformed);
}

#[test]
fn svg_and_xhtml_are_read_as_xml() {
    let svg = br##"<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" xml:base="art/">
  <use xlink:href="#shape"/><use href="sprites.svg#a"/>
  <image xlink:href="photo.jpg"/><a href="#x">x</a>
</svg>"##;
    let report = rewrite(Kind::Xml, svg, Rules::Rfc1808, "http://h/d/x.svg");
    let out = String::from_utf8(report.output.unwrap()).unwrap();
    assert!(out.contains("<use xlink:href=\"#shape\"/>"));
    assert!(out.contains("<use href=\"http://h/d/art/sprites.svg#a\"/>"));
    assert!(out.contains("<image xlink:href=\"http://h/d/art/photo.jpg\"/>"));
    assert!(out.contains("<a href=\"http://h/d/art/#x\">"));

    let xhtml = b"<?xml version=\"1.0\"?>\n<html xmlns=\"http://www.w3.org/1999/xhtml\"><body xml:base=\"sub/\"><a href=\"p.html\">p</a></body></html>";
    let report = rewrite(Kind::Xml, xhtml, Rules::Rfc1808, "http://h/d/x.xhtml");
    let out = String::from_utf8(report.output.unwrap()).unwrap();
    assert!(out.contains("href=\"http://h/d/sub/p.html\""), "{out}");
    // Not well-formed, or no XHTML namespace: HTML, as a browser reads it.
    let html = b"<html><body><a href=p.html>p<br></body></html>";
    let report = rewrite(Kind::Xml, html, Rules::Rfc1808, "http://h/d/x.xhtml");
    assert!(report.warnings.is_empty());
    assert_eq!(
        report.output.unwrap(),
        b"<html><body><a href=http://h/d/p.html>p<br></body></html>"
    );
}

#[test]
fn a_feed_in_a_warc_and_in_a_message_is_rewritten() {
    let feed = b"<rss version=\"2.0\"><channel><link>./</link><item><description>&lt;a href=\"p\"&gt;p&lt;/a&gt;</description></item></channel></rss>";
    let block = [
        format!(
            "HTTP/1.1 200 OK\r\nContent-Type: application/rss+xml\r\nContent-Length: {}\r\n\r\n",
            feed.len()
        )
        .as_bytes(),
        feed,
    ]
    .concat();
    let warc = [
        format!(
            "WARC/1.1\r\nWARC-Type: response\r\nWARC-Record-ID: <urn:uuid:1>\r\nWARC-Target-URI: http://w.example/news/feed\r\nContent-Type: application/http; msgtype=response\r\nContent-Length: {}\r\n\r\n",
            block.len()
        )
        .as_bytes(),
        &block,
        b"\r\n\r\n",
    ]
    .concat();
    let report = rewrite(Kind::Warc, &warc, Rules::Rfc1808, "http://unused/");
    assert!(report.warnings.is_empty(), "{:?}", report.warnings);
    let out = String::from_utf8(report.output.unwrap()).unwrap();
    assert!(out.contains("<link>http://w.example/news/</link>"), "{out}");
    assert!(
        out.contains("&lt;a href=\"http://w.example/news/p\"&gt;"),
        "{out}"
    );
    assert!(
        out.contains(&format!(
            "Content-Length: {}\r\n\r\n<rss",
            feed.len() + 2 * "http://w.example/news/".len() - 2
        )),
        "{out}"
    );

    let message = [
        &b"From: a@b\r\nSubject: feed\r\nMIME-Version: 1.0\r\nContent-Type: application/atom+xml; charset=utf-8\r\nContent-Location: http://m.example/feeds/a.atom\r\n\r\n"[..],
        b"<feed xmlns=\"http://www.w3.org/2005/Atom\"><link href=\"../x\"/></feed>\r\n",
    ]
    .concat();
    let report = rewrite(Kind::Message, &message, Rules::Rfc1808, "http://unused/");
    let out = String::from_utf8(report.output.unwrap()).unwrap();
    assert!(out.contains("<link href=\"http://m.example/x\"/>"), "{out}");
}

#[test]
fn every_prefix_and_every_byte_changed_is_read_without_panic() {
    let input = read("feeds/blog.atom");
    for cut in 0..input.trim_ascii_end().len() {
        let report = rewrite(Kind::Xml, &input[..cut], Rules::Rfc1808, "http://h/d/");
        // Cut short, an XML document is not well-formed: left as it is.
        assert!(report.output.is_none(), "cut at {cut}");
    }
    for at in (0..input.len()).step_by(7) {
        for byte in [b'<', b'&', b'"', b'>', b']', 0xc3] {
            let mut changed = input.clone();
            changed[at] = byte;
            let report = rewrite(Kind::Xml, &changed, Rules::Rfc1808, "http://h/d/");
            if let Some(out) = report.output {
                assert!(settled(Kind::Xml, &out, "http://h/d/"), "{at} {byte}");
            }
        }
    }
}

/// An Atom feed whose `<link href="x"/>` is inside `depth` elements each
/// with `xml:base="a/"` (the root's included), then one outside them.
fn nested_xml_base(depth: usize) -> String {
    let mut feed = String::from("<feed xmlns=\"http://www.w3.org/2005/Atom\" xml:base=\"a/\">");
    feed.push_str(&"<div xml:base=\"a/\">".repeat(depth - 1));
    feed.push_str("<link href=\"x\"/>");
    feed.push_str(&"</div>".repeat(depth - 1));
    feed.push_str("<link href=\"y\"/></feed>");
    feed
}

#[test]
fn deeply_nested_xml_base_stops_at_the_depth_bound_with_a_warning() {
    // unit: the bound is the XML reader's, which no setting names.
    let bound = relink::xml::MAX_XML_BASE_DEPTH as usize;
    // Up to the bound, every base is followed.
    let feed = nested_xml_base(bound);
    let report = rewrite(Kind::Xml, feed.as_bytes(), Rules::Rfc1808, "http://h/");
    assert!(report.warnings.is_empty(), "{:?}", report.warnings);
    let out = String::from_utf8(report.output.unwrap()).unwrap();
    let deep = format!("<link href=\"http://h/{}x\"/>", "a/".repeat(bound));
    assert!(out.contains(&deep));
    assert!(out.contains("<link href=\"http://h/a/y\"/>"));
    // 60,000 levels: the links inside the bound's last base stay as they
    // are, with one warning; the others are rewritten.
    let feed = nested_xml_base(60_000);
    let report = rewrite(Kind::Xml, feed.as_bytes(), Rules::Rfc1808, "http://h/");
    let deep: Vec<_> = report
        .warnings
        .iter()
        .filter(|w| w.kind == WarningKind::TooDeep)
        .collect();
    assert_eq!(deep.len(), 1, "{:?}", report.warnings);
    assert_eq!(report.warnings.len(), 1, "{:?}", report.warnings);
    let out = String::from_utf8(report.output.unwrap()).unwrap();
    assert!(out.contains("<link href=\"x\"/>"));
    assert!(out.contains("<link href=\"http://h/a/y\"/>"));
    assert_eq!(out.len() - feed.len(), "http://h/a/".len());
    // Past the XML reader's own bound (65,535 elements), the document is
    // left byte-identical, not well-formed for relink.
    let feed = nested_xml_base(100_000);
    let report = rewrite(Kind::Xml, feed.as_bytes(), Rules::Rfc1808, "http://h/");
    assert!(report.output.is_none());
    assert_eq!(report.warnings.len(), 1, "{:?}", report.warnings);
    assert_eq!(report.warnings[0].kind, WarningKind::Malformed);
}

/// Rewrites a fixture retrieved from `http://example.test/d/` and compares
/// it with its `.expected.` twin; returns the report.
fn as_expected(name: &str, expected: &str) -> DocumentReport {
    let url = format!("http://example.test/d/{}", name.rsplit('/').next().unwrap());
    let report = rewrite(Kind::Xml, &read(name), Rules::Rfc1808, &url);
    assert!(report.warnings.is_empty(), "{name}: {:?}", report.warnings);
    let out = report.output.clone().expect("rewritten");
    assert_eq!(
        String::from_utf8(out.clone()).unwrap(),
        String::from_utf8(read(expected)).unwrap(),
        "{name}"
    );
    assert!(
        settled(Kind::Xml, &out, &url),
        "{name}: a second pass changes it"
    );
    report
}

#[test]
fn xhtml_reads_srcset_style_and_its_base_element() {
    let report = as_expected("xml/page.xhtml", "xml/page.expected.xhtml");
    let resolved = |original: &str| {
        let row = report.rows.iter().find(|r| r.link.original == original);
        row.map(|r| r.link.resolved.as_str())
            .unwrap_or_else(|| panic!("{original}"))
    };
    // The `base` element gives the base of the links before it too; its
    // own `href` resolves against the retrieval URL.
    assert_eq!(
        resolved("site.css"),
        "http://example.test/docs/guide/site.css"
    );
    assert_eq!(resolved("/docs/guide/"), "http://example.test/docs/guide/");
    // `xml:base` scopes its element above the `base` element's base.
    assert_eq!(
        resolved("there.html"),
        "http://example.test/other/there.html"
    );
    assert_eq!(resolved("bg.png"), "http://example.test/other/bg.png");
    // A srcset's URLs, one with a reference, and CSS in CDATA.
    assert_eq!(
        resolved("img/a&b.png"),
        "http://example.test/docs/guide/img/a&b.png"
    );
    assert_eq!(
        resolved("img/narrow.webp"),
        "http://example.test/docs/guide/img/narrow.webp"
    );
    assert_eq!(
        resolved("img/rule.svg"),
        "http://example.test/docs/guide/img/rule.svg"
    );
    assert_eq!(report.rows.len(), 16);
    // Each link's line is the line of the source it was found on.
    let row = report
        .rows
        .iter()
        .find(|r| r.link.original == "print.css")
        .unwrap();
    assert_eq!(row.link.line, 10);
}

#[test]
fn svg_reads_style_elements_and_attributes_keeping_same_document_urls() {
    let report = as_expected("xml/drawing.svg", "xml/drawing.expected.svg");
    assert!(
        report
            .rows
            .iter()
            .all(|r| !r.link.original.starts_with('#'))
    );
    let theirs = lxml_svg_links(
        &fixture("xml/drawing.svg"),
        "http://example.test/d/drawing.svg",
    );
    for (original, resolved) in &theirs {
        let ours = report.rows.iter().find(|r| &r.link.original == original);
        assert_eq!(ours.map(|r| &r.link.resolved), Some(resolved), "{original}");
    }
    assert_eq!(theirs.len(), 2);
}

/// The `href` and `xlink:href` of an SVG document (but same-document ones)
/// resolved against lxml's `element.base`.
fn lxml_svg_links(path: &std::path::Path, retrieved_from: &str) -> Vec<(String, String)> {
    const SCRIPT: &str = r##"
import json, sys
from urllib.parse import urljoin
from lxml import etree
tree = etree.parse(sys.argv[1], base_url=sys.argv[2])
found = []
for el in tree.iter(etree.Element):
    for name in ("href", "{http://www.w3.org/1999/xlink}href"):
        v = el.get(name)
        if v is not None and not v.startswith("#"):
            found.append([v, urljoin(el.base, v)])
print(json.dumps(found))
"##;
    let out = Command::new(python())
        .args(["-c", SCRIPT])
        .arg(path)
        .arg(retrieved_from)
        .output()
        .expect("python runs");
    assert!(
        out.status.success(),
        "lxml: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn only_the_first_xhtml_base_with_an_href_counts() {
    let page = |head: &str| {
        format!(
            "<html xmlns=\"http://www.w3.org/1999/xhtml\"><head>{head}</head><body><a href=\"p\">p</a></body></html>"
        )
    };
    let first = |head: &str| {
        let report = rewrite(
            Kind::Xml,
            page(head).as_bytes(),
            Rules::Rfc1808,
            "http://h/d/x.xhtml",
        );
        let row = report
            .rows
            .iter()
            .find(|r| r.link.original == "p")
            .cloned()
            .unwrap();
        (row.link.resolved, report.warnings)
    };
    let (p, warnings) = first("<base target=\"_top\"/><base href=\"/a/\"/><base href=\"/b/\"/>");
    assert_eq!(p, "http://h/a/p");
    assert!(warnings.is_empty());
    // An empty or `javascript:` href is ignored, as in HTML; the first one
    // with an href is the only one looked at.
    assert_eq!(
        first("<base href=\"\"/><base href=\"/b/\"/>").0,
        "http://h/d/p"
    );
    assert_eq!(first("<base href=\"javascript:x\"/>").0, "http://h/d/p");
    // A `base` outside the XHTML namespace gives nothing.
    assert_eq!(
        first("<base xmlns=\"urn:x\" href=\"/a/\"/>").0,
        "http://h/d/p"
    );
    // A forced base is above it.
    let rewriter = Rewriter::new().kind(Kind::Xml).base("http://f/");
    let report: DocumentReport = rewriter
        .rewrite(page("<base href=\"/a/\"/>").as_bytes())
        .unwrap()
        .into();
    let row = report.rows.iter().find(|r| r.link.original == "p").unwrap();
    assert_eq!(row.link.resolved, "http://f/p");
    let row = report
        .rows
        .iter()
        .find(|r| r.link.original == "/a/")
        .unwrap();
    assert_eq!(row.link.resolved, "http://f/a/");
}

#[test]
fn a_declaration_after_white_space_or_a_comment_is_read_with_a_warning() {
    for head in ["\n  ", "<!-- generator: x -->\n"] {
        let feed = format!(
            "{head}<?xml version=\"1.0\"?>\n<rss version=\"2.0\"><channel><link>a/</link></channel></rss>\n"
        );
        let report = rewrite(Kind::Xml, feed.as_bytes(), Rules::Rfc1808, "http://h/feed");
        let out = String::from_utf8(report.output.expect("rewritten")).unwrap();
        assert_eq!(out, feed.replace("<link>a/", "<link>http://h/a/"));
        assert_eq!(report.warnings.len(), 1, "{:?}", report.warnings);
        assert_eq!(report.warnings[0].kind, WarningKind::Malformed);
        assert!(
            report.warnings[0]
                .message
                .contains("xml declaration is not at the start")
        );
        assert!(
            report.warnings[0].place[0].starts_with("line 2"),
            "{:?}",
            report.warnings[0]
        );
    }
    // At the start, after a byte order mark: no warning.
    let feed = b"\xef\xbb\xbf<?xml version=\"1.0\"?><rss version=\"2.0\"><channel><link>a/</link></channel></rss>";
    let report = rewrite(Kind::Xml, feed, Rules::Rfc1808, "http://h/feed");
    assert!(
        report.output.is_some() && report.warnings.is_empty(),
        "{:?}",
        report.warnings
    );
}

/// One `content` of escaped HTML with `links` links, their quotes written
/// as they are (one `&quot;` in a title, so `"` has a reference too), and
/// what it becomes against `http://example.org/feed/`: each `href` value
/// absolute, every other byte as it was.
fn escaped_feed(links: usize) -> (String, String) {
    let feed = |href: &dyn Fn(usize) -> String| {
        let anchors: String = (0..links)
            .map(|i| format!("&lt;a href=\"{}\"&gt;link {i}&lt;/a&gt;\n", href(i)))
            .collect();
        format!(
            "<?xml version=\"1.0\"?>\n<feed xmlns=\"http://www.w3.org/2005/Atom\"><entry>\
             <content type=\"html\">&lt;p title=&quot;t&quot;&gt;\n{anchors}</content>\
             </entry></feed>\n"
        )
    };
    (
        feed(&|i| format!("p{i}.html")),
        feed(&|i| format!("http://example.org/feed/p{i}.html")),
    )
}

/// The output depends on the input alone: a feed of 20,000 escaped links
/// in one element comes out as the same bytes while other threads keep
/// every core busy (a diff of the old and new HTML under a deadline
/// settled, under load, for coarser changes that wrote `href="` as
/// `href=&quot;`).
#[test]
fn a_large_escaped_feed_comes_out_the_same_under_load() {
    use sha2::Digest as _;
    use std::sync::atomic::{AtomicBool, Ordering};
    let (input, expected) = escaped_feed(20_000);
    let stop = AtomicBool::new(false);
    let busy = std::thread::available_parallelism().map_or(2, |n| n.get());
    let outputs: Vec<Vec<u8>> = std::thread::scope(|scope| {
        for _ in 0..busy {
            scope.spawn(|| {
                let mut x = 0u64;
                while !stop.load(Ordering::Relaxed) {
                    x = std::hint::black_box(x.wrapping_mul(31).wrapping_add(7));
                }
            });
        }
        let outputs = (0..2)
            .map(|_| {
                let report = rewrite(
                    Kind::Xml,
                    input.as_bytes(),
                    Rules::Rfc1808,
                    "http://example.org/feed/",
                );
                assert_eq!(report.rewritten, 20_000);
                report.output.expect("changed")
            })
            .collect();
        stop.store(true, Ordering::Relaxed);
        outputs
    });
    for output in &outputs {
        assert!(output == expected.as_bytes(), "the output differs");
        let digest: String = sha2::Sha256::digest(output)
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        assert_eq!(digest, ESCAPED_FEED_SHA256);
    }
}

/// The SHA-256 of the output of [`escaped_feed`] with 20,000 links.
const ESCAPED_FEED_SHA256: &str =
    "d27d998c13f5f5ca6974fd9b9de9a37b8117d6088810450b6f2c6bb9aadb78f7";

/// The HTML reader's edits land where they were made in the content: past
/// a byte order mark the content opens with (the HTML reader's offsets
/// start after it), a late `meta` charset (the content is text, read as
/// UTF-8 whatever it says), references and a CDATA section around them.
#[test]
fn escaped_html_edits_land_past_a_content_bom_and_a_meta_charset() {
    let cases = [
        (
            "<rss version=\"2.0\"><channel><item><description>&lt;meta charset=\"iso-8859-1\"&gt;caf\u{e9} &#233; \
             &lt;a href=\"x&amp;amp;y\"&gt;\u{e9}&lt;/a&gt;<![CDATA[<img src=\"i.png\">]]></description></item></channel></rss>",
            "<rss version=\"2.0\"><channel><item><description>&lt;meta charset=\"iso-8859-1\"&gt;caf\u{e9} &#233; \
             &lt;a href=\"http://h/d/x&amp;amp;y\"&gt;\u{e9}&lt;/a&gt;<![CDATA[<img src=\"http://h/d/i.png\">]]></description></item></channel></rss>",
        ),
        (
            "<feed xmlns=\"http://www.w3.org/2005/Atom\"><content type=\"html\">&#xFEFF;&lt;a href=\"x\"&gt;</content></feed>",
            "<feed xmlns=\"http://www.w3.org/2005/Atom\"><content type=\"html\">&#xFEFF;&lt;a href=\"http://h/d/x\"&gt;</content></feed>",
        ),
    ];
    for (input, expected) in cases {
        let report = rewrite(Kind::Xml, input.as_bytes(), Rules::Rfc1808, "http://h/d/");
        assert!(report.warnings.is_empty(), "{:?}", report.warnings);
        let output = String::from_utf8(report.output.unwrap()).unwrap();
        assert_eq!(output, expected);
    }
}
