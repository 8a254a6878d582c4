//! ARCHITECTURE.md tells the truth and stays true: every path it names
//! exists, every type, function and module it names is declared in the
//! code, and every invariant it states names the test that holds it,
//! which exists.

use std::path::Path;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn architecture() -> String {
    std::fs::read_to_string(root().join("ARCHITECTURE.md")).expect("reading ARCHITECTURE.md")
}

/// The text between backquotes, in order.
fn quoted(text: &str) -> Vec<&str> {
    text.split('`').skip(1).step_by(2).collect()
}

/// Every source of the project: the Rust of src, tests, benches, fuzz,
/// python/src and examples, and the Python tests.
fn sources() -> String {
    let mut all = String::new();
    for dir in ["src", "tests", "benches", "fuzz", "python", "examples"] {
        for (name, bytes) in crate::files_under(&root().join(dir)) {
            if name.ends_with(".rs") || name.ends_with(".py") {
                all.push_str(&String::from_utf8_lossy(&bytes));
                all.push('\n');
            }
        }
    }
    all
}

/// Whether a quoted piece names a path of the repository.
fn is_path(piece: &str) -> bool {
    const ROOTS: [&str; 9] = [
        "src/",
        "tests/",
        "benches/",
        "fuzz/",
        "fixtures/",
        "python/",
        "docs/",
        "examples/",
        ".ci/",
    ];
    ROOTS.iter().any(|r| piece.starts_with(r)) && !piece.contains(' ') && !piece.contains('*')
}

#[test]
fn every_path_it_names_exists() {
    let text = architecture();
    let missing: Vec<&str> = quoted(&text)
        .into_iter()
        .filter(|piece| is_path(piece))
        .map(|piece| piece.trim_end_matches(['(', ')', ',', '.']))
        .filter(|path| !root().join(path).exists())
        .collect();
    assert!(missing.is_empty(), "paths named but absent: {missing:?}");
}

/// Whether `name` (its last `::` segment) is declared in `sources`.
fn declared(sources: &str, name: &str) -> bool {
    let item = name.rsplit("::").next().unwrap_or(name);
    let item = item.trim_end_matches("()");
    // An enum's variant: `    Name,`, `    Name(` or `    Name {`.
    let variant = name.contains("::")
        && [",", "(", " {"]
            .iter()
            .any(|end| sources.contains(&format!("\n    {item}{end}")));
    variant
        || [
            "struct",
            "enum",
            "trait",
            "fn",
            "type",
            "const",
            "mod",
            "static",
            "macro_rules!",
        ]
        .iter()
        .any(|keyword| {
            let declaration = format!("{keyword} {item}");
            sources.match_indices(&declaration).any(|(at, _)| {
                let next = sources[at + declaration.len()..].chars().next();
                !next.is_some_and(|c| c.is_alphanumeric() || c == '_')
            })
        })
}

/// Whether a quoted piece names an item of the code: a `CamelCase` type,
/// a `path::to::item`, or a `function()`.
fn is_item(piece: &str) -> bool {
    let simple = |s: &str| !s.is_empty() && s.chars().all(|c| c.is_alphanumeric() || c == '_');
    let camel = piece.chars().next().is_some_and(|c| c.is_ascii_uppercase())
        && piece.chars().any(|c| c.is_ascii_lowercase())
        && simple(piece);
    let path = piece.contains("::") && piece.split("::").all(|s| simple(s.trim_end_matches("()")));
    let call = piece.ends_with("()") && simple(piece.trim_end_matches("()"));
    camel || path || call
}

/// The crates whose items the document names, qualified by the crate.
const DEPENDENCIES: [&str; 12] = [
    "std",
    "relink",
    "html5ever",
    "markup5ever",
    "mailparse",
    "quick_xml",
    "cssparser",
    "pulldown_cmark",
    "url",
    "flate2",
    "zip",
    "encoding_rs",
];

#[test]
fn every_item_it_names_is_declared() {
    let text = architecture();
    let sources = sources();
    let missing: Vec<&str> = quoted(&text)
        .into_iter()
        .filter(|piece| is_item(piece))
        .filter(|piece| {
            !DEPENDENCIES
                .iter()
                .any(|d| piece.starts_with(&format!("{d}::")))
        })
        .filter(|piece| !declared(&sources, piece))
        .collect();
    assert!(
        missing.is_empty(),
        "items named but not declared: {missing:?}"
    );
}

#[test]
fn every_invariant_names_the_test_that_holds_it() {
    let text = architecture();
    let section = text
        .split("\n## Invariants")
        .nth(1)
        .and_then(|rest| rest.split("\n## ").next())
        .expect("an Invariants section");
    let sources = sources();
    let mut unheld = Vec::new();
    for item in section.split("\n- ").skip(1) {
        let first = item.lines().next().unwrap_or_default();
        let Some(held) = item.split("Held by").nth(1) else {
            unheld.push(format!("names no test: {first}"));
            continue;
        };
        let tests: Vec<&str> = quoted(held.split('.').next().unwrap_or_default());
        if tests.is_empty() {
            unheld.push(format!("names no test: {first}"));
        }
        for test in tests.into_iter().filter(|t| !t.contains('/')) {
            let name = test.rsplit("::").next().unwrap_or(test);
            let rust = sources.contains(&format!("fn {name}("));
            if !rust && !sources.contains(&format!("def {name}(")) {
                unheld.push(format!("no test `{test}`: {first}"));
            }
        }
    }
    assert!(unheld.is_empty(), "{}", unheld.join("\n"));
}

