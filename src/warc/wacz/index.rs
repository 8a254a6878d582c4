//! The lines of an index (`indexes/*.cdx`, `*.cdxj`; a ZipNum block's
//! lines alike): each line's `offset`, `length` and digests made right for
//! the rewritten WARC it points into, or the line refused.

use std::collections::HashMap;
use std::fs::File;
use std::io::{BufRead, BufReader, Read, Seek, SeekFrom, Write};

use zip::ZipArchive;

use super::WaczError;
use super::hash::hash_range;
use super::json::{RawField, apply_edits, object_fields};
use super::records::{ArchiveMap, Moved, scan};
use crate::splice::Edit;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum IndexKind {
    /// `.cdx`, `.cdxj`: lines.
    Plain,
    /// `.cdx.gz`, `.cdxj.gz`: gzip members of lines (ZipNum blocks).
    Gzipped,
    /// `.idx`: the ZipNum summary, a line for each block.
    Summary,
}

impl IndexKind {
    pub(super) fn of(name: &str) -> Option<IndexKind> {
        let lower = name.to_ascii_lowercase();
        if !lower.starts_with("indexes/") {
            return None;
        }
        if lower.ends_with(".cdx") || lower.ends_with(".cdxj") {
            Some(IndexKind::Plain)
        } else if lower.ends_with(".cdx.gz") || lower.ends_with(".cdxj.gz") {
            Some(IndexKind::Gzipped)
        } else if lower.ends_with(".idx") {
            Some(IndexKind::Summary)
        } else {
            None
        }
    }
}

/// What the lines of one index are rewritten with.
pub(super) struct IndexContext<'a, R> {
    pub(super) entry: &'a str,
    pub(super) archives: &'a mut HashMap<String, ArchiveMap>,
    pub(super) new: &'a mut HashMap<String, File>,
    pub(super) zip: &'a mut ZipArchive<R>,
    /// The WARC entries of the package, with their numbers in the zip.
    pub(super) warcs: &'a HashMap<String, usize>,
    /// Whether a line named a WARC the package does not hold.
    pub(super) warned: bool,
    /// How many lines keep a digest of a changed record that has no
    /// `WARC-Payload-Digest` to take the new one from.
    pub(super) undigested: usize,
}

/// Where the JSON block of a CDXJ line (`urlkey timestamp {...}`, as
/// cdxj-indexer and pywb write it, and a ZipNum summary line alike) starts:
/// after the first two spaces, whatever the key holds (a SURT key may hold
/// `{`).
pub(super) fn cdxj_json(body: &str) -> Option<usize> {
    let key = body.find(' ')?;
    let time = key + 1 + body[key + 1..].find(' ')?;
    body[time + 1..].starts_with('{').then_some(time + 1)
}

/// An index line that cannot be brought up to date.
pub(super) fn stale(entry: &str, line: usize, reason: impl std::fmt::Display) -> WaczError {
    WaczError::entry(
        entry,
        format!("line {line}: {reason}; refusing to write a stale index"),
    )
}

/// The column letters of a classic CDX header (` CDX N b a m s k r M S V g`).
pub(super) struct CdxColumns {
    offset: usize,
    length: Option<usize>,
    file: Option<usize>,
    digest: Option<usize>,
    count: usize,
}

impl CdxColumns {
    fn parse(line: &str) -> Option<CdxColumns> {
        let mut letters = line.split_ascii_whitespace();
        if letters.next()? != "CDX" {
            return None;
        }
        let letters: Vec<&str> = letters.collect();
        let at = |l: &str| letters.iter().position(|x| *x == l);
        Some(CdxColumns {
            offset: at("V").or_else(|| at("v"))?,
            length: at("S"),
            file: at("g"),
            digest: at("k"),
            count: letters.len(),
        })
    }
}

