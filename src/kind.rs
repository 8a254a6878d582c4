//! What a file is: by the extension of its name first, by its content when
//! the name has no known extension. A Maildir, a directory, is found by
//! the command line's walk.

use std::path::Path;

use crate::mime::mbox;

/// The kinds of input relink reads.
///
/// ```
/// use relink::{Input, Kind, Output, Rewriter};
/// let tell = |input: Input<'_>| Rewriter::new().run(input, Output::Nowhere, &mut |_| Ok(())).map(|r| r.kind);
/// assert_eq!(tell(Input::bytes(b"<!doctype html><p>"))?, Some(Kind::Html));
/// assert_eq!(tell(Input::bytes(b"# Title").named("README.md"))?, Some(Kind::Markdown));
/// assert_eq!(tell(Input::bytes(b"p { color: red }").kind(Kind::Css))?, Some(Kind::Css));
/// # Ok::<(), relink::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// An HTML document.
    Html,
    /// A style sheet.
    Css,
    /// One message: `.eml`, or MHTML.
    Message,
    /// An mbox archive.
    Mbox,
    /// A web archive: WARC (ISO 28500) of any version, or ARC; gzipped or
    /// not.
    Warc,
    /// A WACZ package (a zip of WARC files, their indexes and pages).
    Wacz,
    /// An XML document: an Atom or RSS feed, RSS 1.0 (RDF), SVG, or XHTML
    /// (which is read as HTML unless it is well-formed XML with its root in
    /// the XHTML namespace).
    Xml,
    /// A Markdown document (CommonMark with GitHub's tables, footnotes and
    /// autolinks).
    Markdown,
    /// A reStructuredText document (a README as docutils renders it).
    Rst,
    /// A sitemap (sitemaps.org: `urlset` or `sitemapindex`) or an OPML
    /// outline, read as XML: a `.xml` file is one when its root element
    /// says so.
    Sitemap,
    /// A robots.txt (RFC 9309), told by its file name: its `Sitemap:`
    /// lines.
    Robots,
    /// A Jupyter notebook (`.ipynb`): its Markdown cells and its HTML, SVG
    /// and Markdown outputs.
    Notebook,
    /// An EPUB book (EPUB 2 or 3): its content documents, package
    /// document, navigation document, NCX and style sheets.
    Epub,
}

/// What the one table says of a kind of input.
///
/// See the example of [`Kind::entries`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KindEntry {
    /// The kind.
    pub kind: Kind,
    /// Its name, what `--type` takes.
    pub name: &'static str,
    /// Other names `--type` takes for it.
    pub aliases: &'static [&'static str],
    /// What it is, in a line (the help of `--type`).
    pub description: &'static str,
    /// The extensions (lowercase) that name it. Both naming a file's kind
    /// and choosing which files of a directory to read use them.
    pub extensions: &'static [&'static str],
}

