//! Peak memory of the command line on archives of two sizes: listing the
//! links of a WARC or an mbox, and rewriting them, with one worker, takes
//! no more memory for a file four times larger. The archives are made in
//! a temporary directory: the corpus WARC's records repeated, and the
//! messages of `fixtures/mail/` repeated in an mbox.
//!
//! The release binary is used when it is there and newer than the debug
//! one, on 40 and 160 MB; else the debug binary, on 4 and 16 MB, so the
//! test stays within a minute on two cores. Linux only: the peak is the
//! `ru_maxrss` of the child, in kilobytes there.

#![cfg(target_os = "linux")]

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::fixture;

/// The binary to measure, and the two sizes (in bytes) to measure it on.
fn binary_and_sizes() -> (PathBuf, [usize; 2]) {
    let debug = PathBuf::from(env!("CARGO_BIN_EXE_relink"));
    let release = debug
        .parent()
        .and_then(Path::parent)
        .map(|target| target.join("release").join("relink"));
    let modified = |path: &Path| std::fs::metadata(path).and_then(|m| m.modified()).ok();
    if let Some(release) = release
        && let (Some(built), Some(debug_built)) = (modified(&release), modified(&debug))
        && built >= debug_built
    {
        return (release, [40_000_000, 160_000_000]);
    }
    (debug, [4_000_000, 16_000_000])
}

/// The corpus WARC's records, uncompressed, repeated to at least `size`
/// bytes.
fn warc(path: &Path, size: usize) {
    let mut records = Vec::new();
    flate2::read::MultiGzDecoder::new(
        std::fs::File::open(fixture("corpus/warc/python-tutorial.warc.gz")).unwrap(),
    )
    .read_to_end(&mut records)
    .unwrap();
    repeat(path, &records, size);
}

/// The messages of `fixtures/mail/` in an mboxrd, repeated to at least
/// `size` bytes; the size of the largest message.
fn mbox(path: &Path, size: usize) -> usize {
    let mut messages: Vec<PathBuf> = std::fs::read_dir(fixture("mail"))
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|p| {
            let name = p.file_name().unwrap().to_string_lossy();
            !name.contains(".expected.") && (name.ends_with(".eml") || name.ends_with(".mhtml"))
        })
        .collect();
    messages.sort();
    assert!(messages.len() > 5, "the mail fixtures");
    let mut archive = Vec::new();
    let mut largest = 0;
    for path in &messages {
        let message = std::fs::read(path).unwrap();
        largest = largest.max(message.len());
        archive.extend_from_slice(b"From relink@example.org Mon Mar  2 10:00:00 2026\n");
        for line in message.split_inclusive(|&b| b == b'\n') {
            // mboxrd: a `From ` line after any `>`s gains one more.
            let arrows = line.iter().take_while(|&&b| b == b'>').count();
            if line[arrows..].starts_with(b"From ") {
                archive.push(b'>');
            }
            archive.extend_from_slice(line);
        }
        if !archive.ends_with(b"\n") {
            archive.push(b'\n');
        }
        archive.push(b'\n');
    }
    repeat(path, &archive, size);
    largest
}

fn repeat(path: &Path, unit: &[u8], size: usize) {
    let mut file = std::io::BufWriter::new(std::fs::File::create(path).unwrap());
    for _ in 0..size.div_ceil(unit.len()) {
        file.write_all(unit).unwrap();
    }
    file.flush().unwrap();
}

