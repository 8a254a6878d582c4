"""The PySpark job examples/spark/links.py: its INPUT forms and host names
without Spark, then real runs with spark-submit in local mode on a crawl
served over HTTP, checked against the command line."""

from __future__ import annotations

import gzip
import io
import importlib.util
import json
import os
import pathlib
import re
import shutil
import subprocess
import sys
from collections import Counter

import pytest

import relink
from conftest import CRAWL_EDGES, FIXTURES, cli_rows, http_server, make_crawl, require_all

JOB = FIXTURES.parent / "examples" / "spark" / "links.py"
CORPUS_WARC = FIXTURES / "corpus" / "warc" / "python-tutorial.warc.gz"
SITE_WARC = FIXTURES / "warc" / "site.warc.gz"
LINK_COLUMNS = ["warc_filename", "record_id", "target_uri", "original", "resolved", "element", "attribute", "base_from"]


def load_job():
    spec = importlib.util.spec_from_file_location("spark_links", JOB)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def pyspark_or_skip():
    """pyspark, which the test script installs; elsewhere the Spark tests
    are skipped unless RELINK_REQUIRE_ALL is set."""
    if require_all():
        import pyspark

        return pyspark
    return pytest.importorskip("pyspark")


class Count:
    """An accumulator, outside Spark."""

    def __init__(self) -> None:
        self.value = 0

    def add(self, n: int) -> None:
        self.value += n


# INPUT


def test_input_is_a_file_a_glob_or_a_manifest(tmp_path: pathlib.Path) -> None:
    job = load_job()
    assert job.warc_paths(str(CORPUS_WARC)) == [str(CORPUS_WARC)]
    assert job.warc_paths(str(FIXTURES / "*" / "*.warc.gz")) == [str(SITE_WARC)]
    (tmp_path / "sub").mkdir()
    for name in ("b.warc", "a.warc.gz"):
        (tmp_path / "sub" / name).write_bytes(b"WARC/1.1\r\n")
    listing = tmp_path / "warcs.txt"
    listing.write_text(f"# crawls\n\n{CORPUS_WARC}\nsub/*.warc*\n", encoding="utf-8")
    expected = [
        str(CORPUS_WARC),
        str(tmp_path / "sub" / "a.warc.gz"),
        str(tmp_path / "sub" / "b.warc"),
    ]
    assert job.warc_paths(str(listing)) == expected
    # A manifest gzipped, as a crawl's warc.paths.gz, and by file:// URL.
    packed = tmp_path / "warc.paths.gz"
    packed.write_bytes(gzip.compress(listing.read_bytes()))
    assert job.warc_paths(str(packed)) == expected
    assert job.warc_paths(packed.as_uri()) == expected
    spaced = tmp_path / "a folder" / "x.warc"
    spaced.parent.mkdir()
    spaced.write_bytes(b"WARC/1.0\r\n")
    assert job.warc_paths(spaced.as_uri()) == [spaced.as_uri()]
    assert job.local_path(spaced.as_uri()) == str(spaced)
    # A plain or gzipped WARC file is no manifest.
    assert job.warc_paths(str(tmp_path / "sub" / "b.warc")) == [str(tmp_path / "sub" / "b.warc")]
    assert job.warc_paths(str(SITE_WARC)) == [str(SITE_WARC)]
    # Joined to the input base URL, as a crawl's manifest is.
    crawl = tmp_path / "crawl.paths"
    crawl.write_text("crawl-data/a.warc.gz\ncrawl-data/b.warc.gz\n", encoding="utf-8")
    assert job.warc_paths(str(crawl), "s3://commoncrawl/") == [
        "s3://commoncrawl/crawl-data/a.warc.gz",
        "s3://commoncrawl/crawl-data/b.warc.gz",
    ]
    assert job.warc_paths(str(crawl), "https://data.commoncrawl.org") == [
        "https://data.commoncrawl.org/crawl-data/a.warc.gz",
        "https://data.commoncrawl.org/crawl-data/b.warc.gz",
    ]
    assert job.warc_paths(str(crawl), str(tmp_path)) == [
        str(tmp_path / "crawl-data" / "a.warc.gz"),
        str(tmp_path / "crawl-data" / "b.warc.gz"),
    ]


