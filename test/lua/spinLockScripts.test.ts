/**
 * The SpinLock unlock script called directly on a real server: RLock's unlock without the publish,
 * exactly as Redisson's `RedissonSpinLock#unlockInnerAsync` (PROTOCOL.md §9). Its acquire is RLock's
 * script (same commands as Redisson's spin lock script), tested in lockScripts.test.ts.
 */
import type { Redis } from 'ioredis';
import { beforeAll, describe, expect, it } from 'vitest';
import { evalScript } from '../../src/connection/ioredis/scripts.js';
import { lockChannelName, unlockLatchName } from '../../src/keys.js';
import { uniqueName } from '../support/redis.js';
import { latchId, useScriptServer } from './scriptServer.js';

const s = useScriptServer();
let events: Redis;
const owner = '3f2a9d1c-0000-4000-8000-00000000abcd:1';
const other = '77777777-0000-4000-8000-000000000000:9';
const published: string[] = [];

beforeAll(async () => {
  // Every message on any lock channel: a spin lock must publish none.
  events = s.clients.raw();
  events.on('pmessage', (_p: string, channel: string, message: string) => published.push(`${channel} ${message}`));
  await events.psubscribe('redisson_lock__channel*');
});

const acquire = (name: string, lease: number, field: string) => evalScript(s.redis, 'lock/tryLockInner', [name], [lease, field]);
const unlock = (name: string, lease: number, field: string, latch: string) => evalScript(s.redis, 'spinlock/unlockInner', [name, latch], [lease, field, 15_000]);
/** Messages published so far: a PUBLISH of our own on the same pattern arrives after all earlier ones. */
async function messagesNow(): Promise<string[]> {
  const mark = `redisson_lock__channel:mark:${latchId()}`;
  await s.redis.publish(mark, 'mark');
  const deadline = Date.now() + 5_000;
  while (!published.some((m) => m.startsWith(mark))) {
    if (Date.now() > deadline) throw new Error('pub/sub barrier');
    await new Promise((r) => setTimeout(r, 5));
  }
  return published.filter((m) => !m.startsWith('redisson_lock__channel:mark:'));
}

describe('spinlock/unlockInner', () => {
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

  it('deletes the hash and sets latch 1 on the last hold, publishing nothing', async () => {
    const name = uniqueName();
    const before = (await messagesNow()).length;
    await acquire(name, 30_000, owner);
    const latch = unlockLatchName(name, latchId());
    expect(await unlock(name, 30_000, owner, latch)).toBe(1);
    expect(await s.redis.exists(name)).toBe(0);
    expect(await s.redis.get(latch)).toBe('1');
    expect((await messagesNow()).slice(before)).toEqual([]);
    expect(lockChannelName(name)).toBe(`redisson_lock__channel:{${name}}`);
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
    expect(await s.redis.exists(name)).toBe(0);
  });
});
