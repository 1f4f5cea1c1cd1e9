/**
 * The RObject / RExpirable methods of every primitive on a real server, asserted on the Redis data: each
 * object's keys (the lock hash, a FairLock's queue and deadlines, a FencedLock's token counter, a
 * PermitExpirableSemaphore's leases) get exactly the expiry asked for (`PEXPIREAT` values are compared
 * exactly; durations by bounds that a slow machine cannot break), `delete` removes every key and publishes
 * only where Redisson's does (INFO commandstats), and bad input sends nothing.
 */
import diagnosticsChannel from 'node:diagnostics_channel';
import type { Redis } from 'ioredis';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  DIAGNOSTICS_CHANNELS,
  fairLockQueueName,
  fairLockTimeoutName,
  fencedLockTokenName,
  permitExpirableTimeoutName,
  TimeUnit,
  type RCountDownLatch,
  type Redisson,
  type RenewalContext,
} from '../../src/index.js';
import type { RExpirable } from '../../src/RExpirable.js';
import { Clients, eventually, uniqueName, useRedis } from '../support/redis.js';
import { waitStarted } from '../support/parked.js';
import { within } from '../support/poll.js';
import { allCalls, calls } from '../sync/syncHelpers.js';

const suite = useRedis();
let clients: Clients;
let raw: Redis;
beforeAll(() => {
  clients = new Clients(suite.redis.url);
  raw = clients.raw();
});
afterEach(async () => {
  await clients.closeAll();
  clients = new Clients(suite.redis.url);
  raw = clients.raw();
});

/** The lease every lock case is held with: no watchdog re-expires it during a test. */
const LEASE = 60_000;

interface Case {
  readonly primitive: string;
  /** The object under test, named `name`. */
  make(client: Redisson, name: string): RExpirable;
  /** Puts the object (every one of its keys) into Redis; returns what undoes anything left running. */
  fill(client: Redisson, object: RExpirable, name: string): Promise<(() => Promise<void>) | void>;
  /** Every key of the object, its own first. */
  keys(name: string): string[];
  /** `delete()` publishes (the lock family's forceUnlock) or not (a plain DEL). */
  readonly deletePublishes: boolean;
}

type Lockish = RExpirable & { lock(lease: number): Promise<void> };

/** A FairLock held by one owner and waited for by another: its queue and deadlines exist. */
async function fillFair(client: Redisson, object: RExpirable, name: string, nonReentrant: boolean): Promise<() => Promise<void>> {
  await (object as Lockish).lock(LEASE);
  const other = clients.client();
  const stop = new AbortController();
  // Parked, not only queued: its first attempt queues it, and its attempt after subscribing would take a lock the
  // test deletes meanwhile (seen in CI: isExists() true after delete()). The public wait channel says when it parks.
  const parked = waitStarted((channel) => channel.includes(`{${name}}`));
  const waiter = (nonReentrant ? other.getNonReentrantFairLock(name) : other.getFairLock(name)).tryLock(LEASE, LEASE, { signal: stop.signal }).catch(() => false);
  await within(parked.started, 10_000, 'the waiter to park').finally(parked.stop);
  expect(await raw.zcard(fairLockTimeoutName(name))).toBe(1);
  return async () => {
    stop.abort();
    await waiter;
  };
}

/** A lock of one key whose `delete()` is its `forceUnlock()` (which publishes, except a SpinLock's). */
const lockCase = (primitive: string, make: (c: Redisson, n: string) => RExpirable, deletePublishes = true): Case => ({
  primitive,
  make,
  fill: (_c, o) => (o as Lockish).lock(LEASE),
  keys: (n) => [n],
  deletePublishes,
});

