//! A structure fuzzer for web archives: archives built at random from the
//! record dialects and the damage of real files (see [`generate`]), each
//! rewritten and held to what an archivist relies on:
//!
//! 1. relink never panics: it rewrites the archive or refuses it with a
//!    short message (the library here, the command line over a directory
//!    of the first archives too);
//! 2. an archive relink reports unchanged comes back byte for byte, and an
//!    archive with nothing to rewrite (every link absolute) is unchanged;
//! 3. warcio reads the same records (type and target URI, in order) from
//!    the output as from the input, as far as it reads the input;
//! 4. every digest that verified in the input verifies in the output;
//! 5. gzip that decodes whole in the input decodes whole in the output;
//! 6. WARC record text quoted inside a block is never read as a record.
//!
//! The checks that need no warcio are in [`check`], shared with the `warc`
//! fuzz target; warcio reads a batch of archives in one run.
//!
//! The run is seeded: `RELINK_FUZZ_CASES` (default [`CASES`]) sets how
//! many archives, `RELINK_FUZZ_SEED` the seed, so a failure is found again
//! by its seed and number. `RELINK_FUZZ_KEEP=DIR` writes there each
//! failing input, named by what it broke, its number and what went into
//! it, the smallest of a kind to be made a fixture of `fixtures/warc/fuzz/`.
//!
//! Today's failures are listed in [`EXPECTED_FAILURES`], each with the
//! fixture that reproduces it: a failure of a listed class is let pass, and
//! a listed fixture that no longer fails fails the test, so that the list
//! is emptied as the fixes land.

pub mod check;
#[allow(dead_code)]
pub mod generate;
#[allow(dead_code)]
pub mod hostile;

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::process::Command;

use serde_json::Value;

use crate::{fixture, python};
use check::{Broken, Case, rewrite};
use generate::Rng;

/// How many archives a run builds unless `RELINK_FUZZ_CASES` says.
const CASES: usize = 2000;

/// The seed unless `RELINK_FUZZ_SEED` says.
const SEED: u64 = 1808;

/// A class of failure known today: what it breaks, the tags every
/// generated archive of the class carries, and the fixture (under
/// `fixtures/warc/fuzz/`) that reproduces it.
struct Known {
    fixture: &'static str,
    broken: Broken,
    tags: &'static [&'static str],
}

/// The failures of today's reader. A generated archive that breaks
/// `broken` and carries every one of `tags` is let pass; the fixture must
/// still break `broken`, else the entry is stale and the test fails:
/// remove the entry when its fix lands (keep the fixture, which then pins
/// the fix).
const EXPECTED_FAILURES: &[Known] = &[];

fn env<T: std::str::FromStr>(name: &str) -> Option<T> {
    std::env::var(name).ok().and_then(|v| v.parse().ok())
}

/// What warcio reads of each file: each record's type, target URI (an ARC
/// record's URL), whether its block digest and its payload digest verified;
/// and the error it stopped at, if any.
const READ_ALL: &str = r#"
import json, sys
from warcio.archiveiterator import ArchiveIterator
for path in sys.argv[1:]:
    records, error = [], None
    try:
        with open(path, 'rb') as f:
            for record in ArchiveIterator(f, check_digests=True):
                record.content_stream().read()
                h = record.rec_headers
                uri = h.get_header('WARC-Target-URI') or h.get_header('uri') or ''
                checker = record.digest_checker
                checked = checker.passed is not None
                problems = ' '.join(checker.problems)
                block = bool(h.get_header('WARC-Block-Digest')) and checked \
                    and 'block digest' not in problems
                payload = bool(h.get_header('WARC-Payload-Digest')) and checked \
                    and 'payload digest' not in problems
                records.append([record.rec_type, uri, block, payload])
    except Exception as e:
        error = (type(e).__name__ + ': ' + str(e))[:200]
    print(json.dumps({'records': records, 'error': error}))
"#;

