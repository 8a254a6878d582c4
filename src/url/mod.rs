//! Resolving references against a base URL, under a chosen rule set.
//!
//! [`Rules::Rfc1808`] is the default and follows RFC 1808 section 4 exactly;
//! [`Rules::Rfc3986`] follows RFC 3986 section 5.2 and [`Rules::Whatwg`] the
//! URL Standard (what browsers do). `docs/rules.md` shows where they differ
//! and how relink settles what RFC 1808 leaves open; `fixtures/rules.tsv`
//! holds the table the tests check.

use std::borrow::Cow;
use std::fmt;
use std::str::FromStr;
use std::sync::Arc;

use crate::error::Error;

pub mod rfc1808;
pub mod rfc3986;
pub mod whatwg;

/// A rule set for resolving references.
///
/// ```
/// use relink::Rules;
/// let rules: Rules = "rfc3986".parse()?;
/// assert_eq!(rules, Rules::Rfc3986);
/// assert_eq!(relink::resolve("http://a/b/c/d;p?q", "../../../g", rules)?, "http://a/g");
/// assert_eq!(relink::resolve("http://a/b/c/d;p?q", "../../../g", Rules::Rfc1808)?, "http://a/../g");
/// # Ok::<(), relink::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Rules {
    /// RFC 1808 section 4, with relink's settled readings: an empty
    /// reference is a link, a written empty query or fragment is kept.
    #[default]
    Rfc1808,
    /// RFC 3986 section 5.2, strict.
    Rfc3986,
    /// The WHATWG URL Standard, through the `url` crate; normalises.
    Whatwg,
}

impl Rules {
    /// Every rule set, the default first.
    pub const ALL: [Rules; 3] = [Rules::Rfc1808, Rules::Rfc3986, Rules::Whatwg];

    /// The name used on the command line and in reports.
    pub fn name(self) -> &'static str {
        match self {
            Rules::Rfc1808 => "rfc1808",
            Rules::Rfc3986 => "rfc3986",
            Rules::Whatwg => "whatwg",
        }
    }
}

impl fmt::Display for Rules {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Rules {
    type Err = Error;

    fn from_str(s: &str) -> Result<Self, Error> {
        Rules::ALL
            .into_iter()
            .find(|r| r.name().eq_ignore_ascii_case(s))
            .ok_or_else(|| Error::UnknownRules(s.to_owned()))
    }
}

/// A base URL, checked and prepared once, to resolve many references.
///
/// ```
/// use relink::url::{BaseUrl, Rules};
/// let base = BaseUrl::parse("http://a/b/c/d;p?q#f", Rules::Rfc1808)?;
/// assert_eq!(base.resolve("../g")?, "http://a/b/g");
/// assert_eq!(base.resolve("mailto:x@y")?, "mailto:x@y");
/// # Ok::<(), relink::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct BaseUrl {
    rules: Rules,
    /// Shared, as every recorded link carries its base: a clone is a count, not a copy.
    parsed: Arc<Parsed>,
}

/// A base URL's text and what is parsed of it once.
#[derive(Debug)]
struct Parsed {
    text: String,
    /// The RFC 1808 components of `text`.
    spans: rfc1808::Spans,
    /// The URL Standard's parse, under its rules.
    whatwg: Option<url::Url>,
}

impl BaseUrl {
    /// Whether `text` starts with a scheme (a letter, then letters,
    /// digits, `+`, `-` or `.`, then `:`): an absolute URL, not a relative
    /// reference.
    ///
    /// ```
    /// assert!(relink::BaseUrl::has_scheme("mailto:a@b") && !relink::BaseUrl::has_scheme("a/b:c"));
    /// ```
    pub fn has_scheme(text: &str) -> bool {
        rfc3986::parse_scheme(text).0.is_some()
    }

