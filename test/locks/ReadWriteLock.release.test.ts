/**
 * Issue 24, defect 1: a read hold released while the lock stays held by others (another reader, another
 * client's reader, or the owner's own write hold). The read-unlock script then removes the owner's field but
 * keeps the hash, and the client must treat that as "this owner's hold is gone": the object's automatic owner
 * ends (so the next unlock targets the right owner), the ledger forgets the count (so a lost reply is settled
 * against 0), and the diagnostics end the hold. Clients here use the default `lockOwnership` ('acquisition'),
 * under which one object shared by overlapping flows gives each flow an owner of its own.
 *
 * Every assertion is on Redis data and on outcomes; holders that must not let anyone in by expiring take
 * 60 s leases, and a writer proves the lock free with `tryLock()` (no wait).
 */
import type { Redis } from 'ioredis';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ConnectionLostError, type Redisson, type RedissonReadWriteLock } from '../../src/index.js';
import { RedisProxy } from '../support/proxy.js';
import { eventually, uniqueName, useRedis, within } from '../support/redis.js';

const suite = useRedis();
const LONG = 60_000;
let raw: Redis;
const proxies: RedisProxy[] = [];

beforeAll(() => {
  raw = suite.clients.raw();
});
afterEach(async () => {
  await Promise.all(proxies.splice(0).map((p) => p.stop()));
});

/** Resolves to `'resolved'` or the rejection's error: every unlock's outcome, whatever it is. */
const outcome = (p: Promise<unknown>): Promise<unknown> => p.then(
  () => 'resolved',
  (error: unknown) => error,
);
const fieldOf = (c: Redisson, rw: RedissonReadWriteLock): string => `${c.getId()}:${rw.threadId}`;
/** Every key of `client` on `name` besides the hash: its readers' `rwlock_timeout` keys. */
const timeoutKeysOf = (name: string, client: Redisson): Promise<string[]> => raw.keys(`{${name}}:${client.getId()}:*`);

/** Another client holds a read lock on a fresh name for 60 s; returns the name and how to release it. */
async function foreignReader(): Promise<{ name: string; field: string; release: () => Promise<void> }> {
  const name = uniqueName('rw');
  const other = suite.clients.client();
  const rw = other.getReadWriteLock(name);
  await rw.readLock().lock(LONG);
  return { name, field: fieldOf(other, rw), release: () => rw.readLock().unlock() };
}

describe('a read hold released while others still hold the lock', () => {
  it('lock/unlock/lock/unlock on one read-lock object while another client reads: every unlock resolves, nothing of ours is left', async () => {
    const { name, field, release } = await foreignReader();
    const client = suite.clients.client();
    const read = client.getReadWriteLock(name).readLock();
    const outcomes: unknown[] = [];
    for (let i = 0; i < 2; i++) {
      await read.lock();
      outcomes.push(await outcome(read.unlock()));
    }
    expect(outcomes).toEqual(['resolved', 'resolved']);
    expect(await raw.hgetall(name)).toEqual({ mode: 'read', [field]: '1' });
    expect(await timeoutKeysOf(name, client)).toEqual([]);
    expect(await raw.pttl(name)).toBeGreaterThan(LONG - 10_000); // the other reader's 60 s lease, not ours
    expect(await read.isHeldByCurrentThread()).toBe(false);
    await release();
    expect(await raw.exists(name)).toBe(0);
    expect(await suite.clients.client().getReadWriteLock(name).writeLock().tryLock()).toBe(true);
  });

  it('two overlapping flows reading through one shared ReadWriteLock object, beside another client\'s reader', async () => {
    const { name, field, release } = await foreignReader();
    const client = suite.clients.client();
    const shared = client.getReadWriteLock(name);
    // A and B both hold (each its own owner), then A leaves, then B.
    await shared.readLock().lock();
    await shared.readLock().lock();
    expect(Object.keys(await raw.hgetall(name))).toHaveLength(4);
    const sequential = [await outcome(shared.readLock().unlock()), await outcome(shared.readLock().unlock())];
    // Again, with both unlocks sent at once (two flows finishing in the same tick).
    await Promise.all([shared.readLock().lock(), shared.readLock().lock()]);
    expect(Object.keys(await raw.hgetall(name))).toHaveLength(4);
    const together = await Promise.all([outcome(shared.readLock().unlock()), outcome(shared.readLock().unlock())]);
    expect({ sequential, together }).toEqual({ sequential: ['resolved', 'resolved'], together: ['resolved', 'resolved'] });
    expect(await raw.hgetall(name)).toEqual({ mode: 'read', [field]: '1' });
    expect(await timeoutKeysOf(name, client)).toEqual([]);
    await release();
    expect(await raw.exists(name)).toBe(0);
    expect(await suite.clients.client().getReadWriteLock(name).writeLock().tryLock()).toBe(true);
  });

  it('two overlapping flows on one shared object with no other reader: the first unlock leaves the second flow\'s hold, the second frees the lock', async () => {
    const name = uniqueName('rw');
    const client = suite.clients.client();
    const shared = client.getReadWriteLock(name);
    await shared.readLock().lock();
    await shared.readLock().lock();
    const outcomes = [await outcome(shared.readLock().unlock())];
    expect(Object.keys(await raw.hgetall(name))).toHaveLength(2); // mode + the second flow's field
    outcomes.push(await outcome(shared.readLock().unlock()));
    expect(outcomes).toEqual(['resolved', 'resolved']);
    expect(await raw.exists(name)).toBe(0);
    expect(await timeoutKeysOf(name, client)).toEqual([]);
    expect(await client.getReadWriteLock(name).writeLock().tryLock()).toBe(true);
  });

  it('the writer\'s own read hold released under its write hold: the write hold stays, the reader count is gone', async () => {
    const name = uniqueName('rw');
    const client = suite.clients.client();
    const rw = client.getReadWriteLock(name);
    await rw.writeLock().lock(LONG);
    // Re-entry as a reader needs the owner (README, "Thread identity").
    const owner = { threadId: rw.threadId };
    await rw.readLock().lock(owner);
    expect(await outcome(rw.readLock().unlock(owner))).toBe('resolved');
    expect(await raw.hgetall(name)).toEqual({ mode: 'write', [`${client.getId()}:${owner.threadId}:write`]: '1' });
    expect(await timeoutKeysOf(name, client)).toEqual([]);
    expect(await outcome(rw.writeLock().unlock())).toBe('resolved');
    expect(await raw.exists(name)).toBe(0);
  });
});

