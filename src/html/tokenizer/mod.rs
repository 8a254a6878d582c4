//! relink's own HTML tokenizer (WHATWG HTML §13.2.5) over a whole decoded
//! document, recording where each tag and attribute lies in the source, which
//! html5ever's does not. It emits html5ever's tokens to any [`TokenSink`]
//! ([`tokenize`]), or its own to the tracker ([`tokenize_into`]), logging a
//! [`TagSpan`] for each tag in a [`SpanLog`] just before the sink gets it.
//!
//! With [`Attributes::TreeBuilder`], tokens carry only what the tree
//! builder's decisions depend on (text as a stand-in, [`Collapsed`]; empty
//! comments; the attributes it reads), and the tree is the same (the tests
//! compare). Duplicate attributes take amortised constant time, so no input
//! takes more than linear time. Where html5ever departs from the standard in
//! a way a tree shows, this follows html5ever: a NUL in CDATA is a
//! [`Token::NullCharacterToken`](html5ever::tokenizer::Token::NullCharacterToken),
//! and parse errors come where it emits them (its tree builder forgets a
//! pending "ignore the next line feed" on any token).

mod attributes;
mod charref;
mod names;
mod sink;
mod spans;
mod states;
mod text;

use std::borrow::Cow;
use std::collections::HashSet;
use std::ops::Range;

use html5ever::tendril::StrTendril;
use html5ever::tokenizer::states::RawKind;
use html5ever::tokenizer::{Doctype, TagKind, TokenSink};
use html5ever::{Attribute, LocalName};

pub(super) use self::attributes::given_name;
use self::attributes::{CurrentAttr, SeenNames};
#[cfg_attr(not(feature = "_internal"), allow(unused_imports))]
pub use self::names::READ_BY_TREE_BUILDER;
pub use self::names::TagId;
pub(crate) use self::names::tag;
use self::names::tag_atom;
use self::sink::Tokens;
pub use self::sink::{Chars, Feedback, Sink, TagToken};
use self::spans::offset;
pub use self::spans::{AttrSpan, SpanLog, TagSpan};
use self::states::State;
use self::text::{Collapsed, Text, is_tree_space};

/// The state the tokenizer starts in: data for documents, others for fragments and tests.
#[cfg_attr(not(feature = "_internal"), allow(dead_code))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum InitialState {
    /// The data state.
    #[default]
    Data,
    /// The PLAINTEXT state.
    Plaintext,
    /// The RCDATA state.
    Rcdata,
    /// The RAWTEXT state.
    Rawtext,
    /// The script data state.
    ScriptData,
    /// The CDATA section state.
    CdataSection,
}

/// Which attributes tag tokens carry; every attribute's span is logged either way.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Attributes {
    /// Every attribute, as html5ever's tokenizer gives them.
    #[default]
    All,
    /// Only what html5ever's tree builder reads, only tags that can hold a link
    /// logged ([`crate::html::links::may_hold_url`], `style`): the attributes in
    /// [`READ_BY_TREE_BUILDER`], and one stand-in for the others of a formatting
    /// element. No other name is interned, as `string_cache` takes quadratic time.
    TreeBuilder,
    /// As [`Attributes::TreeBuilder`], logging every start tag with attributes (run-time names).
    TreeBuilderAnyAttribute,
    /// As [`Attributes::TreeBuilder`], for a WAT file: also the tags whose
    /// attributes its reader reads (`html`'s language, `meta`'s names, the
    /// links it lists that the table does not rewrite) and `title` start tags.
    TreeBuilderHead,
    /// As [`Attributes::TreeBuilderHead`], logging every start tag with
    /// attributes: for a WAT file with names the user added to the table.
    TreeBuilderHeadAnyAttribute,
}

impl Attributes {
    /// Whether a parse finds landmarks: for WAT files and the tests' reference parse.
    pub fn finds_landmarks(self) -> bool {
        matches!(
            self,
            Attributes::All | Attributes::TreeBuilderHead | Attributes::TreeBuilderHeadAnyAttribute
        )
    }
}

