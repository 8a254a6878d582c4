#!/usr/bin/env node
// The speed of the package beside the Rust library's, on the real pages
// of fixtures/pages/real/ (gunzipped once, each against a URL of its own):
// `absolutize` (a Buffer in, a Buffer out, and a string in, a string out)
// and `links`, in MB/s of input, each beside what the Rust library does
// with the same pages (`examples/bench.rs`). The two sides take turns
// (Node, Rust, Node, Rust...) for ROUNDS rounds and each figure is the
// median of its rounds, by the clock and by the CPU time the process had
// (on a shared machine, the steadier of the two), with what V8 alone
// costs for the strings and objects Node makes and Rust does not, and
// the bound it sets. Builds both for release first. Not run by the tests: `node node/bench.js [SECONDS]
// [ROUNDS]`.
'use strict';
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const zlib = require('node:zlib');
const { execFileSync } = require('node:child_process');

const here = __dirname;
const root = path.dirname(here);
const seconds = Number(process.argv[2] || 3);
const rounds = Number(process.argv[3] || 3);

// The host's target triple, which napi-rs builds for (its builds go under
// target/TRIPLE/): the Rust side is built there too, on the same build.
const triple = execFileSync('rustc', ['-vV'], { encoding: 'utf8' }).match(/^host: (\S+)$/m)[1];

// Builds the package and the Rust side for release; gives the Rust side.
function build() {
  const quiet = { cwd: here, stdio: ['ignore', 'ignore', 'inherit'] };
  execFileSync('npx', ['napi', 'build', '--platform', '--release'], quiet);
  const example = ['build', '--quiet', '--release', '--target', triple, '-p', 'relink-node', '--example', 'bench'];
  execFileSync('cargo', example, quiet);
  const metadata = execFileSync('cargo', ['metadata', '--format-version', '1', '--no-deps'], { cwd: root });
  return path.join(JSON.parse(metadata).target_directory, triple, 'release', 'examples', 'bench');
}

// The real pages, gunzipped into a folder the Rust side reads them from.
function pages(dir) {
  const real = path.join(root, 'fixtures', 'pages', 'real');
  const manifest = fs.readFileSync(path.join(real, 'MANIFEST.tsv'), 'utf8').split('\n').slice(1).filter(Boolean);
  return manifest.map((line) => {
    const file = line.split('\t')[0];
    const name = file.replace(/\.gz$/, '').replace(/\//g, '_');
    const bytes = zlib.gunzipSync(fs.readFileSync(path.join(real, file)));
    fs.writeFileSync(path.join(dir, name), bytes);
    return { file: path.join(dir, name), bytes, text: bytes.toString('utf8'), url: `https://example.test/pages/${name}` };
  });
}

// The MB/s (by the clock, by CPU time) `work` gets through the pages,
// after one pass to warm up.
function measure(list, work) {
  for (const page of list) work(page);
  const start = process.hrtime.bigint();
  const cpu = process.cpuUsage();
  let bytes = 0;
  let elapsed = 0;
  while (elapsed < seconds) {
    for (const page of list) {
      work(page);
      bytes += page.bytes.length;
    }
    elapsed = Number(process.hrtime.bigint() - start) / 1e9;
  }
  const used = process.cpuUsage(cpu);
  return [bytes / 1e6 / elapsed, bytes / (used.user + used.system)];
}

// The Rust side's MB/s (by the clock, by CPU time) for `what`.
function rust(bin, what, list) {
  const out = execFileSync(bin, [what, String(seconds), ...list.map((page) => page.file)], { encoding: 'utf8' });
  return out.trim().split(' ').map(Number);
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

function main() {
  const bin = build();
  const relink = require(here);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'relink-bench-'));
  try {
    const list = pages(dir);
    const total = list.reduce((sum, page) => sum + page.bytes.length, 0);
    console.log(`${list.length} real pages, ${(total / 1e6).toFixed(1)} MB, ${seconds} s a figure, ${rounds} rounds`);
    // Warnings are emitted, as users get them, but not printed.
    process.removeAllListeners('warning');
    // Each with the Rust side doing the same library work: `links` is
    // told the kind, as examples/bench.rs tells it, and the Rust side
    // makes the same rows, owned.
    // And with what V8 alone costs where Node must make what Rust does
    // not, in plain JavaScript without relink: a string's text copied
    // out as UTF-16 and a string made of it again (what absolutize does
    // at the least), and the rows' objects made from their values held
    // ready. With the Rust side's time, it bounds Node's share.
    const functions = [
      ['absolutize (Buffer)', (p) => relink.absolutize(p.bytes, p.url), 'absolutize'],
      [
        'absolutize (string)',
        (p) => relink.absolutize(p.text, p.url),
        'absolutize',
        (p) => Buffer.from(p.text, 'utf16le').ucs2Slice(),
      ],
      [
        'links (Buffer)',
        (p) => relink.links(p.bytes, { base: p.url, kind: 'html' }),
        'links',
        (p) => p.rows.map((row) => ({ ...row })),
      ],
    ];
    console.log('what                   Node MB/s  Rust MB/s  Node/Rust   CPU: Node   Rust  Node/Rust');
    const ratio = (a, b) => `${(100 * a / b).toFixed(0)}%`.padStart(9);
    const line = (what, n, r) =>
      console.log(
        `${what.padEnd(20)} ${n[0].toFixed(1).padStart(10)} ${r[0].toFixed(1).padStart(10)} ${ratio(n[0], r[0])}` +
          `  ${n[1].toFixed(1).padStart(10)} ${r[1].toFixed(1).padStart(6)} ${ratio(n[1], r[1])}`,
      );
    // V8 alone is measured after all the rest: the rows it holds ready
    // would slow the collector for the rounds after.
    const rustMedians = [];
    const medians = (runs) => [0, 1].map((i) => median(runs.map((run) => run[i])));
    for (const [what, work, side] of functions) {
      const node = [];
      const other = [];
      for (let round = 0; round < rounds; round++) {
        node.push(measure(list, work));
        other.push(rust(bin, side, list));
      }
      const [n, r] = [node, other].map(medians);
      rustMedians.push(r);
      line(what, n, r);
    }
    functions.forEach(([what, , , alone], at) => {
      if (!alone) return;
      const v8 = [];
      for (let round = 0; round < rounds; round++) {
        for (const page of list) page.rows = relink.links(page.bytes, { base: page.url, kind: 'html' });
        v8.push(measure(list, alone));
        for (const page of list) page.rows = null;
      }
      // The Rust side's time and V8's alone, added: the most Node gets.
      const [f, r] = [medians(v8), rustMedians[at]];
      line(`${what.split(' ')[0]}: V8 alone`, f, r);
      line('  with Rust, at most', [0, 1].map((i) => 1 / (1 / r[i] + 1 / f[i])), r);
    });
    console.log(`load: ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}`);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

main();
