//! The front door and the WAT writer: any input through `Rewriter::run`,
//! the kind detected or hinted, while a `WatWriter` takes every event. No
//! panic; a refusal says what is wrong in a short line; an input reported
//! unchanged is written byte for byte (or, when only changes are asked
//! for, not at all); the WAT output is a sequence of gzip members, each one
//! WARC/1.0 `metadata` record whose `Content-Length` is its block's length,
//! followed by CRLF CRLF, and whose block is a JSON object; the writer
//! wrote as many records as it says.
//!
//! The first byte chooses the options: its low four bits a kind hint
//! (none, or one of `Kind::entries()`), then a retrieval URL or none,
//! `Details::Attributes` or `Details::Links`, `Output::Always` or
//! `Output::WhenChanged`, RFC 1808 or WHATWG. The rest is the input.
#![no_main]

use std::io::Read;

use libfuzzer_sys::fuzz_target;
use relink::wat::WatWriter;
use relink::{Details, Event, Input, Kind, Output, Rewriter, Rules};

/// What the first byte chooses.
struct Options {
    kind: Option<Kind>,
    retrieved_from: bool,
    attributes: bool,
    always: bool,
    rules: Rules,
}

impl Options {
    fn new(byte: u8) -> Options {
        let kinds = Kind::entries();
        let hint = usize::from(byte & 0x0f) % (kinds.len() + 1);
        Options {
            kind: hint.checked_sub(1).map(|n| kinds[n].kind),
            retrieved_from: byte & 0x10 != 0,
            attributes: byte & 0x20 != 0,
            always: byte & 0x40 != 0,
            rules: match byte & 0x80 {
                0 => Rules::Rfc1808,
                _ => Rules::Whatwg,
            },
        }
    }
}

const URL: &str = "http://h.example/a/b?q#f";

fuzz_target!(|data: &[u8]| {
    let Some((&first, input)) = data.split_first() else {
        return;
    };
    let options = Options::new(first);
    let mut rewriter = Rewriter::new()
        .rules(options.rules)
        .details(match options.attributes {
            true => Details::Attributes,
            false => Details::Links,
        });
    let mut writer = WatWriter::new("input");
    if options.retrieved_from {
        rewriter = rewriter.retrieved_from(URL);
        writer = writer.retrieved_from(URL);
    }
    let mut source = Input::bytes(input);
    if let Some(kind) = options.kind {
        source = source.kind(kind);
    }
    let mut out = Vec::new();
    let mut wat = Vec::new();
    let mut wat_error = None;
    let mut done_changed = false;
    let output = match options.always {
        true => Output::Always(&mut out),
        false => Output::WhenChanged(&mut out),
    };
    let run = rewriter.run(source, output, &mut |event| {
        if let Event::Done(done) = &event {
            done_changed |= done.changed;
        }
        if let Err(e) = writer.event(&mut wat, &event) {
            wat_error.get_or_insert(e.to_string());
        }
        Ok(())
    });
    if let Some(e) = wat_error {
        panic!("the wat writer failed: {e}");
    }
    writer.finish(&mut wat).expect("the wat writer finishes");
    let report = match run {
        Ok(report) => report,
        Err(e) => {
            // A refusal is an answer, when it says what is wrong.
            let message = e.to_string();
            assert!(
                !message.trim().is_empty() && message.len() <= 300 && !message.contains('\n'),
                "an unclear error: {message:?}"
            );
            check_wat(&wat, writer.records());
            return;
        }
    };
    if !report.changed {
        assert!(!done_changed, "a unit changed, the report says none did");
        let written = match options.always {
            true => out == input,
            false => out.is_empty() || out == input,
        };
        assert!(
            written,
            "reported unchanged, yet {} bytes in, {} out",
            input.len(),
            out.len()
        );
    }
    check_wat(&wat, writer.records());
});

/// Checks the WAT output: `records` gzip members, each one record.
fn check_wat(wat: &[u8], records: usize) {
    let mut rest = wat;
    let mut n = 0;
    while !rest.is_empty() {
        let mut member = Vec::new();
        flate2::bufread::GzDecoder::new(&mut rest)
            .read_to_end(&mut member)
            .expect("each wat member decodes");
        check_record(&member, n);
        n += 1;
    }
    assert_eq!(n, records, "the writer's count of records");
}

/// Checks one WAT record: its head, its length, its JSON block.
fn check_record(record: &[u8], n: usize) {
    let end = memchr_crlf2(record).unwrap_or_else(|| panic!("record {n}: no end of head"));
    let head = std::str::from_utf8(&record[..end]).expect("a head in UTF-8");
    let mut lines = head.split("\r\n");
    assert_eq!(lines.next(), Some("WARC/1.0"), "record {n}: {head:?}");
    let mut length = None;
    let mut kind = None;
    for line in lines {
        assert!(
            !line.contains(['\r', '\n']),
            "record {n}: a head line broken: {line:?}"
        );
        let (name, value) = line
            .split_once(": ")
            .unwrap_or_else(|| panic!("record {n}: a head line with no field: {line:?}"));
        match name {
            "Content-Length" => length = Some(value.parse::<usize>().expect("a length")),
            "WARC-Type" => kind = Some(value.to_owned()),
            _ => {}
        }
    }
    assert_eq!(kind.as_deref(), Some("metadata"), "record {n}: its type");
    let length = length.unwrap_or_else(|| panic!("record {n}: no Content-Length"));
    let block = &record[end + 4..];
    assert!(
        block.len() == length + 4 && block.ends_with(b"\r\n\r\n"),
        "record {n}: Content-Length {length}, {} bytes after the head",
        block.len()
    );
    let json: serde_json::Value =
        serde_json::from_slice(&block[..length]).expect("the block is JSON");
    assert!(json["Envelope"].is_object(), "record {n}: no Envelope");
}

/// Where the first CRLF CRLF is.
fn memchr_crlf2(bytes: &[u8]) -> Option<usize> {
    bytes.windows(4).position(|w| w == b"\r\n\r\n")
}
