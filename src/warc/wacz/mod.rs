//! WACZ (Web Archive Collection Zipped, <https://specs.webrecorder.net/wacz/1.1.1/>):
//! the zip package of ArchiveWeb.page, Browsertrix and py-wacz. Its WARC
//! files (`archive/*.warc`, `archive/*.warc.gz`) are read and rewritten as
//! any WARC is; what points into them is brought up to date with them.
//!
//! A rewritten WACZ keeps every entry that did not change as it was (its
//! compressed bytes copied), and every entry in its place, compressed as
//! it was. For each WARC that changed:
//!
//! - its index lines (`indexes/*.cdx`, `*.cdxj`, plain or gzipped, CDXJ or
//!   classic CDX with a ` CDX` header) get the new `offset` and `length` of
//!   their record, a new `digest` when the record's `WARC-Payload-Digest`
//!   changed, and a new `recordDigest` (py-wacz's hash of the record's
//!   bytes as stored). The records of the old and new WARC map one to one:
//!   the i-th gzip member of one is the i-th of the other (for a plain WARC,
//!   the i-th record). An index line that points anywhere else is refused,
//!   never left stale;
//! - a ZipNum index (a `.cdx.gz` of gzip blocks with its `.idx` summary) is
//!   rewritten block by block, an unchanged block kept as it was, and the
//!   summary lines get each block's new `offset`, `length` and `digest`;
//! - `datapackage.json` gets the new `hash` (in the algorithm it used) and
//!   `bytes` of every changed entry, the rest of its text kept, and
//!   `datapackage-digest.json` the new hash of `datapackage.json`.
//!
//! A signed WACZ (`signedData` in `datapackage-digest.json`) cannot be
//! signed again here: rewriting one whose WARCs would change is refused.

//!
//! The package is read and written in `container` (the zip), the driver
//! (`driver`: [`inspect`], [`links`], [`rewrite`], [`rewrite_with`]) runs
//! the WARC passes, `records` finds where each record lies in a WARC
//! before and after, `index` rewrites CDX and CDXJ lines, `zipnum` the
//! blocks and summary of a ZipNum index, and `package` (with `json` and
//! `hash`) brings `datapackage.json` and its digest up to date.

mod container;
mod driver;
mod hash;
mod index;
mod json;
mod package;
mod records;
mod zipnum;

use std::io;

use zip::result::ZipError;

use super::{WarcError, WarcSummary};
use crate::links::{Warning, WarningKind};

pub use driver::{inspect, rewrite_with};

/// The package description every WACZ holds.
pub const DATAPACKAGE: &str = "datapackage.json";
/// The digest (and perhaps signature) of `datapackage.json`.
pub const DATAPACKAGE_DIGEST: &str = "datapackage-digest.json";

/// What could not be done with a WACZ file.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum WaczError {
    /// Reading or writing failed.
    #[error("{0}")]
    Io(#[from] io::Error),
    /// The zip container cannot be read or written.
    #[error("zip archive: {0}")]
    Zip(#[from] ZipError),
    /// A WARC entry that cannot be read.
    #[error("{entry}: {source}")]
    Warc {
        /// The entry's name in the zip (`archive/data.warc.gz`).
        entry: String,
        /// What is wrong with it.
        #[source]
        source: WarcError,
    },
    /// An entry that cannot be brought up to date with the rewritten WARCs
    /// (an index, the package description): nothing is written rather
    /// than a stale entry.
    #[error("{entry}: {reason}")]
    Entry {
        /// The entry's name in the zip.
        entry: String,
        /// What is wrong.
        reason: String,
    },
    /// A zip with two entries of one name: the zip reader keeps one of
    /// them, so the other (a whole WARC, perhaps) would be lost.
    #[error(
        "zip archive: two entries have one name; refusing to read it, as one of them would be lost"
    )]
    DuplicateNames,
    /// A signed WACZ whose WARCs would change: its signature cannot be
    /// made again here.
    #[error(
        "{DATAPACKAGE_DIGEST}: the package is signed (signedData) and relink cannot sign it again; refusing to rewrite it"
    )]
    Signed,
}

impl From<WaczError> for crate::error::Error {
    fn from(error: WaczError) -> Self {
        crate::error::Error::Wacz(Box::new(error))
    }
}

impl WaczError {
    pub(super) fn entry(entry: &str, reason: impl Into<String>) -> Self {
        WaczError::Entry {
            entry: entry.to_owned(),
            reason: reason.into(),
        }
    }
}

/// What a pass over one WARC entry gave.
#[derive(Debug, Clone, Default)]
#[cfg_attr(not(feature = "_internal"), allow(dead_code))]
pub struct ArchiveReport {
    /// The entry's name in the zip (`archive/data.warc.gz`).
    pub entry: String,
    /// What the WARC pass gave.
    pub summary: WarcSummary,
}

/// What a pass over a WACZ file gave.
#[derive(Debug, Clone, Default)]
pub struct WaczSummary {
    /// Each WARC entry, in entry order.
    pub archives: Vec<ArchiveReport>,
    /// The entries written anew, in entry order (empty when nothing
    /// changed: every entry was copied as it was).
    pub rewritten: Vec<String>,
    /// Every warning, each naming its entry, in entry order.
    pub warnings: Vec<Warning>,
}

