/**
 * The FencedLock acquire script called directly on a real server: the same Redis data as Redisson's
 * `RedissonFencedLock` scripts produce (PROTOCOL.md §8), and its reply in Redisson's `EVAL_LONG_LIST` shape.
 */
import type { Redis } from 'ioredis';
import { beforeAll, describe, expect, it } from 'vitest';
import { evalScript } from '../../src/connection/ioredis/scripts.js';
import { fencedLockTokenName } from '../../src/keys.js';
import { uniqueName } from '../support/redis.js';
import { useScriptConnection } from '../support/scriptSuite.js';

const connection = useScriptConnection();
let redis: Redis;
const owner = '3f2a9d1c-0000-4000-8000-00000000abcd:1';
const other = '77777777-0000-4000-8000-000000000000:9';

beforeAll(() => {
  redis = connection.redis;
});

const acquire = (name: string, lease: number, field: string) => evalScript(redis, 'fencedlock/tryLockInner', [name, fencedLockTokenName(name)], [lease, field]);

describe('fencedlock/tryLockInner', () => {
  it('takes a free lock as RLock does, draws token 1 and returns {-1, 1}; the counter has no expiry', async () => {
    const name = uniqueName();
    const tokenKey = fencedLockTokenName(name);
    expect(tokenKey).toBe(`redisson_lock_token:{${name}}`);
    expect(await acquire(name, 30_000, owner)).toEqual([-1, 1]);
    expect(await redis.hgetall(name)).toEqual({ [owner]: '1' });
    const pttl = await redis.pttl(name);
    expect(pttl).toBeGreaterThan(29_000);
    expect(pttl).toBeLessThanOrEqual(30_000);
    expect(await redis.get(tokenKey)).toBe('1');
    expect(await redis.pttl(tokenKey)).toBe(-1);
  });

  it('a re-entry draws a new token and resets the TTL, even to a shorter one', async () => {
    const name = uniqueName();
    await acquire(name, 60_000, owner);
    expect(await acquire(name, 5_000, owner)).toEqual([-1, 2]);
    expect(await redis.hget(name, owner)).toBe('2');
    expect(await redis.pttl(name)).toBeLessThanOrEqual(5_000);
  });

  it('another owner gets {PTTL, -1} and nothing changes, the counter included', async () => {
    const name = uniqueName();
    await acquire(name, 10_000, owner);
    const [ttl, token] = (await acquire(name, 30_000, other)) as [number, number];
    expect(token).toBe(-1);
    expect(ttl).toBeGreaterThan(9_000);
    expect(ttl).toBeLessThanOrEqual(10_000);
    expect(await redis.hgetall(name)).toEqual({ [owner]: '1' });
    expect(await redis.get(fencedLockTokenName(name))).toBe('1');
  });

  it('a foreign hash without expiry gives {-1, -1}: the token, not the first element, says it was refused', async () => {
    const name = uniqueName();
    await redis.hset(name, other, 1);
    expect(await acquire(name, 30_000, owner)).toEqual([-1, -1]);
    expect(await redis.hgetall(name)).toEqual({ [other]: '1' });
    expect(await redis.exists(fencedLockTokenName(name))).toBe(0);
  });

  it('continues the counter a Java client left behind, across lock deletions', async () => {
    const name = uniqueName();
    await redis.set(fencedLockTokenName(name), 41);
    expect(await acquire(name, 30_000, owner)).toEqual([-1, 42]);
    await redis.del(name);
    expect(await acquire(name, 30_000, other)).toEqual([-1, 43]);
  });

  it('with a hash tag in the name, the counter stays in the name\'s slot (no extra braces)', async () => {
    const name = `orders:{42}:${uniqueName()}`;
    expect(fencedLockTokenName(name)).toBe(`redisson_lock_token:${name}`);
    expect(await acquire(name, 30_000, owner)).toEqual([-1, 1]);
    expect(await redis.get(`redisson_lock_token:${name}`)).toBe('1');
  });
});
