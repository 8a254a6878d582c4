//! Messages, MHTML, mbox and Maildir: the fixture pairs, everything but the
//! rewritten bodies byte-identical, the MIME structure unchanged, each part
//! against its own base, and the archives rewritten in place.

use std::path::Path;

use mailparse::{ParsedMail, body::Body};
use relink::mime::mbox;
use relink::{Input, Kind, MboxFormat, Output, Rewriter, Rewritten};

use crate::cli::relink;
use crate::{files_under, fixture, make_old, table};

fn read(name: &str) -> Vec<u8> {
    std::fs::read(fixture(name)).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// Runs `rewriter` over `input`: its bytes, its warnings, whether it
/// changed.
fn run(rewriter: &Rewriter, input: &[u8]) -> (Vec<u8>, Vec<String>, bool) {
    let mut out = Vec::new();
    let report = rewriter
        .run(Input::bytes(input), Output::Always(&mut out), &mut |_| {
            Ok(())
        })
        .unwrap();
    let warnings = report.warnings.iter().map(ToString::to_string).collect();
    (out, warnings, report.changed)
}

/// A rewrite retrieved from `url`, or from nowhere.
fn retrieved_from(url: Option<&str>) -> Rewriter {
    match url {
        Some(url) => Rewriter::new().retrieved_from(url),
        None => Rewriter::new(),
    }
}

/// Rewrites a message or an mbox as the command line would: the front
/// door tells which.
fn rewrite(input: &[u8], retrieved_from_url: Option<&str>) -> (Vec<u8>, Vec<String>) {
    let (out, warnings, _) = run(&retrieved_from(retrieved_from_url), input);
    (out, warnings)
}

/// Rewrites one message retrieved from `url`.
fn rewrite_message<'i>(input: &'i [u8], url: Option<&str>) -> Rewritten<'i> {
    let rewriter = retrieved_from(url).kind(Kind::Message);
    rewriter.rewrite(input).unwrap()
}

/// Rewrites an mbox of `format` retrieved from `url`: its bytes, whether
/// it changed.
fn rewrite_mbox(input: &[u8], format: MboxFormat, url: Option<&str>) -> (Vec<u8>, bool) {
    let rewriter = retrieved_from(url).kind(Kind::Mbox).mbox_format(format);
    let (out, _, changed) = run(&rewriter, input);
    (out, changed)
}

fn cases() -> Vec<(String, String, Option<String>)> {
    table("mail/cases.tsv", 2)
        .into_iter()
        .map(|row| {
            let (stem, ext) = row[0].rsplit_once('.').unwrap();
            let from = (row[1] != "-").then(|| row[1].clone());
            (row[0].clone(), format!("{stem}.expected.{ext}"), from)
        })
        .collect()
}

#[test]
fn fixture_pairs_match_byte_for_byte() {
    let cases = cases();
    assert!(cases.len() >= 11);
    for (input, expected, from) in cases {
        let (got, _) = rewrite(&read(&format!("mail/{input}")), from.as_deref());
        let want = read(&format!("mail/{expected}"));
        assert!(got == want, "{input}:\n{}", String::from_utf8_lossy(&got));
        // A second pass changes nothing.
        assert_eq!(
            rewrite(&want, from.as_deref()).0,
            want,
            "{input}: second pass"
        );
    }
}

/// The encoded body of an entity, a slice of the message.
fn body<'a>(mail: &'a ParsedMail<'a>) -> &'a [u8] {
    match mail.get_body_encoded() {
        Body::Base64(b) | Body::QuotedPrintable(b) => b.get_raw(),
        Body::SevenBit(b) | Body::EightBit(b) => b.get_raw(),
        Body::Binary(b) => b.get_raw(),
    }
}

fn rewritable(mail: &ParsedMail<'_>) -> bool {
    matches!(
        mail.ctype.mimetype.as_str(),
        "text/html" | "text/css" | "message/rfc822"
    )
}

/// A message with the bodies relink may rewrite and the Content-Location
/// values cut out, and its shape
/// (each entity's type and number of parts, in order).
fn skeleton(message: &[u8]) -> (Vec<u8>, Vec<(String, usize)>) {
    let mail = mailparse::parse_mail(message).unwrap();
    let mut cuts = Vec::new();
    let mut shape = Vec::new();
    let mut stack = vec![&mail];
    while let Some(m) = stack.pop() {
        shape.push((m.ctype.mimetype.clone(), m.subparts.len()));
        // A Content-Location is a link too.
        for h in &m.headers {
            if h.get_key_ref().eq_ignore_ascii_case("Content-Location") {
                let v = h.get_value_raw();
                let start = v.as_ptr() as usize - message.as_ptr() as usize;
                cuts.push(start..start + v.len());
            }
        }
        if m.subparts.is_empty() && rewritable(m) {
            let b = body(m);
            let start = b.as_ptr() as usize - message.as_ptr() as usize;
            cuts.push(start..start + b.len());
        }
        stack.extend(m.subparts.iter().rev());
    }
    cuts.sort_by_key(|r| r.start);
    let mut kept = Vec::new();
    let mut at = 0;
    for cut in cuts {
        kept.extend_from_slice(&message[at..cut.start]);
        kept.extend_from_slice(b"<cut>");
        at = cut.end;
    }
    kept.extend_from_slice(&message[at..]);
    (kept, shape)
}

/// Every message of the fixtures and the corpus: only rewritable bodies
/// change, and the MIME structure stays.
#[test]
fn only_rewritable_bodies_change() {
    let mut messages: Vec<(String, Vec<u8>)> = cases()
        .into_iter()
        .filter(|(input, _, _)| !input.starts_with("archive."))
        .map(|(input, _, _)| (input.clone(), read(&format!("mail/{input}"))))
        .collect();
    for name in ["chrome-python-tutorial.mhtml", "test_email_01.txt"] {
        messages.push((name.to_owned(), read(&format!("corpus/mail/{name}"))));
    }
    let mut changed = 0;
    for (name, input) in messages {
        let (output, _) = rewrite(&input, Some("http://retrieved.example/dir/page.html"));
        if output != input {
            changed += 1;
        }
        let (before, shape_before) = skeleton(&input);
        let (after, shape_after) = skeleton(&output);
        assert_eq!(shape_before, shape_after, "{name}: structure");
        assert!(
            before == after,
            "{name}: bytes outside the rewritten bodies changed"
        );
    }
    assert!(changed >= 8, "{changed} messages changed");
}

