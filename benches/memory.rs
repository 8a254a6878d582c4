//! Peak memory of the command line (one worker): on one large document
//! of each shape of `shapes/mod.rs` (and as a WARC record, a message and
//! three Markdown documents of links), written to `-o`, as a multiple of the
//! document's size; then on archives of two sizes, listed and rewritten,
//! where the peak should not grow with the file: a WARC of the corpus
//! WARC's records repeated, and an mbox of the messages of
//! `fixtures/mail/` and the corpus pages as HTML messages (one page
//! repeated to 2.7 MB among them) repeated. Run with
//! `cargo bench --bench memory`; `RELINK_SHAPE_MB` sets the size of the
//! shapes (50 MB by default), `RELINK_ARCHIVE_MB` the sizes of the
//! archives (`100,1000` by default), and `RELINK_BENCH=shapes` or
//! `archives` runs one part (`markdown`: the Markdown documents of the
//! shapes only). The shapes part also runs every mode (`--list` as TSV
//! and JSON, `--check`, `--dry-run`, `-o`, `--in-place`) on
//! link-dense inputs of two sizes (`RELINK_ROWS_MB`, `10,25` by default),
//! where the rows of one document must not be held: the peak should stay
//! a small multiple of the input. Linux only: the peak comes from `wait4`'s
//! resource usage of each run, through `python3`.

#[path = "shapes/mod.rs"]
mod shapes;

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

fn corpus_pages() -> Vec<String> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fixtures/corpus/pages");
    let mut paths: Vec<PathBuf> = std::fs::read_dir(dir)
        .expect("the pages corpus")
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "html"))
        .collect();
    paths.sort();
    paths
        .iter()
        .map(|p| std::fs::read_to_string(p).unwrap())
        .collect()
}

/// Runs a command and prints its peak resident set in bytes and its exit
/// status. The command is run from this small process, not from the
/// bench's: a child spawned by a process inherits that process's peak
/// (Linux counts the memory it had when the child called exec), and the
/// bench holds its inputs. (This process's own peak, about 10 MB, is then
/// the floor of every figure.)
const MEASURE: &str = r#"
import os, subprocess, sys
child = subprocess.Popen(sys.argv[1:], stdout=subprocess.DEVNULL)
_, status, usage = os.wait4(child.pid, 0)
print(usage.ru_maxrss * 1024, os.waitstatus_to_exitcode(status))
"#;

/// Runs `command` to its end (its standard output discarded); its peak
/// resident set in bytes. It must succeed.
fn peak_rss(command: &Command) -> u64 {
    match peak_rss_status(command) {
        (peak, 0) => peak,
        (_, status) => panic!("relink failed: exit status {status}"),
    }
}

/// Runs `command` to its end; its peak resident set in bytes and its exit
/// status.
fn peak_rss_status(command: &Command) -> (u64, i64) {
    let output = Command::new("python3")
        .args(["-c", MEASURE])
        .arg(command.get_program())
        .args(command.get_args())
        .stderr(Stdio::inherit())
        .output()
        .expect("python3");
    let text = String::from_utf8_lossy(&output.stdout);
    let fields: Vec<i64> = text
        .split_whitespace()
        .filter_map(|field| field.parse().ok())
        .collect();
    let [peak, status] = fields[..] else {
        panic!("relink failed: {text}");
    };
    (u64::try_from(peak).unwrap_or(0), status)
}

#[cfg(target_os = "linux")]
fn main() {
    let part = std::env::var("RELINK_BENCH").unwrap_or_default();
    if part == "markdown" {
        return shapes(true);
    }
    if part != "archives" {
        shapes(false);
        rows();
    }
    if part != "shapes" {
        archives();
    }
}

