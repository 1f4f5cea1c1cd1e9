/**
 * The packed tarball in fresh apps, one per ioredis major the peer range admits (issue 25): `npm install
 * <tarball> ioredis@6.1.0` and `… ioredis@5.9.0` resolve with no ERESOLVE and no peer-dependency warning,
 * and so does upgrading the 5.9.0 app to ioredis 6 in place. Each app (./driverApp.ts) hands a lock, a
 * semaphore and a fair lock from one client to a waiting one through the installed ioredis' pub/sub, and
 * reports which ioredis and protocol it ran (ioredis 6: RESP3, its default).
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uniqueName, useRedis } from '../support/redis.js';
import { DRIVER_APP, driverAppSource, type DriverAppReport } from './driverApp.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const TSC = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
const versionOf = (pkg: string): string => (JSON.parse(readFileSync(join(ROOT, 'node_modules', pkg, 'package.json'), 'utf8')) as { version: string }).version;
const SIX = versionOf('ioredis-6');
const FLOOR = versionOf('ioredis-lowest');
// What npm prints when the peer range does not admit the ioredis installed beside us.
const PEER_TROUBLE = /ERESOLVE|peer dep|overriding peer|Conflicting peer|invalid: /i;

interface Result {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** The environment without the `npm_*` variables of an enclosing `npm test`, which would redirect npm. */
function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) if (!/^npm_/i.test(key) && key !== 'INIT_CWD' && key !== 'NODE_OPTIONS') env[key] = value;
  return { ...env, ...extra };
}

function run(cmd: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = cleanEnv()): Promise<Result> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

const npmInstall = (cwd: string, deps: string[]): Promise<Result> => run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', '--loglevel', 'warn', ...deps], cwd);

const suite = useRedis();
let work = '';
let tarball = '';

/** A fresh app with the tarball and `ioredis@version`: npm's output of the install. */
async function freshApp(dir: string, version: string): Promise<Result> {
  const project = join(work, dir);
  mkdirSync(project);
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: `app-${dir}`, private: true, type: 'module' }));
  writeFileSync(join(project, DRIVER_APP), driverAppSource);
  writeFileSync(join(project, 'typed.ts'), TYPED_APP);
  writeFileSync(join(project, 'tsconfig.json'), JSON.stringify({ compilerOptions: TYPED_OPTIONS, files: ['typed.ts'] }));
  return npmInstall(project, [tarball, `ioredis@${version}`, `@types/node@${versionOf('@types/node')}`]);
}

async function runApp(dir: string): Promise<DriverAppReport> {
  const { code, stdout, stderr } = await run(process.execPath, [DRIVER_APP], join(work, dir), cleanEnv({ REDIS_URL: suite.redis.url, LOCK_NAME: uniqueName(`drivers-${dir}`) }));
  expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
  return JSON.parse(stdout.trim().split('\n').at(-1) ?? '') as DriverAppReport;
}

// A TypeScript app handing that ioredis' own instances and options to us: our declarations name ioredis'
// types, which resolve to the app's ioredis, so each must accept the other's. skipLibCheck on (as tsc
// --init): with it off, 6.1.0's own declarations fail (they import the untyped `redis-errors`) and checking
// them takes most of a minute.
const TYPED_OPTIONS = { module: 'nodenext', moduleResolution: 'nodenext', target: 'es2022', strict: true, skipLibCheck: true, noEmit: true, types: ['node'] };
const TYPED_APP = `import { Cluster, Redis, type RedisOptions } from 'ioredis';
import { Redisson, type RLock } from 'redisson-ts';

const options: RedisOptions = { host: '127.0.0.1', port: 6379, lazyConnect: true };
const clients: Redisson[] = [
  Redisson.create({ redis: new Redis(options) }),
  Redisson.create({ redis: options }),
  Redisson.create({ redis: new Cluster([{ host: '127.0.0.1', port: 7000 }], { lazyConnect: true }) }),
  Redisson.create({ redis: 'redis://127.0.0.1:6379' }),
];
const lock: RLock = (clients[0] as Redisson).getLock('typed');
export { lock };
`;

const installs = new Map<string, Result>();

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'redisson-ts-drivers-'));
  const packed = await run('npm', ['pack', '--json', '--pack-destination', work], ROOT);
  if (packed.code !== 0) throw new Error(`npm pack failed:\n${packed.stderr}`);
  tarball = join(work, (JSON.parse(packed.stdout.slice(packed.stdout.indexOf('['))) as [{ filename: string }])[0].filename);
  const [six, floor] = await Promise.all([freshApp('ioredis6', SIX), freshApp('ioredis5', FLOOR)]);
  installs.set('ioredis6', six);
  installs.set('ioredis5', floor);
}, 180_000);

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

describe.each([
  { dir: 'ioredis6', version: SIX, resp: '3' },
  { dir: 'ioredis5', version: FLOOR, resp: '2' },
])('a fresh app: npm install <tarball> ioredis@$version', ({ dir, version, resp }) => {
  it('installs with no ERESOLVE and no peer-dependency warning', () => {
    const install = installs.get(dir) as Result;
    expect(install.code, install.stderr).toBe(0);
    expect(`${install.stdout}\n${install.stderr}`).not.toMatch(PEER_TROUBLE);
  });

  it("type-checks an app passing that ioredis' instances and options", async () => {
    const tsc = await run(process.execPath, [TSC, '-p', join(work, dir)], join(work, dir));
    expect({ code: tsc.code, output: tsc.stdout + tsc.stderr }).toEqual({ code: 0, output: '' });
  });

  it('hands a lock, a semaphore and a fair lock to a waiting client through that ioredis', async () => {
    expect(await runApp(dir)).toEqual({ ioredis: version, resp, woken: { lock: true, semaphore: true, fairLock: true } });
  });
});

it(`upgrading the ioredis ${FLOOR} app to ioredis ${SIX} in place warns about no peer dependency; the app then runs on it`, async () => {
  const upgrade = await npmInstall(join(work, 'ioredis5'), [`ioredis@${SIX}`]);
  expect(upgrade.code, upgrade.stderr).toBe(0);
  expect(`${upgrade.stdout}\n${upgrade.stderr}`).not.toMatch(PEER_TROUBLE);
  const ls = await run('npm', ['ls', '--all'], join(work, 'ioredis5'));
  expect(ls.code, `${ls.stdout}\n${ls.stderr}`).toBe(0);
  expect(await runApp('ioredis5')).toEqual({ ioredis: SIX, resp: '3', woken: { lock: true, semaphore: true, fairLock: true } });
}, 120_000);
