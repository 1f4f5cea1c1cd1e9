/**
 * FencedLock behaviour on a real server, following Redisson's RedissonFencedLockTest (PROTOCOL.md §14.10)
 * and the RLock checklist where a fenced lock adds something: tokens drawn atomically with every
 * acquisition, monotonic across clients, wake-ups through the RLock channel, abort, watchdog, keyPrefix.
 */
import type { Redis } from 'ioredis';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { IllegalMonitorStateError, lockChannelName, TimeUnit, type Redisson } from '../../src/index.js';
import { fencedLockTokenName } from '../../src/keys.js';
import { Clients, collectMessages, eventually, sleep, uniqueName, useRedis } from '../support/redis.js';

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
  // The default ownership; Java's re-entry by one thread runs in a runInThread flow, as a user would write it.
  clients = new Clients(suite.redis.url);
  raw = clients.raw();
});
afterEach(async () => {
  await clients.closeAll();
  clients = new Clients(suite.redis.url);
  raw = clients.raw();
});

describe('RedissonFencedLock', () => {
  it('testTokenIncrease: 1, 2 from lockAndGetToken; lock() → 3, lock(10 s) → 4, tryLockAndGetToken() → 5', async () => {
    const client = clients.client();
    const lock = client.getFencedLock(uniqueName());
    expect(await lock.getToken()).toBe(0);
    expect(await lock.lockAndGetToken()).toBe(1);
    await lock.unlock();
    expect(await lock.lockAndGetToken()).toBe(2);
    await lock.unlock();
    await lock.lock();
    expect(await lock.getToken()).toBe(3);
    await lock.unlock();
    await lock.lock(10, TimeUnit.SECONDS);
    expect(await lock.getToken()).toBe(4);
    await lock.unlock();
    // Re-entry (Java: the same thread again) is one flow's: runInThread.
    await client.runInThread(async () => {
      expect(await lock.tryLockAndGetToken()).toBe(5);
      expect(await lock.tryLock()).toBe(true);
      expect(await lock.getToken()).toBe(6);
      await lock.unlock();
      await lock.unlock();
    });
  });

  it('stores the RLock layout plus the counter (no expiry), publishes 0 on release, forceUnlock keeps the counter', async () => {
    const client = clients.client();
    const name = uniqueName();
    const lock = client.getFencedLock(name);
    const messages = await collectMessages(clients.raw(), lockChannelName(name));
    await client.runInThread(async () => {
      expect(await lock.lockAndGetToken(30, TimeUnit.SECONDS)).toBe(1);
      expect(await raw.hgetall(name)).toEqual({ [`${client.getId()}:${client.currentThreadId()}`]: '1' });
      expect(await raw.pttl(name)).toBeGreaterThan(25_000);
      expect(await raw.get(`redisson_lock_token:{${name}}`)).toBe('1');
      expect(await raw.pttl(fencedLockTokenName(name))).toBe(-1);
      // A re-entry draws a token too, and needs two unlocks.
      expect(await lock.tryLockAndGetToken()).toBe(2);
      expect(await lock.getHoldCount()).toBe(2);
      await lock.unlock();
      expect(await lock.isLocked()).toBe(true);
      await lock.unlock();
    });
    expect(await raw.exists(name)).toBe(0);
    await eventually(() => messages.length === 1, 5_000, 'release message');
    expect(messages).toEqual(['0']);
    await lock.lock();
    expect(await lock.forceUnlock()).toBe(true);
    expect(await lock.getToken()).toBe(3);
    await eventually(() => messages.length === 2, 5_000, 'forceUnlock message');
  });

  it('tokens are monotonic across clients: in lock order, each holder sees a higher token than the last', async () => {
    const name = uniqueName();
    const seen: number[] = [];
    let inside = 0;
    const worker = async (client: Redisson, rounds: number): Promise<void> => {
      const lock = client.getFencedLock(name);
      for (let i = 0; i < rounds; i++) {
        const token = await lock.lockAndGetToken();
        expect(++inside).toBe(1);
        seen.push(token);
        expect(await lock.getToken()).toBe(token);
        await new Promise((r) => setImmediate(r));
        inside--;
        await lock.unlock();
      }
    };
    await Promise.all([clients.client(), clients.client(), clients.client()].map((c) => worker(c, 15)));
    expect(seen).toEqual(Array.from({ length: 45 }, (_, i) => i + 1));
  });

  it('a waiter is woken by the holder\'s unlock (lease 60 s) and draws the next token', async () => {
    const name = uniqueName();
    const holder = clients.client().getFencedLock(name);
    const waiter = clients.client().getFencedLock(name);
    expect(await holder.lockAndGetToken(60_000)).toBe(1);
    expect(await waiter.tryLockAndGetToken()).toBeNull();
    const pending = tracked(waiter.lockAndGetToken());
    await eventually(async () => (await numSub(lockChannelName(name))) === 1, 5_000, 'waiter subscribed');
    await sleep(50);
    expect(pending.settled).toBe(false);
    await holder.unlock();
    expect(await pending.promise).toBe(2);
    expect(await waiter.isHeldByCurrentThread()).toBe(true);
    await eventually(async () => (await numSub(lockChannelName(name))) === 0, 5_000, 'unsubscribed');
    await waiter.unlock();
  });

  it('a stale holder\'s token is lower than the one who took over after its lease ran out', async () => {
    const name = uniqueName();
    const stale = clients.client().getFencedLock(name);
    const next = clients.client().getFencedLock(name);
    const old = await stale.lockAndGetToken(200);
    const token = await next.tryLockAndGetToken(5_000, 60_000);
    expect(token).toBe(old + 1);
    await expect(stale.unlock()).rejects.toBeInstanceOf(IllegalMonitorStateError);
    await next.unlock();
  });

  it('tryLockAndGetToken: no argument is one attempt (null, no subscription), a wait times out to null, -1 waits', async () => {
    const name = uniqueName();
    const holder = clients.client().getFencedLock(name);
    await holder.lock(60_000);
    const other = clients.client().getFencedLock(name);
    expect(await other.tryLockAndGetToken()).toBeNull();
    expect(await other.tryLockAndGetToken(0, 10_000)).toBeNull();
    expect(await other.tryLockAndGetToken(100)).toBeNull();
    // (node-redis writes the UNSUBSCRIBE a macrotask later than ioredis: the count may lag the reply.)
    await eventually(async () => (await numSub(lockChannelName(name))) === 0, 2_000, 'the wait unsubscribed');
    expect(await other.getToken()).toBe(1);
    const unlimited = tracked(other.tryLockAndGetToken(-1, 60_000));
    await eventually(async () => (await numSub(lockChannelName(name))) === 1, 5_000, 'waiter subscribed');
    expect(unlimited.settled).toBe(false);
    await holder.unlock();
    expect(await unlimited.promise).toBe(2);
    const ttl = await raw.pttl(name);
    expect(ttl).toBeGreaterThan(50_000);
    await other.unlock();
  });

  it('a foreign lock hash without expiry is not read as "acquired with token -1" (Redisson\'s {-1, -1})', async () => {
    const name = uniqueName();
    await raw.hset(name, 'someone-else:1', 1);
    const lock = clients.client().getFencedLock(name);
    expect(await lock.tryLockAndGetToken()).toBeNull();
    expect(await lock.tryLockAndGetToken(100)).toBeNull();
    expect(await lock.tryLock()).toBe(false);
    expect(await raw.hgetall(name)).toEqual({ 'someone-else:1': '1' });
    expect(await raw.exists(fencedLockTokenName(name))).toBe(0);
  });

  it('abort: lockAndGetToken rejects with the signal\'s reason, draws no token and leaves no subscription', async () => {
    const name = uniqueName();
    const holder = clients.client().getFencedLock(name);
    await holder.lock(60_000);
    const controller = new AbortController();
    const reason = new Error('caller gave up');
    const pending = clients.client().getFencedLock(name).lockAndGetToken({ signal: controller.signal });
    await eventually(async () => (await numSub(lockChannelName(name))) === 1, 5_000, 'waiter subscribed');
    controller.abort(reason);
    await expect(pending).rejects.toBe(reason);
    await eventually(async () => (await numSub(lockChannelName(name))) === 0, 5_000, 'unsubscribed');
    await holder.unlock();
    expect(await holder.getToken()).toBe(1);
  });

  it('watchdog: lockAndGetToken() without a lease is renewed past lockWatchdogTimeout', async () => {
    const name = uniqueName();
    const client = clients.client({ lockWatchdogTimeout: 1_000 });
    const lock = client.getFencedLock(name);
    expect(await lock.lockAndGetToken()).toBe(1);
    await sleep(2_200);
    expect(await raw.hget(name, `${client.getId()}:${lock.threadId}`)).toBe('1');
    const ttl = await raw.pttl(name);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(1_000);
    await lock.unlock();
    expect(await raw.exists(name)).toBe(0);
  });

  it('bad input is a typed error before anything is sent; unlock by a non-owner is IllegalMonitorState', async () => {
    const client = clients.client();
    const name = uniqueName();
    const lock = client.getFencedLock(name);
    await expect(lock.lockAndGetToken(-5)).rejects.toBeInstanceOf(RangeError);
    await expect(lock.tryLockAndGetToken('soon' as unknown as number)).rejects.toBeInstanceOf(TypeError);
    await expect(lock.tryLockAndGetToken(1, 2, 3 as unknown as TimeUnit)).rejects.toBeInstanceOf(TypeError);
    await expect(lock.lockAndGetToken({ leaseTime: 5 } as never)).rejects.toThrow(/not an option but an argument/);
    expect(() => client.getFencedLock('')).toThrow(RangeError);
    expect(await raw.exists(fencedLockTokenName(name))).toBe(0);
    await expect(lock.unlock()).rejects.toBeInstanceOf(IllegalMonitorStateError);
  });

  it('with an ioredis keyPrefix, the hash and the counter both carry it', async () => {
    const url = new URL(suite.redis.url);
    const client = clients.client({ redis: { host: url.hostname, port: Number(url.port), keyPrefix: 'app1:' } });
    const name = uniqueName();
    const lock = client.getFencedLock(name);
    expect(await lock.lockAndGetToken()).toBe(1);
    expect(await raw.get(`app1:redisson_lock_token:{${name}}`)).toBe('1');
    expect(await raw.exists(`app1:${name}`)).toBe(1);
    expect(await lock.getToken()).toBe(1);
    await lock.unlock();
    expect(await raw.exists(`app1:${name}`)).toBe(0);
  });
});
