//! Parsing a document with html5ever and markup5ever_rcdom, and recovering
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
//! A TreeSink wrapped around RcDom ties each element the tree builder creates
//! to the token being processed, so the rest of relink learns each tag's
//! namespace and whether it lies in template contents, and finds the
//! document's base element in tree order. The tree stays behind this module:
//! the rest of relink sees only [`Document`].

use std::borrow::Cow;
use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::rc::Rc;

use html5ever::TokenizerResult;
use html5ever::tendril::StrTendril;
use html5ever::tokenizer::{
    BufferQueue, TagKind, Token, TokenSink, TokenSinkResult, Tokenizer, TokenizerOpts,
};
use html5ever::tree_builder::{
    ElementFlags, NodeOrText, QuirksMode, TreeBuilder, TreeBuilderOpts, TreeSink,
};
use html5ever::{Attribute, ExpandedName, LocalName, QualName, local_name, ns};
use markup5ever_rcdom::{Handle, NodeData, RcDom};

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
        builder: TreeBuilder::new(Tracker::default(), opts),
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
    let tracker = recorder.builder.sink;
    let walked = walk(&tracker.dom.document);
    for (index, handle) in tracker.tied.into_inner() {
        if let Some(found) = walked.elements.get(&node_id(&handle)) {
            tags[index].element = Some(*found);
        }
    }
    let base = walked
        .base
        .and_then(|handle| tracker.created.borrow().get(&node_id(&handle)).copied());
    locate(src, &mut tags, &recorder.ends.into_inner());
    Document { tags, base }
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

/// A key for a node.
fn node_id(handle: &Handle) -> usize {
    Rc::as_ptr(handle) as usize
}

/// What a walk of the final tree found.
struct Walked {
    elements: HashMap<usize, Element>,
    base: Option<Handle>,
}

/// Walks the tree in tree order, template contents included, without
/// recursion (documents can nest deeper than the stack allows).
fn walk(document: &Handle) -> Walked {
    let mut walked = Walked {
        elements: HashMap::new(),
        base: None,
    };
    let mut stack: Vec<(Handle, bool)> = vec![(document.clone(), false)];
    while let Some((node, in_template)) = stack.pop() {
        if let NodeData::Element {
            name,
            attrs,
            template_contents,
            ..
        } = &node.data
        {
            let namespace = match name.ns {
                ns!(html) => Namespace::Html,
                ns!(svg) => Namespace::Svg,
                _ => Namespace::Other,
            };
            walked.elements.insert(
                node_id(&node),
                Element {
                    namespace,
                    in_template,
                },
            );
            if walked.base.is_none()
                && !in_template
                && namespace == Namespace::Html
                && name.local == local_name!("base")
                && attrs
                    .borrow()
                    .iter()
                    .any(|a| a.name.ns == ns!() && a.name.local == local_name!("href"))
            {
                walked.base = Some(node.clone());
            }
            if let Some(contents) = template_contents.borrow().as_ref() {
                stack.push((contents.clone(), true));
            }
        }
        for child in node.children.borrow().iter().rev() {
            stack.push((child.clone(), in_template));
        }
    }
    walked
}

/// The token sink: records each tag token and where it ends, then hands the
/// token to the tree builder.
struct Recorder {
    builder: TreeBuilder<Handle, Tracker>,
    /// The end of the chunk being fed.
    chunk_end: Cell<usize>,
    /// The end of the last tag, comment or doctype: no tag starts before.
    boundary: Cell<usize>,
    tags: RefCell<Vec<Tag>>,
    /// For each tag token: (lower bound of its start, its end).
    ends: RefCell<Vec<(usize, usize)>>,
}

impl TokenSink for Recorder {
    type Handle = Handle;

