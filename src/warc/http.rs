//! The HTTP message in a `response` record: its head, its header fields,
//! and the codings between the message body and the payload
//! (RFC 9112 section 7 for `Transfer-Encoding: chunked`, RFC 9110 section
//! 8.4 for `Content-Encoding`). Each decoding stops at a size limit, so a
//! small body that inflates without end is refused, not held.

use std::io::{self, Read, Write};

use flate2::Compression as Level;

/// A header field's value: the first field of that name in a head (the
/// start line skipped), trimmed. Works for WARC and HTTP heads alike.
pub(crate) fn field(head: &[u8], name: &str) -> Option<String> {
    fields(head, name).next()
}

/// Every value of the fields named `name`, in order.
pub(crate) fn fields<'a>(head: &'a [u8], name: &'a str) -> impl Iterator<Item = String> + 'a {
    lines(head).skip(1).filter_map(move |line| {
        let (key, value) = split_field(line)?;
        key.eq_ignore_ascii_case(name.as_bytes())
            .then(|| String::from_utf8_lossy(value.trim_ascii()).into_owned())
    })
}

/// `head` with the value of the first field named `name` replaced by
/// `value`, every other byte kept; `None` when there is no such field.
pub(crate) fn set_field(head: &[u8], name: &str, value: &str) -> Option<Vec<u8>> {
    let mut at = 0;
    for (n, line) in lines(head).enumerate() {
        let start = at;
        at += line.len();
        if n == 0 {
            continue;
        }
        let Some((key, raw)) = split_field(line) else {
            continue;
        };
        if !key.eq_ignore_ascii_case(name.as_bytes()) {
            continue;
        }
        // The value's bytes, between the colon's spaces and the line end.
        let raw_start = start + (raw.as_ptr() as usize - line.as_ptr() as usize);
        let lead = raw.len() - raw.trim_ascii_start().len();
        let from = raw_start + lead;
        let to = from + raw.trim_ascii().len();
        let mut out = Vec::with_capacity(head.len() + value.len());
        out.extend_from_slice(&head[..from]);
        out.extend_from_slice(value.as_bytes());
        out.extend_from_slice(&head[to..]);
        return Some(out);
    }
    None
}

/// The lines of a head, line ends included.
fn lines(head: &[u8]) -> impl Iterator<Item = &[u8]> {
    head.split_inclusive(|&b| b == b'\n')
}

/// A field line's name and raw value (line end included).
fn split_field(line: &[u8]) -> Option<(&[u8], &[u8])> {
    let colon = memchr::memchr(b':', line)?;
    let key = &line[..colon];
    // A continuation line, or the blank line, is no field.
    if key.is_empty() || key[0] == b' ' || key[0] == b'\t' {
        return None;
    }
    Some((key.trim_ascii(), &line[colon + 1..]))
}

/// The length of a head: up to and including its blank line (CRLF CRLF,
/// or LF LF as some servers send), or `None` when it has none.
pub(crate) fn head_len(bytes: &[u8]) -> Option<usize> {
    let crlf = memchr::memmem::find(bytes, b"\r\n\r\n").map(|i| i + 4);
    let lf = memchr::memmem::find(bytes, b"\n\n").map(|i| i + 2);
    match (crlf, lf) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

/// An HTTP response in a record's block.
#[derive(Debug)]
pub(crate) struct Response<'a> {
    /// The status line and header fields, blank line included.
    pub head: &'a [u8],
    /// The message body, as sent.
    pub body: &'a [u8],
}

impl<'a> Response<'a> {
    /// The response in `block`, if it holds one.
    pub fn parse(block: &'a [u8]) -> Option<Self> {
        if !block.starts_with(b"HTTP/") {
            return None;
        }
        let len = head_len(block).unwrap_or(block.len());
        Some(Response {
            head: &block[..len],
            body: &block[len..],
        })
    }

    /// A header field's value.
    pub fn field(&self, name: &str) -> Option<String> {
        field(self.head, name)
    }

    /// The list a field holds over all its lines, lower case.
    fn list(&self, name: &str) -> Vec<String> {
        fields(self.head, name)
            .flat_map(|v| {
                v.split(',')
                    .map(|s| s.trim().to_ascii_lowercase())
                    .filter(|s| !s.is_empty())
                    .collect::<Vec<_>>()
            })
            .collect()
    }
}

/// A content or transfer coding relink can undo and redo.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Coding {
    /// `gzip` or `x-gzip` (RFC 1952).
    Gzip,
    /// `deflate` as the RFC means it, the zlib format (RFC 1950).
    Zlib,
    /// `deflate` as some servers send it, a raw deflate stream (RFC 1951).
    RawDeflate,
    /// `br` (RFC 7932).
    Brotli,
}

