//! Running relink over many inputs: directories expanded, each file of a
//! site mirror given its own retrieval URL, every input rewritten and
//! written safely, and a report of what happened to each.

use std::io::{self, BufRead, Read, Write};
use std::path::{Path, PathBuf};

use crate::base::{Base, BaseSource, Layer};
use crate::document::{self, Link, Options};
use crate::kind::{self, Kind};
use crate::mime::mbox::{self, MboxFormat};
use crate::mime::{maildir, message};
use crate::url::{BaseUrl, Rules};

/// How many bytes are read to tell what a file is (an mbox's first message
/// is measured against its Content-Length).
pub const HEAD_BYTES: usize = 1 << 20;

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
}

/// Whether a file found while walking a directory is one relink reads: by
/// its name, or by its first bytes. Images and the like are skipped.
fn wanted_in_tree(path: &Path, head: &[u8]) -> bool {
    let extension = path
        .extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default();
    if matches!(
        extension.as_str(),
        "html" | "htm" | "xhtml" | "shtml" | "css" | "eml" | "mht" | "mhtml" | "mbox"
    ) {
        return true;
    }
    if !extension.is_empty() {
        return false;
    }
    mbox::looks_like_mbox(head)
        || kind::detect_file(path, head) == Kind::Message
        || looks_like_html(head)
}

/// Whether bytes start like an HTML document.
fn looks_like_html(head: &[u8]) -> bool {
    let text = head.strip_prefix(b"\xef\xbb\xbf").unwrap_or(head);
    let start = text
        .iter()
        .position(|b| !b.is_ascii_whitespace())
        .unwrap_or(text.len());
    let text = &text[start..text.len().min(start + 14)];
    [
        &b"<!doctype html"[..],
        b"<html",
        b"<head",
        b"<body",
        b"<!--",
    ]
    .iter()
    .any(|p| text.len() >= p.len() && text[..p.len()].eq_ignore_ascii_case(p))
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

/// The inputs the arguments name, in order: directories walked (sorted,
/// hidden entries skipped), a Maildir's `cur/` and `new/` messages, files
/// as they are. Errors name the argument.
pub fn expand(args: &[PathBuf], retrieved_from: Option<&str>) -> (Vec<Job>, Vec<String>) {
    let mut jobs = Vec::new();
    let mut errors = Vec::new();
    for arg in args {
        if arg.as_os_str() == "-" {
            jobs.push(Job {
                source: Source::Stdin,
                name: "standard input".to_owned(),
                relative: PathBuf::from("-"),
                retrieved_from: retrieved_from.map(str::to_owned),
                role: Role::Document,
            });
            continue;
        }
        let name = arg.display().to_string();
        if !arg.is_dir() {
            jobs.push(Job {
                source: Source::File(arg.clone()),
                relative: arg
                    .file_name()
                    .map(PathBuf::from)
                    .unwrap_or_else(|| arg.clone()),
                name,
                retrieved_from: retrieved_from.map(str::to_owned),
                role: Role::Document,
            });
            continue;
        }
        if maildir::is_maildir(arg) {
            match maildir::message_files(arg) {
                Ok(files) => jobs.extend(files.into_iter().map(|file| Job {
                    name: file.display().to_string(),
                    relative: file.strip_prefix(arg).unwrap_or(&file).to_path_buf(),
                    source: Source::File(file),
                    retrieved_from: retrieved_from.map(str::to_owned),
                    role: Role::MaildirMessage,
                })),
                Err(err) => errors.push(format!("{name}: cannot list: {err}")),
            }
            continue;
        }
        let mut found = Vec::new();
        if let Err(err) = walk(arg, &mut found) {
            errors.push(format!("{name}: cannot list: {err}"));
        }
        for (file, role) in found {
            let below = file.strip_prefix(arg).unwrap_or(&file).to_path_buf();
            jobs.push(Job {
                name: file.display().to_string(),
                relative: below.clone(),
                retrieved_from: retrieved_from.map(|prefix| mirror_url(prefix, &below)),
                source: Source::File(file),
                role,
            });
        }
    }
    (jobs, errors)
}

/// The files below `dir`, sorted, hidden ones skipped, each with its role.
fn walk(dir: &Path, found: &mut Vec<(PathBuf, Role)>) -> io::Result<()> {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)?
        .filter_map(Result::ok)
        .filter(|e| !e.file_name().to_string_lossy().starts_with('.'))
        .map(|e| e.path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            if maildir::is_maildir(&path) {
                continue;
            }
            walk(&path, found)?;
        } else if path.is_file() {
            let mut head = Vec::with_capacity(512);
            std::fs::File::open(&path)?
                .take(512)
                .read_to_end(&mut head)?;
            let role = if wanted_in_tree(&path, &head) {
                Role::Document
            } else {
                Role::CopyOnly
            };
            found.push((path, role));
        }
    }
    Ok(())
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
    /// The rule set.
    pub rules: Rules,
    /// A base forced above every layer (`--base`).
    pub forced: Option<Base>,
    /// Leave `#name` links as they are.
    pub keep_fragment_links: bool,
    /// The transport encoding (`--encoding`).
    pub transport: Option<&'static encoding_rs::Encoding>,
    /// The mbox variant, if given.
    pub mbox_format: Option<MboxFormat>,
    /// Where output goes.
    pub destination: Destination,
    /// Produce a unified diff of each change.
    pub diff: bool,
    /// Keep every link and each part's layers in the report (for
    /// `--list`, `--check` and `explain`); else only count links, so memory
    /// stays bounded on large archives.
    pub keep_details: bool,
}