#[test]
fn each_part_resolves_against_its_own_base() {
    let (out, _) = rewrite(&read("mail/rfc822-nested.eml"), None);
    let out = String::from_utf8(out).unwrap();
    let before = out
        .find("http://outer.example/home/before.html")
        .expect("outer base before");
    let inner = out
        .find("http://inner.example/news/story.html")
        .expect("inner base");
    let after = out
        .find("http://outer.example/home/after.html")
        .expect("outer base after: no leak");
    assert!(before < inner && inner < after);

    let (out, _) = rewrite(&read("mail/chrome.mhtml"), None);
    let out = String::from_utf8(out).unwrap();
    // The stylesheet part resolves against its own location; the cid: part
    // (Chrome's inline <style>) against the page.
    assert!(out.contains("url(\"http://example.com/img/paper.png\")"));
    assert!(out.contains("url(\"http://example.com/blog/images/hero.jpg\")"));

    let (out, _) = rewrite(&read("mail/related.eml"), None);
    assert!(
        String::from_utf8(out)
            .unwrap()
            .contains("http://example.org/site/pages/about.html")
    );
}

#[test]
fn the_retrieval_url_is_the_lowest_layer() {
    let (out, warnings) = rewrite(&read("mail/no-base.eml"), None);
    assert_eq!(out, read("mail/no-base.eml"));
    assert!(
        warnings.iter().any(|w| w.contains("no base url")),
        "{warnings:?}"
    );
    let (out, _) = rewrite(&read("mail/no-base.eml"), Some("http://r.example/x/"));
    assert!(
        String::from_utf8(out)
            .unwrap()
            .contains("http://r.example/x/nowhere.html")
    );
    // A Content-Base wins over the retrieval URL.
    let (out, _) = rewrite(&read("mail/content-base.eml"), Some("http://r.example/"));
    assert_eq!(out, read("mail/content-base.expected.eml"));
}

#[test]
fn a_message_mailparse_rejects_is_left_as_it_is() {
    let input = read("corpus/mail/nested.eml");
    let (out, warnings) = rewrite(&input, Some("http://r.example/"));
    assert_eq!(out, input);
    assert!(
        warnings.iter().any(|w| w.contains("left as it is")),
        "{warnings:?}"
    );
}

#[test]
fn mbox_variants_are_detected() {
    assert_eq!(
        MboxFormat::detect(&read("mail/archive.mboxrd")),
        MboxFormat::Mboxrd
    );
    assert_eq!(
        MboxFormat::detect(&read("mail/archive.mboxcl2")),
        MboxFormat::Mboxcl2
    );
}

#[test]
fn a_from_line_of_a_rewritten_body_keeps_its_bytes() {
    // No `>` is added: a reader that does not unquote would read it.
    let mbox = b"From a@b Mon Jan  1 00:00:00 2024\nContent-Base: http://h/\nContent-Type: text/html\n\n<a href=x>\nFrom me to you\n\n";
    let (out, warnings) = rewrite(mbox, None);
    let out = String::from_utf8(out).unwrap();
    assert!(
        out.contains("<a href=http://h/x>\nFrom me to you\n"),
        "{out}"
    );
    assert!(warnings.is_empty(), "{warnings:?}");
    // Quoted-printable writes a line it encodes again =46rom, and keeps the
    // others as they were.
    let qp = b"From a@b Mon Jan  1 00:00:00 2024\nContent-Base: http://h/\nContent-Type: text/html\nContent-Transfer-Encoding: quoted-printable\n\n<a href=3Dx>\nFrom me\nFrom <a href=3Dy>\n\n";
    let (out, _) = rewrite(qp, None);
    let out = String::from_utf8(out).unwrap();
    assert!(
        out.contains("<a href=3Dhttp://h/x>\nFrom me\n=46rom <a href=3Dhttp://h/y>\n"),
        "{out}"
    );
}

/// The mailbox: a `From ` line inside an open tag. Quoted, its `>`
/// would close the tag, `<img src=w>` would become an element, and a second
/// pass would rewrite it.
const FROM_IN_A_TAG: &[u8] = b"From a@b Mon Jan  1 00:00:00 2024\nContent-Type: text/html\n\n<a href=x title=y\nFrom c@d Mon Jan  1 00:00:00 2024\n<img src=w>\n\n";

#[test]
fn a_from_line_inside_a_tag_is_not_quoted() {
    for format in [MboxFormat::Mboxo, MboxFormat::Mboxrd, MboxFormat::Mboxcl] {
        let (once, warnings, changed) = rewrite_as(FROM_IN_A_TAG, format);
        assert!(changed, "{format:?}: {warnings:?}");
        let text = String::from_utf8(once.clone()).unwrap();
        assert!(
            text.contains(
                "<a href=http://r.example/d/x title=y\nFrom c@d Mon Jan  1 00:00:00 2024\n<img src=w>\n"
            ),
            "{format:?}: {text}"
        );
        let (twice, _, _) = rewrite_as(&once, format);
        assert_eq!(
            String::from_utf8(twice).unwrap(),
            text,
            "{format:?}: second pass"
        );
    }
}

