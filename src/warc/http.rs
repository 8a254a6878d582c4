//! The HTTP message in a `response` record: its head, its header fields,
//! the URLs its header fields hold, and the codings between the message
//! body and the payload (RFC 9112 section 7 for `Transfer-Encoding:
//! chunked`, RFC 9110 section 8.4 for `Content-Encoding`). Each decoding
//! stops at a size limit, so a small body that inflates without end is
//! refused, not held. A coding that does not decode is read as identity,
//! as warcio reads it; one that breaks off is read as far as it goes.

use std::borrow::Cow;
use std::io::{self, Read, Write};
use std::ops::Range;

use flate2::Compression as Level;

use crate::links::WarningKind;
use crate::refresh;

/// Whether a line continues the field before it (RFC 5322 section 2.2.3,
/// RFC 7230 section 3.2.4's obs-fold): it starts with SP or HT.
fn is_continuation(line: &[u8]) -> bool {
    matches!(line.first(), Some(b' ' | b'\t'))
}

/// The bytes of a line without its line end (LF or CRLF).
fn without_eol(line: &[u8]) -> &[u8] {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    line.strip_suffix(b"\r").unwrap_or(line)
}

/// The header fields of a head (the start line skipped, up to the blank
/// line): each field's name as written, and the range in `head` of its raw
/// value, from after the colon to the end of its last continuation line
/// (line end excluded). Works for WARC and HTTP heads alike.
pub(crate) fn field_spans(head: &[u8]) -> impl Iterator<Item = (&[u8], Range<usize>)> {
    let mut lines = line_starts(head).skip(1).peekable();
    std::iter::from_fn(move || {
        loop {
            let (start, line) = lines.next()?;
            if without_eol(line).is_empty() {
                // The blank line ends the head.
                return None;
            }
            // A continuation line with no field before it is consumed
            // (RFC 7230 section 3): so is a line that is no field.
            if is_continuation(line) {
                continue;
            }
            let Some(colon) = memchr::memchr(b':', line) else {
                continue;
            };
            let name = line[..colon].trim_ascii();
            if name.is_empty() {
                continue;
            }
            let mut end = start + without_eol(line).len();
            while let Some(&(next, more)) = lines.peek() {
                if !is_continuation(more) {
                    break;
                }
                end = next + without_eol(more).len();
                lines.next();
            }
            return Some((name, start + colon + 1..end));
        }
    })
}

/// The header fields of a head (the start line skipped, up to the blank
/// line), in order: each name as written and its value unfolded, bytes
/// that are not UTF-8 replaced. Works for WARC and HTTP heads alike.
pub(crate) fn head_fields(head: &[u8]) -> Vec<(String, String)> {
    let lossy = |bytes| String::from_utf8_lossy(bytes).into_owned();
    field_spans(head)
        .map(|(name, value)| (lossy(name), unfold(&head[value])))
        .collect()
}

/// A head's start line (`HTTP/1.1 200 OK`, `GET /x HTTP/1.1`) split at
/// its first two spaces, a part that is not there empty; `None` when the
/// head has no line end.
pub(crate) fn start_line(head: &[u8]) -> Option<[String; 3]> {
    let end = memchr::memchr(b'\n', head)?;
    let line = String::from_utf8_lossy(without_eol(&head[..=end]));
    let mut parts = line.splitn(3, ' ');
    Some([(); 3].map(|()| parts.next().unwrap_or_default().to_owned()))
}

/// The value of a raw field value: each fold (a line end and the white
/// space after it) replaced by one space, then trimmed.
fn unfold(raw: &[u8]) -> String {
    let mut out = Vec::with_capacity(raw.len());
    let mut i = 0;
    while i < raw.len() {
        if matches!(raw[i], b'\r' | b'\n') {
            while i < raw.len() && matches!(raw[i], b'\r' | b'\n') {
                i += 1;
            }
            while i < raw.len() && matches!(raw[i], b' ' | b'\t') {
                i += 1;
            }
            out.push(b' ');
        } else {
            out.push(raw[i]);
            i += 1;
        }
    }
    String::from_utf8_lossy(out.trim_ascii()).into_owned()
}

/// A header field's value: the first field of that name in a head (the
/// start line skipped), unfolded and trimmed. Works for WARC and HTTP
/// heads alike.
pub(crate) fn field(head: &[u8], name: &str) -> Option<String> {
    fields(head, name).next()
}

/// Every value of the fields named `name`, in order, each unfolded.
pub(crate) fn fields<'a>(head: &'a [u8], name: &'a str) -> impl Iterator<Item = String> + 'a {
    field_spans(head).filter_map(move |(key, value)| {
        key.eq_ignore_ascii_case(name.as_bytes())
            .then(|| unfold(&head[value]))
    })
}

/// `head` with the value of the first field named `name` replaced by
/// `value`, on one line, every other byte kept (a folded value loses its
/// continuation lines); `None` when there is no such field.
pub(crate) fn set_field(head: &[u8], name: &str, value: &str) -> Option<Vec<u8>> {
    let (_, raw) = field_spans(head).find(|(key, _)| key.eq_ignore_ascii_case(name.as_bytes()))?;
    let text = &head[raw.clone()];
    // The value's bytes, between the white space after the colon and the
    // white space at its end.
    let lead = text.len() - text.trim_ascii_start().len();
    let blank_first_line = text[..lead].contains(&b'\n');
    let (from, space) = if blank_first_line {
        // `Name:` then the value on continuation lines: the fold goes,
        // one space after the colon stands for it.
        let spaces = text
            .iter()
            .take_while(|&&b| matches!(b, b' ' | b'\t'))
            .count();
        (raw.start + spaces, spaces == 0)
    } else {
        (raw.start + lead, false)
    };
    let to = raw.start + text.trim_ascii_end().len().max(from - raw.start);
    let mut out = Vec::with_capacity(head.len() + value.len() + 1);
    out.extend_from_slice(&head[..from]);
    if space {
        out.push(b' ');
    }
    out.extend_from_slice(value.as_bytes());
    out.extend_from_slice(&head[to..]);
    Some(out)
}

