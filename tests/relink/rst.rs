//! reStructuredText, checked against docutils: each fixture and its
//! rewrite are rendered to HTML by docutils, and every rendered `href` of
//! the rewrite must be the original's resolved against the page's base,
//! every `img src` against the resource base, with the rest of the
//! rendering the same, and the bytes changed only where links start.

use relink::{Kind, Rewriter, Rules, WarningKind};
use serde_json::Value;

use crate::fixture;

const PAGE: &str = "https://github.com/example/widget/blob/main/README.rst";
const RESOURCES: &str = "https://raw.githubusercontent.com/example/widget/main/README.rst";

/// Renders each document with docutils (raw HTML allowed, no file read,
/// no message shown), and gives for each the URL attributes of the
/// rendered HTML in order (element, attribute, value) and the rest of it
/// as a list of parser events, each URL replaced by `URL`, and so is what
/// may be a URL's text (an image's `alt` that is its `src`, a link's
/// text), listed with the URLs as `#alt` and `#text`: each must be as it
/// was, or the URL it was resolved.
const RENDER: &str = r##"
import json, sys
from html.parser import HTMLParser
from docutils.core import publish_parts

URL_ATTRIBUTES = ("href", "src", "srcset", "poster", "data")
SETTINGS = {"report_level": 5, "halt_level": 5, "raw_enabled": True,
            "file_insertion_enabled": False, "_disable_config": True,
            "warning_stream": False, "embed_images": False}

