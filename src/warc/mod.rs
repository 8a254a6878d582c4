//! Web archives (WARC, ISO 28500): every HTML and CSS payload of the
//! `response` and `resource` records rewritten against its own base, the
//! rest of the file kept.
//!
//! A file is read as a stream, a bounded batch of records at a time; the
//! batch is worked on in parallel and written out in order, so memory is
//! bounded by the batch and the largest payload, never by the file. A
//! `response` record's HTTP message has its `chunked` transfer coding and
//! its content codings (`gzip`, `deflate`, `br`) undone to reach the
//! payload, and redone over the new one; the record's lengths and SHA-1
//! digests are made right again. An unchanged record is written back byte
//! for byte, its gzip member as it was read.
//!
//! The base of a payload, innermost first (RFC 1808 section 3): the HTML
//! BASE element; then, under the RFC rules, the HTTP `Content-Base` and
//! `Content-Location` (RFC 2068 sections 14.11 and 14.15, RFC 2616 section
//! 14.14), a relative one resolved against the target URI; then
//! `WARC-Target-URI`. Under the WHATWG rules the HTTP headers give no
//! base, as in browsers (RFC 7231 appendix B).
//!
//! ```
//! use relink::warc::{self, WarcOptions};
//! let page = b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n<a href=b>b</a>";
//! let record = format!(
//!     "WARC/1.1\r\nWARC-Type: response\r\nWARC-Target-URI: http://a/x/\r\n\
//!      Content-Type: application/http; msgtype=response\r\nContent-Length: {}\r\n\r\n",
//!     page.len()
//! );
//! let input = [record.as_bytes(), page, b"\r\n\r\n"].concat();
//! let mut found = Vec::new();
//! warc::links(&input[..], &WarcOptions::default(), |link| found.push(link))?;
//! assert_eq!(found[0].link.resolved, "http://a/x/b");
//! assert_eq!(found[0].target_uri, "http://a/x/");
//! # Ok::<(), relink::warc::WarcError>(())
//! ```

mod digest;
mod http;
mod payload;
mod record;
pub mod wacz;

use std::fmt;
use std::io::{self, BufRead, Read, Write};

use flate2::write::GzEncoder;
use rayon::prelude::*;

pub use payload::HTTP_BASE_HEADERS;
pub use record::{Compression, MAX_HEAD_BYTES};

use crate::base::Layer;
use crate::core::{Documents, Link, Options, Warning, WarningKind};
use payload::NewRecord;
use record::{Item, LargeRecord, Record, RecordReader};

/// The largest payload relink decodes and rewrites, by default; a larger
/// one (or one that decodes past it) is copied as it is, with a warning.
pub const MAX_PAYLOAD_BYTES: usize = 256 << 20;

/// How many bytes of records are read before a batch is worked on.
pub const BATCH_BYTES: usize = 32 << 20;

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
}

