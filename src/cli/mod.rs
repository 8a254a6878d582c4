//! The command line: everything of the `relink` binary but `main`. None of
//! it is in the library, which the binary uses through its public API only.

/// Writes one line to standard error, `relink: ` first, as every message
/// of relink's is written: `relink: error: ...`, `relink: warning: ...`,
/// and the summary. A closed standard error stops nothing (and `eprintln!`
/// would panic).
macro_rules! say {
    ($($arg:tt)*) => {{
        let _ = writeln!(io::stderr().lock(), "relink: {}", format_args!($($arg)*));
    }};
}

pub mod args;
pub mod batch;
pub mod color;
pub mod explain;
pub mod hints;
pub mod maildir;
pub mod man;
pub mod progress;
pub mod report;
pub mod run;
