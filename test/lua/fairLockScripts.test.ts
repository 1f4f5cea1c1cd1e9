/**
 * The FairLock scripts called directly on a real server: the queue, the deadlines, the hash and the
 * messages must be exactly what Redisson's `RedissonFairLock` scripts produce (PROTOCOL.md §3.2, §10),
 * including the "_Descrete" scenarios of RedissonFairLockTest (§14.3). `now` is an argument of every
 * script, so deadlines are checked exactly with a made-up clock instead of sleeping.
 */
import type { Redis } from 'ioredis';
import { beforeAll, describe, expect, it } from 'vitest';
import { evalScript } from '../../src/connection/ioredis/scripts.js';
import { fairLockQueueName, fairLockTimeoutName, fairLockWaiterChannelName, lockChannelName, unlockLatchName } from '../../src/keys.js';
import { NON_REENTRANT_REACQUIRE } from '../../src/locks/RedissonNonReentrantLock.js';
import { eventually, uniqueName } from '../support/redis.js';
import { latchId, useScriptServer } from './scriptServer.js';

const s = useScriptServer();
let sub: Redis;
const seen: { channel: string; message: string }[] = [];
const CLIENT = '3f2a9d1c-0000-4000-8000-00000000abcd';
const t = (thread: number): string => `${CLIENT}:${thread}`;

beforeAll(async () => {
  sub = s.clients.raw();
  sub.on('pmessage', (_p: string, channel: string, message: string) => seen.push({ channel, message }));
  await sub.psubscribe('redisson_lock__channel:*');
});

/** The three keys of a fair lock named `name`. */
const keys = (name: string): string[] => [name, fairLockQueueName(name), fairLockTimeoutName(name)];
const tryLock = (name: string, lease: number, field: string, wait: number, now: number, err?: string) =>
  evalScript(s.redis, 'fairlock/tryLockInner', keys(name), [lease, field, wait, now, ...(err ? [err] : [])]);
const tryLockOnce = (name: string, lease: number, field: string, now: number, wait: number, err?: string) =>
  evalScript(s.redis, 'fairlock/tryLockOnce', keys(name), [lease, field, now, wait, ...(err ? [err] : [])]);
const acquireFailed = (name: string, field: string, wait: number) =>
  evalScript(s.redis, 'fairlock/acquireFailed', [fairLockQueueName(name), fairLockTimeoutName(name), name, lockChannelName(name)], [field, wait, 'PUBLISH', 0]);
const unlock = (name: string, field: string, now: number, latch = unlockLatchName(name, latchId()), lease = 30_000) =>
  evalScript(s.redis, 'fairlock/unlockInner', [...keys(name), lockChannelName(name), latch], [0, lease, field, now, 'PUBLISH', 15_000]);
const tryOnceOrNull = (name: string, field: string, now: number) => tryLockOnce(name, 30_000, field, now, 5_000);
const forceUnlock = (name: string, now: number) => evalScript(s.redis, 'fairlock/forceUnlock', [...keys(name), lockChannelName(name)], [0, now, 'PUBLISH']);

const queue = (name: string): Promise<string[]> => s.redis.lrange(fairLockQueueName(name), 0, -1);
/** The deadlines zset as field → score. */
async function deadlines(name: string): Promise<Record<string, number>> {
  const flat = await s.redis.zrange(fairLockTimeoutName(name), 0, -1, 'WITHSCORES');
  const out: Record<string, number> = {};
  for (let i = 0; i < flat.length; i += 2) out[flat[i] ?? ''] = Number(flat[i + 1]);
  return out;
}
/** The messages published on `name`'s channels while `fn` ran (a marker message is the barrier). */
async function published(name: string, fn: () => Promise<unknown>): Promise<{ channel: string; message: string }[]> {
  const base = lockChannelName(name);
  const from = seen.length;
  await fn();
  const marker = `${base}:barrier`;
  await s.redis.publish(marker, 'end');
  await eventually(() => seen.slice(from).some((m) => m.channel === marker), 5_000, 'barrier message');
  return seen.slice(from).filter((m) => m.channel.startsWith(base) && m.channel !== marker);
}
const near = (value: unknown, expected: number, slack = 100): void => {
  expect(typeof value).toBe('number');
  expect(Math.abs((value as number) - expected)).toBeLessThanOrEqual(slack);
};

