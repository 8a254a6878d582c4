//! JSON read for where its strings are: a scanner that checks the whole
//! text as RFC 8259 (with the `NaN` and `Infinity` Python's reader also
//! takes) and gives each string's byte range, not a tree; strings decoded
//! with a map from the decoded text back to the bytes; and new text
//! encoded the way the file writes its strings. serde_json gives values,
//! not where they were written, and a notebook must come back
//! byte for byte but for the changed URLs.
//!
//! Containers the caller does not walk are skipped without recursion, so
//! no nesting depth is a risk to the stack, and nothing is kept of them.

use std::fmt::Write as _;
use std::ops::Range;

/// Where the JSON stops being JSON, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JsonError {
    /// The byte offset.
    pub at: usize,
    /// What was expected or found there.
    pub reason: &'static str,
}

/// What [`Scanner`] methods give.
pub type Result<T> = std::result::Result<T, JsonError>;

/// How a file writes what a string may write two ways, counted over all
/// its strings as they are scanned.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counts {
    /// `/` as written, and as `\/`.
    pub slash: (usize, usize),
    /// Characters past ASCII as written, and as `\u` escapes.
    pub non_ascii: (usize, usize),
    /// `\u` escapes with a hex letter in lower case, and in upper case.
    pub hex_case: (usize, usize),
}

/// How new text is written into a string: what the file does more often.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Style {
    /// `/` written `\/` (PHP's encoder, some others).
    pub escape_slash: bool,
    /// Characters past ASCII written as `\u` escapes (Python's `ensure_ascii`).
    pub escape_non_ascii: bool,
    /// The hex digits of `\u` escapes in upper case.
    pub upper_hex: bool,
}

impl Counts {
    /// The style these counts show: each way the one written more often.
    pub fn style(self) -> Style {
        Style {
            escape_slash: self.slash.1 > self.slash.0,
            escape_non_ascii: self.non_ascii.1 > self.non_ascii.0,
            upper_hex: self.hex_case.1 > self.hex_case.0,
        }
    }
}

/// Reads JSON text from a byte offset on.
#[derive(Debug)]
pub struct Scanner<'a> {
    bytes: &'a [u8],
    /// The offset of the next byte to read.
    pub at: usize,
    /// The ways of writing seen so far.
    pub counts: Counts,
}

impl<'a> Scanner<'a> {
    /// A scanner of `bytes` from `at`.
    pub fn new(bytes: &'a [u8], at: usize) -> Self {
        Scanner {
            bytes,
            at,
            counts: Counts::default(),
        }
    }

    fn error(&self, reason: &'static str) -> JsonError {
        JsonError {
            at: self.at,
            reason,
        }
    }

    /// The next byte after white space, not taken.
    pub fn peek(&mut self) -> Option<u8> {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.bytes.get(self.at) {
            self.at += 1;
        }
        self.bytes.get(self.at).copied()
    }

    fn expect(&mut self, byte: u8, reason: &'static str) -> Result<()> {
        if self.peek() != Some(byte) {
            return Err(self.error(reason));
        }
        self.at += 1;
        Ok(())
    }

    /// The end of the text: nothing but white space may follow.
    pub fn end(&mut self) -> Result<()> {
        match self.peek() {
            None => Ok(()),
            Some(_) => Err(self.error("text after the json value")),
        }
    }

    /// A string, checked: the range of its content, between the quotes.
    pub fn string(&mut self) -> Result<Range<usize>> {
        self.expect(b'"', "expected a string")?;
        let start = self.at;
        loop {
            let Some(&byte) = self.bytes.get(self.at) else {
                return Err(self.error("unterminated string"));
            };
            match byte {
                b'"' => {
                    self.at += 1;
                    return Ok(start..self.at - 1);
                }
                b'\\' => self.escape()?,
                0..=0x1f => return Err(self.error("control character in a string")),
                b'/' => {
                    self.counts.slash.0 += 1;
                    self.at += 1;
                }
                0x80.. => {
                    self.counts.non_ascii.0 += usize::from(byte >= 0xc0);
                    self.at += 1;
                }
                _ => self.at += 1,
            }
        }
    }

    /// One escape sequence at a backslash, checked and counted.
    fn escape(&mut self) -> Result<()> {
        match self.bytes.get(self.at + 1) {
            Some(b'"' | b'\\' | b'b' | b'f' | b'n' | b'r' | b't') => self.at += 2,
            Some(b'/') => {
                self.counts.slash.1 += 1;
                self.at += 2;
            }
            Some(b'u') => {
                let code = hex4(self.bytes, self.at + 2).ok_or(self.error("bad \\u escape"))?;
                let hex = &self.bytes[self.at + 2..self.at + 6];
                self.counts.hex_case.0 += usize::from(hex.iter().any(u8::is_ascii_lowercase));
                self.counts.hex_case.1 += usize::from(hex.iter().any(u8::is_ascii_uppercase));
                // A pair's low half is not counted again.
                let low = (0xdc00..0xe000).contains(&code);
                self.counts.non_ascii.1 += usize::from(code >= 0x80 && !low);
                self.at += 6;
            }
            _ => return Err(self.error("bad escape in a string")),
        }
        Ok(())
    }