/// The names the crate root exports outside `_internal`: each `pub use`
/// between the API's opening comment and the internals' block.
fn public_names() -> Vec<String> {
    let lib = std::fs::read_to_string(root().join("src/lib.rs")).expect("reading src/lib.rs");
    let api = lib
        .split("// The API")
        .nth(1)
        .and_then(|rest| rest.split("// The internals").next())
        .expect("the API's pub use block in src/lib.rs");
    let mut names = Vec::new();
    for statement in api.split(';').filter(|s| s.contains("pub use")) {
        let path = statement.split("pub use").nth(1).unwrap_or_default();
        let items = match path.split_once('{') {
            Some((_, group)) => group.trim_end().trim_end_matches('}').to_owned(),
            None => path.rsplit("::").next().unwrap_or_default().to_owned(),
        };
        names.extend(
            items
                .split(',')
                .map(str::trim)
                .filter(|n| !n.is_empty())
                .map(str::to_owned),
        );
    }
    names
}

/// The doc comment above the declaration `keyword name` in src, if found.
fn doc_of(name: &str) -> Option<String> {
    for (file, bytes) in crate::files_under(&root().join("src")) {
        // The command line's own types are no part of the library.
        if file.starts_with("cli/") || file == "main.rs" {
            continue;
        }
        let text = String::from_utf8_lossy(&bytes);
        let lines: Vec<&str> = text.lines().collect();
        for (at, line) in lines.iter().enumerate() {
            let declares = ["pub struct", "pub enum", "pub fn", "pub type", "pub mod"]
                .iter()
                .any(|keyword| {
                    line.strip_prefix(&format!("{keyword} {name}"))
                        .is_some_and(|rest| {
                            !rest.starts_with(|c: char| c.is_alphanumeric() || c == '_')
                        })
                });
            if !declares {
                continue;
            }
            let mut doc = Vec::new();
            for above in lines[..at].iter().rev() {
                let above = above.trim_start();
                if above.starts_with("#[") {
                    continue;
                }
                match above.strip_prefix("///") {
                    Some(text) => doc.push(text),
                    None => break,
                }
            }
            doc.reverse();
            return Some(doc.join("\n"));
        }
    }
    None
}

#[test]
fn every_public_item_has_an_example() {
    let names = public_names();
    assert!(names.len() > 20, "too few public names read: {names:?}");
    let mut without = Vec::new();
    for name in &names {
        {
            let item = name.clone();
            match doc_of(&item) {
                Some(doc)
                    if doc.contains("```")
                        || doc
                            .to_lowercase()
                            .split_whitespace()
                            .collect::<Vec<_>>()
                            .join(" ")
                            .contains("see the example") => {}
                Some(_) => without.push(item),
                None => without.push(format!("{item} (not found)")),
            }
        }
    }
    assert!(
        without.is_empty(),
        "public items without an example: {without:?}"
    );
}

/// The top-level public items of a public module of the crate root
/// (`pub mod NAME;`): each `pub` fn, struct, enum, type, const or trait at
/// the start of a line of its file.
fn public_module_items(name: &str, file: &std::path::Path) -> Vec<String> {
    let text = std::fs::read_to_string(file).expect("reading a public module");
    let mut items = Vec::new();
    for line in text.lines() {
        for keyword in ["fn", "struct", "enum", "type", "const", "trait"] {
            if let Some(rest) = line.strip_prefix(&format!("pub {keyword} ")) {
                let item: String = rest
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                items.push(format!("{name}::{item}"));
            }
        }
    }
    items
}

/// The public modules the crate root declares outside `_internal`.
fn public_modules() -> Vec<String> {
    let lib = std::fs::read_to_string(root().join("src/lib.rs")).expect("reading src/lib.rs");
    let mut modules = Vec::new();
    let mut internal = false;
    for line in lib.lines() {
        if let Some(name) = line.strip_prefix("pub mod ")
            && !internal
        {
            modules.push(name.trim_end_matches(';').to_owned());
        }
        internal = line.trim() == "#[cfg(feature = \"_internal\")]";
    }
    modules
}

#[test]
fn the_public_api_stays_at_most_forty_items() {
    // A module re-exported by `pub use` counts as its items, as one
    // declared `pub mod` does.
    let sources = crate::files_under(&root().join("src"));
    let module_file = |name: &str| {
        sources
            .iter()
            .map(|(file, _)| file)
            .find(|file| !file.starts_with("cli/") && file.ends_with(&format!("/{name}.rs")))
            .map(|file| root().join("src").join(file))
    };
    let mut items = Vec::new();
    for name in public_names() {
        match module_file(&name) {
            Some(file) => items.extend(public_module_items(&name, &file)),
            None => items.push(name),
        }
    }
    for module in public_modules() {
        let inside = public_module_items(&module, &root().join(format!("src/{module}.rs")));
        assert!(!inside.is_empty(), "no public items read in {module}");
        items.extend(inside);
    }
    assert!(items.len() > 30, "too few public items read: {items:?}");
    assert!(
        items.len() <= 40,
        "the public API has {} items (at most 40): {items:?}",
        items.len()
    );
}
