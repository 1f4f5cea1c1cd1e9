/**
 * Unit tests of the fault suite's history checker on synthetic histories: each figure it reports is
 * shown to fire on the shape it names and to stay quiet on the look-alike that is not a defect.
 */
import { describe, expect, it } from 'vitest';
import { checkHistory, type CheckInput, type HistoryEvent, type WorkerHistory } from './history.js';
import { eventsOfFlow } from './historyParts.js';

interface CycleSpec {
  /** lock() called */
  readonly wait: number;
  /** lock() resolved */
  readonly acq: number;
  /** hold ends (unlock called) */
  readonly end: number;
  /** counter value read; omit for a section whose write was not confirmed */
  readonly r?: number;
  /** unlock result: true, or the error label */
  readonly rel?: true | string;
}

/** The events of one lock → GET → SET → unlock cycle, as historyWorker logs them. */
function cycle(c: CycleSpec): HistoryEvent[] {
  const events: HistoryEvent[] = [
    { k: 'wait', t: c.wait },
    { k: 'acq', t: c.acq },
  ];
  if (c.r !== undefined) events.push({ k: 'cs', t: c.end, r: c.r, w: c.r + 1 });
  events.push({ k: 'end', t: c.end });
  const rel = c.rel ?? true;
  events.push(rel === true ? { k: 'rel', t: c.end + 1, ok: true } : { k: 'rel', t: c.end + 1, ok: false, err: rel });
  return events;
}

/** Workers taking turns: each cycle waits from the previous release and holds 5 ms; reads 0, 1, 2, … */
function serial(ids: readonly string[], rounds: number, from = 0): WorkerHistory[] {
  const events = new Map(ids.map((id) => [id, [] as HistoryEvent[]]));
  let t = from;
  for (let i = 0; i < rounds * ids.length; i++) {
    const id = ids[i % ids.length] as string;
    events.get(id)?.push(...cycle({ wait: t - 3, acq: t, end: t + 5, r: i }));
    t += 10;
  }
  return ids.map((id) => ({ id, events: events.get(id) ?? [], full: true }));
}

function input(workers: WorkerHistory[], extra: Partial<CheckInput> = {}): CheckInput {
  const last = Math.max(0, ...workers.flatMap((w) => w.events.map((e) => e.t)));
  return { workers, faults: [], leaseMs: 1_000, endT: last + 10, finalCounter: null, ...extra };
}

