/**
 * RCountDownLatch's rule for the fault suite (see ../latchWorker.ts): every awaiter of round r is released
 * once r was counted down (within `graceMs`, or it is stuck), and none is released before the count reached
 * zero — unless a data loss wiped the latch (an absent latch counts as zero: a recorded, expected figure).
 */
import type { Fault, WorkerHistory } from '../history.js';

export interface LatchReport {
  readonly rounds: number;
  readonly awaits: number;
  readonly released: number;
  /** Awaits of a counted-down round not released within grace (by the run's end). */
  readonly stuck: number;
  /** Awaits released while their round was set and not yet counted down. */
  readonly early: number;
  /** Longest from a round's countdown to the release of an awaiter of it (ms). */
  readonly maxReleaseMs: number | null;
}

export function checkLatch(workers: readonly WorkerHistory[], faults: readonly Fault[], endT: number, graceMs = 2_000): LatchReport {
  const set = new Map<number, number>();
  const down = new Map<number, number>();
  for (const w of workers) {
    for (const e of w.events) {
      if (e.k === 'set') set.set(e.r, e.t);
      if (e.k === 'down') down.set(e.r, e.t);
    }
  }
  let awaits = 0;
  let released = 0;
  let stuck = 0;
  let early = 0;
  let maxReleaseMs: number | null = null;
  const losses = faults.filter((f) => f.dataLoss);
  for (const w of workers) {
    let waiting: { r: number; t: number } | null = null;
    const close = (to: number | null, openUntil = endT): void => {
      if (!waiting) return;
      const d = down.get(waiting.r);
      const s = set.get(waiting.r);
      if (to !== null) {
        released++;
        // Released before zero: the round was set before the wait began and counted down only after the
        // release (a data loss in between wiped the latch: not counted).
        const wiped = losses.some((f) => f.t >= waiting!.t && f.t <= to);
        if (s !== undefined && s < waiting.t && (d === undefined || d > to) && !wiped) early++;
        if (d !== undefined && to > d) maxReleaseMs = Math.max(maxReleaseMs ?? 0, to - d);
        if (d !== undefined && to - Math.max(d, waiting.t) > graceMs) stuck++;
      } else if (d !== undefined && openUntil - Math.max(d, waiting.t) > graceMs) {
        stuck++;
      }
      waiting = null;
    };
    for (const e of w.events) {
      if (e.k === 'wait' && e.r !== undefined) {
        awaits++;
        waiting = { r: e.r, t: e.t };
      } else if (e.k === 'acq') close(e.t);
      else if (e.k === 'lockErr') waiting = null;
      else if (e.k === 'exit' || e.k === 'dead') close(null, e.t);
    }
    close(null);
  }
  return { rounds: down.size, awaits, released, stuck, early, maxReleaseMs };
}
