/**
 * RLock under faults, on a real redis-server of its own per test: a holder process killed with -9, Redis
 * killed and restarted, subscriber connections killed, an event loop blocked past the lease, a holder
 * that died without publishing, a command connection dropped between a script and its reply, Redis
 * down. Assertions are on Redis data and on the order of events; time limits are hang guards only.
 */
import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  IllegalMonitorStateError,
  LockLostError,
  RedissonShutdownError,
  lockChannelName,
  type LockLostEvent,
  type Redisson,
} from '../../src/index.js';
import type { RedisServerProcess } from '../../packages/cli/src/RedisServerProcess.js';
import { forkHolder, forkTaker, killWorkers, type WorkerMessage } from '../fixtures/processes.js';
import type { LockedMessage } from '../fixtures/lockWorker.js';
import { Clients, collectMessages, eventually, sleep, startRedis, uniqueName, type TestRedis, within } from '../support/redis.js';

const WATCHDOG = 600;
// A little longer for a watchdog in another process, which a loaded machine may schedule late.
const CHILD_WATCHDOG = 1_000;

let redis: TestRedis;
let clients: Clients;

beforeEach(async () => {
  redis = await startRedis({ own: true });
  clients = new Clients(redis.url);
});

afterEach(async () => {
  await killWorkers();
  // A test that failed with Redis down: bring it back so that the clients can quit cleanly.
  if (redis.server && !redis.server.running) await redis.server.restart();
  try {
    // Guarded: a shutdown() that never settles must fail this test, not hang the whole file.
    await within(clients.closeAll(), 20_000, 'closing the clients');
  } finally {
    await redis.stop();
  }
});

function serverOf(r: TestRedis): RedisServerProcess {
  if (!r.server) throw new Error('these tests need a redis-server process of their own');
  return r.server;
}

/** The rejection reason of `promise`, or a failure if it resolves. */
async function rejectionOf(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    (value) => {
      throw new Error(`expected a rejection, got ${String(value)}`);
    },
    (error: unknown) => error,
  );
}

/** A promise that is watched from the start, so a test failing early leaves no unhandled rejection. */
function track<T>(promise: Promise<T>): { readonly promise: Promise<T>; readonly settled: () => boolean } {
  let settled = false;
  promise.then(
    () => (settled = true),
    () => (settled = true),
  );
  return { promise, settled: () => settled };
}

/** Blocks the event loop: no timer, socket or message of this process runs meanwhile. */
function blockEventLoop(ms: number): void {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    // busy wait
  }
}

/** Connection errors are expected while Redis is down: keep ioredis from logging them as unhandled. */
function quiet<T extends { on(event: 'error', listener: (error: Error) => void): unknown }>(connection: T): T {
  connection.on('error', () => undefined);
  return connection;
}

async function numsub(raw: Redis, channel: string): Promise<number> {
  const reply = (await raw.pubsub('NUMSUB', channel)) as [string, number];
  return Number(reply[1]);
}

/**
 * Runs one waiter per (client, label): `lock()` with the watchdog, then a short critical section that
 * records enter/exit and whether Redis shows this owner holding it, then `unlock()`.
 */
function startWaiters(name: string, waiters: ReadonlyArray<readonly [Redisson, string]>) {
  const log: string[] = [];
  const heldInside: boolean[] = [];
  const promises = waiters.map(([client, label]) =>
    track(
      (async () => {
        const lock = client.getLock(name);
        await lock.lock();
        try {
          log.push(`enter:${label}`);
          heldInside.push(await lock.isHeldByCurrentThread());
          await sleep(20);
          log.push(`exit:${label}`);
        } finally {
          await lock.unlock();
        }
      })(),
    ),
  );
  const all = Promise.all(promises.map((p) => p.promise));
  all.catch(() => undefined); // awaited by the test; a test failing before that must not leave it unhandled
  return { log, heldInside, all };
}

