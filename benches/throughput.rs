//! Throughput of relink, in MB/s, beside its yardsticks: html5ever's
//! tokenizer alone, html5ever parsing into RcDom, and a streaming rewriter
//! on `lol_html` and `url` (`peers/lol_rewrite.rs`). Run with
//! `cargo bench --bench throughput`. Corpora (`corpora/mod.rs`): the
//! installed Python documentation when there is one (`python3-doc`), the
//! Python tutorial pages of the corpus WARC (crawled by wget), the three
//! pages of `fixtures/corpus/pages/`, the 264 real pages of
//! `fixtures/pages/real/` and the 17 of them whose CSS is a fifth or more
//! of their bytes, two saved pages of a web application (1.5 MB of inline
//! script), a generated page of about 60 MB, and the hostile shapes of
//! `shapes.rs` (`RELINK_BENCH_SHAPE_MB`, 5 MB each by default).
//!
//! For each corpus: the in-process rows, the ratio to the peer taken in
//! rounds of both in turn (the median of nine), as the figures of one
//! row, taken seconds apart, move with the machine, and why the tracker
//! hands documents to html5ever's tree builder (reason, documents, share
//! of bytes). Both sides also run as whole processes over a directory of
//! the corpus's files (a generated page is one file; a corpus of fewer
//! than 40 MB is written again under other names until it has them, as
//! one run over a page is mostly the program starting), one worker:
//! `relink DIR -o OUT -j 1 --retrieved-from URL` against this bench's
//! binary run again as the peer; the median
//! CPU time (user + system) of nine rounds in turn, and the instructions
//! of one run of each under `valgrind --tool=callgrind` (skipped with a
//! message where valgrind is missing, or when `RELINK_BENCH_INSTRUCTIONS=0`),
//! the figure no load moves. The real pages are checked first: each
//! rewrite must parse to the input's tree but for its URLs (the oracle of
//! `tests/relink/oracle.rs`).
//!
//! `RELINK_BENCH_ONLY=python,real` measures only the corpora whose names
//! contain one of those words (case-insensitive), and skips listing the
//! WARC's links unless one of them is `command`. `RELINK_BENCH_PAGES=1`
//! also times each document of a corpus against the peer and lists the
//! ten furthest behind it.
//!
//! Two tables of whole processes side by side (`sides/mod.rs`):
//! `RELINK_BENCH_ONLY=crawl`, a crawl-like `.warc.gz` of the real pages
//! listed (JSON Lines, WAT) and rewritten beside `gzip -cd` and the Python
//! peers (FastWARC or warcio, with selectolax), then the Spark job
//! (`python/bench_spark.py`), the Python side from the bench's virtualenv
//! `target/bench-venv` (or `RELINK_BENCH_PYTHON`); `RELINK_BENCH_ONLY=local`,
//! `--local` on the installed Python documentation beside the plain
//! rewrite.

#[path = "corpora/mod.rs"]
mod corpora;
#[path = "peers/lol_rewrite.rs"]
mod lol_rewrite;
#[path = "../tests/relink/oracle.rs"]
#[allow(dead_code)]
mod oracle;
#[path = "shapes/mod.rs"]
mod shapes;
#[path = "sides/mod.rs"]
mod sides;

use std::collections::BTreeMap;
use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use html5ever::tendril::TendrilSink;
use html5ever::tokenizer::{BufferQueue, Token, TokenSink, TokenSinkResult, Tokenizer};
use html5ever::tree_builder::{TreeBuilder, TreeBuilderOpts};
use relink::html::tokenizer::{Options as TokenizerOptions, SpanLog, tokenize};
use relink::{BaseUrl, Details, Input, Kind, Output, Rewriter, Rules};

use corpora::File;

/// How long each measurement repeats its work.
const MEASURE_FOR: Duration = Duration::from_secs(2);

/// The URL the files of a directory are retrieved from, each at its name.
const RETRIEVED_FROM: &str = "https://example.com/";

