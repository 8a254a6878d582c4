//! The landmark each HTML link lies in (`LinkDetails::context`: the
//! innermost `nav`, `header`, `footer`, `aside` or `main` it is or lies
//! in), against html5ever's RcDom tree of the same page, on the tracker's
//! path and on html5ever's; and the lean parse that finds landmarks
//! against the reference parse on the html5lib inputs.

use std::collections::{BTreeMap, HashMap};

use html5ever::ns;
use markup5ever_rcdom::{Handle, NodeData};
use relink::html::tokenizer::Attributes;
use relink::html::tracker;
use relink::html::tree::{DocumentKind, parse_with};
use relink::{Details, Rewriter};

use crate::html_corpus::inputs_with_links;

/// The landmark an HTML element of this name is.
fn landmark(name: &str) -> Option<&'static str> {
    ["nav", "header", "footer", "aside", "main"]
        .into_iter()
        .find(|l| *l == name)
}

/// Every URL of `page` in the attributes the fixtures use, with the
/// landmark its element is or lies in, found on RcDom's tree: an HTML
/// landmark element, the search stopping at template contents (a
/// fragment, as in the DOM).
fn rcdom_contexts(page: &str) -> BTreeMap<String, Option<String>> {
    let dom = crate::oracle::tree(page);
    let mut out = BTreeMap::new();
    let mut stack: Vec<(Handle, Option<&'static str>)> = vec![(dom.document.clone(), None)];
    while let Some((node, inherited)) = stack.pop() {
        let mut context = inherited;
        if let NodeData::Element {
            name,
            attrs,
            template_contents,
            ..
        } = &node.data
        {
            if name.ns == ns!(html)
                && let Some(own) = landmark(&name.local)
            {
                context = Some(own);
            }
            for attr in attrs.borrow().iter() {
                let linked =
                    ["href", "src", "srcset", "action", "data-src"].contains(&&*attr.name.local);
                if linked && let Some(url) = attr.value.split_ascii_whitespace().next() {
                    out.insert(url.to_owned(), context.map(str::to_owned));
                }
            }
            if let Some(contents) = template_contents.borrow().as_ref() {
                stack.push((contents.clone(), None));
            }
        }
        for child in node.children.borrow().iter() {
            stack.push((child.clone(), context));
        }
    }
    out
}

/// Each link relink lists of `page` with a WAT file's details (and
/// `data-src` as a link), by the URL as written, with its context.
fn relink_contexts(page: &str) -> BTreeMap<String, Option<String>> {
    let done = Rewriter::new()
        .retrieved_from("http://example.test/")
        .attribute("data-src".parse().expect("an attribute"))
        .details(Details::Attributes)
        .rewrite(page.as_bytes())
        .expect("rewriting the page");
    done.links()
        .iter()
        .map(|link| {
            let context = link.details.as_ref().and_then(|d| d.context);
            (link.original.clone(), context.map(str::to_owned))
        })
        .collect()
}

fn page(name: &str) -> String {
    std::fs::read_to_string(crate::fixture(&format!("html/{name}"))).expect("reading the fixture")
}

fn some(context: &str) -> Option<String> {
    Some(context.to_owned())
}

/// The links both pages share, with the context each must have.
const SHARED: [(&str, Option<&str>); 12] = [
    ("top.html", None),
    ("home.html", Some("nav")),
    ("search.html", Some("header")),
    ("aside.html", Some("aside")),
    ("after-aside.html", Some("main")),
    ("article-footer.html", Some("footer")),
    ("svg-link.html", Some("main")),
    ("template-header.html", Some("header")),
    ("template-in-nav.html", None),
    ("misnested-nav.html", Some("nav")),
    ("nav-itself.png", Some("nav")),
    ("svg-nav.html", Some("footer")),
];

fn check(name: &str) -> BTreeMap<String, Option<String>> {
    let page = page(name);
    let expected = rcdom_contexts(&page);
    let found = relink_contexts(&page);
    assert_eq!(found, expected, "{name}");
    for (url, context) in SHARED {
        assert_eq!(found[url], context.map(str::to_owned), "{name}: {url}");
    }
    found
}

#[test]
fn each_link_has_the_landmark_the_tree_puts_it_in_on_the_trackers_path() {
    let page = page("landmarks.html");
    assert!(tracker::parse(&page, DocumentKind::Document).is_ok());
    let found = check("landmarks.html");
    assert_eq!(found.len(), 27);
}

#[test]
fn each_link_has_the_landmark_the_tree_puts_it_in_on_html5evers_path() {
    let page = page("landmarks-fallback.html");
    assert!(tracker::parse(&page, DocumentKind::Document).is_err());
    let found = check("landmarks-fallback.html");
    // Foster parented out of the table: into the main, the nav with it.
    assert_eq!(found["foster-nav.html"], some("nav"));
    assert_eq!(found["foster.html"], some("main"));
}

/// Without a WAT file's details, no parse looks for landmarks.
#[test]
fn landmarks_are_only_found_when_asked() {
    let page = page("landmarks-fallback.html");
    for attributes in [Attributes::TreeBuilder, Attributes::TreeBuilderAnyAttribute] {
        let doc = parse_with(&page, DocumentKind::Document, attributes);
        assert!(doc.tags().all(|t| t.landmark.is_none()));
    }
    let doc = parse_with(&page, DocumentKind::Document, Attributes::TreeBuilderHead);
    let found = doc.tags().filter_map(|t| t.landmark).count();
    assert!(found > 20, "{found}");
}

/// The lean parse that finds landmarks (its closed elements released, on
/// html5ever's path; by the stack of open elements, on the tracker's)
/// gives each tag it keeps the landmark of the reference parse, on every
/// html5lib input.
#[test]
fn the_lean_parse_finds_the_landmarks_of_the_reference() {
    let mut compared = 0;
    for (name, data) in inputs_with_links() {
        if !["nav", "header", "footer", "aside", "main"]
            .iter()
            .any(|l| data.contains(l))
        {
            continue;
        }
        for kind in [DocumentKind::Document, DocumentKind::IframeSrcdoc] {
            let full = parse_with(&data, kind, Attributes::All);
            let reference: HashMap<_, _> = full
                .tags()
                .map(|t| (t.span, (t.element, t.landmark)))
                .collect();
            let lean = parse_with(&data, kind, Attributes::TreeBuilderHead);
            let tracked = tracker::parse_with(&data, kind, Attributes::TreeBuilderHead).ok();
            for doc in std::iter::once(&lean).chain(tracked.as_ref()) {
                for tag in doc.tags() {
                    let wanted = reference.get(&tag.span).copied().unwrap_or_default();
                    assert_eq!((tag.element, tag.landmark), wanted, "{name}: {tag:?}");
                    compared += usize::from(wanted.1.is_some());
                }
            }
        }
    }
    assert!(compared > 50, "{compared}");
}

/// A WAT file's link says which landmark it is in (`context`), and a
/// link in none has no such key.
#[test]
fn a_wat_link_names_its_landmark() {
    let path = crate::fixture("html/landmarks.html");
    let path = path.to_str().expect("a UTF-8 path");
    let out = crate::cli::relink(&["--list", "--format", "wat", "-q", path], b"");
    crate::cli::assert_ok(&out);
    let mut text = String::new();
    let mut gunzip = flate2::read::MultiGzDecoder::new(&out.stdout[..]);
    std::io::Read::read_to_string(&mut gunzip, &mut text).expect("a gzipped WAT file");
    let block = text
        .lines()
        .find(|line| line.starts_with("{\"Envelope\""))
        .expect("a metadata record");
    let block: serde_json::Value = serde_json::from_str(block).expect("JSON");
    let html = &block["Envelope"]["Payload-Metadata"]["HTTP-Response-Metadata"]["HTML-Metadata"];
    let links = html["Links"].as_array().expect("links");
    let context = |url: &str| {
        let link = links.iter().find(|l| l["url"] == url).expect(url);
        link.get("context")
            .map(|c| c.as_str().expect("a string").to_owned())
    };
    assert_eq!(context("home.html"), some("nav"));
    assert_eq!(context("aside.html"), some("aside"));
    assert_eq!(context("about.html"), some("footer"));
    assert_eq!(context("top.html"), None);
}

/// Where the stack of open elements changes below a landmark (the adoption
/// agency's nodes and clones, a form taken out, a template, foreign
/// content, foster parenting), each link keeps the landmark the tree puts
/// it in.
#[test]
fn landmarks_hold_where_the_stack_changes_below_them() {
    let page = concat!(
        "<body><nav><b><main><p>x</b><a href=y1>1</a></main><a href=y2>2</a></nav>",
        "<a href=y3>3</a><header><template><a href=t1>t</a><footer><a href=t2>t</a>",
        "</footer></template><a href=h1>h</a></header><aside><svg><a href=s1>s</a>",
        "<foreignObject><a href=s2>x</a></foreignObject></svg><form><a href=f1>f</a>",
        "</aside><a href=f2>f2</a><div><i><nav><u>x</i><a href=n1>n</a></nav></u>",
        "<a href=n2>n2</a><form><main></form><a href=m0>m0</a></main>",
    );
    assert!(tracker::parse(page, DocumentKind::Document).is_ok());
    let found = relink_contexts(page);
    assert_eq!(found, rcdom_contexts(page));
    let expected = [
        ("y1", some("main")),
        ("y2", some("nav")),
        ("y3", None),
        ("t1", None),
        ("t2", some("footer")),
        ("h1", some("header")),
        ("s2", some("aside")),
        ("n1", some("nav")),
        ("n2", None),
        ("m0", some("main")),
    ];
    for (url, context) in expected {
        assert_eq!(found[url], context, "{url}");
    }
}