/// The lines of a head, line ends included, with where each starts.
fn line_starts(head: &[u8]) -> impl Iterator<Item = (usize, &[u8])> {
    head.split_inclusive(|&b| b == b'\n').scan(0, |at, line| {
        let start = *at;
        *at += line.len();
        Some((start, line))
    })
}

/// The length of a head: up to and including its blank line (CRLF CRLF,
/// or LF LF as some servers send, whichever ends first), or `None` when
/// it has none. Reads no further than the blank line, so that finding the
/// heads of many interim responses one after another reads each byte once.
pub(crate) fn head_len(bytes: &[u8]) -> Option<usize> {
    // The first line end that a blank line follows ends the head: an LF
    // LF there ends before any CRLF CRLF found later could.
    memchr::memchr_iter(b'\n', bytes).find_map(|i| {
        let after = &bytes[i + 1..];
        if after.starts_with(b"\n") {
            Some(i + 2)
        } else if i > 0 && bytes[i - 1] == b'\r' && after.starts_with(b"\r\n") {
            Some(i + 3)
        } else {
            None
        }
    })
}

/// The status code of a response head's status line (`HTTP/1.1 301
/// Moved`), if it has one.
pub(crate) fn status(head: &[u8]) -> Option<u16> {
    let line = without_eol(head.split(|&b| b == b'\n').next()?);
    let code = line
        .split(|&b| b == b' ')
        .filter(|t| !t.is_empty())
        .nth(1)?;
    if code.len() != 3 || !code.iter().all(u8::is_ascii_digit) {
        return None;
    }
    std::str::from_utf8(code).ok()?.parse().ok()
}

/// An HTTP response in a record's block.
#[derive(Debug)]
pub(crate) struct Response<'a> {
    /// The interim (1xx) responses before the final one, as sent: a
    /// `100 Continue`, a `103 Early Hints`.
    pub interim: &'a [u8],
    /// The final response's status line and header fields, blank line
    /// included.
    pub head: &'a [u8],
    /// The message body, as sent.
    pub body: &'a [u8],
}

impl<'a> Response<'a> {
    /// The response in `block`, if it holds one. Interim responses (1xx
    /// but `101 Switching Protocols`, RFC 9110 section 15.2) followed by
    /// another response are skipped: the final one has the fields and the
    /// body.
    pub fn parse(block: &'a [u8]) -> Option<Self> {
        if !block.starts_with(b"HTTP/") {
            return None;
        }
        let mut start = 0;
        loop {
            let rest = &block[start..];
            let len = head_len(rest).unwrap_or(rest.len());
            let (head, body) = rest.split_at(len);
            let interim = status(head).is_some_and(|s| (100..200).contains(&s) && s != 101);
            if interim && body.starts_with(b"HTTP/") {
                start += len;
                continue;
            }
            return Some(Response {
                interim: &block[..start],
                head,
                body,
            });
        }
    }

    /// Whether the head names a transfer or content coding other than
    /// `identity`: the body as stored is then not the payload.
    pub(crate) fn coded(&self) -> bool {
        ["Transfer-Encoding", "Content-Encoding"]
            .iter()
            .any(|name| self.list(name).iter().any(|c| c != "identity"))
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

/// A URL in a header field of an HTTP head: the field's name as written,
/// and the URL's range in the head (white space around it excluded).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct HeaderUrl<'a> {
    pub name: &'a [u8],
    pub range: Range<usize>,
}

/// The URLs of a response head's fields, in order: `Location` on a 201
/// or a 3xx (RFC 9110 section 10.2.2), `Content-Location` (section
/// 8.7), the URL of `Refresh` (read as the HTML standard reads a meta
/// refresh), and each URI-reference in `<...>` of `Link` (RFC 8288
/// section 3). An empty one is none.
pub(crate) fn header_urls(head: &[u8]) -> Vec<HeaderUrl<'_>> {
    let redirect = status(head).is_some_and(|s| s == 201 || (300..400).contains(&s));
    let mut out = Vec::new();
    for (name, value) in field_spans(head) {
        let raw = &head[value.clone()];
        let at = value.start;
        let mut push = |range: Range<usize>| {
            if !range.is_empty() {
                out.push(HeaderUrl {
                    name,
                    range: at + range.start..at + range.end,
                });
            }
        };
        if name.eq_ignore_ascii_case(b"Content-Location")
            || (redirect && name.eq_ignore_ascii_case(b"Location"))
        {
            push(trimmed(raw, 0..raw.len()));
        } else if name.eq_ignore_ascii_case(b"Refresh") {
            // The refresh steps look at ASCII only: a byte past it stands
            // in as one that is none of theirs, so offsets stay the bytes'.
            let text: String = raw
                .iter()
                .map(|&b| if b.is_ascii() { b as char } else { 'x' })
                .collect();
            if let Some(range) = refresh::url(&text) {
                push(range);
            }
        } else if name.eq_ignore_ascii_case(b"Link") {
            for range in link_targets(raw) {
                push(range);
            }
        }
    }
    out
}

/// `range` of `bytes` without the ASCII white space at its ends.
fn trimmed(bytes: &[u8], range: Range<usize>) -> Range<usize> {
    let part = &bytes[range.clone()];
    let start = range.start + (part.len() - part.trim_ascii_start().len());
    let end = start + part.trim_ascii().len();
    start..end
}

