/**
 * A cluster failover wakes waiters at once (issue 24, defect 8). `CLUSTER FAILOVER` on a replica swaps it with
 * its master without losing data; a waiter parked on the old master must be re-subscribed on the new one and
 * wake on the holder's release there. The topology scan is made useless (`slotsRefreshInterval` of ten minutes)
 * and the holder's lease is 30 s, so a waiter that acquires within the 20 s hang guard was woken by the client's
 * reaction to the failover (a MOVED reply, ioredis' node events), not by the scan or the lease.
 */
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keySlot } from '../../src/connection/slots.js';
import { Redisson, type RedissonOptions } from '../../src/index.js';
import { startCluster, type TestCluster } from '../support/cluster.js';
import { within } from '../support/poll.js';
import { eventually, uniqueName } from '../support/redis.js';

let cluster: TestCluster;
const clients: Redisson[] = [];
const raws: Redis[] = [];

beforeAll(async () => {
  cluster = await startCluster();
}, 60_000);

afterAll(async () => {
  await Promise.all(clients.map((c) => c.shutdown().catch(() => undefined)));
  for (const r of raws) r.disconnect();
  await cluster?.stop();
});

const NO_SCAN = { slotsRefreshInterval: 600_000 };
const client = (options: RedissonOptions = {}): Redisson => {
  const c = Redisson.create({ redis: { clusterNodes: [...cluster.startupNodes], clusterOptions: NO_SCAN }, shortLeaseWarning: false, ...options });
  clients.push(c);
  return c;
};
const node = (port: number): Redis => {
  const r = new Redis({ port });
  r.on('error', () => undefined);
  raws.push(r);
  return r;
};
const replicaOf = async (masterPort: number): Promise<number> => {
  const lines = ((await node(masterPort).cluster('NODES')) as string).trim().split('\n');
  const id = lines.find((l) => l.includes('myself'))!.split(' ')[0]!;
  const replica = lines.find((l) => l.split(' ')[3] === id)!;
  return Number(/:(\d+)@/.exec(replica)![1]);
};

// Sharded pub/sub (AUTO on Redis 7, Redisson's default): the old master drops the waiter's SSUBSCRIBE when its slot
// moves. (With OFF a classic PUBLISH reaches every node, so the waiter wakes without re-subscribing.)
const mode = 'AUTO';
describe('CLUSTER FAILOVER', () => {
  it("a waiter parked on the old master wakes on the holder's release after the failover, without a topology scan", async () => {
    const name = uniqueName('cluster-failover');
    const slot = keySlot(name);
    const oldMaster = await cluster.masterOf(slot);
    const holder = client({ shardedSubscriptionMode: mode }).getLock(name);
    await holder.lock(30_000);
    const waiterClient = client({ shardedSubscriptionMode: mode });
    const waiter = waiterClient.getLock(name);
    let woken = false;
    const waiting = waiter.lock().then(() => (woken = true));
    waiting.catch(() => undefined); // awaited below
    // The waiter is subscribed (its first attempt ran, then it parked).
    await eventually(async () => {
      const r = node(oldMaster.port);
      const channel = `redisson_lock__channel:{${name}}`;
      const [, sharded] = (await r.pubsub('SHARDNUMSUB', channel)) as [string, number];
      const [, classic] = (await Promise.all(cluster.nodes.filter((n) => n.running).map(async (n) => (await node(n.port).pubsub('NUMSUB', channel)) as [string, number]))).reduce((acc, v) => [acc[0], Number(acc[1]) + Number(v[1])], ['', 0] as [string, number]);
      return Number(sharded) + Number(classic) === 1;
    }, 10_000, 'the waiter to subscribe');

    const replicaPort = await replicaOf(oldMaster.port);
    await node(replicaPort).cluster('FAILOVER');
    await eventually(async () => (await cluster.masterOf(slot).catch(() => oldMaster)).port === replicaPort, 20_000, 'the replica to take the slot over');
    expect(woken).toBe(false);
    await holder.unlock();
    await within(waiting, 20_000, 'the waiter (the lease is 30 s, the scan 10 min)');
    expect(await node(replicaPort).hget(name, `${waiterClient.getId()}:${waiter.threadId}`)).toBe('1');
    await waiter.unlock();
  }, 60_000);
});
