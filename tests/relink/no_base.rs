//! A document with no base: its bytes are never changed, and when links
//! are recorded every reader lists them as written, the relative ones
//! marked as left (what `--list` and `--check` show).

use relink::{Kind, Rewriter};

/// Rewrites `input` of `kind` with no base; the (original, unresolved)
/// of each link, after checking that nothing changed and no link has a
/// base.
fn left(kind: Kind, input: &[u8]) -> Vec<(String, bool)> {
    let out = Rewriter::new().kind(kind).rewrite(input).unwrap();
    assert!(!out.changed(), "{}", String::from_utf8_lossy(out.bytes()));
    assert_eq!(out.bytes(), input);
    assert_eq!(out.rewritten(), 0);
    out.links()
        .iter()
        .map(|link| {
            assert!(link.base.is_none() && !link.changed, "{link:?}");
            assert_eq!(link.resolved, link.original);
            (link.original.clone(), link.unresolved)
        })
        .collect()
}

fn pairs(list: &[(&str, bool)]) -> Vec<(String, bool)> {
    list.iter().map(|(s, b)| (s.to_string(), *b)).collect()
}

#[test]
fn html_lists_every_link_and_marks_the_relative_ones() {
    let page = b"<a href=a>x</a><a href=''>e</a><a href='#top'>t</a><a href=mailto:x@y>m</a>\
<img srcset='i.png 1x, http://h/j.png 2x'><style>p{background:url(k.png)}</style>";
    let want = [
        ("a", true),
        ("", true),
        ("#top", true),
        ("mailto:x@y", false),
        ("i.png", true),
        ("http://h/j.png", false),
        ("k.png", true),
    ];
    assert_eq!(left(Kind::Html, page), pairs(&want));
}

/// A document nested in one with no base has none either: a `base` in an
/// `iframe srcdoc` that would resolve against the parent's base (here a
/// network-path one) gives nothing to write, and the nested page's links
/// are listed as left.
#[test]
fn a_nested_document_takes_no_base_from_a_parent_without_one() {
    let page = b"<iframe srcdoc=\"<base href='//h/d/'><a href=x>\"></iframe><a href=y>";
    let found = left(Kind::Html, page);
    assert!(found.contains(&("y".to_owned(), true)), "{found:?}");
    assert!(found.contains(&("x".to_owned(), true)), "{found:?}");
    let out = Rewriter::new().kind(Kind::Html).rewrite(page).unwrap();
    let no_base = out
        .warnings()
        .iter()
        .filter(|w| w.kind == relink::WarningKind::NoBase);
    assert_eq!(no_base.count(), 1, "{:?}", out.warnings());
}

