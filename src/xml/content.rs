//! An element's character content as a string, with a map back to the
//! source: literal text, entity and character references, and CDATA
//! sections. An edit of the string goes back into the source written the
//! way the content was: escaped with the same references, or inside the
//! same CDATA section.

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

/// One piece of content.
#[derive(Debug, Clone)]
pub struct Segment {
    /// Its range in the content string.
    pub decoded: Range<usize>,
    /// Its range in the source text.
    pub source: Range<usize>,
    /// How it is written.
    pub written: Written,
}

/// An element's content: the string and its pieces.
#[derive(Debug, Default)]
pub struct Content {
    /// The content, references replaced by what they stand for.
    pub text: String,
    /// Its pieces, in order.
    pub segments: Vec<Segment>,
    /// The first reference written for each character a reference stood
    /// for, so that new text is escaped the same way (looked up by the
    /// character, so a content of many distinct references takes linear
    /// time).
    references: HashMap<char, String>,
}

impl Content {
    /// Adds literal text or the inside of a CDATA section, found at
    /// `source` in the source text.
    pub fn push(&mut self, text: &str, at: usize, written: Written) {
        if text.is_empty() {
            return;
        }
        let start = self.text.len();
        self.text.push_str(text);
        self.segments.push(Segment {
            decoded: start..self.text.len(),
            source: at..at + text.len(),
            written,
        });
    }

    /// Adds a reference, `raw` as written at `source`, standing for `ch`.
    pub fn push_reference(&mut self, ch: char, raw: &str, source: Range<usize>) {
        let start = self.text.len();
        self.text.push(ch);
        self.segments.push(Segment {
            decoded: start..self.text.len(),
            source,
            written: Written::Reference,
        });
        self.references.entry(ch).or_insert_with(|| raw.to_owned());
    }

    /// The source offset of a content offset that is not inside a reference.
    pub fn source_offset(&self, at: usize) -> usize {
        let i = self.segments.partition_point(|s| s.decoded.end <= at);
        match self.segments.get(i) {
            Some(s) if s.written == Written::Reference => s.source.start,
            Some(s) => s.source.start + (at - s.decoded.start).min(s.source.len()),
            None => self.segments.last().map_or(0, |s| s.source.end),
        }
    }

    /// Escapes text for a place outside CDATA, with the references the
    /// content already used: `&` and `<` always, any other character only
    /// where the content wrote it as a reference (`&gt;`, `&#192;`).
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

    /// The source edit for replacing `range` of the content by `new`: the
    /// range widened to whole references, and the new text written as the
    /// pieces it replaces were (inside CDATA when it lies wholly in one
    /// CDATA section, escaped otherwise).
    pub fn source_edit(&self, range: Range<usize>, new: &str) -> Option<Edit> {
        if self.segments.is_empty() {
            return None;
        }
        let first = self
            .segments
            .partition_point(|s| s.decoded.end <= range.start)
            .min(self.segments.len() - 1);
        let last = self
            .segments
            .partition_point(|s| s.decoded.end < range.end)
            .clamp(first, self.segments.len() - 1);
        let (a, b) = (&self.segments[first], &self.segments[last]);
        let in_cdata = first == last && a.written == Written::Cdata;
        // Whole references (and, when the edit leaves its CDATA section,
        // whole CDATA sections) are replaced.
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
            // A CDATA section cannot hold `]]>`: it is closed and opened
            // again around the `>`.
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
    fn sample() -> (String, Content) {
        let src = "&lt;a href=\"x\"&gt;<![CDATA[<b>y</b>]]>";
        let mut c = Content::default();
        c.push_reference('<', "&lt;", 0..4);
        c.push("a href=\"x\"", 4, Written::Literal);
        c.push_reference('>', "&gt;", 14..18);
        c.push("<b>y</b>", 27, Written::Cdata);
        (src.to_owned(), c)
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
        let mut c = Content::default();
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
        // A feed's content of 300,000 distinct character references: each
        // character is escaped with the reference first written for it.
        let mut c = Content::default();
        let mut at = 0;
        let chars: Vec<char> = (0x100..0x100 + 300_000)
            .filter_map(char::from_u32)
            .collect();
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
}
