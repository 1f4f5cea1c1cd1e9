/**
 * SIGTERM to a Nest process (enableShutdownHooks) whose `@WithLock` method holds a watchdog lock: the module
 * aborts the method's signal, releases the lock and drains the unlock before the client shuts down, so the
 * key is gone when the process has exited — not 30 s later when the watchdog's lease runs out.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { resolve } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { freePort } from '../../cli/src/RedisServerProcess.js';
import { eventually, startRedis, uniqueName, within, type TestRedis } from '../../../test/support/redis.js';

// The repository root (Vitest defines __dirname in its modules; this package's tests type-check as CommonJS).
const ROOT = resolve(__dirname, '../../..');
let redis: TestRedis;
let raw: Redis;

beforeAll(async () => {
  redis = await startRedis();
  raw = new Redis(redis.url);
});

afterAll(async () => {
  raw?.disconnect();
  await redis?.stop();
});

function startChild(env: Record<string, string>, stderr: 'inherit' | 'pipe' = 'inherit'): ChildProcess {
  return spawn(process.execPath, ['--import', 'tsx', 'packages/nestjs/test/support/holderProcess.ts'], {
    cwd: ROOT,
    env: { ...process.env, ...env, TSX_TSCONFIG_PATH: 'packages/nestjs/tsconfig.json' },
    stdio: ['ignore', 'pipe', stderr],
  });
}

it('start-up with Redis unreachable: Nest logs our RedisConnectionError and the process exits with code 1 (no hang)', async () => {
  const port = await freePort();
  const child = startChild({ REDIS_URL: `redis://127.0.0.1:${port}`, REDISSON_TIMEOUT: '500' }, 'pipe');
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  try {
    await within(once(child, 'exit'), 60_000, 'the child to exit');
    expect(child.exitCode).toBe(1);
    expect(stderr).toContain('RedisConnectionError');
    expect(stderr).toMatch(new RegExp(`127\\.0\\.0\\.1:${port}: gave up after \\d+ ms \\(timeout 500 ms\\)`));
  } finally {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
});

it('SIGTERM while a watchdog lock is held: the key is gone before the process exits, the method saw its signal abort', async () => {
  const child = startChild({ REDIS_URL: redis.url });
  try {
    const exited = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
    const [line] = (await within(once(createInterface({ input: child.stdout! }), 'line'), 60_000, 'the child to listen')) as [string];
    const { port } = JSON.parse(line) as { port: number };
    const id = uniqueName('job');
    const reply = fetch(`http://127.0.0.1:${port}/hold/${id}`).then((r) => r.json());
    await eventually(async () => (await raw.exists(`job:${id}`)) === 1, 10_000, 'the lock to be held');
    expect(await raw.pttl(`job:${id}`)).toBeGreaterThan(20_000); // the watchdog's 30 s lease, not a short one

    child.kill('SIGTERM');
    expect(await within(reply, 10_000, 'the held request to answer')).toEqual({ released: true });
    await within(exited, 10_000, 'the child to exit');
    const [code, signal] = [child.exitCode, child.signalCode];
    expect(await raw.exists(`job:${id}`)).toBe(0);
    expect(code === 0 || signal === 'SIGTERM').toBe(true);
  } finally {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
});
