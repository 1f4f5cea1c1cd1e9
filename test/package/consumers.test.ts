/**
 * The packages as a user gets them: `npm pack` of the library and of the CLI (each prepack builds), a fresh
 * project that installs both tarballs and ioredis at the peer range's floor, and four consumers run against a real redis-server — plain ESM, plain
 * CommonJS, TypeScript nodenext ESM and nodenext CommonJS (type-checked by the repo's own tsc first) —
 * on Node, and the plain ESM and CommonJS ones on Bun and Deno as well. Each
 * consumer waits on a lock the test holds and takes it when the test releases it, so the packed build is
 * seen waking on the channel the source build publishes to. The installed `redisson-ts` bin (the CLI package)
 * runs inspect and the demo — strategy 7 with Java Redisson too, where java and mvn run.
 */
import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ResultRow } from '../../packages/cli/src/demo/report.js';
import type { LockInfo } from '../../packages/cli/src/inspectCommand.js';
import { lockChannelName } from '../../src/keys.js';
import { javaAvailable } from '../interop/JavaPeer.js';
import { packOnce, type Packed } from '../support/pack.js';
import { eventually, uniqueName, useRedis } from '../support/redis.js';
import { CONSUMER_ENTRY, consumerFiles, type ConsumerKind, type ConsumerReport } from './consumerFiles.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const TSC = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
const versionOf = (pkg: string): string => (JSON.parse(readFileSync(join(ROOT, 'node_modules', pkg, 'package.json'), 'utf8')) as { version: string }).version;

interface Result {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** The environment without the `npm_*` variables of an enclosing `npm test`, which would redirect npm. */
function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) if (!/^npm_/i.test(key) && key !== 'INIT_CWD') env[key] = value;
  return { ...env, ...extra };
}

// Children still running when the suite ends (a hook or test that timed out) are killed in afterAll.
const running = new Set<ChildProcess>();

function run(cmd: string, args: string[], options: SpawnOptions, onSpawn?: (exited: () => boolean) => void): Promise<Result> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] });
    running.add(child);
    let stdout = '';
    let stderr = '';
    let done = false;
    child.stdout?.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      running.delete(child);
      done = true;
      resolve({ code, stdout, stderr });
    });
    onSpawn?.(() => done);
  });
}

async function mustRun(cmd: string, args: string[], options: SpawnOptions): Promise<string> {
  const r = await run(cmd, args, options);
  if (r.code !== 0) throw new Error(`${cmd} ${args.join(' ')} exited ${r.code}:\n${r.stdout}\n${r.stderr}`);
  return r.stdout;
}

/** Runs one setup step and logs how long it took (the setup is the expensive part of this file). */
async function timed<T>(step: string, fn: () => Promise<T>): Promise<T> {
  const start = performance.now();
  try {
    return await fn();
  } finally {
    console.log(`package consumers: ${step} took ${((performance.now() - start) / 1000).toFixed(1)} s`);
  }
}

const suite = useRedis();
let work = '';
let packed: Packed;
let packedCli: Packed;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'redisson-ts-package-'));
  const project = join(work, 'project');
  mkdirSync(project);
  // `npm pack` (its prepack builds) once per run, from a copy of the work tree (test/support/pack.ts).
  ({ 'redisson-ts': packed, 'redisson-ts-cli': packedCli } = await timed('npm pack of the library and the CLI (build)', () => packOnce(['redisson-ts', 'redisson-ts-cli'])));
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'consumer', private: true }));
  for (const [file, text] of Object.entries(consumerFiles())) {
    mkdirSync(dirname(join(project, file)), { recursive: true });
    writeFileSync(join(project, file), text);
  }
  // Dependencies come from the cache `npm ci` filled: the peer range's floor (the ioredis-lowest alias)
  // and the repo's @types/node.
  const deps = [packed.tarball, packedCli.tarball, `ioredis@${versionOf('ioredis-lowest')}`, `@types/node@${versionOf('@types/node')}`];
  await timed('npm install', () => mustRun('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', ...deps], { cwd: project, env: cleanEnv() }));
  await timed('tsc (both TS consumers)', () =>
    Promise.all(['ts-esm', 'ts-cjs'].map((dir) => mustRun(process.execPath, [TSC, '-p', join(project, dir)], { cwd: project, env: cleanEnv() }))),
  );
  // A hang guard only: the setup costs about 25 s of CPU and takes 20-40 s alone on two cores, but it took
  // over 90 s on a machine at load 15 beside the rest of the suite.
}, 180_000);

