//! The tracker (relink's tree builder for the common path) against
//! html5ever's: on real pages it decides alone, and wherever it does not
//! bail, its document is the one html5ever's tree gives.

use std::collections::BTreeMap;
use std::path::PathBuf;

use relink::html::tokenizer::Attributes;
use relink::html::tracker::{self, Bail};
use relink::html::tree::{Document, DocumentKind, parse_with};

use crate::html_corpus::{inputs_with_links, same_document, same_document_keeping_any};

/// The three real pages of the corpus.
pub fn corpus_pages() -> Vec<(String, String)> {
    let dir = crate::fixture("corpus/pages");
    let mut paths: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "html"))
        .collect();
    paths.sort();
    paths
        .into_iter()
        .map(|p| {
            let text = std::fs::read_to_string(&p).unwrap();
            (p.display().to_string(), text)
        })
        .collect()
}

/// The HTML payloads of the corpus WARC's responses, each named by its
/// URL. The crawl is plain (one gzip member a record, no transfer or
/// content coding), so each record is framed by its `Content-Length` and
/// its HTTP head ends at the first blank line.
pub fn warc_pages() -> Vec<(String, String)> {
    use std::io::Read;
    let path = crate::fixture("corpus/warc/python-tutorial.warc.gz");
    let mut warc = Vec::new();
    flate2::read::MultiGzDecoder::new(std::fs::File::open(path).unwrap())
        .read_to_end(&mut warc)
        .unwrap();
    let head_end = |b: &[u8]| b.windows(4).position(|w| w == b"\r\n\r\n").unwrap();
    let field = |head: &str, name: &str| {
        head.lines()
            .filter_map(|l| l.split_once(':'))
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.trim().to_owned())
    };
    let (mut rest, mut pages) = (&warc[..], Vec::new());
    while !rest.is_empty() {
        let end = head_end(rest);
        let head = std::str::from_utf8(&rest[..end]).unwrap();
        let length: usize = field(head, "Content-Length").unwrap().parse().unwrap();
        let block = &rest[end + 4..end + 4 + length];
        rest = &rest[end + 4 + length + 4..];
        if field(head, "WARC-Type").as_deref() != Some("response") {
            continue;
        }
        let http_end = head_end(block);
        let http = std::str::from_utf8(&block[..http_end]).unwrap();
        if field(http, "Content-Type").is_some_and(|t| t.starts_with("text/html")) {
            // wget writes the URI in angle brackets, as WARC/1.0 showed it.
            let url = field(head, "WARC-Target-URI").unwrap();
            let url = url.trim_matches(['<', '>']).to_owned();
            let body = String::from_utf8_lossy(&block[http_end + 4..]).into_owned();
            pages.push((url, body));
        }
    }
    pages
}

/// The installed Python documentation's pages, if it is installed.
pub fn python_docs() -> Vec<(String, String)> {
    let root = PathBuf::from("/usr/share/doc/python3.11/html");
    let mut stack = vec![root];
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
        .into_iter()
        .filter_map(|p| Some((p.display().to_string(), std::fs::read_to_string(&p).ok()?)))
        .collect()
}

/// Runs the tracker over `pages`: the pages it completed, and why it bailed
/// on the others (reason, count). Every completed page must be the
/// document html5ever gives.
fn completed(pages: &[(String, String)]) -> (usize, BTreeMap<&'static str, usize>) {
    let mut done = 0;
    let mut bails = BTreeMap::new();
    for (name, page) in pages {
        match tracker::parse(page, DocumentKind::Document) {
            Ok(document) => {
                if let Err(why) = same_document(&document, page, DocumentKind::Document) {
                    panic!("{name}: {why}");
                }
                done += 1;
            }
            Err(Bail(why)) => *bails.entry(why).or_default() += 1,
        }
    }
    (done, bails)
}

/// Real pages: the tracker completes every corpus and WARC page and nearly
/// every page of the Python documentation, each as html5ever would.
#[test]
fn the_tracker_completes_real_pages() {
    for (corpus, pages) in [
        ("corpus pages", corpus_pages()),
        ("WARC pages", warc_pages()),
    ] {
        assert!(!pages.is_empty(), "{corpus}");
        let (done, bails) = completed(&pages);
        println!("{corpus}: {done} of {} completed", pages.len());
        assert_eq!(done, pages.len(), "{corpus}: bailed {bails:?}");
    }
    let docs = python_docs();
    if docs.is_empty() {
        println!("no Python documentation installed");
        return;
    }
    let (done, bails) = completed(&docs);
    let rate = done as f64 / docs.len() as f64;
    println!(
        "Python documentation: {done} of {} completed ({:.1}%), bailed {bails:?}",
        docs.len(),
        100.0 * rate
    );
    assert!(rate > 0.95, "{done} of {}: {bails:?}", docs.len());
}