class Events(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.urls, self.events = [], []
        self.href = None
    def handle_starttag(self, tag, attrs):
        kept = []
        urls = [value for name, value in attrs if name in URL_ATTRIBUTES]
        for name, value in attrs:
            if name in URL_ATTRIBUTES:
                self.urls.append([tag, name, value or ""])
                value = "URL"
            elif name == "alt" and value in urls:
                self.urls.append([tag, "#alt", value])
                value = "URL"
            kept.append([name, value])
        if tag == "a":
            self.href = dict(attrs).get("href")
        self.events.append(["start", tag, kept])
    handle_startendtag = handle_starttag
    def handle_endtag(self, tag):
        if tag == "a":
            self.href = None
        self.events.append(["end", tag])
    def handle_data(self, data):
        if self.href is not None:
            self.urls.append(["a", "#text", data])
            data = "URL"
        self.events.append(["data", data])
    def handle_comment(self, data):
        self.events.append(["comment", data])

out = []
for text in json.load(sys.stdin):
    events = Events()
    parts = publish_parts(text, writer_name="html5", settings_overrides=SETTINGS)
    events.feed(parts["html_title"] + parts["html_subtitle"] + parts["body"])
    events.close()
    out.append({"urls": events.urls, "events": events.events})
json.dump(out, sys.stdout)
"##;

/// docutils' rendering of each document, or `None` when the test Python
/// lacks it.
fn render(documents: &[&str]) -> Option<Vec<Value>> {
    let Value::Array(rendered) = run_python(RENDER, documents)? else {
        panic!("not a list")
    };
    Some(rendered)
}

/// What `script` (given the documents as JSON) prints as JSON, or `None`
/// when the test Python has no docutils.
fn run_python(script: &str, documents: &[&str]) -> Option<Value> {
    crate::python_json("docutils", script, &serde_json::to_vec(documents).unwrap())
}

/// What a URL of the original should have become.
fn expected(url: &str, base: &str) -> String {
    if url.starts_with('#') || url.is_empty() {
        return url.to_owned();
    }
    relink::resolve(base, url, Rules::Rfc1808).unwrap()
}

/// One document rewritten, and where its links start.
struct Case {
    name: String,
    input: String,
    output: String,
    /// Each changed link's line and column.
    changed: Vec<(usize, usize)>,
    /// How many links were left in tables, with a warning.
    in_tables: usize,
}

fn rewriter() -> Rewriter {
    Rewriter::new()
        .kind(Kind::Rst)
        .retrieved_from(PAGE)
        .resource_base(RESOURCES)
}

/// Rewrites each document twice (the second pass must change nothing).
fn rewrite_all(documents: Vec<(String, String)>) -> Vec<Case> {
    let rewriter = rewriter();
    documents
        .into_iter()
        .map(|(name, input)| {
            let rewritten = rewriter.rewrite(input.as_bytes()).unwrap();
            let (in_tables, others): (Vec<_>, Vec<_>) = rewritten
                .warnings()
                .iter()
                .partition(|w| w.kind == WarningKind::InTable);
            assert!(others.is_empty(), "{name}: {others:?}");
            let in_tables = in_tables.len();
            let output = String::from_utf8(rewritten.bytes().to_vec()).unwrap();
            let changed = rewritten
                .links()
                .iter()
                .filter(|l| l.changed)
                .map(|l| (l.line, l.column))
                .collect();
            let again = rewriter.rewrite(output.as_bytes()).unwrap();
            assert!(!again.changed(), "{name}: a second pass changed it");
            Case {
                name,
                input,
                output,
                changed,
                in_tables,
            }
        })
        .collect()
}

/// Whether the bytes changed only on lines where a changed link starts,
/// from its column on (no line is added or taken away).
fn changed_only_at_links(case: &Case) -> Result<(), String> {
    let name = &case.name;
    let before: Vec<&str> = case.input.split('\n').collect();
    let after: Vec<&str> = case.output.split('\n').collect();
    if before.len() != after.len() {
        return Err(format!("{name}: lines added or removed"));
    }
    for (n, (b, a)) in before.iter().zip(&after).enumerate() {
        if b == a {
            continue;
        }
        let same = b.bytes().zip(a.bytes()).take_while(|(x, y)| x == y).count();
        let first = case
            .changed
            .iter()
            .filter(|l| l.0 == n + 1)
            .map(|l| l.1 - 1)
            .min();
        if first.is_none_or(|column| same < column) {
            return Err(format!("{name}: line {} changed outside a link", n + 1));
        }
    }
    Ok(())
}

/// What is wrong with a case, by its rendering before and after. Returns
/// how many rendered URLs changed.
fn compare(case: &Case, before: &Value, after: &Value) -> Result<usize, String> {
    let name = &case.name;
    if before["events"] != after["events"] {
        return Err(format!("{name}: the rendered text changed"));
    }
    let old = before["urls"].as_array().unwrap();
    let new = after["urls"].as_array().unwrap();
    if old.len() != new.len() {
        return Err(format!("{name}: {} urls, then {}", old.len(), new.len()));
    }
    let mut changed = 0;
    let mut kept = 0;
    for (o, n) in old.iter().zip(new) {
        let (element, attribute) = (o[0].as_str().unwrap(), o[1].as_str().unwrap());
        let base = if (element, attribute) == ("img", "src") {
            RESOURCES
        } else {
            PAGE
        };
        let was = o[2].as_str().unwrap();
        let now = n[2].as_str().unwrap();
        // docutils writes a URL given alone as the image's `alt` or the
        // link's text: it is the URL as written, before or after.
        if attribute.starts_with('#') {
            let base = if attribute == "#alt" { RESOURCES } else { PAGE };
            if now != was && now != expected(was, base) {
                return Err(format!("{name}: {attribute} {was:?} became {now:?}"));
            }
            continue;
        }
        if now == was && was != expected(was, base) && kept < case.in_tables {
            kept += 1;
            continue;
        }
        if now != expected(was, base) {
            return Err(format!(
                "{name}: <{element} {attribute}={was:?}> became {now:?}, not {:?}",
                expected(was, base)
            ));
        }
        changed += usize::from(was != now);
    }
    changed_only_at_links(case)?;
    Ok(changed)
}

/// Renders the cases before and after, and compares each.
fn check(cases: &[Case]) -> Option<Vec<Result<usize, String>>> {
    let mut documents: Vec<&str> = cases.iter().map(|c| c.input.as_str()).collect();
    documents.extend(cases.iter().map(|c| c.output.as_str()));
    let rendered = render(&documents)?;
    let (before, after) = rendered.split_at(cases.len());
    Some(
        cases
            .iter()
            .zip(before.iter().zip(after))
            .map(|(case, (b, a))| compare(case, b, a))
            .collect(),
    )
}

/// The `.rst` files of a fixture directory, with their text.
fn documents(dir: &str) -> Vec<(String, String)> {
    let mut paths: Vec<_> = std::fs::read_dir(fixture(dir))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "rst"))
        .collect();
    paths.sort();
    paths
        .into_iter()
        .map(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read_to_string(&p).unwrap())
        })
        .collect()
}

