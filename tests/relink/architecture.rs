//! The invariants ARCHITECTURE.md states that the compiler does not keep.

use std::path::{Path, PathBuf};

/// The readers: one module each, knowing no other.
const READERS: [&str; 10] = [
    "html", "css", "epub", "markdown", "mime", "notebook", "robots", "rst", "warc", "xml",
];

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

/// The core every reader builds on (ARCHITECTURE.md, "Invariants"): the
/// report types, the resolver of a text and its edits, URLs, settings,
/// encodings, gzip, the URL syntaxes two readers share (`refresh`,
/// `srcset`, `style`), and the error. `kind` is not among them: telling what a file
/// is names the readers that recognise their own formats.
const CORE: [&str; 12] = [
    "base",
    "links",
    "text",
    "splice",
    "url",
    "options",
    "encoding",
    "compressed",
    "refresh",
    "srcset",
    "style",
    "error",
];

/// What a core module may name of a reader: nothing (`Error::Wacz` boxes
/// the WACZ reader's error, which the reader converts).
const CORE_EXCEPTIONS: [(&str, &str); 0] = [];

/// The first segment of every path after `crate::` in `text`, with its
/// line: `crate::css::escape` gives `css`, and `crate::{Error, css}` (or a
/// group over several lines) gives `Error` and `css`.
fn crate_names(text: &str) -> Vec<(usize, String)> {
    let bytes = text.as_bytes();
    let line_of = |at: usize| 1 + text[..at].matches('\n').count();
    let ident = |from: usize| {
        let end = (from..bytes.len())
            .find(|&i| !(bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_'))
            .unwrap_or(bytes.len());
        text[from..end].to_owned()
    };
    let mut names = Vec::new();
    for (at, _) in text.match_indices("crate::") {
        let start = at + "crate::".len();
        if bytes.get(start) != Some(&b'{') {
            names.push((line_of(at), ident(start)));
            continue;
        }
        // A group: the names at its top level, each after `{` or `,`.
        let mut depth = 0;
        let mut expecting = false;
        for (i, &c) in bytes.iter().enumerate().skip(start) {
            match c {
                b'{' => {
                    depth += 1;
                    expecting = depth == 1;
                }
                b'}' if depth == 1 => break,
                b'}' => depth -= 1,
                b',' if depth == 1 => expecting = true,
                c if expecting && (c.is_ascii_alphabetic() || c == b'_') => {
                    names.push((line_of(i), ident(i)));
                    expecting = false;
                }
                _ => {}
            }
        }
    }
    names
}

#[test]
fn paths_after_crate_are_found_in_groups_too() {
    let text = "use crate::css::escape;\nuse crate::{\n    Error,\n    links::{A, B}, xml,\n};";
    let found = crate_names(text);
    let names: Vec<(usize, &str)> = found
        .iter()
        .map(|(line, name)| (*line, name.as_str()))
        .collect();
    assert_eq!(names, [(1, "css"), (3, "Error"), (4, "links"), (4, "xml")]);
}

#[test]
fn the_core_names_no_reader() {
    let mut found = Vec::new();
    for module in CORE {
        let files = files_of(module);
        assert!(!files.is_empty(), "no files for {module}");
        for path in files {
            let text = std::fs::read_to_string(&path).unwrap();
            for (line, name) in crate_names(&text) {
                let allowed = CORE_EXCEPTIONS.contains(&(module, name.as_str()));
                if READERS.contains(&name.as_str()) && !allowed {
                    found.push(format!("{}:{line}: crate::{name}", path.display()));
                }
            }
        }
    }
    assert!(
        found.is_empty(),
        "core modules naming a reader:\n{}",
        found.join("\n")
    );
}
