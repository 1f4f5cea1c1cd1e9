/**
 * The client: owns the client id, the connections, the subscription registry and the renewal scheduler,
 * and hands out primitives. Redisson's `Redisson` / `RedissonClient`.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import type { ClientContext } from './ClientContext.js';
import { CommandExecutor } from './connection/CommandExecutor.js';
import { connect, type Connections } from './connection/connect.js';
import type { MasterSwitch } from './connection/driver.js';
import type { Redis, RedisConnection } from './connection/ioredis/types.js';
import { keySlot } from './connection/slots.js';
import { requireOneSlot } from './connection/clusterNames.js';
import type { NamedPrimitive } from './keys.js';
import type { LuaScriptId } from './generated/lua.js';
import { requireName, requireThreadId, resolveOptions, SHORT_LEASE_MS, type RedissonOptions, type ResolvedOptions } from './config.js';
import { InvalidArgumentError, RedissonShutdownError } from './errors.js';
import { traceLost } from './diagnostics.js';
import { optionsFromConfig, type FromConfigOptions, type RedissonConfigSource } from './fromConfig.js';
import { RLock } from './locks/RLock.js';
import { RedissonFencedLock } from './locks/RedissonFencedLock.js';
import { RedissonNonReentrantLock } from './locks/RedissonNonReentrantLock.js';
import { RedissonFairLock } from './locks/RedissonFairLock.js';
import { RedissonNonReentrantFairLock } from './locks/RedissonNonReentrantFairLock.js';
import { RedissonSpinLock } from './locks/RedissonSpinLock.js';
import { LockOptions, requireBackOff, type BackOff } from './wait/backOff.js';
import type { TrackedWaiter } from './wait/AbortScope.js';
import { RedissonReadWriteLock } from './locks/RedissonReadWriteLock.js';
import { fasterMultiLockFields, RedissonFasterMultiLock, type FasterMultiLockOptions, type FasterMultiLockValue } from './locks/RedissonFasterMultiLock.js';
import { parseMemberArgs, RedissonMultiLock, type MultiLockMember, type MultiLockOptions } from './locks/RedissonMultiLock.js';
import { RedissonRedLock } from './locks/RedissonRedLock.js';
import { RPermitExpirableSemaphore } from './sync/RPermitExpirableSemaphore.js';
import { RSemaphore } from './sync/RSemaphore.js';
import { RCountDownLatch } from './sync/RCountDownLatch.js';
import { PublishSubscribe } from './pubsub/PublishSubscribe.js';
import { HoldLedger } from './locks/HoldLedger.js';
import type { HoldOptions } from './locks/holdArgs.js';
import { LockRenewalScheduler, type LostLock } from './renewal/LockRenewalScheduler.js';
import { KeptSet } from './kept.js';

/** First automatically allocated thread id; explicit ids below it never collide with automatic ones. */
export const AUTO_THREAD_ID_BASE = 1_000_000_001;

// One counter for the whole process, not per client: an owner id allocated by one client may be used on
// another client's lock (a MultiLock over several clients), where it must not equal an id that client
// allocated itself.
let nextThreadId = AUTO_THREAD_ID_BASE;
function allocateThreadId(): number {
  return nextThreadId++;
}

/** Payload of the `lockLost` event. */
export interface LockLostEvent {
  /** The lock's name as given to `getLock` (NameMapper unmapped). */
  readonly name: string;
  /** Client id (UUID) of the owner. */
  readonly clientId: string;
  /** Thread id of the owner (`<clientId>:<threadId>` is its hash field). */
  readonly threadId: number;
}

/**
 * Events of a client (a `node:events` EventEmitter): `client.on('lockLost', (e) => …)`,
 * `await events.once(client, 'lockLost')`. A listener that throws gets a process warning; it never crashes
 * the background work that emitted the event.
 */
export interface RedissonEventMap {
  /** A watchdog-renewed lock was found gone (lease ran out, key deleted, Redis lost its data). */
  lockLost: [LockLostEvent];
  /** A background renewal failed; it is retried on the next tick. */
  renewalError: [
    {
      /** What the renewal batch failed with. */
      readonly error: unknown;
    },
  ];
  /** An error of one of the client's connections, as ioredis reports it (only emitted while listened to). */
  error: [Error];
  /** A connection of the client is reconnecting; the argument is ioredis' delay before the attempt (ms). */
  reconnecting: [number];
  /**
   * Sentinel: the client followed a `+switch-master`; replicated: its scan found another node in the master
   * role — its command and subscriber connections are on the new master, and commands held during the move have
   * been let go.
   */
  failover: [MasterSwitch];
}

