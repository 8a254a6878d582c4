//! WACZ (Web Archive Collection Zipped, <https://specs.webrecorder.net/wacz/1.1.1/>):
//! the zip package of ArchiveWeb.page, Browsertrix and py-wacz. Its WARC
//! files (`archive/*.warc`, `archive/*.warc.gz`) are read and rewritten as
//! any WARC is; what points into them is brought up to date with them.
//!
//! A rewritten WACZ keeps every entry that did not change as it was (its
//! compressed bytes copied), and every entry in its place, compressed as
//! it was. For each WARC that changed:
//!
//! - its index lines (`indexes/*.cdx`, `*.cdxj`, plain or gzipped, CDXJ or
//!   classic CDX with a ` CDX` header) get the new `offset` and `length` of
//!   their record, a new `digest` when the record's `WARC-Payload-Digest`
//!   changed, and a new `recordDigest` (py-wacz's hash of the record's
//!   bytes as stored). The records of the old and new WARC map one to one:
//!   the i-th gzip member of one is the i-th of the other (for a plain WARC,
//!   the i-th record). An index line that points anywhere else is refused,
//!   never left stale;
//! - a ZipNum index (a `.cdx.gz` of gzip blocks with its `.idx` summary) is
//!   rewritten block by block, an unchanged block kept as it was, and the
//!   summary lines get each block's new `offset`, `length` and `digest`;
//! - `datapackage.json` gets the new `hash` (in the algorithm it used) and
//!   `bytes` of every changed entry, the rest of its text kept, and
//!   `datapackage-digest.json` the new hash of `datapackage.json`.
//!
//! A signed WACZ (`signedData` in `datapackage-digest.json`) cannot be
//! signed again here: rewriting one whose WARCs would change is refused.

use std::collections::HashMap;
use std::fs::File;
use std::io::{self, BufRead, BufReader, Read, Seek, SeekFrom, Write};
use std::ops::Range;

use flate2::write::GzEncoder;
use serde_json::value::RawValue;
use zip::result::ZipError;
use zip::write::SimpleFileOptions;
use zip::{CompressionMethod, ZipArchive, ZipWriter};

use super::digest::Algorithm;
use super::{MAX_HEAD_BYTES, RecordReport, WarcError, WarcLink, WarcOptions, WarcSummary};
use crate::links::{Warning, WarningKind};
use crate::splice::{self, Edit};

/// The package description every WACZ holds.
pub const DATAPACKAGE: &str = "datapackage.json";
/// The digest (and perhaps signature) of `datapackage.json`.
pub const DATAPACKAGE_DIGEST: &str = "datapackage-digest.json";

/// The largest `datapackage.json` or `datapackage-digest.json` read.
const MAX_JSON_BYTES: u64 = 64 << 20;

/// What could not be done with a WACZ file.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum WaczError {
    /// Reading or writing failed.
    #[error("{0}")]
    Io(#[from] io::Error),
    /// The zip container cannot be read or written.
    #[error("zip archive: {0}")]
    Zip(#[from] ZipError),
    /// A WARC entry that cannot be read.
    #[error("{entry}: {source}")]
    Warc {
        /// The entry's name in the zip (`archive/data.warc.gz`).
        entry: String,
        /// What is wrong with it.
        #[source]
        source: WarcError,
    },
    /// An entry that cannot be brought up to date with the rewritten WARCs
    /// (an index, the package description): nothing is written rather
    /// than a stale entry.
    #[error("{entry}: {reason}")]
    Entry {
        /// The entry's name in the zip.
        entry: String,
        /// What is wrong.
        reason: String,
    },
    /// A zip with two entries of one name: the zip reader keeps one of
    /// them, so the other (a whole WARC, perhaps) would be lost.
    #[error(
        "zip archive: two entries have one name; refusing to read it, as one of them would be lost"
    )]
    DuplicateNames,
    /// A signed WACZ whose WARCs would change: its signature cannot be
    /// made again here.
    #[error(
        "{DATAPACKAGE_DIGEST}: the package is signed (signedData) and relink cannot sign it again; refusing to rewrite it"
    )]
    Signed,
}

impl WaczError {
    fn entry(entry: &str, reason: impl Into<String>) -> Self {
        WaczError::Entry {
            entry: entry.to_owned(),
            reason: reason.into(),
        }
    }
}

/// What a pass over one WARC entry gave.
#[derive(Debug, Clone, Default)]
#[cfg_attr(not(feature = "_internal"), allow(dead_code))]
pub struct ArchiveReport {
    /// The entry's name in the zip (`archive/data.warc.gz`).
    pub entry: String,
    /// What the WARC pass gave.
    pub summary: WarcSummary,
}

/// What a pass over a WACZ file gave.
#[derive(Debug, Clone, Default)]
pub struct WaczSummary {
    /// Each WARC entry, in entry order.
    pub archives: Vec<ArchiveReport>,
    /// The entries written anew, in entry order (empty when nothing
    /// changed: every entry was copied as it was).
    pub rewritten: Vec<String>,
    /// Every warning, each naming its entry, in entry order.
    pub warnings: Vec<Warning>,
}

impl WaczSummary {
    /// How many records the WARC entries hold.
    pub fn records(&self) -> usize {
        self.archives.iter().map(|a| a.summary.records).sum()
    }

