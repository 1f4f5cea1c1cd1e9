/**
 * RLock interop through Sentinel (issue 13): Java Redisson 4.7.0 with `useSentinelServers()` and our client with
 * ioredis' Sentinel options, on one spawned Sentinel set (master, two replicas, three Sentinels). Both sides
 * follow every lock write with `WAIT` (counted in the master's `INFO commandstats`), exclude each other, and
 * wake each other through the master. Holders take 60 s leases, far beyond the 10 s hang guards, so a waiter
 * that acquires within a guard was woken by the release message. One version (the newest) keeps the extra JVM
 * off the other versions' runs; the standalone matrix covers the wire itself for all three.
 */
import { once } from 'node:events';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Redisson } from '../../src/index.js';
import { eventually, uniqueName } from '../support/redis.js';
import { startSentinelSet, type SentinelSet } from '../support/sentinel.js';
import { within as guard } from '../support/poll.js';
import { javaAvailable, JavaPeer } from './JavaPeer.js';
import { javaMissingPlaceholder } from './support/placeholder.js';

const VERSION = '4.7.0';
const LONG_LEASE_MS = 60_000;
const HANG_GUARD_MS = 10_000;
const availability = javaAvailable();

if (!availability.ok) javaMissingPlaceholder('Sentinel interop', availability.reason);

describe.runIf(availability.ok)(`Java Redisson ${VERSION} ⇄ redisson-ts through Sentinel`, () => {
  let set: SentinelSet;
  let peer: JavaPeer;
  let client: Redisson;
  let master: Redis;

  beforeAll(async () => {
    set = await startSentinelSet();
    peer = await JavaPeer.start(VERSION, {
      address: '',
      sentinel: { masterName: set.masterName, sentinelAddresses: set.sentinelAddresses.map((a) => `redis://${a.host}:${a.port}`) },
    });
    client = Redisson.create({ redis: set.redisOptions() });
    master = new Redis({ port: set.master.port });
  }, 120_000);

  afterAll(async () => {
    await client?.shutdown();
    master?.disconnect();
    await peer?.shutdown();
    await set?.stop();
  });

  const java = async (name: string, method: string, args: unknown[], thread: string): Promise<unknown> => (await peer.call('lock', name, method, args, thread)).result;
  const waits = async (): Promise<number> => Number(/cmdstat_wait:calls=(\d+)/.exec(await master.info('commandstats'))?.[1] ?? 0);
  const subscribed = (name: string): Promise<void> =>
    eventually(async () => Number(((await master.pubsub('NUMSUB', `redisson_lock__channel:{${name}}`)) as [string, number])[1]) === 1, HANG_GUARD_MS, 'the waiter to subscribe');
  const within = <T>(p: Promise<T>, what: string): Promise<T> => guard(p, HANG_GUARD_MS, what);

  it('Java holds: its lock write is followed by WAIT too; our tryLock() is false and our waiter wakes on its unlock', async () => {
    const name = uniqueName('interop-sentinel');
    const before = await waits();
    await java(name, 'lock', [LONG_LEASE_MS], 'holder');
    expect((await waits()) - before).toBeGreaterThanOrEqual(1); // Redisson's synced execution outside single-server mode
    expect(await client.getLock(name).tryLock()).toBe(false);
    const waiter = client.getLock(name);
    const waiting = waiter.lock();
    await subscribed(name);
    await java(name, 'unlock', [], 'holder');
    await within(waiting, 'our waiter');
    // Our acquisition was confirmed by the replicas (WAIT) before lock() resolved.
    for (const replica of set.replicas) {
      const r = new Redis({ port: replica.port });
      try {
        expect(await r.hlen(name)).toBe(1);
      } finally {
        r.disconnect();
      }
    }
    await waiter.unlock();
  });

  it("we hold: Java's tryLock() is false and a Java waiter wakes on our unlock", async () => {
    const name = uniqueName('interop-sentinel');
    const lock = client.getLock(name);
    await lock.lock(LONG_LEASE_MS);
    expect(await java(name, 'tryLock', [], 'probe')).toBe(false);
    const waiting = java(name, 'lock', [LONG_LEASE_MS], 'waiter');
    await subscribed(name);
    await lock.unlock();
    await within(waiting, "Java's waiter");
    expect(Object.keys(await master.hgetall(name))).toEqual([`${peer.clientId}:${await peer.threadId('waiter')}`]);
    await java(name, 'unlock', [], 'waiter');
  });
});