    fn process_token(&self, token: Token, line_number: u64) -> TokenSinkResult<Handle> {
        match &token {
            Token::TagToken(tag) => {
                let mut tags = self.tags.borrow_mut();
                self.builder.sink.current.set(Some(tags.len()));
                self.builder
                    .sink
                    .current_name
                    .replace(Some((tag.kind, tag.name.clone())));
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
        self.builder.sink.current.set(None);
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

/// The tree sink: RcDom, plus which token created or extended which element.
#[derive(Default)]
struct Tracker {
    dom: RcDom,
    /// The index of the tag token being processed.
    current: Cell<Option<usize>>,
    current_name: RefCell<Option<(TagKind, LocalName)>>,
    /// Token index to the element it created (the last one created while it
    /// was processed, after any reconstructed formatting elements).
    tied: RefCell<HashMap<usize, Handle>>,
    /// Element to the token that created it.
    created: RefCell<HashMap<usize, usize>>,
}

impl Tracker {
    /// Ties `handle` to the current token if it is a start tag of that name.
    fn tie(&self, handle: &Handle, local: &LocalName) {
        let Some(index) = self.current.get() else {
            return;
        };
        let matches = match &*self.current_name.borrow() {
            Some((TagKind::StartTag, token)) => {
                token.eq_ignore_ascii_case(local)
                    || (*token == local_name!("image") && *local == local_name!("img"))
            }
            _ => false,
        };
        if matches {
            self.tied.borrow_mut().insert(index, handle.clone());
            self.created.borrow_mut().insert(node_id(handle), index);
        }
    }
}

impl TreeSink for Tracker {
    type Handle = Handle;
    type Output = Self;
    type ElemName<'a> = ExpandedName<'a>;

    fn finish(self) -> Self {
        self
    }

    fn parse_error(&self, msg: Cow<'static, str>) {
        self.dom.parse_error(msg);
    }

    fn get_document(&self) -> Handle {
        self.dom.get_document()
    }

    fn elem_name<'a>(&'a self, target: &'a Handle) -> ExpandedName<'a> {
        self.dom.elem_name(target)
    }

    fn create_element(&self, name: QualName, attrs: Vec<Attribute>, flags: ElementFlags) -> Handle {
        let local = name.local.clone();
        let handle = self.dom.create_element(name, attrs, flags);
        self.tie(&handle, &local);
        handle
    }

    fn create_comment(&self, text: StrTendril) -> Handle {
        self.dom.create_comment(text)
    }

    fn create_pi(&self, target: StrTendril, data: StrTendril) -> Handle {
        self.dom.create_pi(target, data)
    }

    fn append(&self, parent: &Handle, child: NodeOrText<Handle>) {
        self.dom.append(parent, child);
    }

    fn append_based_on_parent_node(
        &self,
        element: &Handle,
        prev_element: &Handle,
        child: NodeOrText<Handle>,
    ) {
        self.dom
            .append_based_on_parent_node(element, prev_element, child);
    }

    fn append_doctype_to_document(
        &self,
        name: StrTendril,
        public_id: StrTendril,
        system_id: StrTendril,
    ) {
        self.dom
            .append_doctype_to_document(name, public_id, system_id);
    }

    fn get_template_contents(&self, target: &Handle) -> Handle {
        self.dom.get_template_contents(target)
    }

    fn same_node(&self, x: &Handle, y: &Handle) -> bool {
        self.dom.same_node(x, y)
    }

    fn set_quirks_mode(&self, mode: QuirksMode) {
        self.dom.set_quirks_mode(mode);
    }

    fn append_before_sibling(&self, sibling: &Handle, new_node: NodeOrText<Handle>) {
        self.dom.append_before_sibling(sibling, new_node);
    }

    fn add_attrs_if_missing(&self, target: &Handle, attrs: Vec<Attribute>) {
        // A second <html> or <body> tag: its attributes join the element.
        if let Some(index) = self.current.get()
            && matches!(&*self.current_name.borrow(), Some((TagKind::StartTag, _)))
        {
            self.tied.borrow_mut().insert(index, target.clone());
        }
        self.dom.add_attrs_if_missing(target, attrs);
    }

    fn remove_from_parent(&self, target: &Handle) {
        self.dom.remove_from_parent(target);
    }

    fn reparent_children(&self, node: &Handle, new_parent: &Handle) {
        self.dom.reparent_children(node, new_parent);
    }

    fn is_mathml_annotation_xml_integration_point(&self, handle: &Handle) -> bool {
        self.dom.is_mathml_annotation_xml_integration_point(handle)
    }

    fn maybe_clone_an_option_into_selectedcontent(&self, option: &Handle) {
        self.dom.maybe_clone_an_option_into_selectedcontent(option);
    }
}
