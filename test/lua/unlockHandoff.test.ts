/**
 * `lock/unlockHandoff` called directly on a real server (issue 29): `lock/unlockInner` plus the grant. The grant
 * writes exactly what `lock/tryLockInner` writes for the candidate on a free lock, and only when the release
 * reached exactly the given number of receivers on a master without replicas.
 */
import { describe, expect, it } from 'vitest';
import { evalScript } from '../../src/connection/ioredis/scripts.js';
import { lockChannelName, unlockLatchName } from '../../src/keys.js';
import { collectMessages, uniqueName } from '../support/redis.js';
import { latchId, useScriptServer } from './scriptServer.js';

const s = useScriptServer();
const owner = '3f2a9d1c-0000-4000-8000-00000000abcd:1';
const candidate = '3f2a9d1c-0000-4000-8000-00000000abcd:2';


const acquire = (name: string, lease: number, field: string): Promise<unknown> => evalScript(s.redis, 'lock/tryLockInner', [name], [lease, field]);
const unlock = (name: string, latch: string, mine: number, lease = 30_000): Promise<unknown> =>
  evalScript(s.redis, 'lock/unlockHandoff', [name, lockChannelName(name), latch], [0, 30_000, owner, 'PUBLISH', 15_000, mine, candidate, lease]);

describe('unlockHandoff', () => {
  it('one receiver, as given: releases, publishes 0, writes the candidate with count 1 and its lease, latch 3, returns 3', async () => {
    const name = uniqueName();
    const messages = await collectMessages(s.clients.raw(), lockChannelName(name));
    await acquire(name, 60_000, owner);
    const latch = unlockLatchName(name, latchId());
    expect(await unlock(name, latch, 1, 7_000)).toBe(3);
    expect(await s.redis.hgetall(name)).toEqual({ [candidate]: '1' });
    const ttl = await s.redis.pttl(name);
    expect(ttl).toBeGreaterThan(6_000);
    expect(ttl).toBeLessThanOrEqual(7_000);
    expect(await s.redis.get(latch)).toBe('3');
    // The same data as the candidate's own tryLockInner on the free lock.
    const other = uniqueName();
    await acquire(other, 7_000, candidate);
    expect(await s.redis.hgetall(other)).toEqual(await s.redis.hgetall(name));
    await new Promise((r) => setTimeout(r, 50));
    expect(messages).toEqual(['0']);
  });

  it('a re-sent run returns the latch and grants nothing twice', async () => {
    const name = uniqueName();
    const sub = s.clients.raw();
    await sub.subscribe(lockChannelName(name));
    await acquire(name, 60_000, owner);
    const latch = unlockLatchName(name, latchId());
    expect(await unlock(name, latch, 1)).toBe(3);
    expect(await unlock(name, latch, 1)).toBe(3);
    expect(await s.redis.hgetall(name)).toEqual({ [candidate]: '1' });
  });

  it('more receivers than given (someone else subscribed): exactly unlockInner — released, published, latch 1', async () => {
    const name = uniqueName();
    await s.clients.raw().subscribe(lockChannelName(name));
    await s.clients.raw().subscribe(lockChannelName(name));
    await acquire(name, 60_000, owner);
    const latch = unlockLatchName(name, latchId());
    expect(await unlock(name, latch, 1)).toBe(1);
    expect(await s.redis.exists(name)).toBe(0);
    expect(await s.redis.get(latch)).toBe('1');
  });

  it('no receiver at all while one is given (our subscription lapsed): no grant', async () => {
    const name = uniqueName();
    await acquire(name, 60_000, owner);
    expect(await unlock(name, unlockLatchName(name, latchId()), 1)).toBe(1);
    expect(await s.redis.exists(name)).toBe(0);
  });

  it('still held (re-entered): decrements and resets the lease, grants nothing', async () => {
    const name = uniqueName();
    await s.clients.raw().subscribe(lockChannelName(name));
    await acquire(name, 60_000, owner);
    await acquire(name, 60_000, owner);
    expect(await unlock(name, unlockLatchName(name, latchId()), 1)).toBe(0);
    expect(await s.redis.hgetall(name)).toEqual({ [owner]: '1' });
  });

  it('not the owner: nil, nothing changes', async () => {
    const name = uniqueName();
    await acquire(name, 60_000, candidate);
    expect(await unlock(name, unlockLatchName(name, latchId()), 1)).toBeNull();
    expect(await s.redis.hgetall(name)).toEqual({ [candidate]: '1' });
  });
});
