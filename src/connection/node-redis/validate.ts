/**
 * Validation of the `redis` option's node-redis forms (called by config.ts, before anything connects): a
 * `createClient()` or `createCluster()` client, `{ driver: 'node-redis', url?, options? }`, `{ driver: 'node-redis',
 * cluster, scanInterval? }`; and the refusal of what this driver does not do — `createSentinel()`, a client with a
 * `keyPrefix`.
 */
import { InvalidArgumentError, RedissonConfigError } from '../../errors.js';
import { isNodeRedisClient, isNodeRedisCluster, isNodeRedisClusterOptions, isNodeRedisOptions, isNodeRedisSentinel } from './recognize.js';

const SUPPORTED = 'supported: a `createClient()` or `createCluster()` client, `{ driver: \'node-redis\', url }` or `{ driver: \'node-redis\', cluster: { rootNodes } }`; for Sentinel use ioredis (Sentinel options)';
const KEY_PREFIX = 'which node-redis does not apply to the raw commands and scripts redisson-ts sends: use `nameMapper` instead';
// The longest delay a Node timer takes.
const MAX_TIMER_MS = 2 ** 31 - 1;

/** Whether `prefix` (a client's or cluster's `keyPrefix`) is set to something. */
function hasPrefix(prefix: unknown): boolean {
  return prefix !== undefined && prefix !== '' && !(Buffer.isBuffer(prefix) && prefix.length === 0);
}

/** A `redis://` or `rediss://` URL, or InvalidArgumentError naming `path`. */
function checkUrl(url: unknown, path: string): void {
  let parsed: URL | null;
  try {
    parsed = typeof url === 'string' ? new URL(url) : null;
  } catch {
    parsed = null;
  }
  if (parsed === null || (parsed.protocol !== 'redis:' && parsed.protocol !== 'rediss:')) throw new InvalidArgumentError(`Expected \`${path}\` to be a redis:// or rediss:// URL, got ${typeof url === 'string' ? JSON.stringify(url) : typeof url}`);
}

/** `{ driver: 'node-redis', cluster, scanInterval? }`, or InvalidArgumentError saying what is wrong. */
function checkClusterOptions(redis: object): void {
  for (const key of Object.keys(redis)) {
    if (key !== 'driver' && key !== 'cluster' && key !== 'scanInterval') throw new InvalidArgumentError(`Unknown key \`redis.${key}\` of node-redis cluster options (expected driver, cluster, scanInterval)`);
  }
  const { cluster, scanInterval } = redis as { cluster?: unknown; scanInterval?: unknown };
  if (typeof cluster !== 'object' || cluster === null || Array.isArray(cluster)) throw new InvalidArgumentError('Expected `redis.cluster` to be node-redis createCluster options (an object with rootNodes)');
  const { rootNodes } = cluster as { rootNodes?: unknown };
  if (!Array.isArray(rootNodes) || rootNodes.length === 0) throw new InvalidArgumentError(`Expected \`redis.cluster.rootNodes\` to be a non-empty array of node options, got ${Array.isArray(rootNodes) ? 'an empty array' : typeof rootNodes}`);
  rootNodes.forEach((node: unknown, i) => {
    if (typeof node !== 'object' || node === null || Array.isArray(node)) throw new InvalidArgumentError(`Expected \`redis.cluster.rootNodes[${i}]\` to be node options ({ url } or { socket: { host, port } }), got ${node === null ? 'null' : typeof node}`);
    const { url } = node as { url?: unknown };
    if (url !== undefined) checkUrl(url, `redis.cluster.rootNodes[${i}].url`);
  });
  if ('keyPrefix' in cluster) throw new InvalidArgumentError(`\`redis.cluster.keyPrefix\` is not supported with node-redis: use \`nameMapper\` instead`);
  if (scanInterval !== undefined && !(typeof scanInterval === 'number' && Number.isInteger(scanInterval) && scanInterval >= 1 && scanInterval <= MAX_TIMER_MS)) {
    throw new InvalidArgumentError(`Expected \`redis.scanInterval\` to be an integer from 1 to ${MAX_TIMER_MS} (ms), got ${typeof scanInterval === 'number' ? String(scanInterval) : typeof scanInterval}`);
  }
}

/**
 * True when `redis` is a usable node-redis form; false when it is none (another driver's); throws
 * `RedissonConfigError` for node-redis forms the driver does not support and `InvalidArgumentError` for bad ones.
 */
export function checkNodeRedisOption(redis: object): boolean {
  if (isNodeRedisCluster(redis)) {
    // (`_options`: the options it was made with, a field 5.12 and 6.x share; neither has a public getter.)
    const options = (redis as { _options?: { keyPrefix?: unknown } })._options;
    if (hasPrefix(options?.keyPrefix)) throw new RedissonConfigError('(Redisson.create options)', [{ path: 'redis', problem: `is a node-redis createCluster() client with a \`keyPrefix\`, ${KEY_PREFIX}` }]);
    return true;
  }
  if (isNodeRedisSentinel(redis)) throw new RedissonConfigError('(Redisson.create options)', [{ path: 'redis', problem: `is a node-redis createSentinel() client, which redisson-ts does not support yet (${SUPPORTED})` }]);
  if (isNodeRedisClient(redis)) {
    const prefix = redis.options?.keyPrefix;
    if (hasPrefix(prefix)) throw new RedissonConfigError('(Redisson.create options)', [{ path: 'redis', problem: `is a node-redis client with a \`keyPrefix\`, ${KEY_PREFIX}` }]);
    return true;
  }
  if (!isNodeRedisOptions(redis)) {
    if ('driver' in redis) throw new InvalidArgumentError(`Expected \`redis.driver\` to be 'node-redis', got ${JSON.stringify(redis.driver)}`);
    return false;
  }
  if (isNodeRedisClusterOptions(redis)) {
    checkClusterOptions(redis);
    return true;
  }
  for (const key of Object.keys(redis)) {
    if (key !== 'driver' && key !== 'url' && key !== 'options') throw new InvalidArgumentError(`Unknown key \`redis.${key}\` of node-redis connection options (expected driver, url, options; or driver, cluster, scanInterval)`);
  }
  const { url, options } = redis as { url?: unknown; options?: unknown };
  if (url !== undefined) checkUrl(url, 'redis.url');
  if (options !== undefined && (typeof options !== 'object' || options === null)) throw new InvalidArgumentError('Expected `redis.options` to be node-redis createClient options (an object)');
  if (options !== undefined && 'keyPrefix' in options) throw new InvalidArgumentError('`redis.options.keyPrefix` is not supported with node-redis: use `nameMapper` instead');
  return true;
}
