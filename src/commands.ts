/**
 * The narrow command layer between the primitives and ioredis. Every Lua script in `lua/` is registered
 * once per connection with ioredis `defineCommand` (EVAL on first use per socket, EVALSHA after, with
 * NOSCRIPT fallback), and every command the primitives send goes through a {@link CommandExecutor}.
 */
import type { ChainableCommander, Cluster, Redis } from 'ioredis';
import pDefer, { type DeferredPromise } from 'p-defer';
import { ConnectionLostError, NoSyncedSlavesError, RedisConnectionError, RedisTimeoutError, RedissonShutdownError } from './errors.js';
import { LUA_SCRIPTS, type LuaScriptId } from './generated/lua.js';
import { isClusterInstance, keySlot } from './cluster.js';
import { retryDelay } from './config.js';
import { PUBLISH_COMMAND_PENDING } from './pubsub/PublishSubscribe.js';

/** What the primitives need of a connection: a standalone `Redis` now, `Cluster` through the same surface later. */
export type RedisConnection = Redis | Cluster;

type ScriptArg = string | number | Buffer;
type ScriptFn = (...args: ScriptArg[]) => Promise<unknown>;

function commandName(id: LuaScriptId): string {
  return `redissonTs_${id.replace(/\//g, '_')}`;
}

/**
 * Scripts Redisson sends as plain writes or reads, never followed by `WAIT` (docs/protocol.md §1.4 item 4): the
 * latch's, the read lock's `isLocked`, the PermitExpirableSemaphore's counts and lease reads, expiry changes.
 * Every other script is a "synced" write: with replicas it is followed by `WAIT`.
 */
const UNSYNCED_SCRIPTS: ReadonlySet<LuaScriptId> = new Set<LuaScriptId>([
  'countdownlatch/countDown',
  'countdownlatch/delete',
  'countdownlatch/trySetCount',
  'rwlock/readIsLocked',
  'permitExpirableSemaphore/availablePermits',
  'permitExpirableSemaphore/getPermits',
  'permitExpirableSemaphore/acquiredPermits',
  'permitExpirableSemaphore/getLeaseTime',
  'object/expire',
]);

/**
 * How writes are confirmed by replicas: Redisson's "synced" execution. `null` on a single server, where
 * Redisson never sends `WAIT`.
 */
export interface SyncPolicy {
  /** Fail (after undoing an acquisition and retrying) a write no replica confirmed. */
  readonly checkLockSyncedSlaves: boolean;
  /** The `WAIT` timeout, ms. */
  readonly slavesSyncTimeout: number;
}

/** Undoes what a synced write did when its replicas did not confirm it (an acquisition: release it). */
export type SyncUndo = (reply: unknown) => Promise<unknown> | undefined;

/** A synced write's replies: the script's, and how many replicas confirmed it. */
class UnsyncedWrite extends Error {
  constructor(
    readonly reply: unknown,
    readonly typed: NoSyncedSlavesError,
  ) {
    super(typed.message);
  }
}

/** Registers every script on `redis` (idempotent: a connection shared by two clients is defined once). */
export function defineScripts(redis: RedisConnection): void {
  for (const id of Object.keys(LUA_SCRIPTS) as LuaScriptId[]) {
    const name = commandName(id);
    if (name in redis) continue;
    const { source, keys } = LUA_SCRIPTS[id];
    redis.defineCommand(name, keys === null ? { lua: source } : { lua: source, numberOfKeys: keys });
  }
}

/**
 * Runs script `id` with `keys` and `args`; numbers must be integers and go as plain decimal strings. On a
 * pipeline the command is queued (the pipeline's `exec` answers it).
 */