/// The ranges of the target URIs in a `Link` field's value (RFC 8288
/// section 3): `<URI-Reference>` at the start of each link-value, the
/// parameters after it skipped (a quoted string may hold `,`, `<` or
/// `>`). Written here rather than taken from a crate because the byte
/// range of each URI is what a rewrite needs, and a link-value that does
/// not parse is skipped up to the next comma.
fn link_targets(value: &[u8]) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < value.len() {
        // White space (folds included) and empty list elements.
        while i < value.len() && (value[i].is_ascii_whitespace() || value[i] == b',') {
            i += 1;
        }
        if i >= value.len() {
            break;
        }
        if value[i] == b'<' {
            let Some(close) = memchr::memchr(b'>', &value[i + 1..]) else {
                break;
            };
            out.push(trimmed(value, i + 1..i + 1 + close));
            i += close + 2;
        }
        // The parameters, up to the comma that ends the link-value.
        while i < value.len() && value[i] != b',' {
            if value[i] == b'"' {
                i += 1;
                while i < value.len() && value[i] != b'"' {
                    i += if value[i] == b'\\' { 2 } else { 1 };
                }
            }
            i += 1;
        }
    }
    out
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

/// How a body was coded, as far as relink undid it: the transfer codings
/// but `chunked`, whether it was chunked (and the trailer section after
/// its last chunk), and the content codings, each in the order applied.
/// A coding that did not decode, and was read as identity, is not here:
/// it is not redone. Each coding keeps the bytes that followed the end of
/// its stream in the body (a stray line after a zlib stream, bytes after
/// the last gzip member), written again after the coded data.
#[derive(Debug, Clone, Default)]
pub(crate) struct Codings {
    transfer: Vec<(Coding, Vec<u8>)>,
    /// The bytes after the last chunk's size line: trailer fields and the
    /// final line end.
    chunked: Option<Vec<u8>>,
    content: Vec<(Coding, Vec<u8>)>,
}

impl Codings {
    /// Whether the body is written as the payload is, with no coding.
    pub fn identity(&self) -> bool {
        self.content.is_empty() && self.transfer.is_empty() && self.chunked.is_none()
    }

    /// Whether the body is chunked again when it is written.
    pub fn chunked(&self) -> bool {
        self.chunked.is_some()
    }
}

/// A decoded body: the payload, the body with only `chunked` undone (for
/// digests written over it), the codings to redo, and what could not be
/// undone (each read as identity) or was undone only in part.
#[derive(Debug)]
pub(crate) struct Decoded<'a> {
    /// The body itself when it has no coding: not copied.
    pub payload: Cow<'a, [u8]>,
    pub dechunked: Option<Vec<u8>>,
    pub codings: Codings,
    pub warnings: Vec<(WarningKind, String)>,
    /// Why the payload must be left as it is, when it must: a chunked body
    /// that breaks off inside, bytes left after the break (see
    /// [`decode`]).
    pub broken: Option<String>,
}

/// Undoes the transfer and content codings of a response's body, each
/// step refused past `limit` bytes (the one error). A coding that does
/// not decode is read as identity, as warcio reads it, with a warning: a
/// replay tool often writes the body already de-chunked or decompressed
/// under the header that says it is not. One that breaks off (a record
/// cut short) is read as far as it goes.
///
/// A chunked body is read whole only when its chunks are: it ends with
/// its last chunk (size 0), or right after a whole chunk (cut short
/// there). One that breaks off inside with bytes left after the break (a
/// chunk size past the rest of the body, a size line that is none, chunk
/// data not followed by a line end) is read as warcio reads it (the chunks
/// before, then the rest as it is), but marked [`Decoded::broken`]: the
/// rest may hold the chunk size lines a wrong size ran over, read as
/// payload, and a URL they split would be read as another.
pub(crate) fn decode<'a>(response: &Response<'a>, limit: usize) -> Result<Decoded<'a>, String> {
    let mut codings = Codings::default();
    let mut warnings = Vec::new();
    let names = |list: Vec<String>| -> Vec<String> {
        list.into_iter().filter(|n| n != "identity").collect()
    };
    let mut transfer = names(response.list("Transfer-Encoding"));
    let mut body = Cow::Borrowed(response.body);
    let mut dechunked = None;
    let mut broken = None;
    if transfer.last().map(String::as_str) == Some("chunked") {
        transfer.pop();
        match dechunk(&body, limit)? {
            Dechunked::Whole { data, trailer } => {
                codings.chunked = Some(trailer);
                dechunked = Some(data.clone());
                body = Cow::Owned(data);
            }
            Dechunked::Broken {
                at: 0,
                reason,
                sized: false,
                ..
            } => warnings.push((
                WarningKind::Unreadable,
                format!("transfer-encoding chunked does not decode ({reason}); read as it is"),
            )),
            Dechunked::Broken {
                data, at, reason, ..
            } => {
                if at < body.len() {
                    broken = Some(format!(
                        "transfer-encoding chunked breaks off at byte {at} ({reason}); \
                         what follows may be chunk framing"
                    ));
                }
                warnings.push((
                    WarningKind::Unreadable,
                    format!(
                        "transfer-encoding chunked breaks off at byte {at} ({reason}); the rest read as it is"
                    ),
                ));
                // Written again as a whole chunked body.
                codings.chunked = Some(b"\r\n".to_vec());
                dechunked = Some(data.clone());
                body = Cow::Owned(data);
            }
        }
    }
    let content = names(response.list("Content-Encoding"));
    let all = transfer
        .iter()
        .rev()
        .map(|n| ("transfer-encoding", n))
        .chain(content.iter().rev().map(|n| ("content-encoding", n)));
    for (header, name) in all {
        undo_one(
            (header, name),
            &mut body,
            limit,
            (&mut codings, &mut warnings),
        )?;
    }
    Ok(Decoded {
        payload: body,
        dechunked,
        codings,
        warnings,
        broken,
    })
}

