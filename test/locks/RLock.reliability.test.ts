/**
 * Liveness and error-contract defects found by hostile testing (issue 8), each with its timing forced
 * rather than hoped for: a subscriber handshake slowed by a proxy, a reply held back and then dropped, a
 * clock that has passed a waiter's deadline when its wake-up arrives, unlocks in flight at shutdown, a
 * paused server at shutdown. Time limits are hang guards: a waiter that is woken by a release message
 * acquires long before the holder's lease (60 s) would have let it in.
 */
import { afterEach, expect, it, vi } from 'vitest';
import type { Redis } from 'ioredis';
import { ConnectionLostError, RedissonShutdownError, lockChannelName, type Redisson } from '../../src/index.js';
import { RedisProxy } from '../support/proxy.js';
import { eventually, sleep, uniqueName, useRedis, within } from '../support/redis.js';

const suite = useRedis({ own: true });
const proxies: RedisProxy[] = [];
const LONG_LEASE = 60_000;

afterEach(async () => {
  vi.restoreAllMocks();
  await Promise.all(proxies.splice(0).map((p) => p.stop()));
});

async function proxy(): Promise<RedisProxy> {
  const p = await RedisProxy.start(suite.redis.port);
  proxies.push(p);
  return p;
}

function settledState<T>(promise: Promise<T>): { readonly promise: Promise<T>; outcome: unknown } {
  const state: { promise: Promise<T>; outcome: unknown } = { promise, outcome: 'pending' };
  promise.then(
    () => (state.outcome = 'resolved'),
    (error: unknown) => (state.outcome = error),
  );
  return state;
}

async function numsub(raw: Redis, channel: string): Promise<number> {
  return Number(((await raw.pubsub('NUMSUB', channel)) as [string, number])[1]);
}

function quiet(client: Redisson): Redisson {
  client.redis.on('error', () => undefined);
  return client;
}

/** Holds `names` with a 60 s lease from a client of its own, so only a release message lets waiters in. */
async function holdAll(names: readonly string[]): Promise<() => Promise<void>> {
  const holder = suite.clients.client();
  const locks = names.map((n) => holder.getLock(n));
  for (const lock of locks) await lock.lock(LONG_LEASE);
  return async () => {
    for (const lock of locks) await lock.unlock();
  };
}

it('defect 1: waiters that subscribe during the subscriber handshake are all subscribed and woken, with no untyped error', async () => {
  const raw = suite.clients.raw();
  const p = await proxy();
  const names = Array.from({ length: 6 }, () => uniqueName());
  const release = await holdAll(names);
  const client = suite.clients.client({ redis: p.url });
  await client.getLock(uniqueName()).isLocked(); // the command connection is up; the subscriber is not

  // Every reply now takes 30 ms: the subscriber's handshake (CLIENT SETINFO, INFO) spans ~60 ms, and the
  // staggered waiters ask to subscribe inside that window.
  p.replyDelayMs = 30;
  const waiters = [];
  for (const name of names) {
    waiters.push(settledState(client.getLock(name).lock()));
    await sleep(12);
  }
  await eventually(async () => (await Promise.all(names.map((n) => numsub(raw, lockChannelName(n))))).every((n) => n === 1), 10_000, 'every channel subscribed');
  p.replyDelayMs = 0;
  expect(waiters.map((w) => w.outcome)).toEqual(names.map(() => 'pending'));

  await release();
  await within(Promise.all(waiters.map((w) => w.promise)), 10_000, 'the waiters after the release');
  for (const name of names) expect(await client.getLock(name).isLocked()).toBe(true);
});

