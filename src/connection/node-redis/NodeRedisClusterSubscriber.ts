/**
 * The subscriber connection on a node-redis cluster: a cluster client of our own (`duplicate()` of the command
 * cluster, its node clients without an offline queue), used only for (S)SUBSCRIBE / (S)UNSUBSCRIBE. Sharded
 * channels go to the master of their slot (node-redis keeps a pub/sub client per shard), classic ones to the one
 * node node-redis picks (a classic PUBLISH reaches every node).
 *
 * node-redis re-subscribes by itself: a node's client after its reconnect, and every listener of a node the slot
 * map dropped or demoted (after its own rediscover, or ours: `follow`). `PublishSubscribe` subscribes every channel
 * it waits on again on our `ready`, which is emitted when the cluster connects and whenever one of its nodes is
 * ready again; as on a single server (NodeRedisSubscriber) both are made one: every channel is subscribed with the
 * one listener of this object, which node-redis dedupes without writing anything, and a channel node-redis holds
 * that nobody subscribed again during our `ready` is unsubscribed right after it.
 *
 * Patterns (keyspace notifications, node-local) are subscribed on every master by {@link ClusterPatterns}.
 */
import { EventEmitter } from 'node:events';
import type { ConnectionEvents, ConnectionStatus, SubscriberConnection } from '../driver.js';
import type { TransportChoice } from '../transport.js';
import type { NodeRedisClusterPatterns } from './clusterPatterns.js';
import { closeCluster } from './close.js';
import { keySlot } from '../slots.js';
import { rediscover } from './NodeRedisClusterConnection.js';
import type { NodeRedisClient, NodeRedisCluster } from './types.js';

/** The event node-redis' cluster emits (5.12 and 6.x) to subscribe a moved node's listeners again. */
const RESUBSCRIBE_LISTENERS_EVENT = '__resubscribeListeners';

export class NodeRedisClusterSubscriber implements SubscriberConnection {
  readonly #events = new EventEmitter();
  // Channels subscribed through node-redis (with our listener), and whether sharded.
  readonly #held = new Map<string, boolean>();
  #touched: Set<string> | null = null;
  #connected = false;
  #ended = false;
  #onMessage: (channel: string, message: string) => void = () => undefined;
  readonly #listener = (message: string, channel: string): void => this.#onMessage(channel, message);
  readonly #ready: () => void;
  // The sharded pub/sub clients we listen to for moved slots (5.12), and who wants to hear of a move.
  readonly #watched = new WeakSet<NodeRedisClient>();
  #onShardMoved: () => void = () => undefined;

