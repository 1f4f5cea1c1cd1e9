/**
 * The object methods on a spawned 3+3 Redis Cluster: the multi-key ones (a FairLock's hash, queue and
 * deadlines, a FencedLock's token, a PermitExpirableSemaphore's leases) run as one script or one command on
 * the master of the object's slot — every key of an object shares it — for a plain name and for a hash-tag
 * name, with no CROSSSLOT; none is followed by WAIT (Redisson sends them as plain writes), although the
 * masters have replicas and the lock scripts are. The data is checked on that master.
 */
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keySlot } from '../../src/connection/slots.js';
import { fairLockQueueName, fairLockTimeoutName, fencedLockTokenName, permitExpirableTimeoutName, Redisson, TimeUnit } from '../../src/index.js';
import type { RExpirable } from '../../src/RExpirable.js';
import { startCluster, type TestCluster } from '../support/cluster.js';
import { uniqueName } from '../support/redis.js';

let cluster: TestCluster;
let client: Redisson;
const raws: Redis[] = [];

beforeAll(async () => {
  cluster = await startCluster();
  client = Redisson.create({ redis: { clusterNodes: [...cluster.startupNodes] }, shortLeaseWarning: false });
}, 60_000);

afterAll(async () => {
  await client?.shutdown().catch(() => undefined);
  for (const r of raws) r.disconnect();
  await cluster?.stop();
});

/** A connection to the master of `key`'s slot. */
async function masterOf(key: string): Promise<Redis> {
  const { port } = await cluster.masterOf(keySlot(key));
  const r = new Redis({ port });
  r.on('error', () => undefined);
  raws.push(r);
  return r;
}

const LEASE = 60_000;

const CASES: ReadonlyArray<readonly [string, (name: string) => Promise<{ object: RExpirable; keys: string[]; stop?: () => Promise<void> }>]> = [
  [
    'FairLock (hash, queue, deadlines)',
    async (name) => {
      const object = client.getFairLock(name);
      await object.lock(LEASE);
      // A queued waiter's entries, written directly on the master: a live waiter of this client would send
      // its own attempts (each followed by WAIT) at moments of its own, and the WAIT count below must be ours.
      const keys = [name, fairLockQueueName(name), fairLockTimeoutName(name)];
      const master = await masterOf(name);
      const waiterId = 'queued-waiter-uuid:1';
      await master.rpush(fairLockQueueName(name), waiterId);
      await master.zadd(fairLockTimeoutName(name), Date.now() + 2 * LEASE, waiterId);
      return { object, keys };
    },
  ],
  [
    // One key: PERSIST, PEXPIRETIME and MEMORY USAGE are sent as commands, routed by their key.
    'RLock (hash)',
    async (name) => {
      const object = client.getLock(name);
      await object.lock(LEASE);
      return { object, keys: [name] };
    },
  ],
  [
    'FencedLock (hash, token)',
    async (name) => {
      const object = client.getFencedLock(name);
      await object.lock(LEASE);
      return { object, keys: [name, fencedLockTokenName(name)] };
    },
  ],
  [
    'PermitExpirableSemaphore (permits, leases)',
    async (name) => {
      const object = client.getPermitExpirableSemaphore(name);
      await object.trySetPermits(2);
      await object.acquire(LEASE, TimeUnit.MILLISECONDS);
      return { object, keys: [name, permitExpirableTimeoutName(name)] };
    },
  ],
];

describe.each([
  ['a plain name', () => uniqueName('obj')],
  ['a hash-tag name', () => `orders:{${uniqueName('tag')}}:obj`],
])('object methods on a cluster, %s', (_label, nameOf) => {
  it.each(CASES)('%s: expire, expireAt, clearExpire, sizeInMemory, delete on the slot master', async (_what, make) => {
    const name = nameOf();
    const { object, keys, stop } = await make(name);
    try {
      const master = await masterOf(name);
      const waits = async (): Promise<number> => Number(/cmdstat_wait:calls=(\d+)/.exec(await master.info('commandstats'))?.[1] ?? 0);
      const waitsBefore = await waits();
      // The acquisition above was a synced write: this master has replicas, and WAITs were sent to it.
      expect(waitsBefore).toBeGreaterThan(0);
      const at = Date.now() + 3_600_000;
      expect(await object.expire(600, TimeUnit.SECONDS)).toBe(true);
      for (const k of keys) expect(await master.pttl(k)).toBeGreaterThan(LEASE);
      expect(await object.expireAt(at)).toBe(true);
      expect(await Promise.all(keys.map(async (k) => Number(await master.call('PEXPIRETIME', k))))).toEqual(keys.map(() => at));
      expect(await object.expireIfLess(new Date(at - 1_000))).toBe(true);
      expect(await object.getExpireTime()).toBe(at - 1_000);
      expect(await object.clearExpire()).toBe(true);
      expect(await Promise.all(keys.map((k) => master.pttl(k)))).toEqual(keys.map(() => -1));
      const sizes = await Promise.all(keys.map(async (k) => Number(await master.call('MEMORY', 'USAGE', k))));
      expect(await object.sizeInMemory()).toBe(sizes.reduce((a, b) => a + b, 0));
      expect(await waits()).toBe(waitsBefore);
      expect(await object.delete()).toBe(true);
      expect(await master.exists(...keys)).toBe(0);
      expect(await object.isExists()).toBe(false);
    } finally {
      await stop?.();
    }
  });
});
