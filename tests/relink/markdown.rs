//! Markdown, checked against another reader: each fixture and its rewrite
//! are rendered by markdown-it-py, and every rendered `href`/`src` of the
//! rewrite must be the original's resolved against the right base (the
//! page's for links, the resource base for images and media), with the
//! rendered text otherwise the same, and the bytes changed only inside
//! link destinations.

use relink::{Kind, Rewriter, Rules};
use serde_json::Value;

use crate::fixture;

const PAGE: &str = "https://github.com/example/widget/blob/main/README.md";
const RESOURCES: &str = "https://raw.githubusercontent.com/example/widget/main/README.md";

/// Renders each document with markdown-it-py (CommonMark, with GitHub's
/// tables and strikethrough), and gives for each the URL attributes of the
/// rendered HTML in order (element, attribute, value) and the rest of it
/// as a list of parser events, each URL replaced by `URL`.
const RENDER: &str = r#"
import json, sys
from html.parser import HTMLParser
from markdown_it import MarkdownIt

URL_ATTRIBUTES = ("href", "src", "srcset", "poster")
md = MarkdownIt("commonmark").enable(["table", "strikethrough"])

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

out = []
for text in json.load(sys.stdin):
    events = Events()
    events.feed(md.render(text))
    events.close()
    out.append({"urls": events.urls, "events": events.events})
json.dump(out, sys.stdout)
"#;

/// markdown-it-py's rendering of each document, or `None` when the test
/// Python lacks it.
fn render(documents: &[&str]) -> Option<Vec<Value>> {
    let input = serde_json::to_vec(documents).unwrap();
    let Value::Array(rendered) = crate::python_json("markdown_it", RENDER, &input)? else {
        panic!("not a list")
    };
    Some(rendered)
}

/// Whether an element's attribute loads a resource into the page.
fn is_resource(element: &str, attribute: &str) -> bool {
    matches!(
        (element, attribute),
        ("img", "src") | ("source", "src" | "srcset") | ("video", "src" | "poster")
    )
}

/// What a URL of the original should have become.
fn expected(url: &str, base: &str) -> String {
    if url.starts_with('#') || url.is_empty() {
        return url.to_owned();
    }
    relink::resolve(base, url, Rules::Rfc1808).unwrap()
}

/// The extent of the destination that starts at `at` in `src`: to the
/// closing `>` of one in angle brackets, else to white space, a quote,
/// `>`, or a `)` that closes no `(`.
fn destination_extent(src: &[u8], at: usize) -> usize {
    if src.get(at) == Some(&b'<') {
        return at + src[at..].iter().position(|&b| b == b'>').unwrap() + 1;
    }
    let mut depth = 0usize;
    let mut i = at;
    while let Some(&b) = src.get(i) {
        match b {
            b'\\' => i += 1,
            b'(' => depth += 1,
            b')' if depth == 0 => break,
            b')' => depth -= 1,
            b if b.is_ascii_whitespace() || matches!(b, b'"' | b'\'' | b'>') => break,
            _ => {}
        }
        i += 1;
    }
    i
}

/// The byte offset of a line and column (both from 1).
fn offset(src: &[u8], line: usize, column: usize) -> usize {
    let start: usize = src
        .split_inclusive(|&b| b == b'\n')
        .take(line - 1)
        .map(<[u8]>::len)
        .sum();
    start + column - 1
}

/// One document rewritten, and its rendering before and after.
struct Case {
    name: String,
    input: String,
    output: String,
    /// Each link's line, column and whether it changed.
    links: Vec<(usize, usize, bool)>,
    /// The links of a second pass over the output.
    again: Vec<(usize, usize)>,
}

