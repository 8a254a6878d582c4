//! One record: its payload found, decoded, its base built from the HTTP
//! and WARC layers, handed to the HTML or CSS rewrite, and the record
//! written again with its codings, lengths and digests.

use std::borrow::Cow;
use std::io;

use super::digest::Digest;
use super::http::{self, Response};
use super::record::RecordView;
use super::{RecordReport, WarcOptions};
use crate::base::{Base, BaseSource, Layer, LayerStatus};
use crate::base::{BaseChain, stack_layers};
use crate::links::{Place, WarningKind};
use crate::options::Options;
use crate::splice::{self, Edit, Make, Splice};
use crate::text::{self, Embedded, Resolver, SameDocument};
use crate::url::{BaseUrl, Rules};

/// The HTTP headers that give a base under RFC 1808 and RFC 3986,
/// innermost first (RFC 2068 sections 14.11 and 14.15, RFC 2616 section
/// 14.14).
pub const HTTP_BASE_HEADERS: [&str; 2] = ["Content-Base", "Content-Location"];

/// A record's new head and block.
#[derive(Debug)]
pub(crate) struct NewRecord {
    pub head: Vec<u8>,
    pub block: NewBlock,
}

impl NewRecord {
    /// What a listing gives for a record that would change: no bytes.
    fn listed() -> Self {
        NewRecord {
            head: Vec::new(),
            block: NewBlock::Made(Vec::new()),
        }
    }
}

/// A record's new block: made, or new HTTP heads followed by the record's
/// block as read from `at` on, with a payload's edits spliced in when it
/// has any (a payload with no coding): written from the record read,
/// with no copy of it made.
#[derive(Debug)]
pub(crate) enum NewBlock {
    Made(Vec<u8>),
    Spliced {
        heads: Vec<u8>,
        at: usize,
        splice: Option<Box<Splice>>,
    },
}

impl NewBlock {
    /// Hands the new block's bytes to `piece` in order; `old` is the
    /// record's block as read.
    pub(crate) fn each_piece(
        &self,
        old: &[u8],
        mut piece: impl FnMut(&[u8]) -> io::Result<()>,
    ) -> io::Result<()> {
        match self {
            NewBlock::Made(bytes) => piece(bytes),
            NewBlock::Spliced { heads, at, splice } => {
                piece(heads)?;
                let rest = old.get(*at..).unwrap_or_default();
                match splice {
                    Some(splice) => splice.each_piece(rest, piece),
                    None => piece(rest),
                }
            }
        }
    }

    /// Hands the new block's bytes from `from` on to `piece`.
    fn each_piece_from(&self, old: &[u8], from: usize, mut piece: impl FnMut(&[u8])) {
        let mut skip = from;
        let _ = self.each_piece(old, |bytes| {
            let cut = skip.min(bytes.len());
            skip -= cut;
            piece(&bytes[cut..]);
            Ok(())
        });
    }

    /// How many bytes the new block has.
    pub(crate) fn len(&self, old: &[u8]) -> usize {
        let mut len = 0;
        self.each_piece_from(old, 0, |bytes| len += bytes.len());
        len
    }
}

/// A payload's new bytes: made, or its edits.
enum NewPayload {
    Made(Vec<u8>),
    Spliced(Box<Splice>),
}

impl NewPayload {
    /// The new bytes of `payload`, made.
    fn made(self, payload: &[u8]) -> Vec<u8> {
        match self {
            NewPayload::Made(bytes) => bytes,
            NewPayload::Spliced(splice) => splice.bytes(payload),
        }
    }
}

/// Where `part` lies in `block` when it is all of it from there on.
fn tail_at(block: &[u8], part: &[u8]) -> Option<usize> {
    let at = (part.as_ptr() as usize).checked_sub(block.as_ptr() as usize)?;
    (at <= block.len() && block.len() - at == part.len()).then_some(at)
}

/// The media types of XML documents relink reads: feeds, SVG, XHTML (read
/// as HTML unless it is well-formed XML), and XML in general, as which
/// feeds are often served.
const XML_TYPES: &[&str] = &[
    "application/atom+xml",
    "application/rss+xml",
    "application/rdf+xml",
    "image/svg+xml",
    "application/xhtml+xml",
    "application/xml",
    "text/xml",
];

/// The kind of a media type relink rewrites.
fn kind_of(content_type: &str) -> Option<Embedded> {
    let essence = content_type.split(';').next().unwrap_or("").trim();
    if essence.eq_ignore_ascii_case("text/html") {
        Some(Embedded::Html)
    } else if XML_TYPES.iter().any(|t| essence.eq_ignore_ascii_case(t)) {
        Some(Embedded::Xml)
    } else if essence.eq_ignore_ascii_case("text/css") {
        Some(Embedded::Css)
    } else {
        None
    }
}

