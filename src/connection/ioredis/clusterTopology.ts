/**
 * A Redis Cluster client's connections and how they follow the topology: the command and subscriber
 * connections' options, the pub/sub transport, and the reactions that keep waiters awake across a failover or a
 * slot migration. Self-contained (ioredis, the options and a narrow view of the subscription registry), so that
 * it can move with the other connection code.
 */
import type { Cluster, ClusterNode, ClusterOptions, Redis } from 'ioredis';
import { isClusterInstance } from './recognize.js';
import type { RedisConnection } from './types.js';
import type { ResolvedOptions } from '../../config.js';
import type { WaiterWaker } from '../driver.js';
import type { PubSubTransport } from '../transport.js';
import { isServerRefusal } from '../classify.js';
import { nodeKey } from './IoredisConnection.js';

/** The nodes and the two connections' options of a Redis Cluster client, or null for any other `redis`. */
export function clusterSetup(redis: ResolvedOptions['redis'], options: ResolvedOptions): { nodes: ClusterNode[]; command: ClusterOptions; subscriber: ClusterOptions } | null {
  let nodes: ClusterNode[];
  let base: ClusterOptions;
  if (isClusterInstance(redis)) {
    nodes = [...((redis as unknown as { startupNodes: ClusterNode[] }).startupNodes ?? [])];
    base = redis.options;
  } else if (typeof redis === 'object' && 'clusterNodes' in redis) {
    nodes = [...redis.clusterNodes];
    base = redis.clusterOptions ?? {};
  } else {
    return null;
  }
  const redisOptions = { ...(base.redisOptions ?? {}), autoResendUnfulfilledCommands: false };
  // Redisson scans the topology every `scanInterval` (5 s): a slot that moved or a promoted replica is found
  // without waiting for a MOVED, and sharded subscriptions follow their slot (see PublishSubscribe).
  const slotsRefreshInterval = base.slotsRefreshInterval ?? 5_000;
  return {
    nodes,
    // retryDelayOnFailover 0: ioredis' Cluster otherwise sends a command (or a whole pipeline) again when its
    // connection closed — an acquire script that ran before the socket dropped would run twice. A lost reply
    // surfaces as ConnectionLostError instead, as on a single server.
    command: { ...base, redisOptions, shardedSubscribers: false, slotsRefreshInterval, retryDelayOnFailover: 0 },
    subscriber: {
      ...base,
      keyPrefix: '',
      lazyConnect: true,
      enableOfflineQueue: false,
      redisOptions: { ...redisOptions, keyPrefix: '', autoResubscribe: true },
      // Sharded subscriptions need a subscriber per shard; with 'OFF' the classic one is enough. Its slot map
      // is refreshed when the command connection's scan finds the topology changed (see the constructor).
      shardedSubscribers: options.shardedSubscriptionMode !== 'OFF',
    },
  };
}

/**
 * A cluster client's pub/sub transport (Redisson's `shardedSubscriptionMode`): `ON` sharded, `OFF` classic,
 * `AUTO` sharded when the cluster answers `PUBSUB SHARDNUMSUB` (Redis 7+), classic when it refuses it.
 */
export function clusterTransport(connection: RedisConnection, options: ResolvedOptions): PubSubTransport | (() => Promise<PubSubTransport>) {
  if (options.shardedSubscriptionMode === 'ON') return 'sharded';
  if (options.shardedSubscriptionMode === 'OFF') return 'classic';
  return () =>
    connection.call('PUBSUB', 'SHARDNUMSUB').then(
      (): PubSubTransport => 'sharded',
      (error: unknown): PubSubTransport => {
        if (isServerRefusal(error)) return 'classic';
        throw error;
      },
    );
}

/** Which master serves each slot, as one comparable string (ioredis' slot map of `cluster`). */
function topology(cluster: Cluster): string {
  return cluster.slots.map((nodes) => nodes[0] ?? '').join(',');
}

/**
 * Whether every master named in `cluster`'s slot map has a connection in its pool that answers a PING within
 * 500 ms. A master the map still names but the pool dropped (a dead node) counts as unreachable: a retry
 * routed there would fail.
 */
async function reachable(cluster: Cluster): Promise<boolean> {
  const named = new Set(cluster.slots.map((nodes) => nodes[0]).filter((key): key is string => typeof key === 'string'));
  const pool = new Map(cluster.nodes('master').map((node) => [nodeKey(node), node]));
  const masters = [...named].map((key) => pool.get(key));
  if (masters.length === 0 || masters.some((node) => node === undefined)) return false;
  const answers = await Promise.all(
    (masters as Redis[]).map((node) => {
      let timer: NodeJS.Timeout | undefined;
      return Promise.race([node.ping().then(() => true, () => false), new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), 500)))]).finally(() => clearTimeout(timer));
    }),
  );
  return answers.every(Boolean);
}

/** ioredis' internal view of a Cluster's sharded subscribers (5.9 and 6.x alike), read only to guard them. */
type ShardedSubscribers = ReadonlyMap<string, { getInstance(): Redis | null }>;
interface ShardedSubscriberGroup {
  readonly shardedSubscribers?: ShardedSubscribers;
}

