//! EPUB books: the links of every file of a book (content documents,
//! package document, navigation document, NCX, style sheets) listed as
//! container paths or URLs, a rewrite that changes only links leaving the
//! book, and a book written again that epubcheck judges as before.

use std::io::{Cursor, Read, Write};
use std::process::Command;

use relink::{Input, Kind, LinkRow, Output, Rewriter, WarningKind};
use zip::write::{FullFileOptions, SimpleFileOptions};
use zip::{CompressionMethod, DateTime, ZipArchive, ZipWriter};

use crate::cli::relink;
use crate::{files_under, fixture};

const CONTAINER: &str = r#"<?xml version="1.0" encoding="UTF-8"?>
<container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container">
  <rootfiles><rootfile full-path="OEBPS/content.opf" media-type="application/oebps-package+xml"/></rootfiles>
</container>"#;

/// A book of `files` (container paths and bytes): `mimetype` first and
/// stored, every other file deflated, in the order given.
fn book(files: &[(&str, &[u8])]) -> Vec<u8> {
    let mut zip = ZipWriter::new(Cursor::new(Vec::new()));
    let stored = SimpleFileOptions::default().compression_method(CompressionMethod::Stored);
    zip.start_file("mimetype", stored).unwrap();
    zip.write_all(b"application/epub+zip").unwrap();
    for (name, bytes) in files {
        zip.start_file(*name, SimpleFileOptions::default()).unwrap();
        zip.write_all(bytes).unwrap();
    }
    zip.finish().unwrap().into_inner()
}

/// A book of a folder of `fixtures/epub/` (see its MANIFEST), `edit`
/// done to its files.
fn fixture_book_with(name: &str, edit: impl Fn(&str, Vec<u8>) -> Vec<u8>) -> Vec<u8> {
    let files: Vec<(String, Vec<u8>)> = files_under(&fixture(&format!("epub/{name}")))
        .into_iter()
        .filter(|(path, _)| path != "mimetype")
        .map(|(path, bytes)| {
            let bytes = edit(&path, bytes);
            (path, bytes)
        })
        .collect();
    let files: Vec<(&str, &[u8])> = files.iter().map(|(p, b)| (p.as_str(), &b[..])).collect();
    book(&files)
}

/// A book of a folder of `fixtures/epub/`, as it is.
fn fixture_book(name: &str) -> Vec<u8> {
    fixture_book_with(name, |_, bytes| bytes)
}

const OPF: &str = r#"<?xml version="1.0" encoding="UTF-8"?>
<package xmlns="http://www.idpf.org/2007/opf" version="3.0" unique-identifier="id">
  <metadata xmlns:dc="http://purl.org/dc/elements/1.1/">
    <dc:identifier id="id">urn:uuid:12345678-1234-1234-1234-123456789abc</dc:identifier>
    <dc:title>Made</dc:title><dc:language>en</dc:language>
    <meta property="dcterms:modified">2024-01-01T00:00:00Z</meta>
    <link rel="record" href="http://example.org/record.xml" media-type="application/xml"/>
  </metadata>
  <manifest>
    <item id="nav" href="nav.xhtml" properties="nav" media-type="application/xhtml+xml"/>
    <item id="ch1" href="text/ch1.xhtml" media-type="application/xhtml+xml"/>
    <item id="ch2" href="text/ch2.xhtml" media-type="application/xhtml+xml"/>
    <item id="css" href="style/book.css" media-type="text/css"/>
    <item id="ncx" href="toc.ncx" media-type="application/x-dtbncx+xml"/>
  </manifest>
  <spine toc="ncx"><itemref idref="ch1"/><itemref idref="ch2"/></spine>
  <guide><reference type="text" title="Start" href="text/ch1.xhtml"/></guide>
</package>"#;

const NAV: &str = r#"<?xml version="1.0" encoding="UTF-8"?>
<html xmlns="http://www.w3.org/1999/xhtml" xmlns:epub="http://www.idpf.org/2007/ops"><head><title>Contents</title></head>
<body><nav epub:type="toc"><ol><li><a href="text/ch1.xhtml">One</a></li><li><a href="text/ch2.xhtml#s">Two</a></li></ol></nav></body></html>"#;

