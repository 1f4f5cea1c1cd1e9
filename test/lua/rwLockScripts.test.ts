/**
 * The ReadWriteLock scripts called directly on a real server: the resulting Redis data must be exactly what
 * Redisson's `RedissonReadLock` / `RedissonWriteLock` scripts produce (PROTOCOL.md §4), timeout keys included.
 */
import { describe, expect, it } from 'vitest';
import { evalScript } from '../../src/connection/ioredis/scripts.js';
import { readLockTimeoutPrefix, readWriteLockChannelName, unlockLatchName } from '../../src/keys.js';
import { collectMessages, eventually, uniqueName } from '../support/redis.js';
import { latchId, useScriptServer } from './scriptServer.js';

const s = useScriptServer();
const me = '3f2a9d1c-0000-4000-8000-00000000abcd:1';
const meWrite = `${me}:write`;
const other = '77777777-0000-4000-8000-000000000000:9';
const otherWrite = `${other}:write`;


const timeout = (name: string, field: string, k: number): string => `${readLockTimeoutPrefix(name, field)}:${k}`;
const keyPrefix = (name: string): string => (name.includes('{') ? name : `{${name}}`);
const readLock = (name: string, lease: number, field: string): Promise<unknown> =>
  evalScript(s.redis, 'rwlock/readTryLockInner', [name, readLockTimeoutPrefix(name, field)], [lease, field, `${field}:write`]);
const writeLock = (name: string, lease: number, field: string): Promise<unknown> =>
  evalScript(s.redis, 'rwlock/writeTryLockInner', [name], [lease, field]);
const readUnlock = (name: string, field: string, latch = unlockLatchName(name, latchId())): Promise<unknown> =>
  evalScript(
    s.redis,
    'rwlock/readUnlockInner',
    [name, readWriteLockChannelName(name), readLockTimeoutPrefix(name, field), keyPrefix(name), latch],
    [0, field, 'PUBLISH', 15_000],
  );
const writeUnlock = (name: string, lease: number, field: string, latch = unlockLatchName(name, latchId())): Promise<unknown> =>
  evalScript(s.redis, 'rwlock/writeUnlockInner', [name, readWriteLockChannelName(name), latch], [1, lease, field, 'PUBLISH', 15_000]);
const forceUnlock = (name: string, mode: 'read' | 'write'): Promise<unknown> =>
  evalScript(s.redis, 'rwlock/forceUnlock', [name, readWriteLockChannelName(name)], [mode === 'read' ? 0 : 1, 'PUBLISH', mode]);
const ttlBetween = async (key: string, low: number, high: number): Promise<void> => {
  const pttl = await s.redis.pttl(key);
  expect(pttl, key).toBeGreaterThan(low);
  expect(pttl, key).toBeLessThanOrEqual(high);
};
const messagesOf = (name: string): Promise<string[]> => collectMessages(s.clients.raw(), readWriteLockChannelName(name));

describe('readTryLockInner', () => {
  it('creates mode=read, the reader count and timeout key :1, both expiring in the lease', async () => {
    const name = uniqueName('rw');
    expect(await readLock(name, 30_000, me)).toBeNull();
    expect(await s.redis.hgetall(name)).toEqual({ mode: 'read', [me]: '1' });
    expect(timeout(name, me, 1)).toBe(`{${name}}:${me}:rwlock_timeout:1`);
    expect(await s.redis.get(timeout(name, me, 1))).toBe('1');
    await ttlBetween(timeout(name, me, 1), 29_000, 30_000);
    await ttlBetween(name, 29_000, 30_000);
  });

  it('lets other readers share; each nested hold gets key :k with its own lease; the hash keeps the longest', async () => {
    const name = uniqueName('rw');
    await readLock(name, 60_000, me);
    expect(await readLock(name, 5_000, other)).toBeNull();
    expect(await readLock(name, 10_000, me)).toBeNull();
    expect(await s.redis.hgetall(name)).toEqual({ mode: 'read', [me]: '2', [other]: '1' });
    await ttlBetween(timeout(name, me, 2), 9_000, 10_000);
    await ttlBetween(timeout(name, other, 1), 4_000, 5_000);
    await ttlBetween(name, 59_000, 60_000); // max(PTTL, lease): never shortened
    const longer = uniqueName('rw');
    await readLock(longer, 5_000, me);
    await readLock(longer, 20_000, other);
    await ttlBetween(longer, 19_000, 20_000); // ... and extended by a longer hold
  });

  it('admits the writer itself (mode stays write), refuses other owners with the PTTL', async () => {
    const name = uniqueName('rw');
    await writeLock(name, 30_000, meWrite);
    const ttl = (await readLock(name, 30_000, other)) as number;
    expect(ttl).toBeGreaterThan(29_000);
    expect(await s.redis.hgetall(name)).toEqual({ mode: 'write', [meWrite]: '1' });
    expect(await readLock(name, 10_000, me)).toBeNull();
    expect(await s.redis.hgetall(name)).toEqual({ mode: 'write', [meWrite]: '1', [me]: '1' });
    await ttlBetween(timeout(name, me, 1), 9_000, 10_000);
  });

  it('uses the name itself as key prefix when it contains a brace (a hash tag)', async () => {
    const name = `{${uniqueName('rw')}}:abc:key`;
    await readLock(name, 30_000, me);
    expect(await s.redis.exists(`${name}:${me}:rwlock_timeout:1`)).toBe(1);
  });
});

