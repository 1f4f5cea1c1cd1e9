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

/** What the parent saw in a FairLock's queue (owner fields, head first) at an instant within [t0, t1]. */
export interface QueueSample {
  readonly t0: number;
  readonly t1: number;
  readonly queue: readonly string[];
}

/**
 * FairLock FIFO: whenever the queue showed x ahead of y, y's next hold did not begin before x's. A queued
 * owner that never held afterwards (its flow was killed, its wait failed) is no violation, nor is one that
 * saw its wait fail in between (it queues again), nor one that
 * had been queued longer than `waitTimeoutMs` (`fairLockWaitTimeout`) when y got in: Redisson drops such an
 * entry as stale and its waiter queues again at the back. Returns the pairs served out of order.
 */
export function fifoViolations(
  holds: readonly Hold[],
  samples: readonly QueueSample[],
  waitTimeoutMs: number,
  lockErrors: ReadonlyMap<string, readonly number[]> = new Map(),
): { x: string; y: string; at: number }[] {
  const next = (field: string, after: number): Hold | undefined => holds.find((h) => h.field === field && h.start >= after);
  const firstSeen = new Map<string, number>();
  const seen = new Set<string>();
  const out: { x: string; y: string; at: number }[] = [];
  for (const s of samples) {
    for (const field of s.queue) if (!firstSeen.has(field) || (next(field, firstSeen.get(field) ?? 0)?.start ?? Infinity) < s.t0) firstSeen.set(field, s.t0);
    for (let i = 0; i + 1 < s.queue.length; i++) {
      const xf = s.queue[i] as string;
      const x = next(xf, s.t0);
      const y = next(s.queue[i + 1] as string, s.t0);
      if (!x || !y || y.start >= x.start) continue;
      if (y.start - (firstSeen.get(xf) ?? s.t0) > waitTimeoutMs) continue;
      // x's wait failed in between (a lost reply: its entry is undone and it queues again at the back).
      if ((lockErrors.get(x.worker) ?? []).some((t) => t >= s.t0 && t <= x.start)) continue;
      const key = `${xf}>${s.queue[i + 1]}@${y.start}`;
      if (seen.has(key)) continue;
      seen.add(key);
      out.push({ x: x.worker, y: y.worker, at: y.start });
    }
  }
  return out;
}
