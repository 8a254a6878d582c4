//! Compressed single documents (`page.html.gz`, `style.css.gz`,
//! `message.eml.gz`, `archive.mbox.gz`): gzip is undone, the document
//! rewritten, and gzip done again with the header the file had (its name,
//! time, comment and system), so the file comes back in its compression.
//! Other compressions (zstd, xz, bzip2) are told by their magic numbers so
//! that they are reported, never read as a document.

use std::io::{self, Read, Write};

use std::ops::Range;

use flate2::Crc;
use flate2::write::DeflateEncoder;

use crate::splice::Edit;

/// The most bytes a compressed document is undone to.
pub const MAX_DECOMPRESSED_BYTES: usize = 1 << 30;

/// A compression told by a file's first bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Compression {
    /// gzip (RFC 1952).
    Gzip,
    /// Zstandard (RFC 8878).
    Zstd,
    /// xz.
    Xz,
    /// bzip2.
    Bzip2,
}

impl Compression {
    /// Its usual name.
    pub fn name(self) -> &'static str {
        match self {
            Compression::Gzip => "gzip",
            Compression::Zstd => "zstd",
            Compression::Xz => "xz",
            Compression::Bzip2 => "bzip2",
        }
    }
}

/// The magic number of a gzip member (RFC 1952 section 2.3.1).
pub const GZIP_MAGIC: [u8; 2] = [0x1f, 0x8b];

/// The magic number of a Zstandard frame (RFC 8878 section 3.1.1).
pub const ZSTD_MAGIC: [u8; 4] = [0x28, 0xb5, 0x2f, 0xfd];

/// What every message calls an input in a compression relink does not
/// undo, by the compression's name: `compressed with zstd, which relink
/// does not read`.
pub fn unread(name: &str) -> String {
    format!("compressed with {name}, which relink does not read")
}

/// The compression a file's first bytes show, if any.
pub fn compression_of(head: &[u8]) -> Option<Compression> {
    if head.starts_with(&GZIP_MAGIC) {
        Some(Compression::Gzip)
    } else if head.starts_with(&ZSTD_MAGIC) {
        Some(Compression::Zstd)
    } else if head.starts_with(&[0xfd, b'7', b'z', b'X', b'Z', 0]) {
        Some(Compression::Xz)
    } else if head.starts_with(b"BZh") && head.get(3).is_some_and(|b| (b'1'..=b'9').contains(b)) {
        Some(Compression::Bzip2)
    } else {
        None
    }
}

/// A gzip member's header (RFC 1952 section 2.3) as the file wrote it:
/// written again, byte for byte, over a new document (its flags, time,
/// extra flags, system, extra field, name, comment and header CRC).
#[derive(Debug, Clone)]
pub struct Header {
    raw: Vec<u8>,
}

/// The header of gzip data with no name, time or system known (255,
/// "unknown"), for data whose header cannot be read.
const PLAIN_HEADER: [u8; 10] = [0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 255];

impl Default for Header {
    fn default() -> Self {
        Header {
            raw: PLAIN_HEADER.to_vec(),
        }
    }
}

/// The length of the gzip header at the start of `bytes` (RFC 1952
/// section 2.3.1: ten bytes, then the optional extra field, name, comment
/// and header CRC its flags announce), if it is all there.
fn header_len(bytes: &[u8]) -> Option<usize> {
    const FHCRC: u8 = 2;
    const FEXTRA: u8 = 4;
    const FNAME: u8 = 8;
    const FCOMMENT: u8 = 16;
    if bytes.len() < 10 || bytes[..3] != [0x1f, 0x8b, 8] {
        return None;
    }
    let flags = bytes[3];
    let mut at = 10;
    if flags & FEXTRA != 0 {
        let len = u16::from_le_bytes([*bytes.get(at)?, *bytes.get(at + 1)?]);
        at += 2 + usize::from(len);
    }
    for flag in [FNAME, FCOMMENT] {
        if flags & flag != 0 {
            at += memchr::memchr(0, bytes.get(at..)?)? + 1;
        }
    }
    if flags & FHCRC != 0 {
        at += 2;
    }
    (at <= bytes.len()).then_some(at)
}

