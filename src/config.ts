/**
 * Client options, their frozen defaults, and the argument validation shared by every primitive.
 * Everything here throws before anything is sent to Redis.
 */
import type { Cluster, ClusterNode, ClusterOptions, IoredisLikeCluster, IoredisLikeOptions, IoredisLikeRedis, Redis, RedisOptions } from './connection/ioredis/types.js';
import { isClusterInstance, isRedisInstance } from './connection/ioredis/recognize.js';
import type { NodeRedisClientLike, NodeRedisConnectionOptions } from './connection/node-redis/types.js';
import { checkNodeRedisOption } from './connection/node-redis/validate.js';

export { isRedisInstance };
import { ADDRESS_OPTION_KEYS, DEFAULT_SCAN_INTERVAL, isMasterSlaveOption, isReplicatedOption, MASTER_SLAVE_KEYS, parseNodeAddress, REPLICATED_KEYS, type MasterSlaveConnectionOptions, type ReplicatedConnectionOptions } from './connection/replicated.js';

export type { MasterSlaveConnectionOptions, ReplicatedConnectionOptions };
import { identityNameMapper, type NameMapper } from './keys.js';
import { isTimeUnit, toMillis, TimeUnit } from './TimeUnit.js';
import { ArgumentRangeError, InvalidArgumentError } from './errors.js';
import { DEFAULT_RETRY_DELAY, type DelayStrategy } from './DelayStrategy.js';

/** A Redis Cluster to connect to: its startup nodes, and ioredis `Cluster` options. */
export interface ClusterConnectionOptions {
  clusterNodes: ClusterNode[];
  clusterOptions?: ClusterOptions;
}

