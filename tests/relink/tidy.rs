//! Tidy checks over the source itself, as rust-analyzer's tidy tests keep
//! its own: no module names another that names it back (an import cycle
//! between files), no function over 100 lines, and no clock read where it
//! could change the output. All read the code roughly (comments and
//! literals blanked, no parser): enough for what they check.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Edges of the module graph left out of the cycle check, each a known
/// cycle to break: (module, module it names).
const ALLOWED_EDGES: &[(&str, &str)] = &[];

/// Functions allowed over [`MAX_FN_LINES`] for now, each to be split:
/// (file, function name).
const LONG_FNS: &[(&str, &str)] = &[];

/// The clock reads the library and command line may make, none of which
/// reaches an output's bytes: (file, word). The progress bar wakes on a
/// timer to redraw. (The WAT writer dates its records by their source
/// records, never by the clock.)
const CLOCK_READS: &[(&str, &str)] = &[
    ("src/cli/progress.rs", "park_timeout"),
    ("src/cli/progress.rs", "std::time"),
];

/// The longest a function may be, from its `fn` to its closing brace.
const MAX_FN_LINES: usize = 100;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Every `.rs` file under `dir`, sorted.
fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut dirs = vec![dir.to_path_buf()];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}

/// `path` relative to the crate, with `/` between its parts.
fn relative(path: &Path) -> String {
    let rel = path.strip_prefix(root()).unwrap();
    rel.to_string_lossy().replace('\\', "/")
}