impl<R: Read + Seek> IndexContext<'_, R> {
    pub(super) fn fail(&self, line: usize, reason: impl std::fmt::Display) -> WaczError {
        stale(self.entry, line, reason)
    }

    /// The changed WARC an index line names, with its records scanned;
    /// `None` when the WARC did not change.
    fn archive(&mut self, line: usize, file: Option<&str>) -> Result<Option<String>, WaczError> {
        let name = match file {
            Some(file) => {
                let found = [format!("archive/{file}"), file.to_owned()]
                    .into_iter()
                    .find(|n| self.warcs.contains_key(n));
                match found {
                    Some(name) => name,
                    None => {
                        self.warned = true;
                        return Ok(None);
                    }
                }
            }
            None if self.warcs.len() == 1 => self.warcs.keys().next().cloned().unwrap_or_default(),
            None => return Err(self.fail(line, "no filename, and the package holds several WARCs")),
        };
        let Some(map) = self.archives.get_mut(&name) else {
            return Ok(None);
        };
        if map.input.is_none() {
            let index = self.warcs.get(&name).copied().unwrap_or_default();
            let members = scan(self.zip.by_index(index)?, map.gzipped)
                .map_err(|e| WaczError::entry(&name, format!("{e}; cannot update the indexes")))?;
            map.input = Some(members);
        }
        if map.output.is_none() {
            let entry = self.entry;
            let file = self
                .new
                .get_mut(&name)
                .ok_or_else(|| stale(entry, line, "no rewritten WARC"))?;
            file.seek(SeekFrom::Start(0))?;
            let members = scan(BufReader::new(&mut *file), map.gzipped)
                .map_err(|e| WaczError::entry(&name, format!("rewritten: {e}")))?;
            let input_len = map.input.as_ref().map_or(0, Vec::len);
            if members.len() != input_len {
                return Err(WaczError::entry(
                    &name,
                    format!(
                        "{} records (or gzip members) became {}: the indexes cannot follow",
                        input_len,
                        members.len()
                    ),
                ));
            }
            map.output = Some(members);
        }
        Ok(Some(name))
    }

    /// The new digest of a record whose payload digest changed, written as
    /// the index wrote the old one (with or without its `sha1:` label).
    fn digest(index_value: &str, moved: &Moved) -> Option<String> {
        let (Some(old), Some(new)) = (&moved.old_digest, &moved.new_digest) else {
            return None;
        };
        if old == new || index_value == new {
            return None;
        }
        if index_value == old {
            return Some(new.clone());
        }
        let bare = |d: &str| d.split_once(':').map_or(d, |(_, v)| v).to_owned();
        (index_value == bare(old)).then(|| bare(new))
    }

    /// One index line, rewritten for the WARC it points into.
    pub(super) fn line(
        &mut self,
        number: usize,
        line: &str,
        cdx: &mut Option<CdxColumns>,
    ) -> Result<String, WaczError> {
        let body = line.trim_end_matches(['\r', '\n']);
        if body.trim().is_empty() || body.starts_with('!') {
            return Ok(line.to_owned());
        }
        if number == 1
            && let Some(columns) = CdxColumns::parse(body)
        {
            *cdx = Some(columns);
            return Ok(line.to_owned());
        }
        match cdx {
            Some(columns) => self.cdx_line(number, line, body.len(), columns),
            None => self.cdxj_line(number, line, body.len()),
        }
    }

    fn cdxj_line(
        &mut self,
        number: usize,
        line: &str,
        body_len: usize,
    ) -> Result<String, WaczError> {
        let Some(json_at) = cdxj_json(&line[..body_len]) else {
            return Err(self.fail(number, "not a CDXJ line"));
        };
        let json = &line[json_at..body_len];
        let fields = object_fields(json).map_err(|e| self.fail(number, e))?;
        let file = fields.get("filename").and_then(RawField::string);
        let Some(name) = self.archive(number, file.as_deref())? else {
            return Ok(line.to_owned());
        };
        let (Some(offset), Some(length)) = (
            fields.get("offset").and_then(RawField::number),
            fields.get("length").and_then(RawField::number),
        ) else {
            return Err(self.fail(number, "no offset and length"));
        };
        let moved = self.archives[&name]
            .locate(offset, length)
            .map_err(|e| self.fail(number, format!("{e} in {name}")))?;
        let mut edits = vec![
            fields["offset"].number_edit(moved.offset, json_at),
            fields["length"].number_edit(moved.length, json_at),
        ];
        if let Some(digest) = fields.get("digest")
            && let Some(value) = digest.string()
        {
            match Self::digest(&value, &moved) {
                Some(new) => edits.push(digest.string_edit(&new, json_at)),
                None => self.undigested += usize::from(moved.undigested_change),
            }
        }
        if let Some(record) = fields.get("recordDigest")
            && let Some(value) = record.string()
        {
            let entry = self.entry;
            let file = self
                .new
                .get_mut(&name)
                .ok_or_else(|| stale(entry, number, "no rewritten WARC"))?;
            if let Some(new) = hash_range(&value, file, moved.offset, moved.length)? {
                edits.push(record.string_edit(&new, json_at));
            }
        }
        Ok(apply_edits(line, edits))
    }

    fn cdx_line(
        &mut self,
        number: usize,
        line: &str,
        body_len: usize,
        columns: &CdxColumns,
    ) -> Result<String, WaczError> {
        let body = &line[..body_len];
        let mut spans = Vec::new();
        let mut at = 0;
        for token in body.split(' ') {
            spans.push(at..at + token.len());
            at += token.len() + 1;
        }
        if spans.len() != columns.count {
            return Err(self.fail(
                number,
                format!(
                    "{} fields where the header has {}",
                    spans.len(),
                    columns.count
                ),
            ));
        }
        let field = |i: Option<usize>| i.map(|i| &body[spans[i].clone()]);
        let Some(name) = self.archive(number, field(columns.file))? else {
            return Ok(line.to_owned());
        };
        let offset = field(Some(columns.offset)).and_then(|v| v.parse::<u64>().ok());
        let length = field(columns.length).and_then(|v| v.parse::<u64>().ok());
        let (Some(offset), Some(length)) = (offset, length) else {
            return Err(self.fail(number, "no offset and length"));
        };
        let moved = self.archives[&name]
            .locate(offset, length)
            .map_err(|e| self.fail(number, format!("{e} in {name}")))?;
        let mut edits = vec![Edit::new(
            spans[columns.offset].clone(),
            moved.offset.to_string(),
        )];
        if let Some(i) = columns.length {
            edits.push(Edit::new(spans[i].clone(), moved.length.to_string()));
        }
        if let Some(i) = columns.digest
            && body[spans[i].clone()] != *"-"
        {
            match Self::digest(&body[spans[i].clone()], &moved) {
                Some(new) => edits.push(Edit::new(spans[i].clone(), new)),
                None => self.undigested += usize::from(moved.undigested_change),
            }
        }
        Ok(apply_edits(line, edits))
    }
}

