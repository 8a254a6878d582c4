//! The tokenizer's states, WHATWG HTML §13.2.5.1 to §13.2.5.71 (the
//! character reference states are in [`super::charref`]).
//!
//! Each state function consumes what its state consumes and sets the next
//! state; "reconsume" rewinds the position to the character's start. A
//! state that can take a run of characters at once does so.

use html5ever::tokenizer::TagKind;
use memchr::{memchr, memchr2, memchr3};

use super::{Quote, Sink, TagId, Tokenizer, is_space, is_tree_space};
use crate::{encoding, lanes};

/// Whether to keep stepping.
pub(super) enum Flow {
    Go,
    Stop,
}

/// The first `<`, `&` or NUL in `text`: 16 bytes by word (runs are short), then a vector search.
#[inline]
fn find_in_text(text: &[u8]) -> Option<usize> {
    first_by_words::<16>(
        text,
        |word| {
            zero_bytes(word ^ (ONES * u64::from(b'<')))
                | zero_bytes(word ^ (ONES * u64::from(b'&')))
                | zero_bytes(word)
        },
        |b| matches!(b, b'<' | b'&' | 0),
        |rest| memchr3(b'<', b'&', 0, rest),
    )
}

/// The first `<` in `text`: 16 bytes by word (most runs between tags are
/// short), then a vector search for the long runs of prose.
#[inline]
fn find_lt(text: &[u8]) -> Option<usize> {
    let pattern = ONES * u64::from(b'<');
    first_by_words::<16>(
        text,
        |word| zero_bytes(word ^ pattern),
        |b| b == b'<',
        |rest| memchr(b'<', rest),
    )
}

/// The first byte of `hay` that `is` holds of: its first `N` bytes (a
/// multiple of 8) by word, `flags` giving the high bit of each such byte of
/// a word, all with one bound checked when `hay` has them, then `rest`
/// (a vector search) past them; a short `hay` by word, then byte by byte.
#[inline(always)]
fn first_by_words<const N: usize>(
    hay: &[u8],
    flags: impl Fn(u64) -> u64,
    is: impl Fn(u8) -> bool,
    rest: impl FnOnce(&[u8]) -> Option<usize>,
) -> Option<usize> {
    let first = |word: &[u8]| {
        let found = flags(u64::from_le_bytes(word.try_into().unwrap_or_default()));
        (found != 0).then(|| (found.trailing_zeros() / 8) as usize)
    };
    if let Some(head) = hay.first_chunk::<N>() {
        for (k, word) in head.chunks_exact(8).enumerate() {
            if let Some(i) = first(word) {
                return Some(8 * k + i);
            }
        }
        return rest(&hay[N..]).map(|i| N + i);
    }
    let mut at = 0;
    while let Some(word) = hay.get(at..at + 8) {
        if let Some(i) = first(word) {
            return Some(at + i);
        }
        at += 8;
    }
    hay[at..].iter().position(|&b| is(b)).map(|i| at + i)
}

/// A one in every byte of a word.
const ONES: u64 = 0x0101_0101_0101_0101;
/// The high bit of every byte of a word.
const HIGHS: u64 = 0x8080_8080_8080_8080;

/// The high bit of each zero byte of `x` (a borrow may flag bytes above the
/// lowest zero one): the lowest flagged byte is the first zero byte.
#[inline(always)]
fn zero_bytes(x: u64) -> u64 {
    x.wrapping_sub(ONES) & !x & HIGHS
}

/// The first `needle` in `hay`: 32 bytes by word, cheaper than setting up
/// `memchr`, then it.
#[inline]
fn find_byte(hay: &[u8], needle: u8) -> Option<usize> {
    let pattern = ONES * u64::from(needle);
    // A zero byte of the difference is a `needle`.
    first_by_words::<32>(
        hay,
        |word| zero_bytes(word ^ pattern),
        |b| b == needle,
        |rest| memchr(needle, rest),
    )
}

/// For each byte, what it is in a tag: whether it ends a tag name
/// ([`TAG_NAME`]) or an attribute name ([`ATTR_NAME`], also `=`), whether
/// it is white space ([`SPACE`]), and whether it is upper case or NUL
/// ([`ODD`]), which a name read as its source cannot hold: one load a byte.
static ENDS_NAME: [u8; 256] = {
    let mut table = [0; 256];
    let mut b = 0;
    while b < 256 {
        let byte = b as u8;
        if matches!(byte, b'\t' | b'\n' | b'\x0c' | b'\r' | b' ') {
            table[b] = TAG_NAME | ATTR_NAME | SPACE;
        } else if matches!(byte, b'/' | b'>') {
            table[b] = TAG_NAME | ATTR_NAME;
        } else if byte == 0 || byte.is_ascii_uppercase() {
            table[b] = TAG_NAME | ATTR_NAME | ODD;
        } else if byte == b'=' {
            table[b] = ATTR_NAME;
        }
        b += 1;
    }
    table
};
const TAG_NAME: u8 = 1;
const ATTR_NAME: u8 = 2;
const SPACE: u8 = 4;
const ODD: u8 = 8;

/// What [`ENDS_NAME`] says of `b`.
#[inline(always)]
fn class(b: u8) -> u8 {
    ENDS_NAME[usize::from(b)]
}

/// Where a name from `start` ends: the first byte whose class has a bit of
/// `ends`, or the end of `bytes`. Eight bytes are taken at once and tested
/// one by one, without a bound to check between them.
#[inline(always)]
fn name_end(bytes: &[u8], start: usize, ends: u8) -> usize {
    let mut at = start;
    while let Some(chunk) = bytes.get(at..).and_then(<[u8]>::first_chunk::<8>) {
        if let Some(i) = chunk.iter().position(|&b| class(b) & ends != 0) {
            return at + i;
        }
        at += 8;
    }
    let rest = bytes.get(at..).unwrap_or_default();
    at + rest
        .iter()
        .position(|&b| class(b) & ends != 0)
        .unwrap_or(rest.len())
}

/// Whether a `&` in text followed by `rest` surely stands for text other
/// than white space: itself, a named reference but `&Tab;` and
/// `&NewLine;`, or a numeric one whose number is not 9, 10, 12, 13 or 32
/// (§13.2.5.80).
#[inline]
fn surely_other(rest: &[u8]) -> bool {
    match rest.first() {
        Some(b'T' | b'N') => false,
        Some(b'#') => numeric_surely_other(&rest[1..]),
        _ => true,
    }
}

/// [`surely_other`] after `&#`, reading digits only while the number may be white space.
fn numeric_surely_other(rest: &[u8]) -> bool {
    let (hex, digits) = match rest.first() {
        Some(b'x' | b'X') => (true, &rest[1..]),
        _ => (false, rest),
    };
    let mut value: u32 = 0;
    let mut any = false;
    for &b in digits {
        let digit = if hex {
            char::from(b).to_digit(16)
        } else {
            b.is_ascii_digit().then(|| u32::from(b - b'0'))
        };
        let Some(digit) = digit else {
            break;
        };
        value = value * if hex { 16 } else { 10 } + digit;
        if value > 32 {
            return true;
        }
        any = true;
    }
    !any || !matches!(value, 9 | 10 | 12 | 13 | 32)
}

/// The tokenizer states; the raw text "less-than sign", "end tag open" and
/// "end tag name" states share functions, told apart by [`Raw`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum State {
    Data,
    Rcdata,
    Rawtext,
    ScriptData,
    Plaintext,
    TagName,
    RawLessThan(Raw),
    RawEndTagOpen(Raw),
    RawEndTagName(Raw),
    ScriptDataEscapeStart,
    ScriptDataEscapeStartDash,
    ScriptDataEscaped,
    ScriptDataEscapedDash,
    ScriptDataEscapedDashDash,
    ScriptDataDoubleEscapeStart,
    ScriptDataDoubleEscaped,
    ScriptDataDoubleEscapedDash,
    ScriptDataDoubleEscapedDashDash,
    ScriptDataDoubleEscapedLessThan,
    ScriptDataDoubleEscapeEnd,
    BeforeAttrName,
    AttrName,
    AfterAttrName,
    BeforeAttrValue,
    AttrValueDouble,
    AttrValueSingle,
    AttrValueUnquoted,
    AfterAttrValueQuoted,
    SelfClosingStartTag,
    BogusComment,
    MarkupDeclarationOpen,
    CommentStart,
    CommentStartDash,
    Comment,
    CommentLessThan,
    CommentLessThanBang,
    CommentLessThanBangDash,
    CommentLessThanBangDashDash,
    CommentEndDash,
    CommentEnd,
    CommentEndBang,
    Doctype,
    BeforeDoctypeName,
    DoctypeName,
    AfterDoctypeName,
    AfterDoctypeKeyword(Id),
    BeforeDoctypeId(Id),
    DoctypeIdQuoted(Id, u8),
    AfterDoctypeId(Id),
    BetweenDoctypeIds,
    BogusDoctype,
    CdataSection,
    CdataSectionBracket,
    CdataSectionEnd,
}

/// The text states whose end tags need care.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Raw {
    Rcdata,
    Rawtext,
    ScriptData,
    ScriptDataEscaped,
}

