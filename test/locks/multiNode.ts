/**
 * Several independent redis-servers for the MultiLock / RedLock suites: one server per node, one Redisson
 * client per node and "process", and raw connections to look at each node's data. Clients fail fast
 * when their node is down (one reconnect attempt per command), as a RedLock deployment should configure
 * them; servers killed by a test are restarted (empty) after it.
 */
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll } from 'vitest';
import type { RedisServerProcess } from '../../packages/cli/src/RedisServerProcess.js';
import { lockChannelName, Redisson, type RedissonOptions, type RLock } from '../../src/index.js';
import { startRedisMany, type TestRedis } from '../support/redis.js';

export interface NodeSuite {
  /** The servers, in node order (A, B, C, …). */
  readonly servers: readonly TestRedis[];
  /** One raw connection per node (never paused or killed by the tests' CLIENT commands). */
  readonly raws: readonly Redis[];
  /** One new Redisson client per node: a "process" of its own. Shut down after the test. */
  clients(options?: RedissonOptions): Redisson[];
  /** A client of the server on `port` (a proxy, an extra server), made like those of {@link clients}. */
  client(port: number, options?: RedissonOptions): Redisson;
  /** The lock `name` on every node, each from that node's client. */
  locks(clients: readonly Redisson[], name: string): RLock[];
  /** The process of node `i` (kill / restart). */
  server(i: number): RedisServerProcess;
  /** The lock hash of `name` on every node: field → count (empty when absent). */
  hashes(name: string): Promise<Record<string, string>[]>;
  /** Subscribers of `name`'s channel on every node. */
  subscribers(name: string): Promise<number[]>;
}

/** Starts `n` servers for the file; clients made in a test are shut down after it. */
export function useNodes(n: number): NodeSuite {
  let servers: TestRedis[] = [];
  let raws: Redis[] = [];
  const made: Redisson[] = [];

  beforeAll(async () => {
    servers = await startRedisMany(n);
    raws = servers.map((s) => new Redis(s.url, { maxRetriesPerRequest: 1, retryStrategy: () => 20 }).on('error', () => undefined));
  });
  afterEach(async () => {
    // A node a test killed comes back (empty) for the next one; then the clients can quit cleanly.
    for (const s of servers) if (s.server && !s.server.running) await s.server.restart();
    await Promise.all(raws.map((r) => r.call('CLIENT', 'UNPAUSE').catch(() => undefined)));
    await Promise.allSettled(made.splice(0).map((c) => c.shutdown()));
  });
  afterAll(async () => {
    await Promise.allSettled(raws.map((r) => r.quit()));
    await Promise.allSettled(servers.map((s) => s.stop()));
  });

  return {
    get servers() {
      return servers;
    },
    get raws() {
      return raws;
    },
    clients(options = {}) {
      return servers.map((s) => this.client(s.port, options));
    },
    client(port, options = {}) {
      const client = Redisson.create({ redis: { host: '127.0.0.1', port, maxRetriesPerRequest: 1, retryStrategy: () => 20 }, ...options });
      made.push(client);
      return client;
    },
    locks: (clients, name) => clients.map((c) => c.getLock(name)),
    server(i) {
      const server = servers[i]?.server;
      if (!server) throw new Error('these tests need redis-server processes of their own');
      return server;
    },
    hashes: (name) => Promise.all(raws.map((r) => r.hgetall(name))),
    subscribers: (name) =>
      Promise.all(raws.map(async (r) => Number(((await r.pubsub('NUMSUB', lockChannelName(name))) as [string, number])[1]))),
  };
}

/** The hash field Redisson writes for `client`'s thread `threadId`. */
export const field = (client: Redisson, threadId: number): string => `${client.getId()}:${threadId}`;

export { within } from '../support/redis.js';