/// The kinds of input, each with its name, aliases, description and
/// extensions: the one table the command line, the library and the
/// Python package read.
pub const KINDS: &[KindEntry] = &[
    KindEntry {
        kind: Kind::Html,
        name: "html",
        aliases: &[],
        description: "An HTML document",
        extensions: &["html", "htm", "shtml"],
    },
    KindEntry {
        kind: Kind::Css,
        name: "css",
        aliases: &[],
        description: "A style sheet",
        extensions: &["css"],
    },
    KindEntry {
        kind: Kind::Message,
        name: "message",
        aliases: &[],
        description: "One message, or MHTML",
        extensions: &["eml", "mht", "mhtml", "msg"],
    },
    KindEntry {
        kind: Kind::Mbox,
        name: "mbox",
        aliases: &[],
        description: "An mbox archive",
        extensions: &["mbox", "mbx"],
    },
    KindEntry {
        kind: Kind::Warc,
        name: "warc",
        aliases: &[],
        description: "A web archive (WARC of any version, or ARC), gzipped or not",
        // Also gzipped and still being written (`.warc.gz.open`): see
        // `from_name`.
        extensions: &["warc", "arc"],
    },
    KindEntry {
        kind: Kind::Wacz,
        name: "wacz",
        aliases: &[],
        description: "A WACZ package of web archives",
        extensions: &["wacz"],
    },
    KindEntry {
        kind: Kind::Xml,
        name: "xml",
        aliases: &["feed"],
        description: "An XML document: an Atom or RSS feed, SVG, XHTML",
        extensions: &["xhtml", "xht", "atom", "rss", "rdf", "xml", "svg"],
    },
    KindEntry {
        kind: Kind::Markdown,
        name: "markdown",
        aliases: &[],
        description: "A Markdown document",
        extensions: &["md", "markdown"],
    },
    KindEntry {
        kind: Kind::Rst,
        name: "rst",
        aliases: &["restructuredtext"],
        description: "A reStructuredText document",
        extensions: &["rst", "rest"],
    },
    KindEntry {
        kind: Kind::Sitemap,
        name: "sitemap",
        aliases: &["opml"],
        description: "A sitemap (sitemaps.org) or an OPML outline",
        // Also a `.xml` file whose root is a sitemap's: see `detect_file`.
        extensions: &["opml"],
    },
    KindEntry {
        kind: Kind::Robots,
        name: "robots",
        aliases: &["robots.txt"],
        description: "A robots.txt (its Sitemap: lines)",
        // Told by its whole name, `robots.txt`: see `from_name`.
        extensions: &[],
    },
    KindEntry {
        kind: Kind::Notebook,
        name: "notebook",
        aliases: &["ipynb", "jupyter"],
        description: "A Jupyter notebook",
        extensions: &["ipynb"],
    },
    KindEntry {
        kind: Kind::Epub,
        name: "epub",
        aliases: &[],
        description: "An EPUB book (EPUB 2 or 3)",
        extensions: &["epub"],
    },
];

impl Kind {
    /// The kind's entry in the kind table ([`Kind::entries`]).
    pub fn entry(self) -> &'static KindEntry {
        // Every kind has its entry (the test `every_kind_has_one_entry`).
        KINDS.iter().find(|e| e.kind == self).unwrap_or(&KINDS[0])
    }

    /// The kind's name (`html`, `markdown`), what `--type` takes.
    pub fn name(self) -> &'static str {
        self.entry().name
    }

    /// Every kind, with its name, aliases, description and extensions:
    /// the one table the command line, the library and the Python package
    /// read.
    ///
    /// ```
    /// use relink::Kind;
    /// let names: Vec<&str> = Kind::entries().iter().map(|e| e.name).collect();
    /// assert_eq!(names, ["html", "css", "message", "mbox", "warc", "wacz", "xml", "markdown", "rst", "sitemap", "robots", "notebook", "epub"]);
    /// assert_eq!(Kind::named("Feed"), Some(Kind::Xml));
    /// assert_eq!(Kind::Markdown.name(), "markdown");
    /// ```
    pub fn entries() -> &'static [KindEntry] {
        KINDS
    }

    /// The kind a name (or alias) of the table stands for, in any case.
    pub fn named(name: &str) -> Option<Kind> {
        named(name)
    }
}

/// The kind a name (or alias) in [`KINDS`] stands for, in any case.
pub fn named(name: &str) -> Option<Kind> {
    KINDS
        .iter()
        .find(|e| {
            e.name.eq_ignore_ascii_case(name)
                || e.aliases.iter().any(|a| a.eq_ignore_ascii_case(name))
        })
        .map(|e| e.kind)
}

/// Extensions (lowercase) of files that are never documents to relink:
/// found in a directory, they are copied without a look at their content
/// (a script that starts with `<!--` is not HTML).
pub const OTHER_EXTENSIONS: &[&str] = &[
    "js", "mjs", "json", "map", "xsl", "txt", "csv", "png", "jpg", "jpeg", "gif", "webp", "avif",
    "ico", "bmp", "tif", "tiff", "woff", "woff2", "ttf", "otf", "eot", "pdf", "ps", "zip", "gz",
    "tgz", "bz2", "xz", "zst", "tar", "mp3", "mp4", "webm", "ogg", "wav", "py", "c", "h", "rs",
    "sh",
];

/// The extension of a file name, lowercase, taken before the first `?`:
/// wget saves `page.html?id=2` and `style.css?v=3` under those names.
fn extension(path: &Path) -> Option<String> {
    let name = path.file_name()?.to_string_lossy();
    let name = name.split('?').next().unwrap_or_default();
    let name = name.trim_start_matches('.');
    let dot = name.rfind('.')?;
    Some(name[dot + 1..].to_ascii_lowercase()).filter(|e| !e.is_empty())
}

