//! The URLs of a style sheet by relink's own tokenizer, reading CSS Syntax 3
//! tokens (4.3) only as far as URLs need and stepping over the rest, where
//! cssparser builds every token. Property tests (`style.rs`,
//! `tests/relink/css.rs`) hold it to `super::each_url_parsed`; it follows
//! cssparser where that departs from the text (no newline preprocessing, a
//! bad URL ending at a `)` after an escape of `)` or `\`).

use std::borrow::Cow;

use super::{Context, CssQuoting, CssUrl, MAX_CSS_NESTING, unquoted_url_range};

mod skip;

/// What the innermost block not nested too deep says of the tokens read in it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Level {
    context: Context,
    /// Whether the last token was the at-keyword `@import`.
    after_import: bool,
    /// Whether a token other than white space or a comment was read.
    seen_argument: bool,
}

impl Level {
    /// A block or function (`context`) just opened.
    fn open(context: Context) -> Self {
        Level {
            context,
            after_import: false,
            seen_argument: false,
        }
    }

    /// A block gone back to when the one it held ends: that one's bracket was
    /// a token read in it, after which no `@import` stands last.
    fn back(context: Context) -> Self {
        Level {
            context,
            after_import: false,
            seen_argument: true,
        }
    }

    /// Whether tokens that do not matter may be skipped: what they would change
    /// (a string after `@import` or first in `url(` is a URL only if none comes between) is settled.
    fn may_skip(&self) -> bool {
        !self.after_import && (self.context != Context::UrlFunction || self.seen_argument)
    }
}

/// How a block's closing byte is kept: a function taking URLs as a byte
/// no bracket is, so that its context is known again when the block inside it ends.
fn closer_code(close: u8, context: Context) -> u8 {
    match context {
        Context::Plain => close,
        Context::UrlFunction => 0x80,
        Context::ImageSet => 0x81,
    }
}

/// The byte that ends a block kept as `code`, and its context.
fn closer_of(code: u8) -> (u8, Context) {
    match code {
        0x80 => (b')', Context::UrlFunction),
        0x81 => (b')', Context::ImageSet),
        close => (close, Context::Plain),
    }
}

/// The open blocks, innermost last, each as the byte that ends it (one byte
/// a block, however deep), and the [`Level`] of the innermost one not nested
/// past [`MAX_CSS_NESTING`]; deeper ones hold no URL.
struct Blocks {
    closers: Vec<u8>,
    level: Level,
}

impl Blocks {
    fn new() -> Self {
        Blocks {
            closers: Vec::new(),
            level: Level::open(Context::Plain),
        }
    }

    /// The innermost block that is not nested too deep.
    fn level(&mut self) -> &mut Level {
        &mut self.level
    }

    /// Whether the scan is in a block nested too deep.
    fn silent(&self) -> bool {
        self.closers.len() > MAX_CSS_NESTING
    }

    /// Whether tokens that do not matter may be skipped here: always in a block too deep.
    fn may_skip(&self) -> bool {
        self.silent() || self.level.may_skip()
    }

    /// Opens a block or function (`context`) that `close` ends; one nested
    /// too deep leaves the level of the block it is in as it is.
    fn open(&mut self, close: u8, context: Context) {
        if self.closers.len() < MAX_CSS_NESTING {
            self.level = Level::open(context);
        }
        self.closers.push(closer_code(close, context));
    }

    /// Reads the bracket `b` as a token: it opens a block, ends the innermost, or
    /// is a delimiter; false for any other byte. A `(` opens a block: the caller
    /// has ruled out a name before it.
    #[inline(always)]
    fn bracket(&mut self, b: u8) -> bool {
        if let Some(&code) = self.closers.last()
            && closer_of(code).0 == b
        {
            self.closers.pop();
            if self.closers.len() < MAX_CSS_NESTING {
                let outer = self
                    .closers
                    .last()
                    .map_or(Context::Plain, |&c| closer_of(c).1);
                self.level = Level::back(outer);
            }
            return true;
        }
        let close = match b {
            b'(' => b')',
            b'[' => b']',
            b'{' => b'}',
            b')' | b']' | b'}' => 0,
            _ => return false,
        };
        if !self.silent() {
            self.level.after_import = false;
            self.level.seen_argument = true;
        }
        if close != 0 {
            self.open(close, Context::Plain);
        }
        true
    }
}

