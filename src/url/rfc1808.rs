//! RFC 1808: parsing (section 2.4), resolution (section 4) and recombination
//! (section 4, step 7). The cases the RFC leaves open are settled as
//! `docs/rules.md` says; examples against the base of section 5:
//!
//! ```
//! use relink::url::rfc1808::resolve;
//! let base = "http://a/b/c/d;p?q#f";
//! assert_eq!(resolve(base, "../g"), "http://a/b/g");
//! assert_eq!(resolve(base, ";x"), "http://a/b/c/d;x");
//! assert_eq!(resolve(base, ""), "http://a/b/c/d;p?q#f");
//! assert_eq!(resolve(base, "../../../g"), "http://a/../g");
//! assert_eq!(resolve(base, "g?"), "http://a/b/c/g?");
//! assert_eq!(resolve(base, "#"), "http://a/b/c/d;p?q#");
//! assert_eq!(resolve(base, "?"), "http://a/b/c/d;p?q");
//! ```

use std::borrow::Cow;
use std::fmt;

/// A URL broken into the six components of RFC 1808 section 2.1, borrowing
/// from the parsed string. `None` when a delimiter was absent, `Some("")`
/// when present with nothing after it, so that [`fmt::Display`] (section 4
/// step 7) gives back exactly the parsed input.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Url<'a> {
    /// `<scheme>`, without its colon.
    pub scheme: Option<&'a str>,
    /// `<net_loc>`, without the leading `//`.
    pub net_loc: Option<&'a str>,
    /// Whether the path was preceded by a slash (section 2.4.6).
    pub rooted: bool,
    /// `<path>`, without its leading slash.
    pub path: &'a str,
    /// `<params>`, without the `;`.
    pub params: Option<&'a str>,
    /// `<query>`, without the `?`.
    pub query: Option<&'a str>,
    /// `<fragment>`, without the `#`.
    pub fragment: Option<&'a str>,
}

impl<'a> Url<'a> {
    /// Parses a URL by section 2.4, steps 2.4.1 to 2.4.6 in order; every string is a URL here.
    pub fn parse(input: &'a str) -> Self {
        // 2.4.1: the fragment is after the first "#".
        let (rest, fragment) = split_at_first(input, b'#');
        // 2.4.2: the scheme.
        let (scheme, rest) = parse_scheme(rest);
        // 2.4.3: "//" then the net_loc, up to the next "/".
        let (net_loc, rest) = match rest.strip_prefix("//") {
            Some(after) => {
                let end = after.find('/').unwrap_or(after.len());
                (Some(&after[..end]), &after[end..])
            }
            None => (None, rest),
        };
        // 2.4.4: the query is after the first "?".
        let (rest, query) = split_at_first(rest, b'?');
        // 2.4.5: the params are after the first ";".
        let (rest, params) = split_at_first(rest, b';');
        // 2.4.6: what is left is the path, and whether a slash preceded it.
        let (rooted, path) = match rest.strip_prefix('/') {
            Some(path) => (true, path),
            None => (false, rest),
        };
        Url {
            scheme,
            net_loc,
            rooted,
            path,
            params,
            query,
            fragment,
        }
    }

    /// The length of the recombined string, to allocate it once.
    fn recombined_len(&self, path_len: usize) -> usize {
        let opt = |c: Option<&str>, delim: usize| c.map_or(0, |s| s.len() + delim);
        opt(self.scheme, 1)
            + opt(self.net_loc, 2)
            + usize::from(self.rooted)
            + path_len
            + opt(self.params, 1)
            + opt(self.query, 1)
            + opt(self.fragment, 1)
    }

    /// Section 4 step 7: recombines the components, with `path` for the parsed path.
    fn recombine_with_path(&self, path: &str) -> String {
        let mut out = String::with_capacity(self.recombined_len(path.len()));
        if let Some(scheme) = self.scheme {
            out.push_str(scheme);
            out.push(':');
        }
        if let Some(net_loc) = self.net_loc {
            out.push_str("//");
            out.push_str(net_loc);
        }
        if self.rooted {
            out.push('/');
        }
        out.push_str(path);
        for (delim, part) in [(';', self.params), ('?', self.query), ('#', self.fragment)] {
            if let Some(part) = part {
                out.push(delim);
                out.push_str(part);
            }
        }
        out
    }
}

