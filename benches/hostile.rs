//! Time on hostile inputs, at two sizes: each built to make a reader
//! re-read its bytes (`tests/relink/warc_fuzz/hostile.rs`), each timed at
//! a size and at twice it. A reader that reads each byte a bounded number
//! of times shows a ratio near 2; a ratio near 4 is quadratic. Nothing is
//! asserted: the figures are printed. Run with
//! `cargo bench --bench hostile`; `RELINK_BENCH_SCALE` multiplies every
//! size (1 by default), `RELINK_BENCH_ONLY=feed,zipnum` times only the
//! cases whose names hold one of those words. A first run that takes more
//! than `RELINK_BENCH_BUDGET` seconds (60 by default) is not doubled.

#[path = "../tests/relink/warc_fuzz/generate.rs"]
#[allow(dead_code)]
mod generate;
#[path = "../tests/relink/warc_fuzz/hostile.rs"]
#[allow(dead_code)]
mod hostile;

use std::hint::black_box;
use std::time::{Duration, Instant};

use relink::wat::WatWriter;
use relink::{Details, Input, Kind, Output, Rewriter};

/// What reads an input.
#[derive(Clone, Copy)]
enum Reader {
    Warc,
    Feed,
    Wacz,
    Html,
    Rst,
    Markdown,
    /// Listed as WAT records (`relink::wat`).
    Wat,
}

/// An Atom feed of one element holding `n` thousand links of escaped
/// HTML, their quotes written as they are (each edit is placed through the
/// content's map, where a diff of the old and new HTML once ran to a
/// deadline).
fn feed_escaped_links(n: usize) -> Vec<u8> {
    let links: String = (0..n * 1000)
        .map(|i| format!("&lt;a href=\"p{i}.html\"&gt;{i}&lt;/a&gt;\n"))
        .collect();
    format!(
        "<?xml version=\"1.0\"?>\n<feed xmlns=\"http://www.w3.org/2005/Atom\"><entry>\
         <content type=\"html\">&lt;p title=&quot;t&quot;&gt;\n{links}</content></entry></feed>\n"
    )
    .into_bytes()
}

/// Markdown: one paragraph of `n` thousand lines of a link each (read in
/// pieces cut between its lines).
fn markdown_link_lines(n: usize) -> Vec<u8> {
    (0..n * 1000)
        .map(|i| format!("[l{i}](x{i})\n"))
        .collect::<String>()
        .into_bytes()
}

/// Markdown: the same paragraph after a backtick left open on its first
/// line, so that no line of it is a cut (read whole).
fn markdown_open_lines(n: usize) -> Vec<u8> {
    let mut text = String::from("a ` left open\n");
    text.push_str(&String::from_utf8(markdown_link_lines(n)).unwrap_or_default());
    text.into_bytes()
}

/// Markdown: one paragraph of `n` thousand lines, each a label opened and
/// never closed, a thousand bytes long (each line read for whether it
/// starts a definition).
fn markdown_long_labels(n: usize) -> Vec<u8> {
    let line = format!("w [{}\n", "a".repeat(1000));
    line.repeat(n * 1000).into_bytes()
}

/// reStructuredText of `n` thousand hyperlink targets.
fn rst_targets(n: usize) -> Vec<u8> {
    (0..n * 1000)
        .map(|i| format!(".. _t{i}: docs/{i}.html\n"))
        .collect::<String>()
        .into_bytes()
}

/// reStructuredText: one line of `n` thousand phrase references opened
/// and never closed.
fn rst_open_references(n: usize) -> Vec<u8> {
    "`a <b> ".repeat(n * 1000).into_bytes()
}

/// reStructuredText: one line of `n` thousand words joined by `-`, a
/// reference name that never ends.
fn rst_long_name(n: usize) -> Vec<u8> {
    format!("{}_ `x", "a-".repeat(n * 1000)).into_bytes()
}

