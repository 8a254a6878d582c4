//! Digests: a WARC's `WARC-Block-Digest` and `WARC-Payload-Digest` (ISO
//! 28500 section 5.8 and 5.9: `algorithm:value`, the value in any
//! encoding of RFC 4648), and the `algorithm:hex` hashes of a WACZ.
//!
//! The algorithms are hashlib's names, as warcio verifies them: `md5`,
//! `sha1`, `sha224`, `sha256`, `sha384`, `sha512` (also spelt `sha-256`
//! and in upper case). A value is read in the encoding it was written in
//! (base32 as Heritrix and warcio write it, base16 as warcio.js,
//! ArchiveWeb.page and Browsertrix write it, or base64), and a new value
//! is written in the same encoding, case and padding, under the label as
//! written.
//!
//! Base32 is a few lines here: the one crate for it would be a dependency
//! for twenty bytes a record.

use base64::Engine;
use base64::engine::general_purpose::{STANDARD, STANDARD_NO_PAD, URL_SAFE, URL_SAFE_NO_PAD};

/// A hash algorithm relink computes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Algorithm {
    Md5,
    Sha1,
    Sha224,
    Sha256,
    Sha384,
    Sha512,
}

impl Algorithm {
    /// The algorithm a label names (`sha256`, `SHA-256`, `md5`), if relink
    /// computes it.
    pub(crate) fn named(label: &str) -> Option<Algorithm> {
        let name: String = label
            .chars()
            .filter(|&c| c != '-')
            .map(|c| c.to_ascii_lowercase())
            .collect();
        Some(match name.as_str() {
            "md5" => Algorithm::Md5,
            "sha1" => Algorithm::Sha1,
            "sha224" => Algorithm::Sha224,
            "sha256" => Algorithm::Sha256,
            "sha384" => Algorithm::Sha384,
            "sha512" => Algorithm::Sha512,
            _ => return None,
        })
    }

    /// The length of a hash, in bytes.
    fn len(self) -> usize {
        match self {
            Algorithm::Md5 => 16,
            Algorithm::Sha1 => 20,
            Algorithm::Sha224 => 28,
            Algorithm::Sha256 => 32,
            Algorithm::Sha384 => 48,
            Algorithm::Sha512 => 64,
        }
    }

    pub(crate) fn hasher(self) -> Hasher {
        use sha2::Digest;
        match self {
            Algorithm::Md5 => Hasher::Md5(md5::Md5::new()),
            Algorithm::Sha1 => Hasher::Sha1(sha1::Sha1::default()),
            Algorithm::Sha224 => Hasher::Sha224(sha2::Sha224::new()),
            Algorithm::Sha256 => Hasher::Sha256(sha2::Sha256::new()),
            Algorithm::Sha384 => Hasher::Sha384(sha2::Sha384::new()),
            Algorithm::Sha512 => Hasher::Sha512(sha2::Sha512::new()),
        }
    }

    /// The hash of `parts`, read as one run of bytes.
    pub(crate) fn hash(self, parts: &[&[u8]]) -> Vec<u8> {
        let mut hasher = self.hasher();
        for part in parts {
            hasher.update(part);
        }
        hasher.finish()
    }
}

/// A hash being computed.
pub(crate) enum Hasher {
    Md5(md5::Md5),
    Sha1(sha1::Sha1),
    Sha224(sha2::Sha224),
    Sha256(sha2::Sha256),
    Sha384(sha2::Sha384),
    Sha512(sha2::Sha512),
}

impl Hasher {
    pub(crate) fn update(&mut self, bytes: &[u8]) {
        use sha2::Digest;
        match self {
            Hasher::Md5(h) => h.update(bytes),
            Hasher::Sha1(h) => h.update(bytes),
            Hasher::Sha224(h) => h.update(bytes),
            Hasher::Sha256(h) => h.update(bytes),
            Hasher::Sha384(h) => h.update(bytes),
            Hasher::Sha512(h) => h.update(bytes),
        }
    }

    pub(crate) fn finish(self) -> Vec<u8> {
        use sha2::Digest;
        match self {
            Hasher::Md5(h) => h.finalize().to_vec(),
            Hasher::Sha1(h) => h.finalize().to_vec(),
            Hasher::Sha224(h) => h.finalize().to_vec(),
            Hasher::Sha256(h) => h.finalize().to_vec(),
            Hasher::Sha384(h) => h.finalize().to_vec(),
            Hasher::Sha512(h) => h.finalize().to_vec(),
        }
    }
}