/** Options of {@link Redisson.create}. Names and defaults follow Redisson's `Config`. */
export interface RedissonOptions {
  /**
   * Where Redis is: a `redis://` URL, ioredis options (Sentinel ones too), an existing ioredis `Redis`
   * instance (which the client then uses but does not close on shutdown), a Redis Cluster as
   * `{ clusterNodes, clusterOptions? }`, or an existing ioredis `Cluster` (whose nodes and options the client
   * connects with, on connections of its own); a replicated group (Redisson's `replicatedServersConfig`) as
   * `{ replicatedNodes, scanInterval?, redisOptions? }`, or a master with fixed replicas (Redisson's
   * `masterSlaveServersConfig`) as `{ masterAddress, slaveAddresses?, redisOptions? }`. With node-redis (`redis`
   * 5.x or 6.x): a `createClient()` client (connected or not; the client connects it if needed and does not close
   * it on shutdown), or `{ driver: 'node-redis', url, options? }` (the client makes its own and closes it).
   * @default 'redis://127.0.0.1:6379'
   */
  redis?:
    | string
    | RedisOptions
    | IoredisLikeOptions
    | Redis
    | Cluster
    | IoredisLikeRedis
    | IoredisLikeCluster
    | ClusterConnectionOptions
    | ReplicatedConnectionOptions<RedisOptions>
    | MasterSlaveConnectionOptions<RedisOptions>
    | NodeRedisClientLike
    | NodeRedisConnectionOptions;
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
   * A fair lock waiter's wait (ms) when its call has no wait time (`lock()`): how long it may stay queued
   * behind its predecessor before the others drop it as dead (Redisson 3.46+ `fairLockWaitTimeout`; the
   * same 300000 was built in from 3.13.3). Use the Java clients' value, or their queue deadlines diverge.
   * @default 300000
   */
  fairLockWaitTimeout?: number;
  /**
   * Who owns an acquisition that names no owner (no `threadId`, outside `runInThread`):
   * - `'acquisition'`: the lock object's own id while it is idle, a fresh id while it already holds or is
   *   acquiring — one object shared by concurrent flows is safe (docs/guides/thread-identity.md);
   * - `'object'`: always the object's own id, so its acquisitions re-enter each other, as one Java thread's —
   *   only for objects that one flow at a time uses.
   * @default 'acquisition'
   */
  lockOwnership?: 'acquisition' | 'object';
  /**
   * How long (ms) `lock()` waits for its channel subscription before failing with `RedisTimeoutError`.
   * @default 7500
   */
  subscriptionTimeout?: number;
  /**
   * How long (ms) a lock's channel stays subscribed after its last local waiter left *with* the lock, so
   * that the next waiter of this client joins it at once (no SUBSCRIBE, and one attempt fewer) — a lock
   * passed back and forth between processes would otherwise subscribe and unsubscribe on every handoff.
   * Waiters that give up, are aborted or fail unsubscribe at once; `shutdown()` ends every linger. `0`:
   * unsubscribe at once, as Redisson. Visible on the server only in `PUBSUB` counts.
   * @default 100
   */
  subscriptionLinger?: number;
  /**
   * Direct handoff (issue 29): when an RLock is released while a waiter for it is parked in this client (or, on
   * a single server, in another client of this process with the same address, database and key prefix and this
   * option on) and the release's `PUBLISH` reached no subscriber but those clients' own (and the master has no
   * replica), the unlock script writes the longest such waiter's hold itself — what its own retry would have
   * written a round trip later — and the waiter resolves from the unlock's reply. On the wire it is indistinguishable from the
   * waiter winning its retry. `false`: every release only publishes, as Redisson.
   * @default true
   */
  directHandoff?: boolean;
  /**
   * Redisson's response `timeout` (ms); with `retryAttempts` it sizes the unlock latch TTL exactly as
   * Redisson does: `(timeout + retryDelay(retryAttempts)) * retryAttempts`.
   * @default 3000
   */
  timeout?: number;
  /** @default 4 */
  retryAttempts?: number;
  /**
   * Redisson's `retryDelay`: the delay before each retry of a write its replicas did not confirm (after it was
   * undone; see {@link checkLockSyncedSlaves}), and part of the unlock latch's TTL,
   * `(timeout + retryDelay.calcDelay(retryAttempts)) * retryAttempts` — give Java's value so both sides'
   * latches live as long. `EqualJitterDelay`, `FullJitterDelay`, `ConstantDelay`, `DecorrelatedJitterDelay`, or
   * any `{ calcDelay(attempt) }` returning milliseconds.
   * @default new EqualJitterDelay(1000, 2000)
   */
  retryDelay?: DelayStrategy;
  /**
   * Redisson's `pingConnectionInterval` (ms): a PING on each of the client's connections every interval; one
   * unanswered for a whole interval drops the socket, and the driver reconnects (a subscriber re-subscribes), so a
   * dead connection (half-open TCP, a frozen server) is noticed in at most two intervals. `0`: off. Redisson's
   * default is 30000; here it is off by default (ioredis' own socket handling otherwise, as before), and a
   * Redisson config that sets it turns it on. Not applied to a Redis Cluster's node connections.
   * @default 0
   */
  pingConnectionInterval?: number;
  /**
   * Maps object names to raw Redis names, like Redisson's `NameMapper`. Use it (not the ioredis
   * `keyPrefix`) for a prefix that Java clients with the same mapper share.
   * @default identity
   */
  nameMapper?: NameMapper;
  /**
   * Warn once per client (a `process` warning, code `REDISSON_TS_SHORT_LEASE`) when a lock is given a lease
   * below one second: times are milliseconds unless a `TimeUnit` follows, so `lock(30)` is a 30 ms lease,
   * not Java's `lock(30, TimeUnit.SECONDS)`. Set `false` where sub-second leases are meant.
   * @default true
   */
  shortLeaseWarning?: boolean;
  /**
   * With replicas (Sentinel, Cluster, replicated and master/slave deployments): fail a lock or semaphore write that no replica confirmed within
   * {@link slavesSyncTimeout} (`WAIT` after the script, as Redisson), undoing an acquisition first and
   * retrying it `retryAttempts` times. Redisson's `checkLockSyncedSlaves`. No effect on a single server.
   * @default true
   */
  checkLockSyncedSlaves?: boolean;
  /**
   * How long (ms) a write waits for its replicas (`WAIT <replicas> <slavesSyncTimeout>`). Redisson's
   * `slavesSyncTimeout`.
   * @default 1000
   */
  slavesSyncTimeout?: number;
  /**
   * Redis Cluster only: `SPUBLISH`/`SSUBSCRIBE` (sharded pub/sub) or `PUBLISH`/`SUBSCRIBE`, as Redisson's
   * `shardedSubscriptionMode` (3.29.0+): `'AUTO'` probes `PUBSUB SHARDNUMSUB` (Redis ≥ 7: sharded), `'ON'`,
   * `'OFF'`. Both sides of a lock must agree: Java Redisson ≥ 3.22.0 on Redis 7 shards by default, older
   * versions never do — set `'OFF'` to share locks with those.
   * @default 'AUTO'
   */
  shardedSubscriptionMode?: 'AUTO' | 'ON' | 'OFF';
}

