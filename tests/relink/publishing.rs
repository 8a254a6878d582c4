//! What `cargo package` puts in relink's own crate.

use std::path::Path;
use std::process::Command;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn text(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr)
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
