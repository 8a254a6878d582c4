//! Jupyter notebooks: real ones from public repositories (listed with their
//! licences in `fixtures/notebooks/MANIFEST`) rewritten and checked by
//! nbformat and nbconvert, and made-up ones for what the real ones do not
//! show: the two ways of writing a source, escapes, what is left alone,
//! broken JSON, and shapes made to be slow.

use std::process::Command;

use relink::{Error, Kind, Rewriter, Rules, WarningKind};
use serde_json::Value;

use crate::fixture;

/// The URL each real notebook is read as retrieved from: a page beside it.
fn base_of(name: &str) -> String {
    format!("https://example.org/repo/docs/{name}")
}

fn rewrite<'a>(notebook: &'a str, base: &str) -> relink::Rewritten<'a> {
    Rewriter::new()
        .kind(Kind::Notebook)
        .retrieved_from(base)
        .rewrite(notebook.as_bytes())
        .unwrap()
}

/// The output of `notebook` rewritten against `http://h/a/b/nb.ipynb`.
fn out(notebook: &str) -> String {
    let done = rewrite(notebook, "http://h/a/b/nb.ipynb");
    String::from_utf8(done.bytes().to_vec()).unwrap()
}

/// A notebook of `cells`, each a JSON value written out.
fn notebook(cells: &[&str]) -> String {
    format!(
        "{{\n \"cells\": [\n  {}\n ],\n \"metadata\": {{}},\n \"nbformat\": 4,\n \"nbformat_minor\": 5\n}}\n",
        cells.join(",\n  ")
    )
}

fn markdown(source: &str) -> String {
    format!("{{\"cell_type\": \"markdown\", \"metadata\": {{}}, \"source\": {source}}}")
}