impl Header {
    /// The header at the start of gzip data (its first bytes suffice); a
    /// plain one when it is cut short or is no gzip header.
    pub fn read(head: &[u8]) -> Self {
        match header_len(head) {
            Some(len) => Header {
                raw: head[..len].to_vec(),
            },
            None => Header::default(),
        }
    }

    /// The compression its extra flags announce (RFC 1952: 2 for the
    /// slowest, best compression, 4 for the fastest), so that they stay
    /// true of the data written after them.
    pub(crate) fn level(&self) -> flate2::Compression {
        match self.raw.get(8) {
            Some(2) => flate2::Compression::best(),
            Some(4) => flate2::Compression::fast(),
            _ => flate2::Compression::default(),
        }
    }

    /// A writer of one gzip member with this header into `output` (the
    /// header is written now; [`GzWriter::finish`] writes the trailer).
    pub fn encoder<W: Write>(&self, mut output: W) -> io::Result<GzWriter<W>> {
        output.write_all(&self.raw)?;
        Ok(GzWriter {
            deflate: DeflateEncoder::new(output, self.level()),
            crc: Crc::new(),
        })
    }
}

/// One gzip member being written: the deflated data and, at the end, its
/// CRC-32 and length (RFC 1952 section 2.3.1).
#[derive(Debug)]
pub struct GzWriter<W: Write> {
    deflate: DeflateEncoder<W>,
    crc: Crc,
}

impl<W: Write> Write for GzWriter<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = self.deflate.write(buf)?;
        self.crc.update(&buf[..n]);
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.deflate.flush()
    }
}

impl<W: Write> GzWriter<W> {
    /// Ends the member: the rest of the data, the trailer; gives back the
    /// writer.
    pub fn finish(self) -> io::Result<W> {
        let mut output = self.deflate.finish()?;
        output.write_all(&self.crc.sum().to_le_bytes())?;
        output.write_all(&self.crc.amount().to_le_bytes())?;
        Ok(output)
    }
}

/// Gzip members written one after another by one compressor, reset
/// between them: a member is not worth a compressor made and its tables
/// cleared again. Whole members have their own, kept as well.
#[derive(Default)]
pub struct Deflater {
    encoder: Option<(flate2::Compression, DeflateEncoder<Vec<u8>>)>,
    /// What was written since the CRC was last brought up to date.
    unsummed: Vec<u8>,
    /// A whole member's input, and its deflated bytes.
    whole: (Vec<u8>, Vec<u8>),
    /// The compressor of whole members, and its level.
    compressor: Option<(i32, libdeflater::Compressor)>,
}

/// The most bytes written before the CRC is brought up to date.
const CRC_BYTES: usize = 1 << 16;
/// A piece this large is summed as it comes.
const CRC_PIECE_BYTES: usize = 1 << 12;

/// A writer into a compressor that keeps the CRC-32 of what it passes
/// on. The CRC goes over large pieces: a record is written as many small
/// ones (the bytes between its edits), and a CRC over a small piece costs
/// several times as much a byte. The compressor is given each piece as it
/// comes (what deflate makes depends on how its input is cut).
struct Summed<'a, W: Write> {
    inner: W,
    crc: Crc,
    unsummed: &'a mut Vec<u8>,
}

impl<W: Write> Summed<'_, W> {
    /// The CRC and the amount of all that was passed on.
    fn sum(&mut self) -> (u32, u32) {
        self.crc.update(self.unsummed);
        self.unsummed.clear();
        (self.crc.sum(), self.crc.amount())
    }
}

impl<W: Write> Write for Summed<'_, W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = self.inner.write(buf)?;
        let passed = &buf[..n];
        // A large piece is summed as it is, after what came before it.
        let large = passed.len() >= CRC_PIECE_BYTES;
        if large || self.unsummed.len() + passed.len() > CRC_BYTES {
            self.crc.update(self.unsummed);
            self.unsummed.clear();
        }
        match large {
            true => self.crc.update(passed),
            false => self.unsummed.extend_from_slice(passed),
        }
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

impl std::fmt::Debug for Deflater {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Deflater")
    }
}

