//! The package description: `datapackage.json` given the new `hash` and
//! `bytes` of every rewritten entry, and `datapackage-digest.json` the new
//! hash of it, every other byte of both kept.

use std::collections::HashMap;
use std::fs::File;
use std::io::{Read, Seek, SeekFrom};

use serde_json::value::RawValue;
use zip::ZipArchive;

use super::container::{read_json_entry, text_file};
use super::hash::hash_reader;
use super::json::{RawField, apply_edits, object_fields};
use super::{DATAPACKAGE, DATAPACKAGE_DIGEST, WaczError, WaczSummary};

/// Whether the package is signed (`signedData` in
/// `datapackage-digest.json`, and not `null`).
pub(super) fn is_signed<R: Read + Seek>(
    zip: &mut ZipArchive<R>,
    names: &[String],
) -> Result<bool, WaczError> {
    let Some(index) = names.iter().position(|n| n == DATAPACKAGE_DIGEST) else {
        return Ok(false);
    };
    let text = read_json_entry(zip, index, DATAPACKAGE_DIGEST)?;
    let fields = object_fields(&text).map_err(|e| WaczError::entry(DATAPACKAGE_DIGEST, e))?;
    Ok(fields
        .get("signedData")
        .is_some_and(|raw| raw.text.trim() != "null"))
}

/// Brings `datapackage.json` and `datapackage-digest.json` up to date
/// with the rewritten entries.
pub(super) fn update_package<R: Read + Seek>(
    zip: &mut ZipArchive<R>,
    names: &[String],
    new: &mut HashMap<String, File>,
    summary: &mut WaczSummary,
) -> Result<(), WaczError> {
    let Some(index) = names.iter().position(|n| n == DATAPACKAGE) else {
        summary.warn(
            DATAPACKAGE,
            "missing: the package lists no hashes to bring up to date",
        );
        return Ok(());
    };
    let text = read_json_entry(zip, index, DATAPACKAGE)?;
    let updated = rewrite_package(&text, new, summary)?;
    if updated == text {
        return Ok(());
    }
    if let Some(digest) = names.iter().position(|n| n == DATAPACKAGE_DIGEST) {
        let digest_text = read_json_entry(zip, digest, DATAPACKAGE_DIGEST)?;
        let digest_new = rewrite_package_digest(&digest_text, updated.as_bytes())?;
        new.insert(DATAPACKAGE_DIGEST.to_owned(), text_file(&digest_new)?);
    }
    new.insert(DATAPACKAGE.to_owned(), text_file(&updated)?);
    Ok(())
}

/// `datapackage.json` with the `hash` and `bytes` of every rewritten
/// entry made right, the rest of its text as it was.
fn rewrite_package(
    text: &str,
    new: &mut HashMap<String, File>,
    summary: &mut WaczSummary,
) -> Result<String, WaczError> {
    let fail = |reason: String| WaczError::entry(DATAPACKAGE, reason);
    let top = object_fields(text).map_err(fail)?;
    let Some(resources) = top.get("resources") else {
        return Err(fail("no resources".into()));
    };
    let list: Vec<&RawValue> = serde_json::from_str(resources.text)
        .map_err(|e| fail(format!("resources: not a list: {e}")))?;
    let mut edits = Vec::new();
    let mut listed = Vec::new();
    for raw in list {
        let raw = raw.get();
        let Some(at) = (raw.as_ptr() as usize).checked_sub(resources.text.as_ptr() as usize) else {
            continue;
        };
        let at = at + resources.range.start;
        let fields = object_fields(raw).map_err(|e| fail(format!("resource: {e}")))?;
        let Some(path) = fields.get("path").and_then(RawField::string) else {
            continue;
        };
        listed.push(path.clone());
        let Some(file) = new.get_mut(&path) else {
            continue;
        };
        file.seek(SeekFrom::Start(0))?;
        let old = fields
            .get("hash")
            .and_then(RawField::string)
            .unwrap_or_default();
        let size = match hash_reader(&old, &mut *file)? {
            Some((hash, size)) => {
                edits.push(fields["hash"].string_edit(&hash, at));
                size
            }
            None => {
                if fields.contains_key("hash") {
                    return Err(fail(format!(
                        "{path}: hash '{old}' is in an algorithm relink does not compute (md5, sha1, sha224, sha256, sha384, sha512)"
                    )));
                }
                file.seek(SeekFrom::End(0))?
            }
        };
        if let Some(bytes) = fields.get("bytes") {
            edits.push(bytes.number_edit(size, at));
        }
    }
    let mut unlisted: Vec<&String> = new.keys().filter(|k| !listed.contains(k)).collect();
    unlisted.sort();
    for name in unlisted {
        summary.warn(
            DATAPACKAGE,
            format!("lists no {name}: its hash is not recorded"),
        );
    }
    Ok(apply_edits(text, edits))
}

/// `datapackage-digest.json` with the new hash of `datapackage.json`.
fn rewrite_package_digest(text: &str, package: &[u8]) -> Result<String, WaczError> {
    let fail = |reason: String| WaczError::entry(DATAPACKAGE_DIGEST, reason);
    let fields = object_fields(text).map_err(fail)?;
    let Some(hash) = fields.get("hash") else {
        return Ok(text.to_owned());
    };
    let old = hash.string().unwrap_or_default();
    let Some((new, _)) = hash_reader(&old, package)? else {
        return Err(fail(format!(
            "hash '{old}' is in an algorithm relink does not compute (md5, sha1, sha224, sha256, sha384, sha512)"
        )));
    };
    Ok(apply_edits(text, vec![hash.string_edit(&new, 0)]))
}
