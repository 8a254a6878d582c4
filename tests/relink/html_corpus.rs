//! The HTML engine over the html5lib-tests tree-construction inputs: every
//! tag is located, nothing panics, no base means no change, and with a base
//! the output parses to the same tree as the input except that each URL
//! attribute holds the resolution of its original value.

use html5ever::tokenizer::TagKind;
use relink::html::tree::Namespace::{self, Html, Svg};
use relink::html::tree::{DocumentKind, parse};
use relink::{BaseUrl, Kind, Link, Rewriter, Rewritten, Rules, Warning};

use crate::corpus::tree_construction_inputs;
use crate::oracle::{self, Values, tree};

const RETRIEVED_FROM: &str = "http://example.com/dir/page.html?q#f";

#[test]
fn every_tag_lies_where_its_span_says() {
    let inputs = tree_construction_inputs();
    assert!(inputs.len() > 1500, "{} inputs", inputs.len());
    let mut tags = 0;
    for (name, data) in &inputs {
        // Every tag is kept with every attribute; relink's own parse keeps
        // a subset of these, the same (see the_tree_builder_is_given_only_what_it_reads).
        let every = relink::html::tree::parse_with(
            data,
            DocumentKind::Document,
            relink::html::tokenizer::Attributes::All,
        );
        for tag in every.tags() {
            tags += 1;
            let source = &data[tag.span.clone()];
            assert!(
                source.starts_with('<') && source.ends_with('>'),
                "{name}: {source:?}"
            );
            let after = if tag.kind == TagKind::EndTag { 2 } else { 1 };
            let written: String = source[after..]
                .chars()
                .take_while(|c| !c.is_ascii_whitespace() && *c != '/' && *c != '>')
                .collect();
            assert_eq!(
                written.to_ascii_lowercase().replace('\0', "\u{fffd}"),
                &**tag.name,
                "{name}: {source:?}"
            );
        }
    }
    assert!(tags > 5000, "{tags} tags");
}

/// What rewriting one document gave, owned.
struct Outcome {
    /// The new bytes, `None` when nothing changed.
    output: Option<Vec<u8>>,
    /// Whether the document had a base.
    has_base: bool,
    links: Vec<Link>,
    rewritten: usize,
    warnings: Vec<Warning>,
}

impl From<Rewritten<'_>> for Outcome {
    fn from(done: Rewritten<'_>) -> Self {
        Outcome {
            output: done.changed().then(|| done.bytes().to_vec()),
            has_base: done.without_base() == 0,
            links: done.links().into_iter().cloned().collect(),
            rewritten: done.rewritten(),
            warnings: done.warnings().to_vec(),
        }
    }
}

/// An HTML rewrite retrieved from `url`, when given.
fn html(url: Option<&str>) -> Rewriter {
    let rewriter = Rewriter::new().kind(Kind::Html);
    match url {
        Some(url) => rewriter.retrieved_from(url),
        None => rewriter,
    }
}

/// [`html`], the documents read as UTF-8.
fn utf8(url: Option<&str>) -> Rewriter {
    html(url).encoding("utf-8").unwrap()
}

/// Rewrites `bytes` with `rewriter`.
fn rewrite(rewriter: &Rewriter, bytes: &[u8]) -> Outcome {
    rewriter.rewrite(bytes).unwrap().into()
}

/// The retrieval URL as a base, for the oracle.
fn retrieved() -> BaseUrl {
    BaseUrl::parse(RETRIEVED_FROM, Rules::Rfc1808).unwrap()
}

#[test]
fn without_a_base_nothing_changes() {
    for (name, data) in inputs_with_links() {
        let outcome = rewrite(&utf8(None), data.as_bytes());
        if !outcome.has_base {
            assert!(outcome.output.is_none(), "{name}: changed without a base");
            assert!(outcome.links.iter().all(|l| !l.changed), "{name}");
        }
    }
}

/// Link-bearing snippets, spliced into the corpus inputs so that the hard
/// inputs hold links in every context (inside tags, comments, raw text,
/// tables, foreign content).
const SNIPPETS: &[&str] = &[
    r#"<a href="../g?x=1&amp;y=2#s">"#,
    "<img src=pic.png srcset='a.png 1x, b&amp;c.png 2x'>",
    "<svg><image xlink:href='i.png'/><use href=#i /></svg>",
    r#"<p style="background:url(bg.png)">"#,
    "<base href=sub/>",
    "<form action=go?a&b>",
    "<link rel=stylesheet href=s.css><style>p{background:url( t.png )}</style>",
    r#"<iframe srcdoc="<a href=&quot;in.html&quot;>x</a>"></iframe>"#,
    "<table><td background=td.png><a href=tab.html>",
    "<template><a href=tpl.html></a></template><noscript><img src=ns.png></noscript>",
];