#[test]
fn a_quoted_from_line_inside_a_tag_leaves_the_message() {
    // Read as it is, the `>` ends the tag and `<img src=w>` is a link; read
    // by an mbox reader that unquotes, it is inside the `<a>` tag. Each
    // rewrite would change, for the other reader, what is not a link.
    let input = b"From a@b Mon Jan  1 00:00:00 2024\nContent-Type: text/html\n\n<a href=x title=y\n>From c@d Mon Jan  1 00:00:00 2024\n<img src=w>\n\nFrom e@f Mon Jan  1 00:00:00 2024\nContent-Type: text/html\n\n<a href=z>\n>From here\n";
    for format in [MboxFormat::Mboxo, MboxFormat::Mboxrd, MboxFormat::Mboxcl] {
        let (out, warnings, _) = rewrite_as(input, format);
        let text = String::from_utf8(out).unwrap();
        let second = text.find("From e@f").unwrap();
        assert_eq!(
            &text[..second],
            std::str::from_utf8(&input[..second]).unwrap()
        );
        assert!(
            warnings
                .iter()
                .any(|w| w.contains("unquotes `>From ` lines")),
            "{format:?}: {warnings:?}"
        );
        // Where both read alike, the message is rewritten, `>From` kept.
        assert!(
            text[second..].contains("<a href=http://r.example/d/z>\n>From here\n"),
            "{format:?}: {text}"
        );
    }
    // mboxcl2 does not quote: `>From` is text for every reader.
    let (out, _, _) = rewrite_as(input, MboxFormat::Mboxcl2);
    assert!(
        String::from_utf8(out)
            .unwrap()
            .contains("<img src=http://r.example/d/w>")
    );
}

#[test]
fn a_rewrite_that_would_start_a_line_with_from_leaves_the_body() {
    // An unquoted srcset whose new URL brings a `'` is quoted and written
    // decoded: its `&#10;` would become a line break before `From `.
    let input = b"From a@b Mon Jan  1 00:00:00 2024\nContent-Type: text/html\n\n<base href=\"http://h/it's/\"><img srcset=g&#10;From&#32;1x>\n\n";
    for format in [MboxFormat::Mboxo, MboxFormat::Mboxrd, MboxFormat::Mboxcl] {
        let (out, warnings, changed) = rewrite_as(input, format);
        assert!(!changed, "{format:?}");
        assert_eq!(out, input);
        assert!(
            warnings
                .iter()
                .any(|w| w.contains("would start with `From `")),
            "{warnings:?}"
        );
    }
    // Content-Length delimits mboxcl2: a reader splits on no `From ` line.
    let (out, _, changed) = rewrite_as(input, MboxFormat::Mboxcl2);
    assert!(changed);
    assert!(
        String::from_utf8(out)
            .unwrap()
            .contains("<img srcset=\"http://h/it's/g\nFrom 1x\">")
    );
}

/// A BASE whose URL holds a line break and `From `: a browser reads the
/// URL without its line break, so no link resolved against it starts a
/// line with `From `, and every format writes the body.
#[test]
fn a_base_with_a_line_break_before_from_is_read_without_it() {
    let input = b"From a@b Mon Jan  1 00:00:00 2024\nContent-Type: text/html\n\n<base href=\"http://h/a\nFrom x/\"><a href=\"g\">\n\n";
    for format in [
        MboxFormat::Mboxo,
        MboxFormat::Mboxrd,
        MboxFormat::Mboxcl,
        MboxFormat::Mboxcl2,
    ] {
        let (out, warnings, changed) = rewrite_as(input, format);
        assert!(changed, "{format:?} {warnings:?}");
        let out = String::from_utf8(out).unwrap();
        assert!(out.contains("<a href=\"http://h/aFrom x/g\">"), "{out}");
    }
}

#[test]
fn a_relative_content_location_stays_matched_with_the_links() {
    let input = read("mail/outlook-related.eml");
    let outcome = rewrite_message(&input, Some("http://intranet.example.com/finance/q1/"));
    assert!(outcome.changed(), "rewritten");
    let output = outcome.bytes();
    let mail = mailparse::parse_mail(output).unwrap();
    let html = mail.subparts[0].get_body().unwrap();
    for image in &mail.subparts[1..] {
        let location = image
            .headers
            .iter()
            .find(|h| h.get_key_ref() == "Content-Location")
            .unwrap()
            .get_value();
        let location = location.trim().trim_matches('"');
        assert!(location.starts_with("http://intranet.example.com/finance/q1/"));
        // What an RFC 2557 reader looks for in the HTML.
        assert!(
            html.contains(&format!("src=\"{location}\"")),
            "{location} not in {html}"
        );
    }
    let headers: Vec<_> = outcome
        .rows()
        .iter()
        .filter(|row| row.link.place.attribute() == "Content-Location")
        .map(|row| {
            let part = row.part.as_deref().unwrap_or_default();
            (part, row.link.original.as_str(), row.link.changed)
        })
        .collect();
    assert_eq!(
        headers,
        [("2", "image001.png", true), ("3", "img/logo.png", true)]
    );
    // The folded header keeps its fold and its quotes.
    assert!(
        output
            .windows(60)
            .any(|w| w.starts_with(b"Content-Location:\r\n\t\"http://intranet.example.com/"))
    );
}

/// The Content-Location values of a rewritten message as Python's `email`
/// package reads them (RFC 5322 unfolding, which keeps white space, and
/// RFC 2047 decoding), part by part, in order.
fn python_locations(message: &[u8]) -> Vec<String> {
    const READ: &str = "import email, email.policy, json, sys\n\
        m = email.message_from_bytes(sys.stdin.buffer.read(), policy=email.policy.default)\n\
        print(json.dumps([str(p['Content-Location']) for p in m.walk() if p['Content-Location'] is not None]))";
    let mut child = std::process::Command::new("python3")
        .args(["-c", READ])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("python3 is needed to read the messages back ({e})"));
    use std::io::Write;
    child.stdin.take().unwrap().write_all(message).unwrap();
    let output = child.wait_with_output().unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).unwrap()
}