const NCX: &str = r#"<?xml version="1.0" encoding="UTF-8"?>
<ncx xmlns="http://www.daisy.org/z3986/2005/ncx/" version="2005-1">
<head><meta name="dtb:uid" content="urn:uuid:12345678-1234-1234-1234-123456789abc"/></head>
<docTitle><text>Made</text></docTitle>
<navMap><navPoint id="n1" playOrder="1"><navLabel><text>One</text></navLabel><content src="text/ch1.xhtml"/></navPoint></navMap>
</ncx>"#;

const CH1: &str = r#"<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE html>
<html xmlns="http://www.w3.org/1999/xhtml"><head><title>One</title>
<link rel="stylesheet" type="text/css" href="../style/book.css"/></head>
<body><p><a href="ch2.xhtml#s">next</a> <a href="http://example.org/x">web</a>
<a href="//cdn.example/page.html">cdn</a> <a href="../../../up.html">up</a></p></body></html>"#;

const CH2: &str = r#"<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE html>
<html xmlns="http://www.w3.org/1999/xhtml"><head><title>Two</title></head>
<body><p id="s"><a href="ch1.xhtml">back</a> <a href="gone.xhtml">gone</a></p></body></html>"#;

const CSS: &str = "body { background: url(../text/missing.png) }\n";

/// A book made here: an EPUB 3 package with a navigation document, an
/// NCX for EPUB 2 readers, two chapters and a style sheet.
fn made_book(ch1: &str) -> Vec<u8> {
    book(&[
        ("META-INF/container.xml", CONTAINER.as_bytes()),
        ("OEBPS/content.opf", OPF.as_bytes()),
        ("OEBPS/nav.xhtml", NAV.as_bytes()),
        ("OEBPS/toc.ncx", NCX.as_bytes()),
        ("OEBPS/text/ch1.xhtml", ch1.as_bytes()),
        ("OEBPS/text/ch2.xhtml", CH2.as_bytes()),
        ("OEBPS/style/book.css", CSS.as_bytes()),
    ])
}

/// (file of the book, element, original, resolved or null) of every row.
fn rows_of(rows: &[LinkRow]) -> Vec<(String, String, String, Option<String>)> {
    rows.iter()
        .map(|row| {
            let link = &row.link;
            (
                row.part.clone().unwrap_or_default(),
                link.place.to_string(),
                link.original.clone(),
                link.base.as_ref().map(|_| link.resolved.clone()),
            )
        })
        .collect()
}

fn row(
    part: &str,
    place: &str,
    original: &str,
    resolved: Option<&str>,
) -> (String, String, String, Option<String>) {
    (
        part.into(),
        place.into(),
        original.into(),
        resolved.map(Into::into),
    )
}

/// Some rows of the book of `made_book(CH1)`, one of each kind of file.
fn expected_rows() -> Vec<(String, String, String, Option<String>)> {
    vec![
        row(
            "META-INF/container.xml",
            "<rootfile full-path>",
            "OEBPS/content.opf",
            Some("OEBPS/content.opf"),
        ),
        row(
            "OEBPS/content.opf",
            "<link href>",
            "http://example.org/record.xml",
            Some("http://example.org/record.xml"),
        ),
        row(
            "OEBPS/content.opf",
            "<item href>",
            "text/ch1.xhtml",
            Some("OEBPS/text/ch1.xhtml"),
        ),
        row(
            "OEBPS/content.opf",
            "<reference href>",
            "text/ch1.xhtml",
            Some("OEBPS/text/ch1.xhtml"),
        ),
        row(
            "OEBPS/nav.xhtml",
            "<a href>",
            "text/ch2.xhtml#s",
            Some("OEBPS/text/ch2.xhtml#s"),
        ),
        row(
            "OEBPS/toc.ncx",
            "<content src>",
            "text/ch1.xhtml",
            Some("OEBPS/text/ch1.xhtml"),
        ),
        row(
            "OEBPS/text/ch1.xhtml",
            "<link href>",
            "../style/book.css",
            Some("OEBPS/style/book.css"),
        ),
        row(
            "OEBPS/text/ch1.xhtml",
            "<a href>",
            "ch2.xhtml#s",
            Some("OEBPS/text/ch2.xhtml#s"),
        ),
        row(
            "OEBPS/text/ch1.xhtml",
            "<a href>",
            "http://example.org/x",
            Some("http://example.org/x"),
        ),
        // Leaving the book with no URL outside it: no base.
        row(
            "OEBPS/text/ch1.xhtml",
            "<a href>",
            "//cdn.example/page.html",
            None,
        ),
        row("OEBPS/text/ch1.xhtml", "<a href>", "../../../up.html", None),
        row(
            "OEBPS/text/ch2.xhtml",
            "<a href>",
            "gone.xhtml",
            Some("OEBPS/text/gone.xhtml"),
        ),
        row(
            "OEBPS/style/book.css",
            "css",
            "../text/missing.png",
            Some("OEBPS/text/missing.png"),
        ),
    ]
}