/// How a digest's value is written (RFC 4648), so that a new one is
/// written the same way.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Form {
    /// Base16 (hexadecimal), in upper or lower case.
    Base16 { upper: bool },
    /// Base32, in upper (as the RFC has it) or lower case, padded with `=`
    /// or not.
    Base32 { lower: bool, padded: bool },
    /// Base64, of the standard or the URL and filename safe alphabet,
    /// padded with `=` or not.
    Base64 { url_safe: bool, padded: bool },
}

impl Form {
    /// The form of `value`, a hash of `len` bytes: told by its length and
    /// its characters (no two forms of one length share them).
    fn of(value: &str, len: usize) -> Option<Form> {
        let bytes = value.as_bytes();
        let b32 = len.div_ceil(5) * 8;
        let b32_bare = (len * 8).div_ceil(5);
        let b64 = len.div_ceil(3) * 4;
        let b64_bare = (len * 8).div_ceil(6);
        let (body, padding) = {
            let body = value.trim_end_matches('=');
            (body.as_bytes(), bytes.len() - body.len())
        };
        if bytes.len() == len * 2 && bytes.iter().all(u8::is_ascii_hexdigit) {
            let upper = bytes.iter().any(u8::is_ascii_uppercase);
            return Some(Form::Base16 { upper });
        }
        if (bytes.len() == b32 || (padding == 0 && bytes.len() == b32_bare))
            && body.len() == b32_bare
        {
            let upper = body.iter().all(|b| matches!(b, b'A'..=b'Z' | b'2'..=b'7'));
            let lower = body.iter().all(|b| matches!(b, b'a'..=b'z' | b'2'..=b'7'));
            if upper || lower {
                return Some(Form::Base32 {
                    lower: !upper,
                    padded: padding > 0,
                });
            }
        }
        if (bytes.len() == b64 || (padding == 0 && bytes.len() == b64_bare))
            && body.len() == b64_bare
        {
            let common = |b: &u8| b.is_ascii_alphanumeric();
            let standard = body.iter().all(|b| common(b) || matches!(b, b'+' | b'/'));
            let url_safe = body.iter().all(|b| common(b) || matches!(b, b'-' | b'_'));
            if standard || url_safe {
                return Some(Form::Base64 {
                    url_safe: !standard,
                    padded: padding > 0,
                });
            }
        }
        None
    }

    /// `hash` written in this form.
    fn write(self, hash: &[u8]) -> String {
        match self {
            Form::Base16 { upper: false } => hash.iter().map(|b| format!("{b:02x}")).collect(),
            Form::Base16 { upper: true } => hash.iter().map(|b| format!("{b:02X}")).collect(),
            Form::Base32 { lower, padded } => {
                let mut value = base32(hash, padded);
                if lower {
                    value.make_ascii_lowercase();
                }
                value
            }
            Form::Base64 { url_safe, padded } => match (url_safe, padded) {
                (false, true) => STANDARD.encode(hash),
                (false, false) => STANDARD_NO_PAD.encode(hash),
                (true, true) => URL_SAFE.encode(hash),
                (true, false) => URL_SAFE_NO_PAD.encode(hash),
            },
        }
    }
}

/// Why a digest cannot be checked nor written again.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Unreadable {
    /// Its algorithm is none relink computes.
    Algorithm,
    /// Its value is in no encoding of its algorithm's length.
    Form,
}

impl std::fmt::Display for Unreadable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Unreadable::Algorithm => {
                "is in an algorithm relink does not compute (md5, sha1, sha224, sha256, sha384, sha512)"
            }
            Unreadable::Form => "is in no encoding relink reads (base16, base32, base64)",
        })
    }
}

/// A digest as written: its label (as written), algorithm, value and the
/// form of the value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Digest {
    label: String,
    algorithm: Algorithm,
    value: String,
    form: Form,
}

impl Digest {
    /// Reads `label:value`.
    pub(crate) fn parse(written: &str) -> Result<Digest, Unreadable> {
        let (label, value) = written.trim().split_once(':').ok_or(Unreadable::Form)?;
        let algorithm = Algorithm::named(label).ok_or(Unreadable::Algorithm)?;
        let form = Form::of(value, algorithm.len()).ok_or(Unreadable::Form)?;
        Ok(Digest {
            label: label.to_owned(),
            algorithm,
            value: value.to_owned(),
            form,
        })
    }

    /// Whether this is the digest of `parts`, read as one run of bytes
    /// (base16 and base32 in either case).
    pub(crate) fn verifies(&self, parts: &[&[u8]]) -> bool {
        let value = self.form.write(&self.algorithm.hash(parts));
        match self.form {
            Form::Base64 { .. } => value == self.value,
            _ => value.eq_ignore_ascii_case(&self.value),
        }
    }