/// reStructuredText: notes nested `n` deep, each with a link: each level
/// indented three spaces more, so twice the levels is four times the
/// bytes.
fn rst_nested(n: usize) -> Vec<u8> {
    (0..n)
        .map(|d| format!("{}.. note:: `a <b.html>`_\n\n", "   ".repeat(d)))
        .collect::<String>()
        .into_bytes()
}

/// A page whose `<meta` tags after the first 1024 bytes stand each in the
/// attributes of the one before, `<meta a=x ` to a `>` at the end
/// (thousands of tags).
fn overlapping_metas(n: usize) -> Vec<u8> {
    [
        " ".repeat(1100),
        "<meta a=x ".repeat(n * 1000),
        ">".to_owned(),
    ]
    .concat()
    .into_bytes()
}

/// The same, `<meta a='` to no end (thousands of tags).
fn unclosed_metas(n: usize) -> Vec<u8> {
    [" ".repeat(1100), "<meta a='".repeat(n * 1000)]
        .concat()
        .into_bytes()
}

/// A page with no `<meta>` in its first 1024 bytes whose script, dense in
/// `<` (so searched sparsely), holds `<meta` tags among `<!` and NUL
/// (each ending a run of the script): the tokenizer tests the script for
/// them as it reads it, keeps the first few, and leaves the rest of the
/// search to after the rewrite (thousands).
fn metas_in_script(n: usize) -> Vec<u8> {
    let dense = "if(a<b)x;".repeat(40);
    let part = format!("{dense}<meta name=x>{dense}<!x\0<meta charset=utf-8>");
    format!(
        "{}<script>{}</script>",
        " ".repeat(1100),
        part.repeat(n * 100)
    )
    .into_bytes()
}

/// A script of `</scrip` and `</script-` near misses, each read as text
/// where it stands (thousands).
fn script_near_misses(n: usize) -> Vec<u8> {
    end_tag_near_misses("script", n)
}

/// The same in a style sheet (RAWTEXT, where `<!` is text).
fn style_near_misses(n: usize) -> Vec<u8> {
    end_tag_near_misses("style", n)
}

/// The element `name` holding near misses of its end tag: its name short
/// of a letter, and whole but followed by `-`, among `<` and `<!`.
fn end_tag_near_misses(name: &str, n: usize) -> Vec<u8> {
    let short = &name[..name.len() - 1];
    let miss = format!("a</{short} b</{name}-c<d<!x ");
    format!("<{name}>{}</{name}>", miss.repeat(n * 1000)).into_bytes()
}

/// Tags of 15 attributes whose names share their first byte and length
/// (each looked for among the others), thousands of tags.
fn like_attribute_names(n: usize) -> Vec<u8> {
    let tag: String = (0..15)
        .map(|i| format!(" a{}=1", (b'a' + i) as char))
        .collect();
    format!("<p{tag} href=x>").repeat(n * 1000).into_bytes()
}

/// Text of numeric references, white space and not (thousands).
fn numeric_references(n: usize) -> Vec<u8> {
    [
        "<body>",
        &"&#32;&#x41;&#9&#;&#x;&#99999999999; ".repeat(n * 1000),
    ]
    .concat()
    .into_bytes()
}

/// Elements of distinct names of up to eight bytes, none a known tag's
/// (each looked up in the table of known names, then made an atom).
fn distinct_tag_names(n: usize) -> Vec<u8> {
    let mut page = String::from("<body>");
    for i in 0..n * 1000 {
        page.push_str(&format!("<t{i:x}>a</t{i:x}><a href=x>"));
    }
    page.into_bytes()
}

/// Text whose every few bytes are `&`, `<` that opens no tag, or NUL, at
/// every position of an eight-byte word.
fn text_stops(n: usize) -> Vec<u8> {
    let stops = ["&", "< ", "\0", "&x", "a&", "ab< "];
    let mut page = String::from("<body>");
    for i in 0..n * 1000 {
        page.push_str(&"b".repeat(i % 9));
        page.push_str(stops[i % stops.len()]);
    }
    page.into_bytes()
}

