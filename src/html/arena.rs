//! A lean tree sink for html5ever's tree builder: an arena of nodes linked
//! by index, holding only what relink needs of the tree (each element's
//! namespace, whether it lies in template contents, the first `base` with
//! an `href`, the tag token that made it). A handle is an index and the
//! element's name; `markup5ever_rcdom` stays the tests' reference DOM.

use std::borrow::Cow;
use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::rc::Rc;

use html5ever::tendril::StrTendril;
use html5ever::tokenizer::TagKind;
use html5ever::tree_builder::{ElementFlags, NodeOrText, QuirksMode, TreeSink};
use html5ever::{Attribute, ExpandedName, LocalName, QualName, local_name, ns};

/// How deep HTML elements nest on html5ever's path before further ones are
/// flattened ([`super::tree`]), as its tree builder scans the whole stack for
/// most start tags. Past it a start tag goes as a `<wbr>` (in foreign content,
/// self-closing), its end tag dropped, keeping its tag and namespace; raw
/// text, `template` (outside template contents), `svg`, `math`, void elements
/// and integration points are never flattened.
pub const MAX_TREE_DEPTH: u32 = 1024;

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

/// The landmarks that say which part of a page a link is in (WAI-ARIA's
/// implicit roles: `nav`, `header`, `footer`, `aside`, `main`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Landmark {
    /// `nav`.
    Nav,
    /// `header`.
    Header,
    /// `footer`.
    Footer,
    /// `aside`.
    Aside,
    /// `main`.
    Main,
}

impl Landmark {
    /// The landmark an HTML element of this name is, if it is one.
    pub fn of(name: &LocalName) -> Option<Landmark> {
        match *name {
            local_name!("nav") => Some(Landmark::Nav),
            local_name!("header") => Some(Landmark::Header),
            local_name!("footer") => Some(Landmark::Footer),
            local_name!("aside") => Some(Landmark::Aside),
            local_name!("main") => Some(Landmark::Main),
            _ => None,
        }
    }

    /// The element's name.
    pub fn name(self) -> &'static str {
        match self {
            Landmark::Nav => "nav",
            Landmark::Header => "header",
            Landmark::Footer => "footer",
            Landmark::Aside => "aside",
            Landmark::Main => "main",
        }
    }

    /// A number from 1 up, for packing beside other bits.
    fn bits(self) -> u8 {
        self as u8 + 1
    }

    /// The landmark of [`Landmark::bits`], if any.
    fn from_bits(bits: u8) -> Option<Landmark> {
        const ALL: [Landmark; 5] = [
            Landmark::Nav,
            Landmark::Header,
            Landmark::Footer,
            Landmark::Aside,
            Landmark::Main,
        ];
        ALL.get(usize::from(bits).checked_sub(1)?).copied()
    }
}

/// What the tree says of the element a start tag created.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Element {
    /// Its namespace.
    pub namespace: Namespace,
    /// Whether it lies in a template's contents.
    pub in_template: bool,
}

/// No node.
const NONE: u32 = u32::MAX;

/// The fewest slots before the arena looks for nodes without handles.
const MIN_SWEEP: usize = 1024;

/// A node's handle as the tree builder holds it, with its slot's generation:
/// a stale handle matches no node, and sink calls given one do nothing. In a
/// large document handles are counted ([`Arena::counting_handles`]), and
/// [`Arena::sweep`] releases nodes with none, however html5ever popped them.
pub struct NodeRef {
    index: u32,
    generation: u32,
    /// The element's name; an empty one for other nodes.
    name: QualName,
    /// The handle counts of this slot's chunk, when the arena counts handles.
    counts: Option<Counts>,
}

/// How many slots share one chunk of counts.
const CHUNK: usize = 256;

/// A chunk's handle counts: each a slot's generation (high half) and its handles (low half).
type Counts = Rc<[Cell<u64>; CHUNK]>;

fn new_counts() -> Counts {
    Rc::new([const { Cell::new(0) }; CHUNK])
}

impl NodeRef {
    /// Adds `by` (1 or -1) to this node's handle count, if still of this generation.
    fn count(&self, by: i64) {
        let Some(counts) = &self.counts else { return };
        let cell = &counts[self.index as usize % CHUNK];
        let value = cell.get();
        if (value >> 32) as u32 == self.generation {
            let count = (value as u32).saturating_add_signed(by as i32);
            cell.set((value & !u64::from(u32::MAX)) | u64::from(count));
        }
    }
}

