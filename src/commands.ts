/**
 * The narrow command layer between the primitives and ioredis. Every Lua script in `lua/` is registered
 * once per connection with ioredis `defineCommand` (EVAL on first use per socket, EVALSHA after, with
 * NOSCRIPT fallback), and every command the primitives send goes through a {@link CommandExecutor}.
 */
import type { Cluster, Redis } from 'ioredis';
import pDefer, { type DeferredPromise } from 'p-defer';
import { ConnectionLostError, RedissonShutdownError } from './errors.js';
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
}

/** ioredis' message for a command rejected because the connection was closed or given up. */
const CONNECTION_CLOSED = 'Connection is closed.';

/**
 * Sends the primitives' commands on a connection created with `autoResendUnfulfilledCommands: false`, so a
 * command whose reply was lost to a dropped socket is never replayed behind our back (Redisson sends its
 * acquire scripts "no retry": `HINCRBY` must not count twice). ioredis 5 then drops such a command without
 * settling it; this executor rejects it with {@link ConnectionLostError} instead, so nothing hangs.
 * A command still in ioredis' offline queue (not yet written) is left to ioredis, which sends it on reconnect.
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
  // On (re)connect ioredis writes its offline queue: from then on those commands are on the wire.
  readonly #onReady = (): void => {
    for (const entry of this.#inflight) entry.written = true;
  };

  constructor(
    readonly redis: RedisConnection,
    private readonly retryAttempts = 0,
  ) {
    defineScripts(redis);
    redis.on('close', this.#onClose);
    redis.on('ready', this.#onReady);
  }

  /** Number of commands sent and not yet settled. */
  get inflight(): number {
    return this.#inflight.size;
  }

  /** Runs `send` on the connection, rejecting with `ConnectionLostError` if the socket drops after writing it. */
  run<T>(send: (redis: RedisConnection) => Promise<T>): Promise<T> {
    const d = pDefer<T>();
    const entry: InFlight = { written: this.redis.status === 'ready', reject: d.reject };
    this.#inflight.add(entry);
    send(this.redis).then(
      (value) => this.#settle(entry) && d.resolve(value),
      (error: unknown) => this.#settle(entry) && d.reject(this.#typed(error)),
    );
    return d.promise;
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
        if (retry === 'never' || !(error instanceof ConnectionLostError) || attempt >= this.retryAttempts) throw error;
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
  }

  /** ioredis rejects queued commands with a bare Error when the connection is closed: say what it means. */
  #typed(error: unknown): Error {
    if (!(error instanceof Error) || error.message !== CONNECTION_CLOSED) return error as Error;
    return this.#closing
      ? new RedissonShutdownError('Redisson client was shut down before the command completed', { cause: error })
      : new ConnectionLostError(undefined, { cause: error });
  }
}