    /// This digest as Common Crawl writes a SHA-1 (`sha1:` and upper-case
    /// base32), when it is a SHA-1 in base32.
    pub(crate) fn sha1_base32(&self) -> Option<String> {
        let base32 = matches!(self.form, Form::Base32 { .. });
        (self.algorithm == Algorithm::Sha1 && base32).then(|| {
            format!(
                "sha1:{}",
                self.value.trim_end_matches('=').to_ascii_uppercase()
            )
        })
    }

    /// This digest as Common Crawl writes a SHA-1 (`sha1:` and upper-case
    /// base32), when it is a SHA-1 in any encoding: its hash decoded and
    /// written again.
    pub(crate) fn sha1_in_base32(&self) -> Option<String> {
        if self.algorithm != Algorithm::Sha1 {
            return None;
        }
        let hash = match self.form {
            Form::Base32 { .. } => return self.sha1_base32(),
            Form::Base16 { .. } => (0..self.value.len())
                .step_by(2)
                .map(|i| u8::from_str_radix(self.value.get(i..i + 2)?, 16).ok())
                .collect::<Option<Vec<u8>>>()?,
            Form::Base64 { url_safe, .. } => {
                let engine = if url_safe {
                    URL_SAFE_NO_PAD
                } else {
                    STANDARD_NO_PAD
                };
                engine.decode(self.value.trim_end_matches('=')).ok()?
            }
        };
        Some(format!("sha1:{}", base32(&hash, false)))
    }

    /// The digest of `parts`, written as this one is.
    pub(crate) fn of(&self, parts: &[&[u8]]) -> String {
        let value = self.form.write(&self.algorithm.hash(parts));
        format!("{}:{value}", self.label)
    }

    /// The digest of the bytes `pieces` hands over, in order, written as
    /// this one is.
    pub(crate) fn of_pieces(&self, pieces: impl FnOnce(&mut dyn FnMut(&[u8]))) -> String {
        let mut hasher = self.algorithm.hasher();
        pieces(&mut |piece| hasher.update(piece));
        let value = self.form.write(&hasher.finish());
        format!("{}:{value}", self.label)
    }
}

/// The SHA-1 of `bytes` as Heritrix writes a payload's digest and Common
/// Crawl a WAT record's `Entity-Digest`: `sha1:` and RFC 4648 base32.
pub(crate) fn sha1_base32(bytes: &[u8]) -> String {
    format!("sha1:{}", base32(&Algorithm::Sha1.hash(&[bytes]), false))
}

const BASE32: &[u8; 32] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";

