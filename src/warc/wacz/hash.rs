//! The hashes a package records (`label:hex`, in the algorithm the old
//! value named): of a whole entry, and of a record or block in one.

use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom};

use crate::warc::digest::Algorithm;

/// The hash of what `reader` gives, as `label:hex`, and its length.
pub(super) fn hash_reader(old: &str, mut reader: impl Read) -> io::Result<Option<(String, u64)>> {
    let Some((label, _)) = old.split_once(':') else {
        return Ok(None);
    };
    let Some(algorithm) = Algorithm::named(label) else {
        return Ok(None);
    };
    let mut hasher = algorithm.hasher();
    let mut buf = vec![0u8; 64 << 10];
    let mut total = 0u64;
    loop {
        let n = reader.read(&mut buf)?;
        if n == 0 {
            break;
        }
        hasher.update(&buf[..n]);
        total += n as u64;
    }
    let hex: String = hasher.finish().iter().map(|b| format!("{b:02x}")).collect();
    Ok(Some((format!("{label}:{hex}"), total)))
}

/// The hash of `len` bytes of `file` from `offset`, as `label:hex`.
pub(super) fn hash_range(
    old: &str,
    file: &mut File,
    offset: u64,
    len: u64,
) -> io::Result<Option<String>> {
    file.seek(SeekFrom::Start(offset))?;
    Ok(hash_reader(old, (&mut *file).take(len))?.map(|(hash, _)| hash))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hashes_keep_their_algorithm_and_label() {
        let hash = |old: &str| hash_reader(old, &b"abc"[..]).unwrap().map(|(h, _)| h);
        assert_eq!(
            hash("sha256:00").unwrap(),
            "sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
        assert_eq!(
            hash("md5:").unwrap(),
            "md5:900150983cd24fb0d6963f7d28e17f72"
        );
        assert_eq!(
            hash("SHA-1:x").unwrap(),
            "SHA-1:a9993e364706816aba3e25717850c26c9cd0d89d"
        );
        assert_eq!(hash("crc32:0"), None);
    }
}
