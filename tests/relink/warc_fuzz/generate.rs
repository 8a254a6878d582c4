//! Web archives built at random from the dialects real tools write: WARC
//! 0.17, 0.18, 1.0 and 1.1 with CRLF or LF heads, ARC version 1 and 2;
//! `response` records of HTTP messages (chunked or not, content-coded with
//! gzip, deflate or brotli, with interim `1xx` heads), `resource`,
//! `request`, `metadata`, `revisit` and `warcinfo` records, digests in
//! every algorithm and encoding; and the damage found in real files:
//! stray bytes between records, WARC record text quoted inside a block,
//! Content-Lengths short, long or running into the next record, every way
//! of grouping records into gzip members, a file cut short (a killed
//! crawl), a flipped byte.
//!
//! Each archive carries tags naming what went into it, so that a failure
//! can be told by the shapes that make it. Shared by the structure fuzzer
//! of the integration tests, the `warc` fuzz target and the archive bench.

use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::io::Write as _;

use base64::Engine as _;
use sha2::Digest as _;

/// splitmix64: small, seeded, the same on every machine.
#[derive(Debug, Clone)]
pub struct Rng(pub u64);

impl Rng {
    /// The next 64 random bits.
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A number below `n` (which must not be 0).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    /// True `percent` times in a hundred.
    pub fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }

    /// One of `items`.
    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

/// A generated archive: its bytes, what went into it, and whether it holds
/// no relative link at all (so that nothing in it may change).
#[derive(Debug, Clone)]
pub struct Archive {
    pub bytes: Vec<u8>,
    pub tags: BTreeSet<&'static str>,
    pub absolute: bool,
}

const BASE32: &[u8; 32] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";

