//! The one schema of a link row (its keys, in the order every format
//! writes them, and their values) and its writers, for the command line
//! and the Python package alike.

use std::borrow::Cow;
use std::collections::HashSet;
use std::io::{self, Write};
use std::path::Path;

use crate::base::BaseSource;
use crate::links::{Link, LinkRow, UnitKey};
use crate::url::BaseUrl;

/// Where a link's base came from, as every report names it (a base the
/// user gave by the option that gave it); `none` without one.
pub(crate) fn base_from(link: &Link) -> String {
    source_name(link).into_owned()
}

/// [`base_from`], borrowed for the sources most links have: a row is
/// written without allocating.
fn source_name(link: &Link) -> Cow<'static, str> {
    match link.base.as_ref().map(|base| &base.source) {
        None => Cow::Borrowed("none"),
        Some(BaseSource::RetrievedFrom) => Cow::Borrowed("--retrieved-from"),
        Some(BaseSource::Forced) => Cow::Borrowed("--base"),
        Some(BaseSource::ResourceBase) => Cow::Borrowed("--resource-base"),
        Some(source) => Cow::Owned(source.option_name()),
    }
}

/// The value of a field of a row ([`LinkRow::fields`]). See the example
/// of [`RowWriter`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RowValue<'a> {
    /// Nothing: JSON's `null`, an empty TSV column.
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
    /// gives the values in this order. See the example of [`RowWriter`].
    #[rustfmt::skip]
    pub const KEYS: [&'static str; 15] = [
        "attribute", "base", "base_from", "changed", "column", "element", "file", "line",
        "message", "original", "part", "record", "record_id", "resolved", "target_uri",
    ];

    /// Its fields, each of [`LinkRow::KEYS`] with its value: `file` is the
    /// input's name as given, `resolved` null in a document with no base,
    /// `base_from` where the base came from as every report names it. See
    /// the example of [`RowWriter`].
    pub fn fields<'a>(&'a self, file: Option<&'a str>) -> [(&'static str, RowValue<'a>); 15] {
        let link = &self.link;
        let record = self.record.as_deref();
        let text =
            |value: Option<&'a str>| value.map_or(RowValue::Null, |v| RowValue::Text(v.into()));
        let number = |value: Option<usize>| value.map_or(RowValue::Null, RowValue::Number);
        // Made in place, each value beside its key (not zipped with the keys
        // after): a row's fields are read for every row a format writes.
        let k = &Self::KEYS;
        [
            (k[0], text(Some(link.place.attribute()))),
            (k[1], text(link.base.as_ref().map(|b| b.url.as_str()))),
            (k[2], RowValue::Text(source_name(link))),
            (k[3], RowValue::Bool(link.changed)),
            (k[4], RowValue::Number(link.column)),
            (k[5], text(Some(link.place.element()))),
            (k[6], text(file)),
            (k[7], RowValue::Number(link.line)),
            (k[8], number(self.message)),
            (k[9], text(Some(&link.original))),
            (k[10], text(self.part.as_deref())),
            (k[11], number(record.map(|r| r.number))),
            (k[12], text(record.map(|r| r.record_id.as_str()))),
            (
                k[13],
                text(link.base.as_ref().map(|_| link.resolved.as_str())),
            ),
            (k[14], text(record.map(|r| r.target_uri.as_str()))),
        ]
    }
}

impl LinkRow {
    /// The values of [`LinkRow::fields`], without their keys, handed to
    /// `each` one at a time in the order of [`LinkRow::KEYS`]: for a
    /// reader of many rows that makes its own record of each (the Node
    /// package's columns), with no array a row to make, read and drop.
    ///
    /// ```
    /// let out = relink::Rewriter::new().retrieved_from("http://a/").rewrite(b"<a href=b>")?;
    /// let mut values = Vec::new();
    /// out.rows()[0].each_value(Some("p.html"), |value| values.push(value));
    /// let fields = out.rows()[0].fields(Some("p.html"));
    /// assert!(values.iter().eq(fields.iter().map(|(_, value)| value)));
    /// # Ok::<(), relink::Error>(())
    /// ```
    pub fn each_value<'a>(&'a self, file: Option<&'a str>, mut each: impl FnMut(RowValue<'a>)) {
        // The values listed here and in `fields` both, so that neither pays
        // for the other (`fields` made through this costs a JSON listing
        // 1.2% more); a test of every fixture's rows holds them equal.
        let link = &self.link;
        let record = self.record.as_deref();
        let text =
            |value: Option<&'a str>| value.map_or(RowValue::Null, |v| RowValue::Text(v.into()));
        let number = |value: Option<usize>| value.map_or(RowValue::Null, RowValue::Number);
        each(text(Some(link.place.attribute())));
        each(text(link.base.as_ref().map(|b| b.url.as_str())));
        each(RowValue::Text(source_name(link)));
        each(RowValue::Bool(link.changed));
        each(RowValue::Number(link.column));
        each(text(Some(link.place.element())));
        each(text(file));
        each(RowValue::Number(link.line));
        each(number(self.message));
        each(text(Some(&link.original)));
        each(text(self.part.as_deref()));
        each(number(record.map(|r| r.number)));
        each(text(record.map(|r| r.record_id.as_str())));
        each(text(link.base.as_ref().map(|_| link.resolved.as_str())));
        each(text(record.map(|r| r.target_uri.as_str())));
    }
}

