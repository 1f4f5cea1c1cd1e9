/**
 * A cluster's pattern subscriptions (keyspace notifications, for RObject listeners). Redis publishes a keyspace
 * event only on the node that holds the key, and a PSUBSCRIBE on a cluster is not forwarded to the other nodes,
 * so each pattern is subscribed on every master, each on a connection of its own — what Redisson's
 * `PublishSubscribeService.psubscribe` does for a `__keyspace`/`__keyevent` pattern outside single mode.
 *
 * The set of masters follows the command connection's slot map (its `refresh`, `+node` and `-node`): a master
 * that appears (a promoted replica, a node added) gets every pattern; a node that is no longer a master is
 * closed. Each connection psubscribes every pattern on each of its `ready`s: ioredis neither queues nor replays.
 */
import type { Cluster, Redis } from 'ioredis';
import { closeConnection } from './close.js';
import { nodeKey } from './IoredisConnection.js';

type PatternListener = (pattern: string, channel: string, message: string) => void;

export class ClusterPatterns {
  readonly #patterns = new Set<string>();
  readonly #nodes = new Map<string, Redis>();
  readonly #listeners: PatternListener[] = [];
  #closed = false;

  /** @param command the client's cluster command connection, whose slot map names the masters. */
  constructor(private readonly command: Cluster) {
    const sync = (): void => this.#sync();
    command.on('refresh', sync);
    command.on('+node', sync);
    command.on('-node', sync);
  }

  /** PSUBSCRIBE `pattern` on every master; resolves once each confirmed it. */
  async psubscribe(pattern: string): Promise<void> {
    this.#patterns.add(pattern);
    this.#sync();
    await Promise.all([...this.#nodes.values()].map((node) => this.#subscribeOn(node, pattern)));
  }

  /** PUNSUBSCRIBE `pattern` on every master that is connected. */
  async punsubscribe(pattern: string): Promise<void> {
    this.#patterns.delete(pattern);
    await Promise.all([...this.#nodes.values()].filter((n) => n.status === 'ready').map((n) => n.punsubscribe(pattern).catch(() => undefined)));
    // No pattern left: nothing to listen on.
    if (this.#patterns.size === 0) void this.#closeAll(0);
  }

  onMessage(listener: PatternListener): void {
    this.#listeners.push(listener);
  }

  async close(timeoutMs: number): Promise<void> {
    this.#closed = true;
    await this.#closeAll(timeoutMs);
  }

  #closeAll(timeoutMs: number): Promise<unknown> {
    const nodes = [...this.#nodes.values()];
    this.#nodes.clear();
    return Promise.all(nodes.map((n) => closeConnection(n, timeoutMs)));
  }

  /** The masters of the slot map, each with a subscriber connection while any pattern is subscribed. */
  #sync(): void {
    if (this.#closed || this.#patterns.size === 0) return;
    const masters = new Map(this.command.nodes('master').map((node) => [nodeKey(node), node]));
    for (const [key, node] of this.#nodes) {
      if (masters.has(key)) continue;
      this.#nodes.delete(key);
      void closeConnection(node, 0);
    }
    for (const [key, master] of masters) {
      if (this.#nodes.has(key)) continue;
      const node = master.duplicate({
        keyPrefix: '',
        lazyConnect: false,
        readOnly: false,
        autoResubscribe: false,
        autoResendUnfulfilledCommands: false,
        enableOfflineQueue: false,
      });
      node.on('error', () => undefined);
      node.on('pmessage', (pattern: string, channel: string, message: string) => {
        for (const l of this.#listeners) l(pattern, channel, message);
      });
      node.on('ready', () => {
        for (const pattern of this.#patterns) node.psubscribe(pattern).catch(() => undefined);
      });
      this.#nodes.set(key, node);
    }
  }

  /** PSUBSCRIBE on `node` once it is ready (its `ready` listener subscribes every pattern then). */
  #subscribeOn(node: Redis, pattern: string): Promise<unknown> {
    if (node.status === 'ready') return node.psubscribe(pattern);
    return new Promise((resolve, reject) => {
      const ready = (): void => {
        node.off('end', ended);
        node.psubscribe(pattern).then(resolve, reject);
      };
      const ended = (): void => {
        node.off('ready', ready);
        // The node left the slot map (or the client closed): the masters that remain decide.
        resolve(undefined);
      };
      node.once('ready', ready);
      node.once('end', ended);
    });
  }
}
