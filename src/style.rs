//! URLs in CSS syntax: `url(...)`, `@import "..."` and the strings of
//! `image-set(...)`, found by source position in style sheets, `<style>`
//! elements and `style` attributes, by relink's own tokenizer (`scan.rs`),
//! held by property tests to cssparser's tokenizer. Apart, as two readers
//! need it (HTML and `css.rs`).

use std::borrow::Cow;
use std::ops::Range;

#[cfg(any(test, feature = "_internal"))]
use cssparser::{ParseError, Parser, Token};

mod scan;

/// How deep nested blocks and functions are followed, so input cannot exhaust the stack.
pub const MAX_CSS_NESTING: usize = 64;

/// How a URL is written in CSS, which decides how a new one is escaped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CssQuoting {
    /// A string, in these quotes.
    Quoted(char),
    /// An unquoted `url(...)`.
    Unquoted,
}

/// One URL in a style sheet.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CssUrl<'a> {
    /// The URL's source, without quotes or `url(`, `)` and white space.
    pub range: Range<usize>,
    /// The URL, escapes resolved: the style sheet's own text when it has none.
    pub value: Cow<'a, str>,
    /// How it is written.
    pub quoting: CssQuoting,
}

/// Every URL in `css`, in source order.
#[cfg(any(test, feature = "_internal"))]
pub fn urls(css: &str) -> Vec<CssUrl<'_>> {
    let mut found = Vec::new();
    each_url(css, &mut |url| found.push(url));
    found
}

/// Every URL in `css` through cssparser's tokenizer: what [`urls`] is held to.
#[cfg(any(test, feature = "_internal"))]
pub fn urls_parsed(css: &str) -> Vec<CssUrl<'_>> {
    let mut found = Vec::new();
    each_url_parsed(css, &mut |url| found.push(url));
    found
}

/// Calls `found` with every URL in `css`, in source order; a sheet that cannot
/// hold one ([`may_hold_url`]) costs a scan, the others `scan.rs`.
pub fn each_url<'a>(css: &'a str, found: &mut dyn FnMut(CssUrl<'a>)) {
    if may_hold_url(css.as_bytes()) {
        scan::each_url(css, found);
    }
}

/// [`each_url`] through cssparser's tokenizer: the oracle of `scan.rs`.
#[cfg(any(test, feature = "_internal"))]
pub fn each_url_parsed<'a>(css: &'a str, found: &mut dyn FnMut(CssUrl<'a>)) {
    let mut parser = Parser::new(css);
    scan(&mut parser, css, Context::Plain, 0, found);
}

/// Whether `css` holds, in any case, `url(`, `src(`, `image-set(`, `@import`,
/// or an escape in a name before `(` or after `@` (`escape_may_name`): a
/// function's name is the bytes before its `(` unless an escape spells it (4.3.4).
pub fn may_hold_url(css: &[u8]) -> bool {
    let ends_with = |end: usize, name: &[u8]| {
        end >= name.len() && css[end - name.len()..end].eq_ignore_ascii_case(name)
    };
    let mut at = 0;
    while let Some(found) = find_special(&css[at..]) {
        let i = at + found;
        at = i + 1;
        let may = match css[i] {
            b'(' => ends_with(i, b"url") || ends_with(i, b"src") || ends_with(i, b"image-set"),
            b'@' => css
                .get(i + 1..i + 7)
                .is_some_and(|name| name.eq_ignore_ascii_case(b"import")),
            _ => match escape_may_name(css, i) {
                Ok(()) => true,
                Err(end) => {
                    at = end;
                    false
                }
            },
        };
        if may {
            return true;
        }
    }
    false
}

/// The first `(`, `@` or `\` of `css`; a short text a byte at a time.
#[inline]
fn find_special(css: &[u8]) -> Option<usize> {
    const SHORT: usize = 16;
    if css.len() <= SHORT {
        return css.iter().position(|b| matches!(b, b'(' | b'@' | b'\\'));
    }
    memchr::memchr3(b'(', b'@', b'\\', css)
}

