//! ARC records (the Internet Archive's format before WARC, versions 1 and
//! 2): one header line, `URL IP-address Archive-date Content-type
//! Archive-length` (version 2 has five more fields before the length),
//! then the block: for an `http` or `https` URL, the HTTP response as
//! received. The URL is the record's retrieval URL, the base layer a WARC
//! record's `WARC-Target-URI` is.
//!
//! A record is handed to the WARC payload code as the `response` (or
//! `resource`) record it would be in a WARC, and written back as ARC with
//! its length field made right; ARC has no digests to recompute (the
//! version 2 checksum field is left as written: tools write `-`).

use super::RecordReport;
use super::WarcOptions;
use super::payload::{self, NewRecord};
use super::record::{Record, RecordView};

/// The fields of a header line: the URL, then the four fields of
/// version 1 (`IP-address Archive-date Content-type Archive-length`) or
/// the nine of version 2. A URL may hold spaces: it is every byte before
/// the last four fields, split at single spaces from the end, as warcio
/// reads it (`rsplit(' ', 4)`); a line whose fields before the last four
/// are laid out as version 2's (an address and a 14-digit date nine and
/// eight fields from the end) keeps its URL before the last nine.
fn fields(head: &[u8]) -> Vec<&[u8]> {
    let line = head.trim_ascii_end();
    let v2: Vec<&[u8]> = line.rsplitn(10, |&b| b == b' ').collect();
    let is_v2 = v2.len() == 10
        && v2[8]
            .iter()
            .all(|&b| b.is_ascii_hexdigit() || matches!(b, b'.' | b':' | b'-'))
        && v2[7].len() >= 14
        && v2[7].iter().all(u8::is_ascii_digit);
    let mut fields: Vec<&[u8]> = if is_v2 {
        v2
    } else {
        line.rsplitn(5, |&b| b == b' ').collect()
    };
    fields.reverse();
    fields
}

/// The record's URL: every field before the last four (or nine, in
/// version 2).
pub(crate) fn url(head: &[u8]) -> String {
    fields(head)
        .first()
        .map(|f| String::from_utf8_lossy(f).into_owned())
        .unwrap_or_default()
}

/// What the record is called in reports, as warcio calls ARC records:
/// `warcinfo` for the file's version block (`filedesc:`), else `response`.
pub(crate) fn record_type(head: &[u8]) -> &'static str {
    if head.starts_with(b"filedesc:") {
        "warcinfo"
    } else {
        "response"
    }
}

/// What a WARC would hold the record as: `warcinfo` for the file's version
/// block, `response` for an HTTP response, else `resource`.
fn warc_type(head: &[u8], block: &[u8]) -> &'static str {
    if head.starts_with(b"filedesc:") {
        "warcinfo"
    } else if block.starts_with(b"HTTP/") {
        "response"
    } else {
        "resource"
    }
}

/// The WARC head a record would have: its type, URL, media type and length.
fn warc_head(record: &Record) -> Vec<u8> {
    let fields = fields(&record.head);
    let mimetype = fields
        .get(3)
        .map(|f| String::from_utf8_lossy(f).into_owned())
        .unwrap_or_default();
    let mut head = format!(
        "WARC/1.0\r\nWARC-Type: {}\r\nWARC-Target-URI: {}\r\n",
        warc_type(&record.head, &record.block),
        url(&record.head),
    );
    if !mimetype.is_empty() && mimetype != "-" {
        head.push_str(&format!("Content-Type: {mimetype}\r\n"));
    }
    head.push_str(&format!("Content-Length: {}\r\n\r\n", record.block.len()));
    head.into_bytes()
}

/// The header line with its length field set to `length`, every other byte
/// kept.
pub(crate) fn with_length(head: &[u8], length: usize) -> Vec<u8> {
    let body = head.trim_ascii_end();
    let end = &head[body.len()..];
    let start = body
        .iter()
        .rposition(|&b| b == b' ')
        .map_or(0, |space| space + 1);
    [&body[..start], length.to_string().as_bytes(), end].concat()
}

/// One ARC record read, and its new bytes when it changed and `write` was
/// asked.
pub(crate) fn process(
    record: &Record,
    options: &WarcOptions<'_>,
    write: bool,
) -> (RecordReport, Option<NewRecord>) {
    // The WARC head the record would have; its block borrowed, not copied.
    let head = warc_head(record);
    let view = RecordView {
        number: record.number,
        head: &head,
        block: &record.block,
    };
    let (mut report, new) = payload::process(view, options, write, false);
    report.record_type = record_type(&record.head).to_owned();
    let new = new.map(|new| NewRecord {
        head: if write {
            with_length(&record.head, new.block.len(&record.block))
        } else {
            Vec::new()
        },
        block: new.block,
    });
    (report, new)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_length_field_is_replaced_in_place() {
        let head = b"http://example.com/ 93.184.216.119 20140216050221 text/html 1591\n";
        assert_eq!(
            with_length(head, 1600),
            b"http://example.com/ 93.184.216.119 20140216050221 text/html 1600\n"
        );
        assert_eq!(url(head), "http://example.com/");
        assert_eq!(super::super::record::arc_length(head), Some(1591));
        let crlf = b"http://a/ 1.2.3.4 20140216050221 text/html 200 - - 0 x.arc 12\r\n";
        assert_eq!(
            with_length(crlf, 7),
            b"http://a/ 1.2.3.4 20140216050221 text/html 200 - - 0 x.arc 7\r\n"
        );
    }

    #[test]
    fn a_url_with_spaces_is_every_field_before_the_last_four() {
        // warcio's `example-space-in-url.arc`.
        let v1 = b"http://example.com/index.cfm?FuseAction=Email&EmailTitle=Examples From The Live Web&IsPopUp=False 93.184.216.119 20140216050221 text/html 1591\n";
        assert_eq!(
            url(v1),
            "http://example.com/index.cfm?FuseAction=Email&EmailTitle=Examples From The Live Web&IsPopUp=False"
        );
        assert_eq!(fields(v1)[3], b"text/html");
        // Two spaces in a row stay in the URL, as warcio splits.
        assert_eq!(
            url(b"http://a/b  c 1.2.3.4 20140216050221 text/html 9\r\n"),
            "http://a/b  c"
        );
        // Version 2: the URL is before the last nine fields.
        let v2 = b"http://a/b c 1.2.3.4 20140216050221 text/html 200 - - 0 x.arc 12\n";
        assert_eq!(url(v2), "http://a/b c");
        assert_eq!(fields(v2)[3], b"text/html");
        assert_eq!(
            url(b"http://a/ 1.2.3.4 20140216050221 text/html 200 - - 0 x.arc 12\n"),
            "http://a/"
        );
        // A version 1 URL with many spaces is not read as version 2.
        let many = b"http://a/ b c d e f 1.2.3.4 20140216050221 text/html 12\n";
        assert_eq!(url(many), "http://a/ b c d e f");
    }

    #[test]
    fn the_version_block_is_no_response() {
        let head = b"filedesc://x.arc 0.0.0.0 20140216050221 text/plain 75\n";
        assert_eq!(warc_type(head, b"1 0 X\n"), "warcinfo");
        assert_eq!(record_type(head), "warcinfo");
        let page = b"http://a/ - - text/html 3\n";
        assert_eq!(warc_type(page, b"HTTP/1.0 200\r\n"), "response");
        assert_eq!(record_type(page), "response");
        assert_eq!(warc_type(b"dns:a - - text/dns 3\n", b"1.2.3.4"), "resource");
    }
}