impl WaczSummary {
    /// How many records the WARC entries hold.
    pub fn records(&self) -> usize {
        self.archives.iter().map(|a| a.summary.records).sum()
    }

    /// How many records changed.
    pub fn changed(&self) -> usize {
        self.archives.iter().map(|a| a.summary.changed).sum()
    }

    /// Whether the output holds the same entries as the input (a caller
    /// may then keep the input and skip writing).
    pub fn unchanged(&self) -> bool {
        self.rewritten.is_empty()
    }

    pub(super) fn warn(&mut self, entry: &str, message: impl std::fmt::Display) {
        self.warnings
            .push(Warning::new(WarningKind::Unreadable, message).within(entry));
    }

    /// Adds a WARC pass; whether it changed any record.
    pub(super) fn add_archive(
        &mut self,
        entry: String,
        result: Result<WarcSummary, WarcError>,
    ) -> Result<bool, WaczError> {
        let summary = result.map_err(|source| WaczError::Warc {
            entry: entry.clone(),
            source,
        })?;
        self.warnings.extend(
            summary
                .warnings
                .iter()
                .map(|w| w.clone().within(entry.clone())),
        );
        let changed = summary.changed > 0;
        self.archives.push(ArchiveReport { entry, summary });
        Ok(changed)
    }
}

/// Whether a zip entry is a WARC file of the package: `archive/*.warc` or
/// `archive/*.warc.gz`.
pub fn is_archive_entry(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    lower.starts_with("archive/") && (lower.ends_with(".warc") || lower.ends_with(".warc.gz"))
}

/// Whether the start of a file is a WACZ: a zip local file header, and
/// among the entry names reachable within `head`, one that only a WACZ
/// has (`archive/*.warc*`, `datapackage.json`, `datapackage-digest.json`,
/// `indexes/...`, `pages/*.jsonl`). py-wacz puts its index first and
/// Browsertrix its WARCs, so the first entry usually tells; 4 KiB is
/// plenty.
pub fn looks_like_wacz(head: &[u8]) -> bool {
    let u16_at = |at: usize| u16::from_le_bytes([head[at], head[at + 1]]) as usize;
    let u32_at = |at: usize| {
        u32::from_le_bytes([head[at], head[at + 1], head[at + 2], head[at + 3]]) as usize
    };
    let mut at = 0;
    while head.len() >= at + 30 && head[at..].starts_with(b"PK\x03\x04") {
        let flags = u16_at(at + 6);
        let compressed = u32_at(at + 18);
        let name_len = u16_at(at + 26);
        let extra_len = u16_at(at + 28);
        let Some(name) = head.get(at + 30..at + 30 + name_len) else {
            return false;
        };
        let name = String::from_utf8_lossy(name).to_ascii_lowercase();
        let wacz = (name.starts_with("archive/") && name.contains(".warc"))
            || name == DATAPACKAGE
            || name == DATAPACKAGE_DIGEST
            || (name.starts_with("indexes/") && name.len() > "indexes/".len())
            || (name.starts_with("pages/") && name.ends_with(".jsonl"));
        if wacz {
            return true;
        }
        // Sizes kept in a data descriptor or a zip64 field: the next
        // header cannot be found from here.
        if flags & 0x08 != 0 || compressed == 0xFFFF_FFFF {
            return false;
        }
        at += 30 + name_len + extra_len + compressed;
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wacz_is_told_by_its_first_entry_names() {
        let entry = |name: &str, data: &[u8]| {
            let mut h = b"PK\x03\x04".to_vec();
            h.extend_from_slice(&[20, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
            h.extend_from_slice(&(data.len() as u32).to_le_bytes());
            h.extend_from_slice(&(data.len() as u32).to_le_bytes());
            h.extend_from_slice(&(name.len() as u16).to_le_bytes());
            h.extend_from_slice(&0u16.to_le_bytes());
            h.extend_from_slice(name.as_bytes());
            h.extend_from_slice(data);
            h
        };
        assert!(looks_like_wacz(&entry("archive/data.warc.gz", b"x")));
        assert!(looks_like_wacz(&entry("indexes/index.cdx.gz", b"x")));
        assert!(looks_like_wacz(&entry("datapackage.json", b"{}")));
        let two = [
            entry("mimetype", b"application/epub+zip"),
            entry("pages/pages.jsonl", b""),
        ]
        .concat();
        assert!(looks_like_wacz(&two));
        assert!(!looks_like_wacz(&entry("word/document.xml", b"<w/>")));
        assert!(!looks_like_wacz(&entry("archive/readme.txt", b"")));
        assert!(!looks_like_wacz(b"PK\x03\x04"));
        assert!(!looks_like_wacz(b"WARC/1.1\r\n"));
        let cut = entry("archive/data.warc.gz", b"x");
        assert!(!looks_like_wacz(&cut[..35]));
    }

    #[test]
    fn archive_entries_are_warcs_under_archive() {
        assert!(is_archive_entry("archive/data.warc.gz"));
        assert!(is_archive_entry("archive/rec-1.WARC"));
        assert!(!is_archive_entry("archive/data.arc.gz"));
        assert!(!is_archive_entry("data.warc.gz"));
    }
}