describe('writeTryLockInner', () => {
  it('creates mode=write with the writer field; a re-entry adds the lease to the remaining PTTL', async () => {
    const name = uniqueName('rw');
    expect(await writeLock(name, 30_000, meWrite)).toBeNull();
    expect(await s.redis.hgetall(name)).toEqual({ mode: 'write', [meWrite]: '1' });
    expect(await writeLock(name, 10_000, meWrite)).toBeNull();
    expect(await s.redis.hget(name, meWrite)).toBe('2');
    await ttlBetween(name, 39_000, 40_000);
  });

  it('is refused by another writer and by any reader, even its own owner (no upgrade)', async () => {
    const name = uniqueName('rw');
    await writeLock(name, 30_000, otherWrite);
    expect(await writeLock(name, 30_000, meWrite)).toBeGreaterThan(29_000);
    const reading = uniqueName('rw');
    await readLock(reading, 20_000, me);
    expect(await writeLock(reading, 30_000, meWrite)).toBeGreaterThan(19_000);
    expect(await s.redis.hgetall(reading)).toEqual({ mode: 'read', [me]: '1' });
  });
});

describe('readUnlockInner', () => {
  it('deletes the released hold\'s timeout key and re-expires the hash to the longest remaining hold', async () => {
    const name = uniqueName('rw');
    await readLock(name, 10_000, other);
    await readLock(name, 60_000, me);
    await readLock(name, 60_000, me);
    const latch = unlockLatchName(name, latchId());
    expect(await readUnlock(name, me, latch)).toBe(0);
    expect(await s.redis.exists(timeout(name, me, 2))).toBe(0);
    expect(await s.redis.exists(timeout(name, me, 1))).toBe(1);
    expect(await s.redis.get(latch)).toBe('0');
    // The last hold of `me` goes while `other` keeps the lock: 2, "my hold is gone", and the latch Redisson's 0.
    const last = unlockLatchName(name, latchId());
    expect(await readUnlock(name, me, last)).toBe(2);
    expect(await s.redis.get(last)).toBe('0');
    expect(await s.redis.hgetall(name)).toEqual({ mode: 'read', [other]: '1' });
    await ttlBetween(name, 8_000, 10_000); // recomputed down to the other reader's 10 s hold
  });

  it('deletes the hash and publishes 0 on the last hold, and when only zombie readers (no live timeout key) remain', async () => {
    const name = uniqueName('rw');
    const messages = await messagesOf(name);
    await readLock(name, 30_000, me);
    expect(await readUnlock(name, me)).toBe(1);
    expect(await s.redis.exists(name)).toBe(0);
    const zombie = uniqueName('rw');
    const zombieMessages = await messagesOf(zombie);
    await readLock(zombie, 30_000, other);
    await readLock(zombie, 30_000, me);
    await s.redis.del(timeout(zombie, other, 1)); // the other reader's process died: its key expired
    expect(await readUnlock(zombie, me)).toBe(1);
    expect(await s.redis.exists(zombie)).toBe(0);
    await eventually(() => messages.length === 1 && zombieMessages.length === 1, 5_000, 'the release messages');
    expect([...messages, ...zombieMessages]).toEqual(['0', '0']);
  });

  it('keeps the hash while the writer still holds it, even without a live read hold (2: the reader\'s hold is gone)', async () => {
    const name = uniqueName('rw');
    await writeLock(name, 30_000, meWrite);
    await readLock(name, 30_000, me);
    await readLock(name, 30_000, me);
    expect(await readUnlock(name, me)).toBe(0);
    expect(await readUnlock(name, me)).toBe(2);
    expect(await s.redis.hgetall(name)).toEqual({ mode: 'write', [meWrite]: '1' });
    await ttlBetween(name, 29_000, 30_000);
  });

  it('returns nil for a non-holder (nothing changes), and for a missing hash after publishing 0', async () => {
    const name = uniqueName('rw');
    const messages = await messagesOf(name);
    await readLock(name, 30_000, other);
    expect(await readUnlock(name, me)).toBeNull();
    expect(await s.redis.hgetall(name)).toEqual({ mode: 'read', [other]: '1' });
    const missing = uniqueName('rw');
    const missingMessages = await messagesOf(missing);
    const latch = unlockLatchName(missing, latchId());
    expect(await readUnlock(missing, me, latch)).toBeNull();
    // "Not held" sets no latch (Redisson's sets 1): a re-sent run answers nil again, not "released".
    expect(await s.redis.exists(latch)).toBe(0);
    expect(await readUnlock(missing, me, latch)).toBeNull();
    expect(await s.redis.exists(latch)).toBe(0);
    await eventually(() => missingMessages.length === 2, 5_000, 'the messages');
    expect(missingMessages).toEqual(['0', '0']);
    expect(messages).toEqual([]);
  });

  it('answers a re-sent unlock from its latch without releasing a second hold', async () => {
    const name = uniqueName('rw');
    await readLock(name, 30_000, me);
    await readLock(name, 30_000, me);
    const latch = unlockLatchName(name, latchId());
    expect(await readUnlock(name, me, latch)).toBe(0);
    expect(await readUnlock(name, me, latch)).toBe(0);
    expect(await s.redis.hget(name, me)).toBe('1');
  });

  it('answers a re-sent unlock that left others holding with 2 again (its latch holds Redisson\'s 0)', async () => {
    const name = uniqueName('rw');
    await readLock(name, 30_000, other);
    await readLock(name, 30_000, me);
    await readLock(name, 30_000, me);
    const latch = unlockLatchName(name, latchId());
    expect(await readUnlock(name, me, latch)).toBe(0);
    expect(await readUnlock(name, me, latch)).toBe(0); // the field is still there: the re-sent 0 is 0
    const last = unlockLatchName(name, latchId());
    expect(await readUnlock(name, me, last)).toBe(2);
    expect(await s.redis.get(last)).toBe('0');
    expect(await readUnlock(name, me, last)).toBe(2);
    expect(await s.redis.hgetall(name)).toEqual({ mode: 'read', [other]: '1' });
    expect(await s.redis.exists(timeout(name, other, 1))).toBe(1);
  });
});

