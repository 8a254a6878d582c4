//! The WHATWG URL Standard, through the `url` crate's `join`.
//!
//! Unlike the RFCs, it normalises what it parses (scheme and host lower
//! case, percent-encoding, `\` as `/` in special schemes, spaces, tabs and
//! newlines dropped): what a browser would request.

use std::borrow::Cow;

use crate::error::Error;

/// Parses `base` as an absolute URL by the URL Standard.
pub fn parse_base(base: &str) -> Result<url::Url, Error> {
    url::Url::parse(base).map_err(|e| Error::InvalidBase {
        base: base.to_owned(),
        reason: e.to_string(),
    })
}

/// Resolves `reference` against a parsed base by the URL Standard, borrowing it if unchanged.
pub fn resolve<'r>(base: &url::Url, reference: &'r str) -> Result<Cow<'r, str>, Error> {
    let unresolvable = |reason: String| Error::Unresolvable {
        reference: reference.to_owned(),
        reason,
    };
    // The `url` crate (2.5) keeps a `file:` path's drive-letter-shaped last
    // segment wherever it stands (`file:///a/e:` with `..`), giving a wrong
    // path or a debug assertion; the URL Standard keeps only a first one, so
    // such a base is refused for references that reach its path.
    if reaches_base_path(reference) && has_inner_drive_letter(base) {
        return Err(unresolvable(
            "a file: base with a drive letter inside its path".to_owned(),
        ));
    }
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

/// Whether resolving `reference` against a `file:` base shortens its path: a
/// relative path, bare or after `file:`.
fn reaches_base_path(reference: &str) -> bool {
    let read: String = reference
        .trim_matches(|c: char| c <= ' ')
        .chars()
        .filter(|c| !matches!(c, '\t' | '\n' | '\r'))
        .collect();
    let path = match read.find(':') {
        Some(colon)
            if read[..colon].starts_with(|c: char| c.is_ascii_alphabetic())
                && read[..colon]
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.')) =>
        {
            if !read[..colon].eq_ignore_ascii_case("file") {
                return false;
            }
            &read[colon + 1..]
        }
        _ => &read[..],
    };
    !(path.is_empty() || path.starts_with(['?', '#', '/', '\\']))
}

/// Whether `base` is a `file:` URL with a segment shaped as a Windows drive
/// letter (`c:`, `c|`) past its first.
fn has_inner_drive_letter(base: &url::Url) -> bool {
    base.scheme() == "file"
        && base.path().split('/').skip(2).any(|segment| {
            let b = segment.as_bytes();
            b.len() == 2 && b[0].is_ascii_alphabetic() && matches!(b[1], b':' | b'|')
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_base_with_an_inner_drive_letter_is_refused_where_its_path_is_reached() {
        let base = parse_base("file:///a/p:").unwrap();
        for reference in ["..", "../l", "x", "./"] {
            assert!(resolve(&base, reference).is_err(), "{reference}");
        }
        assert_eq!(resolve(&base, "?q").unwrap(), "file:///a/p:?q");
        assert_eq!(resolve(&base, "#f").unwrap(), "file:///a/p:#f");
        for reference in ["file:..", "\t../x", "file:x"] {
            assert!(resolve(&base, reference).is_err(), "{reference:?}");
        }
        // References that do not start from its path resolve.
        assert_eq!(resolve(&base, "/x").unwrap(), "file:///x");
        assert_eq!(resolve(&base, "file:///a/p:").unwrap(), "file:///a/p:");
        assert_eq!(resolve(&base, "http://h/x").unwrap(), "http://h/x");
        // A drive letter where the URL Standard has one resolves.
        let drive = parse_base("file:///c:/a/b").unwrap();
        assert_eq!(resolve(&drive, "../x").unwrap(), "file:///c:/x");
    }
}
