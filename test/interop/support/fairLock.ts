/**
 * FairLock (every pinned version) and NonReentrantFairLock (Redisson 4.4.0+; "n/a" before) interop: one
 * queue `redisson_lock_queue:{N}`, one deadline zset and per-waiter channels shared with Java.
 *
 * No assertion depends on timing: holders' leases are 60 s, far above the hang guard, and a waiter is only
 * released once it is queued and subscribed to its own channel; where its re-poll runs `PTTL` (ours, and
 * Java 3.32.0+) the MONITOR log also shows that re-poll refused. The message each release published is
 * checked channel by channel: only the queue head's.
 */
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';
import { fairLockQueueName, fairLockTimeoutName, fairLockWaiterChannelName, IllegalMonitorStateError, type Redisson, type RedissonFairLock } from '../../../src/index.js';
import { eventually } from '../../support/redis.js';
import { JavaPeerError } from '../JavaPeer.js';
import type { InteropContext, InteropScenarios } from './context.js';
import { expectSameWire, familyName, tracked, useFamilyWire, within, type FamilyWire, type WireStep } from './lockFamily.js';
import { LONG_LEASE_MS } from './wireSteps.js';

const WORKER = fileURLToPath(new URL('../../locks/fairLockWorker.ts', import.meta.url));
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
/** Java's and our default fairLockWaitTimeout. */
const WAIT_MS = 300_000;
/** The wait of the waiters that give up in the leave row. */
const LEAVE_WAIT_MS = 2_000;
/** Lease of the dying holders of the crash row (our watchdog, Java's lease). */
const SHORT_MS = 1_500;

const EXCLUSION = 'fair-exclusion';
const EXCLUSION_TITLE =
  "Held → the other side's `tryLock()` is false and queues nothing; its waiter queues, listens on its own channel `redisson_lock__channel:{N}:<id>:<tid>`, and is woken by the holder's unlock, which tells only the queue head";
const FIFO = 'fair-fifo';
const FIFO_TITLE = 'FIFO across sides: Java and redisson-ts waiters queued alternately get the lock in queue order, deadlines chained by the same wait (300000 ms), each release telling only the next head';
const LEAVE = 'fair-leave';
const LEAVE_TITLE = "A waiter whose `tryLock` wait runs out leaves the queue and moves the deadline of the other side's waiter behind it up by that wait; that waiter then gets the lock on the holder's unlock";
const CRASH = 'fair-crash';
const CRASH_TITLE =
  "A holder that stops without unlocking — `kill -9` of a redisson-ts process holding a watchdog lock; for Java a lease that runs out (the suite starts no extra JVM to kill) — the other side's waiter gets the lock once the lease ends, no message";
const WIRE = 'fair-wire';
const WIRE_TITLE = 'Same commands inside the scripts, outcomes, hash and TTL as Java after each step (lock, re-entry, refused `tryLock()`, unlocks, `tryLock(0, lease)`, `forceUnlock`)';
const NR = 'nrfair-reentry';
const NR_TITLE =
  "The holder's second `lock()` / `tryLock()` throws IllegalMonitorState on its side (count 1, nothing queued); the other side's waiter queues and is woken by the one unlock";
const NR_WIRE = 'nrfair-wire';
const NR_WIRE_TITLE = 'Same commands inside the scripts, outcomes (the re-entry error included), hash and TTL as Java after each step';

const STEPS: readonly WireStep[] = [
  { who: 'owner', method: 'lock', args: [LONG_LEASE_MS] },
  { who: 'owner', method: 'tryLock', args: [] },
  { who: 'other', method: 'tryLock', args: [] },
  { who: 'owner', method: 'unlock', args: [] },
  { who: 'owner', method: 'unlock', args: [] },
  { who: 'other', method: 'tryLock', args: [0, LONG_LEASE_MS] },
  { who: 'owner', method: 'forceUnlock', args: [] },
  { who: 'owner', method: 'lock', args: [LONG_LEASE_MS] },
  { who: 'owner', method: 'unlock', args: [] },
];
const NR_STEPS: readonly WireStep[] = [
  { who: 'owner', method: 'lock', args: [LONG_LEASE_MS] },
  { who: 'owner', method: 'tryLock', args: [] },
  { who: 'owner', method: 'lock', args: [LONG_LEASE_MS] },
  { who: 'other', method: 'tryLock', args: [] },
  { who: 'owner', method: 'unlock', args: [] },
  { who: 'other', method: 'tryLock', args: [0, LONG_LEASE_MS] },
  { who: 'other', method: 'unlock', args: [] },
];

