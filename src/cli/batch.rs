//! Running relink over many inputs: directories expanded, each file of a
//! site mirror given its own retrieval URL, every input rewritten and
//! written safely, and a report of what happened to each.

use std::io::{self, Write};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::AtomicU64;

mod walk;
mod write;

pub use walk::expand;
use write::{
    Backup, Durability, Replace, Target, Temporary, enter_dir, finish, keep_backup, open_locked,
    output_target, resolve_target,
};

use relink::{Event, Input, Kind, LinkRow, Output, Rewriter, Unit, Warning, WarningKind};
use std::fs::Metadata;

/// Where an input comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    /// Standard input.
    Stdin,
    /// A file.
    File(PathBuf),
}

/// One input to rewrite.
#[derive(Debug, Clone)]
pub struct Job {
    /// Where it comes from.
    pub source: Source,
    /// How messages name it.
    pub name: String,
    /// Its path below the directory argument it was found under (its file
    /// name for a file argument): where `-o DIR` puts it.
    pub relative: PathBuf,
    /// The URL it was retrieved from, if known.
    pub retrieved_from: Option<String>,
    /// The base of its embedded resources, if given: below a directory's
    /// as its retrieval URL is.
    pub resource_base: Option<String>,
    /// What the input is to relink.
    pub role: Role,
}

/// What an input is to relink.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// A document, its kind told by its content.
    Document,
    /// A message file of a Maildir (its `,S=` size follows the content).
    MaildirMessage,
    /// A file found in a directory that relink does not read (an image, a
    /// script): copied as it is under `-o DIR`, so the tree stays whole.
    CopyOnly,
    /// A symbolic link found in a directory: made again under `-o DIR`,
    /// else left as it is (never followed, never replaced by a file).
    Link,
    /// A device node, FIFO or socket found in a directory: never read;
    /// under `-o DIR` an error, as it cannot be copied.
    Special,
}

impl Role {
    /// Whether relink reads the input (a document or a message).
    pub fn is_document(self) -> bool {
        matches!(self, Role::Document | Role::MaildirMessage)
    }
}

/// The retrieval URL of a file at `relative` below a mirror whose root was
/// retrieved from `prefix`: the prefix, a `/`, then each path segment with
/// the bytes a URL cannot hold percent-encoded.
pub fn mirror_url(prefix: &str, relative: &Path) -> String {
    let mut url = prefix.trim_end_matches('/').to_owned();
    for segment in relative.components() {
        url.push('/');
        let bytes = segment.as_os_str().as_encoded_bytes();
        for &b in bytes {
            let keep = b.is_ascii_alphanumeric() || b"-._~!$&'()*+,;=:@".contains(&b);
            if keep {
                url.push(b as char);
            } else {
                url.push_str(&format!("%{b:02X}"));
            }
        }
    }
    url
}

/// Where the rewritten inputs go.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Destination {
    /// The writer handed to [`process`] (standard output).
    Writer,
    /// This file.
    File(PathBuf),
    /// Under this directory, at each input's relative path.
    Dir(PathBuf),
    /// Over each input, keeping the original with this suffix if given.
    InPlace {
        /// The backup suffix.
        backup: Option<String>,
    },
    /// Nowhere: a dry run, a list, a diff or an explanation.
    Nowhere,
}

/// How to run.
#[derive(Debug, Clone)]
pub struct Settings {
    /// The rewrite every input shares: rules, bases, encoding, attributes,
    /// kind, whether links are listed or counted, whether layers are kept.
    pub rewriter: Rewriter,
    /// Where output goes.
    pub destination: Destination,
    /// Produce a unified diff of each change.
    pub diff: bool,
    /// Hand each document, record or message done to the rows (a WAT
    /// listing writes a record for each).
    pub units: bool,
    /// Where to count the bytes read from the inputs as they are read, for
    /// a progress bar that moves through one large archive too.
    pub bytes_read: Option<Arc<AtomicU64>>,
    /// Whether the writer of [`Destination::Writer`] is a terminal:
    /// compressed output (a gzipped or zstd input, a WACZ package) is then
    /// not written to it, as gzip refuses to: it would only garble the
    /// terminal.
    pub writer_is_terminal: bool,
}

