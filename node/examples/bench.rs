//! The Rust library's side of `node/bench.js`: the pages named after the
//! seconds to measure for, each against its own URL, made absolute with
//! `absolutize_html` (`absolutize` in Node) and listed through
//! `Rewriter::run` (`links` in Node), printing the MB/s of each as
//! `absolutize MBPS` and `links MBPS`.

use std::time::{Duration, Instant};

use relink::{Event, Input, Kind, Output, Rewriter};

/// The megabytes a second `work` gets through `pages`, after one pass to
/// warm up, measured for at least `time`.
fn measure(pages: &[(Vec<u8>, String)], time: Duration, work: &dyn Fn(&[u8], &str)) -> f64 {
    for (page, url) in pages {
        work(page, url);
    }
    let (start, mut bytes) = (Instant::now(), 0usize);
    while start.elapsed() < time {
        for (page, url) in pages {
            work(page, url);
            bytes += page.len();
        }
    }
    bytes as f64 / 1e6 / start.elapsed().as_secs_f64()
}

fn links(page: &[u8], url: &str) {
    let mut rows = Vec::new();
    Rewriter::new()
        .retrieved_from(url)
        .kind(Kind::Html)
        .run(Input::bytes(page), Output::Nowhere, &mut |event| {
            if let Event::Rows(found) = event {
                rows.extend(found.iter().cloned());
            }
            Ok(())
        })
        .expect("a page is read");
    std::hint::black_box(rows);
}

fn main() {
    let mut args = std::env::args().skip(1);
    let seconds: f64 = args
        .next()
        .and_then(|s| s.parse().ok())
        .expect("usage: bench SECONDS PAGE...");
    let pages: Vec<(Vec<u8>, String)> = args
        .map(|path| {
            let name = std::path::Path::new(&path)
                .file_name()
                .unwrap()
                .to_string_lossy()
                .into_owned();
            let page = std::fs::read(&path).expect("a page");
            (page, format!("https://example.test/pages/{name}"))
        })
        .collect();
    let time = Duration::from_secs_f64(seconds);
    let absolutize = measure(&pages, time, &|page, url| {
        std::hint::black_box(relink::absolutize_html(page, url).expect("a page is read"));
    });
    println!("absolutize {absolutize:.2}");
    println!("links {:.2}", measure(&pages, time, &links));
}