#[cfg(target_os = "linux")]
fn shapes(markdown_only: bool) {
    let mb: usize = std::env::var("RELINK_SHAPE_MB")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(50);
    let relink = env!("CARGO_BIN_EXE_relink");
    let dir = tempfile::tempdir().unwrap();
    println!("peak RSS of relink -j 1 -o, as a multiple of the input ({mb} MB shapes)");
    let mut inputs: Vec<(&str, &str, Vec<u8>)> = Vec::new();
    if !markdown_only {
        inputs = shapes::all(mb * 1_000_000, &corpus_pages())
            .into_iter()
            .map(|(name, page)| (name, "input.html", page.into_bytes()))
            .collect();
        // The link-dense page as one WARC response record, and a single
        // line of links twice the size as the HTML body of a message.
        let dense = inputs
            .last()
            .map(|(_, _, page)| page.clone())
            .unwrap_or_default();
        inputs.push((
            "link-dense page, WARC",
            "input.warc",
            response_record(&dense),
        ));
        let line = "<a href=\"x\">y</a>".repeat(2 * mb * 1_000_000 / 17);
        inputs.push(("one line of links, .eml", "input.eml", html_message(&line)));
        // Blocks of CSS nested far past the depth whose URLs are read,
        // each of which the scan must still end.
        let deep = format!("<style>{}url(z)</style>", "({[".repeat(mb * 1_000_000 / 3));
        inputs.push(("CSS blocks nested deep", "deep.html", deep.into_bytes()));
        // One feed element of escaped HTML, its quotes written as
        // references: the HTML reader's edits placed through the map of
        // the content.
        let unit = "&lt;a href=&quot;x&quot;&gt;y&lt;/a&gt;\n";
        let feed = format!(
            "<?xml version=\"1.0\"?>\n<feed xmlns=\"http://www.w3.org/2005/Atom\"><entry>\
             <content type=\"html\">{}</content></entry></feed>\n",
            unit.repeat(mb * 1_000_000 / unit.len())
        );
        inputs.push(("escaped HTML in a feed", "escaped.xml", feed.into_bytes()));
    }
    inputs.extend(markdown(mb * 1_000_000));
    for (name, file, page) in inputs {
        let input = dir.path().join(file);
        std::fs::write(&input, &page).unwrap();
        let start = Instant::now();
        let peak = peak_rss(
            Command::new(relink)
                .arg(&input)
                .args(["--retrieved-from", "https://example.com/", "-j", "1", "-q"])
                .arg("-o")
                .arg(dir.path().join(format!("output-{file}"))),
        );
        println!(
            "  {name:<26} {:>6.1} MB  {:>6.0} MB peak  {:>5.1}x  {:>6.2} s",
            page.len() as f64 / 1e6,
            peak as f64 / 1e6,
            peak as f64 / page.len() as f64,
            start.elapsed().as_secs_f64()
        );
    }
}

/// The Markdown inputs of about `bytes` bytes: a name, a file name and
/// the bytes. A long document is read in pieces cut between top-level
/// blocks, or between the lines of a long paragraph or run of definitions
/// where nothing is open, so each costs a piece's tree: here a paragraph
/// of an inline link a line, then one of a reference a line with the
/// definitions in one run after it, then many blocks.
fn markdown(bytes: usize) -> Vec<(&'static str, &'static str, Vec<u8>)> {
    let lines = bytes / 16;
    let inline: String = (0..lines).map(|i| format!("[l{i}](x{i})\n")).collect();
    let mut references: String = (0..lines / 2).map(|i| format!("[l{i}][d{i}]\n")).collect();
    references.extend((0..lines / 2).map(|i| format!("\n[d{i}]: y{i}")));
    // Paragraphs of a few lines of links, each followed by its definitions.
    let unit = |i: usize| {
        format!(
            "[l{i}](x{i}) and [r{i}][d{i}]\n![i{i}](y{i}.png) [s{i}]\n\n[d{i}]: z{i}\n[s{i}]: w{i}\n\n"
        )
    };
    let blocks: String = (0..bytes / 80).map(unit).collect();
    vec![
        ("inline links, Markdown", "input.md", inline.into_bytes()),
        ("references, Markdown", "refs.md", references.into_bytes()),
        (
            "blocks of links, Markdown",
            "blocks.md",
            blocks.into_bytes(),
        ),
    ]
}

/// The link-dense inputs of about `bytes` bytes the modes run on: a name,
/// a file name and the bytes.
fn dense_inputs(bytes: usize) -> Vec<(&'static str, &'static str, Vec<u8>)> {
    let fill = |unit: &str| unit.repeat(bytes / unit.len());
    let entry = "<entry><link href=\"x\"/></entry>\n";
    let feed = format!(
        "<?xml version=\"1.0\"?><feed xmlns=\"http://www.w3.org/2005/Atom\">\n{}</feed>\n",
        fill(entry)
    );
    vec![
        (
            "<a href=x> repeated",
            "a.html",
            fill("<a href=x>").into_bytes(),
        ),
        (
            "one line of links",
            "line.html",
            fill("<a href=\"x\">y</a>").into_bytes(),
        ),
        (
            "srcset-heavy",
            "srcset.html",
            fill("<img srcset=\"a.png 1x, b.png 2x, c.png 3x\">\n").into_bytes(),
        ),
        (
            "a style sheet of url()s",
            "urls.css",
            fill("a{background:url(x.png)}\n").into_bytes(),
        ),
        ("a feed of links", "feed.xml", feed.into_bytes()),
        (
            "one HTML part, .eml",
            "message.eml",
            html_message(&fill("<a href=\"x\">y</a>")),
        ),
        (
            "one WARC record of links",
            "record.warc",
            response_record(fill("<a href=x>").as_bytes()),
        ),
    ]
}

