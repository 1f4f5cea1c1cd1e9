/**
 * Client options, their frozen defaults, and the argument validation shared by every primitive.
 * Everything here throws before anything is sent to Redis.
 */
import type { Redis, RedisOptions } from 'ioredis';
import { identityNameMapper, type NameMapper } from './keys.js';
import { isTimeUnit, toMillis, TimeUnit } from './TimeUnit.js';

/** Options of {@link Redisson.create}. Names and defaults follow Redisson's `Config`. */
export interface RedissonOptions {
  /**
   * Where Redis is: a `redis://` URL, ioredis options, or an existing ioredis `Redis` instance (which the
   * client then uses but does not close on shutdown).
   * @default 'redis://127.0.0.1:6379'
   */
  redis?: string | RedisOptions | Redis;
  /**
   * Lease (ms) of locks taken without a lease time; the watchdog renews them every third of it.
   * @default 30000
   */
  lockWatchdogTimeout?: number;
  /**
   * Locks renewed per script call by the watchdog (Redisson 3.44+ `lockWatchdogBatchSize`).
   * @default 100
   */
  lockWatchdogBatchSize?: number;
  /**
   * How long (ms) `lock()` waits for its channel subscription before failing with `RedisTimeoutError`.
   * @default 7500
   */
  subscriptionTimeout?: number;
  /**
   * Redisson's response `timeout` (ms); with `retryAttempts` it sizes the unlock latch TTL exactly as
   * Redisson does: `(timeout + retryDelay(retryAttempts)) * retryAttempts`.
   * @default 3000
   */
  timeout?: number;
  /** @default 4 */
  retryAttempts?: number;
  /**
   * Maps object names to raw Redis names, like Redisson's `NameMapper`. Use it (not the ioredis
   * `keyPrefix`) for a prefix that Java clients with the same mapper share.
   * @default identity
   */
  nameMapper?: NameMapper;
}

/** Options after defaults were applied and every value validated. */
export interface ResolvedOptions {
  readonly redis: string | RedisOptions | Redis;
  readonly lockWatchdogTimeout: number;
  readonly lockWatchdogBatchSize: number;
  readonly subscriptionTimeout: number;
  readonly timeout: number;
  readonly retryAttempts: number;
  readonly nameMapper: NameMapper;
}

/** Redisson's defaults (`Config`, `BaseConfig`), frozen. */
export const DEFAULTS = Object.freeze({
  redis: 'redis://127.0.0.1:6379',
  lockWatchdogTimeout: 30_000,
  lockWatchdogBatchSize: 100,
  subscriptionTimeout: 7_500,
  timeout: 3_000,
  retryAttempts: 4,
});

/** Largest number of milliseconds accepted anywhere (exact in a JS number, far below Redis's limits). */
export const MAX_MILLIS = Number.MAX_SAFE_INTEGER;

function describe(value: unknown): string {
  if (typeof value === 'string') return `\`'${value}'\` (string)`;
  if (typeof value === 'number') return `\`${value}\``;
  return `\`${String(value)}\` (${value === null ? 'null' : typeof value})`;
}

/** Throws unless `value` is an integer in `[min, max]`. */
export function requireInteger(value: unknown, what: string, min: number, max = MAX_MILLIS): number {
  if (typeof value !== 'number' || Number.isNaN(value)) {
    throw new TypeError(`Expected \`${what}\` to be a number, got ${describe(value)}`);
  }
  if (!Number.isInteger(value)) {
    throw new RangeError(`Expected \`${what}\` to be a finite integer, got ${describe(value)}`);
  }
  if (value < min || value > max) {
    throw new RangeError(`Expected \`${what}\` to be between ${min} and ${max}, got ${describe(value)}`);
  }
  return value;
}

/** Throws unless `name` is a non-empty string. Returns it. */
export function requireName(name: unknown, what = 'name'): string {
  if (typeof name !== 'string') throw new TypeError(`Expected \`${what}\` to be a string, got ${describe(name)}`);
  if (name.length === 0) throw new RangeError(`Expected \`${what}\` to be a non-empty string`);
  return name;
}

/** Throws unless `unit` is a {@link TimeUnit}; `undefined` means milliseconds. */
export function requireUnit(unit: unknown): TimeUnit {
  if (unit === undefined) return TimeUnit.MILLISECONDS;
  if (!isTimeUnit(unit)) {
    throw new TypeError(`Expected \`unit\` to be a TimeUnit (${Object.values(TimeUnit).join(', ')}), got ${describe(unit)}`);
  }
  return unit;
}

