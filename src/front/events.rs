//! A run's events on their way to the caller, and what each unit reports
//! gathered into the run's report.

use std::io;
use std::sync::{Mutex, MutexGuard};

use super::{Done, Event, Handler, Unit};
use crate::links::UnitReport;
use crate::links::{LinkRow, LinkSink};
use crate::warc::RecordReport;

/// How many rows are gathered before they are handed on together.
pub(super) const ROWS_AT_ONCE: usize = 256;

/// The events of a run on their way to the caller's handler, the rows
/// gathered a few at a time. The first error the handler returns is kept
/// for the end of the run (standard output closed while rows were listed).
pub(super) struct Channel<'h> {
    state: Mutex<ChannelState<'h>>,
}

pub(super) struct ChannelState<'h> {
    pub(super) rows: Vec<LinkRow>,
    pub(super) handler: Handler<'h>,
    pub(super) error: Option<io::Error>,
}

impl<'h> Channel<'h> {
    pub(super) fn new(handler: Handler<'h>) -> Self {
        Channel {
            state: Mutex::new(ChannelState {
                rows: Vec::new(),
                handler,
                error: None,
            }),
        }
    }

    pub(super) fn state(&self) -> MutexGuard<'_, ChannelState<'h>> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Hands on the rows gathered, then `event`.
    pub(super) fn emit(&self, event: Option<Event<'_>>) {
        let mut state = self.state();
        let state = &mut *state;
        if state.error.is_some() {
            state.rows.clear();
            return;
        }
        let mut result = Ok(());
        if !state.rows.is_empty() {
            result = (state.handler)(Event::Rows(&state.rows));
            state.rows.clear();
        }
        if let (Ok(()), Some(event)) = (&result, event) {
            result = (state.handler)(event);
        }
        if let Err(err) = result {
            state.error = Some(err);
        }
    }

    /// Hands on the rows of a report read with no sink, and clears them.
    pub(super) fn rows_of(&self, report: &mut UnitReport) {
        if !report.rows.is_empty() {
            self.emit(Some(Event::Rows(&report.rows)));
        }
        report.rows.clear();
    }

    /// The first error the handler returned.
    pub(super) fn error(&self) -> Option<io::Error> {
        self.emit(None);
        self.state().error.take()
    }
}

impl LinkSink for Channel<'_> {
    fn row(&self, row: LinkRow) {
        let mut state = self.state();
        state.rows.push(row);
        if state.rows.len() >= ROWS_AT_ONCE {
            drop(state);
            self.emit(None);
        }
    }
}

pub(super) fn absorb(channel: &Channel<'_>, gathered: &mut UnitReport, mut done: UnitReport) {
    channel.rows_of(&mut done);
    gathered.rewritten += done.rewritten;
    gathered.without_base += done.without_base;
    gathered.warnings.extend(done.warnings);
}

/// A record of a web archive done (of a WACZ package's `entry`): its rows
/// and its event handed on. Its warnings are in the archive's summary.
pub(super) fn record_done(
    channel: &Channel<'_>,
    gathered: &mut UnitReport,
    entry: Option<&str>,
    record: RecordReport,
) {
    let changed = record.changed;
    let (name, mut done) = record.into_unit();
    let warnings = std::mem::take(&mut done.warnings);
    if let (Some(entry), Some(label)) = (entry, done.layers.first_mut()) {
        label.0 = format!("{entry} {}", label.0);
    }
    channel.rows_of(&mut done);
    channel.emit(Some(Event::Done(Done {
        unit: Unit::Record(name),
        original: None,
        output: None,
        changed,
        rewritten: done.rewritten,
        warnings: &warnings,
        head: done.head.as_deref(),
        layers: &done.layers,
    })));
    absorb(channel, gathered, done);
}