afterAll(() => {
  for (const child of running) child.kill('SIGKILL');
  if (work) rmSync(work, { recursive: true, force: true });
});

describe('the packed tarball', () => {
  it('ships the build, LICENSE, CHANGELOG and the error codes (docs/errors.md), and no CLI, source maps, Lua sources or tests', () => {
    const files = packed.files.map((f) => f.path);
    for (const needed of ['LICENSE', 'CHANGELOG.md', 'README.md', 'docs/errors.md', 'package.json', 'dist/index.js', 'dist/index.d.ts', 'dist/cjs/index.js', 'dist/cjs/index.d.ts', 'dist/cjs/package.json']) {
      expect(files).toContain(needed);
    }
    expect(files.filter((f) => f.endsWith('.map') || f.startsWith('lua/') || f.startsWith('src/') || f.startsWith('test/') || f.startsWith('dist/cli/'))).toEqual([]);
    const pkg = JSON.parse(readFileSync(join(work, 'project', 'node_modules', 'redisson-ts', 'package.json'), 'utf8')) as { bin?: unknown; workspaces?: unknown };
    expect(pkg.bin).toBeUndefined();
  });

  it('the CLI package ships its build, the Java peer project and LICENSE, and depends on the library by version', () => {
    const files = packedCli.files.map((f) => f.path);
    for (const needed of ['LICENSE', 'README.md', 'package.json', 'dist/main.js', 'dist/inspectCommand.js', 'dist/demo/buyerWorker.js', 'dist/java/JavaPeer.js', 'dist/java/java/pom.xml']) {
      expect(files).toContain(needed);
    }
    expect(files.filter((f) => f.endsWith('.map') || f.endsWith('.ts') || f.includes('/target/'))).toEqual([]);
    const pkg = JSON.parse(readFileSync(join(work, 'project', 'node_modules', 'redisson-ts-cli', 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
    const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
    expect(pkg.dependencies['redisson-ts']).toBe(`^${version}`);
    // The workspace manifest is back after the pack.
    const workspace = JSON.parse(readFileSync(join(ROOT, 'packages', 'cli', 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
    expect(workspace.dependencies['redisson-ts']).toBe('file:../..');
  });

  it.each(['redisson-ts', 'redisson-ts-cli'])('%s runs nothing on install: no install or prepare script in the installed package.json', (name) => {
    const pkg = JSON.parse(readFileSync(join(work, 'project', 'node_modules', name, 'package.json'), 'utf8')) as { scripts?: Record<string, string> };
    const lifecycle = Object.keys(pkg.scripts ?? {}).filter((s) => ['preinstall', 'install', 'postinstall', 'prepare'].includes(s));
    expect(lifecycle).toEqual([]);
  });
});

const EXPECTED: Record<ConsumerKind, { format: 'esm' | 'cjs'; entry: RegExp }> = {
  esm: { format: 'esm', entry: /\/node_modules\/redisson-ts\/dist\/index\.js$/ },
  cjs: { format: 'cjs', entry: /\/node_modules\/redisson-ts\/dist\/cjs\/index\.js$/ },
  'ts-esm': { format: 'esm', entry: /\/node_modules\/redisson-ts\/dist\/index\.js$/ },
  'ts-cjs': { format: 'cjs', entry: /\/node_modules\/redisson-ts\/dist\/cjs\/index\.js$/ },
};

/**
 * Who runs a consumer: Node, and the other runtimes README's Install section claims, at the versions pinned
 * in devDependencies (their npm packages carry the binaries). Bun and Deno run the same .mjs and .cjs files
 * from the same project (Deno 2 resolves `redisson-ts` from its node_modules through package.json).
 */
const RUNTIMES: Record<string, { cmd: string; args: string[] }> = {
  node: { cmd: process.execPath, args: [] },
  bun: { cmd: join(ROOT, 'node_modules', '.bin', 'bun'), args: [] },
  deno: { cmd: join(ROOT, 'node_modules', '.bin', 'deno'), args: ['run', '--allow-all'] },
};

const CASES: [string, ConsumerKind][] = [
  ...(Object.keys(EXPECTED) as ConsumerKind[]).map((kind): [string, ConsumerKind] => ['node', kind]),
  ['bun', 'esm'],
  ['bun', 'cjs'],
  ['deno', 'esm'],
  ['deno', 'cjs'],
];

describe.each(CASES)('%s: %s consumer', (runtime, kind) => {
  it('waits for the lock, takes it when the holder releases it, and unlocks: Redis data as Redisson writes it', async () => {
    const name = uniqueName(`package-${runtime}-${kind}`);
    const { cmd, args } = RUNTIMES[runtime] as { cmd: string; args: string[] };
    const holder = suite.clients.client().getLock(name);
    const raw = suite.clients.raw();
    await holder.lock();
    let exited: () => boolean = () => false;
    const result = run(cmd, [...args, CONSUMER_ENTRY[kind]], { cwd: join(work, 'project'), env: cleanEnv({ REDIS_URL: suite.redis.url, LOCK_NAME: name, DENO_NO_UPDATE_CHECK: '1' }) }, (e) => (exited = e));
    // The consumer is waiting once it subscribed to the lock's channel; only then is the lock released.
    const channel = lockChannelName(name);
    await eventually(async () => exited() || ((await raw.pubsub('NUMSUB', channel)) as [string, number])[1] >= 1, 30_000, `the ${runtime} ${kind} consumer to subscribe`);
    await holder.unlock();
    const { code, stdout, stderr } = await result;
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' }); // no warnings either (require(esm) included)
    const report = JSON.parse(stdout.trim().split('\n').at(-1) ?? '') as ConsumerReport;
    expect(report.format).toBe(EXPECTED[kind].format);
    expect(report.entry).toMatch(EXPECTED[kind].entry);
    expect(report.oneCopy).toBe(true);
    expect(report.acquired).toBe(true);
    expect(report.fields).toEqual({ [`${report.id}:${report.threadId}`]: '1' });
    expect(report.holdCount).toBe(1);
    expect(await raw.exists(name)).toBe(0);
  });
});

describe('the installed CLI (redisson-ts-cli)', () => {
  const bin = (): string => join(work, 'project', 'node_modules', '.bin', 'redisson-ts');
  const cli = (args: string[], env: Record<string, string> = {}): Promise<Result> => run(bin(), args, { cwd: join(work, 'project'), env: cleanEnv(env) });

  it('prints its version and help', async () => {
    const version = await cli(['--version']);
    expect(version).toMatchObject({ code: 0, stdout: `${(JSON.parse(readFileSync(join(ROOT, 'packages', 'cli', 'package.json'), 'utf8')) as { version: string }).version}\n` });
    const help = await cli(['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('inspect <name>');
    // An install carries no benchmarks: its help does not offer `bench`, which would only refuse.
    expect(help.stdout).not.toMatch(/^ {2}bench\b/m);
  });

  it('inspect reads a lock held by the source build: owner field, hold count, and --exit-code 0 held / 3 free', async () => {
    const name = uniqueName('package-inspect');
    const client = suite.clients.client();
    const lock = client.getLock(name);
    await lock.lock({ threadId: 7 });
    const held = await cli(['inspect', name, '--redis', suite.redis.url, '--json', '--exit-code']);
    expect({ code: held.code, stderr: held.stderr }).toEqual({ code: 0, stderr: '' });
    const info = JSON.parse(held.stdout) as LockInfo;
    expect(info.owners.map((o) => [o.field, o.holdCount])).toEqual([[`${client.getId()}:7`, 1]]);
    await lock.unlock({ threadId: 7 });
    expect((await cli(['inspect', name, '--redis', suite.redis.url, '--exit-code'])).code).toBe(3);
  });

  it('runs the demo on the given server: RLock correct, and strategy 7 (Java Redisson) where java and mvn run', async () => {
    const java = javaAvailable();
    const run = await cli(['demo', '--redis', suite.redis.url, '--stock', '10', '--buyers', '4', '--only', 'rlock,rlock-java', '--json']);
    expect(run.code).toBe(0);
    const rows = JSON.parse(run.stdout) as ResultRow[];
    const verdicts = Object.fromEntries(rows.map((r) => [r.id, [r.verdict, r.sold, r.oversold]]));
    if (java.ok) {
      expect(verdicts).toEqual({ rlock: ['correct', 10, 0], 'rlock-java': ['correct', 10, 0] });
    } else {
      expect(verdicts).toEqual({ rlock: ['correct', 10, 0] });
      expect(run.stderr).toMatch(/rlock-java not run/);
    }
  }, 240_000);

  it('bench says it runs from a source checkout, and exits 1', async () => {
    const run = await cli(['bench', '--quick']);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/source checkout/);
  });
});
