/**
 * Java-overload argument parsing for every primitive: Redisson's overloads — numbers, an optional
 * `TimeUnit` after the time values, a trailing options object — told apart at run time as Java tells them at
 * compile time, and every value checked (`TypeError` / `RangeError`, our `InvalidArgumentError` /
 * `ArgumentRangeError`) before anything is sent to Redis. One parser ({@link parseOverload}) serves the lock
 * family (`lock(leaseTime?, unit?)`), the semaphores (`tryAcquire(permits?, waitTime?, unit?)`), the
 * PermitExpirableSemaphore's permit-or-time forms and the latch's `await`.
 */
import { describeValue, requireInteger, requireOptionKeys, requireThreadId, requireTime, requireUnit } from './config.js';
import { ArgumentRangeError, InvalidArgumentError } from './errors.js';
import { TimeUnit } from './TimeUnit.js';

// ---- options ------------------------------------------------------------------------------------------

/** Per-call options: every lock method may name its owner, like Redisson's `*Async(…, threadId)` overloads. */
export interface OwnerOptions {
  /** Thread id of the owner; wins over `runInThread` and the lock object's own id. */
  threadId?: number;
}

/**
 * @internal The key (a symbol: never an option a user can type) under which a MultiLock passes its member's
 * `tryLock` a callback that learns the retry delay (the holder's TTL) of each refused attempt. Set as a
 * non-enumerable property, which the options' key check skips.
 */
export const ON_REFUSED: unique symbol = Symbol('redisson-ts.onRefused');

/** Options of the lock family's waiting methods. */
export interface WaitOptions extends OwnerOptions {
  /** Aborts the wait: the call rejects with `signal.reason` and leaves nothing behind. */
  signal?: AbortSignal;
  /** @internal see {@link ON_REFUSED}. */
  [ON_REFUSED]?: (retryAfterMs: number) => void;
}

/** Options of the waiting methods of semaphores and latches (they have no owner: no `threadId`). */
export interface SignalOptions {
  /** Aborts the wait: the call rejects with `signal.reason` and leaves nothing behind. */
  signal?: AbortSignal;
}

/**
 * Throws `TypeError` unless `options` is a plain options object whose own keys are all in `accepted`, with
 * `Redisson.create`'s message (``Unknown option `x` in … (did you mean `y`?); accepted: …``).
 */
export function requirePlainOptions(options: unknown, what: string, accepted: readonly string[], hints: Readonly<Record<string, string>> = {}): void {
  if (options instanceof AbortSignal) {
    throw new InvalidArgumentError(`Expected ${what} to be an options object, got an AbortSignal: pass it as \`{ signal }\``);
  }
  // Any other object that is not plain (a Date, a Map, a Promise) is a mistake, not an empty options object.
  const tag = typeof options === 'object' && options !== null ? Object.prototype.toString.call(options) : '';
  if (tag !== '' && tag !== '[object Object]' && !Array.isArray(options)) {
    throw new InvalidArgumentError(`Expected ${what} to be a plain object, got ${tag}`);
  }
  requireOptionKeys(options, what, accepted, hints);
}

/** Checks `options` against `accepted` and returns a copy of its valid values (each read once). */
function validateOptions(options: unknown, what: string, accepted: readonly string[], hints: Readonly<Record<string, string>> = {}): WaitOptions {
  requirePlainOptions(options, what, accepted, hints);
  // Each value is read once and the copy returned: a getter cannot hand the caller something unchecked.
  const { threadId, signal } = options as WaitOptions;
  const valid: WaitOptions = {};
  if (threadId !== undefined) valid.threadId = requireThreadId(threadId);
  if (signal !== undefined) {
    if (!(signal instanceof AbortSignal)) throw new InvalidArgumentError(`Expected \`signal\` to be an AbortSignal, got ${describeValue(signal)}`);
    valid.signal = signal;
  }
  // Non-enumerable, so the key check above skipped it: only our own MultiLock passes it.
  const onRefused = (options as WaitOptions)[ON_REFUSED];
  if (typeof onRefused === 'function') valid[ON_REFUSED] = onRefused;
  return valid;
}

/** Validates the options argument of `unlock`, `getHoldCount`, `isHeldByCurrentThread` (only `threadId`). */
export function parseOwnerOptions(options: unknown, what = 'owner options'): OwnerOptions {
  return options === undefined ? NO_OPTIONS : validateOptions(options, what, ['threadId']);
}

/** Validates an options argument that may only carry `signal`. `undefined` is `{}`. */
export function parseSignalOptions(options: unknown, what: string): SignalOptions {
  return options === undefined ? {} : validateOptions(options, what, ['signal']);
}

// ---- counts --------------------------------------------------------------------------------------------

/** Largest permit count: Java's `Integer.MAX_VALUE`, the type of Redisson's permit arguments. */
export const MAX_PERMITS = 2 ** 31 - 1;
/** Smallest signed permit count (`addPermits`, `trySetPermits`): Java's `Integer.MIN_VALUE`. */
export const MIN_PERMITS = -(2 ** 31);

