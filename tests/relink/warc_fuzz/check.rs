//! What a rewrite of an archive must never break, as far as it can be
//! told without warcio: shared by the structure fuzzer of the integration
//! tests and the `warc` fuzz target.

use std::collections::BTreeSet;
use std::io::Read;
use std::panic::{AssertUnwindSafe, catch_unwind};

use relink::{Event, Input, Kind, Output, Rewriter, Unit};

use super::generate::QUOTED_URI;

/// What a rewrite broke.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Broken {
    /// relink panicked.
    Panic,
    /// relink refused the archive with an empty or long message.
    UnclearError,
    /// relink reported no record changed, yet the bytes differ.
    ChangedSilently,
    /// Every link was absolute, yet relink changed a record.
    ChangedNothingToRewrite,
    /// relink read WARC record text quoted inside a block as a record.
    QuotedRead,
    /// The input's gzip decodes whole, the output's does not.
    Gzip,
    /// warcio reads other records from the output than from the input.
    Records,
    /// warcio reads the input to its end, not the output.
    Unreadable,
    /// A digest that verified in the input does not in the output.
    Digest,
}

/// One archive put through relink: what it was, and what became of it.
pub struct Case {
    pub label: String,
    pub input: Vec<u8>,
    pub tags: BTreeSet<&'static str>,
    pub output: Option<Vec<u8>>,
    pub broken: Vec<(Broken, String)>,
}

fn gzip_whole(bytes: &[u8]) -> bool {
    let mut out = Vec::new();
    flate2::read::MultiGzDecoder::new(bytes)
        .read_to_end(&mut out)
        .is_ok()
}

/// `input` rewritten through the front door, read as a web archive, by
/// `rewriter`: the output, how many records changed, and whether the
/// quoted record was read as one; or the error's message.
fn rewrite_front(rewriter: Rewriter, input: &[u8]) -> Result<(Vec<u8>, usize, bool), String> {
    let mut out = Vec::new();
    let (mut changed, mut quoted) = (0, false);
    rewriter
        .run(
            Input::bytes(input).kind(Kind::Warc),
            Output::Always(&mut out),
            &mut |event| {
                if let Event::Done(done) = event
                    && let Unit::Record(name) = &done.unit
                {
                    changed += usize::from(done.changed);
                    quoted |= name.target_uri == QUOTED_URI;
                }
                Ok(())
            },
        )
        .map_err(|e| e.to_string())?;
    Ok((out, changed, quoted))
}

/// Rewrites `input` with relink's library, and checks what needs no
/// warcio.
pub fn rewrite(
    label: String,
    input: Vec<u8>,
    tags: BTreeSet<&'static str>,
    absolute: bool,
) -> Case {
    let small = tags.contains("small-limit");
    let mut case = Case {
        label,
        input,
        tags,
        output: None,
        broken: Vec::new(),
    };
    let run = catch_unwind(AssertUnwindSafe(|| match small {
        true => rewrite_front(Rewriter::new().max_payload_bytes(300), &case.input),
        false => rewrite_front(Rewriter::new(), &case.input),
    }));
    let (output, changed, quoted) = match run {
        Err(e) => {
            let what = e
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| e.downcast_ref::<&str>().map(|s| (*s).to_owned()))
                .unwrap_or_default();
            case.broken.push((Broken::Panic, what));
            return case;
        }
        Ok(Err(e)) => {
            // A refusal is an answer (the caller keeps the input), when it
            // says what is wrong.
            let message = e;
            if message.trim().is_empty() || message.len() > 300 || message.contains('\n') {
                case.broken.push((Broken::UnclearError, message));
            }
            return case;
        }
        Ok(Ok(done)) => done,
    };
    if changed == 0 && output != case.input {
        case.broken.push((
            Broken::ChangedSilently,
            format!("{} bytes in, {} out", case.input.len(), output.len()),
        ));
    }
    // Data of a gzip member that does not decode whole (a stream broken
    // off, a wrong checksum) was framed by no writer: its lengths may say
    // anything, and the record text a block quotes may be the next record
    // any reader finds (warcio refuses the file).
    let corrupt = case.input.starts_with(&[0x1f, 0x8b]) && !gzip_whole(&case.input);
    if quoted && !case.tags.contains("flip") && !corrupt {
        case.broken
            .push((Broken::QuotedRead, "a quoted record was listed".to_owned()));
    } else if absolute && !case.tags.contains("flip") && changed > 0 {
        case.broken.push((
            Broken::ChangedNothingToRewrite,
            format!("{} records changed", changed),
        ));
    }
    if case.input.starts_with(&[0x1f, 0x8b]) && gzip_whole(&case.input) && !gzip_whole(&output) {
        case.broken
            .push((Broken::Gzip, "the output does not decode".to_owned()));
    }
    case.output = Some(output);
    case
}
