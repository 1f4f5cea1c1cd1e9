/**
 * FairLock and NonReentrantFairLock behaviour on a real server, following Redisson's RedissonFairLockTest
 * and RedissonNonReentrantFairLockTest as checklists (PROTOCOL.md §14.3, §14.13; see test/README.md).
 * Order is forced, never slept for: each waiter is started only once the previous one is in the queue, and
 * a waiter counts as woken by a message when it acquires within the hang guard while the holder's lease is
 * 60 s.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  fairLockQueueName,
  fairLockTimeoutName,
  fairLockWaiterChannelName,
  IllegalMonitorStateError,
  lockChannelName,
  TimeUnit,
  type Redisson,
  type RedissonFairLock,
  type RedissonOptions,
} from '../../src/index.js';
import { defineScripts, evalScript } from '../../src/connection/ioredis/scripts.js';
import { waitStarted } from '../support/parked.js';
import { Clients, eventually, startRedis, uniqueName, within as guard, type TestRedis } from '../support/redis.js';

const HANG_GUARD_MS = 10_000;
const LONG_LEASE_MS = 60_000;

let server: TestRedis;
/** The raw connections of the whole file (assertions, the message log). */
let infra: Clients;
/** The clients of one test, closed after it. */
let clients: Clients;
let raw: Redis;
const seen: { channel: string; message: string }[] = [];

beforeAll(async () => {
  server = await startRedis();
  infra = new Clients(server.url);
  clients = new Clients(server.url);
  raw = infra.raw();
  const sub = infra.raw();
  sub.on('pmessage', (_p: string, channel: string, message: string) => seen.push({ channel, message }));
  await sub.psubscribe('*redisson_lock__channel:*');
});
afterEach(async () => {
  await clients.closeAll();
  clients = new Clients(server.url);
});
afterAll(async () => {
  await clients.closeAll();
  await infra.closeAll();
  await server.stop();
});

/** Observes whether a promise has settled, without waiting for it. */
function tracked<T>(promise: Promise<T>): { readonly promise: Promise<T>; settled: boolean } {
  const state = { promise, settled: false };
  void promise.then(
    () => (state.settled = true),
    () => (state.settled = true),
  );
  return state;
}
/** Rejects when `promise` has not settled within the hang guard. */
const within = <T>(promise: Promise<T>, what: string): Promise<T> => guard(promise, HANG_GUARD_MS, what);
const field = (client: Redisson, lock: RedissonFairLock): string => `${client.getId()}:${lock.threadId}`;
const numSub = async (channel: string): Promise<number> => Number(((await raw.pubsub('NUMSUB', channel)) as [string, number])[1]);
/** No subscriber left on `channel`, once a lingering subscription (100 ms after its waiter acquired) ended. */
const unsubscribed = (channel: string): Promise<void> => eventually(async () => (await numSub(channel)) === 0, 5_000, `no subscriber left on ${channel}`);
async function deadlines(key: string): Promise<Record<string, number>> {
  const flat = await raw.zrange(key, 0, -1, 'WITHSCORES');
  const out: Record<string, number> = {};
  for (let i = 0; i < flat.length; i += 2) out[flat[i] ?? ''] = Number(flat[i + 1]);
  return out;
}
/** Resolves once `owner` is queued on `queueKey` and listens on its own channel `channel`. */
async function waiting(queueKey: string, owner: string, channel: string): Promise<void> {
  await eventually(async () => (await raw.lrange(queueKey, 0, -1)).includes(owner) && (await numSub(channel)) === 1, HANG_GUARD_MS, `${owner} queued`);
}
/** Messages on lock channels while `fn` ran, up to a barrier message. */
async function published(fn: () => Promise<unknown>): Promise<{ channel: string; message: string }[]> {
  const from = seen.length;
  await fn();
  const marker = `redisson_lock__channel:barrier:${uniqueName()}`;
  await raw.publish(marker, 'end');
  await eventually(() => seen.slice(from).some((m) => m.channel === marker), 5_000, 'barrier');
  return seen.slice(from).filter((m) => m.channel !== marker);
}

