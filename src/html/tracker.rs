//! A tree builder for the common path: it follows the stack of open elements
//! as html5ever's `TreeBuilder` would and decides what relink needs of the
//! tree (each start tag's element: in the tree, its namespace, in template
//! contents; the first `base` with an `href`) without building one.
//!
//! It models the insertion modes of WHATWG HTML §13.2.6 but frameset, as
//! html5ever 0.40 implements them (the tests compare with it): scopes,
//! implied tags, tables without foster parenting, `select` in body,
//! `template`, the form pointer, formatting elements with the adoption agency,
//! foreign content, quirks and raw text. Text is white space, other or NUL.
//! Outside that it bails ([`Bail`]: frameset, foster parenting, Noah's Ark,
//! nesting past [`MAX_TREE_DEPTH`]), and as html5ever cannot start in a given
//! state, the document is parsed again on its path ([`super::tree::parse`]).

use std::borrow::Cow;
use std::cell::RefCell;

use html5ever::tokenizer::states::RawKind;
use html5ever::tokenizer::{Doctype, TagKind};
use html5ever::{LocalName, local_name};

use super::arena::{Element, Landmark, MAX_TREE_DEPTH, Namespace, Tree};
use super::document::{Document, DocumentKind};
use super::tag_sets::{
    ANNOTATION, ANNOTATION_IP, BODY_CONTEXT, BUTTON_SCOPE, BodyStart, CELL, END_OWN, FORMATTING,
    Facts, HEADING, IMPLIED, LIST_SCOPE, ROW_CONTEXT, SCOPE, SPECIAL, SVG_IP, TABLE_OUTER,
    TABLE_SCOPE, TEMPLATE, TEXT_IP, THOROUGH, body_html_br, breaks_out, classify, facts,
    formatting, heading, in_head_start, list_item, marker_inserting, mathml_text_integration_point,
    svg_html_integration_point, table_part, table_section,
};
use super::tokenizer::{
    self, Attributes, Chars, Feedback, Sink, SpanLog, TagId, TagToken as Token, tag,
};

/// Why the tracker stopped deciding: the construct it met.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Bail(pub &'static str);

/// Parses `src` as [`super::tree::parse`] does with the tracker alone, or says why it bailed.
#[cfg_attr(not(feature = "_internal"), allow(dead_code))]
pub fn parse(src: &str, kind: DocumentKind) -> Result<Document, Bail> {
    parse_with(src, kind, Attributes::TreeBuilder)
}

/// [`parse`] with tag tokens carrying `attributes`; with [`Attributes::All`] every tag is
/// kept, as [`super::tree::parse_with`] keeps them, so each element can be compared.
pub fn parse_with(src: &str, kind: DocumentKind, attributes: Attributes) -> Result<Document, Bail> {
    if u32::try_from(src.len()).is_err() {
        return Ok(Document::default());
    }
    let log = SpanLog::default();
    let options = tokenizer::Options {
        discard_bom: false,
        attributes,
        formatting_stand_in: false,
        lines: false,
        ..tokenizer::Options::default()
    };
    let landmarks = attributes.finds_landmarks();
    let tracker = Tracker::new(&log, (kind, landmarks));
    let tracker = tokenizer::tokenize_into(src, tracker, &log, options);
    let (names, tree) = tracker.finish()?;
    Ok(Document::assemble(log, names, tree))
}

/// Elements deeper than this make the tracker bail: html5ever's path flattens them.
const DEPTH_LIMIT: usize = MAX_TREE_DEPTH as usize - 2;

/// How many times a token may be reprocessed; more means a missing rule, and a bail.
const MAX_REPROCESS: usize = 32;

/// A tag's name as the rules test it: its [`TagId`], and for a name not
/// listed (custom elements and rare ones) its number among the document's
/// others ([`Others`]), where two such names are told apart by it. A copy,
/// with nothing to drop.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Name {
    id: TagId,
    other: u32,
}

impl Name {
    /// The name of a listed id.
    const fn listed(id: TagId) -> Name {
        Name { id, other: 0 }
    }
}

/// The landmark an element of this name is, told by its id: the five
/// landmark names are listed, so no atom is made ([`Landmark::of`] by atom
/// cost about 250 instructions an element of a WAT record's page).
fn landmark_of(name: Name) -> Option<Landmark> {
    match name.id {
        tag!("nav") => Some(Landmark::Nav),
        tag!("header") => Some(Landmark::Header),
        tag!("footer") => Some(Landmark::Footer),
        tag!("aside") => Some(Landmark::Aside),
        tag!("main") => Some(Landmark::Main),
        _ => None,
    }
}

/// How many names not listed the tracker holds before it forgets those no
/// open element has (more than the deepest stack, [`DEPTH_LIMIT`]).
const OTHERS_KEPT: usize = 4096;

/// The names a document's tags have that are not listed, each numbered
/// once (from 1) by its text: its atom is made when it is first seen, not
/// for each tag (an atom not listed by string_cache is hashed and looked
/// up under a lock).
#[derive(Debug, Default)]
struct Others {
    atoms: Vec<LocalName>,
    numbers: std::collections::HashMap<Box<str>, u32>,
    /// The number given last: an end tag's name is often the start tag's
    /// just before, found without hashing it.
    last: u32,
}

impl Others {
    /// The name of a token: its id, numbered if it is not listed.
    #[inline]
    fn name(&mut self, id: TagId, name: &str) -> Name {
        if id == TagId::Other {
            return self.number(name);
        }
        Name::listed(id)
    }

    /// The [`Name`] of a name not listed, out of line: most tags are listed.
    #[cold]
    #[inline(never)]
    fn number(&mut self, name: &str) -> Name {
        let last = self.atoms.get(self.last.wrapping_sub(1) as usize);
        let other = match last {
            Some(atom) if **atom == *name => self.last,
            _ => match self.numbers.get(name) {
                Some(&other) => other,
                None => self.add(name.into(), LocalName::from(name)),
            },
        };
        self.last = other;
        Name {
            id: TagId::Other,
            other,
        }
    }

    /// The [`Name`] of the atom of a name not listed.
    fn number_atom(&mut self, atom: LocalName) -> Name {
        let other = match self.numbers.get(&*atom) {
            Some(&other) => other,
            None => self.add((*atom).into(), atom),
        };
        Name {
            id: TagId::Other,
            other,
        }
    }

    /// Numbers a name not yet numbered, `text` and `atom` the same name.
    fn add(&mut self, text: Box<str>, atom: LocalName) -> u32 {
        let next = u32::try_from(self.atoms.len() + 1).unwrap_or(u32::MAX);
        self.atoms.push(atom);
        self.numbers.insert(text, next);
        next
    }

    /// A name's atom.
    fn atom(&self, name: Name) -> LocalName {
        match name.id {
            TagId::Other => self
                .atoms
                .get(name.other.wrapping_sub(1) as usize)
                .cloned()
                .unwrap_or_default(),
            id => id.atom(),
        }
    }
}

/// The [`Name`] of a listed tag name, as a constant.
macro_rules! name {
    ($name:tt) => {
        Name::listed(tag!($name))
    };
}

/// What the rules read of a start tag token: its [`Name`] and the [`Facts`]
/// of it, looked up once, and the token's fields they read, copied, so that
/// the token itself is never built in memory.
struct Tag<'t> {
    name: Name,
    facts: Facts,
    self_closing: bool,
    /// The token's [`Token::read`]: a sink of relink's own gets no other attributes.
    read: &'t [(LocalName, Cow<'t, str>)],
}

impl std::fmt::Debug for Tag<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("Tag").field(&self.name).finish()
    }
}

/// The tag sets a foreign element is in.
fn classify_foreign(tag: &Tag, namespace: Namespace) -> u32 {
    match (namespace, tag.name.id) {
        (Namespace::Svg, svg_html_integration_point!()) => SVG_IP | SCOPE,
        (Namespace::Other, mathml_text_integration_point!()) => TEXT_IP | SCOPE,
        (Namespace::Other, tag!("annotation-xml")) => {
            let html = attr(tag, &local_name!("encoding")).is_some_and(|v| {
                v.eq_ignore_ascii_case("text/html")
                    || v.eq_ignore_ascii_case("application/xhtml+xml")
            });
            if html {
                ANNOTATION | ANNOTATION_IP
            } else {
                ANNOTATION
            }
        }
        _ => 0,
    }
}

/// The value of a tag's attribute (one a tree builder reads).
fn attr<'t>(tag: &'t Tag, name: &LocalName) -> Option<&'t str> {
    tag.read.iter().find(|(n, _)| n == name).map(|(_, v)| &**v)
}

/// An insertion mode (the frameset ones make the tracker bail).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    Initial,
    BeforeHtml,
    BeforeHead,
    InHead,
    InHeadNoscript,
    AfterHead,
    InBody,
    Text,
    InTable,
    InTableText,
    InCaption,
    InColumnGroup,
    InTableBody,
    InRow,
    InCell,
    InTemplate,
    AfterBody,
    AfterAfterBody,
}

/// Whether the document is in quirks mode; limited quirks is [`Quirks::No`], as it
/// changes nothing followed here. No quirks until the initial mode decides.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Quirks {
    No,
    Yes,
}

/// A token, as the rules see it.
#[derive(Debug, Clone, Copy)]
enum Tok<'t> {
    Start(&'t Tag<'t>),
    End(&'t Name),
    /// Text: white space only, or not.
    Text {
        space: bool,
    },
    Nul,
    Comment,
}

/// What a rule asks next.
#[derive(Debug)]
enum Next {
    Done,
    Reprocess(Mode),
    Raw(RawKind),
    Plaintext,
}

type Step = Result<Next, Bail>;

/// An element on the stack of open elements.
#[derive(Debug, Clone)]
struct Open {
    name: Name,
    namespace: Namespace,
    flags: u32,
    id: u32,
    /// The landmark an element above it is in, when landmarks are found:
    /// its own, else the one below it passes on, none from a template.
    /// Only elements that are not special leave the stack from below
    /// others (formatting elements, the adoption agency's nodes, a form,
    /// the head), and they pass on what is below them, so it stays true.
    passes: Option<Landmark>,
}

impl Open {
    fn is_html(&self, name: &Name) -> bool {
        self.namespace == Namespace::Html && self.name == *name
    }
}

/// An entry of the list of active formatting elements.
#[derive(Debug)]
enum Entry {
    Marker,
    Element {
        id: u32,
        name: Name,
        /// Whether it is still on the stack of open elements.
        open: bool,
    },
}

/// The tree builder's state, as far as the tracker follows it.
#[derive(Debug)]
struct State {
    bailed: Option<Bail>,
    mode: Mode,
    /// The mode to return to after text or table text.
    original: Mode,
    stack: Vec<Open>,
    templates: Vec<Mode>,
    /// How many HTML `template`s are on the stack.
    in_template: usize,
    /// How many HTML `p`s are on the stack: with none, no `p` is in button scope.
    paragraphs: usize,
    formatting: Vec<Entry>,
    form: Option<u32>,
    head: Option<u32>,
    quirks: Quirks,
    srcdoc: bool,
    /// In table text mode: whether the pending text has other than white space.
    table_text: bool,
    next_id: u32,
    /// The index of the start tag being processed, if it is logged.
    current: Option<usize>,
    /// Whether each element's landmark is found.
    landmarks: bool,
    tree: Tree,
    /// The names of the logged tags since the last piece, one for each tag of the log.
    names: Vec<LocalName>,
    /// The names not listed met so far.
    others: Others,
}

