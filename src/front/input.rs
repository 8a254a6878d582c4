//! An input opened: its first bytes read, what it is told from them.

use std::borrow::Cow;
use std::fs::File;
use std::io::{self, BufReader, Read, Seek};
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use super::Source;
use crate::kind::{self, Kind};

/// How many bytes are read to tell what an input is (an mbox's first
/// message is measured against its Content-Length).
pub const HEAD_BYTES: usize = 1 << 20;

/// Up to this size, an input's buffer is made the size of the whole input
/// when it is opened ([`Opened::read_all`] then reads on into it).
const WHOLE_AT_ONCE: usize = 16 << 20;

/// A reader that adds what it reads to a counter.
pub(super) struct Counting<R> {
    inner: R,
    count: Arc<AtomicU64>,
}

impl<R: Read> Read for Counting<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.count.fetch_add(n as u64, Ordering::Relaxed);
        Ok(n)
    }
}

/// An input opened: its first bytes, the rest, and the file it is (a WACZ
/// package is read from its end).
pub(super) struct Opened<'a> {
    pub(super) head: Cow<'a, [u8]>,
    /// The whole input, when it is bytes the caller holds: never copied.
    pub(super) whole: Option<&'a [u8]>,
    /// The input's size, when known.
    pub(super) size: usize,
    pub(super) rest: Box<dyn Read + 'a>,
    pub(super) file: Option<File>,
}

/// An input's first bytes put back before the rest.
pub(super) type Restored<'a> = io::Chain<io::Cursor<Cow<'a, [u8]>>, Box<dyn Read + 'a>>;

/// A reader that seeks.
pub(super) trait SeekRead: Read + Seek {}
impl<T: Read + Seek> SeekRead for T {}

/// An input that cannot be opened, named (the command line opens its own
/// files and names them in its report).
pub(super) fn cannot_read(path: &Path, e: io::Error) -> io::Error {
    io::Error::new(e.kind(), format!("{}: cannot read: {e}", path.display()))
}

impl<'a> Opened<'a> {
    pub(super) fn open(source: Source<'a>, counter: Option<Arc<AtomicU64>>) -> io::Result<Self> {
        match source {
            Source::Path(path) => {
                let file = File::open(&path).map_err(|e| cannot_read(&path, e))?;
                Opened::of_file(file, counter)
            }
            Source::File(file) => Opened::of_file(file, counter),
            Source::Reader(reader) => Opened::of_reader(reader, None, 0, counter),
            Source::Bytes(bytes) => {
                if let Some(count) = counter {
                    count.fetch_add(bytes.len() as u64, Ordering::Relaxed);
                }
                let (head, rest) = bytes.split_at(bytes.len().min(HEAD_BYTES));
                Ok(Opened {
                    head: Cow::Borrowed(head),
                    whole: Some(bytes),
                    size: bytes.len(),
                    rest: Box::new(rest),
                    file: None,
                })
            }
        }
    }

    /// An input read from `reader` (the file it is, if any, of `size`
    /// bytes if known, else 0): its head read, the rest to read.
    pub(super) fn of_reader(
        reader: Box<dyn Read + 'a>,
        file: Option<File>,
        size: u64,
        counter: Option<Arc<AtomicU64>>,
    ) -> io::Result<Self> {
        let mut rest: Box<dyn Read + 'a> = match counter {
            Some(count) => Box::new(Counting {
                inner: reader,
                count,
            }),
            None => reader,
        };
        let size = usize::try_from(size).unwrap_or(0);
        // Room for the whole input when it is small enough to be read
        // whole, so that a document past the head is not copied again as
        // its buffer grows; room that is not read into is never touched.
        let room = if size <= WHOLE_AT_ONCE {
            size.max(8192)
        } else {
            HEAD_BYTES
        };
        let mut head = Vec::with_capacity(room + 1);
        (&mut rest).take(HEAD_BYTES as u64).read_to_end(&mut head)?;
        Ok(Opened {
            head: Cow::Owned(head),
            whole: None,
            size,
            rest,
            file,
        })
    }

    /// An open file: a file no larger than its head read whole at once (a
    /// read the size of the file and one that finds its end, not reads that
    /// double from 8 KiB and then a second look at its size), else its head
    /// and the rest to read.
    pub(super) fn of_file(file: File, counter: Option<Arc<AtomicU64>>) -> io::Result<Self> {
        let size = file.metadata().map_or(0, |m| m.len());
        if size == 0 || size > HEAD_BYTES as u64 {
            let reader: Box<dyn Read + 'a> = Box::new(file.try_clone()?);
            return Opened::of_reader(reader, Some(file), size, counter);
        }
        // Room for the file and the byte that finds its end; the standard
        // library reads a file into room for the size it says, and on to
        // its end if it grew.
        let mut head = Vec::with_capacity(size as usize + 1);
        (&file).read_to_end(&mut head)?;
        if let Some(count) = counter {
            count.fetch_add(head.len() as u64, Ordering::Relaxed);
        }
        Ok(Opened {
            head: Cow::Owned(head),
            whole: None,
            size: size as usize,
            rest: Box::new(io::empty()),
            file: Some(file),
        })
    }

    /// The whole input in memory (bytes the caller holds as they are),
    /// with room for it read at once.
    pub(super) fn read_all(self) -> io::Result<Cow<'a, [u8]>> {
        let Opened {
            head,
            whole,
            size,
            mut rest,
            ..
        } = self;
        if let Some(whole) = whole {
            return Ok(Cow::Borrowed(whole));
        }
        let mut bytes = head.into_owned();
        bytes.reserve(size.saturating_sub(bytes.len()) + 1);
        rest.read_to_end(&mut bytes)?;
        Ok(Cow::Owned(bytes))
    }

    /// The input as a buffered stream, its first bytes put back.
    pub(super) fn stream(self) -> BufReader<Restored<'a>> {
        BufReader::new(io::Cursor::new(self.head).chain(self.rest))
    }
}

/// The kind of an input: the one given, else the one its name and first
/// bytes tell ([`kind::detect_file`], [`kind::sniff`]), else HTML, then
/// guessed (nothing told it).
pub(super) fn kind_of(given: Option<Kind>, name: Option<&Path>, head: &[u8]) -> (Kind, bool) {
    if let Some(kind) = given {
        return (kind, false);
    }
    match name {
        Some(name) => {
            let kind = kind::detect_file(name, head);
            let guessed = kind == Kind::Html
                && kind::from_name(name).is_none()
                && kind::sniff(head).is_none();
            (kind, guessed)
        }
        None => {
            let sniffed = kind::sniff(head);
            (sniffed.unwrap_or(Kind::Html), sniffed.is_none())
        }
    }
}

/// Whether an input of `kind` starting with `head` is written back as
/// compressed bytes (a compressed input, rewritten inside gzip or left as
/// it is; a WACZ package, an EPUB book).
pub(super) fn writes_compressed(kind: Kind, head: &[u8]) -> bool {
    matches!(kind, Kind::Wacz | Kind::Epub) || crate::compressed::compression_of(head).is_some()
}

/// Whether a name says it is a web archive (`.warc`, `.arc`, in any part).
pub(super) fn named_archive(name: Option<&Path>) -> bool {
    name.is_some_and(|n| {
        let n = n.to_string_lossy().to_ascii_lowercase();
        n.contains(".warc") || n.contains(".arc")
    })
}
