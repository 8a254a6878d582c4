//! Faults and hostile trees: link loops, unreadable entries, two runs at
//! once, and runs killed part way.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use super::{read, s, write};
use crate::cli::{assert_ok, relink};
use crate::files_under;

/// Whether a name is one of relink's temporary files, as its documented
/// pattern says: `.NAME.relink-XXXXXX`, six letters or digits.
fn is_temporary(name: &str) -> bool {
    let name = name.rsplit('/').next().unwrap_or(name);
    let Some(at) = name.rfind(".relink-") else {
        return false;
    };
    let random = &name[at + ".relink-".len()..];
    name.starts_with('.')
        && at > 1
        && random.len() == 6
        && random.bytes().all(|b| b.is_ascii_alphanumeric())
}

/// A tree of `count` small pages in ten directories; returns its root.
fn pages(root: &Path, count: usize) -> PathBuf {
    let tree = root.join("tree");
    for i in 0..count {
        write(
            &tree.join(format!("d{}/p{i}.html", i % 10)),
            format!("<p>page {i}: <a href=\"x{i}.html\">x</a> <img src=\"i/{i}.png\">\n")
                .as_bytes(),
        );
    }
    tree
}

/// What relink makes of `tree` (written under `out`), file by file.
fn rewritten(tree: &Path, out: &Path) -> Vec<(String, Vec<u8>)> {
    let result = relink(
        &[s(tree), "--retrieved-from", "http://h/", "-o", s(out), "-q"],
        b"",
    );
    assert_ok(&result);
    files_under(out)
}

#[test]
fn a_link_loop_is_walked_once() {
    let dir = tempfile::tempdir().unwrap();
    let tree = dir.path().join("tree");
    write(&tree.join("a.html"), b"<a href=x>");
    write(&tree.join("sub/b.html"), b"<a href=y>");
    std::os::unix::fs::symlink(".", tree.join("self")).unwrap();
    std::os::unix::fs::symlink("..", tree.join("sub/up")).unwrap();
    let a = tree.join("a.html");
    let mut child = Command::new(env!("CARGO_BIN_EXE_relink"))
        .args([
            s(&tree),
            s(&a),
            s(&tree),
            "--list",
            "--retrieved-from",
            "http://h/",
        ])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // A walk that follows the loops never ends: give it a bounded time.
    let deadline = Instant::now() + Duration::from_secs(30);
    while child.try_wait().unwrap().is_none() {
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("the walk does not end");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    let list = String::from_utf8(out.stdout).unwrap();
    assert_eq!(list.matches("http://h/x").count(), 1, "{list}");
    assert_eq!(list.matches("http://h/sub/y").count(), 1, "{list}");
}

#[test]
fn an_unreadable_entry_is_named_and_the_walk_goes_on() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let tree = dir.path().join("tree");
    write(&tree.join("a.html"), b"<a href=x>");
    write(&tree.join("c.html"), b"<a href=z>");
    write(&tree.join("d/e.html"), b"<a href=w>");
    // A socket cannot be read or copied, even by root.
    let _socket = std::os::unix::net::UnixListener::bind(tree.join("b.html")).unwrap();
    let locked = tree.join("c.html");
    std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o000)).unwrap();
    let unreadable = std::fs::read(&locked).is_err();
    let out_dir = dir.path().join("out");
    let out = relink(
        &[s(&tree), "--retrieved-from", "http://h/", "-o", s(&out_dir)],
        b"",
    );
    std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o644)).unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    let named: Vec<&str> = stderr.lines().filter(|l| l.contains("b.html")).collect();
    assert_eq!(named.len(), 1, "{stderr}");
    assert!(named[0].contains("not copied"), "{stderr}");
    if unreadable {
        assert!(
            stderr
                .lines()
                .any(|l| l.contains("c.html") && l.contains("cannot read")),
            "{stderr}"
        );
    }
    assert_eq!(read(&out_dir.join("a.html")), "<a href=http://h/x>");
    assert_eq!(read(&out_dir.join("d/e.html")), "<a href=http://h/d/w>");
}

