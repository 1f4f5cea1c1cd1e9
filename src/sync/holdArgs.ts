/**
 * Options of the semaphores' hold API (`acquireHold`, `tryAcquireHold`, `withPermits`): one options object,
 * milliseconds, every key checked before anything is sent — as the locks' `acquire` options (locks/holdArgs.ts).
 */
import { describeValue, requireTime } from '../config.js';
import { ArgumentRangeError, InvalidArgumentError } from '../errors.js';
import { requirePermits, requirePlainOptions } from '../args.js';
import { TimeUnit } from '../TimeUnit.js';

/** Options of `semaphore.acquireHold()` and `semaphore.withPermits()`. */
export interface PermitHoldOptions {
  /** How many permits the hold takes (and gives back): 1 to 2^31 − 1, default 1. */
  permits?: number;
  /** Aborts the wait: the call rejects with `signal.reason` and leaves nothing taken. */
  signal?: AbortSignal;
}

/** Options of `semaphore.tryAcquireHold()`. */
export interface TryPermitHoldOptions extends PermitHoldOptions {
  /** How long to wait in ms; omitted or `0`: a single attempt. */
  waitTime?: number;
}

/** Options of a PermitExpirableSemaphore's `acquireHold()` / `withPermits()`: the permits' lease too. */
export interface LeasedPermitHoldOptions extends PermitHoldOptions {
  /** Lease of each permit in ms, after which Redis-side it returns to the pool; omitted or `-1`: no lease. */
  leaseTime?: number;
}

/** Options of a PermitExpirableSemaphore's `tryAcquireHold()`. */
export interface TryLeasedPermitHoldOptions extends LeasedPermitHoldOptions {
  /** How long to wait in ms; omitted or `0`: a single attempt. */
  waitTime?: number;
}

export interface ParsedPermitHold {
  readonly permits: number;
  /** `0`: one attempt; `-1`: no limit; else ms. */
  readonly waitMs: number;
  /** `-1`: no lease; else ms (at least 1). */
  readonly leaseMs: number;
  readonly signal: AbortSignal | undefined;
}

const HINTS: Readonly<Record<string, string>> = {
  waitTime: '(`waitTime` is an option of tryAcquireHold; acquireHold waits as long as it takes)',
  leaseTime: '(`leaseTime` belongs to a PermitExpirableSemaphore: an RSemaphore permit has no lease)',
  threadId: '(semaphore permits have no owner)',
};

/**
 * Validates hold options. `withWait`: `tryAcquireHold` (accepts `waitTime`); `withLease`: a
 * PermitExpirableSemaphore (accepts `leaseTime`). An unknown key is a `TypeError`, as in `Redisson.create`.
 */
export function parsePermitHold(method: string, options: unknown, withWait: boolean, withLease: boolean): ParsedPermitHold {
  if (options === undefined) return { permits: 1, waitMs: withWait ? 0 : -1, leaseMs: -1, signal: undefined };
  const keys = ['permits', 'signal', ...(withWait ? ['waitTime'] : []), ...(withLease ? ['leaseTime'] : [])];
  requirePlainOptions(options, `${method} options`, keys, HINTS);
  // Each value is read once: a getter cannot hand the call something unchecked.
  const { permits, signal, waitTime, leaseTime } = options as TryLeasedPermitHoldOptions;
  if (signal !== undefined && !(signal instanceof AbortSignal)) throw new InvalidArgumentError(`${method}: expected \`signal\` to be an AbortSignal, got ${describeValue(signal)}`);
  // A hold takes at least one permit: an empty hold would guard nothing.
  const count = permits === undefined ? 1 : requirePermits(permits, 1);
  const waitMs = withWait ? Math.max(0, requireTime(waitTime, TimeUnit.MILLISECONDS, 'waitTime')) : -1;
  const leaseMs = requireTime(leaseTime, TimeUnit.MILLISECONDS, 'leaseTime');
  if (leaseMs === 0) throw new ArgumentRangeError(`Expected \`leaseTime\` to be -1 (no lease) or at least 1 ms, got 0 ms`);
  return { permits: count, waitMs, leaseMs, signal };
}
