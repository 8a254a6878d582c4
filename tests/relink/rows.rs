//! Link rows handed over as they are found: the same rows, in the same
//! order, with records and messages rewritten in parallel as by one
//! worker, for every kind of input.

use std::path::{Path, PathBuf};

use relink::{Event, Input, Kind, LinkRow, Output, Rewriter, Warning};

/// Every fixture file, in order.
fn fixtures() -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                walk(&path, out);
            } else {
                out.push(path);
            }
        }
    }
    let mut out = Vec::new();
    walk(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures"),
        &mut out,
    );
    out.sort();
    out
}

/// A row as text, every field of it.
fn shown(row: &LinkRow) -> String {
    format!("{row:?}")
}

/// What a run over an input gave.
#[derive(Debug, Default)]
struct Ran {
    output: Option<Vec<u8>>,
    rows: Vec<LinkRow>,
    rewritten: usize,
    warnings: Vec<Warning>,
}

/// `input` read through the front door.
fn ran(input: Input<'_>) -> Result<Ran, relink::Error> {
    let rewriter = Rewriter::new().retrieved_from("http://example.com/a/b.html");
    let mut rows = Vec::new();
    let mut out = Vec::new();
    let report = rewriter.run(input, Output::WhenChanged(&mut out), &mut |event| {
        if let Event::Rows(found) = event {
            rows.extend_from_slice(found);
        }
        Ok(())
    })?;
    Ok(Ran {
        output: report.changed.then_some(out),
        rows,
        rewritten: report.rewritten,
        warnings: report.warnings,
    })
}

/// What `input` gives read by one worker, then by the workers of the
/// pool this runs in (the records and messages of an archive in parallel
/// batches): the two runs and the rows of the second.
fn both<'a>(input: impl Fn() -> Input<'a> + Sync) -> (Ran, Ran, Vec<LinkRow>) {
    let one = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap();
    let kept = one.install(|| ran(input()));
    match (kept, ran(input())) {
        (Ok(kept), Ok(mut streamed)) => {
            let rows = std::mem::take(&mut streamed.rows);
            (kept, streamed, rows)
        }
        (kept, streamed) => {
            assert_eq!(kept.is_err(), streamed.is_err());
            Default::default()
        }
    }
}

/// Asserts that the parallel run handed over the rows of the one-worker
/// run, in its order, and that the rest of the runs agree.
fn assert_same(name: &str, (kept, streamed, rows): (Ran, Ran, Vec<LinkRow>)) {
    let want: Vec<String> = kept.rows.iter().map(shown).collect();
    let got: Vec<String> = rows.iter().map(shown).collect();
    assert_eq!(got, want, "{name}");
    assert_eq!(kept.output, streamed.output, "{name}");
    assert_eq!(kept.rewritten, streamed.rewritten, "{name}");
    assert_eq!(kept.warnings, streamed.warnings, "{name}");
}

#[test]
fn every_fixture_hands_its_rows_over_in_order() {
    // Three workers: the records and messages of an archive are rewritten
    // in parallel batches, each holding its rows until its turn.
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(3)
        .build()
        .unwrap();
    let mut read = 0;
    for path in fixtures() {
        let input = std::fs::read(&path).unwrap();
        let name = path.display().to_string();
        let named = || Input::bytes(&input).named(&path);
        pool.install(|| assert_same(&name, both(named)));
        read += 1;
    }
    assert!(read > 100, "only {read} fixtures");
}

/// A WARC response record of `page`, numbered `n`.
fn record(n: usize, page: &str) -> Vec<u8> {
    let http = format!(
        "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: {}\r\n\r\n{page}",
        page.len()
    );
    format!(
        "WARC/1.1\r\nWARC-Type: response\r\nWARC-Target-URI: http://h/{n}/\r\n\
         WARC-Record-ID: <urn:uuid:{n}>\r\nContent-Length: {}\r\n\r\n{http}\r\n\r\n",
        http.len()
    )
    .into_bytes()
}

