/**
 * The node-redis driver with a `createSentinel()` client passed in (issue 25), node-redis 6 and 5, on a Sentinel
 * deployment spawned from `redis-server`: a lock (its writes followed by WAIT, so both replicas hold it), and a
 * `SENTINEL FAILOVER` under a held lock with a waiter parked on another client: both clients follow node-redis'
 * MASTER_CHANGE, the waiter's channel is subscribed once on the new master, and it wakes on the release there.
 */
import { Redis } from 'ioredis';
import { createSentinel as createSentinel6 } from 'redis';
import { createSentinel as createSentinel5 } from 'redis-5';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Redisson } from '../../src/index.js';
import { eventually, uniqueName, within } from '../support/redis.js';
import { startSentinelSet, type SentinelSet } from '../support/sentinel.js';

interface SentinelClient {
  connect(): Promise<unknown>;
  close(): Promise<unknown>;
  on(event: string, listener: (...args: never[]) => void): unknown;
  readonly isOpen: boolean;
}

let set: SentinelSet;
const redissons: Redisson[] = [];
const sentinels: SentinelClient[] = [];
const raws: Redis[] = [];

beforeAll(async () => {
  set = await startSentinelSet();
}, 60_000);

afterAll(async () => {
  await Promise.allSettled(redissons.map((r) => r.shutdown()));
  await Promise.allSettled(sentinels.filter((s) => s.isOpen).map((s) => s.close()));
  for (const r of raws) r.disconnect();
  await set?.stop();
});

const direct = (port: number): Redis => {
  const r = new Redis({ port, maxRetriesPerRequest: 1 });
  r.on('error', () => undefined);
  raws.push(r);
  return r;
};
const numsub = async (r: Redis, channel: string): Promise<number> => Number(((await r.call('PUBSUB', 'NUMSUB', channel)) as [string, number])[1]);

const VERSIONS = [
  { label: 'node-redis 6.4.0', make: (o: object) => createSentinel6(o as never) as unknown as SentinelClient },
  { label: 'node-redis 5.12.4', make: (o: object) => createSentinel5(o as never) as unknown as SentinelClient },
] as const;

describe.each(VERSIONS)('a createSentinel() client passed in ($label)', ({ make }) => {
  const client = async (): Promise<Redisson> => {
    const sentinel = make({ name: set.masterName, sentinelRootNodes: set.sentinelAddresses.map((a) => ({ ...a })) });
    sentinel.on('error', () => undefined);
    sentinels.push(sentinel);
    await sentinel.connect();
    const r = Redisson.create({ redis: sentinel as never, shortLeaseWarning: false });
    redissons.push(r);
    return r;
  };

  it('locks on the master, its writes followed by WAIT: both replicas hold the lock when lock() resolves', { timeout: 60_000 }, async () => {
    const master = await set.masterPort();
    // After the other version's failover the demoted master resynchronises first: both replicas online, then lock.
    const online = async (): Promise<number[]> => [...(await direct(master).info('replication')).matchAll(/^slave\d+:.*port=(\d+),state=online/gm)].map((m) => Number(m[1]));
    await eventually(async () => (await online()).length === 2, 30_000, 'both replicas online');
    const c = await client();
    const lock = c.getLock(uniqueName('nr-sentinel'));
    await lock.lock();
    const field = `${c.getId()}:${lock.threadId}`;
    expect(await direct(master).hget(lock.getName(), field)).toBe('1');
    for (const port of await online()) expect(await direct(port).hget(lock.getName(), field)).toBe('1');
    await lock.unlock();
  });

  it('SENTINEL FAILOVER under a held lock: both clients follow, the waiter re-subscribes once on the new master and wakes on the release there', async () => {
    const [holderClient, waiterClient] = [await client(), await client()];
    const holder = holderClient.getLock(uniqueName('nr-failover'));
    await holder.lock(60_000);
    const waiter = waiterClient.getLock(holder.getName());
    let woken = false;
    const waiting = waiter.lock(60_000).then(() => (woken = true));
    waiting.catch(() => undefined); // awaited below
    const channel = `redisson_lock__channel:{${holder.getName()}}`;
    const oldPort = await set.masterPort();
    await eventually(async () => (await numsub(direct(oldPort), channel)) === 1, 10_000, 'the waiter to subscribe');
    const followed = Promise.all([holderClient, waiterClient].map((c) => new Promise((resolve) => c.once('failover', resolve))));
    await direct(set.sentinelAddresses[0]!.port).call('SENTINEL', 'FAILOVER', set.masterName);
    await within(followed, 30_000, 'both clients to follow the switch');
    const newPort = await set.masterPort();
    expect(newPort).not.toBe(oldPort);
    const promoted = direct(newPort);
    await eventually(async () => (await numsub(promoted, channel)) === 1, 10_000, 'the waiter to re-subscribe on the new master');
    expect(woken).toBe(false);
    await holder.unlock();
    await within(waiting, 10_000, 'the waiter');
    expect(await promoted.hget(holder.getName(), `${waiterClient.getId()}:${waiter.threadId}`)).toBe('1');
    expect(await numsub(promoted, channel)).toBeLessThanOrEqual(1);
    await waiter.unlock();
  }, 90_000);
});
