//! The docs are run: every command the README and `docs/*.md` show with a
//! `$ ` prompt (in a ```` ```console ```` block) is run by trycmd with the
//! built `relink`, in a directory made of fixtures under the names the
//! docs give them ([`SANDBOX`]), and what it prints (standard output and
//! error, as a terminal shows them) must be what the page shows under it
//! (`...` on a line of its own stands for any lines, `[..]` for the rest
//! of a line). A shell block the tests cannot run is fenced ```` ```sh ````
//! with no prompt, and must hold one of the commands of [`NOT_RUN`], which
//! say why. The option tables and the lists of kinds are compared with
//! `relink --help` and [`relink::Kind::entries`], and the packages the
//! README names with those `tests/run.sh` installs.
//!
//! `TRYCMD=overwrite cargo test --test relink docs::` writes the outputs
//! the commands give now into the pages (read the diff before keeping it).
//! trycmd reads a copy of each page with a blank line added after each
//! output ([`for_trycmd`]), so the line it names a command by is a little
//! past the page's.

use std::path::{Path, PathBuf};

use crate::cli::{assert_ok, relink};

/// The files the docs' commands read, by the name a page gives them, and
/// the fixture each is a copy of.
const SANDBOX: &[(&str, &str)] = &[
    ("page.html", "docs/page.html"),
    ("post.html", "saved/chrome/post.html"),
    ("post_files", "saved/chrome/post_files"),
    ("lazy.html", "html/lazy-preset.html"),
    ("site", "docs/site"),
    ("README.md", "docs/README.md"),
    ("README.rst", "docs/README.rst"),
    ("analysis.ipynb", "notebooks/made/analysis.ipynb"),
    ("feed.atom", "feeds/blog.atom"),
    ("message.eml", "mail/content-base.eml"),
    ("saved-page.mhtml", "mail/chrome.mhtml"),
    ("archive.mbox", "mail/archive.mboxrd"),
    ("Maildir", "mail/maildir"),
    ("crawl.warc.gz", "warc/site.warc.gz"),
    ("archive.wacz", "archives/wacz/site.wacz"),
    ("sitemap.xml", "sitemaps/sitemap.xml"),
    ("subscriptions.opml", "sitemaps/subscriptions.opml"),
    ("robots.txt", "sitemaps/robots.txt"),
    ("book.epub", "epub/hefty-water.epub"),
];

/// The commands a shell block may show without being run, and why the
/// tests cannot run them. Every ```` ```sh ```` block holds one.
const NOT_RUN: &[(&str, &str)] = &[
    ("cargo ", "builds, installs or measures relink itself"),
    ("tests/run.sh", "the test command, which runs this test"),
    ("pip install", "installs packages from a registry"),
    (
        "npm ",
        "installs packages from a registry and builds the Node.js package",
    ),
    ("spark-submit", "needs Spark and Java"),
    ("curl ", "needs the network"),
    ("wget -m", "mirrors a site over the network"),
    ("benches/peers/", "needs the Python packages of the peers"),
    ("lychee ", "needs lychee"),
    (
        "python -m build",
        "builds a Python package; the publishing tests run it",
    ),
    (
        "maturin build",
        "builds a Python package; the publishing tests run it",
    ),
    (
        "#!/bin/sh",
        "a script to save; link_records runs it as written",
    ),
    (
        "| sort -u",
        "a shell pipeline; link_records runs `relink links` on archives",
    ),
    (
        "--format wat >",
        "gzip written through the shell; the WAT tests run it",
    ),
];

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The pages: the README and every `docs/*.md`, by path below the root.
fn pages() -> Vec<String> {
    let mut pages: Vec<String> = std::fs::read_dir(root().join("docs"))
        .expect("reading docs/")
        .map(|entry| entry.expect("a file of docs/").file_name())
        .map(|name| name.to_string_lossy().into_owned())
        .filter(|name| name.ends_with(".md"))
        .map(|name| format!("docs/{name}"))
        .collect();
    pages.sort();
    pages.insert(0, "README.md".to_owned());
    pages
}

fn read(path: &str) -> String {
    std::fs::read_to_string(root().join(path)).unwrap_or_else(|e| panic!("reading {path}: {e}"))
}

/// Each fenced block of a page: the line number and text of its opening
/// fence (```` ```console ````, or indented in a list item), and its lines.
fn blocks(text: &str) -> Vec<(usize, &str, Vec<&str>)> {
    let mut blocks = Vec::new();
    let mut open: Option<(usize, &str, Vec<&str>)> = None;
    for (i, line) in text.lines().enumerate() {
        if line.trim_start().starts_with("```") {
            match open.take() {
                Some(block) => blocks.push(block),
                None => open = Some((i + 1, line, Vec::new())),
            }
        } else if let Some((_, _, lines)) = open.as_mut() {
            lines.push(line);
        }
    }
    blocks
}

