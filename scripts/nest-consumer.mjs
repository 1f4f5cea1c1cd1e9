/* global fetch */
// The "done when" of issue 27: a fresh `nest new`-shaped application (Jest, CommonJS;
// packages/nestjs/test/consumer) installs the PACKED redisson-ts and redisson-ts-nestjs tarballs and
//   1. type-checks and builds (tsc), then runs dist/main.js under plain Node against a real redis-server
//      (GET /busy/:id answers, SIGTERM shuts it down);
//   2. runs its Jest e2e test (test/app.e2e-spec.ts, ts-jest).
//
//   node scripts/nest-consumer.mjs [--nest=11|12] [--esm] [--keep] [--library-dir=DIR]
//
// --esm uses packages/nestjs/test/consumer-esm instead: the application NestJS 12's `nest new` makes by
// default (`"type": "module"`, Vitest), whose e2e test runs under Vitest.
//
// --library-dir packs redisson-ts from another checkout (with its node_modules installed) instead of this one.
//
// NestJS 12 is ES modules only; a CommonJS app loads it through Node's require(esm) (Node 20.19+), which
// Jest's own module loader does only on Node 24.9+, so under --nest=12 (CommonJS) the Jest step is reported,
// not required; --esm runs NestJS 12's default application shape (ES modules, Vitest) instead.
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, connect } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const major = (process.argv.find((a) => a.startsWith('--nest=')) ?? '--nest=11').slice('--nest='.length);
const keep = process.argv.includes('--keep');
const esm = process.argv.includes('--esm');
const libraryDir = process.argv.find((a) => a.startsWith('--library-dir='))?.slice('--library-dir='.length) ?? root;
// Exact versions, per Nest major.
const NEST = {
  11: { '@nestjs/common': '11.2.12', '@nestjs/core': '11.2.12', '@nestjs/platform-express': '11.2.12', '@nestjs/testing': '11.2.12' },
  12: { '@nestjs/common': '12.6.3', '@nestjs/core': '12.6.3', '@nestjs/platform-express': '12.6.3', '@nestjs/testing': '12.6.3' },
}[major];
if (!NEST) throw new Error(`--nest=${major}: 11 or 12`);

function run(cmd, args, cwd, env = {}) {
  console.log(`$ ${cmd} ${args.join(' ')}  (${cwd})`);
  const r = spawnSync(cmd, args, { cwd, stdio: 'inherit', env: { ...process.env, ...env } });
  return r.status ?? 1;
}
function must(status, what) {
  if (status !== 0) throw new Error(`${what} failed (exit ${status})`);
}
const freePort = () =>
  new Promise((resolve, reject) => {
    const srv = createServer().listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
    srv.on('error', reject);
  });
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
async function waitPort(port, ms) {
  const deadline = Date.now() + ms;
  for (;;) {
    const ok = await new Promise((resolve) => {
      const s = connect(port, '127.0.0.1', () => (s.destroy(), resolve(true)));
      s.on('error', () => resolve(false));
    });
    if (ok) return;
    if (Date.now() > deadline) throw new Error(`nothing listens on ${port} after ${ms} ms`);
    await sleep(100);
  }
}

