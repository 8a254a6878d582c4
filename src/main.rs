//! The `relink` command: parses flags, calls the library, maps the outcome to
//! an exit status (0 all went through, 1 some input failed, 2 usage error).

use std::io::{self, BufRead, BufWriter, Read, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context;
use clap::{Args, Parser, Subcommand, ValueEnum};
use relink::base::{Base, BaseSource};
use relink::document::{self, Options};
use relink::kind::{self, Kind};
use relink::mime::maildir;
use relink::mime::mbox::{self, MboxFormat};
use relink::mime::message::rewrite_message;
use relink::{BaseUrl, Rules};

/// Make the relative links of documents absolute, by RFC 1808.
///
/// Reads each FILE (or standard input for `-`), finds its base URL (the
/// HTML BASE element, else --retrieved-from) and writes it with every
/// relative link made absolute and every other byte unchanged.
#[derive(Debug, Parser)]
#[command(
    name = "relink",
    version,
    about,
    args_conflicts_with_subcommands = true
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    #[command(flatten)]
    rewrite: RewriteArgs,
}

#[derive(Debug, Args)]
struct RewriteArgs {
    /// The inputs: HTML, CSS, a message (.eml, MHTML), an mbox, or a
    /// Maildir directory, told apart by content; `-` for standard input.
    #[arg(value_name = "FILE")]
    files: Vec<PathBuf>,
    /// The mbox variant, instead of guessing it.
    #[arg(long, value_enum, value_name = "FORMAT")]
    mbox_format: Option<MboxFormatArg>,
    /// The URL the document was retrieved from (RFC 1808 section 3.3).
    #[arg(long, value_name = "URL")]
    retrieved_from: Option<String>,
    /// The rule set to resolve with.
    #[arg(long, value_enum, default_value_t = RulesArg::Rfc1808)]
    rules: RulesArg,
    /// The document's encoding, overriding what the document says.
    #[arg(long, value_name = "LABEL")]
    encoding: Option<String>,
    /// Write the result to this file instead of standard output.
    #[arg(short, long, value_name = "FILE", conflicts_with = "in_place")]
    output: Option<PathBuf>,
    /// Rewrite each file in place (atomically; unchanged files are not
    /// written).
    #[arg(long)]
    in_place: bool,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Resolve references against a base URL, one result per line.
    Resolve(ResolveArgs),
}

#[derive(Debug, Args)]
struct ResolveArgs {
    /// The rule set to resolve with.
    #[arg(long, value_enum, default_value_t = RulesArg::Rfc1808)]
    rules: RulesArg,
    /// The base URL (absolute).
    base: String,
    /// References to resolve; with none, read one per line from standard input.
    references: Vec<String>,
}

/// The command line's names for the mbox variants.
#[derive(Debug, Clone, Copy, ValueEnum)]
enum MboxFormatArg {
    Mboxo,
    Mboxrd,
    Mboxcl,
    Mboxcl2,
}

impl From<MboxFormatArg> for MboxFormat {
    fn from(f: MboxFormatArg) -> MboxFormat {
        match f {
            MboxFormatArg::Mboxo => MboxFormat::Mboxo,
            MboxFormatArg::Mboxrd => MboxFormat::Mboxrd,
            MboxFormatArg::Mboxcl => MboxFormat::Mboxcl,
            MboxFormatArg::Mboxcl2 => MboxFormat::Mboxcl2,
        }
    }
}

/// The command line's names for [`Rules`].
#[derive(Debug, Clone, Copy, ValueEnum)]
enum RulesArg {
    /// RFC 1808 section 4 (the default).
    Rfc1808,
    /// RFC 3986 section 5.2.
    Rfc3986,
    /// The WHATWG URL Standard, as browsers resolve.
    Whatwg,
}

impl From<RulesArg> for Rules {
    fn from(r: RulesArg) -> Rules {
        match r {
            RulesArg::Rfc1808 => Rules::Rfc1808,
            RulesArg::Rfc3986 => Rules::Rfc3986,
            RulesArg::Whatwg => Rules::Whatwg,
        }
    }
}

/// How a run ended, short of an error that stops it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Outcome {
    /// Every input went through.
    Done,
    /// Some inputs failed; the others were done.
    SomeFailed,
}