/// Each corpus input as it is, and with a snippet spliced in at its start,
/// middle and end.
pub fn inputs_with_links() -> Vec<(String, String)> {
    let mut out = Vec::new();
    for (n, (name, data)) in tree_construction_inputs().into_iter().enumerate() {
        for (k, at) in [0, data.len() / 2, data.len()].into_iter().enumerate() {
            let mut at = at;
            while !data.is_char_boundary(at) {
                at += 1;
            }
            let snippet = SNIPPETS[(n + k) % SNIPPETS.len()];
            let spliced = format!("{}{snippet}{}", &data[..at], &data[at..]);
            out.push((
                format!("{name} + snippet {} at {at}", (n + k) % SNIPPETS.len()),
                spliced,
            ));
        }
        out.push((name, data));
    }
    out
}

#[test]
fn with_a_base_only_urls_change_in_the_tree() {
    let retrieved = retrieved();
    let mut changed_documents = 0;
    let mut checked_urls = 0;
    let mut failures = Vec::new();
    for (name, data) in inputs_with_links() {
        let outcome = rewrite(&utf8(Some(RETRIEVED_FROM)), data.as_bytes());
        let Some(output) = outcome.output else {
            continue;
        };
        changed_documents += 1;
        let output = String::from_utf8(output).expect("utf-8 stays utf-8");
        match oracle::compare(&tree(&data), &tree(&output), &retrieved, Values::Exact) {
            Ok(checked) => checked_urls += checked,
            Err(why) => failures.push(format!(
                "{name}: {why}\n  input:  {data:?}\n  output: {output:?}"
            )),
        }
    }
    assert!(
        changed_documents > 4000,
        "{changed_documents} documents changed"
    );
    assert!(checked_urls > 4000, "{checked_urls} urls checked");
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn real_pages_change_only_their_urls() {
    let retrieved = retrieved();
    let dir = crate::fixture("corpus/pages");
    let mut pages = 0;
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "html") {
            continue;
        }
        let data = std::fs::read_to_string(&path).unwrap();
        let outcome = rewrite(&utf8(Some(RETRIEVED_FROM)), data.as_bytes());
        assert!(
            outcome.warnings.is_empty(),
            "{}: {:?}",
            path.display(),
            outcome.warnings
        );
        let output = String::from_utf8(outcome.output.expect("relative links")).unwrap();
        let (before, after) = (tree(&data), tree(&output));
        let checked = oracle::compare(&before, &after, &retrieved, Values::Exact)
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert!(checked > 100, "{}: {checked} urls", path.display());
        pages += 1;
    }
    assert_eq!(pages, 3);
}

/// The saved pages of `fixtures/pages/real/` (see its README): each
/// page's file, the host it was saved from (`-` when unknown), the SHA-256
/// its manifest gives, and its bytes.
pub fn real_pages() -> Vec<(String, String, String, Vec<u8>)> {
    use std::io::Read;
    let dir = crate::fixture("pages/real");
    let manifest = std::fs::read_to_string(dir.join("MANIFEST.tsv")).unwrap();
    let mut pages = Vec::new();
    for line in manifest.lines().skip(1) {
        let fields: Vec<&str> = line.split('\t').collect();
        let file = std::fs::File::open(dir.join(fields[0])).unwrap();
        let mut page = Vec::new();
        flate2::read::GzDecoder::new(file)
            .read_to_end(&mut page)
            .unwrap();
        let (name, host, digest) = (fields[0], fields[2], fields[4]);
        pages.push((name.to_owned(), host.to_owned(), digest.to_owned(), page));
    }
    pages
}

/// The real pages are the ones their origins keep (the digests of the
/// manifest), at least 100 of them from at least 30 hosts.
#[test]
fn the_real_pages_are_their_manifests() {
    use sha2::Digest;
    let pages = real_pages();
    for (name, _, digest, page) in &pages {
        let hex: String = sha2::Sha256::digest(page)
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        assert_eq!(&hex, digest, "{name}");
    }
    let hosts: std::collections::BTreeSet<&str> = pages
        .iter()
        .map(|(_, host, _, _)| host.as_str())
        .filter(|h| *h != "-")
        .collect();
    assert_eq!((pages.len(), hosts.len()), (264, 227));
}

