//! The tracker (relink's tree builder for the common path) against
//! html5ever's: on real pages it decides alone, and wherever it does not
//! bail, its document is the one html5ever's tree gives.

use std::collections::BTreeMap;
use std::path::PathBuf;

use relink::html::tokenizer::Attributes;
use relink::html::tracker::{self, Bail};
use relink::html::tree::{Document, DocumentKind, parse_with};

use crate::html_corpus::{inputs_with_links, same_document, same_document_keeping_any};

/// The three real pages of the corpus.
pub fn corpus_pages() -> Vec<(String, String)> {
    let dir = crate::fixture("corpus/pages");
    let mut paths: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "html"))
        .collect();
    paths.sort();
    paths
        .into_iter()
        .map(|p| {
            let text = std::fs::read_to_string(&p).unwrap();
            (p.display().to_string(), text)
        })
        .collect()
}

/// The HTML payloads of the corpus WARC's responses, read by relink's own
/// WARC reader, each named by its URL.
pub fn warc_pages() -> Vec<(String, String)> {
    let path = crate::fixture("corpus/warc/python-tutorial.warc.gz");
    let file = std::io::BufReader::new(std::fs::File::open(path).unwrap());
    relink::warc::html_payloads(file)
        .unwrap()
        .into_iter()
        .map(|(url, page)| (url, String::from_utf8_lossy(&page).into_owned()))
        .collect()
}

/// The installed Python documentation's pages, if it is installed.
pub fn python_docs() -> Vec<(String, String)> {
    let root = PathBuf::from("/usr/share/doc/python3.11/html");
    let mut stack = vec![root];
    let mut paths = Vec::new();
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "html") {
                paths.push(path);
            }
        }
    }
    paths.sort();
    paths
        .into_iter()
        .filter_map(|p| Some((p.display().to_string(), std::fs::read_to_string(&p).ok()?)))
        .collect()
}

/// Runs the tracker over `pages`: the pages it completed, and why it bailed
/// on the others (reason, count). Every completed page must be the
/// document html5ever gives.
fn completed(pages: &[(String, String)]) -> (usize, BTreeMap<&'static str, usize>) {
    let mut done = 0;
    let mut bails = BTreeMap::new();
    for (name, page) in pages {
        match tracker::parse(page, DocumentKind::Document) {
            Ok(document) => {
                if let Err(why) = same_document(&document, page, DocumentKind::Document) {
                    panic!("{name}: {why}");
                }
                done += 1;
            }
            Err(Bail(why)) => *bails.entry(why).or_default() += 1,
        }
    }
    (done, bails)
}

/// Real pages: the tracker completes every corpus and WARC page and nearly
/// every page of the Python documentation, each as html5ever would.
#[test]
fn the_tracker_completes_real_pages() {
    for (corpus, pages) in [
        ("corpus pages", corpus_pages()),
        ("WARC pages", warc_pages()),
    ] {
        assert!(!pages.is_empty(), "{corpus}");
        let (done, bails) = completed(&pages);
        println!("{corpus}: {done} of {} completed", pages.len());
        assert_eq!(done, pages.len(), "{corpus}: bailed {bails:?}");
    }
    let docs = python_docs();
    if docs.is_empty() {
        println!("no Python documentation installed");
        return;
    }
    let (done, bails) = completed(&docs);
    let rate = done as f64 / docs.len() as f64;
    println!(
        "Python documentation: {done} of {} completed ({:.1}%), bailed {bails:?}",
        docs.len(),
        100.0 * rate
    );
    assert!(rate > 0.95, "{done} of {}: {bails:?}", docs.len());
}

/// Compares every tag of `tracked`, the tracker's parse of `data` with
/// every attribute, with html5ever's: the same element (or none) for each
/// start tag, and the same base.
fn same_every_tag(tracked: &Document, data: &str, kind: DocumentKind) -> Result<(), String> {
    let full = parse_with(data, kind, Attributes::All);
    let describe = |doc: &Document| -> Vec<String> {
        doc.tags()
            .map(|t| format!("{:?} {} {:?} {:?}", t.kind, t.name, t.span, t.element))
            .collect()
    };
    let (ours, theirs) = (describe(tracked), describe(&full));
    if ours != theirs {
        let at = ours.iter().zip(&theirs).position(|(a, b)| a != b);
        let differ = at.map(|i| (&ours[i], &theirs[i]));
        return Err(format!("tags differ, first {differ:?}"));
    }
    if tracked.base != full.base {
        return Err(format!("base {:?}, not {:?}", tracked.base, full.base));
    }
    Ok(())
}

