/**
 * The command connection of a node-redis Sentinel client: a {@link NodeRedisConnection} over the master client
 * of the `createSentinel()` pool, replaced by the new master's client after a failover (node-redis destroys the
 * old master's clients and makes new ones). Its status and events outlive each client: the old client's `end`
 * is a move, not the end (the executor would fail every held command); `end` comes only once the Sentinel
 * client itself is closed. While a move is under way (`beginMove` … `endMove`) the status is `reconnecting`,
 * so that the executor holds commands until the new master's client is in place.
 */
import type { LuaScriptId } from '../../generated/lua.js';
import type { CommandArg, CommandConnection, ConnectionEvents, ConnectionStatus, WireArg } from '../driver.js';
import { closeClient } from './close.js';
import { NodeRedisNotReadyError } from './errors.js';
import { addressOf, databaseOf, NodeRedisConnection } from './NodeRedisConnection.js';
import { EventRelay } from './relay.js';
import type { NodeRedisClient, NodeRedisSentinel } from './types.js';

export class SentinelCommandConnection implements CommandConnection {
  readonly clustered = false;
  readonly keyPrefix = '';
  readonly maxRetriesPerRequest = null;
  readonly #relay = new EventRelay();
  #inner: NodeRedisConnection | null = null;
  // The current client when it is ours (made on `+switch-master`): closed when replaced, and on shutdown.
  #owned: NodeRedisClient | null = null;
  #moving = false;

  constructor(private readonly sentinel: NodeRedisSentinel) {}

  get status(): ConnectionStatus {
    const inner = this.#inner;
    if (inner === null) return this.sentinel.isOpen ? 'connecting' : 'wait';
    if (!this.sentinel.isOpen) return 'end';
    if (this.#moving) return 'reconnecting';
    const status = inner.status;
    // The master's client was destroyed by node-redis (a failover): its successor is on the way.
    return status === 'end' || status === 'wait' ? 'reconnecting' : status;
  }

  /** The master client commands go to now (null before the first). */
  get client(): NodeRedisClient | null {
    return this.#inner?.client ?? null;
  }

  /** Sends commands to `client` (the current master's; `owned` when we made it) from now on. */
  use(client: NodeRedisClient, owned = false): void {
    if (this.#inner?.client === client) return;
    this.#inner?.detach();
    if (this.#owned !== null) closeClient(this.#owned, 1_000).catch(() => undefined);
    this.#owned = owned ? client : null;
    const inner = new NodeRedisConnection(client);
    this.#inner = inner;
    this.#relay.follow(inner, {
      ready: () => {
        if (!this.#moving) this.#relay.emit('ready');
      },
      close: () => this.#relay.emit('close'),
      error: (error) => this.#relay.emit('error', error),
      reconnecting: (delay) => this.#relay.emit('reconnecting', delay),
      end: () => this.#ended(),
    });
    if (!this.#moving && inner.status === 'ready') this.#relay.emit('ready');
  }

  /** A master change was announced: commands are held (`reconnecting`) until {@link endMove}. */
  beginMove(): void {
    this.#moving = true;
  }

  /** The new master's client is in use: held commands may go (`ready` when it is). */
  endMove(): void {
    if (!this.#moving) return;
    this.#moving = false;
    if (this.#inner?.status === 'ready') this.#relay.emit('ready');
  }

  /** The current client ended: a move (the Sentinel client is open), or the end. */
  #ended(): void {
    if (this.sentinel.isOpen) this.#relay.emit('reconnecting', 0);
    else this.#relay.emit('end');
  }

  /** The Sentinel client was closed (by us or its owner). */
  sentinelEnded(): void {
    if (!this.sentinel.isOpen) this.#relay.emit('end');
  }

  /** On shutdown: stops listening to the master client, and closes it if it is ours. */
  async close(timeoutMs: number): Promise<void> {
    this.#inner?.detach();
    this.#relay.unfollow();
    const owned = this.#owned;
    this.#owned = null;
    if (owned !== null) await closeClient(owned, timeoutMs);
  }

  get address(): string {
    return this.#inner === null ? 'sentinel (no master yet)' : addressOf(this.#inner.client);
  }

  get database(): number {
    return this.#inner === null ? 0 : databaseOf(this.#inner.client);
  }

  on<E extends keyof ConnectionEvents>(event: E, listener: ConnectionEvents[E]): void {
    this.#relay.on(event, listener);
  }

  off<E extends keyof ConnectionEvents>(event: E, listener: ConnectionEvents[E]): void {
    this.#relay.off(event, listener);
  }

  /** The current connection, or a refusal (nothing was written) while there is none or a move is under way. */
  #current(): NodeRedisConnection {
    if (this.#inner === null || this.#moving) throw new NodeRedisNotReadyError();
    return this.#inner;
  }

  async evalScript(id: LuaScriptId, keys: readonly string[], args: readonly WireArg[]): Promise<unknown> {
    return this.#current().evalScript(id, keys, args);
  }

  async evalAndWait(id: LuaScriptId, keys: readonly string[], args: readonly WireArg[], replicas: number, timeoutMs: number): Promise<readonly [unknown, number]> {
    return this.#current().evalAndWait(id, keys, args, replicas, timeoutMs);
  }

  async call(name: string, ...args: CommandArg[]): Promise<unknown> {
    return this.#current().call(name, ...args);
  }

  masterOf(): string {
    return '';
  }

  infoOf(): (section: string) => Promise<string> {
    return async (section) => this.#current().infoOf()(section);
  }

  commandOn(): (name: string, ...args: CommandArg[]) => Promise<unknown> {
    return async (name, ...args) => this.#current().call(name, ...args);
  }

  refreshTopology(): Promise<void> {
    return Promise.resolve();
  }

  onTopologyChange(): () => void {
    return () => undefined;
  }
}
