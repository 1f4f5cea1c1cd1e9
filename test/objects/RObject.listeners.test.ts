/**
 * Object listeners (Redisson's `ExpiredObjectListener` / `DeletedObjectListener`, `addListener` /
 * `removeListener`) on a real server of the suite's own, whose `notify-keyspace-events` the tests set: every
 * primitive's expired and deleted events, what is subscribed on the server (PUBSUB NUMPAT, Redisson's
 * patterns), notifications off (the typed error, nothing subscribed), CONFIG refused by an ACL, a killed
 * subscriber connection, two clients, a driver `keyPrefix`.
 */
import type { Redis } from 'ioredis';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { InvalidArgumentError, KeyspaceNotificationsDisabledError, type RCountDownLatch, type Redisson } from '../../src/index.js';
import type { RObject } from '../../src/RObject.js';
import { Clients, eventually, sleep, uniqueName, useRedis } from '../support/redis.js';

const suite = useRedis({ own: true, args: ['--notify-keyspace-events', 'Egx'] });
let clients: Clients;
let raw: Redis;
beforeAll(() => {
  clients = new Clients(suite.redis.url);
  raw = clients.raw();
});
beforeEach(async () => {
  await raw.config('SET', 'notify-keyspace-events', 'Egx');
});
afterEach(async () => {
  await clients.closeAll();
  clients = new Clients(suite.redis.url);
  raw = clients.raw();
});

const LEASE = 60_000;

interface Case {
  readonly primitive: string;
  make(client: Redisson, name: string): RObject;
  /** Puts the object's own key into Redis. */
  fill(object: RObject): Promise<unknown>;
  /** What deletes its key the way the primitive does (`delete()`, a lock's `forceUnlock()`). */
  remove(object: RObject): Promise<unknown>;
}

type Lockish = RObject & { lock(lease: number): Promise<void>; forceUnlock(): Promise<boolean> };
const lockCase = (primitive: string, make: (c: Redisson, n: string) => RObject): Case => ({
  primitive,
  make,
  fill: (o) => (o as Lockish).lock(LEASE),
  remove: (o) => (o as Lockish).forceUnlock(),
});

const CASES: readonly Case[] = [
  lockCase('RLock', (c, n) => c.getLock(n)),
  lockCase('RedissonFairLock', (c, n) => c.getFairLock(n)),
  lockCase('RedissonNonReentrantLock', (c, n) => c.getNonReentrantLock(n)),
  lockCase('RedissonNonReentrantFairLock', (c, n) => c.getNonReentrantFairLock(n)),
  lockCase('RedissonSpinLock', (c, n) => c.getSpinLock(n)),
  lockCase('RedissonFencedLock', (c, n) => c.getFencedLock(n)),
  lockCase('RedissonReadLock', (c, n) => c.getReadWriteLock(n).readLock()),
  lockCase('RedissonWriteLock', (c, n) => c.getReadWriteLock(n).writeLock()),
  lockCase('RedissonFasterMultiLock', (c, n) => c.getMultiLock(n, ['a', 'b'])),
  {
    primitive: 'RedissonReadWriteLock',
    make: (c, n) => c.getReadWriteLock(n),
    fill: (o) => (o as ReturnType<Redisson['getReadWriteLock']>).writeLock().lock(LEASE),
    remove: (o) => o.delete(),
  },
  {
    primitive: 'RSemaphore',
    make: (c, n) => c.getSemaphore(n),
    fill: (o) => (o as ReturnType<Redisson['getSemaphore']>).trySetPermits(3),
    remove: (o) => o.delete(),
  },
  {
    primitive: 'RPermitExpirableSemaphore',
    make: (c, n) => c.getPermitExpirableSemaphore(n),
    fill: (o) => (o as ReturnType<Redisson['getPermitExpirableSemaphore']>).trySetPermits(3),
    remove: (o) => o.delete(),
  },
  {
    primitive: 'RCountDownLatch',
    make: (c, n) => c.getCountDownLatch(n),
    fill: (o) => (o as RCountDownLatch).trySetCount(2),
    remove: (o) => o.delete(),
  },
];

const numpat = async (): Promise<number> => Number(await raw.call('PUBSUB', 'NUMPAT'));
const patterns = async (): Promise<string[]> => {
  const list = (await raw.call('CLIENT', 'LIST', 'TYPE', 'pubsub')) as string;
  return list.split('\n').filter((l) => /\bpsub=[1-9]/.test(l));
};

describe.each(CASES)('$primitive', (c) => {
  it('an ExpiredObjectListener is called with the key when it expires (PEXPIRE of the lease); removeListener unsubscribes', async () => {
    const client = clients.client();
    const name = uniqueName('lsn');
    const object = c.make(client, name);
    await c.fill(object);
    const expired: string[] = [];
    const id = await object.addListener({ onExpired: (n) => expired.push(n) });
    expect(typeof id).toBe('number');
    expect(await numpat()).toBe(1);
    // Another key's expiry is not this object's.
    await raw.set(`${name}:other`, '1', 'PX', 20);
    await raw.pexpire(name, 30);
    await eventually(() => expired.length > 0, 5_000, 'the expired event');
    await sleep(50);
    expect(expired).toEqual([name]);
    await object.removeListener(id);
    expect(await numpat()).toBe(0);
  });

  it('a DeletedObjectListener is called on delete() / forceUnlock()', async () => {
    const client = clients.client();
    const name = uniqueName('lsn');
    const object = c.make(client, name);
    await c.fill(object);
    const deleted: string[] = [];
    const id = await object.addListener({ onDeleted: (n) => deleted.push(n) });
    await c.remove(object);
    await eventually(() => deleted.length > 0, 5_000, 'the del event');
    expect(deleted).toEqual([name]);
    await object.removeListener(id);
  });
});

