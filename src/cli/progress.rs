//! Jobs run in parallel in input order, with a progress bar by bytes
//! read when standard error is a terminal.

use std::io::{self, IsTerminal, Write};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};

use anyhow::Context;

use super::args::*;
use super::batch::{self, Destination, Job, Settings};
use super::report::Printer;

/// A progress bar on standard error: documents and bytes, with rate and
/// time left, moved by the bytes read (so one large archive moves it too).
pub(crate) struct Progress {
    pub(crate) bar: indicatif::ProgressBar,
    pub(crate) bytes: Arc<AtomicU64>,
    pub(crate) documents: usize,
    pub(crate) done: AtomicUsize,
}

impl Progress {
    /// A bar for the jobs, if standard error is a terminal and there is
    /// enough to show: several documents, or a megabyte.
    pub(crate) fn start(jobs: &[Job], settings: &Settings) -> Option<Progress> {
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
    pub(crate) fn job_done(&self, job: Option<&Job>) {
        let done = if job.is_some_and(|j| j.role.is_document()) {
            self.done.fetch_add(1, Ordering::Relaxed) + 1
        } else {
            self.done.load(Ordering::Relaxed)
        };
        self.bar
            .set_message(format!("{done}/{} files", self.documents));
        self.tick();
    }

    pub(crate) fn tick(&self) {
        self.bar.set_position(self.bytes.load(Ordering::Relaxed));
    }

    /// Moves the bar with the bytes read until `finished` is set.
    pub(crate) fn follow(&self, finished: &AtomicBool) {
        while !finished.load(Ordering::Relaxed) {
            self.tick();
            std::thread::park_timeout(std::time::Duration::from_millis(100));
        }
    }
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
        let mut rows = |rows: &[relink::LinkRow]| printer.rows(index, &job.name, rows);
        let done = batch::process(job, settings, out, &mut rows)
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
            let mut out = io::stdout().lock();
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
