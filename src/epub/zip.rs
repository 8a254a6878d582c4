//! A book's zip written again by splicing: every entry that did not change
//! is copied byte for byte (its local header with its extra fields, its
//! data, its data descriptor, its central record), in the order it had;
//! a changed entry gets its new data, compressed by the method it had,
//! under its own header with the new CRC and sizes. Only offsets move.
//! (The zip crate's writer makes headers anew, so it would not keep every
//! extra field as it was.)

use std::io::Write;

use flate2::write::DeflateEncoder;

/// Where one entry lies in the zip, as its central directory says.
#[derive(Debug, Clone)]
pub(super) struct Placing {
    /// Its local header.
    pub(super) local: usize,
    /// Its central directory record.
    pub(super) central: usize,
    /// How its data is compressed (0 stored, 8 deflated).
    pub(super) method: u16,
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
            let method = u16_at(zip, at + 10).ok_or("record cut short")?;
            let local = u32_at(zip, at + 42).ok_or("record cut short")? as usize;
            if local >= central || zip.get(local..local + 4) != Some(b"PK\x03\x04") {
                return Err(format!("no local header at byte {local}"));
            }
            entries.push(Placing {
                local,
                central: at,
                method,
            });
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

    /// The zip again, entry `i` given new data where `new(i)` has some.
    pub(super) fn splice(
        &self,
        zip: &[u8],
        new: &dyn Fn(usize) -> Option<Vec<u8>>,
    ) -> Result<Vec<u8>, String> {
        let mut order: Vec<usize> = (0..self.entries.len()).collect();
        order.sort_by_key(|&i| self.entries[i].local);
        let mut out = Vec::with_capacity(zip.len());
        let first = order
            .first()
            .map_or(self.central, |&i| self.entries[i].local);
        out.extend_from_slice(&zip[..first]);
        let mut offsets = vec![0usize; self.entries.len()];
        let mut changed: Vec<Option<(u32, u32, u32)>> = vec![None; self.entries.len()];
        for (n, &i) in order.iter().enumerate() {
            let entry = &self.entries[i];
            let next = order
                .get(n + 1)
                .map_or(self.central, |&j| self.entries[j].local);
            offsets[i] = out.len();
            match new(i) {
                None => out.extend_from_slice(&zip[entry.local..next.max(entry.local)]),
                Some(data) => changed[i] = Some(write_entry(&mut out, zip, entry, &data)?),
            }
        }
        let central = out.len();
        for (i, entry) in self.entries.iter().enumerate() {
            let len = record_len(zip, entry.central, 46, 28).ok_or("record cut short")?;
            let mut record = zip
                .get(entry.central..entry.central + len)
                .ok_or("record cut short")?
                .to_vec();
            put_u32(&mut record, 42, offset(offsets[i])?);
            if let Some((crc, compressed, size)) = changed[i] {
                let flags = u16_at(&record, 8).unwrap_or(0) & !0x08;
                record[8..10].copy_from_slice(&flags.to_le_bytes());
                put_u32(&mut record, 16, crc);
                put_u32(&mut record, 20, compressed);
                put_u32(&mut record, 24, size);
            }
            out.extend_from_slice(&record);
        }
        let records_end = self
            .entries
            .last()
            .and_then(|e| Some(e.central + record_len(zip, e.central, 46, 28)?))
            .unwrap_or(self.central);
        // Whatever lies between the records and the end record stays.
        out.extend_from_slice(&zip[records_end.min(self.end)..self.end]);
        let size = out.len() - central;
        let mut end = zip[self.end..].to_vec();
        put_u32(&mut end, 12, offset(size)?);
        put_u32(&mut end, 16, offset(central)?);
        out.extend_from_slice(&end);
        Ok(out)
    }
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
/// data descriptor flag, and `data` compressed by its method; returns its
/// CRC, compressed size and size.
fn write_entry(
    out: &mut Vec<u8>,
    zip: &[u8],
    entry: &Placing,
    data: &[u8],
) -> Result<(u32, u32, u32), String> {
    let len = record_len(zip, entry.local, 30, 26).ok_or("local header cut short")?;
    let mut header = zip
        .get(entry.local..entry.local + len)
        .ok_or("local header cut short")?
        .to_vec();
    let compressed = match entry.method {
        0 => data.to_vec(),
        8 => {
            let mut encoder = DeflateEncoder::new(Vec::new(), flate2::Compression::default());
            encoder.write_all(data).map_err(|e| e.to_string())?;
            encoder.finish().map_err(|e| e.to_string())?
        }
        other => return Err(format!("compression method {other} is not written")),
    };
    let mut crc = flate2::Crc::new();
    crc.update(data);
    let sizes = (crc.sum(), offset(compressed.len())?, offset(data.len())?);
    let flags = u16_at(&header, 6).unwrap_or(0) & !0x08;
    header[6..8].copy_from_slice(&flags.to_le_bytes());
    put_u32(&mut header, 14, sizes.0);
    put_u32(&mut header, 18, sizes.1);
    put_u32(&mut header, 22, sizes.2);
    out.extend_from_slice(&header);
    out.extend_from_slice(&compressed);
    Ok(sizes)
}
