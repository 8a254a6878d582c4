#!/usr/bin/env bash
# Tests of the Python package and the Spark job: a fresh virtualenv under
# target/, the package installed the way users install it (pip builds it
# through maturin), then pytest, the Spark job in local mode included.
#
# The package is built in cargo's dev profile so that it shares the build
# of `cargo test`; `pip install ./python` alone builds it for release.
set -euo pipefail
python_dir="$(cd "$(dirname "$0")" && pwd)"
root="$(dirname "$python_dir")"
venv="$root/target/python-venv"

if command -v cargo >/dev/null 2>&1; then
  (cd "$root" && cargo clippy --quiet -p relink-python --all-targets -- -D warnings)
fi

rm -rf "$venv"
mkdir -p "$root/target"
python3 -m venv "$venv"
pip() { "$venv/bin/python" -m pip --disable-pip-version-check --quiet "$@"; }
# pyspark 3.5 and later run on Java 17; it is a large download, cached by pip.
pip install pytest warcio 'pyspark>=3.5'
MATURIN_PEP517_ARGS="--profile dev" pip install "$python_dir"

cd "$python_dir"
# The Spark test must run here, not be skipped.
RELINK_REQUIRE_SPARK=1 "$venv/bin/python" -m pytest -ra "$@"
