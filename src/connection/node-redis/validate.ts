/**
 * Validation of the `redis` option's node-redis forms (called by config.ts, before anything connects): a
 * `createClient()` or `createSentinel()` client, `{ driver: 'node-redis', url?, options? }` or
 * `{ driver: 'node-redis', sentinel }`; and the refusal of what this driver does not do yet — `createCluster()`,
 * a client with a `keyPrefix`.
 */
import { InvalidArgumentError, RedissonConfigError } from '../../errors.js';
import { isNodeRedisClient, isNodeRedisCluster, isNodeRedisOptions, isNodeRedisSentinel } from './recognize.js';

const SUPPORTED = 'supported: a `createClient()` or `createSentinel()` client, `{ driver: \'node-redis\', url }` or `{ driver: \'node-redis\', sentinel }`; for Redis Cluster use ioredis (`{ clusterNodes }`)';
const WHERE = '(Redisson.create options)';

/** Whether `prefix` (a client's `keyPrefix`) prefixes anything. */
function isPrefix(prefix: unknown): boolean {
  return prefix !== undefined && prefix !== null && prefix !== '' && !(Buffer.isBuffer(prefix) && prefix.length === 0);
}

/** A `createSentinel()` client: one that lets the driver reach its master client, without a `keyPrefix`. */
function checkSentinelClient(redis: object): void {
  if (typeof (redis as { _execute?: unknown })._execute !== 'function') {
    throw new RedissonConfigError(WHERE, [{ path: 'redis', problem: 'is a node-redis createSentinel() client of a version redisson-ts does not know (it needs `redis` 5.12+ or 6.x)' }]);
  }
  if (isPrefix((redis as { _keyPrefix?: unknown })._keyPrefix)) {
    throw new RedissonConfigError(WHERE, [
      { path: 'redis', problem: 'is a node-redis createSentinel() client with a `keyPrefix`, which node-redis does not apply to the raw commands and scripts redisson-ts sends: use `nameMapper` instead' },
    ]);
  }
}

/** Whether `value` is a port number. */
function isPort(value: unknown): boolean {
  return typeof value === 'number' && Number.isInteger(value) && value > 0 && value < 65_536;
}

/** `{ driver: 'node-redis', sentinel }`: node-redis' `createSentinel` options, checked before anything connects. */
function checkSentinelOptions(sentinel: unknown): void {
  if (typeof sentinel !== 'object' || sentinel === null || Array.isArray(sentinel)) throw new InvalidArgumentError('Expected `redis.sentinel` to be node-redis createSentinel options (an object with `name` and `sentinelRootNodes`)');
  const o = sentinel as Record<string, unknown>;
  if (typeof o['name'] !== 'string' || o['name'] === '') throw new InvalidArgumentError(`Expected \`redis.sentinel.name\` to be the master name the Sentinels monitor (a non-empty string), got ${JSON.stringify(o['name']) ?? 'undefined'}`);
  const roots = o['sentinelRootNodes'];
  if (!Array.isArray(roots) || roots.length === 0) throw new InvalidArgumentError('Expected `redis.sentinel.sentinelRootNodes` to be a non-empty array of `{ host, port }`');
  roots.forEach((node: unknown, i) => {
    const n = (typeof node === 'object' && node !== null ? node : {}) as { host?: unknown; port?: unknown };
    if (typeof n.host !== 'string' || n.host === '' || !isPort(n.port)) throw new InvalidArgumentError(`Expected \`redis.sentinel.sentinelRootNodes[${i}]\` to be \`{ host, port }\` (a host name and a port 1-65535), got ${JSON.stringify(node) ?? 'undefined'}`);
  });
  for (const key of ['nodeClientOptions', 'sentinelClientOptions'] as const) {
    const value = o[key];
    if (value === undefined) continue;
    if (typeof value !== 'object' || value === null) throw new InvalidArgumentError(`Expected \`redis.sentinel.${key}\` to be node-redis client options (an object)`);
    // node-redis refuses a URL there (the addresses come from the Sentinels), when it connects: say so now.
    if ('url' in value) throw new InvalidArgumentError(`\`redis.sentinel.${key}.url\` is not allowed: the Sentinels name the addresses (use \`socket\` for TLS and the like)`);
  }
  if (isPrefix(o['keyPrefix']) || (typeof o['nodeClientOptions'] === 'object' && o['nodeClientOptions'] !== null && 'keyPrefix' in o['nodeClientOptions'])) {
    throw new InvalidArgumentError('`redis.sentinel.keyPrefix` is not supported with node-redis: use `nameMapper` instead');
  }
}

/**
 * True when `redis` is a usable node-redis form; false when it is none (another driver's); throws
 * `RedissonConfigError` for node-redis forms the driver does not support and `InvalidArgumentError` for bad ones.
 */
export function checkNodeRedisOption(redis: object): boolean {
  if (isNodeRedisCluster(redis)) throw new RedissonConfigError(WHERE, [{ path: 'redis', problem: `is a node-redis createCluster() client, which redisson-ts does not support yet (${SUPPORTED})` }]);
  if (isNodeRedisSentinel(redis)) {
    checkSentinelClient(redis);
    return true;
  }
  if (isNodeRedisClient(redis)) {
    if (isPrefix(redis.options?.keyPrefix)) {
      throw new RedissonConfigError(WHERE, [
        { path: 'redis', problem: 'is a node-redis client with a `keyPrefix`, which node-redis does not apply to the raw commands and scripts redisson-ts sends: use `nameMapper` instead' },
      ]);
    }
    return true;
  }
  if (!isNodeRedisOptions(redis)) {
    if ('driver' in redis) throw new InvalidArgumentError(`Expected \`redis.driver\` to be 'node-redis', got ${JSON.stringify(redis.driver)}`);
    return false;
  }
  for (const key of Object.keys(redis)) {
    if (key !== 'driver' && key !== 'url' && key !== 'options' && key !== 'sentinel') throw new InvalidArgumentError(`Unknown key \`redis.${key}\` of node-redis connection options (expected driver, url, options, sentinel)`);
  }
  const { url, options, sentinel } = redis as { url?: unknown; options?: unknown; sentinel?: unknown };
  if (sentinel !== undefined) {
    if (url !== undefined || options !== undefined) throw new InvalidArgumentError('`redis.sentinel` cannot be combined with `redis.url` or `redis.options`: the Sentinels name the master (put its client options in `redis.sentinel.nodeClientOptions`)');
    checkSentinelOptions(sentinel);
    return true;
  }
  if (url !== undefined) {
    let parsed: URL | null;
    try {
      parsed = typeof url === 'string' ? new URL(url) : null;
    } catch {
      parsed = null;
    }
    if (parsed === null || (parsed.protocol !== 'redis:' && parsed.protocol !== 'rediss:')) throw new InvalidArgumentError(`Expected \`redis.url\` to be a redis:// or rediss:// URL, got ${typeof url === 'string' ? JSON.stringify(url) : typeof url}`);
  }
  if (options !== undefined && (typeof options !== 'object' || options === null)) throw new InvalidArgumentError('Expected `redis.options` to be node-redis createClient options (an object)');
  if (options !== undefined && 'keyPrefix' in options) throw new InvalidArgumentError('`redis.options.keyPrefix` is not supported with node-redis: use `nameMapper` instead');
  return true;
}