/// An error that is the user's to fix (exit status 2).
#[derive(Debug, thiserror::Error)]
enum UsageError {
    #[error(transparent)]
    Library(#[from] relink::Error),
    #[error("{0}")]
    Message(String),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Some(Command::Resolve(args)) => run_resolve(&args),
        None => run_rewrite(&cli.rewrite),
    };
    match result {
        Ok(Outcome::Done) => ExitCode::SUCCESS,
        Ok(Outcome::SomeFailed) => ExitCode::from(1),
        Err(err) if is_broken_pipe(&err) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("relink: {err:#}");
            if err.is::<UsageError>() {
                ExitCode::from(2)
            } else {
                ExitCode::from(1)
            }
        }
    }
}

/// A closed standard output (`relink ... | head`) is not a failure.
fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.chain().any(|cause| {
        cause
            .downcast_ref::<io::Error>()
            .is_some_and(|e| e.kind() == io::ErrorKind::BrokenPipe)
    })
}

/// `relink resolve BASE [REF...]`.
fn run_resolve(args: &ResolveArgs) -> anyhow::Result<Outcome> {
    let base = BaseUrl::parse(&args.base, args.rules.into()).map_err(UsageError::from)?;
    let mut out = BufWriter::new(io::stdout().lock());
    let mut outcome = Outcome::Done;
    // Writes the resolution of one reference; says whether there was one.
    let emit = |reference: &str, out: &mut BufWriter<io::StdoutLock<'_>>| -> io::Result<bool> {
        match base.resolve(reference) {
            Ok(url) => writeln!(out, "{url}").map(|()| true),
            Err(err) => {
                eprintln!("relink: {err}");
                Ok(false)
            }
        }
    };
    if args.references.is_empty() {
        let mut input = io::stdin().lock();
        let mut line = Vec::new();
        let mut number = 0usize;
        loop {
            // Flush before a read that may wait, so a script driving relink
            // line by line gets each answer at once.
            if input.fill_buf().map(|b| b.is_empty()).unwrap_or(true) {
                out.flush().context("writing standard output")?;
            }
            line.clear();
            if input
                .read_until(b'\n', &mut line)
                .context("reading standard input")?
                == 0
            {
                break;
            }
            number += 1;
            let text = line.strip_suffix(b"\n").unwrap_or(&line);
            let text = text.strip_suffix(b"\r").unwrap_or(text);
            match std::str::from_utf8(text) {
                Ok(reference) => {
                    if !emit(reference, &mut out).context("writing standard output")? {
                        outcome = Outcome::SomeFailed;
                    }
                }
                Err(_) => {
                    eprintln!("relink: standard input line {number}: not utf-8");
                    outcome = Outcome::SomeFailed;
                }
            }
        }
    } else {
        for reference in &args.references {
            if !emit(reference, &mut out).context("writing standard output")? {
                outcome = Outcome::SomeFailed;
            }
        }
    }
    out.flush().context("writing standard output")?;
    Ok(outcome)
}

/// `relink FILE...`: rewrite documents.
fn run_rewrite(args: &RewriteArgs) -> anyhow::Result<Outcome> {
    let rules: Rules = args.rules.into();
    let usage = |message: &str| anyhow::Error::new(UsageError::Message(message.to_owned()));
    if args.files.is_empty() {
        return Err(usage("no input: give a FILE, or - for standard input"));
    }
    if args.files.len() > 1 && !args.in_place {
        return Err(usage("several inputs need --in-place"));
    }
    if args.in_place && args.files.iter().any(|f| f.as_os_str() == "-") {
        return Err(usage("--in-place cannot rewrite standard input"));
    }
    let retrieved_from = args
        .retrieved_from
        .as_deref()
        .map(|url| BaseUrl::parse(url, rules).map(|url| Base::new(url, BaseSource::RetrievedFrom)))
        .transpose()
        .map_err(UsageError::from)?;
    let transport = match &args.encoding {
        Some(label) => Some(
            encoding_rs::Encoding::for_label(label.as_bytes())
                .ok_or_else(|| usage(&format!("unknown encoding '{label}'")))?,
        ),
        None => None,
    };
    let options = Options {
        rules,
        outer: retrieved_from.as_ref(),
        transport,
        ..Options::default()
    };
    let mut outcome = Outcome::Done;
    for file in &args.files {
        if let Err(err) = rewrite_one(file, &options, args) {
            if is_broken_pipe(&err) {
                return Err(err);
            }
            eprintln!("relink: {err:#}");
            outcome = Outcome::SomeFailed;
        }
    }
    Ok(outcome)
}

