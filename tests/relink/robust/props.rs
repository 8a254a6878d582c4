//! The robustness properties, each a function of one input that says what
//! broke. Shared by the property tests (`tests/relink/robust.rs`) and the
//! fuzz targets (`fuzz/fuzz_targets/`, which include this file by path), so
//! it uses only the library and its own dependencies, and the HTML tree
//! comparison of `tests/relink/oracle.rs` as `crate::oracle` (the fuzz
//! targets include that file by path too).
//!
//! Every call that rewrites or resolves is in the "glue" section below, so
//! that a change of the API touches only it.

use std::borrow::Cow;

use encoding_rs::Encoding;
use relink::mime::mbox::MboxReader;
use relink::url::rfc3986;
use relink::{BaseUrl, Event, Input, Kind, MboxFormat, Output, Rewriter, Rules};

use crate::oracle::{self, Values};

// ---------------------------------------------------------------- glue

/// The retrieval URL the rewriting properties use.
pub const RETRIEVED_FROM: &str = "http://example.com/dir/page.html?q#f";

/// The retrieval URL, the lowest layer of a base, under `rules`.
pub fn retrieved(rules: Rules) -> BaseUrl {
    BaseUrl::parse(RETRIEVED_FROM, rules).expect("a valid base")
}

/// What rewriting a document gave, as the properties need it.
pub struct Run {
    /// The new bytes, `None` when nothing changed.
    pub output: Option<Vec<u8>>,
    /// The encoding the document was read in.
    pub encoding: &'static Encoding,
    /// Whether the document had a base.
    pub has_base: bool,
    /// How many links were reported changed.
    pub changed_links: usize,
}

/// A rewrite of `kind` with `outer` as the layer below the document, with
/// its rule set for every resolution (the BASE element's too).
fn rewriter(kind: Kind, outer: Option<&BaseUrl>) -> Rewriter {
    let rewriter = Rewriter::new().kind(kind);
    match outer {
        Some(url) => rewriter.rules(url.rules()).retrieved_from(url.as_str()),
        None => rewriter,
    }
}

/// What one run through the front door gave.
struct Ran {
    /// The bytes written.
    written: Vec<u8>,
    /// Whether any byte changed.
    changed: bool,
    /// How many links were reported changed.
    changed_links: usize,
    /// Whether any link had a base.
    linked: bool,
    /// How many documents had no base.
    without_base: usize,
}

/// Runs `rewriter` over `bytes`; `None` when the front door reads them as
/// no document of the kind asked for (a web archive, a compressed file):
/// what these properties say is of documents, the others are left to the
/// archive and compression tests.
fn run(rewriter: &Rewriter, bytes: &[u8]) -> Result<Option<Ran>, String> {
    let mut out = Vec::new();
    let (mut plain, mut changed_links, mut linked) = (true, 0, false);
    let result = rewriter.run(
        Input::bytes(bytes),
        Output::Always(&mut out),
        &mut |event| {
            match event {
                Event::Start {
                    compressed, unread, ..
                } => plain = !compressed && unread.is_none(),
                Event::Rows(rows) => {
                    changed_links += rows.iter().filter(|r| r.link.changed).count();
                    linked |= rows.iter().any(|r| r.link.base.is_some());
                }
                _ => {}
            }
            Ok(())
        },
    );
    match result {
        Ok(_) if !plain => Ok(None),
        Ok(report) => Ok(Some(Ran {
            written: out,
            changed: report.changed,
            changed_links,
            linked,
            without_base: report.without_base,
        })),
        Err(relink::Error::ArchiveAsDocument) => Ok(None),
        Err(_) if !plain => Ok(None),
        Err(e) => Err(e.to_string()),
    }
}

/// A run that changed nothing, for an input that is no document.
const NOTHING: Ran = Ran {
    written: Vec::new(),
    changed: false,
    changed_links: 0,
    linked: false,
    without_base: 1,
};

