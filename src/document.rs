//! One document, by its kind: an HTML document or a style sheet, decoded,
//! rewritten and encoded again through the core. The readers of archives
//! (messages, mbox, WARC) reach these through [`Engine`], the core's
//! [`Documents`], so that none of them knows another reader.

use std::borrow::Cow;
use std::io::{self, BufRead, Write};

use encoding_rs::UTF_8;

use crate::base::{Layer, LayerStatus};
use crate::encoding::{self, Sniffed};
use crate::error::Error;
use crate::html::rewrite::{rewrite_text, rewrite_text_watching};
use crate::kind::Kind;
use crate::links::Warning;
use crate::links::{HeldRows, Outcome};
use crate::links::{LinkRow, RecordName};
use crate::mime::mbox::{self, ArchiveMessage, MboxFormat};
use crate::mime::message::{self, FromLines, MessageOutcome};
use crate::options::{Options, ROWS_BATCH_BYTES, Rows};
use crate::splice::{Make, Splice};
use crate::text::{self, Documents, Embedded};
use crate::warc::{RecordReport, WarcOptions};

/// Rewrites an HTML document.
///
/// ```
/// use relink::{rewrite_html, Options};
/// let page = br#"<base href="http://www.ics.uci.edu/Test/a/b/c"><a href='../x'>x</a>"#;
/// let outcome = rewrite_html(page, &Options::default())?;
/// assert_eq!(
///     outcome.output.unwrap(),
///     br#"<base href="http://www.ics.uci.edu/Test/a/b/c"><a href='http://www.ics.uci.edu/Test/a/x'>x</a>"#
/// );
/// # Ok::<(), relink::Error>(())
/// ```
pub fn rewrite_html(bytes: &[u8], options: &Options<'_>) -> Result<Outcome, Error> {
    rewrite_html_made(bytes, options, Make::Bytes)
}

/// [`rewrite_html`], the new bytes given as `make` says.
///
/// A document of UTF-8 whose first 1024 bytes state no encoding is read
/// as UTF-8 at once, the tokenizer testing its script for `<meta` as it
/// goes; when that rewrite is over, the rest is searched for a late
/// `<meta>` that declares an encoding, and only if one does (and it is
/// not UTF-8) is the document read again in it
/// ([`encoding::HtmlSniff::Unsettled`]). The answer is the one
/// [`encoding::sniff_decode_html`] gives before reading. Links for a
/// sink ([`Options::rows`]) are held until the encoding is settled, and
/// handed over then (once, read in it); a page larger than
/// [`ROWS_BATCH_BYTES`] hands them over as they are found, so it is
/// searched before it is read, as before.
fn rewrite_html_made(bytes: &[u8], options: &Options<'_>, make: Make) -> Result<Outcome, Error> {
    let early = match options.rows {
        Some(_) if bytes.len() > ROWS_BATCH_BYTES => {
            let (sniffed, text) = encoding::sniff_decode_html(bytes, options.transport);
            encoding::HtmlSniff::Settled(sniffed, text)
        }
        _ => encoding::sniff_decode_html_early(bytes, options.transport),
    };
    let (text, late_from) = match early {
        encoding::HtmlSniff::Settled(sniffed, text) => {
            let decoded = |_| (sniffed, text);
            return text::rewrite_bytes_made(bytes, decoded, |t| rewrite_text(t, options), make);
        }
        encoding::HtmlSniff::Unsettled { text, late_from } => (text, late_from),
    };
    let held = HeldRows::default();
    let holding = Options {
        rows: options.rows.map(|_| Rows(&held)),
        ..*options
    };
    let mut seen = encoding::MetaSeen::default();
    let utf8 = |_| (Sniffed::utf8_default(), Cow::Borrowed(text));
    let watching = |t: &str| rewrite_text_watching(t, &holding, &mut seen);
    let outcome = text::rewrite_bytes_made(bytes, utf8, watching, make)?;
    let declared = match encoding::late_meta_may_declare(bytes, late_from, &seen) {
        true => encoding::declared_after(bytes, late_from).filter(|&d| d != UTF_8),
        false => None,
    };
    let Some(declared) = declared else {
        if let Some(Rows(sink)) = options.rows {
            held.take().into_iter().for_each(|row| sink.row(row));
        }
        return Ok(outcome);
    };
    drop((outcome, held));
    let sniffed = Sniffed::declared(declared);
    let decode = |bytes| (sniffed, encoding::decode(bytes, &sniffed));
    text::rewrite_bytes_made(bytes, decode, |t| rewrite_text(t, options), make)
}

