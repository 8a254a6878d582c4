//! relink's own HTML tokenizer (WHATWG HTML §13.2.5), over a whole decoded
//! document, recording where each tag and attribute lies in the source.
//!
//! html5ever's tokenizer reports no source positions, and locating its
//! tokens afterwards costs a second lexing of every tag. This tokenizer
//! emits the same html5ever [`Token`]s to any [`TokenSink`] ([`tokenize`];
//! so html5ever's `TreeBuilder` plugs in directly), honours the sink's
//! feedback as html5ever's tokenizer does, and logs a [`TagSpan`] for every
//! tag token in a [`SpanLog`] just before the sink receives the token.
//! Underneath, it hands its tokens to a [`Sink`]: html5ever's token sinks
//! through an adapter that builds html5ever's tokens, and relink's tracker
//! directly ([`tokenize_into`]), without building them.
//!
//! It works on bytes of the `&str`: runs of text are found with `memchr`
//! and handed over as tendrils of their own (short ones held inline); nothing is
//! allocated per character. When attribute values are not gathered, a
//! tag's name and attributes are read at once, each run by one scan,
//! leaving whatever is uncommon to the states.
//!
//! With [`Attributes::TreeBuilder`] (relink's own parse), the tokens carry
//! only what the tree builder's decisions depend on, since relink needs of
//! the tree only each element's namespace, whether it is in template
//! contents and in the tree, and the first `base`: a run of characters is
//! a stand-in of at most four bytes that is white space, or not, where the
//! text is ([`Collapsed`]), a comment is empty, and a tag carries only the
//! attributes the tree builder reads ([`Attributes`]). The tree builder
//! then builds the same elements as from the full tokens (the tests compare
//! both trees), and no text is copied for it. Duplicate attributes are found in constant
//! amortised time (a short scan, then a hash set), so no input takes more
//! than linear time.
//!
//! Where html5ever departs from the letter of the specification in a way a
//! tree can show, this tokenizer does as html5ever does, so that both give
//! the same tree: a NUL in a CDATA section is a [`Token::NullCharacterToken`],
//! and parse errors are emitted at the points where html5ever emits them
//! between tokens (html5ever's tree builder forgets a pending "ignore the
//! next line feed" on any token, parse errors included).

mod charref;
mod states;

use std::borrow::Cow;
use std::cell::{Cell, Ref, RefCell};
use std::collections::HashSet;
use std::ops::Range;

use html5ever::tendril::StrTendril;
use html5ever::tokenizer::states::RawKind;
use html5ever::tokenizer::{Doctype, Tag, TagKind, Token, TokenSink, TokenSinkResult};
use html5ever::{Attribute, LocalName, QualName, local_name, ns};

use self::states::State;

/// The state the tokenizer starts in. Documents start in the data state;
/// the others serve fragment parsing and tests.
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

/// Which attributes tag tokens carry. Every attribute's span is logged
/// either way.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Attributes {
    /// Every attribute, as html5ever's tokenizer gives them.
    #[default]
    All,
    /// Only what html5ever's tree builder (with relink's arena as its sink)
    /// reads, and only the tags that can hold a link logged (start tags
    /// with an attribute whose name may be in the link table,
    /// [`crate::html::links::may_hold_url`], and `style` start and end
    /// tags; [`SpanLog::current`] is `None` for the others): the
    /// attributes named in [`READ_BY_TREE_BUILDER`] with their
    /// values, and, on a start tag of a formatting element, one attribute
    /// with an empty name standing for all the others (see
    /// [`Tokenizer::emit_tag`]). No other name becomes an atom and no other
    /// value a tendril: interning millions of distinct attribute names in
    /// `string_cache`'s global set takes quadratic time, and the tree
    /// builder never compares them.
    TreeBuilder,
    /// As [`Attributes::TreeBuilder`], with every start tag that has
    /// attributes logged: for attribute names added to the link table at
    /// run time.
    TreeBuilderAnyAttribute,
}

/// The attribute names html5ever's tree builder and relink's arena look at:
/// `type` (an `input` of type hidden), `encoding` (an `annotation-xml`
/// integration point), `color`, `face` and `size` (a `font` leaving
/// foreign content), `shadowrootmode` (a declarative shadow root's
/// `template`) and `href` (a `base`). The tree builder also reads `charset`,
/// `http-equiv` and `content` of a `meta`, but only to report an encoding,
/// which the tokenizer ignores, and `form`, only for the sink's form
/// association, which the arena ignores.
#[cfg_attr(not(feature = "_internal"), allow(dead_code))]
pub const READ_BY_TREE_BUILDER: &[&str] = &[
    "type",
    "encoding",
    "color",
    "face",
    "size",
    "shadowrootmode",
    "href",
];

/// The read attribute named `name`, as a (static) atom.
fn read_by_tree_builder(name: &str) -> Option<LocalName> {
    Some(match name {
        "type" => local_name!("type"),
        "encoding" => local_name!("encoding"),
        "color" => local_name!("color"),
        "face" => local_name!("face"),
        "size" => local_name!("size"),
        "shadowrootmode" => local_name!("shadowrootmode"),
        "href" => local_name!("href"),
        _ => return None,
    })
}

/// Whether a start tag of this name makes a formatting element, whose
/// attributes the tree builder compares (the "Noah's Ark" clause of
/// pushing onto the list of active formatting elements).
fn is_formatting(name: &str) -> bool {
    matches!(
        name,
        "a" | "b"
            | "big"
            | "code"
            | "em"
            | "font"
            | "i"
            | "nobr"
            | "s"
            | "small"
            | "strike"
            | "strong"
            | "tt"
            | "u"
    )
}

