//! Messages, MHTML, mbox and Maildir: the fixture pairs, everything but the
//! rewritten bodies byte-identical, the MIME structure unchanged, each part
//! against its own base, and the archives rewritten in place.

use std::path::Path;

use mailparse::{ParsedMail, body::Body};
use relink::base::{Base, BaseSource};
use relink::document::{Options, rewrite_mbox, rewrite_message};
use relink::mime::mbox::{self, MboxFormat};
use relink::{BaseUrl, Rules};

use crate::cli::relink;
use crate::{files_under, fixture, make_old, table};

fn read(name: &str) -> Vec<u8> {
    std::fs::read(fixture(name)).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// Rewrites a message or an mbox as the command line would.
fn rewrite(input: &[u8], retrieved_from: Option<&str>) -> (Vec<u8>, Vec<String>) {
    let base = retrieved_from.map(|u| {
        Base::new(
            BaseUrl::parse(u, Rules::Rfc1808).unwrap(),
            BaseSource::RetrievedFrom,
        )
    });
    let options = Options {
        outer: base.as_ref(),
        ..Options::default()
    };
    if mbox::looks_like_mbox(input) {
        let mut out = Vec::new();
        let mut warnings = Vec::new();
        rewrite_mbox(input, mbox::detect(input), &mut out, &options, |m, _| {
            warnings.extend(
                m.outcome
                    .warnings
                    .iter()
                    .map(|w| format!("message {}: {w}", m.number)),
            );
        })
        .unwrap();
        (out, warnings)
    } else {
        let outcome = rewrite_message(input, &options);
        (
            outcome.output.unwrap_or_else(|| input.to_vec()),
            outcome.warnings.iter().map(ToString::to_string).collect(),
        )
    }
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
        mbox::detect(&read("mail/archive.mboxrd")),
        MboxFormat::Mboxrd
    );
    assert_eq!(
        mbox::detect(&read("mail/archive.mboxcl2")),
        MboxFormat::Mboxcl2
    );
}

#[test]
fn a_rewritten_mbox_line_starting_with_from_is_quoted() {
    let mbox = b"From a@b Mon Jan  1 00:00:00 2024\nContent-Base: http://h/\nContent-Type: text/html\n\n<a href=x>\nFrom me to you\n\n";
    let (out, _) = rewrite(mbox, None);
    let out = String::from_utf8(out).unwrap();
    assert!(
        out.contains("<a href=http://h/x>\n>From me to you\n"),
        "{out}"
    );
    // Quoted-printable writes it =46rom.
    let qp = b"From a@b Mon Jan  1 00:00:00 2024\nContent-Base: http://h/\nContent-Type: text/html\nContent-Transfer-Encoding: quoted-printable\n\n<a href=3Dx>\nFrom me\n\n";
    let (out, _) = rewrite(qp, None);
    let out = String::from_utf8(out).unwrap();
    assert!(out.contains("<a href=3Dhttp://h/x>\n"), "{out}");
}