impl Deflater {
    /// Writes into `out` one gzip member of what `data` writes, at
    /// `level`, with the header flate2's `GzEncoder` writes (no name, no
    /// time, the extra flags of the level, an unknown system).
    pub fn member(
        &mut self,
        out: &mut dyn Write,
        level: flate2::Compression,
        data: impl FnOnce(&mut dyn Write) -> io::Result<()>,
    ) -> io::Result<()> {
        let Deflater {
            encoder, unsummed, ..
        } = self;
        let encoder = match encoder {
            Some((made, encoder)) if *made == level => encoder,
            slot => {
                &mut slot
                    .insert((level, DeflateEncoder::new(Vec::new(), level)))
                    .1
            }
        };
        out.write_all(&[0x1f, 0x8b, 8, 0, 0, 0, 0, 0, xfl(level), 255])?;
        let mut summed = Summed {
            inner: &mut *encoder,
            crc: Crc::new(),
            unsummed,
        };
        let written = data(&mut summed);
        let (sum, amount) = summed.sum();
        // The compressor is reset whatever happened, for the next member.
        let mut deflated = encoder.reset(Vec::new())?;
        written?;
        out.write_all(&deflated)?;
        out.write_all(&sum.to_le_bytes())?;
        out.write_all(&amount.to_le_bytes())?;
        deflated.clear();
        *encoder.get_mut() = deflated;
        Ok(())
    }
}

impl Deflater {
    /// Writes into `out` one gzip member of what `data` writes, with the
    /// header [`Deflater::member`] writes, its input gathered whole and
    /// deflated in one call by libdeflate at `level` (9 the best, 1 the
    /// fastest, 6 the default): less CPU than zlib-rs fed piece by piece,
    /// and a member a little smaller. libdeflate's output
    /// depends on its input and level alone (its compressor has no code
    /// chosen by the processor's features), so the bytes are the same on
    /// every run and machine.
    pub fn whole_member(
        &mut self,
        out: &mut dyn Write,
        level: flate2::Compression,
        data: impl FnOnce(&mut dyn Write) -> io::Result<()>,
    ) -> io::Result<()> {
        let (input, output) = &mut self.whole;
        input.clear();
        data(input)?;
        let wanted = level.level().clamp(1, 9) as i32;
        let compressor = match &mut self.compressor {
            Some((made, compressor)) if *made == wanted => compressor,
            slot => {
                let level = libdeflater::CompressionLvl::new(wanted)
                    .map_err(|_| io::Error::other("no such deflate level"))?;
                &mut slot.insert((wanted, libdeflater::Compressor::new(level))).1
            }
        };
        output.resize(compressor.deflate_compress_bound(input.len()), 0);
        let deflated = compressor
            .deflate_compress(input, output)
            .map_err(io::Error::other)?;
        let amount = input.len() as u32;
        out.write_all(&[0x1f, 0x8b, 8, 0, 0, 0, 0, 0, xfl(level), 255])?;
        out.write_all(&output[..deflated])?;
        out.write_all(&libdeflater::crc32(input).to_le_bytes())?;
        out.write_all(&amount.to_le_bytes())
    }
}

/// The extra flags of a gzip header for a level: 2 the slowest, 4 the
/// fastest.
fn xfl(level: flate2::Compression) -> u8 {
    match level.level() {
        l if l >= flate2::Compression::best().level() => 2,
        l if l <= flate2::Compression::fast().level() => 4,
        _ => 0,
    }
}

/// One member of a gzip file.
#[derive(Debug)]
struct Member {
    /// Where it lies in the file.
    range: Range<usize>,
    /// Its header.
    header: Header,
    /// What it decompresses to: a range of [`Gunzipped::bytes`].
    data: Range<usize>,
}

/// A gzip file undone: the document, and its members.
#[derive(Debug)]
pub struct Gunzipped {
    /// The document's bytes: every member's, one after the other.
    pub bytes: Vec<u8>,
    members: Vec<Member>,
}

