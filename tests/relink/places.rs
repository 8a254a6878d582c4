//! Where each reader says a link is (`LinkPlace`): the arm, the names and
//! text the rows have always had, and the list and path a WAT record
//! gives it.

use relink::wat::WatWriter;
use relink::{
    AttrSyntax, Details, Event, ExtraAttribute, Input, Kind, LinkPlace, Output, Rewriter,
};
use serde_json::Value;

/// The places of the links found in `input` read as `kind` (with `--attr
/// data-x`), and the JSON blocks of its WAT records.
fn places_and_wat_blocks(kind: Kind, input: &str) -> (Vec<LinkPlace>, Vec<Value>) {
    let data = ExtraAttribute {
        name: "data-x".into(),
        syntax: AttrSyntax::Url,
    };
    let (mut places, mut wat) = (Vec::new(), Vec::new());
    let mut writer = WatWriter::new("doc").retrieved_from("http://a/");
    let rewriter = Rewriter::new().retrieved_from("http://a/").attribute(data);
    let rewriter = rewriter.kind(kind).details(Details::Attributes);
    let mut handler = |event: Event<'_>| {
        if let Event::Rows(rows) = &event {
            places.extend(rows.iter().map(|row| row.link.place.clone()));
        }
        Ok(writer.event(&mut wat, &event)?)
    };
    let input = Input::bytes(input.as_bytes());
    rewriter.run(input, Output::Nowhere, &mut handler).unwrap();
    writer.finish(&mut wat).unwrap();
    let mut text = String::new();
    let mut gz = flate2::read::MultiGzDecoder::new(&wat[..]);
    std::io::Read::read_to_string(&mut gz, &mut text).unwrap();
    let blocks = text.split("\r\n\r\n");
    (
        places,
        blocks
            .filter_map(|b| serde_json::from_str(b).ok())
            .collect(),
    )
}

/// The places of the links found in `input` read as `kind`, and the
/// `HTML-Metadata` of its WAT record.
fn places_and_wat(kind: Kind, input: &str) -> (Vec<LinkPlace>, Value) {
    let (places, blocks) = places_and_wat_blocks(kind, input);
    let html = &blocks[0]["Envelope"]["Payload-Metadata"]["HTTP-Response-Metadata"];
    (places, html["HTML-Metadata"].clone())
}

/// The paths of a list of WAT links.
fn paths(links: &Value) -> Vec<&str> {
    let links = links.as_array().map(Vec::as_slice).unwrap_or_default();
    links.iter().map(|l| l["path"].as_str().unwrap()).collect()
}

/// The paths of every link of a WAT record, whichever list holds it.
fn all_paths(html: &Value) -> Vec<&str> {
    let lists = [&html["Head"]["Link"], &html["Links"], &html["Relink-Links"]];
    lists.into_iter().flat_map(paths).collect()
}

/// The places of the links every reader finds in a small document, and
/// the WAT paths of them all.
fn places_of_every_reader() -> (Vec<LinkPlace>, Vec<String>) {
    let rss = "<rss version='2.0' xmlns:atom='http://www.w3.org/2005/Atom'><channel>\
        <atom:link href='f'/><link>l</link><item><enclosure url='e'/></item></channel></rss>";
    let record = "HTTP/1.1 301 Moved\r\nLocation: /m\r\n\r\n";
    let warc = format!(
        "WARC/1.1\r\nWARC-Type: response\r\nWARC-Target-URI: http://a/\r\n\
         Content-Length: {}\r\n\r\n{record}\r\n\r\n",
        record.len()
    );
    let inputs = [
        (
            Kind::Html,
            "<a href=x></a><style>p{background:url(y)}</style><div data-x=z>",
        ),
        (Kind::Css, "p { background: url(c) }"),
        (Kind::Markdown, "[a](m) ![b](i) <http://h/>\n\n[c]: d\n"),
        (Kind::Rst, "`a <r>`_\n\n.. image:: i\n\n.. _t: u\n"),
        (Kind::Xml, rss),
        (
            Kind::Xml,
            "<svg xmlns='http://www.w3.org/2000/svg'><a href='s'/></svg>",
        ),
        (Kind::Message, "Content-Location: http://a/p\r\n\r\nbody"),
        (Kind::Warc, &warc),
    ];
    let (mut places, mut wat_paths) = (Vec::new(), Vec::new());
    for (kind, input) in inputs {
        let (found, html) = places_and_wat(kind, input);
        places.extend(found);
        wat_paths.extend(all_paths(&html).into_iter().map(str::to_owned));
    }
    (places, wat_paths)
}

