/**
 * The node-redis driver leg (`npm run test:node-redis`, scripts/driver-leg.mjs): with
 * REDISSON_TEST_DRIVER=node-redis, every `Redisson.create` of the suites gets a node-redis connection where it
 * would have connected ioredis from a URL or plain options — `{ driver: 'node-redis', url }`, the client making
 * and owning its node-redis 6 client — so the unchanged behaviour, fault and interop suites run on node-redis.
 * ioredis' Sentinel options (`sentinels`, `name`) become `{ driver: 'node-redis', sentinel: { name, sentinelRootNodes } }`;
 * cluster nodes (`{ clusterNodes, clusterOptions? }`) become `{ driver: 'node-redis', cluster: { rootNodes } }`
 * (ioredis' `slotsRefreshInterval` as the driver's `scanInterval`, its `natMap` as node-redis' `nodeAddressMap`). What node-redis cannot take stays on ioredis
 * and is left out of the leg by name (scripts/driver-leg.mjs): a `keyPrefix`, an ioredis instance passed in.
 * ioredis-only options
 * (`maxRetriesPerRequest`, `retryStrategy`, …) are dropped, and the rows that test them are left out too.
 *
 * Loaded by the leg's vitest setup file and by the worker processes the leg's suites fork (historyWorker.ts,
 * interop/support/holder.ts, fairLockWorker.ts); without the variable it changes nothing.
 */
import { Redisson } from '../../src/Redisson.js';
import type { RedissonOptions } from '../../src/config.js';

/** Whether this process runs the node-redis leg. */
export const NODE_REDIS_LEG = process.env['REDISSON_TEST_DRIVER'] === 'node-redis';

/** The node-redis form of an ioredis URL or plain options, or `redis` itself when node-redis cannot take it. */
export function asNodeRedis(redis: RedissonOptions['redis']): NonNullable<RedissonOptions['redis']> {
  if (redis === undefined) return { driver: 'node-redis', url: 'redis://127.0.0.1:6379' };
  if (typeof redis === 'string') return { driver: 'node-redis', url: redis };
  if (typeof redis !== 'object' || redis === null || Object.getPrototypeOf(redis) !== Object.prototype) return redis;
  const o = redis as Record<string, unknown>;
  if (Array.isArray(o['clusterNodes']) && !('driver' in o)) return asNodeRedisCluster(o['clusterNodes'] as unknown[], o['clusterOptions']);
  if ('driver' in o || 'clusterNodes' in o || (typeof o['keyPrefix'] === 'string' && o['keyPrefix'] !== '')) return redis;
  // ioredis' Sentinel options (`sentinels`, `name`; its retry strategies dropped): node-redis' createSentinel form.
  if (Array.isArray(o['sentinels']) && typeof o['name'] === 'string') {
    const roots = (o['sentinels'] as { host?: string; port?: number }[]).map((s) => ({ host: s.host ?? '127.0.0.1', port: s.port ?? 26_379 }));
    return { driver: 'node-redis', sentinel: { name: o['name'], sentinelRootNodes: roots } };
  }
  const url = new URL(`redis://${typeof o['host'] === 'string' ? o['host'] : '127.0.0.1'}:${typeof o['port'] === 'number' ? o['port'] : 6379}`);
  if (typeof o['db'] === 'number') url.pathname = `/${o['db']}`;
  if (typeof o['username'] === 'string') url.username = o['username'];
  if (typeof o['password'] === 'string') url.password = o['password'];
  return { driver: 'node-redis', url: url.href };
}

/** `{ clusterNodes, clusterOptions }` (ioredis' startup nodes) as node-redis cluster options. */
function asNodeRedisCluster(nodes: unknown[], clusterOptions: unknown): NonNullable<RedissonOptions['redis']> {
  const rootNodes = nodes.map((n) => {
    if (typeof n === 'string') return { url: n.includes('://') ? n : `redis://${n}` };
    const { host, port } = n as { host?: string; port?: number };
    return { url: `redis://${host ?? '127.0.0.1'}:${port ?? 6379}` };
  });
  const { slotsRefreshInterval: refresh, natMap } = (clusterOptions ?? {}) as { slotsRefreshInterval?: unknown; natMap?: unknown };
  // ioredis' `natMap` (announced `host:port` → `{ host, port }`) is node-redis' `nodeAddressMap` in the same form.
  const cluster = { rootNodes, ...(typeof natMap === 'object' && natMap !== null ? { nodeAddressMap: natMap } : {}) };
  return { driver: 'node-redis', cluster, ...(typeof refresh === 'number' ? { scanInterval: refresh } : {}) };
}

if (NODE_REDIS_LEG) {
  const create = Redisson.create.bind(Redisson);
  // Anything but plain options (an ioredis instance given as the options, null) goes on as it is, to be refused.
  Redisson.create = (options?: RedissonOptions): Redisson =>
    create(typeof options === 'object' && options !== null && Object.getPrototypeOf(options) === Object.prototype ? { ...options, redis: asNodeRedis(options.redis) } : options);
}
