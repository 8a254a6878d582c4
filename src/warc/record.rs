//! Reading the records of a web archive one at a time: WARC of any version
//! (ISO 28500; `WARC/0.17`, `0.18`, `1.0`, `1.1`) or ARC (versions 1 and
//! 2), from a plain file, a file of gzip members (one per record, as
//! crawlers write them, or several), or one gzip stream over the whole file.
//!
//! What the reader gives keeps the file's layout, so that what is written
//! back maps one to one onto what was read:
//!
//! - a gzip member small enough to hold comes whole ([`Item::Member`]),
//!   with its compressed bytes as they were read: an unchanged member is
//!   written back byte for byte;
//! - a larger member (one stream over a whole file) comes as
//!   [`Item::MemberStart`], its pieces, then [`Item::MemberEnd`];
//! - bytes that are no record (stray bytes between records, what a wrong
//!   `Content-Length` leaves behind, a head without end) come as [`Junk`]
//!   pieces of at most 1 MiB, copied as they are; the reader
//!   resynchronises on the next record line after them;
//! - a record whose block is not followed by a record boundary is marked
//!   bad ([`Record::bad`]): its links are read, its bytes copied. Its block
//!   is never searched for records: see [`Parser::check_end`] for the rule;
//! - a gzip member that cannot be read to its end (cut short, damaged)
//!   gives the records that decode, listed, then the member as it was read
//!   ([`Item::Unreadable`]).
//!
//! Every byte is read a bounded number of times, and what is held is
//! bounded by the record (outside records, 1 MiB of white space or junk
//! at a time, 2 MiB of a head without end).

use std::collections::VecDeque;
use std::io::{self, BufRead, BufReader, Read, Write};

use flate2::bufread::GzDecoder;

use super::WarcError;
use super::http;

/// The longest record head relink reads.
pub const MAX_HEAD_BYTES: usize = 1 << 20;

/// The most bytes of a gzip member held to be written back whole; a larger
/// member is streamed, record by record.
const MAX_MEMBER_HOLD: usize = 32 << 20;

/// The most bytes of junk held at a time; more is given in several pieces.
const MAX_JUNK_PIECE: usize = 1 << 20;

/// How a web archive is compressed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum Compression {
    /// Not compressed.
    #[default]
    None,
    /// Gzip members of one record each.
    Members,
    /// Gzip members of which at least one holds several records (one
    /// stream over the whole file is the common case).
    Stream,
}

/// The record format of a file, told by its first record.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Format {
    /// WARC: a version line and named header fields.
    #[default]
    Warc,
    /// ARC (Internet Archive, versions 1 and 2): one header line per record.
    Arc,
}

/// One record, read whole.
#[derive(Debug, Default)]
pub(crate) struct Record {
    /// Its number in the file, from 1.
    pub number: usize,
    /// Where it starts: in the file (plain), at its gzip member's start (a
    /// member held whole), or in the decompressed stream (a member
    /// streamed).
    pub offset: u64,
    /// WARC or ARC.
    pub format: Format,
    /// White space before its first line.
    pub lead: Vec<u8>,
    /// The version line and header fields, blank line included (WARC), or
    /// the header line (ARC).
    pub head: Vec<u8>,
    /// The content block, `Content-Length` bytes (fewer when the file ends
    /// inside it).
    pub block: Vec<u8>,
    /// The line ends after the block.
    pub trailer: Vec<u8>,
    /// Why the record cannot be rewritten (its length is wrong), if so.
    pub bad: Option<String>,
}

impl Record {
    /// How many bytes it holds.
    pub fn len(&self) -> usize {
        self.lead.len() + self.head.len() + self.block.len() + self.trailer.len()
    }

    /// Its bytes, in order.
    pub fn parts(&self) -> [&[u8]; 4] {
        [&self.lead, &self.head, &self.block, &self.trailer]
    }
}

/// What the payload code reads of a record: its number, head and block,
/// borrowed (an ARC record's head is the WARC head it would have).
#[derive(Debug, Clone, Copy)]
pub(crate) struct RecordView<'a> {
    pub number: usize,
    pub head: &'a [u8],
    pub block: &'a [u8],
}

impl Record {
    /// The record, borrowed for the payload code.
    pub fn view(&self) -> RecordView<'_> {
        RecordView {
            number: self.number,
            head: &self.head,
            block: &self.block,
        }
    }
}

/// Bytes that are no record, copied as they are.
#[derive(Debug)]
pub(crate) struct Junk {
    /// Where they start (as [`Record::offset`]).
    pub offset: u64,
    pub bytes: Vec<u8>,
    /// What to tell the user, when the bytes are more than white space and
    /// no bad record said it already.
    pub warning: Option<String>,
}

/// A record, or bytes between records.
#[derive(Debug)]
pub(crate) enum Piece {
    Record(Record),
    Junk(Junk),
}

impl Piece {
    fn len(&self) -> usize {
        match self {
            Piece::Record(record) => record.len(),
            Piece::Junk(junk) => junk.bytes.len(),
        }
    }
}

/// A gzip member held whole.
#[derive(Debug)]
pub(crate) struct Member {
    /// Its compressed bytes as read (when they were kept).
    pub bytes: Option<Vec<u8>>,
    /// What it holds, in order.
    pub pieces: Vec<Piece>,
}

/// A record whose block passes the size limit: its block is streamed
/// through, never held.
#[derive(Debug)]
pub(crate) struct LargeRecord {
    pub number: usize,
    /// Where it starts, as [`Record::offset`] says.
    pub offset: u64,
    pub format: Format,
    pub lead: Vec<u8>,
    pub head: Vec<u8>,
    pub length: u64,
    /// Whether it opens a gzip member that is copied as it was read (see
    /// [`RecordReader::copy_member_raw`]).
    pub raw_member: bool,
}

/// What the reader gives next.
#[derive(Debug)]
pub(crate) enum Item {
    /// A record or junk, outside any held member.
    Piece(Piece),
    /// A record too large to hold; its block must be taken with
    /// [`RecordReader::copy_block`] before the next item.
    Large(LargeRecord),
    /// A gzip member, held whole.
    Member(Member),
    /// A gzip member too large to hold begins; its pieces follow.
    MemberStart,
    /// A piece of a member copied as it was read: reported, never written
    /// itself; `compressed` are the member's bytes read up to now, written
    /// as they are, and `why` says why the record is not rewritten.
    RawPiece {
        piece: Piece,
        compressed: Vec<u8>,
        why: &'static str,
    },
    /// The end of a member copied as it was read: its compressed bytes not
    /// yet written.
    RawMemberEnd(Vec<u8>),
    /// The member that began ends: its compressed bytes as they were read
    /// (when they were kept whole), written instead of the member
    /// compressed again when nothing in it changed.
    MemberEnd(Option<Spool>),
    /// The gzip data at `offset` cannot be read; the rest of the input is
    /// taken with [`RecordReader::copy_rest`], after `held` (the member's
    /// compressed bytes read so far).
    Unreadable {
        offset: u64,
        held: Vec<u8>,
        reason: String,
    },
}

/// A `BufRead` that counts the bytes consumed and, when asked, keeps a copy
/// of them: the compressed bytes of the current gzip member.
struct Tee<R> {
    /// The input; none in a decoder kept for the next member.
    inner: Option<R>,
    taken: Vec<u8>,
    keep: bool,
    position: u64,
    /// Where the kept bytes go, a piece at a time, in a member too large to
    /// hold.
    spool: Option<Spool>,
}

/// Bytes held in memory up to a limit, then in a temporary file (removed
/// when the spool is dropped, or when the process ends): the compressed
/// bytes of a gzip member too large to hold, kept until it is known
/// whether anything in it changed.
#[derive(Debug, Default)]
pub(crate) struct Spool {
    memory: Vec<u8>,
    file: Option<std::fs::File>,
    /// Whether a write failed: the bytes are lost.
    lost: bool,
}

impl Spool {
    /// Adds `bytes`; past [`MAX_MEMBER_HOLD`] in memory they go to a
    /// temporary file. A failure to write marks the spool lost.
    pub fn push(&mut self, bytes: &[u8]) {
        if self.lost {
            return;
        }
        if self.file.is_none() && self.memory.len() + bytes.len() > MAX_MEMBER_HOLD {
            match tempfile::tempfile().and_then(|mut file| {
                file.write_all(&self.memory)?;
                Ok(file)
            }) {
                Ok(file) => {
                    self.file = Some(file);
                    self.memory = Vec::new();
                }
                Err(_) => self.lost = true,
            }
        }
        match &mut self.file {
            Some(file) => self.lost |= file.write_all(bytes).is_err(),
            None => self.memory.extend_from_slice(bytes),
        }
    }