/// Reads every rewritten case's input and output with warcio, in one run,
/// and checks that they agree.
fn check_with_warcio(cases: &mut [Case]) {
    let dir = tempfile::tempdir().unwrap();
    let mut paths = Vec::new();
    let mut which = Vec::new();
    for (i, case) in cases.iter().enumerate() {
        let Some(output) = &case.output else { continue };
        for (side, bytes) in [("in", &case.input), ("out", output)] {
            let path = dir.path().join(format!("{i}.{side}"));
            std::fs::write(&path, bytes).unwrap();
            paths.push(path);
        }
        which.push(i);
    }
    if which.is_empty() {
        return;
    }
    let result = Command::new(python())
        .arg("-c")
        .arg(READ_ALL)
        .args(&paths)
        .output()
        .unwrap_or_else(|e| panic!("python3 with warcio is needed ({e})"));
    assert!(
        result.status.success(),
        "warcio is needed: {}",
        String::from_utf8_lossy(&result.stderr)
    );
    let reads: Vec<Value> = String::from_utf8(result.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(reads.len(), paths.len());
    for (&i, pair) in which.iter().zip(reads.chunks(2)) {
        compare(&mut cases[i], &pair[0], &pair[1]);
    }
}

/// Holds what warcio read of an output to what it read of the input.
fn compare(case: &mut Case, before: &Value, after: &Value) {
    let old = before["records"].as_array().unwrap();
    let new = after["records"].as_array().unwrap();
    let same = |a: &Value, b: &Value| a[0] == b[0] && a[1] == b[1];
    let whole = before["error"].is_null();
    let agree = old.iter().zip(new).all(|(a, b)| same(a, b))
        && if whole {
            old.len() == new.len()
        } else {
            // A damaged input: as far as warcio reads it, it reads the
            // output alike.
            old.len() <= new.len()
        };
    if !agree {
        let names = |list: &[Value]| {
            list.iter()
                .map(|r| {
                    format!(
                        "{} {}",
                        r[0].as_str().unwrap_or(""),
                        r[1].as_str().unwrap_or("")
                    )
                })
                .collect::<Vec<_>>()
                .join(", ")
        };
        case.broken.push((
            Broken::Records,
            format!("[{}] became [{}]", names(old), names(new)),
        ));
        return;
    }
    if whole && !after["error"].is_null() {
        case.broken
            .push((Broken::Unreadable, after["error"].to_string()));
    }
    for (n, (a, b)) in old.iter().zip(new).enumerate() {
        for (field, name) in [(2, "block"), (3, "payload")] {
            if a[field] == Value::Bool(true) && b[field] != Value::Bool(true) {
                case.broken.push((
                    Broken::Digest,
                    format!("record {}: the {name} digest", n + 1),
                ));
            }
        }
    }
}

/// The known class a failure belongs to, if any.
fn known(broken: Broken, tags: &BTreeSet<&'static str>) -> Option<&'static Known> {
    EXPECTED_FAILURES
        .iter()
        .find(|k| k.broken == broken && k.tags.iter().all(|t| tags.contains(t)))
}

/// With `RELINK_FUZZ_KEEP=DIR`, writes each failing input there, named by
/// what it broke, its case and its tags (`ls -S` shows the smallest of a
/// kind last).
fn keep(cases: &[Case]) {
    let Some(dir) = std::env::var_os("RELINK_FUZZ_KEEP") else {
        return;
    };
    let dir = PathBuf::from(dir);
    std::fs::create_dir_all(&dir).unwrap();
    for case in cases {
        for (broken, _) in &case.broken {
            let tags: Vec<&str> = case.tags.iter().copied().collect();
            let name = format!("{broken:?}.{}.{}", case.label, tags.join("+"));
            std::fs::write(dir.join(name), &case.input).unwrap();
        }
    }
}

#[test]
fn archives_built_at_random_are_never_damaged() {
    let cases: usize = env("RELINK_FUZZ_CASES").unwrap_or(CASES);
    let seed: u64 = env("RELINK_FUZZ_SEED").unwrap_or(SEED);
    let mut rng = Rng(seed);
    let mut done = Vec::new();
    let mut failures = Vec::new();
    // warcio reads the archives in batches, so that a long run holds a
    // batch of them at a time.
    let mut batch = Vec::new();
    for number in 0..cases {
        let archive = generate::archive(&mut rng);
        let mut tags = archive.tags;
        if rng.chance(10) {
            tags.insert("small-limit");
        }
        batch.push(rewrite(
            format!("case{number}"),
            archive.bytes,
            tags,
            archive.absolute,
        ));
        if batch.len() == 500 || number + 1 == cases {
            check_with_warcio(&mut batch);
            keep(&batch);
            for case in batch.drain(..) {
                if case.output.is_some() {
                    done.push(());
                }
                for (broken, what) in &case.broken {
                    if known(*broken, &case.tags).is_none() {
                        let tags: Vec<&str> = case.tags.iter().copied().collect();
                        failures.push(format!(
                            "{} ({}): {broken:?}: {what}",
                            case.label,
                            tags.join(" ")
                        ));
                    }
                }
            }
        }
    }
    assert!(
        failures.is_empty(),
        "seed {seed}, {cases} archives, {} failures not in EXPECTED_FAILURES \
         (RELINK_FUZZ_KEEP=DIR keeps the smallest of each):\n{}",
        failures.len(),
        failures.join("\n")
    );
    // The run is worth its time only when most archives were rewritten.
    assert!(
        done.len() * 2 > cases,
        "{} of {cases} rewritten",
        done.len()
    );
}

/// The fixtures the fuzzer found: each listed in [`EXPECTED_FAILURES`]
/// breaks what the entry says (else the entry is stale); every other one
/// breaks nothing. A name holding `nothing-to-rewrite` has only absolute
/// links; one holding `small-limit` is rewritten with a payload limit of
/// 300 bytes.
#[test]
fn archives_the_fuzzer_found_are_never_damaged() {
    let dir = fixture("warc/fuzz");
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| !n.ends_with(".md"))
        .collect();
    names.sort();
    for k in EXPECTED_FAILURES {
        assert!(
            names.iter().any(|n| n == k.fixture),
            "EXPECTED_FAILURES names {}, which is not in fixtures/warc/fuzz/",
            k.fixture
        );
    }
    let mut cases: Vec<Case> = names
        .iter()
        .map(|name| {
            let mut tags = BTreeSet::new();
            if name.contains("small-limit") {
                tags.insert("small-limit");
            }
            let input = std::fs::read(dir.join(name)).unwrap();
            rewrite(
                name.clone(),
                input,
                tags,
                name.contains("nothing-to-rewrite"),
            )
        })
        .collect();
    check_with_warcio(&mut cases);
    let mut wrong = Vec::new();
    for case in &cases {
        let broke: BTreeSet<Broken> = case.broken.iter().map(|(b, _)| *b).collect();
        let expected: BTreeSet<Broken> = EXPECTED_FAILURES
            .iter()
            .filter(|k| k.fixture == case.label)
            .map(|k| k.broken)
            .collect();
        for b in expected.difference(&broke) {
            wrong.push(format!(
                "{}: no longer breaks {b:?}: remove it from EXPECTED_FAILURES",
                case.label
            ));
        }
        for (b, what) in &case.broken {
            if !expected.contains(b) {
                wrong.push(format!("{}: {b:?}: {what}", case.label));
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// The hostile shapes of the archive bench, small: read as warcio reads
/// them and copied as they are (the bench times them at two sizes).
#[test]
fn hostile_archives_of_the_bench_are_never_damaged() {
    let mut cases: Vec<Case> = hostile::warcs(4)
        .into_iter()
        .map(|(name, bytes)| rewrite(name.to_owned(), bytes, BTreeSet::new(), false))
        .collect();
    check_with_warcio(&mut cases);
    let wrong: Vec<String> = cases
        .iter()
        .flat_map(|c| {
            c.broken
                .iter()
                .map(move |(b, what)| format!("{}: {b:?}: {what}", c.label))
        })
        .collect();
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// The command line over a directory of the run's first archives (those
/// without the small payload limit, which it has no option for): it never
/// panics, and writes what the library writes for each archive the library
/// rewrote, refusing the others.
#[test]
fn the_command_line_writes_what_the_library_does() {
    let seed: u64 = env("RELINK_FUZZ_SEED").unwrap_or(SEED);
    let mut rng = Rng(seed);
    let dir = tempfile::tempdir().unwrap();
    let (input_dir, output_dir) = (dir.path().join("in"), dir.path().join("out"));
    std::fs::create_dir(&input_dir).unwrap();
    let mut cases = Vec::new();
    for number in 0..300 {
        let archive = generate::archive(&mut rng);
        // Kept in step with the random run, which draws this too.
        if rng.chance(10) {
            continue;
        }
        let mut name = format!("case{number}");
        name.push_str(
            if archive.tags.contains("arc1") || archive.tags.contains("arc2") {
                ".arc"
            } else {
                ".warc"
            },
        );
        if archive.bytes.starts_with(&[0x1f, 0x8b]) {
            name.push_str(".gz");
        }
        std::fs::write(input_dir.join(&name), &archive.bytes).unwrap();
        cases.push(rewrite(name, archive.bytes, archive.tags, archive.absolute));
    }
    let run = Command::new(env!("CARGO_BIN_EXE_relink"))
        .arg(&input_dir)
        .arg("-o")
        .arg(&output_dir)
        .arg("-q")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(
        !stderr.contains("panicked") && run.status.code().is_some_and(|c| c < 100),
        "relink exits {:?}: {stderr}",
        run.status
    );
    let mut wrong = Vec::new();
    for case in &cases {
        let written = std::fs::read(output_dir.join(&case.label)).ok();
        match (&case.output, written) {
            (Some(library), Some(cli)) if *library != cli => {
                wrong.push(format!("{}: other bytes than the library's", case.label));
            }
            (Some(_), None) => wrong.push(format!("{}: not written", case.label)),
            (None, Some(_)) if case.broken.is_empty() => {
                wrong.push(format!("{}: written, refused by the library", case.label));
            }
            _ => {}
        }
    }
    assert!(wrong.is_empty(), "{}\n{stderr}", wrong.join("\n"));
}
