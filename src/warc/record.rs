//! Reading WARC records (ISO 28500, WARC 1.0 and 1.1) one at a time, from
//! a plain file, a file of one gzip member per record (as crawlers write
//! them), or one gzip stream over the whole file. A record's compressed
//! member is kept as it was read, so an unchanged record is written back
//! byte for byte.

use std::io::{self, BufRead, BufReader, Read, Write};

use flate2::bufread::GzDecoder;

use super::WarcError;
use super::http;

/// The longest record head relink reads.
pub const MAX_HEAD_BYTES: usize = 1 << 20;

/// How a WARC file is compressed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum Compression {
    /// Not compressed.
    #[default]
    None,
    /// A gzip member per record.
    Members,
    /// One gzip stream over the whole file.
    Stream,
}

/// One record, read whole.
#[derive(Debug)]
pub(crate) struct Record {
    /// Its number in the file, from 1.
    pub number: usize,
    /// Line ends before its version line (at the start of a file).
    pub lead: Vec<u8>,
    /// The version line and header fields, blank line included.
    pub head: Vec<u8>,
    /// The content block, `Content-Length` bytes.
    pub block: Vec<u8>,
    /// The line ends after the block.
    pub trailer: Vec<u8>,
    /// The gzip member that held exactly this record, as read.
    pub member: Option<Vec<u8>>,
}

impl Record {
    /// How many bytes it holds.
    pub fn len(&self) -> usize {
        self.lead.len() + self.head.len() + self.block.len() + self.trailer.len()
    }
}

/// A record whose block passes the size limit: its block is streamed
/// through, never held.
#[derive(Debug)]
pub(crate) struct LargeRecord {
    pub number: usize,
    pub lead: Vec<u8>,
    pub head: Vec<u8>,
    pub length: u64,
}

/// What the reader gives next.
#[derive(Debug)]
pub(crate) enum Item {
    Record(Record),
    Large(LargeRecord),
}

/// A `BufRead` that keeps a copy of the bytes its reader consumes: the
/// compressed bytes of the current gzip member.
struct Tee<R> {
    inner: R,
    taken: Vec<u8>,
    keep: bool,
}

impl<R: BufRead> Read for Tee<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let available = self.fill_buf()?;
        let n = available.len().min(buf.len());
        buf[..n].copy_from_slice(&available[..n]);
        self.consume(n);
        Ok(n)
    }
}

impl<R: BufRead> BufRead for Tee<R> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        self.inner.fill_buf()
    }

    fn consume(&mut self, n: usize) {
        if self.keep {
            // The buffer is already filled: this reads nothing.
            if let Ok(buffer) = self.inner.fill_buf() {
                self.taken.extend_from_slice(&buffer[..n.min(buffer.len())]);
            }
        }
        self.inner.consume(n);
    }
}

type Member<R> = BufReader<GzDecoder<Tee<R>>>;

enum Source<R: BufRead> {
    Plain(R),
    Gzip {
        /// The member being read (boxed: its inflate state is large).
        member: Option<Box<Member<R>>>,
        /// The input between members.
        idle: Option<Tee<R>>,
        /// Whether a member held more than one record.
        stream: bool,
    },
}

/// Reads the records of a WARC file in order.
pub(crate) struct RecordReader<R: BufRead> {
    source: Source<R>,
    number: usize,
    large: u64,
    keep_members: bool,
}

impl<R: BufRead> RecordReader<R> {
    /// A reader of `input`, plain or gzipped (told by its first bytes).
    /// Blocks longer than `large` are streamed; with `keep_members`, each
    /// record's gzip member is kept for copying.
    pub fn new(mut input: R, large: u64, keep_members: bool) -> io::Result<Self> {
        let gzip = input.fill_buf()?.starts_with(&[0x1f, 0x8b]);
        let source = if gzip {
            Source::Gzip {
                member: None,
                idle: Some(Tee {
                    inner: input,
                    taken: Vec::new(),
                    keep: false,
                }),
                stream: false,
            }
        } else {
            Source::Plain(input)
        };
        Ok(RecordReader {
            source,
            number: 0,
            large,
            keep_members,
        })
    }

    /// How the input is compressed, as far as it has been read.
    pub fn compression(&self) -> Compression {
        match &self.source {
            Source::Plain(_) => Compression::None,
            Source::Gzip { stream: true, .. } => Compression::Stream,
            Source::Gzip { .. } => Compression::Members,
        }
    }