    /// Whether every byte pushed is held.
    pub fn whole(&self) -> bool {
        !self.lost
    }

    /// Writes what it holds into `sink`.
    pub fn copy_to(self, sink: &mut dyn Write) -> io::Result<()> {
        use std::io::Seek;
        if self.lost {
            return Err(io::Error::other(
                "the bytes held of a gzip member were lost",
            ));
        }
        sink.write_all(&self.memory)?;
        if let Some(mut file) = self.file {
            file.seek(io::SeekFrom::Start(0))?;
            io::copy(&mut file, sink)?;
        }
        Ok(())
    }
}

impl Write for Spool {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.push(buf);
        if self.lost {
            return Err(io::Error::other("a temporary file could not be written"));
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// `Read::read` through a reader's own buffer, so that every byte read
/// goes through its `consume`.
fn read_buffered<B: BufRead>(reader: &mut B, buf: &mut [u8]) -> io::Result<usize> {
    let available = reader.fill_buf()?;
    let n = available.len().min(buf.len());
    buf[..n].copy_from_slice(&available[..n]);
    reader.consume(n);
    Ok(n)
}

impl<R: BufRead> Read for Tee<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        read_buffered(self, buf)
    }
}

impl<R> Tee<R> {
    fn new(inner: Option<R>, position: u64) -> Self {
        Tee {
            inner,
            taken: Vec::new(),
            keep: false,
            position,
            spool: None,
        }
    }
}

impl<R: BufRead> BufRead for Tee<R> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        match &mut self.inner {
            Some(inner) => inner.fill_buf(),
            None => Ok(&[]),
        }
    }

    fn consume(&mut self, n: usize) {
        let Some(inner) = &mut self.inner else {
            return;
        };
        if self.keep {
            // The buffer is already filled: this reads nothing.
            if let Ok(buffer) = inner.fill_buf() {
                self.taken.extend_from_slice(&buffer[..n.min(buffer.len())]);
            }
            if let Some(spool) = &mut self.spool
                && self.taken.len() >= MAX_JUNK_PIECE
            {
                spool.push(&self.taken);
                self.taken.clear();
            }
        }
        self.position += n as u64;
        inner.consume(n);
    }
}

/// A `BufRead` that bytes can be put back into, and that counts the bytes
/// consumed: the parser looks ahead a line at a time.
struct Pushback<R> {
    inner: R,
    back: Vec<u8>,
    at: usize,
    position: u64,
}

impl<R> Pushback<R> {
    fn new(inner: R) -> Self {
        Pushback {
            inner,
            back: Vec::new(),
            at: 0,
            position: 0,
        }
    }

    /// Puts `bytes` back in front of what is left to read.
    fn unread(&mut self, bytes: &[u8]) {
        if bytes.is_empty() {
            return;
        }
        self.position -= bytes.len() as u64;
        // Bytes just read from `back` go back in place: an unread costs
        // what it puts back, never what is left behind it.
        if self.at >= bytes.len() {
            self.at -= bytes.len();
            self.back[self.at..self.at + bytes.len()].copy_from_slice(bytes);
            return;
        }
        let mut back = Vec::with_capacity(bytes.len() + self.back.len() - self.at);
        back.extend_from_slice(bytes);
        back.extend_from_slice(&self.back[self.at..]);
        self.back = back;
        self.at = 0;
    }
}

impl<R: BufRead> Read for Pushback<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        read_buffered(self, buf)
    }
}

impl<R: BufRead> BufRead for Pushback<R> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        if self.at < self.back.len() {
            return Ok(&self.back[self.at..]);
        }
        self.inner.fill_buf()
    }

    fn consume(&mut self, n: usize) {
        self.position += n as u64;
        if self.at < self.back.len() {
            self.at += n;
            if self.at >= self.back.len() {
                self.back = Vec::new();
                self.at = 0;
            }
        } else {
            self.inner.consume(n);
        }
    }
}

/// A reader that ends at its first error and keeps it: a gzip member cut
/// short (the last record of a killed crawl) or damaged is read as far as
/// it decodes, as warcio reads it, its records listed; the member is then
/// given back as it was read ([`Item::Unreadable`]).
struct Fuse<R> {
    inner: R,
    error: Option<io::Error>,
}

impl<R: Read> Read for Fuse<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.error.is_some() {
            return Ok(0);
        }
        loop {
            match self.inner.read(buf) {
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => {
                    self.error = Some(e);
                    return Ok(0);
                }
                read => return read,
            }
        }
    }
}

type Member_<R> = Pushback<BufReader<Fuse<GzDecoder<Tee<R>>>>>;

/// The reader of the member before, its input taken back (a decoder and
/// its buffers, kept for the next member: a member of one record is not
/// worth a decoder made and its buffers cleared again).
type Spare<R> = Option<Box<Member_<R>>>;

/// The member being read, and what of it is held.
struct Open<R: BufRead> {
    /// The decoder (boxed: its inflate state is large).
    reader: Box<Member_<R>>,
    offset: u64,
    pieces: Vec<Piece>,
    size: usize,
    records: usize,
    /// Whether its pieces are given one at a time.
    streaming: bool,
    /// Whether its compressed bytes go out as they were read: the member of
    /// a record too large to hold, copied as it is.
    raw: bool,
}

enum Source<R: BufRead> {
    Plain(Pushback<R>),
    Gzip {
        member: Option<Open<R>>,
        /// The input between members.
        idle: Option<Tee<R>>,
        spare: Spare<R>,
    },
}

/// Reads the records of a web archive in order.
pub(crate) struct RecordReader<R: BufRead> {
    source: Source<R>,
    parser: Parser,
    keep_members: bool,
    queue: VecDeque<Item>,
    stream: bool,
    /// What is left of the block of a record that its gzip member cut
    /// short, and its number: warcio reads the block on into the members
    /// after, so what lies there is copied as it is.
    swallow: Option<(u64, usize)>,
    /// The most bytes of a member held whole ([`MAX_MEMBER_HOLD`]).
    hold: usize,
}

/// What parsing needs to know between records.
struct Parser {
    number: usize,
    large: u64,
    format: Option<Format>,
    /// A bad record said what follows it; its junk needs no warning.
    quiet_junk: bool,
    /// How many bytes of its block the last record missed, its input (a
    /// gzip member) ending inside it, and its number.
    cut: Option<(u64, usize)>,
    /// The rest of a record the last bad record's block ran into, found
    /// by [`Parser::spoiled`]: junk, given next.
    pending: Option<Junk>,
    /// How many bytes of such a record's block, past the size limit, are
    /// still to be given as junk (never held whole).
    skip: u64,
}

impl<R: BufRead> RecordReader<R> {
    /// A reader of `input`, plain or gzipped (told by its first bytes).
    /// Blocks longer than `large` are streamed; with `keep_members`, each
    /// gzip member's compressed bytes are kept for copying.
    pub fn new(mut input: R, large: u64, keep_members: bool) -> io::Result<Self> {
        let gzip = input
            .fill_buf()?
            .starts_with(&crate::compressed::GZIP_MAGIC);
        let source = if gzip {
            Source::Gzip {
                member: None,
                idle: Some(Tee::new(Some(input), 0)),
                spare: None,
            }
        } else {
            Source::Plain(Pushback::new(input))
        };
        Ok(RecordReader {
            source,
            parser: Parser {
                number: 0,
                large,
                format: None,
                quiet_junk: false,
                cut: None,
                pending: None,
                skip: 0,
            },
            keep_members,
            queue: VecDeque::new(),
            stream: false,
            swallow: None,
            hold: MAX_MEMBER_HOLD,
        })
    }

    /// How the input is compressed, as far as it has been read.
    pub fn compression(&self) -> Compression {
        match &self.source {
            Source::Plain(_) => Compression::None,
            Source::Gzip { .. } if self.stream => Compression::Stream,
            Source::Gzip { .. } => Compression::Members,
        }
    }

    /// The next item, or `None` at the end.
    pub fn next_item(&mut self) -> Result<Option<Item>, WarcError> {
        if let Some(item) = self.queue.pop_front() {
            return Ok(Some(item));
        }
        match &mut self.source {
            Source::Plain(input) => Ok(self.parser.next(input)?.map(|parsed| match parsed {
                Parsed::Piece(piece) => Item::Piece(piece),
                Parsed::Large(large) => Item::Large(large),
            })),
            Source::Gzip { .. } => self.next_gzip(),
        }
    }