describe.each([
  { label: 'no keyPrefix', keyPrefix: '' },
  { label: 'ioredis keyPrefix', keyPrefix: 'app1:' },
])('RedissonFairLock layout and FIFO hand-off ($label)', ({ keyPrefix }) => {
  it('waiters queue with chained deadlines, listen on their own channels, and each release tells only the head', async () => {
    const u = new URL(server.url);
    const make = (): Redisson => clients.client({ redis: { host: u.hostname, port: Number(u.port), keyPrefix } });
    const name = uniqueName('fair');
    const [c0, c1, c2] = [make(), make(), make()];
    const holder = c0.getFairLock(name);
    const [l1, l2] = [c1.getFairLock(name), c2.getFairLock(name)];
    const [f0, f1, f2] = [field(c0, holder), field(c1, l1), field(c2, l2)];
    const queueKey = keyPrefix + fairLockQueueName(name);
    const ch = (f: string): string => keyPrefix + fairLockWaiterChannelName(name, f);
    await holder.lock(LONG_LEASE_MS);
    expect(await raw.hgetall(keyPrefix + name)).toEqual({ [f0]: '1' });
    const w1 = tracked(l1.lock());
    await waiting(queueKey, f1, ch(f1));
    const w2 = tracked(l2.lock());
    await waiting(queueKey, f2, ch(f2));
    expect(await raw.lrange(queueKey, 0, -1)).toEqual([f1, f2]);
    // The second deadline is the first plus fairLockWaitTimeout (300000), whatever the clock said.
    const d = await deadlines(keyPrefix + fairLockTimeoutName(name));
    expect(d[f2]).toBe((d[f1] ?? NaN) + 300_000);
    expect(await numSub(keyPrefix + lockChannelName(name))).toBe(0);

    const first = await published(async () => {
      await holder.unlock();
      await within(w1.promise, 'head after the unlock');
    });
    expect(first).toEqual([{ channel: ch(f1), message: '0' }]);
    expect(w2.settled).toBe(false);
    expect(await raw.lrange(queueKey, 0, -1)).toEqual([f2]);
    // Taking the lock from the queue moved the remaining deadline up by the wait.
    expect(await deadlines(keyPrefix + fairLockTimeoutName(name))).toEqual({ [f2]: d[f1] });
    const second = await published(async () => {
      await l1.unlock();
      await within(w2.promise, 'second waiter after the unlock');
    });
    expect(second).toEqual([{ channel: ch(f2), message: '0' }]);
    await l2.unlock();
    expect(await raw.exists(keyPrefix + name, queueKey, keyPrefix + fairLockTimeoutName(name))).toBe(0);
    // A waiter that acquired leaves its channel subscribed for the linger only.
    await unsubscribed(ch(f1));
    await unsubscribed(ch(f2));
  });
});