/// Rewrites the lines of a plain index; whether any changed.
pub(super) fn rewrite_lines<R: Read + Seek>(
    input: &mut impl BufRead,
    output: &mut impl Write,
    ctx: &mut IndexContext<'_, R>,
) -> Result<bool, WaczError> {
    let mut changed = false;
    let mut cdx = None;
    let mut bytes = Vec::new();
    let mut number = 0;
    loop {
        bytes.clear();
        if input.read_until(b'\n', &mut bytes)? == 0 {
            break;
        }
        number += 1;
        let line = std::str::from_utf8(&bytes).map_err(|_| ctx.fail(number, "not UTF-8 text"))?;
        let new = ctx.line(number, line, &mut cdx)?;
        changed |= new != line;
        output.write_all(new.as_bytes())?;
    }
    Ok(changed)
}

#[cfg(test)]
mod tests {
    use std::io;

    use super::*;

    #[test]
    fn payload_digests_are_written_as_the_index_wrote_them() {
        let moved = Moved {
            offset: 0,
            length: 1,
            old_digest: Some("sha1:AAAA".into()),
            new_digest: Some("sha1:BBBB".into()),
            undigested_change: false,
        };
        type Ctx<'a> = IndexContext<'a, io::Cursor<Vec<u8>>>;
        assert_eq!(
            Ctx::digest("sha1:AAAA", &moved).as_deref(),
            Some("sha1:BBBB")
        );
        assert_eq!(Ctx::digest("AAAA", &moved).as_deref(), Some("BBBB"));
        assert_eq!(Ctx::digest("other", &moved), None);
    }
}
