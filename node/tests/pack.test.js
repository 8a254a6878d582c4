// `npm pack` makes a package that holds the built library and the index
// files that load and describe it.
'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');
const { spawnSync } = require('node:child_process');

test('the packed tarball holds the library, index.js and index.d.ts', () => {
  const run = spawnSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
    cwd: path.join(__dirname, '..'),
    encoding: 'utf8',
  });
  assert.equal(run.status, 0, run.stderr);
  const [pack] = JSON.parse(run.stdout);
  const files = pack.files.map((file) => file.path).sort();
  assert.deepEqual(files, ['index.d.ts', 'index.js', 'package.json', `relink.${platformSuffix()}.node`]);
  const library = pack.files.find((file) => file.path.endsWith('.node'));
  assert.ok(library.size > 100_000, `${library.size} bytes`);
});

// The suffix napi-rs gives the library built here.
function platformSuffix() {
  const abi = process.platform === 'linux' ? (process.report.getReport().header.glibcVersionRuntime ? '-gnu' : '-musl') : '';
  return `${process.platform}-${process.arch}${abi}`;
}