/// The token sink: follows the tree builder's state and answers the tokenizer as it would.
pub struct Tracker<'l> {
    log: &'l SpanLog,
    state: RefCell<State>,
    /// Where the document goes in pieces ([`Tracker::in_chunks`]), and whether the first `base` went.
    chunks: Option<RefCell<OnChunk<'l>>>,
    base_handed: std::cell::Cell<bool>,
}

/// What takes a document's tags in pieces: `false` stops the parse.
pub type OnChunk<'l> = &'l mut dyn FnMut(Document) -> bool;

/// The fewest tags a piece handed over while parsing holds: few enough that a
/// huge document's spans are never all alive, enough that a page is one piece.
pub const CHUNK_TAGS: usize = 4096;

/// Why a document in pieces stopped: its first `base` came after links already resolved.
pub const BASE_AFTER_LINKS: Bail = Bail("a base after links already resolved");

impl<'l> Tracker<'l> {
    /// A tracker for a document of `kind` over `log`, finding landmarks if `landmarks`.
    pub fn new(log: &'l SpanLog, (kind, landmarks): (DocumentKind, bool)) -> Self {
        Tracker {
            log,
            state: RefCell::new(State {
                bailed: None,
                mode: Mode::Initial,
                original: Mode::Initial,
                stack: Vec::with_capacity(32),
                templates: Vec::new(),
                in_template: 0,
                paragraphs: 0,
                formatting: Vec::new(),
                form: None,
                head: None,
                quirks: Quirks::No,
                srcdoc: kind == DocumentKind::IframeSrcdoc,
                table_text: false,
                next_id: 0,
                current: None,
                landmarks,
                tree: Tree::default(),
                names: Vec::new(),
                others: Others::default(),
            }),
            chunks: None,
            base_handed: std::cell::Cell::new(false),
        }
    }

    /// A tracker that hands the document to `on_chunk` in pieces of [`CHUNK_TAGS`]
    /// tags (never right after a `style` start tag), each a [`Document`];
    /// [`Tracker::finish_chunks`] hands over the rest. `false` stops it as a bail.
    pub fn in_chunks(log: &'l SpanLog, kind: (DocumentKind, bool), on_chunk: OnChunk<'l>) -> Self {
        Tracker {
            chunks: Some(RefCell::new(on_chunk)),
            ..Tracker::new(log, kind)
        }
    }

    /// Makes room for `tags` more logged tags, their names and tree facts.
    pub fn reserve(&self, tags: usize) {
        self.log.reserve(tags);
        let mut state = self.state.borrow_mut();
        state.names.reserve(tags);
        state.tree.elements.reserve(tags);
        if state.landmarks {
            state.tree.landmarks.reserve(tags);
        }
    }

    /// Hands the logged tags over as a piece of the document.
    fn hand_over(&self) {
        let Some(chunks) = &self.chunks else { return };
        let (spans, attrs) = self.log.take();
        let mut state = self.state.borrow_mut();
        let names = std::mem::take(&mut state.names);
        let mut elements = std::mem::take(&mut state.tree.elements);
        elements.resize(spans.len(), None);
        let mut landmarks = std::mem::take(&mut state.tree.landmarks);
        if state.landmarks {
            landmarks.resize(spans.len(), None);
        }
        let base = state.tree.base.filter(|_| !self.base_handed.get());
        // The first base stays recorded, so that no later one counts.
        self.base_handed.set(state.tree.base.is_some());
        drop(state);
        let piece = Document::from_parts(spans, names, (elements, landmarks), attrs, base);
        if !(chunks.borrow_mut())(piece) {
            self.state.borrow_mut().bailed = Some(BASE_AFTER_LINKS);
        }
    }

    /// Ends a parse in pieces, handing over the last piece, or says why the tracker bailed.
    pub fn finish_chunks(self) -> Result<(), Bail> {
        if let Some(bail) = self.state.borrow().bailed {
            return Err(bail);
        }
        self.hand_over();
        match self.state.into_inner().bailed {
            Some(bail) => Err(bail),
            None => Ok(()),
        }
    }

    /// The names of the logged tags and what the tree says, or why the tracker bailed.
    pub fn finish(self) -> Result<(Vec<LocalName>, Tree), Bail> {
        let state = self.state.into_inner();
        match state.bailed {
            Some(bail) => Err(bail),
            None => Ok((state.names, state.tree)),
        }
    }
}

/// Whether text is ASCII white space only (as html5ever splits it).
fn is_space(text: &str) -> bool {
    text.bytes()
        .all(|b| matches!(b, b' ' | b'\t' | b'\n' | b'\x0c' | b'\r'))
}

impl State {
    /// The name of a token. Past [`OTHERS_KEPT`] names not listed, those no
    /// element holds are forgotten first, so that a document of many
    /// distinct names holds no more of them than it has open elements.
    #[inline(always)]
    fn name_of(&mut self, id: TagId, name: &str) -> Name {
        if id == TagId::Other && self.others.atoms.len() >= OTHERS_KEPT {
            self.forget_others();
        }
        self.others.name(id, name)
    }

    /// Numbers again the names not listed that open or listed elements
    /// have, forgetting the others.
    #[cold]
    #[inline(never)]
    fn forget_others(&mut self) {
        let old = std::mem::take(&mut self.others);
        let others = &mut self.others;
        let mut renumber = |name: &mut Name| {
            if name.id == TagId::Other {
                *name = others.number_atom(old.atom(*name));
            }
        };
        for open in &mut self.stack {
            renumber(&mut open.name);
        }
        for entry in &mut self.formatting {
            if let Entry::Element { name, .. } = entry {
                renumber(name);
            }
        }
    }

    /// Runs a token through the rules; `current` is a logged start tag's index.
    /// Inlined, so that each kind of token takes its own path through [`State::quick`].
    #[inline(always)]
    fn run(&mut self, tok: Tok<'_>, current: Option<usize>) -> Feedback {
        if self.bailed.is_some() {
            // The document is parsed again: its tags need not be found now.
            return Feedback::Plaintext;
        }
        self.current = current;
        let step = match self.quick(tok) {
            Some(step) => step,
            None => self.process(tok),
        };
        match step {
            Ok(Next::Raw(kind)) => Feedback::Raw(kind),
            Ok(Next::Plaintext) => Feedback::Plaintext,
            Ok(_) => Feedback::Continue,
            Err(bail) => {
                self.bailed = Some(bail);
                Feedback::Plaintext
            }
        }
    }
}

impl Sink for Tracker<'_> {
    const HTML5EVER: bool = false;
    const PARSE_ERRORS: bool = false;

    // Inlined into the tokenizer's one call: the token is not built in memory.
    #[inline(always)]
    fn tag(&self, tag: Token<'_>, _line: u64) -> Feedback {
        let current = tag.index;
        // One borrow for the whole tag.
        let mut state = self.state.borrow_mut();
        let name = state.name_of(tag.id, tag.name);
        let feedback = match tag.kind {
            TagKind::StartTag => {
                let facts = facts(tag.id);
                if state.plain_start(name, facts, tag.self_closing, current) {
                    Feedback::Continue
                } else {
                    let tag = Tag {
                        name,
                        facts,
                        self_closing: tag.self_closing,
                        read: tag.read,
                    };
                    state.run(Tok::Start(&tag), current)
                }
            }
            TagKind::EndTag if state.plain_end(name) => Feedback::Continue,
            TagKind::EndTag => state.run(Tok::End(&name), None),
        };
        if current.is_some() {
            // The token's name goes into the log (no rule reads `names`): as
            // many names as logged tags, so they count the log's tags.
            let atom = state.others.atom(name);
            state.names.push(atom);
        }
        debug_assert_eq!(state.names.len(), self.log.len());
        if state.names.len() >= CHUNK_TAGS
            && self.chunks.is_some()
            && state.bailed.is_none()
            // Never right after a `style` start tag (always logged, so its name is the last).
            && !(current.is_some()
                && tag.kind == TagKind::StartTag
                && tag.id == tag!("style"))
        {
            drop(state);
            self.hand_over();
            // A document of a piece already is likely one of several.
            self.reserve(CHUNK_TAGS);
        }
        feedback
    }

    fn characters(&self, chars: Chars<'_>, _line: u64) {
        let mut state = self.state.borrow_mut();
        if state.text_changes_nothing() {
            return;
        }
        let space = match chars {
            Chars::Text(text) => is_space(text),
            Chars::StandIn { space, .. } => space,
        };
        if space && state.space_changes_nothing() {
            return;
        }
        state.run(Tok::Text { space }, None);
    }

    /// Text in body under an HTML element with nothing to reconstruct, or
    /// in text mode, is passed over by [`Sink::characters`] below: the
    /// tokenizer need not gather it.
    #[inline]
    fn text_matters(&self) -> bool {
        !self.state.borrow().text_changes_nothing()
    }

    fn null(&self, _line: u64) {
        self.state.borrow_mut().run(Tok::Nul, None);
    }

    fn comment(&self, _text: &str, _line: u64) {
        self.state.borrow_mut().run(Tok::Comment, None);
    }

    fn doctype(&self, doctype: Doctype, _line: u64) {
        let mut state = self.state.borrow_mut();
        if state.bailed.is_none() {
            state.doctype(&doctype);
        }
    }

    // Nothing at the end creates an element.
    fn parse_error(&self, _message: &'static str, _line: u64) {}

    fn eof(&self, _line: u64) {}

    fn end(&self) {}

    fn in_foreign_content(&self) -> bool {
        let state = self.state.borrow();
        state
            .stack
            .last()
            .is_some_and(|e| e.namespace != Namespace::Html)
    }
}

/// The commonest tags, decided before any rule is dispatched.
impl State {
    /// A start tag whose rule only inserts its element (or, for a void
    /// one, creates it). In body: "any other start tag", the void elements
    /// and a `button` (none in scope) with nothing to reconstruct, a block,
    /// heading (not under one) or list item with no `p` to close (a list
    /// item under a special element that stops its search), `a` and the
    /// other formatting elements with no entry after the last marker,
    /// `meta` and `link`; in head, `meta` and `link`; in
    /// foreign content, an element of the current node's namespace that is
    /// no integration point. `false` leaves the tag to [`State::run`],
    /// which decides the same.
    #[inline(always)]
    fn plain_start(
        &mut self,
        name: Name,
        facts: Facts,
        self_closing: bool,
        current: Option<usize>,
    ) -> bool {
        if self.bailed.is_some() || self.landmarks || self.stack.len() >= DEPTH_LIMIT {
            return false;
        }
        let Some(top) = self.stack.last() else {
            return false;
        };
        let (namespace, push, flags) = if top.namespace != Namespace::Html {
            if !plain_foreign(top, name) {
                return false;
            }
            (top.namespace, !self_closing, 0)
        } else {
            let in_head_void = matches!(name.id, tag!("meta") | tag!("link"));
            let plain = match self.mode {
                Mode::InBody => self.plain_in_body(name, facts),
                Mode::InHead if in_head_void => Some((false, 0)),
                _ => None,
            };
            let Some((push, flags)) = plain else {
                return false;
            };
            (Namespace::Html, push, flags)
        };
        debug_assert_eq!(flags & TEMPLATE, 0);
        self.current = current;
        let id = self.next_id();
        self.record(namespace, self.in_template > 0);
        if push {
            self.open_plain(name, namespace, flags, id);
        }
        true
    }

