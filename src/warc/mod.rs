//! Web archives: WARC (ISO 28500, any version: 0.17 and 0.18 drafts, 1.0,
//! 1.1) and ARC (versions 1 and 2), plain or gzipped, and WACZ packages of
//! them ([`wacz`]): every HTML and CSS payload of the `response` and
//! `resource` records rewritten against its own base, and the links of
//! the HTTP head too, the rest of the file kept.
//!
//! A file is read as a stream, a bounded batch of records at a time (one
//! record with one worker, a few for each worker with more: see
//! [`batch_limits`]); the batch is worked on in parallel and written out in
//! order, so memory is bounded by the batch and the largest payload, never
//! by the file. A
//! `response` record's HTTP message has its `chunked` transfer coding and
//! its content codings (`gzip`, `deflate`, `br`) undone to reach the
//! payload, and redone over the new one; a coding that does not decode is
//! read as identity (as warcio reads it), with a warning. The record's
//! lengths and digests (in the algorithm and encoding the input used) are
//! made right again.
//!
//! Archives are read as they are found: bytes that are no record are
//! copied as they are and reading goes on at the next record; a record
//! whose length is wrong is listed but copied as it is; gzip members map
//! one to one between input and output, an unchanged member written back
//! byte for byte. Each is said in a warning naming the record or offset.
//!
//! The links of a `response` record's HTTP head (`Location`,
//! `Content-Location`, `Refresh`, `Link`) resolve against the target URI
//! (RFC 8288 section 3.2, RFC 7231 section 7.1.2), not against the
//! payload's BASE.
//!
//! The base of a payload, innermost first (RFC 1808 section 3): the HTML
//! BASE element; then, under the RFC rules, the HTTP `Content-Base` and
//! `Content-Location` (RFC 2068 sections 14.11 and 14.15, RFC 2616 section
//! 14.14), a relative one resolved against the target URI; then
//! `WARC-Target-URI`. Under the WHATWG rules the HTTP headers give no
//! base, as in browsers (RFC 7231 appendix B).
//!
//! ```
//! let page = b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n<a href=b>b</a>";
//! let record = format!(
//!     "WARC/1.1\r\nWARC-Type: response\r\nWARC-Target-URI: http://a/x/\r\n\
//!      Content-Type: application/http; msgtype=response\r\nContent-Length: {}\r\n\r\n",
//!     page.len()
//! );
//! let input = [record.as_bytes(), page, b"\r\n\r\n"].concat();
//! let out = relink::Rewriter::new().rewrite(&input)?;
//! let row = &out.rows()[0];
//! assert_eq!(row.link.resolved, "http://a/x/b");
//! assert_eq!(row.record.as_ref().unwrap().target_uri, "http://a/x/");
//! # Ok::<(), relink::Error>(())
//! ```

mod arc;
mod digest;
mod http;
mod payload;
mod record;
pub mod wacz;

use std::fmt;
use std::io::{self, BufRead, Read, Write};
use std::sync::Arc;

use flate2::write::GzEncoder;
use rayon::prelude::*;

#[cfg(feature = "_internal")]
pub use payload::HTTP_BASE_HEADERS;
pub use record::{Compression, Format, MAX_HEAD_BYTES};

use crate::base::Layer;
use crate::base::LayerStatus;
use crate::compressed::{self, Deflater};
use crate::links::{
    HeldRows, HttpEntity, Link, LinkRow, RecordBlock, RecordHeads, RecordName, UnitReport, Warning,
    WarningKind,
};
use crate::options::{Options, ROWS_BATCH_BYTES, Rows};
use crate::text::Documents;
use payload::NewRecord;
use record::{Item, LargeRecord, Member, Piece, Record, RecordReader, Spool};

/// The largest payload relink decodes and rewrites, by default; a larger
/// one (or one that decodes past it) is copied as it is, with a warning.
pub const MAX_PAYLOAD_BYTES: usize = 256 << 20;

/// The most bytes of records read before a batch is worked on, however
/// many workers there are.
pub const BATCH_BYTES: usize = 32 << 20;

/// How many records, and bytes of them, a worker is given in a batch:
/// enough that the workers share a batch out evenly, few enough that
/// memory follows the number of workers and the records, never the file.
pub const WORKER_RECORDS: usize = 4;
/// See [`WORKER_RECORDS`].
pub const WORKER_BYTES: usize = 4 << 20;

/// When a batch of records is full, for `workers` workers: with one, each
/// record is a batch of its own (there is no one to share it with); with
/// more, [`WORKER_RECORDS`] records each, or [`WORKER_BYTES`] bytes each
/// (at most [`BATCH_BYTES`]), whichever comes first. Returns the records
/// and the bytes.
pub fn batch_limits(workers: usize) -> (usize, usize) {
    if workers <= 1 {
        return (1, BATCH_BYTES);
    }
    (
        workers.saturating_mul(WORKER_RECORDS),
        workers.saturating_mul(WORKER_BYTES).min(BATCH_BYTES),
    )
}

/// How to rewrite a WARC file.
#[derive(Debug, Clone, Copy)]
pub struct WarcOptions<'a> {
    /// How to rewrite each payload. Its `outer` base is not used: each
    /// record gives its own.
    pub document: Options<'a>,
    /// The largest payload decoded and rewritten (also the largest record
    /// block held in memory).
    pub max_payload_bytes: usize,
    /// What rewrites the HTML and CSS payloads.
    pub documents: &'a dyn Documents,
    /// Whether a run that writes nothing verifies each record's digests
    /// (and warns of each that does not match). A rewrite always does: a
    /// record is rewritten only when its digests hold.
    pub verify_digests: bool,
}

impl<'a> WarcOptions<'a> {
    /// The default options, payloads rewritten by `documents`.
    pub fn new(documents: &'a dyn Documents) -> Self {
        WarcOptions {
            document: Options::default(),
            max_payload_bytes: MAX_PAYLOAD_BYTES,
            documents,
            verify_digests: false,
        }
    }
}

/// What could not be read in a WARC file.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum WarcError {
    /// Reading or writing failed.
    #[error("{0}")]
    Io(#[from] io::Error),
    /// A record that cannot be read, so neither can any after it.
    #[error("record {record}: {reason}")]
    Malformed {
        /// The record's number, from 1.
        record: usize,
        /// What is wrong.
        reason: String,
    },
}