/// How many bytes are read to tell what an input is (an mbox's first
/// message is measured against its Content-Length).
const HEAD_BYTES: usize = 1 << 20;

/// Rewrites one input and writes it where the arguments say.
fn rewrite_one(file: &Path, options: &Options<'_>, args: &RewriteArgs) -> anyhow::Result<()> {
    let name = display_name(file);
    if file.as_os_str() != "-" && file.is_dir() {
        if maildir::is_maildir(file) {
            return rewrite_maildir(file, options, args);
        }
        anyhow::bail!("{name}: a directory that is not a Maildir");
    }
    let mut reader = open_input(file).with_context(|| format!("{name}: cannot read"))?;
    let mut head = Vec::with_capacity(8192);
    (&mut reader)
        .take(HEAD_BYTES as u64)
        .read_to_end(&mut head)
        .with_context(|| format!("{name}: cannot read"))?;
    let kind = kind::detect_file(file, &head);
    if kind == Kind::Mbox {
        let format = args
            .mbox_format
            .map_or_else(|| mbox::detect(&head), MboxFormat::from);
        let reader = io::BufReader::new(io::Cursor::new(head).chain(reader));
        return rewrite_mbox_file(file, reader, format, options, args);
    }
    let mut input = head;
    reader
        .read_to_end(&mut input)
        .with_context(|| format!("{name}: cannot read"))?;
    let (output, warnings) = match kind {
        Kind::Message => {
            let outcome = rewrite_message(&input, options);
            (outcome.output, outcome.warnings)
        }
        Kind::Css | Kind::Html => {
            let result = if kind == Kind::Css {
                document::rewrite_css(&input, options)
            } else {
                document::rewrite_html(&input, options)
            };
            let outcome = result.with_context(|| format!("{name}: cannot rewrite"))?;
            (outcome.output, outcome.warnings)
        }
        Kind::Mbox | Kind::Maildir => unreachable!("handled above"),
    };
    for warning in &warnings {
        eprintln!("relink: {name}: {warning}");
    }
    let bytes = output.as_deref().unwrap_or(&input);
    if args.in_place {
        if output.is_some() {
            write_atomically(file, bytes).with_context(|| format!("{name}: cannot write"))?;
        }
    } else if let Some(path) = &args.output {
        write_atomically(path, bytes)
            .with_context(|| format!("{}: cannot write", path.display()))?;
    } else {
        let mut stdout = io::stdout().lock();
        stdout
            .write_all(bytes)
            .and_then(|()| stdout.flush())
            .context("writing standard output")?;
    }
    Ok(())
}

/// Streams an mbox through relink, a batch of messages at a time.
fn rewrite_mbox_file(
    file: &Path,
    reader: impl BufRead,
    format: MboxFormat,
    options: &Options<'_>,
    args: &RewriteArgs,
) -> anyhow::Result<()> {
    let name = display_name(file);
    let report = |message: &mbox::ArchiveMessage| {
        for warning in &message.outcome.warnings {
            eprintln!("relink: {name}: message {}: {warning}", message.number);
        }
    };
    let target = if args.in_place {
        Some(file)
    } else {
        args.output.as_deref()
    };
    match target {
        None => {
            let mut out = BufWriter::new(io::stdout().lock());
            mbox::rewrite_mbox(reader, format, &mut out, options, report)
                .and_then(|_| out.flush())
                .context("writing standard output")?;
        }
        Some(path) => {
            let mut temp = temp_file_beside(path)?;
            let mut out = BufWriter::new(temp.as_file_mut());
            let changed = mbox::rewrite_mbox(reader, format, &mut out, options, report)
                .and_then(|changed| out.flush().map(|()| changed))
                .with_context(|| format!("{name}: cannot rewrite"))?;
            drop(out);
            // In place, a file with no change is not written at all.
            if changed || !args.in_place {
                persist(temp, path).with_context(|| format!("{}: cannot write", path.display()))?;
            }
        }
    }
    Ok(())
}

