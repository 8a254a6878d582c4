//! Documents in encodings other than UTF-8, and UTF-8 with invalid bytes:
//! every edit maps back to the exact source bytes, so outside the rewritten
//! values the output bytes are the input bytes.

use encoding_rs::{Encoding, SHIFT_JIS, UTF_8, UTF_16BE, UTF_16LE, WINDOWS_1252};
use proptest::prelude::*;
use relink::encoding::{meta_declared, prescan, sniff_html};
use relink::{Kind, Rewriter, Rules};

use crate::{files_under, fixture, installed_python_docs};

const BASE: &str = "http://example.org/dir/page.html";

/// A piece of a generated document.
#[derive(Debug, Clone)]
enum Piece {
    /// Text between tags.
    Text(String),
    /// Bytes no encoding produces (invalid UTF-8), between tags.
    Raw(Vec<u8>),
    /// `<a href=...>` with this value, quoted by this quote or not at all.
    Link(String, Option<char>),
}

/// An encoding under test: how a document declares it, and the characters
/// its text and URLs are made of.
#[derive(Debug)]
struct Case {
    encoding: &'static Encoding,
    prefix: &'static [u8],
    alphabet: &'static str,
    invalid_bytes: bool,
}

const CASES: [Case; 5] = [
    Case {
        encoding: WINDOWS_1252,
        prefix: b"<meta charset=\"windows-1252\">",
        alphabet: "ab/.?=x\u{e9}\u{ff}\u{fc}\u{df}\u{20ac}\u{2018}",
        invalid_bytes: false,
    },
    Case {
        encoding: SHIFT_JIS,
        prefix: b"<meta charset=\"shift_jis\">",
        alphabet: "ab/.?=x\u{65e5}\u{672c}\u{8a9e}\u{ff71}\u{30c6}",
        invalid_bytes: false,
    },
    Case {
        encoding: UTF_16LE,
        prefix: b"\xff\xfe",
        alphabet: "ab/.?=x\u{e9}\u{65e5}\u{1f600}",
        invalid_bytes: false,
    },
    Case {
        encoding: UTF_16BE,
        prefix: b"\xfe\xff",
        alphabet: "ab/.?=x\u{e9}\u{65e5}\u{1f600}",
        invalid_bytes: false,
    },
    Case {
        encoding: UTF_8,
        prefix: b"<meta charset=\"utf-8\">",
        alphabet: "ab/.?=x\u{e9}\u{ff}\u{fffd}\u{65e5}",
        invalid_bytes: true,
    },
];

fn encode(case: &Case, text: &str) -> Vec<u8> {
    if case.encoding == UTF_16LE {
        return text.encode_utf16().flat_map(u16::to_le_bytes).collect();
    }
    if case.encoding == UTF_16BE {
        return text.encode_utf16().flat_map(u16::to_be_bytes).collect();
    }
    let (bytes, _, unmappable) = case.encoding.encode(text);
    assert!(!unmappable, "{text:?} in {}", case.encoding.name());
    bytes.into_owned()
}

fn string_of(alphabet: &'static str, len: std::ops::Range<usize>) -> BoxedStrategy<String> {
    let chars: Vec<char> = alphabet.chars().collect();
    prop::collection::vec(prop::sample::select(chars), len)
        .prop_map(|v| v.into_iter().collect())
        .boxed()
}

fn pieces(case: &'static Case) -> impl Strategy<Value = Vec<Piece>> {
    let text = string_of(case.alphabet, 0..6).prop_map(|t| Piece::Text(t.replace('?', " ")));
    let quote = prop::sample::select(vec![None, Some('"'), Some('\'')]);
    let link = (string_of(case.alphabet, 1..10), quote).prop_map(|(v, q)| Piece::Link(v, q));
    let raw = prop::sample::select(vec![
        b"\xff".to_vec(),
        b"\xc3".to_vec(),
        b"\xe2\x82".to_vec(),
        b"\xed\xa0\x80".to_vec(),
    ])
    .prop_map(Piece::Raw);
    let piece = if case.invalid_bytes {
        prop_oneof![3 => text, 3 => link, 2 => raw].boxed()
    } else {
        prop_oneof![text, link].boxed()
    };
    prop::collection::vec(piece, 1..12)
}

