//! An element's character content as a string, with a map back to the
//! source (literal text, references, CDATA sections), so that an edit of
//! the string goes back written the way the content was: with the same
//! references, or inside the same CDATA section.

use std::collections::HashMap;
use std::ops::Range;

use crate::splice::Edit;

/// How a piece of content is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Written {
    /// Text as it is (after the XML parser's checks).
    Literal,
    /// An entity or character reference (`&lt;`, `&#60;`).
    Reference,
    /// The inside of a CDATA section.
    Cdata,
}

/// One piece of content, as the map gives it back.
#[derive(Debug, Clone)]
pub struct Segment {
    /// Its range in the content string.
    pub decoded: Range<usize>,
    /// Its range in the source text.
    pub source: Range<usize>,
    /// How it is written.
    pub written: Written,
}

/// Where a stretch of the content starts, in the content string and in the
/// source. Text (literal and references) is read again from the source to
/// find a place inside it; a CDATA section maps byte for byte.
#[derive(Debug, Clone, Copy)]
struct Stretch {
    decoded: usize,
    source: usize,
    cdata: bool,
}

/// How many references a stretch holds at most: a place is found by reading
/// at most these again, and the map stays a few bytes a reference.
const STRETCH_REFERENCES: usize = 32;

/// An element's content: the string and the map of its stretches.
#[derive(Debug)]
pub struct Content<'s> {
    /// The content, references replaced by what they stand for.
    pub text: String,
    /// The source the content is in, starting at `origin`.
    source: &'s str,
    origin: usize,
    stretches: Vec<Stretch>,
    /// Where the last piece added ends in the source.
    source_end: usize,
    /// How many references the last stretch holds.
    last_references: usize,
    /// The first reference written for each character, so new text is escaped the same way.
    references: HashMap<char, String>,
}

impl<'s> Content<'s> {
    /// An empty content of `source`, whose first byte is at `origin` in the offsets.
    pub fn new(source: &'s str, origin: usize) -> Self {
        Content {
            text: String::new(),
            source,
            origin,
            stretches: Vec::new(),
            source_end: origin,
            last_references: 0,
            references: HashMap::new(),
        }
    }

    /// Starts a stretch at `at` unless the piece goes on the last (text after text, not full).
    fn extend(&mut self, at: usize, written: Written) {
        let cdata = written == Written::Cdata;
        let goes_on = self.stretches.last().is_some_and(|s| !s.cdata)
            && !cdata
            && at == self.source_end
            && self.last_references < STRETCH_REFERENCES;
        if !goes_on {
            self.stretches.push(Stretch {
                decoded: self.text.len(),
                source: at,
                cdata,
            });
            self.last_references = 0;
        }
        self.last_references += usize::from(written == Written::Reference);
    }

    /// Adds literal text (no `&`) or a CDATA section's inside, found at `at` in the source.
    pub fn push(&mut self, text: &str, at: usize, written: Written) {
        if text.is_empty() {
            return;
        }
        self.extend(at, written);
        self.text.push_str(text);
        self.source_end = at + text.len();
    }

    /// Adds a reference, `raw` as written at `source`, standing for `ch`.
    pub fn push_reference(&mut self, ch: char, raw: &str, source: Range<usize>) {
        self.extend(source.start, Written::Reference);
        self.text.push(ch);
        self.source_end = source.end;
        self.references.entry(ch).or_insert_with(|| raw.to_owned());
    }

    /// The piece holding offset `at`: literal text, a reference or a CDATA inside
    /// (`None` past the end, or where the source does not read as given).
    fn segment_at(&self, at: usize) -> Option<Segment> {
        let i = self.stretches.partition_point(|s| s.decoded <= at);
        let stretch = *self.stretches.get(i.checked_sub(1)?)?;
        let end = self
            .stretches
            .get(i)
            .map_or(self.text.len(), |next| next.decoded);
        if at >= end {
            return None;
        }
        if stretch.cdata {
            let source = stretch.source..stretch.source + (end - stretch.decoded);
            let decoded = stretch.decoded..end;
            let written = Written::Cdata;
            return Some(Segment {
                decoded,
                source,
                written,
            });
        }
        // Literal text runs to the next `&`, a reference to its `;`.
        let source = self.source.as_bytes();
        let (mut d, mut s) = (stretch.decoded, stretch.source);
        loop {
            let rest = source.get(s.checked_sub(self.origin)?..)?;
            // No further than the stretch's end: the source after it is not this content's.
            let within = rest.get(..end - d).unwrap_or(rest);
            let literal = memchr::memchr(b'&', within).unwrap_or(within.len());
            if at < d + literal {
                let (decoded, source) = (d..d + literal, s..s + literal);
                let written = Written::Literal;
                return Some(Segment {
                    decoded,
                    source,
                    written,
                });
            }
            (d, s) = (d + literal, s + literal);
            let raw = rest.get(literal..)?;
            let semicolon = memchr::memchr(b';', raw)?;
            let ch = self.text.get(d..)?.chars().next()?;
            let (decoded, source) = (d..d + ch.len_utf8(), s..s + semicolon + 1);
            if at < decoded.end {
                let written = Written::Reference;
                return Some(Segment {
                    decoded,
                    source,
                    written,
                });
            }
            (d, s) = (decoded.end, source.end);
        }
    }

