//! Every use of the relink crate, behind plain types: the other modules
//! speak JavaScript and name no relink item but a link's [`Row`] and its
//! fields' values ([`RowValue`]), which give the keys of the command
//! line's rows. Every input goes through the crate's one front door,
//! `Rewriter::run`, as the command line's and Python's do: it alone tells
//! what an input is.

use std::io::{self, Write};
use std::path::Path;

use relink::{Event, Input, Kind, Output, Rewriter, Rules};
pub use relink::{LinkRow as Row, RowValue};

/// What went wrong: bad arguments or input, or reading or writing.
#[derive(Debug)]
pub enum Failure {
    /// A bad base, rules name, kind, or an input that cannot be read.
    Value(String),
    /// Opening, reading or writing.
    Io(io::Error),
}

impl From<relink::Error> for Failure {
    fn from(error: relink::Error) -> Self {
        match error {
            relink::Error::Io(error) => Failure::Io(error),
            other => Failure::Value(other.to_string()),
        }
    }
}

impl From<io::Error> for Failure {
    fn from(error: io::Error) -> Self {
        Failure::Io(error)
    }
}

/// The settings every function takes: the URL the input was retrieved
/// from, the rules' name, the kind's name, and whether the lazy-loading
/// attributes are links.
#[derive(Debug, Default, Clone, Copy)]
pub struct Settings<'a> {
    pub base: Option<&'a str>,
    pub rules: Option<&'a str>,
    pub kind: Option<&'a str>,
    pub lazy: bool,
}

/// An input: a file, or bytes in memory (`text` when they came as a
/// JavaScript string, and so are UTF-8 whatever they declare).
#[derive(Debug, Clone, Copy)]
pub enum Source<'a> {
    Path(&'a Path),
    Bytes { data: &'a [u8], text: bool },
}

impl<'a> Source<'a> {
    /// The input for the front door; a file is opened here, so that a
    /// file that cannot be opened is named once, as the command line
    /// names it.
    fn input(self) -> Result<Input<'a>, Failure> {
        Ok(match self {
            Source::Path(path) => Input::file(std::fs::File::open(path)?, path),
            Source::Bytes { data, .. } => Input::bytes(data),
        })
    }

    fn is_text(self) -> bool {
        matches!(self, Source::Bytes { text: true, .. })
    }
}

/// A rewritten document: whether any byte changed, and what could not
/// be done.
#[derive(Debug)]
pub struct Rewritten {
    pub changed: bool,
    pub warnings: Vec<String>,
}

fn rules(name: Option<&str>) -> Result<Rules, Failure> {
    Ok(name.unwrap_or("rfc1808").parse::<Rules>()?)
}

fn kind(name: &str) -> Result<Kind, Failure> {
    Kind::named(name).ok_or_else(|| {
        let names: Vec<&str> = Kind::entries().iter().map(|entry| entry.name).collect();
        Failure::Value(format!(
            "unknown kind '{name}' (expected {})",
            names.join(", ")
        ))
    })
}

/// The rewrite the settings ask for; a string's bytes are read as the
/// UTF-8 they are, whatever the document declares.
fn rewriter(settings: Settings<'_>, source: Source<'_>) -> Result<Rewriter, Failure> {
    let mut rewriter = Rewriter::new().rules(rules(settings.rules)?);
    if settings.lazy {
        rewriter = rewriter.lazy_attributes();
    }
    if let Some(base) = settings.base {
        rewriter = rewriter.retrieved_from(base);
    }
    if let Some(name) = settings.kind {
        rewriter = rewriter.kind(kind(name)?);
    }
    if source.is_text() {
        rewriter = rewriter.encoding("utf-8")?;
    }
    Ok(rewriter)
}

pub fn resolve(base: &str, reference: &str, rules_name: Option<&str>) -> Result<String, Failure> {
    Ok(relink::resolve(base, reference, rules(rules_name)?)?)
}