const CASES: readonly Case[] = [
  lockCase('RLock', (c, n) => c.getLock(n)),
  lockCase('RedissonSpinLock', (c, n) => c.getSpinLock(n), false),
  lockCase('RedissonNonReentrantLock', (c, n) => c.getNonReentrantLock(n)),
  lockCase('RedissonReadLock', (c, n) => c.getReadWriteLock(n).readLock()),
  lockCase('RedissonWriteLock', (c, n) => c.getReadWriteLock(n).writeLock()),
  lockCase('RedissonFasterMultiLock', (c, n) => c.getMultiLock(n, ['a', 'b'])),
  {
    primitive: 'RedissonFairLock',
    make: (c, n) => c.getFairLock(n),
    fill: (c, o, n) => fillFair(c, o, n, false),
    keys: (n) => [n, fairLockQueueName(n), fairLockTimeoutName(n)],
    deletePublishes: false,
  },
  {
    primitive: 'RedissonNonReentrantFairLock',
    make: (c, n) => c.getNonReentrantFairLock(n),
    fill: (c, o, n) => fillFair(c, o, n, true),
    keys: (n) => [n, fairLockQueueName(n), fairLockTimeoutName(n)],
    deletePublishes: false,
  },
  {
    primitive: 'RedissonFencedLock',
    make: (c, n) => c.getFencedLock(n),
    fill: (_c, o) => (o as Lockish).lock(LEASE),
    keys: (n) => [n, fencedLockTokenName(n)],
    deletePublishes: false,
  },
  {
    primitive: 'RedissonReadWriteLock',
    make: (c, n) => c.getReadWriteLock(n),
    fill: (c, _o, n) => c.getReadWriteLock(n).writeLock().lock(LEASE),
    keys: (n) => [n],
    deletePublishes: false,
  },
  {
    primitive: 'RSemaphore',
    make: (c, n) => c.getSemaphore(n),
    fill: async (c, _o, n) => void (await c.getSemaphore(n).trySetPermits(3)),
    keys: (n) => [n],
    deletePublishes: false,
  },
  {
    primitive: 'RPermitExpirableSemaphore',
    make: (c, n) => c.getPermitExpirableSemaphore(n),
    fill: async (c, _o, n) => {
      const s = c.getPermitExpirableSemaphore(n);
      await s.trySetPermits(3);
      await s.acquire(LEASE, TimeUnit.MILLISECONDS);
    },
    keys: (n) => [n, permitExpirableTimeoutName(n)],
    deletePublishes: false,
  },
];

const pttls = (keys: readonly string[]): Promise<number[]> => Promise.all(keys.map((k) => raw.pttl(k)));
const expireTimes = (keys: readonly string[]): Promise<number[]> => Promise.all(keys.map(async (k) => Number(await raw.call('PEXPIRETIME', k))));

