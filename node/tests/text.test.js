// Strings and rows as the package converts them: a string's UTF-16 to
// and from the UTF-8 relink reads (runs of ASCII taken sixteen units at
// a time), and links' rows made from columns and one string of texts
// (offsets in UTF-16 units, texts shared between rows).
'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const relink = require('..');

// Texts of every width, around and across the sixteen-unit runs.
const PIECES = ['a', 'x'.repeat(15), 'y'.repeat(16), 'z'.repeat(17), '\u00e9', '\u00ff', '\u0100', '\u65e5\u672c', '\ud83d\ude00', '\u2014', '\u007f', '\u0080'];

// A page of links and text made of `count` pieces, each chosen by `pick`.
function page(count, pick) {
  let out = '<!doctype html><title>t</title>';
  for (let i = 0; i < count; i++) {
    const text = PIECES[pick(i) % PIECES.length];
    out += `<a href="${text}/${i}">${text}</a>${PIECES[pick(i + 7) % PIECES.length].repeat(i % 5)}\n`;
  }
  return out;
}

test('a string gives the text its UTF-8 bytes give, whatever its characters', () => {
  for (const [count, pick] of [[1, (i) => i], [40, (i) => i], [200, (i) => i * 7 + 3], [64, (i) => (i * i) % 13]]) {
    const text = page(count, pick);
    const fromBytes = relink.absolutize(Buffer.from(text), 'http://h/d/').toString('utf8');
    assert.notEqual(fromBytes, text);
    assert.equal(relink.absolutize(text, 'http://h/d/'), fromBytes);
    // Unchanged, the text itself.
    const plain = text.replace(/href="/g, 'title="');
    assert.equal(relink.absolutize(plain, 'http://h/d/'), plain);
  }
  // Only Latin-1 beyond ASCII, and nothing beyond it.
  for (const text of ['<a href=\u00e9>\u00ff</a>'.repeat(30), '<a href=b>c</a>'.repeat(30)]) {
    assert.equal(relink.absolutize(text, 'http://h/'), relink.absolutize(Buffer.from(text), 'http://h/').toString());
  }
});

test('a lone surrogate anywhere in a run is U+FFFD, a pair split by nothing stays whole', () => {
  const ascii = 'p'.repeat(20);
  for (const lone of ['\ud800', '\udc00', '\udbff']) {
    const text = `${ascii}${lone}${ascii}<a href="${lone}x">${lone}</a>${lone}`;
    const expected = text.replaceAll(lone, '\ufffd').replace('href="\ufffdx"', 'href="http://h/\ufffdx"');
    assert.equal(relink.absolutize(text, 'http://h/'), expected);
  }
  assert.equal(relink.absolutize(`${ascii}\ud83d\ude00<a href=x>`, 'http://h/'), `${ascii}\ud83d\ude00<a href=http://h/x>`);
});

test('links gives each row its own texts, found at their UTF-16 offsets', () => {
  const count = 300;
  const pick = (i) => i * 5 + 1;
  const rows = relink.links(page(count, pick), { base: 'http://h/\u00e9/' });
  assert.equal(rows.length, count);
  rows.forEach((row, i) => {
    const text = PIECES[pick(i) % PIECES.length];
    assert.equal(row.original, `${text}/${i}`);
    assert.equal(row.resolved, `http://h/\u00e9/${text}/${i}`);
    assert.equal(row.base, 'http://h/\u00e9/');
    assert.deepEqual([row.element, row.attribute, row.base_from, row.changed, row.file], ['a', 'href', '--retrieved-from', true, null]);
    assert.equal(row.line, i + 1);
  });
  // No base: every row's base and resolved are null, its original kept.
  const bare = relink.links(page(20, pick));
  assert.ok(bare.every((row, i) => row.base === null && row.resolved === null && row.original.endsWith(`/${i}`)));
  assert.deepEqual(relink.links(''), []);
});

test('links gives each call its own rows, short texts shared or not', () => {
  // Thousands of distinct short texts, each twice and apart, and empty
  // ones: each row has its own, whatever the rows before held.
  const hrefs = Array.from({ length: 6000 }, (_, i) => (i % 7 === 0 ? '' : `#${i % 3000}`));
  const html = hrefs.map((href) => `<a href="${href}">x</a>`).join('\n');
  const big = relink.links(html, { base: 'http://h/' });
  assert.deepEqual(big.map((row) => row.original), hrefs);
  assert.deepEqual(big.map((row) => row.resolved), hrefs.map((href) => `http://h/${href}`));
  // A smaller input after a bigger one gives its rows only.
  const small = relink.links('<img src="s.png">', { base: 'http://h/' });
  assert.deepEqual(small.map((row) => [row.element, row.attribute, row.original, row.line]), [['img', 'src', 's.png', 1]]);
  assert.deepEqual(relink.links('x'), []);
  assert.equal(relink.links(html, { base: 'http://h/' }).length, hrefs.length);
  // More rows than the array kept between calls holds (2^20 numbers).
  const lines = 75000;
  const huge = relink.links(Buffer.from('<a href=x>x</a>\n'.repeat(lines)), { base: 'http://h/' });
  assert.deepEqual([huge.length, huge[lines - 1].line, huge[lines - 1].resolved], [lines, lines, 'http://h/x']);
  assert.deepEqual(relink.links('<a href=y>', { base: 'http://h/' }).map((row) => row.resolved), ['http://h/y']);
});

test('links and absolutize work in a worker thread as in the main one', async () => {
  // The function that makes the rows is kept per environment: a worker
  // has its own, and the main thread's still works after it ends.
  const { Worker } = require('node:worker_threads');
  const code = `
    const { parentPort, workerData } = require('node:worker_threads');
    const relink = require(workerData);
    const rows = relink.links('<a href="\\u00e9">x</a><img src=i.png>', { base: 'http://h/' });
    parentPort.postMessage([rows, relink.absolutize('<a href=\\u65e5>', 'http://h/')]);`;
  const got = await new Promise((resolve, reject) => {
    const worker = new Worker(code, { eval: true, workerData: require.resolve('..') });
    worker.once('message', resolve);
    worker.once('error', reject);
  });
  const [rows, page] = got;
  assert.deepEqual(rows.map((row) => [row.element, row.resolved]), [['a', 'http://h/\u00e9'], ['img', 'http://h/i.png']]);
  assert.equal(page, '<a href=http://h/\u65e5>');
  assert.deepEqual(relink.links('<a href=x>', { base: 'http://h/' }).map((row) => row.resolved), ['http://h/x']);
});