impl Clone for NodeRef {
    fn clone(&self) -> Self {
        self.count(1);
        NodeRef {
            index: self.index,
            generation: self.generation,
            name: self.name.clone(),
            counts: self.counts.clone(),
        }
    }
}

impl Drop for NodeRef {
    fn drop(&mut self) {
        self.count(-1);
    }
}

impl PartialEq for NodeRef {
    fn eq(&self, other: &Self) -> bool {
        (self.index, self.generation, &self.name) == (other.index, other.generation, &other.name)
    }
}

impl Eq for NodeRef {}

impl std::fmt::Debug for NodeRef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NodeRef")
            .field("index", &self.index)
            .field("generation", &self.generation)
            .field("name", &self.name)
            .finish()
    }
}

/// Node flags.
const ELEMENT: u8 = 1;
const BASE_WITH_HREF: u8 = 2;
const INTEGRATION_POINT: u8 = 4;
const TEMPLATE: u8 = 8;
/// A template's contents, or a node inside them.
const IN_TEMPLATE: u8 = 16;
/// A tie record names this node: it is never released.
const PINNED: u8 = 32;
/// A landmark element, when asked for: never released, so tags inside still find it.
const LANDMARK: u8 = 64;
/// What is never released.
const KEPT: u8 = TEMPLATE | BASE_WITH_HREF | INTEGRATION_POINT | PINNED | LANDMARK;

/// One node, 32 bytes; what few nodes have is kept beside them.
#[derive(Debug, Clone, Copy)]
struct Node {
    parent: u32,
    first_child: u32,
    last_child: u32,
    prev: u32,
    next: u32,
    /// Bumped each time the slot is released.
    generation: u32,
    /// Its record in [`Arena::tied`], if a tag is tied to it.
    tie: u32,
    /// How many ancestors it had when last inserted (`u16` is far past [`MAX_TREE_DEPTH`]).
    depth: u16,
    namespace: Namespace,
    flags: u8,
}

impl Node {
    fn new(namespace: Namespace, flags: u8) -> Self {
        Node {
            parent: NONE,
            first_child: NONE,
            last_child: NONE,
            prev: NONE,
            next: NONE,
            generation: 0,
            tie: NONE,
            depth: 0,
            namespace,
            flags,
        }
    }
}

/// A tag tied to an element: its node, or once released the node whose place
/// it shares (its parent, then pinned), or [`NONE`] if in no tree.
#[derive(Debug, Clone, Copy)]
struct Tie {
    tag: u32,
    node: u32,
    namespace: Namespace,
}

/// The sink; [`Arena::set_current`] says which tag token is being processed.
#[derive(Debug)]
pub struct Arena {
    nodes: RefCell<Vec<Node>>,
    /// The start tag being processed: its index and name.
    current: RefCell<Option<(u32, LocalName)>>,
    /// The element each start tag made or added attributes to (a later tie wins).
    tied: RefCell<Vec<Tie>>,
    /// Depth, namespace and template contents of the element inserted last.
    last_inserted: std::cell::Cell<(u32, Namespace, bool)>,
    /// Whether closed nodes are released (see [`Arena::release`]).
    releasing: bool,
    /// Released slots, to be reused.
    free: RefCell<Vec<u32>>,
    /// The handle counts, a chunk for each [`CHUNK`] slots.
    counts: RefCell<Vec<Counts>>,
    /// The counts of handles to no node (comments).
    no_node: Counts,
    /// Whether handles are counted (see [`Arena::counting_handles`]).
    counting: bool,
    /// Nodes to make before the next sweep, and nodes made since the last.
    next_sweep: Cell<usize>,
    made: Cell<usize>,
    /// The element the current token created last: its slot and generation.
    created: std::cell::Cell<(u32, u32)>,
    created_name: RefCell<Option<QualName>>,
    /// Each template's contents (a fragment node).
    contents: RefCell<HashMap<u32, u32>>,
    /// The tag token of each `base` with an `href` tied to one.
    base_tags: RefCell<HashMap<u32, u32>>,
    /// Whether each element's landmark is found ([`Arena::with_landmarks`]).
    landmarks: bool,
    /// Each landmark element's landmark, when they are found.
    landmark_nodes: RefCell<HashMap<u32, Landmark>>,
}

