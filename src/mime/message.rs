//! Rewriting one message: the MIME tree walked with each entity's base
//! (RFC 1808 section 3.2), HTML and CSS parts rewritten, every other byte
//! copied.

use std::borrow::Cow;

use mailparse::{MailHeader, ParsedMail, body::Body};

use super::BOM;
use super::headers::{self, BASE_HEADERS, SNAPSHOT_HEADER};
use super::transfer::{self, Layout, MAX_LINE_OCTETS, TransferEncoding};
use crate::base::{Base, BaseSource, Layer};
use crate::core::{
    BaseChain, Details, Documents, Embedded, Link, LinkPlace, Options, Warning, WarningKind,
    stack_layers,
};
use crate::splice::{self, Edit};

/// How deep `message/rfc822` parts inside messages are followed.
pub const MAX_MESSAGE_DEPTH: usize = 16;

/// What rewriting a message gave.
#[derive(Debug, Default)]
pub struct MessageOutcome {
    /// The new bytes, or `None` when nothing changed.
    pub output: Option<Vec<u8>>,
    /// Every link found, with the path of its part (`1.2`).
    pub links: Vec<(String, Link)>,
    /// How many links were rewritten.
    pub rewritten: usize,
    /// What could not be done, each naming the part.
    pub warnings: Vec<Warning>,
    /// The HTML and CSS parts, with the layers of their bases.
    pub parts: Vec<PartReport>,
}

/// One HTML or CSS part of a message and the layers of its base,
/// innermost first.
#[derive(Debug, Clone)]
pub struct PartReport {
    /// The part's path (`1.2`), empty for a single-part message.
    pub path: String,
    /// Its media type.
    pub mimetype: String,
    /// The layers it had.
    pub layers: Vec<Layer>,
}

/// What becomes of a line of a rewritten body that starts with `From `.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FromLines {
    /// Left as it is: a message of its own.
    Keep,
    /// Written `>From `, as an mbox that quotes them needs.
    Quote,
}

/// Rewrites a message (or MHTML file), handing its HTML and CSS parts to
/// `documents`. `options.outer` is the lowest layer, the retrieval URL.
pub fn rewrite_message(
    bytes: &[u8],
    options: &Options<'_>,
    from_lines: FromLines,
    documents: &dyn Documents,
) -> MessageOutcome {
    let mut walker = Walker {
        options,
        from_lines,
        documents,
        out: MessageOutcome::default(),
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
        out.output = Some(splice::apply(bytes, &edits));
    }
    out
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
    out: MessageOutcome,
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
        for name in names {
            let Some(url) = headers::header_url(headers, name) else {
                continue;
            };
            let source = BaseSource::Header {
                name: name.to_owned(),
                part: path.to_owned(),
            };
            if name != "Content-Base" && name != "Base" && headers::names_a_part(&url) {
                chain.ignore(source, &url, "a cid: or mid: location names the part");
            } else if let Err(err) = chain.offer(source, &url) {
                self.warn(
                    path,
                    WarningKind::LayerIgnored,
                    format_args!("{name} ignored: {err}"),
                );
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
            "text/html" => Kind::Html,
            "text/css" => Kind::Css,
            "message/rfc822" | "message/global" => Kind::Message,
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
            Kind::Message if depth + 1 >= MAX_MESSAGE_DEPTH => {
                self.warn(
                    path,
                    WarningKind::TooDeep,
                    format_args!(
                        "messages nested deeper than {MAX_MESSAGE_DEPTH}; left as they are"
                    ),
                );
                None
            }
            Kind::Message => {
                let inner = self.message(&decoded, base, path, depth + 1);
                (!inner.is_empty()).then(|| splice::apply(&decoded, &inner))
            }
            Kind::Html | Kind::Css => self.document(&decoded, mail, base, kind, path, layers),
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
                transfer::encode(&new, cte, layout)
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
        Some(if self.from_lines == FromLines::Quote {
            quote_from_lines(encoded)
        } else {
            encoded
        })
    }

    /// A part's `Content-Location` is a link too: an RFC 2557 reader
    /// matches it against the links of the HTML, so a relative one is
    /// resolved against the base they are (the enclosing entity's), and
    /// listed as a header link. The header's folding and any white space
    /// or delimiters around the URL stay; only what changes is replaced.
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
        let Ok(text) = std::str::from_utf8(&raw[token.clone()]) else {
            return;
        };
        let compact: String = text.chars().filter(|c| !c.is_ascii_whitespace()).collect();
        let start = at + token.start;
        let before = &buffer[..start];
        let line = memchr::memchr_iter(b'\n', before).count() + 1;
        let column = start - memchr::memrchr(b'\n', before).map_or(0, |i| i + 1) + 1;
        let mut link = Link {
            line,
            column,
            place: LinkPlace {
                element: String::new(),
                attribute: "Content-Location".to_owned(),
            },
            original: compact.clone(),
            resolved: compact.clone(),
            base: enclosing.cloned(),
            changed: false,
        };
        if compact.contains("=?") {
            // An RFC 2047 encoded word: not a URL as written.
            self.out.links.push((path.to_owned(), link));
            return;
        }
        if let Some(outer) = enclosing {
            match outer.url.resolve(&compact) {
                Ok(resolved) if resolved != compact => {
                    let (prefix, suffix) = splice::common_affixes(&compact, &resolved);
                    // Offsets in the compact URL to offsets in the header,
                    // past the white space of folding.
                    let in_raw = |k: usize| {
                        text.char_indices()
                            .filter(|(_, c)| !c.is_ascii_whitespace())
                            .map(|(i, _)| i)
                            .nth(k)
                            .unwrap_or(text.len())
                    };
                    let range = start + in_raw(prefix)..start + in_raw(compact.len() - suffix);
                    let new = &resolved[prefix..resolved.len() - suffix];
                    edits.push(Edit::new(range, new.as_bytes().to_vec()));
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
        if self.options.details == Details::Links {
            self.out.links.push((path.to_owned(), link));
        }
    }

    /// Rewrites an HTML or CSS part, told the part's charset.
    fn document(
        &mut self,
        decoded: &[u8],
        mail: &ParsedMail<'_>,
        base: Option<&Base>,
        kind: Kind,
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
            Kind::Css => Embedded::Css,
            _ => Embedded::Html,
        };
        let result = self.documents.rewrite(embedded, decoded, &options);
        match result {
            Ok(outcome) => {
                self.out.parts.push(PartReport {
                    path: path.to_owned(),
                    mimetype: mail.ctype.mimetype.clone(),
                    // The document's own layers first, the headers' below.
                    layers: stack_layers(outcome.layers, layers),
                });
                for warning in outcome.warnings {
                    self.push(path, warning);
                }
                self.out.rewritten += outcome.rewritten;
                self.out
                    .links
                    .extend(outcome.links.into_iter().map(|l| (path.to_owned(), l)));
                outcome.output
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

/// Writes each line that starts with `From ` as `>From `, as mbox readers
/// expect in a body.
fn quote_from_lines(body: Vec<u8>) -> Vec<u8> {
    let starts = |i: usize| i == 0 || body[i - 1] == b'\n';
    if !memchr::memmem::find_iter(&body, b"From ").any(starts) {
        return body;
    }
    let mut out = Vec::with_capacity(body.len() + 16);
    let mut copied = 0;
    for i in memchr::memmem::find_iter(&body, b"From ").filter(|&i| starts(i)) {
        out.extend_from_slice(&body[copied..i]);
        out.push(b'>');
        copied = i;
    }
    out.extend_from_slice(&body[copied..]);
    out
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Html,
    Css,
    Message,
}
