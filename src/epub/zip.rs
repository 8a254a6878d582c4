//! A book's zip written again by splicing: every entry that did not change
//! is copied byte for byte (its local header with its extra fields, its
//! data, its data descriptor, its central record), in the order it had;
//! a changed entry gets its new data, compressed by the method it had,
//! under its own header with the new CRC and sizes. Only offsets move.
//! (The zip crate's writer makes headers anew, so it would not keep every
//! extra field as it was.)

use std::io::Write;

use crate::error::Error;

use flate2::{Compress, FlushCompress, Status};

/// Where one entry lies in the zip, as its central directory says.
#[derive(Debug, Clone)]
pub(super) struct Placing {
    /// Its local header.
    pub(super) local: usize,
    /// Its central directory record.
    pub(super) central: usize,
}

/// The zip's central directory and its end record.
#[derive(Debug, Clone)]
pub(super) struct Layout {
    /// Each entry, in central directory order.
    pub(super) entries: Vec<Placing>,
    /// Where the central directory starts and the end record starts.
    central: usize,
    end: usize,
}

fn u16_at(bytes: &[u8], at: usize) -> Option<u16> {
    Some(u16::from_le_bytes(bytes.get(at..at + 2)?.try_into().ok()?))
}

fn u32_at(bytes: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_le_bytes(bytes.get(at..at + 4)?.try_into().ok()?))
}

impl Layout {
    /// The layout of `zip`, read from its end record, when the splice can
    /// rewrite it: one disk, no zip64, every record where it says.
    pub(super) fn read(zip: &[u8]) -> Result<Layout, String> {
        let from = zip.len().saturating_sub(22 + usize::from(u16::MAX));
        let end = memchr::memmem::rfind(&zip[from..], b"PK\x05\x06")
            .map(|at| from + at)
            .ok_or("no end of central directory")?;
        let count = u16_at(zip, end + 10).ok_or("end record cut short")?;
        let central = u32_at(zip, end + 16).ok_or("end record cut short")?;
        if count == u16::MAX
            || central == u32::MAX
            || zip
                .get(end.saturating_sub(20)..end)
                .is_some_and(|l| l.starts_with(b"PK\x06\x07"))
        {
            return Err("a zip64 archive is not written again".into());
        }
        let central = central as usize;
        if central > end {
            return Err("the central directory is past its end record".into());
        }
        let mut entries = Vec::with_capacity(usize::from(count));
        let mut at = central;
        for _ in 0..count {
            if zip.get(at..at + 4) != Some(b"PK\x01\x02") {
                return Err(format!("no central directory record at byte {at}"));
            }
            let local = u32_at(zip, at + 42).ok_or("record cut short")? as usize;
            if local >= central || zip.get(local..local + 4) != Some(b"PK\x03\x04") {
                return Err(format!("no local header at byte {local}"));
            }
            entries.push(Placing { local, central: at });
            at += record_len(zip, at, 46, 28).ok_or("record cut short")?;
            if at > end {
                return Err("the central directory runs into its end record".into());
            }
        }
        Ok(Layout {
            entries,
            central,
            end,
        })
    }

    /// Writes the zip again to `out`, entry `i` given the new data
    /// `new(i)` holds, if any. Every offset is reckoned first, so a book
    /// that would need zip64 is refused before a byte is written.
    pub(super) fn splice<'p>(
        &self,
        zip: &[u8],
        new: &dyn Fn(usize) -> Option<&'p Packed>,
        out: &mut dyn Write,
    ) -> Result<(), Error> {
        let zipped = |e: String| super::failed("zip archive", e);
        let mut order: Vec<usize> = (0..self.entries.len()).collect();
        order.sort_by_key(|&i| self.entries[i].local);
        let first = order
            .first()
            .map_or(self.central, |&i| self.entries[i].local);
        // Where each entry's stretch ends in the input, and where it starts
        // in the output.
        let next = |n: usize| {
            order
                .get(n + 1)
                .map_or(self.central, |&j| self.entries[j].local)
        };
        let mut offsets = vec![0usize; self.entries.len()];
        let mut at = first;
        for (n, &i) in order.iter().enumerate() {
            let entry = &self.entries[i];
            offsets[i] = at;
            at += match new(i) {
                None => next(n).max(entry.local) - entry.local,
                Some(packed) => local_len(zip, entry).map_err(zipped)? + packed.data.len(),
            };
        }
        let records_end = self
            .entries
            .last()
            .and_then(|e| Some(e.central + record_len(zip, e.central, 46, 28)?))
            .unwrap_or(self.central);
        // The records and what follows them, as long as they were.
        let (central, size) = (at, self.end - self.central);
        offset(central + size).map_err(zipped)?;
        out.write_all(&zip[..first])?;
        for (n, &i) in order.iter().enumerate() {
            let entry = &self.entries[i];
            match new(i) {
                None => out.write_all(&zip[entry.local..next(n).max(entry.local)])?,
                Some(packed) => write_entry(out, zip, entry, packed)?,
            }
        }
        for (i, entry) in self.entries.iter().enumerate() {
            // Its length was read with the layout; the offsets fit (above).
            let len = record_len(zip, entry.central, 46, 28).unwrap_or(46);
            let mut record = zip[entry.central..entry.central + len].to_vec();
            put_u32(&mut record, 42, offsets[i] as u32);
            if let Some(packed) = new(i) {
                let flags = u16_at(&record, 8).unwrap_or(0) & !0x08;
                record[8..10].copy_from_slice(&flags.to_le_bytes());
                put_u32(&mut record, 16, packed.crc);
                put_u32(&mut record, 20, packed.data.len() as u32);
                put_u32(&mut record, 24, packed.size);
            }
            out.write_all(&record)?;
        }
        // Whatever lies between the records and the end record stays.
        out.write_all(&zip[records_end.min(self.end)..self.end])?;
        let mut end = zip[self.end..].to_vec();
        put_u32(&mut end, 12, size as u32);
        put_u32(&mut end, 16, central as u32);
        Ok(out.write_all(&end)?)
    }
}

