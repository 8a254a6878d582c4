//! WARC digests (ISO 28500 section 5.8): `algorithm:value`, the value in
//! base32 (RFC 4648 section 6) as nearly every writer puts it, or in hex.
//!
//! Base32 is a few lines here: the one crate for it would be a dependency
//! for twenty bytes a record.

/// How a digest value is written, so a new one is written the same way.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum DigestForm {
    /// RFC 4648 base32, upper case, no padding (32 characters for SHA-1).
    Base32,
    /// Hexadecimal, lower case.
    HexLower,
    /// Hexadecimal, upper case.
    HexUpper,
}

/// A SHA-1 digest as written in a WARC header: its label (`sha1`, as
/// written) and the form of its value. `None` for another algorithm, or a
/// value that is no SHA-1 in a known form.
pub(crate) fn parse_sha1(value: &str) -> Option<(&str, DigestForm)> {
    let (label, digits) = value.trim().split_once(':')?;
    if !label.eq_ignore_ascii_case("sha1") && !label.eq_ignore_ascii_case("sha-1") {
        return None;
    }
    let form = match digits.len() {
        32 if digits.bytes().all(|b| BASE32.contains(&b)) => DigestForm::Base32,
        40 if digits
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b)) =>
        {
            DigestForm::HexLower
        }
        40 if digits.bytes().all(|b| b.is_ascii_hexdigit()) => DigestForm::HexUpper,
        _ => return None,
    };
    Some((label, form))
}

/// The SHA-1 of `parts` (read as one run of bytes), written as `label:value`.
pub(crate) fn sha1(parts: &[&[u8]], label: &str, form: DigestForm) -> String {
    let mut hasher = sha1_smol::Sha1::new();
    for part in parts {
        hasher.update(part);
    }
    let bytes = hasher.digest().bytes();
    let value = match form {
        DigestForm::Base32 => base32(&bytes),
        DigestForm::HexLower => bytes.iter().map(|b| format!("{b:02x}")).collect(),
        DigestForm::HexUpper => bytes.iter().map(|b| format!("{b:02X}")).collect(),
    };
    format!("{label}:{value}")
}

/// Whether `written` is the SHA-1 of `parts` in its own form.
pub(crate) fn matches(written: &str, parts: &[&[u8]]) -> bool {
    parse_sha1(written)
        .is_some_and(|(label, form)| sha1(parts, label, form).eq_ignore_ascii_case(written.trim()))
}

const BASE32: &[u8; 32] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";

/// RFC 4648 base32 of whole 5-byte groups (a SHA-1 is four of them).
fn base32(bytes: &[u8; 20]) -> String {
    let mut out = String::with_capacity(32);
    for group in bytes.chunks(5) {
        let mut bits = group.iter().fold(0u64, |acc, &b| acc << 8 | u64::from(b));
        let mut chars = [0u8; 8];
        for c in chars.iter_mut().rev() {
            *c = BASE32[(bits & 31) as usize];
            bits >>= 5;
        }
        out.extend(chars.iter().map(|&c| char::from(c)));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sha1_of_the_empty_block_in_base32() {
        // The value wget writes for its empty log record.
        let empty = sha1(&[], "sha1", DigestForm::Base32);
        assert_eq!(empty, "sha1:3I42H3S6NNFQ2MSVX7XZKYAYSCX5QBYJ");
        assert!(matches(&empty, &[b""]));
        assert!(!matches(&empty, &[b"x"]));
    }

    #[test]
    fn hex_forms_are_kept() {
        let lower = "sha1:da39a3ee5e6b4b0d3255bfef95601890afd80709";
        assert_eq!(parse_sha1(lower), Some(("sha1", DigestForm::HexLower)));
        assert!(matches(lower, &[]));
        assert!(matches(
            &lower.to_ascii_uppercase().replace("SHA1", "sha1"),
            &[]
        ));
        assert_eq!(parse_sha1("sha256:abcd"), None);
        assert_eq!(parse_sha1("md5:3I42H3S6NNFQ2MSVX7XZKYAYSCX5QBYJ"), None);
    }
}
