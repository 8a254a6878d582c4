//! Rewriting one message: the MIME tree walked with each entity's base
//! (RFC 1808 section 3.2), HTML and CSS parts rewritten, every other byte
//! copied.

use std::borrow::Cow;
use std::ops::Range;

use mailparse::{MailHeader, ParsedMail, body::Body};

use super::BOM;
use super::headers::{self, BASE_HEADERS, SNAPSHOT_HEADER};
use super::transfer::{self, Layout, MAX_LINE_OCTETS, TransferEncoding};
use crate::base::{Base, BaseSource, Layer};
use crate::base::{BaseChain, stack_layers};
use crate::links::{Link, LinkPlace, LinkRow, UnitReport, Warning, WarningKind};
use crate::options::Options;
use crate::splice::{self, Edit};
use crate::text::{Documents, Embedded};

/// How deep `message/rfc822` parts inside messages are followed.
pub const MAX_MESSAGE_DEPTH: usize = 16;

/// What a rewritten body may do with lines that start with `From `.
///
/// No `>` is ever added to a body line. Readers differ: one that unquotes
/// as the variant says takes the `>` off again, but many do not (Python's
/// `mailbox`, many mail clients) and read it; in HTML a `>` at the start
/// of a line inside a tag closes the tag, so that the attributes after it
/// become elements and text, and a second pass would rewrite what the
/// first made a link. So a line that was in the body keeps its bytes,
/// quoted or not, and every reader reads it as it did (one that splits a
/// message at any `From ` line split it there before too). A line the
/// rewrite would make start with `From ` is written `=46rom ` in
/// quoted-printable (which every reader decodes alike) and cannot arise in
/// base64; in a 7bit or 8bit body it leaves the body as it was.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FromLines {
    /// Any line may start with `From `: a single message, or an mbox
    /// delimited by `Content-Length` (mboxcl2).
    Keep,
    /// A rewrite may not make a line start with `From `, which some mbox
    /// readers take for the start of a message wherever it is (mboxo,
    /// mboxrd, mboxcl).
    Guard,
}

/// Rewrites a message (or MHTML file), handing its HTML and CSS parts to
/// `documents`. `options.outer` is the lowest layer, the retrieval URL.
pub fn rewrite_message(
    bytes: &[u8],
    options: &Options<'_>,
    from_lines: FromLines,
    documents: &dyn Documents,
) -> UnitReport {
    let mut walker = Walker {
        options,
        from_lines,
        documents,
        out: UnitReport::default(),
    };
    // A byte order mark is no part of the first header field; it is read
    // past and kept.
    let skip = if bytes.starts_with(BOM) { BOM.len() } else { 0 };
    let mut edits = walker.message(&bytes[skip..], options.outer, "", 0);
    for edit in &mut edits {
        edit.range = edit.range.start + skip..edit.range.end + skip;
    }
    let mut out = walker.out;
    if !edits.is_empty() {
        out.output = Some(splice::apply_owned(bytes, edits));
    }
    out
}

/// How a part is named in reports of base layers.
pub fn part_label(path: &str, mimetype: &str) -> String {
    format!("{} ({mimetype})", part_name(path))
}

/// How a part is named in messages.
fn part_name(path: &str) -> String {
    if path.is_empty() {
        "the message".to_owned()
    } else {
        format!("part {path}")
    }
}

fn child_path(path: &str, n: usize) -> String {
    if path.is_empty() {
        n.to_string()
    } else {
        format!("{path}.{n}")
    }
}

/// Where `inner`, a slice of `outer`, starts in it.
fn offset_in(outer: &[u8], inner: &[u8]) -> Option<usize> {
    let start = (inner.as_ptr() as usize).checked_sub(outer.as_ptr() as usize)?;
    (start + inner.len() <= outer.len()).then_some(start)
}

