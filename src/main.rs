//! The `relink` command: parses flags into settings, calls the library, and
//! maps the outcome to an exit status: 0 when every input went through, 1
//! when some failed (the others still done, nothing half-written), 2 for a
//! usage error.

use std::io::{self, BufRead, BufWriter, IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};

mod cli;

use anyhow::Context;
use clap::{ArgGroup, Args, CommandFactory, Parser, Subcommand, ValueEnum};
use cli::batch::{self, Destination, Job, LinkRow, Report, Role, Settings};
use relink::MboxFormat;
use relink::kind::Kind;
use relink::{Base, BaseSource};
use relink::{BaseUrl, Rules};

/// Make the relative links of documents absolute, by RFC 1808.
///
/// Reads each FILE (HTML, CSS, a message or MHTML, an mbox, a Maildir, a
/// WARC web archive, gzipped or not, or a directory of them; `-` for
/// standard input), finds each document's base URL in RFC 1808's order (the
/// HTML BASE element, the message or HTTP headers, the enclosing entity,
/// --retrieved-from or a WARC record's target URI) and writes it with every
/// relative link made absolute and every other byte unchanged.
#[derive(Debug, Parser)]
#[command(
    name = "relink",
    version,
    about = "Make the relative links of documents absolute, by RFC 1808: saved pages, site mirrors, mail archives and WARC web archives",
    long_about,
    after_help = EXAMPLES,
    args_conflicts_with_subcommands = true
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    #[command(flatten)]
    rewrite: RewriteArgs,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Resolve references against a base URL, one result per line.
    Resolve(ResolveArgs),
    /// Show, for each document or part, the layers of its base (RFC 1808
    /// section 3) and which one gave it.
    Explain(ExplainArgs),
    /// Print a completion script for a shell.
    Completions {
        /// The shell.
        shell: clap_complete::Shell,
    },
    /// Print the manual page (roff).
    Man,
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

/// What decides each document's base, shared by rewriting and `explain`.
#[derive(Debug, Args)]
struct BaseArgs {
    /// The URL the input was retrieved from: the lowest layer (RFC 1808
    /// section 3.3). For a directory, the URL of its root: each file gets
    /// this URL plus its path below the root.
    #[arg(long, value_name = "URL")]
    retrieved_from: Option<String>,
    /// A base forced above every layer, for documents whose BASE is wrong.
    #[arg(long, value_name = "URL")]
    base: Option<String>,
    /// The rule set to resolve with.
    #[arg(long, value_enum, default_value_t = RulesArg::Rfc1808)]
    rules: RulesArg,
    /// The documents' encoding, overriding what they say.
    #[arg(long, value_name = "LABEL")]
    encoding: Option<String>,
    /// The mbox variant, instead of guessing it.
    #[arg(long, value_enum, value_name = "FORMAT")]
    mbox_format: Option<MboxFormatArg>,
    /// Leave `#name` links as they are.
    #[arg(long)]
    keep_fragment_links: bool,
    /// What every input is, instead of telling it by its name's extension
    /// or (with none known, and for standard input) its content.
    #[arg(long = "type", value_enum, value_name = "KIND")]
    kind: Option<KindArg>,
    /// An attribute that holds URLs on every HTML element, such as a
    /// lazy-loading `data-src`: NAME, NAME=url, NAME=srcset or NAME=list
    /// (space-separated URLs). Repeatable.
    #[arg(long = "attr", value_name = "NAME[=SYNTAX]")]
    attrs: Vec<String>,
}

/// The examples `--help` ends with (the manual page has more).
const EXAMPLES: &str = "Examples:
  relink page.html --retrieved-from https://example.com/docs/page.html > page.abs.html
  relink site/ --retrieved-from https://example.com/docs/ -o site-absolute/
  relink crawl.warc.gz -o crawl.abs.warc.gz
  relink crawl.warc.gz --list --format json
  relink ~/mail/archive.mbox --in-place --backup .orig";

#[derive(Debug, Args)]
#[command(group(
    ArgGroup::new("mode")
        .args(["list", "check", "compare_rules", "diff", "dry_run"])
        .conflicts_with_all(["output", "in_place"])
))]
struct RewriteArgs {
    /// The inputs: files, directories, `-` for standard input (the
    /// default when standard input is not a terminal).
    #[arg(value_name = "FILE")]
    files: Vec<PathBuf>,
    #[command(flatten)]
    base: BaseArgs,
    /// Write to this file (one input) or under this directory (several, or
    /// a directory), instead of standard output.
    #[arg(short, long, value_name = "PATH", conflicts_with = "in_place")]
    output: Option<PathBuf>,
    /// Rewrite each input in place, atomically; unchanged files are not
    /// written.
    #[arg(short = 'i', long)]
    in_place: bool,
    /// With --in-place, keep each original as FILE + SUFFIX. An existing
    /// backup is kept (it holds the oldest original), with a warning; files
    /// ending in SUFFIX are not read when a directory is walked.
    #[arg(long, value_name = "SUFFIX", requires = "in_place")]
    backup: Option<String>,
    /// Print one row per link instead of the documents; write nothing.
    #[arg(long, required_if_eq("format", "tsv"))]
    list: bool,
    /// The format of --list's rows (text, tsv or json), of --check's and
    /// --compare-rules' reports (text or json), and of the summary (text or
    /// json; with --list, text).
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
    /// Write nothing; list each link a rewrite would change (file,
    /// line:column, the link) on standard output, and exit 1 if there is
    /// one, as `rustfmt --check` and `black --check` do.
    #[arg(long)]
    check: bool,
    /// Report each relative link that RFC 1808, RFC 3986 and WHATWG rules
    /// resolve differently (where a browser would go somewhere else), on
    /// standard output; exit 1 if there is one; write nothing.
    #[arg(long)]
    compare_rules: bool,
    /// Print a unified diff of what would change; write nothing.
    #[arg(long)]
    diff: bool,
    /// Write nothing; print the summary of what would change.
    #[arg(long)]
    dry_run: bool,
    /// How many inputs to rewrite at once (default: one per core).
    #[arg(short, long, value_name = "N")]
    jobs: Option<usize>,
    /// No progress bar and no summary.
    #[arg(short, long)]
    quiet: bool,
    /// Treat every warning as an error: exit 1 if there is one (a document
    /// left for lack of a base included).
    #[arg(long)]
    strict: bool,
}