/// Relative Content-Location values written every way a header allows:
/// split by a tab, folded, quoted, as RFC 2047 encoded words (ASCII and
/// not, one that does not decode), and long.
fn locations_message() -> Vec<u8> {
    let long = format!("{}/page.html", "segment".repeat(10));
    let parts = [
        "ht\tn;".to_owned(),
        "sub/\r\n page.html".to_owned(),
        "\"quoted/\r\n\tpage.html\"".to_owned(),
        "=?utf-8?q?sub/encoded=2Ehtml?=".to_owned(),
        "=?iso-8859-1?q?caf=E9.html?=".to_owned(),
        format!("<{long}>"),
    ];
    let mut message =
        b"MIME-Version: 1.0\r\nContent-Type: multipart/related; boundary=b\r\n\r\n".to_vec();
    for location in parts {
        message.extend_from_slice(
            format!("--b\r\nContent-Type: text/html\r\nContent-Location: {location}\r\n\r\n<a href=x>\r\n")
                .as_bytes(),
        );
    }
    message.extend_from_slice(b"--b--\r\n");
    message
}

#[test]
fn a_content_location_is_written_whole_as_a_reader_unfolds_and_decodes_it() {
    let input = locations_message();
    let url = Some("http://example.com/dir/page.html");
    let outcome = rewrite_message(&input, url);
    assert!(outcome.warnings().is_empty(), "{:?}", outcome.warnings());
    assert!(outcome.changed(), "rewritten");
    let output = outcome.bytes();
    let resolved: Vec<&str> = outcome
        .rows()
        .iter()
        .map(|row| &row.link)
        .filter(|l| l.place.attribute() == "Content-Location")
        .map(|l| l.resolved.as_str())
        .collect();
    let long = format!("http://example.com/dir/{}/page.html", "segment".repeat(10));
    assert_eq!(
        resolved,
        [
            "http://example.com/dir/htn;",
            "http://example.com/dir/sub/page.html",
            "http://example.com/dir/quoted/page.html",
            "http://example.com/dir/sub/encoded.html",
            "http://example.com/dir/café.html",
            long.as_str(),
        ]
    );
    // Python reads each one, unfolded and decoded, as the URL it resolved
    // to, with no white space inside.
    let read = python_locations(output);
    let read: Vec<&str> = read
        .iter()
        .map(|v| v.trim().trim_matches(|c| matches!(c, '"' | '<' | '>')))
        .collect();
    assert_eq!(read, resolved);
    let text = String::from_utf8_lossy(output);
    // ASCII plain, the rest encoded; the long one on a line of its own.
    assert!(text.contains("Content-Location: http://example.com/dir/sub/encoded.html\r\n"));
    assert!(text.contains("Content-Location: =?utf-8?q?http"));
    assert!(
        text.contains(&format!("Content-Location:\r\n <{long}>\r\n")),
        "{text}"
    );
    // The other headers and the delimiters stay.
    assert!(text.contains("Content-Location: \"http://example.com/dir/quoted/page.html\"\r\n"));
    // A second pass changes nothing.
    assert!(!rewrite_message(output, url).changed());
}

#[test]
fn a_content_location_split_by_a_tab_keeps_the_message_whole() {
    // Found by `robust::message_keeps_its_tree_and_is_stable`: the URL was
    // spliced across the tab, `ht<TAB>tp://example.com/dir/htn;`.
    let message = b"Content-Type: text/html\nContent-Location: ht\tn;\n\n<a href=x>\n";
    crate::robust::props::message_is_kept_and_idempotent(message).unwrap();
    let folded = b"Content-Type: text/html\nContent-Location: sub/\n page.html\n\n<a href=x>\n";
    crate::robust::props::message_is_kept_and_idempotent(folded).unwrap();
}

#[test]
fn a_content_location_past_998_characters_is_folded_inside() {
    let long = "d/".repeat(600);
    // No relative link in the body: against that base, its line would
    // pass 998 octets too.
    let message =
        format!("Content-Type: text/html\nContent-Location: {long}x.html\n\n<p>text</p>\n");
    let (out, warnings) = rewrite(message.as_bytes(), Some("http://example.com/"));
    assert!(warnings.is_empty(), "{warnings:?}");
    assert!(
        out.split(|&b| b == b'\n').all(|l| l.len() <= 78),
        "{}",
        String::from_utf8_lossy(&out)
    );
    // An RFC 2557 reader removes the folding white space.
    let (headers, _) = mailparse::parse_headers(&out).unwrap();
    let value = headers
        .iter()
        .find(|h| h.get_key_ref() == "Content-Location")
        .unwrap()
        .get_value_raw();
    assert_eq!(
        relink::mime::headers::url_value(value).unwrap().unwrap(),
        format!("http://example.com/{long}x.html")
    );
}

#[test]
fn an_encoded_content_location_gives_the_base() {
    let message =
        b"Content-Type: text/html\nContent-Location: =?utf-8?q?sub/page=2Ehtml?=\n\n<a href=x>\n";
    let (out, warnings) = rewrite(message, Some("http://example.com/dir/page.html"));
    assert!(warnings.is_empty(), "{warnings:?}");
    assert_eq!(
        String::from_utf8(out).unwrap(),
        "Content-Type: text/html\nContent-Location: http://example.com/dir/sub/page.html\n\n<a href=http://example.com/dir/sub/x>\n"
    );
    // One that does not decode is ignored, with a warning, and the layer
    // below gives the base.
    let bad = b"Content-Type: text/html\nContent-Location: =?x-unknown?q?sub/page=2Ehtml?=\n\n<a href=x>\n";
    let outcome = rewrite_message(bad, Some("http://example.com/dir/page.html"));
    assert_eq!(
        outcome
            .warnings()
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>(),
        [
            "the message: Content-Location ignored: encoded word \"=?x-unknown?q?sub/page=2Ehtml?=\" does not decode"
        ]
    );
    let layers = &outcome.documents()[0].1;
    assert!(
        matches!(&layers[0].status, relink::LayerStatus::Ignored(why) if why.contains("does not decode")),
        "{layers:?}"
    );
    assert!(outcome.changed());
    assert_eq!(
        String::from_utf8(outcome.into_bytes()).unwrap(),
        "Content-Type: text/html\nContent-Location: =?x-unknown?q?sub/page=2Ehtml?=\n\n<a href=http://example.com/dir/x>\n"
    );
}