/// How a body was coded: the transfer codings but `chunked`, whether it
/// was chunked (and the trailer section after its last chunk), and the
/// content codings, each in the order applied.
#[derive(Debug, Clone, Default)]
pub(crate) struct Codings {
    transfer: Vec<Coding>,
    /// The bytes after the last chunk's size line: trailer fields and the
    /// final line end.
    chunked: Option<Vec<u8>>,
    content: Vec<Coding>,
}

impl Codings {
    /// Whether the body was sent chunked.
    pub fn chunked(&self) -> bool {
        self.chunked.is_some()
    }
}

/// A decoded body: the payload, the body with only `chunked` undone (for
/// digests written over it), and the codings to redo.
#[derive(Debug)]
pub(crate) struct Decoded {
    pub payload: Vec<u8>,
    pub dechunked: Option<Vec<u8>>,
    pub codings: Codings,
}

/// Undoes the transfer and content codings of a response's body, each
/// step refused past `limit` bytes.
pub(crate) fn decode(response: &Response<'_>, limit: usize) -> Result<Decoded, String> {
    let mut codings = Codings::default();
    let names = |list: Vec<String>| -> Vec<String> {
        list.into_iter().filter(|n| n != "identity").collect()
    };
    let mut transfer = names(response.list("Transfer-Encoding"));
    let mut body = response.body.to_vec();
    let mut dechunked = None;
    if transfer.last().map(String::as_str) == Some("chunked") {
        transfer.pop();
        let (data, trailer) = dechunk(&body, limit)?;
        codings.chunked = Some(trailer);
        body = data;
        dechunked = Some(body.clone());
    }
    for name in transfer.iter().rev() {
        let (coding, data) = undo(name, &body, limit)?;
        codings.transfer.insert(0, coding);
        body = data;
    }
    for name in names(response.list("Content-Encoding")).iter().rev() {
        let (coding, data) = undo(name, &body, limit)?;
        codings.content.insert(0, coding);
        body = data;
    }
    Ok(Decoded {
        payload: body,
        dechunked,
        codings,
    })
}

/// Redoes the codings over a new payload: the new message body, and when
/// it is chunked, the body before `chunked`.
pub(crate) fn encode(payload: &[u8], codings: &Codings) -> io::Result<(Vec<u8>, Option<Vec<u8>>)> {
    let mut body = payload.to_vec();
    for &coding in codings.content.iter().chain(&codings.transfer) {
        body = redo(coding, &body)?;
    }
    Ok(match &codings.chunked {
        Some(trailer) => (chunk(&body, trailer), Some(body)),
        None => (body, None),
    })
}

fn undo(name: &str, data: &[u8], limit: usize) -> Result<(Coding, Vec<u8>), String> {
    let coding = match name {
        "gzip" | "x-gzip" => Coding::Gzip,
        "deflate" => {
            // The RFC's deflate is zlib; a raw stream is what some send.
            return match inflate(flate2::read::ZlibDecoder::new(data), limit) {
                Ok(out) => Ok((Coding::Zlib, out)),
                Err(_) => inflate(flate2::read::DeflateDecoder::new(data), limit)
                    .map(|out| (Coding::RawDeflate, out))
                    .map_err(|e| format!("deflate: {e}")),
            };
        }
        "br" => Coding::Brotli,
        other => return Err(format!("unknown coding {other:?}")),
    };
    let out = match coding {
        Coding::Gzip => inflate(flate2::read::MultiGzDecoder::new(data), limit),
        _ => inflate(brotli::Decompressor::new(data, 4096), limit),
    };
    out.map(|out| (coding, out))
        .map_err(|e| format!("{name}: {e}"))
}

/// Reads a decoder to its end, refusing more than `limit` bytes.
fn inflate(reader: impl Read, limit: usize) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    let cap = u64::try_from(limit).unwrap_or(u64::MAX).saturating_add(1);
    reader
        .take(cap)
        .read_to_end(&mut out)
        .map_err(|e| e.to_string())?;
    if out.len() > limit {
        return Err(format!("decodes past the limit of {limit} bytes"));
    }
    Ok(out)
}

fn redo(coding: Coding, data: &[u8]) -> io::Result<Vec<u8>> {
    let out = Vec::with_capacity(data.len() / 3 + 64);
    match coding {
        Coding::Gzip => {
            let mut w = flate2::write::GzEncoder::new(out, Level::default());
            w.write_all(data)?;
            w.finish()
        }
        Coding::Zlib => {
            let mut w = flate2::write::ZlibEncoder::new(out, Level::default());
            w.write_all(data)?;
            w.finish()
        }
        Coding::RawDeflate => {
            let mut w = flate2::write::DeflateEncoder::new(out, Level::default());
            w.write_all(data)?;
            w.finish()
        }
        Coding::Brotli => {
            let mut w = brotli::CompressorWriter::new(out, 4096, 9, 22);
            w.write_all(data)?;
            w.flush()?;
            Ok(w.into_inner())
        }
    }
}