/// A WARC response whose HTTP head has `n` thousand distinct fields, each
/// a member of its WAT record's `Headers`.
fn http_head_fields(n: usize) -> Vec<u8> {
    let fields: String = (0..n * 1000).map(|i| format!("X-F{i}: v\r\n")).collect();
    let http = format!("HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n{fields}\r\n<a href=x>x</a>");
    format!(
        "WARC/1.0\r\nWARC-Type: response\r\nWARC-Target-URI: http://h.example/\r\n\
         Content-Type: application/http; msgtype=response\r\nContent-Length: {}\r\n\r\n{http}\r\n\r\n",
        http.len()
    )
    .into_bytes()
}

/// A case: its name, how it is built at a size, the first size, and what
/// reads it.
type Case = (&'static str, fn(usize) -> Vec<u8>, usize, Reader);

const CASES: &[Case] = &[
    (
        "WARC/1.0 lines with no head end, gzipped (thousands of lines)",
        hostile::version_lines,
        1000,
        Reader::Warc,
    ),
    (
        "record heads (version and a field) with no end, gzipped (thousands)",
        hostile::heads_without_end,
        1000,
        Reader::Warc,
    ),
    (
        "white space between two records, gzipped (MiB)",
        hostile::white_space,
        64,
        Reader::Warc,
    ),
    (
        "interim 1xx heads in one record (thousands)",
        hostile::interim_heads,
        500,
        Reader::Warc,
    ),
    (
        "Content-Lengths into later records (thousands of records)",
        hostile::lengths_into_later,
        20,
        Reader::Warc,
    ),
    (
        "feed of distinct character references (thousands)",
        hostile::feed_references,
        150,
        Reader::Feed,
    ),
    (
        "feed of escaped links in one element (thousands)",
        feed_escaped_links,
        20,
        Reader::Feed,
    ),
    (
        "feed of nested xml:base (thousands of levels)",
        hostile::nested_xml_base,
        50,
        Reader::Feed,
    ),
    (
        "WACZ with a ZipNum index (thousands of blocks)",
        hostile::zipnum,
        80,
        Reader::Wacz,
    ),
    (
        "page of <meta> tags after 1024 bytes, each in the one before (thousands)",
        overlapping_metas,
        800,
        Reader::Html,
    ),
    (
        "page of unclosed <meta> tags after 1024 bytes (thousands)",
        unclosed_metas,
        800,
        Reader::Html,
    ),
    (
        "script holding <meta> tags, no <meta> in the first 1024 bytes (thousands)",
        metas_in_script,
        400,
        Reader::Html,
    ),
    (
        "script of end tag near misses (thousands)",
        script_near_misses,
        1000,
        Reader::Html,
    ),
    (
        "style of end tag near misses (thousands)",
        style_near_misses,
        1000,
        Reader::Html,
    ),
    (
        "tags of attribute names alike in first byte and length (thousands)",
        like_attribute_names,
        100,
        Reader::Html,
    ),
    (
        "text of numeric references (thousands)",
        numeric_references,
        1000,
        Reader::Html,
    ),
    (
        "elements of distinct unknown names (thousands)",
        distinct_tag_names,
        100,
        Reader::Html,
    ),
    (
        "text of ampersands, NULs and lone < at every offset (thousands)",
        text_stops,
        1000,
        Reader::Html,
    ),
    (
        "reStructuredText hyperlink targets (thousands)",
        rst_targets,
        100,
        Reader::Rst,
    ),
    (
        "reStructuredText phrase references never closed (thousands)",
        rst_open_references,
        100,
        Reader::Rst,
    ),
    (
        "reStructuredText reference name that never ends (thousands of words)",
        rst_long_name,
        500,
        Reader::Rst,
    ),
    (
        "reStructuredText notes nested deep (levels; bytes grow as their square, so 4 is linear)",
        rst_nested,
        2000,
        Reader::Rst,
    ),
    (
        "Markdown paragraph of a link a line (thousands of lines)",
        markdown_link_lines,
        100,
        Reader::Markdown,
    ),
    (
        "Markdown paragraph of a link a line after an open backtick (thousands)",
        markdown_open_lines,
        100,
        Reader::Markdown,
    ),
    (
        "Markdown paragraph of long labels never closed (thousands of lines)",
        markdown_long_labels,
        8,
        Reader::Markdown,
    ),
    (
        "WAT of a response of distinct HTTP head fields (thousands)",
        http_head_fields,
        20,
        Reader::Wat,
    ),
];

/// Reads `input` as `reader` does, rewriting it; how long it took, and
/// whether it was refused.
fn time(reader: Reader, input: &[u8]) -> (Duration, Option<String>) {
    let start = Instant::now();
    let refused = match reader {
        // An archive rewritten whole, as `relink FILE -o OUT` does.
        Reader::Warc | Reader::Wacz => {
            let kind = match reader {
                Reader::Warc => Kind::Warc,
                _ => Kind::Wacz,
            };
            let mut out = Vec::new();
            let run = Rewriter::new().kind(kind).run(
                Input::bytes(input),
                Output::Always(&mut out),
                &mut |_| Ok(()),
            );
            black_box(&out);
            run.err().map(|e| e.to_string())
        }
        Reader::Feed => rewrite(input, "http://feed.example/a/", Kind::Xml),
        Reader::Html => rewrite(input, "http://page.example/a/", Kind::Html),
        Reader::Rst => rewrite(input, "http://page.example/a/", Kind::Rst),
        Reader::Markdown => rewrite(input, "http://page.example/a/", Kind::Markdown),
        Reader::Wat => {
            let mut wat = Vec::new();
            let mut writer = WatWriter::new("hostile.warc");
            let run = Rewriter::new().details(Details::Attributes).run(
                Input::bytes(input),
                Output::Nowhere,
                &mut |event| Ok(writer.event(&mut wat, &event)?),
            );
            let finished = writer.finish(&mut wat);
            black_box(&wat);
            run.err().or(finished.err()).map(|e| e.to_string())
        }
    };
    black_box(&refused);
    (start.elapsed(), refused)
}

/// A document of `kind` rewritten in memory as retrieved from `url`;
/// the error, if it was refused.
fn rewrite(input: &[u8], url: &str, kind: Kind) -> Option<String> {
    let rewritten = Rewriter::new()
        .retrieved_from(url)
        .kind(kind)
        .rewrite(input);
    black_box(rewritten).err().map(|e| e.to_string())
}

fn main() {
    let scale: usize = std::env::var("RELINK_BENCH_SCALE")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1);
    let budget = Duration::from_secs(
        std::env::var("RELINK_BENCH_BUDGET")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(60),
    );
    let only: Vec<String> = std::env::var("RELINK_BENCH_ONLY")
        .map(|v| v.split(',').map(str::to_ascii_lowercase).collect())
        .unwrap_or_default();
    println!("hostile inputs: seconds at a size and at twice it, and their ratio (2 is linear)");
    for &(name, build, size, reader) in CASES {
        let lower = name.to_ascii_lowercase();
        if !only.is_empty() && !only.iter().any(|w| lower.contains(w.as_str())) {
            continue;
        }
        let size = size * scale;
        let input = build(size);
        let (first, refused) = time(reader, &input);
        let note = refused.map_or(String::new(), |e| format!(" (refused: {e})"));
        if first > budget {
            println!(
                "  {name:<62} {size:>5}: {:>8.3} s, {} bytes{note}; not doubled",
                first.as_secs_f64(),
                input.len()
            );
            continue;
        }
        drop(input);
        let input = build(2 * size);
        let (second, _) = time(reader, &input);
        println!(
            "  {name:<62} {size:>5}: {:>8.3} s, {:>5}: {:>8.3} s, ratio {:>5.2}{note}",
            first.as_secs_f64(),
            2 * size,
            second.as_secs_f64(),
            second.as_secs_f64() / first.as_secs_f64()
        );
    }
}
