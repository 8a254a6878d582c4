//! Files as files: what kind each is, a copy that keeps the whole tree
//! (dot-files, links), modes and owners, and what is never replaced.

use std::os::unix::fs::{FileTypeExt, MetadataExt, PermissionsExt};
use std::path::Path;
use std::process::Command;

use super::{read, s, write};
use crate::cli::{assert_ok, relink};

fn mode(path: &Path) -> u32 {
    std::fs::metadata(path).unwrap().permissions().mode() & 0o7777
}

fn set_mode(path: &Path, mode: u32) {
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
}

#[test]
fn a_css_hover_rule_is_read_as_css_not_as_a_header() {
    let dir = tempfile::tempdir().unwrap();
    let css = dir.path().join("style.css");
    write(&css, b"a:hover { background: url(img/x.png) }\n");
    let out = relink(&[s(&css), "--retrieved-from", "http://h/d/style.css"], b"");
    assert_ok(&out);
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        "a:hover { background: url(http://h/d/img/x.png) }\n"
    );
}

#[test]
fn wget_names_are_known_by_the_extension_before_the_query() {
    let dir = tempfile::tempdir().unwrap();
    let site = dir.path().join("site");
    write(&site.join("index.html?page=2"), b"<p><a href=next>n</a>\n");
    write(
        &site.join("style.css?v=3"),
        b"a:hover { color: red }\nb { background: url(b.png) }\n",
    );
    write(&site.join("page"), b"<!DOCTYPE html><a href=p>p</a>\n");
    write(&site.join("notes.txt"), b"see <a href=x>x</a>\n");
    let out_dir = dir.path().join("out");
    let out = relink(
        &[s(&site), "--retrieved-from", "http://h/", "-o", s(&out_dir)],
        b"",
    );
    assert_ok(&out);
    assert_eq!(
        read(&out_dir.join("index.html?page=2")),
        "<p><a href=http://h/next>n</a>\n"
    );
    assert_eq!(
        read(&out_dir.join("style.css?v=3")),
        "a:hover { color: red }\nb { background: url(http://h/b.png) }\n"
    );
    // No known extension: the content decides.
    assert_eq!(
        read(&out_dir.join("page")),
        "<!DOCTYPE html><a href=http://h/p>p</a>\n"
    );
    assert_eq!(read(&out_dir.join("notes.txt")), "see <a href=x>x</a>\n");
}

#[test]
fn type_sets_the_kind_of_standard_input_and_of_files() {
    let css = b"a:hover { background: url(x.png) }\n";
    let out = relink(
        &["-", "--type", "css", "--retrieved-from", "http://h/"],
        css,
    );
    assert_ok(&out);
    assert_eq!(out.stdout, b"a:hover { background: url(http://h/x.png) }\n");
    // Without it, standard input is told by content: not a message.
    let out = relink(&["-", "--retrieved-from", "http://h/"], css);
    assert_ok(&out);
    assert_eq!(out.stdout, css);
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("sheet.txt");
    write(&file, css);
    let out = relink(
        &[s(&file), "--type", "css", "--retrieved-from", "http://h/"],
        b"",
    );
    assert_eq!(out.stdout, b"a:hover { background: url(http://h/x.png) }\n");
}

#[test]
fn a_byte_order_mark_does_not_hide_a_message() {
    let message = b"\xef\xbb\xbfFrom: a@b\r\nSubject: s\r\nContent-Base: http://h/d/\r\nContent-Type: text/html\r\n\r\n<a href=x>x</a>\r\n";
    let out = relink(&["-", "--list", "--format", "tsv"], message);
    assert_ok(&out);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("http://h/d/x"), "{text}");
}

#[test]
fn the_copy_keeps_dot_files_and_links() {
    let dir = tempfile::tempdir().unwrap();
    let docs = dir.path().join("docs");
    write(&docs.join("index.html"), b"<a href=a.html>a</a>");
    write(&docs.join(".buildinfo"), b"config: 1\n");
    write(&docs.join("_static/.htaccess"), b"Deny from all\n");
    write(&dir.path().join("shared/jquery.js"), b"/* jq */");
    std::os::unix::fs::symlink("../../shared/jquery.js", docs.join("_static/jquery.js")).unwrap();
    std::os::unix::fs::symlink("nowhere.html", docs.join("dangling.html")).unwrap();
    let out_dir = dir.path().join("out");
    let out = relink(
        &[s(&docs), "--retrieved-from", "http://h/", "-o", s(&out_dir)],
        b"",
    );
    assert_ok(&out);
    assert_eq!(read(&out_dir.join(".buildinfo")), "config: 1\n");
    assert_eq!(read(&out_dir.join("_static/.htaccess")), "Deny from all\n");
    for (link, target) in [
        ("_static/jquery.js", "../../shared/jquery.js"),
        ("dangling.html", "nowhere.html"),
    ] {
        let copied = out_dir.join(link);
        assert!(
            std::fs::symlink_metadata(&copied)
                .unwrap()
                .file_type()
                .is_symlink()
        );
        assert_eq!(std::fs::read_link(&copied).unwrap(), Path::new(target));
    }
    // A second run replaces the links it made.
    let out = relink(&[s(&docs), "-o", s(&out_dir)], b"");
    assert_ok(&out);
    assert_eq!(
        std::fs::read_link(out_dir.join("_static/jquery.js")).unwrap(),
        Path::new("../../shared/jquery.js")
    );
}