impl From<WarcError> for crate::error::Error {
    fn from(err: WarcError) -> Self {
        match err {
            WarcError::Io(err) => crate::error::Error::Io(err),
            WarcError::Malformed { record, reason } => {
                crate::error::Error::MalformedRecord { record, reason }
            }
        }
    }
}

/// What became of one record.
#[derive(Debug, Clone, Default)]
pub struct RecordReport {
    /// Its number in the file, from 1.
    pub number: usize,
    /// Its `WARC-Type` (`response`, `request`, ...).
    pub record_type: String,
    /// Its `WARC-Record-ID`, as written (`<urn:uuid:...>`).
    pub record_id: String,
    /// Its `WARC-Target-URI`, without angle brackets.
    pub target_uri: String,
    /// The media type of its payload, when HTML or CSS was rewritten.
    pub mimetype: String,
    /// The layers of the payload's base, innermost first.
    pub layers: Vec<Layer>,
    /// Whether its HTTP head has links: then it is explained even when it
    /// holds no document (a redirect).
    pub head_links: bool,
    /// Every link of the payload (none when only counts were asked).
    pub links: Vec<Link>,
    /// How many links were rewritten.
    pub rewritten: usize,
    /// What could not be done, each naming the record.
    pub warnings: Vec<Warning>,
    /// Whether the record changed.
    pub changed: bool,
    /// Its heads as read, with [`crate::options::Details::Attributes`] only.
    pub heads: Option<std::sync::Arc<crate::links::RecordHeads>>,
    /// Its HTML payload's title and metas, with
    /// [`crate::options::Details::Attributes`] only.
    pub head: Option<Box<crate::links::HtmlHead>>,
}

impl RecordReport {
    /// The record's report in the one shape every unit reports, with its
    /// name, which each of its rows shares.
    pub fn into_unit(self) -> (Arc<RecordName>, UnitReport) {
        let record = self;
        let name = Arc::new(RecordName {
            number: record.number,
            target_uri: record.target_uri,
            record_id: record.record_id,
            record_type: record.record_type,
            heads: record.heads,
        });
        let mut report = UnitReport {
            warnings: record.warnings,
            rewritten: record.rewritten,
            head: record.head,
            ..UnitReport::default()
        };
        let no_base = !record.layers.iter().any(|l| l.status == LayerStatus::Used);
        if !record.mimetype.is_empty() {
            report.without_base = usize::from(no_base);
            let label = format!(
                "record {} {} ({})",
                record.number, name.target_uri, record.mimetype
            );
            report.layers.push((label, record.layers));
        } else if record.head_links {
            // No document, but an HTTP head with links.
            let label = format!("record {} {}", record.number, name.target_uri);
            report.layers.push((label, record.layers));
        }
        let row = |link| LinkRow {
            message: None,
            part: None,
            record: Some(name.clone()),
            link,
        };
        report.rows.extend(record.links.into_iter().map(row));
        (name, report)
    }

    /// How warnings name the record: its number, ID and target URI.
    pub fn name(&self) -> String {
        let mut name = format!("record {}", self.number);
        for part in [&self.record_id, &self.target_uri] {
            if !part.is_empty() {
                name.push(' ');
                name.push_str(part);
            }
        }
        name
    }

    fn warn(&mut self, kind: WarningKind, message: impl fmt::Display) {
        self.push(Warning::new(kind, message));
    }

    fn push(&mut self, warning: Warning) {
        let warning = warning.within(self.name());
        self.warnings.push(warning);
    }
}

/// What a pass over a WARC file gave.
#[derive(Debug, Clone, Default)]
pub struct WarcSummary {
    /// How many records it holds.
    pub records: usize,
    /// How many records changed.
    pub changed: usize,
    /// Every warning, in record order.
    pub warnings: Vec<Warning>,
    /// How the file was compressed.
    pub compression: Compression,
}

/// What a file's first bytes say it is, when it is a web archive.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ArchiveFormat {
    /// WARC, of any version, plain or gzipped.
    Warc,
    /// ARC, version 1 or 2, plain or gzipped.
    Arc,
    /// Compressed with zstd: a WARC, perhaps, which relink does not read.
    Zstd,
}

/// Whether the start of a file is a web archive: a WARC version line (any
/// version) or an ARC file's `filedesc://` line, after optional white
/// space, NUL bytes and byte order marks, or on the second line after one
/// stray first line (a record head there: a version line followed by a
/// header field, or an ARC `filedesc://` line of five fields); plain or
/// in gzip (the first 64 KiB undone, through several members when the
/// first holds only white space); or zstd data, which relink cannot look
/// into. A gzipped head needs a few hundred bytes (a deflate block's code
/// tables come first); 4 KiB is plenty.
pub fn archive_format(head: &[u8]) -> Option<ArchiveFormat> {
    detect(head, START_BYTES, format_at_start)
}

/// [`archive_format`], looking further: a record head at the start of
/// any line of the first [`SNIFF_BYTES`] (gzip undone), after any bytes
/// that are no record, where the record reader would find it (it
/// resynchronises on the next line that starts a record). For a file whose
/// name gives no kind: an archive after junk is read as an archive, never
/// as a document.
pub fn archive_format_past_junk(head: &[u8]) -> Option<ArchiveFormat> {
    detect(head, SNIFF_BYTES, |bytes| {
        format_at_start(bytes).or_else(|| {
            memchr::memchr_iter(b'\n', bytes).find_map(|i| record_head_at(bytes, i + 1))
        })
    })
}

/// How many bytes of a gzipped head [`archive_format`] undoes.
const START_BYTES: usize = 64 << 10;

/// How many bytes of a file's start [`archive_format_past_junk`] looks
/// through for a record after junk: as many as the command line reads
/// before it chooses a file's kind.
pub const SNIFF_BYTES: usize = MAX_HEAD_BYTES;

/// `format` over the first `limit` bytes of `head`, gzip undone; zstd is
/// told by its magic number.
fn detect(
    head: &[u8],
    limit: usize,
    format: impl Fn(&[u8]) -> Option<ArchiveFormat>,
) -> Option<ArchiveFormat> {
    match compressed::compression_of(head) {
        Some(compressed::Compression::Zstd) => return Some(ArchiveFormat::Zstd),
        Some(compressed::Compression::Gzip) => {}
        _ => return format(&head[..head.len().min(limit)]),
    }
    let decoder = flate2::read::MultiGzDecoder::new(head);
    let mut out = Vec::new();
    // A head cut short ends the read with an error: what came out serves.
    let _ = decoder.take(limit as u64).read_to_end(&mut out);
    format(&out)
}