#[test]
fn stale_temporaries_are_removed_by_the_next_run() {
    let dir = tempfile::tempdir().unwrap();
    let tree = dir.path().join("tree");
    write(&tree.join("a.html"), b"<a href=\"http://h/x\">");
    write(&tree.join("sub/b.html"), b"<a href=y>");
    let stale = [
        tree.join(".a.html.relink-Ab12cD"),
        tree.join("sub/.b.html.relink-zz99Q0"),
    ];
    for path in &stale {
        write(path, b"<a href=half");
    }
    let kept = tree.join(".notes.relink-keep");
    write(&kept, b"mine");
    let out = relink(
        &[s(&tree), "--in-place", "--retrieved-from", "http://h/"],
        b"",
    );
    assert_ok(&out);
    for path in &stale {
        assert!(!path.exists(), "{} is left", path.display());
    }
    assert_eq!(read(&kept), "mine");
    assert_eq!(read(&tree.join("sub/b.html")), "<a href=http://h/sub/y>");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("2 files"), "{stderr}");
}

#[test]
fn two_runs_at_once_keep_every_backup_the_original() {
    let dir = tempfile::tempdir().unwrap();
    let tree = pages(dir.path(), 300);
    let old = files_under(&tree);
    let new = rewritten(&tree, &dir.path().join("expected"));
    let run = || {
        Command::new(env!("CARGO_BIN_EXE_relink"))
            .args([s(&tree), "--in-place", "--backup", ".orig", "-q"])
            .args(["--retrieved-from", "http://h/"])
            .stdin(Stdio::null())
            .spawn()
            .unwrap()
    };
    let (mut first, mut second) = (run(), run());
    assert!(first.wait().unwrap().success());
    assert!(second.wait().unwrap().success());
    let after = files_under(&tree);
    let expected: Vec<(String, Vec<u8>)> = {
        let mut all = new.clone();
        all.extend(
            old.iter()
                .map(|(name, bytes)| (format!("{name}.orig"), bytes.clone())),
        );
        all.sort();
        all
    };
    let wrong: Vec<&String> = after
        .iter()
        .zip(&expected)
        .filter(|(a, e)| a != e)
        .map(|(a, _)| &a.0)
        .collect();
    assert_eq!(after.len(), expected.len());
    assert!(wrong.is_empty(), "{} wrong: {wrong:?}", wrong.len());
}

/// A small seeded generator (xorshift64), so a failing run can be repeated.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n.max(1)
    }
}

