//! Colour for `--diff`, as git and ripgrep give it: on a terminal unless
//! `NO_COLOR` is set (<https://no-color.org>), or as `--color` says.

use std::ffi::OsStr;

use super::args::ColorArg;

/// Whether to colour: `--color always` and `never` decide; `auto` colours
/// a terminal, unless `NO_COLOR` is set to anything but the empty string.
pub(crate) fn use_color(choice: ColorArg, terminal: bool, no_color: Option<&OsStr>) -> bool {
    match choice {
        ColorArg::Always => true,
        ColorArg::Never => false,
        ColorArg::Auto => terminal && no_color.is_none_or(OsStr::is_empty),
    }
}

const RESET: &str = "\x1b[0m";

/// A unified diff with each line coloured as `git diff` colours it: the
/// file headers bold, the hunk headers cyan, removed lines red, added
/// lines green; the rest as it is.
pub(crate) fn paint_diff(diff: &str) -> String {
    let mut out = String::with_capacity(diff.len() + diff.len() / 4);
    for line in diff.split_inclusive('\n') {
        let colour = if line.starts_with("--- ") || line.starts_with("+++ ") {
            "\x1b[1m"
        } else if line.starts_with("@@") {
            "\x1b[36m"
        } else if line.starts_with('-') {
            "\x1b[31m"
        } else if line.starts_with('+') {
            "\x1b[32m"
        } else {
            out.push_str(line);
            continue;
        };
        let (text, end) = match line.strip_suffix('\n') {
            Some(text) => (text, "\n"),
            None => (line, ""),
        };
        out.push_str(colour);
        out.push_str(text);
        out.push_str(RESET);
        out.push_str(end);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn auto_colours_a_terminal_without_no_color() {
        let no = Some(OsStr::new("1"));
        let empty = Some(OsStr::new(""));
        assert!(use_color(ColorArg::Auto, true, None));
        assert!(use_color(ColorArg::Auto, true, empty));
        assert!(!use_color(ColorArg::Auto, true, no));
        assert!(!use_color(ColorArg::Auto, false, None));
        assert!(use_color(ColorArg::Always, false, no));
        assert!(!use_color(ColorArg::Never, true, None));
    }

    #[test]
    fn each_kind_of_line_gets_its_colour() {
        let diff =
            "--- a/p\n+++ b/p\n@@ -1 +1 @@\n-old\n+new\n same\n\\ No newline at end of file\n";
        assert_eq!(
            paint_diff(diff),
            "\x1b[1m--- a/p\x1b[0m\n\x1b[1m+++ b/p\x1b[0m\n\x1b[36m@@ -1 +1 @@\x1b[0m\n\
             \x1b[31m-old\x1b[0m\n\x1b[32m+new\x1b[0m\n same\n\\ No newline at end of file\n"
        );
        assert_eq!(paint_diff("+x"), "\x1b[32m+x\x1b[0m");
    }
}