/// How the tokenizer starts.
#[derive(Debug, Clone)]
pub struct Options {
    /// Skip a leading U+FEFF (spans stay offsets into the whole input); html5ever's default.
    pub discard_bom: bool,
    /// The state to start in.
    pub initial_state: InitialState,
    /// The last start tag's name, for "appropriate end tag" checks from a raw text state.
    pub last_start_tag: Option<String>,
    /// Which attributes tag tokens carry.
    pub attributes: Attributes,
    /// On the lean path with html5ever's tokens: whether a formatting element
    /// carries the stand-in for its other attributes, which its tree builder compares.
    pub formatting_stand_in: bool,
    /// Whether tokens carry their line (html5ever's tree builder reads it); else all are on line 0.
    pub lines: bool,
    /// Whether runs of script and RAWTEXT are tested for `<meta` as they
    /// are read, into [`SpanLog::meta`]: for a document a late `<meta>`
    /// may still change ([`crate::encoding::HtmlSniff::Unsettled`]).
    pub watch_meta: bool,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            discard_bom: true,
            initial_state: InitialState::Data,
            last_start_tag: None,
            attributes: Attributes::All,
            formatting_stand_in: true,
            lines: true,
            watch_meta: false,
        }
    }
}

/// How an attribute's value was written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Quote {
    /// Between double quotes.
    Double,
    /// Between single quotes.
    Single,
    /// Without quotes.
    Unquoted,
    /// No value at all (`<input disabled>`): an empty value span at the name's end.
    Valueless,
}

/// Tokenizes `input` into `sink`, logging tag spans in `log`; the sink after `end`.
pub fn tokenize<S: TokenSink>(input: &str, sink: S, log: &SpanLog, options: Options) -> S {
    Tokenizer::new(input, Tokens(sink), log, options).run().0
}

/// [`tokenize`] into a [`Sink`] of relink's own.
pub fn tokenize_into<S: Sink>(input: &str, sink: S, log: &SpanLog, options: Options) -> S {
    Tokenizer::new(input, sink, log, options).run()
}

/// A DOCTYPE being read.
#[derive(Debug, Default)]
struct CurrentDoctype {
    name: Option<String>,
    public_id: Option<String>,
    system_id: Option<String>,
    force_quirks: bool,
}

/// The tokenizer: see the module documentation.
pub struct Tokenizer<'a, S: Sink> {
    input: &'a str,
    bytes: &'a [u8],
    pos: usize,
    state: State,
    sink: S,
    log: &'a SpanLog,
    line: u64,
    line_pos: usize,
    /// Characters not yet emitted.
    pending: Text,
    /// With [`Attributes::TreeBuilder`], what stands for them instead.
    collapsed: Collapsed,

    tag_kind: TagKind,
    tag_start: usize,
    /// The tag's name, unless `tag_name_source` holds it.
    tag_name: String,
    /// Where the tag's name lies in the source when read at once, and so not copied.
    tag_name_source: Option<Range<usize>>,
    /// With `tag_name_source`, the name's id, found as it was read.
    tag_id: TagId,
    self_closing: bool,
    had_duplicate: bool,
    attrs: Vec<Attribute>,
    attr_spans: Vec<AttrSpan>,
    attr_names: HashSet<LocalName>,
    /// The attribute being read, when `in_attr`; its buffers are reused.
    attr: CurrentAttr,
    in_attr: bool,
    /// Whether tags carry only what a tree builder reads, with text stand-ins and empty comments.
    lean: bool,
    /// Whether every tag is logged ([`Attributes::All`]).
    log_all: bool,
    /// Whether any start tag with attributes is logged ([`Attributes::TreeBuilderAnyAttribute`]).
    log_any_attribute: bool,
    /// Whether `title` start tags and those whose attributes a WAT file's
    /// reader reads are logged ([`Attributes::TreeBuilderHead`]).
    log_title: bool,
    /// Whether the current tag has an attribute that makes it logged.
    log_tag: bool,
    /// For a sink of relink's own: the tag's attributes in [`READ_BY_TREE_BUILDER`].
    read: Vec<(LocalName, Cow<'a, str>)>,
    formatting_stand_in: bool,
    lines: bool,
    /// On the lean path: whether the tag starts a formatting element, once asked.
    formatting: Option<bool>,
    /// With [`Attributes::TreeBuilder`]: the names of the tag's attributes.
    seen: SeenNames,
    /// On the lean path, a formatting element's attributes left out of its token, in `dropped_text`.
    dropped: Vec<(Range<usize>, Range<usize>)>,
    dropped_text: String,

    comment: Text,
    doctype: CurrentDoctype,
    /// Where the temporary buffer (ASCII letters of the source) starts; it ends here.
    temp_start: usize,
    last_start_tag: Option<LocalName>,
    /// Stops at `<` before a run is searched sparsely ([`states::SPARSE_AFTER`]; tests vary it).
    sparse_after: usize,
    /// See [`Options::watch_meta`].
    watch_meta: bool,
}