/// Whether the escape at `at` may be in a function's or at-keyword's name:
/// `Ok` if the name may reach a `(` or an `@`, else `Err` with where it ends.
fn escape_may_name(css: &[u8], at: usize) -> Result<(), usize> {
    let name_byte =
        |b: u8| b.is_ascii_alphanumeric() || b == b'-' || b == b'_' || b >= 0x80 || b == 0;
    // Back over the name to where it starts.
    let mut start = at;
    while start > 0 && name_byte(css[start - 1]) {
        start -= 1;
    }
    if start > 0 && matches!(css[start - 1], b'@' | b'\\') {
        return Ok(());
    }
    // On over escapes and name characters to where the name ends.
    let mut i = at;
    loop {
        if css.get(i) == Some(&b'\\') {
            i += 1;
            match css.get(i) {
                None | Some(b'\n' | b'\r' | b'\x0c') => return Ok(()),
                Some(b) if b.is_ascii_hexdigit() => {
                    let digits = css[i..]
                        .iter()
                        .take(6)
                        .take_while(|b| b.is_ascii_hexdigit());
                    i += digits.count();
                    if css[i..].starts_with(b"\r\n") {
                        i += 2;
                    } else if css.get(i).is_some_and(|&b| b" \t\n\r\x0c".contains(&b)) {
                        i += 1;
                    }
                }
                Some(_) => i += 1,
            }
        } else if css.get(i).copied().is_some_and(name_byte) {
            i += 1;
        } else if css.get(i) == Some(&b'(') {
            return Ok(());
        } else {
            return Err(i);
        }
    }
}

/// Where in the grammar the scan is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Context {
    Plain,
    /// Inside `url(` or `src(`: the first string is the URL.
    UrlFunction,
    /// Inside `image-set(`: every string is a URL.
    ImageSet,
}

#[cfg(any(test, feature = "_internal"))]
/// What [`scan`] keeps of a token, borrowed from a parser that must move on.
enum Seen {
    /// White space or a comment: nothing changes.
    Skip,
    /// A URL: its value, and whether it is a string (else an unquoted `url(...)`).
    Url { value: String, quoted: bool },
    /// A block or function whose contents are read in this context.
    Nested(Context),
    /// The at-keyword `@import`: a string after it is a URL.
    Import,
    /// Any other token.
    Other,
}

#[cfg(any(test, feature = "_internal"))]
fn scan<'a>(
    parser: &mut Parser<'_>,
    css: &'a str,
    context: Context,
    depth: usize,
    found: &mut dyn FnMut(CssUrl<'a>),
) {
    let mut after_import = false;
    let mut seen_argument = false;
    loop {
        let start = parser.position().byte_index();
        let string_is_url = after_import
            || context == Context::ImageSet
            || (context == Context::UrlFunction && !seen_argument);
        let seen = match parser.next_including_whitespace_and_comments() {
            Ok(token) => seen(token, string_is_url),
            Err(_) => return,
        };
        let end = parser.position().byte_index();
        if matches!(seen, Seen::Skip) {
            continue;
        }
        let mut nested = None;
        after_import = matches!(seen, Seen::Import);
        match seen {
            Seen::Url {
                value,
                quoted: false,
            } => found(CssUrl {
                range: unquoted_url_range(css, start, end),
                value: Cow::Owned(value),
                quoting: CssQuoting::Unquoted,
            }),
            Seen::Url {
                value,
                quoted: true,
            } => {
                let quote = css[start..].chars().next().unwrap_or('"');
                let close = if end > start + 1 && css[..end].ends_with(quote) {
                    end - 1
                } else {
                    end
                };
                found(CssUrl {
                    range: start + 1..close,
                    value: Cow::Owned(value),
                    quoting: CssQuoting::Quoted(quote),
                });
            }
            Seen::Nested(inner) => nested = Some(inner),
            Seen::Skip | Seen::Import | Seen::Other => {}
        }
        seen_argument = true;
        if let Some(inner) = nested {
            // A block nested too deep is read to its end here, so the next token starts after it.
            let _ = parser.parse_nested_block(|p| -> Result<(), ParseError<()>> {
                if depth < MAX_CSS_NESTING {
                    scan(p, css, inner, depth + 1, found);
                } else {
                    while p.next_including_whitespace_and_comments().is_ok() {}
                }
                Ok(())
            });
        }
    }
}

