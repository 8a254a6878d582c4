"""Every link of a set of WARC files, found by relink, written as Parquet.

    spark-submit examples/spark/links.py INPUT OUTPUT [--rules RULES]

INPUT is a WARC file (plain or gzipped), a glob of them (quote it), or a
text file listing them, one path or glob a line (blank lines and lines
starting with # skipped; relative paths are taken from the list's folder).
Each file is read by one task with relink.warc_links, as a stream, on a
filesystem every executor sees under the same path.

OUTPUT is a Parquet directory with one row per link: target_uri, resolved,
element, attribute, base_from. It must not exist yet (--mode overwrite
replaces it).

Every executor needs the relink package (pip install ./python), or a
virtualenv shipped with --archives (see docs/spark.md).
"""

from __future__ import annotations

import argparse
import glob
import os
import sys
from typing import Iterable, Iterator

COLUMNS = ("target_uri", "resolved", "element", "attribute", "base_from")
RULES = ("rfc1808", "rfc3986", "whatwg")


def looks_like_warc(path: str) -> bool:
    """Whether a file is a WARC file rather than a list of them: gzipped,
    or starting with a WARC version line."""
    with open(path, "rb") as stream:
        head = stream.read(8)
    return head.startswith(b"\x1f\x8b") or head.startswith(b"WARC/")


def expand(pattern: str) -> list[str]:
    """A path, or the files a glob names, sorted."""
    if glob.has_magic(pattern):
        return sorted(p for p in glob.glob(pattern) if os.path.isfile(p))
    return [pattern]


def warc_paths(spec: str) -> list[str]:
    """The WARC files INPUT names, as absolute paths."""
    if not glob.has_magic(spec) and os.path.isfile(spec) and not looks_like_warc(spec):
        folder = os.path.dirname(os.path.abspath(spec))
        paths = []
        with open(spec, encoding="utf-8") as listing:
            for line in listing:
                line = line.strip()
                if line and not line.startswith("#"):
                    paths.extend(expand(os.path.join(folder, os.path.expanduser(line))))
    else:
        paths = expand(os.path.expanduser(spec))
    return [os.path.abspath(p) for p in paths]


def extract(paths: Iterable[str], rules: str) -> Iterator[tuple]:
    """The rows of the links of each file, read as a stream (runs on the
    executors)."""
    import relink

    for path in paths:
        for link in relink.warc_links(path, rules):
            yield tuple(link[column] for column in COLUMNS)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description="Every link of a set of WARC files, found by relink, written as Parquet."
    )
    parser.add_argument("input", help="a WARC file, a glob of them, or a text file listing them")
    parser.add_argument("output", help="the Parquet directory to write")
    parser.add_argument("--rules", default="rfc1808", choices=RULES, help="how references resolve")
    parser.add_argument(
        "--mode",
        default="errorifexists",
        choices=("errorifexists", "overwrite"),
        help="what to do when OUTPUT exists",
    )
    args = parser.parse_args(argv)

    paths = warc_paths(args.input)
    missing = [p for p in paths if not os.path.isfile(p)]
    if not paths or missing:
        print(f"links.py: no WARC file at {(missing or [args.input])[0]}", file=sys.stderr)
        return 2

    from pyspark.sql import SparkSession
    from pyspark.sql.types import StringType, StructField, StructType

    spark = SparkSession.builder.appName("relink WARC links").getOrCreate()
    try:
        schema = StructType([StructField(c, StringType(), nullable=False) for c in COLUMNS])
        rules = args.rules
        # One file a task: files are the unit of work, read as streams.
        rows = spark.sparkContext.parallelize(paths, numSlices=len(paths)).mapPartitions(
            lambda part: extract(part, rules)
        )
        spark.createDataFrame(rows, schema).write.mode(args.mode).parquet(args.output)
    finally:
        spark.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