/// A corpus: a name and its documents.
struct Corpus {
    name: &'static str,
    /// Each document as UTF-8 (lossy where it is not), for the in-process
    /// rows.
    pages: Vec<String>,
    /// Each document as a file, as it is kept, for the whole processes;
    /// empty when they are not run.
    files: Vec<File>,
    /// Whether html5ever's own tree builder into RcDom is measured too: it
    /// takes quadratic time on deep nesting, so not on the shapes.
    rcdom: bool,
}

impl Corpus {
    /// A corpus of files: every row, and the whole processes.
    fn of_files(name: &'static str, files: Vec<File>) -> Self {
        let pages = files
            .iter()
            .map(|(_, bytes)| String::from_utf8_lossy(bytes).into_owned())
            .collect();
        Corpus {
            name,
            pages,
            files,
            rcdom: true,
        }
    }

    /// A generated corpus of one page: every row but html5ever's tree
    /// builder where `rcdom` is false, and the whole processes.
    fn of_page(name: &'static str, page: String, rcdom: bool) -> Self {
        Corpus {
            name,
            files: vec![("page.html".into(), page.clone().into_bytes())],
            pages: vec![page],
            rcdom,
        }
    }
}

/// The three corpus pages again and again, to about 60 MB.
fn generated(pages: &[String]) -> String {
    let mut page = String::with_capacity(61 << 20);
    while page.len() < 60 << 20 {
        for p in pages {
            page.push_str(p);
        }
    }
    page
}

/// Every corpus, in the order measured.
fn corpora() -> Vec<Corpus> {
    let mut corpora = Vec::new();
    let installed = corpora::installed_python_docs();
    if installed.is_empty() {
        println!("no installed Python documentation (python3-doc): its corpus is skipped");
    } else {
        corpora.push(Corpus::of_files(
            "installed Python documentation",
            installed,
        ));
    }
    corpora.push(Corpus::of_files(
        "python docs (WARC)",
        corpora::python_docs(),
    ));
    let three = Corpus::of_files("three pages (fixtures/corpus)", corpora::corpus_pages());
    let three_pages = three.pages.clone();
    corpora.push(three);
    let real = corpora::real_pages().into_iter().map(|(file, _)| file);
    corpora.push(Corpus::of_files("real pages", real.collect()));
    corpora.push(Corpus::of_files(
        "CSS-heavy real pages (a fifth or more of the bytes CSS)",
        corpora::css_heavy_pages(),
    ));
    for (name, meta) in [
        ("saved app page, 1.5 MB of script, meta charset", true),
        ("saved app page, 1.5 MB of script, no meta charset", false),
    ] {
        let page = corpora::saved_app_page(1_500_000, meta).into_bytes();
        corpora.push(Corpus::of_files(name, vec![("app.html".into(), page)]));
    }
    corpora.push(Corpus::of_page(
        "generated 60 MB page",
        generated(&three_pages),
        true,
    ));
    let shape_mb = std::env::var("RELINK_BENCH_SHAPE_MB")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(5);
    for (name, page) in shapes::all(shape_mb << 20, &three_pages) {
        corpora.push(Corpus::of_page(name, page, false));
    }
    corpora
}

/// Runs `work` over every page for [`MEASURE_FOR`]; MB/s.
fn measure(pages: &[String], work: &dyn Fn(&str)) -> f64 {
    measure_for(pages, work, MEASURE_FOR)
}

/// How many rounds [`in_turn`] takes, and how long each side of one runs.
const ROUNDS: usize = 9;
const ROUND: Duration = Duration::from_millis(400);

/// Times `a` and `b` in turn, [`ROUNDS`] rounds of `round` each: the
/// median of the rounds' ratios (`a`'s throughput over `b`'s), and the
/// lowest and highest. On a machine whose speed drifts, as shared ones
/// do, the ratio of runs taken side by side holds where figures taken a
/// few seconds apart do not.
fn in_turn(
    pages: &[String],
    a: &dyn Fn(&str),
    b: &dyn Fn(&str),
    round: Duration,
) -> (f64, f64, f64) {
    let mut ratios: Vec<f64> = (0..ROUNDS)
        .map(|_| measure_for(pages, a, round) / measure_for(pages, b, round))
        .collect();
    ratios.sort_by(f64::total_cmp);
    (ratios[ROUNDS / 2], ratios[0], ratios[ROUNDS - 1])
}

