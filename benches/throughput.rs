//! Throughput of relink, in MB/s, beside its yardsticks: html5ever's
//! tokenizer alone, html5ever parsing into RcDom, and a streaming rewriter
//! on `lol_html` and `url` (`peers/lol_rewrite.rs`). Run with
//! `cargo bench --bench throughput`. Corpora: the three real pages of
//! `fixtures/corpus/pages/`, the Python tutorial pages of the corpus WARC
//! (crawled by wget), the installed Python documentation when there is
//! one (`python3-doc`), a generated page of about 60 MB, and the hostile
//! shapes of `shapes.rs` (`RELINK_BENCH_SHAPE_MB`, 5 MB each by default).
//! Then the command line, one worker, over a directory of those pages
//! (beside the peer doing the same work as a process of its own), and listing the links
//! of the WARC. `RELINK_BENCH_ONLY=python,real` measures only the corpora
//! whose names contain one of those words (case-insensitive), and skips
//! the command line unless one of them is `command`. The ratio to the
//! peer is also taken in rounds of both in turn (the median of nine), as
//! the figures of one row, taken seconds apart, move with the machine.

#[path = "peers/lol_rewrite.rs"]
mod lol_rewrite;
#[path = "shapes/mod.rs"]
mod shapes;

use std::hint::black_box;
use std::io::Read;
use std::path::PathBuf;
use std::process::Command;
use std::time::{Duration, Instant};

use html5ever::tendril::TendrilSink;
use html5ever::tokenizer::{BufferQueue, Token, TokenSink, TokenSinkResult, Tokenizer};
use html5ever::tree_builder::{TreeBuilder, TreeBuilderOpts};
use relink::html::tokenizer::{Options as TokenizerOptions, SpanLog, tokenize};
use relink::{Base, BaseSource, BaseUrl, Details, Options, Rules, rewrite_html};

/// How long each measurement repeats its work.
const MEASURE_FOR: Duration = Duration::from_secs(2);

/// A corpus: a name and its documents.
struct Corpus {
    name: &'static str,
    pages: Vec<String>,
    /// Whether html5ever's own tree builder into RcDom is measured too: it
    /// takes quadratic time on deep nesting, so not on the shapes.
    rcdom: bool,
}

fn manifest() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn corpus_pages() -> Vec<String> {
    let dir = manifest().join("fixtures/corpus/pages");
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

/// The HTML payloads of the corpus WARC's responses (wget wrote them
/// uncompressed, without chunking).
fn python_docs() -> Vec<String> {
    let path = manifest().join("fixtures/corpus/warc/python-tutorial.warc.gz");
    let mut bytes = Vec::new();
    flate2::read::MultiGzDecoder::new(std::fs::File::open(path).unwrap())
        .read_to_end(&mut bytes)
        .unwrap();
    let mut pages = Vec::new();
    let mut rest = &bytes[..];
    while let Some(end) = find(rest, b"\r\n\r\n") {
        let head = String::from_utf8_lossy(&rest[..end]).to_ascii_lowercase();
        let length: usize = head
            .lines()
            .find_map(|l| l.strip_prefix("content-length:"))
            .and_then(|n| n.trim().parse().ok())
            .unwrap_or(0);
        let block = &rest[end + 4..(end + 4 + length).min(rest.len())];
        if head.contains("warc-type: response")
            && let Some(body) = find(block, b"\r\n\r\n")
        {
            let http = String::from_utf8_lossy(&block[..body]).to_ascii_lowercase();
            if http.contains("content-type: text/html") {
                pages.push(String::from_utf8_lossy(&block[body + 4..]).into_owned());
            }
        }
        rest = &rest[(end + 4 + length).min(rest.len())..];
    }
    pages
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

/// The installed Python documentation's pages, if any.
fn installed_python_docs() -> Vec<String> {
    let roots = [
        "/usr/share/doc/python3.11/html",
        "/usr/share/doc/python3-doc/html",
        "/usr/share/doc/python3/html",
    ];
    let Some(root) = roots.iter().map(PathBuf::from).find(|p| p.is_dir()) else {
        return Vec::new();
    };
    let mut stack = vec![root];
    let mut paths = Vec::new();
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "html") {
                paths.push(path);
            }
        }
    }
    paths.sort();
    paths
        .iter()
        .filter_map(|p| std::fs::read_to_string(p).ok())
        .collect()
}

/// The real pages again and again, to about 60 MB.
fn generated(pages: &[String]) -> Vec<String> {
    let mut page = String::with_capacity(61 << 20);
    while page.len() < 60 << 20 {
        for p in pages {
            page.push_str(p);
        }
    }
    vec![page]
}

/// Runs `work` over every page for [`MEASURE_FOR`]; MB/s.
fn measure(pages: &[String], work: &dyn Fn(&str)) -> f64 {
    measure_for(pages, work, MEASURE_FOR)
}

/// How many rounds [`in_turn`] takes, and how long each side of one runs.
const ROUNDS: usize = 9;
const ROUND: Duration = Duration::from_millis(400);

/// Times `a` and `b` in turn, [`ROUNDS`] rounds of [`ROUND`] each: the
/// median of the rounds' ratios (`a`'s throughput over `b`'s), and the
/// lowest and highest. On a machine whose speed drifts, as shared ones
/// do, the ratio of runs taken side by side holds where figures taken a
/// few seconds apart do not.
fn in_turn(pages: &[String], a: &dyn Fn(&str), b: &dyn Fn(&str)) -> (f64, f64, f64) {
    let mut ratios: Vec<f64> = (0..ROUNDS)
        .map(|_| measure_for(pages, a, ROUND) / measure_for(pages, b, ROUND))
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
        let text = std::fs::read_to_string(&path).unwrap();
        let url = url::Url::parse(&format!("https://example.com/{name}")).unwrap();
        std::fs::write(
            PathBuf::from(output).join(&name),
            lol_rewrite::rewrite(&text, &url),
        )
        .unwrap();
    }
}

