/**
 * SpinLock behaviour on a real server, following Redisson's RedissonSpinLockTest (PROTOCOL.md §14.11):
 * RLock's layout and watchdog, but waiters back off and retry instead of subscribing, and nothing is ever
 * published. Back-offs here are counting wrappers around the real policies, so the tests observe each
 * attempt the waiter makes.
 */
import type { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  ConstantBackOff,
  ExponentialBackOff,
  IllegalMonitorStateError,
  TimeUnit,
  type BackOff,
  type Redisson,
} from '../../src/index.js';
import { Clients, eventually, sleep, uniqueName, useRedis } from '../support/redis.js';

const suite = useRedis();
let clients: Clients;
let raw: Redis;
let events: Redis;
const published: string[] = [];
let eventClients: Clients;

/** A back-off that counts the policies made and the sleeps handed out. */
function counting(inner: BackOff): BackOff & { policies: number; sleeps: number } {
  const counter = {
    policies: 0,
    sleeps: 0,
    create: () => {
      counter.policies++;
      const policy = inner.create();
      return {
        getNextSleepPeriod: () => {
          counter.sleeps++;
          return policy.getNextSleepPeriod();
        },
      };
    },
  };
  return counter;
}
/** Observes whether a promise has settled, without waiting for it. */
function tracked<T>(promise: Promise<T>): { readonly promise: Promise<T>; settled: boolean } {
  const state = { promise, settled: false };
  void promise.then(
    () => (state.settled = true),
    () => (state.settled = true),
  );
  return state;
}
/** Messages published on lock channels so far (a message of our own on the pattern comes after them). */
async function lockMessages(): Promise<string[]> {
  const mark = `redisson_lock__channel:mark:${uniqueName()}`;
  await raw.publish(mark, 'mark');
  await eventually(() => published.some((m) => m.startsWith(mark)), 5_000, 'pub/sub barrier');
  return published.filter((m) => !m.startsWith('redisson_lock__channel:mark:'));
}

beforeAll(async () => {
  clients = new Clients(suite.redis.url);
  eventClients = new Clients(suite.redis.url);
  raw = clients.raw();
  events = eventClients.raw();
  events.on('pmessage', (_p: string, channel: string, message: string) => published.push(`${channel} ${message}`));
  await events.psubscribe('redisson_lock__channel*');
});
afterAll(async () => {
  await eventClients.closeAll();
});
afterEach(async () => {
  await clients.closeAll();
  clients = new Clients(suite.redis.url);
  raw = clients.raw();
});

