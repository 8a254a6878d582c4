//! Maildir directories: each file of `cur/` and `new/` is a message
//! (`tmp/` holds messages still being delivered and is never touched). The
//! walk over a Maildir is the command line's, with its other inputs.

use std::path::Path;

/// Whether `path` is a Maildir: a directory with `cur/` or `new/`.
pub fn is_maildir(path: &Path) -> bool {
    path.is_dir() && (path.join("cur").is_dir() || path.join("new").is_dir())
}

/// A message file's name with its `,S=<size>` (if any) set to `size`.
pub fn sized_name(name: &str, size: usize) -> String {
    let Some(at) = name.find(",S=") else {
        return name.to_owned();
    };
    let digits_start = at + 3;
    let digits = name[digits_start..]
        .bytes()
        .take_while(u8::is_ascii_digit)
        .count();
    if digits == 0 {
        return name.to_owned();
    }
    format!(
        "{}{size}{}",
        &name[..digits_start],
        &name[digits_start + digits..]
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sized_names_follow_the_new_size() {
        assert_eq!(
            sized_name("1700000000.M1P2.host,S=1234:2,S", 1300),
            "1700000000.M1P2.host,S=1300:2,S"
        );
        assert_eq!(
            sized_name("1700000000.M1P2.host:2,S", 1300),
            "1700000000.M1P2.host:2,S"
        );
        assert_eq!(sized_name("x,S=:2,", 5), "x,S=:2,");
    }

    #[test]
    fn a_maildir_is_a_directory_with_cur_or_new() {
        let dir = tempfile::tempdir().unwrap();
        assert!(!is_maildir(dir.path()));
        std::fs::create_dir(dir.path().join("new")).unwrap();
        assert!(is_maildir(dir.path()));
        assert!(!is_maildir(&dir.path().join("new")));
        assert!(!is_maildir(&dir.path().join("absent")));
    }
}