export function evalScript(redis: RedisConnection | ChainableCommander, id: LuaScriptId, keys: readonly string[], args: readonly ScriptArg[]): Promise<unknown> {
  const fn = (redis as unknown as Record<string, ScriptFn | undefined>)[commandName(id)];
  if (fn === undefined) throw new Error(`script ${id} is not defined on this connection`);
  const wire = args.map((a) => (typeof a === 'number' ? integerString(a) : a));
  const declared = LUA_SCRIPTS[id].keys;
  if (declared !== null && declared !== keys.length) {
    throw new Error(`script ${id} takes ${declared} keys, got ${keys.length}`);
  }
  return declared === null ? fn.call(redis, keys.length, ...keys, ...wire) : fn.call(redis, ...keys, ...wire);
}

/** Java's `Long.toString` for the values we send: no fraction, no exponent. */
function integerString(n: number): string {
  if (!Number.isSafeInteger(n)) throw new RangeError(`script argument must be a safe integer, got ${n}`);
  return String(n);
}

/** Whether a command whose reply was lost may be sent again. */
export type RetryPolicy = 'never' | 'idempotent';

interface InFlight {
  written: boolean;
  reject: (error: Error) => void;
  timer: NodeJS.Timeout | undefined;
  /** Writes the command (deferred while the connection is not ready). */
  send: (() => void) | null;
  /** Reconnect attempts seen while waiting for the connection. */
  reconnects: number;
}

/** ioredis' message for a command refused because the connection is not writable (no offline queue). */
const NOT_WRITABLE = "Stream isn't writeable and enableOfflineQueue options is false";

/** ioredis' message for a command rejected because the connection was closed or given up. */
const CONNECTION_CLOSED = 'Connection is closed.';

/**
 * Sends the primitives' commands on a connection created with `autoResendUnfulfilledCommands: false`, so a
 * command whose reply was lost to a dropped socket is never replayed behind our back (Redisson sends its
 * acquire scripts "no retry": `HINCRBY` must not count twice). ioredis 5 then drops such a command without
 * settling it; this executor rejects it with {@link ConnectionLostError} instead, so nothing hangs.
 * Nor does a command wait in ioredis' offline queue: it is handed to ioredis only while the connection is
 * ready (it waits for that here, at most `timeout` ms, then fails with {@link RedisConnectionError} — it never
 * ran, and it is not sent later behind the caller's back). A written command unanswered within `timeout` fails with
 * {@link RedisTimeoutError}: it may have run, like one whose connection dropped.
 *
 * It also knows every command in flight, fire-and-forget ones included, so that shutdown can let them all
 * finish before it closes the socket: a command written after QUIT makes Redis reset the connection, and
 * the reset throws away replies the client has not read yet.
 */
export class CommandExecutor {
  readonly #inflight = new Set<InFlight>();
  #closing = false;
  // Resolved (and cleared) when the last command in flight settles; only made while draining.
  #idle: DeferredPromise<void> | null = null;
  readonly #onClose = (): void => {
    for (const entry of this.#inflight) {
      if (entry.written && this.#settle(entry)) entry.reject(new ConnectionLostError());
    }
  };
  // Commands waiting for the connection to be ready, in call order.
  readonly #waiting: InFlight[] = [];
  readonly #onReady = (): void => {
    for (const entry of this.#waiting.splice(0)) entry.send?.();
  };
  // ioredis' `maxRetriesPerRequest`: a command waiting for the connection fails after that many reconnect
  // attempts (as ioredis would fail it in its offline queue), or at `timeout`, whichever comes first.
  readonly #onReconnecting = (): void => {
    const max = (this.redis.options as { maxRetriesPerRequest?: number | null }).maxRetriesPerRequest;
    if (typeof max !== 'number') return;
    for (const entry of [...this.#waiting]) if (++entry.reconnects > max) this.#expire(entry);
  };
  #lastError: unknown;
  readonly #onError = (error: unknown): void => {
    this.#lastError = error;
  };

  // Replicas per master (`host:port` in a cluster, '' otherwise), from `INFO replication`: Redisson's cached
  // `availableSlaves`. Forgotten when a WAIT answers another count, or a slot moved.
  readonly #replicas = new Map<string, number>();
  // The publish command a cluster client settles on (sharded or not) once its probe answered.
  #publishCommand: (() => Promise<string>) | null = null;

