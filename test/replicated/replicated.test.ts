/**
 * A replicated group without Sentinel (Redisson's `replicatedServersConfig`): a master and two replicas started
 * from the binary. The client finds the master by the nodes' roles, follows every lock and semaphore write
 * with `WAIT`, follows a manual promotion (`REPLICAOF NO ONE`, the others re-pointed) within `scanInterval`
 * while a lock is held and a waiter waits, and scans at once when a write is refused with `READONLY`.
 * Forced timing: each promotion is done by the test, and each bound is asserted, never waited for blindly.
 */
import { once } from 'node:events';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConstantDelay, NoSyncedSlavesError, Redisson, type MasterSwitch, type RedissonOptions } from '../../src/index.js';
import { eventually, sleep, uniqueName } from '../support/redis.js';
import { replicasOnline, startReplicatedSet, type ReplicatedSet } from '../support/replicated.js';

let set: ReplicatedSet;
const clients: Redisson[] = [];

beforeAll(async () => {
  set = await startReplicatedSet();
}, 60_000);

afterAll(async () => {
  await Promise.all(clients.map((c) => c.shutdown().catch(() => undefined)));
  await set?.stop();
});

const client = (redis: { scanInterval?: number } = {}, options: RedissonOptions = {}): Redisson => {
  // The node list names the replicas first: the master is found by role, not by position.
  const replicatedNodes = [...set.replicas(), set.master()].map((n) => `redis://127.0.0.1:${n.port}`);
  const c = Redisson.create({ redis: { replicatedNodes, ...redis }, shortLeaseWarning: false, ...options });
  clients.push(c);
  return c;
};
const waits = async (r: Redis): Promise<number> => Number(/cmdstat_wait:calls=(\d+)/.exec(await r.info('commandstats'))?.[1] ?? 0);
const numsub = async (r: Redis, channel: string): Promise<number> => Number(((await r.pubsub('NUMSUB', channel)) as [string, number])[1]);
const port = (c: Redisson): number | undefined => (c.redis as unknown as { stream?: { remotePort?: number } }).stream?.remotePort;