/// Rewrites an HTML document with `outer` as the layer below it.
pub fn html(bytes: &[u8], outer: Option<&BaseUrl>) -> Result<Run, String> {
    let ran = run(&rewriter(Kind::Html, outer), bytes)?.unwrap_or(NOTHING);
    Ok(Run {
        changed_links: ran.changed_links,
        has_base: ran.without_base == 0,
        encoding: read_in(bytes),
        output: ran.changed.then_some(ran.written),
    })
}

/// The encoding relink reads an HTML document in.
// unit: no run reports the encoding a document was read in.
fn read_in(bytes: &[u8]) -> &'static Encoding {
    let options = relink::options::Options::default();
    relink::html::page::rewrite_html(bytes, &options, relink::splice::Make::Bytes)
        .map_or(encoding_rs::UTF_8, |outcome| outcome.encoding)
}

/// Rewrites one message (or MHTML file); the encoding is not meaningful.
pub fn message(bytes: &[u8], outer: Option<&BaseUrl>) -> Run {
    let ran = run(&rewriter(Kind::Message, outer), bytes)
        .expect("a message in memory is always read")
        .unwrap_or(NOTHING);
    Run {
        changed_links: ran.changed_links,
        has_base: ran.linked,
        encoding: encoding_rs::UTF_8,
        output: ran.changed.then_some(ran.written),
    }
}

/// The mbox variant relink guesses for `bytes`.
pub fn mbox_format(bytes: &[u8]) -> MboxFormat {
    MboxFormat::detect(bytes)
}

/// Rewrites an mbox: the bytes written and whether anything changed.
pub fn mbox(bytes: &[u8], format: MboxFormat, outer: Option<&BaseUrl>) -> (Vec<u8>, bool) {
    let rewriter = rewriter(Kind::Mbox, outer).mbox_format(format);
    match run(&rewriter, bytes).expect("an mbox in memory is always read") {
        Some(ran) => (ran.written, ran.changed),
        None => (bytes.to_vec(), false),
    }
}

/// The messages of an mbox as relink splits it: (From line, bytes).
pub fn mbox_messages(bytes: &[u8], format: MboxFormat) -> Vec<(Vec<u8>, Vec<u8>)> {
    let mut reader = MboxReader::new(bytes, format).expect("reading memory cannot fail");
    let mut out = Vec::new();
    while let Some(m) = reader.next_message().expect("reading memory cannot fail") {
        out.push((m.from_line, m.bytes));
    }
    out
}

/// Resolves under `rules`: `None` when `base` is not a valid base, else the
/// result or the error.
pub fn resolve(rules: Rules, base: &str, reference: &str) -> Option<Result<String, String>> {
    let base = BaseUrl::parse(base, rules).ok()?;
    Some(
        base.resolve(reference)
            .map(Cow::into_owned)
            .map_err(|e| e.to_string()),
    )
}

/// Resolves with every rule set and with the raw RFC functions, whatever
/// `base` is, for the panics alone.
pub fn resolution_never_panics(base: &str, reference: &str) {
    for rules in Rules::ALL {
        let _ = resolve(rules, base, reference);
    }
    let _ = relink::url::rfc1808::resolve(base, reference);
    let _ = rfc3986::resolve(base, reference);
}

/// Whether `url` is an absolute URL under `rules` (a valid base).
pub fn is_absolute(url: &str, rules: Rules) -> bool {
    BaseUrl::parse(url, rules).is_ok()
}

/// Whether RFC 3986's second pass may differ: the base's path has dot
/// segments, which section 5.2.2 keeps for an empty-path reference but
/// removes from an absolute one.
pub fn rfc3986_base_has_dot_segments(base: &str) -> bool {
    let path = rfc3986::Reference::parse(base).path;
    rfc3986::remove_dot_segments(path) != path
}