it('defect 1: a waiter aborted at any point of the handshake leaves its channel unsubscribed', async () => {
  const raw = suite.clients.raw();
  const p = await proxy();
  // The abort lands at a different step of the subscriber's handshake in each round.
  for (const abortAfter of [45, 55, 70, 90, 110, 130]) {
    const [name, other] = [uniqueName(), uniqueName()];
    const release = await holdAll([name, other]);
    const client = suite.clients.client({ redis: p.url });
    await client.getLock(uniqueName()).isLocked();

    p.replyDelayMs = 40;
    const controller = new AbortController();
    const aborted = settledState(client.getLock(name).lock({ signal: controller.signal }));
    await sleep(abortAfter);
    controller.abort(new Error('gave up'));
    await within(aborted.promise.catch(() => undefined), 5_000, 'the aborted waiter');
    expect((aborted.outcome as Error).message).toBe('gave up');
    p.replyDelayMs = 0;

    // Once the subscriber is in place (another waiter's channel is subscribed), the aborted one is not.
    const waiter = settledState(client.getLock(other).lock());
    await eventually(async () => (await numsub(raw, lockChannelName(other))) === 1, 10_000, 'the other channel subscribed');
    expect({ abortAfter, subscribers: await numsub(raw, lockChannelName(name)) }).toEqual({ abortAfter, subscribers: 0 });
    await release();
    await within(waiter.promise, 10_000, 'the other waiter');
    expect(waiter.outcome).toBe('resolved');
  }
});

it('defect 1: after CLIENT KILL TYPE pubsub, a waiter that starts during the reconnect and the old one are both woken', async () => {
  const raw = suite.clients.raw();
  const p = await proxy();
  // The new waiter starts at a different step of the reconnect handshake in each round.
  for (const startAfter of [0, 10, 25, 40, 60, 80]) {
    const [first, second] = [uniqueName(), uniqueName()];
    const release = await holdAll([first, second]);
    const client = quiet(suite.clients.client({ redis: p.url }));
    const a = settledState(client.getLock(first).lock());
    await eventually(async () => (await numsub(raw, lockChannelName(first))) === 1, 10_000, 'the first waiter subscribed');

    p.replyDelayMs = 30;
    expect(await raw.client('KILL', 'TYPE', 'pubsub')).toBe(1);
    await sleep(startAfter);
    const b = settledState(client.getLock(second).lock());
    await eventually(
      async () => (await numsub(raw, lockChannelName(first))) === 1 && (await numsub(raw, lockChannelName(second))) === 1,
      10_000,
      `both channels subscribed after the reconnect (new waiter after ${startAfter} ms)`,
    );
    p.replyDelayMs = 0;
    expect([a.outcome, b.outcome]).toEqual(['pending', 'pending']);
    await release();
    await within(Promise.all([a.promise, b.promise]), 10_000, 'both waiters');
    await client.shutdown();
  }
});

/** Runs `lock()` through the proxy, lets the script run in Redis, then drops the socket before its reply. */
async function loseAcquireReply(p: RedisProxy, raw: Redis, client: Redisson, name: string, threadId: number, expected: number): Promise<unknown> {
  const field = `${client.id}:${threadId}`;
  p.replyDelayMs = 5_000;
  const attempt = settledState(client.getLock(name).lock({ threadId }));
  await eventually(async () => Number(await raw.hget(name, field)) === expected + 1, 5_000, 'the acquire script ran');
  p.dropAll();
  p.replyDelayMs = 0;
  await within(attempt.promise.catch(() => undefined), 10_000, 'lock() across the dropped reply');
  return attempt.outcome;
}

it('defect 2: an acquire whose reply was lost is undone at once, so other clients are not starved', async () => {
  const raw = suite.clients.raw();
  const p = await proxy();
  const name = uniqueName();
  const a = quiet(suite.clients.client({ redis: p.url }));
  await a.getLock(uniqueName()).isLocked();

  const outcome = await loseAcquireReply(p, raw, a, name, 7, 0);
  expect(outcome).toBeInstanceOf(ConnectionLostError);
  // The hold landed, with a 30 s watchdog lease that nobody renews: it must not wait that out.
  const b = suite.clients.client();
  await within(b.getLock(name).lock({ threadId: 1 }), 10_000, 'another client after the lost reply');
  await b.getLock(name).unlock({ threadId: 1 });

  // The same owner locks and unlocks again: the count returns to 0, nothing is re-entered.
  const lock = a.getLock(name);
  await lock.lock({ threadId: 7 });
  expect(await raw.hget(name, `${a.id}:7`)).toBe('1');
  await lock.unlock({ threadId: 7 });
  expect(await raw.exists(name)).toBe(0);
});

