//! relink makes the relative links of documents absolute, by RFC 1808
//! (Relative Uniform Resource Locators): it finds each document's base in
//! the RFC's order of precedence (the HTML BASE element; the headers
//! `Content-Base`, `Base` and `Content-Location`; the enclosing entity; the
//! URL it was retrieved from) and resolves every relative reference against
//! it, changing no other byte.
//!
//! One call for the common cases:
//!
//! ```
//! let out = relink::absolutize_html(b"<a href=../x>x</a>", "http://www.ics.uci.edu/Test/a/b/c")?;
//! assert_eq!(out, b"<a href=http://www.ics.uci.edu/Test/a/x>x</a>");
//! assert_eq!(
//!     relink::resolve("http://a/b/c/d;p?q#f", "../../../g", relink::Rules::Rfc1808)?,
//!     "http://a/../g"
//! );
//! # Ok::<(), relink::Error>(())
//! ```
//!
//! A [`Rewriter`] for everything else: rules, a forced base, encodings,
//! lazy-loading attributes, messages and MHTML, and mbox and WARC archives
//! as streams. [`url`] holds the resolvers of each rule set.
#![forbid(unsafe_code)]
#![warn(missing_docs)]

// The modules of the API: each documented, each part of it.
pub mod compressed;
pub mod kind;
pub mod url;
pub mod warc;

mod error;
mod rewriter;

/// Declares modules private, or public under the `_internal` feature, which
/// only relink's own tests, benchmarks and fuzz targets turn on: their
/// items are no part of the API, and may change in any release.
macro_rules! internal_modules {
    ($($name:ident),* $(,)?) => {$(
        #[cfg(feature = "_internal")]
        pub mod $name;
        #[cfg(not(feature = "_internal"))]
        mod $name;
    )*};
}

internal_modules!(
    base, css, document, encoding, html, links, markdown, mime, options, refresh, splice, style,
    text, xml,
);

pub use base::{Base, BaseSource, Layer, LayerStatus};
pub use document::{
    DocumentReport, Engine, part_label, rewrite_css, rewrite_document, rewrite_html, rewrite_mbox,
    rewrite_message, rewrite_xml,
};
pub use error::Error;
pub use kind::Kind;
pub use links::{Link, LinkPlace, LinkRow, LinkSink, Outcome, RecordName, Warning, WarningKind};
pub use mime::maildir;
pub use mime::mbox::{ArchiveMessage, MboxFormat};
pub use mime::message::{MessageOutcome, PartReport};
pub use options::{AttrSyntax, Details, ExtraAttribute, Options, Rows};
pub use rewriter::{Rewriter, Rewritten, absolutize_html, resolve};
pub use url::{BaseUrl, Rules};
pub use warc::{RecordReport, WarcError, WarcLink, WarcOptions, WarcSummary};

/// The README's examples, run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;

/// The Markdown guide's examples, run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../docs/markdown.md")]
struct MarkdownGuideDoctests;

/// The library guide's examples, run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../docs/library.md")]
struct LibraryGuideDoctests;