/// The saved real pages of `fixtures/pages/real/`, as UTF-8 (lossy where
/// they are not, as the bench reads them): the tracker completes every
/// one, each the document html5ever gives. Prints why it bailed (reason,
/// pages, share of the bytes): the bench's bail table for the real pages,
/// without its timing.
#[test]
fn the_tracker_completes_the_real_saved_pages() {
    let pages: Vec<(String, String)> = crate::html_corpus::real_pages()
        .into_iter()
        .map(|(name, _, _, page)| (name, String::from_utf8_lossy(&page).into_owned()))
        .collect();
    let total: usize = pages.iter().map(|(_, p)| p.len()).sum();
    let mut bails: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
    for (name, page) in &pages {
        match tracker::parse(page, DocumentKind::Document) {
            Ok(document) => {
                if let Err(why) = same_document(&document, page, DocumentKind::Document) {
                    panic!("{name}: {why}");
                }
            }
            Err(Bail(why)) => {
                let entry = bails.entry(why).or_default();
                entry.0 += 1;
                entry.1 += page.len();
            }
        }
    }
    let mut bailed = 0;
    for (why, (documents, bytes)) in &bails {
        bailed += documents;
        println!(
            "tracker bails: {why}: {documents} documents, {:.1}% of the bytes",
            100.0 * *bytes as f64 / total as f64
        );
    }
    println!(
        "real pages: {} of {} completed",
        pages.len() - bailed,
        pages.len()
    );
    assert_eq!(bailed, 0, "bailed: {bails:?}");
}

/// Compares every tag of `tracked`, the tracker's parse of `data` with
/// every attribute, with html5ever's: the same element (or none) for each
/// start tag, and the same base.
fn same_every_tag(tracked: &Document, data: &str, kind: DocumentKind) -> Result<(), String> {
    let full = parse_with(data, kind, Attributes::All);
    let describe = |doc: &Document| -> Vec<String> {
        doc.tags()
            .map(|t| {
                let (kind, name, span) = (t.kind, t.name, &t.span);
                format!("{kind:?} {name} {span:?} {:?} {:?}", t.element, t.landmark)
            })
            .collect()
    };
    let (ours, theirs) = (describe(tracked), describe(&full));
    if ours != theirs {
        let at = ours.iter().zip(&theirs).position(|(a, b)| a != b);
        let differ = at.map(|i| (&ours[i], &theirs[i]));
        return Err(format!("tags differ, first {differ:?}"));
    }
    if tracked.base != full.base {
        return Err(format!("base {:?}, not {:?}", tracked.base, full.base));
    }
    Ok(())
}

/// The html5lib tree-construction inputs, many of them hostile, parsed with
/// every tag kept: wherever the tracker does not bail, each start tag's
/// element is html5ever's, and so is the base. It completes most of them,
/// so this is no empty check.
#[test]
fn where_the_tracker_completes_it_agrees_with_html5ever() {
    let mut done = 0;
    let mut bails: BTreeMap<&str, usize> = BTreeMap::new();
    let inputs = inputs_with_links();
    for (name, data) in &inputs {
        for kind in [DocumentKind::Document, DocumentKind::IframeSrcdoc] {
            match tracker::parse_with(data, kind, Attributes::All) {
                Ok(document) => {
                    if let Err(why) = same_every_tag(&document, data, kind) {
                        panic!("{name} ({kind:?}): {why}\n{data:?}");
                    }
                    done += 1;
                }
                Err(Bail(why)) => *bails.entry(why).or_default() += 1,
            }
            // And as relink parses, keeping only the tags with links, or
            // every tag with attributes.
            if let Ok(document) = tracker::parse(data, kind)
                && let Err(why) = same_document(&document, data, kind)
            {
                panic!("{name} ({kind:?}), lean: {why}\n{data:?}");
            }
            if let Ok(document) =
                tracker::parse_with(data, kind, Attributes::TreeBuilderAnyAttribute)
                && let Err(why) = same_document_keeping_any(&document, data, kind)
            {
                panic!("{name} ({kind:?}), lean, any attribute: {why}\n{data:?}");
            }
        }
    }
    println!(
        "html5lib inputs: {done} of {} completed, bailed {bails:?}",
        2 * inputs.len()
    );
    assert!(done > inputs.len(), "{done} completed");
    assert!(inputs.len() > 5000, "{} inputs", inputs.len());
}