/// Whether a payload with no media type is HTML, by the HTML patterns of
/// the WHATWG MIME Sniffing Standard (section 7.1).
fn sniffs_as_html(payload: &[u8]) -> bool {
    const TAGS: [&[u8]; 17] = [
        b"<!DOCTYPE HTML",
        b"<HTML",
        b"<HEAD",
        b"<SCRIPT",
        b"<IFRAME",
        b"<H1",
        b"<DIV",
        b"<FONT",
        b"<TABLE",
        b"<A",
        b"<STYLE",
        b"<TITLE",
        b"<B",
        b"<BODY",
        b"<BR",
        b"<P",
        b"<!--",
    ];
    let start = payload
        .iter()
        .position(|b| !matches!(b, b'\t' | b'\n' | b'\x0c' | b'\r' | b' '))
        .unwrap_or(payload.len());
    let rest = &payload[start..];
    TAGS.iter().any(|tag| {
        rest.len() > tag.len()
            && rest[..tag.len()].eq_ignore_ascii_case(tag)
            && (*tag == b"<!--" || matches!(rest[tag.len()], b' ' | b'>'))
    })
}

/// The charset parameter of a media type.
fn charset(content_type: &str) -> Option<&'static encoding_rs::Encoding> {
    content_type.split(';').skip(1).find_map(|param| {
        let (name, value) = param.split_once('=')?;
        name.trim()
            .eq_ignore_ascii_case("charset")
            .then(|| encoding_rs::Encoding::for_label(value.trim().trim_matches('"').as_bytes()))?
    })
}

/// The value of `WARC-Target-URI`, without the angle brackets WARC 1.0
/// writers put around it.
pub(crate) fn target_uri(head: &[u8]) -> String {
    let uri = http::field(head, "WARC-Target-URI").unwrap_or_default();
    match uri.strip_prefix('<').and_then(|u| u.strip_suffix('>')) {
        Some(inner) => inner.to_owned(),
        None => uri,
    }
}

/// What one record gave: its report, and its new bytes when it changed
/// and `write` was asked.
///
/// `checked` says the record's digests were checked already and hold
/// ([`digests_refuse`]): a listing then does not check them again.
pub(crate) fn process(
    record: RecordView<'_>,
    options: &WarcOptions<'_>,
    write: bool,
    checked: bool,
) -> (RecordReport, Option<NewRecord>) {
    let head = &record.head;
    let mut report = RecordReport {
        number: record.number,
        record_type: http::field(head, "WARC-Type").unwrap_or_default(),
        record_id: http::field(head, "WARC-Record-ID").unwrap_or_default(),
        target_uri: target_uri(head),
        ..RecordReport::default()
    };
    let new = match report.record_type.to_ascii_lowercase().as_str() {
        "response" => match Response::parse(record.block) {
            Some(response) => {
                rewrite_response(record, &response, options, (write, checked), &mut report)
            }
            None => None,
        },
        "resource" => rewrite_resource(record, options, (write, checked), &mut report),
        _ => None,
    };
    report.changed = new.is_some();
    (report, new)
}

/// Whether a record's digests would leave it as it is (one relink does
/// not compute, or one that does not match the record as read), decided
/// before its links are read: rows handed to a sink as they are found
/// must say whether they are written before the rewrite has checked.
/// With it, the digests found to match (a WAT record's `Block-Digest` and
/// `Entity-Digest` are then not computed again).
pub(crate) fn digests_refuse(
    record: RecordView<'_>,
    options: &WarcOptions<'_>,
) -> (bool, Verified) {
    let (refused, verified) = digests_checked(record, options);
    match options.verify_digests {
        true => (refused, verified),
        // Digests only read are not found to match.
        false => (refused, Verified::default()),
    }
}

/// [`digests_refuse`], digests verified as the options say.
fn digests_checked(record: RecordView<'_>, options: &WarcOptions<'_>) -> (bool, Verified) {
    let verify = options.verify_digests;
    let mut quiet = RecordReport::default();
    let record_type = http::field(record.head, "WARC-Type").unwrap_or_default();
    match record_type.to_ascii_lowercase().as_str() {
        "response" => {
            let Some(response) = Response::parse(record.block) else {
                return (false, Verified::default());
            };
            let first_head = match response.interim {
                [] => None,
                interim => http::head_len(interim),
            };
            let Ok(block) = checked_block_digest(record, verify, &mut quiet) else {
                return (true, Verified::default());
            };
            match unchanged_payload_digest(record, &response, first_head, options, &mut quiet) {
                Err(_) => (true, Verified { block, body: None }),
                Ok(found) => {
                    let body = found.filter(|(_, over)| *over == Over::Body);
                    (
                        false,
                        Verified {
                            block,
                            body: body.map(|(digest, _)| digest),
                        },
                    )
                }
            }
        }
        "resource" => match checked_block_digest(record, verify, &mut quiet) {
            Err(_) => (true, Verified::default()),
            Ok(block) => {
                let over = [((), Some(record.block))];
                let refused = checked_payload_digest(record, (&over, verify), &mut quiet).is_err();
                (refused, Verified { block, body: None })
            }
        },
        _ => (false, Verified::default()),
    }
}

