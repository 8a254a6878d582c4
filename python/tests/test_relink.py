"""The Python API against the repository's fixtures."""

from __future__ import annotations

import array
import base64
import errno
import gzip
import hashlib
import io
import json
import mmap
import os
import pathlib
import re
import socket
import stat
import subprocess
import sys
import urllib.request
import threading
import time
import warnings
import zlib

import pytest

import relink
from conftest import FIXTURES, ROW_KEYS, cli_rows, http_server, make_crawl, require_all, table, warc_record

CORPUS_WARC = FIXTURES / "corpus" / "warc" / "python-tutorial.warc.gz"
SITE_WARC = FIXTURES / "warc" / "site.warc.gz"
SITE = "http://127.0.0.1:8769"


# resolve


@pytest.mark.parametrize(
    "name, rules", [("rfc1808.tsv", "rfc1808"), ("rfc1808-more.tsv", "rfc1808"), ("rfc3986.tsv", "rfc3986")]
)
def test_resolve_matches_the_rfc_examples(name: str, rules: str) -> None:
    for base, reference, expected in table(name, 3):
        assert relink.resolve(base, reference, rules) == expected, (base, reference)


def test_resolve_defaults_to_rfc1808_where_the_rule_sets_disagree() -> None:
    for base, reference, rfc1808, rfc3986, whatwg in table("rules.tsv", 5):
        assert relink.resolve(base, reference) == rfc1808, (base, reference)
        assert relink.resolve(base, reference, rules="rfc3986") == rfc3986
        if whatwg == "(error)":
            with pytest.raises(ValueError):
                relink.resolve(base, reference, rules="whatwg")
        else:
            assert relink.resolve(base, reference, rules="whatwg") == whatwg


def test_resolve_rules_names_ignore_case() -> None:
    assert relink.resolve("http://a/b/c/d;p?q", "../../../g", "RFC3986") == "http://a/g"


@pytest.mark.parametrize("base", ["", "no-scheme/path", "//a/b"])
def test_relative_base_raises_value_error(base: str) -> None:
    with pytest.raises(ValueError, match="invalid base url"):
        relink.resolve(base, "g")
    with pytest.raises(ValueError, match="invalid base url"):
        relink.absolutize(b"<a href=g>", base)
    with pytest.raises(ValueError, match="invalid base url"):
        relink.links(b"<a href=g>", base)
    with pytest.raises(ValueError, match="invalid base url"):
        relink.rewrite(b"<a href=g>", base)


def test_unknown_rules_raise_value_error() -> None:
    for call in (
        lambda: relink.resolve("http://a/", "g", "rfc2396"),
        lambda: relink.absolutize(b"", "http://a/", "rfc2396"),
        lambda: relink.links(b"", "http://a/", "rfc2396"),
        lambda: relink.rewrite(b"", None, "rfc2396"),
        lambda: relink.warc_links(SITE_WARC, "rfc2396"),
    ):
        with pytest.raises(ValueError, match="unknown rules 'rfc2396'"):
            call()


def test_a_str_is_a_path_never_the_data() -> None:
    for call in (
        lambda: relink.absolutize("<a href=g>", "http://a/"),
        lambda: relink.links("<a href=g>", "http://a/"),
        lambda: relink.rewrite("<a href=g>", "http://a/"),
    ):
        with pytest.raises(FileNotFoundError) as caught:
            call()
        assert caught.value.filename == "<a href=g>"


# absolutize and rewrite


def test_absolutize_matches_the_html_fixtures() -> None:
    checked = 0
    for name, retrieved_from, rules in table("html/cases.tsv", 3):
        if not name.endswith(".html") or retrieved_from == "-":
            continue
        data = (FIXTURES / "html" / name).read_bytes()
        expected = (FIXTURES / "html" / name.replace(".html", ".expected.html")).read_bytes()
        assert relink.absolutize(data, retrieved_from, rules) == expected, name
        checked += 1
    assert checked >= 15


@pytest.mark.filterwarnings("ignore::relink.RelinkWarning")
def test_rewrite_matches_every_html_and_css_fixture() -> None:
    for name, retrieved_from, rules in table("html/cases.tsv", 3):
        stem, ext = name.rsplit(".", 1)
        data = (FIXTURES / "html" / name).read_bytes()
        expected = (FIXTURES / "html" / f"{stem}.expected.{ext}").read_bytes()
        base = None if retrieved_from == "-" else retrieved_from
        kind = "css" if ext == "css" else None
        assert relink.rewrite(data, base, rules, kind=kind) == expected, name


@pytest.mark.filterwarnings("ignore::relink.RelinkWarning")
def test_rewrite_matches_the_message_and_mbox_fixtures() -> None:
    kinds = set()
    for name, retrieved_from in table("mail/cases.tsv", 2):
        stem, ext = name.rsplit(".", 1)
        data = (FIXTURES / "mail" / name).read_bytes()
        expected = (FIXTURES / "mail" / f"{stem}.expected.{ext}").read_bytes()
        base = None if retrieved_from == "-" else retrieved_from
        assert relink.rewrite(data, base) == expected, name
        kinds.add(ext)
    assert {"eml", "mhtml", "mboxrd", "mboxcl2"} <= kinds


def test_document_base_wins_over_the_retrieval_url() -> None:
    page = b'<base href="http://www.ics.uci.edu/Test/a/b/c"><a href="../x">x</a>'
    out = relink.absolutize(page, "http://elsewhere.example/")
    assert out == page.replace(b'"../x"', b'"http://www.ics.uci.edu/Test/a/x"')


def test_without_a_base_output_is_input() -> None:
    page = b"<p><a href='../x'>x</a> <img src=i.png></p>"
    with pytest.warns(relink.RelinkWarning, match="no base url"):
        out = relink.rewrite(page)
    assert out == page
    # Nothing changed: the very object comes back, no copy.
    assert out is page


def test_rewrite_finds_a_warc_file_by_its_bytes() -> None:
    data = CORPUS_WARC.read_bytes()
    out = relink.rewrite(data)
    assert out != data
    index = gzip.decompress(out)
    assert b'href="http://127.0.0.1:8768/_static/pygments.css"' in index
    assert relink.rewrite(out) == out


def test_unknown_kind_raises_value_error() -> None:
    with pytest.raises(ValueError, match="unknown kind 'pdf'"):
        relink.rewrite(b"%PDF", "http://a/", kind="pdf")  # type: ignore[arg-type]


def test_what_cannot_be_done_is_a_relink_warning() -> None:
    # The URL Standard rejects this reference: it is left as it is, with a
    # warning naming where it is.
    page = b'<a href="http://[x/">x</a> <a href="y">y</a>'
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = relink.absolutize(page, "http://a/b/", "whatwg")
    assert out == page.replace(b'"y"', b'"http://a/b/y"')
    assert issubclass(relink.RelinkWarning, UserWarning)
    assert [w.category for w in caught] == [relink.RelinkWarning]
    assert "<a href>" in str(caught[0].message)
    # Issued at the caller's line.
    assert caught[0].filename == __file__
    with warnings.catch_warnings():
        warnings.simplefilter("error", relink.RelinkWarning)
        with pytest.raises(relink.RelinkWarning):
            relink.absolutize(page, "http://a/b/", "whatwg")


# links


def test_links_have_the_list_fields() -> None:
    page = b'<html>\n<a href="../x">x</a>\n<img srcset="i.png 1x, j.png 2x">'
    found = relink.links(page, "http://example.org/a/b/page.html")
    assert [link["resolved"] for link in found] == [
        "http://example.org/a/x",
        "http://example.org/a/b/i.png",
        "http://example.org/a/b/j.png",
    ]
    first = found[0]
    assert first == {
        "file": None,
        "message": None,
        "part": None,
        "record": None,
        "record_id": None,
        "target_uri": None,
        "line": 2,
        "column": 10,
        "element": "a",
        "attribute": "href",
        "original": "../x",
        "resolved": "http://example.org/a/x",
        "base": "http://example.org/a/b/page.html",
        "base_from": "--retrieved-from",
        "changed": True,
    }
    assert list(first) == ROW_KEYS
    assert found[1]["element"] == "img" and found[1]["attribute"] == "srcset"


