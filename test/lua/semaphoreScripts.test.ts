/**
 * The RSemaphore scripts called directly on a real server, with assertions on the resulting data and on
 * every message published (PROTOCOL.md §5.2, §15): the same keys, values and messages as Redisson's
 * `RedissonSemaphore` scripts. In particular each path that frees permits publishes the new total (the
 * value Java's `SemaphorePubSub` wakes that many waiters with), and the paths that free none publish nothing.
 */
import type { Redis } from 'ioredis';
import { beforeAll, describe, expect, it } from 'vitest';
import { evalScript } from '../../src/connection/ioredis/scripts.js';
import type { LuaScriptId } from '../../src/generated/lua.js';
import { semaphoreChannelName } from '../../src/keys.js';
import { uniqueName } from '../support/redis.js';
import { useScriptSuite } from '../support/scriptSuite.js';

const suite = useScriptSuite('redisson_sc:*', 'redisson_sc:mark');
let redis: Redis;
beforeAll(() => {
  redis = suite.redis;
});
const mark = (): Promise<number> => suite.mark();
const messagesSince = (from: number): Promise<string[]> => suite.messagesSince(from);

const run = (id: LuaScriptId, name: string, args: (string | number)[], withChannel = true): Promise<unknown> =>
  evalScript(redis, id, withChannel ? [name, semaphoreChannelName(name)] : [name], args);

describe('semaphore/tryAcquire', () => {
  it('takes permits only when enough are free; a missing key has none', async () => {
    const name = uniqueName('sem');
    const from = await mark();
    expect(await run('semaphore/tryAcquire', name, [1], false)).toBe(0);
    expect(await redis.exists(name)).toBe(0);
    await redis.set(name, '5');
    expect(await run('semaphore/tryAcquire', name, [3], false)).toBe(1);
    expect(await redis.get(name)).toBe('2');
    expect(await run('semaphore/tryAcquire', name, [3], false)).toBe(0);
    expect(await redis.get(name)).toBe('2');
    expect(await run('semaphore/tryAcquire', name, [2], false)).toBe(1);
    expect(await redis.get(name)).toBe('0');
    await redis.set(name, '-3');
    expect(await run('semaphore/tryAcquire', name, [1], false)).toBe(0);
    expect(await redis.get(name)).toBe('-3');
    expect(await messagesSince(from)).toEqual([]);
  });
});

describe('semaphore/release', () => {
  it('adds permits (creating the key) and publishes the new total', async () => {
    const name = uniqueName('sem');
    const from = await mark();
    expect(await run('semaphore/release', name, [1, 'PUBLISH'])).toBe(1);
    expect(await run('semaphore/release', name, [4, 'PUBLISH'])).toBe(5);
    expect(await redis.get(name)).toBe('5');
    expect(await redis.pttl(name)).toBe(-1);
    expect(await messagesSince(from)).toEqual([`redisson_sc:{${name}} 1`, `redisson_sc:{${name}} 5`]);
  });

  it('a negative semaphore publishes its (still negative) total', async () => {
    const name = uniqueName('sem');
    await redis.set(name, '-5');
    const from = await mark();
    expect(await run('semaphore/release', name, [2, 'PUBLISH'])).toBe(-3);
    expect(await messagesSince(from)).toEqual([`redisson_sc:{${name}} -3`]);
  });
});

describe('semaphore/releaseIfExists', () => {
  it('does nothing to a missing semaphore; otherwise releases and publishes the total', async () => {
    const name = uniqueName('sem');
    const from = await mark();
    expect(await run('semaphore/releaseIfExists', name, [1, 'PUBLISH'])).toBe(0);
    expect(await redis.exists(name)).toBe(0);
    await redis.set(name, '9');
    expect(await run('semaphore/releaseIfExists', name, [1, 'PUBLISH'])).toBe(1);
    expect(await redis.get(name)).toBe('10');
    expect(await messagesSince(from)).toEqual([`redisson_sc:{${name}} 10`]);
  });
});