impl RewriteArgs {
    fn mode(&self) -> Mode {
        if self.list {
            Mode::List
        } else if self.check {
            Mode::Check
        } else if self.compare_rules {
            Mode::CompareRules
        } else if self.diff {
            Mode::Diff
        } else if self.dry_run {
            Mode::DryRun
        } else {
            Mode::Write
        }
    }
}

/// What a rewriting run does with the documents (the modes exclude each
/// other, and all but [`Mode::Write`] write no document).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// Write them to standard output, -o or in place.
    Write,
    /// List their links.
    List,
    /// Report the links a rewrite would change.
    Check,
    /// Report links the rule sets resolve differently.
    CompareRules,
    /// Print a diff of what would change.
    Diff,
    /// Only count what would change.
    DryRun,
}

impl Mode {
    fn writes(self) -> bool {
        self == Mode::Write
    }
}

#[derive(Debug, Args)]
struct ExplainArgs {
    /// The inputs.
    #[arg(value_name = "FILE", required = true)]
    files: Vec<PathBuf>,
    #[command(flatten)]
    base: BaseArgs,
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

/// The command line's names for the kinds of input.
#[derive(Debug, Clone, Copy, ValueEnum)]
enum KindArg {
    /// An HTML document.
    Html,
    /// A style sheet.
    Css,
    /// One message, or MHTML.
    Message,
    /// An mbox archive.
    Mbox,
    /// A web archive (WARC), gzipped or not.
    Warc,
}

impl From<KindArg> for Kind {
    fn from(k: KindArg) -> Kind {
        match k {
            KindArg::Html => Kind::Html,
            KindArg::Css => Kind::Css,
            KindArg::Message => Kind::Message,
            KindArg::Mbox => Kind::Mbox,
            KindArg::Warc => Kind::Warc,
        }
    }
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

/// The formats of `--list` and of the summary.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Format {
    /// One readable line per link; a summary in words.
    Text,
    /// Tab-separated columns, with a header row (with --list only).
    Tsv,
    /// JSON Lines: one object per link; a summary as one JSON object.
    Json,
}

/// How a run ended, short of an error that stops it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Outcome {
    /// Every input went through.
    Done,
    /// Some inputs failed; the others were done.
    SomeFailed,
    /// `--check` found links to rewrite, or `--compare-rules` links the
    /// rule sets resolve differently.
    Differences,
    /// `--strict`, and there were warnings.
    Warnings,
}

/// An error that is the user's to fix (exit status 2).
#[derive(Debug, thiserror::Error)]
enum UsageError {
    #[error(transparent)]
    Library(#[from] relink::Error),
    #[error("{0}")]
    Message(String),
}

fn usage(message: impl Into<String>) -> anyhow::Error {
    UsageError::Message(message.into()).into()
}

/// Writes one line to standard error, `relink: ` first, as every message
/// of relink's is written: `relink: error: ...`, `relink: warning: ...`,
/// and the summary. A closed standard error stops nothing (and `eprintln!`
/// would panic).
macro_rules! say {
    ($($arg:tt)*) => {{
        let _ = writeln!(io::stderr().lock(), "relink: {}", format_args!($($arg)*));
    }};
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(err) => return clap_exit(&err),
    };
    let result = match cli.command {
        Some(Command::Resolve(args)) => run_resolve(&args),
        Some(Command::Explain(args)) => run_explain(&args),
        Some(Command::Completions { shell }) => {
            let mut script = Vec::new();
            clap_complete::generate(shell, &mut Cli::command(), "relink", &mut script);
            write_stdout(&script)
        }
        Some(Command::Man) => {
            let mut page = Vec::new();
            render_man(&mut page)
                .context("rendering the manual")
                .and_then(|()| write_stdout(&page))
        }
        None => run_rewrite(&cli.rewrite),
    };
    match result {
        Ok(Outcome::Done) => ExitCode::SUCCESS,
        Ok(Outcome::SomeFailed | Outcome::Differences | Outcome::Warnings) => ExitCode::from(1),
        Err(err) if is_broken_pipe(&err) => ExitCode::SUCCESS,
        Err(err) => {
            say!("error: {err:#}");
            if err.is::<UsageError>() {
                ExitCode::from(2)
            } else {
                ExitCode::from(1)
            }
        }
    }
}

/// Ends on an error of clap's (a usage error, exit status 2) in relink's
/// style, `relink: error: ...`, or prints the help or version it asked for.
fn clap_exit(err: &clap::Error) -> ExitCode {
    if !err.use_stderr() {
        // --help, --version: to standard output; a closed pipe is fine.
        let _ = err.print();
        return ExitCode::SUCCESS;
    }
    let text = err.render().to_string();
    let text = text.strip_prefix("error: ").unwrap_or(&text);
    say!("error: {}", text.trim_end());
    ExitCode::from(2)
}

