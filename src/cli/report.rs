//! What is printed: the summary, link rows (written by the library's
//! `RowWriter` and `WatWriter`), the rows of `--check` and
//! `--compare-rules`.

use std::collections::{BTreeMap, HashMap};
use std::io::{self, BufWriter, IsTerminal, Write};
use std::sync::Mutex;

use relink::wat::{self, WatWriter};
use relink::{BaseUrl, LinkRow, RowWriter, Rules};

use super::args::*;
use super::batch::{Found, Report};
use super::color::{paint_diff, use_color};
use super::progress::Progress;

/// What a run did, as the summary says it.
#[derive(Debug, Default)]
pub(crate) struct Tally {
    /// Documents read.
    pub(crate) files: usize,
    /// Documents whose new content was written.
    pub(crate) changed: usize,
    /// Documents that would change, in a run that writes nothing.
    pub(crate) would_change: usize,
    /// Links rewritten (or that would be).
    pub(crate) links_rewritten: usize,
    /// Warnings printed.
    pub(crate) warnings: usize,
    /// Inputs that failed.
    pub(crate) errors: usize,
    /// Documents that had no base.
    pub(crate) no_base: usize,
    /// Inputs with relative links left for want of a base (`--check`).
    pub(crate) left: usize,
    /// Links `--compare-rules` reported.
    pub(crate) differences: usize,
}

/// Prints what each input gave as it comes, in input order: the rows of
/// the input at the head of the order as each of its documents, records
/// or messages is done, those of the inputs after it (read meanwhile by
/// other workers) held until their turn; then each input's warnings,
/// error and diff once it is done, and the report dropped. `--check`
/// holds an input's rows until it is done (none are printed for an input
/// that failed). What is held past [`SPOOL_BYTES`] an input goes to a
/// temporary file: memory is then bounded by the inputs read at once,
/// never by the rows of an input.
pub(crate) struct Printer<'a> {
    mode: Mode,
    format: Format,
    /// `--check` says each link, not only each file.
    verbose: bool,
    /// Whether the diffs are coloured.
    color: bool,
    progress: Option<&'a Progress>,
    state: Mutex<Printed>,
    /// The writers of each input being read: its rows, or its WAT records.
    units: Mutex<HashMap<usize, Units>>,
}

/// The writers of one input, which keep the unit being listed (its URLs
/// so far, or its WAT record).
#[derive(Default)]
struct Units {
    rows: Option<RowWriter>,
    wat: Option<WatWriter>,
}

/// The writer of the rows of input `name` in `format` (JSON Lines for a
/// WAT file, which has a writer of its own).
fn row_writer(format: Format, name: &str) -> RowWriter {
    match format {
        Format::Text => RowWriter::text(name),
        Format::Tsv => RowWriter::tsv(name),
        Format::Json | Format::Wat => RowWriter::json(name),
        Format::Urls => RowWriter::urls(),
        Format::Lychee => RowWriter::lychee(name),
    }
}

impl Units {
    /// The WAT writer of input `name`, retrieved from `url`.
    fn wat(&mut self, (name, url): (&str, Option<&str>)) -> &mut WatWriter {
        self.wat.get_or_insert_with(|| {
            let writer = WatWriter::new(name);
            match url {
                Some(url) => writer.retrieved_from(url),
                None => writer,
            }
        })
    }
}

/// What the printer has printed, and holds.
struct Printed {
    out: KeepGoing<BufWriter<io::Stdout>>,
    /// The index of the input at the head of the order.
    next: usize,
    /// The inputs at or after the head that have something held.
    held: BTreeMap<usize, Held>,
    tally: Tally,
}

/// What is held of one input.
#[derive(Default)]
struct Held {
    /// Rows printed once the input is at the head.
    rows: Spool,
    /// Rows printed once it is done, if it did not fail (`--check`).
    checked: Spool,
    /// Its report, once it is done.
    report: Option<Report>,
    /// Its relative links left for want of a base (`--check`).
    left: usize,
}

/// The most bytes of rows held in memory for one input: more go to a
/// temporary file.
const SPOOL_BYTES: usize = 1 << 20;

/// Rows held until their turn: in memory, then past [`SPOOL_BYTES`] in a
/// temporary file (removed when it is closed).
#[derive(Default)]
struct Spool {
    bytes: Vec<u8>,
    file: Option<std::fs::File>,
}

