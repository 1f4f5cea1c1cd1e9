/**
 * Handoff: the time from the holder's `release()` call to the waiter's `acquire()` resolving, holder and
 * waiter in two different worker processes. Both timestamps come from the host-wide monotonic clock
 * (`process.hrtime`, CLOCK_MONOTONIC on Linux), which every process on the machine shares, so they can
 * be subtracted; a clock check at the start verifies that with the pipe round trip.
 *
 * One sample (on a fresh lock): process H takes the lock; process W starts waiting; after a settle time (so that W is
 * parked, not mid-attempt) H releases. Roles alternate between the two processes every sample.
 */
import type { ImplName } from '../adapters/index.js';
import { rotate, type BenchContext } from '../context.js';
import type { WorkerEvent, WorkerProcess } from '../rpc.js';
import { nowUs, sleep, summarize, type Summary } from '../stats.js';

/** How long the waiter is left to park before the holder releases. */
const SETTLE_MS = 10;

export type HandoffRow = Summary & {
  samples: number[];
  /**
   * Waiters not woken within the sample timeout (a lost wake-up: they would wait out the holder's lease).
   * Their samples are recorded as the timeout, a lower bound.
   */
  timeouts?: number;
};

export interface HandoffResult {
  readonly rows: Partial<Record<ImplName, HandoffRow>>;
  /**
   * Floors measured with the same protocol: a raw PUBLISH in one process to the message arriving in the
   * other (what any pub/sub wake-up costs), and a PING sent after the same idle time.
   */
  readonly relay: HandoffRow;
  readonly idlePing: Summary;
  /** Worst disagreement (µs) found between a worker's clock and the parent's send/receive window. */
  readonly clockCheckUs: number;
}

/** Verifies that a worker's timestamp falls inside the parent's send → reply window. */
async function clockCheck(ctx: BenchContext): Promise<number> {
  let worst = 0;
  for (const w of ctx.workers) {
    for (let i = 0; i < 20; i++) {
      const t0 = nowUs();
      const { t } = await w.call<{ t: number }>('ping');
      const t1 = nowUs();
      worst = Math.max(worst, t0 - t, t - t1);
    }
  }
  return worst;
}

export async function runHandoff(ctx: BenchContext): Promise<HandoffResult> {
  const rounds = ctx.quick ? 2 : 3;
  const perRound = ctx.quick ? 20 : 70;
  const budgetMs = ctx.quick ? 1_200 : 5_000;
  const clockCheckUs = await clockCheck(ctx);
  const sampleTimeoutMs = ctx.quick ? 1_000 : 3_000;
  const timeouts = new Map<ImplName, number>();
  const samples = new Map<ImplName, number[]>();
  const relay: number[] = [];
  const idlePing: number[] = [];
  let token = 0;
  const nextEvent = (waiter: WorkerProcess, id: number): Promise<WorkerEvent> =>
    new Promise<WorkerEvent>((resolve) => {
      const off = waiter.onEvent((e) => {
        if (e.event === 'acquired' && e['token'] === id) {
          off();
          resolve(e);
        }
      });
    });

  for (let r = 0; r < rounds; r++) {
    ctx.progress.update(`handoff: round ${r + 1}/${rounds} · raw pub/sub relay`);
    for (let i = 0; i < perRound; i++) {
      const [holder, waiter] = i % 2 === 0 ? ctx.workers : [ctx.workers[1], ctx.workers[0]];
      const id = ++token;
      const arrived = nextEvent(waiter, id);
      await waiter.call('relayWait', { url: ctx.url, channel: 'bench:relay', token: id });
      await sleep(SETTLE_MS);
      const { t } = await holder.call<{ t: number }>('relayRelease', { url: ctx.url, channel: 'bench:relay', token: id });
      relay.push(((await arrived)['t'] as number) - t);
      if (i < 20) idlePing.push(await holder.call<number>('idlePing', { url: ctx.url, idleMs: SETTLE_MS }));
    }
    for (const impl of rotate(ctx.impls, r)) {
      const base = `bench:handoff:${impl}:${r}:`;
      // The Java waiter's lock() crosses a pipe and a JVM thread hand-off before it subscribes.
      const settleMs = impl === 'java-redisson' ? 40 : SETTLE_MS;
      const out = samples.get(impl) ?? samples.set(impl, []).get(impl) ?? [];
      const started = performance.now();
      for (let i = 0; i < perRound && performance.now() - started < budgetMs; i++) {
        ctx.progress.update(`handoff: round ${r + 1}/${rounds} · ${impl} · sample ${i + 1}`);
        const [holder, waiter] = i % 2 === 0 ? ctx.workers : [ctx.workers[1], ctx.workers[0]];
        // A fresh lock per sample: a waiter that missed its wake-up cannot disturb the next sample.
        const args = { impl, url: ctx.url, name: `${base}${i}` };
        await holder.call('hold', args);
        const id = ++token;
        const acquired = nextEvent(waiter, id);
        await waiter.call('wait', { ...args, token: id });
        await sleep(settleMs);
        const { t: releasedAt } = await holder.call<{ t: number }>('release', args);
        let timer: NodeJS.Timeout | undefined;
        const e = await Promise.race([acquired, new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), sampleTimeoutMs)))]);
        clearTimeout(timer);
        if (e === null) {
          timeouts.set(impl, (timeouts.get(impl) ?? 0) + 1);
          out.push(sampleTimeoutMs * 1_000);
          continue;
        }
        if (typeof e['error'] === 'string') throw new Error(`${impl} waiter failed: ${e['error']}`);
        out.push((e['t'] as number) - releasedAt);
      }
    }
  }
  const rows: HandoffResult['rows'] = {};
  for (const [impl, s] of samples) {
    const missed = timeouts.get(impl);
    rows[impl] = { ...summarize(s), samples: s, ...(missed === undefined ? {} : { timeouts: missed }) };
  }
  return { rows, clockCheckUs, relay: { ...summarize(relay), samples: relay }, idlePing: summarize(idlePing) };
}
