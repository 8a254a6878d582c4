//! Whole processes timed side by side, in one run: the command line on a
//! crawl-like `.warc.gz` beside `gzip -cd` of the same file and the Python
//! readers a user would reach for (FastWARC or warcio, with selectolax),
//! and the Spark job; and `--local` on a mirror beside the plain rewrite
//! of the same files. Each job's CPU time (user and system) is the median
//! of rounds in turn, which the machine's load moves; its instructions
//! (`valgrind --tool=callgrind`, one run) are the steady figure.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use super::{ROUNDS, children_cpu, corpora, instructions};

/// A job timed beside others: a name, the command, and what it writes
/// (removed before each run, so that every run starts alike).
pub struct Job {
    name: &'static str,
    command: Command,
    writes: Option<PathBuf>,
}

impl Job {
    fn new(name: &'static str, mut command: Command) -> Self {
        command.stdout(Stdio::null());
        Job {
            name,
            command,
            writes: None,
        }
    }

    fn writing(mut self, path: &Path) -> Self {
        self.writes = Some(path.to_owned());
        self
    }

    fn clear(&self) {
        if let Some(path) = &self.writes {
            let _ = std::fs::remove_dir_all(path).or_else(|_| std::fs::remove_file(path));
        }
    }

    /// One run, which must succeed: its CPU time, user and system.
    fn cpu(&mut self) -> Duration {
        self.clear();
        let before = children_cpu();
        let status = self.command.status().unwrap();
        let after = children_cpu();
        assert!(status.success(), "{}: {status}", self.name);
        (after.0 + after.1) - (before.0 + before.1)
    }

    /// Its instructions under callgrind, when valgrind runs and
    /// `RELINK_BENCH_INSTRUCTIONS` is not `0`.
    fn instructions(&self) -> Option<u64> {
        if std::env::var("RELINK_BENCH_INSTRUCTIONS").is_ok_and(|v| v == "0") {
            return None;
        }
        self.clear();
        instructions(&self.command)
    }
}

/// The median CPU time of each job over `rounds` rounds, the jobs run in
/// turn, each round started by the next one (so that none always runs
/// just after another's files were written).
fn cpu_in_turn(jobs: &mut [Job], rounds: usize) -> Vec<Duration> {
    let mut times = vec![Vec::new(); jobs.len()];
    for round in 0..rounds {
        for turn in 0..jobs.len() {
            let which = (turn + round) % jobs.len();
            times[which].push(jobs[which].cpu());
        }
    }
    times
        .into_iter()
        .map(|mut t| {
            t.sort();
            t[t.len() / 2]
        })
        .collect()
}

/// The measured figures of each job: its median CPU time and its
/// instructions (`NAN` when not counted).
struct Figures {
    cpu: Vec<f64>,
    instructions: Vec<f64>,
}

fn measure(jobs: &mut [Job], rounds: usize) -> Figures {
    let cpu = cpu_in_turn(jobs, rounds)
        .iter()
        .map(Duration::as_secs_f64)
        .collect();
    let instructions = jobs
        .iter()
        .map(|job| job.instructions().map_or(f64::NAN, |n| n as f64))
        .collect();
    Figures { cpu, instructions }
}

/// The relink command line with one worker over `input`.
fn relink(input: &Path, args: &[&str]) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_relink"));
    command.arg(input).args(args).args(["-j", "1", "-q"]);
    command
}

/// The python the Python peers and the Spark job run on: `RELINK_BENCH_PYTHON`,
/// else the bench's own virtualenv, `target/bench-venv` (see
/// `python/bench_spark.py` for what it holds); none when it is missing.
fn bench_python() -> Option<PathBuf> {
    let python = std::env::var_os("RELINK_BENCH_PYTHON")
        .map(PathBuf::from)
        .unwrap_or_else(|| manifest().join("target/bench-venv/bin/python"));
    python.exists().then_some(python)
}