/// An entry's new data as it goes into the zip: compressed by the
/// entry's method, with the CRC and size of the data before.
#[derive(Debug)]
pub(super) struct Packed {
    pub(super) crc: u32,
    pub(super) size: u32,
    pub(super) data: Vec<u8>,
}

/// Compresses the new data of entries, at once, so that only the
/// compressed bytes are kept until the book is written; one deflater for
/// the book (one for each entry, some 300 KB each, scattered the heap as
/// the zip crate's inflaters did).
pub(super) struct Packer {
    deflater: Compress,
}

impl Packer {
    pub(super) fn new() -> Self {
        Packer {
            deflater: Compress::new(flate2::Compression::default(), false),
        }
    }

    /// `data` compressed by the method `method` of the entry it replaces
    /// (0 stored, 8 deflated).
    pub(super) fn pack(&mut self, method: u16, data: &[u8]) -> Result<Packed, String> {
        let compressed = match method {
            0 => data.to_vec(),
            8 => self.deflate(data)?,
            other => return Err(format!("compression method {other} is not written")),
        };
        let mut crc = flate2::Crc::new();
        crc.update(data);
        Ok(Packed {
            crc: crc.sum(),
            size: offset(data.len())?,
            data: compressed,
        })
    }

    fn deflate(&mut self, data: &[u8]) -> Result<Vec<u8>, String> {
        self.deflater.reset();
        let mut out = Vec::with_capacity(data.len() / 2 + 64);
        loop {
            if out.len() == out.capacity() {
                out.reserve(out.capacity());
            }
            let rest = data
                .get(self.deflater.total_in() as usize..)
                .unwrap_or_default();
            let status = self
                .deflater
                .compress_vec(rest, &mut out, FlushCompress::Finish)
                .map_err(|e| e.to_string())?;
            if status == Status::StreamEnd {
                out.shrink_to_fit();
                return Ok(out);
            }
        }
    }
}

/// The length of an entry's local header, with its name and extra field.
fn local_len(zip: &[u8], entry: &Placing) -> Result<usize, String> {
    record_len(zip, entry.local, 30, 26)
        .filter(|len| entry.local + len <= zip.len())
        .ok_or_else(|| "local header cut short".to_owned())
}

/// The length of a record at `at` whose fixed part is `fixed` bytes, with
/// the lengths of its name, extra field and (central records) comment at
/// `lengths`.
fn record_len(zip: &[u8], at: usize, fixed: usize, lengths: usize) -> Option<usize> {
    let name = usize::from(u16_at(zip, at + lengths)?);
    let extra = usize::from(u16_at(zip, at + lengths + 2)?);
    let comment = if fixed == 46 {
        usize::from(u16_at(zip, at + 32)?)
    } else {
        0
    };
    Some(fixed + name + extra + comment)
}

fn put_u32(bytes: &mut [u8], at: usize, value: u32) {
    bytes[at..at + 4].copy_from_slice(&value.to_le_bytes());
}

fn offset(n: usize) -> Result<u32, String> {
    u32::try_from(n).map_err(|_| "the book would need zip64".to_owned())
}

/// Writes an entry's local header, as it was but for its CRC, sizes and
/// data descriptor flag, and its new data.
fn write_entry(
    out: &mut dyn Write,
    zip: &[u8],
    entry: &Placing,
    packed: &Packed,
) -> std::io::Result<()> {
    // Its length was reckoned before a byte was written.
    let len = local_len(zip, entry).unwrap_or(30);
    let mut header = zip[entry.local..(entry.local + len).min(zip.len())].to_vec();
    let flags = u16_at(&header, 6).unwrap_or(0) & !0x08;
    header[6..8].copy_from_slice(&flags.to_le_bytes());
    put_u32(&mut header, 14, packed.crc);
    put_u32(&mut header, 18, packed.data.len() as u32);
    put_u32(&mut header, 22, packed.size);
    out.write_all(&header)?;
    out.write_all(&packed.data)
}
