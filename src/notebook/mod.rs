//! Jupyter notebooks (`.ipynb`, nbformat 4, and 3's worksheets): the
//! texts a notebook renders with links are handed to their readers through
//! [`Documents`]: a Markdown cell's source (and a v3 heading cell's) as
//! Markdown, a raw cell that nbconvert writes into an HTML page as it is
//! (`raw_mimetype` `text/html`, or none) as HTML, a code cell's
//! `text/html`, `image/svg+xml` and `text/markdown` outputs as HTML, XML
//! and Markdown. Code, other raw cells, attachments and every other key
//! stay as they are.
//!
//! The JSON is never written again: each text is found as the strings of
//! the file ([`json::Scanner`]), decoded and joined (a source written as a
//! list of lines is read as the one text nbformat joins it into, so that
//! Markdown's reference definitions and multi-line HTML read as rendered),
//! and each change is put back into the string it falls in, escaped as the
//! file escapes its strings. A change that would cross from one line's
//! string to the next is left, with a warning.

pub mod json;

use std::ops::Range;

use crate::base::Base;
use crate::error::Error;
use crate::links::{Link, LinkRow, Outcome, Warning, WarningKind};
use crate::options::{MAX_DOCUMENT_BYTES, Options};
use crate::splice::{Edit, Edits, Make, Splice};
use crate::text::{self, Documents, Embedded, LineIndex};

use json::{Decoded, JsonError, Scanner, Style};

/// A text of the notebook another reader reads: of which kind, where (for
/// warnings), and the content ranges of its strings in order.
#[derive(Debug)]
struct Text {
    kind: Embedded,
    label: String,
    strings: Vec<Range<usize>>,
}