fn manifest() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Whether `python` imports every module of `modules`.
fn imports(python: &Path, modules: &str) -> bool {
    Command::new(python)
        .args(["-c", &format!("import {modules}")])
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// A Python peer over `warc`, when the bench's python has its modules.
fn peer(python: Option<&Path>, name: &'static str, script: &str, warc: &Path) -> Option<Job> {
    let (python, modules) = (
        python?,
        if script.contains("fastwarc") {
            "fastwarc, selectolax"
        } else {
            "warcio, selectolax"
        },
    );
    if !imports(python, modules) {
        println!("  {name}: skipped, {} lacks {modules}", python.display());
        return None;
    }
    let mut command = Command::new(python);
    command
        .arg(manifest().join("benches/peers").join(script))
        .arg(warc);
    Some(Job::new(name, command))
}

/// The command line with one worker over [`crawl_archive`] (listing its
/// links as JSON Lines, listing them as WAT records, rewriting it) beside
/// `gzip -cd` of the same file (the floor: inflating it and nothing else)
/// and the Python peers, in one run; then the Spark job over the same
/// file.
pub fn crawl_warc() {
    let dir = tempfile::tempdir().unwrap();
    let warc = dir.path().join("crawl.warc.gz");
    let (archive, payload) = crawl_archive();
    std::fs::write(&warc, &archive).unwrap();
    let out = dir.path().join("out.warc.gz");
    let mut gzip = Command::new("gzip");
    gzip.arg("-cd").arg(&warc);
    let python = bench_python();
    if python.is_none() {
        println!(
            "no bench virtualenv (target/bench-venv, or RELINK_BENCH_PYTHON): the Python peers and the Spark job are skipped"
        );
    }
    let mut jobs = vec![
        Job::new("gzip -cd (the floor)", gzip),
        Job::new(
            "relink --list --format json",
            relink(&warc, &["--list", "--format", "json"]),
        ),
        Job::new(
            "relink --list --format wat",
            relink(&warc, &["--list", "--format", "wat"]),
        ),
        Job::new(
            "relink -o OUT",
            relink(&warc, &["-o", out.to_str().unwrap()]),
        )
        .writing(&out),
    ];
    let peers = [
        ("FastWARC + selectolax", "warc_links_fastwarc.py"),
        ("warcio + selectolax", "warc_links_selectolax.py"),
    ];
    jobs.extend(
        peers
            .iter()
            .filter_map(|&(name, script)| peer(python.as_deref(), name, script, &warc)),
    );
    println!(
        "\ncrawl .warc.gz: {} records, one gzip member each, {:.1} MB, {:.1} MB of HTML payload; one worker, \
         CPU median of {ROUNDS} rounds in turn (noisy on a shared machine), instructions of one run (callgrind, steady)",
        corpora::real_pages().len() * 2,
        archive.len() as f64 / 1e6,
        payload as f64 / 1e6,
    );
    let figures = measure(&mut jobs, ROUNDS);
    print_crawl(&jobs, &figures, payload);
    if let Some(python) = python {
        spark(&python, &warc, payload);
    }
}

/// The crawl's table, and each goal beside its figure.
fn print_crawl(jobs: &[Job], figures: &Figures, payload: usize) {
    let (cpu, ins) = (&figures.cpu, &figures.instructions);
    println!(
        "  {:<30} {:>9} {:>12} {:>10} {:>10} {:>16}",
        "job", "CPU ms", "instr. M", "CPU/gzip", "instr/gzip", "payload MB/s/core"
    );
    for (i, job) in jobs.iter().enumerate() {
        println!(
            "  {:<30} {:>9.0} {:>12.1} {:>9.2}x {:>9.2}x {:>16.1}",
            job.name,
            cpu[i] * 1e3,
            ins[i] / 1e6,
            cpu[i] / cpu[0],
            ins[i] / ins[0],
            payload as f64 / 1e6 / cpu[i]
        );
    }
    let at = |name: &str| jobs.iter().position(|j| j.name == name);
    let (list, wat, rewrite) = (1, 2, 3);
    println!(
        "  goals: --list <= 1.25x gzip -cd: CPU {:.2}x, instructions {:.2}x; WAT <= 1.5x --list: CPU {:.2}x, instructions {:.2}x; \
         -o >= 86 MB/s of payload a core (2x 43): {:.1} MB/s",
        cpu[list] / cpu[0],
        ins[list] / ins[0],
        cpu[wat] / cpu[list],
        ins[wat] / ins[list],
        payload as f64 / 1e6 / cpu[rewrite]
    );
    for name in ["FastWARC + selectolax", "warcio + selectolax"] {
        if let Some(peer) = at(name) {
            println!(
                "  goal: --list >= 6x faster than FastWARC + selectolax; {name} / --list: CPU {:.2}x, instructions {:.2}x",
                cpu[peer] / cpu[list],
                ins[peer] / ins[list]
            );
        }
    }
}

/// The Spark job (`examples/spark/links.py`) over the crawl, local mode,
/// one executor core, through `python/bench_spark.py`, which prints its
/// own rows; skipped when the bench's python lacks pyspark or relink.
fn spark(python: &Path, warc: &Path, payload: usize) {
    if !imports(python, "pyspark, relink, fsspec") {
        println!(
            "  Spark job: skipped, {} lacks pyspark, relink or fsspec (see python/bench_spark.py)",
            python.display()
        );
        return;
    }
    let status = Command::new(python)
        .arg(manifest().join("python/bench_spark.py"))
        .arg(warc)
        .arg(payload.to_string())
        .status();
    if !status.is_ok_and(|s| s.success()) {
        println!("  Spark job: failed");
    }
}

/// A `.warc.gz` as a crawler writes it: a `request` and a `response`
/// record for each real page, each in a gzip member of its own, with SHA-1
/// digests in base32; and the bytes of its payloads, the pages.
fn crawl_archive() -> (Vec<u8>, usize) {
    fn base32(bytes: &[u8]) -> String {
        const ALPHABET: &[u8; 32] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
        let bits: String = bytes.iter().map(|b| format!("{b:08b}")).collect();
        let five = |c: &[u8]| c.iter().fold(0, |n, &b| n << 1 | usize::from(b - b'0'));
        bits.as_bytes()
            .chunks(5)
            .map(|c| char::from(ALPHABET[five(c)]))
            .collect()
    }
    let sha1 = |b: &[u8]| {
        format!(
            "sha1:{}",
            base32(&sha1_smol::Sha1::from(b).digest().bytes())
        )
    };
    let record = |kind: &str, uri: &str, block: &[u8], payload: &[u8]| {
        let head = format!(
            "WARC/1.0\r\nWARC-Type: {kind}\r\nWARC-Target-URI: {uri}\r\n\
             WARC-Record-ID: <urn:uuid:{kind}-{}>\r\nWARC-Block-Digest: {}\r\n\
             WARC-Payload-Digest: {}\r\nContent-Type: application/http; msgtype={kind}\r\n\
             Content-Length: {}\r\n\r\n",
            uri.len() + block.len(),
            sha1(block),
            sha1(payload),
            block.len()
        );
        let mut member = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        std::io::Write::write_all(&mut member, &[head.as_bytes(), block, b"\r\n\r\n"].concat())
            .unwrap();
        member.finish().unwrap()
    };
    let (mut archive, mut payload) = (Vec::new(), 0);
    for ((name, page), host) in corpora::real_pages() {
        let uri = format!("https://{host}/{name}");
        let request = format!("GET /{name} HTTP/1.1\r\nHost: {host}\r\n\r\n");
        archive.extend(record("request", &uri, request.as_bytes(), b""));
        let head = format!(
            "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: {}\r\n\r\n",
            page.len()
        );
        let block = [head.as_bytes(), &page].concat();
        archive.extend(record("response", &uri, &block, &page));
        payload += page.len();
    }
    (archive, payload)
}

/// The URL the mirror's root is taken to be retrieved from.
const MIRROR_URL: &str = "https://docs.python.org/3.11/";

/// `--local` on the installed Python documentation as a mirror (its tree
/// as installed, every file: pages, sources, images, scripts) beside the
/// plain rewrite of the same files, `relink ROOT --retrieved-from URL -o
/// OUT -j 1`, in one run.
pub fn local_mirror() {
    let Some(root) = corpora::installed_python_docs_root() else {
        println!("no installed Python documentation (python3-doc): the --local row is skipped");
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let args = ["--retrieved-from", MIRROR_URL, "-o", out.to_str().unwrap()];
    let mut local = relink(&root, &args);
    local.arg("--local");
    let mut jobs = [
        Job::new("plain rewrite", relink(&root, &args)).writing(&out),
        Job::new("--local", local).writing(&out),
    ];
    let pages = corpora::installed_python_docs();
    println!(
        "\n--local on a mirror: {} ({} pages, {:.1} MB of HTML), -o OUT, one worker, \
         CPU median of {ROUNDS} rounds in turn (noisy on a shared machine), instructions of one run (callgrind)",
        root.display(),
        pages.len(),
        pages.iter().map(|(_, b)| b.len()).sum::<usize>() as f64 / 1e6
    );
    let figures = measure(&mut jobs, ROUNDS);
    for (i, job) in jobs.iter().enumerate() {
        println!(
            "  {:<16} {:>9.0} ms CPU {:>10.1} M instructions",
            job.name,
            figures.cpu[i] * 1e3,
            figures.instructions[i] / 1e6
        );
    }
    println!(
        "  --local / plain (goal at most 1.2x): CPU {:.2}x, instructions {:.2}x",
        figures.cpu[1] / figures.cpu[0],
        figures.instructions[1] / figures.instructions[0]
    );
}
