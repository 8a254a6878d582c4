"""The Python API against the repository's fixtures."""

from __future__ import annotations

import gzip
import pathlib
import sys
import threading
import time
import warnings

import pytest

import relink
from conftest import FIXTURES, table

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


def test_data_must_be_bytes() -> None:
    with pytest.raises(TypeError):
        relink.absolutize("<a href=g>", "http://a/")  # type: ignore[arg-type]


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
        "original": "../x",
        "resolved": "http://example.org/a/x",
        "base": "http://example.org/a/b/page.html",
        "base_from": "the retrieval URL",
        "element": "a",
        "attribute": "href",
        "line": 2,
        "column": 10,
    }
    assert found[1]["element"] == "img" and found[1]["attribute"] == "srcset"


def test_links_name_the_base_element() -> None:
    page = b'<head>\n<base href="http://b.example/x/">\n</head><a href=y>'
    base, link = relink.links(page, "http://a.example/")
    # The BASE element's own href is a link, against the layer below.
    assert (base["element"], base["base_from"]) == ("base", "the retrieval URL")
    assert link["resolved"] == "http://b.example/x/y"
    assert link["base"] == "http://b.example/x/"
    assert link["base_from"] == "the BASE element at line 2"


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
                for l in relink.links(payload, target)
            ]
            assert by_record.get(record_id, []) == expected, target
            pages += 1
    assert pages >= 17


def test_warc_links_stream_a_file_too_large_to_list_at_once(tmp_path: pathlib.Path) -> None:
    """Many copies of the corpus crawl, taken a few links at a time: the
    reader runs only a bounded way ahead of the iteration."""
    one = CORPUS_WARC.read_bytes()
    path = tmp_path / "many.warc.gz"
    copies = 4
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
    for name in ("def resolve", "def absolutize", "def links", "def rewrite", "def warc_links"):
        assert name in text
    assert relink.resolve.__doc__ and "rfc1808" in relink.resolve.__doc__
    assert relink.warc_links.__doc__ and "background thread" in relink.warc_links.__doc__
