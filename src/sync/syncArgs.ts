/**
 * Argument parsing of the synchronizers (RSemaphore, RCountDownLatch): permit counts as Java `int`s, the
 * `(permits?, waitTime?, unit?, options?)` overloads of Redisson's `tryAcquire`, and `{ signal }` options.
 * Every check throws `TypeError`/`RangeError` before anything is sent to Redis.
 */
import { describeValue, requireInteger, requireOptionKeys, requireTime, requireUnit } from '../config.js';
import { TimeUnit } from '../TimeUnit.js';
import { ArgumentRangeError, InvalidArgumentError } from '../errors.js';

/** Largest permit count: Java's `Integer.MAX_VALUE`, the type of Redisson's permit arguments. */
export const MAX_PERMITS = 2 ** 31 - 1;
/** Smallest signed permit count (`addPermits`, `trySetPermits`): Java's `Integer.MIN_VALUE`. */
export const MIN_PERMITS = -(2 ** 31);

/** Options of the waiting methods of semaphores and latches (they have no owner: no `threadId`). */
export interface SignalOptions {
  /** Aborts the wait: the call rejects with `signal.reason` and leaves nothing behind. */
  signal?: AbortSignal;
}

/** Throws unless `value` is an integer permit count in `[min, 2^31 - 1]`. */
export function requirePermits(value: unknown, min = 0, what = 'permits'): number {
  return requireInteger(value, what, min, MAX_PERMITS);
}

/** Validates an options argument that may only carry `signal`. `undefined` is `{}`. */
export function parseSignalOptions(options: unknown, what: string): SignalOptions {
  if (options === undefined) return {};
  if (options instanceof AbortSignal) {
    throw new InvalidArgumentError(`Expected ${what} to be an options object, got an AbortSignal: pass it as \`{ signal }\``);
  }
  const tag = typeof options === 'object' && options !== null ? Object.prototype.toString.call(options) : '';
  if (tag !== '' && tag !== '[object Object]' && !Array.isArray(options)) {
    throw new InvalidArgumentError(`Expected ${what} to be a plain object, got ${tag}`);
  }
  requireOptionKeys(options, what, ['signal']);
  const { signal } = options as SignalOptions;
  if (signal !== undefined && !(signal instanceof AbortSignal)) {
    throw new InvalidArgumentError(`Expected \`signal\` to be an AbortSignal, got ${describeValue(signal)}`);
  }
  return options as SignalOptions;
}

/** Splits off a trailing options object (or a trailing `undefined`). */
function splitOptions(method: string, args: readonly unknown[]): { rest: unknown[]; options: SignalOptions } {
  const rest = [...args];
  const last = rest.at(-1);
  if (last !== null && typeof last === 'object') return { rest: rest.slice(0, -1), options: parseSignalOptions(last, `${method} options`) };
  if (last === undefined && rest.length > 0) rest.pop();
  return { rest, options: {} };
}

/** Splits a trailing TimeUnit off `rest` (milliseconds when there is none). */
function splitUnit(method: string, rest: unknown[]): TimeUnit {
  const at = rest.findIndex((a) => typeof a === 'string');
  if (at < 0) return TimeUnit.MILLISECONDS;
  if (at !== rest.length - 1 || at === 0) throw new InvalidArgumentError(`${method}: a TimeUnit may only follow a time value`);
  return requireUnit(rest.pop());
}

export interface ParsedAcquire {
  readonly permits: number;
  /** `0`: one attempt; `-1`: no limit; else ms. */
  readonly waitMs: number;
  readonly options: SignalOptions;
}

/** `acquire(permits?, options?)`: waits without limit. */
export function parseAcquire(args: readonly unknown[]): ParsedAcquire {
  const { rest, options } = splitOptions('acquire', args);
  if (rest.length > 1) throw new InvalidArgumentError(`acquire: expected (permits?, options?), got ${rest.length} values before the options`);
  return { permits: rest.length === 0 ? 1 : requirePermits(rest[0]), waitMs: -1, options };
}

/**
 * Redisson's `tryAcquire` overloads: `()`, `(permits)`, `(waitTime, unit)`, `(permits, waitTime, unit?)`,
 * each with an optional trailing `{ signal }`. Without a wait time: one attempt. A wait of `-1` or `0`
 * is one attempt too (Redisson gives up once its time left is ≤ 0).
 */
export function parseTryAcquire(args: readonly unknown[]): ParsedAcquire {
  const { rest, options } = splitOptions('tryAcquire', args);
  const unitGiven = rest.some((a) => typeof a === 'string');
  const unit = splitUnit('tryAcquire', rest);
  if (rest.length > 2) throw new InvalidArgumentError(`tryAcquire: expected (permits?, waitTime?, unit?, options?), got ${rest.length} numbers`);
  // A unit after a single number makes that number the wait: Redisson's tryAcquire(waitTime, unit).
  const [permitsArg, waitArg] = unitGiven && rest.length === 1 ? [1, rest[0]] : [rest[0] ?? 1, rest[1]];
  const permits = requirePermits(permitsArg);
  const waitMs = waitArg === undefined ? 0 : requireTime(waitArg, unit, 'waitTime');
  return { permits, waitMs: waitMs < 0 ? 0 : waitMs, options };
}

export interface ParsedAwait {
  /** `-1`: no limit; else ms (`0`: one check). */
  readonly waitMs: number;
  /** Whether a wait time was given (then the call answers a boolean). */
  readonly timed: boolean;
  readonly options: SignalOptions;
}

/** `await(options?)` and `await(waitTime, unit?, options?)` of a CountDownLatch. */
export function parseAwait(args: readonly unknown[]): ParsedAwait {
  const { rest, options } = splitOptions('await', args);
  const unit = splitUnit('await', rest);
  if (rest.length > 1) throw new InvalidArgumentError(`await: expected (waitTime?, unit?, options?), got ${rest.length} numbers`);
  if (rest.length === 0) return { waitMs: -1, timed: false, options };
  const ms = requireTime(rest[0], unit, 'waitTime');
  return { waitMs: ms < 0 ? 0 : ms, timed: true, options };
}

/** A time to live (`trySetPermits(permits, timeToLive, unit?)`): at least 1 ms once converted. */
export function requireTimeToLive(value: unknown, unit: unknown): number {
  const u = requireUnit(unit);
  const ms = requireTime(value, u, 'timeToLive');
  if (ms < 1) throw new ArgumentRangeError(`Expected \`timeToLive\` to be at least 1 ms, got ${describeValue(value)} ${u}`);
  return ms;
}
