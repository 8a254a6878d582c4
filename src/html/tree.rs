//! Parsing a document: relink's positioned tokenizer ([`super::tokenizer`])
//! feeds the tracker ([`super::tracker`]); a document it bails on goes from
//! its start to html5ever's tree builder over a lean arena
//! ([`super::arena`]). The tree builder decides, as a browser does, each
//! element's namespace, template contents and the first `base`; the rest of
//! relink sees only [`Document`].

use std::cell::RefCell;
use std::collections::HashMap;

use html5ever::tokenizer::{TagKind, Token, TokenSink, TokenSinkResult};
use html5ever::tree_builder::{TreeBuilder, TreeBuilderOpts};
use html5ever::{LocalName, local_name};

use super::arena::{Arena, NodeRef};
use super::tag_sets::{flattenable, flattenable_foreign};
use super::tokenizer::{self, Attributes, SpanLog, TagId};
use super::tracker::{self, Tracker};
use crate::encoding::MetaSeen;

/// What the tree says of a tag's element, as the tests name it.
#[cfg(feature = "_internal")]
pub use super::arena::Element;
pub use super::arena::{Landmark, MAX_TREE_DEPTH, Namespace};
pub use super::document::{Document, DocumentKind, Tag, attr_name};
pub use super::tokenizer::Quote;
pub use super::tracker::Bail;

/// Parses `src` as an HTML document of `kind`, scripting disabled (relink
/// must see `<noscript>`'s links). A document over 4 GiB (html5ever's
/// `u32` offsets) gives an empty [`Document`], so nothing is changed.
#[cfg_attr(not(feature = "_internal"), allow(dead_code))]
pub fn parse(src: &str, kind: DocumentKind) -> Document {
    parse_lean(src, kind, Attributes::TreeBuilder)
}

/// [`parse`] with one of the lean `attributes`.
pub fn parse_lean(src: &str, kind: DocumentKind, attributes: Attributes) -> Document {
    tracker::parse_with(src, kind, attributes).unwrap_or_else(|_| parse_with(src, kind, attributes))
}

/// Parses `src` on the tracker's path, handing its tags to `on_chunk` in pieces
/// ([`Tracker::in_chunks`]) so a huge document's records are never all alive.
/// On an error nothing handed over counts, and [`parse_after_chunks`] parses
/// all. `watch` tests runs for `<meta` ([`tokenizer::Options::watch_meta`]).
pub fn parse_in_chunks(
    src: &str,
    (kind, attributes): (DocumentKind, Attributes),
    watch: Option<&mut MetaSeen>,
    on_chunk: &mut dyn FnMut(Document) -> bool,
) -> Result<(), Bail> {
    if u32::try_from(src.len()).is_err() {
        // As [`parse`]: nothing in it is located.
        on_chunk(Document::default());
        return Ok(());
    }
    let log = SpanLog::default();
    let options = tokenizer::Options {
        discard_bom: false,
        attributes,
        formatting_stand_in: false,
        lines: false,
        watch_meta: watch.is_some(),
        ..tokenizer::Options::default()
    };
    let tracker = Tracker::in_chunks(&log, (kind, attributes.finds_landmarks()), on_chunk);
    tracker.reserve(expected_tags(src.len()));
    let parsed = tokenizer::tokenize_into(src, tracker, &log, options).finish_chunks();
    if let Some(watch) = watch {
        *watch = log.meta.take();
    }
    parsed
}

/// Tags to make room for before the first piece: one a [`BYTES_A_TAG`], at most a piece.
fn expected_tags(len: usize) -> usize {
    (len / BYTES_A_TAG + 16).min(tracker::CHUNK_TAGS)
}

/// Bytes of a document for each tag it logs at fewest, so real pages' logs never grow.
const BYTES_A_TAG: usize = 128;

/// The whole document after [`parse_in_chunks`] failed with `bail`: on the tracker's
/// path if only a late `base` stopped it, else on html5ever's.
pub fn parse_after_chunks(
    src: &str,
    (kind, attributes): (DocumentKind, Attributes),
    bail: Bail,
) -> Document {
    if bail == tracker::BASE_AFTER_LINKS {
        parse_lean(src, kind, attributes)
    } else {
        parse_with(src, kind, attributes)
    }
}