#[test]
fn a_content_location_that_is_not_utf8_keeps_its_bytes() {
    let message = b"Content-Type: text/html\nContent-Location: caf\xe9.html\n\n<a href=x>\n";
    let (out, _) = rewrite(message, Some("http://example.com/dir/page.html"));
    assert!(out.starts_with(b"Content-Type: text/html\nContent-Location: caf\xe9.html\n\n"));
    assert!(out.ends_with(b"<a href=http://example.com/dir/x>\n"));
}

#[test]
fn an_unquoted_from_line_stays_unquoted() {
    // As Thunderbird writes (mbox_unquoted): `From ` lines in bodies as
    // they are, after no blank line. Every reader reads such a line in the
    // output as it read it in the input: no `>` is added.
    let input = read("mail/unquoted.mbox");
    let text = String::from_utf8(input.clone()).unwrap();
    let (out, warnings) = rewrite(&input, None);
    assert!(warnings.is_empty(), "{warnings:?}");
    let out = String::from_utf8(out).unwrap();
    let (first, second) = out.split_at(out.find("From - Thu Mar 05 09:05").unwrap());
    assert!(
        first.contains(
            "\nFrom the archive, <a href=\"http://news.example.org/2026/10/archive/1996.html\">"
        ),
        "{first}"
    );
    assert_eq!(
        second,
        &text[text.find("From - Thu Mar 05 09:05").unwrap()..]
    );
    assert!(second.contains("\nFrom the archive, our first issue.\n"));
    for format in [MboxFormat::Mboxo, MboxFormat::Mboxrd] {
        assert_eq!(count_messages(out.as_bytes(), format), 2);
    }
    assert_eq!(rewrite(out.as_bytes(), None).0, out.as_bytes());
}

/// How many messages a reader of `format` finds in an mbox.
fn count_messages(text: &[u8], format: MboxFormat) -> usize {
    let mut reader = mbox::MboxReader::new(text, format).unwrap();
    let mut n = 0;
    while reader.next_message().unwrap().is_some() {
        n += 1;
    }
    n
}

/// Rewrites an mbox of `format` against a retrieval URL.
fn rewrite_as(text: &[u8], format: MboxFormat) -> (Vec<u8>, Vec<String>, bool) {
    let rewriter = Rewriter::new()
        .retrieved_from("http://r.example/d/")
        .kind(Kind::Mbox)
        .mbox_format(format);
    run(&rewriter, text)
}

const UNCHANGED: &str = "From a@b Mon Jan  1 00:00:00 2024\nSubject: plain\nContent-Length: LENGTH\n\nnothing to do\n\nFrom c@d Mon Jan  1 00:00:00 2024\nSubject: two\n\nstill nothing\n";

#[test]
fn a_content_length_too_large_to_allocate_is_read_as_what_is_there() {
    for length in ["50000000000", "4000000000", "18446744073709551615"] {
        let text = UNCHANGED.replace("LENGTH", length);
        for format in [MboxFormat::Mboxcl, MboxFormat::Mboxcl2] {
            let (out, _, changed) = rewrite_as(text.as_bytes(), format);
            assert!(!changed, "{length}");
            assert_eq!(out, text.as_bytes(), "{length}");
        }
    }
}

#[test]
fn a_content_length_that_wraps_around_loses_no_bytes() {
    let text = UNCHANGED.replace("LENGTH", "18446744073709551596");
    assert_eq!(MboxFormat::detect(text.as_bytes()), MboxFormat::Mboxrd);
    for format in [MboxFormat::Mboxcl, MboxFormat::Mboxcl2, MboxFormat::Mboxrd] {
        let (out, _, changed) = rewrite_as(text.as_bytes(), format);
        assert!(!changed);
        assert_eq!(out, text.as_bytes());
    }
}

#[test]
fn a_content_location_before_content_length_keeps_the_length_right() {
    // The header grows with the location; the length counts the body only.
    let text = b"From a@b Mon Jan  1 00:00:00 2024\nContent-Type: text/html\nContent-Location: sub/page.html\nContent-Length: 11\n\n<a href=x>\nFrom c@d Mon Jan  1 00:00:00 2024\nContent-Length: 2\n\nz\n";
    assert_eq!(MboxFormat::detect(text), MboxFormat::Mboxcl2);
    let (out, warnings, changed) = rewrite_as(text, MboxFormat::Mboxcl2);
    assert!(changed && warnings.is_empty(), "{warnings:?}");
    assert_eq!(
        String::from_utf8(out.clone()).unwrap(),
        "From a@b Mon Jan  1 00:00:00 2024\nContent-Type: text/html\nContent-Location: http://r.example/d/sub/page.html\nContent-Length: 34\n\n<a href=http://r.example/d/sub/x>\nFrom c@d Mon Jan  1 00:00:00 2024\nContent-Length: 2\n\nz\n"
    );
    assert_eq!(count_messages(&out, MboxFormat::Mboxcl2), 2);
}

#[test]
fn a_soft_line_break_at_the_end_of_a_body_keeps_the_messages_apart() {
    let text = read("mail/soft-break.mboxcl2");
    assert_eq!(MboxFormat::detect(&text), MboxFormat::Mboxcl2);
    let (out, warnings, changed) = rewrite_as(&text, MboxFormat::Mboxcl2);
    assert!(changed, "{warnings:?}");
    assert_eq!(count_messages(&out, MboxFormat::Mboxcl2), 2);
    let out = String::from_utf8(out).unwrap();
    assert!(
        out.contains("href=3D\"http://r.example/d/next.html\">"),
        "{out}"
    );
    assert!(out.contains("</html>=\nFrom reader@"), "{out}");
}