#[test]
fn a_relative_content_location_stays_matched_with_the_links() {
    let input = read("mail/outlook-related.eml");
    let base = Base::new(
        BaseUrl::parse("http://intranet.example.com/finance/q1/", Rules::Rfc1808).unwrap(),
        BaseSource::RetrievedFrom,
    );
    let options = Options {
        outer: Some(&base),
        ..Options::default()
    };
    let outcome = rewrite_message(&input, &options);
    let output = outcome.output.expect("rewritten");
    let mail = mailparse::parse_mail(&output).unwrap();
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
        .links
        .iter()
        .filter(|(_, l)| l.place.attribute == "Content-Location")
        .map(|(part, l)| (part.as_str(), l.original.as_str(), l.changed))
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

#[test]
fn an_unquoted_from_line_is_quoted_only_in_a_rewritten_message() {
    // As Thunderbird writes (mbox_unquoted): `From ` lines in bodies as
    // they are, after no blank line.
    let input = read("mail/unquoted.mbox");
    let text = String::from_utf8(input.clone()).unwrap();
    let (out, _) = rewrite(&input, None);
    let out = String::from_utf8(out).unwrap();
    let (first, second) = out.split_at(out.find("From - Thu Mar 05 09:05").unwrap());
    assert!(
        first.contains(
            "\n>From the archive, <a href=\"http://news.example.org/2026/10/archive/1996.html\">"
        ),
        "{first}"
    );
    // The message with nothing to rewrite is byte-identical, its unquoted
    // line too.
    assert_eq!(
        second,
        &text[text.find("From - Thu Mar 05 09:05").unwrap()..]
    );
    assert!(second.contains("\nFrom the archive, our first issue.\n"));
    for format in [MboxFormat::Mboxo, MboxFormat::Mboxrd] {
        assert_eq!(count_messages(out.as_bytes(), format), 2);
    }
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
    let base = Base::new(
        BaseUrl::parse("http://r.example/d/", Rules::Rfc1808).unwrap(),
        BaseSource::RetrievedFrom,
    );
    let options = Options {
        outer: Some(&base),
        ..Options::default()
    };
    let mut out = Vec::new();
    let mut warnings = Vec::new();
    let changed = rewrite_mbox(text, format, &mut out, &options, |m, _| {
        warnings.extend(m.outcome.warnings.iter().map(ToString::to_string));
    })
    .unwrap();
    (out, warnings, changed)
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
    assert_eq!(mbox::detect(text.as_bytes()), MboxFormat::Mboxrd);
    for format in [MboxFormat::Mboxcl, MboxFormat::Mboxcl2, MboxFormat::Mboxrd] {
        let (out, _, changed) = rewrite_as(text.as_bytes(), format);
        assert!(!changed);
        assert_eq!(out, text.as_bytes());
    }
}

#[test]
fn a_soft_line_break_at_the_end_of_a_body_keeps_the_messages_apart() {
    let text = read("mail/soft-break.mboxcl2");
    assert_eq!(mbox::detect(&text), MboxFormat::Mboxcl2);
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
    assert_eq!(mbox::detect(&input), mbox::detect(&archive));
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
            let options = Options::default();
            let mut out = Vec::new();
            // Without a base, only a Content-Base inside can change a body.
            let changed = rewrite_mbox(&input[..], format, &mut out, &options, |_, _| {}).unwrap();
            if !changed {
                prop_assert_eq!(out, input);
            }
        }

        #[test]
        fn messages_never_panic(input in mailish(), bytes in prop::collection::vec(any::<u8>(), 0..200)) {
            let base = Base::new(BaseUrl::parse("http://r/x/", Rules::Rfc1808).unwrap(), BaseSource::RetrievedFrom);
            let options = Options { outer: Some(&base), ..Options::default() };
            let _ = rewrite_message(&input, &options);
            let _ = rewrite_message(&bytes, &options);
            let mut out = Vec::new();
            let _ = rewrite_mbox(&input[..], mbox::detect(&input), &mut out, &options, |_, _| {}).unwrap();
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
            let base = Base::new(BaseUrl::parse("http://r/x/", Rules::Rfc1808).unwrap(), BaseSource::RetrievedFrom);
            let options = Options { outer: Some(&base), ..Options::default() };
            let mut out = Vec::new();
            rewrite_mbox(&text[..], format, &mut out, &options, |_, _| {}).unwrap();
            prop_assert_eq!(count_messages(&out, format), count_messages(&text, format));
        }

        #[test]
        fn without_any_base_a_message_is_unchanged(input in mailish()) {
            let stripped: Vec<u8> = String::from_utf8(input).unwrap().replace("Content-Base: http://h/d/\n", "").into_bytes();
            let outcome = rewrite_message(&stripped, &Options::default());
            prop_assert!(outcome.output.is_none());
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
        let changed = relink::Rewriter::new()
            .rewrite_mbox(&input[..], &mut out)
            .unwrap();
        assert!(changed > 0, "{name}");
        assert!(out == want, "{name}: {}", String::from_utf8_lossy(&out));
    }
}
