// The four functions as the Python package has them: what they take and
// give, their warnings and their errors.
'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const relink = require('..');
const { ROOT, FIXTURES, cli, withWarnings } = require('./common.js');

// The rows of a fixture's .tsv table below its header, `#` lines skipped.
function table(name) {
  const lines = fs.readFileSync(path.join(FIXTURES, name), 'utf8').split('\n');
  return lines.filter((line) => line && !line.startsWith('#')).slice(1).map((line) => line.split('\t'));
}

test('resolve gives every example of RFC 1808 and each rule set its own answer', () => {
  const examples = table('rfc1808.tsv');
  assert.ok(examples.length > 30);
  for (const [base, reference, expected] of examples) {
    assert.equal(relink.resolve(base, reference), expected, reference);
    assert.equal(relink.resolve(base, reference, 'rfc1808'), expected, reference);
  }
  const rules = table('rules.tsv');
  assert.ok(rules.length > 5);
  for (const [base, reference, ...answers] of rules) {
    ['rfc1808', 'rfc3986', 'whatwg'].forEach((name, at) => {
      if (answers[at] === '(error)') assert.throws(() => relink.resolve(base, reference, name), Error);
      else assert.equal(relink.resolve(base, reference, name), answers[at], `${name} ${reference}`);
    });
  }
});

test('resolve throws the command line message for a bad base or rules name', () => {
  const said = cli(['resolve', 'no-scheme', 'g']).stderr;
  assert.throws(() => relink.resolve('no-scheme', 'g'), (error) => {
    assert.ok(error instanceof Error);
    assert.ok(said.includes(error.message), `${said} has not ${error.message}`);
    return error.code === 'ERR_RELINK';
  });
  assert.throws(() => relink.resolve('http://a/', 'g', 'rfc9999'), /rfc9999/);
});

test('absolutize gives a string for a string, a Buffer for bytes, the bytes of the command line', () => {
  const page = path.join(FIXTURES, 'html', 'windows-1252.html');
  const base = 'http://example.test/d/';
  const bytes = fs.readFileSync(page);
  const expected = cli(['--retrieved-from', base, page]);
  assert.equal(expected.status, 0, expected.stderr);
  const out = relink.absolutize(bytes, base);
  assert.ok(Buffer.isBuffer(out));
  assert.ok(!out.equals(bytes));
  // Byte for byte the command line's output, in the page's own encoding.
  const run = require('node:child_process').spawnSync(process.env.RELINK_BIN || path.join(ROOT, 'target', 'debug', 'relink'), ['--retrieved-from', base, page]);
  assert.ok(out.equals(run.stdout));
  assert.ok(relink.absolutize(new Uint8Array(bytes), base).equals(run.stdout));

  const text = '<p>Caf\u00e9 <a href="../caf\u00e9.html">x</a> <img src=i.png></p>';
  assert.equal(
    relink.absolutize(text, 'http://a/b/c/'),
    '<p>Caf\u00e9 <a href="http://a/b/caf\u00e9.html">x</a> <img src=http://a/b/c/i.png></p>',
  );
  // A string is text: what it declares does not change how it is read.
  const declared = '<meta charset="windows-1252"><a href="caf\u00e9.html">\u00e9</a>';
  assert.equal(
    relink.absolutize(declared, 'http://a/d/'),
    '<meta charset="windows-1252"><a href="http://a/d/caf\u00e9.html">\u00e9</a>',
  );
  // Nothing to change: the same text, a Buffer of the same bytes.
  assert.equal(relink.absolutize('<p>none</p>', 'http://a/'), '<p>none</p>');
  const unchanged = Buffer.from('<a href="http://x/">x</a>');
  assert.ok(relink.absolutize(unchanged, 'http://a/').equals(unchanged));
});

test('absolutize takes the rule set and lazy-loading attributes', () => {
  const page = '<a href="?">q</a><img data-src="i.png">';
  const base = 'http://a/b/c/d;p?q#f';
  assert.equal(relink.absolutize(page, base), '<a href="http://a/b/c/d;p?q">q</a><img data-src="i.png">');
  assert.equal(
    relink.absolutize(page, base, { rules: 'whatwg', lazy: true }),
    '<a href="http://a/b/c/d;p?">q</a><img data-src="http://a/b/c/i.png">',
  );
  assert.throws(() => relink.absolutize(page, 'not a url'), /not a url/);
});

test('a loop of absolutize calls holds no Buffer past its use', () => {
  // Each output is freed by the collector, not by a finalizer that waits
  // for the event loop to turn: 400 outputs of 320 KB would be 130 MB.
  const page = Buffer.from(`<a href=x>x</a><p>${'text '.repeat(1 << 16)}</p>`);
  const before = process.memoryUsage().rss;
  for (let i = 0; i < 400; i++) relink.absolutize(page, 'http://a/');
  const grown = process.memoryUsage().rss - before;
  assert.ok(grown < (400 * page.length) / 2, `${(grown / 1e6).toFixed(0)} MB more`);
});

test('absolutize reads a string as UTF-8, a lone surrogate as U+FFFD', () => {
  const page = '\ud800<a href="\u00e9\ud83d\ude00">\ud83d\ude00</a>\udc00';
  assert.equal(relink.absolutize(page, 'http://a/'), '\ufffd<a href="http://a/\u00e9\ud83d\ude00">\ud83d\ude00</a>\ufffd');
  assert.equal(relink.absolutize('', 'http://a/'), '');
  assert.equal(relink.absolutize('\u00e9\ud83d\ude00', 'http://a/'), '\u00e9\ud83d\ude00');
});