/// The language of a block's opening fence (`sh` of ```` ```sh ````).
fn language(fence: &str) -> &str {
    let info = fence.trim_start().trim_start_matches('`').trim();
    info.split(',').next().unwrap_or("")
}

/// A page as trycmd reads it: trycmd drops the last line end of the
/// output shown under a command, so a blank line is put after each
/// output (before the next `$ ` or the end of the block) of a console
/// block, for the pages to show output as a terminal does.
fn for_trycmd(text: &str) -> String {
    let mut out = String::new();
    let mut console = false;
    let mut first = true;
    for line in text.lines() {
        let fence = line.starts_with("```");
        if console && (fence || (line.starts_with("$ ") && !first)) {
            out.push('\n');
        }
        if fence {
            console = !console && line == "```console";
            first = true;
        } else if line.starts_with("$ ") {
            first = false;
        }
        out.push_str(line);
        out.push('\n');
    }
    out
}

/// A page as trycmd wrote it back ([`for_trycmd`] undone).
fn from_trycmd(text: &str) -> String {
    let mut out: Vec<&str> = Vec::new();
    let mut console = false;
    for line in text.lines() {
        let fence = line.starts_with("```");
        if console && (fence || line.starts_with("$ ")) && out.last() == Some(&"") {
            out.pop();
        }
        if fence {
            console = !console && line == "```console";
        }
        out.push(line);
    }
    out.join("\n") + "\n"
}

/// Copies a file or a directory tree.
fn copy(from: &Path, to: &Path) {
    if from.is_dir() {
        std::fs::create_dir_all(to).unwrap();
        for entry in std::fs::read_dir(from).unwrap() {
            let entry = entry.unwrap();
            copy(&entry.path(), &to.join(entry.file_name()));
        }
    } else {
        std::fs::copy(from, to).unwrap_or_else(|e| panic!("copying {}: {e}", from.display()));
    }
}