/// The format whose record starts `bytes`, after white space, NUL bytes
/// and byte order marks; or on the second line, after one stray line.
fn format_at_start(bytes: &[u8]) -> Option<ArchiveFormat> {
    let mut rest = bytes;
    loop {
        let before = rest.len();
        rest = rest.trim_ascii_start();
        rest = rest.strip_prefix(b"\xef\xbb\xbf").unwrap_or(rest);
        rest = rest.strip_prefix(b"\xfe\xff").unwrap_or(rest);
        rest = rest.strip_prefix(b"\xff\xfe").unwrap_or(rest);
        let nul = rest.iter().take_while(|&&b| b == 0).count();
        rest = &rest[nul..];
        if rest.len() == before {
            break;
        }
    }
    if rest.starts_with(b"WARC/") && rest.get(5).is_none_or(u8::is_ascii_digit) {
        return Some(ArchiveFormat::Warc);
    }
    if rest.starts_with(b"filedesc://") {
        return Some(ArchiveFormat::Arc);
    }
    let second = memchr::memchr(b'\n', rest)? + 1;
    record_head_at(rest, second)
}

/// The format of a record head starting at `at` (a line start), where the
/// record reader would read one: white space, then a WARC version line
/// (`WARC/` and a digit) followed by a header field line, or an ARC
/// `filedesc://` line of at least five fields. A line of text that names
/// WARC is no record head.
fn record_head_at(bytes: &[u8], at: usize) -> Option<ArchiveFormat> {
    let rest = bytes.get(at..)?;
    let line_end = memchr::memchr(b'\n', rest).unwrap_or(rest.len());
    let line = rest[..line_end].trim_ascii();
    if line.starts_with(b"filedesc://") {
        let fields = line.split(|&b| b == b' ').filter(|f| !f.is_empty());
        return (fields.count() >= 5).then_some(ArchiveFormat::Arc);
    }
    let version = line.strip_prefix(b"WARC/")?;
    if !version.first().is_some_and(u8::is_ascii_digit)
        || !version.iter().all(|b| b.is_ascii_digit() || *b == b'.')
    {
        return None;
    }
    let next = rest.get(line_end + 1..)?;
    let name = next
        .iter()
        .take_while(|b| b.is_ascii_alphanumeric() || **b == b'-' || **b == b'_')
        .count();
    (name > 0 && next.get(name) == Some(&b':')).then_some(ArchiveFormat::Warc)
}

/// Whether the start of a file is a web archive relink reads (see
/// [`archive_format`]).
pub fn looks_like_warc(head: &[u8]) -> bool {
    matches!(
        archive_format(head),
        Some(ArchiveFormat::Warc | ArchiveFormat::Arc)
    )
}

/// Whether a file is a web archive relink reads, looking past junk (see
/// [`archive_format_past_junk`]).
pub fn looks_like_warc_past_junk(head: &[u8]) -> bool {
    matches!(
        archive_format_past_junk(head),
        Some(ArchiveFormat::Warc | ArchiveFormat::Arc)
    )
}

/// [`rewrite`], calling `on_record` for each record in order.
pub fn rewrite_with<R: BufRead, W: Write>(
    input: R,
    output: W,
    options: &WarcOptions<'_>,
    mut on_record: impl FnMut(RecordReport),
) -> Result<WarcSummary, WarcError> {
    run(input, Some(output), options, &mut on_record)
}

/// Reads a WARC file, calling `on_record` for each record in order (with
/// its links and base layers), and writes nothing.
pub fn inspect<R: BufRead>(
    input: R,
    options: &WarcOptions<'_>,
    mut on_record: impl FnMut(RecordReport),
) -> Result<WarcSummary, WarcError> {
    run(input, None::<io::Sink>, options, &mut on_record)
}

/// The name a record's rows carry, read from its head as its report
/// reads it.
fn record_name(record: &Record, heads: Option<Arc<RecordHeads>>) -> RecordName {
    match record.format {
        Format::Warc => RecordName {
            number: record.number,
            target_uri: payload::target_uri(&record.head),
            record_id: http::field(&record.head, "WARC-Record-ID").unwrap_or_default(),
            record_type: http::field(&record.head, "WARC-Type").unwrap_or_default(),
            heads,
        },
        Format::Arc => {
            // As the WARC head an ARC record is read with names it.
            let head = format!(
                "WARC/1.0\r\nWARC-Target-URI: {}\r\n\r\n",
                arc::url(&record.head)
            );
            RecordName {
                number: record.number,
                target_uri: payload::target_uri(head.as_bytes()),
                record_id: String::new(),
                record_type: arc::record_type(&record.head).to_owned(),
                heads,
            }
        }
    }
}

/// A record's heads as read, when the options keep them (a WAT file's
/// `WARC-Header-Metadata` and `HTTP-Response-Metadata`): its WARC head,
/// and the final HTTP head of a response (an ARC record's block is one).
///
/// `verified` are the record's digests found to match it: a SHA-1 in
/// base32 is its `Block-Digest` or `Entity-Digest`, not computed again.
/// When digests are not verified, a SHA-1 in base32 in the head is the
/// `Block-Digest` as written, and a SHA-1 payload digest the
/// `Entity-Digest` when it can only go over the entity (`http_entity`).
fn record_heads(
    record: &Record,
    options: &WarcOptions<'_>,
    verified: &payload::Verified,
    container: Option<InFile>,
) -> Option<Arc<RecordHeads>> {
    if options.document.details != crate::options::Details::Attributes {
        return None;
    }
    let (warc, kind) = match record.format {
        Format::Warc => {
            let kind = http::field(&record.head, "WARC-Type").unwrap_or_default();
            (http::head_fields(&record.head), kind)
        }
        Format::Arc => (Vec::new(), "response".to_owned()),
    };
    let response = kind
        .eq_ignore_ascii_case("response")
        .then(|| http::Response::parse(&record.block))
        .flatten();
    let http = match &response {
        Some(response) => response.head,
        None if kind.eq_ignore_ascii_case("request") => request_head(&record.block),
        None => &[],
    };
    let entity = response
        .filter(|_| whole_block(record))
        .and_then(|response| http_entity(record, &response, verified, options));
    // Unverified, the block digest is the one the head says.
    let said = (!options.verify_digests)
        .then(|| http::field(&record.head, "WARC-Block-Digest"))
        .flatten()
        .and_then(|written| digest::Digest::parse(&written).ok());
    let block = (record.format == Format::Warc && whole_block(record)).then(|| RecordBlock {
        header_length: record.head.len(),
        length: record.block.len(),
        trailing_slop: record.trailer.len(),
        digest: verified
            .block
            .as_ref()
            .or(said.as_ref())
            .and_then(digest::Digest::sha1_base32)
            .unwrap_or_else(|| digest::sha1_base32(&record.block)),
        offset: container.map(|(offset, _)| offset),
        compressed: container.is_some_and(|(_, compressed)| compressed),
    });
    // The version line as written (`WARC/1.0`).
    let first = record
        .head
        .split(|&b| b == b'\n')
        .next()
        .unwrap_or_default();
    let version = String::from_utf8_lossy(first.trim_ascii());
    Some(Arc::new(RecordHeads {
        version: version.starts_with("WARC/").then(|| version.into_owned()),
        warc,
        start_line: http::start_line(http),
        http: http::head_fields(http),
        entity,
        block,
    }))
}