#[test]
fn a_byte_order_mark_is_read_past_and_kept() {
    let bom = b"\xEF\xBB\xBF";
    // The first field names the type: read with the mark, it would be lost.
    let message = b"Content-Type: text/html; charset=utf-8\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\n<a href=3D\"x.html\">x</a>\r\n".to_vec();
    let mut input = bom.to_vec();
    input.extend_from_slice(&message);
    let (out, _) = rewrite(&input, Some("http://r.example/d/"));
    let (want, _) = rewrite(&message, Some("http://r.example/d/"));
    assert_ne!(want, message);
    assert_eq!(&out[..3], bom);
    assert_eq!(&out[3..], &want[..]);

    let archive = read("mail/archive.mboxrd");
    let mut input = bom.to_vec();
    input.extend_from_slice(&archive);
    assert!(mbox::looks_like_mbox(&input));
    assert_eq!(MboxFormat::detect(&input), MboxFormat::detect(&archive));
    let (out, _) = rewrite(&input, None);
    assert_eq!(&out[..3], bom);
    assert_eq!(&out[3..], &read("mail/archive.expected.mboxrd")[..]);
}

fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

#[test]
fn in_place_rewrites_an_mbox_copy() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("archive.mboxrd");
    std::fs::copy(fixture("mail/archive.mboxrd"), &path).unwrap();
    let out = relink(&[path.to_str().unwrap(), "--in-place"], b"");
    crate::cli::assert_ok(&out);
    assert_eq!(
        std::fs::read(&path).unwrap(),
        read("mail/archive.expected.mboxrd")
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("message 3"), "{stderr}");
    // Unchanged messages are byte-identical: message 2 as it was.
    let text = String::from_utf8(std::fs::read(&path).unwrap()).unwrap();
    assert!(text.contains(">From here nothing changes.\nSee index.html.\n"));
}

#[test]
fn in_place_rewrites_a_maildir_copy() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("maildir");
    copy_tree(&fixture("mail/maildir"), &root);
    let unchanged = root.join("cur/1772445601.M2P1.host:2,RS");
    let old = make_old(&unchanged);
    let out = relink(&[root.to_str().unwrap(), "--in-place"], b"");
    crate::cli::assert_ok(&out);
    assert_eq!(
        files_under(&root),
        files_under(&fixture("mail/maildir.expected"))
    );
    assert_eq!(
        std::fs::metadata(&unchanged).unwrap().modified().unwrap(),
        old
    );
}

#[test]
fn a_maildir_can_be_copied_rewritten() {
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("copy");
    let source = fixture("mail/maildir");
    let out = relink(
        &[source.to_str().unwrap(), "-o", target.to_str().unwrap()],
        b"",
    );
    crate::cli::assert_ok(&out);
    let expected: Vec<_> = files_under(&fixture("mail/maildir.expected"))
        .into_iter()
        .filter(|(name, _)| !name.starts_with("tmp"))
        .collect();
    assert_eq!(files_under(&target), expected);
}

#[test]
fn a_multipart_message_prints_with_each_part_absolute() {
    let input = fixture("mail/rfc822-nested.eml");
    let out = relink(&[input.to_str().unwrap()], b"");
    assert!(out.status.success());
    assert_eq!(out.stdout, read("mail/rfc822-nested.expected.eml"));
}

mod properties {
    use proptest::prelude::*;

    use super::*;

    const FORMATS: [MboxFormat; 4] = [
        MboxFormat::Mboxo,
        MboxFormat::Mboxrd,
        MboxFormat::Mboxcl,
        MboxFormat::Mboxcl2,
    ];

    fn first_message(text: &[u8], format: MboxFormat) -> Vec<u8> {
        let mut reader = mbox::MboxReader::new(text, format).unwrap();
        reader.next_message().unwrap().unwrap().bytes
    }

    /// Lines of the kinds that matter to mbox splitting and MIME.
    fn mailish() -> impl Strategy<Value = Vec<u8>> {
        let line = prop_oneof![
            Just("From a@b Mon Jan  1 00:00:00 2024\n".to_owned()),
            Just("From nobody\n".to_owned()),
            Just(">From x\n".to_owned()),
            Just("\n".to_owned()),
            Just("\r\n".to_owned()),
            Just("Content-Length: 7\n".to_owned()),
            Just("Content-Type: multipart/mixed; boundary=b\n".to_owned()),
            Just("Content-Type: text/html\n".to_owned()),
            Just("Content-Type: message/rfc822\n".to_owned()),
            Just("Content-Transfer-Encoding: base64\n".to_owned()),
            Just("Content-Transfer-Encoding: quoted-printable\n".to_owned()),
            Just("Content-Base: http://h/d/\n".to_owned()),
            Just("--b\n".to_owned()),
            Just("--b--\n".to_owned()),
            Just("<a href=x.html>=3D=\n".to_owned()),
            Just("<a href=3D\"y.html\">=\n".to_owned()),
            Just("=0D=0A<img src=3Dz.png>=0D=0A=\n".to_owned()),
            Just("Content-Length: 0\n".to_owned()),
            "[ -~]{0,12}\n",
        ];
        prop::collection::vec(line, 0..30).prop_map(|l| l.concat().into_bytes())
    }

