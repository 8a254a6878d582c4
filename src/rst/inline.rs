//! Inline markup of reStructuredText as docutils' `Inliner` finds it
//! ("Inline markup recognition rules"): start-strings tried left to right,
//! each with the end-string it needs, so that an embedded URI is found
//! exactly where docutils finds one. Backslash escapes are read as after
//! docutils' `escape2null`: an escaping backslash stands for its NUL.

use std::ops::Range;

/// What the inline scanner found in a text.
#[derive(Debug, Default)]
pub struct Found {
    /// Each embedded URI of a phrase reference (`` `text <URI>`_ ``): its range inside `<>`.
    pub embedded: Vec<Range<usize>>,
    /// The runs of text outside inline markup, where standalone URIs are.
    pub plain: Vec<Range<usize>>,
}

/// The end-strings searched for, each with its own cache.
#[derive(Clone, Copy)]
enum End {
    Emphasis,
    Strong,
    Literal,
    Target,
    Substitution,
    Phrase,
}

const ENDS: usize = 6;

/// Where the text goes on after a start-string, and where its node starts, if any.
type Step = (usize, Option<usize>);

/// Where an end-string is, and its length.
type Match = (usize, usize);

/// The text of a document with where its escaping backslashes are.
pub struct Escaped<'t> {
    pub text: &'t str,
    /// Whether the byte at each offset is an escaping backslash.
    pub escaping: Vec<bool>,
}

impl<'t> Escaped<'t> {
    /// The text, each escaping backslash marked (docutils' `escape2null`).
    pub fn new(text: &'t str) -> Self {
        let b = text.as_bytes();
        let mut escaping = vec![false; b.len()];
        let mut i = 0;
        while i < b.len() {
            if b[i] == b'\\' {
                escaping[i] = true;
                i += 2;
            } else {
                i += 1;
            }
        }
        Escaped { text, escaping }
    }

    /// Whether the byte at `i` is an escaping backslash.
    pub fn esc(&self, i: usize) -> bool {
        self.escaping.get(i).copied().unwrap_or(false)
    }

    fn prev(&self, i: usize) -> Option<char> {
        self.text.get(..i)?.chars().next_back()
    }

    fn at(&self, i: usize) -> Option<char> {
        self.text.get(i..)?.chars().next()
    }
}

/// The ASCII openers and delimiters a start-string may follow (docutils'
/// `punctuation_chars`); non-ASCII punctuation counts too.
pub(super) fn is_prefix_char(c: char) -> bool {
    c.is_whitespace()
        || matches!(c, '"' | '\'' | '(' | '<' | '[' | '{' | '-' | '/' | ':')
        || (!c.is_ascii() && !c.is_alphanumeric())
}

/// Whether `c` may follow an end-string: white space, delimiters and closers.
pub(super) fn is_suffix_char(c: char) -> bool {
    c.is_whitespace()
        || matches!(
            c,
            '\\' | '.'
                | ','
                | ';'
                | '!'
                | '?'
                | '-'
                | '/'
                | ':'
                | '"'
                | '\''
                | ')'
                | '>'
                | ']'
                | '}'
        )
        || (!c.is_ascii() && !c.is_alphanumeric())
}

/// Whether a character of a `simplename` word (`\w` but `_`).
fn is_word(c: char) -> bool {
    c.is_alphanumeric()
}

/// The pairs a start-string between which is no markup (`"*"`, `(*)`).
fn matching(open: char, close: char) -> bool {
    matches!(
        (open, close),
        ('"', '"') | ('\'', '\'') | ('(', ')') | ('<', '>') | ('[', ']') | ('{', '}')
    )
}

/// The inline scanner over one text block.
pub struct Inline<'e, 't> {
    e: &'e Escaped<'t>,
    end: usize,
    /// Per end-string: the last search's start and the first match from it.
    cache: [Option<(usize, Option<Match>)>; ENDS],
    /// The end of the `simplename` run last measured, and where it began.
    chain: (usize, usize),
}

impl<'e, 't> Inline<'e, 't> {
    /// Scans `range` of the text; returns the embedded URIs found.
    pub fn scan(e: &'e Escaped<'t>, range: Range<usize>) -> Found {
        let mut s = Inline {
            e,
            end: range.end,
            cache: [None; ENDS],
            chain: (0, 0),
        };
        s.run(range.start)
    }

    fn ch(&self, i: usize) -> Option<char> {
        if i >= self.end { None } else { self.e.at(i) }
    }