/// Rewrites a style sheet.
pub fn rewrite_css(bytes: &[u8], options: &Options<'_>) -> Result<Outcome, Error> {
    crate::css::rewrite(bytes, options, Make::Bytes)
}

/// Rewrites an XML document: an Atom or RSS feed, RSS 1.0, SVG, XHTML.
/// Escaped HTML in a feed is rewritten by [`Engine`].
#[cfg_attr(not(feature = "_internal"), allow(dead_code))]
pub fn rewrite_xml(bytes: &[u8], options: &Options<'_>) -> Result<Outcome, Error> {
    crate::xml::rewrite(bytes, (options, Make::Bytes), &Engine)
}

/// The documents relink reads inside archives: HTML, CSS and XML.
#[derive(Debug, Clone, Copy, Default)]
pub struct Engine;

impl Documents for Engine {
    fn rewrite(
        &self,
        kind: Embedded,
        bytes: &[u8],
        options: &Options<'_>,
    ) -> Result<Outcome, Error> {
        match kind {
            Embedded::Html => rewrite_html(bytes, options),
            Embedded::Css => rewrite_css(bytes, options),
            Embedded::Xml => crate::xml::rewrite(bytes, (options, Make::Bytes), self),
        }
    }

    fn rewrite_made(
        &self,
        kind: Embedded,
        bytes: &[u8],
        options: &Options<'_>,
        make: Make,
    ) -> Result<Outcome, Error> {
        match kind {
            Embedded::Html => rewrite_html_made(bytes, options, make),
            Embedded::Css => crate::css::rewrite(bytes, options, make),
            Embedded::Xml => crate::xml::rewrite(bytes, (options, make), self),
        }
    }
}

/// Rewrites a message (or MHTML file): its HTML and CSS parts, each against
/// the base of its layers. `options.outer` is the retrieval URL.
pub fn rewrite_message(bytes: &[u8], options: &Options<'_>) -> MessageOutcome {
    message::rewrite_message(bytes, options, FromLines::Keep, &Engine)
}

/// Rewrites an mbox from `reader` to `writer` as a stream, in bounded
/// memory (batches of messages rewritten in parallel, written in order),
/// calling `report` for each message with its original bytes. Returns
/// whether anything changed.
pub fn rewrite_mbox<R: BufRead, W: Write + ?Sized>(
    reader: R,
    format: MboxFormat,
    writer: &mut W,
    options: &Options<'_>,
    report: impl FnMut(&ArchiveMessage, &[u8]),
) -> io::Result<bool> {
    mbox::rewrite_mbox(reader, format, writer, (options, &Engine), report)
}

impl Default for WarcOptions<'_> {
    /// The default limits, payloads rewritten by [`Engine`].
    fn default() -> Self {
        WarcOptions::new(&Engine)
    }
}