/// Rewrites a notebook; its cells and outputs go to `documents`.
pub fn rewrite_notebook(
    bytes: &[u8],
    (options, make): (&Options<'_>, Make),
    documents: &dyn Documents,
) -> Result<Outcome, Error> {
    if bytes.len() > MAX_DOCUMENT_BYTES {
        return Err(Error::TooLarge(bytes.len()));
    }
    let start = if bytes.starts_with(b"\xef\xbb\xbf") {
        3
    } else {
        0
    };
    let (mut texts, style) = texts(bytes, start).map_err(|e| json_error(bytes, &e))?;
    texts.sort_by_key(|t| t.strings.first().map_or(0, |s| s.start));
    let (page, _, layers, no_base) = text::page_bases(options);
    let mut work = Work {
        bytes,
        style,
        options,
        lines: LineIndex::default(),
        file: std::str::from_utf8(bytes).unwrap_or_default(),
        edits: Edits::new(),
        encoded: String::new(),
        links: Vec::new(),
        rewritten: 0,
        warnings: Vec::new(),
    };
    if no_base {
        work.warnings.push(Warning::new(
            WarningKind::NoBase,
            "no base url: links left as they are",
        ));
    }
    for text in &texts {
        work.text(text, documents, no_base);
    }
    Ok(work.finish(make, page.filter(|p| !p.is_stand_in()), layers))
}

/// A broken notebook as the error for the whole input: where, as a line
/// and column of the file (column in bytes, from 1).
fn json_error(bytes: &[u8], error: &JsonError) -> Error {
    let before = &bytes[..error.at.min(bytes.len())];
    let line = 1 + memchr::memchr_iter(b'\n', before).count();
    let column = before.len() - memchr::memrchr(b'\n', before).map_or(0, |i| i + 1) + 1;
    Error::InvalidJson {
        line,
        column,
        reason: error.reason,
    }
}

/// The texts of a notebook, with how its strings are written; the whole
/// file checked as JSON first (UTF-8, as RFC 8259 has it).
fn texts(bytes: &[u8], start: usize) -> json::Result<(Vec<Text>, Style)> {
    if let Err(e) = std::str::from_utf8(bytes) {
        return Err(JsonError {
            at: e.valid_up_to(),
            reason: "not utf-8",
        });
    }
    let mut s = Scanner::new(bytes, start);
    let mut texts = Vec::new();
    let mut cells = 0;
    if s.peek() == Some(b'{') {
        s.object(|s, key| {
            if s.is(&key, "cells") {
                cell_list(s, &mut texts, &mut cells)
            } else if s.is(&key, "worksheets") && s.peek() == Some(b'[') {
                s.array(|s| match s.peek() {
                    Some(b'{') => s.object(|s, key| {
                        if s.is(&key, "cells") {
                            cell_list(s, &mut texts, &mut cells)
                        } else {
                            s.skip()
                        }
                    }),
                    _ => s.skip(),
                })
            } else {
                s.skip()
            }
        })?;
    } else {
        s.skip()?;
    }
    s.end()?;
    Ok((texts, s.counts.style()))
}

/// A list of cells, each numbered from 1 through the notebook.
fn cell_list(s: &mut Scanner<'_>, texts: &mut Vec<Text>, cells: &mut usize) -> json::Result<()> {
    if s.peek() != Some(b'[') {
        return s.skip();
    }
    s.array(|s| {
        *cells += 1;
        cell(s, texts, *cells)
    })
}

/// One cell: its source if it renders as Markdown (or as HTML, a raw cell
/// nbconvert writes into the page as it is), its outputs' texts.
/// The last of a repeated key counts, as Python's reader keeps it.
fn cell(s: &mut Scanner<'_>, texts: &mut Vec<Text>, n: usize) -> json::Result<()> {
    if s.peek() != Some(b'{') {
        return s.skip();
    }
    let mut kind = None;
    let mut raw_html = true;
    let mut source = None;
    let mut outputs = Vec::new();
    s.object(|s, key| {
        if s.is(&key, "cell_type") {
            kind = match s.peek() {
                Some(b'"') => {
                    let value = s.string()?;
                    if s.is(&value, "markdown") || s.is(&value, "heading") {
                        Some(Embedded::Markdown)
                    } else {
                        s.is(&value, "raw").then_some(Embedded::Html)
                    }
                }
                _ => s.skip().map(|()| None)?,
            };
            Ok(())
        } else if s.is(&key, "metadata") && s.peek() == Some(b'{') {
            raw_html = true;
            s.object(|s, key| {
                if s.is(&key, "raw_mimetype") {
                    raw_html = renders_raw(s)?;
                    Ok(())
                } else {
                    s.skip()
                }
            })
        } else if s.is(&key, "source") {
            source = s.strings()?;
            Ok(())
        } else if s.is(&key, "outputs") && s.peek() == Some(b'[') {
            outputs.clear();
            let mut m = 0;
            s.array(|s| {
                m += 1;
                output(s, &mut outputs, (n, m))
            })
        } else {
            s.skip()
        }
    })?;
    let kind = kind.filter(|&k| k == Embedded::Markdown || raw_html);
    if let (Some(kind), Some(strings)) = (kind, source) {
        texts.push(Text {
            kind,
            label: format!("cell {n}"),
            strings,
        });
    }
    texts.append(&mut outputs);
    Ok(())
}

/// Whether a raw cell of the `raw_mimetype` at the scanner is written into
/// the HTML page as it is, as nbconvert's HTML exporter writes one of
/// `text/html` or of none (in any case).
fn renders_raw(s: &mut Scanner<'_>) -> json::Result<bool> {
    if s.peek() != Some(b'"') {
        return s.skip().map(|()| false);
    }
    let value = s.string()?;
    Ok(s.is(&value, "") || s.text(&value).eq_ignore_ascii_case("text/html"))
}

/// The media types of outputs read, with the key nbformat 3 gave them.
const OUTPUT_TYPES: &[(&str, &str, Embedded)] = &[
    ("text/html", "html", Embedded::Html),
    ("image/svg+xml", "svg", Embedded::Xml),
    ("text/markdown", "markdown", Embedded::Markdown),
];

/// One output of cell `n`, number `m`: its texts of [`OUTPUT_TYPES`],
/// under `data` (nbformat 4) or at its top (nbformat 3).
fn output(s: &mut Scanner<'_>, texts: &mut Vec<Text>, (n, m): (usize, usize)) -> json::Result<()> {
    if s.peek() != Some(b'{') {
        return s.skip();
    }
    let mut found: Vec<Text> = Vec::new();
    let mut media = |s: &mut Scanner<'_>, key: &Range<usize>, v3: bool| {
        let of = OUTPUT_TYPES
            .iter()
            .find(|(media, old, _)| s.is(key, if v3 { old } else { media }));
        let Some(&(media, _, kind)) = of else {
            return s.skip();
        };
        found.retain(|t| !t.label.ends_with(&format!("({media})")));
        if let Some(strings) = s.strings()? {
            let label = format!("cell {n}, output {m} ({media})");
            found.push(Text {
                kind,
                label,
                strings,
            });
        }
        Ok(())
    };
    s.object(|s, key| {
        if s.is(&key, "data") && s.peek() == Some(b'{') {
            s.object(|s, key| media(s, &key, false))
        } else {
            media(s, &key, true)
        }
    })?;
    texts.append(&mut found);
    Ok(())
}