impl Default for Arena {
    fn default() -> Self {
        Arena {
            nodes: RefCell::new(vec![Node::new(Namespace::Other, 0)]),
            current: RefCell::new(None),
            tied: RefCell::new(Vec::new()),
            last_inserted: std::cell::Cell::new((0, Namespace::Html, false)),
            releasing: true,
            free: RefCell::new(Vec::new()),
            counts: RefCell::new(vec![new_counts()]),
            no_node: new_counts(),
            counting: false,
            next_sweep: Cell::new(MIN_SWEEP),
            made: Cell::new(0),
            created: std::cell::Cell::new((NONE, 0)),
            created_name: RefCell::new(None),
            contents: RefCell::new(HashMap::new()),
            base_tags: RefCell::new(HashMap::new()),
            landmarks: false,
            landmark_nodes: RefCell::new(HashMap::new()),
        }
    }
}

/// What the finished tree says.
#[derive(Debug, Default)]
pub struct Tree {
    /// For each tag, the element it is tied to if in the final tree (a later tie wins).
    pub elements: Vec<Option<Element>>,
    /// The tag of the first HTML `base` with an `href`, outside template contents.
    pub base: Option<usize>,
    /// For each tag, when landmarks are asked for (else empty), the innermost
    /// HTML landmark its element is or lies in, as `element.closest("nav,
    /// header, footer, aside, main")` finds it, stopping at template contents.
    pub landmarks: Vec<Option<Landmark>>,
}

fn no_name() -> QualName {
    QualName::new(None, ns!(), local_name!(""))
}

/// Whether an HTML element is void: inserted without being pushed on the stack.
fn is_void(name: &LocalName) -> bool {
    matches!(
        &**name,
        "area"
            | "base"
            | "basefont"
            | "bgsound"
            | "br"
            | "col"
            | "embed"
            | "frame"
            | "hr"
            | "img"
            | "input"
            | "keygen"
            | "link"
            | "meta"
            | "param"
            | "source"
            | "track"
            | "wbr"
    )
}

fn namespace_of(name: &QualName) -> Namespace {
    match name.ns {
        ns!(html) => Namespace::Html,
        ns!(svg) => Namespace::Svg,
        _ => Namespace::Other,
    }
}

impl Arena {
    /// An arena that keeps every node: the reference the releasing one is tested against.
    pub fn keeping_every_node() -> Self {
        Arena {
            releasing: false,
            ..Arena::default()
        }
    }

    /// An arena that also counts handles and releases unheld nodes ([`NodeRef`]), for large documents.
    pub fn counting_handles() -> Self {
        Arena {
            counting: true,
            ..Arena::default()
        }
    }

    /// This arena, finding each tag's landmark if `yes` ([`Tree::landmarks`]).
    pub fn with_landmarks(self, yes: bool) -> Self {
        Arena {
            landmarks: yes,
            ..self
        }
    }

    /// Whether `handle` names a node still alive.
    fn live(nodes: &[Node], handle: &NodeRef) -> bool {
        nodes
            .get(handle.index as usize)
            .is_some_and(|n| n.generation == handle.generation)
    }

    /// A new handle to the node in slot `index`.
    fn handle(&self, index: u32, name: QualName) -> NodeRef {
        let counts = if self.counting {
            let chunk = self.counts.borrow().get(index as usize / CHUNK).cloned();
            Some(chunk.unwrap_or_else(|| Rc::clone(&self.no_node)))
        } else {
            None
        };
        let generation = self
            .nodes
            .borrow()
            .get(index as usize)
            .map_or(0, |n| n.generation);
        let handle = NodeRef {
            index,
            generation,
            name,
            counts,
        };
        handle.count(1);
        handle
    }

    /// Whether the tree builder holds no handle to the node in slot `index`.
    fn unheld(&self, index: u32) -> bool {
        self.counting
            && self
                .counts
                .borrow()
                .get(index as usize / CHUNK)
                .is_some_and(|counts| counts[index as usize % CHUNK].get() as u32 == 0)
    }