/// One link, placed for a report.
#[derive(Debug, Clone)]
pub struct LinkRow {
    /// The mbox message number.
    pub message: Option<usize>,
    /// The MIME part path.
    pub part: Option<String>,
    /// The link.
    pub link: Link,
}

impl LinkRow {
    /// Where the link is, as text: `message 3, part 1.2, line 4:7`.
    pub fn location(&self) -> String {
        let mut out = String::new();
        if let Some(n) = self.message {
            out.push_str(&format!("message {n}, "));
        }
        if let Some(part) = self.part.as_deref().filter(|p| !p.is_empty()) {
            out.push_str(&format!("part {part}, "));
        }
        out.push_str(&format!("{}:{}", self.link.line, self.link.column));
        out
    }
}

/// What happened to one input.
#[derive(Debug, Default)]
pub struct Report {
    /// The input's name.
    pub name: String,
    /// Its kind, once known.
    pub kind: Option<Kind>,
    /// Every link, when [`Settings::keep_details`] asks for them.
    pub links: Vec<LinkRow>,
    /// How many links were rewritten.
    pub rewritten: usize,
    /// Warnings, each naming where.
    pub warnings: Vec<String>,
    /// Whether the content changed.
    pub changed: bool,
    /// The error that stopped this input, if any (nothing was written).
    pub error: Option<String>,
    /// A unified diff, when asked for.
    pub diff: Option<String>,
    /// Each document or part and the layers of its base.
    pub layers: Vec<(String, Vec<Layer>)>,
}

impl Report {
    /// Counts and, when asked, keeps links.
    fn add_links(&mut self, keep: bool, rows: impl IntoIterator<Item = LinkRow>) {
        for row in rows {
            self.rewritten += usize::from(row.link.changed);
            if keep {
                self.links.push(row);
            }
        }
    }
}

/// Rewrites one input as `settings` say; standard output (when it is the
/// destination) goes to `out`. An error is in the report; only a broken
/// `out` is returned as an error.
pub fn process(job: &Job, settings: &Settings, out: &mut dyn Write) -> io::Result<Report> {
    let mut report = Report {
        name: job.name.clone(),
        ..Report::default()
    };
    match run(job, settings, out, &mut report) {
        Ok(()) => {}
        Err(err) if err.kind() == io::ErrorKind::BrokenPipe => return Err(err),
        Err(err) => report.error = Some(format!("{}: {err}", job.name)),
    }
    Ok(report)
}

