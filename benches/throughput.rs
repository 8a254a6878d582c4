//! Throughput of the HTML rewrite over the real pages in
//! `fixtures/corpus/pages/`, in MB/s. Run with `cargo bench`.

use std::hint::black_box;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use relink::base::{Base, BaseSource};
use relink::document::{Options, rewrite_html};
use relink::{BaseUrl, Rules};

/// How long each page is rewritten over and over.
const MEASURE_FOR: Duration = Duration::from_secs(2);

fn main() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fixtures/corpus/pages");
    let mut pages: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("the pages corpus")
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "html"))
        .collect();
    pages.sort();
    let base = Base::new(
        BaseUrl::parse("https://example.com/docs/page.html", Rules::Rfc1808).unwrap(),
        BaseSource::RetrievedFrom,
    );
    let options = Options {
        outer: Some(&base),
        ..Options::default()
    };
    let (mut all_bytes, mut all_time) = (0u64, Duration::ZERO);
    println!(
        "{:<28} {:>10} {:>8} {:>8} {:>10}",
        "page", "bytes", "links", "runs", "MB/s"
    );
    for page in pages {
        let input = std::fs::read(&page).unwrap();
        let first = rewrite_html(&input, &options).unwrap();
        let links = first.links.len();
        let (mut runs, start) = (0u64, Instant::now());
        while start.elapsed() < MEASURE_FOR {
            black_box(rewrite_html(black_box(&input), &options).unwrap());
            runs += 1;
        }
        let elapsed = start.elapsed();
        let bytes = input.len() as u64 * runs;
        all_bytes += bytes;
        all_time += elapsed;
        let name = page.file_name().unwrap().to_string_lossy();
        println!(
            "{name:<28} {:>10} {links:>8} {runs:>8} {:>10.1}",
            input.len(),
            mb_per_s(bytes, elapsed)
        );
    }
    println!(
        "{:<28} {:>10} {:>8} {:>8} {:>10.1}",
        "all",
        "",
        "",
        "",
        mb_per_s(all_bytes, all_time)
    );
    baseline(&dir);
    tokenizers(&dir);
}

/// The floor under relink's figure: html5ever alone, parsing the same pages
/// into RcDom.
fn baseline(dir: &std::path::Path) {
    use html5ever::tendril::TendrilSink;
    let (mut bytes, start) = (0u64, Instant::now());
    while start.elapsed() < MEASURE_FOR {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|e| e == "html") {
                let text = std::fs::read_to_string(&path).unwrap();
                let dom = html5ever::parse_document(
                    markup5ever_rcdom::RcDom::default(),
                    Default::default(),
                )
                .one(text.as_str());
                black_box(dom);
                bytes += text.len() as u64;
            }
        }
    }
    println!(
        "{:<28} {:>10} {:>8} {:>8} {:>10.1}",
        "(html5ever alone)",
        "",
        "",
        "",
        mb_per_s(bytes, start.elapsed())
    );
}

/// A sink that drops every token.
struct Drop;

impl html5ever::tokenizer::TokenSink for Drop {
    type Handle = ();
    fn process_token(
        &self,
        token: html5ever::tokenizer::Token,
        _line: u64,
    ) -> html5ever::tokenizer::TokenSinkResult<()> {
        black_box(token);
        html5ever::tokenizer::TokenSinkResult::Continue
    }
}

/// The tokenizers alone, and relink's under html5ever's tree builder.
fn tokenizers(dir: &std::path::Path) {
    use html5ever::tokenizer::{BufferQueue, Tokenizer, TokenizerOpts};
    use html5ever::tree_builder::{TreeBuilder, TreeBuilderOpts};
    use relink::html::tokenizer::{Options, SpanLog, tokenize};

    let pages: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "html"))
        .map(|p| std::fs::read_to_string(p).unwrap())
        .collect();
    let measure = |name: &str, run: &dyn Fn(&str)| {
        let (mut bytes, start) = (0u64, Instant::now());
        while start.elapsed() < MEASURE_FOR {
            for text in &pages {
                run(text);
                bytes += text.len() as u64;
            }
        }
        println!("{name:<57} {:>10.1}", mb_per_s(bytes, start.elapsed()));
    };
    measure("(html5ever tokenizer alone)", &|text| {
        let tokenizer = Tokenizer::new(Drop, TokenizerOpts::default());
        let queue = BufferQueue::default();
        queue.push_back(text.into());
        while !matches!(tokenizer.feed(&queue), html5ever::TokenizerResult::Done) {}
        tokenizer.end();
    });
    measure("relink tokenizer alone", &|text| {
        let log = SpanLog::default();
        black_box(tokenize(text, Drop, &log, Options::default()));
        black_box(log);
    });
    measure(
        "relink tokenizer + html5ever TreeBuilder (RcDom)",
        &|text| {
            let log = SpanLog::default();
            let opts = TreeBuilderOpts {
                scripting_enabled: false,
                ..TreeBuilderOpts::default()
            };
            let builder = TreeBuilder::new(markup5ever_rcdom::RcDom::default(), opts);
            black_box(tokenize(text, builder, &log, Options::default()).sink);
            black_box(log);
        },
    );
}

fn mb_per_s(bytes: u64, elapsed: Duration) -> f64 {
    bytes as f64 / 1e6 / elapsed.as_secs_f64()
}