describe('writeUnlockInner', () => {
  it('decrements and re-expires to the given lease while held, then deletes the hash and publishes 1', async () => {
    const name = uniqueName('rw');
    const messages = await messagesOf(name);
    await writeLock(name, 30_000, meWrite);
    await writeLock(name, 30_000, meWrite);
    expect(await writeUnlock(name, 7_000, meWrite)).toBe(0);
    expect(await s.redis.hget(name, meWrite)).toBe('1');
    await ttlBetween(name, 6_000, 7_000);
    const latch = unlockLatchName(name, latchId());
    expect(await writeUnlock(name, 7_000, meWrite, latch)).toBe(1);
    expect(await s.redis.exists(name)).toBe(0);
    expect(await s.redis.get(latch)).toBe('1');
    await eventually(() => messages.length === 1, 5_000, 'the message');
    expect(messages).toEqual(['1']);
  });

  it('downgrades to mode=read when its owner still reads, and publishes 1 (not Redisson: it publishes nothing there)', async () => {
    const name = uniqueName('rw');
    const messages = await messagesOf(name);
    await writeLock(name, 30_000, meWrite);
    await readLock(name, 30_000, me);
    const latch = unlockLatchName(name, latchId());
    expect(await writeUnlock(name, 30_000, meWrite, latch)).toBe(1);
    expect(await s.redis.hgetall(name)).toEqual({ mode: 'read', [me]: '1' });
    await ttlBetween(name, 29_000, 30_000); // the read hold's lease, untouched
    expect(await s.redis.get(latch)).toBe('1');
    // The subscriber got the downgrade's READ_UNLOCK_MESSAGE, before the marker sent after it.
    await s.redis.publish(readWriteLockChannelName(name), 'marker');
    await eventually(() => messages.length === 2, 5_000, 'the message and the marker');
    expect(messages).toEqual(['1', 'marker']);
    expect(await readLock(name, 30_000, other)).toBeNull(); // others may read now
    expect(await writeLock(name, 30_000, meWrite)).toBeGreaterThan(0); // but nobody writes
  });

  it('returns nil in read mode and for another owner; publishes 1 and returns nil for a missing hash', async () => {
    const name = uniqueName('rw');
    await readLock(name, 30_000, me);
    expect(await writeUnlock(name, 30_000, meWrite)).toBeNull();
    const held = uniqueName('rw');
    await writeLock(held, 30_000, otherWrite);
    expect(await writeUnlock(held, 30_000, meWrite)).toBeNull();
    expect(await s.redis.hget(held, otherWrite)).toBe('1');
    const missing = uniqueName('rw');
    const messages = await messagesOf(missing);
    const latch = unlockLatchName(missing, latchId());
    expect(await writeUnlock(missing, 30_000, meWrite, latch)).toBeNull();
    // "Not held" sets no latch (Redisson's sets 1): a re-sent run answers nil again, not "released".
    expect(await s.redis.exists(latch)).toBe(0);
    expect(await writeUnlock(missing, 30_000, meWrite, latch)).toBeNull();
    expect(await s.redis.exists(latch)).toBe(0);
    await eventually(() => messages.length === 2, 5_000, 'the messages');
    expect(messages).toEqual(['1', '1']);
  });
});