def test_links_name_the_base_element() -> None:
    page = b'<head>\n<base href="http://b.example/x/">\n</head><a href=y>'
    base, link = relink.links(page, "http://a.example/")
    # The BASE element's own href is a link, against the layer below.
    assert (base["element"], base["base_from"]) == ("base", "--retrieved-from")
    assert link["resolved"] == "http://b.example/x/y"
    assert link["base"] == "http://b.example/x/"
    assert link["base_from"] == "the BASE element at line 2"


def test_an_absolute_link_is_listed_unchanged() -> None:
    (link,) = relink.links(b"<a href=http://b.example/>", "http://a.example/")
    assert (link["resolved"], link["changed"]) == ("http://b.example/", False)


def test_links_of_a_message_resolve_against_its_base_header() -> None:
    message = (
        b"From: a@example.org\r\nBase: <URL:http://news.example/2026/03/>\r\n"
        b"Content-Type: text/html\r\n\r\n<a href=issue.html>x</a> <img src=../i.png>\r\n"
    )
    found = relink.links(message, "http://elsewhere.example/")
    assert [(l["resolved"], l["base_from"], l["part"]) for l in found] == [
        ("http://news.example/2026/03/issue.html", "Base of the message", ""),
        ("http://news.example/2026/i.png", "Base of the message", ""),
    ]
    assert found == relink.links(message, "http://elsewhere.example/", kind="message")


def test_links_of_a_style_sheet() -> None:
    css = b'@import "print.css";\nbody { background: url(img/back.png) }\n'
    found = relink.links(css, "http://a.example/s/main.css", kind="css")
    assert [(l["resolved"], l["attribute"], l["line"]) for l in found] == [
        ("http://a.example/s/print.css", "css", 1),
        ("http://a.example/s/img/back.png", "css", 2),
    ]


def test_links_of_an_mbox_and_a_warc_held_in_memory() -> None:
    mbox = FIXTURES / "mail" / "archive.mboxrd"
    found = relink.links(mbox.read_bytes(), "http://list.example/")
    assert {l["message"] for l in found} == {1, 3}
    assert found == [{**l, "file": None} for l in relink.mbox_links(mbox, "http://list.example/")]
    assert relink.links(SITE_WARC.read_bytes()) == [{**l, "file": None} for l in relink.warc_links(SITE_WARC)]
    # A gzipped document is read inside its compression.
    page = gzip.compress(b"<a href=x>x</a>", mtime=0)
    assert [l["resolved"] for l in relink.links(page, "http://a.example/d/")] == ["http://a.example/d/x"]


LAZY_PAGE = FIXTURES / "html" / "lazy-preset.html"
LAZY_FROM = "http://example.org/news/story.html"


def test_lazy_reads_each_lazy_loading_attribute_as_a_link(relink_bin) -> None:
    expected = (FIXTURES / "html" / "lazy-preset.expected.html").read_bytes()
    page = LAZY_PAGE.read_bytes()
    assert relink.absolutize(page, LAZY_FROM, lazy=True) == expected
    assert relink.rewrite(LAZY_PAGE, LAZY_FROM, lazy=True) == expected
    # Without it, none is a link.
    assert relink.rewrite(page, LAZY_FROM) == page
    rows = relink.links(LAZY_PAGE, LAZY_FROM, lazy=True)
    assert {r["attribute"] for r in rows} >= {
        "data-src",
        "data-srcset",
        "data-original",
        "data-lazy-src",
        "data-background",
    }
    assert rows == cli_rows(relink_bin, LAZY_PAGE, "--lazy", "--retrieved-from", LAZY_FROM)
    assert not any(r["attribute"].startswith("data-") for r in relink.links(LAZY_PAGE, LAZY_FROM))


def test_lazy_reaches_the_records_of_an_archive() -> None:
    page = b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n<img data-src=a.jpg>"
    record = (
        b"WARC/1.0\r\nWARC-Type: response\r\nWARC-Target-URI: http://h.example/d/p\r\n"
        b"WARC-Record-ID: <urn:uuid:00000000-0000-0000-0000-000000000001>\r\n"
        b"Content-Type: application/http; msgtype=response\r\n"
        b"Content-Length: " + str(len(page)).encode() + b"\r\n\r\n" + page + b"\r\n\r\n"
    )
    lazy = [r["resolved"] for r in relink.warc_links(record, lazy=True)]
    assert lazy == ["http://h.example/d/a.jpg"]
    assert list(relink.warc_links(record)) == []
    out = io.BytesIO()
    assert relink.rewrite_warc(record, out, lazy=True) == 1
    assert b"data-src=http://h.example/d/a.jpg" in out.getvalue()


def test_rows_of_every_document_fixture_equal_the_command_lines(relink_bin) -> None:
    """One schema: links() gives the rows `relink --list --format json`
    gives, key for key, for every HTML, CSS, message and mbox fixture."""
    cases = [("html/" + name, base, rules) for name, base, rules in table("html/cases.tsv", 3)]
    cases += [("mail/" + name, base, "rfc1808") for name, base in table("mail/cases.tsv", 2)]
    kinds = set()
    for name, base, rules in cases:
        path = FIXTURES / name
        args = ["--rules", rules] + ([] if base == "-" else ["--retrieved-from", base])
        expected = cli_rows(relink_bin, path, *args)
        kind = "css" if name.endswith(".css") else None
        found = relink.links(path.read_bytes(), None if base == "-" else base, rules, kind=kind)
        assert found == [{**row, "file": None} for row in expected], name
        # Given its path, the file is read and its kind told by its name, as
        # the command line tells it: the rows are the command line's.
        assert relink.links(path, None if base == "-" else base, rules) == expected, name
        kinds.update(row["base_from"] for row in found)
    # Every kind of base the command line names is in these rows.
    assert {"--retrieved-from", "Base of the message", "none"} <= kinds, kinds
    assert any(k.startswith("the enclosing document (") for k in kinds), kinds


def every_fixture() -> list[pathlib.Path]:
    """Every input under fixtures/: not the tables, licences and notes."""
    skip = ("LICENSE", "README", "NOTICE", "COPYING")
    return sorted(
        path
        for path in FIXTURES.rglob("*")
        if path.is_file() and path.suffix != ".tsv" and not path.name.startswith(skip)
    )


