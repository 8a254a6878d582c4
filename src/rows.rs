//! Link rows written out, for the command line and the Python package
//! alike: the one schema of a row (its keys, in the order every format
//! writes them, and their values), and its writers: text, TSV, JSON
//! Lines, and the URLs of each document, message or record once each,
//! bare or as lychee reads them.

use std::borrow::Cow;
use std::collections::HashSet;
use std::io::{self, Write};
use std::path::Path;

use crate::links::{Link, LinkRow, UnitKey};
use crate::url::BaseUrl;

/// Where a link's base came from, as every report names it (a base the
/// user gave by the option that gave it); `none` without one.
pub(crate) fn base_from(link: &Link) -> String {
    link.base
        .as_ref()
        .map_or_else(|| "none".to_owned(), |base| base.source.option_name())
}

/// The value of a field of a row (see [`LinkRow::fields`]).
///
/// See the example of [`RowWriter`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RowValue<'a> {
    /// Nothing: the field does not apply (JSON's `null`, an empty TSV
    /// column).
    Null,
    /// A line, a column, a message's or a record's number.
    Number(usize),
    /// Whether a rewrite changes the link.
    Bool(bool),
    /// Text.
    Text(Cow<'a, str>),
}

impl LinkRow {
    /// The keys of a row, in the order every format writes them (sorted,
    /// as `serde_json`'s maps write them): the columns of TSV, the keys of
    /// JSON Lines and of the Python package's dicts. [`LinkRow::fields`]
    /// gives the values in this order.
    ///
    /// See the example of [`RowWriter`].
    pub const KEYS: [&'static str; 15] = [
        "attribute",
        "base",
        "base_from",
        "changed",
        "column",
        "element",
        "file",
        "line",
        "message",
        "original",
        "part",
        "record",
        "record_id",
        "resolved",
        "target_uri",
    ];

    /// Its fields, each of [`LinkRow::KEYS`] with its value: `file` is the
    /// input's name as given, `resolved` null in a document with no base,
    /// `base_from` where the base came from as every report names it.
    ///
    /// See the example of [`RowWriter`].
    pub fn fields<'a>(&'a self, file: Option<&'a str>) -> [(&'static str, RowValue<'a>); 15] {
        let link = &self.link;
        let record = self.record.as_deref();
        let text = |value: Option<&'a str>| value.map_or(RowValue::Null, |v| v.into());
        let number = |value: Option<usize>| value.map_or(RowValue::Null, RowValue::Number);
        let mut values = [
            link.place.attribute.as_str().into(),
            text(link.base.as_ref().map(|b| b.url.as_str())),
            RowValue::Text(base_from(link).into()),
            RowValue::Bool(link.changed),
            RowValue::Number(link.column),
            link.place.element.as_str().into(),
            text(file),
            RowValue::Number(link.line),
            number(self.message),
            link.original.as_str().into(),
            text(self.part.as_deref()),
            number(record.map(|r| r.number)),
            text(record.map(|r| r.record_id.as_str())),
            text(link.base.as_ref().map(|_| link.resolved.as_str())),
            text(record.map(|r| r.target_uri.as_str())),
        ]
        .into_iter();
        Self::KEYS.map(|key| (key, values.next().unwrap_or(RowValue::Null)))
    }
}

impl<'a> From<&'a str> for RowValue<'a> {
    fn from(text: &'a str) -> Self {
        RowValue::Text(Cow::Borrowed(text))
    }
}