/// Where the tracker hands over, and where it does not: each document
/// with the construct the tracker bails on (`None`: it completes it), and
/// each completed one as html5ever parses it.
#[test]
fn the_tracker_bails_where_its_subset_ends() {
    let cases: &[(&str, Option<&str>)] = &[
        ("<!DOCTYPE html><p>a<b>b</b>c", None),
        ("<frameset><frame></frameset>", Some("frameset")),
        ("<table><div>x</div></table>", Some("an element in a table")),
        ("<table>text</table>", Some("text in a table")),
        ("<table> <tr> <td>x</td> </tr> </table>", None),
        ("<table><input type=hidden><form></table>", None),
        (
            "<table><input type=text></table>",
            Some("an element in a table"),
        ),
        ("<b><p>x</b>y", None),
        ("<b><i>x</b>y", None),
        ("<b><i>x</b></i>", None),
        ("<p><b>x</p>", None),
        ("<p><b>x</p>y", None),
        ("<a href=1><a href=2>", None),
        ("<a href=1><a href=2><a href=3>x</a>", None),
        ("<a href=1><b><a href=2>x", None),
        ("<p><a href=1>x</p><a href=2>", None),
        ("<a href=1><div><a href=2>", None),
        ("<a href=1><svg><foreignObject><a href=2>x", None),
        ("<nobr><nobr>", None),
        (
            "<p><b></p><table></br>",
            Some("reconstructing formatting elements in a table"),
        ),
        (
            "<table><select><option>x</select></table>",
            Some("an element in a table"),
        ),
        ("<b><b><b><b>", Some("a fourth like formatting element")),
        ("<td><b><b><b><b>", Some("a fourth like formatting element")),
        ("<p><table>", None),
        ("<!DOCTYPE html><p><table>", None),
        (
            "<!DOCTYPE html PUBLIC \"-//W3C//DTD HTML 4.01//EN\"><p><table>",
            None,
        ),
        ("<svg><p>x</p><math><mi><div>y</div></mi></math>", None),
        (
            "<math><annotation-xml encoding=text/html><svg><desc><a href=x>",
            None,
        ),
        (
            "<template><tr><td>x</td></tr></template><base href=y>",
            None,
        ),
        ("<form><form></form><table><form>", None),
    ];
    for &(data, bail) in cases {
        let tracked = tracker::parse_with(data, DocumentKind::Document, Attributes::All);
        match (tracked, bail) {
            (Ok(document), None) => {
                if let Err(why) = same_every_tag(&document, data, DocumentKind::Document) {
                    panic!("{data:?}: {why}");
                }
            }
            (Err(Bail(why)), Some(want)) => assert_eq!(why, want, "{data:?}"),
            (tracked, _) => panic!("{data:?}: {:?}, not {bail:?}", tracked.err()),
        }
    }
    // Past the depth html5ever's path flattens at, the tracker hands over.
    let deep = "<div>".repeat(2000);
    let tracked = tracker::parse(&deep, DocumentKind::Document);
    assert_eq!(tracked.err(), Some(Bail("nesting too deep")));
}

/// Asserts that the tracker completes each of `cases` (a `base` after
/// each, so that the first base in tree order is compared too), and that
/// each is the document html5ever gives, every tag with its element.
fn completes_as_html5ever(cases: &[&str]) {
    for case in cases {
        for data in [case.to_string(), format!("{case}<base href=after>")] {
            for kind in [DocumentKind::Document, DocumentKind::IframeSrcdoc] {
                let tracked = tracker::parse_with(&data, kind, Attributes::All);
                let document = tracked.unwrap_or_else(|e| panic!("{data:?}: bailed {e:?}"));
                if let Err(why) = same_every_tag(&document, &data, kind) {
                    panic!("{data:?} ({kind:?}): {why}");
                }
            }
        }
    }
}