/// RFC 4648 base32 (section 6), upper case, padded with `=` to a whole
/// group of 8 characters or not.
fn base32(bytes: &[u8], padded: bool) -> String {
    let mut out = String::with_capacity(bytes.len().div_ceil(5) * 8);
    for group in bytes.chunks(5) {
        let mut five = [0u8; 5];
        five[..group.len()].copy_from_slice(group);
        let mut bits = five.iter().fold(0u64, |acc, &b| acc << 8 | u64::from(b));
        let mut chars = [0u8; 8];
        for c in chars.iter_mut().rev() {
            *c = BASE32[(bits & 31) as usize];
            bits >>= 5;
        }
        let used = (group.len() * 8).div_ceil(5);
        out.extend(chars[..used].iter().map(|&c| char::from(c)));
        if padded {
            out.extend(std::iter::repeat_n('=', 8 - used));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn digest(written: &str) -> Digest {
        Digest::parse(written).unwrap()
    }

    #[test]
    fn sha1_in_base32_is_heritrixs() {
        assert_eq!(sha1_base32(b""), "sha1:3I42H3S6NNFQ2MSVX7XZKYAYSCX5QBYJ");
        let abc = digest("sha1:a9993e364706816aba3e25717850c26c9cd0d89d");
        assert_eq!(
            sha1_base32(b"abc"),
            format!("sha1:{}", base32(&abc.algorithm.hash(&[b"abc"]), false))
        );
        assert_eq!(sha1_base32(b"abc"), "sha1:VGMT4NSHA2AWVOR6EVYXQUGCNSONBWE5");
    }

    #[test]
    fn a_sha1_in_any_encoding_is_written_in_base32() {
        let abc = "sha1:VGMT4NSHA2AWVOR6EVYXQUGCNSONBWE5";
        let written = [
            "sha1:a9993e364706816aba3e25717850c26c9cd0d89d",
            "SHA-1:A9993E364706816ABA3E25717850C26C9CD0D89D",
            "sha1:vgmt4nsha2awvor6evyxqugcnsonbwe5",
            "sha1:qZk+NkcGgWq6PiVxeFDCbJzQ2J0=",
            "sha1:qZk-NkcGgWq6PiVxeFDCbJzQ2J0",
        ];
        for form in written {
            assert_eq!(
                digest(form).sha1_in_base32().as_deref(),
                Some(abc),
                "{form}"
            );
        }
        let sha256 = "sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";
        assert_eq!(digest(sha256).sha1_in_base32(), None);
    }

    #[test]
    fn sha1_of_the_empty_block_in_base32() {
        // The value wget writes for its empty log record.
        let empty = digest("sha1:3I42H3S6NNFQ2MSVX7XZKYAYSCX5QBYJ");
        assert_eq!(empty.of(&[]), "sha1:3I42H3S6NNFQ2MSVX7XZKYAYSCX5QBYJ");
        assert!(empty.verifies(&[b""]));
        assert!(!empty.verifies(&[b"x"]));
    }

    #[test]
    fn hex_forms_are_kept() {
        let lower = digest("sha1:da39a3ee5e6b4b0d3255bfef95601890afd80709");
        assert_eq!(lower.form, Form::Base16 { upper: false });
        assert!(lower.verifies(&[]));
        let upper = digest("SHA1:DA39A3EE5E6B4B0D3255BFEF95601890AFD80709");
        assert_eq!(upper.form, Form::Base16 { upper: true });
        assert_eq!(
            upper.of(&[]),
            "SHA1:DA39A3EE5E6B4B0D3255BFEF95601890AFD80709"
        );
        assert_eq!(Digest::parse("sha256:abcd"), Err(Unreadable::Form));
        assert_eq!(
            Digest::parse("md4:3I42H3S6NNFQ2MSVX7XZKYAYSCX5QBYJ"),
            Err(Unreadable::Algorithm)
        );
        assert_eq!(Digest::parse("no label"), Err(Unreadable::Form));
    }

    /// The empty input's hashes in every algorithm, written in each of
    /// the encodings warcio reads.
    #[test]
    fn every_algorithm_in_every_encoding() {
        let hex = [
            ("md5", "d41d8cd98f00b204e9800998ecf8427e"),
            ("sha1", "da39a3ee5e6b4b0d3255bfef95601890afd80709"),
            (
                "sha224",
                "d14a028c2a3a2bc9476102bb288234c415a2b01f828ea62ac5b3e42f",
            ),
            (
                "sha256",
                "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
            ),
            (
                "sha384",
                "38b060a751ac96384cd9327eb1b1e36a21fdb71114be07434c0cc7bf63f6e1da274edebfe76f65fbd51ad2f14898b95b",
            ),
            (
                "sha512",
                "cf83e1357eefb8bdf1542850d66d8007d620e4050b5715dc83f4a921d36ce9ce47d0d13c5d85f2b0ff8318d2877eec2f63b931bd47417a81a538327af927da3e",
            ),
        ];
        for (label, value) in hex {
            let bytes: Vec<u8> = (0..value.len())
                .step_by(2)
                .map(|i| u8::from_str_radix(&value[i..i + 2], 16).unwrap())
                .collect();
            let forms = [
                value.to_owned(),
                value.to_ascii_uppercase(),
                base32(&bytes, true),
                base32(&bytes, false),
                base32(&bytes, true).to_ascii_lowercase(),
                STANDARD.encode(&bytes),
                STANDARD_NO_PAD.encode(&bytes),
                URL_SAFE.encode(&bytes),
            ];
            for form in forms {
                let written = format!("{label}:{form}");
                let parsed = digest(&written);
                assert!(parsed.verifies(&[]), "{written}");
                assert!(!parsed.verifies(&[b"x"]), "{written}");
                // Written again as it was.
                assert_eq!(parsed.of(&[b"", b""]), written);
            }
        }
        // The SHA-256 of "abc", as Browsertrix writes it, and in base32.
        let abc = "sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";
        assert!(digest(abc).verifies(&[b"a", b"bc"]));
        let b32 = "sha-256:XJ4BNP4PAHH6UQKBIDPF3LRCEOYAGYNDSYLXVHFUCD7WD4QACWWQ====";
        assert!(digest(b32).verifies(&[b"abc"]));
        assert_eq!(
            digest(b32).of(&[]),
            "sha-256:4OYMIQUY7QOBJGX36TEJS35ZEQT24QPEMSNZGTFESWMRW6CSXBKQ===="
        );
    }

    #[test]
    fn base32_follows_rfc_4648() {
        // RFC 4648 section 10.
        let cases = [
            ("", ""),
            ("f", "MY======"),
            ("fo", "MZXQ===="),
            ("foo", "MZXW6==="),
            ("foob", "MZXW6YQ="),
            ("fooba", "MZXW6YTB"),
            ("foobar", "MZXW6YTBOI======"),
        ];
        for (text, encoded) in cases {
            assert_eq!(base32(text.as_bytes(), true), encoded);
            assert_eq!(
                base32(text.as_bytes(), false),
                encoded.trim_end_matches('=')
            );
        }
    }
}
