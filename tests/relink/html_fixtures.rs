//! The input/expected pairs of `fixtures/html/`, and the HTML standard's
//! meta prescan against the html5lib-tests encoding vectors.

use relink::encoding::prescan;
use relink::{Kind, Rewriter, Rules};

use crate::{fixture, table};

/// Each case: the input, the expected file, the retrieval URL, the rules.
fn cases() -> Vec<(String, String, Option<String>, Rules)> {
    table("html/cases.tsv", 3)
        .into_iter()
        .map(|row| {
            let (stem, ext) = row[0].rsplit_once('.').unwrap();
            let expected = format!("{stem}.expected.{ext}");
            let from = (row[1] != "-").then(|| row[1].clone());
            (row[0].clone(), expected, from, row[2].parse().unwrap())
        })
        .collect()
}

/// The rewriter of a document named `name`, retrieved from `from`.
fn rewriter(name: &str, from: Option<&str>, rules: Rules) -> Rewriter {
    let kind = match name.ends_with(".css") {
        true => Kind::Css,
        false => Kind::Html,
    };
    let rewriter = Rewriter::new().rules(rules).kind(kind);
    match from {
        Some(url) => rewriter.retrieved_from(url),
        None => rewriter,
    }
}

fn rewrite(name: &str, input: &[u8], from: Option<&str>, rules: Rules) -> Vec<u8> {
    rewriter(name, from, rules)
        .rewrite(input)
        .unwrap()
        .into_bytes()
}

#[test]
fn fixture_pairs_match_byte_for_byte() {
    let cases = cases();
    assert!(cases.len() >= 25, "{} cases", cases.len());
    let mut absolutized = 0;
    for (input, expected, from, rules) in cases {
        let bytes = std::fs::read(fixture(&format!("html/{input}"))).unwrap();
        let want = std::fs::read(fixture(&format!("html/{expected}"))).unwrap();
        let got = rewrite(&input, &bytes, from.as_deref(), rules);
        assert!(
            got == want,
            "{input}: output differs from {expected}:\n{}",
            String::from_utf8_lossy(&got)
        );
        // What is absolute stays as it is: a second pass changes nothing.
        assert_eq!(
            rewrite(&input, &want, from.as_deref(), rules),
            want,
            "{input}: second pass"
        );
        // The one call for HTML gives the same bytes (it makes no rows).
        if let (Some(url), Rules::Rfc1808, false) = (&from, rules, input.ends_with(".css")) {
            let got = relink::absolutize_html(&bytes, url).unwrap();
            assert!(got == want, "{input}: absolutize_html differs");
            absolutized += 1;
        }
    }
    assert!(absolutized >= 15, "{absolutized} through absolutize_html");
}

#[test]
fn the_rfc1808_appendix_example_resolves() {
    let bytes = std::fs::read(fixture("html/rfc1808-appendix.html")).unwrap();
    let out = rewrite(
        "x.html",
        &bytes,
        Some("http://example.org/"),
        Rules::Rfc1808,
    );
    let text = String::from_utf8(out).unwrap();
    assert!(
        text.contains(r#"<A href="http://www.ics.uci.edu/Test/a/x">"#),
        "{text}"
    );
    assert_eq!(
        text.len(),
        bytes.len() + "http://www.ics.uci.edu/Test/a/x".len() - "../x".len()
    );
}

#[test]
fn meta_prescan_matches_the_html5lib_vectors() {
    let dir = fixture("corpus/html5lib-tests/encoding");
    let mut checked = 0;
    for file in ["tests1.dat", "tests2.dat", "test-yahoo-jp.dat"] {
        let bytes = std::fs::read(dir.join(file)).unwrap();
        for (n, (data, want)) in vectors(&bytes).into_iter().enumerate() {
            // unit: the prescan itself, which no run reports.
            // A BOM, then the prescan, then the browsers' default that the
            // vectors expect (relink itself prefers UTF-8 when the bytes
            // are UTF-8; for the ASCII of these vectors both decode alike).
            let got = encoding_rs::Encoding::for_bom(data)
                .map(|(encoding, _)| encoding)
                .or_else(|| prescan(data))
                .unwrap_or(encoding_rs::WINDOWS_1252);
            let want = encoding_rs::Encoding::for_label(want).unwrap();
            assert_eq!(
                got,
                want,
                "{file} #{}: {:?}",
                n + 1,
                String::from_utf8_lossy(data)
            );
            checked += 1;
        }
    }
    assert!(checked >= 80, "{checked} vectors");
}

/// The (data, encoding label) pairs of an encoding `.dat` file, as bytes:
/// these files are not all UTF-8.
pub fn vectors(bytes: &[u8]) -> Vec<(&[u8], &[u8])> {
    let lines: Vec<&[u8]> = bytes.split(|&b| b == b'\n').collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        if lines[i] != b"#data" {
            i += 1;
            continue;
        }
        let start = i + 1;
        let mut end = start;
        while end < lines.len() && lines[end] != b"#encoding" {
            end += 1;
        }
        let Some(label) = lines.get(end + 1) else {
            break;
        };
        // The data is the lines between, joined by their newlines.
        let from = lines[..start].iter().map(|l| l.len() + 1).sum::<usize>();
        let to =
            (from + lines[start..end].iter().map(|l| l.len() + 1).sum::<usize>()).saturating_sub(1);
        out.push((&bytes[from..to.max(from)], label.trim_ascii()));
        i = end + 2;
    }
    out
}