/// Script and style text ends where html5ever ends it, whatever `<` and
/// `</` it holds (the tokenizer reads a `<` that cannot start the end tag
/// as text without leaving the state), and a reference in text is white
/// space or not as html5ever reads it (a numeric one whose number is not
/// white space's is not looked up).
#[test]
fn the_tracker_reads_raw_text_and_references_as_html5ever_does() {
    completes_as_html5ever(&[
        "<script>if (a<b && c</d) x='<a href=y>z</a>'</script><a href=q>",
        "<script>x</scriptx></script ><p>",
        "<script>x</SCRIPT\t><p>",
        "<script>x</script/><p>",
        "<script>x</scrip></script\n><p>",
        "<script>x</ script></script><p>",
        "<script>a<!--b</script>c--></script><p>",
        "<script>a<!--<script>b</script>c--></script><p>",
        "<script>s</",
        "<script>s</scr",
        "<script>s</script",
        "<script>s<",
        "<style>a{b:c}</</styl></style>/<p>",
        "<style>a<!--b</style><p>",
        "<style>x</STYLE><p>",
        "<textarea>a</b</textarea><p>",
        "<title>a</b<c</title><p>",
        "<xmp>a</x</xmp><p>",
        "<noembed>a</b</noembed><p>",
        "<iframe>a</b</iframe><p>",
        "<script>\0<</script><p>",
    ]);
    // White space or not, as references in text decide where elements go.
    completes_as_html5ever(&[
        "&#32;<title>x</title>",
        "&#33;<title>x</title>",
        "&#x;<title>x</title>",
        "<head>&#10;&#x0C;&#0013;&#9<title>x</title>",
        "<head>&#65;<title>x</title>",
        "<head>&#4294967328;<title>x</title>",
        "<head>&Tab;&NewLine;<title>x</title>",
        "<table>&#32;&#x0a;&#9<tr><td>x</table>",
    ]);
}

/// The tags the tracker decides before its rules (an element only opened
/// or created, an end tag that only pops), next to the shapes that must
/// go to the rules: a formatting element to reconstruct or listed after
/// a marker, a `p` to close, a list item to close, integration points
/// and HTML breaking out of foreign content, raw text, templates. Each
/// with every tag kept, and as relink parses, every tag with attributes
/// kept (no landmarks found: the path most pages take).
#[test]
fn the_tracker_decides_plain_tags_as_html5ever_does() {
    let cases = [
        "<b c>x<a href=1>y</a><i c>z</i></b><span c>w</span><a href=2>v</a>",
        "<p c><b c>a</p><span c>b</span><img src=x><br c><a href=y>",
        "<table c><td c><b c>x</td></table><a href=y>z</a><i c>w</i>",
        "<a href=1><a href=2>x</a><span c>y</span>",
        "<a href=1><div c><a href=2>x</a></div>",
        "<b c><i c><u c>x</u></i></b><em c>y</em>",
        "<ul c><li c>a<li c>b</ul><ol c><li c><div c><li c>x</div></ol>",
        "<div c><li c>a<li c>b</div><address c><li c>c<li c>d</address>",
        "<dl c><dt c>a<dd c>b<dt c>c</dl><li c><p c>a<li c>b",
        "<p c><li c>a<p c>b<div c>c</div><span c>d</span>",
        "<button c><p c>a<div c>b</button><p c>c",
        "<h1 c>a<h2 c>b</h2><p c><h3 c>c</h3><div c><h4 c>d<span c>e</h4></div>",
        "<button c>a<button c>b<div c><button c>c</div></button><table c><td c><button c>",
        "<b c><p c>x</b><button c>y</button><h1 c>z</h1><a href=w>",
        "<svg c><foreignObject c><button c><h1 c>x</h1></button></foreignObject></svg>",
        "<input type=hidden><select c><input src=x><image src=y>",
        "<head><meta charset=utf-8><link href=a><base href=b><title c>t</title></head><meta name=x><link href=y>",
        "<meta name=a><link href=b><p c><meta name=c><link href=d>",
        "<template c><meta name=a><link href=b><div c><a href=x>y</a></div></template><p c>",
        "<head><noscript c><link href=a></noscript></head>",
        "<svg c><path c/><g c><rect c/></g><foreignObject c><div c><a href=x>y</a></div></foreignObject><desc c><p c>z</desc><title c><span c>t</title></svg><a href=q>",
        "<svg c><font color=red>x</font><font c>y</font><b c>z</b></svg><a href=w>",
        "<svg c><p c></p><g c></br></g></svg><a href=x>",
        "<svg c><svg c><path c></svg></svg><a href=y>",
        "<math c><mi c><b c>x</b></mi><mo c/><annotation-xml encoding=text/html><div c>d</div></annotation-xml><annotation-xml c><svg c><a href=1/></svg></annotation-xml></math>",
        "<math c><mglyph c/><mtext c><mglyph c><a href=x></mtext></math><a href=y>",
        "<template c><svg c><path c/><g c></g></svg></template><a href=x>",
        "<script c>x</script><style c>y</style><title c>z</title><a href=a>",
        "<svg c><script c>x</script><style c>y</style></svg><a href=b>",
        "<table c><script c>a</script><tr c><td c>x</table><a href=c>",
        "<div c><span c></div></span><a href=x>",
    ];
    completes_as_html5ever(&cases);
    for case in cases {
        for kind in [DocumentKind::Document, DocumentKind::IframeSrcdoc] {
            let tracked = tracker::parse_with(case, kind, Attributes::TreeBuilderAnyAttribute);
            let document = tracked.unwrap_or_else(|e| panic!("{case:?}: bailed {e:?}"));
            if let Err(why) = same_document_keeping_any(&document, case, kind) {
                panic!("{case:?} ({kind:?}): {why}");
            }
        }
    }
}

