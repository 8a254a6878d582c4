//! Where tokens go: the [`Sink`] interface, and its adapter to html5ever's sinks.

use std::borrow::Cow;

use html5ever::tendril::StrTendril;
use html5ever::tokenizer::states::RawKind;
use html5ever::tokenizer::{Doctype, Tag, TagKind, Token, TokenSink, TokenSinkResult};
use html5ever::{Attribute, LocalName};

use super::names::{TagId, tag_atom_of};

/// What the tokenizer does after a tag: html5ever's [`TokenSinkResult`], trimmed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Feedback {
    /// Go on in the data state.
    Continue,
    /// Switch to the PLAINTEXT state.
    Plaintext,
    /// Switch to the raw text state of this kind.
    Raw(RawKind),
}

/// A tag token as a [`Sink`] gets it.
#[derive(Debug)]
pub struct TagToken<'t> {
    /// Start or end tag.
    pub kind: TagKind,
    /// The name's id ([`TagId::Other`] for a name not listed).
    pub id: TagId,
    /// For [`TagId::Other`], the name (lower-cased); empty for a listed one (its id's).
    pub name: &'t str,
    /// Whether it ends with `/>`.
    pub self_closing: bool,
    /// Whether an attribute was dropped as a duplicate.
    pub had_duplicate_attributes: bool,
    /// For a sink of html5ever tokens, the attributes as [`Attributes`](super::Attributes) says.
    pub attrs: &'t mut Vec<Attribute>,
    /// For any other sink, the attributes in [`READ_BY_TREE_BUILDER`](super::READ_BY_TREE_BUILDER),
    /// decoded, in source order, duplicates dropped.
    pub read: &'t [(LocalName, Cow<'t, str>)],
    /// The tag's index in the [`SpanLog`](super::SpanLog), if it is logged
    /// (a sink of html5ever's tokens reads it as [`SpanLog::current`](super::SpanLog::current)).
    pub index: Option<usize>,
}

impl TagToken<'_> {
    /// The name's atom.
    pub fn atom(&self) -> LocalName {
        tag_atom_of(self.id, self.name)
    }
}

/// A run of characters as a [`Sink`] gets it.
#[derive(Debug, Clone, Copy)]
pub enum Chars<'t> {
    /// The text, with [`Attributes::All`](super::Attributes::All) for a sink of html5ever tokens.
    Text(&'t str),
    /// Otherwise its stand-in ([`Collapsed`](super::Collapsed)), and whether it is all white space.
    StandIn {
        /// The stand-in.
        text: &'static str,
        /// Whether the run is ASCII white space only.
        space: bool,
    },
}

/// Where the tokenizer hands its tokens: html5ever's [`TokenSink`] without
/// building its tokens when the sink does not want them. Any `TokenSink`
/// is one through [`tokenize`](super::tokenize)'s adapter; relink's tracker
/// is one of its own. Each method gets the token's line (0 unless
/// [`Options::lines`](super::Options::lines)).
pub trait Sink {
    /// Whether the sink takes html5ever tokens, attributes as
    /// [`Attributes`](super::Attributes) says. Otherwise tags carry
    /// [`TagToken::read`], text is a stand-in and comments are empty
    /// ([`Attributes`](super::Attributes) then only says which tags are logged).
    const HTML5EVER: bool;

    /// Whether the sink reads parse errors; without, text references are decoded only as needed.
    const PARSE_ERRORS: bool = true;

    /// A start or end tag; the answer says which state the tokenizer goes on in.
    fn tag(&self, tag: TagToken<'_>, line: u64) -> Feedback;

    /// A run of characters.
    fn characters(&self, chars: Chars<'_>, line: u64);

    /// On the lean path: whether characters (or a NUL) read now may change
    /// anything. With `false` the tokenizer does not gather the run at all (no
    /// stand-in, no [`Sink::characters`]) and, without parse errors, goes to
    /// the next `<` past references and NULs; the answer holds until the next token.
    #[inline]
    fn text_matters(&self) -> bool {
        true
    }

    /// A NUL in the data state or a CDATA section.
    fn null(&self, line: u64);

    /// A comment (empty unless [`Sink::HTML5EVER`]).
    fn comment(&self, text: &str, line: u64);

    /// A DOCTYPE.
    fn doctype(&self, doctype: Doctype, line: u64);

    /// A parse error.
    fn parse_error(&self, message: &'static str, line: u64);

    /// The end of the input.
    fn eof(&self, line: u64);

    /// Called once, after [`Sink::eof`].
    fn end(&self);

    /// Whether the adjusted current node is foreign (only then can CDATA start).
    fn in_foreign_content(&self) -> bool;
}

/// The adapter of any html5ever [`TokenSink`] to [`Sink`], building html5ever's tokens.
pub(super) struct Tokens<S>(pub(super) S);

impl<S: TokenSink> Tokens<S> {
    pub(super) fn send(&self, token: Token, line: u64) -> TokenSinkResult<S::Handle> {
        self.0.process_token(token, line)
    }
}

impl<S: TokenSink> Sink for Tokens<S> {
    const HTML5EVER: bool = true;

    fn tag(&self, tag: TagToken<'_>, line: u64) -> Feedback {
        let token = Token::TagToken(Tag {
            kind: tag.kind,
            name: tag.atom(),
            self_closing: tag.self_closing,
            attrs: std::mem::take(tag.attrs),
            had_duplicate_attributes: tag.had_duplicate_attributes,
        });
        match self.send(token, line) {
            TokenSinkResult::Continue
            | TokenSinkResult::Script(_)
            | TokenSinkResult::EncodingIndicator(_) => Feedback::Continue,
            TokenSinkResult::Plaintext => Feedback::Plaintext,
            TokenSinkResult::RawData(kind) => Feedback::Raw(kind),
        }
    }

    fn characters(&self, chars: Chars<'_>, line: u64) {
        let text = match chars {
            Chars::Text(text) | Chars::StandIn { text, .. } => text,
        };
        // Only tag tokens get an answer other than Continue.
        let _ = self.send(Token::CharacterTokens(StrTendril::from_slice(text)), line);
    }

    fn null(&self, line: u64) {
        let _ = self.send(Token::NullCharacterToken, line);
    }

    fn comment(&self, text: &str, line: u64) {
        let _ = self.send(Token::CommentToken(StrTendril::from_slice(text)), line);
    }

    fn doctype(&self, doctype: Doctype, line: u64) {
        let _ = self.send(Token::DoctypeToken(doctype), line);
    }

    fn parse_error(&self, message: &'static str, line: u64) {
        let _ = self.send(Token::ParseError(Cow::Borrowed(message)), line);
    }

    fn eof(&self, line: u64) {
        let _ = self.send(Token::EOFToken, line);
    }

    fn end(&self) {
        self.0.end();
    }

    fn in_foreign_content(&self) -> bool {
        self.0
            .adjusted_current_node_present_but_not_in_html_namespace()
    }
}
