/**
 * Validation of the `redis` option's node-redis forms (called by config.ts, before anything connects): a
 * `createClient()`, `createCluster()` or `createSentinel()` client, `{ driver: 'node-redis', url?, options? }`,
 * `{ driver: 'node-redis', cluster, scanInterval? }` or `{ driver: 'node-redis', sentinel }`; and the refusal of a
 * client with a `keyPrefix`.
 */
import { InvalidArgumentError, RedissonConfigError } from '../../errors.js';
import { isNodeRedisClient, isNodeRedisCluster, isNodeRedisClusterOptions, isNodeRedisOptions, isNodeRedisSentinel } from './recognize.js';

const WHERE = '(Redisson.create options)';
const KEY_PREFIX = 'which node-redis does not apply to the raw commands and scripts redisson-ts sends: use `nameMapper` instead';
// The longest delay a Node timer takes.
const MAX_TIMER_MS = 2 ** 31 - 1;

/** Whether `prefix` (a client's or cluster's `keyPrefix`) is set to something. */
function hasPrefix(prefix: unknown): boolean {
  return prefix !== undefined && prefix !== null && prefix !== '' && !(Buffer.isBuffer(prefix) && prefix.length === 0);
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

/** A `createSentinel()` client: one that lets the driver reach its master client, without a `keyPrefix`. */
function checkSentinelClient(redis: object): void {
  if (typeof (redis as { _execute?: unknown })._execute !== 'function') {
    throw new RedissonConfigError(WHERE, [{ path: 'redis', problem: 'is a node-redis createSentinel() client of a version redisson-ts does not know (it needs `redis` 5.12+ or 6.x)' }]);
  }
  if (hasPrefix((redis as { _keyPrefix?: unknown })._keyPrefix)) {
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
  if (hasPrefix(o['keyPrefix']) || (typeof o['nodeClientOptions'] === 'object' && o['nodeClientOptions'] !== null && 'keyPrefix' in o['nodeClientOptions'])) {
    throw new InvalidArgumentError('`redis.sentinel.keyPrefix` is not supported with node-redis: use `nameMapper` instead');
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
    if (hasPrefix(options?.keyPrefix)) throw new RedissonConfigError(WHERE, [{ path: 'redis', problem: `is a node-redis createCluster() client with a \`keyPrefix\`, ${KEY_PREFIX}` }]);
    return true;
  }
  if (isNodeRedisSentinel(redis)) {
    checkSentinelClient(redis);
    return true;
  }
  if (isNodeRedisClient(redis)) {
    const prefix = redis.options?.keyPrefix;
    if (hasPrefix(prefix)) throw new RedissonConfigError(WHERE, [{ path: 'redis', problem: `is a node-redis client with a \`keyPrefix\`, ${KEY_PREFIX}` }]);
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
    if (key !== 'driver' && key !== 'url' && key !== 'options' && key !== 'sentinel') throw new InvalidArgumentError(`Unknown key \`redis.${key}\` of node-redis connection options (expected driver, url, options; driver, sentinel; or driver, cluster, scanInterval)`);
  }
  const { url, options, sentinel } = redis as { url?: unknown; options?: unknown; sentinel?: unknown };
  if (sentinel !== undefined) {
    if (url !== undefined || options !== undefined) throw new InvalidArgumentError('`redis.sentinel` cannot be combined with `redis.url` or `redis.options`: the Sentinels name the master (put its client options in `redis.sentinel.nodeClientOptions`)');
    checkSentinelOptions(sentinel);
    return true;
  }
  if (url !== undefined) checkUrl(url, 'redis.url');
  if (options !== undefined && (typeof options !== 'object' || options === null)) throw new InvalidArgumentError('Expected `redis.options` to be node-redis createClient options (an object)');
  if (options !== undefined && 'keyPrefix' in options) throw new InvalidArgumentError('`redis.options.keyPrefix` is not supported with node-redis: use `nameMapper` instead');
  return true;
}
