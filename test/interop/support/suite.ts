/**
 * The RLock interop scenarios, run against one pinned Java Redisson version (`defineInteropSuite(v)`
 * from `test/interop/rlock-<v>.test.ts`). Java Redisson (the peer JVM) and redisson-ts share one
 * redis-server; every scenario is checked in both directions and its outcome recorded for the
 * COMPATIBILITY.md matrix (see ./results.ts and scripts/interop-matrix.mjs).
 *
 * No assertion depends on timing. "Woke through the message": the holder's lease (60 s) is far longer than
 * the hang guard (10 s), and the holder only releases once the waiter is parked (subscribed, and its attempt
 * after subscribing was refused, as MONITOR shows); a waiter that then acquires within the guard was woken
 * by the unlock message, not by the lease running out.
 *
 * The wire scenarios run the same steps on both sides and compare what Redis saw (MONITOR: the commands each
 * script ran; the hash, TTL and messages after each step). `INTEROP_WIRE_DUMP=1` prints both recordings.
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IllegalMonitorStateError, lockChannelName, type Redisson, type RLock } from '../../../src/index.js';
import { forkCounter, killWorkers } from '../../fixtures/processes.js';
import { Clients, eventually, sleep, startRedis, uniqueName, within, type TestRedis } from '../../support/redis.js';
import { javaAvailable, JavaPeer, JavaPeerError } from '../JavaPeer.js';
import { javaMissingPlaceholder } from './placeholder.js';
import type { InteropContext } from './context.js';
import { PRIMITIVE_SCENARIOS } from './primitives.js';
import { checkMatrix, DIRECTIONS, ResultsRecorder, type Direction } from './results.js';
import { LockMessages, WireTap } from './wire.js';
import {
  describeLatchDifference,
  describeObjectLeaseDifference,
  diffSteps,
  LATCH_DIFFERENCE_EXPECTED,
  LONG_LEASE_MS,
  OBJECT_LEASE_DIFFERENCE_EXPECTED,
  onlyLeasesDiffer,
  recordSteps,
  runTsStep,
  SAME_OBJECT_STEPS,
  TS_WIRE_THREADS,
  ttlDifferences,
  WIRE_STEPS,
  type StepRecord,
  type WireStep,
} from './wireSteps.js';

/** How long a waiter may take to wake before the test calls it a hang. */
const HANG_GUARD_MS = 10_000;
/** The short `lockWatchdogTimeout` of the watchdog and crash scenarios (renewal every 500 ms). */
const SHORT_WATCHDOG_MS = 1_500;
const LOAD_ITERATIONS = 50;
/** Flows sharing one RLock object per process, and each flow's (and the Java thread's) iterations. */
const SHARED_FLOWS = 5;
const SHARED_ITERATIONS = 10;

const HOLDER_SCRIPT = fileURLToPath(new URL('./holder.ts', import.meta.url));
const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));


/** Observes whether a promise has settled, without waiting for it. */
function tracked<T>(promise: Promise<T>): { readonly promise: Promise<T>; settled: boolean } {
  const state = { promise, settled: false };
  void promise.then(
    () => (state.settled = true),
    () => (state.settled = true),
  );
  return state;
}

const short = (): string => randomUUID().slice(0, 8);
const plainName = (): string => uniqueName('interop');
/** A name with a hash tag: Redisson then derives `redisson_lock__channel:<name>` (no extra braces). */
const hashTagName = (): string => `orders:{42}:lock:${short()}`;