describe('forceUnlock and readIsLocked', () => {
  it('deletes only a hash in its own mode and publishes its message (read 0, write 1)', async () => {
    const reading = uniqueName('rw');
    const writing = uniqueName('rw');
    const readMessages = await messagesOf(reading);
    const writeMessages = await messagesOf(writing);
    await readLock(reading, 30_000, me);
    await writeLock(writing, 30_000, meWrite);
    expect(await forceUnlock(reading, 'write')).toBe(0);
    expect(await forceUnlock(writing, 'read')).toBe(0);
    expect(await s.redis.exists(reading, writing)).toBe(2);
    expect(await forceUnlock(reading, 'read')).toBe(1);
    expect(await forceUnlock(writing, 'write')).toBe(1);
    expect(await s.redis.exists(reading, writing)).toBe(0);
    await eventually(() => readMessages.length + writeMessages.length === 2, 5_000, 'the messages');
    expect([readMessages, writeMessages]).toEqual([['0'], ['1']]);
  });

  it('readIsLocked: 1 in read mode, or in write mode once the writer also reads; else 0', async () => {
    const name = uniqueName('rw');
    const isLocked = (): Promise<unknown> => evalScript(s.redis, 'rwlock/readIsLocked', [name], []);
    expect(await isLocked()).toBe(0);
    await writeLock(name, 30_000, meWrite);
    expect(await isLocked()).toBe(0);
    await readLock(name, 30_000, me);
    expect(await isLocked()).toBe(1);
    await writeUnlock(name, 30_000, meWrite);
    expect(await isLocked()).toBe(1);
  });
});

describe('readRenewExpiration', () => {
  const renew = (lease: number, ...pairs: [string, string[]][]): Promise<unknown> =>
    evalScript(
      s.redis,
      'rwlock/readRenewExpiration',
      pairs.flatMap(([name]) => [name, keyPrefix(name)]),
      [lease, ...pairs.flatMap(([, fields]) => [fields.length, ...fields])],
    );

  it('re-expires the hash and every timeout key of every listed reader, and no one else\'s', async () => {
    const name = uniqueName('rw');
    const me2 = '3f2a9d1c-0000-4000-8000-00000000abcd:2';
    await readLock(name, 5_000, me);
    await readLock(name, 5_000, me);
    await readLock(name, 5_000, me2);
    await readLock(name, 5_000, other);
    expect(await renew(60_000, [name, [me, me2]])).toEqual([1]);
    await ttlBetween(name, 59_000, 60_000);
    for (const key of [timeout(name, me, 1), timeout(name, me, 2), timeout(name, me2, 1)]) await ttlBetween(key, 59_000, 60_000);
    await ttlBetween(timeout(name, other, 1), 0, 5_000);
  });

  it('answers for the first listed reader: 0 when it is gone (the hash is still kept for the others)', async () => {
    const kept = uniqueName('rw');
    const gone = uniqueName('rw');
    const me2 = '3f2a9d1c-0000-4000-8000-00000000abcd:2';
    await readLock(kept, 5_000, me2);
    expect(await renew(60_000, [gone, [me]], [kept, [me, me2]])).toEqual([0, 0]);
    await ttlBetween(kept, 59_000, 60_000);
    await ttlBetween(timeout(kept, me2, 1), 59_000, 60_000);
    expect(await s.redis.exists(gone)).toBe(0);
  });
});
