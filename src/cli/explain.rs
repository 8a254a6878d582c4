//! `relink explain`: each document's base layers (RFC 1808 section 3),
//! what each resolved to, and the links of a web archive record's HTTP
//! head with what they resolve to.

use std::collections::VecDeque;
use std::io::{self, BufWriter, Write};
use std::sync::{Arc, Mutex};

use anyhow::Context;
use relink::{Layer, Link, LinkRow, RecordName};

use super::args::*;
use super::batch::{self, Destination};
use super::hints::*;
use super::run::settings;

/// The links of one record's HTTP head (`Location`, `Content-Location`,
/// `Refresh`, `Link`), in the order they were found.
struct HeadLinks {
    record: Arc<RecordName>,
    links: Vec<Link>,
}

/// `relink explain FILE...`.
pub(crate) fn run_explain(args: &ExplainArgs) -> anyhow::Result<Exit> {
    let (jobs, mut errors) = inputs(&args.files, &args.base, (Hint::None, None))?;
    let mut settings = settings(&args.base, Destination::Nowhere, Mode::DryRun)?;
    // Each document's layers, from its unit's end, and the links, of which
    // only those of an HTTP head are kept.
    settings.rewriter = settings.rewriter.details(relink::Details::Links);
    settings.units = true;
    let mut out = BufWriter::new(io::stdout().lock());
    for job in jobs.iter().filter(|j| j.role.is_document()) {
        let heads = Mutex::new(VecDeque::new());
        let layers = Mutex::new(Vec::new());
        let keep = |found: batch::Found<'_>| {
            match found {
                batch::Found::Rows(rows) => {
                    let mut heads = heads.lock().unwrap_or_else(|e| e.into_inner());
                    for row in rows {
                        keep_head_link(&mut heads, row);
                    }
                }
                batch::Found::Done(done) => {
                    let mut layers = layers.lock().unwrap_or_else(|e| e.into_inner());
                    layers.extend_from_slice(done.layers);
                }
            }
            Ok(())
        };
        let report =
            batch::process(job, &settings, &mut io::sink(), &keep).context("explaining")?;
        if let Some(error) = &report.error {
            say!("error: {error}");
            errors += 1;
            continue;
        }
        let heads = heads.into_inner().unwrap_or_else(|e| e.into_inner());
        let layers = layers.into_inner().unwrap_or_else(|e| e.into_inner());
        explain(&mut out, &report.name, &layers, heads).context("writing standard output")?;
    }
    out.flush().context("writing standard output")?;
    Ok(if errors > 0 {
        Exit::SomeFailed
    } else {
        Exit::Done
    })
}

/// Keeps `row` when it is a link of a record's HTTP head, with the other
/// links of its record (the rows of one record share its name).
fn keep_head_link(heads: &mut VecDeque<HeadLinks>, row: &LinkRow) {
    let Some(record) = &row.record else {
        return;
    };
    if row.link.place.element() != "http" {
        return;
    }
    match heads.back_mut() {
        Some(last) if Arc::ptr_eq(&last.record, record) => last.links.push(row.link.clone()),
        _ => heads.push_back(HeadLinks {
            record: record.clone(),
            links: vec![row.link.clone()],
        }),
    }
}

/// Writes the explanation of one input: each document, part or record
/// (`label`) with its layers, and a record's HTTP head links under it.
fn explain(
    out: &mut impl Write,
    name: &str,
    documents: &[(String, Vec<Layer>)],
    mut heads: VecDeque<HeadLinks>,
) -> io::Result<()> {
    writeln!(out, "{name}")?;
    for (label, layers) in documents {
        // The labels and the head links come in the order of the records,
        // and every record with head links has a label.
        let mine = heads.front().is_some_and(|h| names(label, &h.record));
        writeln!(out, "  {label}")?;
        if layers.is_empty() {
            writeln!(out, "    no layer gives a base: links are left as they are")?;
        }
        for layer in layers {
            write_layer(out, layer)?;
        }
        if mine && let Some(head) = heads.pop_front() {
            write_head(out, &head.links)?;
        }
    }
    // None is left, unless a label was not found: then they are said last.
    for head in heads {
        writeln!(
            out,
            "  record {} {}",
            head.record.number, head.record.target_uri
        )?;
        write_head(out, &head.links)?;
    }
    Ok(())
}

/// Whether a document's label (`record 4 URI (text/html)`, in a WACZ
/// package after its entry's name) names `record`.
fn names(label: &str, record: &RecordName) -> bool {
    let name = format!("record {} {}", record.number, record.target_uri);
    let rest = label
        .strip_prefix(&name)
        .or_else(|| label.split_once(&format!(" {name}")).map(|(_, rest)| rest));
    rest.is_some_and(|rest| rest.is_empty() || rest.starts_with(" ("))
}

/// One layer: where it is, its value as written and, when it gave the
/// base from a relative value, the base that value resolved to.
fn write_layer(out: &mut impl Write, layer: &Layer) -> io::Result<()> {
    let source = layer.source.option_name();
    match &layer.resolved {
        Some(url) => writeln!(
            out,
            "    {source}: {} -> {url} ({})",
            layer.value, layer.status
        ),
        None => writeln!(out, "    {source}: {} ({})", layer.value, layer.status),
    }
}

/// The links of a record's HTTP head, with the base they resolve against
/// (the target URI, or `--base`) and what each resolves to.
fn write_head(out: &mut impl Write, links: &[Link]) -> io::Result<()> {
    match links.first().and_then(|l| l.base.as_ref()) {
        Some(base) => writeln!(
            out,
            "    links of the HTTP head, against {} ({}):",
            base.url.as_str(),
            base.source.option_name()
        )?,
        None => writeln!(out, "    links of the HTTP head, with no base:")?,
    }
    for link in links {
        let name = link.place.attribute();
        if link.base.is_none() {
            writeln!(out, "      {name}: {} (left as it is)", link.original)?;
        } else {
            writeln!(out, "      {name}: {} -> {}", link.original, link.resolved)?;
        }
    }
    Ok(())
}