/// What rewriting one input of any kind gave, in the one shape every kind
/// reports: the new bytes, every link with where it is, what could not be
/// done, and the layers of each document's base.
#[derive(Debug, Default)]
pub struct DocumentReport {
    /// The new bytes, or `None` when nothing changed or they were left as
    /// a splice.
    pub output: Option<Vec<u8>>,
    /// The new bytes as the edits to splice into the input, when a text
    /// document changed and they were asked so ([`Make::Splice`]).
    pub splice: Option<Splice>,
    /// Every link (none when only counts were asked), in input order.
    pub rows: Vec<LinkRow>,
    /// How many links were rewritten.
    pub rewritten: usize,
    /// What could not be done, each naming where.
    pub warnings: Vec<Warning>,
    /// Each document's base layers (innermost first), under a label that
    /// says which document: `document`, `part 1.2 (text/html)`, `message 3,
    /// the message (text/html)`, `record 4 URI (text/html)`.
    pub layers: Vec<(String, Vec<Layer>)>,
    /// How many documents had no base, so that their links were left.
    pub without_base: usize,
    /// An HTML document's title and metas (of a web archive record's
    /// payload too), with [`crate::options::Details::Attributes`] only.
    pub head: Option<Box<crate::links::HtmlHead>>,
}

/// Whether no layer gave a base.
fn no_layer_used(layers: &[Layer]) -> bool {
    !layers.iter().any(|l| l.status == LayerStatus::Used)
}

/// How a message part is named in reports.
pub fn part_label(path: &str, mimetype: &str) -> String {
    if path.is_empty() {
        format!("the message ({mimetype})")
    } else {
        format!("part {path} ({mimetype})")
    }
}

impl DocumentReport {
    /// Takes in one document's outcome (its output aside).
    fn add_outcome(&mut self, label: String, outcome: Outcome) {
        self.without_base += usize::from(outcome.base.is_none());
        self.warnings.extend(outcome.warnings);
        self.rewritten += outcome.rewritten;
        self.rows
            .extend(outcome.links.into_iter().map(LinkRow::new));
        self.layers.push((label, outcome.layers));
        self.head = self.head.take().or(outcome.head);
    }

    /// Takes in a message's outcome, its rows and warnings placed inside
    /// `message` (an mbox's message number) when given.
    pub fn add_message(&mut self, message: Option<usize>, outcome: &MessageOutcome) {
        let within = |w: &Warning| match message {
            Some(n) => w.clone().within(format!("message {n}")),
            None => w.clone(),
        };
        self.warnings.extend(outcome.warnings.iter().map(within));
        self.rewritten += outcome.rewritten;
        self.rows
            .extend(outcome.links.iter().map(|(part, link)| LinkRow {
                message,
                part: Some(part.clone()),
                record: None,
                link: link.clone(),
            }));
        for part in &outcome.parts {
            self.without_base += usize::from(no_layer_used(&part.layers));
            let label = match message {
                Some(n) => format!("message {n}, {}", part_label(&part.path, &part.mimetype)),
                None => part_label(&part.path, &part.mimetype),
            };
            self.layers.push((label, part.layers.clone()));
        }
    }

    /// Takes in a web archive record's report.
    pub fn add_record(&mut self, record: RecordReport) {
        self.warnings.extend(record.warnings.iter().cloned());
        self.rewritten += record.rewritten;
        if !record.mimetype.is_empty() {
            self.without_base += usize::from(no_layer_used(&record.layers));
            let label = format!(
                "record {} {} ({})",
                record.number, record.target_uri, record.mimetype
            );
            self.layers.push((label, record.layers));
        } else if record.head_links {
            // No document, but an HTTP head with links.
            let label = format!("record {} {}", record.number, record.target_uri);
            self.layers.push((label, record.layers));
        }
        let name = std::sync::Arc::new(RecordName {
            number: record.number,
            target_uri: record.target_uri,
            record_id: record.record_id,
            record_type: record.record_type,
            heads: record.heads,
        });
        self.rows
            .extend(record.links.into_iter().map(|link| LinkRow {
                message: None,
                part: None,
                record: Some(name.clone()),
                link,
            }));
    }
}

/// Rewrites one input of `kind`, held in memory: the one dispatch from a
/// kind to its reader, which [`crate::rewriter::Rewriter`], the command line and the
/// Python package all go through. An mbox, a web archive and a WACZ
/// package are read here in memory; their streaming readers are
/// [`rewrite_mbox`] and [`crate::warc`]. A web archive's records give their
/// own bases: `options.outer` is not used for them.
#[cfg_attr(not(feature = "_internal"), allow(dead_code))]
pub fn rewrite_document(
    kind: Kind,
    input: &[u8],
    options: &Options<'_>,
) -> Result<DocumentReport, Error> {
    rewrite_document_made(kind, input, options, Make::Bytes)
}