/// The writer of an input's link rows in one format: text, TSV (its
/// columns the keys of [`LinkRow::fields`]), JSON Lines (an object a row,
/// those keys in that order), or the URLs to check (each once per
/// document, message or record), bare or as lychee reads them. The
/// command line's `--list` writes through it.
///
/// ```
/// use relink::{LinkRow, RowValue, RowWriter};
/// let out = relink::Rewriter::new().retrieved_from("http://a/b/").rewrite(b"<a href=c><img src=c>")?;
/// let mut json = Vec::new();
/// RowWriter::json("page.html").write(&mut json, &out.rows()[..1])?;
/// assert!(json.starts_with(br#"{"attribute":"href","base":"http://a/b/","base_from":"--retrieved-from","#));
/// let mut urls = RowWriter::tsv("page.html").header().unwrap().into_bytes();
/// RowWriter::urls().write(&mut urls, out.rows())?;
/// assert_eq!(urls, format!("{}\nhttp://a/b/c\n", LinkRow::KEYS.join("\t")).as_bytes());
/// let fields = out.rows()[0].fields(None);
/// assert_eq!((fields[6].1.clone(), &fields[13]), (RowValue::Null, &("resolved", RowValue::Text("http://a/b/c".into()))));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub struct RowWriter {
    format: Format,
    /// The input's name, as given.
    file: String,
    /// The unit being listed, and the URLs of it written.
    unit: Option<UnitKey>,
    /// Hashed by foldhash, not SipHash: a sixth of a URL listing's
    /// instructions went to hashing; its seed is random all the same, so
    /// no document can make its URLs collide.
    seen: HashSet<String, foldhash::fast::RandomState>,
    /// The rows being made, kept for its capacity.
    line: Vec<u8>,
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
            seen: HashSet::default(),
            line: Vec::new(),
        }
    }

    /// Rows of the input named `file` as lines of text:
    /// `FILE:LINE:COLUMN: <a href> ORIGINAL -> RESOLVED (base BASE from
    /// BASE_FROM)`, or `(no base)`.
    pub fn text(file: &str) -> RowWriter {
        RowWriter::new(Format::Text, file)
    }

    /// Rows of the input named `file` as TSV lines (backslash, tab, CR
    /// and LF escaped; empty where JSON says null), under its `header`.
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
        // Rows are made in one buffer kept from call to call, handed on in
        // large writes: a row costs no allocation and no formatting machinery.
        let mut line = std::mem::take(&mut self.line);
        line.clear();
        // Sized once for a flush's worth, not grown by doubling for each input.
        line.reserve(FLUSH_BYTES + FLUSH_BYTES / 4);
        let mut result = Ok(());
        for row in rows {
            self.row(&mut line, row);
            if line.len() >= FLUSH_BYTES {
                result = out.write_all(&line);
                line.clear();
                if result.is_err() {
                    break;
                }
            }
        }
        if result.is_ok() && !line.is_empty() {
            result = out.write_all(&line);
        }
        line.clear();
        self.line = line;
        result
    }

    /// [`RowWriter::write`] into the end of `out`, each row made in place.
    ///
    /// ```
    /// use relink::RowWriter;
    /// let out = relink::Rewriter::new().retrieved_from("http://a/").rewrite(b"<a href=b>")?;
    /// let (mut made, mut written) = (b"rows:\n".to_vec(), b"rows:\n".to_vec());
    /// RowWriter::text("p.html").write_into(&mut made, out.rows());
    /// RowWriter::text("p.html").write(&mut written, out.rows())?;
    /// assert_eq!(made, written);
    /// assert_eq!(made, b"rows:\np.html:1:9: <a href> b -> http://a/b (base http://a/ from --retrieved-from)\n");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn write_into(&mut self, out: &mut Vec<u8>, rows: &[LinkRow]) {
        for row in rows {
            self.row(out, row);
        }
    }

    /// Writes `row` at the end of `out`.
    fn row(&mut self, out: &mut Vec<u8>, row: &LinkRow) {
        match self.format {
            Format::Text => text_row(out, &self.file, row),
            Format::Tsv => fields_line(out, row.fields(Some(&self.file)), false),
            Format::Json => fields_line(out, row.fields(Some(&self.file)), true),
            Format::Urls(syntax) => self.url(out, row, syntax),
        }
    }

    /// Writes the URL to check of `row` if it has one not yet written for
    /// its unit.
    fn url(&mut self, out: &mut Vec<u8>, row: &LinkRow, syntax: Syntax) {
        let record = row.record.as_deref();
        if !self
            .unit
            .as_ref()
            .is_some_and(|key| key.is(row.message, record))
        {
            self.seen.clear();
            self.unit = Some(row.unit());
        }
        if let Some(url) = checkable_url(row)
            && !self.seen.contains(&*url)
        {
            syntax.write(out, &url);
            self.seen.insert(url.into_owned());
        }
    }
}

