//! `--list --format urls`: the rows of each document, message or record
//! gathered as one unit, its URLs each once, a unit at a time (`--format
//! wat` is the library's `relink::wat`, a record a unit).

use std::collections::HashSet;
use std::io::{self, Write};

use relink::{LinkRow, UnitKey};

use super::hints::has_scheme;

/// The URL a checker is given for a row: its resolved URL when that is
/// absolute, with the white space a URL parser drops (tab, CR, LF)
/// dropped and spaces written `%20`, so that it is one line and one word.
/// `data:` and `javascript:` URLs name nothing to check: none. Nor does a
/// message part's own `Content-Location`: it is the part's address (the
/// base of its links, which `explain` shows), not a link of it.
pub(crate) fn checkable_url(row: &LinkRow) -> Option<String> {
    let place = &row.link.place;
    if place.element().is_empty() && place.attribute().eq_ignore_ascii_case("Content-Location") {
        return None;
    }
    let url = row.link.resolved.as_str();
    if !has_scheme(url) {
        return None;
    }
    let scheme = url.split_once(':').map_or("", |(s, _)| s);
    if scheme.eq_ignore_ascii_case("data") || scheme.eq_ignore_ascii_case("javascript") {
        return None;
    }
    let mut out = String::with_capacity(url.len());
    for c in url.chars() {
        match c {
            '\t' | '\r' | '\n' => {}
            ' ' => out.push_str("%20"),
            c => out.push(c),
        }
    }
    Some(out)
}

/// How each URL is written: alone on its line, or (`--format lychee`)
/// in the syntax lychee's parser for the input's file extension reads
/// from a preprocessor's output (lychee picks the parser by the
/// extension of the file it gave, whatever the preprocessor prints).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Syntax {
    /// The URL alone, for any pipeline.
    Bare,
    /// The URL alone, for lychee's plain text parser (linkify), which
    /// leaves a last `.`, `,`, `:`, `;`, `!`, `?`, `'` or `*` off a URL: an
    /// empty fragment (`#`, never sent) is added after one.
    Text,
    /// `<a href="URL">`, `&` written `&amp;`.
    Html,
    /// `[](<URL>)`: an inline link, whose destination lychee takes as
    /// written (an autolink it would trim of a last `.` or `)`).
    Markdown,
    /// `url("URL")`.
    Css,
    /// `<link href="URL"/>`, the attribute taken as written.
    Xml,
}

impl Syntax {
    /// The syntax lychee reads for input `name`, by its extension as
    /// lychee's file types name them.
    pub(crate) fn lychee(name: &str) -> Syntax {
        let extension = std::path::Path::new(name)
            .extension()
            .and_then(|e| e.to_str())
            .unwrap_or_default()
            .to_ascii_lowercase();
        match extension.as_str() {
            "html" | "htm" => Syntax::Html,
            "md" | "markdown" | "mdx" | "qmd" | "rmd" | "mkd" | "mkdn" | "mdwn" | "mdown"
            | "mkdown" => Syntax::Markdown,
            "css" => Syntax::Css,
            "xml" => Syntax::Xml,
            _ => Syntax::Text,
        }
    }

    /// Writes `url` (one word, from [`checkable_url`]) on a line. For
    /// lychee, `"`, `<` and `>` are written `%22`, `%3C` and `%3E`, as a
    /// URL parser writes them in every part of a URL, so none ends the
    /// value early.
    fn write(self, out: &mut impl Write, url: &str) -> io::Result<()> {
        if self == Syntax::Bare {
            return writeln!(out, "{url}");
        }
        let mut value = String::with_capacity(url.len() + 8);
        for c in url.chars() {
            match (self, c) {
                (_, '"') => value.push_str("%22"),
                (_, '<') => value.push_str("%3C"),
                (_, '>') => value.push_str("%3E"),
                (Syntax::Html, '&') => value.push_str("&amp;"),
                (Syntax::Markdown, '&' | '\\') => {
                    value.push('\\');
                    value.push(c);
                }
                (_, c) => value.push(c),
            }
        }
        match self {
            Syntax::Text
                if !value.contains('#')
                    && value.ends_with(['.', ',', ':', ';', '!', '?', '\'', '*']) =>
            {
                writeln!(out, "{value}#")
            }
            Syntax::Html => writeln!(out, "<a href=\"{value}\">"),
            Syntax::Markdown => writeln!(out, "[](<{value}>)"),
            Syntax::Css => writeln!(out, "url(\"{value}\")"),
            Syntax::Xml => writeln!(out, "<link href=\"{value}\"/>"),
            Syntax::Bare | Syntax::Text => writeln!(out, "{value}"),
        }
    }
}

/// The URLs of the unit being listed, each printed once.
#[derive(Default)]
pub(crate) struct UrlUnit {
    key: Option<UnitKey>,
    seen: HashSet<String>,
}

impl UrlUnit {
    /// Writes each URL of `rows` not yet written for its unit.
    pub(crate) fn rows(
        &mut self,
        out: &mut impl Write,
        rows: &[LinkRow],
        syntax: Syntax,
    ) -> io::Result<()> {
        for row in rows {
            let key = row.unit();
            if self.key.as_ref() != Some(&key) {
                self.seen.clear();
                self.key = Some(key);
            }
            if let Some(url) = checkable_url(row).filter(|url| !self.seen.contains(url)) {
                syntax.write(out, &url)?;
                self.seen.insert(url);
            }
        }
        Ok(())
    }
}