/// The first eight bytes of a name as a number (little-endian, padded with
/// zeros; a tag name holds no NUL, the tokenizer replaces them).
const fn name_key(name: &[u8]) -> u64 {
    let mut key = 0;
    let mut i = 0;
    while i < name.len() && i < 8 {
        key |= (name[i] as u64) << (8 * i);
        i += 1;
    }
    key
}

/// [`name_key`] of a name of at most eight bytes, by two overlapping loads
/// rather than a byte at a time (the bytes they share are the same).
#[inline]
fn short_name_key(name: &[u8]) -> u64 {
    let n = name.len();
    match n {
        4..=8 => {
            let lo = u32::from_le_bytes([name[0], name[1], name[2], name[3]]);
            let hi = u32::from_le_bytes([name[n - 4], name[n - 3], name[n - 2], name[n - 1]]);
            u64::from(lo) | u64::from(hi) << (8 * (n - 4))
        }
        2..=3 => {
            let lo = u16::from_le_bytes([name[0], name[1]]);
            let hi = u16::from_le_bytes([name[n - 2], name[n - 1]]);
            u64::from(lo) | u64::from(hi) << (8 * (n - 2))
        }
        1 => u64::from(name[0]),
        _ => name_key(name),
    }
}

/// Defines [`short_tag_atom`] over the names given: a `match` on
/// [`name_key`], which the compiler makes a tree of integer comparisons.
macro_rules! short_tag_atoms {
    ($($id:ident = $name:tt,)*) => {
        /// The static atom of a common tag name of at most eight bytes.
        fn short_tag_atom(key: u64) -> Option<LocalName> {
            $(const $id: u64 = name_key($name.as_bytes());)*
            Some(match key {
                $($id => local_name!($name),)*
                _ => return None,
            })
        }

        /// Every name [`short_tag_atom`] knows.
        #[cfg(test)]
        const SHORT_TAG_NAMES: &[&str] = &[$($name),*];
    };
}

short_tag_atoms! {
    A = "a",
    ABBR = "abbr",
    ADDRESS = "address",
    AREA = "area",
    ARTICLE = "article",
    ASIDE = "aside",
    AUDIO = "audio",
    B = "b",
    BASE = "base",
    BDI = "bdi",
    BDO = "bdo",
    BIG = "big",
    BODY = "body",
    BR = "br",
    BUTTON = "button",
    CANVAS = "canvas",
    CAPTION = "caption",
    CENTER = "center",
    CITE = "cite",
    CODE = "code",
    COL = "col",
    COLGROUP = "colgroup",
    DATA = "data",
    DATALIST = "datalist",
    DD = "dd",
    DEL = "del",
    DETAILS = "details",
    DFN = "dfn",
    DIALOG = "dialog",
    DIV = "div",
    DL = "dl",
    DT = "dt",
    EM = "em",
    EMBED = "embed",
    FIELDSET = "fieldset",
    FIGURE = "figure",
    FONT = "font",
    FOOTER = "footer",
    FORM = "form",
    FRAME = "frame",
    FRAMESET = "frameset",
    H1 = "h1",
    H2 = "h2",
    H3 = "h3",
    H4 = "h4",
    H5 = "h5",
    H6 = "h6",
    HEAD = "head",
    HEADER = "header",
    HGROUP = "hgroup",
    HR = "hr",
    HTML = "html",
    I = "i",
    IFRAME = "iframe",
    IMAGE = "image",
    IMG = "img",
    INPUT = "input",
    INS = "ins",
    KBD = "kbd",
    LABEL = "label",
    LEGEND = "legend",
    LI = "li",
    LINK = "link",
    LISTING = "listing",
    MAIN = "main",
    MAP = "map",
    MARK = "mark",
    MENU = "menu",
    META = "meta",
    METER = "meter",
    NAV = "nav",
    NOBR = "nobr",
    NOEMBED = "noembed",
    NOFRAMES = "noframes",
    NOSCRIPT = "noscript",
    OBJECT = "object",
    OL = "ol",
    OPTGROUP = "optgroup",
    OPTION = "option",
    OUTPUT = "output",
    P = "p",
    PARAM = "param",
    PICTURE = "picture",
    PRE = "pre",
    PROGRESS = "progress",
    Q = "q",
    RP = "rp",
    RT = "rt",
    RUBY = "ruby",
    S = "s",
    SAMP = "samp",
    SCRIPT = "script",
    SEARCH = "search",
    SECTION = "section",
    SELECT = "select",
    SLOT = "slot",
    SMALL = "small",
    SOURCE = "source",
    SPAN = "span",
    STRIKE = "strike",
    STRONG = "strong",
    STYLE = "style",
    SUB = "sub",
    SUMMARY = "summary",
    SUP = "sup",
    TABLE = "table",
    TBODY = "tbody",
    TD = "td",
    TEMPLATE = "template",
    TEXTAREA = "textarea",
    TFOOT = "tfoot",
    TH = "th",
    THEAD = "thead",
    TIME = "time",
    TITLE = "title",
    TR = "tr",
    TRACK = "track",
    TT = "tt",
    U = "u",
    UL = "ul",
    VAR = "var",
    VIDEO = "video",
    WBR = "wbr",
    XMP = "xmp",
    SVG = "svg",
    MATH = "math",
    MI = "mi",
    MO = "mo",
    MN = "mn",
    MS = "ms",
    MTEXT = "mtext",
    DESC = "desc",
    G = "g",
    PATH = "path",
    CIRCLE = "circle",
    RECT = "rect",
    LINE = "line",
    POLYGON = "polygon",
    POLYLINE = "polyline",
    ELLIPSE = "ellipse",
    TEXT = "text",
    TSPAN = "tspan",
    USE = "use",
    DEFS = "defs",
    SYMBOL = "symbol",
    CLIPPATH = "clippath",
    STOP = "stop",
}