describe('fairlock/tryLockInner (waiting form)', () => {
  it('takes a free lock with nobody queued: field = 1, PTTL = lease, nil; no queue keys are created', async () => {
    const name = uniqueName();
    expect(await tryLock(name, 30_000, t(1), 5_000, Date.now())).toBeNull();
    expect(await s.redis.hgetall(name)).toEqual({ [t(1)]: '1' });
    near(await s.redis.pttl(name), 30_000, 1_000);
    expect(await s.redis.exists(fairLockQueueName(name), fairLockTimeoutName(name))).toBe(0);
  });

  it('re-enters for the holder (count 2, TTL reset to the new lease) without touching the queue', async () => {
    const name = uniqueName();
    const now = Date.now();
    await tryLock(name, 60_000, t(1), 5_000, now);
    await tryLock(name, 60_000, t(2), 5_000, now);
    expect(await tryLock(name, 5_000, t(1), 5_000, now)).toBeNull();
    expect(await s.redis.hget(name, t(1))).toBe('2');
    expect(await s.redis.pttl(name)).toBeLessThanOrEqual(5_000);
    expect(await queue(name)).toEqual([t(2)]);
  });

  it('testAcquireFailedTimeoutDrift_Descrete: queued with deadlines chained by wait; a leaver moves those behind it up; the head takes it on unlock', async () => {
    const name = uniqueName();
    const now = Date.now();
    expect(await tryLock(name, 30_000, t(101), 5_000, now)).toBeNull();
    const first = (await tryLock(name, 30_000, t(102), 5_000, now)) as number;
    near(first, 30_000);
    // Each next waiter's ttl is its predecessor's deadline minus now: exactly 5000 more.
    expect(await tryLock(name, 30_000, t(103), 5_000, now)).toBe(first + 5_000);
    expect(await tryLock(name, 30_000, t(104), 5_000, now)).toBe(first + 10_000);
    expect(await tryLock(name, 30_000, t(105), 5_000, now)).toBe(first + 15_000);
    expect(await queue(name)).toEqual([t(102), t(103), t(104), t(105)]);
    const d0 = now + first;
    expect(await deadlines(name)).toEqual({ [t(102)]: d0 + 5_000, [t(103)]: d0 + 10_000, [t(104)]: d0 + 15_000, [t(105)]: d0 + 20_000 });

    expect(await acquireFailed(name, t(103), 5_000)).toBeNull();
    expect(await queue(name)).toEqual([t(102), t(104), t(105)]);
    expect(await deadlines(name)).toEqual({ [t(102)]: d0 + 5_000, [t(104)]: d0 + 10_000, [t(105)]: d0 + 15_000 });
    // Re-polls of queued waiters return the lock's PTTL (Redisson 3.32.0+) and change nothing.
    for (const w of [102, 104, 105]) near(await tryLock(name, 30_000, t(w), 5_000, now), 30_000, 1_000);
    expect(await queue(name)).toEqual([t(102), t(104), t(105)]);

    expect(await unlock(name, t(101), now)).toBe(1);
    // Only the head may take the free lock.
    expect(await tryLock(name, 30_000, t(104), 5_000, now)).toBe(0);
    expect(await tryLock(name, 30_000, t(102), 5_000, now)).toBeNull();
    expect(await s.redis.hgetall(name)).toEqual({ [t(102)]: '1' });
    expect(await queue(name)).toEqual([t(104), t(105)]);
    // Taking it from the queue moves every remaining deadline up by the wait.
    expect(await deadlines(name)).toEqual({ [t(104)]: d0 + 5_000, [t(105)]: d0 + 10_000 });
    near(await tryLock(name, 30_000, t(104), 5_000, now), 30_000, 1_000);
  });

  it('testLockAcquiredTimeoutDrift_Descrete: a waiter joining after an acquisition queues 5000 behind the one ahead', async () => {
    const name = uniqueName();
    const now = Date.now();
    await tryLock(name, 300_000, t(101), 5_000, now);
    await tryLock(name, 300_000, t(102), 5_000, now);
    const second = (await tryLock(name, 300_000, t(103), 5_000, now)) as number;
    await unlock(name, t(101), now);
    expect(await tryLock(name, 300_000, t(102), 5_000, now)).toBeNull();
    const third = (await tryLock(name, 300_000, t(104), 5_000, now)) as number;
    // 103 queued at now + second + 5000; 102's acquisition moved it up by 5000; 104 queues 5000 behind it.
    expect(await deadlines(name)).toEqual({ [t(103)]: now + second, [t(104)]: now + second + 5_000 });
    expect(third).toBe(second);
    // 103's re-poll is the new holder's PTTL, about 5000 below its first ttl (Redisson's assertion).
    near(second - ((await tryLock(name, 300_000, t(103), 5_000, now)) as number), 5_000, 1_000);
  });

  it('testAbandonedTimeoutDrift_Descrete: waiters past their deadline are dropped from the head, and the live one takes the lock', async () => {
    const name = uniqueName();
    const now = Date.now();
    const wait = 100;
    await tryLock(name, 500, t(101), wait, now);
    const first = (await tryLock(name, 500, t(102), wait, now)) as number;
    await tryLock(name, 500, t(103), wait, now);
    const third = (await tryLock(name, 500, t(104), wait, now)) as number;
    expect(third - first).toBe(200);
    await eventually(async () => (await s.redis.exists(name)) === 0, 5_000, 'lease ran out');
    // At 104's own deadline minus 1 ms: 102 and 103 have passed theirs, 104 heads and takes the lock.
    expect(await tryLock(name, 500, t(104), wait, now + third + wait - 1)).toBeNull();
    expect(await queue(name)).toEqual([]);
    expect(await deadlines(name)).toEqual({});
  });

  it('drops only expired waiters at the head: an expired one behind a live head stays; a head without a deadline stops the purge', async () => {
    const name = uniqueName();
    await s.redis.hset(name, t(1), 1);
    await s.redis.pexpire(name, 60_000);
    await s.redis.rpush(fairLockQueueName(name), t(2), t(3), t(4));
    await s.redis.zadd(fairLockTimeoutName(name), 1_000, t(2), 5_000, t(3), 2_000, t(4));
    // now = 3000: t(2) expired (dropped), t(3) alive heads, t(4) expired but behind it: stays.
    near(await tryLock(name, 30_000, t(3), 100, 3_000), 60_000, 1_000);
    expect(await queue(name)).toEqual([t(3), t(4)]);
    const scoreless = uniqueName();
    await s.redis.hset(scoreless, t(1), 1);
    await s.redis.pexpire(scoreless, 60_000);
    await s.redis.rpush(fairLockQueueName(scoreless), t(2), t(3));
    await s.redis.zadd(fairLockTimeoutName(scoreless), 1_000, t(3));
    expect(await tryOnceOrNull(scoreless, t(9), 10_000)).toBe(1);
    expect(await queue(scoreless)).toEqual([t(2), t(3)]);
  });

  it('enqueue after a last waiter without a deadline falls back to the lock PTTL (3.45.0+, no Lua error)', async () => {
    const name = uniqueName();
    await s.redis.hset(name, t(1), 1);
    await s.redis.pexpire(name, 40_000);
    await s.redis.rpush(fairLockQueueName(name), t(2));
    const now = Date.now();
    const ttl = (await tryLock(name, 30_000, t(3), 5_000, now)) as number;
    near(ttl, 40_000, 1_000);
    expect((await deadlines(name))[t(3)]).toBe(ttl + 5_000 + now);
    expect(await queue(name)).toEqual([t(2), t(3)]);
  });

  it('a lock without expiry makes the first waiter\'s ttl -1 (it then waits for the message only)', async () => {
    const name = uniqueName();
    await s.redis.hset(name, t(1), 1);
    expect(await tryLock(name, 30_000, t(2), 5_000, 1_000)).toBe(-1);
    expect(await deadlines(name)).toEqual({ [t(2)]: -1 + 5_000 + 1_000 });
  });
});