impl<'a> WarcOptions<'a> {
    /// The default options, payloads rewritten by `documents`.
    pub fn new(documents: &'a dyn Documents) -> Self {
        WarcOptions {
            document: Options::default(),
            max_payload_bytes: MAX_PAYLOAD_BYTES,
            documents,
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

impl From<WarcError> for crate::Error {
    fn from(err: WarcError) -> Self {
        match err {
            WarcError::Io(err) => crate::Error::Io(err),
            WarcError::Malformed { record, reason } => {
                crate::Error::MalformedRecord { record, reason }
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
    /// Every link of the payload (none when only counts were asked).
    pub links: Vec<Link>,
    /// How many links were rewritten.
    pub rewritten: usize,
    /// What could not be done, each naming the record.
    pub warnings: Vec<Warning>,
    /// Whether the record changed.
    pub changed: bool,
}

impl RecordReport {
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

/// One link of a WARC file, with the record it is in.
#[derive(Debug, Clone)]
pub struct WarcLink {
    /// The record's number, from 1.
    pub record: usize,
    /// The record's `WARC-Target-URI`.
    pub target_uri: String,
    /// The record's `WARC-Record-ID`.
    pub record_id: String,
    /// The link.
    pub link: Link,
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

/// Whether the start of a file is a WARC record, plain or gzipped (the
/// version line `WARC/1.0` or `WARC/1.1`, after gunzip). A gzipped head
/// needs a few hundred bytes (a deflate block's code tables come first);
/// 4 KiB is plenty.
pub fn looks_like_warc(head: &[u8]) -> bool {
    let version = |bytes: &[u8]| bytes.starts_with(b"WARC/1.0") || bytes.starts_with(b"WARC/1.1");
    if !head.starts_with(&[0x1f, 0x8b]) {
        return version(head);
    }
    let mut decoder = flate2::read::GzDecoder::new(head);
    let mut out = [0u8; 8];
    let mut filled = 0;
    while filled < out.len() {
        match decoder.read(&mut out[filled..]) {
            Ok(0) | Err(_) => break,
            Ok(n) => filled += n,
        }
    }
    version(&out[..filled])
}

/// Rewrites a WARC file from `input` to `output`.
pub fn rewrite<R: BufRead, W: Write>(
    input: R,
    output: W,
    options: &WarcOptions<'_>,
) -> Result<WarcSummary, WarcError> {
    run(input, Some(output), options, &mut |_| {})
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

/// Calls `on_link` for every link of a WARC file, in order, and writes
/// nothing.
pub fn links<R: BufRead>(
    input: R,
    options: &WarcOptions<'_>,
    mut on_link: impl FnMut(WarcLink),
) -> Result<WarcSummary, WarcError> {
    inspect(input, options, |report| {
        for link in report.links {
            on_link(WarcLink {
                record: report.number,
                target_uri: report.target_uri.clone(),
                record_id: report.record_id.clone(),
                link,
            });
        }
    })
}

fn run<R: BufRead, W: Write>(
    input: R,
    mut output: Option<W>,
    options: &WarcOptions<'_>,
    on_record: &mut dyn FnMut(RecordReport),
) -> Result<WarcSummary, WarcError> {
    let write = output.is_some();
    let large = u64::try_from(options.max_payload_bytes).unwrap_or(u64::MAX);
    let mut reader = RecordReader::new(input, large, write)?;
    let mut sink = None;
    let mut summary = WarcSummary::default();
    loop {
        let mut batch = Vec::new();
        let mut size = 0;
        let mut large = None;
        while size < BATCH_BYTES {
            match reader.next_item()? {
                None => break,
                Some(Item::Record(record)) => {
                    size += record.len();
                    batch.push(record);
                }
                Some(Item::Large(record)) => {
                    large = Some(record);
                    break;
                }
            }
        }
        if batch.is_empty() && large.is_none() {
            break;
        }
        if let Some(w) = output.take() {
            sink = Some(Sink::new(w, reader.compression()));
        }
        let done: Vec<(Record, RecordReport, Option<NewRecord>)> = batch
            .into_par_iter()
            .map(|record| {
                let (report, new) = payload::process(&record, options, write);
                (record, report, new)
            })
            .collect();
        for (record, report, new) in done {
            if let Some(sink) = &mut sink {
                sink.record(&record, new.as_ref())?;
            }
            summary.add(report, on_record);
        }
        if let Some(record) = large {
            let report = large_report(&record, options);
            match &mut sink {
                Some(sink) => sink.large(&mut reader, &record)?,
                None => {
                    reader.copy_block(&record, &mut io::sink())?;
                }
            }
            summary.add(report, on_record);
        }
    }
    if let Some(sink) = sink {
        sink.finish()?;
    }
    summary.compression = reader.compression();
    Ok(summary)
}

impl WarcSummary {
    fn add(&mut self, report: RecordReport, on_record: &mut dyn FnMut(RecordReport)) {
        self.records += 1;
        self.changed += usize::from(report.changed);
        self.warnings.extend(report.warnings.iter().cloned());
        on_record(report);
    }
}

/// The report of a record too large to hold: a warning when its payload
/// would have been looked at.
fn large_report(record: &LargeRecord, options: &WarcOptions<'_>) -> RecordReport {
    let mut report = RecordReport {
        number: record.number,
        record_type: http::field(&record.head, "WARC-Type").unwrap_or_default(),
        record_id: http::field(&record.head, "WARC-Record-ID").unwrap_or_default(),
        target_uri: payload::target_uri(&record.head),
        ..RecordReport::default()
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

/// Where records are written, compressed as the input was.
enum Sink<W: Write> {
    Plain(W),
    Members(W),
    Stream(GzEncoder<W>),
}

fn level() -> flate2::Compression {
    flate2::Compression::default()
}

impl<W: Write> Sink<W> {
    fn new(output: W, compression: Compression) -> Self {
        match compression {
            Compression::None => Sink::Plain(output),
            Compression::Members => Sink::Members(output),
            Compression::Stream => Sink::Stream(GzEncoder::new(output, level())),
        }
    }

    fn record(&mut self, record: &Record, new: Option<&NewRecord>) -> io::Result<()> {
        let (head, block) = match new {
            Some(new) => (&new.head, &new.block),
            None => (&record.head, &record.block),
        };
        let parts = [&record.lead[..], head, block, &record.trailer];
        match self {
            Sink::Members(w) => match (&record.member, new) {
                (Some(member), None) => w.write_all(member),
                _ => {
                    let mut member = GzEncoder::new(&mut *w, level());
                    parts.iter().try_for_each(|p| member.write_all(p))?;
                    member.finish().map(drop)
                }
            },
            Sink::Plain(w) => parts.iter().try_for_each(|p| w.write_all(p)),
            Sink::Stream(w) => parts.iter().try_for_each(|p| w.write_all(p)),
        }
    }

    /// Copies a record too large to hold, its block streamed.
    fn large<R: BufRead>(
        &mut self,
        reader: &mut RecordReader<R>,
        record: &LargeRecord,
    ) -> Result<(), WarcError> {
        let mut copy = |w: &mut dyn Write| -> Result<(), WarcError> {
            w.write_all(&record.lead)?;
            w.write_all(&record.head)?;
            let trailer = reader.copy_block(record, w)?;
            w.write_all(&trailer)?;
            Ok(())
        };
        match self {
            Sink::Members(w) => {
                let mut member = GzEncoder::new(&mut *w, level());
                copy(&mut member)?;
                member.finish()?;
                Ok(())
            }
            Sink::Plain(w) => copy(w),
            Sink::Stream(w) => copy(w),
        }
    }

    fn finish(self) -> io::Result<()> {
        match self {
            Sink::Plain(mut w) | Sink::Members(mut w) => w.flush(),
            Sink::Stream(w) => w.finish()?.flush(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn warc_is_told_by_its_version_line_gzipped_or_not() {
        assert!(looks_like_warc(b"WARC/1.0\r\nWARC-Type: warcinfo\r\n"));
        assert!(looks_like_warc(b"WARC/1.1\r\n"));
        assert!(!looks_like_warc(b"WARC/2.0\r\n"));
        assert!(!looks_like_warc(b"<html>"));
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
}
