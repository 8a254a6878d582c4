//! The Rust library's side of `node/bench.js`: `bench FUNCTION SECONDS
//! PAGE...` runs one function over the pages, each against its own URL,
//! for at least SECONDS after a pass to warm up, and prints the MB/s of
//! input it got through, by the clock and by the process's CPU time
//! (`WALL CPU`; CPU is 0 where Linux's `/proc/self/schedstat` is not).
//! The functions, each the library work of its Node function, through
//! `Rewriter::run` as Node's go: `absolutize` (a page into new bytes)
//! and `links` (its rows, owned). One function a run, so that bench.js
//! can alternate the two sides.

use std::time::{Duration, Instant};

use relink::{Details, Event, Input, Kind, Output, Rewriter};

/// The nanoseconds of CPU time the process has had, if Linux tells.
fn cpu_ns() -> Option<u64> {
    let stat = std::fs::read_to_string("/proc/self/schedstat").ok()?;
    stat.split_whitespace().next()?.parse().ok()
}

/// The MB/s (by the clock, by CPU time) `work` gets through `pages`,
/// after one pass to warm up, measured for at least `time`.
fn measure(pages: &[(Vec<u8>, String)], time: Duration, work: fn(&[u8], &str)) -> (f64, f64) {
    for (page, url) in pages {
        work(page, url);
    }
    let (start, cpu, mut bytes) = (Instant::now(), cpu_ns(), 0usize);
    while start.elapsed() < time {
        for (page, url) in pages {
            work(page, url);
            bytes += page.len();
        }
    }
    let mb = bytes as f64 / 1e6;
    let cpu = match (cpu, cpu_ns()) {
        (Some(before), Some(after)) if after > before => mb / ((after - before) as f64 / 1e9),
        _ => 0.0,
    };
    (mb / start.elapsed().as_secs_f64(), cpu)
}

/// The library work `absolutize` in Node does: the page rewritten into
/// new bytes, its warnings kept, no rows (`absolutize_html` keeps no
/// warnings).
fn absolutize(page: &[u8], url: &str) {
    let mut out = Vec::with_capacity(page.len());
    let report = Rewriter::new()
        .retrieved_from(url)
        .kind(Kind::Html)
        .details(Details::Counts)
        .run(
            Input::bytes(page),
            Output::WhenChanged(&mut out),
            &mut |_| Ok(()),
        )
        .expect("a page is read");
    std::hint::black_box((out, report.warnings));
}

/// The rows `links` in Node makes, as owned rows: every string copied.
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
    const USAGE: &str = "usage: bench absolutize|links SECONDS PAGE...";
    let mut args = std::env::args().skip(1);
    let work: fn(&[u8], &str) = match args.next().as_deref() {
        Some("absolutize") => absolutize,
        Some("links") => links,
        _ => panic!("{USAGE}"),
    };
    let seconds: f64 = args.next().and_then(|s| s.parse().ok()).expect(USAGE);
    let pages: Vec<(Vec<u8>, String)> = args
        .map(|path| {
            let name = std::path::Path::new(&path)
                .file_name()
                .expect("a page's path")
                .to_string_lossy()
                .into_owned();
            let page = std::fs::read(&path).expect("a page");
            (page, format!("https://example.test/pages/{name}"))
        })
        .collect();
    let (wall, cpu) = measure(&pages, Duration::from_secs_f64(seconds), work);
    println!("{wall:.2} {cpu:.2}");
}
