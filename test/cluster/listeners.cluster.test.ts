/**
 * Object listeners on a spawned 3+3 Redis Cluster. Keyspace events are published only on the node that holds
 * the key, so each pattern is subscribed on every master (Redisson's `psubscribe` of a keyspace pattern outside
 * single mode): a listener fires for objects on every master; `removeListener` leaves no pattern on any node; a
 * `CLUSTER FAILOVER` puts the pattern on the promoted replica, whose events then still reach the listener.
 */
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keySlot } from '../../src/connection/slots.js';
import { Redisson } from '../../src/index.js';
import { startCluster, type TestCluster } from '../support/cluster.js';
import { eventually, uniqueName } from '../support/redis.js';

let cluster: TestCluster;
const clients: Redisson[] = [];
const raws: Redis[] = [];

beforeAll(async () => {
  cluster = await startCluster();
  // Every node, replicas included: a promoted replica publishes the events of its slots.
  for (const { port } of cluster.startupNodes) await node(port).config('SET', 'notify-keyspace-events', 'Egx');
}, 60_000);

afterAll(async () => {
  await Promise.all(clients.map((c) => c.shutdown().catch(() => undefined)));
  for (const r of raws) r.disconnect();
  await cluster?.stop();
});

const client = (): Redisson => {
  const c = Redisson.create({ redis: { clusterNodes: [...cluster.startupNodes] }, shortLeaseWarning: false });
  clients.push(c);
  return c;
};
function node(port: number): Redis {
  const r = new Redis({ port, maxRetriesPerRequest: 1 });
  r.on('error', () => undefined);
  raws.push(r);
  return r;
}
const numpat = async (port: number): Promise<number> => Number(await node(port).call('PUBSUB', 'NUMPAT'));

/** One name per master: each lives on another node. */
async function namesOnEveryMaster(): Promise<Map<number, string>> {
  const byMaster = new Map<number, string>();
  const masters = await cluster.masters();
  while (byMaster.size < masters.length) {
    const name = uniqueName('lsn');
    const { port } = await cluster.masterOf(keySlot(name));
    if (!byMaster.has(port)) byMaster.set(port, name);
  }
  return byMaster;
}

describe('listeners in a cluster', () => {
  it('expired and deleted events of objects on every master; removeListener leaves no pattern anywhere', async () => {
    const c = client();
    const names = await namesOnEveryMaster();
    const expired: string[] = [];
    const deleted: string[] = [];
    const ids: number[] = [];
    for (const name of names.values()) {
      const lock = c.getLock(name);
      ids.push(await lock.addListener({ onExpired: (n) => expired.push(n) }));
      ids.push(await lock.addListener({ onDeleted: (n) => deleted.push(n) }));
    }
    for (const port of names.keys()) expect(await numpat(port)).toBe(2);
    for (const [port, name] of names) {
      const lock = c.getLock(name);
      await lock.lock(60_000);
      await node(port).pexpire(name, 20);
      await c.getLock(`${name}:d`).lock(60_000);
      await c.getLock(`${name}:d`).forceUnlock();
    }
    await eventually(() => expired.length === names.size, 10_000, 'an expired event from every master');
    expect(expired.sort()).toEqual([...names.values()].sort());
    // Only the listened-to objects' keys count: `…:d` was deleted, not these.
    expect(deleted).toEqual([]);
    for (const name of names.values()) {
      const lock = c.getLock(name);
      await lock.lock(60_000);
      await lock.forceUnlock();
    }
    await eventually(() => deleted.length === names.size, 10_000, 'a del event from every master');
    const any = c.getLock(uniqueName('lsn'));
    for (const id of ids) await any.removeListener(id);
    for (const port of names.keys()) expect(await numpat(port)).toBe(0);
  }, 60_000);

  it("the notifications check reads the master of the object's slot: off there, KeyspaceNotificationsDisabledError naming it", async () => {
    const c = client();
    const names = [...(await namesOnEveryMaster()).entries()];
    const [[offPort, offName], [onPort, onName]] = names as [[number, string], [number, string]];
    await node(offPort).config('SET', 'notify-keyspace-events', '');
    try {
      await expect(c.getLock(offName).addListener({ onDeleted: () => undefined })).rejects.toMatchObject({
        code: 'ERR_REDISSON_KEYSPACE_NOTIFICATIONS_DISABLED',
        server: `127.0.0.1:${offPort}`,
      });
      const id = await c.getLock(onName).addListener({ onDeleted: () => undefined });
      expect(await numpat(onPort)).toBe(1);
      await c.getLock(onName).removeListener(id);
    } finally {
      await node(offPort).config('SET', 'notify-keyspace-events', 'Egx');
    }
  });

  it('after CLUSTER FAILOVER the promoted replica has the pattern and its events reach the listener', async () => {
    const c = client();
    const name = uniqueName('lsn');
    const slot = keySlot(name);
    const old = await cluster.masterOf(slot);
    const lines = ((await node(old.port).cluster('NODES')) as string).trim().split('\n');
    const id = lines.find((l) => l.includes('myself'))!.split(' ')[0]!;
    const replicaPort = Number(/:(\d+)@/.exec(lines.find((l) => l.split(' ')[3] === id)!)![1]);
    const lock = c.getLock(name);
    const deleted: string[] = [];
    await lock.addListener({ onDeleted: (n) => deleted.push(n) });
    expect(await numpat(replicaPort)).toBe(0);
    await cluster.failOver(replicaPort, slot);
    // Found by the client's topology scan (or a MOVED) within seconds.
    await eventually(async () => (await numpat(replicaPort)) === 1, 20_000, 'the pattern on the new master');
    await eventually(
      async () => {
        await lock.lock(60_000);
        await lock.forceUnlock();
        return deleted.length > 0;
      },
      10_000,
      'a del event from the new master',
    );
    expect(deleted[0]).toBe(name);
  }, 60_000);
});