/// Section 4 step 7: the components recombined.
impl fmt::Display for Url<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.recombine_with_path(self.path))
    }
}

/// Splits `s` at the first `delim`, dropping the delimiter.
fn split_at_first(s: &str, delim: u8) -> (&str, Option<&str>) {
    match memchr::memchr(delim, s.as_bytes()) {
        Some(i) => (&s[..i], Some(&s[i + 1..])),
        None => (s, None),
    }
}

/// Section 2.4.2: a colon after the first character and before any non-scheme character.
fn parse_scheme(s: &str) -> (Option<&str>, &str) {
    let end = s
        .bytes()
        .position(|b| !SCHEME_BYTES[usize::from(b)])
        .unwrap_or(s.len());
    match s.as_bytes().get(end) {
        Some(b':') if end > 0 => (Some(&s[..end]), &s[end + 1..]),
        _ => (None, s),
    }
}

/// Whether [`parse_scheme`] finds a scheme in `s`, without taking it apart.
#[inline(always)]
fn finds_scheme(s: &str) -> bool {
    finds_scheme_in(s.as_bytes())
}

/// [`finds_scheme`] of bytes: a scheme's bytes are ASCII, so the bytes
/// after it need not be text.
#[inline(always)]
pub(crate) fn finds_scheme_in(bytes: &[u8]) -> bool {
    let end = bytes
        .iter()
        .position(|&b| !SCHEME_BYTES[usize::from(b)])
        .unwrap_or(bytes.len());
    end > 0 && bytes.get(end) == Some(&b':')
}

/// The bytes of a scheme name (alphanumerics, `+`, `.`, `-`).
static SCHEME_BYTES: [bool; 256] = {
    let mut table = [false; 256];
    let mut b = 0;
    while b < 256 {
        let c = b as u8;
        table[b] = c.is_ascii_alphanumeric() || matches!(c, b'+' | b'.' | b'-');
        b += 1;
    }
    table
};

/// Resolves `reference` against `base` by section 4. Borrows the reference
/// when it has a scheme (step 2b), so callers can tell nothing changed; an
/// empty base means "unknown" (step 1) and returns it as is.
#[cfg_attr(not(feature = "_internal"), allow(dead_code))]
pub fn resolve<'r>(base: &str, reference: &'r str) -> Cow<'r, str> {
    resolve_with(base, reference, || Url::parse(base))
}

/// [`resolve`], the base parsed by `parsed` only when it is needed.
fn resolve_with<'b, 'r>(
    base: &'b str,
    reference: &'r str,
    parsed: impl FnOnce() -> Url<'b>,
) -> Cow<'r, str> {
    let mut out = String::new();
    if resolve_with_into(base, reference, (None, parsed), &mut out) {
        Cow::Owned(out)
    } else {
        Cow::Borrowed(reference)
    }
}

/// [`resolve_with`] appending the resolved URL to `out`: `false` (nothing
/// appended) when the reference stands as it is written, which
/// [`resolve`] borrows. A caller resolving many links reuses one buffer.
/// With the base's `spans`, a reference copied after a part of the base
/// ([`resolve_copied`]) is written after that part's text, unparsed.
#[inline(always)]
fn resolve_with_into<'b>(
    base: &'b str,
    reference: &str,
    (spans, parsed): (Option<&Spans>, impl FnOnce() -> Url<'b>),
    out: &mut String,
) -> bool {
    // Step 1: no base, the reference is taken as absolute.
    if base.is_empty() {
        return false;
    }
    // Step 2a: an entirely empty reference is the base.
    if reference.is_empty() {
        out.push_str(base);
        return true;
    }
    // A fragment alone (`#s`): steps 2c to 5 give the base's text up to its
    // `#`, then the reference (the tests hold this to the steps).
    if reference.starts_with('#') {
        let end = memchr::memchr(b'#', base.as_bytes()).unwrap_or(base.len());
        out.reserve(end + reference.len());
        out.push_str(&base[..end]);
        out.push_str(reference);
        return true;
    }
    // Step 2b: a reference with a scheme is absolute. The scheme ends at a
    // colon before any `#`, so reading it first finds what 2.4.1 and 2.4.2
    // find, and a long `data:` URL is not parsed.
    if finds_scheme(reference) {
        return false;
    }
    let lends = lends(reference);
    if let Some(spans) = spans
        && let Some(lends) = lends
        && let Some(part) = spans.lent[lends as usize].and_then(|end| base.get(..end))
    {
        out.reserve(part.len() + reference.len());
        out.push_str(part);
        out.push_str(reference);
        return true;
    }
    let base = parsed();
    if let Some(lends) = lends
        && resolve_copied(&base, lends, reference, out)
    {
        return true;
    }
    // Step 2: both are parsed.
    let embedded = Url::parse(reference);
    let resolved = resolve_relative(&base, &embedded);
    if out.is_empty() {
        *out = resolved;
    } else {
        out.push_str(&resolved);
    }
    true
}

