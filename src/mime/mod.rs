//! Messages and archives: single messages, MHTML, mbox and Maildir.

pub mod headers;
pub mod mbox;
pub mod message;
pub mod transfer;

/// The UTF-8 byte order mark, which some clients write before a message
/// or an mbox: read past, and kept.
pub const BOM: &[u8] = b"\xEF\xBB\xBF";