def cli_run(relink_bin: pathlib.Path, path: pathlib.Path, base: str) -> tuple[list[dict], list[str], list[str]]:
    """The rows, warnings and errors `relink --list --format json` gives
    for one file, each message without the file's name."""
    run = subprocess.run(
        [str(relink_bin), "--list", "--format", "json", "--retrieved-from", base, str(path)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    said = {"warning": [], "error": []}
    for line in run.stderr.splitlines():
        for what, found in said.items():
            prefix = f"relink: {what}: {path}: "
            if line.startswith(prefix):
                found.append(line[len(prefix):])
    rows = [json.loads(line) for line in run.stdout.splitlines()]
    return rows, said["warning"], said["error"]


def python_run(path: pathlib.Path, base: str) -> tuple[list[dict], list[str], list[str]]:
    """The rows, warnings and errors relink.links gives for one file."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            rows, errors = relink.links(path, base), []
        except (ValueError, OSError) as error:
            rows, errors = [], [str(error).removeprefix(f"{path}: ")]
    said = [str(w.message) for w in caught if issubclass(w.category, relink.RelinkWarning)]
    return rows, said, errors


def test_every_fixture_gives_the_command_lines_rows_warnings_and_errors(relink_bin) -> None:
    """One front door: for every fixture, whatever its kind, links() gives
    the rows, the warnings and the errors the command line's --list gives."""
    differ, kinds = [], 0
    for path in every_fixture():
        base = f"http://example.test/d/{path.name}"
        cli, py = cli_run(relink_bin, path, base), python_run(path, base)
        if cli != py:
            differ.append(f"{path.relative_to(FIXTURES)}: {cli[1:]} != {py[1:]}")
        kinds += bool(cli[0] or cli[1] or cli[2])
    assert not differ, "\n".join(differ[:20])
    # The comparison is not empty: rows, warnings or errors for most files.
    assert kinds > len(every_fixture()) // 2


def test_archive_rows_equal_the_command_lines(relink_bin, tmp_path: pathlib.Path) -> None:
    """One schema: warc_links() and mbox_links() give the rows `relink
    --list --format json` gives, key for key (the path given as `file`),
    for WARC files (a crawl with a bad record among them) and an mbox."""
    for path in (SITE_WARC, CORPUS_WARC, *make_crawl(tmp_path)):
        expected = cli_rows(relink_bin, path)
        assert expected, path
        found = list(relink.warc_links(str(path)))
        assert found == expected, path
        # Read whole by links(), the same rows.
        assert relink.links(path) == expected, path
        # A record's rows have every key in JSON Lines too.
        run = subprocess.run(
            [str(relink_bin), "--list", "--format", "json", str(path)], capture_output=True, check=True
        )
        assert all(list(json.loads(line)) == ROW_KEYS for line in run.stdout.splitlines())
    for name in ("archive.mboxrd", "archive.mboxcl2"):
        mbox = FIXTURES / "mail" / name
        assert list(relink.mbox_links(str(mbox))) == cli_rows(relink_bin, mbox), name
        assert relink.links(mbox) == cli_rows(relink_bin, mbox), name


# bytes-like input


def test_every_bytes_like_object_is_read(tmp_path: pathlib.Path) -> None:
    page = b'<a href="../x">x</a>'
    base = "http://h.example/a/b/c"
    expected = relink.links(page, base)
    path = tmp_path / "page.html"
    path.write_bytes(page)
    with open(path, "rb") as stream, mmap.mmap(stream.fileno(), 0, access=mmap.ACCESS_READ) as mapped:
        for data in (bytearray(page), memoryview(page), mapped, array.array("B", page), memoryview(b"xx" + page)[2:]):
            assert relink.links(data, base) == expected, type(data)
            assert relink.absolutize(data, base) == b'<a href="http://h.example/a/x">x</a>'
            assert relink.rewrite(data, base) == b'<a href="http://h.example/a/x">x</a>'
    for wrong in (5, None, [1, 2]):
        with pytest.raises(TypeError, match="expected a path, a bytes-like object or a binary file object"):
            relink.links(wrong, base)  # type: ignore[arg-type]
        with pytest.raises(TypeError):
            relink.rewrite(wrong, base)  # type: ignore[arg-type]


def test_a_bytearray_changed_later_does_not_change_the_result() -> None:
    data = bytearray(b"<a href=x>x</a>")
    out = relink.rewrite(data, "http://a.example/")
    data[:] = b"nothing"
    assert out == b"<a href=http://a.example/x>x</a>"


# One way in: a path, data or a file object


def test_every_function_takes_a_path_data_or_a_file_object(tmp_path: pathlib.Path) -> None:
    page = b'<a href="../x">x</a>'
    base = "http://h.example/a/b/c"
    path = tmp_path / "page.html"
    path.write_bytes(page)
    expected = relink.links(page, base)
    assert expected and expected[0]["resolved"] == "http://h.example/a/x"
    with open(path, "rb") as stream:
        assert relink.links(stream, base) == expected
    assert relink.links(io.BytesIO(page), base) == expected
    # A path's rows name it, as the command line's do.
    for given in (path, str(path)):
        assert relink.links(given, base) == [{**l, "file": str(path)} for l in expected]
    rewritten = b'<a href="http://h.example/a/x">x</a>'
    for given in (path, str(path), open(path, "rb"), io.BytesIO(page), page):
        assert relink.rewrite(given, base) == rewritten
    for given in (path, open(path, "rb"), page):
        assert relink.absolutize(given, base) == rewritten
    # A path is read, never written.
    assert path.read_bytes() == page
    # The streaming functions take data in memory too.
    data = SITE_WARC.read_bytes()
    from_path = [{**l, "file": None} for l in relink.warc_links(SITE_WARC)]
    assert len(from_path) > 20
    assert list(relink.warc_links(data)) == from_path
    assert list(relink.warc_links(bytearray(data))) == from_path
    assert list(relink.warc_links(memoryview(data))) == from_path
    out = io.BytesIO()
    relink.rewrite_warc(data, out)
    assert out.getvalue() == relink.rewrite(data)
    mbox = FIXTURES / "mail" / "archive.mboxrd"
    from_path = [{**l, "file": None} for l in relink.mbox_links(mbox)]
    assert from_path and list(relink.mbox_links(mbox.read_bytes())) == from_path
    out = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", relink.RelinkWarning)
        relink.rewrite_mbox(mbox.read_bytes(), out)
    assert out.getvalue() == (FIXTURES / "mail" / "archive.expected.mboxrd").read_bytes()


def test_a_path_is_read_as_the_file_not_as_its_name(tmp_path: pathlib.Path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    pathlib.Path("page.html").write_bytes(b"<a href=x>x</a>")
    (link,) = relink.links("page.html", "http://a.example/d/")
    assert (link["file"], link["resolved"], link["element"]) == ("page.html", "http://a.example/d/x", "a")
    # A style sheet is told by its name, as the command line tells it.
    pathlib.Path("main.css").write_bytes(b"body { background: url(i.png) }")
    (link,) = relink.links("main.css", "http://a.example/s/")
    assert (link["attribute"], link["resolved"]) == ("css", "http://a.example/s/i.png")
    assert relink.links(b"body { background: url(i.png) }", "http://a.example/s/") == []
    with pytest.raises(FileNotFoundError) as caught:
        relink.links("missing.html")
    assert (caught.value.errno, caught.value.filename) == (errno.ENOENT, "missing.html")


def test_a_file_object_is_read_to_its_end() -> None:
    """links() of an open file: read through its read(), a few bytes at a
    time for a trickling stream, never as a memoryview."""
    mbox = (FIXTURES / "mail" / "archive.mboxrd").read_bytes()
    expected = relink.links(mbox, "http://list.example/")
    assert len(expected) > 2
    with open(FIXTURES / "mail" / "archive.mboxrd", "rb") as stream:
        assert relink.links(stream, "http://list.example/") == expected
    assert relink.links(Trickle(mbox), "http://list.example/") == expected
    with open(FIXTURES / "mail" / "archive.mboxrd", encoding="latin-1") as text:
        with pytest.raises(TypeError, match="bytes-like"):
            relink.links(text)


# Inputs of the wrong kind: an error naming what they are


def test_warc_links_of_a_page_raise_value_error(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "page.html"
    path.write_bytes(b"<!doctype html><a href=x>x</a>")
    message = r"not a web archive \(WARC or ARC\): it reads as html \(links and rewrite read it\)"
    with pytest.raises(ValueError, match=f"^{re.escape(str(path))}: {message}$"):
        list(relink.warc_links(path))
    with pytest.raises(ValueError, match=f"^{message}$"):
        next(relink.warc_links(path.read_bytes()))
    with open(path, "rb") as stream, pytest.raises(ValueError, match=f"^{re.escape(str(path))}: {message}"):
        list(relink.warc_links(stream))
    # A WACZ package, and text that is no kind at all.
    # A WACZ package, even one whose WARC file is stored in it uncompressed,
    # told by its name as the command line tells it.
    for name in ("site.wacz", "example-plain.wacz"):
        wacz = FIXTURES / "archives" / "wacz" / name
        with pytest.raises(ValueError, match="not a web archive .WARC or ARC.: it reads as wacz"):
            list(relink.warc_links(wacz))
    # Text that is no kind at all is read as HTML, as the command line
    # reads it.
    with pytest.raises(ValueError, match="^not a web archive .WARC or ARC.: it reads as html"):
        list(relink.warc_links(b"just some text\n"))
    # A file named as a WARC with no record in it is read as one, as the
    # command line reads it: no links, and a warning that says why.
    named = tmp_path / "crawl.warc"
    named.write_bytes(b"<p>not a record</p>")
    with pytest.warns(relink.RelinkWarning, match="no record"):
        assert list(relink.warc_links(named)) == []


def test_verify_digests_reaches_every_function_that_lists_an_archive() -> None:
    # A record whose WARC-Block-Digest is of other bytes: only read, its
    # link would change; verified, it is left as it is (as a rewrite
    # leaves it), a warning says why, and a WAT file gives the block's
    # own digest in place of the one written.
    wrong = "sha1:" + base64.b32encode(hashlib.sha1(b"other bytes").digest()).decode()
    record = warc_record("http://www.example.com/d/", '<a href="x">x</a>').replace(
        b"\r\nContent-Length:", f"\r\nWARC-Block-Digest: {wrong}\r\nContent-Length:".encode(), 1
    )
    listings = {
        "warc_links": lambda **verify: list(relink.warc_links(record, **verify)),
        "links": lambda **verify: relink.links(record, kind="warc", **verify),
    }
    for name, listing in listings.items():
        with warnings.catch_warnings():
            warnings.simplefilter("error", relink.RelinkWarning)
            assert [row["changed"] for row in listing()] == [True], name
        with pytest.warns(relink.RelinkWarning, match="WARC-Block-Digest .* does not match"):
            assert [row["changed"] for row in listing(verify_digests=True)] == [False], name
    for verify in [False, True]:
        out = io.BytesIO()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", relink.RelinkWarning)
            relink.wat(record, out, verify_digests=verify)
        text = gzip.decompress(out.getvalue()).decode()
        block = json.loads(text.split("\r\n\r\n")[3])
        said = block["Envelope"]["Payload-Metadata"]["Block-Digest"]
        assert (said == wrong) == (not verify), verify


def test_rewrite_warc_of_a_page_raises_value_error_and_writes_nothing(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "page.html"
    path.write_bytes(b"<a href=x>x</a>")
    out = io.BytesIO()
    with pytest.raises(ValueError, match="page.html: not a web archive .WARC or ARC.: it reads as html"):
        relink.rewrite_warc(path, out)
    assert out.getvalue() == b""
    with pytest.raises(ValueError, match="not a web archive"):
        relink.rewrite_warc(path, tmp_path / "out.warc")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["page.html"]


def test_mbox_links_of_a_web_archive_raise_value_error() -> None:
    message = r"not an mbox: it reads as warc \(warc_links and rewrite_warc read it\)"
    with pytest.raises(ValueError, match=f"^{re.escape(str(CORPUS_WARC))}: {message}$"):
        list(relink.mbox_links(CORPUS_WARC))
    with pytest.raises(ValueError, match=f"^{message}$"):
        list(relink.mbox_links(io.BytesIO(SITE_WARC.read_bytes())))
    eml = FIXTURES / "mail" / "base-header.eml"
    with pytest.raises(ValueError, match="base-header.eml: not an mbox: it reads as message .links and rewrite"):
        list(relink.mbox_links(eml))


def test_rewrite_mbox_of_a_web_archive_raises_value_error_and_writes_nothing(tmp_path: pathlib.Path) -> None:
    """The command line refuses a WARC file read as an mbox; so does the
    package, and it writes nothing (not the archive as one gzip stream)."""
    out = io.BytesIO()
    with pytest.raises(ValueError, match="site.warc.gz: not an mbox: it reads as warc"):
        relink.rewrite_mbox(SITE_WARC, out)
    assert out.getvalue() == b""
    with pytest.raises(ValueError, match="not an mbox: it reads as warc"):
        relink.rewrite_mbox(SITE_WARC.read_bytes(), tmp_path / "out.mbox.gz")
    assert list(tmp_path.iterdir()) == []


def test_an_archive_compressed_as_relink_does_not_read_raises_value_error() -> None:
    zstd = b"\x28\xb5\x2f\xfd" + bytes(100)
    xz = b"\xfd7zXZ\x00" + bytes(100)
    for data, name in ((zstd, "zstd"), (xz, "xz")):
        with pytest.raises(ValueError, match=f"^compressed with {name}, which relink does not read: decompress it first$"):
            list(relink.warc_links(data))
        with pytest.raises(ValueError, match=f"compressed with {name}"):
            list(relink.mbox_links(data))
        with pytest.raises(ValueError, match=f"compressed with {name}"):
            relink.rewrite_mbox(data, io.BytesIO())


def test_an_empty_archive_has_no_links() -> None:
    links = relink.warc_links(b"")
    assert list(links) == [] and links.records == 0
    mbox = relink.mbox_links(io.BytesIO())
    assert list(mbox) == [] and mbox.records == 0


# warc_links


def test_warc_links_match_the_site_table() -> None:
    rows = table("warc/site-links.tsv", 5)
    by_rules: dict[str, list[dict]] = {}
    for rules, target, original, resolved, base_from in rows:
        if rules not in by_rules:
            by_rules[rules] = list(relink.warc_links(str(SITE_WARC), rules))
        found = [
            link
            for link in by_rules[rules]
            if link["target_uri"] == SITE + target and link["original"] == original
        ]
        assert found, (rules, target, original)
        assert found[0]["resolved"] == resolved
        assert found[0]["base_from"] == base_from
        assert found[0]["record_id"].startswith("<urn:uuid:")
    assert set(by_rules) == {"rfc1808", "rfc3986", "whatwg"}


def test_warc_links_take_a_path_object() -> None:
    assert list(relink.warc_links(SITE_WARC)) == list(relink.warc_links(str(SITE_WARC)))


def test_warc_links_agree_with_links_of_each_payload_read_by_warcio() -> None:
    """An oracle outside relink's WARC reader: warcio undoes the HTTP
    codings, relink.links reads each HTML payload against its target URI."""
    warcio = pytest.importorskip("warcio.archiveiterator")
    found = list(relink.warc_links(CORPUS_WARC))
    assert len(found) > 1000
    by_record: dict[str, list[tuple]] = {}
    for link in found:
        by_record.setdefault(link["record_id"], []).append(
            (link["original"], link["resolved"], link["element"], link["attribute"], link["line"])
        )
    pages = 0
    with open(CORPUS_WARC, "rb") as stream:
        for record in warcio.ArchiveIterator(stream):
            if record.rec_type != "response":
                continue
            mime = record.http_headers.get_header("Content-Type", "")
            if not mime.startswith("text/html"):
                continue
            target = record.rec_headers.get_header("WARC-Target-URI")
            record_id = record.rec_headers.get_header("WARC-Record-ID")
            payload = record.content_stream().read()
            expected = [
                (l["original"], l["resolved"], l["element"], l["attribute"], l["line"])
                for l in relink.links(payload, target, kind="html")
            ]
            assert by_record.get(record_id, []) == expected, target
            pages += 1
    assert pages >= 17


def test_warc_links_stream_a_file_too_large_to_list_at_once(tmp_path: pathlib.Path) -> None:
    """Many copies of the corpus crawl, taken a few links at a time: the
    reader runs only a bounded way ahead of the iteration."""
    one = CORPUS_WARC.read_bytes()
    path = tmp_path / "many.warc.gz"
    copies = 2
    path.write_bytes(one * copies)  # gzip members concatenate
    per_copy = sum(1 for _ in relink.warc_links(CORPUS_WARC))
    links = relink.warc_links(path)
    first = [next(links) for _ in range(10)]
    assert first[0]["record"] >= 1
    # Stop early: dropping the iterator ends the reader.
    del links
    assert sum(1 for _ in relink.warc_links(path)) == per_copy * copies


def test_rust_work_releases_the_gil() -> None:
    """Another Python thread runs while Rust rewrites a WARC file. With a
    long switch interval the interpreter never takes the GIL from a
    thread: the other one runs during the call only if relink lets go."""
    ticks = 0
    stop = threading.Event()

    def tick() -> None:
        nonlocal ticks
        while not stop.is_set():
            ticks += 1
            time.sleep(0)

    data = CORPUS_WARC.read_bytes()
    interval = sys.getswitchinterval()
    sys.setswitchinterval(5.0)
    thread = threading.Thread(target=tick)
    thread.start()
    try:
        before = ticks
        relink.rewrite(data)
        during = ticks - before
        before = ticks
        sum(range(3_000_000))  # Python work that holds the GIL, to compare
        while_holding = ticks - before
    finally:
        stop.set()
        thread.join()
        sys.setswitchinterval(interval)
    assert while_holding == 0
    assert during > 0


def test_missing_warc_file_raises_at_once() -> None:
    with pytest.raises(FileNotFoundError):
        relink.warc_links("/no/such/file.warc.gz")


def test_a_bad_record_does_not_stop_the_file(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "broken.warc"
    page = b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n<a href=x>x</a>"
    good = (
        b"WARC/1.1\r\nWARC-Type: response\r\nWARC-Target-URI: http://a.example/d/\r\n"
        b"Content-Length: %d\r\n\r\n%s\r\n\r\n" % (len(page), page)
    )
    path.write_bytes(b"WARC/1.1\r\nWARC-Type: response\r\nContent-Length: nine\r\n\r\n" + good)
    assert [link["resolved"] for link in relink.warc_links(path)] == ["http://a.example/d/x"]


def test_the_iterator_counts_records_at_its_end() -> None:
    links = relink.warc_links(SITE_WARC)
    assert links.records is None
    found = list(links)
    assert found and links.records >= max(l["record"] for l in found)
    warcio = pytest.importorskip("warcio.archiveiterator")
    with open(SITE_WARC, "rb") as stream:
        assert links.records == sum(1 for _ in warcio.ArchiveIterator(stream))
    mbox = relink.mbox_links(FIXTURES / "mail" / "archive.mboxrd")
    found = list(mbox)
    # Message 3 has no base: its links are listed as written.
    assert {l["message"] for l in found if l["resolved"] is not None} == {1}
    assert max(l["message"] for l in found) == 3
    assert mbox.records == 3


# File objects


class Trickle:
    """A binary stream that gives at most a few bytes a call, and more than
    it was asked for now and then: only `read`."""

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.at = 0
        self.calls = 0
        self.after_end = 0

    def read(self, n: int = -1) -> bytes:
        self.calls += 1
        if self.at >= len(self.data):
            self.after_end += 1
        size = 1000 if self.calls % 5 else n + 100
        chunk = self.data[self.at : self.at + size]
        self.at += len(chunk)
        return chunk


def test_warc_links_read_any_binary_file_object(tmp_path: pathlib.Path) -> None:
    expected = [{**l, "file": None} for l in relink.warc_links(SITE_WARC)]
    assert len(expected) > 20
    with open(SITE_WARC, "rb") as stream:
        assert list(relink.warc_links(stream)) == expected
    # Already decompressed by gzip.open: the same links.
    with gzip.open(SITE_WARC, "rb") as stream:
        assert list(relink.warc_links(stream)) == expected
    assert list(relink.warc_links(io.BytesIO(SITE_WARC.read_bytes()))) == expected
    # An HTTP response, streamed.
    with http_server(SITE_WARC.parent) as url:
        with urllib.request.urlopen(url + SITE_WARC.name) as response:
            assert list(relink.warc_links(response)) == expected
    # Two copies of the corpus crawl, a few bytes a read: a read that gives
    # more than was asked comes with hundreds of kilobytes still to come.
    two = CORPUS_WARC.read_bytes() * 2
    trickle = Trickle(two)
    assert list(relink.warc_links(trickle)) == list(relink.warc_links(io.BytesIO(two)))
    assert trickle.calls > 10
    # Read to its end once, never asked again.
    assert trickle.after_end == 1


def test_an_error_of_the_file_object_is_raised_as_it_is() -> None:
    class Broken(Exception):
        pass

    class Failing:
        def __init__(self) -> None:
            self.inner = open(CORPUS_WARC, "rb")

        def read(self, n: int) -> bytes:
            if self.inner.tell() > 100_000:
                raise Broken("the network went away")
            return self.inner.read(n)

    source = Failing()
    links = relink.warc_links(source)
    with pytest.raises(Broken, match="the network went away"):
        for _ in links:
            pass
    source.inner.close()
    # A text stream is no binary stream.
    with open(CORPUS_WARC, encoding="latin-1") as text:
        with pytest.raises(TypeError, match="bytes-like"):
            list(relink.warc_links(text))
    with pytest.raises(TypeError, match="a path, a bytes-like object or a binary file object"):
        relink.warc_links(42)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="a path or a binary file object .with write."):
        relink.rewrite_warc(SITE_WARC, bytearray())  # type: ignore[arg-type]


def test_os_errors_carry_errno_and_filename(tmp_path: pathlib.Path) -> None:
    missing = str(tmp_path / "none.warc.gz")
    for call in (
        lambda: relink.warc_links(missing),
        lambda: relink.mbox_links(missing),
        lambda: relink.rewrite_warc(missing, io.BytesIO()),
        lambda: relink.rewrite_mbox(missing, io.BytesIO()),
    ):
        with pytest.raises(FileNotFoundError) as caught:
            call()
        assert caught.value.errno == errno.ENOENT
        assert caught.value.filename == missing
        assert caught.value.strerror == os.strerror(errno.ENOENT)
    # A folder opens, and fails at the first read.
    with pytest.raises(IsADirectoryError) as caught:
        list(relink.warc_links(tmp_path))
    assert (caught.value.errno, caught.value.filename) == (errno.EISDIR, str(tmp_path))
    with pytest.raises(IsADirectoryError) as caught:
        relink.rewrite_warc(SITE_WARC, tmp_path)
    assert caught.value.filename == str(tmp_path)


def test_one_iterator_shared_by_threads_gives_each_link_once() -> None:
    expected = list(relink.warc_links(CORPUS_WARC))
    links = relink.warc_links(CORPUS_WARC)
    taken: list[list[dict]] = [[] for _ in range(4)]
    errors: list[BaseException] = []
    start = threading.Barrier(4)

    def take(mine: list[dict]) -> None:
        start.wait()
        try:
            for link in links:
                mine.append(link)
                if len(mine) % 97 == 0:
                    time.sleep(0)
        except BaseException as error:  # noqa: BLE001 - any error fails the test
            errors.append(error)

    threads = [threading.Thread(target=take, args=(mine,)) for mine in taken]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert not errors
    key = lambda l: (l["record"], l["line"], l["column"], l["original"], l["element"], l["attribute"])
    assert sorted(map(key, sum(taken, []))) == sorted(map(key, expected))
    assert sum(1 for mine in taken if mine) >= 2


def test_mbox_links_stream_an_mbox_gzipped_or_not(tmp_path: pathlib.Path) -> None:
    path = FIXTURES / "mail" / "archive.mboxrd"
    base = "http://list.example/archive/"
    expected = [{**l, "file": None} for l in relink.mbox_links(path, base)]
    assert {l["message"] for l in expected} == {1, 3}
    with open(path, "rb") as stream:
        assert list(relink.mbox_links(stream, base)) == expected
    packed = gzip.compress(path.read_bytes())
    assert list(relink.mbox_links(io.BytesIO(packed), base)) == expected
    assert list(relink.mbox_links(Trickle(packed), base)) == expected
    # The retrieval URL serves the message without a base of its own, and
    # only that one.
    assert {l["message"] for l in expected if l["base_from"] == "--retrieved-from"} == {3}
    without = list(relink.mbox_links(path))
    assert {l["message"] for l in without if l["base"] is not None} == {1}
    # Without the retrieval URL, message 3 lists its links unresolved.
    left = [l for l in without if l["message"] == 3]
    assert left and all(l["resolved"] is None and l["base_from"] == "none" for l in left)


# rewrite_warc and rewrite_mbox


def test_rewrite_warc_between_file_objects_equals_rewrite() -> None:
    data = CORPUS_WARC.read_bytes()
    expected = relink.rewrite(data)
    out = io.BytesIO()
    changed = relink.rewrite_warc(io.BytesIO(data), out)
    assert out.getvalue() == expected
    assert changed > 10
    out = io.BytesIO()
    relink.rewrite_warc(Trickle(data), out)
    assert out.getvalue() == expected


def test_rewrite_warc_between_paths(tmp_path: pathlib.Path) -> None:
    target = tmp_path / "out.warc.gz"
    relink.rewrite_warc(SITE_WARC, target)
    assert target.read_bytes() == relink.rewrite(SITE_WARC.read_bytes())
    # Made as any new file is, not as a private temporary one.
    umask = os.umask(0)
    os.umask(umask)
    assert target.stat().st_mode & 0o777 == 0o666 & ~umask
    with pytest.raises(ValueError, match="would overwrite the input"):
        relink.rewrite_warc(target, str(target))
    assert target.read_bytes() == relink.rewrite(SITE_WARC.read_bytes())
    # A failure leaves no file behind.
    with pytest.raises(ValueError):
        relink.rewrite_warc(io.BytesIO(b"WARC/1.1\r\nContent-Length: 5\r\n"), tmp_path / "cut.warc", rules="x")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.warc.gz"]


def test_rewrite_warc_warns_about_a_bad_record(tmp_path: pathlib.Path) -> None:
    (_, _, bad) = make_crawl(tmp_path)
    out = io.BytesIO()
    with pytest.warns(relink.RelinkWarning, match="copied as it is"):
        relink.rewrite_warc(bad, out)
    assert b"http://news.example.org/n/y" in gzip.decompress(out.getvalue())


def test_rewrite_mbox_matches_the_fixtures(tmp_path: pathlib.Path) -> None:
    for name in ("archive.mboxrd", "archive.mboxcl2"):
        source = FIXTURES / "mail" / name
        expected = (FIXTURES / "mail" / name.replace("archive.", "archive.expected.")).read_bytes()
        out = io.BytesIO()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", relink.RelinkWarning)
            changed = relink.rewrite_mbox(open(source, "rb"), out)
            assert out.getvalue() == expected, name
            assert changed >= 1
            # Gzipped, it comes back gzipped.
            out = io.BytesIO()
            relink.rewrite_mbox(io.BytesIO(gzip.compress(source.read_bytes())), out)
            assert out.getvalue()[:2] == b"\x1f\x8b"
            assert gzip.decompress(out.getvalue()) == expected, name
            target = tmp_path / name
            relink.rewrite_mbox(source, target)
            assert target.read_bytes() == expected


def test_rewrite_mbox_issues_warnings() -> None:
    with pytest.warns(relink.RelinkWarning, match="message 3: .*no base url"):
        relink.rewrite_mbox(FIXTURES / "mail" / "archive.mboxrd", io.BytesIO())


def test_rewrite_writes_through_a_raw_stream(tmp_path: pathlib.Path) -> None:
    """A raw (unbuffered) file may write less than it is given: the rest
    is written again."""
    target = tmp_path / "out.warc.gz"
    with open(target, "wb", buffering=0) as raw:
        relink.rewrite_warc(SITE_WARC, raw)
    assert target.read_bytes() == relink.rewrite(SITE_WARC.read_bytes())


def test_an_archive_is_never_rewritten_as_a_document() -> None:
    data = CORPUS_WARC.read_bytes()
    for kind in ("html", "css", "message"):
        with pytest.raises(ValueError, match="web archive"):
            relink.rewrite(data, "http://a/", kind=kind)  # type: ignore[arg-type]
    old = b"WARC/0.17\r\nWARC-Type: warcinfo\r\nContent-Length: 0\r\n\r\n\r\n\r\n"
    assert relink.rewrite(old, "http://a/") == old


def test_a_gzipped_page_comes_back_gzipped() -> None:
    page = gzip.compress(b"<a href=x>x</a>", mtime=0)
    out = relink.rewrite(page, "http://a.example/d/")
    assert gzip.decompress(out) == b"<a href=http://a.example/d/x>x</a>"


def test_the_package_is_typed() -> None:
    import importlib.util

    spec = importlib.util.find_spec("relink")
    assert spec is not None and spec.origin is not None
    folder = pathlib.Path(spec.origin).parent
    assert (folder / "py.typed").is_file(), folder
    text = (folder / "__init__.pyi").read_text()
    for name in (
        "def resolve",
        "def absolutize",
        "def links",
        "def rewrite",
        "def warc_links",
        "def mbox_links",
        "def rewrite_warc",
        "def rewrite_mbox",
        "def wat",
        "class Link(TypedDict)",
    ):
        assert name in text
    assert relink.resolve.__doc__ and "rfc1808" in relink.resolve.__doc__
    assert relink.warc_links.__doc__ and "background thread" in relink.warc_links.__doc__


def test_the_native_module_is_private_under_the_package() -> None:
    import importlib.machinery

    import relink._relink as native

    assert any(native.__file__.endswith(suffix) for suffix in importlib.machinery.EXTENSION_SUFFIXES)
    public = {
        "LinkStream",
        "RelinkWarning",
        "absolutize",
        "links",
        "mbox_links",
        "resolve",
        "rewrite",
        "rewrite_mbox",
        "rewrite_warc",
        "warc_links",
        "wat",
    }
    assert set(relink.__all__) == public
    for name in public:
        assert getattr(relink, name) is getattr(native, name), name
    assert relink.__version__ == native.__version__
    # The public names are the package's, as its users write them.
    assert relink.LinkStream.__module__ == "relink"
    assert relink.RelinkWarning.__module__ == "relink"
    stub = (pathlib.Path(relink.__file__).parent / "__init__.pyi").read_text()
    for name in public:
        assert f'"{name}"' in stub, name
    # The stub's kinds are the names `kind` takes, from the native module.
    (kinds,) = re.findall(r"^Kind = Literal\[(.*)\]$", stub, re.MULTILINE)
    assert [k.strip().strip('"') for k in kinds.split(",")] == native.KINDS
    assert native.KINDS == ["html", "css", "message", "mbox", "warc", "wacz", "xml", "markdown", "rst", "sitemap", "robots", "notebook", "epub"]
    for kind in native.KINDS:
        try:
            relink.links(b"", kind=kind)
        except ValueError as error:  # an empty WACZ package or EPUB book is no zip file
            assert "unknown kind" not in str(error), kind


def test_a_row_has_the_keys_of_the_command_lines_json_in_their_order(relink_bin, tmp_path: pathlib.Path) -> None:
    """One schema, the crate's: a dict of links() has the keys and values
    of the command line's JSON Lines row, in its order, and the stub's Link
    declares those keys in that order."""
    import relink._relink as native

    page = tmp_path / "page.html"
    page.write_text('<a href="../x">x</a>')
    (row,) = relink.links(page, base="http://a/b/c/")
    run = subprocess.run(
        [str(relink_bin), "--list", "--format", "json", "--retrieved-from", "http://a/b/c/", str(page)],
        capture_output=True,
        text=True,
        check=True,
    )
    assert list(row.items()) == list(json.loads(run.stdout).items())
    assert list(row) == native.ROW_KEYS
    stub = (pathlib.Path(relink.__file__).parent / "__init__.pyi").read_text()
    link = stub.split("class Link(TypedDict):", 1)[1].split("\n@final", 1)[0]
    assert re.findall(r"^    (\w+): \S", link, re.MULTILINE) == native.ROW_KEYS


def test_feeds_markdown_and_notebooks_are_kinds_too() -> None:
    feed = (
        b'<feed xmlns="http://www.w3.org/2005/Atom" xml:base="http://a.example/blog/">'
        b'<link href="post.html"/></feed>'
    )
    assert [row["resolved"] for row in relink.links(feed, kind="xml")] == [
        "http://a.example/blog/post.html"
    ]
    readme = b"See [the guide](docs/guide.md).\n"
    out = relink.rewrite(readme, "https://example.com/r/README.md", kind="markdown")
    assert out == b"See [the guide](https://example.com/r/docs/guide.md).\n"
    readme = b"See `the guide <docs/guide.html>`_.\n"
    out = relink.rewrite(readme, "https://example.com/r/README.rst", kind="rst")
    assert out == b"See `the guide <https://example.com/r/docs/guide.html>`_.\n"
    # A notebook that writes `/` as `\/` has the new part of a URL written so too.
    notebook = b'{"cells": [{"cell_type": "markdown", "metadata": {}, "source": ["[a](b\\/c.md)"]}]}'
    out = relink.rewrite(notebook, "https://example.com/r/nb.ipynb", kind="notebook")
    assert out == b'{"cells": [{"cell_type": "markdown", "metadata": {}, "source": ["[a](https:\\/\\/example.com\\/r\\/b\\/c.md)"]}]}'
    with pytest.raises(ValueError, match="invalid json at line 1, column 12"):
        relink.rewrite(b'{"cells": [', "https://example.com/r/nb.ipynb", kind="notebook")



def test_a_guessed_kind_that_finds_nothing_warns() -> None:
    """Markdown given as bytes with no kind is read as HTML, finds no link,
    and says so, naming kind=; told its kind, it is rewritten."""
    with pytest.warns(relink.RelinkWarning, match="kind="):
        assert relink.rewrite(b"[a](x)", "http://a.example/d/") == b"[a](x)"
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert relink.rewrite(b"[a](x)", "http://a.example/d/", kind="markdown") == b"[a](http://a.example/d/x)"


def wat_text(data: bytes) -> str:
    """A WAT file's records as text, each gzip member read, with their
    WARC-Date lines left out."""
    text = gzip.decompress(data).decode("utf-8")
    return "".join(line for line in text.splitlines(keepends=True) if not line.startswith("WARC-Date: "))


def test_wat_writes_the_command_lines_wat_file(relink_bin, tmp_path: pathlib.Path) -> None:
    for path, args in (
        (SITE_WARC, []),
        (FIXTURES / "mail" / "archive.mboxrd", ["--retrieved-from", "http://h.example/list/"]),
        (FIXTURES / "html" / "quoting.html", ["--retrieved-from", "http://h.example/d/page"]),
    ):
        run = subprocess.run(
            [str(relink_bin), "--list", "--format", "wat", "-q", *args, str(path)],
            capture_output=True,
            check=True,
        )
        out = tmp_path / "out.wat.gz"
        base = args[1] if args else None
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", relink.RelinkWarning)
            written = relink.wat(str(path), out, base=base)
        assert wat_text(out.read_bytes()) == wat_text(run.stdout), path
        # The warcinfo record, then one metadata record each.
        assert written == wat_text(run.stdout).count("WARC-Type: metadata\r\n") > 0


def test_wat_read_with_warcio_gives_the_links_of_warc_links() -> None:
    from warcio.archiveiterator import ArchiveIterator

    out = io.BytesIO()
    written = relink.wat(SITE_WARC.read_bytes(), out)
    records = [(r.rec_headers, r.content_stream().read()) for r in ArchiveIterator(io.BytesIO(out.getvalue()))]
    types = [h.get_header("WARC-Type") for h, _ in records]
    assert types == ["warcinfo"] + ["metadata"] * written
    # Each its own gzip member, as Common Crawl writes them.
    data, members = out.getvalue(), 0
    while data:
        inflate = zlib.decompressobj(zlib.MAX_WBITS | 16)
        inflate.decompress(data)
        data, members = inflate.unused_data, members + 1
    assert members == len(records)
    by_record: dict[str, list[str]] = {}
    with open(SITE_WARC, "rb") as stream:
        for r in ArchiveIterator(stream):
            by_record[r.rec_headers.get_header("WARC-Record-ID")] = []
    for link in relink.warc_links(SITE_WARC):
        by_record[link["record_id"]].append(link["resolved"])
    got: dict[str, list[str]] = {}
    for headers, content in records[1:]:
        assert headers.get_header("Content-Type") == "application/json"
        block = json.loads(content)
        html = block["Envelope"]["Payload-Metadata"].get("HTTP-Response-Metadata", {}).get("HTML-Metadata", {})
        head = html.get("Head", {})
        # relink's own links (the HTTP layer's, a style sheet's) are under
        # Relink-Links beside Links.
        links = head.get("Link", []) + head.get("Scripts", []) + html.get("Links", []) + html.get("Relink-Links", [])
        urls = [l["abs"] for l in links]
        if "Base" in head:
            urls.append("BASE")
        got[headers.get_header("WARC-Refers-To")] = urls
    assert set(got) == set(by_record)
    for record_id, resolved in by_record.items():
        # The first BASE element is the head's Base, written as it is.
        assert len(got[record_id]) == len(resolved), record_id
        assert {u for u in got[record_id] if u != "BASE"} <= set(resolved), record_id


def test_wat_of_a_page_names_its_retrieval_url() -> None:
    out = io.BytesIO()
    page = b"<title>T</title><a href=x>x</a>"
    assert relink.wat(page, out, base="http://h.example/a/b") == 1
    text = gzip.decompress(out.getvalue()).decode()
    assert "WARC-Target-URI: http://h.example/a/b\r\n" in text
    block = json.loads(text.split("\r\n\r\n")[3])
    html = block["Envelope"]["Payload-Metadata"]["HTTP-Response-Metadata"]["HTML-Metadata"]
    assert html["Head"]["Title"] == "T"
    assert html["Links"][0]["url"] == "x"
    assert html["Links"][0]["abs"] == "http://h.example/a/x"
    assert html["Links"][0]["base_from"] == "--retrieved-from"


def test_wat_with_a_bad_base_raises_and_writes_nothing(tmp_path: pathlib.Path) -> None:
    out = tmp_path / "out.wat.gz"
    with pytest.raises(ValueError, match="invalid base url"):
        relink.wat(b"<a href=x>x</a>", out, base="h.example/a")
    assert not out.exists()
    with pytest.raises(ValueError, match="unknown kind"):
        relink.wat(b"<a href=x>x</a>", out, kind="pdf")
    assert not out.exists()


# destinations that are not regular files


MBOX = FIXTURES / "mail" / "archive.mboxrd"


def writers() -> list:
    """Each function that writes a destination, called on an input of its
    own, with the bytes it writes (None where they differ run to run)."""
    expected_warc = relink.rewrite(SITE_WARC.read_bytes())
    expected_mbox = (FIXTURES / "mail" / "archive.expected.mboxrd").read_bytes()
    return [
        (lambda dst: relink.rewrite_warc(SITE_WARC, dst), expected_warc),
        (lambda dst: relink.rewrite_mbox(MBOX, dst), expected_mbox),
        (lambda dst: relink.wat(SITE_WARC, dst), None),
    ]


def test_a_fifo_destination_is_written_into_never_replaced(tmp_path: pathlib.Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    for write, expected in writers():
        got: list[bytes] = []
        reader = threading.Thread(target=lambda: got.append(fifo.read_bytes()), daemon=True)
        reader.start()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", relink.RelinkWarning)
            write(fifo)
        reader.join(timeout=20)
        assert not reader.is_alive()
        assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
        if expected is None:
            assert gzip.decompress(got[0]).startswith(b"WARC/1.")
        else:
            assert got[0] == expected
    # Written through a link to it, the link left a link.
    link = tmp_path / "to-pipe"
    link.symlink_to(fifo)
    got = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_bytes()), daemon=True)
    reader.start()
    relink.rewrite_warc(SITE_WARC, link)
    reader.join(timeout=20)
    assert got[0] == relink.rewrite(SITE_WARC.read_bytes())
    assert link.is_symlink()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["pipe", "to-pipe"]


def require_root() -> None:
    """Device nodes are made by root alone."""
    if os.geteuid() != 0:
        if require_all():
            pytest.fail("device nodes need root: run as root")
        pytest.skip("device nodes need root")


def test_a_null_device_destination_is_written_into_never_replaced(tmp_path: pathlib.Path) -> None:
    require_root()
    null = tmp_path / "null"
    os.mknod(null, stat.S_IFCHR | 0o666, os.makedev(1, 3))
    for write, _ in writers():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", relink.RelinkWarning)
            assert write(null) > 0
        assert stat.S_ISCHR(os.lstat(null).st_mode)
        assert os.lstat(null).st_rdev == os.makedev(1, 3)
    assert [p.name for p in tmp_path.iterdir()] == ["null"]


def test_a_full_device_destination_raises_and_stays(tmp_path: pathlib.Path) -> None:
    require_root()
    full = tmp_path / "full"
    os.mknod(full, stat.S_IFCHR | 0o666, os.makedev(1, 7))
    with pytest.raises(OSError) as caught:
        relink.rewrite_warc(SITE_WARC, full)
    assert caught.value.errno == errno.ENOSPC
    assert caught.value.filename == str(full)
    assert stat.S_ISCHR(os.lstat(full).st_mode)


def test_a_link_to_a_file_is_written_through(tmp_path: pathlib.Path) -> None:
    real = tmp_path / "real.warc.gz"
    real.write_bytes(b"old")
    link = tmp_path / "link.warc.gz"
    link.symlink_to(real.name)
    relink.rewrite_warc(SITE_WARC, link)
    assert link.is_symlink() and os.readlink(link) == real.name
    assert real.read_bytes() == relink.rewrite(SITE_WARC.read_bytes())
    assert sorted(p.name for p in tmp_path.iterdir()) == ["link.warc.gz", "real.warc.gz"]


def test_a_file_replaced_keeps_its_mode(tmp_path: pathlib.Path) -> None:
    private = tmp_path / "private.warc.gz"
    private.write_bytes(b"old")
    private.chmod(0o600)
    link = tmp_path / "link"
    link.symlink_to(private)
    for dst in (private, link):
        relink.rewrite_warc(SITE_WARC, dst)
        assert private.stat().st_mode & 0o777 == 0o600
        assert private.read_bytes() == relink.rewrite(SITE_WARC.read_bytes())


def test_what_cannot_be_written_into_is_refused_and_left(tmp_path: pathlib.Path) -> None:
    folder = tmp_path / "folder"
    folder.mkdir()
    dangling = tmp_path / "dangling"
    dangling.symlink_to("nothing")
    to_folder = tmp_path / "to-folder"
    to_folder.symlink_to(folder)
    sock = socket.socket(socket.AF_UNIX)
    sock.bind(str(tmp_path / "sock"))
    cases = [
        (folder, IsADirectoryError, errno.EISDIR, "a directory: not replaced"),
        (dangling, FileNotFoundError, errno.ENOENT, "a symbolic link to nothing: not replaced"),
        (to_folder, OSError, errno.EINVAL, "a symbolic link to something not a regular file: not replaced"),
        (tmp_path / "sock", OSError, errno.EINVAL, "not a regular file: not replaced"),
    ]
    for write, _ in writers():
        for path, error, number, words in cases:
            with pytest.raises(error) as caught:
                write(path)
            assert type(caught.value) is error
            assert (caught.value.errno, caught.value.strerror, caught.value.filename) == (number, words, str(path))
    sock.close()
    assert folder.is_dir() and not any(folder.iterdir())
    assert dangling.is_symlink() and to_folder.is_symlink()
    assert stat.S_ISSOCK(os.lstat(tmp_path / "sock").st_mode)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["dangling", "folder", "sock", "to-folder"]


# arguments of the wrong kind


def test_an_archive_kind_given_for_a_page_raises_value_error() -> None:
    page = b"<a href=x>y</a>"
    for kind, what in (("warc", "not a web archive"), ("mbox", "not an mbox")):
        for call in (relink.links, relink.rewrite):
            with pytest.raises(ValueError, match=f"{what}.*: it reads as html"):
                call(page, "http://a/", kind=kind)
    # The kind that fits, and an empty archive, are read.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", relink.RelinkWarning)
        assert relink.links(SITE_WARC.read_bytes(), kind="warc")
        assert relink.links(MBOX.read_bytes(), kind="mbox")
    assert relink.links(b"", kind="warc") == []


def test_a_lone_surrogate_raises_value_error_naming_the_argument() -> None:
    for args, name, at in ((("http://a/\ud800", "g"), "base", 9), (("http://a/", "x\udc80"), "reference", 1)):
        with pytest.raises(ValueError) as caught:
            relink.resolve(*args)
        assert type(caught.value) is ValueError
        assert str(caught.value) == f"{name}: a lone surrogate at position {at}: not Unicode text"


def test_a_str_of_a_document_says_to_pass_bytes(tmp_path: pathlib.Path) -> None:
    hint = "a str is a path: pass a document as bytes"
    for text in ("<p><a href='../x'>x</a>", "<p>" * 200, "a { color: red }", "line\nline"):
        for call in (relink.links, relink.rewrite, relink.warc_links, lambda t: relink.rewrite_warc(t, io.BytesIO())):
            with pytest.raises(OSError, match=re.escape(hint)):
                call(text)
    # A path that names no file and looks like one is told as it is.
    with pytest.raises(FileNotFoundError) as caught:
        relink.links(str(tmp_path / "page.html"))
    assert hint not in str(caught.value)


def test_rows_of_a_document_with_no_base_resolve_to_none() -> None:
    with pytest.warns(relink.RelinkWarning, match="no base url"):
        rows = relink.links(b"<a href=x>y</a><img src=i.png>")
    assert [(r["original"], r["resolved"], r["base"], r["base_from"], r["changed"]) for r in rows] == [
        ("x", None, None, "none", False),
        ("i.png", None, None, "none", False),
    ]


def test_a_base_with_a_lone_surrogate_raises_value_error_in_every_function() -> None:
    page = b"<a href=x>y</a>"
    base = "http://a/\ud800"
    for call in (
        lambda: relink.absolutize(page, base),
        lambda: relink.links(page, base),
        lambda: relink.rewrite(page, base),
        lambda: relink.mbox_links(MBOX, base),
        lambda: relink.rewrite_mbox(MBOX, io.BytesIO(), base),
        lambda: relink.wat(page, io.BytesIO(), base),
    ):
        with pytest.raises(ValueError) as caught:
            call()
        assert type(caught.value) is ValueError
        assert str(caught.value) == "base: a lone surrogate at position 9: not Unicode text"
