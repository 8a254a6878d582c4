//! relink's integration tests: one binary, a module per topic.

mod architecture;
mod architecture_md;
mod archives;
mod batch;
mod browser_urls;
mod cli;
mod corpus;
mod css;
mod digests;
mod docs;
mod encodings;
mod epub;
mod explain;
mod feeds;
mod html_corpus;
mod html_fixtures;
mod html_landmarks;
mod html_lazy;
mod html_pieces;
mod html_shapes;
mod html_tracker;
mod html_values;
mod link_records;
mod local;
mod lychee;
mod mail;
mod markdown;
mod memory;
mod no_base;
mod notebooks;
mod oracle;
mod outputs;
mod places;
mod publishing;
mod real_wat;
mod resolver;
mod robust;
mod rows;
mod rst;
mod rst_fuzz;
mod saved;
mod sitemaps;
mod tidy;
mod tokenizer;
mod wacz;
mod warc;
mod warc_framing;
mod warc_fuzz;
mod warc_http;
mod warc_splice;

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

/// The Python that has warcio (and wacz): `RELINK_TEST_PYTHON` (the test
/// command, `tests/run.sh`, sets it to its virtualenv's), else that
/// virtualenv's if it is there (`target/test-venv`), else `python3`.
pub fn python() -> PathBuf {
    if let Some(python) = std::env::var_os("RELINK_TEST_PYTHON") {
        return python.into();
    }
    let venv = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/test-venv/bin/python");
    if venv.exists() {
        venv
    } else {
        "python3".into()
    }
}

/// The CPU time the calling thread has had, where Linux tells it
/// (`/proc/thread-self/schedstat`), else the time since the first call:
/// what a test of time bounds, as other work on a loaded machine does not
/// stretch it as it stretches the clock.
pub fn thread_time() -> Duration {
    static START: std::sync::OnceLock<std::time::Instant> = std::sync::OnceLock::new();
    let start = *START.get_or_init(std::time::Instant::now);
    std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()
        .and_then(|text| text.split_whitespace().next()?.parse().ok())
        .map_or_else(|| start.elapsed(), Duration::from_nanos)
}

/// What `script` prints as JSON when run by the test Python with `input`
/// (JSON) on its standard input; `None` when that Python cannot import
/// `modules` (a failure when it is the test command's, `RELINK_TEST_PYTHON`).
pub fn python_json(modules: &str, script: &str, input: &[u8]) -> Option<serde_json::Value> {
    use std::io::Write as _;
    use std::process::{Command, Stdio};
    let python = python();
    let probe = Command::new(&python)
        .args(["-c", &format!("import {modules}")])
        .output()
        .ok()?;
    if !probe.status.success() {
        assert!(
            std::env::var_os("RELINK_TEST_PYTHON").is_none(),
            "the test python cannot import {modules}"
        );
        eprintln!("skipped: no {modules} for {}", python.display());
        return None;
    }
    let mut child = Command::new(&python)
        .args(["-c", script])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(input).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "{modules}: the script failed");
    Some(serde_json::from_slice(&out.stdout).unwrap())
}

/// A file under `fixtures/`.
pub fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures")
        .join(name)
}

/// The data rows of a `.tsv` table in `fixtures/`: comment lines (`#`) and
/// the header row are skipped; each row must have `columns` fields.
pub fn table(name: &str, columns: usize) -> Vec<Vec<String>> {
    let path = fixture(name);
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("reading {}: {e}", path.display()));
    let mut lines = text
        .lines()
        .enumerate()
        .filter(|(_, line)| !line.starts_with('#'));
    let (_, header) = lines.next().expect("a header row");
    assert_eq!(header.split('\t').count(), columns, "{name}: header");
    lines
        .map(|(n, line)| {
            let row: Vec<String> = line.split('\t').map(str::to_owned).collect();
            assert_eq!(row.len(), columns, "{name}:{}: {line:?}", n + 1);
            row
        })
        .collect()
}

/// Every file below `root`, with its path below it, sorted.
pub fn files_under(root: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else {
                let name = path
                    .strip_prefix(root)
                    .unwrap()
                    .to_string_lossy()
                    .into_owned();
                out.push((name, std::fs::read(&path).unwrap()));
            }
        }
    }
    out.sort();
    out
}

/// The installed Python documentation's root, where the benches look for
/// it, if it is there.
pub fn installed_python_docs() -> Option<PathBuf> {
    [
        "/usr/share/doc/python3.11/html",
        "/usr/share/doc/python3-doc/html",
        "/usr/share/doc/python3/html",
    ]
    .iter()
    .map(PathBuf::from)
    .find(|p| p.is_dir())
}

/// Sets a file's modification time far in the past, and returns it.
pub fn make_old(path: &Path) -> SystemTime {
    let old = SystemTime::UNIX_EPOCH + Duration::from_secs(1_000_000);
    std::fs::File::options()
        .write(true)
        .open(path)
        .unwrap()
        .set_modified(old)
        .unwrap();
    old
}