/// [`rewrite_document`], the new bytes of a text document (HTML, CSS,
/// XML, Markdown, reStructuredText) given as `make` says; those of the
/// other kinds are made.
pub fn rewrite_document_made(
    kind: Kind,
    input: &[u8],
    options: &Options<'_>,
    make: Make,
) -> Result<DocumentReport, Error> {
    let mut report = DocumentReport::default();
    let text = match kind {
        Kind::Html => Some(rewrite_html_made(input, options, make)),
        Kind::Markdown => Some(crate::markdown::rewrite_markdown(
            input,
            (options, make),
            &Engine,
        )),
        Kind::Rst => Some(crate::rst::rewrite_rst(input, (options, make), &Engine)),
        Kind::Css => Some(crate::css::rewrite(input, options, make)),
        Kind::Xml => Some(crate::xml::rewrite(input, (options, make), &Engine)),
        _ => None,
    };
    if let Some(outcome) = text {
        let mut outcome = outcome?;
        report.output = outcome.output.take();
        report.splice = outcome.splice.take();
        report.add_outcome("document".to_owned(), outcome);
        return Ok(report);
    }
    match kind {
        Kind::Html | Kind::Markdown | Kind::Rst | Kind::Css | Kind::Xml => {}
        Kind::Message => {
            let outcome = rewrite_message(input, options);
            report.add_message(None, &outcome);
            report.output = outcome.output;
        }
        Kind::Mbox => {
            let mut out = Vec::with_capacity(input.len());
            let changed = rewrite_mbox(
                input,
                MboxFormat::detect(input),
                &mut out,
                options,
                |m, _| report.add_message(Some(m.number), &m.outcome),
            )?;
            report.output = changed.then_some(out);
        }
        Kind::Warc | Kind::Wacz => {
            let options = WarcOptions {
                document: Options {
                    outer: None,
                    ..*options
                },
                ..WarcOptions::new(&Engine)
            };
            let mut records = Vec::new();
            let (changed, out, warnings) = if kind == Kind::Warc {
                let mut out = Vec::with_capacity(input.len());
                let summary =
                    crate::warc::rewrite_with(input, &mut out, &options, |r| records.push(r))?;
                (summary.changed > 0, out, summary.warnings)
            } else {
                let mut out = std::io::Cursor::new(Vec::with_capacity(input.len()));
                let summary = crate::warc::wacz::rewrite_with(
                    std::io::Cursor::new(input),
                    &mut out,
                    &options,
                    |_, r| records.push(r),
                )?;
                (!summary.unchanged(), out.into_inner(), summary.warnings)
            };
            for record in records {
                report.add_record(record);
            }
            // The summary's warnings are the records' and those of bytes
            // outside any record, in file order (a WACZ entry's named).
            report.warnings = warnings;
            report.output = changed.then_some(out);
        }
    }
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::base::{Base, BaseSource};
    use crate::url::{BaseUrl, Rules};

    #[test]
    fn links_handed_to_a_sink_are_handed_once_in_the_encoding_settled() {
        use std::sync::Mutex;
        let found = Mutex::new(Vec::new());
        let sink = |row: LinkRow| found.lock().unwrap().push(row.link.resolved);
        let url = BaseUrl::parse("http://a/", Rules::Rfc1808).unwrap();
        let base = Base::new(url, BaseSource::RetrievedFrom);
        // `\xc3\xa9` is `é` in UTF-8, two other letters in KOI8-R.
        let doc = [
            b" ".repeat(1030),
            b"<a href=\xc3\xa9>x</a><meta charset=koi8-r>".to_vec(),
        ]
        .concat();
        let koi8 = format!("http://a/{}", encoding_rs::KOI8_R.decode(b"\xc3\xa9").0);
        assert_ne!(koi8, "http://a/\u{e9}");
        let options = Options::default().outer(Some(&base)).rows(Some(&sink));
        let outcome = rewrite_html(&doc, &options).unwrap();
        assert_eq!(outcome.encoding, encoding_rs::KOI8_R);
        assert_eq!(
            found.lock().unwrap().as_slice(),
            std::slice::from_ref(&koi8)
        );
        // Read as UTF-8 after all (the late `<meta>` declares nothing),
        // the rows held are handed over once, in order.
        found.lock().unwrap().clear();
        let utf8 = [
            b" ".repeat(1030),
            b"<a href=\xc3\xa9>x</a><meta name=x><a href=b>".to_vec(),
        ]
        .concat();
        let outcome = rewrite_html(&utf8, &options).unwrap();
        assert_eq!(outcome.encoding, encoding_rs::UTF_8);
        assert_eq!(*found.lock().unwrap(), ["http://a/\u{e9}", "http://a/b"]);
        // A page too large to hold its rows is searched first.
        found.lock().unwrap().clear();
        let large = [b" ".repeat(ROWS_BATCH_BYTES), doc.clone()].concat();
        let outcome = rewrite_html(&large, &options).unwrap();
        assert_eq!(outcome.encoding, encoding_rs::KOI8_R);
        assert_eq!(
            found.lock().unwrap().as_slice(),
            std::slice::from_ref(&koi8)
        );
        let quiet = Options::default().outer(Some(&base));
        let outcome = rewrite_html(&doc, &quiet).unwrap();
        assert_eq!(outcome.encoding, encoding_rs::KOI8_R);
        assert_eq!(outcome.links.len(), 1);
        assert_eq!(outcome.links[0].resolved, koi8);
    }

    /// Pieces of documents for the late `<meta>` the rewrite settles: a
    /// script dense enough in `<` to be searched sparsely, the places a
    /// `<meta` may stand (script, style sheet, comment, attribute value,
    /// text), and text that is not UTF-8.
    fn late_pieces() -> Vec<Vec<u8>> {
        let dense = format!("<script>{}", "if(a<b)x;".repeat(40));
        [
            dense.as_str(),
            "<meta charset=koi8-r>",
            "<META http-equiv=Content-Type content='text/html; charset=shift_jis'>",
            "<meta charset=utf-8>",
            "<meta name=x>",
            "<meta",
            "<main>",
            "</script>",
            "<style>",
            "</style>",
            "<!--",
            "-->",
            "<p title='",
            "'",
            "a<b;",
            "<",
            " ",
            "<a href=\u{e9}>",
            "<textarea>",
            "</textarea>",
        ]
        .iter()
        .map(|p| p.as_bytes().to_vec())
        .chain([b"\xe9".to_vec()])
        .collect()
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(2000))]
        /// The rewrite of a document whose late `<meta>` is settled after
        /// it ([`encoding::HtmlSniff::Unsettled`]) gives the encoding and the bytes
        /// the rewrite in the encoding sniffed first gives.
        #[test]
        fn a_late_meta_settled_after_the_rewrite_answers_as_sniffed_before(
            pieces in proptest::collection::vec(proptest::sample::select(late_pieces()), 0..24),
            pad in proptest::sample::select(vec![0usize, 1030]),
        ) {
            let doc = [b" ".repeat(pad), pieces.concat()].concat();
            let url = BaseUrl::parse("http://a/b/c", Rules::Rfc1808).unwrap();
            let base = Base::new(url, BaseSource::RetrievedFrom);
            let options = Options::default().outer(Some(&base));
            let sniffed = encoding::sniff_html(&doc, None);
            let got = rewrite_html(&doc, &options).unwrap();
            let want = rewrite_html(&doc, &options.transport(Some(sniffed.encoding))).unwrap();
            proptest::prop_assert_eq!(got.encoding, sniffed.encoding);
            proptest::prop_assert_eq!(got.output, want.output);
        }
    }
}
