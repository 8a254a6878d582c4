#!/usr/bin/env node
// The speed of the package beside the Rust library's, on the real pages
// of fixtures/pages/real/ (gunzipped once, each against a URL of its own):
// `absolutize` (a Buffer in, a Buffer out, and a string in, a string out)
// and `links`, in MB/s of input, each beside what the Rust library does
// with the same pages (`examples/bench.rs`). Builds both for release
// first. Not run by the tests: `node node/bench.js [SECONDS]`.
'use strict';
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const zlib = require('node:zlib');
const { execFileSync } = require('node:child_process');

const here = __dirname;
const root = path.dirname(here);
const seconds = Number(process.argv[2] || 5);

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

// The MB/s `work` gets through the pages, after one pass to warm up.
function measure(list, work) {
  for (const page of list) work(page);
  const start = process.hrtime.bigint();
  let bytes = 0;
  let elapsed = 0;
  while (elapsed < seconds) {
    for (const page of list) {
      work(page);
      bytes += page.bytes.length;
    }
    elapsed = Number(process.hrtime.bigint() - start) / 1e9;
  }
  return bytes / 1e6 / elapsed;
}

function main() {
  const bin = build();
  const relink = require(here);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'relink-bench-'));
  try {
    const list = pages(dir);
    const total = list.reduce((sum, page) => sum + page.bytes.length, 0);
    console.log(`${list.length} real pages, ${(total / 1e6).toFixed(1)} MB, ${seconds} s a figure`);
    const rust = Object.fromEntries(
      execFileSync(bin, [String(seconds), ...list.map((page) => page.file)], { encoding: 'utf8' })
        .trim().split('\n').map((line) => line.split(' ')).map(([name, mbps]) => [name, Number(mbps)]),
    );
    // Warnings are emitted, as users get them, but not printed.
    process.removeAllListeners('warning');
    const figures = [
      ['absolutize (Buffer)', measure(list, (p) => relink.absolutize(p.bytes, p.url)), rust.absolutize],
      ['absolutize (string)', measure(list, (p) => relink.absolutize(p.text, p.url)), rust.absolutize],
      ['links (Buffer)', measure(list, (p) => relink.links(p.bytes, { base: p.url })), rust.links],
    ];
    console.log('what                  Node MB/s  Rust MB/s  Node/Rust');
    for (const [what, node, r] of figures) {
      console.log(`${what.padEnd(20)} ${node.toFixed(2).padStart(10)} ${r.toFixed(2).padStart(10)} ${(100 * node / r).toFixed(0).padStart(9)}%`);
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

main();