/// `select` as html5ever parses it, in body (the customizable `select`:
/// no "in select" mode): its options and groups, a `select`, `input` or
/// `hr` inside it, and one in a table cell.
#[test]
fn the_tracker_follows_select() {
    completes_as_html5ever(&[
        "<select><option>a<option>b</select><a href=x>",
        "<select><option value=1>a</option><option selected>b</option></select>",
        "<select><optgroup label=g><option>a<optgroup><option>b</select><img src=x>",
        "<select><option>a<optgroup><option>b</optgroup></select>",
        "<option>a<option>b<optgroup>c<option>d",
        "<p><select><option>a</select>b</p>",
        "<select><option><select><a href=x>y</a>",
        "<select><option>a<select>b</select>c",
        "<select><input src=x><a href=y>",
        "<select><option><hr><option>b</select>",
        "<select><div><option>a<p>b<option>c</div></select>",
        "<select><button>a<select>b",
        "<select><b><option>x</b>y</select>",
        "<select><textarea>t</textarea><keygen><a href=y></select>",
        "<select><svg><option><a href=x>y</svg></select>",
        "<select><template><option>a</template></select>",
        "<select><option><base href=x></select>",
        "<table><tr><td><select><option>x</select></td></tr></table>",
        "<table><tr><td><select><option>x</td><td><a href=y></table>",
        "<table><caption><select><option>x</select></caption></table><a href=y>",
        "<template><select><option>a</select></template><a href=y>",
        "<form><select name=s><option>a</select></form>",
        "<ul><li><select><option>a<li>b</ul>",
    ]);
}

/// Quirks mode from the doctype's identifiers, as html5ever's lists say:
/// a `table` closes an open `p` but in quirks mode.
#[test]
fn the_tracker_knows_quirks_mode_from_the_doctype() {
    let doctypes = [
        "<!DOCTYPE html>",
        "<!DOCTYPE html SYSTEM \"about:legacy-compat\">",
        "<!DOCTYPE html PUBLIC \"-//W3C//DTD HTML 4.01//EN\">",
        "<!DOCTYPE html PUBLIC \"-//W3C//DTD HTML 4.01 Transitional//EN\">",
        "<!DOCTYPE html PUBLIC \"-//W3C//DTD HTML 4.01 Transitional//EN\" \"http://www.w3.org/TR/html4/loose.dtd\">",
        "<!DOCTYPE html PUBLIC \"-//W3C//DTD XHTML 1.0 Transitional//EN\" \"http://www.w3.org/TR/xhtml1/DTD/xhtml1-transitional.dtd\">",
        "<!DOCTYPE HTML PUBLIC \"-//IETF//DTD HTML 2.0 Level 1//EN\">",
        "<!DOCTYPE html PUBLIC \"html\">",
        "<!DOCTYPE html PUBLIC \"-/W3C/DTD HTML 4.0 Transitional/EN\">",
        "<!DOCTYPE html SYSTEM \"http://www.ibm.com/data/dtd/v11/ibmxhtml1-transitional.dtd\">",
        "<!DOCTYPE html SYSTEM \"http://example.com/other.dtd\">",
        "<!DOCTYPE svg>",
        "<!DOCTYPE>",
        "",
    ];
    let cases: Vec<String> = doctypes
        .iter()
        .map(|d| format!("{d}<p><table><tr><td><a href=x>y</table>"))
        .collect();
    completes_as_html5ever(&cases.iter().map(String::as_str).collect::<Vec<_>>());
}