/// The value of the first `srcdoc` attribute in `html`, as html5ever
/// decodes it.
fn srcdoc_value(html: &[u8]) -> String {
    use html5ever::tokenizer::{BufferQueue, Tag, Token, TokenSink, TokenSinkResult, Tokenizer};
    #[derive(Default)]
    struct Srcdoc(std::cell::RefCell<Option<String>>);
    impl TokenSink for Srcdoc {
        type Handle = ();
        fn process_token(&self, token: Token, _line: u64) -> TokenSinkResult<()> {
            if let Token::TagToken(Tag { attrs, .. }) = token {
                let mut found = self.0.borrow_mut();
                for a in attrs.iter().filter(|a| &*a.name.local == "srcdoc") {
                    found.get_or_insert_with(|| a.value.to_string());
                }
            }
            TokenSinkResult::Continue
        }
    }
    let tokenizer = Tokenizer::new(Srcdoc::default(), Default::default());
    let queue = BufferQueue::default();
    queue.push_back(String::from_utf8(html.to_vec()).unwrap().into());
    let _ = tokenizer.feed(&queue);
    tokenizer.end();
    tokenizer.sink.0.take().expect("a srcdoc attribute")
}

fn srcdoc_decodes_to_the_rewritten_inner_document(raw_inner: &str) {
    let from = "http://example.org/f/page.html";
    let outer = format!("<iframe srcdoc=\"{raw_inner}\"></iframe>");
    let got = rewrite("outer.html", outer.as_bytes(), Some(from), Rules::Rfc1808);
    let inner = srcdoc_value(outer.as_bytes());
    let want = rewrite("inner.html", inner.as_bytes(), Some(from), Rules::Rfc1808);
    assert_eq!(
        srcdoc_value(&got),
        String::from_utf8(want).unwrap(),
        "{raw_inner:?} gave {:?}",
        String::from_utf8_lossy(&got)
    );
}

#[test]
fn srcdoc_legacy_quote_reference_before_a_link() {
    srcdoc_decodes_to_the_rewritten_inner_document("<a href=&quot./x.html&quot;>x</a>");
    srcdoc_decodes_to_the_rewritten_inner_document("<img src=&#34y.png&#34>");
}

proptest::proptest! {
    #[test]
    fn srcdoc_with_any_quote_reference_decodes_to_the_rewritten_inner_document(
        links in proptest::collection::vec(
            (
                proptest::sample::select(vec![
                    "&quot", "&quot;", "&#34", "&#34;", "&#x22;", "&QUOT", "&QUOT;", "'", "",
                ]),
                "[a-z./?=#]{0,8}",
                "[a-z ]{0,3}",
            ),
            1..5,
        )
    ) {
        let inner: String = links
            .iter()
            .map(|(q, url, text)| format!("<a href={q}{url}{q}>{text}</a>"))
            .collect();
        srcdoc_decodes_to_the_rewritten_inner_document(&inner);
    }
}

