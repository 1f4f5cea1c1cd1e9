/**
 * The command executor: every command the primitives send goes through it, whatever the driver. It owns the
 * retry policy (no blind replays), the wait for a ready connection, the reply timeout, draining on shutdown,
 * Redisson's synced writes (`WAIT` pipelined after a script, MOVED/ASK followed) and the publish command of
 * scripts that publish. It talks to the client library only through {@link CommandConnection}.
 */
import pDefer, { type DeferredPromise } from 'p-defer';
import { ConnectionLostError, IllegalStateError, NoSyncedSlavesError, RedisConnectionError, RedissonShutdownError, RedisTimeoutError } from '../errors.js';
import { LUA_SCRIPTS, type LuaScriptId } from '../generated/lua.js';
import { delayOf, retryDelay } from '../config.js';
import type { DelayStrategy } from '../DelayStrategy.js';
import { classify, redirection } from './classify.js';
import type { CommandArg, CommandConnection } from './driver.js';
import { KeptSet } from '../kept.js';

/** A script argument as the primitives give it: numbers must be safe integers (sent as plain decimals). */
export type ScriptArg = string | number | Buffer;

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
  /** The delay before each retry of an undone write (Redisson's `retryDelay`); Redisson's default when absent. */
  readonly retryDelay?: DelayStrategy;
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

/** Whether a command whose reply was lost may be sent again. */
export type RetryPolicy = 'never' | 'idempotent';

interface InFlight {
  written: boolean;
  readonly resolve: (value: unknown) => void;
  readonly reject: (error: Error) => void;
  /** What writes the command, until it is written (deferred while the connection is not ready). */
  send: ((connection: CommandConnection) => Promise<unknown>) | null;
  /** Reconnect attempts seen while waiting for the connection. */
  reconnects: number;
  /** When the call was made (`performance.now()`), for the time its error reports. */
  readonly started: number;
  /** The reply timer's length: `timeout` plus the command's own allowance (a `WAIT`'s). */
  readonly limitMs: number;
}