/// Runs `work` over every page for at least `time`; MB/s.
fn measure_for(pages: &[String], work: &dyn Fn(&str), time: Duration) -> f64 {
    let (mut bytes, start) = (0u64, Instant::now());
    loop {
        for page in pages {
            work(page);
            bytes += page.len() as u64;
        }
        if start.elapsed() >= time {
            break;
        }
    }
    bytes as f64 / 1e6 / start.elapsed().as_secs_f64()
}

/// One line of the table: a name and the work measured.
type Row<'a> = (&'static str, &'a dyn Fn(&str));

/// A sink that drops every token.
struct Drop;

impl TokenSink for Drop {
    type Handle = ();
    fn process_token(&self, token: Token, _line: u64) -> TokenSinkResult<()> {
        black_box(token);
        TokenSinkResult::Continue
    }
}

fn html5ever_tokenizer(text: &str) {
    let tokenizer = Tokenizer::new(Drop, Default::default());
    let queue = BufferQueue::default();
    queue.push_back(text.into());
    while !matches!(tokenizer.feed(&queue), html5ever::TokenizerResult::Done) {}
    tokenizer.end();
}

fn html5ever_rcdom(text: &str) {
    let dom = html5ever::parse_document(markup5ever_rcdom::RcDom::default(), Default::default())
        .one(text);
    black_box(dom);
}

fn relink_tokenizer(text: &str) {
    let log = SpanLog::default();
    black_box(tokenize(text, Drop, &log, TokenizerOptions::default()));
}

/// html5ever's tree builder over relink's arena, as relink parses a
/// document the tracker bails on.
fn relink_tree(text: &str) {
    black_box(relink::html::tree::parse_with(
        text,
        relink::html::tree::DocumentKind::Document,
        relink::html::tokenizer::Attributes::TreeBuilder,
    ));
}

/// relink's parse: the tracker, html5ever's tree builder where it bails.
fn relink_tracker(text: &str) {
    black_box(relink::html::tree::parse(
        text,
        relink::html::tree::DocumentKind::Document,
    ));
}

fn relink_tokenizer_rcdom(text: &str) {
    let log = SpanLog::default();
    let opts = TreeBuilderOpts {
        scripting_enabled: false,
        ..TreeBuilderOpts::default()
    };
    let builder = TreeBuilder::new(markup5ever_rcdom::RcDom::default(), opts);
    black_box(tokenize(text, builder, &log, TokenizerOptions::default()).sink);
}

/// Why the tracker hands documents to html5ever's tree builder: each
/// reason, the documents and their share of the corpus's bytes.
fn print_bails(pages: &[String]) {
    let total: usize = pages.iter().map(String::len).sum();
    let mut bails: BTreeMap<&'static str, (usize, usize)> = BTreeMap::new();
    for page in pages {
        let parsed = relink::html::tracker::parse(page, relink::html::tree::DocumentKind::Document);
        if let Err(relink::html::tracker::Bail(why)) = parsed {
            let entry = bails.entry(why).or_default();
            entry.0 += 1;
            entry.1 += page.len();
        }
    }
    if bails.is_empty() {
        println!("  the tracker bails on no document");
    }
    for (why, (documents, bytes)) in bails {
        println!(
            "  tracker bails: {why}: {documents} documents, {:.1}% of the bytes",
            100.0 * bytes as f64 / total.max(1) as f64
        );
    }
}