  /**
   * @param redis a connection with `autoResendUnfulfilledCommands: false`.
   * @param retryAttempts how often an `'idempotent'` script is re-sent after its reply was lost.
   * @param timeoutMs Redisson's `timeout`: how long a command waits for the connection, then for its reply.
   */
  constructor(
    readonly redis: RedisConnection,
    private readonly retryAttempts = 0,
    private readonly timeoutMs = 3_000,
    /** Confirmation by replicas (`WAIT`), or null on a single server. */
    readonly sync: SyncPolicy | null = null,
  ) {
    defineScripts(redis);
    redis.on('close', this.#onClose);
    redis.on('ready', this.#onReady);
    redis.on('error', this.#onError);
    redis.on('reconnecting', this.#onReconnecting);
  }

  /**
   * How to resolve {@link PUBLISH_COMMAND_PENDING} in script arguments (a cluster client whose AUTO probe has
   * not answered yet): the executor waits for it before sending such a script.
   */
  resolvePublishWith(resolve: () => Promise<string>): void {
    this.#publishCommand = resolve;
  }

  /** Number of commands sent and not yet settled. */
  get inflight(): number {
    return this.#inflight.size;
  }

  /**
   * Runs `send` on the connection once it is ready. Rejects with `RedisConnectionError` when it does not get
   * ready within `timeout`, with `ConnectionLostError` when the socket drops after writing the command, and
   * with `RedisTimeoutError` when no reply comes within `timeout`.
   */
  run<T>(send: (redis: RedisConnection) => Promise<T>, extraMs = 0): Promise<T> {
    const d = pDefer<T>();
    const entry: InFlight = { written: false, reject: d.reject, timer: undefined, send: null, reconnects: 0 };
    this.#inflight.add(entry);
    entry.timer = setTimeout(() => this.#expire(entry), this.timeoutMs + extraMs);
    entry.send = () => {
      entry.send = null;
      if (!this.#inflight.has(entry)) return;
      entry.written = true;
      send(this.redis).then(
        (value) => this.#settle(entry) && d.resolve(value),
        (error: unknown) => this.#settle(entry) && d.reject(this.#typed(error)),
      );
    };
    const status = this.redis.status;
    if (status === 'ready') entry.send();
    // A connection that gave up reconnecting (or was closed) will not become ready: fail now.
    else if (status === 'end') this.#expire(entry);
    else this.#waiting.push(entry);
    return d.promise;
  }

  /** `timeout` passed: the connection never got ready for it, or its reply never came. */
  #expire(entry: InFlight): void {
    if (!this.#settle(entry)) return;
    if (!entry.written) {
      const i = this.#waiting.indexOf(entry);
      if (i >= 0) this.#waiting.splice(i, 1);
      entry.reject(this.#connectionError());
    } else {
      entry.reject(new RedisTimeoutError(`no reply from Redis at ${this.address} within ${this.timeoutMs} ms (timeout); whether the command ran is unknown`));
    }
  }

  /** `host:port` (or socket path) of the connection, for error messages. */
  get address(): string {
    if (isClusterInstance(this.redis)) {
      const nodes = (this.redis as unknown as { startupNodes?: { host?: string; port?: number }[] }).startupNodes ?? [];
      return `cluster ${nodes.map((n) => `${n.host ?? '127.0.0.1'}:${n.port ?? 6379}`).join(',')}`;
    }
    const o = this.redis.options as { host?: string; port?: number; path?: string };
    return o.path ?? `${o.host ?? '127.0.0.1'}:${o.port ?? 6379}`;
  }

  #connectionError(): RedisConnectionError {
    return new RedisConnectionError(this.address, this.timeoutMs, this.#lastError);
  }

  /**
   * {@link evalScript} through {@link run}. `retry: 'never'` (acquire scripts: not idempotent) surfaces a
   * lost reply as `ConnectionLostError`; `'idempotent'` (an unlock whose latch answers a second run, a
   * renewal) re-sends it, up to `retryAttempts` times, on the reconnected socket.
   */
  async eval(id: LuaScriptId, keys: readonly string[], given: readonly ScriptArg[], retry: RetryPolicy = 'never', undo?: SyncUndo): Promise<unknown> {
    const args = given.includes(PUBLISH_COMMAND_PENDING) ? await this.#withPublishCommand(given) : given;
    const sync = this.sync;
    if (sync === null || UNSYNCED_SCRIPTS.has(id)) return this.#resent(retry, () => this.run((redis) => evalScript(redis, id, keys, args)));
    // Redisson's synced execution with `ServiceManager.execute` around it: a write its replicas did not
    // confirm is undone (`handleNoSync`) and tried again, `retryAttempts` times, `retryDelay` apart.
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.#resent(retry, () => this.#synced(id, keys, args, sync));
      } catch (error) {
        if (!(error instanceof UnsyncedWrite)) throw error;
        const undone = undo?.(error.reply);
        if (undone) await undone.catch(() => undefined);
        if (attempt >= this.retryAttempts) throw error.typed;
        await new Promise((resolve) => setTimeout(resolve, retryDelay(attempt)));
      }
    }
  }

  async #withPublishCommand(args: readonly ScriptArg[]): Promise<ScriptArg[]> {
    if (this.#publishCommand === null) throw new Error('a script names a pending publish command, but nothing resolves it');
    const command = await this.#publishCommand();
    return args.map((a) => (a === PUBLISH_COMMAND_PENDING ? command : a));
  }

  /** `send`, re-sent after a lost reply when `retry` allows it. */
  async #resent<T>(retry: RetryPolicy, send: () => Promise<T>): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await send();
      } catch (error) {
        const unknownOutcome = error instanceof ConnectionLostError || error instanceof RedisTimeoutError;
        if (retry === 'never' || !unknownOutcome || attempt >= this.retryAttempts) throw error;
      }
    }
  }

  /**
   * The script and `WAIT <replicas> <slavesSyncTimeout>` pipelined (not MULTI), as Redisson sends them; no
   * `WAIT` while the master has no replicas. A count that differs from the cached one is asked again next
   * time. Throws {@link UnsyncedWrite} (with the script's reply) when no replica confirmed and
   * `checkLockSyncedSlaves` is on.
   */
  async #synced(id: LuaScriptId, keys: readonly string[], args: readonly ScriptArg[], sync: SyncPolicy): Promise<unknown> {
    for (let redirects = 0; ; redirects++) {
      try {
        return await this.#syncedOnce(id, keys, args, sync);
      } catch (error) {
        // A cluster's slot moved (failover, migration): the script did not run. Refresh the slot map and
        // send it again; while a slot is being migrated (ASK), send the script alone — ioredis follows the
        // redirection — without a WAIT behind it.
        const redirect = error instanceof Error && error.name === 'ReplyError' ? /^(MOVED|ASK) /.exec(error.message)?.[1] : undefined;
        if (redirect === undefined || !isClusterInstance(this.redis) || redirects >= 5) throw error;
        if (redirect === 'ASK') return this.run((redis) => evalScript(redis, id, keys, args));
        const cluster = this.redis;
        await new Promise<void>((resolve) => cluster.refreshSlotsCache(() => resolve()));
        this.#replicas.clear();
      }
    }
  }

  async #syncedOnce(id: LuaScriptId, keys: readonly string[], args: readonly ScriptArg[], sync: SyncPolicy): Promise<unknown> {
    const replicas = await this.#replicaCount(keys[0]);
    if (replicas === 0) return this.run((redis) => evalScript(redis, id, keys, args));
    const [reply, synced] = await this.run(async (redis) => {
      const pipeline = (redis as Redis).pipeline();
      void evalScript(pipeline, id, keys, args);
      pipeline.call('WAIT', String(replicas), String(sync.slavesSyncTimeout));
      const results = (await pipeline.exec()) ?? [];
      const [script, wait] = [results[0] ?? [null, null], results[1] ?? [null, 0]];
      if (script[0] instanceof Error) throw script[0];
      if (wait[0] instanceof Error) throw wait[0];
      return [script[1], Number(wait[1])] as const;
    }, sync.slavesSyncTimeout);
    if (synced !== replicas) this.#replicas.clear();
    if (sync.checkLockSyncedSlaves && synced === 0) throw new UnsyncedWrite(reply, new NoSyncedSlavesError(replicas, synced, sync.slavesSyncTimeout));
    return reply;
  }