    /// The next record, or `None` at the end.
    pub fn next_item(&mut self) -> Result<Option<Item>, WarcError> {
        let number = self.number + 1;
        let large = self.large;
        let keep = self.keep_members;
        let item = match &mut self.source {
            Source::Plain(input) => read_item(input, number, large)?,
            Source::Gzip {
                member,
                idle,
                stream,
            } => loop {
                if member.is_none() {
                    let Some(mut tee) = idle.take() else {
                        return Ok(None);
                    };
                    if tee.fill_buf()?.is_empty() {
                        *idle = Some(tee);
                        return Ok(None);
                    }
                    tee.taken.clear();
                    tee.keep = keep;
                    *member = Some(Box::new(BufReader::with_capacity(
                        64 << 10,
                        GzDecoder::new(tee),
                    )));
                }
                let Some(current) = member.as_mut() else {
                    return Ok(None);
                };
                match read_item(current, number, large).map_err(|e| corrupt(e, number))? {
                    // A member with no record in it (or only line ends).
                    None => {
                        end_member(member, idle);
                    }
                    Some(Item::Record(mut record)) => {
                        if current
                            .fill_buf()
                            .map_err(|e| corrupt(e.into(), number))?
                            .is_empty()
                        {
                            let taken = end_member(member, idle);
                            if keep && !*stream {
                                record.member = Some(taken);
                            }
                        } else {
                            // More records follow in this member.
                            *stream = true;
                            let tee = current.get_mut().get_mut();
                            tee.keep = false;
                            tee.taken = Vec::new();
                        }
                        break Some(Item::Record(record));
                    }
                    Some(large) => {
                        let tee = current.get_mut().get_mut();
                        tee.keep = false;
                        tee.taken = Vec::new();
                        break Some(large);
                    }
                }
            },
        };
        if item.is_some() {
            self.number = number;
        }
        Ok(item)
    }

    /// Streams a large record's block into `sink`, then reads the line ends
    /// after it and returns them.
    pub fn copy_block(
        &mut self,
        record: &LargeRecord,
        sink: &mut dyn Write,
    ) -> Result<Vec<u8>, WarcError> {
        let number = record.number;
        match &mut self.source {
            Source::Plain(input) => copy_exactly(input, record.length, sink, number),
            Source::Gzip {
                member,
                idle,
                stream,
            } => {
                let Some(current) = member.as_mut() else {
                    return Err(truncated(number));
                };
                let trailer = copy_exactly(current, record.length, sink, number)
                    .map_err(|e| corrupt(e, number))?;
                if current
                    .fill_buf()
                    .map_err(|e| corrupt(e.into(), number))?
                    .is_empty()
                {
                    end_member(member, idle);
                } else {
                    *stream = true;
                }
                Ok(trailer)
            }
        }
    }
}

/// Closes the current member and returns its compressed bytes.
fn end_member<R: BufRead>(
    member: &mut Option<Box<Member<R>>>,
    idle: &mut Option<Tee<R>>,
) -> Vec<u8> {
    let Some(current) = member.take() else {
        return Vec::new();
    };
    let mut tee = (*current).into_inner().into_inner();
    let taken = std::mem::take(&mut tee.taken);
    *idle = Some(tee);
    taken
}

fn truncated(number: usize) -> WarcError {
    WarcError::Malformed {
        record: number,
        reason: "the file ends inside the record".to_owned(),
    }
}

/// A read error in a gzip member names the record it was in.
fn corrupt(err: WarcError, number: usize) -> WarcError {
    match err {
        WarcError::Io(e) if e.kind() == io::ErrorKind::UnexpectedEof => truncated(number),
        WarcError::Io(e) => WarcError::Malformed {
            record: number,
            reason: format!("gzip data cannot be read ({e})"),
        },
        other => other,
    }
}

fn copy_exactly<B: BufRead + ?Sized>(
    input: &mut B,
    length: u64,
    sink: &mut dyn Write,
    number: usize,
) -> Result<Vec<u8>, WarcError> {
    let copied = io::copy(&mut input.take(length), sink)?;
    if copied < length {
        return Err(truncated(number));
    }
    read_line_ends(input)
}

/// The line ends at the reader's position (the record's closing CRLF CRLF,
/// and any stray ones after it).
fn read_line_ends<B: BufRead + ?Sized>(input: &mut B) -> Result<Vec<u8>, WarcError> {
    let mut out = Vec::new();
    loop {
        let buffer = input.fill_buf()?;
        let n = buffer
            .iter()
            .take_while(|&&b| b == b'\r' || b == b'\n')
            .count();
        if n == 0 {
            return Ok(out);
        }
        out.extend_from_slice(&buffer[..n]);
        input.consume(n);
    }
}