    /// Releases a closed element that no longer changes (popped, void,
    /// self-closing or unheld): a tag tied to it is tied to its parent and its
    /// slot reused, if it has no children. Templates, integration points, `base`s,
    /// landmarks and nodes other records name are kept; a parent left without
    /// children and handles goes the same way.
    fn release(&self, handle: &NodeRef) {
        if handle.name.ns == ns!(html) && handle.name.local == local_name!("head") {
            return;
        }
        self.release_index(handle.index, handle.generation);
    }

    /// [`Arena::release`] of slot `index`, if of `generation` and not `head`.
    fn release_index(&self, index: u32, generation: u32) {
        if !self.releasing {
            return;
        }
        let mut nodes = self.nodes.borrow_mut();
        if nodes
            .get(index as usize)
            .is_none_or(|n| n.generation != generation)
        {
            return;
        }
        let mut index = index;
        while self.release_slot(&mut nodes, index) {
            let parent = nodes[index as usize].parent;
            Self::detach(&mut nodes, index);
            let generation = nodes[index as usize].generation.wrapping_add(1);
            nodes[index as usize] = Node {
                generation,
                ..Node::new(Namespace::Other, 0)
            };
            if let Some(counts) = self.counts.borrow().get(index as usize / CHUNK) {
                counts[index as usize % CHUNK].set(u64::from(generation) << 32);
            }
            self.free.borrow_mut().push(index);
            if parent == NONE || nodes[parent as usize].first_child != NONE || !self.unheld(parent)
            {
                break;
            }
            index = parent;
        }
    }

    /// Whether slot `index` may be released; if so its tie moves to its parent, its generation on.
    fn release_slot(&self, nodes: &mut [Node], index: u32) -> bool {
        let node = nodes[index as usize];
        if node.flags & ELEMENT == 0 || node.flags & KEPT != 0 || node.first_child != NONE {
            return false;
        }
        if node.tie != NONE {
            let mut tied = self.tied.borrow_mut();
            if let Some(tie) = tied.get_mut(node.tie as usize) {
                tie.node = node.parent;
            }
            if node.parent != NONE {
                nodes[node.parent as usize].flags |= PINNED;
            }
        }
        true
    }

    /// Releases unheld nodes, children first, when no slot is free and as many
    /// nodes were made since the last sweep as it left alive.
    fn sweep(&self) {
        let unheld: Vec<u32> = {
            let nodes = self.nodes.borrow();
            (1..nodes.len())
                .rev()
                .filter(|&i| {
                    let node = &nodes[i];
                    node.flags & (ELEMENT | KEPT) == ELEMENT && node.first_child == NONE
                })
                .filter_map(|i| u32::try_from(i).ok())
                .filter(|&i| self.unheld(i))
                .collect()
        };
        for index in unheld {
            // `head` needs no test: the tree builder always holds it.
            let generation = self.nodes.borrow()[index as usize].generation;
            self.release_index(index, generation);
        }
        // The next sweep after as many new nodes as are alive: within twice the live nodes, paid for.
        let alive = self.nodes.borrow().len() - self.free.borrow().len();
        self.next_sweep.set(alive.max(MIN_SWEEP));
        self.made.set(0);
    }

    /// After a tag token: releases its element if never pushed (void, or self-closing foreign).
    pub fn release_unpushed(&self, self_closing: bool) {
        let (index, generation) = self.created.replace((NONE, 0));
        if index == NONE {
            return;
        }
        let name = self.created_name.borrow_mut().take();
        let Some(name) = name else { return };
        let unpushed = if name.ns == ns!(html) {
            is_void(&name.local)
        } else {
            self_closing
        };
        if unpushed {
            // Void or self-closing: never the HTML `head`.
            self.release_index(index, generation);
        }
    }

    /// Says which tag token the tree builder is about to process (`None`: another token).
    pub fn set_current(&self, tag: Option<(usize, TagKind, &LocalName)>) {
        self.created.set((NONE, 0));
        self.created_name.borrow_mut().take();
        *self.current.borrow_mut() = match tag {
            Some((index, TagKind::StartTag, name)) => {
                u32::try_from(index).ok().map(|index| (index, name.clone()))
            }
            _ => None,
        };
    }