#[test]
fn every_readers_places_keep_their_row_names_and_have_their_wat_path() {
    let (places, wat_paths) = places_of_every_reader();
    let s = String::from;
    let (attr, given, feed) = (LinkPlace::Attribute, LinkPlace::Given, LinkPlace::Feed);
    let text = LinkPlace::Text;
    let (md, rst) = (LinkPlace::Markdown, LinkPlace::Rst);
    let location = "Content-Location";
    let expected = [
        (
            attr(s("a"), s("href")),
            ("a", "href"),
            "<a href>",
            "A@/href",
        ),
        (text(s("style")), ("style", ""), "<style>", "STYLE/#text"),
        (
            given(s("div"), s("data-x")),
            ("div", "data-x"),
            "<div data-x>",
            "DIV@/data-x",
        ),
        (LinkPlace::StyleSheet, ("", "css"), "css", "CSS/#text"),
        (md("link"), ("", "link"), "link", "MIME@/link"),
        (md("image"), ("", "image"), "image", "MIME@/image"),
        (
            md("autolink"),
            ("", "autolink"),
            "autolink",
            "MIME@/autolink",
        ),
        (
            md("definition"),
            ("", "definition"),
            "definition",
            "MIME@/definition",
        ),
        (rst("link"), ("", "link"), "link", "MIME@/link"),
        (rst("image"), ("", "image"), "image", "MIME@/image"),
        (rst("target"), ("", "target"), "target", "MIME@/target"),
        (
            feed(s("atom:link"), s("href")),
            ("atom:link", "href"),
            "<atom:link href>",
            "ATOM:LINK@/href",
        ),
        (text(s("link")), ("link", ""), "<link>", "LINK/#text"),
        (
            feed(s("enclosure"), s("url")),
            ("enclosure", "url"),
            "<enclosure url>",
            "ENCLOSURE@/url",
        ),
        (
            attr(s("a"), s("href")),
            ("a", "href"),
            "<a href>",
            "A@/href",
        ),
        (
            LinkPlace::MimeHeader(s(location)),
            ("", location),
            location,
            "MIME@/Content-Location",
        ),
        (
            LinkPlace::HttpHeader(s("Location")),
            ("http", "Location"),
            "<http Location>",
            "HTTP@/Location",
        ),
    ];
    assert_eq!(places.len(), expected.len(), "{places:?}");
    for (place, (arm, names, shown, path)) in places.iter().zip(expected) {
        assert_eq!(*place, arm);
        assert_eq!((place.element(), place.attribute()), names);
        assert_eq!(place.to_string(), shown);
        assert!(
            wat_paths.iter().any(|p| p == path),
            "{path} in {wat_paths:?}"
        );
    }
}

#[test]
fn a_feed_files_links_are_relinks_own_and_a_pages_common_crawls() {
    // A feed read as a file has no HTTP head to say it is no page: its
    // links are relink's own all the same, as a feed record's are.
    let feed = "<feed xmlns='http://www.w3.org/2005/Atom'><link href='f'/>\
        <entry><link href='e'/><icon>i</icon></entry></feed>";
    let (_, html) = places_and_wat(Kind::Xml, feed);
    assert_eq!(paths(&html["Head"]["Link"]), [""; 0]);
    assert_eq!(paths(&html["Links"]), [""; 0]);
    let own = ["LINK@/href", "LINK@/href", "ICON/#text"];
    assert_eq!(paths(&html["Relink-Links"]), own);
    // An XHTML or SVG document's are a page's.
    let page = "<html xmlns='http://www.w3.org/1999/xhtml'><head><link href='s'/>\
        <style>p{background:url(b)}</style></head><body><a href='x'/>\
        <svg xmlns='http://www.w3.org/2000/svg'><image href='i'/></svg></body></html>";
    let (_, html) = places_and_wat(Kind::Xml, page);
    assert_eq!(paths(&html["Head"]["Link"]), ["LINK@/href"]);
    let links = ["STYLE/#text", "A@/href", "IMAGE@/href"];
    assert_eq!(paths(&html["Links"]), links);
    assert!(html.get("Relink-Links").is_none());
}

/// A record's heads reach the WAT writer as the reader read them: fields
/// unfolded, in order, a start line in three parts; the WAT record joins
/// a field named twice.
#[test]
fn a_records_heads_are_values_and_its_wat_record_joins_a_field_named_twice() {
    let http = "HTTP/1.1 404 Not Found\r\nSet-Cookie: a=1\r\nX-Long: a\r\n  b\r\n\
        Set-Cookie: b=2\r\nContent-Type: text/html\r\n\r\n<a href=x>x</a>";
    let request = "GET /a?b HTTP/1.1\r\nHost: h\r\n\r\n";
    let record = |kind: &str, block: &str| {
        format!(
            "WARC/1.0\r\nWARC-Type: {kind}\r\nWARC-Target-URI: <http://h/a?b>\r\n\
             Content-Length: {}\r\n\r\n{block}\r\n\r\n",
            block.len()
        )
    };
    let archive = record("response", http) + &record("request", request);
    let out = Rewriter::new().details(Details::Attributes);
    let out = out.rewrite(archive.as_bytes()).unwrap();
    let heads = out.rows()[0]
        .record
        .as_ref()
        .unwrap()
        .heads
        .clone()
        .unwrap();
    let field = |n: &str, v: &str| (n.to_owned(), v.to_owned());
    assert_eq!(heads.version.as_deref(), Some("WARC/1.0"));
    assert_eq!(heads.warc[1], field("WARC-Target-URI", "<http://h/a?b>"));
    let line = ["HTTP/1.1", "404", "Not Found"].map(String::from);
    assert_eq!(heads.start_line, Some(line));
    let fields = [
        ("Set-Cookie", "a=1"),
        ("X-Long", "a b"),
        ("Set-Cookie", "b=2"),
    ];
    assert_eq!(heads.http[..3], fields.map(|(n, v)| field(n, v)));
    let (_, blocks) = places_and_wat_blocks(Kind::Warc, &archive);
    let response = &blocks[0]["Envelope"]["Payload-Metadata"]["HTTP-Response-Metadata"];
    assert_eq!(response["Headers"]["Set-Cookie"], "a=1, b=2");
    assert_eq!(response["Headers"]["X-Long"], "a b");
    assert_eq!(response["Response-Message"]["Reason"], "Not Found");
    let header = &blocks[0]["Envelope"]["WARC-Header-Metadata"];
    assert_eq!(header["WARC-Target-URI"], "http://h/a?b");
    let request = &blocks[1]["Envelope"]["Payload-Metadata"]["HTTP-Request-Metadata"];
    let message = serde_json::json!({"Method": "GET", "Path": "/a?b", "Version": "HTTP/1.1"});
    assert_eq!(request["Request-Message"], message);
}