/** Options after defaults were applied and every value validated. */
export interface ResolvedOptions {
  /** The connection: a URL, ioredis options, cluster nodes, or an ioredis instance ({@link RedissonOptions.redis}). */
  readonly redis: string | RedisOptions | Redis | Cluster | ClusterConnectionOptions | ResolvedReplicated | ResolvedMasterSlave | NodeRedisClientLike | NodeRedisConnectionOptions;
  /** Lease (ms) of a lock taken without a lease time; renewed every third of it ({@link RedissonOptions.lockWatchdogTimeout}). */
  readonly lockWatchdogTimeout: number;
  /** Locks renewed per script call ({@link RedissonOptions.lockWatchdogBatchSize}). */
  readonly lockWatchdogBatchSize: number;
  /** A fair-lock waiter's wait (ms) when its call gives none ({@link RedissonOptions.fairLockWaitTimeout}). */
  readonly fairLockWaitTimeout: number;
  /** Owner of an acquisition that names none ({@link RedissonOptions.lockOwnership}). */
  readonly lockOwnership: 'acquisition' | 'object';
  /** Ms a wait waits for its channel subscription ({@link RedissonOptions.subscriptionTimeout}). */
  readonly subscriptionTimeout: number;
  /** Ms a channel stays subscribed after its last waiter left with the lock ({@link RedissonOptions.subscriptionLinger}). */
  readonly subscriptionLinger: number;
  /** Whether a release may hand an RLock straight to a waiter of this process ({@link RedissonOptions.directHandoff}). */
  readonly directHandoff: boolean;
  /** Response timeout (ms) of every command, and the `shutdown()` budget ({@link RedissonOptions.timeout}). */
  readonly timeout: number;
  /** Re-sends of an unlock or renewal whose reply was lost ({@link RedissonOptions.retryAttempts}). */
  readonly retryAttempts: number;
  /** Delay (ms) before each retry of an unconfirmed write, and the latch TTL's share ({@link RedissonOptions.retryDelay}). */
  readonly retryDelay: DelayStrategy;
  /** Ms between PINGs on each connection, 0 for none ({@link RedissonOptions.pingConnectionInterval}). */
  readonly pingConnectionInterval: number;
  /** Maps object names to Redis names and back ({@link RedissonOptions.nameMapper}); identity by default. */
  readonly nameMapper: NameMapper;
  /** Whether a lease below one second emits a process warning once ({@link RedissonOptions.shortLeaseWarning}). */
  readonly shortLeaseWarning: boolean;
  /** Whether a write no replica confirmed is undone and retried ({@link RedissonOptions.checkLockSyncedSlaves}). */
  readonly checkLockSyncedSlaves: boolean;
  /** Ms each write waits for its replicas ({@link RedissonOptions.slavesSyncTimeout}). */
  readonly slavesSyncTimeout: number;
  /** Sharded pub/sub in a Redis Cluster: `'AUTO'`, `'ON'` or `'OFF'` ({@link RedissonOptions.shardedSubscriptionMode}). */
  readonly shardedSubscriptionMode: 'AUTO' | 'ON' | 'OFF';
}

/** A replicated group after validation: `scanInterval` filled in. */
export type ResolvedReplicated = Readonly<Required<Omit<ReplicatedConnectionOptions<RedisOptions>, 'redisOptions'>>> & { readonly redisOptions: RedisOptions };
/** A master/slave deployment after validation. */
export type ResolvedMasterSlave = Readonly<Required<Omit<MasterSlaveConnectionOptions<RedisOptions>, 'redisOptions'>>> & { readonly redisOptions: RedisOptions };