/// The kind a file's name gives, if its extension is a known one
/// (`.warc.gz` counts as `.warc`, and so does `.warc.gz.open`, the name
/// Heritrix and other crawlers give an archive they are still writing).
pub fn from_name(path: &Path) -> Option<Kind> {
    let name = path.file_name()?.to_string_lossy().to_ascii_lowercase();
    // `.warc`, `.warc.gz`, `.arc`, `.arc.gz`, each perhaps with `.open`.
    let open = name.strip_suffix(".open").unwrap_or(&name);
    let archive = open.strip_suffix(".gz").unwrap_or(open);
    let archive_extension = |e: &&str| {
        archive
            .strip_suffix(*e)
            .is_some_and(|rest| rest.ends_with('.'))
    };
    if Kind::Warc.entry().extensions.iter().any(archive_extension) {
        return Some(Kind::Warc);
    }
    if name == "robots.txt" {
        return Some(Kind::Robots);
    }
    // A compressed document is of the kind its name says inside the
    // compression: `page.html.gz` is HTML.
    if let Some(inner) = crate::compressed::inner_name(&name) {
        return from_name(Path::new(inner));
    }
    let extension = extension(path)?;
    KINDS
        .iter()
        .find(|e| e.extensions.contains(&extension.as_str()))
        .map(|e| e.kind)
}

/// Whether a file's name says it is no document (see [`OTHER_EXTENSIONS`]).
pub fn is_other_by_name(path: &Path) -> bool {
    from_name(path).is_none()
        && extension(path).is_some_and(|e| OTHER_EXTENSIONS.contains(&e.as_str()))
}

/// Whether a line is an RFC 5322 header field (`Name: value`).
fn is_field(line: &[u8]) -> bool {
    let name_len = line
        .iter()
        .take_while(|b| b.is_ascii_alphanumeric() || **b == b'-')
        .count();
    name_len > 0 && line.get(name_len) == Some(&b':')
}

/// Field names that say a header is a message's (or a saved page's).
const MESSAGE_FIELDS: &[&str] = &[
    "from",
    "to",
    "cc",
    "subject",
    "date",
    "sender",
    "reply-to",
    "message-id",
    "mime-version",
    "content-type",
    "content-location",
    "content-base",
    "content-transfer-encoding",
    "received",
    "return-path",
    "delivered-to",
    "snapshot-content-location",
];

/// Whether `head` starts with a message header: every line up to the blank
/// line (or the end of what was read) is a field or a folded continuation,
/// and one of them is a field messages carry. A style sheet's
/// `a:hover { ... }` is no header.
fn starts_with_header(head: &[u8]) -> bool {
    let mut known = false;
    let mut lines = head.split(|&b| b == b'\n').peekable();
    let mut first = true;
    while let Some(line) = lines.next() {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        if line.is_empty() {
            return !first && known;
        }
        if lines.peek().is_none() && !first {
            // A line cut off by the end of the head: judged by what came before.
            break;
        }
        if first || !matches!(line[0], b' ' | b'\t') {
            if !is_field(line) {
                return false;
            }
            let name = &line[..line.iter().position(|&b| b == b':').unwrap_or(0)];
            let name = String::from_utf8_lossy(name).to_ascii_lowercase();
            known |= MESSAGE_FIELDS.contains(&name.as_str()) || name.starts_with("x-");
        }
        first = false;
    }
    known
}

/// Whether bytes start like an HTML document.
pub fn looks_like_html(head: &[u8]) -> bool {
    let start = head
        .iter()
        .position(|b| !b.is_ascii_whitespace())
        .unwrap_or(head.len());
    let text = &head[start..head.len().min(start + 14)];
    [
        &b"<!doctype html"[..],
        b"<html",
        b"<head",
        b"<body",
        b"<!--",
    ]
    .iter()
    .any(|p| text.len() >= p.len() && text[..p.len()].eq_ignore_ascii_case(p))
}