    /// [`State::plain_start`] in body under an HTML element: whether the
    /// element is pushed, and its flags; `None` for the rules.
    #[inline(always)]
    fn plain_in_body(&self, name: Name, facts: Facts) -> Option<(bool, u32)> {
        let nothing_listed = matches!(self.formatting.last(), None | Some(Entry::Marker));
        Some(match facts.start {
            BodyStart::Ordinary if self.nothing_to_reconstruct() => (true, facts.sets),
            BodyStart::Block if self.paragraphs == 0 => (true, facts.sets),
            BodyStart::Heading if self.paragraphs == 0 && !self.top_is(HEADING) => {
                (true, facts.sets)
            }
            BodyStart::Other
                if name.id == tag!("button")
                    && self.nothing_to_reconstruct()
                    && !self.in_scope_named(SCOPE, &name!("button")) =>
            {
                (true, facts.sets)
            }
            BodyStart::ListItem if self.paragraphs == 0 && self.list_item_closes_nothing() => {
                (true, facts.sets)
            }
            BodyStart::A | BodyStart::Formatting if nothing_listed => {
                (true, facts.sets | FORMATTING)
            }
            BodyStart::Void
                if !matches!(name.id, tag!("input") | tag!("image"))
                    && self.nothing_to_reconstruct() =>
            {
                (false, 0)
            }
            BodyStart::InHead if matches!(name.id, tag!("meta") | tag!("link")) => (false, 0),
            _ => return None,
        })
    }

    /// Pushes a plain element (listed too, if a formatting one).
    #[inline(always)]
    fn open_plain(&mut self, name: Name, namespace: Namespace, flags: u32, id: u32) {
        if namespace == Namespace::Html && name.id == tag!("p") {
            self.paragraphs += 1;
        }
        self.stack.push(Open {
            name,
            namespace,
            flags,
            id,
            passes: None,
        });
        if flags & FORMATTING != 0 {
            self.formatting.push(Entry::Element {
                id,
                name,
                open: true,
            });
        }
    }

    /// Whether reconstructing the active formatting elements does nothing.
    #[inline(always)]
    fn nothing_to_reconstruct(&self) -> bool {
        !matches!(
            self.formatting.last(),
            Some(Entry::Element { open: false, .. })
        )
    }

    /// Whether a list item's search of the stack stops at once: the current
    /// node is special, not `address`, `div` or `p`, and no list item.
    #[inline(always)]
    fn list_item_closes_nothing(&self) -> bool {
        self.stack.last().is_some_and(|top| {
            top.flags & SPECIAL != 0
                && !matches!(
                    top.name.id,
                    tag!("li")
                        | tag!("dd")
                        | tag!("dt")
                        | tag!("address")
                        | tag!("div")
                        | tag!("p")
                )
        })
    }

    /// An end tag of the current node whose rule only pops it: in body (and
    /// unlists it, when it is the last formatting element listed), in text
    /// mode (any end tag, back to the original mode), in foreign content.
    #[inline(always)]
    fn plain_end(&mut self, name: Name) -> bool {
        if self.bailed.is_some() {
            return false;
        }
        let Some(top) = self.stack.last() else {
            return false;
        };
        if top.namespace != Namespace::Html {
            // As [`State::foreign_end`] finds it, `br` and `p` but.
            if top.name != name || matches!(name.id, tag!("br") | tag!("p")) || self.stack.len() < 2
            {
                return false;
            }
            self.pop_plain();
            return true;
        }
        match self.mode {
            Mode::Text => {
                self.pop_plain();
                self.mode = self.original;
                true
            }
            Mode::InBody if top.name == name => self.end_current(),
            _ => false,
        }
    }

    /// The end tag in body of the current node, when its rule only pops it
    /// (the adoption agency, on the last formatting element listed, pops
    /// and unlists it): whether it was one.
    #[inline(always)]
    fn end_current(&mut self) -> bool {
        let Some(top) = self.stack.last() else {
            return false;
        };
        let listed_last = matches!(
            self.formatting.last(),
            Some(Entry::Element { id, .. }) if *id == top.id
        );
        if listed_last {
            self.stack.pop();
            self.formatting.pop();
        } else if top.flags & END_OWN == 0 {
            self.pop_plain();
        } else {
            return false;
        }
        true
    }

    /// [`State::pop`], inlined.
    #[inline(always)]
    fn pop_plain(&mut self) {
        if let Some(open) = self.stack.pop()
            && open.flags & (TEMPLATE | IMPLIED | FORMATTING) != 0
        {
            self.left(&open);
        }
    }
}

/// Whether a start tag in foreign content under `top` only creates an
/// element of its namespace: `top` no integration point nor
/// `annotation-xml`, the tag no HTML breaking out, and the element made
/// none of these either ([`classify_foreign`] gives it no flags).
#[inline(always)]
fn plain_foreign(top: &Open, name: Name) -> bool {
    top.flags & (TEXT_IP | SVG_IP | ANNOTATION) == 0
        && !breaks_out(name.id)
        && name.id != tag!("font")
        && match top.namespace {
            Namespace::Svg => !matches!(name.id, svg_html_integration_point!()),
            _ => !matches!(
                name.id,
                mathml_text_integration_point!() | tag!("annotation-xml")
            ),
        }
}

/// The stack of open elements and the list of active formatting elements.
impl State {
    /// Runs a token through the rules until it is done with.
    fn process(&mut self, tok: Tok<'_>) -> Step {
        for _ in 0..MAX_REPROCESS {
            let next = if self.is_foreign(tok) {
                self.foreign(tok)?
            } else {
                self.step(self.mode, tok)?
            };
            match next {
                Next::Reprocess(mode) => self.mode = mode,
                next => return Ok(next),
            }
        }
        Err(Bail("a token reprocessed too often"))
    }

    /// The initial insertion mode's DOCTYPE rule.
    fn doctype(&mut self, doctype: &Doctype) {
        if self.mode != Mode::Initial {
            return;
        }
        let public = doctype.public_id.as_deref();
        let system = doctype.system_id.as_deref();
        self.quirks = if doctype.force_quirks || doctype.name.as_deref() != Some("html") {
            Quirks::Yes
        } else if self.srcdoc {
            Quirks::No
        } else {
            quirks_of(public, system)
        };
        self.mode = Mode::BeforeHtml;
    }

    /// The commonest in body tags straight to their rule: an ordinary element
    /// opened, other start tags by [`Facts`], an element closed as current node
    /// (most end tags only pop). `None` leaves the token to the rules.
    #[inline]
    fn quick(&mut self, tok: Tok<'_>) -> Option<Step> {
        if self.mode != Mode::InBody {
            return None;
        }
        let top = self.stack.last()?;
        if top.namespace != Namespace::Html {
            return None;
        }
        match tok {
            // "Any other start tag": reconstruct, insert.
            Tok::Start(tag) if tag.facts.start == BodyStart::Ordinary => {
                Some(self.reconstruct().and_then(|()| {
                    self.insert(tag, true)?;
                    Ok(Next::Done)
                }))
            }
            // Any other start tag in body, past the dispatch to its rule.
            Tok::Start(tag) => Some(match self.body_start(tag) {
                Ok(Next::Reprocess(mode)) => {
                    self.mode = mode;
                    self.process(tok)
                }
                step => step,
            }),
            Tok::End(name) if top.name == *name => self.end_current().then_some(Ok(Next::Done)),
            _ => None,
        }
    }

    /// Whether text would leave the state as it is, without running the rules: in
    /// body under an HTML element with nothing to reconstruct, and in text mode.
    #[inline]
    fn text_changes_nothing(&self) -> bool {
        self.bailed.is_none()
            && matches!(self.mode, Mode::InBody | Mode::Text)
            && self.top().is_some_and(|e| e.namespace == Namespace::Html)
            && !matches!(
                self.formatting.last(),
                Some(Entry::Element { open: false, .. })
            )
    }

    /// Whether white space would leave the state as it is: in the modes before the body.
    #[inline]
    fn space_changes_nothing(&self) -> bool {
        self.bailed.is_none()
            && matches!(
                self.mode,
                Mode::Initial
                    | Mode::BeforeHtml
                    | Mode::BeforeHead
                    | Mode::InHead
                    | Mode::InHeadNoscript
                    | Mode::AfterHead
            )
    }

    fn top(&self) -> Option<&Open> {
        self.stack.last()
    }

    fn top_is(&self, flags: u32) -> bool {
        self.top().is_some_and(|e| e.flags & flags != 0)
    }

    fn top_is_html(&self, name: &Name) -> bool {
        self.top().is_some_and(|e| e.is_html(name))
    }

    /// Records the element the current start tag makes or joins, if the tag is logged.
    #[inline]
    fn record(&mut self, namespace: Namespace, in_template: bool) {
        if let Some(index) = self.current {
            let element = Element {
                namespace,
                in_template,
            };
            if self.tree.elements.len() == index {
                // The tag after the last one recorded, as most are.
                self.tree.elements.push(Some(element));
            } else {
                self.record_at(index, element);
            }
        }
    }

    /// [`State::record`] of a tag not right after the last one recorded.
    #[cold]
    #[inline(never)]
    fn record_at(&mut self, index: usize, element: Element) {
        let elements = &mut self.tree.elements;
        if elements.len() < index {
            elements.resize(index + 1, None);
        }
        // A later tie of the same tag wins.
        if let Some(slot) = elements.get_mut(index) {
            *slot = Some(element);
        } else {
            elements.push(Some(element));
        }
    }

    /// Creates an element for the current token if `tag` (else a phantom), pushed if `push`.
    fn create(
        &mut self,
        name: &Name,
        namespace: Namespace,
        flags: u32,
        tag: Option<&Tag>,
        push: bool,
    ) -> Result<u32, Bail> {
        let id = self.next_id();
        if let Some(tag) = tag {
            let in_template = self.in_template > 0;
            self.record(namespace, in_template);
            if self.landmarks {
                self.record_landmark(name, namespace);
            }
            if !in_template
                && namespace == Namespace::Html
                && name.id == tag!("base")
                && self.tree.base.is_none()
                && attr(tag, &local_name!("href")).is_some()
            {
                self.tree.base = self.current;
            }
        }
        if push {
            if self.stack.len() >= DEPTH_LIMIT {
                return Err(Bail("nesting too deep"));
            }
            if flags & TEMPLATE != 0 {
                self.in_template += 1;
            }
            if namespace == Namespace::Html && name.id == tag!("p") {
                self.paragraphs += 1;
            }
            let passes = self.passes(self.stack.len(), name, namespace, flags);
            self.stack.push(Open {
                name: *name,
                namespace,
                flags,
                id,
                passes,
            });
        }
        Ok(id)
    }

    /// The landmark of an element created now: itself, else the innermost on the
    /// stack up to the nearest template ([`Tree::landmarks`]); the adoption
    /// agency moves nothing across one, as landmarks are special.
    fn landmark(&self, name: &Name, namespace: Namespace) -> Option<Landmark> {
        let own = (namespace == Namespace::Html).then(|| landmark_of(*name));
        own.flatten()
            .or_else(|| self.stack.last().and_then(|open| open.passes))
    }