#[test]
fn css_markdown_and_xml_list_their_links_left() {
    let css = b"@import 'a.css'; p { background: url(http://h/b.png) }";
    assert_eq!(
        left(Kind::Css, css),
        pairs(&[("a.css", true), ("http://h/b.png", false)])
    );
    let markdown = b"[a](x.md) ![i](i.png) [b](https://z/)\n\n<a href=y.html>y</a>\n";
    let want = [
        ("x.md", true),
        ("i.png", true),
        ("https://z/", false),
        ("y.html", true),
    ];
    assert_eq!(left(Kind::Markdown, markdown), pairs(&want));
    // A feed with a base on one entry only: that entry's link is
    // resolved, the other listed as left.
    let feed = br#"<feed xmlns="http://www.w3.org/2005/Atom"><entry xml:base="http://h/d/"><link href="a"/></entry><entry><link href="b"/><content type="html">&lt;a href="c"&gt;</content></entry></feed>"#;
    let out = Rewriter::new().kind(Kind::Xml).rewrite(feed).unwrap();
    let found: Vec<(&str, &str, bool)> = out
        .links()
        .iter()
        .map(|l| (l.original.as_str(), l.resolved.as_str(), l.unresolved))
        .collect();
    assert_eq!(
        found,
        [
            ("a", "http://h/d/a", false),
            ("b", "b", true),
            ("c", "c", true)
        ]
    );
    let text = String::from_utf8(out.into_bytes()).unwrap();
    assert!(text.contains(r#"href="http://h/d/a""#) && text.contains(r#"href="b""#));
    assert!(!text.contains("invalid"), "{text}");
}

#[test]
fn a_message_lists_its_links_left() {
    let message =
        b"Content-Type: text/html\r\nContent-Location: page.html\r\n\r\n<a href=x>x</a>\r\n";
    let found = left(Kind::Message, message);
    assert!(found.contains(&("x".to_owned(), true)), "{found:?}");
    assert!(found.contains(&("page.html".to_owned(), true)), "{found:?}");
}

/// Counting links only (what a plain rewrite does) walks nothing.
#[test]
fn counts_alone_record_nothing() {
    let out = Rewriter::new()
        .details(relink::Details::Counts)
        .rewrite(b"<a href=a>")
        .unwrap();
    assert!(out.links().is_empty() && !out.changed());
}

/// HTML inside a Markdown page or a feed with no base, naming its own
/// base, is listed as left too: a document with no base writes nothing.
#[test]
fn embedded_html_naming_a_base_writes_nothing_without_one() {
    let markdown = b"<base href=http://h/d/><a href=y.html>y</a>\n";
    assert_eq!(
        left(Kind::Markdown, markdown),
        pairs(&[("http://h/d/", false), ("y.html", true)])
    );
    let feed = br#"<rss version="2.0"><channel><item><description>&lt;base href="http://h/"&gt;&lt;a href="c"&gt;</description></item></channel></rss>"#;
    let found = left(Kind::Xml, feed);
    assert!(found.contains(&("c".to_owned(), true)), "{found:?}");
    let page = b"<object codebase=http://h/cb/ data=d.bin></object><iframe srcdoc=\"<base href='http://s/'><a href=x>\"></iframe>";
    let found = left(Kind::Html, page);
    assert!(found.contains(&("d.bin".to_owned(), true)), "{found:?}");
    assert!(found.contains(&("x".to_owned(), true)), "{found:?}");
}

#[test]
fn restructured_text_lists_its_links_left() {
    let readme =
        b"See `the guide <docs/guide.html>`_ and `x <https://z/>`_.\n\n.. image:: logo.png\n";
    let want = [
        ("docs/guide.html", true),
        ("https://z/", false),
        ("logo.png", true),
    ];
    assert_eq!(left(Kind::Rst, readme), pairs(&want));
}

/// Runs relink with `args` on standard input; its exit code, standard
/// output and standard error.
fn run(args: &[&str], input: &[u8]) -> (Option<i32>, String, String) {
    let out = crate::cli::relink(args, input);
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    (out.status.code(), text(&out.stdout), text(&out.stderr))
}

#[test]
fn links_and_list_with_strict_fail_on_a_document_without_base() {
    let page = b"<a href=x.html>x</a><a href=https://h.example/>h</a>";
    for args in [
        &["links", "--strict", "-"][..],
        &["--list", "--strict", "-"],
        &["--list", "--format", "urls", "--strict", "-"],
    ] {
        let (code, out, err) = run(args, page);
        assert_eq!(code, Some(1), "{args:?}: {err}");
        assert!(out.contains("https://h.example/"), "{args:?}: {out}");
        assert!(err.contains("no base url"), "{args:?}: {err}");
    }
    // Without --strict, the same warning and success.
    let (code, out, err) = run(&["links", "-"], page);
    assert_eq!((code, out.as_str()), (Some(0), "https://h.example/\n"));
    assert!(
        err.contains("warning: standard input: no base url"),
        "{err}"
    );
    // With a base, --strict passes.
    let args = [
        "links",
        "--strict",
        "--retrieved-from",
        "https://h.example/d/",
        "-",
    ];
    let (code, out, _) = run(&args, page);
    assert_eq!(code, Some(0));
    assert_eq!(out, "https://h.example/d/x.html\nhttps://h.example/\n");
}

#[test]
fn a_passing_check_says_nothing_of_a_base_no_link_needs() {
    let absolute = b"<a href=https://h.example/>h</a><img src=data:,x>";
    let (code, out, err) = run(&["--check", "-"], absolute);
    assert_eq!((code, out.as_str()), (Some(0), ""));
    assert!(!err.contains("no base"), "{err}");
    assert!(err.contains("no warnings"), "{err}");
    // A relative link left: the check fails and says why.
    let (code, out, err) = run(&["--check", "-"], b"<a href=x.html>x</a>");
    assert_eq!(code, Some(1));
    assert!(out.contains("no base for standard input"), "{out}");
    assert!(err.contains("no base url"), "{err}");
}