/// The part of the base a reference copied after it follows ([`resolve_copied`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Lends {
    /// `//g` (step 3): the scheme.
    Scheme,
    /// `/g` (step 4): the scheme and net_loc.
    NetLoc,
    /// A relative path with no dot segment (step 6): up to the base's directory.
    Directory,
}

/// What a reference without a scheme is copied after, if it is copied.
#[inline(always)]
fn lends(reference: &str) -> Option<Lends> {
    let bytes = reference.as_bytes();
    if bytes.starts_with(b"//") {
        return Some(Lends::Scheme);
    }
    if bytes.first() == Some(&b'/') {
        return Some(Lends::NetLoc);
    }
    // The path ends at the first `;`, `?` or `#` (2.4.1, 2.4.4, 2.4.5).
    let path_end = bytes
        .iter()
        .position(|b| matches!(b, b';' | b'?' | b'#'))
        .unwrap_or(bytes.len());
    (path_end > 0 && !has_dot_segment(&reference[..path_end])).then_some(Lends::Directory)
}

/// The base's parts a reference that `lends` is copied after: scheme,
/// net_loc, and the directory (with whether a slash comes before it);
/// `None` when the base's directory has a dot segment.
#[inline(always)]
fn lent<'a>(base: &Url<'a>, lends: Lends) -> Option<[Option<(&'a str, &'a str)>; 3]> {
    // Step 3: only the scheme is inherited.
    let net_loc = if lends == Lends::Scheme {
        None
    } else {
        base.net_loc
    };
    // Step 6: the base's directory, and whether a slash comes before it.
    let mut directory = None;
    if lends == Lends::Directory {
        let slash = base.path.bytes().rposition(|b| b == b'/');
        let with_slash = slash.map_or("", |i| &base.path[..=i]);
        if has_dot_segment(with_slash) {
            return None;
        }
        let rooted = base.rooted || base.net_loc.is_some();
        directory = Some((if rooted { "/" } else { "" }, with_slash));
    }
    Some([
        base.scheme.map(|scheme| (scheme, ":")),
        net_loc.map(|net_loc| ("//", net_loc)),
        directory,
    ])
}

/// Steps 2c to 7 for references whose components recombine as written: a
/// net_loc (`//g`, step 3), a rooted path (`/g`, step 4), or a relative
/// path with no dot segment in it nor in the base's directory (step 6):
/// the base's part, then the reference's text, appended to `out`. `false`,
/// with nothing appended, for the rest ([`resolve_relative`]).
#[inline(always)]
fn resolve_copied(base: &Url<'_>, lends: Lends, reference: &str, out: &mut String) -> bool {
    let Some(parts) = lent(base, lends) else {
        return false;
    };
    let len = parts.iter().flatten().map(|(a, b)| a.len() + b.len());
    out.reserve(len.sum::<usize>() + reference.len());
    for (a, b) in parts.into_iter().flatten() {
        out.push_str(a);
        out.push_str(b);
    }
    out.push_str(reference);
    true
}

/// A parsed base as byte ranges of its text, so a `BaseUrl` is parsed once.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Spans {
    scheme: Option<(usize, usize)>,
    net_loc: Option<(usize, usize)>,
    rooted: bool,
    path: (usize, usize),
    params: Option<(usize, usize)>,
    query: Option<(usize, usize)>,
    fragment: Option<(usize, usize)>,
    /// For each [`Lends`], the end of the text's own bytes that are the
    /// part a copied reference follows, when they are (not when the part
    /// is written otherwise, as `http://a`'s directory, `http://a/`).
    lent: [Option<usize>; 3],
}

