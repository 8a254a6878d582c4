//! Applying edits to bytes: every byte outside an edit is copied unchanged.

use std::borrow::Cow;
use std::io::{self, Write};
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

/// How many bytes `old` and `new` share at the start and end (at character
/// boundaries, not overlapping): an edit replaces only what lies between.
pub fn common_affixes(old: &str, new: &str) -> (usize, usize) {
    // As bytes, then backed off to a boundary (equal bytes before make it one in both).
    let (a, b) = (old.as_bytes(), new.as_bytes());
    let shorter = a.len().min(b.len());
    let mut prefix = 0;
    while prefix < shorter && a[prefix] == b[prefix] {
        prefix += 1;
    }
    while !(old.is_char_boundary(prefix) && new.is_char_boundary(prefix)) {
        prefix -= 1;
    }
    let room = shorter - prefix;
    // Most often the old text is the new one's end (a resolved reference).
    let mut suffix = if b.ends_with(&a[a.len() - room..]) {
        room
    } else {
        0
    };
    while suffix < room && a[a.len() - 1 - suffix] == b[b.len() - 1 - suffix] {
        suffix += 1;
    }
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

/// Sorts edits and drops those overlapping an earlier one or past `len`: how many.
pub fn normalize<T>(edits: &mut Vec<Edit<T>>, len: usize) -> usize {
    // Readers make their edits in order; sorting anyway costs a buffer.
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

/// An edit as [`Edits`] keeps one pushed out of order: its text by number.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Packed {
    start: u32,
    end: u32,
    text: u32,
}

/// Edits of one text (at most `u32::MAX` bytes), compact as a link-dense
/// document makes millions: a stream of LEB128 numbers, three an edit, the
/// texts in one buffer with recent repeats shared. An edit out of order turns
/// it into a plain list until [`Edits::normalize`].
#[derive(Debug, Clone)]
pub struct Edits {
    stream: Vec<u8>,
    /// How many edits `stream` holds.
    count: usize,
    /// The start and end of the last edit in `stream`.
    last: (u32, u32),
    /// Every edit, once one came out of order (then `stream` is empty).
    unsorted: Vec<Packed>,
    /// Each text's range in `texts`, by number.
    spans: Vec<(u32, u32)>,
    texts: String,
    /// Recently stored texts (their numbers), by a hash of their bytes.
    recent: [u32; RECENT],
    /// The bytes of every edit's text, a shared text counted for each edit.
    text_total: usize,
}

impl Default for Edits {
    fn default() -> Self {
        Edits {
            stream: Vec::new(),
            count: 0,
            last: (0, 0),
            unsorted: Vec::new(),
            spans: Vec::new(),
            texts: String::new(),
            recent: [u32::MAX; RECENT],
            text_total: 0,
        }
    }
}

impl PartialEq for Edits {
    fn eq(&self, other: &Self) -> bool {
        self.iter().eq(other.iter())
    }
}

impl Eq for Edits {}

/// How many recent texts [`Edits`] looks among for one to share.
const RECENT: usize = 64;

fn recent_slot(text: &str) -> usize {
    // The length and first and last eight bytes mixed: texts differ mostly there.
    let bytes = text.as_bytes();
    let word = |part: &[u8]| {
        let mut word = [0; 8];
        let n = part.len().min(8);
        word[..n].copy_from_slice(&part[..n]);
        u64::from_le_bytes(word)
    };
    // Most texts (URLs) are longer: their ends are read as words whole.
    let (head, tail) = match (bytes.first_chunk::<8>(), bytes.last_chunk::<8>()) {
        (Some(&head), Some(&tail)) => (u64::from_le_bytes(head), u64::from_le_bytes(tail)),
        _ => (word(bytes), word(&bytes[bytes.len().saturating_sub(8)..])),
    };
    let hash =
        (head ^ tail.rotate_left(29) ^ bytes.len() as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    (hash >> 32) as usize % RECENT
}

/// Appends `n` as LEB128 (seven bits a byte, low bits first).
fn put(stream: &mut Vec<u8>, mut n: u32) {
    while n >= 0x80 {
        stream.push((n as u8) | 0x80);
        n >>= 7;
    }
    stream.push(n as u8);
}

/// The LEB128 number at `*at` in `stream` (written by [`put`]), moving `*at` past it.
fn get(stream: &[u8], at: &mut usize) -> u32 {
    let mut n = 0u32;
    let mut shift = 0;
    while let Some(&byte) = stream.get(*at) {
        *at += 1;
        n |= u32::from(byte & 0x7f).wrapping_shl(shift);
        if byte < 0x80 {
            break;
        }
        shift += 7;
    }
    n
}

impl Edits {
    /// No edits.
    pub fn new() -> Self {
        Edits::default()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.count == 0 && self.unsorted.is_empty()
    }

    /// Adds an edit; one beyond `u32::MAX` bytes is dropped.
    pub fn push(&mut self, edit: Edit<impl AsRef<str>>) {
        self.push_str(edit.range, edit.text.as_ref());
    }

    /// Adds `edit` of `src` narrowed as [`Edit::narrowed`] does, its text not copied.
    pub fn push_narrowed(&mut self, edit: Edit<impl AsRef<str>>, src: &str) {
        let text = edit.text.as_ref();
        let (prefix, suffix) = common_affixes(&src[edit.range.clone()], text);
        self.push_str(
            edit.range.start + prefix..edit.range.end - suffix,
            &text[prefix..text.len() - suffix],
        );
    }

    /// Adds an edit replacing `range` with `text`.
    pub fn push_str(&mut self, range: Range<usize>, text: &str) {
        self.push_str_kept(range, text);
    }

    /// [`Edits::push_str`], answering how its text is kept (its number and
    /// length), for [`Edits::push_kept`] to give the same text again
    /// without reading it; `None` if the edit was dropped.
    pub fn push_str_kept(&mut self, range: Range<usize>, text: &str) -> Option<(u32, usize)> {
        if u32::try_from(range.start).is_err() || u32::try_from(range.end).is_err() {
            return None;
        }
        let kept = (self.store(text)?, text.len());
        self.push_kept(range, kept).then_some(kept)
    }

    /// Adds an edit replacing `range` with a text kept as `(number, len)`
    /// by [`Edits::push_str_kept`]; `false` if it was dropped.
    pub fn push_kept(&mut self, range: Range<usize>, (number, len): (u32, usize)) -> bool {
        let (Ok(start), Ok(end)) = (u32::try_from(range.start), u32::try_from(range.end)) else {
            return false;
        };
        self.text_total += len;
        let in_order = self.count == 0 || (start, end) >= self.last;
        if self.unsorted.is_empty() && in_order && start <= end {
            put(&mut self.stream, start - self.last.0);
            put(&mut self.stream, end - start);
            put(&mut self.stream, number);
            self.last = (start, end);
            self.count += 1;
        } else {
            if self.unsorted.is_empty() {
                self.unsorted = self.packed().collect();
                self.clear_stream();
            }
            self.unsorted.push(Packed {
                start,
                end,
                text: number,
            });
        }
        true
    }

    /// The number of `text`, stored unless it is one of the recent ones.
    fn store(&mut self, text: &str) -> Option<u32> {
        let slot = recent_slot(text);
        let recent = self.recent[slot];
        if let Some(&(from, to)) = self.spans.get(recent as usize)
            && self.texts.get(from as usize..to as usize) == Some(text)
        {
            return Some(recent);
        }
        let from = u32::try_from(self.texts.len()).ok()?;
        let to = u32::try_from(self.texts.len() + text.len()).ok()?;
        let number = u32::try_from(self.spans.len()).ok()?;
        self.texts.push_str(text);
        self.spans.push((from, to));
        self.recent[slot] = number;
        Some(number)
    }

    fn clear_stream(&mut self) {
        self.stream = Vec::new();
        self.count = 0;
        self.last = (0, 0);
    }

    /// The edits of the stream, in order.
    fn packed(&self) -> impl Iterator<Item = Packed> + '_ {
        let mut at = 0;
        let mut start = 0u32;
        (0..self.count).map(move |_| {
            start = start.wrapping_add(get(&self.stream, &mut at));
            let end = start.wrapping_add(get(&self.stream, &mut at));
            let text = get(&self.stream, &mut at);
            Packed { start, end, text }
        })
    }

    /// How many bytes the edits' texts have, all told.
    pub fn text_len(&self) -> usize {
        self.text_total
    }

    /// Each edit, in the order they are kept.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = Edit<&str>> + '_ {
        let text = |number: u32| {
            let (from, to) = self.spans.get(number as usize).copied().unwrap_or_default();
            self.texts
                .get(from as usize..to as usize)
                .unwrap_or_default()
        };
        let len = self.count + self.unsorted.len();
        let edits = self.packed().chain(self.unsorted.iter().copied());
        ExactLen { inner: edits, len }
            .map(move |p| Edit::new(p.start as usize..p.end as usize, text(p.text)))
    }

    /// [`normalize`] for these edits.
    pub fn normalize(&mut self, len: usize) -> usize {
        let mut edits = if self.unsorted.is_empty() {
            // In order already: packed again only if one is dropped.
            let mut end = 0;
            let all_kept = self.packed().all(|p| {
                let keep = p.start >= end && p.end as usize <= len;
                end = p.end;
                keep
            });
            if all_kept {
                return 0;
            }
            self.packed().collect()
        } else {
            std::mem::take(&mut self.unsorted)
        };
        edits.sort_by_key(|p| (p.start, p.end));
        let before = edits.len();
        let mut end = 0;
        edits.retain(|p| {
            let keep = p.start >= end && p.start <= p.end && p.end as usize <= len;
            if keep {
                end = p.end;
            }
            keep
        });
        self.clear_stream();
        let span_len = |n: u32| {
            self.spans
                .get(n as usize)
                .map_or(0, |&(from, to)| (to - from) as usize)
        };
        self.text_total = edits.iter().map(|p| span_len(p.text)).sum();
        for p in &edits {
            put(&mut self.stream, p.start - self.last.0);
            put(&mut self.stream, p.end - p.start);
            put(&mut self.stream, p.text);
            self.last = (p.start, p.end);
            self.count += 1;
        }
        before - edits.len()
    }
}