def test_a_manifest_over_http(tmp_path: pathlib.Path) -> None:
    job = load_job()
    (tmp_path / "lists").mkdir()
    (tmp_path / "lists" / "warc.paths.gz").write_bytes(gzip.compress(b"crawl/a.warc.gz\n"))
    shutil.copy(SITE_WARC, tmp_path / "site.warc.gz")
    with http_server(tmp_path) as url:
        manifest = url + "lists/warc.paths.gz"
        assert job.warc_paths(manifest, url) == [url + "crawl/a.warc.gz"]
        # Without a base, from the manifest's folder.
        assert job.warc_paths(manifest) == [url + "lists/crawl/a.warc.gz"]
        # A WARC file by URL is no manifest.
        assert job.warc_paths(url + "site.warc.gz") == [url + "site.warc.gz"]


def test_missing_input_fails_before_spark_starts(tmp_path: pathlib.Path, capsys) -> None:
    job = load_job()
    assert job.main([str(tmp_path / "none.warc.gz"), str(tmp_path / "out")]) == 2
    assert "no WARC file at" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize(
    "url, host",
    [
        ("http://www.example.com/a", "com.example.www"),
        ("https://WWW.Example.COM./about", "com.example.www"),
        ("http://user@blog.example.org:8080/x", "org.example.blog"),
        ("//cdn.example.net/i.png", "net.example.cdn"),
        ("http://bücher.example/", "example.xn--bcher-kva"),
        ("http://127.0.0.1:8769/x", None),
        ("http://[::1]/x", None),
        ("http://localhost/", None),
        ("mailto:x@example.com", None),
        ("data:,x", None),
        ("http://bad_host!.example/", None),
        ("http://[x/", None),
        ("", None),
    ],
)
def test_reversed_host(url: str, host) -> None:
    assert load_job().reversed_host(url) == host


def test_extract_gives_link_rows_and_host_edges(tmp_path: pathlib.Path) -> None:
    """The work of the tasks, without Spark: a crawl read from local paths
    and over HTTP, with a bad record in one file and a file that is not
    there, which is counted and skipped."""
    job = load_job()
    paths = make_crawl(tmp_path / "crawl")
    with http_server(tmp_path) as url:
        urls = [str(paths[0]), url + "crawl/" + paths[1].name, url + "crawl/" + paths[2].name, url + "none.warc"]
        counters = job.Counters(Count(), Count(), Count(), Count())
        rows = list(job.extract(urls, "rfc1808", False, counters))
        edges = list(job.extract(urls, "rfc1808", True, job.Counters(Count(), Count(), Count(), Count())))
    expected = [
        (name, *(row[c] for c in LINK_COLUMNS[1:]))
        for name, path in zip(urls, paths)
        for row in relink.warc_links(path)
    ]
    assert rows == expected
    # The job hands its rows to Spark unchecked (verifySchema=False): each
    # is a string but where its column is nullable.
    nullable = [c in job.NULLABLE for c in LINK_COLUMNS]
    assert all(isinstance(v, str) or (v is None and n) for row in rows for v, n in zip(row, nullable))
    assert all(isinstance(s, str) and isinstance(t, str) for s, t in edges)
    assert set(edges) == CRAWL_EDGES
    # Each file's edges once: one edge is in two files.
    assert len(edges) == len(CRAWL_EDGES) + 1
    assert (counters.files.value, counters.failed.value) == (3, 1)
    assert counters.links.value == len(rows)
    assert counters.records.value == sum(records(p) for p in paths)


def records(path: pathlib.Path) -> int:
    stream = relink.warc_links(path)
    for _ in stream:
        pass
    assert stream.records is not None
    return stream.records


# Spark


def summary(output: str) -> tuple[int, int, int]:
    """The files, records and links the job's summary line counts."""
    found = re.search(r"links\.py: (\d+) WARC files read.*?, (\d+) records, (\d+) links;", output)
    assert found, output[-3000:]
    return int(found[1]), int(found[2]), int(found[3])


def spark_submit(pyspark) -> list[str]:
    """spark-submit of the job in local mode, for a short run: the JIT's
    first tier only, and few shuffle partitions."""
    command = [str(pathlib.Path(pyspark.__file__).parent / "bin" / "spark-submit")]
    command += ["--master", "local[2]", "--conf", "spark.ui.enabled=false"]
    command += ["--driver-java-options", "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC"]
    return command + ["--conf", "spark.sql.shuffle.partitions=2", str(JOB)]


def spark_env(worker_python: str = sys.executable) -> dict[str, str]:
    """The environment of a run: the driver on this python, the workers on
    WORKER_PYTHON."""
    return dict(os.environ, PYSPARK_PYTHON=worker_python, PYSPARK_DRIVER_PYTHON=sys.executable)