impl<'a, S: Sink> Tokenizer<'a, S> {
    /// A tokenizer of `input` into `sink`, logging tag spans in `log`.
    pub fn new(input: &'a str, sink: S, log: &'a SpanLog, options: Options) -> Self {
        let pos = if options.discard_bom && input.starts_with('\u{feff}') {
            '\u{feff}'.len_utf8()
        } else {
            0
        };
        let state = match options.initial_state {
            InitialState::Data => State::Data,
            InitialState::Plaintext => State::Plaintext,
            InitialState::Rcdata => State::Rcdata,
            InitialState::Rawtext => State::Rawtext,
            InitialState::ScriptData => State::ScriptData,
            InitialState::CdataSection => State::CdataSection,
        };
        Tokenizer {
            input,
            bytes: input.as_bytes(),
            pos,
            state,
            sink,
            log,
            line: 1,
            line_pos: 0,
            pending: Text::default(),
            collapsed: Collapsed::default(),
            tag_kind: TagKind::StartTag,
            tag_start: 0,
            tag_name: String::new(),
            tag_name_source: None,
            tag_id: TagId::Other,
            self_closing: false,
            had_duplicate: false,
            attrs: Vec::new(),
            attr_spans: Vec::new(),
            attr_names: HashSet::new(),
            attr: CurrentAttr {
                name: String::new(),
                name_is_source: false,
                name_span: 0..0,
                value: Text::default(),
                value_span: 0..0,
                quote: Quote::Valueless,
            },
            in_attr: false,
            lean: !S::HTML5EVER || options.attributes != Attributes::All,
            log_all: options.attributes == Attributes::All,
            log_any_attribute: matches!(
                options.attributes,
                Attributes::TreeBuilderAnyAttribute | Attributes::TreeBuilderHeadAnyAttribute
            ),
            log_title: matches!(
                options.attributes,
                Attributes::TreeBuilderHead | Attributes::TreeBuilderHeadAnyAttribute
            ),
            log_tag: false,
            read: Vec::new(),
            formatting_stand_in: options.formatting_stand_in,
            lines: options.lines,
            formatting: None,
            seen: SeenNames::default(),
            dropped: Vec::new(),
            dropped_text: String::new(),
            comment: Text::default(),
            doctype: CurrentDoctype::default(),
            temp_start: 0,
            last_start_tag: options.last_start_tag.map(|s| LocalName::from(s.as_str())),
            sparse_after: states::SPARSE_AFTER,
            watch_meta: options.watch_meta,
        }
    }

    /// Tokenizes the whole input, calls the sink's `end`, and returns the sink.
    pub fn run(mut self) -> S {
        while let states::Flow::Go = self.step() {}
        self.sink.end();
        self.sink
    }

    /// A copy of the source `input[from..to]` (no CR in it), which the tree sink drops at once.
    fn source(&self, from: usize, to: usize) -> StrTendril {
        StrTendril::from_slice(&self.input[from..to])
    }

    fn text_tendril(&self, text: &Text) -> StrTendril {
        if text.owned {
            StrTendril::from_slice(&text.buf)
        } else {
            self.source(text.start, text.end)
        }
    }

    /// The line the tokenizer is on (CRLF and lone CR one break, as after preprocessing).
    fn line(&mut self) -> u64 {
        // A reconsumed character moves back over text already counted.
        if self.pos <= self.line_pos {
            return self.line;
        }
        let seen = &self.bytes[self.line_pos..self.pos];
        for i in memchr::memchr2_iter(b'\n', b'\r', seen) {
            if seen[i] == b'\n' || seen.get(i + 1) != Some(&b'\n') {
                self.line += 1;
            }
        }
        // A CR at the end pairs with an LF not yet seen: leave it.
        self.line_pos = if seen.last() == Some(&b'\r') {
            self.line -= 1;
            self.pos - 1
        } else {
            self.pos
        };
        self.line
    }

    /// The line number of the next token.
    fn sink_line(&mut self) -> u64 {
        if self.lines { self.line() } else { 0 }
    }