    fn next_gzip(&mut self) -> Result<Option<Item>, WarcError> {
        let Source::Gzip {
            member,
            idle,
            spare,
        } = &mut self.source
        else {
            return Ok(None);
        };
        loop {
            if member.is_none() {
                match open_member(idle, spare, self.keep_members)? {
                    Some(open) => *member = Some(open),
                    None => return Ok(None),
                }
            }
            let Some(open) = member.as_mut() else {
                return Ok(None);
            };
            // The decoder's errors end the member (see [`Fuse`]); one from
            // the parser does the same.
            let parsed = match self.parser.next(&mut *open.reader) {
                Ok(parsed) => parsed,
                Err(WarcError::Io(err)) => {
                    open.fuse().error.get_or_insert(err);
                    None
                }
                Err(other) => return Err(other),
            };
            match parsed {
                None => {
                    let Some(open) = member.take() else {
                        return Ok(None);
                    };
                    self.stream |= open.records > 1;
                    // Damage is named by the last record read (from 1).
                    let number = self.parser.number.max(1);
                    let ends = (self.keep_members, number);
                    return end_member(open, (idle, spare), ends, &mut self.queue);
                }
                Some(Parsed::Piece(mut piece)) => {
                    open.records += usize::from(matches!(piece, Piece::Record(_)));
                    swallowed(&mut self.swallow, &mut piece);
                    if let Some(cut) = self.parser.cut.take() {
                        self.swallow = Some(cut);
                    }
                    if open.raw {
                        // The member's compressed bytes go out as they
                        // are read, never held whole.
                        let compressed = std::mem::take(&mut open.tee().taken);
                        return Ok(Some(Item::RawPiece {
                            piece,
                            compressed,
                            why: SHARES_A_LARGE_MEMBER,
                        }));
                    }
                    if open.streaming {
                        return Ok(Some(Item::Piece(piece)));
                    }
                    // Inside a member held whole, a piece is found by the
                    // member's offset in the file (as warcio reports it).
                    match &mut piece {
                        Piece::Record(record) => record.offset = open.offset,
                        Piece::Junk(junk) => junk.offset = open.offset,
                    }
                    open.size += piece.len();
                    open.pieces.push(piece);
                    if open.size > self.hold {
                        self.queue.extend(start_streaming(open));
                        return Ok(self.queue.pop_front());
                    }
                }
                Some(Parsed::Large(mut large)) => {
                    open.records += 1;
                    if !open.streaming && open.pieces.is_empty() {
                        // First in its member: found by the member's
                        // offset, whether the member is kept or not.
                        large.offset = open.offset;
                    }
                    // A member copied as it was read stays so, whatever
                    // else it holds: a second large record in it is copied
                    // raw too, never written out of its member.
                    let first = self.keep_members && !open.streaming && open.pieces.is_empty();
                    if open.raw || first {
                        // The member is copied as it was read, its block
                        // inflated only to find where it ends.
                        open.raw = true;
                        large.raw_member = true;
                        return Ok(Some(Item::Large(large)));
                    }
                    if !open.streaming {
                        self.queue.extend(start_streaming(open));
                    }
                    self.queue.push_back(Item::Large(large));
                    return Ok(self.queue.pop_front());
                }
            }
        }
    }

    /// Streams a large record's block into `sink`, then reads the line ends
    /// after it and returns them.
    pub fn copy_block(
        &mut self,
        record: &LargeRecord,
        sink: &mut dyn Write,
    ) -> Result<Copied, WarcError> {
        let parser = &mut self.parser;
        match &mut self.source {
            Source::Plain(input) => parser.copy_block(input, record, sink),
            Source::Gzip { member, .. } => match member.as_mut() {
                Some(open) => parser.copy_block(&mut open.reader, record, sink),
                None => Ok(Copied::default()),
            },
        }
    }

    /// Reads through a large record's block and the line ends after it,
    /// writing its gzip member's compressed bytes, as they were read, into
    /// `sink` as they go by (memory bounded by a chunk): the record is copied
    /// as it is, its member byte for byte. What follows in the member comes
    /// as [`Item::RawPiece`]s and [`Item::RawMemberEnd`]. How many bytes of
    /// the block there were (fewer than its length when the member ends
    /// first), and whether a record boundary follows it.
    pub fn copy_member_raw(
        &mut self,
        record: &LargeRecord,
        sink: &mut dyn Write,
    ) -> Result<Copied, WarcError> {
        let Source::Gzip {
            member: Some(open), ..
        } = &mut self.source
        else {
            return Ok(Copied::default());
        };
        let mut tail = Vec::new();
        let mut start = BlockStart::new(self.parser.large);
        let mut chunk = vec![0u8; 1 << 16];
        let mut left = record.length;
        while left > 0 {
            let want = chunk.len().min(usize::try_from(left).unwrap_or(usize::MAX));
            let n = open.reader.read(&mut chunk[..want])?;
            if n == 0 {
                break;
            }
            left -= n as u64;
            keep_tail(&mut tail, &chunk[..n]);
            start.push(&chunk[..n]);
            sink.write_all(&std::mem::take(&mut open.tee().taken))?;
        }
        let mut bad = false;
        if left == 0 {
            let trailer = self.parser.end_of_large(&mut open.reader, record, &tail)?;
            bad = trailer.is_none();
        }
        sink.write_all(&std::mem::take(&mut open.tee().taken))?;
        Ok(Copied {
            block: record.length - left,
            trailer: Vec::new(),
            bad,
            held: start.bytes.filter(|_| left > 0),
        })
    }

    /// Copies the rest of the input, as it is, into `sink` (after an
    /// [`Item::Unreadable`]).
    pub fn copy_rest(&mut self, sink: &mut dyn Write) -> io::Result<u64> {
        match &mut self.source {
            Source::Plain(input) => io::copy(input, sink),
            Source::Gzip { member, idle, .. } => {
                *member = None;
                match idle.as_mut() {
                    Some(tee) => {
                        tee.keep = false;
                        io::copy(tee, sink)
                    }
                    None => Ok(0),
                }
            }
        }
    }
}

/// What [`RecordReader::copy_block`] copied of a large block: how many
/// bytes (fewer than its length when the input ends first, as warcio reads
/// such a block: up to the end), the line ends after it, and whether what
/// follows is no record boundary (its length is wrong: what follows is
/// read as after a bad record, see [`Parser::check_end`]).
#[derive(Debug, Default)]
pub(crate) struct Copied {
    pub block: u64,
    pub trailer: Vec<u8>,
    pub bad: bool,
    /// The block's bytes, when the input ended inside it and they were at
    /// most [`MAX_CUT_HOLD`] and the size limit: the record is then read as
    /// a record cut short is, its links listed.
    pub held: Option<Vec<u8>>,
}

/// The most bytes of a large record's block kept as it streams by, so that
/// a block the input ends inside (a length of 10^15, a file cut short) is
/// read for links; a longer one is only copied.
const MAX_CUT_HOLD: usize = MAX_MEMBER_HOLD;

/// The first bytes of a block streamed through, while there are at most
/// `cap` of them.
struct BlockStart {
    bytes: Option<Vec<u8>>,
    cap: usize,
}

impl BlockStart {
    fn new(large: u64) -> Self {
        BlockStart {
            bytes: Some(Vec::new()),
            cap: usize::try_from(large)
                .unwrap_or(usize::MAX)
                .min(MAX_CUT_HOLD),
        }
    }

    fn push(&mut self, more: &[u8]) {
        if let Some(bytes) = &mut self.bytes {
            if bytes.len() + more.len() > self.cap {
                self.bytes = None;
            } else {
                bytes.extend_from_slice(more);
            }
        }
    }
}

/// The last bytes of a block streamed through, which [`Parser::spoiled`]
/// looks at: at least [`MAX_HEAD_BYTES`] of them, at most twice that.
fn keep_tail(tail: &mut Vec<u8>, bytes: &[u8]) {
    tail.extend_from_slice(bytes);
    if tail.len() > 2 * MAX_HEAD_BYTES {
        tail.drain(..tail.len() - MAX_HEAD_BYTES);
    }
}

/// A sink that keeps the tail of what goes through it, and its start
/// while it is short.
struct TailWriter<'a> {
    sink: &'a mut dyn Write,
    tail: Vec<u8>,
    start: BlockStart,
}

impl Write for TailWriter<'_> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = self.sink.write(buf)?;
        keep_tail(&mut self.tail, &buf[..n]);
        self.start.push(&buf[..n]);
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.sink.flush()
    }
}