impl Raw {
    /// The state text of this kind is read in.
    fn state(self) -> State {
        match self {
            Raw::Rcdata => State::Rcdata,
            Raw::Rawtext => State::Rawtext,
            Raw::ScriptData => State::ScriptData,
            Raw::ScriptDataEscaped => State::ScriptDataEscaped,
        }
    }
}

/// Which DOCTYPE identifier.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Id {
    Public,
    System,
}

const REPLACEMENT: &str = "\u{fffd}";

/// How many stops at a `<` that stays text, within [`SPARSE_SPAN`] bytes, a
/// run of RAWTEXT or script data makes before [`Tokenizer::sparse_run_end`]
/// takes over: it costs more a byte, so only runs dense with `<` take it.
pub(super) const SPARSE_AFTER: usize = 32;

/// See [`SPARSE_AFTER`]: a `<` every 64 bytes or closer.
const SPARSE_SPAN: usize = 32 * 64;

/// A byte the sparse search tests where nothing is to be found: not in UTF-8 nor [`lanes::PAST_END`].
const NEVER: u8 = 0xFE;

impl<S: Sink> Tokenizer<'_, S> {
    pub(super) fn step(&mut self) -> Flow {
        match self.state {
            State::Data => self.data(),
            State::Rcdata => self.rcdata(),
            State::Rawtext => self.rawtext_or_script(State::Rawtext, Raw::Rawtext),
            State::ScriptData => self.rawtext_or_script(State::ScriptData, Raw::ScriptData),
            State::Plaintext => self.plaintext(),
            State::TagName => self.tag_name(),
            State::RawLessThan(raw) => self.raw_less_than(raw),
            State::RawEndTagOpen(raw) => self.raw_end_tag_open(raw),
            State::RawEndTagName(raw) => self.raw_end_tag_name(raw),
            State::ScriptDataEscapeStart => self.script_data_escape_start(),
            State::ScriptDataEscapeStartDash => self.script_data_escape_start_dash(),
            State::ScriptDataEscaped => self.script_data_escaped(),
            State::ScriptDataEscapedDash => self.script_data_escaped_dash(),
            State::ScriptDataEscapedDashDash => self.script_data_escaped_dash_dash(),
            State::ScriptDataDoubleEscapeStart => self.script_data_double_escape_start(),
            State::ScriptDataDoubleEscaped => self.script_data_double_escaped(),
            State::ScriptDataDoubleEscapedDash => self.script_data_double_escaped_dash(),
            State::ScriptDataDoubleEscapedDashDash => self.script_data_double_escaped_dash_dash(),
            State::ScriptDataDoubleEscapedLessThan => self.script_data_double_escaped_less_than(),
            State::ScriptDataDoubleEscapeEnd => self.script_data_double_escape_end(),
            State::BeforeAttrName => self.before_attribute_name(),
            State::AttrName => self.attribute_name(),
            State::AfterAttrName => self.after_attribute_name(),
            State::BeforeAttrValue => self.before_attribute_value(),
            State::AttrValueDouble => self.attribute_value_quoted(b'"'),
            State::AttrValueSingle => self.attribute_value_quoted(b'\''),
            State::AttrValueUnquoted => self.attribute_value_unquoted(),
            State::AfterAttrValueQuoted => self.after_attribute_value_quoted(),
            State::SelfClosingStartTag => self.self_closing_start_tag(),
            State::BogusComment => self.bogus_comment(),
            State::MarkupDeclarationOpen => self.markup_declaration_open(),
            State::CommentStart => self.comment_start(),
            State::CommentStartDash => self.comment_start_dash(),
            State::Comment => self.comment(),
            State::CommentLessThan => self.comment_less_than(),
            State::CommentLessThanBang => self.comment_less_than_bang(),
            State::CommentLessThanBangDash => self.comment_less_than_bang_dash(),
            State::CommentLessThanBangDashDash => self.comment_less_than_bang_dash_dash(),
            State::CommentEndDash => self.comment_end_dash(),
            State::CommentEnd => self.comment_end(),
            State::CommentEndBang => self.comment_end_bang(),
            State::Doctype => self.doctype(),
            State::BeforeDoctypeName => self.before_doctype_name(),
            State::DoctypeName => self.doctype_name(),
            State::AfterDoctypeName => self.after_doctype_name(),
            State::AfterDoctypeKeyword(id) => self.after_doctype_keyword(id),
            State::BeforeDoctypeId(id) => self.before_doctype_id(id),
            State::DoctypeIdQuoted(id, quote) => self.doctype_id_quoted(id, quote),
            State::AfterDoctypeId(id) => self.after_doctype_id(id),
            State::BetweenDoctypeIds => self.between_doctype_ids(),
            State::BogusDoctype => self.bogus_doctype(),
            State::CdataSection => self.cdata_section(),
            State::CdataSectionBracket => self.cdata_section_bracket(),
            State::CdataSectionEnd => self.cdata_section_end(),
        }
    }

    /// §13.2.5.1 Data state, for as long as the tokenizer stays in it: after
    /// a tag its text is read here, not through [`Tokenizer::step`]'s dispatch.
    fn data(&mut self) -> Flow {
        loop {
            if let Flow::Stop = self.data_once() {
                return Flow::Stop;
            }
            if self.state != State::Data {
                return Flow::Go;
            }
        }
    }

    /// The data state up to its next stop: a tag, a reference or a NUL.
    #[inline(always)]
    fn data_once(&mut self) -> Flow {
        let start = self.pos;
        if !S::PARSE_ERRORS && self.is_lean() && !self.sink.text_matters() {
            return self.data_unread(start);
        }
        let Some(i) = find_in_text(&self.bytes[start..]) else {
            self.chars(start, self.bytes.len());
            self.pos = self.bytes.len();
            return self.emit_eof();
        };
        let at = start + i;
        self.chars(start, at);
        self.pos = at + 1;
        match self.bytes[at] {
            b'<' => {
                self.tag_start = at;
                return self.tag_open();
            }
            b'&' if !S::PARSE_ERRORS && self.is_lean() && surely_other(&self.bytes[self.pos..]) => {
                self.chars(at, at + 1);
            }
            b'&' => self.character_reference(false),
            _ => {
                self.error("Unexpected null character");
                self.emit_null();
            }
        }
        Flow::Go
    }

    /// The data state where the sink takes no text until the next token
    /// ([`Sink::text_matters`]): only a `<` can end it. References and NULs
    /// before it would only be text (a NUL there is ignored in body, as
    /// [`Sink::text_matters`] says of text), so the run is not read.
    fn data_unread(&mut self, start: usize) -> Flow {
        let Some(i) = find_lt(&self.bytes[start..]) else {
            self.pos = self.bytes.len();
            return self.emit_eof();
        };
        let at = start + i;
        self.pos = at + 1;
        self.tag_start = at;
        self.tag_open()
    }

    /// §13.2.5.2 RCDATA state.
    fn rcdata(&mut self) -> Flow {
        let start = self.pos;
        let Some(i) = memchr3(b'<', b'&', 0, &self.bytes[start..]) else {
            self.chars(start, self.bytes.len());
            self.pos = self.bytes.len();
            return self.emit_eof();
        };
        let at = start + i;
        self.chars(start, at);
        self.pos = at + 1;
        match self.bytes[at] {
            b'<' => {
                self.tag_start = at;
                self.state = State::RawLessThan(Raw::Rcdata);
            }
            b'&' => self.character_reference(false),
            _ => self.null_as_replacement(),
        }
        Flow::Go
    }

    /// A NUL in text other than data: a parse error, and U+FFFD.
    fn null_as_replacement(&mut self) {
        self.error("Unexpected null character");
        self.chars_str(REPLACEMENT);
    }

    /// §13.2.5.3 RAWTEXT and §13.2.5.4 Script data states: each `<` or NUL a stop
    /// [`Tokenizer::text_lt`] judges, then [`Tokenizer::sparse_run_end`] past
    /// [`SPARSE_AFTER`] stops that went on.
    fn rawtext_or_script(&mut self, here: State, raw: Raw) -> Flow {
        let start = self.pos;
        let mut from = start;
        let (mut stops, mut mark) = (0, start);
        let at = loop {
            let found = if stops < self.sparse_after {
                let found = memchr2(b'<', 0, &self.bytes[from..]).map(|i| from + i);
                if self.watch_meta {
                    self.watch_stop(found);
                }
                found
            } else if self.watch_meta {
                self.sparse_run_end::<true>(from, raw)
            } else {
                self.sparse_run_end::<false>(from, raw)
            };
            let Some(at) = found else {
                if self.watch_meta {
                    let end = self.bytes.len();
                    self.log.meta.borrow_mut().cover(self.bytes, start..end);
                }
                self.chars(start, self.bytes.len());
                self.pos = self.bytes.len();
                return self.emit_eof();
            };
            match self.text_lt(at, raw) {
                Some(next) => from = next,
                None => break at,
            }
            stops += 1;
            if stops == self.sparse_after && from - mark > SPARSE_SPAN {
                (stops, mark) = (0, from);
            }
        };
        if self.watch_meta {
            self.log.meta.borrow_mut().cover(self.bytes, start..at);
        }
        self.chars(start, at);
        self.pos = at + 1;
        if self.bytes[at] == b'<' {
            self.tag_start = at;
            self.state = State::RawLessThan(raw);
        } else {
            self.null_as_replacement();
            self.state = here;
        }
        Flow::Go
    }

    /// With [`Tokenizer::watch_meta`]: a stop of a raw text run, which may start a `<meta`.
    fn watch_stop(&self, stop: Option<usize>) {
        if let Some(at) = stop.filter(|&at| encoding::is_meta_start(self.bytes, at)) {
            self.log.meta.borrow_mut().saw(at);
        }
    }

    /// Where RAWTEXT or script data goes on as text after the `<` at `at`, when
    /// what follows surely makes it text: not `/` (nor `!` in script), or `</`
    /// without the last start tag's name and an end (§13.2.5.9 to §13.2.5.17).
    /// `None` leaves the `<` to the states. Only without parse errors.
    #[inline(always)]
    fn text_lt(&self, at: usize, raw: Raw) -> Option<usize> {
        if S::PARSE_ERRORS || self.bytes[at] != b'<' {
            return None;
        }
        match self.bytes.get(at + 1)? {
            b'!' if raw == Raw::ScriptData => None,
            b'/' => {
                let name = self.last_start_tag.as_deref().unwrap_or("").as_bytes();
                let rest = &self.bytes[at + 2..];
                let after = rest.get(name.len())?;
                let may_end = rest[..name.len()].eq_ignore_ascii_case(name)
                    && (is_tree_space(*after) || matches!(after, b'/' | b'>'));
                (!may_end && !name.is_empty()).then_some(at + 2)
            }
            _ => Some(at + 1),
        }
    }

    /// Where a raw text run from `from` may end: the first stop where
    /// [`Tokenizer::text_lt`] gives `None` (here `None`: at the end). One pass
    /// ([`lanes::first`]) finds NUL, `<!` in script, and `</` with the last start
    /// tag's first letter. Only without parse errors. With `WATCH` it hands each
    /// `<meta` to [`super::SpanLog::meta`].
    #[inline(never)]
    fn sparse_run_end<const WATCH: bool>(&self, mut from: usize, raw: Raw) -> Option<usize> {
        let bytes = self.bytes;
        if S::PARSE_ERRORS {
            return memchr2(b'<', 0, &bytes[from..]).map(|i| from + i);
        }
        let bang = if raw == Raw::ScriptData { b'!' } else { NEVER };
        let name = self.last_start_tag.as_deref().unwrap_or("").as_bytes();
        let tail = bytes.len().saturating_sub(name.len() + 2);
        // The letter after `</` that may start the end tag; with none, any `</` may.
        let letter = name
            .first()
            .filter(|b| b.is_ascii_alphabetic())
            .map(u8::to_ascii_lowercase);
        let meta = |a: u8, b: u8| WATCH & (a == b'<') & ((b | 0x20) == b'm');
        loop {
            let found = match letter {
                Some(letter) => lanes::first(bytes, from, tail, |a, b, c| {
                    (a == 0)
                        | ((a == b'<') & ((b == bang) | ((b == b'/') & ((c | 0x20) == letter))))
                        | meta(a, b)
                }),
                None => lanes::first(bytes, from, tail, |a, b, _| {
                    (a == 0) | ((a == b'<') & ((b == bang) | (b == b'/'))) | meta(a, b)
                }),
            }
            .or_else(|| {
                lanes::first(bytes, from.max(tail), bytes.len(), |a, b, _| {
                    (a == 0)
                        | ((a == b'<') & ((b == bang) | (b == b'/') | (b == lanes::PAST_END)))
                        | meta(a, b)
                })
            });
            if WATCH {
                self.watch_stop(found);
            }
            match self.text_lt(found?, raw) {
                Some(next) => from = next,
                None => return found,
            }
        }
    }

    /// §13.2.5.5 PLAINTEXT state.
    fn plaintext(&mut self) -> Flow {
        let start = self.pos;
        let Some(i) = memchr(0, &self.bytes[start..]) else {
            self.chars(start, self.bytes.len());
            self.pos = self.bytes.len();
            return self.emit_eof();
        };
        self.chars(start, start + i);
        self.pos = start + i + 1;
        self.null_as_replacement();
        Flow::Go
    }

    /// §13.2.5.6 Tag open state, the `<` just consumed; a start or end tag's
    /// name goes on here (the one call of [`Tokenizer::lean_tag`]), the rest
    /// to [`Tokenizer::tag_open_other`] and [`Tokenizer::end_tag_open`].
    fn tag_open(&mut self) -> Flow {
        let at = self.pos;
        let kind = match self.bytes.get(at) {
            Some(b) if b.is_ascii_alphabetic() => TagKind::StartTag,
            Some(b'/') => {
                self.pos = at + 1;
                match self.bytes.get(at + 1) {
                    Some(b) if b.is_ascii_alphabetic() => TagKind::EndTag,
                    _ => return self.end_tag_open(),
                }
            }
            _ => return self.tag_open_other(),
        };
        self.create_tag(kind);
        if self.is_lean() {
            return self.lean_tag();
        }
        self.state = State::TagName;
        Flow::Go
    }

    /// The tag open state at anything but a letter or `/`.
    fn tag_open_other(&mut self) -> Flow {
        let at = self.pos;
        // Each character with a rule of its own is ASCII.
        match self.bytes.get(at) {
            Some(b'!') => {
                self.pos = at + 1;
                self.state = State::MarkupDeclarationOpen;
            }
            Some(b'?') => {
                // The error is reported past the character, as the states do.
                self.pos = at + 1;
                self.error("Unexpected question mark instead of tag name");
                self.comment.clear(at);
                self.pos = at;
                self.state = State::BogusComment;
            }
            None => {
                self.error("EOF before tag name");
                self.chars(self.tag_start, at);
                return self.emit_eof();
            }
            Some(_) => {
                self.consume();
                self.error("Invalid first character of tag name");
                self.chars(self.tag_start, at);
                self.pos = at;
                self.state = State::Data;
            }
        }
        Flow::Go
    }

    /// §13.2.5.7 End tag open state, the `/` just consumed, at anything but
    /// a letter ([`Tokenizer::tag_open`] reads an end tag's name).
    fn end_tag_open(&mut self) -> Flow {
        let at = self.pos;
        match self.bytes.get(at) {
            Some(b'>') => {
                self.pos = at + 1;
                self.error("Missing end tag name");
                self.state = State::Data;
            }
            None => {
                self.error("EOF before tag name");
                self.chars(self.tag_start, at);
                return self.emit_eof();
            }
            Some(_) => {
                self.consume();
                self.error("Invalid first character of tag name");
                self.comment.clear(at);
                self.pos = at;
                self.state = State::BogusComment;
            }
        }
        Flow::Go
    }

    /// §13.2.5.8 Tag name state.
    fn tag_name(&mut self) -> Flow {
        loop {
            let start = self.pos;
            let run = self.bytes[start..]
                .iter()
                .position(|&b| {
                    matches!(
                        b,
                        b'\t' | b'\n' | b'\x0c' | b'\r' | b' ' | b'/' | b'>' | 0 | b'A'..=b'Z'
                    )
                })
                .unwrap_or(self.bytes.len() - start);
            self.tag_name.push_str(&self.input[start..start + run]);
            self.pos = start + run;
            let Some(&b) = self.bytes.get(self.pos) else {
                self.error("EOF in tag");
                return self.emit_eof();
            };
            self.pos += 1;
            match b {
                b'/' => {
                    self.state = State::SelfClosingStartTag;
                    return Flow::Go;
                }
                b'>' => return self.emit_tag(),
                0 => {
                    self.error("Unexpected null character");
                    self.tag_name.push_str(REPLACEMENT);
                }
                b'A'..=b'Z' => self.tag_name.push(b.to_ascii_lowercase() as char),
                _ => {
                    self.state = State::BeforeAttrName;
                    return Flow::Go;
                }
            }
        }
    }

    /// The tag name state (§13.2.5.8) and attribute states (§13.2.5.32 to .40) at
    /// once when values are not gathered ([`Tokenizer::lean`]), one scan a run;
    /// anything less common goes to the states, in their state and position.
    #[inline(always)]
    fn lean_tag(&mut self) -> Flow {
        let bytes = self.bytes;
        if let Some(flow) = self.lean_tag_name(bytes) {
            return flow;
        }
        loop {
            // Before the attribute name.
            match self.skip_spaces() {
                Some(b'>') => {
                    self.pos += 1;
                    return self.emit_tag();
                }
                Some(b'/') => {
                    self.pos += 1;
                    return self.lean_solidus();
                }
                None | Some(b'=') => return self.resume(State::BeforeAttrName),
                Some(_) => {}
            }
            if let Some(flow) = self.lean_attr_name(bytes) {
                return flow;
            }
            // After the attribute name.
            match self.skip_spaces() {
                Some(b'=') => self.pos += 1,
                Some(b'>') => {
                    self.pos += 1;
                    return self.emit_tag();
                }
                Some(b'/') => {
                    self.pos += 1;
                    return self.lean_solidus();
                }
                None => return self.resume(State::AfterAttrName),
                // Another attribute starts here.
                Some(_) => continue,
            }
            // Before the attribute value.
            let first = self.skip_spaces();
            if let Some(flow) = self.lean_attr_value(bytes, first) {
                return flow;
            }
        }
    }

    /// The tag name of [`Tokenizer::lean_tag`]: `None` when white space ended it.
    /// A name read in one run that white space, `/` or `>` ends is the source
    /// as it is; any other goes to [`Tokenizer::lean_tag_name_copied`].
    #[inline(always)]
    fn lean_tag_name(&mut self, bytes: &[u8]) -> Option<Flow> {
        let start = self.pos;
        let end = name_end(bytes, start, TAG_NAME);
        match bytes.get(end) {
            Some(&b) if class(b) & ODD == 0 => {
                self.tag_name_source = Some(start..end);
                self.tag_id = TagId::of_source(self.input, start, end);
                self.pos = end + 1;
                match b {
                    b'>' => Some(self.emit_tag()),
                    b'/' => Some(self.lean_solidus()),
                    _ => None,
                }
            }
            _ => self.lean_tag_name_copied(bytes),
        }
    }

    /// [`Tokenizer::lean_tag_name`] of a name with upper case or NUL, or at
    /// the end of the input: copied, lowered, a run at a time.
    #[cold]
    #[inline(never)]
    fn lean_tag_name_copied(&mut self, bytes: &[u8]) -> Option<Flow> {
        loop {
            let start = self.pos;
            let run = bytes[start..]
                .iter()
                .position(|&b| class(b) & TAG_NAME != 0)
                .unwrap_or(bytes.len() - start);
            self.pos = start + run;
            self.tag_name.push_str(&self.input[start..self.pos]);
            match bytes.get(self.pos) {
                Some(&b @ b'A'..=b'Z') => {
                    self.tag_name.push(b.to_ascii_lowercase() as char);
                    self.pos += 1;
                }
                Some(b'>') => {
                    self.pos += 1;
                    return Some(self.emit_tag());
                }
                Some(b'/') => {
                    self.pos += 1;
                    return Some(self.lean_solidus());
                }
                Some(&b) if is_tree_space(b) => {
                    self.pos += 1;
                    return None;
                }
                _ => return Some(self.resume(State::TagName)),
            }
        }
    }

    /// An attribute's name in [`Tokenizer::lean_tag`], the attribute started
    /// and its name ended: `None` at its end, else the states go on. A name
    /// read in one run is the source as it is.
    #[inline(always)]
    fn lean_attr_name(&mut self, bytes: &[u8]) -> Option<Flow> {
        let start = self.pos;
        let end = name_end(bytes, start, ATTR_NAME);
        match bytes.get(end) {
            Some(&b) if class(b) & ODD == 0 => {
                // (Finishing the attribute before, where its name starts.)
                self.start_attr_lean(start, end);
                self.pos = end;
                None
            }
            _ => self.lean_attr_name_copied(bytes),
        }
    }

    /// [`Tokenizer::lean_attr_name`] of a name with upper case or NUL, or at
    /// the end of the input: copied, lowered, a run at a time.
    #[cold]
    #[inline(never)]
    fn lean_attr_name_copied(&mut self, bytes: &[u8]) -> Option<Flow> {
        self.start_attr();
        loop {
            let start = self.pos;
            let run = bytes[start..]
                .iter()
                .position(|&b| class(b) != 0)
                .unwrap_or(bytes.len() - start);
            self.pos = start + run;
            self.attr.name.push_str(&self.input[start..self.pos]);
            match bytes.get(self.pos) {
                Some(&b @ b'A'..=b'Z') => {
                    self.attr.name.push(b.to_ascii_lowercase() as char);
                    self.pos += 1;
                }
                Some(0) | None => return Some(self.resume(State::AttrName)),
                Some(_) => {
                    self.end_attr_name();
                    return None;
                }
            }
        }
    }

    /// An attribute's value in [`Tokenizer::lean_tag`], its first byte
    /// `first`: `None` when another may follow.
    #[inline(always)]
    fn lean_attr_value(&mut self, bytes: &[u8], first: Option<u8>) -> Option<Flow> {
        match first {
            Some(quote @ (b'"' | b'\'')) => {
                let kind = if quote == b'"' {
                    Quote::Double
                } else {
                    Quote::Single
                };
                let start = self.pos + 1;
                // Without parse errors the value ends at its quote; `finish_attr_lean` decodes it.
                let end = if S::PARSE_ERRORS {
                    memchr3(quote, b'&', 0, &bytes[start..])
                } else {
                    find_byte(&bytes[start..], quote)
                };
                match end {
                    Some(i) if bytes[start + i] == quote => {
                        self.attr_value_lean(kind, start, start + i);
                        self.pos = start + i + 1;
                    }
                    _ => {
                        self.pos = start;
                        self.start_attr_value(kind);
                        self.pos = end.map_or(start, |i| start + i);
                        let state = if quote == b'"' {
                            State::AttrValueDouble
                        } else {
                            State::AttrValueSingle
                        };
                        return Some(self.resume(state));
                    }
                }
                // After the quoted value.
                match bytes.get(self.pos) {
                    Some(&b) if class(b) & SPACE != 0 => self.pos += 1,
                    Some(b'>') => {
                        self.pos += 1;
                        return Some(self.emit_tag());
                    }
                    Some(b'/') => {
                        self.pos += 1;
                        return Some(self.lean_solidus());
                    }
                    _ => return Some(self.resume(State::AfterAttrValueQuoted)),
                }
            }
            Some(b'>') | None => return Some(self.resume(State::BeforeAttrValue)),
            Some(_) => {
                self.start_attr_value(Quote::Unquoted);
                let start = self.pos;
                let run = if S::PARSE_ERRORS {
                    bytes[start..].iter().position(|&b| {
                        matches!(b, b'\t' | b'\n' | b'\x0c' | b'\r' | b' ' | b'&' | b'>' | 0)
                    })
                } else {
                    bytes[start..]
                        .iter()
                        .position(|&b| matches!(b, b'\t' | b'\n' | b'\x0c' | b'\r' | b' ' | b'>'))
                }
                .unwrap_or(bytes.len() - start);
                self.pos = start + run;
                match bytes.get(self.pos) {
                    Some(b'>') => {
                        self.end_attr_value();
                        self.pos += 1;
                        return Some(self.emit_tag());
                    }
                    Some(&b) if is_tree_space(b) => {
                        self.end_attr_value();
                        self.pos += 1;
                    }
                    _ => return Some(self.resume(State::AttrValueUnquoted)),
                }
            }
        }
        None
    }

    /// [`Tokenizer::lean_tag`] after a `/`: the self-closing start tag state.
    fn lean_solidus(&mut self) -> Flow {
        if self.bytes.get(self.pos) == Some(&b'>') {
            self.pos += 1;
            self.self_closing = true;
            return self.emit_tag();
        }
        self.resume(State::SelfClosingStartTag)
    }

    /// Skips ASCII white space (a CR, alone or before a line feed, is one)
    /// and gives the byte it stops at. Most stops have none to skip, or one.
    #[inline(always)]
    fn skip_spaces(&mut self) -> Option<u8> {
        let b = *self.bytes.get(self.pos)?;
        if class(b) & SPACE == 0 {
            return Some(b);
        }
        let next = *self.bytes.get(self.pos + 1)?;
        if class(next) & SPACE == 0 {
            self.pos += 1;
            return Some(next);
        }
        self.skip_more_spaces()
    }

    /// [`Tokenizer::skip_spaces`] past two white space bytes: mostly a line
    /// break and an indent, whose spaces are passed over a word at a time.
    #[inline(never)]
    fn skip_more_spaces(&mut self) -> Option<u8> {
        let bytes = self.bytes;
        // A local, as a store to `self.pos` a byte costs more.
        let mut at = self.pos;
        loop {
            if let Some(word) = bytes.get(at..).and_then(<[u8]>::first_chunk::<8>) {
                // The bytes other than a space are those left nonzero.
                let others = u64::from_le_bytes(*word) ^ (ONES * u64::from(b' '));
                if others == 0 {
                    at += 8;
                    continue;
                }
                at += (others.trailing_zeros() / 8) as usize;
            }
            match bytes.get(at) {
                Some(&b) if class(b) & SPACE != 0 => at += 1,
                end => {
                    self.pos = at;
                    return end.copied();
                }
            }
        }
    }

    /// Leaves the rest of a tag to `state`, at the current position.
    fn resume(&mut self, state: State) -> Flow {
        self.state = state;
        Flow::Go
    }

    /// The raw text less-than sign states (§13.2.5.9, .12, .15, .23); the `<` is at `tag_start`.
    fn raw_less_than(&mut self, raw: Raw) -> Flow {
        let at = self.pos;
        match self.consume() {
            Some('/') => self.state = State::RawEndTagOpen(raw),
            Some('!') if raw == Raw::ScriptData => {
                self.chars(self.tag_start, self.pos);
                self.state = State::ScriptDataEscapeStart;
            }
            Some(c) if raw == Raw::ScriptDataEscaped && c.is_ascii_alphabetic() => {
                self.chars(self.tag_start, at);
                self.pos = at;
                self.temp_start = at;
                self.state = State::ScriptDataDoubleEscapeStart;
            }
            _ => {
                self.chars(self.tag_start, at);
                self.pos = at;
                self.state = raw.state();
            }
        }
        Flow::Go
    }

    /// The raw text end tag open states (§13.2.5.10, .13, .16, .24).
    fn raw_end_tag_open(&mut self, raw: Raw) -> Flow {
        if self
            .bytes
            .get(self.pos)
            .is_some_and(u8::is_ascii_alphabetic)
        {
            self.create_tag(TagKind::EndTag);
            self.temp_start = self.pos;
            self.state = State::RawEndTagName(raw);
        } else {
            self.chars(self.tag_start, self.pos);
            self.state = raw.state();
        }
        Flow::Go
    }

    /// The raw text end tag name states (§13.2.5.11, .14, .17, .25).
    fn raw_end_tag_name(&mut self, raw: Raw) -> Flow {
        loop {
            let at = self.pos;
            match self.consume() {
                Some(c) if c.is_ascii_alphabetic() => {
                    self.tag_name.push(c.to_ascii_lowercase());
                    continue;
                }
                Some(c) if is_space(c) && self.appropriate_end_tag() => {
                    self.state = State::BeforeAttrName;
                }
                Some('/') if self.appropriate_end_tag() => {
                    self.state = State::SelfClosingStartTag;
                }
                Some('>') if self.appropriate_end_tag() => return self.emit_tag(),
                _ => {
                    // "</" and the temporary buffer: the source up to here.
                    self.chars(self.tag_start, at);
                    self.pos = at;
                    self.state = raw.state();
                }
            }
            return Flow::Go;
        }
    }

    /// §13.2.5.18 Script data escape start state.
    fn script_data_escape_start(&mut self) -> Flow {
        if self.bytes.get(self.pos) == Some(&b'-') {
            self.pos += 1;
            self.chars(self.pos - 1, self.pos);
            self.state = State::ScriptDataEscapeStartDash;
        } else {
            self.state = State::ScriptData;
        }
        Flow::Go
    }

    /// §13.2.5.19 Script data escape start dash state.
    fn script_data_escape_start_dash(&mut self) -> Flow {
        if self.bytes.get(self.pos) == Some(&b'-') {
            self.pos += 1;
            self.chars(self.pos - 1, self.pos);
            self.state = State::ScriptDataEscapedDashDash;
        } else {
            self.state = State::ScriptData;
        }
        Flow::Go
    }

    /// §13.2.5.20 Script data escaped state.
    fn script_data_escaped(&mut self) -> Flow {
        let start = self.pos;
        let Some(i) = memchr3(b'-', b'<', 0, &self.bytes[start..]) else {
            self.chars(start, self.bytes.len());
            self.pos = self.bytes.len();
            self.error("EOF in script");
            return self.emit_eof();
        };
        let at = start + i;
        self.chars(start, at);
        self.pos = at + 1;
        match self.bytes[at] {
            b'-' => {
                self.chars(at, at + 1);
                self.state = State::ScriptDataEscapedDash;
            }
            b'<' => {
                self.tag_start = at;
                self.state = State::RawLessThan(Raw::ScriptDataEscaped);
            }
            _ => self.null_as_replacement(),
        }
        Flow::Go
    }

    /// §13.2.5.21 Script data escaped dash state.
    fn script_data_escaped_dash(&mut self) -> Flow {
        self.escaped_dash(false)
    }

    /// §13.2.5.22 Script data escaped dash dash state.
    fn script_data_escaped_dash_dash(&mut self) -> Flow {
        self.escaped_dash(true)
    }

    /// The script data escaped dash and dash dash states.
    fn escaped_dash(&mut self, dash_dash: bool) -> Flow {
        let at = self.pos;
        match self.consume() {
            Some('-') => {
                self.chars(at, self.pos);
                self.state = State::ScriptDataEscapedDashDash;
            }
            Some('<') => {
                self.tag_start = at;
                self.state = State::RawLessThan(Raw::ScriptDataEscaped);
            }
            Some('>') if dash_dash => {
                self.chars(at, self.pos);
                self.state = State::ScriptData;
            }
            Some('\0') => {
                self.null_as_replacement();
                self.state = State::ScriptDataEscaped;
            }
            Some(_) => {
                self.chars(at, self.pos);
                self.state = State::ScriptDataEscaped;
            }
            None => {
                self.error("EOF in script");
                return self.emit_eof();
            }
        }
        Flow::Go
    }

    /// §13.2.5.26 Script data double escape start state (the buffer from `temp_start`).
    fn script_data_double_escape_start(&mut self) -> Flow {
        self.double_escape_boundary(State::ScriptDataDoubleEscaped, State::ScriptDataEscaped)
    }

    /// §13.2.5.31 Script data double escape end state.
    fn script_data_double_escape_end(&mut self) -> Flow {
        self.double_escape_boundary(State::ScriptDataEscaped, State::ScriptDataDoubleEscaped)
    }

    /// The double escape start and end states: `on_script` if the buffer is "script".
    fn double_escape_boundary(&mut self, on_script: State, otherwise: State) -> Flow {
        let at = self.pos;
        match self.consume() {
            Some(c) if is_space(c) || c == '/' || c == '>' => {
                let is_script = self.bytes[self.temp_start..at].eq_ignore_ascii_case(b"script");
                self.chars(at, self.pos);
                self.state = if is_script { on_script } else { otherwise };
            }
            Some(c) if c.is_ascii_alphabetic() => self.chars(at, self.pos),
            _ => {
                self.pos = at;
                self.state = otherwise;
            }
        }
        Flow::Go
    }

    /// §13.2.5.27 Script data double escaped state.
    fn script_data_double_escaped(&mut self) -> Flow {
        let start = self.pos;
        let Some(i) = memchr3(b'-', b'<', 0, &self.bytes[start..]) else {
            self.chars(start, self.bytes.len());
            self.pos = self.bytes.len();
            self.error("EOF in script");
            return self.emit_eof();
        };
        let at = start + i;
        self.chars(start, at);
        self.pos = at + 1;
        match self.bytes[at] {
            b'-' => {
                self.chars(at, at + 1);
                self.state = State::ScriptDataDoubleEscapedDash;
            }
            b'<' => {
                self.chars(at, at + 1);
                self.state = State::ScriptDataDoubleEscapedLessThan;
            }
            _ => self.null_as_replacement(),
        }
        Flow::Go
    }

    /// §13.2.5.28 Script data double escaped dash state.
    fn script_data_double_escaped_dash(&mut self) -> Flow {
        self.double_escaped_dash(false)
    }

    /// §13.2.5.29 Script data double escaped dash dash state.
    fn script_data_double_escaped_dash_dash(&mut self) -> Flow {
        self.double_escaped_dash(true)
    }

    /// The script data double escaped dash and dash dash states.
    fn double_escaped_dash(&mut self, dash_dash: bool) -> Flow {
        let at = self.pos;
        match self.consume() {
            Some('-') => {
                self.chars(at, self.pos);
                self.state = State::ScriptDataDoubleEscapedDashDash;
            }
            Some('<') => {
                self.chars(at, self.pos);
                self.state = State::ScriptDataDoubleEscapedLessThan;
            }
            Some('>') if dash_dash => {
                self.chars(at, self.pos);
                self.state = State::ScriptData;
            }
            Some('\0') => {
                self.null_as_replacement();
                self.state = State::ScriptDataDoubleEscaped;
            }
            Some(_) => {
                self.chars(at, self.pos);
                self.state = State::ScriptDataDoubleEscaped;
            }
            None => {
                self.error("EOF in script");
                return self.emit_eof();
            }
        }
        Flow::Go
    }

    /// §13.2.5.30 Script data double escaped less-than sign state.
    fn script_data_double_escaped_less_than(&mut self) -> Flow {
        if self.bytes.get(self.pos) == Some(&b'/') {
            self.pos += 1;
            self.chars(self.pos - 1, self.pos);
            self.temp_start = self.pos;
            self.state = State::ScriptDataDoubleEscapeEnd;
        } else {
            self.state = State::ScriptDataDoubleEscaped;
        }
        Flow::Go
    }

    /// §13.2.5.32 Before attribute name state.
    fn before_attribute_name(&mut self) -> Flow {
        loop {
            let at = self.pos;
            match self.consume() {
                Some(c) if is_space(c) => continue,
                Some('/' | '>') | None => {
                    self.pos = at;
                    self.state = State::AfterAttrName;
                }
                Some('=') => {
                    self.error("Unexpected equals sign before attribute name");
                    self.pos = at;
                    self.start_attr();
                    self.pos = at + 1;
                    self.attr.name.push('=');
                    self.state = State::AttrName;
                }
                Some(_) => {
                    self.pos = at;
                    self.start_attr();
                    self.state = State::AttrName;
                }
            }
            return Flow::Go;
        }
    }

    /// §13.2.5.33 Attribute name state.
    fn attribute_name(&mut self) -> Flow {
        let attr = &mut self.attr;
        loop {
            let start = self.pos;
            let run = self.bytes[start..]
                .iter()
                .position(|&b| {
                    matches!(
                        b,
                        b'\t' | b'\n' | b'\x0c' | b'\r' | b' ' | b'/' | b'>' | b'=' | 0 | b'A'
                            ..=b'Z'
                    )
                })
                .unwrap_or(self.bytes.len() - start);
            attr.name.push_str(&self.input[start..start + run]);
            self.pos = start + run;
            match self.bytes.get(self.pos) {
                Some(0) => {
                    attr.name.push_str(REPLACEMENT);
                    self.pos += 1;
                }
                Some(&b @ b'A'..=b'Z') => {
                    attr.name.push(b.to_ascii_lowercase() as char);
                    self.pos += 1;
                }
                Some(b'=') => {
                    self.end_attr_name();
                    self.pos += 1;
                    self.state = State::BeforeAttrValue;
                    return Flow::Go;
                }
                _ => {
                    self.end_attr_name();
                    self.state = State::AfterAttrName;
                    return Flow::Go;
                }
            }
        }
    }

    /// §13.2.5.34 After attribute name state.
    fn after_attribute_name(&mut self) -> Flow {
        loop {
            let at = self.pos;
            match self.consume() {
                Some(c) if is_space(c) => continue,
                Some('/') => self.state = State::SelfClosingStartTag,
                Some('=') => self.state = State::BeforeAttrValue,
                Some('>') => return self.emit_tag(),
                None => {
                    self.error("EOF in tag");
                    return self.emit_eof();
                }
                Some(_) => {
                    self.pos = at;
                    self.start_attr();
                    self.state = State::AttrName;
                }
            }
            return Flow::Go;
        }
    }

    /// §13.2.5.35 Before attribute value state.
    fn before_attribute_value(&mut self) -> Flow {
        loop {
            let at = self.pos;
            match self.consume() {
                Some(c) if is_space(c) => continue,
                Some('"') => {
                    self.start_attr_value(Quote::Double);
                    self.state = State::AttrValueDouble;
                }
                Some('\'') => {
                    self.start_attr_value(Quote::Single);
                    self.state = State::AttrValueSingle;
                }
                Some('>') => {
                    self.error("Missing attribute value");
                    // An empty unquoted value before the `>` (`<a href=>`): where a new value would go.
                    self.pos = at;
                    self.start_attr_value(Quote::Unquoted);
                    self.pos = at + 1;
                    return self.emit_tag();
                }
                _ => {
                    self.pos = at;
                    self.start_attr_value(Quote::Unquoted);
                    self.state = State::AttrValueUnquoted;
                }
            }
            return Flow::Go;
        }
    }

    /// §13.2.5.36 and §13.2.5.37 Attribute value (double- and single-quoted) states.
    fn attribute_value_quoted(&mut self, quote: u8) -> Flow {
        loop {
            let start = self.pos;
            let Some(i) = memchr3(quote, b'&', 0, &self.bytes[start..]) else {
                self.pos = self.bytes.len();
                self.error("EOF in tag");
                return self.emit_eof();
            };
            let at = start + i;
            self.value_raw(start, at);
            self.pos = at + 1;
            match self.bytes[at] {
                b'&' => self.character_reference(true),
                0 => {
                    self.error("Unexpected null character");
                    self.value_str(REPLACEMENT);
                }
                _ => {
                    self.pos = at;
                    self.end_attr_value();
                    self.pos = at + 1;
                    self.state = State::AfterAttrValueQuoted;
                    return Flow::Go;
                }
            }
        }
    }

    /// §13.2.5.38 Attribute value (unquoted) state.
    fn attribute_value_unquoted(&mut self) -> Flow {
        loop {
            let start = self.pos;
            let run = self.bytes[start..]
                .iter()
                .position(|&b| {
                    matches!(b, b'\t' | b'\n' | b'\x0c' | b'\r' | b' ' | b'&' | b'>' | 0)
                })
                .unwrap_or(self.bytes.len() - start);
            let at = start + run;
            self.value_raw(start, at);
            self.pos = at;
            let Some(&b) = self.bytes.get(at) else {
                self.error("EOF in tag");
                return self.emit_eof();
            };
            match b {
                b'&' => {
                    self.pos = at + 1;
                    self.character_reference(true);
                }
                0 => {
                    self.pos = at + 1;
                    self.error("Unexpected null character");
                    self.value_str(REPLACEMENT);
                }
                b'>' => {
                    self.end_attr_value();
                    self.pos = at + 1;
                    return self.emit_tag();
                }
                _ => {
                    self.end_attr_value();
                    self.consume();
                    self.state = State::BeforeAttrName;
                    return Flow::Go;
                }
            }
        }
    }

    /// §13.2.5.39 After attribute value (quoted) state.
    fn after_attribute_value_quoted(&mut self) -> Flow {
        let at = self.pos;
        match self.consume() {
            Some(c) if is_space(c) => self.state = State::BeforeAttrName,
            Some('/') => self.state = State::SelfClosingStartTag,
            Some('>') => return self.emit_tag(),
            None => {
                self.error("EOF in tag");
                return self.emit_eof();
            }
            Some(_) => {
                self.error("Missing whitespace between attributes");
                self.pos = at;
                self.state = State::BeforeAttrName;
            }
        }
        Flow::Go
    }

    /// §13.2.5.40 Self-closing start tag state.
    fn self_closing_start_tag(&mut self) -> Flow {
        let at = self.pos;
        match self.consume() {
            Some('>') => {
                self.self_closing = true;
                return self.emit_tag();
            }
            None => {
                self.error("EOF in tag");
                return self.emit_eof();
            }
            Some(_) => {
                self.error("Unexpected solidus in tag");
                self.pos = at;
                self.state = State::BeforeAttrName;
            }
        }
        Flow::Go
    }

    /// §13.2.5.41 Bogus comment state.
    fn bogus_comment(&mut self) -> Flow {
        let start = self.pos;
        let Some(i) = memchr2(b'>', 0, &self.bytes[start..]) else {
            self.comment.push_raw(self.input, start, self.bytes.len());
            self.pos = self.bytes.len();
            self.emit_comment();
            return self.emit_eof();
        };
        let at = start + i;
        self.comment.push_raw(self.input, start, at);
        self.pos = at + 1;
        if self.bytes[at] == b'>' {
            self.emit_comment();
            self.state = State::Data;
        } else {
            self.error("Unexpected null character");
            self.comment.push_str(self.input, REPLACEMENT);
        }
        Flow::Go
    }

    /// Whether the adjusted current node is foreign, once the text before
    /// is built: text can reopen formatting elements (HTML ones) under a
    /// MathML text integration point, as a tree builder fed each character
    /// as it comes would have done by now.
    fn foreign_after_text(&mut self) -> bool {
        self.flush();
        self.sink.in_foreign_content()
    }

    /// §13.2.5.42 Markup declaration open state.
    fn markup_declaration_open(&mut self) -> Flow {
        if self.bytes[self.pos..].starts_with(b"--") {
            self.pos += 2;
            self.comment.clear(self.pos);
            self.state = State::CommentStart;
        } else if self.next_is_ignore_case("doctype") {
            self.pos += "doctype".len();
            self.state = State::Doctype;
        } else if self.bytes[self.pos..].starts_with(b"[CDATA[") && self.foreign_after_text() {
            self.pos += "[CDATA[".len();
            self.state = State::CdataSection;
        } else {
            self.error("Incorrectly opened comment");
            self.comment.clear(self.pos);
            self.state = State::BogusComment;
        }
        Flow::Go
    }

    /// §13.2.5.43 Comment start state.
    fn comment_start(&mut self) -> Flow {
        match self.bytes.get(self.pos) {
            Some(b'-') => {
                self.pos += 1;
                self.state = State::CommentStartDash;
            }
            Some(b'>') => {
                self.pos += 1;
                self.error("Abrupt closing of empty comment");
                self.emit_comment();
                self.state = State::Data;
            }
            _ => self.state = State::Comment,
        }
        Flow::Go
    }

    /// §13.2.5.44 Comment start dash state.
    fn comment_start_dash(&mut self) -> Flow {
        match self.bytes.get(self.pos) {
            Some(b'-') => {
                self.pos += 1;
                self.state = State::CommentEnd;
            }
            Some(b'>') => {
                self.pos += 1;
                self.error("Abrupt closing of empty comment");
                self.emit_comment();
                self.state = State::Data;
            }
            None => {
                self.error("EOF in comment");
                self.emit_comment();
                return self.emit_eof();
            }
            Some(_) => {
                self.comment.push_raw(self.input, self.pos - 1, self.pos);
                self.state = State::Comment;
            }
        }
        Flow::Go
    }

    /// §13.2.5.45 Comment state.
    fn comment(&mut self) -> Flow {
        let start = self.pos;
        let Some(i) = memchr3(b'<', b'-', 0, &self.bytes[start..]) else {
            self.comment.push_raw(self.input, start, self.bytes.len());
            self.pos = self.bytes.len();
            self.error("EOF in comment");
            self.emit_comment();
            return self.emit_eof();
        };
        let at = start + i;
        self.comment.push_raw(self.input, start, at);
        self.pos = at + 1;
        match self.bytes[at] {
            b'<' => {
                self.comment.push_raw(self.input, at, at + 1);
                self.state = State::CommentLessThan;
            }
            b'-' => self.state = State::CommentEndDash,
            _ => {
                self.error("Unexpected null character");
                self.comment.push_str(self.input, REPLACEMENT);
            }
        }
        Flow::Go
    }

    /// §13.2.5.46 Comment less-than sign state.
    fn comment_less_than(&mut self) -> Flow {
        match self.bytes.get(self.pos) {
            Some(b'!') => {
                self.pos += 1;
                self.comment.push_raw(self.input, self.pos - 1, self.pos);
                self.state = State::CommentLessThanBang;
            }
            Some(b'<') => {
                self.pos += 1;
                self.comment.push_raw(self.input, self.pos - 1, self.pos);
            }
            _ => self.state = State::Comment,
        }
        Flow::Go
    }

    /// §13.2.5.47 Comment less-than sign bang state.
    fn comment_less_than_bang(&mut self) -> Flow {
        if self.bytes.get(self.pos) == Some(&b'-') {
            self.pos += 1;
            self.state = State::CommentLessThanBangDash;
        } else {
            self.state = State::Comment;
        }
        Flow::Go
    }

    /// §13.2.5.48 Comment less-than sign bang dash state.
    fn comment_less_than_bang_dash(&mut self) -> Flow {
        if self.bytes.get(self.pos) == Some(&b'-') {
            self.pos += 1;
            self.state = State::CommentLessThanBangDashDash;
        } else {
            self.state = State::CommentEndDash;
        }
        Flow::Go
    }

    /// §13.2.5.49 Comment less-than sign bang dash dash state.
    fn comment_less_than_bang_dash_dash(&mut self) -> Flow {
        match self.bytes.get(self.pos) {
            Some(b'>') | None => {}
            Some(_) => self.error("Nested comment"),
        }
        self.state = State::CommentEnd;
        Flow::Go
    }

    /// §13.2.5.50 Comment end dash state.
    fn comment_end_dash(&mut self) -> Flow {
        match self.bytes.get(self.pos) {
            Some(b'-') => {
                self.pos += 1;
                self.state = State::CommentEnd;
            }
            None => {
                self.error("EOF in comment");
                self.emit_comment();
                return self.emit_eof();
            }
            Some(_) => {
                self.comment.push_raw(self.input, self.pos - 1, self.pos);
                self.state = State::Comment;
            }
        }
        Flow::Go
    }

    /// §13.2.5.51 Comment end state.
    fn comment_end(&mut self) -> Flow {
        match self.bytes.get(self.pos) {
            Some(b'>') => {
                self.pos += 1;
                self.emit_comment();
                self.state = State::Data;
            }
            Some(b'!') => {
                self.pos += 1;
                self.state = State::CommentEndBang;
            }
            Some(b'-') => {
                self.pos += 1;
                self.comment
                    .push_raw(self.input, self.pos - 3, self.pos - 2);
            }
            None => {
                self.error("EOF in comment");
                self.emit_comment();
                return self.emit_eof();
            }
            Some(_) => {
                self.comment.push_raw(self.input, self.pos - 2, self.pos);
                self.state = State::Comment;
            }
        }
        Flow::Go
    }

    /// §13.2.5.52 Comment end bang state.
    fn comment_end_bang(&mut self) -> Flow {
        match self.bytes.get(self.pos) {
            Some(b'-') => {
                self.comment.push_raw(self.input, self.pos - 3, self.pos);
                self.pos += 1;
                self.state = State::CommentEndDash;
            }
            Some(b'>') => {
                self.pos += 1;
                self.error("Incorrectly closed comment");
                self.emit_comment();
                self.state = State::Data;
            }
            None => {
                self.error("EOF in comment");
                self.emit_comment();
                return self.emit_eof();
            }
            Some(_) => {
                self.comment.push_raw(self.input, self.pos - 3, self.pos);
                self.state = State::Comment;
            }
        }
        Flow::Go
    }

    /// §13.2.5.53 DOCTYPE state.
    fn doctype(&mut self) -> Flow {
        let at = self.pos;
        self.doctype = Default::default();
        match self.consume() {
            Some(c) if is_space(c) => self.state = State::BeforeDoctypeName,
            Some('>') => {
                self.pos = at;
                self.state = State::BeforeDoctypeName;
            }
            None => {
                self.error("EOF in doctype");
                self.doctype.force_quirks = true;
                self.emit_doctype();
                return self.emit_eof();
            }
            Some(_) => {
                self.error("Missing whitespace before doctype name");
                self.pos = at;
                self.state = State::BeforeDoctypeName;
            }
        }
        Flow::Go
    }

    /// §13.2.5.54 Before DOCTYPE name state.
    fn before_doctype_name(&mut self) -> Flow {
        loop {
            match self.consume() {
                Some(c) if is_space(c) => continue,
                Some('\0') => {
                    self.error("Unexpected null character");
                    self.doctype.name = Some(REPLACEMENT.to_owned());
                    self.state = State::DoctypeName;
                }
                Some('>') => {
                    self.error("Missing doctype name");
                    self.doctype.force_quirks = true;
                    self.emit_doctype();
                    self.state = State::Data;
                }
                None => {
                    self.error("EOF in doctype");
                    self.doctype.force_quirks = true;
                    self.emit_doctype();
                    return self.emit_eof();
                }
                Some(c) => {
                    self.doctype.name = Some(c.to_ascii_lowercase().to_string());
                    self.state = State::DoctypeName;
                }
            }
            return Flow::Go;
        }
    }

    /// §13.2.5.55 DOCTYPE name state.
    fn doctype_name(&mut self) -> Flow {
        loop {
            let c = self.consume();
            let name = self.doctype.name.get_or_insert_with(String::new);
            match c {
                Some(c) if is_space(c) => self.state = State::AfterDoctypeName,
                Some('>') => {
                    self.emit_doctype();
                    self.state = State::Data;
                }
                Some('\0') => {
                    name.push_str(REPLACEMENT);
                    continue;
                }
                None => {
                    self.error("EOF in doctype");
                    self.doctype.force_quirks = true;
                    self.emit_doctype();
                    return self.emit_eof();
                }
                Some(c) => {
                    name.push(c.to_ascii_lowercase());
                    continue;
                }
            }
            return Flow::Go;
        }
    }

    /// §13.2.5.56 After DOCTYPE name state.
    fn after_doctype_name(&mut self) -> Flow {
        loop {
            let at = self.pos;
            match self.consume() {
                Some(c) if is_space(c) => continue,
                Some('>') => {
                    self.emit_doctype();
                    self.state = State::Data;
                }
                None => {
                    self.error("EOF in doctype");
                    self.doctype.force_quirks = true;
                    self.emit_doctype();
                    return self.emit_eof();
                }
                Some(_) => {
                    self.pos = at;
                    if self.next_is_ignore_case("public") {
                        self.pos += "public".len();
                        self.state = State::AfterDoctypeKeyword(Id::Public);
                    } else if self.next_is_ignore_case("system") {
                        self.pos += "system".len();
                        self.state = State::AfterDoctypeKeyword(Id::System);
                    } else {
                        self.error("Invalid character sequence after doctype name");
                        self.doctype.force_quirks = true;
                        self.state = State::BogusDoctype;
                    }
                }
            }
            return Flow::Go;
        }
    }

    fn doctype_id(&mut self, id: Id) -> &mut Option<String> {
        match id {
            Id::Public => &mut self.doctype.public_id,
            Id::System => &mut self.doctype.system_id,
        }
    }

    /// §13.2.5.57 and §13.2.5.63 After DOCTYPE public and system keyword states.
    fn after_doctype_keyword(&mut self, id: Id) -> Flow {
        let at = self.pos;
        match self.consume() {
            Some(c) if is_space(c) => self.state = State::BeforeDoctypeId(id),
            Some(q @ ('"' | '\'')) => {
                self.error("Missing whitespace after doctype keyword");
                *self.doctype_id(id) = Some(String::new());
                self.state = State::DoctypeIdQuoted(id, q as u8);
            }
            Some('>') => {
                self.error("Missing doctype identifier");
                self.doctype.force_quirks = true;
                self.emit_doctype();
                self.state = State::Data;
            }
            None => {
                self.error("EOF in doctype");
                self.doctype.force_quirks = true;
                self.emit_doctype();
                return self.emit_eof();
            }
            Some(_) => {
                self.error("Missing quote before doctype identifier");
                self.doctype.force_quirks = true;
                self.pos = at;
                self.state = State::BogusDoctype;
            }
        }
        Flow::Go
    }

    /// §13.2.5.58 and §13.2.5.64 Before DOCTYPE public and system identifier states.
    fn before_doctype_id(&mut self, id: Id) -> Flow {
        loop {
            let at = self.pos;
            match self.consume() {
                Some(c) if is_space(c) => continue,
                Some(q @ ('"' | '\'')) => {
                    *self.doctype_id(id) = Some(String::new());
                    self.state = State::DoctypeIdQuoted(id, q as u8);
                }
                Some('>') => {
                    self.error("Missing doctype identifier");
                    self.doctype.force_quirks = true;
                    self.emit_doctype();
                    self.state = State::Data;
                }
                None => {
                    self.error("EOF in doctype");
                    self.doctype.force_quirks = true;
                    self.emit_doctype();
                    return self.emit_eof();
                }
                Some(_) => {
                    self.error("Missing quote before doctype identifier");
                    self.doctype.force_quirks = true;
                    self.pos = at;
                    self.state = State::BogusDoctype;
                }
            }
            return Flow::Go;
        }
    }

    /// §13.2.5.59, .60, .65 and .66 DOCTYPE public and system identifier (quoted) states.
    fn doctype_id_quoted(&mut self, id: Id, quote: u8) -> Flow {
        loop {
            let c = self.consume();
            match c {
                Some(c) if c == quote as char => self.state = State::AfterDoctypeId(id),
                Some('\0') => {
                    self.doctype_id(id)
                        .get_or_insert_with(String::new)
                        .push_str(REPLACEMENT);
                    continue;
                }
                Some('>') => {
                    self.error("Abrupt doctype identifier");
                    self.doctype.force_quirks = true;
                    self.emit_doctype();
                    self.state = State::Data;
                }
                None => {
                    self.error("EOF in doctype");
                    self.doctype.force_quirks = true;
                    self.emit_doctype();
                    return self.emit_eof();
                }
                Some(c) => {
                    self.doctype_id(id).get_or_insert_with(String::new).push(c);
                    continue;
                }
            }
            return Flow::Go;
        }
    }

    /// §13.2.5.61 and §13.2.5.67 After DOCTYPE public and system identifier states.
    fn after_doctype_id(&mut self, id: Id) -> Flow {
        let at = self.pos;
        match (id, self.consume()) {
            (Id::Public, Some(c)) if is_space(c) => self.state = State::BetweenDoctypeIds,
            (Id::System, Some(c)) if is_space(c) => return Flow::Go,
            (_, Some('>')) => {
                self.emit_doctype();
                self.state = State::Data;
            }
            (Id::Public, Some(q @ ('"' | '\''))) => {
                self.error("Missing whitespace between doctype identifiers");
                self.doctype.system_id = Some(String::new());
                self.state = State::DoctypeIdQuoted(Id::System, q as u8);
            }
            (_, None) => {
                self.error("EOF in doctype");
                self.doctype.force_quirks = true;
                self.emit_doctype();
                return self.emit_eof();
            }
            (Id::Public, Some(_)) => {
                self.error("Missing quote before doctype identifier");
                self.doctype.force_quirks = true;
                self.pos = at;
                self.state = State::BogusDoctype;
            }
            (Id::System, Some(_)) => {
                self.error("Unexpected character after doctype system identifier");
                self.pos = at;
                self.state = State::BogusDoctype;
            }
        }
        Flow::Go
    }

    /// §13.2.5.62 Between DOCTYPE public and system identifiers state.
    fn between_doctype_ids(&mut self) -> Flow {
        loop {
            let at = self.pos;
            match self.consume() {
                Some(c) if is_space(c) => continue,
                Some('>') => {
                    self.emit_doctype();
                    self.state = State::Data;
                }
                Some(q @ ('"' | '\'')) => {
                    self.doctype.system_id = Some(String::new());
                    self.state = State::DoctypeIdQuoted(Id::System, q as u8);
                }
                None => {
                    self.error("EOF in doctype");
                    self.doctype.force_quirks = true;
                    self.emit_doctype();
                    return self.emit_eof();
                }
                Some(_) => {
                    self.error("Missing quote before doctype identifier");
                    self.doctype.force_quirks = true;
                    self.pos = at;
                    self.state = State::BogusDoctype;
                }
            }
            return Flow::Go;
        }
    }

    /// §13.2.5.68 Bogus DOCTYPE state.
    fn bogus_doctype(&mut self) -> Flow {
        match memchr(b'>', &self.bytes[self.pos..]) {
            Some(i) => {
                self.pos += i + 1;
                self.emit_doctype();
                self.state = State::Data;
                Flow::Go
            }
            None => {
                self.pos = self.bytes.len();
                self.emit_doctype();
                self.emit_eof()
            }
        }
    }

    /// §13.2.5.69 CDATA section state; a NUL is a NUL token, as in html5ever.
    fn cdata_section(&mut self) -> Flow {
        let start = self.pos;
        let Some(i) = memchr2(b']', 0, &self.bytes[start..]) else {
            self.chars(start, self.bytes.len());
            self.pos = self.bytes.len();
            self.error("EOF in CDATA section");
            return self.emit_eof();
        };
        let at = start + i;
        self.chars(start, at);
        self.pos = at + 1;
        if self.bytes[at] == b']' {
            self.state = State::CdataSectionBracket;
        } else {
            self.emit_null();
        }
        Flow::Go
    }

    /// §13.2.5.70 CDATA section bracket state.
    fn cdata_section_bracket(&mut self) -> Flow {
        if self.bytes.get(self.pos) == Some(&b']') {
            self.pos += 1;
            self.state = State::CdataSectionEnd;
        } else {
            self.chars(self.pos - 1, self.pos);
            self.state = State::CdataSection;
        }
        Flow::Go
    }

    /// §13.2.5.71 CDATA section end state.
    fn cdata_section_end(&mut self) -> Flow {
        match self.bytes.get(self.pos) {
            Some(b']') => {
                self.pos += 1;
                self.chars(self.pos - 3, self.pos - 2);
            }
            Some(b'>') => {
                self.pos += 1;
                self.state = State::Data;
            }
            _ => {
                self.chars(self.pos - 2, self.pos);
                self.state = State::CdataSection;
            }
        }
        Flow::Go
    }
}

