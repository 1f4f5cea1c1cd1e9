/**
 * Options of the hold API (`acquire`, `tryAcquire`, `withLock`): one options object, milliseconds, every
 * key checked before anything is sent.
 */
import { requireThreadId, requireTime } from '../config.js';
import { TimeUnit } from '../TimeUnit.js';

/** Options of `lock.acquire()` and `lock.withLock()`. */
export interface HoldOptions {
  /** Lease in ms; omitted or `-1`: the watchdog keeps the hold alive until released. */
  leaseTime?: number;
  /** Aborts the wait: the call rejects with `signal.reason` and leaves nothing behind. */
  signal?: AbortSignal;
  /** Owner id; by default each acquisition gets its own (see README, "Thread identity"). */
  threadId?: number;
}

/** Options of `lock.tryAcquire()`. */
export interface TryHoldOptions extends HoldOptions {
  /** How long to wait in ms; omitted or `0`: a single attempt. */
  waitTime?: number;
}

const HOLD_KEYS = ['leaseTime', 'signal', 'threadId'] as const;
const TRY_HOLD_KEYS = [...HOLD_KEYS, 'waitTime'] as const;

export interface ParsedHoldOptions {
  readonly leaseMs: number;
  readonly waitMs: number;
  readonly owner: { threadId?: number; signal?: AbortSignal };
}

/** Validates `options` of `method`; `withWait` accepts `waitTime` (tryAcquire). */
export function parseHoldOptions(method: string, options: unknown, withWait: boolean): ParsedHoldOptions {
  if (options === undefined) return { leaseMs: -1, waitMs: 0, owner: {} };
  if (options === null || typeof options !== 'object' || Array.isArray(options)) {
    throw new TypeError(`${method}: expected an options object, got ${Array.isArray(options) ? 'an array' : typeof options}`);
  }
  const allowed: readonly string[] = withWait ? TRY_HOLD_KEYS : HOLD_KEYS;
  for (const key of Object.keys(options)) {
    if (!allowed.includes(key)) throw new TypeError(`${method}: unknown option \`${key}\` (accepted: ${allowed.join(', ')})`);
  }
  const o = options as TryHoldOptions;
  const owner: { threadId?: number; signal?: AbortSignal } = {};
  if (o.threadId !== undefined) owner.threadId = requireThreadId(o.threadId);
  if (o.signal !== undefined) {
    if (!(o.signal instanceof AbortSignal)) throw new TypeError(`${method}: expected \`signal\` to be an AbortSignal`);
    owner.signal = o.signal;
  }
  const leaseMs = requireTime(o.leaseTime, TimeUnit.MILLISECONDS, 'leaseTime');
  const waitMs = requireTime(o.waitTime, TimeUnit.MILLISECONDS, 'waitTime');
  return { leaseMs, waitMs: Math.max(0, waitMs), owner };
}