/// An HTML document rewritten against the URL it was retrieved from,
/// its new bytes written to `output` (nothing when none changed): gives
/// whether any changed, and what could not be done.
pub fn absolutize(
    source: Source<'_>,
    base: &str,
    settings: Settings<'_>,
    output: &mut dyn Write,
) -> Result<Rewritten, Failure> {
    let Source::Bytes { data, .. } = source else {
        return Err(Failure::Value(
            "absolutize takes the document itself".into(),
        ));
    };
    let settings = Settings {
        base: Some(base),
        kind: Some("html"),
        ..settings
    };
    // Only the bytes and warnings are given back: no record of each link.
    let rewriter = rewriter(settings, source)?.details(relink::Details::Counts);
    let report = rewriter.run(Input::bytes(data), Output::WhenChanged(output), &mut |_| {
        Ok(())
    })?;
    let warnings = report.warnings.iter().map(ToString::to_string).collect();
    Ok(Rewritten {
        changed: report.changed,
        warnings,
    })
}

/// Every link of any input relink reads, handed to `each` as they are
/// found; gives what could not be done.
pub fn links(
    source: Source<'_>,
    settings: Settings<'_>,
    each: &mut (dyn FnMut(&[Row]) + Send),
) -> Result<Vec<String>, Failure> {
    let rewriter = rewriter(settings, source)?;
    given_kind_fits(source, settings.kind)?;
    let report = rewriter.run(source.input()?, Output::Nowhere, &mut |event| {
        if let Event::Rows(found) = event {
            each(found);
        }
        Ok(())
    })?;
    Ok(report.warnings.iter().map(ToString::to_string).collect())
}

/// Rewrites the file at `path` into `output`, as a stream; returns how
/// many documents, messages or records changed, and what could not be
/// done.
pub fn rewrite(
    path: &Path,
    settings: Settings<'_>,
    output: &mut dyn Write,
) -> Result<(usize, Vec<String>), Failure> {
    let source = Source::Path(path);
    let rewriter = rewriter(settings, source)?.details(relink::Details::Counts);
    given_kind_fits(source, settings.kind)?;
    let mut changed = 0;
    let report = rewriter.run(source.input()?, Output::Always(output), &mut |event| {
        if let Event::Done(done) = event {
            changed += usize::from(done.changed);
        }
        Ok(())
    })?;
    let warnings = report.warnings.iter().map(ToString::to_string).collect();
    Ok((changed, warnings))
}

/// The kind `source` reads as when none is given, as the command line
/// finds it: a run stopped at its start.
fn found_kind(source: Source<'_>) -> Option<Kind> {
    let mut found = None;
    let input = source.input().ok()?;
    let _ = Rewriter::new().run(input, Output::Nowhere, &mut |event| {
        if let Event::Start { kind, .. } = event {
            found = Some(kind);
        }
        Err(io::Error::other("the kind is known"))
    });
    found
}

/// Refuses an archive kind given for an input that is no such archive (a
/// page read as a web archive would have no links, never an error),
/// naming what it reads as. An empty input is an empty archive.
fn given_kind_fits(source: Source<'_>, given: Option<&str>) -> Result<(), Failure> {
    let (archive, not) = match given.map(kind).transpose()? {
        Some(Kind::Warc) => (Kind::Warc, "not a web archive (WARC or ARC)"),
        Some(Kind::Mbox) => (Kind::Mbox, "not an mbox"),
        _ => return Ok(()),
    };
    let empty = match source {
        Source::Path(path) => std::fs::metadata(path).is_ok_and(|meta| meta.len() == 0),
        Source::Bytes { data, .. } => data.is_empty(),
    };
    match found_kind(source) {
        Some(found) if !empty && found != archive => Err(Failure::Value(format!(
            "{not}: it reads as {} (give kind \"{}\" or none)",
            found.name(),
            found.name()
        ))),
        _ => Ok(()),
    }
}