/// RFC 4648 base32, padded.
pub fn base32(bytes: &[u8]) -> String {
    let mut out = String::new();
    for chunk in bytes.chunks(5) {
        let mut buf = [0u8; 5];
        buf[..chunk.len()].copy_from_slice(chunk);
        let n = u64::from_be_bytes([0, 0, 0, buf[0], buf[1], buf[2], buf[3], buf[4]]);
        let chars = (chunk.len() * 8).div_ceil(5);
        for i in 0..8 {
            if i < chars {
                out.push(BASE32[((n >> (35 - 5 * i)) & 31) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// Lowercase base16.
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().fold(String::new(), |mut s, b| {
        let _ = write!(s, "{b:02x}");
        s
    })
}

/// One gzip member of `bytes`.
pub fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut w = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    w.write_all(bytes).unwrap();
    w.finish().unwrap()
}

fn zlib(bytes: &[u8]) -> Vec<u8> {
    let mut w = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::fast());
    w.write_all(bytes).unwrap();
    w.finish().unwrap()
}

fn brotli(bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    {
        let mut w = brotli::CompressorWriter::new(&mut out, 4096, 5, 22);
        w.write_all(bytes).unwrap();
    }
    out
}

/// A digest field's value over `bytes`, in an algorithm and encoding the
/// real tools write (Heritrix and wget: SHA-1 in base32; Browsertrix and
/// ArchiveWeb.page: SHA-256 in base16; others base32 or base64).
fn digest(rng: &mut Rng, tags: &mut BTreeSet<&'static str>, bytes: &[u8]) -> String {
    let b64 = base64::engine::general_purpose::STANDARD;
    match rng.below(7) {
        0..=2 => format!(
            "sha1:{}",
            base32(&sha1_smol::Sha1::from(bytes).digest().bytes())
        ),
        3 => {
            tags.insert("sha256");
            format!("sha256:{}", hex(&sha2::Sha256::digest(bytes)))
        }
        4 => {
            tags.insert("sha256");
            format!("sha256:{}", base32(&sha2::Sha256::digest(bytes)))
        }
        5 => {
            tags.insert("sha512");
            format!("sha512:{}", b64.encode(sha2::Sha512::digest(bytes)))
        }
        _ => {
            tags.insert("md5");
            format!("md5:{}", hex(&md5::Md5::digest(bytes)))
        }
    }
}

/// HTTP `chunked` transfer coding (RFC 9112 section 7.1), in chunks of
/// random sizes, sometimes with an extension or a trailer.
fn chunked(rng: &mut Rng, body: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut rest = body;
    while !rest.is_empty() {
        let n = (1 + rng.below(60)).min(rest.len());
        if rng.chance(5) {
            out.extend_from_slice(format!("{n:X};ext=1\r\n").as_bytes());
        } else {
            out.extend_from_slice(format!("{n:x}\r\n").as_bytes());
        }
        out.extend_from_slice(&rest[..n]);
        out.extend_from_slice(b"\r\n");
        rest = &rest[n..];
    }
    out.extend_from_slice(b"0\r\n");
    if rng.chance(10) {
        out.extend_from_slice(b"X-Trailer: 1\r\n");
    }
    out.extend_from_slice(b"\r\n");
    out
}

/// A link: an absolute one when `absolute`, else one of the relative
/// shapes that matter.
fn link(rng: &mut Rng, absolute: bool, i: usize) -> String {
    if absolute {
        return format!("http://abs.example/{i}.html");
    }
    rng.pick(&[
        "a.html",
        "../b/c.html",
        "?q",
        "#f",
        "",
        "/root.css",
        "d e.png",
        "//other.example/x",
        "./",
    ])
    .to_string()
}

/// An HTML page.
fn html(rng: &mut Rng, absolute: bool) -> String {
    let mut page = String::from("<!DOCTYPE html><html><head><title>t</title>");
    if rng.chance(15) {
        page.push_str(if absolute {
            "<base href=\"http://base.example/dir/\">"
        } else {
            "<base href=\"../up/\">"
        });
    }
    page.push_str("</head><body>\n");
    // Now and then a page past the reader's buffers.
    let links = if rng.chance(2) {
        3000
    } else {
        1 + rng.below(6)
    };
    for i in 0..links {
        let link = link(rng, absolute, i);
        let _ = match rng.below(5) {
            0 => writeln!(page, "<a href=\"{link}\">x{i}</a>"),
            1 => writeln!(page, "<img src='{link}' alt=y>"),
            2 => writeln!(page, "<p style=\"background:url({link})\">z</p>"),
            3 => writeln!(page, "<p>caf\u{e9} \u{2014} {i}</p>"),
            _ => writeln!(page, "<link rel=stylesheet href={link}>"),
        };
    }
    page.push_str("</body></html>\n");
    page
}

/// A style sheet.
fn css(rng: &mut Rng, absolute: bool) -> String {
    let mut sheet = String::new();
    for i in 0..1 + rng.below(4) {
        let _ = writeln!(
            sheet,
            "p.c{i} {{ background: url({}) }}",
            link(rng, absolute, i)
        );
    }
    sheet
}

/// The target URI of the records quoted inside blocks: relink must never
/// read one as a record.
pub const QUOTED_URI: &str = "http://quoted.example/";

/// A WARC record's text, as a page that shows a record quotes it: its
/// `Content-Length` right for the block it quotes.
fn quoted_record(rng: &mut Rng) -> String {
    let body = html(rng, false);
    let http = format!("HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n{body}");
    format!(
        "WARC/1.0\r\nWARC-Type: response\r\nWARC-Target-URI: {QUOTED_URI}\r\n\
         Content-Type: application/http; msgtype=response\r\nContent-Length: {}\r\n\r\n\
         {http}\r\n\r\n",
        http.len()
    )
}

/// An HTTP response message carrying `body` of `media`: the block, and the
/// payload as sent (after the head).
fn http_response(
    rng: &mut Rng,
    tags: &mut BTreeSet<&'static str>,
    media: &str,
    body: &[u8],
    absolute: bool,
) -> (Vec<u8>, Vec<u8>) {
    let mut head = String::new();
    if rng.chance(5) {
        tags.insert("interim");
        for _ in 0..1 + rng.below(3) {
            head.push_str("HTTP/1.1 100 Continue\r\n\r\n");
        }
    }
    let version = if rng.chance(15) { "1.0" } else { "1.1" };
    let _ = write!(head, "HTTP/{version} 200 OK\r\nContent-Type: {media}\r\n");
    let mut sent = body.to_vec();
    if rng.chance(3) {
        // A coding the body does not have: read as identity.
        tags.insert("bad-coding");
        let _ = write!(
            head,
            "Content-Encoding: {}\r\n",
            rng.pick(&["gzip", "br", "deflate"])
        );
    } else if rng.chance(25) {
        let coding = *rng.pick(&["gzip", "x-gzip", "deflate", "br"]);
        tags.insert(match coding {
            "deflate" => "deflate",
            "br" => "br",
            _ => "gzip-coding",
        });
        sent = match coding {
            "deflate" => zlib(&sent),
            "br" => brotli(&sent),
            _ => gzip(&sent),
        };
        if rng.chance(10) {
            // Bytes after the coded body, kept by a careful reader.
            tags.insert("after-coding");
            sent.extend_from_slice(b"\n\n");
        }
        let _ = write!(head, "Content-Encoding: {coding}\r\n");
    }
    if rng.chance(20) {
        tags.insert("chunked");
        sent = chunked(rng, &sent);
        if rng.chance(10) {
            // A chunk size that lies.
            tags.insert("bad-chunk");
            sent[0] = b'f';
        }
        head.push_str("Transfer-Encoding: chunked\r\n");
    } else if rng.chance(70) {
        let _ = write!(head, "Content-Length: {}\r\n", sent.len());
    }
    if rng.chance(15) {
        let target = if absolute {
            "http://abs.example/moved.html"
        } else {
            "../moved.html"
        };
        let _ = write!(head, "Location: {target}\r\n");
    }
    head.push_str("\r\n");
    if rng.chance(5) {
        // A server that ends its lines with LF alone.
        tags.insert("lf-http");
        head = head.replace("\r\n", "\n");
    }
    ([head.as_bytes(), &sent].concat(), sent)
}

/// A record's type, `Content-Type`, block, and payload (what follows the
/// HTTP head, for the records that hold an HTTP message).
struct Block {
    warc_type: &'static str,
    content_type: &'static str,
    block: Vec<u8>,
    payload: Option<Vec<u8>>,
    profile: bool,
}

fn block(rng: &mut Rng, tags: &mut BTreeSet<&'static str>, n: usize, absolute: bool) -> Block {
    let kind = *rng.pick(&[
        "response",
        "response",
        "response",
        "response",
        "resource",
        "request",
        "metadata",
        "revisit",
        "warcinfo",
        "quote",
        "conversion",
        "latin1",
    ]);
    tags.insert(kind);
    match kind {
        "response" | "quote" | "latin1" => {
            let (media, body) = if kind == "quote" {
                ("text/plain", quoted_record(rng).into_bytes())
            } else if kind == "latin1" {
                let page = html(rng, absolute)
                    .replace('\u{e9}', "e")
                    .replace('\u{2014}', "-");
                let page = page.replace("<body>", "<body><p>caf\u{e9}</p>");
                let (bytes, _, _) = encoding_rs::WINDOWS_1252.encode(&page);
                ("text/html; charset=iso-8859-1", bytes.into_owned())
            } else if rng.chance(20) {
                ("text/css", css(rng, absolute).into_bytes())
            } else {
                ("text/html; charset=utf-8", html(rng, absolute).into_bytes())
            };
            let (block, payload) = http_response(rng, tags, media, &body, absolute);
            Block {
                warc_type: "response",
                content_type: "application/http; msgtype=response",
                block,
                payload: Some(payload),
                profile: false,
            }
        }
        "revisit" => Block {
            warc_type: "revisit",
            content_type: "application/http; msgtype=response",
            block: b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n".to_vec(),
            payload: None,
            profile: true,
        },
        "conversion" => Block {
            warc_type: "conversion",
            content_type: "text/html",
            block: html(rng, absolute).into_bytes(),
            payload: None,
            profile: false,
        },
        "resource" => {
            let (media, body) = if rng.chance(10) {
                // A WARC file kept as a resource, as a crawler of text
                // stores one.
                tags.insert("quote");
                ("text/plain", quoted_record(rng))
            } else if rng.chance(30) {
                ("text/css", css(rng, absolute))
            } else {
                ("text/html", html(rng, absolute))
            };
            Block {
                warc_type: "resource",
                content_type: media,
                block: body.into_bytes(),
                payload: None,
                profile: false,
            }
        }
        "request" => Block {
            warc_type: "request",
            content_type: "application/http; msgtype=request",
            block: format!("GET /path/{n}/page.html HTTP/1.1\r\nHost: site.example\r\n\r\n")
                .into_bytes(),
            payload: None,
            profile: false,
        },
        "metadata" => Block {
            warc_type: "metadata",
            content_type: "application/warc-fields",
            block: b"outlink: ../x.html\r\nvia: a.html\r\n".to_vec(),
            payload: None,
            profile: false,
        },
        _ => Block {
            warc_type: "warcinfo",
            content_type: "application/warc-fields",
            block: b"software: relink-fuzz\r\nformat: WARC File Format 1.0\r\n".to_vec(),
            payload: None,
            profile: false,
        },
    }
}

/// The `Content-Length` a record says: mostly right, sometimes short, long,
/// or (when the next record's size is given) running into it.
fn length(rng: &mut Rng, tags: &mut BTreeSet<&'static str>, block: usize, next: usize) -> usize {
    match rng.below(40) {
        0 => {
            tags.insert("short");
            block.saturating_sub(1 + rng.below(6))
        }
        1 => {
            tags.insert("long");
            block + 1 + rng.below(6)
        }
        2 => {
            tags.insert("into-next");
            block + 4 + next / 2 + rng.below(next / 2 + 1)
        }
        3 => {
            tags.insert("past-end");
            block + 100_000 + rng.below(1000)
        }
        4 if rng.chance(50) => {
            tags.insert("huge-length");
            1_000_000_000_000_000
        }
        _ => block,
    }
}

/// One WARC record's bytes, as some tool would write them.
fn warc_record(
    rng: &mut Rng,
    tags: &mut BTreeSet<&'static str>,
    n: usize,
    absolute: bool,
) -> Vec<u8> {
    let lf = rng.chance(10);
    let eol = if lf {
        tags.insert("lf");
        "\n"
    } else {
        "\r\n"
    };
    let version = *rng.pick(&["1.0", "1.0", "1.0", "1.1", "1.1", "0.17", "0.18"]);
    tags.insert(match version {
        "1.0" | "1.1" => "warc1",
        _ => "warc0",
    });
    let uri = format!("http://site{}.example/path/{n}/page.html", rng.below(3));
    let b = block(rng, tags, n, absolute);
    let mut head = format!("WARC/{version}{eol}WARC-Type: {}{eol}", b.warc_type);
    let _ = write!(head, "WARC-Record-ID: <urn:uuid:fuzz-{n}>{eol}");
    if b.warc_type != "warcinfo" {
        if rng.chance(5) {
            // WARC 1.0's grammar, as some tools still write it.
            let _ = write!(head, "WARC-Target-URI: <{uri}>{eol}");
        } else {
            let _ = write!(head, "WARC-Target-URI: {uri}{eol}");
        }
    }
    let _ = write!(head, "WARC-Date: 2026-01-01T00:00:00Z{eol}");
    if b.profile {
        let _ = write!(
            head,
            "WARC-Profile: http://netpreserve.org/warc/1.0/revisit/identical-payload-digest{eol}"
        );
    }
    if rng.chance(60) {
        let mut value = digest(rng, tags, &b.block);
        if rng.chance(5) {
            tags.insert("bad-digest");
            value = format!("sha1:{}", base32(&[7; 20]));
        }
        let _ = write!(head, "WARC-Block-Digest: {value}{eol}");
        if let Some(payload) = &b.payload {
            let value = digest(rng, tags, payload);
            let _ = write!(head, "WARC-Payload-Digest: {value}{eol}");
        }
    }
    if rng.chance(3) {
        // A field folded over two lines (WARC 1.0 section 4, LWS).
        tags.insert("folded");
        let _ = write!(head, "WARC-Warcinfo-ID: <urn:uuid:{eol} fuzz-info>{eol}");
    }
    let _ = write!(head, "Content-Type: {}{eol}", b.content_type);
    let said = length(rng, tags, b.block.len(), 300);
    match rng.below(30) {
        0 => {
            tags.insert("lower-names");
            let _ = write!(head, "content-length: {said}{eol}{eol}");
        }
        1 => {
            tags.insert("length-space");
            let _ = write!(head, "Content-Length:   {said} \t{eol}{eol}");
        }
        _ => {
            let _ = write!(head, "Content-Length: {said}{eol}{eol}");
        }
    }
    let close = match rng.below(40) {
        0 => {
            tags.insert("stray-line");
            "\r\nstray line\r\n"
        }
        1 => {
            tags.insert("no-close");
            ""
        }
        2 => {
            tags.insert("one-eol");
            "\r\n"
        }
        _ if lf && rng.chance(50) => "\n\n",
        _ => "\r\n\r\n",
    };
    [head.as_bytes(), &b.block, close.as_bytes()].concat()
}

/// An ARC file's records (version 1 or 2), the version block first.
fn arc_records(rng: &mut Rng, tags: &mut BTreeSet<&'static str>, absolute: bool) -> Vec<Vec<u8>> {
    let v2 = rng.chance(50);
    tags.insert(if v2 { "arc2" } else { "arc1" });
    let fields = if v2 {
        "URL IP-address Archive-date Content-type Result-code Checksum Location Offset Filename Archive-length"
    } else {
        "URL IP-address Archive-date Content-type Archive-length"
    };
    let version = format!("{} 0 Fuzz\n{fields}\n", if v2 { 2 } else { 1 });
    let mut records = vec![
        format!(
            "filedesc://fuzz.arc 0.0.0.0 20260101000000 text/plain {}\n{version}\n",
            version.len()
        )
        .into_bytes(),
    ];
    for n in 0..1 + rng.below(5) {
        let mut url = format!("http://site.example/arc/{n}/page.html");
        if rng.chance(10) {
            tags.insert("arc-url-space");
            url = format!("http://site.example/arc/{n}/a page.html");
        }
        let body = html(rng, absolute);
        let (block, _) = http_response(rng, tags, "text/html", body.as_bytes(), absolute);
        let said = length(rng, tags, block.len(), 300);
        let line = if v2 {
            format!("{url} 192.0.2.1 20260101000000 text/html 200 - - 0 fuzz.arc {said}\n")
        } else {
            format!("{url} 192.0.2.1 20260101000000 text/html {said}\n")
        };
        records.push([line.as_bytes(), &block, b"\n"].concat());
    }
    records
}

/// Stray bytes before a record, sometimes.
fn stray(rng: &mut Rng, tags: &mut BTreeSet<&'static str>) -> Vec<u8> {
    let (tag, bytes): (&'static str, Vec<u8>) = match rng.below(30) {
        0 => ("junk", b"junk that is no record\r\n".to_vec()),
        1 => ("nul", b"\0\0\0".to_vec()),
        2 => ("spaces", vec![b' '; 1 + rng.below(300)]),
        3 => ("blank-lines", b"\r\n\r\n\r\n".to_vec()),
        4 => ("version-line", b"WARC/1.0\r\n".to_vec()),
        5 => ("bom", b"\xef\xbb\xbf".to_vec()),
        6 => ("tabs", b"\t\t\r\n".to_vec()),
        _ => return Vec::new(),
    };
    tags.insert(tag);
    bytes
}

/// Records grouped into gzip members in one of the ways tools do: one
/// member each (the standard's way), several to a member, one stream, or
/// not compressed. Tagged `gz-shared` when a member holds more than one
/// record (or, see [`archive`], stray bytes beside a record).
fn group(rng: &mut Rng, tags: &mut BTreeSet<&'static str>, records: &[Vec<u8>]) -> Vec<u8> {
    match rng.below(5) {
        0 => {
            tags.insert("plain");
            records.concat()
        }
        1 => {
            tags.insert("gz-stream");
            if records.len() > 1 {
                tags.insert("gz-shared");
            }
            gzip(&records.concat())
        }
        2 => {
            tags.insert("gz-grouped");
            let mut out = Vec::new();
            let mut member = Vec::new();
            let mut shared = 0;
            for r in records {
                member.extend_from_slice(r);
                shared += 1;
                if rng.chance(50) {
                    out.extend(gzip(&member));
                    member.clear();
                    if shared > 1 {
                        tags.insert("gz-shared");
                    }
                    shared = 0;
                }
            }
            if shared > 1 {
                tags.insert("gz-shared");
            }
            if !member.is_empty() {
                out.extend(gzip(&member));
            }
            out
        }
        _ => {
            tags.insert("gz-per-record");
            records.iter().flat_map(|r| gzip(r)).collect()
        }
    }
}

/// One archive.
pub fn archive(rng: &mut Rng) -> Archive {
    let mut tags = BTreeSet::new();
    let absolute = rng.chance(20);
    if absolute {
        tags.insert("absolute");
    }
    let mut strays = false;
    let mut records: Vec<Vec<u8>> = if rng.chance(12) {
        arc_records(rng, &mut tags, absolute)
    } else {
        (0..1 + rng.below(6))
            .map(|n| {
                let mut bytes = stray(rng, &mut tags);
                strays |= !bytes.is_empty();
                bytes.extend(warc_record(rng, &mut tags, n, absolute));
                bytes
            })
            .collect()
    };
    if rng.chance(10) {
        let tail = stray(rng, &mut tags);
        strays |= !tail.is_empty();
        records.push(tail);
    }
    let mut bytes = group(rng, &mut tags, &records);
    if strays && !tags.contains("plain") {
        // Stray bytes share a member with a record.
        tags.insert("gz-shared");
    }
    if rng.chance(8) && bytes.len() > 2 {
        tags.insert("cut");
        let cut = 1 + rng.below(bytes.len() - 1);
        bytes.truncate(cut);
    }
    if rng.chance(6) && !bytes.is_empty() {
        tags.insert("flip");
        let at = rng.below(bytes.len());
        bytes[at] ^= 1 << rng.below(8);
    }
    Archive {
        bytes,
        tags,
        absolute,
    }
}