/// The digests of a record found to match it: its `WARC-Block-Digest`,
/// and a response's `WARC-Payload-Digest` when it matches the body after
/// the head as it lies in the block.
#[derive(Debug, Default)]
pub(crate) struct Verified {
    pub block: Option<Digest>,
    pub body: Option<Digest>,
}

fn rewrite_response(
    record: RecordView<'_>,
    response: &Response<'_>,
    options: &WarcOptions<'_>,
    (write, checked): (bool, bool),
    report: &mut RecordReport,
) -> Option<NewRecord> {
    let mut target = Target::new(options.document.rules, &report.target_uri);
    // The interim responses and the final head: the head's links are
    // placed by their lines in it.
    let heads = &record.block[..response.interim.len() + response.head.len()];
    let head_edits = http_links(
        heads,
        response.interim.len(),
        &mut target,
        &options.document,
        report,
    );
    let payload = response_payload(response, &mut target, options, report);
    if head_edits.is_empty() && payload.is_none() {
        return None;
    }
    // With interim responses, warcio's payload is all after the first
    // head (which stays as it was): the final head is in it.
    let first_head = match response.interim {
        [] => None,
        interim => http::head_len(interim),
    };
    if !write && checked {
        return Some(NewRecord::listed());
    }
    // The digests are checked where they are verified (a rewrite, or a
    // listing asked to), the block's once: `checked` found it to hold.
    let verify_block = options.verify_digests && !checked;
    let block_digest = checked_block_digest(record, verify_block, report).ok()?;
    let payload_digest = match &payload {
        Some((decoded, _)) => {
            let over = [
                (Over::Body, Some(response.body)),
                (Over::FirstHead, first_head.map(|n| &record.block[n..])),
                (Over::Dechunked, decoded.dechunked.as_deref()),
                (Over::Payload, Some(&decoded.payload[..])),
            ];
            checked_payload_digest(record, (&over, options.verify_digests), report).ok()?
        }
        None => unchanged_payload_digest(record, response, first_head, options, report).ok()?,
    };
    if !write {
        return Some(NewRecord::listed());
    }
    let new_heads = splice::apply(heads, &head_edits);
    let digests = (block_digest, payload_digest, first_head);
    new_response(record, response, (new_heads, payload), digests, report)
}