/// The atom of a tag name. The names of common HTML, SVG and MathML
/// elements are mapped here to their static atoms, which is cheaper than
/// [`LocalName::from`]'s hashing and lookup in the static set (35
/// instructions a tag against 58, measured); the same atoms either way.
fn tag_atom(name: &str) -> LocalName {
    if name.len() <= 8
        && let Some(atom) = short_tag_atom(short_name_key(name.as_bytes()))
    {
        return atom;
    }
    match name {
        "blockquote" => local_name!("blockquote"),
        "figcaption" => local_name!("figcaption"),
        "plaintext" => local_name!("plaintext"),
        "annotation-xml" => local_name!("annotation-xml"),
        "foreignobject" => local_name!("foreignobject"),
        _ => LocalName::from(name),
    }
}

/// How the tokenizer starts.
#[derive(Debug, Clone)]
pub struct Options {
    /// Skip a U+FEFF BYTE ORDER MARK at the start of the input (spans stay
    /// offsets into the whole input). html5ever's default: true.
    pub discard_bom: bool,
    /// The state to start in.
    pub initial_state: InitialState,
    /// The name of the last start tag, for "appropriate end tag" checks
    /// when starting in a raw text state.
    pub last_start_tag: Option<String>,
    /// Which attributes tag tokens carry.
    pub attributes: Attributes,
    /// With [`Attributes::TreeBuilder`] and a sink of html5ever tokens:
    /// whether a formatting element's token carries the attribute standing
    /// for the others (html5ever's tree builder compares them; a sink of
    /// relink's own never gets it).
    pub formatting_stand_in: bool,
    /// Whether tokens carry their line number (html5ever's tree builder
    /// reads it; the tracker does not, and counting lines costs a pass
    /// over the input). Without it every token is on line 0.
    pub lines: bool,
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
    /// No value at all (`<input disabled>`); the value span is empty, at
    /// the end of the name.
    Valueless,
}

/// An offset as stored: documents are at most `u32::MAX` bytes (what
/// html5ever's tendrils hold), and a document has millions of tags, so
/// spans take half the room of `usize` ones.
fn offset(at: usize) -> u32 {
    u32::try_from(at).unwrap_or(u32::MAX)
}

fn range(span: (u32, u32)) -> Range<usize> {
    span.0 as usize..span.1 as usize
}

/// Where one attribute of a tag lies in the source: 16 bytes, as a
/// document may hold millions (how its value was written is read back
/// from the source, [`AttrSpan::quote`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AttrSpan {
    name: (u32, u32),
    value: (u32, u32),
}

impl AttrSpan {
    /// The name, as written (before lowercasing).
    pub fn name(&self) -> Range<usize> {
        range(self.name)
    }

    /// The raw value, without its quotes and before character references
    /// are decoded.
    pub fn value(&self) -> Range<usize> {
        range(self.value)
    }

    /// How the value was written, read from `src`, the source the span is
    /// of: a value that starts where the name ends has none (an `=` lies
    /// between a name and any value); a quoted value follows its quote; an
    /// unquoted one follows `=` or white space, never a quote (a quote
    /// there would have started a quoted value).
    pub fn quote(&self, src: &str) -> Quote {
        if self.value.0 == self.name.1 {
            return Quote::Valueless;
        }
        let before = (self.value.0 as usize).checked_sub(1);
        match before.and_then(|at| src.as_bytes().get(at)) {
            Some(b'"') => Quote::Double,
            Some(b'\'') => Quote::Single,
            _ => Quote::Unquoted,
        }
    }
}

/// The top bit of [`TagSpan`]'s attribute end: set for an end tag (a
/// document of at most `u32::MAX` bytes has fewer than 2^31 attributes).
const END_TAG: u32 = 1 << 31;

/// Where one tag token lies in the source: 16 bytes, as a document may
/// hold millions.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TagSpan {
    span: (u32, u32),
    /// Its attributes' spans in [`SpanLog`]'s flat list; the k-th is the
    /// k-th attribute of the token (duplicates are dropped from both). The
    /// end's top bit says an end tag ([`END_TAG`]).
    attrs: (u32, u32),
}

impl TagSpan {
    fn new(kind: TagKind, span: (u32, u32), attrs: (u32, u32)) -> Self {
        let end = attrs.1.min(END_TAG - 1);
        let flag = if kind == TagKind::EndTag { END_TAG } else { 0 };
        TagSpan {
            span,
            attrs: (attrs.0.min(end), end | flag),
        }
    }

    /// Start or end tag.
    pub fn kind(&self) -> TagKind {
        if self.attrs.1 & END_TAG != 0 {
            TagKind::EndTag
        } else {
            TagKind::StartTag
        }
    }

    /// From its `<` to just after its `>`.
    pub fn span(&self) -> Range<usize> {
        range(self.span)
    }

    /// Where this tag's attributes are in [`SpanLog::into_flat`]'s list.
    pub fn attr_range(&self) -> Range<usize> {
        range((self.attrs.0, self.attrs.1 & !END_TAG))
    }
}

/// The spans of the tag tokens emitted so far, in order.
///
/// The tokenizer logs a tag's span just before handing its token to the
/// sink, so while the sink processes a tag token (and, for a tree builder,
/// while it creates that tag's element), [`SpanLog::current`] is that tag's
/// index; while it processes any other token, `current` is `None`.
#[derive(Debug, Default)]
pub struct SpanLog {
    tags: RefCell<Vec<TagSpan>>,
    attrs: RefCell<Vec<AttrSpan>>,
    current: Cell<Option<usize>>,
}

impl SpanLog {
    /// A log with room for `tags` tag tokens (a document has at most as
    /// many as it has `<`), so that it never grows by copying.
    #[cfg_attr(not(feature = "_internal"), allow(dead_code))]
    pub fn with_capacity(tags: usize) -> Self {
        SpanLog {
            tags: RefCell::new(Vec::with_capacity(tags)),
            ..SpanLog::default()
        }
    }

