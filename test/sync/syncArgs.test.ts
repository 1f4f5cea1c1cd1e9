/**
 * Arguments of RSemaphore and RCountDownLatch: Redisson's overloads parse as Java's do, and bad input —
 * permit counts Java refuses or cannot hold (negative where refused, NaN, fractions, beyond 2^31 - 1),
 * bad times, units and options — is a TypeError/RangeError thrown before any command reaches Redis
 * (INFO commandstats unchanged) and without touching the data.
 */
import type { Redis } from 'ioredis';
import { beforeAll, describe, expect, it } from 'vitest';
import { TimeUnit, type Redisson } from '../../src/index.js';
import { parseAwait, parseTryAcquire } from '../../src/args.js';
import { uniqueName, useRedis } from '../support/redis.js';
import { allCalls } from './syncHelpers.js';

describe('overloads', () => {
  it("tryAcquire: (), (permits), (waitTime, unit), (permits, waitTime[, unit]) as Redisson's", () => {
    const parse = (...args: unknown[]) => {
      const { permits, waitMs } = parseTryAcquire(args);
      return [permits, waitMs];
    };
    expect(parse()).toEqual([1, 0]);
    expect(parse(3)).toEqual([3, 0]);
    expect(parse(2, TimeUnit.SECONDS)).toEqual([1, 2_000]);
    expect(parse(3, 500)).toEqual([3, 500]);
    expect(parse(3, 2, TimeUnit.SECONDS)).toEqual([3, 2_000]);
    expect(parse(3, -1)).toEqual([3, 0]);
    expect(parse(3, 2, TimeUnit.SECONDS, { signal: new AbortController().signal })).toEqual([3, 2_000]);
    expect(parse(3, undefined)).toEqual([3, 0]);
  });

  it('await: () waits without limit; (waitTime[, unit]) answers a boolean', () => {
    expect(parseAwait([])).toMatchObject({ waitMs: -1, timed: false });
    expect(parseAwait([{}])).toMatchObject({ waitMs: -1, timed: false });
    expect(parseAwait([3, TimeUnit.SECONDS])).toMatchObject({ waitMs: 3_000, timed: true });
    expect(parseAwait([0])).toMatchObject({ waitMs: 0, timed: true });
    expect(parseAwait([-1])).toMatchObject({ waitMs: 0, timed: true });
  });
});

