//! One document, by its kind: an HTML document or a style sheet, decoded,
//! rewritten and encoded again through the core. The readers of archives
//! (messages, mbox, WARC) reach these through [`Engine`], the core's
//! [`Documents`], so that none of them knows another reader.

use std::io::{self, BufRead, Write};

use crate::Error;
use crate::base::BaseChain;
use crate::encoding;
use crate::html::rewrite::rewrite_text;
use crate::links::Outcome;
use crate::links::{Place, Warning, WarningKind};
use crate::mime::mbox::{self, ArchiveMessage, MboxFormat};
use crate::mime::message::{self, FromLines, MessageOutcome};
use crate::options::Options;
use crate::splice::Edit;
use crate::text::{self, Documents, Embedded, Resolver, TextRewrite};
use crate::warc::WarcOptions;


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
    let sniffed = encoding::sniff_html(bytes, options.transport);
    text::rewrite_bytes(bytes, sniffed, |text| rewrite_text(text, options))
}

/// Rewrites a style sheet.
pub fn rewrite_css(bytes: &[u8], options: &Options<'_>) -> Result<Outcome, Error> {
    let sniffed = encoding::sniff_css(bytes, options.transport);
    text::rewrite_bytes(bytes, sniffed, |text| rewrite_css_text(text, options))
}

/// The edits of a style sheet given as text: a style sheet has no layer of
/// its own, so its base is the forced one, else the outer one.
fn rewrite_css_text(text: &str, options: &Options<'_>) -> TextRewrite {
    let (base, layers) = BaseChain::new(options.rules, options.forced, options.outer).finish();
    let mut resolver = Resolver::new(text, options);
    resolver.out.layers = layers;
    let Some(base) = base else {
        resolver.out.warnings.push(Warning::new(
            WarningKind::NoBase,
            "no base url: links left as they are",
        ));
        return resolver.out;
    };
    let place = Place {
        element: "",
        attribute: "css",
    };
    for (range, new) in resolver.css_urls(text, 0, &base, place) {
        let edit = Edit::new(range, new).narrowed(text);
        resolver.out.edits.push(edit);
    }
    resolver.out.base = Some(base);
    resolver.out
}

/// The documents relink reads inside archives: HTML and CSS.
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
