//! Parsing a document with html5ever into a lean arena, and recovering
//! where in the source each tag lies.
//!
//! html5ever reports no source positions. relink feeds the tokenizer chunks
//! that each end just after a `>`. A tag token is emitted as soon as its `>`
//! is consumed, so a tag emitted while a chunk is fed ends exactly at that
//! chunk's end. Its start is the nearest `<` before that end, and not before
//! the previous tag, comment or doctype, that re-lexes
//! ([`super::lex`]) into the same kind of tag, name and attributes, ending
//! at the same place. A tag where that fails is never patched.
//!
//! The tree sink ([`super::arena`]) ties each element the tree builder
//! creates to the token being processed, so the rest of relink learns each tag's
//! namespace and whether it lies in template contents, and finds the
//! document's base element in tree order. The tree stays behind this module:
//! the rest of relink sees only [`Document`].

use std::cell::{Cell, RefCell};

use html5ever::TokenizerResult;
use html5ever::tendril::StrTendril;
use html5ever::tokenizer::{
    BufferQueue, TagKind, Token, TokenSink, TokenSinkResult, Tokenizer, TokenizerOpts,
};
use html5ever::tree_builder::{TreeBuilder, TreeBuilderOpts};
use html5ever::{Attribute, LocalName};

use super::arena::{Arena, NodeRef};
use super::lex::{LexedTag, lex_tag};

/// The namespace an element was created in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Namespace {
    /// HTML.
    Html,
    /// SVG.
    Svg,
    /// MathML, or anything else.
    Other,
}

/// What the tree says of the element a start tag created.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Element {
    /// Its namespace.
    pub namespace: Namespace,
    /// Whether it lies in a template's contents.
    pub in_template: bool,
}

/// One tag of the source.
#[derive(Debug, Clone)]
pub struct Tag {
    /// The tag as re-lexed from the source, with its start; `None` when the
    /// source could not be matched to html5ever's token.
    pub source: Option<(usize, LexedTag)>,
    /// Start or end tag.
    pub kind: TagKind,
    /// The name, as the tokenizer gave it.
    pub name: LocalName,
    /// The attributes with their decoded values, as the tokenizer gave them.
    pub attrs: Vec<Attribute>,
    /// The element this start tag created or added attributes to, if it is
    /// in the final tree.
    pub element: Option<Element>,
}

/// A parsed document: its tags in source order, and which one is the base.
#[derive(Debug, Default)]
pub struct Document {
    /// Every tag html5ever emitted, in source order.
    pub tags: Vec<Tag>,
    /// The first HTML `base` element with an `href` in tree order, outside
    /// template contents (its index in `tags`).
    pub base: Option<usize>,
}

/// Parses `src` as an HTML document (with scripting disabled, as relink
/// must see `<noscript>`'s links) or as an `iframe srcdoc` document.
///
/// A document too large for html5ever's `u32` offsets (over 4 GiB) gives an
/// empty [`Document`]: nothing in it is located, so nothing is changed.
pub fn parse(src: &str, srcdoc: bool) -> Document {
    if u32::try_from(src.len()).is_err() {
        return Document::default();
    }
    let opts = TreeBuilderOpts {
        scripting_enabled: false,
        iframe_srcdoc: srcdoc,
        ..TreeBuilderOpts::default()
    };
    let recorder = Recorder {
        builder: TreeBuilder::new(Arena::default(), opts),
        chunk_end: Cell::new(0),
        boundary: Cell::new(0),
        tags: RefCell::new(Vec::new()),
        ends: RefCell::new(Vec::new()),
    };
    let tokenizer = Tokenizer::new(
        recorder,
        TokenizerOpts {
            discard_bom: false,
            ..TokenizerOpts::default()
        },
    );
    let whole = StrTendril::from_slice(src);
    let queue = BufferQueue::default();
    let mut fed = 0;
    let ends = memchr::memchr_iter(b'>', src.as_bytes()).map(|i| i + 1);
    for end in ends.chain(std::iter::once(src.len())) {
        if end == fed {
            continue;
        }
        tokenizer.sink.chunk_end.set(end);
        // Offsets fit in u32: checked above.
        queue.push_back(whole.subtendril(fed as u32, (end - fed) as u32));
        while !matches!(tokenizer.feed(&queue), TokenizerResult::Done) {}
        fed = end;
    }
    tokenizer.end();
    let recorder = tokenizer.sink;
    let mut tags = recorder.tags.into_inner();
    let tree = recorder.builder.sink.finish_tree();
    for (index, element) in tree.elements {
        if let Some(tag) = tags.get_mut(index) {
            tag.element = element;
        }
    }
    locate(src, &mut tags, &recorder.ends.into_inner());
    Document {
        tags,
        base: tree.base,
    }
}