/// Peak RSS of every mode on each link-dense input, at two sizes, as a
/// multiple of the input.
#[cfg(target_os = "linux")]
fn rows() {
    let sizes: Vec<usize> = std::env::var("RELINK_ROWS_MB")
        .unwrap_or_else(|_| "10,25".to_owned())
        .split(',')
        .filter_map(|mb| mb.trim().parse().ok())
        .collect();
    let relink = env!("CARGO_BIN_EXE_relink");
    let dir = tempfile::tempdir().unwrap();
    let modes: [(&str, &[&str]); 7] = [
        ("--list", &["--list"]),
        ("json", &["--list", "--format", "json"]),
        ("wat", &["--list", "--format", "wat"]),
        ("--check", &["--check"]),
        ("--dry-run", &["--dry-run"]),
        ("-o", &["-o"]),
        ("--in-place", &["--in-place"]),
    ];
    println!("peak RSS of relink -j 1 in each mode, as a multiple of the input");
    let header: Vec<&str> = modes.iter().map(|(name, _)| *name).collect();
    println!("  {:<26} {:>6}  {}", "", "MB", header.join("  "));
    for &mb in &sizes {
        for (name, file, bytes) in dense_inputs(mb * 1_000_000) {
            let input = dir.path().join(file);
            let mut line = format!("  {name:<26} {:>6.1} ", bytes.len() as f64 / 1e6);
            for (mode, args) in modes {
                std::fs::write(&input, &bytes).unwrap();
                let mut command = Command::new(relink);
                command
                    .arg(&input)
                    .args(["--retrieved-from", "https://example.com/", "-j", "1", "-q"])
                    .args(args);
                if mode == "-o" {
                    command.arg(dir.path().join(format!("output-{file}")));
                }
                // `--check` says with status 1 that the input would change.
                let (peak, status) = peak_rss_status(&command);
                assert!(
                    status == 0 || (mode == "--check" && status == 1),
                    "{name} {mode}: status {status}"
                );
                line.push_str(&format!(
                    " {:>w$.1}x",
                    peak as f64 / bytes.len() as f64,
                    w = mode.len().max(4) - 1
                ));
            }
            println!("{line}");
        }
    }
}

/// `page` as the HTML payload of one uncompressed WARC response record.
fn response_record(page: &[u8]) -> Vec<u8> {
    let http = format!(
        "HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: {}\r\n\r\n",
        page.len()
    );
    let head = format!(
        "WARC/1.1\r\nWARC-Type: response\r\nWARC-Target-URI: https://example.com/dense.html\r\n\
         WARC-Date: 2026-03-02T10:00:00Z\r\nWARC-Record-ID: <urn:uuid:00000000-0000-4000-8000-000000000001>\r\n\
         Content-Type: application/http; msgtype=response\r\nContent-Length: {}\r\n\r\n",
        http.len() + page.len()
    );
    [head.as_bytes(), http.as_bytes(), page, b"\r\n\r\n"].concat()
}

/// Writes `unit` as often as it takes to reach `size` bytes.
fn repeat(path: &Path, unit: &[u8], size: usize) {
    let mut file = std::io::BufWriter::new(std::fs::File::create(path).unwrap());
    for _ in 0..size.div_ceil(unit.len()) {
        file.write_all(unit).unwrap();
    }
    file.flush().unwrap();
}

/// The corpus WARC's records, uncompressed, repeated to `size` bytes.
fn warc(path: &Path, size: usize) {
    let corpus = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/corpus/warc/python-tutorial.warc.gz");
    let mut records = Vec::new();
    flate2::read::MultiGzDecoder::new(std::fs::File::open(corpus).unwrap())
        .read_to_end(&mut records)
        .unwrap();
    repeat(path, &records, size);
}