/** Throws unless `value` is an integer permit count in `[min, 2^31 - 1]`. */
export function requirePermits(value: unknown, min = 0, what = 'permits'): number {
  return requireInteger(value, what, min, MAX_PERMITS);
}

// ---- the overload parser -------------------------------------------------------------------------------

/** One family of Java overloads. */
export interface OverloadShape {
  /** The time values' names, in argument order (`['waitTime', 'leaseTime']`). */
  readonly times: readonly string[];
  /**
   * A permit count may come first, as Java tells it: a lone number without a unit (`tryAcquire(int)`), or
   * the first of one number more than there are {@link times}.
   */
  readonly count?: boolean;
  /** What the trailing options object may hold: an owner and a signal (locks), or a signal only. */
  readonly options: 'wait' | 'signal';
}

export interface ParsedOverload {
  /** The permit count given, or `null` (none: the single-permit form). */
  readonly count: number | null;
  /** Millisecond values, `-1` where not given, in argument order. */
  readonly times: number[];
  readonly options: WaitOptions;
}

/** Options not given: one shared frozen object (never written to; every call without options gets it). */
const NO_OPTIONS: WaitOptions = Object.freeze({});
/** A call without arguments (`lock()`, `tryLock()`): nothing to parse, nothing made (issue 29). */
const NO_ARGS: ParsedOverload = Object.freeze({ count: null, times: Object.freeze([]) as unknown as number[], options: NO_OPTIONS });
/** {@link parseTimes} of a call without arguments. */
const NO_TIMES: { times: number[]; options: WaitOptions } = Object.freeze({ times: NO_ARGS.times, options: NO_OPTIONS });

/** Splits `args` into an optional count, up to `shape.times.length` times, an optional unit and options. */
export function parseOverload(method: string, args: readonly unknown[], shape: OverloadShape): ParsedOverload {
  if (args.length === 0) return NO_ARGS;
  const rest = [...args];
  let options: WaitOptions = {};
  const last = rest.at(-1);
  if (last !== null && typeof last === 'object') {
    const what = `${method} options`;
    if (shape.options === 'signal') options = validateOptions(rest.pop(), what, ['signal']);
    else {
      // A time given as an option (`lock({ leaseTime: 5000 })`) is a mistake worth naming: times are positional.
      const signature = `${method}(${[...shape.times, 'unit', 'options'].join('?, ')}?)`;
      const hints = Object.fromEntries(shape.times.map((t) => [t, `(\`${t}\` is not an option but an argument: ${signature})`]));
      options = validateOptions(rest.pop(), what, ['threadId', 'signal'], hints);
    }
  }
  // An explicit `undefined` for trailing optional parameters (a wrapper passing its own optional arguments
  // on) means "not given", as leaving them out does.
  while (rest.length > 0 && rest.at(-1) === undefined) rest.pop();
  let unit: TimeUnit = TimeUnit.MILLISECONDS;
  const unitAt = rest.findIndex((a) => typeof a === 'string');
  if (unitAt >= 0) {
    if (unitAt !== rest.length - 1 || unitAt === 0) throw new InvalidArgumentError(`${method}: a TimeUnit may only follow the time values`);
    unit = requireUnit(rest.pop());
  }
  let count: number | null = null;
  if (shape.count === true && (rest.length === shape.times.length + 1 || (rest.length === 1 && unitAt < 0))) count = requirePermits(rest.shift());
  if (rest.length > shape.times.length) {
    const signature = [...(shape.count === true ? ['permits'] : []), ...shape.times, 'unit', 'options'].join('?, ');
    throw new InvalidArgumentError(`${method}: expected (${signature}?), got ${rest.length + (count === null ? 0 : 1)} numbers before the unit`);
  }
  if (unitAt >= 0 && rest.length === 0) throw new InvalidArgumentError(`${method}: a TimeUnit may only follow a time value`);
  return { count, times: rest.map((value, i) => requireTime(value, unit, shape.times[i] as string)), options };
}

// ---- each family's shape -------------------------------------------------------------------------------

/** The lock family: `(leaseTime?, unit?, options?)`, `(waitTime?, leaseTime?, unit?, options?)`. */
export function parseTimes(method: string, args: readonly unknown[], names: readonly string[]): { times: number[]; options: WaitOptions } {
  if (args.length === 0) return NO_TIMES;
  const { times, options } = parseOverload(method, args, { times: names, options: 'wait' });
  return { times, options };
}

export interface ParsedAcquire {
  readonly permits: number;
  /** `0`: one attempt; `-1`: no limit; else ms. */
  readonly waitMs: number;
  readonly options: SignalOptions;
}

/** RSemaphore `acquire(permits?, options?)`: waits without limit. */
export function parseAcquire(args: readonly unknown[]): ParsedAcquire {
  const { count, options } = parseOverload('acquire', args, { times: [], count: true, options: 'signal' });
  return { permits: count ?? 1, waitMs: -1, options };
}

