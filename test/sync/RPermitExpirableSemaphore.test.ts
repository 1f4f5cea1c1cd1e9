/**
 * RPermitExpirableSemaphore on a real server, following Redisson's RedissonPermitExpirableSemaphoreTest
 * (PROTOCOL.md §14.6; checklist in test/README.md), plus the wire layout (ids as 16 raw bytes, the
 * never-expires score), the wake-up rules (a release message, or at the latest the earliest lease's expiry —
 * never polling), reclaiming with its publish, aborts, shutdown and bad input.
 *
 * Lease expiries are real time passing on the server's data; assertions wait for their effect (`eventually`)
 * and never on how long it took.
 */
import type { Redis } from 'ioredis';
import { beforeAll, describe, expect, it } from 'vitest';
import { NON_EXPIRABLE_SCORE, PermitNotHeldError, RedissonShutdownError, TimeUnit, type RPermitExpirableSemaphore } from '../../src/index.js';
import { eventually, sleep, uniqueName, useRedis } from '../support/redis.js';
import { allCalls, calls, noSubscriptions, numSub, parked, tracked, within } from './syncHelpers.js';

const suite = useRedis();
let raw: Redis;
beforeAll(() => {
  raw = suite.clients.raw();
});
const pes = (name: string): RPermitExpirableSemaphore => suite.clients.client().getPermitExpirableSemaphore(name);
const gets = (): Promise<number> => calls(raw, 'get');
const HEX_ID = /^[0-9a-f]{32}$/;

/** Messages published on `channel` while `fn` runs. */
async function messagesDuring(channel: string, fn: () => Promise<void>): Promise<string[]> {
  const sub = suite.clients.raw();
  const seen: string[] = [];
  sub.on('message', (c: string, m: string) => {
    if (c === channel) seen.push(m);
  });
  await sub.subscribe(channel);
  await fn();
  await raw.publish(channel, 'end-marker');
  await eventually(() => seen.includes('end-marker'), 5_000, 'the end marker');
  await sub.unsubscribe(channel);
  return seen.filter((m) => m !== 'end-marker');
}

describe('wire layout', () => {
  it('an id is 32 lowercase hex digits, stored as its 16 raw bytes with the never-expires score; a lease scores now + lease', async () => {
    const name = uniqueName('pes');
    const s = pes(name);
    expect(await s.trySetPermits(3)).toBe(true);
    const id = await s.acquire();
    expect(id).toMatch(HEX_ID);
    const members = await raw.zrangeBuffer(`{${name}}:timeout`, 0, -1, 'WITHSCORES');
    expect(members).toHaveLength(2);
    expect((members[0] as Buffer).equals(Buffer.from(id, 'hex'))).toBe(true);
    expect(Number(String(members[1]))).toBe(NON_EXPIRABLE_SCORE);
    expect(await raw.get(name)).toBe('2');

    const before = Date.now();
    const leased = await s.acquire(60, TimeUnit.SECONDS);
    const score = Number(await raw.zscore(`{${name}}:timeout`, Buffer.from(leased, 'hex')));
    expect(score).toBeGreaterThanOrEqual(before + 60_000);
    expect(score).toBeLessThanOrEqual(Date.now() + 60_000);
    expect(await s.getLeaseTime(id)).toBe(-1);
    const left = await s.getLeaseTime(leased);
    expect(left).toBeGreaterThan(0);
    expect(left).toBeLessThanOrEqual(60_000);
  });

  it('acquire(n) answers n ids, one zset member each (Redisson ≥ 3.23.4); a hash-tagged name keeps its tag in the leases key', async () => {
    const name = `{${uniqueName('tag')}}:pes`;
    const s = pes(name);
    await s.trySetPermits(10);
    const ids = await s.acquire(6);
    expect(ids).toHaveLength(6);
    expect(new Set(ids).size).toBe(6);
    for (const id of ids) expect(id).toMatch(HEX_ID);
    expect(await raw.zcard(`${name}:timeout`)).toBe(6);
    expect(await s.availablePermits()).toBe(4);
    await s.release(ids);
    expect(await s.availablePermits()).toBe(10);
  });

  it('reclaiming expired permits returns them to the pool and publishes the new total on redisson_sc:{N}', async () => {
    const name = uniqueName('pes');
    const s = pes(name);
    await s.trySetPermits(2);
    await s.tryAcquire(2, 0, 50); // two permits, 50 ms leases
    // Read from the data, not through availablePermits(), which would already reclaim leases a loaded
    // machine let run out (seen on the ioredis 6 legs at load 20).
    expect([await raw.get(name), await raw.zcard(`{${name}}:timeout`)]).toEqual(['0', 2]);
    await sleep(80);
    const published = await messagesDuring(`redisson_sc:{${name}}`, async () => {
      expect(await s.availablePermits()).toBe(2);
    });
    expect(published).toEqual(['2']);
    expect(await raw.zcard(`{${name}}:timeout`)).toBe(0);
  });
});

