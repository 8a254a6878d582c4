//! The documents the throughput bench reads, each as a file name and its
//! bytes as kept: the three pages of `fixtures/corpus/pages/`, the HTML
//! payloads of the corpus WARC, the
//! installed Python documentation, the real pages of
//! `fixtures/pages/real/` (and those of them heavy in CSS), and saved
//! pages of a web application.

use std::io::Read;
use std::path::{Path, PathBuf};

/// A document: a file name (no folder) and its bytes.
pub type File = (String, Vec<u8>);

fn manifest() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The three real pages of `fixtures/corpus/pages/`.
pub fn corpus_pages() -> Vec<File> {
    let dir = manifest().join("fixtures/corpus/pages");
    let mut paths: Vec<PathBuf> = std::fs::read_dir(dir)
        .expect("the pages corpus")
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "html"))
        .collect();
    paths.sort();
    paths
        .iter()
        .map(|p| (name(p), std::fs::read(p).unwrap()))
        .collect()
}

fn name(path: &Path) -> String {
    path.file_name().unwrap().to_string_lossy().into_owned()
}

/// The HTML payloads of the corpus WARC, each named by its URL's last
/// segment. wget wrote each record in a gzip member of its own, each
/// response's body with no transfer or content coding: its records are
/// split here by their `Content-Length`, and a response whose HTTP
/// `Content-Type` names HTML gives its body.
pub fn python_docs() -> Vec<File> {
    let path = manifest().join("fixtures/corpus/warc/python-tutorial.warc.gz");
    let mut records = Vec::new();
    flate2::read::MultiGzDecoder::new(std::fs::File::open(path).unwrap())
        .read_to_end(&mut records)
        .unwrap();
    html_responses(&records)
        .into_iter()
        .enumerate()
        .map(|(i, (url, page))| {
            let last = url.trim_end_matches('/').rsplit('/').next().unwrap_or("");
            (format!("{i:02}-{last}.html"), page)
        })
        .collect()
}

/// The target URI and body of each HTML response of an uncompressed WARC
/// whose bodies have no coding, in record order.
fn html_responses(mut records: &[u8]) -> Vec<(String, Vec<u8>)> {
    let find = |bytes: &[u8], what: &[u8]| memchr::memmem::find(bytes, what);
    let field = |head: &str, name: &str| {
        head.lines().find_map(|line| {
            let (key, value) = line.split_once(':')?;
            key.trim()
                .eq_ignore_ascii_case(name)
                .then(|| value.trim().to_owned())
        })
    };
    let mut pages = Vec::new();
    while let Some(end) = find(records, b"\r\n\r\n") {
        let head = String::from_utf8_lossy(&records[..end]).into_owned();
        let length: usize = field(&head, "Content-Length").unwrap().parse().unwrap();
        let block = &records[end + 4..end + 4 + length];
        records = &records[end + 4 + length..];
        records = &records[records
            .iter()
            .take_while(|b| b.is_ascii_whitespace())
            .count()..];
        if field(&head, "WARC-Type").as_deref() != Some("response") {
            continue;
        }
        let Some(body) = find(block, b"\r\n\r\n") else {
            continue;
        };
        let http = String::from_utf8_lossy(&block[..body]);
        if field(&http, "Content-Type").is_some_and(|t| t.contains("html")) {
            let uri = field(&head, "WARC-Target-URI").unwrap();
            pages.push((uri, block[body + 4..].to_vec()));
        }
    }
    pages
}

/// The installed Python documentation's pages, if any, each named by its
/// path under the documentation's root with `/` made `_`.
pub fn installed_python_docs() -> Vec<File> {
    let Some(root) = installed_python_docs_root() else {
        return Vec::new();
    };
    let mut stack = vec![root.clone()];
    let mut paths = Vec::new();
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "html") {
                paths.push(path);
            }
        }
    }
    paths.sort();
    paths
        .iter()
        .filter_map(|p| {
            let relative = p.strip_prefix(&root).ok()?.to_string_lossy();
            Some((relative.replace('/', "_"), std::fs::read(p).ok()?))
        })
        .collect()
}