#[test]
fn written_files_keep_the_source_mode() {
    let dir = tempfile::tempdir().unwrap();
    let site = dir.path().join("site");
    write(&site.join("a.html"), b"<a href=x>");
    write(&site.join("run.sh"), b"#!/bin/sh\n");
    write(&site.join("b.html"), b"<p>nothing to change");
    set_mode(&site.join("a.html"), 0o644);
    set_mode(&site.join("run.sh"), 0o750);
    set_mode(&site.join("b.html"), 0o604);
    let out_dir = dir.path().join("out");
    let out = relink(
        &[s(&site), "--retrieved-from", "http://h/", "-o", s(&out_dir)],
        b"",
    );
    assert_ok(&out);
    assert_eq!(mode(&out_dir.join("a.html")), 0o644);
    assert_eq!(mode(&out_dir.join("run.sh")), 0o750);
    assert_eq!(mode(&out_dir.join("b.html")), 0o604);
    let meta = std::fs::metadata(site.join("a.html")).unwrap();
    assert_eq!(
        std::fs::metadata(out_dir.join("a.html")).unwrap().uid(),
        meta.uid()
    );
    // Standard input to a new file: 0666 less the umask, like any new file.
    let new = dir.path().join("new.html");
    let status = Command::new("sh")
        .arg("-c")
        .arg(format!(
            "umask 027; echo '<a href=x>' | exec '{}' - -o '{}'",
            env!("CARGO_BIN_EXE_relink"),
            s(&new)
        ))
        .status()
        .unwrap();
    assert!(status.success());
    assert_eq!(mode(&new), 0o640);
}

#[test]
fn output_onto_an_existing_directory_writes_inside_it() {
    let dir = tempfile::tempdir().unwrap();
    let page = dir.path().join("page.html");
    write(&page, b"<a href=x>");
    let out_dir = dir.path().join("out");
    std::fs::create_dir(&out_dir).unwrap();
    let out = relink(
        &[s(&page), "--retrieved-from", "http://h/", "-o", s(&out_dir)],
        b"",
    );
    assert_ok(&out);
    assert_eq!(read(&out_dir.join("page.html")), "<a href=http://h/x>");
    // A trailing slash names a directory, made if need be.
    let slash = format!("{}/", s(&dir.path().join("fresh")));
    let out = relink(
        &[s(&page), "--retrieved-from", "http://h/", "-o", &slash],
        b"",
    );
    assert_ok(&out);
    assert_eq!(
        read(&dir.path().join("fresh/page.html")),
        "<a href=http://h/x>"
    );
}

#[test]
fn output_onto_a_link_writes_its_target_and_into_a_fifo() {
    let dir = tempfile::tempdir().unwrap();
    let page = dir.path().join("page.html");
    write(&page, b"<a href=x>");
    let target = dir.path().join("real.html");
    write(&target, b"old");
    let link = dir.path().join("link.html");
    std::os::unix::fs::symlink("real.html", &link).unwrap();
    let out = relink(
        &[s(&page), "--retrieved-from", "http://h/", "-o", s(&link)],
        b"",
    );
    assert_ok(&out);
    assert!(
        std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert_eq!(read(&target), "<a href=http://h/x>");

    let fifo = dir.path().join("fifo");
    assert!(
        Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    // Written into, as a shell's `>` does (a reader takes it), never
    // replaced by a file.
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || std::fs::read(fifo).unwrap())
    };
    let out = relink(
        &[s(&page), "--retrieved-from", "http://h/", "-o", s(&fifo)],
        b"",
    );
    assert_ok(&out);
    assert_eq!(reader.join().unwrap(), b"<a href=http://h/x>");
    assert!(
        std::fs::symlink_metadata(&fifo)
            .unwrap()
            .file_type()
            .is_fifo()
    );
}

