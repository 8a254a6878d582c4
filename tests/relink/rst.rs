//! reStructuredText, checked against docutils: each fixture and its
//! rewrite are rendered to HTML by docutils, and every rendered `href` of
//! the rewrite must be the original's resolved against the page's base,
//! every `img src` against the resource base, with the rest of the
//! rendering the same, and the bytes changed only where links start.

use std::io::Write;
use std::process::{Command, Stdio};

use relink::{Kind, Rewriter, Rules};
use serde_json::Value;

use crate::{fixture, python};

const PAGE: &str = "https://github.com/example/widget/blob/main/README.rst";
const RESOURCES: &str = "https://raw.githubusercontent.com/example/widget/main/README.rst";

/// Renders each document with docutils (raw HTML allowed, no file read,
/// no message shown), and gives for each the URL attributes of the
/// rendered HTML in order (element, attribute, value) and the rest of it
/// as a list of parser events, each URL replaced by `URL`, and so is what
/// docutils makes of a URL when nothing else is given: an image's `alt`,
/// the text of a reference written as its URL alone.
const RENDER: &str = r#"
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
        if self.href is not None and data == self.href:
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
"#;

/// docutils' rendering of each document, or `None` when the test Python
/// lacks it.
fn render(documents: &[&str]) -> Option<Vec<Value>> {
    let python = python();
    let probe = Command::new(&python)
        .args(["-c", "import docutils"])
        .output()
        .ok()?;
    if !probe.status.success() {
        assert!(
            std::env::var_os("RELINK_TEST_PYTHON").is_none(),
            "the test python has no docutils"
        );
        eprintln!("skipped: no docutils for {}", python.display());
        return None;
    }
    let mut child = Command::new(&python)
        .args(["-c", RENDER])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let input = serde_json::to_vec(documents).unwrap();
    child.stdin.take().unwrap().write_all(&input).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "docutils failed");
    let Value::Array(rendered) = serde_json::from_slice(&out.stdout).unwrap() else {
        panic!("not a list")
    };
    Some(rendered)
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
                .partition(|w| w.message.starts_with("link in a table left as it is"));
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
    assert_eq!(cases.len(), 4);
    let table = cases.iter().find(|c| c.name == "table.rst").unwrap();
    assert_eq!((table.in_tables, table.input == table.output), (2, true));
    let alone = cases.iter().find(|c| c.name == "alone.rst").unwrap();
    assert_eq!(alone.input, alone.output);
    let Some(results) = check(&cases) else { return };
    for (case, result) in cases.iter().zip(results) {
        let changed = result.unwrap();
        if !matches!(case.name.as_str(), "alone.rst" | "table.rst") {
            assert!(changed >= 5, "{}: only {changed} URLs changed", case.name);
        }
    }
}