/// The document's bytes.
fn build(case: &Case, pieces: &[Piece]) -> Vec<u8> {
    let mut doc = case.prefix.to_vec();
    for piece in pieces {
        match piece {
            Piece::Text(t) => doc.extend(encode(case, t)),
            Piece::Raw(b) => doc.extend(b),
            Piece::Link(value, quote) => {
                let q = quote.map(String::from).unwrap_or_default();
                doc.extend(encode(case, &format!("<a href={q}{value}{q}>x</a>")));
            }
        }
    }
    doc
}

/// Checks that `out` is `pieces` with each link's value replaced by its
/// resolution, every other byte equal.
fn check(case: &Case, pieces: &[Piece], out: &[u8]) -> Result<(), TestCaseError> {
    let unit = if case.encoding == UTF_16LE || case.encoding == UTF_16BE {
        2
    } else {
        1
    };
    let mut rest = out;
    let expect = |want: &[u8], rest: &mut &[u8]| -> Result<(), TestCaseError> {
        prop_assert!(
            rest.starts_with(want),
            "expected {:?} at {:?}",
            String::from_utf8_lossy(want),
            String::from_utf8_lossy(&rest[..rest.len().min(40)])
        );
        *rest = &rest[want.len()..];
        Ok(())
    };
    expect(case.prefix, &mut rest)?;
    for piece in pieces {
        match piece {
            Piece::Text(t) => expect(&encode(case, t), &mut rest)?,
            Piece::Raw(b) => expect(b, &mut rest)?,
            Piece::Link(value, quote) => {
                let q = quote.map(String::from).unwrap_or_default();
                expect(&encode(case, &format!("<a href={q}")), &mut rest)?;
                let end_mark = encode(case, if q.is_empty() { ">" } else { &q });
                let end = (0..rest.len())
                    .step_by(unit)
                    .find(|&i| rest[i..].starts_with(&end_mark));
                prop_assert!(end.is_some(), "value of {value:?} does not end");
                let end = end.unwrap_or_default();
                let (new, _) = case.encoding.decode_without_bom_handling(&rest[..end]);
                let want = relink::resolve(BASE, value, Rules::Rfc1808).unwrap();
                prop_assert_eq!(&*new, want.as_str(), "value {:?}", value);
                rest = &rest[end..];
                expect(&encode(case, &format!("{q}>x</a>")), &mut rest)?;
            }
        }
    }
    prop_assert!(
        rest.is_empty(),
        "trailing {:?}",
        String::from_utf8_lossy(rest)
    );
    Ok(())
}

fn rewrite(doc: &[u8]) -> Vec<u8> {
    rewrite_against(BASE, doc)
}

fn rewrite_against(base: &str, doc: &[u8]) -> Vec<u8> {
    Rewriter::new()
        .kind(Kind::Html)
        .retrieved_from(base)
        .rewrite(doc)
        .unwrap()
        .into_bytes()
}

fn holds_for(case: &'static Case) -> impl Strategy<Value = (&'static Case, Vec<Piece>)> {
    pieces(case).prop_map(move |p| (case, p))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn only_the_values_change_in_every_encoding(
        (case, pieces) in prop_oneof![
            holds_for(&CASES[0]),
            holds_for(&CASES[1]),
            holds_for(&CASES[2]),
            holds_for(&CASES[3]),
            holds_for(&CASES[4]),
        ]
    ) {
        let doc = build(case, &pieces);
        check(case, &pieces, &rewrite(&doc))?;
    }
}

/// A base with a `'` makes an unquoted value quoted: the edit spans the
/// whole value, and so ends right after its last character.
const QUOTING_BASE: &str = "http://example.org/o'neil/";

#[test]
fn windows_1252_value_ending_in_e_acute_keeps_its_last_character() {
    let doc = b"<meta charset=windows-1252><a href=p?x=caf\xe9>x</a>";
    assert_eq!(
        rewrite_against(QUOTING_BASE, doc),
        b"<meta charset=windows-1252><a href=\"http://example.org/o'neil/p?x=caf\xe9\">x</a>"
    );
}