    proptest! {
        #[test]
        fn an_mbox_without_a_base_comes_out_as_it_went_in(input in mailish(), format in 0..4usize) {
            let format = [MboxFormat::Mboxo, MboxFormat::Mboxrd, MboxFormat::Mboxcl, MboxFormat::Mboxcl2][format];
            // Without a base, only a Content-Base inside can change a body.
            let (out, changed) = rewrite_mbox(&input, format, None);
            if !changed {
                prop_assert_eq!(out, input);
            }
        }

        /// Messages and mboxes of these lines, and any bytes as a message,
        /// hold the robustness properties: no base, no change; with a base
        /// the MIME tree, the headers and the messages of an mbox are kept,
        /// and a second pass changes nothing.
        #[test]
        fn messages_keep_their_structure(input in mailish(), bytes in prop::collection::vec(any::<u8>(), 0..200)) {
            use crate::robust::props;
            for message in [&input, &bytes] {
                let r = props::message_without_a_base_is_unchanged(message);
                prop_assert!(r.is_ok(), "{:?}", r);
                let r = props::message_is_kept_and_idempotent(message);
                prop_assert!(r.is_ok(), "{:?}", r);
            }
            let r = props::mbox_is_kept(&input);
            prop_assert!(r.is_ok(), "{:?}", r);
        }

        #[test]
        fn split_points_agree_with_the_reader(input in mailish(), format in 0..4usize) {
            let format = FORMATS[format];
            let mut text = b"From a@b Mon Jan  1 00:00:00 2024\n".to_vec();
            text.extend_from_slice(&input);
            let first = first_message(&text, format);
            let (split, next) = mbox::split_points(&input, format);
            if first.len() < input.len() {
                prop_assert_eq!(split, Some(first.len()));
            } else {
                prop_assert_eq!(split, None);
                text.extend_from_slice(b"From z Mon Jan  1 00:00:00 2024\nSubject: z\n\n");
                prop_assert_eq!(first_message(&text, format) == input, next);
            }
        }

        #[test]
        fn as_many_messages_come_out_as_went_in(input in mailish(), format in 0..4usize) {
            let format = FORMATS[format];
            let mut text = b"From a@b Mon Jan  1 00:00:00 2024\n".to_vec();
            text.extend_from_slice(&input);
            let (out, _) = rewrite_mbox(&text, format, Some("http://r/x/"));
            prop_assert_eq!(count_messages(&out, format), count_messages(&text, format));
        }

        #[test]
        fn without_any_base_a_message_is_unchanged(input in mailish()) {
            let stripped: Vec<u8> = String::from_utf8(input).unwrap().replace("Content-Base: http://h/d/\n", "").into_bytes();
            let outcome = rewrite_message(&stripped, None);
            prop_assert!(!outcome.changed());
        }
    }
}

/// A second pass changes nothing, and no reader of the mailbox (one that
/// reads it as it is, or one that unquotes `>From ` lines as the variant
/// says) reads any change but the links: over messages with `From ` lines,
/// quoted and not, at every position, in each transfer encoding and mbox
/// variant.
mod from_lines {
    use base64::Engine;
    use proptest::prelude::*;

    use super::*;

    const FORMATS: [MboxFormat; 4] = [
        MboxFormat::Mboxo,
        MboxFormat::Mboxrd,
        MboxFormat::Mboxcl,
        MboxFormat::Mboxcl2,
    ];

    /// Lines of HTML: a tag left open across lines, links in each place.
    const HTML: [&str; 7] = [
        "<p>Notes",
        "<a href=x title=y",
        "<img src=w>",
        "<a href=\"q.html\">q</a>",
        "<style>p{background:url(b.png)}</style>",
        "",
        "<a href=f.html>end</a>",
    ];

    /// The lines that matter to an mbox reader.
    const FROM: [&str; 5] = [
        "From c@d Mon Jan  1 00:00:00 2024",
        ">From c@d",
        ">>From c@d <a href=g.html>",
        "From <a href=h.html>",
        "From ",
    ];

    /// A message of `lines` as HTML in transfer encoding `cte` (0 7bit, 1
    /// quoted-printable, 2 base64), with its `From ` line, and a
    /// `Content-Length` for the variants that count.
    fn message(lines: &[&str], cte: usize, format: MboxFormat) -> Vec<u8> {
        let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
        let (header, body) = match cte {
            0 => ("", text),
            1 => (
                "Content-Transfer-Encoding: quoted-printable\n",
                text.replace('=', "=3D"),
            ),
            _ => {
                let encoded = base64::engine::general_purpose::STANDARD.encode(&text);
                let wrapped: Vec<&str> = encoded
                    .as_bytes()
                    .chunks(76)
                    .map(|c| std::str::from_utf8(c).unwrap())
                    .collect();
                (
                    "Content-Transfer-Encoding: base64\n",
                    format!("{}\n", wrapped.join("\n")),
                )
            }
        };
        let length = if matches!(format, MboxFormat::Mboxcl | MboxFormat::Mboxcl2) {
            format!("Content-Length: {}\n", body.len())
        } else {
            String::new()
        };
        format!(
            "From a@b Mon Jan  1 00:00:00 2024\nContent-Type: text/html\n{header}{length}\n{body}\n"
        )
        .into_bytes()
    }

    /// A message as a reader that unquotes reads it (mbox(5)): mboxrd
    /// takes a `>` off each `>...>From ` line, mboxo and mboxcl off a
    /// `>From ` line; mboxcl2 quotes nothing.
    fn unquote(message: &[u8], format: MboxFormat) -> Vec<u8> {
        let mut out = Vec::new();
        for line in message.split_inclusive(|&b| b == b'\n') {
            let arrows = line.iter().take_while(|&&b| b == b'>').count();
            let quoted = match format {
                MboxFormat::Mboxrd => arrows >= 1,
                MboxFormat::Mboxo | MboxFormat::Mboxcl => arrows == 1,
                MboxFormat::Mboxcl2 => false,
            } && line[arrows..].starts_with(b"From ");
            out.extend_from_slice(if quoted { &line[1..] } else { line });
        }
        out
    }

    fn messages(text: &[u8], format: MboxFormat) -> Vec<Vec<u8>> {
        let mut reader = mbox::MboxReader::new(text, format).unwrap();
        let mut out = Vec::new();
        while let Some(m) = reader.next_message().unwrap() {
            out.push(m.bytes);
        }
        out
    }