    /// How many records changed.
    pub fn changed(&self) -> usize {
        self.archives.iter().map(|a| a.summary.changed).sum()
    }

    /// Whether the output holds the same entries as the input (a caller
    /// may then keep the input and skip writing).
    pub fn unchanged(&self) -> bool {
        self.rewritten.is_empty()
    }

    fn warn(&mut self, entry: &str, message: impl std::fmt::Display) {
        self.warnings
            .push(Warning::new(WarningKind::Unreadable, message).within(entry));
    }
}

/// Whether a zip entry is a WARC file of the package: `archive/*.warc` or
/// `archive/*.warc.gz`.
pub fn is_archive_entry(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    lower.starts_with("archive/") && (lower.ends_with(".warc") || lower.ends_with(".warc.gz"))
}

/// Whether the start of a file is a WACZ: a zip local file header, and
/// among the entry names reachable within `head`, one that only a WACZ
/// has (`archive/*.warc*`, `datapackage.json`, `datapackage-digest.json`,
/// `indexes/...`, `pages/*.jsonl`). py-wacz puts its index first and
/// Browsertrix its WARCs, so the first entry usually tells; 4 KiB is
/// plenty.
pub fn looks_like_wacz(head: &[u8]) -> bool {
    let u16_at = |at: usize| u16::from_le_bytes([head[at], head[at + 1]]) as usize;
    let u32_at = |at: usize| {
        u32::from_le_bytes([head[at], head[at + 1], head[at + 2], head[at + 3]]) as usize
    };
    let mut at = 0;
    while head.len() >= at + 30 && head[at..].starts_with(b"PK\x03\x04") {
        let flags = u16_at(at + 6);
        let compressed = u32_at(at + 18);
        let name_len = u16_at(at + 26);
        let extra_len = u16_at(at + 28);
        let Some(name) = head.get(at + 30..at + 30 + name_len) else {
            return false;
        };
        let name = String::from_utf8_lossy(name).to_ascii_lowercase();
        let wacz = (name.starts_with("archive/") && name.contains(".warc"))
            || name == DATAPACKAGE
            || name == DATAPACKAGE_DIGEST
            || (name.starts_with("indexes/") && name.len() > "indexes/".len())
            || (name.starts_with("pages/") && name.ends_with(".jsonl"));
        if wacz {
            return true;
        }
        // Sizes kept in a data descriptor or a zip64 field: the next
        // header cannot be found from here.
        if flags & 0x08 != 0 || compressed == 0xFFFF_FFFF {
            return false;
        }
        at += 30 + name_len + extra_len + compressed;
    }
    false
}

/// Reads every record of every WARC entry, in entry order, calling
/// `on_record` with the entry's name and the record's report, and writes
/// nothing.
pub fn inspect<R: Read + Seek>(
    input: R,
    options: &WarcOptions<'_>,
    mut on_record: impl FnMut(&str, RecordReport),
) -> Result<WaczSummary, WaczError> {
    let mut zip = open(input)?;
    let mut summary = WaczSummary::default();
    for index in 0..zip.len() {
        let name = entry_name(&mut zip, index)?;
        if !is_archive_entry(&name) {
            continue;
        }
        let entry = zip.by_index(index)?;
        let result = super::inspect(BufReader::new(entry), options, |report| {
            on_record(&name, report)
        });
        summary.add_archive(name, result)?;
    }
    Ok(summary)
}

/// Calls `on_link` with the entry's name for every link of every WARC
/// entry, in order, and writes nothing.
#[cfg_attr(not(feature = "_internal"), allow(dead_code))]
pub fn links<R: Read + Seek>(
    input: R,
    options: &WarcOptions<'_>,
    mut on_link: impl FnMut(&str, WarcLink),
) -> Result<WaczSummary, WaczError> {
    inspect(input, options, |entry, report| {
        for link in report.links {
            on_link(
                entry,
                WarcLink {
                    record: report.number,
                    target_uri: report.target_uri.clone(),
                    record_id: report.record_id.clone(),
                    link,
                },
            );
        }
    })
}

/// Rewrites a WACZ file from `input` to `output` (see the module's
/// documentation). A package in which nothing changed is copied byte for
/// byte, and [`WaczSummary::unchanged`] says so. Nothing is written before
/// the new entries are ready, so a refusal (a signed package, an index
/// that cannot be updated) leaves `output` untouched; an error while
/// writing leaves a partial zip, to be thrown away.
#[cfg_attr(not(feature = "_internal"), allow(dead_code))]
pub fn rewrite<R: Read + Seek, W: Write + Seek>(
    input: R,
    output: W,
    options: &WarcOptions<'_>,
) -> Result<WaczSummary, WaczError> {
    rewrite_with(input, output, options, |_, _| {})
}

