/**
 * The fault suite's history checker: a pure function from what lock workers logged (and what faults the
 * parent injected) to the figures the suite asserts and README reports. No I/O, no clock, no Redis.
 *
 * A worker's log is a sequence of cycles `wait → acq → cs → end → rel` (see ./historyWorker.ts), with
 * `lockErr`, `csErr`, `lost`, `dead` and `exit` in between. Instants come from one clock shared by every
 * process on the host (CLOCK_MONOTONIC, see ./workers.ts `now`), in ms.
 *
 * A hold is logged as [acq, end]: `acq` after `lock()` resolved, `end` before `unlock()` was called. That
 * is inside the time Redis really gave the lock to the worker, so with a correct lock no two logged holds
 * intersect; `toleranceMs` only absorbs the clocks' disagreement between processes.
 */
import { countLostIncrements, coveredBy, findLeftBehind, findOverlaps, parseHistory, uncovered, union, type Interval } from './historyParts.js';

/** One line of a worker's log. `t` is on the shared clock (ms). */
export type HistoryEvent = (
  | { readonly k: 'wait'; readonly t: number; readonly role?: Role; readonly r?: number }
  | { readonly k: 'acq'; readonly t: number; readonly role?: Role; readonly tok?: number; readonly o?: string; readonly r?: number }
  | { readonly k: 'lockErr'; readonly t: number; readonly err: string }
  | { readonly k: 'cs'; readonly t: number; readonly r: number; readonly w: number }
  | { readonly k: 'csErr'; readonly t: number; readonly err: string }
  | { readonly k: 'end'; readonly t: number }
  | { readonly k: 'rel'; readonly t: number; readonly ok: boolean; readonly err?: string }
  | { readonly k: 'lost'; readonly t: number }
  | { readonly k: 'dead'; readonly t: number }
  | { readonly k: 'exit'; readonly t: number }
  // The latch's releaser (./latchWorker.ts): round `r` set to 1, and counted down.
  | { readonly k: 'set'; readonly t: number; readonly r: number }
  | { readonly k: 'down'; readonly t: number; readonly r: number }
) & {
  /** The flow of the process that logged it (the shared-object pattern); absent: 0. */
  readonly f?: number;
};

/** A hold's kind: `w` exclusive (a lock, a write lock), `r` shared (a read lock, a permit). */
export type Role = 'r' | 'w';

export interface WorkerHistory {
  readonly id: string;
  readonly events: readonly HistoryEvent[];
  /** Ran for the whole load window (not killed, not a replacement): counts for min/max holds per worker. */
  readonly full: boolean;
  /** Its hash field in the lock (`clientId:threadId`), to match Redis samples. */
  readonly field?: string;
  /** Its process's client id: a field `clientId:<any>` is one of its process's flows (shared object). */
  readonly clientId?: string;
}

/** What the parent saw in the lock's hash: the fields, read at some instant within [t0, t1]. */
export interface RedisSample {
  readonly t0: number;
  readonly t1: number;
  readonly fields: readonly string[];
}

/** A fault the parent injected. */
export interface Fault {
  readonly kind: string;
  readonly t: number;
  /** When the fault's action was over (server back, pause ended, process continued). */
  readonly until: number;
  /** Recovery is measured from here (default `until`). */
  readonly recoverFrom?: number;
  /** The worker the fault was aimed at (the holder it killed or stopped). */
  readonly target?: string;
  /** Redis could serve nobody during [t, until]: not "free" time for a waiter. */
  readonly blackout?: boolean;
  /** Redis lost its data at `t`: the counter starts a new history. */
  readonly dataLoss?: boolean;
}

