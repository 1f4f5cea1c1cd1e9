/**
 * ReadWriteLock behaviour on a real server, following Redisson's RedissonReadWriteLockTest as a checklist
 * (PROTOCOL.md §14.4; the list is in test/README.md), on the default ownership: Java's one thread re-entering
 * (nested holds, a downgrade) is a `runInThread` flow; "another thread" is another ReadWriteLock object (its own
 * owner), a flow of its own, or an explicit thread id. The watchdog scenarios are in ReadWriteLock.watchdog.test.ts.
 *
 * Waiters that must be woken by a message are parked first: MONITOR shows each refused attempt (the `PTTL`
 * a refused acquire script ends with), and a waiter makes two before it waits — one before subscribing, one
 * after. Holders then hold 60 s leases, far past the hang guards, so a waiter that acquires was woken.
 */
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  IllegalMonitorStateError,
  readLockTimeoutPrefix,
  readWriteLockChannelName,
  TimeUnit,
  type Redisson,
  type RedissonReadWriteLock,
} from '../../src/index.js';
import { WireTap } from '../interop/support/wire.js';
import { collectMessages, eventually, uniqueName, useRedis, within } from '../support/redis.js';

// The default ownership: Java's re-entry by one thread (downgrade, nested holds) runs inside `runInThread`.
const suite = useRedis();
let raw: Redis;
let tap: WireTap;
let client: Redisson;
const LONG = 60_000;

beforeAll(async () => {
  tap = await WireTap.open(suite.clients.raw()); // first, while nothing else talks to the server
  raw = suite.clients.raw();
  client = suite.clients.client();
});
afterAll(() => tap.close());

const rwName = (): string => uniqueName('rw');
/** Resolves once `n` waiters started after `from` made both of their refused attempts on `name`. */
const parked = async (name: string, from: number, n: number): Promise<void> => {
  const refused = (): number => tap.since(from).filter((c) => c.source === 'lua' && c.args[0]?.toLowerCase() === 'pttl' && c.args[1] === name).length;
  await eventually(() => refused() >= 2 * n, 10_000, `${n} parked waiter(s)`);
};
const readerField = (c: Redisson, rw: RedissonReadWriteLock): string => `${c.getId()}:${rw.threadId}`;
/**
 * Java's one thread, on the default ownership: a `runInThread` flow with an explicit id, so that its hash field
 * can be named and a later call can be made by the same thread. Ids below 1 000 000 001 never meet automatic ones.
 */
let threads = 100;
const newThread = (): number => threads++;
const inThread = <T>(id: number, fn: () => Promise<T>): Promise<T> => client.runInThread(fn, id);
const fieldOf = (id: number): string => `${client.getId()}:${id}`;
/** Rejects when `promise` is still pending after the hang guard (10 s; holders' leases are 60 s). */
const woken = <T>(promise: Promise<T>, what: string): Promise<T> => within(promise, 10_000, `${what}: not woken`);

describe('layout', () => {
  it('stores Redisson\'s layout: mode, reader field, timeout key per hold, writer field; 0 and 1 published on release', async () => {
    const name = rwName();
    const rw = client.getReadWriteLock(name);
    const messages = await collectMessages(suite.clients.raw(), readWriteLockChannelName(name));
    expect(readWriteLockChannelName(name)).toBe(`redisson_rwlock:{${name}}`);
    const thread = newThread();
    const field = fieldOf(thread);
    await inThread(thread, async () => {
      await rw.readLock().lock();
      await rw.readLock().lock(10, TimeUnit.SECONDS);
      expect(await raw.hgetall(name)).toEqual({ mode: 'read', [field]: '2' });
      const timeouts = [1, 2].map((k) => `{${name}}:${field}:rwlock_timeout:${k}`);
      expect(`${readLockTimeoutPrefix(name, field)}:1`).toBe(timeouts[0]);
      expect(await raw.pttl(timeouts[0] ?? '')).toBeGreaterThan(25_000);
      expect(await raw.pttl(timeouts[1] ?? '')).toBeLessThanOrEqual(10_000);
      await rw.readLock().unlock();
      expect(await raw.exists(timeouts[1] ?? '')).toBe(0);
      await rw.readLock().unlock();
      await rw.writeLock().lock();
      expect(await raw.hgetall(name)).toEqual({ mode: 'write', [`${field}:write`]: '1' });
      await rw.writeLock().unlock();
    });
    expect(await raw.exists(name)).toBe(0);
    await eventually(() => messages.length === 2, 5_000, 'two release messages');
    expect(messages).toEqual(['0', '1']);
  });

  it('rejects a bad name before sending anything', () => {
    expect(() => client.getReadWriteLock('')).toThrow(RangeError);
    expect(() => client.getReadWriteLock(42 as unknown as string)).toThrow(TypeError);
  });
});