/// [`rewrite`], calling `on_record` with the entry's name for each record
/// of each WARC entry in order.
pub fn rewrite_with<R: Read + Seek, W: Write + Seek>(
    input: R,
    output: W,
    options: &WarcOptions<'_>,
    mut on_record: impl FnMut(&str, RecordReport),
) -> Result<WaczSummary, WaczError> {
    let mut zip = open(input)?;
    let mut summary = WaczSummary::default();
    let names = (0..zip.len())
        .map(|i| entry_name(&mut zip, i))
        .collect::<Result<Vec<_>, _>>()?;
    let signed = match names.iter().position(|n| n == DATAPACKAGE_DIGEST) {
        Some(index) => {
            let text = read_json_entry(&mut zip, index, DATAPACKAGE_DIGEST)?;
            let fields =
                object_fields(&text).map_err(|e| WaczError::entry(DATAPACKAGE_DIGEST, e))?;
            fields
                .get("signedData")
                .is_some_and(|raw| raw.text.trim() != "null")
        }
        None => false,
    };

    // The WARCs, each into a temporary file; kept only when it changed.
    let mut new: HashMap<String, File> = HashMap::new();
    let mut archives: HashMap<String, ArchiveMap> = HashMap::new();
    for (index, name) in names.iter().enumerate() {
        if !is_archive_entry(name) {
            continue;
        }
        let mut temp = tempfile::tempfile()?;
        let entry = zip.by_index(index)?;
        let result = super::rewrite_with(BufReader::new(entry), &mut temp, options, |report| {
            on_record(name, report)
        });
        let changed = summary.add_archive(name.clone(), result)?;
        if changed {
            if signed {
                return Err(WaczError::Signed);
            }
            let gzipped = name.to_ascii_lowercase().ends_with(".gz");
            archives.insert(
                name.clone(),
                ArchiveMap {
                    gzipped,
                    input: None,
                    output: None,
                },
            );
            new.insert(name.clone(), temp);
        }
    }

    if !new.is_empty() {
        update_indexes(&mut zip, &names, &mut archives, &mut new, &mut summary)?;
        update_package(&mut zip, &names, &mut new, &mut summary)?;
    }

    if new.is_empty() {
        // Nothing changed: the input as it was, byte for byte.
        let mut input = zip.into_inner();
        input.seek(SeekFrom::Start(0))?;
        let mut output = output;
        io::copy(&mut input, &mut output)?;
        output.flush()?;
        return Ok(summary);
    }

    // The new zip, entry by entry in the input's order.
    let mut writer = ZipWriter::new(output);
    writer.set_raw_comment(zip.comment().into())?;
    for (index, name) in names.iter().enumerate() {
        match new.get_mut(name) {
            None => writer.raw_copy_file(zip.by_index_raw(index)?)?,
            Some(file) => {
                let len = file.seek(SeekFrom::End(0))?;
                file.seek(SeekFrom::Start(0))?;
                let entry = zip.by_index_raw(index)?;
                let method = match entry.compression() {
                    CompressionMethod::Stored => CompressionMethod::Stored,
                    _ => CompressionMethod::Deflated,
                };
                let mut options = SimpleFileOptions::default()
                    .compression_method(method)
                    .last_modified_time(entry.last_modified().unwrap_or_default())
                    .large_file(len >= u64::from(u32::MAX));
                if let Some(mode) = entry.unix_mode() {
                    options = options.unix_permissions(mode);
                }
                drop(entry);
                writer.start_file(name.as_str(), options)?;
                io::copy(file, &mut writer)?;
                summary.rewritten.push(name.clone());
            }
        }
    }
    writer.finish()?;
    Ok(summary)
}

/// Brings every index up to date with the rewritten WARCs: the plain and
/// gzipped lines first, then the ZipNum summaries of the gzipped ones.
fn update_indexes<R: Read + Seek>(
    zip: &mut ZipArchive<R>,
    names: &[String],
    archives: &mut HashMap<String, ArchiveMap>,
    new: &mut HashMap<String, File>,
    summary: &mut WaczSummary,
) -> Result<(), WaczError> {
    let warcs: HashMap<String, usize> = names
        .iter()
        .enumerate()
        .filter(|(_, n)| is_archive_entry(n))
        .map(|(i, n)| (n.clone(), i))
        .collect();
    let mut blocks: HashMap<String, Vec<Block>> = HashMap::new();
    for (index, name) in names.iter().enumerate() {
        let Some(kind) = IndexKind::of(name) else {
            if name.starts_with("indexes/") && !name.ends_with('/') {
                summary.warn(
                    name,
                    "not an index relink reads (.cdx, .cdxj, .cdx.gz, .idx); copied as it is",
                );
            }
            continue;
        };
        if kind == IndexKind::Summary {
            continue;
        }
        let mut source = tempfile::tempfile()?;
        io::copy(&mut zip.by_index(index)?, &mut source)?;
        let mut ctx = IndexContext {
            entry: name,
            archives,
            new,
            zip,
            warcs: &warcs,
            warned: false,
            undigested: 0,
        };
        let mut out = tempfile::tempfile()?;
        let changed = match kind {
            IndexKind::Plain => {
                source.seek(SeekFrom::Start(0))?;
                rewrite_lines(&mut BufReader::new(&mut source), &mut out, &mut ctx)?
            }
            IndexKind::Gzipped => {
                let (changed, map) = rewrite_gzipped_index(&mut source, &mut out, &mut ctx)?;
                blocks.insert(name.clone(), map);
                changed
            }
            IndexKind::Summary => false,
        };
        if ctx.warned {
            summary.warn(
                name,
                "lines naming a WARC file the package does not hold are kept as they are",
            );
        }
        if ctx.undigested > 0 {
            summary.warn(
                name,
                format!(
                    "{} lines keep the digest of a changed record that has no WARC-Payload-Digest",
                    ctx.undigested
                ),
            );
        }
        if changed {
            new.insert(name.clone(), out);
        }
    }
    for (index, name) in names.iter().enumerate() {
        if IndexKind::of(name) != Some(IndexKind::Summary) {
            continue;
        }
        let mut text = String::new();
        zip.by_index(index)?
            .read_to_string(&mut text)
            .map_err(|e| WaczError::entry(name, format!("not UTF-8 text: {e}")))?;
        if let Some(out) = rewrite_summary(name, &text, &blocks, new)? {
            new.insert(name.clone(), out);
        }
    }
    Ok(())
}

