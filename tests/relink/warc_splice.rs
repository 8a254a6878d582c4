//! Records written from the record read, a payload's edits spliced into
//! its body: payloads in encodings whose text is decoded into a copy (a
//! byte order mark, UTF-16, bytes that are not UTF-8), interim responses,
//! empty bodies, ARC records and gzip members. Each rewritten file is
//! checked by warcio, a reader that shares no code with relink.

use std::io::Write;

use flate2::Compression;
use relink::{Input, Rewriter};
use serde_json::Value;

use crate::fixture;
use crate::warc::run_archive;

fn sha1(bytes: &[u8]) -> String {
    sha1_smol::Sha1::from(bytes).digest().to_string()
}

/// A `response` record for `uri` holding `block`, its payload digest over
/// the block from `payload_at` on.
fn response(uri: &str, block: &[u8], payload_at: usize) -> Vec<u8> {
    let head = format!(
        "WARC/1.1\r\nWARC-Type: response\r\nWARC-Record-ID: <urn:uuid:{}>\r\nWARC-Target-URI: {uri}\r\nContent-Type: application/http; msgtype=response\r\nWARC-Block-Digest: sha1:{}\r\nWARC-Payload-Digest: sha1:{}\r\nContent-Length: {}\r\n\r\n",
        sha1(uri.as_bytes()),
        sha1(block),
        sha1(&block[payload_at..]),
        block.len()
    );
    [head.as_bytes(), block, b"\r\n\r\n"].concat()
}

/// An HTTP response of `content_type` with `body`, its Content-Length
/// given, as a record for `uri` whose payload digest is over the body.
fn page(uri: &str, content_type: &str, body: &[u8]) -> Vec<u8> {
    let head = format!(
        "HTTP/1.1 200 OK\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\n\r\n",
        body.len()
    );
    response(uri, &[head.as_bytes(), body].concat(), head.len())
}

