//! Runs of text being gathered: the source verbatim as a range until
//! something else is added, and the stand-in of a run on the lean path.

/// Text being gathered (a comment, an attribute value, a run of
/// characters): a range of the input while it is the source verbatim,
/// copied into a buffer at the first character that is not.
#[derive(Debug, Default)]
pub(super) struct Text {
    pub(super) start: usize,
    pub(super) end: usize,
    pub(super) owned: bool,
    pub(super) buf: String,
}

impl Text {
    #[inline]
    pub(super) fn clear(&mut self, at: usize) {
        self.start = at;
        self.end = at;
        self.owned = false;
        self.buf.clear();
    }

    #[inline]
    pub(super) fn is_empty(&self) -> bool {
        if self.owned {
            self.buf.is_empty()
        } else {
            self.start == self.end
        }
    }

    /// Appends the source `input[from..to]`, with CR and CRLF as LF.
    #[inline]
    pub(super) fn push_raw(&mut self, input: &str, from: usize, to: usize) {
        if from == to {
            return;
        }
        let raw = &input[from..to];
        let has_cr = memchr::memchr(b'\r', raw.as_bytes()).is_some();
        if !self.owned && !has_cr {
            if self.start == self.end {
                self.start = from;
                self.end = to;
                return;
            }
            if from == self.end {
                self.end = to;
                return;
            }
        }
        self.materialize(input);
        push_normalized(&mut self.buf, raw);
    }

    /// Appends text that is not the source.
    #[inline]
    pub(super) fn push_str(&mut self, input: &str, s: &str) {
        self.materialize(input);
        self.buf.push_str(s);
    }

    #[inline]
    pub(super) fn materialize(&mut self, input: &str) {
        if !self.owned {
            self.owned = true;
            self.buf.clear();
            self.buf.push_str(&input[self.start..self.end]);
        }
    }
}

/// Appends `raw` to `buf` with each CRLF and lone CR as LF (preprocessing).
#[inline]
pub(super) fn push_normalized(buf: &mut String, raw: &str) {
    let mut rest = raw;
    while let Some(i) = memchr::memchr(b'\r', rest.as_bytes()) {
        buf.push_str(&rest[..i]);
        buf.push('\n');
        rest = &rest[i + 1..];
        if let Some(after) = rest.strip_prefix('\n') {
            rest = after;
        }
    }
    buf.push_str(rest);
}

/// Character data on the lean path ([`Attributes::TreeBuilder`](super::Attributes::TreeBuilder)):
/// a stand-in that leads the tree builder to the same decisions. It looks
/// at a run only to tell white space from other characters, to drop a line
/// feed after `<pre>`, `<listing>` or `<textarea>`, and to see whether the
/// run is then empty. So the stand-in is the run's first two characters at
/// most if white space (a line feed kept, others spaces), then `x` if the
/// run has any other character: at most four bytes, inline in the tendril.
/// A NUL never reaches it (a token of its own, or U+FFFD).
#[derive(Debug, Default)]
pub(super) struct Collapsed {
    /// How many white space characters lead the run, up to two.
    pub(super) spaces: u8,
    /// Whether the first of them is a line feed.
    pub(super) line_feed: bool,
    /// Whether the run has a character other than white space (the stand-in is then final).
    pub(super) other: bool,
}

/// Whether `bytes` hold a byte other than white space, indentation passed eight at a time.
#[inline]
fn has_other(bytes: &[u8]) -> bool {
    const SPACES: u64 = u64::from_ne_bytes([b' '; 8]);
    const TABS: u64 = u64::from_ne_bytes([b'\t'; 8]);
    let mut rest = bytes;
    while let Some((word, tail)) = rest.split_first_chunk::<8>() {
        let w = u64::from_ne_bytes(*word);
        if w != SPACES && w != TABS && word.iter().any(|&b| !is_tree_space(b)) {
            return true;
        }
        rest = tail;
    }
    rest.iter().any(|&b| !is_tree_space(b))
}

/// White space as the tree builder tells it (`char::is_ascii_whitespace`).
#[inline]
pub(super) fn is_tree_space(b: u8) -> bool {
    matches!(b, b'\t' | b'\n' | b'\x0c' | b'\r' | b' ')
}

impl Collapsed {
    #[inline]
    pub(super) fn is_empty(&self) -> bool {
        self.spaces == 0 && !self.other
    }

    /// The stand-in.
    #[inline]
    pub(super) fn as_str(&self) -> &'static str {
        const SHAPES: [&str; 10] = ["", "x", " ", " x", "\n", "\nx", "  ", "  x", "\n ", "\n x"];
        let spaces = match (self.spaces, self.line_feed) {
            (0, _) => 0,
            (1, false) => 1,
            (1, true) => 2,
            (_, false) => 3,
            (_, true) => 4,
        };
        SHAPES[spaces * 2 + usize::from(self.other)]
    }

    /// Appends `s`, the source (a CRLF one line feed) when `source`.
    #[inline]
    pub(super) fn push(&mut self, s: &[u8], source: bool) {
        match s.first() {
            _ if self.other => {}
            None => {}
            Some(&b) if !is_tree_space(b) => self.other = true,
            Some(_) => self.push_spaces(s, source),
        }
    }

    /// [`Collapsed::push`] of text that starts with white space.
    #[inline]
    pub(super) fn push_spaces(&mut self, bytes: &[u8], source: bool) {
        let mut rest = bytes;
        while self.spaces < 2 {
            let Some((&b, tail)) = rest.split_first() else {
                return;
            };
            if !is_tree_space(b) {
                self.other = true;
                return;
            }
            rest = tail;
            if b == b'\r' && source {
                // CR and CRLF are one line feed.
                rest = rest.strip_prefix(b"\n").unwrap_or(rest);
            }
            if self.spaces == 0 {
                self.line_feed = b == b'\n' || (b == b'\r' && source);
            }
            self.spaces += 1;
        }
        self.other = has_other(rest);
    }

    #[inline]
    pub(super) fn clear(&mut self) {
        *self = Collapsed::default();
    }
}

#[cfg(test)]
mod tests {
    use super::{has_other, is_tree_space};
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn has_other_answers_as_a_scan_does(
            bytes in proptest::collection::vec(
                prop_oneof![Just(b' '), Just(b'\t'), Just(b'\n'), Just(b'\r'), Just(b'\x0c'), any::<u8>()],
                0..70,
            ),
        ) {
            prop_assert_eq!(has_other(&bytes), bytes.iter().any(|&b| !is_tree_space(b)));
        }
    }
}
