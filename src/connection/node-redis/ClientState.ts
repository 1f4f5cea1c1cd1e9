/**
 * A node-redis client's state and events under ioredis' names, which the executor and `PublishSubscribe`
 * expect: node-redis has `connect`, `ready`, `error`, `reconnecting`, `end` (and 6.x's `terminated`), and no
 * `close`. Ours: `close` when a ready socket goes away (the first `error`, `reconnecting` or `end` after
 * `ready`), `end` when the client was closed or gave up reconnecting, `reconnecting` with a delay of 0 (node-redis
 * does not say it). It also keeps an `error` listener on the client for its whole life: node-redis, an
 * EventEmitter, would throw an `error` nobody listens to and crash the process.
 */
import { EventEmitter } from 'node:events';
import type { ConnectionEvents, ConnectionStatus } from '../driver.js';
import type { NodeRedisClient } from './types.js';

type Phase = 'wait' | 'connecting' | 'ready' | 'reconnecting' | 'end';

export class ClientState {
  readonly #events = new EventEmitter();
  #phase: Phase;
  // Our listeners on the client, for detach().
  readonly #listening: [string, (...args: never[]) => void][] = [];

  /**
   * @param around runs `before` and `after` our `ready` listeners (the subscriber notes what they subscribe, then
   *   drops the channels they did not).
   */
  constructor(
    readonly client: NodeRedisClient,
    around: { readonly before?: () => void; readonly after?: () => void } = {},
  ) {
    this.#phase = client.isReady ? 'ready' : client.isOpen ? 'connecting' : 'wait';
    const lost = (): void => {
      if (this.#phase !== 'ready') return;
      this.#phase = 'reconnecting';
      this.#events.emit('close');
    };
    const on = (event: string, listener: (...args: never[]) => void): void => {
      client.on(event, listener);
      this.#listening.push([event, listener]);
    };
    on('ready', () => {
      this.#phase = 'ready';
      around.before?.();
      this.#events.emit('ready');
      around.after?.();
    });
    on('connect', () => {
      if (this.#phase === 'wait') this.#phase = 'connecting';
    });
    on('error', (error: Error) => {
      lost();
      // Only while someone listens: an EventEmitter throws an `error` nobody listens to.
      if (this.#events.listenerCount('error') > 0) this.#events.emit('error', error);
    });
    on('reconnecting', () => {
      lost();
      this.#phase = 'reconnecting';
      this.#events.emit('reconnecting', 0);
    });
    const ended = (): void => {
      if (this.#phase === 'end') return;
      lost();
      this.#phase = 'end';
      this.#events.emit('end');
    };
    on('end', ended);
    // 6.x: the reconnect strategy gave up (the client is closed for good).
    on('terminated', ended);
  }

  /**
   * Removes our listeners from the client (a client passed in outlives this Redisson client: many clients made
   * and shut down over one node-redis client must not pile listeners up on it).
   */
  detach(): void {
    for (const [event, listener] of this.#listening.splice(0)) this.client.off(event, listener);
  }

  get status(): ConnectionStatus {
    if (this.client.isReady) return 'ready';
    if (!this.client.isOpen) return this.#phase === 'wait' ? 'wait' : 'end';
    return this.#phase === 'ready' ? 'reconnecting' : this.#phase === 'wait' ? 'connecting' : this.#phase;
  }

  on<E extends keyof ConnectionEvents>(event: E, listener: ConnectionEvents[E]): void {
    this.#events.on(event, listener);
  }

  off<E extends keyof ConnectionEvents>(event: E, listener: ConnectionEvents[E]): void {
    this.#events.off(event, listener);
  }
}