/// Undoes gzip (every member, as `gunzip` does), refusing past `limit`
/// bytes.
pub fn gunzip(input: &[u8], limit: usize) -> io::Result<Gunzipped> {
    let mut bytes = Vec::new();
    let mut members = Vec::new();
    let mut rest = input;
    loop {
        let start = input.len() - rest.len();
        let header = Header::read(rest);
        let mut decoder = flate2::bufread::GzDecoder::new(rest);
        let before = bytes.len();
        let cap = u64::try_from(limit - before)
            .unwrap_or(u64::MAX)
            .saturating_add(1);
        (&mut decoder).take(cap).read_to_end(&mut bytes)?;
        if bytes.len() > limit {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                format!("decompresses past the limit of {limit} bytes"),
            ));
        }
        rest = decoder.into_inner();
        members.push(Member {
            range: start..input.len() - rest.len(),
            header,
            data: before..bytes.len(),
        });
        if rest.is_empty() {
            break;
        }
    }
    Ok(Gunzipped { bytes, members })
}

impl Gunzipped {
    /// The document made new by `edits` (sorted byte edits of
    /// [`Gunzipped::bytes`], none overlapping), in gzip again, each member
    /// kept: a member whose bytes are unchanged is copied as it was,
    /// header and data; a changed one is compressed again under its own
    /// header. An edit goes to the member that holds its first byte (an
    /// insertion, to the one that holds the byte after it; at the end, to
    /// the last): a URL whose old text spans a member boundary is written
    /// whole where it starts, and the members after lose what they held of
    /// it (one that held nothing else is left empty, its header kept).
    pub fn gzip_edits<T: AsRef<[u8]>>(
        &self,
        input: &[u8],
        edits: impl IntoIterator<Item = Edit<T>>,
    ) -> io::Result<Vec<u8>> {
        let old = &self.bytes[..];
        let mut edits = edits.into_iter().peekable();
        let mut out = Vec::with_capacity(input.len() + 64);
        let (mut copied, mut written) = (0, 0);
        let last = self.members.len().saturating_sub(1);
        for (i, member) in self.members.iter().enumerate() {
            out.extend_from_slice(&input[written..member.range.start]);
            written = member.range.end;
            let mut touched = copied > member.data.start;
            copied = copied.max(member.data.start);
            let mut data = Vec::new();
            while let Some(edit) = edits.next_if(|e| e.range.start < member.data.end || i == last) {
                if edit.range.start < copied || edit.range.end < edit.range.start {
                    return Err(io::Error::new(
                        io::ErrorKind::InvalidInput,
                        "edits out of order",
                    ));
                }
                let Some(before) = old.get(copied..edit.range.start) else {
                    return Err(io::Error::new(
                        io::ErrorKind::InvalidInput,
                        "an edit past the end",
                    ));
                };
                data.extend_from_slice(before);
                data.extend_from_slice(edit.text.as_ref());
                copied = edit.range.end.min(old.len());
                touched = true;
            }
            if copied < member.data.end {
                data.extend_from_slice(&old[copied..member.data.end]);
                copied = member.data.end;
            }
            if !touched || data == old[member.data.clone()] {
                out.extend_from_slice(&input[member.range.clone()]);
                continue;
            }
            let mut encoder = member.header.encoder(out)?;
            encoder.write_all(&data)?;
            out = encoder.finish()?;
        }
        out.extend_from_slice(&input[written..]);
        Ok(out)
    }

    /// `document`, a rewrite of [`Gunzipped::bytes`] made whole (a
    /// message's), in gzip again: its one changed stretch (from the first
    /// byte that differs to the last) placed in the members as
    /// [`Gunzipped::gzip_edits`] places an edit.
    pub fn gzip_again(&self, input: &[u8], document: &[u8]) -> io::Result<Vec<u8>> {
        let (old, new) = (&self.bytes[..], document);
        let prefix = old.iter().zip(new).take_while(|(a, b)| a == b).count();
        let room = old.len().min(new.len()) - prefix;
        let suffix = old
            .iter()
            .rev()
            .zip(new.iter().rev())
            .take(room)
            .take_while(|(a, b)| a == b)
            .count();
        let edit = Edit::new(prefix..old.len() - suffix, &new[prefix..new.len() - suffix]);
        self.gzip_edits(input, [edit])
    }
}