/// A response record's new head and block, once its new HTTP heads are
/// made: its payload's new bytes, if any, written from the record read
/// when it has no coding, else made and encoded again.
fn new_response(
    record: RecordView<'_>,
    response: &Response<'_>,
    (mut new_heads, payload): (Vec<u8>, Option<(http::Decoded<'_>, NewPayload)>),
    digests: (Option<Digest>, Option<(Digest, Over)>, Option<usize>),
    report: &mut RecordReport,
) -> Option<NewRecord> {
    let Some((decoded, new_payload)) = payload else {
        // Only the head changed: the body, and the payload digest over
        // it, stay (unless the digest goes over the head too).
        let (heads, at) = match tail_at(record.block, response.body) {
            Some(at) => (new_heads, at),
            None => ([&new_heads[..], response.body].concat(), record.block.len()),
        };
        return Some(from_read(
            record,
            (heads, at, None),
            digests,
            PayloadDigest::Keep,
        ));
    };
    let new_payload = match (new_payload, tail_at(record.block, &decoded.payload)) {
        // A body with no coding is the new payload itself: written from
        // the record read, its edits spliced in.
        (NewPayload::Spliced(splice), Some(at)) if decoded.codings.identity() => {
            let body_len = splice.len(&record.block[at..]);
            follow_content_length(&mut new_heads, response, &decoded, body_len);
            let body = PayloadDigest::BlockFrom(new_heads.len());
            return Some(from_read(
                record,
                (new_heads, at, Some(splice)),
                digests,
                body,
            ));
        }
        (new, _) => new.made(&decoded.payload),
    };
    let (block_digest, payload_digest, first_head) = digests;
    // A body with no coding is the new payload itself: the record's block
    // is built in its buffer, with no copy between.
    let (encoded, new_dechunked) = encode_again(&new_payload, &decoded, report)?;
    let body_len = encoded.as_ref().map_or(new_payload.len(), Vec::len);
    follow_content_length(&mut new_heads, response, &decoded, body_len);
    let heads_len = new_heads.len();
    let (block, new_payload) = match encoded {
        Some(body) => ([&new_heads[..], &body[..]].concat(), Some(new_payload)),
        None => (
            splice::apply_owned(
                &new_heads,
                vec![splice::Edit::new(heads_len..heads_len, new_payload)],
            ),
            None,
        ),
    };
    // The payload digest goes over whichever bytes the input's went over:
    // the body as sent (warcio, Heritrix), all after the first head when
    // there are interim responses (warcio), the body without `chunked`,
    // or the payload itself.
    let body = PayloadDigest::BlockFrom(heads_len);
    let over = |over: Over| match over {
        Over::Body => body,
        Over::FirstHead => first_head.map_or(body, PayloadDigest::BlockFrom),
        Over::Dechunked => new_dechunked.as_deref().map_or(body, PayloadDigest::Over),
        Over::Payload => new_payload.as_deref().map_or(body, PayloadDigest::Over),
    };
    let payload_digest = payload_digest.map(|(digest, at)| (digest, over(at)));
    Some(new_record(
        record,
        NewBlock::Made(block),
        block_digest,
        payload_digest,
    ))
}

/// The new body of a payload with codings, done again as the input did
/// them, and the body without `chunked` (`None`, `None` for a body with
/// no coding: the payload is the body); `None` when they cannot be done
/// again, with a warning.
#[allow(clippy::type_complexity)]
fn encode_again(
    new_payload: &[u8],
    decoded: &http::Decoded<'_>,
    report: &mut RecordReport,
) -> Option<(Option<Vec<u8>>, Option<Vec<u8>>)> {
    if decoded.codings.identity() {
        return Some((None, None));
    }
    match http::encode(new_payload, &decoded.codings) {
        Ok((body, dechunked)) => Some((Some(body), dechunked)),
        Err(err) => {
            report.warn(
                WarningKind::Unreadable,
                format_args!("payload could not be encoded again ({err}); left as it is"),
            );
            None
        }
    }
}

/// The HTTP Content-Length of the final head follows the body when it gave
/// the body's length (a chunked body has none; a value that was not the
/// body's length, such as `-1`, stays as written).
fn follow_content_length(
    new_heads: &mut Vec<u8>,
    response: &Response<'_>,
    decoded: &http::Decoded<'_>,
    body_len: usize,
) {
    let final_head = &new_heads[response.interim.len()..];
    let gave_length = http::field(final_head, "Content-Length")
        .and_then(|v| v.parse::<usize>().ok())
        .is_some_and(|n| n == response.body.len());
    if !decoded.codings.chunked()
        && gave_length
        && let Some(new) = http::set_field(final_head, "Content-Length", &body_len.to_string())
    {
        new_heads.truncate(response.interim.len());
        new_heads.extend_from_slice(&new);
    }
}

/// The bytes of the input a response's payload digest went over.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Over {
    /// The message body as sent.
    Body,
    /// All after the first head (with interim responses, as warcio reads
    /// them).
    FirstHead,
    /// The body without its `chunked` coding.
    Dechunked,
    /// The payload, every coding undone.
    Payload,
}

/// A record's digest could not be read or did not verify: the record is
/// left as it is (warned).
struct Refused;

/// A digest field of the record, read: `None` when there is none; refused
/// (with a warning) when relink cannot compute it.
fn read_digest(
    record: RecordView<'_>,
    name: &str,
    report: &mut RecordReport,
) -> Result<Option<Digest>, Refused> {
    let Some(written) = http::field(record.head, name) else {
        return Ok(None);
    };
    match Digest::parse(&written) {
        Ok(digest) => Ok(Some(digest)),
        Err(why) => Err(refuse(
            report,
            WarningKind::UnknownEncoding,
            format_args!("{name} {written:?} {why}"),
        )),
    }
}

/// Leaves a record as it is: nothing of it is rewritten, nor counted as
/// rewritten, in any mode.
fn refuse(report: &mut RecordReport, kind: WarningKind, why: std::fmt::Arguments<'_>) -> Refused {
    report.warn(kind, format_args!("{why}; left as it is"));
    report.rewritten = 0;
    for link in &mut report.links {
        link.changed = false;
    }
    Refused
}

/// The record's `WARC-Block-Digest`, verified over its block as read
/// when `verify` (else only read).
fn checked_block_digest(
    record: RecordView<'_>,
    verify: bool,
    report: &mut RecordReport,
) -> Result<Option<Digest>, Refused> {
    let Some(digest) = read_digest(record, "WARC-Block-Digest", report)? else {
        return Ok(None);
    };
    if verify && !digest.verifies(&[record.block]) {
        let written = http::field(record.head, "WARC-Block-Digest").unwrap_or_default();
        return Err(refuse(
            report,
            WarningKind::Malformed,
            format_args!("WARC-Block-Digest {written:?} does not match the block as read"),
        ));
    }
    Ok(Some(digest))
}

/// Bytes a payload digest may go over, and what they are (none when the
/// record has no such bytes).
type Candidate<'a, T> = (T, Option<&'a [u8]>);

