//! The links a WAT file lists that relink never rewrites: attributes that
//! Common Crawl's WAT extractor (ia-web-commons) takes as links but no
//! browser fetches, so that a reader of a WAT file gets every link it gets
//! from Common Crawl's.
//!
//! `data-href`, `data-uri` and `background` on any element, `cdata` of an
//! `applet` or `object`, `icon` of a `menuitem`, and a URL that a `div`'s or
//! an `input`'s `onclick` sets the location to or opens, as the extractor
//! finds it. The HTML and XHTML readers gather them with
//! [`Details::Attributes`](crate::options::Details::Attributes) only, for an
//! attribute their link tables do not rewrite, into
//! [`HtmlHead::listed`](crate::links::HtmlHead): the document is never changed
//! there.

/// How a WAT-only attribute holds its URL.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Listed {
    /// The value is the URL, character references decoded.
    Value,
    /// JavaScript that may go to a URL: see [`onclick_urls`].
    OnClick,
}

/// Attributes listed on any element.
const ANY_ELEMENT: [&str; 3] = ["background", "data-href", "data-uri"];

/// Attributes listed on one element: (element, attribute, how).
const ELEMENTS: [(&str, &str, Listed); 5] = [
    ("applet", "cdata", Listed::Value),
    ("object", "cdata", Listed::Value),
    ("menuitem", "icon", Listed::Value),
    ("div", "onclick", Listed::OnClick),
    ("input", "onclick", Listed::OnClick),
];

/// Whether an HTML element's attribute (both named in lower case) is
/// listed in a WAT file, and how it holds its URL. The caller asks only
/// of attributes its link table does not rewrite.
pub(crate) fn listed(element: &str, attribute: &str) -> Option<Listed> {
    if ANY_ELEMENT.contains(&attribute) {
        return Some(Listed::Value);
    }
    ELEMENTS
        .iter()
        .find(|(e, a, _)| *e == element && *a == attribute)
        .map(|&(_, _, how)| how)
}

/// Whether an attribute named `raw` as written may be listed on some
/// element: its name, lowered as the tokenizer lowers it, is one of those
/// [`listed`] knows (none of them holds what a NUL becomes). A test of the
/// name as written, so that the attributes of every element are passed
/// over without a name made of each.
pub(crate) fn may_be_listed(raw: &[u8]) -> bool {
    // One name of each length: told by the length, then compared.
    let name: &[u8] = match raw.len() {
        4 => b"icon",
        5 => b"cdata",
        7 => b"onclick",
        8 => b"data-uri",
        9 => b"data-href",
        10 => b"background",
        _ => return false,
    };
    raw.eq_ignore_ascii_case(name)
}

/// The URLs an `onclick` value goes to, as Common Crawl's extractor reads
/// them from the value as written (a quote may be `&#39;`): the whole value
/// an assignment to the location (`location.href='x'`, after an optional
/// `javascript:` and `window.`, `top.`, `document.`, `self.` or `parent.`),
/// and a value that starts with a call of `window.open` or `parent.open`
/// whose first argument is quoted. A URL is 3 to 256 characters with no
/// quote. Both readings are tried; each gives at most one URL.
pub(crate) fn onclick_urls(value: &str) -> impl Iterator<Item = &str> {
    [location_assignment(value), window_open(value)]
        .into_iter()
        .flatten()
}

/// The quotes a URL in `onclick` is written between.
const QUOTES: [&str; 3] = ["'", "\"", "&#39;"];

/// `rest` less the ASCII case-insensitive `prefix`, if it starts so.
fn strip_prefix_ignore_case<'a>(rest: &'a str, prefix: &str) -> Option<&'a str> {
    let head = rest.get(..prefix.len())?;
    head.eq_ignore_ascii_case(prefix)
        .then(|| &rest[prefix.len()..])
}

/// `rest` after an optional `javascript:`.
fn after_javascript(value: &str) -> &str {
    strip_prefix_ignore_case(value, "javascript:").unwrap_or(value)
}

/// Whether a URL read from `onclick` is one: 3 to 256 characters, no quote.
fn plausible(url: &str) -> bool {
    (3..=256).contains(&url.chars().count()) && !url.contains(['\'', '"'])
}

/// Java's `\s`: the white space a regular expression of the extractor
/// skips.
fn java_space(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\n' | '\x0b' | '\x0c' | '\r')
}

/// `[javascript:][window.|top.|...]location[.href] = 'URL'`, the whole
/// value, the URL quoted with `'` or `&#39;`.
fn location_assignment(value: &str) -> Option<&str> {
    let mut rest = after_javascript(value);
    for object in ["window.", "top.", "document.", "self.", "parent."] {
        if let Some(after) = strip_prefix_ignore_case(rest, object) {
            rest = after;
            break;
        }
    }
    rest = strip_prefix_ignore_case(rest, "location")?;
    rest = strip_prefix_ignore_case(rest, ".href").unwrap_or(rest);
    rest = rest.trim_start_matches(java_space).strip_prefix('=')?;
    rest = rest.trim_start_matches(java_space);
    let quote = ["'", "&#39;"].into_iter().find(|q| rest.starts_with(q))?;
    let url = rest[quote.len()..].strip_suffix(quote)?;
    plausible(url).then_some(url)
}