/** Redisson's defaults (`Config`, `BaseConfig`), frozen. */
export const DEFAULTS = Object.freeze({
  /** Default of {@link RedissonOptions.redis}: a local server on the default port. */
  redis: 'redis://127.0.0.1:6379',
  /** Default of {@link RedissonOptions.lockWatchdogTimeout} (ms), as Redisson's. */
  lockWatchdogTimeout: 30_000,
  /** Default of {@link RedissonOptions.lockWatchdogBatchSize}, as Redisson's. */
  lockWatchdogBatchSize: 100,
  /** Default of {@link RedissonOptions.fairLockWaitTimeout} (ms): Redisson's `threadWaitTime`. */
  fairLockWaitTimeout: 300_000,
  /** Default of {@link RedissonOptions.lockOwnership}: an owner per acquisition. */
  lockOwnership: 'acquisition',
  /** Default of {@link RedissonOptions.subscriptionTimeout} (ms), as Redisson's. */
  subscriptionTimeout: 7_500,
  /** Default of {@link RedissonOptions.subscriptionLinger} (ms). */
  subscriptionLinger: 100,
  /** Default of {@link RedissonOptions.directHandoff}. */
  directHandoff: true,
  /** Default of {@link RedissonOptions.timeout} (ms), as Redisson's. */
  timeout: 3_000,
  /** Default of {@link RedissonOptions.retryAttempts}, as Redisson's. */
  retryAttempts: 4,
  /** Default of {@link RedissonOptions.retryDelay}, as Redisson's: `EqualJitterDelay(1000, 2000)`. */
  retryDelay: DEFAULT_RETRY_DELAY,
  /** Default of {@link RedissonOptions.pingConnectionInterval}: off (Redisson's is 30000). */
  pingConnectionInterval: 0,
  /** Default of {@link RedissonOptions.shortLeaseWarning}. */
  shortLeaseWarning: true,
  /** Default of {@link RedissonOptions.checkLockSyncedSlaves}, as Redisson's. */
  checkLockSyncedSlaves: true,
  /** Default of {@link RedissonOptions.slavesSyncTimeout} (ms), as Redisson's. */
  slavesSyncTimeout: 1_000,
  /** Default of {@link RedissonOptions.shardedSubscriptionMode}, as Redisson's. */
  shardedSubscriptionMode: 'AUTO',
});

/**
 * Smallest `lockWatchdogTimeout` accepted (ms). Below it the watchdog would renew more than ten times a
 * second per lock, and the value is almost always seconds given where Redisson wants milliseconds.
 */
export const MIN_WATCHDOG_TIMEOUT_MS = 300;

/** Leases below this (ms) get the one-time {@link RedissonOptions.shortLeaseWarning}. */
export const SHORT_LEASE_MS = 1_000;

/** Largest number of milliseconds accepted anywhere (exact in a JS number, far below Redis's limits). */
export const MAX_MILLIS = Number.MAX_SAFE_INTEGER;

/** Longest delay `setTimeout` can schedule (2^31 - 1 ms); longer ones fire after 1 ms with a warning. */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/** Keys of {@link RedissonOptions}, in the order the accepted-keys list of an error shows them. */
const OPTION_KEYS = ['redis', 'lockWatchdogTimeout', 'lockWatchdogBatchSize', 'fairLockWaitTimeout', 'lockOwnership', 'subscriptionTimeout', 'subscriptionLinger', 'directHandoff', 'timeout', 'retryAttempts', 'retryDelay', 'pingConnectionInterval', 'nameMapper', 'shortLeaseWarning', 'checkLockSyncedSlaves', 'slavesSyncTimeout', 'shardedSubscriptionMode'] as const;

/** A value for an error message; never throws (a null-prototype object has no `toString`). */
export function describeValue(value: unknown): string {
  if (typeof value === 'string') return `\`'${value}'\` (string)`;
  if (typeof value === 'number') return `\`${value}\``;
  if (Array.isArray(value)) return `an array`;
  let text: string;
  try {
    text = String(value);
  } catch {
    text = Object.prototype.toString.call(value);
  }
  return `\`${text}\` (${value === null ? 'null' : typeof value})`;
}

/** Index of the first lone UTF-16 surrogate in `text`, or -1 when it is well-formed Unicode. */
function loneSurrogateAt(text: string): number {
  // Node 20+'s String#isWellFormed answers the common case without running a Unicode regex per name.
  if ((text as { isWellFormed?: () => boolean }).isWellFormed?.() === true) return -1;
  // With the `u` flag a surrogate pair is one code point, so only a lone surrogate is a `Cs` match.
  return /\p{Cs}/u.exec(text)?.index ?? -1;
}

/**
 * Throws unless `options` is an object (not an array, not `null`) whose own enumerable keys are all in
 * `accepted`. `hints` explains a known mistake per key (a positional argument passed as an option).
 */