impl Spans {
    /// The ranges of `text`'s components.
    pub(crate) fn of(text: &str) -> Self {
        let u = Url::parse(text);
        let span = |c: &str| {
            let start = c.as_ptr() as usize - text.as_ptr() as usize;
            (start, start + c.len())
        };
        Spans {
            scheme: u.scheme.map(span),
            net_loc: u.net_loc.map(span),
            rooted: u.rooted,
            path: span(u.path),
            params: u.params.map(span),
            query: u.query.map(span),
            fragment: u.fragment.map(span),
            lent: [Lends::Scheme, Lends::NetLoc, Lends::Directory].map(|lends| {
                let parts = lent(&u, lends)?;
                let mut part = String::new();
                for (a, b) in parts.into_iter().flatten() {
                    part.push_str(a);
                    part.push_str(b);
                }
                text.starts_with(&part).then_some(part.len())
            }),
        }
    }

    /// The components again, borrowing from `text`, the string the spans are of.
    #[inline]
    fn url<'a>(&self, text: &'a str) -> Url<'a> {
        let get = |(a, b): (usize, usize)| text.get(a..b).unwrap_or_default();
        Url {
            scheme: self.scheme.map(get),
            net_loc: self.net_loc.map(get),
            rooted: self.rooted,
            path: get(self.path),
            params: self.params.map(get),
            query: self.query.map(get),
            fragment: self.fragment.map(get),
        }
    }
}

/// [`resolve`] with the base already parsed into `spans` of `base`.
pub(crate) fn resolve_parsed<'r>(base: &str, spans: &Spans, reference: &'r str) -> Cow<'r, str> {
    let mut out = String::new();
    if resolve_parsed_into(base, spans, reference, &mut out) {
        Cow::Owned(out)
    } else {
        Cow::Borrowed(reference)
    }
}

/// [`resolve_parsed`] appending the resolved URL to `out`; `false`, with
/// nothing appended, when it borrows the reference.
#[inline(always)]
pub(crate) fn resolve_parsed_into(
    base: &str,
    spans: &Spans,
    reference: &str,
    out: &mut String,
) -> bool {
    resolve_with_into(base, reference, (Some(spans), || spans.url(base)), out)
}

/// The part of `base` (with its `spans`) that [`resolve_parsed_into`]
/// writes before `reference` when the URL it resolves to is that part
/// followed by the reference as it is: the base up to its `#` for a
/// fragment alone, the part a reference without a scheme [`lends`] after.
/// `None` for any other (and for an empty base or reference).
#[inline]
pub(crate) fn lent_part<'b>(base: &'b str, spans: &Spans, reference: &str) -> Option<&'b str> {
    if base.is_empty() || reference.is_empty() {
        return None;
    }
    if reference.starts_with('#') {
        let end = memchr::memchr(b'#', base.as_bytes()).unwrap_or(base.len());
        return Some(&base[..end]);
    }
    if finds_scheme(reference) {
        return None;
    }
    spans.lent[lends(reference)? as usize].and_then(|end| base.get(..end))
}

/// Section 4, steps 2c to 7, for a reference without a scheme.
fn resolve_relative(base: &Url<'_>, embedded: &Url<'_>) -> String {
    // Step 2c: the scheme is inherited.
    let mut target = Url {
        scheme: base.scheme,
        ..*embedded
    };
    // Step 3: a reference with a net_loc is complete; else it inherits one.
    if embedded.net_loc.is_some() {
        return target.recombine_with_path(target.path);
    }
    target.net_loc = base.net_loc;
    // Step 4: a path preceded by a slash is not relative.
    if embedded.rooted {
        return target.recombine_with_path(target.path);
    }
    // Step 5: an empty path inherits the base's path, then params, then query,
    // each only while the reference's is empty (a written `?` or `;` is empty
    // too); the fragment is the reference's own (`#` keeps its `#`).
    if embedded.path.is_empty() {
        let empty = |c: Option<&str>| c.is_none_or(str::is_empty);
        target.rooted = base.rooted;
        target.path = base.path;
        if empty(embedded.params) {
            target.params = base.params;
            if empty(embedded.query) {
                target.query = base.query;
            }
        }
        return target.recombine_with_path(target.path);
    }
    // Step 6: the base path without its last segment, then the reference's
    // path, with dot segments removed. A base with a net_loc and an empty
    // path counts as rooted (the settled reading: `http://a` + `g`).
    target.rooted = base.rooted || base.net_loc.is_some();
    let path = merge_paths(base.path, embedded.path);
    // Step 7: recombine.
    target.recombine_with_path(&path)
}

