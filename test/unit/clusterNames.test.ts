/**
 * Issue 24, defect 4: Redis Cluster's one-slot rule for a primitive's names. The rule the client applies
 * (`requireOneSlot`, from `usedNames` and `headSlot`) must be exactly "every key and channel this primitive
 * sends for this name hashes to one slot": checked here against the names each primitive's scripts and
 * subscriptions really use (written out below from the Lua headers, with random owner fields, request ids
 * and hold numbers), whose slots `keySlot` computes as Redis does — for hand-picked names per primitive and
 * for generated ones (fast-check). The real cluster (test/cluster/names.cluster.test.ts) shows both sides:
 * refused names fail there with CROSSSLOT, accepted ones work end to end.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { hashTag, headSlot, keySlot } from '../../src/connection/slots.js';
import { placeNames, requireOneSlot, shareOneSlot } from '../../src/connection/clusterNames.js';
import { CrossSlotNameError, RedissonError } from '../../src/index.js';
import {
  countDownLatchChannelName,
  fairLockQueueName,
  fairLockTimeoutName,
  fairLockWaiterChannelName,
  fencedLockTokenName,
  identityNameMapper,
  lockChannelName,
  permitExpirableTimeoutName,
  readLockTimeoutPrefix,
  readWriteLockChannelName,
  semaphoreChannelName,
  unlockLatchName,
  type NamedPrimitive,
  type NameMapper,
} from '../../src/keys.js';

const PRIMITIVES: readonly NamedPrimitive[] = [
  'RLock',
  'FencedLock',
  'SpinLock',
  'NonReentrantLock',
  'FairLock',
  'NonReentrantFairLock',
  'ReadWriteLock',
  'Semaphore',
  'PermitExpirableSemaphore',
  'CountDownLatch',
];

/**
 * What `primitive` named `raw` sends, as its Lua scripts' KEYS (channels included) and its subscriptions
 * name them, with one owner field, request id and read-hold number.
 */
function sentNames(primitive: NamedPrimitive, raw: string, field: string, requestId: string, hold: number): string[] {
  const latch = unlockLatchName(raw, requestId);
  switch (primitive) {
    case 'RLock':
    case 'NonReentrantLock':
      return [raw, lockChannelName(raw), latch];
    case 'FencedLock':
      return [raw, fencedLockTokenName(raw), lockChannelName(raw), latch];
    case 'SpinLock':
      return [raw, latch];
    case 'FairLock':
    case 'NonReentrantFairLock':
      return [raw, fairLockQueueName(raw), fairLockTimeoutName(raw), lockChannelName(raw), fairLockWaiterChannelName(raw, field), latch];
    case 'ReadWriteLock': {
      const prefix = readLockTimeoutPrefix(raw, field);
      // readUnlockInner's KEYS[4] (RedissonReadLock's timeoutKeyPrefix) and one hold's lease key.
      return [raw, readWriteLockChannelName(raw), prefix, prefix.slice(0, prefix.indexOf(`:${field}`)), `${prefix}:${hold}`, latch];
    }
    case 'Semaphore':
      return [raw, semaphoreChannelName(raw)];
    case 'PermitExpirableSemaphore':
      return [raw, permitExpirableTimeoutName(raw), semaphoreChannelName(raw)];
    case 'CountDownLatch':
      return [raw, countDownLatchChannelName(raw)];
  }
}

/** The truth, sampled: do two sets of run-time values give one slot for every name sent? */
function reallyOneSlot(primitive: NamedPrimitive, raw: string, keyPrefix: string): boolean {
  const names = [1, 2].flatMap(() => sentNames(primitive, raw, `${randomUUID()}:${1_000_000_000 + Math.floor(Math.random() * 1e6)}`, randomBytes(16).toString('hex'), 1 + Math.floor(Math.random() * 9)));
  const slots = new Set(names.map((n) => keySlot(keyPrefix + n)));
  return slots.size === 1;
}

const accepted = (primitive: NamedPrimitive, name: string, keyPrefix = '', mapper: NameMapper = identityNameMapper): boolean => {
  try {
    requireOneSlot(`get${primitive}`, primitive, name, mapper, keyPrefix);
    return true;
  } catch (error) {
    if (error instanceof CrossSlotNameError) return false;
    throw error;
  }
};

describe('hash tags as Redis reads them', () => {
  it('hashTag / headSlot: the first `{`, the first `}` after it, not empty; else the whole name', () => {
    expect(hashTag('orders:{42}:latch')).toBe('42');
    expect(hashTag('redisson_countdownlatch__channel__{orders:{42}:latch}')).toBe('orders:{42');
    expect(hashTag('x{}y{z}')).toBeNull(); // an empty first tag: Redis does not look further
    expect(hashTag('a{b')).toBeNull();
    expect(hashTag('a}b{c}')).toBe('c');
    expect(headSlot('redisson_unlock_latch:{n}:')).toBe(keySlot('n'));
    expect(headSlot('redisson_unlock_latch:x{}y:')).toBeNull();
    expect(headSlot('redisson_unlock_latch:a{b:')).toBeNull();
    expect(headSlot('plain:')).toBeNull();
  });
});

