// Checks the tarball users would install: `npm pack` (whose prepack step builds), then
// @arethetypeswrong/cli (types resolve, and match the JavaScript, for node10, node16 CJS/ESM and bundlers)
// and publint --strict (exports, files, fields; warnings count as errors). Exits non-zero on any problem.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const bin = (name) => join(root, 'node_modules', '.bin', name);
const dir = mkdtempSync(join(tmpdir(), 'redisson-ts-check-'));

function step(title, cmd, args, { quiet = false } = {}) {
  console.log(`== ${title}`);
  const r = spawnSync(cmd, args, { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
  if (r.stdout && !quiet) process.stdout.write(r.stdout);
  return r;
}

let failed = false;
try {
  const pack = step('npm pack', 'npm', ['pack', '--json', '--pack-destination', dir], { quiet: true });
  if (pack.status !== 0) throw new Error('npm pack failed');
  const [{ filename, size, unpackedSize, entryCount }] = JSON.parse(pack.stdout.slice(pack.stdout.indexOf('[')));
  const tarball = join(dir, filename);
  console.log(`${filename}: ${entryCount} files, ${size} bytes packed, ${unpackedSize} unpacked`);
  for (const [title, cmd, args] of [
    ['attw', bin('attw'), [tarball, '--format', 'table-flipped']],
    ['publint', bin('publint'), ['run', tarball, '--strict']],
  ]) {
    if (step(title, cmd, args).status !== 0) failed = true;
  }
} catch (error) {
  console.error(String(error));
  failed = true;
} finally {
  rmSync(dir, { recursive: true, force: true });
}
if (failed) {
  console.error('check-package: the packed tarball has problems (see above)');
  process.exit(1);
}
