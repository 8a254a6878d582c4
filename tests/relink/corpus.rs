//! Reading the html5lib-tests corpus vendored in `fixtures/corpus/`.

use std::path::PathBuf;

use crate::fixture;

/// Every `#data` input of the tree-construction tests, with its file and
/// number, for messages.
pub fn tree_construction_inputs() -> Vec<(String, String)> {
    let dir = fixture("corpus/html5lib-tests/tree-construction");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("reading {}: {e}", dir.display()))
        .map(|entry| entry.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "dat"))
        .collect();
    files.sort();
    let mut inputs = Vec::new();
    for path in files {
        let text = std::fs::read_to_string(&path).unwrap();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        for (n, data) in sections(&text, "#data", &["#errors", "#new-errors"]).enumerate() {
            inputs.push((format!("{name} #{}", n + 1), data));
        }
    }
    inputs
}

/// The sections of a `.dat` file that start after a `start` line and end
/// before any of the `ends` lines (the newline before it is not part of it).
pub fn sections<'a>(
    text: &'a str,
    start: &'a str,
    ends: &'a [&'a str],
) -> impl Iterator<Item = String> + 'a {
    let mut lines = text.split('\n').peekable();
    std::iter::from_fn(move || {
        for line in lines.by_ref() {
            if line == start {
                break;
            }
        }
        lines.peek()?;
        let mut data: Vec<&str> = Vec::new();
        while let Some(line) = lines.next_if(|l| !ends.contains(l) && *l != start) {
            data.push(line);
        }
        Some(data.join("\n"))
    })
}