/// What happened to one input.
#[derive(Debug, Default)]
pub struct Report {
    /// The input's name.
    pub name: String,
    /// Its kind, once known.
    pub kind: Option<Kind>,
    /// How many links were rewritten.
    pub rewritten: usize,
    /// Warnings, each naming where.
    pub warnings: Vec<Warning>,
    /// Whether the content changed.
    pub changed: bool,
    /// Whether the changed content was written to the destination (never
    /// for [`Destination::Nowhere`]: a dry run, a diff or a list only say
    /// what would change).
    pub written: bool,
    /// How many of its documents (an HTML or CSS file, or the HTML and CSS
    /// parts and payloads of an archive) had no base, so kept their links.
    pub no_base: usize,
    /// The error that stopped this input, if any (nothing was written).
    pub error: Option<String>,
    /// A unified diff, when asked for.
    pub diff: Option<String>,
}

impl Report {
    /// Takes in what the library reported of the input.
    fn absorb(&mut self, done: relink::Report) {
        self.kind = done.kind;
        self.changed = done.changed;
        self.rewritten += done.rewritten;
        self.no_base += done.without_base;
        self.warnings.extend(done.warnings);
    }
}

/// What a listing is handed of an input, in input order.
pub enum Found<'a> {
    /// Link rows, a few at a time: the rows of a document, record or
    /// message are never held whole.
    Rows(&'a [LinkRow]),
    /// A document, record or message done, after its rows: which, its
    /// HTML head's title and metas when they were asked, its base layers.
    Done(&'a relink::Done<'a>),
}

/// Where the link rows of an input go, and the units they are in.
pub type Rows<'a> = &'a (dyn Fn(Found<'_>) -> io::Result<()> + Sync);

/// Rewrites one input as `settings` say; standard output (when it is the
/// destination) goes to `out`, and the link rows (when the rewriter lists
/// links) to `rows` as they are found. An error is in the report; only a
/// broken `out`, or an error of `rows`, is returned as an error.
pub fn process(
    job: &Job,
    settings: &Settings,
    out: &mut dyn Write,
    rows: Rows<'_>,
) -> io::Result<Report> {
    let mut report = Report {
        name: job.name.clone(),
        ..Report::default()
    };
    let mut failed = None;
    let result = run(job, settings, (out, rows, &mut failed), &mut report);
    if let Some(err) = failed {
        return Err(err);
    }
    match result {
        Ok(()) => {}
        Err(err) if err.kind() == io::ErrorKind::BrokenPipe => return Err(err),
        Err(err) => report.error = Some(format!("{}: {err}", job.name)),
    }
    Ok(report)
}

/// Where an input is read from, and the file it is (for an in-place
/// rewrite, the file a symbolic link named on the command line leads to),
/// with its metadata.
struct Opened {
    input: Input<'static>,
    file: Option<(PathBuf, Metadata)>,
}

/// Opens the input, its reads counted in [`Settings::bytes_read`].
fn open_input(job: &Job, settings: &Settings) -> io::Result<Opened> {
    let mut opened = open_uncounted(job, settings)?;
    if let Some(count) = &settings.bytes_read {
        opened.input = opened.input.count_into(Arc::clone(count));
    }
    if let Some(url) = &job.retrieved_from {
        opened.input = opened.input.retrieved_from(url);
    }
    if let Some(url) = &job.resource_base {
        opened.input = opened.input.resource_base(url);
    }
    if job.role == Role::MaildirMessage {
        opened.input = opened.input.kind(Kind::Message);
    }
    Ok(opened)
}

fn open_uncounted(job: &Job, settings: &Settings) -> io::Result<Opened> {
    let path = match &job.source {
        Source::Stdin => {
            return Ok(Opened {
                input: Input::reader(io::stdin().lock()),
                file: None,
            });
        }
        Source::File(path) => path,
    };
    let cannot = |e: io::Error| io::Error::new(e.kind(), format!("cannot read: {e}"));
    if let Destination::InPlace { .. } = settings.destination {
        let real = std::fs::canonicalize(path).map_err(cannot)?;
        // Checked before opening: opening a FIFO would wait for a writer.
        if !std::fs::metadata(&real).map_err(cannot)?.is_file() {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "not a regular file: cannot rewrite it in place",
            ));
        }
        enter_dir(real.parent().unwrap_or(Path::new("/")));
        let (file, meta) = open_locked(&real).map_err(cannot)?;
        return Ok(Opened {
            input: Input::file(file, path),
            file: Some((real, meta)),
        });
    }
    let file = std::fs::File::open(path).map_err(cannot)?;
    let meta = file.metadata()?;
    Ok(Opened {
        input: Input::file(file, path),
        file: Some((path.clone(), meta)),
    })
}