    /// What an element put on the stack at `at` passes on to those above
    /// it ([`Open::passes`]); nothing when landmarks are not found.
    #[inline]
    fn passes(&self, at: usize, name: &Name, namespace: Namespace, flags: u32) -> Option<Landmark> {
        if !self.landmarks {
            return None;
        }
        let below = || at.checked_sub(1).and_then(|i| self.stack.get(i)?.passes);
        match namespace == Namespace::Html {
            true if flags & TEMPLATE != 0 => None,
            true => landmark_of(*name).or_else(below),
            false => below(),
        }
    }

    /// Records the landmark of the current start tag's element; cold, as only WAT asks.
    #[cold]
    #[inline(never)]
    fn record_landmark(&mut self, name: &Name, namespace: Namespace) {
        let Some(index) = self.current else { return };
        let landmark = self.landmark(name, namespace);
        let landmarks = &mut self.tree.landmarks;
        if landmarks.len() <= index {
            landmarks.resize(index + 1, None);
        }
        landmarks[index] = landmark;
    }

    /// Inserts an HTML element for the current start tag.
    fn insert(&mut self, tag: &Tag, push: bool) -> Result<u32, Bail> {
        self.create(&tag.name, Namespace::Html, tag.facts.sets, Some(tag), push)
    }

    /// Inserts an HTML element no token asked for.
    fn phantom(&mut self, name: &Name) -> Result<u32, Bail> {
        self.create(name, Namespace::Html, classify(name.id), None, true)
    }

    /// Notes that an element left the stack.
    fn left(&mut self, open: &Open) {
        if open.flags & TEMPLATE != 0 {
            self.in_template = self.in_template.saturating_sub(1);
        }
        if open.flags & IMPLIED != 0 && open.is_html(&name!("p")) {
            self.paragraphs = self.paragraphs.saturating_sub(1);
        }
        if open.flags & FORMATTING != 0 {
            for entry in self.formatting.iter_mut().rev() {
                if let Entry::Element { id, open: o, .. } = entry
                    && *id == open.id
                {
                    *o = false;
                    break;
                }
            }
        }
    }

    /// Pops the current node, [`State::left`] only for an element that counts in it.
    #[inline]
    fn pop(&mut self) -> Result<(), Bail> {
        let open = self.stack.pop().ok_or(Bail("popping an empty stack"))?;
        if open.flags & (TEMPLATE | IMPLIED | FORMATTING) != 0 {
            self.left(&open);
        }
        Ok(())
    }

    /// Pops elements until the stack is `len` long.
    fn truncate(&mut self, len: usize) {
        while self.stack.len() > len {
            let _ = self.pop();
        }
    }

    /// Removes an element from the stack, wherever it is.
    fn remove(&mut self, id: u32) {
        if let Some(at) = self.stack.iter().rposition(|e| e.id == id) {
            let open = self.stack.remove(at);
            self.left(&open);
        }
    }

    /// Pops until an element `matches` has been popped.
    fn pop_until(&mut self, matches: impl Fn(&Open) -> bool) {
        while let Some(open) = self.stack.pop() {
            self.left(&open);
            if matches(&open) {
                break;
            }
        }
    }

    fn pop_until_named(&mut self, name: &Name) {
        self.pop_until(|e| e.is_html(name));
    }

    /// Pops until the current node is in `flags`.
    fn pop_until_current(&mut self, flags: u32) {
        while self.top().is_some_and(|e| e.flags & flags == 0) {
            let _ = self.pop();
        }
    }

    /// Whether an element `matches` is in the scope bounded by `flags`.
    fn in_scope(&self, flags: u32, matches: impl Fn(&Open) -> bool) -> bool {
        for open in self.stack.iter().rev() {
            if matches(open) {
                return true;
            }
            if open.flags & flags != 0 {
                return false;
            }
        }
        false
    }

    fn in_scope_named(&self, flags: u32, name: &Name) -> bool {
        self.in_scope(flags, |e| e.is_html(name))
    }

    /// Generates implied end tags for the elements in `flags`.
    fn generate_implied(&mut self, flags: u32) {
        while self.top_is(flags) {
            let _ = self.pop();
        }
    }

    /// Generates implied end tags, except for `name`.
    fn generate_implied_except(&mut self, name: &Name) {
        while self.top_is(IMPLIED) && !self.top_is_html(name) {
            let _ = self.pop();
        }
    }

    /// Whether a `select` is in the default scope (html5ever has no "in select" mode).
    fn select_in_scope(&self) -> bool {
        self.in_scope_named(SCOPE, &name!("select"))
    }

    fn close_p(&mut self) {
        self.generate_implied_except(&name!("p"));
        self.pop_until_named(&name!("p"));
    }

    fn close_p_in_button_scope(&mut self) {
        debug_assert_eq!(
            self.paragraphs,
            self.stack.iter().filter(|e| e.is_html(&name!("p"))).count()
        );
        if self.paragraphs > 0 && self.in_scope_named(SCOPE | BUTTON_SCOPE, &name!("p")) {
            self.close_p();
        }
    }

    /// Clears the list of active formatting elements up to the last marker.
    fn clear_to_marker(&mut self) {
        while let Some(entry) = self.formatting.pop() {
            if matches!(entry, Entry::Marker) {
                break;
            }
        }
    }

    /// Reconstructs the active formatting elements: a clone tied to no token for each
    /// entry after the last marker or open element, pushed in the list's order.
    #[inline]
    fn reconstruct(&mut self) -> Result<(), Bail> {
        match self.formatting.last() {
            Some(Entry::Element { open: false, .. }) => self.reconstruct_closed(),
            _ => Ok(()),
        }
    }

    /// [`State::reconstruct`] with something to reconstruct; bails in a table (foster parenting).
    #[cold]
    fn reconstruct_closed(&mut self) -> Result<(), Bail> {
        if self.top_is(TABLE_OUTER) {
            return Err(Bail("reconstructing formatting elements in a table"));
        }
        let closed = |e: &Entry| matches!(e, Entry::Element { open: false, .. });
        let mut from = self.formatting.len().saturating_sub(1);
        while from > 0 && self.formatting.get(from - 1).is_some_and(closed) {
            from -= 1;
        }
        for at in from..self.formatting.len() {
            let Some(Entry::Element { name, .. }) = self.formatting.get(at) else {
                continue;
            };
            let name = *name;
            let flags = classify(name.id) | FORMATTING;
            let id = self.create(&name, Namespace::Html, flags, None, true)?;
            if let Some(entry) = self.formatting.get_mut(at) {
                *entry = Entry::Element {
                    id,
                    name,
                    open: true,
                };
            }
        }
        Ok(())
    }

    /// The entries after the last marker, last first, with their index.
    fn after_marker(&self) -> impl Iterator<Item = (usize, u32, &Name)> {
        self.formatting
            .iter()
            .enumerate()
            .rev()
            .map_while(|(i, entry)| match entry {
                Entry::Marker => None,
                Entry::Element { id, name, .. } => Some((i, *id, name)),
            })
    }

    /// Inserts a formatting element for the current start tag.
    fn formatting_element(&mut self, tag: &Tag) -> Step {
        if self.after_marker().filter(|e| *e.2 == tag.name).count() >= 3 {
            return Err(Bail("a fourth like formatting element"));
        }
        let id = self.insert(tag, true)?;
        if let Some(top) = self.stack.last_mut() {
            top.flags |= FORMATTING;
        }
        self.formatting.push(Entry::Element {
            id,
            name: tag.name,
            open: true,
        });
        Ok(Next::Done)
    }

    /// The adoption agency algorithm (WHATWG HTML §13.2.6.4.7, as html5ever
    /// runs it). Elements keep their namespace and template contents when
    /// they move, so only the stack and the list change here.
    fn adoption_agency(&mut self, subject: &Name) -> Step {
        if let Some(top) = self.top()
            && top.is_html(subject)
            && !self
                .formatting
                .iter()
                .any(|e| matches!(e, Entry::Element { id, .. } if *id == top.id))
        {
            self.pop()?;
            return Ok(Next::Done);
        }
        for _ in 0..8 {
            let Some((entry, id, _)) = self.after_marker().find(|e| e.2 == subject) else {
                return Ok(self.end_tag_in_body(subject));
            };
            let Some(at) = self.stack.iter().rposition(|e| e.id == id) else {
                self.forget(entry);
                return Ok(Next::Done);
            };
            if !self.in_scope(SCOPE, |e| e.id == id) {
                return Ok(Next::Done);
            }
            let furthest = self
                .stack
                .iter()
                .enumerate()
                .skip(at)
                .find(|(_, e)| e.flags & SPECIAL != 0)
                .map(|(i, _)| i);
            let Some(furthest) = furthest else {
                self.truncate(at);
                self.forget(entry);
                return Ok(Next::Done);
            };
            self.adopt(at, furthest)?;
        }
        Ok(Next::Done)
    }

    /// The adoption agency's steps 11 to 19: the formatting element at `at`, the block at `furthest`.
    fn adopt(&mut self, at: usize, furthest: usize) -> Result<(), Bail> {
        let common = self
            .stack
            .get(at.wrapping_sub(1))
            .ok_or(Bail("no common ancestor"))?;
        if common.flags & TABLE_OUTER != 0 {
            // The moved block could be foster parented.
            return Err(Bail("the adoption agency under a table"));
        }
        let (formatting_id, block_id) = (self.stack[at].id, self.stack[furthest].id);
        // Where the formatting element's clone goes in the list.
        let (mut after, mut last_is_block) = (None, true);
        let mut node_at = furthest;
        for inner in 1.. {
            node_at -= 1;
            let node = self.stack[node_at].id;
            if node == formatting_id {
                break;
            }
            let listed = self.listed(node);
            if inner > 3 || listed.is_none() {
                if let Some(listed) = listed {
                    self.forget(listed);
                }
                let open = self.stack.remove(node_at);
                self.left(&open);
                continue;
            }
            let id = self.next_id();
            self.stack[node_at].id = id;
            if let Some(Entry::Element { id: listed, .. }) =
                listed.and_then(|l| self.formatting.get_mut(l))
            {
                *listed = id;
            }
            if last_is_block {
                after = Some(id);
                last_is_block = false;
            }
        }
        let clone = self.next_id();
        let entry = self
            .listed(formatting_id)
            .ok_or(Bail("formatting element unlisted"))?;
        let Some(Entry::Element { name, .. }) = self.formatting.get(entry) else {
            return Err(Bail("formatting element unlisted"));
        };
        let name = *name;
        let new = Entry::Element {
            id: clone,
            name,
            open: true,
        };
        match after.and_then(|id| self.listed(id)) {
            Some(previous) => {
                self.formatting.insert(previous + 1, new);
                self.formatting
                    .retain(|e| !matches!(e, Entry::Element { id, .. } if *id == formatting_id));
            }
            None => self.formatting[entry] = new,
        }
        self.stack.remove(at);
        let block = self
            .stack
            .iter()
            .position(|e| e.id == block_id)
            .ok_or(Bail("no block"))?;
        let flags = classify(name.id) | FORMATTING;
        let passes = self.passes(block + 1, &name, Namespace::Html, flags);
        self.stack.insert(
            block + 1,
            Open {
                name,
                namespace: Namespace::Html,
                flags,
                id: clone,
                passes,
            },
        );
        Ok(())
    }