/// The folder of the installed Python documentation, if any.
pub fn installed_python_docs_root() -> Option<PathBuf> {
    let roots = [
        "/usr/share/doc/python3.11/html",
        "/usr/share/doc/python3-doc/html",
        "/usr/share/doc/python3/html",
    ];
    roots.iter().map(PathBuf::from).find(|p| p.is_dir())
}

/// The real pages of `fixtures/pages/real/` (see its README), each named
/// by its file there with `/` made `_` and `.gz` dropped, with the host it
/// was saved from (`-` when unknown).
pub fn real_pages() -> Vec<(File, String)> {
    let dir = manifest().join("fixtures/pages/real");
    let list = std::fs::read_to_string(dir.join("MANIFEST.tsv")).expect("the real pages");
    list.lines()
        .skip(1)
        .map(|line| {
            let fields: Vec<&str> = line.split('\t').collect();
            let mut page = Vec::new();
            flate2::read::GzDecoder::new(std::fs::File::open(dir.join(fields[0])).unwrap())
                .read_to_end(&mut page)
                .unwrap();
            let name = fields[0].trim_end_matches(".gz").replace('/', "_");
            ((name, page), fields[2].to_owned())
        })
        .collect()
}

/// The real pages whose style sheets and `style` attributes are at least
/// a fifth of their bytes ([`css_share`]): the pages where relink reads
/// CSS that the peer passes over.
pub fn css_heavy_pages() -> Vec<File> {
    real_pages()
        .into_iter()
        .map(|(file, _)| file)
        .filter(|(_, bytes)| css_share(bytes) >= 0.2)
        .collect()
}

/// The share of `bytes` inside `<style>` elements and double-quoted
/// `style` attribute values, found by their bytes (any case), not parsed:
/// a measure to choose pages by, not relink's reading.
pub fn css_share(bytes: &[u8]) -> f64 {
    let lower = bytes.to_ascii_lowercase();
    let find = |from: usize, what: &[u8]| {
        memchr::memmem::find(&lower[from.min(lower.len())..], what).map(|at| from + at)
    };
    let mut css = 0;
    let mut at = 0;
    while let Some(start) = find(at, b"<style") {
        let Some(open) = find(start, b">") else { break };
        let end = find(open, b"</style").unwrap_or(lower.len());
        css += end - open - 1;
        at = end;
    }
    at = 0;
    while let Some(start) = find(at, b" style=\"") {
        let open = start + b" style=\"".len();
        let end = find(open, b"\"").unwrap_or(lower.len());
        css += end - open;
        at = end;
    }
    css as f64 / bytes.len().max(1) as f64
}

/// A script's worth of a web application's bundle: strings holding markup
/// and URLs, comparisons, regular expressions, as a page saved from such
/// an application inlines it.
const SCRIPT_UNIT: &str = concat!(
    "var r=[{\"href\":\"/app/view?id=1&x=2\",\"html\":\"<a href=\\\"/p/q\\\">q</a>\"},",
    "{\"src\":\"img/a.png\",\"t\":'<img src=x.png>'}];",
    "function f(b,c){if(b<c&&c>1){return b.replace(/<\\/?[a-z]+>/g,\"\")}",
    "return document.querySelector('link[rel=icon]')}\n",
);

/// A page saved from a web application: a little markup with links
/// around `bytes` of inline script, in two `<script>` elements, with a
/// `<meta charset>` or without one (then the whole page is looked at for
/// a late one).
pub fn saved_app_page(bytes: usize, meta_charset: bool) -> String {
    let mut page = String::with_capacity(bytes + 4096);
    page.push_str("<!DOCTYPE html><html lang=en><head>");
    if meta_charset {
        page.push_str("<meta charset=utf-8>");
    }
    page.push_str("<title>Saved application</title><link rel=stylesheet href=/static/app.css>");
    page.push_str("<script>");
    while page.len() < bytes / 2 {
        page.push_str(SCRIPT_UNIT);
    }
    page.push_str("</script></head><body><div id=root><nav>");
    for i in 0..50 {
        page.push_str(&format!(
            "<a href=\"/section/{i}/\">{i}</a><img src=\"icons/{i}.svg\" alt=\"\">"
        ));
    }
    page.push_str("</nav></div><script>");
    while page.len() < bytes {
        page.push_str(SCRIPT_UNIT);
    }
    page.push_str("</script></body></html>\n");
    page
}