/// Inputs the properties leave to other tests.
pub mod known {
    /// A document relink reads in an encoding other than UTF-8 (its bytes
    /// are not UTF-8, or it says so): the tree comparison here reads bytes
    /// as UTF-8, so those documents are checked by the property of
    /// `encodings.rs` instead (outside the rewritten values, every byte
    /// stays).
    pub fn not_plain_utf8(bytes: &[u8]) -> bool {
        let after_bom = bytes.strip_prefix(b"\xef\xbb\xbf").unwrap_or(bytes);
        std::str::from_utf8(after_bom).is_err()
            || super::html(bytes, None).is_ok_and(|run| run.encoding != encoding_rs::UTF_8)
    }
}

// ---------------------------------------------------------------- HTML

/// With no base, nothing changes: a document without the letters `base`
/// (so no BASE element) given no outer layer comes out as it went in, and
/// any document that ends up without a base reports no change. Either
/// way it is read in the encoding sniffing gives before any reading.
pub fn html_without_a_base_is_unchanged(bytes: &[u8]) -> Result<(), String> {
    let run = html(bytes, None)?;
    let sniffed = relink::encoding::sniff_html(bytes, None).encoding;
    if run.encoding != sniffed {
        return Err(format!(
            "read as {} where sniffing says {}",
            run.encoding.name(),
            sniffed.name()
        ));
    }
    if !contains_ignore_case(bytes, b"base") && run.has_base {
        return Err("a base without a BASE element or outer layer".to_owned());
    }
    if !run.has_base && (run.output.is_some() || run.changed_links > 0) {
        return Err("changed without a base".to_owned());
    }
    Ok(())
}

/// With a base, the output parses to the same tree as the input (elements,
/// attribute names, attribute values, text, comments, doctype), except the
/// values of URL-bearing attributes and the text of `<style>` elements; a
/// changed single-URL value is the resolution of the old one against the
/// document's base (found independently of relink), a list or style sheet
/// keeps its number of URLs, and an `iframe srcdoc` document keeps its own
/// tree by the same rules ([`oracle::compare`] with [`Values::Counted`]).
pub fn html_structure_is_kept(bytes: &[u8], rules: Rules) -> Result<(), String> {
    let outer = retrieved(rules);
    let run = html(bytes, Some(&outer))?;
    let Some(output) = &run.output else {
        return Ok(());
    };
    let (before, _, _) = run.encoding.decode(bytes);
    let (after, _, _) = run.encoding.decode(output);
    let (before, after) = (oracle::tree(&before), oracle::tree(&after));
    oracle::compare(&before, &after, &outer, Values::Counted).map(|_| ())
}

/// Rewriting the output again with the same base changes nothing. Holds
/// for RFC 1808 and WHATWG; for RFC 3986 only while no base has dot
/// segments (see [`rfc3986_base_has_dot_segments`]), so callers give it
/// RFC 1808.
pub fn html_is_idempotent(bytes: &[u8], rules: Rules) -> Result<(), String> {
    let outer = retrieved(rules);
    let first = html(bytes, Some(&outer))?;
    let Some(once) = first.output else {
        return Ok(());
    };
    let second = html(&once, Some(&outer))?;
    match second.output {
        None => Ok(()),
        Some(twice) => Err(format!(
            "a second pass changed {}",
            first_difference(&once, &twice)
        )),
    }
}

/// Whether `needle` is in `haystack`, ASCII case-insensitively.
pub fn contains_ignore_case(haystack: &[u8], needle: &[u8]) -> bool {
    haystack
        .windows(needle.len())
        .any(|w| w.eq_ignore_ascii_case(needle))
}

/// Where two byte strings first differ, with some context.
pub fn first_difference(a: &[u8], b: &[u8]) -> String {
    let at = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    let start = at.saturating_sub(20);
    let show = |s: &[u8]| {
        String::from_utf8_lossy(&s[start.min(s.len())..(at + 40).min(s.len())]).into_owned()
    };
    format!("at byte {at}: {:?} became {:?}", show(a), show(b))
}

