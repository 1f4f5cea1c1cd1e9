/**
 * Handoff: the time from the holder's `release()` call to the waiter's `acquire()` resolving, holder and
 * waiter in two different worker processes. Both timestamps come from the host-wide monotonic clock
 * (`process.hrtime`, CLOCK_MONOTONIC on Linux), which every process on the machine shares, so they can
 * be subtracted; a clock check at the start verifies that with the pipe round trip.
 *
 * One sample (on a fresh lock): process H takes the lock; process W starts waiting; after a settle time (so that W is
 * parked, not mid-attempt) H releases. Roles alternate between the two processes every sample.
 *
 * The same samples with holder and waiter in one process, on one client (`local`): the release's message
 * comes back to the releasing client's own subscriber, so this is the handoff floor without a process hop.
 */
import type { ImplName, Kind } from '../adapters/index.js';
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
  /** Holder and waiter in the same process and client (Node implementations only). */
  readonly local: Partial<Record<ImplName, HandoffRow>>;
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

let lastToken = 0;

/** The `acquired` event for `id` from `waiter`. */
function nextEvent(waiter: WorkerProcess, id: number): Promise<WorkerEvent> {
  return new Promise<WorkerEvent>((resolve) => {
    const off = waiter.onEvent((e) => {
      if (e.event === 'acquired' && e['token'] === id) {
        off();
        resolve(e);
      }
    });
  });
}

/** One handoff sample between the two workers. */
export interface HandoffSpec {
  readonly impl: ImplName;
  /** A fresh name per sample: a waiter that missed its wake-up cannot disturb the next sample. */
  readonly name: string;
  readonly kind?: Kind;
  /** What the waiter waits with, when not `kind` (a reader behind a writer). */
  readonly waitKind?: Kind;
  /** Swap the roles: worker 1 holds, worker 0 waits. */
  readonly flip: boolean;
  /** Holder and waiter in the same worker (the one `flip` picks as holder). */
  readonly sameProcess?: boolean;
  readonly timeoutMs: number;
}

/**
 * Worker H takes `name`, worker W starts waiting on it, and after a settle time H releases: µs from the
 * release call to W's acquire resolving, or null when W was not woken within `timeoutMs`.
 */
export async function handoffSample(ctx: BenchContext, spec: HandoffSpec): Promise<number | null> {
  const [holder, other] = spec.flip ? [ctx.workers[1], ctx.workers[0]] : ctx.workers;
  const waiter = spec.sameProcess ? holder : other;
  // The Java waiter's call crosses a pipe and a JVM thread hand-off before it subscribes.
  const settleMs = spec.impl === 'java-redisson' ? 40 : SETTLE_MS;
  const args = { impl: spec.impl, url: ctx.url, name: spec.name, kind: spec.kind ?? 'lock' };
  await holder.call('hold', args);
  const id = ++lastToken;
  const acquired = nextEvent(waiter, id);
  await waiter.call('wait', { ...args, kind: spec.waitKind ?? args.kind, token: id });
  await sleep(settleMs);
  const { t: releasedAt } = await holder.call<{ t: number }>('release', args);
  let timer: NodeJS.Timeout | undefined;
  const e = await Promise.race([acquired, new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), spec.timeoutMs)))]);
  clearTimeout(timer);
  if (e === null) return null;
  if (typeof e['error'] === 'string') throw new Error(`${spec.impl} ${spec.kind ?? 'lock'} waiter failed: ${e['error']}`);
  return (e['t'] as number) - releasedAt;
}

/** Samples per implementation and how many of them timed out, for one kind of handoff. */
class Collected {
  readonly samples = new Map<ImplName, number[]>();
  readonly timeouts = new Map<ImplName, number>();

  rows(): Partial<Record<ImplName, HandoffRow>> {
    const rows: Partial<Record<ImplName, HandoffRow>> = {};
    for (const [impl, s] of this.samples) {
      const missed = this.timeouts.get(impl);
      rows[impl] = { ...summarize(s), samples: s, ...(missed === undefined ? {} : { timeouts: missed }) };
    }
    return rows;
  }
}

/** Rounds, samples per round (at most, within the round's budget) and a waiter's timeout (also the in-JVM run's). */
export function handoffCounts(quick: boolean): { rounds: number; perRound: number; budgetMs: number; sampleTimeoutMs: number } {
  return quick ? { rounds: 2, perRound: 20, budgetMs: 1_200, sampleTimeoutMs: 1_000 } : { rounds: 3, perRound: 70, budgetMs: 5_000, sampleTimeoutMs: 3_000 };
}

export async function runHandoff(ctx: BenchContext): Promise<HandoffResult> {
  const { rounds, perRound, budgetMs, sampleTimeoutMs } = handoffCounts(ctx.quick);
  const clockCheckUs = await clockCheck(ctx);
  const between = new Collected();
  const within = new Collected();
  const relay: number[] = [];
  const idlePing: number[] = [];

  /** One round of `impl`'s samples (at most `perRound`, within `budgetMs`), between processes or within one. */
  const sampleRound = async (impl: ImplName, r: number, into: Collected, sameProcess: boolean): Promise<void> => {
    const base = `bench:handoff${sameProcess ? '-local' : ''}:${impl}:${r}:`;
    const out = into.samples.get(impl) ?? into.samples.set(impl, []).get(impl) ?? [];
    const started = performance.now();
    for (let i = 0; i < perRound && performance.now() - started < budgetMs; i++) {
      ctx.progress.update(`handoff${sameProcess ? ' in one process' : ''}: round ${r + 1}/${rounds} · ${impl} · sample ${i + 1}`);
      const us = await handoffSample(ctx, { impl, name: `${base}${i}`, flip: i % 2 === 1, sameProcess, timeoutMs: sampleTimeoutMs });
      if (us === null) into.timeouts.set(impl, (into.timeouts.get(impl) ?? 0) + 1);
      out.push(us ?? sampleTimeoutMs * 1_000);
    }
  };

  for (let r = 0; r < rounds; r++) {
    ctx.progress.update(`handoff: round ${r + 1}/${rounds} · raw pub/sub relay`);
    for (let i = 0; i < perRound; i++) {
      const [holder, waiter] = i % 2 === 0 ? ctx.workers : [ctx.workers[1], ctx.workers[0]];
      const id = ++lastToken;
      const arrived = nextEvent(waiter, id);
      await waiter.call('relayWait', { url: ctx.url, channel: 'bench:relay', token: id });
      await sleep(SETTLE_MS);
      const { t } = await holder.call<{ t: number }>('relayRelease', { url: ctx.url, channel: 'bench:relay', token: id });
      relay.push(((await arrived)['t'] as number) - t);
      if (i < 20) idlePing.push(await holder.call<number>('idlePing', { url: ctx.url, idleMs: SETTLE_MS }));
    }
    for (const impl of rotate(ctx.impls, r)) await sampleRound(impl, r, between, false);
    for (const impl of rotate(ctx.impls, r).filter((i) => i !== 'java-redisson')) await sampleRound(impl, r, within, true);
  }
  return {
    rows: between.rows(),
    local: within.rows(),
    clockCheckUs,
    relay: { ...summarize(relay), samples: relay },
    idlePing: summarize(idlePing),
  };
}
