//! The command line's flags and subcommands (clap), and the values they
//! are read into.

use std::path::PathBuf;
use std::sync::LazyLock;

use clap::builder::PossibleValue;
use clap::{Args, Parser, Subcommand, ValueEnum};
use relink::Kind;
use relink::{MboxFormat, Rules};

/// Make the relative links of documents absolute, by RFC 1808.
///
/// Reads each FILE (HTML, CSS, an XML document such as an Atom or RSS feed,
/// SVG or XHTML, a sitemap or OPML outline, a robots.txt, Markdown,
/// reStructuredText, a Jupyter notebook, a message or MHTML, an mbox, a
/// Maildir, a WARC or ARC web archive, a WACZ package, an EPUB book,
/// gzipped or not, or a directory of them; `-` for standard input), finds
/// each document's base URL in RFC 1808's order (the HTML BASE element or
/// xml:base, the message or HTTP headers, the enclosing entity,
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
pub(crate) struct Cli {
    #[command(subcommand)]
    pub(crate) command: Option<Command>,
    #[command(flatten)]
    pub(crate) rewrite: RewriteArgs,
}

#[derive(Debug, Subcommand)]
pub(crate) enum Command {
    /// Resolve references against a base URL, one result per line.
    Resolve(ResolveArgs),
    /// Show, for each document or part, the layers of its base (RFC 1808
    /// section 3) and which one gave it.
    Explain(ExplainArgs),
    /// Print every absolute URL each document links to, one a line, each
    /// once per document: `--list --format urls`, for link checkers and
    /// `xargs`.
    Links(LinksArgs),
    /// Print a completion script for a shell.
    Completions {
        /// The shell.
        shell: clap_complete::Shell,
    },
    /// Print the manual page (roff).
    Man,
}

#[derive(Debug, Args)]
pub(crate) struct ResolveArgs {
    /// The rule set to resolve with.
    #[arg(long, value_enum, default_value_t = RulesArg::Rfc1808)]
    pub(crate) rules: RulesArg,
    /// The base URL (absolute).
    pub(crate) base: String,
    /// References to resolve; with none, read one per line from standard input.
    pub(crate) references: Vec<String>,
}

/// What decides each document's base, shared by rewriting and `explain`.
#[derive(Debug, Args)]
pub(crate) struct BaseArgs {
    /// The URL the input was retrieved from: the lowest layer (RFC 1808
    /// section 3.3). For a directory, the URL of its root: each file gets
    /// this URL plus its path below the root.
    #[arg(long, value_name = "URL")]
    pub(crate) retrieved_from: Option<String>,
    /// Leave out what a directory walk finds whose path below the
    /// directory, or one of its folders, matches GLOB (`*.min.html`,
    /// `drafts`, `vendor/**`); repeatable. Left-out files are not read;
    /// under -o DIR they are copied as they are.
    #[arg(long, value_name = "GLOB")]
    pub(crate) exclude: Vec<String>,
    /// A base forced above every layer, for documents whose BASE is wrong.
    #[arg(long, value_name = "URL")]
    pub(crate) base: Option<String>,
    /// The base of embedded resources (images, media, `srcset`, CSS
    /// `url()`), standing in for --retrieved-from for them: a README's
    /// images on a raw-content host while its links go to the repository's
    /// pages. The same for every input.
    #[arg(long, value_name = "URL")]
    pub(crate) resource_base: Option<String>,
    /// The rule set to resolve with.
    #[arg(long, value_enum, default_value_t = RulesArg::Rfc1808)]
    pub(crate) rules: RulesArg,
    /// The documents' encoding, overriding what they say.
    #[arg(long, value_name = "LABEL")]
    pub(crate) encoding: Option<String>,
    /// The mbox variant, instead of guessing it.
    #[arg(long, value_enum, value_name = "FORMAT")]
    pub(crate) mbox_format: Option<MboxFormatArg>,
    /// Leave `#name` links as they are.
    #[arg(long)]
    pub(crate) keep_fragment_links: bool,
    /// Make absolute a saved page's links to the files the browser saved
    /// beside it (`NAME_files/`), which are otherwise left pointing at them.
    #[arg(long)]
    pub(crate) absolute_saved_assets: bool,
    /// Verify each web archive record's digests when writing nothing
    /// (--list, --check, --dry-run), warning of each that does not match;
    /// a rewrite always verifies them.
    #[arg(long)]
    pub(crate) verify_digests: bool,
    /// What every input is, instead of telling it by its name's extension
    /// or (with none known, and for standard input) its content.
    #[arg(long = "type", value_enum, value_name = "KIND")]
    pub(crate) kind: Option<KindArg>,
    /// An attribute that holds URLs on every HTML element, such as a
    /// lazy-loading `data-src`: NAME, NAME=url, NAME=srcset or NAME=list
    /// (space-separated URLs). Repeatable.
    #[arg(long = "attr", value_name = "NAME[=SYNTAX]")]
    pub(crate) attrs: Vec<String>,
    /// Read the lazy-loading attributes as links, on every HTML element:
    /// data-src, data-srcset (a srcset), data-original, data-lazy-src and
    /// data-background (a URL); an --attr of the same name wins.
    #[arg(long)]
    pub(crate) lazy: bool,
}

