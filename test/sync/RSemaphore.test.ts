/**
 * RSemaphore behaviour on a real server, following Redisson's RedissonSemaphoreTest (PROTOCOL.md §14.5;
 * checklist in test/README.md), plus what a port must get right: waking `min(local waiters, v)` per
 * message, the subscribe-then-retry order (no time-based retry exists to rescue a lost release),
 * Redisson's (un)fairness between big and small requests, aborts, shutdown and bad input.
 *
 * A waiter is "parked" once it made its attempt before subscribing and its retry after: one GET each,
 * inside the tryAcquire script, counted by INFO commandstats. No assertion depends on timing.
 */
import type { Redis } from 'ioredis';
import { beforeAll, describe, expect, it } from 'vitest';
import { RedissonShutdownError, semaphoreChannelName, TimeUnit, type RSemaphore } from '../../src/index.js';
import { eventually, sleep, uniqueName, useRedis } from '../support/redis.js';
import { calls, numSub, parked, tracked, within } from './syncHelpers.js';
import { openMonitor } from '../support/monitor.js';

const suite = useRedis();
let raw: Redis;
beforeAll(() => {
  raw = suite.clients.raw();
});
const semaphore = (name: string, options: Parameters<typeof suite.clients.client>[0] = {}): RSemaphore => suite.clients.client(options).getSemaphore(name);
const gets = (): Promise<number> => calls(raw, 'get');