#[test]
fn every_file_of_a_book_gives_its_links_as_container_paths() {
    let book = made_book(CH1);
    let out = Rewriter::new().rewrite(&book).unwrap();
    let rows = rows_of(out.rows());
    let expected = expected_rows();
    for expected in expected {
        assert!(rows.contains(&expected), "{expected:?} not in {rows:#?}");
    }
    assert_eq!(rows.len(), 19, "{rows:#?}");
    assert!(out.rows().iter().all(|r| !r.link.changed));
    // A link to a file the book lacks: a warning naming the file it is in.
    let missing: Vec<String> = out
        .warnings()
        .iter()
        .filter(|w| w.kind == WarningKind::NotInContainer)
        .map(ToString::to_string)
        .collect();
    assert_eq!(
        missing,
        [
            "OEBPS/text/ch2.xhtml: line 4, column 55: <a href>: the container holds no OEBPS/text/gone.xhtml",
            "OEBPS/style/book.css: line 1, column 24: css: the container holds no OEBPS/text/missing.png",
        ]
    );
    let base = out.rows()[0].link.base.as_ref().unwrap();
    assert_eq!(base.url.as_str(), "epub:/");
    assert_eq!(base.source.to_string(), "the file's place in the book");
}

#[test]
fn a_book_is_told_by_its_name_and_by_its_first_entry() {
    let book = made_book(CH1);
    let kind = |input: Input<'_>| {
        Rewriter::new()
            .run(input, Output::Nowhere, &mut |_| Ok(()))
            .unwrap()
            .kind
    };
    assert_eq!(kind(Input::bytes(&book)), Some(Kind::Epub));
    assert_eq!(
        kind(Input::bytes(&book).named("book.bin")),
        Some(Kind::Epub)
    );
    assert_eq!(Kind::from_name("Book.EPUB".as_ref()), Some(Kind::Epub));
    assert_eq!(Kind::named("epub"), Some(Kind::Epub));
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("made.epub");
    std::fs::write(&path, &book).unwrap();
    let out = relink(
        &[
            "--type",
            "epub",
            "--list",
            "--format",
            "urls",
            path.to_str().unwrap(),
        ],
        b"",
    );
    assert!(out.status.success(), "{out:?}");
    // Only URLs to check: a container path is no URL.
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "http://example.org/record.xml\nhttp://example.org/x\n"
    );
}

/// The entries of a zip: name, method, time, data.
fn entries(zip: &[u8]) -> Vec<(String, CompressionMethod, Option<DateTime>, Vec<u8>)> {
    let mut archive = ZipArchive::new(Cursor::new(zip)).unwrap();
    (0..archive.len())
        .map(|i| {
            let mut file = archive.by_index(i).unwrap();
            let mut data = Vec::new();
            file.read_to_end(&mut data).unwrap();
            (
                file.name().unwrap().into_owned(),
                file.compression(),
                file.last_modified(),
                data,
            )
        })
        .collect()
}