describe('fairlock/tryLockOnce (single attempt)', () => {
  it('testLockAcquiredBooleanTimeoutDrift_Descrete: contenders get 1 and are never queued; the next caller takes it after unlock and after expiry', async () => {
    const name = uniqueName();
    const now = Date.now();
    expect(await tryLockOnce(name, 500, t(101), now, 100)).toBeNull();
    expect(await tryLockOnce(name, 500, t(102), now, 100)).toBe(1);
    expect(await tryLockOnce(name, 500, t(103), now, 100)).toBe(1);
    expect(await s.redis.exists(fairLockQueueName(name), fairLockTimeoutName(name))).toBe(0);
    expect(await unlock(name, t(101), now)).toBe(1);
    expect(await tryLockOnce(name, 500, t(102), now, 100)).toBeNull();
    expect(await tryLockOnce(name, 500, t(104), now, 100)).toBe(1);
    expect(await tryLockOnce(name, 500, t(103), now, 100)).toBe(1);
    await eventually(async () => (await s.redis.exists(name)) === 0, 5_000, 'lease ran out');
    expect(await tryLockOnce(name, 500, t(104), Date.now(), 100)).toBeNull();
    expect(await s.redis.hgetall(name)).toEqual({ [t(104)]: '1' });
  });

  it('a free lock with someone queued is refused (1), unless the caller heads the queue; re-entry counts', async () => {
    const name = uniqueName();
    const now = Date.now();
    await tryLock(name, 30_000, t(1), 5_000, now);
    await tryLock(name, 30_000, t(2), 5_000, now);
    await tryLock(name, 30_000, t(3), 5_000, now);
    expect(await tryLockOnce(name, 30_000, t(1), now, 5_000)).toBeNull();
    expect(await s.redis.hget(name, t(1))).toBe('2');
    await s.redis.del(name);
    expect(await tryLockOnce(name, 30_000, t(3), now, 5_000)).toBe(1);
    expect(await tryLockOnce(name, 30_000, t(9), now, 5_000)).toBe(1);
    const before = await deadlines(name);
    expect(await tryLockOnce(name, 30_000, t(2), now, 5_000)).toBeNull();
    expect(await queue(name)).toEqual([t(3)]);
    expect(await deadlines(name)).toEqual({ [t(3)]: (before[t(3)] ?? 0) - 5_000 });
  });
});

