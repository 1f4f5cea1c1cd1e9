/**
 * The narrow interface between the library and a Redis client library (a "driver"). Everything above
 * `src/connection/` — the command executor's callers, `pubsub/`, `wait/`, `renewal/`, `locks/`, `sync/` —
 * reaches Redis through these shapes; a driver is a folder under `src/connection/` that implements them
 * (see `src/connection/README.md`).
 */
import type { LuaScriptId } from '../generated/lua.js';

/** A script argument: numbers must be safe integers, which the driver sends as plain decimals (`wire.ts`). */
export type WireArg = string | number | Buffer;

/** An argument of a plain command (`HGET`, `PEXPIRE`, …); the driver turns numbers into decimals. */
export type CommandArg = string | number | Buffer;

/**
 * A connection's state, with ioredis' names (`wait` before a lazy connection's first connect, `ready` when
 * commands may be written, `reconnecting` between attempts, `end` once it gave up or was closed for good).
 */
export type ConnectionStatus = 'wait' | 'connecting' | 'connect' | 'ready' | 'reconnecting' | 'close' | 'end' | (string & {});

/** Lifecycle events every driver connection emits. */
export interface ConnectionEvents {
  /** Commands may be written (also after every reconnect). */
  ready: () => void;
  /** The socket closed: commands written and unanswered will never be answered. */
  close: () => void;
  /** The driver gave up reconnecting, or the connection was closed for good. */
  end: () => void;
  /** A connection error, as the driver reports it. */
  error: (error: Error) => void;
  /** A reconnect attempt is scheduled in `delay` ms. */
  reconnecting: (delay: number) => void;
}

/** Subscribing to and unsubscribing from a connection's lifecycle events. */
export interface ConnectionEventSource {
  on<E extends keyof ConnectionEvents>(event: E, listener: ConnectionEvents[E]): void;
  off<E extends keyof ConnectionEvents>(event: E, listener: ConnectionEvents[E]): void;
}

/**
 * The command connection: what {@link CommandExecutor} sends on. It never re-sends a command whose reply was
 * lost, and never queues one while not `ready` (the executor holds commands itself).
 */
export interface CommandConnection extends ConnectionEventSource {
  readonly status: ConnectionStatus;
  /** `host:port`, a socket path, or `cluster h:p,…`: for error messages. */
  readonly address: string;
  /** The prefix the driver puts before every key (ioredis `keyPrefix`), `''` when none. */
  readonly keyPrefix: string;
  /** The database number of a single server or Sentinel master (0 in a cluster). */
  readonly database: number;
  /** Whether this is a Redis Cluster (slots, MOVED/ASK). */
  readonly clustered: boolean;
  /** How many reconnect attempts a command waiting for the connection outlives; null: no limit. */
  readonly maxRetriesPerRequest: number | null;
  /** Runs script `id` (EVALSHA with NOSCRIPT fallback); `keys` are unprefixed, the driver prefixes them. */
  evalScript(id: LuaScriptId, keys: readonly string[], args: readonly WireArg[]): Promise<unknown>;
  /**
   * Script `id` and `WAIT replicas timeoutMs` pipelined (not MULTI) on the connection of the key's master:
   * the script's reply and the number of replicas that confirmed it.
   */
  evalAndWait(id: LuaScriptId, keys: readonly string[], args: readonly WireArg[], replicas: number, timeoutMs: number): Promise<readonly [unknown, number]>;
  /** Any command by name, keys prefixed as the driver does. */
  call(name: string, ...args: CommandArg[]): Promise<unknown>;
  /**
   * The master serving `key` (unprefixed): `host:port` in a cluster, `''` on a single server; `undefined` when
   * the cluster's slot map names none yet.
   */
  masterOf(key: string): string | undefined;
  /**
   * How to ask `master` (as {@link masterOf} names it) for `INFO section`, or `undefined` when the driver has no
   * connection to it.
   */
  infoOf(master: string): ((section: string) => Promise<string>) | undefined;
  /**
   * How to send a keyless command (`CONFIG GET …`) to `master` (as {@link masterOf} names it), or `undefined` when
   * the driver has no connection to it. On a single server or Sentinel master (`''`), the command connection.
   */
  commandOn(master: string): ((name: string, ...args: CommandArg[]) => Promise<unknown>) | undefined;
  /** Asks the cluster for its slot map again (after a MOVED); resolves at once elsewhere. */
  refreshTopology(): Promise<void>;
  /** Calls `listener` when the topology may have changed (a cluster's slot map refreshed); returns the off switch. */
  onTopologyChange(listener: () => void): () => void;
}

/**
 * The subscriber connection: used only for (un)subscribing, owned by `PublishSubscribe`, which re-subscribes
 * itself on every `ready` (the driver neither queues nor replays subscriptions). Classic or sharded pub/sub is
 * the driver's business: `subscribe` sends SUBSCRIBE or SSUBSCRIBE as the deployment needs.
 */
