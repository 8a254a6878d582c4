//! The `relink` command: parses flags into settings, calls the library, and
//! maps the outcome to an exit status: 0 when every input went through, 1
//! when some failed (the others still done, nothing half-written), 2 for a
//! usage error. The rest of the command line is in `cli/`.

use std::io::{self, Write};
use std::process::ExitCode;

#[macro_use]
mod cli;

use anyhow::Context;
use clap::{CommandFactory, Parser};
use cli::args::*;
use cli::explain::*;
use cli::man::*;
use cli::run::*;

/// Lets the memory of one document serve the next. glibc hands every
/// block of 128 KiB or more straight back to the kernel when it is freed,
/// and trims its heaps soon after, so the input and output buffers of each
/// page of a few hundred kilobytes were fresh pages again, every one a page
/// fault: 37,000 faults and half the system time over 300 real pages
/// (118 MB), against 900 with these settings. Blocks up to 2 MiB now come
/// from the heaps, which keep up to 8 MiB free; larger documents are still
/// mapped and unmapped as before, so peaks stay what they were.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn keep_freed_memory() {
    // SAFETY: mallopt only sets two parameters of the allocator, before
    // any other thread exists; a setting it refuses is left as it was.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, 2 << 20);
        libc::mallopt(libc::M_TRIM_THRESHOLD, 8 << 20);
    }
}

/// Other allocators keep freed memory on their own terms.
#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn keep_freed_memory() {}

fn main() -> ExitCode {
    keep_freed_memory();
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(err) => return clap_exit(&err),
    };
    let result = match cli.command {
        Some(Command::Resolve(args)) => run_resolve(&args),
        Some(Command::Explain(args)) => run_explain(&args),
        Some(Command::Links(args)) => run_rewrite(&args.into_rewrite()),
        Some(Command::Completions { shell }) => {
            let mut script = Vec::new();
            clap_complete::generate(shell, &mut Cli::command(), "relink", &mut script);
            write_stdout(&script)
        }
        Some(Command::Man) => {
            let mut page = Vec::new();
            render_man(&mut page)
                .context("rendering the manual")
                .and_then(|()| write_stdout(&page))
        }
        None => run_rewrite(&cli.rewrite),
    };
    match result {
        Ok(Exit::Done) => ExitCode::SUCCESS,
        Ok(Exit::SomeFailed | Exit::Differences | Exit::Warnings) => ExitCode::from(1),
        Err(err) if is_broken_pipe(&err) => ExitCode::SUCCESS,
        Err(err) => {
            say!("error: {err:#}");
            if err.is::<UsageError>() {
                ExitCode::from(2)
            } else {
                ExitCode::from(1)
            }
        }
    }
}

/// Ends on an error of clap's (a usage error, exit status 2) in relink's
/// style, `relink: error: ...`, or prints the help or version it asked for.
pub(crate) fn clap_exit(err: &clap::Error) -> ExitCode {
    if !err.use_stderr() {
        // --help, --version: to standard output; a closed pipe is fine.
        let _ = err.print();
        return ExitCode::SUCCESS;
    }
    let text = err.render().to_string();
    let text = text.strip_prefix("error: ").unwrap_or(&text);
    say!("error: {}", text.trim_end());
    ExitCode::from(2)
}

/// Writes `bytes` to standard output.
pub(crate) fn write_stdout(bytes: &[u8]) -> anyhow::Result<Exit> {
    let mut out = io::stdout().lock();
    out.write_all(bytes)
        .and_then(|()| out.flush())
        .context("writing standard output")?;
    Ok(Exit::Done)
}

/// A closed standard output (`relink ... | head`) is not a failure.
pub(crate) fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.chain().any(|cause| {
        cause
            .downcast_ref::<io::Error>()
            .is_some_and(|e| e.kind() == io::ErrorKind::BrokenPipe)
    })
}