describe('fairlock/acquireFailed', () => {
  it('removes the waiter, moves only those behind it up by the wait, and is harmless when run twice or for a stranger', async () => {
    const name = uniqueName();
    await s.redis.hset(name, t(1), 1);
    await s.redis.pexpire(name, 60_000);
    await s.redis.rpush(fairLockQueueName(name), t(2), t(3), t(4));
    await s.redis.zadd(fairLockTimeoutName(name), 10_000, t(2), 20_000, t(3), 30_000, t(4));
    await acquireFailed(name, t(3), 7_000);
    expect(await queue(name)).toEqual([t(2), t(4)]);
    expect(await deadlines(name)).toEqual({ [t(2)]: 10_000, [t(4)]: 23_000 });
    await acquireFailed(name, t(3), 7_000);
    await acquireFailed(name, t(9), 7_000);
    expect(await queue(name)).toEqual([t(2), t(4)]);
    expect(await deadlines(name)).toEqual({ [t(2)]: 10_000, [t(4)]: 23_000 });
  });

  it('a leaving head of a free lock wakes the new head; of a held lock, or from further back, it publishes nothing', async () => {
    const name = uniqueName();
    await s.redis.rpush(fairLockQueueName(name), t(2), t(3), t(4));
    await s.redis.zadd(fairLockTimeoutName(name), 10_000, t(2), 20_000, t(3), 30_000, t(4));
    expect(await published(name, () => acquireFailed(name, t(3), 1_000))).toEqual([]);
    expect(await published(name, () => acquireFailed(name, t(2), 1_000))).toEqual([{ channel: fairLockWaiterChannelName(name, t(4)), message: '0' }]);
    const held = uniqueName();
    await s.redis.hset(held, t(1), 1);
    await s.redis.rpush(fairLockQueueName(held), t(2), t(3));
    expect(await published(held, () => acquireFailed(held, t(2), 1_000))).toEqual([]);
    expect(await queue(held)).toEqual([t(3)]);
  });
});

