//! Rewriting a document's bytes: decode, find the edits, map them back to
//! bytes, encode the new text, splice. Shared by HTML and CSS.

use std::borrow::Cow;
use std::fmt;

use encoding_rs::Encoding;

use crate::base::{Base, Layer, LayerStatus};
use crate::encoding::{self, Sniffed};
use crate::html::links::ExtraAttribute;
use crate::html::rewrite::{LineIndex, TextRewrite, rewrite_text};
use crate::splice::{self, Edit};
use crate::url::Rules;
use crate::{Error, css};

/// The largest document relink takes (html5ever indexes text by `u32`).
pub const MAX_DOCUMENT_BYTES: usize = u32::MAX as usize;

/// How to rewrite one document.
#[derive(Debug, Clone, Copy, Default)]
pub struct Options<'a> {
    /// The rule set for every resolution, the BASE element's included.
    pub rules: Rules,
    /// A base forced above every layer (`--base`).
    pub forced: Option<&'a Base>,
    /// The base from the layers outside the document: the enclosing
    /// entity's, else the retrieval URL.
    pub outer: Option<&'a Base>,
    /// The transport's charset (a MIME part's, or `--encoding`).
    pub transport: Option<&'static Encoding>,
    /// Leave `#name` links as they are.
    pub keep_fragment_links: bool,
    /// Further attributes holding URLs on every HTML element (`--attr`).
    pub extra_attributes: &'a [ExtraAttribute],
    /// Whether each link is recorded, or only counted.
    pub details: Details,
}

/// How much a rewrite tells of the links it found.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Details {
    /// A [`Link`] record for each link (for a listing or a report).
    #[default]
    Links,
    /// Only how many were rewritten: no record per link, so memory stays
    /// in proportion to the document, not to its links.
    Counts,
}

/// Where a link was: the element and attribute (`style` with no attribute
/// for a `<style>` element's text; `css` for a style sheet).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LinkPlace {
    /// The element's name.
    pub element: String,
    /// The attribute's name, empty for an element's text.
    pub attribute: String,
}

impl fmt::Display for LinkPlace {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.element.as_str(), self.attribute.as_str()) {
            (element, "") => write!(f, "<{element}>"),
            ("", attribute) => f.write_str(attribute),
            (element, attribute) => write!(f, "<{element} {attribute}>"),
        }
    }
}

/// One link of a document.
#[derive(Debug, Clone)]
pub struct Link {
    /// The line of the value (from 1).
    pub line: usize,
    /// The column of the value (from 1, in bytes of the decoded text).
    pub column: usize,
    /// The element and attribute.
    pub place: LinkPlace,
    /// The URL as written (character references decoded, trimmed).
    pub original: String,
    /// The URL resolved.
    pub resolved: String,
    /// The base it was resolved against.
    pub base: Option<Base>,
    /// Whether the document changed here.
    pub changed: bool,
}

/// What rewriting a document gave.
#[derive(Debug)]
pub struct Outcome {
    /// The new bytes, or `None` when nothing changed.
    pub output: Option<Vec<u8>>,
    /// The encoding the document was read and written in.
    pub encoding: &'static Encoding,
    /// The document's base, if it had one.
    pub base: Option<Base>,
    /// Every link found (none when only [`Details::Counts`] were asked).
    pub links: Vec<Link>,
    /// How many links were rewritten.
    pub rewritten: usize,
    /// What could not be done, each naming where.
    pub warnings: Vec<String>,
    /// The layers of the base the document had, innermost first.
    pub layers: Vec<Layer>,
}

impl Outcome {
    /// The bytes to write: the new ones, or the input when nothing changed.
    pub fn bytes<'a>(&'a self, input: &'a [u8]) -> &'a [u8] {
        self.output.as_deref().unwrap_or(input)
    }
}

/// Rewrites an HTML document.
///
/// ```
/// use relink::{BaseUrl, Rules};
/// use relink::base::{Base, BaseSource};
/// use relink::document::{rewrite_html, Options};
/// let page = br#"<base href="http://www.ics.uci.edu/Test/a/b/c"><a href='../x'>x</a>"#;
/// let outcome = rewrite_html(page, &Options::default())?;
/// assert_eq!(
///     outcome.output.unwrap(),
///     br#"<base href="http://www.ics.uci.edu/Test/a/b/c"><a href='http://www.ics.uci.edu/Test/a/x'>x</a>"#
/// );
/// # Ok::<(), relink::Error>(())
/// ```
pub fn rewrite_html(bytes: &[u8], options: &Options<'_>) -> Result<Outcome, Error> {
    let sniffed = encoding::sniff_html(bytes, options.transport);
    rewrite_bytes(bytes, sniffed, |text| rewrite_text(text, options))
}