describe('the one-slot rule, per primitive', () => {
  // [name, keyPrefix, primitives that may use it (all others refuse it)]
  const CASES: ReadonlyArray<readonly [string, string, readonly NamedPrimitive[]]> = [
    ['orders:42', '', PRIMITIVES], // no brace: every name carries {orders:42} or is hashed whole by it
    ['orders:{42}:latch', '', PRIMITIVES.filter((p) => p !== 'CountDownLatch')], // the latch channel's own braces split it
    ['{orders:42}:latch', '', PRIMITIVES.filter((p) => p !== 'CountDownLatch')],
    ['{orders:42}', '', PRIMITIVES.filter((p) => p !== 'CountDownLatch')],
    ['x{}y', '', []], // an empty first tag: each derived name is hashed whole
    // A `{` that never closes: each derived name is hashed whole — but the latch channel's own braces make
    // its tag `a{b`, the whole latch key: that one fits.
    ['a{b', '', ['CountDownLatch']],
    ['a}b', '', []], // no `{`, but the `{a}b}` Redisson adds has tag `a`
    ['{}', '', []],
    ['x{}y{z}', '', []],
    ['plain', 'app:', []], // a keyPrefix outside Redisson's braces: the key is hashed whole, its channel by `plain`
    ['{plain}', 'app:', PRIMITIVES.filter((p) => p !== 'CountDownLatch')],
    ['plain', '{app}:', PRIMITIVES], // a prefix with its own tag puts everything in its slot
  ];
  it.each(CASES)('%j with keyPrefix %j', (name, keyPrefix, ok) => {
    for (const primitive of PRIMITIVES) {
      const verdict = accepted(primitive, name, keyPrefix);
      expect({ primitive, verdict }).toEqual({ primitive, verdict: ok.includes(primitive) });
      expect({ primitive, truth: reallyOneSlot(primitive, name, keyPrefix) }).toEqual({ primitive, truth: verdict });
    }
  });

  it('the names of the issue are refused with a typed error naming each key and channel, its slot, and a name that fits', () => {
    const latch = (() => {
      try {
        requireOneSlot('getCountDownLatch', 'CountDownLatch', 'orders:{42}:latch', identityNameMapper, '');
      } catch (error) {
        return error;
      }
      return null;
    })() as CrossSlotNameError;
    expect(latch).toBeInstanceOf(CrossSlotNameError);
    expect(latch).toBeInstanceOf(RedissonError);
    expect(latch.name).toBe('CrossSlotNameError');
    expect(latch.message).toContain(`key \`orders:{42}:latch\` (the latch) is in slot ${keySlot('42')} (hash tag \`42\`)`);
    expect(latch.message).toContain(`channel \`redisson_countdownlatch__channel__{orders:{42}:latch}\` (the latch channel) is in slot ${keySlot('orders:{42')} (hash tag \`orders:{42\`)`);
    expect(latch.message).toContain("such as 'orders:42:latch'");
    expect(latch.suggestion).toBe('orders:42:latch');
    expect(latch.names.map((n) => n.slot)).toEqual([keySlot('42'), keySlot('orders:{42')]);

    const fair = (() => {
      try {
        requireOneSlot('getFairLock', 'FairLock', 'x{}y', identityNameMapper, '');
      } catch (error) {
        return error;
      }
      return null;
    })() as CrossSlotNameError;
    expect(fair).toBeInstanceOf(CrossSlotNameError);
    expect(fair.message).toContain('first hash tag `{}` is empty');
    expect(fair.message).toContain('`redisson_unlock_latch:x{}y:<request id>` (unlock latches) has no fixed slot');
    expect(fair.suggestion).toBe('{xy}');
  });

  it('a name refused only for its keyPrefix says to map names with nameMapper when no rewrite fits', () => {
    expect(() => requireOneSlot('getCountDownLatch', 'CountDownLatch', 'plain', identityNameMapper, 'app:')).toThrow(/keyPrefix 'app:'.*nameMapper/);
    expect(() => requireOneSlot('getLock', 'RLock', 'plain', identityNameMapper, 'app:')).toThrow(/such as '\{plain\}'/);
  });

  it('checks the mapped name: a NameMapper that adds a prefix inside the tag, or one that breaks it', () => {
    const inside: NameMapper = { map: (n) => `app:${n}`, unmap: (r) => r.slice(4) };
    expect(accepted('CountDownLatch', 'orders:42:latch', '', inside)).toBe(true);
    const breaking: NameMapper = { map: (n) => `${n}{`, unmap: (r) => r.slice(0, -1) };
    expect(accepted('RLock', 'orders:42', '', breaking)).toBe(false);
  });
});

describe('the rule is exactly "every name sent shares one slot" (generated names)', () => {
  // Names over an alphabet rich in braces, so every kind of tag (none, empty, open, several) comes up.
  const name = fc.string({ unit: fc.constantFrom('{', '}', 'a', 'b', ':', '4', '2'), minLength: 1, maxLength: 10 });
  const keyPrefix = fc.constantFrom('', 'app:', '{app}:', 'x{', '}');

  it('for every primitive, refused ⇔ some key or channel would land in another slot', () => {
    fc.assert(
      fc.property(fc.constantFrom(...PRIMITIVES), name, keyPrefix, (primitive, n, prefix) => {
        expect(accepted(primitive, n, prefix)).toBe(reallyOneSlot(primitive, n, prefix));
      }),
      { numRuns: 3_000 },
    );
  });

  it('a suggested name is accepted, and every placed name of an accepted one has the same slot', () => {
    fc.assert(
      fc.property(fc.constantFrom(...PRIMITIVES), name, keyPrefix, (primitive, n, prefix) => {
        try {
          requireOneSlot('get', primitive, n, identityNameMapper, prefix);
          const placed = placeNames(primitive, n, prefix);
          expect(shareOneSlot(placed)).toBe(true);
        } catch (error) {
          if (!(error instanceof CrossSlotNameError)) throw error;
          if (error.suggestion !== null) expect(accepted(primitive, error.suggestion, prefix)).toBe(true);
          // Without a keyPrefix outside the braces there is always one: the name without braces.
          if (prefix === '' && n.replace(/[{}]/g, '') !== '') expect(error.suggestion).not.toBeNull();
        }
      }),
      { numRuns: 2_000 },
    );
  });
});