/// The hand fixtures: rewritten, rendered before and after, compared; the
/// file of what is left alone changes not at all.
#[test]
fn rendered_urls_are_the_originals_resolved_and_nothing_else_changes() {
    let cases = rewrite_all(documents("rst"));
    assert_eq!(cases.len(), 5);
    let table = cases.iter().find(|c| c.name == "table.rst").unwrap();
    // Resolved where the cell has room, else left with a warning.
    assert_eq!((table.in_tables, table.changed.len()), (3, 10));
    let alone = cases.iter().find(|c| c.name == "alone.rst").unwrap();
    assert_eq!(alone.input, alone.output);
    let Some(results) = check(&cases) else { return };
    for (case, result) in cases.iter().zip(results) {
        let changed = result.unwrap();
        match case.name.as_str() {
            "alone.rst" => {}
            "table.rst" => assert_eq!(changed, 10),
            name => assert!(changed >= 5, "{name}: only {changed} URLs changed"),
        }
    }
}

/// Explicit markup that opens a list item, a field body, a definition or
/// a `list-table` cell is read as it is after a first line of text: each
/// of the 27 URLs of `lists.rst` is resolved, and docutils renders them
/// all resolved.
#[test]
fn explicit_markup_opening_an_item_is_resolved() {
    let cases: Vec<Case> = rewrite_all(documents("rst"))
        .into_iter()
        .filter(|c| c.name == "lists.rst")
        .collect();
    assert_eq!(cases[0].changed.len(), 27);
    let Some(results) = check(&cases) else { return };
    assert_eq!(results[0].as_ref().unwrap(), &27);
}

/// `text` rewritten against `http://h/dir/page.rst` (images against
/// `http://raw/dir/page.rst`).
fn rewrite(text: &str) -> String {
    let out = Rewriter::new()
        .kind(Kind::Rst)
        .retrieved_from("http://h/dir/page.rst")
        .resource_base("http://raw/dir/page.rst")
        .rewrite(text.as_bytes())
        .unwrap();
    String::from_utf8(out.bytes().to_vec()).unwrap()
}

/// A link in a grid or simple table: written longer where its cell line
/// has the spaces to give (taken out before the cell's border, one kept;
/// a simple table's last column has no border), else left with a warning
/// of its own kind.
#[test]
fn links_in_tables_are_resolved_where_their_cells_have_room() {
    let cases = [
        // In a table: where the cell has room, its spaces make it.
        (
            "+----------------------------+\n| `a <b>`_ and `c <d>`_      |\n+----------------------------+",
            "+----------------------------+\n| `a <b>`_ and `c <d>`_      |\n+----------------------------+",
        ),
        (
            "+------------------------------+\n| `a <b>`_                     |\n+------------------------------+",
            "+------------------------------+\n| `a <http://h/dir/b>`_        |\n+------------------------------+",
        ),
        (
            "===  ==================\na    `b <c>`_   x\n===  ==================",
            "===  ==================\na    `b <http://h/dir/c>`_   x\n===  ==================",
        ),
        (
            "=============  ===\n`b <c>`_       x\n=============  ===",
            "=============  ===\n`b <c>`_       x\n=============  ===",
        ),
        (
            "========================  ===\n`b <c>`_ y                x\n========================  ===",
            "========================  ===\n`b <http://h/dir/c>`_ y   x\n========================  ===",
        ),
    ];
    for (input, output) in cases {
        assert_eq!(rewrite(input), output, "{input}");
    }
    let out = Rewriter::new()
        .kind(Kind::Rst)
        .retrieved_from("http://h/dir/page.rst")
        .rewrite(b"+--------+\n| `a <b>`_ |\n+--------+\n")
        .unwrap();
    assert_eq!(out.warnings().len(), 1);
    assert_eq!(out.warnings()[0].kind, WarningKind::InTable);
    assert!(out.links()[0].unresolved && !out.links()[0].changed);
}

