/**
 * The node-redis driver (issue 25) on real servers: `Redisson.create({ redis: createClient(…) })` with node-redis
 * 6 (RESP3 by default) and 5 (RESP2), and `{ driver: 'node-redis', url }`. Locks, a waiter woken across clients,
 * a semaphore, a fair lock; reconnects after CLIENT KILL of the subscriber (node-redis re-subscribes by itself:
 * no second subscription, no message twice) and of the command connection; EVALSHA falling back to EVAL after
 * SCRIPT FLUSH; the forms the driver refuses (keyPrefix, bad Sentinel and cluster options, unknown drivers); and
 * a `createCluster()` client (6 and 5) on a spawned 3+3 cluster: locks on every master, WAIT on each slot master.
 * The `createSentinel()` client passed in is in nodeRedisSentinel.test.ts (it spawns its own Sentinels).
 */
import { Redis } from 'ioredis';
import { createClient as createClient6, createCluster, createSentinel, RESP_TYPES } from 'redis';
import { createClient as createClient5, createCluster as createCluster5 } from 'redis-5';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { InvalidArgumentError, Redisson, RedissonConfigError, type RLock } from '../../src/index.js';
import { eventually, sleep, uniqueName, useRedis, within } from '../support/redis.js';
import { keySlot } from '../../src/connection/slots.js';
import { rediscover } from '../../src/connection/node-redis/NodeRedisClusterConnection.js';
import { startCluster, type TestCluster } from '../support/cluster.js';
import { RedisProxy } from '../support/proxy.js';

const suite = useRedis({ own: true });

interface AnyClient {
  connect(): Promise<unknown>;
  close(): Promise<void>;
  destroy(): void;
  on(event: string, listener: (...args: never[]) => void): unknown;
  readonly isOpen: boolean;
}

const VERSIONS = [
  { label: 'node-redis 6.4.0', make: (url: string) => createClient6({ url }) as unknown as AnyClient, resp: '3' },
  { label: 'node-redis 5.12.4', make: (url: string) => createClient5({ url }) as unknown as AnyClient, resp: '2' },
] as const;

const made: AnyClient[] = [];
const redissons: Redisson[] = [];
// Each test's clients are gone before the next one counts connections.
afterEach(async () => {
  await Promise.allSettled(redissons.splice(0).map((r) => r.shutdown()));
  for (const c of made.splice(0)) if (c.isOpen) await c.close().catch(() => c.destroy());
  await suite.clients.closeAll();
});

/** `CLIENT LIST`, one record per connection. */
async function connections(raw: Redis): Promise<Record<string, string>[]> {
  const text = (await raw.call('CLIENT', 'LIST')) as string;
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => Object.fromEntries(line.trim().split(' ').map((kv) => kv.split('=', 2) as [string, string])));
}

async function numsub(raw: Redis, channel: string): Promise<number> {
  const reply = (await raw.call('PUBSUB', 'NUMSUB', channel)) as [string, number];
  return Number(reply[1]);
}