impl<R: BufRead> Open<R> {
    fn fuse(&mut self) -> &mut Fuse<GzDecoder<Tee<R>>> {
        self.reader.inner.get_mut()
    }

    fn tee(&mut self) -> &mut Tee<R> {
        self.fuse().inner.get_mut()
    }
}

/// A piece that lies in the block of a record its gzip member cut short
/// (`swallow`: the bytes of that block still to come, and its number), as
/// warcio reads the block on into the next members: a record there is
/// marked bad, listed and copied as it is, never rewritten, so that warcio
/// reads the output as it read the input.
fn swallowed(swallow: &mut Option<(u64, usize)>, piece: &mut Piece) {
    let Some((left, number)) = *swallow else {
        return;
    };
    let len = piece.len() as u64;
    if let Piece::Record(record) = piece
        && record.bad.is_none()
    {
        record.bad = Some(format!(
            "it lies in the block of record {number}, which runs on past its gzip member, \
             as warcio reads it"
        ));
    }
    *swallow = (left > len).then(|| (left - len, number));
}

/// The next gzip member of the input, its compressed bytes kept when
/// `keep` asks; `None` at the end of the input.
fn open_member<R: BufRead>(
    idle: &mut Option<Tee<R>>,
    spare: &mut Spare<R>,
    keep: bool,
) -> io::Result<Option<Open<R>>> {
    let Some(mut tee) = idle.take() else {
        return Ok(None);
    };
    if tee.fill_buf()?.is_empty() {
        *idle = Some(tee);
        return Ok(None);
    }
    tee.taken.clear();
    tee.keep = keep;
    let offset = tee.position;
    let reader = match spare.take() {
        // Emptied, and its decoder reset over the input.
        Some(mut reader) => {
            reader.back.clear();
            (reader.at, reader.position) = (0, 0);
            let buffered = reader.inner.buffer().len();
            reader.inner.consume(buffered);
            let fuse = reader.inner.get_mut();
            fuse.error = None;
            fuse.inner.reset(tee);
            reader
        }
        None => Box::new(Pushback::new(BufReader::with_capacity(
            64 << 10,
            Fuse {
                inner: GzDecoder::new(tee),
                error: None,
            },
        ))),
    };
    Ok(Some(Open {
        reader,
        offset,
        pieces: Vec::new(),
        size: 0,
        records: 0,
        streaming: false,
        raw: false,
    }))
}

/// The pieces held of a member, given one at a time from now on; its
/// compressed bytes, when kept, go on into a [`Spool`].
fn start_streaming<R: BufRead>(open: &mut Open<R>) -> Vec<Item> {
    open.streaming = true;
    let tee = open.tee();
    if tee.keep {
        let mut spool = Spool::default();
        spool.push(&std::mem::take(&mut tee.taken));
        tee.spool = Some(spool);
    }
    let mut items = vec![Item::MemberStart];
    items.extend(open.pieces.drain(..).map(Item::Piece));
    items
}

/// Why a record of a member copied as it was read is not rewritten.
pub(crate) const SHARES_A_LARGE_MEMBER: &str =
    "its gzip member holds a record too large to rewrite";
/// See [`SHARES_A_LARGE_MEMBER`].
const IN_AN_UNREADABLE_MEMBER: &str = "its gzip member cannot be read to its end";

/// The end of the member being read: the member, or its end, as
/// [`next_gzip`](RecordReader::next_gzip) gives it; the input goes back to
/// `idle`, between members.
///
/// When the member's gzip data could not be read to its end (cut short, or
/// damaged), the records read from it are listed as warcio reads them (the
/// last one cut short), and the member is given back as it was read, with
/// the rest of the input ([`Item::Unreadable`]). A member already streamed
/// out, compressed again, cannot be given back: cut short, the new member
/// ends where the input did (it holds what warcio reads); damaged, that is
/// an error.
fn end_member<R: BufRead>(
    mut open: Open<R>,
    (idle, spare): (&mut Option<Tee<R>>, &mut Spare<R>),
    (writing, number): (bool, usize),
    queue: &mut VecDeque<Item>,
) -> Result<Option<Item>, WarcError> {
    let error = open.fuse().error.take();
    let offset = open.offset;
    let Tee {
        inner,
        mut taken,
        position,
        spool,
        ..
    } = open.fuse().inner.reset(Tee::new(None, 0));
    *spare = Some(open.reader);
    *idle = Some(Tee::new(inner, position));
    let original = spool.map(|mut spool| {
        spool.push(&std::mem::take(&mut taken));
        spool
    });
    let Some(error) = error else {
        queue.push_back(if open.raw {
            Item::RawMemberEnd(taken)
        } else if open.streaming {
            Item::MemberEnd(original)
        } else {
            Item::Member(Member {
                bytes: writing.then_some(taken),
                pieces: open.pieces,
            })
        });
        return Ok(queue.pop_front());
    };
    if open.streaming {
        if writing && error.kind() != io::ErrorKind::UnexpectedEof {
            return Err(WarcError::Malformed {
                record: number,
                reason: format!("gzip data at offset {offset} cannot be read ({error})"),
            });
        }
        // Cut short: the member as it was read, when nothing in it
        // changed; what follows is copied after it.
        queue.push_back(Item::MemberEnd(original));
    }
    queue.extend(open.pieces.into_iter().map(|piece| Item::RawPiece {
        piece,
        compressed: Vec::new(),
        why: IN_AN_UNREADABLE_MEMBER,
    }));
    queue.push_back(Item::Unreadable {
        offset,
        held: taken,
        reason: error.to_string(),
    });
    Ok(queue.pop_front())
}

/// What the parser found.
enum Parsed {
    Piece(Piece),
    Large(LargeRecord),
}

/// Whether a line starts a WARC record: `WARC/` and a version number.
fn is_warc_line(line: &[u8]) -> bool {
    line.starts_with(b"WARC/") && line.get(5).is_some_and(u8::is_ascii_digit)
}

/// The fields of an ARC header line (`URL IP-address Archive-date
/// Content-type Archive-length`, and in version 2 five more before the
/// length), if the line is one: at least five fields, the first a URL with
/// a scheme, the last a length (warcio takes a bad one as 0).
fn arc_fields(line: &[u8]) -> Option<Vec<&[u8]>> {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    let fields: Vec<&[u8]> = line
        .split(|&b| b == b' ')
        .filter(|f| !f.is_empty())
        .collect();
    let url = fields.first()?;
    let scheme = url.iter().position(|&b| b == b':')?;
    let scheme_ok = scheme > 0
        && url[..scheme]
            .iter()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'-' | b'.'));
    (fields.len() >= 5 && scheme_ok).then_some(fields)
}

/// An ARC header line's length: its last field.
pub(crate) fn arc_length(head: &[u8]) -> Option<u64> {
    let fields = arc_fields(head)?;
    std::str::from_utf8(fields.last()?).ok()?.parse().ok()
}

impl Parser {
    fn starts_record(&self, line: &[u8]) -> bool {
        match self.format {
            Some(Format::Warc) => is_warc_line(line),
            Some(Format::Arc) => arc_fields(line).is_some(),
            None => is_warc_line(line) || line.starts_with(b"filedesc://"),
        }
    }

