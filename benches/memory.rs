//! Peak memory of the command line (one worker, writing its output) on
//! one large document of each shape of `shapes/mod.rs`, as a multiple of
//! the document's size. Run with `cargo bench --bench memory`;
//! `RELINK_SHAPE_MB` sets the size (50 MB by default). Linux only: the
//! peak comes from `wait4`'s resource usage of each run.

#[path = "shapes/mod.rs"]
mod shapes;

use std::path::PathBuf;
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

/// Runs `command` to its end; its peak resident set in bytes.
#[cfg(target_os = "linux")]
#[allow(clippy::zombie_processes, reason = "the child is reaped by wait4")]
fn peak_rss(command: &mut Command) -> u64 {
    let child = command.spawn().expect("the relink binary");
    let pid = libc::pid_t::try_from(child.id()).unwrap();
    let mut status = 0;
    // SAFETY: an all-zero rusage is a valid value to be written over.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: `pid` is our own child, not yet waited for; `status` and
    // `usage` are valid for writes.
    let waited = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    assert_eq!(waited, pid, "wait4");
    assert!(
        libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0,
        "relink failed"
    );
    u64::try_from(usage.ru_maxrss).unwrap_or(0) * 1024
}

#[cfg(target_os = "linux")]
fn main() {
    let mb: usize = std::env::var("RELINK_SHAPE_MB")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(50);
    let relink = env!("CARGO_BIN_EXE_relink");
    let dir = tempfile::tempdir().unwrap();
    println!("peak RSS of relink -j 1 -o, as a multiple of the input ({mb} MB shapes)");
    for (name, page) in shapes::all(mb * 1_000_000, &corpus_pages()) {
        let input = dir.path().join("input.html");
        std::fs::write(&input, &page).unwrap();
        let start = Instant::now();
        let peak = peak_rss(
            Command::new(relink)
                .arg(&input)
                .args(["--retrieved-from", "https://example.com/", "-j", "1", "-q"])
                .arg("-o")
                .arg(dir.path().join("output.html"))
                .stdout(Stdio::null()),
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

#[cfg(not(target_os = "linux"))]
fn main() {
    println!("the memory bench reads peak RSS through wait4: Linux only");
}
