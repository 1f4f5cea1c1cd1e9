/**
 * The waiting engine's pub/sub layer against a real server: one SUBSCRIBE per channel shared by all local
 * waiters, `0` wakes one waiter (FIFO), `1` wakes all, a wake-up that arrives before the wait is banked,
 * and nothing outlives its waiter.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Redis } from 'ioredis';
import { IoredisSubscriber } from '../../src/connection/ioredis/IoredisSubscriber.js';
import { PublishSubscribe, type Subscription } from '../../src/pubsub/PublishSubscribe.js';
import { latchWakePolicy, lockWakePolicy, semaphoreWakePolicy } from '../../src/pubsub/wakePolicies.js';
import { IllegalStateError } from '../../src/errors.js';
import { Clients, eventually, sleep, startRedis, uniqueName, type TestRedis } from '../support/redis.js';

let server: TestRedis;
let clients: Clients;
let raw: Redis;
let pubsub: PublishSubscribe;

beforeAll(async () => {
  server = await startRedis();
  clients = new Clients(server.url);
  raw = clients.raw();
  pubsub = new PublishSubscribe(new IoredisSubscriber(clients.raw({ lazyConnect: true })), '');
});
afterAll(async () => {
  await pubsub.close();
  await clients.closeAll();
  await server.stop();
});

const numSub = async (channel: string): Promise<number> => Number(((await raw.pubsub('NUMSUB', channel)) as [string, number])[1]);

function track(sub: Subscription, ms = -1): { done: boolean; promise: Promise<void> } {
  const state = { done: false, promise: Promise.resolve() };
  state.promise = sub.wait(ms).then(() => {
    state.done = true;
  });
  return state;
}

it('shares one subscription per channel and unsubscribes when the last waiter leaves', async () => {
  const channel = uniqueName('ch');
  const subs = await Promise.all([1, 2, 3].map(() => pubsub.subscribe(channel, lockWakePolicy, 5_000)));
  expect(await numSub(channel)).toBe(1);
  expect(pubsub.channelCount).toBe(1);
  expect(pubsub.waiterCount).toBe(3);
  subs[0]?.release();
  subs[1]?.release();
  expect(await numSub(channel)).toBe(1);
  subs[2]?.release();
  subs[2]?.release(); // idempotent
  expect(pubsub.channelCount).toBe(0);
  await eventually(async () => (await numSub(channel)) === 0, 5_000, 'unsubscribe');
});

it('message 0 wakes exactly one waiter, in FIFO order; message 1 wakes all', async () => {
  const channel = uniqueName('ch');
  const subs = await Promise.all([1, 2, 3].map(() => pubsub.subscribe(channel, lockWakePolicy, 5_000)));
  const waits = subs.map((s) => track(s));
  await raw.publish(channel, '0');
  await eventually(() => waits.some((w) => w.done), 5_000, 'one wake');
  await sleep(100);
  expect(waits.map((w) => w.done)).toEqual([true, false, false]);
  await raw.publish(channel, '7'); // not a lock message: ignored
  await sleep(100);
  expect(waits.map((w) => w.done)).toEqual([true, false, false]);
  await raw.publish(channel, '1');
  await Promise.all(waits.map((w) => w.promise));
  for (const s of subs) s.release();
});

it('banks a wake-up that arrives before the wait, and hands an unused one to the next waiter', async () => {
  const channel = uniqueName('ch');
  const first = await pubsub.subscribe(channel, lockWakePolicy, 5_000);
  const second = await pubsub.subscribe(channel, lockWakePolicy, 5_000);
  await raw.publish(channel, '0');
  await sleep(100); // delivered while nobody waits: banked on the first waiter
  await first.wait(-1); // returns at once
  await raw.publish(channel, '0');
  await sleep(100);
  const pending = track(second);
  await sleep(50);
  expect(pending.done).toBe(false);
  first.release(); // leaves with a banked wake-up: it goes to the second waiter
  await pending.promise;
  second.release();
});

it('times out a wait after its TTL and rejects on abort, leaving no timer behind', async () => {
  const channel = uniqueName('ch');
  const sub = await pubsub.subscribe(channel, lockWakePolicy, 5_000);
  await sub.wait(50); // resolves by timeout
  const controller = new AbortController();
  const pending = sub.wait(-1, controller.signal);
  const reason = new Error('stop');
  controller.abort(reason);
  await expect(pending).rejects.toBe(reason);
  sub.release();
  expect(pubsub.waiterCount).toBe(0);
});

it('a semaphore message wakes min(waiters, permits) waiters, longest first; a negative or odd one nobody', async () => {
  const channel = uniqueName('ch');
  const subs = await Promise.all([1, 2, 3, 4].map(() => pubsub.subscribe(channel, semaphoreWakePolicy, 5_000)));
  const waits = subs.map((s) => track(s));
  await raw.publish(channel, '-2');
  await raw.publish(channel, 'x');
  await raw.publish(channel, '2');
  await Promise.all(waits.slice(0, 2).map((w) => w.promise));
  await sleep(100);
  expect(waits.map((w) => w.done)).toEqual([true, true, false, false]);
  await raw.publish(channel, '9');
  await Promise.all(waits.map((w) => w.promise));
  for (const s of subs) s.release();
});

it('refuses a second wake policy on a channel in use, without touching the first one\'s waiters', async () => {
  const channel = uniqueName('ch');
  const sub = await pubsub.subscribe(channel, lockWakePolicy, 5_000);
  await expect(pubsub.subscribe(channel, latchWakePolicy, 5_000)).rejects.toBeInstanceOf(IllegalStateError);
  expect(pubsub.waiterCount).toBe(1);
  const pending = track(sub);
  await raw.publish(channel, '0');
  await pending.promise;
  sub.release();
  expect(pubsub.channelCount).toBe(0);
});

it('a latch message 0 opens every waiter and 1 opens nobody', async () => {
  const channel = uniqueName('ch');
  const subs = await Promise.all([1, 2].map(() => pubsub.subscribe(channel, latchWakePolicy, 5_000)));
  const waits = subs.map((s) => track(s));
  await raw.publish(channel, '1');
  await sleep(100);
  expect(waits.map((w) => w.done)).toEqual([false, false]);
  await raw.publish(channel, '0');
  await Promise.all(waits.map((w) => w.promise));
  for (const s of subs) s.release();
});

it('join(): only a channel whose subscription the server confirmed, with the same wake policy; a banked wake-up reaches a waiter that joined before it waited', async () => {
  const channel = uniqueName('ch');
  expect(pubsub.join(channel, lockWakePolicy)).toBeNull(); // nobody subscribed it
  const pending = pubsub.subscribe(channel, lockWakePolicy, 5_000);
  expect(pubsub.join(channel, lockWakePolicy)).toBeNull(); // SUBSCRIBE not confirmed yet
  const first = await pending;
  expect(pubsub.join(channel, semaphoreWakePolicy)).toBeNull(); // another primitive's policy
  const joined = pubsub.join(channel, lockWakePolicy);
  expect(joined).not.toBeNull();
  expect(pubsub.waiterCount).toBe(2);
  // The first waiter is not waiting yet either: the oldest takes the wake-up, the next one the second.
  await raw.publish(channel, '0');
  await raw.publish(channel, '0');
  // wait(0): 'woken' at once when a wake-up is banked, else 'timeout'.
  await eventually(async () => (await joined?.wait(0)) === 'woken', 5_000, 'the joined waiter banked');
  expect(await first.wait(0)).toBe('woken');
  first.release();
  joined?.release();
  expect(pubsub.channelCount).toBe(0);
  await eventually(async () => (await numSub(channel)) === 0, 5_000, 'unsubscribe');
});

it('release(handOn, linger): with a linger the channel stays until it ends, and a join ends the linger; close() ends it at once', async () => {
  const lingering = new PublishSubscribe(new IoredisSubscriber(clients.raw({ lazyConnect: true })), '', 3_000, 60_000);
  try {
    const channel = uniqueName('ch');
    const sub = await lingering.subscribe(channel, lockWakePolicy, 5_000);
    sub.release(false, true);
    expect(lingering.channelCount).toBe(1);
    expect(await numSub(channel)).toBe(1);
    const again = lingering.join(channel, lockWakePolicy);
    expect(again).not.toBeNull();
    again?.release(false, false); // no linger asked: unsubscribed at once
    expect(lingering.channelCount).toBe(0);
    await eventually(async () => (await numSub(channel)) === 0, 5_000, 'unsubscribe');
    const last = await lingering.subscribe(channel, lockWakePolicy, 5_000);
    last.release(false, true);
    expect(await numSub(channel)).toBe(1);
    // Nobody waits on it: another primitive's waiter takes the lingering channel over, as it could before.
    const other = await lingering.subscribe(channel, latchWakePolicy, 5_000);
    const woken = track(other);
    await raw.publish(channel, '0'); // the latch's "count reached zero"
    await woken.promise;
    other.release(false, true);
    expect(await numSub(channel)).toBe(1);
  } finally {
    await lingering.close();
  }
  expect(lingering.channelCount).toBe(0);
});

it("othersWaiting / outranked: another client's waiters on the same channel, and which of them joined first", async () => {
  const second = new PublishSubscribe(new IoredisSubscriber(clients.raw({ lazyConnect: true })), '');
  const prefixed = new PublishSubscribe(new IoredisSubscriber(clients.raw({ lazyConnect: true })), 'app:');
  try {
    const channel = uniqueName('ch');
    expect(pubsub.othersWaiting(channel)).toBe(false);
    const older = await pubsub.subscribe(channel, lockWakePolicy, 5_000);
    // Its own waiters do not count; a client whose waiters are on another server-side name (a key prefix) neither.
    expect(pubsub.othersWaiting(channel)).toBe(false);
    expect(second.othersWaiting(channel)).toBe(true);
    expect(prefixed.othersWaiting(channel)).toBe(false);
    expect(older.outranked()).toBe(false);

    const younger = await second.subscribe(channel, lockWakePolicy, 5_000);
    const sameClient = await second.subscribe(channel, lockWakePolicy, 5_000);
    expect(pubsub.othersWaiting(channel)).toBe(true);
    expect(younger.outranked()).toBe(true);
    expect(sameClient.outranked()).toBe(true);
    expect(older.outranked()).toBe(false);

    // The older waiter leaves: nobody in another client joined before the rest.
    older.release();
    expect(younger.outranked()).toBe(false);
    expect(sameClient.outranked()).toBe(false);
    expect(pubsub.othersWaiting(channel)).toBe(true);
    expect(second.othersWaiting(channel)).toBe(false);
    // A waiter that joins a lingering or subscribed channel later is outranked by the earlier ones elsewhere.
    const late = await pubsub.subscribe(channel, lockWakePolicy, 5_000);
    expect(late.outranked()).toBe(true);
    younger.release();
    sameClient.release();
    expect(late.outranked()).toBe(false);
    late.release();
    expect(pubsub.othersWaiting(channel)).toBe(false);
    expect(second.othersWaiting(channel)).toBe(false);
  } finally {
    await Promise.all([second.close(), prefixed.close()]);
  }
});