describe.each(VERSIONS)('$label', ({ make, resp }) => {
  async function connected(): Promise<AnyClient> {
    const c = make(suite.redis.url);
    c.on('error', () => undefined);
    made.push(c);
    await c.connect();
    return c;
  }

  function redisson(redis: AnyClient | { driver: 'node-redis'; url: string }, timeout = 3_000): Redisson {
    const r = Redisson.create({ redis: redis as never, shortLeaseWarning: false, timeout });
    redissons.push(r);
    return r;
  }

  it('locks and unlocks on a client passed in, which stays open after shutdown; a waiter on another client is woken by the release', async () => {
    const raw = suite.clients.raw();
    const before = new Set((await connections(raw)).map((c) => c['id']));
    const mine = await connected();
    const a = redisson(mine);
    const b = redisson({ driver: 'node-redis', url: suite.redis.url });
    const name = uniqueName('nr');
    const held = a.getLock(name);
    const wanted = b.getLock(name);
    await held.lock();
    expect(await b.getLock(name).tryLock()).toBe(false);
    const waiting = wanted.lock();
    await eventually(async () => (await numsub(raw, `redisson_lock__channel:{${name}}`)) === 1, 5_000, 'the waiter subscribed');
    // Every connection of the driver speaks the version's default protocol (node-redis 6: RESP3 by HELLO 3):
    // the client passed in, b's own command connection and subscriber (a's has not connected: it never waited);
    // b's are made by the installed `redis` package, 6.x.
    const made = (await connections(raw)).filter((c) => !before.has(c['id']));
    expect(made.map((c) => c['resp'])).toEqual([resp, '3', '3']);
    expect(made.filter((c) => c['sub'] === '1')).toHaveLength(1);
    await held.unlock();
    await within(waiting, 5_000, 'the waiter woken by the unlock message');
    expect(await a.getLock(name).isLocked()).toBe(true);
    await wanted.unlock();
    expect(await a.getLock(name).isLocked()).toBe(false);
    await a.shutdown();
    expect(mine.isOpen).toBe(true);
  });

  it('a semaphore: an acquire waits for a release on another client; a fair lock serves its waiters in order', async () => {
    const a = redisson(await connected());
    const b = redisson(await connected());
    const sem = uniqueName('nr-sem');
    expect(await a.getSemaphore(sem).trySetPermits(1)).toBe(true);
    await a.getSemaphore(sem).acquire();
    const waiting = b.getSemaphore(sem).acquire();
    await new Promise((r) => setTimeout(r, 50));
    await a.getSemaphore(sem).release();
    await within(waiting, 5_000, 'the semaphore waiter');
    expect(await a.getSemaphore(sem).availablePermits()).toBe(0);

    const fair = uniqueName('nr-fair');
    const order: string[] = [];
    await a.getFairLock(fair).lock({ threadId: 9 });
    const first = b.getFairLock(fair).lock({ threadId: 1 }).then(() => order.push('first'));
    await new Promise((r) => setTimeout(r, 100));
    const second = b.getFairLock(fair).lock({ threadId: 2 }).then(() => order.push('second'));
    await new Promise((r) => setTimeout(r, 50));
    await a.getFairLock(fair).unlock({ threadId: 9 });
    await within(first, 5_000, 'the first fair waiter');
    await b.getFairLock(fair).unlock({ threadId: 1 });
    await within(second, 5_000, 'the second fair waiter');
    await b.getFairLock(fair).unlock({ threadId: 2 });
    expect(order).toEqual(['first', 'second']);
  });

  it('CLIENT KILL of the subscriber: node-redis re-subscribes by itself; no second subscription, the waiter is still woken once', async () => {
    const a = redisson(await connected());
    const b = redisson(await connected());
    const raw = suite.clients.raw();
    const name = uniqueName('nr-kill-sub');
    const channel = `redisson_lock__channel:{${name}}`;
    const held = a.getLock(name);
    const wanted = b.getLock(name);
    await held.lock();
    const waiting = wanted.lock();
    await eventually(async () => (await numsub(raw, channel)) === 1, 5_000, 'the waiter subscribed');
    const reconnecting = new Promise((resolve) => b.once('reconnecting', resolve));
    await raw.call('CLIENT', 'KILL', 'TYPE', 'pubsub');
    await within(reconnecting, 5_000, 'the subscriber noticing');
    await eventually(() => b.connectionStatus().subscriber === 'ready', 10_000, 'the subscriber reconnecting');
    await eventually(async () => (await numsub(raw, channel)) === 1, 5_000, 'the channel subscribed again');
    // One subscriber connection, one subscription: node-redis' own re-subscription and ours are one.
    await new Promise((r) => setTimeout(r, 100));
    expect(await numsub(raw, channel)).toBe(1);
    expect((await connections(raw)).filter((c) => c['sub'] !== '0')).toHaveLength(1);
    await held.unlock();
    await within(waiting, 5_000, 'the waiter woken after the subscriber reconnected');
    await wanted.unlock();
  });

  it('CLIENT KILL of the command connections: the next calls wait for the reconnect and succeed', async () => {
    const mine = await connected();
    const a = redisson(mine);
    const name = uniqueName('nr-kill-cmd');
    const lock = a.getLock(name);
    await lock.lock();
    const raw = suite.clients.raw();
    const reconnecting = new Promise((resolve) => a.once('reconnecting', resolve));
    // SKIPME yes (the default): the raw connection giving the command survives it.
    await raw.call('CLIENT', 'KILL', 'TYPE', 'normal');
    await within(reconnecting, 5_000, 'the command connection noticing');
    await eventually(() => a.connectionStatus().command === 'ready', 10_000, 'the command connection back');
    expect(await lock.isLocked()).toBe(true);
    await lock.unlock();
    expect(await lock.tryLock()).toBe(true);
    await lock.unlock();
  });

  it('SCRIPT FLUSH: EVALSHA falls back to EVAL (NOSCRIPT) and the scripts run again', async () => {
    const a = redisson(await connected());
    const lock = a.getLock(uniqueName('nr-noscript'));
    await lock.lock();
    await lock.unlock();
    const raw = suite.clients.raw();
    const monitored = new Redis(suite.redis.url);
    const monitor = await monitored.monitor();
    const seen: string[] = [];
    monitor.on('monitor', (_time: string, args: string[]) => seen.push(String(args[0]).toUpperCase()));
    await raw.call('SCRIPT', 'FLUSH');
    const scripts = (): string[] => seen.splice(0).filter((c) => c === 'EVALSHA' || c === 'EVAL');
    await lock.lock();
    expect(await lock.isLocked()).toBe(true);
    await lock.unlock();
    expect(await lock.isLocked()).toBe(false);
    await eventually(() => seen.filter((c) => c === 'EVAL').length >= 2, 2_000, 'MONITOR lines');
    // Each script's first run after the flush: EVALSHA, NOSCRIPT, then EVAL (which loads it)…
    expect(scripts()).toEqual(['EVALSHA', 'EVAL', 'EVALSHA', 'EVAL']);
    await lock.lock();
    await lock.unlock();
    await eventually(() => seen.filter((c) => c === 'EVALSHA').length >= 2, 2_000, 'MONITOR lines');
    // … and EVALSHA alone after that.
    expect(scripts()).toEqual(['EVALSHA', 'EVALSHA']);
    monitor.disconnect();
    monitored.disconnect();
  });
});

