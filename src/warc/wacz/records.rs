//! Where each record lies in a WARC entry, before and after its rewrite:
//! what an index's `offset` and `length` point at.

use std::io::{self, BufRead, BufReader, Read};

use crate::warc::MAX_HEAD_BYTES;

/// Where one record lies in a WARC file, with its payload digest.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Member {
    pub(super) start: u64,
    pub(super) end: u64,
    pub(super) payload_digest: Option<String>,
    /// The record's `Content-Length` and `WARC-Block-Digest`: whether it
    /// changed, when it has no payload digest to tell.
    pub(super) block: (Option<String>, Option<String>),
}

/// The records of a WARC before and after its rewrite, found when an index
/// first needs them.
pub(super) struct ArchiveMap {
    pub(super) gzipped: bool,
    pub(super) input: Option<Vec<Member>>,
    pub(super) output: Option<Vec<Member>>,
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
pub(super) fn gzip_members(input: impl Read) -> io::Result<Vec<Member>> {
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
pub(super) fn plain_records(input: impl Read) -> io::Result<Vec<Member>> {
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

pub(super) fn scan(input: impl Read, gzipped: bool) -> io::Result<Vec<Member>> {
    if gzipped {
        gzip_members(input)
    } else {
        plain_records(input)
    }
}

/// Where an index's record went: its new place, and its payload digests
/// before and after.
pub(super) struct Moved {
    pub(super) offset: u64,
    pub(super) length: u64,
    pub(super) old_digest: Option<String>,
    pub(super) new_digest: Option<String>,
    /// Whether the record changed though neither has a payload digest.
    pub(super) undigested_change: bool,
}

impl ArchiveMap {
    /// The new place of the record at `offset`, `length` bytes long, in
    /// the old file.
    pub(super) fn locate(&self, offset: u64, length: u64) -> Result<Moved, String> {
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

#[cfg(test)]
mod tests {
    use std::io::Write;

    use flate2::write::GzEncoder;

    use super::*;

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
