//! Content-Transfer-Encodings (RFC 2045 section 6), decoded and encoded
//! again the way the body was written: its line endings, its base64 line
//! length, and whether it ended with a line break.
//!
//! Quoted-printable is written here rather than with a crate: relink must
//! keep the file's own line endings (CRLF in MHTML, LF in a Unix mbox)
//! through a decode and encode, and write a line that starts with `From `
//! as `=46rom ` so that no mbox reader takes it for a separator.

use base64::Engine;
use base64::engine::general_purpose::{GeneralPurpose, GeneralPurposeConfig};
use base64::engine::{DecodePaddingMode, general_purpose};

/// The longest encoded line quoted-printable allows (RFC 2045 6.7), soft
/// break included.
pub const QP_LINE: usize = 76;

/// The longest line 7bit and 8bit bodies allow (RFC 5322 2.1.1), without
/// its CRLF.
pub const MAX_LINE_OCTETS: usize = 998;

/// A Content-Transfer-Encoding.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TransferEncoding {
    /// `7bit`, the default.
    SevenBit,
    /// `8bit`.
    EightBit,
    /// `binary`.
    Binary,
    /// `quoted-printable`.
    QuotedPrintable,
    /// `base64`.
    Base64,
}

impl TransferEncoding {
    /// The encoding a header value names; `None` for one relink does not
    /// know (the part is then left alone).
    pub fn from_header(value: Option<&str>) -> Option<Self> {
        let Some(value) = value else {
            return Some(TransferEncoding::SevenBit);
        };
        match value.trim().to_ascii_lowercase().as_str() {
            "" | "7bit" => Some(TransferEncoding::SevenBit),
            "8bit" => Some(TransferEncoding::EightBit),
            "binary" => Some(TransferEncoding::Binary),
            "quoted-printable" => Some(TransferEncoding::QuotedPrintable),
            "base64" => Some(TransferEncoding::Base64),
            _ => None,
        }
    }
}

/// How an encoded body was laid out, to write a new one alike.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Layout {
    /// `\r\n` or `\n`.
    pub line_ending: &'static [u8],
    /// Whether the body ended with a line ending.
    pub final_newline: bool,
    /// The length of a full base64 line.
    pub base64_line: usize,
}

impl Layout {
    /// The layout of an encoded body.
    pub fn of(body: &[u8]) -> Self {
        let crlf = match memchr::memchr(b'\n', body) {
            Some(i) => i > 0 && body[i - 1] == b'\r',
            None => true,
        };
        let first_line = body
            .split(|&b| b == b'\n')
            .next()
            .map_or(0, |l| l.strip_suffix(b"\r").unwrap_or(l).len());
        Layout {
            line_ending: if crlf { b"\r\n" } else { b"\n" },
            final_newline: body.ends_with(b"\n"),
            base64_line: if (4..=QP_LINE).contains(&first_line) && first_line % 4 == 0 {
                first_line
            } else {
                QP_LINE
            },
        }
    }
}

/// A transfer decoding that failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct DecodeError(String);

const BASE64: GeneralPurpose = GeneralPurpose::new(
    &base64::alphabet::STANDARD,
    GeneralPurposeConfig::new().with_decode_padding_mode(DecodePaddingMode::Indifferent),
);

/// Decodes a body.
pub fn decode(
    body: &[u8],
    encoding: TransferEncoding,
    layout: &Layout,
) -> Result<Vec<u8>, DecodeError> {
    match encoding {
        TransferEncoding::SevenBit | TransferEncoding::EightBit | TransferEncoding::Binary => {
            Ok(body.to_vec())
        }
        TransferEncoding::Base64 => {
            let compact: Vec<u8> = body
                .iter()
                .copied()
                .filter(|b| !b.is_ascii_whitespace())
                .collect();
            BASE64
                .decode(&compact)
                .map_err(|e| DecodeError(format!("bad base64: {e}")))
        }
        TransferEncoding::QuotedPrintable => Ok(decode_qp(body, layout.line_ending)),
    }
}

/// Encodes a body as `layout` says.
pub fn encode(data: &[u8], encoding: TransferEncoding, layout: &Layout) -> Vec<u8> {
    match encoding {
        TransferEncoding::SevenBit | TransferEncoding::EightBit | TransferEncoding::Binary => {
            data.to_vec()
        }
        TransferEncoding::Base64 => {
            let text = general_purpose::STANDARD.encode(data);
            let mut out = Vec::with_capacity(text.len() + text.len() / layout.base64_line * 2 + 2);
            for (i, line) in text.as_bytes().chunks(layout.base64_line).enumerate() {
                if i > 0 {
                    out.extend_from_slice(layout.line_ending);
                }
                out.extend_from_slice(line);
            }
            if layout.final_newline {
                out.extend_from_slice(layout.line_ending);
            }
            out
        }
        TransferEncoding::QuotedPrintable => encode_qp(data, layout),
    }
}

