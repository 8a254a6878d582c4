//! Messages and archives: single messages, MHTML, mbox and Maildir.

pub mod headers;
pub mod maildir;
pub mod mbox;
pub mod message;
pub mod transfer;