    /// Emits the pending characters, if any.
    #[inline]
    fn flush(&mut self) {
        // On the lean path text goes to the stand-in alone.
        if !self.collapsed.is_empty() || (!self.is_lean() && !self.pending.is_empty()) {
            self.flush_some();
        }
    }

    /// [`Tokenizer::flush`] when there are characters to emit.
    fn flush_some(&mut self) {
        if !self.collapsed.is_empty() {
            let chars = Chars::StandIn {
                text: self.collapsed.as_str(),
                space: !self.collapsed.other,
            };
            self.collapsed.clear();
            let line = self.sink_line();
            self.sink.characters(chars, line);
        } else if !self.pending.is_empty() {
            let line = self.sink_line();
            let text = &self.pending;
            let chars = if text.owned {
                Chars::Text(&text.buf)
            } else {
                Chars::Text(&self.input[text.start..text.end])
            };
            self.sink.characters(chars, line);
            let at = self.pos;
            self.pending.clear(at);
        }
    }

    /// Emits a NUL character token, after any pending characters.
    fn emit_null(&mut self) {
        self.flush();
        let line = self.sink_line();
        self.sink.null(line);
    }

    /// Emits the source `input[from..to]` as characters.
    #[inline(always)]
    fn chars(&mut self, from: usize, to: usize) {
        if self.is_lean() {
            if self.stand_in_open() && from < to {
                self.collapsed.push(&self.bytes[from..to], true);
            }
        } else {
            self.pending.push_raw(self.input, from, to);
        }
    }

    /// Whether text pushed now may still change the stand-in, and the sink
    /// wants it ([`Sink::text_matters`]): a run whose stand-in is final, or
    /// that the sink would take and change nothing, is not looked at.
    #[inline(always)]
    fn stand_in_open(&self) -> bool {
        !self.collapsed.other && self.sink.text_matters()
    }

    /// Emits characters that are not the source at this point.
    fn chars_str(&mut self, s: &str) {
        if self.is_lean() {
            if self.stand_in_open() {
                self.collapsed.push(s.as_bytes(), false);
            }
        } else {
            self.pending.push_str(self.input, s);
        }
    }

    /// Emits a parse error.
    fn error(&mut self, message: &'static str) {
        if !S::PARSE_ERRORS {
            return;
        }
        self.flush();
        let line = self.sink_line();
        self.sink.parse_error(message, line);
    }

    fn emit_eof(&mut self) -> states::Flow {
        self.flush();
        let line = self.sink_line();
        self.sink.eof(line);
        states::Flow::Stop
    }

    /// Creates a new tag token whose `<` is at `tag_start`.
    #[inline(always)]
    fn create_tag(&mut self, kind: TagKind) {
        self.tag_kind = kind;
        self.tag_name.clear();
        self.tag_name_source = None;
        self.self_closing = false;
        self.had_duplicate = false;
        self.attr_spans.clear();
        self.seen.clear();
        // Tokens of html5ever carry `attrs`, any other sink's `read`.
        if S::HTML5EVER {
            if !self.attrs.is_empty() {
                self.attrs.clear();
            }
            if !self.attr_names.is_empty() {
                self.attr_names.clear();
            }
            self.dropped.clear();
            self.dropped_text.clear();
        } else if !self.read.is_empty() {
            self.read.clear();
        }
        self.formatting = None;
        self.log_tag = false;
        self.in_attr = false;
    }