/// The html5lib tree-construction inputs, many of them hostile, parsed with
/// every tag kept: wherever the tracker does not bail, each start tag's
/// element is html5ever's, and so is the base. It completes most of them,
/// so this is no empty check.
#[test]
fn where_the_tracker_completes_it_agrees_with_html5ever() {
    let mut done = 0;
    let mut bails: BTreeMap<&str, usize> = BTreeMap::new();
    let inputs = inputs_with_links();
    for (name, data) in &inputs {
        for kind in [DocumentKind::Document, DocumentKind::IframeSrcdoc] {
            match tracker::parse_with(data, kind, Attributes::All) {
                Ok(document) => {
                    if let Err(why) = same_every_tag(&document, data, kind) {
                        panic!("{name} ({kind:?}): {why}\n{data:?}");
                    }
                    done += 1;
                }
                Err(Bail(why)) => *bails.entry(why).or_default() += 1,
            }
            // And as relink parses, keeping only the tags with links, or
            // every tag with attributes.
            if let Ok(document) = tracker::parse(data, kind)
                && let Err(why) = same_document(&document, data, kind)
            {
                panic!("{name} ({kind:?}), lean: {why}\n{data:?}");
            }
            if let Ok(document) =
                tracker::parse_with(data, kind, Attributes::TreeBuilderAnyAttribute)
                && let Err(why) = same_document_keeping_any(&document, data, kind)
            {
                panic!("{name} ({kind:?}), lean, any attribute: {why}\n{data:?}");
            }
        }
    }
    println!(
        "html5lib inputs: {done} of {} completed, bailed {bails:?}",
        2 * inputs.len()
    );
    assert!(done > inputs.len(), "{done} completed");
    assert!(inputs.len() > 5000, "{} inputs", inputs.len());
}

/// Where the tracker hands over, and where it does not: each document
/// with the construct the tracker bails on (`None`: it completes it), and
/// each completed one as html5ever parses it.
#[test]
fn the_tracker_bails_where_its_subset_ends() {
    let cases: &[(&str, Option<&str>)] = &[
        ("<!DOCTYPE html><p>a<b>b</b>c", None),
        ("<select><option>a</select>", Some("select")),
        ("<frameset><frame></frameset>", Some("frameset")),
        ("<table><div>x</div></table>", Some("an element in a table")),
        ("<table>text</table>", Some("text in a table")),
        ("<table> <tr> <td>x</td> </tr> </table>", None),
        ("<table><input type=hidden><form></table>", None),
        (
            "<table><input type=text></table>",
            Some("an element in a table"),
        ),
        (
            "<b><p>x</b>y",
            Some("the adoption agency with a furthest block"),
        ),
        ("<b><i>x</b>y", Some("reconstructing formatting elements")),
        ("<b><i>x</b></i>", None),
        ("<p><b>x</p>", None),
        ("<p><b>x</p>y", Some("reconstructing formatting elements")),
        ("<a href=1><a href=2>", None),
        ("<a href=1><a href=2><a href=3>x</a>", None),
        (
            "<a href=1><b><a href=2>x",
            Some("reconstructing formatting elements"),
        ),
        ("<p><a href=1>x</p><a href=2>", None),
        (
            "<a href=1><div><a href=2>",
            Some("the adoption agency with a furthest block"),
        ),
        ("<a href=1><svg><foreignObject><a href=2>x", None),
        ("<nobr><nobr>", Some("nested nobr")),
        ("<b><b><b><b>", Some("a fourth like formatting element")),
        ("<td><b><b><b><b>", Some("a fourth like formatting element")),
        ("<p><table>", None),
        ("<!DOCTYPE html><p><table>", None),
        (
            "<!DOCTYPE html PUBLIC \"-//W3C//DTD HTML 4.01//EN\"><p><table>",
            Some("a table after a p, quirks mode unclear"),
        ),
        ("<svg><p>x</p><math><mi><div>y</div></mi></math>", None),
        (
            "<math><annotation-xml encoding=text/html><svg><desc><a href=x>",
            None,
        ),
        (
            "<template><tr><td>x</td></tr></template><base href=y>",
            None,
        ),
        ("<form><form></form><table><form>", None),
    ];
    for &(data, bail) in cases {
        let tracked = tracker::parse_with(data, DocumentKind::Document, Attributes::All);
        match (tracked, bail) {
            (Ok(document), None) => {
                if let Err(why) = same_every_tag(&document, data, DocumentKind::Document) {
                    panic!("{data:?}: {why}");
                }
            }
            (Err(Bail(why)), Some(want)) => assert_eq!(why, want, "{data:?}"),
            (tracked, _) => panic!("{data:?}: {:?}, not {bail:?}", tracked.err()),
        }
    }
    // Past the depth html5ever's path flattens at, the tracker hands over.
    let deep = "<div>".repeat(2000);
    let tracked = tracker::parse(&deep, DocumentKind::Document);
    assert_eq!(tracked.err(), Some(Bail("nesting too deep")));
}