/// The record's `WARC-Payload-Digest`, and the first of `over` it
/// verifies over (unverified: the first there is).
fn checked_payload_digest<T: Copy>(
    record: RecordView<'_>,
    (over, verify): (&[Candidate<'_, T>], bool),
    report: &mut RecordReport,
) -> Result<Option<(Digest, T)>, Refused> {
    let Some(digest) = read_digest(record, "WARC-Payload-Digest", report)? else {
        return Ok(None);
    };
    let found = over.iter().find_map(|&(at, bytes)| {
        bytes
            .filter(|b| !verify || digest.verifies(&[b]))
            .and(Some(at))
    });
    match found {
        Some(at) => Ok(Some((digest, at))),
        None => {
            let written = http::field(record.head, "WARC-Payload-Digest").unwrap_or_default();
            Err(refuse(
                report,
                WarningKind::Malformed,
                format_args!("WARC-Payload-Digest {written:?} does not match the payload as read"),
            ))
        }
    }
}

/// The payload digest of a response whose payload stays (only its head
/// changed): verified over the body as sent, all after the first head,
/// and only when neither matches, over the body decoded.
fn unchanged_payload_digest(
    record: RecordView<'_>,
    response: &Response<'_>,
    first_head: Option<usize>,
    options: &WarcOptions<'_>,
    report: &mut RecordReport,
) -> Result<Option<(Digest, Over)>, Refused> {
    let raw = [
        (Over::FirstHead, first_head.map(|n| &record.block[n..])),
        (Over::Body, Some(response.body)),
    ];
    let mut quiet = RecordReport::default();
    if let Ok(found) = checked_payload_digest(record, (&raw, options.verify_digests), &mut quiet) {
        return Ok(found);
    }
    let decoded = http::decode(response, options.max_payload_bytes).ok();
    let over = [
        (
            Over::Dechunked,
            decoded.as_ref().and_then(|d| d.dechunked.as_deref()),
        ),
        (Over::Payload, decoded.as_ref().map(|d| &d.payload[..])),
    ];
    checked_payload_digest(record, (&over, options.verify_digests), report)
}

/// The payload of a response, decoded, and its new bytes when the HTML
/// or CSS rewrite changed it.
fn response_payload<'a>(
    response: &Response<'a>,
    target: &mut Target,
    options: &WarcOptions<'_>,
    report: &mut RecordReport,
) -> Option<(http::Decoded<'a>, NewPayload)> {
    let content_type = response.field("Content-Type");
    let declared = content_type.as_deref().map(kind_of);
    // A declared type that is neither HTML nor CSS is not decoded at all.
    if declared == Some(None) {
        return None;
    }
    let decoded = match http::decode(response, options.max_payload_bytes) {
        Ok(decoded) => decoded,
        Err(err) => {
            report.warn(
                WarningKind::Unreadable,
                format_args!("payload left as it is: {err}"),
            );
            return None;
        }
    };
    if let Some(why) = &decoded.broken {
        report.warn(
            WarningKind::Unreadable,
            format_args!("payload left as it is: {why}"),
        );
        return None;
    }
    for (kind, message) in &decoded.warnings {
        report.warn(*kind, message);
    }
    let kind = match declared {
        Some(kind) => kind?,
        None if sniffs_as_html(&decoded.payload) => Embedded::Html,
        None => return None,
    };
    let (base, layers) = http_base(response, target, options.document.rules, report);
    let transport = content_type.as_deref().and_then(charset);
    let new_payload = rewrite_payload(
        &decoded.payload,
        kind,
        content_type.unwrap_or_else(|| "text/html".to_owned()),
        base.as_ref(),
        layers,
        transport,
        options,
        report,
    )?;
    Some((decoded, new_payload))
}

/// The links of an HTTP response's head (`Location`, `Content-Location`,
/// `Refresh`, `Link`), resolved against the target URI (RFC 8288 section
/// 3.2, RFC 7231 section 7.1.2), not against the payload's base, and
/// recorded in the report; returns the edits of `heads` (interim heads
/// then the final one, which starts at `head_start`). Only a URL's bytes
/// change; a value that is not UTF-8, or folded inside its URL, is left.
fn http_links(
    heads: &[u8],
    head_start: usize,
    target: &mut Target,
    options: &Options<'_>,
    report: &mut RecordReport,
) -> Vec<Edit> {
    let urls = http::header_urls(&heads[head_start..]);
    if urls.is_empty() {
        return Vec::new();
    }
    head_layers(target, options, report);
    // `--base` stands above the target URI here too.
    let target = target.base(report);
    let base = BaseChain::new(options.rules, options.forced, target)
        .finish()
        .0;
    let Some(base) = base.or_else(|| {
        report.warn(
            WarningKind::NoBase,
            "no base url: links of the HTTP head left as they are",
        );
        text::stand_in(options)
    }) else {
        return Vec::new();
    };
    let text = one_char_per_bad_byte(heads);
    let mut resolver = Resolver::new(&text, options);
    let mut edits = Vec::new();
    for url in urls {
        let range = head_start + url.range.start..head_start + url.range.end;
        let name = String::from_utf8_lossy(url.name);
        let value = text
            .get(range.clone())
            .filter(|v| v.as_bytes() == &heads[range.clone()]);
        let Some(value) = value else {
            resolver.warn(
                range.start,
                WarningKind::Unreadable,
                format_args!("{name}: not UTF-8; left as it is"),
            );
            continue;
        };
        if value.contains(['\r', '\n']) {
            resolver.warn(
                range.start,
                WarningKind::Unreadable,
                format_args!("{name}: folded inside its URL; left as it is"),
            );
            continue;
        }
        let place = Place::HttpHeader(&name);
        if let Some(new) = resolver.resolve(range.start, value, &base, place, SameDocument::Resolve)
        {
            edits.push(Edit::new(range, new).narrowed(&text));
        }
    }
    let out = resolver.out;
    for warning in out.warnings {
        report.push(warning.within("HTTP head"));
    }
    report.links.extend(out.links);
    report.rewritten += out.rewritten;
    edits
}

/// The layers of a record whose HTTP head has links: the target URI's,
/// until a payload's document gives its own, so that `relink explain`
/// names the record and the base its head's links resolve against even
/// when it holds no document (a redirect).
fn head_layers(target: &Target, options: &Options<'_>, report: &mut RecordReport) {
    report.head_links = true;
    if !report.layers.is_empty() {
        return;
    }
    // `--base` stands above the target URI, as for the links.
    let chain = BaseChain::new(options.rules, options.forced, target.base.as_ref());
    let (_, mut layers) = chain.finish();
    if target.base.is_none() {
        // The target URI could not serve: its layer says why.
        layers.extend(target.layers.iter().cloned());
    }
    report.layers = layers;
}

/// `bytes` as text, each byte that is not part of a UTF-8 character
/// standing as one control character, so that offsets stay the bytes'.
fn one_char_per_bad_byte(bytes: &[u8]) -> Cow<'_, str> {
    if let Ok(text) = std::str::from_utf8(bytes) {
        return Cow::Borrowed(text);
    }
    let mut text = String::with_capacity(bytes.len());
    for chunk in bytes.utf8_chunks() {
        text.push_str(chunk.valid());
        text.extend(chunk.invalid().iter().map(|_| '\u{1a}'));
    }
    Cow::Owned(text)
}

