// One front door: for every fixture, whatever its kind, links() gives the
// rows, the warnings and the errors the command line's `--list --format
// json` gives, key for key.
'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const relink = require('..');
const { ROOT, cli, everyFixture, withWarnings } = require('./common.js');

const BASE = 'http://example.test/d/';

// What the command line says of each file, from one run over all of them
// (each file named on the command line has the same --retrieved-from):
// its rows, and its warnings and errors without the file's name.
function cliRuns(files) {
  const run = cli(['--list', '--format', 'json', '--retrieved-from', BASE, ...files]);
  const said = new Map(files.map((file) => [file, { rows: [], warnings: [], errors: [] }]));
  for (const line of run.stdout.split('\n').filter(Boolean)) {
    const row = JSON.parse(line);
    said.get(row.file).rows.push(row);
  }
  for (const line of run.stderr.split('\n')) {
    for (const [what, key] of [['warning', 'warnings'], ['error', 'errors']]) {
      const prefix = `relink: ${what}: `;
      if (!line.startsWith(prefix)) continue;
      const rest = line.slice(prefix.length);
      const file = files.find((f) => rest.startsWith(`${f}: `));
      if (file) said.get(file)[key].push(rest.slice(file.length + 2));
    }
  }
  return said;
}

function nodeRun(file) {
  const { value, error, warnings } = withWarnings(() => relink.links({ path: file }, { base: BASE }));
  const errors = error ? [error.message.replace(`${file}: `, '')] : [];
  if (error && !(error instanceof Error)) throw error;
  return { rows: value || [], warnings, errors };
}

test('every fixture gives the command line rows, warnings and errors', () => {
  const files = everyFixture().map((file) => path.relative(ROOT, file));
  process.chdir(ROOT);
  const said = cliRuns(files);
  const differ = [];
  let found = 0;
  for (const file of files) {
    const expected = said.get(file);
    const got = nodeRun(file);
    try {
      assert.deepStrictEqual(got, expected);
    } catch {
      differ.push(`${file}: ${JSON.stringify([expected.warnings, expected.errors, expected.rows.length])} != ${JSON.stringify([got.warnings, got.errors, got.rows.length])}`);
    }
    found += Number(expected.rows.length + expected.warnings.length + expected.errors.length > 0);
  }
  assert.deepEqual(differ.slice(0, 20), []);
  // The comparison is not empty: rows, warnings or errors for most files.
  assert.ok(found > files.length / 2, `${found} of ${files.length}`);
});

test('rows have the keys of the command line JSON, in its order, as index.d.ts declares them', () => {
  const file = path.join('fixtures', 'corpus', 'pages');
  const page = fs.readdirSync(path.join(ROOT, file)).find((name) => name.endsWith('.html'));
  const run = cli(['--list', '--format', 'json', '--retrieved-from', BASE, path.join(ROOT, file, page)]);
  const keys = Object.keys(JSON.parse(run.stdout.split('\n')[0]));
  const rows = relink.links(fs.readFileSync(path.join(ROOT, file, page)), { base: BASE });
  assert.ok(rows.length > 0);
  for (const row of rows) assert.deepEqual(Object.keys(row), keys);
  const types = fs.readFileSync(path.join(__dirname, '..', 'index.d.ts'), 'utf8');
  const declared = types.split('export interface LinkRow {')[1].split('\n}')[0];
  const names = [...declared.matchAll(/^  (\w+): /gm)].map((m) => m[1]);
  assert.deepEqual(names, keys);
});

test('the kinds index.d.ts declares are those the command line takes', () => {
  const run = cli(['--type', 'none-such', 'x']);
  const kinds = run.stderr.match(/possible values: ([^\]]+)\]/)[1].split(', ');
  const types = fs.readFileSync(path.join(__dirname, '..', 'index.d.ts'), 'utf8');
  const declared = types.match(/kind\?: ([^\n]+)/)[1].split(' | ').map((k) => k.replace(/'/g, ''));
  assert.deepEqual(declared, kinds);
});
