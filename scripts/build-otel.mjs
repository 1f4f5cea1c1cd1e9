// Builds the OpenTelemetry package (packages/otel, published as redisson-ts-otel) into packages/otel/dist
// with tsc. It imports the library by its package name; the library is built first (scripts/build.mjs) and
// packages/otel/tsconfig.build.json reads its declarations from dist/, so the output keeps the bare import.
// Also the package's prepack (its LICENSE is a committed copy of the repository's).
//
import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const otel = join(root, 'packages', 'otel');

function run(cmd, args) {
  const r = spawnSync(cmd, args, { cwd: root, stdio: 'inherit' });
  if (r.status !== 0) {
    console.error(`build-otel: ${cmd} ${args.join(' ')} failed`);
    process.exit(r.status ?? 1);
  }
}

// REDISSON_TS_LIBRARY_BUILT=1: the caller has just built the library into dist/ (test/support/pack.ts packs
// the library first in the same copy), so it is not built twice.
if (process.env.REDISSON_TS_LIBRARY_BUILT !== '1') run(process.execPath, [join(root, 'scripts', 'build.mjs')]);
rmSync(join(otel, 'dist'), { recursive: true, force: true });
run(process.execPath, [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', join(otel, 'tsconfig.build.json')]);
