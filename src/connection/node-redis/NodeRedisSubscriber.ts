/**
 * The subscriber connection on node-redis: a client of its own (`duplicate()` of the command client, with
 * `disableOfflineQueue`), used only for SUBSCRIBE / UNSUBSCRIBE.
 *
 * node-redis re-subscribes by itself after a reconnect, before it emits `ready`, and cannot be told not to;
 * `PublishSubscribe` subscribes every channel it waits on again on that `ready`. Both are made harmless here:
 * every channel is subscribed with the one listener of this object, and node-redis answers a SUBSCRIBE of a
 * channel it already holds with that listener at once, without writing anything (its listeners are a set), so
 * the second subscription neither reaches the server nor delivers a message twice — and it resolves, so
 * `PublishSubscribe` wakes the channel's waiters once, as after its own re-subscription (a release may have been
 * missed). A channel node-redis re-subscribed that `PublishSubscribe` no longer wants (it was given up while the
 * socket was down, when no UNSUBSCRIBE could be written) is unsubscribed right after that `ready`. Patterns
 * (PSUBSCRIBE, for keyspace notifications) are handled the same way, with one listener per pattern (node-redis
 * calls a pattern's listeners with the message and the channel only).
 */
import type { ConnectionEvents, ConnectionStatus, SubscriberConnection } from '../driver.js';
import { ClientState } from './ClientState.js';
import { closeClient } from './close.js';
import type { NodeRedisClient } from './types.js';

export class NodeRedisSubscriber implements SubscriberConnection {
  readonly #state: ClientState;
  // Channels subscribed through node-redis (with our listener), whether or not the socket has them now.
  readonly #held = new Set<string>();
  // Patterns subscribed through node-redis, each with its listener (the same one every time: node-redis dedupes).
  readonly #patterns = new Map<string, (message: string, channel: string) => void>();
  // While our `ready` listeners run: the channels and patterns they subscribed (the others are stale).
  #touched: Set<string> | null = null;
  #touchedPatterns: Set<string> | null = null;
  #onMessage: (channel: string, message: string) => void = () => undefined;
  #onPatternMessage: (pattern: string, channel: string, message: string) => void = () => undefined;
  readonly #listener = (message: string, channel: string): void => this.#onMessage(channel, message);

  /** @param client an unconnected client used only for (un)subscribing, owned by this object. */
  constructor(readonly client: NodeRedisClient) {
    const before = (): void => {
      this.#touched = new Set();
      this.#touchedPatterns = new Set();
    };
    this.#state = new ClientState(client, { before, after: () => this.#dropStale() });
  }

  get status(): ConnectionStatus {
    return this.#state.status;
  }

  async connect(): Promise<void> {
    await this.client.connect();
  }

  prepare(): null {
    return null;
  }

  subscribe(channel: string): Promise<unknown> {
    this.#touched?.add(channel);
    this.#held.add(channel);
    return this.client.subscribe(channel, this.#listener);
  }

  unsubscribe(channel: string): Promise<unknown> {
    this.#held.delete(channel);
    return this.client.unsubscribe(channel, this.#listener);
  }

  onMessage(listener: (channel: string, message: string) => void): void {
    this.#onMessage = listener;
  }

  psubscribe(pattern: string): Promise<unknown> {
    this.#touchedPatterns?.add(pattern);
    let listener = this.#patterns.get(pattern);
    if (listener === undefined) this.#patterns.set(pattern, (listener = (message, channel) => this.#onPatternMessage(pattern, channel, message)));
    return this.client.pSubscribe(pattern, listener);
  }

  punsubscribe(pattern: string): Promise<unknown> {
    const listener = this.#patterns.get(pattern);
    this.#patterns.delete(pattern);
    return listener === undefined ? Promise.resolve() : this.client.pUnsubscribe(pattern, listener);
  }

  onPatternMessage(listener: (pattern: string, channel: string, message: string) => void): void {
    this.#onPatternMessage = listener;
  }

  on<E extends keyof ConnectionEvents>(event: E, listener: ConnectionEvents[E]): void {
    this.#state.on(event, listener);
  }

  off<E extends keyof ConnectionEvents>(event: E, listener: ConnectionEvents[E]): void {
    this.#state.off(event, listener);
  }

  close(timeoutMs: number): Promise<void> {
    return closeClient(this.client, timeoutMs);
  }

  /** After `ready`'s listeners: unsubscribes what node-redis re-subscribed and nobody asked for again. */
  #dropStale(): void {
    const [touched, patterns] = [this.#touched, this.#touchedPatterns];
    this.#touched = this.#touchedPatterns = null;
    if (touched === null || patterns === null) return;
    for (const channel of [...this.#held]) if (!touched.has(channel)) this.unsubscribe(channel).catch(() => undefined);
    for (const pattern of [...this.#patterns.keys()]) if (!patterns.has(pattern)) this.punsubscribe(pattern).catch(() => undefined);
  }
}