/// A file name without its compression suffix (`page.html.gz` is
/// `page.html`), if it has one.
pub fn inner_name(name: &str) -> Option<&str> {
    let lower = name.to_ascii_lowercase();
    [".gz", ".gzip"]
        .iter()
        .find(|suffix| lower.ends_with(*suffix))
        .map(|suffix| &name[..name.len() - suffix.len()])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn magic_numbers_tell_the_compression() {
        assert_eq!(compression_of(&[0x1f, 0x8b, 8]), Some(Compression::Gzip));
        assert_eq!(
            compression_of(&[0x28, 0xb5, 0x2f, 0xfd]),
            Some(Compression::Zstd)
        );
        assert_eq!(compression_of(b"\xfd7zXZ\0"), Some(Compression::Xz));
        assert_eq!(compression_of(b"BZh91AY"), Some(Compression::Bzip2));
        assert_eq!(compression_of(b"BZhx"), None);
        assert_eq!(compression_of(b"<html>"), None);
    }

    /// A gzip member written by hand: `header`, then `data` deflated, then
    /// the trailer.
    fn member(header: &[u8], data: &[u8]) -> Vec<u8> {
        let mut encoder = Header {
            raw: header.to_vec(),
        }
        .encoder(Vec::new())
        .unwrap();
        encoder.write_all(data).unwrap();
        encoder.finish().unwrap()
    }

    /// A header with every optional field (FEXTRA, FNAME, FCOMMENT, FHCRC),
    /// a time, extra flags `xfl` and system `os`.
    fn full_header(xfl: u8, os: u8, name: &[u8]) -> Vec<u8> {
        let mut h = vec![0x1f, 0x8b, 8, 2 | 4 | 8 | 16];
        h.extend_from_slice(&1_700_000_000u32.to_le_bytes());
        h.extend_from_slice(&[xfl, os]);
        h.extend_from_slice(&[4, 0, b'A', b'p', 0, 0]);
        h.extend_from_slice(name);
        h.push(0);
        h.extend_from_slice(b"saved by hand\0");
        let mut crc = flate2::Crc::new();
        crc.update(&h);
        h.extend_from_slice(&(crc.sum() as u16).to_le_bytes());
        h
    }

    #[test]
    fn gzip_comes_back_with_its_header_byte_for_byte() {
        for (xfl, os) in [(2, 3), (4, 11), (0, 255)] {
            let header = full_header(xfl, os, b"page.html");
            let file = member(&header, b"<a href=x>x</a>");
            assert_eq!(header_len(&file), Some(header.len()));
            let gunzipped = gunzip(&file, 1 << 20).unwrap();
            assert_eq!(gunzipped.bytes, b"<a href=x>x</a>");
            let again = gunzipped
                .gzip_again(&file, b"<a href=http://a/x>x</a>")
                .unwrap();
            assert_eq!(&again[..header.len()], &header[..], "xfl {xfl}, os {os}");
            // What flate2 and gzip's own reader make of it.
            let back = gunzip(&again, 1 << 20).unwrap();
            assert_eq!(back.bytes, b"<a href=http://a/x>x</a>");
            let mut decoder = flate2::read::GzDecoder::new(&again[..]);
            let mut text = Vec::new();
            decoder.read_to_end(&mut text).unwrap();
            let read = decoder.header().unwrap();
            assert_eq!(read.filename(), Some(&b"page.html"[..]));
            assert_eq!(read.comment(), Some(&b"saved by hand"[..]));
            assert_eq!(read.extra(), Some(&b"Ap\0\0"[..]));
            assert_eq!((read.mtime(), read.operating_system()), (1_700_000_000, os));
        }
        let file = member(&full_header(2, 3, b"p"), b"<a href=x>x</a>");
        assert_eq!(Header::read(&file[..40]).raw, full_header(2, 3, b"p"));
        // Cut inside the name: a plain header.
        assert_eq!(Header::read(&file[..20]).raw, PLAIN_HEADER);
        assert!(gunzip(&file, 4).is_err());
    }

    #[test]
    fn a_multi_member_file_keeps_every_member_and_its_header() {
        let a = member(&full_header(2, 3, b"one"), b"<p>first member</p>\n");
        let b = member(&full_header(4, 11, b"two"), b"<a href=x>x</a>\n");
        let c = member(&PLAIN_HEADER, b"<p>last member</p>\n");
        let file = [a.clone(), b, c.clone()].concat();
        let gunzipped = gunzip(&file, 1 << 20).unwrap();
        assert_eq!(gunzipped.members.len(), 3);
        let new = b"<p>first member</p>\n<a href=http://h/x>x</a>\n<p>last member</p>\n";
        let again = gunzipped.gzip_again(&file, new).unwrap();
        // The first and last members as they were; the middle one with its
        // own header.
        assert!(again.starts_with(&a));
        assert!(again.ends_with(&c));
        let middle = &again[a.len()..again.len() - c.len()];
        assert!(middle.starts_with(&full_header(4, 11, b"two")));
        assert_eq!(gunzip(&again, 1 << 20).unwrap().bytes, new);
        // Changes in the first and last members: the middle one as it was.
        let b = &file[a.len()..file.len() - c.len()];
        let new = b"<p>first member</p>X\n<a href=x>x</a>\n<p>last member</p>Y\n";
        let again = gunzipped
            .gzip_edits(&file, [Edit::new(19..19, "X"), Edit::new(54..54, "Y")])
            .unwrap();
        let back = gunzip(&again, 1 << 20).unwrap();
        assert_eq!((back.bytes.as_slice(), back.members.len()), (&new[..], 3));
        assert_eq!(&again[back.members[1].range.clone()], b);
        // A change across a member boundary goes to the member where it
        // starts; the next one keeps its header and the rest of its bytes.
        let new = b"<p>first member</p>\n<a hrefXlast member</p>\n";
        let again = gunzipped
            .gzip_edits(&file, [Edit::new(27..39, "X")])
            .unwrap();
        let back = gunzip(&again, 1 << 20).unwrap();
        assert_eq!((back.bytes.as_slice(), back.members.len()), (&new[..], 3));
        assert_eq!(&back.bytes[back.members[1].data.clone()], b"<a hrefX");
        assert_eq!(
            &back.bytes[back.members[2].data.clone()],
            b"last member</p>\n"
        );
        assert!(again[back.members[2].range.clone()].starts_with(&PLAIN_HEADER));
        // One that swallows a whole member leaves it empty, its header kept.
        let again = gunzipped
            .gzip_edits(&file, [Edit::new(10..40, "")])
            .unwrap();
        let back = gunzip(&again, 1 << 20).unwrap();
        assert_eq!(back.members.len(), 3);
        assert!(back.members[1].data.is_empty());
        assert!(again[back.members[1].range.clone()].starts_with(&full_header(4, 11, b"two")));
        // Made whole, the one changed stretch is placed the same way.
        let new = b"<p>first member</p>\nX<a href=x>x</a>\n<p>last member</p>Y\n";
        let again = gunzipped.gzip_again(&file, new).unwrap();
        assert!(again.starts_with(&a));
        let back = gunzip(&again, 1 << 20).unwrap();
        assert_eq!((back.bytes.as_slice(), back.members.len()), (&new[..], 3));
        // Edits out of order or past the end: an error, never a panic.
        assert!(
            gunzipped
                .gzip_edits(&file, [Edit::new(9..9, ""), Edit::new(3..4, "")])
                .is_err()
        );
        assert!(
            gunzipped
                .gzip_edits(&file, [Edit::new(99..99, "")])
                .is_err()
        );
        // Bytes after the last member that are no gzip: an error, as gunzip's.
        assert!(gunzip(&[file.as_slice(), b"junk"].concat(), 1 << 20).is_err());
    }

    /// Wherever the members end and whatever the edits, the members come
    /// back as many, each header as it was, holding the edited document,
    /// and a member no edit reaches is copied byte for byte.
    #[test]
    fn members_cut_anywhere_hold_the_edited_document() {
        let text = b"<a href=../x>x</a><img src=y>";
        let edit_sets: [&[Edit<&str>]; 4] = [
            &[Edit::new(8..10, "http://h")],
            &[Edit::new(8..10, "http://h"), Edit::new(28..28, "http://h/")],
            &[Edit::new(0..29, "")],
            &[Edit::new(3..3, "X"), Edit::new(18..22, "")],
        ];
        let headers = [
            full_header(2, 3, b"one"),
            full_header(4, 11, b"two"),
            PLAIN_HEADER.to_vec(),
        ];
        for one in 0..=text.len() {
            for two in one..=text.len() {
                let parts = [&text[..one], &text[one..two], &text[two..]];
                let members: Vec<Vec<u8>> = headers
                    .iter()
                    .zip(parts)
                    .map(|(h, p)| member(h, p))
                    .collect();
                let file = members.concat();
                let gunzipped = gunzip(&file, 1 << 20).unwrap();
                for edits in edit_sets {
                    let again = gunzipped.gzip_edits(&file, edits.iter().cloned()).unwrap();
                    let back = gunzip(&again, 1 << 20).unwrap();
                    let case = format!("cut at {one} and {two}, edits {edits:?}");
                    assert_eq!(back.bytes, crate::splice::apply(text, edits), "{case}");
                    assert_eq!(back.members.len(), 3, "{case}");
                    for (i, (m, header)) in back.members.iter().zip(&headers).enumerate() {
                        let bytes = &again[m.range.clone()];
                        assert!(bytes.starts_with(header), "{case}: member {i}");
                        let old = &gunzipped.members[i].data;
                        let reached = edits.iter().any(|e| {
                            e.range.start < old.end && e.range.end > old.start
                                || (e.range.start..=e.range.end).contains(&old.start)
                        });
                        if !reached {
                            assert_eq!(bytes, &members[i][..], "{case}: member {i}");
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn one_deflater_writes_each_member_as_a_new_encoder_would() {
        let texts: [&[u8]; 3] = [b"<a href=x>x</a>", b"", &[b'a'; 70_000]];
        let levels = [
            flate2::Compression::best(),
            flate2::Compression::default(),
            flate2::Compression::fast(),
        ];
        let mut deflater = Deflater::default();
        for (i, text) in texts.iter().cycle().take(7).enumerate() {
            let level = levels[i % 3];
            let mut ours = Vec::new();
            deflater
                .member(&mut ours, level, |w| w.write_all(text))
                .unwrap();
            let mut theirs = flate2::write::GzEncoder::new(Vec::new(), level);
            theirs.write_all(text).unwrap();
            assert_eq!(ours, theirs.finish().unwrap(), "member {i}");
        }
    }

    /// Pieces of every size about the CRC's (small ones, one that fills
    /// it, larger ones): the trailer is the one gzip's encoder writes for
    /// the same pieces.
    #[test]
    fn a_member_written_in_pieces_has_the_crc_of_them_all() {
        let sizes = [
            1,
            63,
            CRC_PIECE_BYTES - 1,
            CRC_PIECE_BYTES,
            CRC_BYTES - 1,
            2,
            CRC_BYTES,
            5,
            CRC_BYTES + 7,
            300,
        ];
        let text: Vec<u8> = (0..sizes.iter().sum::<usize>())
            .map(|i| (i * 7 % 251) as u8)
            .collect();
        let pieces: Vec<&[u8]> = sizes
            .iter()
            .scan(0, |at, &n| {
                *at += n;
                Some(&text[*at - n..*at])
            })
            .collect();
        let mut deflater = Deflater::default();
        for _ in 0..2 {
            let mut ours = Vec::new();
            let level = flate2::Compression::default();
            deflater
                .member(&mut ours, level, |w| {
                    pieces.iter().try_for_each(|p| w.write_all(p))
                })
                .unwrap();
            let mut theirs = flate2::write::GzEncoder::new(Vec::new(), level);
            pieces.iter().for_each(|p| theirs.write_all(p).unwrap());
            assert_eq!(ours, theirs.finish().unwrap());
        }
    }

    #[test]
    fn the_inner_name_drops_the_suffix() {
        assert_eq!(inner_name("page.html.gz"), Some("page.html"));
        assert_eq!(inner_name("A.CSS.GZ"), Some("A.CSS"));
        assert_eq!(inner_name("page.html"), None);
    }
}