/** @deprecated use {@link RedissonEventMap}: the payload of each event is its first argument. */
export type RedissonEvents = { [K in keyof RedissonEventMap]: RedissonEventMap[K][0] };

/**
 * A Redisson client on ioredis.
 *
 * @example
 * ```ts
 * const client = Redisson.create({ redis: 'redis://127.0.0.1:6379' });
 * const lock = client.getLock('order:42');
 * await lock.lock();
 * try { … } finally { await lock.unlock(); }
 * await client.shutdown();
 * ```
 */
export class Redisson extends EventEmitter<RedissonEventMap> {
  /** This client's id: a random UUID, the first half of every hash field it writes. */
  readonly id: string = randomUUID();
  readonly #options: ResolvedOptions;
  // The command and subscriber connections, from the driver (src/connection/).
  readonly #connections: Connections;
  readonly #executor: CommandExecutor;
  readonly #pubsub: PublishSubscribe;
  readonly #renewal: LockRenewalScheduler;
  readonly #holds = new HoldLedger();
  readonly #stopForwarding: () => void;
  // Holds whose `signal` aborts when the watchdog finds them lost, by ledger key.
  readonly #lossWatchers = new Map<string, Set<() => void>>();
  readonly #flows = new AsyncLocalStorage<number>();
  // Kept: every acquire call is tracked while it runs (see KeptSet).
  readonly #waiters = new KeptSet<TrackedWaiter>();
  readonly #background = new Set<Promise<unknown>>();
  readonly #context: ClientContext;
  // Redis Cluster: the keyPrefix every key and channel gets, for the one-slot check of names; null elsewhere.
  readonly #slotPrefix: string | null;
  #shutdown: Promise<void> | null = null;
  #shortLeaseWarned = false;

  private constructor(options: ResolvedOptions) {
    super();
    this.#options = options;
    const connections = connect(options);
    this.#connections = connections;
    const { command, subscriber } = connections;
    const sync = connections.replicated ? { checkLockSyncedSlaves: options.checkLockSyncedSlaves, slavesSyncTimeout: options.slavesSyncTimeout, retryDelay: options.retryDelay } : null;
    this.#executor = new CommandExecutor(command, options.retryAttempts, options.timeout, sync, connections.publishCommand);
    const keyPrefix = command.keyPrefix;
    this.#slotPrefix = command.clustered ? keyPrefix : null;
    // The connections' events, forwarded ('error' only while someone listens: an EventEmitter throws an
    // 'error' nobody listens to, and connection errors already surface as typed rejections).
    const forwardError = (error: Error): void => {
      if (this.listenerCount('error') > 0) this.#emitSafely('error', error);
    };
    const forwardReconnecting = (delay: number): void => this.#emitSafely('reconnecting', delay);
    for (const c of [command, subscriber]) {
      c.on('error', forwardError);
      c.on('reconnecting', forwardReconnecting);
    }
    this.#stopForwarding = () => {
      for (const c of [command, subscriber]) {
        c.off('error', forwardError);
        c.off('reconnecting', forwardReconnecting);
      }
    };
    // Clients of this process on the same single server, database and key prefix may hand an RLock to each
    // other's waiters (direct handoff): one release's PUBLISH counts all their subscriptions together.
    const handoffScope = options.directHandoff && !connections.replicated && !command.clustered ? `${command.address} db ${command.database} prefix ${keyPrefix}` : null;
    this.#pubsub = new PublishSubscribe(subscriber, keyPrefix, options.timeout, options.subscriptionLinger, handoffScope);
    connections.follow(this.#executor, this.#pubsub, () => this.#shutdown !== null, (change) => this.#emitSafely('failover', change));
    const executor = this.#executor;
    const runScript = (id: LuaScriptId, keys: readonly string[], args: readonly (string | number)[]): Promise<unknown> =>
      executor.eval(id, keys, args, 'idempotent');
    this.#renewal = new LockRenewalScheduler(
      (kind, entries) => kind.renew(runScript, options.lockWatchdogTimeout, entries),
      Math.max(1, Math.trunc(options.lockWatchdogTimeout / 3)),
      options.lockWatchdogBatchSize,
      (lost) => this.#reportLost(lost),
      (error) => this.#emitSafely('renewalError', { error }),
      command.clustered ? (rawName) => keySlot(keyPrefix + rawName) : undefined,
    );
    this.#context = {
      id: this.id,
      options,
      executor,
      pubsub: this.#pubsub,
      renewal: this.#renewal,
      holds: this.#holds,
      clustered: connections.replicated,
      ensureOpen: () => this.#ensureOpen(),
      currentThreadId: () => this.#flows.getStore(),
      noteLease: (name, leaseMs) => this.#noteLease(name, leaseMs),
      allocateThreadId,
      trackWaiter: (waiter) => void this.#waiters.add(waiter),
      untrackWaiter: (waiter) => void this.#waiters.delete(waiter),
      keepUntilClosed: (work) => {
        const settled = work.then(
          () => undefined,
          () => undefined,
        );
        this.#background.add(settled);
        void settled.then(() => this.#background.delete(settled));
      },
      reportLost: (lost) => this.#reportLost(lost),
      watchLoss: (rawName, field, onLost) => {
        const key = HoldLedger.key(rawName, field);
        let watchers = this.#lossWatchers.get(key);
        if (!watchers) this.#lossWatchers.set(key, (watchers = new Set()));
        watchers.add(onLost);
        return () => {
          watchers.delete(onLost);
          if (watchers.size === 0 && this.#lossWatchers.get(key) === watchers) this.#lossWatchers.delete(key);
        };
      },
    };
  }

