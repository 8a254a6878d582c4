//! One record: its payload found, decoded, its base built from the HTTP
//! and WARC layers, handed to the HTML or CSS rewrite, and the record
//! written again with its codings, lengths and digests.

use std::borrow::Cow;

use super::digest;
use super::http::{self, Response};
use super::record::RecordView;
use super::{RecordReport, WarcOptions};
use crate::base::{Base, BaseSource, Layer, LayerStatus};
use crate::base::{BaseChain, stack_layers};
use crate::links::{Place, WarningKind};
use crate::options::Options;
use crate::splice::{self, Edit};
use crate::text::{Embedded, Resolver, SameDocument};
use crate::url::{BaseUrl, Rules};

/// The HTTP headers that give a base under RFC 1808 and RFC 3986,
/// innermost first (RFC 2068 sections 14.11 and 14.15, RFC 2616 section
/// 14.14).
pub const HTTP_BASE_HEADERS: [&str; 2] = ["Content-Base", "Content-Location"];

/// A record's new head and block.
#[derive(Debug)]
pub(crate) struct NewRecord {
    pub head: Vec<u8>,
    pub block: Vec<u8>,
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
pub(crate) fn process(
    record: RecordView<'_>,
    options: &WarcOptions<'_>,
    write: bool,
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
            Some(response) => rewrite_response(record, &response, options, write, &mut report),
            None => None,
        },
        "resource" => rewrite_resource(record, options, write, &mut report),
        _ => None,
    };
    report.changed = new.is_some();
    (report, new)
}

fn rewrite_response(
    record: RecordView<'_>,
    response: &Response<'_>,
    options: &WarcOptions<'_>,
    write: bool,
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
    if !write {
        return Some(NewRecord {
            head: Vec::new(),
            block: Vec::new(),
        });
    }
    let mut new_heads = splice::apply(heads, &head_edits);
    // With interim responses, warcio's payload is all after the first
    // head (which stays as it was): the final head is in it.
    let first_head = match response.interim {
        [] => None,
        interim => http::head_len(interim),
    };
    let Some((decoded, new_payload)) = payload else {
        // Only the head changed: the body, and the payload digest over
        // it, stay.
        let block = [&new_heads[..], response.body].concat();
        let payload_digest = |written: &str| match first_head {
            Some(n) if digest::matches(written, &[&record.block[n..]]) => {
                PayloadDigest::BlockFrom(n)
            }
            _ => PayloadDigest::Keep,
        };
        return new_record(record, block, payload_digest, report);
    };
    // A body with no coding is the new payload itself: the record's block
    // is built in its buffer, with no copy between.
    let identity = decoded.codings.identity();
    let (encoded, new_dechunked) = if identity {
        (None, None)
    } else {
        match http::encode(&new_payload, &decoded.codings) {
            Ok((body, dechunked)) => (Some(body), dechunked),
            Err(err) => {
                report.warn(
                    WarningKind::Unreadable,
                    format_args!("payload could not be encoded again ({err}); left as it is"),
                );
                return None;
            }
        }
    };
    let body_len = encoded.as_ref().map_or(new_payload.len(), Vec::len);
    // The HTTP Content-Length follows the body when it gave the body's
    // length (a chunked body has none; a value that was not the body's
    // length, such as `-1`, stays as written).
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
    // or the payload itself; the body as sent when none matches.
    let payload_digest = |written: &str| {
        let body = PayloadDigest::BlockFrom(heads_len);
        let candidates = [
            (Some(response.body), Some(body)),
            (
                first_head.map(|n| &record.block[n..]),
                first_head.map(PayloadDigest::BlockFrom),
            ),
            (
                decoded.dechunked.as_deref(),
                new_dechunked.as_deref().map(PayloadDigest::Over),
            ),
            (
                Some(&decoded.payload[..]),
                Some(new_payload.as_deref().map_or(body, PayloadDigest::Over)),
            ),
        ];
        candidates
            .into_iter()
            .find_map(|(was, now)| was.filter(|was| digest::matches(written, &[was])).and(now))
            .unwrap_or(body)
    };
    new_record(record, block, payload_digest, report)
}

/// The payload of a response, decoded, and its new bytes when the HTML
/// or CSS rewrite changed it.
fn response_payload<'a>(
    response: &Response<'a>,
    target: &mut Target,
    options: &WarcOptions<'_>,
    report: &mut RecordReport,
) -> Option<(http::Decoded<'a>, Vec<u8>)> {
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
    // `--base` stands above the target URI here too.
    let target = target.base(report);
    let Some(base) = BaseChain::new(options.rules, options.forced, target)
        .finish()
        .0
    else {
        report.warn(
            WarningKind::NoBase,
            "no base url: links of the HTTP head left as they are",
        );
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
        let place = Place {
            element: "http",
            attribute: &name,
        };
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
    write: bool,
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
    if !write {
        return Some(NewRecord {
            head: Vec::new(),
            block: Vec::new(),
        });
    }
    // A resource record's payload is its block.
    new_record(record, new_payload, |_| PayloadDigest::Block, report)
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

/// The record's head with its length and digests made right for `block`.
/// `payload_for` tells what the payload digest goes over, told the digest
/// the input wrote.
fn new_record<'p>(
    record: RecordView<'_>,
    block: Vec<u8>,
    payload_for: impl FnOnce(&str) -> PayloadDigest<'p>,
    report: &mut RecordReport,
) -> Option<NewRecord> {
    let mut head = record.head.to_vec();
    let set = |head: &mut Vec<u8>, name: &str, value: String| {
        if let Some(new) = http::set_field(head, name, &value) {
            *head = new;
        }
    };
    set(&mut head, "Content-Length", block.len().to_string());
    if let Some(written) = http::field(record.head, "WARC-Block-Digest") {
        let Some((label, form)) = digest::parse_sha1(&written) else {
            report.warn(
                WarningKind::UnknownEncoding,
                format_args!(
                    "WARC-Block-Digest {written:?} is not a SHA-1 relink can write; left as it is"
                ),
            );
            return None;
        };
        set(
            &mut head,
            "WARC-Block-Digest",
            digest::sha1(&[&block], label, form),
        );
    }
    if let Some(written) = http::field(record.head, "WARC-Payload-Digest") {
        let payload = match payload_for(&written) {
            PayloadDigest::Keep => return Some(NewRecord { head, block }),
            PayloadDigest::Block => &block[..],
            PayloadDigest::BlockFrom(at) => block.get(at..).unwrap_or_default(),
            PayloadDigest::Over(payload) => payload,
        };
        let Some((label, form)) = digest::parse_sha1(&written) else {
            report.warn(
                WarningKind::UnknownEncoding,
                format_args!(
                    "WARC-Payload-Digest {written:?} is not a SHA-1 relink can write; left as it is"
                ),
            );
            return None;
        };
        set(
            &mut head,
            "WARC-Payload-Digest",
            digest::sha1(&[payload], label, form),
        );
    }
    Some(NewRecord { head, block })
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

/// Hands a payload to the HTML or CSS rewrite; its new bytes, if any.
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
) -> Option<Vec<u8>> {
    let document_options = Options {
        outer: base,
        transport: transport.or(options.document.transport),
        ..options.document
    };
    let result = options.documents.rewrite(kind, payload, &document_options);
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
    outcome.output
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