    /// Whether the string at `content` (a key) is `name`, escapes read.
    pub fn is(&self, content: &Range<usize>, name: &str) -> bool {
        let raw = &self.bytes[content.clone()];
        if !raw.contains(&b'\\') {
            return raw == name.as_bytes();
        }
        // Escaped keys are short and rare: decoded, at most a little
        // longer than the name.
        raw.len() <= 6 * name.len() && decode(self.bytes, content.clone()).text == name
    }

    /// The text of the string at `content`, escapes read.
    pub fn text(&self, content: &Range<usize>) -> String {
        decode(self.bytes, content.clone()).text
    }

    /// An object, `member` called with each key's content range with the
    /// scanner at its value, which it must read or [`Scanner::skip`].
    pub fn object(
        &mut self,
        mut member: impl FnMut(&mut Self, Range<usize>) -> Result<()>,
    ) -> Result<()> {
        self.expect(b'{', "expected an object")?;
        if self.peek() == Some(b'}') {
            self.at += 1;
            return Ok(());
        }
        loop {
            let key = self.string()?;
            self.expect(b':', "expected ':'")?;
            member(self, key)?;
            match self.peek() {
                Some(b',') => self.at += 1,
                Some(b'}') => {
                    self.at += 1;
                    return Ok(());
                }
                _ => return Err(self.error("expected ',' or '}'")),
            }
        }
    }

    /// An array, `item` called at each of its values, which it must read
    /// or [`Scanner::skip`].
    pub fn array(&mut self, mut item: impl FnMut(&mut Self) -> Result<()>) -> Result<()> {
        self.expect(b'[', "expected an array")?;
        if self.peek() == Some(b']') {
            self.at += 1;
            return Ok(());
        }
        loop {
            item(self)?;
            match self.peek() {
                Some(b',') => self.at += 1,
                Some(b']') => {
                    self.at += 1;
                    return Ok(());
                }
                _ => return Err(self.error("expected ',' or ']'")),
            }
        }
    }

    /// A string, or an array of strings (a notebook's multi-line text):
    /// their content ranges in order; anything else is skipped, `None`.
    pub fn strings(&mut self) -> Result<Option<Vec<Range<usize>>>> {
        match self.peek() {
            Some(b'"') => Ok(Some(vec![self.string()?])),
            Some(b'[') => {
                let mut strings = Some(Vec::new());
                self.array(|s| {
                    if s.peek() == Some(b'"') {
                        let string = s.string()?;
                        if let Some(strings) = &mut strings {
                            strings.push(string);
                        }
                        Ok(())
                    } else {
                        strings = None;
                        s.skip()
                    }
                })?;
                Ok(strings)
            }
            _ => self.skip().map(|()| None),
        }
    }

    /// Any value, checked and passed over: containers by a stack of
    /// their closing bytes, not by recursion.
    pub fn skip(&mut self) -> Result<()> {
        let mut open: Vec<u8> = Vec::new();
        loop {
            match self.peek() {
                Some(b'{') => {
                    self.at += 1;
                    if self.peek() == Some(b'}') {
                        self.at += 1;
                    } else {
                        open.push(b'}');
                        self.string()?;
                        self.expect(b':', "expected ':'")?;
                        continue;
                    }
                }
                Some(b'[') => {
                    self.at += 1;
                    if self.peek() == Some(b']') {
                        self.at += 1;
                    } else {
                        open.push(b']');
                        continue;
                    }
                }
                Some(b'"') => {
                    self.string()?;
                }
                _ => self.scalar()?,
            }
            // After a value: containers closed, or the next member.
            loop {
                let Some(&close) = open.last() else {
                    return Ok(());
                };
                match self.peek() {
                    Some(b',') => {
                        self.at += 1;
                        if close == b'}' {
                            self.string()?;
                            self.expect(b':', "expected ':'")?;
                        }
                        break;
                    }
                    Some(byte) if byte == close => {
                        self.at += 1;
                        open.pop();
                    }
                    _ if close == b'}' => return Err(self.error("expected ',' or '}'")),
                    _ => return Err(self.error("expected ',' or ']'")),
                }
            }
        }
    }

