//! The WHATWG URL Standard, through the `url` crate's `join`.
//!
//! Unlike RFC 1808 and RFC 3986, the URL Standard normalises what it parses:
//! it lower-cases the scheme and host, percent-encodes spaces and other bytes
//! a URL cannot hold, adds `/` as the path of `http://a`, reads `\` as `/` in
//! special schemes, strips leading and trailing spaces and controls, and
//! drops tabs and newlines. This is what a browser would request.

use std::borrow::Cow;

use crate::Error;

/// Parses `base` as an absolute URL by the URL Standard.
pub fn parse_base(base: &str) -> Result<url::Url, Error> {
    url::Url::parse(base).map_err(|e| Error::InvalidBase {
        base: base.to_owned(),
        reason: e.to_string(),
    })
}

/// Resolves `reference` against a parsed base by the URL Standard. Returns
/// the reference itself, borrowed, when the result equals it.
pub fn resolve<'r>(base: &url::Url, reference: &'r str) -> Result<Cow<'r, str>, Error> {
    let unresolvable = |reason: String| Error::Unresolvable {
        reference: reference.to_owned(),
        reason,
    };
    // The `url` crate (2.5) has a debug assertion that some inputs trip
    // (base `file:///a/e:`, reference `..`); release builds resolve them.
    // No input may panic relink, so a tripped assertion is an error here.
    let joined = std::panic::catch_unwind(|| base.join(reference))
        .map_err(|_| unresolvable("the url crate failed on it".to_owned()))?
        .map_err(|e| unresolvable(e.to_string()))?;
    if joined.as_str() == reference {
        Ok(Cow::Borrowed(reference))
    } else {
        Ok(Cow::Owned(joined.into()))
    }
}