describe('RedissonSpinLock', () => {
  it('stores the RLock layout; lock, reentrant unlock, unlock and forceUnlock publish nothing', async () => {
    const before = (await lockMessages()).length;
    const client = clients.client();
    const name = uniqueName();
    const lock = client.getSpinLock(name);
    const t = { threadId: 3 }; // one owner re-enters (one Java thread)
    await lock.lock(t);
    await lock.lock(20, TimeUnit.SECONDS, t);
    expect(await raw.hgetall(name)).toEqual({ [`${client.getId()}:3`]: '2' });
    expect(await lock.getHoldCount(t)).toBe(2);
    await lock.unlock(t);
    // The reentrant unlock re-applies the object's last lease (20 s), as Redisson.
    expect(await raw.pttl(name)).toBeGreaterThan(15_000);
    expect(await raw.pttl(name)).toBeLessThanOrEqual(20_000);
    await lock.unlock(t);
    expect(await raw.exists(name)).toBe(0);
    await lock.lock();
    expect(await client.getSpinLock(name).forceUnlock()).toBe(true);
    expect(await lock.forceUnlock()).toBe(false);
    expect((await lockMessages()).slice(before)).toEqual([]);
  });

  it('testTryLockAsyncSucceed / Failed: tryLock() is one attempt, true on a free lock, false while held', async () => {
    const name = uniqueName();
    const backOff = counting(new ConstantBackOff().delay(5));
    const lock = clients.client().getSpinLock(name, backOff);
    const other = clients.client().getSpinLock(name, backOff);
    expect(await lock.tryLock()).toBe(true);
    expect(await other.tryLock()).toBe(false);
    expect(await other.tryLock(0, 10_000)).toBe(false);
    expect(backOff.policies).toBe(0);
    expect(await lock.isLocked()).toBe(true);
    expect(await other.isHeldByCurrentThread()).toBe(false);
    await lock.unlock();
  });

  it('testTryLockAsyncWaitTime: a timed tryLock retries with its back-off, never subscribes, and gives up false', async () => {
    const name = uniqueName();
    await clients.client().getSpinLock(name).lock(60_000);
    const backOff = counting(new ConstantBackOff().delay(20));
    const waiter = clients.client().getSpinLock(name, backOff);
    expect(await waiter.tryLock(300, 30_000)).toBe(false);
    expect(backOff.policies).toBe(1);
    expect(backOff.sleeps).toBeGreaterThanOrEqual(3);
    expect(Number(((await raw.pubsub('NUMSUB', `redisson_lock__channel:{${name}}`)) as [string, number])[1])).toBe(0);
  });

  it('testTimedTryLockAsync / testTryLockAsync: a waiter sees the release at its next attempt', async () => {
    const name = uniqueName();
    const holder = clients.client().getSpinLock(name);
    await holder.lock(60_000);
    const backOff = counting(new ExponentialBackOff());
    const waiter = clients.client().getSpinLock(name, backOff);
    const pending = tracked(waiter.tryLock(30_000, 30_000));
    const forever = tracked(clients.client().getSpinLock(name, backOff).lock());
    // Both are polling: each has its own policy and has slept at least twice.
    await eventually(() => backOff.policies === 2 && backOff.sleeps >= 4, 5_000, 'waiters backing off');
    expect(pending.settled || forever.settled).toBe(false);
    await holder.unlock();
    // One of them gets it; the other gets it after that one unlocks.
    const first = await Promise.race([pending.promise.then(() => 'timed'), forever.promise.then(() => 'forever')]);
    if (first === 'timed') {
      expect(await pending.promise).toBe(true);
      await waiter.unlock();
      await forever.promise;
    } else {
      await clients.client().getSpinLock(name).forceUnlock();
      expect(await pending.promise).toBe(true);
    }
  });

  it('sleeps as the back-off says: exponential from 1 ms, at most 128 ms per sleep', async () => {
    const name = uniqueName();
    await clients.client().getSpinLock(name).lock(60_000);
    const sleeps: number[] = [];
    const inner = new ExponentialBackOff();
    const recording: BackOff = {
      create: () => {
        const policy = inner.create();
        return { getNextSleepPeriod: () => (sleeps.push(policy.getNextSleepPeriod()), sleeps.at(-1) as number) };
      },
    };
    const controller = new AbortController();
    const waiting = clients.client().getSpinLock(name, recording).lock({ signal: controller.signal });
    await eventually(() => sleeps.filter((s) => s === 128).length >= 2, 10_000, 'back-off at its cap');
    controller.abort(new Error('enough'));
    await expect(waiting).rejects.toThrow('enough');
    expect(sleeps[0]).toBe(1);
    expect(sleeps.slice(0, 3)).toEqual([1, 2, expect.any(Number)]);
    expect(Math.max(...sleeps)).toBe(128);
    // Non-decreasing on the way up, then 128 for good.
    expect([...sleeps].sort((a, b) => a - b)).toEqual(sleeps);
  });

  it('testExpire: a lease runs out, another owner takes it, the stale unlock throws', async () => {
    const name = uniqueName();
    const lock = clients.client().getSpinLock(name);
    await lock.lock(300);
    const other = clients.client().getSpinLock(name);
    expect(await other.tryLock(5_000, 60_000)).toBe(true);
    await expect(lock.unlock()).rejects.toBeInstanceOf(IllegalMonitorStateError);
    expect(await other.isHeldByCurrentThread()).toBe(true);
    await other.unlock();
  });

  it('testAutoExpire / watchdog: lock() without a lease is renewed past lockWatchdogTimeout', async () => {
    const name = uniqueName();
    const client = clients.client({ lockWatchdogTimeout: 1_000 });
    const lock = client.getSpinLock(name);
    await lock.lock();
    await sleep(2_200);
    expect(await raw.hget(name, `${client.getId()}:${lock.threadId}`)).toBe('1');
    expect(await raw.pttl(name)).toBeGreaterThan(0);
    await lock.unlock();
  });

  it('like Redisson, every attempt sets the object\'s lease: a failed leased tryLock changes a reentrant unlock\'s TTL', async () => {
    const name = uniqueName();
    await clients.client().getSpinLock(name).lock(60_000);
    const lock = clients.client().getSpinLock(name);
    await clients.client().getSpinLock(name).forceUnlock();
    await lock.lock(60_000, { threadId: 1 });
    await lock.lock(60_000, { threadId: 1 });
    // Owner 2 on the same object fails with a 5 s lease; the object's lease is now 5 s.
    expect(await lock.tryLock(0, 5_000, { threadId: 2 })).toBe(false);
    await lock.unlock({ threadId: 1 });
    expect(await raw.pttl(name)).toBeLessThanOrEqual(5_000);
    await lock.unlock({ threadId: 1 });
  });

  it('excludes RLock holders of the same name and the reverse; a spin waiter sees an RLock release', async () => {
    const name = uniqueName();
    const client = clients.client();
    const rlock = client.getLock(name);
    const spin = client.getSpinLock(name);
    await rlock.lock(60_000);
    expect(await spin.tryLock()).toBe(false);
    const waiting = spin.tryLock(10_000, 60_000);
    await sleep(20);
    await rlock.unlock();
    expect(await waiting).toBe(true);
    expect(await rlock.tryLock()).toBe(false);
    await spin.unlock();
  });

  it('testConcurrency_MultiInstance: 4 clients × 25 increments under the lock, exact count', async () => {
    const name = uniqueName();
    const counter = `${name}:counter`;
    let inside = 0;
    let overlaps = 0;
    const worker = async (client: Redisson): Promise<void> => {
      const conn = clients.raw();
      const lock = client.getSpinLock(name);
      for (let i = 0; i < 25; i++) {
        await lock.lock();
        if (++inside > 1) overlaps++;
        const value = Number((await conn.get(counter)) ?? '0');
        await new Promise((r) => setImmediate(r));
        await conn.set(counter, String(value + 1));
        inside--;
        await lock.unlock();
      }
    };
    await Promise.all(Array.from({ length: 4 }, () => worker(clients.client())));
    expect(overlaps).toBe(0);
    expect(await raw.get(counter)).toBe('100');
    expect(await raw.exists(name)).toBe(0);
  });

  it('abort: a backing-off wait rejects with the signal\'s reason and never acquires afterwards', async () => {
    const name = uniqueName();
    const holder = clients.client().getSpinLock(name);
    await holder.lock(60_000);
    const backOff = counting(new ConstantBackOff().delay(10));
    const waiter = clients.client().getSpinLock(name, backOff);
    const controller = new AbortController();
    const reason = new Error('stop');
    const pending = waiter.lock({ signal: controller.signal });
    await eventually(() => backOff.sleeps >= 2, 5_000, 'waiter backing off');
    controller.abort(reason);
    await expect(pending).rejects.toBe(reason);
    const sleepsAtAbort = backOff.sleeps;
    await holder.unlock();
    await sleep(50);
    expect(backOff.sleeps).toBe(sleepsAtAbort);
    expect(await raw.exists(name)).toBe(0);
  });

  it('bad input: a non-BackOff is a TypeError at getSpinLock; a policy returning NaN fails the waiting call', async () => {
    const client = clients.client();
    expect(() => client.getSpinLock(uniqueName(), 64 as unknown as BackOff)).toThrow(TypeError);
    expect(() => client.getSpinLock(uniqueName(), {} as BackOff)).toThrow(/create\(\) method/);
    expect(() => client.getSpinLock('')).toThrow(RangeError);
    const name = uniqueName();
    await client.getSpinLock(name).lock(60_000);
    const broken = client.getSpinLock(name, { create: () => ({ getNextSleepPeriod: () => Number.NaN }) });
    await expect(broken.lock()).rejects.toThrow(/getNextSleepPeriod/);
    await expect(broken.tryLock(1_000)).rejects.toBeInstanceOf(TypeError);
    // A single attempt never asks the back-off.
    expect(await broken.tryLock()).toBe(false);
  });
});
