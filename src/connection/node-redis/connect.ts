/**
 * A client's connections on node-redis (`redis` 5.x and 6.x): a single server, from a `createClient()` client
 * passed in (connected or not: Redisson connects one that is not open, and leaves it open on `shutdown()`), or
 * from `{ driver: 'node-redis', url, options }` (Redisson makes the client, and closes it); a Sentinel master,
 * from a `createSentinel()` client passed in or `{ driver: 'node-redis', sentinel }` (sentinel.ts). The
 * subscriber is always a client of our own, `duplicate()` of the (master's) command client. A Redis Cluster, from a
 * `createCluster()` client passed in or `{ driver: 'node-redis', cluster }`: see `connectNodeRedisCluster`.
 */
import type { ResolvedOptions } from '../../config.js';
import type { Connections } from '../driver.js';
import { InvalidArgumentError } from '../../errors.js';
import { closeClient } from './close.js';
import { NodeRedisConnection } from './NodeRedisConnection.js';
import { NodeRedisSubscriber } from './NodeRedisSubscriber.js';
import { loadNodeRedis } from './nodeRedisModule.js';
import { isNodeRedisClient, isNodeRedisCluster, isNodeRedisClusterOptions, isNodeRedisOptions, isNodeRedisSentinel } from './recognize.js';
import { connectNodeRedisCluster } from './connectCluster.js';
import { connectNodeRedisSentinel } from './sentinel.js';
import type { NodeRedisClient, NodeRedisSentinel, NodeRedisServerOptions } from './types.js';

/** Whether the `redis` option is for this driver (a node-redis client, cluster or Sentinel client, or `{ driver: 'node-redis' }`). */
export function isNodeRedisTarget(redis: unknown): boolean {
  return isNodeRedisClient(redis) || isNodeRedisCluster(redis) || isNodeRedisSentinel(redis) || isNodeRedisOptions(redis);
}

export function connectNodeRedis(options: ResolvedOptions): Connections {
  const redis: unknown = options.redis;
  if (isNodeRedisCluster(redis) || isNodeRedisClusterOptions(redis)) return connectNodeRedisCluster(options);
  // Redisson's pingConnectionInterval as node-redis' own `pingInterval`, on the clients we make: a PING every
  // interval keeps an idle connection alive; node-redis does not drop a socket whose PING goes unanswered (it
  // has no public way to), unlike ioredis' driver (ping.ts). A client passed in keeps its own setting.
  const ping = options.pingConnectionInterval > 0 ? { pingInterval: options.pingConnectionInterval } : {};
  if (isNodeRedisSentinel(redis)) return connectNodeRedisSentinel({ sentinel: redis as NodeRedisSentinel, owns: false, masterName: '', ping });
  const form = isNodeRedisOptions(redis) ? (redis as NodeRedisServerOptions) : undefined;
  if (form?.sentinel !== undefined) {
    const given = form.sentinel;
    const { nodeClientOptions, ...rest } = given as { nodeClientOptions?: object };
    // pingConnectionInterval as the master clients' own `pingInterval`, unless the options set one.
    const sentinel = loadNodeRedis().createSentinel({ ...rest, nodeClientOptions: { ...ping, ...nodeClientOptions } }) as NodeRedisSentinel;
    const watch = { sentinels: given.sentinelRootNodes, clientOptions: (given['sentinelClientOptions'] as object | undefined) ?? {}, addressMap: given['nodeAddressMap'] };
    return connectNodeRedisSentinel({ sentinel, owns: true, masterName: given.name, ping, watch });
  }
  let client: NodeRedisClient;
  let owns: boolean;
  if (isNodeRedisClient(redis)) {
    client = redis;
    owns = false;
  } else if (isNodeRedisOptions(redis)) {
    const single = redis as NodeRedisServerOptions;
    const given = { ...(single.options ?? {}), ...ping };
    client = loadNodeRedis().createClient(single.url === undefined ? given : { ...given, url: single.url }) as NodeRedisClient;
    owns = true;
  } else {
    throw new InvalidArgumentError('connectNodeRedis: not a node-redis client or options');
  }
  const command = new NodeRedisConnection(client);
  // Unlike ioredis, node-redis does not connect by itself; until it is open the executor holds every command.
  if (!client.isOpen) client.connect().catch(() => undefined);
  // Its own socket, only for (UN)SUBSCRIBE: no offline queue (PublishSubscribe subscribes once it is ready).
  const subscriber = new NodeRedisSubscriber(client.duplicate({ disableOfflineQueue: true, ...ping }));
  return {
    command,
    subscriber,
    publishCommand: () => 'PUBLISH',
    replicated: false,
    native: client,
    follow(): void {
      // A single server: no topology to follow.
    },
    unfollow(): void {
      // Nothing followed.
    },
    async close(timeoutMs: number): Promise<void> {
      if (owns) await closeClient(client, timeoutMs);
      // A client passed in stays open, without our listeners.
      command.detach();
    },
  };
}
