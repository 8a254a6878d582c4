//! The subcommands and the rewrite: flags made settings, inputs made
//! jobs, the destination chosen, the jobs run in parallel in input order.

use std::io::{self, BufRead, BufWriter, IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use anyhow::Context;
use relink::Kind;
use relink::{MboxFormat, Rules};

use super::args::*;
use super::batch::{self, Destination, Job, Role, Settings};
use super::hints::*;
use super::progress::*;
use super::report::*;

/// `relink resolve BASE [REF...]`.
pub(crate) fn run_resolve(args: &ResolveArgs) -> anyhow::Result<Exit> {
    let base = parse_base(&args.base, args.rules.into())?;
    let mut out = BufWriter::new(io::stdout().lock());
    let mut outcome = Exit::Done;
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
                        outcome = Exit::SomeFailed;
                    }
                }
                Err(_) => {
                    say!("error: standard input line {number}: not utf-8");
                    writeln!(out).context("writing standard output")?;
                    outcome = Exit::SomeFailed;
                }
            }
        }
    } else {
        for reference in &args.references {
            if !emit(reference, &mut out).context("writing standard output")? {
                outcome = Exit::SomeFailed;
            }
        }
    }
    out.flush().context("writing standard output")?;
    Ok(outcome)
}

/// The settings every input shares, from the base arguments.
pub(crate) fn settings(
    base: &BaseArgs,
    destination: Destination,
    mode: Mode,
) -> anyhow::Result<Settings> {
    let rules: Rules = base.rules.into();
    if let Some(url) = &base.retrieved_from {
        parse_base(url, rules)?;
    }
    // Each job carries its own retrieval URL; the rest is shared.
    let mut rewriter = relink::Rewriter::new().rules(rules);
    if let Some(url) = &base.base {
        parse_base(url, rules)?;
        rewriter = rewriter.base(url);
    }
    if let Some(url) = &base.resource_base {
        parse_base(url, rules)?;
        rewriter = rewriter.resource_base(url);
    }
    if let Some(label) = &base.encoding {
        rewriter = rewriter
            .encoding(label)
            .map_err(|_| usage(format!("unknown encoding '{label}'")))?;
    }
    for spec in &base.attrs {
        rewriter = rewriter.attribute(spec.parse().map_err(UsageError::from)?);
    }
    if base.lazy {
        rewriter = rewriter.lazy_attributes();
    }
    if base.keep_fragment_links {
        rewriter = rewriter.keep_fragment_links();
    }
    if base.absolute_saved_assets {
        rewriter = rewriter.absolute_saved_assets();
    }
    if base.verify_digests {
        rewriter = rewriter.verify_digests();
    }
    if let Some(format) = base.mbox_format {
        rewriter = rewriter.mbox_format(MboxFormat::from(format));
    }
    if let Some(kind) = base.kind {
        rewriter = rewriter.kind(Kind::from(kind));
    }
    let links = matches!(mode, Mode::List | Mode::Check | Mode::CompareRules);
    rewriter = rewriter.details(if links {
        relink::Details::Links
    } else {
        relink::Details::Counts
    });
    let writer_is_terminal = destination == Destination::Writer && io::stdout().is_terminal();
    Ok(Settings {
        rewriter: rewriter.keep_new_bytes(mode == Mode::Diff),
        writer_is_terminal,
        destination,
        diff: mode == Mode::Diff,
        units: false,
        bytes_read: None,
    })
}

