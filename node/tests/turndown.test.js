// relink before turndown: a page's links made absolute, then the page made
// Markdown; every link and image of the Markdown is absolute.
'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const zlib = require('node:zlib');
const TurndownService = require('turndown');
const relink = require('..');
const { FIXTURES, withWarnings } = require('./common.js');

// A quarter of the real pages of fixtures/pages/real/postlight (turndown
// takes a while over each), each with a URL of its own to be retrieved
// from.
function realPages() {
  const dir = path.join(FIXTURES, 'pages', 'real', 'postlight');
  return fs.readdirSync(dir)
    .filter((name) => name.endsWith('.html.gz'))
    .sort()
    .filter((_, at) => at % 4 === 0)
    .map((name) => ({
      html: zlib.gunzipSync(fs.readFileSync(path.join(dir, name))).toString('utf8'),
      url: `https://${name.replace(/\.html\.gz$/, '')}/some/article/`,
    }));
}

// The destinations of the Markdown's links and images: `[text](URL)` and
// `![alt](URL "title")`, as turndown writes them, trimmed as a browser
// trims a link.
function destinations(markdown) {
  return [...markdown.matchAll(/\]\((<[^>]*>|[^\s()]*(?:\([^\s()]*\)[^\s()]*)*)(?: "(?:[^"\\]|\\.)*")?\)/g)].map((m) => m[1].replace(/^<(.*)>$/, '$1').trim());
}

const ABSOLUTE = /^[a-zA-Z][a-zA-Z0-9+.-]*:/;

test('every link of the Markdown turndown makes of an absolutized page is absolute', () => {
  const turndown = new TurndownService();
  // Scripts and styles are no text to convert (turndown keeps their text).
  turndown.remove(['script', 'style', 'noscript', 'template']);
  const pages = realPages();
  assert.ok(pages.length > 10);
  let links = 0;
  let relative = 0;
  for (const { html, url } of pages) {
    const { value: absolute } = withWarnings(() => relink.absolutize(html, url));
    const markdown = turndown.turndown(absolute);
    const found = destinations(markdown).filter((d) => d !== '' && !d.startsWith('#'));
    const before = destinations(turndown.turndown(html)).filter((d) => d !== '' && !d.startsWith('#'));
    relative += before.filter((d) => !ABSOLUTE.test(d)).length;
    links += found.length;
    assert.deepEqual(found.filter((d) => !ABSOLUTE.test(d)), [], url);
  }
  // The pages had relative links to make absolute, and many links.
  assert.ok(relative > 50, `${relative} relative links before`);
  assert.ok(links > 500, `${links} links`);
});