/// A response's entity as Common Crawl's reader counts it: the block
/// after one HTTP head, ended by its blank line (the reader reads the
/// first head only, and counts the rest of the block as its entity),
/// and no longer than the head's `Content-Length` says.
///
/// Its digest is the `WARC-Payload-Digest` found to match the body when
/// the entity is the whole body. Unverified, a SHA-1 payload digest is
/// taken as written when it can only go over the entity's bytes: the
/// whole body, stored with no transfer or content coding (a writer may
/// digest the body decoded, RFC 9112's entity-body or the payload
/// decoded). Otherwise the digest is computed.
fn http_entity(
    record: &Record,
    response: &http::Response<'_>,
    verified: &payload::Verified,
    options: &WarcOptions<'_>,
) -> Option<HttpEntity> {
    let one_head =
        response.interim.is_empty() && http::head_len(response.head) == Some(response.head.len());
    if !one_head {
        return None;
    }
    let body = response.body;
    let said = response.field("Content-Length");
    let length = said.and_then(|n| n.trim().parse::<usize>().ok());
    let length = length.map_or(body.len(), |n| n.min(body.len()));
    let whole = length == body.len();
    let known = verified.body.as_ref().filter(|_| whole);
    let said = (!options.verify_digests && whole && !response.coded())
        .then(|| http::field(&record.head, "WARC-Payload-Digest"))
        .flatten()
        .and_then(|written| digest::Digest::parse(&written).ok());
    let digest = match known {
        Some(known) => known.sha1_in_base32(),
        None => said.as_ref().and_then(digest::Digest::sha1_in_base32),
    };
    Some(HttpEntity {
        headers_length: response.head.len(),
        length,
        trailing_slop: body.len() - length,
        digest: digest.unwrap_or_else(|| digest::sha1_base32(&body[..length])),
    })
}

/// The head of the HTTP request in a `request` record's block: its
/// request line (`GET /x HTTP/1.1`) and header fields, blank line
/// included; empty when the block holds no head that ends.
fn request_head(block: &[u8]) -> &[u8] {
    let is_request = block
        .split(|&b| b == b'\n')
        .next()
        .is_some_and(|line| line.windows(6).any(|w| w == b" HTTP/"));
    match http::head_len(block).filter(|_| is_request) {
        Some(len) => &block[..len],
        None => &[],
    }
}

/// Whether a record's block is all there, as long as its head says: not
/// cut short by the end of the file, and its length not found wrong.
fn whole_block(record: &Record) -> bool {
    let length = match record.format {
        Format::Warc => http::field(&record.head, "Content-Length"),
        Format::Arc => record::arc_length(&record.head).map(|n| n.to_string()),
    };
    record.bad.is_none()
        && length.and_then(|n| n.trim().parse::<usize>().ok()) == Some(record.block.len())
}