/// Where a rewriting run writes, or the usage error that says how to
/// choose.
pub(crate) fn destination(
    args: &RewriteArgs,
    jobs: &[Job],
    missing: usize,
) -> anyhow::Result<Destination> {
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

/// `--local`: the mirror's root and the URL it was retrieved from.
fn local_mirror(args: &RewriteArgs) -> anyhow::Result<(&Path, &str)> {
    let (Some(prefix), [root]) = (&args.base.retrieved_from, &args.files[..]) else {
        return Err(usage(
            "--local takes one mirror directory and --retrieved-from, the URL of its root",
        ));
    };
    if !root.is_dir() {
        return Err(usage(format!(
            "--local: {}: not a directory",
            root.display()
        )));
    }
    Ok((root, prefix))
}

/// `relink FILE...`: rewrite inputs.
pub(crate) fn run_rewrite(args: &RewriteArgs) -> anyhow::Result<Exit> {
    let mode = args.mode();
    if let Some(suffix) = &args.backup {
        check_backup_suffix(suffix)?;
    }
    let backup = args.backup.as_deref();
    let local = args.local.then(|| local_mirror(args)).transpose()?;
    let (jobs, errors) = inputs(&args.files, &args.base, (Hint::Subcommands, backup))?;
    let destination = destination(args, &jobs, errors)?;
    let mut settings = settings(&args.base, destination, mode)?;
    if let Some((root, prefix)) = local {
        settings.rewriter = settings.rewriter.local_mirror(root, prefix);
    }
    // --check --diff: the diff of each file too.
    settings.diff = args.diff;
    settings.rewriter = settings.rewriter.keep_new_bytes(args.diff);
    if mode == Mode::List && args.format == Format::Wat {
        if io::stdout().is_terminal() {
            return Err(usage(
                "a WAT file is gzipped: redirect standard output to a file",
            ));
        }
        // A WAT file's links carry their element's other attributes, its
        // records their heads; every unit has its record.
        settings.rewriter = settings.rewriter.details(relink::Details::Attributes);
        settings.units = true;
    }
    let base = &args.base;
    let hints = warn_page_url_for_directory(
        &args.files,
        ("--retrieved-from", base.retrieved_from.as_deref()),
    ) + warn_page_url_for_directory(
        &args.files,
        ("--resource-base", base.resource_base.as_deref()),
    );
    let progress = (!args.quiet)
        .then(|| Progress::start(&jobs, &settings))
        .flatten();
    settings.bytes_read = progress.as_ref().map(|p| Arc::clone(&p.bytes));
    let printer = Printer::new(args, progress.as_ref()).context("writing standard output")?;
    let run = run_jobs(&jobs, &settings, args.jobs, (progress.as_ref(), &printer))
        .and_then(|()| printer.finish().context("writing standard output"));
    let mut tally = match run {
        Ok(tally) => tally,
        // Standard output closed while --check or --compare-rules wrote a
        // row: there is one, so the check fails (`set -o pipefail; relink
        // --check ... | head` must not pass).
        Err(err)
            if crate::is_broken_pipe(&err) && matches!(mode, Mode::Check | Mode::CompareRules) =>
        {
            return Ok(Exit::Differences);
        }
        Err(err) => return Err(err),
    };
    tally.files = jobs.iter().filter(|j| j.role.is_document()).count();
    tally.errors += errors;
    tally.warnings += hints;
    if !args.quiet {
        print_summary(&tally, mode, args.format);
    }
    Ok(if tally.errors > 0 {
        Exit::SomeFailed
    } else if mode == Mode::Check && tally.would_change + tally.left > 0
        || mode == Mode::CompareRules && tally.differences > 0
    {
        Exit::Differences
    } else if args.strict && tally.warnings + tally.differences > 0 {
        Exit::Warnings
    } else {
        Exit::Done
    })
}

/// Rewrites the jobs, in parallel unless one goes to standard output,
/// handing each one's rows and report to `printer` as they come. The
/// archives' batches are shared out among the `threads` workers too.
pub(crate) fn run_jobs(
    jobs: &[Job],
    settings: &Settings,
    threads: Option<usize>,
    (progress, printer): (Option<&Progress>, &Printer<'_>),
) -> anyhow::Result<()> {
    if threads == Some(0) {
        return Err(usage("-j needs at least 1"));
    }
    let finished = AtomicBool::new(false);
    let done = std::thread::scope(|scope| {
        let follower = progress.map(|p| scope.spawn(|| p.follow(&finished)));
        let done = process_jobs(jobs, settings, threads, (progress, printer));
        finished.store(true, Ordering::Relaxed);
        if let Some(follower) = follower {
            follower.thread().unpark();
        }
        done
    });
    if let Some(progress) = progress {
        progress.bar.finish_and_clear();
    }
    done
}

pub(crate) fn process_jobs(
    jobs: &[Job],
    settings: &Settings,
    threads: Option<usize>,
    (progress, printer): (Option<&Progress>, &Printer<'_>),
) -> anyhow::Result<()> {
    // Once standard output is closed, no job is begun.
    let closed = AtomicBool::new(false);
    let one = |(index, job): (usize, &Job), out: &mut dyn Write| -> io::Result<()> {
        if closed.load(Ordering::Relaxed) {
            return Ok(());
        }
        let source = (job.name.as_str(), job.retrieved_from.as_deref());
        let rows = |found: batch::Found<'_>| printer.found(index, source, found);
        let done = batch::process(job, settings, out, &rows)
            .and_then(|report| printer.done(index, report));
        if let Some(progress) = progress {
            progress.job_done(Some(job));
        }
        if done.is_err() {
            closed.store(true, Ordering::Relaxed);
        }
        done
    };
    let mut pool = rayon::ThreadPoolBuilder::new();
    if let Some(n) = threads {
        pool = pool.num_threads(n);
    }
    let pool = pool.build().context("starting threads")?;
    let done: io::Result<()> = pool.install(|| {
        if settings.destination == Destination::Writer {
            // One after another, each written whole to standard output.
            let mut out = KeepGoing::new(io::stdout().lock(), printer.keep_going());
            return jobs
                .iter()
                .enumerate()
                .try_for_each(|job| one(job, &mut out));
        }
        use rayon::prelude::*;
        jobs.par_iter()
            .enumerate()
            .map(|job| one(job, &mut io::sink()))
            .collect()
    });
    done.context("writing standard output")
}