#[test]
fn a_notebook_is_named_by_its_extension_and_its_type() {
    assert_eq!(
        Kind::from_name("Analysis.IPYNB".as_ref()),
        Some(Kind::Notebook)
    );
    assert_eq!(Kind::named("notebook"), Some(Kind::Notebook));
    assert_eq!(Kind::Notebook.entry().extensions, ["ipynb"]);
    let cell = markdown(r#""[a](x.md)""#);
    let page = notebook(&[&cell]);
    let named = Rewriter::new()
        .retrieved_from("http://h/nb.ipynb")
        .run(
            relink::Input::bytes(page.as_bytes()).named("nb.ipynb"),
            relink::Output::Nowhere,
            &mut |_| Ok(()),
        )
        .unwrap();
    assert_eq!(named.kind, Some(Kind::Notebook));
    assert_eq!(named.rewritten, 1);
}

/// A source written as one string or as a list of lines is read as the
/// one text nbformat joins: a reference definition on a later line serves
/// a link above it, and an HTML block over lines is one element.
#[test]
fn a_source_of_lines_is_read_as_the_text_they_join_into() {
    let lines = [
        "See [the guide][g] and ![logo](img/logo.png).\n",
        "<a\n",
        "  href=\"../up.html\">up</a>\n",
        "\n",
        "[g]: docs/guide.md\n",
    ];
    let joined = serde_json::to_string(&lines.concat()).unwrap();
    let listed = serde_json::to_string(&lines).unwrap();
    let expected = [
        "http://h/a/b/docs/guide.md",
        "http://h/a/b/img/logo.png",
        "http://h/a/up.html",
    ];
    for source in [joined, listed] {
        let page = notebook(&[&markdown(&source)]);
        let done = rewrite(&page, "http://h/a/b/nb.ipynb");
        let mut resolved: Vec<&str> = done.links().iter().map(|l| &*l.resolved).collect();
        resolved.sort_unstable();
        assert_eq!(resolved, expected, "{source}");
        let text: Value = serde_json::from_slice(done.bytes()).unwrap();
        let source = &text["cells"][0]["source"];
        let source = match source {
            Value::String(s) => s.clone(),
            Value::Array(lines) => lines.iter().map(|l| l.as_str().unwrap()).collect(),
            _ => panic!("{source}"),
        };
        assert!(source.contains("(http://h/a/b/img/logo.png)"), "{source}");
        assert!(source.contains("[g]: http://h/a/b/docs/guide.md\n"));
        assert!(source.contains("href=\"http://h/a/up.html\""));
    }
}

/// Links are placed in the file: the line and column of the JSON string
/// where each is written.
#[test]
fn links_are_placed_at_their_line_and_column_in_the_file() {
    let cell = markdown("[\n    \"# T\\n\",\n    \"A [b](c.md)\"\n   ]");
    let page = notebook(&[&cell]);
    let done = rewrite(&page, "http://h/nb.ipynb");
    let link = done.links()[0];
    let line = page.lines().nth(link.line - 1).unwrap();
    assert_eq!(&line[link.column - 1..link.column + 3], "c.md");
}

/// A change is written as the file writes its strings: `\/` where it
/// escapes slashes, `\u` escapes where it escapes what is past ASCII (in
/// the case of its hex digits), as written elsewhere.
#[test]
fn new_text_is_escaped_as_the_file_escapes() {
    let escaping = notebook(&[&markdown(r#""See [x](..\/caf\u00E9\/x.md), \u00FC \/ \/""#)]);
    let done = rewrite(&escaping, "http://h/\u{fc}/b/nb.ipynb");
    let text = String::from_utf8(done.bytes().to_vec()).unwrap();
    assert!(
        text.contains(r#"[x](http:\/\/h\/\u00FC\/caf\u00E9\/x.md)"#),
        "{text}"
    );
    let plain = notebook(&[&markdown(r#""See [x](../café/x.md), ü / /""#)]);
    let done = rewrite(&plain, "http://h/\u{fc}/b/nb.ipynb");
    let text = String::from_utf8(done.bytes().to_vec()).unwrap();
    assert!(text.contains("[x](http://h/ü/café/x.md)"), "{text}");
    // An escaped quote of the old URL stays as it was written.
    let html = notebook(&[&markdown(r#""<a href='x\"y'>q</a>""#)]);
    let text = out(&html);
    assert!(text.contains(r#"<a href='http://h/a/b/x\"y'>"#), "{text}");
    let _: Value = serde_json::from_str(&text).unwrap();
}

/// Code, plain text outputs, raw cells of other formats, attachments and
/// metadata stay; HTML, SVG and Markdown outputs are rewritten, under
/// `data` (nbformat 4) and at an output's top (nbformat 3's worksheets),
/// and so are raw cells that nbconvert writes into its HTML page as they
/// are (of `raw_mimetype` `text/html`, in any case, or none).
#[test]
fn only_markdown_cells_and_rendered_outputs_change() {
    let code = r#"{"cell_type": "code", "execution_count": 1, "metadata": {"link": "a.md"},
   "outputs": [{"data": {"text/plain": ["[a](b.md)"], "text/html": ["<img src=\"p.png\">"],
     "image/svg+xml": "<svg xmlns=\"http://www.w3.org/2000/svg\"><a href=\"s.html\"/></svg>",
     "text/markdown": "[m](m.md)"}, "metadata": {}, "output_type": "display_data"}],
   "source": ["print('[x](y.md)')"]}"#;
    let raw = r#"{"cell_type": "raw", "metadata": {"raw_mimetype": "text/latex"}, "source": "<a href=\"r.html\">"}"#;
    let raw_html = r#"{"cell_type": "raw", "metadata": {"raw_mimetype": "Text/HTML"}, "source": "<a href=\"h.html\">"}"#;
    let raw_plain = r#"{"metadata": {}, "source": ["<img src=\"n.png\">"], "cell_type": "raw"}"#;
    let attached = markdown(r#""![i](attachment:i.png) [t](t.md)""#);
    let page = notebook(&[code, raw, raw_html, raw_plain, &attached]);
    let text = out(&page);
    for kept in [
        "[\"[a](b.md)\"]",
        "print('[x](y.md)')",
        "\"link\": \"a.md\"",
        "<a href=\\\"r.html\\\">",
        "![i](attachment:i.png)",
    ] {
        assert!(text.contains(kept), "{kept} changed: {text}");
    }
    for new in [
        "<img src=\\\"http://h/a/b/p.png\\\">",
        "<a href=\\\"http://h/a/b/s.html\\\"/>",
        "[m](http://h/a/b/m.md)",
        "[t](http://h/a/b/t.md)",
        "<a href=\\\"http://h/a/b/h.html\\\">",
        "<img src=\\\"http://h/a/b/n.png\\\">",
    ] {
        assert!(text.contains(new), "{new} missing: {text}");
    }
    let v3 = r#"{"metadata": {}, "nbformat": 3, "nbformat_minor": 0, "worksheets": [{"cells": [
      {"cell_type": "heading", "level": 1, "metadata": {}, "source": "[h](h.md)"},
      {"cell_type": "code", "input": "1", "language": "python", "metadata": {},
       "outputs": [{"html": ["<a href=\"o.html\">"], "metadata": {}, "output_type": "pyout"}]}
    ], "metadata": {}}]}"#;
    let text = out(v3);
    assert!(text.contains("[h](http://h/a/b/h.md)"), "{text}");
    assert!(
        text.contains("<a href=\\\"http://h/a/b/o.html\\\">"),
        "{text}"
    );
}

/// A change that would cross from one line's string into the next is
/// left, with a warning naming the cell; the rest of the cell changes.
#[test]
fn a_change_across_two_strings_is_left_with_a_warning() {
    let source = r#"["<a href=\"..\n", "/x/.\">x</a> [y](y.md)"]"#;
    let page = notebook(&[&markdown(source)]);
    let done = rewrite(&page, "http://h/a/b/nb.ipynb");
    let text = String::from_utf8(done.bytes().to_vec()).unwrap();
    assert!(text.contains(r#""<a href=\"..\n", "/x/.\">x</a> [y](http://h/a/b/y.md)""#));
    let warning = done
        .warnings()
        .iter()
        .find(|w| w.kind == WarningKind::Unreadable)
        .expect("a warning");
    assert_eq!(warning.place[0], "cell 1");
    assert!(warning.message.contains("across two strings"), "{warning}");
    assert_eq!(done.rewritten(), 1);
}

#[test]
fn broken_json_is_refused_with_where_it_broke() {
    for (broken, line, column, reason) in [
        (
            "{\n \"cells\": [\n  {\"cell_type\" \"markdown\"}",
            3,
            16,
            "expected ':'",
        ),
        ("{\"cells\": [", 1, 12, "expected a value"),
        ("{\"cells\": []} x", 1, 15, "text after the json value"),
        (
            "{\"cells\": [\"\u{1}\"]}",
            1,
            13,
            "control character in a string",
        ),
    ] {
        let err = Rewriter::new()
            .kind(Kind::Notebook)
            .retrieved_from("http://h/")
            .rewrite(broken.as_bytes())
            .unwrap_err();
        assert!(
            matches!(err, Error::InvalidJson { line: l, column: c, reason: r }
                if (l, c, r) == (line, column, reason)),
            "{broken:?}: {err}"
        );
    }
    let bytes = Rewriter::new()
        .kind(Kind::Notebook)
        .rewrite(b"\xff{}")
        .unwrap_err();
    assert_eq!(
        bytes.to_string(),
        "invalid json at line 1, column 1: not utf-8"
    );
    // The command line names the file, and writes nothing.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("broken.ipynb");
    std::fs::write(&path, "{\"cells\": [}").unwrap();
    let run = Command::new(env!("CARGO_BIN_EXE_relink"))
        .args(["--retrieved-from", "http://h/", "--in-place"])
        .arg(&path)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(
        stderr.contains("broken.ipynb: invalid json at line 1, column 12: expected a value"),
        "{stderr}"
    );
    assert_eq!(std::fs::read(&path).unwrap(), b"{\"cells\": [}");
}

/// With no base, nothing changes and the notebook says so once.
#[test]
fn a_notebook_without_a_base_is_unchanged_with_one_warning() {
    let output = r#"{"cell_type": "code", "metadata": {}, "execution_count": 1, "source": "",
      "outputs": [{"data": {"text/html": "<a href=\"x\">"}, "metadata": {}, "output_type": "execute_result", "execution_count": 1}]}"#;
    let page = notebook(&[&markdown(r#""[a](b)""#), output]);
    let done = Rewriter::new()
        .kind(Kind::Notebook)
        .rewrite(page.as_bytes())
        .unwrap();
    assert!(!done.changed());
    let kinds: Vec<WarningKind> = done.warnings().iter().map(|w| w.kind).collect();
    assert_eq!(kinds, [WarningKind::NoBase]);
}

/// Shapes made to be slow, at two sizes, through the command line: one
/// cell of many lines of links, and many cells. Four times the links
/// take at most ten times the CPU time (a quadratic
/// reader takes sixteen) and the peak memory grows by at most five bytes a
/// byte of input (the Markdown reader's tree is bounded by its pieces;
/// the edits are packed as they come: ten bytes a byte, before).
#[cfg(target_os = "linux")]
#[test]
fn one_huge_cell_and_many_cells_take_linear_time_and_bounded_memory() {
    let dir = tempfile::tempdir().unwrap();
    let huge = |n: usize| {
        let lines: Vec<String> = (0..n)
            .map(|i| format!("[l](a/b{i}.md) <img src=\"i{i}.png\">\n"))
            .collect();
        notebook(&[&markdown(&serde_json::to_string(&lines).unwrap())])
    };
    let many = |n: usize| {
        let cells: Vec<String> = (0..n)
            .map(|i| markdown(&format!("\"[l](a/b{i}.md)\"")))
            .collect();
        notebook(&cells.iter().map(String::as_str).collect::<Vec<_>>())
    };
    // The huge cell's text longer than the Markdown reader's pieces at both
    // sizes (read whole, a shorter one's tree takes about twenty times it).
    let makers: [&dyn Fn(usize) -> String; 2] = [&huge, &many];
    for ((shape, small), make) in [("huge", 30_000), ("many", 4_000)].into_iter().zip(makers) {
        let mut runs = Vec::new();
        for n in [small, 4 * small] {
            let path = dir.path().join(format!("{shape}{n}.ipynb"));
            let page = make(n);
            std::fs::write(&path, &page).unwrap();
            let (cpu, peak) = cpu_and_peak(&path);
            runs.push((cpu, peak, page.len() as u64));
        }
        let (small, large) = (runs[0], runs[1]);
        eprintln!("{shape}: {runs:?}");
        assert!(large.0 < 10.0 * small.0.max(0.05), "{shape}: {runs:?}");
        assert!(
            large.1.saturating_sub(small.1) <= 5 * (large.2 - small.2),
            "{shape}: {runs:?}"
        );
    }
}

/// The command line over `path`, to `-o` beside it: its CPU time in
/// seconds and its peak resident set in bytes.
#[cfg(target_os = "linux")]
fn cpu_and_peak(path: &std::path::Path) -> (f64, u64) {
    let out = path.with_extension("out.ipynb");
    let args = ["--retrieved-from", "http://h/a/nb.ipynb", "-o"].map(std::ffi::OsStr::new);
    let binary = std::path::Path::new(env!("CARGO_BIN_EXE_relink"));
    let all = [&args[..], &[out.as_os_str(), path.as_os_str()]].concat();
    let run = crate::memory::measure(binary, &all);
    assert_eq!(run.status, 0, "{}", path.display());
    (run.cpu, run.peak)
}

/// Given pairs of notebook files (before, after), validates each with
/// nbformat and renders each with nbconvert's HTML exporter: for each
/// pair, whether each validates, the URL attributes of both renderings in
/// order (element, attribute, value), and whether the renderings are the
/// same but for those (ids made afresh each rendering made equal).
const CHECK: &str = r#"
import json, re, sys, warnings
from html.parser import HTMLParser
import nbformat
from nbconvert import HTMLExporter
warnings.simplefilter("ignore")
URL_ATTRIBUTES = ("href", "src", "srcset", "poster", "xlink:href", "data", "action")
# Made afresh each rendering: output ids, and the cell ids nbformat 3 gains.
UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|cell-id=[0-9a-f]{8}")

class Events(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.urls, self.events = [], []
    def handle_starttag(self, tag, attrs):
        kept = []
        for name, value in attrs:
            if name in URL_ATTRIBUTES:
                self.urls.append([tag, name, value or ""])
                value = "URL"
            kept.append([name, value])
        self.events.append(["start", tag, kept])
    handle_startendtag = handle_starttag
    def handle_endtag(self, tag):
        self.events.append(["end", tag])
    def handle_data(self, data):
        self.events.append(["data", data])
    def handle_comment(self, data):
        self.events.append(["comment", data])

exporter = HTMLExporter()
def check(path):
    text = open(path, encoding="utf-8").read()
    try:
        nbformat.validate(nbformat.reads(text, as_version=nbformat.NO_CONVERT))
        valid = "valid"
    except Exception as err:
        valid = str(err).splitlines()[0]
    body, _ = exporter.from_notebook_node(nbformat.reads(text, as_version=4))
    events = Events()
    events.feed(UUID.sub("ID", body))
    events.close()
    return valid, events

out = []
for before, after in json.load(sys.stdin):
    (valid_before, a), (valid_after, b) = check(before), check(after)
    out.append({"valid": [valid_before, valid_after], "urls": [a.urls, b.urls],
                "same_rest": a.events == b.events})
json.dump(out, sys.stdout)
"#;

/// The real notebooks of the manifest: (file name, repository, path,
/// commit, licence).
fn manifest() -> Vec<[String; 5]> {
    let text = std::fs::read_to_string(fixture("notebooks/MANIFEST")).unwrap();
    text.lines()
        .filter(|line| !line.starts_with('#') && !line.is_empty())
        .skip(1)
        .map(|line| {
            let fields: Vec<String> = line.split('\t').map(str::to_owned).collect();
            fields
                .try_into()
                .unwrap_or_else(|f| panic!("MANIFEST: {f:?}"))
        })
        .collect()
}

/// `bytes` with the content of every JSON string taken out (the quotes
/// kept): what must be the same before and after.
fn without_string_contents(bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(bytes.len());
    let (mut inside, mut escaped) = (false, false);
    for &b in bytes {
        if inside && escaped {
            escaped = false;
        } else if inside && b == b'\\' {
            escaped = true;
        } else if b == b'"' {
            inside = !inside;
            out.push(b);
        } else if !inside {
            out.push(b);
        }
    }
    out
}

/// The sources of the code cells, as nbformat reads them.
fn code_sources(notebook: &Value) -> Vec<Value> {
    let cells = notebook["cells"].as_array().cloned().unwrap_or_default();
    let v3 = notebook["worksheets"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let v3 = v3
        .iter()
        .flat_map(|w| w["cells"].as_array().cloned().unwrap_or_default());
    cells
        .into_iter()
        .chain(v3)
        .filter(|c| c["cell_type"] == "code")
        .map(|c| Value::Array(vec![c["source"].clone(), c["input"].clone()]))
        .collect()
}

/// Every real notebook of the manifest, rewritten against a URL beside it:
/// bytes outside strings and code cells unchanged, still valid to
/// nbformat, and rendered by nbconvert to the same page but for its URL
/// attributes, each of which is the original's resolved (a reference to
/// the page itself kept).
#[test]
fn real_notebooks_render_the_same_with_their_links_resolved() {
    let notebooks = manifest();
    assert!(notebooks.len() >= 30, "{} notebooks", notebooks.len());
    let dir = tempfile::tempdir().unwrap();
    let mut pairs = Vec::new();
    let mut rewritten = 0;
    for [name, repo, path, commit, licence] in &notebooks {
        assert!(!repo.is_empty() && !path.is_empty() && commit.len() == 40 && !licence.is_empty());
        let before = fixture(&format!("notebooks/{name}"));
        let input = std::fs::read_to_string(&before).unwrap();
        let done = rewrite(&input, &base_of(name));
        rewritten += done.rewritten();
        assert!(done.warnings().is_empty(), "{name}: {:?}", done.warnings());
        let output = done.bytes();
        assert_eq!(
            without_string_contents(input.as_bytes()),
            without_string_contents(output),
            "{name}: bytes outside strings"
        );
        let (a, b): (Value, Value) = (
            serde_json::from_str(&input).unwrap(),
            serde_json::from_slice(output).unwrap(),
        );
        assert_eq!(code_sources(&a), code_sources(&b), "{name}: code");
        let after = dir.path().join(name);
        std::fs::write(&after, output).unwrap();
        pairs.push([before, after]);
    }
    assert!(rewritten >= 30, "{rewritten} links rewritten");
    let Some(checked) = nbconvert_check(&pairs) else {
        return;
    };
    for ([name, ..], check) in notebooks.iter().zip(checked) {
        assert_eq!(check["valid"][1], "valid", "{name}");
        assert_eq!(check["same_rest"], true, "{name}: the rendering changed");
        let (before, after) = (check["urls"][0].as_array(), check["urls"][1].as_array());
        let (before, after) = (before.unwrap(), after.unwrap());
        assert_eq!(before.len(), after.len(), "{name}");
        for (a, b) in before.iter().zip(after) {
            let (a, b) = (a[2].as_str().unwrap(), b[2].as_str().unwrap());
            let expected = if a.starts_with('#') || a.is_empty() {
                a.to_owned()
            } else {
                relink::resolve(&base_of(name), a, Rules::Rfc1808).unwrap()
            };
            assert_eq!(b, expected, "{name}: {a}");
        }
    }
}

/// nbformat's and nbconvert's verdict on each pair, or `None` when the
/// test Python lacks them (an error when it is the test command's).
fn nbconvert_check(pairs: &[[std::path::PathBuf; 2]]) -> Option<Vec<Value>> {
    let input = serde_json::to_vec(pairs).unwrap();
    let Value::Array(checked) = crate::python_json("nbformat, nbconvert", CHECK, &input)? else {
        panic!("not a list")
    };
    assert_eq!(checked.len(), pairs.len());
    Some(checked)
}

/// Real notebooks cut short and with bytes replaced all along them: no
/// panic; the notebook is refused exactly when serde_json finds it is not
/// JSON, and an output is JSON again.
#[test]
fn broken_notebooks_never_panic_and_are_refused_exactly_when_not_json() {
    let names = [
        "notebook-local-links.ipynb",
        "nbconvert-mixedmarkdown.ipynb",
        "nbconvert-latex-linked-image.ipynb",
    ];
    let mut runs = 0;
    for name in names {
        let original = std::fs::read(fixture(&format!("notebooks/{name}"))).unwrap();
        let mut inputs: Vec<Vec<u8>> = (0..original.len())
            .step_by(3)
            .map(|at| original[..at].to_vec())
            .collect();
        for at in (0..original.len()).step_by(5) {
            for byte in [b'"', b'\\', b'[', b'{', b'}', b',', b'\n', b'u', 0xff] {
                let mut mutated = original.clone();
                mutated[at] = byte;
                inputs.push(mutated);
            }
        }
        for input in inputs {
            runs += 1;
            let json = serde_json::from_slice::<Value>(&input).is_ok();
            let done = Rewriter::new()
                .kind(Kind::Notebook)
                .retrieved_from("http://h/a/nb.ipynb")
                .rewrite(&input);
            match done {
                Ok(done) => {
                    assert!(json, "{name}: taken but not json: {input:?}");
                    let out = serde_json::from_slice::<Value>(done.bytes());
                    assert!(out.is_ok(), "{name}: an output that is not json");
                }
                Err(Error::InvalidJson { .. }) => {
                    assert!(!json, "{name}: refused but json: {input:?}");
                }
                Err(other) => panic!("{name}: {other}"),
            }
        }
    }
    assert!(runs > 3_000, "{runs}");
}

/// Nesting far past any stack, inside a notebook's metadata and in place
/// of a cell, is read through.
#[test]
fn deep_nesting_is_read_through() {
    let deep = format!("{}{}", "[".repeat(200_000), "]".repeat(200_000));
    let cell = markdown(r#""[a](b.md)""#);
    let page = notebook(&[&cell, &deep]).replace(
        " \"metadata\": {},\n",
        &format!(" \"metadata\": {{\"x\": {deep}}},\n"),
    );
    assert_eq!(page.matches(&deep).count(), 2);
    let done = rewrite(&page, "http://h/nb.ipynb");
    assert_eq!(done.rewritten(), 1);
}