    /// Whether an end-string may end at `i`: the end, a suffix character, an escape.
    fn suffix_ok(&self, i: usize) -> bool {
        i >= self.end || self.e.esc(i) || self.ch(i).is_some_and(is_suffix_char)
    }

    fn not_space(&self, i: usize) -> bool {
        self.ch(i).is_some_and(|c| !c.is_whitespace())
    }

    fn run(&mut self, start: usize) -> Found {
        let b = self.e.text.as_bytes();
        let mut found = Found::default();
        let mut anchor = start;
        // Where the text outside inline markup started.
        let mut plain = start;
        let mut i = start;
        while i < self.end {
            let c = b[i];
            let candidate = matches!(c, b'*' | b'`' | b'_' | b'|' | b'[' | b':')
                || c >= 0x80
                || c.is_ascii_alphanumeric();
            let prefix = i == anchor
                || (!self.e.esc(i.wrapping_sub(1)) && self.e.prev(i).is_some_and(is_prefix_char));
            if !candidate || !prefix {
                i += 1;
                continue;
            }
            match self.at(i, anchor, &mut found.embedded) {
                Some((next, node)) => {
                    if let Some(node) = node {
                        found.plain.push(plain..node);
                        plain = next;
                    }
                    i = next;
                    anchor = next;
                }
                None => i += 1,
            }
        }
        found.plain.push(plain..self.end);
        found
    }

    /// The construct starting at `i`, if any: where the text goes on, and where its
    /// node starts (`None`: a quoted start-string, which stays text).
    fn at(&mut self, i: usize, anchor: usize, found: &mut Vec<Range<usize>>) -> Option<Step> {
        let b = self.e.text.as_bytes();
        let get = |k: usize| if k < self.end { b[k] } else { 0 };
        let simple = |len: usize, end: End| Some((len, end));
        let start = match (get(i), get(i + 1)) {
            (b'*', b'*') => simple(2, End::Strong),
            (b'*', _) => simple(1, End::Emphasis),
            (b'`', b'`') => simple(2, End::Literal),
            (b'_', b'`') => simple(2, End::Target),
            (b'|', c) if c != b'|' => simple(1, End::Substitution),
            _ => None,
        };
        if let Some((len, end)) = start
            && self.not_space(i + len)
        {
            return Some(self.inline_obj(i, len, anchor, end));
        }
        if let Some(next) = self.whole(i) {
            return Some((next, Some(i)));
        }
        self.backquote(i, anchor, found)
    }

    /// Whether the start-string at `i..i + len` is quoted: in a matching pair, or last.
    fn quoted(&self, i: usize, len: usize, anchor: usize) -> bool {
        if i == anchor {
            return false;
        }
        match (self.e.prev(i), self.ch(i + len)) {
            (_, None) => true,
            (Some(open), Some(close)) => matching(open, close),
            _ => false,
        }
    }

    /// A start-string with its end-string (docutils' `inline_obj`): where the text
    /// goes on, and the node it made (markup, or a problematic lone start-string).
    fn inline_obj(&mut self, i: usize, len: usize, anchor: usize, end: End) -> Step {
        let after = i + len;
        if self.quoted(i, len, anchor) {
            return (after, None);
        }
        match self.find_end(end, after) {
            Some((q, l)) => (q + l, Some(i)),
            None => (after, Some(i)),
        }
    }

    /// A reference name with `_` or `__`, or a footnote or citation reference: skipped.
    fn whole(&mut self, i: usize) -> Option<usize> {
        let b = self.e.text.as_bytes();
        if b[i] == b'[' {
            let label_end = (i + 1..self.end)
                .find(|&k| {
                    !(b[k].is_ascii_alphanumeric()
                        || matches!(b[k], b'-' | b'.' | b'_' | b'+' | b':' | b'#' | b'*')
                        || b[k] >= 0x80)
                })
                .unwrap_or(self.end);
            let ok = label_end > i + 1
                && b.get(label_end) == Some(&b']')
                && b.get(label_end + 1) == Some(&b'_')
                && label_end + 1 < self.end
                && self.suffix_ok(label_end + 2);
            return ok.then_some(label_end + 2);
        }
        if !self.ch(i).is_some_and(is_word) {
            return None;
        }
        let end = self.simplename_end(i);
        let mut k = end;
        for _ in 0..2 {
            if k < self.end && b[k] == b'_' {
                k += 1;
                if self.suffix_ok(k) {
                    return Some(k);
                }
            }
        }
        None
    }

