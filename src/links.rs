//! What a rewrite tells: each link (where it was, what it was, what it
//! became and against which base), each warning (a kind to act on and the
//! places, outermost first), and the outcome of one document. One type of
//! each, shown by the command line and converted by the Python package.

use std::fmt;

use encoding_rs::Encoding;

use crate::base::{Base, Layer};

/// The kinds of trouble relink reports while it goes on: each leaves some
/// part of the input as it was.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum WarningKind {
    /// No layer gave a base: the links are left as they are.
    NoBase,
    /// A layer (a BASE element, a header, a codebase) that could not serve.
    LayerIgnored,
    /// A reference the rules cannot resolve.
    Unresolvable,
    /// Documents or messages nested past a limit.
    TooDeep,
    /// Edits that overlapped: the later ones are dropped.
    OverlappingEdits,
    /// A rewritten line of a 7bit or 8bit body would pass 998 octets.
    LineTooLong,
    /// A transfer or content coding relink does not know.
    UnknownEncoding,
    /// A part, body or payload that could not be read or decoded.
    Unreadable,
    /// A payload past the size relink decodes.
    TooLarge,
    /// A rewritten mbox message that would split differently.
    ArchiveSplit,
    /// A file rewritten in place whose other names keep the old content.
    HardLinks,
    /// A backup that already existed, kept instead of the content replaced.
    BackupKept,
    /// Bytes of an archive that are not what its format says (a record
    /// whose length is wrong, stray bytes between records): copied as
    /// they are.
    Malformed,
}

/// What could not be done, and where: a kind to act on, and words for
/// people. Shown as `part 1.2: line 4, column 7: what happened`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Warning {
    /// What kind of trouble it is.
    pub kind: WarningKind,
    /// Where, outermost first (`message 3`, `part 1.2`, `line 4, column 7`).
    pub place: Vec<String>,
    /// What happened and what became of it.
    pub message: String,
}

impl Warning {
    /// A warning of `kind`.
    pub fn new(kind: WarningKind, message: impl fmt::Display) -> Self {
        Warning {
            kind,
            place: Vec::new(),
            message: message.to_string(),
        }
    }

    /// The same warning, inside `place` (which encloses the places it has).
    pub fn within(mut self, place: impl Into<String>) -> Self {
        self.place.insert(0, place.into());
        self
    }
}

impl fmt::Display for Warning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for place in &self.place {
            write!(f, "{place}: ")?;
        }
        f.write_str(&self.message)
    }
}

/// Where a link was: the element and attribute (`style` with no attribute
/// for a `<style>` element's text; `css` for a style sheet).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LinkPlace {
    /// The element's name.
    pub element: String,
    /// The attribute's name, empty for an element's text.
    pub attribute: String,
}

/// Where a link is, borrowed: what a reader passes while it works, so that
/// a [`LinkPlace`] is made only for a link that is recorded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Place<'a> {
    /// The element's name.
    pub element: &'a str,
    /// The attribute's name, empty for an element's text.
    pub attribute: &'a str,
}

impl Place<'_> {
    /// The place, owned.
    pub fn to_link_place(self) -> LinkPlace {
        LinkPlace {
            element: self.element.to_owned(),
            attribute: self.attribute.to_owned(),
        }
    }
}

impl fmt::Display for Place<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.element, self.attribute) {
            (element, "") => write!(f, "<{element}>"),
            ("", attribute) => f.write_str(attribute),
            (element, attribute) => write!(f, "<{element} {attribute}>"),
        }
    }
}

impl fmt::Display for LinkPlace {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.element.as_str(), self.attribute.as_str()) {
            (element, "") => write!(f, "<{element}>"),
            ("", attribute) => f.write_str(attribute),
            (element, attribute) => write!(f, "<{element} {attribute}>"),
        }
    }
}

/// One link of a document.
#[derive(Debug, Clone)]
pub struct Link {
    /// The line of the value (from 1).
    pub line: usize,
    /// The column of the value (from 1, in bytes of the decoded text).
    pub column: usize,
    /// The element and attribute.
    pub place: LinkPlace,
    /// The URL as written (character references decoded, trimmed).
    pub original: String,
    /// The URL resolved.
    pub resolved: String,
    /// The base it was resolved against.
    pub base: Option<Base>,
    /// Whether the document changed here.
    pub changed: bool,
}

/// What rewriting a document gave.
#[derive(Debug)]
pub struct Outcome {
    /// The new bytes, or `None` when nothing changed.
    pub output: Option<Vec<u8>>,
    /// The encoding the document was read and written in.
    pub encoding: &'static Encoding,
    /// The document's base, if it had one.
    pub base: Option<Base>,
    /// Every link found (none when only [`Details::Counts`](crate::Details::Counts) were asked).
    pub links: Vec<Link>,
    /// How many links were rewritten.
    pub rewritten: usize,
    /// What could not be done, each naming where.
    pub warnings: Vec<Warning>,
    /// The layers of the base the document had, innermost first.
    pub layers: Vec<Layer>,
}

impl Outcome {
    /// The bytes to write: the new ones, or the input when nothing changed.
    pub fn bytes<'a>(&'a self, input: &'a [u8]) -> &'a [u8] {
        self.output.as_deref().unwrap_or(input)
    }
}
