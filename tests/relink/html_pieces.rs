//! A document rewritten a piece at a time, as the tracker settles its tags,
//! gives exactly what rewriting the whole parsed document gives: the same
//! edits, links, warnings, base and layers, on every corpus, on documents
//! of many pieces, with a `base` or a `<style>` where pieces meet, and on
//! generated ones.

use proptest::prelude::*;
use relink::html::rewrite::{rewrite_text, rewrite_text_whole};
use relink::html::tracker::CHUNK_TAGS;
use relink::options::Options;
use relink::{Base, BaseSource, BaseUrl, Details, Rules};

use crate::html_tracker::{corpus_pages, python_docs, warc_pages};

/// Whether the two ways give the same; what differs if not.
// unit: the HTML rewrite's two paths, which the front door does not choose
// between (it takes pieces, and the whole only when a piece needs it).
fn same_both_ways(src: &str, base: Option<&str>) -> Result<(), String> {
    let base = base.map(|b| {
        Base::new(
            BaseUrl::parse(b, Rules::Rfc1808).unwrap(),
            BaseSource::RetrievedFrom,
        )
    });
    let options = Options::default()
        .outer(base.as_ref())
        .details(Details::Links);
    let pieces = rewrite_text(src, &options);
    let whole = rewrite_text_whole(src, &options);
    let facts = |r: &relink::text::TextRewrite| {
        format!(
            "{} rewritten\nlinks {:#?}\nwarnings {:#?}\nbase {:?}\nlayers {:?}",
            r.rewritten, r.links, r.warnings, r.base, r.layers
        )
    };
    if pieces.edits != whole.edits {
        let list = |r: &relink::text::TextRewrite| {
            r.edits.iter().map(|e| format!("{e:?}")).collect::<Vec<_>>()
        };
        return Err(format!(
            "edits differ:\n{:?}\n{:?}",
            list(&pieces),
            list(&whole)
        ));
    }
    if facts(&pieces) != facts(&whole) {
        return Err(format!("{}\n---\n{}", facts(&pieces), facts(&whole)));
    }
    Ok(())
}

/// `unit` repeated to more tags than one piece holds.
fn many(unit: &str, tags_each: usize) -> String {
    unit.repeat(CHUNK_TAGS * 2 / tags_each + 7)
}

#[test]
fn pages_rewrite_the_same_in_pieces() {
    let mut pages = corpus_pages();
    pages.extend(warc_pages());
    // The Python docs when installed: the large ones are several pieces.
    pages.extend(
        python_docs()
            .into_iter()
            .filter(|(_, text)| text.len() > 300_000),
    );
    let mut checked = 0;
    for (name, page) in &pages {
        for base in [Some("https://docs.example/a/b.html"), None] {
            if let Err(why) = same_both_ways(page, base) {
                panic!("{name} ({base:?}): {why}");
            }
        }
        checked += 1;
    }
    assert!(checked >= 21, "{checked} pages");
    // Pages run together: many pieces.
    let together: String = corpus_pages()
        .into_iter()
        .map(|(_, p)| p)
        .collect::<Vec<_>>()
        .concat()
        .repeat(3);
    same_both_ways(&together, Some("https://docs.example/")).unwrap();
}

#[test]
fn pieces_meet_anywhere() {
    let links = many("<a href=x>", 1);
    let cases = [
        // The first base after a piece of links: the whole document again.
        format!("{links}<base href=\"http://other.example/d/\"><a href=y>"),
        // The first base in the first piece, another later.
        format!("<base href=\"/b/\">{links}<base href=\"http://other.example/\"><a href=y>"),
        // A base inside a template in a later piece counts for nothing.
        format!("{links}<template><base href=\"http://other.example/\"></template><a href=y>"),
        // A style element where a piece would end (its text ends at its
        // end tag, not at the end of the piece).
        format!(
            "{}<style>a {{ background: url(y.png) }}</style><p>url(q)</p><img src=z>",
            "<a href=x>".repeat(CHUNK_TAGS - 1)
        ),
        format!(
            "{}<style>a {{ background: url(y.png) }}</style>url(q)",
            "<a href=x>".repeat(CHUNK_TAGS)
        ),
        // Something the tracker bails on, in a later piece.
        format!("{links}<table><a href=y></table>"),
        // SVG and templates across pieces.
        many(
            "<svg><a href=x><image href=y /></a></svg><template><a href=t></template>",
            4,
        ),
        many(
            "<object codebase=\"/c/\" data=x></object><p style=\"background:url(s)\">",
            2,
        ),
    ];
    for (i, case) in cases.iter().enumerate() {
        for base in [Some("https://docs.example/a/b.html"), None] {
            if let Err(why) = same_both_ways(case, base) {
                panic!("case {i} ({base:?}): {why}");
            }
        }
    }
}

/// Tags that hold links, bases, styles and what the tracker bails on.
fn fragment() -> impl Strategy<Value = &'static str> {
    prop::sample::select(vec![
        "<a href=x>",
        "<a href=\"../y?q#f\">t</a>",
        "<img src=i srcset=\"a 1x, b 2x\">",
        "<base href=\"/base/\">",
        "<base>",
        "<style>p{background:url(s)}</style>",
        "<template><a href=t></template>",
        "<svg><a href=s><use href=\"#u\"/></a></svg>",
        "<p>text</p>",
        "<div>",
        "</div>",
        "<table><td>",
        "<iframe srcdoc=\"<a href=n>\"></iframe>",
    ])
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    #[test]
    fn generated_documents_rewrite_the_same_in_pieces(
        parts in prop::collection::vec((fragment(), 1usize..3000), 1..5),
    ) {
        let doc: String = parts.iter().map(|(f, n)| f.repeat(*n)).collect();
        let result = same_both_ways(&doc, Some("https://docs.example/a/"));
        prop_assert!(result.is_ok(), "{}", result.unwrap_err());
    }
}
