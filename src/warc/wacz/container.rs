//! The zip container of a package: opened with its names checked, entries
//! read as text, and written again with every unchanged entry's compressed
//! bytes copied as they were.

use std::collections::HashMap;
use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom, Write};

use zip::write::SimpleFileOptions;
use zip::{CompressionMethod, ZipArchive, ZipWriter};

use super::{WaczError, WaczSummary};

/// The largest `datapackage.json` or `datapackage-digest.json` read.
const MAX_JSON_BYTES: u64 = 64 << 20;

/// The zip of a WACZ, refused when two of its entries have one name.
pub(super) fn open<R: Read + Seek>(input: R) -> Result<ZipArchive<R>, WaczError> {
    let zip = ZipArchive::new(input)?;
    if zip.has_duplicate_names() {
        return Err(WaczError::DuplicateNames);
    }
    Ok(zip)
}

pub(super) fn entry_name<R: Read + Seek>(
    zip: &mut ZipArchive<R>,
    index: usize,
) -> Result<String, WaczError> {
    Ok(zip.by_index_raw(index)?.name()?.into_owned())
}

pub(super) fn read_json_entry<R: Read + Seek>(
    zip: &mut ZipArchive<R>,
    index: usize,
    name: &str,
) -> Result<String, WaczError> {
    let mut text = String::new();
    zip.by_index(index)?
        .take(MAX_JSON_BYTES)
        .read_to_string(&mut text)
        .map_err(|e| WaczError::entry(name, format!("not UTF-8 text: {e}")))?;
    Ok(text)
}

pub(super) fn text_file(text: &str) -> io::Result<File> {
    let mut file = tempfile::tempfile()?;
    file.write_all(text.as_bytes())?;
    Ok(file)
}

/// The input as it was, byte for byte, for a package in which nothing
/// changed.
pub(super) fn copy_whole<R: Read + Seek, W: Write>(
    zip: ZipArchive<R>,
    mut output: W,
) -> io::Result<()> {
    let mut input = zip.into_inner();
    input.seek(SeekFrom::Start(0))?;
    io::copy(&mut input, &mut output)?;
    output.flush()
}

/// The new zip, entry by entry in the input's order: an entry in `new` is
/// written from its file, compressed as it was (stored or deflated) with
/// its time and mode, and named in `summary.rewritten`; any other is
/// copied raw.
pub(super) fn write_package<R: Read + Seek, W: Write + Seek>(
    zip: &mut ZipArchive<R>,
    output: W,
    names: &[String],
    new: &mut HashMap<String, File>,
    summary: &mut WaczSummary,
) -> Result<(), WaczError> {
    let mut writer = ZipWriter::new(output);
    writer.set_raw_comment(zip.comment().into())?;
    for (index, name) in names.iter().enumerate() {
        match new.get_mut(name) {
            None => writer.raw_copy_file(zip.by_index_raw(index)?)?,
            Some(file) => {
                let len = file.seek(SeekFrom::End(0))?;
                file.seek(SeekFrom::Start(0))?;
                let entry = zip.by_index_raw(index)?;
                let method = match entry.compression() {
                    CompressionMethod::Stored => CompressionMethod::Stored,
                    _ => CompressionMethod::Deflated,
                };
                let mut options = SimpleFileOptions::default()
                    .compression_method(method)
                    .last_modified_time(entry.last_modified().unwrap_or_default())
                    .large_file(len >= u64::from(u32::MAX));
                if let Some(mode) = entry.unix_mode() {
                    options = options.unix_permissions(mode);
                }
                drop(entry);
                writer.start_file(name.as_str(), options)?;
                io::copy(file, &mut writer)?;
                summary.rewritten.push(name.clone());
            }
        }
    }
    writer.finish()?;
    Ok(())
}