it('defect 2: a lost re-entry is undone, so the owner\'s own unlock frees the lock', async () => {
  const raw = suite.clients.raw();
  const p = await proxy();
  const name = uniqueName();
  const a = quiet(suite.clients.client({ redis: p.url }));
  const lock = a.getLock(name);
  await lock.lock({ threadId: 3 });

  expect(await loseAcquireReply(p, raw, a, name, 3, 1)).toBeInstanceOf(ConnectionLostError);
  await lock.unlock({ threadId: 3 });
  expect(await raw.exists(name)).toBe(0);
});

it('defect 3: unlocks in flight when shutdown() is called all resolve, and no latch key is left', async () => {
  const raw = suite.clients.raw();
  const a = suite.clients.client();
  const prefix = uniqueName('drain');
  const locks = Array.from({ length: 150 }, (_, i) => a.getLock(`${prefix}:${i}`));
  await Promise.all(locks.map((l) => l.lock()));

  const unlocks = locks.map((l) => l.unlock());
  await a.shutdown();
  const results = await Promise.allSettled(unlocks);
  expect(results.filter((r) => r.status === 'rejected')).toEqual([]);
  expect(await raw.keys(`*${prefix}*`)).toEqual([]);
});

it('defect 6: a wake-up taken by a waiter whose deadline has passed is handed to the next waiter', async () => {
  const raw = suite.clients.raw();
  const name = uniqueName();
  const channel = lockChannelName(name);
  // A foreign (Java-shaped) holder with a long lease: only the message can let the waiters in.
  await raw.hset(name, 'java-client:1', '1');
  await raw.pexpire(name, LONG_LEASE);
  const client = suite.clients.client();
  const stats = async (): Promise<number> => {
    const info = await raw.info('commandstats');
    return Number(/cmdstat_evalsha:calls=(\d+)/.exec(info)?.[1] ?? 0) + Number(/cmdstat_eval:calls=(\d+)/.exec(info)?.[1] ?? 0);
  };
  const base = await stats();
  const first = settledState(client.getLock(name).tryLock(30_000, { threadId: 1 })); // first in FIFO
  await eventually(async () => (await stats()) - base >= 2, 5_000, 'the first waiter waiting');
  // The channel is subscribed already: the second waiter joins it before its one attempt, and waits on that
  // attempt's reply without a second one.
  const second = settledState(client.getLock(name).lock({ threadId: 2 }));
  await eventually(async () => (await stats()) - base >= 3, 5_000, 'the second waiter waiting');
  await sleep(100); // both retries' replies are in: both wait on the channel
  expect(await numsub(raw, channel)).toBe(1);

  // The event loop stalled past the first waiter's deadline: its clock has run out when the wake arrives.
  const now = performance.now.bind(performance);
  vi.spyOn(performance, 'now').mockImplementation(() => now() + 60_000);
  await raw.del(name);
  await raw.publish(channel, '0');
  await within(first.promise, 5_000, 'the first waiter giving up');
  expect(first.outcome).toBe('resolved');
  expect(await first.promise).toBe(false);
  await within(second.promise, 10_000, 'the second waiter, handed the wake-up');
  expect(await raw.hget(name, `${client.id}:2`)).toBe('1');
});

it('defect 8: shutdown() honours `timeout` when Redis stops answering', async () => {
  const server = suite.redis.server;
  if (!server?.pid) throw new Error('needs a redis-server of its own');
  const name = uniqueName();
  const release = await holdAll([name]);
  const a = quiet(suite.clients.client({ timeout: 500 }));
  await a.getLock(uniqueName()).lock();
  const waiter = settledState(a.getLock(name).lock());
  await eventually(async () => (await numsub(suite.clients.raw(), lockChannelName(name))) === 1, 10_000, 'the waiter subscribed');

  process.kill(server.pid, 'SIGSTOP');
  try {
    const started = performance.now();
    await within(a.shutdown(), 10_000, 'shutdown() with Redis paused');
    // The whole shutdown is bounded by `timeout` (500 ms), not by a fixed 3 s per connection.
    expect(performance.now() - started).toBeLessThan(2_000);
    await within(waiter.promise.catch(() => undefined), 1_000, 'the waiter');
    expect(waiter.outcome).toBeInstanceOf(RedissonShutdownError);
  } finally {
    process.kill(server.pid, 'SIGCONT');
  }
  await release();
});