fn rewrite_resource(
    record: RecordView<'_>,
    options: &WarcOptions<'_>,
    (write, checked): (bool, bool),
    report: &mut RecordReport,
) -> Option<NewRecord> {
    let content_type = http::field(record.head, "Content-Type")?;
    let kind = kind_of(&content_type)?;
    if record.block.len() > options.max_payload_bytes {
        report.warn(
            WarningKind::TooLarge,
            format_args!(
                "payload of {} bytes passes the limit of {} bytes; left as it is",
                record.block.len(),
                options.max_payload_bytes
            ),
        );
        return None;
    }
    let mut target = Target::new(options.document.rules, &report.target_uri);
    let base = target.base(report).cloned();
    let layers = target.layers;
    let transport = charset(&content_type);
    let new_payload = rewrite_payload(
        record.block,
        kind,
        content_type,
        base.as_ref(),
        layers,
        transport,
        options,
        report,
    )?;
    if !write && checked {
        return Some(NewRecord::listed());
    }
    // The block's digest is verified once: `checked` found it to hold.
    let verify_block = options.verify_digests && !checked;
    let block_digest = checked_block_digest(record, verify_block, report).ok()?;
    let payload_digest = checked_payload_digest(
        record,
        (&[((), Some(record.block))], options.verify_digests),
        report,
    )
    .ok()?;
    if !write {
        return Some(NewRecord::listed());
    }
    // A resource record's payload is its block.
    let payload_digest = payload_digest.map(|(digest, ())| (digest, PayloadDigest::Block));
    let block = match new_payload {
        NewPayload::Spliced(splice) => NewBlock::Spliced {
            heads: Vec::new(),
            at: 0,
            splice: Some(splice),
        },
        NewPayload::Made(bytes) => NewBlock::Made(bytes),
    };
    Some(new_record(record, block, block_digest, payload_digest))
}