/// One record read, and its new bytes when it changed and `write` was
/// asked. A bad record's links are read, but it is never rewritten. Its
/// rows go to `rows` when the options hand rows to a sink, placed in the
/// record (and not changed when it is copied as it is: a bad record, or
/// one copied with its gzip member, `raw`).
fn process(
    record: &Record,
    options: &WarcOptions<'_>,
    write: bool,
    (rows, raw): (Option<Rows<'_>>, bool),
    container: Option<InFile>,
) -> (RecordReport, Option<NewRecord>) {
    // Digests are hashed only where a decision rests on them: a rewrite,
    // or a reading that asked for it. Otherwise they are only read.
    let options = &WarcOptions {
        verify_digests: write || options.verify_digests,
        ..*options
    };
    // Rows leave as they are found: whether the record's digests leave it
    // as it is is decided first (and, when they hold, not again).
    let checked = record.bad.is_none() && !raw && rows.is_some() && record.format == Format::Warc;
    let (refused, verified) = match checked {
        true => payload::digests_refuse(record.view(), options),
        false => (false, payload::Verified::default()),
    };
    let heads = record_heads(record, options, &verified, container);
    let name = rows.map(|_| Arc::new(record_name(record, heads.clone())));
    let kept = record.bad.is_none() && !raw && !refused;
    let within = Options {
        rows,
        ..options.document
    };
    let mut mapped = None;
    let document = within.mapped(&mut mapped, |row| {
        row.record.clone_from(&name);
        row.link.changed &= kept;
    });
    let options = &WarcOptions {
        document,
        ..*options
    };
    let (mut report, mut new) = match record.format {
        Format::Warc => payload::process(record.view(), options, write, checked && !refused),
        Format::Arc => arc::process(record, options, write),
    };
    report.heads = heads;
    if let Some(bad) = &record.bad {
        report.warn(
            WarningKind::Malformed,
            format_args!("at offset {}: {bad}; copied as it is", record.offset),
        );
        new = None;
        report.changed = false;
        report.rewritten = 0;
        for link in &mut report.links {
            link.changed = false;
        }
    }
    (report, new)
}

/// What the reader gave, held for a batch.
enum Held {
    Piece(Piece),
    Member(Member),
    MemberStart,
    MemberEnd(Option<Spool>),
    /// A piece of a member copied as it was read: reported only; the
    /// member's bytes read up to it are written as they are.
    RawPiece {
        piece: Piece,
        compressed: Vec<u8>,
        why: &'static str,
    },
    /// The rest of such a member's compressed bytes.
    RawMemberEnd(Vec<u8>),
}

/// What became of one record of a batch, and its rows held until their
/// turn.
type Done = ((RecordReport, Option<NewRecord>), HeldRows);

fn run<R: BufRead, W: Write>(
    input: R,
    output: Option<W>,
    options: &WarcOptions<'_>,
    on_record: &mut dyn FnMut(RecordReport),
) -> Result<WarcSummary, WarcError> {
    let write = output.is_some();
    let large = u64::try_from(options.max_payload_bytes).unwrap_or(u64::MAX);
    let mut reader = RecordReader::new(input, large, write)?;
    let mut writer = output.map(|w| Sink::new(w, reader.compression() != Compression::None));
    let mut summary = WarcSummary::default();
    // The workers of the pool this runs in (the command line's `-j`).
    let (max_records, mut max_bytes) = batch_limits(rayon::current_num_threads());
    let sink = options.document.rows;
    if sink.is_some() {
        max_bytes = max_bytes.min(ROWS_BATCH_BYTES);
    }
    // An item that would take a batch whose rows are held past its bytes
    // waits for the next batch, where it is first.
    let mut next = None;
    loop {
        let mut batch = Vec::new();
        let (mut size, mut records) = (0, 0);
        let mut stop = None;
        while size < max_bytes && records < max_records {
            let item = match next.take() {
                Some(item) => Some(item),
                None => reader.next_item()?,
            };
            if sink.is_some() && size > 0 && size + item_len(item.as_ref()) > max_bytes {
                next = item;
                break;
            }
            let Some(item) = item else { break };
            let (bytes, count) = hold(item, &mut batch, &mut stop);
            if stop.is_some() {
                break;
            }
            size += bytes;
            records += count;
        }
        if batch.is_empty() && stop.is_none() {
            break;
        }
        let plain = reader.compression() == Compression::None;
        let records: Vec<(&Record, bool, Option<InFile>)> = batch
            .iter()
            .flat_map(|held| {
                let raw = matches!(held, Held::RawPiece { .. });
                let compressed = placed(held, plain);
                held_records(held)
                    .into_iter()
                    .map(move |record| (record, raw, compressed.map(|c| (record.offset, c))))
            })
            .collect();
        // One record hands its rows over as they are found; those of a
        // batch are held each until the ones before it are handed over.
        let alone = records.len() == 1;
        let done: Vec<Done> = records
            .into_par_iter()
            .map(|(record, raw, container)| {
                let held = HeldRows::default();
                let rows = match sink {
                    Some(_) if !alone => Some(Rows(&held)),
                    other => other,
                };
                (
                    process(record, options, write, (rows, raw), container),
                    held,
                )
            })
            .collect();
        let mut done = done.into_iter();
        for held in batch {
            write_held(
                held,
                &mut done,
                (writer.as_mut(), sink),
                &mut summary,
                on_record,
            )?;
        }
        if let Some(stop) = stop {
            copy_stop(
                stop,
                &mut reader,
                writer.as_mut(),
                options,
                (&mut summary, on_record),
            )?;
        }
    }
    if let Some(writer) = writer {
        writer.finish()?;
    }
    summary.compression = reader.compression();
    Ok(summary)
}

/// Holds an item for a batch; its bytes and its records. A record too
/// large to hold and gzip data that cannot be read end the batch: they go
/// to `stop`.
fn hold(item: Item, batch: &mut Vec<Held>, stop: &mut Option<Item>) -> (usize, usize) {
    let is_record = |piece: &Piece| usize::from(matches!(piece, Piece::Record(_)));
    let (held, size, records) = match item {
        Item::Piece(piece) => {
            let counts = (piece_len(&piece), is_record(&piece));
            (Held::Piece(piece), counts.0, counts.1)
        }
        Item::Member(member) => {
            let size = member.pieces.iter().map(piece_len).sum();
            let records = member.pieces.iter().map(is_record).sum();
            (Held::Member(member), size, records)
        }
        Item::MemberStart => (Held::MemberStart, 0, 0),
        Item::MemberEnd(original) => (Held::MemberEnd(original), 0, 0),
        Item::RawPiece {
            piece,
            compressed,
            why,
        } => {
            let size = piece_len(&piece) + compressed.len();
            let held = Held::RawPiece {
                piece,
                compressed,
                why,
            };
            (held, size, 0)
        }
        Item::RawMemberEnd(bytes) => (Held::RawMemberEnd(bytes), 0, 0),
        item @ (Item::Large(_) | Item::Unreadable { .. }) => {
            *stop = Some(item);
            return (0, 0);
        }
    };
    batch.push(held);
    (size, records)
}

/// Copies what ended a batch: a record too large to hold, its block
/// streamed through; or gzip data that cannot be read, and the rest of the
/// input after it, as they are.
fn copy_stop<R: BufRead, W: Write>(
    stop: Item,
    reader: &mut RecordReader<R>,
    writer: Option<&mut Sink<W>>,
    options: &WarcOptions<'_>,
    (summary, on_record): (&mut WarcSummary, &mut dyn FnMut(RecordReport)),
) -> Result<(), WarcError> {
    match stop {
        Item::Large(record) => {
            let copied = match writer {
                Some(writer) if record.raw_member => {
                    reader.copy_member_raw(&record, writer.writer()?)?
                }
                Some(writer) => writer.large(reader, &record)?,
                None => reader.copy_block(&record, &mut io::sink())?,
            };
            summary.add(large_done(record, copied, options), on_record);
        }
        Item::Unreadable {
            offset,
            held,
            reason,
        } => {
            summary.warn(Warning::new(
                WarningKind::Malformed,
                format_args!(
                    "gzip data at offset {offset} cannot be read ({reason}); \
                     the rest of the file is copied as it is"
                ),
            ));
            match writer {
                Some(writer) => writer.rest(&held, reader)?,
                None => {
                    reader.copy_rest(&mut io::sink())?;
                }
            }
        }
        _ => {}
    }
    Ok(())
}

/// The bytes of records an item holds.
fn item_len(item: Option<&Item>) -> usize {
    match item {
        Some(Item::Piece(piece) | Item::RawPiece { piece, .. }) => piece_len(piece),
        Some(Item::Member(member)) => member.pieces.iter().map(piece_len).sum(),
        _ => 0,
    }
}

fn piece_len(piece: &Piece) -> usize {
    match piece {
        Piece::Record(record) => record.len(),
        Piece::Junk(junk) => junk.bytes.len(),
    }
}

/// The records a held item holds, in order.
/// Where a record starts in its file, and whether the file is gzipped
/// (see [`placed`]).
type InFile = (u64, bool);

/// Whether the records of a held item start where their `offset` says in
/// the file, and whether the file is gzipped: in a plain file, yes; in a
/// gzip member held whole that holds one record, at the member's start;
/// otherwise (a member streamed, several records in one) the reader knows
/// only where they lie in the decompressed bytes, and `None`.
fn placed(held: &Held, plain: bool) -> Option<bool> {
    match held {
        Held::Piece(Piece::Record(_)) if plain => Some(false),
        Held::Member(member) if !plain && held_records(held).len() == 1 => {
            matches!(member.pieces.first(), Some(Piece::Record(_))).then_some(true)
        }
        _ => None,
    }
}

fn held_records(held: &Held) -> Vec<&Record> {
    let pieces: &[Piece] = match held {
        Held::Piece(piece) | Held::RawPiece { piece, .. } => std::slice::from_ref(piece),
        Held::Member(member) => &member.pieces,
        Held::MemberStart | Held::MemberEnd(_) | Held::RawMemberEnd(_) => &[],
    };
    pieces
        .iter()
        .filter_map(|piece| match piece {
            Piece::Record(record) => Some(record),
            Piece::Junk(_) => None,
        })
        .collect()
}

/// Writes one held item and reports its records, taking their results
/// from `done` in order.
fn write_held<W: Write>(
    held: Held,
    done: &mut impl Iterator<Item = Done>,
    (sink, rows): (Option<&mut Sink<W>>, Option<Rows<'_>>),
    summary: &mut WarcSummary,
    on_record: &mut dyn FnMut(RecordReport),
) -> Result<(), WarcError> {
    let pieces: &[Piece] = match &held {
        Held::Piece(piece) | Held::RawPiece { piece, .. } => std::slice::from_ref(piece),
        Held::Member(member) => &member.pieces,
        Held::MemberStart | Held::MemberEnd(_) | Held::RawMemberEnd(_) => &[],
    };
    let raw = match &held {
        Held::RawPiece { why, .. } => Some(*why),
        _ => None,
    };
    let mut results = Vec::with_capacity(pieces.len());
    for piece in pieces {
        match piece {
            Piece::Record(_) => {
                let ((mut report, new), held) = done.next().unwrap_or_default();
                if let Some(rows) = rows {
                    for row in held.take() {
                        rows.0.row(row);
                    }
                }
                if let Some(why) = raw {
                    copied_with_its_member(&mut report, why);
                }
                results.push(new);
                summary.add(report, on_record);
            }
            Piece::Junk(junk) => {
                results.push(None);
                if let Some(warning) = &junk.warning {
                    summary.warn(Warning::new(
                        WarningKind::Malformed,
                        format_args!(
                            "{} bytes at offset {}: {warning}",
                            junk.bytes.len(),
                            junk.offset
                        ),
                    ));
                }
            }
        }
    }
    let Some(sink) = sink else {
        return Ok(());
    };
    match held {
        Held::Piece(piece) => sink.piece(&piece, results[0].as_ref()),
        Held::Member(member) => sink.member(&member, &results),
        Held::MemberStart => sink.open(),
        Held::MemberEnd(original) => sink.close(original),
        Held::RawPiece { compressed, .. } => sink.writer().and_then(|w| w.write_all(&compressed)),
        Held::RawMemberEnd(bytes) => sink.writer().and_then(|w| w.write_all(&bytes)),
    }
    .map_err(WarcError::Io)
}

/// A record of a gzip member copied as it was (it shares the member with a
/// record too large to hold, or the member cannot be read to its end): the
/// record is not rewritten, and `why` says so when it would have been.
fn copied_with_its_member(report: &mut RecordReport, why: &str) {
    if report.changed {
        let kind = if why == record::SHARES_A_LARGE_MEMBER {
            WarningKind::TooLarge
        } else {
            WarningKind::Malformed
        };
        report.warn(kind, format_args!("{why}; copied as it is"));
    }
    report.changed = false;
    report.rewritten = 0;
    for link in &mut report.links {
        link.changed = false;
    }
}

impl WarcSummary {
    fn add(&mut self, report: RecordReport, on_record: &mut dyn FnMut(RecordReport)) {
        self.records += 1;
        self.changed += usize::from(report.changed);
        self.warnings.extend(report.warnings.iter().cloned());
        on_record(report);
    }

    /// A warning about bytes that belong to no record.
    fn warn(&mut self, warning: Warning) {
        self.warnings.push(warning);
    }
}

/// The report of a record too large to hold, once its block was copied.
/// When the input ended inside the block and what it held was kept, the
/// record is read as one cut short is: its links listed, never rewritten.
fn large_done(
    record: LargeRecord,
    copied: record::Copied,
    options: &WarcOptions<'_>,
) -> RecordReport {
    if let Some(block) = copied.held {
        let bad = format!(
            "the input ends {} bytes into its block of {}",
            block.len(),
            record.length
        );
        let cut = Record {
            number: record.number,
            offset: record.offset,
            format: record.format,
            lead: record.lead,
            head: record.head,
            block,
            trailer: Vec::new(),
            bad: Some(bad),
        };
        return process(&cut, options, false, (options.document.rows, false), None).0;
    }
    let mut report = large_report(&record, options);
    if copied.bad {
        report.warn(
            WarningKind::Malformed,
            "what follows its block is no record boundary: its length is wrong, or \
             stray bytes follow (the bytes up to the next record follow it); copied as it is",
        );
    }
    let copied = copied.block;
    if copied < record.length {
        // Read as warcio reads it: the block runs to the end.
        report.warn(
            WarningKind::Malformed,
            format_args!(
                "the input ends {copied} bytes into its block of {}; copied as it is",
                record.length
            ),
        );
    }
    report
}

/// The report of a record too large to hold: a warning when its payload
/// would have been looked at.
fn large_report(record: &LargeRecord, options: &WarcOptions<'_>) -> RecordReport {
    let mut report = match record.format {
        Format::Warc => RecordReport {
            number: record.number,
            record_type: http::field(&record.head, "WARC-Type").unwrap_or_default(),
            record_id: http::field(&record.head, "WARC-Record-ID").unwrap_or_default(),
            target_uri: payload::target_uri(&record.head),
            ..RecordReport::default()
        },
        Format::Arc => RecordReport {
            number: record.number,
            record_type: arc::record_type(&record.head).to_owned(),
            target_uri: arc::url(&record.head),
            ..RecordReport::default()
        },
    };
    let kind = report.record_type.to_ascii_lowercase();
    if kind == "response" || kind == "resource" {
        report.warn(
            WarningKind::TooLarge,
            format_args!(
                "block of {} bytes passes the limit of {} bytes; copied as it is",
                record.length, options.max_payload_bytes
            ),
        );
    }
    report
}

/// Writes a record: as it was read, or with its new head (for ARC the
/// header line with its new length) and block.
fn write_record(w: &mut dyn Write, record: &Record, new: Option<&NewRecord>) -> io::Result<()> {
    match new {
        Some(new) => {
            w.write_all(&record.lead)?;
            w.write_all(&new.head)?;
            new.block
                .each_piece(&record.block, |piece| w.write_all(piece))?;
            w.write_all(&record.trailer)
        }
        None => record.parts().iter().try_for_each(|part| w.write_all(part)),
    }
}

/// Where records are written: plain, or in gzip members that match the
/// input's one to one.
enum Sink<W: Write> {
    Plain(W),
    /// Between members; the compressor of members held whole.
    Members(W, Box<Deflater>),
    /// Inside a member being streamed: compressed again into a spool
    /// (`Tap`), written out when the member ends, or as soon as a record in
    /// it changed; the input's bytes are written instead when nothing did.
    Open {
        encoder: Box<GzEncoder<Tap<W>>>,
        changed: bool,
        deflater: Box<Deflater>,
    },
    /// After an error while switching.
    Gone,
}

/// Where a member compressed again goes: held in a spool while it may
/// still be written as it was read, then straight to `out`.
struct Tap<W: Write> {
    out: W,
    held: Option<Spool>,
}

impl<W: Write> Tap<W> {
    /// From now on the member compressed again is written: what is held
    /// goes out first.
    fn release(&mut self) -> io::Result<()> {
        match self.held.take() {
            Some(held) => held.copy_to(&mut self.out),
            None => Ok(()),
        }
    }
}

impl<W: Write> Write for Tap<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match &mut self.held {
            Some(held) => held.write(buf),
            None => self.out.write(buf),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match &mut self.held {
            Some(_) => Ok(()),
            None => self.out.flush(),
        }
    }
}

fn level() -> flate2::Compression {
    flate2::Compression::default()
}

impl<W: Write> Sink<W> {
    fn new(output: W, gzip: bool) -> Self {
        if gzip {
            Sink::Members(output, Box::default())
        } else {
            Sink::Plain(output)
        }
    }

    fn writer(&mut self) -> io::Result<&mut dyn Write> {
        match self {
            Sink::Plain(w) | Sink::Members(w, _) => Ok(w),
            Sink::Open { encoder, .. } => Ok(encoder),
            Sink::Gone => Err(io::Error::other("output lost after an error")),
        }
    }

    /// A piece outside a held member: in a member being streamed, or in a
    /// plain file.
    fn piece(&mut self, piece: &Piece, new: Option<&NewRecord>) -> io::Result<()> {
        if let (
            Sink::Open {
                encoder, changed, ..
            },
            Some(_),
        ) = (&mut *self, new)
        {
            *changed = true;
            encoder.get_mut().release()?;
        }
        let w = self.writer()?;
        match piece {
            Piece::Record(record) => write_record(w, record, new),
            Piece::Junk(junk) => w.write_all(&junk.bytes),
        }
    }

    /// A member held whole: as it was read when nothing in it changed,
    /// else compressed again, in one member.
    fn member(&mut self, member: &Member, new: &[Option<NewRecord>]) -> io::Result<()> {
        if let (Some(bytes), true) = (&member.bytes, new.iter().all(Option::is_none)) {
            return self.writer()?.write_all(bytes);
        }
        let pieces = |encoder: &mut dyn Write| {
            for (piece, new) in member.pieces.iter().zip(new) {
                match piece {
                    Piece::Record(record) => write_record(encoder, record, new.as_ref())?,
                    Piece::Junk(junk) => encoder.write_all(&junk.bytes)?,
                }
            }
            Ok(())
        };
        // Compressed again at the level its header names.
        let level = member.bytes.as_deref().map_or_else(level, |bytes| {
            crate::compressed::Header::read(bytes).level()
        });
        match self {
            Sink::Members(w, deflater) => deflater.whole_member(w, level, pieces),
            _ => {
                let mut encoder = GzEncoder::new(self.writer()?, level);
                pieces(&mut encoder)?;
                encoder.finish().map(drop)
            }
        }
    }

    /// A streamed member begins.
    fn open(&mut self) -> io::Result<()> {
        *self = match std::mem::replace(self, Sink::Gone) {
            Sink::Members(out, deflater) => Sink::Open {
                encoder: Box::new(GzEncoder::new(
                    Tap {
                        out,
                        held: Some(Spool::default()),
                    },
                    level(),
                )),
                changed: false,
                deflater,
            },
            other => other,
        };
        Ok(())
    }

    /// A streamed member ends: the input's bytes of it (`original`) when
    /// nothing in it changed and they were kept whole, else the member
    /// compressed again.
    fn close(&mut self, original: Option<Spool>) -> io::Result<()> {
        *self = match std::mem::replace(self, Sink::Gone) {
            Sink::Open {
                encoder,
                changed,
                deflater,
            } => {
                let Tap { mut out, held } = (*encoder).finish()?;
                match (original.filter(|o| !changed && o.whole()), held) {
                    (Some(original), _) => original.copy_to(&mut out)?,
                    (None, Some(held)) => held.copy_to(&mut out)?,
                    (None, None) => {}
                }
                Sink::Members(out, deflater)
            }
            other => other,
        };
        Ok(())
    }

    /// Copies a record too large to hold, its block streamed; what was
    /// copied of its block.
    fn large<R: BufRead>(
        &mut self,
        reader: &mut RecordReader<R>,
        record: &LargeRecord,
    ) -> Result<record::Copied, WarcError> {
        let w = self.writer()?;
        w.write_all(&record.lead)?;
        w.write_all(&record.head)?;
        let copied = reader.copy_block(record, w)?;
        w.write_all(&copied.trailer)?;
        Ok(copied)
    }

    /// What could not be read: the bytes held of it, then the rest of the
    /// input, as they are.
    fn rest<R: BufRead>(
        &mut self,
        held: &[u8],
        reader: &mut RecordReader<R>,
    ) -> Result<(), WarcError> {
        self.close(None)?;
        let w = self.writer()?;
        w.write_all(held)?;
        reader.copy_rest(w)?;
        Ok(())
    }

    fn finish(self) -> io::Result<()> {
        match self {
            Sink::Plain(mut w) | Sink::Members(mut w, _) => w.flush(),
            Sink::Open { encoder, .. } => {
                let Tap { mut out, held } = (*encoder).finish()?;
                if let Some(held) = held {
                    held.copy_to(&mut out)?;
                }
                out.flush()
            }
            Sink::Gone => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_worker_takes_one_record_a_batch_and_more_take_a_few_each() {
        assert_eq!(batch_limits(1).0, 1);
        assert_eq!(batch_limits(0).0, 1);
        assert_eq!(batch_limits(2), (8, 8 << 20));
        // The bytes never pass the cap, however many workers.
        assert_eq!(batch_limits(64).1, BATCH_BYTES);
        assert_eq!(batch_limits(usize::MAX).1, BATCH_BYTES);
    }

    #[test]
    fn warc_is_told_by_its_version_line_gzipped_or_not() {
        assert!(looks_like_warc(b"WARC/1.0\r\nWARC-Type: warcinfo\r\n"));
        assert!(looks_like_warc(b"WARC/1.1\r\n"));
        assert!(!looks_like_warc(b"<html>"));
        assert!(!looks_like_warc(b"WARCS are files"));
        assert!(!looks_like_warc(b"warc/1.0\r\n"));
        let mut gz = GzEncoder::new(Vec::new(), level());
        gz.write_all(b"WARC/1.1\r\nWARC-Type: warcinfo\r\n")
            .unwrap();
        let gz = gz.finish().unwrap();
        assert!(looks_like_warc(&gz));
        // A head cut short still shows the version line.
        assert!(looks_like_warc(&gz[..gz.len() - 10]));
        let mut other = GzEncoder::new(Vec::new(), level());
        other.write_all(b"<html>").unwrap();
        assert!(!looks_like_warc(&other.finish().unwrap()));
    }

    #[test]
    fn an_archive_after_junk_is_found_where_the_reader_finds_it() {
        let head = b"WARC/1.0\r\nWARC-Type: response\r\nContent-Length: 0\r\n\r\n";
        let after = |junk: &[u8]| [junk, &head[..]].concat();
        // At the start, whatever the name: a byte order mark, NUL bytes, one
        // stray line.
        for junk in [
            &b"\xef\xbb\xbf"[..],
            b"\0\0\0\0",
            b"\xef\xbb\xbf\0 \r\n",
            b"a stray line\n",
            b"\0\0garbage\0\r\n",
        ] {
            assert!(looks_like_warc(&after(junk)), "{junk:?}");
            let mut gz = GzEncoder::new(Vec::new(), level());
            gz.write_all(&after(junk)).unwrap();
            assert!(looks_like_warc(&gz.finish().unwrap()), "gzip {junk:?}");
        }
        // Past any junk, where the name gives no kind.
        let lines: Vec<u8> = (0..5000)
            .flat_map(|i| format!("line {i}\n").into_bytes())
            .collect();
        assert!(!looks_like_warc(&after(&lines)));
        assert!(looks_like_warc_past_junk(&after(&lines)));
        let arc = b"junk\njunk\nfiledesc://x.arc 0.0.0.0 20140216050221 text/plain 75\n";
        assert_eq!(archive_format_past_junk(arc), Some(ArchiveFormat::Arc));
        // Past the bytes looked through, none is found.
        let far = vec![b'x'; SNIFF_BYTES];
        assert!(!looks_like_warc_past_junk(&after(
            &[&far[..], b"\n"].concat()
        )));
        // Text that names WARC, or a version line with no header after it,
        // is no record.
        for text in [
            &b"<p>notes\nWARC/1.0 is a format\nmore\n"[..],
            b"notes\nWARC/1.1\n\nthe end\n",
            b"notes\n  WARC/ files\nName: x\n",
            b"notes\nfiledesc:// too few\n",
        ] {
            assert!(!looks_like_warc_past_junk(text), "{text:?}");
        }
    }

    #[test]
    fn every_version_arc_and_leading_white_space_are_archives() {
        for head in [
            &b"WARC/0.17\r\nWARC-Type: warcinfo\r\n"[..],
            b"WARC/0.18\r\n",
            b"WARC/2.0\r\n",
            b"\r\n\r\nWARC/1.0\r\n",
            b"  \nWARC/1.1\r\n",
            b"filedesc://x.arc 0.0.0.0 20140216050221 text/plain 75\n",
        ] {
            assert!(looks_like_warc(head), "{:?}", String::from_utf8_lossy(head));
        }
        assert_eq!(
            archive_format(b"filedesc://a.arc 1 2 text/plain 0\n"),
            Some(ArchiveFormat::Arc)
        );
        // zstd is no format relink reads, but it may hide one.
        assert_eq!(
            archive_format(&[0x28, 0xb5, 0x2f, 0xfd, 0, 0]),
            Some(ArchiveFormat::Zstd)
        );
        assert!(!looks_like_warc(&[0x28, 0xb5, 0x2f, 0xfd, 0, 0]));
        // A first gzip member of white space only, then the record.
        let member = |bytes: &[u8]| {
            let mut gz = GzEncoder::new(Vec::new(), level());
            gz.write_all(bytes).unwrap();
            gz.finish().unwrap()
        };
        let file = [member(b"\r\n"), member(b"WARC/1.0\r\n\r\n")].concat();
        assert!(looks_like_warc(&file));
        assert!(looks_like_warc(&member(b"filedesc://a 1 2 text/plain 0\n")));
    }
}
