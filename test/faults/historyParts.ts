/**
 * The measures of ./history.ts's checker, each a pure function over the parsed history: holds and waits
 * per worker, overlapping holds, lost increments, free time during a wait, holds left behind in Redis.
 */
import type { CheckReport, Fault, HistoryEvent, Hold, LeftBehind, Overlap, RedisSample, Role, WorkerHistory } from './history.js';

export interface Wait {
  readonly worker: string;
  readonly from: number;
  readonly to: number;
}

export type Interval = readonly [number, number];

/** A worker's log, split: holds, waits, failed lock() calls, and when its field may have been in Redis. */
export interface Parsed {
  readonly holds: Hold[];
  readonly waits: Wait[];
  readonly lockErrors: number[];
  /** Per worker: from each lock() call to its unlock() returning, plus a lease after any call that failed. */
  readonly accountable: Map<string, Interval[]>;
}

/**
 * The events of flow `flow` in a process's log: its own (`f`, absent for flow 0), and the process-wide ones every
 * flow shares: a `lockLost` (it names no flow) and the process's `exit`, which ends any flow's wait (at the load
 * window's end a waiting flow is aborted without a line of its own). Before 2026-12-07 the `exit` went to flow 0
 * alone, so another flow's last wait ran on to the end of the whole run: a replacement worker that exited 12 s late
 * made it a "stuck waiter" (seen in CI on FairLock's covered row).
 */
export function eventsOfFlow(events: readonly HistoryEvent[], flow: number): HistoryEvent[] {
  return events.filter((e) => (e.f ?? 0) === flow || (e.f === undefined && (e.k === 'lost' || e.k === 'exit')));
}

/** Splits each worker's log into holds and waits (see {@link Parsed}). */
export function parseHistory(workers: readonly WorkerHistory[], endT: number, lease: number): Parsed {
  const holds: Hold[] = [];
  const waits: Wait[] = [];
  const lockErrors: number[] = [];
  const accountable = new Map<string, Interval[]>();
  for (const { id, events } of workers) {
    const windows: Interval[] = [];
    accountable.set(id, windows);
    let waitFrom: number | null = null;
    // From the lock() call to the unlock() return: the field may be in Redis anywhere in there.
    let callFrom: number | null = null;
    let open: { start: number; end?: number; cs?: { r: number; w: number }; lost?: boolean; role?: Role; token?: number; field?: string } | null = null;
    const account = (until: number): void => {
      if (callFrom !== null) windows.push([callFrom, until]);
      callFrom = null;
    };
    const close = (t: number, rel?: { t: number; ok: boolean; err?: string }): void => {
      if (!open) return;
      const signal = open.lost ? 'lockLost' : rel && !rel.ok ? (rel.err ?? 'Error') : undefined;
      holds.push({
        worker: id,
        start: open.start,
        end: open.end ?? t,
        closedAt: t,
        released: rel?.ok ?? false,
        flagged: signal !== undefined,
        ...(signal !== undefined ? { lossSignal: signal } : {}),
        ...(open.cs ? { cs: open.cs } : {}),
        role: open.role ?? 'w',
        ...(open.token !== undefined ? { token: open.token } : {}),
        ...(open.field !== undefined ? { field: open.field } : {}),
      });
      open = null;
    };
    const endWait = (t: number): void => {
      if (waitFrom !== null) waits.push({ worker: id, from: waitFrom, to: t });
      waitFrom = null;
    };
    for (const e of events) {
      switch (e.k) {
        case 'wait':
          waitFrom = e.t;
          callFrom = e.t;
          break;
        case 'acq':
          endWait(e.t);
          open = { start: e.t, ...(e.role ? { role: e.role } : {}), ...(e.tok !== undefined ? { token: e.tok } : {}), ...(e.o !== undefined ? { field: e.o } : {}) };
          break;
        case 'lockErr':
          endWait(e.t);
          lockErrors.push(e.t);
          // An acquire whose reply was lost may have landed: at worst it expires with its lease.
          account(e.t + lease);
          break;
        case 'cs':
          if (open) open.cs = { r: e.r, w: e.w };
          break;
        case 'end':
          if (open) open.end = e.t;
          break;
        case 'rel':
          close(e.t, e);
          account(e.t + (e.ok ? 0 : lease));
          break;
        case 'lost':
          if (open) open.lost = true;
          else if (holds.at(-1)?.worker === id) markLost(holds);
          break;
        case 'dead':
        case 'exit':
          endWait(e.t);
          close(e.t);
          account(e.t + lease);
          break;
        case 'csErr':
        case 'set':
        case 'down':
          break;
      }
    }
    endWait(endT);
    close(endT);
    account(endT + lease);
  }
  return { holds: holds.sort((x, y) => x.start - y.start), waits, lockErrors, accountable };
}

/** A `lockLost` that arrives after the unlock returned still belongs to the worker's last hold. */
function markLost(holds: Hold[]): void {
  const last = holds.pop();
  if (last) holds.push({ ...last, flagged: true, lossSignal: last.lossSignal ?? 'lockLost' });
}

/**
 * Pairs of holds by different workers that intersect by more than `tolerance` where the primitive's rule
 * does not allow them together: `allowed` gets the roles of every hold under way when the later one began.
 */