/// `[javascript:](window|parent).open(QUOTE URL QUOTE` then `,` or `)`,
/// at the start of the value: the shortest such URL.
fn window_open(value: &str) -> Option<&str> {
    let rest = after_javascript(value);
    let rest = strip_prefix_ignore_case(rest, "window.")
        .or_else(|| strip_prefix_ignore_case(rest, "parent."))?;
    let rest = strip_prefix_ignore_case(rest, "open(")?;
    let quote = QUOTES.into_iter().find(|q| rest.starts_with(q))?;
    let rest = &rest[quote.len()..];
    // The URL holds no quote character: it ends at or before the first.
    let stop = rest.find(['\'', '"']).unwrap_or(rest.len());
    let mut from = 0;
    while let Some(end) = rest[from..].find(quote).map(|i| from + i) {
        if end > stop {
            break;
        }
        let url = &rest[..end];
        if rest[end + quote.len()..].starts_with([',', ')']) && plausible(url) {
            return Some(url);
        }
        // A quote starts with an ASCII character: the next one is a
        // character boundary.
        from = end + 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_name_that_may_be_listed_is_one_listed_on_some_element() {
        let names = [
            "data-href",
            "DATA-Href",
            "data-hre",
            "data-hrefs",
            "onclick",
            "ONCLICK",
            "on\0click",
            "icon",
            "cdata",
            "background",
            "href",
            "src",
            "data-uri",
            "data-\u{e9}ri",
            "",
        ];
        let elements = ["applet", "object", "menuitem", "div", "input", "a"];
        let listed_names = ANY_ELEMENT.iter().chain(ELEMENTS.iter().map(|(_, a, _)| a));
        let upper: Vec<String> = listed_names.map(|n| n.to_ascii_uppercase()).collect();
        let names = names
            .iter()
            .copied()
            .chain(ANY_ELEMENT)
            .chain(upper.iter().map(|n| &**n));
        for raw in names {
            // As the tokenizer names it.
            let name = raw.to_ascii_lowercase().replace('\0', "\u{fffd}");
            let anywhere = elements.iter().any(|e| listed(e, &name).is_some());
            assert_eq!(may_be_listed(raw.as_bytes()), anywhere, "{raw:?}");
        }
    }

    #[test]
    fn the_attributes_listed_are_common_crawls() {
        assert_eq!(listed("div", "data-href"), Some(Listed::Value));
        assert_eq!(listed("article", "data-uri"), Some(Listed::Value));
        assert_eq!(listed("p", "background"), Some(Listed::Value));
        assert_eq!(listed("menuitem", "icon"), Some(Listed::Value));
        assert_eq!(listed("input", "onclick"), Some(Listed::OnClick));
        assert_eq!(listed("button", "onclick"), None);
        assert_eq!(listed("div", "data-src"), None);
    }

    /// The `onclick` values of the extractor's own test page, with the
    /// URLs it lists for them, and some it lists none for.
    #[test]
    fn onclick_urls_are_read_as_common_crawls_extractor_reads_them() {
        let urls = |value| onclick_urls(value).collect::<Vec<_>>();
        assert_eq!(urls("location.href='webpage.html'"), ["webpage.html"]);
        assert_eq!(urls("parent.location='index.html'"), ["index.html"]);
        assert_eq!(
            urls("parent.open('http://www.x.com/')"),
            ["http://www.x.com/"]
        );
        assert_eq!(
            urls("window.open(\"button-child.php\",\"demo\",\"width=550\");"),
            ["button-child.php"]
        );
        assert_eq!(
            urls("window.open(&#39;http://example.com/&#39;, #39;width=500&#39;);"),
            ["http://example.com/"]
        );
        assert_eq!(
            urls("window.location.href='http://example.com/location/href/1.html'"),
            ["http://example.com/location/href/1.html"]
        );
        assert_eq!(
            urls("Javascript:document.location.href=&#39;http://example.com/2.html&#39;"),
            ["http://example.com/2.html"]
        );
        // Not the whole value, too short, or no call at the start.
        assert!(urls("location.href='x.html'; return false").is_empty());
        assert!(urls("location='ab'").is_empty());
        assert!(urls("go(); window.open('x.html')").is_empty());
        assert!(urls("window.open('x.html'+y)").is_empty());
        assert!(urls("").is_empty());
        assert!(urls("window.open(&#39;").is_empty());
    }

    /// Every prefix of values with multi-byte characters and entities is
    /// read without a panic, and what it gives lies in the value.
    #[test]
    fn onclick_values_cut_anywhere_are_read_without_a_panic() {
        let values = [
            "javascript:window.open(&#39;h\u{e9}.html&#39;,'\u{1f600}')",
            "self.location = '\u{e9}\u{e9}\u{e9}'",
            "parent.open(\"a\u{e9}b\")",
            "location.href=&#39;&#39;&#39;",
        ];
        for value in values {
            for (at, _) in value.char_indices() {
                let cut = &value[..at];
                for url in onclick_urls(cut) {
                    assert!(cut.contains(url), "{cut:?} gave {url:?}");
                }
            }
        }
        assert_eq!(
            onclick_urls(values[0]).collect::<Vec<_>>(),
            ["h\u{e9}.html"]
        );
        assert_eq!(
            onclick_urls(values[1]).collect::<Vec<_>>(),
            ["\u{e9}\u{e9}\u{e9}"]
        );
        assert_eq!(onclick_urls(values[2]).collect::<Vec<_>>(), ["a\u{e9}b"]);
    }
}