#[test]
fn invalid_utf8_before_a_value_ending_in_a_two_byte_character() {
    let doc = b"<meta charset=utf-8>\xff<a href=caf\xc3\xa9>x</a>";
    assert_eq!(
        rewrite_against(QUOTING_BASE, doc),
        b"<meta charset=utf-8>\xff<a href=\"http://example.org/o'neil/caf\xc3\xa9\">x</a>"
    );
}

/// The whole-document prescan relink used before it stopped at the first
/// 1024 bytes: the answers the sniffing is held to.
fn whole_prescan_sniff(bytes: &[u8]) -> &'static Encoding {
    Encoding::for_bom(bytes)
        .map(|(encoding, _)| encoding)
        .or_else(|| prescan(bytes))
        .unwrap_or(if std::str::from_utf8(bytes).is_ok() {
            UTF_8
        } else {
            WINDOWS_1252
        })
}

// unit: the encoding sniffing itself, whose answer no run reports.
#[test]
fn sniffing_answers_as_the_whole_document_prescan_on_every_corpus() {
    let mut docs: Vec<(String, Vec<u8>)> = files_under(&fixture(""));
    let mut vectors = Vec::new();
    for (name, bytes) in &docs {
        if name.starts_with("corpus/html5lib-tests/encoding/") && name.ends_with(".dat") {
            for (n, (data, _)) in crate::html_fixtures::vectors(bytes).into_iter().enumerate() {
                vectors.push((format!("{name} #{}", n + 1), data.to_vec()));
            }
        }
    }
    docs.extend(vectors);
    if let Some(root) = installed_python_docs() {
        docs.extend(
            files_under(&root)
                .into_iter()
                .filter(|(name, _)| name.ends_with(".html")),
        );
    }
    let (mut checked, mut declared_late) = (0, 0);
    for (name, bytes) in &docs {
        // As found, and pushed past the first 1024 bytes by white space or
        // a comment, so that what the document declares is found late.
        for pad in [0, 1000, 1021, 1024, 2048] {
            for filler in [" ", "<!---->"] {
                let mut doc = filler.repeat(pad / filler.len()).into_bytes();
                doc.extend_from_slice(bytes);
                let want = whole_prescan_sniff(&doc);
                assert_eq!(
                    sniff_html(&doc, None).encoding,
                    want,
                    "{name}, after {pad} bytes of {filler:?}"
                );
                assert_eq!(
                    meta_declared(&doc),
                    prescan(&doc),
                    "{name}, {pad} {filler:?}"
                );
                checked += 1;
                if prescan(&doc).is_some() && prescan(&doc[..doc.len().min(1024)]).is_none() {
                    declared_late += 1;
                }
            }
        }
    }
    assert!(
        checked > 1000 && declared_late > 100,
        "{checked}, {declared_late}"
    );
}

// unit: the late meta search itself, whose answer no run reports.
#[test]
fn a_meta_charset_after_the_first_1024_bytes_is_honoured_outside_comments() {
    let pad = "<p>x</p>".repeat(200);
    let late = format!("{pad}<META http-equiv=content-type content='text/html;charset=koi8-r'>");
    assert_eq!(meta_declared(late.as_bytes()), Some(encoding_rs::KOI8_R));
    let commented = format!("{pad}<!-- <meta charset=koi8-r> --><meta charset=shift_jis>");
    assert_eq!(meta_declared(commented.as_bytes()), Some(SHIFT_JIS));
    let unclosed = format!("{pad}<!-- <meta charset=koi8-r>");
    assert_eq!(meta_declared(unclosed.as_bytes()), None);
    // A tag begun in the first 1024 bytes is read to its end.
    let straddling = format!("{}<meta charset=koi8-r>", " ".repeat(1020));
    assert_eq!(
        meta_declared(straddling.as_bytes()),
        Some(encoding_rs::KOI8_R)
    );
}