/** Registers the whole suite for one Redisson version. */
export function defineInteropSuite(version: string): void {
  const availability = javaAvailable();
  if (!availability.ok) {
    javaMissingPlaceholder(`Redisson ${version}`, availability.reason);
    return;
  }

  const results = new ResultsRecorder(version, 'one redis-server (standalone, PUBLISH/SUBSCRIBE)');
  let checks = 0;
  let started = 0;

  let redis: TestRedis;
  let clients: Clients;
  let familyClients: Clients;
  let raw: Redis;
  let pub: Redis;
  let tap: WireTap;
  let messages: LockMessages;
  let peer: JavaPeer;
  let wdPeer: JavaPeer;
  // The wire-state recordings' own Java client, with no lock taken before them. Redisson 3.44+'s watchdog starts a
  // new renewal timer chain each time its set of renewed locks goes from empty to non-empty and never cancels the
  // old ones, so after the suite's hundreds of acquisitions `peer` renews every held lock many times per 10 s
  // (measured on 4.7.0: 2 renewals in 21 s in a fresh client, 44 after 20 lock/unlock cycles). On `peer` those
  // renewals land inside the recorded steps whenever the steps run slowly; on a fresh client the first one comes
  // 10 s after the recording's first lock(), and the recordings take under 2 s even under the full suite's load.
  let wirePeer: JavaPeer;

  /** A call on the Java peer; its result only. */
  const jcall = async (p: JavaPeer, name: string, method: string, args: unknown[] = [], thread = 'main'): Promise<unknown> =>
    (await p.call('lock', name, method, args, thread)).result;

  const subscribers = async (channel: string): Promise<number> => {
    const reply = (await raw.pubsub('NUMSUB', channel)) as [string, number | string];
    return Number(reply[1]);
  };
  /**
   * Resolves once a waiter started after tap position `from` is parked: subscribed to the lock's channel
   * and past the attempt it makes after subscribing (its second acquire script, which returned a PTTL).
   * From then on only a message, or the holder's lease running out, can wake it.
   */
  const parked = async (name: string, from: number, who: string): Promise<void> => {
    const channel = lockChannelName(name);
    await eventually(async () => (await subscribers(channel)) >= 1, HANG_GUARD_MS, `${who} subscribed to ${channel}`);
    const refused = (): number => tap.since(from).filter((c) => c.source === 'lua' && c.args[0]?.toLowerCase() === 'pttl' && c.args[1] === name).length;
    await eventually(() => refused() >= 2, HANG_GUARD_MS, `${who}'s attempt after subscribing`);
  };

  /** The messages published on lock channels while `fn` ran. */
  const publishedDuring = async (fn: () => Promise<void>): Promise<{ channel: string; message: string }[]> => {
    const at = await messages.mark(pub);
    await fn();
    await messages.mark(pub);
    return messages.since(at);
  };

  const row = (id: string, title: string): void => results.register(id, 'RLock', title);

  /** One test: `direction`'s cell of row `id` passes when `fn` does. */
  const check = (id: string, direction: Direction | 'both', title: string, fn: () => Promise<void>, timeout?: number): void => {
    checks++;
    const arrow = direction === 'both' ? '⇄' : direction === 'java-to-ts' ? 'Java → ts' : 'ts → Java';
    it(
      `${id} [${arrow}] ${title}`,
      async () => {
        started++;
        await fn();
        for (const d of direction === 'both' ? DIRECTIONS : [direction]) results.set(id, d, 'pass');
      },
      timeout,
    );
  };

  describe(`Java Redisson ${version} ⇄ redisson-ts, RLock on one redis-server`, () => {
    beforeAll(async () => {
      redis = await startRedis();
      clients = new Clients(redis.url);
      // The other primitives' scenarios run on the default ownership too; where they port Java's one-thread
      // re-entry (nested holds, RW downgrade), that thread is a `runInThread` flow.
      familyClients = new Clients(redis.url);
      // MONITOR first and alone: ioredis mis-parses a monitor line that arrives in the same packet as
      // MONITOR's own +OK ("Command queue state error"), so nothing else may talk to Redis meanwhile.
      tap = await WireTap.open(clients.raw());
      raw = clients.raw();
      pub = clients.raw();
      [messages, peer, wdPeer, wirePeer] = await Promise.all([
        LockMessages.open(clients.raw()),
        JavaPeer.start(version, { address: redis.url }),
        JavaPeer.start(version, { address: redis.url, lockWatchdogTimeout: SHORT_WATCHDOG_MS }),
        JavaPeer.start(version, { address: redis.url }),
      ]);
      expect(peer.redissonVersion).toBe(version);
    });

    afterAll(async () => {
      // Only a complete run may replace the recorded results (a `-t` filter runs a few tests).
      if (started === checks) results.write();
      await Promise.allSettled([peer?.shutdown(), wdPeer?.shutdown(), wirePeer?.shutdown()]);
      tap?.close();
      await clients?.closeAll();
      await familyClients?.closeAll();
      await redis?.stop();
    });

    // ----------------------------------------------------------------- exclusion and wake-up
    for (const [id, kind, makeName] of [
      ['wake-plain', 'plain name', plainName],
      ['wake-hashtag', 'hash-tag name `orders:{42}:lock`', hashTagName],
    ] as const) {
      row(id, `Held → the other side's \`tryLock()\` is false; its waiter wakes on the holder's unlock, through the message (${kind})`);

      check(id, 'java-to-ts', `Java holds: our tryLock() is false, our waiter wakes on Java's unlock (${kind})`, async () => {
        const name = makeName();
        const channel = lockChannelName(name);
        expect(channel).toBe(name.includes('{') ? `redisson_lock__channel:${name}` : `redisson_lock__channel:{${name}}`);
        await jcall(peer, name, 'lock', [LONG_LEASE_MS], `${id}-holder`);
        const owner = peer.lockOwner(await peer.threadId(`${id}-holder`));
        expect(await raw.hgetall(name)).toEqual({ [owner]: '1' });

        expect(await clients.client().getLock(name).tryLock()).toBe(false);
        const waiterLock = clients.client().getLock(name);
        const from = await tap.mark();
        const waiter = waiterLock.lock();
        await parked(name, from, 'redisson-ts waiter');
        const published = await publishedDuring(async () => {
          await jcall(peer, name, 'unlock', [], `${id}-holder`);
          await within(waiter, HANG_GUARD_MS, "redisson-ts waiter after Java's unlock");
        });
        expect(published).toEqual([{ channel, message: '0' }]);
        expect(await waiterLock.isHeldByCurrentThread()).toBe(true);
        await waiterLock.unlock();
      });

      check(id, 'ts-to-java', `we hold: Java's tryLock() is false, a Java waiter wakes on our unlock (${kind})`, async () => {
        const name = makeName();
        const channel = lockChannelName(name);
        const holder = clients.client();
        const lock = holder.getLock(name);
        await lock.lock(LONG_LEASE_MS);
        expect(await raw.hgetall(name)).toEqual({ [`${holder.getId()}:${lock.threadId}`]: '1' });

        expect(await jcall(peer, name, 'tryLock', [], `${id}-try`)).toBe(false);
        const waiterTid = await peer.threadId(`${id}-waiter`);
        const from = await tap.mark();
        const waiter = jcall(peer, name, 'lock', [], `${id}-waiter`);
        await parked(name, from, 'Java waiter');
        const published = await publishedDuring(async () => {
          await lock.unlock();
          await within(waiter, HANG_GUARD_MS, 'Java waiter after our unlock');
        });
        expect(published).toEqual([{ channel, message: '0' }]);
        expect(await raw.hgetall(name)).toEqual({ [peer.lockOwner(waiterTid)]: '1' });
        await jcall(peer, name, 'unlock', [], `${id}-waiter`);
      });
    }

    // ---------------------------------------------------------------------------- queries
    row('queries', '`isLocked`, `getHoldCount`, `isHeldByThread`, `remainTimeToLive` of the other side\'s lock');

    check('queries', 'java-to-ts', "our queries of Java's lock", async () => {
      const name = plainName();
      await jcall(peer, name, 'lock', [LONG_LEASE_MS], 'queries-holder');
      const javaTid = await peer.threadId('queries-holder');
      const lock = clients.client().getLock(name);
      expect(await lock.isLocked()).toBe(true);
      expect(await lock.getHoldCount()).toBe(0);
      // Same thread id, other client: not the owner.
      expect(await lock.isHeldByThread(javaTid)).toBe(false);
      const ttl = await lock.remainTimeToLive();
      expect(ttl).toBeGreaterThan(LONG_LEASE_MS - 10_000);
      expect(ttl).toBeLessThanOrEqual(LONG_LEASE_MS);
      await jcall(peer, name, 'unlock', [], 'queries-holder');
      expect(await lock.isLocked()).toBe(false);
      expect(await lock.remainTimeToLive()).toBe(-2);
    });

    check('queries', 'ts-to-java', 'Java queries of our lock', async () => {
      const name = plainName();
      const lock = clients.client().getLock(name);
      await lock.lock(LONG_LEASE_MS);
      const t = 'queries-reader';
      expect(await jcall(peer, name, 'isLocked', [], t)).toBe(true);
      expect(await jcall(peer, name, 'getHoldCount', [], t)).toBe(0);
      expect(await jcall(peer, name, 'isHeldByCurrentThread', [], t)).toBe(false);
      expect(await jcall(peer, name, 'isHeldByThread', [lock.threadId], t)).toBe(false);
      const ttl = Number(await jcall(peer, name, 'remainTimeToLive', [], t));
      expect(ttl).toBeGreaterThan(LONG_LEASE_MS - 10_000);
      expect(ttl).toBeLessThanOrEqual(LONG_LEASE_MS);
      await lock.unlock();
      expect(await jcall(peer, name, 'isLocked', [], t)).toBe(false);
      expect(await jcall(peer, name, 'remainTimeToLive', [], t)).toBe(-2);
    });

    // ---------------------------------------------------------------- non-owner unlock
    row('non-owner-unlock', '`unlock()` by the other side is refused (IllegalMonitorState); the lock is untouched, nothing is published');

    check('non-owner-unlock', 'java-to-ts', "our unlock of Java's lock is refused", async () => {
      const name = plainName();
      await jcall(peer, name, 'lock', [LONG_LEASE_MS], 'nonowner-holder');
      const javaTid = await peer.threadId('nonowner-holder');
      const before = await raw.hgetall(name);
      const lock = clients.client().getLock(name);
      const published = await publishedDuring(async () => {
        // Even with Java's thread id: the client id differs.
        await expect(lock.unlock({ threadId: javaTid })).rejects.toBeInstanceOf(IllegalMonitorStateError);
        await expect(lock.unlock()).rejects.toBeInstanceOf(IllegalMonitorStateError);
      });
      expect(published).toEqual([]);
      expect(await raw.hgetall(name)).toEqual(before);
      await jcall(peer, name, 'unlock', [], 'nonowner-holder');
    });

    check('non-owner-unlock', 'ts-to-java', "Java's unlock of our lock is refused", async () => {
      const name = plainName();
      const lock = clients.client().getLock(name);
      await lock.lock(LONG_LEASE_MS);
      const before = await raw.hgetall(name);
      const published = await publishedDuring(async () => {
        const error = await jcall(peer, name, 'unlock', [], 'nonowner-other').catch((e: unknown) => e);
        expect(error).toBeInstanceOf(JavaPeerError);
        expect((error as JavaPeerError).type).toBe('IllegalMonitorStateException');
      });
      expect(published).toEqual([]);
      expect(await raw.hgetall(name)).toEqual(before);
      await lock.unlock();
    });

    // ------------------------------------------------------------------------- reentrancy
    row('reentrancy', 'Holder re-enters twice: the other side stays excluded until the second unlock, then its waiter wakes');

    check('reentrancy', 'java-to-ts', 'Java re-enters twice; we stay excluded until its second unlock', async () => {
      const name = plainName();
      const t = 'reentrant-holder';
      await jcall(peer, name, 'lock', [LONG_LEASE_MS], t);
      await jcall(peer, name, 'lock', [LONG_LEASE_MS], t);
      const owner = peer.lockOwner(await peer.threadId(t));
      expect(await raw.hgetall(name)).toEqual({ [owner]: '2' });
      const waiterLock = clients.client().getLock(name);
      const from = await tap.mark();
      const waiter = tracked(waiterLock.lock());
      await parked(name, from, 'redisson-ts waiter');

      await jcall(peer, name, 'unlock', [], t);
      expect(await raw.hgetall(name)).toEqual({ [owner]: '1' });
      expect(await clients.client().getLock(name).tryLock()).toBe(false);
      expect(waiter.settled).toBe(false);

      await jcall(peer, name, 'unlock', [], t);
      await within(waiter.promise, HANG_GUARD_MS, "redisson-ts waiter after Java's second unlock");
      expect(await waiterLock.getHoldCount()).toBe(1);
      await waiterLock.unlock();
    });

    check('reentrancy', 'ts-to-java', 'we re-enter twice; Java stays excluded until our second unlock', async () => {
      const name = plainName();
      const client = clients.client();
      const lock = client.getLock(name);
      // Java's one thread is one runInThread flow here: its second lock() re-enters.
      await client.runInThread(async () => {
        await lock.lock(LONG_LEASE_MS);
        await lock.lock(LONG_LEASE_MS);
        const owner = `${client.getId()}:${client.currentThreadId()}`;
        expect(await raw.hgetall(name)).toEqual({ [owner]: '2' });
        const waiterTid = await peer.threadId('reentrant-waiter');
        const from = await tap.mark();
        const waiter = tracked(jcall(peer, name, 'lock', [], 'reentrant-waiter'));
        await parked(name, from, 'Java waiter');

        await lock.unlock();
        expect(await raw.hgetall(name)).toEqual({ [owner]: '1' });
        expect(await jcall(peer, name, 'tryLock', [], 'reentrant-try')).toBe(false);
        expect(waiter.settled).toBe(false);

        await lock.unlock();
        await within(waiter.promise, HANG_GUARD_MS, 'Java waiter after our second unlock');
        expect(await raw.hgetall(name)).toEqual({ [peer.lockOwner(waiterTid)]: '1' });
        await jcall(peer, name, 'unlock', [], 'reentrant-waiter');
      });
    });

    // ------------------------------------------------------------------------ forceUnlock
    row('force-unlock', '`forceUnlock()` deletes a lock the other side holds and wakes the other side\'s waiter');

    check('force-unlock', 'java-to-ts', "Java's forceUnlock wakes our waiter", async () => {
      const name = plainName();
      await clients.client().getLock(name).lock(LONG_LEASE_MS);
      const waiterLock = clients.client().getLock(name);
      const from = await tap.mark();
      const waiter = waiterLock.lock();
      await parked(name, from, 'redisson-ts waiter');
      const published = await publishedDuring(async () => {
        expect(await jcall(peer, name, 'forceUnlock', [], 'force-java')).toBe(true);
        await within(waiter, HANG_GUARD_MS, "redisson-ts waiter after Java's forceUnlock");
      });
      expect(published).toEqual([{ channel: lockChannelName(name), message: '0' }]);
      expect(await waiterLock.isHeldByCurrentThread()).toBe(true);
      await waiterLock.unlock();
    });

    check('force-unlock', 'ts-to-java', "our forceUnlock wakes a Java waiter", async () => {
      const name = plainName();
      await jcall(peer, name, 'lock', [LONG_LEASE_MS], 'force-holder');
      const waiterTid = await peer.threadId('force-waiter');
      const from = await tap.mark();
      const waiter = jcall(peer, name, 'lock', [], 'force-waiter');
      await parked(name, from, 'Java waiter');
      const published = await publishedDuring(async () => {
        expect(await clients.client().getLock(name).forceUnlock()).toBe(true);
        await within(waiter, HANG_GUARD_MS, 'Java waiter after our forceUnlock');
      });
      expect(published).toEqual([{ channel: lockChannelName(name), message: '0' }]);
      expect(await raw.hgetall(name)).toEqual({ [peer.lockOwner(waiterTid)]: '1' });
      await jcall(peer, name, 'unlock', [], 'force-waiter');
    });

    // --------------------------------------------------------------------------- watchdog
    row('watchdog', `Watchdog lock (no lease, \`lockWatchdogTimeout\` ${SHORT_WATCHDOG_MS} ms) held for 3× that keeps excluding the other side`);

    check('watchdog', 'java-to-ts', 'a Java watchdog lock keeps excluding us', async () => {
      const name = plainName();
      const t = 'watchdog-holder';
      await jcall(wdPeer, name, 'lock', [], t);
      const owner = wdPeer.lockOwner(await wdPeer.threadId(t));
      const other = clients.client({ lockWatchdogTimeout: SHORT_WATCHDOG_MS }).getLock(name);
      const until = Date.now() + 3 * SHORT_WATCHDOG_MS;
      while (Date.now() < until) {
        expect(await other.tryLock()).toBe(false);
        const ttl = await raw.pttl(name);
        expect(ttl).toBeGreaterThan(0);
        expect(ttl).toBeLessThanOrEqual(SHORT_WATCHDOG_MS);
        await sleep(250);
      }
      expect(await raw.hgetall(name)).toEqual({ [owner]: '1' });
      await jcall(wdPeer, name, 'unlock', [], t);
      expect(await other.tryLock()).toBe(true);
      await other.unlock();
    });

    check('watchdog', 'ts-to-java', 'our watchdog lock keeps excluding Java', async () => {
      const name = plainName();
      const client = clients.client({ lockWatchdogTimeout: SHORT_WATCHDOG_MS });
      const lock = client.getLock(name);
      await lock.lock();
      const until = Date.now() + 3 * SHORT_WATCHDOG_MS;
      while (Date.now() < until) {
        expect(await jcall(wdPeer, name, 'tryLock', [], 'watchdog-other')).toBe(false);
        const ttl = await raw.pttl(name);
        expect(ttl).toBeGreaterThan(0);
        expect(ttl).toBeLessThanOrEqual(SHORT_WATCHDOG_MS);
        await sleep(250);
      }
      expect(await raw.hgetall(name)).toEqual({ [`${client.getId()}:${lock.threadId}`]: '1' });
      await lock.unlock();
      expect(await jcall(wdPeer, name, 'tryLock', [], 'watchdog-other')).toBe(true);
      await jcall(wdPeer, name, 'unlock', [], 'watchdog-other');
    });

    // ------------------------------------------------------------------------------ crash
    row('crash', '`kill -9` of the holder of a watchdog lock: the other side acquires once the lease runs out (no message)');

    check('crash', 'java-to-ts', 'kill -9 of the Java peer holding a watchdog lock: we acquire after the lease', async () => {
      const name = plainName();
      const crashing = await JavaPeer.start(version, { address: redis.url, lockWatchdogTimeout: SHORT_WATCHDOG_MS });
      try {
        await jcall(crashing, name, 'lock', [], 'crash-holder');
        const owner = crashing.lockOwner(await crashing.threadId('crash-holder'));
        // Outlives its lease: the Java watchdog is what keeps it.
        await sleep(SHORT_WATCHDOG_MS + 500);
        expect(await raw.hgetall(name)).toEqual({ [owner]: '1' });
        const waiterLock = clients.client().getLock(name);
        const from = await tap.mark();
        const waiter = waiterLock.lock();
        await parked(name, from, 'redisson-ts waiter');
        const published = await publishedDuring(async () => {
          await crashing.kill('SIGKILL');
          await within(waiter, HANG_GUARD_MS, 'redisson-ts waiter after the Java peer was killed');
        });
        expect(published).toEqual([]);
        expect(await waiterLock.isHeldByCurrentThread()).toBe(true);
        await waiterLock.unlock();
      } finally {
        await crashing.kill('SIGKILL');
      }
    });

    check('crash', 'ts-to-java', 'kill -9 of a redisson-ts process holding a watchdog lock: Java acquires after the lease', async () => {
      const name = plainName();
      const child = spawn(process.execPath, ['--import', 'tsx', HOLDER_SCRIPT, redis.url, name, String(SHORT_WATCHDOG_MS)], {
        cwd: REPO_ROOT,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      try {
        let stderr = '';
        child.stderr.on('data', (b: Buffer) => (stderr += b.toString('utf8')));
        const line = await within(
          new Promise<string>((resolve, reject) => {
            createInterface({ input: child.stdout }).once('line', resolve);
            child.once('exit', (code) => reject(new Error(`holder exited (${String(code)}): ${stderr}`)));
          }),
          30_000,
          'redisson-ts holder process',
        );
        const { clientId, threadId } = JSON.parse(line) as { clientId: string; threadId: number };
        await sleep(SHORT_WATCHDOG_MS + 500);
        expect(await raw.hgetall(name)).toEqual({ [`${clientId}:${threadId}`]: '1' });
        const waiterTid = await wdPeer.threadId('crash-waiter');
        const from = await tap.mark();
        const waiter = jcall(wdPeer, name, 'lock', [], 'crash-waiter');
        await parked(name, from, 'Java waiter');
        const published = await publishedDuring(async () => {
          child.kill('SIGKILL');
          await exited;
          await within(waiter, HANG_GUARD_MS, 'Java waiter after the redisson-ts process was killed');
        });
        expect(published).toEqual([]);
        expect(await raw.hgetall(name)).toEqual({ [wdPeer.lockOwner(waiterTid)]: '1' });
        await jcall(wdPeer, name, 'unlock', [], 'crash-waiter');
      } finally {
        if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
        await exited;
      }
    });

    // ---------------------------------------------------------------------- mutual exclusion
    row('load', `Mutual exclusion under load: 2 Java threads and 2 redisson-ts clients, ${LOAD_ITERATIONS} non-atomic increments each, exact count`);

    check('load', 'both', 'two Java threads and two of our clients increment one counter under the lock', async () => {
      const name = plainName();
      const counter = `${name}:counter`;
      let inside = 0;
      let overlaps = 0;
      const increment = async (conn: Redis): Promise<void> => {
        if (++inside > 1) overlaps++;
        const value = Number((await conn.get(counter)) ?? '0');
        await new Promise((r) => setImmediate(r)); // widen the read-modify-write window
        await conn.set(counter, String(value + 1));
        inside--;
      };
      const javaWorker = async (thread: string): Promise<void> => {
        const conn = clients.raw();
        for (let i = 0; i < LOAD_ITERATIONS; i++) {
          await jcall(peer, name, 'lock', [], thread);
          await increment(conn);
          await jcall(peer, name, 'unlock', [], thread);
        }
      };
      const tsWorker = async (client: Redisson): Promise<void> => {
        const conn = clients.raw();
        const lock = client.getLock(name);
        for (let i = 0; i < LOAD_ITERATIONS; i++) {
          await lock.lock();
          await increment(conn);
          await lock.unlock();
        }
      };
      await within(
        Promise.all([javaWorker('load-1'), javaWorker('load-2'), tsWorker(clients.client()), tsWorker(clients.client())]),
        50_000,
        'load workers',
      );
      expect(overlaps).toBe(0);
      expect(await raw.get(counter)).toBe(String(4 * LOAD_ITERATIONS));
      expect(await raw.exists(name)).toBe(0);
    });

    row(
      'shared-object',
      `One RLock object shared by ${SHARED_FLOWS} concurrent flows (default ownership) here and in each of 2 more OS processes, with a Java thread: critical sections never interleave, no increment lost`,
    );

    check('shared-object', 'both', "Java's `private final RLock` pattern in Node: flows sharing one object exclude each other and a Java thread", async () => {
      const name = plainName();
      const counterKey = `${name}:counter`;
      const logKey = `${name}:log`;
      const workers = [0, 1].map(() =>
        forkCounter({ url: redis.url, name, counterKey, logKey, clients: 1, workers: SHARED_FLOWS, iterations: SHARED_ITERATIONS, sharedObject: true, lockWatchdogTimeout: 5_000 }),
      );
      try {
        await Promise.all(workers.map((w) => w.next('ready', 60_000)));
        const conn = clients.raw();
        // The same critical section as the workers': logged entry, a widened read-modify-write, logged exit.
        const section = async (id: string): Promise<void> => {
          await conn.rpush(logKey, `enter:${id}`);
          const value = Number((await conn.get(counterKey)) ?? '0');
          await sleep(1);
          await conn.set(counterKey, String(value + 1));
          await conn.rpush(logKey, `exit:${id}`);
        };
        const javaThread = async (): Promise<void> => {
          for (let i = 0; i < SHARED_ITERATIONS; i++) {
            await jcall(peer, name, 'lock', [], 'shared-1');
            try {
              await section(`java:shared-1:${i}`);
            } finally {
              await jcall(peer, name, 'unlock', [], 'shared-1');
            }
          }
        };
        const shared = clients.client().getLock(name); // one object, default ownership
        const flow = async (f: number): Promise<void> => {
          for (let i = 0; i < SHARED_ITERATIONS; i++) {
            await shared.lock();
            try {
              await section(`ts:${f}:${i}`);
            } finally {
              await shared.unlock();
            }
          }
        };
        for (const w of workers) w.send({ type: 'go' });
        await within(
          Promise.all([javaThread(), ...Array.from({ length: SHARED_FLOWS }, (_, f) => flow(f)), ...workers.map((w) => w.next('done', 120_000))]),
          120_000,
          'shared-object flows',
        );
        const owners = 3 * SHARED_FLOWS + 1;
        expect(await raw.get(counterKey)).toBe(String(owners * SHARED_ITERATIONS));
        const log = await raw.lrange(logKey, 0, -1);
        expect(log).toHaveLength(owners * SHARED_ITERATIONS * 2);
        // Strict alternation enter:X, exit:X over all sixteen owners: no section began inside another.
        for (let i = 0; i < log.length; i += 2) {
          expect(log[i]).toMatch(/^enter:/);
          expect(log[i + 1]).toBe(String(log[i]).replace(/^enter:/, 'exit:'));
        }
        expect(log.filter((e) => e.startsWith('enter:java:'))).toHaveLength(SHARED_ITERATIONS);
        expect(await raw.exists(name)).toBe(0);
      } finally {
        await killWorkers();
      }
    }, 150_000);

    // -------------------------------------------------------------------------- wire state
    /** Runs `steps` on Java and on ours (fresh names), and returns both step records. */
    const recordBoth = async (steps: readonly WireStep[], sameObject: boolean): Promise<{ java: StepRecord[]; ours: StepRecord[] }> => {
      const client = clients.client();
      const primitive = sameObject ? 'lockObject' : 'lock';
      const observers = { tap, messages, pub, raw };
      const java = await recordSteps(observers, 'java', steps, {
        run: async (name, step) => (await wirePeer.call(primitive, name, step.method, [...step.args], `wire-${step.thread}`)).result,
        clientId: wirePeer.clientId,
        threadIds: await Promise.all(['wire-0', 'wire-1'].map((t) => wirePeer.threadId(t))),
      });
      const objects = new Map<string, RLock>();
      const ours = await recordSteps(observers, 'ts', steps, {
        // The Java peer's "lock" calls getLock(name) per call, "lockObject" keeps one object per name.
        run: (name, step) => {
          let lock = objects.get(name);
          if (!lock || !sameObject) objects.set(name, (lock = client.getLock(name)));
          return runTsStep(lock, step);
        },
        clientId: client.getId(),
        threadIds: TS_WIRE_THREADS,
      });
      if (process.env['INTEROP_WIRE_DUMP']) console.log(JSON.stringify({ steps: steps.length, java, ours }, null, 1));
      return { java, ours };
    };

    row('wire', `Same script commands, hash field and count, TTL, channel and message as Java after each step of a ${WIRE_STEPS.length}-step sequence`);

    check(
      'wire',
      'both',
      'our wire state after each step equals what Java produced for the same step',
      async () => {
        const { java, ours } = await recordBoth(WIRE_STEPS, false);
        const diffs = diffSteps(java, ours);
        // Anything but the unlock latch must be identical in every version.
        expect(diffs.filter((d) => !d.latch)).toEqual([]);
        if (LATCH_DIFFERENCE_EXPECTED.has(version)) {
          const note = describeLatchDifference(java, ours);
          for (const d of DIRECTIONS) results.note('wire', d, note);
        } else {
          expect(diffs.filter((d) => d.latch)).toEqual([]);
        }
      },
      60_000,
    );

    row('wire-object', "One lock object across calls (leased and leaseless acquisitions, reentrant unlocks): same commands, TTLs and state as Java");

    check(
      'wire-object',
      'both',
      "with one RLock object per side, every lease and TTL equals Java's",
      async () => {
        const { java, ours } = await recordBoth(SAME_OBJECT_STEPS, true);
        const diffs = diffSteps(java, ours).filter((d) => !d.latch);
        if (OBJECT_LEASE_DIFFERENCE_EXPECTED.has(version)) {
          // Only leases may differ: PEXPIRE arguments and the resulting TTLs; the rest must be identical.
          expect(diffs.length > 0 && onlyLeasesDiffer(diffs), JSON.stringify(diffs, null, 1)).toBe(true);
          const note = describeObjectLeaseDifference(java, ours);
          for (const d of DIRECTIONS) results.note('wire-object', d, note);
        } else {
          // A difference here is a redisson-ts bug (the matrix cell becomes ✗ with this note).
          const note = `redisson-ts differs from Java: ${ttlDifferences(java, ours).join('; ') || 'see the test output'}.`;
          if (diffs.length > 0) for (const d of DIRECTIONS) results.note('wire-object', d, note);
          expect(diffs, note).toEqual([]);
        }
      },
      60_000,
    );

    // ------------------------------------------------------------------- the other primitives
    const ctx: InteropContext = {
      version,
      get peer() {
        return peer;
      },
      get watchdogPeer() {
        return wdPeer;
      },
      get wirePeer() {
        return wirePeer;
      },
      shortWatchdogMs: SHORT_WATCHDOG_MS,
      get redis() {
        return redis;
      },
      get clients() {
        return familyClients;
      },
      get raw() {
        return raw;
      },
      results,
      hangGuardMs: HANG_GUARD_MS,
      row: (id, primitive, title) => results.register(id, primitive, title),
      check,
      notInVersion: (id, title) => {
        checks++;
        it(`${id} [n/a] ${title}: not in Redisson ${version}`, () => {
          started++;
          for (const d of DIRECTIONS) results.set(id, d, 'n/a');
        });
      },
    };
    for (const scenarios of PRIMITIVE_SCENARIOS) scenarios(ctx);

    // ----------------------------------------------------------------------------- matrix
    it('COMPATIBILITY.md interop matrix equals the results of this run', () => {
      if (started === checks) results.write();
      const { ok, output } = checkMatrix();
      expect(ok, output).toBe(true);
    });
  });
}
