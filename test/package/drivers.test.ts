/**
 * The packed tarball (test/support/pack.ts) in fresh apps, one per driver the peer range admits (issue 25):
 * `npm install <tarball> ioredis@6.1.0`, `… ioredis@5.9.0` and `… iovalkey@<pinned>` resolve with no
 * ERESOLVE and no peer-dependency warning, and so does upgrading the 5.9.0 app to ioredis 6 in place. Each
 * app (./driverApp.ts) hands a lock, a semaphore and a fair lock from one client to a waiting one through
 * the installed driver's pub/sub, and reports which driver and protocol it ran (ioredis 6: RESP3, its
 * default; iovalkey: RESP2 only). The iovalkey app installs ioredis too, for the types our declarations name;
 * an app with iovalkey alone runs without ioredis (an optional peer, loaded only for connections made from a URL,
 * options or nodes). `npm install <tarball> redis@<pinned 6.x>` (node-redis, the other optional peer) likewise,
 * with no ioredis installed: its app hands `createClient()` clients to Redisson.create.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packOnce } from '../support/pack.js';
import { uniqueName, useRedis } from '../support/redis.js';
import { cleanEnv, npmInstall, PEER_TROUBLE, run, type Result } from './appRun.js';
import { DRIVER_APP, driverAppSource, type AppDriver, type DriverAppReport } from './driverApp.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const TSC = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
const versionOf = (pkg: string): string => (JSON.parse(readFileSync(join(ROOT, 'node_modules', pkg, 'package.json'), 'utf8')) as { version: string }).version;
const SIX = versionOf('ioredis-6');
const FLOOR = versionOf('ioredis-lowest');
const VALKEY = versionOf('iovalkey');
const NODE_REDIS = versionOf('redis');

const suite = useRedis();
let work = '';
let tarball = '';

/** A fresh app with the tarball and `driver@version`: npm's output of the install. */
async function freshApp(dir: string, driver: AppDriver, version: string): Promise<Result> {
  const project = join(work, dir);
  mkdirSync(project);
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: `app-${dir}`, private: true, type: 'module' }));
  writeFileSync(join(project, DRIVER_APP), driverAppSource(driver));
  writeFileSync(join(project, 'typed.ts'), typedApp(driver));
  writeFileSync(join(project, 'tsconfig.json'), JSON.stringify({ compilerOptions: TYPED_OPTIONS, files: ['typed.ts'] }));
  // The iovalkey app installs ioredis too, so that our declarations (which name ioredis' types) resolve to real
  // types and the check below proves iovalkey's classes are taken for them, not that unresolved types are `any`.
  const types = driver === 'iovalkey' ? [`ioredis@${FLOOR}`] : [];
  return npmInstall(project, [tarball, `${driver}@${version}`, ...types, `@types/node@${versionOf('@types/node')}`]);
}

async function runApp(dir: string): Promise<DriverAppReport> {
  const { code, stdout, stderr } = await run(process.execPath, [DRIVER_APP], join(work, dir), cleanEnv({ REDIS_URL: suite.redis.url, LOCK_NAME: uniqueName(`drivers-${dir}`) }));
  expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
  return JSON.parse(stdout.trim().split('\n').at(-1) ?? '') as DriverAppReport;
}

// A TypeScript app handing that driver's own instances and options to us: our declarations name ioredis'
// types, which resolve to the app's ioredis, so each must accept the other's. skipLibCheck on (as tsc
// --init): with it off, 6.1.0's own declarations fail (they import the untyped `redis-errors`) and checking
// them takes most of a minute. iovalkey's classes are not ioredis' to TypeScript (protected members of the
// copied classes, and ioredis 6's new ones): the `redis` option also takes the ioredis-shaped members we use,
// declared structurally, so iovalkey's Redis, Cluster and options type-check without a cast.
const TYPED_OPTIONS = { module: 'nodenext', moduleResolution: 'nodenext', target: 'es2022', strict: true, skipLibCheck: true, noEmit: true, types: ['node'] };
const typedApp = (driver: AppDriver): string => driver === 'redis' ? TYPED_NODE_REDIS : `import { Cluster, Redis, type RedisOptions } from '${driver}';
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

// node-redis: a createClient() client (whose generic type is not ioredis') and the explicit driver choice.
const TYPED_NODE_REDIS = `import { createClient } from 'redis';
import { Redisson, type RLock } from 'redisson-ts';

