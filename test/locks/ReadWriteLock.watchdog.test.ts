/**
 * The ReadWriteLock watchdog: read holds renew the hash and their own `rwlock_timeout` keys (a kind of
 * their own), write holds renew the hash; releasing one half never cancels the other half's renewal.
 * Clients use a short `lockWatchdogTimeout` (renewal every third of it), and each scenario outlives several
 * leases, so only renewal can keep a hold. Independent scenarios run concurrently, each with its own client.
 */
import type { Redis } from 'ioredis';
import { beforeAll, describe, it } from 'vitest';
import { LockLostError, readLockTimeoutPrefix, type LockLostEvent, type Redisson, type RedissonReadWriteLock } from '../../src/index.js';
import { eventually, sleep, uniqueName, useRedis } from '../support/redis.js';

const WATCHDOG = 900;
/** Long enough that a hold nobody renews has expired twice over. */
const OUTLIVE = 2 * WATCHDOG + 200;

// The default ownership. Java's re-entry by one thread (nested holds, write + read) is a `runInThread` flow
// whose id is the object's own, so the fields are those of the object's sequential acquisitions.
const suite = useRedis();
let raw: Redis;
beforeAll(() => {
  raw = suite.clients.raw();
});

const shortWatchdog = (): Redisson => suite.clients.client({ lockWatchdogTimeout: WATCHDOG });
const fieldOf = (c: Redisson, rw: RedissonReadWriteLock): string => `${c.getId()}:${rw.threadId}`;
/** `fn` as the thread of `rw`'s own id: its calls re-enter that owner's holds. */
const asOwner = <T>(c: Redisson, rw: RedissonReadWriteLock, fn: () => Promise<T>): Promise<T> => c.runInThread(fn, rw.threadId);
const timeoutKeys = (name: string, field: string, count: number): string[] =>
  Array.from({ length: count }, (_, k) => `${readLockTimeoutPrefix(name, field)}:${k + 1}`);

