"""Shared helpers: the repository's fixtures and their .tsv tables, the
command line to compare with, a local HTTP server, and small WARC files
made on the spot."""

from __future__ import annotations

import contextlib
import functools
import gzip
import http.server
import json
import os
import pathlib
import subprocess
import threading
import uuid
from typing import Iterator, Optional

import pytest
from relink import _relink as native

ROOT = pathlib.Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "fixtures"

# The keys of a link row, in order: the crate's one schema, which Python's
# dicts and the command line's JSON Lines both follow.
ROW_KEYS = list(native.ROW_KEYS)


def table(name: str, columns: int) -> list[list[str]]:
    """The rows of fixtures/NAME below its header, `#` lines skipped, each
    with exactly COLUMNS cells (as the Rust tests read them)."""
    lines = [
        line
        for line in (FIXTURES / name).read_text(encoding="utf-8").splitlines()
        if not line.startswith("#")
    ]
    assert len(lines[0].split("\t")) == columns, f"{name}: header"
    rows = [line.split("\t") for line in lines[1:]]
    for row in rows:
        assert len(row) == columns, f"{name}: {row!r}"
    assert rows, f"{name} has no rows"
    return rows


def require_all() -> bool:
    """Whether nothing may be skipped (python/run-tests.sh says so)."""
    return bool(os.environ.get("RELINK_REQUIRE_ALL"))


@pytest.fixture
def fixtures() -> pathlib.Path:
    return FIXTURES


@pytest.fixture(scope="session")
def relink_bin() -> pathlib.Path:
    """The `relink` command line `cargo build` made (RELINK_BIN, else
    target/debug/relink in the repository)."""
    path = pathlib.Path(os.environ.get("RELINK_BIN") or ROOT / "target" / "debug" / "relink")
    if not path.is_file():
        if require_all():
            pytest.fail(f"no relink command line at {path}: run cargo build")
        pytest.skip(f"no relink command line at {path}: run cargo build")
    return path


def cli_rows(relink_bin: pathlib.Path, path: os.PathLike, *args: str) -> list[dict]:
    """The rows of `relink --list --format json PATH`: each has every key
    of the schema, as the package's rows do."""
    run = subprocess.run(
        [str(relink_bin), "--list", "--format", "json", *args, str(path)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stderr
    rows = [json.loads(line) for line in run.stdout.splitlines()]
    for row in rows:
        assert list(row) == ROW_KEYS, list(row)
    return rows


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass


@contextlib.contextmanager
def http_server(folder: pathlib.Path) -> Iterator[str]:
    """Serves FOLDER on 127.0.0.1 at a free port while in the block;
    gives its URL, ending in `/`."""
    handler = functools.partial(QuietHandler, directory=str(folder))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.1})
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


def warc_record(
    target_uri: str, html: str, length: Optional[int] = None, record_type: str = "response"
) -> bytes:
    """One WARC response record holding an HTML page; LENGTH, when given,
    is the (wrong) Content-Length it says."""
    body = (
        b"HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\n\r\n" + html.encode("utf-8")
    )
    head = (
        f"WARC/1.1\r\nWARC-Type: {record_type}\r\n"
        f"WARC-Record-ID: <urn:uuid:{uuid.uuid5(uuid.NAMESPACE_URL, target_uri)}>\r\n"
        f"WARC-Date: 2026-03-01T00:00:00Z\r\nWARC-Target-URI: {target_uri}\r\n"
        "Content-Type: application/http; msgtype=response\r\n"
        f"Content-Length: {len(body) if length is None else length}\r\n\r\n"
    )
    return head.encode("ascii") + body + b"\r\n\r\n"


def warcinfo() -> bytes:
    body = b"software: relink tests\r\n"
    head = (
        "WARC/1.1\r\nWARC-Type: warcinfo\r\n"
        f"WARC-Record-ID: <urn:uuid:{uuid.uuid4()}>\r\n"
        "Content-Type: application/warc-fields\r\n"
        f"Content-Length: {len(body)}\r\n\r\n"
    )
    return head.encode("ascii") + body + b"\r\n\r\n"


def gzipped(*records: bytes) -> bytes:
    """Records as a .warc.gz file: a gzip member each."""
    return b"".join(gzip.compress(record, mtime=0) for record in records)


# A small crawl across a few hosts: the host edges its links make, each
# host name reversed. Self-links, IP addresses and links with no host
# (mailto:) make none; the two links from the blog to www.example.com
# make one, and so do the links to the blog from two files.
CRAWL_EDGES = {
    ("com.example.www", "org.example.blog"),
    ("com.example.www", "net.example.cdn"),
    ("org.example.blog", "com.example.www"),
    ("net.example.shop", "com.example.www"),
    ("net.example.shop", "net.example.cdn"),
    ("org.example.news", "com.example.www"),
}


def make_crawl(folder: pathlib.Path) -> list[pathlib.Path]:
    """Writes three WARC files into FOLDER (gzipped, plain, and one whose
    first response record has a wrong length); gives their paths."""
    folder.mkdir(parents=True, exist_ok=True)
    home = warc_record(
        "http://www.example.com/index.html",
        '<a href="about.html">about</a> <a href="http://blog.example.org/post">blog</a>\n'
        '<img src="//cdn.example.net/i.png"> <a href="mailto:x@example.com">mail</a>\n'
        '<a href="http://127.0.0.1/x">ip</a>',
    )
    post = warc_record(
        "http://blog.example.org/post",
        '<base href="http://blog.example.org/2026/">\n<a href="/">home</a>\n'
        '<a href="https://www.example.com/">x</a> <a href="https://WWW.Example.com./about">y</a>',
    )
    shop = warc_record(
        "http://shop.example.net/",
        '<link rel=stylesheet href="http://cdn.example.net/s.css">\n'
        "<a href=http://www.example.com/>home</a> <a href=cart>cart</a>",
    )
    # A second page of www.example.com, in another file: its edge to the
    # blog is one the first page makes too.
    contact = warc_record("http://www.example.com/contact", '<a href="http://blog.example.org/">blog</a>')
    news = warc_record("http://news.example.org/n/", '<a href="http://www.example.com/">x</a> <a href=y>y</a>')
    broken = warc_record("http://broken.example.org/", '<a href="http://elsewhere.example/">z</a>', length=20)
    paths = [folder / "a.warc.gz", folder / "b.warc", folder / "bad.warc.gz"]
    paths[0].write_bytes(gzipped(warcinfo(), home, post))
    paths[1].write_bytes(warcinfo() + shop + contact)
    # The bad record and the one after it in one gzip member, so that the
    # reader finds the next record by its `WARC/` line.
    paths[2].write_bytes(gzipped(warcinfo()) + gzip.compress(broken + news, mtime=0))
    return paths
