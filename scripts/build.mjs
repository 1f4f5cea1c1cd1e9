// Builds the library package into dist/ (or the directory given as the first argument); the CLI is its own
// package, built by scripts/build-cli.mjs:
//
//   dist/**.js, **.d.ts      the library as ES modules, compiled by tsc from src/ (no source maps: the
//                            sources are not shipped, and tsc's output reads like them)
//   dist/cjs/index.js        the `require` entry: re-exports the ES module build through Node's require(esm)
//   dist/cjs/**.d.ts         the same declarations in a `"type": "commonjs"` scope, so TypeScript sees
//                            CommonJS types for `require` (node16/nodenext CJS, node10), as the runtime is
//
// Why one ES module build and not a second CommonJS copy: p-defer is ESM-only, so a CommonJS build would
// require() an ES module anyway, which needs Node 20.19+ or 22.12+ (unflagged, no warning) — the same floor
// as a require entry over the ESM build. One copy also means one module instance: a process that both
// imports and requires the package shares its classes (`instanceof LockLostError` holds either way).
import { spawnSync } from 'node:child_process';
import { cpSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const dist = resolve(process.argv[2] ?? join(root, 'dist'));

function run(cmd, args) {
  const r = spawnSync(cmd, args, { cwd: root, stdio: 'inherit' });
  if (r.status !== 0) {
    console.error(`build: ${cmd} ${args.join(' ')} failed`);
    process.exit(r.status ?? 1);
  }
}

function walk(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(join(dir, e.name)) : [join(dir, e.name)]));
}

run(process.execPath, [join(root, 'scripts', 'gen-lua.mjs')]);
rmSync(dist, { recursive: true, force: true });
run(process.execPath, [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', join(root, 'tsconfig.build.json'), '--outDir', dist]);

const cjs = join(dist, 'cjs');
for (const file of walk(dist)) {
  if (file.endsWith('.d.ts')) cpSync(file, join(cjs, relative(dist, file)));
}
writeFileSync(join(cjs, 'package.json'), `${JSON.stringify({ type: 'commonjs' }, null, 2)}\n`);
writeFileSync(
  join(cjs, 'index.js'),
  "'use strict';\n// The require() entry: the ES module build, loaded with Node's require(esm) (Node 20.19+, 22.12+).\nmodule.exports = require('../index.js');\n",
);