#[test]
fn links_leaving_the_book_resolve_against_the_retrieval_url_and_no_other_changes() {
    let input = made_book(CH1);
    let out = Rewriter::new()
        .retrieved_from("http://example.org/a/b/c/page.html")
        .rewrite(&input)
        .unwrap();
    let changed: Vec<(&str, &str)> = out
        .rows()
        .iter()
        .filter(|r| r.link.changed)
        .map(|r| (r.link.original.as_str(), r.link.resolved.as_str()))
        .collect();
    assert_eq!(
        changed,
        [
            ("//cdn.example/page.html", "http://cdn.example/page.html"),
            ("../../../up.html", "http://example.org/up.html")
        ]
    );
    let output = out.bytes().to_vec();
    let (before, after) = (entries(&input), entries(&output));
    assert_eq!(before.len(), after.len());
    for (old, new) in before.iter().zip(&after) {
        assert_eq!((&old.0, old.1, old.2), (&new.0, new.1, new.2));
        if old.0 != "OEBPS/text/ch1.xhtml" {
            assert_eq!(old.3, new.3, "{}", old.0);
        }
    }
    let ch1 = String::from_utf8(after[5].3.clone()).unwrap();
    assert_eq!(
        ch1,
        CH1.replace("//cdn.example/page.html", "http://cdn.example/page.html")
            .replace("../../../up.html", "http://example.org/up.html")
    );
}

/// Each entry's local header, data and central record, as the zip holds them.
fn raw_entries(zip: &[u8]) -> Vec<(Vec<u8>, Vec<u8>)> {
    let mut archive = ZipArchive::new(Cursor::new(zip)).unwrap();
    (0..archive.len())
        .map(|i| {
            let file = archive.by_index_raw(i).unwrap();
            let start = file.header_start() as usize;
            let end = file.data_start().unwrap() as usize + file.compressed_size() as usize;
            let central = file.central_header_start() as usize;
            let lengths = |at: usize| u16::from_le_bytes([zip[at], zip[at + 1]]) as usize;
            let len = 46 + lengths(central + 28) + lengths(central + 30) + lengths(central + 32);
            let mut record = zip[central..central + len].to_vec();
            // The offset of the local header moves.
            record[42..46].fill(0);
            (zip[start..end].to_vec(), record)
        })
        .collect()
}

#[test]
fn a_rewritten_book_keeps_mimetype_first_and_stored_and_every_other_entry_as_it_was() {
    let mut zip = ZipWriter::new(Cursor::new(Vec::new()));
    let time = DateTime::from_date_and_time(2020, 5, 17, 10, 30, 2).unwrap();
    let stored = SimpleFileOptions::default()
        .compression_method(CompressionMethod::Stored)
        .last_modified_time(time);
    zip.start_file("mimetype", stored).unwrap();
    zip.write_all(b"application/epub+zip").unwrap();
    let files = [
        ("META-INF/container.xml", CONTAINER),
        ("OEBPS/content.opf", OPF),
        ("OEBPS/nav.xhtml", NAV),
        ("OEBPS/toc.ncx", NCX),
        ("OEBPS/text/ch1.xhtml", CH1),
        ("OEBPS/text/ch2.xhtml", CH2),
        ("OEBPS/style/book.css", CSS),
    ];
    for (n, (name, text)) in files.iter().enumerate() {
        let mut options = FullFileOptions::default().last_modified_time(time);
        if n % 2 == 0 {
            options = options.compression_method(CompressionMethod::Stored);
        }
        // An extra field of a writer's own, kept as it was.
        options
            .add_extra_field(0x6c78, [n as u8, 1, 2, 3], false)
            .unwrap();
        zip.start_file(*name, options).unwrap();
        zip.write_all(text.as_bytes()).unwrap();
    }
    zip.set_comment("a book").unwrap();
    let input = zip.finish().unwrap().into_inner();
    let rewriter = Rewriter::new().retrieved_from("http://example.org/a/b/c/");
    let output = rewriter.rewrite(&input).unwrap().bytes().to_vec();
    assert_ne!(output, input);
    assert!(output.starts_with(b"PK\x03\x04"));
    assert_eq!(&output[30..38], b"mimetype");
    assert_eq!(&output[38..58], b"application/epub+zip");
    assert_eq!(u16::from_le_bytes([output[8], output[9]]), 0, "stored");
    let (before, after) = (raw_entries(&input), raw_entries(&output));
    let names: Vec<String> = entries(&output).into_iter().map(|e| e.0).collect();
    assert_eq!(
        names,
        entries(&input).into_iter().map(|e| e.0).collect::<Vec<_>>()
    );
    for (i, name) in names.iter().enumerate() {
        if name != "OEBPS/text/ch1.xhtml" {
            assert_eq!(before[i], after[i], "{name}");
        }
    }
    let mut archive = ZipArchive::new(Cursor::new(&output[..])).unwrap();
    assert_eq!(archive.comment(), b"a book");
    let ch1 = archive.by_name("OEBPS/text/ch1.xhtml").unwrap();
    assert_eq!(ch1.compression(), CompressionMethod::Stored);
    assert_eq!(ch1.last_modified(), Some(time));
    assert_eq!(
        ch1.extra_data().as_deref(),
        Some(&[0x78, 0x6c, 4, 0, 4, 1, 2, 3][..])
    );
}

