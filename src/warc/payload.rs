//! One record: its payload found, decoded, its base built from the HTTP
//! and WARC layers, handed to the HTML or CSS rewrite, and the record
//! written again with its codings, lengths and digests.

use super::digest;
use super::http::{self, Response};
use super::record::Record;
use super::{RecordReport, WarcOptions};
use crate::base::{Base, BaseSource, Layer, LayerStatus};
use crate::core::{BaseChain, Embedded, Options, WarningKind, stack_layers};
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

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Html,
    Css,
}

/// The kind of a media type relink rewrites.
fn kind_of(content_type: &str) -> Option<Kind> {
    let essence = content_type.split(';').next().unwrap_or("").trim();
    if essence.eq_ignore_ascii_case("text/html")
        || essence.eq_ignore_ascii_case("application/xhtml+xml")
    {
        Some(Kind::Html)
    } else if essence.eq_ignore_ascii_case("text/css") {
        Some(Kind::Css)
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
    record: &Record,
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
        "response" => match Response::parse(&record.block) {
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
    record: &Record,
    response: &Response<'_>,
    options: &WarcOptions<'_>,
    write: bool,
    report: &mut RecordReport,
) -> Option<NewRecord> {
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
    let kind = match declared {
        Some(kind) => kind?,
        None if sniffs_as_html(&decoded.payload) => Kind::Html,
        None => return None,
    };
    let (base, layers) = http_base(response, options.document.rules, report);
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
    if !write {
        return Some(NewRecord {
            head: Vec::new(),
            block: Vec::new(),
        });
    }
    let (body, new_dechunked) = match http::encode(&new_payload, &decoded.codings) {
        Ok(encoded) => encoded,
        Err(err) => {
            report.warn(
                WarningKind::Unreadable,
                format_args!("payload could not be encoded again ({err}); left as it is"),
            );
            return None;
        }
    };
    let mut http_head = response.head.to_vec();
    if !decoded.codings.chunked()
        && let Some(new) = http::set_field(&http_head, "Content-Length", &body.len().to_string())
    {
        http_head = new;
    }
    let block = [&http_head[..], &body[..]].concat();
    // The payload digest goes over whichever bytes the input's went over:
    // the body as sent (warcio, Heritrix), the body without `chunked`, or
    // the payload itself; the body as sent when none matches.
    let payload_digest = |written: &str| {
        let candidates = [
            (Some(response.body), Some(&body[..])),
            (decoded.dechunked.as_deref(), new_dechunked.as_deref()),
            (Some(&decoded.payload[..]), Some(&new_payload[..])),
        ];
        let payload = candidates
            .iter()
            .find_map(|&(was, now)| was.filter(|was| digest::matches(written, &[was])).and(now))
            .unwrap_or(&body[..]);
        Some(payload)
    };
    new_record(record, block, payload_digest, report)
}

fn rewrite_resource(
    record: &Record,
    options: &WarcOptions<'_>,
    write: bool,
    report: &mut RecordReport,
) -> Option<NewRecord> {
    let content_type = http::field(&record.head, "Content-Type")?;
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
    let (base, layers) = target_base(options.document.rules, report);
    let transport = charset(&content_type);
    let new_payload = rewrite_payload(
        &record.block,
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
    new_record(record, new_payload, |_| None, report)
}

/// The record's head with its length and digests made right for `block`.
/// `payload_for` gives the bytes the payload digest goes over, told the
/// digest the input wrote; `None` when they are the block itself.
fn new_record<'p>(
    record: &Record,
    block: Vec<u8>,
    payload_for: impl FnOnce(&str) -> Option<&'p [u8]>,
    report: &mut RecordReport,
) -> Option<NewRecord> {
    let mut head = record.head.clone();
    let set = |head: &mut Vec<u8>, name: &str, value: String| {
        if let Some(new) = http::set_field(head, name, &value) {
            *head = new;
        }
    };
    set(&mut head, "Content-Length", block.len().to_string());
    if let Some(written) = http::field(&record.head, "WARC-Block-Digest") {
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
    if let Some(written) = http::field(&record.head, "WARC-Payload-Digest") {
        let Some((label, form)) = digest::parse_sha1(&written) else {
            report.warn(
                WarningKind::UnknownEncoding,
                format_args!(
                    "WARC-Payload-Digest {written:?} is not a SHA-1 relink can write; left as it is"
                ),
            );
            return None;
        };
        let payload = payload_for(&written).unwrap_or(&block);
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
    rules: Rules,
    report: &mut RecordReport,
) -> (Option<Base>, Vec<Layer>) {
    let (target, target_layers) = target_base(rules, report);
    // A relative value is resolved against the target URI.
    let mut chain = BaseChain::new(rules, None, target.as_ref());
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
    if target.is_none() {
        // The target URI could not serve: its layer says why.
        layers.extend(target_layers);
    }
    (base, layers)
}

/// The target URI as a base, and its layer.
fn target_base(rules: Rules, report: &mut RecordReport) -> (Option<Base>, Vec<Layer>) {
    let uri = report.target_uri.clone();
    if uri.is_empty() {
        return (None, Vec::new());
    }
    match BaseUrl::parse(&uri, rules) {
        Ok(url) => (
            Some(Base::new(url, BaseSource::TargetUri)),
            vec![Layer::new(BaseSource::TargetUri, uri, LayerStatus::Used)],
        ),
        Err(err) => {
            report.warn(
                WarningKind::LayerIgnored,
                format_args!("WARC-Target-URI ignored: {err}"),
            );
            let layer = Layer::new(
                BaseSource::TargetUri,
                uri,
                LayerStatus::Ignored(err.to_string()),
            );
            (None, vec![layer])
        }
    }
}

/// Hands a payload to the HTML or CSS rewrite; its new bytes, if any.
#[allow(clippy::too_many_arguments)]
fn rewrite_payload(
    payload: &[u8],
    kind: Kind,
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
    let embedded = match kind {
        Kind::Html => Embedded::Html,
        Kind::Css => Embedded::Css,
    };
    let result = options
        .documents
        .rewrite(embedded, payload, &document_options);
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
    report.links = outcome.links;
    report.rewritten = outcome.rewritten;
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
        assert_eq!(kind_of("text/html; charset=utf-8"), Some(Kind::Html));
        assert_eq!(kind_of("TEXT/CSS"), Some(Kind::Css));
        assert_eq!(kind_of("image/png"), None);
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