fn hex_value(b: u8) -> Option<u8> {
    (b as char).to_digit(16).map(|d| d as u8)
}

/// Decodes quoted-printable (RFC 2045 6.7), leniently: a `=` not followed
/// by two hex digits or a line end is kept. Hard line breaks become
/// `line_ending`; a soft break (`=` at the end of a line, trailing white
/// space allowed) joins the lines.
pub fn decode_qp(body: &[u8], line_ending: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(body.len());
    let mut lines = body.split(|&b| b == b'\n').peekable();
    while let Some(line) = lines.next() {
        let last = lines.peek().is_none();
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        // Trailing white space on an encoded line is not data (6.7 rule 3).
        let trimmed_len = line.len()
            - line
                .iter()
                .rev()
                .take_while(|&&b| b == b' ' || b == b'\t')
                .count();
        let line = &line[..trimmed_len];
        let (line, soft) = match line.strip_suffix(b"=") {
            Some(rest) => (rest, true),
            None => (line, false),
        };
        let mut i = 0;
        while i < line.len() {
            if line[i] == b'='
                && let (Some(hi), Some(lo)) = (
                    line.get(i + 1).copied().and_then(hex_value),
                    line.get(i + 2).copied().and_then(hex_value),
                )
            {
                out.push(hi << 4 | lo);
                i += 3;
                continue;
            }
            out.push(line[i]);
            i += 1;
        }
        if !soft && !last {
            out.extend_from_slice(line_ending);
        }
    }
    out
}

/// Encodes quoted-printable with lines of at most [`QP_LINE`] characters,
/// hard line breaks where the data has `layout.line_ending`.
pub fn encode_qp(data: &[u8], layout: &Layout) -> Vec<u8> {
    let le = layout.line_ending;
    let mut out = Vec::with_capacity(data.len() + data.len() / 8);
    let mut lines: Vec<&[u8]> = Vec::new();
    let mut rest = data;
    while let Some(i) = memchr::memmem::find(rest, le) {
        lines.push(&rest[..i]);
        rest = &rest[i + le.len()..];
    }
    lines.push(rest);
    // Data that ends with a line break has a last, empty line: the break
    // before it is written, and then the body's own final newline, if any.
    for (n, line) in lines.iter().enumerate() {
        if n > 0 {
            out.extend_from_slice(le);
        }
        let mut width = 0;
        for (i, &b) in line.iter().enumerate() {
            let at_end = i + 1 == line.len();
            let literal = match b {
                b'=' => false,
                b' ' | b'\t' => !at_end,
                b'F' if i == 0 && line.starts_with(b"From ") => false,
                b'.' if i == 0 && line.len() == 1 => false,
                33..=126 => true,
                _ => false,
            };
            let size = if literal { 1 } else { 3 };
            // Room for this character and, unless it ends the line, a "=".
            let room = if at_end { QP_LINE } else { QP_LINE - 1 };
            if width + size > room {
                out.push(b'=');
                out.extend_from_slice(le);
                width = 0;
            }
            if literal {
                out.push(b);
            } else {
                out.extend_from_slice(format!("={b:02X}").as_bytes());
            }
            width += size;
        }
    }
    if layout.final_newline && !data.ends_with(le) {
        out.extend_from_slice(le);
    }
    out
}

/// One hard line of a quoted-printable body: its encoded bytes (soft
/// breaks included) and the line break that ends it.
struct HardLine<'a> {
    content: &'a [u8],
    terminator: &'a [u8],
}

/// The hard lines of a quoted-printable body, as [`decode_qp`] reads them.
fn hard_lines(body: &[u8]) -> Vec<HardLine<'_>> {
    let mut lines = Vec::new();
    let mut start = 0;
    let mut at = 0;
    loop {
        let Some(newline) = memchr::memchr(b'\n', &body[at..]).map(|i| at + i) else {
            lines.push(HardLine {
                content: &body[start..],
                terminator: b"",
            });
            return lines;
        };
        let content_end = if newline > at && body[newline - 1] == b'\r' {
            newline - 1
        } else {
            newline
        };
        let line = &body[at..content_end];
        let trimmed = line.len()
            - line
                .iter()
                .rev()
                .take_while(|&&b| b == b' ' || b == b'\t')
                .count();
        if !line[..trimmed].ends_with(b"=") {
            lines.push(HardLine {
                content: &body[start..content_end],
                terminator: &body[content_end..=newline],
            });
            start = newline + 1;
        }
        at = newline + 1;
    }
}