// The connections guarded so far (each once).
const GUARDED = new WeakSet<Redis>();

/**
 * Gives each of `cluster`'s sharded subscriber connections an `error` that can never go unhandled.
 *
 * ioredis stops the sharded subscriber of a node that lost its slots with `disconnect()` and then
 * `removeAllListeners()`, but the socket stays readable until the server closes it. Redis 7 pushes
 * `sunsubscribe <channel> 0` for every channel of a slot the node lost; read after the stop, ioredis reports it as an
 * `error` (no command waits for it) on an instance without listeners, and Node throws: the process dies on a
 * failover. Each connection's `emit` is wrapped (on the instance) so that an `error` nobody listens to goes to
 * `unheard` instead. The group is ioredis' internal; where it is not found, nothing is wrapped.
 */
function guardShardedSubscribers(cluster: Cluster, unheard: (error: unknown) => void): void {
  const group = (cluster as unknown as { shardedSubscribers?: ShardedSubscriberGroup }).shardedSubscribers;
  const subscribers: unknown = group?.shardedSubscribers;
  if (!(subscribers instanceof Map)) return;
  for (const subscriber of (subscribers as ShardedSubscribers).values()) {
    const instance = subscriber.getInstance();
    if (instance === null || GUARDED.has(instance)) continue;
    GUARDED.add(instance);
    const emit: Redis['emit'] = instance.emit.bind(instance);
    instance.emit = (event: string | symbol, ...args: unknown[]): boolean => {
      if (event === 'error' && instance.listenerCount('error') === 0) {
        unheard(args[0]);
        return false;
      }
      return emit(event, ...args);
    };
  }
}

/**
 * Keeps a cluster client's waiters awake to topology changes. ioredis' Cluster re-subscribes sharded channels
 * itself once it finds the topology changed (a failover; a slot migrated, whose subscriptions the server
 * dropped). A release may have been published meanwhile, so every waiter retries once — after the command
 * connection's slot map is fresh too and every master in it answers, so no retry goes to a dead node (at most
 * ~20 s; a waiter's own TTL bounds its wait meanwhile).
 *
 * The change is looked for at once on the signals a failover gives (issue 24): a node that errs or leaves the
 * pool (`node error`; the subscriber's `-node`; a sharded subscriber's `nodeError`, which is how ioredis reports the server
 * dropping our subscriptions of a slot that moved, or its `end`), and a MOVED reply our executor saw
 * (`signal`). Each asks the cluster for its slots again — a few times, 250 ms apart, as the other nodes may
 * still name the old master — and hands a changed map to the subscriber. The command connection's periodic
 * scan (`slotsRefreshInterval`, Redisson's `scanInterval`) stays the fallback.
 * @returns `signal`, to call when something suggests the topology changed.
 */
export function followClusterTopology(command: Cluster, subscriber: Cluster, pubsub: WaiterWaker, closed: () => boolean): () => void {
  const whenReachable = (wake: () => void, tries = 0): void => {
    if (closed()) return;
    command.refreshSlotsCache(() => {
      void reachable(command).then((ok) => {
        if (closed()) return;
        if (ok || tries >= 20) wake();
        else setTimeout(() => whenReachable(wake, tries + 1), 1_000).unref();
      });
    });
  };
  pubsub.setWakeGate((wake) => whenReachable(wake));
  const handOver = (): boolean => {
    if (topology(command) === topology(subscriber)) return false;
    if (subscriber.status === 'ready') subscriber.refreshSlotsCache();
    return true;
  };
  command.on('refresh', handOver);
  // The subscriber's slot map when its subscribers were last ready; null before the first time (it connects lazily).
  // Its first subscribers are no change: nothing was subscribed before them to have missed a release, and a waiter
  // attempts again after subscribing. So they wake nobody.
  let seen: string | null = null;
  subscriber.on('subscribersReady', () => {
    const now = topology(subscriber);
    if (now === seen) return;
    const first = seen === null;
    seen = now;
    if (!first) whenReachable(() => pubsub.wakeAll());
  });

  // One look at a time; a signal during it asks for one more.
  let looking = false;
  let again = false;
  const signal = (): void => {
    if (closed()) return;
    if (looking) {
      again = true;
      return;
    }
    looking = true;
    const look = (tries: number): void => {
      command.refreshSlotsCache(() => {
        if (!closed() && !handOver() && tries < 12) {
          setTimeout(() => look(tries + 1), 250).unref();
          return;
        }
        looking = false;
        if (again) {
          again = false;
          signal();
        }
      });
    };
    look(0);
  };
  // (The command connection's `+node`/`-node` follow its own slot refreshes, which `refresh` above covers.)
  command.on('node error', signal);
  subscriber.on('node error', signal).on('nodeError', signal).on('-node', signal);
  // A new sharded subscriber is announced before it connects: nothing can be read on it before the guard is on.
  // An error read after its stop is the server dropping channels of a slot that moved: one more look.
  subscriber.on('+subscriber', () => guardShardedSubscribers(subscriber, signal));
  return signal;
}