// ---------------------------------------------------------------- mail

/// A message with no base header and no BASE element (no `base` or
/// `location` in it, in any case), given no outer layer, is unchanged.
pub fn message_without_a_base_is_unchanged(bytes: &[u8]) -> Result<(), String> {
    let run = message(bytes, None);
    let may_have_base =
        contains_ignore_case(bytes, b"base") || contains_ignore_case(bytes, b"location");
    if !may_have_base && (run.output.is_some() || run.has_base) {
        return Err("changed without a base".to_owned());
    }
    if run.output.is_some() && run.changed_links == 0 {
        return Err("changed with no link changed".to_owned());
    }
    Ok(())
}

/// With a base, the rewritten message has the same MIME tree (media types,
/// every header byte for byte but a Content-Location made absolute), and a
/// second pass changes nothing.
pub fn message_is_kept_and_idempotent(bytes: &[u8]) -> Result<(), String> {
    let outer = retrieved(Rules::Rfc1808);
    let run = message(bytes, Some(&outer));
    let Some(once) = run.output else {
        return Ok(());
    };
    if let Ok(before) = mailparse::parse_mail(bytes) {
        let after = mailparse::parse_mail(&once)
            .map_err(|e| format!("the output no longer parses: {e}"))?;
        compare_mime(&before, &after, "")?;
    }
    if let Some(twice) = message(&once, Some(&outer)).output {
        return Err(format!(
            "a second pass changed {}",
            first_difference(&once, &twice)
        ));
    }
    Ok(())
}

fn compare_mime(
    a: &mailparse::ParsedMail<'_>,
    b: &mailparse::ParsedMail<'_>,
    path: &str,
) -> Result<(), String> {
    let raw = |m: &mailparse::ParsedMail<'_>| -> Vec<(String, Vec<u8>, String)> {
        m.headers
            .iter()
            .map(|h| (h.get_key(), h.get_value_raw().to_vec(), h.get_value()))
            .collect()
    };
    // Headers stay byte for byte, but for a relative Content-Location,
    // which is a link too: it becomes absolute (RFC 2557 readers match it
    // against the rewritten links), and whole: unfolded and decoded as an
    // RFC 5322 reader does (white space kept), it is one URL.
    let (before, after) = (raw(a), raw(b));
    let same = before.len() == after.len()
        && before
            .iter()
            .zip(&after)
            .all(|((ka, va, _), (kb, vb, value))| {
                let url = value.trim().trim_matches('"');
                ka == kb
                    && (va == vb
                        || ka.eq_ignore_ascii_case("content-location")
                            && !url.contains(char::is_whitespace)
                            && relink::url::rfc1808::Url::parse(url).scheme.is_some())
            });
    if !same {
        return Err(format!("the headers of part {path:?} changed"));
    }
    if a.ctype.mimetype != b.ctype.mimetype || a.subparts.len() != b.subparts.len() {
        return Err(format!(
            "part {path:?}: {} with {} parts became {} with {}",
            a.ctype.mimetype,
            a.subparts.len(),
            b.ctype.mimetype,
            b.subparts.len()
        ));
    }
    for (n, (x, y)) in a.subparts.iter().zip(&b.subparts).enumerate() {
        compare_mime(x, y, &format!("{path}.{}", n + 1))?;
    }
    Ok(())
}