    /// The source offset of a content offset that is not inside a reference.
    pub fn source_offset(&self, at: usize) -> usize {
        match self.segment_at(at) {
            Some(s) if s.written == Written::Reference => s.source.start,
            Some(s) => s.source.start + (at - s.decoded.start).min(s.source.len()),
            None => self.source_end,
        }
    }

    /// Escapes text outside CDATA: `&` and `<` always, other characters only as
    /// the content wrote them as references (`&gt;`, `&#192;`).
    fn escape(&self, text: &str) -> String {
        let mut out = String::with_capacity(text.len());
        for ch in text.chars() {
            match (ch, self.references.get(&ch)) {
                (_, Some(raw)) => out.push_str(raw),
                ('&', None) => out.push_str("&amp;"),
                ('<', None) => out.push_str("&lt;"),
                _ => out.push(ch),
            }
        }
        out
    }

    /// The source edit replacing `range` of the content by `new`: the range
    /// widened to whole references, the new text written as the pieces it
    /// replaces were (in CDATA when wholly in one section, else escaped).
    pub fn source_edit(&self, range: Range<usize>, new: &str) -> Option<Edit> {
        let len = self.text.len();
        if len == 0 || range.start > range.end || range.end > len {
            return None;
        }
        // The piece holding the start (the last past the end), and the first ending at or past the end.
        let a = self.segment_at(range.start.min(len - 1))?;
        let b = self.segment_at(range.end.max(1) - 1)?;
        let b = if b.decoded.start < a.decoded.start {
            a.clone()
        } else {
            b
        };
        let (a, b) = (&a, &b);
        let first = a.decoded.start;
        let last = b.decoded.start;
        let in_cdata = first == last && a.written == Written::Cdata;
        // Whole references (and whole CDATA sections when the edit leaves one) are replaced.
        let whole = |s: &Segment| {
            s.written == Written::Reference || (!in_cdata && s.written == Written::Cdata)
        };
        let start = if whole(a) {
            a.decoded.start
        } else {
            range.start
        };
        let end = if whole(b) { b.decoded.end } else { range.end };
        let text = format!(
            "{}{}{}",
            &self.text[start..range.start],
            new,
            &self.text[range.end..end]
        );
        let source_start = if whole(a) {
            cdata_start(a)
        } else {
            a.source.start + (start - a.decoded.start)
        };
        let source_end = if whole(b) {
            cdata_end(b)
        } else {
            b.source.start + (end - b.decoded.start)
        };
        let text = if in_cdata {
            // CDATA cannot hold `]]>`: it is closed and opened again around the `>`.
            text.replace("]]>", "]]]]><![CDATA[>")
        } else {
            self.escape(&text)
        };
        Some(Edit::new(source_start..source_end, text))
    }
}

/// Where a piece starts in the source, a CDATA section's markup included.
fn cdata_start(s: &Segment) -> usize {
    if s.written == Written::Cdata {
        s.source.start - "<![CDATA[".len()
    } else {
        s.source.start
    }
}

