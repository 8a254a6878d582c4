// docs/node.md is run: each ```js block of the page, in a folder of the
// files the page names, prints what the ```text block after it shows.
'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const { ROOT, FIXTURES } = require('./common.js');

// The files the page's examples read, by the name the page gives them.
const SANDBOX = [
  ['page.html', 'docs/page.html'],
  ['crawl.warc.gz', 'warc/site.warc.gz'],
];

// Each ```js block of the page with the ```text block that follows it.
function examples(text) {
  const blocks = [...text.matchAll(/^```(\w*)\n([\s\S]*?)^```$/gm)].map((m) => [m[1], m[2]]);
  const pairs = [];
  blocks.forEach(([lang, body], at) => {
    if (lang !== 'js') return;
    const next = blocks[at + 1];
    assert.ok(next && next[0] === 'text', `the js block ${pairs.length + 1} has no text block after it`);
    pairs.push({ code: body, output: next[1] });
  });
  return pairs;
}

test('every example of docs/node.md prints what the page shows', () => {
  const pairs = examples(fs.readFileSync(path.join(ROOT, 'docs', 'node.md'), 'utf8'));
  assert.ok(pairs.length >= 4, `${pairs.length} examples`);
  for (const [at, { code, output }] of pairs.entries()) {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'relink-docs-'));
    try {
      for (const [name, fixture] of SANDBOX) fs.copyFileSync(path.join(FIXTURES, fixture), path.join(dir, name));
      // `require('relink')` is this package, as it is once installed.
      fs.mkdirSync(path.join(dir, 'node_modules'));
      fs.symlinkSync(path.join(__dirname, '..'), path.join(dir, 'node_modules', 'relink'), 'dir');
      fs.writeFileSync(path.join(dir, 'example.js'), code);
      const run = spawnSync(process.execPath, ['example.js'], { cwd: dir, encoding: 'utf8' });
      assert.equal(run.status, 0, `example ${at + 1}: ${run.stderr}`);
      assert.equal(run.stdout, output, `example ${at + 1}`);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }
});
