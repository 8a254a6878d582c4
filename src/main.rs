//! The `relink` command: parses flags, calls the library, maps the outcome to
//! an exit status (0 all went through, 1 some input failed, 2 usage error).

use std::io::{self, BufRead, BufWriter, Write};
use std::process::ExitCode;

use anyhow::Context;
use clap::{Args, Parser, Subcommand, ValueEnum};
use relink::{BaseUrl, Rules};

/// Make the relative links of documents absolute, by RFC 1808.
#[derive(Debug, Parser)]
#[command(name = "relink", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
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
#[error(transparent)]
struct UsageError(#[from] relink::Error);

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Resolve(args) => run_resolve(&args),
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
    let base = BaseUrl::parse(&args.base, args.rules.into()).map_err(UsageError)?;
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
