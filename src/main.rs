//! The `relink` command: parses flags into settings, calls the library, and
//! maps the outcome to an exit status: 0 when every input went through, 1
//! when some failed (the others still done, nothing half-written), 2 for a
//! usage error.

use std::io::{self, BufRead, BufWriter, IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use clap::{Args, CommandFactory, Parser, Subcommand, ValueEnum};
use relink::base::{Base, BaseSource};
use relink::batch::{self, Destination, Job, LinkRow, Report, Role, Settings};
use relink::kind::Kind;
use relink::mime::mbox::MboxFormat;
use relink::{BaseUrl, Rules};

/// Make the relative links of documents absolute, by RFC 1808.
///
/// Reads each FILE (HTML, CSS, a message or MHTML, an mbox, a Maildir, or a
/// directory of them; `-` for standard input), finds each document's base
/// URL in RFC 1808's order (the HTML BASE element, the message headers, the
/// enclosing entity, --retrieved-from) and writes it with every relative
/// link made absolute and every other byte unchanged.
#[derive(Debug, Parser)]
#[command(
    name = "relink",
    version,
    about,
    long_about,
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

#[derive(Debug, Args)]
struct RewriteArgs {
    /// The inputs: files, directories, `-` for standard input.
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
    #[arg(long)]
    in_place: bool,
    /// With --in-place, keep each original as FILE + SUFFIX.
    #[arg(long, value_name = "SUFFIX", requires = "in_place")]
    backup: Option<String>,
    /// Print one row per link instead of the documents.
    #[arg(long)]
    list: bool,
    /// The format of --list.
    #[arg(long, value_enum, default_value_t = ListFormat::Text, requires = "list")]
    format: ListFormat,
    /// Warn for each link that RFC 1808, RFC 3986 and WHATWG rules resolve
    /// differently (where a browser would go somewhere else).
    #[arg(long)]
    check: bool,
    /// Print a unified diff of what would change; change nothing.
    #[arg(long)]
    diff: bool,
    /// Change nothing; print the summary.
    #[arg(long)]
    dry_run: bool,
    /// How many inputs to rewrite at once (default: one per core).
    #[arg(short, long, value_name = "N")]
    jobs: Option<usize>,
    /// No progress bar and no summary.
    #[arg(short, long)]
    quiet: bool,
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

/// The formats of `--list`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum ListFormat {
    /// One readable line per link.
    Text,
    /// Tab-separated columns, with a header row.
    Tsv,
    /// JSON Lines: one object per link.
    Json,
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

fn usage(message: impl Into<String>) -> anyhow::Error {
    UsageError::Message(message.into()).into()
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Some(Command::Resolve(args)) => run_resolve(&args),
        Some(Command::Explain(args)) => run_explain(&args),
        Some(Command::Completions { shell }) => {
            clap_complete::generate(shell, &mut Cli::command(), "relink", &mut io::stdout());
            Ok(Outcome::Done)
        }
        Some(Command::Man) => clap_mangen::Man::new(Cli::command())
            .render(&mut io::stdout())
            .map(|()| Outcome::Done)
            .context("writing standard output"),
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
    // Writes the resolution of one reference, or an empty line when there
    // is none (so line N of the output answers reference N); says whether
    // there was one.
    let emit = |reference: &str, out: &mut BufWriter<io::StdoutLock<'_>>| -> io::Result<bool> {
        match base.resolve(reference) {
            Ok(url) => writeln!(out, "{url}").map(|()| true),
            Err(err) => {
                eprintln!("relink: {err}");
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
                    eprintln!("relink: standard input line {number}: not utf-8");
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
fn settings(
    base: &BaseArgs,
    destination: Destination,
    diff: bool,
    keep_details: bool,
) -> anyhow::Result<Settings> {
    let rules: Rules = base.rules.into();
    if let Some(url) = &base.retrieved_from {
        BaseUrl::parse(url, rules).map_err(UsageError::from)?;
    }
    let forced = match &base.base {
        Some(url) => Some(Base::new(
            BaseUrl::parse(url, rules).map_err(UsageError::from)?,
            BaseSource::Forced,
        )),
        None => None,
    };
    let transport = match &base.encoding {
        Some(label) => Some(
            encoding_rs::Encoding::for_label(label.as_bytes())
                .ok_or_else(|| usage(format!("unknown encoding '{label}'")))?,
        ),
        None => None,
    };
    Ok(Settings {
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
        diff,
        keep_details,
    })
}

/// The inputs, or a usage error; listing errors are printed and counted.
fn inputs(files: &[PathBuf], base: &BaseArgs) -> anyhow::Result<(Vec<Job>, usize)> {
    if files.is_empty() {
        return Err(usage(
            "no input: give a FILE, a directory, or - for standard input",
        ));
    }
    let (jobs, errors) = batch::expand(files, base.retrieved_from.as_deref());
    for error in &errors {
        eprintln!("relink: {error}");
    }
    Ok((jobs, errors.len()))
}

/// `relink FILE...`: rewrite inputs.
fn run_rewrite(args: &RewriteArgs) -> anyhow::Result<Outcome> {
    let (jobs, mut errors) = inputs(&args.files, &args.base)?;
    let documents = jobs.iter().filter(|j| j.role.is_document()).count();
    // `-o` names a directory when there are several inputs, when an input
    // is a directory, or when it is one already (or ends with `/`).
    let output_is_dir = args
        .output
        .as_ref()
        .is_some_and(|o| o.is_dir() || o.as_os_str().as_encoded_bytes().ends_with(b"/"));
    let several = documents > 1 || args.files.iter().any(|f| f.is_dir());
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
    let quiet_run = args.dry_run || args.diff;
    let destination = if quiet_run {
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
    } else if args.list || args.check {
        Destination::Nowhere
    } else if several {
        return Err(usage("several inputs need -o DIR or --in-place"));
    } else {
        Destination::Writer
    };
    let settings = settings(&args.base, destination, args.diff, args.list || args.check)?;
    let reports = run_jobs(&jobs, &settings, args.jobs, !args.quiet)?;

    let stdout = io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    if args.list && args.format == ListFormat::Tsv {
        writeln!(
            out,
            "file\tlocation\telement\tattribute\toriginal\tresolved\tbase\tbase_from\tchanged\ttarget_uri\trecord_id"
        )
        .context("writing standard output")?;
    }
    let (mut rewritten, mut warnings, mut changed) = (0, 0, 0);
    for report in &reports {
        rewritten += report.rewritten;
        changed += usize::from(report.changed);
        for warning in &report.warnings {
            eprintln!("relink: {}: {warning}", report.name);
            warnings += 1;
        }
        if let Some(error) = &report.error {
            eprintln!("relink: {error}");
            errors += 1;
        }
        if args.check {
            warnings += check(report);
        }
        if args.list {
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
    if !args.quiet {
        let written = if quiet_run {
            " (dry run: nothing written)"
        } else {
            ""
        };
        eprintln!(
            "relink: {documents} files, {changed} changed, {rewritten} links rewritten, {warnings} warnings, {errors} errors{written}"
        );
    }
    Ok(if errors > 0 {
        Outcome::SomeFailed
    } else {
        Outcome::Done
    })
}

/// Rewrites the jobs, in parallel unless one goes to standard output, and
/// returns their reports in input order.
fn run_jobs(
    jobs: &[Job],
    settings: &Settings,
    threads: Option<usize>,
    progress: bool,
) -> anyhow::Result<Vec<Report>> {
    if settings.destination == Destination::Writer {
        let mut out = io::stdout().lock();
        return jobs
            .iter()
            .map(|job| batch::process(job, settings, &mut out).context("writing standard output"))
            .collect();
    }
    let mut pool = rayon::ThreadPoolBuilder::new();
    if let Some(n) = threads {
        if n == 0 {
            return Err(usage("-j needs at least 1"));
        }
        pool = pool.num_threads(n);
    }
    let pool = pool.build().context("starting threads")?;
    let bar = (progress && jobs.len() > 1 && io::stderr().is_terminal()).then(|| {
        let bar = indicatif::ProgressBar::new(jobs.len() as u64);
        bar.set_style(
            indicatif::ProgressStyle::with_template("{bar:40} {pos}/{len} files {elapsed}")
                .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
        );
        bar
    });
    let reports: io::Result<Vec<Report>> = pool.install(|| {
        use rayon::prelude::*;
        jobs.par_iter()
            .map(|job| {
                let report = batch::process(job, settings, &mut io::sink());
                if let Some(bar) = &bar {
                    bar.inc(1);
                }
                report
            })
            .collect()
    });
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    Ok(reports?)
}

/// Warns for each link whose resolution differs between the rule sets;
/// returns how many.
fn check(report: &Report) -> usize {
    let mut found = 0;
    for row in &report.links {
        let Some(base) = &row.link.base else { continue };
        let results: Vec<String> = Rules::ALL
            .iter()
            .map(|&rules| {
                relink::url::resolve(rules, base.url.as_str(), &row.link.original)
                    .unwrap_or_else(|e| format!("(error: {e})"))
            })
            .collect();
        if results.windows(2).any(|w| w[0] != w[1]) {
            found += 1;
            let each: Vec<String> = Rules::ALL
                .iter()
                .zip(&results)
                .map(|(rules, url)| format!("{rules} {url}"))
                .collect();
            eprintln!(
                "relink: {}: {}: '{}' resolves differently: {}",
                report.name,
                row.location(),
                row.link.original,
                each.join(", ")
            );
        }
    }
    found
}

/// Escapes a value for a TSV column.
fn tsv(value: &str) -> String {
    value
        .replace('\\', "\\\\")
        .replace('\t', "\\t")
        .replace('\n', "\\n")
        .replace('\r', "\\r")
}

fn list_row(out: &mut impl Write, format: ListFormat, file: &str, row: &LinkRow) -> io::Result<()> {
    let link = &row.link;
    let base = link
        .base
        .as_ref()
        .map(|b| b.url.as_str().to_owned())
        .unwrap_or_default();
    let from = link
        .base
        .as_ref()
        .map(|b| b.source.to_string())
        .unwrap_or_else(|| "none".to_owned());
    match format {
        ListFormat::Text => writeln!(
            out,
            "{file}:{}: {} {} -> {} (base {base} from {from})",
            row.location(),
            link.place,
            link.original,
            link.resolved
        ),
        ListFormat::Tsv => writeln!(
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
        ListFormat::Json => {
            let mut value = serde_json::json!({
                "file": file,
                "message": row.message,
                "part": row.part,
                "line": link.line,
                "column": link.column,
                "element": link.place.element,
                "attribute": link.place.attribute,
                "original": link.original,
                "resolved": link.resolved,
                "base": link.base.as_ref().map(|b| b.url.as_str()),
                "base_from": from,
                "changed": link.changed,
            });
            if let Some((target_uri, record_id)) = &row.record {
                value["target_uri"] = target_uri.as_str().into();
                value["record_id"] = record_id.as_str().into();
            }
            writeln!(out, "{value}")
        }
    }
}

/// `relink explain FILE...`.
fn run_explain(args: &ExplainArgs) -> anyhow::Result<Outcome> {
    let (jobs, mut errors) = inputs(&args.files, &args.base)?;
    let settings = settings(&args.base, Destination::Nowhere, false, true)?;
    let mut out = BufWriter::new(io::stdout().lock());
    for job in jobs.iter().filter(|j| j.role.is_document()) {
        let report = batch::process(job, &settings, &mut io::sink()).context("explaining")?;
        if let Some(error) = &report.error {
            eprintln!("relink: {error}");
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
                    layer.source, layer.value, layer.status
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
