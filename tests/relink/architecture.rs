//! The invariants ARCHITECTURE.md states that the compiler does not keep.

use std::path::{Path, PathBuf};

/// The readers: one module each, knowing no other.
const READERS: [&str; 6] = ["html", "css", "markdown", "mime", "warc", "xml"];

/// The Rust files of a reader module (`src/NAME.rs` or `src/NAME/`).
fn files_of(reader: &str) -> Vec<PathBuf> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    let single = src.join(format!("{reader}.rs"));
    if single.is_file() {
        files.push(single);
    }
    let mut dirs = vec![src.join(reader)];
    while let Some(dir) = dirs.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries {
            let path = entry.unwrap().path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                files.push(path);
            }
        }
    }
    files
}

#[test]
fn no_reader_names_another() {
    let mut found = Vec::new();
    for reader in READERS {
        let files = files_of(reader);
        assert!(!files.is_empty(), "no files for {reader}");
        for path in files {
            let text = std::fs::read_to_string(&path).unwrap();
            for other in READERS.iter().filter(|&&o| o != reader) {
                for (n, line) in text.lines().enumerate() {
                    if line.contains(&format!("crate::{other}")) {
                        found.push(format!("{}:{}: {line}", path.display(), n + 1));
                    }
                }
            }
        }
    }
    assert!(
        found.is_empty(),
        "readers naming another:\n{}",
        found.join("\n")
    );
}