    /// Where the element `id` is on the list of active formatting elements.
    fn listed(&self, id: u32) -> Option<usize> {
        self.formatting
            .iter()
            .position(|e| matches!(e, Entry::Element { id: listed, .. } if *listed == id))
    }

    /// A fresh element id.
    fn next_id(&mut self) -> u32 {
        let id = self.next_id;
        self.next_id = self.next_id.wrapping_add(1);
        id
    }

    /// An `a` start tag while an `a` is listed: the adoption agency, then that `a` removed.
    fn misnested_a(&mut self) -> Result<(), Bail> {
        let Some((_, id, _)) = self.after_marker().find(|e| e.2.id == tag!("a")) else {
            return Ok(());
        };
        self.adoption_agency(&name!("a"))?;
        let listed = self
            .formatting
            .iter()
            .position(|e| matches!(e, Entry::Element { id: listed, .. } if *listed == id));
        if let Some(at) = listed {
            self.forget(at);
        }
        self.remove(id);
        Ok(())
    }

    /// Removes entry `at` from the list of active formatting elements.
    fn forget(&mut self, at: usize) {
        if at < self.formatting.len() {
            self.formatting.remove(at);
        }
    }

    /// Any other end tag in body.
    fn end_tag_in_body(&mut self, name: &Name) -> Next {
        let mut found = None;
        for (at, open) in self.stack.iter().enumerate().rev() {
            if open.is_html(name) {
                found = Some(at);
                break;
            }
            if open.namespace == Namespace::Html && open.flags & SPECIAL != 0 {
                return Next::Done;
            }
        }
        if let Some(at) = found {
            self.generate_implied_except(name);
            self.truncate(at);
        }
        Next::Done
    }

    /// Resets the insertion mode appropriately.
    fn reset_mode(&self) -> Result<Mode, Bail> {
        for (at, open) in self.stack.iter().enumerate().rev() {
            if open.namespace != Namespace::Html {
                continue;
            }
            let last = at == 0;
            let mode = match open.name.id {
                tag!("td") | tag!("th") if !last => Mode::InCell,
                tag!("tr") => Mode::InRow,
                table_section!() => Mode::InTableBody,
                tag!("caption") => Mode::InCaption,
                tag!("colgroup") => Mode::InColumnGroup,
                tag!("table") => Mode::InTable,
                tag!("template") => {
                    return self.templates.last().copied().ok_or(Bail("template modes"));
                }
                tag!("head") if !last => Mode::InHead,
                tag!("body") => Mode::InBody,
                tag!("frameset") => return Err(Bail("frameset")),
                tag!("html") if self.head.is_some() => Mode::AfterHead,
                tag!("html") => Mode::BeforeHead,
                _ => continue,
            };
            return Ok(mode);
        }
        Ok(Mode::InBody)
    }

    /// Switches to the text mode, the tokenizer to `kind`.
    fn raw(&mut self, tag: &Tag, kind: RawKind) -> Step {
        self.insert(tag, true)?;
        self.original = self.mode;
        self.mode = Mode::Text;
        Ok(Next::Raw(kind))
    }
}

/// The insertion modes before the body.
impl State {
    fn step(&mut self, mode: Mode, tok: Tok<'_>) -> Step {
        match mode {
            Mode::Initial => Ok(self.initial(tok)),
            Mode::BeforeHtml => self.before_html(tok),
            Mode::BeforeHead => self.before_head(tok),
            Mode::InHead => self.in_head(tok),
            Mode::InHeadNoscript => self.in_head_noscript(tok),
            Mode::AfterHead => self.after_head(tok),
            Mode::InBody => self.in_body(tok),
            Mode::Text => self.text(tok),
            Mode::InTable => self.in_table(tok),
            Mode::InTableText => self.in_table_text(tok),
            Mode::InCaption => self.in_caption(tok),
            Mode::InColumnGroup => self.in_column_group(tok),
            Mode::InTableBody => self.in_table_body(tok),
            Mode::InRow => self.in_row(tok),
            Mode::InCell => self.in_cell(tok),
            Mode::InTemplate => self.in_template(tok),
            Mode::AfterBody | Mode::AfterAfterBody => self.after_body(mode, tok),
        }
    }

    fn initial(&mut self, tok: Tok<'_>) -> Next {
        if let Tok::Text { space: true } | Tok::Comment = tok {
            return Next::Done;
        }
        if !self.srcdoc {
            self.quirks = Quirks::Yes;
        }
        Next::Reprocess(Mode::BeforeHtml)
    }

    fn before_html(&mut self, tok: Tok<'_>) -> Step {
        match tok {
            Tok::Text { space: true } | Tok::Comment => return Ok(Next::Done),
            Tok::Start(tag) if tag.name.id == tag!("html") => {
                self.insert(tag, true)?;
                self.mode = Mode::BeforeHead;
                return Ok(Next::Done);
            }
            Tok::End(name) if ignored_before_head(name) => return Ok(Next::Done),
            _ => {}
        }
        self.phantom(&name!("html"))?;
        Ok(Next::Reprocess(Mode::BeforeHead))
    }

    fn before_head(&mut self, tok: Tok<'_>) -> Step {
        match tok {
            Tok::Text { space: true } | Tok::Comment => return Ok(Next::Done),
            Tok::Start(tag) if tag.name.id == tag!("html") => return self.in_body(tok),
            Tok::Start(tag) if tag.name.id == tag!("head") => {
                self.head = Some(self.insert(tag, true)?);
                self.mode = Mode::InHead;
                return Ok(Next::Done);
            }
            Tok::End(name) if ignored_before_head(name) => return Ok(Next::Done),
            _ => {}
        }
        self.head = Some(self.phantom(&name!("head"))?);
        Ok(Next::Reprocess(Mode::InHead))
    }

    fn in_head(&mut self, tok: Tok<'_>) -> Step {
        match tok {
            Tok::Text { space: true } | Tok::Comment => Ok(Next::Done),
            Tok::Start(tag) => match tag.name.id {
                tag!("html") => self.in_body(tok),
                tag!("base") | tag!("basefont") | tag!("bgsound") | tag!("link") | tag!("meta") => {
                    self.insert(tag, false)?;
                    Ok(Next::Done)
                }
                tag!("title") => self.raw(tag, RawKind::Rcdata),
                tag!("noframes") | tag!("style") => self.raw(tag, RawKind::Rawtext),
                tag!("noscript") => {
                    self.insert(tag, true)?;
                    self.mode = Mode::InHeadNoscript;
                    Ok(Next::Done)
                }
                tag!("script") => self.raw(tag, RawKind::ScriptData),
                tag!("template") => {
                    self.formatting.push(Entry::Marker);
                    self.mode = Mode::InTemplate;
                    self.templates.push(Mode::InTemplate);
                    self.insert(tag, true)?;
                    Ok(Next::Done)
                }
                tag!("head") => Ok(Next::Done),
                _ => self.in_head_else(),
            },
            Tok::End(name) => match name.id {
                tag!("head") => {
                    self.pop()?;
                    self.mode = Mode::AfterHead;
                    Ok(Next::Done)
                }
                body_html_br!() => self.in_head_else(),
                tag!("template") => self.end_template(),
                _ => Ok(Next::Done),
            },
            _ => self.in_head_else(),
        }
    }

    fn in_head_else(&mut self) -> Step {
        self.pop()?;
        Ok(Next::Reprocess(Mode::AfterHead))
    }

    fn end_template(&mut self) -> Step {
        if self.in_template > 0 {
            self.generate_implied(IMPLIED | THOROUGH);
            self.pop_until_named(&name!("template"));
            self.clear_to_marker();
            self.templates.pop();
            self.mode = self.reset_mode()?;
        }
        Ok(Next::Done)
    }

    fn in_head_noscript(&mut self, tok: Tok<'_>) -> Step {
        match tok {
            Tok::Start(tag) => match tag.name.id {
                tag!("html") => return self.in_body(tok),
                tag!("basefont")
                | tag!("bgsound")
                | tag!("link")
                | tag!("meta")
                | tag!("noframes")
                | tag!("style") => return self.in_head(tok),
                tag!("head") | tag!("noscript") => return Ok(Next::Done),
                _ => {}
            },
            Tok::End(Name {
                id: tag!("noscript"),
                ..
            }) => {
                self.pop()?;
                self.mode = Mode::InHead;
                return Ok(Next::Done);
            }
            Tok::End(Name { id: tag!("br"), .. }) => {}
            Tok::End(_) | Tok::Text { space: true } | Tok::Comment => return Ok(Next::Done),
            Tok::Text { .. } | Tok::Nul => {}
        }
        self.pop()?;
        Ok(Next::Reprocess(Mode::InHead))
    }

    fn after_head(&mut self, tok: Tok<'_>) -> Step {
        match tok {
            Tok::Text { space: true } | Tok::Comment => return Ok(Next::Done),
            Tok::Start(tag) => match tag.name.id {
                tag!("html") => return self.in_body(tok),
                tag!("body") => {
                    self.insert(tag, true)?;
                    self.mode = Mode::InBody;
                    return Ok(Next::Done);
                }
                tag!("frameset") => return Err(Bail("frameset")),
                in_head_start!() => return self.in_head_again(tok),
                tag!("head") => return Ok(Next::Done),
                _ => {}
            },
            Tok::End(Name {
                id: tag!("template"),
                ..
            }) => return self.in_head(tok),
            Tok::End(Name {
                id: body_html_br!(),
                ..
            }) => {}
            Tok::End(_) => return Ok(Next::Done),
            Tok::Text { .. } | Tok::Nul => {}
        }
        self.phantom(&name!("body"))?;
        Ok(Next::Reprocess(Mode::InBody))
    }

    /// A head element after the head: into the head again.
    fn in_head_again(&mut self, tok: Tok<'_>) -> Step {
        let head = self.head.ok_or(Bail("no head element"))?;
        if self.stack.len() >= DEPTH_LIMIT {
            return Err(Bail("nesting too deep"));
        }
        let flags = classify(tag!("head"));
        let passes = self.passes(self.stack.len(), &name!("head"), Namespace::Html, flags);
        self.stack.push(Open {
            name: name!("head"),
            namespace: Namespace::Html,
            flags,
            id: head,
            passes,
        });
        let next = self.in_head(tok);
        self.remove(head);
        next
    }

    fn text(&mut self, tok: Tok<'_>) -> Step {
        match tok {
            Tok::Text { .. } | Tok::Nul => Ok(Next::Done),
            Tok::End(_) => {
                self.pop()?;
                self.mode = self.original;
                Ok(Next::Done)
            }
            _ => Err(Bail("a token in raw text")),
        }
    }

    fn after_body(&mut self, mode: Mode, tok: Tok<'_>) -> Step {
        match tok {
            Tok::Text { space: true } => self.in_body(tok),
            Tok::Comment => Ok(Next::Done),
            Tok::Start(tag) if tag.name.id == tag!("html") => self.in_body(tok),
            Tok::End(Name {
                id: tag!("html"), ..
            }) if mode == Mode::AfterBody => {
                self.mode = Mode::AfterAfterBody;
                Ok(Next::Done)
            }
            _ => Ok(Next::Reprocess(Mode::InBody)),
        }
    }
}