    /// Depth, namespace and template contents of the element inserted last.
    pub fn last_inserted(&self) -> (u32, Namespace, bool) {
        self.last_inserted.get()
    }

    /// Notes where an element was inserted.
    fn inserted(&self, nodes: &mut [Node], child: u32) {
        let parent = nodes[child as usize].parent;
        if parent == NONE || nodes[child as usize].flags & ELEMENT == 0 {
            return;
        }
        let depth = nodes[parent as usize].depth.saturating_add(1);
        let in_template = nodes[parent as usize].flags & IN_TEMPLATE;
        let node = &mut nodes[child as usize];
        node.depth = depth;
        node.flags = (node.flags & !IN_TEMPLATE) | in_template;
        let (namespace, flags) = (node.namespace, node.flags);
        self.last_inserted
            .set((u32::from(depth), namespace, in_template != 0));
        // A template's contents are as deep as the template.
        if flags & TEMPLATE != 0
            && let Some(&contents) = self.contents.borrow().get(&child)
        {
            nodes[contents as usize].depth = depth;
        }
    }

    fn push(&self, node: Node) -> u32 {
        self.made.set(self.made.get() + 1);
        if self.counting
            && self.releasing
            && self.free.borrow().is_empty()
            && self.made.get() >= self.next_sweep.get()
        {
            self.sweep();
        }
        let mut nodes = self.nodes.borrow_mut();
        if let Some(index) = self.free.borrow_mut().pop() {
            let generation = nodes[index as usize].generation;
            nodes[index as usize] = Node { generation, ..node };
            return index;
        }
        // A document of at most u32::MAX bytes makes fewer nodes than that.
        let index = u32::try_from(nodes.len()).unwrap_or(NONE - 1);
        nodes.push(node);
        if nodes.len() % CHUNK == 1 && nodes.len() > 1 {
            self.counts.borrow_mut().push(new_counts());
        }
        index
    }

    fn detach(nodes: &mut [Node], child: u32) {
        let Node {
            parent, prev, next, ..
        } = nodes[child as usize];
        if parent == NONE {
            return;
        }
        match prev {
            NONE => nodes[parent as usize].first_child = next,
            prev => nodes[prev as usize].next = next,
        }
        match next {
            NONE => nodes[parent as usize].last_child = prev,
            next => nodes[next as usize].prev = prev,
        }
        let node = &mut nodes[child as usize];
        node.parent = NONE;
        node.prev = NONE;
        node.next = NONE;
    }

    fn append_child(nodes: &mut [Node], parent: u32, child: u32) {
        Self::detach(nodes, child);
        let last = nodes[parent as usize].last_child;
        {
            let node = &mut nodes[child as usize];
            node.parent = parent;
            node.prev = last;
        }
        match last {
            NONE => nodes[parent as usize].first_child = child,
            last => nodes[last as usize].next = child,
        }
        nodes[parent as usize].last_child = child;
    }

    fn insert_before(nodes: &mut [Node], sibling: u32, child: u32) {
        Self::detach(nodes, child);
        let Node { parent, prev, .. } = nodes[sibling as usize];
        if parent == NONE {
            return;
        }
        {
            let node = &mut nodes[child as usize];
            node.parent = parent;
            node.prev = prev;
            node.next = sibling;
        }
        match prev {
            NONE => nodes[parent as usize].first_child = child,
            prev => nodes[prev as usize].next = child,
        }
        nodes[sibling as usize].prev = child;
    }

    /// Ties `node` to the current tag token if that is a start tag of the element's name.
    fn tie(&self, node: u32, namespace: Namespace, local: &LocalName) -> u32 {
        let current = self.current.borrow();
        let Some((tag, token)) = current.as_ref() else {
            return NONE;
        };
        let matches = token.eq_ignore_ascii_case(local)
            || (*token == local_name!("image") && *local == local_name!("img"));
        if !matches {
            return NONE;
        }
        let mut tied = self.tied.borrow_mut();
        tied.push(Tie {
            tag: *tag,
            node,
            namespace,
        });
        let record = u32::try_from(tied.len() - 1).unwrap_or(NONE);
        self.nodes.borrow_mut()[node as usize].tie = record;
        *tag
    }