    /// The decoded HTML of a single-part message, as mailparse reads it.
    fn html(message: &[u8]) -> Option<Vec<u8>> {
        let mail = mailparse::parse_mail(message).ok()?;
        (mail.ctype.mimetype == "text/html" && mail.subparts.is_empty())
            .then(|| mail.get_body_raw().ok())
            .flatten()
    }

    /// Checks an mbox of `format` against the retrieval URL
    /// `http://r.example/d/`.
    fn check(text: &[u8], format: MboxFormat) -> Result<(), String> {
        let (once, _, _) = rewrite_as(text, format);
        let (twice, _, _) = rewrite_as(&once, format);
        if twice != once {
            return Err(format!(
                "a second pass changed it:\n{}\nthen\n{}",
                String::from_utf8_lossy(&once),
                String::from_utf8_lossy(&twice)
            ));
        }
        let (before, after) = (messages(text, format), messages(&once, format));
        if before.len() != after.len() {
            return Err(format!("{} messages became {}", before.len(), after.len()));
        }
        let page = Rewriter::new()
            .kind(Kind::Html)
            .retrieved_from("http://r.example/d/");
        for (old, new) in before.iter().zip(&after) {
            if old == new {
                continue;
            }
            for unquoting in [false, true] {
                let read = |m: &[u8]| {
                    if unquoting {
                        unquote(m, format)
                    } else {
                        m.to_vec()
                    }
                };
                let (Some(was), Some(is)) = (html(&read(old)), html(&read(new))) else {
                    return Err("a rewritten message is no longer HTML".to_owned());
                };
                let want = page.rewrite(&was).unwrap().into_bytes();
                if is != want {
                    return Err(format!(
                        "read {}unquoted, the HTML became\n{}\nnot\n{}",
                        if unquoting { "" } else { "not " },
                        String::from_utf8_lossy(&is),
                        String::from_utf8_lossy(&want)
                    ));
                }
            }
        }
        crate::robust::props::mbox_is_kept(text)
    }

    #[test]
    fn a_from_line_at_every_position_reads_alike() {
        let (mut cases, mut rewritten) = (0, 0);
        for at in 0..=HTML.len() {
            for from in FROM {
                for cte in 0..3 {
                    for format in FORMATS {
                        let mut lines = HTML.to_vec();
                        lines.insert(at, from);
                        let mut text = message(&lines, cte, format);
                        text.extend(message(&HTML, cte, format));
                        if let Err(e) = check(&text, format) {
                            panic!(
                                "{from:?} at {at}, encoding {cte}, {format:?}: {e}\n{}",
                                String::from_utf8_lossy(&text)
                            );
                        }
                        let (out, _, _) = rewrite_as(&text, format);
                        cases += 1;
                        if messages(&out, format)[0] != messages(&text, format)[0] {
                            rewritten += 1;
                        }
                    }
                }
            }
        }
        // Most are rewritten: only a `>From ` line inside a tag, which
        // readers read two ways, leaves its message.
        eprintln!("{rewritten} of {cases}");
        assert!(
            rewritten * 10 >= cases * 8,
            "{rewritten} of {cases} rewritten"
        );
    }

    fn line() -> impl Strategy<Value = &'static str> {
        prop::sample::select(HTML.iter().chain(&FROM).copied().collect::<Vec<_>>())
    }

    proptest! {
        #[test]
        fn a_second_pass_changes_nothing(
            bodies in prop::collection::vec((prop::collection::vec(line(), 1..10), 0..3usize), 1..4),
            format in 0..4usize,
        ) {
            let format = FORMATS[format];
            let text: Vec<u8> = bodies.iter().flat_map(|(lines, cte)| message(lines, *cte, format)).collect();
            let r = check(&text, format);
            prop_assert!(r.is_ok(), "{:?}\n{}", r, String::from_utf8_lossy(&text));
        }
    }
}

/// The library's streaming mbox call tells the variant as the command line
/// does, and writes what the fixture pairs expect.
#[test]
fn rewriter_streams_an_mbox_of_either_variant() {
    for name in ["archive.mboxrd", "archive.mboxcl2"] {
        let input = read(&format!("mail/{name}"));
        let (stem, ext) = name.rsplit_once('.').unwrap();
        let want = read(&format!("mail/{stem}.expected.{ext}"));
        let mut out = Vec::new();
        let report = relink::Rewriter::new()
            .run(
                relink::Input::reader(&input[..]),
                relink::Output::Always(&mut out),
                &mut |_| Ok(()),
            )
            .unwrap();
        assert!(report.changed, "{name}");
        assert_eq!(report.kind, Some(relink::Kind::Mbox), "{name}");
        assert!(out == want, "{name}: {}", String::from_utf8_lossy(&out));
    }
}

/// A part's own Content-Location is its address, the base of its links,
/// not a link: `relink links` leaves it out; `--list` keeps its row, since
/// a rewrite writes a relative one resolved; `explain` shows it as a base.
#[test]
fn a_parts_content_location_is_no_link_to_check() {
    let message = b"From: a@b.example\nSubject: x\nMIME-Version: 1.0\n\
Content-Type: multipart/related; boundary=b\n\n--b\nContent-Type: text/html\n\
Content-Location: https://m.example/dir/page.html\n\n<a href=\"x.html\">x</a>\n\
--b\nContent-Type: text/html\nContent-Location: other.html\n\n<img src=\"i.png\">\n--b--\n";
    let out = relink(&["links", "--type", "message", "-"], message);
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "https://m.example/dir/x.html\n"
    );
    let listed = relink(&["--list", "--type", "message", "-"], message);
    let listed = String::from_utf8_lossy(&listed.stdout);
    assert!(
        listed.contains("Content-Location https://m.example/dir/page.html"),
        "{listed}"
    );
    let explained = relink(&["explain", "--type", "message", "-"], message);
    let explained = String::from_utf8_lossy(&explained.stdout);
    assert!(explained.contains("Content-Location"), "{explained}");
}