fn rewriter() -> Rewriter {
    Rewriter::new()
        .kind(Kind::Markdown)
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
            assert!(
                rewritten.warnings().is_empty(),
                "{name}: {:?}",
                rewritten.warnings()
            );
            let output = String::from_utf8(rewritten.bytes().to_vec()).unwrap();
            let links = rewritten
                .links()
                .iter()
                .map(|l| (l.line, l.column, l.changed))
                .collect();
            let again = rewriter.rewrite(output.as_bytes()).unwrap();
            assert!(!again.changed(), "{name}: a second pass changed it");
            let again = again.links().iter().map(|l| (l.line, l.column)).collect();
            Case {
                name,
                input,
                output,
                links,
                again,
            }
        })
        .collect()
}

/// `src` with the destinations at `places` each cut down to a NUL.
fn cut(src: &[u8], places: &[(usize, usize)]) -> String {
    let mut rest = Vec::new();
    let mut copied = 0;
    for &(line, column) in places {
        let at = offset(src, line, column);
        rest.extend_from_slice(&src[copied..at]);
        rest.push(0);
        copied = destination_extent(src, at);
    }
    rest.extend_from_slice(&src[copied..]);
    String::from_utf8_lossy(&rest).into_owned()
}

/// What is wrong with a case, by its rendering before and after: a
/// rendered URL that is not the original resolved against its base, other
/// rendered text that changed, or bytes changed outside a destination.
/// Returns how many rendered URLs changed.
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
    for (o, n) in old.iter().zip(new) {
        let (element, attribute) = (o[0].as_str().unwrap(), o[1].as_str().unwrap());
        let base = if is_resource(element, attribute) {
            RESOURCES
        } else {
            PAGE
        };
        let was = o[2].as_str().unwrap();
        let now = n[2].as_str().unwrap();
        if now != expected(was, base) {
            return Err(format!(
                "{name}: <{element} {attribute}={was:?}> became {now:?}, not {:?}",
                expected(was, base)
            ));
        }
        changed += usize::from(was != now);
    }
    // The bytes: with the destinations relink changed cut out of the
    // input, and the same links' destinations cut out of the output
    // (found by the second pass over it), the rest is the same.
    if case.again.len() != case.links.len() {
        return Err(format!("{name}: the second pass found other links"));
    }
    type Places = Vec<(usize, usize)>;
    let (first, second): (Places, Places) = case
        .links
        .iter()
        .zip(&case.again)
        .filter(|(l, _)| l.2)
        .map(|(l, &a)| ((l.0, l.1), a))
        .unzip();
    if cut(case.input.as_bytes(), &first) != cut(case.output.as_bytes(), &second) {
        return Err(format!("{name}: bytes changed outside a destination"));
    }
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

/// Every fixture: rewritten, rendered before and after, compared.
#[test]
fn rendered_urls_are_the_originals_resolved_and_nothing_else_changes() {
    let names = ["badges.md", "reference.md", "tricky.md", "code.md"];
    let documents = names
        .iter()
        .map(|name| {
            let path = fixture(&format!("markdown/{name}"));
            (name.to_string(), std::fs::read_to_string(path).unwrap())
        })
        .collect();
    let cases = rewrite_all(documents);
    let Some(results) = check(&cases) else { return };
    for (case, result) in cases.iter().zip(results) {
        let changed = result.unwrap();
        assert!(changed >= 5, "{}: only {changed} URLs changed", case.name);
    }
}