    /// A number or a literal (`true`, `false`, `null`, and Python's `NaN`,
    /// `Infinity`, `-Infinity`).
    fn scalar(&mut self) -> Result<()> {
        let rest = &self.bytes[self.at.min(self.bytes.len())..];
        for word in ["true", "false", "null", "NaN", "Infinity", "-Infinity"] {
            if rest.starts_with(word.as_bytes()) {
                self.at += word.len();
                return Ok(());
            }
        }
        let digits = |s: &Self, from: usize| {
            s.bytes[from.min(s.bytes.len())..]
                .iter()
                .take_while(|b| b.is_ascii_digit())
                .count()
        };
        let mut at = self.at + usize::from(rest.first() == Some(&b'-'));
        let whole = digits(self, at);
        if whole == 0 || (whole > 1 && self.bytes[at] == b'0') {
            return Err(self.error("expected a value"));
        }
        at += whole;
        if self.bytes.get(at) == Some(&b'.') {
            let fraction = digits(self, at + 1);
            if fraction == 0 {
                return Err(JsonError {
                    at,
                    reason: "bad number",
                });
            }
            at += 1 + fraction;
        }
        if let Some(b'e' | b'E') = self.bytes.get(at) {
            at += 1;
            at += usize::from(matches!(self.bytes.get(at), Some(b'+' | b'-')));
            let exponent = digits(self, at);
            if exponent == 0 {
                return Err(JsonError {
                    at,
                    reason: "bad number",
                });
            }
            at += exponent;
        }
        self.at = at;
        Ok(())
    }
}

/// The four hex digits at `at`, as a number.
fn hex4(bytes: &[u8], at: usize) -> Option<u32> {
    let digits = bytes.get(at..at + 4)?;
    let text = std::str::from_utf8(digits).ok()?;
    if !digits.iter().all(u8::is_ascii_hexdigit) {
        return None;
    }
    u32::from_str_radix(text, 16).ok()
}

/// A string's content decoded, with where its characters were written.
#[derive(Debug, Default)]
pub struct Decoded {
    /// The text.
    pub text: String,
    /// Offsets (text, bytes) at the start and after each escape: between
    /// two, text and bytes run alike. Kept as `u32` (a document is at most
    /// `u32::MAX` bytes): a line-per-string source has a few escapes a line.
    pub marks: Vec<(u32, u32)>,
    /// Offsets in the text of lone surrogates, read as U+FFFD: a change
    /// over one would write what the file did not hold.
    pub lossy: Vec<usize>,
}

/// Decodes the content of a checked string at `content` of `bytes`.
pub fn decode(bytes: &[u8], content: Range<usize>) -> Decoded {
    let mut out = Decoded::default();
    decode_into(bytes, content, &mut out);
    out
}

/// Decodes the content of a checked string at `content` of `bytes` onto
/// the end of `out`.
pub fn decode_into(bytes: &[u8], content: Range<usize>, out: &mut Decoded) {
    let mut at = content.start;
    let mark = |text: usize, at: usize| (text as u32, at as u32);
    out.marks.push(mark(out.text.len(), at));
    while at < content.end {
        let run = memchr::memchr(b'\\', &bytes[at..content.end]).map_or(content.end, |i| at + i);
        // Checked UTF-8 (the file was), so a run of it is text.
        out.text
            .push_str(std::str::from_utf8(&bytes[at..run]).unwrap_or_default());
        at = run;
        if at >= content.end {
            break;
        }
        let (c, len) = escaped(bytes, at);
        if c.is_none() {
            out.lossy.push(out.text.len());
        }
        out.text.push(c.unwrap_or(char::REPLACEMENT_CHARACTER));
        at += len;
        out.marks.push(mark(out.text.len(), at));
    }
}

/// The character an escape at `at` stands for (`None` for a lone
/// surrogate), and its length in bytes.
fn escaped(bytes: &[u8], at: usize) -> (Option<char>, usize) {
    let simple = match bytes.get(at + 1) {
        Some(b'b') => '\u{8}',
        Some(b'f') => '\u{c}',
        Some(b'n') => '\n',
        Some(b'r') => '\r',
        Some(b't') => '\t',
        Some(b'u') => return unicode(bytes, at),
        Some(&other) => char::from(other),
        None => return (None, 1),
    };
    (Some(simple), 2)
}

/// The character of a `\u` escape at `at`, with a low surrogate's escape
/// after a high one's: a pair.
fn unicode(bytes: &[u8], at: usize) -> (Option<char>, usize) {
    let Some(code) = hex4(bytes, at + 2) else {
        return (None, 2);
    };
    if (0xd800..0xdc00).contains(&code)
        && bytes.get(at + 6..at + 8) == Some(b"\\u")
        && let Some(low) = hex4(bytes, at + 8)
        && (0xdc00..0xe000).contains(&low)
    {
        let pair = 0x10000 + ((code - 0xd800) << 10) + (low - 0xdc00);
        return (char::from_u32(pair), 12);
    }
    (char::from_u32(code), 6)
}

