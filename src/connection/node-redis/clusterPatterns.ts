/**
 * A node-redis cluster's pattern subscriptions (keyspace notifications, for RObject listeners). Redis publishes a
 * keyspace event only on the node that holds the key, and node-redis sends a cluster's PSUBSCRIBE to one node, so
 * each pattern is subscribed on every master, each on a client of our own (`duplicate()` of the master's node
 * client, without an offline queue) — Redisson's `PublishSubscribeService.psubscribe` outside single mode.
 *
 * The set of masters follows the command cluster's slot map ({@link sync}, on every topology change): a master
 * that appears gets every pattern, a node that is no longer a master is closed. node-redis re-subscribes a
 * client's patterns itself after its reconnect; a PSUBSCRIBE of a pattern a client holds (the owner's again on
 * `ready`) is answered by node-redis without writing anything (one listener per pattern, deduped).
 */
import { closeClient } from './close.js';
import type { NodeRedisClient, NodeRedisCluster } from './types.js';

type PatternListener = (pattern: string, channel: string, message: string) => void;

export class NodeRedisClusterPatterns {
  // Each pattern with its one listener (node-redis calls it with the message and the channel).
  readonly #patterns = new Map<string, (message: string, channel: string) => void>();
  // Per master address, our client and its connect.
  readonly #nodes = new Map<string, { client: Promise<NodeRedisClient> }>();
  readonly #listeners: PatternListener[] = [];
  #closed = false;

  /** @param command the client's command cluster, whose slot map names the masters. */
  constructor(private readonly command: NodeRedisCluster) {}

  /** PSUBSCRIBE `pattern` on every master; resolves once each confirmed it. */
  async psubscribe(pattern: string): Promise<void> {
    let listener = this.#patterns.get(pattern);
    if (listener === undefined) this.#patterns.set(pattern, (listener = (message, channel) => this.#deliver(pattern, channel, message)));
    this.sync();
    const l = listener;
    // A master that cannot be reached (dead, still in the map) is left to the next topology change.
    await Promise.all([...this.#nodes.values()].map(({ client }) => client.then((c) => c.pSubscribe(pattern, l), () => undefined)));
  }

  /** PUNSUBSCRIBE `pattern` on every master. */
  async punsubscribe(pattern: string): Promise<void> {
    const listener = this.#patterns.get(pattern);
    this.#patterns.delete(pattern);
    if (listener === undefined) return;
    await Promise.all([...this.#nodes.values()].map(async ({ client }) => (await client).pUnsubscribe(pattern, listener).catch(() => undefined)));
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

  /** The masters of the slot map, each with a client of ours while any pattern is subscribed. */
  sync(): void {
    if (this.#closed || this.#patterns.size === 0) return;
    const masters = new Map(this.command.masters.map((m) => [m.address, m]));
    for (const [address, node] of this.#nodes) {
      if (masters.has(address)) continue;
      this.#nodes.delete(address);
      void node.client.then((c) => closeClient(c, 0), () => undefined);
    }
    for (const [address, master] of masters) {
      if (this.#nodes.has(address)) continue;
      const client = this.command.nodeClient(master).then(async (nodeClient) => {
        const own = nodeClient.duplicate({ disableOfflineQueue: true });
        own.on('error', () => undefined);
        await own.connect();
        for (const [pattern, listener] of this.#patterns) await own.pSubscribe(pattern, listener);
        return own;
      });
      client.catch(() => {
        // Unreachable (a dead master the map still names): tried again at the next topology change.
        if (this.#nodes.get(address)?.client === client) this.#nodes.delete(address);
      });
      this.#nodes.set(address, { client });
    }
  }

  #deliver(pattern: string, channel: string, message: string): void {
    for (const l of this.#listeners) l(pattern, channel, message);
  }

  #closeAll(timeoutMs: number): Promise<unknown> {
    const nodes = [...this.#nodes.values()];
    this.#nodes.clear();
    return Promise.all(nodes.map(({ client }) => client.then((c) => closeClient(c, timeoutMs), () => undefined)));
  }
}