/// The path an input at `relative` gets under the output directory.
fn under(dir: &Path, job: &Job) -> PathBuf {
    dir.join(&job.relative)
}

/// Where the output of an input goes: standard output (when it is the
/// destination), the rows, and the first error of the rows.
type Out<'o> = (&'o mut dyn Write, Rows<'o>, &'o mut Option<io::Error>);

fn run(job: &Job, settings: &Settings, out: Out<'_>, report: &mut Report) -> io::Result<()> {
    if let Some(done) = copy_entry(job, settings) {
        return done;
    }
    let (writer, rows, failed) = out;
    let Opened { input, file } = open_input(job, settings)?;
    let mut diff = String::new();
    let mut handler = |event: Event<'_>| -> io::Result<()> {
        match event {
            Event::Start { compressed, .. }
                if compressed
                    && settings.writer_is_terminal
                    && settings.destination == Destination::Writer =>
            {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidInput,
                    "compressed output is not written to a terminal: give -o FILE, or redirect standard output",
                ));
            }
            Event::Rows(found) => {
                if let Err(err) = rows(Found::Rows(found)) {
                    *failed = Some(err);
                    return Err(io::Error::other("the rows cannot be written"));
                }
            }
            Event::Done(done) => {
                if settings.units
                    && let Err(err) = rows(Found::Done(&done))
                {
                    *failed = Some(err);
                    return Err(io::Error::other("the rows cannot be written"));
                }
                if let (true, Some(old), Some(new)) = (settings.diff, done.original, done.output) {
                    let name = match done.unit {
                        Unit::Message(n) => format!("{} (message {n})", job.name),
                        _ => job.name.clone(),
                    };
                    diff.push_str(&unified_diff(&name, old, new));
                }
            }
            _ => {}
        }
        Ok(())
    };
    let rewrite = |output: Output<'_>| {
        settings
            .rewriter
            .run(input, output, &mut handler)
            .map_err(|e| match e {
                relink::Error::Io(e) => e,
                // The flag that reads it as one.
                relink::Error::ArchiveAsDocument => io::Error::new(
                    io::ErrorKind::InvalidData,
                    "a web archive (WARC or ARC) is read as one (--type warc), never as a document",
                ),
                e => io::Error::new(io::ErrorKind::InvalidData, e),
            })
    };
    let done = to_destination(job, settings, file, writer, report, rewrite)?;
    report.absorb(done);
    report.written = report.changed && settings.destination != Destination::Nowhere;
    if !diff.is_empty() {
        report.diff = Some(diff);
    }
    Ok(())
}

/// What is done with an entry relink does not read (a file copied as it
/// is, a link made again, a device refused), or `None` for a document.
fn copy_entry(job: &Job, settings: &Settings) -> Option<io::Result<()>> {
    let done = match (job.role, &settings.destination, &job.source) {
        (Role::CopyOnly, Destination::Dir(dir), Source::File(path)) => {
            let target = under(dir, job);
            create_parent(&target).and_then(|()| write::copy_file(path, &target, Durability::Lazy))
        }
        (Role::Link, Destination::Dir(dir), Source::File(path)) => {
            let target = under(dir, job);
            create_parent(&target).and_then(|()| write::copy_link(path, &target))
        }
        (Role::Special, Destination::Dir(_), _) => Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "not a regular file, directory or symbolic link: not copied",
        )),
        (Role::CopyOnly | Role::Link | Role::Special, _, _) => Ok(()),
        (Role::Document | Role::MaildirMessage, _, _) => return None,
    };
    Some(done)
}

