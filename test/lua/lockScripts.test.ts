/**
 * The RLock scripts called directly on a real server: the resulting Redis data must be exactly what
 * Redisson's scripts produce (PROTOCOL.md §2.2).
 */
import { describe, expect, it } from 'vitest';
import { evalScript } from '../../src/connection/ioredis/scripts.js';
import { lockChannelName, unlockLatchName } from '../../src/keys.js';
import { collectMessages, uniqueName } from '../support/redis.js';
import { latchId, useScriptServer } from './scriptServer.js';

const s = useScriptServer();
const owner = '3f2a9d1c-0000-4000-8000-00000000abcd:1';
const other = '77777777-0000-4000-8000-000000000000:9';


const acquire = (name: string, lease: number, field: string) => evalScript(s.redis, 'lock/tryLockInner', [name], [lease, field]);
const unlock = (name: string, lease: number, field: string, latch: string) =>
  evalScript(s.redis, 'lock/unlockInner', [name, lockChannelName(name), latch], [0, lease, field, 'PUBLISH', 15_000]);

describe('tryLockInner', () => {
  it('creates the hash field with count 1 and the lease as PTTL, returning nil', async () => {
    const name = uniqueName();
    expect(await acquire(name, 30_000, owner)).toBeNull();
    expect(await s.redis.hgetall(name)).toEqual({ [owner]: '1' });
    const pttl = await s.redis.pttl(name);
    expect(pttl).toBeGreaterThan(29_000);
    expect(pttl).toBeLessThanOrEqual(30_000);
  });

  it('re-enters for the same field and resets the TTL, even to a shorter one', async () => {
    const name = uniqueName();
    await acquire(name, 60_000, owner);
    expect(await acquire(name, 5_000, owner)).toBeNull();
    expect(await s.redis.hget(name, owner)).toBe('2');
    expect(await s.redis.pttl(name)).toBeLessThanOrEqual(5_000);
  });

  it('returns the PTTL for another owner and changes nothing; -1 for a key without expiry', async () => {
    const name = uniqueName();
    await acquire(name, 10_000, owner);
    const ttl = (await acquire(name, 30_000, other)) as number;
    expect(ttl).toBeGreaterThan(9_000);
    expect(ttl).toBeLessThanOrEqual(10_000);
    expect(await s.redis.hgetall(name)).toEqual({ [owner]: '1' });
    const eternal = uniqueName();
    await s.redis.hset(eternal, other, 1);
    expect(await acquire(eternal, 30_000, owner)).toBe(-1);
  });
});

describe('unlockInner', () => {
  it('decrements, re-expires to the given lease and sets latch 0 while still held', async () => {
    const name = uniqueName();
    await acquire(name, 30_000, owner);
    await acquire(name, 30_000, owner);
    const latch = unlockLatchName(name, latchId());
    expect(await unlock(name, 10_000, owner, latch)).toBe(0);
    expect(await s.redis.hget(name, owner)).toBe('1');
    expect(await s.redis.pttl(name)).toBeLessThanOrEqual(10_000);
    expect(await s.redis.get(latch)).toBe('0');
    const latchTtl = await s.redis.pttl(latch);
    expect(latchTtl).toBeGreaterThan(14_000);
    expect(latchTtl).toBeLessThanOrEqual(15_000);
  });

  it('deletes the hash, publishes 0 on the channel and sets latch 1 on the last hold', async () => {
    const name = uniqueName();
    const sub = s.clients.raw();
    const messages = await collectMessages(sub, lockChannelName(name));
    await acquire(name, 30_000, owner);
    const latch = unlockLatchName(name, latchId());
    expect(await unlock(name, 30_000, owner, latch)).toBe(1);
    expect(await s.redis.exists(name)).toBe(0);
    expect(await s.redis.get(latch)).toBe('1');
    await s.redis.ping(); // the message precedes the reply on the subscriber, give it one round trip
    await sub.ping();
    expect(messages).toEqual(['0']);
  });

  it('returns nil for a non-owner and for a missing lock, without setting a latch', async () => {
    const name = uniqueName();
    await acquire(name, 30_000, owner);
    const latch = unlockLatchName(name, latchId());
    expect(await unlock(name, 30_000, other, latch)).toBeNull();
    expect(await unlock(uniqueName(), 30_000, owner, latch)).toBeNull();
    expect(await s.redis.exists(latch)).toBe(0);
    expect(await s.redis.hget(name, owner)).toBe('1');
  });

  it('a re-sent unlock with the same request id returns the first outcome and does not decrement twice', async () => {
    const name = uniqueName();
    await acquire(name, 30_000, owner);
    await acquire(name, 30_000, owner);
    const latch = unlockLatchName(name, latchId());
    expect(await unlock(name, 30_000, owner, latch)).toBe(0);
    expect(await unlock(name, 30_000, owner, latch)).toBe(0);
    expect(await s.redis.hget(name, owner)).toBe('1');
    const final = unlockLatchName(name, latchId());
    expect(await unlock(name, 30_000, owner, final)).toBe(1);
    expect(await unlock(name, 30_000, owner, final)).toBe(1);
  });
});

describe('forceUnlock and renewExpiration', () => {
  it('forceUnlock deletes any owner and publishes 0; 0 when nothing was held', async () => {
    const name = uniqueName();
    const sub = s.clients.raw();
    const messages = await collectMessages(sub, lockChannelName(name));
    await acquire(name, 30_000, other);
    expect(await evalScript(s.redis, 'lock/forceUnlock', [name, lockChannelName(name)], [0, 'PUBLISH'])).toBe(1);
    expect(await evalScript(s.redis, 'lock/forceUnlock', [name, lockChannelName(name)], [0, 'PUBLISH'])).toBe(0);
    expect(await s.redis.exists(name)).toBe(0);
    await sub.ping();
    expect(messages).toEqual(['0']);
  });

  it('renews only locks that still have the given field, one result per key', async () => {
    const mine = uniqueName();
    const theirs = uniqueName();
    const gone = uniqueName();
    await acquire(mine, 1_000, owner);
    await acquire(theirs, 1_000, other);
    const result = await evalScript(s.redis, 'lock/renewExpiration', [mine, theirs, gone], [30_000, owner, owner, owner]);
    expect(result).toEqual([1, 0, 0]);
    expect(await s.redis.pttl(mine)).toBeGreaterThan(29_000);
    expect(await s.redis.pttl(theirs)).toBeLessThanOrEqual(1_000);
    expect(await s.redis.exists(gone)).toBe(0);
  });
});