/// A token that matters, from [`Scanner::token`].
enum Token {
    /// White space or a comment.
    Skip,
    /// A string; `bad` when a newline ended it, `closed` when its quote did.
    String { bad: bool, closed: bool },
    /// `url(` with a URL not in quotes, the whole token read; `bad` for a bad URL.
    UnquotedUrl { bad: bool },
    /// A function (its body is read in this context) or a block.
    Open(Context, u8),
    /// The at-keyword `@import`.
    Import,
    /// Anything else.
    Other,
}

/// CSS white space, as cssparser reads it (no newline preprocessing).
fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r' | b'\x0c')
}

fn is_newline(b: u8) -> bool {
    matches!(b, b'\n' | b'\r' | b'\x0c')
}

/// The bytes of a name: ASCII alphanumerics, `-`, `_`, NUL, and non-ASCII bytes.
static NAME_BYTE: [bool; 256] = {
    let mut table = [false; 256];
    let mut b = 0;
    while b < 256 {
        let byte = b as u8;
        table[b] = byte.is_ascii_alphanumeric()
            || byte == b'-'
            || byte == b'_'
            || byte == 0
            || byte >= 0x80;
        b += 1;
    }
    table
};

/// The bytes of the UTF-8 character that starts with `b`.
fn char_len(b: u8) -> usize {
    match b {
        0xF0.. => 4,
        0xE0.. => 3,
        0xC0.. => 2,
        _ => 1,
    }
}

struct Scanner<'a> {
    css: &'a str,
    bytes: &'a [u8],
    at: usize,
}

