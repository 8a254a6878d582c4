//! Standalone URIs and e-mail addresses, which docutils makes links in the
//! text outside inline markup (`Inliner.implicit_inline`, its `uri`
//! pattern). They are absolute, so relink only lists them. The pattern is
//! matched as Python's regexes match it (leftmost, longest URI first);
//! how a run of URI characters can end is found once per run, so every
//! line is read a bounded number of times.

use std::ops::Range;

use super::inline::{Escaped, is_prefix_char, is_suffix_char};

/// A standalone URI or e-mail address: its range, and whether an address (`mailto:`).
pub type Standalone = (Range<usize>, bool);

/// The URI schemes docutils links (`docutils.utils.urischemes`).
const SCHEMES: &[&str] = &[
    "about",
    "acap",
    "addbook",
    "afp",
    "afs",
    "aim",
    "callto",
    "castanet",
    "chttp",
    "cid",
    "crid",
    "data",
    "dav",
    "dict",
    "dns",
    "eid",
    "fax",
    "feed",
    "file",
    "finger",
    "freenet",
    "ftp",
    "go",
    "gopher",
    "gsm-sms",
    "h323",
    "h324",
    "hdl",
    "hnews",
    "http",
    "https",
    "hydra",
    "iioploc",
    "ilu",
    "im",
    "imap",
    "info",
    "ior",
    "ipp",
    "irc",
    "iris.beep",
    "iseek",
    "jar",
    "javascript",
    "jdbc",
    "ldap",
    "lifn",
    "livescript",
    "lrq",
    "mailbox",
    "mailserver",
    "mailto",
    "md5",
    "mid",
    "mocha",
    "modem",
    "mtqp",
    "mupdate",
    "news",
    "nfs",
    "nntp",
    "opaquelocktoken",
    "phone",
    "pop",
    "pop3",
    "pres",
    "printer",
    "prospero",
    "rdar",
    "res",
    "rtsp",
    "rvp",
    "rwhois",
    "rx",
    "sdp",
    "service",
    "shttp",
    "sip",
    "sips",
    "smb",
    "snews",
    "snmp",
    "soap.beep",
    "soap.beeps",
    "ssh",
    "t120",
    "tag",
    "tcp",
    "tel",
    "telephone",
    "telnet",
    "tftp",
    "tip",
    "tn3270",
    "tv",
    "urn",
    "uuid",
    "vemmi",
    "videotex",
    "view-source",
    "wais",
    "whodp",
    "whois++",
    "x-man-page",
    "xmlrpc.beep",
    "xmlrpc.beeps",
    "z39.50r",
    "z39.50s",
];

/// The standalone URIs of `range`, a run between inline markup (the pattern's
/// `^` and `$`), added to `out`. A match of an unknown scheme leaves the whole
/// run text; a match splits the run and each side is searched again.
pub fn implicit(e: &Escaped<'_>, range: Range<usize>, out: &mut Vec<Standalone>) {
    let mut runs = vec![range];
    while let Some(run) = runs.pop() {
        let mut m = Matcher::new(e, run.clone());
        let Some((found, scheme_ok)) = m.search() else {
            continue;
        };
        if !scheme_ok {
            continue;
        }
        runs.push(found.0.end..run.end);
        runs.push(run.start..found.0.start);
        out.push(found);
    }
}

/// Where a URI's hierarchical part ends, and the URI, if it does.
type Ends = Option<(usize, usize)>;

/// The pattern over one run, with what it learnt of its runs of URI characters.
struct Matcher<'e, 't> {
    e: &'e Escaped<'t>,
    start: usize,
    end: usize,
    /// A run of URI characters (its end), the lowest start tried, and its first
    /// (longest) ends: the hierarchical part's and the URI's.
    uri_run: Option<(usize, usize, Ends)>,
    /// A run of scheme characters: its start and end.
    scheme_run: Option<(usize, usize)>,
    /// A run of e-mail name characters: its start, end and last `..`.
    name_run: Option<(usize, usize, Option<usize>)>,
    /// An address's `@` and where the address ends.
    host: Option<(usize, Option<usize>)>,
}