export interface CheckInput {
  readonly workers: readonly WorkerHistory[];
  readonly faults: readonly Fault[];
  /** The locks' lease: the watchdog timeout or the explicit lease time (ms). */
  readonly leaseMs: number;
  readonly endT: number;
  /** The counter in Redis after the run (`null`: absent). */
  readonly finalCounter: number | null;
  /** Clock disagreement between processes that is not an overlap. @default 1 */
  readonly toleranceMs?: number;
  /** A waiter that saw the lock free for longer than lease + grace is stuck. @default 2000 */
  readonly graceMs?: number;
  /** The lock's hash as the parent sampled it during the run. */
  readonly samples?: readonly RedisSample[];
  /** Which holds may coexist; default: none (a lock). */
  readonly allowed?: (roles: readonly Role[]) => boolean;
  /** How many holds make the primitive full for a waiter (a semaphore's permits). @default 1 */
  readonly capacity?: number;
  /** How long a hold nobody released may stay (a permit without lease: for ever). @default leaseMs */
  readonly leakMs?: number;
}

export interface Hold {
  readonly worker: string;
  readonly start: number;
  readonly end: number;
  /**
   * Until here the hold may have been in Redis: `unlock()` returned (or failed), the holder died, or the
   * run ended.
   */
  readonly closedAt: number;
  readonly released: boolean;
  /** The holder learned it had lost the lock: a `lockLost` event or a failed `unlock()`. */
  readonly flagged: boolean;
  readonly lossSignal?: string;
  readonly cs?: { readonly r: number; readonly w: number };
  readonly role: Role;
  /** A FencedLock's token. */
  readonly token?: number;
  /** The owner's hash field, where the worker logged it (FairLock). */
  readonly field?: string;
}

export interface Overlap {
  readonly a: string;
  readonly b: string;
  readonly at: number;
  readonly ms: number;
  /** At least one of the two holders was told it had lost the lock. */
  readonly flagged: boolean;
}

export interface StuckWaiter {
  readonly worker: string;
  readonly from: number;
  readonly to: number;
  /** How long the lock was free (by the history) while this worker waited. */
  readonly freeMs: number;
}

/** A field in Redis whose worker was not in a lock call, holding, nor within a lease of a failed call. */
export interface LeftBehind {
  /** The worker, or the field itself when no worker owns it. */
  readonly worker: string;
  readonly t0: number;
  readonly t1: number;
}

export interface FaultOutcome {
  readonly kind: string;
  readonly t: number;
  readonly target?: string;
  /** First acquisition by another worker after the fault, in ms from `recoverFrom`; null if none. */
  readonly recoveryMs: number | null;
  /** The target held the lock when the fault struck. */
  readonly targetHeld: boolean;
  /** How the target learned its hold was lost (`lockLost`, or the error name of its failed unlock). */
  readonly targetSignal: string | null;
}

export interface CheckReport {
  /** Critical sections whose counter write was confirmed. */
  readonly ops: number;
  readonly holds: number;
  readonly overlaps: readonly Overlap[];
  readonly unflaggedOverlaps: number;
  readonly lostIncrements: number;
  readonly counter: {
    readonly final: number | null;
    readonly confirmed: number;
    readonly uncertain: number;
    /** final ∈ [confirmed, confirmed + uncertain]; null when data loss makes it unknowable. */
    readonly consistent: boolean | null;
  };
  readonly stuckWaiters: readonly StuckWaiter[];
  /** Longest time a single wait saw the lock free (by the history). */
  readonly maxFreeWaitMs: number;
  /** Samples that showed a hold its worker could not account for (a hold left behind). */
  readonly leftBehind: readonly LeftBehind[];
  readonly holdsPerWorker: Readonly<Record<string, number>>;
  readonly minHolds: number;
  readonly maxHolds: number;
  readonly faults: readonly FaultOutcome[];
  /** Longest recovery among the faults after which some worker acquired again; null if none did. */
  readonly maxRecoveryMs: number | null;
  /** Faults after which no other worker acquired before the run ended. */
  readonly unrecovered: number;
  readonly lockLostEvents: number;
  /** Errors by label (the class name of a library error; `untyped …` otherwise), per step of the cycle. */
  readonly errors: {
    readonly lock: Readonly<Record<string, number>>;
    readonly cs: Readonly<Record<string, number>>;
    readonly unlock: Readonly<Record<string, number>>;
  };
}