export interface SubscriberConnection extends ConnectionEventSource {
  readonly status: ConnectionStatus;
  /** Connects a lazy connection (status `wait`). */
  connect(): Promise<void>;
  /**
   * Something to wait for before the first subscription (a cluster probing whether it shards), or null when
   * nothing is pending. A failed wait is tried again by the next call.
   */
  prepare(): Promise<unknown> | null;
  subscribe(channel: string): Promise<unknown>;
  unsubscribe(channel: string): Promise<unknown>;
  /** Calls `listener` for every message on a subscribed channel (classic or sharded). */
  onMessage(listener: (channel: string, message: string) => void): void;
  /**
   * PSUBSCRIBE `pattern` (never prefixed, never sharded: keyspace notifications are classic pub/sub). Keyspace
   * notifications are node-local, so in a cluster the driver subscribes the pattern on every master (and on a
   * master that joins later), as Redisson's `PublishSubscribeService.psubscribe` does for `__keyspace`/`__keyevent`
   * patterns; it resolves once every master confirmed it. Like `subscribe`, not replayed by the driver: the
   * owner psubscribes again on every `ready`.
   */
  psubscribe(pattern: string): Promise<unknown>;
  /** PUNSUBSCRIBE `pattern` (on every master in a cluster). */
  punsubscribe(pattern: string): Promise<unknown>;
  /** Calls `listener` for every message matching a subscribed pattern (from any master in a cluster). */
  onPatternMessage(listener: (pattern: string, channel: string, message: string) => void): void;
  /** QUIT when connected (at most `timeoutMs`), else drop the socket; resolves once no socket or timer is left. */
  close(timeoutMs: number): Promise<void>;
}

/** What a driver error means for us (see `classify.ts`). */
export type DriverErrorClass =
  /** Redis answered with an error reply; `code` is its first word (`ERR`, `NOPERM`, `MOVED`, `CLUSTERDOWN`, …). */
  | { readonly kind: 'reply'; readonly code: string }
  /** The command was refused before it was written: the connection is not writable. */
  | { readonly kind: 'not-writable' }
  /** The connection closed (or the driver gave the node up) after the command was written: it may have run. */
  | { readonly kind: 'closed' }
  /** A cluster client found no node to send the command to. */
  | { readonly kind: 'cluster-unreachable' }
  /** Anything else (a script's own error surfaces as a `reply`). */
  | { readonly kind: 'other' };

/** What the topology followers need of the command executor: hold commands, forget per-master caches. */
export interface CommandGate {
  admitWhen(admits: () => boolean): void;
  admit(): void;
  forgetReplicas(): void;
  /** Calls `listener` on every MOVED reply the executor sees. */
  onMoved(listener: () => void): void;
  /**
   * Calls `recheck` when a command is refused with `READONLY` (its master was demoted), and sends the command
   * again once it resolved: a replicated client looks for the new master at once.
   */
  onReadOnly(recheck: () => Promise<void>): void;
}

/** What the topology followers need of the subscription registry. */
export interface WaiterWaker {
  /** Sets when waiters woken after a re-subscription may retry. */
  setWakeGate(gate: (wake: () => void) => void): void;
  /** Wakes every waiter once (each retries, then waits again). */
  wakeAll(): void;
}

/** Payload of a client's `failover` event (Sentinel, replicated). */
export interface MasterSwitch {
  /** The master name the Sentinels monitor; `''` in a replicated deployment, which has none. */
  readonly masterName: string;
  /** The demoted master, `host:port` as Sentinel names it (replicated: as the node list names it). */
  readonly from: string;
  /** The new master, `host:port` as Sentinel names it (before any `natMap`; replicated: as the node list names it). */
  readonly to: string;
}

/** A client's connections, made by a driver from the `redis` option. */
export interface Connections {
  readonly command: CommandConnection;
  readonly subscriber: SubscriberConnection;
  /** The publish command of this deployment: PUBLISH, or SPUBLISH with sharded pub/sub (maybe after a probe). */
  readonly publishCommand: () => string | Promise<string>;
  /** Sentinel, Cluster, replicated or master/slave: writes are followed by `WAIT` (Redisson's synced execution). */
  readonly replicated: boolean;
  /** The command connection as the client library made it (the client's `redis`/`connection` getters). */
  readonly native: unknown;
  /**
   * Starts following the topology (a Sentinel's `+switch-master`, a cluster's failovers and migrations, a
   * replicated group's master found by scanning its nodes).
   * @param closed whether the client is shutting down.
   * @param onFailover called after a Sentinel or replicated client moved to a new master.
   */
  follow(gate: CommandGate, waker: WaiterWaker, closed: () => boolean, onFailover: (change: MasterSwitch) => void): void;
  /** Stops following the topology (closes a Sentinel client's connections to the Sentinels). */
  unfollow(): void;
  /** Closes the command connection when the client made it (a clean QUIT bounded by `timeoutMs`). */
  close(timeoutMs: number): Promise<void>;
}