describe('listeners', () => {
  it('a lock released by its last unlock() is deleted (DEL): the DeletedObjectListener fires, as in Redisson', async () => {
    const client = clients.client();
    const name = uniqueName('lsn');
    const lock = client.getLock(name);
    const deleted: string[] = [];
    await lock.addListener({ onDeleted: (n) => deleted.push(n) });
    await lock.lock(LEASE);
    expect(deleted).toEqual([]);
    await lock.unlock();
    await eventually(() => deleted.length === 1, 5_000, 'the del event');
  });

  it('Redisson\'s patterns, one per event, shared by the client\'s listeners; the last removeListener PUNSUBSCRIBEs', async () => {
    const client = clients.client();
    const a = client.getLock(uniqueName('lsn'));
    const b = client.getSemaphore(uniqueName('lsn'));
    const ids = [await a.addListener({ onExpired: () => undefined }), await b.addListener({ onExpired: () => undefined }), await a.addListener({ onDeleted: () => undefined })];
    expect(new Set(ids).size).toBe(3);
    expect(await numpat()).toBe(2);
    const channels = (await raw.call('PUBSUB', 'CHANNELS')) as string[];
    expect(channels).toEqual([]);
    expect(await patterns()).toHaveLength(1);
    // An id is the client's, not the object's (as Redisson): any object removes it.
    await b.removeListener(ids[0] as number);
    expect(await numpat()).toBe(2);
    await a.removeListener(ids[1] as number);
    expect(await numpat()).toBe(1);
    await a.removeListener(ids[2] as number);
    expect(await numpat()).toBe(0);
    // Unknown ids, and ids removed twice, are nothing.
    await a.removeListener(ids[2] as number);
    await a.removeListener(12_345);
  });

  it('removed listeners are not called any more', async () => {
    const client = clients.client();
    const name = uniqueName('lsn');
    const lock = client.getLock(name);
    const calls: string[] = [];
    const keep = await lock.addListener({ onDeleted: () => calls.push('kept') });
    const gone = await lock.addListener({ onDeleted: () => calls.push('removed') });
    await lock.removeListener(gone);
    await lock.lock(LEASE);
    await lock.forceUnlock();
    await eventually(() => calls.length > 0, 5_000, 'the del event');
    await sleep(50);
    expect(calls).toEqual(['kept']);
    await lock.removeListener(keep);
  });

  it('notifications off: KeyspaceNotificationsDisabledError naming the flags, and nothing subscribed', async () => {
    const client = clients.client();
    const lock = client.getLock(uniqueName('lsn'));
    await raw.config('SET', 'notify-keyspace-events', '');
    const error = await lock.addListener({ onExpired: () => undefined }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(KeyspaceNotificationsDisabledError);
    expect(error).toMatchObject({ code: 'ERR_REDISSON_KEYSPACE_NOTIFICATIONS_DISABLED', required: 'Ex', current: '' });
    expect((error as Error).message).toContain('CONFIG SET notify-keyspace-events Ex');
    // Deleted events need `g`: `Ex` alone is not enough; `A` covers every class.
    await raw.config('SET', 'notify-keyspace-events', 'Ex');
    await expect(lock.addListener({ onDeleted: () => undefined })).rejects.toMatchObject({ required: 'Eg', message: expect.stringContaining('notify-keyspace-events xEg') as unknown });
    // Keyspace (K) but no keyevent (E) notifications: Redisson's patterns would get nothing.
    await raw.config('SET', 'notify-keyspace-events', 'Kgx');
    await expect(lock.addListener({ onDeleted: () => undefined })).rejects.toBeInstanceOf(KeyspaceNotificationsDisabledError);
    expect(await numpat()).toBe(0);
    await raw.config('SET', 'notify-keyspace-events', 'EA');
    const id = await lock.addListener({ onDeleted: () => undefined });
    await lock.removeListener(id);
  });

  it('a listener of neither kind: InvalidArgumentError, nothing sent', async () => {
    const lock = clients.client().getLock(uniqueName('lsn'));
    await expect(lock.addListener({} as never)).rejects.toBeInstanceOf(InvalidArgumentError);
    await expect(lock.addListener(null as never)).rejects.toBeInstanceOf(InvalidArgumentError);
    expect(await numpat()).toBe(0);
  });

  it('CONFIG refused by an ACL: the check is skipped and the listener works', async () => {
    const user = uniqueName('u').replace(':', '_');
    await raw.call('ACL', 'SETUSER', user, 'on', '>pw', '~*', '&*', '+@all', '-config');
    const url = new URL(suite.redis.url);
    try {
      const client = clients.client({ redis: { host: url.hostname, port: Number(url.port), username: user, password: 'pw' } });
      const name = uniqueName('lsn');
      const lock = client.getLock(name);
      const deleted: string[] = [];
      await lock.addListener({ onDeleted: (n) => deleted.push(n) });
      await lock.lock(LEASE);
      await lock.forceUnlock();
      await eventually(() => deleted.length === 1, 5_000, 'the del event');
      await expect(raw.config('GET', 'notify-keyspace-events')).resolves.toBeDefined();
    } finally {
      await raw.call('ACL', 'DELUSER', user);
    }
  });

  it('PSUBSCRIBE refused by an ACL (no pattern allowed): addListener rejects with the server\'s NOPERM at once, nothing left', async () => {
    const user = uniqueName('u').replace(':', '_');
    await raw.call('ACL', 'SETUSER', user, 'on', '>pw', '~*', 'resetchannels', '&redisson_lock__channel*', '+@all');
    const url = new URL(suite.redis.url);
    try {
      const client = clients.client({ redis: { host: url.hostname, port: Number(url.port), username: user, password: 'pw' }, subscriptionTimeout: 60_000 });
      const lock = client.getLock(uniqueName('lsn'));
      const started = Date.now();
      await expect(lock.addListener({ onDeleted: () => undefined })).rejects.toThrow(/NOPERM/);
      expect(Date.now() - started).toBeLessThan(30_000);
      expect(await numpat()).toBe(0);
    } finally {
      await raw.call('ACL', 'DELUSER', user);
    }
  });

  it('the subscriber connection killed (CLIENT KILL TYPE pubsub): the patterns are subscribed again and events still delivered', async () => {
    const client = clients.client();
    const name = uniqueName('lsn');
    const lock = client.getLock(name);
    const expired: string[] = [];
    await lock.addListener({ onExpired: (n) => expired.push(n) });
    await raw.client('KILL', 'TYPE', 'pubsub');
    await eventually(async () => (await numpat()) === 1, 10_000, 'the pattern subscribed again');
    await lock.lock(LEASE);
    await raw.pexpire(name, 20);
    await eventually(() => expired.length === 1, 5_000, 'the expired event after the reconnect');
  });

  it('two clients: each one\'s listener is called', async () => {
    const name = uniqueName('lsn');
    const seen: string[] = [];
    const a = clients.client().getLock(name);
    const b = clients.client().getLock(name);
    await a.addListener({ onDeleted: () => seen.push('a') });
    await b.addListener({ onDeleted: () => seen.push('b') });
    // NUMPAT counts distinct patterns; each client's subscriber has it.
    expect(await numpat()).toBe(1);
    expect(await patterns()).toHaveLength(2);
    await a.lock(LEASE);
    await b.forceUnlock();
    await eventually(() => seen.length === 2, 5_000, 'both listeners');
    expect(seen.sort()).toEqual(['a', 'b']);
  });

  it('with a driver keyPrefix the event names the prefixed key; the listener gets the object\'s name', async () => {
    const name = uniqueName('lsn');
    const client = clients.client({ redis: clients.raw({ keyPrefix: 'app:' }) });
    const lock = client.getLock(name);
    const deleted: string[] = [];
    await lock.addListener({ onDeleted: (n) => deleted.push(n) });
    // The unprefixed key of the same name is another key.
    await raw.set(name, '1');
    await raw.del(name);
    await lock.lock(LEASE);
    await lock.forceUnlock();
    await eventually(() => deleted.length > 0, 5_000, 'the del event');
    await sleep(50);
    expect(deleted).toEqual([name]);
  });

  it('a listener that throws is reported as a process warning; the other listeners are still called', async () => {
    const client = clients.client();
    const name = uniqueName('lsn');
    const lock = client.getLock(name);
    const warnings: Error[] = [];
    const onWarning = (w: Error): number => warnings.push(w);
    process.on('warning', onWarning);
    try {
      const calls: string[] = [];
      await lock.addListener({
        onDeleted: () => {
          throw new Error('listener bug');
        },
      });
      await lock.addListener({ onDeleted: (n) => calls.push(n) });
      await lock.lock(LEASE);
      await lock.forceUnlock();
      await eventually(() => calls.length === 1 && warnings.length === 1, 5_000, 'the second listener and the warning');
      expect(warnings[0]).toMatchObject({ code: 'REDISSON_LISTENER_ERROR', message: expect.stringContaining('listener bug') as unknown });
    } finally {
      process.off('warning', onWarning);
    }
  });

  it('shutdown() leaves no pattern subscribed; addListener after it throws', async () => {
    const client = clients.client();
    const lock = client.getLock(uniqueName('lsn'));
    await lock.addListener({ onExpired: () => undefined });
    await client.shutdown();
    await eventually(async () => (await numpat()) === 0, 5_000, 'no pattern left');
    await expect(lock.addListener({ onExpired: () => undefined })).rejects.toMatchObject({ code: 'ERR_REDISSON_SHUTDOWN' });
  });
});