/// A temporary file beside a path, made when the first byte is written
/// (an unchanged document written only when it changed makes none), with
/// how many bytes went into it.
struct LazyTemp<'p> {
    beside: &'p Path,
    temp: Option<Temporary>,
    written: usize,
}

impl LazyTemp<'_> {
    /// The temporary file, made now if no byte was written.
    fn take(self) -> io::Result<Temporary> {
        match self.temp {
            Some(temp) => Ok(temp),
            None => write::temp_file_beside(self.beside),
        }
    }

    /// The temporary file, made now if none is yet.
    fn made(&mut self) -> io::Result<&mut Temporary> {
        if self.temp.is_none() {
            self.temp = Some(write::temp_file_beside(self.beside)?);
        }
        Ok(self.temp.as_mut().expect("made just now"))
    }
}

impl Write for LazyTemp<'_> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = self.made()?.write(buf)?;
        self.written += n;
        Ok(n)
    }

    fn write_vectored(&mut self, bufs: &[io::IoSlice<'_>]) -> io::Result<usize> {
        let n = self.made()?.write_vectored(bufs)?;
        self.written += n;
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        match &mut self.temp {
            Some(temp) => temp.flush(),
            None => Ok(()),
        }
    }
}

/// Runs `rewrite` into where the settings say: standard output, a device,
/// or a temporary file put in place of the target once the rewrite is
/// done (in place, only when something changed).
fn to_destination(
    job: &Job,
    settings: &Settings,
    file: Option<(PathBuf, Metadata)>,
    out: &mut dyn Write,
    report: &mut Report,
    rewrite: impl FnOnce(Output<'_>) -> io::Result<relink::Report>,
) -> io::Result<relink::Report> {
    let path = match &settings.destination {
        Destination::Writer => return rewrite(Output::Always(out)),
        Destination::Nowhere if settings.diff => {
            return rewrite(Output::WhenChanged(&mut io::sink()));
        }
        Destination::Nowhere => return rewrite(Output::Nowhere),
        Destination::File(path) => match output_target(path)? {
            Target::Into(device) => {
                return rewrite(Output::Always(&mut write::open_into(&device)?));
            }
            Target::Replace(path) => path,
        },
        Destination::Dir(dir) => {
            let path = under(dir, job);
            create_parent(&path)?;
            path
        }
        Destination::InPlace { .. } => match &file {
            Some((path, _)) => path.clone(),
            None => return Err(io::Error::other("cannot rewrite standard input in place")),
        },
    };
    let in_place = matches!(settings.destination, Destination::InPlace { .. });
    let mut temp = LazyTemp {
        beside: &path,
        temp: None,
        written: 0,
    };
    let done = if in_place {
        rewrite(Output::WhenChanged(&mut temp))?
    } else {
        rewrite(Output::Always(&mut temp))?
    };
    if in_place && !done.changed {
        return Ok(done);
    }
    // A Maildir message's `,S=` size follows its new length.
    let target = if job.role == Role::MaildirMessage {
        let name = path.file_name().unwrap_or_default().to_string_lossy();
        path.with_file_name(crate::cli::maildir::sized_name(&name, temp.written))
    } else {
        path.clone()
    };
    let like = file.as_ref().map(|(_, meta)| meta);
    let temp = temp.take()?;
    if !in_place {
        let target = resolve_target(&target)?;
        finish(temp, &target, like, (Replace::Over, Durability::Lazy))?;
        return Ok(done);
    }
    if let Some(meta) = like {
        warn_hard_links(meta, report);
    }
    if let Destination::InPlace {
        backup: Some(suffix),
    } = &settings.destination
    {
        backed_up(keep_backup(&path, suffix)?, &path, suffix, report);
    }
    replace_in_place(temp, &path, &target, like)?;
    Ok(done)
}

/// Puts `temp` over `path`, or, for a Maildir message whose size is in
/// its name, under `new_path` and then removes the old name.
fn replace_in_place(
    temp: Temporary,
    path: &Path,
    new_path: &Path,
    like: Option<&Metadata>,
) -> io::Result<()> {
    if new_path == path {
        return finish(temp, path, like, (Replace::Over, Durability::Flushed));
    }
    finish(temp, new_path, like, (Replace::Never, Durability::Flushed))?;
    std::fs::remove_file(path).map_err(|e| {
        let (old, new) = (path.display(), new_path.display());
        let message = if e.kind() == io::ErrorKind::NotFound {
            // A mail program moved it meanwhile: it may now be there twice,
            // moved and rewritten.
            format!("{old} was moved while being rewritten: the rewritten message is {new}, the moved one may be its duplicate")
        } else {
            format!("the message is now both {old} and {new}: cannot remove the old name: {e}")
        };
        io::Error::new(e.kind(), message)
    })
}

/// Creates the directories above `path`. The directory made last is
/// remembered, so that the files of one directory cost one `mkdir`, not
/// one each.
fn create_parent(path: &Path) -> io::Result<()> {
    thread_local! {
        static MADE: std::cell::RefCell<PathBuf> = std::cell::RefCell::default();
    }
    match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => MADE.with(|made| {
            if *made.borrow() == parent {
                return Ok(());
            }
            std::fs::create_dir_all(parent)?;
            parent.clone_into(&mut made.borrow_mut());
            Ok(())
        }),
        _ => Ok(()),
    }
}

