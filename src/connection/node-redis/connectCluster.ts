/**
 * A client's connections on a node-redis Redis Cluster: from a `createCluster()` client passed in (connected or
 * not: Redisson connects one that is not open, and leaves it open on `shutdown()`), or from `{ driver:
 * 'node-redis', cluster, scanInterval? }` (Redisson makes the cluster client with `createCluster(cluster)`, and
 * closes it). Writes are followed by `WAIT` on the key's master (Redisson's synced execution in cluster mode); the
 * subscriber is a cluster client of our own (`duplicate()`), sharded when the cluster answers the probe (Redisson's
 * `shardedSubscriptionMode`); patterns go to every master; the topology is followed by `clusterTopology.ts`.
 */
import type { ResolvedOptions } from '../../config.js';
import { isServerRefusal } from '../classify.js';
import type { CommandGate, Connections, WaiterWaker } from '../driver.js';
import { TransportChoice, type PubSubTransport } from '../transport.js';
import { closeCluster } from './close.js';
import { NodeRedisClusterPatterns } from './clusterPatterns.js';
import { followNodeRedisCluster } from './clusterTopology.js';
import { NodeRedisClusterConnection } from './NodeRedisClusterConnection.js';
import { NodeRedisClusterSubscriber } from './NodeRedisClusterSubscriber.js';
import { loadNodeRedis } from './nodeRedisModule.js';
import { isNodeRedisCluster } from './recognize.js';
import type { NodeRedisCluster, NodeRedisClusterConnectionOptions, NodeRedisClusterOptions } from './types.js';

/** Redisson's `shardedSubscriptionMode`: `ON` sharded, `OFF` classic, `AUTO` sharded when `PUBSUB SHARDNUMSUB` answers (Redis 7+). */
function transportOf(command: NodeRedisClusterConnection, options: ResolvedOptions): PubSubTransport | (() => Promise<PubSubTransport>) {
  if (options.shardedSubscriptionMode === 'ON') return 'sharded';
  if (options.shardedSubscriptionMode === 'OFF') return 'classic';
  return () =>
    command.call('PUBSUB', 'SHARDNUMSUB').then(
      (): PubSubTransport => 'sharded',
      (error: unknown): PubSubTransport => {
        if (isServerRefusal(error)) return 'classic';
        throw error;
      },
    );
}

/**
 * `nodeAddressMap` given as an object, as a function that hands out a copy of each entry: node-redis uses an entry
 * as the `socket` options of every client of that node, and its rediscover sets `reconnectStrategy = false` on the
 * socket options it starts from, so one rediscover from such a client would leave every later client of the node
 * (a new pub/sub client, a node client made again) giving up at its first refused connect.
 */
function copyingAddressMap(map: unknown): unknown {
  if (typeof map !== 'object' || map === null) return map;
  const entries = map as Record<string, unknown>;
  return (address: string): unknown => {
    const entry = entries[address];
    return typeof entry === 'object' && entry !== null ? { ...entry } : entry;
  };
}

/** `base` with `extra` merged into its node clients' options (`defaults`). */
function withDefaults(base: NodeRedisClusterOptions | undefined, extra: object): Partial<NodeRedisClusterOptions> {
  return { defaults: { ...(base?.defaults ?? {}), ...extra } };
}

// Redisson's `scanInterval` of a cluster (and ioredis' `slotsRefreshInterval` as this client sets it): 5 s.
const DEFAULT_SCAN_INTERVAL = 5_000;

export function connectNodeRedisCluster(options: ResolvedOptions): Connections {
  const redis: unknown = options.redis;
  // Redisson's pingConnectionInterval as node-redis' `pingInterval`, on the node clients of the clusters we make.
  const ping = options.pingConnectionInterval > 0 ? { pingInterval: options.pingConnectionInterval } : {};
  let cluster: NodeRedisCluster;
  let owns: boolean;
  let scanInterval = DEFAULT_SCAN_INTERVAL;
  if (isNodeRedisCluster(redis)) {
    cluster = redis;
    owns = false;
  } else {
    const given = redis as NodeRedisClusterConnectionOptions;
    const base = given.cluster as NodeRedisClusterOptions;
    const addressMap = base.nodeAddressMap === undefined ? {} : { nodeAddressMap: copyingAddressMap(base.nodeAddressMap) };
    cluster = loadNodeRedis().createCluster({ ...base, ...addressMap, ...withDefaults(base, ping) }) as NodeRedisCluster;
    owns = true;
    scanInterval = given.scanInterval ?? DEFAULT_SCAN_INTERVAL;
  }
  const command = new NodeRedisClusterConnection(cluster, options.timeout);
  // node-redis does not connect by itself; until the slot map is loaded the executor holds every command.
  if (!cluster.isOpen) cluster.connect().catch(() => undefined);
  // Its own cluster client, only for (UN)SUBSCRIBE: no offline queue on its node clients.
  const subscriberCluster = cluster.duplicate(withDefaults(cluster._options, { disableOfflineQueue: true, ...ping }));
  const patterns = new NodeRedisClusterPatterns(cluster);
  const transport = new TransportChoice(transportOf(command, options));
  const subscriber = new NodeRedisClusterSubscriber(subscriberCluster, transport, patterns);
  let unfollow: (() => void) | null = null;
  return {
    command,
    subscriber,
    publishCommand: () => transport.publishCommand(),
    replicated: true,
    native: cluster,
    follow(gate: CommandGate, waker: WaiterWaker, closed: () => boolean): void {
      unfollow = followNodeRedisCluster(command, subscriberCluster, patterns, gate, waker, closed, scanInterval);
      // A shard dropped our subscriptions (its slot moved): the command side looks at the slot map too.
      subscriber.onShardMoved(() => void command.refreshTopology());
    },
    unfollow(): void {
      unfollow?.();
      unfollow = null;
    },
    async close(timeoutMs: number): Promise<void> {
      if (owns) await closeCluster(cluster, timeoutMs);
      // A cluster passed in stays open, without our listeners.
      command.detach();
    },
  };
}