describe('node-redis forms the driver refuses', () => {
  it('Sentinel forms: a createSentinel() client with a keyPrefix, and bad `sentinel` options, refused before connecting', () => {
    const prefixed = createSentinel({ name: 'mymaster', sentinelRootNodes: [{ host: '127.0.0.1', port: 26379 }], keyPrefix: 'app:' });
    expect(() => Redisson.create({ redis: prefixed as never })).toThrow(RedissonConfigError);
    const bad: unknown[] = [
      { name: '', sentinelRootNodes: [{ host: '127.0.0.1', port: 26379 }] },
      { name: 'mymaster', sentinelRootNodes: [] },
      { name: 'mymaster', sentinelRootNodes: [{ host: '127.0.0.1', port: 0 }] },
      { name: 'mymaster', sentinelRootNodes: [{ host: '127.0.0.1', port: 26379 }], nodeClientOptions: { url: 'redis://x' } },
      { name: 'mymaster', sentinelRootNodes: [{ host: '127.0.0.1', port: 26379 }], keyPrefix: 'a:' },
      'mymaster',
    ];
    for (const sentinel of bad) expect(() => Redisson.create({ redis: { driver: 'node-redis', sentinel } as never })).toThrow(InvalidArgumentError);
    const sentinel = { name: 'mymaster', sentinelRootNodes: [{ host: '127.0.0.1', port: 26379 }] };
    expect(() => Redisson.create({ redis: { driver: 'node-redis', url: suite.redis.url, sentinel } })).toThrow(/cannot be combined/);
  });

  it('cluster forms: a createCluster() client with a keyPrefix, bad rootNodes, unknown keys, a bad scanInterval: refused before connecting', () => {
    const prefixed = createCluster({ rootNodes: [{ url: suite.redis.url }], keyPrefix: 'app:' });
    expect(() => Redisson.create({ redis: prefixed as never })).toThrow(RedissonConfigError);
    const bad: [unknown, RegExp][] = [
      [{ driver: 'node-redis', cluster: {} }, /redis\.cluster\.rootNodes. to be a non-empty array/],
      [{ driver: 'node-redis', cluster: { rootNodes: [] } }, /non-empty array of node options, got an empty array/],
      [{ driver: 'node-redis', cluster: null }, /redis\.cluster. to be node-redis createCluster options/],
      [{ driver: 'node-redis', cluster: { rootNodes: ['redis://127.0.0.1:7000'] } }, /redis\.cluster\.rootNodes\[0\]. to be node options/],
      [{ driver: 'node-redis', cluster: { rootNodes: [{ url: 'http://x' }] } }, /redis\.cluster\.rootNodes\[0\]\.url. to be a redis:\/\/ or rediss:\/\/ URL/],
      [{ driver: 'node-redis', cluster: { rootNodes: [{ url: suite.redis.url }], keyPrefix: 'a:' } }, /redis\.cluster\.keyPrefix. is not supported/],
      [{ driver: 'node-redis', cluster: { rootNodes: [{ url: suite.redis.url }] }, url: suite.redis.url }, /Unknown key .redis\.url. of node-redis cluster options/],
      [{ driver: 'node-redis', cluster: { rootNodes: [{ url: suite.redis.url }] }, scanInterval: 0 }, /redis\.scanInterval. to be an integer from 1/],
      [{ driver: 'node-redis', cluster: { rootNodes: [{ url: suite.redis.url }] }, scanInterval: 1.5 }, /redis\.scanInterval. to be an integer from 1/],
    ];
    for (const [redis, message] of bad) {
      expect(() => Redisson.create({ redis: redis as never }), JSON.stringify(redis)).toThrow(InvalidArgumentError);
      expect(() => Redisson.create({ redis: redis as never }), JSON.stringify(redis)).toThrow(message);
    }
  });

  it('a client with a keyPrefix, an unknown driver, a bad URL: refused before connecting', () => {
    const prefixed = createClient6({ url: suite.redis.url, keyPrefix: 'app:' });
    expect(() => Redisson.create({ redis: prefixed as never })).toThrow(RedissonConfigError);
    expect(() => Redisson.create({ redis: { driver: 'glide', url: suite.redis.url } as never })).toThrow(InvalidArgumentError);
    expect(() => Redisson.create({ redis: { driver: 'node-redis', url: 'http://x' } })).toThrow(InvalidArgumentError);
    expect(() => Redisson.create({ redis: { driver: 'node-redis', url: suite.redis.url, options: { keyPrefix: 'a:' } } })).toThrow(InvalidArgumentError);
  });

  it('a client passed in to many Redisson clients in turn keeps no listener of theirs after each shutdown', async () => {
    const c = await createClient6({ url: suite.redis.url }).connect();
    try {
      const before = ['ready', 'error', 'end', 'reconnecting'].map((e) => c.listenerCount(e));
      for (let i = 0; i < 15; i++) {
        const r = Redisson.create({ redis: c, shortLeaseWarning: false });
        const lock = r.getLock(uniqueName('nr-listeners'));
        expect(await lock.tryLock()).toBe(true);
        await lock.unlock();
        await r.shutdown();
      }
      expect(['ready', 'error', 'end', 'reconnecting'].map((e) => c.listenerCount(e))).toEqual(before);
      expect(c.isReady).toBe(true);
    } finally {
      c.destroy();
    }
  });

  it('pingConnectionInterval becomes node-redis pingInterval on the client Redisson makes', async () => {
    const r = Redisson.create({ redis: { driver: 'node-redis', url: suite.redis.url }, pingConnectionInterval: 1_000, shortLeaseWarning: false });
    redissons.push(r);
    expect((r.redis as unknown as { options: { pingInterval?: number } }).options.pingInterval).toBe(1_000);
    expect(await r.ping()).toBeGreaterThanOrEqual(0);
  });

  it('a client passed in before connect() is connected by Redisson', async () => {
    const c = createClient6({ url: suite.redis.url });
    c.on('error', () => undefined);
    made.push(c as unknown as AnyClient);
    const r = Redisson.create({ redis: c, shortLeaseWarning: false });
    redissons.push(r);
    const lock = r.getLock(uniqueName('nr-lazy'));
    expect(await lock.tryLock()).toBe(true);
    await lock.unlock();
    expect(c.isReady).toBe(true);
  });
});