/// Encodes `new` as quoted-printable the way `body` (which decodes to
/// `old`) was written: each hard line whose text did not change keeps its
/// encoded bytes, soft breaks and all; only changed lines are encoded
/// again. When the lines do not correspond, the whole body is encoded.
pub fn reencode_qp(body: &[u8], old: &[u8], new: &[u8], layout: &Layout) -> Vec<u8> {
    let le = layout.line_ending;
    let split = |data: &'_ [u8]| -> Vec<Vec<u8>> {
        let mut out = Vec::new();
        let mut rest = data;
        while let Some(i) = memchr::memmem::find(rest, le) {
            out.push(rest[..i].to_vec());
            rest = &rest[i + le.len()..];
        }
        out.push(rest.to_vec());
        out
    };
    let lines = hard_lines(body);
    let (old_lines, new_lines) = (split(old), split(new));
    if lines.len() != old_lines.len() || old_lines.len() != new_lines.len() {
        return encode_qp(new, layout);
    }
    let line_layout = Layout {
        final_newline: false,
        ..*layout
    };
    let mut out = Vec::with_capacity(body.len() + 64);
    for ((line, old), new) in lines.iter().zip(&old_lines).zip(&new_lines) {
        if old == new {
            out.extend_from_slice(line.content);
        } else {
            out.extend_from_slice(&encode_qp(new, &line_layout));
        }
        out.extend_from_slice(line.terminator);
    }
    out
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    const CRLF: Layout = Layout {
        line_ending: b"\r\n",
        final_newline: false,
        base64_line: 76,
    };

    #[test]
    fn quoted_printable_decodes_soft_breaks_and_escapes() {
        assert_eq!(decode_qp(b"a=3Db=\r\nc\r\nd=", b"\r\n"), b"a=bc\r\nd");
        assert_eq!(decode_qp(b"x  \ny=20\n", b"\n"), b"x\ny \n");
        assert_eq!(decode_qp(b"=ZZ=4", b"\n"), b"=ZZ=4");
    }

    #[test]
    fn quoted_printable_keeps_lines_short_and_from_escaped() {
        let long = "x".repeat(200);
        let encoded = encode_qp(long.as_bytes(), &CRLF);
        assert!(
            encoded
                .split(|&b| b == b'\n')
                .all(|l| l.len() <= QP_LINE + 1)
        );
        assert_eq!(decode_qp(&encoded, b"\r\n"), long.as_bytes());
        assert_eq!(
            encode_qp(b"From me\r\na =\r\nb ", &CRLF),
            b"=46rom me\r\na =3D\r\nb=20"
        );
    }

    #[test]
    fn reencoding_keeps_unchanged_lines_byte_for_byte() {
        let body = b"<p>one very long line that the encoder wrapped early =\r\nhere</p>\r\n<a href=3D\"x.html\">\r\nend=\r\n";
        let layout = Layout::of(body);
        let old = decode_qp(body, layout.line_ending);
        let new: Vec<u8> = String::from_utf8(old.clone())
            .unwrap()
            .replace("x.html", "http://h/x.html")
            .into_bytes();
        let out = reencode_qp(body, &old, &new, &layout);
        assert_eq!(
            out,
            b"<p>one very long line that the encoder wrapped early =\r\nhere</p>\r\n<a href=3D\"http://h/x.html\">\r\nend=\r\n"
        );
        assert_eq!(decode_qp(&out, layout.line_ending), new);
    }

    #[test]
    fn base64_follows_the_layout() {
        let layout = Layout::of(b"QUJD\nREVG\n");
        assert_eq!(layout.base64_line, 4);
        assert_eq!(layout.line_ending, b"\n");
        let data = decode(b"QUJD\nREVG\n", TransferEncoding::Base64, &layout).unwrap();
        assert_eq!(data, b"ABCDEF");
        assert_eq!(
            encode(&data, TransferEncoding::Base64, &layout),
            b"QUJD\nREVG\n"
        );
        assert!(decode(b"%%%", TransferEncoding::Base64, &layout).is_err());
    }

    proptest! {
        #[test]
        fn quoted_printable_round_trips(data in prop::collection::vec(any::<u8>(), 0..300), crlf: bool, final_newline: bool) {
            let layout = Layout {
                line_ending: if crlf { b"\r\n" } else { b"\n" },
                final_newline,
                base64_line: 76,
            };
            let encoded = encode_qp(&data, &layout);
            prop_assert!(encoded.split(|&b| b == b'\n').all(|l| l.len() <= QP_LINE + 1));
            let mut decoded = decode_qp(&encoded, layout.line_ending);
            if final_newline && !data.ends_with(layout.line_ending) {
                // The body's own final newline is layout, not data.
                let cut = decoded.len() - layout.line_ending.len();
                prop_assert_eq!(&decoded[cut..], layout.line_ending);
                decoded.truncate(cut);
            }
            prop_assert_eq!(decoded, data);
        }

        #[test]
        fn base64_round_trips(data in prop::collection::vec(any::<u8>(), 0..300)) {
            let layout = Layout { line_ending: b"\r\n", final_newline: true, base64_line: 76 };
            let encoded = encode(&data, TransferEncoding::Base64, &layout);
            prop_assert_eq!(decode(&encoded, TransferEncoding::Base64, &layout).unwrap(), data);
        }
    }
}