  async #replicaCount(key: string | undefined): Promise<number> {
    // In a cluster, the master that owns the key's slot (ioredis' slot map names it); else the one master.
    const cluster = isClusterInstance(this.redis) ? this.redis : null;
    const master = cluster ? cluster.slots[keySlot((cluster.options.keyPrefix ?? '') + (key ?? ''))]?.[0] : '';
    if (master === undefined) return 0;
    const cached = this.#replicas.get(master);
    if (cached !== undefined) return cached;
    const node = cluster ? cluster.nodes('master').find((n) => `${n.options.host ?? ''}:${n.options.port ?? ''}` === master) : (this.redis as Redis);
    if (node === undefined) return 0;
    const info = await this.run<string>(() => node.info('replication'));
    const count = Number(/^connected_slaves:(\d+)/m.exec(info)?.[1] ?? 0);
    this.#replicas.set(master, count);
    return count;
  }


  /** Any Redis command by name (`HGET`, `PTTL`, …), keys prefixed as ioredis does. Never re-sent. */
  command(name: string, ...args: ScriptArg[]): Promise<unknown> {
    return this.run((redis) => redis.call(name, ...args));
  }

  /** Sends a command whose reply nobody waits for (as Redisson's latch DEL); shutdown still waits for it. */
  fireAndForget(name: string, ...args: ScriptArg[]): void {
    this.command(name, ...args).catch(() => undefined);
  }

  /**
   * Resolves once no command is in flight — including commands sent by the continuations of those that
   * settle meanwhile — or at `deadline` (a `performance.now()` value), whichever comes first.
   */
  async drain(deadline: number): Promise<void> {
    this.#closing = true;
    for (;;) {
      // Continuations of settled commands (an unlock's latch DEL) run before the next macrotask.
      await new Promise((resolve) => setImmediate(resolve));
      if (this.#inflight.size === 0) return;
      const left = deadline - performance.now();
      if (left <= 0) return;
      this.#idle ??= pDefer<void>();
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([this.#idle.promise, new Promise((resolve) => (timer = setTimeout(resolve, left)))]);
      clearTimeout(timer);
    }
  }

  /** Forgets `entry`; true when it was still in flight (so its promise is settled exactly once). */
  #settle(entry: InFlight): boolean {
    if (!this.#inflight.delete(entry)) return false;
    clearTimeout(entry.timer);
    if (this.#inflight.size === 0 && this.#idle) {
      this.#idle.resolve();
      this.#idle = null;
    }
    return true;
  }

  /** Stops watching the connection (on shutdown). */
  dispose(): void {
    this.redis.off('close', this.#onClose);
    this.redis.off('ready', this.#onReady);
    this.redis.off('error', this.#onError);
    this.redis.off('reconnecting', this.#onReconnecting);
  }

  /** ioredis rejects queued commands with a bare Error when the connection is closed: say what it means. */
  #typed(error: unknown): Error {
    if (error instanceof Error && error.message === NOT_WRITABLE) return this.#connectionError();
    // A closed connection, or ioredis' Cluster giving up on a node that went away (a master failing over):
    // whether the command ran is unknown.
    const closed = error instanceof Error && (error.message === CONNECTION_CLOSED || error.message.startsWith('Too many Cluster redirections'));
    if (!closed) return error as Error;
    return this.#closing
      ? new RedissonShutdownError('Redisson client was shut down before the command completed', { cause: error })
      : new ConnectionLostError(undefined, { cause: error });
  }
}