    /// How many tag tokens have been emitted.
    pub fn len(&self) -> usize {
        self.tags.borrow().len()
    }

    /// Whether no tag token has been emitted.
    #[cfg_attr(not(feature = "_internal"), allow(dead_code))]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The index of the tag token the sink is processing, if it is
    /// processing one.
    pub fn current(&self) -> Option<usize> {
        self.current.get()
    }

    /// The span of tag `index`.
    ///
    /// # Panics
    ///
    /// If no such tag was emitted.
    #[cfg_attr(not(feature = "_internal"), allow(dead_code))]
    pub fn tag(&self, index: usize) -> TagSpan {
        self.tags.borrow()[index].clone()
    }

    /// The spans of tag `index`'s attributes, in the token's order.
    ///
    /// # Panics
    ///
    /// If no such tag was emitted.
    #[cfg_attr(not(feature = "_internal"), allow(dead_code))]
    pub fn attrs(&self, index: usize) -> Ref<'_, [AttrSpan]> {
        let range = self.tags.borrow()[index].attr_range();
        Ref::map(self.attrs.borrow(), |all| &all[range])
    }

    /// Takes the tags logged so far and their attributes, leaving the log
    /// empty: the next tag is tag 0 again, its attributes from 0 (for a
    /// sink that hands a document over in pieces, between tokens).
    pub fn take(&self) -> (Vec<TagSpan>, Vec<AttrSpan>) {
        (self.tags.take(), self.attrs.take())
    }

    /// Every tag span, and every attribute's span in one list (a tag's
    /// are [`TagSpan::attr_range`] of it).
    pub fn into_flat(self) -> (Vec<TagSpan>, Vec<AttrSpan>) {
        (self.tags.into_inner(), self.attrs.into_inner())
    }

    /// Every tag span, and every attribute's span with the tag it is on.
    #[cfg_attr(not(feature = "_internal"), allow(dead_code))]
    pub fn into_parts(self) -> (Vec<TagSpan>, Vec<Vec<AttrSpan>>) {
        let tags = self.tags.into_inner();
        let attrs = self.attrs.into_inner();
        let per_tag = tags
            .iter()
            .map(|t| attrs[t.attr_range()].to_vec())
            .collect();
        (tags, per_tag)
    }
}

/// Tokenizes `input` into `sink`, logging tag spans in `log`, and returns
/// the sink once it has seen the end-of-file token and `end` was called.
pub fn tokenize<S: TokenSink>(input: &str, sink: S, log: &SpanLog, options: Options) -> S {
    Tokenizer::new(input, Tokens(sink), log, options).run().0
}

/// [`tokenize`] into a [`Sink`] of relink's own.
pub fn tokenize_into<S: Sink>(input: &str, sink: S, log: &SpanLog, options: Options) -> S {
    Tokenizer::new(input, sink, log, options).run()
}

/// What the tokenizer does after a tag, as its sink asks: html5ever's
/// [`TokenSinkResult`] without what this tokenizer ignores.
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
    /// The name (lower-cased).
    pub name: LocalName,
    /// Whether it ends with `/>`.
    pub self_closing: bool,
    /// Whether an attribute was dropped as a duplicate.
    pub had_duplicate_attributes: bool,
    /// For a sink of html5ever tokens ([`Sink::HTML5EVER`]), the
    /// attributes as [`Attributes`] says; empty otherwise.
    pub attrs: &'t mut Vec<Attribute>,
    /// For any other sink, the attributes named in [`READ_BY_TREE_BUILDER`]
    /// with their decoded values, in source order, duplicates dropped.
    pub read: &'t [(LocalName, Cow<'t, str>)],
}

impl TagToken<'_> {
    /// The decoded value of the attribute `name`, one of
    /// [`READ_BY_TREE_BUILDER`] (for a sink of html5ever tokens, any).
    pub fn attr(&self, name: &LocalName) -> Option<&str> {
        if let Some((_, value)) = self.read.iter().find(|(n, _)| n == name) {
            return Some(value);
        }
        self.attrs
            .iter()
            .find(|a| a.name.local == *name)
            .map(|a| &*a.value)
    }
}

/// A run of characters as a [`Sink`] gets it.
#[derive(Debug, Clone, Copy)]
pub enum Chars<'t> {
    /// The text, with [`Attributes::All`] for a sink of html5ever tokens.
    Text(&'t str),
    /// Otherwise, what stands for it (see [`Collapsed`]): `text` for a
    /// tree builder, and whether the run is white space only.
    StandIn {
        /// The stand-in.
        text: &'static str,
        /// Whether the run is ASCII white space only.
        space: bool,
    },
}

/// Where the tokenizer hands its tokens: html5ever's [`TokenSink`] without
/// building html5ever's tokens when the sink does not want them. Any
/// `TokenSink` is one through [`tokenize`]'s adapter; relink's tracker is
/// one of its own, which gets text as a class, no comment text, and of a
/// tag only its name and the few attributes a tree builder reads, and
/// nothing allocated for it.
///
/// Each method gets the line number the token is on (0 unless
/// [`Options::lines`]).
pub trait Sink {
    /// Whether the sink takes html5ever tokens: then tags carry
    /// html5ever attributes as [`Attributes`] says, text is the text with
    /// [`Attributes::All`], comments are their text. Otherwise tags carry
    /// [`TagToken::read`], text is always a stand-in and comments are
    /// empty, whatever [`Attributes`] says (which then only says which tags
    /// are logged).
    const HTML5EVER: bool;

    /// Whether the sink reads parse errors. A sink that does not (with
    /// text as stand-ins) is spared the work that only finds them: a
    /// character reference in text that can stand only for text other than
    /// white space is then read as text, not decoded.
    const PARSE_ERRORS: bool = true;

