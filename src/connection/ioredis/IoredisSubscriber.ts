/**
 * The subscriber connection on ioredis. `PublishSubscribe`, not ioredis, owns what is subscribed on the server:
 * ioredis' own re-subscription, replay and offline queue are turned off on a standalone connection (a cluster's
 * sharded subscribers are ioredis' to follow; see `clusterTopology.ts`).
 */
import type { Cluster } from 'ioredis';
import type { ConnectionEvents, ConnectionStatus, SubscriberConnection } from '../driver.js';
import { TransportChoice } from '../transport.js';
import { closeConnection } from './close.js';
import type { ClusterPatterns } from './clusterPatterns.js';
import { isClusterInstance } from './recognize.js';
import type { RedisConnection } from './types.js';

export class IoredisSubscriber implements SubscriberConnection {
  /**
   * @param redis a connection used only for (un)subscribing, owned by this object.
   * @param transport classic or sharded pub/sub (a cluster's, maybe probed); classic by default.
   */
  constructor(
    readonly redis: RedisConnection,
    private readonly transport = new TransportChoice(),
    /** A cluster's patterns, subscribed on every master (keyspace notifications are node-local). */
    private readonly patterns: ClusterPatterns | null = null,
  ) {
    if (!isClusterInstance(redis)) {
      // Nothing may be queued or replayed behind our back: every (UN)SUBSCRIBE is written by PublishSubscribe.
      redis.options.autoResubscribe = false;
      redis.options.autoResendUnfulfilledCommands = false;
      redis.options.enableOfflineQueue = false;
    }
  }

  get status(): ConnectionStatus {
    return this.redis.status;
  }

  connect(): Promise<void> {
    return this.redis.connect();
  }

  prepare(): Promise<unknown> | null {
    return this.transport.known === null ? this.transport.resolve() : null;
  }

  subscribe(channel: string): Promise<unknown> {
    return this.transport.known === 'sharded' ? (this.redis as Cluster).ssubscribe(channel) : this.redis.subscribe(channel);
  }

  unsubscribe(channel: string): Promise<unknown> {
    return this.transport.known === 'sharded' ? (this.redis as Cluster).sunsubscribe(channel) : this.redis.unsubscribe(channel);
  }

  onMessage(listener: (channel: string, message: string) => void): void {
    this.redis.on('message', listener);
    this.redis.on('smessage', listener);
  }

  psubscribe(pattern: string): Promise<unknown> {
    return this.patterns ? this.patterns.psubscribe(pattern) : this.redis.psubscribe(pattern);
  }

  punsubscribe(pattern: string): Promise<unknown> {
    return this.patterns ? this.patterns.punsubscribe(pattern) : this.redis.punsubscribe(pattern);
  }

  onPatternMessage(listener: (pattern: string, channel: string, message: string) => void): void {
    if (this.patterns) this.patterns.onMessage(listener);
    else this.redis.on('pmessage', listener);
  }

  on<E extends keyof ConnectionEvents>(event: E, listener: ConnectionEvents[E]): void {
    this.redis.on(event, listener);
  }

  off<E extends keyof ConnectionEvents>(event: E, listener: ConnectionEvents[E]): void {
    this.redis.off(event, listener);
  }

  async close(timeoutMs: number): Promise<void> {
    await Promise.all([closeConnection(this.redis, timeoutMs), this.patterns?.close(timeoutMs)]);
  }
}