/// Section 4 step 6: removes the last segment of `base_path`, appends
/// `relative`, and applies steps 6a to 6d in one pass over a segment stack
/// (the note after step 7); the tests check it against the string rules.
fn merge_paths(base_path: &str, relative: &str) -> String {
    let slash = base_path.rfind('/');
    // Without a dot segment, steps 6a to 6d change nothing.
    let directory_with_slash = slash.map_or("", |i| &base_path[..=i]);
    if !has_dot_segment(directory_with_slash) && !has_dot_segment(relative) {
        let mut out = String::with_capacity(directory_with_slash.len() + relative.len());
        out.push_str(directory_with_slash);
        out.push_str(relative);
        return out;
    }
    let directory = slash.map(|i| base_path[..i].split('/'));
    let mut segments = directory
        .into_iter()
        .flatten()
        .chain(relative.split('/'))
        .peekable();
    let mut out: Vec<&str> = Vec::with_capacity(8);
    while let Some(segment) = segments.next() {
        let last = segments.peek().is_none();
        match segment {
            // 6a: "./" is removed; 6b: a final "." is removed, the path ending in "/".
            "." => {
                if last {
                    out.push("");
                }
            }
            // 6c: "<segment>/../" is removed; 6d: so is a final "<segment>/..".
            ".." if out.last().is_some_and(|s| *s != "..") => {
                out.pop();
                if last {
                    out.push("");
                }
            }
            _ => out.push(segment),
        }
    }
    out.join("/")
}