impl<'e, 't> Matcher<'e, 't> {
    fn new(e: &'e Escaped<'t>, range: Range<usize>) -> Self {
        Matcher {
            e,
            start: range.start,
            end: range.end,
            uri_run: None,
            scheme_run: None,
            name_run: None,
            host: None,
        }
    }

    /// The byte at `k` as docutils sees it (an escape a NUL), `None` past the run.
    fn at(&self, k: usize) -> Option<u8> {
        if k >= self.end {
            return None;
        }
        Some(if self.e.esc(k) {
            0
        } else {
            self.e.text.as_bytes()[k]
        })
    }

    fn is(&self, k: usize, class: fn(u8) -> bool) -> bool {
        self.at(k).is_some_and(class)
    }

    /// The end-string suffix: the run's end, white space, an escape, closing punctuation.
    fn suffix_ok(&self, k: usize) -> bool {
        k >= self.end
            || self.e.esc(k)
            || self.e.text[k..].chars().next().is_some_and(is_suffix_char)
    }

    /// The leftmost match, whether an address, and whether docutils knows its scheme.
    fn search(&mut self) -> Option<(Standalone, bool)> {
        for p in self.start..self.end {
            if !self.e.text.is_char_boundary(p) {
                continue;
            }
            let prefix = p == self.start
                || (!self.e.esc(p - 1)
                    && self.e.text[..p]
                        .chars()
                        .next_back()
                        .is_some_and(is_prefix_char));
            if !prefix {
                continue;
            }
            if let Some((end, scheme)) = self.absolute(p) {
                let scheme = self.e.text[p..scheme].to_ascii_lowercase();
                return Some(((p..end, false), SCHEMES.contains(&scheme.as_str())));
            }
            if let Some(end) = self.email(p) {
                return Some(((p..end, true), true));
            }
        }
        None
    }

    /// An absolute URI at `p`: its end and its scheme's.
    fn absolute(&mut self, p: usize) -> Option<(usize, usize)> {
        if !self.is(p, |c| c.is_ascii_alphabetic()) {
            return None;
        }
        let q = match self.scheme_run {
            Some((start, end)) if start <= p && p < end => end,
            _ => {
                let end = self.run_end(p, |c| {
                    c.is_ascii_alphanumeric() || matches!(c, b'.' | b'+' | b'-')
                });
                self.scheme_run = Some((p, end));
                end
            }
        };
        if self.at(q) != Some(b':') {
            return None;
        }
        let h = q + 1;
        // The first way the run ends from a lower start is the first from here, if after here.
        let first = match self.uri_run {
            Some((end, from, first)) if from <= h && h <= end => first,
            _ => {
                let run_end = self.run_end(h, uric);
                let first = self.uri_ends(h, run_end);
                self.uri_run = Some((run_end, h, first));
                first
            }
        };
        let (part_end, end) = first?;
        (part_end > h).then_some((end, q))
    }

    fn run_end(&self, mut k: usize, class: fn(u8) -> bool) -> usize {
        while self.is(k, class) {
            k += 1;
        }
        k
    }

    /// Whether a URI part may end at `e` (a `urilast` character, or any before `>`).
    fn part_ends(&self, e: usize) -> bool {
        self.is(e - 1, urilast) || (self.is(e - 1, uric) && self.at(e) == Some(b'>'))
    }

    /// The first way, longest first, a hierarchical part from `h` in a run ending
    /// at `run_end` ends, with query and fragment, before a suffix.
    fn uri_ends(&self, h: usize, run_end: usize) -> Option<(usize, usize)> {
        for e in (h + 1..=run_end).rev() {
            if !self.part_ends(e) {
                continue;
            }
            if e == run_end {
                if let Some(end) = self.optional(e, b'?', true) {
                    return Some((e, end));
                }
            } else if self.suffix_ok(e) {
                return Some((e, e));
            }
        }
        None
    }

    /// After a part ending at `e`: optional `?` query (if `query`) and `#`
    /// fragment, longest first, then the suffix; where the URI ends.
    fn optional(&self, e: usize, mark: u8, query: bool) -> Option<usize> {
        if self.at(e) == Some(mark) {
            let run_end = self.run_end(e + 1, uric);
            for f in (e + 2..=run_end).rev() {
                if !self.part_ends(f) {
                    continue;
                }
                let end = if query && f == run_end {
                    self.optional(f, b'#', false)
                } else {
                    self.suffix_ok(f).then_some(f)
                };
                if end.is_some() {
                    return end;
                }
            }
        }
        if query {
            return self.optional(e, b'#', false);
        }
        self.suffix_ok(e).then_some(e)
    }