const atLeast = (version: string, major: number, minor: number): boolean => {
  const [a = 0, b = 0] = version.split('.').map(Number);
  return a > major || (a === major && b >= minor);
};

export const fairLockScenarios: InteropScenarios = (ctx: InteropContext) => {
  for (const [id, title] of [
    [EXCLUSION, EXCLUSION_TITLE],
    [FIFO, FIFO_TITLE],
    [LEAVE, LEAVE_TITLE],
    [CRASH, CRASH_TITLE],
    [WIRE, WIRE_TITLE],
  ] as const) {
    ctx.row(id, 'FairLock', title);
  }
  ctx.row(NR, 'NonReentrantFairLock', NR_TITLE);
  ctx.row(NR_WIRE, 'NonReentrantFairLock', NR_WIRE_TITLE);
  const wire = useFamilyWire(ctx);
  const java = async (name: string, method: string, args: unknown[], thread: string, primitive = 'fairLock'): Promise<unknown> =>
    (await ctx.peer.call(primitive, name, method, args, thread)).result;
  const queue = (name: string): Promise<string[]> => ctx.raw.lrange(fairLockQueueName(name), 0, -1);
  const deadlines = async (name: string): Promise<Record<string, number>> => {
    const flat = await ctx.raw.zrange(fairLockTimeoutName(name), 0, -1, 'WITHSCORES');
    return Object.fromEntries(Array.from({ length: flat.length / 2 }, (_, i) => [flat[2 * i] ?? '', Number(flat[2 * i + 1])]));
  };
  /**
   * Resolves once `owner` is queued on `name` and subscribed to its own channel; with `polled`, also once its
   * re-poll after subscribing was refused (MONITOR shows a second `PTTL N` since `from`).
   */
  const queued = async (w: FamilyWire, name: string, owner: string, who: string, polled?: number): Promise<void> => {
    const channel = fairLockWaiterChannelName(name, owner);
    await eventually(async () => (await queue(name)).includes(owner) && (await w.subscribers(channel)) >= 1, ctx.hangGuardMs, `${who} queued on ${channel}`);
    if (polled !== undefined) await eventually(() => w.refusals(name, polled) >= 2, ctx.hangGuardMs, `${who}'s re-poll`);
  };
  /** Java waiters re-poll with `PTTL` from 3.32.0 on (before, from their deadline). */
  const javaPolls = atLeast(ctx.version, 3, 32);
  const ours = (client: Redisson, lock: RedissonFairLock): string => `${client.getId()}:${lock.threadId}`;
  const javaOwner = async (thread: string): Promise<string> => ctx.peer.lockOwner(await ctx.peer.threadId(thread));

  ctx.check(EXCLUSION, 'java-to-ts', "Java holds: our tryLock() is false and queues nothing; our queued waiter is woken by Java's unlock on its own channel", async () => {
    const w = await wire();
    const name = familyName('fair');
    await java(name, 'lock', [LONG_LEASE_MS], 'fair-holder');
    expect(await ctx.raw.hgetall(name)).toEqual({ [await javaOwner('fair-holder')]: '1' });
    expect(await ctx.clients.client().getFairLock(name).tryLock()).toBe(false);
    expect(await ctx.raw.exists(fairLockQueueName(name), fairLockTimeoutName(name))).toBe(0);
    const client = ctx.clients.client();
    const lock = client.getFairLock(name);
    const from = await w.mark();
    const waiter = lock.lock();
    await queued(w, name, ours(client, lock), 'redisson-ts waiter', from);
    const published = await w.publishedDuring(async () => {
      await java(name, 'unlock', [], 'fair-holder');
      await within(waiter, ctx.hangGuardMs, "redisson-ts waiter after Java's unlock");
    });
    expect(published).toEqual([{ channel: fairLockWaiterChannelName(name, ours(client, lock)), message: '0' }]);
    expect(await lock.isHeldByCurrentThread()).toBe(true);
    expect(await ctx.raw.exists(fairLockQueueName(name))).toBe(0);
    await lock.unlock();
  });

  ctx.check(EXCLUSION, 'ts-to-java', "we hold: Java's tryLock() is false and queues nothing; a queued Java waiter is woken by our unlock on its own channel", async () => {
    const w = await wire();
    const name = familyName('fair');
    const lock = ctx.clients.client().getFairLock(name);
    await lock.lock(LONG_LEASE_MS);
    expect(await java(name, 'tryLock', [], 'fair-try')).toBe(false);
    expect(await ctx.raw.exists(fairLockQueueName(name), fairLockTimeoutName(name))).toBe(0);
    const owner = await javaOwner('fair-waiter');
    const from = await w.mark();
    const waiter = java(name, 'lock', [], 'fair-waiter');
    await queued(w, name, owner, 'Java waiter', javaPolls ? from : undefined);
    const published = await w.publishedDuring(async () => {
      await lock.unlock();
      await within(waiter, ctx.hangGuardMs, 'Java waiter after our unlock');
    });
    expect(published).toEqual([{ channel: fairLockWaiterChannelName(name, owner), message: '0' }]);
    expect(await ctx.raw.hgetall(name)).toEqual({ [owner]: '1' });
    await java(name, 'unlock', [], 'fair-waiter');
  });

  ctx.check(FIFO, 'both', 'Java, ts, Java, ts queued behind our holder acquire in that order; deadlines 300000 apart; one message per release, to the next head', async () => {
    const w = await wire();
    const name = familyName('fair');
    const holder = ctx.clients.client().getFairLock(name);
    await holder.lock(LONG_LEASE_MS);
    const order: string[] = [];
    type Waiter = { owner: string; acquired: Promise<unknown>; unlock: () => Promise<unknown> };
    const waiters: Waiter[] = [];
    for (const side of ['java', 'ts', 'java', 'ts'] as const) {
      const i = waiters.length;
      let waiter: Waiter;
      if (side === 'java') {
        const thread = `fair-fifo-${i}`;
        const owner = await javaOwner(thread);
        waiter = { owner, acquired: java(name, 'lock', [], thread), unlock: () => java(name, 'unlock', [], thread) };
      } else {
        const client = ctx.clients.client();
        const lock = client.getFairLock(name);
        waiter = { owner: ours(client, lock), acquired: lock.lock(), unlock: () => lock.unlock() };
      }
      waiter.acquired.then(
        () => order.push(`${side}${i}`),
        () => undefined,
      );
      waiters.push(waiter);
      await queued(w, name, waiter.owner, `${side} waiter ${i}`);
    }
    expect(await queue(name)).toEqual(waiters.map((x) => x.owner));
    // Each side chains its deadline on its predecessor's with the same wait: exact, whatever the clocks.
    const d = await deadlines(name);
    const first = d[waiters[0]?.owner ?? ''] ?? NaN;
    expect(waiters.map((x) => (d[x.owner] ?? NaN) - first)).toEqual([0, WAIT_MS, 2 * WAIT_MS, 3 * WAIT_MS]);
    const published = await w.publishedDuring(async () => {
      let release = (): Promise<unknown> => holder.unlock();
      for (const [i, waiter] of waiters.entries()) {
        const later = waiters.slice(i + 1).map((x) => tracked(x.acquired));
        await release();
        await within(waiter.acquired, ctx.hangGuardMs, `waiter ${i}`);
        expect(later.every((x) => !x.settled)).toBe(true);
        release = waiter.unlock;
      }
      await release();
    });
    expect(order).toEqual(['java0', 'ts1', 'java2', 'ts3']);
    expect(published).toEqual(waiters.map((x) => ({ channel: fairLockWaiterChannelName(name, x.owner), message: '0' })));
    expect(await ctx.raw.exists(name, fairLockQueueName(name), fairLockTimeoutName(name))).toBe(0);
  });

  ctx.check(LEAVE, 'java-to-ts', "a Java tryLock(2000) ahead of our waiter gives up: our deadline moves up by 2000; Java's unlock then wakes us", async () => {
    const w = await wire();
    const name = familyName('fair');
    await java(name, 'lock', [LONG_LEASE_MS], 'fair-leave-holder');
    const leaver = await javaOwner('fair-leaver');
    const gaveUp = java(name, 'tryLock', [LEAVE_WAIT_MS, LONG_LEASE_MS], 'fair-leaver');
    await queued(w, name, leaver, 'Java tryLock');
    const client = ctx.clients.client();
    const lock = client.getFairLock(name);
    const waiter = lock.lock();
    await queued(w, name, ours(client, lock), 'redisson-ts waiter');
    // Both queued: the leaver is still waiting.
    expect(await queue(name)).toEqual([leaver, ours(client, lock)]);
    const before = (await deadlines(name))[ours(client, lock)] ?? NaN;
    expect(await within(gaveUp, ctx.hangGuardMs, 'Java tryLock')).toBe(false);
    expect(await queue(name)).toEqual([ours(client, lock)]);
    expect(await deadlines(name)).toEqual({ [ours(client, lock)]: before - LEAVE_WAIT_MS });
    await java(name, 'unlock', [], 'fair-leave-holder');
    await within(waiter, ctx.hangGuardMs, "redisson-ts waiter after Java's unlock");
    await lock.unlock();
  });

  ctx.check(LEAVE, 'ts-to-java', 'our tryLock(2000) ahead of a Java waiter gives up: its deadline moves up by 2000; our unlock then wakes it', async () => {
    const w = await wire();
    const name = familyName('fair');
    const holder = ctx.clients.client().getFairLock(name);
    await holder.lock(LONG_LEASE_MS);
    const client = ctx.clients.client();
    const leaver = client.getFairLock(name);
    const gaveUp = leaver.tryLock(LEAVE_WAIT_MS, LONG_LEASE_MS);
    await queued(w, name, ours(client, leaver), 'redisson-ts tryLock');
    const owner = await javaOwner('fair-behind');
    const waiter = java(name, 'lock', [], 'fair-behind');
    await queued(w, name, owner, 'Java waiter');
    expect(await queue(name)).toEqual([ours(client, leaver), owner]);
    const before = (await deadlines(name))[owner] ?? NaN;
    expect(await within(gaveUp, ctx.hangGuardMs, 'redisson-ts tryLock')).toBe(false);
    // Our waiter leaves in the background, after tryLock returned.
    await eventually(async () => (await queue(name)).join() === owner, ctx.hangGuardMs, 'our waiter left the queue');
    expect(await deadlines(name)).toEqual({ [owner]: before - LEAVE_WAIT_MS });
    await holder.unlock();
    await within(waiter, ctx.hangGuardMs, 'Java waiter after our unlock');
    await java(name, 'unlock', [], 'fair-behind');
  });

  ctx.check(CRASH, 'java-to-ts', "a Java lease of 1500 ms runs out unreleased: our queued waiter gets the lock, no message", async () => {
    const w = await wire();
    const name = familyName('fair');
    await java(name, 'lock', [SHORT_MS], 'fair-dying');
    const client = ctx.clients.client();
    const lock = client.getFairLock(name);
    const published = await w.publishedDuring(async () => {
      await within(lock.lock(), ctx.hangGuardMs, 'redisson-ts waiter after the Java lease');
    });
    expect(published).toEqual([]);
    expect(await ctx.raw.hgetall(name)).toEqual({ [ours(client, lock)]: '1' });
    await lock.unlock();
  });

  ctx.check(CRASH, 'ts-to-java', 'kill -9 of a redisson-ts process holding a watchdog fair lock: a Java waiter gets the lock after the lease, no message', async () => {
    const w = await wire();
    const name = familyName('fair');
    const child = fork(WORKER, ['hold', JSON.stringify({ url: ctx.redis.url, name, lockWatchdogTimeout: SHORT_MS })], {
      cwd: ROOT,
      execArgv: ['--import', 'tsx'],
      stdio: ['ignore', 'ignore', 'ignore', 'ipc'],
    });
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    try {
      const locked = await within(
        new Promise<{ field: string }>((resolve, reject) => {
          child.once('message', (m) => resolve(m as { field: string }));
          child.once('exit', (code) => reject(new Error(`holder exited (${String(code)})`)));
        }),
        30_000,
        'redisson-ts holder process',
      );
      expect(await ctx.raw.hgetall(name)).toEqual({ [locked.field]: '1' });
      // Killed before the Java waiter asks: every version's waiter then waits no longer than the lease left
      // (Redisson before 3.32.0 could wait for a message forever when a watchdog extended the lease it saw).
      child.kill('SIGKILL');
      await exited;
      const owner = await javaOwner('fair-crash-waiter');
      // Before 3.32.0 (#4705) a queued Java waiter is told `deadline - wait - now`; re-polling at the lease's
      // last millisecond that comes out negative, and its lock() then waits for a message a dead holder never
      // sends (seen in 2 of ~8 runs on 3.17.7). A single bounded tryLock(8 s) is no cure: with that negative
      // TTL it sleeps its whole wait and gives up without a last attempt (seen in CI on 3.17.7). So for those
      // versions the Java waiter asks in short tryLock(300 ms) calls, each starting with an attempt; what is
      // checked — it gets the lock after the lease, with no message — is the same.
      const shortTries = async (): Promise<void> => {
        const until = Date.now() + ctx.hangGuardMs - 2_000;
        while (Date.now() < until) {
          if ((await java(name, 'tryLock', [300, -1], 'fair-crash-waiter')) === true) return;
        }
        throw new Error('the Java waiter never acquired the lock after the lease');
      };
      const waitCall = (): Promise<unknown> => (javaPolls ? java(name, 'lock', [], 'fair-crash-waiter') : shortTries());
      if (!javaPolls) ctx.results.note(CRASH, 'ts-to-java', 'Java before 3.32.0 waits in short tryLock(300 ms) calls: a queued waiter\'s lock(), and a single long tryLock, can sleep past the lease\'s end at its last millisecond (Redisson #4705).');
      const published = await w.publishedDuring(async () => {
        await within(waitCall(), ctx.hangGuardMs, 'Java waiter after the kill');
      });
      expect(published).toEqual([]);
      expect(await ctx.raw.hgetall(name)).toEqual({ [owner]: '1' });
      await java(name, 'unlock', [], 'fair-crash-waiter');
    } finally {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    }
  });

  ctx.check(WIRE, 'both', "our wire record of the sequence equals Java's", async () => {
    await expectSameWire(ctx, await wire(), 'fairLock', (client, name) => client.getFairLock(name), STEPS);
  });

  if (!atLeast(ctx.version, 4, 4)) {
    ctx.notInVersion(NR, NR_TITLE);
    ctx.notInVersion(NR_WIRE, NR_WIRE_TITLE);
    return;
  }
  const nr = (name: string, method: string, args: unknown[], thread: string): Promise<unknown> => java(name, method, args, thread, 'nonReentrantFairLock');
  const javaError = async (call: Promise<unknown>): Promise<string> => {
    const error = await call.then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(JavaPeerError);
    return (error as JavaPeerError).type;
  };

  ctx.check(NR, 'java-to-ts', "Java's second acquire throws; our queued waiter is woken by Java's one unlock", async () => {
    const w = await wire();
    const name = familyName('nrfair');
    const t = 'nrfair-holder';
    await nr(name, 'lock', [LONG_LEASE_MS], t);
    expect(await javaError(nr(name, 'lock', [], t))).toBe('IllegalMonitorStateException');
    expect(await javaError(nr(name, 'tryLock', [], t))).toBe('IllegalMonitorStateException');
    expect(await ctx.raw.hgetall(name)).toEqual({ [await javaOwner(t)]: '1' });
    expect(await ctx.raw.exists(fairLockQueueName(name))).toBe(0);
    const client = ctx.clients.client();
    const lock = client.getNonReentrantFairLock(name);
    const from = await w.mark();
    const waiter = lock.lock();
    await queued(w, name, ours(client, lock), 'redisson-ts waiter', from);
    const published = await w.publishedDuring(async () => {
      await nr(name, 'unlock', [], t);
      await within(waiter, ctx.hangGuardMs, "redisson-ts waiter after Java's unlock");
    });
    expect(published).toEqual([{ channel: fairLockWaiterChannelName(name, ours(client, lock)), message: '0' }]);
    await lock.unlock();
  });

  ctx.check(NR, 'ts-to-java', 'our second acquire throws; a queued Java waiter is woken by our one unlock', async () => {
    const w = await wire();
    const name = familyName('nrfair');
    const client = ctx.clients.client();
    const lock = client.getNonReentrantFairLock(name);
    // Our re-entry is Java's one thread: a runInThread flow of the object's own id (the default ownership).
    await client.runInThread(async () => {
      await lock.lock(LONG_LEASE_MS);
      await expect(lock.lock()).rejects.toBeInstanceOf(IllegalMonitorStateError);
      await expect(lock.tryLock()).rejects.toBeInstanceOf(IllegalMonitorStateError);
      expect(await ctx.raw.hgetall(name)).toEqual({ [ours(client, lock)]: '1' });
      expect(await ctx.raw.exists(fairLockQueueName(name))).toBe(0);
      const owner = await javaOwner('nrfair-waiter');
      const from = await w.mark();
      const waiter = nr(name, 'lock', [], 'nrfair-waiter');
      await queued(w, name, owner, 'Java waiter', from);
      const published = await w.publishedDuring(async () => {
        await lock.unlock();
        await within(waiter, ctx.hangGuardMs, 'Java waiter after our unlock');
      });
      expect(published).toEqual([{ channel: fairLockWaiterChannelName(name, owner), message: '0' }]);
      await nr(name, 'unlock', [], 'nrfair-waiter');
    }, lock.threadId);
  });

  ctx.check(NR_WIRE, 'both', "our wire record of the sequence equals Java's", async () => {
    await expectSameWire(ctx, await wire(), 'nonReentrantFairLock', (client, name) => client.getNonReentrantFairLock(name), NR_STEPS);
  });
};