/// The links docutils' parser makes with a URL of their own, before its
/// transforms (named references then have no URL yet): each reference's
/// URL but an image's target's and an e-mail address given as an
/// embedded URI (which relink leaves), and whether it is standalone (a
/// reference with no name).
const PARSE: &str = r##"
import json, sys
from docutils import nodes, utils
from docutils.frontend import get_default_settings
from docutils.parsers.rst import Parser

settings = get_default_settings(Parser)
settings.report_level = settings.halt_level = 5
settings.file_insertion_enabled = False
settings.warning_stream = False
out = []
for text in json.load(sys.stdin):
    document = utils.new_document("README", settings)
    Parser().parse(text, document)
    urls = []
    for r in document.findall(nodes.reference):
        uri = r.get("refuri")
        if uri is None or any(isinstance(c, nodes.image) for c in r.children):
            continue
        standalone = "name" not in r
        if uri.startswith("mailto:") and not standalone and "mailto:" not in r.rawsource:
            continue
        urls.append([uri, standalone])
    out.append(urls)
json.dump(out, sys.stdout)
"##;

/// Standalone URIs and e-mail addresses, which docutils makes links, are
/// listed as absolute links are (an address as its `mailto:` URL) and
/// never rewritten: in the real READMEs, relink's links in text are
/// docutils' references with a URL, each of them, standalone or not.
#[test]
fn standalone_uris_and_addresses_are_listed() {
    let docs = documents("rst/real");
    let rewriter = rewriter();
    let mut listed = Vec::new();
    for (name, text) in &docs {
        let out = rewriter.rewrite(text.as_bytes()).unwrap();
        let mut urls: Vec<String> = out
            .links()
            .iter()
            .filter(|l| l.place.element().is_empty() && l.place.attribute() == "link")
            .map(|l| l.original.clone())
            .collect();
        urls.sort();
        listed.push((name, urls));
    }
    let standalone: usize = listed
        .iter()
        .flat_map(|(_, urls)| urls)
        .filter(|u| u.starts_with("http") || u.starts_with("mailto:"))
        .count();
    assert!(standalone >= 62, "{standalone}");
    let texts: Vec<&str> = docs.iter().map(|(_, t)| t.as_str()).collect();
    let Some(parsed) = run_python(PARSE, &texts) else {
        return;
    };
    let mut failures = Vec::new();
    let mut standalones = 0;
    for ((name, urls), parsed) in listed.iter().zip(parsed.as_array().unwrap()) {
        let mut expected: Vec<String> = parsed
            .as_array()
            .unwrap()
            .iter()
            .map(|u| u[0].as_str().unwrap().to_owned())
            .collect();
        expected.sort();
        standalones += parsed
            .as_array()
            .unwrap()
            .iter()
            .filter(|u| u[1] == true)
            .count();
        if urls != &expected {
            failures.push(format!("{name}: relink {urls:?}\n  docutils {expected:?}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(standalones >= 62, "{standalones}");
    eprintln!("{standalones} standalone");
}

/// The raw bytes of each construct, exactly.
#[test]
fn urls_are_written_to_read_back_as_the_new_url() {
    let cases = [
        ("`a <b.html>`_", "`a <http://h/dir/b.html>`_"),
        ("`a <b.html>`__", "`a <http://h/dir/b.html>`__"),
        (".. _a: b.html", ".. _a: http://h/dir/b.html"),
        (
            ".. _a:\n   b/\n   c.html",
            ".. _a:\n   http://h/dir/b/\n   c.html",
        ),
        (".. __: b.html", ".. __: http://h/dir/b.html"),
        ("__ b.html", "__ http://h/dir/b.html"),
        (".. image:: i.png", ".. image:: http://raw/dir/i.png"),
        (
            ".. figure:: i.png\n   :target: t.html",
            ".. figure:: http://raw/dir/i.png\n   :target: http://h/dir/t.html",
        ),
        (
            ".. |x| image:: i.png",
            ".. |x| image:: http://raw/dir/i.png",
        ),
        (
            ".. raw:: html\n\n   <a href=\"x\">x</a>",
            ".. raw:: html\n\n   <a href=\"http://h/dir/x\">x</a>",
        ),
        // Escapes kept; a `<`, `>`, backquote or space in what the base
        // brings escaped.
        ("`a <b\\ c>`_", "`a <http://h/dir/b\\ c>`_"),
        ("`a <b\\<c>`_", "`a <http://h/dir/b\\<c>`_"),
        ("`a <b\\`c>`_", "`a <http://h/dir/b\\`c>`_"),
        ("`a <b\\_>`_", "`a <http://h/dir/b\\_>`_"),
        // Line ends as docutils splits lines: a lone carriage return too.
        (
            ".. _a: b.html\r.. _c: d\\\r   e.html",
            ".. _a: http://h/dir/b.html\r.. _c: http://h/dir/d\\\r   e.html",
        ),
        // A name over two lines.
        (
            ".. _`a\n   b`: x.html",
            ".. _`a\n   b`: http://h/dir/x.html",
        ),
        (
            ".. parsed-literal::\n\n   `a <b.html>`_",
            ".. parsed-literal::\n\n   `a <http://h/dir/b.html>`_",
        ),
        // Left alone.
        ("`a <#top>`_", "`a <#top>`_"),
        ("`a <name_>`_", "`a <name_>`_"),
        (":doc:`a <b>`", ":doc:`a <b>`"),
        ("``a <b>`_``", "``a <b>`_``"),
        (".. _a: b_", ".. _a: b_"),
        (".. _a:", ".. _a:"),
        // Malformed targets: comments to docutils.
        (".. __a: b.html", ".. __a: b.html"),
        (".. _a:: b.html", ".. _a:: b.html"),
        (
            ".. code:: rst\n\n   `a <b>`_",
            ".. code:: rst\n\n   `a <b>`_",
        ),
        ("x::\n\n   `a <b>`_", "x::\n\n   `a <b>`_"),
        (".. comment `a <b>`_", ".. comment `a <b>`_"),
        ("`a <me@example.com>`_", "`a <me@example.com>`_"),
        ("\\`a <b>`_", "\\`a <b>`_"),
        // An enumerator before an unindented line is text: a reference
        // over the two lines is one.
        (
            "A. Name wrote `a\n<b.html>`_",
            "A. Name wrote `a\n<http://h/dir/b.html>`_",
        ),
        ("1. `a\n   <b.html>`_", "1. `a\n   <http://h/dir/b.html>`_"),
        // A reference left open in a definition list's term.
        ("`a <b.html>\n   `_ c", "`a <b.html>\n   `_ c"),
    ];
    for (input, output) in cases {
        assert_eq!(rewrite(input), output, "{input}");
    }
    // A base with a space and a `>`: escaped as reStructuredText needs.
    let out = Rewriter::new()
        .kind(Kind::Rst)
        .retrieved_from("http://h/my dir>/page.rst")
        .rewrite(b"`a <b.html>`_ and\n\n.. image:: i.png\n")
        .unwrap();
    assert_eq!(
        out.bytes(),
        b"`a <http://h/my\\ dir\\>/b.html>`_ and\n\n.. image:: http://h/my\\ dir\\>/i.png\n"
    );
}

#[test]
fn rst_files_are_restructured_text() {
    let p = std::path::Path::new;
    assert_eq!(Kind::from_name(p("README.rst")), Some(Kind::Rst));
    assert_eq!(Kind::from_name(p("index.rest")), Some(Kind::Rst));
    // Found in a directory, it is read, and as reStructuredText.
    let dir = tempfile::tempdir().unwrap();
    let readme = dir.path().join("README.rst");
    std::fs::write(&readme, b"<p>").unwrap();
    assert_eq!(Kind::of_file(&readme).unwrap(), Some(Kind::Rst));
    assert_eq!(Kind::named("restructuredtext"), Some(Kind::Rst));
}

/// The command line on a `.rst` file: `--check` fails on its relative
/// links, `--list` names each with its base, `-o` and `--in-place` write
/// it, a directory's `.rst` files are read.
#[test]
fn the_command_line_reads_rst_files() {
    use crate::cli::relink;
    let dir = tempfile::tempdir().unwrap();
    let readme = dir.path().join("README.rst");
    std::fs::write(
        &readme,
        "`guide <docs/guide.html>`_\n\n.. image:: logo.png\n",
    )
    .unwrap();
    let path = readme.to_str().unwrap();
    let bases = [
        "--retrieved-from",
        "https://github.com/o/r/blob/v1/README.rst",
        "--resource-base",
        "https://raw.githubusercontent.com/o/r/v1/README.rst",
    ];
    let check = relink(&[&[path, "--check"][..], &bases].concat(), b"");
    assert_eq!(check.status.code(), Some(1));
    let list = relink(&[&[path, "--list"][..], &bases].concat(), b"");
    let listed = String::from_utf8(list.stdout).unwrap();
    assert!(
        listed.contains(
            "README.rst:1:9: link docs/guide.html -> https://github.com/o/r/blob/v1/docs/guide.html"
        ),
        "{listed}"
    );
    assert!(
        listed.contains("image logo.png -> https://raw.githubusercontent.com/o/r/v1/logo.png (base https://raw.githubusercontent.com/o/r/v1/README.rst from --resource-base)"),
        "{listed}"
    );
    let out = dir.path().join("out.rst");
    let written = relink(
        &[&[path, "-o", out.to_str().unwrap()][..], &bases].concat(),
        b"",
    );
    crate::cli::assert_ok(&written);
    let expected = "`guide <https://github.com/o/r/blob/v1/docs/guide.html>`_\n\n.. image:: https://raw.githubusercontent.com/o/r/v1/logo.png\n";
    assert_eq!(std::fs::read_to_string(&out).unwrap(), expected);
    let in_place = relink(&[&[path, "--in-place"][..], &bases].concat(), b"");
    crate::cli::assert_ok(&in_place);
    assert_eq!(std::fs::read_to_string(&readme).unwrap(), expected);
    // A directory: its `.rst` file is read, and now has nothing relative.
    let again = relink(
        &[&[dir.path().to_str().unwrap(), "--check"][..], &bases].concat(),
        b"",
    );
    crate::cli::assert_ok(&again);
}

/// `relink links` gives a README's standalone URLs and e-mail addresses
/// (`mailto:`) with its other absolute links; `--list` as links left as
/// they are; nothing is rewritten.
#[test]
fn links_lists_standalone_urls_and_addresses() {
    use crate::cli::relink;
    let dir = tempfile::tempdir().unwrap();
    let readme = dir.path().join("README.rst");
    let text =
        "See https://example.org/docs/ or write to me@example.com.\n\n.. _t: https://t.example/\n";
    std::fs::write(&readme, text).unwrap();
    let path = readme.to_str().unwrap();
    let base = [
        "--retrieved-from",
        "https://github.com/o/r/blob/v1/README.rst",
    ];
    let links = relink(&[&["links", path][..], &base].concat(), b"");
    crate::cli::assert_ok(&links);
    assert_eq!(
        String::from_utf8(links.stdout).unwrap(),
        "https://example.org/docs/\nmailto:me@example.com\nhttps://t.example/\n"
    );
    let list = relink(&[&[path, "--list"][..], &base].concat(), b"");
    let listed = String::from_utf8(list.stdout).unwrap();
    assert!(
        listed.contains(
            "README.rst:1:5: link https://example.org/docs/ -> https://example.org/docs/ (base"
        ),
        "{listed}"
    );
    assert!(
        listed.contains("README.rst:1:43: link mailto:me@example.com"),
        "{listed}"
    );
    let check = relink(&[&[path, "--check"][..], &base].concat(), b"");
    crate::cli::assert_ok(&check);
}

/// Pathological inputs at two sizes: no panic, and nothing changes where
/// nothing is relative (time goes in `cargo bench --bench hostile`).
#[test]
fn hostile_inputs_come_back_unchanged() {
    for n in [100, 20_000] {
        for (what, input) in hostile(n) {
            let out = rewriter().rewrite(input.as_bytes());
            let out = out.unwrap_or_else(|e| panic!("{what} {n}: {e}"));
            assert_eq!(out.bytes(), input.as_bytes(), "{what} {n}");
        }
    }
}

/// reStructuredText built to be slow or deep, `n` times over, with only
/// absolute URLs in it.
pub fn hostile(n: usize) -> Vec<(&'static str, String)> {
    let nested: String = (0..n.min(2_000))
        .map(|d| format!("{}.. note::\n\n", "   ".repeat(d)))
        .collect();
    vec![
        (
            "targets",
            (0..n)
                .map(|i| format!(".. _t{i}: http://a/{i}\n"))
                .collect(),
        ),
        ("nested", nested),
        (
            "long line",
            format!("`a <http://a/{}>`_", "x".repeat(n * 50)),
        ),
        ("open backquotes", "`a <http://a/> ".repeat(n)),
        ("open stars", "*a `b ".repeat(n)),
        ("simple names", format!("{}_ `x", "a-".repeat(n * 10))),
        ("roles", ":a:`b` ".repeat(n)),
        ("angles", format!("`{}`_", "<a ".repeat(n))),
        ("escapes", "\\".repeat(n * 10)),
        ("list items", "- `a <http://a/>`_\n".repeat(n)),
        ("literal", format!("x::\n\n{}", "   `a <b>`_\n".repeat(n))),
        ("schemes", "a-a:".repeat(n * 5)),
        ("addresses", format!("x@{}-", "a.".repeat(n * 5))),
        ("uri ends", format!("http://{}", "a)?#".repeat(n * 5))),
    ]
}

/// Real READMEs from PyPI sdists (`fixtures/rst/real/MANIFEST.tsv` names
/// each, its version, the sdist's sha256 and its licence): rendered by
/// docutils before and after, compared.
#[test]
fn real_readmes_keep_their_rendering() {
    let cases = rewrite_all(documents("rst/real"));
    let manifest = std::fs::read_to_string(fixture("rst/real/MANIFEST.tsv")).unwrap();
    assert_eq!(manifest.lines().count() - 1, cases.len());
    assert!(cases.len() >= 30, "{} READMEs", cases.len());
    let Some(results) = check(&cases) else { return };
    let mut changed = 0;
    let mut failures = Vec::new();
    for result in results {
        match result {
            Ok(n) => changed += n,
            Err(failure) => failures.push(failure),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(changed >= 20, "only {changed} URLs changed");
}

/// docutils' own parser test inputs for targets, references, embedded
/// URIs, images, figures and substitutions (`fixtures/rst/docutils/`,
/// public domain): rendered by docutils before and after, compared.
#[test]
fn the_docutils_test_cases_keep_their_rendering() {
    let cases = rewrite_all(documents("rst/docutils"));
    assert!(cases.len() >= 130, "{} cases", cases.len());
    let Some(results) = check(&cases) else { return };
    let mut changed = 0;
    let mut failures = Vec::new();
    for result in results {
        match result {
            Ok(n) => changed += n,
            Err(failure) => failures.push(failure),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(changed >= 40, "only {changed} URLs changed");
}
