/**
 * RLock interop in a Redis Cluster (issue 13): Java Redisson with `useClusterServers()` and our cluster client
 * on one spawned 3+3 cluster, both directions. Java 4.7.0 and 3.52.0 shard pub/sub on Redis 7 by default
 * (`shardedSubscriptionMode` AUTO): ours does too, and each side's unlock wakes the other's waiter through
 * `SPUBLISH`; Java 4.7.0 told OFF and ours OFF use classic `PUBLISH`. Java 3.17.7 predates sharded pub/sub
 * (classic in a cluster): ours with `shardedSubscriptionMode: 'OFF'` wakes and is woken by it. Holders take 60 s leases, far beyond the 10 s
 * hang guards, so a waiter that acquires within a guard was woken by the message, not by the lease.
 */
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keySlot } from '../../src/connection/slots.js';
import { CrossSlotNameError, Redisson } from '../../src/index.js';
import { startCluster, type TestCluster } from '../support/cluster.js';
import { eventually, uniqueName } from '../support/redis.js';
import { within as guard } from '../support/poll.js';
import { javaAvailable, JavaPeer } from './JavaPeer.js';
import { javaMissingPlaceholder } from './support/placeholder.js';

const CASES = [
  { version: '4.7.0', java: 'AUTO', ours: 'AUTO', command: 'spublish' },
  { version: '4.7.0', java: 'OFF', ours: 'OFF', command: 'publish' },
  { version: '3.52.0', java: 'AUTO', ours: 'AUTO', command: 'spublish' },
  { version: '3.17.7', java: 'none', ours: 'OFF', command: 'publish' },
] as const;
const LONG_LEASE_MS = 60_000;
const HANG_GUARD_MS = 10_000;
const availability = javaAvailable();

if (!availability.ok) javaMissingPlaceholder('Cluster interop', availability.reason);

describe.runIf(availability.ok)('Java Redisson ⇄ redisson-ts in a Redis Cluster', () => {
  let cluster: TestCluster;
  beforeAll(async () => {
    cluster = await startCluster();
  }, 60_000);
  afterAll(async () => {
    await cluster?.stop();
  });

  describe.each(CASES)('Java $version (shardedSubscriptionMode $java), ours $ours', ({ version, java: javaMode, ours, command }) => {
    let peer: JavaPeer;
    let client: Redisson;
    const raws: Redis[] = [];
    beforeAll(async () => {
      const nodeAddresses = cluster.startupNodes.map((n) => `redis://${n.host}:${n.port}`);
      // 3.17.7 has no shardedSubscriptionMode (classic pub/sub always); the others are told their mode.
      peer = await JavaPeer.start(version, { address: '', cluster: javaMode === 'none' ? { nodeAddresses } : { nodeAddresses, shardedSubscriptionMode: javaMode } });
      client = Redisson.create({ redis: { clusterNodes: [...cluster.startupNodes] }, shardedSubscriptionMode: ours });
    }, 120_000);
    afterAll(async () => {
      await client?.shutdown();
      for (const r of raws) r.disconnect();
      await peer?.shutdown();
    });

    const java = async (name: string, method: string, args: unknown[], thread: string): Promise<unknown> => (await peer.call('lock', name, method, args, thread)).result;
    const masterOf = async (name: string): Promise<Redis> => {
      const r = new Redis({ port: (await cluster.masterOf(keySlot(name))).port });
      raws.push(r);
      return r;
    };
    const calls = async (r: Redis): Promise<number> => Number(new RegExp(`cmdstat_${command}:calls=(\\d+)`).exec(await r.info('commandstats'))?.[1] ?? 0);
    const within = <T>(p: Promise<T>, what: string): Promise<T> => guard(p, HANG_GUARD_MS, what);
    /** Resolves once a waiter subscribed to the lock's channel: sharded on the slot's master, classic anywhere. */
    const subscribed = async (name: string, master: Redis): Promise<void> => {
      const channel = `redisson_lock__channel:{${name}}`;
      const nodes = cluster.nodes.map((n) => {
        const r = new Redis({ port: n.port });
        raws.push(r);
        return r;
      });
      await eventually(
        async () => {
          if (command === 'spublish') return Number(((await master.pubsub('SHARDNUMSUB', channel)) as [string, number])[1]) >= 1;
          let total = 0;
          for (const r of nodes) total += Number(((await r.pubsub('NUMSUB', channel)) as [string, number])[1]);
          return total >= 1;
        },
        HANG_GUARD_MS,
        'the waiter to subscribe',
      );
    };

    it(`Java holds: our waiter wakes on Java's unlock (${command.toUpperCase()} on the slot's master)`, async () => {
      const name = uniqueName('interop-cluster');
      const master = await masterOf(name);
      await java(name, 'lock', [LONG_LEASE_MS], 'holder');
      expect(await client.getLock(name).tryLock()).toBe(false);
      const waiter = client.getLock(name);
      const waiting = waiter.lock();
      await subscribed(name, master);
      const before = await calls(master);
      await java(name, 'unlock', [], 'holder');
      await within(waiting, 'our waiter');
      expect((await calls(master)) - before).toBeGreaterThanOrEqual(1);
      await waiter.unlock();
    });

    it(`we hold: a Java waiter wakes on our unlock (${command.toUpperCase()})`, async () => {
      const name = uniqueName('interop-cluster');
      const master = await masterOf(name);
      const lock = client.getLock(name);
      await lock.lock(LONG_LEASE_MS);
      expect(await java(name, 'tryLock', [], 'probe')).toBe(false);
      const waiting = java(name, 'lock', [LONG_LEASE_MS], 'waiter');
      await subscribed(name, master);
      const before = await calls(master);
      await lock.unlock();
      await within(waiting, "Java's waiter");
      expect((await calls(master)) - before).toBe(1);
      expect(Object.keys(await master.hgetall(name))).toEqual([`${peer.clientId}:${await peer.threadId('waiter')}`]);
      await java(name, 'unlock', [], 'waiter');
    });

    it('a name that splits a primitive across slots: Java sends it and fails with CROSSSLOT; ours refuses it before sending', async () => {
      // Issue 24: Redisson checks nothing — the latch's channel wraps the whole name in braces, a fair lock's
      // keys with an empty `{}` are hashed whole — and Redis answers the script with CROSSSLOT.
      await expect(peer.call('countDownLatch', 'orders:{42}:latch', 'trySetCount', [1])).rejects.toThrow(/CROSSSLOT/);
      await expect(peer.call('fairLock', 'x{}y', 'tryLock', [], 'probe')).rejects.toThrow(/CROSSSLOT/);
      expect(() => client.getCountDownLatch('orders:{42}:latch')).toThrow(CrossSlotNameError);
      expect(() => client.getFairLock('x{}y')).toThrow(CrossSlotNameError);
      // The names the error suggests work on both sides.
      expect((await peer.call('countDownLatch', 'orders:42:latch', 'trySetCount', [1])).result).toBe(true);
      await client.getCountDownLatch('orders:42:latch').countDown();
      expect((await peer.call('countDownLatch', 'orders:42:latch', 'getCount')).result).toBe(0);
      expect((await peer.call('fairLock', '{xy}', 'tryLock', [], 'probe')).result).toBe(true);
      expect(await client.getFairLock('{xy}').tryLock()).toBe(false);
      await peer.call('fairLock', '{xy}', 'unlock', [], 'probe');
    });
  });
});
