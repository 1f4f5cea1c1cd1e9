/**
 * RCountDownLatch behaviour on a real server, following Redisson's RedissonCountDownLatchTest and
 * RedissonCountDownLatchConcurrentTest (PROTOCOL.md §14.7; checklist in test/README.md), plus Redisson's
 * gate semantics (only a `0` message makes waiters look again), aborts, shutdown and bad input.
 *
 * A waiter is "parked" once it checked the count before subscribing and again after (one GET each,
 * counted by INFO commandstats). No assertion depends on timing.
 */
import type { Redis } from 'ioredis';
import { beforeAll, describe, expect, it } from 'vitest';
import { countDownLatchChannelName, RedissonShutdownError, TimeUnit, type RCountDownLatch } from '../../src/index.js';
import { eventually, uniqueName, useRedis } from '../support/redis.js';
import { calls, numSub, parked, tracked, within } from './syncHelpers.js';

const suite = useRedis();
let raw: Redis;
beforeAll(() => {
  raw = suite.clients.raw();
});
const latch = (name: string): RCountDownLatch => suite.clients.client().getCountDownLatch(name);
const gets = (): Promise<number> => calls(raw, 'get');
const unsubscribed = (name: string): Promise<void> =>
  eventually(async () => (await numSub(raw, countDownLatchChannelName(name))) === 0, 5_000, 'unsubscribed');

describe('RedissonCountDownLatchTest', () => {
  it('testAwaitTimeout: await(wait) answers true once counted down meanwhile', async () => {
    const name = uniqueName('latch');
    const l = latch(name);
    expect(await l.trySetCount(1)).toBe(true);
    const from = await gets();
    const waiter = latch(name).await(60, TimeUnit.SECONDS);
    await parked(raw, from, 1);
    await l.countDown();
    expect(await within(waiter, 'waiter')).toBe(true);
    await unsubscribed(name);
  });

  it('testAwaitTimeoutFail: await(wait) answers false when nobody counts down, leaving no subscription', async () => {
    const name = uniqueName('latch');
    const l = latch(name);
    await l.trySetCount(1);
    expect(await l.await(200)).toBe(false);
    expect(await l.await(0)).toBe(false);
    await unsubscribed(name);
    expect(await l.getCount()).toBe(1);
  });

  it('testMultiAwait: five waiters on two clients all open on the last countDown', async () => {
    const name = uniqueName('latch');
    const l = latch(name);
    await l.trySetCount(5);
    const [a, b] = [suite.clients.client(), suite.clients.client()];
    const from = await gets();
    const waiters = [a, b, a, b, a].map((c) => tracked(c.getCountDownLatch(name).await(60_000)));
    await parked(raw, from, 5);
    for (let i = 0; i < 4; i++) await l.countDown();
    expect(await l.getCount()).toBe(1);
    expect(waiters.some((w) => w.settled)).toBe(false);
    await l.countDown();
    expect(await within(Promise.all(waiters.map((w) => w.promise)), 'waiters')).toEqual([true, true, true, true, true]);
    await unsubscribed(name);
  });

  it('testCountDown: 2 → 1 → 0, extra countDowns keep 0; await on 0 or a never-set latch returns at once', async () => {
    const l = latch(uniqueName('latch'));
    await l.trySetCount(2);
    await l.countDown();
    expect(await l.getCount()).toBe(1);
    await l.countDown();
    expect(await l.getCount()).toBe(0);
    await l.await();
    await l.countDown();
    expect(await l.getCount()).toBe(0);
    expect(await l.isExists()).toBe(false);
    await l.await();
    expect(await l.await(10)).toBe(true);

    const never = latch(uniqueName('latch'));
    await never.await();
    await never.countDown();
    expect(await never.getCount()).toBe(0);
  });

  it('testDelete / testDeleteFailed: delete answers whether the latch existed', async () => {
    const l = latch(uniqueName('latch'));
    await l.trySetCount(1);
    expect(await l.delete()).toBe(true);
    expect(await l.delete()).toBe(false);
  });

  it('testTrySetCount / testCount: first call true, second false; a missing latch counts 0', async () => {
    const l = latch(uniqueName('latch'));
    expect(await l.getCount()).toBe(0);
    expect(await l.trySetCount(20)).toBe(true);
    expect(await l.trySetCount(30)).toBe(false);
    expect(await l.getCount()).toBe(20);
  });

  it('testSingleCountDownAwait_SingleInstance: N waiters and N concurrent countDowns; all see 0', async () => {
    const name = uniqueName('latch');
    const n = 12;
    await latch(name).trySetCount(n);
    const client = suite.clients.client();
    const from = await gets();
    const waiters = Array.from({ length: n }, async () => {
      const l = client.getCountDownLatch(name);
      await l.await();
      return l.getCount();
    });
    await parked(raw, from, n);
    await Promise.all(Array.from({ length: n }, () => latch(name).countDown()));
    expect(await within(Promise.all(waiters), 'waiters')).toEqual(Array.from({ length: n }, () => 0));
    await unsubscribed(name);
  });
});

describe('gate semantics (Redisson)', () => {
  it('a deleted or re-armed latch keeps its waiters: only a count reaching zero opens them', async () => {
    const name = uniqueName('latch');
    const l = latch(name);
    await l.trySetCount(1);
    const events = suite.clients.raw();
    const messages: string[] = [];
    events.on('message', (_c: string, m: string) => messages.push(m));
    await events.subscribe(countDownLatchChannelName(name));
    const from = await gets();
    const waiter = tracked(latch(name).await());
    await parked(raw, from, 1);
    expect(await l.delete()).toBe(true);
    expect(await l.trySetCount(2)).toBe(true);
    await eventually(() => messages.length === 2, 5_000, 'messages 1, 1');
    expect(messages).toEqual(['1', '1']);
    // "1" opens nobody: no waiter looked at the count again.
    expect(await gets()).toBe(from + 2);
    expect(waiter.settled).toBe(false);
    await l.countDown();
    await l.countDown();
    await within(waiter.promise, 'waiter');
    await events.unsubscribe();
  });
});

describe('waits end cleanly', () => {
  it('abort: the wait rejects with the reason and unsubscribes; an aborted signal sends nothing', async () => {
    const name = uniqueName('latch');
    const l = latch(name);
    await l.trySetCount(1);
    const controller = new AbortController();
    const from = await gets();
    const pending = l.await({ signal: controller.signal });
    await parked(raw, from, 1);
    const reason = new Error('caller left');
    controller.abort(reason);
    await expect(pending).rejects.toBe(reason);
    await unsubscribed(name);
    const before = await gets();
    await expect(l.await(1_000, { signal: AbortSignal.abort(reason) })).rejects.toBe(reason);
    expect(await gets()).toBe(before);
  });

  it('shutdown rejects pending waiters with RedissonShutdownError and refuses later calls', async () => {
    const name = uniqueName('latch');
    await latch(name).trySetCount(1);
    const client = suite.clients.client();
    const from = await gets();
    const pending = [client.getCountDownLatch(name).await(), client.getCountDownLatch(name).await(60_000)].map((p) =>
      p.then(
        () => 'settled',
        (e: unknown) => e,
      ),
    );
    await parked(raw, from, 2);
    await client.shutdown();
    for (const outcome of await Promise.all(pending)) expect(outcome).toBeInstanceOf(RedissonShutdownError);
    expect(() => client.getCountDownLatch(name)).toThrow(RedissonShutdownError);
    await unsubscribed(name);
  });
});