/// A notebook's rewrite under way: the edits of its bytes, and the links
/// and warnings of its texts, placed in the file.
struct Work<'b, 'o> {
    bytes: &'b [u8],
    style: Style,
    options: &'o Options<'o>,
    /// The file as text, for lines and columns.
    file: &'b str,
    lines: LineIndex,
    /// The edits of the file, packed as they come (a link-dense cell
    /// makes one every few dozen bytes).
    edits: Edits,
    /// An edit's text as the file writes it, made here.
    encoded: String,
    links: Vec<Link>,
    rewritten: usize,
    warnings: Vec<Warning>,
}

/// A text decoded from its strings: where each string's text starts, and
/// the map back to the bytes.
struct Joined {
    decoded: Decoded,
    /// Each string's start in the text, and its first mark (as `u32`:
    /// a notebook is at most `u32::MAX` bytes).
    starts: Vec<(u32, u32)>,
}

impl Joined {
    fn new(bytes: &[u8], strings: &[Range<usize>]) -> Self {
        let mut decoded = Decoded::default();
        let mut starts = Vec::with_capacity(strings.len());
        for string in strings {
            starts.push((decoded.text.len() as u32, decoded.marks.len() as u32));
            json::decode_into(bytes, string.clone(), &mut decoded);
        }
        Joined { decoded, starts }
    }

    /// The string a range of the text lies in, if one holds it whole.
    fn string_of(&self, range: &Range<usize>) -> Option<usize> {
        let i = self
            .starts
            .partition_point(|s| s.0 as usize <= range.start)
            .checked_sub(1)?;
        let end = self
            .starts
            .get(i + 1)
            .map_or(self.decoded.text.len(), |s| s.0 as usize);
        (range.end <= end).then_some(i)
    }

    /// The byte offset of text offset `at`, in string `i`.
    fn byte_of(&self, i: usize, at: usize) -> usize {
        let first = self.starts[i].1 as usize;
        let last = self
            .starts
            .get(i + 1)
            .map_or(self.decoded.marks.len(), |s| s.1 as usize);
        let marks = &self.decoded.marks[first..last];
        let k = marks
            .partition_point(|m| m.0 as usize <= at)
            .saturating_sub(1);
        let (text, byte) = marks[k];
        byte as usize + (at - text as usize)
    }

    /// The byte offset of text offset `at`, wherever it is.
    fn byte_at(&self, at: usize) -> usize {
        self.string_of(&(at..at)).map_or(0, |i| self.byte_of(i, at))
    }
}

impl Work<'_, '_> {
    /// One text read by its reader, its changes and links put in the file.
    fn text(&mut self, text: &Text, documents: &dyn Documents, no_base: bool) {
        let joined = Joined::new(self.bytes, &text.strings);
        let options = Options {
            rows: None,
            transport: Some(encoding_rs::UTF_8),
            // `#name` names a place in the notebook's page.
            keep_fragment_links: true,
            ..*self.options
        };
        let source = joined.decoded.text.as_bytes();
        let outcome = match documents.rewrite_made(text.kind, source, &options, Make::Splice) {
            Ok(outcome) => outcome,
            Err(err) => {
                let message = format_args!("{err}; left as it is");
                let warning = Warning::new(WarningKind::Unreadable, message);
                return self.warnings.push(warning.within(text.label.clone()));
            }
        };
        self.rewritten += outcome.rewritten;
        let here = |w: Warning| w.within(text.label.clone());
        let warnings = outcome.warnings.into_iter();
        let warnings = warnings.filter(|w| !(no_base && w.kind == WarningKind::NoBase));
        self.warnings.extend(warnings.map(here));
        let lines = LineIndex::default();
        for mut link in outcome.links {
            let starts = lines.starts(&joined.decoded.text);
            let line_start = starts
                .get(link.line.saturating_sub(1))
                .copied()
                .unwrap_or(0);
            let at = (line_start + link.column.saturating_sub(1)).min(source.len());
            (link.line, link.column) = self.lines.locate(self.file, joined.byte_at(at));
            self.links.push(link);
        }
        match (outcome.splice, outcome.output) {
            (Some(splice), _) => {
                for edit in splice.edits() {
                    let new = String::from_utf8_lossy(&edit.text);
                    self.put_back(&joined, Edit::new(edit.range, &new), &text.label);
                }
            }
            (None, Some(output)) => {
                for edit in whole_change(source, &output) {
                    self.put_back(&joined, edit, &text.label);
                }
            }
            (None, None) => {}
        }
    }