def submit(pyspark, args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess:
    """One run; the driver's standard error comes out on spark-submit's
    standard output, with it."""
    return subprocess.run(
        spark_submit(pyspark) + args, env=env, stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT, text=True, timeout=600,
    )


@pytest.mark.slow
def test_workers_that_cannot_import_relink_are_named_in_one_line(tmp_path: pathlib.Path) -> None:
    """A worker python without relink (PYSPARK_PYTHON left at a python of
    its own, as the first try of a fresh virtualenv often does): one line
    says what to set, before a task runs, with no stack trace, and the run
    fails with nothing written."""
    pyspark = pyspark_or_skip()
    bare = tmp_path / "bare"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(bare)], check=True)
    out = tmp_path / "links"
    run = submit(pyspark, [str(SITE_WARC), str(out)], spark_env(str(bare / "bin" / "python")))
    assert run.returncode == 2, run.stdout[-5000:]
    (line,) = [line for line in run.stdout.splitlines() if line.startswith("links.py:")]
    assert line.startswith(f"links.py: the Spark workers cannot import relink ({bare}/bin/python: ")
    assert "No module named 'relink'" in line
    assert "set PYSPARK_PYTHON to the python of the virtualenv relink is installed in" in line
    assert "Traceback" not in run.stdout and "\tat org.apache" not in run.stdout
    assert not out.exists()


@pytest.mark.slow
def test_a_failed_run_leaves_no_output_and_a_second_run_works(tmp_path: pathlib.Path, capsys) -> None:
    """A write that fails in its tasks (Parquet with a codec Hadoop does not
    have) leaves no OUTPUT behind, so the same command, mended, is not
    refused with PATH_ALREADY_EXISTS; an OUTPUT that was there is refused
    before Spark starts writing, and kept."""
    pyspark = pyspark_or_skip()
    out = tmp_path / "links"
    failed = submit(pyspark, [str(SITE_WARC), str(out), "--output-compression", "brotli"], spark_env())
    assert failed.returncode == 1, failed.stdout[-5000:]
    assert f"links.py: the job failed, {out} not written: " in failed.stdout
    assert not out.exists()
    assert list(tmp_path.iterdir()) == []

    again = submit(pyspark, [str(SITE_WARC), str(out), "--output-format", "json"], spark_env())
    assert again.returncode == 0, again.stdout[-5000:]
    rows = [json.loads(line) for part in sorted(out.glob("part-*.json")) for line in part.read_text().splitlines()]
    assert [row["original"] for row in rows] == [row["original"] for row in relink.warc_links(SITE_WARC)]
    assert summary(again.stdout)[2] == len(rows) > 0

    # A third run, with the same OUTPUT: refused, and what is there kept.
    kept = sorted(p.name for p in out.iterdir())
    assert load_job().main([str(SITE_WARC), str(out)]) == 2
    assert capsys.readouterr().err == f"links.py: {out} exists (--mode overwrite replaces it)\n"
    assert sorted(p.name for p in out.iterdir()) == kept