describe('RedissonReadWriteLockTest', () => {
  it('testReadLockExpiration: a writer gets the lock only once every reader\'s lease ran out', async () => {
    const name = rwName();
    const [a, b, writer] = [0, 1, 2].map(() => client.getReadWriteLock(name));
    await a?.readLock().lock(1_500);
    await b?.readLock().lock(300);
    expect(await writer?.writeLock().tryLock()).toBe(false);
    await writer?.writeLock().lock();
    // Acquired after the longest read lease: A's hold and its timeout key are gone.
    expect(await raw.exists(`${readLockTimeoutPrefix(name, readerField(client, a as RedissonReadWriteLock))}:1`)).toBe(0);
    expect(Object.keys(await raw.hgetall(name)).sort()).toEqual([`${readerField(client, writer as RedissonReadWriteLock)}:write`, 'mode']);
    await writer?.writeLock().unlock();
  });

  it('testReadLockIsLocked: false while only the writer holds it; true once the writer also reads', async () => {
    const rw = client.getReadWriteLock(rwName());
    await inThread(newThread(), async () => {
      await rw.writeLock().lock();
      expect(await rw.readLock().isLocked()).toBe(false);
      await rw.readLock().lock();
      expect(await rw.readLock().isLocked()).toBe(true);
      await rw.readLock().unlock();
      await rw.writeLock().unlock();
    });
  });

  it('testName: a name with a hash tag and colons; 10 owners x 10 read lock/unlock', async () => {
    const name = `{${rwName()}}:abc:key`;
    const rw = client.getReadWriteLock(name);
    await rw.readLock().lock();
    expect(await raw.exists(`${name}:${readerField(client, rw)}:rwlock_timeout:1`)).toBe(1);
    await rw.readLock().unlock();
    await Promise.all(
      Array.from({ length: 10 }, async () => {
        const lock = client.getReadWriteLock(name).readLock();
        for (let i = 0; i < 10; i++) {
          await lock.lock();
          await lock.unlock();
        }
      }),
    );
    expect(await raw.exists(name)).toBe(0);
  });

  it('testWriteLockExpiration: a reentrant write adds its lease to the TTL; other owners fail meanwhile', async () => {
    const rw = client.getReadWriteLock(rwName());
    await inThread(newThread(), async () => {
      expect(await rw.writeLock().tryLock(1_000, 5_000, TimeUnit.MILLISECONDS)).toBe(true);
      expect(await rw.writeLock().tryLock(1_000, 2_000, TimeUnit.MILLISECONDS)).toBe(true);
      expect(await rw.writeLock().remainTimeToLive()).toBeGreaterThan(5_000);
      // Java's other thread: a flow of its own.
      const other = client.getReadWriteLock(rw.getName());
      await inThread(newThread(), async () => {
        expect(await other.writeLock().tryLock(100, 1_000, TimeUnit.MILLISECONDS)).toBe(false);
        expect(await other.readLock().tryLock(100, 1_000, TimeUnit.MILLISECONDS)).toBe(false);
      });
      await rw.writeLock().unlock();
      await rw.writeLock().unlock();
    });
  });

  it('testInCluster (one server, hash-tag name): write then read by one owner, unlock both', async () => {
    const rw = client.getReadWriteLock(`orders:{${rwName()}}:rw`);
    await inThread(newThread(), async () => {
      await rw.writeLock().lock();
      await rw.readLock().lock();
      await rw.readLock().unlock();
      await rw.writeLock().unlock();
    });
    expect(await raw.exists(rw.getName())).toBe(0);
  });

  it('testReadLockLeaseTimeoutDiffThreadsWRR: after a leased write runs out, two other owners both read', async () => {
    const name = rwName();
    expect(await client.getReadWriteLock(name).writeLock().tryLock(1_000, 500, TimeUnit.MILLISECONDS)).toBe(true);
    const readers = [client.getReadWriteLock(name), client.getReadWriteLock(name)];
    await Promise.all(readers.map((r) => r.readLock().lock()));
    expect(await raw.hgetall(name)).toEqual({ mode: 'read', ...Object.fromEntries(readers.map((r) => [readerField(client, r), '1'])) });
    await Promise.all(readers.map((r) => r.readLock().unlock()));
  });

  it('testReadLockLeaseTimeoutDiffThreadsRRW: a reader\'s unlock recomputes the TTL to the other reader\'s remaining lease', async () => {
    const name = rwName();
    const [first, second, writer] = [0, 1, 2].map(() => client.getReadWriteLock(name));
    await first?.readLock().lock(1_500);
    await second?.readLock().lock(LONG);
    expect(await raw.pttl(name)).toBeGreaterThan(50_000);
    await second?.readLock().unlock();
    // Down from 60 s to what remains of the first reader's 1.5 s hold (its timeout key still lives).
    expect(await raw.pttl(name)).toBeLessThanOrEqual(1_500);
    expect(await raw.exists(`${readLockTimeoutPrefix(name, readerField(client, first as RedissonReadWriteLock))}:1`)).toBe(1);
    expect(await writer?.writeLock().tryLock(10_000, LONG, TimeUnit.MILLISECONDS)).toBe(true);
    await writer?.writeLock().unlock();
  });

  it('testReadLockLeaseTimeout: a nested read\'s unlock restores the TTL to the first hold\'s remaining lease', async () => {
    const rw = client.getReadWriteLock(rwName());
    await inThread(newThread(), async () => {
      expect(await rw.readLock().tryLock(1, 1_500, TimeUnit.MILLISECONDS)).toBe(true);
      expect(await rw.readLock().tryLock(1, 20_000, TimeUnit.MILLISECONDS)).toBe(true);
      await rw.readLock().unlock();
      expect(await rw.readLock().remainTimeToLive()).toBeLessThanOrEqual(1_500);
      expect(await rw.writeLock().tryLock()).toBe(false); // read mode blocks even its own owner
      expect(await rw.writeLock().tryLock(10_000, LONG, TimeUnit.MILLISECONDS)).toBe(true);
      await rw.writeLock().unlock();
    });
  });

  it('testWR: the writer takes and releases a read lock; the write lock stays held', async () => {
    const rw = client.getReadWriteLock(rwName());
    await inThread(newThread(), async () => {
      await rw.writeLock().lock();
      await rw.readLock().lock();
      await rw.readLock().unlock();
      expect(await rw.writeLock().isLocked()).toBe(true);
      expect(await rw.writeLock().isHeldByCurrentThread()).toBe(true);
      await rw.writeLock().unlock();
      expect(await rw.writeLock().isLocked()).toBe(false);
    });
  });

  it('testWriteRead: the write unlock (message 1) wakes all 20 parked readers, in two clients', async () => {
    const name = rwName();
    const writer = client.getReadWriteLock(name);
    await writer.writeLock().lock(LONG);
    const second = suite.clients.client();
    const from = await tap.mark();
    const readers = Array.from({ length: 20 }, (_, i) => (i % 2 === 0 ? client : second).getReadWriteLock(name));
    const acquired = readers.map((r) => r.readLock().lock(LONG));
    await parked(name, from, 20);
    await writer.writeLock().unlock();
    await woken(Promise.all(acquired), 'the 20 readers');
    expect(Object.keys(await raw.hgetall(name)).length).toBe(21);
    await Promise.all(readers.map((r) => r.readLock().unlock()));
    expect(await raw.exists(name)).toBe(0);
  });

  it('testWriteReadReentrancy: after the writer\'s write unlock only its read hold remains (mode read)', async () => {
    const rw = client.getReadWriteLock(rwName());
    const other = client.getReadWriteLock(rw.getName());
    await inThread(newThread(), async () => {
      await rw.writeLock().lock();
      await rw.readLock().lock();
      expect(await inThread(newThread(), () => other.readLock().tryLock())).toBe(false);
      await rw.writeLock().unlock();
      expect(await rw.writeLock().tryLock()).toBe(false);
      expect(await raw.hget(rw.getName(), 'mode')).toBe('read');
      await rw.readLock().unlock();
      expect(await rw.writeLock().tryLock()).toBe(true);
      await rw.writeLock().unlock();
    });
  });

  it('testWriteLock: the downgrade lets others read; the former writer cannot write again while reading', async () => {
    const rw = client.getReadWriteLock(rwName());
    const other = client.getReadWriteLock(rw.getName());
    const otherThread = newThread();
    await inThread(newThread(), async () => {
      await rw.writeLock().lock();
      await rw.writeLock().lock();
      expect(await inThread(otherThread, () => other.readLock().tryLock())).toBe(false);
      await rw.readLock().lock();
      await rw.writeLock().unlock();
      await rw.writeLock().unlock();
      expect(await inThread(otherThread, () => other.readLock().tryLock())).toBe(true);
      expect(await rw.writeLock().tryLock()).toBe(false);
      expect(await rw.writeLock().isLocked()).toBe(false);
      expect(await rw.writeLock().isHeldByCurrentThread()).toBe(false);
      await inThread(otherThread, () => other.readLock().unlock());
      await rw.readLock().unlock();
    });
  });

  it('issue 24: the write→read downgrade publishes 1, which wakes the readers parked behind the writer (two clients)', async () => {
    const name = rwName();
    const channel = readWriteLockChannelName(name);
    const writer = client.getReadWriteLock(name);
    const writerThread = newThread();
    await inThread(writerThread, async () => {
      await writer.writeLock().lock(LONG);
      await writer.readLock().lock(LONG); // the hash now lives 60 s: only a message lets a parked reader in
    });
    const messages = await collectMessages(suite.clients.raw(), channel);
    const from = await tap.mark();
    const clients = [client, suite.clients.client()];
    const readers = clients.map((c) => c.getReadWriteLock(name));
    const acquired = readers.map((r) => r.readLock().lock(LONG));
    await parked(name, from, 2);
    const numSub = Number(((await raw.pubsub('NUMSUB', channel)) as [string, number])[1]);
    expect(numSub).toBe(3); // each client's subscriber, and the collector
    await inThread(writerThread, () => writer.writeLock().unlock());
    await woken(Promise.all(acquired), 'the readers parked behind the writer');
    expect(await raw.hgetall(name)).toEqual({
      mode: 'read',
      [fieldOf(writerThread)]: '1',
      ...Object.fromEntries(readers.map((r, i) => [readerField(clients[i] as Redisson, r), '1'])),
    });
    await eventually(() => messages.length === 1, 5_000, 'the downgrade message');
    expect(messages).toEqual(['1']);
    await inThread(writerThread, () => writer.readLock().unlock());
    for (const r of readers) await r.readLock().unlock();
    expect(await raw.exists(name)).toBe(0);
  });

  it('testMultiRead: forceUnlock of a free lock is false; two readers block a writer until both leave', async () => {
    const name = rwName();
    const [r1, r2, w] = [0, 1, 2].map(() => client.getReadWriteLock(name)) as [RedissonReadWriteLock, RedissonReadWriteLock, RedissonReadWriteLock];
    expect(await r1.readLock().forceUnlock()).toBe(false);
    await r1.readLock().lock();
    await r2.readLock().lock();
    expect(await w.writeLock().tryLock()).toBe(false);
    await r1.readLock().unlock();
    expect(await w.writeLock().tryLock()).toBe(false);
    await r2.readLock().unlock();
    expect(await w.writeLock().tryLock()).toBe(true);
    await w.writeLock().unlock();
  });

  it('testForceUnlock: each half force-unlocks only its own mode', async () => {
    const rw = client.getReadWriteLock(rwName());
    await rw.readLock().lock();
    expect(await rw.writeLock().forceUnlock()).toBe(false);
    expect(await rw.readLock().isLocked()).toBe(true);
    expect(await rw.readLock().forceUnlock()).toBe(true);
    expect(await rw.readLock().isLocked()).toBe(false);
    await rw.writeLock().lock();
    expect(await rw.readLock().forceUnlock()).toBe(false);
    expect(await rw.writeLock().isLocked()).toBe(true);
    expect(await rw.writeLock().forceUnlock()).toBe(true);
    expect(await raw.exists(rw.getName())).toBe(0);
  });

  it('testExpireRead: readers share: a second reader enters at once while a leased read is held', async () => {
    const name = rwName();
    await client.getReadWriteLock(name).readLock().lock(2_000);
    expect(await client.getReadWriteLock(name).readLock().tryLock()).toBe(true);
  });

  it('testExpireWrite: a leased write runs out, another owner takes it, the first owner\'s unlock throws', async () => {
    const name = rwName();
    const first = client.getReadWriteLock(name);
    await first.writeLock().lock(300);
    const second = client.getReadWriteLock(name);
    await second.writeLock().lock(LONG);
    await expect(first.writeLock().unlock()).rejects.toBeInstanceOf(IllegalMonitorStateError);
    await second.writeLock().unlock();
  });

  it('testHoldCount: read and write hold counts', async () => {
    const rw = client.getReadWriteLock(rwName());
    const [read, write] = [rw.readLock(), rw.writeLock()];
    await inThread(newThread(), async () => {
      expect(await read.getHoldCount()).toBe(0);
      await read.lock();
      expect(await read.getHoldCount()).toBe(1);
      await read.unlock();
      expect(await read.getHoldCount()).toBe(0);
      await write.lock();
      await write.lock();
      expect(await write.getHoldCount()).toBe(2);
      expect(await read.getHoldCount()).toBe(0);
      await write.unlock();
      expect(await write.getHoldCount()).toBe(1);
      await write.unlock();
      expect(await write.getHoldCount()).toBe(0);
    });
  });

  it('testIsHeldByCurrentThread / OtherThread, testIsLocked / OtherThread, testLockUnlock (read lock)', async () => {
    const rw = client.getReadWriteLock(rwName());
    const other = client.getReadWriteLock(rw.getName());
    expect(await rw.readLock().isHeldByCurrentThread()).toBe(false);
    expect(await rw.readLock().isLocked()).toBe(false);
    await rw.readLock().lock();
    expect(await rw.readLock().isHeldByCurrentThread()).toBe(true);
    expect(await rw.readLock().isHeldByThread(rw.threadId)).toBe(true);
    expect(await other.readLock().isHeldByCurrentThread()).toBe(false);
    expect(await other.readLock().isLocked()).toBe(true);
    expect(await rw.writeLock().isHeldByCurrentThread()).toBe(false);
    await rw.readLock().unlock();
    expect(await other.readLock().isLocked()).toBe(false);
  });

  it('testUnlockFail: another owner\'s read unlock throws IllegalMonitorStateError', async () => {
    const rw = client.getReadWriteLock(rwName());
    await rw.readLock().lock();
    await expect(client.getReadWriteLock(rw.getName()).readLock().unlock()).rejects.toBeInstanceOf(IllegalMonitorStateError);
    await expect(rw.readLock().unlock({ threadId: 7 })).rejects.toBeInstanceOf(IllegalMonitorStateError);
    await rw.readLock().unlock();
  });

  it('testReentrancy: read tryLock() twice by one owner, then two unlocks', async () => {
    const rw = client.getReadWriteLock(rwName());
    await inThread(newThread(), async () => {
      expect(await rw.readLock().tryLock()).toBe(true);
      expect(await rw.readLock().tryLock()).toBe(true);
      expect(await rw.readLock().getHoldCount()).toBe(2);
      await rw.readLock().unlock();
      await rw.readLock().unlock();
    });
    expect(await raw.exists(rw.getName())).toBe(0);
  });

  it('testConcurrency_SingleInstance / MultiInstance: a random mix never lets a writer in with anyone else', async () => {
    const name = rwName();
    const instances = [client, suite.clients.client(), suite.clients.client()];
    let readers = 0;
    let writers = 0;
    const violations: string[] = [];
    await Promise.all(
      Array.from({ length: 12 }, async (_, i) => {
        const rw = (instances[i % instances.length] as Redisson).getReadWriteLock(name);
        for (let n = 0; n < 15; n++) {
          const write = Math.random() < 0.4;
          const half = write ? rw.writeLock() : rw.readLock();
          await half.lock();
          if (write) writers++;
          else readers++;
          if (writers > 1 || (writers === 1 && readers > 0)) violations.push(`writers ${writers}, readers ${readers}`);
          await new Promise<void>((r) => setImmediate(r));
          if (write) writers--;
          else readers--;
          await half.unlock();
        }
      }),
    );
    expect(violations).toEqual([]);
    expect(await raw.exists(name)).toBe(0);
  });
});