describe.each(CASES)('$primitive', (c) => {
  it('expire / expireAt / the expireIf… forms / clearExpire act on every key; remainTimeToLive and getExpireTime read its own', async () => {
    const client = clients.client();
    const name = uniqueName('obj');
    const object = c.make(client, name);
    const keys = c.keys(name);
    const undo = await c.fill(client, object, name);
    try {
      expect(await raw.exists(...keys)).toBe(keys.length);
      expect(await object.isExists()).toBe(true);

      // A duration: every key gets it (longer than the 60 s lease, so it is the new one).
      expect(await object.expire(600, TimeUnit.SECONDS)).toBe(true);
      for (const ttl of await pttls(keys)) expect(ttl).toBeGreaterThan(LEASE);
      for (const ttl of await pttls(keys)) expect(ttl).toBeLessThanOrEqual(600_000);
      const left = await object.remainTimeToLive();
      expect(left).toBeGreaterThan(LEASE);
      expect(left).toBeLessThanOrEqual(600_000);

      // An instant: PEXPIREAT stores it exactly.
      const at = Date.now() + 3_600_000;
      expect(await object.expire(new Date(at))).toBe(true);
      expect(await expireTimes(keys)).toEqual(keys.map(() => at));
      expect(await object.getExpireTime()).toBe(at);
      expect(await object.expireAt(at + 1_000)).toBe(true);
      expect(await expireTimes(keys)).toEqual(keys.map(() => at + 1_000));
      expect(await object.expireAt(new Date(at))).toBe(true);
      expect(await object.getExpireTime()).toBe(at);

      // PERSIST of every key.
      expect(await object.clearExpire()).toBe(true);
      expect(await pttls(keys)).toEqual(keys.map(() => -1));
      expect(await object.remainTimeToLive()).toBe(-1);
      expect(await object.getExpireTime()).toBe(-1);
      expect(await object.clearExpire()).toBe(false);

      // Redis 7's conditions: XX and GT refuse keys without expiry; NX sets them; LT and GT compare.
      expect(await object.expireIfSet(600_000)).toBe(false);
      expect(await object.expireIfGreater(600_000)).toBe(false);
      expect(await pttls(keys)).toEqual(keys.map(() => -1));
      expect(await object.expireIfNotSet(new Date(at))).toBe(true);
      expect(await expireTimes(keys)).toEqual(keys.map(() => at));
      expect(await object.expireIfNotSet(1_000)).toBe(false);
      expect(await object.expireIfGreater(new Date(at - 1_000))).toBe(false);
      expect(await object.expireIfLess(new Date(at - 1_000))).toBe(true);
      expect(await expireTimes(keys)).toEqual(keys.map(() => at - 1_000));
      expect(await object.expireIfGreater(new Date(at + 5_000))).toBe(true);
      expect(await expireTimes(keys)).toEqual(keys.map(() => at + 5_000));
      expect(await object.expireIfSet(new Date(at))).toBe(true);
      expect(await expireTimes(keys)).toEqual(keys.map(() => at));
      expect(await object.expireIfLess(600, TimeUnit.SECONDS)).toBe(true);
      for (const ttl of await pttls(keys)) expect(ttl).toBeLessThanOrEqual(600_000);
      expect(await raw.exists(...keys)).toBe(keys.length);
    } finally {
      await undo?.();
    }
  });

  it('sizeInMemory sums MEMORY USAGE over every key; delete removes them all, publishing only as Redisson does', async () => {
    const client = clients.client();
    const name = uniqueName('obj');
    const object = c.make(client, name);
    const keys = c.keys(name);
    expect(await object.sizeInMemory()).toBe(0);
    expect(await object.isExists()).toBe(false);
    expect(await object.delete()).toBe(false);
    const undo = await c.fill(client, object, name);
    try {
      const sizes = await Promise.all(keys.map(async (k) => Number(await raw.call('MEMORY', 'USAGE', k))));
      for (const size of sizes) expect(size).toBeGreaterThan(0);
      expect(await object.sizeInMemory()).toBe(sizes.reduce((a, b) => a + b, 0));

      const published = await calls(raw, 'publish');
      expect(await object.delete()).toBe(true);
      expect(await raw.exists(...keys)).toBe(0);
      expect((await calls(raw, 'publish')) - published).toBe(c.deletePublishes ? 1 : 0);
      expect(await object.isExists()).toBe(false);
      expect(await object.delete()).toBe(false);
      expect(await object.sizeInMemory()).toBe(0);
      expect(await object.remainTimeToLive()).toBe(-2);
      expect(await object.getExpireTime()).toBe(-2);
      expect(await object.expire(1_000)).toBe(false);
      expect(await object.expireAt(Date.now() + 1_000)).toBe(false);
      expect(await object.clearExpire()).toBe(false);
    } finally {
      await undo?.();
    }
  });
});

