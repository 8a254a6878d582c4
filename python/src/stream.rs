//! The links of an archive as a Python iterator: read on a background
//! thread, a bounded number of links ahead of the iteration.

use std::collections::VecDeque;
use std::io::Read;
use std::path::PathBuf;
use std::sync::mpsc::{Receiver, RecvTimeoutError, SyncSender, sync_channel};
use std::sync::{Mutex, MutexGuard, PoisonError, TryLockError};
use std::thread;
use std::time::Duration;

use pyo3::prelude::*;
use pyo3::types::PyDict;
use pyo3::{pyclass, pymethods};

use crate::engine::{Archive, ArchiveReader, Row};
use crate::error::{Failure, py_err, warn_all};
use crate::io::Input;
use crate::row::row_dict;

/// How many links go through the channel at once, and how many such
/// batches may wait: the reader stays at most this far ahead.
const LINKS_PER_BATCH: usize = 256;
const BATCHES_AHEAD: usize = 16;

/// How long a wait for links goes on before signals (Ctrl-C) are looked at.
const SIGNAL_CHECK: Duration = Duration::from_millis(100);

enum Batch {
    Rows(Vec<Row>),
    /// The end: how many records or messages were read and what could not
    /// be done, or what failed.
    End(Result<(usize, Vec<String>), Failure>),
}

/// The iterator's state, behind a lock: one thread at a time takes a row.
struct StreamState {
    receiver: Receiver<Batch>,
    buffer: VecDeque<Row>,
    done: bool,
    records: Option<usize>,
    /// What could not be done, issued as warnings when the iteration ends.
    warnings: Vec<String>,
}

/// What a step of the iteration gave (a value on the stack, moved once:
/// its size costs nothing).
#[allow(clippy::large_enum_variant)]
enum Step {
    Row(Row),
    End,
    /// Nothing yet: wait for the reader.
    Wait,
}

impl StreamState {
    fn take(&mut self) -> Step {
        match self.buffer.pop_front() {
            Some(row) => Step::Row(row),
            None if self.done => Step::End,
            None => Step::Wait,
        }
    }

    /// Waits for the reader, up to `SIGNAL_CHECK`.
    fn wait(&mut self) -> Result<Step, Failure> {
        match self.receiver.recv_timeout(SIGNAL_CHECK) {
            Ok(Batch::Rows(rows)) => {
                self.buffer.extend(rows);
                Ok(self.take())
            }
            Ok(Batch::End(result)) => {
                self.done = true;
                let (records, warnings) = result?;
                self.records = Some(records);
                self.warnings = warnings;
                Ok(self.take())
            }
            Err(RecvTimeoutError::Timeout) => Ok(Step::Wait),
            Err(RecvTimeoutError::Disconnected) => {
                self.done = true;
                Err(Failure::Value("the archive's reader stopped".to_owned()))
            }
        }
    }
}

/// The links of an archive (a WARC or an mbox), read on a background
/// thread as they are taken. Safe to share between threads: each link is
/// given to one of them.
#[pyclass(module = "relink", frozen)]
pub struct LinkStream {
    state: Mutex<StreamState>,
    file: Option<String>,
}

impl LinkStream {
    fn lock(&self) -> MutexGuard<'_, StreamState> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

#[pymethods]
impl LinkStream {
    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    fn __next__<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyDict>>> {
        // The common case, a row in the buffer, without letting go of the
        // GIL.
        let mut step = match self.state.try_lock() {
            Ok(mut state) => state.take(),
            Err(TryLockError::Poisoned(poisoned)) => poisoned.into_inner().take(),
            Err(TryLockError::WouldBlock) => Step::Wait,
        };
        while let Step::Wait = step {
            step = py
                .detach(|| {
                    let mut state = self.lock();
                    match state.take() {
                        Step::Wait => state.wait(),
                        other => Ok(other),
                    }
                })
                .map_err(py_err)?;
            py.check_signals()?;
        }
        match step {
            Step::Row(row) => row_dict(py, self.file.as_deref(), &row).map(Some),
            _ => {
                let warnings = std::mem::take(&mut self.lock().warnings);
                warn_all(py, &warnings)?;
                Ok(None)
            }
        }
    }

    /// How many records (of a WARC) or messages (of an mbox) were read,
    /// once the iteration has ended; None before.
    #[getter]
    fn records(&self) -> Option<usize> {
        self.lock().records
    }
}

/// Where the background thread reads from: the input, the file it is (to
/// tell its kind by its name), and what names it in messages.
struct Source {
    input: Box<dyn Read + Send>,
    path: Option<PathBuf>,
    label: Option<String>,
}

/// Starts the reader of `input` on a background thread. A path that cannot
/// be opened fails at once; what the input is, and every read, is found
/// out on that thread, and fails during the iteration.
pub fn start(
    archive: Archive,
    input: Input,
    base: Option<&str>,
    rules: (&str, bool),
    verify_digests: bool,
) -> PyResult<LinkStream> {
    let reader = ArchiveReader::new(archive, base, rules, verify_digests).map_err(py_err)?;
    let file = input.file().map(str::to_owned);
    let path = input.path().map(PathBuf::from);
    let label = input.label().map(str::to_owned);
    let input = input.reader().map_err(py_err)?;
    let source = Source { input, path, label };
    let (sender, receiver) = sync_channel(BATCHES_AHEAD);
    thread::Builder::new()
        .name("relink-archive".to_owned())
        .spawn(move || read_links(reader, source, sender))?;
    Ok(LinkStream {
        state: Mutex::new(StreamState {
            receiver,
            buffer: VecDeque::new(),
            done: false,
            records: None,
            warnings: Vec::new(),
        }),
        file,
    })
}

/// The background thread: the links of `source`, in batches, then the end.
fn read_links(reader: ArchiveReader, source: Source, sender: SyncSender<Batch>) {
    let mut batch = Vec::with_capacity(LINKS_PER_BATCH);
    let result = reader.links(source.input, source.path.as_deref(), |row| {
        batch.push(row);
        if batch.len() < LINKS_PER_BATCH {
            return true;
        }
        let full = std::mem::replace(&mut batch, Vec::with_capacity(LINKS_PER_BATCH));
        sender.send(Batch::Rows(full)).is_ok()
    });
    let result = result.map_err(|failure| failure.in_file(source.label.as_deref()));
    if !batch.is_empty() && sender.send(Batch::Rows(batch)).is_err() {
        return;
    }
    let _ = sender.send(Batch::End(result));
}