    /// Walks the final tree in tree order, template contents included, for `tags` tags.
    pub fn finish_tree(&self, tags: usize) -> Tree {
        let nodes = self.nodes.borrow();
        let contents = self.contents.borrow();
        let base_tags = self.base_tags.borrow();
        let landmarks = self.landmark_nodes.borrow();
        // Low two bits: 0 not in the tree, 1 in it, 2 in template contents; above, the landmark.
        let mut reached = vec![0u8; nodes.len()];
        let mut base = None;
        let mut stack: Vec<(u32, u8)> = vec![(0, 1)];
        while let Some((index, mut state)) = stack.pop() {
            let node = &nodes[index as usize];
            if node.flags & LANDMARK != 0
                && let Some(landmark) = landmarks.get(&index)
            {
                state = (state & 3) | landmark.bits() << 2;
            }
            reached[index as usize] = state;
            if base.is_none() && state & 3 == 1 && node.flags & BASE_WITH_HREF != 0 {
                base = base_tags.get(&index).map(|&tag| tag as usize);
            }
            // Template contents are a fragment: no landmark outside counts.
            if node.flags & TEMPLATE != 0
                && let Some(&contents) = contents.get(&index)
            {
                stack.push((contents, 2));
            }
            let mut child = node.last_child;
            while child != NONE {
                stack.push((child, state));
                child = nodes[child as usize].prev;
            }
        }
        // The ties are not needed after this: freed as they are read.
        let tied = std::mem::take(&mut *self.tied.borrow_mut());
        let mut elements = vec![None; tags];
        let mut found = if self.landmarks {
            vec![None; tags]
        } else {
            Vec::new()
        };
        for tie in tied {
            let state = reached.get(tie.node as usize).copied().unwrap_or(0);
            if let Some(slot) = elements.get_mut(tie.tag as usize) {
                *slot = (state != 0).then_some(Element {
                    namespace: tie.namespace,
                    in_template: state & 3 == 2,
                });
            }
            if let Some(slot) = found.get_mut(tie.tag as usize) {
                *slot = Landmark::from_bits(state >> 2).filter(|_| state != 0);
            }
        }
        Tree {
            elements,
            base,
            landmarks: found,
        }
    }
}

impl TreeSink for Arena {
    type Handle = NodeRef;
    type Output = Self;
    type ElemName<'a> = ExpandedName<'a>;

    fn finish(self) -> Self {
        self
    }