/// Misnested formatting elements: the adoption agency with a furthest
/// block, its inner loop past three elements, its outer loop, elements
/// it unlists, `a` in `a`, nested `nobr`, and the formatting elements
/// reconstructed after it, in body, cells, templates and foreign content.
#[test]
fn the_tracker_runs_the_adoption_agency() {
    completes_as_html5ever(&[
        "<b><p>x</b>y",
        "<b>1<p>2</b>3</p>4",
        "<b><i>x</b>y</i>z",
        "<p><b>x</p>y",
        "<p><b><i>x</p>y<a href=z>w",
        "<a href=1><div><a href=2>x</a></div>",
        "<a href=1><b><a href=2>x",
        "<a href=1>x<table><tr><td><a href=2>y</table>",
        "<a><p><b><i><u><s><div>x</a>y",
        "<a><b><i><u><s><em><div>x</a>y",
        "<b><em><span><div>x</b>y",
        "<div><b><i><p>x</b>y</i>z",
        "<b><div><i><p>x</b>y",
        "<a>1<div>2<div>3<div>4<div>5<div>6<div>7<div>8<div>9<div>10</a>",
        "<b><math><annotation-xml encoding=text/html><div>x</b>y",
        "<b><svg><g><p>x</b>y",
        "<b><p><base href=1></b><base href=2>",
        "<template><b><p>x</b>y</template><a href=z>",
        "<table><tr><td><b><p>x</b>y</td></tr></table>",
        "<b><table><tr><td>x</b>y</td></tr></table>",
        "<nobr><nobr>",
        "<nobr>a<nobr>b<div>c<nobr>d",
        "<b><p>x<i>y</b>z</i>",
        "<font color=red><p>x</font>y",
        "<b><b><p>x</b>y</b>z",
        "<p><b><a href=1>x</p>y<a href=2>",
        "<b><ul><li>x</b><li>y",
        "<code><pre>x</code>y</pre>",
        "<em><h1>x</em>y</h1>",
        "<i><form><p>x</i>y</form>",
        "<u><button><p>x</u>y",
        "<s><object><p>x</s>y</object>",
    ]);
}

/// The html5lib inputs on misnested formatting and `select`: the tracker
/// completes most of them, each as html5ever parses it (the test over
/// every html5lib input holds the rest).
#[test]
fn the_tracker_completes_most_adoption_and_select_inputs() {
    let inputs = crate::corpus::tree_construction_inputs();
    let chosen: Vec<&(String, String)> = inputs
        .iter()
        .filter(|(name, data)| {
            name.starts_with("adoption") || data.to_ascii_lowercase().contains("<select")
        })
        .collect();
    let mut done = 0;
    let mut bails: BTreeMap<&str, usize> = BTreeMap::new();
    for (name, data) in &chosen {
        match tracker::parse_with(data, DocumentKind::Document, Attributes::All) {
            Ok(document) => {
                if let Err(why) = same_every_tag(&document, data, DocumentKind::Document) {
                    panic!("{name}: {why}\n{data:?}");
                }
                done += 1;
            }
            Err(Bail(why)) => *bails.entry(why).or_default() += 1,
        }
    }
    println!("{done} of {} completed, bailed {bails:?}", chosen.len());
    assert!(chosen.len() > 100, "{} inputs", chosen.len());
    assert!(
        done * 2 > chosen.len(),
        "{done} of {}: {bails:?}",
        chosen.len()
    );
}

mod well_formed {
    use proptest::prelude::*;
    use relink::html::tracker;
    use relink::html::tree::DocumentKind;

    use crate::html_corpus::same_document;

