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
    if place.element.is_empty() && place.attribute.eq_ignore_ascii_case("Content-Location") {
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

/// The URLs of the unit being listed, each printed once.
#[derive(Default)]
pub(crate) struct UrlUnit {
    key: Option<UnitKey>,
    seen: HashSet<String>,
}

impl UrlUnit {
    /// Writes each URL of `rows` not yet written for its unit.
    pub(crate) fn rows(&mut self, out: &mut impl Write, rows: &[LinkRow]) -> io::Result<()> {
        for row in rows {
            let key = row.unit();
            if self.key.as_ref() != Some(&key) {
                self.seen.clear();
                self.key = Some(key);
            }
            if let Some(url) = checkable_url(row).filter(|url| !self.seen.contains(url)) {
                writeln!(out, "{url}")?;
                self.seen.insert(url);
            }
        }
        Ok(())
    }
}