/// Where a piece ends in the source, a CDATA section's markup included.
fn cdata_end(s: &Segment) -> usize {
    if s.written == Written::Cdata {
        s.source.end + "]]>".len()
    } else {
        s.source.end
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The content of `&lt;a href="x"&gt;` and a CDATA section.
    fn sample() -> (&'static str, Content<'static>) {
        let src = "&lt;a href=\"x\"&gt;<![CDATA[<b>y</b>]]>";
        let mut c = Content::new(src, 0);
        c.push_reference('<', "&lt;", 0..4);
        c.push("a href=\"x\"", 4, Written::Literal);
        c.push_reference('>', "&gt;", 14..18);
        c.push("<b>y</b>", 27, Written::Cdata);
        (src, c)
    }

    #[test]
    fn an_edit_goes_back_escaped_as_the_content_was() {
        let (src, c) = sample();
        assert_eq!(c.text, "<a href=\"x\"><b>y</b>");
        let at = c.text.find('x').unwrap();
        let e = c.source_edit(at..at + 1, "http://h/x?a=1&b=<>").unwrap();
        assert_eq!(&src[e.range.clone()], "x");
        assert_eq!(e.text, "http://h/x?a=1&amp;b=&lt;&gt;");
        let at = c.text.find('y').unwrap();
        let e = c.source_edit(at..at + 1, "z]]>").unwrap();
        assert_eq!(e.text, "z]]]]><![CDATA[>");
        let mut c = Content::new("&#192;", 0);
        c.push_reference('À', "&#192;", 0..6);
        let e = c.source_edit(0..2, "http://h/À").unwrap();
        assert_eq!((e.range, e.text.as_str()), (0..6, "http://h/&#192;"));
        let (src, c) = sample();
        let at = c.text.find('y').unwrap();
        let e = c.source_edit(at..at + 1, "z]]>").unwrap();
        assert_eq!(&src[e.range.clone()], "y");
        assert_eq!(e.text, "z]]]]><![CDATA[>");
    }

    #[test]
    fn an_edit_across_a_reference_takes_it_whole() {
        let (src, c) = sample();
        let e = c.source_edit(0..2, "<i").unwrap();
        assert_eq!(&src[e.range.clone()], "&lt;a");
        assert_eq!(e.text, "&lt;i");
        // From literal text into a CDATA section: the section is replaced.
        let e = c.source_edit(11..14, "Q").unwrap();
        assert_eq!(&src[e.range.clone()], "&gt;<![CDATA[<b>y</b>]]>");
        assert_eq!(e.text, "Q&gt;y&lt;/b&gt;");
    }

    #[test]
    fn many_distinct_references_each_escape_as_first_written() {
        // 300,000 distinct references: each character escaped as first written.
        let chars: Vec<char> = (0x100..0x100 + 300_000)
            .filter_map(char::from_u32)
            .collect();
        let mut src: String = chars
            .iter()
            .map(|&ch| format!("&#{};", ch as u32))
            .collect();
        src.push_str("&#x100;");
        let mut c = Content::new(&src, 0);
        let mut at = 0;
        for &ch in &chars {
            let raw = format!("&#{};", ch as u32);
            c.push_reference(ch, &raw, at..at + raw.len());
            at += raw.len();
        }
        c.push_reference(chars[0], "&#x100;", at..at + 7);
        let last = *chars.last().unwrap();
        let e = c
            .source_edit(0..chars[0].len_utf8(), &format!("{}{last}", chars[0]))
            .unwrap();
        assert_eq!(e.text, format!("&#256;&#{};", last as u32));
    }

    /// The pieces of a long content, each offset mapped as a list of every piece maps it.
    #[test]
    fn the_map_of_stretches_agrees_with_a_list_of_pieces() {
        let mut src = String::from("<c>");
        let mut pieces: Vec<(Range<usize>, Written, char)> = Vec::new();
        for i in 0..200 {
            let (raw, written, ch) = match i % 7 {
                0 => ("&lt;", Written::Reference, '<'),
                1 => ("a \u{e9}b", Written::Literal, ' '),
                2 => ("&#192;", Written::Reference, '\u{c0}'),
                3 if i % 3 == 0 => ("<!-- -->", Written::Literal, ' '),
                4 => ("<![CDATA[x&y]]>", Written::Cdata, ' '),
                _ => ("q", Written::Literal, ' '),
            };
            let at = src.len();
            src.push_str(raw);
            if raw.starts_with("<!--") {
                continue;
            }
            pieces.push((at..src.len(), written, ch));
        }
        let mut c = Content::new(&src, 0);
        // (decoded, source) of every content offset, from the pieces.
        let mut oracle = Vec::new();
        for (range, written, ch) in &pieces {
            match written {
                Written::Reference => {
                    c.push_reference(*ch, &src[range.clone()], range.clone());
                    oracle.push((c.text.len() - ch.len_utf8(), range.start));
                }
                Written::Cdata => {
                    let inner = range.start + 9..range.end - 3;
                    c.push(&src[inner.clone()], inner.start, Written::Cdata);
                    oracle.extend(
                        (0..inner.len()).map(|i| (c.text.len() - inner.len() + i, inner.start + i)),
                    );
                }
                Written::Literal => {
                    c.push(&src[range.clone()], range.start, Written::Literal);
                    let len = range.len();
                    oracle.extend((0..len).map(|i| (c.text.len() - len + i, range.start + i)));
                }
            }
        }
        assert!(c.stretches.len() > 20, "{} stretches", c.stretches.len());
        for (decoded, source) in oracle {
            if c.text.is_char_boundary(decoded) {
                assert_eq!(c.source_offset(decoded), source, "at {decoded}");
            }
        }
        assert_eq!(c.source_offset(c.text.len()), src.len());
        // An edit inside the twentieth reference takes it whole.
        let nth = c.text.match_indices('<').nth(20).unwrap().0;
        let e = c.source_edit(nth..nth + 1, "<x").unwrap();
        assert_eq!((&src[e.range.clone()], e.text.as_str()), ("&lt;", "&lt;x"));
    }
}