/// Rewrites each message of a Maildir, in place or into a copy under -o.
fn rewrite_maildir(root: &Path, options: &Options<'_>, args: &RewriteArgs) -> anyhow::Result<()> {
    use rayon::prelude::*;
    let name = root.display().to_string();
    if !args.in_place && args.output.is_none() {
        return Err(
            UsageError::Message(format!("{name}: a Maildir needs --in-place or -o DIR")).into(),
        );
    }
    let files = maildir::message_files(root).with_context(|| format!("{name}: cannot list"))?;
    let failures: Vec<String> = files
        .par_iter()
        .filter_map(|path| {
            rewrite_maildir_message(root, path, options, args)
                .err()
                .map(|e| format!("{e:#}"))
        })
        .collect();
    for failure in &failures {
        eprintln!("relink: {failure}");
    }
    if failures.is_empty() {
        Ok(())
    } else {
        anyhow::bail!("{name}: {} messages could not be rewritten", failures.len())
    }
}

fn rewrite_maildir_message(
    root: &Path,
    path: &Path,
    options: &Options<'_>,
    args: &RewriteArgs,
) -> anyhow::Result<()> {
    let shown = path.display();
    let input = std::fs::read(path).with_context(|| format!("{shown}: cannot read"))?;
    let outcome = rewrite_message(&input, options);
    for warning in &outcome.warnings {
        eprintln!("relink: {shown}: {warning}");
    }
    let file_name = path
        .file_name()
        .unwrap_or_default()
        .to_string_lossy()
        .into_owned();
    let bytes = outcome.output.as_deref().unwrap_or(&input);
    let new_name = maildir::sized_name(&file_name, bytes.len());
    let dir = path.parent().unwrap_or(root);
    if args.in_place {
        if outcome.output.is_some() {
            let target = dir.join(&new_name);
            write_atomically(&target, bytes).with_context(|| format!("{shown}: cannot write"))?;
            if new_name != file_name {
                std::fs::remove_file(path)
                    .with_context(|| format!("{shown}: cannot remove the old name"))?;
            }
        }
    } else if let Some(out_root) = &args.output {
        let relative = dir.strip_prefix(root).unwrap_or(Path::new(""));
        let target_dir = out_root.join(relative);
        std::fs::create_dir_all(&target_dir)
            .with_context(|| format!("{}: cannot create", target_dir.display()))?;
        write_atomically(&target_dir.join(&new_name), bytes)
            .with_context(|| format!("{shown}: cannot write"))?;
    }
    Ok(())
}

/// How an input is named in messages.
fn display_name(file: &Path) -> String {
    if file.as_os_str() == "-" {
        "standard input".to_owned()
    } else {
        file.display().to_string()
    }
}

fn open_input(file: &Path) -> io::Result<Box<dyn Read>> {
    if file.as_os_str() == "-" {
        Ok(Box::new(io::stdin().lock()))
    } else {
        Ok(Box::new(std::fs::File::open(file)?))
    }
}

/// A temporary file in the directory of `path`, to be renamed over it.
fn temp_file_beside(path: &Path) -> anyhow::Result<tempfile::NamedTempFile> {
    let dir = match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    };
    Ok(tempfile::NamedTempFile::new_in(dir)?)
}

/// Flushes a temporary file to disk and renames it over `path`, keeping an
/// existing file's permissions.
fn persist(temp: tempfile::NamedTempFile, path: &Path) -> anyhow::Result<()> {
    temp.as_file().sync_all()?;
    if let Ok(meta) = std::fs::metadata(path) {
        temp.as_file().set_permissions(meta.permissions())?;
    }
    temp.persist(path)?;
    Ok(())
}

/// Writes `bytes` to `path` through a temporary file in the same directory,
/// flushed to disk, then renamed over it; an existing file's permissions
/// are kept.
fn write_atomically(path: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    let mut temp = temp_file_beside(path)?;
    temp.write_all(bytes)?;
    persist(temp, path)
}