    /// A start or end tag; the answer says which state the tokenizer goes
    /// on in.
    fn tag(&self, tag: TagToken<'_>, line: u64) -> Feedback;

    /// A run of characters.
    fn characters(&self, chars: Chars<'_>, line: u64);

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

    /// Whether the adjusted current node is present and not an HTML
    /// element (a CDATA section can start only then).
    fn in_foreign_content(&self) -> bool;
}

/// The adapter of any html5ever [`TokenSink`] to [`Sink`]: builds each
/// token as html5ever's tokenizer would.
struct Tokens<S>(S);

impl<S: TokenSink> Tokens<S> {
    fn send(&self, token: Token, line: u64) -> TokenSinkResult<S::Handle> {
        self.0.process_token(token, line)
    }
}

impl<S: TokenSink> Sink for Tokens<S> {
    const HTML5EVER: bool = true;

    fn tag(&self, tag: TagToken<'_>, line: u64) -> Feedback {
        let token = Token::TagToken(Tag {
            kind: tag.kind,
            name: tag.name,
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

/// Text being gathered (a comment, an attribute value, a run of
/// characters): while it is the source verbatim it is only a range of the
/// input; the first character that is not (a decoded reference, a
/// replaced NUL, a normalised CR) copies it into a buffer.
#[derive(Debug, Default)]
struct Text {
    start: usize,
    end: usize,
    owned: bool,
    buf: String,
}

impl Text {
    fn clear(&mut self, at: usize) {
        self.start = at;
        self.end = at;
        self.owned = false;
        self.buf.clear();
    }

    fn is_empty(&self) -> bool {
        if self.owned {
            self.buf.is_empty()
        } else {
            self.start == self.end
        }
    }

    /// Appends the source `input[from..to]`, with CR and CRLF as LF.
    fn push_raw(&mut self, input: &str, from: usize, to: usize) {
        if from == to {
            return;
        }
        let raw = &input[from..to];
        let has_cr = memchr::memchr(b'\r', raw.as_bytes()).is_some();
        if !self.owned && !has_cr {
            if self.start == self.end {
                self.start = from;
                self.end = to;
                return;
            }
            if from == self.end {
                self.end = to;
                return;
            }
        }
        self.materialize(input);
        push_normalized(&mut self.buf, raw);
    }

    /// Appends text that is not the source.
    fn push_str(&mut self, input: &str, s: &str) {
        self.materialize(input);
        self.buf.push_str(s);
    }

    fn materialize(&mut self, input: &str) {
        if !self.owned {
            self.owned = true;
            self.buf.clear();
            self.buf.push_str(&input[self.start..self.end]);
        }
    }
}

/// Appends `raw` to `buf` with each CRLF and each lone CR as LF (input
/// stream preprocessing).
fn push_normalized(buf: &mut String, raw: &str) {
    let mut rest = raw;
    while let Some(i) = memchr::memchr(b'\r', rest.as_bytes()) {
        buf.push_str(&rest[..i]);
        buf.push('\n');
        rest = &rest[i + 1..];
        if let Some(after) = rest.strip_prefix('\n') {
            rest = after;
        }
    }
    buf.push_str(rest);
}

/// Character data as the lean path hands it over ([`Attributes::TreeBuilder`]):
/// not the text but a stand-in that leads the tree builder to the same
/// decisions. The tree builder (and relink's sinks) look at a run of
/// characters only to tell white space from other characters (splitting a
/// run into white space and the rest, table text holding any character
/// not white space, `frameset-ok`, the initial insertion mode), to drop a
/// line feed leading the first run after `<pre>`, `<listing>` or
/// `<textarea>`, and to see whether a run is empty after that. So the
/// stand-in is the run's leading white space, its first two characters at
/// most, the first a line feed if the run's is, the others spaces, then an
/// `x` if the run has any other character: at most four bytes from a fixed
/// set, held inside the tendril, so no run of text is copied, decoded or
/// allocated however long it is. A NUL never reaches it: in the data and
/// CDATA states it is a token of its own, elsewhere U+FFFD.
#[derive(Debug, Default)]
struct Collapsed {
    /// How many white space characters lead the run, up to two.
    spaces: u8,
    /// Whether the first of them is a line feed.
    line_feed: bool,
    /// Whether the run has a character that is not white space (after
    /// which nothing changes the stand-in).
    other: bool,
}

/// White space as the tree builder tells it (`char::is_ascii_whitespace`).
fn is_tree_space(b: u8) -> bool {
    matches!(b, b'\t' | b'\n' | b'\x0c' | b'\r' | b' ')
}

impl Collapsed {
    fn is_empty(&self) -> bool {
        self.spaces == 0 && !self.other
    }

    /// The stand-in.
    fn as_str(&self) -> &'static str {
        const SHAPES: [&str; 10] = ["", "x", " ", " x", "\n", "\nx", "  ", "  x", "\n ", "\n x"];
        let spaces = match (self.spaces, self.line_feed) {
            (0, _) => 0,
            (1, false) => 1,
            (1, true) => 2,
            (_, false) => 3,
            (_, true) => 4,
        };
        SHAPES[spaces * 2 + usize::from(self.other)]
    }

    /// Appends `s`, which is the source (a CRLF pair is one line feed)
    /// when `source` is true.
    #[inline]
    fn push(&mut self, s: &[u8], source: bool) {
        match s.first() {
            _ if self.other => {}
            None => {}
            Some(&b) if !is_tree_space(b) => self.other = true,
            Some(_) => self.push_spaces(s, source),
        }
    }

    /// [`Collapsed::push`] of text that starts with white space.
    fn push_spaces(&mut self, bytes: &[u8], source: bool) {
        let mut rest = bytes;
        while self.spaces < 2 {
            let Some((&b, tail)) = rest.split_first() else {
                return;
            };
            if !is_tree_space(b) {
                self.other = true;
                return;
            }
            rest = tail;
            if b == b'\r' && source {
                // CR and CRLF are one line feed.
                rest = rest.strip_prefix(b"\n").unwrap_or(rest);
            }
            if self.spaces == 0 {
                self.line_feed = b == b'\n' || (b == b'\r' && source);
            }
            self.spaces += 1;
        }
        self.other = rest.iter().any(|&b| !is_tree_space(b));
    }

    fn clear(&mut self) {
        *self = Collapsed::default();
    }
}

/// The attribute being read.
#[derive(Debug)]
struct CurrentAttr {
    /// The name, unless `name_is_source`.
    name: String,
    /// Whether the name is the source over `name_span` as it is (neither
    /// upper case nor NUL in it), and so not copied.
    name_is_source: bool,
    name_span: Range<usize>,
    value: Text,
    value_span: Range<usize>,
    quote: Quote,
}

impl CurrentAttr {
    /// The name as the tokenizer gives it, once it is ended.
    fn name<'s>(&'s self, input: &'s str) -> &'s str {
        if self.name_is_source {
            &input[self.name_span.clone()]
        } else {
            &self.name
        }
    }

    fn value(&self) -> Range<usize> {
        self.value_span.clone()
    }

    /// Its span in `input`; the quoting read back from the source must be
    /// the quoting the tokenizer saw.
    fn span(&self, input: &str) -> AttrSpan {
        let span = AttrSpan {
            name: (offset(self.name_span.start), offset(self.name_span.end)),
            value: (offset(self.value_span.start), offset(self.value_span.end)),
        };
        debug_assert_eq!(span.quote(input), self.quote, "{span:?}");
        span
    }
}

/// The names of a tag's attributes so far past the first [`SCAN_LIMIT`],
/// to find duplicates in constant time; up to there, the spans of the
/// attributes kept are scanned.
#[derive(Debug, Default)]
struct SeenNames {
    set: HashSet<Box<str>>,
}

impl SeenNames {
    fn clear(&mut self) {
        if !self.set.is_empty() {
            self.set.clear();
        }
    }

    /// Whether the tag already has an attribute `name`, given the spans of
    /// those it has in `input`; notes it if not. A short scan for the
    /// first [`SCAN_LIMIT`] names, then a hash set, so that no tag takes
    /// more than linear time.
    #[inline]
    fn seen_before(&mut self, input: &str, kept: &[AttrSpan], name: &str) -> bool {
        if kept.len() < SCAN_LIMIT {
            return kept
                .iter()
                .any(|a| is_name(&input.as_bytes()[a.name()], name.as_bytes()));
        }
        if self.set.is_empty() {
            for a in kept {
                self.set.insert(Box::from(given_name(&input[a.name()])));
            }
        }
        !self.set.insert(Box::from(name))
    }
}

/// An attribute name as the tokenizer gives it: ASCII upper case lowered,
/// NUL replaced.
fn given_name(raw: &str) -> Cow<'_, str> {
    if raw.bytes().any(|b| b.is_ascii_uppercase() || b == 0) {
        Cow::Owned(raw.to_ascii_lowercase().replace('\0', "\u{fffd}"))
    } else {
        Cow::Borrowed(raw)
    }
}

/// Whether `raw`, a name as written, is `name`, a name as the tokenizer
/// gives it ([`given_name`], which has no ASCII upper case and no NUL).
#[inline]
fn is_name(raw: &[u8], name: &[u8]) -> bool {
    if raw.len() == name.len() {
        return raw.eq_ignore_ascii_case(name);
    }
    // Each NUL, one byte, becomes U+FFFD, three.
    raw.len() < name.len()
        && (name.len() - raw.len()).is_multiple_of(2)
        && memchr::memchr(0, raw).is_some()
        && std::str::from_utf8(raw).is_ok_and(|raw| given_name(raw).as_bytes() == name)
}

/// A DOCTYPE being read.
#[derive(Debug, Default)]
struct CurrentDoctype {
    name: Option<String>,
    public_id: Option<String>,
    system_id: Option<String>,
    force_quirks: bool,
}

/// Up to this many attributes, duplicates are found by a scan; beyond, by a
/// hash set.
const SCAN_LIMIT: usize = 16;

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
    /// Where the tag's name is in the source, when it is the source as it
    /// is (read at once by [`Tokenizer::lean_tag`]), and so not copied.
    tag_name_source: Option<Range<usize>>,
    self_closing: bool,
    had_duplicate: bool,
    attrs: Vec<Attribute>,
    attr_spans: Vec<AttrSpan>,
    attr_names: HashSet<LocalName>,
    /// The attribute being read, when `in_attr`; its buffers serve one
    /// attribute after another, and it stays in place (moving it in and
    /// out of an `Option` cost more than the rest of finishing it).
    attr: CurrentAttr,
    in_attr: bool,
    /// Whether tag tokens carry only what a tree builder reads, text is a
    /// stand-in and comments are empty: with [`Attributes::TreeBuilder`],
    /// or for a sink of relink's own.
    lean: bool,
    /// Whether every tag is logged ([`Attributes::All`]).
    log_all: bool,
    /// Whether a start tag with any attribute is logged
    /// ([`Attributes::TreeBuilderAnyAttribute`]), not only one with an
    /// attribute that may hold a URL.
    log_any_attribute: bool,
    /// Whether the current tag has an attribute that makes it logged.
    log_tag: bool,
    /// For a sink of relink's own: the tag's attributes named in
    /// [`READ_BY_TREE_BUILDER`], with their values.
    read: Vec<(LocalName, Cow<'a, str>)>,
    formatting_stand_in: bool,
    lines: bool,
    /// With [`Attributes::TreeBuilder`]: whether the tag is a formatting
    /// element's start tag, once an attribute asked.
    formatting: Option<bool>,
    /// With [`Attributes::TreeBuilder`]: the names of the tag's attributes.
    seen: SeenNames,
    /// With [`Attributes::TreeBuilder`], on a formatting element: the
    /// attributes left out of the token, as (name, value) ranges of
    /// `dropped_text`.
    dropped: Vec<(Range<usize>, Range<usize>)>,
    dropped_text: String,

    comment: Text,
    doctype: CurrentDoctype,
    /// Where the temporary buffer (only ever ASCII letters of the source)
    /// starts; it ends at the current position.
    temp_start: usize,
    last_start_tag: Option<LocalName>,
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
            log_any_attribute: options.attributes == Attributes::TreeBuilderAnyAttribute,
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
        }
    }

    /// Tokenizes the whole input, calls the sink's `end`, and returns the
    /// sink.
    pub fn run(mut self) -> S {
        while let states::Flow::Go = self.step() {}
        self.sink.end();
        self.sink
    }

    /// A tendril of the source `input[from..to]` (no CR in it): a copy of
    /// just that text, which the tree sink drops at once. One shared copy
    /// of the whole input would be one more document's worth of memory
    /// for the whole parse; measured, copying each piece is faster too
    /// (pieces of up to 8 bytes live inside the tendril).
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

    /// The line the tokenizer is on (CRLF and lone CR count as one line
    /// break, as after preprocessing).
    fn line(&mut self) -> u64 {
        // A reconsumed character moves the position back over text already
        // counted.
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
        if !self.collapsed.is_empty() || !self.pending.is_empty() {
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
        if self.lean {
            self.collapsed.push(&self.bytes[from..to], true);
        } else {
            self.pending.push_raw(self.input, from, to);
        }
    }

    /// Emits characters that are not the source at this point.
    fn chars_str(&mut self, s: &str) {
        if self.lean {
            self.collapsed.push(s.as_bytes(), false);
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
        if !self.attrs.is_empty() {
            self.attrs.clear();
        }
        self.attr_spans.clear();
        if !self.attr_names.is_empty() {
            self.attr_names.clear();
        }
        self.seen.clear();
        if !self.read.is_empty() {
            self.read.clear();
        }
        self.formatting = None;
        self.log_tag = false;
        self.dropped.clear();
        self.dropped_text.clear();
        self.in_attr = false;
    }

    /// Starts a new attribute whose name starts at the current position.
    fn start_attr(&mut self) {
        self.finish_attr();
        let at = self.pos;
        let attr = &mut self.attr;
        attr.name.clear();
        attr.name_is_source = false;
        attr.name_span = at..at;
        attr.value.clear(at);
        attr.value_span = at..at;
        attr.quote = Quote::Valueless;
        self.in_attr = true;
    }

    /// Ends the current attribute's name at the current position.
    fn end_attr_name(&mut self) {
        let at = self.pos;
        let attr = &mut self.attr;
        attr.name_span.end = at;
        attr.value.clear(at);
        attr.value_span = at..at;
    }

    /// Starts the current attribute's value at the current position.
    fn start_attr_value(&mut self, quote: Quote) {
        let at = self.pos;
        let attr = &mut self.attr;
        attr.quote = quote;
        attr.value.clear(at);
        attr.value_span = at..at;
    }

    /// Appends the source `input[from..to]` to the current attribute's
    /// value. With [`Attributes::TreeBuilder`] values are not gathered as
    /// they are read: the few a token carries are decoded from their spans
    /// when the attribute is finished ([`Tokenizer::lean_value`]).
    fn value_raw(&mut self, from: usize, to: usize) {
        if !self.lean {
            self.attr.value.push_raw(self.input, from, to);
        }
    }

    /// Appends text that is not the source to the current attribute's
    /// value (see [`Tokenizer::value_raw`]).
    fn value_str(&mut self, s: &str) {
        if !self.lean {
            self.attr.value.push_str(self.input, s);
        }
    }

    /// The current attribute's value, decoded from its span as the
    /// tokenizer decodes it (on the lean path, which does not gather it).
    fn lean_value(&self) -> Cow<'a, str> {
        let raw = self.input.get(self.attr.value()).unwrap_or_default();
        if raw.bytes().any(|b| matches!(b, b'&' | b'\r' | 0)) {
            crate::html::charref::decode_attribute(raw).text
        } else {
            Cow::Borrowed(raw)
        }
    }

    /// Ends the current attribute's value at the current position.
    fn end_attr_value(&mut self) {
        self.attr.value_span.end = self.pos;
    }

    /// Adds the current attribute to the tag, unless the tag already has
    /// one of that name.
    #[inline]
    fn finish_attr(&mut self) {
        if !std::mem::take(&mut self.in_attr) {
            return;
        }
        if self.lean {
            self.finish_attr_lean();
        } else {
            self.finish_attr_full();
        }
    }

    /// [`Tokenizer::finish_attr`] with every attribute as an atom.
    fn finish_attr_full(&mut self) {
        let name = LocalName::from(self.attr.name(self.input));
        let duplicate = if self.attrs.len() < SCAN_LIMIT {
            self.attrs.iter().any(|a| a.name.local == name)
        } else {
            if self.attr_names.is_empty() {
                self.attr_names
                    .extend(self.attrs.iter().map(|a| a.name.local.clone()));
            }
            !self.attr_names.insert(name.clone())
        };
        if duplicate {
            self.had_duplicate = true;
            self.error("Duplicate attribute");
        } else {
            let value = self.text_tendril(&self.attr.value);
            self.attrs.push(Attribute {
                name: QualName::new(None, ns!(), name),
                value,
            });
            self.attr_spans.push(self.attr.span(self.input));
        }
    }

    /// [`Tokenizer::finish_attr`] with [`Attributes::TreeBuilder`]: the
    /// same duplicate check on plain strings, no atom for a name the tree
    /// builder does not read.
    fn finish_attr_lean(&mut self) {
        let input = self.input;
        if self
            .seen
            .seen_before(input, &self.attr_spans, self.attr.name(input))
        {
            self.had_duplicate = true;
            self.error("Duplicate attribute");
            return;
        }
        if let Some(name) = read_by_tree_builder(self.attr.name(input)) {
            if S::HTML5EVER {
                let value = StrTendril::from_slice(&self.lean_value());
                self.attrs.push(Attribute {
                    name: QualName::new(None, ns!(), name),
                    value,
                });
            } else {
                let value = self.lean_value();
                self.read.push((name, value));
            }
        } else if S::HTML5EVER
            && self.formatting_stand_in
            && self.tag_kind == TagKind::StartTag
            && self.is_formatting()
        {
            let value = self.lean_value();
            let (attr, text) = (&self.attr, &mut self.dropped_text);
            let attr_name = attr.name(input);
            let name = text.len()..text.len() + attr_name.len();
            text.push_str(attr_name);
            let at = text.len();
            text.push_str(&value);
            self.dropped.push((name, at..text.len()));
        }
        let span = self.attr.span(self.input);
        self.log_tag = self.log_tag
            || self.log_any_attribute
            || crate::html::links::may_hold_url(&input.as_bytes()[span.name()]);
        self.attr_spans.push(span);
    }

    /// Whether the tag is a formatting element's (asked once a tag).
    fn is_formatting(&mut self) -> bool {
        if self.formatting.is_none() {
            self.formatting = Some(is_formatting(self.current_tag_name()));
        }
        self.formatting == Some(true)
    }

    /// The current tag's name as the tokenizer gives it.
    fn current_tag_name(&self) -> &str {
        match &self.tag_name_source {
            Some(span) => &self.input[span.clone()],
            None => &self.tag_name,
        }
    }

    /// With [`Attributes::TreeBuilder`], the attribute that stands for the
    /// attributes left out of a formatting element's token: an empty name,
    /// and as value each (name, value) pair, sorted by name, NUL after each
    /// part (the tokenizer has replaced every NUL in names and values).
    /// Two such tokens then compare equal exactly when their attribute
    /// lists do, as the tree builder's "Noah's Ark" clause compares them.
    fn dropped_attribute(&mut self) -> Option<Attribute> {
        if self.dropped.is_empty() {
            return None;
        }
        let text = &self.dropped_text;
        self.dropped
            .sort_unstable_by(|a, b| text[a.0.clone()].cmp(&text[b.0.clone()]));
        let mut value = String::with_capacity(text.len() + 2 * self.dropped.len());
        for (name, val) in &self.dropped {
            value.push_str(&text[name.clone()]);
            value.push('\0');
            value.push_str(&text[val.clone()]);
            value.push('\0');
        }
        Some(Attribute {
            name: QualName::new(None, ns!(), local_name!("")),
            value: StrTendril::from_slice(&value),
        })
    }

    /// Emits the current tag, whose `>` ends just before the current
    /// position, and switches to the state the sink asks for (the data
    /// state by default).
    fn emit_tag(&mut self) -> states::Flow {
        self.finish_attr();
        if let Some(attr) = self.dropped_attribute() {
            self.attrs.push(attr);
        }
        let name = tag_atom(self.current_tag_name());
        match self.tag_kind {
            TagKind::StartTag => self.last_start_tag = Some(name.clone()),
            TagKind::EndTag => {
                // (The spans, as the token may carry only some of them.)
                if !self.attr_spans.is_empty() {
                    self.error("Attributes on an end tag");
                }
                if self.self_closing {
                    self.error("Self-closing end tag");
                }
            }
        }
        self.flush();
        // With only what the tree builder reads, only the tags that can
        // hold a link are logged: start tags with an attribute that may
        // hold one, and `style` tags (whose text holds CSS).
        let logged = self.log_all
            || (self.tag_kind == TagKind::StartTag && self.log_tag)
            || name == local_name!("style");
        if !logged {
            self.attr_spans.clear();
        } else {
            let mut all = self.log.attrs.borrow_mut();
            let first = all.len();
            all.append(&mut self.attr_spans);
            self.log.tags.borrow_mut().push(TagSpan::new(
                self.tag_kind,
                (offset(self.tag_start), offset(self.pos)),
                (offset(first), offset(all.len())),
            ));
        }
        let line = self.sink_line();
        let token = TagToken {
            kind: self.tag_kind,
            name,
            self_closing: self.self_closing,
            had_duplicate_attributes: self.had_duplicate,
            attrs: &mut self.attrs,
            read: &self.read,
        };
        self.state = State::Data;
        self.log
            .current
            .set(logged.then(|| self.log.len().saturating_sub(1)));
        let result = self.sink.tag(token, line);
        self.log.current.set(None);
        match result {
            Feedback::Continue => {}
            Feedback::Plaintext => self.state = State::Plaintext,
            Feedback::Raw(kind) => {
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
        let text = if self.lean {
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

    /// Consumes the next input character, after preprocessing: a CRLF
    /// pair or a lone CR is one LF.
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

    /// Whether the input at the current position starts with `s`, ASCII
    /// case-insensitively.
    fn next_is_ignore_case(&self, s: &str) -> bool {
        self.bytes
            .get(self.pos..self.pos + s.len())
            .is_some_and(|b| b.eq_ignore_ascii_case(s.as_bytes()))
    }
}

/// ASCII whitespace as the tokenizer knows it (after preprocessing, so CR
/// is a line feed).
fn is_space(c: char) -> bool {
    matches!(c, '\t' | '\n' | '\x0c' | ' ')
}

#[cfg(test)]
mod tests;