  /**
   * Creates a client. Throws `TypeError`/`RangeError` on bad options, before connecting.
   * @param options see {@link RedissonOptions}; all optional.
   */
  static create(options?: RedissonOptions): Redisson {
    return new Redisson(resolveOptions(options));
  }

  /**
   * Creates a client from a Java Redisson config: a YAML or JSON file (path or `file:` URL) in Redisson's
   * `Config.fromYAML` format, or that object already parsed. Fields without meaning here are reported as
   * warnings; unknown or unsupported ones throw. See docs/guides/configuration.md, "Configuration from Redisson files".
   * @throws RedissonConfigError listing every unknown or unsupported field (before connecting).
   * @example const client = Redisson.fromConfig('config/redisson.yaml');
   */
  static fromConfig(source: RedissonConfigSource, options?: FromConfigOptions): Redisson {
    return Redisson.create(optionsFromConfig(source, options));
  }

  /** Redisson's `getId()`: this client's UUID. */
  getId(): string {
    return this.id;
  }

  /** The options in force, defaults filled in. */
  get options(): ResolvedOptions {
    return this.#options;
  }

  /**
   * The command connection (an ioredis instance): the one passed in, or — when that one would re-send
   * unanswered commands after a reconnect — a duplicate of it with `autoResendUnfulfilledCommands: false`.
   * Typed as `Redis` for the single-server and Sentinel clients it is; a cluster client's is an ioredis
   * `Cluster` — see {@link connection}.
   */
  get redis(): Redis {
    return this.#connections.native as Redis;
  }

  /** The command connection with its exact type: an ioredis `Redis`, or a `Cluster` for a cluster client. */
  get connection(): RedisConnection {
    return this.#connections.native as RedisConnection;
  }