fn is_ident(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// A comment or literal starting at `i`, if one does: the range to blank
/// (its inside) and where it ends. Raw strings, strings, byte strings and
/// character literals (not lifetimes); line and (nested) block comments.
fn literal_at(b: &[u8], i: usize) -> Option<(usize, usize, usize)> {
    let rest = &b[i..];
    let after_ident = i > 0 && is_ident(b[i - 1]);
    if rest.starts_with(b"//") {
        let end = memchr::memchr(b'\n', rest).map_or(b.len(), |n| i + n);
        return Some((i, end, end));
    }
    if rest.starts_with(b"/*") {
        let (mut depth, mut j) = (0, i);
        while j < b.len() {
            if b[j..].starts_with(b"/*") {
                depth += 1;
                j += 2;
            } else if b[j..].starts_with(b"*/") {
                depth -= 1;
                j += 2;
                if depth == 0 {
                    break;
                }
            } else {
                j += 1;
            }
        }
        return Some((i, j, j));
    }
    let raw = rest.strip_prefix(b"br").or_else(|| rest.strip_prefix(b"r"));
    if let Some(raw) = raw.filter(|_| !after_ident) {
        let hashes = raw.iter().take_while(|&&c| c == b'#').count();
        if raw.get(hashes) == Some(&b'"') {
            let open = i + (rest.len() - raw.len()) + hashes + 1;
            let mut close = vec![b'"'];
            close.extend(std::iter::repeat_n(b'#', hashes));
            let end = b[open..]
                .windows(close.len())
                .position(|w| w == close.as_slice())
                .map_or(b.len(), |n| open + n);
            return Some((open, end, (end + close.len()).min(b.len())));
        }
    }
    match rest[0] {
        b'"' => {
            let mut j = i + 1;
            while j < b.len() && b[j] != b'"' {
                j += if b[j] == b'\\' { 2 } else { 1 };
            }
            Some((i + 1, j.min(b.len()), (j + 1).min(b.len())))
        }
        b'\'' if rest.get(1) == Some(&b'\\') => {
            let end = memchr::memchr(b'\'', &b[(i + 3).min(b.len())..]);
            let end = end.map_or(b.len(), |n| i + 3 + n);
            Some((i + 1, end, (end + 1).min(b.len())))
        }
        b'\'' => {
            let len = std::str::from_utf8(&rest[1..rest.len().min(5)])
                .ok()
                .or_else(|| std::str::from_utf8(&rest[1..2]).ok())
                .and_then(|s| s.chars().next())
                .map_or(1, char::len_utf8);
            (rest.get(1 + len) == Some(&b'\'')).then_some((i + 1, i + 1 + len, i + 2 + len))
        }
        _ => None,
    }
}

/// `src` with comments and the insides of literals blanked (lines kept),
/// so that what is left is code.
fn code_of(src: &str) -> Vec<u8> {
    let b = src.as_bytes();
    let mut out = b.to_vec();
    let mut i = 0;
    while i < b.len() {
        match literal_at(b, i) {
            Some((start, end, next)) => {
                for c in &mut out[start..end] {
                    if *c != b'\n' {
                        *c = b' ';
                    }
                }
                i = next.max(i + 1);
            }
            None => i += 1,
        }
    }
    out
}

/// The identifier at `i`, if one starts there.
fn ident_at(b: &[u8], i: usize) -> Option<&str> {
    if i > 0 && (is_ident(b[i - 1]) || b[i - 1] == b'$') {
        return None;
    }
    let len = b[i..].iter().take_while(|&&c| is_ident(c)).count();
    let word = std::str::from_utf8(&b[i..i + len]).ok()?;
    (len > 0 && !word.as_bytes()[0].is_ascii_digit()).then_some(word)
}

fn skip_space(b: &[u8], mut i: usize) -> usize {
    while i < b.len() && b[i].is_ascii_whitespace() {
        i += 1;
    }
    i
}

/// The paths a path starting at `i` names (`a::b`, `a::{b, c::d}`): each
/// its segments, `prefix` first.
fn paths_at(b: &[u8], mut i: usize, prefix: &[String]) -> Vec<Vec<String>> {
    let mut segments = prefix.to_vec();
    loop {
        i = skip_space(b, i);
        if b.get(i) == Some(&b'{') {
            let mut found = Vec::new();
            let mut depth = 0;
            let mut item = i + 1;
            for j in i..b.len() {
                match b[j] {
                    b'{' => depth += 1,
                    b'}' | b',' if depth == 1 => {
                        found.extend(paths_at(b, item, &segments));
                        item = j + 1;
                        if b[j] == b'}' {
                            return found;
                        }
                    }
                    b'}' => depth -= 1,
                    _ => {}
                }
            }
            return found;
        }
        let Some(word) = ident_at(b, i) else {
            return vec![segments];
        };
        segments.push(word.to_string());
        i += word.len();
        if !b[i..].starts_with(b"::") {
            return vec![segments];
        }
        i += 2;
    }
}

/// The module a file under `src/` is (`html/tree.rs` is `html::tree`),
/// with `None` for the crate roots (`lib.rs` and `main.rs`, which declare
/// modules and re-export their items).
fn module_of(file: &Path) -> Option<String> {
    let rel = file.strip_prefix(root().join("src")).unwrap();
    let rel = rel.with_extension("");
    let mut parts: Vec<String> = rel.iter().map(|p| p.to_string_lossy().into()).collect();
    if parts.last().is_some_and(|p| p == "mod") {
        parts.pop();
    }
    match parts.as_slice() {
        [one] if one == "lib" || one == "main" => None,
        _ => Some(parts.join("::")),
    }
}

/// The module graph of `src/`: each module, the modules it names, and
/// where it first names each (`file:line`).
pub(crate) type Graph = BTreeMap<String, BTreeMap<String, String>>;

/// The items `src/lib.rs` re-exports, by name: the path of each, so that
/// `crate::Error` names the module `Error` comes from.
fn root_exports() -> BTreeMap<String, Vec<String>> {
    let code = code_of(&std::fs::read_to_string(root().join("src/lib.rs")).unwrap());
    let mut exports = BTreeMap::new();
    let mut from = 0;
    while let Some(n) = memchr::memmem::find(&code[from..], b"pub use ") {
        from += n + b"pub use ".len();
        for path in paths_at(&code, from, &[]) {
            if let Some(name) = path.last() {
                exports.insert(name.clone(), path.clone());
            }
        }
    }
    exports
}

/// The file module a path written in module `at` names, if any: the
/// longest of its prefixes that is a module of `modules`.
fn target(
    modules: &BTreeSet<String>,
    exports: Option<&BTreeMap<String, Vec<String>>>,
    at: &[String],
    path: &[String],
) -> Option<String> {
    let (first, mut rest) = path.split_first()?;
    let mut full: Vec<String> = match first.as_str() {
        "crate" => Vec::new(),
        "self" => at.to_vec(),
        "super" => at[..at.len().saturating_sub(1)].to_vec(),
        _ => return None,
    };
    while let Some((_, r)) = rest.split_first().filter(|(s, _)| *s == "super") {
        full.pop();
        rest = r;
    }
    full.extend(rest.iter().cloned());
    if first == "crate"
        && let Some(export) = full.first().and_then(|f| exports?.get(f))
        && !modules.contains(&full[0])
    {
        full.splice(0..1, export.iter().cloned());
    }
    (1..=full.len())
        .rev()
        .map(|k| full[..k].join("::"))
        .find(|m| modules.contains(m))
}

/// Every path starting with `crate::`, `super::` or `self::` in `code`
/// (the file of `module`): the module it is written in (inline modules
/// such as `mod tests { ... }` count), the path, and its line.
fn paths_in(code: &[u8], module: &str) -> Vec<(Vec<String>, Vec<String>, usize)> {
    let mut at: Vec<String> = module.split("::").map(String::from).collect();
    let file_depth = at.len();
    let (mut found, mut inline, mut depth, mut line) = (Vec::new(), Vec::new(), 0, 1);
    let mut i = 0;
    while i < code.len() {
        if let Some(word) = ident_at(code, i) {
            let next = skip_space(code, i + word.len());
            if word == "mod"
                && let Some(name) = ident_at(code, next)
                && code.get(skip_space(code, next + name.len())) == Some(&b'{')
            {
                at.push(name.to_string());
                inline.push(depth);
            } else if matches!(word, "crate" | "super" | "self")
                && code[i + word.len()..].starts_with(b"::")
            {
                for path in paths_at(code, i, &[]) {
                    found.push((at.clone(), path, line));
                }
            }
            i += word.len();
            continue;
        }
        match code[i] {
            b'\n' => line += 1,
            b'{' => depth += 1,
            b'}' => {
                depth -= 1;
                if inline.last() == Some(&depth) {
                    inline.pop();
                    at.truncate(file_depth + inline.len());
                }
            }
            _ => {}
        }
        i += 1;
    }
    found
}

/// The module graph of `src/`: an edge from each module to each other
/// module it names, except its own ancestors (a module may use what the
/// modules holding it declare), and from each module to its submodules.
pub(crate) fn module_graph() -> Graph {
    let files: Vec<(String, PathBuf)> = rust_files(&root().join("src"))
        .into_iter()
        .filter_map(|f| Some((module_of(&f)?, f)))
        .collect();
    let modules: BTreeSet<String> = files.iter().map(|(m, _)| m.clone()).collect();
    let exports = root_exports();
    // The binary's own modules (those `src/main.rs` declares) do not see
    // the library's re-exports as `crate::`.
    let main = code_of(&std::fs::read_to_string(root().join("src/main.rs")).unwrap());
    let binary: Vec<String> = (0..main.len())
        .filter(|&i| ident_at(&main, i) == Some("mod"))
        .filter_map(|i| ident_at(&main, skip_space(&main, i + 3)))
        .map(String::from)
        .collect();
    let mut graph = Graph::new();
    for (module, file) in &files {
        let code = code_of(&std::fs::read_to_string(file).unwrap());
        let top = module.split("::").next().unwrap().to_string();
        let exports = (!binary.contains(&top)).then_some(&exports);
        for (at, path, line) in paths_in(&code, module) {
            let Some(to) = target(&modules, exports, &at, &path) else {
                continue;
            };
            if to != *module && !module.starts_with(&format!("{to}::")) {
                let place = format!("{}:{line}", relative(file));
                graph
                    .entry(module.clone())
                    .or_default()
                    .entry(to)
                    .or_insert(place);
            }
        }
        if let Some((parent, _)) = module.rsplit_once("::")
            && modules.contains(parent)
        {
            let edges = graph.entry(parent.to_string()).or_default();
            edges
                .entry(module.clone())
                .or_insert_with(|| "(submodule)".into());
        }
    }
    graph
}

/// The cycles a depth-first search of `graph` meets, each as the modules
/// along it with where each names the next.
fn cycles(graph: &Graph) -> Vec<String> {
    fn visit<'g>(
        graph: &'g Graph,
        node: &'g str,
        stack: &mut Vec<&'g str>,
        done: &mut BTreeSet<&'g str>,
        found: &mut Vec<String>,
    ) {
        stack.push(node);
        for next in graph.get(node).into_iter().flat_map(|e| e.keys()) {
            if let Some(start) = stack.iter().position(|&m| m == next) {
                let mut cycle = String::new();
                for pair in stack[start..]
                    .iter()
                    .chain([&next.as_str()])
                    .collect::<Vec<_>>()
                    .windows(2)
                {
                    let at = &graph[*pair[0]][*pair[1]];
                    cycle.push_str(&format!("{} -> {} ({at}); ", pair[0], pair[1]));
                }
                found.push(cycle);
            } else if !done.contains(next.as_str()) {
                visit(graph, next, stack, done, found);
            }
        }
        stack.pop();
        done.insert(node);
    }
    let (mut stack, mut done, mut found) = (Vec::new(), BTreeSet::new(), Vec::new());
    for node in graph.keys() {
        if !done.contains(node.as_str()) {
            visit(graph, node, &mut stack, &mut done, &mut found);
        }
    }
    found
}

