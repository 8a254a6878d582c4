//! RFC 3986 section 5.2: reference resolution with `remove_dot_segments`.
//!
//! Strict resolution (section 5.2.2): a reference with a scheme is taken as
//! absolute even when the scheme equals the base's. The base's fragment is
//! dropped (section 5.2.1).
//!
//! ```
//! use relink::url::rfc3986::resolve;
//! assert_eq!(resolve("http://a/b/c/d;p?q", "../../../g"), "http://a/g");
//! assert_eq!(resolve("http://a/b/c/d;p?q", ";x"), "http://a/b/c/;x");
//! ```

use std::borrow::Cow;

/// A URI reference in the five components of section 3 (Appendix B, scheme per 3.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Reference<'a> {
    /// `scheme`, without its colon.
    pub scheme: Option<&'a str>,
    /// `authority`, without the leading `//`.
    pub authority: Option<&'a str>,
    /// `path`, with its leading slash if any.
    pub path: &'a str,
    /// `query`, without the `?`.
    pub query: Option<&'a str>,
    /// `fragment`, without the `#`.
    pub fragment: Option<&'a str>,
}

impl<'a> Reference<'a> {
    /// Splits a URI reference into its components (Appendix B).
    pub fn parse(input: &'a str) -> Self {
        let (scheme, rest) = parse_scheme(input);
        let (authority, rest) = match rest.strip_prefix("//") {
            Some(after) => {
                let end = after.find(['/', '?', '#']).unwrap_or(after.len());
                (Some(&after[..end]), &after[end..])
            }
            None => (None, rest),
        };
        let (rest, fragment) = match rest.split_once('#') {
            Some((rest, fragment)) => (rest, Some(fragment)),
            None => (rest, None),
        };
        let (path, query) = match rest.split_once('?') {
            Some((path, query)) => (path, Some(query)),
            None => (rest, None),
        };
        Reference {
            scheme,
            authority,
            path,
            query,
            fragment,
        }
    }

    /// Section 5.3: component recomposition, with `path` for the parsed path.
    fn recompose_with_path(&self, path: &str) -> String {
        let mut out = String::with_capacity(
            self.scheme.map_or(0, |s| s.len() + 1)
                + self.authority.map_or(0, |s| s.len() + 2)
                + path.len()
                + self.query.map_or(0, |s| s.len() + 1)
                + self.fragment.map_or(0, |s| s.len() + 1),
        );
        if let Some(scheme) = self.scheme {
            out.push_str(scheme);
            out.push(':');
        }
        if let Some(authority) = self.authority {
            out.push_str("//");
            out.push_str(authority);
        }
        out.push_str(path);
        if let Some(query) = self.query {
            out.push('?');
            out.push_str(query);
        }
        if let Some(fragment) = self.fragment {
            out.push('#');
            out.push_str(fragment);
        }
        out
    }
}

/// Section 3.1: `scheme = ALPHA *( ALPHA / DIGIT / "+" / "-" / "." )`,
/// followed by `:` before any `/`, `?` or `#`.
pub(crate) fn parse_scheme(s: &str) -> (Option<&str>, &str) {
    let bytes = s.as_bytes();
    if !bytes.first().is_some_and(u8::is_ascii_alphabetic) {
        return (None, s);
    }
    for (i, &b) in bytes.iter().enumerate().skip(1) {
        match b {
            b':' => return (Some(&s[..i]), &s[i + 1..]),
            b if b.is_ascii_alphanumeric() || matches!(b, b'+' | b'-' | b'.') => {}
            _ => break,
        }
    }
    (None, s)
}

/// Resolves `reference` against `base` by section 5.2.2 (strict), borrowing it if unchanged.
pub fn resolve<'r>(base: &str, reference: &'r str) -> Cow<'r, str> {
    let r = Reference::parse(reference);
    let mut base = Reference::parse(base);
    // Section 5.2.1: the base is used without its fragment.
    base.fragment = None;
    let mut t = Reference {
        fragment: r.fragment,
        ..Reference::default()
    };
    let path: Cow<'_, str>;
    if r.scheme.is_some() {
        t.scheme = r.scheme;
        t.authority = r.authority;
        t.query = r.query;
        path = remove_dot_segments(r.path);
    } else {
        t.scheme = base.scheme;
        if r.authority.is_some() {
            t.authority = r.authority;
            t.query = r.query;
            path = remove_dot_segments(r.path);
        } else {
            t.authority = base.authority;
            if r.path.is_empty() {
                path = Cow::Borrowed(base.path);
                t.query = r.query.or(base.query);
            } else {
                t.query = r.query;
                path = if r.path.starts_with('/') {
                    remove_dot_segments(r.path)
                } else {
                    Cow::Owned(remove_dot_segments(&merge(&base, r.path)).into_owned())
                };
            }
        }
    }
    let out = t.recompose_with_path(&path);
    if out == reference {
        Cow::Borrowed(reference)
    } else {
        Cow::Owned(out)
    }
}

/// Section 5.2.3: merges a relative-path reference with the base's path.
fn merge(base: &Reference<'_>, relative: &str) -> String {
    if base.authority.is_some() && base.path.is_empty() {
        return format!("/{relative}");
    }
    match base.path.rfind('/') {
        Some(i) => format!("{}{relative}", &base.path[..=i]),
        None => relative.to_owned(),
    }
}

/// Section 5.2.4: removes the special "." and ".." complete path segments.
pub fn remove_dot_segments(path: &str) -> Cow<'_, str> {
    let has_dot_segment = path
        .split('/')
        .any(|segment| segment == "." || segment == "..");
    if !has_dot_segment {
        return Cow::Borrowed(path);
    }
    // 1. The input buffer is the path; the output buffer is empty.
    let mut input = path;
    let mut output = String::with_capacity(path.len());
    // 2. While the input buffer is not empty, loop:
    while !input.is_empty() {
        if let Some(rest) = input
            .strip_prefix("../")
            .or_else(|| input.strip_prefix("./"))
        {
            // A. A prefix of "../" or "./" is removed.
            input = rest;
        } else if input.starts_with("/./") {
            // B. A prefix of "/./" is replaced by "/" ...
            input = &input[2..];
        } else if input == "/." {
            // ... and so is a complete "/.".
            input = "/";
        } else if input.starts_with("/../") || input == "/.." {
            // C. "/../" or a final "/.." becomes "/", and the output's last segment goes with its "/".
            input = if input == "/.." { "/" } else { &input[3..] };
            output.truncate(output.rfind('/').unwrap_or(0));
        } else if input == "." || input == ".." {
            // D. A lone "." or ".." is removed.
            input = "";
        } else {
            // E. The first segment, with its leading "/" if any, moves to the output.
            let start = usize::from(input.starts_with('/'));
            let end = input[start..].find('/').map_or(input.len(), |i| start + i);
            output.push_str(&input[..end]);
            input = &input[end..];
        }
    }
    // 3. The output buffer is the result.
    Cow::Owned(output)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn remove_dot_segments_follows_section_5_2_4() {
        for (input, want) in [
            ("/a/b/c/./../../g", "/a/g"),
            ("mid/content=5/../6", "mid/6"),
            ("/../g", "/g"),
            ("..", ""),
            ("/a/..", "/"),
            ("a/b", "a/b"),
        ] {
            assert_eq!(remove_dot_segments(input), want, "{input}");
        }
    }

    #[test]
    fn scheme_must_start_with_a_letter() {
        assert_eq!(Reference::parse("1a:b").scheme, None);
        assert_eq!(Reference::parse("a1:b").scheme, Some("a1"));
        assert_eq!(Reference::parse("./a:b").scheme, None);
    }
}