// Last in this file: it fails the master over. Java Redisson 4.7.0 finds the new master by polling the Sentinels
// every `scanInterval` (1 s); we follow Sentinel's `+switch-master` at once (COMPATIBILITY.md).
describe.runIf(availability.ok)(`Java Redisson ${VERSION} ⇄ redisson-ts across a SENTINEL FAILOVER`, () => {
  let set: SentinelSet;
  let peer: JavaPeer;
  let client: Redisson;
  const raws: Redis[] = [];

  beforeAll(async () => {
    set = await startSentinelSet();
    peer = await JavaPeer.start(VERSION, {
      address: '',
      sentinel: { masterName: set.masterName, sentinelAddresses: set.sentinelAddresses.map((a) => `redis://${a.host}:${a.port}`) },
    });
    client = Redisson.create({ redis: set.redisOptions() });
  }, 120_000);

  afterAll(async () => {
    await client?.shutdown();
    for (const r of raws) r.disconnect();
    await peer?.shutdown();
    await set?.stop();
  });

  const direct = (port: number): Redis => {
    const r = new Redis({ port, maxRetriesPerRequest: 1 });
    r.on('error', () => undefined);
    raws.push(r);
    return r;
  };
  const java = async (name: string, method: string, args: unknown[], thread: string): Promise<unknown> => (await peer.call('lock', name, method, args, thread)).result;
  const within = <T>(p: Promise<T>, what: string): Promise<T> => guard(p, HANG_GUARD_MS, what);
  const numsub = async (r: Redis, name: string): Promise<number> => Number(((await r.pubsub('NUMSUB', `redisson_lock__channel:{${name}}`)) as [string, number])[1]);

  it('our unlock of a hold taken before the switch releases it on the new master and wakes the Java waiter; a Java holder there excludes us', async () => {
    const oldMaster = direct(set.master.port);
    const name = uniqueName('interop-failover');
    const lock = client.getLock(name);
    await lock.lock(LONG_LEASE_MS); // on both replicas (WAIT) before the failover
    const javaWaiting = java(name, 'lock', [LONG_LEASE_MS], 'waiter');
    javaWaiting.catch(() => undefined); // awaited below
    await eventually(async () => (await numsub(oldMaster, name)) === 1, HANG_GUARD_MS, 'the Java waiter to subscribe');

    const followed = once(client, 'failover');
    await direct(set.sentinels[0]!.port).call('SENTINEL', 'FAILOVER', set.masterName);
    await guard(followed, 20_000, 'our client to follow the switch');
    const newMaster = direct(await set.masterPort());
    // Java re-subscribes its waiter on the new master once its scan finds the switch.
    await eventually(async () => (await numsub(newMaster, name)) === 1, 20_000, 'the Java waiter to re-subscribe on the new master');
    await lock.unlock();
    await within(javaWaiting, "Java's waiter");
    expect(Object.keys(await newMaster.hgetall(name))).toEqual([`${peer.clientId}:${await peer.threadId('waiter')}`]);
    // Java holds on the new master: we are excluded there, and wake on its release.
    expect(await client.getLock(name).tryLock()).toBe(false);
    const waiter = client.getLock(name);
    const waiting = waiter.lock();
    waiting.catch(() => undefined); // awaited below
    await eventually(async () => (await numsub(newMaster, name)) === 1, HANG_GUARD_MS, 'our waiter to subscribe on the new master');
    await java(name, 'unlock', [], 'waiter');
    await within(waiting, 'our waiter');
    expect(await newMaster.hget(name, `${client.getId()}:${waiter.threadId}`)).toBe('1');
    await waiter.unlock();
    expect(await newMaster.exists(name)).toBe(0);
  }, 90_000);
});
