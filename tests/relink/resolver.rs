//! The resolver against the RFCs' own examples, relink's further cases, the
//! rule sets' known disagreements, and properties over arbitrary input.

use proptest::prelude::*;
use relink::url::rfc1808;
use relink::{BaseUrl, Rules};

use crate::table;

/// Checks every row of a base/reference/expected table; returns the count.
fn check_table(name: &str, rules: Rules) -> usize {
    let rows = table(name, 3);
    let failures: Vec<String> = rows
        .iter()
        .filter_map(|row| {
            let got = relink::resolve(&row[0], &row[1], rules).map_err(|e| e.to_string());
            (got.as_deref() != Ok(row[2].as_str()))
                .then(|| format!("{} + {:?}: want {}, got {:?}", row[0], row[1], row[2], got))
        })
        .collect();
    assert!(failures.is_empty(), "{name}:\n{}", failures.join("\n"));
    rows.len()
}

#[test]
fn rfc1808_section_5_examples() {
    // 24 normal and 15 abnormal examples.
    assert_eq!(check_table("rfc1808.tsv", Rules::Rfc1808), 39);
}

#[test]
fn rfc1808_further_cases() {
    assert!(check_table("rfc1808-more.tsv", Rules::Rfc1808) > 40);
}

#[test]
fn rfc3986_section_5_4_examples() {
    // 23 normal and 19 abnormal examples.
    assert_eq!(check_table("rfc3986.tsv", Rules::Rfc3986), 42);
}

#[test]
fn rule_sets_disagree_as_documented() {
    let rows = table("rules.tsv", 5);
    assert!(!rows.is_empty());
    for row in rows {
        for (rules, want) in Rules::ALL.into_iter().zip(&row[2..]) {
            let got =
                relink::resolve(&row[0], &row[1], rules).unwrap_or_else(|_| "(error)".to_owned());
            assert_eq!(&got, want, "{rules}: {} + {:?}", row[0], row[1]);
        }
        let results: Vec<_> = Rules::ALL
            .iter()
            .map(|&r| relink::resolve(&row[0], &row[1], r).ok())
            .collect();
        assert!(
            results.windows(2).any(|w| w[0] != w[1]),
            "{} + {:?}: the rule sets agree, so the row does not belong",
            row[0],
            row[1]
        );
    }
}

#[test]
fn a_base_needs_a_scheme() {
    for rules in Rules::ALL {
        assert!(BaseUrl::parse("", rules).is_err());
        assert!(BaseUrl::parse("/a/b", rules).is_err());
        assert!(BaseUrl::parse("//a/b", rules).is_err());
    }
}

#[test]
fn unchanged_references_are_borrowed() {
    let base = BaseUrl::parse("http://a/b/c/d;p?q#f", Rules::Rfc1808).unwrap();
    let reference = "mailto:x@example.com";
    let out = base.resolve(reference).unwrap();
    assert!(matches!(out, std::borrow::Cow::Borrowed(_)));
}

/// Bases of several shapes, for the properties.
fn bases() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("http://a/b/c/d;p?q#f".to_owned()),
        Just("http://a".to_owned()),
        Just("file:///usr/share/doc/index.html".to_owned()),
        Just("ftp://u@h:21/p/;type=d".to_owned()),
        Just("HTTPS://Example.COM/x/y/".to_owned()),
        "[a-z][a-z0-9+.-]{0,5}://[a-z.]{0,8}(/[a-z./;?#=]{0,12}){0,3}",
    ]
}

/// References built from the characters that matter to the parsers.
fn references() -> impl Strategy<Value = String> {
    prop_oneof![
        "[a-z./;?#:=@%]{0,24}",
        "(\\.\\.?/|[a-z]+/|;[a-z]|\\?[a-z]|#[a-z]){0,6}",
    ]
}

proptest! {
    /// On any text: against a valid base, RFC 1808 and RFC 3986 always
    /// resolve, and every result is a valid base under the same rules; the
    /// raw RFC 1808 function returns a reference with a scheme, or any
    /// reference against an empty base, as it is (section 4, steps 1 and
    /// 2b).
    #[test]
    fn any_text_resolves_to_an_absolute_url(base in "\\PC{0,30}", reference in "\\PC{0,30}") {
        for rules in Rules::ALL {
            let Ok(parsed) = BaseUrl::parse(&base, rules) else { continue };
            match parsed.resolve(&reference) {
                Ok(url) => prop_assert!(
                    BaseUrl::parse(&url, rules).is_ok(),
                    "{}: {:?} + {:?} gave {:?}", rules, base, reference, url
                ),
                Err(e) => prop_assert_eq!(rules, Rules::Whatwg, "{}", e),
            }
        }
        let raw = rfc1808::resolve(&base, &reference);
        if base.is_empty() || rfc1808::Url::parse(&reference).scheme.is_some() {
            prop_assert_eq!(raw, reference.as_str());
        }
        let _ = relink::url::rfc3986::resolve(&base, &reference);
    }

    #[test]
    fn resolving_a_result_again_changes_nothing(base in bases(), reference in references()) {
        for rules in Rules::ALL {
            // RFC 3986 section 5.2.2 inherits the base's path verbatim for an
            // empty-path reference, but removes dot segments from an absolute
            // one: against a base whose path has them, a second pass differs.
            let path = relink::url::rfc3986::Reference::parse(&base).path;
            if rules == Rules::Rfc3986
                && relink::url::rfc3986::remove_dot_segments(path) != path
            {
                continue;
            }
            let Ok(base) = BaseUrl::parse(&base, rules) else { continue };
            let Ok(once) = base.resolve(&reference) else { continue };
            let twice = base.resolve(&once).expect("a resolved url resolves again");
            prop_assert_eq!(&twice, &once, "{}", rules);
        }
    }

    #[test]
    fn a_relative_result_keeps_the_base_scheme(base in bases(), reference in references()) {
        let scheme = base.split(':').next().unwrap().to_ascii_lowercase();
        for rules in Rules::ALL {
            let Ok(parsed) = BaseUrl::parse(&base, rules) else { continue };
            let Ok(out) = parsed.resolve(&reference) else { continue };
            let relative = match rules {
                Rules::Rfc1808 => rfc1808::Url::parse(&reference).scheme.is_none(),
                Rules::Rfc3986 => relink::url::rfc3986::Reference::parse(&reference).scheme.is_none(),
                Rules::Whatwg => url::Url::parse(&reference).is_err(),
            };
            if relative {
                let prefix = format!("{scheme}:");
                prop_assert!(
                    out.to_ascii_lowercase().starts_with(&prefix),
                    "{}: {} + {:?} = {}", rules, base, reference, out
                );
            }
        }
    }
}

/// `relink resolve` writes the empty components a reference writes
/// (RFC 1808 section 4 step 7), and inherits only by step 5.
#[test]
fn resolve_keeps_written_empty_components() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_relink"))
        .args(["resolve", "http://a/b/c/d;p?q#f", "g?", "g#", "#", "?", ""])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        "http://a/b/c/g?\nhttp://a/b/c/g#\nhttp://a/b/c/d;p?q#\nhttp://a/b/c/d;p?q\nhttp://a/b/c/d;p?q#f\n"
    );
}