/// The shell blocks that are not run each hold a command the tests cannot
/// run, and no block shows a prompt it does not run.
#[test]
fn every_command_shown_is_run_or_says_why_not() {
    let mut wrong = Vec::new();
    for page in pages() {
        for (line, fence, lines) in blocks(&read(&page)) {
            let text = lines.join("\n");
            let lang = language(fence);
            let shell = matches!(lang, "sh" | "bash" | "shell" | "zsh");
            if shell && !NOT_RUN.iter().any(|(command, _)| text.contains(command)) {
                wrong.push(format!(
                    "{page}:{line}: a shell block the tests do not run: show its commands \
                     with `$ ` in a ```console block, or name what they need in NOT_RUN"
                ));
            }
            let prompted = lines.iter().any(|l| l.trim_start().starts_with("$ "));
            if prompted && fence != "```console" {
                wrong.push(format!(
                    "{page}:{line}: a `$ ` prompt in a block that is not run \
                     (only ```console at the start of a line is)"
                ));
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// Every `$ ` command of the pages, run in a copy of [`SANDBOX`] (one for
/// each page, its commands in order), prints what the page shows.
#[test]
fn the_commands_of_the_docs_print_what_they_show() {
    let work = tempfile::tempdir().unwrap();
    let cases = trycmd::TestCases::new();
    cases
        .register_bin("relink", PathBuf::from(env!("CARGO_BIN_EXE_relink")))
        .env("NO_COLOR", "1");
    let mut run = Vec::new();
    for page in pages() {
        let text = read(&page);
        if !blocks(&text)
            .iter()
            .any(|(_, fence, _)| *fence == "```console")
        {
            continue;
        }
        let copy_of_page = work.path().join(&page);
        std::fs::create_dir_all(copy_of_page.parent().unwrap()).unwrap();
        std::fs::write(&copy_of_page, for_trycmd(&text)).unwrap();
        let sandbox = copy_of_page.with_extension("in");
        std::fs::create_dir_all(&sandbox).unwrap();
        for (name, fixture) in SANDBOX {
            copy(&crate::fixture(fixture), &sandbox.join(name));
        }
        cases.case(&copy_of_page);
        run.push((page, copy_of_page));
    }
    assert!(run.iter().any(|(page, _)| page == "README.md"));
    cases.run();
    if std::env::var("TRYCMD").is_ok_and(|mode| mode == "overwrite") {
        for (page, copy_of_page) in &run {
            let text = std::fs::read_to_string(copy_of_page).unwrap();
            std::fs::write(root().join(page), from_trycmd(&text)).unwrap();
        }
    }
}

/// The options of `relink --help`, by long name, each with its short name
/// and the values it takes (empty when it takes any, or none).
fn help_options() -> Vec<(String, Option<String>, Vec<String>)> {
    let out = relink(&["--help"], b"");
    assert_ok(&out);
    let help = String::from_utf8(out.stdout).unwrap();
    let mut options: Vec<(String, Option<String>, Vec<String>)> = Vec::new();
    for line in help.lines() {
        let trimmed = line.trim_start();
        let indent = line.len() - trimmed.len();
        if (indent == 2 || indent == 6) && trimmed.starts_with('-') {
            let names: Vec<&str> = trimmed
                .split([',', ' '])
                .filter(|w| w.starts_with('-'))
                .collect();
            let long = names.iter().find(|n| n.starts_with("--")).unwrap();
            let short = names.iter().find(|n| !n.starts_with("--"));
            options.push((long.to_string(), short.map(|s| s.to_string()), Vec::new()));
        } else if let Some((_, _, values)) = options.last_mut() {
            if let Some(value) = trimmed.strip_prefix("- ") {
                values.push(value.split(':').next().unwrap().to_owned());
            } else if let Some(list) = trimmed.strip_prefix("[possible values: ") {
                let list = list.trim_end_matches(']');
                values.extend(list.split(", ").map(str::to_owned));
            }
        }
    }
    options.retain(|(long, ..)| long != "--help" && long != "--version");
    options
}

/// A row of an option table: the options its first cell names, by the
/// name given, each with the values listed after it (`--rules a\|b`), and
/// the backquoted words of its second cell.
struct OptionRow {
    options: Vec<(String, Vec<String>)>,
    quoted: Vec<String>,
}

/// The rows of each option table of a page (a table whose header starts
/// `| option |`).
fn option_rows(text: &str) -> Vec<OptionRow> {
    let mut rows = Vec::new();
    let mut in_table = false;
    for line in text.lines() {
        if line.starts_with("| option |") {
            in_table = true;
            continue;
        }
        if !line.starts_with('|') {
            in_table = false;
        }
        if !in_table || line.starts_with("| ---") {
            continue;
        }
        let line = line.replace("\\|", "\u{1}");
        let cells: Vec<&str> = line.split('|').map(str::trim).collect();
        let mut options: Vec<(String, Vec<String>)> = Vec::new();
        for word in cells[1].split([' ', ',', '[', ']', '`', '/']) {
            if word.starts_with('-') {
                options.push((word.to_owned(), Vec::new()));
            } else if word.contains('\u{1}') {
                let values = word.split('\u{1}').map(str::to_owned).collect();
                options.last_mut().expect("values after an option").1 = values;
            }
        }
        let quoted = cells[2].split('`').skip(1).step_by(2).map(str::to_owned);
        rows.push(OptionRow {
            options,
            quoted: quoted.collect(),
        });
    }
    rows
}

/// The kinds relink reads, by name: the library's table, which `--type`
/// takes.
fn kinds() -> Vec<String> {
    let kinds: Vec<String> = relink::Kind::entries()
        .iter()
        .map(|e| e.name.to_owned())
        .collect();
    let help = help_options();
    let of_type = help.iter().find(|(long, ..)| long == "--type").unwrap();
    assert_eq!(of_type.2, kinds, "--type's values in --help");
    kinds
}

/// Every option a table of the guide or the README names is one of
/// `relink --help`, with the values `--help` lists; the guide's table names
/// every option; and a `--type KIND` row lists every kind.
#[test]
fn the_option_tables_are_those_of_help() {
    let help = help_options();
    let kinds = kinds();
    for page in ["docs/guide.md", "README.md"] {
        let rows = option_rows(&read(page));
        assert!(!rows.is_empty(), "{page}: no option table");
        let mut named = Vec::new();
        for OptionRow { options, quoted } in &rows {
            for (name, values) in options {
                let option = help
                    .iter()
                    .find(|(long, short, _)| long == name || short.as_deref() == Some(name))
                    .unwrap_or_else(|| panic!("{page}: {name} is not an option of relink --help"));
                named.push(option.0.clone());
                if !values.is_empty() {
                    assert_eq!(values, &option.2, "{page}: the values of {name}");
                }
                if option.0 == "--type" && values.is_empty() {
                    assert_eq!(quoted, &kinds, "{page}: the kinds of the --type row");
                }
            }
        }
        if page == "docs/guide.md" {
            let missing: Vec<&str> = help
                .iter()
                .map(|(long, ..)| long.as_str())
                .filter(|long| !named.iter().any(|n| n == long))
                .collect();
            assert!(missing.is_empty(), "{page}: no row for {missing:?}");
        }
    }
}

/// The kinds the Python guide lists for `kind=` are the library's.
#[test]
fn the_python_guide_lists_every_kind() {
    let text = read("docs/python.md");
    let list = text
        .split("\n`kind` (")
        .nth(1)
        .expect("docs/python.md: the paragraph on `kind` (...)");
    let list = list.split(')').next().unwrap();
    let named: Vec<String> = list
        .split('"')
        .skip(1)
        .step_by(2)
        .map(str::to_owned)
        .collect();
    assert_eq!(named, kinds(), "docs/python.md: the kinds of `kind`");
}

/// The README and CONTRIBUTING.md name every package the test command,
/// `tests/run.sh`, installs into its virtualenv.
#[test]
fn the_test_packages_named_are_those_installed() {
    let script = read("tests/run.sh");
    let install = script
        .lines()
        .find(|l| !l.trim_start().starts_with('#') && l.contains("pip \"$venv\" install"))
        .expect("tests/run.sh: its pip install into $venv");
    let packages: Vec<&str> = install
        .split_whitespace()
        .skip_while(|w| *w != "install")
        .skip(1)
        .filter(|w| !w.starts_with('-'))
        .collect();
    assert!(packages.contains(&"warcio"), "{packages:?}");
    for page in ["README.md", "CONTRIBUTING.md"] {
        let text = read(page);
        let paragraph = text
            .split("\n\n")
            .find(|p| p.contains("`target/test-venv`"))
            .unwrap_or_else(|| panic!("{page}: no paragraph on target/test-venv"));
        let paragraph = paragraph.replace('\n', " ");
        for package in &packages {
            assert!(
                paragraph.contains(package),
                "{page}: the test virtualenv's {package} is not named: {paragraph}"
            );
        }
    }
}

/// The guide's install steps work as written on a fresh account: its
/// install block, run by `sh -e` with `~` a new home and the built relink
/// first on the PATH (its `cargo install` line left out: that build is
/// it), puts each shell's completion script where the shell reads it, and
/// the manual page where `man` finds it.
#[test]
fn the_guide_s_install_steps_work_as_written() {
    let guide = read("docs/guide.md");
    let (_, _, lines) = blocks(&guide)
        .into_iter()
        .find(|(_, _, lines)| {
            lines
                .iter()
                .any(|l| l.starts_with("cargo install --path ."))
        })
        .expect("docs/guide.md: a block with `cargo install --path .`");
    let script: Vec<&str> = lines
        .into_iter()
        .filter(|l| !l.starts_with("cargo install"))
        .collect();
    let home = tempfile::tempdir().unwrap();
    let binary = Path::new(env!("CARGO_BIN_EXE_relink"));
    let mut path = std::ffi::OsString::from(binary.parent().unwrap());
    path.push(":");
    path.push(std::env::var_os("PATH").unwrap_or_default());
    let out = std::process::Command::new("sh")
        .arg("-ec")
        .arg(script.join("\n"))
        .env("HOME", home.path())
        .env("PATH", path)
        .output()
        .expect("running sh");
    assert!(
        out.status.success(),
        "docs/guide.md's install steps: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    for (file, start) in [
        (
            ".local/share/bash-completion/completions/relink",
            "_relink()",
        ),
        (".zfunc/_relink", "#compdef relink"),
        (".config/fish/completions/relink.fish", "complete -c relink"),
        (".local/share/man/man1/relink.1", ".TH relink 1"),
    ] {
        let text = std::fs::read_to_string(home.path().join(file))
            .unwrap_or_else(|e| panic!("~/{file}, after the guide's install steps: {e}"));
        assert!(
            text.contains(start),
            "~/{file}: {}",
            &text[..200.min(text.len())]
        );
    }
    let ignored = read(".gitignore");
    assert!(ignored.lines().any(|l| l.trim_end_matches('/') == ".venv"));
}

/// The README's list of documentation names every page of docs/.
#[test]
fn the_readme_lists_every_docs_page() {
    let readme = read("README.md");
    let list = &readme[readme
        .find("## Documentation")
        .expect("a Documentation section")..];
    let mut missing = Vec::new();
    for entry in std::fs::read_dir(root().join("docs")).unwrap() {
        let name = entry.unwrap().file_name().to_string_lossy().into_owned();
        if name.ends_with(".md") && !list.contains(&format!("(docs/{name})")) {
            missing.push(name);
        }
    }
    assert!(
        missing.is_empty(),
        "docs pages the README does not list: {missing:?}"
    );
}