/// The kind of content from its first bytes, if they tell: a web archive
/// (a record anywhere in them where the record reader would find one,
/// after any junk: see [`crate::warc::archive_format_past_junk`]), an
/// mbox's `From ` line, a message header, a feed's or an SVG's root
/// element, the start of an HTML document. A UTF-8 byte order mark before
/// them is skipped.
pub fn sniff(head: &[u8]) -> Option<Kind> {
    // A book says so in its first entry.
    if crate::epub::looks_like_epub(head) {
        return Some(Kind::Epub);
    }
    // A package first: one that stores its WARC uncompressed shows WARC
    // lines past its first entry's header.
    if crate::warc::wacz::looks_like_wacz(head) {
        return Some(Kind::Wacz);
    }
    if crate::warc::looks_like_warc_past_junk(head) {
        return Some(Kind::Warc);
    }
    let head = head.strip_prefix(b"\xef\xbb\xbf").unwrap_or(head);
    if mbox::looks_like_mbox(head) {
        Some(Kind::Mbox)
    } else if starts_with_header(head) {
        Some(Kind::Message)
    } else if crate::xml::looks_like_sitemap(head) {
        Some(Kind::Sitemap)
    } else if crate::xml::looks_like_xml(head) {
        Some(Kind::Xml)
    } else if looks_like_html(head) {
        Some(Kind::Html)
    } else {
        sniff_gzipped(head)
    }
}

/// The kind of a file: a WARC by its content, whatever its name (crawlers
/// name them freely: `.dat`, `.warc.open`), when it starts as one (after
/// white space, NUL bytes, a byte order mark or one stray line); else its
/// name's extension decides (an XML file whose root is a sitemap's or
/// OPML's is a sitemap); with no known extension, its first bytes (where
/// an archive is found after any junk); else HTML.
pub fn detect_file(path: &Path, head: &[u8]) -> Kind {
    if crate::warc::looks_like_warc(head) {
        return Kind::Warc;
    }
    if crate::epub::looks_like_epub(head) {
        return Kind::Epub;
    }
    if crate::warc::wacz::looks_like_wacz(head) {
        return Kind::Wacz;
    }
    match from_name(path) {
        Some(Kind::Xml) if crate::xml::looks_like_sitemap(head) => Kind::Sitemap,
        Some(kind) => kind,
        None => sniff(head).unwrap_or(Kind::Html),
    }
}

/// The kind of a gzipped document from the first bytes inside it (gzip
/// inside gzip is not looked through).
fn sniff_gzipped(head: &[u8]) -> Option<Kind> {
    if !head.starts_with(&crate::compressed::GZIP_MAGIC) {
        return None;
    }
    let mut inner = Vec::new();
    let decoder = flate2::read::MultiGzDecoder::new(head);
    // A head cut short ends the read with an error: what came out serves.
    let _ = std::io::Read::read_to_end(&mut std::io::Read::take(decoder, 8192), &mut inner);
    if inner.starts_with(&crate::compressed::GZIP_MAGIC) {
        return None;
    }
    sniff(&inner)
}

impl Kind {
    /// The kind a file's name gives, if its extension is a known one
    /// (`page.html`, `page.html.gz`, `crawl.warc.gz.open`).
    ///
    /// ```
    /// use relink::Kind;
    /// assert_eq!(Kind::from_name("crawl.warc.gz".as_ref()), Some(Kind::Warc));
    /// assert_eq!(Kind::from_name("notes.md".as_ref()), Some(Kind::Markdown));
    /// assert_eq!(Kind::from_name("README.rst".as_ref()), Some(Kind::Rst));
    /// assert_eq!(Kind::from_name("logo.png".as_ref()), None);
    /// ```
    pub fn from_name(path: &Path) -> Option<Kind> {
        from_name(path)
    }

    /// The kind of a file found in a directory, if relink reads it: by its
    /// name's extension; a file whose extension names no document (an
    /// image, a script) is not read; else its first bytes tell.
    pub fn of_file(path: &Path) -> std::io::Result<Option<Kind>> {
        if let Some(kind) = from_name(path) {
            return Ok(Some(kind));
        }
        if is_other_by_name(path) {
            return Ok(None);
        }
        let mut head = Vec::with_capacity(512);
        let file = std::fs::File::open(path)?;
        std::io::Read::read_to_end(&mut std::io::Read::take(file, 512), &mut head)?;
        Ok(sniff(&head))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A package whose WARC is stored uncompressed shows WARC lines in its
    /// first bytes: it is still a package, with or without a name.
    #[test]
    fn a_wacz_of_a_plain_warc_is_a_wacz_unnamed() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let package =
            std::fs::read(root.join("fixtures/archives/wacz/example-plain.wacz")).unwrap();
        assert_eq!(sniff(&package), Some(Kind::Wacz));
        assert_eq!(detect_file(Path::new("x.bin"), &package), Kind::Wacz);
    }