describe('semaphore/trySetPermits', () => {
  it('sets a missing semaphore and publishes the value; an existing one is left alone', async () => {
    const name = uniqueName('sem');
    const from = await mark();
    expect(await run('semaphore/trySetPermits', name, [10, 'PUBLISH'])).toBe(1);
    expect(await run('semaphore/trySetPermits', name, [15, 'PUBLISH'])).toBe(0);
    expect(await redis.get(name)).toBe('10');
    expect(await redis.pttl(name)).toBe(-1);
    expect(await messagesSince(from)).toEqual([`redisson_sc:{${name}} 10`]);
  });

  it('with a time to live (ARGV[3]) the key expires; a negative start is stored as is', async () => {
    const name = uniqueName('sem');
    expect(await run('semaphore/trySetPermits', name, [1, 'PUBLISH', 2_000])).toBe(1);
    const ttl = await redis.pttl(name);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(2_000);
    const negative = uniqueName('sem');
    expect(await run('semaphore/trySetPermits', negative, [-4, 'PUBLISH'])).toBe(1);
    expect(await redis.get(negative)).toBe('-4');
  });
});

describe('semaphore/addPermits', () => {
  it('adds to missing (0), subtracts below zero, publishes each new total as a plain integer', async () => {
    const name = uniqueName('sem');
    const from = await mark();
    expect(await run('semaphore/addPermits', name, [-5, 'PUBLISH'])).toBe(-5);
    expect(await redis.get(name)).toBe('-5');
    expect(await run('semaphore/addPermits', name, [2 ** 31 - 1, 'PUBLISH'])).toBe(2 ** 31 - 6);
    expect(await run('semaphore/addPermits', name, [2 ** 31 - 1, 'PUBLISH'])).toBe(2 ** 32 - 7);
    // Beyond Java's int, still the decimal digits a Java `Long.valueOf` reads (no exponent, no fraction).
    expect(await redis.get(name)).toBe(String(2 ** 32 - 7));
    expect(await messagesSince(from)).toEqual([-5, 2 ** 31 - 6, 2 ** 32 - 7].map((v) => `redisson_sc:{${name}} ${v}`));
  });

  it('clears a time to live (its SET does, as Redisson\'s)', async () => {
    const name = uniqueName('sem');
    await redis.set(name, '3', 'PX', 60_000);
    expect(await run('semaphore/addPermits', name, [1, 'PUBLISH'])).toBe(4);
    expect(await redis.pttl(name)).toBe(-1);
  });
});

describe('semaphore/setPermits', () => {
  it('sets whatever was there, answers the previous value and publishes the new one', async () => {
    const name = uniqueName('sem');
    const from = await mark();
    expect(await run('semaphore/setPermits', name, [3, 'PUBLISH'])).toBe(0);
    expect(await run('semaphore/setPermits', name, [7, 'PUBLISH'])).toBe(3);
    expect(await redis.get(name)).toBe('7');
    expect(await messagesSince(from)).toEqual([`redisson_sc:{${name}} 3`, `redisson_sc:{${name}} 7`]);
  });
});

describe('semaphore/drainPermits', () => {
  it('answers the free permits and leaves 0; a missing key stays missing; publishes nothing', async () => {
    const name = uniqueName('sem');
    const from = await mark();
    expect(await run('semaphore/drainPermits', name, [], false)).toBe(0);
    expect(await redis.exists(name)).toBe(0);
    await redis.set(name, '7');
    expect(await run('semaphore/drainPermits', name, [], false)).toBe(7);
    expect(await redis.get(name)).toBe('0');
    expect(await run('semaphore/drainPermits', name, [], false)).toBe(0);
    await redis.set(name, '-2');
    expect(await run('semaphore/drainPermits', name, [], false)).toBe(-2);
    expect(await redis.get(name)).toBe('0');
    expect(await messagesSince(from)).toEqual([]);
  });
});

describe('the channel', () => {
  it('is redisson_sc:{N}, or redisson_sc:N when N holds a brace', async () => {
    expect(semaphoreChannelName('a')).toBe('redisson_sc:{a}');
    expect(semaphoreChannelName('{t}a')).toBe('redisson_sc:{t}a');
    const name = `{${uniqueName('tag')}}sem`;
    const from = await mark();
    await run('semaphore/release', name, [1, 'PUBLISH']);
    expect(await messagesSince(from)).toEqual([`redisson_sc:${name} 1`]);
  });
});
