//! A ZipNum index: the `.cdx.gz` of gzip blocks rewritten block by block,
//! and its `.idx` summary given each block's new place and digest.

use std::collections::HashMap;
use std::fs::File;
use std::io::{self, BufRead, BufReader, Read, Seek, SeekFrom, Write};
use std::ops::Range;

use flate2::write::GzEncoder;

use super::WaczError;
use super::container::text_file;
use super::hash::hash_range;
use super::index::{IndexContext, cdxj_json, stale};
use super::json::{RawField, apply_edits, object_fields};
use super::records::gzip_members;

/// A block of a gzipped index: where it was and where it is.
#[derive(Debug, Clone)]
pub(super) struct Block {
    old: Range<u64>,
    new: Range<u64>,
}

/// Rewrites a gzipped index member by member (a ZipNum `.cdx.gz` has a
/// member per block): a member whose lines are all unchanged is copied as
/// it was. Gives whether any changed, and where each block went.
pub(super) fn rewrite_gzipped_index<R: Read + Seek>(
    source: &mut File,
    out: &mut File,
    ctx: &mut IndexContext<'_, R>,
) -> Result<(bool, Vec<Block>), WaczError> {
    source.seek(SeekFrom::Start(0))?;
    let members = gzip_members(BufReader::new(&mut *source))
        .map_err(|e| WaczError::entry(ctx.entry, format!("{e}; cannot update it")))?;
    let mut blocks = Vec::new();
    let mut changed = false;
    let mut cdx = None;
    let mut number = 0;
    for member in members {
        let start = out.stream_position()?;
        source.seek(SeekFrom::Start(member.start))?;
        let raw = (&mut *source).take(member.end - member.start);
        let mut lines = BufReader::new(flate2::read::GzDecoder::new(raw));
        let mut encoder = GzEncoder::new(&mut *out, flate2::Compression::default());
        let mut block_changed = false;
        let mut bytes = Vec::new();
        loop {
            bytes.clear();
            if lines.read_until(b'\n', &mut bytes)? == 0 {
                break;
            }
            number += 1;
            let line =
                std::str::from_utf8(&bytes).map_err(|_| ctx.fail(number, "not UTF-8 text"))?;
            let new = ctx.line(number, line, &mut cdx)?;
            block_changed |= new != line;
            encoder.write_all(new.as_bytes())?;
        }
        encoder.finish()?;
        if !block_changed {
            out.set_len(start)?;
            out.seek(SeekFrom::Start(start))?;
            source.seek(SeekFrom::Start(member.start))?;
            io::copy(&mut (&mut *source).take(member.end - member.start), out)?;
        }
        changed |= block_changed;
        blocks.push(Block {
            old: member.start..member.end,
            new: start..out.stream_position()?,
        });
    }
    Ok((changed, blocks))
}

