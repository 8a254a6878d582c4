"""Every link of a set of WARC files, found by relink: a table of links, or
a host-level link graph.

    spark-submit examples/spark/links.py [OPTIONS] INPUT OUTPUT

INPUT is one of:

- a manifest: a text file of WARC paths, one a line, plain or gzipped (a
  crawl's ``warc.paths.gz``), read from a local path or a URL (``file://``,
  ``https://``, ``s3://``, anything fsspec opens). Each line is joined to
  ``--input-base-url`` (``https://data.commoncrawl.org/``,
  ``s3://commoncrawl/``); without one, a relative line is taken from the
  manifest's folder, and a local line may be a glob. Blank lines and lines
  starting with ``#`` are skipped;
- a WARC file (plain or gzipped), by path or URL;
- a glob of WARC files (quote it).

Each file is read by one task, as a stream: a local file by relink itself,
any other through fsspec (s3fs for ``s3://``) into ``relink.warc_links``,
never copied to local disk. A file that cannot be read is logged and
counted, and the job goes on (a bad record inside a file is no failure:
relink copies it and reads on).

OUTPUT is a directory written in ``--output-format`` (parquet, orc, json,
csv) with one row per link: warc_filename, record_id, target_uri,
original, resolved, element, attribute, base_from. With ``--host-graph``
it holds the host-level graph instead: one row per distinct edge ``s``,
``t`` between two hosts, each host name reversed (``com.example.www``).
With ``--output-format wat`` it holds one WAT file per WARC file, named
as Common Crawl names them (``X.warc.gz`` gives ``X.warc.wat.gz``), each
written by the task that reads the WARC file (``relink.wat``): the links
of each record in Common Crawl's JSON layout, with relink's resolved URLs
beside them, for the jobs that read Common Crawl's WAT files.

Every executor needs the relink package (pip install ./python), and fsspec
for remote input (plus s3fs for S3, aiohttp for HTTP): install them on
each node or ship a packed virtualenv with --archives (see docs/spark.md).
The job checks first that its workers can import relink, and says what to
set when they cannot (status 2); a run that fails while it writes removes
what it wrote of OUTPUT (status 1), so that a second run is not refused.
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import glob
import gzip
import logging
import os
import re
import sys
import zlib
from typing import Iterable, Iterator, NamedTuple, Optional
from urllib.parse import urlsplit
from urllib.request import url2pathname

LINK_COLUMNS = (
    "warc_filename",
    "record_id",
    "target_uri",
    "original",
    "resolved",
    "element",
    "attribute",
    "base_from",
)
NULLABLE = ("record_id", "target_uri")
EDGE_COLUMNS = ("s", "t")
RULES = ("rfc1808", "rfc3986", "whatwg")
FORMATS = ("parquet", "orc", "json", "csv", "wat")
# Spark's log levels, and the job's own logger's at each.
PYTHON_LEVELS = {
    "ALL": logging.NOTSET,
    "DEBUG": logging.DEBUG,
    "INFO": logging.INFO,
    "WARN": logging.WARNING,
    "ERROR": logging.ERROR,
    "FATAL": logging.CRITICAL,
    "OFF": logging.CRITICAL + 10,
}

log = logging.getLogger("relink.spark")


# Where the WARC files are.


def has_scheme(spec: str) -> bool:
    """Whether a path is a URL (``s3://b/k``, ``file:///x``) rather than a
    local path (a Windows drive letter is no scheme)."""
    return re.match(r"^[A-Za-z][A-Za-z0-9+.-]+://", spec) is not None


def local_path(spec: str) -> Optional[str]:
    """The local path a spec names (itself, or a ``file://`` URL's path),
    or None for a remote URL."""
    if not has_scheme(spec):
        return os.path.expanduser(spec)
    if spec.lower().startswith("file://"):
        return url2pathname(urlsplit(spec).path)
    return None


def open_remote(url: str):
    """A remote file opened for reading as a stream, through fsspec. Over
    HTTP it is one streamed GET (``block_size=0``), which any server
    gives, with no need for range requests."""
    import fsspec

    options = {"block_size": 0} if url.lower().startswith(("http://", "https://")) else {}
    return fsspec.open(url, "rb", **options).open()


def read_head(spec: str, size: int = 4096) -> bytes:
    """The first bytes of a file, local or remote."""
    path = local_path(spec)
    if path is not None:
        with open(path, "rb") as stream:
            return stream.read(size)
    stream = open_remote(spec)
    try:
        return stream.read(size)
    finally:
        stream.close()


def is_warc(head: bytes) -> bool:
    """Whether a file's first bytes are a web archive's (WARC or ARC, plain
    or gzipped) rather than a manifest's."""
    if head.startswith(b"\x1f\x8b"):
        try:
            head = zlib.decompressobj(wbits=31).decompress(head, 4096)
        except zlib.error:
            return False
    head = head.lstrip()
    return head.startswith(b"WARC/") or head.startswith(b"filedesc://")


def expand(pattern: str) -> list[str]:
    """A path or URL, or the files a glob names, sorted."""
    if not glob.has_magic(pattern):
        return [pattern]
    path = local_path(pattern)
    if path is not None:
        return sorted(p for p in glob.glob(path) if os.path.isfile(p))
    import fsspec

    fs, _, paths = fsspec.get_fs_token_paths(pattern)
    return sorted(fs.unstrip_protocol(p) for p in paths)


def manifest_lines(spec: str) -> list[str]:
    """The paths a manifest lists (gzipped or not)."""
    path = local_path(spec)
    if path is not None:
        with open(path, "rb") as stream:
            data = stream.read()
    else:
        stream = open_remote(spec)
        try:
            data = stream.read()
        finally:
            stream.close()
    if data.startswith(b"\x1f\x8b"):
        data = gzip.decompress(data)
    lines = (line.strip() for line in data.decode("utf-8").splitlines())
    return [line for line in lines if line and not line.startswith("#")]


def join(base: str, path: str) -> str:
    """A manifest's line joined to the input base URL (or folder)."""
    if has_scheme(path) or (path.startswith("/") and not has_scheme(base)):
        return path
    return base.rstrip("/") + "/" + path.lstrip("/")


def warc_paths(spec: str, input_base_url: Optional[str] = None) -> list[str]:
    """The WARC files INPUT names: local paths made absolute, URLs as they
    are."""
    if glob.has_magic(spec):
        paths = expand(spec)
    else:
        path = local_path(spec)
        if path is not None and not os.path.isfile(path):
            # Not there: the caller reports it.
            return [os.path.abspath(path)]
        if is_warc(read_head(spec)):
            paths = [spec]
        else:
            if input_base_url:
                base = input_base_url
            elif path is not None:
                base = os.path.dirname(os.path.abspath(path))
            else:
                base = spec.rsplit("/", 1)[0]
            paths = []
            for line in manifest_lines(spec):
                if not input_base_url and path is not None:
                    line = os.path.expanduser(line)
                paths.extend(expand(join(base, line)))
    return [p if has_scheme(p) else os.path.abspath(p) for p in paths]


# Hosts.

IPV4 = re.compile(r"^\d{1,3}(\.\d{1,3}){3}$")
LABEL = re.compile(r"^[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?$")


def reversed_host(url: str) -> Optional[str]:
    """The host of a URL with its labels in reverse order
    (``http://www.example.com/`` gives ``com.example.www``), lowercase,
    internationalized names in their ASCII form; None for a URL without a
    host name (``mailto:``, ``data:``), an IP address, a one-label host
    (``localhost``), or a name that is no valid host name."""
    try:
        host = urlsplit(url).hostname
    except ValueError:
        return None
    if not host or IPV4.match(host) or ":" in host:
        return None
    labels = host.rstrip(".").split(".")
    if len(labels) < 2 or len(host) > 253:
        return None
    ascii_labels = []
    for label in labels:
        if not label.isascii():
            try:
                label = label.encode("idna").decode("ascii")
            except UnicodeError:
                return None
        if not LABEL.match(label):
            return None
        ascii_labels.append(label)
    return ".".join(reversed(ascii_labels))


# The work of each task.


class Counters(NamedTuple):
    """The job's accumulators."""

    files: object
    failed: object
    records: object
    links: object


@contextlib.contextmanager
def warc_stream(url: str, rules: str) -> Iterator:
    """The links of one WARC file, as a stream: a local file read by
    relink, any other through fsspec (closed at the end)."""
    import relink

    path = local_path(url)
    if path is not None:
        yield relink.warc_links(path, rules)
        return
    source = open_remote(url)
    try:
        yield relink.warc_links(source, rules)
    finally:
        source.close()


def extract(urls: Iterable[str], rules: str, host_graph: bool, counters: Counters) -> Iterator[tuple]:
    """The rows of each file's links, or its host edges (each once per
    file), read as a stream (runs on the executors)."""
    for url in urls:
        links = 0
        seen: set[tuple[str, str]] = set()
        try:
            with warc_stream(url, rules) as stream:
                for link in stream:
                    links += 1
                    if not host_graph:
                        yield (url,) + tuple(link[c] for c in LINK_COLUMNS[1:])
                        continue
                    s = reversed_host(link["target_uri"] or "")
                    t = reversed_host(link["resolved"])
                    if s and t and s != t and (s, t) not in seen:
                        seen.add((s, t))
                        yield (s, t)
                records = stream.records or 0
        except (OSError, ValueError) as error:
            # A file that cannot be read does not fail the job.
            logging.getLogger("relink.spark").error("%s: %s: %s", url, type(error).__name__, error)
            counters.failed.add(1)
            continue
        counters.files.add(1)
        counters.records.add(records)
        counters.links.add(links)


def wat_name(url: str) -> str:
    """The name of a WARC file's WAT file, as Common Crawl names it: its
    own, ``.wat.gz`` for its ``.gz`` (``X.warc.gz`` gives
    ``X.warc.wat.gz``)."""
    name = url.rstrip("/").rsplit("/", 1)[-1]
    return (name[:-3] if name.endswith(".gz") else name) + ".wat.gz"


class NamedStream:
    """A remote file as relink reads it, named as a local one is: a WAT
    record's ``Container.Filename`` is the WARC file's name either way."""

    def __init__(self, stream, name: str):
        self.stream, self.name = stream, name

    def read(self, size: int = -1) -> bytes:
        return self.stream.read(size)

    def close(self) -> None:
        self.stream.close()


def write_wat(url: str, output: str, rules: str) -> int:
    """Writes the WAT file of one WARC file into the folder OUTPUT, a local
    file whole or not at all, a remote one through fsspec; gives how many
    metadata records it holds."""
    import relink

    target = output.rstrip("/") + "/" + wat_name(url)
    path, out = local_path(url), local_path(target)
    source = path if path is not None else NamedStream(open_remote(url), url.rsplit("/", 1)[-1])
    try:
        if out is not None:
            return relink.wat(source, out, rules=rules)
        import fsspec

        with fsspec.open(target, "wb") as stream:
            return relink.wat(source, stream, rules=rules)
    finally:
        if path is None:
            source.close()


def write_wats(urls: Iterable[str], output: str, rules: str, counters: Counters) -> Iterator[str]:
    """The WAT file of each WARC file, written into OUTPUT; gives the name
    of each written (runs on the executors). A file that cannot be read is
    logged and counted, as ``extract`` does."""
    for url in urls:
        try:
            records = write_wat(url, output, rules)
        except (OSError, ValueError) as error:
            logging.getLogger("relink.spark").error("%s: %s: %s", url, type(error).__name__, error)
            counters.failed.add(1)
            continue
        counters.files.add(1)
        counters.records.add(records)
        yield wat_name(url)


def parse_args(argv: Optional[list[str]]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description="Every link of a set of WARC files, found by relink: a table of links, "
        "or a host-level link graph."
    )
    parser.add_argument(
        "input", help="a manifest of WARC paths (plain or gzipped), a WARC file, or a glob of them"
    )
    parser.add_argument("output", help="the directory to write")
    parser.add_argument(
        "--input-base-url",
        help="joined to each path of the manifest (https://data.commoncrawl.org/, s3://commoncrawl/)",
    )
    parser.add_argument(
        "--num-input-partitions",
        type=int,
        help="how many tasks read the files (default: one a file)",
    )
    parser.add_argument(
        "--num-output-partitions",
        type=int,
        help="how many files are written (default: one per input partition; the host graph, "
        "as Spark's shuffle gives)",
    )
    parser.add_argument(
        "--output-format",
        default="parquet",
        choices=FORMATS,
        help="the format of the table, or wat: a WAT file per WARC file (default: parquet)",
    )
    parser.add_argument(
        "--output-compression",
        help="the codec of the output (gzip, snappy, zstd, none...; default: the format's)",
    )
    parser.add_argument("--rules", default="rfc1808", choices=RULES, help="how references resolve")
    parser.add_argument(
        "--host-graph",
        action="store_true",
        help="write the distinct edges between reversed host names (s, t) instead of the links",
    )
    parser.add_argument(
        "--mode",
        default="errorifexists",
        choices=("errorifexists", "overwrite"),
        help="what to do when OUTPUT exists",
    )
    parser.add_argument("--log-level", default="WARN", choices=tuple(PYTHON_LEVELS), type=str.upper)
    return parser.parse_args(argv)


# Before and around the run.

WORKER_HINT = (
    "set PYSPARK_PYTHON to the python of the virtualenv relink is installed in "
    "(export PYSPARK_PYTHON=\"$PWD/.venv/bin/python\"), "
    "or ship one to the executors with --archives (see docs/spark.md)"
)


def relink_on_worker(_: Iterable) -> Iterator[str]:
    """Runs on a worker: nothing when it can import relink, else which
    python could not and why."""
    try:
        import relink  # noqa: F401
    except ImportError as error:
        yield f"{sys.executable}: {error}"


def first_line(error: BaseException) -> str:
    """The first line of an error, a Java one (a Py4JJavaError's message
    holds its whole stack trace) or Python's."""
    java = getattr(error, "java_exception", None)
    text = str(java.toString()) if java is not None else str(error)
    return (text.strip().splitlines() or [type(error).__name__])[0]


def workers_problem(sc) -> Optional[str]:
    """Why the workers cannot run the job (their python cannot import
    relink, or does not start), in one line; None when they can. Spark's
    own log of a failed probe, a Java stack trace, is kept quiet: the line
    says it."""
    slots = max(1, sc.defaultParallelism)
    sc.setLogLevel("OFF")
    try:
        found = sc.parallelize(range(slots), slots).mapPartitions(relink_on_worker).collect()
    except Exception as error:  # the python of the workers did not start
        found = [first_line(error)]
    if not found:
        return None
    return f"the Spark workers cannot import relink ({sorted(set(found))[0]}): {WORKER_HINT}"


def hadoop_path(sc, spec: str):
    """OUTPUT's filesystem and qualified path, as Spark's writer sees them."""
    path = sc._jvm.org.apache.hadoop.fs.Path(spec)
    fs = path.getFileSystem(sc._jsc.hadoopConfiguration())
    return fs, fs.makeQualified(path)


def save(sc, writer, output: str, mode: str) -> Optional[tuple[int, str]]:
    """Writes OUTPUT; a failed write removes what it left, so that a second
    run is not refused (Spark's PATH_ALREADY_EXISTS). In ``errorifexists``
    mode an OUTPUT that was there is refused first, and never touched; in
    ``overwrite`` mode Spark removes it before writing anyway. The exit
    status and the error in one line, or None."""
    fs, path = hadoop_path(sc, output)
    if mode == "errorifexists" and fs.exists(path):
        return 2, f"{output} exists (--mode overwrite replaces it)"
    try:
        writer.mode(mode).save(output)
    except BaseException as error:
        if fs.exists(path):
            fs.delete(path, True)
        if not isinstance(error, Exception):
            raise
        return 1, f"the job failed, {output} not written: {first_line(error)}"
    return None


def run_wat(spark, args: argparse.Namespace, paths: list[str]) -> int:
    """The job with ``--output-format wat``: each task writes the WAT file
    of each of its WARC files into OUTPUT."""
    import fsspec

    sc = spark.sparkContext
    counters = Counters(*(sc.accumulator(0) for _ in Counters._fields))
    fs, _, (folder,) = fsspec.get_fs_token_paths(args.output)
    if args.mode == "overwrite" and fs.exists(folder):
        fs.rm(folder, recursive=True)
    elif fs.exists(folder):
        print(f"links.py: {args.output} exists (--mode overwrite replaces it)", file=sys.stderr)
        return 2
    fs.makedirs(folder, exist_ok=True)
    output, rules = args.output, args.rules
    partitions = args.num_input_partitions or len(paths)
    written = sc.parallelize(paths, numSlices=partitions).mapPartitions(
        lambda part: write_wats(part, output, rules, counters)
    )
    try:
        names = written.collect()
    except Exception as error:
        fs.rm(folder, recursive=True)
        print(f"links.py: the job failed, {args.output} not written: {first_line(error)}", file=sys.stderr)
        return 1
    failed = f", {counters.failed.value} failed" if counters.failed.value else ""
    print(
        f"links.py: {counters.files.value} WARC files read{failed}, "
        f"{counters.records.value} records; {len(names)} WAT files written to {args.output}",
        file=sys.stderr,
    )
    return 0


def run(spark, args: argparse.Namespace, paths: list[str]) -> int:
    """The job, once its input is known and its workers are checked."""
    from pyspark.sql.types import StringType, StructField, StructType

    sc = spark.sparkContext
    counters = Counters(*(sc.accumulator(0) for _ in Counters._fields))
    rules, host_graph = args.rules, args.host_graph
    partitions = args.num_input_partitions or len(paths)
    log.info("%d WARC files, read by %d tasks", len(paths), partitions)
    rows = sc.parallelize(paths, numSlices=partitions).mapPartitions(
        lambda part: extract(part, rules, host_graph, counters)
    )
    columns = EDGE_COLUMNS if host_graph else LINK_COLUMNS
    # Only a link outside a record (none in a WARC file) has no record_id
    # or target_uri; every other column is always there. Each row is such
    # strings, so Spark's check of every row against the schema (a tenth
    # of a task's time) is skipped.
    schema = StructType([StructField(c, StringType(), nullable=c in NULLABLE) for c in columns])
    table = spark.createDataFrame(rows, schema, verifySchema=False)
    if host_graph:
        table = table.dropDuplicates()
        if args.num_output_partitions:
            table = table.coalesce(args.num_output_partitions)
    elif args.num_output_partitions:
        table = table.repartition(args.num_output_partitions)
    writer = table.write.format(args.output_format)
    if args.output_compression:
        writer = writer.option("compression", args.output_compression)
    if args.output_format == "csv":
        writer = writer.option("header", True)
    failure = save(sc, writer, args.output, args.mode)
    if failure:
        print(f"links.py: {failure[1]}", file=sys.stderr)
        return failure[0]
    what = "host edges" if host_graph else "links"
    failed = f", {counters.failed.value} failed" if counters.failed.value else ""
    # The summary is the job's result, said whatever the log level.
    print(
        f"links.py: {counters.files.value} WARC files read{failed}, "
        f"{counters.records.value} records, {counters.links.value} links; "
        f"{what} written to {args.output}",
        file=sys.stderr,
    )
    return 0


def main(argv: Optional[list[str]] = None) -> int:
    args = parse_args(argv)
    logging.basicConfig(format="%(name)s: %(levelname)s: %(message)s")
    log.setLevel(PYTHON_LEVELS[args.log_level])

    try:
        paths = warc_paths(args.input, args.input_base_url)
    except (OSError, ValueError, UnicodeDecodeError) as error:
        print(f"links.py: cannot read {args.input}: {error}", file=sys.stderr)
        return 2
    missing = [p for p in paths if local_path(p) is not None and not os.path.isfile(local_path(p))]
    if not paths or missing:
        print(f"links.py: no WARC file at {(missing or [args.input])[0]}", file=sys.stderr)
        return 2
    if args.output_format == "wat":
        counts = collections.Counter(wat_name(p) for p in paths)
        twice = sorted(n for n, count in counts.items() if count > 1)
        if args.host_graph or twice:
            why = "--host-graph is a table" if args.host_graph else f"two WARC files give {twice[0]}"
            print(f"links.py: --output-format wat writes a WAT file per WARC file: {why}", file=sys.stderr)
            return 2
    output = local_path(args.output)
    if args.mode == "errorifexists" and output is not None and os.path.exists(output):
        print(f"links.py: {args.output} exists (--mode overwrite replaces it)", file=sys.stderr)
        return 2

    from pyspark.sql import SparkSession

    spark = (
        SparkSession.builder.appName("relink WARC links")
        .config("spark.log.level", args.log_level)
        .getOrCreate()
    )
    try:
        # Before anything is written: a worker that cannot import relink
        # would fail every task with a Python traceback inside a Java one.
        problem = workers_problem(spark.sparkContext)
        spark.sparkContext.setLogLevel(args.log_level)
        if problem:
            print(f"links.py: {problem}", file=sys.stderr)
            return 2
        if args.output_format == "wat":
            return run_wat(spark, args, paths)
        return run(spark, args, paths)
    finally:
        spark.stop()


if __name__ == "__main__":
    sys.exit(main())
