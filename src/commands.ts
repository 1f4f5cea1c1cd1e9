/**
 * The narrow command layer between the primitives and ioredis. Every Lua script in `lua/` is registered
 * once per connection with ioredis `defineCommand` (EVAL on first use per socket, EVALSHA after, with
 * NOSCRIPT fallback), and every command the primitives send goes through a {@link CommandExecutor}.
 */
import type { ChainableCommander, Cluster, Redis } from 'ioredis';
import pDefer, { type DeferredPromise } from 'p-defer';
import { ArgumentRangeError, ConnectionLostError, IllegalStateError, NoSyncedSlavesError, RedisConnectionError, RedissonShutdownError, RedisTimeoutError } from './errors.js';
import { LUA_SCRIPTS, type LuaScriptId } from './generated/lua.js';
import { isClusterInstance, keySlot } from './cluster.js';
import { retryDelay } from './config.js';
import { PUBLISH_COMMAND_PENDING } from './pubsub/PublishSubscribe.js';

/** What the primitives need of a connection: a standalone `Redis` now, `Cluster` through the same surface later. */
export type RedisConnection = Redis | Cluster;

type ScriptArg = string | number | Buffer;
type ScriptFn = (...args: ScriptArg[]) => Promise<unknown>;

// Per script id, made once: every command sent looks its name up.
const COMMAND_NAMES = new Map<LuaScriptId, string>();

function commandName(id: LuaScriptId): string {
  let name = COMMAND_NAMES.get(id);
  if (name === undefined) COMMAND_NAMES.set(id, (name = `redissonTs_${id.replace(/\//g, '_')}`));
  return name;
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
  if (fn === undefined) throw new IllegalStateError(`script ${id} is not defined on this connection`);
  const declared = LUA_SCRIPTS[id].keys;
  if (declared !== null && declared !== keys.length) {
    throw new IllegalStateError(`script ${id} takes ${declared} keys, got ${keys.length}`);
  }
  // One array, filled in place and applied (no map, no spreads): this runs for every script sent.
  const argv: ScriptArg[] = declared === null ? [keys.length] : [];
  for (const key of keys) argv.push(key);
  for (const a of args) argv.push(typeof a === 'number' ? integerString(a) : a);
  return fn.apply(redis, argv);
}

/** Java's `Long.toString` for the values we send: no fraction, no exponent. */
function integerString(n: number): string {
  if (!Number.isSafeInteger(n)) throw new ArgumentRangeError(`script argument must be a safe integer, got ${n}`);
  return String(n);
}

/** Whether a command whose reply was lost may be sent again. */
export type RetryPolicy = 'never' | 'idempotent';

interface InFlight {
  written: boolean;
  reject: (error: Error) => void;
  /** Writes the command (deferred while the connection is not ready). */
  send: (() => void) | null;
  /** Reconnect attempts seen while waiting for the connection. */
  reconnects: number;
  /** When the call was made (`performance.now()`), for the time its error reports. */
  readonly started: number;
  /** The reply timer's length: `timeout` plus the command's own allowance (a `WAIT`'s). */
  readonly limitMs: number;
}