    /// Random attributes: none, or some of class, href, src, style, type,
    /// encoding, with quoted or bare values.
    fn attributes() -> impl Strategy<Value = String> {
        let one = prop_oneof![
            Just(" class=x"),
            Just(" href=\"a.html\""),
            Just(" src='i.png'"),
            Just(" style=\"color:red\""),
            Just(" id=y"),
            Just(" data-v"),
            Just(" title=\"a &amp; b\""),
        ];
        prop::collection::vec(one, 0..3).prop_map(|a| a.concat())
    }

    /// A fragment of body content, well formed, nested up to `depth`.
    fn content(depth: u32) -> BoxedStrategy<String> {
        let leaf = prop_oneof![
            Just("text ".to_owned()),
            Just(" \n".to_owned()),
            Just("&amp;".to_owned()),
            Just("<!-- c -->".to_owned()),
            attributes().prop_map(|a| format!("<img{a}>")),
            attributes().prop_map(|a| format!("<br{a}>")),
            attributes().prop_map(|a| format!("<input{a}>")),
            attributes().prop_map(|a| format!("<a{a}>link</a>")),
            attributes().prop_map(|a| format!("<style{a}>p {{ x: url(<b>) }}</style>")),
            attributes().prop_map(|a| format!("<script{a}>if (a<b) {{}}</script>")),
            attributes().prop_map(|a| format!("<textarea{a}><p>raw</textarea>")),
            Just("<title>t<i></title>".to_owned()),
            Just("<svg><path d=M0/><use href=#x /></svg>".to_owned()),
            Just("<math><mi>x</mi><annotation-xml encoding=text/html><div>h</div></annotation-xml></math>".to_owned()),
            Just("<base href=base/>".to_owned()),
            Just("<template><td>cell</td></template>".to_owned()),
            Just("<noscript><img src=n.png></noscript>".to_owned()),
            Just("<button type=submit>go</button>".to_owned()),
            Just("<object data=o.swf><param name=p value=v></object>".to_owned()),
            Just("<xmp><a href=x></xmp>".to_owned()),
            Just("<iframe src=f.html><p></iframe>".to_owned()),
            Just("<ruby>a<rt>b</rt><rp>c</rp></ruby>".to_owned()),
            Just("<pre>\nline</pre>".to_owned()),
            Just("<svg viewBox='0 0 1 1'><clipPath><rect/></clipPath><script>a<b</script></svg>".to_owned()),
        ];
        leaf.clone().prop_recursive(depth, 64, 4, move |inner| {
            let children = prop::collection::vec(inner, 0..4).prop_map(|c| c.concat());
            prop_oneof![
                (attributes(), children.clone()).prop_map(|(a, c)| format!("<div{a}>{c}</div>")),
                (attributes(), children.clone()).prop_map(|(a, c)| format!("<span{a}>{c}</span>")),
                (attributes(), children.clone()).prop_map(|(a, c)| format!("<section{a}>{c}</section>")),
                (attributes(), children.clone()).prop_map(|(a, c)| format!("<nav{a}>{c}</nav>")),
                (attributes(), children.clone()).prop_map(|(a, c)| format!("<header{a}>{c}</header>")),
                prop::collection::vec(leaf.clone(), 0..4).prop_map(|c| format!("<p>{}</p>", c.concat())),
                (attributes(), children.clone()).prop_map(|(a, c)| format!("<b{a}>{c}</b>")),
                (attributes(), children.clone()).prop_map(|(a, c)| format!("<em{a}><code>{c}</code></em>")),
                children.clone().prop_map(|c| format!("<ul><li>{c}<li>two</ul>")),
                children.clone().prop_map(|c| format!("<dl><dt>{c}<dd>d</dl>")),
                children.clone().prop_map(|c| format!("<h2>{c}</h2>")),
                (attributes(), children.clone()).prop_map(|(a, c)| format!(
                    "<table{a}><caption>c</caption><colgroup><col></colgroup>\
                     <thead><tr><th>h</th></tr></thead><tr><td{a}>{c}</td><td>x</table>"
                )),
                children.clone().prop_map(|c| format!("<table><tbody>\n<tr>\n<td>{c}</td></tr>\n</tbody></table>")),
                children.clone().prop_map(|c| format!(
                    "<svg><g><foreignObject><div>{c}</div></foreignObject><title>{c}</title></g></svg>"
                )),
                children.clone().prop_map(|c| format!("<math><mtext>{c}</mtext></math>")),
                children.clone().prop_map(|c| format!("<template><div>{c}</div></template>")),
                (attributes(), children).prop_map(|(a, c)| format!("<form{a}>{c}</form>")),
            ]
        })
        .boxed()
    }