    /// An edit of a text put into the string that holds it, written as
    /// the file writes strings; left with a warning when no one string
    /// holds it, or it would replace what the file held as no character.
    fn put_back(&mut self, joined: &Joined, edit: Edit<impl AsRef<str>>, label: &str) {
        let range = edit.range.clone();
        let lossy = joined.decoded.lossy.iter().any(|&at| range.contains(&at));
        let Some(i) = joined.string_of(&range).filter(|_| !lossy) else {
            let (line, column) = self.lines.locate(self.file, joined.byte_at(range.start));
            let message = if lossy {
                "a change over a lone surrogate escape: left as it is"
            } else {
                "a change across two strings of the source: left as it is"
            };
            let warning = Warning::new(WarningKind::Unreadable, message)
                .within(format!("line {line}, column {column}"));
            self.rewritten = self.rewritten.saturating_sub(1);
            return self.warnings.push(warning.within(label.to_owned()));
        };
        let bytes = joined.byte_of(i, range.start)..joined.byte_of(i, range.end);
        self.encoded.clear();
        json::encode_into(edit.text.as_ref(), self.style, &mut self.encoded);
        self.edits.push_str(bytes, &self.encoded);
    }

    /// The outcome: the edits made bytes or left a splice, the links
    /// handed to the sink of the options or kept.
    fn finish(self, make: Make, base: Option<Base>, layers: Vec<crate::base::Layer>) -> Outcome {
        let mut edits = self.edits;
        let mut warnings = self.warnings;
        let dropped = edits.normalize(self.bytes.len());
        if dropped > 0 {
            warnings.push(Warning::new(
                WarningKind::OverlappingEdits,
                format_args!("{dropped} overlapping edits dropped"),
            ));
        }
        let mut links = self.links;
        if let Some(rows) = self.options.rows {
            for link in links.drain(..) {
                rows.0.row(LinkRow::new(link));
            }
        }
        let splice = (!edits.is_empty()).then(|| Splice::new(edits, 0, None, encoding_rs::UTF_8));
        let (output, splice) = match make {
            Make::Bytes => (splice.map(|s| s.bytes(self.bytes)), None),
            Make::Splice => (None, splice),
        };
        Outcome {
            output,
            splice,
            encoding: encoding_rs::UTF_8,
            base,
            links,
            rewritten: self.rewritten,
            warnings,
            layers,
            head: None,
        }
    }
}

/// The one edit that makes `old` into `new`: what lies between their
/// common start and end (for a reader that made its new bytes whole).
fn whole_change(old: &[u8], new: &[u8]) -> Vec<Edit> {
    let (Ok(old), Ok(new)) = (std::str::from_utf8(old), std::str::from_utf8(new)) else {
        return Vec::new();
    };
    let (prefix, suffix) = crate::splice::common_affixes(old, new);
    let text = new[prefix..new.len() - suffix].to_owned();
    vec![Edit::new(prefix..old.len() - suffix, text)]
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each text offset maps into the string that holds it, past escapes;
    /// an empty string holds nothing, and a range over two strings has no
    /// one string.
    #[test]
    fn a_joined_text_maps_back_into_its_strings() {
        let file = r#"["a\/b", "", "\u00e9x\n", "yz"]"#;
        let mut s = Scanner::new(file.as_bytes(), 0);
        let strings = s.strings().unwrap().unwrap();
        let joined = Joined::new(file.as_bytes(), &strings);
        assert_eq!(joined.decoded.text, "a/béx\nyz");
        let byte = |at| joined.byte_at(at);
        // `a`, `\/`, `b` in the first string, from byte 2.
        assert_eq!([byte(0), byte(1), byte(2)], [2, 3, 5]);
        // `é` (two bytes of text, `\u00e9` six of the file), `x`, `\n`.
        assert_eq!([byte(3), byte(5), byte(6)], [14, 20, 21]);
        assert_eq!(byte(7), 27);
        assert_eq!(joined.string_of(&(3..6)), Some(2));
        assert_eq!(joined.string_of(&(3..3)), Some(2));
        assert_eq!(joined.string_of(&(2..4)), None);
        assert_eq!(joined.string_of(&(6..8)), None);
        assert_eq!(joined.byte_of(2, 7), 23);
        let texts = texts(br#"{"cells": [{"cell_type": "raw", "source": "x"}]}"#, 0);
        assert_eq!(texts.unwrap().0.len(), 1);
    }
}
