/**
 * Issue 15's linger: a channel whose last local waiter left *with* the lock stays subscribed for
 * `subscriptionLinger`, and a waiter that finds its channel subscribed joins it before its first attempt
 * (no SUBSCRIBE, no second attempt). Asserted on the server's command counts and `PUBSUB NUMSUB`; the one
 * timing that matters (a release published while that first attempt's reply is on its way) is forced with
 * a proxy that holds back the command connection's replies. Time limits are hang guards: the holders are
 * foreign (Java-shaped) with 60 s leases, so only a release message lets a waiter in early.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { Redis } from 'ioredis';
import { lockChannelName, type Redisson, type RLock } from '../../src/index.js';
import { RedisProxy } from '../support/proxy.js';
import { eventually, uniqueName, useRedis, within } from '../support/redis.js';

const suite = useRedis({ own: true });
const proxies: RedisProxy[] = [];
const LONG_LEASE = 60_000;

afterEach(async () => {
  await Promise.all(proxies.splice(0).map((p) => p.stop()));
});

const numsub = async (raw: Redis, channel: string): Promise<number> => Number(((await raw.pubsub('NUMSUB', channel)) as [string, number])[1]);

/** Calls of `command` the server ran so far (INFO commandstats). */
async function calls(raw: Redis, command: string): Promise<number> {
  return Number(new RegExp(`cmdstat_${command}:calls=(\\d+)`).exec(await raw.info('commandstats'))?.[1] ?? 0);
}

/** A foreign holder with a long lease: only the release message below lets waiters in. */
async function holdForeign(raw: Redis, name: string): Promise<void> {
  await raw.hset(name, 'java-client:1', '1');
  await raw.pexpire(name, LONG_LEASE);
}

/** Releases the foreign hold as Redisson's unlock does: delete, then `0` on the channel. */
async function releaseForeign(raw: Redis, name: string): Promise<void> {
  await raw.del(name);
  await raw.publish(lockChannelName(name), '0');
}

/**
 * A `lock()` of `client` that waits on a foreign hold and is let in by its release message (after
 * `beforeRelease`, once it is subscribed); resolves with the lock object, holding.
 */
async function acquiredAfterWaiting(raw: Redis, client: Redisson, name: string, beforeRelease?: () => Promise<void>): Promise<RLock> {
  await holdForeign(raw, name);
  const lock = client.getLock(name);
  const waiting = lock.lock();
  await eventually(async () => (await numsub(raw, lockChannelName(name))) === 1, 10_000, 'the waiter to subscribe');
  await beforeRelease?.();
  await releaseForeign(raw, name);
  await within(waiting, 10_000, 'the waiter');
  return lock;
}

/** A client with a long linger whose connections go through a proxy of this test's. */
async function proxiedClient(): Promise<{ proxy: RedisProxy; client: Redisson }> {
  const proxy = await RedisProxy.start(suite.redis.port);
  proxies.push(proxy);
  const client = suite.clients.client({ redis: proxy.url, subscriptionLinger: LONG_LEASE });
  client.redis.on('error', () => undefined);
  return { proxy, client };
}

