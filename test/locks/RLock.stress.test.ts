/**
 * Redisson's testSubscriptionsPerConnection / testSinglePubSub / testConcurrencyLoop_MultiInstance, scaled
 * to this machine: many lock/unlock tasks over a few names from several clients; afterwards no channel is
 * left subscribed, no lock is left held, and the counters are exact.
 */
import { expect, it } from 'vitest';
import { sleep, uniqueName, useRedis } from '../support/redis.js';

const suite = useRedis();

it('600 lock/unlock tasks on 5 names from 4 clients leave no subscription and exact counters', async () => {
  const raw = suite.clients.raw();
  const prefix = uniqueName('stress');
  const names = Array.from({ length: 5 }, (_, i) => `${prefix}:${i}`);
  const workers = Array.from({ length: 4 }, () => suite.clients.client());
  const tasks = Array.from({ length: 600 }, (_, i) => async () => {
    const name = names[i % names.length] as string;
    const client = workers[i % workers.length];
    if (!client) throw new Error('no client');
    const lock = client.getLock(name);
    // Mix the Redisson entry points: lock(), tryLock(wait), tryLock(wait, lease).
    if (i % 3 === 0) await lock.lock();
    else if (i % 3 === 1) expect(await lock.tryLock(30_000)).toBe(true);
    else expect(await lock.tryLock(30_000, 10_000)).toBe(true);
    try {
      const value = Number((await raw.get(`${name}:n`)) ?? '0');
      if (i % 7 === 0) await sleep(1);
      await raw.set(`${name}:n`, value + 1);
    } finally {
      await lock.unlock();
    }
  });
  await Promise.all(tasks.map((t) => t()));
  for (const name of names) expect(await raw.get(`${name}:n`)).toBe('120');
  for (const name of names) expect(await raw.exists(name)).toBe(0);
  await Promise.all(workers.map((w) => w.shutdown()));
  expect(await raw.pubsub('CHANNELS', `redisson_lock__channel:{${prefix}*`)).toEqual([]);
});

it('tryLock/unlock in a tight loop on one object: watchdog bookkeeping stays consistent', async () => {
  const client = suite.clients.client({ lockWatchdogTimeout: 900 });
  const lock = client.getLock(uniqueName());
  for (let i = 0; i < 300; i++) {
    expect(await lock.tryLock()).toBe(true);
    await lock.unlock();
  }
  await lock.lock();
  await sleep(1_200); // renewal still works after many cycles
  expect(await lock.isHeldByCurrentThread()).toBe(true);
  await lock.unlock();
  expect(await lock.isLocked()).toBe(false);
});