/// Whether a complete segment of `path` is `.` or `..`.
fn has_dot_segment(path: &str) -> bool {
    let bytes = path.as_bytes();
    memchr::memchr_iter(b'.', bytes).any(|at| {
        let starts = at == 0 || bytes[at - 1] == b'/';
        let end = at + 1 + usize::from(bytes.get(at + 1) == Some(&b'.'));
        starts && bytes.get(end).is_none_or(|&b| b == b'/')
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// [`resolve_copied`] into a new string, `None` when it does not copy.
    fn copied_of(base: &Url<'_>, reference: &str) -> Option<String> {
        let mut out = String::new();
        let lends = lends(reference)?;
        resolve_copied(base, lends, reference, &mut out).then_some(out)
    }

    proptest! {
        #[test]
        fn a_dot_segment_is_found_as_the_segments_split_tell(path in "[./a]{0,12}") {
            let split = path.split('/').any(|s| s == "." || s == "..");
            prop_assert_eq!(has_dot_segment(&path), split);
        }
    }

    /// Steps 6a to 6d as the RFC writes them: string pattern removals.
    fn merge_paths_literal(base_path: &str, relative: &str) -> String {
        let mut path = match base_path.rfind('/') {
            Some(i) => base_path[..=i].to_owned(),
            None => String::new(),
        };
        path.push_str(relative);
        let starts_segment = |p: &str, i: usize| i == 0 || p.as_bytes()[i - 1] == b'/';
        // 6a: every "./" where "." is a complete segment.
        let mut i = 0;
        while let Some(found) = path[i..].find("./") {
            let at = i + found;
            if starts_segment(&path, at) {
                path.replace_range(at..at + 2, "");
                i = at;
            } else {
                i = at + 1;
            }
        }
        // 6b: a final complete ".".
        if path == "." || path.ends_with("/.") {
            path.pop();
        }
        // 6c: the leftmost "<segment>/../", segment not "..", until none.
        'again: loop {
            let mut start = 0;
            loop {
                let Some(slash) = path[start..].find('/').map(|s| start + s) else {
                    break 'again;
                };
                let segment = &path[start..slash];
                if segment != ".." && path[slash..].starts_with("/../") {
                    path.replace_range(start..slash + 4, "");
                    continue 'again;
                }
                start = slash + 1;
            }
        }
        // 6d: a final "<segment>/..", segment not "..".
        if let Some(stem) = path.strip_suffix("/..") {
            let start = stem.rfind('/').map_or(0, |i| i + 1);
            if &stem[start..] != ".." {
                path.truncate(start);
            }
        }
        path
    }

    proptest! {
        /// The shortcut for a fragment alone is what steps 2c to 7 give.
        #[test]
        fn a_fragment_alone_resolves_as_the_steps_say(
            base in "[a-z:/;?#.@%]{0,12}",
            fragment in "#[a-z#?;/]{0,4}",
        ) {
            let stepped = if base.is_empty() {
                fragment.clone()
            } else {
                resolve_relative(&Url::parse(&base), &Url::parse(&fragment))
            };
            prop_assert_eq!(resolve(&base, &fragment), stepped);
        }
    }

    proptest! {
        /// The copied references resolve as steps 2c to 7 say.
        #[test]
        fn a_copied_reference_resolves_as_the_steps_say(
            base in "[a-z]{1,3}:(//[a-z.]{0,3})?/?[a-z./;]{0,8}[?#]?[a-z./;?#]{0,4}",
            reference in "(//|/)?[a-z./:;?#]{0,12}",
        ) {
            let base = Url::parse(&base);
            if parse_scheme(&reference).0.is_none()
                && let Some(copied) = copied_of(&base, &reference)
            {
                prop_assert_eq!(copied, resolve_relative(&base, &Url::parse(&reference)));
            }
        }
    }

    proptest! {
        #[test]
        fn a_scheme_is_found_as_parse_scheme_finds_it(s in "[a-z0-9+./:#-]{0,8}") {
            prop_assert_eq!(finds_scheme(&s), parse_scheme(&s).0.is_some());
        }
    }

    proptest! {
        /// A base's spans resolve a reference as its text parsed again does,
        /// a copied one after the base's own bytes.
        #[test]
        fn a_base_resolves_by_its_spans_as_by_its_text(
            base in "[a-z]{1,3}:(//[a-z.]{0,3})?/?[a-z./;]{0,8}[?#]?[a-z./;?#]{0,4}",
            reference in "(//|/)?[a-z./:;?#]{0,12}",
        ) {
            let spans = Spans::of(&base);
            prop_assert_eq!(resolve_parsed(&base, &spans, &reference), resolve(&base, &reference));
        }
    }

    proptest! {
        /// A part a base lends is what resolving writes before the
        /// reference, which follows as it is.
        #[test]
        fn a_lent_part_is_what_resolving_writes_before_the_reference(
            base in "[a-z]{1,3}:(//[a-z.]{0,3})?/?[a-z./;]{0,8}[?#]?[a-z./;?#]{0,4}",
            reference in "(//|/|#|\\?)?[a-z./:;?#]{0,12}",
        ) {
            let spans = Spans::of(&base);
            if let Some(part) = lent_part(&base, &spans, &reference) {
                let mut out = String::new();
                prop_assert!(resolve_parsed_into(&base, &spans, &reference, &mut out));
                prop_assert_eq!(out, format!("{part}{reference}"));
            }
        }
    }

    #[test]
    fn a_base_lends_its_own_bytes_when_they_are_the_part() {
        let lent = |text: &str| Spans::of(text).lent;
        let base = "http://a/b/c/d;p?q#f";
        assert_eq!(lent(base), [Some(5), Some(8), Some(13)]);
        // `http://a` + `g` is `http://a/g`: no bytes of it are the directory's part.
        assert_eq!(lent("http://a"), [Some(5), Some(8), None]);
        assert_eq!(lent("http://a/b/../c"), [Some(5), Some(8), None]);
        assert_eq!(
            resolve_parsed(base, &Spans::of(base), "g?y"),
            "http://a/b/c/g?y"
        );
        assert_eq!(
            resolve_parsed("http://a", &Spans::of("http://a"), "g"),
            "http://a/g"
        );
    }

    #[test]
    fn a_url_resolved_into_a_buffer_follows_what_it_holds() {
        let text = "http://a/b/c/d;p?q#f";
        let spans = Spans::of(text);
        let mut out = String::from("kept");
        for (reference, appended) in [
            ("g", Some("http://a/b/c/g")),
            ("../g", Some("http://a/b/g")),
            ("", Some(text)),
            ("#s", Some("http://a/b/c/d;p?q#s")),
            ("gopher:h", None),
        ] {
            out.truncate(4);
            let written = resolve_parsed_into(text, &spans, reference, &mut out);
            assert_eq!(written.then(|| &out[4..]), appended, "{reference}");
            assert!(written || out == "kept", "{reference}");
            assert_eq!(
                resolve_parsed(text, &spans, reference),
                appended.unwrap_or(reference)
            );
        }
    }

    #[test]
    fn references_are_copied_after_what_the_base_lends() {
        let base = Url::parse("http://a/b/c/d;p?q#f");
        let copied = |r| copied_of(&base, r);
        assert_eq!(copied("//g/x;y?z#w").as_deref(), Some("http://g/x;y?z#w"));
        assert_eq!(copied("/g;x?y#s").as_deref(), Some("http://a/g;x?y#s"));
        assert_eq!(copied("g;x?y#s").as_deref(), Some("http://a/b/c/g;x?y#s"));
        assert_eq!(
            copied("g/h.x?a=../b").as_deref(),
            Some("http://a/b/c/g/h.x?a=../b")
        );
        assert_eq!(copied("?y"), None);
        assert_eq!(copied("../g"), None);
        assert_eq!(copied("g/."), None);
        let dotted = Url::parse("http://a/b/../c");
        assert_eq!(copied_of(&dotted, "g"), None);
        let bare = Url::parse("http://a");
        assert_eq!(copied_of(&bare, "g").as_deref(), Some("http://a/g"));
        let mail = Url::parse("mailto:joe@example.com");
        assert_eq!(copied_of(&mail, "g").as_deref(), Some("mailto:g"));
    }

    #[test]
    fn parse_then_display_gives_back_the_input() {
        for s in [
            "http://a/b/c/d;p?q#f",
            "http://a/b/c/d;p=1/2?q",
            "file:///usr/share/doc/",
            "g;x?y#s",
            "//g",
            "?",
            "#",
            ";",
            "http:",
            "HTTP://A:80/%7Euser/",
            "news:comp.infosystems.www",
            "mailto:joe@example.com",
        ] {
            assert_eq!(Url::parse(s).to_string(), s);
        }
    }

    #[test]
    fn parse_splits_components_in_section_order() {
        let u = Url::parse("http://a/b/c/d;p=1/2?q=;#f?");
        assert_eq!(u.scheme, Some("http"));
        assert_eq!(u.net_loc, Some("a"));
        assert!(u.rooted);
        assert_eq!(u.path, "b/c/d");
        assert_eq!(u.params, Some("p=1/2"));
        assert_eq!(u.query, Some("q=;"));
        assert_eq!(u.fragment, Some("f?"));
    }

    #[test]
    fn scheme_needs_a_first_character_and_scheme_characters() {
        assert_eq!(Url::parse(":g").scheme, None);
        assert_eq!(Url::parse("a/b:c").scheme, None);
        assert_eq!(Url::parse("g+.-1:x").scheme, Some("g+.-1"));
        assert_eq!(Url::parse("1a:x").scheme, Some("1a"));
        assert_eq!(Url::parse("g#s:x").scheme, None);
    }

    #[test]
    fn net_loc_runs_to_the_next_slash() {
        let u = Url::parse("http://a?q;p");
        assert_eq!(u.net_loc, Some("a?q;p"));
        assert_eq!(u.query, None);
        assert_eq!(Url::parse("file:///x").net_loc, Some(""));
    }

    #[test]
    fn merge_paths_matches_steps_6a_to_6d() {
        for (base, rel, want) in [
            ("b/c/d", "g", "b/c/g"),
            ("b/c/d", "../../../g", "../g"),
            ("b/c/d", "../..", ""),
            ("b/c/d", ".", "b/c/"),
            ("b/c/d", "./g/.", "b/c/g/"),
            ("", "g", "g"),
            ("d", "..", ".."),
            ("b//d", "../g", "b/g"),
        ] {
            assert_eq!(merge_paths(base, rel), want, "{base} + {rel}");
            assert_eq!(
                merge_paths_literal(base, rel),
                want,
                "literal {base} + {rel}"
            );
        }
    }

    proptest! {
        #[test]
        fn merge_paths_agrees_with_the_literal_rules(
            base in "[a./]{0,12}",
            rel in "[a./]{1,12}",
        ) {
            prop_assert_eq!(merge_paths(&base, &rel), merge_paths_literal(&base, &rel));
        }

        /// Step 2b reads the scheme before parsing: the one 2.4.1 and 2.4.2 find.
        #[test]
        fn the_scheme_read_first_is_the_parsed_one(s in "[a-z1+.#:/?-]{0,12}") {
            prop_assert_eq!(parse_scheme(&s).0, Url::parse(&s).scheme);
        }

        #[test]
        fn parse_then_display_round_trips(s in "\\PC{0,40}") {
            prop_assert_eq!(Url::parse(&s).to_string(), s);
        }
    }
}