    /// A whole document: with or without a doctype, head and body tags.
    fn document() -> impl Strategy<Value = String> {
        (any::<bool>(), any::<bool>(), content(4)).prop_map(|(doctype, explicit, body)| {
            let doctype = if doctype { "<!DOCTYPE html>\n" } else { "" };
            if explicit {
                format!(
                    "{doctype}<html lang=en><head><meta charset=utf-8><title>T</title>\
                     <link rel=stylesheet href=s.css></head>\n<body class=b>{body}</body></html>\n"
                )
            } else {
                format!("{doctype}<title>T</title>{body}")
            }
        })
    }

    proptest! {
        #[test]
        fn well_formed_documents_never_bail_and_agree(text in document()) {
            let tracked = tracker::parse(&text, DocumentKind::Document);
            prop_assert!(tracked.is_ok(), "{:?}: {:?}", text, tracked.err());
            let same = same_document(&tracked.unwrap(), &text, DocumentKind::Document);
            prop_assert!(same.is_ok(), "{:?}: {:?}", text, same);
        }
    }
}

mod tag_soup {
    use proptest::prelude::*;
    use relink::html::tokenizer::Attributes;
    use relink::html::tracker;
    use relink::html::tree::DocumentKind;

    /// Tags of every kind the tracker models and some it bails on, in any
    /// order: mostly ill-formed documents.
    fn soup() -> impl Strategy<Value = String> {
        let names = prop_oneof![
            Just("html"),
            Just("head"),
            Just("body"),
            Just("title"),
            Just("base"),
            Just("meta"),
            Just("style"),
            Just("script"),
            Just("noscript"),
            Just("template"),
            Just("nav"),
            Just("footer"),
            Just("p"),
            Just("div"),
            Just("li"),
            Just("ul"),
            Just("dd"),
            Just("dt"),
            Just("h1"),
            Just("h2"),
            Just("pre"),
            Just("form"),
            Just("button"),
            Just("a"),
            Just("b"),
            Just("i"),
            Just("nobr"),
            Just("table"),
            Just("caption"),
            Just("colgroup"),
            Just("col"),
            Just("tbody"),
            Just("tr"),
            Just("td"),
            Just("th"),
            Just("input"),
            Just("svg"),
            Just("math"),
            Just("mi"),
            Just("foreignobject"),
            Just("desc"),
            Just("annotation-xml"),
            Just("font"),
            Just("br"),
            Just("img"),
            Just("object"),
            Just("option"),
            Just("ruby"),
            Just("rt"),
            Just("textarea"),
            Just("plaintext"),
            Just("span"),
            Just("image"),
            Just("frameset"),
            Just("select"),
            Just("optgroup"),
            Just("hr"),
            Just("em"),
        ];
        let attrs = prop_oneof![
            Just(""),
            Just(" href=x"),
            Just(" type=hidden"),
            Just(" color=red"),
            Just(" encoding=text/html"),
            Just(" class=c"),
            Just(" shadowrootmode=open"),
        ];
        let piece = prop_oneof![
            4 => (names.clone(), attrs, any::<bool>()).prop_map(|(n, a, s)| {
                format!("<{n}{a}{}>", if s { "/" } else { "" })
            }),
            3 => names.prop_map(|n| format!("</{n}>")),
            1 => Just("x".to_owned()),
            1 => Just(" ".to_owned()),
            1 => Just("\0".to_owned()),
            1 => Just("<!--c-->".to_owned()),
            1 => Just("<![CDATA[d]]>".to_owned()),
            1 => Just("<!DOCTYPE html>".to_owned()),
        ];
        prop::collection::vec(piece, 0..30).prop_map(|p| p.concat())
    }

    proptest! {
        #[test]
        fn tag_soup_agrees_wherever_the_tracker_completes(text in soup(), srcdoc in any::<bool>()) {
            let kind = if srcdoc { DocumentKind::IframeSrcdoc } else { DocumentKind::Document };
            if let Ok(document) = tracker::parse_with(&text, kind, Attributes::All) {
                let same = super::same_every_tag(&document, &text, kind);
                prop_assert!(same.is_ok(), "{:?}: {:?}", text, same);
            }
        }
    }
}
