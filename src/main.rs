//! The `relink` command: parses flags, calls the library, maps the outcome to
//! an exit status (0 all went through, 1 some input failed, 2 usage error).

use std::io::{self, BufRead, BufWriter, Read, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context;
use clap::{Args, Parser, Subcommand, ValueEnum};
use relink::base::{Base, BaseSource};
use relink::document::{self, Options};
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
    /// The documents: HTML, or CSS (`.css`); `-` for standard input.
    #[arg(value_name = "FILE")]
    files: Vec<PathBuf>,
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

/// Rewrites one input and writes it where the arguments say.
fn rewrite_one(file: &Path, options: &Options<'_>, args: &RewriteArgs) -> anyhow::Result<()> {
    let name = display_name(file);
    let input = read_input(file).with_context(|| format!("{name}: cannot read"))?;
    let is_css = file
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("css"));
    let result = if is_css {
        document::rewrite_css(&input, options)
    } else {
        document::rewrite_html(&input, options)
    };
    let result = result.with_context(|| format!("{name}: cannot rewrite"))?;
    for warning in &result.warnings {
        eprintln!("relink: {name}: {warning}");
    }
    if args.in_place {
        if let Some(output) = &result.output {
            write_atomically(file, output).with_context(|| format!("{name}: cannot write"))?;
        }
    } else if let Some(path) = &args.output {
        write_atomically(path, result.bytes(&input))
            .with_context(|| format!("{}: cannot write", path.display()))?;
    } else {
        let mut stdout = io::stdout().lock();
        stdout
            .write_all(result.bytes(&input))
            .and_then(|()| stdout.flush())
            .context("writing standard output")?;
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

fn read_input(file: &Path) -> io::Result<Vec<u8>> {
    if file.as_os_str() == "-" {
        let mut input = Vec::new();
        io::stdin().lock().read_to_end(&mut input)?;
        Ok(input)
    } else {
        std::fs::read(file)
    }
}

/// Writes `bytes` to `path` through a temporary file in the same directory,
/// flushed to disk, then renamed over it; an existing file's permissions
/// are kept.
fn write_atomically(path: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    let dir = match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    };
    let mut temp = tempfile::NamedTempFile::new_in(dir)?;
    temp.write_all(bytes)?;
    temp.as_file().sync_all()?;
    if let Ok(meta) = std::fs::metadata(path) {
        temp.as_file().set_permissions(meta.permissions())?;
    }
    temp.persist(path)?;
    Ok(())
}
