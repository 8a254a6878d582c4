// The package from TypeScript: node/run-tests.sh checks this file against
// index.d.ts with `tsc --noEmit` (the files it names are examples).
import { readFileSync } from 'node:fs';
import { absolutize, links, resolve, rewrite, type LinkRow, type Options } from './index.js';

// A string gives a string, bytes give a Buffer.
const page: string = absolutize('<a href="../g">g</a>', 'http://a/b/c/d');
const bytes: Buffer = absolutize(readFileSync('page.html'), 'https://example.com/docs/');

// The rows of `relink --list --format json`, typed.
const options: Options = { base: 'https://example.com/', kind: 'html', rules: 'whatwg' };
const rows: LinkRow[] = links('<img src=logo.png>', options);
const archived: LinkRow[] = links({ path: 'crawl.warc.gz' });
const resolved: (string | null)[] = rows.map((row) => row.resolved);
const records: (number | null)[] = archived.map((row) => row.record);

// A file rewritten into another, or in place; how many documents,
// messages or records changed.
const changed: number = rewrite('crawl.warc.gz', 'crawl.abs.warc.gz', { lazy: true });

const absolute: string = resolve('http://a/b/c/d;p?q#f', '../g', 'rfc1808');

console.log(page, bytes.length, resolved, records, changed, absolute);
