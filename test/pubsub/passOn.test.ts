/**
 * `Subscription.passOn()` (used by the semaphore's acquire loop): a waiter that was woken but could not use
 * the wake-up hands it to the next waiter queued behind it that is not already woken — never to itself or
 * to a waiter ahead of it, so one message's wake-up travels the queue at most once.
 */
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { IoredisSubscriber } from '../../src/connection/ioredis/IoredisSubscriber.js';
import { PublishSubscribe, type Subscription } from '../../src/pubsub/PublishSubscribe.js';
import { semaphoreWakePolicy } from '../../src/pubsub/wakePolicies.js';
import { Clients, startRedis, uniqueName, type TestRedis } from '../support/redis.js';

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

/** Whether `sub` is woken now: a wait of 0 ms answers a banked wake-up at once, else times out. */
const woken = async (sub: Subscription): Promise<boolean> => (await sub.wait(0)) === 'woken';

it('hands a spent wake-up to the next unwoken waiter behind, skipping woken ones; the last has nobody to hand to', async () => {
  const channel = uniqueName('ch');
  const [a, b, c, d] = (await Promise.all([1, 2, 3, 4].map(() => pubsub.subscribe(channel, semaphoreWakePolicy, 5_000)))) as [Subscription, Subscription, Subscription, Subscription];
  // "2" wakes the two longest waiters, a and b, in one go.
  const first = a.wait(-1);
  await raw.publish(channel, '2');
  expect(await first).toBe('woken');
  // a could not use it: the pass skips b (already woken) and reaches c, not d.
  a.passOn();
  expect(await woken(b)).toBe(true);
  expect(await woken(c)).toBe(true);
  expect(await woken(d)).toBe(false);
  expect(await woken(a)).toBe(false);
  // Only backwards: d, the last, hands to nobody (not back to the front); c hands to d.
  d.passOn();
  for (const s of [a, b, c, d]) expect(await woken(s)).toBe(false);
  c.passOn();
  expect(await woken(d)).toBe(true);
  for (const s of [a, b, c, d]) s.release();
  expect(pubsub.waiterCount).toBe(0);
});