/// An iterator of known length.
struct ExactLen<I> {
    inner: I,
    len: usize,
}

impl<I: Iterator> Iterator for ExactLen<I> {
    type Item = I::Item;

    fn next(&mut self) -> Option<I::Item> {
        let item = self.inner.next()?;
        self.len = self.len.saturating_sub(1);
        Some(item)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.len, Some(self.len))
    }
}

impl<I: Iterator> ExactSizeIterator for ExactLen<I> {}

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
        edits
            .iter()
            .map(|e| Edit::new(e.range.clone(), e.text.as_ref())),
    )
}

/// [`apply`] for edits owning their texts, each built in its own buffer (one copy of a part).
pub fn apply_owned(input: &[u8], edits: Vec<Edit<Vec<u8>>>) -> Vec<u8> {
    match <[Edit<Vec<u8>>; 1]>::try_from(edits) {
        Ok(
            [
                Edit {
                    range,
                    text: mut out,
                },
            ],
        ) => {
            let (before, after) = (&input[..range.start], &input[range.end..]);
            out.reserve_exact(before.len() + after.len());
            out.splice(0..0, before.iter().copied());
            out.extend_from_slice(after);
            out
        }
        Err(edits) => apply(input, &edits),
    }
}

/// [`apply`] on edits made one at a time, about `grown` bytes of new text in all.
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