    /// The end of the `simplename` at `i`: inside a run already measured, its end.
    fn simplename_end(&mut self, i: usize) -> usize {
        if i > self.chain.0 && i < self.chain.1 {
            return self.chain.1;
        }
        let b = self.e.text.as_bytes();
        let mut k = i;
        loop {
            while let Some(c) = self.ch(k).filter(|&c| is_word(c)) {
                k += c.len_utf8();
            }
            if k < self.end
                && matches!(b[k], b'-' | b'.' | b'_' | b'+' | b':')
                && self.ch(k + 1).is_some_and(is_word)
            {
                k += 1;
            } else {
                break;
            }
        }
        self.chain = (i, k);
        k
    }

    /// Interpreted text or a phrase reference, with an optional role before it.
    fn backquote(
        &mut self,
        i: usize,
        anchor: usize,
        found: &mut Vec<Range<usize>>,
    ) -> Option<Step> {
        let b = self.e.text.as_bytes();
        let mut tick = i;
        let mut role = false;
        if b[i] == b':' {
            if !self.ch(i + 1).is_some_and(is_word) {
                return None;
            }
            let end = self.simplename_end(i + 1);
            // A role's name ends with `:` before the backquote.
            let name_end = if b.get(end) == Some(&b':') {
                end
            } else {
                return None;
            };
            tick = name_end + 1;
            role = true;
        }
        if tick >= self.end || b[tick] != b'`' || b.get(tick + 1) == Some(&b'`') {
            return None;
        }
        if tick + 1 >= self.end || !self.not_space(tick + 1) {
            return None;
        }
        let after = tick + 1;
        if !role && self.quoted(tick, 1, anchor) {
            return Some((after, None));
        }
        let Some((q, l)) = self.find_end(End::Phrase, after) else {
            // Problematic: the backquote alone, a role before it text.
            return Some((after, Some(tick)));
        };
        let suffix = &b[q + 1..q + l];
        let suffix_role = suffix.first() == Some(&b':');
        if suffix.last() == Some(&b'_')
            && !role
            && !suffix_role
            && let Some(uri) = self.embedded(after..q)
        {
            found.push(uri);
        }
        Some((q + l, Some(i)))
    }

    /// The embedded URI of a phrase reference's content, unless an alias (`<name_>`).
    fn embedded(&self, content: Range<usize>) -> Option<Range<usize>> {
        let b = self.e.text.as_bytes();
        let close = content.end.checked_sub(1)?;
        if close <= content.start || b[close] != b'>' || self.e.esc(close - 1) {
            return None;
        }
        if b[close - 1].is_ascii_whitespace() {
            return None;
        }
        let open = (content.start..close)
            .rev()
            .find(|&k| matches!(b[k], b'<' | b'>') && !(k > 0 && self.e.esc(k - 1)))?;
        if b[open] != b'<' {
            return None;
        }
        let spaced = open == content.start || matches!(b[open - 1], b' ' | b'\n' | b'\r' | b'\t');
        if !spaced || self.e.at(open + 1).is_none_or(char::is_whitespace) {
            return None;
        }
        let alias = &b[open + 1..close];
        let underscore_escaped = close >= 2 && self.e.esc(close - 2);
        if alias.last() == Some(&b'_') && !underscore_escaped && !starts_with_scheme(alias) {
            return None;
        }
        Some(open + 1..close)
    }

    /// The first end-string of `kind` from `from` (one right at `from` ends
    /// nothing and stops the search, as in docutils); cached.
    fn find_end(&mut self, kind: End, from: usize) -> Option<(usize, usize)> {
        if self.end_at(kind, from, true).is_some() {
            return None;
        }
        let slot = kind as usize;
        if let Some((last, result)) = self.cache[slot]
            && last <= from
            && result.is_none_or(|(q, _)| q > from)
        {
            return result;
        }
        let b = self.e.text.as_bytes();
        let mut result = None;
        let mut q = from + 1;
        while q < self.end {
            let c = b[q];
            if matches!(c, b'*' | b'`' | b'|')
                && let Some(len) = self.end_at(kind, q, false)
            {
                result = Some((q, len));
                break;
            }
            q += 1;
        }
        self.cache[slot] = Some((from, result));
        result
    }