/// The examples `--help` ends with (the manual page has more).
pub(crate) const EXAMPLES: &str = "Examples:
  relink page.html --retrieved-from https://example.com/docs/page.html > page.abs.html
  relink site/ --retrieved-from https://example.com/docs/ -o site-absolute/
  relink crawl.warc.gz -o crawl.abs.warc.gz
  relink crawl.warc.gz --list --format json
  relink ~/mail/archive.mbox --in-place --backup .orig";

/// The modes that write nothing: each excludes the others, `-o` and
/// `--in-place`, one by one, so that a usage error names only the options
/// that were given.
#[derive(Debug, Args)]
pub(crate) struct RewriteArgs {
    /// The inputs: files, directories, `-` for standard input (the
    /// default when standard input is not a terminal).
    #[arg(value_name = "FILE")]
    pub(crate) files: Vec<PathBuf>,
    #[command(flatten)]
    pub(crate) base: BaseArgs,
    /// Make a site mirror work offline, as wget's --convert-links: a link
    /// to a file of the mirror becomes the relative path to it, every
    /// other link absolute. Takes one directory and --retrieved-from, the
    /// URL of its root.
    #[arg(long)]
    pub(crate) local: bool,
    /// Write to this file (one input) or under this directory (several, or
    /// a directory), instead of standard output.
    #[arg(short, long, value_name = "PATH", conflicts_with = "in_place")]
    pub(crate) output: Option<PathBuf>,
    /// Rewrite each input in place, atomically; unchanged files are not
    /// written.
    #[arg(short = 'i', long)]
    pub(crate) in_place: bool,
    /// With --in-place, keep each original as FILE + SUFFIX. An existing
    /// backup is kept (it holds the oldest original), with a warning; files
    /// ending in SUFFIX are not read when a directory is walked.
    #[arg(
        long,
        value_name = "SUFFIX",
        requires = "in_place",
        conflicts_with_all = ["output", "list", "check", "compare_rules", "diff", "dry_run"]
    )]
    pub(crate) backup: Option<String>,
    /// Print one row per link instead of the documents; write nothing.
    #[arg(
        long,
        required_if_eq_any([
            ("format", "tsv"),
            ("format", "urls"),
            ("format", "lychee"),
            ("format", "wat")
        ]),
        conflicts_with_all = ["check", "compare_rules", "diff", "dry_run", "output", "in_place"]
    )]
    pub(crate) list: bool,
    /// The format of --list's rows (text, tsv, json, urls, lychee or wat), of
    /// --check's and --compare-rules' reports (text or json), and of the
    /// summary (text or json; with --list, text).
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub(crate) format: Format,
    /// Write nothing; check that no relative link is left: say each file a
    /// rewrite would change (`would rewrite FILE (N links)`) and each file
    /// with no base that has relative links (`no base for FILE (N
    /// relative links left)`; each link with --verbose) on standard output,
    /// and exit 1 if there is one, as `rustfmt --check` and `black --check`
    /// do. With --diff, the diff too.
    #[arg(long, conflicts_with_all = ["compare_rules", "dry_run", "output", "in_place"])]
    pub(crate) check: bool,
    /// Report each relative link that RFC 1808, RFC 3986 and WHATWG rules
    /// resolve differently (where a browser would go somewhere else), on
    /// standard output; exit 1 if there is one; write nothing.
    #[arg(long, conflicts_with_all = ["diff", "dry_run", "output", "in_place"])]
    pub(crate) compare_rules: bool,
    /// Print a unified diff of what would change; write nothing.
    #[arg(long, conflicts_with_all = ["dry_run", "output", "in_place"])]
    pub(crate) diff: bool,
    /// When to colour --diff: auto (on a terminal, unless NO_COLOR is
    /// set), always or never.
    #[arg(long, value_enum, value_name = "WHEN", default_value_t = ColorArg::Auto)]
    pub(crate) color: ColorArg,
    /// Write nothing; print the summary of what would change.
    #[arg(long, conflicts_with_all = ["output", "in_place"])]
    pub(crate) dry_run: bool,
    /// How many inputs to rewrite at once (default: one per core).
    #[arg(short, long, value_name = "N")]
    pub(crate) jobs: Option<usize>,
    /// No progress bar and no summary.
    #[arg(short, long)]
    pub(crate) quiet: bool,
    /// With --check, each link a rewrite would change or left without a
    /// base, not only each file.
    #[arg(short, long, requires = "check")]
    pub(crate) verbose: bool,
    /// Treat every warning as an error: exit 1 if there is one (a document
    /// left for lack of a base included).
    #[arg(long)]
    pub(crate) strict: bool,
}