#[test]
fn in_place_leaves_links_in_a_tree_and_follows_named_ones() {
    let dir = tempfile::tempdir().unwrap();
    let site = dir.path().join("site");
    write(&site.join("real.html"), b"<a href=x>");
    let outside = dir.path().join("outside.html");
    write(&outside, b"<a href=y>");
    let link = site.join("link.html");
    std::os::unix::fs::symlink("../outside.html", &link).unwrap();
    let out = relink(
        &[s(&site), "--retrieved-from", "http://h/", "--in-place"],
        b"",
    );
    assert_ok(&out);
    assert_eq!(read(&site.join("real.html")), "<a href=http://h/x>");
    assert!(
        std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert_eq!(read(&outside), "<a href=y>");
    // Named on the command line, the link leads to the file rewritten.
    let out = relink(
        &[s(&link), "--retrieved-from", "http://h/", "--in-place"],
        b"",
    );
    assert_ok(&out);
    assert!(
        std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert_eq!(read(&outside), "<a href=http://h/y>");
}

#[test]
fn in_place_warns_about_other_hard_links() {
    let dir = tempfile::tempdir().unwrap();
    let page = dir.path().join("page.html");
    write(&page, b"<a href=x>");
    let other = dir.path().join("other-name.html");
    std::fs::hard_link(&page, &other).unwrap();
    let out = relink(
        &[s(&page), "--retrieved-from", "http://h/", "--in-place"],
        b"",
    );
    assert_ok(&out);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("page.html: has 2 hard links"), "{stderr}");
    assert_eq!(read(&page), "<a href=http://h/x>");
    assert_eq!(read(&other), "<a href=x>");
}

#[test]
fn a_renamed_maildir_message_keeps_its_mode() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("Maildir");
    let text = "Content-Base: http://h/\nContent-Type: text/html\n\n<a href=x>x</a>\n";
    let message = root.join(format!("cur/1.M1P1.host,S={}:2,S", text.len()));
    write(&message, text.as_bytes());
    std::fs::create_dir_all(root.join("new")).unwrap();
    set_mode(&message, 0o640);
    let out = relink(&[s(&root), "--in-place"], b"");
    assert_ok(&out);
    let renamed = root.join(format!("cur/1.M1P1.host,S={}:2,S", text.len() + 9));
    assert_eq!(
        read(&renamed),
        "Content-Base: http://h/\nContent-Type: text/html\n\n<a href=http://h/x>x</a>\n"
    );
    assert!(!message.exists());
    assert_eq!(mode(&renamed), 0o640);
}

#[test]
fn a_renamed_maildir_message_never_overwrites_another() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("Maildir");
    let text = b"Content-Base: http://h/\nContent-Type: text/html\n\n<a href=x>x</a>\n";
    let message = root.join(format!("cur/1.M1P1.host,S={}:2,S", text.len()));
    write(&message, text);
    std::fs::create_dir_all(root.join("new")).unwrap();
    // Another message already has the name the rewritten one would take.
    let other = root.join(format!("cur/1.M1P1.host,S={}:2,S", text.len() + 9));
    write(&other, b"Subject: another message\n\nhello\n");
    let out = relink(&[s(&root), "--in-place"], b"");
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("already exists"), "{stderr}");
    assert_eq!(std::fs::read(&message).unwrap(), text);
    assert_eq!(read(&other), "Subject: another message\n\nhello\n");
}

#[test]
fn backup_is_refused_on_a_maildir() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("Maildir");
    let message = root.join("cur/1.M1P1.host:2,S");
    let text = b"Content-Base: http://h/\nContent-Type: text/html\n\n<a href=x>x</a>\n";
    write(&message, text);
    let out = relink(&[s(&root), "--in-place", "--backup", ".orig"], b"");
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("--backup cannot be used on a Maildir"),
        "{stderr}"
    );
    assert_eq!(std::fs::read(&message).unwrap(), text);
    assert_eq!(std::fs::read_dir(root.join("cur")).unwrap().count(), 1);
}

#[test]
fn in_place_refuses_a_fifo_without_waiting_on_it() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("pipe.html");
    assert!(
        Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    let page = dir.path().join("page.html");
    write(&page, b"<a href=x>");
    let out = relink(
        &[
            s(&fifo),
            s(&page),
            "--in-place",
            "--retrieved-from",
            "http://h/",
        ],
        b"",
    );
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("pipe.html: not a regular file"), "{stderr}");
    assert_eq!(read(&page), "<a href=http://h/x>");
}

#[test]
fn a_script_or_an_svg_in_a_tree_is_copied_unread() {
    let dir = tempfile::tempdir().unwrap();
    let site = dir.path().join("site");
    let script = b"<!-- old-style guard\ndocument.write('<a href=x>');\n";
    let svg = b"<!-- Generator: drawing -->\n<svg><a href=\"y\"/></svg>\n";
    write(&site.join("app.js"), script);
    write(&site.join("logo.svg"), svg);
    let out = relink(
        &[s(&site), "--retrieved-from", "http://h/", "--in-place"],
        b"",
    );
    assert_ok(&out);
    assert_eq!(std::fs::read(site.join("app.js")).unwrap(), script);
    assert_eq!(std::fs::read(site.join("logo.svg")).unwrap(), svg);
}

#[test]
fn a_maildir_folder_inside_a_maildir_is_read_too() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("Maildir");
    let text = "Content-Base: http://h/\nContent-Type: text/html\n\n<a href=x>x</a>\n";
    write(&root.join("cur/1.M1P1.host:2,S"), text.as_bytes());
    write(&root.join(".Sent/cur/2.M1P1.host:2,S"), text.as_bytes());
    std::fs::create_dir_all(root.join(".Sent/tmp")).unwrap();
    let out = relink(&[s(&root), "--in-place"], b"");
    assert_ok(&out);
    let expected = text.replace("href=x", "href=http://h/x");
    assert_eq!(read(&root.join("cur/1.M1P1.host:2,S")), expected);
    assert_eq!(read(&root.join(".Sent/cur/2.M1P1.host:2,S")), expected);
}