/// Reads one record: line ends, the head, then the block (or only the
/// head, for a block past `large` bytes).
fn read_item<B: BufRead + ?Sized>(
    input: &mut B,
    number: usize,
    large: u64,
) -> Result<Option<Item>, WarcError> {
    let malformed = |reason: String| WarcError::Malformed {
        record: number,
        reason,
    };
    let lead = read_line_ends(input)?;
    if input.fill_buf()?.is_empty() {
        return Ok(None);
    }
    let mut head = Vec::new();
    loop {
        let before = head.len();
        let n = input
            .take((MAX_HEAD_BYTES + 1 - before) as u64)
            .read_until(b'\n', &mut head)?;
        if n == 0 {
            return Err(truncated(number));
        }
        if before == 0 && !head.starts_with(b"WARC/") {
            let line = String::from_utf8_lossy(&head[..head.len().min(40)]).into_owned();
            return Err(malformed(format!(
                "not a WARC record (it starts {:?})",
                line.trim_end()
            )));
        }
        if head.len() > MAX_HEAD_BYTES {
            return Err(malformed(format!(
                "record head longer than {MAX_HEAD_BYTES} bytes"
            )));
        }
        let line = &head[before..];
        if line == b"\r\n" || line == b"\n" {
            break;
        }
    }
    let length = http::field(&head, "Content-Length")
        .ok_or_else(|| malformed("no Content-Length".to_owned()))?;
    let length: u64 = length
        .parse()
        .map_err(|_| malformed(format!("bad Content-Length {length:?}")))?;
    if length > large {
        return Ok(Some(Item::Large(LargeRecord {
            number,
            lead,
            head,
            length,
        })));
    }
    let mut block = Vec::with_capacity(length.min(1 << 20) as usize);
    input.take(length).read_to_end(&mut block)?;
    if (block.len() as u64) < length {
        return Err(truncated(number));
    }
    let trailer = read_line_ends(input)?;
    Ok(Some(Item::Record(Record {
        number,
        lead,
        head,
        block,
        trailer,
        member: None,
    })))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(body: &str) -> Vec<u8> {
        format!(
            "WARC/1.0\r\nWARC-Type: resource\r\nContent-Length: {}\r\n\r\n{body}\r\n\r\n",
            body.len()
        )
        .into_bytes()
    }

    fn gzip(bytes: &[u8]) -> Vec<u8> {
        let mut w = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        w.write_all(bytes).unwrap();
        w.finish().unwrap()
    }

    fn read_all(input: &[u8]) -> (Vec<Record>, Compression) {
        let mut reader = RecordReader::new(input, 1 << 20, true).unwrap();
        let mut out = Vec::new();
        while let Some(item) = reader.next_item().unwrap() {
            match item {
                Item::Record(r) => out.push(r),
                Item::Large(_) => panic!("large"),
            }
        }
        (out, reader.compression())
    }

    #[test]
    fn members_are_kept_as_read() {
        let (a, b) = (gzip(&record("one")), gzip(&record("two")));
        let file = [a.clone(), b.clone()].concat();
        let (records, compression) = read_all(&file);
        assert_eq!(compression, Compression::Members);
        assert_eq!(records.len(), 2);
        assert_eq!(records[0].member.as_deref(), Some(&a[..]));
        assert_eq!(records[1].member.as_deref(), Some(&b[..]));
        assert_eq!(records[1].block, b"two");
        assert_eq!(records[1].trailer, b"\r\n\r\n");
    }

    #[test]
    fn one_stream_over_the_file_is_read_record_by_record() {
        let file = gzip(&[record("one"), record("two"), record("three")].concat());
        let (records, compression) = read_all(&file);
        assert_eq!(compression, Compression::Stream);
        let blocks: Vec<&[u8]> = records.iter().map(|r| &r.block[..]).collect();
        assert_eq!(blocks, [&b"one"[..], b"two", b"three"]);
        assert!(records.iter().all(|r| r.member.is_none()));
    }

    #[test]
    fn plain_records_and_large_blocks() {
        let file = [record("one"), record(&"x".repeat(100))].concat();
        let mut reader = RecordReader::new(&file[..], 50, false).unwrap();
        assert!(matches!(reader.next_item().unwrap(), Some(Item::Record(_))));
        let Some(Item::Large(large)) = reader.next_item().unwrap() else {
            panic!("not large")
        };
        assert_eq!(large.length, 100);
        let mut sink = Vec::new();
        assert_eq!(reader.copy_block(&large, &mut sink).unwrap(), b"\r\n\r\n");
        assert_eq!(sink, "x".repeat(100).as_bytes());
        assert!(reader.next_item().unwrap().is_none());
    }

    #[test]
    fn truncated_and_foreign_input_is_an_error() {
        let file = record("one");
        let cut = &file[..file.len() - 8];
        let mut reader = RecordReader::new(cut, 1 << 20, false).unwrap();
        let err = reader.next_item().unwrap_err().to_string();
        assert!(err.contains("record 1"), "{err}");
        let mut reader = RecordReader::new(&b"<html>"[..], 1 << 20, false).unwrap();
        assert!(reader.next_item().is_err());
    }
}