/// Brings `datapackage.json` and `datapackage-digest.json` up to date
/// with the rewritten entries.
fn update_package<R: Read + Seek>(
    zip: &mut ZipArchive<R>,
    names: &[String],
    new: &mut HashMap<String, File>,
    summary: &mut WaczSummary,
) -> Result<(), WaczError> {
    let Some(index) = names.iter().position(|n| n == DATAPACKAGE) else {
        summary.warn(
            DATAPACKAGE,
            "missing: the package lists no hashes to bring up to date",
        );
        return Ok(());
    };
    let text = read_json_entry(zip, index, DATAPACKAGE)?;
    let updated = rewrite_package(&text, new, summary)?;
    if updated == text {
        return Ok(());
    }
    if let Some(digest) = names.iter().position(|n| n == DATAPACKAGE_DIGEST) {
        let digest_text = read_json_entry(zip, digest, DATAPACKAGE_DIGEST)?;
        let digest_new = rewrite_package_digest(&digest_text, updated.as_bytes())?;
        new.insert(DATAPACKAGE_DIGEST.to_owned(), text_file(&digest_new)?);
    }
    new.insert(DATAPACKAGE.to_owned(), text_file(&updated)?);
    Ok(())
}

impl WaczSummary {
    /// Adds a WARC pass; whether it changed any record.
    fn add_archive(
        &mut self,
        entry: String,
        result: Result<WarcSummary, WarcError>,
    ) -> Result<bool, WaczError> {
        let summary = result.map_err(|source| WaczError::Warc {
            entry: entry.clone(),
            source,
        })?;
        self.warnings.extend(
            summary
                .warnings
                .iter()
                .map(|w| w.clone().within(entry.clone())),
        );
        let changed = summary.changed > 0;
        self.archives.push(ArchiveReport { entry, summary });
        Ok(changed)
    }
}

/// The zip of a WACZ, refused when two of its entries have one name.
fn open<R: Read + Seek>(input: R) -> Result<ZipArchive<R>, WaczError> {
    let zip = ZipArchive::new(input)?;
    if zip.has_duplicate_names() {
        return Err(WaczError::DuplicateNames);
    }
    Ok(zip)
}

fn entry_name<R: Read + Seek>(zip: &mut ZipArchive<R>, index: usize) -> Result<String, WaczError> {
    Ok(zip.by_index_raw(index)?.name()?.into_owned())
}

fn read_json_entry<R: Read + Seek>(
    zip: &mut ZipArchive<R>,
    index: usize,
    name: &str,
) -> Result<String, WaczError> {
    let mut text = String::new();
    zip.by_index(index)?
        .take(MAX_JSON_BYTES)
        .read_to_string(&mut text)
        .map_err(|e| WaczError::entry(name, format!("not UTF-8 text: {e}")))?;
    Ok(text)
}

fn text_file(text: &str) -> io::Result<File> {
    let mut file = tempfile::tempfile()?;
    file.write_all(text.as_bytes())?;
    Ok(file)
}

// ---------------------------------------------------------------------------
// Records and gzip members

/// Where one record lies in a WARC file, with its payload digest.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Member {
    start: u64,
    end: u64,
    payload_digest: Option<String>,
    /// The record's `Content-Length` and `WARC-Block-Digest`: whether it
    /// changed, when it has no payload digest to tell.
    block: (Option<String>, Option<String>),
}

/// The records of a WARC before and after its rewrite, found when an index
/// first needs them.
struct ArchiveMap {
    gzipped: bool,
    input: Option<Vec<Member>>,
    output: Option<Vec<Member>>,
}

/// A reader that counts what was consumed from it.
struct Counting<R> {
    inner: R,
    pos: u64,
}

impl<R: BufRead> Read for Counting<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.pos += n as u64;
        Ok(n)
    }
}

impl<R: BufRead> BufRead for Counting<R> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        self.inner.fill_buf()
    }

    fn consume(&mut self, amount: usize) {
        self.inner.consume(amount);
        self.pos += amount as u64;
    }
}

/// Reads up to the blank line that ends a WARC head, at most
/// `MAX_HEAD_BYTES`.
fn read_head(reader: &mut impl Read) -> io::Result<Vec<u8>> {
    let mut head = Vec::new();
    let mut buf = [0u8; 4096];
    while head.len() < MAX_HEAD_BYTES {
        let n = reader.read(&mut buf)?;
        if n == 0 {
            break;
        }
        head.extend_from_slice(&buf[..n]);
        if memchr::memmem::find(&head, b"\r\n\r\n").is_some() {
            break;
        }
    }
    if let Some(end) = memchr::memmem::find(&head, b"\r\n\r\n") {
        head.truncate(end + 2);
    }
    Ok(head)
}