#[test]
fn a_book_with_nothing_to_change_comes_back_byte_for_byte() {
    let books = [
        fixture_book("wasteland"),
        fixture_book("hefty-water"),
        fixture_book("epub2-minimal"),
        made_book(CH1),
    ];
    for (n, input) in books.iter().enumerate() {
        // No URL outside the book; and the sample books leave it nowhere.
        let mut rewriters = vec![Rewriter::new()];
        if n < 3 {
            rewriters.push(Rewriter::new().retrieved_from("http://example.org/book/"));
        }
        for rewriter in rewriters {
            let mut out = Vec::new();
            let report = rewriter
                .run(Input::bytes(input), Output::Always(&mut out), &mut |_| {
                    Ok(())
                })
                .unwrap();
            assert!(!report.changed, "book {n}");
            assert!(out == *input, "book {n}");
        }
    }
    let rows = Rewriter::new().rewrite(&books[2]).unwrap();
    let epub2 = rows_of(rows.rows());
    assert!(epub2.contains(&row(
        "OPS/toc.ncx",
        "<content src>",
        "content_001.xhtml",
        Some("OPS/content_001.xhtml")
    )));
    assert!(epub2.contains(&row(
        "OPS/package.opf",
        "<item href>",
        "toc.ncx",
        Some("OPS/toc.ncx")
    )));
}

/// Options that make a short run of the JVM cheap (epubcheck takes about
/// twenty seconds of CPU a book with its defaults, six with these): the
/// quick compiler only, the serial collector, and the classes it loaded
/// kept in an archive of the test's first run, read by the next ones.
fn quick_jvm() -> Vec<String> {
    static ARCHIVE: std::sync::Mutex<bool> = std::sync::Mutex::new(false);
    let path = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("epubcheck.jsa");
    let mut made = ARCHIVE.lock().unwrap_or_else(|e| e.into_inner());
    let archive = if *made {
        format!("-XX:SharedArchiveFile={}", path.display())
    } else {
        *made = true;
        format!("-XX:ArchiveClassesAtExit={}", path.display())
    };
    vec![
        "-XX:TieredStopAtLevel=1".into(),
        "-XX:+UseSerialGC".into(),
        archive,
    ]
}

/// epubcheck's messages of a book, its file name taken out.
fn epubcheck(book: &[u8], dir: &std::path::Path, name: &str) -> Vec<String> {
    let path = dir.join(name);
    std::fs::write(&path, book).unwrap();
    // Debian's `epubcheck` is its jar, run by binfmt_misc where that is set up.
    let jar = std::path::Path::new("/usr/share/java/epubcheck.jar");
    let mut command = if jar.exists() {
        let mut java = Command::new("java");
        java.args(quick_jvm()).arg("-jar").arg(jar);
        java
    } else {
        Command::new("epubcheck")
    };
    let out = command
        .arg(&path)
        .output()
        .expect("epubcheck is not installed: tests/run.sh installs it (Debian's epubcheck)");
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    let path = path.to_string_lossy().into_owned();
    text.lines()
        .filter(|l| l.starts_with("ERROR") || l.starts_with("WARNING") || l.starts_with("FATAL"))
        .map(|l| l.replace(&path, "BOOK"))
        .collect()
}

