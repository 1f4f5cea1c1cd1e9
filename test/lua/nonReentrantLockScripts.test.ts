/**
 * The NonReentrantLock acquire script called directly on a real server: the same Redis data and replies
 * as Redisson's `RedissonNonReentrantLock#tryLockInnerAsync` (PROTOCOL.md §10), the error reply included.
 */
import type { Redis } from 'ioredis';
import { beforeAll, describe, expect, it } from 'vitest';
import { evalScript } from '../../src/connection/ioredis/scripts.js';
import { NON_REENTRANT_REACQUIRE } from '../../src/locks/RedissonNonReentrantLock.js';
import { uniqueName } from '../support/redis.js';
import { useScriptConnection } from '../support/scriptSuite.js';

const connection = useScriptConnection();
let redis: Redis;
const owner = '3f2a9d1c-0000-4000-8000-00000000abcd:1';
const other = '77777777-0000-4000-8000-000000000000:9';

beforeAll(() => {
  redis = connection.redis;
});

const acquire = (name: string, lease: number, field: string) => evalScript(redis, 'nonreentrant/tryLockInner', [name], [lease, field, NON_REENTRANT_REACQUIRE]);

describe('nonreentrant/tryLockInner', () => {
  it('takes a free lock as RLock does: field = 1, PTTL = lease, nil', async () => {
    expect(NON_REENTRANT_REACQUIRE).toBe('NON_REENTRANT_REACQUIRE');
    const name = uniqueName();
    expect(await acquire(name, 30_000, owner)).toBeNull();
    expect(await redis.hgetall(name)).toEqual({ [owner]: '1' });
    const pttl = await redis.pttl(name);
    expect(pttl).toBeGreaterThan(29_000);
    expect(pttl).toBeLessThanOrEqual(30_000);
  });

  it('the holder asking again gets the error reply NON_REENTRANT_REACQUIRE; count and TTL stay', async () => {
    const name = uniqueName();
    await acquire(name, 30_000, owner);
    const error = await acquire(name, 5_000, owner).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toContain('NON_REENTRANT_REACQUIRE');
    expect(await redis.hgetall(name)).toEqual({ [owner]: '1' });
    expect(await redis.pttl(name)).toBeGreaterThan(5_000);
  });

  it('another owner gets the PTTL (-1 for a hash without expiry) and nothing changes', async () => {
    const name = uniqueName();
    await acquire(name, 10_000, owner);
    const ttl = (await acquire(name, 30_000, other)) as number;
    expect(ttl).toBeGreaterThan(9_000);
    expect(ttl).toBeLessThanOrEqual(10_000);
    expect(await redis.hgetall(name)).toEqual({ [owner]: '1' });
    const eternal = uniqueName();
    await redis.hset(eternal, other, 1);
    expect(await acquire(eternal, 30_000, owner)).toBe(-1);
  });

  it('a hold an RLock counted twice is a re-entry too: the error, and the count stays 2', async () => {
    const name = uniqueName();
    await redis.hset(name, owner, 2);
    await redis.pexpire(name, 30_000);
    await expect(acquire(name, 30_000, owner)).rejects.toThrow(NON_REENTRANT_REACQUIRE);
    expect(await redis.hget(name, owner)).toBe('2');
  });
});
