/**
 * Replicated and master/slave deployments, whatever the driver: the `redis` option's shapes, the node addresses
 * they name, and how a replicated group's master is told from its nodes' `INFO replication` (Redisson's
 * `ReplicatedConnectionManager`: the node whose `role` is `master`, asked every `scanInterval`).
 * Pure: no client library, no sockets (those are in `ioredis/replicated.ts`).
 */

/**
 * A replicated group without Sentinel (AWS ElastiCache with cluster mode off, Azure Cache for Redis, GCP
 * Memorystore with replicas): Redisson's `replicatedServersConfig`. Every node is asked for its role every
 * `scanInterval`; the client writes to the one that answers `master`, follows a promotion, and follows every
 * lock and semaphore write with `WAIT` to the master's replicas.
 */
export interface ReplicatedConnectionOptions<ConnectionOptions extends object = object> {
  /** Every node of the group, master and replicas, as `redis://host:port` (`rediss://` for TLS). */
  replicatedNodes: string[];
  /**
   * How often (ms) the nodes are asked for their role, as Redisson's `scanInterval`.
   * @default 1000
   */
  scanInterval?: number;
  /** Connection options of every node (credentials, database, timeouts, TLS, `keyPrefix`), but no address. */
  redisOptions?: ConnectionOptions;
}

/**
 * A fixed master and its replicas: Redisson's `masterSlaveServersConfig`. The client writes to `masterAddress`
 * only (never follows a promotion) and follows every lock and semaphore write with `WAIT` to its replicas.
 */
export interface MasterSlaveConnectionOptions<ConnectionOptions extends object = object> {
  /** The master, as `redis://host:port` (`rediss://` for TLS). */
  masterAddress: string;
  /**
   * Its replicas, as `redis://host:port`. Redisson reads from them; here every read of lock state goes to the
   * master, so they are only validated. `WAIT` counts the replicas the master reports.
   */
  slaveAddresses?: string[];
  /** Connection options of the master (credentials, database, timeouts, TLS, `keyPrefix`), but no address. */
  redisOptions?: ConnectionOptions;
}

/** A node address of a replicated or master/slave deployment. */
export interface NodeAddress {
  readonly host: string;
  readonly port: number;
  /** `rediss://`. */
  readonly tls: boolean;
}

/** Default of {@link ReplicatedConnectionOptions.scanInterval} (ms), as Redisson's. */
export const DEFAULT_SCAN_INTERVAL = 1_000;

/** Keys of {@link ReplicatedConnectionOptions}. */
export const REPLICATED_KEYS = ['replicatedNodes', 'scanInterval', 'redisOptions'] as const;
/** Keys of {@link MasterSlaveConnectionOptions}. */
export const MASTER_SLAVE_KEYS = ['masterAddress', 'slaveAddresses', 'redisOptions'] as const;
/** Connection options that name an address or a topology: the deployment's own fields give those. */
export const ADDRESS_OPTION_KEYS = ['host', 'port', 'path', 'sentinels', 'name', 'role'] as const;

/** Whether the `redis` option is a replicated group. */
export function isReplicatedOption(redis: unknown): redis is ReplicatedConnectionOptions {
  return typeof redis === 'object' && redis !== null && 'replicatedNodes' in redis;
}

/** Whether the `redis` option is a master with fixed replicas. */
export function isMasterSlaveOption(redis: unknown): redis is MasterSlaveConnectionOptions {
  return typeof redis === 'object' && redis !== null && 'masterAddress' in redis;
}

/** `redis://host:port` / `rediss://host:port` as a node address; a message saying what is wrong otherwise. */
export function parseNodeAddress(value: unknown): NodeAddress | string {
  if (typeof value !== 'string') return 'must be a redis:// or rediss:// address';
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'must be a redis:// or rediss:// address';
  }
  if ((url.protocol !== 'redis:' && url.protocol !== 'rediss:') || url.hostname === '') return 'must be a redis:// or rediss:// address with a host';
  if (url.username !== '' || url.password !== '' || (url.pathname !== '' && url.pathname !== '/')) {
    return 'must be `scheme://host:port` only: give credentials and database in `redisOptions`';
  }
  return { host: url.hostname.replace(/^\[(.*)\]$/, '$1'), port: url.port === '' ? 6379 : Number(url.port), tls: url.protocol === 'rediss:' };
}

/** `host:port` of a node, as events and messages name it. */
export function nodeName(node: NodeAddress): string {
  return `${node.host}:${node.port}`;
}

/** The `role` field of an `INFO replication` reply (`master`, `slave`), or null when it has none. */
export function roleOf(info: string): string | null {
  return /^role:(\w+)/m.exec(info)?.[1] ?? null;
}

/**
 * The master to use after a scan, given each node's role (null: no answer) and the current master's index (-1:
 * none yet). The current master is kept while it still says `master`; otherwise the first node that does is
 * taken; -1 when none does (nothing changes until a scan finds one). Redisson switches to any *other* node that
 * says `master`, so while a promoted replica and a not yet demoted master both say so it would switch at every
 * scan; keeping the current one until it is demoted avoids that flapping.
 */
export function pickMaster(roles: readonly (string | null)[], current: number): number {
  if (current >= 0 && roles[current] === 'master') return current;
  return roles.indexOf('master');
}