describe('script replies through the driver, as the executor reads them', () => {
  // The same calls through node-redis 6 (RESP3), node-redis 5 (RESP2) and ioredis 5 (RESP2): a script's reply
  // follows the script's protocol (RESP2: nil → null, integers → numbers), whatever the connection speaks.
  it('nil, integers and plain commands answer alike on node-redis 6 (RESP3), node-redis 5 and ioredis', async () => {
    const { NodeRedisConnection } = await import('../../src/connection/node-redis/NodeRedisConnection.js');
    const { IoredisConnection } = await import('../../src/connection/ioredis/IoredisConnection.js');
    const six = createClient6({ url: suite.redis.url });
    const five = createClient5({ url: suite.redis.url });
    await Promise.all([six.connect(), five.connect()]);
    const io = new Redis(suite.redis.url);
    try {
      const replies = async (connection: InstanceType<typeof IoredisConnection> | InstanceType<typeof NodeRedisConnection>): Promise<unknown[]> => {
        const name = uniqueName('nr-replies');
        return [
          await connection.evalScript('lock/tryLockInner', [name], [30_000, 'a:1']),
          typeof (await connection.evalScript('lock/tryLockInner', [name], [30_000, 'b:1'])),
          await connection.call('HGET', name, 'a:1'),
          await connection.call('HGET', name, 'b:1'),
          await connection.call('EXISTS', name),
          await connection.evalScript('semaphore/tryAcquire', [`${name}:sem`], [1]),
          String(await (connection.infoOf('') as (section: string) => Promise<string>)('replication')).startsWith('# Replication'),
        ];
      };
      const expected = [null, 'number', '1', null, 1, 0, true];
      expect(await replies(new NodeRedisConnection(six as never))).toEqual(expected);
      expect(await replies(new NodeRedisConnection(five as never))).toEqual(expected);
      expect(await replies(new IoredisConnection(io))).toEqual(expected);
    } finally {
      six.destroy();
      five.destroy();
      io.disconnect();
    }
  });
  // Passing node-redis any options object costs it about 4 µs of CPU per command (issue 29), so our commands carry
  // none unless the client's own defaults would change what we read: a typeMapping (a string reply as a Buffer) or
  // rejectInFlight (a long WAIT cut by the client's timeout).
  it("a client whose command defaults map reply types still answers in node-redis' default types; one on the defaults is sent no options", async () => {
    const { NodeRedisConnection, commandOptionsFor, OPTIONS } = await import('../../src/connection/node-redis/NodeRedisConnection.js');
    const mapping = { [RESP_TYPES.BLOB_STRING]: Buffer };
    const plain6 = createClient6({ url: suite.redis.url });
    const plain5 = createClient5({ url: suite.redis.url });
    const mapped6 = createClient6({ url: suite.redis.url, commandOptions: { typeMapping: mapping } });
    const mapped5 = createClient5({ url: suite.redis.url, commandOptions: { typeMapping: mapping } });
    const clients = [plain6, plain5, mapped6, mapped5];
    await Promise.all(clients.map((c) => c.connect()));
    try {
      expect(commandOptionsFor(plain6 as never)).toBeUndefined();
      expect(commandOptionsFor(plain5 as never)).toBeUndefined();
      expect(commandOptionsFor(mapped6 as never)).toBe(OPTIONS);
      expect(commandOptionsFor(mapped5 as never)).toBe(OPTIONS);
      expect(commandOptionsFor(plain6.withTypeMapping(mapping) as never)).toBe(OPTIONS);
      expect(commandOptionsFor(plain5.withTypeMapping(mapping) as never)).toBe(OPTIONS);
      expect(commandOptionsFor(createClient6({ url: suite.redis.url, commandOptions: { rejectInFlight: true } }) as never)).toBe(OPTIONS);
      // A client shaped otherwise (no `_commandOptions` to read) is sent the options.
      expect(commandOptionsFor({ isReady: true } as never)).toBe(OPTIONS);
      // The client itself answers with Buffers (5.x's sendCommand on a withTypeMapping() proxy does not: it reads
      // its base client's defaults); through the driver, strings.
      const cases = [
        { client: mapped6, mapsItself: true },
        { client: mapped5, mapsItself: true },
        { client: plain6.withTypeMapping(mapping), mapsItself: true },
        { client: plain5.withTypeMapping(mapping), mapsItself: false },
      ];
      for (const { client, mapsItself } of cases) {
        const name = uniqueName('nr-mapped');
        await client.sendCommand(['HSET', name, 'a:1', 'one']);
        expect(Buffer.isBuffer(await client.sendCommand(['HGET', name, 'a:1']))).toBe(mapsItself);
        expect(await new NodeRedisConnection(client as never).call('HGET', name, 'a:1')).toBe('one');
      }
      // And through Redisson: a permit's id is a string, a lock goes and comes.
      for (const client of [mapped6, mapped5]) {
        const r = Redisson.create({ redis: client as never, shortLeaseWarning: false });
        redissons.push(r);
        const seats = r.getPermitExpirableSemaphore(uniqueName('nr-mapped-seats'));
        await seats.trySetPermits(1);
        const id = await seats.acquire();
        expect(typeof id).toBe('string');
        await seats.release(id);
        const lock = r.getLock(uniqueName('nr-mapped-lock'));
        await lock.lock();
        expect(await lock.isLocked()).toBe(true);
        await lock.unlock();
      }
    } finally {
      await Promise.allSettled(redissons.splice(0).map((r) => r.shutdown()));
      for (const c of clients) c.destroy();
    }
  });
});

