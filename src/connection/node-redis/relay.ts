/**
 * Lifecycle events of a connection whose node-redis client is replaced (a Sentinel client moving to a new
 * master): the executor and `PublishSubscribe` listen to one object for the client's whole life, while the
 * client under it changes. `follow` listens to one inner connection at a time, and `emit` sends on our own.
 */
import { EventEmitter } from 'node:events';
import type { ConnectionEventSource, ConnectionEvents } from '../driver.js';

type Handlers = { readonly [E in keyof ConnectionEvents]?: ConnectionEvents[E] };

export class EventRelay implements ConnectionEventSource {
  readonly #events = new EventEmitter();
  #unfollow: (() => void) | null = null;

  /** Listens to `source` instead of the previous one, calling `handlers` for its events. */
  follow(source: ConnectionEventSource, handlers: Handlers): void {
    this.unfollow();
    const bound = Object.entries(handlers) as [keyof ConnectionEvents, ConnectionEvents[keyof ConnectionEvents]][];
    for (const [event, handler] of bound) source.on(event, handler);
    this.#unfollow = () => {
      for (const [event, handler] of bound) source.off(event, handler);
    };
  }

  /** Stops listening to the inner connection. */
  unfollow(): void {
    this.#unfollow?.();
    this.#unfollow = null;
  }

  emit<E extends keyof ConnectionEvents>(event: E, ...args: Parameters<ConnectionEvents[E]>): void {
    // An EventEmitter throws an `error` nobody listens to.
    if (event === 'error' && this.#events.listenerCount('error') === 0) return;
    this.#events.emit(event, ...args);
  }

  on<E extends keyof ConnectionEvents>(event: E, listener: ConnectionEvents[E]): void {
    this.#events.on(event, listener);
  }

  off<E extends keyof ConnectionEvents>(event: E, listener: ConnectionEvents[E]): void {
    this.#events.off(event, listener);
  }
}