/// Every real page, rewritten as retrieved from its own host, must parse
/// to the input's tree but for its URLs, each the resolution of its
/// original value (the oracle of the tests). Panics naming the pages that
/// do not.
fn check_real_pages() {
    let (mut changed, mut urls, mut failures) = (0, 0, Vec::new());
    for ((name, page), host) in corpora::real_pages() {
        let host = if host == "-" { "example.com" } else { &host };
        let url = format!("https://{host}/saved/page.html");
        let rewriter = Rewriter::new().retrieved_from(&url).kind(Kind::Html);
        let rewritten = rewriter.rewrite(&page).unwrap();
        if !rewritten.changed() {
            continue;
        }
        changed += 1;
        // The output is in the page's encoding: both are decoded by the
        // page's prescan.
        let encoding = relink::encoding::sniff_html(&page, None).encoding;
        let (before, _, _) = encoding.decode(&page);
        let (after, _, _) = encoding.decode(rewritten.bytes());
        let (before, after) = (oracle::tree(&before), oracle::tree(&after));
        let base = BaseUrl::parse(&url, Rules::Rfc1808).unwrap();
        match oracle::compare(&before, &after, &base, oracle::Values::Exact) {
            Ok(checked) => urls += checked,
            Err(why) => failures.push(format!("{name}: {why}")),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    println!("  checked: {changed} pages changed, only in their {urls} URLs");
}

/// Set to `INPUT_DIR\tOUTPUT_DIR`, this bench's binary is the peer as a
/// whole process: it rewrites every file of the input directory into the
/// output one, as `relink DIR -o OUT` does, and exits.
const PEER_PROCESS: &str = "RELINK_BENCH_PEER_PROCESS";

/// The peer as a command-line program would run it (see [`PEER_PROCESS`]):
/// each page read, rewritten against its own URL, and written.
fn peer_process(dirs: &str) {
    let (input, output) = dirs.split_once('\t').expect("input and output directories");
    for entry in std::fs::read_dir(input).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_str().unwrap().to_owned();
        let bytes = std::fs::read(&path).unwrap();
        let text = lol_rewrite::text_of(&bytes);
        let url = url::Url::parse(&format!("{RETRIEVED_FROM}{name}")).unwrap();
        std::fs::write(
            PathBuf::from(output).join(&name),
            lol_rewrite::rewrite(&text, &url),
        )
        .unwrap();
    }
}

/// Set to `INPUT_DIR\tOUTPUT_DIR`, this bench's binary copies every file
/// of the input directory into the output one, read whole and written,
/// nothing rewritten: the kernel's share of either side's work.
const COPY_PROCESS: &str = "RELINK_BENCH_COPY_PROCESS";

/// The files copied (see [`COPY_PROCESS`]).
fn copy_process(dirs: &str) {
    let (input, output) = dirs.split_once('\t').expect("input and output directories");
    for entry in std::fs::read_dir(input).unwrap() {
        let path = entry.unwrap().path();
        let bytes = std::fs::read(&path).unwrap();
        std::fs::write(PathBuf::from(output).join(path.file_name().unwrap()), bytes).unwrap();
    }
}

/// The copy of the files as a whole process (see [`COPY_PROCESS`]).
fn copy_side(site: &Path, out: &Path) -> Command {
    std::fs::create_dir_all(out).unwrap();
    let mut command = Command::new(std::env::current_exe().unwrap());
    command.env(
        COPY_PROCESS,
        format!("{}\t{}", site.display(), out.display()),
    );
    command
}

/// One side as a whole process over the directory `site`, writing into
/// `out`: the command to run.
fn side(relink: bool, site: &Path, out: &Path) -> Command {
    if relink {
        let mut command = Command::new(env!("CARGO_BIN_EXE_relink"));
        command
            .arg(site)
            .args(["--retrieved-from", RETRIEVED_FROM, "-j", "1", "-q"]);
        command.arg("-o").arg(out);
        command
    } else {
        std::fs::create_dir_all(out).unwrap();
        let mut command = Command::new(std::env::current_exe().unwrap());
        command.env(
            PEER_PROCESS,
            format!("{}\t{}", site.display(), out.display()),
        );
        command
    }
}

/// The CPU time of the children waited for so far: user and system.
fn children_cpu() -> (Duration, Duration) {
    // SAFETY: getrusage writes into the zeroed struct it is given.
    let usage = unsafe {
        let mut usage: libc::rusage = std::mem::zeroed();
        libc::getrusage(libc::RUSAGE_CHILDREN, &mut usage);
        usage
    };
    let time = |t: libc::timeval| Duration::new(t.tv_sec as u64, t.tv_usec as u32 * 1000);
    (time(usage.ru_utime), time(usage.ru_stime))
}

/// Runs `command`, which must succeed and write a file for each of
/// `files` into `out`; its CPU time, user and system.
fn run_side(mut command: Command, out: &Path, files: usize) -> (Duration, Duration) {
    let before = children_cpu();
    let status = command.status().unwrap();
    let after = children_cpu();
    assert!(status.success(), "{command:?}");
    assert_eq!(
        std::fs::read_dir(out).unwrap().count(),
        files,
        "{command:?}"
    );
    std::fs::remove_dir_all(out).unwrap();
    (after.0 - before.0, after.1 - before.1)
}

/// The instructions `command` runs under `valgrind --tool=callgrind`
/// (its "Collected" line), if valgrind runs.
fn instructions(command: &Command) -> Option<u64> {
    let mut valgrind = Command::new("valgrind");
    valgrind.args(["--tool=callgrind", "--callgrind-out-file=/dev/null"]);
    valgrind.arg(command.get_program()).args(command.get_args());
    for (key, value) in command.get_envs() {
        if let Some(value) = value {
            valgrind.env(key, value);
        }
    }
    let output = valgrind.stdout(std::process::Stdio::null()).output().ok()?;
    let stderr = String::from_utf8_lossy(&output.stderr);
    let line = stderr.lines().find(|l| l.contains("Collected :"))?;
    line.rsplit(':').next()?.trim().parse().ok()
}

/// How many bytes of files the whole processes read at least: a corpus
/// with fewer is written again under other names until it has them. A
/// process over one page of 1.5 MB takes a few milliseconds, most of them
/// starting the program, and the CPU times the kernel reports move by a
/// millisecond or more: the rewrite would not be seen.
const PROCESS_BYTES: usize = 40 << 20;

/// How many times the whole processes read each file of a corpus of
/// `bytes` bytes (see [`PROCESS_BYTES`]).
fn copies_for(bytes: usize) -> usize {
    PROCESS_BYTES.div_ceil(bytes.max(1)).max(1)
}

/// Both sides as whole processes over the corpus's files, one worker:
/// the median CPU time of [`ROUNDS`] rounds in turn, and the instructions.
fn processes(corpus: &Corpus) {
    let dir = tempfile::tempdir().unwrap();
    let site = dir.path().join("site");
    std::fs::create_dir(&site).unwrap();
    let bytes: usize = corpus.files.iter().map(|(_, b)| b.len()).sum();
    let copies = copies_for(bytes);
    for (name, bytes) in &corpus.files {
        for copy in 0..copies {
            let name = if copies == 1 {
                name.clone()
            } else {
                format!("{copy}-{name}")
            };
            std::fs::write(site.join(name), bytes).unwrap();
        }
    }
    let files = corpus.files.len() * copies;
    if copies > 1 {
        println!(
            "  processes over each file {copies} times, under other names ({files} files, {:.1} MB): one run of a smaller corpus is mostly the program starting",
            (bytes * copies) as f64 / 1e6
        );
    }
    let (out, peer_out) = (dir.path().join("out"), dir.path().join("peer"));
    let copy_out = dir.path().join("copy");
    let sides = rounds_of_processes(&site, [&out, &peer_out, &copy_out], files);
    let mut rounds: Vec<(Duration, Duration)> = sides
        .iter()
        .map(|[r, p, _]| (r.0 + r.1, p.0 + p.1))
        .collect();
    let median = |mut times: Vec<Duration>| {
        times.sort();
        times[ROUNDS / 2]
    };
    let relink = median(rounds.iter().map(|r| r.0).collect());
    let peer = median(rounds.iter().map(|r| r.1).collect());
    rounds.sort_by(|a, b| {
        let ratio = |(r, p): &(Duration, Duration)| p.as_secs_f64() / r.as_secs_f64();
        ratio(a).total_cmp(&ratio(b))
    });
    let (low, mid, high) = (rounds[0], rounds[ROUNDS / 2], rounds[ROUNDS - 1]);
    let ratio = |(r, p): (Duration, Duration)| p.as_secs_f64() / r.as_secs_f64();
    println!(
        "  processes, -j 1, CPU median of {ROUNDS} rounds in turn: relink {:.3} s, peer {:.3} s; peer / relink per round {:.2}x (rounds {:.2} to {:.2})",
        relink.as_secs_f64(),
        peer.as_secs_f64(),
        ratio(mid),
        ratio(low),
        ratio(high)
    );
    // User time is the programs' own work; system time is mostly the
    // kernel's reading and creating of files, which both sides share.
    let part = |side: usize, user: bool| {
        median(
            sides
                .iter()
                .map(|s| if user { s[side].0 } else { s[side].1 })
                .collect(),
        )
        .as_secs_f64()
    };
    println!(
        "  of which user: relink {:.3} s, peer {:.3} s ({:.2}x); system: relink {:.3} s, peer {:.3} s ({:.2}x)",
        part(0, true),
        part(1, true),
        part(1, true) / part(0, true),
        part(0, false),
        part(1, false),
        part(1, false) / part(0, false)
    );
    // What a copy of the files costs, nothing rewritten: the floor under
    // both sides, and what each spends above it.
    let copy = part(2, true) + part(2, false);
    let above = |side: usize| part(side, true) + part(side, false) - copy;
    println!(
        "  a copy of the files, read and written: {copy:.3} s (system {:.3} s); above it: relink {:.3} s, peer {:.3} s ({:.2}x)",
        part(2, false),
        above(0),
        above(1),
        above(1) / above(0)
    );
    // Both sides read every file and write one: no rewriter takes less
    // CPU than the copy, so the peer's time over the copy's is the most
    // any of them could show here against the peer, rewriting for free.
    let peer = part(1, true) + part(1, false);
    println!(
        "  the most any rewriter of these files could show against the peer, at no cost of its own above the copy: {:.2}x",
        peer / copy
    );
    print_instructions(&site, &out, &peer_out);
}

/// [`ROUNDS`] rounds of relink, the peer and the copy as whole processes
/// over `site`, writing into `outs` (in that order), each of which must
/// write `files` files: the CPU time of each, user and system, a round.
fn rounds_of_processes(
    site: &Path,
    outs: [&Path; 3],
    files: usize,
) -> Vec<[(Duration, Duration); 3]> {
    let [out, peer_out, copy_out] = outs;
    // The three run in a different order each round (relink, the peer,
    // the copy; then the peer first; then the copy first), so that none
    // is always the one that runs just after the files of another were
    // written and removed.
    (0..ROUNDS)
        .map(|round| {
            let mut times = [(Duration::ZERO, Duration::ZERO); 3];
            for turn in 0..3 {
                let which = (turn + round) % 3;
                times[which] = match which {
                    0 => run_side(side(true, site, out), out, files),
                    1 => run_side(side(false, site, peer_out), peer_out, files),
                    _ => run_side(copy_side(site, copy_out), copy_out, files),
                };
            }
            times
        })
        .collect()
}

/// The instructions of each side, once (they do not move with the load).
fn print_instructions(site: &Path, out: &Path, peer_out: &Path) {
    if std::env::var("RELINK_BENCH_INSTRUCTIONS").is_ok_and(|v| v == "0") {
        println!("  instructions: not counted (RELINK_BENCH_INSTRUCTIONS=0)");
        return;
    }
    let relink = instructions(&side(true, site, out));
    let peer = instructions(&side(false, site, peer_out));
    match (relink, peer) {
        (Some(relink), Some(peer)) => println!(
            "  processes, -j 1, instructions (callgrind): relink {:.1} M, peer {:.1} M; peer / relink {:.2}x",
            relink as f64 / 1e6,
            peer as f64 / 1e6,
            peer as f64 / relink as f64
        ),
        _ => println!("  instructions: not counted (valgrind did not run)"),
    }
    // `--list` reads every page as the rewrite does and writes rows, no
    // files: its instructions beside the rewrite's.
    let mut list = Command::new(env!("CARGO_BIN_EXE_relink"));
    list.arg(site).args([
        "--retrieved-from",
        RETRIEVED_FROM,
        "-j",
        "1",
        "-q",
        "--list",
    ]);
    if let (Some(relink), Some(list)) = (relink, instructions(&list)) {
        println!(
            "  --list, -j 1, instructions (callgrind): {:.1} M; rewrite / --list {:.2}x",
            list as f64 / 1e6,
            relink as f64 / list as f64
        );
    }
}

/// The in-process rows of one corpus, the ratio to the peer in turn, and
/// the tracker's bails.
fn measure_corpus(corpus: &Corpus, rows: &[Row<'_>], rewrite: &dyn Fn(&str), peer: &dyn Fn(&str)) {
    let bytes: usize = corpus.pages.iter().map(String::len).sum();
    println!(
        "\n{} ({} documents, {:.1} MB)",
        corpus.name,
        corpus.pages.len(),
        bytes as f64 / 1e6
    );
    let mut figures = Vec::new();
    for (name, work) in rows {
        if !corpus.rcdom && name.contains("RcDom") {
            figures.push(f64::NAN);
            println!("  {name:<42} {:>8} (quadratic on deep nesting)", "-");
            continue;
        }
        let mb_s = measure(&corpus.pages, *work);
        figures.push(mb_s);
        println!("  {name:<42} {mb_s:>8.1} MB/s");
    }
    println!(
        "  whole rewrite / lol_html peer: {:.2}x; / html5ever into RcDom: {:.2}x; / html5ever tokenizer: {:.2}x",
        figures[6] / figures[7],
        figures[6] / figures[1],
        figures[6] / figures[0]
    );
    let (median, low, high) = in_turn(&corpus.pages, rewrite, peer, ROUND);
    println!(
        "  whole rewrite / lol_html peer, {ROUNDS} rounds in turn: {median:.2}x (rounds {low:.2} to {high:.2})"
    );
    if std::env::var_os(PAGES).is_some() {
        print_furthest_pages(corpus, rewrite, peer);
    }
    print_bails(&corpus.pages);
}

/// Set (to anything), the bench also times each document of a corpus of
/// several against the peer, in turn, and lists the ones furthest behind
/// it: where a corpus's ratio comes from.
const PAGES: &str = "RELINK_BENCH_PAGES";

/// How many documents [`print_furthest_pages`] lists.
const FURTHEST: usize = 10;

/// Each document of `corpus` timed against the peer in turn ([`ROUNDS`]
/// rounds of a tenth of [`ROUND`] a side, the median ratio), and the
/// [`FURTHEST`] with the lowest ratio listed, with their sizes and names.
fn print_furthest_pages(corpus: &Corpus, rewrite: &dyn Fn(&str), peer: &dyn Fn(&str)) {
    if corpus.pages.len() < 2 {
        return;
    }
    let mut ratios: Vec<(f64, usize)> = corpus
        .pages
        .iter()
        .enumerate()
        .map(|(i, page)| {
            let (median, ..) = in_turn(std::slice::from_ref(page), rewrite, peer, ROUND / 10);
            (median, i)
        })
        .collect();
    ratios.sort_by(|a, b| a.0.total_cmp(&b.0));
    println!("  the documents furthest behind the peer, each timed in turn (median of {ROUNDS}):");
    for &(ratio, i) in ratios.iter().take(FURTHEST) {
        let name = corpus.files.get(i).map_or("", |(name, _)| name.as_str());
        println!(
            "    {ratio:.2}x  {:>9} bytes  {name}",
            corpus.pages[i].len()
        );
    }
}

fn main() {
    if let Ok(dirs) = std::env::var(PEER_PROCESS) {
        peer_process(&dirs);
        return;
    }
    if let Ok(dirs) = std::env::var(COPY_PROCESS) {
        copy_process(&dirs);
        return;
    }
    // Through the front door, as the command line and the Python package
    // call it: the base parsed and the output written on each call.
    let rewriter = Rewriter::new()
        .retrieved_from("https://example.com/docs/page.html")
        .kind(Kind::Html)
        .details(Details::Counts);
    let rewrite = |text: &str| {
        let mut out = Vec::new();
        let input = Input::bytes(black_box(text.as_bytes()));
        let report = rewriter.run(input, Output::WhenChanged(&mut out), &mut |_| Ok(()));
        black_box((report.unwrap(), out));
    };
    let page_url = url::Url::parse("https://example.com/docs/page.html").unwrap();
    // Both sides start from the page's bytes: relink sniffs and checks
    // them, the peer checks that they are UTF-8 (`lol_rewrite::text_of`).
    let peer = |text: &str| {
        let text = lol_rewrite::text_of(black_box(text.as_bytes()));
        black_box(lol_rewrite::rewrite(&text, &page_url));
    };
    let rows: [Row<'_>; 8] = [
        ("html5ever tokenizer alone", &html5ever_tokenizer),
        ("html5ever into RcDom", &html5ever_rcdom),
        ("relink tokenizer alone", &relink_tokenizer),
        (
            "relink tokenizer + tree builder (RcDom)",
            &relink_tokenizer_rcdom,
        ),
        ("relink tokenizer + tree builder (arena)", &relink_tree),
        ("relink tokenizer + tracker", &relink_tracker),
        ("relink whole rewrite", &rewrite),
        ("lol_html + url rewriter (peer)", &peer),
    ];
    let only: Vec<String> = std::env::var("RELINK_BENCH_ONLY")
        .map(|v| v.split(',').map(str::to_ascii_lowercase).collect())
        .unwrap_or_default();
    let wanted = |name: &str| {
        only.is_empty()
            || only
                .iter()
                .any(|word| name.to_ascii_lowercase().contains(word.as_str()))
    };
    for corpus in corpora().iter().filter(|c| wanted(c.name)) {
        measure_corpus(corpus, &rows, &rewrite, &peer);
        if corpus.name == "real pages" {
            check_real_pages();
        }
        if !corpus.files.is_empty() {
            processes(corpus);
        }
    }
    if wanted("command line") {
        list_warc();
    }
    if wanted("crawl") {
        sides::crawl_warc();
    }
    if wanted("local mirror of the installed python documentation") {
        sides::local_mirror();
    }
}

/// The command line with one worker listing the links of the corpus WARC
/// as JSON Lines.
fn list_warc() {
    let warc = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/corpus/warc/python-tutorial.warc.gz");
    let mut counts = Vec::new();
    for format in ["json", "wat"] {
        let mut command = Command::new(env!("CARGO_BIN_EXE_relink"));
        command
            .arg(&warc)
            .args(["--list", "--format", format, "-j", "1", "-q"])
            .stdout(std::process::Stdio::null());
        let start = Instant::now();
        assert!(command.status().unwrap().success());
        println!(
            "\ncommand line: {:<42} {:>8.0} ms",
            format!("--list --format {format} of the corpus WARC"),
            start.elapsed().as_secs_f64() * 1e3
        );
        counts.push(instructions(&command));
    }
    // A WAT file is gzipped record by record, as Common Crawl's are.
    if let [Some(json), Some(wat)] = counts[..] {
        println!(
            "  instructions (callgrind): json {:.1} M, wat {:.1} M; wat / json {:.2}x",
            json as f64 / 1e6,
            wat as f64 / 1e6,
            wat as f64 / json as f64
        );
    }
}
