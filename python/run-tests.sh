#!/usr/bin/env bash
# Tests of the Python package and the Spark job: a virtualenv under
# target/ (made once, kept; RELINK_FRESH_VENV=1 makes it anew) with what the
# tests need, the package built once as the wheel users install (one abi3
# wheel, by maturin) and installed from it, the relink command line built
# to compare with, then pytest, the Spark job in local mode included.
#
# The wheel is built in cargo's dev profile so that it shares the build of
# `cargo test`; a release builds it with `maturin build --release`.
set -euo pipefail
python_dir="$(cd "$(dirname "$0")" && pwd)"
root="$(dirname "$python_dir")"
venv="$root/target/python-venv"

if [[ -n "${RELINK_FRESH_VENV:-}" ]]; then
  rm -rf "$venv"
fi
mkdir -p "$root/target"
[[ -x "$venv/bin/python" ]] || python3 -m venv "$venv"
pip() { "$venv/bin/python" -m pip --disable-pip-version-check --quiet "$@"; }
# pyspark 3.5 and later run on Java 17; it is a large download, cached by
# pip. fsspec[http] (aiohttp) reads the Spark job's input over HTTP.
pip install pytest warcio 'pyspark>=3.5' 'fsspec[http]' 'maturin>=1.9.4,<2'
# `--setup`: only the virtualenv, made while something else runs (the
# test command makes it while cargo compiles the tests).
[[ "${1:-}" != "--setup" ]] || exit 0

# The command line the tests compare the package's rows with.
(cd "$root" && cargo build --quiet --bin relink)
target_dir="$(cd "$root" && cargo metadata --format-version 1 --no-deps |
  python3 -c 'import json, sys; print(json.load(sys.stdin)["target_directory"])')"

wheels="$root/target/python-wheels"
rm -rf "$wheels"
"$venv/bin/maturin" build --quiet --profile dev --interpreter "$venv/bin/python" \
  --manifest-path "$python_dir/Cargo.toml" --out "$wheels"
pip install --force-reinstall --no-deps "$wheels"/relink-*.whl

cd "$python_dir"
# Nothing may be skipped here: not the Spark job, not the comparison with
# the command line.
RELINK_REQUIRE_ALL=1 RELINK_BIN="$target_dir/debug/relink" \
  "$venv/bin/python" -m pytest -ra "$@"