/// A response record written from the record read: its new heads, then
/// its block from `at` on with `splice` in it (or as it is); the payload
/// digest over `body` (as it was, when only the heads changed), or over
/// all after the first head when the input's did.
fn from_read(
    record: RecordView<'_>,
    (heads, at, splice): (Vec<u8>, usize, Option<Box<Splice>>),
    (block_digest, payload_digest, first_head): (
        Option<Digest>,
        Option<(Digest, Over)>,
        Option<usize>,
    ),
    body: PayloadDigest<'static>,
) -> NewRecord {
    let over = |over: Over| match (over, first_head) {
        (Over::FirstHead, Some(n)) => PayloadDigest::BlockFrom(n),
        _ => body,
    };
    let payload_digest = payload_digest.map(|(digest, at)| (digest, over(at)));
    let block = NewBlock::Spliced { heads, at, splice };
    new_record(record, block, block_digest, payload_digest)
}

/// What the payload digest of a new record goes over.
#[derive(Debug, Clone, Copy)]
enum PayloadDigest<'p> {
    /// The block (a resource record's payload).
    Block,
    /// The new block from this offset on.
    BlockFrom(usize),
    /// These bytes.
    Over(&'p [u8]),
    /// The payload did not change: the digest stays as written.
    Keep,
}

