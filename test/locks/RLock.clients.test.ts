/**
 * Several clients in one process on one lock (issue 15's "N service instances", as a new user first tries
 * them). A release wakes a waiter in every client, but their retries are written only when the event loop
 * reads the message, while a client looping on lock/unlock writes its next attempt at once: without care
 * it wins every time and its neighbours starve (the benchmark's 16 clients in one process: 0 ops for some).
 */
import { describe, expect, it } from 'vitest';
import { eventually, uniqueName, useRedis, within } from '../support/redis.js';

const suite = useRedis();

const subscribers = async (name: string): Promise<number> =>
  Number(((await suite.clients.raw().pubsub('NUMSUB', `redisson_lock__channel:{${name}}`)) as [string, number])[1]);

describe('clients in one process on one lock', () => {
  it('a client looping on lock/unlock does not starve a waiting client: the waiter gets the lock within a few rounds', async () => {
    const name = uniqueName();
    const [looper, waiter] = [suite.clients.client(), suite.clients.client()];
    const lock = looper.getLock(name);
    await lock.lock();
    let rounds = 0;
    let acquiredAfter = -1;
    const theirs = waiter.getLock(name);
    // Released at once, so the looper's next lock() goes on.
    const waiting = theirs.lock().then(async () => {
      acquiredAfter = rounds;
      await theirs.unlock();
    });
    // Parked on the channel before the loop starts: every release from here on wakes it.
    await eventually(async () => (await subscribers(name)) === 1, 5_000, "the waiter's subscription");
    await lock.unlock();
    // The loop of the benchmark: take the lock again as soon as the release returns.
    while (acquiredAfter < 0 && rounds < 200) {
      rounds++;
      await lock.lock();
      await lock.unlock();
    }
    await within(waiting, 10_000, "the waiting client's lock()");
    // Unfair ordering (the looper's attempt always first) leaves the waiter parked through all 200 rounds.
    expect(acquiredAfter).toBeGreaterThanOrEqual(0);
    expect(acquiredAfter).toBeLessThan(20);
  });
});
