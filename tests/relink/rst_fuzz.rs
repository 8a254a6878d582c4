//! The reStructuredText reader under generated documents: blocks of each
//! construct that holds a URL (targets, anonymous targets, embedded URIs,
//! images, figures, substitutions, raw HTML) and of those that must be
//! left alone (literal blocks, `code` directives, comments, tables),
//! nested, with escapes, odd white space and line endings. For each: no
//! panic; with no base nothing changes; with a base a second pass changes
//! nothing, and the bytes change only in the URLs of the links reported
//! changed, each written to read back as the URL it resolved to.

use proptest::prelude::*;
use relink::{Kind, Link, Rewriter};

use crate::robust::{Bytes, config};

/// A URL as it may be written: relative paths, fragments, absolute URLs,
/// escapes, white space and reStructuredText's own punctuation.
fn url() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => "[a-z]{1,6}(/[a-z.]{1,6}){0,2}(\\.png|\\.html|/)?(\\?[a-z=&]{0,4})?(#[a-z]{0,3})?",
        1 => Just("http://example.org/x".to_owned()),
        1 => Just("#top".to_owned()),
        1 => Just("name_".to_owned()),
        1 => Just("me@example.com".to_owned()),
        2 => "[a-z./_:#<>`|*\\\\ -]{1,12}",
        1 => "[a-z]{1,3}\\\\[ <>`_\\\\][a-z]{0,3}",
    ]
}

/// A URL for raw HTML: what an attribute holds without quoting.
fn html_url() -> impl Strategy<Value = String> {
    "[a-z]{1,6}(/[a-z.]{1,6}){0,2}(#[a-z]{0,3})?"
}

/// A name for a target or a substitution.
fn name() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => "[a-z]{1,6}",
        1 => "`[a-z :<]{1,6}`",
        1 => "[a-z]{1,3}\\\\:[a-z]{0,2}",
        1 => "[a-z _:]{0,5}",
        1 => "`?[a-z]{1,3}\n   [a-z:]{1,3}`?",
    ]
}

/// One block of a document, its lines without their endings.
fn block() -> impl Strategy<Value = String> {
    let u = url;
    prop_oneof![
        (name(), u()).prop_map(|(n, u)| format!(".. _{n}: {u}")),
        (name(), u(), u()).prop_map(|(n, a, b)| format!(".. _{n}:\n   {a}\n   {b}")),
        u().prop_map(|u| format!(".. __: {u}")),
        u().prop_map(|u| format!("__ {u}")),
        ("[a-z ]{0,6}", u(), "__?").prop_map(|(t, u, m)| format!("see `{t} <{u}>`{m} here")),
        (u(), u()).prop_map(|(a, b)| format!("`a <{a}>`_ and\n`b\n<{b}>`__")),
        (u(), u()).prop_map(|(i, t)| format!(".. image:: {i}\n   :target: {t}\n   :alt: x")),
        (u(), u()).prop_map(|(i, t)| format!(".. figure:: {i}\n\n   caption `c <{t}>`_")),
        (name(), u()).prop_map(|(n, u)| format!(".. |{n}| image:: {u}")),
        u().prop_map(|u| format!("x::\n\n   `a <{u}>`_\n   .. image:: {u}")),
        u().prop_map(|u| format!(".. code:: rst\n\n   .. _a: {u}")),
        u().prop_map(|u| format!(".. note:: `n <{u}>`_\n\n   .. image:: {u}")),
        u().prop_map(|u| format!(".. comment `a <{u}>`_\n   .. _b: {u}")),
        u().prop_map(|u| format!("``a <{u}>`_`` and :doc:`d <{u}>` and \\`e <{u}>`_")),
        html_url().prop_map(|u| format!(".. raw:: html\n\n   <a href=\"{u}\">x</a>")),
        u().prop_map(|u| format!("+-----+\n| `a <{u}>`_ |\n+-----+")),
        u().prop_map(|u| format!("===  ===\na    `b <{u}>`_\n===  ===")),
        u().prop_map(|u| format!("- item `a <{u}>`_\n\n  .. image:: {u}")),
        u().prop_map(|u| format!(">>> `a <{u}>`_")),
        (u(), u()).prop_map(|(a, b)| format!(
            "- .. image:: {a}\n     :target: {b}\n\n  * - .. figure:: {a}"
        )),
        (u(), u()).prop_map(|(a, b)| format!(
            ":f: .. image:: {a}\nterm `x <{b}>\n   `_ see http://x/{b} me@x.org"
        )),
        u().prop_map(|u| format!(".. parsed-literal::\n\n   x `a <{u}>`_\n     y")),
        "[a-z*`_|:.<> \\\\-]{0,20}",
    ]
}

/// A block indented (nested in the one before it) or not.
fn placed() -> impl Strategy<Value = String> {
    (
        block(),
        prop_oneof![3 => Just(""), 1 => Just("   "), 1 => Just("\t"), 1 => Just(" ")],
    )
        .prop_map(|(block, indent)| {
            block
                .split('\n')
                .map(|line| format!("{indent}{line}"))
                .collect::<Vec<_>>()
                .join("\n")
        })
}

