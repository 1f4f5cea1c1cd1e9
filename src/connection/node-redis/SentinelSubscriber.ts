/**
 * The subscriber connection of a node-redis Sentinel client: a {@link NodeRedisSubscriber} of our own over a
 * `duplicate()` of the current master's client (its credentials, TLS and RESP, no offline queue), replaced by a
 * duplicate of the new master's client after a failover.
 *
 * node-redis' Sentinel has a pub/sub proxy of its own that moves its subscriptions to a new master by itself;
 * it is not used: `PublishSubscribe` re-subscribes every channel on `ready` and wakes the waiters then, so a
 * proxy that re-subscribes too would send each channel twice and say nothing about when it is done. A fresh
 * client per master has no subscription of its own: on its `ready` each channel is subscribed once, by
 * `PublishSubscribe`, on the new master.
 */
import type { ConnectionEvents, ConnectionStatus, SubscriberConnection } from '../driver.js';
import { NodeRedisNotReadyError } from './errors.js';
import { NodeRedisSubscriber } from './NodeRedisSubscriber.js';
import { EventRelay } from './relay.js';
import type { NodeRedisClient, NodeRedisClientOptions } from './types.js';

export class SentinelSubscriber implements SubscriberConnection {
  readonly #relay = new EventRelay();
  #inner: NodeRedisSubscriber | null = null;
  // The master client the next subscriber duplicates.
  #source: NodeRedisClient | null = null;
  // connect() was called (PublishSubscribe's first subscription): every master's subscriber connects.
  #wanted = false;
  #closed = false;
  #onMessage: (channel: string, message: string) => void = () => undefined;
  #onPatternMessage: (pattern: string, channel: string, message: string) => void = () => undefined;

  /** @param overrides of the duplicate (`disableOfflineQueue`, `pingInterval`). */
  constructor(private readonly overrides: Partial<NodeRedisClientOptions>) {}

  get status(): ConnectionStatus {
    if (this.#closed) return 'end';
    if (this.#inner === null) return this.#wanted ? 'connecting' : 'wait';
    const status = this.#inner.status;
    return status === 'end' ? 'reconnecting' : status;
  }

  connect(): Promise<void> {
    this.#wanted = true;
    if (this.#inner === null && this.#source !== null) this.#open(this.#source);
    return Promise.resolve();
  }

  /** Subscribes on `client`'s master from now on: the subscriber of the old master closes, a new one connects. */
  moveTo(client: NodeRedisClient, closeTimeoutMs: number): void {
    if (this.#closed || this.#source === client) return;
    this.#source = client;
    const old = this.#inner;
    this.#inner = null;
    if (old !== null) {
      this.#relay.unfollow();
      const wasReady = old.status === 'ready';
      old.close(closeTimeoutMs).catch(() => undefined);
      // Its subscriptions are gone: PublishSubscribe subscribes them again on the new one's `ready`.
      if (wasReady) this.#relay.emit('close');
    }
    if (this.#wanted) this.#open(client);
  }

  #open(source: NodeRedisClient): void {
    const inner = new NodeRedisSubscriber(source.duplicate(this.overrides));
    inner.onMessage((channel, message) => this.#onMessage(channel, message));
    inner.onPatternMessage((pattern, channel, message) => this.#onPatternMessage(pattern, channel, message));
    this.#inner = inner;
    this.#relay.follow(inner, {
      ready: () => this.#relay.emit('ready'),
      close: () => this.#relay.emit('close'),
      error: (error) => this.#relay.emit('error', error),
      reconnecting: (delay) => this.#relay.emit('reconnecting', delay),
      // Its master went away for good; the next master's subscriber replaces it.
      end: () => this.#relay.emit('reconnecting', 0),
    });
    inner.connect().catch(() => undefined);
  }

  prepare(): null {
    return null;
  }

  #current(): NodeRedisSubscriber {
    if (this.#inner === null) throw new NodeRedisNotReadyError();
    return this.#inner;
  }

  async subscribe(channel: string): Promise<unknown> {
    return this.#current().subscribe(channel);
  }

  async unsubscribe(channel: string): Promise<unknown> {
    return this.#current().unsubscribe(channel);
  }

  async psubscribe(pattern: string): Promise<unknown> {
    return this.#current().psubscribe(pattern);
  }

  async punsubscribe(pattern: string): Promise<unknown> {
    return this.#current().punsubscribe(pattern);
  }

  onMessage(listener: (channel: string, message: string) => void): void {
    this.#onMessage = listener;
  }

  onPatternMessage(listener: (pattern: string, channel: string, message: string) => void): void {
    this.#onPatternMessage = listener;
  }

  on<E extends keyof ConnectionEvents>(event: E, listener: ConnectionEvents[E]): void {
    this.#relay.on(event, listener);
  }

  off<E extends keyof ConnectionEvents>(event: E, listener: ConnectionEvents[E]): void {
    this.#relay.off(event, listener);
  }

  async close(timeoutMs: number): Promise<void> {
    this.#closed = true;
    const inner = this.#inner;
    this.#inner = null;
    if (inner !== null) await inner.close(timeoutMs);
    this.#relay.emit('end');
    this.#relay.unfollow();
  }
}
