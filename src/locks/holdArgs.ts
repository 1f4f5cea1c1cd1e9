/**
 * Options of the hold API (`acquire`, `tryAcquire`, `withLock`): one options object, milliseconds, every
 * key checked before anything is sent.
 */
import { describeValue, requireThreadId, requireTime } from '../config.js';
import { requirePlainOptions } from '../args.js';
import { TimeUnit } from '../TimeUnit.js';
import { InvalidArgumentError } from '../errors.js';

/** Options of `lock.acquire()` and `lock.withLock()`. */
export interface HoldOptions {
  /** Lease in ms; omitted or `-1`: the watchdog keeps the hold alive until released. */
  leaseTime?: number;
  /** Aborts the wait: the call rejects with `signal.reason` and leaves nothing behind. */
  signal?: AbortSignal;
  /** Owner id; by default each acquisition gets its own (see docs/guides/thread-identity.md). */
  threadId?: number;
}

/** Options of `lock.tryAcquire()`. */
export interface TryHoldOptions extends HoldOptions {
  /** How long to wait in ms; omitted or `0`: a single attempt. */
  waitTime?: number;
}

const HOLD_KEYS = ['leaseTime', 'signal', 'threadId'] as const;
const TRY_HOLD_KEYS = [...HOLD_KEYS, 'waitTime'] as const;
// `hold.reenter()`: the owner is the hold's own.
const REENTER_KEYS = ['leaseTime', 'signal'] as const;
const KEYS = { acquire: HOLD_KEYS, tryAcquire: TRY_HOLD_KEYS, reenter: REENTER_KEYS } as const;
const HINTS: Readonly<Record<keyof typeof KEYS, Readonly<Record<string, string>>>> = {
  // `waitTime` belongs to tryAcquire only: name the right method rather than just refusing it.
  acquire: { waitTime: '(`waitTime` is an option of tryAcquire; acquire waits as long as it takes)' },
  tryAcquire: {},
  reenter: {
    threadId: "(a re-entry is by the hold's own owner, `hold.threadId`)",
    waitTime: '(a re-entry does not wait: its owner already holds the lock)',
  },
};

export interface ParsedHoldOptions {
  readonly leaseMs: number;
  readonly waitMs: number;
  readonly owner: { threadId?: number; signal?: AbortSignal };
}

/**
 * Validates the options of `acquire` / `withLock`, or with `withWait` of `tryAcquire` (which accepts
 * `waitTime`): an unknown key is a `TypeError` as in `Redisson.create`.
 */
export function parseHoldOptions(method: string, options: unknown, withWait: boolean): ParsedHoldOptions {
  return parseOptionsOf(withWait ? 'tryAcquire' : 'acquire', method, options);
}

/** Validates the options of a hold's `reenter()`: `leaseTime` and `signal` (the owner is the hold's). */
export function parseReenterOptions(options: unknown): ParsedHoldOptions {
  return parseOptionsOf('reenter', 'reenter', options);
}

function parseOptionsOf(kind: keyof typeof KEYS, method: string, options: unknown): ParsedHoldOptions {
  if (options === undefined) return { leaseMs: -1, waitMs: 0, owner: {} };
  requirePlainOptions(options, `${method} options`, KEYS[kind], HINTS[kind]);
  const o = options as TryHoldOptions;
  const owner: { threadId?: number; signal?: AbortSignal } = {};
  if (o.threadId !== undefined) owner.threadId = requireThreadId(o.threadId);
  if (o.signal !== undefined) {
    if (!(o.signal instanceof AbortSignal)) throw new InvalidArgumentError(`${method}: expected \`signal\` to be an AbortSignal, got ${describeValue(o.signal)}`);
    owner.signal = o.signal;
  }
  const leaseMs = requireTime(o.leaseTime, TimeUnit.MILLISECONDS, 'leaseTime');
  const waitMs = requireTime(o.waitTime, TimeUnit.MILLISECONDS, 'waitTime');
  return { leaseMs, waitMs: Math.max(0, waitMs), owner };
}