/// Warns that a file rewritten in place has other names, which keep the
/// old content (the new file replaces this name only).
fn warn_hard_links(meta: &Metadata, report: &mut Report) {
    if meta.nlink() > 1 {
        report.warnings.push(Warning::new(
            WarningKind::HardLinks,
            format_args!(
                "has {} hard links: only this name gets the new content",
                meta.nlink()
            ),
        ));
    }
}

/// Warns when an existing backup was kept instead of the content replaced.
fn backed_up(backup: Backup, path: &Path, suffix: &str, report: &mut Report) {
    if backup == Backup::Kept {
        let mut name = path.file_name().unwrap_or_default().to_owned();
        name.push(suffix);
        report.warnings.push(Warning::new(
            WarningKind::BackupKept,
            format_args!(
                "backup {} already exists: kept as it is (it holds an earlier original), so the content replaced now has no backup",
                name.to_string_lossy()
            ),
        ));
    }
}

/// A unified diff of a change, lossy for bytes that are not UTF-8.
pub fn unified_diff(name: &str, old: &[u8], new: &[u8]) -> String {
    let (old, new) = (String::from_utf8_lossy(old), String::from_utf8_lossy(new));
    similar::TextDiff::from_lines(old.as_ref(), new.as_ref())
        .unified_diff()
        .header(&format!("a/{name}"), &format!("b/{name}"))
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_are_counted_for_progress() {
        use std::sync::Arc;
        use std::sync::atomic::{AtomicU64, Ordering};
        let archive =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/mail/archive.mboxrd");
        let count = Arc::new(AtomicU64::new(0));
        let settings = Settings {
            rewriter: Rewriter::new().details(relink::Details::Counts),
            destination: Destination::Nowhere,
            diff: false,
            units: false,
            bytes_read: Some(Arc::clone(&count)),
            writer_is_terminal: false,
        };
        let none = globset::GlobSet::empty();
        let (jobs, errors) = expand(
            std::slice::from_ref(&archive),
            (Some("http://h/"), None),
            (None, &none),
        );
        assert!(errors.is_empty());
        let report = process(&jobs[0], &settings, &mut std::io::sink(), &|_| Ok(())).unwrap();
        assert!(report.error.is_none(), "{:?}", report.error);
        let size = std::fs::metadata(&archive).unwrap().len();
        assert_eq!(count.load(Ordering::Relaxed), size);
    }

    #[test]
    fn mirror_urls_percent_encode_what_urls_cannot_hold() {
        let p = Path::new;
        assert_eq!(
            mirror_url("https://e.com/docs/", p("a/b.html")),
            "https://e.com/docs/a/b.html"
        );
        assert_eq!(
            mirror_url("https://e.com/docs", p("a b/c#d%.html")),
            "https://e.com/docs/a%20b/c%23d%25.html"
        );
        assert_eq!(
            mirror_url("https://e.com/", p("caf\u{e9}.html")),
            "https://e.com/caf%C3%A9.html"
        );
    }
}