/// The encoded body of an entity, as a slice of the input.
fn raw_body<'a>(mail: &'a ParsedMail<'a>) -> &'a [u8] {
    match mail.get_body_encoded() {
        Body::Base64(b) | Body::QuotedPrintable(b) => b.get_raw(),
        Body::SevenBit(b) | Body::EightBit(b) => b.get_raw(),
        Body::Binary(b) => b.get_raw(),
    }
}

struct Walker<'o> {
    options: &'o Options<'o>,
    from_lines: FromLines,
    documents: &'o dyn Documents,
    out: UnitReport,
}

impl Walker<'_> {
    fn warn(&mut self, path: &str, kind: WarningKind, message: impl std::fmt::Display) {
        self.push(path, Warning::new(kind, message));
    }

    fn push(&mut self, path: &str, warning: Warning) {
        self.out.warnings.push(warning.within(part_name(path)));
    }

    /// The edits of a message's bytes.
    fn message(
        &mut self,
        bytes: &[u8],
        enclosing: Option<&Base>,
        path: &str,
        depth: usize,
    ) -> Vec<Edit<Vec<u8>>> {
        let mail = match mailparse::parse_mail(bytes) {
            Ok(mail) => mail,
            Err(err) => {
                self.warn(
                    path,
                    WarningKind::Unreadable,
                    format_args!("not a message mailparse can read ({err}); left as it is"),
                );
                return Vec::new();
            }
        };
        let mut edits = Vec::new();
        self.entity(&mail, bytes, enclosing, path, depth, &mut edits);
        edits
    }

    /// The base of an entity: its own headers' (resolved against the
    /// enclosing base; at the top, Chrome's snapshot header comes next),
    /// else the enclosing one; and the layers.
    fn own_base(
        &mut self,
        headers: &[MailHeader<'_>],
        enclosing: Option<&Base>,
        (path, depth): (&str, usize),
        layers: &mut Vec<Layer>,
    ) -> Option<Base> {
        let top = depth == 0 && path.is_empty();
        let names = BASE_HEADERS
            .iter()
            .chain(top.then_some(&SNAPSHOT_HEADER))
            .copied();
        let mut chain = BaseChain::new(self.options.rules, None, enclosing);
        // Whether a layer above has given the base: one below that cannot
        // serve is then no loss, and no warning.
        let mut served = false;
        for name in names {
            let source = BaseSource::Header {
                name: name.to_owned(),
                part: path.to_owned(),
            };
            let url = match headers::header_url(headers, name) {
                None => continue,
                Some(Ok(url)) => url,
                Some(Err(err)) => {
                    let raw = headers
                        .iter()
                        .find(|h| h.get_key_ref().eq_ignore_ascii_case(name))
                        .map(|h| String::from_utf8_lossy(h.get_value_raw()).trim().to_owned())
                        .unwrap_or_default();
                    chain.ignore(source, &raw, err.to_string());
                    if !served {
                        self.warn(
                            path,
                            WarningKind::LayerIgnored,
                            format_args!("{name} ignored: {err}"),
                        );
                    }
                    continue;
                }
            };
            if name != "Content-Base" && name != "Base" && headers::names_a_part(&url) {
                chain.ignore(source, &url, "a cid: or mid: location names the part");
            } else if let Err(err) = chain.offer(source, &url) {
                self.warn(
                    path,
                    WarningKind::LayerIgnored,
                    format_args!("{name} ignored: {err}"),
                );
            } else {
                served = true;
            }
        }
        let (base, chain_layers) = chain.finish();
        layers.extend(chain_layers);
        base
    }

    fn entity(
        &mut self,
        mail: &ParsedMail<'_>,
        buffer: &[u8],
        enclosing: Option<&Base>,
        path: &str,
        depth: usize,
        edits: &mut Vec<Edit<Vec<u8>>>,
    ) {
        let mut layers = Vec::new();
        let own = self.own_base(&mail.headers, enclosing, (path, depth), &mut layers);
        self.content_location(&mail.headers, buffer, enclosing, path, edits);
        let base = own.as_ref();
        let mimetype = mail.ctype.mimetype.as_str();
        if mimetype.starts_with("multipart/") {
            for (i, sub) in mail.subparts.iter().enumerate() {
                self.entity(sub, buffer, base, &child_path(path, i + 1), depth, edits);
            }
            return;
        }
        let kind = match mimetype {
            "text/html" => PartKind::Html,
            "text/css" => PartKind::Css,
            "application/atom+xml"
            | "application/rss+xml"
            | "application/rdf+xml"
            | "image/svg+xml"
            | "application/xhtml+xml"
            | "application/xml"
            | "text/xml" => PartKind::Xml,
            "message/rfc822" | "message/global" => PartKind::Message,
            _ => return,
        };
        let body = raw_body(mail);
        let Some(start) = offset_in(buffer, body) else {
            self.warn(
                path,
                WarningKind::Unreadable,
                "body could not be located; left as it is",
            );
            return;
        };
        let Some(cte) = self.transfer_encoding(mail, path) else {
            return;
        };
        let layout = Layout::of(body);
        let decoded = match transfer::decode(body, cte, &layout) {
            Ok(decoded) => decoded,
            Err(err) => {
                self.warn(
                    path,
                    WarningKind::Unreadable,
                    format_args!("{err}; left as it is"),
                );
                return;
            }
        };
        let rewritten = match kind {
            PartKind::Message if depth + 1 >= MAX_MESSAGE_DEPTH => {
                self.warn(
                    path,
                    WarningKind::TooDeep,
                    format_args!(
                        "messages nested deeper than {MAX_MESSAGE_DEPTH}; left as they are"
                    ),
                );
                None
            }
            PartKind::Message => {
                let inner = self.message(&decoded, base, path, depth + 1);
                (!inner.is_empty()).then(|| splice::apply_owned(&decoded, inner))
            }
            PartKind::Html | PartKind::Css | PartKind::Xml => {
                self.document(&decoded, mail, base, kind, path, layers)
            }
        };
        let Some(new) = rewritten else { return };
        if let Some(encoded) = self.encode_again((body, decoded, new), cte, &layout, path) {
            edits.push(Edit::new(start..start + body.len(), encoded));
        }
    }

    /// The entity's transfer encoding, or `None` (with a warning) for one
    /// relink does not know.
    fn transfer_encoding(&mut self, mail: &ParsedMail<'_>, path: &str) -> Option<TransferEncoding> {
        let header = mail.headers.iter().find(|h| {
            h.get_key_ref()
                .eq_ignore_ascii_case("Content-Transfer-Encoding")
        });
        let cte_value = header.map(|h| h.get_value());
        let cte = TransferEncoding::from_header(cte_value.as_deref());
        if cte.is_none() {
            self.warn(
                path,
                WarningKind::UnknownEncoding,
                format_args!(
                    "unknown transfer encoding {:?}; left as it is",
                    cte_value.unwrap_or_default()
                ),
            );
        }
        cte
    }

    /// A rewritten body encoded again in its transfer encoding and the
    /// style of its lines, or `None` (with a warning) when it cannot be.
    fn encode_again(
        &mut self,
        (body, decoded, new): (&[u8], Cow<'_, [u8]>, Vec<u8>),
        cte: TransferEncoding,
        layout: &Layout,
        path: &str,
    ) -> Option<Vec<u8>> {
        // Each copy is dropped as soon as the next is made.
        let encoded = match cte {
            TransferEncoding::QuotedPrintable => {
                let encoded = transfer::reencode_qp(body, &decoded, &new, layout);
                drop((decoded, new));
                encoded
            }
            TransferEncoding::Base64 => {
                drop(decoded);
                // The white space after the last group is the body's own
                // (in an mbox, the blank line before the next `From `
                // line): kept as it was.
                let data = body.len()
                    - body
                        .iter()
                        .rev()
                        .take_while(|b| b.is_ascii_whitespace())
                        .count();
                let unended = Layout {
                    final_newline: false,
                    ..*layout
                };
                let mut encoded = transfer::encode(&new, cte, &unended);
                encoded.extend_from_slice(&body[data..]);
                encoded
            }
            _ => new,
        };
        let long_line = |b: &[u8]| {
            b.split(|&c| c == b'\n')
                .any(|l| l.strip_suffix(b"\r").unwrap_or(l).len() > MAX_LINE_OCTETS)
        };
        if matches!(cte, TransferEncoding::SevenBit | TransferEncoding::EightBit)
            && long_line(&encoded)
            && !long_line(body)
        {
            self.warn(
                path,
                WarningKind::LineTooLong,
                format_args!("a rewritten line would pass {MAX_LINE_OCTETS} octets; left as it is"),
            );
            return None;
        }
        if self.from_lines == FromLines::Guard && from_line_added(body, &encoded) {
            self.warn(
                path,
                WarningKind::ArchiveSplit,
                "a rewritten line would start with `From `, which an mbox reader may take for a new message; left as it is",
            );
            return None;
        }
        Some(encoded)
    }

    /// A part's `Content-Location` is a link too: an RFC 2557 reader
    /// matches it against the links of the HTML, so a relative one is
    /// resolved against the base they are (the enclosing entity's), and
    /// listed as a header link. It is read as the reader reads it (see
    /// [`headers::url_value`]: folding white space removed, encoded words
    /// decoded) and, when it changes, written whole (see
    /// [`location_edit`]); any white space or delimiters around the URL
    /// stay.
    fn content_location(
        &mut self,
        headers: &[MailHeader<'_>],
        buffer: &[u8],
        enclosing: Option<&Base>,
        path: &str,
        edits: &mut Vec<Edit<Vec<u8>>>,
    ) {
        let Some(header) = headers
            .iter()
            .find(|h| h.get_key_ref().eq_ignore_ascii_case("Content-Location"))
        else {
            return;
        };
        let raw = header.get_value_raw();
        let Some(at) = offset_in(buffer, raw) else {
            return;
        };
        let Some(token) = headers::url_token(raw) else {
            return;
        };
        // A value that does not decode was reported with the base layers;
        // one that is not UTF-8 is not read into a URL (its bytes would be
        // lost).
        if std::str::from_utf8(raw).is_err() {
            return;
        }
        let Some(Ok(url)) = headers::url_value(raw) else {
            return;
        };
        let token = at + token.start..at + token.end;
        let before = &buffer[..token.start];
        let line = memchr::memchr_iter(b'\n', before).count() + 1;
        let column = token.start - memchr::memrchr(b'\n', before).map_or(0, |i| i + 1) + 1;
        let mut link = Link {
            line,
            column,
            place: LinkPlace::MimeHeader("Content-Location".to_owned()),
            original: url.clone(),
            resolved: url.clone(),
            base: enclosing.cloned(),
            changed: false,
            unresolved: enclosing.is_none()
                && crate::text::stand_in(self.options)
                    .is_some_and(|stand_in| stand_in.url.resolve(&url).is_ok_and(|r| r != url)),
            details: None,
        };
        if let Some(outer) = enclosing {
            match outer.url.resolve(&url) {
                Ok(resolved) if resolved != url => {
                    let value = at + raw.iter().take_while(|b| b.is_ascii_whitespace()).count();
                    edits.push(location_edit(buffer, value, token, &resolved));
                    link.resolved = resolved.into_owned();
                    link.changed = true;
                    self.out.rewritten += 1;
                }
                Ok(_) => {}
                Err(err) => self.warn(
                    path,
                    WarningKind::Unresolvable,
                    format_args!("Content-Location not resolved: {err}"),
                ),
            }
        }
        if self.options.details.records() {
            match self.options.rows {
                Some(rows) => rows.0.row(LinkRow {
                    part: Some(path.to_owned()),
                    ..LinkRow::new(link)
                }),
                None => self.out.rows.push(LinkRow {
                    part: Some(path.to_owned()),
                    ..LinkRow::new(link)
                }),
            }
        }
    }

    /// Rewrites an HTML or CSS part, told the part's charset.
    fn document(
        &mut self,
        decoded: &[u8],
        mail: &ParsedMail<'_>,
        base: Option<&Base>,
        kind: PartKind,
        path: &str,
        layers: Vec<Layer>,
    ) -> Option<Vec<u8>> {
        // The part's charset is its transport; `--encoding` stands in for a
        // part that names none.
        let transport = mail
            .ctype
            .params
            .get("charset")
            .and_then(|label| encoding_rs::Encoding::for_label(label.trim().as_bytes()))
            .or(self.options.transport);
        let options = Options {
            outer: base,
            transport,
            ..*self.options
        };
        let embedded = match kind {
            PartKind::Css => Embedded::Css,
            PartKind::Xml => Embedded::Xml,
            _ => Embedded::Html,
        };
        let mut mapped = None;
        let options = options.mapped(&mut mapped, |row| row.part = Some(path.to_owned()));
        let result = self.documents.rewrite(embedded, decoded, &options);
        match result {
            Ok(mut outcome) => {
                let output = outcome.output.take();
                // The document's own layers first, the headers' below.
                let layers = stack_layers(std::mem::take(&mut outcome.layers), layers);
                let label = part_label(path, &mail.ctype.mimetype);
                let part = |link| LinkRow {
                    part: Some(path.to_owned()),
                    ..LinkRow::new(link)
                };
                let warnings = std::mem::take(&mut outcome.warnings);
                self.out.add_document((label, layers), outcome, part);
                for warning in warnings {
                    self.push(path, warning);
                }
                output
            }
            Err(err) => {
                self.warn(
                    path,
                    WarningKind::Unreadable,
                    format_args!("{err}; left as it is"),
                );
                None
            }
        }
    }
}

/// The longest header line RFC 5322 section 2.1.1 recommends, and the
/// longest it allows, without the line ending.
const HEADER_LINE: usize = 78;
const MAX_HEADER_LINE: usize = 998;

/// The edit that writes `url` in place of a Content-Location's URL, which
/// lies at `token` in `buffer`, its value (delimiters included) starting at
/// `value`. The URL is written whole, replacing any folding inside the old
/// one (an RFC 5322 reader that unfolds without removing white space would
/// otherwise read it with the white space in the middle): as it is when it
/// is printable ASCII, else as RFC 2047 encoded words, which a reader
/// decodes back to it (RFC 2557 section 4.4.1). When the line would pass
/// 78 characters, the value is folded onto a line of its own (white space
/// before a value is no part of it); a URL that would still pass 998 is
/// folded inside, as RFC 2557 section 4.4.2 folds a long URL (its readers
/// remove that white space; there is no other way to carry it).
fn location_edit(buffer: &[u8], value: usize, token: Range<usize>, url: &str) -> Edit<Vec<u8>> {
    let line_end =
        |from: usize| memchr::memchr(b'\n', &buffer[from..]).map_or(buffer.len(), |i| from + i);
    let line_start = |to: usize| memchr::memrchr(b'\n', &buffer[..to]).map_or(0, |i| i + 1);
    // The header's own line ending, for a fold.
    let end = line_end(token.end);
    let crlf = end > token.end && buffer[end - 1] == b'\r';
    let ending: &[u8] = if crlf { b"\r\n" } else { b"\n" };
    let ending_text = if crlf { "\r\n " } else { "\n " };
    let new = if headers::is_plain(url) {
        url.to_owned()
    } else {
        headers::encode_words(url, ending_text)
    };
    // What follows the URL on its line: a closing quote or bracket.
    let tail = &buffer[token.end..end];
    let tail = tail.strip_suffix(b"\r").unwrap_or(tail);
    let first = new
        .split('\n')
        .next()
        .unwrap_or_default()
        .trim_end_matches('\r');
    let single = first.len() == new.len();
    let start_line = line_start(token.start);
    let column = token.start - start_line;
    let width = column + first.len() + if single { tail.len() } else { 0 };
    let value_line = line_start(value);
    let folded_already = buffer[value_line..value]
        .iter()
        .all(|b| matches!(b, b' ' | b'\t'));
    if width > HEADER_LINE && value_line == start_line && !folded_already {
        // The white space before the value becomes a fold.
        let mut ws = value;
        while ws > value_line && matches!(buffer[ws - 1], b' ' | b'\t') {
            ws -= 1;
        }
        let mut text = ending.to_vec();
        text.push(b' ');
        text.extend_from_slice(&buffer[value..token.start]);
        let column = 1 + token.start - value;
        text.extend_from_slice(&fold_long(&new, column, tail.len(), ending_text).into_bytes());
        return Edit::new(ws..token.end, text);
    }
    Edit::new(
        token,
        fold_long(&new, column, tail.len(), ending_text).into_bytes(),
    )
}

/// `url` folded inside, as RFC 2557 section 4.4.2 allows, when written at
/// `column` with `tail` characters after it its line would pass 998
/// characters; else as it is.
fn fold_long(url: &str, column: usize, tail: usize, fold: &str) -> String {
    if column + url.len() + tail <= MAX_HEADER_LINE || url.contains('\n') {
        return url.to_owned();
    }
    let mut out = String::with_capacity(url.len() + url.len() / 64 * 3);
    let mut room = HEADER_LINE.saturating_sub(column).max(1);
    for (i, c) in url.char_indices() {
        if i > 0 && room == 0 {
            out.push_str(fold);
            room = HEADER_LINE - 1;
        }
        out.push(c);
        room = room.saturating_sub(1);
    }
    out
}

/// Whether `new`, a rewrite of `old`, has a line starting with `From `
/// where `old` had none: lines are paired one to one when both have as
/// many, else the lines they share at the start and the end are set aside
/// and the `From ` lines of what is left are counted.
fn from_line_added(old: &[u8], new: &[u8]) -> bool {
    let starts = |line: &[u8]| line.starts_with(b"From ");
    if !new.starts_with(b"From ") && memchr::memmem::find(new, b"\nFrom ").is_none() {
        return false;
    }
    let lines = |b| -> Vec<&[u8]> { <[u8]>::split_inclusive(b, |&c| c == b'\n').collect() };
    let (a, b) = (lines(old), lines(new));
    if a.len() == b.len() {
        return a.iter().zip(&b).any(|(x, y)| starts(y) && !starts(x));
    }
    let head = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let tail = a[head..]
        .iter()
        .rev()
        .zip(b[head..].iter().rev())
        .take_while(|(x, y)| x == y)
        .count();
    let count = |l: &[&[u8]]| l.iter().filter(|x| starts(x)).count();
    count(&b[head..b.len() - tail]) > count(&a[head..a.len() - tail])
}

/// What a part is, for the walk: a document to rewrite, or a message to
/// walk into.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum PartKind {
    Html,
    Css,
    Message,
    Xml,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_from_line_is_added_only_where_there_was_none() {
        assert!(!from_line_added(b"a\nFrom x\n", b"ab\nFrom x\n"));
        assert!(from_line_added(b"a\nxFrom x\n", b"a\nFrom x\n"));
        assert!(from_line_added(b"a x\n", b"a\nFrom x\n"));
        assert!(!from_line_added(b"a\nFrom x\nb\n", b"a\nFrom x\n"));
        assert!(!from_line_added(b"From x", b"From y"));
    }
}
