/**
 * A client's connections on ioredis, made from the `redis` option: a single server, a Sentinel master, a
 * Redis Cluster, a replicated group or a master with fixed replicas; and how they follow the topology (a
 * Sentinel's `+switch-master`, a cluster's failovers, a replicated group's scans).
 */
import type { Cluster, Redis, RedisOptions } from 'ioredis';
import type { ResolvedOptions } from '../../config.js';
import type { CommandGate, Connections, MasterSwitch, WaiterWaker } from '../driver.js';
import { TransportChoice } from '../transport.js';
import { closeConnection } from './close.js';
import { ClusterPatterns } from './clusterPatterns.js';
import { clusterSetup, clusterTransport, followClusterTopology } from './clusterTopology.js';
import { IoredisConnection } from './IoredisConnection.js';
import { IoredisSubscriber } from './IoredisSubscriber.js';
import { followsMaster, isRedisInstance, isSentinelMode } from './recognize.js';
import { SentinelFollower } from './sentinel.js';
import { nodeOptions, ReplicatedFollower } from './replicated.js';
import { pingConnection } from './ping.js';
import { DEFAULT_SCAN_INTERVAL, isMasterSlaveOption, isReplicatedOption, parseNodeAddress, type NodeAddress } from '../replicated.js';
import { loadIoredis } from './ioredisModule.js';
import type { RedisConnection } from './types.js';

/**
 * The command connection must not replay unanswered commands (see CommandExecutor): our own connections are
 * made that way; an instance passed in that would replay is duplicated. The subscriber is always our own.
 */
export function connectIoredis(options: ResolvedOptions): Connections {
  // ioredis (an optional peer) is loaded only to make connections from nodes, a URL or options: a client given
  // an instance (ioredis', or iovalkey's) duplicates it and needs no ioredis module.
  const redis = options.redis;
  const cluster = clusterSetup(redis, options);
  // A replicated group: its nodes (the master is found by scanning them); a master/slave deployment: its master.
  const group = isReplicatedOption(redis) ? { nodes: redis.replicatedNodes.map(address), base: redis.redisOptions ?? {}, scanInterval: redis.scanInterval ?? DEFAULT_SCAN_INTERVAL } : null;
  const fixedMaster = isMasterSlaveOption(redis) ? nodeOptions(redis.redisOptions ?? {}, address(redis.masterAddress)) : null;
  let connection: RedisConnection;
  let owns: boolean;
  if (group) {
    // Made lazily: its first socket goes to the master the first scan finds (ReplicatedFollower connects it).
    connection = new (loadIoredis().Redis)({ ...nodeOptions(group.base, group.nodes[0] as NodeAddress), lazyConnect: true, autoResendUnfulfilledCommands: false });
    owns = true;
    connection.on('error', () => undefined);
  } else if (fixedMaster) {
    connection = new (loadIoredis().Redis)({ ...fixedMaster, autoResendUnfulfilledCommands: false });
    owns = true;
    connection.on('error', () => undefined);
  } else if (cluster) {
    // Connections of our own, made from the nodes and options given: the command connection never
    // replays a command whose reply was lost; the subscriber can hold sharded subscriptions.
    connection = new (loadIoredis().Cluster)(cluster.nodes, cluster.command);
    owns = true;
    connection.on('error', () => undefined);
  } else if (isRedisInstance(redis) && redis.options.autoResendUnfulfilledCommands === false && !isSentinelMode(redis)) {
    connection = redis;
    owns = false;
  } else {
    const noReplay = { autoResendUnfulfilledCommands: false };
    connection = isRedisInstance(redis) ? redis.duplicate(noReplay) : typeof redis === 'string' ? new (loadIoredis().Redis)(redis, noReplay) : new (loadIoredis().Redis)({ ...(redis as RedisOptions), ...noReplay });
    owns = true;
    // (A Sentinel-mode instance is always duplicated: following a failover re-connects it, which must not
    // disturb the caller's own connection.)
    // Failures surface as rejected commands; without a listener ioredis would also print each one.
    connection.on('error', () => undefined);
  }
  const command = new IoredisConnection(connection);
  // Redisson sends WAIT after its writes in every mode but single-server: Sentinel, Cluster, replicated and
  // master/slave.
  const sentinel = cluster === null && isSentinelMode(connection as Redis);
  // The subscriber's subscriptions are PublishSubscribe's: ioredis neither queues nor replays them.
  const subscriberConnection: RedisConnection = cluster
    ? new (loadIoredis().Cluster)(cluster.nodes, cluster.subscriber)
    : (connection as Redis).duplicate({
        keyPrefix: '',
        lazyConnect: true,
        autoResubscribe: false,
        autoResendUnfulfilledCommands: false,
        enableOfflineQueue: false,
      });
  subscriberConnection.on('error', () => undefined);
  const transport = new TransportChoice(cluster ? clusterTransport(connection, options) : 'classic');
  let follower: SentinelFollower | ReplicatedFollower | null = null;
  const stopPings: (() => void)[] = [];
  return {
    command,
    subscriber: new IoredisSubscriber(subscriberConnection, transport, cluster ? new ClusterPatterns(connection as Cluster) : null),
    publishCommand: () => transport.publishCommand(),
    replicated: cluster !== null || sentinel || group !== null || fixedMaster !== null,
    native: connection,
    follow(gate: CommandGate, waker: WaiterWaker, closed: () => boolean, onFailover: (change: MasterSwitch) => void): void {
      if (cluster) gate.onMoved(followClusterTopology(connection as Cluster, subscriberConnection as Cluster, waker, closed));
      if (sentinel && followsMaster(connection as Redis)) follower = new SentinelFollower(connection as Redis, subscriberConnection as Redis, gate, onFailover);
      // Redisson's pingConnectionInterval, on a standalone, Sentinel, replicated or master/slave client's two
      // connections (a cluster's node connections are ioredis' own).
      if (options.pingConnectionInterval > 0 && cluster === null) {
        for (const redis of [connection, subscriberConnection] as Redis[]) stopPings.push(pingConnection(redis, options.pingConnectionInterval));
      }
      if (group) follower = new ReplicatedFollower(group.nodes, group.base, connection as Redis, subscriberConnection as Redis, gate, group.scanInterval, options.timeout, onFailover);
    },
    unfollow(): void {
      follower?.close();
      for (const stop of stopPings.splice(0)) stop();
    },
    close(timeoutMs: number): Promise<void> {
      return owns ? closeConnection(connection, timeoutMs) : Promise.resolve();
    },
  };
}

/** A node address the options validation already accepted. */
function address(value: string): NodeAddress {
  return parseNodeAddress(value) as NodeAddress;
}
