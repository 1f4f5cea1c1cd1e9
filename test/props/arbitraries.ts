/**
 * fast-check arbitraries of bad input for the client and RLock (test/props/badInput.test.ts): names,
 * times, units, thread ids and option objects that every public method must reject before sending anything.
 */
import fc from 'fast-check';
import { TimeUnit } from '../../src/index.js';

export const MAX_SAFE = Number.MAX_SAFE_INTEGER;
export const UNITS = Object.values(TimeUnit);
export const isWellFormed = (s: string): boolean => !/\p{Cs}/u.test(s);

/** Objects that are not plain options objects. */
export const nonPlainObject = fc.constantFrom<object>(new Date(0), new Map(), new Set(), /re/, new Error('e'), Promise.resolve(1), AbortSignal.abort(), new Uint8Array(2));
/** Anything that is not a string (names). */
export const notAString = fc.oneof(
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constantFrom(null, undefined, Symbol('s'), 10n),
  fc.object(),
  fc.array(fc.anything(), { maxLength: 3 }),
  nonPlainObject,
  fc.func(fc.string()),
);
/** A string holding at least one lone UTF-16 surrogate. */
export const loneSurrogateString = fc
  .tuple(fc.string({ maxLength: 8 }), fc.integer({ min: 0xd800, max: 0xdfff }), fc.string({ maxLength: 8 }))
  .map(([a, unit, b]) => a + String.fromCharCode(unit) + b)
  .filter((s) => !isWellFormed(s));
export const badName = fc.oneof(notAString, fc.constant(''), loneSurrogateString);

/** Not an integer in [-1, MAX_SAFE] (nor `undefined`, which means "not given", nor a plain object, which is options). */
export const badTime = fc.oneof(
  fc.constantFrom(Number.NaN, Infinity, -Infinity, MAX_SAFE + 2, 2 ** 60, 1e300, -2, Number.MIN_SAFE_INTEGER, -0.5, 0.5, 1.5),
  fc.double({ noInteger: true }),
  fc.integer({ max: -2 }),
  fc.double({ min: MAX_SAFE + 2, max: Number.MAX_VALUE, noNaN: true }),
  fc.string({ maxLength: 8 }),
  fc.constantFrom(true, false, null, Symbol('t'), 5n),
  fc.array(fc.anything(), { maxLength: 2 }),
  nonPlainObject,
);
/** Not a TimeUnit, where a unit belongs. */
export const badUnit = fc.oneof(
  fc.string({ maxLength: 12 }).filter((s) => !(UNITS as string[]).includes(s)),
  fc.constantFrom('seconds', 'SECOND', 'ms', 'MILLISECONDS ', 'days'),
  fc.constantFrom(null, true, Symbol('u'), 1n, Number.NaN),
  nonPlainObject,
);
/** Not a non-negative safe integer. */
export const badThreadId = fc.oneof(
  fc.integer({ max: -1 }),
  fc.double({ noInteger: true }),
  fc.constantFrom(Number.NaN, Infinity, -Infinity, MAX_SAFE + 1, 2 ** 60, -0.1),
  fc.string({ maxLength: 6 }),
  fc.constantFrom(null, true, 7n, Symbol('id')),
  fc.object({ maxDepth: 1 }),
);
export const validThreadId = fc.oneof(fc.integer({ min: 0, max: 1_000 }), fc.constant(MAX_SAFE));

const WAIT_KEYS = ['threadId', 'signal'];
const OWNER_KEYS = ['threadId'];

/** An options object with a key outside `accepted` (a typo, `leaseTime`, anything), maybe next to valid keys. */
export const withUnknownKey = (accepted: readonly string[]): fc.Arbitrary<object> =>
  fc
    .tuple(
      fc.dictionary(
        fc.oneof(fc.string({ maxLength: 10 }), fc.constantFrom('leaseTime', 'waitTime', 'unit', 'threadID', 'thread', 'timeout', '__proto__', 'constructor')),
        fc.anything({ maxDepth: 1 }),
        { minKeys: 1, maxKeys: 3 },
      ),
      fc.option(validThreadId, { nil: undefined }),
      fc.boolean(),
    )
    .filter(([extra]) => Object.keys(extra).some((k) => !accepted.includes(k)))
    .map(([extra, threadId, nullProto]) => {
      const target = (nullProto ? Object.create(null) : {}) as Record<string, unknown>;
      if (threadId !== undefined) target['threadId'] = threadId;
      for (const [k, v] of Object.entries(extra)) Object.defineProperty(target, k, { value: v, enumerable: true, configurable: true, writable: true });
      return target;
    });

/** Options objects a waiting method (lock, tryLock) must reject. */
export const badWaitOptions = fc.oneof(
  withUnknownKey(WAIT_KEYS),
  badThreadId.map((threadId) => ({ threadId })),
  fc.anything({ maxDepth: 1 }).filter((s) => s !== undefined && !(s instanceof AbortSignal)).map((signal) => ({ signal })),
  fc.array(fc.anything({ maxDepth: 1 }), { maxLength: 3 }),
  nonPlainObject,
);
/** What `unlock`, `getHoldCount`, `isHeldByCurrentThread` must reject: anything but `undefined` or `{ threadId? }`. */
export const badOwnerOptions: fc.Arbitrary<unknown> = fc.oneof<fc.Arbitrary<unknown>[]>(
  withUnknownKey(OWNER_KEYS),
  fc.constant<object>({ signal: new AbortController().signal }),
  badThreadId.map((threadId) => ({ threadId })),
  fc.array(fc.anything({ maxDepth: 1 }), { maxLength: 3 }),
  nonPlainObject,
  fc.constantFrom(null, 0, 7, 'x', true, Symbol('o'), 3n),
);