#[test]
fn epubcheck_says_the_same_of_every_book_before_and_after() {
    let dir = tempfile::tempdir().unwrap();
    // A quotation's source outside the book (epubcheck does not follow
    // it): made absolute.
    let quoted = |path: &str, bytes: Vec<u8>| {
        if !path.ends_with("content_001.xhtml") {
            return bytes;
        }
        let page = String::from_utf8(bytes).unwrap();
        let quote = "<p><q cite=\"//quotes.example/ishmael\">Call me Ishmael.</q></p>";
        page.replace("<p>Call me Ishmael.</p>", quote).into_bytes()
    };
    let made = CH1
        .replace(
            "<p><a",
            "<blockquote cite=\"//quotes.example/source\"><p>q</p></blockquote><p><a",
        )
        .replace(" <a href=\"../../../up.html\">up</a>", "")
        .replace("<a href=\"//cdn.example/page.html\">cdn</a>", "");
    let books = [
        ("wasteland", fixture_book("wasteland"), false),
        ("hefty-water", fixture_book("hefty-water"), false),
        ("epub2-minimal", fixture_book("epub2-minimal"), false),
        (
            "epub2-quoted",
            fixture_book_with("epub2-minimal", quoted),
            true,
        ),
        ("made", made_book(&made), true),
    ];
    for (name, input, changes) in books {
        let out = Rewriter::new()
            .retrieved_from("http://example.org/a/b/")
            .rewrite(&input)
            .unwrap();
        let output = out.bytes().to_vec();
        if !changes {
            // The same bytes: epubcheck cannot say otherwise of them.
            assert!(output == input, "{name} changed");
            continue;
        }
        assert!(output != input, "{name} did not change");
        let before = epubcheck(&input, dir.path(), "before.epub");
        let after = epubcheck(&output, dir.path(), "after.epub");
        assert_eq!(before, after, "{name}");
    }
}

#[test]
fn a_broken_zip_or_a_book_without_its_container_document_is_refused_by_name() {
    let book = made_book(CH1);
    let cut = &book[..book.len() - 30];
    let err = Rewriter::new().kind(Kind::Epub).rewrite(cut).unwrap_err();
    assert!(err.to_string().starts_with("zip archive: "), "{err}");
    let without = self::book(&[("OEBPS/content.opf", OPF.as_bytes())]);
    let err = Rewriter::new().rewrite(&without).unwrap_err();
    assert_eq!(
        err.to_string(),
        "META-INF/container.xml: missing: not an EPUB book"
    );
    for bytes in [b"PK\x03\x04".to_vec(), Vec::new(), book[..200].to_vec()] {
        assert!(Rewriter::new().kind(Kind::Epub).rewrite(&bytes).is_err());
    }
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("no-container.epub");
    std::fs::write(&path, &without).unwrap();
    let out = relink(&["--list", path.to_str().unwrap()], b"");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(
        stderr.contains("no-container.epub") && stderr.contains("META-INF/container.xml: missing"),
        "{stderr}"
    );
}

#[test]
fn explain_names_each_file_of_the_book_and_in_place_rewrites_it() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("made.epub");
    let input = made_book(CH1);
    std::fs::write(&path, &input).unwrap();
    let name = path.to_str().unwrap();
    let out = relink(&["explain", name], b"");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{out:?}");
    for line in [
        "  META-INF/container.xml\n    the file's place in the book: epub:/ (gives the base)",
        "  OEBPS/text/ch1.xhtml\n    the file's place in the book: epub:/OEBPS/text/ch1.xhtml (gives the base)",
    ] {
        assert!(text.contains(line), "{line:?} not in {text}");
    }
    let base = "--retrieved-from=http://example.org/a/b/c/";
    let out = relink(&["--in-place", base, name], b"");
    assert!(out.status.success(), "{out:?}");
    let output = std::fs::read(&path).unwrap();
    let expected = Rewriter::new()
        .retrieved_from("http://example.org/a/b/c/")
        .rewrite(&input)
        .unwrap();
    assert!(
        output != input && output == expected.bytes(),
        "in place as in memory"
    );
    // A second pass changes nothing.
    let again = Rewriter::new()
        .retrieved_from("http://example.org/a/b/c/")
        .rewrite(&output)
        .unwrap();
    assert!(!again.changed());
}

/// A hostile book through the command line, measured: its CPU time, peak
/// resident set and lines on standard output (`crate::memory::MEASURE`
/// runs it from a small process).
#[cfg(target_os = "linux")]
fn measured(book: &std::path::Path, args: &[&str]) -> crate::memory::Run {
    let given = [
        book.to_str().unwrap(),
        "--retrieved-from",
        "https://example.org/books/b.epub",
        "-j",
        "1",
    ];
    let all: Vec<&std::ffi::OsStr> = given.iter().chain(args).map(|a| a.as_ref()).collect();
    let run = crate::memory::measure(std::path::Path::new(env!("CARGO_BIN_EXE_relink")), &all);
    assert!(
        (0..=1).contains(&run.status),
        "relink {args:?} exited with {}",
        run.status
    );
    run
}