/// The in body insertion mode.
impl State {
    fn in_body(&mut self, tok: Tok<'_>) -> Step {
        match tok {
            Tok::Nul | Tok::Comment => Ok(Next::Done),
            Tok::Text { .. } => {
                self.reconstruct()?;
                Ok(Next::Done)
            }
            Tok::Start(tag) => self.body_start(tag),
            Tok::End(name) => self.body_end(name),
        }
    }

    /// Start tags in body that close a `p`, or others that nest.
    fn body_start(&mut self, tag: &Tag) -> Step {
        match tag.facts.start {
            BodyStart::Ordinary => {
                self.reconstruct()?;
                self.insert(tag, true)?;
                Ok(Next::Done)
            }
            BodyStart::Block => {
                self.close_p_in_button_scope();
                self.insert(tag, true)?;
                Ok(Next::Done)
            }
            BodyStart::Heading => {
                self.close_p_in_button_scope();
                if self.top_is(HEADING) {
                    self.pop()?;
                }
                self.insert(tag, true)?;
                Ok(Next::Done)
            }
            BodyStart::ListItem => self.list_item(tag),
            BodyStart::A => {
                self.misnested_a()?;
                self.reconstruct()?;
                self.formatting_element(tag)
            }
            BodyStart::Formatting => {
                self.reconstruct()?;
                self.formatting_element(tag)
            }
            BodyStart::Nobr => {
                self.reconstruct()?;
                if self.in_scope_named(SCOPE, &name!("nobr")) {
                    self.adoption_agency(&name!("nobr"))?;
                    self.reconstruct()?;
                }
                self.formatting_element(tag)
            }
            _ => self.body_start_other(tag),
        }
    }

    /// Start tags in body: void and raw text elements, tables, forms, foreign content.
    fn body_start_other(&mut self, tag: &Tag) -> Step {
        match tag.facts.start {
            BodyStart::Void => {
                if tag.name.id == tag!("input") && self.select_in_scope() {
                    // An `input` closes an open `select`.
                    self.pop_until_named(&name!("select"));
                }
                self.reconstruct()?;
                let name = match tag.name.id {
                    tag!("image") => name!("img"),
                    _ => tag.name,
                };
                self.create(&name, Namespace::Html, 0, Some(tag), false)?;
                Ok(Next::Done)
            }
            BodyStart::ParamSourceTrack => {
                self.insert(tag, false)?;
                Ok(Next::Done)
            }
            BodyStart::Hr => {
                self.close_p_in_button_scope();
                if self.select_in_scope() {
                    self.generate_implied(IMPLIED);
                }
                self.insert(tag, false)?;
                Ok(Next::Done)
            }
            BodyStart::Textarea => self.raw(tag, RawKind::Rcdata),
            BodyStart::Xmp => {
                self.close_p_in_button_scope();
                self.reconstruct()?;
                self.raw(tag, RawKind::Rawtext)
            }
            BodyStart::IframeNoembed => self.raw(tag, RawKind::Rawtext),
            BodyStart::Plaintext => {
                self.close_p_in_button_scope();
                self.insert(tag, true)?;
                Ok(Next::Plaintext)
            }
            BodyStart::Table => {
                if self.quirks == Quirks::No {
                    self.close_p_in_button_scope();
                }
                self.insert(tag, true)?;
                self.mode = Mode::InTable;
                Ok(Next::Done)
            }
            BodyStart::Form => self.start_form(tag),
            BodyStart::InHead => self.in_head(Tok::Start(tag)),
            BodyStart::Math => self.enter_foreign(tag, Namespace::Other),
            BodyStart::Svg => self.enter_foreign(tag, Namespace::Svg),
            _ => self.body_start_rare(tag),
        }
    }

    /// Start tags in body met less often.
    fn body_start_rare(&mut self, tag: &Tag) -> Step {
        match tag.name.id {
            tag!("html") => {
                if self.in_template == 0 {
                    self.record(Namespace::Html, false);
                }
            }
            tag!("body") => {
                let body = self.stack.get(1).is_some_and(|e| e.is_html(&tag.name));
                if body && self.in_template == 0 {
                    self.record(Namespace::Html, false);
                }
            }
            tag!("frameset") => return Err(Bail("frameset")),
            tag!("select") => {
                // A `select` in a `select` closes it and makes nothing.
                if self.select_in_scope() {
                    self.pop_until_named(&tag.name);
                } else {
                    self.reconstruct()?;
                    self.insert(tag, true)?;
                }
            }
            tag!("button") => {
                if self.in_scope_named(SCOPE, &name!("button")) {
                    self.generate_implied(IMPLIED);
                    self.pop_until_named(&name!("button"));
                }
                self.reconstruct()?;
                self.insert(tag, true)?;
            }
            marker_inserting!() => {
                self.reconstruct()?;
                self.insert(tag, true)?;
                self.formatting.push(Entry::Marker);
            }
            tag!("option") | tag!("optgroup") => {
                if self.select_in_scope() {
                    // An `option` closes open `option`s; an `optgroup` closes those and `optgroup`s.
                    if tag.name.id == tag!("option") {
                        self.generate_implied_except(&name!("optgroup"));
                    } else {
                        self.generate_implied(IMPLIED);
                    }
                } else if self.top_is_html(&name!("option")) {
                    self.pop()?;
                }
                self.reconstruct()?;
                self.insert(tag, true)?;
            }
            tag!("rb") | tag!("rtc") => {
                if self.in_scope_named(SCOPE, &name!("ruby")) {
                    self.generate_implied(IMPLIED);
                }
                self.insert(tag, true)?;
            }
            tag!("rp") | tag!("rt") => {
                if self.in_scope_named(SCOPE, &name!("ruby")) {
                    self.generate_implied_except(&name!("rtc"));
                }
                self.insert(tag, true)?;
            }
            tag!("caption")
            | tag!("col")
            | tag!("colgroup")
            | tag!("frame")
            | tag!("head")
            | tag!("tbody")
            | tag!("td")
            | tag!("tfoot")
            | tag!("th")
            | tag!("thead")
            | tag!("tr") => {}
            _ => {
                self.reconstruct()?;
                self.insert(tag, true)?;
            }
        }
        Ok(Next::Done)
    }

    fn list_item(&mut self, tag: &Tag) -> Step {
        let list = tag.name.id == tag!("li");
        let mut close = None;
        for open in self.stack.iter().rev() {
            if open.namespace != Namespace::Html {
                continue;
            }
            let closes = match open.name.id {
                tag!("li") => list,
                tag!("dd") | tag!("dt") => !list,
                _ => false,
            };
            if closes {
                close = Some(open.name);
                break;
            }
            let passes = matches!(open.name.id, tag!("address") | tag!("div") | tag!("p"));
            if open.flags & SPECIAL != 0 && !passes {
                break;
            }
        }
        if let Some(name) = close {
            self.generate_implied_except(&name);
            self.pop_until_named(&name);
        }
        self.close_p_in_button_scope();
        self.insert(tag, true)?;
        Ok(Next::Done)
    }

    fn start_form(&mut self, tag: &Tag) -> Step {
        if self.form.is_some() && self.in_template == 0 {
            return Ok(Next::Done);
        }
        self.close_p_in_button_scope();
        let id = self.insert(tag, true)?;
        if self.in_template == 0 {
            self.form = Some(id);
        }
        Ok(Next::Done)
    }

    fn enter_foreign(&mut self, tag: &Tag, namespace: Namespace) -> Step {
        self.reconstruct()?;
        self.create(&tag.name, namespace, 0, Some(tag), !tag.self_closing)?;
        Ok(Next::Done)
    }

    fn body_end(&mut self, name: &Name) -> Step {
        match name.id {
            tag!("template") => return self.in_head(Tok::End(name)),
            tag!("body") => {
                if self.in_scope_named(SCOPE, &name!("body")) {
                    self.mode = Mode::AfterBody;
                }
            }
            tag!("html") => {
                if self.in_scope_named(SCOPE, &name!("body")) {
                    return Ok(Next::Reprocess(Mode::AfterBody));
                }
            }
            tag!("address")
            | tag!("article")
            | tag!("aside")
            | tag!("blockquote")
            | tag!("button")
            | tag!("center")
            | tag!("details")
            | tag!("dialog")
            | tag!("dir")
            | tag!("div")
            | tag!("dl")
            | tag!("fieldset")
            | tag!("figcaption")
            | tag!("figure")
            | tag!("footer")
            | tag!("header")
            | tag!("hgroup")
            | tag!("listing")
            | tag!("main")
            | tag!("menu")
            | tag!("nav")
            | tag!("ol")
            | tag!("pre")
            | tag!("search")
            | tag!("section")
            | tag!("select")
            | tag!("summary")
            | tag!("ul") => {
                if self.in_scope_named(SCOPE, name) {
                    self.generate_implied(IMPLIED);
                    self.pop_until_named(name);
                }
            }
            tag!("form") => self.end_form(),
            tag!("p") => {
                // Without a `p` in scope html5ever inserts and closes one: no tied element changes.
                if self.in_scope_named(SCOPE | BUTTON_SCOPE, name) {
                    self.close_p();
                }
            }
            _ => return self.body_end_other(name),
        }
        Ok(Next::Done)
    }

    fn body_end_other(&mut self, name: &Name) -> Step {
        match name.id {
            list_item!() => {
                let scope = match name.id {
                    tag!("li") => SCOPE | LIST_SCOPE,
                    _ => SCOPE,
                };
                if self.in_scope_named(scope, name) {
                    self.generate_implied_except(name);
                    self.pop_until_named(name);
                }
            }
            heading!() => {
                let heading = |e: &Open| e.namespace == Namespace::Html && e.flags & HEADING != 0;
                if self.in_scope(SCOPE, heading) {
                    self.generate_implied(IMPLIED);
                    self.pop_until(heading);
                }
            }
            tag!("a") | tag!("nobr") | formatting!() => {
                return self.adoption_agency(name);
            }
            marker_inserting!() => {
                if self.in_scope_named(SCOPE, name) {
                    self.generate_implied(IMPLIED);
                    self.pop_until_named(name);
                    self.clear_to_marker();
                }
            }
            tag!("br") => {
                // As a `<br>` with no attributes: tied to no tag.
                self.reconstruct()?;
                self.create(name, Namespace::Html, 0, None, false)?;
            }
            _ => return Ok(self.end_tag_in_body(name)),
        }
        Ok(Next::Done)
    }

    fn end_form(&mut self) {
        if self.in_template == 0 {
            let Some(form) = self.form.take() else {
                return;
            };
            if !self.in_scope(SCOPE, |e| e.id == form) {
                return;
            }
            self.generate_implied(IMPLIED);
            self.remove(form);
        } else {
            if !self.in_scope_named(SCOPE, &name!("form")) {
                return;
            }
            self.generate_implied(IMPLIED);
            self.pop_until_named(&name!("form"));
        }
    }
}

