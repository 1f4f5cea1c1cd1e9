/**
 * RLock behaviour on a real server, following Redisson's RedissonLockTest as a checklist
 * (PROTOCOL.md §14.2), with and without an ioredis keyPrefix — and the same suite, unchanged, through a
 * Sentinel deployment (master, two replicas, three Sentinels), where every lock write is followed by `WAIT`
 * (issue 13: one suite over the deployments), and in a Redis Cluster (three masters, a replica each).
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Cluster, Redis } from 'ioredis';
import {
  IllegalMonitorStateError,
  lockChannelName,
  RedissonShutdownError,
  TimeUnit,
  type Redisson,
} from '../../src/index.js';
import { Clients, collectMessages, eventually, sleep, startRedis, uniqueName, type TestRedis } from '../support/redis.js';
import { startSentinelSet, type SentinelSet } from '../support/sentinel.js';
import { startCluster, type TestCluster } from '../support/cluster.js';

let server: TestRedis;
beforeAll(async () => {
  server = await startRedis();
});
afterAll(async () => {
  await server.stop();
});

describe.each([
  { label: 'no keyPrefix', keyPrefix: '', sentinel: false },
  { label: 'ioredis keyPrefix', keyPrefix: 'app1:', sentinel: false },
  { label: 'through Sentinel, WAIT after every write', keyPrefix: '', sentinel: true },
  { label: 'in a Redis Cluster, WAIT after every write, classic pub/sub', keyPrefix: '', cluster: true },
])('RLock ($label)', ({ keyPrefix, sentinel = false, cluster = false }) => {
  let clients: Clients;
  let raw: Redis;
  let set: SentinelSet | undefined;
  let nodes: TestCluster | undefined;
  const clusterRaws: Cluster[] = [];
  // One plain connection per cluster node, for counting classic subscriptions.
  let nodeConns: Redis[] = [];
  // Raw connections (assertions on the data) go to the server, the Sentinel deployment's master, or the
  // cluster (an ioredis Cluster, which routes each key to its slot).
  let url = '';
  const newClient = (options: { lockWatchdogTimeout?: number } = {}): Redisson =>
    clients.client({
      redis: nodes ? { clusterNodes: [...nodes.startupNodes] } : set ? { ...set.redisOptions(), keyPrefix } : { ...redisOptions(server.url), keyPrefix },
      // Classic in the cluster too: the raw subscribers of these tests are classic ones.
      ...(nodes ? { shardedSubscriptionMode: 'OFF' as const } : {}),
      ...options,
    });
  const newRaw = (): Redis => {
    if (!nodes) return clients.raw();
    const c = new Cluster([...nodes.startupNodes]);
    clusterRaws.push(c);
    return c as unknown as Redis;
  };
  // Raw view of what is stored: the key as ioredis' keyPrefix makes it.
  const key = (name: string): string => keyPrefix + name;
  const numSub = async (channel: string): Promise<number> => {
    if (nodes) {
      // A classic subscription lives on one node of the cluster: count them on every node.
      let total = 0;
      for (const n of nodeConns) total += Number(((await n.pubsub('NUMSUB', channel)) as [string, number])[1]);
      return total;
    }
    const reply = (await raw.pubsub('NUMSUB', keyPrefix + channel)) as [string, number];
    return Number(reply[1]);
  };

  beforeAll(async () => {
    if (sentinel) set = await startSentinelSet();
    if (cluster) {
      nodes = await startCluster();
      nodeConns = nodes.nodes.map((n) => new Redis({ port: n.port }));
    }
    url = set ? `redis://127.0.0.1:${set.master.port}` : server.url;
    clients = new Clients(url);
    raw = newRaw();
  }, 60_000);
  afterEach(async () => {
    await clients.closeAll();
    for (const c of clusterRaws.splice(0)) c.disconnect();
    clients = new Clients(url);
    raw = newRaw();
  });
  afterAll(async () => {
    await clients.closeAll();
    for (const c of clusterRaws.splice(0)) c.disconnect();
    for (const c of nodeConns.splice(0)) c.disconnect();
    await nodes?.stop();
    await set?.stop();
  });

  it('stores the Redisson layout: hash field <clientUUID>:<threadId> = count, PTTL = lease, 0 published on release', async () => {
    const client = newClient();
    const name = uniqueName('product');
    const lock = client.getLock(name);
    const messages = await collectMessages(newRaw(), keyPrefix + lockChannelName(name));
    await lock.lock();
    expect(client.getId()).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(await raw.hgetall(key(name))).toEqual({ [`${client.getId()}:${lock.threadId}`]: '1' });
    const pttl = await raw.pttl(key(name));
    expect(pttl).toBeGreaterThan(25_000);
    expect(pttl).toBeLessThanOrEqual(30_000);
    await lock.unlock();
    expect(await raw.exists(key(name))).toBe(0);
    await eventually(() => messages.length > 0, 5_000, 'release message');
    expect(messages).toEqual(['0']);
    // The latch was set by the script and DEL'd after the reply.
    await eventually(async () => (await raw.keys(`${keyPrefix}redisson_unlock_latch:{${name}}:*`)).length === 0, 5_000, 'latch DEL');
  });

  it('testReentrancy / testGetHoldCount: counts holds, another owner stays out until the last unlock', async () => {
    const client = newClient();
    const name = uniqueName();
    const lock = client.getLock(name);
    const other = client.getLock(name);
    // One Java thread = one owner id: its calls re-enter (an explicit threadId, like Redisson's *Async(…, threadId)).
    const t = { threadId: 1 };
    expect(await lock.getHoldCount(t)).toBe(0);
    expect(await lock.tryLock(t)).toBe(true);
    expect(await lock.tryLock(t)).toBe(true);
    expect(await lock.getHoldCount(t)).toBe(2);
    await lock.unlock(t);
    expect(await lock.getHoldCount(t)).toBe(1);
    expect(await other.tryLock()).toBe(false);
    await lock.unlock(t);
    expect(await lock.getHoldCount(t)).toBe(0);
    expect(await other.tryLock()).toBe(true);
    await other.unlock();
  });

  it('testRemainTimeToLive2: a partial unlock re-expires to the object\'s last lease', async () => {
    const client = newClient();
    const lock = client.getLock(uniqueName());
    await client.runInThread(async () => {
      await lock.lock(10, TimeUnit.SECONDS);
      await lock.lock(10, TimeUnit.SECONDS);
      await lock.lock(10, TimeUnit.SECONDS);
      await lock.unlock();
      await lock.unlock();
      const ttl = await lock.remainTimeToLive();
      expect(ttl).toBeGreaterThan(9_000);
      expect(ttl).toBeLessThanOrEqual(10_000);
      await lock.unlock();
    });
  });

  it('testRemainTimeToLive: lease, -2 after unlock, watchdog lease for lock()', async () => {
    const lock = newClient({ lockWatchdogTimeout: 20_000 }).getLock(uniqueName());
    await lock.lock(1, TimeUnit.HOURS);
    expect(await lock.remainTimeToLive()).toBeGreaterThan(3_590_000);
    await lock.unlock();
    expect(await lock.remainTimeToLive()).toBe(-2);
    await lock.lock();
    const ttl = await lock.remainTimeToLive();
    expect(ttl).toBeGreaterThan(15_000);
    expect(ttl).toBeLessThanOrEqual(20_000);
    await lock.unlock();
  });

  it('testIsLocked / testIsHeldByCurrentThread / isHeldByThread, seen by other objects too', async () => {
    const client = newClient();
    const name = uniqueName();
    const lock = client.getLock(name);
    const other = client.getLock(name);
    expect(await lock.isLocked()).toBe(false);
    expect(await lock.isHeldByCurrentThread()).toBe(false);
    await lock.lock();
    expect(await lock.isLocked()).toBe(true);
    expect(await other.isLocked()).toBe(true);
    expect(await lock.isHeldByCurrentThread()).toBe(true);
    expect(await other.isHeldByCurrentThread()).toBe(false);
    expect(await other.isHeldByThread(lock.threadId)).toBe(true);
    await lock.unlock();
    expect(await lock.isLocked()).toBe(false);
    expect(await lock.isHeldByCurrentThread()).toBe(false);
  });

  it('testUnlockFail: unlocking someone else\'s lock throws IllegalMonitorStateError with Redisson\'s message', async () => {
    const client = newClient();
    const name = uniqueName();
    const holder = client.getLock(name);
    const intruder = client.getLock(name);
    await holder.lock();
    const error = await intruder.unlock().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(IllegalMonitorStateError);
    // Redisson's message, then the lock's name and the owner rule.
    expect((error as Error).message).toContain(
      `attempt to unlock lock, not locked by current thread by node id: ${client.getId()} thread-id: ${intruder.threadId} (lock '${name}'`,
    );
    expect(await holder.isHeldByCurrentThread()).toBe(true);
    await expect(newClient().getLock(uniqueName()).unlock()).rejects.toThrow(IllegalMonitorStateError);
    await holder.unlock();
  });

  it('explicit threadId wins: Redisson\'s isHeldByThread(1/2) scenario', async () => {
    const client = newClient();
    const lock = client.getLock(uniqueName());
    expect(await lock.tryLock({ threadId: 1 })).toBe(true);
    expect(await lock.isHeldByThread(1)).toBe(true);
    expect(await lock.isHeldByThread(2)).toBe(false);
    expect(await lock.tryLock({ threadId: 2 })).toBe(false);
    await lock.unlock({ threadId: 1 });
    expect(await lock.tryLock({ threadId: 2 })).toBe(true);
    expect(await lock.getHoldCount({ threadId: 2 })).toBe(1);
    await lock.unlock({ threadId: 2 });
  });

  it('thread identity: separate getLock objects exclude each other; runInThread re-enters', async () => {
    const client = newClient();
    const name = uniqueName();
    const first = client.getLock(name);
    await first.lock();
    // A concurrent "request" that calls getLock(name) again must not re-enter.
    expect(await client.getLock(name).tryLock()).toBe(false);
    await first.unlock();
    await client.runInThread(async () => {
      await client.getLock(name).lock();
      const nested = async (): Promise<number> => {
        await client.getLock(name).lock();
        return client.getLock(name).getHoldCount();
      };
      expect(await nested()).toBe(2);
      expect(await client.runInThread(() => client.getLock(name).tryLock())).toBe(false);
      await client.getLock(name).unlock();
      await client.getLock(name).unlock();
    });
    expect(await first.isLocked()).toBe(false);
  });

  it('lease vs watchdog: a watchdog lock outlives several leases, a leased lock expires', async () => {
    const client = newClient({ lockWatchdogTimeout: 600 });
    const watched = client.getLock(uniqueName());
    const leased = client.getLock(uniqueName());
    await watched.lock();
    await leased.lock(600);
    await sleep(2_000);
    expect(await watched.isLocked()).toBe(true);
    expect(await watched.remainTimeToLive()).toBeGreaterThan(0);
    expect(await leased.isLocked()).toBe(false);
    await watched.unlock();
    await expect(leased.unlock()).rejects.toThrow(IllegalMonitorStateError);
  });

  it('testExpire: after the lease runs out another owner acquires and the first unlock throws', async () => {
    const client = newClient();
    const name = uniqueName();
    const first = client.getLock(name);
    await first.lock(300);
    const second = client.getLock(name);
    await second.lock(); // waits out the TTL it was told
    expect(await second.isHeldByCurrentThread()).toBe(true);
    await expect(first.unlock()).rejects.toThrow(IllegalMonitorStateError);
    await second.unlock();
  });

  it('testAutoExpire: a lock left by a shut-down client disappears within lockWatchdogTimeout', async () => {
    const client = newClient({ lockWatchdogTimeout: 800 });
    const name = uniqueName();
    await client.getLock(name).lock();
    await client.shutdown();
    const observer = newClient().getLock(name);
    expect(await observer.isLocked()).toBe(true);
    await eventually(async () => !(await observer.isLocked()), 5_000, 'lock expiry');
  });

  it('testForceUnlock: deletes any owner\'s lock and wakes a waiter', async () => {
    const name = uniqueName();
    const holder = newClient().getLock(name);
    const waiterClient = newClient();
    await holder.lock(60_000);
    const waiter = waiterClient.getLock(name);
    const acquired = waiter.lock();
    await eventually(async () => (await numSub(lockChannelName(name))) === 1, 5_000, 'waiter subscribed');
    expect(await newClient().getLock(name).forceUnlock()).toBe(true);
    await acquired;
    expect(await waiter.isHeldByCurrentThread()).toBe(true);
    expect(await waiter.forceUnlock()).toBe(true);
    expect(await waiter.forceUnlock()).toBe(false);
    expect(await waiter.isLocked()).toBe(false);
  });

  it('a Java-shaped holder released by raw DEL + PUBLISH 0 wakes our waiter (lease far longer than the test)', async () => {
    const name = uniqueName();
    await raw.hset(key(name), '0b8b1c8e-1111-4222-8333-944444444444:57', 1);
    await raw.pexpire(key(name), 600_000);
    const client = newClient();
    const waiter = client.getLock(name);
    expect(await waiter.tryLock()).toBe(false);
    const acquired = waiter.lock();
    await eventually(async () => (await numSub(lockChannelName(name))) === 1, 5_000, 'waiter subscribed');
    await raw.del(key(name));
    await raw.publish(keyPrefix + lockChannelName(name), '0');
    await acquired;
    expect(await raw.hgetall(key(name))).toEqual({ [`${client.getId()}:${waiter.threadId}`]: '1' });
    await waiter.unlock();
    await eventually(async () => (await numSub(lockChannelName(name))) === 0, 5_000, 'unsubscribed');
  });

  it('names containing {…} use the name itself as hash tag for the channel, and wake waiters', async () => {
    const name = `orders:{${uniqueName('t')}}:lock`;
    expect(lockChannelName(name)).toBe(`redisson_lock__channel:${name}`);
    const client = newClient();
    const holder = client.getLock(name);
    await holder.lock(60_000);
    const waiter = client.getLock(name);
    const acquired = waiter.lock();
    await eventually(async () => (await numSub(`redisson_lock__channel:${name}`)) === 1, 5_000, 'waiter subscribed');
    await holder.unlock();
    await acquired;
    expect(await waiter.isHeldByCurrentThread()).toBe(true);
    await waiter.unlock();
  });

  it('message 0 wakes one waiter at a time; all of them get the lock in turn; no subscription is left', async () => {
    const name = uniqueName();
    const client = newClient();
    const holder = client.getLock(name);
    await holder.lock(60_000);
    const order: number[] = [];
    const waiters = [0, 1, 2].map((i) =>
      client
        .getLock(name)
        .lock(60_000)
        .then(() => order.push(i)),
    );
    await eventually(async () => (await numSub(lockChannelName(name))) === 1, 5_000, 'one shared subscription');
    await holder.unlock();
    await eventually(() => order.length === 1, 5_000, 'first waiter');
    await sleep(200);
    expect(order.length).toBe(1); // the others keep waiting: the lock is held again
    // Release in turn: each release lets exactly one more through.
    for (let n = 1; n < 3; n++) {
      const owner = await findOwner(raw, key(name));
      await raw.del(key(name));
      await raw.publish(keyPrefix + lockChannelName(name), '0');
      expect(owner).toBeDefined();
      await eventually(() => order.length === n + 1, 5_000, `waiter ${n + 1}`);
    }
    await Promise.all(waiters);
    await raw.del(key(name));
    await eventually(async () => (await numSub(lockChannelName(name))) === 0, 5_000, 'unsubscribed');
  });

  it('tryLock(wait) gives up after the wait, leaving no subscription; tryLock(wait) succeeds when released in time', async () => {
    const name = uniqueName();
    const client = newClient();
    const holder = client.getLock(name);
    await holder.lock(60_000);
    expect(await client.getLock(name).tryLock(300)).toBe(false);
    await eventually(async () => (await numSub(lockChannelName(name))) === 0, 5_000, 'unsubscribed');
    const pending = client.getLock(name).tryLock(10, 5, TimeUnit.SECONDS);
    await eventually(async () => (await numSub(lockChannelName(name))) === 1, 5_000, 'waiter subscribed');
    await holder.unlock();
    expect(await pending).toBe(true);
    expect(await raw.pttl(key(name))).toBeLessThanOrEqual(5_000);
  });

  it('abort: the wait rejects with the signal\'s reason, cleans up, and never acquires afterwards', async () => {
    const name = uniqueName();
    const client = newClient();
    const holder = client.getLock(name);
    await holder.lock(60_000);
    const controller = new AbortController();
    const waiter = client.getLock(name);
    const pending = waiter.lock({ signal: controller.signal });
    await eventually(async () => (await numSub(lockChannelName(name))) === 1, 5_000, 'waiter subscribed');
    const reason = new Error('client went away');
    controller.abort(reason);
    await expect(pending).rejects.toBe(reason);
    await eventually(async () => (await numSub(lockChannelName(name))) === 0, 5_000, 'unsubscribed');
    await holder.unlock();
    await sleep(100);
    expect(await waiter.isLocked()).toBe(false);
    // An already aborted signal rejects before anything is sent.
    await expect(waiter.tryLock(1_000, { signal: AbortSignal.abort(reason) })).rejects.toBe(reason);
  });

  it('shutdown rejects pending waiters with RedissonShutdownError and refuses later calls', async () => {
    const name = uniqueName();
    const holder = newClient().getLock(name);
    await holder.lock(60_000);
    const client = newClient();
    const lock = client.getLock(name);
    const pending = [lock.lock(), client.getLock(name).tryLock(60_000)].map((p) => p.then(() => 'settled', (e: unknown) => e));
    await eventually(async () => (await numSub(lockChannelName(name))) === 1, 5_000, 'waiters subscribed');
    await client.shutdown();
    for (const outcome of await Promise.all(pending)) expect(outcome).toBeInstanceOf(RedissonShutdownError);
    await expect(lock.tryLock()).rejects.toThrow(RedissonShutdownError);
    expect(() => client.getLock(name)).toThrow(RedissonShutdownError);
    await eventually(async () => (await numSub(lockChannelName(name))) === 0, 5_000, 'unsubscribed');
    await holder.unlock();
  });

  it('testConcurrency_SingleInstance and _MultiInstance: a non-atomic counter under the lock stays exact', async () => {
    const name = uniqueName();
    const counter = `${name}:counter`;
    const increment = async (client: Redisson): Promise<void> => {
      const lock = client.getLock(name);
      await lock.lock();
      try {
        const value = Number((await raw.get(counter)) ?? '0');
        await sleep(1);
        await raw.set(counter, value + 1);
      } finally {
        await lock.unlock();
      }
    };
    const single = newClient();
    await Promise.all(Array.from({ length: 15 }, () => increment(single)));
    expect(await raw.get(counter)).toBe('15');
    const many = Array.from({ length: 10 }, () => newClient());
    await Promise.all(many.flatMap((c) => [increment(c), increment(c), increment(c)]));
    expect(await raw.get(counter)).toBe('45');
  });
});

describe('RLock with an ioredis instance passed in', () => {
  it('uses it without closing it on shutdown', async () => {
    const redis = new Redis(server.url);
    const clients = new Clients(server.url);
    try {
      const client = clients.client({ redis });
      const lock = client.getLock(uniqueName());
      await lock.lock();
      await lock.unlock();
      await client.shutdown();
      expect(await redis.ping()).toBe('PONG');
    } finally {
      await clients.closeAll();
      redis.disconnect();
    }
  });
});

function redisOptions(url: string): { host: string; port: number } {
  const u = new URL(url);
  return { host: u.hostname, port: Number(u.port) };
}

async function findOwner(raw: Redis, key: string): Promise<string | undefined> {
  return Object.keys(await raw.hgetall(key))[0];
}
