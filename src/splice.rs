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
    // Compared as bytes, then backed off to a character boundary: equal
    // bytes before a position make it a boundary in both or in neither.
    let (a, b) = (old.as_bytes(), new.as_bytes());
    let mut prefix = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    while !(old.is_char_boundary(prefix) && new.is_char_boundary(prefix)) {
        prefix -= 1;
    }
    let room = a.len().min(b.len()) - prefix;
    let mut suffix = a
        .iter()
        .rev()
        .zip(b.iter().rev())
        .take(room)
        .take_while(|(x, y)| x == y)
        .count();
    while !(old.is_char_boundary(a.len() - suffix) && new.is_char_boundary(b.len() - suffix)) {
        suffix -= 1;
    }
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
    // Readers make their edits in order: sorting them anyway would cost a
    // scratch buffer of half their size.
    if !edits.is_sorted_by_key(|e| (e.range.start, e.range.end)) {
        edits.sort_by_key(|e| (e.range.start, e.range.end));
    }
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

/// One edit as [`Edits`] keeps it: 16 bytes, its text a range of the
/// shared buffer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Packed {
    start: u32,
    end: u32,
    text_start: u32,
    text_end: u32,
}

/// Edits of one text (at most `u32::MAX` bytes, as every document is), kept
/// compact: a link-dense document makes millions of them, mostly the same
/// few bytes over and over (`https://example.com/` before each `x`). Each
/// edit is 16 bytes; the texts share one buffer, and a text the same as
/// one of the last few is not stored again. Per edit a `String` of its
/// own would be 40 bytes and an allocation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Edits {
    packed: Vec<Packed>,
    texts: String,
    /// Recently stored texts, by a hash of their bytes.
    recent: [(u32, u32); RECENT],
}

impl Default for Edits {
    fn default() -> Self {
        Edits {
            packed: Vec::new(),
            texts: String::new(),
            recent: [(0, 0); RECENT],
        }
    }
}

/// How many recent texts [`Edits`] looks among for one to share.
const RECENT: usize = 64;

fn recent_slot(text: &str) -> usize {
    // FNV-1a over the last bytes: texts that differ mostly differ there.
    let tail = &text.as_bytes()[text.len().saturating_sub(32)..];
    let hash = tail.iter().fold(0xcbf2_9ce4_8422_2325_u64 ^ text.len() as u64, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    });
    (hash as usize) % RECENT
}

impl Edits {
    /// No edits.
    pub fn new() -> Self {
        Edits::default()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.packed.is_empty()
    }

    /// Adds an edit. An edit beyond `u32::MAX` bytes (which no document
    /// relink reads reaches) is dropped.
    pub fn push(&mut self, edit: Edit<impl AsRef<str>>) {
        self.push_str(edit.range, edit.text.as_ref());
    }

    /// Adds an edit replacing `range` with `text`.
    pub fn push_str(&mut self, range: Range<usize>, text: &str) {
        let (Ok(start), Ok(end)) = (u32::try_from(range.start), u32::try_from(range.end)) else {
            return;
        };
        let slot = recent_slot(text);
        let (from, to) = self.recent[slot];
        let (text_start, text_end) = if self.texts.get(from as usize..to as usize) == Some(text) {
            (from, to)
        } else {
            let from = self.texts.len();
            let Ok(to) = u32::try_from(from + text.len()) else {
                return;
            };
            self.texts.push_str(text);
            let from = from as u32;
            self.recent[slot] = (from, to);
            (from, to)
        };
        self.packed.push(Packed {
            start,
            end,
            text_start,
            text_end,
        });
    }

    /// How many bytes the edits' texts have, all told.
    pub fn text_len(&self) -> usize {
        self.packed
            .iter()
            .map(|p| (p.text_end - p.text_start) as usize)
            .sum()
    }

    /// Each edit, in the order they are kept.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = Edit<&str>> + '_ {
        self.packed.iter().map(|p| {
            Edit::new(
                p.start as usize..p.end as usize,
                &self.texts[p.text_start as usize..p.text_end as usize],
            )
        })
    }

    /// [`normalize`] for these edits.
    pub fn normalize(&mut self, len: usize) -> usize {
        let key = |p: &Packed| (p.start, p.end);
        if !self.packed.is_sorted_by_key(key) {
            self.packed.sort_by_key(key);
        }
        let before = self.packed.len();
        let mut end = 0;
        self.packed.retain(|p| {
            let keep = p.start >= end && p.start <= p.end && p.end as usize <= len;
            if keep {
                end = p.end;
            }
            keep
        });
        before - self.packed.len()
    }
}

impl FromIterator<Edit<String>> for Edits {
    fn from_iter<I: IntoIterator<Item = Edit<String>>>(iter: I) -> Self {
        let mut edits = Edits::new();
        for edit in iter {
            edits.push(edit);
        }
        edits
    }
}

/// Applies sorted, non-overlapping edits (see [`normalize`]) in one pass.
pub fn apply<T: AsRef<[u8]>>(input: &[u8], edits: &[Edit<T>]) -> Vec<u8> {
    let grown: usize = edits.iter().map(|e| e.text.as_ref().len()).sum();
    apply_each(
        input,
        grown,
        edits.iter().map(|e| Edit::new(e.range.clone(), e.text.as_ref())),
    )
}

/// [`apply`] on edits made one at a time, about `grown` bytes of new text
/// in all.
pub fn apply_each<T: AsRef<[u8]>>(
    input: &[u8],
    grown: usize,
    edits: impl IntoIterator<Item = Edit<T>>,
) -> Vec<u8> {
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
        // Characters sharing their first or last bytes are not split.
        assert_eq!(common_affixes("\u{e9}", "\u{e8}"), (0, 0));
        assert_eq!(common_affixes("a\u{e9}", "a\u{e8}"), (1, 0));
        assert_eq!(common_affixes("\u{e9}a", "\u{e8}a"), (0, 1));
        assert_eq!(common_affixes("\u{4e00}", "\u{5e00}"), (0, 0));
        assert_eq!(common_affixes("x\u{a9}", "\u{e9}\u{a9}"), (0, 2));
        let edit = Edit::new(3..4, "a/g".to_owned()).narrowed("x=\"g\"");
        assert_eq!(edit, Edit::new(3..3, "a/".to_owned()));
    }

    #[test]
    fn edits_share_repeated_texts() {
        let mut edits = Edits::new();
        edits.push(Edit::new(4..4, "https://a/"));
        edits.push(Edit::new(1..2, "Z"));
        edits.push(Edit::new(8..8, "https://a/"));
        edits.push(Edit::new(1..3, "overlaps"));
        assert_eq!(edits.texts, "https://a/Zoverlaps");
        assert_eq!(edits.normalize(10), 1);
        let kept: Vec<_> = edits.iter().collect();
        assert_eq!(
            kept,
            vec![
                Edit::new(1..2, "Z"),
                Edit::new(4..4, "https://a/"),
                Edit::new(8..8, "https://a/")
            ]
        );
        assert_eq!(apply(b"0123456789", &kept), b"0Z23https://a/4567https://a/89");
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
