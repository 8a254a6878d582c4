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
//! One front door for everything else, [`Rewriter::run`]: any input (a
//! path, a file, a reader, bytes: an [`Input`]) of any kind (HTML, CSS,
//! XML, Markdown, reStructuredText, a message or MHTML, an mbox, a WARC or ARC, a WACZ),
//! told by the run, read as a stream and written to an [`Output`], with
//! the link rows and warnings handed over as [`Event`]s as they are found:
//!
//! ```
//! use relink::{Event, Input, Output, Rewriter};
//! let mut rows = Vec::new();
//! let report = Rewriter::new().run(
//!     Input::bytes(b"<a href=x>x</a><img src=../i.png>").retrieved_from("http://a/b/c"),
//!     Output::Nowhere,
//!     &mut |event| {
//!         if let Event::Rows(found) = event {
//!             rows.extend(found.iter().map(|row| row.link.resolved.clone()));
//!         }
//!         Ok(())
//!     },
//! )?;
//! assert_eq!(rows, ["http://a/b/x", "http://a/i.png"]);
//! assert_eq!(report.rewritten, 2);
//! # Ok::<(), relink::Error>(())
//! ```
// `unsafe` only to call code compiled for AVX2 where the processor has it
// (`lanes.rs`, `style/scan/skip.rs`), each call with its `SAFETY` comment.
#![deny(unsafe_code)]
#![warn(missing_docs)]

mod error;
mod front;
mod lanes;
mod rewriter;
mod rows;
pub mod wat;
mod wat_links;

// Modules private, or public under the `_internal` feature, which only
// relink's own tests, benchmarks and fuzz targets turn on: their items are
// no part of the API, and may change in any release. (Written out, not by
// a macro, so that `cargo fmt` reaches their files.)
#[cfg(feature = "_internal")]
pub mod base;
#[cfg(not(feature = "_internal"))]
mod base;
#[cfg(feature = "_internal")]
pub mod compressed;
#[cfg(not(feature = "_internal"))]
mod compressed;
#[cfg(feature = "_internal")]
pub mod css;
#[cfg(not(feature = "_internal"))]
mod css;
#[cfg(feature = "_internal")]
pub mod encoding;
#[cfg(not(feature = "_internal"))]
mod encoding;
#[cfg(feature = "_internal")]
pub mod epub;
#[cfg(not(feature = "_internal"))]
mod epub;
#[cfg(feature = "_internal")]
pub mod html;
#[cfg(not(feature = "_internal"))]
mod html;
#[cfg(feature = "_internal")]
pub mod kind;
#[cfg(not(feature = "_internal"))]
mod kind;
#[cfg(feature = "_internal")]
pub mod links;
#[cfg(not(feature = "_internal"))]
mod links;
#[cfg(feature = "_internal")]
pub mod local;
#[cfg(not(feature = "_internal"))]
mod local;
#[cfg(feature = "_internal")]
pub mod markdown;
#[cfg(not(feature = "_internal"))]
mod markdown;
#[cfg(feature = "_internal")]
pub mod mime;
#[cfg(not(feature = "_internal"))]
mod mime;
#[cfg(feature = "_internal")]
pub mod notebook;
#[cfg(not(feature = "_internal"))]
mod notebook;
#[cfg(feature = "_internal")]
pub mod options;
#[cfg(not(feature = "_internal"))]
mod options;
#[cfg(feature = "_internal")]
pub mod refresh;
#[cfg(not(feature = "_internal"))]
mod refresh;
#[cfg(feature = "_internal")]
pub mod robots;
#[cfg(not(feature = "_internal"))]
mod robots;
#[cfg(feature = "_internal")]
pub mod rst;
#[cfg(not(feature = "_internal"))]
mod rst;
#[cfg(feature = "_internal")]
pub mod splice;
#[cfg(not(feature = "_internal"))]
mod splice;
#[cfg(feature = "_internal")]
pub mod srcset;
#[cfg(not(feature = "_internal"))]
mod srcset;
#[cfg(feature = "_internal")]
pub mod style;
#[cfg(not(feature = "_internal"))]
mod style;
#[cfg(feature = "_internal")]
pub mod text;
#[cfg(not(feature = "_internal"))]
mod text;
#[cfg(feature = "_internal")]
pub mod url;
#[cfg(not(feature = "_internal"))]
mod url;
#[cfg(feature = "_internal")]
pub mod warc;
#[cfg(not(feature = "_internal"))]
mod warc;
#[cfg(feature = "_internal")]
pub mod xml;
#[cfg(not(feature = "_internal"))]
mod xml;

// The API: the front door, its settings, events and reports; the rows and
// warnings; the resolver; the error.
pub use crate::kind::{Kind, KindEntry};
pub use crate::url::{BaseUrl, Rules};
pub use base::{Base, BaseSource, Layer, LayerStatus};
pub use error::Error;
pub use front::{Done, Event, Handler, Input, Output, Report, Unit};
pub use links::{
    HtmlHead, HttpEntity, Link, LinkDetails, LinkPlace, LinkRow, RecordBlock, RecordHeads,
    RecordName, UnitKey, Warning, WarningKind,
};
pub use mime::mbox::MboxFormat;
pub use options::{AttrSyntax, Details, ExtraAttribute};
pub use rewriter::{Rewriter, Rewritten, absolutize_html, resolve};
pub use rows::{RowValue, RowWriter};

/// The README's examples, run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;

/// The Markdown guide's examples, run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../docs/markdown.md")]
struct MarkdownGuideDoctests;

/// The reStructuredText guide's examples, run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../docs/restructuredtext.md")]
struct RestructuredTextGuideDoctests;

/// The notebook guide's examples, run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../docs/notebooks.md")]
struct NotebookGuideDoctests;

/// The library guide's examples, run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../docs/library.md")]
struct LibraryGuideDoctests;
