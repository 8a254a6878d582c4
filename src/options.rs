//! The options of a rewrite: the rules, the bases from outside the
//! document, the transport's charset, the attributes the user adds.

use std::str::FromStr;

use encoding_rs::Encoding;

use crate::base::Base;
use crate::error::Error;
use crate::links::LinkSink;
use crate::local::{MirrorDocument, SavedFolders};
use crate::url::Rules;

/// The largest document relink takes (html5ever indexes text by `u32`).
pub const MAX_DOCUMENT_BYTES: usize = u32::MAX as usize;

/// The most bytes of records or messages an archive reader rewrites in
/// parallel when their links go to a sink: the rows of all but the first
/// are held until their turn, so their size is bounded by this; a record
/// or message larger than it is rewritten alone, its rows handed over as
/// they are found.
pub const ROWS_BATCH_BYTES: usize = 512 << 10;

/// How to rewrite one document.
#[non_exhaustive]
#[derive(Debug, Clone, Copy, Default)]
pub struct Options<'a> {
    /// The rule set for every resolution, the BASE element's included.
    pub rules: Rules,
    /// A base forced above every layer (`--base`).
    pub forced: Option<&'a Base>,
    /// The base from the layers outside the document: the enclosing
    /// entity's, else the retrieval URL.
    pub outer: Option<&'a Base>,
    /// The base of embedded resources (`--resource-base`): images, media,
    /// `srcset` and CSS `url()`. It stands in for the retrieval URL, so a
    /// forced base or the document's own base still comes first; links
    /// keep the document's base.
    pub resource_base: Option<&'a Base>,
    /// The transport's charset (a MIME part's, or `--encoding`).
    pub transport: Option<&'static Encoding>,
    /// The folders a browser saved with the page, whose files its links
    /// already point at: such links are left as they are.
    pub saved: Option<&'a SavedFolders>,
    /// The document's place in a mirror made local: links to the
    /// mirror's files become relative paths to them.
    pub local: Option<&'a MirrorDocument>,
    /// Leave `#name` links as they are.
    pub keep_fragment_links: bool,
    /// Further attributes holding URLs on every HTML element (`--attr`).
    pub extra_attributes: &'a [ExtraAttribute],
    /// Whether each link is recorded, or only counted.
    pub details: Details,
    /// Where each link goes as it is found, when links are recorded: the
    /// reports then hold none (see [`LinkSink`]).
    pub rows: Option<Rows<'a>>,
    /// The container the document is a file of (an EPUB book): a link that
    /// reaches another of its files stays as written.
    pub container: Option<&'a dyn Container>,
}

/// A container of files that link to each other by relative paths (an
/// EPUB book): each file's base is its place in the container, and a link
/// that reaches a file of it stays as written, so that the container
/// still works once rewritten.
pub trait Container: Sync + std::fmt::Debug {
    /// Where `resolved`, a URL resolved against `base`, lies.
    fn place(&self, base: &str, resolved: &str) -> Placed;

    /// The base of a link that leaves the container (the retrieval URL).
    fn outer(&self) -> Option<&Base>;
}

/// Where a link lies with respect to a [`Container`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Placed {
    /// Its base is no place in the container (an absolute BASE): a link
    /// as any other.
    Elsewhere,
    /// It reaches `path` in the container, which holds it or not.
    Inside {
        /// The container path, its fragment kept.
        path: String,
        /// Whether the container holds the file.
        exists: bool,
    },
    /// It leaves the container (a network-path reference, `..` above its
    /// root): resolved against the container's outer base, if any.
    Outside,
}

/// A [`LinkSink`], as the options hold it.
#[derive(Clone, Copy)]
pub struct Rows<'a>(pub &'a dyn LinkSink);

impl std::fmt::Debug for Rows<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Rows(..)")
    }
}

#[cfg_attr(not(feature = "_internal"), allow(dead_code))]
impl<'a> Options<'a> {
    /// The default options: RFC 1808, no base but what documents give,
    /// every link recorded. The methods below set one field each.
    pub fn new() -> Self {
        Options::default()
    }

    /// The rule set for every resolution.
    pub fn rules(mut self, rules: Rules) -> Self {
        self.rules = rules;
        self
    }

    /// A base forced above every layer.
    pub fn forced(mut self, base: Option<&'a Base>) -> Self {
        self.forced = base;
        self
    }