    /// The next piece of `input`, or `None` at its end.
    fn next<B: BufRead>(&mut self, input: &mut Pushback<B>) -> Result<Option<Parsed>, WarcError> {
        if let Some(junk) = self.pending.take() {
            return Ok(Some(Parsed::Piece(Piece::Junk(junk))));
        }
        if self.skip > 0 {
            let offset = input.position;
            let mut bytes = Vec::new();
            let want = self.skip.min(MAX_JUNK_PIECE as u64);
            input.take(want).read_to_end(&mut bytes)?;
            self.skip = if bytes.is_empty() {
                0
            } else {
                self.skip - bytes.len() as u64
            };
            if !bytes.is_empty() {
                return Ok(Some(Parsed::Piece(Piece::Junk(Junk {
                    offset,
                    bytes,
                    warning: None,
                }))));
            }
        }
        let offset = input.position;
        let lead = read_white_space(input, MAX_JUNK_PIECE)?;
        // A long run of white space is given in pieces, never held whole.
        if lead.len() >= MAX_JUNK_PIECE || input.fill_buf()?.is_empty() {
            return Ok((!lead.is_empty()).then_some({
                Parsed::Piece(Piece::Junk(Junk {
                    offset,
                    bytes: lead,
                    warning: None,
                }))
            }));
        }
        let mut first = Vec::new();
        read_line(input, &mut first, MAX_HEAD_BYTES)?;
        // A byte order mark or NUL bytes before a record line (as detection
        // looks past them): junk of their own, and the record is read.
        let skip = junk_before_record(&first);
        if skip > 0 && self.starts_record(&first[skip..]) {
            input.unread(&first[skip..]);
            let mut bytes = lead;
            bytes.extend_from_slice(&first[..skip]);
            return Ok(Some(Parsed::Piece(Piece::Junk(Junk {
                offset,
                bytes,
                warning: Some(
                    "a byte order mark or NUL bytes before a record; copied as they are".to_owned(),
                ),
            }))));
        }
        if !self.starts_record(&first) {
            input.unread(&first);
            input.unread(&lead);
            return self.junk(input).map(Some);
        }
        self.quiet_junk = false;
        if self.format.is_none() {
            self.format = Some(if is_warc_line(&first) {
                Format::Warc
            } else {
                Format::Arc
            });
        }
        let record_offset = offset + lead.len() as u64;
        let number = self.number + 1;
        let (head, length) = match self.format {
            Some(Format::Arc) => {
                let length = arc_length(&first);
                (first, length.ok_or("bad Archive-length"))
            }
            _ => match read_warc_head(input, first)? {
                Ok(head) => {
                    let length = http::field(&head, "Content-Length")
                        .and_then(|v| v.parse::<u64>().ok())
                        .ok_or("no valid Content-Length");
                    (head, length)
                }
                Err((head, reason)) => {
                    // A head cut off by the end, or without end: junk, all
                    // of it, never read again. No record line inside it
                    // can start a record: the input ends before its head
                    // does too (or, past 1 MiB of lines, it is no head
                    // relink reads).
                    return Ok(Some(Parsed::Piece(Piece::Junk(Junk {
                        offset,
                        bytes: [lead, head].concat(),
                        warning: Some(format!("{reason}; copied as it is")),
                    }))));
                }
            },
        };
        self.number = number;
        self.record(input, (lead, head), length, record_offset)
            .map(Some)
    }

    /// The record of `head` (after white space `lead`), its block read
    /// (held, or streamed when past the size limit) by its `length`.
    fn record<B: BufRead>(
        &mut self,
        input: &mut Pushback<B>,
        (lead, head): (Vec<u8>, Vec<u8>),
        length: Result<u64, &str>,
        record_offset: u64,
    ) -> Result<Parsed, WarcError> {
        let number = self.number;
        let (length, bad_length) = match length {
            Ok(length) => (length, None),
            // ARC records with a bad length are read as empty, as warcio
            // reads them; a WARC record without one is read the same way,
            // and what follows it is junk up to the next record.
            Err(why) => {
                self.quiet_junk = true;
                (0, Some(why.to_owned()))
            }
        };
        if length > self.large && bad_length.is_none() {
            return Ok(Parsed::Large(LargeRecord {
                number,
                offset: record_offset,
                format: self.format.unwrap_or_default(),
                lead,
                head,
                length,
                raw_member: false,
            }));
        }
        let mut block = Vec::new();
        read_onto(input, length, &mut block)?;
        let mut record = Record {
            number,
            offset: record_offset,
            format: self.format.unwrap_or_default(),
            lead,
            head,
            block,
            trailer: Vec::new(),
            bad: bad_length,
        };
        if (record.block.len() as u64) < length {
            self.cut = Some((length - record.block.len() as u64, number));
            record.bad = Some(format!(
                "the input ends {} bytes into its block of {length}",
                record.block.len()
            ));
            return Ok(Parsed::Piece(Piece::Record(record)));
        }
        record.trailer = read_line_ends(input)?;
        self.check_end(input, &mut record)?;
        Ok(Parsed::Piece(Piece::Record(record)))
    }

    /// Marks a record bad when what follows its block is no record
    /// boundary.
    ///
    /// The framing rule: `Content-Length` is the truth whenever what follows
    /// the block is a record boundary: the line ends that close a record
    /// (CRLF CRLF for WARC, a line end for ARC), or a record line, or the
    /// end of the input. What comes next is then read as it comes (the next
    /// record, or stray bytes copied as junk). When it is no boundary (a
    /// length a few bytes short or too long, a single CRLF and a stray
    /// line), the record is marked bad (listed, copied byte for byte, never
    /// rewritten) and the next record line is searched for after its block,
    /// never inside it: a block may quote record text (a WARC served as
    /// text, a page that shows a record), and a length that runs into
    /// later records takes them into its block, copied with it. warcio
    /// reads the same bytes so: it takes `Content-Length` bytes whatever
    /// they hold, skips the line after them (with a warning when it is not
    /// blank) and blank lines, and stops with an error when the next line
    /// is no record line; relink goes on at the next record line instead,
    /// copying what lies between; when the block ran into the next record,
    /// spoiling its head, that record is stepped over whole by its own
    /// length ([`Parser::spoiled`]). Every byte is read a bounded number of
    /// times: a block is never read again.
    fn check_end<B: BufRead>(
        &mut self,
        input: &mut Pushback<B>,
        record: &mut Record,
    ) -> Result<(), WarcError> {
        if record.bad.is_some() {
            return Ok(());
        }
        if self.boundary(input, record.format, &record.trailer)? {
            return Ok(());
        }
        record.bad = Some(
            "what follows its block is no record boundary: its length is wrong, or stray \
             bytes follow (the bytes up to the next record follow it)"
                .to_owned(),
        );
        self.quiet_junk = true;
        // The line ends after a block that is not the record's end are the
        // start of what follows it.
        input.unread(&std::mem::take(&mut record.trailer));
        if record.format == Format::Warc {
            self.spoiled(input, &record.block)?;
        }
        Ok(())
    }

    /// Whether what follows a block and its line ends `trailer` is a record
    /// boundary: the blank lines that close a record (CRLF CRLF for WARC, a
    /// line end for ARC), a record line, or the end of the input.
    fn boundary<B: BufRead>(
        &self,
        input: &mut Pushback<B>,
        format: Format,
        trailer: &[u8],
    ) -> Result<bool, WarcError> {
        // A block followed by its blank lines was read right: what follows
        // is the next record, or stray bytes, junk of their own.
        let closed = [&b"\r\n\r\n"[..], b"\n\n", b"\r\n\n"];
        let closed = match format {
            Format::Warc => closed.iter().any(|end| trailer.starts_with(end)),
            Format::Arc => !trailer.is_empty(),
        };
        if closed {
            return Ok(true);
        }
        // A WARC record line is told by its first bytes; an ARC header
        // line needs all of its fields. White space, NUL bytes or a byte
        // order mark may come before it (warcio strips the line).
        let limit = match format {
            Format::Warc => 64,
            Format::Arc => MAX_HEAD_BYTES,
        };
        let white = read_white_space(input, MAX_JUNK_PIECE)?;
        let mut next = Vec::new();
        read_line(input, &mut next, limit)?;
        input.unread(&next);
        input.unread(&white);
        Ok(next.is_empty() || self.starts_record(&next[junk_before_record(&next)..]))
    }

    /// The rest of the record whose head a bad record's `block` ran into,
    /// up to where its own `Content-Length` says it ends: junk, copied as
    /// it is ([`Parser::pending`]), so that the record text its block may
    /// quote is never read as records, even when no record boundary
    /// follows there (its length is wrong too: what follows is then read
    /// as after a bad record). Nothing is read when there is no such
    /// record; reading then goes on at the next record line.
    ///
    /// The head is found where the damage left it: a record line in the
    /// block whose head runs on past the block (completed by the lines
    /// after it, up to the blank line), or whose head is whole in the block
    /// and whose block runs on past it; else the lines after the block, up
    /// to a blank line, when they hold a `Content-Length` (the block ended
    /// inside a head, after its record line). What is read is held (at most
    /// a head and a block within the size limit); the line ends after it
    /// are given back when no boundary follows: each byte is read at most
    /// twice. A block past the size limit is given as junk in pieces
    /// ([`Parser::skip`]), its end not checked, as a record's past the
    /// limit is not.
    fn spoiled<B: BufRead>(
        &mut self,
        input: &mut Pushback<B>,
        block: &[u8],
    ) -> Result<(), WarcError> {
        let offset = input.position;
        let mut taken = Vec::new();
        let left = match spoiled_in_block(block) {
            Some(Spoiled::Past(left)) => Some(left),
            Some(Spoiled::Head(at)) => {
                let tail = &block[at..];
                self.rest_of_head(input, tail, tail.ends_with(b"\n"), &mut taken)?
            }
            None => self.rest_of_head(input, &[], block.ends_with(b"\n"), &mut taken)?,
        };
        let junk = |bytes| Junk {
            offset,
            bytes,
            warning: None,
        };
        let Some(left) = left else {
            input.unread(&taken);
            return Ok(());
        };
        if left > self.large {
            self.skip = left;
            self.pending = (!taken.is_empty()).then(|| junk(taken));
            return Ok(());
        }
        let before = taken.len();
        input.take(left).read_to_end(&mut taken)?;
        let whole = (taken.len() - before) as u64 == left;
        let end = taken.len();
        if whole {
            taken.extend_from_slice(&read_line_ends(input)?);
        }
        // A block that runs to the end of the input ends at a boundary;
        // with none where it ends, the line ends after it are read again
        // as what follows a bad record.
        if whole && !self.boundary(input, Format::Warc, &taken[end..])? {
            input.unread(&taken[end..]);
            taken.truncate(end);
        }
        self.pending = Some(junk(taken));
        Ok(())
    }

