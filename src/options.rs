//! The options of a rewrite: the rules, the bases from outside the
//! document, the transport's charset, the attributes the user adds.

use std::str::FromStr;

use encoding_rs::Encoding;

use crate::Error;
use crate::base::Base;
use crate::url::Rules;

/// The largest document relink takes (html5ever indexes text by `u32`).
pub const MAX_DOCUMENT_BYTES: usize = u32::MAX as usize;

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
    /// Leave `#name` links as they are.
    pub keep_fragment_links: bool,
    /// Further attributes holding URLs on every HTML element (`--attr`).
    pub extra_attributes: &'a [ExtraAttribute],
    /// Whether each link is recorded, or only counted.
    pub details: Details,
}

impl<'a> Options<'a> {
    /// The default options: RFC 1808, no base but what documents give,
    /// every link recorded. The methods below set one field each.
    ///
    /// ```
    /// use relink::{Details, Options, Rules};
    /// let options = Options::new().rules(Rules::Rfc3986).details(Details::Counts);
    /// assert_eq!(options.rules, Rules::Rfc3986);
    /// ```
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

    /// Whether each link is recorded, or only counted.
    pub fn details(mut self, details: Details) -> Self {
        self.details = details;
        self
    }
}

/// How much a rewrite tells of the links it found.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Details {
    /// A [`Link`](crate::Link) record for each link (for a listing or a report).
    #[default]
    Links,
    /// Only how many were rewritten: no record per link, so memory stays
    /// in proportion to the document, not to its links.
    Counts,
}

/// How an attribute named with `--attr` holds its URLs.
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
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExtraAttribute {
    /// The attribute's name, lower-cased as the tokenizer gives it.
    pub name: String,
    /// How its value holds URLs.
    pub syntax: AttrSyntax,
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
