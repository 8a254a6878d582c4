// Shared by the tests: the repository's fixtures, the command line to
// compare with, and the warnings a call emits.
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const { spawnSync } = require('node:child_process');

const ROOT = path.resolve(__dirname, '..', '..');
const FIXTURES = path.join(ROOT, 'fixtures');

// The `relink` command line `cargo build --bin relink` made (RELINK_BIN,
// else target/debug/relink in the repository).
function relinkBin() {
  const bin = process.env.RELINK_BIN || path.join(ROOT, 'target', 'debug', 'relink');
  if (!fs.existsSync(bin)) {
    throw new Error(`no relink command line at ${bin}: run cargo build --bin relink`);
  }
  return bin;
}

// Runs the command line; gives its standard output and error as text and
// its exit status.
function cli(args) {
  const run = spawnSync(relinkBin(), args, { encoding: 'utf8', maxBuffer: 1 << 30 });
  if (run.error) throw run.error;
  return run;
}

// Every input under fixtures/: not the tables, licences and notes.
function everyFixture() {
  const skip = ['LICENSE', 'README', 'NOTICE', 'COPYING'];
  const found = [];
  const walk = (dir) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.isFile() && !full.endsWith('.tsv') && !skip.some((s) => entry.name.startsWith(s))) {
        found.push(full);
      }
    }
  };
  walk(FIXTURES);
  return found.sort();
}

// Calls `fn` with process.emitWarning caught: gives what it returned (or
// the error it threw) and the messages of the RelinkWarnings it emitted.
function withWarnings(fn) {
  const emit = process.emitWarning;
  const warnings = [];
  process.emitWarning = (warning, type) => {
    if (type === 'RelinkWarning') warnings.push(String(warning));
    else emit.call(process, warning, type);
  };
  try {
    return { value: fn(), warnings };
  } catch (error) {
    return { error, warnings };
  } finally {
    process.emitWarning = emit;
  }
}

module.exports = { ROOT, FIXTURES, relinkBin, cli, everyFixture, withWarnings };