@pytest.mark.slow
def test_spark_submit_over_http_matches_the_command_line(relink_bin, tmp_path: pathlib.Path) -> None:
    """Two runs at once, in local mode: every link as gzipped JSON, and the
    host graph as CSV, from a manifest served over HTTP like a crawl's
    (four WARC files, one with a bad record), each file streamed by a task
    through fsspec."""
    pyspark = pyspark_or_skip()
    served = tmp_path / "served"
    paths = make_crawl(served / "crawl-data")
    shutil.copy(SITE_WARC, served / "crawl-data" / SITE_WARC.name)
    paths.append(served / "crawl-data" / SITE_WARC.name)
    manifest = "".join(f"crawl-data/{p.name}\n" for p in paths)
    (served / "warc.paths.gz").write_bytes(gzip.compress(manifest.encode("ascii")))

    env = spark_env()
    links_out, graph_out = tmp_path / "links", tmp_path / "graph"
    with http_server(served) as url:
        common = spark_submit(pyspark) + [url + "warc.paths.gz", "--input-base-url", url]
        runs = [
            subprocess.Popen(
                common + [str(links_out), "--output-format", "json", "--output-compression", "gzip"]
                + ["--num-input-partitions", "2"],
                env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
            ),
            subprocess.Popen(
                common + [str(graph_out), "--host-graph", "--output-format", "csv", "--num-output-partitions", "1"],
                env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
            ),
        ]
        # The driver's standard error comes out on spark-submit's standard
        # output.
        outputs = [run.communicate(timeout=600)[0] for run in runs]
    for run, output in zip(runs, outputs):
        assert run.returncode == 0, output[-5000:]

    # Every link, as the command line lists it for each file, no more, no
    # fewer; the file named by its URL.
    parts = sorted(links_out.glob("part-*.json.gz"))
    assert len(parts) == 2, sorted(p.name for p in links_out.iterdir())
    rows = [json.loads(line) for part in parts for line in gzip.decompress(part.read_bytes()).splitlines()]
    assert all(list(row) == LINK_COLUMNS for row in rows)
    expected = [
        {"warc_filename": url + "crawl-data/" + path.name, **{c: row[c] for c in LINK_COLUMNS[1:]}}
        for path in paths
        for row in cli_rows(relink_bin, path)
    ]
    as_counter = lambda rows: Counter(tuple(sorted(row.items())) for row in rows)
    assert as_counter(rows) == as_counter(expected)
    assert any(row["target_uri"] == "http://news.example.org/n/" for row in rows)
    all_records = sum(records(p) for p in paths)
    assert summary(outputs[0]) == (len(paths), all_records, len(rows))

    # The host graph: each edge once.
    (part,) = graph_out.glob("part-*.csv")
    lines = part.read_text(encoding="utf-8").splitlines()
    assert lines[0] == "s,t"
    assert sorted(tuple(line.split(",")) for line in lines[1:]) == sorted(CRAWL_EDGES)
    assert summary(outputs[1]) == (len(paths), all_records, len(rows))


def metadata(wat: pathlib.Path) -> list[bytes]:
    """The lines of a WAT file's metadata records, but their WARC-Date and
    WARC-Record-ID (named after the input as it was given)."""
    text = gzip.decompress(wat.read_bytes())
    records = text[text.index(b"WARC/1.0\r\nWARC-Type: metadata\r\n") :]
    return [l for l in records.splitlines() if not l.startswith((b"WARC-Date:", b"WARC-Record-ID:"))]


def test_write_wats_gives_each_warc_its_wat_file(tmp_path: pathlib.Path) -> None:
    """The work of the tasks with --output-format wat, without Spark: each
    WARC file, local or over HTTP, gives the WAT file relink.wat writes of
    it, named as Common Crawl names it; a file that is not there is
    counted and skipped."""
    job = load_job()
    paths = make_crawl(tmp_path / "crawl")
    out = tmp_path / "wat"
    out.mkdir()
    with http_server(tmp_path) as url:
        urls = [str(paths[0]), url + "crawl/" + paths[1].name, url + "none.warc.gz"]
        counters = job.Counters(Count(), Count(), Count(), Count())
        names = list(job.write_wats(urls, str(out), "rfc1808", counters))
    assert names == ["a.warc.wat.gz", "b.warc.wat.gz"]
    assert sorted(p.name for p in out.iterdir()) == names
    assert (counters.files.value, counters.failed.value) == (2, 1)
    for path, name in zip(paths, names):
        expected = tmp_path / "expected.wat.gz"
        count = relink.wat(str(path), expected)
        assert metadata(out / name) == metadata(expected), name
        assert metadata(expected).count(b"WARC-Type: metadata") == count > 0
    assert counters.records.value == sum(relink.wat(str(p), io.BytesIO()) for p in paths[:2])


@pytest.mark.slow
def test_spark_submit_writes_a_wat_file_per_warc(tmp_path: pathlib.Path) -> None:
    pyspark = pyspark_or_skip()
    out = tmp_path / "wat"
    run = submit(pyspark, [str(SITE_WARC), str(out), "--output-format", "wat"], spark_env())
    assert run.returncode == 0, run.stdout[-5000:]
    assert [p.name for p in out.iterdir()] == ["site.warc.wat.gz"]
    from warcio.archiveiterator import ArchiveIterator

    with open(out / "site.warc.wat.gz", "rb") as stream:
        types = [r.rec_headers.get_header("WARC-Type") for r in ArchiveIterator(stream)]
    count = relink.wat(str(SITE_WARC), io.BytesIO())
    assert types == ["warcinfo"] + ["metadata"] * count
    assert f"links.py: 1 WARC files read, {count} records; 1 WAT files written to {out}" in run.stdout