fn main() {
    if let Ok(dirs) = std::env::var(PEER_PROCESS) {
        peer_process(&dirs);
        return;
    }
    let base = Base::new(
        BaseUrl::parse("https://example.com/docs/page.html", Rules::Rfc1808).unwrap(),
        BaseSource::RetrievedFrom,
    );
    let options = Options::default()
        .outer(Some(&base))
        .details(Details::Counts);
    let rewrite = |text: &str| {
        black_box(rewrite_html(black_box(text.as_bytes()), &options).unwrap());
    };
    let page_url = url::Url::parse("https://example.com/docs/page.html").unwrap();
    let peer = |text: &str| {
        black_box(lol_rewrite::rewrite(black_box(text), &page_url));
    };
    let pages = corpus_pages();
    let mut corpora = vec![
        Corpus {
            name: "python docs (WARC)",
            pages: python_docs(),
            rcdom: true,
        },
        Corpus {
            name: "real pages",
            pages: pages.clone(),
            rcdom: true,
        },
        Corpus {
            name: "generated 60 MB page",
            pages: generated(&pages),
            rcdom: true,
        },
    ];
    let installed = installed_python_docs();
    if !installed.is_empty() {
        corpora.insert(
            0,
            Corpus {
                name: "installed Python documentation",
                pages: installed,
                rcdom: true,
            },
        );
    }
    let shape_mb = std::env::var("RELINK_BENCH_SHAPE_MB")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(5);
    for (name, page) in shapes::all(shape_mb << 20, &pages) {
        corpora.push(Corpus {
            name,
            pages: vec![page],
            rcdom: false,
        });
    }
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
    for corpus in corpora.iter().filter(|c| wanted(c.name)) {
        let bytes: usize = corpus.pages.iter().map(String::len).sum();
        println!(
            "\n{} ({} documents, {:.1} MB)",
            corpus.name,
            corpus.pages.len(),
            bytes as f64 / 1e6
        );
        let mut figures = Vec::new();
        for (name, work) in &rows {
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
        let (median, low, high) = in_turn(&corpus.pages, &rewrite, &peer);
        println!(
            "  whole rewrite / lol_html peer, {ROUNDS} rounds in turn: {median:.2}x (rounds {low:.2} to {high:.2})"
        );
    }
    if wanted("command line") {
        command_line(&pages);
    }
}

/// The command line with one worker: a directory of pages to `-o`, and the
/// links of the WARC as JSON Lines.
fn command_line(pages: &[String]) {
    let relink = env!("CARGO_BIN_EXE_relink");
    let dir = tempfile::tempdir().unwrap();
    let site = dir.path().join("site");
    std::fs::create_dir(&site).unwrap();
    let mut bytes = 0;
    let docs = python_docs();
    for (i, page) in docs.iter().chain(pages).cycle().take(300).enumerate() {
        std::fs::write(site.join(format!("page{i}.html")), page).unwrap();
        bytes += page.len();
    }
    println!("\ncommand line, -j 1");
    let run = |args: &[&str]| -> Duration {
        let start = Instant::now();
        let status = Command::new(relink)
            .args(args)
            .stdout(std::process::Stdio::null())
            .status()
            .unwrap();
        assert!(status.success());
        start.elapsed()
    };
    let site_arg = site.to_str().unwrap();
    // Each side writes into a directory of its own each round, relink then
    // the peer (this bench's binary, run again, reading and writing the
    // same files), in turn: the median of the rounds' ratios.
    let mut rounds = Vec::new();
    for round in 0..ROUNDS {
        let out = dir.path().join(format!("out{round}"));
        let elapsed = run(&[
            site_arg,
            "--retrieved-from",
            "https://example.com/",
            "-o",
            out.to_str().unwrap(),
            "-j",
            "1",
            "-q",
        ]);
        let peer_out = dir.path().join(format!("peer{round}"));
        std::fs::create_dir(&peer_out).unwrap();
        let start = Instant::now();
        let status = Command::new(std::env::current_exe().unwrap())
            .env(
                PEER_PROCESS,
                format!("{}\t{}", site.display(), peer_out.display()),
            )
            .status()
            .unwrap();
        assert!(status.success());
        rounds.push((elapsed, start.elapsed()));
    }
    rounds.sort_by(|a, b| {
        let ratio =
            |(relink, peer): &(Duration, Duration)| peer.as_secs_f64() / relink.as_secs_f64();
        ratio(a).total_cmp(&ratio(b))
    });
    let (elapsed, peer) = rounds[ROUNDS / 2];
    println!(
        "  {:<42} {:>8.1} MB/s ({} files, {:.1} MB)",
        "rewrite a directory to -o",
        bytes as f64 / 1e6 / elapsed.as_secs_f64(),
        300,
        bytes as f64 / 1e6
    );
    println!(
        "  {:<42} {:>8.1} MB/s",
        "lol_html peer, same files, as a process",
        bytes as f64 / 1e6 / peer.as_secs_f64(),
    );
    println!(
        "  command line / lol_html peer process, median of {ROUNDS} rounds in turn: {:.2}x",
        peer.as_secs_f64() / elapsed.as_secs_f64()
    );
    let warc = manifest().join("fixtures/corpus/warc/python-tutorial.warc.gz");
    let elapsed = run(&[
        warc.to_str().unwrap(),
        "--list",
        "--format",
        "json",
        "-j",
        "1",
        "-q",
    ]);
    println!(
        "  {:<42} {:>8.0} ms",
        "--list --format json of the corpus WARC",
        elapsed.as_secs_f64() * 1e3
    );
}