describe('RedissonSemaphoreTest', () => {
  it('testZero: 0 permits are taken and given back at once, without a command', async () => {
    const s = semaphore(uniqueName('sem'));
    await s.availablePermits(); // connected
    const before = await calls(raw, 'evalsha') + (await calls(raw, 'eval'));
    expect(await s.tryAcquire(0, 10, TimeUnit.MINUTES)).toBe(true);
    expect(await s.tryAcquire(0)).toBe(true);
    await s.acquire(0);
    await s.release(0);
    expect(await s.releaseIfExists(0)).toBe(false);
    expect((await calls(raw, 'evalsha')) + (await calls(raw, 'eval'))).toBe(before);
    expect(await s.availablePermits()).toBe(0);
  });

  it('testAcquireWithoutSetPermits / testReleaseWithoutPermits: release creates the semaphore', async () => {
    const s = semaphore(uniqueName('sem'));
    await s.release();
    expect(await s.availablePermits()).toBe(1);
    await s.release();
    await s.acquire(2);
    expect(await s.availablePermits()).toBe(0);
    expect(await s.isExists()).toBe(true);
  });

  it('testTrySetPermits: only a missing semaphore is set; with a time to live it expires', async () => {
    const name = uniqueName('sem');
    const s = semaphore(name);
    expect(await s.trySetPermits(10)).toBe(true);
    expect(await s.trySetPermits(15)).toBe(false);
    expect(await s.availablePermits()).toBe(10);
    expect(await s.delete()).toBe(true);
    expect(await s.delete()).toBe(false);
    expect(await s.trySetPermits(1, 2, TimeUnit.SECONDS)).toBe(true);
    const ttl = await raw.pttl(name);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(2_000);
    const brief = semaphore(uniqueName('sem'));
    expect(await brief.trySetPermits(1, 100)).toBe(true);
    await eventually(async () => !(await brief.isExists()), 5_000, 'the semaphore expired');
    expect(await brief.availablePermits()).toBe(0);
  });

  it('testAddPermits and testReducePermits: addPermits moves the count both ways, below zero too', async () => {
    const s = semaphore(uniqueName('sem'));
    await s.trySetPermits(10);
    await s.acquire(10);
    await s.addPermits(4);
    await s.release(10);
    expect(await s.availablePermits()).toBe(14);
    await s.acquire(5);
    expect(await s.availablePermits()).toBe(9);

    const r = semaphore(uniqueName('sem'));
    await r.addPermits(-5);
    expect(await r.availablePermits()).toBe(-5);
    expect(await r.tryAcquire()).toBe(false);
    await r.release(10);
    expect(await r.availablePermits()).toBe(5);
    await r.acquire(5);
    expect(await r.availablePermits()).toBe(0);
  });

  it('setPermits (redisson-ts): sets whatever was there and wakes waiters like addPermits', async () => {
    const name = uniqueName('sem');
    const s = semaphore(name);
    await s.setPermits(3);
    await s.setPermits(0);
    expect(await s.availablePermits()).toBe(0);
    const from = await gets();
    const waiter = semaphore(name).acquire(2);
    await parked(raw, from, 1);
    await s.setPermits(2);
    await within(waiter, 'waiter after setPermits');
    expect(await s.availablePermits()).toBe(0);
  });

  it('testDrainPermits: answers the free permits and leaves none', async () => {
    const s = semaphore(uniqueName('sem'));
    expect(await s.drainPermits()).toBe(0);
    await s.trySetPermits(10);
    await s.acquire(3);
    expect(await s.drainPermits()).toBe(7);
    expect(await s.availablePermits()).toBe(0);
    expect(await s.drainPermits()).toBe(0);
  });

  it('testReleaseAcquire: acquire/release bookkeeping', async () => {
    const s = semaphore(uniqueName('sem'));
    await s.trySetPermits(10);
    await s.acquire();
    expect(await s.availablePermits()).toBe(9);
    await s.release();
    expect(await s.availablePermits()).toBe(10);
    await s.acquire(5);
    expect(await s.availablePermits()).toBe(5);
    await s.release(5);
    expect(await s.availablePermits()).toBe(10);
  });

  it('testReleaseIfExists: releases into an existing semaphore only', async () => {
    const s = semaphore(uniqueName('sem'));
    expect(await s.releaseIfExists(1)).toBe(false);
    expect(await s.isExists()).toBe(false);
    await s.trySetPermits(10);
    await s.acquire();
    expect(await s.releaseIfExists(1)).toBe(true);
    expect(await s.availablePermits()).toBe(10);
  });

  it('testBlockingAcquire: acquire() waits for a release by another client; tryAcquire() is then false', async () => {
    const name = uniqueName('sem');
    const s = semaphore(name);
    await s.trySetPermits(1);
    await s.acquire();
    const from = await gets();
    const waiter = tracked(semaphore(name).acquire());
    await parked(raw, from, 1);
    expect(waiter.settled).toBe(false);
    await s.release();
    await within(waiter.promise, 'waiter');
    expect(await s.tryAcquire()).toBe(false);
    expect(await s.availablePermits()).toBe(0);
  });

  it('testBlockingNAcquire: acquire(4) with 2 free completes on the second of two single releases', async () => {
    const name = uniqueName('sem');
    const s = semaphore(name);
    await s.trySetPermits(2);
    const from = await gets();
    const waiter = tracked(semaphore(name).acquire(4));
    await parked(raw, from, 1);
    await s.release();
    // The message "3" woke it; its retry (one more GET) found too few permits and it waits again.
    await eventually(async () => (await gets()) - from >= 3, 10_000, 'the woken retry');
    expect(waiter.settled).toBe(false);
    expect(await s.availablePermits()).toBe(3);
    await s.release();
    await within(waiter.promise, 'waiter');
    expect(await s.availablePermits()).toBe(0);
  });

  it('testTryNAcquire: tryAcquire(4) is false with 2 free; tryAcquire(4, wait) succeeds after two releases', async () => {
    const name = uniqueName('sem');
    const s = semaphore(name);
    await s.trySetPermits(2);
    expect(await s.tryAcquire(4)).toBe(false);
    const from = await gets();
    const waiter = semaphore(name).tryAcquire(4, 30, TimeUnit.SECONDS);
    await parked(raw, from, 1);
    await s.release();
    await s.release();
    expect(await within(waiter, 'waiter')).toBe(true);
    expect(await s.availablePermits()).toBe(0);
  });

  it('testAcquireAfterAddPermits: an unrelated acquire/release does not satisfy acquire(2); addPermits does', async () => {
    const name = uniqueName('sem');
    const s = semaphore(name);
    await s.trySetPermits(1);
    const from = await gets();
    const waiter = tracked(semaphore(name).acquire(2));
    await parked(raw, from, 1);
    await s.acquire();
    await s.release(); // publishes 1: the waiter retries and waits again
    await eventually(async () => (await gets()) - from >= 4, 10_000, 'the woken retry');
    expect(waiter.settled).toBe(false);
    await s.addPermits(1);
    await within(waiter.promise, 'waiter after addPermits');
    expect(await s.availablePermits()).toBe(0);
  });
});

