/**
 * Issue 24, defect 4, on a spawned 3+3 Redis Cluster: a name whose keys and channels would not share one
 * hash slot is refused by the client's `get…(name)` with a CrossSlotNameError, and nothing reaches any node
 * (`INFO commandstats` on all six); the same names sent anyway (as Java Redisson does) fail with CROSSSLOT on
 * this cluster; and names that fit — the one the error suggests, or a hash tag inside the name — work end to
 * end for every primitive, waiters included, with every key on the tag's master. A single server, which has
 * no slots, takes the refused names.
 */
import { Cluster, Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keySlot } from '../../src/connection/slots.js';
import { CrossSlotNameError, Redisson, RedissonError, TimeUnit } from '../../src/index.js';
import { startCluster, type TestCluster } from '../support/cluster.js';
import { eventually, useRedis } from '../support/redis.js';

let cluster: TestCluster;
let client: Redisson;
let other: Redisson;
const raws: Array<Redis | Cluster> = [];

beforeAll(async () => {
  cluster = await startCluster();
  client = Redisson.create({ redis: { clusterNodes: [...cluster.startupNodes] }, shortLeaseWarning: false });
  other = Redisson.create({ redis: { clusterNodes: [...cluster.startupNodes] }, shortLeaseWarning: false });
}, 60_000);

afterAll(async () => {
  await Promise.all([client, other].map((c) => c?.shutdown().catch(() => undefined)));
  for (const r of raws) r.disconnect();
  await cluster?.stop();
});

const node = (port: number): Redis => {
  const r = new Redis({ port });
  r.on('error', () => undefined);
  raws.push(r);
  return r;
};

/** Calls of each command on every node, apart from the cluster's own chatter (replica acks, slot scans). */
async function commandsOnAllNodes(): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  for (const n of cluster.nodes) {
    const info = await node(n.port).info('commandstats');
    for (const m of info.matchAll(/^cmdstat_(\S+?):calls=(\d+)(?:.*rejected_calls=(\d+))?/gm)) {
      const name = m[1] ?? '';
      if (['info', 'replconf', 'cluster', 'ping'].includes(name)) continue;
      counts.set(name, (counts.get(name) ?? 0) + Number(m[2]) + Number(m[3] ?? 0));
    }
  }
  return counts;
}

const REFUSED: ReadonlyArray<readonly [string, (c: Redisson) => unknown]> = [
  ["getCountDownLatch('orders:{42}:latch')", (c) => c.getCountDownLatch('orders:{42}:latch')],
  ["getCountDownLatch('{orders:42}:latch')", (c) => c.getCountDownLatch('{orders:42}:latch')],
  ["getFairLock('x{}y')", (c) => c.getFairLock('x{}y')],
  ["getNonReentrantFairLock('x{}y')", (c) => c.getNonReentrantFairLock('x{}y')],
  ["getLock('a{b')", (c) => c.getLock('a{b')],
  ["getFencedLock('a}b')", (c) => c.getFencedLock('a}b')],
  ["getSpinLock('{}')", (c) => c.getSpinLock('{}')],
  ["getNonReentrantLock('x{}y{z}')", (c) => c.getNonReentrantLock('x{}y{z}')],
  ["getReadWriteLock('a{b')", (c) => c.getReadWriteLock('a{b')],
  ["getSemaphore('x{}y')", (c) => c.getSemaphore('x{}y')],
  ["getPermitExpirableSemaphore('a}b')", (c) => c.getPermitExpirableSemaphore('a}b')],
];

describe('names whose keys and channels would split across slots', () => {
  it('are refused by get…(name) with a typed error, and no command reaches any node', async () => {
    // Connected, slot map loaded, before counting: a read, through the client (whatever its driver).
    await client.getLock('warm-up').isLocked();
    const before = await commandsOnAllNodes();
    const errors = REFUSED.map(([, get]) => {
      try {
        get(client);
        return null;
      } catch (error) {
        return error;
      }
    });
    await new Promise((resolve) => setImmediate(resolve));
    const after = await commandsOnAllNodes();
    for (const [i, error] of errors.entries()) {
      expect({ call: REFUSED[i]?.[0], typed: error instanceof RedissonError }).toEqual({ call: REFUSED[i]?.[0], typed: true });
      expect(error).toBeInstanceOf(CrossSlotNameError);
    }
    const sent = [...after].filter(([command, n]) => n !== (before.get(command) ?? 0));
    expect(sent).toEqual([]);
    const latch = errors[0] as CrossSlotNameError;
    expect(latch.message).toMatch(/key `orders:\{42\}:latch` \(the latch\) is in slot \d+ \(hash tag `42`\)/);
    expect(latch.suggestion).toBe('orders:42:latch');
    expect((errors[2] as CrossSlotNameError).suggestion).toBe('{xy}');
  });

  it('sent anyway, as Java Redisson sends them, they fail on this cluster with CROSSSLOT', async () => {
    const raw = new Cluster([...cluster.startupNodes]);
    raws.push(raw);
    const touch = "redis.call('exists', KEYS[1]); redis.call('exists', KEYS[2]); return 1";
    // The latch's trySetCount keys, and a fair lock's hash with its queue.
    await expect(raw.eval(touch, 2, 'orders:{42}:latch', 'redisson_countdownlatch__channel__{orders:{42}:latch}')).rejects.toThrow(/CROSSSLOT/);
    await expect(raw.eval(touch, 2, 'x{}y', 'redisson_lock_queue:x{}y')).rejects.toThrow(/CROSSSLOT/);
    // Our slots are the server's.
    const any = node(cluster.startupNodes[0]?.port ?? 0);
    for (const key of ['orders:{42}:latch', 'redisson_countdownlatch__channel__{orders:{42}:latch}', 'x{}y', 'redisson_lock_queue:x{}y', 'a}b', 'redisson_sc:{a}b}']) {
      expect(await any.cluster('KEYSLOT', key)).toBe(keySlot(key));
    }
  });
});