/// How many `<` before a tag's end are tried as its start. The first one
/// tried is the start unless attribute values hold `<`; the cap keeps a
/// hostile tag (a value of a million `<a`) from taking quadratic time. A
/// tag not found within it is left as it is.
pub const MAX_START_CANDIDATES: usize = 64;

/// Finds each tag's start and re-lexes it (see the module docs).
fn locate(src: &str, tags: &mut [Tag], bounds: &[(usize, usize)]) {
    for (tag, &(lower, end)) in tags.iter_mut().zip(bounds) {
        let mut at = end;
        let mut tries = 0;
        while let Some(lt) = memchr::memrchr(b'<', &src.as_bytes()[lower..at]) {
            tries += 1;
            if tries > MAX_START_CANDIDATES {
                break;
            }
            let start = lower + lt;
            if let Some(lexed) = lex_tag(src, start)
                && lexed.end == end
                && agrees(&lexed, tag)
            {
                tag.source = Some((start, lexed));
                break;
            }
            at = start;
        }
    }
}

/// Whether a re-lexed tag is html5ever's token: kind, name, and every
/// attribute's name, in order.
fn agrees(lexed: &LexedTag, tag: &Tag) -> bool {
    lexed.end_tag == (tag.kind == TagKind::EndTag)
        && lexed.name == *tag.name
        && lexed.attrs.len() == tag.attrs.len()
        && lexed
            .attrs
            .iter()
            .zip(&tag.attrs)
            .all(|(l, t)| l.name == *t.name.local)
}

/// The token sink: records each tag token and where it ends, then hands the
/// token to the tree builder.
struct Recorder {
    builder: TreeBuilder<NodeRef, Arena>,
    /// The end of the chunk being fed.
    chunk_end: Cell<usize>,
    /// The end of the last tag, comment or doctype: no tag starts before.
    boundary: Cell<usize>,
    tags: RefCell<Vec<Tag>>,
    /// For each tag token: (lower bound of its start, its end).
    ends: RefCell<Vec<(usize, usize)>>,
}

impl TokenSink for Recorder {
    type Handle = NodeRef;

    fn process_token(&self, token: Token, line_number: u64) -> TokenSinkResult<NodeRef> {
        match &token {
            Token::TagToken(tag) => {
                let mut tags = self.tags.borrow_mut();
                self.builder
                    .sink
                    .set_current(Some((tags.len(), tag.kind, &tag.name)));
                self.ends
                    .borrow_mut()
                    .push((self.boundary.get(), self.chunk_end.get()));
                tags.push(Tag {
                    source: None,
                    kind: tag.kind,
                    name: tag.name.clone(),
                    attrs: tag.attrs.clone(),
                    element: None,
                });
                self.boundary.set(self.chunk_end.get());
            }
            Token::CommentToken(_) | Token::DoctypeToken(_) => {
                self.boundary.set(self.chunk_end.get());
            }
            _ => {}
        }
        let result = self.builder.process_token(token, line_number);
        self.builder.sink.set_current(None);
        result
    }

    fn end(&self) {
        self.builder.end();
    }

    fn adjusted_current_node_present_but_not_in_html_namespace(&self) -> bool {
        self.builder
            .adjusted_current_node_present_but_not_in_html_namespace()
    }
}