/**
 * RSemaphore's `tryAcquire` overloads: `()`, `(permits)`, `(waitTime, unit)`, `(permits, waitTime, unit?)`,
 * each with an optional trailing `{ signal }`. Without a wait time: one attempt. A wait of `-1` or `0` is one
 * attempt too (Redisson gives up once its time left is ≤ 0).
 */
export function parseTryAcquire(args: readonly unknown[]): ParsedAcquire {
  const { count, times, options } = parseOverload('tryAcquire', args, { times: ['waitTime'], count: true, options: 'signal' });
  const waitMs = times[0] ?? 0;
  return { permits: count ?? 1, waitMs: waitMs < 0 ? 0 : waitMs, options };
}

export interface ParsedAwait {
  /** `-1`: no limit; else ms (`0`: one check). */
  readonly waitMs: number;
  /** Whether a wait time was given (then the call answers a boolean). */
  readonly timed: boolean;
  readonly options: SignalOptions;
}

/** RCountDownLatch `await(options?)` and `await(waitTime, unit?, options?)`. */
export function parseAwait(args: readonly unknown[]): ParsedAwait {
  const { times, options } = parseOverload('await', args, { times: ['waitTime'], options: 'signal' });
  const [ms] = times;
  return ms === undefined ? { waitMs: -1, timed: false, options } : { waitMs: ms < 0 ? 0 : ms, timed: true, options };
}

/**
 * RPermitExpirableSemaphore's permit-or-time overloads (`acquire(permits)`, `acquire(leaseTime, unit)`,
 * `tryAcquire(permits, waitTime, leaseTime, unit?)`, …): a lone number without a unit is a permit count.
 */
export function parsePermitCall(method: string, args: readonly unknown[], names: readonly string[]): { permits: number | null; times: number[]; options: SignalOptions } {
  const { count, times, options } = parseOverload(method, args, { times: names, count: true, options: 'signal' });
  return { permits: count, times, options };
}

/** A lease: `-1` (none) or at least 1 ms. */
export function requireLease(ms: number): number {
  if (ms !== -1 && ms < 1) throw new ArgumentRangeError(`Expected \`leaseTime\` to be -1 (no lease) or at least 1 ms, got ${ms} ms`);
  return ms;
}

/** A time to live (`trySetPermits(permits, timeToLive, unit?)`, `expire`): at least 1 ms once converted. */
export function requireTimeToLive(value: unknown, unit: unknown, what = 'timeToLive'): number {
  const u = requireUnit(unit);
  const ms = requireTime(value, u, what);
  if (ms < 1) throw new ArgumentRangeError(`Expected \`${what}\` to be at least 1 ms, got ${describeValue(value)} ${u}`);
  return ms;
}

/**
 * An expiry given as Java's `Duration` (a time to live: a number, in `unit`, default ms, at least 1 ms) or as
 * Java's `Instant` (a `Date`, no unit): `{ ttl }` or `{ at }` (epoch ms).
 */
export function parseExpiry(method: string, value: unknown, unit: unknown): { ttl: number } | { at: number } {
  if (value instanceof Date) {
    if (unit !== undefined) throw new InvalidArgumentError(`${method}: a TimeUnit may only follow a time to live, not a Date`);
    return { at: requireTimestamp(value, 'time') };
  }
  return { ttl: requireTimeToLive(value, unit) };
}

/** An absolute time: epoch ms (an integer ≥ 0) or a valid `Date`. */
export function requireTimestamp(value: unknown, what = 'timestamp'): number {
  if (value instanceof Date) {
    const ms = value.getTime();
    if (Number.isNaN(ms)) throw new ArgumentRangeError(`Expected \`${what}\` to be a valid Date, got an Invalid Date`);
    return requireInteger(ms, what, 0, Number.MAX_SAFE_INTEGER);
  }
  return requireInteger(value, what, 0, Number.MAX_SAFE_INTEGER);
}

// ---- the short-lease notice ----------------------------------------------------------------------------

// Nonzero while a MultiLock asks a member: the member's lease is derived from the MultiLock's times
// (twice the wait), so the short-lease notice belongs to the caller's own lease, noted by the MultiLock.
let quietLeaseCalls = 0;

/** Runs the synchronous part of `call` (where a lock method notes its lease) without the short-lease notice. */
export function withoutLeaseNotice<R>(call: () => R): R {
  quietLeaseCalls++;
  try {
    return call();
  } finally {
    quietLeaseCalls--;
  }
}

/** Passes a caller's lease to the client's one-time short-lease warning, unless inside {@link withoutLeaseNotice}. */
export function noteLease(host: { noteLease(name: string, leaseMs: number): void }, name: string, leaseMs: number): void {
  if (quietLeaseCalls === 0) host.noteLease(name, leaseMs);
}