export function findOverlaps(holds: readonly Hold[], tolerance: number, allowed: (roles: readonly Role[]) => boolean = (r) => r.length <= 1): Overlap[] {
  const out: Overlap[] = [];
  for (let j = 0; j < holds.length; j++) {
    const b = holds[j] as Hold;
    const active: { a: Hold; ms: number }[] = [];
    for (let i = j - 1; i >= 0; i--) {
      const a = holds[i] as Hold;
      const ms = Math.min(a.end, b.end) - b.start;
      if (a.worker !== b.worker && ms > tolerance) active.push({ a, ms });
    }
    if (active.length === 0 || allowed([...active.map(({ a }) => a.role), b.role])) continue;
    // The pairs that conflict by themselves (a writer and a reader); else (too many permits) every pair.
    const pairs = active.filter(({ a }) => !allowed([a.role, b.role]));
    for (const { a, ms } of pairs.length > 0 ? pairs : active) out.push({ a: a.worker, b: b.worker, at: b.start, ms, flagged: a.flagged || b.flagged });
  }
  return out;
}

/**
 * Where at least `capacity` of `intervals` overlap (sorted, disjoint): with capacity 1, their union. For a
 * semaphore, the time its every permit may have been taken.
 */
export function coveredBy(intervals: readonly Interval[], capacity: number): Interval[] {
  if (capacity <= 1) return union([...intervals]);
  const edges = intervals.flatMap(([s, e]): [number, number][] => [[s, 1], [e, -1]]).sort((x, y) => x[0] - y[0] || x[1] - y[1]);
  const out: Interval[] = [];
  let depth = 0;
  let from = 0;
  for (const [t, d] of edges) {
    const before = depth;
    depth += d;
    if (before < capacity && depth >= capacity) from = t;
    else if (before >= capacity && depth < capacity && t > from) out.push([from, t]);
  }
  return out;
}

/** Sorted, disjoint union of intervals. */
export function union(intervals: Interval[]): Interval[] {
  const sorted = [...intervals].sort((x, y) => x[0] - y[0]);
  const out: [number, number][] = [];
  for (const [s, e] of sorted) {
    const last = out.at(-1);
    if (last && s <= last[1]) last[1] = Math.max(last[1], e);
    else out.push([s, e]);
  }
  return out;
}

/** Length of [from, to] not covered by `covered` (sorted, disjoint). */
export function uncovered(from: number, to: number, covered: readonly Interval[]): number {
  let free = Math.max(0, to - from);
  for (const [s, e] of covered) {
    if (e <= from) continue;
    if (s >= to) break;
    free -= Math.min(e, to) - Math.max(s, from);
  }
  return free;
}

export function countLostIncrements(holds: readonly Hold[], faults: readonly Fault[], final: number | null): Pick<CheckReport, 'lostIncrements' | 'counter'> {
  const losses = faults.filter((f) => f.dataLoss).map((f) => f.t);
  const epochOf = (h: Hold): number => losses.filter((t) => t < h.start).length;
  let duplicates = 0;
  for (let epoch = 0; epoch <= losses.length; epoch++) {
    // With mutual exclusion each confirmed section read a different value; two that read the same value
    // wrote the same value, and one of the two increments is gone.
    const reads = holds.filter((h) => epochOf(h) === epoch && h.cs).map((h) => h.cs?.r);
    duplicates += reads.length - new Set(reads).size;
  }
  const last = holds.filter((h) => epochOf(h) === losses.length);
  const confirmed = last.filter((h) => h.cs).length;
  const uncertain = last.length - confirmed;
  const value = final ?? 0;
  // After a data loss a section that straddled it may write an old value into the new data set.
  const consistent = losses.length > 0 ? null : value >= confirmed && value <= confirmed + uncertain;
  const shortfall = losses.length > 0 ? 0 : Math.max(0, confirmed - value);
  return { lostIncrements: Math.max(duplicates, shortfall), counter: { final, confirmed, uncertain, consistent } };
}


/**
 * Samples of the lock's hash that show a field no worker can account for: its worker was neither in a
 * lock() or unlock() call nor within a lease of one that failed or of its death, for the whole time the
 * sample may have been taken — a hold left behind (issue 8, defect 2). A field of no worker counts too.
 */
export function findLeftBehind(samples: readonly RedisSample[], workers: readonly WorkerHistory[], accountable: ReadonlyMap<string, Interval[]>): LeftBehind[] {
  const out: LeftBehind[] = [];
  for (const s of samples) {
    for (const field of s.fields) {
      // The field's worker: by its exact field, else every flow of the process whose client id it starts with.
      const exact = workers.filter((w) => w.field === field);
      const mine = exact.length > 0 ? exact : workers.filter((w) => w.clientId !== undefined && field.startsWith(`${w.clientId}:`));
      const windows = mine.flatMap((w) => accountable.get(w.id) ?? []);
      if (!windows.some(([from, to]) => from <= s.t1 && to >= s.t0)) out.push({ worker: mine[0]?.id ?? field, t0: s.t0, t1: s.t1 });
    }
  }
  return out;
}