describe('fairlock/unlockInner', () => {
  it('the last hold deletes the hash, sets latch 1 and publishes 0 to the queue head only', async () => {
    const name = uniqueName();
    const now = Date.now();
    await tryLock(name, 30_000, t(1), 5_000, now);
    await tryLock(name, 30_000, t(2), 5_000, now);
    await tryLock(name, 30_000, t(3), 5_000, now);
    const latch = unlockLatchName(name, latchId());
    const messages = await published(name, async () => expect(await unlock(name, t(1), now, latch)).toBe(1));
    expect(messages).toEqual([{ channel: fairLockWaiterChannelName(name, t(2)), message: '0' }]);
    expect(await s.redis.exists(name)).toBe(0);
    expect(await s.redis.get(latch)).toBe('1');
    expect(await queue(name)).toEqual([t(2), t(3)]);
  });

  it('a reentrant hold: count - 1, TTL = the given lease, latch 0, nothing published; a re-sent request returns the latch', async () => {
    const name = uniqueName();
    const now = Date.now();
    await tryLock(name, 60_000, t(1), 5_000, now);
    await tryLock(name, 60_000, t(1), 5_000, now);
    await tryLock(name, 60_000, t(2), 5_000, now);
    const latch = unlockLatchName(name, latchId());
    const messages = await published(name, async () => {
      expect(await unlock(name, t(1), now, latch, 10_000)).toBe(0);
      expect(await unlock(name, t(1), now, latch, 10_000)).toBe(0);
    });
    expect(messages).toEqual([]);
    expect(await s.redis.hget(name, t(1))).toBe('1');
    expect(await s.redis.pttl(name)).toBeLessThanOrEqual(10_000);
    expect(await s.redis.get(latch)).toBe('0');
  });

  it('testExpire: a lock that is gone unlocks with 1 (not an error), latch 1, and still wakes the head', async () => {
    const name = uniqueName();
    await s.redis.rpush(fairLockQueueName(name), t(2));
    await s.redis.zadd(fairLockTimeoutName(name), Date.now() + 60_000, t(2));
    const latch = unlockLatchName(name, latchId());
    const messages = await published(name, async () => expect(await unlock(name, t(1), Date.now(), latch)).toBe(1));
    expect(messages).toEqual([{ channel: fairLockWaiterChannelName(name, t(2)), message: '0' }]);
    expect(await s.redis.get(latch)).toBe('1');
  });

  it('nil for a stranger of a held lock, no latch; expired waiters are dropped before the head is told', async () => {
    const name = uniqueName();
    await tryLock(name, 30_000, t(1), 5_000, 1_000);
    const latch = unlockLatchName(name, latchId());
    expect(await unlock(name, t(9), 1_000, latch)).toBeNull();
    expect(await s.redis.exists(latch)).toBe(0);
    await s.redis.rpush(fairLockQueueName(name), t(2), t(3));
    await s.redis.zadd(fairLockTimeoutName(name), 2_000, t(2), 9_000, t(3));
    const messages = await published(name, async () => expect(await unlock(name, t(1), 5_000)).toBe(1));
    expect(messages).toEqual([{ channel: fairLockWaiterChannelName(name, t(3)), message: '0' }]);
    expect(await queue(name)).toEqual([t(3)]);
  });
});

describe('fairlock/forceUnlock', () => {
  it('deletes any holder and wakes the (live) head; 0 and no message when there is no lock', async () => {
    const name = uniqueName();
    await tryLock(name, 30_000, t(1), 5_000, 1_000);
    await s.redis.rpush(fairLockQueueName(name), t(2), t(3));
    await s.redis.zadd(fairLockTimeoutName(name), 2_000, t(2), 9_000, t(3));
    const messages = await published(name, async () => {
      expect(await forceUnlock(name, 5_000)).toBe(1);
      expect(await forceUnlock(name, 5_000)).toBe(0);
    });
    expect(messages).toEqual([{ channel: fairLockWaiterChannelName(name, t(3)), message: '0' }]);
    expect(await s.redis.exists(name)).toBe(0);
    expect(await queue(name)).toEqual([t(3)]);
  });
});

describe('NonReentrantFairLock (ARGV[5])', () => {
  it('a re-entry is the error reply NON_REENTRANT_REACQUIRE in both forms; count, TTL and queue stay', async () => {
    const name = uniqueName();
    const now = Date.now();
    expect(await tryLock(name, 60_000, t(1), 5_000, now, NON_REENTRANT_REACQUIRE)).toBeNull();
    await tryLock(name, 60_000, t(2), 5_000, now, NON_REENTRANT_REACQUIRE);
    await expect(tryLock(name, 5_000, t(1), 5_000, now, NON_REENTRANT_REACQUIRE)).rejects.toThrow(NON_REENTRANT_REACQUIRE);
    await expect(tryLockOnce(name, 5_000, t(1), now, 5_000, NON_REENTRANT_REACQUIRE)).rejects.toThrow(NON_REENTRANT_REACQUIRE);
    expect(await s.redis.hgetall(name)).toEqual({ [t(1)]: '1' });
    expect(await s.redis.pttl(name)).toBeGreaterThan(50_000);
    expect(await queue(name)).toEqual([t(2)]);
    // Others queue and poll as with the reentrant lock.
    near(await tryLock(name, 60_000, t(2), 5_000, now, NON_REENTRANT_REACQUIRE), 60_000, 1_000);
    expect(await tryLockOnce(name, 60_000, t(3), now, 5_000, NON_REENTRANT_REACQUIRE)).toBe(1);
  });
});