mod well_formed {
    use proptest::prelude::*;
    use relink::html::tracker;
    use relink::html::tree::DocumentKind;

    use crate::html_corpus::same_document;

    /// Random attributes: none, or some of class, href, src, style, type,
    /// encoding, with quoted or bare values.
    fn attributes() -> impl Strategy<Value = String> {
        let one = prop_oneof![
            Just(" class=x"),
            Just(" href=\"a.html\""),
            Just(" src='i.png'"),
            Just(" style=\"color:red\""),
            Just(" id=y"),
            Just(" data-v"),
            Just(" title=\"a &amp; b\""),
        ];
        prop::collection::vec(one, 0..3).prop_map(|a| a.concat())
    }

    /// A fragment of body content, well formed, nested up to `depth`.
    fn content(depth: u32) -> BoxedStrategy<String> {
        let leaf = prop_oneof![
            Just("text ".to_owned()),
            Just(" \n".to_owned()),
            Just("&amp;".to_owned()),
            Just("<!-- c -->".to_owned()),
            attributes().prop_map(|a| format!("<img{a}>")),
            attributes().prop_map(|a| format!("<br{a}>")),
            attributes().prop_map(|a| format!("<input{a}>")),
            attributes().prop_map(|a| format!("<a{a}>link</a>")),
            attributes().prop_map(|a| format!("<style{a}>p {{ x: url(<b>) }}</style>")),
            attributes().prop_map(|a| format!("<script{a}>if (a<b) {{}}</script>")),
            attributes().prop_map(|a| format!("<textarea{a}><p>raw</textarea>")),
            Just("<title>t<i></title>".to_owned()),
            Just("<svg><path d=M0/><use href=#x /></svg>".to_owned()),
            Just("<math><mi>x</mi><annotation-xml encoding=text/html><div>h</div></annotation-xml></math>".to_owned()),
            Just("<base href=base/>".to_owned()),
            Just("<template><td>cell</td></template>".to_owned()),
            Just("<noscript><img src=n.png></noscript>".to_owned()),
            Just("<button type=submit>go</button>".to_owned()),
            Just("<object data=o.swf><param name=p value=v></object>".to_owned()),
            Just("<xmp><a href=x></xmp>".to_owned()),
            Just("<iframe src=f.html><p></iframe>".to_owned()),
            Just("<ruby>a<rt>b</rt><rp>c</rp></ruby>".to_owned()),
            Just("<pre>\nline</pre>".to_owned()),
            Just("<svg viewBox='0 0 1 1'><clipPath><rect/></clipPath><script>a<b</script></svg>".to_owned()),
        ];
        leaf.clone().prop_recursive(depth, 64, 4, move |inner| {
            let children = prop::collection::vec(inner, 0..4).prop_map(|c| c.concat());
            prop_oneof![
                (attributes(), children.clone()).prop_map(|(a, c)| format!("<div{a}>{c}</div>")),
                (attributes(), children.clone()).prop_map(|(a, c)| format!("<span{a}>{c}</span>")),
                (attributes(), children.clone()).prop_map(|(a, c)| format!("<section{a}>{c}</section>")),
                prop::collection::vec(leaf.clone(), 0..4).prop_map(|c| format!("<p>{}</p>", c.concat())),
                (attributes(), children.clone()).prop_map(|(a, c)| format!("<b{a}>{c}</b>")),
                (attributes(), children.clone()).prop_map(|(a, c)| format!("<em{a}><code>{c}</code></em>")),
                children.clone().prop_map(|c| format!("<ul><li>{c}<li>two</ul>")),
                children.clone().prop_map(|c| format!("<dl><dt>{c}<dd>d</dl>")),
                children.clone().prop_map(|c| format!("<h2>{c}</h2>")),
                (attributes(), children.clone()).prop_map(|(a, c)| format!(
                    "<table{a}><caption>c</caption><colgroup><col></colgroup>\
                     <thead><tr><th>h</th></tr></thead><tr><td{a}>{c}</td><td>x</table>"
                )),
                children.clone().prop_map(|c| format!("<table><tbody>\n<tr>\n<td>{c}</td></tr>\n</tbody></table>")),
                children.clone().prop_map(|c| format!(
                    "<svg><g><foreignObject><div>{c}</div></foreignObject><title>{c}</title></g></svg>"
                )),
                children.clone().prop_map(|c| format!("<math><mtext>{c}</mtext></math>")),
                children.clone().prop_map(|c| format!("<template><div>{c}</div></template>")),
                (attributes(), children).prop_map(|(a, c)| format!("<form{a}>{c}</form>")),
            ]
        })
        .boxed()
    }