describe('RedissonPermitExpirableSemaphoreTest', () => {
  it('testNotExistent: no permits, nothing acquired', async () => {
    const s = pes(uniqueName('pes'));
    expect(await s.availablePermits()).toBe(0);
    expect(await s.getPermits()).toBe(0);
    expect(await s.acquiredPermits()).toBe(0);
    expect(await s.tryAcquire()).toBeNull();
    expect(await s.tryAcquire(2)).toEqual([]);
  });

  it('testAvailablePermits / testAcquiredPermits / testGetPermits: leases come back after they expire', async () => {
    const s = pes(uniqueName('pes'));
    await s.trySetPermits(2);
    expect(await s.tryAcquire(200, 300)).toMatch(HEX_ID);
    expect(await s.acquiredPermits()).toBe(1);
    expect(await s.tryAcquire(200, 300)).toMatch(HEX_ID);
    expect(await s.tryAcquire()).toBeNull();
    expect(await s.availablePermits()).toBe(0);
    expect(await s.acquiredPermits()).toBe(2);
    expect(await s.getPermits()).toBe(2);
    await eventually(async () => (await s.availablePermits()) === 2, 5_000, 'the leases to expire');
    expect(await s.acquiredPermits()).toBe(0);
    expect(await s.getPermits()).toBe(2);
  });

  it('testTrySetPermits / testSetPermits / testAddPermits', async () => {
    const s = pes(uniqueName('pes'));
    expect(await s.trySetPermits(10)).toBe(true);
    expect(await s.trySetPermits(15)).toBe(false);
    expect(await s.availablePermits()).toBe(10);
    await s.setPermits(15);
    expect(await s.availablePermits()).toBe(15);
    await s.setPermits(15);
    await s.setPermits(5);
    expect(await s.availablePermits()).toBe(5);
    await s.acquire(3);
    await s.setPermits(3); // 3 leased: none available
    expect(await s.availablePermits()).toBe(0);
    await s.setPermits(2);
    expect(await s.availablePermits()).toBe(-1);
    expect(await s.getPermits()).toBe(2);

    const a = pes(uniqueName('pes'));
    await a.trySetPermits(10);
    await a.addPermits(5);
    expect(await a.availablePermits()).toBe(15);
    await a.addPermits(-10);
    expect(await a.availablePermits()).toBe(5);
    await a.addPermits(-10);
    expect(await a.availablePermits()).toBe(-5);
  });

  it('testBlockingAcquire: acquire() waits for another client to release the id (woken by the message)', async () => {
    const name = uniqueName('pes');
    const s = pes(name);
    await s.trySetPermits(1);
    const id = await s.acquire();
    const from = await gets();
    const waiter = tracked(pes(name).acquire());
    await parked(raw, from, 1);
    expect(waiter.settled).toBe(false);
    await pes(name).release(id); // another object, another client: permits are released by id
    expect(await within(waiter.promise, 'waiter')).toMatch(HEX_ID);
    expect(await s.availablePermits()).toBe(0);
  });

  it('testExpire / testExpireTryAcquire: a waiter takes a permit whose lease ran out, with no release message; the old id no longer releases', async () => {
    const name = uniqueName('pes');
    const s = pes(name);
    await s.trySetPermits(1);
    const old = await s.acquire(300, TimeUnit.MILLISECONDS);
    const from = await gets();
    const published = await messagesDuring(`redisson_sc:{${name}}`, async () => {
      const waiter = tracked(pes(name).acquire());
      const trier = tracked(pes(name).tryAcquire(10, 300, TimeUnit.SECONDS));
      // Both parked with the lease's expiry as their retry time; at most one of them gets the permit.
      await parked(raw, from, 2);
      const got = await within(Promise.race([waiter.promise, trier.promise]), 'a waiter after the lease ran out');
      expect(got).toMatch(HEX_ID);
      // No polling: each waiter made its first attempt, its attempt after subscribing, and one at the expiry; the
      // winner's attempt reclaims the expired permit and publishes, and that message wakes the other waiter (its own
      // client) once more when its own expiry attempt was already sent: 7 at most.
      expect((await gets()) - from).toBeLessThanOrEqual(7);
      const winner = waiter.settled ? await waiter.promise : await trier.promise;
      await s.release(winner as string);
      await within(Promise.all([waiter.promise, trier.promise]), 'the other waiter');
    });
    // The reclaim of the expired permit published the new total; each release published too.
    expect(published[0]).toBe('1');
    expect(await s.tryRelease(old)).toBe(false);
  });

  it('testTryAcquire / testTryAcquireMany: tryAcquire(4) then (5) of 10 leaves 1; tryAcquire(wait) gets a permit released meanwhile', async () => {
    const name = uniqueName('pes');
    const s = pes(name);
    await s.trySetPermits(10);
    expect(await s.tryAcquire(4)).toHaveLength(4);
    expect(await s.tryAcquire(5)).toHaveLength(5);
    expect(await s.availablePermits()).toBe(1);
    const last = await s.tryAcquire();
    expect(last).toMatch(HEX_ID);
    expect(await s.tryAcquire()).toBeNull();
    const from = await gets();
    const waiting = tracked(pes(name).tryAcquire(10, TimeUnit.SECONDS));
    await parked(raw, from, 1);
    await s.release(last as string);
    expect(await within(waiting.promise, 'tryAcquire(wait)')).toMatch(HEX_ID);
  });

  it('testReleaseWithoutPermits / testReleaseExpired: release of an unknown id throws; tryRelease of an expired one is false', async () => {
    const s = pes(uniqueName('pes'));
    await s.trySetPermits(1);
    await expect(s.release('1234')).rejects.toThrow(PermitNotHeldError);
    await expect(s.release('1234')).rejects.toThrow('Permit with id 1234 has already been released or doesn\'t exist');
    const id = (await s.tryAcquire(0, 100)) as string;
    expect(id).toMatch(HEX_ID);
    await sleep(150);
    expect(await s.tryRelease(id)).toBe(false);
    expect(await s.availablePermits()).toBe(1); // the expired permit still went back
  });

  it('testRelease / testReleaseManyNotExistOrExpired: a list is released all or nothing', async () => {
    const s = pes(uniqueName('pes'));
    await s.trySetPermits(10);
    const four = await s.acquire(4);
    const two = await s.acquire(2);
    await s.release(four);
    expect(await s.availablePermits()).toBe(8);
    expect(await s.tryRelease(two)).toBe(2);
    expect(await s.availablePermits()).toBe(10);
    const error = await s.release(four).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PermitNotHeldError);
    expect((error as PermitNotHeldError).permitIds).toEqual(four);

    const held = await s.acquire(3);
    expect(await s.tryRelease([...held, 'abcd'])).toBe(0); // one unknown id: nothing released
    expect(await s.acquiredPermits()).toBe(3);
    const expiring = await s.tryAcquire(2, 0, 50);
    await sleep(80);
    expect(await s.tryRelease([...held, ...expiring])).toBe(0); // expired ids: nothing released
    expect(await s.tryRelease(held)).toBe(3); // reclaims the expired two on the way
    expect(await s.availablePermits()).toBe(10);
  });

  it('testUpdateLeaseTime / testGetLeaseTime', async () => {
    const s = pes(uniqueName('pes'));
    await s.trySetPermits(1);
    expect(await s.updateLeaseTime('0123456789abcdef0123456789abcdef', 1, TimeUnit.SECONDS)).toBe(false);
    await expect(s.getLeaseTime('0123456789abcdef0123456789abcdef')).rejects.toThrow(PermitNotHeldError);
    const id = (await s.tryAcquire(0, 200)) as string;
    expect(await s.updateLeaseTime(id, 60, TimeUnit.SECONDS)).toBe(true);
    await sleep(300);
    expect(await s.availablePermits()).toBe(0); // the extended lease keeps it
    expect(await s.getLeaseTime(id)).toBeGreaterThan(50_000);
    expect(await s.updateLeaseTime(id, 50)).toBe(true);
    await sleep(100);
    expect(await s.updateLeaseTime(id, 60_000)).toBe(false); // expired meanwhile: reclaimed, not extended
    expect(await s.availablePermits()).toBe(1);
  });

  it('testExpiration: expire() covers both keys, and the leases key inherits the TTL set before an acquire', async () => {
    const name = uniqueName('pes');
    const s = pes(name);
    await s.trySetPermits(2);
    expect(await s.expire(300)).toBe(true);
    await s.acquire(10, TimeUnit.SECONDS);
    const ttl = await raw.pttl(`{${name}}:timeout`);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(300);
    await eventually(async () => (await raw.exists(name, `{${name}}:timeout`)) === 0, 5_000, 'both keys to expire');
    expect(await s.delete()).toBe(false);
  });

  it('testConcurrency: one permit as a mutex across 3 clients × 3 flows, with a strict enter/exit history', async () => {
    const name = uniqueName('pes');
    await pes(name).trySetPermits(1);
    const log: string[] = [];
    const flow = async (s: RPermitExpirableSemaphore, who: string): Promise<void> => {
      for (let i = 0; i < 8; i++) {
        const id = await s.acquire();
        log.push(`enter:${who}:${i}`);
        await sleep(1);
        log.push(`exit:${who}:${i}`);
        await s.release(id);
      }
    };
    const semaphores = [pes(name), pes(name), pes(name)];
    await within(Promise.all(semaphores.flatMap((s, c) => [0, 1, 2].map((f) => flow(s, `${c}.${f}`)))), 'the flows', 30_000);
    expect(log).toHaveLength(3 * 3 * 8 * 2);
    for (let i = 0; i < log.length; i += 2) expect(log[i + 1]).toBe(String(log[i]).replace('enter:', 'exit:'));
    expect(await pes(name).availablePermits()).toBe(1);
  });
});