/// How a rewrite gives a document's new bytes.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Make {
    /// Made whole ([`Outcome::output`]).
    #[default]
    Bytes,
    /// Left as edits to splice ([`Outcome::splice`]), written where they go without
    /// a copy of the document, or never made when only the links are wanted.
    Splice,
}

/// A document's new bytes as edits to splice into its bytes, encoded as written.
#[derive(Debug)]
pub struct Splice {
    edits: Edits,
    /// Where the text starts in the bytes: after a byte order mark.
    at: usize,
    /// Each edit's byte offsets, when the text is a decoded copy.
    offsets: Option<Vec<usize>>,
    encoding: &'static encoding_rs::Encoding,
}

impl Splice {
    /// The edits of a text decoded from bytes of `encoding`: the bytes from
    /// `at` (after a BOM), or a decoded copy with edit ends at `offsets`.
    pub fn new(
        edits: Edits,
        at: usize,
        offsets: Option<Vec<usize>>,
        encoding: &'static encoding_rs::Encoding,
    ) -> Self {
        Splice {
            edits,
            at,
            offsets,
            encoding,
        }
    }

    /// The edits in the document's bytes, their texts encoded.
    pub(crate) fn edits(&self) -> impl Iterator<Item = Edit<Cow<'_, [u8]>>> + '_ {
        let at = self.at;
        let offsets = self.offsets.as_deref();
        self.edits.iter().enumerate().map(move |(i, e)| {
            let range = match offsets {
                Some(offsets) => offsets[2 * i]..offsets[2 * i + 1],
                None => e.range.start + at..e.range.end + at,
            };
            Edit::new(range, crate::encoding::encode(e.text, self.encoding))
        })
    }