describe('RedissonFairLock', () => {
  it('bad input is a typed error before anything is sent: fairLockWaitTimeout, names, times', async () => {
    expect(() => clients.client({ fairLockWaitTimeout: -1 })).toThrow(RangeError);
    expect(() => clients.client({ fairLockWaitTimeout: 1.5 })).toThrow(RangeError);
    expect(() => clients.client({ fairLockWaitTimeout: '300000' as never })).toThrow(TypeError);
    expect(clients.client({ fairLockWaitTimeout: 0 })).toBeDefined();
    const client = clients.client();
    expect(() => client.getFairLock('')).toThrow(RangeError);
    expect(() => client.getNonReentrantFairLock(42 as never)).toThrow(TypeError);
    const name = uniqueName('fair');
    await expect(client.getFairLock(name).tryLock(-5)).rejects.toThrow(RangeError);
    await expect(client.getFairLock(name).lock(NaN)).rejects.toThrow(TypeError);
    expect(await raw.exists(name, fairLockQueueName(name), fairLockTimeoutName(name))).toBe(0);
  });

  it('testLockUnlock, testReentrancy, testGetHoldCount, testIsLocked, testIsHeldByCurrentThread (and OtherThread), testIsLockedOtherThread, testForceUnlock', async () => {
    const client = clients.client();
    const name = uniqueName('fair');
    const lock = client.getFairLock(name);
    const other = client.getFairLock(name);
    const t = { threadId: 5 }; // one owner re-enters (one Java thread)
    expect(await lock.getHoldCount(t)).toBe(0);
    expect(await lock.isLocked()).toBe(false);
    await lock.lock(t);
    await lock.lock(t);
    expect(await lock.getHoldCount(t)).toBe(2);
    expect(await lock.isHeldByCurrentThread(t)).toBe(true);
    expect(await other.isHeldByCurrentThread()).toBe(false);
    expect(await other.isLocked()).toBe(true);
    expect(await other.tryLock()).toBe(false);
    await lock.unlock(t);
    expect(await lock.getHoldCount(t)).toBe(1);
    expect(await other.isLocked()).toBe(true);
    await lock.unlock(t);
    expect(await lock.isLocked()).toBe(false);
    expect(await other.tryLock()).toBe(true);
    expect(await lock.forceUnlock()).toBe(true);
    expect(await other.isLocked()).toBe(false);
    expect(await lock.forceUnlock()).toBe(false);
  });

  it('testUnlockFail: unlocking a lock another owner holds throws; unlocking a fair lock that does not exist does not (as Redisson)', async () => {
    const client = clients.client();
    const name = uniqueName('fair');
    const holder = client.getFairLock(name);
    await holder.lock(LONG_LEASE_MS);
    await expect(client.getFairLock(name).unlock()).rejects.toBeInstanceOf(IllegalMonitorStateError);
    await holder.unlock();
    await expect(client.getFairLock(uniqueName('fair')).unlock()).resolves.toBeUndefined();
  });

  it('testTryLockNonDelayed: tryLock(0) takes a free lock; a timed tryLock of another owner fails and leaves the queue; tryLock() never queues', async () => {
    const client = clients.client();
    const name = uniqueName('fair');
    const lock = client.getFairLock(name);
    expect(await lock.tryLock(0, TimeUnit.SECONDS)).toBe(true);
    const other = client.getFairLock(name);
    for (let i = 0; i < 3; i++) expect(await other.tryLock()).toBe(false);
    expect(await other.tryLock(0)).toBe(false);
    expect(await raw.exists(fairLockQueueName(name), fairLockTimeoutName(name))).toBe(0);
    expect(await other.tryLock(200)).toBe(false);
    // The timed call queued, then left when its wait ran out (acquireFailed, in the background).
    await eventually(async () => (await raw.exists(fairLockQueueName(name), fairLockTimeoutName(name))) === 0, 5_000, 'queue left');
    expect(await numSub(fairLockWaiterChannelName(name, field(client, other)))).toBe(0);
    await lock.unlock();
    expect(await other.tryLock(0, TimeUnit.SECONDS)).toBe(true);
    await other.unlock();
  });

  it('a single attempt does not barge: a free lock with someone queued is refused to tryLock() and granted to the head', async () => {
    const client = clients.client();
    const name = uniqueName('fair');
    const holder = client.getFairLock(name);
    const head = client.getFairLock(name);
    await holder.lock(LONG_LEASE_MS);
    const waiter = tracked(head.lock());
    await waiting(fairLockQueueName(name), field(client, head), fairLockWaiterChannelName(name, field(client, head)));
    // The lock disappears without a message (as when its lease runs out): the head is not told yet.
    await raw.del(name);
    expect(await client.getFairLock(name).tryLock()).toBe(false);
    expect(await raw.exists(name)).toBe(0);
    await holder.unlock(); // a fair unlock of a missing lock succeeds and tells the head
    await within(waiter.promise, 'head after the unlock of the missing lock');
    expect(await head.isHeldByCurrentThread()).toBe(true);
    await head.unlock();
  });

  it('fairLockWaitTimeout is the wait of lock(); a timed tryLock queues with its own wait, and leaving moves those behind up by it', async () => {
    const c = clients.client({ fairLockWaitTimeout: 7_000 });
    const name = uniqueName('fair');
    const holder = c.getFairLock(name);
    await holder.lock(LONG_LEASE_MS);
    const a = c.getFairLock(name);
    const b = c.getFairLock(name);
    const [fa, fb] = [field(c, a), field(c, b)];
    const before = Date.now();
    const wa = tracked(a.tryLock(1_000, LONG_LEASE_MS));
    await waiting(fairLockQueueName(name), fa, fairLockWaiterChannelName(name, fa));
    const wb = tracked(b.lock());
    await waiting(fairLockQueueName(name), fb, fairLockWaiterChannelName(name, fb));
    const d = await deadlines(fairLockTimeoutName(name));
    // a: holder's PTTL + 1000 + now; b: a's deadline + 7000.
    expect(d[fa]).toBeGreaterThan(before + LONG_LEASE_MS - 2_000 + 1_000);
    expect(d[fa]).toBeLessThanOrEqual(Date.now() + LONG_LEASE_MS + 1_000);
    expect(d[fb]).toBe((d[fa] ?? NaN) + 7_000);
    expect(await wa.promise).toBe(false);
    await eventually(async () => (await raw.lrange(fairLockQueueName(name), 0, -1)).length === 1, 5_000, 'a left');
    expect(await deadlines(fairLockTimeoutName(name))).toEqual({ [fb]: (d[fb] ?? NaN) - 1_000 });
    await holder.unlock();
    await within(wb.promise, 'b after the unlock');
    await b.unlock();
  });

  it('an aborted waiter leaves the queue at once; the waiter behind it is moved up by fairLockWaitTimeout', async () => {
    const client = clients.client();
    const name = uniqueName('fair');
    const holder = client.getFairLock(name);
    await holder.lock(LONG_LEASE_MS);
    const [a, b] = [client.getFairLock(name), client.getFairLock(name)];
    const [fa, fb] = [field(client, a), field(client, b)];
    const abort = new AbortController();
    const wa = a.lock({ signal: abort.signal });
    await waiting(fairLockQueueName(name), fa, fairLockWaiterChannelName(name, fa));
    const wb = tracked(b.lock());
    await waiting(fairLockQueueName(name), fb, fairLockWaiterChannelName(name, fb));
    const d = await deadlines(fairLockTimeoutName(name));
    abort.abort(new Error('caller gave up'));
    await expect(wa).rejects.toThrow('caller gave up');
    await eventually(async () => (await raw.lrange(fairLockQueueName(name), 0, -1)).join() === fb, 5_000, 'a left');
    expect(await deadlines(fairLockTimeoutName(name))).toEqual({ [fb]: (d[fb] ?? NaN) - 300_000 });
    expect(await numSub(fairLockWaiterChannelName(name, fa))).toBe(0);
    await holder.unlock();
    await within(wb.promise, 'b after the unlock');
    await b.unlock();
  });

  it('a head that leaves while the lock is free hands the wake-up on: the next waiter is told at once', async () => {
    const client = clients.client();
    const name = uniqueName('fair');
    const holder = client.getFairLock(name);
    await holder.lock(LONG_LEASE_MS);
    const [a, b] = [client.getFairLock(name), client.getFairLock(name)];
    const [fa, fb] = [field(client, a), field(client, b)];
    const abort = new AbortController();
    const wa = a.lock({ signal: abort.signal });
    await waiting(fairLockQueueName(name), fa, fairLockWaiterChannelName(name, fa));
    const wb = tracked(b.lock());
    await waiting(fairLockQueueName(name), fb, fairLockWaiterChannelName(name, fb));
    // Forced: the lock is gone without a message and the head gives up before it ever retries. b's retry
    // delay is the 60 s lease it last saw, so only a message can wake it within the guard.
    await raw.del(name);
    const messages = await published(async () => {
      abort.abort(new Error('gone'));
      await expect(wa).rejects.toThrow('gone');
      await within(wb.promise, 'b after the head left');
    });
    expect(messages).toEqual([{ channel: fairLockWaiterChannelName(name, fb), message: '0' }]);
    await b.unlock();
  });

  it('a dead waiter heading the queue blocks the free lock until its deadline, then is dropped and the next waiter takes it', async () => {
    const client = clients.client();
    const name = uniqueName('fair');
    const dead = 'ffffffff-0000-4000-8000-000000000000:7';
    await raw.rpush(fairLockQueueName(name), dead);
    await raw.zadd(fairLockTimeoutName(name), Date.now() + 400, dead);
    const lock = client.getFairLock(name);
    expect(await lock.tryLock()).toBe(false);
    await within(lock.lock(), 'waiter behind the dead one');
    expect(await raw.exists(fairLockQueueName(name), fairLockTimeoutName(name))).toBe(0);
    await lock.unlock();
  });

  it('testExpire: a lease runs out, the next owner takes it, and the first owner\'s unlock does not throw', async () => {
    const client = clients.client();
    const name = uniqueName('fair');
    const lock = client.getFairLock(name);
    await lock.lock(300);
    const other = client.getFairLock(name);
    await within(other.lock(), 'waiter after the lease');
    expect(await other.isHeldByCurrentThread()).toBe(true);
    await other.unlock();
    // The lock is gone: the first owner's late unlock succeeds (a fair unlock of a missing lock returns 1).
    await expect(lock.unlock()).resolves.toBeUndefined();
  });

  it('testAutoExpire: a watchdog-held fair lock of a client that shut down expires within lockWatchdogTimeout', async () => {
    const name = uniqueName('fair');
    const gone = clients.client({ lockWatchdogTimeout: 600 });
    await gone.getFairLock(name).lock();
    await gone.shutdown();
    const lock = clients.client().getFairLock(name);
    await eventually(async () => !(await lock.isLocked()), 600 + 1_000, 'the lease to run out');
  });

  it('testLeaseTimeout: waiters that never unlock still acquire in queue order as each lease runs out', async () => {
    const client = clients.client();
    const name = uniqueName('fair');
    const order: number[] = [];
    const calls: Promise<boolean>[] = [];
    // No gate with a long lease: as in Redisson's test, every waiter must have seen a short lease when it
    // last asked, since a lease that runs out tells nobody; each waiter re-asks when the TTL it saw ends.
    for (let i = 0; i < 5; i++) {
      const lock = client.getFairLock(name);
      const f = field(client, lock);
      calls.push(
        lock.tryLock(HANG_GUARD_MS, 150).then((ok) => {
          order.push(i);
          return ok;
        }),
      );
      // The next one starts only once this one is queued (or already holds the lock).
      await eventually(async () => order.includes(i) || (await raw.lrange(fairLockQueueName(name), 0, -1)).includes(f), HANG_GUARD_MS, `waiter ${i}`);
    }
    expect(await Promise.all(calls)).toEqual([true, true, true, true, true]);
    expect(order).toEqual([0, 1, 2, 3, 4]);
  });

  it('testConcurrency_MultiInstance_Ordering: eight clients in queue order acquire in that order, each told by its predecessor', async () => {
    const name = uniqueName('fair');
    const first = clients.client();
    const holder = first.getFairLock(name);
    await holder.lock(LONG_LEASE_MS);
    const order: string[] = [];
    const fields: string[] = [];
    const calls: Promise<void>[] = [];
    for (let i = 0; i < 8; i++) {
      const c = clients.client();
      const lock = c.getFairLock(name);
      const f = field(c, lock);
      fields.push(f);
      calls.push(
        lock.lock().then(() => {
          order.push(f);
          return lock.unlock();
        }),
      );
      await waiting(fairLockQueueName(name), f, fairLockWaiterChannelName(name, f));
    }
    expect(await raw.lrange(fairLockQueueName(name), 0, -1)).toEqual(fields);
    const messages = await published(async () => {
      await holder.unlock();
      await within(Promise.all(calls), 'all eight waiters');
    });
    expect(order).toEqual(fields);
    expect(messages).toEqual(fields.map((f) => ({ channel: fairLockWaiterChannelName(name, f), message: '0' })));
  });

  it('testConcurrency_MultiInstance, testMultipleLocks: 32 owners on 4 clients never overlap, lose no increment, and leave nothing behind', async () => {
    const name = uniqueName('fair');
    const counter = `${name}:counter`;
    const inside = { now: 0, max: 0 };
    const owners = Array.from({ length: 4 }, () => clients.client()).flatMap((c) => Array.from({ length: 8 }, () => ({ c, lock: c.getFairLock(name) })));
    await Promise.all(
      owners.map(async ({ c, lock }) => {
        for (let i = 0; i < 5; i++) {
          await lock.lock();
          try {
            inside.max = Math.max(inside.max, ++inside.now);
            const value = Number((await c.redis.get(counter)) ?? '0');
            await new Promise((r) => setTimeout(r, 1));
            await c.redis.set(counter, String(value + 1));
            inside.now--;
          } finally {
            await lock.unlock();
          }
        }
      }),
    );
    expect(await raw.get(counter)).toBe('160');
    expect(inside.max).toBe(1);
    expect(await raw.exists(name, fairLockQueueName(name), fairLockTimeoutName(name))).toBe(0);
    for (const { c, lock } of owners) await unsubscribed(fairLockWaiterChannelName(name, field(c, lock)));
  });

  it('testWaitTimeoutDrift: timed waiters that keep giving up, plus one that died queued, leave every deadline within lease + one wait', async () => {
    const client = clients.client();
    const name = uniqueName('fair');
    const holder = client.getFairLock(name);
    await holder.lock(30_000);
    const churn = Array.from({ length: 3 }, () => client.getFairLock(name));
    await Promise.all(
      churn.map(async (lock) => {
        for (let i = 0; i < 8; i++) expect(await lock.tryLock(50, 30_000)).toBe(false);
      }),
    );
    // A waiter that died queued: its attempt ran, its clean-up never will.
    const dead = 'ffffffff-0000-4000-8000-000000000000:1';
    const script = infra.raw();
    defineScripts(script);
    await evalScript(script, 'fairlock/tryLockInner', [name, fairLockQueueName(name), fairLockTimeoutName(name)], [30_000, dead, 300_000, Date.now()]);
    await eventually(async () => (await raw.lrange(fairLockQueueName(name), 0, -1)).join() === dead, 5_000, 'the churn left');
    expect(await holder.forceUnlock()).toBe(true);
    const bound = Date.now() + 30_000 + 300_000;
    for (const score of Object.values(await deadlines(fairLockTimeoutName(name)))) expect(score).toBeLessThan(bound);
  });

  it('testNameMapper: the queue and deadline keys are built from the mapped name', async () => {
    const options: RedissonOptions = { nameMapper: { map: (n) => `test::${n}`, unmap: (n) => n.replace('test::', '') } };
    const client = clients.client(options);
    const name = uniqueName('fair');
    const lock = client.getFairLock(name);
    expect(await lock.isLocked()).toBe(false);
    await lock.lock(LONG_LEASE_MS);
    expect(await lock.isLocked()).toBe(true);
    const waiter = client.getFairLock(name);
    const f = field(client, waiter);
    const w = tracked(waiter.lock());
    await waiting(`redisson_lock_queue:{test::${name}}`, f, `redisson_lock__channel:{test::${name}}:${f}`);
    await lock.unlock();
    await within(w.promise, 'waiter');
    await waiter.unlock();
    expect(await lock.isLocked()).toBe(false);
  });

  it('testAcquireFailedNotCalledOnRedisTimeout: a wait that runs out while Redis pauses writes returns false, and the queue is clean after', async () => {
    const client = clients.client();
    const name = uniqueName('fair');
    const holder = client.getFairLock(name);
    await holder.lock(LONG_LEASE_MS);
    const waiter = client.getFairLock(name);
    const f = field(client, waiter);
    // Parked (the public wait channel's start): its retry after subscribing has been answered, so the pause
    // holds no attempt of the wait; only the end of the wait, which must not send one.
    const { started: parked } = waitStarted();
    const call = waiter.tryLock(1_500, 1_000);
    await waiting(fairLockQueueName(name), f, fairLockWaiterChannelName(name, f));
    await within(parked, 'waiter parked');
    const admin = clients.raw();
    await admin.call('CLIENT', 'PAUSE', '30000', 'WRITE');
    try {
      expect(await within(call, 'tryLock during the pause')).toBe(false);
      expect(await raw.lrange(fairLockQueueName(name), 0, -1)).toEqual([f]);
    } finally {
      await admin.call('CLIENT', 'UNPAUSE');
    }
    await eventually(async () => (await raw.exists(fairLockQueueName(name), fairLockTimeoutName(name))) === 0, 5_000, 'queue left after unpause');
    await holder.unlock();
  });
});