    /// An e-mail address at `p`: where it ends.
    fn email(&mut self, p: usize) -> Option<usize> {
        if !self.is(p, emailc) {
            return None;
        }
        let (end, double_dot) = match self.name_run {
            Some((start, end, dd)) if start <= p && p < end => (end, dd),
            _ => {
                let end = self.run_end(p, |c| emailc(c) || c == b'.');
                let dd = (p + 1..end)
                    .rev()
                    .find(|&k| self.at(k) == Some(b'.') && self.at(k - 1) == Some(b'.'));
                self.name_run = Some((p, end, dd));
                (end, dd)
            }
        };
        // The name: no `..`, no `.` before the `@`, no escape before it.
        if self.at(end) != Some(b'@')
            || double_dot.is_some_and(|k| k > p)
            || matches!(self.at(end - 1), Some(b'.' | 0))
        {
            return None;
        }
        match self.host {
            Some((at, found)) if at == end => found,
            _ => {
                let found = self.host_end(end + 1);
                self.host = Some((end, found));
                found
            }
        }
    }

    /// An address's host from `a`, its final character, the suffix: where it ends.
    fn host_end(&self, a: usize) -> Option<usize> {
        if !self.is(a, emailc) {
            return None;
        }
        let run_end = self.run_end(a, |c| emailc(c) || c == b'.');
        (a + 1..=run_end).rev().find_map(|h| {
            let last = self.is(h, urilast) || (self.is(h, uric) && self.at(h + 1) == Some(b'>'));
            (last && self.suffix_ok(h + 1)).then_some(h + 1)
        })
    }
}

/// docutils' `uric`: a URI character (a NUL, an escape, too).
fn uric(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == 0 || b"-_.!~*'()[];/:@&=+$,%".contains(&c)
}

/// docutils' `urilast`: what a URI part may end with.
fn urilast(c: u8) -> bool {
    c.is_ascii_alphanumeric() || b"_~*/=+".contains(&c)
}

/// docutils' `emailc`: a character of an address's name or host.
fn emailc(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == 0 || b"-_!~*'{|}/#?^`&=+$%".contains(&c)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn found(text: &str) -> Vec<(&str, bool)> {
        let e = Escaped::new(text);
        let mut out = Vec::new();
        implicit(&e, 0..text.len(), &mut out);
        out.sort_by_key(|f| f.0.start);
        out.into_iter().map(|(r, m)| (&text[r], m)).collect()
    }

    #[test]
    fn standalone_uris_only_outside_markup() {
        let text = "*e http://x/* http://a/b_ `x`_ http://c/d> ``http://l/``";
        let e = Escaped::new(text);
        let mut out = Vec::new();
        for plain in super::super::inline::Inline::scan(&e, 0..text.len()).plain {
            implicit(&e, plain, &mut out);
        }
        let found: Vec<&str> = out.into_iter().map(|(r, _)| &text[r]).collect();
        assert_eq!(found, ["http://a/", "http://c/d"]);
    }

    #[test]
    fn standalone_uris_as_docutils_finds_them() {
        assert_eq!(found("see https://a.org/x."), [("https://a.org/x", false)]);
        assert_eq!(found("(https://a.org/x)"), [("https://a.org/x", false)]);
        assert_eq!(found("http://a/b?c?d"), [("http://a/b?c", false)]);
        assert_eq!(
            found("<https://a.org/?q=1#f>"),
            [("https://a.org/?q=1#f", false)]
        );
        assert_eq!(found("mail me@example.com, or"), [("me@example.com", true)]);
        assert_eq!(
            found("a http://a/ b ftp://b/"),
            [("http://a/", false), ("ftp://b/", false)]
        );
        // A scheme docutils does not know leaves the whole run text.
        assert_eq!(found("note:this and http://a/"), []);
        assert_eq!(found("xhttp://a/ \\http://b/"), []);
        assert_eq!(found("a.b@c"), []);
        assert_eq!(found("me..x@example.com"), []);
    }
}
