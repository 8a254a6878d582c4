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
