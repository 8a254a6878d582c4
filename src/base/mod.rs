//! The layered base of a document (RFC 1808 section 3), and where it came
//! from.

use std::fmt;

use crate::url::BaseUrl;

mod chain;

pub use chain::{BaseChain, stack_layers};

/// Where a base URL came from, innermost layer first (RFC 1808 section 3);
/// see the examples of [`crate::links::Link`] and [`Layer`].
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum BaseSource {
    /// Forced above every layer by the user (the command line's `--base`).
    Forced,
    /// An HTML BASE element (section 3.1), at this line of the document.
    BaseElement {
        /// The line of the element's tag, from 1.
        line: usize,
    },
    /// A header of a message or part (section 3.1): `Content-Base`, `Base`, `Content-Location`...
    Header {
        /// The header's name.
        name: String,
        /// The part it is on (`1.2`), empty for the top-level message.
        part: String,
    },
    /// An `xml:base` on the element at this line: the base of its subtree (XML Base).
    XmlBase {
        /// The line of the element's start tag, from 1.
        line: usize,
    },
    /// The base of the enclosing document (section 3.2), such as an `iframe srcdoc`'s parent.
    Enclosing(Box<BaseSource>),
    /// The URL the document was retrieved from (section 3.3).
    RetrievedFrom,
    /// The URL a browser's "saved from" mark names (`<!-- saved from
    /// url=(NNNN)URL -->`): the retrieval URL (section 3.3) when none was given.
    SavedFrom,
    /// The page's own file, for a link to a file a browser saved with it: left as it is.
    SavedWithPage,
    /// The record's `WARC-Target-URI`, the URL it was retrieved from (section 3.3).
    TargetUri,
    /// The base given for embedded resources (images, media, style sheet
    /// URLs) in place of the retrieval URL: a README's images on a raw host.
    ResourceBase,
    /// The file's own place in its container (an EPUB book), the root for
    /// the container's `META-INF` files: links to its other files stay as
    /// written.
    Container,
}

impl BaseSource {
    /// Where a base came from as the command line and every report name it:
    /// a base the user gave by its option, any other layer as it displays.
    ///
    /// ```
    /// use relink::BaseSource;
    /// assert_eq!(BaseSource::RetrievedFrom.option_name(), "--retrieved-from");
    /// assert_eq!(BaseSource::TargetUri.option_name(), "WARC-Target-URI of the record");
    /// ```
    pub fn option_name(&self) -> String {
        match self {
            BaseSource::Forced => "--base".to_owned(),
            BaseSource::RetrievedFrom => "--retrieved-from".to_owned(),
            BaseSource::ResourceBase => "--resource-base".to_owned(),
            BaseSource::Enclosing(outer) => {
                format!("the enclosing document ({})", outer.option_name())
            }
            other => other.to_string(),
        }
    }
}

impl fmt::Display for BaseSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BaseSource::Forced => f.write_str("the forced base"),
            BaseSource::BaseElement { line } => write!(f, "the BASE element at line {line}"),
            BaseSource::Header { name, part } if part.is_empty() => {
                write!(f, "{name} of the message")
            }
            BaseSource::Header { name, part } => write!(f, "{name} of part {part}"),
            BaseSource::XmlBase { line } => write!(f, "xml:base at line {line}"),
            BaseSource::Enclosing(outer) => write!(f, "the enclosing document ({outer})"),
            BaseSource::RetrievedFrom => f.write_str("the retrieval URL"),
            BaseSource::SavedFrom => f.write_str("the saved-from mark"),
            BaseSource::SavedWithPage => f.write_str("the page's file (saved with it)"),
            BaseSource::TargetUri => f.write_str("WARC-Target-URI of the record"),
            BaseSource::ResourceBase => f.write_str("the base for resources"),
            BaseSource::Container => f.write_str("the file's place in the book"),
        }
    }
}

/// What became of one layer of a document's base; see the example of [`Layer`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LayerStatus {
    /// This layer gave the base.
    Used,
    /// A layer above gave the base.
    Below,
    /// This layer was there but could not serve, and why.
    Ignored(String),
}

impl fmt::Display for LayerStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LayerStatus::Used => f.write_str("gives the base"),
            LayerStatus::Below => f.write_str("below the one used"),
            LayerStatus::Ignored(why) => write!(f, "ignored: {why}"),
        }
    }
}

/// One layer a document had (RFC 1808 section 3), for `relink explain`.
///
/// ```
/// use relink::{BaseSource, LayerStatus};
/// let out = relink::Rewriter::new()
///     .retrieved_from("http://a.example/d/")
///     .rewrite(b"<base href=http://b.example/><a href=x>x</a>")?;
/// let layers: Vec<_> = out.layers().collect();
/// assert!(matches!(layers[0].source, BaseSource::BaseElement { .. }));
/// assert_eq!(layers[0].status, LayerStatus::Used);
/// assert_eq!((&layers[1].source, &layers[1].status), (&BaseSource::RetrievedFrom, &LayerStatus::Below));
/// # Ok::<(), relink::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Layer {
    /// Where it is.
    pub source: BaseSource,
    /// The URL as written there.
    pub value: String,
    /// Whether it gave the base.
    pub status: LayerStatus,
    /// The base its value resolved to against the layer outside it, when it
    /// gave the base and was relative; else `None`.
    ///
    /// ```
    /// let out = relink::Rewriter::new()
    ///     .kind(relink::Kind::Xml)
    ///     .retrieved_from("http://a.example/feed/")
    ///     .rewrite(b"<feed xml:base='../blog/'><link href='x'/></feed>")?;
    /// let layers: Vec<_> = out.layers().collect();
    /// assert_eq!(layers[0].value, "../blog/");
    /// assert_eq!(layers[0].resolved.as_deref(), Some("http://a.example/blog/"));
    /// assert_eq!(layers[1].resolved, None);
    /// # Ok::<(), relink::Error>(())
    /// ```
    pub resolved: Option<String>,
}

impl Layer {
    /// A layer of `source` holding `value`.
    pub fn new(source: BaseSource, value: impl Into<String>, status: LayerStatus) -> Self {
        Layer {
            source,
            value: value.into(),
            status,
            resolved: None,
        }
    }
}

/// A base URL and the layer it came from; see the example of [`crate::links::Link`].
#[derive(Debug, Clone)]
pub struct Base {
    /// The URL, with the rules it resolves by.
    pub url: BaseUrl,
    /// Where it came from.
    pub source: BaseSource,
}

/// The URL a document with no base is walked with when links are recorded, a
/// reserved `.invalid` name (RFC 2606): what resolves against it is left.
const STAND_IN: &str = "http://unresolved.invalid/";

impl Base {
    /// A base from `source`.
    pub fn new(url: BaseUrl, source: BaseSource) -> Self {
        Base { url, source }
    }

    /// The base a document with no base is walked with when links are recorded.
    pub(crate) fn stand_in(rules: crate::url::Rules) -> Option<Base> {
        let url = BaseUrl::parse(STAND_IN, rules).ok()?;
        Some(Base::new(url, BaseSource::Forced))
    }

    /// Whether this is the stand-in, or a base resolved against it.
    pub(crate) fn is_stand_in(&self) -> bool {
        self.url.as_str().starts_with(STAND_IN)
    }
}