    /// A whole document: with or without a doctype, head and body tags.
    fn document() -> impl Strategy<Value = String> {
        (any::<bool>(), any::<bool>(), content(4)).prop_map(|(doctype, explicit, body)| {
            let doctype = if doctype { "<!DOCTYPE html>\n" } else { "" };
            if explicit {
                format!(
                    "{doctype}<html lang=en><head><meta charset=utf-8><title>T</title>\
                     <link rel=stylesheet href=s.css></head>\n<body class=b>{body}</body></html>\n"
                )
            } else {
                format!("{doctype}<title>T</title>{body}")
            }
        })
    }

    proptest! {
        #[test]
        fn well_formed_documents_never_bail_and_agree(text in document()) {
            let tracked = tracker::parse(&text, DocumentKind::Document);
            prop_assert!(tracked.is_ok(), "{:?}: {:?}", text, tracked.err());
            let same = same_document(&tracked.unwrap(), &text, DocumentKind::Document);
            prop_assert!(same.is_ok(), "{:?}: {:?}", text, same);
        }
    }
}

mod tag_soup {
    use proptest::prelude::*;
    use relink::html::tokenizer::Attributes;
    use relink::html::tracker;
    use relink::html::tree::DocumentKind;

    /// Tags of every kind the tracker models and some it bails on, in any
    /// order: mostly ill-formed documents.
    fn soup() -> impl Strategy<Value = String> {
        let names = prop_oneof![
            Just("html"),
            Just("head"),
            Just("body"),
            Just("title"),
            Just("base"),
            Just("meta"),
            Just("style"),
            Just("script"),
            Just("noscript"),
            Just("template"),
            Just("p"),
            Just("div"),
            Just("li"),
            Just("ul"),
            Just("dd"),
            Just("dt"),
            Just("h1"),
            Just("h2"),
            Just("pre"),
            Just("form"),
            Just("button"),
            Just("a"),
            Just("b"),
            Just("i"),
            Just("nobr"),
            Just("table"),
            Just("caption"),
            Just("colgroup"),
            Just("col"),
            Just("tbody"),
            Just("tr"),
            Just("td"),
            Just("th"),
            Just("input"),
            Just("svg"),
            Just("math"),
            Just("mi"),
            Just("foreignobject"),
            Just("desc"),
            Just("annotation-xml"),
            Just("font"),
            Just("br"),
            Just("img"),
            Just("object"),
            Just("option"),
            Just("ruby"),
            Just("rt"),
            Just("textarea"),
            Just("plaintext"),
            Just("span"),
            Just("image"),
            Just("frameset"),
            Just("select"),
        ];
        let attrs = prop_oneof![
            Just(""),
            Just(" href=x"),
            Just(" type=hidden"),
            Just(" color=red"),
            Just(" encoding=text/html"),
            Just(" class=c"),
            Just(" shadowrootmode=open"),
        ];
        let piece = prop_oneof![
            4 => (names.clone(), attrs, any::<bool>()).prop_map(|(n, a, s)| {
                format!("<{n}{a}{}>", if s { "/" } else { "" })
            }),
            3 => names.prop_map(|n| format!("</{n}>")),
            1 => Just("x".to_owned()),
            1 => Just(" ".to_owned()),
            1 => Just("\0".to_owned()),
            1 => Just("<!--c-->".to_owned()),
            1 => Just("<![CDATA[d]]>".to_owned()),
            1 => Just("<!DOCTYPE html>".to_owned()),
        ];
        prop::collection::vec(piece, 0..30).prop_map(|p| p.concat())
    }

    proptest! {
        #[test]
        fn tag_soup_agrees_wherever_the_tracker_completes(text in soup(), srcdoc in any::<bool>()) {
            let kind = if srcdoc { DocumentKind::IframeSrcdoc } else { DocumentKind::Document };
            if let Ok(document) = tracker::parse_with(&text, kind, Attributes::All) {
                let same = super::same_every_tag(&document, &text, kind);
                prop_assert!(same.is_ok(), "{:?}: {:?}", text, same);
            }
        }
    }
}
