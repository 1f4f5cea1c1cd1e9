/**
 * Issue 24 (fault suite): an `unlock()` that fails without an answer (its reply never came within
 * `timeout`) must not leave the object believing it still holds under that owner. Before the fix the
 * failed owner stayed the object's current hold: the next `lock()` of the same object took a fresh owner
 * (the object "held"), and the next `unlock()` targeted the stale owner — failing, and leaving the fresh
 * hold in Redis with the watchdog renewing it. The failure is forced with CLIENT PAUSE WRITE, which holds
 * the unlock script (a write) past the client's `timeout`; the script then runs when the pause ends.
 */
import { describe, expect, it } from 'vitest';
import { RedisTimeoutError } from '../../src/index.js';
import { uniqueName, useRedis } from '../support/redis.js';

const suite = useRedis();

describe('an unlock() that failed without an answer', () => {
  it('is forgotten: the next lock()/unlock() of the same object act on a hold of their own', async () => {
    const client = suite.clients.client({ timeout: 200, retryAttempts: 0 });
    const admin = suite.clients.raw();
    const lock = client.getLock(uniqueName());
    await lock.lock();
    await admin.client('PAUSE', 1_000, 'WRITE');
    await expect(lock.unlock()).rejects.toBeInstanceOf(RedisTimeoutError);
    await admin.client('UNPAUSE');
    // The paused script ran once the pause ended: the first hold is gone.
    await expect(lock.isLocked()).resolves.toBe(false);

    await lock.lock();
    await lock.unlock();
    await expect(lock.isLocked()).resolves.toBe(false);
  });

  it('a retried unlock() after a failed one acts on the object\'s own owner, whose hold it still finds', async () => {
    const client = suite.clients.client({ timeout: 200, retryAttempts: 0 });
    const admin = suite.clients.raw();
    const lock = client.getLock(uniqueName());
    const hold = await lock.acquire();
    await hold.reenter();
    await admin.client('PAUSE', 1_000, 'WRITE');
    await expect(lock.unlock()).rejects.toBeInstanceOf(RedisTimeoutError);
    await admin.client('UNPAUSE');
    // The paused script ran when the pause ended: one of the two holds is left, and a retry releases it.
    await lock.unlock();
    await expect(lock.isLocked()).resolves.toBe(false);
  });
});