impl Spool {
    /// Holds `bytes` after those held.
    fn extend(&mut self, bytes: &[u8]) -> io::Result<()> {
        if self.file.is_none() && self.bytes.len() + bytes.len() <= SPOOL_BYTES {
            self.bytes.extend_from_slice(bytes);
            return Ok(());
        }
        let file = match &mut self.file {
            Some(file) => file,
            None => self.file.insert(tempfile::tempfile()?),
        };
        file.write_all(&self.bytes)?;
        file.write_all(bytes)?;
        self.bytes = Vec::new();
        Ok(())
    }

    /// Writes what is held to `out`, and holds nothing.
    fn write_to(&mut self, out: &mut impl Write) -> io::Result<()> {
        if let Some(mut file) = self.file.take() {
            io::Seek::seek(&mut file, io::SeekFrom::Start(0))?;
            io::copy(&mut file, out)?;
        }
        out.write_all(&self.bytes)?;
        self.bytes = Vec::new();
        Ok(())
    }
}

impl<'a> Printer<'a> {
    /// A printer for a run of `args`; the TSV header of `--list` is
    /// written at once.
    pub(crate) fn new(args: &RewriteArgs, progress: Option<&'a Progress>) -> io::Result<Self> {
        let mode = args.mode();
        // With --strict the run goes on past a closed standard output, for
        // the exit status of every input's warnings.
        let mut out = KeepGoing::new(BufWriter::new(io::stdout()), args.strict);
        if mode == Mode::List
            && let Some(header) = row_writer(args.format, "").header()
        {
            out.write_all(header.as_bytes())?;
        }
        if mode == Mode::List && args.format == Format::Wat {
            let inputs: Vec<String> = args.files.iter().map(|f| f.display().to_string()).collect();
            let mut info = Vec::new();
            wat::warcinfo(&mut info, &inputs)?;
            out.write_all(&info)?;
        }
        Ok(Printer {
            mode,
            format: args.format,
            verbose: args.verbose || args.format == Format::Json,
            color: use_color(
                args.color,
                io::stdout().is_terminal(),
                std::env::var_os("NO_COLOR").as_deref(),
            ),
            progress,
            state: Mutex::new(Printed {
                out,
                next: 0,
                held: BTreeMap::new(),
                tally: Tally::default(),
            }),
            units: Mutex::new(HashMap::new()),
        })
    }

    fn state(&self) -> std::sync::MutexGuard<'_, Printed> {
        // A worker that panicked left nothing half-done that matters here.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn units(&self) -> std::sync::MutexGuard<'_, HashMap<usize, Units>> {
        self.units.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Takes what a listing is handed of input `index`, named `name` and
    /// retrieved from `url`, in its order.
    pub(crate) fn found(
        &self,
        index: usize,
        (name, url): (&str, Option<&str>),
        found: Found<'_>,
    ) -> io::Result<()> {
        match found {
            Found::Rows(rows) => self.rows(index, (name, url), rows),
            Found::Done(done) if self.mode == Mode::List && self.format == Format::Wat => {
                let mut bytes = Vec::new();
                let mut units = self.units();
                let wat = units.entry(index).or_default().wat((name, url));
                wat.done(&mut bytes, &done.unit, done.head)?;
                drop(units);
                self.hand_over(&mut self.state(), index, &bytes)
            }
            Found::Done(..) => Ok(()),
        }
    }

    /// Takes some rows of input `index`, named `name` and retrieved from
    /// `url`, in its order.
    fn rows(
        &self,
        index: usize,
        (name, url): (&str, Option<&str>),
        rows: &[LinkRow],
    ) -> io::Result<()> {
        let mut bytes = Vec::new();
        let mut differences = 0;
        let mut left = 0;
        if self.mode == Mode::List && self.format == Format::Wat {
            let mut units = self.units();
            let wat = units.entry(index).or_default().wat((name, url));
            wat.rows(&mut bytes, rows)?;
            drop(units);
            return self.hand_over(&mut self.state(), index, &bytes);
        }
        // The input's writer, taken while its rows are written (the rows
        // of one input come one batch at a time).
        let taken = self.units().get_mut(&index).and_then(|u| u.rows.take());
        let mut writer = taken.unwrap_or_else(|| row_writer(self.format, name));
        let json = self.format == Format::Json;
        match self.mode {
            Mode::List => {
                // A row is a few hundred bytes: room made once, rows made in place.
                bytes.reserve(rows.len() * 256);
                writer.write_into(&mut bytes, rows);
            }
            Mode::Check => {
                for row in rows {
                    left += usize::from(row.link.unresolved);
                    if self.verbose && (row.link.changed || row.link.unresolved) {
                        check_row(&mut bytes, json.then_some(&mut writer), name, row)?;
                    }
                }
            }
            Mode::CompareRules => {
                let json = json.then_some(&mut writer);
                differences = compare_rules(&mut bytes, json, name, rows)?;
            }
            Mode::Write | Mode::Diff | Mode::DryRun => {}
        }
        self.units().entry(index).or_default().rows = Some(writer);
        let mut state = self.state();
        state.tally.differences += differences;
        if left > 0 {
            state.held.entry(index).or_default().left += left;
        }
        self.hand_over(&mut state, index, &bytes)
    }

