import { describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { DEFAULTS, requireTime, resolveOptions, unlockLatchTtl } from '../../src/config.js';
import { parseTimes } from '../../src/locks/lockArgs.js';
import { Redisson, TimeUnit } from '../../src/index.js';

describe('options', () => {
  it('fills in Redisson defaults, frozen', () => {
    const o = resolveOptions();
    expect(o).toMatchObject({ lockWatchdogTimeout: 30_000, lockWatchdogBatchSize: 100, subscriptionTimeout: 7_500, timeout: 3_000, retryAttempts: 4 });
    expect(Object.isFrozen(o)).toBe(true);
    expect(Object.isFrozen(DEFAULTS)).toBe(true);
  });

  it.each([
    [{ lockWatchdogTimeout: Number.NaN }, TypeError, /lockWatchdogTimeout.*number, got `NaN`/],
    [{ lockWatchdogTimeout: 1.5 }, RangeError, /finite integer/],
    [{ lockWatchdogTimeout: Infinity }, RangeError, /finite integer/],
    [{ lockWatchdogTimeout: 0 }, RangeError, /between/],
    [{ lockWatchdogBatchSize: 0 }, RangeError, /lockWatchdogBatchSize/],
    [{ redis: 'http://localhost' }, TypeError, /redis:\/\//],
    [{ redis: 'not a url' }, TypeError, /redis:\/\//],
    [{ redis: 42 }, TypeError, /redis/],
  ])('rejects %o before connecting', (options, type, message) => {
    expect(() => Redisson.create(options as never)).toThrow(type);
    expect(() => Redisson.create(options as never)).toThrow(message);
  });

  it('sizes the unlock latch TTL as Redisson does with its defaults (16000..20000 ms)', () => {
    for (let i = 0; i < 200; i++) {
      const ttl = unlockLatchTtl({ timeout: 3000, retryAttempts: 4 });
      expect(ttl).toBeGreaterThanOrEqual(16_000);
      expect(ttl).toBeLessThanOrEqual(20_000);
      expect(Number.isInteger(ttl)).toBe(true);
    }
    expect(unlockLatchTtl({ timeout: 3000, retryAttempts: 0 })).toBe(1);
  });
});

describe('time arguments', () => {
  it('converts units like Java TimeUnit.toMillis (truncating)', () => {
    expect(requireTime(10, TimeUnit.SECONDS, 'leaseTime')).toBe(10_000);
    expect(requireTime(1500, TimeUnit.MICROSECONDS, 'leaseTime')).toBe(1);
    expect(requireTime(2, TimeUnit.MINUTES, 'w')).toBe(120_000);
    expect(requireTime(-1, TimeUnit.HOURS, 'w')).toBe(-1);
    expect(requireTime(undefined, TimeUnit.HOURS, 'w')).toBe(-1);
  });

  it('parses the overloads: (wait), (wait, unit), (wait, lease, unit), trailing options', () => {
    const signal = new AbortController().signal;
    expect(parseTimes('tryLock', [], ['waitTime', 'leaseTime']).times).toEqual([]);
    expect(parseTimes('tryLock', [500], ['waitTime', 'leaseTime']).times).toEqual([500]);
    expect(parseTimes('tryLock', [5, TimeUnit.SECONDS], ['waitTime', 'leaseTime']).times).toEqual([5000]);
    expect(parseTimes('tryLock', [100, 10, TimeUnit.SECONDS], ['waitTime', 'leaseTime']).times).toEqual([100_000, 10_000]);
    const p = parseTimes('tryLock', [100, { threadId: 7, signal }], ['waitTime', 'leaseTime']);
    expect(p.times).toEqual([100]);
    expect(p.options).toEqual({ threadId: 7, signal });
  });

  it.each([
    [[Number.NaN], TypeError],
    [[Infinity], RangeError],
    [[1.5], RangeError],
    [[-2], RangeError],
    [['10'], TypeError],
    [[10, 'FORTNIGHTS'], TypeError],
    [[1, 2, 3], TypeError],
    [[TimeUnit.SECONDS], TypeError],
    [[10, { threadId: -1 }], RangeError],
    [[10, { threadId: 1.5 }], RangeError],
    [[10, { signal: 'no' }], TypeError],
  ])('rejects %o with a typed error', (args, type) => {
    expect(() => parseTimes('tryLock', args, ['waitTime', 'leaseTime'])).toThrow(type);
  });
});

describe('bad input never reaches Redis', () => {
  it('throws from getLock and lock methods before sending anything', async () => {
    // An ioredis instance that is never connected: any command sent would queue, never settle.
    const redis = new Redis({ lazyConnect: true, enableOfflineQueue: false });
    const client = Redisson.create({ redis });
    try {
      expect(() => client.getLock('')).toThrow(RangeError);
      expect(() => client.getLock(42 as never)).toThrow(TypeError);
      const lock = client.getLock('x');
      await expect(lock.lock(Number.NaN)).rejects.toThrow(TypeError);
      await expect(lock.tryLock(10, 'WEEKS' as never)).rejects.toThrow(TypeError);
      await expect(lock.unlock({ threadId: -5 })).rejects.toThrow(RangeError);
      await expect(lock.isHeldByThread(Number.NaN)).rejects.toThrow(TypeError);
      expect(() => client.runInThread(() => 1, 2.5)).toThrow(RangeError);
      expect(redis.status).toBe('wait');
    } finally {
      await client.shutdown();
      redis.disconnect();
    }
  });
});

describe('the redis option', () => {
  it('tells an ioredis instance from options, also across copies of ioredis', async () => {
    const { isRedisInstance } = await import('../../src/config.js');
    const redis = new Redis({ lazyConnect: true });
    expect(isRedisInstance(redis)).toBe(true);
    expect(isRedisInstance({ host: 'x', port: 1 })).toBe(false);
    // A client-shaped object from another copy of ioredis is recognised by its methods.
    const foreign = Object.create({ duplicate() {}, defineCommand() {}, sendCommand() {} }) as object;
    expect(isRedisInstance(foreign)).toBe(true);
    redis.disconnect();
  });

  it('rejects a class instance that is not an ioredis client instead of reading it as options', () => {
    class SomethingElse {
      host = 'db.internal';
    }
    expect(() => Redisson.create({ redis: new SomethingElse() as never })).toThrow(TypeError);
    expect(() => Redisson.create({ lockWatchdogTimeout: 2 ** 33 })).toThrow(RangeError);
  });
});
