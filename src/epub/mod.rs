//! EPUB books (EPUB 3.3, and EPUB 2's OPF 2.0 and NCX): an OCF zip
//! container whose first entry, `mimetype`, says `application/epub+zip`,
//! and whose `META-INF/container.xml` names the package documents.
//!
//! Every file of the book that holds links is read by the reader of its
//! kind (through [`Documents`]): XHTML content documents and the
//! navigation document, SVG, the package documents (`item/@href`,
//! `link/@href`, `reference/@href`), the NCX (`content/@src`),
//! `container.xml` (`rootfile/@full-path`), all through the XML reader;
//! style sheets through the CSS reader. Which is which, the manifest's
//! media types tell, else the file's extension.
//!
//! A file's base is its own place in the book (EPUB 3.3, "URLs in the OCF
//! abstract container"): its container path below a root URL of its own
//! ([`ROOT`]), and for the files of `META-INF` the root itself. A link
//! that reaches a file of the book stays as written (made absolute it
//! would leave the book) and is listed with the container path it
//! reaches, with a warning when the book lacks that file; one that leaves
//! the book (`//host/`, `..` above the root where the rules keep it) is
//! resolved against the URL outside it (`--retrieved-from`, `--base`) or
//! left; an absolute link stays as it is. See `docs/epub.md`.
//!
//! The book is written again by splicing its zip ([`zip`]): unchanged
//! entries byte for byte, a changed one compressed as it was; a book in
//! which nothing changed is written back as it was.

mod package;
mod zip;

use std::collections::{HashMap, HashSet};
use std::io::{BufWriter, Cursor, Write};

use ::zip::{CompressionMethod, ZipArchive};
use flate2::{Crc, Decompress, FlushDecompress, Status};

use crate::base::{Base, BaseSource};
use crate::error::Error;
use crate::links::{LinkRow, Outcome, UnitReport, Warning, WarningKind};
use crate::options::{Container, Options, Placed};
use crate::text::{Documents, Embedded};
use crate::url::BaseUrl;

/// What the `mimetype` entry of a book holds.
pub const MIMETYPE: &[u8] = b"application/epub+zip";

/// The URL of a book's root: a file's base is its container path below
/// it. A scheme of its own, so that no link of the web is taken for one
/// of the book.
pub const ROOT: &str = "epub:/";

/// The container document every book holds.
pub const CONTAINER_XML: &str = "META-INF/container.xml";

/// The largest entry read (decompressed); a larger one is left as it is.
pub const MAX_ENTRY_BYTES: u64 = 256 << 20;

/// Whether bytes start as an EPUB book: a zip whose first entry is
/// `mimetype` holding `application/epub+zip` (OCF, "ZIP container").
pub fn looks_like_epub(head: &[u8]) -> bool {
    if !head.starts_with(b"PK\x03\x04") || head.len() < 30 {
        return false;
    }
    let name_len = usize::from(u16::from_le_bytes([head[26], head[27]]));
    let extra_len = usize::from(u16::from_le_bytes([head[28], head[29]]));
    let data = 30 + name_len + extra_len;
    head.get(30..30 + name_len) == Some(b"mimetype")
        && head.get(data..).is_some_and(|d| d.starts_with(MIMETYPE))
}

/// The files of a book, seen from the links of its documents.
#[derive(Debug)]
struct Book {
    /// Every entry's container path, and every folder above one.
    files: HashSet<String>,
    /// The base of a link that leaves the book.
    outer: Option<Base>,
}

impl Container for Book {
    fn place(&self, base: &str, resolved: &str) -> Placed {
        let in_book = base
            .strip_prefix(ROOT)
            .is_some_and(|rest| !rest.starts_with('/'));
        if !in_book {
            return Placed::Elsewhere;
        }
        let Some(rest) = resolved.strip_prefix(ROOT) else {
            // Absolute, another scheme: a link as any other.
            return Placed::Elsewhere;
        };
        let end = rest.find(['?', '#']).unwrap_or(rest.len());
        let (path, after) = rest.split_at(end);
        // `epub://host/`, or `..` kept above the root (RFC 1808).
        if rest.starts_with('/') || path.split('/').any(|s| s == "..") {
            return Placed::Outside;
        }
        let path = percent_decode(path);
        let exists = path.is_empty() || self.files.contains(path.trim_end_matches('/'));
        Placed::Inside {
            path: path + after,
            exists,
        }
    }

    fn outer(&self) -> Option<&Base> {
        self.outer.as_ref()
    }
}