describe('replicated group', () => {
  it('finds the master among the nodes by role; a lock is written there, followed by WAIT, and reaches both replicas; a waiter wakes on the release', async () => {
    const master = set.direct(set.master());
    const name = uniqueName('replicated');
    const [a, b] = [client(), client()];
    const before = await waits(master);
    const holder = a.getLock(name);
    await holder.lock(60_000);
    expect(port(a)).toBe(set.master().port);
    expect(await master.hlen(name)).toBe(1);
    expect(await waits(master)).toBeGreaterThan(before);
    for (const replica of set.replicas()) expect(await set.direct(replica).hlen(name)).toBe(1); // WAIT 2 answered 2
    const waiter = b.getLock(name);
    const waiting = waiter.lock();
    await eventually(async () => (await numsub(master, `redisson_lock__channel:{${name}}`)) === 1, 10_000, 'the waiter to subscribe');
    await holder.unlock();
    await waiting;
    expect(await waiter.isHeldByCurrentThread()).toBe(true);
    await waiter.unlock();
  });

  it('both replicas paused: a lock or semaphore acquisition is undone and fails with NoSyncedSlavesError; nothing is left on the master', async () => {
    // retryDelay: the wait between the undone try and the next one (Redisson's DelayStrategy).
    const c = client({}, { retryAttempts: 1, slavesSyncTimeout: 200, retryDelay: new ConstantDelay(1_500) });
    const [lockName, semName] = [uniqueName('unsynced'), uniqueName('sem')];
    const semaphore = c.getSemaphore(semName);
    expect(await semaphore.trySetPermits(2)).toBe(true); // also connects and caches the replica count
    const master = set.direct(set.master());
    for (const replica of set.replicas()) replica.pause();
    try {
      const started = performance.now();
      const error = await c.getLock(lockName).tryLock(0, 10_000).catch((e: unknown) => e);
      expect(performance.now() - started).toBeGreaterThanOrEqual(2 * 200 + 1_500 - 50); // two WAITs, one retryDelay
      expect(error).toBeInstanceOf(NoSyncedSlavesError);
      expect((error as NoSyncedSlavesError).expected).toBe(2);
      expect((error as NoSyncedSlavesError).synced).toBe(0);
      expect(await master.exists(lockName)).toBe(0);
      await expect(semaphore.tryAcquire(2)).rejects.toThrow(NoSyncedSlavesError);
      expect(await master.get(semName)).toBe('2');
    } finally {
      for (const replica of set.replicas()) replica.resume();
    }
    await replicasOnline(master, 2);
    expect(await semaphore.tryAcquire(2)).toBe(true);
    for (const replica of set.replicas()) expect(await set.direct(replica).get(semName)).toBe('0');
  }, 60_000);

  it('a promotion while a lock is held and a waiter waits: the client follows within scanInterval, the hold survives on the new master, the waiter is re-subscribed there and wakes on the release', async () => {
    const scanInterval = 200;
    const [a, w] = [client({ scanInterval }), client({ scanInterval })];
    const name = uniqueName('promoted');
    const holder = a.getLock(name);
    await holder.lock(); // watchdog lease: renewed across the switch
    const oldMaster = set.master();
    const waiter = w.getLock(name);
    let woken = false;
    const waiting = waiter.lock(60_000).then(() => (woken = true));
    waiting.catch(() => undefined); // awaited below
    await eventually(async () => (await numsub(set.direct(oldMaster), `redisson_lock__channel:{${name}}`)) === 1, 10_000, 'the waiter to subscribe');

    const next = set.replicas()[0]!;
    const switched = [a, w].map((c) => once(c, 'failover') as Promise<[MasterSwitch]>);
    await set.promote(next);
    // Followed by a scan: the old master stays up (now a replica), so no reconnect would ever move the client.
    const [change] = (await Promise.all(switched))[0]!;
    expect(change).toEqual({ masterName: '', from: `127.0.0.1:${oldMaster.port}`, to: `127.0.0.1:${next.port}` });
    expect(port(a)).toBe(next.port);
    const nextMaster = set.direct(next);
    // The hold survived: replicated by WAIT before the promotion, still the holder's on the new master.
    expect(await holder.isHeldByCurrentThread()).toBe(true);
    expect(await nextMaster.hlen(name)).toBe(1);
    await eventually(async () => (await numsub(nextMaster, `redisson_lock__channel:{${name}}`)) === 1, 10_000, 'the waiter to re-subscribe on the new master');
    expect(woken).toBe(false);
    await holder.unlock();
    await waiting;
    expect(woken).toBe(true);
    expect(await waiter.isHeldByCurrentThread()).toBe(true);
    expect(await nextMaster.hget(name, (await nextMaster.hkeys(name))[0]!)).toBe('1');
    await waiter.unlock();
    expect(await nextMaster.exists(name)).toBe(0);
  }, 60_000);

  it('a promoted replica beside a master not yet demoted, for 5 scans: the client keeps the old master, then follows once it is demoted', async () => {
    const scanInterval = 200;
    const [a, w] = [client({ scanInterval }), client({ scanInterval })];
    const name = uniqueName('two-masters');
    const channel = `redisson_lock__channel:{${name}}`;
    const holder = a.getLock(name);
    await holder.lock();
    const oldMaster = set.master();
    const waiter = w.getLock(name);
    const waiting = waiter.lock(60_000);
    waiting.catch(() => undefined); // awaited below
    await eventually(async () => (await numsub(set.direct(oldMaster), channel)) === 1, 10_000, 'the waiter to subscribe');
    const switches: MasterSwitch[] = [];
    for (const c of [a, w]) c.on('failover', (change: MasterSwitch) => switches.push(change));

    // Forced: both nodes say `master` for 5 scans (Redisson would switch to the other one at each of them).
    const next = set.replicas()[0]!;
    await set.direct(next).call('REPLICAOF', 'NO', 'ONE');
    try {
      await sleep(5 * scanInterval);
      expect(switches).toEqual([]);
      expect([port(a), port(w)]).toEqual([oldMaster.port, oldMaster.port]);
      expect(await numsub(set.direct(oldMaster), channel)).toBe(1);
    } finally {
      // The old master demoted (also when a check failed: the rows after this one need one master).
      await set.promote(next, { order: 'demote-first' });
    }
    // Each client switches once, to the promoted node.
    await eventually(() => switches.length === 2, 10_000, 'both clients to follow');
    await sleep(3 * scanInterval);
    expect(switches).toEqual([0, 1].map(() => ({ masterName: '', from: `127.0.0.1:${oldMaster.port}`, to: `127.0.0.1:${next.port}` })));
    const nextMaster = set.direct(next);
    await eventually(async () => (await numsub(nextMaster, channel)) === 1, 10_000, 'the waiter to re-subscribe on the new master');
    expect(await holder.isHeldByCurrentThread()).toBe(true);
    await holder.unlock();
    await waiting;
    expect(await waiter.isHeldByCurrentThread()).toBe(true);
    await waiter.unlock();
    expect(await nextMaster.exists(name)).toBe(0);
  }, 60_000);

  it('an object listener added before a promotion is called for an event on the new master (its pattern re-subscribed there)', async () => {
    for (const node of set.nodes) await set.direct(node).config('SET', 'notify-keyspace-events', 'Egx');
    const c = client({ scanInterval: 200 });
    const name = uniqueName('listener');
    const lock = c.getLock(name);
    const expired: string[] = [];
    await lock.addListener({ onExpired: (n) => expired.push(n) });
    const next = set.replicas()[0]!;
    const followed = once(c, 'failover');
    await set.promote(next);
    await followed;
    const nextMaster = set.direct(next);
    await eventually(async () => Number(await nextMaster.call('PUBSUB', 'NUMPAT')) === 1, 10_000, 'the pattern on the new master');
    await lock.lock(20); // a 20 ms lease on the new master: it expires there
    await eventually(() => expired.length === 1, 5_000, 'the expired event from the new master');
    expect(expired).toEqual([name]);
  }, 60_000);

  it('a write refused with READONLY by a demoted master re-checks at once (long before the next scan) and lands on the new master', async () => {
    const c = client({ scanInterval: 600_000 });
    await c.getLock(uniqueName('warm')).tryLock(0, 10_000);
    const oldMaster = set.master();
    expect(port(c)).toBe(oldMaster.port);
    const next = set.replicas()[0]!;
    await set.promote(next);
    const name = uniqueName('readonly');
    const lock = c.getLock(name);
    const started = performance.now();
    expect(await lock.tryLock(0, 10_000)).toBe(true);
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(port(c)).toBe(next.port);
    expect(await set.direct(next).hlen(name)).toBe(1);
    expect(await set.direct(oldMaster).hlen(name)).toBe(1); // replicated to the demoted one, now a replica
    await lock.unlock();
  }, 60_000);
});