    /// Checks that `text` is an absolute URL under `rules`: it must have a
    /// scheme, and under WHATWG rules it must parse.
    pub fn parse(text: &str, rules: Rules) -> Result<Self, Error> {
        if rfc1808::Url::parse(text).scheme.is_none() {
            return Err(Error::InvalidBase {
                base: text.to_owned(),
                reason: "it has no scheme".to_owned(),
            });
        }
        // RFC 3986 §3.1: a scheme begins with a letter (1808 takes a digit too); else a path.
        if rules == Rules::Rfc3986 && !text.starts_with(|c: char| c.is_ascii_alphabetic()) {
            return Err(Error::InvalidBase {
                base: text.to_owned(),
                reason: "its scheme does not begin with a letter".to_owned(),
            });
        }
        let whatwg = match rules {
            Rules::Whatwg => Some(whatwg::parse_base(text)?),
            Rules::Rfc1808 | Rules::Rfc3986 => None,
        };
        let parsed = Parsed {
            text: text.to_owned(),
            spans: rfc1808::Spans::of(text),
            whatwg,
        };
        Ok(BaseUrl {
            rules,
            parsed: Arc::new(parsed),
        })
    }

    /// The base as given.
    pub fn as_str(&self) -> &str {
        &self.parsed.text
    }

    /// The rule set this base resolves with.
    pub fn rules(&self) -> Rules {
        self.rules
    }

    /// Whether resolving a reference that starts with `start` leaves it as
    /// it is written, told from those bytes alone: under RFC 1808, one with
    /// a scheme (§4 step 2b). `false` says nothing.
    #[inline]
    pub(crate) fn keeps_as_written(&self, start: &[u8]) -> bool {
        self.rules == Rules::Rfc1808 && rfc1808::finds_scheme_in(start)
    }

    /// The part of this base that resolving `reference` writes before it,
    /// when the URL it resolves to is that part followed by the reference
    /// as it is (under RFC 1808, a fragment, a query, a path without dot
    /// segments...); `None` for any other.
    #[inline]
    pub(crate) fn lent_part(&self, reference: &str) -> Option<&str> {
        let Parsed { text, spans, .. } = &*self.parsed;
        match self.rules {
            Rules::Rfc1808 => rfc1808::lent_part(text, spans, reference),
            Rules::Rfc3986 | Rules::Whatwg => None,
        }
    }

    /// Resolves `reference` against this base, borrowing it when left as it was. Only
    /// WHATWG rules can fail (a reference the URL Standard rejects).
    pub fn resolve<'r>(&self, reference: &'r str) -> Result<Cow<'r, str>, Error> {
        let Parsed {
            text,
            spans,
            whatwg,
        } = &*self.parsed;
        match (self.rules, whatwg) {
            (Rules::Rfc1808, _) => Ok(rfc1808::resolve_parsed(text, spans, reference)),
            (Rules::Rfc3986, _) => Ok(rfc3986::resolve(text, reference)),
            (Rules::Whatwg, Some(base)) => whatwg::resolve(base, reference),
            (Rules::Whatwg, None) => unreachable!("BaseUrl::parse keeps a parsed WHATWG base"),
        }
    }

    /// [`BaseUrl::resolve`] appending the resolved URL to `out`, so that a
    /// reader resolving many links reuses one buffer: `Ok(false)`, with
    /// nothing appended, when the reference stands as written (where
    /// `resolve` borrows it whole).
    #[inline(always)]
    pub(crate) fn resolve_into(&self, reference: &str, out: &mut String) -> Result<bool, Error> {
        let Parsed { text, spans, .. } = &*self.parsed;
        if self.rules == Rules::Rfc1808 {
            return Ok(rfc1808::resolve_parsed_into(text, spans, reference, out));
        }
        let resolved = self.resolve(reference)?;
        if resolved.as_ptr() == reference.as_ptr() && resolved.len() == reference.len() {
            return Ok(false);
        }
        out.push_str(&resolved);
        Ok(true)
    }
}

impl fmt::Display for BaseUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.parsed.text)
    }
}