/// Runs a command, counts the lines of its standard output, and prints
/// its peak resident set in bytes, the lines and its exit status. The
/// command is run from this small process, not from the test's: a child
/// spawned by a process inherits that process's peak (Linux counts the
/// memory it had when the child called exec), and the test process holds
/// what the other tests left. (This process's own peak, about 10 MB,
/// is then the floor of every figure.)
pub const MEASURE: &str = r#"
import os, subprocess, sys
child = subprocess.Popen(sys.argv[1:], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
lines = sum(chunk.count(b"\n") for chunk in iter(lambda: child.stdout.read(1 << 16), b""))
_, status, usage = os.wait4(child.pid, 0)
print(usage.ru_maxrss * 1024, lines, os.waitstatus_to_exitcode(status), usage.ru_utime + usage.ru_stime)
"#;

/// What a run of relink took: its peak resident set in bytes, the lines
/// it wrote on standard output, its exit status, and its CPU time in
/// seconds, user and system (what a test of time bounds: unlike the
/// clock, it does not stretch when other work shares the machine).
#[derive(Clone, Copy, Debug)]
pub struct Run {
    pub peak: u64,
    pub lines: usize,
    pub status: i32,
    pub cpu: f64,
}

/// Runs relink with `args` to its end, measured.
pub fn measure(binary: &Path, args: &[&std::ffi::OsStr]) -> Run {
    let output = Command::new(crate::python())
        .args(["-c", MEASURE])
        .arg(binary)
        .args(args)
        .stderr(Stdio::inherit())
        .output()
        .expect("python");
    let text = String::from_utf8_lossy(&output.stdout);
    let fields: Vec<&str> = text.split_whitespace().collect();
    let parsed = match fields[..] {
        [peak, lines, status, cpu] => (|| {
            Some(Run {
                peak: peak.parse().ok()?,
                lines: lines.parse().ok()?,
                status: status.parse().ok()?,
                cpu: cpu.parse().ok()?,
            })
        })(),
        _ => None,
    };
    parsed.unwrap_or_else(|| panic!("relink {args:?}: {text}"))
}

/// A shape made to be slow, at a tiny size (1) and at two `sizes` four
/// times apart: `run(n)` makes the input of `n`, runs relink on it and
/// gives the input's size in bytes with the run. Each peak is at most
/// `times` bytes a byte of input above the tiny input's, and the larger
/// size takes at most ten times the CPU of the smaller (a quadratic
/// reader takes sixteen). The two runs, for checks of their own.
pub fn linear_at_two_sizes(
    shape: &str,
    sizes: [usize; 2],
    times: u64,
    mut run: impl FnMut(usize) -> (u64, Run),
) -> [Run; 2] {
    let floor = run(1).1.peak;
    let runs = sizes.map(|n| {
        let (size, done) = run(n);
        eprintln!(
            "{shape} {n}: {size} bytes, {:.2} s, peak {:.1} MB ({:.1} MB on a tiny one)",
            done.cpu,
            done.peak as f64 / 1e6,
            floor as f64 / 1e6
        );
        assert!(
            done.peak <= floor + times * size,
            "{shape} {n}: {} over {times} times {size} above {floor}",
            done.peak
        );
        done
    });
    assert!(
        runs[1].cpu < 10.0 * runs[0].cpu.max(0.1),
        "{shape}: {runs:?}"
    );
    runs
}

/// Runs relink with `args` to its end, which must be a success; its peak
/// resident set in bytes and how many lines it wrote on standard output.
pub fn peak_rss(binary: &Path, args: &[&std::ffi::OsStr]) -> (u64, usize) {
    let run = measure(binary, args);
    assert_eq!(run.status, 0, "relink {args:?} failed");
    (run.peak, run.lines)
}

const MB: u64 = 1_000_000;

/// Runs one job on the small and the large archive: the peak of the large
/// run is no more than `slack` above the small one's, and both are under
/// `bound`; the larger run lists more rows (when it lists).
fn same_peak(job: &str, binary: &Path, inputs: [&Path; 2], args: &[&str], bound: u64) {
    let slack = 12 * MB;
    let mut peaks = Vec::new();
    let mut rows = Vec::new();
    for input in inputs {
        let output = input.with_extension("out");
        let mut all: Vec<&std::ffi::OsStr> = vec![input.as_os_str()];
        all.extend(args.iter().map(std::ffi::OsStr::new));
        if !args.contains(&"--list") {
            all.extend(["-o".as_ref(), output.as_os_str()]);
        }
        let (peak, lines) = peak_rss(binary, &all);
        let _ = std::fs::remove_file(&output);
        peaks.push(peak);
        rows.push(lines);
    }
    eprintln!(
        "{job}: {:.0} MB peak on the small archive, {:.0} MB on the large one",
        peaks[0] as f64 / 1e6,
        peaks[1] as f64 / 1e6
    );
    if args.contains(&"--list") {
        assert!(
            rows[1] > 3 * rows[0] && rows[0] > 1000,
            "{job}: rows {rows:?}"
        );
    }
    assert!(
        peaks[1] <= peaks[0] + slack,
        "{job}: the peak grows with the file: {peaks:?}"
    );
    assert!(peaks[1] <= bound, "{job}: {} bytes, over {bound}", peaks[1]);
}

#[test]
fn memory_does_not_grow_with_the_archive() {
    let (binary, sizes) = binary_and_sizes();
    let dir = tempfile::tempdir().unwrap();
    let warcs = sizes.map(|size| {
        let path = dir.path().join(format!("{size}.warc"));
        warc(&path, size);
        path
    });
    let mut largest = 0;
    let mboxes = sizes.map(|size| {
        let path = dir.path().join(format!("{size}.mbox"));
        largest = mbox(&path, size);
        path
    });
    let warcs = [warcs[0].as_path(), warcs[1].as_path()];
    let mboxes = [mboxes[0].as_path(), mboxes[1].as_path()];
    let base = ["--retrieved-from", "http://example.org/", "-j", "1"];
    let list_json = ["--list", "--format", "json", "-j", "1"];
    same_peak("--list a WARC", &binary, warcs, &list_json, 100 * MB);
    same_peak("rewrite a WARC", &binary, warcs, &["-j", "1"], 100 * MB);
    let list = [&base[..], &["--list"]].concat();
    same_peak("--list an mbox", &binary, mboxes, &list, 100 * MB);
    let bound = 64 * MB + 5 * largest as u64;
    same_peak("rewrite an mbox", &binary, mboxes, &base, bound);
}

/// The peak RSS of the command line with one worker on `input`,
/// retrieved from `https://example.com/`, with `args`.
fn peak_of_one_worker(binary: &Path, input: &Path, args: &[&std::ffi::OsStr]) -> u64 {
    let given = [
        input.as_os_str(),
        "--retrieved-from".as_ref(),
        "https://example.com/".as_ref(),
    ];
    let one = ["-j", "1"].map(std::ffi::OsStr::new);
    peak_rss(binary, &[&given[..], &one, args].concat()).0
}

/// `unit` repeated to about `size` bytes, as one HTML document.
fn shape(path: &Path, unit: &str, size: usize) {
    repeat(path, unit.as_bytes(), size);
}

/// Rewriting one large document of a hard shape to `-o` peaks in
/// proportion to the document: closed elements html5ever never pops
/// through the sink are released all the same (nested tables, which the
/// tracker hands to html5ever's path), a value full of character
/// references keeps its runs, not a record each, a document is rewritten
/// a piece of tags at a time, and an edit takes a few bytes. Each bound is
/// a multiple of the size above the peak on an empty document (the output
/// of `<a href=x>` alone is three times its input); before, the peaks were
/// 9, 14, 12 and 9.5 times the size.
#[test]
fn rewriting_a_hard_shape_peaks_in_proportion_to_it() {
    let (binary, sizes) = binary_and_sizes();
    let size = sizes[0];
    let dir = tempfile::tempdir().unwrap();
    let empty = dir.path().join("empty.html");
    std::fs::write(&empty, "").unwrap();
    let output = dir.path().join("out.html");
    let run =
        |input: &Path| peak_of_one_worker(&binary, input, &["-o".as_ref(), output.as_os_str()]);
    let floor = run(&empty);
    let shapes: [(&str, &str, u64); 4] = [
        ("<table><tr><td> nested", "<table><tr><td>", 2),
        ("<a href=x> repeated", "<a href=x>", 6),
        ("one attribute of &amp;", "&amp;", 3),
        ("<a href=\"x\">y</a> lines", "<a href=\"x\">y</a>\n", 4),
    ];
    for (name, unit, times) in shapes {
        let input = dir.path().join("shape.html");
        if unit == "&amp;" {
            let value = unit.repeat(size / unit.len());
            std::fs::write(&input, format!("<a href=\"{value}\">")).unwrap();
        } else {
            shape(&input, unit, size);
        }
        let peak = run(&input);
        let bytes = std::fs::metadata(&input).unwrap().len();
        assert!(std::fs::metadata(&output).unwrap().len() >= bytes);
        assert_in_proportion(name, (peak, floor), bytes, times);
    }
}

/// Listing a page of many `meta` elements as WAT peaks in proportion to
/// the page: the head's metas are held as their JSON text, as the links
/// are, not as a map each (about a kilobyte a meta, 50 times the page,
/// before).
#[test]
fn a_wat_record_of_many_metas_peaks_in_proportion_to_the_page() {
    let (binary, sizes) = binary_and_sizes();
    let dir = tempfile::tempdir().unwrap();
    let page = dir.path().join("metas.html");
    let empty = dir.path().join("empty.html");
    std::fs::write(&empty, "<meta name=a content=b>").unwrap();
    shape(&page, "<meta name=a content=b>", sizes[0] / 10);
    let wat = ["--list", "--format", "wat"].map(std::ffi::OsStr::new);
    let run = |input: &Path| peak_of_one_worker(&binary, input, &wat);
    let floor = run(&empty);
    let peak = run(&page);
    let bytes = std::fs::metadata(&page).unwrap().len();
    assert_in_proportion("a page of metas", (peak, floor), bytes, 20);
}

/// Asserts that a `peak` on an input of `bytes` is at most `times` its
/// size above the `floor` (the peak on a small input), printing the three.
fn assert_in_proportion(name: &str, (peak, floor): (u64, u64), bytes: u64, times: u64) {
    eprintln!(
        "{name}: {:.1} MB, {:.0} MB peak ({:.0} MB on a small input)",
        bytes as f64 / 1e6,
        peak as f64 / 1e6,
        floor as f64 / 1e6
    );
    assert!(
        peak <= floor + times * bytes,
        "{name}: {peak} bytes, over {times} times {bytes} above {floor}"
    );
}

/// Rewriting a feed whose one element holds escaped HTML of about the
/// size of a hard shape peaks in proportion to it: the HTML reader's edits
/// are placed through the content's map, a few bytes for every stretch of
/// references, not through a diff of the old and new HTML nor a record
/// for each reference (13 times the feed before, and 40 MB of it did not
/// fit in 1 GiB).
#[test]
fn rewriting_a_feed_of_escaped_html_peaks_in_proportion_to_it() {
    let (binary, sizes) = binary_and_sizes();
    let dir = tempfile::tempdir().unwrap();
    let empty = dir.path().join("empty.html");
    std::fs::write(&empty, "").unwrap();
    let feed = dir.path().join("escaped.xml");
    let unit = "&lt;a href=&quot;x&quot;&gt;y&lt;/a&gt;\n";
    let content = unit.repeat(sizes[0] / unit.len());
    std::fs::write(
        &feed,
        format!(
            "<?xml version=\"1.0\"?>\n<feed xmlns=\"http://www.w3.org/2005/Atom\"><entry>\
             <content type=\"html\">{content}</content></entry></feed>\n"
        ),
    )
    .unwrap();
    let output = dir.path().join("out.xml");
    let run =
        |input: &Path| peak_of_one_worker(&binary, input, &["-o".as_ref(), output.as_os_str()]);
    let floor = run(&empty);
    let peak = run(&feed);
    let bytes = std::fs::metadata(&feed).unwrap().len();
    let written = std::fs::read_to_string(&output).unwrap();
    assert!(written.contains("&lt;a href=&quot;https://example.com/x&quot;&gt;y&lt;/a&gt;\n"));
    assert!(written.len() as u64 > bytes);
    assert_in_proportion("escaped html in a feed", (peak, floor), bytes, 5);
}