/// Writes `bytes` to standard output.
fn write_stdout(bytes: &[u8]) -> anyhow::Result<Outcome> {
    let mut out = io::stdout().lock();
    out.write_all(bytes)
        .and_then(|()| out.flush())
        .context("writing standard output")?;
    Ok(Outcome::Done)
}

/// A closed standard output (`relink ... | head`) is not a failure.
fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.chain().any(|cause| {
        cause
            .downcast_ref::<io::Error>()
            .is_some_and(|e| e.kind() == io::ErrorKind::BrokenPipe)
    })
}

/// The sections of the manual page clap does not write, in roff: the
/// subcommands (without pages of their own to refer to), examples and exit
/// statuses.
const MAN_SECTIONS: &str = r#".SH SUBCOMMANDS
.TP
\fBrelink resolve\fR [\fB\-\-rules\fR \fIRULES\fR] \fIBASE\fR [\fIREF\fR...]
Resolve references against a base URL, one result per line (references read from standard input when none is given)
.TP
\fBrelink explain\fR \fIFILE\fR...
Show, for each document or part, the layers of its base (RFC 1808 section 3) and which one gave it
.TP
\fBrelink completions\fR \fISHELL\fR
Print a completion script for a shell
.TP
\fBrelink man\fR
Print this manual page
.SH EXAMPLES
.TP
relink page.html \-\-retrieved\-from https://example.com/docs/page.html > page.abs.html
One saved page, to standard output.
.TP
relink site/ \-\-retrieved\-from https://example.com/docs/ \-o site\-absolute/
A site mirror, copied with each file given the URL of its path below the root.
.TP
relink ~/mail/archive.mbox \-i \-\-backup .orig
An mbox rewritten in place, the original kept.
.TP
relink site/ \-\-retrieved\-from https://example.com/docs/ \-\-diff
What would change, as a unified diff; nothing written.
.TP
relink site/ \-\-retrieved\-from https://example.com/docs/ \-\-check
Lists the links a rewrite would change, and exits 1 if there is one (nothing written).
.TP
relink page.html \-\-retrieved\-from https://example.com/ \-\-compare\-rules
The relative links RFC 1808, RFC 3986 and browsers resolve differently.
.TP
relink crawl.warc.gz \-o crawl.abs.warc.gz
A web archive: each record's payload rewritten against its own target URI, the file still gzipped a member per record.
.TP
relink crawl.warc.gz \-\-list \-\-format json
Every link of a web archive, one JSON object per line.
.TP
relink resolve 'http://a/b/c/d;p?q' ../g
Resolve one reference: prints http://a/b/g (quoted: a shell reads ; and ? itself).
.SH "EXIT STATUS"
.TP
0
Every input went through.
.TP
1
Some input failed (each error names it; the other inputs are still done, and nothing is left half\-written); or \fB\-\-check\fR found a link to rewrite, \fB\-\-compare\-rules\fR a link the rule sets resolve differently, or \fB\-\-strict\fR a warning.
.TP
2
A usage error: nothing was read or written.
"#;

/// `relink man`: clap's sections, then [`MAN_SECTIONS`].
fn render_man(out: &mut dyn Write) -> io::Result<()> {
    let man = clap_mangen::Man::new(Cli::command());
    man.render_title(out)?;
    man.render_name_section(out)?;
    man.render_synopsis_section(out)?;
    man.render_description_section(out)?;
    man.render_options_section(out)?;
    out.write_all(MAN_SECTIONS.as_bytes())?;
    man.render_version_section(out)
}

/// Whether `text` starts with a scheme (RFC 1808 section 2.1: a letter,
/// then letters, digits, `+`, `-` or `.`, then `:`): an absolute URL.
fn has_scheme(text: &str) -> bool {
    match text.split_once(':') {
        Some((scheme, _)) => {
            scheme.starts_with(|c: char| c.is_ascii_alphabetic())
                && scheme
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c))
        }
        None => false,
    }
}

/// Parses a base URL given on the command line; one without a scheme gets
/// a hint (see [`suggest_url`]).
fn parse_base(text: &str, rules: Rules) -> anyhow::Result<BaseUrl> {
    BaseUrl::parse(text, rules).map_err(|err| match suggest_url(text) {
        Some(url) => usage(format!("{err}: did you mean {url}?")),
        None => UsageError::from(err).into(),
    })
}

/// The URL a base given without a scheme was likely meant to be: a path
/// (`./library/`, `/srv/www/`, or a file or directory that exists) is the
/// `file:` URL of its absolute path, a directory's ending with `/`; a
/// text that starts like a host name (`example.com/x`) an `https:` URL.
fn suggest_url(text: &str) -> Option<String> {
    if has_scheme(text) || text.is_empty() {
        return None;
    }
    let path = std::path::Path::new(text);
    if text.starts_with(['.', '/']) || path.exists() {
        let absolute = std::fs::canonicalize(path)
            .or_else(|_| std::path::absolute(path))
            .ok()?;
        let url = if text.ends_with('/') || absolute.is_dir() {
            url::Url::from_directory_path(&absolute)
        } else {
            url::Url::from_file_path(&absolute)
        };
        return url.ok().map(String::from);
    }
    let host = text.split('/').next().unwrap_or("");
    (host.contains('.') || host == "localhost").then(|| format!("https://{text}"))
}

