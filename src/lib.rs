//! relink makes the relative links of documents absolute, by RFC 1808.
//!
//! The resolver is in [`url`]: RFC 1808 by default, RFC 3986 and the WHATWG
//! URL Standard on request.
//!
//! ```
//! use relink::url::{BaseUrl, Rules};
//! let base = BaseUrl::parse("http://www.ics.uci.edu/Test/a/b/c", Rules::default())?;
//! assert_eq!(base.resolve("../x")?, "http://www.ics.uci.edu/Test/a/x");
//! # Ok::<(), relink::Error>(())
//! ```
#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod base;
pub mod batch;
pub mod css;
pub mod document;
pub mod encoding;
mod error;
pub mod html;
pub mod kind;
pub mod mime;
pub mod splice;
pub mod url;
pub mod warc;

pub use error::Error;
pub use url::{BaseUrl, Rules};