    /// The length of the end-string of `kind` at `q`, if any (`first`: at the searched text's start).
    fn end_at(&self, kind: End, q: usize, first: bool) -> Option<usize> {
        let b = self.e.text.as_bytes();
        let get = |k: usize| if k < self.end { b[k] } else { 0 };
        let before_ok = |escape_too: bool| {
            first
                || !(self.e.prev(q).is_some_and(char::is_whitespace)
                    || escape_too && self.e.esc(q - 1))
        };
        let body = match kind {
            End::Emphasis => (get(q) == b'*' && before_ok(true)).then_some(1),
            End::Strong => (get(q) == b'*' && get(q + 1) == b'*' && before_ok(true)).then_some(2),
            End::Literal => (get(q) == b'`' && get(q + 1) == b'`' && before_ok(false)).then_some(2),
            End::Target => (get(q) == b'`' && before_ok(true)).then_some(1),
            End::Substitution => {
                if get(q) != b'|' || !before_ok(true) {
                    return None;
                }
                let unders = (1..=2).take_while(|&k| get(q + k) == b'_').count();
                return (0..=unders)
                    .rev()
                    .map(|u| 1 + u)
                    .find(|&l| self.suffix_ok(q + l));
            }
            End::Phrase => return self.phrase_end_at(q, first),
        };
        body.filter(|&l| self.suffix_ok(q + l))
    }

    /// The end of interpreted text or a phrase reference at `q`: a backquote not
    /// after white space or an escape, then an optional role and `_` or `__`.
    fn phrase_end_at(&self, q: usize, first: bool) -> Option<usize> {
        let b = self.e.text.as_bytes();
        if q >= self.end || b[q] != b'`' {
            return None;
        }
        if !first {
            let prev_ws = self.e.prev(q).is_some_and(char::is_whitespace);
            let prev_esc = self.e.esc(q - 1);
            let escaped_before = q >= 2 && self.e.esc(q - 2);
            if (prev_ws || prev_esc) && !escaped_before {
                return None;
            }
        }
        let mut roles = vec![q + 1];
        if b.get(q + 1) == Some(&b':') && q + 2 < self.end && self.ch(q + 2).is_some_and(is_word) {
            let mut k = q + 2;
            loop {
                while let Some(c) = self.ch(k).filter(|&c| is_word(c)) {
                    k += c.len_utf8();
                }
                if k + 1 < self.end
                    && matches!(b[k], b'-' | b'.' | b'_' | b'+' | b':')
                    && self.ch(k + 1).is_some_and(is_word)
                {
                    k += 1;
                } else {
                    break;
                }
            }
            if k < self.end && b[k] == b':' {
                roles.insert(0, k + 1);
            }
        }
        for after_role in roles {
            for unders in [2, 1, 0] {
                let all =
                    (0..unders).all(|u| after_role + u < self.end && b[after_role + u] == b'_');
                if all && self.suffix_ok(after_role + unders) {
                    return Some(after_role + unders - q);
                }
            }
        }
        None
    }
}

/// Whether bytes start with a scheme and `:` (an embedded `<scheme:..._>` is a URI).
pub fn starts_with_scheme(s: &[u8]) -> bool {
    let n = s
        .iter()
        .take_while(|c| c.is_ascii_alphanumeric() || matches!(c, b'.' | b'+' | b'-'))
        .count();
    n > 0 && s[0].is_ascii_alphabetic() && s.get(n) == Some(&b':')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn uris(text: &str) -> Vec<&str> {
        let e = Escaped::new(text);
        Inline::scan(&e, 0..text.len())
            .embedded
            .into_iter()
            .map(|r| &text[r])
            .collect()
    }

    #[test]
    fn embedded_uris_of_phrase_references_only() {
        assert_eq!(
            uris("see `the guide <docs/guide.html>`_ now"),
            ["docs/guide.html"]
        );
        assert_eq!(uris("`x <a>`__ and `y <b>`_."), ["a", "b"]);
        assert_eq!(uris("`<a.html>`_"), ["a.html"]);
        assert_eq!(uris("``literal `x <a>`_``"), Vec::<&str>::new());
        assert_eq!(uris(":doc:`x <a>`"), Vec::<&str>::new());
        assert_eq!(uris("`x <a>`:ref:"), Vec::<&str>::new());
        assert_eq!(uris("`x <a>`"), Vec::<&str>::new());
        assert_eq!(uris("`x <alias_>`_"), Vec::<&str>::new());
        assert_eq!(uris("`x <a\\_>`_"), ["a\\_"]);
        assert_eq!(uris("\\`x <a>`_"), Vec::<&str>::new());
        assert_eq!(uris("*em `x <a>`_*"), Vec::<&str>::new());
        assert_eq!(uris("`x\n  <a\n  b>`_"), ["a\n  b"]);
        assert_eq!(uris("`x<a>`_"), Vec::<&str>::new());
        assert_eq!(uris("`x <a\\>b>`_"), ["a\\>b"]);
    }
}