/// `relink resolve BASE [REF...]`.
fn run_resolve(args: &ResolveArgs) -> anyhow::Result<Outcome> {
    let base = parse_base(&args.base, args.rules.into())?;
    let mut out = BufWriter::new(io::stdout().lock());
    let mut outcome = Outcome::Done;
    // Writes the resolution of one reference, or an empty line when there
    // is none (so line N of the output answers reference N); says whether
    // there was one.
    let emit = |reference: &str, out: &mut BufWriter<io::StdoutLock<'_>>| -> io::Result<bool> {
        match base.resolve(reference) {
            Ok(url) => writeln!(out, "{url}").map(|()| true),
            Err(err) => {
                say!("error: {err}");
                writeln!(out).map(|()| false)
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
                    say!("error: standard input line {number}: not utf-8");
                    writeln!(out).context("writing standard output")?;
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

/// The settings every input shares, from the base arguments.
fn settings(base: &BaseArgs, destination: Destination, mode: Mode) -> anyhow::Result<Settings> {
    let rules: Rules = base.rules.into();
    if let Some(url) = &base.retrieved_from {
        parse_base(url, rules)?;
    }
    let forced = match &base.base {
        Some(url) => Some(Base::new(parse_base(url, rules)?, BaseSource::Forced)),
        None => None,
    };
    let transport = match &base.encoding {
        Some(label) => Some(
            encoding_rs::Encoding::for_label(label.as_bytes())
                .ok_or_else(|| usage(format!("unknown encoding '{label}'")))?,
        ),
        None => None,
    };
    let writer_is_terminal = destination == Destination::Writer && io::stdout().is_terminal();
    Ok(Settings {
        writer_is_terminal,
        rules,
        forced,
        keep_fragment_links: base.keep_fragment_links,
        transport,
        mbox_format: base.mbox_format.map(MboxFormat::from),
        kind: base.kind.map(Kind::from),
        extra_attributes: base
            .attrs
            .iter()
            .map(|spec| spec.parse())
            .collect::<Result<_, relink::Error>>()
            .map_err(UsageError::from)?,
        destination,
        diff: mode == Mode::Diff,
        keep_details: matches!(mode, Mode::List | Mode::Check | Mode::CompareRules),
        bytes_read: None,
    })
}

/// The subcommands, for the hint given when a missing input is named like
/// one.
const SUBCOMMANDS: [&str; 4] = ["resolve", "explain", "completions", "man"];

/// The number of one-character edits from `a` to `b`.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, &cb) in b.iter().enumerate() {
            let above = row[j + 1];
            row[j + 1] = (above + 1)
                .min(row[j] + 1)
                .min(diagonal + usize::from(ca != cb));
            diagonal = above;
        }
    }
    row[b.len()]
}

/// The subcommand a mistyped first argument was likely meant to be.
fn near_subcommand(arg: &std::path::Path) -> Option<&'static str> {
    let text = arg.to_str()?;
    if text.contains(['/', '.']) {
        return None;
    }
    SUBCOMMANDS.into_iter().find(|name| {
        let distance = edit_distance(text, name);
        distance <= 1 || (distance == 2 && name.len() >= 7)
    })
}

/// Whether a missing first input gets the hint of a subcommand.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Hint {
    /// It may be a mistyped subcommand.
    Subcommands,
    /// It is not in a subcommand's place.
    None,
}

/// The inputs that exist (or are `-`), and how many do not: each missing
/// one is an error naming it. A missing first input named like a
/// subcommand is a usage error.
fn existing(files: &[PathBuf], hint: Hint) -> anyhow::Result<(Vec<PathBuf>, usize)> {
    let mut found = Vec::with_capacity(files.len());
    let mut missing = 0;
    for (n, file) in files.iter().enumerate() {
        let gone = file.as_os_str() != "-"
            && std::fs::metadata(file).is_err_and(|e| e.kind() == io::ErrorKind::NotFound);
        if !gone {
            found.push(file.clone());
            continue;
        }
        let name = file.display();
        if let Some(command) = near_subcommand(file).filter(|_| n == 0 && hint == Hint::Subcommands)
        {
            return Err(usage(format!(
                "{name}: no such file or directory (did you mean `relink {command}`?)"
            )));
        }
        say!("error: {name}: no such file or directory");
        missing += 1;
    }
    Ok((found, missing))
}

/// The inputs, or a usage error; missing inputs and listing errors are
/// printed and counted. With no FILE, standard input is read unless it is
/// a terminal.
fn inputs(
    files: &[PathBuf],
    base: &BaseArgs,
    (hint, backup): (Hint, Option<&str>),
) -> anyhow::Result<(Vec<Job>, usize)> {
    let stdin = [PathBuf::from("-")];
    let files = if !files.is_empty() {
        files
    } else if !io::stdin().is_terminal() {
        &stdin
    } else {
        return Err(usage(
            "no input: give a FILE, a directory, or - for standard input",
        ));
    };
    let (files, missing) = existing(files, hint)?;
    let (jobs, errors) = batch::expand(&files, base.retrieved_from.as_deref(), backup);
    for error in &errors {
        say!("error: {error}");
    }
    Ok((jobs, missing + errors.len()))
}