const clients: Redisson[] = [
  Redisson.create({ redis: createClient({ url: 'redis://127.0.0.1:6379' }) }),
  Redisson.create({ redis: { driver: 'node-redis', url: 'redis://127.0.0.1:6379', options: { RESP: 2 } } }),
];
const lock: RLock = (clients[0] as Redisson).getLock('typed');
export { lock };
`;

const installs = new Map<string, Result>();

const APPS = [
  { dir: 'ioredis6', driver: 'ioredis', version: SIX, resp: '3' },
  { dir: 'ioredis5', driver: 'ioredis', version: FLOOR, resp: '2' },
  { dir: 'iovalkey', driver: 'iovalkey', version: VALKEY, resp: '2' },
  { dir: 'redis6', driver: 'redis', version: NODE_REDIS, resp: '3' },
] as const;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'redisson-ts-drivers-'));
  tarball = (await packOnce(['redisson-ts']))['redisson-ts'].tarball;
  const results = await Promise.all(APPS.map(({ dir, driver, version }) => freshApp(dir, driver, version)));
  APPS.forEach(({ dir }, i) => installs.set(dir, results[i] as Result));
}, 300_000);

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

describe.each(APPS)('a fresh app: npm install <tarball> $driver@$version', ({ dir, driver, version, resp }) => {
  it('installs with no ERESOLVE and no peer-dependency warning', () => {
    const install = installs.get(dir) as Result;
    expect(install.code, install.stderr).toBe(0);
    expect(`${install.stdout}\n${install.stderr}`).not.toMatch(PEER_TROUBLE);
  });

  it("type-checks an app passing that driver's instances and options", async () => {
    const tsc = await run(process.execPath, [TSC, '-p', join(work, dir)], join(work, dir));
    expect({ code: tsc.code, output: tsc.stdout + tsc.stderr }).toEqual({ code: 0, output: '' });
  });

  it('hands a lock, a semaphore and a fair lock to a waiting client through that driver', async () => {
    expect(await runApp(dir)).toEqual({ driver, version, resp, woken: { lock: true, semaphore: true, fairLock: true } });
  });
});

it(`upgrading the ioredis ${FLOOR} app to ioredis ${SIX} in place warns about no peer dependency; the app then runs on it`, async () => {
  const upgrade = await npmInstall(join(work, 'ioredis5'), [`ioredis@${SIX}`]);
  expect(upgrade.code, upgrade.stderr).toBe(0);
  expect(`${upgrade.stdout}\n${upgrade.stderr}`).not.toMatch(PEER_TROUBLE);
  const ls = await run('npm', ['ls', '--all'], join(work, 'ioredis5'));
  expect(ls.code, `${ls.stdout}\n${ls.stderr}`).toBe(0);
  expect(await runApp('ioredis5')).toEqual({ driver: 'ioredis', version: SIX, resp: '3', woken: { lock: true, semaphore: true, fairLock: true } });
}, 120_000);

it('the iovalkey app has ioredis as well, which it installed for the types our declarations name', async () => {
  const ls = await run('npm', ['ls', 'ioredis', '--json'], join(work, 'iovalkey'));
  expect(ls.code, ls.stderr).toBe(0);
  const tree = JSON.parse(ls.stdout) as { dependencies?: Record<string, { version: string; dependencies?: Record<string, { version: string }> }> };
  const top = tree.dependencies?.['redisson-ts']?.dependencies?.['ioredis'] ?? tree.dependencies?.['ioredis'];
  expect(top?.version).toMatch(/^(5\.(9|[1-9]\d)|6)\./);
});

// ioredis is an optional peer, loaded only to make connections from a URL, options or nodes: an app with
// iovalkey alone installs no ioredis, and runs on the iovalkey instances it hands to Redisson.create.
it('`npm install <tarball> iovalkey` installs no ioredis; the app runs on iovalkey instances without it', async () => {
  const dir = join(work, 'iovalkey-alone');
  mkdirSync(dir);
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'app-iovalkey-alone', private: true, type: 'module' }));
  writeFileSync(join(dir, DRIVER_APP), driverAppSource('iovalkey'));
  const install = await npmInstall(dir, [tarball, `iovalkey@${VALKEY}`]);
  expect(install.code, install.stderr).toBe(0);
  expect(`${install.stdout}\n${install.stderr}`).not.toMatch(PEER_TROUBLE);
  expect(existsSync(join(dir, 'node_modules', 'ioredis'))).toBe(false);
  expect(await runApp('iovalkey-alone')).toEqual({ driver: 'iovalkey', version: VALKEY, resp: '2', woken: { lock: true, semaphore: true, fairLock: true } });
}, 120_000);

// node-redis is the other optional peer: its app holds no ioredis (nothing of ours loads it for a node-redis client).
it(`\`npm install <tarball> redis@${NODE_REDIS}\` installs no ioredis; the app ran on node-redis clients without it`, () => {
  expect(existsSync(join(work, 'redis6', 'node_modules', 'redis'))).toBe(true);
  expect(existsSync(join(work, 'redis6', 'node_modules', 'ioredis'))).toBe(false);
});
