//! The entry points relink's own tests used before the front door: to go
//! once every test reaches the library through [`crate::Rewriter`].

use std::io::{self, BufRead, Write};

use crate::error::Error;
use crate::front::documents::{Engine, record_report, rewrite_in_memory};
use crate::kind::Kind;
use crate::links::Outcome;
use crate::mime::mbox::{self, ArchiveMessage, MboxFormat};
use crate::mime::message::{self, FromLines};
use crate::options::Options;
use crate::splice::Make;
use crate::warc::WarcOptions;

pub use crate::links::UnitReport as DocumentReport;
pub use crate::mime::message::part_label;

/// Rewrites an HTML document.
pub fn rewrite_html(bytes: &[u8], options: &Options<'_>) -> Result<Outcome, Error> {
    crate::html::page::rewrite_html(bytes, options, Make::Bytes)
}

/// Rewrites a style sheet.
pub fn rewrite_css(bytes: &[u8], options: &Options<'_>) -> Result<Outcome, Error> {
    crate::css::rewrite(bytes, options, Make::Bytes)
}

/// Rewrites an XML document.
pub fn rewrite_xml(bytes: &[u8], options: &Options<'_>) -> Result<Outcome, Error> {
    crate::xml::rewrite(bytes, (options, Make::Bytes), &Engine)
}

/// Rewrites a message (or MHTML file).
pub fn rewrite_message(bytes: &[u8], options: &Options<'_>) -> DocumentReport {
    message::rewrite_message(bytes, options, FromLines::Keep, &Engine)
}

/// Rewrites an mbox from `reader` to `writer`.
pub fn rewrite_mbox<R: BufRead, W: Write + ?Sized>(
    reader: R,
    format: MboxFormat,
    writer: &mut W,
    options: &Options<'_>,
    mut report: impl FnMut(&ArchiveMessage, &[u8]),
) -> io::Result<bool> {
    let report = |m: &mut ArchiveMessage, b: &[u8]| report(m, b);
    mbox::rewrite_mbox(reader, format, writer, (options, &Engine), report)
}

impl Default for WarcOptions<'_> {
    /// The default limits, payloads rewritten by [`Engine`].
    fn default() -> Self {
        WarcOptions::new(&Engine)
    }
}

/// Rewrites one input of `kind`, held in memory.
pub fn rewrite_document(
    kind: Kind,
    input: &[u8],
    options: &Options<'_>,
) -> Result<DocumentReport, Error> {
    match kind {
        Kind::Mbox => {
            let mut report = DocumentReport::default();
            let mut out = Vec::with_capacity(input.len());
            let changed = rewrite_mbox(
                input,
                MboxFormat::detect(input),
                &mut out,
                options,
                |m, _| {
                    let o = &m.outcome;
                    report.rows.extend(o.rows.iter().cloned());
                    report.warnings.extend(o.warnings.iter().cloned());
                    report.layers.extend(o.layers.iter().cloned());
                    report.rewritten += o.rewritten;
                    report.without_base += o.without_base;
                },
            )?;
            report.output = changed.then_some(out);
            Ok(report)
        }
        Kind::Warc | Kind::Wacz => {
            let options = WarcOptions {
                document: Options {
                    outer: None,
                    ..*options
                },
                ..WarcOptions::new(&Engine)
            };
            let mut report = DocumentReport::default();
            let mut add = |r| {
                let (_, unit) = record_report(r);
                report.rows.extend(unit.rows);
                report.layers.extend(unit.layers);
                report.rewritten += unit.rewritten;
                report.without_base += unit.without_base;
            };
            let (changed, out, warnings) = if kind == Kind::Warc {
                let mut out = Vec::with_capacity(input.len());
                let summary = crate::warc::rewrite_with(input, &mut out, &options, &mut add)?;
                (summary.changed > 0, out, summary.warnings)
            } else {
                let mut out = io::Cursor::new(Vec::with_capacity(input.len()));
                let summary = crate::warc::wacz::rewrite_with(
                    io::Cursor::new(input),
                    &mut out,
                    &options,
                    |_, r| add(r),
                )?;
                (!summary.unchanged(), out.into_inner(), summary.warnings)
            };
            report.warnings = warnings;
            report.output = changed.then_some(out);
            Ok(report)
        }
        _ => rewrite_in_memory(kind, input, options, Make::Bytes),
    }
}
