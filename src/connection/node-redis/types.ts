/**
 * The node-redis (`redis` 5.x and 6.x) shapes the driver uses, declared structurally by the members it calls:
 * node-redis' own types are generic over modules, scripts and RESP versions, and a client from 5.x is not one
 * from 6.x to TypeScript. Named here only, so that the client library is named in one folder.
 */

/** A node-redis event listener. */
type Listener = (...args: never[]) => void;

/** Per-command options of node-redis (`sendCommand(args, options)`); only the ones we set. */
export interface NodeRedisCommandOptions {
  /** `{}`: node-redis' default reply types, whatever the client's `commandOptions.typeMapping` says. */
  readonly typeMapping?: object;
  /** 6.x: false keeps `timeout` to the wait before sending (our executor times the reply). */
  readonly rejectInFlight?: boolean;
}

/** A node-redis client (`createClient()`), 5.x or 6.x, as the driver uses it. */
export interface NodeRedisClient {
  /** The options it was made with (url, socket, database, keyPrefix, …). */
  readonly options?: NodeRedisClientOptions | undefined;
  /** Whether `connect()` was called and the client was not closed since. */
  readonly isOpen: boolean;
  /** Whether commands are written at once (the socket is connected and set up). */
  readonly isReady: boolean;
  connect(): Promise<unknown>;
  /** An unconnected client with the same options (and `overrides`). */
  duplicate(overrides?: Partial<NodeRedisClientOptions>): NodeRedisClient;
  sendCommand(args: readonly (string | Buffer)[], options?: NodeRedisCommandOptions): Promise<unknown>;
  subscribe(channel: string, listener: (message: string, channel: string) => void): Promise<void>;
  unsubscribe(channel: string, listener?: (message: string, channel: string) => void): Promise<void>;
  pSubscribe(pattern: string, listener: (message: string, channel: string) => void): Promise<void>;
  pUnsubscribe(pattern: string, listener?: (message: string, channel: string) => void): Promise<void>;
  /** Closes after the pending commands were answered. */
  close(): Promise<void>;
  /** Closes at once, rejecting pending commands. */
  destroy(): void;
  on(event: string, listener: Listener): unknown;
  off(event: string, listener: Listener): unknown;
  listenerCount(event: string): number;
}

/** The node-redis client options the driver reads or sets. */
export interface NodeRedisClientOptions {
  readonly url?: string;
  readonly socket?: { readonly host?: string; readonly port?: number; readonly path?: string; readonly tls?: boolean };
  readonly database?: number;
  /** 6.x: prefixes the keys of typed commands only (not of `sendCommand`): refused, see `recognize.ts`. */
  readonly keyPrefix?: unknown;
  readonly disableOfflineQueue?: boolean;
  /** A PING every so many ms (keep-alive). */
  readonly pingInterval?: number;
}

/**
 * A node-redis client as the `redis` option accepts it: `createClient()` of `redis` 5.x or 6.x, connected or
 * not (Redisson connects it when it is not open), or `createCluster()` (see {@link NodeRedisClusterLike}).
 * Declared by a few of its members, so that any copy's client type-checks as it is.
 */
export type NodeRedisClientLike = NodeRedisSingleLike | NodeRedisClusterLike;

/** A node-redis `createClient()` client, by a few of its members. */
export interface NodeRedisSingleLike {
  /** Whether commands are written at once. */
  readonly isReady: boolean;
  /** Whether `connect()` was called and the client was not closed since. */
  readonly isOpen: boolean;
  /** Makes the subscriber connection. */
  duplicate(...args: never[]): unknown;
  /** Sends a command. */
  sendCommand(...args: never[]): unknown;
}

/** A Sentinel's address, as node-redis' `sentinelRootNodes` list them. */
export interface NodeRedisSentinelNode {
  readonly host: string;
  readonly port: number;
}

/**
 * node-redis' `createSentinel` options as the `sentinel` connection option takes them: the master `name` the
 * Sentinels monitor and some of them (`sentinelRootNodes`); the others (`nodeClientOptions` for the master's
 * credentials or TLS, `sentinelClientOptions`, `nodeAddressMap`, `scanInterval`, `RESP`, …) are passed on as
 * they are. `keyPrefix` is refused (use `nameMapper`).
 */
export interface NodeRedisSentinelOptions {
  /** The master name the Sentinels monitor (`sentinel monitor <name> …`). */
  readonly name: string;
  /** Some of the Sentinels (at least one): node-redis asks them for the master and the other Sentinels. */
  readonly sentinelRootNodes: readonly NodeRedisSentinelNode[];
  /** Further `createSentinel` options. */
  readonly [option: string]: unknown;
}

/** What the driver uses of a node-redis `createSentinel()` client (`RedisSentinel`, 5.12+ and 6.x). */
export interface NodeRedisSentinel {
  readonly isOpen: boolean;
  readonly isReady: boolean;
  connect(): Promise<unknown>;
  close(): Promise<unknown>;
  destroy(): unknown;
  /**
   * Runs `fn` with the master client of the sentinel's pool (once a reconfiguration in progress is over).
   * node-redis marks it internal; it is the one way to reach the master's own `createClient()` client, whose
   * options (credentials, TLS, RESP, `nodeAddressMap` applied) the subscriber duplicates. `fn` only returns the
   * client, so node-redis' re-discover-and-retry around it never re-sends anything of ours.
   */
  _execute(isReadonly: boolean, fn: (client: NodeRedisClient) => unknown): Promise<unknown>;
  /** The ready master's address (after `nodeAddressMap`), or undefined while there is none. */
  getMasterNode(): { readonly host: string; readonly port: number } | undefined;
  on(event: string, listener: Listener): unknown;
  off(event: string, listener: Listener): unknown;
}

