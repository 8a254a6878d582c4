//! What the command line gives for every fixture, against the outputs
//! recorded in `fixtures/outputs.tsv`: the rewrite on standard output, the
//! listing of links (`--list --format json`) and the explanation, each with
//! its standard error and exit status, byte for byte (as SHA-256 digests).
//! A change of the way in (how an input is opened, told and dispatched)
//! must change none of them.
//!
//! When an output changes on purpose, record the table again with
//! `RELINK_RECORD_OUTPUTS=1 cargo test --test relink outputs::` and say why
//! in the commit; `RELINK_BIN` runs another binary (an earlier build, to
//! compare with it).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

use sha2::{Digest, Sha256};

/// The table of recorded outputs, under `fixtures/`.
const TABLE: &str = "outputs.tsv";

/// The base every input is given, named after its file.
const BASE: &str = "http://example.test/d/";

/// The ways the command line is run over each fixture.
const MODES: [(&str, &[&str]); 3] = [
    ("rewrite", &[]),
    ("list", &["--list", "--format", "json"]),
    ("explain", &["explain"]),
];

/// The fixtures the table covers: every file under `fixtures/` but the
/// tables, licences and notes.
fn inputs() -> Vec<String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures");
    let mut names: Vec<String> = crate::files_under(&root)
        .into_iter()
        .map(|(name, _)| name)
        .filter(|name| {
            let file = name.rsplit('/').next().unwrap_or(name);
            !(file.ends_with(".tsv")
                || file.starts_with("LICENSE")
                || file.starts_with("README")
                || file.starts_with("NOTICE")
                || file.starts_with("COPYING"))
        })
        .collect();
    names.sort();
    names
}

fn digest(bytes: &[u8]) -> String {
    Sha256::digest(bytes)[..12]
        .iter()
        .fold(String::new(), |mut hex, b| {
            let _ = write!(hex, "{b:02x}");
            hex
        })
}

/// One run: the mode, the exit status, and the digests of standard output
/// and standard error.
fn run(binary: &Path, name: &str, (mode, args): (&str, &[&str])) -> [String; 5] {
    let file = format!("fixtures/{name}");
    let base = format!("{BASE}{}", name.rsplit('/').next().unwrap_or(name));
    let mut command = Command::new(binary);
    command.current_dir(env!("CARGO_MANIFEST_DIR"));
    if mode == "explain" {
        command.args(args).args(["--retrieved-from", &base, &file]);
    } else {
        command
            .args(args)
            .args(["-q", "--retrieved-from", &base, &file]);
    }
    let out = command.output().expect("running relink");
    // A link to a file saved with a page resolves to its `file:` URL,
    // which names the checkout: recorded without it.
    let checkout = format!("file://{}/", env!("CARGO_MANIFEST_DIR"));
    let stdout = replace_bytes(&out.stdout, checkout.as_bytes(), b"file:///checkout/");
    [
        name.to_owned(),
        mode.to_owned(),
        out.status.code().unwrap_or(-1).to_string(),
        digest(&stdout),
        digest(&out.stderr),
    ]
}

/// `bytes` with every `from` made `to`.
fn replace_bytes(bytes: &[u8], from: &[u8], to: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(bytes.len());
    let mut rest = bytes;
    while let Some(at) = memchr::memmem::find(rest, from) {
        out.extend_from_slice(&rest[..at]);
        out.extend_from_slice(to);
        rest = &rest[at + from.len()..];
    }
    out.extend_from_slice(rest);
    out
}

/// Every row of the table, computed now, on two threads.
fn rows(binary: &Path) -> Vec<[String; 5]> {
    let inputs = inputs();
    let half = inputs.len().div_ceil(2);
    let (first, second) = inputs.split_at(half);
    let each = |names: &[String]| -> Vec<[String; 5]> {
        names
            .iter()
            .flat_map(|name| MODES.iter().map(move |&mode| (name, mode)))
            .map(|(name, mode)| run(binary, name, mode))
            .collect()
    };
    let (mut a, b) = std::thread::scope(|s| {
        let other = s.spawn(|| each(second));
        (each(first), other.join().expect("a thread of runs"))
    });
    a.extend(b);
    a
}

#[test]
fn the_command_line_gives_the_recorded_outputs_for_every_fixture() {
    let binary = std::env::var_os("RELINK_BIN")
        .map(PathBuf::from)
        .unwrap_or_else(|| env!("CARGO_BIN_EXE_relink").into());
    let now = rows(&binary);
    if std::env::var_os("RELINK_RECORD_OUTPUTS").is_some() {
        let mut text = String::from(
            "# What the command line gives for each fixture (tests/relink/outputs.rs):\n\
             # exit status, and the first 12 bytes of the SHA-256 of standard output and error.\n\
             fixture\tmode\texit\tstdout\tstderr\n",
        );
        for row in &now {
            text.push_str(&row.join("\t"));
            text.push('\n');
        }
        std::fs::write(crate::fixture(TABLE), text).expect("writing the table");
        return;
    }
    let recorded: Vec<Vec<String>> = crate::table(TABLE, 5);
    let differ: Vec<String> = now
        .iter()
        .filter(|row| !recorded.iter().any(|r| r[..] == row[..]))
        .map(|row| format!("{} ({})", row[0], row[1]))
        .collect();
    assert!(
        differ.is_empty(),
        "{} of {} outputs differ from the recorded ones:\n{}",
        differ.len(),
        now.len(),
        differ.join("\n")
    );
    assert_eq!(
        recorded.len(),
        now.len(),
        "fixtures added or removed: record the table again"
    );
}