/// What [`scan`] keeps of `token`; a quoted string is a URL if `string_is_url`.
#[cfg(any(test, feature = "_internal"))]
fn seen(token: &Token<'_>, string_is_url: bool) -> Seen {
    match token {
        Token::WhiteSpace(_) | Token::Comment(_) => Seen::Skip,
        Token::UnquotedUrl(value) => Seen::Url {
            value: value.to_string(),
            quoted: false,
        },
        Token::QuotedString(value) if string_is_url => Seen::Url {
            value: value.to_string(),
            quoted: true,
        },
        Token::Function(name) => Seen::Nested(
            if name.eq_ignore_ascii_case("url") || name.eq_ignore_ascii_case("src") {
                Context::UrlFunction
            } else if name.eq_ignore_ascii_case("image-set")
                || name.eq_ignore_ascii_case("-webkit-image-set")
            {
                Context::ImageSet
            } else {
                Context::Plain
            },
        ),
        Token::ParenthesisBlock | Token::SquareBracketBlock | Token::CurlyBracketBlock => {
            Seen::Nested(Context::Plain)
        }
        Token::AtKeyword(name) if name.eq_ignore_ascii_case("import") => Seen::Import,
        _ => Seen::Other,
    }
}

/// The URL inside an unquoted `url( ... )` token spanning `start..end`.
fn unquoted_url_range(css: &str, start: usize, end: usize) -> Range<usize> {
    let token = &css[start..end];
    let open = token.bytes().position(|b| b == b'(').map_or(0, |i| i + 1);
    let close = if token.ends_with(')') {
        token.len() - 1
    } else {
        token.len()
    };
    let inner = &token[open..close.max(open)];
    // CSS white space is the HTML standard's ASCII white space.
    let lead = inner.len() - inner.trim_ascii_start().len();
    let trimmed = inner.trim_ascii();
    let from = start + open + lead;
    from..from + trimmed.len()
}

/// Writes `url` to stand where a URL quoted as `quoting` stood, escaped as needed.
pub fn escape(url: String, quoting: CssQuoting) -> String {
    // Printable ASCII but token enders, tested with no early exit so it vectorises.
    let bytes = url.as_bytes();
    let plain = match quoting {
        CssQuoting::Quoted(q) => {
            let q = u8::try_from(q).unwrap_or(b'\\');
            let plain = |b: u8| (b' '..=b'~').contains(&b) & (b != b'\\') & (b != q);
            bytes.iter().fold(true, |all, &b| all & plain(b))
        }
        CssQuoting::Unquoted => {
            let plain = |b: u8| {
                (b'!'..=b'~').contains(&b)
                    & (b.wrapping_sub(b'\'') >= 3)
                    & (b != b'"')
                    & (b != b'\\')
            };
            bytes.iter().fold(true, |all, &b| all & plain(b))
        }
    };
    if plain {
        return url;
    }
    escape_each(&url, quoting)
}

/// Where in `raw` (a URL's source, [`CssUrl::range`]) the characters
/// `chars` of its value come from, escapes read as CSS Syntax 3 (4.3.7),
/// a line continuation standing for nothing. `None` if the value is shorter.
pub fn source_of_chars(raw: &str, chars: Range<usize>) -> Option<Range<usize>> {
    let b = raw.as_bytes();
    let newline = |at: usize| match b.get(at) {
        Some(b'\r') if b.get(at + 1) == Some(&b'\n') => 2,
        Some(b'\r' | b'\n' | b'\x0c') => 1,
        _ => 0,
    };
    let (mut i, mut count, mut start) = (0, 0, None);
    loop {
        if count == chars.end && (start.is_some() || chars.is_empty()) {
            return Some(start.unwrap_or(i)..i);
        }
        let c = raw.get(i..)?.chars().next()?;
        // The range starts at its first character, a line continuation before it out.
        if count == chars.start && start.is_none() && (c != '\\' || newline(i + 1) == 0) {
            start = Some(i);
        }
        if c != '\\' {
            i += c.len_utf8();
            count += 1;
        } else if newline(i + 1) > 0 {
            i += 1 + newline(i + 1);
        } else if b.get(i + 1).is_some_and(u8::is_ascii_hexdigit) {
            let digits = b[i + 1..]
                .iter()
                .take(6)
                .take_while(|d| d.is_ascii_hexdigit());
            i += 1 + digits.count();
            i += match b.get(i) {
                Some(b' ' | b'\t') => 1,
                _ => newline(i),
            };
            count += 1;
        } else {
            // An escaped character, or a backslash at the end.
            i += 1 + raw[i + 1..].chars().next().map_or(0, char::len_utf8);
            count += 1;
        }
    }
}

