"""The PySpark job examples/spark/links.py: its INPUT forms, and a real
run with spark-submit in local mode on the corpus crawl."""

from __future__ import annotations

import importlib.util
import os
import pathlib
import subprocess
import sys
from collections import Counter

import pytest

import relink
from conftest import FIXTURES

JOB = FIXTURES.parent / "examples" / "spark" / "links.py"
CORPUS_WARC = FIXTURES / "corpus" / "warc" / "python-tutorial.warc.gz"
SITE_WARC = FIXTURES / "warc" / "site.warc.gz"


def load_job():
    spec = importlib.util.spec_from_file_location("spark_links", JOB)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def pyspark_or_skip():
    """pyspark, which the test script installs; elsewhere the Spark test is
    skipped unless RELINK_REQUIRE_SPARK is set."""
    if os.environ.get("RELINK_REQUIRE_SPARK"):
        import pyspark

        return pyspark
    return pytest.importorskip("pyspark")


def test_input_is_a_file_a_glob_or_a_list(tmp_path: pathlib.Path) -> None:
    job = load_job()
    assert job.warc_paths(str(CORPUS_WARC)) == [str(CORPUS_WARC)]
    assert job.warc_paths(str(FIXTURES / "*" / "*.warc.gz")) == [str(SITE_WARC)]
    (tmp_path / "sub").mkdir()
    for name in ("b.warc", "a.warc.gz"):
        (tmp_path / "sub" / name).write_bytes(b"WARC/1.1\r\n")
    listing = tmp_path / "warcs.txt"
    listing.write_text(f"# crawls\n\n{CORPUS_WARC}\nsub/*.warc*\n", encoding="utf-8")
    assert job.warc_paths(str(listing)) == [
        str(CORPUS_WARC),
        str(tmp_path / "sub" / "a.warc.gz"),
        str(tmp_path / "sub" / "b.warc"),
    ]
    # A plain WARC file is no list.
    assert job.warc_paths(str(tmp_path / "sub" / "b.warc")) == [str(tmp_path / "sub" / "b.warc")]


def test_missing_input_fails_before_spark_starts(tmp_path: pathlib.Path, capsys) -> None:
    job = load_job()
    assert job.main([str(tmp_path / "none.warc.gz"), str(tmp_path / "out")]) == 2
    assert "no WARC file at" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


@pytest.mark.slow
def test_spark_submit_writes_every_link_as_parquet(tmp_path: pathlib.Path) -> None:
    pyspark = pyspark_or_skip()
    listing = tmp_path / "warcs.txt"
    listing.write_text(f"{CORPUS_WARC}\n{FIXTURES / 'warc' / '*.warc.gz'}\n", encoding="utf-8")
    output = tmp_path / "links.parquet"
    spark_submit = pathlib.Path(pyspark.__file__).parent / "bin" / "spark-submit"
    env = dict(os.environ, PYSPARK_PYTHON=sys.executable, PYSPARK_DRIVER_PYTHON=sys.executable)
    run = subprocess.run(
        [str(spark_submit), "--master", "local[2]", str(JOB), str(listing), str(output)],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert run.returncode == 0, run.stderr[-5000:]

    from pyspark.sql import SparkSession

    spark = SparkSession.builder.master("local[1]").appName("check links").getOrCreate()
    try:
        table = spark.read.parquet(str(output))
        assert table.columns == ["target_uri", "resolved", "element", "attribute", "base_from"]
        rows = [tuple(row) for row in table.collect()]
    finally:
        spark.stop()

    # The same rows as relink.warc_links gives for each file, no more, no
    # fewer.
    expected = [
        tuple(link[c] for c in ("target_uri", "resolved", "element", "attribute", "base_from"))
        for path in (CORPUS_WARC, SITE_WARC)
        for link in relink.warc_links(path)
    ]
    assert len(rows) == len(expected)
    assert Counter(rows) == Counter(expected)
    corpus = [row for row in rows if row[0].startswith("http://127.0.0.1:8768/")]
    assert len(corpus) > 1000
    index = "http://127.0.0.1:8768/tutorial/index.html"
    target = "WARC-Target-URI of the record"
    for row in [
        (index, "http://127.0.0.1:8768/_static/pygments.css", "link", "href", target),
        (index, "http://127.0.0.1:8768/tutorial/appetite.html", "link", "href", target),
        (index, "http://127.0.0.1:8768/_static/doctools.js", "script", "src", target),
        (
            "http://127.0.0.1:8769/site/located.html",
            "http://127.0.0.1:8769/moved/other.html",
            "a",
            "href",
            "Content-Location of the message",
        ),
    ]:
        assert row in rows, row
