/**
 * Parsing of Redisson-style overloaded arguments: `(leaseTime?, unit?, options?)` and
 * `(waitTime?, leaseTime?, unit?, options?)`, with Java's `TimeUnit` and a trailing options object.
 */
import { requireThreadId, requireTime, requireUnit } from '../config.js';
import { TimeUnit } from '../TimeUnit.js';

/** Per-call options: every method may name its owner, like Redisson's `*Async(…, threadId)` overloads. */
export interface OwnerOptions {
  /** Thread id of the owner; wins over `runInThread` and the lock object's own id. */
  threadId?: number;
}

/** Options of the waiting methods. */
export interface WaitOptions extends OwnerOptions {
  /** Aborts the wait: the call rejects with `signal.reason` and leaves nothing behind. */
  signal?: AbortSignal;
}

export interface ParsedTimes {
  /** Millisecond values, `-1` where not given, in argument order. */
  readonly times: number[];
  readonly options: WaitOptions;
}

/**
 * Splits `args` into up to `names.length` integers, an optional TimeUnit after them, and an optional
 * options object last. Throws `TypeError`/`RangeError` on anything else.
 */
export function parseTimes(method: string, args: readonly unknown[], names: readonly string[]): ParsedTimes {
  const rest = [...args];
  let options: WaitOptions = {};
  const last = rest.at(-1);
  if (last !== null && typeof last === 'object') {
    options = validateOptions(rest.pop() as WaitOptions);
  } else if (last === undefined && rest.length > 0) {
    rest.pop();
  }
  let unit: TimeUnit = TimeUnit.MILLISECONDS;
  const unitIndex = rest.findIndex((a) => typeof a === 'string');
  if (unitIndex >= 0) {
    if (unitIndex !== rest.length - 1 || unitIndex === 0) {
      throw new TypeError(`${method}: a TimeUnit may only follow the time values`);
    }
    unit = requireUnit(rest.pop());
  }
  if (rest.length > names.length) {
    throw new TypeError(`${method}: expected at most ${names.length} time value(s) before the unit, got ${rest.length}`);
  }
  const times = rest.map((value, i) => requireTime(value, unit, names[i] as string));
  return { times, options };
}

function validateOptions(options: WaitOptions): WaitOptions {
  if (options.threadId !== undefined) requireThreadId(options.threadId);
  if (options.signal !== undefined && !(options.signal instanceof AbortSignal)) {
    throw new TypeError('Expected `signal` to be an AbortSignal');
  }
  return options;
}

/** Validates a trailing owner-options argument. */
export function parseOwnerOptions(options: unknown): OwnerOptions {
  if (options === undefined) return {};
  if (options === null || typeof options !== 'object') {
    throw new TypeError(`Expected options to be an object, got ${typeof options}`);
  }
  return validateOptions(options);
}
