//! Applying edits to bytes: every byte outside an edit is copied unchanged.

use std::ops::Range;

/// Replace `range` of the input with `text`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Edit<T = String> {
    /// The bytes replaced.
    pub range: Range<usize>,
    /// What replaces them.
    pub text: T,
}

impl<T> Edit<T> {
    /// An edit replacing `range` with `text`.
    pub fn new(range: Range<usize>, text: T) -> Self {
        Edit { range, text }
    }
}

/// How much of `old` and `new` is the same at the start and at the end
/// (byte lengths, at character boundaries, not overlapping): an edit needs
/// to replace only what lies between.
pub fn common_affixes(old: &str, new: &str) -> (usize, usize) {
    let prefix: usize = old
        .chars()
        .zip(new.chars())
        .take_while(|(a, b)| a == b)
        .map(|(a, _)| a.len_utf8())
        .sum();
    let room = old.len().min(new.len()) - prefix;
    let suffix: usize = old[prefix..]
        .chars()
        .rev()
        .zip(new[prefix..].chars().rev())
        .take_while(|(a, b)| a == b)
        .map(|(a, _)| a.len_utf8())
        .scan(0, |total, n| {
            *total += n;
            (*total <= room).then_some(n)
        })
        .sum();
    (prefix, suffix)
}

impl Edit<String> {
    /// This edit of `src` narrowed to what it changes.
    pub fn narrowed(self, src: &str) -> Self {
        let (prefix, suffix) = common_affixes(&src[self.range.clone()], &self.text);
        Edit::new(
            self.range.start + prefix..self.range.end - suffix,
            self.text[prefix..self.text.len() - suffix].to_owned(),
        )
    }
}

/// Sorts edits by position and drops any that overlap an earlier one or lie
/// outside `len` bytes. Returns how many were dropped.
pub fn normalize<T>(edits: &mut Vec<Edit<T>>, len: usize) -> usize {
    edits.sort_by_key(|e| (e.range.start, e.range.end));
    let before = edits.len();
    let mut end = 0;
    edits.retain(|e| {
        let keep = e.range.start >= end && e.range.start <= e.range.end && e.range.end <= len;
        if keep {
            end = e.range.end;
        }
        keep
    });
    before - edits.len()
}

/// Applies sorted, non-overlapping edits (see [`normalize`]) in one pass.
pub fn apply<T: AsRef<[u8]>>(input: &[u8], edits: &[Edit<T>]) -> Vec<u8> {
    let grown: usize = edits.iter().map(|e| e.text.as_ref().len()).sum();
    let mut out = Vec::with_capacity(input.len() + grown);
    let mut copied = 0;
    for edit in edits {
        out.extend_from_slice(&input[copied..edit.range.start]);
        out.extend_from_slice(edit.text.as_ref());
        copied = edit.range.end;
    }
    out.extend_from_slice(&input[copied..]);
    out
}

/// [`apply`] on text, with edits at character boundaries.
pub fn apply_str(input: &str, edits: &[Edit<String>]) -> String {
    let mut out =
        String::with_capacity(input.len() + edits.iter().map(|e| e.text.len()).sum::<usize>());
    let mut copied = 0;
    for edit in edits {
        out.push_str(&input[copied..edit.range.start]);
        out.push_str(&edit.text);
        copied = edit.range.end;
    }
    out.push_str(&input[copied..]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn copies_everything_outside_the_edits() {
        let edits = vec![Edit::new(1..2, "XY"), Edit::new(4..4, "-")];
        assert_eq!(apply(b"abcdef", &edits), b"aXYcd-ef");
        assert_eq!(apply::<&str>(b"abc", &[]), b"abc");
    }

    #[test]
    fn common_affixes_leave_only_the_change() {
        assert_eq!(common_affixes("g", "http://a/b/c/g"), (0, 1));
        assert_eq!(common_affixes("../x", "http://a/Test/a/x"), (0, 2));
        assert_eq!(common_affixes("aXa", "aa"), (1, 1));
        assert_eq!(common_affixes("aa", "aaa"), (2, 0));
        assert_eq!(common_affixes("caf\u{e9}", "/caf\u{e9}"), (0, 5));
        let edit = Edit::new(3..4, "a/g".to_owned()).narrowed("x=\"g\"");
        assert_eq!(edit, Edit::new(3..3, "a/".to_owned()));
    }

    #[test]
    fn normalize_sorts_and_drops_overlaps() {
        let mut edits = vec![
            Edit::new(4..6, "b"),
            Edit::new(0..2, "a"),
            Edit::new(5..7, "c"),
            Edit::new(8..20, "d"),
        ];
        assert_eq!(normalize(&mut edits, 10), 2);
        assert_eq!(edits, vec![Edit::new(0..2, "a"), Edit::new(4..6, "b")]);
    }
}