const WORKER = fileURLToPath(new URL('./fairLockWorker.ts', import.meta.url));
const ROOT = fileURLToPath(new URL('../..', import.meta.url));

describe('RedissonFairLock across processes', () => {
  const children: ChildProcess[] = [];
  afterAll(() => {
    for (const c of children) c.kill('SIGKILL');
  });

  it('waiters of three processes, queued in a forced order, acquire in exactly that order', async () => {
    const name = uniqueName('fair');
    const logKey = `${name}:log`;
    const holderClient = clients.client();
    const holder = holderClient.getFairLock(name);
    await holder.lock(LONG_LEASE_MS);
    type Message = { type: string; fields?: string[]; index?: number; message?: string };
    const procs = Array.from({ length: 3 }, () => {
      const child = fork(WORKER, ['queue', JSON.stringify({ url: server.url, name, logKey, waiters: 2 })], { cwd: ROOT, execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
      children.push(child);
      const inbox: Message[] = [];
      child.on('message', (m) => inbox.push(m as Message));
      return { child, inbox };
    });
    await eventually(() => procs.every((p) => p.inbox.some((m) => m.type === 'ready')), 30_000, 'workers ready');
    const fieldsOf = procs.map((p) => p.inbox.find((m) => m.type === 'ready')?.fields ?? []);
    // Interleave the processes: p0w0, p1w0, p2w0, p0w1, p1w1, p2w1.
    const expected: string[] = [];
    for (const index of [0, 1]) {
      for (const [p, proc] of procs.entries()) {
        const f = fieldsOf[p]?.[index] ?? '';
        proc.child.send({ type: 'go', index });
        await waiting(fairLockQueueName(name), f, fairLockWaiterChannelName(name, f));
        expected.push(f);
      }
    }
    expect(await raw.lrange(fairLockQueueName(name), 0, -1)).toEqual(expected);
    await holder.unlock();
    await eventually(() => procs.every((p) => p.inbox.filter((m) => m.type === 'done').length === 2), 20_000, 'every waiter done');
    expect(procs.flatMap((p) => p.inbox.filter((m) => m.type === 'error'))).toEqual([]);
    expect(await raw.lrange(logKey, 0, -1)).toEqual(expected);
    expect(await raw.exists(name, fairLockQueueName(name), fairLockTimeoutName(name))).toBe(0);
  });
});

describe('RedissonNonReentrantFairLock', () => {
  it('testContendingThreadBlocksAndAcquiresOnRelease: another owner queues and is told by the release', async () => {
    const client = clients.client();
    const name = uniqueName('nrfair');
    const lock = client.getNonReentrantFairLock(name);
    await lock.lock(LONG_LEASE_MS);
    expect(await raw.hgetall(name)).toEqual({ [field(client, lock)]: '1' });
    const other = client.getNonReentrantFairLock(name);
    const f = field(client, other);
    expect(await other.tryLock()).toBe(false);
    const waiter = tracked(other.lock());
    await waiting(fairLockQueueName(name), f, fairLockWaiterChannelName(name, f));
    const messages = await published(async () => {
      await lock.unlock();
      await within(waiter.promise, 'waiter after the unlock');
    });
    expect(messages).toEqual([{ channel: fairLockWaiterChannelName(name, f), message: '0' }]);
    expect(await other.isHeldByCurrentThread()).toBe(true);
    await other.unlock();
    expect(await lock.isLocked()).toBe(false);
  });

  it('testSameThreadReacquireThrows: lock(), tryLock() and tryLock(100 ms) by the owner throw; it is not queued; one unlock releases', async () => {
    const client = clients.client();
    const name = uniqueName('nrfair');
    const lock = client.getNonReentrantFairLock(name);
    // Java's one thread: a flow of the object's own id, so each re-acquire is by the owner.
    await client.runInThread(async () => {
      await lock.lock(LONG_LEASE_MS);
      const error = await lock.lock().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(IllegalMonitorStateError);
      expect((error as IllegalMonitorStateError).message).toContain('non-reentrant');
      expect(((error as Error).cause as Error).message).toContain('NON_REENTRANT_REACQUIRE');
      await expect(lock.tryLock()).rejects.toBeInstanceOf(IllegalMonitorStateError);
      await expect(lock.tryLock(100, TimeUnit.MILLISECONDS)).rejects.toBeInstanceOf(IllegalMonitorStateError);
      await expect(lock.tryLock()).rejects.toBeInstanceOf(IllegalMonitorStateError);
      expect(await lock.getHoldCount()).toBe(1);
      expect(await raw.pttl(name)).toBeGreaterThan(50_000);
      expect(await raw.exists(fairLockQueueName(name), fairLockTimeoutName(name))).toBe(0);
      await lock.unlock();
      expect(await lock.isLocked()).toBe(false);
    }, lock.threadId);
    // Those refusals leave nothing behind: a later wait of the same owner that runs out still leaves the queue.
    const other = client.getNonReentrantFairLock(name);
    await other.lock(LONG_LEASE_MS);
    expect(await lock.tryLock(200)).toBe(false);
    await eventually(async () => (await raw.exists(fairLockQueueName(name), fairLockTimeoutName(name))) === 0, 5_000, 'queue left');
    await other.unlock();
  });

  it('testCrossInstanceSameThreadReentryThrows: two objects, one owner (runInThread) — the second throws and reports the hold', async () => {
    const client = clients.client();
    const name = uniqueName('nrfair');
    await client.runInThread(async () => {
      const first = client.getNonReentrantFairLock(name);
      const second = client.getNonReentrantFairLock(name);
      await first.lock(LONG_LEASE_MS);
      await expect(second.lock()).rejects.toBeInstanceOf(IllegalMonitorStateError);
      await expect(second.tryLock()).rejects.toBeInstanceOf(IllegalMonitorStateError);
      expect(await second.isHeldByCurrentThread()).toBe(true);
      await second.unlock();
      expect(await first.isLocked()).toBe(false);
    });
  });

  it('shares one queue with RedissonFairLock objects of the same name, in arrival order', async () => {
    const client = clients.client();
    const name = uniqueName('nrfair');
    const holder = client.getFairLock(name);
    await holder.lock(LONG_LEASE_MS);
    const a = client.getNonReentrantFairLock(name);
    const b = client.getFairLock(name);
    const order: string[] = [];
    const wa = a.lock().then(() => order.push('nonReentrant'));
    await waiting(fairLockQueueName(name), field(client, a), fairLockWaiterChannelName(name, field(client, a)));
    const wb = b.lock().then(() => order.push('fair'));
    await waiting(fairLockQueueName(name), field(client, b), fairLockWaiterChannelName(name, field(client, b)));
    await holder.unlock();
    await within(wa, 'non-reentrant waiter');
    expect(order).toEqual(['nonReentrant']);
    await a.unlock();
    await within(wb, 'fair waiter');
    expect(order).toEqual(['nonReentrant', 'fair']);
    await b.unlock();
  });
});