/// The table insertion modes and the template one.
impl State {
    fn in_table(&mut self, tok: Tok<'_>) -> Step {
        let tag = match tok {
            Tok::Text { .. } | Tok::Nul => {
                if !self.top_is(TABLE_OUTER) {
                    return Err(Bail("text in a table"));
                }
                self.original = self.mode;
                self.table_text = false;
                return Ok(Next::Reprocess(Mode::InTableText));
            }
            Tok::Comment => return Ok(Next::Done),
            Tok::End(name) => return self.table_end(name),
            Tok::Start(tag) => tag,
        };
        match tag.name.id {
            tag!("caption") => {
                self.pop_until_current(TABLE_SCOPE);
                self.formatting.push(Entry::Marker);
                self.insert(tag, true)?;
                self.mode = Mode::InCaption;
            }
            tag!("colgroup") => {
                self.pop_until_current(TABLE_SCOPE);
                self.insert(tag, true)?;
                self.mode = Mode::InColumnGroup;
            }
            tag!("col") => {
                self.pop_until_current(TABLE_SCOPE);
                self.phantom(&name!("colgroup"))?;
                return Ok(Next::Reprocess(Mode::InColumnGroup));
            }
            table_section!() => {
                self.pop_until_current(TABLE_SCOPE);
                self.insert(tag, true)?;
                self.mode = Mode::InTableBody;
            }
            tag!("td") | tag!("th") | tag!("tr") => {
                self.pop_until_current(TABLE_SCOPE);
                self.phantom(&name!("tbody"))?;
                return Ok(Next::Reprocess(Mode::InTableBody));
            }
            tag!("table") => {
                if self.in_scope_named(TABLE_SCOPE, &name!("table")) {
                    self.pop_until_named(&name!("table"));
                    return Ok(Next::Reprocess(self.reset_mode()?));
                }
            }
            tag!("style") | tag!("script") | tag!("template") => {
                return self.in_head(tok);
            }
            tag!("input")
                if attr(tag, &local_name!("type"))
                    .is_some_and(|t| t.eq_ignore_ascii_case("hidden")) =>
            {
                self.insert(tag, false)?;
            }
            tag!("form") => {
                if self.in_template == 0 && self.form.is_none() {
                    self.form = Some(self.insert(tag, false)?);
                }
            }
            _ => return Err(Bail("an element in a table")),
        }
        Ok(Next::Done)
    }

    fn table_end(&mut self, name: &Name) -> Step {
        match name.id {
            tag!("table") => {
                if self.in_scope_named(TABLE_SCOPE, name) {
                    self.pop_until_named(name);
                    self.mode = self.reset_mode()?;
                }
                Ok(Next::Done)
            }
            tag!("template") => self.in_head(Tok::End(name)),
            tag!("body")
            | tag!("caption")
            | tag!("col")
            | tag!("colgroup")
            | tag!("html")
            | tag!("tbody")
            | tag!("td")
            | tag!("tfoot")
            | tag!("th")
            | tag!("thead")
            | tag!("tr") => Ok(Next::Done),
            // Foster parenting changes nothing an end tag does in body that a tag is tied to.
            _ => self.in_body(Tok::End(name)),
        }
    }

    fn in_table_text(&mut self, tok: Tok<'_>) -> Step {
        match tok {
            Tok::Nul => Ok(Next::Done),
            Tok::Text { space } => {
                self.table_text |= !space;
                Ok(Next::Done)
            }
            _ if self.table_text => Err(Bail("text in a table")),
            _ => Ok(Next::Reprocess(self.original)),
        }
    }

    fn in_caption(&mut self, tok: Tok<'_>) -> Step {
        let (closes, end) = match tok {
            Tok::Start(tag) => (matches!(tag.name.id, table_part!()), false),
            Tok::End(name) => match name.id {
                tag!("table") => (true, false),
                tag!("caption") => (true, true),
                tag!("body")
                | tag!("col")
                | tag!("colgroup")
                | tag!("html")
                | tag!("tbody")
                | tag!("td")
                | tag!("tfoot")
                | tag!("th")
                | tag!("thead")
                | tag!("tr") => return Ok(Next::Done),
                _ => (false, false),
            },
            _ => (false, false),
        };
        if !closes {
            return self.in_body(tok);
        }
        if !self.in_scope_named(TABLE_SCOPE, &name!("caption")) {
            return Ok(Next::Done);
        }
        self.generate_implied(IMPLIED);
        self.pop_until_named(&name!("caption"));
        self.clear_to_marker();
        if end {
            self.mode = Mode::InTable;
            Ok(Next::Done)
        } else {
            Ok(Next::Reprocess(Mode::InTable))
        }
    }

    fn in_column_group(&mut self, tok: Tok<'_>) -> Step {
        match tok {
            Tok::Text { space: true } | Tok::Comment => return Ok(Next::Done),
            Tok::Start(tag) => match tag.name.id {
                tag!("html") => return self.in_body(tok),
                tag!("col") => {
                    self.insert(tag, false)?;
                    return Ok(Next::Done);
                }
                tag!("template") => return self.in_head(tok),
                _ => {}
            },
            Tok::End(Name {
                id: tag!("colgroup"),
                ..
            }) => {
                if self.top_is_html(&name!("colgroup")) {
                    self.pop()?;
                    self.mode = Mode::InTable;
                }
                return Ok(Next::Done);
            }
            Tok::End(Name {
                id: tag!("col"), ..
            }) => return Ok(Next::Done),
            Tok::End(Name {
                id: tag!("template"),
                ..
            }) => return self.in_head(tok),
            _ => {}
        }
        if self.top_is_html(&name!("colgroup")) {
            self.pop()?;
            Ok(Next::Reprocess(Mode::InTable))
        } else {
            Ok(Next::Done)
        }
    }

    fn in_table_body(&mut self, tok: Tok<'_>) -> Step {
        match tok {
            Tok::Start(tag) => match tag.name.id {
                tag!("tr") => {
                    self.pop_until_current(BODY_CONTEXT);
                    self.insert(tag, true)?;
                    self.mode = Mode::InRow;
                    Ok(Next::Done)
                }
                tag!("th") | tag!("td") => {
                    self.pop_until_current(BODY_CONTEXT);
                    self.phantom(&name!("tr"))?;
                    Ok(Next::Reprocess(Mode::InRow))
                }
                tag!("caption")
                | tag!("col")
                | tag!("colgroup")
                | tag!("tbody")
                | tag!("tfoot")
                | tag!("thead") => self.table_body_close(),
                _ => self.in_table(tok),
            },
            Tok::End(name) => match name.id {
                table_section!() => {
                    if self.in_scope_named(TABLE_SCOPE, name) {
                        self.pop_until_current(BODY_CONTEXT);
                        self.pop()?;
                        self.mode = Mode::InTable;
                    }
                    Ok(Next::Done)
                }
                tag!("table") => self.table_body_close(),
                tag!("body")
                | tag!("caption")
                | tag!("col")
                | tag!("colgroup")
                | tag!("html")
                | tag!("td")
                | tag!("th")
                | tag!("tr") => Ok(Next::Done),
                _ => self.in_table(tok),
            },
            _ => self.in_table(tok),
        }
    }

    /// Closes the table body for a tag that belongs to the table.
    fn table_body_close(&mut self) -> Step {
        let outer = |e: &Open| {
            e.namespace == Namespace::Html
                && matches!(e.name.id, tag!("table") | tag!("tbody") | tag!("tfoot"))
        };
        if !self.in_scope(TABLE_SCOPE, outer) {
            return Ok(Next::Done);
        }
        self.pop_until_current(BODY_CONTEXT);
        self.pop()?;
        Ok(Next::Reprocess(Mode::InTable))
    }

    fn in_row(&mut self, tok: Tok<'_>) -> Step {
        match tok {
            Tok::Start(tag) => match tag.name.id {
                tag!("th") | tag!("td") => {
                    self.pop_until_current(ROW_CONTEXT);
                    self.insert(tag, true)?;
                    self.mode = Mode::InCell;
                    self.formatting.push(Entry::Marker);
                    Ok(Next::Done)
                }
                tag!("caption")
                | tag!("col")
                | tag!("colgroup")
                | tag!("tbody")
                | tag!("tfoot")
                | tag!("thead")
                | tag!("tr") => self.row_close(Next::Reprocess(Mode::InTableBody)),
                _ => self.in_table(tok),
            },
            Tok::End(name) => match name.id {
                tag!("tr") => self.row_close(Next::Done),
                tag!("table") => self.row_close(Next::Reprocess(Mode::InTableBody)),
                table_section!() => {
                    if !self.in_scope_named(TABLE_SCOPE, name) {
                        return Ok(Next::Done);
                    }
                    self.row_close(Next::Reprocess(Mode::InTableBody))
                }
                tag!("body")
                | tag!("caption")
                | tag!("col")
                | tag!("colgroup")
                | tag!("html")
                | tag!("td")
                | tag!("th") => Ok(Next::Done),
                _ => self.in_table(tok),
            },
            _ => self.in_table(tok),
        }
    }

    /// Closes the row, if one is in table scope, and goes on with `next`.
    fn row_close(&mut self, next: Next) -> Step {
        if !self.in_scope_named(TABLE_SCOPE, &name!("tr")) {
            return Ok(Next::Done);
        }
        self.pop_until_current(ROW_CONTEXT);
        self.pop()?;
        if let Next::Done = next {
            self.mode = Mode::InTableBody;
        }
        Ok(next)
    }

    fn in_cell(&mut self, tok: Tok<'_>) -> Step {
        match tok {
            Tok::End(name @ (Name { id: tag!("td"), .. } | Name { id: tag!("th"), .. })) => {
                if self.in_scope_named(TABLE_SCOPE, name) {
                    self.generate_implied(IMPLIED);
                    self.pop_until_named(name);
                    self.clear_to_marker();
                    self.mode = Mode::InRow;
                }
                Ok(Next::Done)
            }
            Tok::Start(tag) if matches!(tag.name.id, table_part!()) => {
                let cell = |e: &Open| e.namespace == Namespace::Html && e.flags & CELL != 0;
                if !self.in_scope(TABLE_SCOPE, cell) {
                    return Ok(Next::Done);
                }
                self.close_cell();
                Ok(Next::Reprocess(Mode::InRow))
            }
            Tok::End(
                Name {
                    id: tag!("body"), ..
                }
                | Name {
                    id: tag!("caption"),
                    ..
                }
                | Name {
                    id: tag!("col"), ..
                }
                | Name {
                    id: tag!("colgroup"),
                    ..
                }
                | Name {
                    id: tag!("html"), ..
                },
            ) => Ok(Next::Done),
            Tok::End(
                name @ (Name {
                    id: tag!("table"), ..
                }
                | Name {
                    id: tag!("tbody"), ..
                }
                | Name {
                    id: tag!("tfoot"), ..
                }
                | Name {
                    id: tag!("thead"), ..
                }
                | Name { id: tag!("tr"), .. }),
            ) => {
                if !self.in_scope_named(TABLE_SCOPE, name) {
                    return Ok(Next::Done);
                }
                self.close_cell();
                Ok(Next::Reprocess(Mode::InRow))
            }
            _ => self.in_body(tok),
        }
    }

    fn close_cell(&mut self) {
        self.generate_implied(IMPLIED);
        self.pop_until(|e| e.namespace == Namespace::Html && e.flags & CELL != 0);
        self.clear_to_marker();
    }