fn run(job: &Job, settings: &Settings, out: &mut dyn Write, report: &mut Report) -> io::Result<()> {
    if job.role == Role::CopyOnly {
        if let (Destination::Dir(dir), Source::File(path)) = (&settings.destination, &job.source) {
            let target = dir.join(&job.relative);
            if let Some(parent) = target.parent() {
                std::fs::create_dir_all(parent)?;
            }
            std::fs::copy(path, target)?;
        }
        return Ok(());
    }
    let rules = settings.rules;
    let retrieved = match &job.retrieved_from {
        Some(url) => Some(
            BaseUrl::parse(url, rules)
                .map(|u| Base::new(u, BaseSource::RetrievedFrom))
                .map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, e))?,
        ),
        None => None,
    };
    let options = Options {
        rules,
        forced: settings.forced.as_ref(),
        outer: retrieved.as_ref(),
        transport: settings.transport,
        keep_fragment_links: settings.keep_fragment_links,
        extra_attributes: &[],
    };
    let mut reader: Box<dyn Read> = match &job.source {
        Source::Stdin => Box::new(io::stdin().lock()),
        Source::File(path) => Box::new(
            std::fs::File::open(path)
                .map_err(|e| io::Error::new(e.kind(), format!("cannot read: {e}")))?,
        ),
    };
    let mut head = Vec::with_capacity(8192);
    (&mut reader)
        .take(HEAD_BYTES as u64)
        .read_to_end(&mut head)?;
    let path = match &job.source {
        Source::File(path) => path.as_path(),
        Source::Stdin => Path::new("-"),
    };
    let kind = if job.role == Role::MaildirMessage {
        Kind::Message
    } else {
        kind::detect_file(path, &head)
    };
    report.kind = Some(kind);
    if kind == Kind::Mbox {
        let format = settings.mbox_format.unwrap_or_else(|| mbox::detect(&head));
        let input = io::BufReader::new(io::Cursor::new(head).chain(reader));
        return run_mbox(job, settings, &options, input, format, out, report);
    }
    let mut input = head;
    reader.read_to_end(&mut input)?;
    let output = match kind {
        Kind::Message | Kind::Mbox => {
            let outcome = message::rewrite_message(&input, &options);
            report.warnings = outcome.warnings;
            let rows = outcome.links.into_iter().map(|(part, link)| LinkRow {
                message: None,
                part: Some(part),
                link,
            });
            report.add_links(settings.keep_details, rows);
            report.layers = outcome
                .parts
                .into_iter()
                .map(|p| (part_label(&p.path, &p.mimetype), p.layers))
                .collect();
            outcome.output
        }
        Kind::Html | Kind::Css => {
            let result = if kind == Kind::Css {
                document::rewrite_css(&input, &options)
            } else {
                document::rewrite_html(&input, &options)
            };
            let outcome = result.map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e))?;
            report.warnings = outcome.warnings;
            report.layers = vec![("document".to_owned(), outcome.layers)];
            let rows = outcome.links.into_iter().map(|link| LinkRow {
                message: None,
                part: None,
                link,
            });
            report.add_links(settings.keep_details, rows);
            outcome.output
        }
    };
    report.changed = output.is_some();
    if settings.diff
        && let Some(new) = &output
    {
        report.diff = Some(unified_diff(&job.name, &input, new));
    }
    let bytes = output.as_deref().unwrap_or(&input);
    let target = |relative: &Path| -> PathBuf {
        if job.role == Role::MaildirMessage {
            let name = relative.file_name().unwrap_or_default().to_string_lossy();
            relative.with_file_name(maildir::sized_name(&name, bytes.len()))
        } else {
            relative.to_path_buf()
        }
    };
    match &settings.destination {
        Destination::Writer => out.write_all(bytes).and_then(|()| out.flush())?,
        Destination::File(path) => write_atomically(path, bytes)?,
        Destination::Dir(dir) => {
            let path = dir.join(target(&job.relative));
            if let Some(parent) = path.parent() {
                std::fs::create_dir_all(parent)?;
            }
            write_atomically(&path, bytes)?;
        }
        Destination::InPlace { backup } => {
            if let (Some(_), Source::File(path)) = (&output, &job.source) {
                let new_path = target(path);
                if let Some(suffix) = backup {
                    keep_backup(path, suffix)?;
                }
                write_atomically(&new_path, bytes)?;
                if &new_path != path {
                    std::fs::remove_file(path)?;
                }
            }
        }
        Destination::Nowhere => {}
    }
    Ok(())
}

/// How a message part is named in reports.
fn part_label(path: &str, mimetype: &str) -> String {
    if path.is_empty() {
        format!("the message ({mimetype})")
    } else {
        format!("part {path} ({mimetype})")
    }
}