/// Rewrites a ZipNum summary (`.idx`) for its rewritten `.cdx.gz`: each
/// line's `offset`, `length` and `digest` of its block. `None` when its
/// blocks did not move.
pub(super) fn rewrite_summary(
    entry: &str,
    text: &str,
    blocks: &HashMap<String, Vec<Block>>,
    new: &mut HashMap<String, File>,
) -> Result<Option<File>, WaczError> {
    let fail = |line: usize, reason: &str| stale(entry, line, reason);
    let dir = entry.rfind('/').map_or("", |i| &entry[..=i]);
    let stem = entry[dir.len()..].rsplit_once('.').map_or("", |(s, _)| s);
    // The blocks file: named by the `!meta` line, else the same stem.
    let mut target = format!("{dir}{stem}.cdx.gz");
    if let Some(meta) = text.lines().find(|l| l.starts_with("!meta"))
        && let Some(at) = meta.find('{')
        && let Ok(fields) = object_fields(&meta[at..])
        && let Some(file) = fields.get("filename").and_then(RawField::string)
    {
        target = format!("{dir}{file}");
    }
    let Some(blocks) = blocks.get(&target) else {
        return Ok(None);
    };
    let Some(file) = new.get_mut(&target) else {
        return Ok(None);
    };
    let mut out = String::with_capacity(text.len());
    for (i, line) in text.split_inclusive('\n').enumerate() {
        let number = i + 1;
        let body = line.trim_end_matches(['\r', '\n']);
        if body.trim().is_empty() || body.starts_with('!') {
            out.push_str(line);
            continue;
        }
        let Some((json_at, fields, offset, length)) = summary_line(body) else {
            // Not a line relink can read (py-wacz cuts a key at its first
            // `{`): the summary is made again from the blocks.
            out = summary_from_blocks(entry, text, blocks, file)?;
            break;
        };
        // The blocks lie in order: found by halving, not by a scan of
        // them all for each line.
        let block = blocks
            .binary_search_by_key(&offset, |b| b.old.start)
            .ok()
            .map(|i| &blocks[i])
            .filter(|b| b.old.end - b.old.start == length)
            .ok_or_else(|| {
                fail(
                    number,
                    &format!("offset {offset} is not where a block of {target} starts"),
                )
            })?;
        let mut edits = vec![
            fields["offset"].number_edit(block.new.start, json_at),
            fields["length"].number_edit(block.new.end - block.new.start, json_at),
        ];
        if let Some(digest) = fields.get("digest")
            && let Some(value) = digest.string()
            && let Some(hash) = hash_range(
                &value,
                file,
                block.new.start,
                block.new.end - block.new.start,
            )?
        {
            edits.push(digest.string_edit(&hash, json_at));
        }
        out.push_str(&apply_edits(line, edits));
    }
    if out == text {
        return Ok(None);
    }
    Ok(Some(text_file(&out)?))
}

/// A summary line read as a CDXJ line (key, timestamp, JSON): where its
/// JSON starts, its fields, and the `offset` and `length` of its block.
fn summary_line(body: &str) -> Option<(usize, HashMap<String, RawField<'_>>, u64, u64)> {
    let json_at = cdxj_json(body)?;
    let fields = object_fields(&body[json_at..]).ok()?;
    let offset = fields.get("offset").and_then(RawField::number)?;
    let length = fields.get("length").and_then(RawField::number)?;
    Some((json_at, fields, offset, length))
}

/// The longest first line of a block read to name it in its summary.
const MAX_KEY_LINE: u64 = 1 << 20;

/// A ZipNum summary made again from its blocks (`file`, the new blocks
/// file), as py-wacz's `CompressedWriter` writes one: the old summary's `!`
/// lines as they were, then a line a block, the block's first line cut at
/// its first `{` and trimmed, a space, and the JSON of its `offset`,
/// `length` and, when the old summary gave digests, its `digest` in the
/// algorithm the old one named.
fn summary_from_blocks(
    entry: &str,
    text: &str,
    blocks: &[Block],
    file: &mut File,
) -> Result<String, WaczError> {
    let digest = text.lines().find_map(|line| {
        let fields = object_fields(&line[line.find('{')?..]).ok()?;
        fields.get("digest").and_then(RawField::string)
    });
    let mut out: String = text
        .split_inclusive('\n')
        .filter(|line| line.starts_with('!'))
        .collect();
    if !out.is_empty() && !out.ends_with('\n') {
        out.push('\n');
    }
    for block in blocks {
        let length = block.new.end - block.new.start;
        file.seek(SeekFrom::Start(block.new.start))?;
        let decoder = flate2::read::GzDecoder::new((&mut *file).take(length));
        let mut first = Vec::new();
        BufReader::new(decoder.take(MAX_KEY_LINE)).read_until(b'\n', &mut first)?;
        let first = std::str::from_utf8(&first)
            .map_err(|_| WaczError::entry(entry, "a block's first line is not UTF-8 text"))?;
        let prefix = first.split('{').next().unwrap_or_default().trim();
        let offset = block.new.start;
        out += &format!("{prefix} {{\"offset\": {offset}, \"length\": {length}");
        if let Some(old) = &digest
            && let Some(hash) = hash_range(old, file, offset, length)?
        {
            out += &format!(", \"digest\": \"{hash}\"");
        }
        out += "}\n";
    }
    Ok(out)
}