    #[test]
    fn every_kind_has_one_entry() {
        let all = [
            Kind::Html,
            Kind::Css,
            Kind::Message,
            Kind::Mbox,
            Kind::Warc,
            Kind::Wacz,
            Kind::Xml,
            Kind::Markdown,
            Kind::Rst,
            Kind::Sitemap,
            Kind::Robots,
            Kind::Notebook,
            Kind::Epub,
        ];
        assert_eq!(KINDS.len(), all.len());
        for kind in all {
            assert_eq!(KINDS.iter().filter(|e| e.kind == kind).count(), 1);
            assert_eq!(kind.entry().kind, kind);
            assert_eq!(named(kind.name()), Some(kind));
        }
        assert_eq!(named("FEED"), Some(Kind::Xml));
        assert_eq!(named("text"), None);
        // No extension names two kinds.
        let mut extensions: Vec<&str> = KINDS.iter().flat_map(|e| e.extensions).copied().collect();
        let count = extensions.len();
        extensions.sort_unstable();
        extensions.dedup();
        assert_eq!(extensions.len(), count);
    }

    #[test]
    fn archives_are_named_by_suffix() {
        let kind = |name: &str| from_name(Path::new(name));
        for name in [
            "a.warc",
            "a.WARC.gz",
            "a.arc",
            "a.arc.gz",
            "a.warc.gz.open",
            ".warc",
        ] {
            assert_eq!(kind(name), Some(Kind::Warc), "{name}");
        }
        assert_eq!(kind("warc"), None);
        assert_eq!(kind("a.swarc"), None);
    }

    #[test]
    fn the_name_decides_before_the_content() {
        let p = Path::new;
        assert_eq!(detect_file(p("a.html"), b"<!DOCTYPE html>"), Kind::Html);
        assert_eq!(
            detect_file(p("page.mhtml"), b"From: <Saved by Blink>\r\n"),
            Kind::Message
        );
        assert_eq!(detect_file(p("s.css"), b"body { }"), Kind::Css);
        assert_eq!(detect_file(p("s.css"), b"@import 'x';"), Kind::Css);
        assert_eq!(detect_file(p("odd.eml"), b"\r\n\r\nbody"), Kind::Message);
        assert_eq!(detect_file(p("a.MBOX"), b"<html>"), Kind::Mbox);
        assert_eq!(from_name(p("crawl-00001.warc.gz")), Some(Kind::Warc));
        assert!(!is_other_by_name(p("crawl.WARC.GZ")));
        assert_eq!(detect_file(p("data.bin"), b"WARC/1.1\r\n"), Kind::Warc);
        assert_eq!(from_name(p("old.ARC.gz")), Some(Kind::Warc));
    }

    #[test]
    fn an_archive_after_junk_is_an_archive_under_any_name_but_a_documents() {
        let p = Path::new;
        let record = b"WARC/1.0\r\nWARC-Type: response\r\nContent-Length: 0\r\n\r\n";
        let bom = [&b"\xef\xbb\xbf"[..], record].concat();
        let stray = [&b"stray\n"[..], record].concat();
        let lines = [&b"one\ntwo\nthree\n"[..], record].concat();
        for name in [
            "crawl.dat",
            "crawl.warc.open",
            "crawl",
            "page.html",
            "notes.md",
        ] {
            assert_eq!(detect_file(p(name), &bom), Kind::Warc, "{name}");
            assert_eq!(detect_file(p(name), &stray), Kind::Warc, "{name}");
        }
        assert_eq!(detect_file(p("crawl.dat"), &lines), Kind::Warc);
        assert_eq!(sniff(&lines), Some(Kind::Warc));
        // A document's name decides past its first lines: notes that
        // quote a record are notes.
        assert_eq!(detect_file(p("notes.md"), &lines), Kind::Markdown);
        assert_eq!(from_name(p("crawl-1.warc.gz.open")), Some(Kind::Warc));
        assert_eq!(from_name(p("CRAWL.WARC.OPEN")), Some(Kind::Warc));
        assert_eq!(from_name(p("page.html.open")), None);
    }

