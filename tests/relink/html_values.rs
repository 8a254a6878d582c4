//! A rewritten attribute value reads back, by html5ever, as the URL relink
//! reports: an unquoted value whose references decode to white space, a
//! quote, `>` or `=` is quoted or has what it cuts out of references
//! escaped again, a quoted one has its quote escaped; every byte outside
//! the value stays.

use markup5ever_rcdom::{Handle, NodeData};
use proptest::prelude::*;
use relink::{Kind, Rewriter, Rules};

use crate::oracle::tree;

/// The attributes of the first element named `name`, in tree order.
fn attributes_of(node: &Handle, name: &str) -> Option<Vec<(String, String)>> {
    if let NodeData::Element { name: n, attrs, .. } = &node.data
        && &*n.local == name
    {
        let attrs = attrs.borrow();
        return Some(
            attrs
                .iter()
                .map(|a| (a.name.local.to_string(), a.value.to_string()))
                .collect(),
        );
    }
    node.children
        .borrow()
        .iter()
        .find_map(|child| attributes_of(child, name))
}

/// A URL as a browser reads it: C0 controls and spaces at its ends
/// stripped, and (`inside`) tabs and newlines within removed.
fn browser_read(url: &str, inside: bool) -> String {
    let url = url.trim_matches(|c| c <= ' ');
    if inside {
        url.replace(['\t', '\n', '\r'], "")
    } else {
        url.to_owned()
    }
}

/// The pieces of a value quoted by `quote` (none: unquoted): text, and
/// references to white space, quotes, `>`, `=`, backquote and `&`, with
/// and without their `;`.
fn value(quote: Option<char>) -> impl Strategy<Value = String> {
    let references = prop_oneof![
        Just("&#9;"),
        Just("&#9"),
        Just("&#x20;"),
        Just("&#32"),
        Just("&#10;"),
        Just("&#12;"),
        Just("&Tab;"),
        Just("&NewLine;"),
        Just("&#11;"),
        Just("&quot;"),
        Just("&quot"),
        Just("&#34;"),
        Just("&#39;"),
        Just("&apos;"),
        Just("&gt;"),
        Just("&gt"),
        Just("&#62"),
        Just("&#61;"),
        Just("&equals;"),
        Just("&#96;"),
        Just("&amp;"),
        Just("&amp"),
        Just("&"),
        Just("&lt;"),
        Just("&not"),
        Just("&notin;"),
        Just("&#x3e"),
        Just("&#0;"),
        Just("&#13;"),
        Just("&#128;"),
    ]
    .prop_map(str::to_owned);
    let literal = match quote {
        None => "[a-z./?#:=`'\"<]{1,4}",
        Some('"') => "[a-z./?#:=`'<> \t]{1,4}",
        Some(_) => "[a-z./?#:=`\"<> \t]{1,4}",
    };
    let pieces = prop_oneof![references, literal];
    prop::collection::vec(pieces, 0..8).prop_map(move |p| {
        let value = p.concat();
        // An unquoted value cannot start with a quote, nor be empty.
        if quote.is_none() && (value.is_empty() || value.starts_with(['"', '\''])) {
            format!("x{value}")
        } else {
            value
        }
    })
}

fn quoted_value() -> impl Strategy<Value = (Option<char>, String)> {
    prop_oneof![Just(None), Just(Some('"')), Just(Some('\''))]
        .prop_flat_map(|quote| (Just(quote), value(quote)))
}

fn rules() -> impl Strategy<Value = Rules> {
    prop_oneof![
        Just(Rules::Rfc1808),
        Just(Rules::Rfc3986),
        Just(Rules::Whatwg)
    ]
}