/// A field of a WARC head, trimmed.
fn head_field(head: &[u8], name: &str) -> Option<String> {
    head.split(|&b| b == b'\n').find_map(|line| {
        let (key, value) = line.split_at(line.iter().position(|&b| b == b':')?);
        key.trim_ascii()
            .eq_ignore_ascii_case(name.as_bytes())
            .then(|| String::from_utf8_lossy(value[1..].trim_ascii()).into_owned())
    })
}

fn block(head: &[u8]) -> (Option<String>, Option<String>) {
    (
        head_field(head, "Content-Length"),
        head_field(head, "WARC-Block-Digest"),
    )
}

/// The gzip members of a file: where each starts and ends, and the
/// payload digest of the record it holds. Written here because flate2
/// decodes members but does not say where they lie: its decoder over a
/// counting reader does.
fn gzip_members(input: impl Read) -> io::Result<Vec<Member>> {
    let mut reader = Counting {
        inner: BufReader::with_capacity(64 << 10, input),
        pos: 0,
    };
    let mut members = Vec::new();
    while !reader.fill_buf()?.is_empty() {
        let start = reader.pos;
        let mut decoder = flate2::bufread::GzDecoder::new(&mut reader);
        let head = read_head(&mut decoder)?;
        io::copy(&mut decoder, &mut io::sink())?;
        drop(decoder);
        if reader.pos == start {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                format!("no gzip member at byte {start}"),
            ));
        }
        members.push(Member {
            start,
            end: reader.pos,
            payload_digest: head_field(&head, "WARC-Payload-Digest"),
            block: block(&head),
        });
    }
    Ok(members)
}

/// The records of a plain WARC file, each from its version line to the
/// end of its block (without the blank lines that end it, as warcio counts
/// a record's length; a stretch that a wrong length leaves before the next
/// version line is skipped as warcio skips it). Written here because the WARC reader reports
/// records, not where they lie in the file.
fn plain_records(input: impl Read) -> io::Result<Vec<Member>> {
    let mut reader = Counting {
        inner: BufReader::with_capacity(64 << 10, input),
        pos: 0,
    };
    let mut members: Vec<Member> = Vec::new();
    let mut line = Vec::new();
    loop {
        // The next version line, past blank lines or a bad stretch.
        let start = loop {
            line.clear();
            let n = (&mut reader)
                .take(MAX_HEAD_BYTES as u64)
                .read_until(b'\n', &mut line)?;
            if n == 0 {
                return Ok(members);
            }
            if line.starts_with(b"WARC/") {
                break reader.pos - n as u64;
            }
            if members.is_empty() && !line.trim_ascii().is_empty() {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidData,
                    "no WARC version line at the start",
                ));
            }
        };
        let mut head = line.clone();
        while !(head.ends_with(b"\r\n\r\n") || head.ends_with(b"\n\n"))
            && head.len() < MAX_HEAD_BYTES
        {
            let n = (&mut reader)
                .take(MAX_HEAD_BYTES as u64)
                .read_until(b'\n', &mut head)?;
            if n == 0 {
                break;
            }
        }
        let Some(length) = head_field(&head, "Content-Length").and_then(|v| v.parse::<u64>().ok())
        else {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                format!("no Content-Length in the record at byte {start}"),
            ));
        };
        let skipped = io::copy(&mut (&mut reader).take(length), &mut io::sink())?;
        if skipped < length {
            return Err(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                format!("the record at byte {start} is cut short"),
            ));
        }
        members.push(Member {
            start,
            end: reader.pos,
            payload_digest: head_field(&head, "WARC-Payload-Digest"),
            block: block(&head),
        });
    }
}

fn scan(input: impl Read, gzipped: bool) -> io::Result<Vec<Member>> {
    if gzipped {
        gzip_members(input)
    } else {
        plain_records(input)
    }
}

/// Where an index's record went: its new place, and its payload digests
/// before and after.
struct Moved {
    offset: u64,
    length: u64,
    old_digest: Option<String>,
    new_digest: Option<String>,
    /// Whether the record changed though neither has a payload digest.
    undigested_change: bool,
}

impl ArchiveMap {
    /// The new place of the record at `offset`, `length` bytes long, in
    /// the old file.
    fn locate(&self, offset: u64, length: u64) -> Result<Moved, String> {
        let (Some(input), Some(output)) = (&self.input, &self.output) else {
            return Err("records not scanned".into());
        };
        let first = input
            .binary_search_by_key(&offset, |m| m.start)
            .map_err(|_| format!("offset {offset} is not where a record starts"))?;
        let end = offset.saturating_add(length);
        let last = input
            .binary_search_by_key(&end, |m| m.end)
            .ok()
            .filter(|&last| last >= first)
            .ok_or_else(|| {
                format!("offset {offset} and length {length} do not span whole records")
            })?;
        let (Some(new_first), Some(new_last)) = (output.get(first), output.get(last)) else {
            return Err("the rewritten WARC has fewer records".into());
        };
        let (old, new) = (&input[first], new_first);
        let (old_digest, new_digest) = if first == last {
            (old.payload_digest.clone(), new.payload_digest.clone())
        } else {
            (None, None)
        };
        let undigested_change = first == last
            && old.payload_digest.is_none()
            && new.payload_digest.is_none()
            && old.block != new.block;
        Ok(Moved {
            offset: new_first.start,
            length: new_last.end - new_first.start,
            old_digest,
            new_digest,
            undigested_change,
        })
    }
}