  /**
   * Redisson's `getLock(name)`: a reentrant lock, wire-identical to Java's `RLock`.
   * Each returned object has its own thread id unless a `runInThread` flow or an explicit `threadId` says
   * otherwise (see docs/guides/thread-identity.md).
   * @throws TypeError | RangeError when `name` is not a non-empty string.
   * @throws CrossSlotNameError in a Redis Cluster, when the keys and channels of the name would not share one
   *   hash slot (docs/guides/deployments.md, "Redis Cluster"); nothing is sent.
   */
  getLock(name: string): RLock {
    requireName(name);
    this.#ensureOpen();
    this.#requireOneSlot('getLock', 'RLock', name);
    return new RLock(this.#context, name);
  }

  /**
   * Redisson's `getFencedLock(name)` (3.19.0+): a reentrant lock whose every acquisition draws a fencing
   * token from `redisson_lock_token:{name}` (see {@link RedissonFencedLock}).
   * @throws TypeError | RangeError when `name` is not a non-empty string.
   * @throws CrossSlotNameError in a Redis Cluster, when the keys and channels of the name would not share one
   *   hash slot (docs/guides/deployments.md, "Redis Cluster"); nothing is sent.
   */
  getFencedLock(name: string): RedissonFencedLock {
    requireName(name);
    this.#ensureOpen();
    this.#requireOneSlot('getFencedLock', 'FencedLock', name);
    return new RedissonFencedLock(this.#context, name);
  }

  /**
   * Redisson's `getSpinLock(name[, backOff])` (3.15.0+): a reentrant lock whose waiters poll with `backOff`
   * instead of subscribing (see {@link RedissonSpinLock}).
   * @param backOff default `LockOptions.defaults()`: exponential, 1 ms doubling to 128 ms, with jitter.
   * @throws TypeError | RangeError when `name` is not a non-empty string, TypeError when `backOff` has no `create()`.
   * @example client.getSpinLock('job', new ConstantBackOff().delay(10))
   * @throws CrossSlotNameError in a Redis Cluster, when the keys and channels of the name would not share one
   *   hash slot (docs/guides/deployments.md, "Redis Cluster"); nothing is sent.
   */
  getSpinLock(name: string, backOff?: BackOff): RedissonSpinLock {
    requireName(name);
    const policy = backOff === undefined ? LockOptions.defaults() : requireBackOff(backOff);
    this.#ensureOpen();
    this.#requireOneSlot('getSpinLock', 'SpinLock', name);
    return new RedissonSpinLock(this.#context, name, policy);
  }

  /**
   * Redisson's `getNonReentrantLock(name)` (4.4.0+): an RLock its owner cannot take twice; a second
   * `lock()` or `tryLock()` by the owner throws `IllegalMonitorStateError` (see {@link RedissonNonReentrantLock}).
   * @throws TypeError | RangeError when `name` is not a non-empty string.
   * @throws CrossSlotNameError in a Redis Cluster, when the keys and channels of the name would not share one
   *   hash slot (docs/guides/deployments.md, "Redis Cluster"); nothing is sent.
   */
  getNonReentrantLock(name: string): RedissonNonReentrantLock {
    requireName(name);
    this.#ensureOpen();
    this.#requireOneSlot('getNonReentrantLock', 'NonReentrantLock', name);
    return new RedissonNonReentrantLock(this.#context, name);
  }

  /**
   * Redisson's `getFairLock(name)`: a reentrant lock granted in request order, across clients and Java
   * (see {@link RedissonFairLock}). Waiters queue in `redisson_lock_queue:{name}`.
   * @throws TypeError | RangeError when `name` is not a non-empty string.
   * @example const lock = client.getFairLock('payouts'); await lock.lock();
   * @throws CrossSlotNameError in a Redis Cluster, when the keys and channels of the name would not share one
   *   hash slot (docs/guides/deployments.md, "Redis Cluster"); nothing is sent.
   */
  getFairLock(name: string): RedissonFairLock {
    requireName(name);
    this.#ensureOpen();
    this.#requireOneSlot('getFairLock', 'FairLock', name);
    return new RedissonFairLock(this.#context, name);
  }

  /**
   * Redisson's `getNonReentrantFairLock(name)` (4.4.0+): a fair lock its owner cannot take twice; a second
   * `lock()` or `tryLock()` by the owner throws `IllegalMonitorStateError` (see {@link RedissonNonReentrantFairLock}).
   * @throws TypeError | RangeError when `name` is not a non-empty string.
   * @throws CrossSlotNameError in a Redis Cluster, when the keys and channels of the name would not share one
   *   hash slot (docs/guides/deployments.md, "Redis Cluster"); nothing is sent.
   */
  getNonReentrantFairLock(name: string): RedissonNonReentrantFairLock {
    requireName(name);
    this.#ensureOpen();
    this.#requireOneSlot('getNonReentrantFairLock', 'NonReentrantFairLock', name);
    return new RedissonNonReentrantFairLock(this.#context, name);
  }

  /**
   * Redisson's `getReadWriteLock(name)`: a read lock shared by readers and a write lock that excludes
   * everyone else, on one hash, wire-identical to Java's `RReadWriteLock`. Both halves of the returned object
   * act for one owner (its thread id) unless a `runInThread` flow or an explicit `threadId` says otherwise.
   * @throws TypeError | RangeError when `name` is not a non-empty string.
   * @example const rw = client.getReadWriteLock('catalog'); await rw.writeLock().lock();
   * @throws CrossSlotNameError in a Redis Cluster, when the keys and channels of the name would not share one
   *   hash slot (docs/guides/deployments.md, "Redis Cluster"); nothing is sent.
   */
  getReadWriteLock(name: string): RedissonReadWriteLock {
    requireName(name);
    this.#ensureOpen();
    this.#requireOneSlot('getReadWriteLock', 'ReadWriteLock', name);
    return new RedissonReadWriteLock(this.#context, name);
  }

  /**
   * Redisson's `getMultiLock(group, values)` (3.38.0+): one lock over many values of `group`, kept in one hash
   * (see {@link RedissonFasterMultiLock}). Java peers must encode values with the same codec.
   * @throws TypeError | RangeError when `group` is not a non-empty string, `values` is empty or holds a value
   *   the codec cannot encode, or `codec` is not `StringCodec` / `LongCodec`.
   * @throws CrossSlotNameError in a Redis Cluster, when the group's keys and channel would not share one slot.
   * @example client.getMultiLock('class:100', ['Jack_001', 'Mary_002'])
   */
  getMultiLock(group: string, values: Iterable<FasterMultiLockValue>, options?: FasterMultiLockOptions): RedissonFasterMultiLock;
  /**
   * Redisson's `getMultiLock(locks…)`: all of `locks` (from this or other clients, on any servers), taken
   * by one owner: this client's `runInThread` flow, else the multilock object's own id.
   * Also `getMultiLock([locks…], { nodeTimeout })`.
   * @throws RangeError without locks; TypeError when one is not a lock, or on an unknown option.
   *   The first `lock`/`tryLock` throws `DuplicateLockMemberError` when two members of different clients lock
   *   the same key on the same server (they could never both be acquired).
   */
  getMultiLock(...locks: MultiLockMember[]): RedissonMultiLock;
  getMultiLock(locks: readonly MultiLockMember[], options?: MultiLockOptions): RedissonMultiLock;
  getMultiLock(...args: unknown[]): RedissonMultiLock | RedissonFasterMultiLock {
    if (typeof args[0] === 'string') {
      const [group, values, options, ...rest] = args;
      if (rest.length > 0) throw new InvalidArgumentError(`getMultiLock(group, values, options?) takes at most 3 arguments, got ${args.length}`);
      requireName(group);
      const fields = fasterMultiLockFields(values, options);
      this.#ensureOpen();
      this.#requireOneSlot('getMultiLock', 'RLock', group);
      return new RedissonFasterMultiLock(this.#context, group, fields);
    }
    this.#ensureOpen();
    const { members, options } = parseMemberArgs('getMultiLock', args);
    return new RedissonMultiLock(this.#context, members, options);
  }

  /**
   * Redisson's `RedissonRedLock`: a majority of `locks`, meant for one lock on each of several independent
   * Redis servers (see {@link RedissonRedLock}). Also `getRedLock([locks…], { nodeTimeout })`.
   * @throws RangeError without locks; TypeError when one is not a lock, or on an unknown option;
   *   `DuplicateLockMemberError` when one client's lock is given twice (the first `lock`/`tryLock` throws it
   *   for the same key on the same server through two clients).
   */
  getRedLock(...locks: MultiLockMember[]): RedissonRedLock;
  getRedLock(locks: readonly MultiLockMember[], options?: MultiLockOptions): RedissonRedLock;
  getRedLock(...args: unknown[]): RedissonRedLock {
    this.#ensureOpen();
    const { members, options } = parseMemberArgs('getRedLock', args);
    return new RedissonRedLock(this.#context, members, options);
  }

  /**
   * Redisson's `getSemaphore(name)`: a counting semaphore, wire-identical to Java's `RSemaphore`. Permits
   * have no owner: any object (or Java client) may release them.
   * @throws TypeError | RangeError when `name` is not a non-empty string.
   * @example const slots = client.getSemaphore('slots'); await slots.trySetPermits(3);
   * @throws CrossSlotNameError in a Redis Cluster, when the keys and channels of the name would not share one
   *   hash slot (docs/guides/deployments.md, "Redis Cluster"); nothing is sent.
   */
  getSemaphore(name: string): RSemaphore {
    requireName(name);
    this.#ensureOpen();
    this.#requireOneSlot('getSemaphore', 'Semaphore', name);
    return new RSemaphore(this.#context, name);
  }

  /**
   * Redisson's `getPermitExpirableSemaphore(name)`: a semaphore whose permits have ids and optional leases,
   * wire-identical to Java's `RPermitExpirableSemaphore` (Redisson ≥ 3.23.4; single permits ≥ 3.17.0).
   * @throws TypeError | RangeError when `name` is not a non-empty string.
   * @example const seats = client.getPermitExpirableSemaphore('seats'); const id = await seats.acquire(30, TimeUnit.SECONDS);
   * @throws CrossSlotNameError in a Redis Cluster, when the keys and channels of the name would not share one
   *   hash slot (docs/guides/deployments.md, "Redis Cluster"); nothing is sent.
   */
  getPermitExpirableSemaphore(name: string): RPermitExpirableSemaphore {
    requireName(name);
    this.#ensureOpen();
    this.#requireOneSlot('getPermitExpirableSemaphore', 'PermitExpirableSemaphore', name);
    return new RPermitExpirableSemaphore(this.#context, name);
  }

  /**
   * Redisson's `getCountDownLatch(name)`: a count-down latch, wire-identical to Java's `RCountDownLatch`.
   * @throws TypeError | RangeError when `name` is not a non-empty string.
   * @example const done = client.getCountDownLatch('done'); await done.trySetCount(2); await done.await();
   * @throws CrossSlotNameError in a Redis Cluster, when the keys and channels of the name would not share one
   *   hash slot (docs/guides/deployments.md, "Redis Cluster"); nothing is sent.
   */
  getCountDownLatch(name: string): RCountDownLatch {
    requireName(name);
    this.#ensureOpen();
    this.#requireOneSlot('getCountDownLatch', 'CountDownLatch', name);
    return new RCountDownLatch(this.#context, name);
  }

  /**
   * Runs `fn` under the lock `name` and always releases it: `client.getLock(name).withLock(fn, options)`.
   * @example await client.withLock('order:42', async (signal) => { await ship(order, { signal }); });
   */
  withLock<R>(name: string, fn: (signal: AbortSignal) => R | Promise<R>, options?: HoldOptions): Promise<R> {
    return this.getLock(name).withLock(fn, options);
  }

  /**
   * Runs `fn` as one "thread": every lock call inside its async flow (unless given an explicit
   * `threadId`) uses the same thread id, so nested code that calls `getLock(name)` again re-enters.
   * @param threadId the id to use; by default a fresh one.
   */
  runInThread<T>(fn: () => T, threadId?: number): T {
    const id = threadId === undefined ? allocateThreadId() : requireThreadId(threadId);
    return this.#flows.run(id, fn);
  }

  /** The thread id of the current `runInThread` flow, or `undefined` outside one. */
  currentThreadId(): number | undefined {
    return this.#flows.getStore();
  }

  /** Emits `type` to each listener; one that throws gets a warning and the others still run. */
  #emitSafely<K extends keyof RedissonEventMap>(type: K, ...args: RedissonEventMap[K]): void {
    for (const listener of this.rawListeners(type) as Array<(...a: RedissonEventMap[K]) => void>) {
      try {
        listener.apply(this, args);
      } catch (error) {
        process.emitWarning(`redisson-ts: a '${type}' listener threw: ${String(error)}`);
      }
    }
  }

  /**
   * Sends `PING` on the command connection and resolves with the round trip in milliseconds (connection wait
   * included). Resolves once Redis answers, so `await client.ping()` is how to wait for a client to be
   * connected (a framework's start-up, a health check).
   * @throws RedisConnectionError when Redis cannot be reached within `timeout`; RedisTimeoutError when the
   * reply does not come within `timeout`; RedissonShutdownError after `shutdown()`.
   */
  async ping(): Promise<number> {
    this.#ensureOpen();
    const started = performance.now();
    await this.#executor.command('PING');
    return performance.now() - started;
  }

  /**
   * The ioredis status (`wait`, `connecting`, `connect`, `ready`, `reconnecting`, `close`, `end`) of the command
   * connection and of the subscriber connection. The subscriber connects on the first wait for a release
   * message, so `wait` there means "not needed yet".
   */
  connectionStatus(): {
    /** Status of the command connection. */
    readonly command: string;
    /** Status of the subscriber connection. */
    readonly subscriber: string;
  } {
    return { command: this.#connections.command.status, subscriber: this.#connections.subscriber.status };
  }

  /** True once `shutdown()` was called. */
  isShutdown(): boolean {
    return this.#shutdown !== null;
  }

  /**
   * Stops lock renewal, rejects pending waits with `RedissonShutdownError`, and closes the connections
   * this client opened (not an ioredis instance passed in). Locks still held expire within their lease.
   * Idempotent.
   */
  shutdown(): Promise<void> {
    this.#shutdown ??= this.#close();
    return this.#shutdown;
  }

  async #close(): Promise<void> {
    // One budget for the whole shutdown, `timeout`: neither a Redis that is down nor a slow one holds it up longer.
    const deadline = performance.now() + this.#options.timeout;
    const reason = new RedissonShutdownError('Redisson client was shut down while waiting');
    for (const waiter of [...this.#waiters]) waiter.abortWait(reason);
    this.#waiters.clear();
    // A release in flight (of this client or another of the process) that reserved one of those waiters for a
    // direct handoff: its reply says whether a grant landed for it, which is then undone on this connection.
    await settleBy([this.#pubsub.grantsSettled()], deadline);
    // Acquisitions that landed after their wait was aborted are being undone: let them finish.
    await settleBy([...this.#background], deadline);
    this.#renewal.stop();
    this.#connections.unfollow();
    // Unlocks (and their latch DELs) still in flight are answered before QUIT: nothing is written after it.
    await this.#executor.drain(deadline);
    this.#executor.dispose();
    const left = Math.max(1, deadline - performance.now());
    await Promise.all([this.#pubsub.close(left), this.#connections.close(left)]);
    this.#stopForwarding();
  }

  #ensureOpen(): void {
    if (this.#shutdown) throw new RedissonShutdownError();
  }

  /** In a cluster: refuses a name whose keys and channels would not share one slot (nothing is sent). */
  #requireOneSlot(method: string, primitive: NamedPrimitive, name: string): void {
    if (this.#slotPrefix !== null) requireOneSlot(method, primitive, name, this.#options.nameMapper, this.#slotPrefix);
  }

  // Once per client: `lock(30)` is a 30 ms lease here as in Redisson, rarely what a caller porting
  // `lock(30, TimeUnit.SECONDS)` or thinking in seconds meant.
  #noteLease(name: string, leaseMs: number): void {
    if (leaseMs <= 0 || leaseMs >= SHORT_LEASE_MS || this.#shortLeaseWarned || !this.#options.shortLeaseWarning) return;
    this.#shortLeaseWarned = true;
    process.emitWarning(
      `redisson-ts: "${name}" was given a lease of ${leaseMs} ms. Times are milliseconds unless a TimeUnit follows ` +
        `(lock(30, TimeUnit.SECONDS)); pass shortLeaseWarning: false to Redisson.create if sub-second leases are meant.`,
      { code: 'REDISSON_TS_SHORT_LEASE' },
    );
  }

  #reportLost(lost: LostLock): void {
    this.#holds.forget(lost.rawName, lost.field);
    for (const onLost of [...(this.#lossWatchers.get(HoldLedger.key(lost.rawName, lost.field)) ?? [])]) onLost();
    let name = lost.rawName;
    try {
      name = this.#options.nameMapper.unmap(lost.rawName);
    } catch {
      // a faulty mapper must not stop the report: fall back to the raw name
    }
    const event = { name, clientId: this.id, threadId: lost.threadId };
    traceLost({ name, rawName: lost.rawName, kind: lost.kind, clientId: this.id, owner: lost.threadId }, () => this.#emitSafely('lockLost', event));
  }
}


async function settleBy(work: Promise<unknown>[], deadline: number): Promise<void> {
  if (work.length === 0) return;
  let timer: NodeJS.Timeout | undefined;
  const left = Math.max(0, deadline - performance.now());
  await Promise.race([Promise.allSettled(work), new Promise((resolve) => (timer = setTimeout(resolve, left)))]);
  clearTimeout(timer);
}
