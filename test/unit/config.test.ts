import { afterAll, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { DEFAULTS, requireName, requireTime, resolveOptions, unlockLatchTtl, type RedissonOptions } from '../../src/config.js';
import { parseOwnerOptions, parseTimes } from '../../src/args.js';
import { Redisson, TimeUnit } from '../../src/index.js';

describe('options', () => {
  it('fills in Redisson defaults, frozen', () => {
    const o = resolveOptions();
    expect(o).toMatchObject({ lockWatchdogTimeout: 30_000, lockWatchdogBatchSize: 100, subscriptionTimeout: 7_500, timeout: 3_000, retryAttempts: 4 });
    expect(Object.isFrozen(o)).toBe(true);
    expect(Object.isFrozen(DEFAULTS)).toBe(true);
    expect(resolveOptions({ lockWatchdogTimeout: 300 }).lockWatchdogTimeout).toBe(300);
    expect(o.shortLeaseWarning).toBe(true);
  });

  it.each([
    [{ lockWatchdogTimeout: Number.NaN }, TypeError, /lockWatchdogTimeout.*number, got `NaN`/],
    [{ lockWatchdogTimeout: 1.5 }, RangeError, /finite integer/],
    [{ lockWatchdogTimeout: Infinity }, RangeError, /finite integer/],
    [{ lockWatchdogTimeout: 0 }, RangeError, /between/],
    // Seconds where Redisson wants milliseconds: named, with the value meant.
    [{ lockWatchdogTimeout: 30 }, RangeError, /in milliseconds, as in Redisson, and must be at least 300; got 30 \(100 renewal scripts a second per lock\)\. For 30 seconds pass 30000\./],
    [{ lockWatchdogTimeout: 299 }, RangeError, /at least 300; got 299/],
    [{ shortLeaseWarning: 'no' }, TypeError, /`shortLeaseWarning` to be a boolean/],
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

  it('takes an explicit undefined for any optional argument as "not given"', () => {
    const names = ['waitTime', 'leaseTime'];
    expect(parseTimes('lock', [5, undefined, undefined], ['leaseTime']).times).toEqual([5]);
    expect(parseTimes('lock', [5, undefined, { threadId: 2 }], ['leaseTime'])).toEqual({ times: [5], options: { threadId: 2 } });
    expect(parseTimes('lock', [undefined, undefined, undefined], ['leaseTime']).times).toEqual([]);
    expect(parseTimes('tryLock', [5, undefined, undefined, undefined], names).times).toEqual([5]);
    expect(parseTimes('tryLock', [5, undefined, TimeUnit.SECONDS, undefined], names).times).toEqual([5_000, -1]);
    expect(parseTimes('tryLock', [undefined, 7, undefined, {}], names).times).toEqual([-1, 7]);
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

// Clients over never-connected ioredis instances: anything sent would queue forever, nothing reaches a server.
const lazyClients: Redisson[] = [];
const lazyClient = (options: RedissonOptions = {}): Redisson => {
  const client = Redisson.create({ redis: new Redis({ lazyConnect: true, enableOfflineQueue: false }), ...options });
  lazyClients.push(client);
  return client;
};
afterAll(async () => {
  for (const c of lazyClients) {
    await c.shutdown();
    c.redis.disconnect();
  }
});

describe('names (issue 8, defect 4)', () => {
  const client = lazyClient();

  it.each([['x\uD800'], ['x\uDBFF'], ['\uDC00'], ['a\uDC00\uD800b'], ['{tag\uD83D}']])('rejects %j: a lone UTF-16 surrogate', (name) => {
    expect(() => client.getLock(name)).toThrow(RangeError);
    expect(() => client.getLock(name)).toThrow(/Expected `name` to be well-formed Unicode, got a lone surrogate U\+D[89A-F][0-9A-F]{2} at index \d+/);
  });

  it('accepts surrogate pairs and other well-formed names', () => {
    for (const name of ['😀', 'a\uD83D\uDE00b', 'ü{ñ}', '\u0000', ' ']) expect(client.getLock(name).getName()).toBe(name);
  });

  it('requireName names the argument it checks', () => {
    expect(() => requireName('\uD800', 'lockName')).toThrow(/`lockName`/);
  });
});

describe('nameMapper results (issue 8, defect 7)', () => {
  const withMapper = (map: (name: string) => unknown): Redisson => lazyClient({ nameMapper: { map, unmap: (raw: string) => raw } as never });

  it.each([
    [() => 42, TypeError, /Expected `nameMapper.map` to return a non-empty string for `'n'` \(string\), got `42`/],
    [() => undefined, TypeError, /nameMapper\.map.*got `undefined`/],
    [() => null, TypeError, /nameMapper\.map.*got `null` \(null\)/],
    [() => ({}), TypeError, /nameMapper\.map/],
    [() => '', RangeError, /nameMapper\.map.*got `''`/],
    [(n: string) => `${n}\uD800`, RangeError, /nameMapper\.map.*lone surrogate at index 1/],
  ])('rejects a mapper returning %s', (map, type, message) => {
    const client = withMapper(map);
    expect(() => client.getLock('n')).toThrow(type);
    expect(() => client.getLock('n')).toThrow(message);
  });

  it('uses a valid mapper result as the key, and rejects a mapper that is not an object', () => {
    expect(withMapper((n) => `app:${n}`).getLock('n').getName()).toBe('n');
    expect(() => Redisson.create({ nameMapper: {} as never })).toThrow(/`nameMapper` to have `map` and `unmap`/);
    expect(() => Redisson.create({ nameMapper: 'prefix' as never })).toThrow(TypeError);
  });
});

describe('options objects (issue 8, defect 7)', () => {
  it('rejects an unknown Redisson.create key, naming it and listing the accepted keys', () => {
    const typo = { lockWatchDogTimeout: 60_000 };
    expect(() => Redisson.create(typo as never)).toThrow(TypeError);
    let message = '';
    try {
      Redisson.create(typo as never);
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toMatch(/^Unknown option `lockWatchDogTimeout` in Redisson.create options \(did you mean `lockWatchdogTimeout`\?\); accepted: `redis`(, `\w+`)+$/);
    // Every option is listed, also ones added later (all have a default but `nameMapper`).
    for (const key of [...Object.keys(DEFAULTS), 'nameMapper']) expect(message).toContain(`\`${key}\``);
    expect(() => Redisson.create({ keyPrefix: 'x' } as never)).toThrow(/Unknown option `keyPrefix`/);
    expect(() => Redisson.create({ [Symbol('s')]: 1 })).toThrow(/Unknown option `Symbol\(s\)`/);
    // undefined values of known keys take the default, as before
    expect(resolveOptions({ timeout: undefined } as never).timeout).toBe(3_000);
  });

  it.each(['redis', 'lockWatchdogTimeout', 'lockWatchdogBatchSize', 'subscriptionTimeout', 'subscriptionLinger', 'timeout', 'retryAttempts', 'nameMapper', 'shortLeaseWarning'])(
    'rejects `%s: null` instead of taking the default (null for `redis` would silently mean localhost)',
    (key) => {
      expect(() => Redisson.create({ [key]: null })).toThrow(TypeError);
      expect(() => Redisson.create({ [key]: null })).toThrow(new RegExp(`\`${key}\`.*got \`null\` \\(null\\)`));
    },
  );

  it('rejects options that are not a plain object: array, null, a number, an ioredis instance', () => {
    expect(() => Redisson.create([] as never)).toThrow(/Redisson.create options to be an object, got an array/);
    expect(() => Redisson.create(null as never)).toThrow(TypeError);
    expect(() => Redisson.create(5 as never)).toThrow(TypeError);
    const redis = new Redis({ lazyConnect: true });
    expect(() => Redisson.create(redis as never)).toThrow(/pass it as `\{ redis \}`/);
    redis.disconnect();
  });

  it('directHandoff: on by default, a boolean, nothing else', () => {
    expect(resolveOptions({}).directHandoff).toBe(true);
    expect(resolveOptions({ directHandoff: false }).directHandoff).toBe(false);
    expect(() => Redisson.create({ directHandoff: 'no' as never })).toThrow(TypeError);
    expect(() => Redisson.create({ directHandoff: null as never })).toThrow('Expected `directHandoff` to be a boolean, got `null` (null)');
  });

  it('subscriptionLinger: 0 turns it off, a whole number of ms up to setTimeout\'s ceiling, nothing else', () => {
    expect(resolveOptions({}).subscriptionLinger).toBe(100);
    expect(resolveOptions({ subscriptionLinger: 0 }).subscriptionLinger).toBe(0);
    expect(() => Redisson.create({ subscriptionLinger: -1 })).toThrow(RangeError);
    expect(() => Redisson.create({ subscriptionLinger: 2.5 })).toThrow("Expected `subscriptionLinger` to be a finite integer, got `2.5`");
    expect(() => Redisson.create({ subscriptionLinger: '100' as never })).toThrow(TypeError);
    expect(() => Redisson.create({ subscriptionLinger: 2 ** 31 })).toThrow('Expected `subscriptionLinger` to be between 0 and 2147483647, got `2147483648`');
  });

  it.each([
    ['timeout', 2 ** 31],
    ['subscriptionTimeout', 2 ** 31],
  ])('caps %s at what setTimeout can schedule (2^31 - 1 ms)', (key, value) => {
    expect(() => Redisson.create({ [key]: value })).toThrow(RangeError);
    expect(() => Redisson.create({ [key]: value })).toThrow(`Expected \`${key}\` to be between 1 and 2147483647, got \`2147483648\``);
    expect(resolveOptions({ [key]: 2 ** 31 - 1 })[key as 'timeout']).toBe(2 ** 31 - 1);
  });

  it.each([
    ['lock', [{ leaseTime: 5000 }], /Unknown option `leaseTime` in lock options \(`leaseTime` is not an option but an argument: lock\(leaseTime\?, unit\?, options\?\)\); accepted: `threadId`, `signal`/],
    ['tryLock', [{ waitTime: 5 }], /Unknown option `waitTime` in tryLock options \(`waitTime` is not an option but an argument/],
    ['tryLock', [10, { lockWatchdogTimeout: 5 }], /Unknown option `lockWatchdogTimeout` in tryLock options; accepted: `threadId`, `signal`/],
    ['lock', [{ threadid: 5 }], /did you mean `threadId`/],
    ['lock', [[]], /lock options to be an object, got an array/],
    ['lock', [10, []], /lock options to be an object, got an array/],
    ['lock', [new AbortController().signal], /got an AbortSignal: pass it as `\{ signal \}`/],
    ['lock', [new Date()], /lock options to be a plain object, got \[object Date\]/],
    ['lock', [new Map()], /plain object, got \[object Map\]/],
    ['lock', [{ signal: {} }], /Expected `signal` to be an AbortSignal, got `\[object Object\]` \(object\)/],
  ])('%s(%o) is a TypeError naming the mistake', (method, args, message) => {
    const names = method === 'lock' ? ['leaseTime'] : ['waitTime', 'leaseTime'];
    expect(() => parseTimes(method, args, names)).toThrow(TypeError);
    expect(() => parseTimes(method, args, names)).toThrow(message);
  });

  it('owner options accept only threadId', () => {
    expect(parseOwnerOptions({ threadId: 3 })).toEqual({ threadId: 3 });
    expect(parseOwnerOptions({ threadId: undefined })).toEqual({ threadId: undefined });
    expect(parseOwnerOptions(Object.create(null))).toEqual({});
    expect(() => parseOwnerOptions({ signal: new AbortController().signal })).toThrow('Unknown option `signal` in owner options; accepted: `threadId`');
    expect(() => parseOwnerOptions([])).toThrow(TypeError);
    expect(() => parseOwnerOptions(null)).toThrow(TypeError);
    expect(() => parseOwnerOptions(7)).toThrow(TypeError);
  });

  it('the lock methods reject them before anything is sent', async () => {
    const redis = new Redis({ lazyConnect: true, enableOfflineQueue: false });
    const client = Redisson.create({ redis });
    try {
      const lock = client.getLock('x');
      await expect(lock.lock({ leaseTime: 5000 } as never)).rejects.toThrow(/`leaseTime` is not an option/);
      await expect(lock.lock([] as never)).rejects.toThrow(TypeError);
      await expect(lock.tryLock(0, { threadID: 1 } as never)).rejects.toThrow(/Unknown option `threadID`/);
      await expect(lock.unlock({ signal: AbortSignal.abort() } as never)).rejects.toThrow(/Unknown option `signal`/);
      await expect(lock.getHoldCount({ thread: 1 } as never)).rejects.toThrow(TypeError);
      // (isHeldByCurrentThread throws synchronously today; either way the call fails before sending)
      await expect(Promise.resolve().then(() => lock.isHeldByCurrentThread([] as never))).rejects.toThrow(TypeError);
      expect(redis.status).toBe('wait');
    } finally {
      await client.shutdown();
      redis.disconnect();
    }
  });
});