/// Writes `text` as the content of a JSON string in `style`, appended to
/// `out`: `"`, `\` and control characters escaped as Python's encoder
/// escapes them.
pub fn encode_into(text: &str, style: Style, out: &mut String) {
    let unicode = |out: &mut String, unit: u32| {
        let _ = if style.upper_hex {
            write!(out, "\\u{unit:04X}")
        } else {
            write!(out, "\\u{unit:04x}")
        };
    };
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '/' if style.escape_slash => out.push_str("\\/"),
            c if u32::from(c) < 0x20 => unicode(out, u32::from(c)),
            c if u32::from(c) >= 0x80 && style.escape_non_ascii => {
                let mut units = [0u16; 2];
                for unit in c.encode_utf16(&mut units) {
                    unicode(out, u32::from(*unit));
                }
            }
            c => out.push(c),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn encode(text: &str, style: Style) -> String {
        let mut out = String::new();
        encode_into(text, style, &mut out);
        out
    }

    fn scan(json: &str) -> Result<Counts> {
        let mut s = Scanner::new(json.as_bytes(), 0);
        s.skip()?;
        s.end()?;
        Ok(s.counts)
    }

    #[test]
    fn valid_json_is_taken_and_broken_json_is_placed() {
        for good in [
            r#"{"a": [1, -2.5e+3, true, null, {"b": "c\u00e9\n"}], "d": {}}"#,
            "[]",
            " 0 ",
            r#"[NaN, Infinity, -Infinity, "\ud83d\ude00", "\/"]"#,
        ] {
            assert!(scan(good).is_ok(), "{good}");
        }
        let at = |json: &str| scan(json).unwrap_err();
        assert_eq!(
            at(r#"{"a" 1}"#),
            JsonError {
                at: 5,
                reason: "expected ':'"
            }
        );
        assert_eq!(
            at("[1, 2"),
            JsonError {
                at: 5,
                reason: "expected ',' or ']'"
            }
        );
        assert_eq!(at(r#"{"a": 1,}"#).reason, "expected a string");
        assert_eq!(at(r#"["a"#).reason, "unterminated string");
        assert_eq!(at("[01]").reason, "expected a value");
        assert_eq!(at("[1.]").reason, "bad number");
        assert_eq!(at(r#"["\x"]"#).reason, "bad escape in a string");
        assert_eq!(at(r#"["\u12"]"#).reason, "bad \\u escape");
        assert_eq!(at("[\"a\nb\"]").reason, "control character in a string");
        assert_eq!(at("{} {}").reason, "text after the json value");
        assert_eq!(at("").reason, "expected a value");
    }

    #[test]
    fn deep_nesting_is_skipped_without_recursion() {
        let depth = 1_000_000;
        let json = format!("{}{}", "[".repeat(depth), "]".repeat(depth));
        assert!(scan(&json).is_ok());
        let open = "[{\"a\":".repeat(depth);
        assert_eq!(scan(&open).unwrap_err().reason, "expected a value");
    }

    #[test]
    fn strings_decode_with_a_map_back_to_their_bytes() {
        let json = r#""a\/b\u00e9\ud83d\ude00c\ud800d""#;
        let d = decode(json.as_bytes(), 1..json.len() - 1);
        assert_eq!(d.text, "a/bé😀c\u{fffd}d");
        let (a, b) = (1, 1 + 1);
        assert_eq!(d.marks[0], (0, a));
        assert_eq!(d.marks[1], (2, b + 2)); // after `\/`
        assert_eq!(d.marks[2], (5, b + 3 + 6)); // after `\u00e9`
        assert_eq!(d.marks[3], (9, b + 3 + 6 + 12)); // after the pair
        assert_eq!(d.lossy, [10]);
    }

    #[test]
    fn new_text_is_written_as_the_file_writes_its_strings() {
        let text = "http://a/é/\"q\"\\😀\u{1}";
        assert_eq!(
            encode(text, Style::default()),
            r#"http://a/é/\"q\"\\😀\u0001"#
        );
        let style = Style {
            escape_slash: true,
            escape_non_ascii: true,
            upper_hex: true,
        };
        assert_eq!(
            encode(text, style),
            r#"http:\/\/a\/\u00E9\/\"q\"\\\uD83D\uDE00\u0001"#
        );
        let counts = scan(r#"["\/\/", "/", "\u00e9\u00E9\u00e8", "ü"]"#).unwrap();
        assert_eq!(counts.slash, (1, 2));
        assert_eq!(counts.non_ascii, (1, 3));
        assert_eq!(counts.hex_case, (2, 1));
        assert_eq!(
            counts.style(),
            Style {
                escape_slash: true,
                escape_non_ascii: true,
                upper_hex: false
            }
        );
    }
}