    /// Reads the lines that complete a head begun by `tail` onto `taken`,
    /// up to its blank line, and gives its `Content-Length`; `None` when
    /// there is none, the input ends first, a record line comes first or
    /// the head runs past [`MAX_HEAD_BYTES`]. `at_line_start` says whether
    /// the first line read is a whole line (else it ends one begun before,
    /// and is never taken for the blank line).
    fn rest_of_head<B: BufRead>(
        &self,
        input: &mut Pushback<B>,
        tail: &[u8],
        mut at_line_start: bool,
        taken: &mut Vec<u8>,
    ) -> Result<Option<u64>, WarcError> {
        loop {
            let before = taken.len();
            if read_line(input, taken, MAX_HEAD_BYTES)? == 0 || taken.len() > MAX_HEAD_BYTES {
                return Ok(None);
            }
            let line = &taken[before..];
            if at_line_start && line.iter().all(|&b| b == b'\r' || b == b'\n') {
                break;
            }
            if at_line_start && self.starts_record(line) {
                return Ok(None);
            }
            at_line_start = line.ends_with(b"\n");
        }
        let head = [tail, &taken[..]].concat();
        Ok(http::field(&head, "Content-Length").and_then(|v| v.parse().ok()))
    }

    /// Streams up to a large record's length of its block into `sink`,
    /// then reads the line ends after it (when the block was whole), as
    /// [`Parser::end_of_large`] says.
    fn copy_block<B: BufRead>(
        &mut self,
        input: &mut Pushback<B>,
        record: &LargeRecord,
        sink: &mut dyn Write,
    ) -> Result<Copied, WarcError> {
        let mut tail = TailWriter {
            sink,
            tail: Vec::new(),
            start: BlockStart::new(self.large),
        };
        let block = io::copy(&mut input.take(record.length), &mut tail)?;
        if block < record.length {
            return Ok(Copied {
                block,
                held: tail.start.bytes,
                ..Copied::default()
            });
        }
        let trailer = self.end_of_large(input, record, &tail.tail)?;
        Ok(Copied {
            block,
            bad: trailer.is_none(),
            trailer: trailer.unwrap_or_default(),
            held: None,
        })
    }

    /// After the block of a record too large to hold (`tail`, its last
    /// bytes): the line ends that close it, or `None` when what follows is
    /// no record boundary. Reading then goes on as after a bad record
    /// ([`Parser::check_end`]), its line ends left to what follows.
    fn end_of_large<B: BufRead>(
        &mut self,
        input: &mut Pushback<B>,
        record: &LargeRecord,
        tail: &[u8],
    ) -> Result<Option<Vec<u8>>, WarcError> {
        let trailer = read_line_ends(input)?;
        if self.boundary(input, record.format, &trailer)? {
            return Ok(Some(trailer));
        }
        input.unread(&trailer);
        self.quiet_junk = true;
        if record.format == Format::Warc {
            self.spoiled(input, tail)?;
        }
        Ok(None)
    }

    /// Bytes up to the next record line (or the end).
    fn junk<B: BufRead>(&mut self, input: &mut Pushback<B>) -> Result<Parsed, WarcError> {
        let quiet = std::mem::take(&mut self.quiet_junk);
        let warning = (!quiet).then(|| "bytes that are no record; copied as they are".to_owned());
        self.junk_with(input, warning)
    }

    fn junk_with<B: BufRead>(
        &mut self,
        input: &mut Pushback<B>,
        warning: Option<String>,
    ) -> Result<Parsed, WarcError> {
        let offset = input.position;
        let mut bytes = Vec::new();
        let mut first = true;
        loop {
            let before = bytes.len();
            let n = read_line(input, &mut bytes, MAX_JUNK_PIECE)?;
            if n == 0 {
                break;
            }
            let line = &bytes[before..];
            let trimmed = &line[junk_before_record(line)..];
            // The first line is junk whatever it says: that is why it is
            // read here.
            if !first && self.starts_record(trimmed) {
                let keep = before + (line.len() - trimmed.len());
                input.unread(&bytes[keep..]);
                bytes.truncate(keep);
                break;
            }
            first = false;
            if bytes.len() >= MAX_JUNK_PIECE {
                break;
            }
        }
        let white = bytes.iter().all(u8::is_ascii_whitespace);
        Ok(Parsed::Piece(Piece::Junk(Junk {
            offset,
            warning: warning.filter(|_| !white),
            bytes,
        })))
    }
}

/// Where a bad record's block ran into the next record (see
/// [`Parser::spoiled`]).
enum Spoiled {
    /// Into its head, which begins at this offset in the block.
    Head(usize),
    /// Into its block, of which this many bytes lie after the bad block.
    Past(u64),
}

/// The first record line of `block` whose head runs on past the block, or
/// whose block does; the lines inside a head are not looked at, so each
/// byte is read once.
fn spoiled_in_block(block: &[u8]) -> Option<Spoiled> {
    let mut at = 0;
    while at < block.len() {
        let rest = &block[at..];
        if is_warc_line(rest) {
            let Some(head) = http::head_len(rest) else {
                return Some(Spoiled::Head(at));
            };
            let length =
                http::field(&rest[..head], "Content-Length").and_then(|v| v.parse::<u64>().ok());
            let end = length.map(|length| ((at + head) as u64).saturating_add(length));
            if let Some(end) = end.filter(|&end| end > block.len() as u64) {
                return Some(Spoiled::Past(end - block.len() as u64));
            }
            at += head;
            continue;
        }
        at += memchr::memchr(b'\n', rest).map_or(rest.len(), |i| i + 1);
    }
    None
}

