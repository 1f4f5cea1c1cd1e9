/**
 * Parsing of Redisson-style overloaded arguments: `(leaseTime?, unit?, options?)` and
 * `(waitTime?, leaseTime?, unit?, options?)`, with Java's `TimeUnit` and a trailing options object.
 */
import { describeValue, requireOptionKeys, requireThreadId, requireTime, requireUnit } from '../config.js';
import { TimeUnit } from '../TimeUnit.js';
import { InvalidArgumentError } from '../errors.js';

/** Per-call options: every method may name its owner, like Redisson's `*Async(…, threadId)` overloads. */
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

/** Options of the waiting methods. */
export interface WaitOptions extends OwnerOptions {
  /** Aborts the wait: the call rejects with `signal.reason` and leaves nothing behind. */
  signal?: AbortSignal;
  /** @internal see {@link ON_REFUSED}. */
  [ON_REFUSED]?: (retryAfterMs: number) => void;
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
    // A time given as an option (`lock({ leaseTime: 5000 })`) is a mistake worth naming: times are positional.
    const signature = `${method}(${[...names, 'unit', 'options'].join('?, ')}?)`;
    const hints = Object.fromEntries(names.map((t) => [t, `(\`${t}\` is not an option but an argument: ${signature})`]));
    options = validateOptions(rest.pop(), `${method} options`, WAIT_KEYS, hints);
  }
  // An explicit `undefined` for trailing optional parameters (`lock(lease, undefined, undefined)`, as a
  // wrapper passing its own optional arguments on writes it) means "not given", as leaving them out does.
  while (rest.length > 0 && rest.at(-1) === undefined) rest.pop();
  let unit: TimeUnit = TimeUnit.MILLISECONDS;
  const unitIndex = rest.findIndex((a) => typeof a === 'string');
  if (unitIndex >= 0) {
    if (unitIndex !== rest.length - 1 || unitIndex === 0) {
      throw new InvalidArgumentError(`${method}: a TimeUnit may only follow the time values`);
    }
    unit = requireUnit(rest.pop());
  }
  if (rest.length > names.length) {
    throw new InvalidArgumentError(`${method}: expected at most ${names.length} time value(s) before the unit, got ${rest.length}`);
  }
  const times = rest.map((value, i) => requireTime(value, unit, names[i] as string));
  return { times, options };
}

const WAIT_KEYS = ['threadId', 'signal'] as const;
const OWNER_KEYS = ['threadId'] as const;

/**
 * Throws `TypeError` unless `options` is a plain options object whose own keys are all in `accepted`, with
 * `Redisson.create`'s message (``Unknown option `x` in … (did you mean `y`?); accepted: …``). Every per-call
 * and per-object options bag goes through it, before anything is sent.
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

/** Throws unless `options` is a plain options object with only `accepted` keys, each valid. */
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
  if (options === undefined) return {};
  return validateOptions(options, what, OWNER_KEYS);
}

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