impl Scanner<'_> {
    fn byte(&self, at: usize) -> Option<u8> {
        self.bytes.get(at).copied()
    }

    fn newline_at(&self, at: usize) -> bool {
        self.byte(at).is_some_and(is_newline)
    }

    /// Whether an identifier starts at `at` (section 4.3.9).
    fn ident_start(&self, at: usize) -> bool {
        match self.byte(at) {
            Some(b'-') => match self.byte(at + 1) {
                Some(b) if b.is_ascii_alphabetic() || matches!(b, b'-' | b'_' | 0) => true,
                Some(b'\\') => !self.newline_at(at + 1),
                Some(b) => b >= 0x80,
                None => false,
            },
            Some(b) if b.is_ascii_alphabetic() || b == b'_' || b == 0 || b >= 0x80 => true,
            Some(b'\\') => !self.newline_at(at + 1),
            _ => false,
        }
    }

    /// Steps over the escape whose `\` is at `self.at - 1` (4.3.7).
    fn skip_escape(&mut self) {
        match self.byte(self.at) {
            None => {}
            Some(b) if b.is_ascii_hexdigit() => {
                let digits = self.bytes[self.at..].iter().take(6);
                self.at += digits.take_while(|b| b.is_ascii_hexdigit()).count();
                self.skip_one_space();
            }
            Some(b) => self.at = (self.at + char_len(b)).min(self.bytes.len()),
        }
    }

    /// One white space, CR LF counting as one.
    fn skip_one_space(&mut self) {
        if self.bytes[self.at..].starts_with(b"\r\n") {
            self.at += 2;
        } else if self.byte(self.at).is_some_and(is_space) {
            self.at += 1;
        }
    }

    /// Reads a name (section 4.3.12) from `self.at`.
    fn name(&mut self) {
        loop {
            let run = self.bytes[self.at..]
                .iter()
                .take_while(|&&b| NAME_BYTE[usize::from(b)]);
            self.at += run.count();
            if self.byte(self.at) == Some(b'\\') && !self.newline_at(self.at + 1) {
                self.at += 1;
                self.skip_escape();
            } else {
                return;
            }
        }
    }

    /// Whether the name `text` spans is `want` (ASCII, lowercase) in any case,
    /// escapes and NULs read. Each character takes a byte or more, so a name
    /// as long as `want` is it only as it stands, and a shorter one never.
    fn text_is(&self, text: std::ops::Range<usize>, want: &str) -> bool {
        let text = &self.bytes[text];
        if text.len() <= want.len() {
            text.eq_ignore_ascii_case(want.as_bytes())
        } else {
            text.contains(&b'\\') && unescape(text, Some('\u{FFFD}')).eq_ignore_ascii_case(want)
        }
    }

    /// A numeric token (section 4.3.3) from `self.at`, which starts a number.
    fn numeric(&mut self) {
        let digits = |s: &Self, at: usize| {
            s.bytes[at..]
                .iter()
                .take_while(|b| b.is_ascii_digit())
                .count()
        };
        if matches!(self.byte(self.at), Some(b'+' | b'-')) {
            self.at += 1;
        }
        self.at += digits(self, self.at);
        if self.byte(self.at) == Some(b'.')
            && self.byte(self.at + 1).is_some_and(|b| b.is_ascii_digit())
        {
            self.at += 1 + digits(self, self.at + 1);
        }
        if matches!(self.byte(self.at), Some(b'e' | b'E')) {
            let sign = usize::from(matches!(self.byte(self.at + 1), Some(b'+' | b'-')));
            if self
                .byte(self.at + 1 + sign)
                .is_some_and(|b| b.is_ascii_digit())
            {
                self.at += 1 + sign + digits(self, self.at + 1 + sign);
            }
        }
        if self.byte(self.at) == Some(b'%') {
            self.at += 1;
        } else if self.ident_start(self.at) {
            self.name();
        }
    }

    /// An ident-like token (section 4.3.4) from `self.at`.
    fn ident_like(&mut self) -> Token {
        let start = self.at;
        self.name();
        if self.byte(self.at) != Some(b'(') {
            return Token::Other;
        }
        let name = start..self.at;
        self.at += 1;
        // A name with no escape takes URLs only if as long as one that does (`text_is`).
        if !matches!(name.len(), 3 | 9 | 17) && !self.bytes[name.clone()].contains(&b'\\') {
            return Token::Open(Context::Plain, b')');
        }
        let is = |want: &str| self.text_is(name.clone(), want);
        if is("url") {
            let inner = self.bytes[self.at..]
                .iter()
                .take_while(|&&b| is_space(b))
                .count();
            if !matches!(self.byte(self.at + inner), Some(b'"' | b'\'')) {
                self.at += inner;
                return self.unquoted_url();
            }
            return Token::Open(Context::UrlFunction, b')');
        }
        let context = if is("src") {
            Context::UrlFunction
        } else if is("image-set") || is("-webkit-image-set") {
            Context::ImageSet
        } else {
            Context::Plain
        };
        Token::Open(context, b')')
    }

    /// The rest of a URL token (4.3.6) from its first non-white-space character, as cssparser reads it.
    fn unquoted_url(&mut self) -> Token {
        loop {
            // The bytes that are only part of the URL are searched over.
            self.at = skip::url_stop(self.bytes, self.at);
            let Some(b) = self.byte(self.at) else {
                return Token::UnquotedUrl { bad: false };
            };
            self.at += 1;
            match b {
                b')' => return Token::UnquotedUrl { bad: false },
                b if is_space(b) => {
                    self.at += self.bytes[self.at..]
                        .iter()
                        .take_while(|&&b| is_space(b))
                        .count();
                    match self.byte(self.at) {
                        None => return Token::UnquotedUrl { bad: false },
                        Some(b')') => {
                            self.at += 1;
                            return Token::UnquotedUrl { bad: false };
                        }
                        Some(_) => {
                            self.at += 1;
                            return self.bad_url();
                        }
                    }
                }
                b'"' | b'\'' | b'(' | 0x01..=0x08 | 0x0b | 0x0e..=0x1f | 0x7f => {
                    return self.bad_url();
                }
                b'\\' if self.newline_at(self.at) => return self.bad_url(),
                b'\\' => self.skip_escape(),
                _ => {}
            }
        }
    }

    /// The remnants of a bad URL: on to a `)`, stepping over `\)` and `\\`.
    fn bad_url(&mut self) -> Token {
        while let Some(b) = self.byte(self.at) {
            self.at += 1;
            match b {
                b')' => break,
                b'\\' if matches!(self.byte(self.at), Some(b')' | b'\\')) => self.at += 1,
                _ => {}
            }
        }
        Token::UnquotedUrl { bad: true }
    }

    /// A string (section 4.3.5) from its quote at `self.at`.
    fn string(&mut self) -> Token {
        let quote = self.bytes[self.at];
        self.at += 1;
        loop {
            // The bytes that are only part of the string are searched over.
            self.at = skip::string_stop(self.bytes, self.at, quote);
            let Some(b) = self.byte(self.at) else {
                return Token::String {
                    bad: false,
                    closed: false,
                };
            };
            match b {
                b if b == quote => {
                    self.at += 1;
                    return Token::String {
                        bad: false,
                        closed: true,
                    };
                }
                b'\n' | b'\r' | b'\x0c' => {
                    return Token::String {
                        bad: true,
                        closed: false,
                    };
                }
                b'\\' => {
                    self.at += 1;
                    match self.byte(self.at) {
                        None => {}
                        Some(b'\r') if self.byte(self.at + 1) == Some(b'\n') => self.at += 2,
                        Some(b) if is_newline(b) => self.at += 1,
                        Some(_) => self.skip_escape(),
                    }
                }
                _ => self.at += 1,
            }
        }
    }

    /// The next token from `self.at`, neither the end nor a bracket, by its first byte (4.3.1).
    fn token(&mut self) -> Token {
        let b = self.bytes[self.at];
        if b.is_ascii_alphabetic() || b == b'_' || b >= 0x80 {
            // The commonest token, an identifier or function, first.
            return self.ident_like();
        }
        match b {
            b' ' | b'\t' | b'\n' | b'\r' | b'\x0c' => {
                self.at += self.bytes[self.at..]
                    .iter()
                    .take_while(|&&b| is_space(b))
                    .count();
                Token::Skip
            }
            b'/' if self.byte(self.at + 1) == Some(b'*') => {
                let from = self.at + 2;
                self.at = memchr::memmem::find(&self.bytes[from..], b"*/")
                    .map_or(self.bytes.len(), |i| from + i + 2);
                Token::Skip
            }
            b'"' | b'\'' => self.string(),
            b'0'..=b'9' => {
                self.numeric();
                Token::Other
            }
            b'+' | b'-' | b'.' if self.starts_number() => {
                self.numeric();
                Token::Other
            }
            b'-' if self.bytes[self.at..].starts_with(b"-->") => {
                self.at += 3;
                Token::Other
            }
            b'<' if self.bytes[self.at..].starts_with(b"<!--") => {
                self.at += 4;
                Token::Other
            }
            b'@' if self.ident_start(self.at + 1) => {
                self.at += 1;
                let start = self.at;
                self.name();
                if self.text_is(start..self.at, "import") {
                    Token::Import
                } else {
                    Token::Other
                }
            }
            b'#' if self.ident_start(self.at + 1)
                || matches!(self.byte(self.at + 1), Some(b'0'..=b'9' | b'-')) =>
            {
                self.at += 1;
                self.name();
                Token::Other
            }
            _ if self.ident_start(self.at) => self.ident_like(),
            _ => {
                self.at += char_len(b);
                Token::Other
            }
        }
    }

    /// Whether the `+`, `-` or `.` at `self.at` starts a number.
    fn starts_number(&self) -> bool {
        let digit = |at: usize| self.byte(at).is_some_and(|b| b.is_ascii_digit());
        match self.bytes[self.at] {
            b'.' => digit(self.at + 1),
            _ => digit(self.at + 1) || (self.byte(self.at + 1) == Some(b'.') && digit(self.at + 2)),
        }
    }
}