/// One mboxrd message: the `From ` line, the message with its `From `
/// lines quoted, a blank line.
fn mbox_message(message: &[u8]) -> Vec<u8> {
    let mut out = b"From relink@example.org Mon Mar  2 10:00:00 2026\n".to_vec();
    for line in message.split_inclusive(|&b| b == b'\n') {
        let arrows = line.iter().take_while(|&&b| b == b'>').count();
        if line[arrows..].starts_with(b"From ") {
            out.push(b'>');
        }
        out.extend_from_slice(line);
    }
    if !out.ends_with(b"\n") {
        out.push(b'\n');
    }
    out.push(b'\n');
    out
}

/// An HTML message of `page`, with a base.
fn html_message(page: &str) -> Vec<u8> {
    let head = "From: a@example.org\nSubject: a page\nMIME-Version: 1.0\n\
                Content-Base: http://example.org/pages/\n\
                Content-Type: text/html; charset=utf-8\n\n";
    [head.as_bytes(), page.as_bytes()].concat()
}

/// The mail fixtures and the corpus pages (one repeated to 2.7 MB) as an
/// mbox, repeated to `size` bytes; the size of the largest message.
fn mbox(path: &Path, size: usize) -> usize {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fixtures/mail");
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            let name = p.file_name().unwrap().to_string_lossy();
            !name.contains(".expected.") && (name.ends_with(".eml") || name.ends_with(".mhtml"))
        })
        .collect();
    files.sort();
    let mut messages: Vec<Vec<u8>> = files.iter().map(|p| std::fs::read(p).unwrap()).collect();
    let pages = corpus_pages();
    messages.extend(pages.iter().map(|page| html_message(page)));
    let mut large = String::new();
    while large.len() < 2_700_000 {
        large.push_str(&pages[0]);
    }
    messages.push(html_message(&large));
    let largest = messages.iter().map(Vec::len).max().unwrap_or(0);
    let unit: Vec<u8> = messages.iter().flat_map(|m| mbox_message(m)).collect();
    repeat(path, &unit, size);
    largest
}

/// Peak RSS of listing and rewriting a WARC and an mbox of each size.
#[cfg(target_os = "linux")]
fn archives() {
    let sizes: Vec<usize> = std::env::var("RELINK_ARCHIVE_MB")
        .unwrap_or_else(|_| "100,1000".to_owned())
        .split(',')
        .filter_map(|mb| mb.trim().parse().ok())
        .collect();
    let relink = env!("CARGO_BIN_EXE_relink");
    let dir = tempfile::tempdir().unwrap();
    println!("peak RSS of relink -j 1 on archives");
    let jobs: [(&str, &str, &[&str]); 5] = [
        (
            "--list --format json",
            "warc",
            &["--list", "--format", "json"],
        ),
        (
            "--list --format wat",
            "warc",
            &["--list", "--format", "wat"],
        ),
        ("--list", "mbox", &["--list"]),
        ("rewrite to -o", "mbox", &[]),
        ("rewrite to -o", "warc", &[]),
    ];
    for &mb in &sizes {
        let warc_path = dir.path().join("archive.warc");
        warc(&warc_path, mb * 1_000_000);
        let mbox_path = dir.path().join("archive.mbox");
        let largest = mbox(&mbox_path, mb * 1_000_000);
        for (job, kind, args) in jobs {
            let input = if kind == "warc" {
                &warc_path
            } else {
                &mbox_path
            };
            let mut command = Command::new(relink);
            command
                .arg(input)
                .args(["--retrieved-from", "http://example.org/", "-j", "1", "-q"])
                .args(args);
            if args.is_empty() {
                command.arg("-o").arg(dir.path().join("output"));
            }
            let start = Instant::now();
            let peak = peak_rss(&command);
            let bound = if (job, kind) == ("rewrite to -o", "mbox") {
                format!(
                    " (bound 64 MB + 5 x {:.1} MB = {:.0} MB)",
                    largest as f64 / 1e6,
                    (64e6 + 5.0 * largest as f64) / 1e6
                )
            } else {
                String::new()
            };
            println!(
                "  {job:<22} {kind} {:>6.0} MB  {:>6.0} MB peak  {:>6.2} s{bound}",
                std::fs::metadata(input).unwrap().len() as f64 / 1e6,
                peak as f64 / 1e6,
                start.elapsed().as_secs_f64()
            );
        }
    }
}

#[cfg(not(target_os = "linux"))]
fn main() {
    println!("the memory bench reads peak RSS through wait4: Linux only");
}