#[cfg(test)]
mod tests {
    use super::{ATTR_NAME, TAG_NAME, find_byte, find_in_text, find_lt, name_end, surely_other};
    use proptest::prelude::*;

    proptest! {
        /// Names end where §13.2.5.8 and §13.2.5.33 leave them (upper case
        /// and NUL stop a name read as its source), wherever in a word.
        #[test]
        fn name_end_finds_the_first_as_a_scan_does(
            hay in proptest::collection::vec(
                prop_oneof![Just(b' '), Just(b'='), Just(b'>'), Just(b'A'), Just(0u8), any::<u8>()],
                0..40,
            ),
            plain in 0usize..20,
            from in 0usize..4,
        ) {
            let mut bytes = vec![b'a'; plain];
            bytes.extend(hay);
            let from = from.min(bytes.len());
            let tag = |b: u8| {
                matches!(b, b'\t' | b'\n' | b'\x0c' | b'\r' | b' ' | b'/' | b'>' | 0)
                    || b.is_ascii_uppercase()
            };
            let scan = |ends: &dyn Fn(u8) -> bool| {
                from + bytes[from..].iter().position(|&b| ends(b)).unwrap_or(bytes.len() - from)
            };
            prop_assert_eq!(name_end(&bytes, from, TAG_NAME), scan(&tag));
            prop_assert_eq!(name_end(&bytes, from, ATTR_NAME), scan(&|b| tag(b) || b == b'='));
        }

        #[test]
        fn find_in_text_finds_the_first_as_a_scan_does(
            text in proptest::collection::vec(
                prop_oneof![Just(b'<'), Just(b'&'), Just(0u8), Just(b'='), Just(0x80u8), any::<u8>()],
                0..80,
            ),
            plain in 0usize..40,
        ) {
            // Plain bytes, then a mix, so the first stop falls in every word and past them.
            let mut hay = vec![b'a'; plain];
            hay.extend(text);
            prop_assert_eq!(
                find_in_text(&hay),
                hay.iter().position(|&b| matches!(b, b'<' | b'&' | 0))
            );
        }

        /// Reading digits only while the number may be white space answers as reading all.
        #[test]
        fn numeric_references_are_read_as_far_as_they_matter(
            hex in any::<bool>(),
            digits in "[0-9a-fA-F]{0,12}",
            after in "[;g ]?",
        ) {
            let rest = format!("{}{digits}{after}", if hex { "x" } else { "" });
            let radix = if hex { 16 } else { 10 };
            let all: Vec<u32> = digits.chars().map_while(|c| c.to_digit(radix)).collect();
            let value = all.iter().fold(0u32, |n, &d| n.saturating_mul(radix).saturating_add(d));
            let want = all.is_empty() || !matches!(value, 9 | 10 | 12 | 13 | 32);
            prop_assert_eq!(super::numeric_surely_other(rest.as_bytes()), want, "{}", rest);
        }

        #[test]
        fn find_lt_finds_the_first_as_a_scan_does(
            text in proptest::collection::vec(prop_oneof![Just(b'<'), any::<u8>()], 0..60),
            plain in 0usize..40,
        ) {
            let mut hay = vec![b'a'; plain];
            hay.extend(text);
            prop_assert_eq!(find_lt(&hay), hay.iter().position(|&b| b == b'<'));
        }

        #[test]
        fn find_byte_finds_the_first_as_a_scan_does(
            hay in proptest::collection::vec(prop_oneof![Just(b'"'), Just(b'\''), any::<u8>()], 0..80),
            needle in prop_oneof![Just(b'"'), Just(b'\''), any::<u8>()],
        ) {
            prop_assert_eq!(find_byte(&hay, needle), hay.iter().position(|&b| b == needle));
        }
    }

    #[test]
    fn a_reference_that_may_be_white_space_is_left_to_the_states() {
        for rest in [
            "#32;", "#x20", "#X0a;", "#0009", "#13", "#12;", "#10", "Tab;", "NewLine;",
        ] {
            assert!(!surely_other(rest.as_bytes()), "{rest}");
        }
        for rest in [
            "#33;",
            "#x21",
            "#;",
            "#x;",
            "#xg",
            "#4294967328;",
            "#0",
            "amp;",
            "",
            " ",
            "#x1F600",
        ] {
            assert!(surely_other(rest.as_bytes()), "{rest}");
        }
    }
}