/// The writer of an input's link rows in one format: text, TSV (its
/// columns the keys of [`LinkRow::fields`]), JSON Lines (an object a row,
/// those keys in that order), or the URLs to check (each once per
/// document, message or record), bare or as lychee reads them. The
/// command line's `--list` writes through it.
///
/// ```
/// use relink::{RowValue, RowWriter};
/// let out = relink::Rewriter::new()
///     .retrieved_from("http://a/b/")
///     .rewrite(b"<a href=c>c</a><img src=c>")?;
/// let mut json = Vec::new();
/// RowWriter::json("page.html").write(&mut json, out.rows())?;
/// let first = std::str::from_utf8(&json)?.lines().next().unwrap();
/// assert!(first.starts_with(r#"{"attribute":"href","base":"http://a/b/","base_from":"--retrieved-from","#));
/// let mut tsv = RowWriter::tsv("page.html").header().unwrap().into_bytes();
/// RowWriter::tsv("page.html").write(&mut tsv, out.rows())?;
/// assert_eq!(tsv.split(|&b| b == b'\n').nth(2).unwrap()[..4], *b"src\t");
/// let mut urls = Vec::new();
/// RowWriter::urls().write(&mut urls, out.rows())?;
/// assert_eq!(urls, b"http://a/b/c\n");
/// assert_eq!(relink::LinkRow::KEYS[..3], ["attribute", "base", "base_from"]);
/// let fields = out.rows()[0].fields(None);
/// assert_eq!(fields[6], ("file", RowValue::Null));
/// assert_eq!(fields[13], ("resolved", RowValue::Text("http://a/b/c".into())));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub struct RowWriter {
    format: Format,
    /// The input's name, as given.
    file: String,
    /// The unit being listed, and the URLs of it written.
    unit: Option<UnitKey>,
    seen: HashSet<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Format {
    Text,
    Tsv,
    Json,
    Urls(Syntax),
}

impl RowWriter {
    fn new(format: Format, file: &str) -> RowWriter {
        RowWriter {
            format,
            file: file.to_owned(),
            unit: None,
            seen: HashSet::new(),
        }
    }

    /// Rows of the input named `file` as lines of text:
    /// `FILE:LINE:COLUMN: <a href> ORIGINAL -> RESOLVED (base BASE from
    /// BASE_FROM)`, or `(no base)`.
    pub fn text(file: &str) -> RowWriter {
        RowWriter::new(Format::Text, file)
    }

    /// Rows of the input named `file` as TSV lines (backslash, tab, CR
    /// and LF escaped; empty where JSON says null), under [`header`].
    ///
    /// [`header`]: RowWriter::header
    pub fn tsv(file: &str) -> RowWriter {
        RowWriter::new(Format::Tsv, file)
    }

    /// Rows of the input named `file` as JSON Lines.
    pub fn json(file: &str) -> RowWriter {
        RowWriter::new(Format::Json, file)
    }

    /// The URLs to check, each alone on its line, once per document,
    /// message or record.
    pub fn urls() -> RowWriter {
        RowWriter::new(Format::Urls(Syntax::Bare), "")
    }

    /// The URLs to check, once per document, message or record, in the
    /// syntax lychee's parser for the extension of `file` reads from a
    /// preprocessor's output.
    pub fn lychee(file: &str) -> RowWriter {
        RowWriter::new(Format::Urls(Syntax::lychee(file)), file)
    }

    /// The line that comes before the rows (TSV's, the keys), if any.
    pub fn header(&self) -> Option<String> {
        (self.format == Format::Tsv).then(|| format!("{}\n", LinkRow::KEYS.join("\t")))
    }

    /// Writes `rows`, the next of the input.
    pub fn write(&mut self, out: &mut (impl Write + ?Sized), rows: &[LinkRow]) -> io::Result<()> {
        for row in rows {
            match self.format {
                Format::Text => text_row(out, &self.file, row)?,
                Format::Tsv => {
                    let mut sep = "";
                    for (_, value) in row.fields(Some(&self.file)) {
                        out.write_all(sep.as_bytes())?;
                        write_tsv(out, &value)?;
                        sep = "\t";
                    }
                    out.write_all(b"\n")?;
                }
                Format::Json => json_row(out, row.fields(Some(&self.file)))?,
                Format::Urls(syntax) => self.url(out, row, syntax)?,
            }
        }
        Ok(())
    }