/// Warns when `--retrieved-from` names a page but an input is a directory:
/// each file would get a URL below the page's (`.../index.html/a.html`).
/// Returns how many warnings it gave.
fn warn_page_url_for_directory(files: &[PathBuf], retrieved_from: Option<&str>) -> usize {
    let Some(url) = retrieved_from else { return 0 };
    let Some(dir) = files.iter().find(|f| f.is_dir()) else {
        return 0;
    };
    let Some((parent, page)) = page_of(url) else {
        return 0;
    };
    say!(
        "warning: --retrieved-from {url} names a page, but {} is a directory: its files get URLs below it ({url}/{page}); give the directory's URL, {parent}",
        dir.display()
    );
    1
}

/// The URL of the directory a page URL is in and the page's name, when the
/// URL's last path segment is named like a document (`index.html`).
fn page_of(url: &str) -> Option<(&str, &str)> {
    let path = url.split(['?', '#']).next().unwrap_or(url);
    let (parent, last) = path.rsplit_once('/')?;
    if last.is_empty() || parent.ends_with('/') || !parent.contains("//") && !parent.contains(':') {
        // No path segment at all (`https://example.com`), or no URL.
        return None;
    }
    relink::kind::from_name(std::path::Path::new(last)).map(|_| (&url[..parent.len() + 1], last))
}

/// Where a rewriting run writes, or the usage error that says how to
/// choose.
fn destination(args: &RewriteArgs, jobs: &[Job], missing: usize) -> anyhow::Result<Destination> {
    let documents = jobs.iter().filter(|j| j.role.is_document()).count();
    // `-o` names a directory when there are several inputs, when an input
    // is a directory, or when it is one already (or ends with `/`).
    let output_is_dir = args
        .output
        .as_ref()
        .is_some_and(|o| o.is_dir() || o.as_os_str().as_encoded_bytes().ends_with(b"/"));
    let dirs: Vec<&PathBuf> = args.files.iter().filter(|f| f.is_dir()).collect();
    let several = documents + missing > 1 || !dirs.is_empty();
    let stdin = jobs.iter().any(|j| j.source == batch::Source::Stdin);
    if args.in_place && stdin {
        return Err(usage("--in-place cannot rewrite standard input"));
    }
    if output_is_dir && stdin {
        return Err(usage("standard input needs -o FILE, not a directory"));
    }
    if args.in_place && args.backup.is_some() && jobs.iter().any(|j| j.role == Role::MaildirMessage)
    {
        return Err(usage(
            "--backup cannot be used on a Maildir: a backup in cur/ or new/ would be read as a message",
        ));
    }
    Ok(if !args.mode().writes() {
        Destination::Nowhere
    } else if args.in_place {
        Destination::InPlace {
            backup: args.backup.clone(),
        }
    } else if let Some(path) = &args.output {
        if several || output_is_dir {
            Destination::Dir(path.clone())
        } else {
            Destination::File(path.clone())
        }
    } else if let ([dir], 1) = (dirs.as_slice(), args.files.len()) {
        return Err(usage(format!(
            "{} is a directory: give -o DIR to write a copy, or --in-place",
            dir.display()
        )));
    } else if several {
        return Err(usage(
            "several inputs need -o DIR or --in-place (or --check, --dry-run, --diff, --list, --compare-rules)",
        ));
    } else {
        Destination::Writer
    })
}

/// A `--backup` suffix that cannot serve: empty (the backup would be the
/// file), holding a `/`, or making a name relink reads as a document
/// (`.html`: the next run would rewrite the backup).
fn check_backup_suffix(suffix: &str) -> anyhow::Result<()> {
    if suffix.is_empty() || suffix.contains('/') {
        return Err(usage(format!(
            "--backup '{suffix}': give a suffix such as .orig, added to each file's name"
        )));
    }
    let named = format!("page{suffix}");
    if relink::kind::from_name(std::path::Path::new(&named)).is_some() {
        return Err(usage(format!(
            "--backup '{suffix}': a backup named like {named} would be read as a document"
        )));
    }
    Ok(())
}

/// `relink FILE...`: rewrite inputs.
fn run_rewrite(args: &RewriteArgs) -> anyhow::Result<Outcome> {
    let mode = args.mode();
    if let Some(suffix) = &args.backup {
        check_backup_suffix(suffix)?;
    }
    let backup = args.backup.as_deref();
    let (jobs, errors) = inputs(&args.files, &args.base, (Hint::Subcommands, backup))?;
    let destination = destination(args, &jobs, errors)?;
    let mut settings = settings(&args.base, destination, mode)?;
    let hints = warn_page_url_for_directory(&args.files, args.base.retrieved_from.as_deref());
    let progress = (!args.quiet)
        .then(|| Progress::start(&jobs, &settings))
        .flatten();
    settings.bytes_read = progress.as_ref().map(|p| Arc::clone(&p.bytes));
    let reports = run_jobs(&jobs, &settings, args.jobs, progress.as_ref())?;
    let mut tally = print_reports(args, &reports)?;
    tally.files = jobs.iter().filter(|j| j.role.is_document()).count();
    tally.errors += errors;
    tally.warnings += hints;
    if !args.quiet {
        print_summary(&tally, mode, args.format);
    }
    Ok(if tally.errors > 0 {
        Outcome::SomeFailed
    } else if mode == Mode::Check && tally.would_change > 0
        || mode == Mode::CompareRules && tally.differences > 0
    {
        Outcome::Differences
    } else if args.strict && tally.warnings + tally.differences > 0 {
        Outcome::Warnings
    } else {
        Outcome::Done
    })
}

