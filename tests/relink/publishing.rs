//! Publishing: the pre-commit hook of `.pre-commit-hooks.yaml` run by
//! pre-commit on a commit of another repository, the recipes of
//! `docs/publishing.md` run as written on small packages (a wheel and an
//! sdist built by hatchling, setuptools and maturin, a crate by Cargo), and
//! what `cargo package` puts in relink's own crate.
//!
//! The Python tools come from a virtualenv of their own,
//! `target/publish-venv` (pre-commit, build, twine with readme_renderer,
//! hatchling, setuptools, maturin), which the test command `tests/run.sh`
//! makes; `RELINK_PUBLISH_PYTHON` names another python that has them.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The python that has pre-commit, build, twine and the build backends.
fn python() -> PathBuf {
    let python = std::env::var_os("RELINK_PUBLISH_PYTHON")
        .map(PathBuf::from)
        .unwrap_or_else(|| root().join("target/publish-venv/bin/python"));
    assert!(
        python.exists(),
        "{}: no python with pre-commit, build, twine, hatchling, setuptools and maturin: \
         tests/run.sh makes target/publish-venv",
        python.display()
    );
    python
}

/// A PATH with the built relink and the virtualenv's tools first.
fn path() -> OsString {
    let relink = Path::new(env!("CARGO_BIN_EXE_relink")).parent().unwrap();
    let mut dirs = vec![
        relink.to_path_buf(),
        python().parent().unwrap().to_path_buf(),
    ];
    dirs.extend(std::env::split_paths(
        &std::env::var_os("PATH").unwrap_or_default(),
    ));
    std::env::join_paths(dirs).unwrap()
}

/// A command in `dir` with the PATH above and a fixed git identity and
/// clock, so that the same tree makes the same commit.
fn command(dir: &Path, program: &str, args: &[&str]) -> Command {
    let mut command = Command::new(program);
    command.args(args).current_dir(dir).env("PATH", path());
    for (name, value) in [
        ("GIT_AUTHOR_NAME", "relink tests"),
        ("GIT_AUTHOR_EMAIL", "tests@relink.invalid"),
        ("GIT_COMMITTER_NAME", "relink tests"),
        ("GIT_COMMITTER_EMAIL", "tests@relink.invalid"),
        ("GIT_AUTHOR_DATE", "2000-01-01T00:00:00Z"),
        ("GIT_COMMITTER_DATE", "2000-01-01T00:00:00Z"),
        ("GIT_CONFIG_GLOBAL", "/dev/null"),
        ("GIT_CONFIG_NOSYSTEM", "1"),
    ] {
        command.env(name, value);
    }
    command
}

fn text(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr)
}

/// Runs `program` in `dir`; its output, which must say it succeeded.
fn run(dir: &Path, program: &str, args: &[&str]) -> String {
    let out = command(dir, program, args)
        .output()
        .unwrap_or_else(|e| panic!("running {program}: {e}"));
    assert!(out.status.success(), "{program} {args:?}: {}", text(&out));
    text(&out)
}

/// A git repository in `dir` holding `files`, committed and tagged v1.2.0.
fn repository(dir: &Path, files: &[(&str, &str)]) {
    for (name, content) in files {
        let path = dir.join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, content).unwrap();
    }
    run(dir, "git", &["init", "--quiet", "--initial-branch=main"]);
    run(dir, "git", &["add", "--all"]);
    run(dir, "git", &["commit", "--quiet", "--message", "first"]);
    run(dir, "git", &["tag", "v1.2.0"]);
}

const RELATIVE_README: &str =
    "# tiny\n\nSee [the guide](docs/guide.md).\n\n![logo](assets/logo.png)\n";

/// What the recipes make of [`RELATIVE_README`]'s two links.
const ABSOLUTE_LINKS: [&str; 2] = [
    "https://github.com/OWNER/REPO/blob/v1.2.0/docs/guide.md",
    "https://raw.githubusercontent.com/OWNER/REPO/v1.2.0/assets/logo.png",
];

/// A clone of this repository whose last commit holds the working tree's
/// `.pre-commit-hooks.yaml`: the hook repository, and the commit to name.
fn hook_repository(dir: &Path) -> String {
    let from = root().to_str().unwrap();
    run(dir, "git", &["clone", "--quiet", from, "relink"]);
    let clone = dir.join("relink");
    std::fs::copy(
        root().join(".pre-commit-hooks.yaml"),
        clone.join(".pre-commit-hooks.yaml"),
    )
    .unwrap();
    run(&clone, "git", &["add", ".pre-commit-hooks.yaml"]);
    run(
        &clone,
        "git",
        &["commit", "--quiet", "--allow-empty", "-m", "hooks"],
    );
    run(&clone, "git", &["rev-parse", "HEAD"]).trim().to_owned()
}