/// The CommonMark spec's own examples of links, images and reference
/// definitions render to the same text, only their destinations resolved.
#[test]
fn the_spec_examples_keep_their_rendering() {
    let path = fixture("markdown/commonmark-spec-links.json");
    let Value::Array(examples) = serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
    else {
        panic!("not a list")
    };
    assert!(examples.len() > 100);
    let documents = examples
        .iter()
        .map(|e| {
            (
                format!("example {}", e["example"]),
                e["markdown"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    let cases = rewrite_all(documents);
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
    assert!(changed > 100, "only {changed} URLs changed");
}

/// The raw bytes of a few destinations, exactly.
#[test]
fn destinations_are_written_to_read_back_as_the_new_url() {
    let rewrite = |text: &str| {
        let out = Rewriter::new()
            .kind(Kind::Markdown)
            .retrieved_from("http://h/dir/page.md")
            .rewrite(text.as_bytes())
            .unwrap();
        String::from_utf8(out.bytes().to_vec()).unwrap()
    };
    assert_eq!(rewrite("[a](b.md)"), "[a](http://h/dir/b.md)");
    assert_eq!(rewrite("[a](<b c.md>)"), "[a](<http://h/dir/b c.md>)");
    assert_eq!(rewrite("[a](x\\(y)"), "[a](http://h/dir/x\\(y)");
    assert_eq!(rewrite("[a](#top)"), "[a](#top)");
    assert_eq!(rewrite("[a]()"), "[a]()");
    assert_eq!(rewrite("`[a](b)`"), "`[a](b)`");
    assert_eq!(rewrite("<http://x/y>"), "<http://x/y>");
    assert_eq!(
        rewrite("[id]: b.md\n\n[id]"),
        "[id]: http://h/dir/b.md\n\n[id]"
    );
    assert_eq!(
        rewrite("x <img src=\"i.png\"> y"),
        "x <img src=\"http://h/dir/i.png\"> y"
    );
    // A base with a space: the destination is put in angle brackets.
    let out = Rewriter::new()
        .kind(Kind::Markdown)
        .retrieved_from("http://h/my dir/page.md")
        .rewrite(b"[a](b.md)")
        .unwrap();
    assert_eq!(out.bytes(), b"[a](<http://h/my dir/b.md>)");
}

/// Images take the resource base, links the page's; `--base` stands above
/// both.
#[test]
fn images_take_the_resource_base_and_links_the_page() {
    let text = b"[l](a.md) ![i](a.png) <img src=b.png> <a href=b.md>x</a>";
    let out = Rewriter::new()
        .kind(Kind::Markdown)
        .retrieved_from("http://page/r/README.md")
        .resource_base("http://raw/r/")
        .rewrite(text)
        .unwrap();
    assert_eq!(
        out.bytes(),
        b"[l](http://page/r/a.md) ![i](http://raw/r/a.png) <img src=http://raw/r/b.png> <a href=http://page/r/b.md>x</a>"
    );
    let forced = Rewriter::new()
        .kind(Kind::Markdown)
        .base("http://forced/")
        .retrieved_from("http://page/r/README.md")
        .resource_base("http://raw/r/")
        .rewrite(text)
        .unwrap();
    assert_eq!(
        forced.bytes(),
        b"[l](http://forced/a.md) ![i](http://forced/a.png) <img src=http://forced/b.png> <a href=http://forced/b.md>x</a>"
    );
    // HTML takes it too.
    let html = Rewriter::new()
        .kind(Kind::Html)
        .retrieved_from("http://page/r/index.html")
        .resource_base("http://raw/r/")
        .rewrite(b"<a href=x><img src=y srcset='z 2x'></a><p style='background:url(w)'>")
        .unwrap();
    assert_eq!(
        html.bytes(),
        b"<a href=http://page/r/x><img src=http://raw/r/y srcset='http://raw/r/z 2x'></a><p style='background:url(http://raw/r/w)'>"
    );
}

#[test]
fn md_files_are_markdown() {
    let p = std::path::Path::new;
    assert_eq!(Kind::from_name(p("README.md")), Some(Kind::Markdown));
    assert_eq!(Kind::from_name(p("notes.markdown")), Some(Kind::Markdown));
    // Found in a directory, it is read, and as Markdown.
    let dir = tempfile::tempdir().unwrap();
    let readme = dir.path().join("README.md");
    std::fs::write(&readme, b"<p>").unwrap();
    assert_eq!(Kind::of_file(&readme).unwrap(), Some(Kind::Markdown));
}

#[test]
fn a_directory_gives_each_file_its_resource_base_below_the_given_one() {
    use crate::batch::{read, s, write};
    let dir = tempfile::tempdir().unwrap();
    let repo = dir.path().join("repo");
    write(
        &repo.join("b.md"),
        b"[a](docs/a.md) ![logo](img/logo.png)\n",
    );
    write(
        &repo.join("docs/a.md"),
        b"[b](../b.md) ![chart](img/chart.png) <img src=\"pic.png\">\n",
    );
    let out_dir = dir.path().join("out");
    std::fs::create_dir(&out_dir).unwrap();
    let out = crate::cli::relink(
        &[
            s(&repo),
            "--retrieved-from",
            "https://github.com/o/r/blob/v1/",
            "--resource-base",
            "https://raw.githubusercontent.com/o/r/v1/",
            "-o",
            s(&out_dir),
        ],
        b"",
    );
    crate::cli::assert_ok(&out);
    assert_eq!(
        read(&out_dir.join("b.md")),
        "[a](https://github.com/o/r/blob/v1/docs/a.md) ![logo](https://raw.githubusercontent.com/o/r/v1/img/logo.png)\n"
    );
    assert_eq!(
        read(&out_dir.join("docs/a.md")),
        "[b](https://github.com/o/r/blob/v1/b.md) ![chart](https://raw.githubusercontent.com/o/r/v1/docs/img/chart.png) <img src=\"https://raw.githubusercontent.com/o/r/v1/docs/pic.png\">\n"
    );
    assert!(!String::from_utf8_lossy(&out.stderr).contains("names a page"));
    // A page's URL for a directory: a warning, as for --retrieved-from.
    let out = crate::cli::relink(
        &[
            s(&repo),
            "--resource-base",
            "https://raw.githubusercontent.com/o/r/v1/README.md",
            "-o",
            s(&out_dir),
        ],
        b"",
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("warning: --resource-base https://raw.githubusercontent.com/o/r/v1/README.md names a page"),
        "{err}"
    );
    // A file named on its own takes the resource base as it is given.
    let out = crate::cli::relink(
        &[
            s(&repo.join("docs/a.md")),
            "--retrieved-from",
            "https://github.com/o/r/blob/v1/docs/a.md",
            "--resource-base",
            "https://raw.githubusercontent.com/o/r/v1/docs/a.md",
        ],
        b"",
    );
    crate::cli::assert_ok(&out);
    assert!(
        String::from_utf8_lossy(&out.stdout)
            .contains("![chart](https://raw.githubusercontent.com/o/r/v1/docs/img/chart.png)"),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
}

#[test]
fn autolinks_and_bare_urls_are_listed_never_rewritten() {
    let rewriter = rewriter().details(relink::Details::Links);
    let mut failed = Vec::new();
    for row in crate::table("markdown/autolinks.tsv", 2) {
        let text = row[0].replace("\\n", "\n");
        let expected: Vec<&str> = row[1].split(' ').filter(|u| *u != "-").collect();
        let out = rewriter.rewrite(text.as_bytes()).unwrap();
        assert!(!out.changed(), "{text:?} changed");
        let got: Vec<&str> = out.links().iter().map(|l| l.resolved.as_str()).collect();
        if got != expected {
            failed.push(format!("{text:?}: {got:?}, not {expected:?}"));
        }
        // Each listed as written, where it is written.
        for link in out.links() {
            let line = text.lines().nth(link.line - 1).unwrap_or_default();
            let written = line.get(link.column - 1..).unwrap_or_default();
            if !written.starts_with(&link.original) {
                failed.push(format!(
                    "{text:?}: {:?} placed at {written:?}",
                    link.original
                ));
            }
        }
    }
    assert!(failed.is_empty(), "{}", failed.join("\n"));
}

#[test]
fn autolinks_of_a_page_without_base_are_listed() {
    let page = b"<https://a.example/> [x](y.md) www.b.example\n";
    let out = crate::cli::relink(&["links", "--type", "markdown", "-"], page);
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "https://a.example/\nhttp://www.b.example\n"
    );
}
