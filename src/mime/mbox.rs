//! mbox files, in the four variants, split by relink itself: read as a
//! stream, a bounded batch of messages at a time (one message with one
//! worker, a few for each worker with more), so memory stays bounded on
//! archives far larger than it; the batch is rewritten in parallel and
//! written out in order. (The crates for it lose messages or copy all.)

use std::io::{self, BufRead, Read, Write};

use rayon::prelude::*;

use super::message::{FromLines, MAX_MESSAGE_DEPTH, rewrite_message};
use crate::links::UnitReport;
use crate::links::{HeldRows, Warning, WarningKind};
use crate::options::{Options, ROWS_BATCH_BYTES, Rows};
use crate::text::Documents;

/// The most bytes of messages read before a batch is rewritten, however
/// many workers there are.
pub const BATCH_BYTES: usize = 32 << 20;

/// How many messages, and bytes of them, a worker is given in a batch:
/// enough that the workers share a batch out evenly, few enough that
/// memory follows the number of workers and the messages, never the file.
const WORKER_MESSAGES: usize = 4;
const WORKER_BYTES: usize = 4 << 20;

/// When a batch of messages is full, for `workers` workers: with one, each
/// message is a batch of its own (there is no one to share it with); with
/// more, [`WORKER_MESSAGES`] messages each, or `WORKER_BYTES` bytes each
/// (at most [`BATCH_BYTES`]), whichever comes first. Returns the messages
/// and the bytes.
fn batch_limits(workers: usize) -> (usize, usize) {
    if workers <= 1 {
        return (1, BATCH_BYTES);
    }
    (
        workers.saturating_mul(WORKER_MESSAGES),
        workers.saturating_mul(WORKER_BYTES).min(BATCH_BYTES),
    )
}

/// The variants of mbox (see `mbox(5)`).
///
/// ```
/// use relink::{Input, MboxFormat, Output, Rewriter};
/// // mboxcl2: the body's `From ` line is not quoted, its Content-Length
/// // says where the message ends.
/// let mbox = b"From a@b Thu Jan  1 00:00:00 1970\nContent-Length: 22\nContent-Base: http://h/\n\
///     Content-Type: text/html\n\nFrom <a href=x>x</a>\n\n";
/// let report = Rewriter::new()
///     .mbox_format(MboxFormat::Mboxcl2)
///     .run(Input::bytes(mbox), Output::Nowhere, &mut |_| Ok(()))?;
/// assert_eq!((report.messages, report.rewritten), (1, 1));
/// # Ok::<(), relink::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MboxFormat {
    /// `From ` lines in bodies quoted as `>From `; unquoting is lossy.
    Mboxo,
    /// Every `>*From ` line in bodies gains one more `>`.
    Mboxrd,
    /// Quoted as mboxo, and a `Content-Length` header.
    Mboxcl,
    /// Bodies not quoted; messages delimited by `Content-Length`.
    Mboxcl2,
}

impl MboxFormat {
    /// What a rewritten body may do with lines starting with `From `.
    pub fn from_lines(self) -> FromLines {
        if self == MboxFormat::Mboxcl2 {
            FromLines::Keep
        } else {
            FromLines::Guard
        }
    }

    /// Whether messages are delimited by their `Content-Length`.
    fn counts_length(self) -> bool {
        matches!(self, MboxFormat::Mboxcl | MboxFormat::Mboxcl2)
    }
}

/// One message of an mbox: its `From ` line and the bytes after it, up to
/// the next `From ` line (the blank separator line included).
#[derive(Debug, Clone)]
pub struct MboxMessage {
    /// The number of the message, from 1.
    pub number: usize,
    /// The `From ` line, line ending included.
    pub from_line: Vec<u8>,
    /// The message.
    pub bytes: Vec<u8>,
}

/// The UTF-8 byte order mark, which some tools write before an mbox or a
/// message; it is no part of the first line, and it is kept.
pub use super::BOM;

/// The bytes after a UTF-8 byte order mark, if they start with one.
pub fn after_bom(bytes: &[u8]) -> &[u8] {
    bytes.strip_prefix(BOM).unwrap_or(bytes)
}