describe('bad input sends nothing', () => {
  const suite = useRedis();
  let raw: Redis;
  let client: Redisson;
  beforeAll(async () => {
    raw = suite.clients.raw();
    client = suite.clients.client();
    await client.redis.ping();
  });

  const cases: [string, (name: string) => Promise<unknown>, typeof TypeError | typeof RangeError][] = [
    ['acquire(-1)', (n) => client.getSemaphore(n).acquire(-1), RangeError],
    ['acquire(NaN)', (n) => client.getSemaphore(n).acquire(NaN), TypeError],
    ['acquire(1.5)', (n) => client.getSemaphore(n).acquire(1.5), RangeError],
    ['acquire(2^31)', (n) => client.getSemaphore(n).acquire(2 ** 31), RangeError],
    ["acquire('1')", (n) => client.getSemaphore(n).acquire('1' as unknown as number), TypeError],
    ['acquire(1, 2)', (n) => (client.getSemaphore(n).acquire as (...a: unknown[]) => Promise<void>)(1, 2), TypeError],
    ['acquire(signal)', (n) => client.getSemaphore(n).acquire(AbortSignal.abort() as never), TypeError],
    ["acquire({ signal: 'x' })", (n) => client.getSemaphore(n).acquire({ signal: 'x' as never }), TypeError],
    ['acquire({ threadId })', (n) => client.getSemaphore(n).acquire({ threadId: 1 } as never), TypeError],
    ['tryAcquire(-1)', (n) => client.getSemaphore(n).tryAcquire(-1), RangeError],
    ['tryAcquire(Infinity)', (n) => client.getSemaphore(n).tryAcquire(Infinity), RangeError],
    ['tryAcquire(1, -2)', (n) => client.getSemaphore(n).tryAcquire(1, -2), RangeError],
    ['tryAcquire(1, NaN)', (n) => client.getSemaphore(n).tryAcquire(1, NaN), TypeError],
    ["tryAcquire(1, 1, 'WEEKS')", (n) => client.getSemaphore(n).tryAcquire(1, 1, 'WEEKS' as TimeUnit), TypeError],
    ["tryAcquire('SECONDS')", (n) => (client.getSemaphore(n).tryAcquire as (...a: unknown[]) => Promise<boolean>)('SECONDS'), TypeError],
    ['tryAcquire(1, 2, 3)', (n) => (client.getSemaphore(n).tryAcquire as (...a: unknown[]) => Promise<boolean>)(1, 2, 3), TypeError],
    ['release(-1)', (n) => client.getSemaphore(n).release(-1), RangeError],
    ['release(2^31)', (n) => client.getSemaphore(n).release(2 ** 31), RangeError],
    ['release(NaN)', (n) => client.getSemaphore(n).release(NaN), TypeError],
    ['releaseIfExists(-1)', (n) => client.getSemaphore(n).releaseIfExists(-1), RangeError],
    ['trySetPermits(NaN)', (n) => client.getSemaphore(n).trySetPermits(NaN), TypeError],
    ['trySetPermits(2^31)', (n) => client.getSemaphore(n).trySetPermits(2 ** 31), RangeError],
    ['trySetPermits(-2^31 - 1)', (n) => client.getSemaphore(n).trySetPermits(-(2 ** 31) - 1), RangeError],
    ['trySetPermits(1, 0)', (n) => client.getSemaphore(n).trySetPermits(1, 0), RangeError],
    ['trySetPermits(1, -1)', (n) => client.getSemaphore(n).trySetPermits(1, -1), RangeError],
    ["trySetPermits(1, 5, 'x')", (n) => client.getSemaphore(n).trySetPermits(1, 5, 'x' as TimeUnit), TypeError],
    ['setPermits(1.5)', (n) => client.getSemaphore(n).setPermits(1.5), RangeError],
    ['addPermits(2^31)', (n) => client.getSemaphore(n).addPermits(2 ** 31), RangeError],
    ['addPermits(-2^31 - 1)', (n) => client.getSemaphore(n).addPermits(-(2 ** 31) - 1), RangeError],
    ['addPermits(undefined)', (n) => client.getSemaphore(n).addPermits(undefined as unknown as number), TypeError],
    ['trySetCount(0)', (n) => client.getCountDownLatch(n).trySetCount(0), RangeError],
    ['trySetCount(-1)', (n) => client.getCountDownLatch(n).trySetCount(-1), RangeError],
    ['trySetCount(NaN)', (n) => client.getCountDownLatch(n).trySetCount(NaN), TypeError],
    ['trySetCount(2^53)', (n) => client.getCountDownLatch(n).trySetCount(2 ** 53), RangeError],
    ['await(-2)', (n) => client.getCountDownLatch(n).await(-2), RangeError],
    ["await(1, 'x')", (n) => client.getCountDownLatch(n).await(1, 'x' as TimeUnit), TypeError],
    ['await(signal)', (n) => client.getCountDownLatch(n).await(AbortSignal.abort() as never), TypeError],
    ['await(1, 2)', (n) => (client.getCountDownLatch(n).await as (...a: unknown[]) => Promise<boolean>)(1, 2), TypeError],
  ];

  it.each(cases)('%s', async (_title, call, type) => {
    const name = uniqueName('bad');
    const before = await allCalls(raw);
    await expect(call(name)).rejects.toThrow(type);
    expect(await allCalls(raw)).toBe(before);
    expect(await raw.exists(name)).toBe(0);
  });

  it('names: getSemaphore / getCountDownLatch refuse a non-string or empty name', () => {
    expect(() => client.getSemaphore('')).toThrow(RangeError);
    expect(() => client.getSemaphore(1 as unknown as string)).toThrow(TypeError);
    expect(() => client.getCountDownLatch('')).toThrow(RangeError);
    expect(() => client.getCountDownLatch(null as unknown as string)).toThrow(TypeError);
  });
});