/// The record's head with its length and digests made right for `block`:
/// each digest the input had, in its algorithm and form, the payload
/// digest over what `payload_digest` tells.
fn new_record(
    record: RecordView<'_>,
    block: NewBlock,
    block_digest: Option<Digest>,
    payload_digest: Option<(Digest, PayloadDigest<'_>)>,
) -> NewRecord {
    let mut head = record.head.to_vec();
    let set = |head: &mut Vec<u8>, name: &str, value: String| {
        if let Some(new) = http::set_field(head, name, &value) {
            *head = new;
        }
    };
    let old = record.block;
    // The digest of the new block from `from` on.
    let from = |digest: &Digest, from: usize| {
        digest.of_pieces(|update| block.each_piece_from(old, from, update))
    };
    set(&mut head, "Content-Length", block.len(old).to_string());
    if let Some(digest) = block_digest {
        set(&mut head, "WARC-Block-Digest", from(&digest, 0));
    }
    if let Some((digest, over)) = payload_digest {
        let value = match over {
            PayloadDigest::Keep => None,
            PayloadDigest::Block => Some(from(&digest, 0)),
            PayloadDigest::BlockFrom(at) => Some(from(&digest, at)),
            PayloadDigest::Over(payload) => Some(digest.of(&[payload])),
        };
        if let Some(value) = value {
            set(&mut head, "WARC-Payload-Digest", value);
        }
    }
    NewRecord { head, block }
}

/// The base layers of an HTTP response, innermost first: `Content-Base`
/// and `Content-Location` under the RFC rules, then the target URI.
fn http_base(
    response: &Response<'_>,
    target: &mut Target,
    rules: Rules,
    report: &mut RecordReport,
) -> (Option<Base>, Vec<Layer>) {
    // A relative value is resolved against the target URI.
    let mut chain = BaseChain::new(rules, None, target.base(report));
    for name in HTTP_BASE_HEADERS {
        let Some(value) = response.field(name).filter(|v| !v.is_empty()) else {
            continue;
        };
        let source = BaseSource::Header {
            name: name.to_owned(),
            part: String::new(),
        };
        if rules == Rules::Whatwg {
            // Browsers take no base from HTTP headers (RFC 7231 appendix B).
            chain.ignore(source, &value, "no base under the whatwg rules");
        } else if let Err(err) = chain.offer(source, &value) {
            report.warn(
                WarningKind::LayerIgnored,
                format_args!("{name} ignored: {err}"),
            );
        }
    }
    let (base, mut layers) = chain.finish();
    if target.base.is_none() {
        // The target URI could not serve: its layer says why.
        layers.extend(target.layers.iter().cloned());
    }
    (base, layers)
}

/// The target URI as a base, and its layer; why it cannot serve, until
/// that is told.
struct Target {
    base: Option<Base>,
    layers: Vec<Layer>,
    error: Option<String>,
}

impl Target {
    fn new(rules: Rules, uri: &str) -> Self {
        if uri.is_empty() {
            return Target {
                base: None,
                layers: Vec::new(),
                error: None,
            };
        }
        match BaseUrl::parse(uri, rules) {
            Ok(url) => Target {
                base: Some(Base::new(url, BaseSource::TargetUri)),
                layers: vec![Layer::new(BaseSource::TargetUri, uri, LayerStatus::Used)],
                error: None,
            },
            Err(err) => Target {
                base: None,
                layers: vec![Layer::new(
                    BaseSource::TargetUri,
                    uri,
                    LayerStatus::Ignored(err.to_string()),
                )],
                error: Some(err.to_string()),
            },
        }
    }

    /// The base, with a warning the first time it is asked for and the
    /// target URI cannot serve.
    fn base(&mut self, report: &mut RecordReport) -> Option<&Base> {
        if let Some(err) = self.error.take() {
            report.warn(
                WarningKind::LayerIgnored,
                format_args!("WARC-Target-URI ignored: {err}"),
            );
        }
        self.base.as_ref()
    }
}

/// Hands a payload to the HTML or CSS rewrite; its new bytes, if any
/// changed, made or as the edits to splice in (when the record is not
/// written, `write` false, only whether it changed is used).
#[allow(clippy::too_many_arguments)]
fn rewrite_payload(
    payload: &[u8],
    kind: Embedded,
    mimetype: String,
    base: Option<&Base>,
    layers: Vec<Layer>,
    transport: Option<&'static encoding_rs::Encoding>,
    options: &WarcOptions<'_>,
    report: &mut RecordReport,
) -> Option<NewPayload> {
    let document_options = Options {
        outer: base,
        transport: transport.or(options.document.transport),
        ..options.document
    };
    let documents = options.documents;
    let result = documents.rewrite_made(kind, payload, &document_options, Make::Splice);
    let outcome = match result {
        Ok(outcome) => outcome,
        Err(err) => {
            report.warn(
                WarningKind::Unreadable,
                format_args!("{err}; left as it is"),
            );
            return None;
        }
    };
    report.mimetype = mimetype
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase();
    // The document's own layers come first; the HTTP and WARC ones below.
    report.layers = stack_layers(outcome.layers, layers);
    for warning in outcome.warnings {
        report.push(warning);
    }
    // Links of the HTTP head, if any, come first.
    report.links.extend(outcome.links);
    report.rewritten += outcome.rewritten;
    report.head = outcome.head;
    match (outcome.output, outcome.splice) {
        (Some(bytes), _) => Some(NewPayload::Made(bytes)),
        (None, Some(splice)) => Some(NewPayload::Spliced(Box::new(splice))),
        (None, None) => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sniffing_finds_html_patterns_only() {
        assert!(sniffs_as_html(b"\r\n  <!doctype html><p>"));
        assert!(sniffs_as_html(b"<HTML>"));
        assert!(sniffs_as_html(b"<!-- x -->"));
        assert!(!sniffs_as_html(b"<htmlx>"));
        assert!(!sniffs_as_html(b"body { color: red }"));
        assert!(!sniffs_as_html(b"<?xml version='1.0'?>"));
    }

    #[test]
    fn kinds_and_charsets_come_from_the_media_type() {
        assert_eq!(kind_of("text/html; charset=utf-8"), Some(Embedded::Html));
        assert_eq!(kind_of("TEXT/CSS"), Some(Embedded::Css));
        assert_eq!(kind_of("image/png"), None);
        assert_eq!(kind_of("application/atom+xml"), Some(Embedded::Xml));
        assert_eq!(
            kind_of("Application/XHTML+XML; charset=utf-8"),
            Some(Embedded::Xml)
        );
        assert_eq!(
            charset("text/html; charset=\"ISO-8859-1\""),
            Some(encoding_rs::WINDOWS_1252)
        );
        assert_eq!(charset("text/html"), None);
    }

    #[test]
    fn target_uri_loses_its_angle_brackets() {
        let head = b"WARC/1.0\r\nWARC-Target-URI: <http://a/b>\r\n\r\n";
        assert_eq!(target_uri(head), "http://a/b");
        let head = b"WARC/1.1\r\nWARC-Target-URI: http://a/b\r\n\r\n";
        assert_eq!(target_uri(head), "http://a/b");
    }
}