const CLUSTER_VERSIONS = [
  { label: 'node-redis 6.4.0', make: (rootNodes: { url: string }[]) => createCluster({ rootNodes }) as unknown as AnyClient },
  { label: 'node-redis 5.12.4', make: (rootNodes: { url: string }[]) => createCluster5({ rootNodes }) as unknown as AnyClient },
] as const;

describe('createCluster() clients on a spawned 3+3 cluster', () => {
  let cluster: TestCluster;
  const raws: Redis[] = [];
  const node = (port: number): Redis => {
    const r = new Redis({ port });
    r.on('error', () => undefined);
    raws.push(r);
    return r;
  };
  const waits = async (r: Redis): Promise<number> => Number(/cmdstat_wait:calls=(\d+)/.exec(await r.info('commandstats'))?.[1] ?? 0);

  beforeAll(async () => {
    cluster = await startCluster();
  }, 60_000);

  afterAll(async () => {
    for (const r of raws) r.disconnect();
    await cluster?.stop();
  });

  /** One name per master (each lives on another node), with that master's port. */
  async function namesOnEveryMaster(): Promise<Map<number, string>> {
    const byMaster = new Map<number, string>();
    const masters = await cluster.masters();
    while (byMaster.size < masters.length) {
      const name = uniqueName('nr-cluster');
      const { port } = await cluster.masterOf(keySlot(name));
      if (!byMaster.has(port)) byMaster.set(port, name);
    }
    return byMaster;
  }

  /**
   * The MOVED rows' set-up. `name`'s slot master is behind `proxy`; a holder on the real nodes takes the lock for
   * `leaseMs`; a waiter on a `createCluster()` client passed in (`make`, its root nodes `rootNodes`), which reaches
   * that master through the proxy, SSUBSCRIBEs there and waits. Then the slot moves while the proxy keeps the
   * server's sunsubscribe push from the shard client; `beforeDrop` runs; the proxy drops that connection: the client
   * reconnects to the node the slot left, and its re-subscription is answered MOVED (awaited here).
   */
  async function movedUnderShardClient(o: {
    name: string;
    proxy: RedisProxy;
    make: (options: object) => unknown;
    rootNodes: readonly object[];
    leaseMs: number;
    beforeDrop?: () => void;
  }): Promise<{ lock: RLock; waiter: RLock; waiting: Promise<void>; waiterClient: Redisson; target: number; shardSubscribers: (port: number) => Promise<number> }> {
    const { name, proxy } = o;
    const slot = keySlot(name);
    const source = await cluster.masterOf(slot);
    const holder = Redisson.create({ redis: { driver: 'node-redis', cluster: { rootNodes: cluster.startupNodes.map((n) => ({ url: `redis://${n.host}:${n.port}` })) } }, shortLeaseWarning: false });
    const mine = o.make({ rootNodes: o.rootNodes, nodeAddressMap: { [`127.0.0.1:${source.port}`]: { host: '127.0.0.1', port: proxy.port } } }) as AnyClient;
    mine.on('error', () => undefined);
    made.push(mine);
    const waiterClient = Redisson.create({ redis: mine as never, shortLeaseWarning: false, shardedSubscriptionMode: 'ON' });
    redissons.push(holder, waiterClient);
    const lock = holder.getLock(name);
    await lock.lock(o.leaseMs);
    const waiter = waiterClient.getLock(name);
    const waiting = waiter.lock();
    waiting.catch(() => undefined); // awaited by the caller
    const channel = `redisson_lock__channel:{${name}}`;
    const shardSubscribers = async (port: number): Promise<number> => Number(((await node(port).call('PUBSUB', 'SHARDNUMSUB', channel)) as [string, number])[1]);
    await eventually(async () => (await shardSubscribers(source.port)) === 1, 10_000, 'the waiter to SSUBSCRIBE');
    const subscribers = proxy.wrote('SSUBSCRIBE');
    expect(subscribers).toHaveLength(1);
    const first = subscribers[0]!;
    proxy.holdUntilClientEnds(first);
    const target = await cluster.moveSlot(slot);
    o.beforeDrop?.();
    proxy.drop(first);
    await eventually(() => Promise.resolve(proxy.wrote('SSUBSCRIBE').some((i) => i !== first && proxy.read(i).includes('MOVED'))), 10_000, 'the re-subscription through the proxy to be answered MOVED');
    return { lock, waiter, waiting, waiterClient, target, shardSubscribers };
  }

  // node-redis 5.12 subscribes the listeners of a shard client whose re-subscription (after a reconnect) was answered
  // MOVED again without awaiting them (an unhandled rejection when one fails): the driver does that work itself.
  // node-redis' own re-subscription succeeds here too (the new master is reachable): this pins that ours, which
  // replaces it on 5.12, does the work; the unhandled rejection itself is what the rows below led to.
  it("node-redis 5.12: a shard client's re-subscription answered MOVED: the channel is subscribed on the slot's new master and the waiter wakes", async () => {
    const name = uniqueName('nr-moved');
    const proxy = await RedisProxy.start((await cluster.masterOf(keySlot(name))).port);
    try {
      const rootNodes = cluster.startupNodes.map((n) => ({ url: `redis://${n.host}:${n.port}` }));
      const { lock, waiter, waiting, waiterClient, target, shardSubscribers } = await movedUnderShardClient({ name, proxy, make: createCluster5 as (options: object) => unknown, rootNodes, leaseMs: 60_000 });
      await eventually(async () => (await shardSubscribers(target)) === 1, 10_000, "the channel to be subscribed on the slot's new master");
      await lock.unlock();
      await within(waiting, 10_000, 'the waiter (the lease is 60 s)');
      expect(await node(target).hget(name, `${waiterClient.getId()}:${waiter.threadId}`)).toBe('1');
      await waiter.unlock();
    } finally {
      await proxy.stop();
    }
  }, 60_000);

  // node-redis (5.12 and 6.x) awaits a rediscover in an async listener of each shard client's `__MOVED` (its
  // re-subscription answered MOVED): when that rediscover fails (the node and every root node out of reach, or the
  // cluster closed meanwhile) the rejection reaches nobody, and an unhandled rejection ends a Node process. Forced:
  // as above, with the proxy as the one root node, and the proxy no longer listening from the MOVED reply on.
  describe.each([
    { label: 'node-redis 6.4.0', make: createCluster as (options: object) => unknown },
    { label: 'node-redis 5.12.4', make: createCluster5 as (options: object) => unknown },
  ])('$label', ({ make }) => {
    it("a shard client's re-subscription answered MOVED while no root node answers: no unhandled rejection; once the node is back the waiter acquires, within the holder's lease", async () => {
      const name = uniqueName('nr-moved-alone');
      const proxy = await RedisProxy.start((await cluster.masterOf(keySlot(name))).port);
      const unhandled: unknown[] = [];
      const record = (reason: unknown): void => void unhandled.push(reason);
      process.on('unhandledRejection', record);
      try {
        // A lease, not the watchdog: with the slot map out of reach the waiter's subscription may be lost until
        // the map is back (a 5.12 shard client tells of its `ready` once); its wait is bounded by the TTL it got.
        const { lock, waiter, waiting, waiterClient, target } = await movedUnderShardClient({ name, proxy, make, rootNodes: [{ url: proxy.url }], leaseMs: 10_000, beforeDrop: () => proxy.stopListeningOnReply('MOVED') });
        // node-redis' rediscover from the node that answered, then from its one root node: both refused (without
        // the driver's guard, 5.12's RootNodesUnavailableError was recorded here).
        await sleep(1_000);
        expect(unhandled).toEqual([]);
        await proxy.listenAgain();
        await lock.unlock();
        await within(waiting, 15_000, "the waiter (the holder's lease is 10 s)");
        expect(await node(target).hget(name, `${waiterClient.getId()}:${waiter.threadId}`)).toBe('1');
        await waiter.unlock();
        expect(unhandled).toEqual([]);
      } finally {
        process.off('unhandledRejection', record);
        await proxy.stop();
      }
    }, 60_000);
  });

  describe.each(CLUSTER_VERSIONS)('$label', ({ make }) => {
    it('locks on keys of every master through a createCluster() client passed in, each write followed by WAIT on its slot master; a waiter on { driver, cluster } is woken; the client stays open, without our listeners', async () => {
      const rootNodes = cluster.startupNodes.map((n) => ({ url: `redis://${n.host}:${n.port}` }));
      const mine = make(rootNodes);
      mine.on('error', () => undefined);
      made.push(mine);
      await mine.connect();
      const EVENTS = ['connect', 'disconnect', 'error', 'node-error', 'node-reconnecting'];
      const listeners = (): number[] => EVENTS.map((e) => (mine as unknown as { listenerCount(e: string): number }).listenerCount(e));
      const before = listeners();
      const a = Redisson.create({ redis: mine as never, shortLeaseWarning: false });
      const b = Redisson.create({ redis: { driver: 'node-redis', cluster: { rootNodes } }, shortLeaseWarning: false });
      redissons.push(a, b);
      const names = await namesOnEveryMaster();
      for (const [port, name] of names) {
        const master = node(port);
        const lock = a.getLock(name);
        // The replica count is asked (INFO) by the first synced write of each master: counted after it.
        await lock.lock();
        await lock.unlock();
        const before = await waits(master);
        await lock.lock();
        const replicaPort = Number(/^slave0:ip=[^,]+,port=(\d+)/m.exec(await master.info('replication'))?.[1]);
        const replica = node(replicaPort);
        await replica.readonly();
        expect(await replica.hget(name, `${a.getId()}:${lock.threadId}`)).toBe('1');
        await lock.unlock();
        expect((await waits(master)) - before).toBe(2);
        await lock.lock();
        const wanted = b.getLock(name);
        const waiting = wanted.lock();
        await eventually(async () => Number(((await master.call('PUBSUB', 'SHARDNUMSUB', `redisson_lock__channel:{${name}}`)) as [string, number])[1]) === 1, 10_000, 'the waiter to SSUBSCRIBE on the slot master');
        await lock.unlock();
        await waiting;
        await wanted.unlock();
      }
      await a.shutdown();
      expect(mine.isOpen).toBe(true);
      // No listener of ours is left on the cluster passed in.
      expect(listeners()).toEqual(before);
    }, 60_000);

    // node-redis sets `socket.reconnectStrategy = false` on the options a rediscover starts from (for its one-off
    // client). Started from a node client's own options, every later duplicate() of that client (our pattern
    // clients) would never reconnect; from a nodeAddressMap entry (every client of that node uses it as its
    // `socket`), every later client of the node would give up at its first refused connect. (`mapped`, the options
    // form, is made by the `redis` package loaded, 6.4.0 here; the client passed in is of the version named.)
    it("the slot map asked for again changes neither a node client's options nor the nodeAddressMap given", async () => {
      const rootNodes = cluster.startupNodes.map((n) => ({ url: `redis://${n.host}:${n.port}` }));
      const addressMap = Object.fromEntries(cluster.nodes.map((n) => [`127.0.0.1:${n.port}`, { host: '127.0.0.1', port: n.port }]));
      const given = structuredClone(addressMap);
      const mine = make(rootNodes);
      mine.on('error', () => undefined);
      made.push(mine);
      const r = Redisson.create({ redis: mine as never, shortLeaseWarning: false });
      const mapped = Redisson.create({ redis: { driver: 'node-redis', cluster: { rootNodes, nodeAddressMap: addressMap } }, shortLeaseWarning: false });
      redissons.push(r, mapped);
      for (const c of [r, mapped]) {
        const lock = c.getLock(uniqueName('nr-rediscover'));
        await lock.lock();
        await lock.unlock();
      }
      type Slots = { rediscover(startWith: object): Promise<void> };
      type Native = { masters: { client?: { isReady: boolean; options?: { socket?: object } } }[]; _slots: Slots };
      // Ours (the topology scan, a MOVED reply, a moved shard): from a copy of a ready master client's options.
      const native = r.connection as unknown as Native;
      await rediscover(native as never);
      for (const master of native.masters) expect(master.client?.options?.socket ?? {}).not.toHaveProperty('reconnectStrategy');
      // node-redis' own (a MOVED reply to one of its commands): from a node client of the map's node.
      const nativeMapped = mapped.connection as unknown as Native;
      await nativeMapped._slots.rediscover(nativeMapped.masters.map((m) => m.client).find((c) => c?.isReady === true)!);
      await rediscover(nativeMapped as never);
      expect(addressMap).toEqual(given);
    }, 60_000);
  });
});