#[test]
fn in_place_killed_at_random_leaves_each_file_old_or_new() {
    let dir = tempfile::tempdir().unwrap();
    let tree = pages(dir.path(), 200);
    let old = files_under(&tree);
    let new = rewritten(&tree, &dir.path().join("expected"));
    let args = [
        s(&tree),
        "--in-place",
        "-q",
        "--retrieved-from",
        "http://h/",
    ];
    // How long a whole run takes here, to kill within it.
    let copy = dir.path().join("timing");
    let started = Instant::now();
    assert_ok(&relink(
        &[
            s(&tree),
            "-q",
            "--retrieved-from",
            "http://h/",
            "-o",
            s(&copy),
        ],
        b"",
    ));
    let whole = started.elapsed().as_micros().max(1000) as u64;
    let mut rng = Rng(0x5eed_1234_abcd_0001);
    for kill in 0..10 {
        let mut child = Command::new(env!("CARGO_BIN_EXE_relink"))
            .args(args)
            .stdin(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(Duration::from_micros(rng.below(whole)));
        // SIGKILL: the process gets no chance to clean up.
        let _ = child.kill();
        child.wait().unwrap();
        let now: Vec<(String, Vec<u8>)> = files_under(&tree)
            .into_iter()
            .filter(|(name, _)| !is_temporary(name))
            .collect();
        assert_eq!(now.len(), old.len(), "kill {kill}: files came or went");
        for ((name, bytes), ((was_name, was), (_, will))) in now.iter().zip(old.iter().zip(&new)) {
            assert_eq!(name, was_name, "kill {kill}");
            assert!(
                bytes == was || bytes == will,
                "kill {kill}: {name} is neither old nor new"
            );
        }
        if now == new {
            // The run finished before the kill: start again from the old tree.
            for (name, bytes) in &old {
                std::fs::write(tree.join(name), bytes).unwrap();
            }
        }
    }
    assert_ok(&relink(&args, b""));
    let after = files_under(&tree);
    let left: Vec<&String> = after
        .iter()
        .map(|(name, _)| name)
        .filter(|name| is_temporary(name))
        .collect();
    assert!(left.is_empty(), "temporaries left: {left:?}");
    assert_eq!(after, new);
}

#[test]
fn a_backup_already_linked_to_the_original_leaves_no_temporary() {
    let dir = tempfile::tempdir().unwrap();
    let page = dir.path().join("p.html");
    write(&page, b"<a href=x>");
    // A run stopped between making the backup and renaming the new file.
    std::fs::hard_link(&page, dir.path().join("p.html.orig")).unwrap();
    let out = relink(
        &[
            s(&page),
            "--in-place",
            "--backup",
            ".orig",
            "--retrieved-from",
            "http://h/",
        ],
        b"",
    );
    assert_ok(&out);
    assert_eq!(read(&page), "<a href=http://h/x>");
    assert_eq!(read(&dir.path().join("p.html.orig")), "<a href=x>");
    let names: Vec<String> = files_under(dir.path())
        .into_iter()
        .map(|(n, _)| n)
        .collect();
    assert_eq!(names, ["p.html", "p.html.orig"]);
}

/// A WARC of `records` response records, each a page with links: large
/// enough that rewriting it takes a while.
fn large_warc(records: usize) -> Vec<u8> {
    let mut out = Vec::new();
    for i in 0..records {
        let body = format!(
            "<!doctype html><p>{}</p>",
            "<a href=x.html>x</a> ".repeat(40)
        );
        let http = format!("HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n{body}");
        out.extend_from_slice(
            format!(
                "WARC/1.0\r\nWARC-Type: response\r\nWARC-Target-URI: http://a.example/{i}/\r\n\
                 Content-Type: application/http; msgtype=response\r\nContent-Length: {}\r\n\r\n{http}\r\n\r\n",
                http.len()
            )
            .as_bytes(),
        );
    }
    out
}

/// Runs relink with `args` and sends it `signal` as soon as a temporary
/// file shows in `dir`; how it ended. The signal's default action is
/// restored in the child first: relink leaves a signal ignored when it
/// starts ignored, as under `nohup`, which would otherwise finish the run.
fn signalled_once_writing(args: &[&str], dir: &Path, signal: i32) -> std::process::ExitStatus {
    use std::os::unix::process::CommandExt;
    let mut command = Command::new(env!("CARGO_BIN_EXE_relink"));
    command
        .args(args)
        .stdin(Stdio::null())
        .stderr(Stdio::null());
    // SAFETY: between fork and exec the child only calls signal(2), which
    // is async-signal-safe.
    unsafe {
        command.pre_exec(move || {
            libc::signal(signal, libc::SIG_DFL);
            Ok(())
        });
    }
    let mut child = command.spawn().unwrap();
    let started = Instant::now();
    loop {
        let writing = std::fs::read_dir(dir)
            .unwrap()
            .flatten()
            .any(|e| is_temporary(&e.file_name().to_string_lossy()));
        if writing {
            break;
        }
        assert!(
            child.try_wait().unwrap().is_none(),
            "the run ended before its temporary file was seen: make the input larger"
        );
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "no temporary file"
        );
        std::thread::sleep(Duration::from_micros(200));
    }
    // SAFETY: kill sends a signal to the child this test started.
    let sent = unsafe { libc::kill(child.id() as libc::pid_t, signal) };
    assert_eq!(sent, 0);
    child.wait().unwrap()
}

#[test]
fn a_signal_during_in_place_leaves_no_temporary_and_the_original_intact() {
    use std::os::unix::process::ExitStatusExt;
    let input = large_warc(20_000);
    for (signal, backup) in [
        (libc::SIGTERM, false),
        (libc::SIGINT, true),
        (libc::SIGHUP, false),
        // How the process ends when memory runs out.
        (libc::SIGABRT, false),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("crawl.warc");
        std::fs::write(&path, &input).unwrap();
        let mut args = vec![s(&path), "--in-place", "-q"];
        if backup {
            args.extend(["--backup", ".orig"]);
        }
        let status = signalled_once_writing(&args, dir.path(), signal);
        assert_eq!(status.signal(), Some(signal), "{signal}: {status:?}");
        let names: Vec<String> = files_under(dir.path())
            .into_iter()
            .map(|(n, _)| n)
            .collect();
        assert_eq!(names, ["crawl.warc"], "signal {signal}");
        assert!(
            std::fs::read(&path).unwrap() == input,
            "signal {signal}: the original changed"
        );
    }
    // A copy under -o: neither a temporary nor a half-written output.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("crawl.warc");
    std::fs::write(&path, &input).unwrap();
    let out = dir.path().join("out");
    std::fs::create_dir(&out).unwrap();
    let target = out.join("new.warc");
    let status = signalled_once_writing(&[s(&path), "-q", "-o", s(&target)], &out, libc::SIGTERM);
    assert_eq!(status.signal(), Some(libc::SIGTERM));
    assert!(
        files_under(&out).is_empty(),
        "{:?}",
        files_under(&out).len()
    );
}