    /// The base from the layers outside the document.
    pub fn outer(mut self, base: Option<&'a Base>) -> Self {
        self.outer = base;
        self
    }

    /// The base of embedded resources.
    pub fn resource_base(mut self, base: Option<&'a Base>) -> Self {
        self.resource_base = base;
        self
    }

    /// The transport's charset.
    pub fn transport(mut self, encoding: Option<&'static Encoding>) -> Self {
        self.transport = encoding;
        self
    }

    /// Whether `#name` links are left as they are.
    pub fn keep_fragment_links(mut self, keep: bool) -> Self {
        self.keep_fragment_links = keep;
        self
    }

    /// Further attributes holding URLs on every HTML element.
    pub fn extra_attributes(mut self, attributes: &'a [ExtraAttribute]) -> Self {
        self.extra_attributes = attributes;
        self
    }

    /// The lazy-loading attributes ([`ExtraAttribute::lazy_loading`]) as
    /// the further attributes holding URLs, in place of any others.
    pub fn lazy_attributes(mut self) -> Self {
        self.extra_attributes = LAZY.as_slice();
        self
    }

    /// Whether each link is recorded, or only counted.
    pub fn details(mut self, details: Details) -> Self {
        self.details = details;
        self
    }

    /// Hands each link, as it is found, to `sink` instead of the reports
    /// (which then hold none); links are recorded.
    pub fn rows(mut self, sink: Option<&'a dyn LinkSink>) -> Self {
        self.rows = sink.map(Rows);
        if sink.is_some() {
            self.details = Details::Links;
        }
        self
    }

    /// These options for a document inside this one whose rows are
    /// changed by `map` on their way out (placed in their message, part or
    /// record, or at their line in the enclosing text); `mapped` is where
    /// the wrapping sink is kept.
    pub(crate) fn mapped<'b, F: Fn(&mut crate::links::LinkRow) + Sync>(
        &self,
        mapped: &'b mut Option<crate::links::Mapped<'a, F>>,
        map: F,
    ) -> Options<'b>
    where
        'a: 'b,
    {
        let Some(Rows(to)) = self.rows else {
            return *self;
        };
        let sink: &'b dyn LinkSink = mapped.insert(crate::links::Mapped { to, map });
        Options {
            rows: Some(Rows(sink)),
            ..*self
        }
    }
}

/// How much a rewrite tells of the links it found.
///
/// ```
/// use relink::{Details, Rewriter};
/// let page = b"<a href=x>x</a>";
/// let counted = Rewriter::new().retrieved_from("http://a/").details(Details::Counts).rewrite(page)?;
/// assert_eq!((counted.rewritten(), counted.links().len()), (1, 0));
/// let listed = Rewriter::new().retrieved_from("http://a/").rewrite(page)?;
/// assert_eq!(listed.links()[0].resolved, "http://a/x");
/// # Ok::<(), relink::Error>(())
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Details {
    /// A [`Link`](crate::links::Link) record for each link (for a listing or a report).
    #[default]
    Links,
    /// Only how many were rewritten: no record per link, so memory stays
    /// in proportion to the document, not to its links.
    Counts,
    /// A [`Link`](crate::links::Link) record for each link, an HTML link with
    /// the other attributes of its element that say what the link is
    /// ([`LinkDetails`](crate::links::LinkDetails)): what a WAT file's links
    /// carry. Only asked for, since it costs a few strings a link.
    Attributes,
}

impl Details {
    /// Whether each link is recorded.
    pub(crate) fn records(self) -> bool {
        self != Details::Counts
    }
}

/// How an attribute named with `--attr` holds its URLs.
///
/// See the example of [`ExtraAttribute`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AttrSyntax {
    /// One URL.
    Url,
    /// A `srcset`: candidates of a URL and descriptors.
    Srcset,
    /// URLs separated by ASCII white space.
    List,
}