/// Undoes one coding, `name` of `header`, of `body` in place, noting it in
/// `codings` and what could not be done in `warnings`.
fn undo_one(
    (header, name): (&str, &String),
    body: &mut Cow<'_, [u8]>,
    limit: usize,
    (codings, warnings): (&mut Codings, &mut Vec<(WarningKind, String)>),
) -> Result<(), String> {
    match undo(name, body, limit)? {
        Undone::Whole(coding, data) => {
            push_coding(codings, header, (coding, Vec::new()));
            *body = Cow::Owned(data);
        }
        Undone::Trailed(coding, data, tail) => {
            warnings.push((
                WarningKind::Unreadable,
                format!(
                    "{header} {name} ends {} bytes before the body does; those bytes kept as they are",
                    tail.len()
                ),
            ));
            push_coding(codings, header, (coding, tail));
            *body = Cow::Owned(data);
        }
        Undone::Partly(coding, data, reason) => {
            warnings.push((
                WarningKind::Unreadable,
                format!(
                    "{header} {name} breaks off after {} bytes ({reason}); read as far as it goes",
                    data.len()
                ),
            ));
            push_coding(codings, header, (coding, Vec::new()));
            *body = Cow::Owned(data);
        }
        Undone::Not(reason) => warnings.push((
            WarningKind::Unreadable,
            format!("{header} {name} does not decode ({reason}); read as it is"),
        )),
        Undone::Unknown => warnings.push((
            WarningKind::UnknownEncoding,
            format!("{header} {name:?} is not one relink knows; read as it is"),
        )),
    }
    Ok(())
}

fn push_coding(codings: &mut Codings, header: &str, coding: (Coding, Vec<u8>)) {
    // Undone last to first: each goes before the ones undone already.
    if header == "transfer-encoding" {
        codings.transfer.insert(0, coding);
    } else {
        codings.content.insert(0, coding);
    }
}

/// Redoes the codings over a new payload: the new message body, and when
/// it is chunked, the body before `chunked`. The bytes that followed a
/// coded stream follow it again.
pub(crate) fn encode(payload: &[u8], codings: &Codings) -> io::Result<(Vec<u8>, Option<Vec<u8>>)> {
    let mut body = payload.to_vec();
    for (coding, tail) in codings.content.iter().chain(&codings.transfer) {
        body = redo(*coding, &body)?;
        body.extend_from_slice(tail);
    }
    Ok(match &codings.chunked {
        Some(trailer) => (chunk(&body, trailer), Some(body)),
        None => (body, None),
    })
}

/// What undoing one coding gave.
#[derive(Debug, PartialEq, Eq)]
enum Undone {
    /// The whole body decoded.
    Whole(Coding, Vec<u8>),
    /// The stream decoded whole, and ended before the body did: the data,
    /// and the bytes after the stream, kept as they are.
    Trailed(Coding, Vec<u8>, Vec<u8>),
    /// The body decoded up to where it breaks off (it was cut short), and
    /// why it stopped.
    Partly(Coding, Vec<u8>, String),
    /// The body does not decode, and why.
    Not(String),
    /// A coding relink does not know.
    Unknown,
}

/// Undoes the coding `name`; an error only past `limit`.
fn undo(name: &str, data: &[u8], limit: usize) -> Result<Undone, String> {
    Ok(match name {
        "gzip" | "x-gzip" => checked(Coding::Gzip, data, gunzip_members(data, limit)?),
        "deflate" => {
            // The RFC's deflate is zlib; a raw stream is what some send.
            match checked(
                Coding::Zlib,
                data,
                inflate(flate2::bufread::ZlibDecoder::new(data), limit)?,
            ) {
                Undone::Not(zlib) => {
                    let raw = inflate(flate2::bufread::DeflateDecoder::new(data), limit)?;
                    match unchecked(Coding::RawDeflate, data, raw) {
                        Undone::Not(_) => Undone::Not(zlib),
                        undone => undone,
                    }
                }
                undone => undone,
            }
        }
        "br" => {
            let inflated = unbrotli(data, limit)?;
            unchecked(Coding::Brotli, data, inflated)
        }
        _ => Undone::Unknown,
    })
}

/// What a decoder gave: its output, why it stopped early if it did, and
/// how many input bytes it left unread.
#[derive(Debug)]
struct Inflated {
    out: Vec<u8>,
    error: Option<String>,
    /// Whether it stopped because the input ended inside the stream.
    cut_short: bool,
    left: usize,
}

/// A gzip or zlib stream is told by its header and checked by its
/// checksum: what it gave before an error is the start of the payload;
/// what follows its end in `data` is kept.
fn checked(coding: Coding, data: &[u8], inflated: Inflated) -> Undone {
    match inflated.error {
        None if inflated.left == 0 => Undone::Whole(coding, inflated.out),
        None => {
            let tail = data[data.len().saturating_sub(inflated.left)..].to_vec();
            Undone::Trailed(coding, inflated.out, tail)
        }
        Some(error) if inflated.out.is_empty() => Undone::Not(error),
        Some(error) => Undone::Partly(coding, inflated.out, error),
    }
}

/// A raw deflate or brotli stream has no header nor checksum, and text
/// often reads as the start of one: it is taken only when it ends where
/// the body does, or, cut short, when it gave more than it read (text
/// misread as a stream gives less).
fn unchecked(coding: Coding, data: &[u8], inflated: Inflated) -> Undone {
    match inflated.error {
        None if inflated.left == 0 => Undone::Whole(coding, inflated.out),
        None => Undone::Not(format!(
            "the stream ends {} bytes before the body does",
            inflated.left
        )),
        Some(error) if inflated.cut_short && inflated.out.len() > data.len() => {
            Undone::Partly(coding, inflated.out, error)
        }
        Some(error) => Undone::Not(error),
    }
}

/// Reads a flate2 decoder over a slice to its end; an error only past
/// `limit` bytes.
fn inflate(mut decoder: impl Read + Unread, limit: usize) -> Result<Inflated, String> {
    let mut out = Vec::new();
    let cap = u64::try_from(limit).unwrap_or(u64::MAX).saturating_add(1);
    let result = (&mut decoder).take(cap).read_to_end(&mut out);
    if out.len() > limit {
        return Err(format!("decodes past the limit of {limit} bytes"));
    }
    let (error, cut_short) = match result {
        Ok(_) => (None, false),
        Err(err) => (
            Some(err.to_string()),
            err.kind() == io::ErrorKind::UnexpectedEof,
        ),
    };
    Ok(Inflated {
        out,
        error,
        cut_short,
        left: decoder.left(),
    })
}