describe('the ledger after a read unlock that leaves the lock held', () => {
  /**
   * Owner 7 reads and unlocks while `others` keep the lock; then its next read lock() runs in Redis but its
   * reply is lost. The client must have expected 0 holds of owner 7, so the hold that landed is undone.
   */
  async function loseReadReplyAfterUnlock(name: string, keepsHeld: (client: Redisson) => Promise<void>): Promise<{ client: Redisson; field: string }> {
    const p = await RedisProxy.start(suite.redis.port);
    proxies.push(p);
    const client = suite.clients.client({ redis: p.url });
    client.redis.on('error', () => undefined);
    await keepsHeld(client);
    const read = client.getReadWriteLock(name).readLock();
    const field = `${client.getId()}:7`;
    await read.lock({ threadId: 7 });
    await read.unlock({ threadId: 7 });
    expect(await raw.hexists(name, field)).toBe(0);

    // The acquire script runs in Redis; its reply is held back, then the socket dropped.
    p.replyDelayMs = 5_000;
    const attempt = outcome(read.lock({ threadId: 7 }));
    await eventually(async () => (await raw.hget(name, field)) === '1', 5_000, 'the acquire script ran');
    p.dropAll();
    p.replyDelayMs = 0;
    expect(await within(attempt, 10_000, 'lock() across the dropped reply')).toBeInstanceOf(ConnectionLostError);
    await eventually(async () => (await raw.hexists(name, field)) === 0, 10_000, 'the landed read hold undone');
    return { client, field };
  }

  it('beside another client\'s reader', async () => {
    const { name, field, release } = await foreignReader();
    await loseReadReplyAfterUnlock(name, () => Promise.resolve());
    expect(await raw.hgetall(name)).toEqual({ mode: 'read', [field]: '1' });
    await release();
    expect(await suite.clients.client().getReadWriteLock(name).writeLock().tryLock()).toBe(true);
  });

  it('under the owner\'s own write hold', async () => {
    const name = uniqueName('rw');
    const { client } = await loseReadReplyAfterUnlock(name, (c) => c.getReadWriteLock(name).writeLock().lock(LONG, { threadId: 7 }));
    expect(await raw.hgetall(name)).toEqual({ mode: 'write', [`${client.getId()}:7:write`]: '1' });
    await client.getReadWriteLock(name).writeLock().unlock({ threadId: 7 });
    expect(await raw.exists(name)).toBe(0);
    expect(await suite.clients.client().getReadWriteLock(name).writeLock().tryLock()).toBe(true);
  });
});