/** What ended a command's wait for the connection, for {@link RedisConnectionError}'s message. */
type GaveUp = 'timeout' | 'retries' | 'closed';

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
  // Kept: it goes from one command to none on nearly every command (see KeptSet).
  readonly #inflight = new KeptSet<InFlight>();
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
    if (this.#admits()) for (const entry of this.#waiting.splice(0)) this.#write(entry);
  };
  // Whether a command may be written now that the connection is ready: a Sentinel client holds commands while
  // it moves to a new master (see `admitWhen`).
  #admits: () => boolean = () => true;
  // ioredis' `maxRetriesPerRequest`: a command waiting for the connection fails after that many reconnect
  // attempts (as ioredis would fail it in its offline queue), or at `timeout`, whichever comes first.
  readonly #onReconnecting = (): void => {
    const max = this.connection.maxRetriesPerRequest;
    if (max === null) return;
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

  /**
   * @param connection the driver's command connection (it never re-sends a command whose reply was lost).
   * @param retryAttempts how often an `'idempotent'` script is re-sent after its reply was lost.
   * @param timeoutMs Redisson's `timeout`: how long a command waits for the connection, then for its reply.
   */
  constructor(
    readonly connection: CommandConnection,
    private readonly retryAttempts = 0,
    private readonly timeoutMs = 3_000,
    /** Confirmation by replicas (`WAIT`), or null on a single server. */
    readonly sync: SyncPolicy | null = null,
    /**
     * The deployment's publish command (PUBLISH, or SPUBLISH with sharded pub/sub; a promise while a cluster's
     * probe has not answered): put in place of the publish argument of every script that publishes.
     */
    private readonly publishCommand: () => string | Promise<string> = () => 'PUBLISH',
  ) {
    connection.on('close', this.#onClose);
    connection.on('ready', this.#onReady);
    connection.on('error', this.#onError);
    connection.on('reconnecting', this.#onReconnecting);
    connection.on('end', this.#onEnd);
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
    if (this.connection.status === 'ready') this.#onReady();
  }

  /** Calls `listener` on every MOVED reply this executor sees (a cluster's slot changed master). */
  onMoved(listener: () => void): void {
    this.#onMoved = listener;
  }

  #onMoved: () => void = () => undefined;

  /**
   * Calls `recheck` when a command is refused with `READONLY` (the master it was sent to was demoted) and sends
   * the command again once it resolves, up to `retryAttempts` times (at least once): a `READONLY` refusal means
   * the command did not run — a script fails on its first write, before anything changed — so sending it
   * again is safe. A replicated client's re-check looks for the new master at once instead of at its next scan.
   */
  onReadOnly(recheck: () => Promise<void>): void {
    this.#recheck = recheck;
  }

  #recheck: (() => Promise<void>) | null = null;

  /**
   * {@link run}, sent again after a `READONLY` refusal once the topology was re-checked (see {@link onReadOnly});
   * {@link run} itself where nothing re-checks (no async layer per command: issue 29).
   */
  #send<T>(send: (connection: CommandConnection) => Promise<T>, extraMs = 0): Promise<T> {
    return this.#recheck === null ? this.run(send, extraMs) : this.#sendRechecked(send, this.#recheck, extraMs);
  }

  async #sendRechecked<T>(send: (connection: CommandConnection) => Promise<T>, recheck: () => Promise<void>, extraMs: number): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.run(send, extraMs);
      } catch (error) {
        const refused = classify(error);
        if (refused.kind !== 'reply' || refused.code !== 'READONLY' || attempt >= Math.max(1, this.retryAttempts)) throw error;
        await recheck();
      }
    }
  }

  /**
   * Whether a `PUBLISH` inside a script counts every client its message reaches, as direct handoff needs
   * (issue 29): not in a cluster with classic pub/sub, whose `PUBLISH` also reaches clients subscribed on the
   * other nodes, which the executing node does not count. (Replicas are checked by the script itself.)
   */
  countsEverySubscriber(): boolean {
    if (!this.connection.clustered) return true;
    const command = this.publishCommand();
    return typeof command === 'string' && command.toUpperCase() === 'SPUBLISH';
  }

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
  run<T>(send: (connection: CommandConnection) => Promise<T>, extraMs = 0): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const limitMs = this.timeoutMs + extraMs;
      const entry: InFlight = { written: false, resolve: resolve as (value: unknown) => void, reject, send, reconnects: 0, started: performance.now(), limitMs };
      this.#inflight.add(entry);
      this.#armSweep(entry.started + limitMs);
      const status = this.connection.status;
      if (status === 'ready' && this.#admits()) this.#write(entry);
      // A connection that gave up reconnecting (or was closed) will not become ready: fail now.
      else if (status === 'end') this.#expire(entry, 'closed');
      else this.#waiting.push(entry);
    });
  }

  /** Writes `entry`'s command, once, unless it was settled meanwhile (expired while it waited). */
  #write(entry: InFlight): void {
    const send = entry.send;
    entry.send = null;
    if (send === null || !this.#inflight.has(entry)) return;
    entry.written = true;
    send(this.connection).then(
      (value) => this.#settle(entry) && entry.resolve(value),
      (error: unknown) => this.#settle(entry) && entry.reject(this.#typed(error, entry)),
    );
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
    return this.connection.address;
  }

  #connectionError(entry: InFlight, why: GaveUp | 'not writable'): RedisConnectionError {
    const max = this.connection.maxRetriesPerRequest;
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
   * Script `id` through {@link run}; a script that publishes gets the deployment's publish command in its
   * publish argument (callers leave it out). `retry: 'never'` (acquire scripts: not idempotent) surfaces a
   * lost reply as `ConnectionLostError`; `'idempotent'` (an unlock whose latch answers a second run, a
   * renewal) re-sends it, up to `retryAttempts` times, on the reconnected socket.
   */
  eval(id: LuaScriptId, keys: readonly string[], given: readonly ScriptArg[], retry: RetryPolicy = 'never', undo?: SyncUndo): Promise<unknown> {
    let wire: readonly ScriptArg[] | Promise<readonly ScriptArg[]>;
    try {
      wire = this.#withPublish(id, given);
    } catch (error) {
      // #withPublish throws only our own IllegalStateError.
      return Promise.reject(error instanceof Error ? error : new IllegalStateError(String(error)));
    }
    // The common case (a known publish command, no replicas to confirm) without an async layer: issue 29.
    if (!(wire instanceof Promise) && (this.sync === null || UNSYNCED_SCRIPTS.has(id))) return this.#plain(id, keys, wire, retry);
    return this.#evalSlow(id, keys, wire, retry, undo);
  }

  /** Script `id` sent as is (re-sent after a lost reply when `retry` allows it). */
  #plain(id: LuaScriptId, keys: readonly string[], args: readonly ScriptArg[], retry: RetryPolicy): Promise<unknown> {
    const send = (c: CommandConnection): Promise<unknown> => c.evalScript(id, keys, args);
    if (retry === 'never' || this.retryAttempts === 0) return this.#send(send);
    return this.#resent(retry, () => this.#send(send));
  }

  async #evalSlow(id: LuaScriptId, keys: readonly string[], wire: readonly ScriptArg[] | Promise<readonly ScriptArg[]>, retry: RetryPolicy, undo: SyncUndo | undefined): Promise<unknown> {
    const args = wire instanceof Promise ? await wire : wire;
    const sync = this.sync;
    if (sync === null || UNSYNCED_SCRIPTS.has(id)) return this.#plain(id, keys, args, retry);
    // Redisson's synced execution with `ServiceManager.execute` around it: a write its replicas did not
    // confirm is undone (`handleNoSync`) and tried again, `retryAttempts` times, `retryDelay` apart.
    // (`undo` runs its own synced write; a failure of it is not retried, see below.)
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.#resent(retry, () => this.#synced(id, keys, args, sync));
      } catch (error) {
        if (!(error instanceof UnsyncedWrite)) throw error;
        const undone = undo?.(error.reply);
        if (undone) await undone.catch(() => undefined);
        // Sent again only when that is harmless: the write was undone (an acquisition), or running it twice
        // changes nothing (`'idempotent'`). A release or an `addPermits` is not: re-sent, its effect would count
        // twice (Redisson sends a semaphore's release once too: `syncedEvalNoRetry`).
        if (attempt >= this.retryAttempts || (undo === undefined && retry !== 'idempotent')) throw error.typed;
        const delay = sync.retryDelay ? delayOf(sync.retryDelay, attempt) : retryDelay(attempt);
        await new Promise((resolve) => setTimeout(resolve, delay));
      }
    }
  }

  /**
   * Script `id` sent once as a plain command, as Redisson sends its `RedissonObject`/`RedissonExpirable` scripts
   * (`evalWriteAsync`): never followed by `WAIT`, never re-sent.
   */
  evalPlain(id: LuaScriptId, keys: readonly string[], given: readonly ScriptArg[]): Promise<unknown> {
    let wire: readonly ScriptArg[] | Promise<readonly ScriptArg[]>;
    try {
      wire = this.#withPublish(id, given);
    } catch (error) {
      // #withPublish throws only our own IllegalStateError.
      return Promise.reject(error instanceof Error ? error : new IllegalStateError(String(error)));
    }
    if (wire instanceof Promise) return wire.then((args) => this.#send((c) => c.evalScript(id, keys, args)));
    return this.#send((c) => c.evalScript(id, keys, wire));
  }

  /**
   * `given` with the publish command in its place for a script that publishes (once known, for a cluster's
   * probe); `given` itself for any other script (the driver sends numbers as decimals).
   */
  #withPublish(id: LuaScriptId, given: readonly ScriptArg[]): readonly ScriptArg[] | Promise<readonly ScriptArg[]> {
    const at = LUA_SCRIPTS[id].publish;
    if (at === null) return given;
    if (at > given.length) throw new IllegalStateError(`script ${id} takes its publish command as argument ${at + 1}, got ${given.length} arguments before it`);
    const put = (command: string): ScriptArg[] => {
      // One array, filled in place (no slices, no spreads): this runs for every release.
      const args: ScriptArg[] = [];
      for (let i = 0; i < at; i++) args.push(given[i] as ScriptArg);
      args.push(command);
      for (let i = at; i < given.length; i++) args.push(given[i] as ScriptArg);
      return args;
    };
    const command = this.publishCommand();
    return typeof command === 'string' ? put(command) : command.then(put);
  }

  /** `send`, re-sent after a lost reply when `retry` allows it (a chained `catch`, not an async loop: issue 29). */
  #resent<T>(retry: RetryPolicy, send: () => Promise<T>, attempt = 0): Promise<T> {
    return send().catch((error: unknown) => {
      const unknownOutcome = error instanceof ConnectionLostError || error instanceof RedisTimeoutError;
      if (retry === 'never' || !unknownOutcome || attempt >= this.retryAttempts) throw error;
      return this.#resent(retry, send, attempt + 1);
    });
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
        // send it again; while a slot is being migrated (ASK), send the script alone — the driver follows the
        // redirection — without a WAIT behind it.
        const redirect = redirection(error);
        if (redirect === undefined || !this.connection.clustered || redirects >= 5) throw error;
        if (redirect === 'ASK') return this.#send((c) => c.evalScript(id, keys, args));
        this.#onMoved();
        await this.connection.refreshTopology();
        this.#replicas.clear();
      }
    }
  }

  async #syncedOnce(id: LuaScriptId, keys: readonly string[], args: readonly ScriptArg[], sync: SyncPolicy): Promise<unknown> {
    const replicas = await this.#replicaCount(keys[0]);
    if (replicas === 0) return this.#send((c) => c.evalScript(id, keys, args));
    const [reply, synced] = await this.#send((c) => c.evalAndWait(id, keys, args, replicas, sync.slavesSyncTimeout), sync.slavesSyncTimeout);
    if (synced !== replicas) this.#replicas.clear();
    if (sync.checkLockSyncedSlaves && synced === 0) throw new UnsyncedWrite(reply, new NoSyncedSlavesError(replicas, synced, sync.slavesSyncTimeout));
    return reply;
  }

  async #replicaCount(key: string | undefined): Promise<number> {
    // In a cluster, the master that owns the key's slot; else the one master ('').
    let master = this.connection.masterOf(key ?? '');
    const known = master === undefined ? undefined : this.#replicas.get(master);
    if (known !== undefined) return known;
    let ask = master === undefined ? undefined : this.connection.infoOf(master);
    if (ask === undefined && this.connection.clustered) {
      // A cluster client that has not loaded its slot map yet (the first command after create()): a write
      // sent now must still be followed by WAIT, as Redisson's is (it knows the replicas before the first
      // command). Load the map, then look again.
      await this.connection.refreshTopology();
      master = this.connection.masterOf(key ?? '');
      ask = master === undefined ? undefined : this.connection.infoOf(master);
    }
    if (master === undefined || ask === undefined) return 0;
    const cached = this.#replicas.get(master);
    if (cached !== undefined) return cached;
    const info = await this.run<string>(() => ask('replication'));
    const count = Number(/^connected_slaves:(\d+)/m.exec(info)?.[1] ?? 0);
    this.#replicas.set(master, count);
    return count;
  }


  /** Any Redis command by name (`HGET`, `PTTL`, …), keys prefixed as the driver does. Never re-sent. */
  command(name: string, ...args: CommandArg[]): Promise<unknown> {
    return this.#send((c) => c.call(name, ...args));
  }

  /** Sends a command whose reply nobody waits for (as Redisson's latch DEL); shutdown still waits for it. */
  fireAndForget(name: string, ...args: CommandArg[]): void {
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
    this.connection.off('close', this.#onClose);
    this.connection.off('ready', this.#onReady);
    this.connection.off('error', this.#onError);
    this.connection.off('reconnecting', this.#onReconnecting);
    this.connection.off('end', this.#onEnd);
  }

  /** A driver's rejection, as one of our typed errors when it says something about the connection (see `classify`). */
  #typed(error: unknown, entry: InFlight): Error {
    const kind = classify(error).kind;
    if (kind === 'not-writable') return this.#connectionError(entry, 'not writable');
    // The connection closed under the command (or the driver gave its node up): whether it ran is unknown.
    if (kind !== 'closed') return error as Error;
    return this.#closing
      ? new RedissonShutdownError('Redisson client was shut down before the command completed', { cause: error })
      : new ConnectionLostError(undefined, { cause: error });
  }
}

/** Milliseconds since `entry`'s call was made, rounded. */
function elapsed(entry: InFlight): number {
  return Math.round(performance.now() - entry.started);
}