#[test]
fn a_large_record_among_small_ones_hands_its_rows_over_in_order() {
    // Small records share a batch; the large one, past a batch whose rows
    // are held, is rewritten alone, its rows handed over as found.
    let large = "<a href=x>".repeat(100_000);
    let mut warc = Vec::new();
    for n in 1..=9 {
        let page = if n == 5 {
            large.clone()
        } else {
            format!("<a href=p{n}><img src=i{n}>")
        };
        warc.extend(record(n, &page));
    }
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(4)
        .build()
        .unwrap();
    let (kept, streamed, rows) = pool.install(|| both(|| Input::bytes(&warc).kind(Kind::Warc)));
    assert_eq!(rows.len(), 8 * 2 + 100_000);
    let numbers: Vec<usize> = rows
        .iter()
        .map(|r| r.record.as_ref().unwrap().number)
        .collect();
    assert!(numbers.is_sorted());
    assert_eq!(rows[8].link.resolved, "http://h/5/x");
    assert_same("records", (kept, streamed, rows));
}

#[test]
fn an_mbox_of_a_large_message_among_small_ones_hands_its_rows_over_in_order() {
    let message = |page: &str| {
        format!(
            "From a@b Mon Jan  1 00:00:00 2024\nContent-Type: text/html\nContent-Base: http://h/d/\n\n{page}\n\n"
        )
    };
    let mut mbox = String::new();
    for n in 1..=7 {
        let page = if n == 3 {
            "<a href=x>".repeat(100_000)
        } else {
            format!("<a href=m{n}>")
        };
        mbox.push_str(&message(&page));
    }
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(4)
        .build()
        .unwrap();
    let (kept, streamed, rows) =
        pool.install(|| both(|| Input::bytes(mbox.as_bytes()).kind(Kind::Mbox)));
    assert_eq!(rows.len(), 6 + 100_000);
    let numbers: Vec<usize> = rows.iter().map(|r| r.message.unwrap()).collect();
    assert!(numbers.is_sorted());
    assert_same("messages", (kept, streamed, rows));
}

#[test]
fn a_large_feed_that_is_not_well_formed_hands_over_no_row() {
    // Read first for counts: found not well-formed at its end, it is left
    // as it is, and no row of it has left.
    let entries = "<entry><link href=\"x\"/></entry>\n".repeat(40_000);
    let feed = format!("<feed xmlns=\"http://www.w3.org/2005/Atom\">{entries}<oops></feed>");
    let (kept, streamed, rows) = both(|| Input::bytes(feed.as_bytes()).kind(Kind::Xml));
    assert!(rows.is_empty());
    assert!(kept.output.is_none());
    assert_same("feed", (kept, streamed, rows));
    let good = format!("<feed xmlns=\"http://www.w3.org/2005/Atom\">{entries}</feed>");
    let (kept, streamed, rows) = both(|| Input::bytes(good.as_bytes()).kind(Kind::Xml));
    assert_eq!(rows.len(), 40_000);
    assert_same("good feed", (kept, streamed, rows));
}

#[test]
fn rows_held_past_a_mebibyte_come_out_whole_and_in_input_order() {
    // `--check` holds an input's rows until it is done, and `-j 3` those
    // of inputs after the head: past 1 MiB they wait in a temporary file.
    let dir = tempfile::tempdir().unwrap();
    let mut files = Vec::new();
    for n in 0..3 {
        let path = dir.path().join(format!("{n}.html"));
        let page: String = (0..30_000)
            .map(|i| format!("<a href=f{n}-{i}>\n"))
            .collect();
        std::fs::write(&path, page).unwrap();
        files.push(path.display().to_string());
    }
    for mode in ["--check", "--list"] {
        let mut args = vec![
            "-q",
            "-j",
            "3",
            "--format",
            "json",
            "--retrieved-from",
            "http://h/",
            mode,
        ];
        args.extend(files.iter().map(String::as_str));
        let out = crate::cli::relink(&args, b"");
        let text = String::from_utf8(out.stdout).unwrap();
        assert!(text.len() > 3 << 20, "{mode}: {} bytes", text.len());
        let links: Vec<&str> = text
            .lines()
            .filter_map(|line| line.split("\"original\":\"").nth(1)?.split('"').next())
            .collect();
        let want: Vec<String> = (0..3)
            .flat_map(|n| (0..30_000).map(move |i| format!("f{n}-{i}")))
            .collect();
        assert_eq!(links.len(), want.len(), "{mode}");
        let wrong = links.iter().zip(&want).position(|(got, want)| got != want);
        assert_eq!(wrong, None, "{mode}");
    }
}