/// Undoes gzip member by member (RFC 1952 section 2.2: a file is a
/// series of members), as `gunzip` does; an error only past `limit`
/// bytes. Bytes after the last member that are no member, or a later
/// member that does not decode whole, are left unread (the `left` of what
/// it gives), to be kept as they are; an error in the first member is the
/// stream's.
fn gunzip_members(data: &[u8], limit: usize) -> Result<Inflated, String> {
    let mut first = inflate(flate2::bufread::GzDecoder::new(data), limit)?;
    if first.error.is_some() {
        return Ok(first);
    }
    loop {
        let rest = &data[data.len() - first.left..];
        if !rest.starts_with(&crate::compressed::GZIP_MAGIC) {
            return Ok(first);
        }
        let room = limit - first.out.len();
        let next = inflate(flate2::bufread::GzDecoder::new(rest), room)?;
        if next.error.is_some() {
            return Ok(first);
        }
        first.out.extend_from_slice(&next.out);
        first.left = next.left;
    }
}

/// A decoder over a slice, which tells how many input bytes it left
/// unread.
trait Unread {
    fn left(self) -> usize;
}

impl Unread for flate2::bufread::GzDecoder<&[u8]> {
    fn left(self) -> usize {
        self.into_inner().len()
    }
}

impl Unread for flate2::bufread::ZlibDecoder<&[u8]> {
    fn left(self) -> usize {
        self.into_inner().len()
    }
}

impl Unread for flate2::bufread::DeflateDecoder<&[u8]> {
    fn left(self) -> usize {
        self.into_inner().len()
    }
}