/// `git commit` in `project` with pre-commit's hook installed: pre-commit's
/// environment beside it (relink built once a run by `cargo install`), in
/// a target of its own under the root's (the dependencies built once for
/// every run). Its release profile is made a quick one: the test checks
/// what the hook says, not how fast it runs, and a full release build
/// would cost CI minutes.
fn commit(project: &Path, message: &str) -> Output {
    run(project, "git", &["add", "--all"]);
    command(project, "git", &["commit", "--quiet", "--message", message])
        .env("PRE_COMMIT_HOME", project.with_file_name("pre-commit-home"))
        .env("CARGO_TARGET_DIR", root().join("target/pre-commit"))
        .env("CARGO_PROFILE_RELEASE_OPT_LEVEL", "0")
        .env("CARGO_PROFILE_RELEASE_DEBUG", "false")
        .env("CARGO_PROFILE_RELEASE_CODEGEN_UNITS", "256")
        .env("CARGO_PROFILE_RELEASE_INCREMENTAL", "false")
        .output()
        .unwrap()
}

/// With the hook, a commit whose README links are absolute is made; one
/// that brings in a relative link, in Markdown or reStructuredText, fails
/// with a message naming the file, the link and what it would become.
#[test]
fn the_hook_fails_a_commit_with_a_relative_link_in_the_readme() {
    let work = tempfile::tempdir().unwrap();
    let rev = hook_repository(work.path());
    let config = format!(
        "repos:\n  - repo: {}\n    rev: {rev}\n    hooks:\n      - id: relink-readme\n        args:\n          \
         - --retrieved-from=https://github.com/OWNER/REPO/blob/v1.2.0/README.md\n          \
         - --resource-base=https://raw.githubusercontent.com/OWNER/REPO/v1.2.0/README.md\n",
        work.path().join("relink").display()
    );
    let project = work.path().join("project");
    std::fs::create_dir(&project).unwrap();
    let absolute = format!("# tiny\n\nSee [the guide]({}).\n", ABSOLUTE_LINKS[0]);
    repository(
        &project,
        &[
            (".pre-commit-config.yaml", &config),
            ("README.md", &absolute),
        ],
    );
    let pre_commit = python().with_file_name("pre-commit");
    run(&project, pre_commit.to_str().unwrap(), &["install"]);

    std::fs::write(
        project.join("README.md"),
        absolute.clone() + "\nMore in [docs](docs/).\n",
    )
    .unwrap();
    let out = commit(&project, "a relative link");
    assert!(!out.status.success(), "{}", text(&out));
    let expected =
        "README.md:5:16: link 'docs/' -> https://github.com/OWNER/REPO/blob/v1.2.0/docs/";
    assert!(text(&out).contains(expected), "{}", text(&out));

    std::fs::write(project.join("README.md"), &absolute).unwrap();
    std::fs::write(
        project.join("README.rst"),
        "tiny\n====\n\n.. image:: logo.png\n",
    )
    .unwrap();
    let out = commit(&project, "a relative image");
    assert!(!out.status.success(), "{}", text(&out));
    let expected = "README.rst:4:12: image 'logo.png' -> https://raw.githubusercontent.com/OWNER/REPO/v1.2.0/logo.png";
    assert!(text(&out).contains(expected), "{}", text(&out));

    let image = "tiny\n====\n\n.. image:: https://example.com/logo.png\n";
    std::fs::write(project.join("README.rst"), image).unwrap();
    let out = commit(&project, "absolute links");
    assert!(out.status.success(), "{}", text(&out));
    assert!(
        text(&out).contains("README links absolute"),
        "{}",
        text(&out)
    );
}

/// The shell block of `docs/publishing.md` that holds `command`.
fn recipe(command: &str) -> String {
    let page = std::fs::read_to_string(root().join("docs/publishing.md")).unwrap();
    let blocks = page.split("```sh\n").skip(1);
    let block = blocks
        .map(|rest| rest.split("```").next().unwrap())
        .find(|block| block.contains(command))
        .unwrap_or_else(|| panic!("docs/publishing.md: no ```sh block with {command}"));
    block.to_owned()
}

/// Runs a recipe in `project`; the README there must stay as it was.
fn run_recipe(project: &Path, script: &str) -> String {
    let out = run(project, "sh", &["-ec", script]);
    let readme = std::fs::read_to_string(project.join("README.md")).unwrap();
    assert_eq!(readme, RELATIVE_README, "the repository's README changed");
    run(project, "git", &["diff", "--exit-code"]);
    out
}

/// `twine check --strict` passes each distribution of `dist/`, and the
/// long descriptions' links, rendered as PyPI does, are the absolute ones
/// (but for the anchors PyPI gives the headings).
fn check_dist(project: &Path, expected: usize) {
    let dist: Vec<String> = std::fs::read_dir(project.join("dist"))
        .unwrap()
        .map(|entry| entry.unwrap().path().display().to_string())
        .collect();
    assert_eq!(dist.len(), expected, "{dist:?}");
    let python = python();
    let python = python.to_str().unwrap();
    let mut twine = vec!["-m", "twine", "check", "--strict"];
    twine.extend(dist.iter().map(String::as_str));
    run(project, python, &twine);
    let script = root().join("tests/relink/long_description.py");
    let mut args = vec![script.to_str().unwrap()];
    args.extend(dist.iter().map(String::as_str));
    let listed = run(project, python, &args);
    for name in &dist {
        let name = Path::new(name).file_name().unwrap().to_str().unwrap();
        let links: Vec<&str> = listed
            .lines()
            .filter_map(|line| line.strip_prefix(name)?.strip_prefix('\t'))
            .filter(|link| !link.starts_with('#'))
            .collect();
        assert_eq!(links, ABSOLUTE_LINKS, "{name}: {listed}");
    }
}