describe('waking and ordering', () => {
  it('a release of v wakes v local waiters, not all of them (one retry each)', async () => {
    const name = uniqueName('sem');
    const client = suite.clients.client();
    const from = await gets();
    const waiters = [0, 1, 2].map(() => tracked(client.getSemaphore(name).acquire()));
    await parked(raw, from, 3);
    await semaphore(name).release(2);
    await eventually(() => waiters.filter((w) => w.settled).length === 2, 10_000, 'two waiters');
    await semaphore(name).release(1);
    await within(Promise.all(waiters.map((w) => w.promise)), 'third waiter');
    // 3 × (attempt + retry), then exactly one retry per woken waiter: the third slept through "2".
    expect((await gets()) - from).toBe(6 + 3);
    expect(await raw.get(name)).toBe('0');
  });

  it('subscribes before its retry, so a release between the first attempt and the wait is not lost', async () => {
    const name = uniqueName('sem');
    const channel = semaphoreChannelName(name);
    const seen: string[] = [];
    const monitor = await openMonitor(suite.clients.raw());
    monitor.on('monitor', (_time: string, args: string[]) => {
      const [command, first] = args;
      if ((command === 'get' && first === name) || (command === 'subscribe' && first === channel)) seen.push(command);
    });
    const from = await gets();
    const waiter = semaphore(name).acquire();
    await parked(raw, from, 1);
    await semaphore(name).release();
    await within(waiter, 'waiter');
    await eventually(() => seen.length >= 4, 5_000, 'MONITOR lines');
    expect(seen).toEqual(['get', 'subscribe', 'get', 'get']);
    monitor.disconnect();
  });

  it('not fair, as Redisson: a small request takes permits a bigger waiter is waiting for', async () => {
    const name = uniqueName('sem');
    const s = semaphore(name);
    await s.trySetPermits(2);
    const from = await gets();
    const big = tracked(semaphore(name).acquire(3));
    await parked(raw, from, 1);
    expect(await semaphore(name).tryAcquire()).toBe(true);
    expect(await s.availablePermits()).toBe(1);
    expect(big.settled).toBe(false);
    await s.release(2);
    await within(big.promise, 'big waiter');
  });

  it('a big waiter woken by a release too small for it hands the wake-up to a smaller waiter behind it', async () => {
    const name = uniqueName('sem');
    const client = suite.clients.client();
    const from = await gets();
    const big = tracked(client.getSemaphore(name).acquire(4));
    await parked(raw, from, 1);
    // The small one joins the channel the big one subscribed, before its one attempt (one GET, no retry).
    const small = tracked(client.getSemaphore(name).acquire(1));
    await eventually(async () => (await calls(raw, 'get')) - from >= 3, 10_000, 'small waiter parked');
    // "1" wakes one local waiter, the longest: the big one. Its retry fails; the small one gets the wake-up.
    await semaphore(name).release(1);
    await within(small.promise, 'small waiter');
    expect(big.settled).toBe(false);
    await semaphore(name).addPermits(4);
    await within(big.promise, 'big waiter');
    expect(await raw.get(name)).toBe('0');
  });

  it('every process wakes its own waiters: waiters on two clients all acquire', async () => {
    const name = uniqueName('sem');
    const [a, b] = [suite.clients.client(), suite.clients.client()];
    const from = await gets();
    const waiters = [a, b, a, b].map((c) => c.getSemaphore(name).acquire());
    await parked(raw, from, 4);
    await semaphore(name).release(4);
    await within(Promise.all(waiters), 'waiters');
    expect(await raw.get(name)).toBe('0');
    // Gone once the subscriptions' linger after their waiters acquired has run out.
    await eventually(async () => (await numSub(raw, semaphoreChannelName(name))) === 0, 5_000, 'no subscriber left');
  });

  it('with an ioredis keyPrefix: the key and channel carry it, and waiters wake', async () => {
    const name = uniqueName('sem');
    const options = { redis: { host: '127.0.0.1', port: suite.redis.port, keyPrefix: 'app:' } };
    const s = semaphore(name, options);
    await s.trySetPermits(0);
    expect(await raw.exists(`app:${name}`)).toBe(1);
    const from = await gets();
    const waiter = semaphore(name, options).acquire();
    await parked(raw, from, 1);
    expect(await numSub(raw, `app:${semaphoreChannelName(name)}`)).toBe(1);
    await s.release();
    await within(waiter, 'prefixed waiter');
    expect(await raw.get(`app:${name}`)).toBe('0');
  });
});