describe('subscriptionLinger', () => {
  it('a waiter that acquired leaves its channel subscribed; the next waiter joins it with one attempt and no SUBSCRIBE; shutdown ends the linger', async () => {
    const raw = suite.clients.raw();
    const name = uniqueName('linger');
    const channel = lockChannelName(name);
    const client = suite.clients.client({ subscriptionLinger: LONG_LEASE });
    await (await acquiredAfterWaiting(raw, client, name)).unlock();
    // Left with the lock: still subscribed.
    expect(await numsub(raw, channel)).toBe(1);

    await holdForeign(raw, name);
    const [subscribes, scripts] = [await calls(raw, 'subscribe'), await calls(raw, 'evalsha')];
    const lock = client.getLock(name);
    const second = lock.lock();
    await eventually(async () => (await calls(raw, 'evalsha')) - scripts >= 1, 10_000, 'the second waiter to attempt');
    await releaseForeign(raw, name);
    await within(second, 10_000, 'the second waiter');
    // Its attempt, then its retry on the message: no SUBSCRIBE, no retry after subscribing.
    expect({ subscribes: (await calls(raw, 'subscribe')) - subscribes, scripts: (await calls(raw, 'evalsha')) - scripts }).toEqual({ subscribes: 0, scripts: 2 });
    expect(await raw.hget(name, `${client.id}:${lock.threadId}`)).toBe('1');
    await lock.unlock();

    await client.shutdown();
    expect(await numsub(raw, channel)).toBe(0);
  });

  it('ends by itself after subscriptionLinger ms with one UNSUBSCRIBE; 0 unsubscribes at once, as Redisson', async () => {
    const raw = suite.clients.raw();
    for (const linger of [200, 0]) {
      const name = uniqueName('linger');
      const channel = lockChannelName(name);
      const client = suite.clients.client({ subscriptionLinger: linger });
      let unsubscribes = 0;
      const lock = await acquiredAfterWaiting(raw, client, name, async () => void (unsubscribes = await calls(raw, 'unsubscribe')));
      if (linger > 0) expect(await numsub(raw, channel)).toBe(1);
      await eventually(async () => (await numsub(raw, channel)) === 0, 10_000, 'the linger to end');
      expect((await calls(raw, 'unsubscribe')) - unsubscribes).toBe(1);
      await lock.unlock();
    }
  });

  it('waiters that give up or are aborted do not linger', async () => {
    const raw = suite.clients.raw();
    const client = suite.clients.client({ subscriptionLinger: LONG_LEASE });
    const name = uniqueName('linger');
    const channel = lockChannelName(name);
    await holdForeign(raw, name);
    expect(await client.getLock(name).tryLock(300)).toBe(false);
    await eventually(async () => (await numsub(raw, channel)) === 0, 2_000, 'the timed-out waiter to unsubscribe');

    const abort = new AbortController();
    const aborted = client.getLock(name).lock({ signal: abort.signal });
    await eventually(async () => (await numsub(raw, channel)) === 1, 10_000, 'the waiter to subscribe');
    abort.abort();
    await expect(aborted).rejects.toThrow();
    await eventually(async () => (await numsub(raw, channel)) === 0, 2_000, 'the aborted waiter to unsubscribe');
  });

  it('forced: a release published while a joined waiter’s first attempt is on its way back wakes it (the wake-up is banked)', async () => {
    const raw = suite.clients.raw();
    const { proxy, client } = await proxiedClient();
    const name = uniqueName('linger');
    const channel = lockChannelName(name);
    await client.getLock(name).isLocked(); // the command connection: the proxy's connection 0
    // Connection 1 is the subscriber.
    await (await acquiredAfterWaiting(raw, client, name, () => Promise.resolve(void expect(proxy.connections).toBe(2)))).unlock();
    expect(await numsub(raw, channel)).toBe(1);

    await holdForeign(raw, name);
    // The command connection's replies are held back; the subscriber's messages pass at once.
    proxy.replyDelayOf.set(0, 1_000);
    const scripts = await calls(raw, 'evalsha');
    const lock = client.getLock(name);
    const second = lock.lock();
    await eventually(async () => (await calls(raw, 'evalsha')) - scripts >= 1, 10_000, 'the second waiter’s attempt to run');
    // The attempt found the lock held; its reply is still in the proxy when the release is published.
    await releaseForeign(raw, name);
    // Without the wake-up banked on the joined waiter it would sleep out the holder's 60 s TTL.
    await within(second, 15_000, 'the joined waiter, woken by a message that overtook its attempt’s reply');
    expect(await raw.hget(name, `${client.id}:${lock.threadId}`)).toBe('1');
    proxy.replyDelayOf.delete(0);
    await lock.unlock();
  });

  it('a dropped subscriber connection ends every linger: nothing is subscribed again for it', async () => {
    const raw = suite.clients.raw();
    const { proxy, client } = await proxiedClient();
    const name = uniqueName('linger');
    const channel = lockChannelName(name);
    const held = await acquiredAfterWaiting(raw, client, name);
    expect(await numsub(raw, channel)).toBe(1);
    const subscribes = await calls(raw, 'subscribe');
    proxy.dropAll();
    await eventually(() => proxy.connections >= 1, 10_000, 'the client to reconnect');
    await eventually(async () => held.unlock().then(() => true, () => false), 10_000, 'the unlock through the new connection');
    expect(await raw.exists(name)).toBe(0);
    expect(await numsub(raw, channel)).toBe(0);
    expect((await calls(raw, 'subscribe')) - subscribes).toBe(0);
  });
});
