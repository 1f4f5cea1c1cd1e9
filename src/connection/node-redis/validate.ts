/**
 * Validation of the `redis` option's node-redis forms (called by config.ts, before anything connects): a
 * `createClient()` client, `{ driver: 'node-redis', url?, options? }`; and the refusal of what this driver does
 * not do yet — `createCluster()`, `createSentinel()`, a client with a `keyPrefix`.
 */
import { InvalidArgumentError, RedissonConfigError } from '../../errors.js';
import { isNodeRedisClient, isNodeRedisCluster, isNodeRedisOptions, isNodeRedisSentinel } from './recognize.js';

const SUPPORTED = 'supported: a single-server `createClient()` client, or `{ driver: \'node-redis\', url }`; for Redis Cluster or Sentinel use ioredis (`{ clusterNodes }`, Sentinel options)';

/**
 * True when `redis` is a usable node-redis form; false when it is none (another driver's); throws
 * `RedissonConfigError` for node-redis forms the driver does not support and `InvalidArgumentError` for bad ones.
 */
export function checkNodeRedisOption(redis: object): boolean {
  if (isNodeRedisCluster(redis)) throw new RedissonConfigError('(Redisson.create options)', [{ path: 'redis', problem: `is a node-redis createCluster() client, which redisson-ts does not support yet (${SUPPORTED})` }]);
  if (isNodeRedisSentinel(redis)) throw new RedissonConfigError('(Redisson.create options)', [{ path: 'redis', problem: `is a node-redis createSentinel() client, which redisson-ts does not support yet (${SUPPORTED})` }]);
  if (isNodeRedisClient(redis)) {
    const prefix = redis.options?.keyPrefix;
    if (prefix !== undefined && prefix !== '' && !(Buffer.isBuffer(prefix) && prefix.length === 0)) {
      throw new RedissonConfigError('(Redisson.create options)', [
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
    if (key !== 'driver' && key !== 'url' && key !== 'options') throw new InvalidArgumentError(`Unknown key \`redis.${key}\` of node-redis connection options (expected driver, url, options)`);
  }
  const { url, options } = redis as { url?: unknown; options?: unknown };
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