    /// Emits the current tag (its `>` just before the position) and takes the sink's state.
    fn emit_tag(&mut self) -> states::Flow {
        self.finish_attr();
        if S::HTML5EVER
            && let Some(attr) = self.dropped_attribute()
        {
            self.attrs.push(attr);
        }
        let id = match self.tag_name_source {
            Some(_) => self.tag_id,
            None => TagId::of(self.current_tag_name()),
        };
        if self.tag_kind == TagKind::EndTag {
            // (The spans, as the token may carry only some of them.)
            if !self.attr_spans.is_empty() {
                self.error("Attributes on an end tag");
            }
            if self.self_closing {
                self.error("Self-closing end tag");
            }
        }
        self.flush();
        // On the lean path only tags that can hold a link are logged (and a WAT head's `title`).
        let logged = self.log_all
            || (self.tag_kind == TagKind::StartTag
                && (self.log_tag || (self.log_title && id == tag!("title"))))
            || id == tag!("style");
        let index = if !logged {
            self.attr_spans.clear();
            None
        } else {
            let mut all = self.log.attrs.borrow_mut();
            let first = all.len();
            all.append(&mut self.attr_spans);
            let mut tags = self.log.tags.borrow_mut();
            tags.push(TagSpan::new(
                self.tag_kind,
                (offset(self.tag_start), offset(self.pos)),
                (offset(first), offset(all.len())),
            ));
            Some(tags.len() - 1)
        };
        let line = self.sink_line();
        // A listed name is its id's; another as `current_tag_name` gives it,
        // borrowing only its own fields.
        let input = self.input;
        let name = match (id, &self.tag_name_source) {
            (TagId::Other, Some(span)) => &input[span.clone()],
            (TagId::Other, None) => &self.tag_name,
            _ => "",
        };
        let token = TagToken {
            kind: self.tag_kind,
            id,
            name,
            self_closing: self.self_closing,
            had_duplicate_attributes: self.had_duplicate,
            attrs: &mut self.attrs,
            read: &self.read,
            index,
        };
        self.state = State::Data;
        // html5ever's sinks read the index from the log; any other from the token.
        if S::HTML5EVER {
            self.log.current.set(index);
        }
        let result = self.sink.tag(token, line);
        if S::HTML5EVER {
            self.log.current.set(None);
        }
        match result {
            Feedback::Continue => {}
            Feedback::Plaintext => self.state = State::Plaintext,
            Feedback::Raw(kind) => {
                // Only raw text reads the last start tag (an appropriate end
                // tag), and only a start tag switches to it: its name is kept
                // then, not for every start tag.
                if self.tag_kind == TagKind::StartTag {
                    self.last_start_tag = Some(tag_atom(self.current_tag_name()));
                }
                self.state = match kind {
                    RawKind::Rcdata => State::Rcdata,
                    RawKind::Rawtext => State::Rawtext,
                    RawKind::ScriptData => State::ScriptData,
                    RawKind::ScriptDataEscaped(_) => State::ScriptDataEscaped,
                }
            }
        }
        states::Flow::Go
    }

    /// Whether the current tag is an appropriate end tag token.
    fn appropriate_end_tag(&self) -> bool {
        self.tag_kind == TagKind::EndTag
            && self
                .last_start_tag
                .as_ref()
                .is_some_and(|last| **last == *self.current_tag_name())
    }

    fn emit_comment(&mut self) {
        self.flush();
        let line = self.sink_line();
        // No sink looks into a comment on the lean path.
        let text = if self.is_lean() {
            ""
        } else if self.comment.owned {
            &self.comment.buf
        } else {
            &self.input[self.comment.start..self.comment.end]
        };
        self.sink.comment(text, line);
    }

    fn emit_doctype(&mut self) {
        let d = std::mem::take(&mut self.doctype);
        let doctype = Doctype {
            name: d.name.map(|s| StrTendril::from_slice(&s)),
            public_id: d.public_id.map(|s| StrTendril::from_slice(&s)),
            system_id: d.system_id.map(|s| StrTendril::from_slice(&s)),
            force_quirks: d.force_quirks,
        };
        self.flush();
        let line = self.sink_line();
        self.sink.doctype(doctype, line);
    }

    /// Consumes the next character, preprocessed: CRLF or a lone CR is one LF.
    #[inline]
    fn consume(&mut self) -> Option<char> {
        let b = *self.bytes.get(self.pos)?;
        if b < 0x80 {
            self.pos += 1;
            if b == b'\r' {
                if self.bytes.get(self.pos) == Some(&b'\n') {
                    self.pos += 1;
                }
                return Some('\n');
            }
            return Some(b as char);
        }
        let c = self.input[self.pos..].chars().next()?;
        self.pos += c.len_utf8();
        Some(c)
    }

    /// Whether the input here starts with `s`, ASCII case-insensitively.
    fn next_is_ignore_case(&self, s: &str) -> bool {
        self.bytes
            .get(self.pos..self.pos + s.len())
            .is_some_and(|b| b.eq_ignore_ascii_case(s.as_bytes()))
    }
}

/// ASCII white space as the tokenizer knows it (CR is a line feed by now).
fn is_space(c: char) -> bool {
    matches!(c, '\t' | '\n' | '\x0c' | ' ')
}

#[cfg(test)]
mod tests;