/** A node-redis `createCluster()` client (5.12+ or 6.x), by a few of its members. */
export interface NodeRedisClusterLike {
  /** Whether `connect()` was called and the cluster was not closed since. */
  readonly isOpen: boolean;
  /** The client of a node of its slot map. */
  nodeClient(...args: never[]): unknown;
  /** The master of a slot. */
  getSlotMaster(...args: never[]): unknown;
  /** Sends a command. */
  sendCommand(...args: never[]): unknown;
}

/** A node of a node-redis cluster's slot map (`cluster.masters`, `cluster.slots[slot].master`). */
export interface NodeRedisClusterNode {
  /** `host:port`, as the cluster announces it. */
  readonly address: string;
  readonly host: string;
  readonly port: number;
  /** Its client, once connected (node-redis connects every master eagerly unless `minimizeConnections`). */
  readonly client?: NodeRedisClient | undefined;
  /** Its sharded pub/sub client, once made: an internal field that 5.12 and 6.x share. */
  readonly pubSub?: { readonly client?: NodeRedisClient | undefined } | undefined;
}

/** A node-redis `createCluster()` client (5.12+ or 6.x), as the driver uses it. */
export interface NodeRedisCluster {
  /** The options it was made with: an internal field that 5.12 and 6.x share (neither has a public getter). */
  readonly _options?: NodeRedisClusterOptions | undefined;
  readonly isOpen: boolean;
  /** 6.x only: whether the first slot map was loaded and the cluster was not closed since. */
  readonly isReady?: boolean;
  /** Per slot (16384), its master and replicas; empty until connected. */
  readonly slots: readonly ({ readonly master: NodeRedisClusterNode } | undefined)[];
  readonly masters: readonly NodeRedisClusterNode[];
  connect(): Promise<unknown>;
  /** The node's client (connecting it when it has none). */
  nodeClient(node: NodeRedisClusterNode): Promise<NodeRedisClient>;
  /** An unconnected cluster client with the same options (and `overrides`). */
  duplicate(overrides?: Partial<NodeRedisClusterOptions>): NodeRedisCluster;
  sSubscribe(channel: string, listener: (message: string, channel: string) => void): Promise<void>;
  sUnsubscribe(channel: string, listener?: (message: string, channel: string) => void): Promise<void>;
  subscribe(channel: string, listener: (message: string, channel: string) => void): Promise<void>;
  unsubscribe(channel: string, listener?: (message: string, channel: string) => void): Promise<void>;
  close(): Promise<void>;
  destroy(): void;
  on(event: string, listener: Listener): unknown;
  off(event: string, listener: Listener): unknown;
  removeAllListeners(event: string): unknown;
}

/** The `createCluster` options the driver reads or sets. */
export interface NodeRedisClusterOptions {
  readonly rootNodes?: readonly (NodeRedisClientOptions | object)[];
  /** Options of every node client (`socket`, credentials, RESP, …). */
  readonly defaults?: Partial<NodeRedisClientOptions> & object;
  /** 6.x: prefixes the keys of typed commands only: refused, as on a single server. */
  readonly keyPrefix?: unknown;
  readonly minimizeConnections?: boolean;
  readonly useReplicas?: boolean;
  /** Announced `host:port` → the address to connect to: an object of them, or a function. */
  readonly nodeAddressMap?: unknown;
}

/**
 * Connection options with an explicit driver choice: Redisson makes (and owns, and closes on `shutdown()`) a
 * node-redis client, `createClient({ ...options, url })`, or with `sentinel`, a Sentinel client
 * `createSentinel(sentinel)` whose master it follows across failovers.
 * @example
 * ```ts
 * Redisson.create({ redis: { driver: 'node-redis', url: 'redis://127.0.0.1:6379' } });
 * Redisson.create({ redis: { driver: 'node-redis', sentinel: { name: 'mymaster', sentinelRootNodes: [{ host: '127.0.0.1', port: 26379 }] } } });
 * ```
 */
export type NodeRedisConnectionOptions = NodeRedisServerOptions | NodeRedisClusterConnectionOptions;

/** `{ driver: 'node-redis', url?, options? }`: a single server. */
export interface NodeRedisServerOptions {
  /** Which client library makes the connections. */
  readonly driver: 'node-redis';
  /** A `redis://` or `rediss://` URL; node-redis' default (127.0.0.1:6379) when left out. Not with `sentinel`. */
  readonly url?: string;
  /** Further `createClient` options (socket, credentials, RESP, …); `url` wins over `options.url`. Not with `sentinel`. */
  readonly options?: object;
  /** `createSentinel` options: a Sentinel-monitored master instead of a single server (`url`, `options`). */
  readonly sentinel?: NodeRedisSentinelOptions;
}

/**
 * A Redis Cluster through node-redis: Redisson makes (and owns, and closes on `shutdown()`) a node-redis cluster
 * client, `createCluster(cluster)`, and one more for its subscriptions.
 * @example
 * ```ts
 * Redisson.create({ redis: { driver: 'node-redis', cluster: { rootNodes: [{ url: 'redis://127.0.0.1:7000' }] } } });
 * ```
 */
export interface NodeRedisClusterConnectionOptions {
  /** Which client library makes the connections. */
  readonly driver: 'node-redis';
  /** node-redis `createCluster` options: `rootNodes` (at least one), `defaults`, `useReplicas`, `nodeAddressMap`, …. */
  readonly cluster: { readonly rootNodes: readonly object[]; readonly [option: string]: unknown };
  /**
   * How often (ms) the slot map is asked for again, so that a failover or a slot migration is found without a
   * MOVED (Redisson's `scanInterval`; node-redis itself refreshes only after MOVED).
   * @default 5000
   */
  readonly scanInterval?: number;
}