/// [`escape`] a character at a time.
fn escape_each(url: &str, quoting: CssQuoting) -> String {
    let mut out = String::with_capacity(url.len());
    for c in url.chars() {
        let plain = match quoting {
            CssQuoting::Quoted(q) => c != q && c != '\\' && !c.is_control(),
            CssQuoting::Unquoted => {
                !matches!(c, '(' | ')' | '"' | '\'' | '\\') && !c.is_whitespace() && !c.is_control()
            }
        };
        if plain {
            out.push(c);
        } else if matches!(c, '(' | ')' | '"' | '\'' | '\\') {
            out.push('\\');
            out.push(c);
        } else {
            // A hex escape, with the space that ends it.
            out.push_str(&format!("\\{:x} ", c as u32));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_source_of_characters_steps_over_escapes_and_line_continuations() {
        // `\b ` is one character; a line continuation none.
        assert_eq!(source_of_chars("\\b m.png", 1..6), Some(3..8));
        assert_eq!(source_of_chars("\\b \\\nn.png", 1..6), Some(5..10));
        assert_eq!(source_of_chars("\\00000bx\\1f", 1..2), Some(7..8));
        assert_eq!(source_of_chars("\\0b\r\nx", 1..2), Some(5..6));
        assert_eq!(source_of_chars("\\\"x", 1..2), Some(2..3));
        assert_eq!(source_of_chars("ab", 1..3), None);
    }

    fn found(css: &str) -> Vec<(&str, String)> {
        urls(css)
            .into_iter()
            .map(|u| (&css[u.range], u.value.into_owned()))
            .collect()
    }

    #[test]
    fn finds_every_kind_of_url() {
        let css = r#"@import "a.css"; @import url(b.css);
            p { background: url( c.png ) ; x: URL('d.png') }
            q { background-image: image-set("e.png" 1x, url(f.png) 2x) }
            @font-face { src: url("g\"h.woff") }"#;
        let got = found(css);
        let values: Vec<&str> = got.iter().map(|(_, v)| v.as_str()).collect();
        assert_eq!(
            values,
            [
                "a.css",
                "b.css",
                "c.png",
                "d.png",
                "e.png",
                "f.png",
                "g\"h.woff"
            ]
        );
        assert_eq!(got[2].0, "c.png");
        assert_eq!(got[6].0, r#"g\"h.woff"#);
    }

    #[test]
    fn ignores_strings_that_are_not_urls() {
        assert!(found(r#"p::before { content: "x.png" } a { font-family: "url" }"#).is_empty());
        assert_eq!(found(r#"p { x: url("a" "b") }"#).len(), 1);
    }

    #[test]
    fn survives_deep_nesting_and_bad_input() {
        let deep = "(".repeat(10_000) + "url(x)";
        assert!(urls(&deep).is_empty());
        assert_eq!(
            found("p{background:url(a.png"),
            vec![("a.png", "a.png".to_owned())]
        );
        let _ = urls("url(\"unterminated");
        let _ = urls("\\");
    }

    #[test]
    fn a_style_sheet_without_url_syntax_is_only_scanned() {
        for css in [
            "p { color: red; margin: calc(1px + 2%) }",
            "a { background: rgb(1 2 3) } @media screen { b { c: d } }",
            "p { x: ur/**/l(a.png) }",
            "p { x: url (a.png) }",
            "p { content: \"urls\" } @imp0rt \"a.css\";",
            ".sm\\:flex { width: 100px\\9; content: \"\\f101\" } .a\\/b:hover{}",
        ] {
            assert!(!may_hold_url(css.as_bytes()), "{css}");
            assert!(urls_parsed(css).is_empty(), "{css}");
        }
    }

    #[test]
    fn escapes_and_case_that_spell_a_url_are_tokenized() {
        for (css, want) in [
            ("p { x: u\\72l(a.png) }", "a.png"),
            ("p { x: \\75 rl(a.png) }", "a.png"),
            ("p { x: URL(a.png) }", "a.png"),
            ("p { x: uRl( \"a.png\" ) }", "a.png"),
            ("@\\69mport 'a.css';", "a.css"),
            ("@IMPORT/**/'a.css';", "a.css"),
            ("p { x: -webkit-IMAGE-SET('a.png' 1x) }", "a.png"),
            ("p { x: image-\\73 et('a.png' 1x) }", "a.png"),
            ("@font-face { src: SRC('a.woff') }", "a.woff"),
            ("p { x: u\\72\r\nl(a.png) }", "a.png"),
            ("@i\\6d port 'a.css';", "a.css"),
            ("p { x: \\000075\\000072L(a.png) }", "a.png"),
        ] {
            assert!(may_hold_url(css.as_bytes()), "{css}");
            let values: Vec<String> = urls(css)
                .into_iter()
                .map(|u| u.value.into_owned())
                .collect();
            assert_eq!(values, [want], "{css}");
        }
    }

    /// Pieces of CSS that make or break a URL's syntax when joined.
    const PIECES: &[&str] = &[
        "\\72\r\nl(",
        "\\72\tl(",
        "\\(",
        "\\9",
        "\\:",
        ".sm\\:flex",
        "\\61 ",
        "\\ ",
        "\\\t",
        "\\\u{e9}",
        "\\\r\n",
        "\\\x0c",
        "\\0000075",
        "content:\"\\f101\"",
        "url(",
        "URL(",
        "uRl(",
        "u\\72l(",
        "\\75 rl(",
        "\\55RL(",
        "src(",
        "SRC(",
        "image-set(",
        "-webkit-image-set(",
        "IMAGE-SET(",
        "image-\\73 et(",
        "@import",
        "@IMPORT",
        "@\\69mport",
        "@import/**/",
        "/*",
        "*/",
        "/* url(x) */",
        "\"",
        "'",
        "\"a.png\"",
        "'b.css'",
        "(",
        ")",
        "{",
        "}",
        "[",
        "]",
        "x.png",
        " ",
        "\n",
        ";",
        ":",
        ",",
        "\\",
        "\\\n",
        "ur",
        "l(",
        "u",
        "r",
        "l",
        "ima",
        "ge-set(",
        "@",
        "im",
        "port",
        "rgb(",
        "var(--x)",
        "calc(1px + 2%)",
        "color:red",
        "a{b:c}",
        "url",
        "url (",
        "ur/**/l(",
        "@media screen",
        "\u{e9}",
        "\0",
        "\r\n",
        "-",
        "set(",
        "ge-",
        // Tokens whose ends decide where a name starts.
        "5",
        "1.5e+3",
        ".5",
        "+",
        "+.5",
        "-5",
        "1e",
        "e-",
        "%",
        "#",
        "#-",
        "<!--",
        "-->",
        "<!-",
        "a b",
        "url(a b)",
        "url(a\\)",
        "url(a\\\\)",
        "url(a\\\n)",
        "url(\0)",
        "url(a\x01)",
        "url( a.png )",
        "url(\\61 )",
        "\x0c",
        "\r",
        "\t",
        "*/",
        "\"\\\n\"",
        "'\n",
        "\"a\\\"",
        "\"\0\"",
        "\\0",
        "\\110000 ",
        "\\d800 ",
        "\u{1F600}",
        "\\\u{1F600}",
        "url(\u{e9})",
        "--",
        "-\\\n",
        "@-",
        "@\\\n",
        "/***/",
        "/* ** */",
        "**/",
        "***",
        "|",
        "url(aaaaaaaaaaaaaaaaaaaa\\) b)",
        "'aaaaaaaaaaaaaaaaaaaa\\'",
    ];

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(4000))]
        #[test]
        fn the_scan_finds_what_the_tokenizer_finds(
            pieces in proptest::collection::vec(proptest::sample::select(PIECES), 0..20)
        ) {
            let css = pieces.concat();
            let parsed = urls_parsed(&css);
            if !may_hold_url(css.as_bytes()) {
                proptest::prop_assert!(parsed.is_empty(), "{:?}", parsed);
            }
            proptest::prop_assert_eq!(urls(&css), parsed);
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(2000))]
        /// Text of the bytes that make CSS tokens: the scanner finds what the tokenizer finds.
        #[test]
        fn the_scanner_reads_any_text_as_the_tokenizer_does(
            css in "(url\\(|image-set\\(|@import|[ulrURL()'\"\\\\/*@ \n\r\t{}\\[\\]#0-9e.+%<!>;,a-f\u{0}\u{1}\u{e9}-]){0,40}"
        ) {
            let mut found = Vec::new();
            scan::each_url(&css, &mut |u| found.push(u));
            proptest::prop_assert_eq!(found, urls_parsed(&css));
        }
    }

    /// Whether skipping finds in `css` what reading every token and cssparser find.
    fn skipping_agrees(css: &str) -> Result<(), proptest::test_runner::TestCaseError> {
        let (mut skipped, mut every) = (Vec::new(), Vec::new());
        scan::each_url(css, &mut |u| skipped.push(u));
        scan::each_url_token_by_token(css, &mut |u| every.push(u));
        proptest::prop_assert_eq!(&skipped, &every);
        proptest::prop_assert_eq!(skipped, urls_parsed(css));
        Ok(())
    }

    /// What comes before a `(`: token ends deciding whether a name before it starts a function.
    const BEFORE_OPEN: &[&str] = &[
        "",
        " ",
        "#",
        "##",
        ".",
        "+",
        "-",
        "--",
        "1",
        "10",
        "1.",
        "1.5",
        ".5",
        "+5",
        "-5",
        "1e",
        "1e+",
        "1e-",
        "1e+3",
        "5%",
        "%",
        "<!--",
        "<!-",
        "<",
        "-->",
        "->",
        "@",
        "@x",
        "@-",
        "@1",
        "@import",
        "@\\69mport ",
        "\\",
        "\\61 ",
        "\\\n",
        "\\(",
        "/**/",
        "/",
        "*",
        "'s'",
        "\"s\"",
        "'",
        "\n",
        "a",
        "_",
        "\u{e9}",
        "\0",
        "!",
        ":",
        ";",
        "{",
        "}",
        "[",
        "]",
        ")",
        "a\\62 ",
        "x-",
        "u",
        "ur",
        "#u",
        "\\75 ",
        "\\75 r",
        "-\\",
        "#-",
        "e",
        "E-",
        "\x01",
    ];

    /// Names of functions and blocks, the URL ones among them.
    const OPENS: &[&str] = &[
        "url(",
        "URL(",
        "uRl(",
        "src(",
        "image-set(",
        "-webkit-image-set(",
        "IMAGE-SET(",
        "SRC(",
        "Url(",
        "-WEBKIT-Image-Set(",
        "x(",
        "curl(",
        "xsrc(",
        "rimage-set(",
        "lt(",
        "(",
        "rl(",
        "l(",
        "set(",
        "-url(",
        "--url(",
        "rgb(",
        "var(",
        "url",
        "",
    ];

    /// What comes after a `(`: URLs, strings, ends and token starts a skip must not enter.
    const AFTER_OPEN: &[&str] = &[
        "a.png)",
        "'a.png')",
        " \"b.png\" )",
        " c d)",
        ")",
        "",
        "'e' 'f')",
        " 'g' 1x, url(h) 2x)",
        "i\\)",
        "j\\ k)",
        "{",
        "}",
        "]",
        "\"",
        "/*",
        "*/",
        "\\",
        " ",
        "\n",
        "k",
        "x 'y')",
    ];

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(4000))]
        /// Names, numbers, hashes, at-keywords, escapes, comments and strings before `(`
        /// and `url(`: skipping finds what reading every token and cssparser find.
        #[test]
        fn skipping_finds_what_reading_every_token_finds(
            parts in proptest::collection::vec(
                (
                    proptest::sample::select(BEFORE_OPEN),
                    proptest::sample::select(OPENS),
                    proptest::sample::select(AFTER_OPEN),
                ),
                0..12,
            )
        ) {
            let css: String = parts.iter().map(|(a, b, c)| format!("{a}{b}{c}")).collect();
            skipping_agrees(&css)?;
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(2000))]
        /// Long text of name bytes and the bytes around them: the same.
        #[test]
        fn skipping_reads_any_text_as_every_token_is_read(
            css in "(url\\(|src\\(|[ulrsc\\-_#%!<>.+@eE0-9 ()'\"\\\\/*{}\\[\\]|\u{0}\u{e9}]){0,120}"
        ) {
            skipping_agrees(&css)?;
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(1000))]
        /// Blocks nested about as deep as URLs are followed, around URLs: skipping reads them right.
        #[test]
        fn skipping_reads_deep_blocks_as_every_token_is_read(
            opens in proptest::collection::vec(proptest::sample::select(&["{", "(", "[", "x("][..]), 58..70),
            parts in proptest::collection::vec(
                proptest::sample::select(&["}", ")", "]", "|", " ", "a{", "url(a)", "'b'", "src('c')", "image-set('d')", "@import 'e';", "\\7b ", "/**/"][..]),
                0..30,
            )
        ) {
            let css = opens.concat() + &parts.concat();
            skipping_agrees(&css)?;
        }
    }

    /// A style sheet as saved pages hold them: runs longer than a lane of the
    /// skip, and every kind of token that holds or starts a URL.
    const SHEET: &str = "@import url(a.css) screen;@import 'b.css';\n\
        .nav-item:hover>.dropdown-menu{display:block;margin:0 auto 12px -3.5em}\n\
        @media (min-width:768px) and (max-width:1024px){.col-md-6[data-x=y]{width:50%}}\n\
        .hero{background:#fff url( \"img/hero.jpg\" ) no-repeat 0 0/cover;\
        background-image:image-set('a.avif' type('image/avif'),url(b.png) 2x)}\n\
        @font-face{font-family:\"X\";src:url(f.woff2) format('woff2'),src('f.ttf')}\n\
        /* a comment (with [brackets] and {braces}) */.a\\:b{color:rgb(1 2 3/50%)}\n\
        li::marker{content:'\\201c';cursor:url(c.cur),auto}|x{mask:-webkit-image-set(\"m.png\" 1x)}\n\
        .c[x]{y:1}.d\\:e(f){z:0}\\75 rl(e.png) x(y)u\\72 l(g.png) {a:b}\\69 mage-set('h.png')";

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(2000))]
        /// [`SHEET`] with brackets and `|` put in and taken out at random:
        /// skipping finds what reading every token and cssparser find.
        #[test]
        fn skipping_reads_a_style_sheet_with_brackets_moved(
            edits in proptest::collection::vec((0..SHEET.len() + 1, 0..8usize), 0..40)
        ) {
            const BRACKETS: &[u8] = b"{}[]()|";
            let mut css = SHEET.as_bytes().to_vec();
            for (at, edit) in edits {
                let at = at.min(css.len());
                match BRACKETS.get(edit) {
                    Some(&b) => css.insert(at, b),
                    None => {
                        if let Some(i) = css[at..].iter().position(|b| b"{}[]()".contains(b)) {
                            css.remove(at + i);
                        }
                    }
                }
            }
            let css = String::from_utf8(css).expect("the sheet and its edits are ASCII");
            skipping_agrees(&css)?;
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(2000))]
        /// Strings long enough for the vector search, escapes, newlines and quotes anywhere.
        #[test]
        fn long_strings_read_as_the_tokenizer_reads_them(
            before in proptest::sample::select(&["url(", "@import ", "a:", "image-set("][..]),
            quote in proptest::sample::select(&["\"", "'"][..]),
            len in 0usize..200,
            stops in proptest::collection::vec((0usize..200, proptest::sample::select(&["\"", "'", "\\", "\\\"", "\\\n", "\n", "\r", "\r\n", "\x0c", "\0", ")"][..])), 0..3),
            after in proptest::sample::select(&["", ")", "\")", "')", " x)", ";url(y)"][..]),
        ) {
            let mut body: Vec<String> = vec!["d".to_owned(); len];
            for (at, stop) in stops {
                if at < len {
                    body[at] = stop.to_owned();
                }
            }
            let css = format!("{before}{quote}{}{quote}{after}", body.concat());
            skipping_agrees(&css)?;
        }
    }

    /// The bytes that stop the searches of `scan` or sit next to them, and bytes they pass.
    const STOPS: &[&str] = &[
        " ", "\t", "\n", "\r", "\x0c", "\x0b", "\0", "\x01", "\x1f", "!", "\"", "'", "(", ")", "*",
        "\\", "\\)", "\\\\", "\\\n", "\\61 ", "\x7f", "\u{e9}", "[", "]", "{", "}", "|", "z", "/",
        "/*", "**/", "@", "<", ">", "&", "?", "#", "%",
    ];

    /// Each stop at each place of a long URL, string, comment and run of names.
    #[test]
    fn the_searches_stop_where_every_token_is_read() {
        for stop in STOPS {
            for at in 0..40 {
                let (a, b) = ("a".repeat(at), "b".repeat(40 - at));
                for css in [
                    format!("p{{x:url({a}{stop}{b}) url(c)}}"),
                    format!("p{{x:url( {a}{stop}{b} )}} url(c)"),
                    format!("@import '{a}{stop}{b}'; url(c)"),
                    format!("@import \"{a}{stop}{b}\"; url(c)"),
                    format!("p{{x:url({a}{stop}{b}"),
                    format!("@import '{a}{stop}{b}"),
                    format!("/*{a}{stop}{b}*/url(c) /*{a}*{stop}"),
                    format!("{a}{stop}{b} x{a}(url({a}) {a}{stop}url(d)"),
                ] {
                    if let Err(why) = skipping_agrees(&css) {
                        panic!("{css:?}: {why}");
                    }
                }
            }
        }
    }

    #[test]
    fn a_name_before_a_parenthesis_is_a_function_only_where_a_token_starts() {
        for (css, want) in [
            ("10url(a)", 0),
            ("#url(a)", 0),
            ("-url(a)", 0),
            ("--url(a)", 0),
            ("1.5url(a)", 0),
            ("1e+3url(a)", 0),
            ("@url(a)", 0),
            ("5%url(a)", 1),
            ("1e+url(a)", 1),
            ("<!--url(a)", 1),
            ("-->url(a)", 1),
            ("1.url(a)", 1),
            ("+url(a)", 1),
            ("a\\62 url(a)", 0),
            ("#\\75 url(a)", 0),
            ("x:\\75 rl(a)", 1),
        ] {
            let mut found = Vec::new();
            scan::each_url(css, &mut |u| found.push(u));
            assert_eq!(found.len(), want, "{css}");
            assert_eq!(found, urls_parsed(css), "{css}");
        }
    }

    #[test]
    fn blocks_nested_too_deep_are_read_to_their_end_without_urls() {
        for depth in [60, 63, 64, 65, 70] {
            for open in ["(", "[", "{", "f(", "image-set("] {
                let close = if open == "[" {
                    "]"
                } else if open == "{" {
                    "}"
                } else {
                    ")"
                };
                let css = format!(
                    "{}url(a.png) 'b' {} url(c.png) @import 'd'",
                    open.repeat(depth),
                    close.repeat(depth)
                );
                let mut found = Vec::new();
                scan::each_url(&css, &mut |u| found.push(u));
                assert_eq!(found, urls_parsed(&css), "{css}");
            }
        }
    }

    #[test]
    fn escapes_for_the_quoting() {
        assert_eq!(
            escape("a b'(".into(), CssQuoting::Unquoted),
            "a\\20 b\\'\\("
        );
        assert_eq!(escape("a\"b'".into(), CssQuoting::Quoted('"')), "a\\\"b'");
        assert_eq!(escape("a\nb".into(), CssQuoting::Quoted('\'')), "a\\a b");
    }

    #[test]
    fn a_url_left_whole_is_one_no_character_of_which_is_escaped() {
        let quotings = [
            CssQuoting::Unquoted,
            CssQuoting::Quoted('"'),
            CssQuoting::Quoted('\''),
        ];
        let odd = [
            '\u{80}', '\u{85}', '\u{9f}', '\u{a0}', '\u{2028}', '\u{3000}', 'é',
        ];
        for c in (0..0x80u8).map(char::from).chain(odd) {
            for quoting in quotings {
                let url = format!("http://h/a{c}b");
                assert_eq!(
                    escape(url.clone(), quoting),
                    escape_each(&url, quoting),
                    "{c:?} {quoting:?}"
                );
            }
        }
        let plain = "http://h/a.png?x=1&y=%20#z".to_owned();
        let at = plain.as_ptr();
        let kept = escape(plain, CssQuoting::Unquoted);
        assert_eq!(kept.as_ptr(), at);
    }
}
