/**
 * Many waiters: a holder process takes 1 000 locks; a fresh process starts 10 000 waiters on them
 * (10 per lock). While they wait: its connections, how many of them subscribe and to how many channels,
 * and its heap. Then the holder releases everything, every waiter must get its lock and release it, and
 * the waiting process must be left with no more timers or Redis subscriptions than before.
 */
import type { ImplName } from '../adapters/index.js';
import type { BenchContext } from '../context.js';
import { clientList, newClients } from '../redisInfo.js';
import { WorkerProcess } from '../rpc.js';
import { sleep } from '../stats.js';
import { MANY_WATCHDOG_MS } from './manyLocks.js';

const SCENARIO = 'many waiters';
export const WAITERS = 10_000;
export const WAITED_LOCKS = 1_000;
// Heap growth between two polls (100 ms apart) under which the waiters count as parked: 26 B per waiter.
const HEAP_SETTLED_BYTES = 256 * 1024;

export interface ManyWaitersRow {
  readonly waiters: number;
  readonly locks: number;
  /** Connections the waiting process opened. */
  readonly connections: number;
  /** Of those, connections with at least one channel subscription. */
  readonly subscriberConnections: number;
  /** Channel subscriptions held while waiting (sum over its connections). */
  readonly subscriptions: number;
  readonly heapBytes: number;
  readonly finished: boolean;
  readonly drainMs: number;
  readonly errors: number;
  readonly firstError?: string;
  /** Ref'd timers left after every waiter finished, compared with before they started. */
  readonly timersLeft: number;
  /** Channel subscriptions left after every waiter finished. */
  readonly subscriptionsLeft: number;
  /** Heap (bytes) left after every waiter finished, compared with before they started. */
  readonly heapLeftBytes: number;
}

export type ManyWaitersResult = Partial<Record<ImplName, ManyWaitersRow>>;

interface Memory {
  heap: number;
  timers: number;
}

const subs = (cs: readonly { sub: number; psub: number }[]): number => cs.reduce((a, c) => a + c.sub + c.psub, 0);

export async function runManyWaiters(ctx: BenchContext, impls: readonly ImplName[]): Promise<ManyWaitersResult> {
  const drainTimeoutMs = ctx.quick ? 4_000 : 20_000;
  const result: ManyWaitersResult = {};
  const holder = ctx.workers[0];
  for (const impl of impls) {
    const prefix = `bench:waiters:${impl}:`;
    const args = { impl, url: ctx.url, watchdogMs: MANY_WATCHDOG_MS };
    ctx.progress.update(`many waiters: ${impl} · holder takes ${WAITED_LOCKS} locks`);
    await holder.call('holdMany', { ...args, n: WAITED_LOCKS, prefix });
    const worker = await WorkerProcess.start(`many-waiters-${impl}`);
    let released = false;
    try {
      const before = await clientList(ctx.admin);
      await worker.call('open', args);
      const m0 = await worker.call<Memory>('memory');
      ctx.progress.update(`many waiters: ${impl} · starting ${WAITERS} waiters`);
      await worker.call('waitMany', { ...args, waiters: WAITERS, locks: WAITED_LOCKS, prefix });
      // Let them park: subscriptions (pollers have none) and the heap after GC stable for three polls, at most
      // 50 polls. Subscriptions alone are not enough: they stay at 0 while 10 000 first attempts are still in
      // flight (the subscriber connection is not even open yet), and the heap then measured is those attempts'.
      let last = -1;
      let lastHeap = -Infinity;
      let stable = 0;
      for (let i = 0; i < 50 && stable < 3; i++) {
        await sleep(100);
        const n = subs(newClients(before, await clientList(ctx.admin)));
        const { heap } = await worker.call<Memory>('memory');
        stable = n === last && Math.abs(heap - lastHeap) < HEAP_SETTLED_BYTES ? stable + 1 : 0;
        last = n;
        lastHeap = heap;
      }
      const m1 = await worker.call<Memory>('memory');
      const waiting = newClients(before, await clientList(ctx.admin));
      ctx.progress.update(`many waiters: ${impl} · releasing; waiting for ${WAITERS} acquisitions`);
      released = true;
      await holder.call('releaseMany');
      const done = await worker.call<{ finished: boolean; ms: number; errors: string[]; errorCount: number }>('waitersDone', {
        timeoutMs: drainTimeoutMs,
      });
      await sleep(200);
      const m2 = await worker.call<Memory>('memory');
      const after = newClients(before, await clientList(ctx.admin));
      result[impl] = {
        waiters: WAITERS,
        locks: WAITED_LOCKS,
        connections: waiting.length,
        subscriberConnections: waiting.filter((c) => c.sub + c.psub > 0).length,
        subscriptions: subs(waiting),
        heapBytes: m1.heap - m0.heap,
        finished: done.finished,
        drainMs: done.ms,
        errors: done.errorCount,
        ...(done.errors[0] === undefined ? {} : { firstError: done.errors[0].split('\n')[0] ?? '' }),
        timersLeft: m2.timers - m0.timers,
        subscriptionsLeft: subs(after),
        heapLeftBytes: m2.heap - m0.heap,
      };
    } catch (error) {
      ctx.failures.push(`${SCENARIO}: ${impl}: ${error instanceof Error ? error.message : String(error)}`);
    } finally {
      await worker.stop();
      if (!released) await holder.call('releaseMany').catch(() => undefined);
    }
  }
  return result;
}
