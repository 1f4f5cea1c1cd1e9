/**
 * The RPermitExpirableSemaphore scripts that count or resize — `availablePermits`, `getPermits`,
 * `acquiredPermits`, `setPermits`, `addPermits` — called directly on a real server, with assertions on `N`,
 * the leases zset `{N}:timeout` and every message published (docs/protocol.md §6.2). Expiry is driven by the
 * `now` argument, never by waiting.
 */
import type { Redis } from 'ioredis';
import { beforeAll, describe, expect, it } from 'vitest';
import { evalScript } from '../../src/connection/ioredis/scripts.js';
import { permitExpirableTimeoutName, semaphoreChannelName } from '../../src/keys.js';
import { NON_EXPIRABLE_SCORE } from '../../src/index.js';
import { uniqueName } from '../support/redis.js';
import { useScriptSuite } from '../support/scriptSuite.js';

const suite = useScriptSuite('redisson_sc:*', 'redisson_sc:mark');
let redis: Redis;
beforeAll(() => {
  redis = suite.redis;
});
const mark = (): Promise<number> => suite.mark();
const messagesSince = (from: number): Promise<string[]> => suite.messagesSince(from);

const leases = (name: string): string => permitExpirableTimeoutName(name);
const channel = (name: string): string => semaphoreChannelName(name);
const id = (n: number): Buffer => Buffer.alloc(16, n);
const NOW = 1_700_000_000_000;
type Count = 'availablePermits' | 'getPermits' | 'acquiredPermits';

const count = (op: Count, name: string, now = NOW): Promise<unknown> =>
  evalScript(redis, `permitExpirableSemaphore/${op}`, [name, leases(name), channel(name)], [now, 'PUBLISH']);
const setPermits = (name: string, permits: number): Promise<unknown> =>
  evalScript(redis, 'permitExpirableSemaphore/setPermits', [name, channel(name), leases(name)], [permits, 'PUBLISH']);
const addPermits = (name: string, permits: number): Promise<unknown> =>
  evalScript(redis, 'permitExpirableSemaphore/addPermits', [name, channel(name)], [permits, 'PUBLISH']);

/** A semaphore with `available` free permits and the given leases (id byte → score), written as the scripts do. */
async function seed(name: string, available: number, held: Record<number, number>): Promise<void> {
  await redis.set(name, String(available));
  for (const [n, score] of Object.entries(held)) await redis.zadd(leases(name), score, id(Number(n)));
}

describe('permitExpirableSemaphore counts: availablePermits, getPermits, acquiredPermits', () => {
  it('nothing expired: the counts of N and the zset; nothing changes or is published', async () => {
    const name = uniqueName('pes');
    await seed(name, 2, { 1: NOW + 10_000, 2: NON_EXPIRABLE_SCORE });
    const from = await mark();
    expect(await count('availablePermits', name)).toBe(2);
    expect(await count('getPermits', name)).toBe(4);
    expect(await count('acquiredPermits', name)).toBe(2);
    expect(await redis.get(name)).toBe('2');
    expect(await redis.zcard(leases(name))).toBe(2);
    expect(await messagesSince(from)).toEqual([]);
  });

  it('a missing semaphore: 0 for each, and nothing is created', async () => {
    const name = uniqueName('pes');
    expect(await count('availablePermits', name)).toBe(0);
    expect(await count('getPermits', name)).toBe(0);
    expect(await count('acquiredPermits', name)).toBe(0);
    expect(await redis.exists(name, leases(name))).toBe(0);
  });

  for (const op of ['availablePermits', 'getPermits', 'acquiredPermits'] as const) {
    it(`${op} reclaims every expired lease first (no limit) and publishes the new total once`, async () => {
      const name = uniqueName('pes');
      // Two expired at NOW (score ≤ now counts as expired), one still leased, one without a lease.
      await seed(name, 1, { 1: NOW - 5, 2: NOW, 3: NOW + 10_000, 4: NON_EXPIRABLE_SCORE });
      const from = await mark();
      const expected = { availablePermits: 3, getPermits: 5, acquiredPermits: 2 }[op];
      expect(await count(op, name)).toBe(expected);
      expect(await redis.get(name)).toBe('3');
      expect((await redis.zrangeBuffer(leases(name), 0, -1)).map((b) => b.toString('hex'))).toEqual([id(3).toString('hex'), id(4).toString('hex')]);
      expect(await messagesSince(from)).toEqual([`${channel(name)} 3`]);
      // A second call finds nothing expired: same answer, nothing published.
      expect(await count(op, name)).toBe(expected);
      expect(await messagesSince(from)).toEqual([`${channel(name)} 3`]);
    });
  }

  it('a reclaim that leaves the total at 0 or below publishes nothing', async () => {
    const name = uniqueName('pes');
    await seed(name, -2, { 1: NOW - 1 });
    const from = await mark();
    expect(await count('availablePermits', name)).toBe(-1);
    expect(await redis.get(name)).toBe('-1');
    expect(await redis.zcard(leases(name))).toBe(0);
    expect(await messagesSince(from)).toEqual([]);
  });
});