    /// The new bytes of `input`, the document these edits were made for.
    pub fn bytes(&self, input: &[u8]) -> Vec<u8> {
        apply_each(input, self.edits.text_len(), self.edits())
    }

    /// Hands the new bytes to `piece` in order: the bytes between edits, and each edit's text.
    pub fn each_piece(
        &self,
        input: &[u8],
        mut piece: impl FnMut(&[u8]) -> io::Result<()>,
    ) -> io::Result<()> {
        let mut copied = 0;
        for edit in self.edits() {
            piece(&input[copied..edit.range.start])?;
            piece(&edit.text)?;
            copied = edit.range.end;
        }
        piece(&input[copied..])
    }

    /// How many new bytes `input` has.
    pub fn len(&self, input: &[u8]) -> usize {
        let mut len = 0;
        let _ = self.each_piece(input, |piece| {
            len += piece.len();
            Ok(())
        });
        len
    }

    /// Writes the new bytes of `input` to `writer`, [`WRITE_BATCH`] edits a call,
    /// with no copy if `writer` takes vectors (`writev`), else through a buffer.
    pub fn write_to(&self, input: &[u8], writer: &mut dyn io::Write) -> io::Result<()> {
        let mut edits = self.edits();
        let mut batch = Vec::with_capacity(self.edits.iter().len().min(WRITE_BATCH));
        let mut copied = 0;
        loop {
            batch.clear();
            batch.extend(edits.by_ref().take(WRITE_BATCH));
            let last = batch.len() < WRITE_BATCH;
            let mut slices = Vec::with_capacity(2 * batch.len() + 1);
            for edit in &batch {
                slices.push(io::IoSlice::new(&input[copied..edit.range.start]));
                slices.push(io::IoSlice::new(&edit.text));
                copied = edit.range.end;
            }
            if last {
                slices.push(io::IoSlice::new(&input[copied..]));
            }
            if !write_all_vectored(writer, &mut slices)? {
                // A piece a call: the rest through a buffer, from where this batch was left.
                let mut buffered = io::BufWriter::with_capacity(64 << 10, writer);
                for slice in &slices {
                    buffered.write_all(slice)?;
                }
                for edit in edits {
                    buffered.write_all(&input[copied..edit.range.start])?;
                    buffered.write_all(&edit.text)?;
                    copied = edit.range.end;
                }
                if !last {
                    buffered.write_all(&input[copied..])?;
                }
                return buffered.flush();
            }
            if last {
                return Ok(());
            }
        }
    }
}

/// Edits a [`Splice::write_to`] call hands over: their pieces stay within `writev`'s 1,024.
const WRITE_BATCH: usize = 511;