/// Whether `text` holds an escape or NUL, by vector: a `data:` URL may be large.
fn has_escape_or_nul(text: &[u8]) -> bool {
    memchr::memchr2(b'\\', 0, text).is_some()
}

/// The value of a name, string or unquoted URL, escapes resolved (4.3.7), an
/// escaped newline dropped, NUL as U+FFFD; a `\` that ends it gives `at_end`.
fn unescape(text: &[u8], at_end: Option<char>) -> String {
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < text.len() {
        let b = text[i];
        let len = char_len(b);
        match b {
            0 => out.push('\u{FFFD}'),
            b'\\' => {
                i += 1;
                match text.get(i) {
                    None => out.extend(at_end),
                    Some(b'\r') if text.get(i + 1) == Some(&b'\n') => i += 2,
                    Some(&b) if is_newline(b) => i += 1,
                    Some(b) if b.is_ascii_hexdigit() => {
                        let digits = text[i..]
                            .iter()
                            .take(6)
                            .take_while(|b| b.is_ascii_hexdigit());
                        let n = digits.count();
                        let hex = std::str::from_utf8(&text[i..i + n]).unwrap_or("0");
                        let value = u32::from_str_radix(hex, 16).unwrap_or(0);
                        out.push(if value == 0 {
                            '\u{FFFD}'
                        } else {
                            char::from_u32(value).unwrap_or('\u{FFFD}')
                        });
                        i += n;
                        if text[i..].starts_with(b"\r\n") {
                            i += 2;
                        } else if text.get(i).is_some_and(|&b| is_space(b)) {
                            i += 1;
                        }
                    }
                    Some(0) => {
                        out.push('\u{FFFD}');
                        i += 1;
                    }
                    Some(&b) => {
                        let len = char_len(b);
                        out.push_str(&String::from_utf8_lossy(
                            &text[i..(i + len).min(text.len())],
                        ));
                        i += len;
                    }
                }
                continue;
            }
            _ => out.push_str(&String::from_utf8_lossy(
                &text[i..(i + len).min(text.len())],
            )),
        }
        i += len;
    }
    out
}

