/**
 * Object listeners with Sentinel: after `SENTINEL FAILOVER` the client's subscriber moves to the new master,
 * where its pattern is subscribed again (keyspace events are published by the node that holds the key), and a
 * listener added before the failover is called for an event on the new master.
 */
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Redisson } from '../../src/index.js';
import { eventually, uniqueName } from '../support/redis.js';
import { startSentinelSet, type SentinelSet } from '../support/sentinel.js';

let set: SentinelSet;
const clients: Redisson[] = [];
const raws: Redis[] = [];

beforeAll(async () => {
  set = await startSentinelSet();
  // Every data node: the promoted replica publishes the events after the failover.
  for (const server of [set.master, ...set.replicas]) await direct(server.port).config('SET', 'notify-keyspace-events', 'Egx');
}, 60_000);

afterAll(async () => {
  await Promise.all(clients.map((c) => c.shutdown().catch(() => undefined)));
  for (const r of raws) r.disconnect();
  await set?.stop();
});

function direct(port: number): Redis {
  const r = new Redis({ port, maxRetriesPerRequest: 1 });
  r.on('error', () => undefined);
  raws.push(r);
  return r;
}
const numpat = async (port: number): Promise<number> => Number(await direct(port).call('PUBSUB', 'NUMPAT'));

describe('listeners with Sentinel', () => {
  it('a listener added before SENTINEL FAILOVER is called for events on the new master', async () => {
    const c = Redisson.create({ redis: set.redisOptions(), shortLeaseWarning: false });
    clients.push(c);
    const name = uniqueName('lsn');
    const lock = c.getLock(name);
    const expired: string[] = [];
    const deleted: string[] = [];
    await lock.addListener({ onExpired: (n) => expired.push(n) });
    await lock.addListener({ onDeleted: (n) => deleted.push(n) });
    const before = await set.masterPort();
    expect(await numpat(before)).toBe(2);
    await lock.lock(60_000);
    await lock.forceUnlock();
    await eventually(() => deleted.length === 1, 5_000, 'the del event before the failover');

    await direct(set.sentinelAddresses[0]!.port).call('SENTINEL', 'FAILOVER', set.masterName);
    await eventually(async () => (await set.masterPort()) !== before, 20_000, 'a new master');
    const after = await set.masterPort();
    await eventually(async () => (await numpat(after)) === 2, 20_000, 'the patterns on the new master');
    await eventually(
      async () => {
        await lock.lock(60_000).catch(() => undefined);
        await direct(after).pexpire(name, 20);
        await new Promise((r) => setTimeout(r, 200));
        return expired.length > 0;
      },
      15_000,
      'an expired event from the new master',
    );
    expect(expired[0]).toBe(name);
  }, 60_000);
});