/// The `python -m build` recipe (without build isolation, which would
/// download the backend) with hatchling and with setuptools.
#[test]
fn the_build_recipe_makes_the_long_description_s_links_absolute() {
    let script =
        recipe("python -m build").replace("python -m build", "python -m build --no-isolation");
    for backend in ["hatchling.build", "setuptools.build_meta"] {
        let work = tempfile::tempdir().unwrap();
        let pyproject = format!(
            "[build-system]\nrequires = []\nbuild-backend = \"{backend}\"\n\n\
             [project]\nname = \"tiny\"\nversion = \"1.2.0\"\nreadme = \"README.md\"\n"
        );
        repository(
            work.path(),
            &[
                ("pyproject.toml", &pyproject),
                ("README.md", RELATIVE_README),
                ("tiny/__init__.py", ""),
            ],
        );
        run_recipe(work.path(), &script);
        check_dist(work.path(), 2);
    }
}

/// The maturin recipe, on a package whose Rust is one small binary.
#[test]
fn the_maturin_recipe_makes_the_long_description_s_links_absolute() {
    let work = tempfile::tempdir().unwrap();
    repository(
        work.path(),
        &[
            (
                "Cargo.toml",
                "[package]\nname = \"tiny\"\nversion = \"1.2.0\"\nedition = \"2021\"\n",
            ),
            ("src/main.rs", "fn main() {}\n"),
            (
                "pyproject.toml",
                "[build-system]\nrequires = [\"maturin>=1,<2\"]\nbuild-backend = \"maturin\"\n\n\
                 [project]\nname = \"tiny\"\nversion = \"1.2.0\"\nreadme = \"README.md\"\n\n\
                 [tool.maturin]\nbindings = \"bin\"\n",
            ),
            ("README.md", RELATIVE_README),
        ],
    );
    let out = run_recipe(work.path(), &recipe("maturin build"));
    assert!(out.contains("Built wheel"), "{out}");
    check_dist(work.path(), 2);
}

/// The Cargo recipe, `cargo package` standing for `cargo publish`: the
/// crate's README has the absolute links, the repository's its own.
#[test]
fn the_cargo_recipe_packages_a_readme_with_absolute_links() {
    let work = tempfile::tempdir().unwrap();
    let project = work.path().join("tiny");
    std::fs::create_dir(&project).unwrap();
    repository(
        &project,
        &[
            (
                "Cargo.toml",
                "[package]\nname = \"tiny\"\nversion = \"1.2.0\"\nedition = \"2021\"\n\
                 description = \"tiny\"\nlicense = \"MIT\"\nreadme = \"README.md\"\n",
            ),
            ("src/lib.rs", "//! tiny\n"),
            ("README.md", RELATIVE_README),
        ],
    );
    let script = recipe("cargo publish").replace("cargo publish", "cargo package --quiet");
    let target = work.path().join("target");
    let out = command(&project, "sh", &["-ec", &script])
        .env("CARGO_TARGET_DIR", &target)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out));
    run_recipe(&project, "true");
    let crate_file = target.join("package/tiny-1.2.0.crate");
    let crate_file = crate_file.to_str().unwrap();
    let readme = run(
        work.path(),
        "tar",
        &["-xzOf", crate_file, "tiny-1.2.0/README.md"],
    );
    let expected = format!(
        "# tiny\n\nSee [the guide]({}).\n\n![logo]({})\n",
        ABSOLUTE_LINKS[0], ABSOLUTE_LINKS[1]
    );
    assert_eq!(readme, expected);
}

/// relink's own crate holds the library, the command line and their docs,
/// and none of the tests, fixtures, benches or the Python package.
#[test]
fn the_crate_packages_the_code_and_its_docs_only() {
    let out = Command::new(env!("CARGO"))
        .args([
            "package",
            "--list",
            "--allow-dirty",
            "--offline",
            "-p",
            "relink",
        ])
        .current_dir(root())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out));
    let list = String::from_utf8(out.stdout).unwrap();
    let files: Vec<&str> = list.lines().collect();
    for file in [
        "src/lib.rs",
        "src/main.rs",
        "src/cli/man.roff",
        "README.md",
        "LICENSE-MIT",
        "docs/markdown.md",
    ] {
        assert!(files.contains(&file), "{file} is not packaged: {list}");
    }
    let kept_out = [
        "fixtures/",
        "tests/",
        "benches/",
        "fuzz/",
        "python/",
        "proptest-regressions/",
        ".ci/",
    ];
    let packaged: Vec<&&str> = files
        .iter()
        .filter(|file| kept_out.iter().any(|dir| file.starts_with(dir)))
        .collect();
    assert!(packaged.is_empty(), "packaged: {packaged:?}");
}