describe('owners', () => {
  // Kept on `lockOwnership: 'object'` on purpose: what it states — the two halves of one object are one owner
  // while that object holds — is what that option means. The default's answer is the next test.
  it("lockOwnership 'object': both halves of one ReadWriteLock object are one owner; another object is another owner; runInThread and threadId join them", async () => {
    const name = rwName();
    const client = suite.clients.client({ lockOwnership: 'object' });
    const rw = client.getReadWriteLock(name);
    const [write, read] = [rw.writeLock(), rw.readLock()];
    expect(write.threadId).toBe(read.threadId);
    await write.lock();
    expect(await read.tryLock()).toBe(true); // the writer reads: the same owner
    expect(await client.getReadWriteLock(name).readLock().tryLock()).toBe(false);
    expect(await client.getReadWriteLock(name).readLock().tryLock({ threadId: rw.threadId })).toBe(true);
    await client.getReadWriteLock(name).readLock().unlock({ threadId: rw.threadId });
    await read.unlock();
    await write.unlock();
    await client.runInThread(async () => {
      await client.getReadWriteLock(name).writeLock().lock();
      await client.getReadWriteLock(name).readLock().lock();
      await client.getReadWriteLock(name).writeLock().unlock();
      expect(await raw.hget(name, 'mode')).toBe('read');
      await client.getReadWriteLock(name).readLock().unlock();
    });
    expect(await raw.exists(name)).toBe(0);
  });

  it('default ownership: a half acquired while the other half of the object holds is another owner; runInThread and threadId join them', async () => {
    const name = rwName();
    const rw = client.getReadWriteLock(name);
    const [write, read] = [rw.writeLock(), rw.readLock()];
    expect(write.threadId).toBe(read.threadId);
    await write.lock();
    expect(await raw.hgetall(name)).toEqual({ mode: 'write', [`${readerField(client, rw)}:write`]: '1' });
    // A second flow through the same object: not the writer, so it may not read meanwhile.
    expect(await read.tryLock()).toBe(false);
    expect(await read.tryLock({ threadId: rw.threadId })).toBe(true); // the writer itself, named
    await read.unlock({ threadId: rw.threadId });
    await write.unlock();
    // Sequential use of the idle object is one owner, as one Java thread.
    await read.lock();
    expect(await raw.hgetall(name)).toEqual({ mode: 'read', [readerField(client, rw)]: '1' });
    await read.unlock();
    await client.runInThread(async () => {
      await write.lock();
      expect(await read.tryLock()).toBe(true);
      await write.unlock();
      expect(await raw.hget(name, 'mode')).toBe('read');
      await read.unlock();
    });
    expect(await raw.exists(name)).toBe(0);
  });

  it('a read waiter aborted by its signal rejects with the reason and leaves no subscription', async () => {
    const name = rwName();
    const writer = client.getReadWriteLock(name);
    await writer.writeLock().lock(LONG);
    const controller = new AbortController();
    const from = await tap.mark();
    const waiting = client.getReadWriteLock(name).readLock().lock({ signal: controller.signal });
    await parked(name, from, 1);
    const reason = new Error('request cancelled');
    controller.abort(reason);
    await expect(waiting).rejects.toBe(reason);
    const numSub = async (): Promise<number> => Number(((await raw.pubsub('NUMSUB', readWriteLockChannelName(name))) as [string, number])[1]);
    await eventually(async () => (await numSub()) === 0, 5_000, 'unsubscribed');
    await writer.writeLock().unlock();
  });

  it('with an ioredis keyPrefix every key, timeout key and message is prefixed, and a read unlock wakes a writer', async () => {
    const prefix = 'app1:';
    const prefixed = suite.clients.client({ redis: { host: new URL(suite.redis.url).hostname, port: suite.redis.port, keyPrefix: prefix } });
    const name = rwName();
    const reader = prefixed.getReadWriteLock(name);
    await reader.readLock().lock(LONG);
    const field = readerField(prefixed, reader);
    expect(await raw.hgetall(prefix + name)).toEqual({ mode: 'read', [field]: '1' });
    expect(await raw.exists(`${prefix}{${name}}:${field}:rwlock_timeout:1`)).toBe(1);
    const from = await tap.mark();
    const writing = prefixed.getReadWriteLock(name).writeLock().lock();
    await parked(prefix + name, from, 1);
    await reader.readLock().unlock();
    await woken(writing, 'the writer');
    expect(await raw.hget(prefix + name, 'mode')).toBe('write');
  });
});