/// [`parse`] with tags carrying `attributes`; with [`Attributes::All`] every tag
/// is kept, and those both keep must come out the same (the tests compare).
pub fn parse_with(src: &str, kind: DocumentKind, attributes: Attributes) -> Document {
    // With every attribute, every node is kept: the reference for the lean parse.
    let arena = match attributes {
        Attributes::All => Arena::keeping_every_node(),
        Attributes::TreeBuilder
        | Attributes::TreeBuilderAnyAttribute
        | Attributes::TreeBuilderHead
        | Attributes::TreeBuilderHeadAnyAttribute
            if src.len() >= COUNT_HANDLES_FROM =>
        {
            Arena::counting_handles()
        }
        Attributes::TreeBuilder
        | Attributes::TreeBuilderAnyAttribute
        | Attributes::TreeBuilderHead
        | Attributes::TreeBuilderHeadAnyAttribute => Arena::default(),
    };
    parse_on(
        src,
        kind,
        attributes,
        arena.with_landmarks(attributes.finds_landmarks()),
    )
}

/// [`parse_with`] on an arena counting handles whatever the size, for the tests.
#[cfg(feature = "_internal")]
pub fn parse_counting_handles(src: &str, kind: DocumentKind) -> Document {
    parse_on(
        src,
        kind,
        Attributes::TreeBuilderAnyAttribute,
        Arena::counting_handles(),
    )
}

/// [`parse_with`] on a given arena.
fn parse_on(src: &str, kind: DocumentKind, attributes: Attributes, arena: Arena) -> Document {
    if u32::try_from(src.len()).is_err() {
        return Document::default();
    }
    let opts = TreeBuilderOpts {
        scripting_enabled: false,
        iframe_srcdoc: kind == DocumentKind::IframeSrcdoc,
        ..TreeBuilderOpts::default()
    };
    let log = SpanLog::default();
    let recorder = Recorder {
        builder: TreeBuilder::new(arena, opts),
        log: &log,
        names: RefCell::new(Vec::new()),
        flattened: RefCell::new(HashMap::new()),
    };
    let options = tokenizer::Options {
        discard_bom: false,
        attributes,
        ..tokenizer::Options::default()
    };
    let recorder = tokenizer::tokenize(src, recorder, &log, options);
    let names = recorder.names.into_inner();
    let tree = recorder.builder.sink.finish_tree(log.len());
    Document::assemble(log, names, tree)
}

/// From how many bytes html5ever's path counts handles ([`Arena::counting_handles`]).
pub const COUNT_HANDLES_FROM: usize = 1 << 20;

/// The token sink: hands each token to the tree builder, telling the arena its tag.
struct Recorder<'l> {
    builder: TreeBuilder<NodeRef, Arena>,
    log: &'l SpanLog,
    names: RefCell<Vec<LocalName>>,
    /// Start tags flattened past [`MAX_TREE_DEPTH`] whose end tags are to come, by name.
    flattened: RefCell<HashMap<LocalName, usize>>,
}

impl Recorder<'_> {
    /// Flattens a start tag too deep, or drops one's end tag (`None`).
    fn flatten(&self, mut token: Token) -> Option<Token> {
        let Token::TagToken(tag) = &mut token else {
            return Some(token);
        };
        let mut flattened = self.flattened.borrow_mut();
        match tag.kind {
            TagKind::StartTag => {
                let (depth, namespace, in_template) = self.builder.sink.last_inserted();
                if depth <= MAX_TREE_DEPTH {
                    return Some(token);
                }
                // A template in template contents changes nothing: all after is in them.
                let template = in_template && &*tag.name == "template";
                if namespace == Namespace::Html && (flattenable(TagId::of(&tag.name)) || template) {
                    *flattened.entry(tag.name.clone()).or_default() += 1;
                    tag.name = local_name!("wbr");
                    tag.self_closing = false;
                } else if namespace != Namespace::Html
                    && self
                        .builder
                        .adjusted_current_node_present_but_not_in_html_namespace()
                    && !tag.self_closing
                    && flattenable_foreign(TagId::of(&tag.name))
                {
                    *flattened.entry(tag.name.clone()).or_default() += 1;
                    tag.self_closing = true;
                }
            }
            TagKind::EndTag => {
                if let Some(open) = flattened.get_mut(&tag.name)
                    && *open > 0
                {
                    *open -= 1;
                    return None;
                }
            }
        }
        Some(token)
    }
}

impl TokenSink for Recorder<'_> {
    type Handle = NodeRef;

    fn process_token(&self, token: Token, line_number: u64) -> TokenSinkResult<NodeRef> {
        if let Token::TagToken(tag) = &token
            && self.log.current().is_some()
        {
            self.names.borrow_mut().push(tag.name.clone());
        }
        let Some(token) = self.flatten(token) else {
            return TokenSinkResult::Continue;
        };
        let mut self_closing = None;
        if let Token::TagToken(tag) = &token {
            let index = self.log.current().unwrap_or(usize::MAX);
            self.builder
                .sink
                .set_current(Some((index, tag.kind, &tag.name)));
            self_closing = Some(tag.self_closing);
        }
        let result = self.builder.process_token(token, line_number);
        if let Some(self_closing) = self_closing {
            self.builder.sink.release_unpushed(self_closing);
        }
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
