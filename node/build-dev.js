#!/usr/bin/env node
// Builds the package for the tests, in cargo's dev profile: the addon by a
// plain `cargo build -p relink-node`, which shares the dependencies the
// Python package's build and `cargo test` compiled (`napi build` always
// passes `--target`, and cargo then compiles every dependency again in a
// folder of its own), then index.js and index.d.ts by napi-rs's own
// generators, with the options `napi build --platform` gives them. A
// release is made with `napi build --platform --release` (npm run build).
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const { execFileSync } = require('node:child_process');
const { generateTypeDef, parseTriple, readNapiConfig, writeJsBinding } = require('@napi-rs/cli');

const here = __dirname;
const root = path.dirname(here);

// The cdylib's file name as cargo writes it on this platform.
function libraryName(name) {
  if (process.platform === 'win32') return `${name}.dll`;
  return process.platform === 'darwin' ? `lib${name}.dylib` : `lib${name}.so`;
}

async function main() {
  const metadata = JSON.parse(execFileSync('cargo', ['metadata', '--format-version', '1', '--no-deps'], { cwd: root }));
  const typeDefs = path.join(metadata.target_directory, 'napi-type-defs');
  fs.rmSync(typeDefs, { recursive: true, force: true });
  fs.mkdirSync(typeDefs, { recursive: true });
  // napi-derive writes the declarations while it compiles the crate; a new
  // value of this variable makes cargo compile it again (its build script
  // asks to be rerun when it changes), so they are always written.
  const env = { ...process.env, NAPI_TYPE_DEF_TMP_FOLDER: typeDefs, NAPI_FORCE_BUILD_RELINK_NODE: String(Date.now()) };
  execFileSync('cargo', ['build', '--quiet', '-p', 'relink-node'], { cwd: root, env, stdio: 'inherit' });

  const config = await readNapiConfig(path.join(here, 'package.json'));
  const host = execFileSync('rustc', ['-vV'], { encoding: 'utf8' }).match(/^host: (\S+)$/m)[1];
  const addon = `${config.binaryName}.${parseTriple(host).platformArchABI}.node`;
  fs.copyFileSync(path.join(metadata.target_directory, 'debug', libraryName('relink_node')), path.join(here, addon));

  const { exports, dts } = await generateTypeDef({
    typeDefDir: typeDefs,
    configDtsHeader: config.dtsHeader,
    configDtsHeaderFile: config.dtsHeaderFile,
    constEnum: config.constEnum,
    runtimeStringEnum: config.runtimeStringEnum,
    cwd: here,
    declareBindingTarget: true,
  });
  fs.writeFileSync(path.join(here, 'index.d.ts'), dts);
  await writeJsBinding({
    platform: true,
    idents: exports,
    binaryName: config.binaryName,
    packageName: config.packageName,
    version: config.packageJson.version,
    outputDir: here,
    wasiFlavors: [],
  });
}

main().catch((error) => {
  console.error(`build-dev.js: ${error.message}`);
  process.exit(1);
});