/// An attribute the user names as holding URLs on every HTML element, such
/// as a lazy-loading `data-src` (`--attr NAME[=url|srcset|list]`).
///
/// ```
/// use relink::{AttrSyntax, ExtraAttribute, Rewriter};
/// let lazy: ExtraAttribute = "data-srcset=srcset".parse()?;
/// assert_eq!((lazy.name.as_str(), lazy.syntax), ("data-srcset", AttrSyntax::Srcset));
/// let out = Rewriter::new()
///     .retrieved_from("http://a/d/")
///     .attribute("data-src".parse()?)
///     .attribute(lazy)
///     .rewrite(br#"<img data-src=a.jpg data-srcset="b.jpg 2x">"#)?;
/// assert_eq!(out.bytes(), br#"<img data-src=http://a/d/a.jpg data-srcset="http://a/d/b.jpg 2x">"#);
/// # Ok::<(), relink::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExtraAttribute {
    /// The attribute's name, lower-cased as the tokenizer gives it.
    pub name: String,
    /// How its value holds URLs.
    pub syntax: AttrSyntax,
}

/// The lazy-loading attributes scripts read a resource's URL from before
/// they set `src`, `srcset` or a background, as pages write them in the
/// wild: `data-src`, `data-srcset` (a `srcset`), `data-original`,
/// `data-lazy-src` and `data-background`. `data-background` holds a
/// plain URL, as Framework7's lazy loader and the common scripts read it
/// (they wrap it in `url()` themselves), not CSS.
pub const LAZY_ATTRIBUTES: [(&str, AttrSyntax); 5] = [
    ("data-src", AttrSyntax::Url),
    ("data-srcset", AttrSyntax::Srcset),
    ("data-original", AttrSyntax::Url),
    ("data-lazy-src", AttrSyntax::Url),
    ("data-background", AttrSyntax::Url),
];

/// [`LAZY_ATTRIBUTES`] as extra attributes, made once.
static LAZY: std::sync::LazyLock<Vec<ExtraAttribute>> =
    std::sync::LazyLock::new(ExtraAttribute::lazy_loading);

impl ExtraAttribute {
    /// The lazy-loading attributes (`--lazy`): `data-src`, `data-srcset`
    /// (a `srcset`), `data-original`, `data-lazy-src` and
    /// `data-background` (a plain URL, as lazy loaders read it).
    ///
    /// ```
    /// use relink::{AttrSyntax, ExtraAttribute};
    /// let lazy = ExtraAttribute::lazy_loading();
    /// assert_eq!(lazy.len(), 5);
    /// assert_eq!((lazy[1].name.as_str(), lazy[1].syntax), ("data-srcset", AttrSyntax::Srcset));
    /// ```
    pub fn lazy_loading() -> Vec<ExtraAttribute> {
        LAZY_ATTRIBUTES
            .iter()
            .map(|&(name, syntax)| ExtraAttribute {
                name: name.to_owned(),
                syntax,
            })
            .collect()
    }
}

impl FromStr for ExtraAttribute {
    type Err = Error;

    /// Reads `NAME`, `NAME=url`, `NAME=srcset` or `NAME=list`.
    ///
    /// ```
    /// use relink::{AttrSyntax, ExtraAttribute};
    /// let a: ExtraAttribute = "Data-Srcset=srcset".parse()?;
    /// assert_eq!(a, ExtraAttribute { name: "data-srcset".into(), syntax: AttrSyntax::Srcset });
    /// assert_eq!("data-src".parse::<ExtraAttribute>()?.syntax, AttrSyntax::Url);
    /// assert!("data-src=css".parse::<ExtraAttribute>().is_err());
    /// # Ok::<(), relink::Error>(())
    /// ```
    fn from_str(spec: &str) -> Result<Self, Self::Err> {
        let invalid = |reason: &str| Error::InvalidAttribute {
            spec: spec.to_owned(),
            reason: reason.to_owned(),
        };
        let (name, syntax) = spec.split_once('=').unwrap_or((spec, "url"));
        let syntax = match syntax.to_ascii_lowercase().as_str() {
            "url" => AttrSyntax::Url,
            "srcset" => AttrSyntax::Srcset,
            "list" => AttrSyntax::List,
            _ => return Err(invalid("the syntax is url, srcset or list")),
        };
        let bad = |b: u8| b.is_ascii_whitespace() || matches!(b, b'/' | b'>' | b'=' | b'"' | b'\'');
        if name.is_empty() || name.bytes().any(bad) {
            return Err(invalid("not an attribute name"));
        }
        Ok(ExtraAttribute {
            name: name.to_ascii_lowercase(),
            syntax,
        })
    }
}