describe('master/slave (fixed master)', () => {
  it('locks and semaphores on the given master, each write followed by WAIT to its replicas; NoSyncedSlavesError when they confirm nothing', async () => {
    const master = set.master();
    const c = Redisson.create({
      redis: { masterAddress: `redis://127.0.0.1:${master.port}`, slaveAddresses: set.replicas().map((r) => `redis://127.0.0.1:${r.port}`) },
      shortLeaseWarning: false,
      retryAttempts: 0,
      slavesSyncTimeout: 200,
    });
    clients.push(c);
    const direct = set.direct(master);
    const [lockName, semName] = [uniqueName('ms'), uniqueName('ms-sem')];
    const before = await waits(direct);
    const lock = c.getLock(lockName);
    await lock.lock(60_000);
    const semaphore = c.getSemaphore(semName);
    expect(await semaphore.trySetPermits(3)).toBe(true);
    expect(await semaphore.tryAcquire(1)).toBe(true);
    expect(await waits(direct)).toBeGreaterThanOrEqual(before + 3);
    for (const replica of set.replicas()) {
      expect(await set.direct(replica).hlen(lockName)).toBe(1);
      expect(await set.direct(replica).get(semName)).toBe('2');
    }
    await lock.unlock();
    for (const replica of set.replicas()) replica.pause();
    try {
      await expect(c.getLock(lockName).tryLock(0, 10_000)).rejects.toThrow(NoSyncedSlavesError);
      expect(await direct.exists(lockName)).toBe(0);
      await expect(semaphore.tryAcquire(2)).rejects.toThrow(NoSyncedSlavesError);
      expect(await direct.get(semName)).toBe('2');
    } finally {
      for (const replica of set.replicas()) replica.resume();
    }
    await replicasOnline(direct, 2);
  }, 60_000);

  it('Redisson.fromConfig of a masterSlaveServersConfig: the client writes to the master with WAIT', async () => {
    const master = set.master();
    const c = Redisson.fromConfig({
      masterSlaveServersConfig: { masterAddress: `redis://127.0.0.1:${master.port}`, slaveAddresses: set.replicas().map((r) => `redis://127.0.0.1:${r.port}`) },
    });
    clients.push(c);
    const direct = set.direct(master);
    const name = uniqueName('ms-config');
    const before = await waits(direct);
    const lock = c.getLock(name);
    await lock.lock(60_000);
    expect(await waits(direct)).toBeGreaterThan(before);
    for (const replica of set.replicas()) expect(await set.direct(replica).hlen(name)).toBe(1);
    await lock.unlock();
  });
});