#[test]
fn no_module_names_one_that_names_it_back() {
    let mut graph = module_graph();
    for (from, to) in ALLOWED_EDGES {
        let removed = graph.get_mut(*from).and_then(|e| e.remove(*to));
        assert!(
            removed.is_some(),
            "{from} -> {to} is gone: drop it from ALLOWED_EDGES"
        );
    }
    let found = cycles(&graph);
    assert!(found.is_empty(), "import cycles:\n{}", found.join("\n"));
}

#[test]
fn the_cycle_check_finds_a_cycle_and_reads_grouped_paths() {
    let code = code_of("use super::{a, b::{c, d}};\n// crate::x\nfn f() { \"super::y\"; }");
    let paths = paths_in(&code, "m::n");
    let written: Vec<String> = paths.iter().map(|(_, p, _)| p.join("::")).collect();
    assert_eq!(written, ["super::a", "super::b::c", "super::b::d"]);
    let modules: BTreeSet<String> = ["m", "m::a", "m::b", "m::b::c"].map(String::from).into();
    let to = |p: &[String]| target(&modules, None, &paths[0].0, p);
    assert_eq!(to(&paths[1].1).as_deref(), Some("m::b::c"));
    assert_eq!(to(&paths[2].1).as_deref(), Some("m::b"));
    let graph: Graph = [("a", "b"), ("b", "c"), ("c", "a"), ("c", "d")]
        .iter()
        .fold(Graph::new(), |mut g, (from, to)| {
            g.entry(from.to_string())
                .or_default()
                .insert(to.to_string(), "x".into());
            g
        });
    assert_eq!(cycles(&graph), ["a -> b (x); b -> c (x); c -> a (x); "]);
}