describe('permitExpirableSemaphore/setPermits', () => {
  it('a missing semaphore is set to p and p is published', async () => {
    const name = uniqueName('pes');
    const from = await mark();
    expect(await setPermits(name, 5)).toBeNull();
    expect(await redis.get(name)).toBe('5');
    expect(await messagesSince(from)).toEqual([`${channel(name)} 5`]);
  });

  it('moves the available permits by p − (available + leased); leases stay; p is published', async () => {
    const name = uniqueName('pes');
    await seed(name, 1, { 1: NOW + 10_000, 2: NON_EXPIRABLE_SCORE });
    const from = await mark();
    await setPermits(name, 6);
    expect(await redis.get(name)).toBe('4');
    await setPermits(name, 1);
    expect(await redis.get(name)).toBe('-1');
    expect(await redis.zcard(leases(name))).toBe(2);
    expect(await messagesSince(from)).toEqual([`${channel(name)} 6`, `${channel(name)} 1`]);
  });

  it('the size already p: nothing changes, nothing is published (safe to repeat)', async () => {
    const name = uniqueName('pes');
    await seed(name, 2, { 1: NOW + 10_000 });
    const from = await mark();
    await setPermits(name, 3);
    expect(await redis.get(name)).toBe('2');
    expect(await messagesSince(from)).toEqual([]);
  });

  it('does not reclaim: an expired lease still counts towards the size', async () => {
    const name = uniqueName('pes');
    await seed(name, 0, { 1: NOW - 60_000 });
    await setPermits(name, 2);
    expect(await redis.get(name)).toBe('1');
    expect(await redis.zcard(leases(name))).toBe(1);
  });
});

describe('permitExpirableSemaphore/addPermits', () => {
  it('a positive change adds to N (creating it) and publishes the change itself, not the total', async () => {
    const name = uniqueName('pes');
    const from = await mark();
    expect(await addPermits(name, 3)).toBeNull();
    expect(await redis.get(name)).toBe('3');
    await addPermits(name, 2);
    expect(await redis.get(name)).toBe('5');
    expect(await messagesSince(from)).toEqual([`${channel(name)} 3`, `${channel(name)} 2`]);
  });

  it('a negative change removes permits, below zero if need be, and publishes nothing; leases untouched', async () => {
    const name = uniqueName('pes');
    await seed(name, 1, { 1: NOW + 10_000 });
    const from = await mark();
    await addPermits(name, -3);
    expect(await redis.get(name)).toBe('-2');
    expect(await redis.zcard(leases(name))).toBe(1);
    expect(await messagesSince(from)).toEqual([]);
  });

  it('a missing semaphore with a negative change is created below zero', async () => {
    const name = uniqueName('pes');
    await addPermits(name, -1);
    expect(await redis.get(name)).toBe('-1');
  });
});