test('warnings are RelinkWarnings, emitted through process.emitWarning', async () => {
  const seen = [];
  const listener = (warning) => seen.push(warning);
  process.on('warning', listener);
  try {
    const rows = relink.links('<a href="x">x</a>');
    assert.equal(rows[0].resolved, null);
    await new Promise((resolve) => setImmediate(resolve));
  } finally {
    process.off('warning', listener);
  }
  assert.deepEqual(seen.map((w) => [w.name, w.message]), [['RelinkWarning', 'no base url: links left as they are']]);
});

test('links reads a string, bytes or a file, its kind found as the command line finds it', () => {
  const file = path.join(FIXTURES, 'mail', 'base-header.eml');
  const fromFile = relink.links({ path: file }, { base: 'http://r.test/' });
  assert.ok(fromFile.length > 0);
  assert.ok(fromFile.every((row) => row.file === file && row.resolved !== null));
  const fromBytes = relink.links(fs.readFileSync(file), { base: 'http://r.test/' });
  assert.deepEqual(fromBytes, fromFile.map((row) => ({ ...row, file: null })));
  const fromText = relink.links(fs.readFileSync(file, 'utf8'), { base: 'http://r.test/' });
  assert.deepEqual(fromText, fromBytes);
  const css = relink.links('a { background: url(i.png) }', { base: 'http://a/b/', kind: 'css' });
  assert.equal(css[0].resolved, 'http://a/b/i.png');
});

test('links gives every row of a page whole, whatever its text holds', () => {
  const href = 'q&quot;b\\c&#1;\t\u00e9\ud83d\ude00';
  const rows = relink.links(`<a href="${href}">x</a>`, { base: 'http://h/\u00e9/' });
  assert.deepEqual(
    rows.map((row) => [row.original, row.resolved, row.base]),
    [['q"b\\c\u0001\t\u00e9\ud83d\ude00', 'http://h/\u00e9/q"b\\c\u0001\u00e9\ud83d\ude00', 'http://h/\u00e9/']],
  );
  // Thousands of rows, in their order, each a plain object.
  const many = relink.links(Buffer.from('<a href=x>x</a>\n'.repeat(5000)), { base: 'http://h/' });
  assert.deepEqual(many.map((row) => row.line), Array.from({ length: 5000 }, (_, i) => i + 1));
  assert.ok(many.every((row) => Object.getPrototypeOf(row) === Object.prototype && row.resolved === 'http://h/x'));
});

test('links throws for what it cannot read, never gives nothing for the wrong kind', () => {
  const missing = path.join(os.tmpdir(), 'relink-none-such.html');
  const said = cli(['--list', '--format', 'json', missing]).stderr.split('\n')[0];
  assert.throws(() => relink.links({ path: missing }), (error) => {
    assert.equal(`relink: error: ${error.message}`, said);
    return error.code === 'ENOENT';
  });
  assert.throws(() => relink.links('<a href=x>', { kind: 'warc' }), /not a web archive \(WARC or ARC\): it reads as html/);
  assert.throws(() => relink.links('<a href=x>', { kind: 'mbox' }), /not an mbox: it reads as html/);
  assert.throws(() => relink.links('<a href=x>', { kind: 'nothing' }), /unknown kind 'nothing'/);
  const warc = path.join(FIXTURES, 'corpus', 'warc', 'python-tutorial.warc.gz');
  assert.throws(() => relink.links({ path: warc }, { kind: 'html' }), /archive/);
  assert.throws(() => relink.links(42), Error);
});

test('rewrite writes what the command line writes, whole or not at all', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'relink-node-'));
  try {
    const warc = path.join(FIXTURES, 'corpus', 'warc', 'python-tutorial.warc.gz');
    const dst = path.join(dir, 'out.warc.gz');
    const { value: changed, warnings } = withWarnings(() => relink.rewrite(warc, dst));
    assert.ok(changed > 10, `${changed}`);
    assert.deepEqual(warnings, []);
    const run = require('node:child_process').spawnSync(process.env.RELINK_BIN || path.join(ROOT, 'target', 'debug', 'relink'), [warc], { maxBuffer: 1 << 30 });
    assert.ok(fs.readFileSync(dst).equals(run.stdout));

    // A page in place, against a base; a second pass changes nothing.
    const page = path.join(dir, 'page.html');
    fs.writeFileSync(page, '<a href="x">x</a>');
    assert.equal(relink.rewrite(page, page, { base: 'http://a/b/' }), 1);
    assert.equal(fs.readFileSync(page, 'utf8'), '<a href="http://a/b/x">x</a>');
    assert.equal(relink.rewrite(page, page, { base: 'http://a/b/' }), 0);

    // A failure leaves the destination as it was, and no file beside it.
    fs.writeFileSync(dst, 'before');
    assert.throws(() => relink.rewrite(path.join(dir, 'none.html'), dst), (e) => e.code === 'ENOENT');
    assert.throws(() => relink.rewrite(page, dst, { kind: 'warc' }), /not a web archive/);
    assert.throws(() => relink.rewrite(page, dst, { base: 'nowhere' }), /nowhere/);
    assert.equal(fs.readFileSync(dst, 'utf8'), 'before');
    assert.throws(() => relink.rewrite(page, dir), (e) => e.message.startsWith(`${dir}: `));
    assert.deepEqual(fs.readdirSync(dir).sort(), ['out.warc.gz', 'page.html']);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
