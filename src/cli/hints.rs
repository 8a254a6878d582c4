//! Hints for what a user most likely meant: a base without a scheme, a
//! misspelt subcommand, a missing file, a page URL given for a directory.

use std::io::{self, IsTerminal, Write};
use std::path::PathBuf;

use relink::{BaseUrl, Rules};

use super::args::*;
use super::batch::{self, Job};

/// Parses a base URL given on the command line; one without a scheme gets
/// a hint (see [`suggest_url`]).
pub(crate) fn parse_base(text: &str, rules: Rules) -> anyhow::Result<BaseUrl> {
    BaseUrl::parse(text, rules).map_err(|err| match suggest_url(text) {
        Some(url) => usage(format!("{err}: did you mean {url}?")),
        None => UsageError::from(err).into(),
    })
}

/// The URL a base given without a scheme was likely meant to be: a path
/// (`./library/`, `/srv/www/`, or a file or directory that exists) is the
/// `file:` URL of its absolute path, a directory's ending with `/`; a
/// text that starts like a host name (`example.com/x`) an `https:` URL.
pub(crate) fn suggest_url(text: &str) -> Option<String> {
    if BaseUrl::has_scheme(text) || text.is_empty() {
        return None;
    }
    let path = std::path::Path::new(text);
    if text.starts_with(['.', '/']) || path.exists() {
        let absolute = std::fs::canonicalize(path)
            .or_else(|_| std::path::absolute(path))
            .ok()?;
        let url = if text.ends_with('/') || absolute.is_dir() {
            url::Url::from_directory_path(&absolute)
        } else {
            url::Url::from_file_path(&absolute)
        };
        return url.ok().map(String::from);
    }
    let host = text.split('/').next().unwrap_or("");
    (host.contains('.') || host == "localhost").then(|| format!("https://{text}"))
}

/// The subcommands, for the hint given when a missing input is named like
/// one.
pub(crate) const SUBCOMMANDS: [&str; 5] = ["resolve", "explain", "links", "completions", "man"];

/// The number of one-character edits from `a` to `b`.
pub(crate) fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, &cb) in b.iter().enumerate() {
            let above = row[j + 1];
            row[j + 1] = (above + 1)
                .min(row[j] + 1)
                .min(diagonal + usize::from(ca != cb));
            diagonal = above;
        }
    }
    row[b.len()]
}

/// The subcommand a mistyped first argument was likely meant to be.
pub(crate) fn near_subcommand(arg: &std::path::Path) -> Option<&'static str> {
    let text = arg.to_str()?;
    if text.contains(['/', '.']) {
        return None;
    }
    SUBCOMMANDS.into_iter().find(|name| {
        let distance = edit_distance(text, name);
        distance <= 1 || (distance == 2 && name.len() >= 7)
    })
}

/// Whether a missing first input gets the hint of a subcommand.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Hint {
    /// It may be a mistyped subcommand.
    Subcommands,
    /// It is not in a subcommand's place.
    None,
}

/// The inputs that exist (or are `-`), and how many do not: each missing
/// one is an error naming it. A missing first input named like a
/// subcommand is a usage error.
pub(crate) fn existing(files: &[PathBuf], hint: Hint) -> anyhow::Result<(Vec<PathBuf>, usize)> {
    let mut found = Vec::with_capacity(files.len());
    let mut missing = 0;
    for (n, file) in files.iter().enumerate() {
        let gone = file.as_os_str() != "-"
            && std::fs::metadata(file).is_err_and(|e| e.kind() == io::ErrorKind::NotFound);
        if !gone {
            found.push(file.clone());
            continue;
        }
        let name = file.display();
        if let Some(command) = near_subcommand(file).filter(|_| n == 0 && hint == Hint::Subcommands)
        {
            return Err(usage(format!(
                "{name}: no such file or directory (did you mean `relink {command}`?)"
            )));
        }
        say!("error: {name}: no such file or directory");
        missing += 1;
    }
    Ok((found, missing))
}

/// The inputs, or a usage error; missing inputs and listing errors are
/// printed and counted. With no FILE, standard input is read unless it is
/// a terminal.
pub(crate) fn inputs(
    files: &[PathBuf],
    base: &BaseArgs,
    (hint, backup): (Hint, Option<&str>),
) -> anyhow::Result<(Vec<Job>, usize)> {
    let stdin = [PathBuf::from("-")];
    let files = if !files.is_empty() {
        files
    } else if !io::stdin().is_terminal() {
        &stdin
    } else {
        return Err(usage(
            "no input: give a FILE, a directory, or - for standard input",
        ));
    };
    let (files, missing) = existing(files, hint)?;
    let mut globs = globset::GlobSetBuilder::new();
    for pattern in &base.exclude {
        let glob = globset::Glob::new(pattern)
            .map_err(|e| usage(format!("--exclude '{pattern}': {}", e.kind())))?;
        globs.add(glob);
    }
    let exclude = globs
        .build()
        .map_err(|e| usage(format!("--exclude: {e}")))?;
    let urls = (
        base.retrieved_from.as_deref(),
        base.resource_base.as_deref(),
    );
    let (jobs, errors) = batch::expand(&files, urls, (backup, &exclude));
    for error in &errors {
        say!("error: {error}");
    }
    Ok((jobs, missing + errors.len()))
}

/// Warns when `--retrieved-from` (or `--resource-base`, named by `flag`)
/// names a page but an input is a directory: each file would get a URL
/// below the page's (`.../index.html/a.html`). Returns how many warnings
/// it gave.
pub(crate) fn warn_page_url_for_directory(
    files: &[PathBuf],
    (flag, url): (&str, Option<&str>),
) -> usize {
    let Some(url) = url else { return 0 };
    let Some(dir) = files.iter().find(|f| f.is_dir()) else {
        return 0;
    };
    let Some((parent, page)) = page_of(url) else {
        return 0;
    };
    say!(
        "warning: {flag} {url} names a page, but {} is a directory: its files get URLs below it ({url}/{page}); give the directory's URL, {parent}",
        dir.display()
    );
    1
}

/// The URL of the directory a page URL is in and the page's name, when the
/// URL's last path segment is named like a document (`index.html`).
pub(crate) fn page_of(url: &str) -> Option<(&str, &str)> {
    let path = url.split(['?', '#']).next().unwrap_or(url);
    let (parent, last) = path.rsplit_once('/')?;
    if last.is_empty() || parent.ends_with('/') || !parent.contains("//") && !parent.contains(':') {
        // No path segment at all (`https://example.com`), or no URL.
        return None;
    }
    relink::Kind::from_name(std::path::Path::new(last)).map(|_| (&url[..parent.len() + 1], last))
}

/// A `--backup` suffix that cannot serve: empty (the backup would be the
/// file), holding a `/`, or making a name relink reads as a document
/// (`.html`: the next run would rewrite the backup).
pub(crate) fn check_backup_suffix(suffix: &str) -> anyhow::Result<()> {
    if suffix.is_empty() || suffix.contains('/') {
        return Err(usage(format!(
            "--backup '{suffix}': give a suffix such as .orig, added to each file's name"
        )));
    }
    let named = format!("page{suffix}");
    if relink::Kind::from_name(std::path::Path::new(&named)).is_some() {
        return Err(usage(format!(
            "--backup '{suffix}': a backup named like {named} would be read as a document"
        )));
    }
    Ok(())
}