/// An mbox, rewritten with a base in the variant relink guesses: when
/// nothing changed it is copied byte for byte; either way it keeps its
/// message count and each From line; a second pass changes nothing; and
/// with no base at all (no outer layer, no `base` or `location` in it)
/// nothing changes.
pub fn mbox_is_kept(bytes: &[u8]) -> Result<(), String> {
    let format = mbox_format(bytes);
    let may_have_base =
        contains_ignore_case(bytes, b"base") || contains_ignore_case(bytes, b"location");
    if !may_have_base {
        let (out, changed) = mbox(bytes, format, None);
        if changed || out != bytes {
            return Err("changed without a base".to_owned());
        }
    }
    let outer = retrieved(Rules::Rfc1808);
    let (once, changed) = mbox(bytes, format, Some(&outer));
    if !changed {
        return if once == bytes {
            Ok(())
        } else {
            Err(format!(
                "unchanged but not copied: {}",
                first_difference(bytes, &once)
            ))
        };
    }
    let from_lines = |b: &[u8]| -> Vec<Vec<u8>> {
        mbox_messages(b, format)
            .into_iter()
            .map(|(from, _)| from)
            .collect()
    };
    let (before, after) = (from_lines(bytes), from_lines(&once));
    if before != after {
        return Err(format!(
            "{} messages became {} ({:?})",
            before.len(),
            after.len(),
            first_difference(bytes, &once)
        ));
    }
    let (twice, changed_again) = mbox(&once, format, Some(&outer));
    if changed_again || twice != once {
        return Err(format!(
            "a second pass changed {}",
            first_difference(&once, &twice)
        ));
    }
    Ok(())
}

// ---------------------------------------------------------------- resolver

/// A `file:` URL whose first path segment is a Windows drive letter
/// (a letter, then `:` or `|`).
fn file_url_with_a_drive_letter(url: &str) -> bool {
    if !url
        .get(..5)
        .is_some_and(|s| s.eq_ignore_ascii_case("file:"))
    {
        return false;
    }
    let after_host = url[5..]
        .strip_prefix("//")
        .map_or(&url[5..], |r| r.find('/').map_or("", |i| &r[i..]));
    let segment = after_host.trim_start_matches('/').as_bytes();
    segment.len() >= 2
        && segment[0].is_ascii_alphabetic()
        && matches!(segment[1], b':' | b'|')
        && segment
            .get(2)
            .is_none_or(|b| matches!(b, b'/' | b'\\' | b'?' | b'#'))
}

/// Against a valid base: RFC 1808 and RFC 3986 always resolve; the result
/// is a valid base under the same rules (it has a scheme, and WHATWG
/// parses it); resolving it again gives it back. RFC 1808 has no
/// exception: every result has a scheme, which §4 step 2b returns as it
/// is. RFC 3986 is checked only when the base's path has no dot segments
/// ([`rfc3986_base_has_dot_segments`]). WHATWG is not checked for a
/// `file:` URL whose path starts with a Windows drive letter: the URL
/// Standard drops the host of one that is parsed (`file://h/e:` is
/// `file:///e:`) but not of one made by removing `..` (`file://h/` +
/// `/x/../e:` is `file://h/e:`).
pub fn resolution_is_absolute_and_stable(
    rules: Rules,
    base: &str,
    reference: &str,
) -> Result<(), String> {
    let Some(result) = resolve(rules, base, reference) else {
        return Ok(());
    };
    let once = match result {
        Ok(once) => once,
        Err(e) if rules == Rules::Whatwg => {
            let _ = e;
            return Ok(());
        }
        Err(e) => return Err(format!("{rules}: {base:?} + {reference:?} failed: {e}")),
    };
    if !is_absolute(&once, rules) {
        return Err(format!(
            "{rules}: {base:?} + {reference:?} gave {once:?}, not absolute"
        ));
    }
    if rules == Rules::Rfc3986 && rfc3986_base_has_dot_segments(base) {
        return Ok(());
    }
    if rules == Rules::Whatwg && file_url_with_a_drive_letter(&once) {
        return Ok(());
    }
    match resolve(rules, base, &once) {
        Some(Ok(twice)) if twice == once => Ok(()),
        twice => Err(format!(
            "{rules}: {base:?} + {reference:?} gave {once:?}, then {twice:?}"
        )),
    }
}