/// How many bytes of rows are made before they are handed on.
const FLUSH_BYTES: usize = 64 * 1024;

/// One row as a line of text: `FILE:LOCATION: PLACE ORIGINAL RESOLUTION`.
fn text_row(out: &mut Vec<u8>, file: &str, row: &LinkRow) {
    let link = &row.link;
    out.extend_from_slice(file.as_bytes());
    out.push(b':');
    // The row's location, as `LinkRow::location` writes it.
    if let Some(n) = row.message {
        out.extend_from_slice(b"message ");
        push_number(out, n);
        out.extend_from_slice(b", ");
    }
    if let Some(record) = &row.record {
        out.extend_from_slice(record.target_uri.as_bytes());
        out.push(b' ');
    }
    if let Some(part) = row.part.as_deref().filter(|p| !p.is_empty()) {
        out.extend_from_slice(b"part ");
        out.extend_from_slice(part.as_bytes());
        out.extend_from_slice(b", ");
    }
    push_number(out, link.line);
    out.push(b':');
    push_number(out, link.column);
    out.extend_from_slice(b": ");
    // The place, as `LinkPlace` displays it.
    match (link.place.element(), link.place.attribute()) {
        (element, "") => push_all(out, &["<", element, ">"]),
        ("", attribute) => out.extend_from_slice(attribute.as_bytes()),
        (element, attribute) => push_all(out, &["<", element, " ", attribute, ">"]),
    }
    push_all(out, &[" ", &link.original, " "]);
    match &link.base {
        // A link of a document with no base has no resolution.
        None => out.extend_from_slice(b"(no base)"),
        Some(base) => {
            let source = source_name(link);
            let parts = [
                "-> ",
                &link.resolved,
                " (base ",
                base.url.as_str(),
                " from ",
            ];
            push_all(out, &parts);
            push_all(out, &[&source, ")"]);
        }
    }
    out.push(b'\n');
}

fn push_all(out: &mut Vec<u8>, parts: &[&str]) {
    for part in parts {
        out.extend_from_slice(part.as_bytes());
    }
}

