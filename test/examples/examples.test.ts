/**
 * The examples run from an install: each folder of examples/ is copied out, `npm install`ed with the
 * packed tarballs of redisson-ts (and redisson-ts-otel), and started as `npm start` would, against a real
 * redis-server. The test holds the locks and permits the examples want, so each waiting step is forced:
 * the Express handler answers 409 while the test holds the order's lock and pays once it is released; the
 * workers wait (subscribed) until the test gives its permit back; the Java-interop Node side waits until
 * the test — in Java's place — unlocks; the OpenTelemetry example prints its spans and metrics. Nothing is
 * left in the repository (`git status` is unchanged).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { exec, packOnce, ROOT } from '../support/pack.js';
import { eventually, uniqueName, useRedis } from '../support/redis.js';
import { installExample, killAll, startExample } from './run.js';

const suite = useRedis({ own: true });
let statusBefore = '';
let work = '';
const dirs: Record<string, string> = {};
let otelFiles: string[] = [];

beforeAll(async () => {
  statusBefore = await exec('git', ['status', '--porcelain'], ROOT);
  const started = performance.now();
  const packed = await packOnce(['redisson-ts', 'redisson-ts-otel']);
  const installing = performance.now();
  otelFiles = packed['redisson-ts-otel'].files.map((f) => f.path).sort();
  work = mkdtempSync(join(tmpdir(), 'redisson-ts-examples-'));
  const library = packed['redisson-ts'].tarball;
  const installs: [string, string[]][] = [
    ['express-handler', [library]],
    ['worker', [library]],
    ['java-interop', [library]],
    ['opentelemetry', [library, packed['redisson-ts-otel'].tarball]],
  ];
  // In parallel: npm spends most of an install waiting on the cache and the disk.
  await Promise.all(installs.map(async ([name, tarballs]) => (dirs[name] = await installExample(name, work, tarballs))));
  const s = (from: number, to: number): string => `${((to - from) / 1000).toFixed(1)} s`;
  console.log(`examples: packing (or waiting for another file's pack) ${s(started, installing)}, installing four examples ${s(installing, performance.now())}`);
}, 300_000);

afterAll(() => {
  killAll();
  if (work) rmSync(work, { recursive: true, force: true });
});

const subscribers = async (channel: string): Promise<number> => Number((await suite.clients.raw().pubsub('NUMSUB', channel))[1]);

it('express-handler: 409 while another holder has the order, paid once it is released; lock released; clean stop on SIGTERM', async () => {
  const server = startExample(dirs['express-handler'] as string, { REDIS_URL: suite.redis.url, PORT: '0', PAY_MS: '0' });
  const base = (await server.match(/listening on (http:\/\/\S+)/))[1] as string;
  const post = async (path: string): Promise<[number, string]> => {
    const res = await fetch(`${base}${path}`, { method: 'POST' });
    return [res.status, await res.text()];
  };
  const holder = suite.clients.client().getLock('order:42');
  await holder.lock();
  expect(await post('/orders/42/pay')).toEqual([409, 'order 42 is being paid\n']);
  expect(await post('/orders/7/pay')).toEqual([200, 'order 7 paid\n']);
  await holder.unlock();
  expect(await post('/orders/42/pay')).toEqual([200, 'order 42 paid\n']);
  expect(await suite.clients.raw().exists('order:42', 'order:7')).toBe(0);
  server.child.kill('SIGTERM');
  expect(await server.exit).toMatchObject({ code: 0, output: expect.stringContaining('stopped') as unknown });
});

it('worker: two worker processes wait for the semaphore the test holds, then run their jobs and give every permit back', async () => {
  const slots = uniqueName('slots');
  const semaphore = suite.clients.client().getSemaphore(slots);
  await semaphore.trySetPermits(1);
  await semaphore.acquire();
  const env = { REDIS_URL: suite.redis.url, SLOTS: slots, PERMITS: '1', JOBS: '2', JOB_MS: '0' };
  const workers = [startExample(dirs['worker'] as string, env), startExample(dirs['worker'] as string, env)];
  await eventually(async () => (await subscribers(`redisson_sc:{${slots}}`)) === 2, 30_000, 'both workers to wait on the semaphore');
  expect(workers.map((w) => w.output())).toEqual(['', '']);
  await semaphore.release();
  for (const { code, output } of await Promise.all(workers.map((w) => w.exit))) {
    expect(code, output).toBe(0);
    expect(output).toMatch(/^job 0 running in \d+\njob 1 running in \d+\ndone: 0 1\n$/);
  }
  expect(await semaphore.availablePermits()).toBe(1);
});

it('java-interop: the Node side reads redisson.yaml, waits while the lock is held elsewhere, then holds it', async () => {
  const java = suite.clients.client().getLock('inventory:sku-42'); // in Java's place: the same keys and message
  await java.lock();
  const node = startExample(dirs['java-interop'] as string, { REDIS_PORT: String(suite.redis.port) });
  await eventually(async () => (await subscribers('redisson_lock__channel:{inventory:sku-42}')) === 1, 30_000, 'the Node side to wait');
  expect(node.output()).toBe('');
  await java.unlock();
  expect(await node.exit).toEqual({ code: 0, output: 'Node holds inventory:sku-42\n' });
  expect(await suite.clients.raw().exists('inventory:sku-42')).toBe(0);
});

it('opentelemetry: prints the acquire and release spans and the wait/hold histograms of redisson-ts-otel', async () => {
  const { code, output } = await startExample(dirs['opentelemetry'] as string, { REDIS_URL: suite.redis.url }).exit;
  expect(code, output).toBe(0);
  expect(output).toContain('b acquired: true');
  for (const name of ["name: 'redisson-ts.acquire'", "name: 'redisson-ts.release'", "'redisson.name': 'example:otel'", "name: 'redisson.lock.wait.duration'", "name: 'redisson.lock.hold.duration'"]) {
    expect(output).toContain(name);
  }
});

it('the redisson-ts-otel tarball ships its build, README and LICENSE only', () => {
  expect(otelFiles).toEqual(expect.arrayContaining(['LICENSE', 'README.md', 'package.json', 'dist/index.js', 'dist/index.d.ts', 'dist/RedissonInstrumentation.js']));
  expect(otelFiles.filter((f) => !/^(LICENSE|README\.md|package\.json|dist\/[\w.]+\.(js|d\.ts))$/.test(f))).toEqual([]);
});

it('leaves nothing behind in the repository', async () => {
  expect(await exec('git', ['status', '--porcelain'], ROOT)).toBe(statusBefore);
});
