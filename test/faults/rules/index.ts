/**
 * The fault suite's per-primitive rules: which holds may coexist, how many make the primitive full for a
 * waiter, how long an unreleased hold may stay, and the extra figures each primitive is judged by
 * (fencing tokens, FIFO order, latch releases). Pure functions over the parsed history, like ../history.ts.
 */
import type { Fault, Hold, Role } from '../history.js';
import type { Primitive } from '../primitives.js';

export interface PrimitiveRule {
  /** The roles of holds under way at one instant are allowed together. */
  readonly allowed: (roles: readonly Role[]) => boolean;
  readonly capacity: number;
  /** How long a hold nobody released may stay in Redis, given the lease. */
  readonly leakMs: (leaseMs: number) => number;
  /** Its exclusive holds write the counter (lost increments are judged). */
  readonly counter: boolean;
}

const exclusive: PrimitiveRule = { allowed: (roles) => roles.length <= 1, capacity: 1, leakMs: (lease) => lease, counter: true };

export function ruleOf(primitive: Primitive | 'latch', permits = 1): PrimitiveRule {
  switch (primitive) {
    case 'readWrite':
      // A writer with nobody else; any number of readers together.
      return { ...exclusive, allowed: (roles) => roles.length <= 1 || roles.every((r) => r === 'r') };
    case 'semaphore':
      // No lease: a permit whose holder died is gone for good (as in Java).
      return { allowed: (roles) => roles.length <= permits, capacity: permits, leakMs: () => Infinity, counter: false };
    case 'pes':
      return { allowed: (roles) => roles.length <= permits, capacity: permits, leakMs: (lease) => lease, counter: false };
    default:
      return exclusive;
  }
}

export interface TokenReport {
  /** Holds whose token was not above every token acquired before it in the same data epoch. */
  readonly regressions: number;
  /** Data losses after which a token came out at or below one handed out before the loss. */
  readonly restartsLow: number;
  readonly first: number | null;
  readonly last: number | null;
}

/** FencedLock: tokens strictly increasing in acquisition order while Redis keeps its data. */
export function checkTokens(holds: readonly Hold[], faults: readonly Fault[]): TokenReport {
  const losses = faults.filter((f) => f.dataLoss).map((f) => f.t);
  const withToken = holds.filter((h) => h.token !== undefined).sort((a, b) => a.start - b.start);
  let regressions = 0;
  let restartsLow = 0;
  let epoch = 0;
  let maxEver = -Infinity;
  let maxEpoch = -Infinity;
  let lowCounted = false;
  for (const h of withToken) {
    const e = losses.filter((t) => t < h.start).length;
    if (e !== epoch) {
      epoch = e;
      maxEpoch = -Infinity;
      lowCounted = false;
    }
    const token = h.token as number;
    if (token <= maxEpoch) regressions++;
    if (epoch > 0 && token <= maxEver && !lowCounted) {
      restartsLow++;
      lowCounted = true;
    }
    maxEpoch = Math.max(maxEpoch, token);
    maxEver = Math.max(maxEver, token);
  }
  return { regressions, restartsLow, first: withToken[0]?.token ?? null, last: withToken.at(-1)?.token ?? null };
}

/**
 * What the parent saw in a FairLock's queue (owner fields, head first) and its waiters' deadlines, read together
 * (MULTI) at an instant within [t0, t1]. Deadlines are on the shared monotonic clock (converted from the
 * clients' wall clock, which the script's `now` argument uses).
 */
export interface QueueSample {
  readonly t0: number;
  readonly t1: number;
  readonly queue: readonly string[];
  readonly deadlines: Readonly<Record<string, number>>;
}

/**
 * FairLock FIFO: whenever the queue showed x ahead of y, y's next hold did not begin before x's — unless x had
 * left the queue by the script's own rule first:
 * - x's deadline had passed when y got in (Redisson drops a head whose deadline passed; its waiter queues again
 *   at the back). x's deadline is the lowest sampled between the sample that showed the pair and y's hold,
 *   each lowered by `waitMs` for every hold that began after its sample (each acquisition lowers every
 *   remaining deadline by the wait; nothing raises one while it is queued), so the figure is an upper bound:
 *   a pair is excused only when even that bound had passed.
 * - x's wait failed in between (a lost reply: its entry is undone and it queues again at the back).
 * A queued owner that never held afterwards (its flow was killed) is no violation. Returns the pairs served out
 * of order, with x's deadline bound.
 */
export function fifoViolations(
  holds: readonly Hold[],
  samples: readonly QueueSample[],
  waitMs: number,
  lockErrors: ReadonlyMap<string, readonly number[]> = new Map(),
): { x: string; y: string; at: number; xDeadline: number | null }[] {
  const next = (field: string, after: number): Hold | undefined => holds.find((h) => h.field === field && h.start >= after);
  const starts = holds.map((h) => h.start).sort((a, b) => a - b);
  const seen = new Set<string>();
  const out: { x: string; y: string; at: number; xDeadline: number | null }[] = [];
  /**
   * x's deadline bound at `t`, from the samples since `from` that show x (the lowest: an entry seen later with a
   * higher deadline was dropped and queued again, so the lower one had passed), or null when none shows it.
   */
  const deadlineAt = (field: string, from: number, t: number): number | null => {
    let bound: number | null = null;
    for (const s of samples) {
      if (s.t0 < from || s.t1 > t) continue;
      const d = s.deadlines[field];
      if (d === undefined) continue;
      const later = starts.filter((start) => start > s.t0 && start < t).length;
      bound = Math.min(bound ?? Infinity, d - later * waitMs);
    }
    return bound;
  };
  for (const s of samples) {
    for (let i = 0; i + 1 < s.queue.length; i++) {
      const xf = s.queue[i] as string;
      const x = next(xf, s.t0);
      const y = next(s.queue[i + 1] as string, s.t0);
      if (!x || !y || y.start >= x.start) continue;
      const xDeadline = deadlineAt(xf, s.t0, y.start);
      if (xDeadline !== null && xDeadline < y.start) continue;
      if ((lockErrors.get(x.worker) ?? []).some((t) => t >= s.t0 && t <= x.start)) continue;
      const key = `${xf}>${s.queue[i + 1]}@${y.start}`;
      if (seen.has(key)) continue;
      seen.add(key);
      out.push({ x: x.worker, y: y.worker, at: y.start, xDeadline });
    }
  }
  return out;
}