/// A document: blocks apart, with one kind of line ending (or a mix),
/// trailing white space, and a final line ending or none.
fn document() -> impl Strategy<Value = Bytes> {
    (
        prop::collection::vec((placed(), "[ \t]{0,2}", 0..3usize), 1..8),
        prop_oneof![Just("\n"), Just("\r\n"), Just("\r")],
        any::<bool>(),
    )
        .prop_map(|(blocks, ending, last)| {
            let mut text = String::new();
            for (block, trailing, blanks) in blocks {
                text.push_str(&block.replace('\n', &format!("{trailing}{ending}")));
                text.push_str(&ending.repeat(blanks + 1));
            }
            if !last {
                text.truncate(text.trim_end_matches(['\n', '\r']).len());
            }
            Bytes(text.into_bytes())
        })
}

fn with_base() -> Rewriter {
    Rewriter::new()
        .kind(Kind::Rst)
        .retrieved_from("http://h/dir/page.rst")
        .resource_base("http://raw/dir/page.rst")
}

/// Where a link written at (`line`, `column`) starts in `text`.
fn offset(text: &[u8], line: usize, column: usize) -> usize {
    let start: usize = text
        .split_inclusive(|&b| b == b'\n')
        .take(line - 1)
        .map(<[u8]>::len)
        .sum();
    start + column - 1
}

/// Whether a byte may come between the characters of a URL as written:
/// an escaping backslash, white space (a line broken inside it), a quote
/// around it (raw HTML).
fn between(b: u8) -> bool {
    matches!(b, b'\\' | b' ' | b'\t' | b'\n' | b'\r' | b'"')
}

/// Where the URL `url` written from `at` ends, at the latest: its
/// characters in order, bytes [`between`] them and after them (what
/// follows a URL follows it in the output too, where it is taken the
/// same way).
fn url_end(text: &[u8], at: usize, url: &str) -> Option<usize> {
    let mut i = at;
    for &want in url.as_bytes() {
        loop {
            let c = *text.get(i)?;
            // An escaped line end reads as a space.
            if c == want || (want == b' ' && matches!(c, b'\n' | b'\r')) {
                break;
            }
            if !between(c) {
                return None;
            }
            i += 1;
        }
        i += 1;
    }
    while text.get(i).is_some_and(|&b| between(b)) {
        i += 1;
    }
    Some(i)
}

/// Whether `output` is `input` with only the URLs of the changed links
/// changed, each to its resolved URL.
fn only_urls_changed(input: &[u8], output: &[u8], links: &[&Link]) -> Result<(), String> {
    let mut changed: Vec<&&Link> = links.iter().filter(|l| l.changed).collect();
    changed.sort_by_key(|l| (l.line, l.column));
    let (mut i, mut o) = (0, 0);
    for link in changed {
        let at = offset(input, link.line, link.column);
        let same = at.checked_sub(i).ok_or("links overlap")?;
        if input[i..at] != *output.get(o..o + same).ok_or("output too short")? {
            return Err(format!(
                "changed before the link at {}:{}",
                link.line, link.column
            ));
        }
        o += same;
        i = url_end(input, at, &link.original)
            .ok_or(format!("{:?} not at its place", link.original))?;
        o = url_end(output, o, &link.resolved).ok_or(format!(
            "{:?} not written where {:?} was",
            link.resolved, link.original
        ))?;
    }
    if input[i..] != output[o..] {
        return Err("changed after the last link".to_owned());
    }
    Ok(())
}

proptest! {
    #![proptest_config(config(512))]

    #[test]
    fn rst_without_a_base_is_unchanged(input in document()) {
        let out = Rewriter::new().kind(Kind::Rst).rewrite(&input.0).unwrap();
        prop_assert_eq!(out.bytes(), &input.0[..]);
    }

    #[test]
    fn rst_changes_only_urls_and_once(input in document()) {
        let out = with_base().rewrite(&input.0).unwrap();
        let output = out.bytes().to_vec();
        let r = only_urls_changed(&input.0, &output, &out.links());
        prop_assert!(r.is_ok(), "{:?}\n{}", r, String::from_utf8_lossy(&output));
        let again = with_base().rewrite(&output).unwrap();
        prop_assert_eq!(again.bytes(), &output[..], "a second pass changed it");
    }
}

/// The check finds a change outside a URL, and a URL written where it
/// does not read back as the one reported.
#[test]
fn a_change_outside_a_url_is_found() {
    let input = b".. _a: b.html\n\ntext\n";
    let out = with_base().rewrite(input).unwrap();
    let links = out.links();
    only_urls_changed(input, out.bytes(), &links).unwrap();
    let mut text = out.bytes().to_vec();
    *text.last_mut().unwrap() = b' ';
    assert!(only_urls_changed(input, &text, &links).is_err());
    let moved = String::from_utf8(out.bytes().to_vec())
        .unwrap()
        .replace("dir", "dim");
    assert!(only_urls_changed(input, moved.as_bytes(), &links).is_err());
}
