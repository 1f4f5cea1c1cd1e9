/**
 * The examples in examples/ run against a real redis-server: the node:http handler serialises payments
 * per order (409 for a concurrent one, lock always released), the semaphore worker never runs more jobs at
 * once than its permits across two clients, and the Java-interop Node side reads the shared config file
 * and waits for the lock's holder.
 */
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import pDefer from 'p-defer';
import { expect, it } from 'vitest';
import { startServer } from '../../examples/http-lock/server.js';
import { runWorker } from '../../examples/semaphore-worker/worker.js';
import { CONFIG, LOCK_NAME, withSharedLock } from '../../examples/java-interop/node.js';
import { Redisson } from '../../src/index.js';
import { eventually, uniqueName, useRedis } from '../support/redis.js';

const suite = useRedis({ own: true });

it('http-lock: a second payment of the same order gets 409 while the first runs; the lock is always released', async () => {
  const client = suite.clients.client();
  const raw = suite.clients.raw();
  const gate = pDefer<void>();
  const paying: string[] = [];
  const server = await startServer(client, async (orderId) => {
    paying.push(orderId);
    if (orderId === 'boom') throw new Error('card declined');
    if (orderId === '42') await gate.promise;
    return `paid ${orderId}`;
  });
  try {
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const first = fetch(`${base}/orders/42/pay`, { method: 'POST' });
    await eventually(() => paying.includes('42'), 10_000, 'the first payment to start');
    expect(await raw.exists('order:42')).toBe(1);
    const second = await fetch(`${base}/orders/42/pay`, { method: 'POST' });
    expect(second.status).toBe(409);
    const other = await fetch(`${base}/orders/7/pay`, { method: 'POST' });
    expect([other.status, await other.text()]).toEqual([200, 'paid 7\n']);
    gate.resolve();
    const done = await first;
    expect([done.status, await done.text()]).toEqual([200, 'paid 42\n']);
    const failed = await fetch(`${base}/orders/boom/pay`, { method: 'POST' });
    expect(failed.status).toBe(500);
    expect(await raw.exists('order:42', 'order:7', 'order:boom')).toBe(0);
    expect(paying).toEqual(['42', '7', 'boom']);
    expect((await fetch(`${base}/nope`)).status).toBe(404);
  } finally {
    server.close();
    await once(server, 'close');
  }
});

it('semaphore-worker: two workers on two clients run at most `permits` jobs at once and give every permit back', async () => {
  const raw = suite.clients.raw();
  const slots = uniqueName('slots');
  const running = uniqueName('running');
  const peak = uniqueName('peak');
  const job = (i: number) => async (): Promise<number> => {
    const now = await raw.incr(running);
    await raw.eval("if tonumber(redis.call('get', KEYS[1]) or '0') < tonumber(ARGV[1]) then redis.call('set', KEYS[1], ARGV[1]) end", 1, peak, now);
    await new Promise((resolve) => setImmediate(resolve));
    await raw.decr(running);
    return i;
  };
  const jobs = (from: number) => Array.from({ length: 6 }, (_, i) => job(from + i));
  const [a, b] = [suite.clients.client(), suite.clients.client()];
  const results = await Promise.all([runWorker(a, jobs(0), { slots, permits: 2 }), runWorker(b, jobs(10), { slots, permits: 2 })]);
  expect(results).toEqual([
    [0, 1, 2, 3, 4, 5],
    [10, 11, 12, 13, 14, 15],
  ]);
  expect(Number(await raw.get(peak))).toBeLessThanOrEqual(2);
  expect(await a.getSemaphore(slots).availablePermits()).toBe(2);
});

it('java-interop: the Node side reads the shared redisson.yaml, waits for the holder and then holds the lock', async () => {
  const env = { REDIS_PORT: String(suite.redis.port) };
  const node = Redisson.fromConfig(CONFIG, { env });
  const holder = suite.clients.client();
  const raw = suite.clients.raw();
  try {
    const held = holder.getLock(LOCK_NAME);
    await held.lock();
    let ran = false;
    const waiting = withSharedLock(node, async () => {
      ran = true;
      return raw.hgetall(LOCK_NAME);
    });
    await eventually(async () => (await raw.pubsub('NUMSUB', `redisson_lock__channel:{${LOCK_NAME}}`))[1] === 1, 10_000, 'the waiter to subscribe');
    expect(ran).toBe(false);
    await held.unlock();
    const hash = await waiting;
    expect(Object.keys(hash)).toEqual([expect.stringMatching(new RegExp(`^${node.id}:\\d+$`))]);
    expect(await raw.exists(LOCK_NAME)).toBe(0);
  } finally {
    await node.shutdown();
  }
});