    fn in_template(&mut self, tok: Tok<'_>) -> Step {
        let tag = match tok {
            Tok::Text { .. } | Tok::Comment => return self.in_body(tok),
            Tok::Nul => return Ok(Next::Done),
            Tok::End(Name {
                id: tag!("template"),
                ..
            }) => return self.in_head(tok),
            Tok::End(_) => return Ok(Next::Done),
            Tok::Start(tag) => tag,
        };
        let mode = match tag.name.id {
            in_head_start!() => return self.in_head(tok),
            tag!("caption") | tag!("colgroup") | tag!("tbody") | tag!("tfoot") | tag!("thead") => {
                Mode::InTable
            }
            tag!("col") => Mode::InColumnGroup,
            tag!("tr") => Mode::InTableBody,
            tag!("td") | tag!("th") => Mode::InRow,
            _ => Mode::InBody,
        };
        self.templates.pop();
        self.templates.push(mode);
        Ok(Next::Reprocess(mode))
    }
}

/// Foreign content.
impl State {
    /// Whether a token goes by the rules for foreign content.
    fn is_foreign(&self, tok: Tok<'_>) -> bool {
        let Some(top) = self.top() else {
            return false;
        };
        if top.namespace == Namespace::Html {
            return false;
        }
        let start = matches!(tok, Tok::Start(_));
        let text = matches!(tok, Tok::Text { .. } | Tok::Nul);
        if top.flags & TEXT_IP != 0 {
            match tok {
                Tok::Text { .. } | Tok::Nul => return false,
                Tok::Start(tag) if !matches!(tag.name.id, tag!("mglyph") | tag!("malignmark")) => {
                    return false;
                }
                _ => {}
            }
        }
        if top.flags & SVG_IP != 0 && (start || text) {
            return false;
        }
        if top.flags & ANNOTATION != 0 {
            if let Tok::Start(tag) = tok
                && tag.name.id == tag!("svg")
            {
                return false;
            }
            if start || text {
                return top.flags & ANNOTATION_IP == 0;
            }
        }
        true
    }

    fn foreign(&mut self, tok: Tok<'_>) -> Step {
        match tok {
            Tok::Text { .. } | Tok::Nul | Tok::Comment => Ok(Next::Done),
            Tok::Start(tag) => {
                let font = tag.name.id == tag!("font")
                    && [
                        local_name!("color"),
                        local_name!("face"),
                        local_name!("size"),
                    ]
                    .iter()
                    .any(|name| attr(tag, name).is_some());
                if breaks_out(tag.name.id) || font {
                    return self.break_out(tok);
                }
                let namespace = self.top().map_or(Namespace::Html, |e| e.namespace);
                let flags = classify_foreign(tag, namespace);
                self.create(&tag.name, namespace, flags, Some(tag), !tag.self_closing)?;
                Ok(Next::Done)
            }
            Tok::End(Name { id: tag!("br"), .. } | Name { id: tag!("p"), .. }) => {
                self.break_out(tok)
            }
            Tok::End(name) => self.foreign_end(tok, name),
        }
    }

    /// A tag that leaves foreign content: pops to HTML or an integration point.
    fn break_out(&mut self, tok: Tok<'_>) -> Step {
        while self
            .top()
            .is_some_and(|e| e.namespace != Namespace::Html && e.flags & (TEXT_IP | SVG_IP) == 0)
        {
            self.pop()?;
        }
        self.step(self.mode, tok)
    }

    fn foreign_end(&mut self, tok: Tok<'_>, name: &Name) -> Step {
        let mut at = self.stack.len().saturating_sub(1);
        let mut first = true;
        loop {
            if at == 0 {
                return Ok(Next::Done);
            }
            let Some(open) = self.stack.get(at) else {
                return Ok(Next::Done);
            };
            if !first && open.namespace == Namespace::Html {
                return self.step(self.mode, tok);
            }
            // Names on the stack and the end tag's are lower case: html5ever ignores case.
            if open.name == *name {
                self.truncate(at);
                return Ok(Next::Done);
            }
            first = false;
            at -= 1;
        }
    }
}

/// An end tag "before html" and "before head" ignore: any but `head`, `body`, `html`, `br`.
fn ignored_before_head(name: &Name) -> bool {
    !matches!(name.id, tag!("head") | body_html_br!())
}

/// Whether a doctype's identifiers put the document in quirks mode
/// (WHATWG HTML §13.2.6.4.1, with html5ever's lists); limited quirks
/// changes nothing followed here, so it is [`Quirks::No`].
fn quirks_of(public: Option<&str>, system: Option<&str>) -> Quirks {
    let public = public.map(str::to_ascii_lowercase);
    let system = system.map(str::to_ascii_lowercase);
    let (public, system) = (public.as_deref(), system.as_deref());
    let prefixed = |list: &[&str]| public.is_some_and(|p| list.iter().any(|x| p.starts_with(x)));
    let quirky = public.is_some_and(|p| QUIRKY_PUBLIC_MATCHES.contains(&p))
        || system.is_some_and(|s| QUIRKY_SYSTEM_MATCHES.contains(&s))
        || prefixed(QUIRKY_PUBLIC_PREFIXES)
        || (!prefixed(LIMITED_QUIRKY_PUBLIC_PREFIXES)
            && prefixed(HTML4_PUBLIC_PREFIXES)
            && system.is_none());
    if quirky { Quirks::Yes } else { Quirks::No }
}

/// Public identifiers whose prefixes mean quirks mode (lower case).
const QUIRKY_PUBLIC_PREFIXES: &[&str] = &[
    "-//advasoft ltd//dtd html 3.0 aswedit + extensions//",
    "-//as//dtd html 3.0 aswedit + extensions//",
    "-//ietf//dtd html 2.0 level 1//",
    "-//ietf//dtd html 2.0 level 2//",
    "-//ietf//dtd html 2.0 strict level 1//",
    "-//ietf//dtd html 2.0 strict level 2//",
    "-//ietf//dtd html 2.0 strict//",
    "-//ietf//dtd html 2.0//",
    "-//ietf//dtd html 2.1e//",
    "-//ietf//dtd html 3.0//",
    "-//ietf//dtd html 3.2 final//",
    "-//ietf//dtd html 3.2//",
    "-//ietf//dtd html 3//",
    "-//ietf//dtd html level 0//",
    "-//ietf//dtd html level 1//",
    "-//ietf//dtd html level 2//",
    "-//ietf//dtd html level 3//",
    "-//ietf//dtd html strict level 0//",
    "-//ietf//dtd html strict level 1//",
    "-//ietf//dtd html strict level 2//",
    "-//ietf//dtd html strict level 3//",
    "-//ietf//dtd html strict//",
    "-//ietf//dtd html//",
    "-//metrius//dtd metrius presentational//",
    "-//microsoft//dtd internet explorer 2.0 html strict//",
    "-//microsoft//dtd internet explorer 2.0 html//",
    "-//microsoft//dtd internet explorer 2.0 tables//",
    "-//microsoft//dtd internet explorer 3.0 html strict//",
    "-//microsoft//dtd internet explorer 3.0 html//",
    "-//microsoft//dtd internet explorer 3.0 tables//",
    "-//netscape comm. corp.//dtd html//",
    "-//netscape comm. corp.//dtd strict html//",
    "-//o'reilly and associates//dtd html 2.0//",
    "-//o'reilly and associates//dtd html extended 1.0//",
    "-//o'reilly and associates//dtd html extended relaxed 1.0//",
    "-//softquad software//dtd hotmetal pro 6.0::19990601::extensions to html 4.0//",
    "-//softquad//dtd hotmetal pro 4.0::19971010::extensions to html 4.0//",
    "-//spyglass//dtd html 2.0 extended//",
    "-//sq//dtd html 2.0 hotmetal + extensions//",
    "-//sun microsystems corp.//dtd hotjava html//",
    "-//sun microsystems corp.//dtd hotjava strict html//",
    "-//w3c//dtd html 3 1995-03-24//",
    "-//w3c//dtd html 3.2 draft//",
    "-//w3c//dtd html 3.2 final//",
    "-//w3c//dtd html 3.2//",
    "-//w3c//dtd html 3.2s draft//",
    "-//w3c//dtd html 4.0 frameset//",
    "-//w3c//dtd html 4.0 transitional//",
    "-//w3c//dtd html experimental 19960712//",
    "-//w3c//dtd html experimental 970421//",
    "-//w3c//dtd w3 html//",
    "-//w3o//dtd w3 html 3.0//",
    "-//webtechs//dtd mozilla html 2.0//",
    "-//webtechs//dtd mozilla html//",
];

/// Public identifiers that mean quirks mode (lower case).
const QUIRKY_PUBLIC_MATCHES: &[&str] = &[
    "-//w3o//dtd w3 html strict 3.0//en//",
    "-/w3c/dtd html 4.0 transitional/en",
    "html",
];

/// System identifiers that mean quirks mode (lower case).
const QUIRKY_SYSTEM_MATCHES: &[&str] =
    &["http://www.ibm.com/data/dtd/v11/ibmxhtml1-transitional.dtd"];

/// Public identifier prefixes of limited quirks mode (lower case).
const LIMITED_QUIRKY_PUBLIC_PREFIXES: &[&str] = &[
    "-//w3c//dtd xhtml 1.0 frameset//",
    "-//w3c//dtd xhtml 1.0 transitional//",
];

/// Public identifier prefixes of quirks mode without a system identifier, limited quirks mode with one (lower case).
const HTML4_PUBLIC_PREFIXES: &[&str] = &[
    "-//w3c//dtd html 4.01 frameset//",
    "-//w3c//dtd html 4.01 transitional//",
];

#[cfg(test)]
mod tests {
    use super::*;

    /// Every listed name is the landmark by its id that it is by its atom,
    /// and a name not listed is none.
    #[test]
    fn a_landmark_told_by_id_is_the_one_told_by_atom() {
        for (&id, &name) in TagId::ALL.iter().zip(TagId::NAMES) {
            let by_atom = Landmark::of(&LocalName::from(name));
            assert_eq!(landmark_of(Name::listed(id)), by_atom, "{name}");
        }
        let other = Name {
            id: TagId::Other,
            other: 1,
        };
        assert_eq!(landmark_of(other), None);
        let found = TagId::ALL
            .iter()
            .filter(|&&id| landmark_of(Name::listed(id)).is_some());
        assert_eq!(found.count(), 5);
    }

    /// A document of many distinct custom names holds no more of them than
    /// [`OTHERS_KEPT`], and the names of open elements survive a clearing.
    #[test]
    fn names_not_listed_are_forgotten_once_no_element_holds_them() {
        let mut page = String::from("<body><x-outer><y-inner>");
        for i in 0..3 * OTHERS_KEPT {
            page.push_str(&format!("<c-{i}>t</c-{i}>"));
        }
        page.push_str("</y-inner><a href=x>in x-outer</a></x-outer><a href=y>");
        let log = SpanLog::default();
        let options = tokenizer::Options {
            attributes: Attributes::TreeBuilder,
            ..tokenizer::Options::default()
        };
        let tracker = Tracker::new(&log, (DocumentKind::Document, false));
        let tracker = tokenizer::tokenize_into(&page, tracker, &log, options);
        let state = tracker.state.borrow();
        assert!(state.others.atoms.len() <= OTHERS_KEPT);
        assert_eq!(state.stack.len(), 3, "{:?}", state.stack);
        assert_eq!(state.stack[2].name.id, tag!("a"));
        assert_eq!(state.bailed, None);
    }
}