    #[test]
    fn a_compressed_document_is_of_the_kind_inside() {
        let p = Path::new;
        assert_eq!(from_name(p("page.html.gz")), Some(Kind::Html));
        assert_eq!(from_name(p("style.css.gz")), Some(Kind::Css));
        assert_eq!(from_name(p("inbox.mbox.gz")), Some(Kind::Mbox));
        assert_eq!(from_name(p("mail.eml.gz")), Some(Kind::Message));
        assert_eq!(from_name(p("data.tar.gz")), None);
        assert!(is_other_by_name(p("data.tar.gz")));
        assert!(!is_other_by_name(p("page.html.gz")));
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        std::io::Write::write_all(&mut gz, b"From: a@b\r\nSubject: s\r\n\r\nbody").unwrap();
        let gz = gz.finish().unwrap();
        assert_eq!(detect_file(p("saved"), &gz), Kind::Message);
    }

    #[test]
    fn a_css_hover_rule_is_no_message_header() {
        let css = b"a:hover { background: url(img/x.png) }\n";
        assert_eq!(detect_file(Path::new("style.css"), css), Kind::Css);
        assert_eq!(sniff(css), None);
        assert_eq!(sniff(b"a:hover {\n  color: red\n}\n"), None);
        assert_eq!(sniff(b"Note: this is text\n\nmore"), None);
    }

    #[test]
    fn wget_names_have_their_extension_before_the_query() {
        let p = Path::new;
        assert_eq!(from_name(p("site/index.html?page=2")), Some(Kind::Html));
        assert_eq!(from_name(p("style.css?v=3")), Some(Kind::Css));
        assert_eq!(from_name(p("download?f=a.css")), None);
        assert_eq!(from_name(p(".htaccess")), None);
        assert_eq!(from_name(p("README")), None);
        assert_eq!(from_name(p("x.png")), None);
        assert!(is_other_by_name(p("app.js?v=2")));
        assert!(!is_other_by_name(p("logo.SVG")));
        assert_eq!(from_name(p("logo.SVG")), Some(Kind::Xml));
        assert_eq!(from_name(p("feed.atom")), Some(Kind::Xml));
        assert_eq!(from_name(p("page.xhtml")), Some(Kind::Xml));
        assert!(!is_other_by_name(p("page.php")));
        assert!(!is_other_by_name(p("page")));
    }

    #[test]
    fn content_decides_without_a_known_extension() {
        let p = Path::new;
        assert_eq!(
            detect_file(p("a.txt"), b"From: x@y\r\nTo: z\r\n\r\n"),
            Kind::Message
        );
        assert_eq!(
            detect_file(p("inbox"), b"From x@y Mon Jan  1 00:00:00 2024\n"),
            Kind::Mbox
        );
        assert_eq!(
            detect_file(
                p("msg"),
                b"Received: from a\r\n\tby b\r\nSubject: s\r\n\r\n"
            ),
            Kind::Message
        );
        assert_eq!(detect_file(p("page"), b"<!doctype html><p>"), Kind::Html);
        assert_eq!(detect_file(p("unknown"), b"plain words"), Kind::Html);
        assert_eq!(
            detect_file(p("feed"), b"<?xml version=\"1.0\"?>\n<rss version=\"2.0\">"),
            Kind::Xml
        );
        assert_eq!(detect_file(p("drawing"), b"<!-- x -->\n<svg>"), Kind::Xml);
    }

    #[test]
    fn a_byte_order_mark_does_not_hide_a_message_or_an_mbox() {
        assert_eq!(
            sniff(b"\xef\xbb\xbfFrom x@y Mon Jan  1 00:00:00 2024\n"),
            Some(Kind::Mbox)
        );
        assert_eq!(
            sniff(b"\xef\xbb\xbfFrom: x@y\r\nSubject: s\r\n\r\nbody"),
            Some(Kind::Message)
        );
        assert_eq!(sniff(b"\xef\xbb\xbf  <!DOCTYPE HTML>"), Some(Kind::Html));
        assert!(!looks_like_html(b"\x89PNG\r\n"));
    }
}
