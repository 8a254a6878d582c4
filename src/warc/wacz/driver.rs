//! The passes over a package: its WARC entries read or rewritten in entry
//! order, then (when any changed) its indexes and package description
//! brought up to date and the new zip written.

use std::collections::HashMap;
use std::fs::File;
use std::io::{self, BufReader, Read, Seek, SeekFrom, Write};

use zip::ZipArchive;

use super::container::{copy_whole, entry_name, open, write_package};
use super::index::{IndexContext, IndexKind, rewrite_lines};
use super::package::{is_signed, update_package};
use super::records::ArchiveMap;
use super::zipnum::{Block, rewrite_gzipped_index, rewrite_summary};
use super::{WaczError, WaczSummary, is_archive_entry};
use crate::warc::{self, RecordReport, WarcOptions};

/// Reads every record of every WARC entry, in entry order, calling
/// `on_record` with the entry's name and the record's report, and writes
/// nothing.
pub fn inspect<R: Read + Seek>(
    input: R,
    options: &WarcOptions<'_>,
    mut on_record: impl FnMut(&str, RecordReport),
) -> Result<WaczSummary, WaczError> {
    let mut zip = open(input)?;
    let mut summary = WaczSummary::default();
    for index in 0..zip.len() {
        let name = entry_name(&mut zip, index)?;
        if !is_archive_entry(&name) {
            continue;
        }
        let entry = zip.by_index(index)?;
        let result = warc::inspect(BufReader::new(entry), options, |report| {
            on_record(&name, report)
        });
        summary.add_archive(name, result)?;
    }
    Ok(summary)
}

/// [`rewrite`], calling `on_record` with the entry's name for each record
/// of each WARC entry in order.
pub fn rewrite_with<R: Read + Seek, W: Write + Seek>(
    input: R,
    output: W,
    options: &WarcOptions<'_>,
    mut on_record: impl FnMut(&str, RecordReport),
) -> Result<WaczSummary, WaczError> {
    let mut zip = open(input)?;
    let mut summary = WaczSummary::default();
    let names = (0..zip.len())
        .map(|i| entry_name(&mut zip, i))
        .collect::<Result<Vec<_>, _>>()?;
    let signed = is_signed(&mut zip, &names)?;

    // The WARCs, each into a temporary file; kept only when it changed.
    let mut new: HashMap<String, File> = HashMap::new();
    let mut archives: HashMap<String, ArchiveMap> = HashMap::new();
    for (index, name) in names.iter().enumerate() {
        if !is_archive_entry(name) {
            continue;
        }
        let mut temp = tempfile::tempfile()?;
        let entry = zip.by_index(index)?;
        let result = warc::rewrite_with(BufReader::new(entry), &mut temp, options, |report| {
            on_record(name, report)
        });
        let changed = summary.add_archive(name.clone(), result)?;
        if changed {
            if signed {
                return Err(WaczError::Signed);
            }
            let gzipped = name.to_ascii_lowercase().ends_with(".gz");
            archives.insert(
                name.clone(),
                ArchiveMap {
                    gzipped,
                    input: None,
                    output: None,
                },
            );
            new.insert(name.clone(), temp);
        }
    }

    if !new.is_empty() {
        update_indexes(&mut zip, &names, &mut archives, &mut new, &mut summary)?;
        update_package(&mut zip, &names, &mut new, &mut summary)?;
    }

    if new.is_empty() {
        // Nothing changed: the input as it was, byte for byte.
        copy_whole(zip, output)?;
    } else {
        write_package(&mut zip, output, &names, &mut new, &mut summary)?;
    }
    Ok(summary)
}

/// Brings every index up to date with the rewritten WARCs: the plain and
/// gzipped lines first, then the ZipNum summaries of the gzipped ones.
pub(super) fn update_indexes<R: Read + Seek>(
    zip: &mut ZipArchive<R>,
    names: &[String],
    archives: &mut HashMap<String, ArchiveMap>,
    new: &mut HashMap<String, File>,
    summary: &mut WaczSummary,
) -> Result<(), WaczError> {
    let warcs: HashMap<String, usize> = names
        .iter()
        .enumerate()
        .filter(|(_, n)| is_archive_entry(n))
        .map(|(i, n)| (n.clone(), i))
        .collect();
    let mut blocks: HashMap<String, Vec<Block>> = HashMap::new();
    for (index, name) in names.iter().enumerate() {
        let Some(kind) = IndexKind::of(name) else {
            if name.starts_with("indexes/") && !name.ends_with('/') {
                summary.warn(
                    name,
                    "not an index relink reads (.cdx, .cdxj, .cdx.gz, .idx); copied as it is",
                );
            }
            continue;
        };
        if kind == IndexKind::Summary {
            continue;
        }
        let mut source = tempfile::tempfile()?;
        io::copy(&mut zip.by_index(index)?, &mut source)?;
        let mut ctx = IndexContext {
            entry: name,
            archives,
            new,
            zip,
            warcs: &warcs,
            warned: false,
            undigested: 0,
        };
        let mut out = tempfile::tempfile()?;
        let changed = match kind {
            IndexKind::Plain => {
                source.seek(SeekFrom::Start(0))?;
                rewrite_lines(&mut BufReader::new(&mut source), &mut out, &mut ctx)?
            }
            IndexKind::Gzipped => {
                let (changed, map) = rewrite_gzipped_index(&mut source, &mut out, &mut ctx)?;
                blocks.insert(name.clone(), map);
                changed
            }
            IndexKind::Summary => false,
        };
        if ctx.warned {
            summary.warn(
                name,
                "lines naming a WARC file the package does not hold are kept as they are",
            );
        }
        if ctx.undigested > 0 {
            summary.warn(
                name,
                format!(
                    "{} lines keep the digest of a changed record that has no WARC-Payload-Digest",
                    ctx.undigested
                ),
            );
        }
        if changed {
            new.insert(name.clone(), out);
        }
    }
    for (index, name) in names.iter().enumerate() {
        if IndexKind::of(name) != Some(IndexKind::Summary) {
            continue;
        }
        let mut text = String::new();
        zip.by_index(index)?
            .read_to_string(&mut text)
            .map_err(|e| WaczError::entry(name, format!("not UTF-8 text: {e}")))?;
        if let Some(out) = rewrite_summary(name, &text, &blocks, new)? {
            new.insert(name.clone(), out);
        }
    }
    Ok(())
}