/// Whether the bytes look like an mbox: they start with a `From ` line
/// (after a byte order mark, if any).
pub fn looks_like_mbox(head: &[u8]) -> bool {
    after_bom(head).starts_with(b"From ")
}

/// Guesses the variant from the start of a file: `Content-Length` headers
/// that land on the next `From ` line mean mboxcl2 (or mboxcl when bodies
/// hold quoted `>From ` lines); else mboxrd, which reads mboxo's quoting
/// too.
#[cfg_attr(not(feature = "_internal"), allow(dead_code))]
pub fn detect(head: &[u8]) -> MboxFormat {
    MboxFormat::detect(head)
}

impl MboxFormat {
    /// Guesses the variant from the first bytes of a file (up to a
    /// megabyte): `Content-Length` headers that land on the next `From `
    /// line mean mboxcl2 (or mboxcl when bodies hold quoted `>From `
    /// lines); else mboxrd, which reads mboxo's quoting too.
    pub fn detect(head: &[u8]) -> MboxFormat {
        detect_format(head)
    }
}

fn detect_format(head: &[u8]) -> MboxFormat {
    let head = after_bom(head);
    let quoted = memchr::memmem::find(head, b"\n>From ").is_some();
    let Some(first_line_end) = memchr::memchr(b'\n', head) else {
        return MboxFormat::Mboxrd;
    };
    let message = &head[first_line_end + 1..];
    if let Ok((headers, body_start)) = mailparse::parse_headers(message)
        && let Some(length) = content_length(&headers)
        && let Some(end) = body_start.checked_add(length)
        && let Some(after) = message.get(end..)
    {
        let lands = after.is_empty()
            || after.starts_with(b"From ")
            || after.starts_with(b"\nFrom ")
            || after.starts_with(b"\r\nFrom ");
        if lands {
            return if quoted {
                MboxFormat::Mboxcl
            } else {
                MboxFormat::Mboxcl2
            };
        }
    }
    MboxFormat::Mboxrd
}

