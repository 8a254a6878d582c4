//! A URL in a document a browser reads (HTML, XHTML, SVG, CSS) resolves to
//! what the browser fetches under every rule set: the URL Standard's basic
//! URL parser strips leading and trailing C0 controls and spaces and
//! removes tabs and newlines inside before it parses. The stripped
//! characters keep their bytes; only the URL between them is replaced.

use relink::{Kind, Rewriter, Rules};

use crate::table;

/// `\xNN` in a row of the table stands for that byte.
fn unescape(field: &str) -> String {
    let mut out = String::with_capacity(field.len());
    let mut rest = field;
    while let Some(at) = rest.find("\\x") {
        let hex = rest
            .get(at + 2..at + 4)
            .and_then(|h| u8::from_str_radix(h, 16).ok());
        out.push_str(&rest[..at]);
        match hex {
            Some(b) => {
                out.push(char::from(b));
                rest = &rest[at + 4..];
            }
            None => {
                out.push_str("\\x");
                rest = &rest[at + 2..];
            }
        }
    }
    out.push_str(rest);
    out
}

#[test]
fn browser_urls_resolve_as_a_browser_reads_them_under_every_rule_set() {
    let rows = table("browser-urls.tsv", 4);
    assert!(rows.len() >= 20);
    let mut failures = Vec::new();
    for rules in [Rules::Rfc1808, Rules::Rfc3986, Rules::Whatwg] {
        for row in &rows {
            let kind = match row[0].as_str() {
                "html" => Kind::Html,
                "css" => Kind::Css,
                "svg" | "xhtml" => Kind::Xml,
                other => panic!("no kind {other}"),
            };
            let (input, want) = (unescape(&row[1]), unescape(&row[2]));
            let out = Rewriter::new()
                .kind(kind)
                .rules(rules)
                .retrieved_from("http://h/d/")
                .rewrite(input.as_bytes())
                .unwrap();
            let got = String::from_utf8_lossy(out.bytes());
            let resolved: Vec<&str> = out.links().iter().map(|l| l.resolved.as_str()).collect();
            if got != want || resolved.join("|") != row[3] {
                failures.push(format!(
                    "{rules:?} {input:?}\n  got  {got:?} {resolved:?}\n  want {want:?} {}",
                    row[3]
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