/// A sixth of the real pages (every one costs about a minute in a debug
/// build: `cargo bench --bench throughput` checks them all), each read as
/// retrieved from its own host, parses to the same tree after the rewrite
/// except that each URL holds the resolution of its original value.
#[test]
fn real_saved_pages_change_only_their_urls() {
    let (mut changed, mut checked_urls, mut failures) = (0, 0, Vec::new());
    for (name, host, _, page) in real_pages().into_iter().step_by(6) {
        let host = if host == "-" { "example.com" } else { &host };
        let url = format!("https://{host}/saved/page.html");
        let retrieved = BaseUrl::parse(&url, Rules::Rfc1808).unwrap();
        let outcome = rewrite(&html(Some(&url)), &page);
        let Some(output) = outcome.output else {
            continue;
        };
        changed += 1;
        // unit: the encoding the page is read in, which no run reports (the
        // robustness properties hold the rewrite to the sniffing).
        let encoding = relink::encoding::sniff_html(&page, None).encoding;
        let (before, _, _) = encoding.decode(&page);
        let (after, _, _) = encoding.decode(&output);
        match oracle::compare(&tree(&before), &tree(&after), &retrieved, Values::Exact) {
            Ok(checked) => checked_urls += checked,
            Err(why) => failures.push(format!("{name}: {why}")),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(changed > 30, "{changed} pages changed");
    assert!(checked_urls > 5000, "{checked_urls} urls checked");
}

mod properties {
    use proptest::prelude::*;

    use super::*;

    /// Text made of what matters to HTML, links and references.
    fn htmlish() -> impl Strategy<Value = String> {
        let pieces = prop_oneof![
            Just("<a href=".to_owned()),
            Just("<img src='".to_owned()),
            Just("<base href=\"".to_owned()),
            Just("<svg><use xlink:href=".to_owned()),
            Just("<style>p{background:url(".to_owned()),
            Just("<iframe srcdoc=\"".to_owned()),
            Just("<meta http-equiv=refresh content='0;url=".to_owned()),
            Just("<template>".to_owned()),
            Just("<!--".to_owned()),
            Just("<script>".to_owned()),
            "[a-z./#?;:&= \"'<>\\r\\n-]{0,6}",
            Just("&amp;".to_owned()),
            Just("&#x2e;".to_owned()),
            Just("é".to_owned()),
        ];
        prop::collection::vec(pieces, 0..24).prop_map(|p| p.concat())
    }

    /// Random bytes, alone or spliced into HTML-ish text.
    fn any_bytes() -> impl Strategy<Value = Vec<u8>> {
        prop_oneof![
            prop::collection::vec(any::<u8>(), 0..200),
            // Bytes that open as a gzip stream, so that one is tried every run.
            prop::collection::vec(any::<u8>(), 0..50)
                .prop_map(|rest| [&[0x1f, 0x8b][..], &rest].concat()),
            (
                htmlish(),
                prop::collection::vec(any::<u8>(), 1..8),
                any::<prop::sample::Index>(),
            )
                .prop_map(|(text, bytes, at)| {
                    let mut text = text.into_bytes();
                    let at = at.index(text.len() + 1);
                    text.splice(at..at, bytes);
                    text
                }),
        ]
    }

    proptest! {
        #[test]
        fn never_panics_and_changes_nothing_without_a_base(text in htmlish()) {
            let outcome = rewrite(&html(None), text.as_bytes());
            if !outcome.has_base {
                prop_assert!(outcome.output.is_none());
            }
        }

        /// Any bytes, as HTML and as CSS, in whatever encoding they are
        /// read in: the output differs from the input exactly when a link
        /// changed, and a second pass changes nothing.
        #[test]
        fn any_bytes_change_only_with_a_link_and_only_once(bytes in any_bytes()) {
            for css in [false, true] {
                let rewriter = match css {
                    true => html(Some(RETRIEVED_FROM)).kind(Kind::Css),
                    false => html(Some(RETRIEVED_FROM)),
                };
                let rewrite = |bytes: &[u8]| rewrite(&rewriter, bytes);
                // Bytes that open as a gzip or zstd stream are read as one,
                // and fail as one: the only inputs with an error.
                if let Err(error) = rewriter.rewrite(&bytes) {
                    let compressed = bytes.starts_with(&[0x1f, 0x8b])
                        || bytes.starts_with(&[0x28, 0xb5, 0x2f, 0xfd]);
                    prop_assert!(compressed, "css: {}: {}", css, error);
                    continue;
                }
                let once = rewrite(&bytes);
                let changed = once.links.iter().filter(|l| l.changed).count();
                prop_assert_eq!(once.rewritten, changed, "css: {}", css);
                prop_assert_eq!(once.output.is_some(), changed > 0, "css: {}", css);
                if let Some(output) = &once.output {
                    prop_assert_ne!(output, &bytes);
                    let twice = rewrite(output);
                    prop_assert!(twice.output.is_none(), "css: {}: {:?}", css, twice.output);
                }
            }
        }

        #[test]
        fn with_a_base_only_urls_change(text in htmlish()) {
            let outcome = rewrite(&utf8(Some(RETRIEVED_FROM)), text.as_bytes());
            if let Some(output) = outcome.output {
                let output = String::from_utf8(output).unwrap();
                let (before, after) = (tree(&text), tree(&output));
                let result = oracle::compare(&before, &after, &retrieved(), Values::Exact);
                prop_assert!(result.is_ok(), "{:?}\n{:?}\n{:?}", result, text, output);
            }
        }
    }
}

/// What a rewrite of a page amounts to, in counts that bound its work:
/// the tokens of relink's tokenizer as relink parses (the tree builder
/// given only what it reads), the attribute spans it logged, the records
/// the parsed document keeps (as the namespace of each one's element),
/// the links found and rewritten, and how many bytes the output grew by.
#[derive(Debug, PartialEq, Eq)]
struct Work {
    tokens: usize,
    attributes: usize,
    records: Vec<Option<Namespace>>,
    links: usize,
    rewritten: usize,
    growth: usize,
}

fn work(page: &str) -> (Work, String) {
    use relink::html::tokenizer::{Attributes, Options as TokenizerOptions, SpanLog, tokenize};
    let log = SpanLog::default();
    let options = TokenizerOptions {
        attributes: Attributes::TreeBuilder,
        ..TokenizerOptions::default()
    };
    let tokens = tokenize(page, oracle::Tokens::default(), &log, options)
        .0
        .into_inner();
    let outcome = rewrite(&utf8(Some(RETRIEVED_FROM)), page.as_bytes());
    assert!(outcome.warnings.is_empty(), "{:?}", outcome.warnings);
    let output = String::from_utf8(outcome.output.unwrap()).unwrap();
    let work = Work {
        tokens: tokens.len(),
        attributes: (0..log.len()).map(|i| log.attrs(i).len()).sum(),
        records: parse(page, DocumentKind::Document)
            .tags()
            .map(|t| t.element.map(|e| e.namespace))
            .collect(),
        links: outcome.links.len(),
        rewritten: outcome.rewritten,
        growth: output.len() - page.len(),
    };
    (work, output)
}

/// A tag whose value holds many `<a`, and one of many attributes, most of
/// them repeated: one token each, with each distinct attribute logged
/// once, and the work after the tokenizer does not grow with the `<a`s.
#[test]
fn a_hostile_tag_is_one_token_whatever_its_size() {
    for n in [50_000, 100_000] {
        let mut page = String::from("<p title=\"");
        page.push_str(&"<a".repeat(2 * n));
        page.push_str("\" style=\"background:url(x.png)\">");
        page.push_str("<div");
        for i in 0..n {
            page.push_str(&format!(" a{}=1", i % (n / 2)));
        }
        page.push_str(" data=z><a href=y>");
        let (work, output) = work(&page);
        let want = Work {
            // p, div, a, and the end of the input.
            tokens: 4,
            // title and style; the distinct names and data; href.
            attributes: 2 + (n / 2 + 1) + 1,
            records: vec![Some(Html); 3],
            links: 2,
            rewritten: 2,
            growth: 2 * "http://example.com/dir/".len(),
        };
        assert_eq!(work, want, "{n}");
        // Every tag is where the tokenizer says: all are rewritten.
        assert!(output.contains("url(http://example.com/dir/x.png)"));
        assert!(output.ends_with(" data=z><a href=http://example.com/dir/y>"));
    }
}

/// Elements nested far past the tree depth limit ([`MAX_TREE_DEPTH`]),
/// where they are flattened: one token per tag, the document keeps records
/// only of the tags with links whatever the depth, and namespaces and
/// links stay right. (The time it takes is the throughput bench's, on its
/// `<div> nested` shape.)
///
/// [`MAX_TREE_DEPTH`]: relink::html::tree::MAX_TREE_DEPTH
#[test]
fn deeply_nested_elements_keep_their_links_and_namespaces() {
    for n in [10_000, 50_000] {
        let mut page = String::from("<a href=top>");
        page.push_str(&"<div><span>".repeat(n));
        page.push_str("<svg><use href=#i /><image href=i.png /></svg><a href=y>");
        page.push_str(&"</span></div>".repeat(n));
        page.push_str("<a href=end>");
        let (work, output) = work(&page);
        let want = Work {
            // Each nested start and end tag; a, svg, use, image, /svg, a,
            // a; the end of the input.
            tokens: 4 * n + 8,
            attributes: 5,
            records: vec![Some(Html), Some(Svg), Some(Svg), Some(Html), Some(Html)],
            // `#i` in SVG names an element of the document: found, kept.
            links: 5,
            rewritten: 4,
            growth: 4 * "http://example.com/dir/".len(),
        };
        assert_eq!(work, want, "{n}");
        assert!(output.starts_with("<a href=http://example.com/dir/top>"));
        assert!(output.contains(
            "<svg><use href=#i /><image href=http://example.com/dir/i.png /></svg><a href=http://example.com/dir/y>"
        ));
        assert!(output.ends_with("<a href=http://example.com/dir/end>"));
    }
}

/// Documents that stress what the tree builder reads of attributes:
/// formatting elements whose attribute lists are compared, `font` leaving
/// foreign content, hidden inputs in tables, `annotation-xml` integration
/// points, declarative shadow roots, bases, duplicates and end tags with
/// attributes; and text of every shape (long, white space only, NUL,
/// CR and LF, references) after `<pre>`, in tables, in `<select>`, in
/// foreign content, around the head and body.
pub fn attribute_stress() -> impl proptest::strategy::Strategy<Value = String> {
    use proptest::prelude::*;
    let pieces = prop_oneof![
        Just("<b class=x>"),
        Just("<b class=y>"),
        Just("<b id=x class=y>"),
        Just("<b class=y id=x>"),
        Just("<b class=x class=y>"),
        Just("<B CLASS=x>"),
        Just("<a href=1 title=t>"),
        Just("<a title=t href=1>"),
        Just("</b>"),
        Just("</a>"),
        Just("</b x=1>"),
        Just("<p>"),
        Just("<font color=red>"),
        Just("<font data-x=1>"),
        Just("<svg>"),
        Just("<math><annotation-xml encoding=text/html>"),
        Just("<math><annotation-xml encoding=other>"),
        Just("<input type=hidden>"),
        Just("<input type=text>"),
        Just("<table>"),
        Just("<tr><td>"),
        Just("<template shadowrootmode=open>"),
        Just("</template>"),
        Just("<base href=x/>"),
        Just("<base target=_top>"),
        Just("<frameset>"),
        Just("<img src=i>"),
        Just("text"),
        Just("\n"),
    ];
    // Text of every shape the lean path collapses, and the places where
    // the tree builder looks at it.
    let text = prop_oneof![
        Just("a long run of text, much longer than any stand-in for it"),
        Just(" "),
        Just("  \t "),
        Just("\n\n"),
        Just("\n x"),
        Just("\u{a0}"),
        Just("\0"),
        Just("a\0b"),
        Just("\r"),
        Just("\r\n"),
        Just("\r\nx"),
        Just("&#10;"),
        Just("&#13;"),
        Just("&#32;"),
        Just("&amp;"),
        Just("<pre>"),
        Just("<listing>"),
        Just("<textarea>"),
        Just("</textarea>"),
        Just("</pre>"),
        Just("<tbody>"),
        Just("<caption>"),
        Just("<colgroup>"),
        Just("</table>"),
        Just("<select>"),
        Just("<option>"),
        Just("</select>"),
        Just("<math><mi>"),
        Just("<svg><foreignObject>"),
        Just("</svg>"),
        Just("<![CDATA[ x\0]]>"),
        Just("<!-- c -->"),
        Just("<head>"),
        Just("</head>"),
        Just("<body>"),
        Just("</body>"),
        Just("</html>"),
        Just("<noscript>"),
        Just("<title>"),
        Just("<script>"),
        Just("</script>"),
    ];
    let pieces = prop_oneof![2 => pieces, 1 => text];
    prop::collection::vec(pieces, 0..48).prop_map(|p| p.concat())
}

/// Compares a document parsed as relink parses (the tree builder given
/// only the attributes it reads, only tags that can hold a link kept)
/// with one parsed with every attribute and every tag: each kept tag must
/// be the same there (span, name, attributes, element, namespace, template
/// contents), every tag that can hold a link must be kept, and the base
/// must be the same tag.
pub fn same_as_with_every_attribute(data: &str, kind: DocumentKind) -> Result<(), String> {
    same_document(&parse(data, kind), data, kind)?;
    let every = relink::html::tree::parse_lean(
        data,
        kind,
        relink::html::tokenizer::Attributes::TreeBuilderAnyAttribute,
    );
    same_document_keeping_any(&every, data, kind)
}

/// Compares `lean`, a parse of `data` as relink parses, with `data` parsed
/// with every attribute and every tag by html5ever's tree builder (see
/// [`same_as_with_every_attribute`]).
pub fn same_document(
    lean: &relink::html::tree::Document,
    data: &str,
    kind: DocumentKind,
) -> Result<(), String> {
    compare_documents(lean, data, kind, false)
}

/// [`same_document`] for a parse that keeps every start tag with
/// attributes ([`relink::html::tokenizer::Attributes::TreeBuilderAnyAttribute`]),
/// not only those with an attribute that may hold a URL.
pub fn same_document_keeping_any(
    lean: &relink::html::tree::Document,
    data: &str,
    kind: DocumentKind,
) -> Result<(), String> {
    compare_documents(lean, data, kind, true)
}

fn compare_documents(
    lean: &relink::html::tree::Document,
    data: &str,
    kind: DocumentKind,
    any_attribute: bool,
) -> Result<(), String> {
    use relink::html::tokenizer::Attributes;
    use relink::html::tree::parse_with;
    let full = parse_with(data, kind, Attributes::All);
    let describe = |t: &relink::html::tree::Tag<'_>| {
        format!(
            "{:?} {} {:?} {:?} {:?}",
            t.kind,
            t.name,
            t.span,
            t.element,
            t.attrs()
        )
    };
    let wanted: Vec<String> = full
        .tags()
        .filter(|t| {
            let kept = |a: &relink::html::tokenizer::AttrSpan| {
                any_attribute || relink::html::links::may_hold_url(&data.as_bytes()[a.name()])
            };
            (t.kind == TagKind::StartTag && t.attrs().iter().any(kept)) || &**t.name == "style"
        })
        .map(|t| describe(&t))
        .collect();
    let kept: Vec<String> = lean.tags().map(|t| describe(&t)).collect();
    if kept != wanted {
        return Err(format!("tags differ:\n{kept:#?}\n{wanted:#?}"));
    }
    let span =
        |doc: &relink::html::tree::Document| doc.base.and_then(|i| doc.tag(i)).map(|t| t.span);
    if span(lean) != span(&full) {
        return Err(format!("base {:?}, not {:?}", span(lean), span(&full)));
    }
    Ok(())
}

/// The tree builder is given only what it reads, and the document keeps
/// only what links need; every tag it keeps is as with everything.
#[test]
fn the_tree_builder_is_given_only_what_it_reads() {
    let mut documents = 0;
    for (name, data) in inputs_with_links() {
        for kind in [DocumentKind::Document, DocumentKind::IframeSrcdoc] {
            if let Err(why) = same_as_with_every_attribute(&data, kind) {
                panic!("{name} ({kind:?}): {why}");
            }
            documents += 1;
        }
    }
    assert!(documents > 10_000, "{documents} documents");
}

/// Counting the tree builder's handles (as large documents on html5ever's
/// path do, to release the elements it closes without telling the sink)
/// changes nothing of what the document says.
#[test]
fn counting_handles_builds_the_same_document() {
    let mut documents = 0;
    for (name, data) in inputs_with_links() {
        for kind in [DocumentKind::Document, DocumentKind::IframeSrcdoc] {
            let counted = relink::html::tree::parse_counting_handles(&data, kind);
            if let Err(why) = same_document_keeping_any(&counted, &data, kind) {
                panic!("{name} ({kind:?}): {why}");
            }
            documents += 1;
        }
    }
    assert!(documents > 10_000, "{documents} documents");
}

mod lean_attributes {
    use proptest::prelude::*;
    use relink::html::tree::DocumentKind;

    proptest! {
        #[test]
        fn lean_and_full_attributes_build_the_same_document(text in super::attribute_stress()) {
            let result = super::same_as_with_every_attribute(&text, DocumentKind::Document);
            prop_assert!(result.is_ok(), "{:?}: {:?}", text, result);
        }
    }
}
