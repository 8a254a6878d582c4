//! Re-lexing one tag from its source, by the HTML standard's tag states
//! (13.2.5.6 to 13.2.5.40), to learn where each attribute's value lies and
//! how it is quoted. html5ever tokenizes the document; this only re-reads a
//! tag html5ever has already found, and the caller checks that both agree.

use std::ops::Range;

/// One attribute of a re-lexed tag.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LexedAttr {
    /// The name, lower-cased as the tokenizer does.
    pub name: String,
    /// Where the name lies.
    pub name_span: Range<usize>,
    /// The value, if the attribute has one.
    pub value: Option<LexedValue>,
}

/// Where an attribute's value lies and how it is quoted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LexedValue {
    /// The value's source, without its quotes.
    pub span: (usize, usize),
    /// `b'"'`, `b'\''`, or `None` for an unquoted value.
    pub quote: Option<u8>,
}

impl LexedValue {
    /// The value's source range.
    pub fn range(&self) -> Range<usize> {
        self.span.0..self.span.1
    }
}

/// A tag as re-lexed from its source.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LexedTag {
    /// An end tag (`</...>`).
    pub end_tag: bool,
    /// The tag name, lower-cased.
    pub name: String,
    /// The attributes, duplicates dropped as the tokenizer drops them.
    pub attrs: Vec<LexedAttr>,
    /// Just after the closing `>`.
    pub end: usize,
}

/// Appends name bytes as the tokenizer does: ASCII upper case lowered, NUL
/// replaced.
fn push_name(name: &mut String, s: &str) {
    for c in s.chars() {
        match c {
            '\0' => name.push('\u{fffd}'),
            c => name.push(c.to_ascii_lowercase()),
        }
    }
}

/// Lexes the tag that starts at `start` (a `<`) in `src`. Returns `None`
/// when no tag starts there or it does not end before the input does.
pub fn lex_tag(src: &str, start: usize) -> Option<LexedTag> {
    let b = src.as_bytes();
    if b.get(start) != Some(&b'<') {
        return None;
    }
    // Tag open state, end tag open state.
    let (end_tag, name_start) = match b.get(start + 1)? {
        b'/' if b.get(start + 2)?.is_ascii_alphabetic() => (true, start + 2),
        c if c.is_ascii_alphabetic() => (false, start + 1),
        _ => return None,
    };
    // Tag name state.
    let mut i = name_start;
    while i < b.len() && !b[i].is_ascii_whitespace() && b[i] != b'/' && b[i] != b'>' {
        i += 1;
    }
    let mut tag = LexedTag {
        end_tag,
        name: String::with_capacity(i - name_start),
        attrs: Vec::new(),
        end: 0,
    };
    push_name(&mut tag.name, &src[name_start..i]);
    loop {
        // Before attribute name state.
        while i < b.len() && b[i].is_ascii_whitespace() {
            i += 1;
        }
        match b.get(i)? {
            b'>' => {
                tag.end = i + 1;
                return Some(tag);
            }
            b'/' => {
                // Self-closing start tag state: "/>" ends the tag; any
                // other "/" is dropped and the attributes go on.
                i += 1;
                if b.get(i)? == &b'>' {
                    tag.end = i + 1;
                    return Some(tag);
                }
                continue;
            }
            _ => {}
        }
        // Attribute name state: a leading "=" is part of the name.
        let name_start = i;
        i += 1;
        while i < b.len() && !b[i].is_ascii_whitespace() && !matches!(b[i], b'/' | b'>' | b'=') {
            i += 1;
        }
        let name_span = name_start..i;
        // After attribute name state.
        while i < b.len() && b[i].is_ascii_whitespace() {
            i += 1;
        }
        let mut value = None;
        if b.get(i)? == &b'=' {
            // Before attribute value state.
            i += 1;
            while i < b.len() && b[i].is_ascii_whitespace() {
                i += 1;
            }
            match *b.get(i)? {
                q @ (b'"' | b'\'') => {
                    let value_start = i + 1;
                    let close = b[value_start..].iter().position(|&c| c == q)? + value_start;
                    value = Some(LexedValue {
                        span: (value_start, close),
                        quote: Some(q),
                    });
                    // After attribute value (quoted) state: anything but
                    // space, "/" or ">" starts the next attribute at once.
                    i = close + 1;
                }
                b'>' => {
                    // Missing attribute value: the attribute's value is
                    // empty and the tag ends here; an empty unquoted value
                    // just before the `>` is where a new one goes.
                    value = Some(LexedValue {
                        span: (i, i),
                        quote: None,
                    });
                }
                _ => {
                    let value_start = i;
                    while i < b.len() && !b[i].is_ascii_whitespace() && b[i] != b'>' {
                        i += 1;
                    }
                    value = Some(LexedValue {
                        span: (value_start, i),
                        quote: None,
                    });
                }
            }
        }
        let mut name = String::with_capacity(name_span.len());
        push_name(&mut name, &src[name_span.clone()]);
        // A duplicate attribute is dropped, value and all.
        if !tag.attrs.iter().any(|a| a.name == name) {
            tag.attrs.push(LexedAttr {
                name,
                name_span,
                value,
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An attribute's name, and its value's source and quote.
    type Attr<'a> = (String, Option<(&'a str, Option<u8>)>);

    fn attrs(src: &str) -> Vec<Attr<'_>> {
        let tag = lex_tag(src, 0).expect("a tag");
        assert_eq!(tag.end, src.len(), "{src}");
        tag.attrs
            .iter()
            .map(|a| {
                let v = a.value.map(|v| (&src[v.range()], v.quote));
                (a.name.clone(), v)
            })
            .collect()
    }

    #[test]
    fn lexes_names_values_and_quotes() {
        assert_eq!(
            attrs(r#"<A HREF="x" b='y' c=z d>"#),
            vec![
                ("href".to_owned(), Some(("x", Some(b'"')))),
                ("b".to_owned(), Some(("y", Some(b'\'')))),
                ("c".to_owned(), Some(("z", None))),
                ("d".to_owned(), None),
            ]
        );
    }

    #[test]
    fn follows_the_odd_corners_of_the_tag_states() {
        // "=" first in a name, "/" between attributes, no space after a
        // quoted value, a duplicate, a value with ">" inside quotes.
        assert_eq!(
            attrs("<a =x/b=\"1\"c='>' b=2 e = f/>"),
            vec![
                ("=x".to_owned(), None),
                ("b".to_owned(), Some(("1", Some(b'"')))),
                ("c".to_owned(), Some((">", Some(b'\'')))),
                ("e".to_owned(), Some(("f/", None))),
            ]
        );
        assert_eq!(attrs("<a b=>"), vec![("b".to_owned(), Some(("", None)))]);
        assert_eq!(attrs("<a\r\nhref=x\r\n>")[0].1, Some(("x", None)));
    }

    #[test]
    fn knows_what_is_not_a_tag() {
        assert_eq!(lex_tag("< a>", 0), None);
        assert_eq!(lex_tag("<3>", 0), None);
        assert_eq!(lex_tag("<a href='x>", 0), None);
        assert_eq!(lex_tag("<a", 0), None);
        let end = lex_tag("</p x=1>", 0).unwrap();
        assert!(end.end_tag);
        assert_eq!(end.name, "p");
    }
}