/// What was read of a head that is none, and why.
type NoHead = (Vec<u8>, &'static str);

/// The rest of a WARC head after its `first` line, up to its blank line;
/// or what was read, and why it is no head (the input ends inside it, or it
/// runs past [`MAX_HEAD_BYTES`]).
fn read_warc_head<B: BufRead>(
    input: &mut Pushback<B>,
    first: Vec<u8>,
) -> Result<Result<Vec<u8>, NoHead>, WarcError> {
    let mut head = first;
    loop {
        let before = head.len();
        let n = read_line(input, &mut head, MAX_HEAD_BYTES)?;
        if n == 0 {
            return Ok(Err((head, "the input ends inside a record head")));
        }
        if head.len() > MAX_HEAD_BYTES {
            return Ok(Err((head, "a record head runs past 1 MiB")));
        }
        if head[before..].iter().all(|&b| b == b'\r' || b == b'\n') {
            return Ok(Ok(head));
        }
    }
}

/// Reads up to `length` bytes onto `out`, through the reader's own buffer
/// (never a zeroed one between, as `read_to_end` would use): fewer only
/// when the input ends first. Room for all of them is made once a first
/// MiB has come (a length that lies costs no more than the bytes there).
fn read_onto<B: BufRead + ?Sized>(input: &mut B, length: u64, out: &mut Vec<u8>) -> io::Result<()> {
    let cap = |n: u64| usize::try_from(n).unwrap_or(usize::MAX);
    out.reserve(cap(length.min(1 << 20)));
    let mut left = length;
    while left > 0 {
        let buffer = match input.fill_buf() {
            Ok(buffer) => buffer,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if buffer.is_empty() {
            break;
        }
        let n = buffer.len().min(cap(left));
        if out.len() + n > out.capacity() {
            out.reserve(cap(left));
        }
        out.extend_from_slice(&buffer[..n]);
        input.consume(n);
        left -= n as u64;
    }
    Ok(())
}

/// Reads one line (up to `limit` bytes) onto `out`; how many bytes it read.
fn read_line<B: BufRead + ?Sized>(
    input: &mut B,
    out: &mut Vec<u8>,
    limit: usize,
) -> io::Result<usize> {
    input.take(limit as u64 + 1).read_until(b'\n', out)
}

/// The bytes at the reader's position that `keep` accepts, up to `limit`.
fn read_while<B: BufRead + ?Sized>(
    input: &mut B,
    limit: usize,
    keep: impl Fn(u8) -> bool,
) -> Result<Vec<u8>, WarcError> {
    let mut out = Vec::new();
    loop {
        let buffer = input.fill_buf()?;
        let room = limit - out.len();
        let n = buffer.iter().take(room).take_while(|&&b| keep(b)).count();
        if n == 0 {
            return Ok(out);
        }
        out.extend_from_slice(&buffer[..n]);
        input.consume(n);
    }
}

/// The line ends at the reader's position (the record's closing CRLF CRLF,
/// and any stray ones after it, up to [`MAX_JUNK_PIECE`] bytes: more are
/// junk of their own).
fn read_line_ends<B: BufRead + ?Sized>(input: &mut B) -> Result<Vec<u8>, WarcError> {
    read_while(input, MAX_JUNK_PIECE, |b| b == b'\r' || b == b'\n')
}

/// How many bytes at the start of `line` are byte order marks, NUL bytes
/// and white space, which detection looks past before a record line.
fn junk_before_record(line: &[u8]) -> usize {
    let mut rest = line;
    loop {
        let before = rest.len();
        rest = rest.trim_ascii_start();
        for mark in [&b"\xef\xbb\xbf"[..], b"\xfe\xff", b"\xff\xfe"] {
            rest = rest.strip_prefix(mark).unwrap_or(rest);
        }
        let nul = rest.iter().take_while(|&&b| b == 0).count();
        rest = &rest[nul..];
        if rest.len() == before {
            return line.len() - rest.len();
        }
    }
}

/// The white space at the reader's position (before a record), up to
/// `limit` bytes.
fn read_white_space<B: BufRead + ?Sized>(
    input: &mut B,
    limit: usize,
) -> Result<Vec<u8>, WarcError> {
    read_while(input, limit, |b| b.is_ascii_whitespace())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(body: &str) -> Vec<u8> {
        format!(
            "WARC/1.0\r\nWARC-Type: resource\r\nContent-Length: {}\r\n\r\n{body}\r\n\r\n",
            body.len()
        )
        .into_bytes()
    }

    fn gzip(bytes: &[u8]) -> Vec<u8> {
        let mut w = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        w.write_all(bytes).unwrap();
        w.finish().unwrap()
    }

    #[test]
    fn a_streamed_member_cut_short_ends_where_the_input_does() {
        let mut records = Vec::new();
        for n in 0..200 {
            records.push(record(&format!("record {n} {}", "y".repeat(n))));
        }
        let whole = gzip(&records.concat());
        for cut in [whole.len() - 4, whole.len() / 2] {
            let mut reader = RecordReader::new(&whole[..cut], 1 << 20, true).unwrap();
            reader.hold = 1000;
            let mut items = Vec::new();
            while let Some(item) = reader.next_item().unwrap() {
                items.push(item);
            }
            // The pieces read, the member's end (its new member is whole),
            // then what could not be read, nothing of it held.
            assert!(matches!(items[0], Item::MemberStart), "{:?}", items[0]);
            let end = items
                .iter()
                .position(|i| matches!(i, Item::MemberEnd(_)))
                .unwrap();
            assert!(
                matches!(&items[end + 1..], [Item::Unreadable { held, .. }] if held.is_empty())
            );
            let mut plain = Vec::new();
            for item in &items[1..end] {
                let Item::Piece(piece) = item else {
                    panic!("{item:?}")
                };
                plain.extend_from_slice(&concat(std::slice::from_ref(piece)));
            }
            // Every byte that decodes is given, in order.
            let mut decoded = Vec::new();
            let _ = flate2::read::GzDecoder::new(&whole[..cut]).read_to_end(&mut decoded);
            assert!(plain == decoded, "cut at {cut}");
        }
    }

    fn read_all(input: &[u8]) -> (Vec<Item>, Compression) {
        let mut reader = RecordReader::new(input, 1 << 20, true).unwrap();
        let mut out = Vec::new();
        while let Some(item) = reader.next_item().unwrap() {
            out.push(item);
        }
        (out, reader.compression())
    }

    /// The records of a plain file, and its junk, in order.
    fn pieces(input: &[u8]) -> Vec<Piece> {
        read_all(input)
            .0
            .into_iter()
            .map(|item| match item {
                Item::Piece(piece) => piece,
                other => panic!("not a piece: {other:?}"),
            })
            .collect()
    }

    fn records_of(pieces: &[Piece]) -> Vec<&Record> {
        pieces
            .iter()
            .filter_map(|p| match p {
                Piece::Record(r) => Some(r),
                Piece::Junk(_) => None,
            })
            .collect()
    }

    fn concat(pieces: &[Piece]) -> Vec<u8> {
        let mut out = Vec::new();
        for piece in pieces {
            match piece {
                Piece::Record(r) => r.parts().iter().for_each(|p| out.extend_from_slice(p)),
                Piece::Junk(j) => out.extend_from_slice(&j.bytes),
            }
        }
        out
    }

    #[test]
    fn members_are_kept_as_read() {
        let (a, b) = (gzip(&record("one")), gzip(&record("two")));
        let file = [a.clone(), b.clone()].concat();
        let (items, compression) = read_all(&file);
        assert_eq!(compression, Compression::Members);
        let [Item::Member(first), Item::Member(second)] = &items[..] else {
            panic!("{items:?}")
        };
        assert_eq!(first.bytes.as_deref(), Some(&a[..]));
        assert_eq!(second.bytes.as_deref(), Some(&b[..]));
        let Piece::Record(two) = &second.pieces[0] else {
            panic!()
        };
        assert_eq!(two.block, b"two");
        assert_eq!(two.trailer, b"\r\n\r\n");
        assert_eq!(two.number, 2);
        assert_eq!(two.offset, a.len() as u64);
    }

    #[test]
    fn a_member_of_several_records_stays_one_member() {
        let one = gzip(&[record("one"), record("two"), record("three")].concat());
        let empty = gzip(b"");
        let crlf = gzip(b"\r\n");
        let file = [one.clone(), empty.clone(), crlf.clone()].concat();
        let (items, compression) = read_all(&file);
        assert_eq!(compression, Compression::Stream);
        let [Item::Member(m), Item::Member(e), Item::Member(c)] = &items[..] else {
            panic!("{items:?}")
        };
        assert_eq!(m.pieces.len(), 3);
        assert_eq!(m.bytes.as_deref(), Some(&one[..]));
        assert!(e.pieces.is_empty());
        assert_eq!(e.bytes.as_deref(), Some(&empty[..]));
        assert_eq!(c.bytes.as_deref(), Some(&crlf[..]));
    }

    #[test]
    fn plain_records_and_large_blocks() {
        let file = [record("one"), record(&"x".repeat(100))].concat();
        let mut reader = RecordReader::new(&file[..], 50, false).unwrap();
        assert!(matches!(
            reader.next_item().unwrap(),
            Some(Item::Piece(Piece::Record(_)))
        ));
        let Some(Item::Large(large)) = reader.next_item().unwrap() else {
            panic!("not large")
        };
        assert_eq!(large.length, 100);
        let mut sink = Vec::new();
        let copied = reader.copy_block(&large, &mut sink).unwrap();
        assert_eq!((copied.block, &copied.trailer[..]), (100, &b"\r\n\r\n"[..]));
        assert_eq!(sink, "x".repeat(100).as_bytes());
        assert!(reader.next_item().unwrap().is_none());
    }

    #[test]
    fn a_length_too_short_leaves_junk_and_the_next_record_is_read() {
        let mut bad = record("a body of twenty-two.");
        // Content-Length 21 → 17: four bytes of the block fall outside.
        let at = memchr::memmem::find(&bad, b"21").unwrap();
        bad.splice(at..at + 2, *b"17");
        let file = [record("one"), bad, record("three")].concat();
        let pieces = pieces(&file);
        assert_eq!(concat(&pieces), file, "every byte is given back");
        let records = records_of(&pieces);
        assert_eq!(records.len(), 3);
        assert!(records[0].bad.is_none());
        assert!(
            records[1]
                .bad
                .as_deref()
                .unwrap()
                .contains("no record boundary")
        );
        assert_eq!(records[2].block, b"three");
        assert!(records[2].bad.is_none());
        // The junk after the bad record needs no second warning.
        assert!(
            pieces
                .iter()
                .all(|p| !matches!(p, Piece::Junk(j) if j.warning.is_some()))
        );
    }

    #[test]
    fn a_length_too_long_takes_what_it_runs_into_and_reading_goes_on_after_it() {
        let mut bad = record("short");
        let at = memchr::memmem::find(&bad, b"Length: 5").unwrap() + 8;
        bad.splice(at..at + 1, *b"30");
        let file = [bad, record("two"), record("three")].concat();
        let pieces = pieces(&file);
        assert_eq!(concat(&pieces), file);
        let records = records_of(&pieces);
        // The block is never searched: the start of record two is in it,
        // the rest of record two is junk, record three is read.
        assert_eq!(records.len(), 2, "{pieces:?}");
        assert!(
            records[0]
                .bad
                .as_deref()
                .unwrap()
                .contains("no record boundary")
        );
        assert_eq!(records[0].block.len(), 30);
        assert_eq!(records[1].block, b"three");
        assert!(records[1].bad.is_none());
    }

    #[test]
    fn white_space_then_a_record_line_is_a_record_boundary() {
        // No closing line ends, white space, then the next record on the
        // same line: warcio strips the line and reads the record.
        let one = record("one");
        let one = &one[..one.len() - 4];
        let file = [one, b"   \t ", &record("two")].concat();
        let pieces = pieces(&file);
        assert_eq!(concat(&pieces), file);
        let records = records_of(&pieces);
        assert_eq!(records.len(), 2, "{pieces:?}");
        assert!(records.iter().all(|r| r.bad.is_none()), "{pieces:?}");
        assert_eq!(records[1].block, b"two");
    }

    #[test]
    fn stray_bytes_between_records_are_junk_with_a_warning() {
        let file = [
            b"\r\n".to_vec(),
            record("one"),
            b"garbage\nmore garbage\n".to_vec(),
            record("two"),
            b"\n".to_vec(),
        ]
        .concat();
        let pieces = pieces(&file);
        assert_eq!(concat(&pieces), file);
        let junk: Vec<&Junk> = pieces
            .iter()
            .filter_map(|p| match p {
                Piece::Junk(j) => Some(j),
                Piece::Record(_) => None,
            })
            .collect();
        assert_eq!(junk.len(), 1, "{pieces:?}");
        assert_eq!(junk[0].bytes, b"garbage\nmore garbage\n");
        assert!(junk[0].warning.is_some());
    }

    #[test]
    fn a_file_cut_inside_a_record_keeps_every_byte() {
        let file = record("one");
        for cut in 1..file.len() {
            let pieces = pieces(&file[..cut]);
            assert_eq!(concat(&pieces), &file[..cut], "cut at {cut}");
        }
        let mut reader = RecordReader::new(&b"<html>"[..], 1 << 20, false).unwrap();
        let Some(Item::Piece(Piece::Junk(junk))) = reader.next_item().unwrap() else {
            panic!()
        };
        assert_eq!(junk.bytes, b"<html>");
    }

    #[test]
    fn arc_records_are_read_by_their_header_line() {
        let body = "HTTP/1.0 200 OK\r\nContent-Type: text/html\r\n\r\n<a href=x>x</a>";
        let version = "1 0 Test\nURL IP-address Archive-date Content-type Archive-length\n";
        let file = format!(
            "filedesc://t.arc 0.0.0.0 20140216050221 text/plain {}\n{version}\n\
             http://a/b/ 1.2.3.4 20140216050221 text/html {}\n{body}\n",
            version.len(),
            body.len()
        );
        let pieces = pieces(file.as_bytes());
        assert_eq!(concat(&pieces), file.as_bytes());
        let Piece::Record(page) = &pieces[1] else {
            panic!("{pieces:?}")
        };
        assert_eq!(page.format, Format::Arc);
        assert_eq!(page.block, body.as_bytes());
        assert_eq!(page.number, 2);
        assert!(page.bad.is_none());
    }

    #[test]
    fn an_unreadable_member_gives_back_every_byte() {
        let good = gzip(&record("one"));
        let mut broken = gzip(&record("two"));
        let middle = broken.len() / 2;
        broken[middle] ^= 0xff;
        broken[middle + 1] ^= 0xff;
        let file = [good.clone(), broken.clone()].concat();
        let mut reader = RecordReader::new(&file[..], 1 << 20, true).unwrap();
        let Some(Item::Member(first)) = reader.next_item().unwrap() else {
            panic!()
        };
        assert_eq!(first.bytes.as_deref(), Some(&good[..]));
        // What decodes of the damaged member is listed, never written.
        let (offset, held) = loop {
            match reader.next_item().unwrap() {
                Some(Item::RawPiece { compressed, .. }) => assert!(compressed.is_empty()),
                Some(Item::Unreadable { offset, held, .. }) => break (offset, held),
                other => panic!("{other:?}"),
            }
        };
        assert_eq!(offset, good.len() as u64);
        let mut rest = held;
        reader.copy_rest(&mut rest).unwrap();
        assert_eq!(rest, broken);
    }

    #[test]
    fn a_run_of_white_space_comes_in_bounded_pieces() {
        let file = [
            record("one"),
            b" \r\n\t".repeat(MAX_JUNK_PIECE),
            record("two"),
        ]
        .concat();
        let pieces = pieces(&file);
        assert_eq!(concat(&pieces), file);
        assert_eq!(records_of(&pieces).len(), 2);
        for piece in &pieces {
            match piece {
                Piece::Junk(junk) => {
                    assert!(junk.bytes.len() <= MAX_JUNK_PIECE);
                    assert!(junk.warning.is_none());
                }
                Piece::Record(record) => assert!(record.lead.len() <= MAX_JUNK_PIECE),
            }
        }
    }

    #[test]
    fn record_lines_without_a_head_end_are_one_stretch_of_junk() {
        let file = b"WARC/1.0\r\n".repeat(20_000);
        let pieces = pieces(&file);
        assert_eq!(concat(&pieces), file);
        // Not a piece a line, each reading the rest again: the head that
        // never ends is junk whole.
        assert_eq!(pieces.len(), 1, "{}", pieces.len());
        let cut = [b"WARC/1.0\r\nWARC-Type: x\r\n".repeat(3), record("one")].concat();
        let pieces = self::pieces(&cut);
        assert_eq!(concat(&pieces), cut);
        assert_eq!(records_of(&pieces).len(), 1);
    }

    #[test]
    fn a_spool_holds_bytes_past_its_limit_in_a_file_and_gives_them_back_in_order() {
        let mut spool = Spool::default();
        let piece: Vec<u8> = (0..=255u8).cycle().take((1 << 20) + 7).collect();
        let mut expected = Vec::new();
        while expected.len() <= MAX_MEMBER_HOLD + (2 << 20) {
            spool.push(&piece);
            expected.extend_from_slice(&piece);
        }
        assert!(spool.file.is_some() && spool.memory.is_empty());
        assert!(spool.whole());
        let mut out = Vec::new();
        spool.copy_to(&mut out).unwrap();
        assert!(out == expected);
    }

    #[test]
    fn a_member_copied_as_read_gives_its_bytes_as_it_goes() {
        let mut records = vec![record(&"x".repeat(100))];
        for n in 0..5000u64 {
            let noise: String = (0..40)
                .map(|i| {
                    format!(
                        "{:x}",
                        (n * 7919 + i * 104_729).wrapping_mul(2_654_435_761) >> 7
                    )
                })
                .collect();
            records.push(record(&noise));
        }
        let file = gzip(&records.concat());
        let mut reader = RecordReader::new(&file[..], 50, true).unwrap();
        let (mut out, mut largest, mut listed) = (Vec::new(), 0, 0);
        while let Some(item) = reader.next_item().unwrap() {
            match item {
                Item::Large(large) => {
                    assert!(large.raw_member);
                    reader.copy_member_raw(&large, &mut out).unwrap();
                    listed += 1;
                }
                Item::RawPiece { compressed, .. } => {
                    largest = largest.max(compressed.len());
                    out.extend_from_slice(&compressed);
                    listed += 1;
                }
                Item::RawMemberEnd(rest) => {
                    largest = largest.max(rest.len());
                    out.extend_from_slice(&rest);
                }
                other => panic!("{other:?}"),
            }
        }
        assert_eq!(listed, 5001);
        assert!(out == file, "the member is copied byte for byte");
        // The compressed rest of the file is never held whole.
        assert!(file.len() > 1 << 20, "{}", file.len());
        assert!(largest < 256 << 10, "{largest}");
    }
}