fn run_mbox(
    job: &Job,
    settings: &Settings,
    options: &Options<'_>,
    input: impl BufRead,
    format: MboxFormat,
    out: &mut dyn Write,
    report: &mut Report,
) -> io::Result<()> {
    let mut diff = String::new();
    let mut collect = |message: &mbox::ArchiveMessage, original: &[u8]| {
        let n = message.number;
        report.warnings.extend(
            message
                .outcome
                .warnings
                .iter()
                .map(|w| format!("message {n}: {w}")),
        );
        let rows = message.outcome.links.iter().map(|(part, link)| LinkRow {
            message: Some(n),
            part: Some(part.clone()),
            link: link.clone(),
        });
        report.add_links(settings.keep_details, rows);
        if settings.keep_details {
            report.layers.extend(message.outcome.parts.iter().map(|p| {
                (
                    format!("message {n}, {}", part_label(&p.path, &p.mimetype)),
                    p.layers.clone(),
                )
            }));
        }
        if settings.diff
            && let Some(new) = &message.outcome.output
        {
            diff.push_str(&unified_diff(
                &format!("{} (message {n})", job.name),
                original,
                new,
            ));
        }
    };
    let changed = match &settings.destination {
        Destination::Writer => {
            let mut writer = io::BufWriter::new(out);
            let changed = mbox::rewrite_mbox(input, format, &mut writer, options, &mut collect)?;
            writer.flush()?;
            changed
        }
        Destination::Nowhere => {
            mbox::rewrite_mbox(input, format, &mut io::sink(), options, &mut collect)?
        }
        destination => {
            let path = match (destination, &job.source) {
                (Destination::File(path), _) => path.clone(),
                (Destination::Dir(dir), _) => dir.join(&job.relative),
                (_, Source::File(path)) => path.clone(),
                (_, Source::Stdin) => {
                    return Err(io::Error::other("cannot rewrite standard input in place"));
                }
            };
            if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
                std::fs::create_dir_all(parent)?;
            }
            let mut temp = temp_file_beside(&path)?;
            let mut writer = io::BufWriter::new(temp.as_file_mut());
            let changed = mbox::rewrite_mbox(input, format, &mut writer, options, &mut collect)?;
            writer.flush()?;
            drop(writer);
            let in_place = matches!(destination, Destination::InPlace { .. });
            if changed || !in_place {
                if let Destination::InPlace {
                    backup: Some(suffix),
                } = destination
                {
                    keep_backup(&path, suffix)?;
                }
                persist(temp, &path)?;
            }
            changed
        }
    };
    report.changed = changed;
    if !diff.is_empty() {
        report.diff = Some(diff);
    }
    Ok(())
}

/// A unified diff of a change, lossy for bytes that are not UTF-8.
pub fn unified_diff(name: &str, old: &[u8], new: &[u8]) -> String {
    let (old, new) = (String::from_utf8_lossy(old), String::from_utf8_lossy(new));
    similar::TextDiff::from_lines(old.as_ref(), new.as_ref())
        .unified_diff()
        .header(&format!("a/{name}"), &format!("b/{name}"))
        .to_string()
}

/// A temporary file in the directory of `path`, to be renamed over it.
fn temp_file_beside(path: &Path) -> io::Result<tempfile::NamedTempFile> {
    let dir = match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    };
    tempfile::NamedTempFile::new_in(dir)
}

/// Flushes a temporary file to disk and renames it over `path`, keeping an
/// existing file's permissions.
fn persist(temp: tempfile::NamedTempFile, path: &Path) -> io::Result<()> {
    temp.as_file().sync_all()?;
    if let Ok(meta) = std::fs::metadata(path) {
        temp.as_file().set_permissions(meta.permissions())?;
    }
    temp.persist(path).map(|_| ()).map_err(|e| e.error)
}

/// Writes `bytes` to `path` atomically: a temporary file in the same
/// directory, flushed, then renamed over it.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let mut temp = temp_file_beside(path)?;
    temp.write_all(bytes)?;
    persist(temp, path)
}

/// Keeps the original of `path` as `path` + `suffix`: a hard link where the
/// file system allows, else a copy.
fn keep_backup(path: &Path, suffix: &str) -> io::Result<()> {
    let mut backup = path.as_os_str().to_owned();
    backup.push(suffix);
    let backup = PathBuf::from(backup);
    let _ = std::fs::remove_file(&backup);
    std::fs::hard_link(path, &backup).or_else(|_| std::fs::copy(path, &backup).map(|_| ()))
}

#[cfg(test)]
mod tests {
    use super::*;

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

    #[test]
    fn html_is_known_by_its_start() {
        assert!(looks_like_html(b"\xef\xbb\xbf  <!DOCTYPE HTML>"));
        assert!(looks_like_html(b"<html lang=en>"));
        assert!(!looks_like_html(b"\x89PNG\r\n"));
    }
}
