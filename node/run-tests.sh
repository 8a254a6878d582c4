#!/usr/bin/env bash
# Tests of the Node.js package, on a machine with Rust and Node.js: the
# npm packages of package-lock.json (npm ci: napi-rs's command line,
# TypeScript, turndown), the relink command line built
# to compare with, the package built (build-dev.js: a plain cargo build in
# the dev profile, sharing the dependencies the Python package's build
# compiled, and napi-rs's generators; its debug info stripped, as `npm
# pack` would pack it), index.js and index.d.ts checked to be what napi-rs
# generates, example.ts checked by tsc, then `node --test`, which checks
# `npm pack` too.
set -euo pipefail
node_dir="$(cd "$(dirname "$0")" && pwd)"
root="$(dirname "$node_dir")"

# The command line the tests compare the package's rows and bytes with.
(cd "$root" && cargo build --quiet --bin relink)
target_dir="$(cd "$root" && cargo metadata --format-version 1 --no-deps |
  node -e 'let s = ""; process.stdin.on("data", (d) => (s += d)).on("end", () => console.log(JSON.parse(s).target_directory))')"

cd "$node_dir"
npm ci --no-audit --no-fund --loglevel=error
node build-dev.js
strip --strip-debug relink.*.node 2>/dev/null || true
# The committed index files are those the build generates.
if git -C "$root" rev-parse --git-dir >/dev/null 2>&1; then
  git -C "$root" diff --exit-code -- node/index.js node/index.d.ts
fi
npx tsc --noEmit -p tsconfig.json
RELINK_BIN="$target_dir/debug/relink" node --test --no-warnings tests/*.test.js "$@"
