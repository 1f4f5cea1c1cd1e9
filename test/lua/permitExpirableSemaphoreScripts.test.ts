/**
 * The RPermitExpirableSemaphore scripts called directly on a real server, with assertions on the resulting
 * data and on every message published (PROTOCOL.md §6.2): the same keys, values and messages as Redisson's
 * `RedissonPermitExpirableSemaphore` scripts, plus the request latch of the release and `trySetPermits`
 * (not in Redisson): a run re-sent under the same latch answers as the first run did and changes nothing;
 * an answer that changed nothing sets no latch.
 */
import type { Redis } from 'ioredis';
import { beforeAll, describe, expect, it } from 'vitest';
import { evalScript } from '../../src/connection/ioredis/scripts.js';
import { permitExpirableTimeoutName, semaphoreChannelName, unlockLatchName } from '../../src/keys.js';
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

const LATCH_TTL = 15_000;
const latchOf = (name: string): string => unlockLatchName(name, Math.random().toString(16).slice(2).padEnd(32, '0').slice(0, 32));
const leases = (name: string): string => permitExpirableTimeoutName(name);
const id = (n: number): Buffer => Buffer.alloc(16, n);

const tryAcquire = (name: string, ids: readonly Buffer[], score: number, now = Date.now()): Promise<unknown> =>
  evalScript(redis, 'permitExpirableSemaphore/tryAcquire', [name, leases(name), semaphoreChannelName(name)], [ids.length, score, now, NON_EXPIRABLE_SCORE, 'PUBLISH', ...ids]);
const tryRelease = (name: string, permit: Buffer, latch: string, now = Date.now()): Promise<unknown> =>
  evalScript(redis, 'permitExpirableSemaphore/tryRelease', [name, semaphoreChannelName(name), leases(name), latch], [permit, 1, now, 'PUBLISH', LATCH_TTL]);
const tryReleaseMany = (name: string, ids: readonly Buffer[], latch: string, now = Date.now()): Promise<unknown> =>
  evalScript(redis, 'permitExpirableSemaphore/tryReleaseMany', [name, semaphoreChannelName(name), leases(name), latch], [ids.length, now, 'PUBLISH', LATCH_TTL, ...ids]);
const trySetPermits = (name: string, permits: number, latch: string): Promise<unknown> =>
  evalScript(redis, 'permitExpirableSemaphore/trySetPermits', [name, semaphoreChannelName(name), latch], [permits, 'PUBLISH', LATCH_TTL]);

describe('permitExpirableSemaphore/trySetPermits', () => {
  it('sets a missing semaphore once; a re-sent run answers 1 from its latch; an existing one gets no latch', async () => {
    const name = uniqueName('pes');
    const from = await mark();
    const latch = latchOf(name);
    expect(await trySetPermits(name, 3, latch)).toBe(1);
    expect(await redis.get(name)).toBe('3');
    expect(await redis.get(latch)).toBe('1');
    expect(await redis.pttl(latch)).toBeGreaterThan(0);
    // Re-sent after a lost reply: the same answer, nothing set or published again.
    expect(await trySetPermits(name, 3, latch)).toBe(1);
    expect(await redis.get(name)).toBe('3');
    const other = latchOf(name);
    expect(await trySetPermits(name, 5, other)).toBe(0);
    expect(await redis.get(name)).toBe('3');
    expect(await redis.exists(other)).toBe(0);
    expect(await messagesSince(from)).toEqual([`${semaphoreChannelName(name)} 3`]);
  });
});

describe('permitExpirableSemaphore/tryRelease', () => {
  it('releases a held permit once: the total published, 1 kept in the latch and answered to a re-send', async () => {
    const name = uniqueName('pes');
    await redis.set(name, '2');
    expect(await tryAcquire(name, [id(1)], Date.now() + 60_000)).toBe('OK');
    expect(await redis.get(name)).toBe('1');
    const from = await mark();
    const latch = latchOf(name);
    expect(await tryRelease(name, id(1), latch)).toBe(1);
    expect(await redis.get(name)).toBe('2');
    expect(await redis.zcard(leases(name))).toBe(0);
    expect(await redis.get(latch)).toBe('1');
    expect(await tryRelease(name, id(1), latch)).toBe(1);
    expect(await redis.get(name)).toBe('2');
    expect(await messagesSince(from)).toEqual([`${semaphoreChannelName(name)} 2`]);
  });

  it('an unknown or released id answers 0, changes nothing and sets no latch', async () => {
    const name = uniqueName('pes');
    await redis.set(name, '1');
    const from = await mark();
    const latch = latchOf(name);
    expect(await tryRelease(name, id(9), latch)).toBe(0);
    expect(await redis.exists(latch)).toBe(0);
    expect(await redis.get(name)).toBe('1');
    expect(await messagesSince(from)).toEqual([]);
  });

  it('an expired permit answers 0 but still returns to the pool, once: the latch keeps the 0', async () => {
    const name = uniqueName('pes');
    await redis.set(name, '1');
    const now = Date.now();
    expect(await tryAcquire(name, [id(2)], now + 1_000, now)).toBe('OK');
    const from = await mark();
    const latch = latchOf(name);
    expect(await tryRelease(name, id(2), latch, now + 2_000)).toBe(0);
    expect(await redis.get(name)).toBe('1');
    expect(await redis.get(latch)).toBe('0');
    expect(await tryRelease(name, id(2), latch, now + 2_000)).toBe(0);
    expect(await redis.get(name)).toBe('1');
    expect(await messagesSince(from)).toEqual([`${semaphoreChannelName(name)} 1`]);
  });
});

describe('permitExpirableSemaphore/tryReleaseMany', () => {
  it('releases every id, all or none, once: the count published and kept in the latch', async () => {
    const name = uniqueName('pes');
    await redis.set(name, '4');
    const ids = [id(3), id(4), id(5)];
    expect(await tryAcquire(name, ids, Date.now() + 60_000)).toBe('OK');
    expect(await redis.get(name)).toBe('1');
    const from = await mark();
    const latch = latchOf(name);
    expect(await tryReleaseMany(name, ids, latch)).toBe(3);
    expect(await redis.get(name)).toBe('4');
    expect(await redis.get(latch)).toBe('3');
    expect(await tryReleaseMany(name, ids, latch)).toBe(3);
    expect(await redis.get(name)).toBe('4');
    expect(await redis.zcard(leases(name))).toBe(0);
    expect(await messagesSince(from)).toEqual([`${semaphoreChannelName(name)} 3`]);
  });

  it('an unknown id among them: 0, nothing released, no latch', async () => {
    const name = uniqueName('pes');
    await redis.set(name, '2');
    expect(await tryAcquire(name, [id(6)], Date.now() + 60_000)).toBe('OK');
    const from = await mark();
    const latch = latchOf(name);
    expect(await tryReleaseMany(name, [id(6), id(7)], latch)).toBe(0);
    expect(await redis.exists(latch)).toBe(0);
    expect(await redis.get(name)).toBe('1');
    expect(await redis.zcard(leases(name))).toBe(1);
    expect(await messagesSince(from)).toEqual([]);
  });
});
