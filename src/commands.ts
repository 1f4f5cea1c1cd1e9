/**
 * The narrow command layer between the primitives and ioredis. Every Lua script in `lua/` is registered
 * once per connection with ioredis `defineCommand` (EVAL on first use per socket, EVALSHA after, with
 * NOSCRIPT fallback), and every command the primitives send goes through a {@link CommandExecutor}.
 */
import type { Cluster, Redis } from 'ioredis';
import pDefer, { type DeferredPromise } from 'p-defer';
import { ConnectionLostError, RedisConnectionError, RedisTimeoutError, RedissonShutdownError } from './errors.js';
import { LUA_SCRIPTS, type LuaScriptId } from './generated/lua.js';

/** What the primitives need of a connection: a standalone `Redis` now, `Cluster` through the same surface later. */
export type RedisConnection = Redis | Cluster;

type ScriptArg = string | number | Buffer;
type ScriptFn = (...args: ScriptArg[]) => Promise<unknown>;

function commandName(id: LuaScriptId): string {
  return `redissonTs_${id.replace(/\//g, '_')}`;
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

/** Runs script `id` with `keys` and `args`; numbers must be integers and go as plain decimal strings. */
export function evalScript(redis: RedisConnection, id: LuaScriptId, keys: readonly string[], args: readonly ScriptArg[]): Promise<unknown> {
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

  /**
   * @param redis a connection with `autoResendUnfulfilledCommands: false`.
   * @param retryAttempts how often an `'idempotent'` script is re-sent after its reply was lost.
   * @param timeoutMs Redisson's `timeout`: how long a command waits for the connection, then for its reply.
   */
  constructor(
    readonly redis: RedisConnection,
    private readonly retryAttempts = 0,
    private readonly timeoutMs = 3_000,
  ) {
    defineScripts(redis);
    redis.on('close', this.#onClose);
    redis.on('ready', this.#onReady);
    redis.on('error', this.#onError);
    redis.on('reconnecting', this.#onReconnecting);
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
  run<T>(send: (redis: RedisConnection) => Promise<T>): Promise<T> {
    const d = pDefer<T>();
    const entry: InFlight = { written: false, reject: d.reject, timer: undefined, send: null, reconnects: 0 };
    this.#inflight.add(entry);
    entry.timer = setTimeout(() => this.#expire(entry), this.timeoutMs);
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
  async eval(id: LuaScriptId, keys: readonly string[], args: readonly ScriptArg[], retry: RetryPolicy = 'never'): Promise<unknown> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.run((redis) => evalScript(redis, id, keys, args));
      } catch (error) {
        const unknownOutcome = error instanceof ConnectionLostError || error instanceof RedisTimeoutError;
        if (retry === 'never' || !unknownOutcome || attempt >= this.retryAttempts) throw error;
      }
    }
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
    if (!(error instanceof Error) || error.message !== CONNECTION_CLOSED) return error as Error;
    return this.#closing
      ? new RedissonShutdownError('Redisson client was shut down before the command completed', { cause: error })
      : new ConnectionLostError(undefined, { cause: error });
  }
}