/// Undoes `chunked`: the data, and the bytes after the last chunk's size
/// line (trailer fields and the final line end).
fn dechunk(body: &[u8], limit: usize) -> Result<(Vec<u8>, Vec<u8>), String> {
    let mut out = Vec::new();
    let mut at = 0;
    loop {
        let Some(end) = memchr::memchr(b'\n', &body[at..]).map(|i| at + i) else {
            return Err("chunked body ends inside a chunk size line".to_owned());
        };
        let line = &body[at..end];
        let size = line
            .split(|&b| b == b';')
            .next()
            .unwrap_or(b"")
            .trim_ascii();
        let size = std::str::from_utf8(size)
            .ok()
            .and_then(|s| usize::from_str_radix(s, 16).ok())
            .ok_or_else(|| {
                format!(
                    "bad chunk size {:?}",
                    String::from_utf8_lossy(line.trim_ascii())
                )
            })?;
        at = end + 1;
        if size == 0 {
            return Ok((out, body[at..].to_vec()));
        }
        let Some(data) = at.checked_add(size).and_then(|e| body.get(at..e)) else {
            return Err("chunked body ends inside a chunk".to_owned());
        };
        if out.len() + size > limit {
            return Err(format!("decodes past the limit of {limit} bytes"));
        }
        out.extend_from_slice(data);
        at += size;
        // The line end after the chunk's data.
        if body[at..].starts_with(b"\r\n") {
            at += 2;
        } else if body[at..].starts_with(b"\n") {
            at += 1;
        } else {
            return Err("chunk data not followed by a line end".to_owned());
        }
    }
}

/// `chunked` over `data`: one chunk, the last chunk, then `trailer`.
fn chunk(data: &[u8], trailer: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(data.len() + trailer.len() + 16);
    if !data.is_empty() {
        out.extend_from_slice(format!("{:x}\r\n", data.len()).as_bytes());
        out.extend_from_slice(data);
        out.extend_from_slice(b"\r\n");
    }
    out.extend_from_slice(b"0\r\n");
    out.extend_from_slice(trailer);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_are_found_and_replaced_in_place() {
        let head = b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\ncontent-length:  12 \r\n\r\n";
        assert_eq!(field(head, "Content-Length").as_deref(), Some("12"));
        let new = set_field(head, "Content-Length", "345").unwrap();
        assert_eq!(
            new,
            b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\ncontent-length:  345 \r\n\r\n"
        );
        assert_eq!(set_field(head, "Content-Base", "x"), None);
    }

    #[test]
    fn chunked_round_trip_keeps_the_trailer() {
        let body = b"4\r\nWiki\r\n5;x=y\r\npedia\r\n0\r\nExpires: never\r\n\r\n";
        let (data, trailer) = dechunk(body, 100).unwrap();
        assert_eq!(data, b"Wikipedia");
        assert_eq!(trailer, b"Expires: never\r\n\r\n");
        assert_eq!(
            chunk(b"Wiki", &trailer),
            b"4\r\nWiki\r\n0\r\nExpires: never\r\n\r\n"
        );
        assert!(dechunk(body, 5).is_err());
        assert!(dechunk(b"4\r\nWi", 100).is_err());
        assert!(dechunk(b"zz\r\n", 100).is_err());
    }

    #[test]
    fn codings_are_undone_and_redone() {
        for (name, coding) in [
            ("gzip", Coding::Gzip),
            ("deflate", Coding::Zlib),
            ("br", Coding::Brotli),
        ] {
            let data = b"<a href=x>x</a>".repeat(10);
            let coded = redo(coding, &data).unwrap();
            let (found, decoded) = undo(name, &coded, 1000).unwrap();
            assert_eq!((found, &decoded), (coding, &data), "{name}");
            assert!(undo(name, &coded, 100).is_err(), "{name}: limit");
        }
        let raw = redo(Coding::RawDeflate, b"abc").unwrap();
        assert_eq!(
            undo("deflate", &raw, 10).unwrap(),
            (Coding::RawDeflate, b"abc".to_vec())
        );
        assert!(undo("compress", b"", 10).is_err());
    }

    #[test]
    fn a_decompression_bomb_stops_at_the_limit() {
        let bomb = redo(Coding::Gzip, &vec![0u8; 10 << 20]).unwrap();
        assert!(bomb.len() < 20_000);
        let err = undo("gzip", &bomb, 1 << 20).unwrap_err();
        assert!(err.contains("limit"), "{err}");
    }
}