describe('names that fit work end to end', () => {
  it("the latch under the name the error suggests: set, a waiter on another client, counted down", async () => {
    const latch = client.getCountDownLatch('orders:42:latch');
    expect(await latch.trySetCount(1)).toBe(true);
    const opened = other.getCountDownLatch('orders:42:latch').await(10, TimeUnit.SECONDS);
    const master = node((await cluster.masterOf(keySlot('orders:42:latch'))).port);
    const channel = 'redisson_countdownlatch__channel__{orders:42:latch}';
    await eventually(async () => Number(((await master.pubsub('SHARDNUMSUB', channel)) as [string, number])[1]) === 1, 10_000, 'the latch waiter');
    await latch.countDown();
    expect(await opened).toBe(true);
  });

  it('a fair lock under the suggested name and under a hash tag inside the name: a queued waiter is granted at the unlock', async () => {
    for (const name of ['{xy}', 'orders:{42}:fair']) {
      const lock = client.getFairLock(name);
      await lock.lock();
      const waiting = other.getFairLock(name).tryLock(10, 5, TimeUnit.SECONDS);
      const master = node((await cluster.masterOf(keySlot(name))).port);
      const queue = name === '{xy}' ? 'redisson_lock_queue:{xy}' : `redisson_lock_queue:${name}`;
      await eventually(async () => (await master.llen(queue)) === 1, 10_000, 'the fair waiter to queue');
      await lock.unlock();
      expect(await waiting).toBe(true);
      await other.getFairLock(name).forceUnlock();
    }
  });

  it('every other primitive with a hash tag inside its name: its scripts run, waiters wake, every key is on the tag\u2019s master', async () => {
    const master = node((await cluster.masterOf(keySlot('42'))).port);
    const lock = client.getLock('orders:{42}:lock');
    await lock.lock();
    const second = other.getLock('orders:{42}:lock');
    const waiter = second.tryLock(10, 5, TimeUnit.SECONDS);
    await eventually(async () => Number(((await master.pubsub('SHARDNUMSUB', 'redisson_lock__channel:orders:{42}:lock')) as [string, number])[1]) === 1, 10_000, 'the lock waiter');
    await lock.unlock();
    expect(await waiter).toBe(true);
    await second.unlock();

    const fenced = client.getFencedLock('orders:{42}:fenced');
    const token = await fenced.lockAndGetToken();
    expect(await master.get('redisson_lock_token:orders:{42}:fenced')).toBe(String(token));
    await fenced.unlock();

    const spin = client.getSpinLock('orders:{42}:spin');
    await spin.lock();
    await spin.unlock();
    const nonReentrant = client.getNonReentrantLock('orders:{42}:nr');
    await nonReentrant.lock();
    await nonReentrant.unlock();
    const nonReentrantFair = client.getNonReentrantFairLock('orders:{42}:nrfair');
    await nonReentrantFair.lock();
    await nonReentrantFair.unlock();

    const rw = client.getReadWriteLock('orders:{42}:rw');
    await rw.readLock().lock(30, TimeUnit.SECONDS, { threadId: 1 });
    await rw.readLock().lock(30, TimeUnit.SECONDS, { threadId: 1 });
    const writer = other.getReadWriteLock('orders:{42}:rw').writeLock().tryLock(10, 5, TimeUnit.SECONDS, { threadId: 2 });
    expect(await master.exists(`orders:{42}:rw:${client.getId()}:1:rwlock_timeout:2`)).toBe(1);
    await rw.readLock().unlock({ threadId: 1 });
    await rw.readLock().unlock({ threadId: 1 });
    expect(await writer).toBe(true);
    await other.getReadWriteLock('orders:{42}:rw').writeLock().unlock({ threadId: 2 });

    const semaphore = client.getSemaphore('orders:{42}:sem');
    expect(await semaphore.trySetPermits(0)).toBe(true);
    const acquiring = other.getSemaphore('orders:{42}:sem').tryAcquire(1, 10, TimeUnit.SECONDS);
    await eventually(async () => Number(((await master.pubsub('SHARDNUMSUB', 'redisson_sc:orders:{42}:sem')) as [string, number])[1]) === 1, 10_000, 'the semaphore waiter');
    await semaphore.release();
    expect(await acquiring).toBe(true);

    const pes = client.getPermitExpirableSemaphore('orders:{42}:pes');
    expect(await pes.trySetPermits(1)).toBe(true);
    const id = await pes.acquire(30, TimeUnit.SECONDS);
    expect(await master.zcard('orders:{42}:pes:timeout')).toBe(1);
    await pes.release(id);
  });
});

describe('a single server has no slots', () => {
  const single = useRedis();
  it('takes the names a cluster refuses', async () => {
    const c = single.clients.client();
    const latch = c.getCountDownLatch('orders:{42}:latch');
    expect(await latch.trySetCount(1)).toBe(true);
    await latch.countDown();
    expect(await latch.getCount()).toBe(0);
    const fair = c.getFairLock('x{}y');
    await fair.lock();
    await fair.unlock();
  });
});