export function requireOptionKeys(options: unknown, what: string, accepted: readonly string[], hints: Readonly<Record<string, string>> = {}): void {
  if (typeof options !== 'object' || options === null || Array.isArray(options)) {
    throw new InvalidArgumentError(`Expected ${what} to be an object, got ${describeValue(options)}`);
  }
  for (const key of Reflect.ownKeys(options)) {
    if (!Object.prototype.propertyIsEnumerable.call(options, key)) continue;
    if (typeof key === 'string' && accepted.includes(key)) continue;
    const name = String(key);
    const near = accepted.find((k) => k.toLowerCase() === name.toLowerCase()) ?? accepted.find((k) => typoDistance(k.toLowerCase(), name.toLowerCase()) <= 2);
    const hint = typeof key === 'string' && Object.hasOwn(hints, key) ? ` ${hints[key]}` : near === undefined ? '' : ` (did you mean \`${near}\`?)`;
    throw new InvalidArgumentError(`Unknown option \`${name}\` in ${what}${hint}; accepted: ${accepted.map((k) => `\`${k}\``).join(', ') || 'none'}`);
  }
}

/**
 * Edits (insert, delete, replace, swap of neighbours) from `a` to `b` — the optimal string alignment distance —
 * for "did you mean" (`nodeTimout` → `nodeTimeout`). Only keys of at least four characters are suggested.
 */
function typoDistance(a: string, b: string): number {
  // Farther apart in length than any suggestion (and no table for a huge key).
  if (Math.min(a.length, b.length) < 4 || Math.abs(a.length - b.length) > 2) return Infinity;
  const d = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  const at = (i: number, j: number): number => d[i]?.[j] ?? Infinity;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, at(i - 2, j - 2) + 1);
      (d[i] as number[])[j] = best;
    }
  }
  return at(a.length, b.length);
}

/** Throws unless `value` is an integer in `[min, max]`. */
export function requireInteger(value: unknown, what: string, min: number, max = MAX_MILLIS): number {
  if (typeof value !== 'number' || Number.isNaN(value)) {
    throw new InvalidArgumentError(`Expected \`${what}\` to be a number, got ${describeValue(value)}`);
  }
  if (!Number.isInteger(value)) {
    throw new ArgumentRangeError(`Expected \`${what}\` to be a finite integer, got ${describeValue(value)}`);
  }
  if (value < min || value > max) {
    throw new ArgumentRangeError(`Expected \`${what}\` to be between ${min} and ${max}, got ${describeValue(value)}`);
  }
  return value;
}

/**
 * Throws unless `name` is a non-empty string of well-formed Unicode. Returns it. A lone UTF-16 surrogate
 * would reach Redis as U+FFFD in a channel name (a waiter never woken) and merge distinct names into one key.
 */
export function requireName(name: unknown, what = 'name'): string {
  if (typeof name !== 'string') throw new InvalidArgumentError(`Expected \`${what}\` to be a string, got ${describeValue(name)}`);
  if (name.length === 0) throw new ArgumentRangeError(`Expected \`${what}\` to be a non-empty string`);
  const at = loneSurrogateAt(name);
  if (at >= 0) {
    const unit = name.charCodeAt(at).toString(16).toUpperCase();
    throw new ArgumentRangeError(`Expected \`${what}\` to be well-formed Unicode, got a lone surrogate U+${unit} at index ${at}`);
  }
  return name;
}

/**
 * `name` validated, then mapped by the client's {@link NameMapper}; the mapped name must be a non-empty,
 * well-formed string too, since every key and channel is built from it.
 */
export function mapName(mapper: NameMapper, name: unknown): string {
  const valid = requireName(name);
  const raw: unknown = mapper.map(valid);
  const what = `\`nameMapper.map\` to return a non-empty string for ${describeValue(valid)}`;
  if (typeof raw !== 'string') throw new InvalidArgumentError(`Expected ${what}, got ${describeValue(raw)}`);
  if (raw.length === 0) throw new ArgumentRangeError(`Expected ${what}, got \`''\``);
  const at = loneSurrogateAt(raw);
  if (at >= 0) throw new ArgumentRangeError(`Expected ${what}, got one with a lone surrogate at index ${at}`);
  return raw;
}