  /**
   * @param cluster an unconnected cluster client used only for (un)subscribing, owned by this object.
   * @param transport classic or sharded pub/sub (probed on the command connection).
   * @param patterns the patterns on every master.
   */
  constructor(
    readonly cluster: NodeRedisCluster,
    private readonly transport: TransportChoice,
    private readonly patterns: NodeRedisClusterPatterns,
  ) {
    const ready = (): void => {
      this.#connected = true;
      this.#touched = new Set();
      this.#events.emit('ready');
      const touched = this.#touched;
      this.#touched = null;
      for (const channel of [...this.#held.keys()]) if (!touched.has(channel)) this.unsubscribe(channel).catch(() => undefined);
    };
    this.#ready = ready;
    cluster.on('connect', ready);
    // A node's client is ready again (after a reconnect, or a new master's): what was published meanwhile was missed.
    cluster.on('node-ready', () => {
      if (this.#connected) ready();
    });
    cluster.on('node-reconnecting', () => {
      if (this.#connected && this.#events.listenerCount('reconnecting') > 0) this.#events.emit('reconnecting', 0);
    });
    cluster.on('disconnect', () => {
      this.#connected = false;
      this.#ended = true;
      this.#events.emit('end');
    });
    cluster.on('error', () => undefined);
    cluster.on('node-error', () => undefined);
    // node-redis 5.12 (a cluster without `isReady`), when a node's client answers its reconnect's re-subscription
    // with MOVED, subscribes that client's listeners again without awaiting them: one that fails (its node out of
    // reach) is an unhandled rejection, which ends a Node process. 6.x catches it. On 5.12 our own re-subscription
    // does that work instead: the slot map asked for again, then `ready` (every channel waited on subscribed again
    // through this object, whose failures PublishSubscribe handles).
    if (cluster.isReady === undefined) {
      cluster.removeAllListeners(RESUBSCRIBE_LISTENERS_EVENT);
      cluster.on(RESUBSCRIBE_LISTENERS_EVENT, () => this.#followMove());
    }
    // node-redis (5.12 and 6.x) awaits a rediscover inside an async listener of each shard client's `__MOVED` (its
    // re-subscription answered MOVED): one that fails (that node and every root node out of reach, or the cluster
    // closed meanwhile) is an unhandled rejection too. On this cluster of ours a failed rediscover resolves: the
    // listeners it moved are subscribed again after it all the same (above on 5.12, by node-redis on 6.x), and a
    // subscription answered MOVED asks again, up to node-redis' redirection limit, then fails where it is handled.
    const slots = (cluster as unknown as { _slots?: { rediscover?: (startWith: object) => Promise<void> } })._slots;
    const rediscoverOn = slots?.rediscover;
    if (slots !== undefined && typeof rediscoverOn === 'function') {
      slots.rediscover = (startWith) => rediscoverOn.call(slots, startWith).catch(() => undefined);
    }
  }

  /** Our channels left a node (its slot moved): the slot map asked for again, then every channel subscribed again. */
  #followMove(): void {
    this.#onShardMoved();
    void rediscover(this.cluster)
      .catch(() => undefined)
      .then(() => {
        if (this.#connected) this.#ready();
      });
  }

  get status(): ConnectionStatus {
    if (this.#connected && this.cluster.isOpen) return 'ready';
    if (this.cluster.isOpen) return 'connecting';
    return this.#ended ? 'end' : 'wait';
  }

  async connect(): Promise<void> {
    if (!this.cluster.isOpen) await this.cluster.connect();
  }

  prepare(): Promise<unknown> | null {
    return this.transport.known === null ? this.transport.resolve() : null;
  }

  subscribe(channel: string): Promise<unknown> {
    this.#touched?.add(channel);
    const sharded = this.transport.known === 'sharded';
    this.#held.set(channel, sharded);
    if (!sharded) return this.cluster.subscribe(channel, this.#listener);
    return this.cluster.sSubscribe(channel, this.#listener).then(() => this.#watchShard(channel));
  }

  /** Calls `listener` when a shard dropped our subscriptions because its slot moved (a failover, a migration). */
  onShardMoved(listener: () => void): void {
    this.#onShardMoved = listener;
  }

  /**
   * node-redis 5.12 does not follow a sharded channel whose slot moved: its cluster listens for an event
   * (`server-sunsubscribe`) its clients never emit (they emit `sharded-channel-moved`), so the channel's listener
   * is dropped. On 5.12 (a cluster without `isReady`) the driver listens for it on the shard's pub/sub client
   * (`pubSub`, an internal field of 5.12 and 6.x), asks for the slot map again and emits `ready`: our pub/sub
   * subscribes every channel again, on its new master, and its waiters retry. 6.x follows the move itself.
   */
  #watchShard(channel: string): void {
    if (this.cluster.isReady !== undefined) return;
    const client = this.cluster.slots[keySlot(channel)]?.master.pubSub?.client;
    if (client === undefined || this.#watched.has(client)) return;
    this.#watched.add(client);
    client.on('sharded-channel-moved', () => this.#followMove());
  }

  unsubscribe(channel: string): Promise<unknown> {
    const sharded = this.#held.get(channel) ?? this.transport.known === 'sharded';
    this.#held.delete(channel);
    return sharded ? this.cluster.sUnsubscribe(channel, this.#listener) : this.cluster.unsubscribe(channel, this.#listener);
  }

  onMessage(listener: (channel: string, message: string) => void): void {
    this.#onMessage = listener;
  }

  psubscribe(pattern: string): Promise<unknown> {
    return this.patterns.psubscribe(pattern);
  }

  punsubscribe(pattern: string): Promise<unknown> {
    return this.patterns.punsubscribe(pattern);
  }

  onPatternMessage(listener: (pattern: string, channel: string, message: string) => void): void {
    this.patterns.onMessage(listener);
  }

  on<E extends keyof ConnectionEvents>(event: E, listener: ConnectionEvents[E]): void {
    this.#events.on(event, listener);
  }

  off<E extends keyof ConnectionEvents>(event: E, listener: ConnectionEvents[E]): void {
    this.#events.off(event, listener);
  }

  async close(timeoutMs: number): Promise<void> {
    await Promise.all([closeCluster(this.cluster, timeoutMs), this.patterns.close(timeoutMs)]);
  }
}