/// What a run did, as the summary says it.
#[derive(Debug, Default)]
struct Tally {
    /// Documents read.
    files: usize,
    /// Documents whose new content was written.
    changed: usize,
    /// Documents that would change, in a run that writes nothing.
    would_change: usize,
    /// Links rewritten (or that would be).
    links_rewritten: usize,
    /// Warnings printed.
    warnings: usize,
    /// Inputs that failed.
    errors: usize,
    /// Documents that had no base.
    no_base: usize,
    /// Links `--compare-rules` reported.
    differences: usize,
}

/// Prints each report's warnings, errors, rows and diff; returns the tally.
fn print_reports(args: &RewriteArgs, reports: &[Report]) -> anyhow::Result<Tally> {
    let mode = args.mode();
    let mut out = BufWriter::new(io::stdout().lock());
    if mode == Mode::List && args.format == Format::Tsv {
        writeln!(
            out,
            "file\tlocation\telement\tattribute\toriginal\tresolved\tbase\tbase_from\tchanged\ttarget_uri\trecord_id"
        )
        .context("writing standard output")?;
    }
    let mut tally = Tally::default();
    for report in reports {
        if report.error.is_none() {
            // An input that failed had nothing written, nor rewritten.
            tally.links_rewritten += report.rewritten;
        }
        if report.written {
            tally.changed += 1;
        } else if report.changed && report.error.is_none() {
            tally.would_change += 1;
        }
        for warning in &report.warnings {
            say!("warning: {}: {warning}", report.name);
            tally.warnings += 1;
        }
        tally.no_base += report.no_base;
        if let Some(error) = &report.error {
            say!("error: {error}");
            tally.errors += 1;
        }
        if mode == Mode::CompareRules {
            tally.differences +=
                compare_rules(&mut out, args.format, report).context("writing standard output")?;
        }
        if mode == Mode::Check && report.error.is_none() {
            for row in report.links.iter().filter(|row| row.link.changed) {
                check_row(&mut out, args.format, &report.name, row)
                    .context("writing standard output")?;
            }
        }
        if mode == Mode::List {
            for row in &report.links {
                list_row(&mut out, args.format, &report.name, row)
                    .context("writing standard output")?;
            }
        }
        if let Some(diff) = &report.diff {
            out.write_all(diff.as_bytes())
                .context("writing standard output")?;
        }
    }
    out.flush().context("writing standard output")?;
    Ok(tally)
}

/// `n` of a thing, in words: `no errors`, `1 error`, `2 errors`.
fn count(n: usize, one: &str, many: &str) -> String {
    match n {
        0 => format!("no {many}"),
        1 => format!("1 {one}"),
        _ => format!("{n} {many}"),
    }
}

/// Prints the summary on standard error: a line of words, or (with
/// `--format json`, when not listing) one JSON object.
fn print_summary(tally: &Tally, mode: Mode, format: Format) {
    if format == Format::Json && mode != Mode::List {
        // The same keys, whatever the mode, so a script reads each run alike.
        let value = serde_json::json!({
            "files": tally.files,
            "changed": tally.changed,
            "would_change": tally.would_change,
            "links_rewritten": tally.links_rewritten,
            "warnings": tally.warnings + tally.differences,
            "errors": tally.errors,
            "no_base": tally.no_base,
        });
        let _ = writeln!(io::stderr().lock(), "{value}");
        return;
    }
    if tally.no_base > 0 {
        let documents = count(tally.no_base, "document has", "documents have");
        say!(
            "note: {documents} no base url: give --retrieved-from URL, the address it was downloaded from"
        );
    }
    let files = count(tally.files, "file", "files");
    let (changed, links) = if mode.writes() {
        let links = count(tally.links_rewritten, "link rewritten", "links rewritten");
        (format!("{} changed", tally.changed), links)
    } else {
        let links = count(
            tally.links_rewritten,
            "link would be rewritten",
            "links would be rewritten",
        );
        (format!("{} would change", tally.would_change), links)
    };
    let left = match tally.no_base {
        0 => String::new(),
        1 => ", 1 document left without a base url".to_owned(),
        n => format!(", {n} documents left without a base url"),
    };
    let warnings = count(tally.warnings + tally.differences, "warning", "warnings");
    let errors = count(tally.errors, "error", "errors");
    let nothing = if mode.writes() {
        ""
    } else {
        " (nothing written)"
    };
    say!("{files}, {changed}{left}, {links}, {warnings}, {errors}{nothing}");
}

/// A progress bar on standard error: documents and bytes, with rate and
/// time left, moved by the bytes read (so one large archive moves it too).
struct Progress {
    bar: indicatif::ProgressBar,
    bytes: Arc<AtomicU64>,
    documents: usize,
    done: AtomicUsize,
}

impl Progress {
    /// A bar for the jobs, if standard error is a terminal and there is
    /// enough to show: several documents, or a megabyte.
    fn start(jobs: &[Job], settings: &Settings) -> Option<Progress> {
        let to_terminal = settings.destination == Destination::Writer && io::stdout().is_terminal();
        if !io::stderr().is_terminal() || to_terminal {
            return None;
        }
        let documents: Vec<&Job> = jobs.iter().filter(|j| j.role.is_document()).collect();
        let mut total = 0;
        for job in &documents {
            match &job.source {
                batch::Source::File(path) => {
                    total += std::fs::metadata(path).map_or(0, |m| m.len());
                }
                batch::Source::Stdin => return None,
            }
        }
        if documents.len() < 2 && total < 1 << 20 {
            return None;
        }
        let bar = indicatif::ProgressBar::new(total);
        bar.set_style(
            indicatif::ProgressStyle::with_template(
                "{msg} {bytes}/{total_bytes} {bytes_per_sec} {eta} left {wide_bar}",
            )
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
        );
        let progress = Progress {
            bar,
            bytes: Arc::new(AtomicU64::new(0)),
            documents: documents.len(),
            done: AtomicUsize::new(0),
        };
        progress.job_done(None);
        Some(progress)
    }