const work = mkdtempSync(join(tmpdir(), `nest-consumer-${major}${esm ? '-esm' : ''}-`));
const app = join(work, 'app');
let redis;
let failed = false;
try {
  // Pack both (their prepack scripts build them).
  must(run('npm', ['pack', '--pack-destination', work], libraryDir), 'npm pack (redisson-ts)');
  // The module is compiled against this checkout's library build (node_modules/redisson-ts is the root).
  if (libraryDir !== root) must(run(process.execPath, ['scripts/build.mjs'], root), 'build (this checkout)');
  must(run('npm', ['pack', '-w', 'packages/nestjs', '--pack-destination', work], root), 'npm pack (redisson-ts-nestjs)');
  const tarballs = readdirSync(work).filter((f) => f.endsWith('.tgz'));
  const tarball = (name) => `file:../${tarballs.find((f) => new RegExp(`^${name}-\\d`).test(f))}`;

  cpSync(join(root, 'packages', 'nestjs', 'test', esm ? 'consumer-esm' : 'consumer'), app, { recursive: true });
  const pkg = JSON.parse((await import('node:fs')).readFileSync(join(app, 'package.json'), 'utf8'));
  pkg.dependencies = {
    '@nestjs/common': NEST['@nestjs/common'],
    '@nestjs/core': NEST['@nestjs/core'],
    '@nestjs/platform-express': NEST['@nestjs/platform-express'],
    ioredis: '5.9.2',
    'redisson-ts': tarball('redisson-ts'),
    'redisson-ts-nestjs': tarball('redisson-ts-nestjs'),
    'reflect-metadata': '0.2.2',
    rxjs: '7.8.2',
  };
  pkg.devDependencies = {
    '@nestjs/testing': NEST['@nestjs/testing'],
    '@types/node': '20.19.43',
    '@types/supertest': '7.2.1',
    supertest: '7.3.2',
    typescript: '5.9.3',
    ...(esm ? { vite: '8.3.8', vitest: '4.1.12' } : { '@types/jest': '30.0.0', jest: '30.5.2', 'ts-jest': '29.4.15' }),
  };
  writeFileSync(join(app, 'package.json'), `${JSON.stringify(pkg, null, 2)}\n`);
  must(run('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error'], app), 'npm install');

  const redisPort = await freePort();
  redis = spawn('redis-server', ['--port', String(redisPort), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
  await waitPort(redisPort, 10_000);
  const REDIS_URL = `redis://127.0.0.1:${redisPort}`;

  // 1. tsc build and plain Node.
  must(run('npx', ['tsc', '-p', 'tsconfig.build.json'], app), 'tsc build');
  const port = await freePort();
  const server = spawn(process.execPath, ['dist/main.js'], { cwd: app, stdio: 'inherit', env: { ...process.env, REDIS_URL, PORT: String(port) } });
  try {
    await Promise.race([
      waitPort(port, 30_000),
      new Promise((_, reject) => server.once('exit', (code) => reject(new Error(`dist/main.js exited with code ${code} before listening`)))),
    ]);
    const body = await (await fetch(`http://127.0.0.1:${port}/busy/x`)).json();
    if (body.ran !== 'x') throw new Error(`GET /busy/x answered ${JSON.stringify(body)}`);
    // 20 increments at once: each reads the counter inside @WithLock, so the answers are exactly 1..20.
    const values = await Promise.all(Array.from({ length: 20 }, async () => (await (await fetch(`http://127.0.0.1:${port}/counter/smoke`, { method: 'POST' })).json()).value));
    const sorted = values.sort((a, b) => a - b).join(',');
    if (sorted !== Array.from({ length: 20 }, (_, i) => i + 1).join(',')) throw new Error(`POST /counter/smoke ×20 answered ${sorted}`);
    console.log(`plain Node, Nest ${major}: GET /busy/x → ${JSON.stringify(body)}; 20 concurrent POST /counter → 1..20`);
  } finally {
    if (server.exitCode === null && server.signalCode === null) {
      const exited = new Promise((resolve) => server.once('exit', resolve));
      server.kill('SIGTERM');
      await exited;
    }
  }

  // 2. The e2e test: Vitest for the ES module application, else Jest as each major's `nest new` (CommonJS
  // template) runs it — Nest 12's through `node --experimental-vm-modules`.
  if (esm) {
    must(run('npx', ['vitest', 'run', '--config', './vitest.config.e2e.ts'], app, { REDIS_URL }), 'vitest e2e');
  } else {
    const jestArgs = ['--config', './test/jest-e2e.json', '--runInBand'];
    const jest =
      major === '12'
        ? run(process.execPath, ['--experimental-vm-modules', 'node_modules/jest/bin/jest.js', ...jestArgs], app, { REDIS_URL })
        : run('npx', ['jest', ...jestArgs], app, { REDIS_URL });
    // Nest 12's @nestjs/testing is ES modules only: Jest's CommonJS runtime loads it only where Jest supports
    // require(esm) (Node 24.9+), so on Node 20 that step is reported, not required.
    if (jest !== 0 && major === '12') console.log('Jest e2e on NestJS 12 failed: Jest loads the ES-module-only @nestjs/testing 12 through require(esm) only on Node 24.9+ (reported, not required)');
    else must(jest, 'jest e2e');
  }
  console.log(`nest-consumer (NestJS ${major}${esm ? ', ES modules' : ''}): OK`);
} catch (error) {
  failed = true;
  console.error(`nest-consumer (NestJS ${major}): ${error.message}${keep ? '' : ' (run with --keep to inspect the app)'}`);
} finally {
  redis?.kill('SIGTERM');
  if (!keep && !failed) rmSync(work, { recursive: true, force: true });
  else console.log(`left in ${work}`);
}
process.exit(failed ? 1 : 0);