    /// Prints `bytes` of input `index` now if it is at the head of the
    /// order, else holds them.
    fn hand_over(&self, state: &mut Printed, index: usize, bytes: &[u8]) -> io::Result<()> {
        if bytes.is_empty() {
            return Ok(());
        }
        if self.mode == Mode::Check {
            state.held.entry(index).or_default().checked.extend(bytes)
        } else if index == state.next {
            state.out.write_all(bytes)
        } else {
            state.held.entry(index).or_default().rows.extend(bytes)
        }
    }

    /// Takes the report of input `index`, done: prints it and every
    /// report after it that is done, in order.
    pub(crate) fn done(&self, index: usize, mut report: Report) -> io::Result<()> {
        // The input's last unit is done too; the records its WAT file
        // left out are warned of with the input's.
        let mut last = Vec::new();
        if let Some(mut wat) = self.units().remove(&index).and_then(|u| u.wat) {
            wat.finish(&mut last)?;
            report.warnings.extend(wat.take_warnings());
        }
        let mut guard = self.state();
        let state = &mut *guard;
        self.hand_over(state, index, &last)?;
        state.held.entry(index).or_default().report = Some(report);
        loop {
            let next = state.next;
            let Some(held) = state.held.get(&next) else {
                return Ok(());
            };
            if held.report.is_none() {
                return Ok(());
            }
            let held = state.held.remove(&next).unwrap_or_default();
            state.next += 1;
            self.print(state, held)?;
            // The input now at the head prints its rows as they come.
            if let Some(held) = state.held.get_mut(&state.next) {
                held.rows.write_to(&mut state.out)?;
            }
        }
    }

    /// Prints one report, done, and adds it to the tally.
    fn print(&self, state: &mut Printed, mut held: Held) -> io::Result<()> {
        let Some(mut report) = held.report.take() else {
            return Ok(());
        };
        held.rows.write_to(&mut state.out)?;
        let tally = &mut state.tally;
        if report.error.is_none() {
            // An input that failed had nothing written, nor rewritten.
            tally.links_rewritten += report.rewritten;
        }
        if report.written {
            tally.changed += 1;
        } else if report.changed && report.error.is_none() {
            tally.would_change += 1;
        }
        // A check that passes needs no base: a document without one whose
        // links are all absolute is not worth a word.
        if self.mode == Mode::Check && held.left == 0 && report.no_base > 0 {
            report
                .warnings
                .retain(|w| w.kind != relink::WarningKind::NoBase);
            report.no_base = 0;
        }
        tally.warnings += report.warnings.len();
        tally.no_base += report.no_base;
        tally.errors += usize::from(report.error.is_some());
        if !report.warnings.is_empty() || report.error.is_some() {
            let say = || {
                for warning in &report.warnings {
                    say!("warning: {}: {warning}", report.name);
                }
                if let Some(error) = &report.error {
                    say!("error: {error}");
                }
            };
            match self.progress {
                Some(progress) => progress.bar.suspend(say),
                None => say(),
            }
        }
        if report.error.is_none() {
            held.checked.write_to(&mut state.out)?;
            if self.mode == Mode::Check && !self.verbose && report.changed {
                let links = count(report.rewritten, "link", "links");
                writeln!(state.out, "would rewrite {} ({links})", report.name)?;
            }
            if self.mode == Mode::Check && !self.verbose && held.left > 0 {
                let links = count(held.left, "relative link", "relative links");
                writeln!(state.out, "no base for {} ({links} left)", report.name)?;
            }
            tally.left += usize::from(held.left > 0);
        }
        if let Some(diff) = &report.diff {
            if self.color {
                state.out.write_all(paint_diff(diff).as_bytes())?;
            } else {
                state.out.write_all(diff.as_bytes())?;
            }
        }
        Ok(())
    }

