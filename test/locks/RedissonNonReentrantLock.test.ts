/**
 * NonReentrantLock behaviour on a real server, following Redisson's RedissonNonReentrantLockTest
 * (PROTOCOL.md §14.13): other owners contend as for an RLock; the owner asking again gets
 * IllegalMonitorStateError from lock() and tryLock() alike, and the count stays 1.
 */
import type { Redis } from 'ioredis';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { IllegalMonitorStateError, lockChannelName, TimeUnit } from '../../src/index.js';
import { Clients, collectMessages, eventually, uniqueName, useRedis } from '../support/redis.js';

const suite = useRedis();
let clients: Clients;
let raw: Redis;
const numSub = async (channel: string): Promise<number> => Number(((await raw.pubsub('NUMSUB', channel)) as [string, number])[1]);
/** Observes whether a promise has settled, without waiting for it. */
function tracked<T>(promise: Promise<T>): { readonly promise: Promise<T>; settled: boolean } {
  const state = { promise, settled: false };
  void promise.then(
    () => (state.settled = true),
    () => (state.settled = true),
  );
  return state;
}

beforeAll(() => {
  clients = new Clients(suite.redis.url);
  raw = clients.raw();
});
afterEach(async () => {
  await clients.closeAll();
  clients = new Clients(suite.redis.url);
  raw = clients.raw();
});

describe('RedissonNonReentrantLock', () => {
  it('testContendingThreadBlocksAndAcquiresOnRelease: another owner waits, and is woken by the unlock message', async () => {
    const name = uniqueName();
    const client = clients.client();
    const lock = client.getNonReentrantLock(name);
    const messages = await collectMessages(clients.raw(), lockChannelName(name));
    await lock.lock(60_000);
    expect(await raw.hgetall(name)).toEqual({ [`${client.getId()}:${lock.threadId}`]: '1' });
    const other = client.getNonReentrantLock(name);
    expect(await other.tryLock()).toBe(false);
    const waiter = tracked(other.lock());
    await eventually(async () => (await numSub(lockChannelName(name))) === 1, 5_000, 'waiter subscribed');
    expect(waiter.settled).toBe(false);
    await lock.unlock();
    await waiter.promise;
    expect(await other.isHeldByCurrentThread()).toBe(true);
    await other.unlock();
    expect(await lock.isLocked()).toBe(false);
    await eventually(() => messages.length === 2, 5_000, 'two release messages');
    expect(messages).toEqual(['0', '0']);
  });

  it('testSameThreadReacquireThrows: lock(), tryLock() and tryLock(100 ms) by the owner throw; one unlock releases', async () => {
    const name = uniqueName();
    const client = clients.client();
    const lock = client.getNonReentrantLock(name);
    // One owner (one Java thread): a runInThread flow.
    await client.runInThread(async () => {
      await lock.lock(60_000);
      const error = await lock.lock().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(IllegalMonitorStateError);
      expect((error as IllegalMonitorStateError).message).toContain('non-reentrant');
      expect((error as IllegalMonitorStateError).threadId).toBe(client.currentThreadId());
      expect(((error as Error).cause as Error).message).toContain('NON_REENTRANT_REACQUIRE');
      await expect(lock.tryLock()).rejects.toBeInstanceOf(IllegalMonitorStateError);
      await expect(lock.tryLock(100, TimeUnit.MILLISECONDS)).rejects.toBeInstanceOf(IllegalMonitorStateError);
      await expect(lock.tryLock(100, 5_000)).rejects.toBeInstanceOf(IllegalMonitorStateError);
      expect(await lock.isHeldByCurrentThread()).toBe(true);
      expect(await lock.getHoldCount()).toBe(1);
      // The failed attempts did not reset the TTL to their leases.
      expect(await raw.pttl(name)).toBeGreaterThan(50_000);
      // No waiter was left subscribed by the failed calls.
      expect(await numSub(lockChannelName(name))).toBe(0);
      await lock.unlock();
      expect(await lock.isLocked()).toBe(false);
    });
  });

  it('testCrossInstanceSameThreadReentryThrows: two objects, one owner (runInThread or threadId) — the second throws', async () => {
    const client = clients.client();
    const name = uniqueName();
    await client.runInThread(async () => {
      const a = client.getNonReentrantLock(name);
      const b = client.getNonReentrantLock(name);
      expect(a).not.toBe(b);
      await a.lock();
      await expect(b.lock()).rejects.toBeInstanceOf(IllegalMonitorStateError);
      await expect(b.tryLock()).rejects.toBeInstanceOf(IllegalMonitorStateError);
      expect(await b.isHeldByCurrentThread()).toBe(true);
      await a.unlock();
      expect(await a.isLocked()).toBe(false);
      expect(await b.isLocked()).toBe(false);
    });
    const c = client.getNonReentrantLock(name);
    await c.lock({ threadId: 7 });
    await expect(client.getNonReentrantLock(name).tryLock({ threadId: 7 })).rejects.toBeInstanceOf(IllegalMonitorStateError);
    // Without a shared owner, a second object is another owner: it is refused, not an error.
    expect(await client.getNonReentrantLock(name).tryLock()).toBe(false);
    await c.unlock({ threadId: 7 });
  });

  it('a waiting lock() whose owner takes the lock meanwhile through another call fails instead of counting twice', async () => {
    const name = uniqueName();
    const client = clients.client();
    const holder = client.getLock(name);
    // A short lease: the unlock message wakes one local waiter; the other retries when the TTL it was told
    // (at most 1 s) has passed, as in Redisson.
    await holder.lock(1_000);
    const mine = client.getNonReentrantLock(name);
    const first = tracked(mine.lock({ threadId: 3 }));
    const second = tracked(mine.lock({ threadId: 3 }));
    await eventually(async () => (await numSub(lockChannelName(name))) === 1, 5_000, 'waiters subscribed');
    await holder.unlock();
    const outcomes = await Promise.allSettled([first.promise, second.promise]);
    expect(outcomes.map((o) => o.status).sort()).toEqual(['fulfilled', 'rejected']);
    const rejected = outcomes.find((o) => o.status === 'rejected');
    expect(rejected?.reason).toBeInstanceOf(IllegalMonitorStateError);
    expect(await mine.getHoldCount({ threadId: 3 })).toBe(1);
    await mine.unlock({ threadId: 3 });
    expect(await raw.exists(name)).toBe(0);
  });

  it('shares RLock\'s layout and channel: excludes an RLock holder, and an RLock unlock wakes its waiter', async () => {
    const name = uniqueName();
    const client = clients.client();
    const rlock = client.getLock(name);
    await rlock.lock(60_000);
    const nonReentrant = client.getNonReentrantLock(name);
    const waiter = tracked(nonReentrant.lock());
    await eventually(async () => (await numSub(lockChannelName(name))) === 1, 5_000, 'waiter subscribed');
    expect(waiter.settled).toBe(false);
    await rlock.unlock();
    await waiter.promise;
    expect(await rlock.tryLock()).toBe(false);
    await nonReentrant.unlock();
    await expect(nonReentrant.unlock()).rejects.toBeInstanceOf(IllegalMonitorStateError);
  });
});
