//! The documents relink reads, by kind: the one dispatch from a kind to
//! its reader for a unit held in memory, and the [`Engine`] through which
//! the readers of archives reach the readers of the documents inside them,
//! so that none of them knows another reader.

use crate::error::Error;
use crate::html::page::rewrite_html;
use crate::kind::Kind;
use crate::links::{LinkRow, Outcome, UnitReport};
use crate::mime::message::{self, FromLines};
use crate::options::Options;
use crate::splice::Make;
use crate::text::{Documents, Embedded};

/// The documents relink reads inside archives and notebooks: HTML, CSS,
/// XML and Markdown.
#[derive(Debug, Clone, Copy, Default)]
pub struct Engine;

impl Documents for Engine {
    fn rewrite(
        &self,
        kind: Embedded,
        bytes: &[u8],
        options: &Options<'_>,
    ) -> Result<Outcome, Error> {
        self.rewrite_made(kind, bytes, options, Make::Bytes)
    }

    fn rewrite_made(
        &self,
        kind: Embedded,
        bytes: &[u8],
        options: &Options<'_>,
        make: Make,
    ) -> Result<Outcome, Error> {
        match kind {
            Embedded::Html => rewrite_html(bytes, options, make),
            Embedded::Css => crate::css::rewrite(bytes, options, make),
            Embedded::Xml => crate::xml::rewrite(bytes, (options, make), self),
            Embedded::Markdown => crate::markdown::rewrite_markdown(bytes, (options, make), self),
        }
    }
}

/// Rewrites one document held in memory (HTML, CSS, XML, a sitemap,
/// a robots.txt, Markdown, reStructuredText, a message or MHTML file), the new bytes of a text
/// document given as `make` says; a message's are made.
pub fn rewrite_in_memory(
    kind: Kind,
    input: &[u8],
    options: &Options<'_>,
    make: Make,
) -> Result<UnitReport, Error> {
    let outcome = match kind {
        Kind::Message => {
            return Ok(message::rewrite_message(
                input,
                options,
                FromLines::Keep,
                &Engine,
            ));
        }
        Kind::Markdown => crate::markdown::rewrite_markdown(input, (options, make), &Engine),
        Kind::Rst => crate::rst::rewrite_rst(input, (options, make), &Engine),
        Kind::Notebook => crate::notebook::rewrite_notebook(input, (options, make), &Engine),
        Kind::Css => crate::css::rewrite(input, options, make),
        Kind::Xml | Kind::Sitemap => crate::xml::rewrite(input, (options, make), &Engine),
        Kind::Robots => crate::robots::rewrite(input, options, make),
        _ => rewrite_html(input, options, make),
    };
    let mut outcome = outcome?;
    let mut report = UnitReport {
        output: outcome.output.take(),
        splice: outcome.splice.take(),
        ..UnitReport::default()
    };
    let layers = std::mem::take(&mut outcome.layers);
    report.add_document(("document".to_owned(), layers), outcome, LinkRow::new);
    Ok(report)
}
