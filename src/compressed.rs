//! Compressed single documents (`page.html.gz`, `style.css.gz`,
//! `message.eml.gz`, `archive.mbox.gz`): gzip is undone, the document
//! rewritten, and gzip done again with the header the file had (its name,
//! time, comment and system), so the file comes back in its compression.
//! Other compressions (zstd, xz, bzip2) are told by their magic numbers so
//! that they are reported, never read as a document.

use std::io::{self, Read, Write};

use flate2::GzBuilder;
use flate2::read::MultiGzDecoder;

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

/// The compression a file's first bytes show, if any.
pub fn compression_of(head: &[u8]) -> Option<Compression> {
    if head.starts_with(&[0x1f, 0x8b]) {
        Some(Compression::Gzip)
    } else if head.starts_with(&[0x28, 0xb5, 0x2f, 0xfd]) {
        Some(Compression::Zstd)
    } else if head.starts_with(&[0xfd, b'7', b'z', b'X', b'Z', 0]) {
        Some(Compression::Xz)
    } else if head.starts_with(b"BZh") && head.get(3).is_some_and(|b| (b'1'..=b'9').contains(b)) {
        Some(Compression::Bzip2)
    } else {
        None
    }
}

/// What a gzip header said: written again over a new document.
#[derive(Debug, Clone, Default)]
pub struct Header {
    filename: Option<Vec<u8>>,
    comment: Option<Vec<u8>>,
    mtime: u32,
    os: u8,
}

impl Header {
    fn of(header: Option<&flate2::GzHeader>) -> Self {
        Header {
            filename: header.and_then(|h| h.filename()).map(<[u8]>::to_vec),
            comment: header.and_then(|h| h.comment()).map(<[u8]>::to_vec),
            mtime: header.map_or(0, |h| h.mtime()),
            os: header.map_or(255, |h| h.operating_system()),
        }
    }

    /// The header at the start of gzip data (its first bytes suffice).
    pub fn read(head: &[u8]) -> Self {
        let mut decoder = flate2::read::GzDecoder::new(head);
        let _ = decoder.read(&mut [0u8; 1]);
        Header::of(decoder.header())
    }

    /// An encoder that writes gzip with this header into `output`.
    pub fn encoder<W: Write>(&self, output: W) -> flate2::write::GzEncoder<W> {
        let mut builder = GzBuilder::new().mtime(self.mtime).operating_system(self.os);
        if let Some(name) = &self.filename {
            builder = builder.filename(name.as_slice());
        }
        if let Some(comment) = &self.comment {
            builder = builder.comment(comment.as_slice());
        }
        builder.write(output, flate2::Compression::default())
    }
}

/// A gzip file undone: the document, and what its header said.
#[derive(Debug)]
pub struct Gunzipped {
    /// The document's bytes.
    pub bytes: Vec<u8>,
    /// The header of its first member.
    pub header: Header,
}

/// Undoes gzip (every member, as `gunzip` does), refusing past `limit`
/// bytes.
pub fn gunzip(input: &[u8], limit: usize) -> io::Result<Gunzipped> {
    let mut decoder = MultiGzDecoder::new(input);
    let mut bytes = Vec::new();
    let cap = u64::try_from(limit).unwrap_or(u64::MAX).saturating_add(1);
    (&mut decoder).take(cap).read_to_end(&mut bytes)?;
    if bytes.len() > limit {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!("decompresses past the limit of {limit} bytes"),
        ));
    }
    let header = Header::of(decoder.header());
    Ok(Gunzipped { bytes, header })
}

impl Gunzipped {
    /// `document` in gzip, with the header this file had.
    pub fn gzip_again(&self, document: &[u8]) -> io::Result<Vec<u8>> {
        let out = Vec::with_capacity(document.len() / 3 + 64);
        let mut encoder = self.header.encoder(out);
        encoder.write_all(document)?;
        encoder.finish()
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

    #[test]
    fn gzip_comes_back_with_its_header() {
        let mut encoder = GzBuilder::new()
            .filename("page.html")
            .comment("saved")
            .mtime(1_700_000_000)
            .operating_system(3)
            .write(Vec::new(), flate2::Compression::best());
        encoder.write_all(b"<a href=x>x</a>").unwrap();
        let file = encoder.finish().unwrap();
        let gunzipped = gunzip(&file, 1 << 20).unwrap();
        assert_eq!(gunzipped.bytes, b"<a href=x>x</a>");
        let again = gunzipped.gzip_again(b"<a href=http://a/x>x</a>").unwrap();
        let back = gunzip(&again, 1 << 20).unwrap();
        assert_eq!(back.bytes, b"<a href=http://a/x>x</a>");
        let header = &back.header;
        assert_eq!(header.filename.as_deref(), Some(&b"page.html"[..]));
        assert_eq!(header.comment.as_deref(), Some(&b"saved"[..]));
        assert_eq!((header.mtime, header.os), (1_700_000_000, 3));
        let read = Header::read(&file[..30]);
        assert_eq!(read.filename.as_deref(), Some(&b"page.html"[..]));
        assert!(gunzip(&file, 4).is_err());
    }

    #[test]
    fn the_inner_name_drops_the_suffix() {
        assert_eq!(inner_name("page.html.gz"), Some("page.html"));
        assert_eq!(inner_name("A.CSS.GZ"), Some("A.CSS"));
        assert_eq!(inner_name("page.html"), None);
    }
}