describe.concurrent('ReadWriteLock watchdog', () => {
  it('testReadLockExpirationRenewal: every reader of one client keeps its hold and timeout keys; another client\'s read unlock leaves them', async ({ expect }) => {
    const client = shortWatchdog();
    const name = uniqueName('rw');
    const readers = Array.from({ length: 10 }, () => client.getReadWriteLock(name));
    for (const r of readers) await r.readLock().lock();
    const first = readers[0] as RedissonReadWriteLock;
    await asOwner(client, first, () => first.readLock().lock()); // a nested hold: its second timeout key is renewed too
    await sleep(OUTLIVE);
    for (const [i, r] of readers.entries()) {
      expect(await r.readLock().isHeldByCurrentThread()).toBe(true);
      for (const key of timeoutKeys(name, fieldOf(client, r), i === 0 ? 2 : 1)) expect(await raw.pttl(key), key).toBeGreaterThan(0);
    }
    // Java's read unlock scans every reader's timeout keys and deletes the hash when none is alive: ours are.
    const foreign = shortWatchdog().getReadWriteLock(name);
    await foreign.readLock().lock(100);
    await foreign.readLock().unlock();
    expect(Object.keys(await raw.hgetall(name)).length).toBe(11);
    await asOwner(client, first, () => first.readLock().unlock());
    for (const r of readers) await r.readLock().unlock();
    expect(await raw.exists(name)).toBe(0);
  });

  it('testReadWriteTTL: write + read held past several leases; after the write unlock the read hold is still renewed', async ({ expect }) => {
    const client = shortWatchdog();
    const rw = client.getReadWriteLock(uniqueName('rw'));
    await asOwner(client, rw, async () => {
      await rw.writeLock().lock();
      await rw.readLock().lock();
      await sleep(OUTLIVE);
      expect(await rw.writeLock().remainTimeToLive()).toBeGreaterThan(0);
      await rw.writeLock().unlock();
      await sleep(OUTLIVE);
      expect(await rw.readLock().isHeldByCurrentThread()).toBe(true);
      expect(await raw.pttl(timeoutKeys(rw.getName(), fieldOf(client, rw), 1)[0] ?? '')).toBeGreaterThan(0);
      await rw.readLock().unlock();
    });
    expect(await raw.exists(rw.getName())).toBe(0);
  });

  it('releasing a read hold never cancels the write hold\'s renewal of the same name', async ({ expect }) => {
    const client = shortWatchdog();
    const lost: LockLostEvent[] = [];
    client.on('lockLost', (e) => lost.push(e));
    const rw = client.getReadWriteLock(uniqueName('rw'));
    await asOwner(client, rw, async () => {
      await rw.writeLock().lock();
      await rw.readLock().lock();
      await rw.readLock().lock();
      await rw.readLock().unlock();
      await rw.readLock().unlock();
      await sleep(OUTLIVE);
      expect(await rw.writeLock().isHeldByCurrentThread()).toBe(true);
      expect(await raw.hgetall(rw.getName())).toEqual({ mode: 'write', [`${fieldOf(client, rw)}:write`]: '1' });
      expect(lost).toEqual([]);
      await rw.writeLock().unlock();
    });
  });

  it('a forceUnlock that does not match the mode changes nothing and keeps this client\'s renewals', async ({ expect }) => {
    const client = shortWatchdog();
    const rw = client.getReadWriteLock(uniqueName('rw'));
    await rw.readLock().lock();
    expect(await rw.writeLock().forceUnlock()).toBe(false);
    await sleep(OUTLIVE);
    expect(await rw.readLock().isHeldByCurrentThread()).toBe(true);
    await rw.readLock().unlock();
  });

  it('testAutoExpire: a write lock of a client that shut down expires within one lease', async ({ expect }) => {
    const client = shortWatchdog();
    const rw = client.getReadWriteLock(uniqueName('rw'));
    await rw.writeLock().lock();
    expect(await raw.pttl(rw.getName())).toBeLessThanOrEqual(WATCHDOG);
    await client.shutdown();
    await eventually(async () => (await raw.exists(rw.getName())) === 0, WATCHDOG + 1_000, 'the lock to expire');
  });

  it('testMultiInstanceReadLockZombieCleanup: a dead client\'s reader is ignored; the last live reader\'s unlock deletes the hash', async ({ expect }) => {
    const name = uniqueName('rw');
    const zombie = shortWatchdog();
    const zombieRw = zombie.getReadWriteLock(name);
    await zombieRw.readLock().lock();
    const zombieKey = timeoutKeys(name, fieldOf(zombie, zombieRw), 1)[0] ?? '';
    await zombie.shutdown(); // never unlocks
    const live = shortWatchdog();
    const rw = live.getReadWriteLock(name);
    await rw.readLock().lock();
    await eventually(async () => (await raw.exists(zombieKey)) === 0, WATCHDOG + 2_000, "the zombie's timeout key to expire");
    expect(await raw.hexists(name, fieldOf(zombie, zombieRw))).toBe(1); // its field is still there ...
    await rw.readLock().unlock();
    expect(await raw.exists(name)).toBe(0); // ... and goes with the hash
    expect(await rw.writeLock().tryLock(5_000)).toBe(true);
    await rw.writeLock().unlock();
  });

  it('a read hold found gone is reported as lockLost; its unlock throws LockLostError', async ({ expect }) => {
    const client = shortWatchdog();
    const lost: LockLostEvent[] = [];
    client.on('lockLost', (e) => lost.push(e));
    const rw = client.getReadWriteLock(uniqueName('rw'));
    await rw.readLock().lock();
    await raw.hdel(rw.getName(), fieldOf(client, rw));
    await eventually(() => lost.length === 1, WATCHDOG * 2, 'a lockLost event');
    expect(lost[0]).toEqual({ name: rw.getName(), clientId: client.getId(), threadId: rw.threadId });
    await expect(rw.readLock().unlock()).rejects.toBeInstanceOf(LockLostError);
  });
});