/** What ended a command's wait for the connection, for {@link RedisConnectionError}'s message. */
type GaveUp = 'timeout' | 'retries' | 'closed';

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
  // One timer for every command's deadline (a timer per command created and removed a timer list per
  // command): set for the earliest deadline in flight, unref'd while nothing is in flight.
  #sweep: NodeJS.Timeout | null = null;
  #sweepAt = Infinity;
  readonly #onSweep = (): void => {
    this.#sweep = null;
    this.#sweepAt = Infinity;
    const now = performance.now();
    let next = Infinity;
    for (const entry of [...this.#inflight]) {
      const at = entry.started + entry.limitMs;
      if (at <= now) this.#expire(entry, 'timeout');
      else next = Math.min(next, at);
    }
    if (next !== Infinity) this.#armSweep(next);
  };
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
    if (this.#admits()) for (const entry of this.#waiting.splice(0)) entry.send?.();
  };
  // Whether a command may be written now that the connection is ready: a Sentinel client holds commands while
  // it moves to a new master (see `admitWhen`).
  #admits: () => boolean = () => true;
  // ioredis' `maxRetriesPerRequest`: a command waiting for the connection fails after that many reconnect
  // attempts (as ioredis would fail it in its offline queue), or at `timeout`, whichever comes first.
  readonly #onReconnecting = (): void => {
    const max = (this.redis.options as { maxRetriesPerRequest?: number | null }).maxRetriesPerRequest;
    if (typeof max !== 'number') return;
    for (const entry of [...this.#waiting]) if (++entry.reconnects > max) this.#expire(entry, 'retries');
  };
  // ioredis gave up reconnecting (`retryStrategy` returned no delay): commands waiting for it fail now.
  readonly #onEnd = (): void => {
    for (const entry of [...this.#waiting]) this.#expire(entry, 'closed');
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
    redis.on('end', this.#onEnd);
  }

  /**
   * How to resolve {@link PUBLISH_COMMAND_PENDING} in script arguments (a cluster client whose AUTO probe has
   * not answered yet): the executor waits for it before sending such a script.
   */
  resolvePublishWith(resolve: () => Promise<string>): void {
    this.#publishCommand = resolve;
  }

  /**
   * Holds every command (waiting as for a connection that is not ready, at most `timeout`) while `admits`
   * answers false, even on a ready connection: a Sentinel client does not write to a master it knows was
   * demoted. Call {@link admit} when it turns true.
   */
  admitWhen(admits: () => boolean): void {
    this.#admits = admits;
  }

  /** Sends the held commands, in call order, when the connection is ready and admits them. */
  admit(): void {
    if (this.redis.status === 'ready') this.#onReady();
  }

  /** Calls `listener` on every MOVED reply this executor sees (a cluster's slot changed master). */
  onMoved(listener: () => void): void {
    this.#onMoved = listener;
  }

  #onMoved: () => void = () => undefined;

  /** Forgets the cached replica counts (the master changed): the next synced write asks `INFO replication`. */
  forgetReplicas(): void {
    this.#replicas.clear();
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
    const limitMs = this.timeoutMs + extraMs;
    const entry: InFlight = { written: false, reject: d.reject, send: null, reconnects: 0, started: performance.now(), limitMs };
    this.#inflight.add(entry);
    this.#armSweep(entry.started + limitMs);
    entry.send = () => {
      entry.send = null;
      if (!this.#inflight.has(entry)) return;
      entry.written = true;
      send(this.redis).then(
        (value) => this.#settle(entry) && d.resolve(value),
        (error: unknown) => this.#settle(entry) && d.reject(this.#typed(error, entry)),
      );
    };
    const status = this.redis.status;
    if (status === 'ready' && this.#admits()) entry.send();
    // A connection that gave up reconnecting (or was closed) will not become ready: fail now.
    else if (status === 'end') this.#expire(entry, 'closed');
    else this.#waiting.push(entry);
    return d.promise;
  }

  /** Makes the deadline timer fire by `at` (a `performance.now()` value), and keep the process alive meanwhile. */
  #armSweep(at: number): void {
    if (this.#sweep !== null) {
      if (at >= this.#sweepAt) {
        this.#sweep.ref();
        return;
      }
      clearTimeout(this.#sweep);
    }
    this.#sweepAt = at;
    this.#sweep = setTimeout(this.#onSweep, Math.max(1, Math.ceil(at - performance.now())));
  }

  /**
   * The connection never got ready for it (by `timeout`, after `maxRetriesPerRequest` reconnect attempts, or
   * because it closed for good), or its reply never came within `timeout`.
   */
  #expire(entry: InFlight, why: GaveUp): void {
    if (!this.#settle(entry)) return;
    if (!entry.written) {
      const i = this.#waiting.indexOf(entry);
      if (i >= 0) this.#waiting.splice(i, 1);
      entry.reject(this.#connectionError(entry, why));
    } else {
      const extra = entry.limitMs - this.timeoutMs;
      const limit = `timeout ${this.timeoutMs} ms${extra > 0 ? ` + ${extra} ms for WAIT` : ''}`;
      entry.reject(new RedisTimeoutError(`no reply from Redis at ${this.address}: gave up after ${elapsed(entry)} ms (${limit}); whether the command ran is unknown`));
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

  #connectionError(entry: InFlight, why: GaveUp | 'not writable'): RedisConnectionError {
    const max = (this.redis.options as { maxRetriesPerRequest?: number | null }).maxRetriesPerRequest;
    const limit =
      why === 'timeout'
        ? `timeout ${this.timeoutMs} ms`
        : why === 'retries'
          ? `ioredis maxRetriesPerRequest ${String(max)} exceeded: ${entry.reconnects} reconnect attempts, before timeout ${this.timeoutMs} ms`
          : why === 'closed'
            ? 'the connection closed for good: ioredis retryStrategy gave up, or it was disconnected'
            : 'the connection was not writable';
    return new RedisConnectionError(this.address, { elapsedMs: elapsed(entry), limit }, this.#lastError);
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
    if (this.#publishCommand === null) throw new IllegalStateError('a script names a pending publish command, but nothing resolves it');
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
        this.#onMoved();
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
    // Nothing in flight: the deadline timer no longer keeps the process alive (it fires for nothing, once).
    if (this.#inflight.size === 0) this.#sweep?.unref();
    if (this.#inflight.size === 0 && this.#idle) {
      this.#idle.resolve();
      this.#idle = null;
    }
    return true;
  }

  /**
   * Stops watching the connection (on shutdown, after {@link drain}). A command still in flight will not be
   * answered before the socket closes: it fails now, and its timer goes with it.
   */
  dispose(): void {
    this.#waiting.length = 0;
    for (const entry of [...this.#inflight]) {
      if (this.#settle(entry)) entry.reject(new RedissonShutdownError('Redisson client was shut down before the command completed'));
    }
    if (this.#sweep !== null) clearTimeout(this.#sweep);
    this.#sweep = null;
    this.redis.off('close', this.#onClose);
    this.redis.off('ready', this.#onReady);
    this.redis.off('error', this.#onError);
    this.redis.off('reconnecting', this.#onReconnecting);
    this.redis.off('end', this.#onEnd);
  }

  /** ioredis rejects queued commands with a bare Error when the connection is closed: say what it means. */
  #typed(error: unknown, entry: InFlight): Error {
    if (error instanceof Error && error.message === NOT_WRITABLE) return this.#connectionError(entry, 'not writable');
    // A closed connection, or ioredis' Cluster giving up on a node that went away (a master failing over):
    // whether the command ran is unknown.
    // So is ioredis' `AbortError`: a command its node connection's close aborted (a pipelined command whose
    // predecessors were answered; on a Cluster, whose object emits no `close` of its own for one node).
    const closed =
      error instanceof Error &&
      (error.message === CONNECTION_CLOSED || error.message.startsWith('Too many Cluster redirections') || error.name === 'AbortError');
    if (!closed) return error as Error;
    return this.#closing
      ? new RedissonShutdownError('Redisson client was shut down before the command completed', { cause: error })
      : new ConnectionLostError(undefined, { cause: error });
  }
}

/** Milliseconds since `entry`'s call was made, rounded. */
function elapsed(entry: InFlight): number {
  return Math.round(performance.now() - entry.started);
}