    /// Whether the run goes on past a closed standard output (`--strict`).
    pub(crate) fn keep_going(&self) -> bool {
        self.state().out.keep_going
    }

    /// Flushes standard output; the tally of the run.
    pub(crate) fn finish(self) -> io::Result<Tally> {
        let mut state = self.state.into_inner().unwrap_or_else(|e| e.into_inner());
        state.out.flush()?;
        Ok(state.tally)
    }
}

/// A writer that, when `keep_going`, takes a closed pipe for a sink: what
/// is written after it is dropped, and the run goes on, so `--strict`
/// exits with the status of every input even when standard output was
/// closed early (`relink --strict ... | head`).
pub(crate) struct KeepGoing<W> {
    inner: W,
    keep_going: bool,
    closed: bool,
}

impl<W: Write> KeepGoing<W> {
    pub(crate) fn new(inner: W, keep_going: bool) -> Self {
        KeepGoing {
            inner,
            keep_going,
            closed: false,
        }
    }

    /// The result of a write, a closed pipe made a success when going on.
    fn going_on<T>(&mut self, result: io::Result<T>, ok: T) -> io::Result<T> {
        match result {
            Err(err) if self.keep_going && err.kind() == io::ErrorKind::BrokenPipe => {
                self.closed = true;
                Ok(ok)
            }
            result => result,
        }
    }
}

impl<W: Write> Write for KeepGoing<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if self.closed {
            return Ok(buf.len());
        }
        let result = self.inner.write(buf);
        self.going_on(result, buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        if self.closed {
            return Ok(());
        }
        let result = self.inner.flush();
        self.going_on(result, ())
    }
}

/// `n` of a thing, in words: `no errors`, `1 error`, `2 errors`.
pub(crate) fn count(n: usize, one: &str, many: &str) -> String {
    match n {
        0 => format!("no {many}"),
        1 => format!("1 {one}"),
        _ => format!("{n} {many}"),
    }
}

/// Prints the summary on standard error: a line of words, or (with
/// `--format json`, when not listing) one JSON object.
pub(crate) fn print_summary(tally: &Tally, mode: Mode, format: Format) {
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

/// Whether `reference` is an absolute URL to every rule set: it has a
/// scheme, and is not the base's scheme followed by no `//` (`http:g`,
/// which WHATWG resolves against an `http:` base, as relative).
pub(crate) fn is_absolute(reference: &str, base: &str) -> bool {
    if !BaseUrl::has_scheme(reference) {
        return false;
    }
    let (scheme, rest) = reference.split_once(':').unwrap_or_default();
    let base_scheme = base.split_once(':').map_or("", |(s, _)| s);
    !scheme.eq_ignore_ascii_case(base_scheme) || rest.starts_with("//")
}

/// Reports on `out` each relative link whose resolution differs between
/// the rule sets (as JSON Lines through `json`, if given); returns how
/// many. An absolute link is left out: the rule sets may only normalise it
/// differently (`https://json.org` and `https://json.org/`), which does
/// not send a browser elsewhere.
pub(crate) fn compare_rules(
    out: &mut impl Write,
    mut json: Option<&mut RowWriter>,
    name: &str,
    rows: &[LinkRow],
) -> io::Result<usize> {
    let mut found = 0;
    for row in rows {
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
        if let Some(json) = json.as_deref_mut() {
            // The link's row, then each rule set's result (null where the
            // rules give none).
            let mut line = Vec::new();
            json.write(&mut line, std::slice::from_ref(row))?;
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
            name,
            row.location(),
            row.link.original,
            each.join(", ")
        )?;
    }
    Ok(found)
}

/// One link `--check` found a rewrite would change: where, and what it
/// would become (its row, through `json` if given).
pub(crate) fn check_row(
    out: &mut impl Write,
    json: Option<&mut RowWriter>,
    file: &str,
    row: &LinkRow,
) -> io::Result<()> {
    if let Some(json) = json {
        return json.write(out, std::slice::from_ref(row));
    }
    let link = &row.link;
    let (location, place, original) = (row.location(), &link.place, &link.original);
    match link.unresolved {
        true => writeln!(out, "{file}:{location}: {place} '{original}' left: no base"),
        false => writeln!(
            out,
            "{file}:{location}: {place} '{original}' -> {}",
            link.resolved
        ),
    }
}
