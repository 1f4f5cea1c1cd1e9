/**
 * Leak soak (issue 8): ≥ 20 000 mixed operations — lock(), lock(lease), tryLock(0), tryLock(wait[, lease]),
 * and waits aborted through an AbortSignal before, right after or during the wait — by 12 concurrent
 * workers on 3 clients over 3 lock names of one server. Then every client shuts down, and nothing of the
 * library may be left: no timer or socket (active resources back to the baseline taken before the clients
 * existed, and no pending timer created by src/ or ioredis, unref'd ones included), no channel, no
 * connection but the test's own, no key. The heap after a forced GC may not grow by more than a bound
 * between the two halves of the run. Mutual exclusion is checked in passing.
 *
 * Every loop is bounded in count and in time; the operation mix is drawn from a seeded generator.
 */
import { Redis } from 'ioredis';
import { expect, it } from 'vitest';
import { Redisson } from '../../src/index.js';
import { eventually, sleep, useRedis } from '../support/redis.js';
import { activeResources, LibraryResourceTracker, resourcesAbove, settledHeap } from './resources.js';

// Its own server, listening on 127.0.0.2 only: a client of another suite reconnecting to a port freed on
// 127.0.0.1 (a killed server) can never reach it and show up in CLIENT LIST or DBSIZE here.
const suite = useRedis({ own: true, args: ['--bind', '127.0.0.2'] });

const CLIENTS = 3;
const WORKERS_PER_CLIENT = 4;
const NAMES = ['soak:a', 'soak:b', 'soak:c'];
/** Operations (each lock, tryLock, unlock or aborted wait counts one) per phase: warm-up, half 1, half 2. */
const PHASES = [2_000, 9_000, 9_000];
/**
 * Hang guards. The run takes about 15 s on an idle 2-core machine, several times that on a loaded one, so
 * slowness alone is not a failure: a phase fails when no operation at all completed for STALL_MS (every
 * worker stuck: a lost wake-up can delay one only up to a lease, 5 s), and the run stops at RUN_DEADLINE_MS,
 * below vitest's 60 s test timeout, with a message that tells the two apart.
 */
const STALL_MS = 10_000;
const RUN_DEADLINE_MS = 55_000;
/**
 * Heap growth allowed over the second half (9 000 operations): 3 MiB ≈ 350 bytes per operation. Keeping one
 * abort scope per wait (a leak tried on purpose) grew it by 6 MiB; without a leak it grows by 0.1–0.4 MiB
 * (JIT code, ioredis's buffers).
 */
const HEAP_GROWTH_LIMIT = 3 * 1024 * 1024;
/** Seed of the operation mix (phase i uses SEED + i). */
const SEED = 0x5eed_2024;

/** mulberry32: a small seeded generator, so a failing mix can be replayed. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Tally {
  ops: number;
  acquired: number;
  refused: number;
  aborted: number;
  overlaps: number;
  errors: string[];
}

const holders = new Map<string, number>();

/** Holds briefly: not at all, one macrotask, or a few ms (so that others really wait). */
async function hold(rand: () => number): Promise<void> {
  const r = rand();
  if (r < 0.3) return;
  if (r < 0.7) await new Promise((resolve) => setImmediate(resolve));
  else await sleep(Math.floor(rand() * 3));
}

/** A wait that is aborted before it starts, a microtask later, or 0–3 ms into it. */
async function abortedWait(lock: ReturnType<Redisson['getLock']>, rand: () => number, tally: Tally): Promise<boolean> {
  const controller = new AbortController();
  const reason = new Error('soak abort');
  const when = rand();
  if (when < 0.2) controller.abort(reason);
  else if (when < 0.5) queueMicrotask(() => controller.abort(reason));
  else setTimeout(() => controller.abort(reason), Math.floor(rand() * 4));
  try {
    if (rand() < 0.5) {
      await lock.lock({ signal: controller.signal });
      return true;
    }
    return await lock.tryLock(2_000, { signal: controller.signal });
  } catch (error) {
    if (error !== reason) throw error;
    tally.aborted++;
    return false;
  }
}

async function worker(client: Redisson, id: number, rand: () => number, tally: Tally, target: number, deadline: number): Promise<void> {
  while (tally.ops < target && tally.errors.length === 0) {
    if (performance.now() > deadline) throw new Error(`run deadline passed at ${tally.ops} of ${target} operations (machine overloaded?)`);
    const name = NAMES[Math.floor(rand() * NAMES.length)] as string;
    const lock = client.getLock(name); // a fresh object (and thread id) each time: nothing may pile up per object
    const r = rand();
    let got: boolean;
    if (r < 0.25) got = (await lock.lock(), true);
    else if (r < 0.35) got = (await lock.lock(5_000), true);
    else if (r < 0.55) got = await lock.tryLock(0);
    else if (r < 0.75) got = await lock.tryLock(Math.floor(rand() * 50), rand() < 0.5 ? -1 : 5_000);
    else got = await abortedWait(lock, rand, tally);
    tally.ops++;
    if (!got) {
      tally.refused++;
      continue;
    }
    tally.acquired++;
    if (holders.has(name)) tally.overlaps++;
    holders.set(name, id);
    await hold(rand);
    holders.delete(name);
    await lock.unlock();
    tally.ops++;
  }
}