    /// Counts a job as done (a document when it is one) and shows it.
    fn job_done(&self, job: Option<&Job>) {
        let done = if job.is_some_and(|j| j.role.is_document()) {
            self.done.fetch_add(1, Ordering::Relaxed) + 1
        } else {
            self.done.load(Ordering::Relaxed)
        };
        self.bar
            .set_message(format!("{done}/{} files", self.documents));
        self.tick();
    }

    fn tick(&self) {
        self.bar.set_position(self.bytes.load(Ordering::Relaxed));
    }

    /// Moves the bar with the bytes read until `finished` is set.
    fn follow(&self, finished: &AtomicBool) {
        while !finished.load(Ordering::Relaxed) {
            self.tick();
            std::thread::park_timeout(std::time::Duration::from_millis(100));
        }
    }
}

/// Rewrites the jobs, in parallel unless one goes to standard output, and
/// returns their reports in input order.
fn run_jobs(
    jobs: &[Job],
    settings: &Settings,
    threads: Option<usize>,
    progress: Option<&Progress>,
) -> anyhow::Result<Vec<Report>> {
    if threads == Some(0) {
        return Err(usage("-j needs at least 1"));
    }
    let finished = AtomicBool::new(false);
    let reports = std::thread::scope(|scope| {
        let follower = progress.map(|p| scope.spawn(|| p.follow(&finished)));
        let reports = process_jobs(jobs, settings, threads, progress);
        finished.store(true, Ordering::Relaxed);
        if let Some(follower) = follower {
            follower.thread().unpark();
        }
        reports
    });
    if let Some(progress) = progress {
        progress.bar.finish_and_clear();
    }
    reports
}

fn process_jobs(
    jobs: &[Job],
    settings: &Settings,
    threads: Option<usize>,
    progress: Option<&Progress>,
) -> anyhow::Result<Vec<Report>> {
    let one = |job: &Job, out: &mut dyn Write| {
        let report = batch::process(job, settings, out);
        if let Some(progress) = progress {
            progress.job_done(Some(job));
        }
        report
    };
    if settings.destination == Destination::Writer {
        let mut out = io::stdout().lock();
        return jobs
            .iter()
            .map(|job| one(job, &mut out).context("writing standard output"))
            .collect();
    }
    let mut pool = rayon::ThreadPoolBuilder::new();
    if let Some(n) = threads {
        pool = pool.num_threads(n);
    }
    let pool = pool.build().context("starting threads")?;
    let reports: io::Result<Vec<Report>> = pool.install(|| {
        use rayon::prelude::*;
        jobs.par_iter()
            .map(|job| one(job, &mut io::sink()))
            .collect()
    });
    Ok(reports?)
}

/// Whether `reference` is an absolute URL to every rule set: it has a
/// scheme, and is not the base's scheme followed by no `//` (`http:g`,
/// which WHATWG resolves against an `http:` base, as relative).
fn is_absolute(reference: &str, base: &str) -> bool {
    if !has_scheme(reference) {
        return false;
    }
    let (scheme, rest) = reference.split_once(':').unwrap_or_default();
    let base_scheme = base.split_once(':').map_or("", |(s, _)| s);
    !scheme.eq_ignore_ascii_case(base_scheme) || rest.starts_with("//")
}

/// Reports on `out` each relative link whose resolution differs between
/// the rule sets; returns how many. An absolute link is left out: the rule
/// sets may only normalise it differently (`https://json.org` and
/// `https://json.org/`), which does not send a browser elsewhere.
fn compare_rules(out: &mut impl Write, format: Format, report: &Report) -> io::Result<usize> {
    let mut found = 0;
    for row in &report.links {
        let Some(base) = &row.link.base else { continue };
        if is_absolute(&row.link.original, base.url.as_str()) {
            continue;
        }
        let results: Vec<Result<String, String>> = Rules::ALL
            .iter()
            .map(|&rules| {
                relink::resolve(base.url.as_str(), &row.link.original, rules)
                    .map_err(|e| e.to_string())
            })
            .collect();
        if results.windows(2).all(|w| w[0] == w[1]) {
            continue;
        }
        found += 1;
        if format == Format::Json {
            // The link's row, then each rule set's result (null where the
            // rules give none).
            let mut line = Vec::new();
            json_row(&mut line, &report.name, row, &base_from(row))?;
            line.truncate(line.len().saturating_sub(2));
            for (rules, result) in Rules::ALL.iter().zip(&results) {
                write!(line, ",\"{rules}\":")?;
                match result {
                    Ok(url) => serde_json::to_writer(&mut line, url)?,
                    Err(_) => line.extend_from_slice(b"null"),
                }
            }
            line.extend_from_slice(b"}\n");
            out.write_all(&line)?;
            continue;
        }
        let each: Vec<String> = Rules::ALL
            .iter()
            .zip(&results)
            .map(|(rules, result)| match result {
                Ok(url) => format!("{rules} {url}"),
                Err(err) => format!("{rules} (error: {err})"),
            })
            .collect();
        writeln!(
            out,
            "{}:{}: '{}' resolves differently: {}",
            report.name,
            row.location(),
            row.link.original,
            each.join(", ")
        )?;
    }
    Ok(found)
}