/// Each function with a body in `code`: its name, the line of its `fn`,
/// and how many lines it spans, to its closing brace.
fn functions(code: &[u8]) -> Vec<(String, usize, usize)> {
    let newlines: Vec<usize> = memchr::memchr_iter(b'\n', code).collect();
    let line_at = |i: usize| newlines.partition_point(|&n| n < i) + 1;
    let mut found = Vec::new();
    for i in 0..code.len() {
        if ident_at(code, i) != Some("fn") {
            continue;
        }
        let at = skip_space(code, i + 2);
        let Some(name) = ident_at(code, at).filter(|_| at > i + 2) else {
            continue;
        };
        // The body: the first `{` outside brackets, unless a `;` ends the
        // declaration first.
        let mut depth = 0;
        let open = code[at..].iter().position(|&c| {
            match c {
                b'(' | b'[' => depth += 1,
                b')' | b']' => depth -= 1,
                _ => {}
            }
            depth == 0 && (c == b'{' || c == b';')
        });
        let Some(open) = open.map(|n| at + n).filter(|&o| code[o] == b'{') else {
            continue;
        };
        let mut depth = 0;
        let close = code[open..].iter().position(|&c| {
            match c {
                b'{' => depth += 1,
                b'}' => depth -= 1,
                _ => {}
            }
            depth == 0
        });
        let end = line_at(close.map_or(code.len(), |n| open + n));
        found.push((name.to_string(), line_at(i), end - line_at(i) + 1));
    }
    found
}