/** Asserts that `log` is `n` non-overlapping enter/exit pairs, one per label. */
function expectSerialized(log: readonly string[], labels: readonly string[]): void {
  expect(log).toHaveLength(labels.length * 2);
  for (let i = 0; i < log.length; i += 2) {
    expect(log[i]).toMatch(/^enter:/);
    expect(log[i + 1]).toBe(String(log[i]).replace(/^enter:/, 'exit:'));
  }
  expect(log.filter((e) => e.startsWith('enter:')).map((e) => e.slice('enter:'.length)).sort()).toEqual([...labels].sort());
}

describe('RLock faults', () => {
  it('testKill9: a watchdog lock of a SIGKILLed process outlives 2+ leases while it runs, then a waiter takes it', async () => {
    const name = uniqueName();
    const raw = clients.raw();
    const child = forkHolder({ url: redis.url, name, lockWatchdogTimeout: CHILD_WATCHDOG });
    const held = await child.next<LockedMessage & WorkerMessage>('locked');

    const b = clients.client({ lockWatchdogTimeout: CHILD_WATCHDOG });
    const lockB = b.getLock(name);
    const waiter = track(lockB.lock());

    // Well past two leases (and seven renewal periods): only the child's watchdog can have kept it.
    await sleep(CHILD_WATCHDOG * 2.5);
    expect(await raw.hgetall(name)).toEqual({ [held.field]: '1' });
    expect(await raw.pttl(name)).toBeGreaterThan(0);
    expect(waiter.settled()).toBe(false);

    const exit = await child.kill('SIGKILL');
    expect(exit.signal).toBe('SIGKILL');
    await within(waiter.promise, 15_000, 'the waiter after kill -9 of the holder');
    expect(await raw.hgetall(name)).toEqual({ [`${b.id}:${lockB.threadId}`]: '1' });
    await lockB.unlock();
    expect(await raw.exists(name)).toBe(0);
  });

  it('testRedisRestart: waiters blocked on a lease lock all acquire, one at a time, after Redis is killed and restarted', async () => {
    const server = serverOf(redis);
    const name = uniqueName();
    const raw = quiet(clients.raw());
    const holderClient = clients.client({ lockWatchdogTimeout: WATCHDOG });
    const c1 = clients.client({ lockWatchdogTimeout: WATCHDOG });
    const c2 = clients.client({ lockWatchdogTimeout: WATCHDOG });
    for (const c of [holderClient, c1, c2]) quiet(c.redis);
    const holder = holderClient.getLock(name);
    await holder.lock(60_000);

    const run = startWaiters(name, [
      [c1, 'a'],
      [c1, 'b'],
      [c2, 'c'],
    ]);
    // Both clients subscribed; a little slack so that every waiter is parked in its wait.
    await eventually(async () => (await numsub(raw, lockChannelName(name))) === 2, 10_000, 'both clients subscribed');
    await sleep(200);
    expect(run.log).toEqual([]);

    await server.kill();
    await server.restart();

    // The data is gone, so the lock is free: only the reconnect can wake the waiters (the lease is 60 s).
    await within(run.all, 20_000, 'the waiters after a Redis restart');
    expectSerialized(run.log, ['a', 'b', 'c']);
    expect(run.heldInside).toEqual([true, true, true]);
    expect(await raw.exists(name)).toBe(0);

    // The holder's lease lock died with the data: a plain not-owner error (no watchdog, so not "lost").
    const error = await rejectionOf(holder.unlock());
    expect(error).toBeInstanceOf(IllegalMonitorStateError);
    expect(error).not.toBeInstanceOf(LockLostError);
  });

  it('testPubSubConnectionKilled: waiters survive CLIENT KILL TYPE pubsub and a release published during the reconnect', async () => {
    const name = uniqueName();
    const channel = lockChannelName(name);
    const raw = clients.raw();
    const holderClient = clients.client({ lockWatchdogTimeout: WATCHDOG });
    const c1 = clients.client({ lockWatchdogTimeout: WATCHDOG });
    const c2 = clients.client({ lockWatchdogTimeout: WATCHDOG });
    const holder = holderClient.getLock(name);
    await holder.lock(60_000);

    const run = startWaiters(name, [
      [c1, 'a'],
      [c1, 'b'],
      [c2, 'c'],
      [c2, 'd'],
    ]);
    await eventually(async () => (await numsub(raw, channel)) === 2, 10_000, 'both clients subscribed');
    await sleep(200);
    expect(run.log).toEqual([]);

    expect(await raw.client('KILL', 'TYPE', 'pubsub')).toBe(2);
    // Released while the subscribers reconnect: this message most likely reaches nobody. With a 60 s
    // lease left on the waiters' timers, only the wake-up after re-subscribing gets them going.
    await holder.unlock();

    await within(run.all, 20_000, 'the waiters after CLIENT KILL TYPE pubsub');
    expectSerialized(run.log, ['a', 'b', 'c', 'd']);
    expect(run.heldInside).toEqual([true, true, true, true]);
    expect(await raw.exists(name)).toBe(0);
    // Nobody is left subscribed (UNSUBSCRIBE is sent without waiting, hence `eventually`).
    await eventually(async () => (await numsub(raw, channel)) === 0, 10_000, 'no subscriber left on the channel');
  });

  it('testLockLostWhileBlocked: an event loop blocked past the lease reports lockLost and unlock throws LockLostError', async () => {
    const name = uniqueName();
    const raw = clients.raw();
    const a = clients.client({ lockWatchdogTimeout: WATCHDOG });
    const lost: LockLostEvent[] = [];
    a.on('lockLost', (e) => lost.push(e));
    const lock = a.getLock(name);
    await lock.lock();
    expect(await raw.hexists(name, `${a.id}:${lock.threadId}`)).toBe(1);

    blockEventLoop(WATCHDOG * 3.5); // the watchdog cannot run: the key expires meanwhile

    await eventually(() => lost.length > 0, 10_000, 'a lockLost event');
    expect(lost).toEqual([{ name, clientId: a.id, threadId: lock.threadId }]);
    expect(await raw.exists(name)).toBe(0);

    const error = await rejectionOf(lock.unlock());
    expect(error).toBeInstanceOf(LockLostError);
    expect(error).toBeInstanceOf(IllegalMonitorStateError);
    expect(error).toMatchObject({ lockName: name, clientId: a.id, threadId: lock.threadId });
    expect(lost).toHaveLength(1);
    // Reported once: a second unlock is an ordinary not-owner error.
    const again = await rejectionOf(lock.unlock());
    expect(again).toBeInstanceOf(IllegalMonitorStateError);
    expect(again).not.toBeInstanceOf(LockLostError);

    // The lock is usable again by the same owner.
    await lock.lock();
    expect(await lock.getHoldCount()).toBe(1);
    await lock.unlock();
    expect(lost).toHaveLength(1);
  });

  it('testLockLostToAnotherProcess: while the loop is blocked another process takes the lock; its hold is untouched', async () => {
    const name = uniqueName();
    const raw = clients.raw();
    const a = clients.client({ lockWatchdogTimeout: WATCHDOG });
    const lost: LockLostEvent[] = [];
    a.on('lockLost', (e) => lost.push(e));
    const lock = a.getLock(name);
    await lock.lock();

    const child = forkTaker({ url: redis.url, name, lockWatchdogTimeout: WATCHDOG, leaseMs: 60_000 });
    const contended = await child.next('contended');
    expect(contended.acquired).toBe(false); // the child is now waiting behind us

    blockEventLoop(WATCHDOG * 3.5); // our lease runs out; the child's waiter outwaits the TTL and takes it

    const taken = await child.next<LockedMessage & WorkerMessage>('locked');
    await eventually(() => lost.length > 0, 10_000, 'a lockLost event');
    expect(lost).toEqual([{ name, clientId: a.id, threadId: lock.threadId }]);

    const error = await rejectionOf(lock.unlock());
    expect(error).toBeInstanceOf(LockLostError);
    expect(error).toBeInstanceOf(IllegalMonitorStateError);
    // Our failed unlock neither removed nor decremented the new owner's field.
    expect(await raw.hgetall(name)).toEqual({ [taken.field]: '1' });
    expect(await raw.pttl(name)).toBeGreaterThan(WATCHDOG);
    expect(await lock.isHeldByCurrentThread()).toBe(false);
    expect(lost).toHaveLength(1);
  });

  it('testHolderDiedWithoutPublishing: a waiter outwaits the TTL of a foreign (Java-shaped) field', async () => {
    const name = uniqueName();
    const channel = lockChannelName(name);
    const raw = clients.raw();
    const messages = await collectMessages(clients.raw(), channel);
    const a = clients.client({ lockWatchdogTimeout: WATCHDOG });
    const lock = a.getLock(name);

    const foreign = `${randomUUID()}:1`;
    await raw.hset(name, foreign, 1);
    await raw.pexpire(name, 1_500);

    expect(await lock.tryLock(100)).toBe(false);
    expect(await raw.hgetall(name)).toEqual({ [foreign]: '1' });

    await within(lock.lock(), 15_000, 'lock() behind a holder that never publishes');
    // Nothing was published: the waiter woke on the TTL it was told, then took the free lock.
    expect(messages).toEqual([]);
    expect(await raw.hgetall(name)).toEqual({ [`${a.id}:${lock.threadId}`]: '1' });
    await lock.unlock();
    await eventually(() => messages.length === 1, 5_000, 'the release message');
    expect(messages).toEqual(['0']);
  });

  it('testAcquireNotReplayedAfterConnectionDrop: an acquire whose reply was lost to a dropped connection counts once', async () => {
    // Redisson sends the acquire script "no-retry" (PROTOCOL §2.2): it is not idempotent (HINCRBY). Here the
    // socket is destroyed right after the script was written: Redis runs it, the reply is lost, and the
    // client reconnects. Whatever the client then reports, one lock() must not leave a hold count of 2.
    const name = uniqueName();
    const raw = clients.raw();
    const a = clients.client({ lockWatchdogTimeout: WATCHDOG });
    quiet(a.redis);
    const warm = a.getLock(uniqueName()); // loads the scripts, so the next call is a single EVALSHA
    expect(await warm.tryLock()).toBe(true);
    await warm.unlock();
    const lock = a.getLock(name);
    const field = `${a.id}:${lock.threadId}`;

    const attempt = lock.lock(30_000);
    a.redis.stream.destroy(); // the EVALSHA is already written; its reply never arrives on this socket
    const outcome = await within(
      attempt.then(
        () => 'acquired',
        () => 'failed',
      ),
      15_000,
      'lock() across a dropped connection',
    );

    const count = Number((await raw.hget(name, field)) ?? '0');
    if (outcome === 'acquired') {
      // Acquired once: a single unlock must free it (else every other client waits out the 30 s lease).
      expect(count).toBe(1);
      await lock.unlock();
      expect(await raw.exists(name)).toBe(0);
    } else {
      // Redisson's no-retry outcome: the caller was told it failed; the script ran at most once.
      expect(count).toBeLessThanOrEqual(1);
    }
  });

  it('testUnlockReplayedAfterConnectionDrop: a re-sent unlock is answered by its latch, not counted twice', async () => {
    const name = uniqueName();
    const raw = clients.raw();
    const a = clients.client({ lockWatchdogTimeout: WATCHDOG });
    quiet(a.redis);
    const lock = a.getLock(name);
    // One owner re-enters: a runInThread flow, as one Java thread.
    await a.runInThread(async () => {
      await lock.lock(30_000);
      await lock.lock(30_000); // hold count 2
      const field = `${a.id}:${a.currentThreadId()}`;

      const release = lock.unlock();
      a.redis.stream.destroy(); // the unlock script ran; its reply is lost and may be sent again
      // Resolving (re-sent and answered by the latch) and rejecting (not re-sent) are both acceptable;
      // hanging is not, and neither is taking a second hold.
      await within(
        release.then(
          () => 'released',
          () => 'failed',
        ),
        15_000,
        'unlock() across a dropped connection',
      );
      expect(await raw.hgetall(name)).toEqual({ [field]: '1' });
      await lock.unlock();
    });
    expect(await raw.exists(name)).toBe(0);
  });

  it.each(['a parked waiter', 'a watchdog lock'] as const)(
    'testShutdownWhileRedisDown: shutdown() settles with Redis down and %s',
    async (what) => {
      // maxRetriesPerRequest: null (retry forever, as BullMQ requires) makes a command queued while Redis
      // is down wait for its return; shutdown() must not (Redisson's shutdown closes its connections).
      const server = serverOf(redis);
      const name = uniqueName();
      const raw = quiet(clients.raw());
      const holder = clients.client({ lockWatchdogTimeout: WATCHDOG });
      quiet(holder.redis);
      await holder.getLock(name).lock(60_000);
      const b = clients.client({
        redis: { host: '127.0.0.1', port: redis.port, maxRetriesPerRequest: null },
        lockWatchdogTimeout: WATCHDOG,
      });
      quiet(b.redis);
      let waiter: Promise<void> | null = null;
      if (what === 'a parked waiter') {
        waiter = track(b.getLock(name).lock()).promise;
        await eventually(async () => (await numsub(raw, lockChannelName(name))) === 1, 10_000, 'the waiter subscribed');
      } else {
        await b.getLock(uniqueName()).lock();
      }

      await server.kill();
      // Long enough for a renewal tick to be stuck in ioredis' queues; a waiter's UNSUBSCRIBE joins them on shutdown.
      await sleep(WATCHDOG);

      expect(await within(b.shutdown().then(() => 'closed'), 10_000, 'shutdown() with Redis down')).toBe('closed');
      if (waiter) expect(await rejectionOf(waiter)).toBeInstanceOf(RedissonShutdownError);
    },
  );

  it('testRedisDown: calls reject instead of hanging while Redis is down, and the client works again after a restart', async () => {
    const server = serverOf(redis);
    const name = uniqueName();
    const a = clients.client({
      redis: { host: '127.0.0.1', port: redis.port, maxRetriesPerRequest: 1, retryStrategy: () => 50 },
      lockWatchdogTimeout: WATCHDOG,
    });
    quiet(a.redis);
    const lostEvents: LockLostEvent[] = [];
    const renewalErrors: unknown[] = [];
    a.on('lockLost', (e) => lostEvents.push(e));
    a.on('renewalError', (e) => renewalErrors.push(e.error));
    const lock = a.getLock(name);
    expect(await lock.tryLock()).toBe(true);
    await lock.unlock();
    // A watchdog lock held across the outage: renewal fails meanwhile, and finds it gone afterwards.
    const heldName = uniqueName();
    const held = a.getLock(heldName);
    await held.lock();

    await server.kill();

    const waited = await within(rejectionOf(lock.tryLock(1_000)), 15_000, 'tryLock(1000) with Redis down');
    expect(waited).toBeInstanceOf(Error);
    const once = await within(rejectionOf(lock.tryLock()), 15_000, 'tryLock() with Redis down');
    expect(once).toBeInstanceOf(Error);
    const blocking = await within(rejectionOf(lock.lock()), 15_000, 'lock() with Redis down');
    expect(blocking).toBeInstanceOf(Error);
    await eventually(() => renewalErrors.length > 0, 10_000, 'a renewalError while Redis is down');
    expect(lostEvents).toEqual([]);

    await server.restart();
    await eventually(() => a.connectionStatus().command === 'ready', 15_000, 'the client reconnecting');

    expect(await within(lock.tryLock(5_000), 15_000, 'tryLock after the restart')).toBe(true);
    expect(await lock.getHoldCount()).toBe(1);
    // Waiting works again too (subscription, release message, retry).
    const other = clients.client({ lockWatchdogTimeout: WATCHDOG });
    quiet(other.redis);
    const waiter = track(other.getLock(name).lock());
    await lock.unlock();
    await within(waiter.promise, 15_000, 'a waiter after the restart');
    expect(await other.getLock(name).isLocked()).toBe(true);

    // The restart lost the watchdog lock's data: the watchdog reports it, unlock says so.
    await eventually(() => lostEvents.length > 0, 10_000, 'lockLost after the data loss');
    expect(lostEvents).toEqual([{ name: heldName, clientId: a.id, threadId: held.threadId }]);
    expect(await rejectionOf(held.unlock())).toBeInstanceOf(LockLostError);
  });
});