describe('waits end cleanly', () => {
  it('tryAcquire(wait) gives up after the wait and leaves no subscription', async () => {
    const name = uniqueName('sem');
    const s = semaphore(name);
    expect(await s.tryAcquire(1, 200)).toBe(false);
    expect(await s.tryAcquire(200, TimeUnit.MILLISECONDS)).toBe(false);
    await eventually(async () => (await numSub(raw, semaphoreChannelName(name))) === 0, 5_000, 'unsubscribed');
    expect(await s.isExists()).toBe(false);
  });

  it('abort: the wait rejects with the reason, unsubscribes, and takes nothing afterwards', async () => {
    const name = uniqueName('sem');
    const controller = new AbortController();
    const s = semaphore(name);
    const from = await gets();
    const pending = s.acquire(2, { signal: controller.signal });
    await parked(raw, from, 1);
    const reason = new Error('caller left');
    controller.abort(reason);
    await expect(pending).rejects.toBe(reason);
    await eventually(async () => (await numSub(raw, semaphoreChannelName(name))) === 0, 5_000, 'unsubscribed');
    await s.release(2);
    await sleep(50);
    expect(await s.availablePermits()).toBe(2);
    // An aborted signal rejects before anything is sent.
    const before = await gets();
    await expect(s.tryAcquire(1, 1_000, { signal: AbortSignal.abort(reason) })).rejects.toBe(reason);
    expect(await gets()).toBe(before);
  });

  it('abort with the attempt in flight: permits it took after all are given back', async () => {
    const name = uniqueName('sem');
    const s = semaphore(name);
    await s.trySetPermits(3);
    const controller = new AbortController();
    const pending = s.acquire(2, { signal: controller.signal }); // the attempt is on the wire already
    controller.abort(new Error('gone'));
    await expect(pending).rejects.toThrow('gone');
    await eventually(async () => (await s.availablePermits()) === 3, 5_000, 'permits given back');
  });

  it('shutdown rejects pending waiters with RedissonShutdownError and refuses later calls', async () => {
    const name = uniqueName('sem');
    const client = suite.clients.client();
    const from = await gets();
    const pending = [client.getSemaphore(name).acquire(), client.getSemaphore(name).tryAcquire(1, 60_000)].map((p) =>
      p.then(
        () => 'settled',
        (e: unknown) => e,
      ),
    );
    await parked(raw, from, 2);
    await client.shutdown();
    for (const outcome of await Promise.all(pending)) expect(outcome).toBeInstanceOf(RedissonShutdownError);
    expect(() => client.getSemaphore(name)).toThrow(RedissonShutdownError);
    await eventually(async () => (await numSub(raw, semaphoreChannelName(name))) === 0, 5_000, 'unsubscribed');
  });
});