impl RewriteArgs {
    pub(crate) fn mode(&self) -> Mode {
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
pub(crate) enum Mode {
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
    pub(crate) fn writes(self) -> bool {
        self == Mode::Write
    }
}

/// `relink links FILE...`: the inputs and what decides their bases.
#[derive(Debug, Args)]
pub(crate) struct LinksArgs {
    /// The inputs: files, directories, `-` for standard input.
    #[arg(value_name = "FILE", required = true)]
    pub(crate) files: Vec<PathBuf>,
    #[command(flatten)]
    pub(crate) base: BaseArgs,
    /// How many inputs to read at once (default: one per core).
    #[arg(short, long, value_name = "N")]
    pub(crate) jobs: Option<usize>,
    /// Exit with status 1 when there were warnings, such as a document
    /// with no base url (its relative links are not listed).
    #[arg(long)]
    pub(crate) strict: bool,
    /// Write each URL as lychee reads a preprocessor's output for the
    /// input's file extension (`lychee --preprocess`): `--format lychee`.
    #[arg(long)]
    pub(crate) lychee: bool,
}

impl LinksArgs {
    /// The same run as `relink --list --format urls --quiet FILE...`: no
    /// summary, so that standard output and standard error carry only the
    /// URLs and the warnings.
    pub(crate) fn into_rewrite(self) -> RewriteArgs {
        RewriteArgs {
            files: self.files,
            base: self.base,
            local: false,
            output: None,
            in_place: false,
            backup: None,
            list: true,
            format: if self.lychee {
                Format::Lychee
            } else {
                Format::Urls
            },
            check: false,
            compare_rules: false,
            diff: false,
            color: ColorArg::Never,
            dry_run: false,
            jobs: self.jobs,
            quiet: true,
            verbose: false,
            strict: self.strict,
        }
    }
}

#[derive(Debug, Args)]
pub(crate) struct ExplainArgs {
    /// The inputs.
    #[arg(value_name = "FILE", required = true)]
    pub(crate) files: Vec<PathBuf>,
    #[command(flatten)]
    pub(crate) base: BaseArgs,
}

/// The command line's names for [`Rules`].
#[derive(Debug, Clone, Copy, ValueEnum)]
pub(crate) enum RulesArg {
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

/// A kind of input as `--type` names it: its names, aliases and help are
/// those of the kind table, [`Kind::entries`].
#[derive(Debug, Clone, Copy)]
pub(crate) struct KindArg(Kind);

/// Every `--type` value, in the table's order.
static KIND_ARGS: LazyLock<Vec<KindArg>> =
    LazyLock::new(|| Kind::entries().iter().map(|e| KindArg(e.kind)).collect());

impl ValueEnum for KindArg {
    fn value_variants<'a>() -> &'a [Self] {
        &KIND_ARGS
    }

    fn to_possible_value(&self) -> Option<PossibleValue> {
        let entry = self.0.entry();
        Some(
            PossibleValue::new(entry.name)
                .aliases(entry.aliases.iter().copied())
                .help(entry.description),
        )
    }
}

impl From<KindArg> for Kind {
    fn from(k: KindArg) -> Kind {
        k.0
    }
}

/// The command line's names for the mbox variants.
#[derive(Debug, Clone, Copy, ValueEnum)]
pub(crate) enum MboxFormatArg {
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
pub(crate) enum Format {
    /// One readable line per link; a summary in words.
    Text,
    /// Tab-separated columns, with a header row (with --list only).
    Tsv,
    /// JSON Lines: one object per link; a summary as one JSON object.
    Json,
    /// One absolute URL per line, each once per document (with --list
    /// only).
    Urls,
    /// The URLs of `urls`, each written as lychee reads the output of its
    /// `--preprocess` command for the input's file extension: `<a href>`
    /// for HTML, `[](<URL>)` for Markdown, `url()` for CSS, `<link href>`
    /// for XML, the URL alone for any other (with --list only).
    Lychee,
    /// A WAT file: a WARC of metadata records in Common Crawl's JSON
    /// layout, one per record or document (with --list only).
    Wat,
}

/// When to colour output.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum ColorArg {
    /// On a terminal, unless `NO_COLOR` is set.
    Auto,
    /// Always.
    Always,
    /// Never.
    Never,
}

/// How a run ended, short of an error that stops it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Exit {
    /// Every input went through.
    Done,
    /// Some inputs failed; the others were done.
    SomeFailed,
    /// `--check` found links to rewrite or relative links left without a
    /// base, or `--compare-rules` links the rule sets resolve differently.
    Differences,
    /// `--strict`, and there were warnings.
    Warnings,
}

/// An error that is the user's to fix (exit status 2).
#[derive(Debug, thiserror::Error)]
pub(crate) enum UsageError {
    #[error(transparent)]
    Library(#[from] relink::Error),
    #[error("{0}")]
    Message(String),
}

pub(crate) fn usage(message: impl Into<String>) -> anyhow::Error {
    UsageError::Message(message.into()).into()
}