fn content_length(headers: &[mailparse::MailHeader<'_>]) -> Option<usize> {
    headers
        .iter()
        .find(|h| h.get_key_ref().eq_ignore_ascii_case("Content-Length"))
        .and_then(|h| h.get_value().trim().parse().ok())
}

fn is_blank(line: &[u8]) -> bool {
    line == b"\n" || line == b"\r\n"
}

/// Reads the messages of an mbox one at a time.
pub struct MboxReader<R> {
    reader: R,
    format: MboxFormat,
    /// The `From ` line of the next message, already read.
    next_from: Option<Vec<u8>>,
    /// Bytes before the first `From ` line (not a message).
    pub preamble: Vec<u8>,
    number: usize,
    line: Vec<u8>,
}

impl<R: BufRead> MboxReader<R> {
    /// A reader of `format`.
    pub fn new(mut reader: R, format: MboxFormat) -> io::Result<Self> {
        let mut preamble = Vec::new();
        let mut line = Vec::new();
        let mut next_from = None;
        loop {
            line.clear();
            if reader.read_until(b'\n', &mut line)? == 0 {
                break;
            }
            // A byte order mark before the first line stays in the
            // preamble, so that it is written back.
            let first = preamble.is_empty() && line.starts_with(BOM);
            let skip = if first { BOM.len() } else { 0 };
            if line[skip..].starts_with(b"From ") {
                preamble.extend_from_slice(&line[..skip]);
                next_from = Some(line[skip..].to_vec());
                break;
            }
            preamble.extend_from_slice(&line);
        }
        Ok(MboxReader {
            reader,
            format,
            next_from,
            preamble,
            number: 0,
            line,
        })
    }

    /// The next message, or `None` at the end.
    pub fn next_message(&mut self) -> io::Result<Option<MboxMessage>> {
        let Some(from_line) = self.next_from.take() else {
            return Ok(None);
        };
        self.number += 1;
        let mut bytes = Vec::new();
        let mut skip_until = 0;
        if self.format.counts_length() {
            // Headers, then exactly Content-Length bytes of body.
            loop {
                self.line.clear();
                if self.reader.read_until(b'\n', &mut self.line)? == 0 {
                    break;
                }
                bytes.extend_from_slice(&self.line);
                if is_blank(&self.line) {
                    break;
                }
            }
            if let Ok((headers, _)) = mailparse::parse_headers(&bytes)
                && let Some(length) = content_length(&headers)
            {
                // What is there, up to the length: the header's number is
                // never trusted with an allocation.
                let length = u64::try_from(length).unwrap_or(u64::MAX);
                (&mut self.reader).take(length).read_to_end(&mut bytes)?;
                skip_until = bytes.len();
            }
        }
        // Then lines, up to a `From ` line after a blank line (or the
        // end); with Content-Length, any `From ` line once the body is read.
        loop {
            self.line.clear();
            if self.reader.read_until(b'\n', &mut self.line)? == 0 {
                break;
            }
            let after_blank =
                bytes.is_empty() || bytes.ends_with(b"\n\n") || bytes.ends_with(b"\n\r\n");
            let past_body = bytes.len() >= skip_until && skip_until > 0;
            if self.line.starts_with(b"From ") && (after_blank || past_body) {
                self.next_from = Some(std::mem::take(&mut self.line));
                break;
            }
            bytes.extend_from_slice(&self.line);
        }
        Ok(Some(MboxMessage {
            number: self.number,
            from_line,
            bytes,
        }))
    }
}

/// Where a reader of `format` would split `message` (the bytes after a
/// `From ` line), as [`MboxReader`] does: the offset of the first `From `
/// line inside it that starts a new message, if any, and whether a `From `
/// line right after its end would start one.
pub fn split_points(message: &[u8], format: MboxFormat) -> (Option<usize>, bool) {
    let mut body = 0;
    let mut skip_until = 0;
    if format.counts_length() {
        // The header lines, up to a blank line, then the body's length.
        let mut at = 0;
        let mut ended = false;
        while at < message.len() {
            let end = memchr::memchr(b'\n', &message[at..]).map_or(message.len(), |i| at + i + 1);
            let line = &message[at..end];
            at = end;
            if is_blank(line) {
                ended = true;
                break;
            }
        }
        if !ended {
            // The reader takes any line for a header until a blank one,
            // a `From ` line too.
            return (None, false);
        }
        body = at;
        if let Ok((headers, _)) = mailparse::parse_headers(&message[..at])
            && let Some(length) = content_length(&headers)
        {
            match at.checked_add(length).filter(|&end| end <= message.len()) {
                Some(end) => body = end,
                // The reader would read on into what follows.
                None => return (None, false),
            }
            skip_until = body;
        }
    }
    let splits_at = |i: usize| {
        let before = &message[..i];
        let after_blank =
            before.is_empty() || before.ends_with(b"\n\n") || before.ends_with(b"\n\r\n");
        after_blank || (skip_until > 0 && i >= skip_until)
    };
    let first = memchr::memmem::find_iter(&message[body..], b"From ")
        .map(|i| body + i)
        .filter(|&i| i == body || message[i - 1] == b'\n')
        .find(|&i| splits_at(i));
    // The next `From ` line is a line of its own only after a line end,
    // or where the length said the body ends.
    let line_start = message.is_empty()
        || message.ends_with(b"\n")
        || (skip_until > 0 && skip_until == message.len());
    (first, line_start && splits_at(message.len()))
}

/// What happened to one message of an archive.
#[derive(Debug)]
pub struct ArchiveMessage {
    /// Its number, from 1.
    pub number: usize,
    /// Links, warnings and whether it changed.
    pub outcome: UnitReport,
}

/// Rewrites an mbox from `reader` to `writer`, calling `report` for each
/// message in order. Returns whether anything changed.
pub fn rewrite_mbox<R: BufRead, W: Write + ?Sized>(
    reader: R,
    format: MboxFormat,
    writer: &mut W,
    (options, documents): (&Options<'_>, &dyn Documents),
    mut report: impl FnMut(&mut ArchiveMessage, &[u8]),
) -> io::Result<bool> {
    let mut mbox = MboxReader::new(reader, format)?;
    writer.write_all(&mbox.preamble)?;
    let mut changed = false;
    // The workers of the pool this runs in (the command line's `-j`).
    let (max_messages, mut max_bytes) = batch_limits(rayon::current_num_threads());
    let sink = options.rows;
    if sink.is_some() {
        max_bytes = max_bytes.min(ROWS_BATCH_BYTES);
    }
    // A message that would take a batch whose rows are held past its
    // bytes waits for the next batch, where it is first.
    let mut next = None;
    loop {
        let mut batch = Vec::new();
        let mut size = 0;
        while size < max_bytes && batch.len() < max_messages {
            let message = match next.take() {
                Some(message) => message,
                None => match mbox.next_message()? {
                    Some(message) => message,
                    None => break,
                },
            };
            if sink.is_some() && !batch.is_empty() && size + message.bytes.len() > max_bytes {
                next = Some(message);
                break;
            }
            size += message.bytes.len();
            batch.push(message);
        }
        if batch.is_empty() {
            return Ok(changed);
        }
        // One message hands its rows over as they are found; those of a
        // batch are held each until the ones before it are handed over.
        let alone = batch.len() == 1;
        let done: Vec<(MboxMessage, ArchiveMessage, HeldRows)> = batch
            .into_par_iter()
            .map(|message| {
                let held = HeldRows::default();
                let archived =
                    rewrite_in_batch(&message, format, (options, documents), (&held, alone));
                (message, archived, held)
            })
            .collect();
        for (message, mut archived, held) in done {
            if let Some(sink) = sink {
                for row in held.take() {
                    sink.0.row(row);
                }
            }
            writer.write_all(&message.from_line)?;
            match &archived.outcome.output {
                Some(output) => {
                    changed = true;
                    writer.write_all(output)?;
                }
                None => writer.write_all(&message.bytes)?,
            }
            report(&mut archived, &message.bytes);
        }
    }
}

/// One message of a batch of [`rewrite_mbox`], rewritten unless a reader
/// would unquote it differently or the mbox would split differently (then
/// left as it is, with a warning). Its rows go to the sink, or to `held`
/// when it is not `alone` in its batch.
fn rewrite_in_batch(
    message: &MboxMessage,
    format: MboxFormat,
    (options, documents): (&Options<'_>, &dyn Documents),
    (held, alone): (&HeldRows, bool),
) -> ArchiveMessage {
    let number = message.number;
    let within = Options {
        rows: match options.rows {
            Some(_) if !alone => Some(Rows(held)),
            other => other,
        },
        ..*options
    };
    let mut mapped = None;
    let options = within.mapped(&mut mapped, |row| row.message = Some(number));
    let mut outcome = rewrite_message(&message.bytes, &options, format.from_lines(), documents);
    if let Some(output) = &outcome.output
        && !read_alike_unquoted(&message.bytes, output, format, (&options, documents))
    {
        outcome.output = None;
        outcome.warnings.push(Warning::new(
            WarningKind::ArchiveSplit,
            "a reader that unquotes `>From ` lines would read the rewritten message differently; left as it is",
        ));
    }
    if let Some(output) = &mut outcome.output {
        update_content_length(&message.bytes, output);
        // As many messages out as in: a rewrite that would split
        // this message, or glue the next one to it, is dropped.
        let (_, ended) = split_points(&message.bytes, format);
        let (split, ends) = split_points(output, format);
        if split.is_some() || (ended && !ends) {
            outcome.output = None;
            outcome.warnings.push(Warning::new(
                WarningKind::ArchiveSplit,
                "the rewritten message would change how the mbox splits; left as it is",
            ));
        }
    }
    outcome.in_message(number);
    ArchiveMessage { number, outcome }
}

/// A message's body as a reader that unquotes `From ` lines reads it:
/// mboxrd takes one `>` off each line of `>`s before `From `, mboxo and
/// mboxcl off a line `>From ` only; `None` when nothing changes (no such
/// line, or mboxcl2, which does not quote).
fn unquoted(message: &[u8], format: MboxFormat) -> Option<Vec<u8>> {
    let quoted = |line: &[u8]| {
        let arrows = line.iter().take_while(|&&b| b == b'>').count();
        arrows > 0
            && line[arrows..].starts_with(b"From ")
            && (arrows == 1 || format == MboxFormat::Mboxrd)
    };
    let maybe = message.starts_with(b">") || memchr::memmem::find(message, b"\n>").is_some();
    if format == MboxFormat::Mboxcl2
        || !maybe
        || !message.split_inclusive(|&b| b == b'\n').any(&quoted)
    {
        return None;
    }
    let mut out = Vec::with_capacity(message.len());
    for line in message.split_inclusive(|&b| b == b'\n') {
        out.extend_from_slice(if quoted(line) { &line[1..] } else { line });
    }
    Some(out)
}

/// Whether a reader that unquotes (see [`unquoted`]) reads the rewrite
/// `output` of `message` as relink would have written it had it read the
/// message that way too. relink reads a message as it is, as most mail
/// readers do; a `>From ` line inside a tag is then a `>` that ends the
/// tag, where an unquoting reader reads on inside it, and the two differ
/// on what is a link. Such a message is left as it is, so that no reader
/// sees an attribute change that is not a link. Compared by what the
/// reader decodes ([`same_reading`]): the two may encode a line alike
/// differently (`>From ` kept, `From ` written `=46rom `).
fn read_alike_unquoted(
    message: &[u8],
    output: &[u8],
    format: MboxFormat,
    (options, documents): (&Options<'_>, &dyn Documents),
) -> bool {
    let Some(plain) = unquoted(message, format) else {
        return true;
    };
    let read = unquoted(output, format);
    let read = read.as_deref().unwrap_or(output);
    // Only its bytes are compared: its links are not reported again.
    let counts = Options {
        rows: None,
        details: crate::options::Details::Counts,
        ..*options
    };
    let theirs = rewrite_message(&plain, &counts, format.from_lines(), documents);
    let want = theirs.output.as_deref().unwrap_or(&plain);
    same_reading(read, want, 0)
}

/// Whether two messages read alike: the same header fields (decoded), the
/// same structure, and the same decoded bodies, nested messages compared
/// the same way.
fn same_reading(a: &[u8], b: &[u8], depth: usize) -> bool {
    if a == b {
        return true;
    }
    let (Ok(x), Ok(y)) = (mailparse::parse_mail(a), mailparse::parse_mail(b)) else {
        return false;
    };
    same_entity(&x, &y, depth)
}

fn same_entity(x: &mailparse::ParsedMail<'_>, y: &mailparse::ParsedMail<'_>, depth: usize) -> bool {
    let fields = |m: &mailparse::ParsedMail<'_>| -> Vec<(String, String)> {
        m.headers
            .iter()
            .map(|h| (h.get_key().to_ascii_lowercase(), h.get_value()))
            .collect()
    };
    if fields(x) != fields(y) || x.subparts.len() != y.subparts.len() {
        return false;
    }
    if !x.subparts.is_empty() {
        return x
            .subparts
            .iter()
            .zip(&y.subparts)
            .all(|(p, q)| same_entity(p, q, depth));
    }
    let (Ok(p), Ok(q)) = (x.get_body_raw(), y.get_body_raw()) else {
        return false;
    };
    let nested = matches!(
        x.ctype.mimetype.as_str(),
        "message/rfc822" | "message/global"
    );
    p == q || nested && depth < MAX_MESSAGE_DEPTH && same_reading(&p, &q, depth + 1)
}

/// Moves a message's `Content-Length` by as much as its body grew. The
/// header block may have changed too (a rewritten `Content-Location`), so
/// the field is found again in the new message.
fn update_content_length(old: &[u8], new: &mut Vec<u8>) {
    let (Ok((old_headers, old_body)), Ok((new_headers, new_body))) =
        (mailparse::parse_headers(old), mailparse::parse_headers(new))
    else {
        return;
    };
    let (Some(length), Some(header)) = (
        content_length(&old_headers),
        new_headers
            .iter()
            .find(|h| h.get_key_ref().eq_ignore_ascii_case("Content-Length")),
    ) else {
        return;
    };
    let raw = header.get_value_raw();
    let Some(start) = (raw.as_ptr() as usize).checked_sub(new.as_ptr() as usize) else {
        return;
    };
    let Some(grown) = length
        .checked_add(new.len() - new_body)
        .and_then(|n| n.checked_sub(old.len() - old_body))
    else {
        return;
    };
    let text = String::from_utf8_lossy(raw);
    if text.trim().parse() != Ok(length) {
        return;
    }
    let lead = text.len() - text.trim_start().len();
    let digits = start + lead..start + lead + text.trim().len();
    drop(new_headers);
    new.splice(digits, grown.to_string().into_bytes());
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_worker_takes_one_message_a_batch_and_more_take_a_few_each() {
        assert_eq!(batch_limits(1).0, 1);
        assert_eq!(batch_limits(0).0, 1);
        assert_eq!(batch_limits(2), (8, 8 << 20));
        // The bytes never pass the cap, however many workers.
        assert_eq!(batch_limits(64).1, BATCH_BYTES);
        assert_eq!(batch_limits(usize::MAX).1, BATCH_BYTES);
    }

    fn messages(text: &str, format: MboxFormat) -> Vec<(String, String)> {
        let mut reader = MboxReader::new(text.as_bytes(), format).unwrap();
        let mut out = Vec::new();
        while let Some(m) = reader.next_message().unwrap() {
            out.push((
                String::from_utf8(m.from_line).unwrap(),
                String::from_utf8(m.bytes).unwrap(),
            ));
        }
        out
    }

    #[test]
    fn splits_on_from_lines_after_blank_lines() {
        let text = "From a@b Mon Jan  1 00:00:00 2024\nSubject: 1\n\nbody\nFrom here\n>From there\n\nFrom c@d Mon Jan  1 00:00:00 2024\nSubject: 2\n\nx\n";
        let got = messages(text, MboxFormat::Mboxrd);
        assert_eq!(got.len(), 2);
        assert_eq!(got[0].1, "Subject: 1\n\nbody\nFrom here\n>From there\n\n");
        assert_eq!(got[1].1, "Subject: 2\n\nx\n");
        let joined: String = got.iter().map(|(f, b)| format!("{f}{b}")).collect();
        assert_eq!(joined, text);
    }

    #[test]
    fn content_length_delimits_mboxcl2() {
        let text = "From a@b Mon Jan  1 00:00:00 2024\nContent-Length: 15\n\nFrom x\n\nFrom y\n\nFrom c@d Mon Jan  1 00:00:00 2024\nContent-Length: 2\n\nz\n\n";
        assert_eq!(detect(text.as_bytes()), MboxFormat::Mboxcl2);
        let got = messages(text, MboxFormat::Mboxcl2);
        assert_eq!(got.len(), 2);
        assert_eq!(got[0].1, "Content-Length: 15\n\nFrom x\n\nFrom y\n\n");
    }

    #[test]
    fn content_length_follows_the_body() {
        let old = b"Content-Length: 5\n\nhello\n";
        let mut new = b"Content-Length: 5\n\nhello, world\n".to_vec();
        update_content_length(old, &mut new);
        assert_eq!(new, b"Content-Length: 12\n\nhello, world\n");
    }

    #[test]
    fn content_length_follows_the_body_when_the_headers_change() {
        let old = b"Content-Location: x\nContent-Length: 5\n\nhello\n";
        let mut new = b"Content-Location: http://h/x\nContent-Length: 5\n\nhello, world\n".to_vec();
        update_content_length(old, &mut new);
        assert_eq!(
            new,
            b"Content-Location: http://h/x\nContent-Length: 12\n\nhello, world\n"
        );
    }

    #[test]
    fn unquoting_follows_the_variant() {
        let body = b"a\n>From b\n>>From c\n>Fromage\nFrom d\n";
        assert_eq!(
            unquoted(body, MboxFormat::Mboxrd).unwrap(),
            b"a\nFrom b\n>From c\n>Fromage\nFrom d\n"
        );
        for format in [MboxFormat::Mboxo, MboxFormat::Mboxcl] {
            assert_eq!(
                unquoted(body, format).unwrap(),
                b"a\nFrom b\n>>From c\n>Fromage\nFrom d\n"
            );
        }
        assert_eq!(unquoted(body, MboxFormat::Mboxcl2), None);
        assert_eq!(unquoted(b"a\nFrom b\n", MboxFormat::Mboxrd), None);
    }
}
