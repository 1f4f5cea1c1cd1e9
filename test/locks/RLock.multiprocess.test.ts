/**
 * RLock across OS processes (Redisson's `testConcurrency_MultiInstance`, with real processes instead of
 * several clients in one JVM), and the thread identity of concurrent async flows inside one process.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { forkCounter, killWorkers } from '../fixtures/processes.js';
import { Clients, startRedis, uniqueName, type TestRedis } from '../support/redis.js';

let redis: TestRedis;
let clients: Clients;

beforeAll(async () => {
  redis = await startRedis();
  clients = new Clients(redis.url);
});

afterEach(async () => {
  await killWorkers();
});

afterAll(async () => {
  await killWorkers();
  await clients.closeAll();
  await redis.stop();
});

/** A promise with its resolver, for ordering two flows step by step. */
function gate(): { readonly promise: Promise<void>; readonly open: () => void } {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}

describe('RLock across processes', () => {
  it.each([
    { title: 'testConcurrency_MultiProcess: 3 processes × 2 clients × 2 workers (an object each)', CLIENTS: 2, WORKERS: 2, sharedObject: false },
    // Issue 9's shared-object pattern across processes: in each process one object, five concurrent flows.
    { title: 'one shared RLock object per process, 5 concurrent flows on it, 3 processes', CLIENTS: 1, WORKERS: 5, sharedObject: true },
  ])('$title: never overlap and lose no increment', async ({ CLIENTS, WORKERS, sharedObject }) => {
    const PROCESSES = 3;
    const ITERATIONS = sharedObject ? 15 : 25;
    const total = PROCESSES * CLIENTS * WORKERS * ITERATIONS;
    const name = uniqueName();
    const counterKey = `${name}:counter`;
    const logKey = `${name}:log`;
    const raw = clients.raw();

    const workers = Array.from({ length: PROCESSES }, () =>
      forkCounter({
        url: redis.url,
        name,
        counterKey,
        logKey,
        clients: CLIENTS,
        workers: WORKERS,
        iterations: ITERATIONS,
        sharedObject,
        // Long enough that a loaded machine never loses a lease; releases publish, so it costs nothing.
        lockWatchdogTimeout: 5_000,
      }),
    );
    // Start together, so that all twelve workers contend from the first iteration.
    await Promise.all(workers.map((w) => w.next('ready', 60_000)));
    for (const w of workers) w.send({ type: 'go' });
    await Promise.all(workers.map((w) => w.next('done', 120_000)));
    const exits = await Promise.all(workers.map((w) => w.exited));
    expect(exits.map((e) => e.code)).toEqual(Array(PROCESSES).fill(0));

    expect(await raw.get(counterKey)).toBe(String(total));
    const log = await raw.lrange(logKey, 0, -1);
    expect(log).toHaveLength(total * 2);
    // Strict alternation enter:X, exit:X: no critical section ever started inside another one.
    for (let i = 0; i < log.length; i += 2) {
      expect(log[i]).toMatch(/^enter:/);
      expect(log[i + 1]).toBe(String(log[i]).replace(/^enter:/, 'exit:'));
    }
    // Every process, client and worker took part, each exactly ITERATIONS times.
    const perWorker = new Map<string, number>();
    for (const entry of log.filter((e) => e.startsWith('enter:'))) {
      const owner = entry.split(':').slice(1, 4).join(':');
      perWorker.set(owner, (perWorker.get(owner) ?? 0) + 1);
    }
    expect(perWorker.size).toBe(PROCESSES * CLIENTS * WORKERS);
    expect([...perWorker.values()]).toEqual(Array(perWorker.size).fill(ITERATIONS));
    expect(new Set(workers.map((w) => w.pid)).size).toBe(PROCESSES);
    for (const pid of workers.map((w) => w.pid)) {
      expect([...perWorker.keys()].filter((k) => k.startsWith(`${pid}:`))).toHaveLength(CLIENTS * WORKERS);
    }
    expect(await raw.exists(name)).toBe(0);
  });

  it('testThreadIdentity: two async flows of one client exclude each other; runInThread makes nested getLock re-enter', async () => {
    const client = clients.client({ lockWatchdogTimeout: 1_000 });
    const raw = clients.raw();
    const name = uniqueName();

    // Two independent flows, each with its own getLock(name) on the same client.
    const firstHolds = gate();
    const secondChecked = gate();
    const first = (async () => {
      const lock = client.getLock(name);
      await lock.lock();
      try {
        firstHolds.open();
        await secondChecked.promise;
        return await raw.hgetall(name);
      } finally {
        await lock.unlock();
      }
    })();
    const second = (async () => {
      await firstHolds.promise;
      const lock = client.getLock(name);
      try {
        return {
          tryLock: await lock.tryLock(),
          heldByMe: await lock.isHeldByCurrentThread(),
          holdCount: await lock.getHoldCount(),
        };
      } finally {
        secondChecked.open();
      }
    })();
    const [fieldsWhileFirstHeld, seenBySecond] = await Promise.all([first, second]);
    expect(seenBySecond).toEqual({ tryLock: false, heldByMe: false, holdCount: 0 });
    expect(Object.values(fieldsWhileFirstHeld)).toEqual(['1']);
    expect(await raw.exists(name)).toBe(0);

    // Inside one runInThread flow every getLock(name) is the same owner: nested code re-enters.
    const inThread = await client.runInThread(async () => {
      const threadId = client.currentThreadId();
      const outer = client.getLock(name);
      await outer.lock();
      const nested = async (): Promise<number> => {
        const inner = client.getLock(name);
        await inner.lock();
        return inner.getHoldCount();
      };
      const holdCount = await nested();
      const fields = await raw.hgetall(name);
      // Another flow (its own runInThread) is a different owner and is excluded.
      const otherFlow = await client.runInThread(() => client.getLock(name).tryLock());
      await client.getLock(name).unlock();
      const afterOne = await outer.getHoldCount();
      await outer.unlock();
      return { threadId, holdCount, fields, otherFlow, afterOne };
    });
    expect(inThread.threadId).toBeTypeOf('number');
    expect(inThread.holdCount).toBe(2);
    expect(inThread.fields).toEqual({ [`${client.id}:${inThread.threadId}`]: '2' });
    expect(inThread.otherFlow).toBe(false);
    expect(inThread.afterOne).toBe(1);
    expect(await raw.exists(name)).toBe(0);
  });
});
