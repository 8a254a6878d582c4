//! The progress bar: documents and bytes read, drawn when standard error
//! is a terminal.

use std::io::{self, IsTerminal};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};

use super::batch::{self, Destination, Job, Settings};

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