/// A book of `files` with a package document listing them as XHTML, and
/// the size of its entries uncompressed.
fn hostile_book(files: Vec<(String, String)>) -> (Vec<u8>, u64) {
    // What the links of the shapes reach, so that no link warns of a file
    // the book lacks (a warning is kept to the end, some 400 bytes each).
    let reached = [
        ("OEBPS/s.css", "p { margin: 0 }\n"),
        ("OEBPS/img/cover.png", "PNG"),
        (
            "OEBPS/text/c.xhtml",
            "<html xmlns=\"http://www.w3.org/1999/xhtml\"/>",
        ),
    ];
    let items: String = files
        .iter()
        .enumerate()
        .map(|(i, (name, _))| {
            let href = name.trim_start_matches("OEBPS/");
            format!("<item id=\"i{i}\" href=\"{href}\" media-type=\"application/xhtml+xml\"/>")
        })
        .collect();
    let opf = format!(
        "<?xml version=\"1.0\"?>\n<package xmlns=\"http://www.idpf.org/2007/opf\" \
         version=\"3.0\"><manifest>{items}</manifest></package>"
    );
    let mut all = vec![
        ("META-INF/container.xml".to_owned(), CONTAINER.to_owned()),
        ("OEBPS/content.opf".to_owned(), opf),
    ];
    all.extend(files);
    all.extend(reached.map(|(name, text)| (name.to_owned(), text.to_owned())));
    let size = all.iter().map(|(_, text)| text.len() as u64).sum::<u64>() + 20;
    let files: Vec<(&str, &[u8])> = all
        .iter()
        .map(|(name, text)| (name.as_str(), text.as_bytes()))
        .collect();
    (book(&files), size)
}

/// `n` small chapters of a paragraph, each with a few relative links: one
/// to the next chapter (the last to the first), one to a style sheet of
/// the book, one to an image the book lacks (a warning each, kept to the
/// end: before, the decompressor of each entry left a hole behind it),
/// one leaving the book (`//cdn.example/`), which a rewrite makes
/// absolute.
fn many_chapters(n: usize) -> (Vec<u8>, u64) {
    let paragraph = "A paragraph of a chapter, as a small book has some. ".repeat(5);
    hostile_book(
        (0..n)
            .map(|i| {
                let page = format!(
                    "<html xmlns=\"http://www.w3.org/1999/xhtml\"><head><link rel=\"stylesheet\" \
                     href=\"../s.css\"/></head><body><p>{paragraph}</p>\n<p><a href=\"c{}.xhtml\">\
                     next</a> <a href=\"//cdn.example/{i}.html\">web</a> \
                     <img src=\"../img/{i}.png\"/></p></body></html>",
                    (i + 1) % n
                );
                (format!("OEBPS/text/c{i}.xhtml"), page)
            })
            .collect(),
    )
}

/// A navigation document of `n` entries, nested `n` deep (`deep`) or one
/// after another; every other link leaves the book, so a rewrite changes
/// half of them.
fn navigation(n: usize, deep: bool) -> (Vec<u8>, u64) {
    let mut nav = String::from("<html xmlns=\"http://www.w3.org/1999/xhtml\"><body><nav><ol>");
    for i in 0..n {
        let href = if i % 2 == 0 {
            format!("text/c.xhtml#p{i}")
        } else {
            format!("//cdn.example/{i}")
        };
        nav.push_str(&format!("<li><a href=\"{href}\">{i}</a>"));
        nav.push_str(if deep { "<ol>" } else { "</li>\n" });
    }
    if deep {
        nav.push_str(&"</ol></li>".repeat(n));
    }
    nav.push_str("</ol></nav></body></html>");
    hostile_book(vec![("OEBPS/nav.xhtml".to_owned(), nav)])
}

/// Whether a link leaving the book was made absolute in an XHTML file of
/// `book` (the first that has one).
fn made_absolute(book: &[u8]) -> bool {
    let mut zip = ZipArchive::new(Cursor::new(book)).unwrap();
    (0..zip.len()).any(|i| {
        let mut file = zip.by_index(i).unwrap();
        let mut text = String::new();
        file.name().is_ok_and(|name| name.ends_with(".xhtml"))
            && file.read_to_string(&mut text).is_ok()
            && text.contains("href=\"https://cdn.example/")
    })
}