describe('waits end cleanly, bad input sends nothing', () => {
  it('abort: the wait rejects with the reason, unsubscribes, and an acquisition landing later is given back', async () => {
    const name = uniqueName('pes');
    const s = pes(name);
    await s.trySetPermits(0);
    const controller = new AbortController();
    const from = await gets();
    const waiting = pes(name).acquire({ signal: controller.signal });
    await parked(raw, from, 1);
    controller.abort(new Error('user gave up'));
    await expect(waiting).rejects.toThrow('user gave up');
    await eventually(async () => (await numSub(raw, `redisson_sc:{${name}}`)) === 0, 5_000, 'the unsubscribe');
    await s.addPermits(1);
    await sleep(50);
    expect(await s.availablePermits()).toBe(1);
    expect(await s.acquiredPermits()).toBe(0);
  });

  it('shutdown rejects a pending waiter with RedissonShutdownError', async () => {
    const name = uniqueName('pes');
    const client = suite.clients.client();
    const s = client.getPermitExpirableSemaphore(name);
    await s.trySetPermits(0);
    const from = await gets();
    const waiting = s.acquire().catch((e: unknown) => e);
    await parked(raw, from, 1);
    await client.shutdown();
    expect(await waiting).toBeInstanceOf(RedissonShutdownError);
  });

  it.each([
    ['acquire(-1)', (s: RPermitExpirableSemaphore) => s.acquire(-1), RangeError],
    ['acquire(1.5)', (s: RPermitExpirableSemaphore) => s.acquire(1.5), RangeError],
    ['acquire(2 ** 31)', (s: RPermitExpirableSemaphore) => s.acquire(2 ** 31), RangeError],
    ['a lease of 0', (s: RPermitExpirableSemaphore) => s.tryAcquire(1, 100, 0), RangeError],
    ['an unknown unit', (s: RPermitExpirableSemaphore) => s.acquire(1, 5, 'FORTNIGHTS' as TimeUnit), TypeError],
    ['a unit first', (s: RPermitExpirableSemaphore) => s.acquire('SECONDS' as never), TypeError],
    ['a non-hex id', (s: RPermitExpirableSemaphore) => s.release('xyz!'), RangeError],
    ['an odd-length id', (s: RPermitExpirableSemaphore) => s.tryRelease('abc'), RangeError],
    ['an empty list', (s: RPermitExpirableSemaphore) => s.release([]), TypeError],
    ['a number as id', (s: RPermitExpirableSemaphore) => s.tryRelease(42 as never), TypeError],
    ['an unknown option', (s: RPermitExpirableSemaphore) => s.tryAcquire({ waitTime: 5 } as never), TypeError],
  ] as const)('%s is a typed error before anything is sent', async (_title, call, type) => {
    const s = pes(uniqueName('pes'));
    await s.availablePermits(); // connected
    await noSubscriptions(raw);
    const before = await allCalls(raw);
    await expect(call(s)).rejects.toThrow(type);
    expect(await allCalls(raw)).toBe(before);
  });
});