describe('RCountDownLatch (an RObject, not an RExpirable, as in Redisson)', () => {
  it('has isExists, sizeInMemory and delete (which publishes 1), and no expiry methods', async () => {
    const latch: RCountDownLatch = clients.client().getCountDownLatch(uniqueName('latch'));
    expect('expire' in latch).toBe(false);
    expect('clearExpire' in latch).toBe(false);
    expect(await latch.sizeInMemory()).toBe(0);
    await latch.trySetCount(2);
    expect(await latch.isExists()).toBe(true);
    expect(await latch.sizeInMemory()).toBe(Number(await raw.call('MEMORY', 'USAGE', latch.getName())));
    const published = await calls(raw, 'publish');
    expect(await latch.delete()).toBe(true);
    expect((await calls(raw, 'publish')) - published).toBe(1);
    expect(await raw.exists(latch.getName())).toBe(0);
    expect(await latch.delete()).toBe(false);
  });
});

describe('bad input sends nothing', () => {
  const bad: [string, (o: RExpirable) => Promise<unknown>, typeof TypeError | typeof RangeError][] = [
    ['expire(0)', (o) => o.expire(0), RangeError],
    ['expire(999, MICROSECONDS)', (o) => o.expire(999, TimeUnit.MICROSECONDS), RangeError],
    ['expire(-1)', (o) => o.expire(-1), RangeError],
    ['expire(1.5)', (o) => o.expire(1.5), RangeError],
    ['expire(NaN)', (o) => o.expire(Number.NaN), TypeError],
    ["expire('5')", (o) => o.expire('5' as never), TypeError],
    ["expire(5, 'WEEKS')", (o) => o.expire(5, 'WEEKS' as TimeUnit), TypeError],
    ['expire(Invalid Date)', (o) => o.expire(new Date(Number.NaN)), RangeError],
    ['expire(Date, SECONDS)', (o) => (o.expire as (...a: unknown[]) => Promise<boolean>)(new Date(), TimeUnit.SECONDS), TypeError],
    ['expireAt(-1)', (o) => o.expireAt(-1), RangeError],
    ['expireAt(1.5)', (o) => o.expireAt(1.5), RangeError],
    ["expireAt('tomorrow')", (o) => o.expireAt('tomorrow' as never), TypeError],
    ['expireAt(undefined)', (o) => o.expireAt(undefined as never), TypeError],
    ['expireIfSet(0)', (o) => o.expireIfSet(0), RangeError],
    ['expireIfNotSet(null)', (o) => o.expireIfNotSet(null as never), TypeError],
    ['expireIfGreater(Invalid Date)', (o) => o.expireIfGreater(new Date('x')), RangeError],
    ["expireIfLess(1, 'x')", (o) => o.expireIfLess(1, 'x' as TimeUnit), TypeError],
  ];

  it.each(bad)('%s is a typed error, and the server sees no command', async (_title, call, type) => {
    const client = clients.client();
    await client.redis.ping();
    const objects = [client.getLock(uniqueName()), client.getSemaphore(uniqueName()), client.getFairLock(uniqueName()), client.getPermitExpirableSemaphore(uniqueName())];
    const before = await allCalls(raw);
    for (const o of objects) await expect(call(o)).rejects.toThrow(type);
    expect(await allCalls(raw)).toBe(before);
  });
});

describe('with an ioredis keyPrefix', () => {
  it('every key of a FairLock and a PermitExpirableSemaphore gets the expiry, and delete removes them, under the prefix', async () => {
    const u = new URL(suite.redis.url);
    const client = clients.client({ redis: { host: u.hostname, port: Number(u.port), keyPrefix: 'app1:' } });
    const name = uniqueName('obj');
    const fair = client.getFairLock(name);
    await fair.lock(LEASE);
    const pes = client.getPermitExpirableSemaphore(`${name}:pes`);
    await pes.trySetPermits(1);
    await pes.acquire(LEASE, TimeUnit.MILLISECONDS);
    const fairKeys = [name, fairLockQueueName(name), fairLockTimeoutName(name)].map((k) => `app1:${k}`);
    const pesKeys = [`${name}:pes`, permitExpirableTimeoutName(`${name}:pes`)].map((k) => `app1:${k}`);
    // The fair lock's queue exists once someone waits: a second owner's waiting tryLock.
    const stop = new AbortController();
    const waiter = client.getFairLock(name).tryLock(LEASE, LEASE, { signal: stop.signal }).catch(() => false);
    await eventually(async () => (await raw.exists(...fairKeys)) === 3, 10_000, 'the waiter queued');
    const at = Date.now() + 3_600_000;
    expect(await fair.expireAt(at)).toBe(true);
    expect(await pes.expire(new Date(at))).toBe(true);
    expect(await expireTimes([...fairKeys, ...pesKeys])).toEqual([...fairKeys, ...pesKeys].map(() => at));
    expect(await fair.getExpireTime()).toBe(at);
    expect(await fair.sizeInMemory()).toBeGreaterThan(0);
    stop.abort();
    await waiter;
    expect(await fair.delete()).toBe(true);
    expect(await pes.delete()).toBe(true);
    expect(await raw.exists(...fairKeys, ...pesKeys)).toBe(0);
  });
});

