//! `--lazy` (`Rewriter::lazy_attributes`): the lazy-loading attributes
//! read as links on every HTML element, each in its syntax.

use crate::cli::{assert_ok, relink};
use crate::fixture;

const FROM: &str = "http://example.org/news/story.html";

fn page() -> String {
    fixture("html/lazy-preset.html")
        .to_str()
        .expect("a UTF-8 path")
        .to_owned()
}

#[test]
fn lazy_rewrites_each_lazy_loading_attribute() {
    let page = page();
    let out = relink(&[&page, "--retrieved-from", FROM, "--lazy"], b"");
    assert_ok(&out);
    let expected = std::fs::read(fixture("html/lazy-preset.expected.html")).unwrap();
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&expected)
    );
    // Without it, none is a link.
    let plain = relink(&[&page, "--retrieved-from", FROM], b"");
    assert_ok(&plain);
    assert_eq!(plain.stdout, std::fs::read(&page).unwrap());
}

#[test]
fn lazy_lists_each_attribute_in_its_syntax() {
    let page = page();
    let out = relink(
        &[
            &page,
            "--retrieved-from",
            FROM,
            "--lazy",
            "--list",
            "--format",
            "json",
        ],
        b"",
    );
    assert_ok(&out);
    let rows: Vec<(String, String, String)> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|line| {
            let row: serde_json::Value = serde_json::from_str(line).unwrap();
            let field = |key: &str| row[key].as_str().unwrap_or_default().to_owned();
            (field("element"), field("attribute"), field("resolved"))
        })
        .filter(|(_, attribute, _)| attribute.starts_with("data-"))
        .collect();
    let img = "http://example.org/news/img/";
    let wanted = [
        ("img", "data-src", format!("{img}photo.jpg")),
        ("img", "data-srcset", format!("{img}photo-480.jpg")),
        ("img", "data-srcset", format!("{img}photo-800.jpg")),
        ("img", "data-original", format!("{img}original.jpg")),
        ("img", "data-lazy-src", format!("{img}lazy-src.jpg")),
        ("img", "data-src", format!("{img}upper.jpg")),
        ("div", "data-background", format!("{img}background.jpg")),
        (
            "iframe",
            "data-src",
            "http://example.org/news/embed.html".to_owned(),
        ),
    ];
    let wanted: Vec<(String, String, String)> = wanted
        .into_iter()
        .map(|(e, a, r)| (e.to_owned(), a.to_owned(), r))
        .collect();
    assert_eq!(rows, wanted);
}

/// An `--attr` of a lazy-loading attribute's name keeps its syntax.
#[test]
fn attr_wins_over_lazy() {
    let page = b"<img data-src='a.jpg b.jpg'>";
    for args in [
        ["--attr", "data-src=list", "--lazy"],
        ["--lazy", "--attr", "data-src=list"],
    ] {
        let mut all = vec!["--retrieved-from", "http://h/d/", "-"];
        all.extend(args);
        let out = relink(&all, page);
        assert_ok(&out);
        assert_eq!(
            out.stdout,
            b"<img data-src='http://h/d/a.jpg http://h/d/b.jpg'>"
        );
    }
}

/// The library's preset is the command line's.
#[test]
fn the_rewriters_lazy_attributes_are_the_command_lines() {
    let input = std::fs::read(page()).unwrap();
    let out = relink::Rewriter::new()
        .retrieved_from(FROM)
        .lazy_attributes()
        .rewrite(&input)
        .unwrap();
    let expected = std::fs::read(fixture("html/lazy-preset.expected.html")).unwrap();
    assert_eq!(out.bytes(), &expected[..]);
}