    fn parse_error(&self, _msg: Cow<'static, str>) {}

    fn get_document(&self) -> NodeRef {
        self.handle(0, no_name())
    }

    fn elem_name<'a>(&'a self, target: &'a NodeRef) -> ExpandedName<'a> {
        target.name.expanded()
    }

    fn create_element(
        &self,
        name: QualName,
        attrs: Vec<Attribute>,
        flags: ElementFlags,
    ) -> NodeRef {
        let namespace = namespace_of(&name);
        let mut bits = ELEMENT;
        if namespace == Namespace::Html
            && name.local == local_name!("base")
            && attrs
                .iter()
                .any(|a| a.name.ns == ns!() && a.name.local == local_name!("href"))
        {
            bits |= BASE_WITH_HREF;
        }
        if flags.mathml_annotation_xml_integration_point {
            bits |= INTEGRATION_POINT;
        }
        if flags.template {
            bits |= TEMPLATE;
        }
        let landmark = if self.landmarks && namespace == Namespace::Html {
            Landmark::of(&name.local)
        } else {
            None
        };
        if landmark.is_some() {
            bits |= LANDMARK;
        }
        let index = self.push(Node::new(namespace, bits));
        if let Some(landmark) = landmark {
            self.landmark_nodes.borrow_mut().insert(index, landmark);
        }
        let tag = self.tie(index, namespace, &name.local);
        if bits & BASE_WITH_HREF != 0 && tag != NONE {
            self.base_tags.borrow_mut().insert(index, tag);
        }
        if flags.template {
            let contents = self.push(Node::new(Namespace::Other, IN_TEMPLATE));
            self.contents.borrow_mut().insert(index, contents);
        }
        let handle = self.handle(index, name);
        self.created.set((index, handle.generation));
        *self.created_name.borrow_mut() = Some(handle.name.clone());
        handle
    }

    fn create_comment(&self, _text: StrTendril) -> NodeRef {
        // A comment says nothing of any element: with releasing, it gets no node.
        let index = if self.releasing {
            NONE
        } else {
            self.push(Node::new(Namespace::Other, 0))
        };
        self.handle(index, no_name())
    }

    fn create_pi(&self, _target: StrTendril, _data: StrTendril) -> NodeRef {
        self.create_comment(StrTendril::new())
    }

    fn append(&self, parent: &NodeRef, child: NodeOrText<NodeRef>) {
        if let NodeOrText::AppendNode(child) = child {
            let mut nodes = self.nodes.borrow_mut();
            if !Self::live(&nodes, parent) || !Self::live(&nodes, &child) {
                return;
            }
            Self::append_child(&mut nodes, parent.index, child.index);
            self.inserted(&mut nodes, child.index);
        }
    }

    fn append_based_on_parent_node(
        &self,
        element: &NodeRef,
        prev_element: &NodeRef,
        child: NodeOrText<NodeRef>,
    ) {
        let has_parent = {
            let nodes = self.nodes.borrow();
            Self::live(&nodes, element) && nodes[element.index as usize].parent != NONE
        };
        if has_parent {
            self.append_before_sibling(element, child);
        } else {
            self.append(prev_element, child);
        }
    }

    fn append_doctype_to_document(&self, _: StrTendril, _: StrTendril, _: StrTendril) {}

    fn get_template_contents(&self, target: &NodeRef) -> NodeRef {
        // Templates and their contents are never released.
        let index = self
            .contents
            .borrow()
            .get(&target.index)
            .copied()
            .unwrap_or(NONE);
        self.handle(index, no_name())
    }

    fn same_node(&self, x: &NodeRef, y: &NodeRef) -> bool {
        x.index == y.index && x.generation == y.generation
    }

    fn pop(&self, node: &NodeRef) {
        self.release(node);
    }

    fn set_quirks_mode(&self, _mode: QuirksMode) {}

    fn append_before_sibling(&self, sibling: &NodeRef, new_node: NodeOrText<NodeRef>) {
        if let NodeOrText::AppendNode(child) = new_node {
            let mut nodes = self.nodes.borrow_mut();
            if !Self::live(&nodes, sibling) || !Self::live(&nodes, &child) {
                return;
            }
            Self::insert_before(&mut nodes, sibling.index, child.index);
            self.inserted(&mut nodes, child.index);
        }
    }

    fn add_attrs_if_missing(&self, target: &NodeRef, attrs: Vec<Attribute>) {
        // A second <html> or <body> tag: its attributes join the element.
        let mut nodes = self.nodes.borrow_mut();
        if let Some((tag, _)) = &*self.current.borrow()
            && Self::live(&nodes, target)
        {
            let node = &mut nodes[target.index as usize];
            // Tied more than once: never released.
            node.flags |= PINNED;
            self.tied.borrow_mut().push(Tie {
                tag: *tag,
                node: target.index,
                namespace: node.namespace,
            });
        }
        // Only `html` and `body` get attributes added, never a `base`.
        drop(attrs);
    }

    fn remove_from_parent(&self, target: &NodeRef) {
        let mut nodes = self.nodes.borrow_mut();
        if Self::live(&nodes, target) {
            Self::detach(&mut nodes, target.index);
        }
    }

    fn reparent_children(&self, node: &NodeRef, new_parent: &NodeRef) {
        let mut nodes = self.nodes.borrow_mut();
        if !Self::live(&nodes, node) || !Self::live(&nodes, new_parent) {
            return;
        }
        let mut child = nodes[node.index as usize].first_child;
        while child != NONE {
            let next = nodes[child as usize].next;
            Self::append_child(&mut nodes, new_parent.index, child);
            child = next;
        }
    }

    fn is_mathml_annotation_xml_integration_point(&self, handle: &NodeRef) -> bool {
        let nodes = self.nodes.borrow();
        Self::live(&nodes, handle) && nodes[handle.index as usize].flags & INTEGRATION_POINT != 0
    }

    // `maybe_clone_an_option_into_selectedcontent` keeps its default: no clone.
}