/**
 * A wait or lease time in `unit`, converted to ms. `-1` (or `undefined`) means "not given" and yields
 * `-1`; `0` is accepted and, as in Redisson 3.17.1+, also means "not given" for a lease.
 */
export function requireTime(value: unknown, unit: TimeUnit, what: string): number {
  if (value === undefined) return -1;
  requireInteger(value, what, -1, Number.MAX_SAFE_INTEGER);
  const ms = value === -1 ? -1 : toMillis(value as number, unit);
  if (ms > MAX_MILLIS) throw new RangeError(`Expected \`${what}\` to be at most ${MAX_MILLIS} ms, got ${ms} ms`);
  return ms;
}

/** Throws unless `id` is a usable thread id (a non-negative safe integer, as a Java `long` thread id). */
export function requireThreadId(id: unknown): number {
  return requireInteger(id, 'threadId', 0, Number.MAX_SAFE_INTEGER);
}

/**
 * True for an ioredis `Redis` instance, also one from another copy of ioredis (where `instanceof` fails).
 */
export function isRedisInstance(value: unknown): value is Redis {
  if (typeof value !== 'object' || value === null) return false;
  const r = value as Record<string, unknown>;
  return typeof r['duplicate'] === 'function' && typeof r['defineCommand'] === 'function' && typeof r['sendCommand'] === 'function' && !('nodes' in r && typeof r['nodes'] === 'function');
}

/** Validates options and fills in defaults. */
export function resolveOptions(options: RedissonOptions = {}): ResolvedOptions {
  if (typeof options !== 'object' || options === null) {
    throw new TypeError(`Expected options to be an object, got ${describe(options)}`);
  }
  const redis = options.redis ?? DEFAULTS.redis;
  if (typeof redis === 'string') {
    let url: URL;
    try {
      url = new URL(redis);
    } catch {
      throw new TypeError(`Expected \`redis\` to be a redis:// URL, got ${describe(redis)}`);
    }
    if (url.protocol !== 'redis:' && url.protocol !== 'rediss:') {
      throw new TypeError(`Expected \`redis\` to be a redis:// or rediss:// URL, got ${describe(redis)}`);
    }
  } else if (typeof redis !== 'object' || redis === null) {
    throw new TypeError(`Expected \`redis\` to be a URL, ioredis options or an ioredis instance, got ${describe(redis)}`);
  } else if (!isRedisInstance(redis) && Object.getPrototypeOf(redis) !== Object.prototype && Object.getPrototypeOf(redis) !== null) {
    // A class instance that is not an ioredis client (a Cluster, another library's client) must not be
    // read as an options object, which would silently connect to 127.0.0.1:6379.
    throw new TypeError('Expected `redis` to be a URL, plain ioredis options or an ioredis `Redis` instance');
  }
  const nameMapper = options.nameMapper ?? identityNameMapper;
  if (typeof nameMapper.map !== 'function' || typeof nameMapper.unmap !== 'function') {
    throw new TypeError('Expected `nameMapper` to have `map` and `unmap` functions');
  }
  return Object.freeze({
    redis,
    // Renewal runs every third of it on a setTimeout, whose ceiling is 2^31 - 1 ms.
    lockWatchdogTimeout: requireInteger(options.lockWatchdogTimeout ?? DEFAULTS.lockWatchdogTimeout, 'lockWatchdogTimeout', 3, 3 * (2 ** 31 - 1)),
    lockWatchdogBatchSize: requireInteger(options.lockWatchdogBatchSize ?? DEFAULTS.lockWatchdogBatchSize, 'lockWatchdogBatchSize', 1, 10_000),
    subscriptionTimeout: requireInteger(options.subscriptionTimeout ?? DEFAULTS.subscriptionTimeout, 'subscriptionTimeout', 1),
    timeout: requireInteger(options.timeout ?? DEFAULTS.timeout, 'timeout', 1),
    retryAttempts: requireInteger(options.retryAttempts ?? DEFAULTS.retryAttempts, 'retryAttempts', 0, 1_000),
    nameMapper,
  });
}

/**
 * TTL (ms) of one unlock latch, by Redisson's formula with its default `retryDelay` (equal jitter,
 * base 1000 ms, max 2000 ms): `(timeout + calcDelay(retryAttempts)) * retryAttempts`, at least 1.
 */
export function unlockLatchTtl(options: Pick<ResolvedOptions, 'timeout' | 'retryAttempts'>): number {
  const ceiling = Math.min(2_000, 1_000 * 2 ** Math.min(options.retryAttempts, 30));
  const half = ceiling / 2;
  const delay = Math.trunc(half + Math.random() * (half + 1));
  return Math.max(1, Math.min(MAX_MILLIS, (options.timeout + delay) * options.retryAttempts));
}