/// `n` in decimal.
fn push_number(out: &mut Vec<u8>, mut n: usize) {
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    loop {
        at -= 1;
        digits[at] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    out.extend_from_slice(&digits[at..]);
}

/// One row's fields as a TSV line (backslash, tab, CR and LF escaped) or
/// (`json`) a JSON object on one line, written straight out: a listing of
/// millions of links builds no tree per row.
fn fields_line(out: &mut Vec<u8>, fields: [(&'static str, RowValue<'_>); 15], json: bool) {
    for (i, (key, value)) in fields.into_iter().enumerate() {
        match (json, i) {
            (true, _) => push_all(out, &[if i == 0 { "{\"" } else { ",\"" }, key, "\":"]),
            (false, 0) => {}
            (false, _) => out.push(b'\t'),
        }
        match (value, json) {
            (RowValue::Null, true) => out.extend_from_slice(b"null"),
            (RowValue::Null, false) => {}
            (RowValue::Number(n), _) => push_number(out, n),
            (RowValue::Bool(b), _) => out.extend_from_slice(if b { b"true" } else { b"false" }),
            (RowValue::Text(text), true) => json_string(out, &text),
            (RowValue::Text(text), false) => tsv_text(out, &text),
        }
    }
    out.extend_from_slice(if json { b"}\n" } else { b"\n" });
}

/// `text` as a JSON string, escaped as `serde_json` escapes it (quote,
/// backslash and control characters; nothing else).
pub(crate) fn json_string(out: &mut Vec<u8>, text: &str) {
    if needs_escape(text.as_bytes()) {
        // The rare string that needs escaping: serde_json's own escapes.
        // Writing into a Vec cannot fail.
        let _ = serde_json::to_writer(&mut *out, text);
    } else {
        push_all(out, &["\"", text, "\""]);
    }
}

/// Whether `bytes` hold one that JSON escapes: a quote, a backslash or a
/// control character (below 0x20). Eight bytes at a time: a byte below
/// `n` sets its high bit in `word - n` where it was clear in `word`, and a
/// borrow that crosses into the next byte comes only from such a byte,
/// so the test is exact for the word as a whole.
pub(crate) fn needs_escape(bytes: &[u8]) -> bool {
    const ONES: u64 = u64::from_le_bytes([1; 8]);
    const HIGH: u64 = ONES << 7;
    let below = |word: u64, n: u8| word.wrapping_sub(ONES * u64::from(n)) & !word & HIGH;
    let mut words = bytes.chunks_exact(8);
    for chunk in &mut words {
        let mut word = [0; 8];
        word.copy_from_slice(chunk);
        let word = u64::from_le_bytes(word);
        let quote = below(word ^ (ONES * u64::from(b'"')), 1);
        let backslash = below(word ^ (ONES * u64::from(b'\\')), 1);
        if below(word, 0x20) | quote | backslash != 0 {
            return true;
        }
    }
    let naive = |&b: &u8| b < 0x20 || b == b'"' || b == b'\\';
    words.remainder().iter().any(naive)
}

/// `text` as a TSV field: backslash, tab, LF and CR escaped.
fn tsv_text(out: &mut Vec<u8>, text: &str) {
    for &b in text.as_bytes() {
        match b {
            b'\\' => out.extend_from_slice(b"\\\\"),
            b'\t' => out.extend_from_slice(b"\\t"),
            b'\n' => out.extend_from_slice(b"\\n"),
            b'\r' => out.extend_from_slice(b"\\r"),
            b => out.push(b),
        }
    }
}

/// The URL a checker is given for a row: its resolved URL when that is
/// absolute, with the white space a URL parser drops (tab, CR, LF)
/// dropped and spaces written `%20`, so that it is one line and one word.
/// `data:` and `javascript:` URLs name nothing to check: none. Nor does a
/// message part's own `Content-Location`: it is the part's address (the
/// base of its links, which `explain` shows), not a link of it.
fn checkable_url(row: &LinkRow) -> Option<Cow<'_, str>> {
    let place = &row.link.place;
    if place.element().is_empty() && place.attribute().eq_ignore_ascii_case("Content-Location") {
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
    // Byte by byte: a search for any of four characters decodes each.
    if !url
        .bytes()
        .any(|b| matches!(b, b'\t' | b'\r' | b'\n' | b' '))
    {
        return Some(Cow::Borrowed(url));
    }
    let mut out = String::with_capacity(url.len());
    for c in url.chars() {
        match c {
            '\t' | '\r' | '\n' => {}
            ' ' => out.push_str("%20"),
            c => out.push(c),
        }
    }
    Some(Cow::Owned(out))
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
    fn write(self, out: &mut Vec<u8>, url: &str) {
        if self == Syntax::Bare {
            return push_all(out, &[url, "\n"]);
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
        let (before, after) = match self {
            Syntax::Text
                if !value.contains('#')
                    && value.ends_with(['.', ',', ':', ';', '!', '?', '\'', '*']) =>
            {
                ("", "#")
            }
            Syntax::Html => ("<a href=\"", "\">"),
            Syntax::Markdown => ("[](<", ">)"),
            Syntax::Css => ("url(\"", "\")"),
            Syntax::Xml => ("<link href=\"", "\"/>"),
            Syntax::Bare | Syntax::Text => ("", ""),
        };
        push_all(out, &[before, &value, after, "\n"]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every byte at every place of a word and of the tail after it,
    /// alone and after a byte below 0x20 (a borrow) or at or above 0x80,
    /// against the byte-at-a-time test.
    #[test]
    fn escapes_are_found_as_a_byte_at_a_time_finds_them() {
        let naive = |bytes: &[u8]| bytes.iter().any(|&b| b < 0x20 || b == b'"' || b == b'\\');
        for len in [1, 7, 8, 9, 16, 19] {
            for at in 0..len {
                for b in 0..=255u8 {
                    for before in [b'a', 0x00, 0x1f, 0x21, 0x80, 0xff] {
                        let mut bytes = vec![b'a'; len];
                        bytes[at] = b;
                        if at > 0 {
                            bytes[at - 1] = before;
                        }
                        assert_eq!(needs_escape(&bytes), naive(&bytes), "{bytes:?}");
                    }
                }
            }
        }
    }

    #[test]
    fn strings_and_numbers_are_written_as_serde_json_writes_them() {
        for text in [
            "",
            "a/b?c=d&e",
            "caf\u{e9} \u{7f}",
            "q\"b\\s\tn\nr\r\u{1}\u{1f}",
        ] {
            let mut ours = Vec::new();
            json_string(&mut ours, text);
            assert_eq!(ours, serde_json::to_vec(text).unwrap(), "{text:?}");
        }
        for n in [0, 7, 10, 99, 1234567, usize::MAX] {
            let mut ours = Vec::new();
            push_number(&mut ours, n);
            assert_eq!(ours, n.to_string().into_bytes());
        }
    }
}