async function runPhase(clients: Redisson[], seed: number, tally: Tally, ops: number, deadline: number): Promise<void> {
  const target = tally.ops + ops;
  const rand = random(seed);
  const workers = Promise.all(
    clients.flatMap((client, c) =>
      Array.from({ length: WORKERS_PER_CLIENT }, (_, w) =>
        worker(client, c * WORKERS_PER_CLIENT + w, random(Math.floor(rand() * 2 ** 32)), tally, target, deadline).catch((error: unknown) => {
          tally.errors.push(String(error));
        }),
      ),
    ),
  );
  // Stall guard: the phase ends (with an error) when no operation completed for STALL_MS.
  let timer: NodeJS.Timeout | undefined;
  const stalled = new Promise<void>((resolve) => {
    let seen = tally.ops;
    let since = performance.now();
    timer = setInterval(() => {
      if (tally.ops !== seen) [seen, since] = [tally.ops, performance.now()];
      else if (performance.now() - since > STALL_MS) {
        tally.errors.push(`stalled: no operation completed for ${STALL_MS} ms, at ${tally.ops} of ${target}`);
        resolve();
      }
    }, 250);
  });
  try {
    await Promise.race([workers, stalled]);
  } finally {
    clearInterval(timer);
  }
}

it(`${PHASES.reduce((a, b) => a + b)}+ mixed lock/tryLock/unlock/abort operations on ${CLIENTS} clients leave no timer, socket, channel, connection, key or heap growth`, async () => {
  const url = `redis://127.0.0.2:${suite.redis.port}`;
  const raw = new Redis(url);
  const tracker = new LibraryResourceTracker();
  try {
    const rawId = Number(await raw.call('CLIENT', 'ID'));
    await settledHeap(); // loads the GC helper before the baseline
    const baseline = activeResources();
    tracker.start();
    const clients = Array.from({ length: CLIENTS }, () => Redisson.create({ redis: url, lockWatchdogTimeout: 5_000 }));
    const tally: Tally = { ops: 0, acquired: 0, refused: 0, aborted: 0, overlaps: 0, errors: [] };
    const heap: number[] = [];
    const started = performance.now();
    try {
      for (const [i, ops] of PHASES.entries()) {
        await runPhase(clients, SEED + i, tally, ops, started + RUN_DEADLINE_MS);
        expect(tally.errors).toEqual([]);
        // Between phases nothing is held or waited for: no lock key, and the subscriptions are released.
        for (const name of NAMES) expect(await raw.exists(name)).toBe(0);
        await eventually(async () => ((await raw.call('PUBSUB', 'CHANNELS')) as string[]).length === 0, 5_000, 'channels to be unsubscribed');
        heap.push(await settledHeap());
      }
    } finally {
      await Promise.all(clients.map((c) => c.shutdown()));
    }
    // No timer of the library may be pending once shutdown has resolved. Checked first, before anything
    // waits: a leaked timer must not get the chance to fire and hide.
    await new Promise((resolve) => setImmediate(resolve));
    expect(tracker.leftByLibrary(['Timeout', 'Immediate'])).toEqual([]);

    expect(tally.ops).toBeGreaterThanOrEqual(20_000);
    expect(tally.overlaps).toBe(0);
    // The mix really exercised each path.
    expect(tally.acquired).toBeGreaterThan(5_000);
    expect(tally.refused).toBeGreaterThan(500);
    expect(tally.aborted).toBeGreaterThan(500);

    // Redis: no channel, only this test's connection, no key (no lock, no unlock latch).
    expect(await raw.call('PUBSUB', 'CHANNELS')).toEqual([]);
    await eventually(async () => String(await raw.call('CLIENT', 'LIST')).trim().split('\n').length === 1, 5_000, 'the clients to disconnect');
    expect(String(await raw.call('CLIENT', 'LIST'))).toMatch(new RegExp(`^id=${rawId} `));
    expect(await raw.dbsize()).toBe(0);

    // The process: sockets close within a few event-loop turns of shutdown; then nothing may be left.
    await eventually(() => !('TCPSocketWrap' in resourcesAbove(baseline)), 5_000, 'the sockets to close').catch(() => undefined);
    expect(resourcesAbove(baseline)).toEqual({});
    expect(tracker.leftByLibrary()).toEqual([]);

    // Heap: [after warm-up, after half 1, after half 2].
    const [, half1 = 0, half2 = 0] = heap;
    expect(half2 - half1, `heap after each phase: ${heap.map((h) => (h / 2 ** 20).toFixed(1)).join(' / ')} MiB`).toBeLessThan(HEAP_GROWTH_LIMIT);
  } finally {
    tracker.stop();
    raw.disconnect();
  }
});