// ---------------------------------------------------------------------------
// Hashes

/// The hash of what `reader` gives, as `label:hex`, and its length.
fn hash_reader(old: &str, mut reader: impl Read) -> io::Result<Option<(String, u64)>> {
    let Some((label, _)) = old.split_once(':') else {
        return Ok(None);
    };
    let Some(algorithm) = Algorithm::named(label) else {
        return Ok(None);
    };
    let mut hasher = algorithm.hasher();
    let mut buf = vec![0u8; 64 << 10];
    let mut total = 0u64;
    loop {
        let n = reader.read(&mut buf)?;
        if n == 0 {
            break;
        }
        hasher.update(&buf[..n]);
        total += n as u64;
    }
    let hex: String = hasher.finish().iter().map(|b| format!("{b:02x}")).collect();
    Ok(Some((format!("{label}:{hex}"), total)))
}

/// The hash of `len` bytes of `file` from `offset`, as `label:hex`.
fn hash_range(old: &str, file: &mut File, offset: u64, len: u64) -> io::Result<Option<String>> {
    file.seek(SeekFrom::Start(offset))?;
    Ok(hash_reader(old, (&mut *file).take(len))?.map(|(hash, _)| hash))
}

// ---------------------------------------------------------------------------
// JSON kept as written

/// A value of a JSON object: its text and where it lies.
struct RawField<'a> {
    text: &'a str,
    range: Range<usize>,
}

/// The top-level fields of a JSON object in `text`, each with the span of
/// its value, so that a value can be replaced and every other byte kept.
fn object_fields(text: &str) -> Result<HashMap<String, RawField<'_>>, String> {
    let map: HashMap<String, &RawValue> =
        serde_json::from_str(text).map_err(|e| format!("not a JSON object: {e}"))?;
    Ok(map
        .into_iter()
        .filter_map(|(key, raw)| {
            let raw = raw.get();
            let start = (raw.as_ptr() as usize).checked_sub(text.as_ptr() as usize)?;
            let range = start..start + raw.len();
            (text.get(range.clone()) == Some(raw)).then_some((key, RawField { text: raw, range }))
        })
        .collect())
}

impl RawField<'_> {
    /// The value as a string, whether written as a JSON string or not.
    fn string(&self) -> Option<String> {
        match serde_json::from_str::<serde_json::Value>(self.text).ok()? {
            serde_json::Value::String(s) => Some(s),
            serde_json::Value::Number(n) => Some(n.to_string()),
            _ => None,
        }
    }

    fn number(&self) -> Option<u64> {
        self.string()?.parse().ok()
    }

    /// A new number, quoted if the old one was.
    fn number_edit(&self, value: u64, offset: usize) -> Edit {
        let text = if self.text.starts_with('"') {
            format!("\"{value}\"")
        } else {
            value.to_string()
        };
        Edit::new(self.shifted(offset), text)
    }

    fn string_edit(&self, value: &str, offset: usize) -> Edit {
        let text = serde_json::Value::String(value.to_owned()).to_string();
        Edit::new(self.shifted(offset), text)
    }

    fn shifted(&self, offset: usize) -> Range<usize> {
        self.range.start + offset..self.range.end + offset
    }
}

fn apply_edits(text: &str, mut edits: Vec<Edit>) -> String {
    edits.retain(|e| text.get(e.range.clone()) != Some(e.text.as_str()));
    splice::normalize(&mut edits, text.len());
    splice::apply_str(text, &edits)
}

// ---------------------------------------------------------------------------
// Indexes

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum IndexKind {
    /// `.cdx`, `.cdxj`: lines.
    Plain,
    /// `.cdx.gz`, `.cdxj.gz`: gzip members of lines (ZipNum blocks).
    Gzipped,
    /// `.idx`: the ZipNum summary, a line for each block.
    Summary,
}