/// One link `--check` found a rewrite would change: where, and what it
/// would become.
fn check_row(out: &mut impl Write, format: Format, file: &str, row: &LinkRow) -> io::Result<()> {
    if format == Format::Json {
        return json_row(out, file, row, &base_from(row));
    }
    let link = &row.link;
    writeln!(
        out,
        "{file}:{}: {} '{}' -> {}",
        row.location(),
        link.place,
        link.original,
        link.resolved
    )
}

/// Where a link's base came from, as the command line names it.
fn base_from(row: &LinkRow) -> String {
    row.link
        .base
        .as_ref()
        .map(|b| source_name(&b.source))
        .unwrap_or_else(|| "none".to_owned())
}

/// Escapes a value for a TSV column.
fn tsv(value: &str) -> String {
    value
        .replace('\\', "\\\\")
        .replace('\t', "\\t")
        .replace('\n', "\\n")
        .replace('\r', "\\r")
}

fn list_row(out: &mut impl Write, format: Format, file: &str, row: &LinkRow) -> io::Result<()> {
    let link = &row.link;
    let base = link
        .base
        .as_ref()
        .map(|b| b.url.as_str().to_owned())
        .unwrap_or_default();
    let from = base_from(row);
    match format {
        Format::Text => writeln!(
            out,
            "{file}:{}: {} {} -> {} (base {base} from {from})",
            row.location(),
            link.place,
            link.original,
            link.resolved
        ),
        Format::Tsv => writeln!(
            out,
            "{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}",
            tsv(file),
            tsv(&row.location()),
            tsv(&link.place.element),
            tsv(&link.place.attribute),
            tsv(&link.original),
            tsv(&link.resolved),
            tsv(&base),
            tsv(&from),
            link.changed,
            tsv(row.record.as_ref().map_or("", |r| r.0.as_str())),
            tsv(row.record.as_ref().map_or("", |r| r.1.as_str())),
        ),
        Format::Json => json_row(out, file, row, &from),
    }
}

/// One link as a JSON object on one line, its keys in order (as
/// `serde_json`'s map would write them), written straight out: a listing
/// of millions of links builds no tree per row.
fn json_row(out: &mut impl Write, file: &str, row: &LinkRow, from: &str) -> io::Result<()> {
    fn text(out: &mut impl Write, key: &str, value: Option<&str>) -> io::Result<()> {
        write!(out, ",\"{key}\":")?;
        match value {
            Some(value) => serde_json::to_writer(&mut *out, value).map_err(io::Error::from),
            None => out.write_all(b"null"),
        }
    }
    let link = &row.link;
    out.write_all(b"{\"attribute\":")?;
    serde_json::to_writer(&mut *out, &link.place.attribute).map_err(io::Error::from)?;
    text(out, "base", link.base.as_ref().map(|b| b.url.as_str()))?;
    text(out, "base_from", Some(from))?;
    write!(
        out,
        ",\"changed\":{},\"column\":{}",
        link.changed, link.column
    )?;
    text(out, "element", Some(&link.place.element))?;
    text(out, "file", Some(file))?;
    write!(out, ",\"line\":{}", link.line)?;
    match row.message {
        Some(n) => write!(out, ",\"message\":{n}")?,
        None => out.write_all(b",\"message\":null")?,
    }
    text(out, "original", Some(&link.original))?;
    text(out, "part", row.part.as_deref())?;
    if let Some(record) = &row.record {
        text(out, "record_id", Some(&record.1))?;
    }
    text(out, "resolved", Some(&link.resolved))?;
    if let Some(record) = &row.record {
        text(out, "target_uri", Some(&record.0))?;
    }
    out.write_all(b"}\n")
}

/// `relink explain FILE...`.
fn run_explain(args: &ExplainArgs) -> anyhow::Result<Outcome> {
    let (jobs, mut errors) = inputs(&args.files, &args.base, (Hint::None, None))?;
    let settings = settings(&args.base, Destination::Nowhere, Mode::List)?;
    let mut out = BufWriter::new(io::stdout().lock());
    for job in jobs.iter().filter(|j| j.role.is_document()) {
        let report = batch::process(job, &settings, &mut io::sink()).context("explaining")?;
        if let Some(error) = &report.error {
            say!("error: {error}");
            errors += 1;
            continue;
        }
        writeln!(out, "{}", report.name).context("writing standard output")?;
        for (what, layers) in &report.layers {
            writeln!(out, "  {what}").context("writing standard output")?;
            if layers.is_empty() {
                writeln!(out, "    no layer gives a base: links are left as they are")
                    .context("writing standard output")?;
            }
            for layer in layers {
                writeln!(
                    out,
                    "    {}: {} ({})",
                    source_name(&layer.source),
                    layer.value,
                    layer.status
                )
                .context("writing standard output")?;
            }
        }
    }
    out.flush().context("writing standard output")?;
    Ok(if errors > 0 {
        Outcome::SomeFailed
    } else {
        Outcome::Done
    })
}

/// Where a base came from, as the command line names it: the library says
/// "the retrieval URL", the user gave `--retrieved-from`.
fn source_name(source: &BaseSource) -> String {
    match source {
        BaseSource::Forced => "--base".to_owned(),
        BaseSource::RetrievedFrom => "--retrieved-from".to_owned(),
        BaseSource::Enclosing(outer) => {
            format!("the enclosing document ({})", source_name(outer))
        }
        other => other.to_string(),
    }
}