/// Rewrites `<a href=VALUE>` against `base`; checks the bytes around the
/// value and html5ever's reading of the new one against the link relink
/// reports.
fn check(quote: Option<char>, value: &str, base: &str, rules: Rules) -> Result<(), String> {
    let q = quote.map(String::from).unwrap_or_default();
    let head = format!("<p><a href={q}");
    let tail = format!("{q}>x</a><b title=t>y</b>");
    let page = format!("{head}{value}{tail}");
    let out = Rewriter::new()
        .kind(Kind::Html)
        .rules(rules)
        .retrieved_from(base)
        .rewrite(page.as_bytes())
        .map_err(|e| e.to_string())?;
    let output = String::from_utf8_lossy(out.bytes()).into_owned();
    let context = format!("{page:?} became {output:?}");
    let links = out.links();
    // A URL that does not resolve (`//` under whatwg) is left, with a
    // warning.
    if links.is_empty() && !out.warnings().is_empty() && output == page {
        return Ok(());
    }
    let [link] = links[..] else {
        return Err(format!("{context}: links {links:?}"));
    };
    // Only the value (and quotes an unquoted value gains) changes.
    let head_bare = head.trim_end_matches(['"', '\'']);
    let tail_bare = tail.trim_start_matches(['"', '\'']);
    if !output.starts_with(head_bare) || !output.ends_with(tail_bare) {
        return Err(format!("{context}: bytes outside the value changed"));
    }
    if quote.is_some() && !(output.starts_with(&head) && output.ends_with(&tail)) {
        return Err(format!("{context}: a quoted value lost its quotes"));
    }
    let dom = tree(&output);
    let a = attributes_of(&dom.document, "a").ok_or(format!("{context}: no a"))?;
    let b = attributes_of(&dom.document, "b").ok_or(format!("{context}: no b"))?;
    if b != [("title".to_owned(), "t".to_owned())] {
        return Err(format!("{context}: b reads {b:?}"));
    }
    let [(name, read)] = &a[..] else {
        return Err(format!("{context}: a reads {a:?}"));
    };
    if name != "href" || browser_read(read, !link.changed) != link.resolved {
        return Err(format!("{context}: href reads {read:?}, reported {link:?}"));
    }
    Ok(())
}

#[test]
fn an_unquoted_value_of_references_to_white_space_reads_back_as_the_url() {
    // The first reference is stripped; the open one before the URL is
    // cut out with the new text and must not end the value.
    let out = Rewriter::new()
        .kind(Kind::Html)
        .retrieved_from("http://h/d/")
        .rewrite(b"<a href=&#9;&#9x.html>")
        .unwrap();
    let output = String::from_utf8_lossy(out.bytes()).into_owned();
    assert_eq!(output, "<a href=&#9;&#9;http://h/d/x.html>");
    check(None, "&#9;&#9x.html", "http://h/d/", Rules::Rfc1808).unwrap();
    // A URL that needs no quotes keeps the value unquoted.
    let out = Rewriter::new()
        .kind(Kind::Html)
        .retrieved_from("http://h/d/")
        .rewrite(b"<a href=x.html>")
        .unwrap();
    assert_eq!(out.bytes(), b"<a href=http://h/d/x.html>");
}

#[test]
fn a_quoted_value_escapes_the_quote_a_resolved_url_brings() {
    for (quote, value) in [(Some('\''), "x"), (Some('"'), "x"), (None, "x")] {
        for base in ["http://h/it's/", "http://h/say\"/"] {
            check(quote, value, base, Rules::Rfc1808).unwrap();
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]

    #[test]
    fn a_rewritten_value_reads_back_as_the_reported_url(
        (quote, value) in quoted_value(),
        base in prop_oneof![
            Just("http://h/d/"),
            Just("http://h/a b/"),
            Just("http://h/q'\"/"),
            Just("http://h/x=`<>/"),
            Just("http://h/a&b/"),
            Just("http://h/a&amp;not/?q=1&copy=2&"),
        ],
        rules in rules(),
    ) {
        let result = check(quote, &value, base, rules);
        prop_assert!(result.is_ok(), "{}", result.unwrap_err());
    }
}
