// Checks the tarballs users would install: `npm pack` of the library, the CLI and the NestJS module (each prepack
// builds), then for the library @arethetypeswrong/cli (types resolve, and match the JavaScript, for node10,
// node16 CJS/ESM and bundlers; the same for redisson-ts-otel), and for all three publint --strict (exports, files, fields; warnings count as
// errors). The CLI has nothing to import, so attw has nothing to check there. Exits non-zero on any problem.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const bin = (name) => join(root, 'node_modules', '.bin', name);
const dir = mkdtempSync(join(tmpdir(), 'redisson-ts-check-'));

function step(title, cmd, args, { quiet = false, cwd = root } = {}) {
  console.log(`== ${title}`);
  const r = spawnSync(cmd, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
  if (r.stdout && !quiet) process.stdout.write(r.stdout);
  return r;
}

let failed = false;
try {
  const pack = (cwd) => {
    const r = step(`npm pack (${cwd === root ? 'library' : cwd.endsWith('otel') ? 'OpenTelemetry package' : cwd.endsWith('nestjs') ? 'NestJS module' : 'CLI'})`, 'npm', ['pack', '--json', '--pack-destination', dir], { quiet: true, cwd });
    if (r.status !== 0) throw new Error('npm pack failed');
    const [{ filename, size, unpackedSize, entryCount }] = JSON.parse(r.stdout.slice(r.stdout.indexOf('[')));
    console.log(`${filename}: ${entryCount} files, ${size} bytes packed, ${unpackedSize} unpacked`);
    return join(dir, filename);
  };
  const tarball = pack(root);
  const cliTarball = pack(join(root, 'packages', 'cli'));
  // redisson-ts-otel is ESM only (`require` of it is Node's require(esm)): attw's esm-only profile.
  const otelTarball = pack(join(root, 'packages', 'otel'));
  // The NestJS module (CommonJS, declarations) is imported: attw and publint both.
  const nestTarball = pack(join(root, 'packages', 'nestjs'));
  for (const [title, cmd, args] of [
    ['attw (library)', bin('attw'), [tarball, '--format', 'table-flipped']],
    ['publint (library)', bin('publint'), ['run', tarball, '--strict']],
    ['publint (CLI)', bin('publint'), ['run', cliTarball, '--strict']],
    ['attw (OpenTelemetry package)', bin('attw'), [otelTarball, '--format', 'table-flipped', '--profile', 'esm-only']],
    ['publint (OpenTelemetry package)', bin('publint'), ['run', otelTarball, '--strict']],
    ['attw (NestJS module)', bin('attw'), [nestTarball, '--format', 'table-flipped']],
    ['publint (NestJS module)', bin('publint'), ['run', nestTarball, '--strict']],
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
