/**
 * RedissonSemaphoreTest's concurrency scenarios (PROTOCOL.md §14.5): many clients and tasks on one
 * semaphore. Each holder counts itself in while it holds, so a semaphore that admitted one holder too
 * many is caught at once; a non-atomic counter updated under a 1-permit semaphore must stay exact; every
 * run must finish (a lost wake-up would hang it: there is no time-based retry).
 */
import { describe, expect, it } from 'vitest';
import { MAX_PERMITS, type Redisson } from '../../src/index.js';
import { uniqueName, useRedis } from '../support/redis.js';
import { within } from './syncHelpers.js';

const suite = useRedis();
const clientsOf = (n: number): Redisson[] => Array.from({ length: n }, () => suite.clients.client());

/** Runs `tasks` that each take `need()` permits `iterations` times; answers the most holders seen at once. */
async function run(name: string, clients: Redisson[], tasksPerClient: number, iterations: number, need: () => number, inside: () => Promise<void>): Promise<{ maxHeld: number }> {
  let held = 0;
  let maxHeld = 0;
  const task = async (client: Redisson): Promise<void> => {
    const s = client.getSemaphore(name);
    for (let i = 0; i < iterations; i++) {
      const n = need();
      await s.acquire(n);
      held += n;
      maxHeld = Math.max(maxHeld, held);
      try {
        await inside();
      } finally {
        held -= n;
        await s.release(n);
      }
    }
  };
  await within(Promise.all(clients.flatMap((c) => Array.from({ length: tasksPerClient }, () => task(c)))), 'every task', 30_000);
  return { maxHeld };
}

describe('RedissonSemaphoreTest concurrency', () => {
  it('testConcurrency_SingleInstance: 1 permit is a mutex for 15 concurrent tasks; a GET/SET counter stays exact', async () => {
    const name = uniqueName('sem');
    const counter = `${name}:counter`;
    const [client] = clientsOf(1) as [Redisson];
    const raw = suite.clients.raw();
    await client.getSemaphore(name).trySetPermits(1);
    const { maxHeld } = await run(name, [client], 15, 4, () => 1, async () => {
      const v = Number((await raw.get(counter)) ?? '0');
      await new Promise((r) => setTimeout(r, 1));
      await raw.set(counter, String(v + 1));
    });
    expect(maxHeld).toBe(1);
    expect(await raw.get(counter)).toBe('60');
    expect(await client.getSemaphore(name).availablePermits()).toBe(1);
  });

  it('testConcurrencyLoop_MultiInstance: 1 permit, 16 clients × 20 iterations', async () => {
    const name = uniqueName('sem');
    const clients = clientsOf(16);
    await clients[0]?.getSemaphore(name).trySetPermits(1);
    const { maxHeld } = await run(name, clients, 1, 20, () => 1, () => Promise.resolve());
    expect(maxHeld).toBe(1);
    expect(await clients[0]?.getSemaphore(name).availablePermits()).toBe(1);
  });

  it('testConcurrency_MultiInstance_1_permits: 1 permit, 30 clients', async () => {
    const name = uniqueName('sem');
    const clients = clientsOf(30);
    await clients[0]?.getSemaphore(name).trySetPermits(1);
    const { maxHeld } = await run(name, clients, 1, 2, () => 1, () => new Promise((r) => setTimeout(r, 1)));
    expect(maxHeld).toBe(1);
    expect(await clients[0]?.getSemaphore(name).availablePermits()).toBe(1);
  });

  it('testConcurrencyLoopMax_MultiInstance: Integer.MAX_VALUE permits, 4 clients take 1 or all of them', async () => {
    const name = uniqueName('sem');
    const clients = clientsOf(4);
    await clients[0]?.getSemaphore(name).trySetPermits(MAX_PERMITS);
    let i = 0;
    const { maxHeld } = await run(name, clients, 1, 10, () => (i++ % 2 === 0 ? MAX_PERMITS : 1), () => new Promise((r) => setTimeout(r, 1)));
    expect(maxHeld).toBeLessThanOrEqual(MAX_PERMITS);
    expect(await clients[0]?.getSemaphore(name).availablePermits()).toBe(MAX_PERMITS);
  });

  it('3 permits, 4 clients × 3 tasks taking 1 or 2: never more than 3 held', async () => {
    const name = uniqueName('sem');
    const clients = clientsOf(4);
    await clients[0]?.getSemaphore(name).trySetPermits(3);
    let i = 0;
    const { maxHeld } = await run(name, clients, 3, 10, () => 1 + (i++ % 2), () => new Promise((r) => setTimeout(r, 1)));
    expect(maxHeld).toBeLessThanOrEqual(3);
    expect(maxHeld).toBeGreaterThanOrEqual(2);
    expect(await clients[0]?.getSemaphore(name).availablePermits()).toBe(3);
  });
});
