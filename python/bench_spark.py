"""Throughput of the Spark job (examples/spark/links.py) in local mode on
one executor core: MB/s of HTML payload a core, for the table of links
and for WAT files.

    python python/bench_spark.py FILE.warc.gz PAYLOAD_BYTES

`cargo bench --bench throughput` runs it on its crawl-like archive
(RELINK_BENCH_ONLY=crawl) with the python of the bench's virtualenv,
made once with what the Python rows need, the package built for release:

    python3 -m venv target/bench-venv
    target/bench-venv/bin/pip install fastwarc selectolax warcio 'pyspark>=3.5' fsspec ./python

The job is submitted as the tests submit it (python/tests/test_spark.py),
with one core (``local[1]``) and Spark's log at INFO, over the archive
under RELINK_BENCH_SPARK_COPIES names (8 by default, a task each): the
time of the tasks that read them, which Spark's log gives one by one, is
the time of one core (the JVM's and the session's start, which is most
of a short job's time and moves with the machine's load, left out); the
wall time of the whole submit is printed beside it. The medians of
RELINK_BENCH_SPARK_ROUNDS runs (2 by default).
"""

from __future__ import annotations

import os
import pathlib
import re
import statistics
import subprocess
import sys
import tempfile
import time

import pyspark

ROOT = pathlib.Path(__file__).resolve().parent.parent
JOB = ROOT / "examples" / "spark" / "links.py"


def submit(args: list[str]) -> list[str]:
    """spark-submit of the job on one core, the driver as the tests set it."""
    command = [str(pathlib.Path(pyspark.__file__).parent / "bin" / "spark-submit")]
    command += ["--master", "local[1]", "--conf", "spark.ui.enabled=false"]
    command += ["--driver-java-options", "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC"]
    command += ["--conf", "spark.sql.shuffle.partitions=1", str(JOB)]
    return command + args


# Spark's log line of a task done: its stage and its time.
TASK = re.compile(r"Finished task \S+ in stage (\S+) \(TID \d+\) in (\d+) ms")


def run(warc: pathlib.Path, output_format: str, out: pathlib.Path, copies: int) -> tuple[float, float]:
    """One run of the job over WARC: its wall seconds, and the seconds of
    the tasks that read the WARC files (the stage of ``copies`` tasks, one
    a file), as Spark's log gives them."""
    env = dict(os.environ, PYSPARK_PYTHON=sys.executable, PYSPARK_DRIVER_PYTHON=sys.executable)
    args = [str(warc), str(out), "--output-format", output_format, "--mode", "overwrite"]
    start = time.perf_counter()
    done = subprocess.run(
        submit(args + ["--log-level", "INFO"]), env=env,
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )
    wall = time.perf_counter() - start
    if done.returncode != 0:
        sys.exit(f"bench_spark.py: the job failed on {warc}:\n{done.stdout[-3000:]}")
    stages: dict[str, list[int]] = {}
    for stage, ms in TASK.findall(done.stdout):
        stages.setdefault(stage, []).append(int(ms))
    reading = [sum(times) for times in stages.values() if len(times) == copies]
    if not reading:
        sys.exit(f"bench_spark.py: no stage of {copies} tasks in the job's log")
    return wall, max(reading) / 1e3


def main(warc: str, payload: str) -> None:
    rounds = int(os.environ.get("RELINK_BENCH_SPARK_ROUNDS", "2"))
    copies = int(os.environ.get("RELINK_BENCH_SPARK_COPIES", "8"))
    payload_mb = copies * int(payload) / 1e6
    with tempfile.TemporaryDirectory() as tmp:
        # The file under several names, one task each.
        for i in range(copies):
            os.symlink(os.path.abspath(warc), os.path.join(tmp, f"crawl-{i}.warc.gz"))
        crawl = pathlib.Path(tmp) / "crawl-*.warc.gz"
        for output_format, what in (("parquet", "links (parquet)"), ("wat", "WAT files")):
            times = [run(crawl, output_format, pathlib.Path(tmp) / "out", copies) for _ in range(rounds)]
            wall = statistics.median(t[0] for t in times)
            tasks = statistics.median(t[1] for t in times)
            print(
                f"  Spark job, local[1], {what}, {copies} copies ({payload_mb:.0f} MB of payload): "
                f"the tasks that read them {tasks:.1f} s, {payload_mb / tasks:.1f} MB/s of payload a core; "
                f"the whole submit {wall:.1f} s wall (median of {rounds})",
                flush=True,
            )


if __name__ == "__main__":
    main(*sys.argv[1:3])
