//! The library's error type.

/// What can go wrong in relink.
///
/// ```
/// let err = relink::Rewriter::new().retrieved_from("example.com/page").rewrite(b"<a href=x>").unwrap_err();
/// assert!(matches!(err, relink::Error::InvalidBase { .. }));
/// assert_eq!(err.to_string(), "invalid base url 'example.com/page': it has no scheme");
/// let archive = b"WARC/1.1\r\nWARC-Type: warcinfo\r\nContent-Length: 0\r\n\r\n\r\n\r\n";
/// let err = relink::Rewriter::new().kind(relink::Kind::Html).rewrite(archive).unwrap_err();
/// assert!(matches!(err, relink::Error::ArchiveAsDocument));
/// ```
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A base URL that is not absolute, or that the chosen rules reject.
    #[error("invalid base url '{base}': {reason}")]
    InvalidBase {
        /// The base as given.
        base: String,
        /// Why it was rejected.
        reason: String,
    },
    /// A reference that the chosen rules cannot resolve.
    #[error("cannot resolve '{reference}': {reason}")]
    Unresolvable {
        /// The reference as given.
        reference: String,
        /// Why it failed.
        reason: String,
    },
    /// A rule set name that is not known.
    #[error("unknown rules '{0}' (expected rfc1808, rfc3986 or whatwg)")]
    UnknownRules(String),
    /// An `--attr` specification that cannot be read.
    #[error("invalid attribute '{spec}': {reason}")]
    InvalidAttribute {
        /// The specification as given.
        spec: String,
        /// Why it was rejected.
        reason: String,
    },
    /// An encoding label that names no encoding.
    #[error("unknown encoding '{0}'")]
    UnknownEncoding(String),
    /// A web archive (WARC or ARC) given as a document: it is read as an
    /// archive or not at all.
    #[error("a web archive (WARC or ARC) is read as one, never as a document")]
    ArchiveAsDocument,
    /// A compression relink does not undo.
    #[error("{}", crate::compressed::unread(.0))]
    Compressed(&'static str),
    /// A web archive compressed in a way relink does not read: refused,
    /// never passed over.
    #[error("a web archive {}: decompress it first", crate::compressed::unread(.0))]
    CompressedArchive(&'static str),
    /// Reading or writing failed.
    #[error(transparent)]
    Io(#[from] std::io::Error),
    /// A record of an archive that cannot be read, so neither can any
    /// after it.
    #[error("record {record}: {reason}")]
    MalformedRecord {
        /// The record's number, from 1.
        record: usize,
        /// What is wrong.
        reason: String,
    },
    /// A WACZ package that cannot be read or written again.
    #[error(transparent)]
    Wacz(Box<dyn std::error::Error + Send + Sync>),
    /// A notebook (or other JSON document) that is not JSON: where, and
    /// why. Nothing of it is rewritten.
    #[error("invalid json at line {line}, column {column}: {reason}")]
    InvalidJson {
        /// The line, from 1.
        line: usize,
        /// The column, in bytes from 1.
        column: usize,
        /// What was expected or found there.
        reason: &'static str,
    },
    /// An EPUB book that cannot be read: its zip, or an entry every book
    /// needs.
    #[error("{entry}: {reason}")]
    Epub {
        /// The entry (`META-INF/container.xml`), or `zip archive`.
        entry: String,
        /// What is wrong.
        reason: String,
    },
    /// A document too large to parse.
    #[error("document of {0} bytes is too large")]
    TooLarge(usize),
}

/// An error as a writer's or a handler's I/O error (a [`Handler`](crate::front::Handler)
/// returns one): reading or writing as it was, anything else as invalid
/// data.
///
/// ```
/// let err = std::io::Error::from(relink::Error::ArchiveAsDocument);
/// assert_eq!(err.kind(), std::io::ErrorKind::InvalidData);
/// ```
impl From<Error> for std::io::Error {
    fn from(error: Error) -> Self {
        match error {
            Error::Io(error) => error,
            other => std::io::Error::new(std::io::ErrorKind::InvalidData, other),
        }
    }
}