/** Checks a run's history; see the module comment and {@link CheckReport}. */
export function checkHistory(input: CheckInput): CheckReport {
  const tolerance = input.toleranceMs ?? 1;
  const grace = input.graceMs ?? 2_000;
  const lease = input.leaseMs;
  const { holds, waits, lockErrors, accountable } = parseHistory(input.workers, input.endT, lease);

  const overlaps = findOverlaps(holds, tolerance, input.allowed);
  const leak = input.leakMs ?? lease;

  // Times the lock may have been held in Redis although no worker logged a hold: until unlock() returned,
  // and for one more lease after a hold that was not released (holder killed, unlock failed) or an
  // acquire whose outcome is unknown (lock() failed). Plus the faults during which Redis served nobody.
  // With a capacity, the times when that many of those may have been held.
  const maybeHeld = union([
    ...coveredBy(
      [...holds.map((h): Interval => [h.start, h.closedAt + (h.released ? 0 : leak)]), ...lockErrors.map((t): Interval => [t, t + leak])],
      input.capacity ?? 1,
    ),
    ...input.faults.filter((f) => f.blackout).map((f): Interval => [f.t, f.until]),
  ]);
  const stuckWaiters: StuckWaiter[] = [];
  let maxFreeWaitMs = 0;
  for (const w of waits) {
    const freeMs = uncovered(w.from, w.to, maybeHeld);
    maxFreeWaitMs = Math.max(maxFreeWaitMs, freeMs);
    if (freeMs > lease + grace) stuckWaiters.push({ ...w, freeMs });
  }

  const holdsPerWorker: Record<string, number> = {};
  for (const w of input.workers) holdsPerWorker[w.id] = 0;
  for (const h of holds) holdsPerWorker[h.worker] = (holdsPerWorker[h.worker] ?? 0) + 1;
  const fullCounts = input.workers.filter((w) => w.full).map((w) => holdsPerWorker[w.id] ?? 0);

  const faults = input.faults.map((f): FaultOutcome => {
    const from = f.recoverFrom ?? f.until;
    const next = holds.find((h) => h.start > from && h.worker !== f.target);
    // The target's hold that was under way when the fault struck, or whose lock() had just got its reply:
    // a process stopped between the reply and its next line logs `acq` only after it is continued.
    const held = holds.find((h) => f.target !== undefined && h.worker === f.target && h.closedAt >= f.t && h.start <= f.until + lease);
    return {
      kind: f.kind,
      t: f.t,
      ...(f.target !== undefined ? { target: f.target } : {}),
      recoveryMs: next ? next.start - from : null,
      targetHeld: held !== undefined,
      targetSignal: held?.lossSignal ?? null,
    };
  });
  const recoveries = faults.flatMap((f) => (f.recoveryMs === null ? [] : [f.recoveryMs]));

  const errors = { lock: {} as Record<string, number>, cs: {} as Record<string, number>, unlock: {} as Record<string, number> };
  const tally = (to: Record<string, number>, label: string): void => void (to[label] = (to[label] ?? 0) + 1);
  let lockLostEvents = 0;
  for (const w of input.workers) {
    for (const e of w.events) {
      if (e.k === 'lost') lockLostEvents++;
      else if (e.k === 'lockErr') tally(errors.lock, e.err);
      else if (e.k === 'csErr') tally(errors.cs, e.err);
      else if (e.k === 'rel' && !e.ok) tally(errors.unlock, e.err ?? 'Error');
    }
  }

  return {
    ops: holds.filter((h) => h.cs).length,
    holds: holds.length,
    overlaps,
    unflaggedOverlaps: overlaps.filter((o) => !o.flagged).length,
    ...countLostIncrements(holds.filter((h) => h.role === 'w'), input.faults, input.finalCounter),
    stuckWaiters,
    maxFreeWaitMs,
    leftBehind: findLeftBehind(input.samples ?? [], input.workers, accountable),
    holdsPerWorker,
    minHolds: fullCounts.length > 0 ? Math.min(...fullCounts) : 0,
    maxHolds: fullCounts.length > 0 ? Math.max(...fullCounts) : 0,
    faults,
    maxRecoveryMs: recoveries.length > 0 ? Math.max(...recoveries) : null,
    unrecovered: faults.length - recoveries.length,
    lockLostEvents,
    errors,
  };
}