/// Calls `found` with every URL in `css`: what `super::each_url_parsed` finds,
/// tokens that do not matter skipped (`skip.rs`).
pub(super) fn each_url<'a>(css: &'a str, found: &mut dyn FnMut(CssUrl<'a>)) {
    walk::<true>(css, found);
}

/// [`each_url`] reading every token, which the skipping is held to.
#[cfg(test)]
pub(super) fn each_url_token_by_token<'a>(css: &'a str, found: &mut dyn FnMut(CssUrl<'a>)) {
    walk::<false>(css, found);
}

/// [`each_url`], skipping the tokens that do not matter when `SKIP`.
fn walk<'a, const SKIP: bool>(css: &'a str, found: &mut dyn FnMut(CssUrl<'a>)) {
    let mut s = Scanner {
        css,
        bytes: css.as_bytes(),
        at: 0,
    };
    let mut blocks = Blocks::new();
    // Before this, tokens are read one by one: the escape that stopped a skip is ahead.
    let mut token_by_token_until = 0;
    while s.at < s.bytes.len() {
        if SKIP && s.at >= token_by_token_until && blocks.may_skip() {
            let stop = skip::next_significant(s.bytes, s.at, &mut blocks);
            match s.byte(stop.at) {
                None => break,
                Some(b'\\') => {
                    token_by_token_until = stop.at + 1;
                    s.at = stop.token;
                }
                Some(b'(') => s.at = skip::token_start(s.bytes, stop.token, stop.at),
                Some(_) => s.at = stop.at,
            }
        }
        let start = s.at;
        if blocks.bracket(s.bytes[start]) {
            s.at += 1;
            continue;
        }
        let silent = blocks.silent();
        let level = blocks.level();
        let string_is_url = !silent
            && (level.after_import
                || level.context == Context::ImageSet
                || (level.context == Context::UrlFunction && !level.seen_argument));
        let token = s.token();
        if matches!(token, Token::Skip) {
            continue;
        }
        if !silent {
            level.after_import = matches!(token, Token::Import);
            level.seen_argument = true;
        }
        match token {
            Token::String { bad: false, closed } if string_is_url => {
                found(quoted(&s, start, closed));
            }
            Token::UnquotedUrl { bad: false } if !silent => {
                let range = unquoted_url_range(css, start, s.at);
                let text = &s.bytes[range.clone()];
                let value = if has_escape_or_nul(text) {
                    // The escapes are read again from the token's end: escaped white space may end it.
                    Cow::Owned(url_value(css, start, s.at))
                } else {
                    Cow::Borrowed(css.get(range.clone()).unwrap_or_default())
                };
                found(CssUrl {
                    range,
                    value,
                    quoting: CssQuoting::Unquoted,
                });
            }
            Token::Open(context, close) => blocks.open(close, context),
            _ => {}
        }
    }
}

/// The URL of a string token over `start..s.at`, `closed` by its quote or the
/// end; its range ends before a closing quote, even one an escape wrote.
fn quoted<'a>(s: &Scanner<'a>, start: usize, closed: bool) -> CssUrl<'a> {
    let end = s.at;
    let quote = s.bytes[start];
    let close = if end > start + 1 && s.bytes[end - 1] == quote {
        end - 1
    } else {
        end
    };
    let contents = start + 1..if closed { end - 1 } else { end };
    let text = &s.bytes[contents.clone()];
    let value = if has_escape_or_nul(text) {
        Cow::Owned(unescape(text, None))
    } else {
        Cow::Borrowed(s.css.get(contents).unwrap_or_default())
    };
    CssUrl {
        range: start + 1..close,
        value,
        quoting: CssQuoting::Quoted(char::from(quote)),
    }
}

/// The value of the unquoted URL token over `start..end` (escapes in it), from
/// its first non-white-space character after `(` to what ends it.
fn url_value(css: &str, start: usize, end: usize) -> String {
    let bytes = &css.as_bytes()[..end];
    let open = start
        + bytes[start..]
            .iter()
            .position(|&b| b == b'(')
            .map_or(0, |i| i + 1);
    let from = open + bytes[open..].iter().take_while(|&&b| is_space(b)).count();
    let mut s = Scanner {
        css,
        bytes,
        at: from,
    };
    while let Some(b) = s.byte(s.at) {
        if is_space(b) || b == b')' {
            break;
        }
        s.at += 1;
        if b == b'\\' {
            s.skip_escape();
        }
    }
    unescape(&bytes[from..s.at], Some('\u{FFFD}'))
}