#[test]
fn lazy_loading_attributes_are_links_only_when_named() {
    use relink::ExtraAttribute;
    let input = std::fs::read(fixture("html/lazy.html")).unwrap();
    let from = "http://example.org/news/story.html";
    // Without --attr nothing changes: data-* are no links of HTML's.
    assert_eq!(
        rewrite("lazy.html", &input, Some(from), Rules::Rfc1808),
        input
    );
    let extras: Vec<ExtraAttribute> = [
        "data-src",
        "data-srcset=srcset",
        "data-original=url",
        "data-lazy-src",
        "data-urls=list",
    ]
    .iter()
    .map(|s| s.parse().unwrap())
    .collect();
    let rewriter = extras
        .into_iter()
        .fold(rewriter("lazy.html", Some(from), Rules::Rfc1808), |r, a| {
            r.attribute(a)
        });
    let outcome = rewriter.rewrite(&input).unwrap();
    let want = std::fs::read(fixture("html/lazy.expected.html")).unwrap();
    assert_eq!(
        String::from_utf8_lossy(outcome.bytes()),
        String::from_utf8_lossy(&want)
    );
    // They are listed like the built-in ones.
    let listed: Vec<(String, String)> = outcome
        .links()
        .iter()
        .map(|l| (l.place.attribute().to_owned(), l.resolved.clone()))
        .collect();
    assert!(listed.contains(&(
        "data-srcset".to_owned(),
        "http://example.org/news/img/photo-800.jpg".to_owned()
    )));
    assert!(listed.contains(&(
        "data-lazy-src".to_owned(),
        "http://example.org/news/img/c.jpg".to_owned()
    )));
    assert!(!listed.iter().any(|(a, _)| a == "data-bg"));
}

/// Warnings are typed: a reader says what kind of trouble, and where.
#[test]
fn warnings_say_their_kind_and_place() {
    use relink::WarningKind;
    let outcome = rewriter("p.html", None, Rules::Rfc1808)
        .rewrite(b"<a href=x>")
        .unwrap();
    let kinds: Vec<WarningKind> = outcome.warnings().iter().map(|w| w.kind).collect();
    assert_eq!(kinds, [WarningKind::NoBase]);
    let outcome = rewriter("p.html", Some("http://h/"), Rules::Whatwg)
        .rewrite(b"<p>\n<base href='http://['><a href='//['>")
        .unwrap();
    let found: Vec<(WarningKind, String)> = outcome
        .warnings()
        .iter()
        .map(|w| (w.kind, w.place.join("/")))
        .collect();
    assert_eq!(
        found,
        [
            (WarningKind::LayerIgnored, "line 2, column 1".to_owned()),
            // The BASE element's href is a link too, and so is the anchor's.
            (WarningKind::Unresolvable, "line 2, column 13".to_owned()),
            (WarningKind::Unresolvable, "line 2, column 32".to_owned()),
        ]
    );
    assert!(
        outcome.warnings()[0]
            .to_string()
            .starts_with("line 2, column 1: BASE element ignored: ")
    );
}

/// Browsers resolve every `<base href>` against the document's fallback
/// base URL (its retrieval URL), never against an earlier BASE; only the
/// first one with an href sets the document's base.
#[test]
fn a_second_base_resolves_against_the_retrieval_url_not_the_first() {
    let input = b"<base href=\"http://first.example/a/\"><base href=\"second/\"><a href=x>";
    let got = rewrite("p.html", input, Some("http://h/d/p.html"), Rules::Rfc1808);
    assert_eq!(
        String::from_utf8(got).unwrap(),
        "<base href=\"http://first.example/a/\"><base href=\"http://h/d/second/\"><a href=http://first.example/a/x>"
    );
    // With no retrieval URL the fallback is unknown: the second base is
    // left as it is, and the links still follow the first.
    let got = rewrite("p.html", input, None, Rules::Rfc1808);
    assert_eq!(
        String::from_utf8(got).unwrap(),
        "<base href=\"http://first.example/a/\"><base href=\"second/\"><a href=http://first.example/a/x>"
    );
}

/// `<image>` is made an `img` by the HTML parser and loaded by browsers.
#[test]
fn an_image_element_src_is_a_link() {
    let got = rewrite(
        "p.html",
        b"<p><image src=a.png><svg><image src=b.png></svg>",
        Some("http://h/d/"),
        Rules::Rfc1808,
    );
    assert_eq!(
        String::from_utf8(got).unwrap(),
        "<p><image src=http://h/d/a.png><svg><image src=b.png></svg>"
    );
}

/// A link a browser reads after text that reopened a formatting element
/// under MathML's `mi` (the `<![CDATA[` before it is then a bogus comment
/// ending at the first `>`) is found and rewritten.
#[test]
fn a_link_after_a_cdata_opener_that_is_a_comment_is_rewritten() {
    let page = b"<math><mi><b><a href=x></b>-<![CDATA[><a href=y>]]>";
    let out = relink::absolutize_html(page, "http://h/d/").unwrap();
    assert_eq!(
        String::from_utf8(out).unwrap(),
        "<math><mi><b><a href=http://h/d/x></b>-<![CDATA[><a href=http://h/d/y>]]>"
    );
}
