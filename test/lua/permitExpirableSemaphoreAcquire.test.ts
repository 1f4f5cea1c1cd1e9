/**
 * The RPermitExpirableSemaphore scripts that take and keep permits — `tryAcquire`, `updateLeaseTime`,
 * `getLeaseTime` — called directly on a real server, with assertions on the semaphore `N`, the leases zset
 * `{N}:timeout` (16-byte ids scored by expiry) and every message published (docs/protocol.md §6.2). Expiry is
 * driven by the `now` argument the client passes, never by waiting.
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

const tryAcquire = (name: string, ids: readonly Buffer[], score: number, now = NOW): Promise<unknown> =>
  evalScript(redis, 'permitExpirableSemaphore/tryAcquire', [name, leases(name), channel(name)], [ids.length, score, now, NON_EXPIRABLE_SCORE, 'PUBLISH', ...ids]);
const updateLeaseTime = (name: string, permit: Buffer, score: number, now = NOW): Promise<unknown> =>
  evalScript(redis, 'permitExpirableSemaphore/updateLeaseTime', [name, leases(name), channel(name)], [permit, score, now, 'PUBLISH']);
const getLeaseTime = (name: string, permit: Buffer, now = NOW): Promise<unknown> =>
  evalScript(redis, 'permitExpirableSemaphore/getLeaseTime', [name, leases(name), channel(name)], [permit, NON_EXPIRABLE_SCORE, now, 'PUBLISH']);

/** The leases zset as `[id hex, score]` pairs, lowest score first. */
async function leasesOf(name: string): Promise<[string, number][]> {
  const flat = await redis.zrangeBuffer(leases(name), 0, -1, 'WITHSCORES');
  const pairs: [string, number][] = [];
  for (let i = 0; i < flat.length; i += 2) pairs.push([(flat[i] as Buffer).toString('hex'), Number((flat[i + 1] as Buffer).toString())]);
  return pairs;
}

describe('permitExpirableSemaphore/tryAcquire', () => {
  it('takes n permits: N decremented, one zset member per id at the lease score, nothing published', async () => {
    const name = uniqueName('pes');
    await redis.set(name, '5');
    const from = await mark();
    expect(await tryAcquire(name, [id(1), id(2), id(3)], NOW + 30_000)).toBe('OK');
    expect(await redis.get(name)).toBe('2');
    expect(await leasesOf(name)).toEqual([
      [id(1).toString('hex'), NOW + 30_000],
      [id(2).toString('hex'), NOW + 30_000],
      [id(3).toString('hex'), NOW + 30_000],
    ]);
    expect(await redis.pttl(leases(name))).toBe(-1);
    expect(await messagesSince(from)).toEqual([]);
  });

  it('a permit without a lease is scored 922337203685477', async () => {
    const name = uniqueName('pes');
    await redis.set(name, '1');
    expect(await tryAcquire(name, [id(4)], NON_EXPIRABLE_SCORE)).toBe('OK');
    expect(await leasesOf(name)).toEqual([[id(4).toString('hex'), NON_EXPIRABLE_SCORE]]);
    expect(await redis.get(name)).toBe('0');
  });

  it('the leases take the semaphore key’s remaining time to live', async () => {
    const name = uniqueName('pes');
    await redis.set(name, '2', 'PX', 600_000);
    expect(await tryAcquire(name, [id(5)], NOW + 30_000)).toBe('OK');
    const ttl = await redis.pttl(leases(name));
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(600_000);
  });

  it('too few permits: nothing changes; answers the earliest lease expiry as ":<score>"', async () => {
    const name = uniqueName('pes');
    await redis.set(name, '2');
    expect(await tryAcquire(name, [id(6)], NOW + 50_000)).toBe('OK');
    expect(await tryAcquire(name, [id(7)], NOW + 20_000)).toBe('OK');
    const from = await mark();
    expect(await tryAcquire(name, [id(8)], NOW + 10_000)).toBe(`:${NOW + 20_000}`);
    expect(await redis.get(name)).toBe('0');
    expect((await leasesOf(name)).map(([hex]) => hex)).toEqual([id(7).toString('hex'), id(6).toString('hex')]);
    expect(await messagesSince(from)).toEqual([]);
  });

  it('too few permits and only permits without a lease: nil (nothing will free one by itself)', async () => {
    const name = uniqueName('pes');
    await redis.set(name, '1');
    expect(await tryAcquire(name, [id(9)], NON_EXPIRABLE_SCORE)).toBe('OK');
    expect(await tryAcquire(name, [id(10)], NON_EXPIRABLE_SCORE)).toBeNull();
    expect(await redis.get(name)).toBe('0');
  });

  it('a missing semaphore has no permits: nil, and nothing is created', async () => {
    const name = uniqueName('pes');
    expect(await tryAcquire(name, [id(11)], NOW + 1_000)).toBeNull();
    expect(await redis.exists(name, leases(name))).toBe(0);
  });

  it('reclaims up to n expired leases first, publishes the new total, then takes from it', async () => {
    const name = uniqueName('pes');
    await redis.set(name, '3');
    expect(await tryAcquire(name, [id(12), id(13), id(14)], NOW + 1_000)).toBe('OK');
    const from = await mark();
    // At NOW + 2 s all three have expired; a request for 2 reclaims only 2 of them (LIMIT n), then takes 2.
    expect(await tryAcquire(name, [id(15), id(16)], NOW + 60_000, NOW + 2_000)).toBe('OK');
    expect(await redis.get(name)).toBe('0');
    const left = await leasesOf(name);
    expect(left.map(([hex]) => hex)).toEqual([id(14).toString('hex'), id(15).toString('hex'), id(16).toString('hex')]);
    expect(await messagesSince(from)).toEqual([`${channel(name)} 2`]);
  });

  it('a reclaim that leaves the total at 0 or below publishes nothing', async () => {
    const name = uniqueName('pes');
    await redis.set(name, '1');
    expect(await tryAcquire(name, [id(17)], NOW + 1_000)).toBe('OK');
    await redis.set(name, '-3');
    const from = await mark();
    expect(await tryAcquire(name, [id(18)], NOW + 60_000, NOW + 2_000)).toBeNull();
    expect(await redis.get(name)).toBe('-2');
    expect(await redis.zcard(leases(name))).toBe(0);
    expect(await messagesSince(from)).toEqual([]);
  });
});