describe('diagnostics identity', () => {
  it('each class names itself with a constant of its own (a bundler renaming classes changes nothing)', async () => {
    const index = await import('../../src/index.js');
    const classes = [
      index.RLock,
      index.RedissonFairLock,
      index.RedissonNonReentrantFairLock,
      index.RedissonFencedLock,
      index.RedissonSpinLock,
      index.RedissonNonReentrantLock,
      index.RedissonReadLock,
      index.RedissonWriteLock,
      index.RedissonReadWriteLock,
      index.RedissonFasterMultiLock,
      index.RSemaphore,
      index.RPermitExpirableSemaphore,
      index.RCountDownLatch,
    ];
    for (const cls of classes) {
      expect(Object.hasOwn(cls, 'primitive')).toBe(true);
      expect((cls as unknown as { primitive: string }).primitive).toBe(cls.name);
    }
  });
});

describe("a lock's own bookkeeping", () => {
  it("a FairLock's or FencedLock's delete() of this client's watchdog holds stops their renewal: no lockLost, unlike a DEL from outside", async () => {
    const client = clients.client({ lockWatchdogTimeout: 600 });
    const lost: string[] = [];
    client.on('lockLost', (e) => lost.push(e.name));
    const renewed: Array<readonly string[]> = [];
    // The start event of each renewal batch (Node's TracingChannel names it tracing:<name>:start).
    const start = `tracing:${DIAGNOSTICS_CHANNELS.renewal}:start`;
    const onStart = (ctx: unknown): void => void renewed.push((ctx as RenewalContext).locks.map((l) => l.rawName));
    diagnosticsChannel.subscribe(start, onStart);
    try {
      // Keeps renewal batches coming for the whole test.
      const keep = client.getLock(uniqueName('keep'));
      await keep.lock();
      // The control: a watchdog hold whose keys another client deletes is reported lost.
      const outside = client.getFencedLock(uniqueName('outside'));
      await outside.lock();
      await raw.del(outside.getName(), fencedLockTokenName(outside.getName()));
      await eventually(() => lost.includes(outside.getName()), 10_000, 'the outside DEL reported as lockLost');

      const fair = client.getFairLock(uniqueName('fair'));
      const fenced = client.getFencedLock(uniqueName('fenced'));
      await fair.lock();
      await fenced.lock();
      expect(await fair.delete()).toBe(true);
      expect(await fenced.delete()).toBe(true);
      const from = renewed.length;
      // Two batches started after the deletes: the deleted locks are in neither, and nobody reported them.
      await eventually(() => renewed.slice(from).filter((b) => b.includes(keep.getName())).length >= 2, 10_000, 'two renewal batches');
      for (const batch of renewed.slice(from)) expect(batch.filter((n) => n === fair.getName() || n === fenced.getName())).toEqual([]);
      expect(lost).toEqual([outside.getName()]);
      await keep.unlock();
    } finally {
      diagnosticsChannel.unsubscribe(start, onStart);
    }
  });
});