impl IndexKind {
    fn of(name: &str) -> Option<IndexKind> {
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
struct IndexContext<'a, R> {
    entry: &'a str,
    archives: &'a mut HashMap<String, ArchiveMap>,
    new: &'a mut HashMap<String, File>,
    zip: &'a mut ZipArchive<R>,
    /// The WARC entries of the package, with their numbers in the zip.
    warcs: &'a HashMap<String, usize>,
    /// Whether a line named a WARC the package does not hold.
    warned: bool,
    /// How many lines keep a digest of a changed record that has no
    /// `WARC-Payload-Digest` to take the new one from.
    undigested: usize,
}

/// Where the JSON block of a CDXJ line (`urlkey timestamp {...}`, as
/// cdxj-indexer and pywb write it, and a ZipNum summary line alike) starts:
/// after the first two spaces, whatever the key holds (a SURT key may hold
/// `{`).
fn cdxj_json(body: &str) -> Option<usize> {
    let key = body.find(' ')?;
    let time = key + 1 + body[key + 1..].find(' ')?;
    body[time + 1..].starts_with('{').then_some(time + 1)
}

/// An index line that cannot be brought up to date.
fn stale(entry: &str, line: usize, reason: impl std::fmt::Display) -> WaczError {
    WaczError::entry(
        entry,
        format!("line {line}: {reason}; refusing to write a stale index"),
    )
}

/// The column letters of a classic CDX header (` CDX N b a m s k r M S V g`).
struct CdxColumns {
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
    fn fail(&self, line: usize, reason: impl std::fmt::Display) -> WaczError {
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
    fn line(
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
fn rewrite_lines<R: Read + Seek>(
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

/// A block of a gzipped index: where it was and where it is.
#[derive(Debug, Clone)]
struct Block {
    old: Range<u64>,
    new: Range<u64>,
}

/// Rewrites a gzipped index member by member (a ZipNum `.cdx.gz` has a
/// member per block): a member whose lines are all unchanged is copied as
/// it was. Gives whether any changed, and where each block went.
fn rewrite_gzipped_index<R: Read + Seek>(
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
fn rewrite_summary(
    entry: &str,
    text: &str,
    blocks: &HashMap<String, Vec<Block>>,
    new: &mut HashMap<String, File>,
) -> Result<Option<File>, WaczError> {
    let fail = |line: usize, reason: &str| {
        WaczError::entry(
            entry,
            format!("line {line}: {reason}; refusing to write a stale index"),
        )
    };
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
    if !new.contains_key(&target) {
        return Ok(None);
    }
    let mut out = String::with_capacity(text.len());
    for (i, line) in text.split_inclusive('\n').enumerate() {
        let number = i + 1;
        let body = line.trim_end_matches(['\r', '\n']);
        if body.trim().is_empty() || body.starts_with('!') {
            out.push_str(line);
            continue;
        }
        let Some(json_at) = cdxj_json(body) else {
            return Err(fail(number, "not a summary line"));
        };
        let fields = object_fields(&body[json_at..]).map_err(|e| fail(number, &e))?;
        let (Some(offset), Some(length)) = (
            fields.get("offset").and_then(RawField::number),
            fields.get("length").and_then(RawField::number),
        ) else {
            return Err(fail(number, "no offset and length"));
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
            && let Some(file) = new.get_mut(&target)
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

// ---------------------------------------------------------------------------
// The package description

/// `datapackage.json` with the `hash` and `bytes` of every rewritten
/// entry made right, the rest of its text as it was.
fn rewrite_package(
    text: &str,
    new: &mut HashMap<String, File>,
    summary: &mut WaczSummary,
) -> Result<String, WaczError> {
    let fail = |reason: String| WaczError::entry(DATAPACKAGE, reason);
    let top = object_fields(text).map_err(fail)?;
    let Some(resources) = top.get("resources") else {
        return Err(fail("no resources".into()));
    };
    let list: Vec<&RawValue> = serde_json::from_str(resources.text)
        .map_err(|e| fail(format!("resources: not a list: {e}")))?;
    let mut edits = Vec::new();
    let mut listed = Vec::new();
    for raw in list {
        let raw = raw.get();
        let Some(at) = (raw.as_ptr() as usize).checked_sub(resources.text.as_ptr() as usize) else {
            continue;
        };
        let at = at + resources.range.start;
        let fields = object_fields(raw).map_err(|e| fail(format!("resource: {e}")))?;
        let Some(path) = fields.get("path").and_then(RawField::string) else {
            continue;
        };
        listed.push(path.clone());
        let Some(file) = new.get_mut(&path) else {
            continue;
        };
        file.seek(SeekFrom::Start(0))?;
        let old = fields
            .get("hash")
            .and_then(RawField::string)
            .unwrap_or_default();
        let size = match hash_reader(&old, &mut *file)? {
            Some((hash, size)) => {
                edits.push(fields["hash"].string_edit(&hash, at));
                size
            }
            None => {
                if fields.contains_key("hash") {
                    return Err(fail(format!(
                        "{path}: hash '{old}' is in an algorithm relink does not compute (md5, sha1, sha224, sha256, sha384, sha512)"
                    )));
                }
                file.seek(SeekFrom::End(0))?
            }
        };
        if let Some(bytes) = fields.get("bytes") {
            edits.push(bytes.number_edit(size, at));
        }
    }
    let mut unlisted: Vec<&String> = new.keys().filter(|k| !listed.contains(k)).collect();
    unlisted.sort();
    for name in unlisted {
        summary.warn(
            DATAPACKAGE,
            format!("lists no {name}: its hash is not recorded"),
        );
    }
    Ok(apply_edits(text, edits))
}

/// `datapackage-digest.json` with the new hash of `datapackage.json`.
fn rewrite_package_digest(text: &str, package: &[u8]) -> Result<String, WaczError> {
    let fail = |reason: String| WaczError::entry(DATAPACKAGE_DIGEST, reason);
    let fields = object_fields(text).map_err(fail)?;
    let Some(hash) = fields.get("hash") else {
        return Ok(text.to_owned());
    };
    let old = hash.string().unwrap_or_default();
    let Some((new, _)) = hash_reader(&old, package)? else {
        return Err(fail(format!(
            "hash '{old}' is in an algorithm relink does not compute (md5, sha1, sha224, sha256, sha384, sha512)"
        )));
    };
    Ok(apply_edits(text, vec![hash.string_edit(&new, 0)]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wacz_is_told_by_its_first_entry_names() {
        let entry = |name: &str, data: &[u8]| {
            let mut h = b"PK\x03\x04".to_vec();
            h.extend_from_slice(&[20, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
            h.extend_from_slice(&(data.len() as u32).to_le_bytes());
            h.extend_from_slice(&(data.len() as u32).to_le_bytes());
            h.extend_from_slice(&(name.len() as u16).to_le_bytes());
            h.extend_from_slice(&0u16.to_le_bytes());
            h.extend_from_slice(name.as_bytes());
            h.extend_from_slice(data);
            h
        };
        assert!(looks_like_wacz(&entry("archive/data.warc.gz", b"x")));
        assert!(looks_like_wacz(&entry("indexes/index.cdx.gz", b"x")));
        assert!(looks_like_wacz(&entry("datapackage.json", b"{}")));
        let two = [
            entry("mimetype", b"application/epub+zip"),
            entry("pages/pages.jsonl", b""),
        ]
        .concat();
        assert!(looks_like_wacz(&two));
        assert!(!looks_like_wacz(&entry("word/document.xml", b"<w/>")));
        assert!(!looks_like_wacz(&entry("archive/readme.txt", b"")));
        assert!(!looks_like_wacz(b"PK\x03\x04"));
        assert!(!looks_like_wacz(b"WARC/1.1\r\n"));
        let cut = entry("archive/data.warc.gz", b"x");
        assert!(!looks_like_wacz(&cut[..35]));
    }

    #[test]
    fn archive_entries_are_warcs_under_archive() {
        assert!(is_archive_entry("archive/data.warc.gz"));
        assert!(is_archive_entry("archive/rec-1.WARC"));
        assert!(!is_archive_entry("archive/data.arc.gz"));
        assert!(!is_archive_entry("data.warc.gz"));
    }

    #[test]
    fn json_values_are_replaced_in_place() {
        let text =
            r#"{"url": "http://a/", "offset": "363", "length": 12, "x": [1, {"offset": 5}]}"#;
        let fields = object_fields(text).unwrap();
        assert_eq!(fields["offset"].number(), Some(363));
        assert_eq!(fields["length"].number(), Some(12));
        let edits = vec![
            fields["offset"].number_edit(1000, 0),
            fields["length"].number_edit(7, 0),
            fields["url"].string_edit("http://b/\"", 0),
        ];
        assert_eq!(
            apply_edits(text, edits),
            r#"{"url": "http://b/\"", "offset": "1000", "length": 7, "x": [1, {"offset": 5}]}"#
        );
    }

    #[test]
    fn hashes_keep_their_algorithm_and_label() {
        let hash = |old: &str| hash_reader(old, &b"abc"[..]).unwrap().map(|(h, _)| h);
        assert_eq!(
            hash("sha256:00").unwrap(),
            "sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
        assert_eq!(
            hash("md5:").unwrap(),
            "md5:900150983cd24fb0d6963f7d28e17f72"
        );
        assert_eq!(
            hash("SHA-1:x").unwrap(),
            "SHA-1:a9993e364706816aba3e25717850c26c9cd0d89d"
        );
        assert_eq!(hash("crc32:0"), None);
    }

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

    fn gz(bytes: &[u8]) -> Vec<u8> {
        let mut w = GzEncoder::new(Vec::new(), flate2::Compression::default());
        w.write_all(bytes).unwrap();
        w.finish().unwrap()
    }

    #[test]
    fn members_and_plain_records_are_found_where_they_lie() {
        let a = b"WARC/1.1\r\nWARC-Payload-Digest: sha1:A\r\nContent-Length: 3\r\n\r\nabc\r\n\r\n";
        let b = b"WARC/1.1\r\nContent-Length: 0\r\n\r\n\r\n\r\n";
        let (ga, gb) = (gz(a), gz(b));
        let members = gzip_members(&[&ga[..], &gb].concat()[..]).unwrap();
        let ends: Vec<_> = members.iter().map(|m| (m.start, m.end)).collect();
        let (la, lb) = (ga.len() as u64, gb.len() as u64);
        assert_eq!(ends, [(0, la), (la, la + lb)]);
        assert_eq!(members[0].payload_digest.as_deref(), Some("sha1:A"));
        assert_eq!(members[1].payload_digest, None);
        let records = plain_records(&[&a[..], b].concat()[..]).unwrap();
        let ends: Vec<_> = records.iter().map(|m| (m.start, m.end)).collect();
        let (la, lb) = (a.len() as u64, b.len() as u64);
        assert_eq!(ends, [(0, la - 4), (la, la + lb - 4)]);
        assert!(gzip_members(&b"not gzip"[..]).is_err());
        assert!(plain_records(&b"WARC/1.1\r\n\r\n"[..]).is_err());
        // A wrong length leaves a stretch before the next version line,
        // skipped as warcio skips it.
        let bad = b"WARC/1.1\r\nContent-Length: 1\r\n\r\nabc\r\n\r\n";
        let records = plain_records(&[&bad[..], b].concat()[..]).unwrap();
        let ends: Vec<_> = records.iter().map(|m| (m.start, m.end)).collect();
        let (la, lb) = (bad.len() as u64, b.len() as u64);
        assert_eq!(ends, [(0, la - 6), (la, la + lb - 4)]);
    }
}