    /// Writes the URL to check of `row` if it has one not yet written for
    /// its unit.
    fn url(
        &mut self,
        out: &mut (impl Write + ?Sized),
        row: &LinkRow,
        syntax: Syntax,
    ) -> io::Result<()> {
        let key = row.unit();
        if self.unit.as_ref() != Some(&key) {
            self.seen.clear();
            self.unit = Some(key);
        }
        match checkable_url(row) {
            Some(url) if !self.seen.contains(&url) => {
                syntax.write(out, &url)?;
                self.seen.insert(url);
                Ok(())
            }
            _ => Ok(()),
        }
    }
}

/// One row as a line of text.
fn text_row(out: &mut (impl Write + ?Sized), file: &str, row: &LinkRow) -> io::Result<()> {
    let link = &row.link;
    let (location, place, original) = (row.location(), &link.place, &link.original);
    match &link.base {
        // A link of a document with no base has no resolution.
        None => writeln!(out, "{file}:{location}: {place} {original} (no base)"),
        Some(base) => writeln!(
            out,
            "{file}:{location}: {place} {original} -> {} (base {} from {})",
            link.resolved,
            base.url.as_str(),
            base_from(link)
        ),
    }
}

/// One field's value as a TSV column.
fn write_tsv(out: &mut (impl Write + ?Sized), value: &RowValue<'_>) -> io::Result<()> {
    match value {
        RowValue::Null => Ok(()),
        RowValue::Number(n) => write!(out, "{n}"),
        RowValue::Bool(b) => write!(out, "{b}"),
        RowValue::Text(text) => {
            let mut rest = text.as_bytes();
            while let Some(at) = rest.iter().position(|b| b"\\\t\n\r".contains(b)) {
                out.write_all(&rest[..at])?;
                out.write_all(match rest[at] {
                    b'\\' => b"\\\\",
                    b'\t' => b"\\t",
                    b'\n' => b"\\n",
                    _ => b"\\r",
                })?;
                rest = &rest[at + 1..];
            }
            out.write_all(rest)
        }
    }
}

/// One row as a JSON object on one line, written straight out: a listing
/// of millions of links builds no tree per row.
fn json_row(
    out: &mut (impl Write + ?Sized),
    fields: [(&'static str, RowValue<'_>); 15],
) -> io::Result<()> {
    let mut sep = "{";
    for (key, value) in fields {
        write!(out, "{sep}\"{key}\":")?;
        sep = ",";
        match value {
            RowValue::Null => out.write_all(b"null")?,
            RowValue::Number(n) => write!(out, "{n}")?,
            RowValue::Bool(b) => write!(out, "{b}")?,
            RowValue::Text(text) => serde_json::to_writer(&mut *out, &*text)?,
        }
    }
    out.write_all(b"}\n")
}

/// The URL a checker is given for a row: its resolved URL when that is
/// absolute, with the white space a URL parser drops (tab, CR, LF)
/// dropped and spaces written `%20`, so that it is one line and one word.
/// `data:` and `javascript:` URLs name nothing to check: none. Nor does a
/// message part's own `Content-Location`: it is the part's address (the
/// base of its links, which `explain` shows), not a link of it.
fn checkable_url(row: &LinkRow) -> Option<String> {
    let place = &row.link.place;
    if place.element.is_empty() && place.attribute.eq_ignore_ascii_case("Content-Location") {
        return None;
    }
    let url = row.link.resolved.as_str();
    if !BaseUrl::has_scheme(url) {
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

/// How each URL is written: alone on its line, or in the syntax lychee's
/// parser for the input's file extension reads from a preprocessor's
/// output (lychee picks the parser by the extension of the file it gave,
/// whatever the preprocessor prints).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Syntax {
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
    fn lychee(name: &str) -> Syntax {
        let extension = Path::new(name)
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
    fn write(self, out: &mut (impl Write + ?Sized), url: &str) -> io::Result<()> {
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