/// Every record of a WARC file as warcio reads it, after `warcio check`
/// passed on it (see fixtures/warc/check_warc.py).
fn warcio(bytes: &[u8], name: &str) -> Vec<Value> {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(name);
    std::fs::write(&path, bytes).unwrap();
    let check = fixture("warc/check_warc.py");
    let output = std::process::Command::new(crate::python())
        .args([check.to_str().unwrap(), path.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice::<Value>(&output.stdout)
        .unwrap()
        .as_array()
        .unwrap()
        .clone()
}

fn rewrite(input: &[u8]) -> Vec<u8> {
    let (out, summary) = run_archive(&Rewriter::new(), Input::bytes(input), true)
        .unwrap()
        .summary();
    assert!(summary.changed > 0, "{:?}", summary.warnings);
    out
}

fn utf16le(text: &str) -> Vec<u8> {
    text.encode_utf16().flat_map(u16::to_le_bytes).collect()
}

/// The payloads whose text is a copy decoded from the bytes: the edits'
/// offsets are found again in the bytes, after any byte order mark.
fn decoded_payloads() -> Vec<(&'static str, Vec<u8>, Vec<u8>)> {
    let bom8 = [&b"\xef\xbb\xbf"[..], b"<a href=x>\xff</a><img src=y>"].concat();
    let bom8_new = [
        &b"\xef\xbb\xbf"[..],
        b"<a href=http://a.example/bom8/x>\xff</a><img src=http://a.example/bom8/y>",
    ]
    .concat();
    let utf16 = [&b"\xff\xfe"[..], &utf16le("<a href=x>\u{e9}</a>")].concat();
    let utf16_new = [
        &b"\xff\xfe"[..],
        &utf16le("<a href=http://a.example/utf16/x>\u{e9}</a>"),
    ]
    .concat();
    let sjis =
        b"<meta charset=shift_jis><p>\x83\x65\x83\x58\x83<a href=x>\x80</a><a href=z>".to_vec();
    let sjis_new = b"<meta charset=shift_jis><p>\x83\x65\x83\x58\x83<a href=http://a.example/sjis/x>\x80</a><a href=http://a.example/sjis/z>".to_vec();
    vec![
        ("bom8", bom8, bom8_new),
        ("utf16", utf16, utf16_new),
        ("sjis", sjis, sjis_new),
    ]
}

/// The payload warcio read from a record, its bytes given one a character.
fn payload_of(record: &Value) -> Vec<u8> {
    let payload = record["payload"].as_str().unwrap();
    payload.chars().map(|c| c as u8).collect()
}

#[test]
fn payloads_decoded_into_a_copy_are_spliced_where_their_bytes_are() {
    let cases = decoded_payloads();
    let input: Vec<u8> = cases
        .iter()
        .flat_map(|(name, body, _)| page(&format!("http://a.example/{name}/"), "text/html", body))
        .collect();
    let out = rewrite(&input);
    let records = warcio(&out, "out.warc");
    assert_eq!(records.len(), cases.len());
    for ((name, _, new), record) in cases.iter().zip(&records) {
        assert_eq!(&payload_of(record), new, "{name}");
        assert_eq!(record["length_ok"], true, "{name}");
    }
}

/// An interim response before the final one: warcio's payload digest is
/// over all after the first head, the final head with its new length in
/// it; Heritrix's over the body alone.
#[test]
fn a_payload_after_interim_responses_is_spliced_with_its_digests() {
    let interim = b"HTTP/1.1 100 Continue\r\n\r\n";
    let head = b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: 10\r\n\r\n";
    let block = [&interim[..], head, b"<a href=x>"].concat();
    let first = rewrite(&response("http://a.example/first/", &block, interim.len()));
    let records = warcio(&first, "out.warc");
    // warcio reads the final head as the payload's start.
    assert_eq!(
        records[0]["payload"],
        "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: 33\r\n\r\n<a href=http://a.example/first/x>"
    );
    // warcio reads a payload digest over the body alone as wrong: checked
    // here.
    let body = rewrite(&response(
        "http://a.example/body/",
        &block,
        interim.len() + head.len(),
    ));
    let new_body = b"<a href=http://a.example/body/x>";
    let digest = format!("WARC-Payload-Digest: sha1:{}\r\n", sha1(new_body));
    let text = String::from_utf8_lossy(&body);
    assert!(text.contains(&digest), "{text}");
    assert!(text.contains("Content-Length: 32\r\n\r\n<a href"), "{text}");
}

/// A record whose head only changed, with an empty body or none after
/// the head, keeps its body and its payload digest.
#[test]
fn a_head_changed_over_an_empty_body_keeps_its_digests() {
    let moved = b"HTTP/1.1 301 Moved\r\nLocation: x\r\nContent-Length: 0\r\n\r\n";
    let cut = b"HTTP/1.1 301 Moved\r\nLocation: x\r\n";
    let input = [
        response("http://a.example/moved/", moved, moved.len()),
        response("http://a.example/cut/", cut, cut.len()),
    ]
    .concat();
    let out = rewrite(&input);
    let records = warcio(&out, "out.warc");
    assert_eq!(records.len(), 2);
    let text = String::from_utf8_lossy(&out);
    assert!(
        text.contains("Location: http://a.example/moved/x\r\n"),
        "{text}"
    );
    assert!(
        text.contains("Location: http://a.example/cut/x\r\n"),
        "{text}"
    );
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut w = flate2::write::GzEncoder::new(Vec::new(), Compression::default());
    w.write_all(bytes).unwrap();
    w.finish().unwrap()
}

/// Each record in its own gzip member, as most WARC files are written.
#[test]
fn records_in_gzip_members_are_spliced_with_their_digests() {
    let cases = decoded_payloads();
    let input: Vec<u8> = cases
        .iter()
        .flat_map(|(name, body, _)| {
            gzip(&page(
                &format!("http://a.example/{name}/"),
                "text/html",
                body,
            ))
        })
        .collect();
    let out = rewrite(&input);
    let records = warcio(&out, "out.warc.gz");
    assert_eq!(records.len(), cases.len());
    for ((name, _, new), record) in cases.iter().zip(&records) {
        assert_eq!(&payload_of(record), new, "{name}");
    }
}

/// An ARC record's length field gives its new block's length.
#[test]
fn an_arc_record_spliced_gives_its_new_length() {
    let filedesc_body = b"1 0 Test\nURL IP-address Archive-date Content-type Archive-length\n";
    let filedesc = format!(
        "filedesc://t.arc 0.0.0.0 20140216050221 text/plain {}\n",
        filedesc_body.len()
    );
    let (_, body, new_body) = decoded_payloads().swap_remove(1);
    let http = [
        format!(
            "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: {}\r\n\r\n",
            body.len()
        )
        .as_bytes(),
        &body,
    ]
    .concat();
    let line = format!(
        "http://a.example/utf16/ 1.2.3.4 20140216050221 text/html {}\n",
        http.len()
    );
    let input = [
        filedesc.as_bytes(),
        filedesc_body,
        b"\n",
        line.as_bytes(),
        &http,
        b"\n",
    ]
    .concat();
    let out = rewrite(&input);
    let new_http_head = format!(
        "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: {}\r\n\r\n",
        new_body.len()
    );
    let new_line = format!(
        "http://a.example/utf16/ 1.2.3.4 20140216050221 text/html {}\n",
        new_http_head.len() + new_body.len()
    );
    let want = [
        new_line.as_bytes(),
        new_http_head.as_bytes(),
        &new_body,
        b"\n",
    ]
    .concat();
    assert!(out.ends_with(&want), "{}", String::from_utf8_lossy(&out));
}