/// Writes `slices` whole and true, or false with `slices` left where a writer took only one piece.
fn write_all_vectored<'a>(
    writer: &mut dyn io::Write,
    slices: &mut Vec<io::IoSlice<'a>>,
) -> io::Result<bool> {
    slices.retain(|slice| !slice.is_empty());
    let all = slices.len();
    let mut left: &mut [io::IoSlice<'a>] = slices;
    while !left.is_empty() {
        match writer.write_vectored(left) {
            Ok(0) => return Err(io::ErrorKind::WriteZero.into()),
            Ok(n) => {
                let one_only = left.len() > 1 && n <= left[0].len();
                io::IoSlice::advance_slices(&mut left, n);
                if one_only {
                    // A piece partly written stays as what is left of it.
                    let done = all - left.len();
                    slices.drain(..done);
                    return Ok(false);
                }
            }
            Err(err) if err.kind() == io::ErrorKind::Interrupted => {}
            Err(err) => return Err(err),
        }
    }
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_kept_text_pushed_again_makes_the_edits_its_text_makes() {
        let mut kept = Edits::new();
        let text = kept.push_str_kept(2..2, "http://a/").unwrap();
        assert!(kept.push_kept(5..5, text));
        assert!(kept.push_kept(1..1, text));
        let mut pushed = Edits::new();
        for at in [2, 5, 1] {
            pushed.push_str(at..at, "http://a/");
        }
        assert_eq!(kept, pushed);
        assert_eq!(kept.text_len(), pushed.text_len());
        assert_eq!(kept.normalize(9), 0);
        let edits: Vec<Edit<&str>> = kept.iter().collect();
        assert_eq!(edits[0], Edit::new(1..1, "http://a/"));
        assert_eq!(edits.len(), 3);
        // Past `u32::MAX` bytes, dropped as `push_str` drops it.
        assert_eq!(kept.push_str_kept(0..usize::MAX, "x"), None);
        assert!(!kept.push_kept(usize::MAX..usize::MAX, text));
    }

    #[test]
    fn copies_everything_outside_the_edits() {
        let edits = vec![Edit::new(1..2, "XY"), Edit::new(4..4, "-")];
        assert_eq!(apply(b"abcdef", &edits), b"aXYcd-ef");
        assert_eq!(apply::<&str>(b"abc", &[]), b"abc");
    }

    #[test]
    fn owned_edits_apply_as_borrowed_ones() {
        for edits in [
            vec![Edit::new(2..4, b"XYZ".to_vec())],
            vec![Edit::new(0..0, b"<".to_vec())],
            vec![Edit::new(6..6, b">".to_vec())],
            vec![
                Edit::new(1..2, b"1".to_vec()),
                Edit::new(4..5, b"".to_vec()),
            ],
            vec![],
        ] {
            assert_eq!(
                apply_owned(b"abcdef", edits.clone()),
                apply(b"abcdef", &edits)
            );
        }
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
        assert_eq!(
            apply(b"0123456789", &kept),
            b"0Z23https://a/4567https://a/89"
        );
    }

    #[test]
    fn edits_keep_large_offsets_and_reversed_ranges() {
        let mut edits = Edits::new();
        let big = u32::MAX as usize;
        edits.push(Edit::new(3..3, "a"));
        edits.push(Edit::new(200_000..300_000, "b"));
        edits.push(Edit::new(big - 1..big, "c"));
        assert_eq!(edits.unsorted.len(), 0, "in order: one stream");
        let all: Vec<_> = edits.iter().collect();
        assert_eq!(
            all,
            vec![
                Edit::new(3..3, "a"),
                Edit::new(200_000..300_000, "b"),
                Edit::new(big - 1..big, "c")
            ]
        );
        assert_eq!(edits.iter().len(), 3);
        assert_eq!(edits.normalize(big), 0);
        // A reversed range is kept as pushed, then dropped.
        let reversed = Range { start: 9, end: 5 };
        edits.push(Edit::new(reversed.clone(), "d"));
        assert_eq!(edits.iter().nth(3), Some(Edit::new(reversed, "d")));
        assert_eq!(edits.normalize(big), 1);
        assert_eq!(edits.iter().count(), 3);
        assert_eq!(edits.text_len(), 3);
    }

    proptest::proptest! {
        #[test]
        fn edits_are_a_list_of_edits(
            list in proptest::collection::vec((0usize..300, 0usize..40, 0usize..4), 0..40),
            len in 0usize..340,
        ) {
            let texts = ["", "x", "https://example.com/", "\u{e9}t\u{e9}"];
            let list: Vec<Edit<&str>> = list
                .into_iter()
                .map(|(start, width, text)| Edit::new(start..start + width, texts[text]))
                .collect();
            let mut edits = Edits::new();
            for edit in &list {
                edits.push(edit.clone());
            }
            proptest::prop_assert_eq!(edits.iter().collect::<Vec<_>>(), list.clone());
            let mut plain = list;
            let dropped = normalize(&mut plain, len);
            proptest::prop_assert_eq!(edits.normalize(len), dropped);
            proptest::prop_assert_eq!(edits.iter().collect::<Vec<_>>(), plain);
        }
    }

    /// A writer taking at most `most` bytes a call, and only the first piece unless `vectored`.
    struct Trickle {
        out: Vec<u8>,
        most: usize,
        vectored: bool,
        calls: usize,
    }

    impl io::Write for Trickle {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            self.calls += 1;
            let n = buf.len().min(self.most);
            self.out.extend_from_slice(&buf[..n]);
            Ok(n)
        }
        fn write_vectored(&mut self, bufs: &[io::IoSlice<'_>]) -> io::Result<usize> {
            if !self.vectored {
                let first = bufs.iter().find(|b| !b.is_empty()).map_or(&[][..], |b| b);
                return self.write(first);
            }
            self.calls += 1;
            let mut n = 0;
            for buf in bufs {
                let take = buf.len().min(self.most - n);
                self.out.extend_from_slice(&buf[..take]);
                n += take;
                if n == self.most {
                    break;
                }
            }
            Ok(n)
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    proptest::proptest! {
        #[test]
        fn a_splice_is_written_as_its_bytes_whatever_the_writer_takes(
            list in proptest::collection::vec((0usize..3000, 0usize..6, 0usize..4), 0..1200),
            most in 1usize..200,
            vectored: bool,
            legacy: bool,
        ) {
            let input: Vec<u8> = (0..3000u32).map(|i| b'a' + (i % 26) as u8).collect();
            let texts = ["", "x", "https://example.com/", "\u{e9}t\u{e9}"];
            let mut edits = Edits::new();
            for (start, width, text) in list {
                edits.push(Edit::new(start..(start + width).min(3000), texts[text]));
            }
            edits.normalize(input.len());
            let encoding = if legacy { encoding_rs::WINDOWS_1252 } else { encoding_rs::UTF_8 };
            let splice = Splice::new(edits, 0, None, encoding);
            let want = splice.bytes(&input);
            let mut whole = Vec::new();
            splice.write_to(&input, &mut whole).unwrap();
            proptest::prop_assert_eq!(&whole, &want);
            let mut trickle = Trickle { out: Vec::new(), most, vectored, calls: 0 };
            splice.write_to(&input, &mut trickle).unwrap();
            proptest::prop_assert_eq!(&trickle.out, &want);
            // A writer that takes a piece a call goes through a buffer.
            if !vectored && most >= 64 {
                proptest::prop_assert!(trickle.calls <= want.len() / most + 4 + want.len() / 64);
            }
        }
    }

    #[test]
    fn the_texts_are_counted_as_pushed_and_as_normalized() {
        let mut edits = Edits::new();
        edits.push_narrowed(Edit::new(2..7, "abXde"), "a=abcde;");
        edits.push_str(0..1, "QQ");
        edits.push_str(5..9, "QQ");
        let count = |e: &Edits| e.iter().map(|e| e.text.len()).sum::<usize>();
        assert_eq!((edits.text_len(), count(&edits)), (5, 5));
        assert_eq!(edits.normalize(8), 1);
        assert_eq!((edits.text_len(), count(&edits)), (3, 3));
        let kept: Vec<_> = edits.iter().map(|e| (e.range, e.text.to_owned())).collect();
        assert_eq!(kept, [(0..1, "QQ".to_owned()), (4..5, "X".to_owned())]);
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