describe('permitExpirableSemaphore/updateLeaseTime', () => {
  it('a held permit gets the new score: 1, nothing else changes', async () => {
    const name = uniqueName('pes');
    await redis.set(name, '2');
    expect(await tryAcquire(name, [id(20)], NOW + 1_000)).toBe('OK');
    const from = await mark();
    expect(await updateLeaseTime(name, id(20), NOW + 90_000)).toBe(1);
    expect(await leasesOf(name)).toEqual([[id(20).toString('hex'), NOW + 90_000]]);
    expect(await redis.get(name)).toBe('1');
    expect(await updateLeaseTime(name, id(20), NON_EXPIRABLE_SCORE)).toBe(1);
    expect(await leasesOf(name)).toEqual([[id(20).toString('hex'), NON_EXPIRABLE_SCORE]]);
    expect(await messagesSince(from)).toEqual([]);
  });

  it('an unknown id: 0, no member added', async () => {
    const name = uniqueName('pes');
    await redis.set(name, '1');
    expect(await updateLeaseTime(name, id(21), NOW + 90_000)).toBe(0);
    expect(await redis.exists(leases(name))).toBe(0);
    expect(await redis.get(name)).toBe('1');
  });

  it('an expired permit is reclaimed first (total published) and answers 0: it is not renewed', async () => {
    const name = uniqueName('pes');
    await redis.set(name, '1');
    expect(await tryAcquire(name, [id(22)], NOW + 1_000)).toBe('OK');
    const from = await mark();
    expect(await updateLeaseTime(name, id(22), NOW + 90_000, NOW + 2_000)).toBe(0);
    expect(await redis.zcard(leases(name))).toBe(0);
    expect(await redis.get(name)).toBe('1');
    expect(await messagesSince(from)).toEqual([`${channel(name)} 1`]);
  });
});

describe('permitExpirableSemaphore/getLeaseTime', () => {
  it('a leased permit: the ms left from `now`; a permit without a lease: -1; changes nothing', async () => {
    const name = uniqueName('pes');
    await redis.set(name, '2');
    expect(await tryAcquire(name, [id(30)], NOW + 45_000)).toBe('OK');
    expect(await tryAcquire(name, [id(31)], NON_EXPIRABLE_SCORE)).toBe('OK');
    const from = await mark();
    expect(await getLeaseTime(name, id(30), NOW + 5_000)).toBe(40_000);
    expect(await getLeaseTime(name, id(31), NOW + 5_000)).toBe(-1);
    expect(await redis.get(name)).toBe('0');
    expect(await redis.zcard(leases(name))).toBe(2);
    expect(await messagesSince(from)).toEqual([]);
  });

  it('an unknown id: 0', async () => {
    const name = uniqueName('pes');
    await redis.set(name, '1');
    expect(await getLeaseTime(name, id(32))).toBe(0);
  });

  it('an expired permit is reclaimed (total published) and answers 0', async () => {
    const name = uniqueName('pes');
    await redis.set(name, '2');
    expect(await tryAcquire(name, [id(33), id(34)], NOW + 1_000)).toBe('OK');
    const from = await mark();
    expect(await getLeaseTime(name, id(33), NOW + 1_000)).toBe(0);
    expect(await redis.get(name)).toBe('2');
    expect(await redis.zcard(leases(name))).toBe(0);
    expect(await messagesSince(from)).toEqual([`${channel(name)} 2`]);
  });
});