/// `%XX` decoded (as UTF-8, lossily); other bytes as they are.
pub(crate) fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = bytes
            .get(i + 1..i + 3)
            .and_then(|h| std::str::from_utf8(h).ok());
        match hex.and_then(|h| u8::from_str_radix(h, 16).ok()) {
            Some(byte) if bytes[i] == b'%' => {
                out.push(byte);
                i += 3;
            }
            _ => {
                out.push(bytes[i]);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// A container path as a URL below [`ROOT`]: what a URL may not hold
/// as it is written `%XX`.
fn url_of(path: &str) -> String {
    let mut url = String::from(ROOT);
    for byte in path.bytes() {
        if byte.is_ascii_alphanumeric() || b"-._~!$&'()*+,;=:@/".contains(&byte) {
            url.push(byte as char);
        } else {
            url.push_str(&format!("%{byte:02X}"));
        }
    }
    url
}

/// The reader a file of the book goes to, by the media type its manifest
/// gives it, else by its name; none for a file that holds no links relink
/// reads (images, fonts, scripts, `mimetype`).
fn reader_of(name: &str, media_type: Option<&str>) -> Option<Embedded> {
    if let Some(media_type) = media_type {
        return match media_type {
            "application/xhtml+xml"
            | "image/svg+xml"
            | "application/oebps-package+xml"
            | "application/x-dtbncx+xml" => Some(Embedded::Xml),
            "text/css" => Some(Embedded::Css),
            "text/html" => Some(Embedded::Html),
            _ => None,
        };
    }
    if name == CONTAINER_XML {
        return Some(Embedded::Xml);
    }
    let extension = name.rsplit_once('.')?.1.to_ascii_lowercase();
    match extension.as_str() {
        "xhtml" | "xht" | "html" | "htm" | "svg" | "opf" | "ncx" => Some(Embedded::Xml),
        "css" => Some(Embedded::Css),
        _ => None,
    }
}

/// An error of the book as a whole, naming the entry.
fn failed(entry: &str, reason: impl std::fmt::Display) -> Error {
    Error::Epub {
        entry: entry.to_owned(),
        reason: reason.to_string(),
    }
}

/// One entry of a book read: its bytes, and what its reader reported
/// (its new bytes in `output`, its layers under its name).
pub struct EntryDone<'a> {
    /// Its bytes as read.
    pub original: &'a [u8],
    /// What its reader reported.
    pub report: UnitReport,
}

/// A book written again: its zip's layout and the new data of each entry
/// that changed, compressed.
pub struct Spliced {
    layout: zip::Layout,
    new: HashMap<usize, zip::Packed>,
}

impl Spliced {
    /// Writes the book, read as `input`, with its changed entries.
    pub fn write_to(&self, input: &[u8], out: &mut dyn Write) -> Result<(), Error> {
        let mut out = BufWriter::with_capacity(1 << 16, out);
        self.layout.splice(input, &|i| self.new.get(&i), &mut out)?;
        Ok(out.flush()?)
    }
}

/// Reads every file of the book `input` that holds links, in entry order,
/// calling `on_entry` for each, and (with `write`) gives the book to write
/// again when any entry changed. Each changed entry is kept compressed
/// only, and the book is written from `input` and them, not made whole.
pub fn rewrite(
    input: &[u8],
    options: &Options<'_>,
    documents: &dyn Documents,
    write: bool,
    on_entry: &mut dyn FnMut(EntryDone<'_>),
) -> Result<Option<Spliced>, Error> {
    let (mut entries, names) = Entries::open(input)?;
    let (book, types) = read_book(&mut entries, &names, options)?;
    let mut new: HashMap<usize, zip::Packed> = HashMap::new();
    let mut packer = zip::Packer::new();
    for (index, name) in names.iter().enumerate() {
        let Some(kind) = reader_of(name, types.get(name).map(String::as_str)) else {
            continue;
        };
        let (bytes, method) = match entries.read(index) {
            Ok(read) => read,
            Err(reason) => {
                on_entry(EntryDone {
                    original: &[],
                    report: left_as_it_is(name, reason),
                });
                continue;
            }
        };
        let report = rewrite_entry(name, bytes, kind, (options, &book), documents);
        if write && let Some(output) = &report.output {
            new.insert(
                index,
                packer.pack(method, output).map_err(|e| failed(name, e))?,
            );
        }
        on_entry(EntryDone {
            original: bytes,
            report,
        });
    }
    if !write || new.is_empty() {
        return Ok(None);
    }
    let layout = zip::Layout::read(input).map_err(|e| failed("zip archive", e))?;
    for (index, placing) in layout.entries.iter().enumerate() {
        let start = entries.records.get(index).map(|r| r.header);
        if start != Some(placing.local as u64) {
            return Err(failed(
                &names[index],
                "not where the central directory says",
            ));
        }
    }
    Ok(Some(Spliced { layout, new }))
}

/// The book's files and the media types its manifests give them, from
/// `container.xml` and the package documents it names.
fn read_book(
    entries: &mut Entries<'_>,
    names: &[String],
    options: &Options<'_>,
) -> Result<(Book, HashMap<String, String>), Error> {
    let index = names
        .iter()
        .position(|n| n == CONTAINER_XML)
        .ok_or_else(|| failed(CONTAINER_XML, "missing: not an EPUB book"))?;
    let container = entries
        .read(index)
        .map_err(|e| failed(CONTAINER_XML, e))?
        .0
        .to_vec();
    let mut types = HashMap::new();
    for package in package::rootfiles(&container) {
        let Some(index) = names.iter().position(|n| *n == package) else {
            continue;
        };
        if let Ok((opf, _)) = entries.read(index) {
            package::media_types(&package, opf, &mut types);
        }
    }
    let mut files = HashSet::new();
    for name in names {
        let mut path = name.trim_end_matches('/');
        files.insert(path.to_owned());
        while let Some((up, _)) = path.rsplit_once('/') {
            if !files.insert(up.to_owned()) {
                break;
            }
            path = up;
        }
    }
    let outer = options.forced.or(options.outer).cloned();
    Ok((Book { files, outer }, types))
}

/// The entries of a book read one at a time through one inflater and one
/// buffer. (The zip crate makes a decompressor for each entry: on a book
/// of thousands of entries, their 50 KB each left holes in the heap that
/// the small records kept between them would not let close, some 20 KB
/// of resident memory an entry.) Of the zip crate's directory, only what
/// reading needs is kept, a few words an entry, not some 400 bytes.
struct Entries<'a> {
    input: &'a [u8],
    records: Vec<Record>,
    inflater: Decompress,
    bytes: Vec<u8>,
}

/// What reading an entry needs of the zip's directory.
struct Record {
    /// Where its local header starts.
    header: u64,
    /// Where its data starts, and its compressed size.
    data: Option<(u64, u64)>,
    size: u64,
    crc: u32,
    method: CompressionMethod,
    encrypted: bool,
}

impl<'a> Entries<'a> {
    /// The entries of the zip `input`, and their names.
    fn open(input: &'a [u8]) -> Result<(Self, Vec<String>), Error> {
        let mut zip = ZipArchive::new(Cursor::new(input)).map_err(|e| failed("zip archive", e))?;
        if zip.has_duplicate_names() {
            return Err(failed("zip archive", "two entries have one name"));
        }
        let mut names = Vec::with_capacity(zip.len());
        let mut records = Vec::with_capacity(zip.len());
        for i in 0..zip.len() {
            let entry = zip.by_index_raw(i).map_err(|e| failed("zip archive", e))?;
            names.push(
                entry
                    .name()
                    .map_err(|e| failed("zip archive", e))?
                    .into_owned(),
            );
            records.push(Record {
                header: entry.header_start(),
                data: entry
                    .data_start()
                    .map(|start| (start, entry.compressed_size())),
                size: entry.size(),
                crc: entry.crc32(),
                method: entry.compression(),
                encrypted: entry.encrypted(),
            });
        }
        let entries = Entries {
            input,
            records,
            inflater: Decompress::new(false),
            bytes: Vec::new(),
        };
        Ok((entries, names))
    }

    /// Entry `index`'s bytes, decompressed, at most [`MAX_ENTRY_BYTES`],
    /// their CRC checked, and its compression method (0 stored, 8
    /// deflated, the only ones read).
    fn read(&mut self, index: usize) -> Result<(&[u8], u16), String> {
        let entry = self.records.get(index).ok_or("no such entry")?;
        if entry.encrypted {
            return Err("encrypted".into());
        }
        let (size, crc, method) = (entry.size, entry.crc, entry.method);
        if size > MAX_ENTRY_BYTES {
            return Err(format!("larger than {MAX_ENTRY_BYTES} bytes"));
        }
        let raw = entry
            .data
            .and_then(|(start, len)| {
                let start = usize::try_from(start).ok()?;
                let end = start.checked_add(usize::try_from(len).ok()?)?;
                self.input.get(start..end)
            })
            .ok_or("its data is cut short")?;
        let (data, method): (&[u8], u16) = match method {
            CompressionMethod::Stored => (raw, 0),
            CompressionMethod::Deflated => {
                self.inflate(raw, size)?;
                (&self.bytes, 8)
            }
            other => return Err(format!("compression method {other} is not read")),
        };
        if data.len() as u64 > size {
            return Err("larger than its declared uncompressed size".into());
        }
        let mut sum = Crc::new();
        sum.update(data);
        if sum.sum() != crc {
            return Err("its checksum does not match".into());
        }
        Ok((data, method))
    }

    /// Inflates `raw` into the buffer, stopping one byte past `size`.
    fn inflate(&mut self, raw: &[u8], size: u64) -> Result<(), String> {
        self.inflater.reset(false);
        self.bytes.clear();
        // Deflate grows data at most some 1,032 times.
        let room = size.min(raw.len() as u64 * 1032 + 64) as usize + 1;
        self.bytes.reserve(room);
        loop {
            let (read, made) = (self.inflater.total_in(), self.inflater.total_out());
            let rest = raw.get(read as usize..).unwrap_or_default();
            let status = self
                .inflater
                .decompress_vec(rest, &mut self.bytes, FlushDecompress::Finish)
                .map_err(|e| e.to_string())?;
            if status == Status::StreamEnd || self.bytes.len() as u64 > size {
                return Ok(());
            }
            if self.bytes.len() == self.bytes.capacity() {
                self.bytes.reserve(1 << 16);
            } else if (read, made) == (self.inflater.total_in(), self.inflater.total_out()) {
                return Err("its deflated data end early".into());
            }
        }
    }
}

/// The report of an entry that could not be read, left as it is.
fn left_as_it_is(name: &str, why: impl std::fmt::Display) -> UnitReport {
    let mut report = UnitReport::default();
    let warning = Warning::new(
        WarningKind::Unreadable,
        format_args!("{why}; left as it is"),
    );
    report.warnings.push(warning.within(name));
    report
}

/// One file of the book rewritten by its reader against its place in the
/// book: its rows placed in it (`part`), its warnings under its name.
fn rewrite_entry(
    name: &str,
    bytes: &[u8],
    kind: Embedded,
    (options, book): (&Options<'_>, &Book),
    documents: &dyn Documents,
) -> UnitReport {
    let mut report = UnitReport::default();
    // The files of META-INF resolve against the root (OCF, "META-INF").
    let path = if name.starts_with("META-INF/") {
        ""
    } else {
        name
    };
    let base = BaseUrl::parse(&url_of(path), options.rules)
        .map(|url| Base::new(url, BaseSource::Container));
    let base = match base {
        Ok(base) => base,
        Err(err) => return left_as_it_is(name, err),
    };
    let mut mapped = None;
    let own = Options {
        forced: None,
        outer: Some(&base),
        resource_base: None,
        saved: None,
        local: None,
        transport: None,
        container: Some(book),
        ..*options
    };
    let own = own.mapped(&mut mapped, |row: &mut LinkRow| {
        row.part = Some(name.to_owned())
    });
    let outcome: Outcome = match documents.rewrite(kind, bytes, &own) {
        Ok(outcome) => outcome,
        Err(err) => return left_as_it_is(name, err),
    };
    let mut outcome = outcome;
    report.output = outcome.output.take();
    outcome.warnings = std::mem::take(&mut outcome.warnings)
        .into_iter()
        .map(|w| w.within(name))
        .collect();
    let layers = std::mem::take(&mut outcome.layers);
    report.add_document((name.to_owned(), layers), outcome, |link| LinkRow {
        part: Some(name.to_owned()),
        ..LinkRow::new(link)
    });
    report
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_book_is_told_by_its_first_entry() {
        let mut head = b"PK\x03\x04".to_vec();
        head.extend_from_slice(&[
            10, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 20, 0, 0, 0, 20, 0, 0, 0,
        ]);
        head.extend_from_slice(&8u16.to_le_bytes());
        head.extend_from_slice(&0u16.to_le_bytes());
        head.extend_from_slice(b"mimetype");
        head.extend_from_slice(MIMETYPE);
        assert!(looks_like_epub(&head));
        assert!(!looks_like_epub(&head[..40]));
        let mut other = head.clone();
        other[30..38].copy_from_slice(b"mimetypx");
        assert!(!looks_like_epub(&other));
    }

    #[test]
    fn a_link_is_placed_in_the_book_or_outside_it() {
        let book = Book {
            files: ["EPUB", "EPUB/a b.xhtml"].map(String::from).into(),
            outer: None,
        };
        let base = "epub:/EPUB/c.xhtml";
        let inside = |path: &str, exists| Placed::Inside {
            path: path.into(),
            exists,
        };
        assert_eq!(
            book.place(base, "epub:/EPUB/a%20b.xhtml#x"),
            inside("EPUB/a b.xhtml#x", true)
        );
        assert_eq!(
            book.place(base, "epub:/EPUB/gone.xhtml"),
            inside("EPUB/gone.xhtml", false)
        );
        assert_eq!(book.place(base, "epub:/EPUB/"), inside("EPUB/", true));
        assert_eq!(book.place(base, "epub:/../x"), Placed::Outside);
        assert_eq!(book.place(base, "epub://host/x"), Placed::Outside);
        assert_eq!(book.place(base, "http://host/x"), Placed::Elsewhere);
        assert_eq!(book.place("http://a/", "epub:/EPUB/x"), Placed::Elsewhere);
        assert_eq!(url_of("EPUB/a b#1%.xhtml"), "epub:/EPUB/a%20b%231%25.xhtml");
    }
}