/** Throws unless `unit` is a {@link TimeUnit}; `undefined` means milliseconds. */
export function requireUnit(unit: unknown): TimeUnit {
  if (unit === undefined) return TimeUnit.MILLISECONDS;
  if (!isTimeUnit(unit)) {
    throw new InvalidArgumentError(`Expected \`unit\` to be a TimeUnit (${Object.values(TimeUnit).join(', ')}), got ${describeValue(unit)}`);
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
  if (ms > MAX_MILLIS) throw new ArgumentRangeError(`Expected \`${what}\` to be at most ${MAX_MILLIS} ms, got ${ms} ms`);
  return ms;
}

/** Throws unless `id` is a usable thread id (a non-negative safe integer, as a Java `long` thread id). */
export function requireThreadId(id: unknown): number {
  return requireInteger(id, 'threadId', 0, Number.MAX_SAFE_INTEGER);
}

/** Validates options and fills in defaults. */
export function resolveOptions(options: RedissonOptions = {}): ResolvedOptions {
  if (isRedisInstance(options)) {
    throw new InvalidArgumentError('Expected Redisson.create options, got an ioredis instance: pass it as `{ redis }`');
  }
  requireOptionKeys(options, 'Redisson.create options', OPTION_KEYS);
  // Only `undefined` means "the default": a `null` (an unset config value passed on) is a mistake, not a
  // request for localhost.
  const given = <K extends keyof RedissonOptions>(key: K, fallback: unknown): unknown => (options[key] === undefined ? fallback : options[key]);
  const redis = given('redis', DEFAULTS.redis) as RedissonOptions['redis'];
  if (typeof redis === 'string') {
    let url: URL;
    try {
      url = new URL(redis);
    } catch {
      throw new InvalidArgumentError(`Expected \`redis\` to be a redis:// URL, got ${describeValue(redis)}`);
    }
    if (url.protocol !== 'redis:' && url.protocol !== 'rediss:') {
      throw new InvalidArgumentError(`Expected \`redis\` to be a redis:// or rediss:// URL, got ${describeValue(redis)}`);
    }
  } else if (typeof redis !== 'object' || redis === null) {
    throw new InvalidArgumentError(`Expected \`redis\` to be a URL, ioredis options or an ioredis instance, got ${describeValue(redis)}`);
  } else if (checkNodeRedisOption(redis)) {
    // A node-redis client or `{ driver: 'node-redis' }` (checked there).
  } else if (!isRedisInstance(redis) && !isClusterInstance(redis) && Object.getPrototypeOf(redis) !== Object.prototype && Object.getPrototypeOf(redis) !== null) {
    // A class instance that is not an ioredis client (another library's client) must not be read as an
    // options object, which would silently connect to 127.0.0.1:6379.
    throw new InvalidArgumentError('Expected `redis` to be a URL, plain ioredis options, an ioredis `Redis` or `Cluster` instance, `{ clusterNodes }`, or a node-redis `createClient()` client');
  } else if ('clusterNodes' in redis && (!Array.isArray(redis.clusterNodes) || redis.clusterNodes.length === 0)) {
    throw new InvalidArgumentError(`Expected \`redis.clusterNodes\` to be a non-empty array of cluster nodes, got ${describeValue(redis.clusterNodes)}`);
  }
  const deployment = isReplicatedOption(redis) ? resolveReplicated(redis) : isMasterSlaveOption(redis) ? resolveMasterSlave(redis) : null;
  const shardedSubscriptionMode = given('shardedSubscriptionMode', DEFAULTS.shardedSubscriptionMode);
  if (shardedSubscriptionMode !== 'AUTO' && shardedSubscriptionMode !== 'ON' && shardedSubscriptionMode !== 'OFF') {
    throw new InvalidArgumentError(`Expected \`shardedSubscriptionMode\` to be 'AUTO', 'ON' or 'OFF', got ${describeValue(shardedSubscriptionMode)}`);
  }
  const nameMapper = given('nameMapper', identityNameMapper);
  if (typeof nameMapper !== 'object' || nameMapper === null || typeof (nameMapper as NameMapper).map !== 'function' || typeof (nameMapper as NameMapper).unmap !== 'function') {
    throw new InvalidArgumentError(`Expected \`nameMapper\` to have \`map\` and \`unmap\` functions, got ${describeValue(nameMapper)}`);
  }
  const directHandoff = given('directHandoff', DEFAULTS.directHandoff);
  if (typeof directHandoff !== 'boolean') {
    throw new InvalidArgumentError(`Expected \`directHandoff\` to be a boolean, got ${describeValue(directHandoff)}`);
  }
  const shortLeaseWarning = given('shortLeaseWarning', DEFAULTS.shortLeaseWarning);
  if (typeof shortLeaseWarning !== 'boolean') {
    throw new InvalidArgumentError(`Expected \`shortLeaseWarning\` to be a boolean, got ${describeValue(shortLeaseWarning)}`);
  }
  const checkLockSyncedSlaves = given('checkLockSyncedSlaves', DEFAULTS.checkLockSyncedSlaves);
  if (typeof checkLockSyncedSlaves !== 'boolean') {
    throw new InvalidArgumentError(`Expected \`checkLockSyncedSlaves\` to be a boolean, got ${describeValue(checkLockSyncedSlaves)}`);
  }
  const retryDelayStrategy = given('retryDelay', DEFAULTS.retryDelay);
  if (typeof retryDelayStrategy !== 'object' || retryDelayStrategy === null || typeof (retryDelayStrategy as DelayStrategy).calcDelay !== 'function') {
    throw new InvalidArgumentError(`Expected \`retryDelay\` to be a DelayStrategy (an object with \`calcDelay(attempt)\`), got ${describeValue(retryDelayStrategy)}`);
  }
  const lockOwnership = given('lockOwnership', DEFAULTS.lockOwnership);
  if (lockOwnership !== 'acquisition' && lockOwnership !== 'object') {
    throw new InvalidArgumentError(`Expected \`lockOwnership\` to be 'acquisition' or 'object', got ${describeValue(lockOwnership)}`);
  }
  return Object.freeze({
    // A fork's client or options (IoredisLike*) are ioredis' at run time: recognised by their members above.
    redis: deployment ?? (redis as ResolvedOptions['redis']),
    lockOwnership,
    // Renewal runs every third of it on a setTimeout, whose ceiling is 2^31 - 1 ms.
    lockWatchdogTimeout: requireWatchdogTimeout(given('lockWatchdogTimeout', DEFAULTS.lockWatchdogTimeout)),
    lockWatchdogBatchSize: requireInteger(given('lockWatchdogBatchSize', DEFAULTS.lockWatchdogBatchSize), 'lockWatchdogBatchSize', 1, 10_000),
    // 0 is valid, as in Redisson: a waiter is then dropped as soon as its predecessor's deadline passes.
    fairLockWaitTimeout: requireInteger(given('fairLockWaitTimeout', DEFAULTS.fairLockWaitTimeout), 'fairLockWaitTimeout', 0),
    // Both run on a setTimeout (subscription wait, shutdown budget): at most its ceiling.
    subscriptionTimeout: requireInteger(given('subscriptionTimeout', DEFAULTS.subscriptionTimeout), 'subscriptionTimeout', 1, MAX_TIMER_MS),
    subscriptionLinger: requireInteger(given('subscriptionLinger', DEFAULTS.subscriptionLinger), 'subscriptionLinger', 0, MAX_TIMER_MS),
    directHandoff,
    timeout: requireInteger(given('timeout', DEFAULTS.timeout), 'timeout', 1, MAX_TIMER_MS),
    retryAttempts: requireInteger(given('retryAttempts', DEFAULTS.retryAttempts), 'retryAttempts', 0, 1_000),
    retryDelay: retryDelayStrategy as DelayStrategy,
    pingConnectionInterval: requireInteger(given('pingConnectionInterval', DEFAULTS.pingConnectionInterval), 'pingConnectionInterval', 0, MAX_TIMER_MS),
    nameMapper: nameMapper as NameMapper,
    shortLeaseWarning,
    checkLockSyncedSlaves,
    slavesSyncTimeout: requireInteger(given('slavesSyncTimeout', DEFAULTS.slavesSyncTimeout), 'slavesSyncTimeout', 1, MAX_TIMER_MS),
    shardedSubscriptionMode,
  });
}

/** `addresses` (at `what`) validated as `redis://host:port` strings; `min` of them at least. */
function requireAddresses(addresses: unknown, what: string, min: number): string[] {
  if (!Array.isArray(addresses) || addresses.length < min) {
    throw new InvalidArgumentError(`Expected \`${what}\` to be ${min > 0 ? 'a non-empty' : 'an'} array of redis:// addresses, got ${describeValue(addresses)}`);
  }
  return addresses.map((address: unknown, i) => requireAddress(address, `${what}[${i}]`));
}

function requireAddress(address: unknown, what: string): string {
  const parsed = parseNodeAddress(address);
  if (typeof parsed === 'string') throw new InvalidArgumentError(`Expected \`${what}\` to be a redis:// or rediss:// address: it ${parsed}, got ${describeValue(address)}`);
  return address as string;
}

/** The connection options of every node: a plain object that names no address (the deployment does). */
function requireNodeOptions(value: unknown, what: string): RedisOptions {
  if (value === undefined) return {};
  if (typeof value !== 'object' || value === null || Array.isArray(value) || (Object.getPrototypeOf(value) !== Object.prototype && Object.getPrototypeOf(value) !== null)) {
    throw new InvalidArgumentError(`Expected \`${what}\` to be ioredis options (a plain object), got ${describeValue(value)}`);
  }
  const named = ADDRESS_OPTION_KEYS.find((key) => (value as Record<string, unknown>)[key] !== undefined);
  if (named !== undefined) throw new InvalidArgumentError(`\`${what}.${named}\` is not accepted: the deployment's addresses say where each node is`);
  return value;
}

function resolveReplicated(redis: ReplicatedConnectionOptions<RedisOptions>): ResolvedReplicated {
  requireOptionKeys(redis, '`redis` (a replicated group)', REPLICATED_KEYS);
  return Object.freeze({
    replicatedNodes: Object.freeze(requireAddresses(redis.replicatedNodes, 'redis.replicatedNodes', 1)) as string[],
    scanInterval: requireInteger(redis.scanInterval ?? DEFAULT_SCAN_INTERVAL, 'redis.scanInterval', 1, MAX_TIMER_MS),
    redisOptions: requireNodeOptions(redis.redisOptions, 'redis.redisOptions'),
  });
}

function resolveMasterSlave(redis: MasterSlaveConnectionOptions<RedisOptions>): ResolvedMasterSlave {
  requireOptionKeys(redis, '`redis` (a master with replicas)', MASTER_SLAVE_KEYS);
  return Object.freeze({
    masterAddress: requireAddress(redis.masterAddress, 'redis.masterAddress'),
    slaveAddresses: Object.freeze(requireAddresses(redis.slaveAddresses ?? [], 'redis.slaveAddresses', 0)) as string[],
    redisOptions: requireNodeOptions(redis.redisOptions, 'redis.redisOptions'),
  });
}

/**
 * A watchdog timeout in Redisson's unit (ms), at least {@link MIN_WATCHDOG_TIMEOUT_MS}; at most three times
 * `setTimeout`'s ceiling, since renewal runs every third of it.
 */
function requireWatchdogTimeout(value: unknown): number {
  const ms = requireInteger(value, 'lockWatchdogTimeout', 1, 3 * MAX_TIMER_MS);
  if (ms < MIN_WATCHDOG_TIMEOUT_MS) {
    throw new ArgumentRangeError(
      `\`lockWatchdogTimeout\` is in milliseconds, as in Redisson, and must be at least ${MIN_WATCHDOG_TIMEOUT_MS}; got ${ms}` +
        ` (${Math.ceil(3_000 / ms)} renewal scripts a second per lock). For ${ms} seconds pass ${ms * 1_000}.`,
    );
  }
  return ms;
}

/** Redisson's default `retryDelay.calcDelay(attempt)`: equal jitter, base 1000 ms, at most 2000 ms. */
export function retryDelay(attempt: number): number {
  return DEFAULT_RETRY_DELAY.calcDelay(attempt);
}

/**
 * Milliseconds `strategy` gives for retry `attempt`, as a timer can wait them: a strategy of the caller's that
 * answers something else (negative, not a number) counts as no delay, a huge one as the timer's ceiling.
 */
export function delayOf(strategy: DelayStrategy, attempt: number): number {
  const ms = strategy.calcDelay(attempt);
  return typeof ms === 'number' && ms > 0 ? Math.min(Math.trunc(ms), MAX_TIMER_MS) : 0;
}

/**
 * TTL (ms) of one unlock latch, by Redisson's formula: `(timeout + retryDelay.calcDelay(retryAttempts)) *
 * retryAttempts`, at least 1 (Redisson's default `retryDelay` when none is given).
 */
export function unlockLatchTtl(options: Pick<ResolvedOptions, 'timeout' | 'retryAttempts'> & { readonly retryDelay?: DelayStrategy }): number {
  const delay = delayOf(options.retryDelay ?? DEFAULT_RETRY_DELAY, options.retryAttempts);
  return Math.max(1, Math.min(MAX_MILLIS, (options.timeout + delay) * options.retryAttempts));
}