/// Decodes a brotli stream through the decoder's streaming interface,
/// which tells a stream cut short from a broken one and how much input is
/// left; an error only past `limit` bytes.
fn unbrotli(data: &[u8], limit: usize) -> Result<Inflated, String> {
    use brotli::BrotliResult;
    use brotli::enc::StandardAlloc;
    let mut state = brotli::BrotliState::new(
        StandardAlloc::default(),
        StandardAlloc::default(),
        StandardAlloc::default(),
    );
    let mut out = Vec::new();
    let mut buffer = vec![0u8; 1 << 16];
    let (mut left, mut read, mut total) = (data.len(), 0, 0);
    loop {
        let (mut room, mut written) = (buffer.len(), 0);
        let result = brotli::BrotliDecompressStream(
            &mut left,
            &mut read,
            data,
            &mut room,
            &mut written,
            &mut buffer,
            &mut total,
            &mut state,
        );
        out.extend_from_slice(&buffer[..written]);
        if out.len() > limit {
            return Err(format!("decodes past the limit of {limit} bytes"));
        }
        let (error, cut_short) = match result {
            BrotliResult::NeedsMoreOutput => continue,
            BrotliResult::ResultSuccess => (None, false),
            BrotliResult::NeedsMoreInput => (Some("the stream is cut short".to_owned()), true),
            BrotliResult::ResultFailure => (Some("invalid brotli data".to_owned()), false),
        };
        return Ok(Inflated {
            out,
            error,
            cut_short,
            left,
        });
    }
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

/// What undoing `chunked` gave.
#[derive(Debug, PartialEq, Eq)]
enum Dechunked {
    /// The data, and the bytes after the last chunk's size line (trailer
    /// fields and the final line end).
    Whole { data: Vec<u8>, trailer: Vec<u8> },
    /// A body that is not chunked from byte `at` on, and why: the data of
    /// the chunks before, then the rest as it is (as warcio reads it). At
    /// 0, the body is not chunked at all, unless `sized`.
    Broken {
        data: Vec<u8>,
        at: usize,
        reason: String,
        /// Whether a chunk size line was read as one: the body is chunked
        /// (at least it starts so), and breaks off inside.
        sized: bool,
    },
}

/// Undoes `chunked`; an error only past `limit` bytes.
fn dechunk(body: &[u8], limit: usize) -> Result<Dechunked, String> {
    let mut out = Vec::new();
    let mut at = 0;
    let mut sized = false;
    let broken = |mut data: Vec<u8>, at: usize, reason: String, sized: bool| {
        data.extend_from_slice(&body[at..]);
        if data.len() > limit {
            return Err(format!("decodes past the limit of {limit} bytes"));
        }
        Ok(Dechunked::Broken {
            data,
            at,
            reason,
            sized,
        })
    };
    loop {
        let Some(end) = memchr::memchr(b'\n', &body[at..]).map(|i| at + i) else {
            return broken(out, at, "ends inside a chunk size line".to_owned(), sized);
        };
        let line = &body[at..end];
        let size = line
            .split(|&b| b == b';')
            .next()
            .unwrap_or(b"")
            .trim_ascii();
        let size = std::str::from_utf8(size)
            .ok()
            .and_then(|s| usize::from_str_radix(s, 16).ok());
        let Some(size) = size else {
            let shown =
                String::from_utf8_lossy(&line.trim_ascii()[..line.trim_ascii().len().min(40)])
                    .into_owned();
            return broken(out, at, format!("bad chunk size {shown:?}"), sized);
        };
        sized = true;
        let data_start = end + 1;
        if size == 0 {
            return Ok(Dechunked::Whole {
                data: out,
                trailer: body[data_start..].to_vec(),
            });
        }
        let Some(data) = data_start
            .checked_add(size)
            .and_then(|e| body.get(data_start..e))
        else {
            // Cut short inside a chunk: its data is read as far as it goes.
            return broken(out, data_start, "ends inside a chunk".to_owned(), sized);
        };
        if out.len() + size > limit {
            return Err(format!("decodes past the limit of {limit} bytes"));
        }
        out.extend_from_slice(data);
        let after = data_start + size;
        // The line end after the chunk's data: CRLF, or LF alone as some
        // servers write it, but not after data ending in CR: that CRLF was
        // run into by a size too large.
        if body[after..].starts_with(b"\r\n") {
            at = after + 2;
        } else if body[after..].starts_with(b"\n") && !data.ends_with(b"\r") {
            at = after + 1;
        } else {
            out.truncate(out.len() - size);
            return broken(
                out,
                at,
                "chunk data not followed by a line end".to_owned(),
                sized,
            );
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

    fn gzip(data: &[u8]) -> Vec<u8> {
        redo(Coding::Gzip, data).unwrap()
    }

    fn response(head: &str, body: &[u8]) -> Vec<u8> {
        [head.as_bytes(), body].concat()
    }

    fn decoded(block: &[u8]) -> Decoded<'_> {
        decode(&Response::parse(block).unwrap(), 1 << 20).unwrap()
    }

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
    fn folded_fields_are_unfolded() {
        let head = b"WARC/1.1\r\nWARC-Target-URI:\r\n http://x/\r\nLink: <a>,\r\n\t <b>\r\nX: a  \r\n  b \r\n\r\nY: after the head\r\n";
        assert_eq!(field(head, "WARC-Target-URI").as_deref(), Some("http://x/"));
        assert_eq!(field(head, "link").as_deref(), Some("<a>, <b>"));
        // Each fold is one space; the spaces before it stay.
        assert_eq!(field(head, "X").as_deref(), Some("a   b"));
        // The blank line ends the head.
        assert_eq!(field(head, "Y"), None);
        // LF alone folds too.
        assert_eq!(
            field(b"HTTP/1.1 200\nA: 1\n 2\n\n", "A").as_deref(),
            Some("1 2")
        );
        // A continuation line with no field before it is no field.
        let head = b"HTTP/1.1 200 OK\r\n Location: x\r\nA: 1\r\n\r\n";
        assert_eq!(field(head, "Location"), None);
        assert_eq!(field(head, "A").as_deref(), Some("1"));
    }

    #[test]
    fn a_folded_value_is_replaced_on_one_line() {
        let head = b"WARC/1.1\r\nContent-Length:\r\n 12\r\nWARC-Block-Digest: sha1:AB\r\n  CD \r\nZ: z\r\n\r\n";
        let new = set_field(head, "Content-Length", "345").unwrap();
        assert_eq!(
            new,
            b"WARC/1.1\r\nContent-Length: 345\r\nWARC-Block-Digest: sha1:AB\r\n  CD \r\nZ: z\r\n\r\n"
        );
        let new = set_field(head, "WARC-Block-Digest", "sha1:EF").unwrap();
        assert_eq!(
            new,
            b"WARC/1.1\r\nContent-Length:\r\n 12\r\nWARC-Block-Digest: sha1:EF \r\nZ: z\r\n\r\n"
        );
        assert_eq!(field(&new, "WARC-Block-Digest").as_deref(), Some("sha1:EF"));
        let head = b"WARC/1.1\r\nA: \r\n x\r\n\r\n";
        assert_eq!(
            set_field(head, "A", "y").unwrap(),
            b"WARC/1.1\r\nA: y\r\n\r\n"
        );
    }

    #[test]
    fn a_head_ends_at_its_first_blank_line() {
        // What the head was before it stopped at the first line end a
        // blank line follows: the earlier of CRLF CRLF and LF LF.
        let both = |bytes: &[u8]| {
            let crlf = memchr::memmem::find(bytes, b"\r\n\r\n").map(|i| i + 4);
            let lf = memchr::memmem::find(bytes, b"\n\n").map(|i| i + 2);
            match (crlf, lf) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            }
        };
        // Every string of up to 7 bytes of `\r`, `\n` and `a`.
        for len in 0..=7u32 {
            for n in 0..3usize.pow(len) {
                let bytes: Vec<u8> = (0..len).map(|i| b"\r\na"[n / 3usize.pow(i) % 3]).collect();
                assert_eq!(head_len(&bytes), both(&bytes), "{bytes:?}");
            }
        }
    }

    #[test]
    fn thousands_of_interim_responses_are_each_skipped() {
        let interim = b"HTTP/1.1 100 Continue\r\n\r\n".repeat(5000);
        let final_head = b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n";
        let block = [&interim[..], final_head, b"<a href=x>"].concat();
        let response = Response::parse(&block).unwrap();
        assert_eq!(response.interim, &interim[..]);
        assert_eq!(response.head, final_head);
        assert_eq!(response.body, b"<a href=x>");
    }

    #[test]
    fn interim_responses_are_skipped() {
        let block = b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </s.css>\r\n\r\nHTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n<a href=x>";
        let response = Response::parse(block).unwrap();
        assert_eq!(
            response.interim,
            b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </s.css>\r\n\r\n"
        );
        assert!(response.head.starts_with(b"HTTP/1.1 200 OK\r\n"));
        assert_eq!(response.body, b"<a href=x>");
        assert_eq!(response.field("Content-Type").as_deref(), Some("text/html"));
        // A 1xx with no response after it is the response; so is a 101.
        for block in [
            &b"HTTP/1.1 100 Continue\r\n\r\n"[..],
            b"HTTP/1.1 101 Switching Protocols\r\n\r\nHTTP/1.1 200 OK\r\n\r\n",
        ] {
            let response = Response::parse(block).unwrap();
            assert!(response.interim.is_empty());
            assert_eq!(response.head.len() + response.body.len(), block.len());
        }
        assert_eq!(status(b"HTTP/1.1 301 Moved\r\n"), Some(301));
        assert_eq!(status(b"HTTP/1.0  404\n"), Some(404));
        assert_eq!(status(b"HTTP/1.1 abc\r\n"), None);
    }

    fn urls(head: &[u8]) -> Vec<(String, &str)> {
        header_urls(head)
            .into_iter()
            .map(|u| {
                let name = String::from_utf8_lossy(u.name).into_owned();
                (name, std::str::from_utf8(&head[u.range]).unwrap())
            })
            .collect()
    }

    #[test]
    fn header_fields_hold_urls() {
        let head = b"HTTP/1.1 301 Moved\r\nlocation:  ../new/ \r\nContent-Location: here.html\r\nRefresh: 5; url='next.html'\r\nLink: <a.css>; rel=stylesheet; title=\"x, <y>\",\r\n <b.js>; rel=preload, bad; rel=x, <>, < c >\r\nLink: <d>\r\nContent-Type: text/html\r\n\r\n";
        assert_eq!(
            urls(head),
            [
                ("location".to_owned(), "../new/"),
                ("Content-Location".to_owned(), "here.html"),
                ("Refresh".to_owned(), "next.html"),
                ("Link".to_owned(), "a.css"),
                ("Link".to_owned(), "b.js"),
                ("Link".to_owned(), "c"),
                ("Link".to_owned(), "d"),
            ]
        );
        // Location means a link on a 201 or a 3xx only; an empty value is
        // no link.
        let head = b"HTTP/1.1 200 OK\r\nLocation: x\r\nContent-Location:\r\nRefresh: 5\r\n\r\n";
        assert!(urls(head).is_empty());
        let head = b"HTTP/1.1 201 Created\r\nLocation: x\r\n\r\n";
        assert_eq!(urls(head), [("Location".to_owned(), "x")]);
        // Offsets stay the bytes' past a byte that is not ASCII.
        let head = b"HTTP/1.1 200 OK\r\nRefresh: 0;\xe9 url=a\r\n\r\n";
        let found = header_urls(head);
        assert_eq!(&head[found[0].range.clone()], b"\xe9 url=a");
    }

    #[test]
    fn chunked_round_trip_keeps_the_trailer() {
        let body = b"4\r\nWiki\r\n5;x=y\r\npedia\r\n0\r\nExpires: never\r\n\r\n";
        let Dechunked::Whole { data, trailer } = dechunk(body, 100).unwrap() else {
            panic!("not chunked")
        };
        assert_eq!(data, b"Wikipedia");
        assert_eq!(trailer, b"Expires: never\r\n\r\n");
        assert_eq!(
            chunk(b"Wiki", &trailer),
            b"4\r\nWiki\r\n0\r\nExpires: never\r\n\r\n"
        );
        assert!(dechunk(body, 5).is_err());
    }

    #[test]
    fn chunk_data_ending_in_cr_is_not_closed_by_a_lone_lf() {
        // Line ends of LF alone are read.
        let lf = dechunk(b"2\nab\n0\n\n", 100).unwrap();
        assert!(matches!(lf, Dechunked::Whole { ref data, .. } if data == b"ab"));
        // A size one too large runs onto the CR of the line end: broken,
        // and known to have been chunked.
        let over = dechunk(b"3\r\nab\r\n0\r\n\r\n", 100).unwrap();
        assert!(
            matches!(
                over,
                Dechunked::Broken {
                    at: 0,
                    sized: true,
                    ..
                }
            ),
            "{over:?}"
        );
        // A first line that is no size: not chunked at all.
        let none = dechunk(b"<html>\r\n", 100).unwrap();
        assert!(matches!(none, Dechunked::Broken { sized: false, .. }));
    }

    #[test]
    fn a_body_that_is_not_chunked_is_read_as_it_is_from_where_it_breaks() {
        let broken = |body: &[u8]| match dechunk(body, 100).unwrap() {
            Dechunked::Broken { data, at, .. } => (String::from_utf8(data).unwrap(), at),
            whole => panic!("{whole:?}"),
        };
        // Not chunked at all.
        assert_eq!(broken(b"<html>\r\n"), ("<html>\r\n".into(), 0));
        assert_eq!(broken(b"zz\r\nx"), ("zz\r\nx".into(), 0));
        assert_eq!(broken(b"5\r\nabcdefgh"), ("5\r\nabcdefgh".into(), 0));
        // Cut short: the chunks before, then the rest as it is.
        assert_eq!(broken(b"2\r\nab\r\n4\r\nWi"), ("abWi".into(), 10));
        assert_eq!(broken(b"2\r\nab\r\n"), ("ab".into(), 7));
        assert_eq!(broken(b"2\r\nab\r\nxy"), ("abxy".into(), 7));
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
            let undone = undo(name, &coded, 1000).unwrap();
            assert_eq!(undone, Undone::Whole(coding, data), "{name}");
            assert!(undo(name, &coded, 100).is_err(), "{name}: limit");
        }
        let raw = redo(Coding::RawDeflate, b"abc").unwrap();
        assert_eq!(
            undo("deflate", &raw, 10).unwrap(),
            Undone::Whole(Coding::RawDeflate, b"abc".to_vec())
        );
        assert_eq!(undo("compress", b"", 10).unwrap(), Undone::Unknown);
    }

    #[test]
    fn bytes_after_a_stream_are_kept_and_written_again() {
        let data = b"<a href=x>x</a>";
        let tail = b"\r\nstray";
        for (name, coding) in [("gzip", Coding::Gzip), ("deflate", Coding::Zlib)] {
            let body = [redo(coding, data).unwrap(), tail.to_vec()].concat();
            assert_eq!(
                undo(name, &body, 1000).unwrap(),
                Undone::Trailed(coding, data.to_vec(), tail.to_vec()),
                "{name}"
            );
        }
        // Two gzip members, then bytes that are no member.
        let members = [gzip(b"<a href=x>"), gzip(b"x</a>"), tail.to_vec()].concat();
        let block = [
            &b"HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\n\r\n"[..],
            &members,
        ]
        .concat();
        let d = decoded(&block);
        assert_eq!(&*d.payload, data);
        assert_eq!(
            d.warnings,
            [(
                WarningKind::Unreadable,
                "content-encoding gzip ends 7 bytes before the body does; those bytes kept as they are"
                    .to_owned()
            )]
        );
        let (body, _) = encode(b"new", &d.codings).unwrap();
        assert_eq!(body, [gzip(b"new"), tail.to_vec()].concat());
        // A second member that does not decode whole is kept as it is.
        let second = gzip(b"x</a>");
        let broken = [gzip(data), second[..second.len() - 3].to_vec()].concat();
        let undone = undo("gzip", &broken, 1000).unwrap();
        assert_eq!(
            undone,
            Undone::Trailed(
                Coding::Gzip,
                data.to_vec(),
                second[..second.len() - 3].to_vec()
            )
        );
        // A brotli stream that ends before the body does is no stream: the
        // body is read as it is, every byte kept.
        let br = [redo(Coding::Brotli, data).unwrap(), tail.to_vec()].concat();
        assert!(matches!(undo("br", &br, 1000).unwrap(), Undone::Not(_)));
    }

    #[test]
    fn a_body_already_decoded_does_not_decode() {
        // Text that reads as the start of a raw deflate or brotli stream
        // (`c`: a last block of fixed codes; `f`: an empty brotli stream)
        // is no stream.
        for text in [
            &b"<!doctype html><a href=x>"[..],
            b"body { color: red }",
            b"f { color: red }",
            b"c { color: red }",
        ] {
            for name in ["gzip", "x-gzip", "deflate", "br"] {
                let undone = undo(name, text, 1000).unwrap();
                assert!(
                    matches!(undone, Undone::Not(_)),
                    "{name} {text:?}: {undone:?}"
                );
            }
        }
    }

    #[test]
    fn a_stream_cut_short_is_read_as_far_as_it_goes() {
        let page = (0..400)
            .map(|i| format!("<a href=p{i}.html>{i}</a>\n"))
            .collect::<String>();
        for (name, coding) in [
            ("gzip", Coding::Gzip),
            ("deflate", Coding::Zlib),
            ("br", Coding::Brotli),
        ] {
            let coded = redo(coding, page.as_bytes()).unwrap();
            let cut = &coded[..coded.len() / 2];
            match undo(name, cut, 1 << 20).unwrap() {
                Undone::Partly(found, data, _) => {
                    assert_eq!(found, coding, "{name}");
                    assert!(
                        !data.is_empty() && page.as_bytes().starts_with(&data),
                        "{name}"
                    );
                }
                other => panic!("{name}: {other:?}"),
            }
        }
    }

    #[test]
    fn codings_that_do_not_decode_are_read_as_identity_and_not_redone() {
        let page = b"<!doctype html>\n<a href=x>x</a>\n";
        // A replay tool's record: de-chunked and decompressed under the
        // headers that said it was not.
        let block = response(
            "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Encoding: gzip\r\n\r\n",
            page,
        );
        let d = decoded(&block);
        assert_eq!(&*d.payload, page);
        assert!(!d.codings.chunked());
        assert_eq!(encode(b"new", &d.codings).unwrap(), (b"new".to_vec(), None));
        let messages: Vec<&str> = d.warnings.iter().map(|(_, m)| m.as_str()).collect();
        assert_eq!(messages.len(), 2, "{messages:?}");
        assert!(
            messages[0].starts_with("transfer-encoding chunked does not decode (bad chunk size"),
            "{messages:?}"
        );
        assert!(messages[0].ends_with("; read as it is"));
        assert!(
            messages[1].starts_with("content-encoding gzip does not decode"),
            "{messages:?}"
        );
        // Chunked but not gzipped: only chunked is redone.
        let body = [
            format!("{:x}\r\n", page.len()).as_bytes(),
            page,
            b"\r\n0\r\n\r\n",
        ]
        .concat();
        let block = response(
            "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Encoding: gzip\r\n\r\n",
            &body,
        );
        let d = decoded(&block);
        assert_eq!(&*d.payload, page);
        assert!(d.codings.chunked());
        assert_eq!(d.warnings.len(), 1);
        assert_eq!(
            encode(b"new", &d.codings).unwrap().0,
            b"3\r\nnew\r\n0\r\n\r\n"
        );
        // Gzipped but not chunked: only gzip is redone.
        let block = response(
            "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Encoding: gzip\r\n\r\n",
            &gzip(page),
        );
        let d = decoded(&block);
        assert_eq!(&*d.payload, page);
        assert!(!d.codings.chunked());
        let (body, dechunked) = encode(b"new", &d.codings).unwrap();
        assert_eq!((body, dechunked), (gzip(b"new"), None));
        // A coding relink does not know is read as identity too.
        let block = response(
            "HTTP/1.1 200 OK\r\nContent-Encoding: compress\r\n\r\n",
            page,
        );
        let d = decoded(&block);
        assert_eq!(&*d.payload, page);
        assert_eq!(d.warnings[0].0, WarningKind::UnknownEncoding);
    }

    #[test]
    fn a_chunked_body_cut_short_is_chunked_whole_when_written() {
        let block = response(
            "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n",
            b"4\r\n<a h\r\n9\r\nref=x>",
        );
        let d = decoded(&block);
        assert_eq!(&*d.payload, b"<a href=x>");
        assert!(
            d.warnings[0].1.contains("breaks off at byte 12"),
            "{:?}",
            d.warnings
        );
        assert_eq!(
            encode(b"ab", &d.codings).unwrap().0,
            b"2\r\nab\r\n0\r\n\r\n"
        );
    }

    #[test]
    fn a_decompression_bomb_stops_at_the_limit() {
        let bomb = gzip(&vec![0u8; 10 << 20]);
        assert!(bomb.len() < 20_000);
        let err = undo("gzip", &bomb, 1 << 20).unwrap_err();
        assert!(err.contains("limit"), "{err}");
        let block = response("HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\n\r\n", &bomb);
        let err = decode(&Response::parse(&block).unwrap(), 1 << 20).unwrap_err();
        assert!(err.contains("limit"), "{err}");
    }
}