/// Runs the command line over each hostile book `make` makes at `sizes`
/// (the second four times the first) and a tiny one, writing it with
/// `-o` and listing it (`--list`): the larger takes at most ten times as
/// long in CPU time (a quadratic reading takes sixteen),
/// lists four times the rows, and each peaks at most `times` the book's
/// entries (uncompressed) above the peak on the tiny book. The entries,
/// not the .epub file: a reader holds the entry it reads decompressed,
/// and a nav of repeated markup deflates ten times smaller.
#[cfg(target_os = "linux")]
fn linear_in_time_and_memory(
    shape: &str,
    make: &dyn Fn(usize) -> (Vec<u8>, u64),
    sizes: [usize; 2],
    times: u64,
) {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.epub");
    let out_args = ["-o", out.to_str().unwrap()];
    for args in [&out_args[..], &["--list"]] {
        let runs =
            crate::memory::linear_at_two_sizes(&format!("{shape} {args:?}"), sizes, times, |n| {
                let (bytes, size) = make(n);
                let path = dir.path().join(format!("{shape}{n}.epub"));
                std::fs::write(&path, bytes).unwrap();
                let run = measured(&path, args);
                if args[0] == "-o" && n > 1 {
                    let written = std::fs::read(&out).unwrap();
                    assert!(made_absolute(&written), "{shape} {n}: not rewritten");
                    std::fs::remove_file(&out).unwrap();
                }
                (size, run)
            });
        if args[0] == "--list" {
            let rows = runs.map(|run| run.lines);
            assert!(rows[1] > 3 * rows[0] && rows[0] >= sizes[0], "{rows:?}");
        }
    }
}

/// A book of thousands of small chapters (2,000 and 8,000 in the debug
/// build; the shape scales, ten times that in a release build). Before,
/// each entry's decompressor (and each changed entry's compressor) left
/// its state as a hole in the heap, behind the warning of the entry: 200
/// MB for 8,000 chapters of 2.4 MB, 76 times.
#[cfg(target_os = "linux")]
#[test]
fn a_book_of_many_entries_takes_linear_time_and_bounded_memory() {
    let sizes = if cfg!(debug_assertions) {
        [2_000, 8_000]
    } else {
        [20_000, 80_000]
    };
    linear_in_time_and_memory("chapters", &many_chapters, sizes, 5);
}

/// The sizes of the navigation documents: 16,000 and 64,000 entries, 0.9
/// and 3.6 MB nested, in the debug build (ten times that in a release
/// build), the smaller under the mebibyte below which the XML reader kept
/// a listed document's links to its end.
fn navigation_sizes() -> [usize; 2] {
    if cfg!(debug_assertions) {
        [16_000, 64_000]
    } else {
        [160_000, 640_000]
    }
}

/// A navigation document nested thousands deep. Before, the XML reader's
/// frame of each open element held room for a capture, and a listing kept
/// the links of a document under a mebibyte to its end: 10 times a nav of
/// 16,000 written, 15 times listed.
#[cfg(target_os = "linux")]
#[test]
fn a_deep_navigation_document_takes_linear_time_and_bounded_memory() {
    let deep = |n| navigation(n, true);
    linear_in_time_and_memory("deep", &deep, navigation_sizes(), 5);
}

/// A navigation document of thousands of entries one after another (8.5
/// times a listed nav of 16,000 before).
#[cfg(target_os = "linux")]
#[test]
fn a_long_navigation_document_takes_linear_time_and_bounded_memory() {
    let long = |n| navigation(n, false);
    linear_in_time_and_memory("long", &long, navigation_sizes(), 5);
}

/// A navigation document nested 100,000 deep is listed through, every
/// link of it, without overflowing a stack.
#[cfg(target_os = "linux")]
#[test]
fn a_navigation_document_nested_100000_deep_is_read_through() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("deep.epub");
    std::fs::write(&path, navigation(100_000, true).0).unwrap();
    let lines = measured(&path, &["--list"]).lines;
    assert!(lines > 100_000, "{lines} lines");
}