/// Rewrites a style sheet.
pub fn rewrite_css(bytes: &[u8], options: &Options<'_>) -> Result<Outcome, Error> {
    let sniffed = encoding::sniff_css(bytes, options.transport);
    rewrite_bytes(bytes, sniffed, |text| rewrite_css_text(text, options))
}

/// The edits of a style sheet given as text.
fn rewrite_css_text(text: &str, options: &Options<'_>) -> TextRewrite {
    let mut out = TextRewrite {
        base: options.forced.or(options.outer).cloned(),
        ..TextRewrite::default()
    };
    for (i, base) in options.forced.iter().chain(&options.outer).enumerate() {
        let status = if i == 0 {
            LayerStatus::Used
        } else {
            LayerStatus::Below
        };
        out.layers
            .push(Layer::new(base.source.clone(), base.url.as_str(), status));
    }
    let Some(base) = out.base.clone() else {
        out.warnings
            .push("no base url: links left as they are".to_owned());
        return out;
    };
    let lines = LineIndex::new(text);
    let place = LinkPlace {
        element: String::new(),
        attribute: "css".to_owned(),
    };
    for url in css::urls(text) {
        // An empty `url()` resolves to no resource (CSS Values 4).
        if url.value.is_empty() || url.value.starts_with('#') {
            continue;
        }
        let (line, column) = lines.locate(url.range.start);
        match base.url.resolve(&url.value) {
            Ok(resolved) => {
                let resolved = resolved.into_owned();
                let changed = resolved != url.value;
                if changed {
                    let edit = Edit::new(url.range.clone(), css::escape(&resolved, url.quoting));
                    out.edits.push(edit.narrowed(text));
                    out.rewritten += 1;
                }
                if options.details == Details::Counts {
                    continue;
                }
                out.links.push(Link {
                    line,
                    column,
                    place: place.clone(),
                    original: url.value,
                    resolved,
                    base: Some(base.clone()),
                    changed,
                });
            }
            Err(err) => out
                .warnings
                .push(format!("line {line}, column {column}: {err}")),
        }
    }
    out
}

/// Decodes, rewrites the text, and splices the edits into the bytes.
fn rewrite_bytes(
    bytes: &[u8],
    sniffed: Sniffed,
    rewrite: impl FnOnce(&str) -> TextRewrite,
) -> Result<Outcome, Error> {
    if bytes.len() > MAX_DOCUMENT_BYTES {
        return Err(Error::TooLarge(bytes.len()));
    }
    let text = encoding::decode(bytes, &sniffed);
    let TextRewrite {
        edits,
        links,
        rewritten,
        warnings,
        base,
        layers,
    } = rewrite(&text);
    let output = (!edits.is_empty()).then(|| {
        let byte_edits: Vec<Edit<Cow<'_, [u8]>>> = match &text {
            // The text is the bytes after the byte order mark.
            Cow::Borrowed(_) => edits
                .iter()
                .map(|e| {
                    let at = sniffed.bom_len;
                    Edit::new(
                        e.range.start + at..e.range.end + at,
                        encoding::encode(&e.text, sniffed.encoding),
                    )
                })
                .collect(),
            Cow::Owned(_) => {
                let bounds: Vec<usize> = edits
                    .iter()
                    .flat_map(|e| [e.range.start, e.range.end])
                    .collect();
                let offsets = encoding::byte_offsets(bytes, &sniffed, &bounds);
                edits
                    .iter()
                    .zip(offsets.chunks(2))
                    .map(|(e, at)| {
                        Edit::new(at[0]..at[1], encoding::encode(&e.text, sniffed.encoding))
                    })
                    .collect()
            }
        };
        splice::apply(bytes, &byte_edits)
    });
    Ok(Outcome {
        output,
        encoding: sniffed.encoding,
        base,
        links,
        rewritten,
        warnings,
        layers,
    })
}