/// Every function of `src/`, `tests/` and `benches/` over
/// [`MAX_FN_LINES`]: its file, name, line and length.
fn long_functions() -> Vec<(String, String, usize, usize)> {
    let mut long = Vec::new();
    for dir in ["src", "tests", "benches"] {
        for file in rust_files(&root().join(dir)) {
            let code = code_of(&std::fs::read_to_string(&file).unwrap());
            for (name, line, lines) in functions(&code) {
                if lines > MAX_FN_LINES {
                    long.push((relative(&file), name, line, lines));
                }
            }
        }
    }
    long
}

#[test]
fn no_function_is_over_100_lines() {
    let long = long_functions();
    let found: Vec<String> = long
        .iter()
        .filter(|(file, name, ..)| !LONG_FNS.contains(&(file.as_str(), name.as_str())))
        .map(|(file, name, line, lines)| format!("{file}:{line}: fn {name}, {lines} lines"))
        .collect();
    assert!(
        found.is_empty(),
        "functions over {MAX_FN_LINES} lines:\n{}",
        found.join("\n")
    );
    for (file, name) in LONG_FNS {
        let still = long.iter().any(|(f, n, ..)| f == file && n == name);
        assert!(
            still,
            "{file}: fn {name} is short now: drop it from LONG_FNS"
        );
    }
}

#[test]
fn the_length_check_counts_from_fn_to_its_brace() {
    let src = "fn a() -> [u8; 2] {\n    let s = \"}\";\n    '}';\n}\nfn b();\n// fn c() {}\nfn d<'a>(x: &'a str) { }";
    let found = functions(&code_of(src));
    let want = [("a", 1, 4), ("d", 7, 1)].map(|(n, l, c)| (n.to_string(), l, c));
    assert_eq!(found, want);
}

/// The words of `code` (comments and literals blanked) that read a clock or
/// wait on one, each with its line: the clock types and `std::time`, and
/// any name that speaks of a deadline, a timeout or the time elapsed.
fn clock_reads(code: &[u8]) -> Vec<(String, usize)> {
    let mut found = Vec::new();
    let mut line = 1;
    for i in 0..code.len() {
        if code[i] == b'\n' {
            line += 1;
        }
        if code[i..].starts_with(b"std::time") && (i == 0 || !is_ident(code[i - 1])) {
            found.push(("std::time".to_owned(), line));
        }
        let Some(word) = ident_at(code, i) else {
            continue;
        };
        let lower = word.to_ascii_lowercase();
        let clock = matches!(word, "Instant" | "SystemTime" | "UNIX_EPOCH")
            || ["deadline", "timeout", "elapsed"]
                .iter()
                .any(|w| lower.contains(w));
        if clock {
            found.push((word.to_owned(), line));
        }
    }
    found
}

/// The output depends on the input and the options alone: no clock read in
/// `src/` but those of [`CLOCK_READS`] (a diff under a deadline once made
/// the bytes of escaped HTML in a feed depend on the load).
#[test]
fn no_clock_is_read_on_the_output_path() {
    let mut unlisted = Vec::new();
    let mut listed = BTreeSet::new();
    for file in rust_files(&root().join("src")) {
        let name = relative(&file);
        let code = code_of(&std::fs::read_to_string(&file).unwrap());
        for (word, line) in clock_reads(&code) {
            let allowed = CLOCK_READS.iter().find(|(f, w)| *f == name && *w == word);
            match allowed {
                Some(entry) => {
                    listed.insert(*entry);
                }
                None => unlisted.push(format!("{name}:{line}: {word}")),
            }
        }
    }
    assert!(
        unlisted.is_empty(),
        "clock reads on the output path:\n{}",
        unlisted.join("\n")
    );
    for entry in CLOCK_READS {
        assert!(
            listed.contains(entry),
            "{entry:?} is gone: drop it from CLOCK_READS"
        );
    }
}

#[test]
fn the_clock_check_finds_deadlines_and_clock_types() {
    let src = "use std::time::{Duration, Instant};\n// Instant::now()\nlet s = \"SystemTime\";\n\
               diff_deadline(Some(Instant::now() + DIFF_TIME));\nrx.recv_timeout(d);";
    let found = clock_reads(&code_of(src));
    let want = [
        ("std::time", 1),
        ("Instant", 1),
        ("diff_deadline", 4),
        ("Instant", 4),
        ("recv_timeout", 5),
    ]
    .map(|(w, l)| (w.to_owned(), l));
    assert_eq!(found, want);
}