describe('checkHistory', () => {
  it('a serial history: no overlap, no lost increment, counter consistent, holds per worker', () => {
    const workers = serial(['a', 'b', 'c'], 10);
    const report = checkHistory(input(workers, { finalCounter: 30 }));
    expect(report).toMatchObject({
      ops: 30,
      holds: 30,
      overlaps: [],
      unflaggedOverlaps: 0,
      lostIncrements: 0,
      counter: { final: 30, confirmed: 30, uncertain: 0, consistent: true },
      stuckWaiters: [],
      holdsPerWorker: { a: 10, b: 10, c: 10 },
      minHolds: 10,
      maxHolds: 10,
      errors: { lock: {}, cs: {}, unlock: {} },
    });
    // Each waiter saw the lock free for at most the 5 ms between a release and the next acquisition.
    expect(report.maxFreeWaitMs).toBeLessThanOrEqual(5);
  });

  it('two holds at once are an overlap; a disagreement within the clock tolerance is not', () => {
    const overlapping = [
      { id: 'a', events: cycle({ wait: 0, acq: 10, end: 30, r: 0 }), full: true },
      { id: 'b', events: cycle({ wait: 0, acq: 25, end: 40, r: 1 }), full: true },
    ];
    const report = checkHistory(input(overlapping, { finalCounter: 2 }));
    expect(report.overlaps).toEqual([{ a: 'a', b: 'b', at: 25, ms: 5, flagged: false }]);
    expect(report.unflaggedOverlaps).toBe(1);

    const touching = [
      { id: 'a', events: cycle({ wait: 0, acq: 10, end: 30, r: 0 }), full: true },
      { id: 'b', events: cycle({ wait: 0, acq: 29.5, end: 40, r: 1 }), full: true },
    ];
    expect(checkHistory(input(touching, { finalCounter: 2 })).overlaps).toEqual([]);
    expect(checkHistory(input(touching, { finalCounter: 2, toleranceMs: 0.1 })).overlaps).toHaveLength(1);
  });

  it('an overlap is flagged when a holder was told: a failed unlock, or lockLost (even after its unlock)', () => {
    const viaUnlock = [
      { id: 'a', events: cycle({ wait: 0, acq: 10, end: 30, r: 0, rel: 'LockLostError' }), full: true },
      { id: 'b', events: cycle({ wait: 0, acq: 20, end: 40, r: 0 }), full: true },
    ];
    const first = checkHistory(input(viaUnlock));
    expect(first.overlaps).toMatchObject([{ flagged: true }]);
    expect(first.unflaggedOverlaps).toBe(0);
    expect(first.errors.unlock).toEqual({ LockLostError: 1 });

    const lateEvent = [
      { id: 'a', events: [...cycle({ wait: 0, acq: 10, end: 30, r: 0 }), { k: 'lost', t: 50 } as const], full: true },
      { id: 'b', events: cycle({ wait: 0, acq: 20, end: 40, r: 0 }), full: true },
    ];
    const second = checkHistory(input(lateEvent));
    expect(second.overlaps).toMatchObject([{ flagged: true }]);
    expect(second.lockLostEvents).toBe(1);
  });

  it('lost increments: two confirmed sections that read the same value, and a stale write that rewinds the counter', () => {
    const sameRead = [
      { id: 'a', events: cycle({ wait: 0, acq: 10, end: 30, r: 5 }), full: true },
      { id: 'b', events: cycle({ wait: 0, acq: 20, end: 40, r: 5 }), full: true },
    ];
    expect(checkHistory(input(sameRead, { finalCounter: 6 })).lostIncrements).toBe(1);

    // a reads 0 and stalls; b and c count 0 → 3 meanwhile; a writes 1; b, c go on from 1.
    const rewind = [
      { id: 'a', events: cycle({ wait: 0, acq: 1, end: 100, r: 0 }), full: true },
      { id: 'b', events: [...cycle({ wait: 5, acq: 10, end: 15, r: 0 }), ...cycle({ wait: 30, acq: 30, end: 35, r: 2 }), ...cycle({ wait: 110, acq: 110, end: 115, r: 1 })], full: true },
      { id: 'c', events: [...cycle({ wait: 5, acq: 20, end: 25, r: 1 }), ...cycle({ wait: 40, acq: 40, end: 45, r: 3 }), ...cycle({ wait: 110, acq: 120, end: 125, r: 2 })], full: true },
    ];
    const report = checkHistory(input(rewind, { finalCounter: 3 }));
    expect(report.lostIncrements).toBe(4); // 7 confirmed sections, the counter shows 3
    expect(report.counter).toEqual({ final: 3, confirmed: 7, uncertain: 0, consistent: false });
  });

  it('a killed holder may or may not have written: the counter is consistent either way, not beyond', () => {
    const workers = [
      ...serial(['a', 'b'], 5),
      // c acquired, then died before its write was confirmed
      { id: 'c', events: [{ k: 'wait', t: 200 }, { k: 'acq', t: 200 }, { k: 'dead', t: 203 }] as HistoryEvent[], full: false },
    ];
    expect(checkHistory(input(workers, { finalCounter: 10 })).counter).toEqual({ final: 10, confirmed: 10, uncertain: 1, consistent: true });
    expect(checkHistory(input(workers, { finalCounter: 11 })).counter.consistent).toBe(true);
    expect(checkHistory(input(workers, { finalCounter: 12 })).counter.consistent).toBe(false);
    expect(checkHistory(input(workers, { finalCounter: 9 })).lostIncrements).toBe(1);
    // The dead worker is not one of the "full" workers of min/max holds.
    expect(checkHistory(input(workers, { finalCounter: 10 })).minHolds).toBe(5);
  });

  it('a data loss starts the counter anew: reads repeat across it without counting as lost', () => {
    const workers = [...serial(['a', 'b'], 5), ...serial(['c'], 3, 1_000)];
    const dataLoss = { kind: 'restart', t: 500, until: 600, blackout: true, dataLoss: true };
    const report = checkHistory(input(workers, { finalCounter: 3, faults: [dataLoss] }));
    expect(report.lostIncrements).toBe(0);
    expect(report.counter).toEqual({ final: 3, confirmed: 3, uncertain: 0, consistent: null });
    // Without the fault the same reads are duplicates, and 13 confirmed sections left a counter of 3.
    expect(checkHistory(input(workers, { finalCounter: 3 })).lostIncrements).toBe(10);
  });

  it("a process's exit ends every flow's wait: a flow aborted at the window's end is no stuck waiter, however late the run ends", () => {
    // One process, two flows: flow 0 holds and releases; flow 1 starts a wait just before the window's end and is
    // aborted there without a line of its own; the process exits at 150. The run ends at 12 000 (a late worker).
    const events: HistoryEvent[] = [
      { k: 'wait', t: 0, f: 0 },
      { k: 'acq', t: 1, f: 0 },
      { k: 'cs', t: 2, f: 0, r: 0, w: 1 },
      { k: 'end', t: 3, f: 0 },
      { k: 'rel', t: 4, f: 0, ok: true },
      { k: 'wait', t: 100, f: 1 },
      { k: 'exit', t: 150 },
    ];
    expect(eventsOfFlow(events, 1)).toEqual([events[5], events[6]]);
    const workers: WorkerHistory[] = [0, 1].map((f) => ({ id: `p.${f}`, events: eventsOfFlow(events, f), full: true }));
    const report = checkHistory(input(workers, { finalCounter: 1, endT: 12_000 }));
    expect(report.stuckWaiters).toEqual([]);
    // What the suite saw before: the exit given to flow 0 only, flow 1's wait running on to the run's end.
    const before: WorkerHistory[] = [0, 1].map((f) => ({ id: `p.${f}`, events: events.filter((e) => (e.f ?? 0) === f), full: true }));
    expect(checkHistory(input(before, { finalCounter: 1, endT: 12_000 })).stuckWaiters).toHaveLength(1);
  });

  it('a waiter that sees the lock free for longer than lease + grace is stuck', () => {
    const workers = [
      { id: 'a', events: cycle({ wait: 0, acq: 0, end: 100, r: 0 }), full: true },
      // b waits from 50 to 5 000 though the lock is free from 101
      { id: 'b', events: cycle({ wait: 50, acq: 5_000, end: 5_005, r: 1 }), full: true },
    ];
    const report = checkHistory(input(workers, { finalCounter: 2 }));
    expect(report.stuckWaiters).toEqual([{ worker: 'b', from: 50, to: 5_000, freeMs: 4_899 }]);
    expect(report.maxFreeWaitMs).toBe(4_899);
    // With a longer lease the same wait is within lease + grace.
    expect(checkHistory(input(workers, { finalCounter: 2, leaseMs: 3_000 })).stuckWaiters).toEqual([]);
  });

  it('not stuck: a dead holder\'s lease, an unlock that failed, and a fault during which Redis served nobody', () => {
    const dead = [
      { id: 'a', events: [{ k: 'wait', t: 0 }, { k: 'acq', t: 0 }, { k: 'dead', t: 100 }] as HistoryEvent[], full: false },
      { id: 'b', events: cycle({ wait: 50, acq: 1_090, end: 1_100, r: 0 }), full: true },
    ];
    const first = checkHistory(input(dead, { finalCounter: 1 }));
    expect(first.stuckWaiters).toEqual([]);
    expect(first.maxFreeWaitMs).toBe(0); // the lease the dead holder left covers the whole wait

    const failedUnlock = [
      { id: 'a', events: cycle({ wait: 0, acq: 0, end: 100, r: 0, rel: 'ConnectionLostError' }), full: true },
      { id: 'b', events: cycle({ wait: 50, acq: 2_500, end: 2_505, r: 1 }), full: true },
    ];
    const paused = { kind: 'CLIENT PAUSE', t: 1_101, until: 2_400, blackout: true };
    const second = checkHistory(input(failedUnlock, { finalCounter: 2, graceMs: 0, faults: [paused] }));
    expect(second.stuckWaiters).toEqual([]);
    expect(second.maxFreeWaitMs).toBe(100); // only 2 400 → 2 500 was free
  });

  it('a hold left behind after a lost acquire reply starves the others: stuck, although the hog keeps cycling', () => {
    // The issue-8 defect 2 shape: a's lock() failed with ConnectionLostError but its hold stayed in Redis;
    // a keeps re-entering it, so b waits while the history shows the lock free between a's holds.
    const hog: HistoryEvent[] = [{ k: 'wait', t: 0 }, { k: 'lockErr', t: 1, err: 'ConnectionLostError' }];
    for (let t = 20; t < 8_000; t += 10) hog.push(...cycle({ wait: t, acq: t, end: t + 4, r: (t - 20) / 10 }));
    const workers = [
      { id: 'a', events: hog, full: true },
      { id: 'b', events: [{ k: 'wait', t: 5 }] as HistoryEvent[], full: true },
    ];
    const report = checkHistory(input(workers, { finalCounter: 798, endT: 8_000 }));
    expect(report.stuckWaiters).toHaveLength(1);
    expect(report.stuckWaiters[0]?.worker).toBe('b');
    expect(report.minHolds).toBe(0);
    expect(report.errors.lock).toEqual({ ConnectionLostError: 1 });
  });

  it('a field in Redis that its worker cannot account for is a hold left behind; one it can is not', () => {
    const workers = [
      // a: lock() failed at 100 (reply lost) and a went on; b: one cycle 300–310, then nothing
      { id: 'a', field: 'A:1', events: [{ k: 'wait', t: 90 }, { k: 'lockErr', t: 100, err: 'ConnectionLostError' }, ...cycle({ wait: 2_000, acq: 2_000, end: 2_005, r: 0 })] as HistoryEvent[], full: true },
      { id: 'b', field: 'B:1', events: cycle({ wait: 300, acq: 300, end: 310, r: 1 }), full: true },
    ];
    const samples = [
      { t0: 95, t1: 96, fields: ['A:1'] }, // a is in its lock() call
      { t0: 305, t1: 306, fields: ['A:1', 'B:1'] }, // within a lease (1 000) of a's failed call; b holds
      { t0: 1_500, t1: 1_501, fields: ['A:1'] }, // a lease after the failed call, a is in no call: left behind
      { t0: 1_600, t1: 1_601, fields: ['B:1'] }, // b released at 311: left behind
      { t0: 1_700, t1: 1_701, fields: ['C:9'] }, // no worker's field
    ];
    const report = checkHistory(input(workers, { samples }));
    expect(report.leftBehind).toEqual([
      { worker: 'a', t0: 1_500, t1: 1_501 },
      { worker: 'b', t0: 1_600, t1: 1_601 },
      { worker: 'C:9', t0: 1_700, t1: 1_701 },
    ]);
    // A sample read while the worker's unlock() was returning is accounted for.
    expect(checkHistory(input(workers, { samples: [{ t0: 310, t1: 312, fields: ['B:1'] }] })).leftBehind).toEqual([]);
  });

  it('recovery: the first acquisition by another worker after each fault; none is reported as unrecovered', () => {
    const workers = serial(['a', 'b'], 10); // acquisitions at 0, 10, …, 190
    const faults = [
      { kind: 'CLIENT KILL TYPE normal', t: 42, until: 42 },
      { kind: 'kill -9', t: 55, until: 56, recoverFrom: 55, target: 'b' }, // b holds 50–55; next other: a at 60
      { kind: 'CLIENT KILL TYPE pubsub', t: 500, until: 500 },
    ];
    const report = checkHistory(input(workers, { faults }));
    expect(report.faults.map((f) => f.recoveryMs)).toEqual([8, 5, null]);
    expect(report.maxRecoveryMs).toBe(8);
    expect(report.unrecovered).toBe(1);
  });

  it('the target of a stall: its hold is found even when it logged the acquisition only after it was continued', () => {
    const stopped = [
      // a's lock() had its reply when a was stopped at 100; a logs acq only at 2 101, after SIGCONT
      { id: 'a', events: cycle({ wait: 90, acq: 2_101, end: 2_110, r: 0, rel: 'LockLostError' }), full: true },
      { id: 'b', events: cycle({ wait: 95, acq: 1_100, end: 1_110, r: 0 }), full: true },
      { id: 'c', events: cycle({ wait: 0, acq: 10, end: 20, r: 0 }), full: true },
    ];
    const sigstop = { kind: 'SIGSTOP', t: 100, until: 2_100, recoverFrom: 100, target: 'a' };
    const report = checkHistory(input(stopped, { faults: [sigstop] }));
    expect(report.faults).toEqual([{ kind: 'SIGSTOP', t: 100, target: 'a', recoveryMs: 1_000, targetHeld: true, targetSignal: 'LockLostError' }]);
    // c's hold long before the fault is not the target's; a worker that never held is reported as such.
    const missed = checkHistory(input(stopped, { faults: [{ ...sigstop, target: 'c' }] }));
    expect(missed.faults[0]).toMatchObject({ targetHeld: false, targetSignal: null });
  });
});