/// The code of the Rust and Python files of the crate and of the Python
/// package (`src/`, `python/src/`, `python/python/`), each with its path
/// from the repository's root; tests left out (a Rust file's from its
/// `#[cfg(test)]` on), as they may spell a fact out to check it.
fn code_files() -> Vec<(String, String)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut out = Vec::new();
    for dir in ["src", "python/src", "python/python"] {
        for (name, bytes) in crate::files_under(&root.join(dir)) {
            let rust = name.ends_with(".rs");
            if !(rust || name.ends_with(".py") || name.ends_with(".pyi")) {
                continue;
            }
            let text = String::from_utf8_lossy(&bytes).into_owned();
            let code = match text.find("#[cfg(test)]") {
                Some(at) if rust => text[..at].to_owned(),
                _ => text,
            };
            out.push((format!("{dir}/{name}"), code));
        }
    }
    out
}

/// The files of [`code_files`] that hold every one of `needles`.
fn written_in(needles: &[&str]) -> Vec<String> {
    code_files()
        .into_iter()
        .filter(|(_, code)| needles.iter().all(|needle| code.contains(needle)))
        .map(|(name, _)| name)
        .collect()
}

#[test]
fn the_keys_of_a_row_are_listed_in_one_file() {
    // A list of a row's keys, wherever it is written (a schema, a writer,
    // a dict built key by key, a test's set of keys), names these
    // together; one file may.
    let keys = ["\"line\"", "\"resolved\"", "\"base_from\"", "\"record_id\""];
    assert_eq!(written_in(&keys), ["src/rows.rs"]);
}

#[test]
fn each_fact_of_rows_and_compressions_is_written_once() {
    let facts: [(&[&str], &[&str]); 6] = [
        // Whether a text starts with a scheme.
        (&["fn has_scheme("], &["src/url/mod.rs"]),
        // Where a link's base came from, as every report names it.
        (&["fn base_from("], &["src/rows.rs"]),
        // The unit a row is in, told by its key.
        (
            &["UnitKey"],
            &["src/lib.rs", "src/links.rs", "src/rows.rs", "src/wat.rs"],
        ),
        // What an input in a compression relink does not undo is called.
        (&["\"compressed with "], &["src/compressed.rs"]),
        // The magic numbers of gzip and zstd.
        (&["0x1f, 0x8b"], &["src/compressed.rs"]),
        (&["0x28, 0xb5, 0x2f, 0xfd"], &["src/compressed.rs"]),
    ];
    for (needles, files) in facts {
        assert_eq!(written_in(needles), files, "{needles:?}");
    }
}

/// A row's values one at a time are its fields' values, in order, for the
/// rows of every fixture (pages with a BASE element or no base, messages
/// and their parts, mboxes, web archives' records), with a file and
/// without.
#[test]
fn each_value_gives_the_values_of_fields() {
    let mut rows = 0;
    for path in fixtures() {
        let Ok(ran) = ran(Input::path(&path)) else {
            continue;
        };
        for row in &ran.rows {
            for file in [None, Some("in.html")] {
                let mut values = Vec::new();
                row.each_value(file, |value| values.push(value));
                let fields = row.fields(file).map(|(_, value)| value);
                assert_eq!(values, fields, "{}", path.display());
            }
            rows += 1;
        }
    }
    assert!(rows > 1000, "{rows} rows");
}

/// A URL to check is written once a document, as one word on one line:
/// tabs and newlines dropped, spaces written `%20`.
#[test]
fn a_url_to_check_is_one_word_written_once() {
    let out = Rewriter::new()
        .retrieved_from("http://a/b/")
        .rewrite(b"<a href='x y'><a href='x y'><img src='c\td'><a href='c\td'>")
        .unwrap();
    let mut urls = Vec::new();
    relink::RowWriter::urls()
        .write(&mut urls, out.rows())
        .unwrap();
    assert_eq!(
        String::from_utf8(urls).unwrap(),
        "http://a/b/x%20y\nhttp://a/b/cd\n"
    );
}
