//! ARCHITECTURE.md tells the truth and stays true: every path it names
//! exists, every type, function and module it names is declared in the
//! code, and every invariant it states names the test that holds it,
//! which exists.

use std::collections::BTreeSet;
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
    const ROOTS: [&str; 10] = [
        "src/",
        "tests/",
        "benches/",
        "fuzz/",
        "fixtures/",
        "python/",
        "node/",
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

/// The backquoted names of the list that follows `marker` in `text`, to the
/// first `.` outside backquotes, wherever the lines are wrapped.
fn list_after(text: &str, marker: &str) -> Vec<String> {
    // Lines are wrapped anywhere: any run of white space is one space.
    let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
    let at = text
        .find(marker)
        .unwrap_or_else(|| panic!("ARCHITECTURE.md says `{marker}` nowhere"));
    let rest = &text[at + marker.len()..];
    let mut quoted = false;
    let end = rest
        .char_indices()
        .find(|&(_, c)| {
            quoted ^= c == '`';
            c == '.' && !quoted
        })
        .map_or(rest.len(), |(i, _)| i);
    let names: Vec<String> = rest[..end]
        .split('`')
        .skip(1)
        .step_by(2)
        .map(str::to_owned)
        .collect();
    assert!(!names.is_empty(), "no names listed after `{marker}`");
    names
}

/// What the document lists against what the code has: both ways, with
/// the names listed twice.
fn same(what: &str, listed: &[String], code: &BTreeSet<String>) {
    let set: BTreeSet<String> = listed.iter().cloned().collect();
    let missing: Vec<&String> = code.difference(&set).collect();
    let extra: Vec<&String> = set.difference(code).collect();
    assert!(
        missing.is_empty() && extra.is_empty() && set.len() == listed.len(),
        "{what}: not listed {missing:?}; listed, not in the code {extra:?}; listed {listed:?}"
    );
}

fn cargo_toml() -> String {
    std::fs::read_to_string(root().join("Cargo.toml")).expect("reading Cargo.toml")
}

/// The dependencies the `cli` feature turns on: its `dep:` entries.
fn cli_feature_dependencies() -> BTreeSet<String> {
    let toml = cargo_toml();
    let list = toml
        .split("\ncli = [")
        .nth(1)
        .and_then(|rest| rest.split(']').next())
        .expect("a `cli = [...]` feature in Cargo.toml");
    list.lines()
        .map(str::trim)
        .filter(|line| !line.starts_with('#'))
        .flat_map(|line| line.split('"').skip(1).step_by(2))
        .filter_map(|entry| entry.strip_prefix("dep:"))
        .map(str::to_owned)
        .collect()
}

/// The dependencies of the library itself: every one of a dependencies
/// table of Cargo.toml (for any target, not dev- or build-) that is not
/// optional.
fn library_dependencies() -> BTreeSet<String> {
    let mut deps = BTreeSet::new();
    let mut table = String::new();
    for line in cargo_toml().lines().map(str::trim) {
        if line.starts_with('[') {
            table = line.to_owned();
            continue;
        }
        let runtime = table.ends_with("dependencies]")
            && !table.contains("dev-dependencies")
            && !table.contains("build-dependencies");
        if let Some((name, spec)) = line.split_once('=')
            && runtime
            && !line.starts_with('#')
            && !spec.contains("optional = true")
        {
            deps.insert(name.trim().to_owned());
        }
    }
    deps
}

#[test]
fn the_dependencies_it_lists_are_those_of_cargo_toml() {
    let text = architecture();
    let cli = cli_feature_dependencies();
    assert!(cli.len() > 3, "too few read of the cli feature: {cli:?}");
    same(
        "the `cli` feature's dependencies",
        &list_after(&text, "The `cli` feature brings"),
        &cli,
    );
    let library = library_dependencies();
    assert!(
        library.len() > 10,
        "too few library dependencies read: {library:?}"
    );
    same(
        "the library's dependencies",
        &list_after(&text, "The library itself depends on"),
        &library,
    );
}

/// The names a `use` tree brings in (`a::{b, c::d as e}` gives `b`, `e`).
fn use_leaves(tree: &str) -> Vec<String> {
    tree.split(['{', '}', ',', ';'])
        .map(str::trim)
        .filter(|piece| !piece.is_empty() && !piece.ends_with("::"))
        .map(|piece| {
            let piece = piece.rsplit(" as ").next().unwrap_or(piece);
            piece.rsplit("::").next().unwrap_or(piece).trim().to_owned()
        })
        .collect()
}

/// The API: what `src/lib.rs` declares or re-exports `pub` at the crate
/// root, leaving out what it makes public only under `_internal`.
fn api_items() -> BTreeSet<String> {
    let lib = std::fs::read_to_string(root().join("src/lib.rs")).expect("reading src/lib.rs");
    let mut items = BTreeSet::new();
    let (mut internal, mut statement, mut skipping) = (false, None::<String>, false);
    for line in lib.lines() {
        if skipping || statement.is_some() {
            if let Some(text) = statement.as_mut() {
                text.push_str(line);
            }
            if line.contains(';') {
                skipping = false;
                if let Some(text) = statement.take() {
                    items.extend(use_leaves(&text));
                }
            }
            continue;
        }
        if let Some(tree) = line.strip_prefix("pub use ") {
            match (internal, tree.contains(';')) {
                (true, done) => skipping = !done,
                (false, true) => items.extend(use_leaves(tree.trim_end_matches(';'))),
                (false, false) => statement = Some(tree.to_owned()),
            }
        }
        for keyword in [
            "mod", "fn", "struct", "enum", "trait", "type", "const", "static",
        ] {
            if let Some(rest) = line.strip_prefix(&format!("pub {keyword} "))
                && !internal
            {
                let name = rest.split(|c: char| !(c.is_alphanumeric() || c == '_'));
                items.extend(name.take(1).map(str::to_owned));
            }
        }
        let trimmed = line.trim();
        if !trimmed.is_empty() && !trimmed.starts_with("//") {
            internal = trimmed == "#[cfg(feature = \"_internal\")]";
        }
    }
    items
}

#[test]
fn the_api_it_lists_is_the_crate_root() {
    let items = api_items();
    assert!(
        items.contains("Rewriter") && items.len() > 20 && !items.contains("Options"),
        "the crate root's items misread: {items:?}"
    );
    same(
        "the API",
        &list_after(
            &architecture(),
            "The crate root is the API, at most 40 items:",
        ),
        &items,
    );
}

/// The settings of a `Rewriter`: each `pub fn NAME(mut self` of an
/// `impl Rewriter` block of the library.
fn rewriter_settings() -> BTreeSet<String> {
    let mut settings = BTreeSet::new();
    for (file, bytes) in crate::files_under(&root().join("src")) {
        if file.starts_with("cli/") || file == "main.rs" || !file.ends_with(".rs") {
            continue;
        }
        let text = String::from_utf8_lossy(&bytes);
        let mut inside = false;
        for line in text.lines() {
            if line.starts_with("impl Rewriter ") {
                inside = true;
            } else if line.starts_with('}') {
                inside = false;
            } else if let Some(rest) = line.trim_start().strip_prefix("pub fn ")
                && inside
                && let Some((name, args)) = rest.split_once('(')
                && args.starts_with("mut self")
            {
                settings.insert(name.to_owned());
            }
        }
    }
    settings
}

#[test]
fn the_rewriter_settings_it_lists_are_its_builder_methods() {
    let settings = rewriter_settings();
    assert!(settings.contains("rules"), "no settings read: {settings:?}");
    same(
        "the Rewriter's settings",
        &list_after(
            &architecture(),
            "holds the settings, each a builder method:",
        ),
        &settings,
    );
}

/// The functions the Python package's native module exports: those of
/// `python/src` marked `#[pyfunction]` that its module registers (by a
/// `#[pymodule_export]` use or `wrap_pyfunction!`).
fn python_functions() -> BTreeSet<String> {
    let mut functions = BTreeSet::new();
    let mut registered = BTreeSet::new();
    for (_, bytes) in crate::files_under(&root().join("python/src")) {
        let text = String::from_utf8_lossy(&bytes);
        let lines: Vec<&str> = text.lines().map(str::trim).collect();
        for (at, line) in lines.iter().enumerate() {
            if *line == "#[pyfunction]" {
                let name = lines[at + 1..]
                    .iter()
                    .find_map(|l| l.strip_prefix("pub fn ").or_else(|| l.strip_prefix("fn ")));
                let name = name.and_then(|rest| rest.split(['(', '<']).next());
                functions.extend(name.map(str::to_owned));
            }
            if *line == "#[pymodule_export]" {
                let tree: String = lines[at + 1..]
                    .iter()
                    .take_while(|l| !l.starts_with('#'))
                    .copied()
                    .collect::<Vec<_>>()
                    .join(" ");
                let tree = tree.split(';').next().unwrap_or_default();
                registered.extend(use_leaves(tree.trim_start_matches("use ")));
            }
        }
        for (at, _) in text.match_indices("wrap_pyfunction!(") {
            let rest = &text[at + "wrap_pyfunction!(".len()..];
            let name = rest.split([',', ')']).next().unwrap_or_default();
            registered.extend(use_leaves(name));
        }
    }
    functions.intersection(&registered).cloned().collect()
}

#[test]
fn the_python_functions_it_lists_are_those_exported() {
    let functions = python_functions();
    assert!(functions.len() > 3, "too few functions read: {functions:?}");
    same(
        "the Python package's functions",
        &list_after(&architecture(), "The functions it exposes:"),
        &functions,
    );
}

/// The library's top-level modules, from the files: each `src/NAME.rs`
/// and `src/NAME/` but the crate roots and the binary's own modules (those
/// `src/main.rs` declares).
fn library_modules() -> BTreeSet<String> {
    let main = std::fs::read_to_string(root().join("src/main.rs")).expect("reading src/main.rs");
    let binary: Vec<&str> = main
        .lines()
        .filter_map(|line| line.trim().strip_prefix("mod "))
        .map(|name| name.trim_end_matches(';').trim())
        .collect();
    crate::files_under(&root().join("src"))
        .into_iter()
        .filter(|(file, _)| file.ends_with(".rs"))
        .filter_map(|(file, _)| {
            let top = file.split('/').next()?.trim_end_matches(".rs").to_owned();
            (top != "lib" && top != "main" && !binary.contains(&top.as_str())).then_some(top)
        })
        .collect()
}

/// The arrows between the library's top-level modules: one where a file
/// of a module names another (through `crate::`, `super::` or a
/// re-export of the crate root), from the module graph of the tidy check.
fn module_arrows() -> BTreeSet<(String, String)> {
    let top = |module: &str| module.split("::").next().unwrap_or(module).to_owned();
    let mut arrows = BTreeSet::new();
    for (from, edges) in crate::tidy::module_graph() {
        for to in edges.keys() {
            if top(&from) != top(to) {
                arrows.insert((top(&from), top(to)));
            }
        }
    }
    arrows
}

/// The module picture of ARCHITECTURE.md: the fenced block under its
/// heading, each line `module -> used, used` (nothing after the arrow for
/// a module that uses none).
fn module_picture(text: &str) -> (Vec<String>, BTreeSet<(String, String)>) {
    let block = text
        .split("\n## Module imports\n")
        .nth(1)
        .and_then(|rest| rest.split("```").nth(1))
        .expect("a fenced block under `## Module imports`");
    let (mut modules, mut arrows) = (Vec::new(), BTreeSet::new());
    for line in block.lines().skip(1).filter(|l| !l.trim().is_empty()) {
        let (from, to) = line
            .split_once("->")
            .unwrap_or_else(|| panic!("not `module -> modules`: {line}"));
        let from = from.trim().to_owned();
        for used in to.split(',').map(str::trim).filter(|t| !t.is_empty()) {
            arrows.insert((from.clone(), used.to_owned()));
        }
        modules.push(from);
    }
    (modules, arrows)
}

#[test]
fn the_module_picture_is_the_import_graph() {
    let modules = library_modules();
    assert!(
        modules.contains("html") && modules.contains("rewriter") && !modules.contains("cli"),
        "the library's modules misread: {modules:?}"
    );
    let (listed, drawn) = module_picture(&architecture());
    let arrows = module_arrows();
    assert!(arrows.len() > 20, "too few arrows read: {arrows:?}");
    let missing: Vec<String> = arrows
        .difference(&drawn)
        .map(|(a, b)| format!("{a} -> {b}"))
        .collect();
    let extra: Vec<String> = drawn
        .difference(&arrows)
        .map(|(a, b)| format!("{a} -> {b}"))
        .collect();
    let mut picture = String::new();
    for module in &modules {
        let used: Vec<&str> = arrows
            .iter()
            .filter(|(from, _)| from == module)
            .map(|(_, to)| to.as_str())
            .collect();
        picture.push_str(&format!("{module} -> {}\n", used.join(", ")));
    }
    assert!(
        missing.is_empty() && extra.is_empty(),
        "arrows not drawn {missing:?}; drawn, not in the code {extra:?}; the code's:\n{picture}"
    );
    same("the modules of the picture", &listed, &modules);
}

/// The texts ARCHITECTURE.md quotes in double quotes outside backquotes
/// (the library's own messages), white space made one space.
fn quoted_messages(text: &str) -> Vec<String> {
    let prose: String = text.split('`').step_by(2).collect::<Vec<_>>().join(" ");
    let prose = prose.split_whitespace().collect::<Vec<_>>().join(" ");
    prose
        .split('"')
        .skip(1)
        .step_by(2)
        .map(str::to_owned)
        .collect()
}

#[test]
fn every_message_it_quotes_is_the_library_s() {
    let mut library = String::new();
    for (file, bytes) in crate::files_under(&root().join("src")) {
        if file.ends_with(".rs") && !file.starts_with("cli/") && file != "main.rs" {
            // A string continued with `\` at a line's end goes on after
            // the next line's indentation.
            library.push_str(&String::from_utf8_lossy(&bytes).replace("\\\n", " "));
        }
    }
    let library = library.split_whitespace().collect::<Vec<_>>().join(" ");
    let messages = quoted_messages(&architecture());
    assert!(!messages.is_empty(), "no message quoted");
    let absent: Vec<&String> = messages.iter().filter(|m| !library.contains(*m)).collect();
    assert!(
        absent.is_empty(),
        "quoted, but no message of the library says it: {absent:?}"
    );
}
