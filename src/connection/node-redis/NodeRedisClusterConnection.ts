/**
 * The command connection on a node-redis `createCluster()` client. node-redis' cluster routes a command by its
 * first key and follows MOVED/ASK, but a script followed by `WAIT` must reach the slot master's own socket, and a
 * command must never wait in a node client's offline queue (the executor holds commands itself). So every
 * command is written here on the node client of the key's master (`cluster.slots[slot].master`, its client), only
 * while that client is ready; MOVED and ASK of plain scripts and commands are followed here, those of a synced
 * write by the executor (which refreshes the slot map and sends the pair again).
 *
 * The slot map is node-redis' own. node-redis asks for it again only after a MOVED (6.x also after a node keeps
 * reconnecting); {@link refreshTopology} asks for it through `_slots.rediscover`, an internal of node-redis that
 * 5.12 and 6.x share (the only one this driver uses), and tells the topology listeners when the masters changed.
 */
import { EventEmitter } from 'node:events';
import type { LuaScriptId } from '../../generated/lua.js';
import type { CommandArg, CommandConnection, ConnectionEvents, ConnectionStatus, WireArg } from '../driver.js';
import { keySlot } from '../slots.js';
import { NodeRedisNotReadyError } from './errors.js';
import { commandOptionsFor } from './NodeRedisConnection.js';
import { runScript, runScriptAndWait } from './scripts.js';
import type { NodeRedisClient, NodeRedisCluster, NodeRedisClusterNode } from './types.js';

// Commands that name no key: sent to any master.
const KEYLESS = new Set(['PING', 'INFO', 'TIME', 'PUBSUB', 'CONFIG', 'CLUSTER', 'SCRIPT', 'CLIENT', 'ECHO', 'DBSIZE']);
// Commands whose key follows a subcommand.
const KEY_SECOND = new Set(['MEMORY', 'OBJECT']);
// How often a plain script or command follows MOVED/ASK before the redirection is the caller's.
const MAX_REDIRECTS = 5;

/** What `rediscover` needs of a node-redis cluster (an internal of 5.12 and 6.x: `_slots.rediscover(startWith)`). */
interface Rediscoverable {
  readonly _slots?: { rediscover?: (startWith: { readonly options?: object | undefined }) => Promise<void> };
}

/** Asks `cluster` for its slot map again, starting with a ready master (else a root node). */
export async function rediscover(cluster: NodeRedisCluster): Promise<void> {
  const inner = cluster as unknown as Rediscoverable;
  const roots = cluster._options?.rootNodes ?? [];
  const rediscoverOn = inner._slots?.rediscover;
  if (typeof rediscoverOn !== 'function' || !cluster.isOpen) return;
  const ready = cluster.masters.map((m) => m.client).find((c) => c?.isReady === true);
  const root = roots[Math.floor(Math.random() * roots.length)];
  const from: object | undefined = ready?.options ?? root;
  if (from === undefined) return;
  // A copy: node-redis sets `socket.reconnectStrategy = false` on the options it starts with (for its one-off
  // client); on a node client's own options, every later duplicate() of that client would never reconnect.
  const { socket } = from as { socket?: object };
  await rediscoverOn.call(inner._slots, { options: { ...from, ...(socket === undefined ? {} : { socket: { ...socket } }) } });
}

/** Which master serves each slot, as one comparable string. */
export function topologyOf(cluster: NodeRedisCluster): string {
  const seen: string[] = [];
  let last = '';
  for (let slot = 0; slot < cluster.slots.length; slot++) {
    const address = cluster.slots[slot]?.master.address ?? '';
    if (address !== last || slot === 0) seen.push(`${slot}=${address}`);
    last = address;
  }
  return seen.join(',');
}

/**
 * `client` once it is ready, or NodeRedisNotReadyError when it is not by `deadline` (a `performance.now()`
 * value): nothing was written, and nothing will be after the executor gave up on the command.
 */
async function readyBy(client: NodeRedisClient, deadline: number): Promise<NodeRedisClient> {
  if (client.isReady) return client;
  const left = deadline - performance.now();
  if (left <= 0) throw new NodeRedisNotReadyError();
  let timer: NodeJS.Timeout | undefined;
  let onReady: (() => void) | undefined;
  await new Promise<void>((resolve) => {
    onReady = resolve;
    client.on('ready', onReady);
    timer = setTimeout(resolve, left);
  });
  clearTimeout(timer);
  if (onReady) client.off('ready', onReady);
  if (!client.isReady || performance.now() > deadline) throw new NodeRedisNotReadyError();
  return client;
}

export class NodeRedisClusterConnection implements CommandConnection {
  readonly clustered = true;
  readonly keyPrefix = '';
  readonly database = 0;
  readonly maxRetriesPerRequest = null;
  readonly #events = new EventEmitter();
  readonly #topology = new EventEmitter();
  // Scripts sent on each node socket (by EVAL, or EVALSHA answered): forgotten on the socket's next `ready`.
  readonly #loaded = new WeakMap<NodeRedisClient, Set<LuaScriptId>>();
  #seen = '';
  #changes = 0;
  #refreshing: Promise<void> | null = null;
  #ended = false;
  readonly #listening: [string, (...args: never[]) => void][] = [];
  // Our `ready` listeners on node clients (a cluster passed in outlives this Redisson client).
  readonly #onNodes: [NodeRedisClient, () => void][] = [];

  /**
   * @param cluster a node-redis cluster client (connected or connecting).
   * @param timeoutMs how long a command may wait for its master's socket to be ready (the executor's `timeout`).
   */
  constructor(
    readonly cluster: NodeRedisCluster,
    private readonly timeoutMs: number,
  ) {
    const on = (event: string, listener: (...args: never[]) => void): void => {
      cluster.on(event, listener);
      this.#listening.push([event, listener]);
    };
    on('connect', () => {
      this.#seen = topologyOf(cluster);
      this.#events.emit('ready');
    });
    on('disconnect', () => {
      this.#ended = true;
      this.#events.emit('end');
    });
    on('error', (error: Error) => {
      // Only while someone listens: an EventEmitter throws an `error` nobody listens to.
      if (this.#events.listenerCount('error') > 0) this.#events.emit('error', error);
    });
    if (this.#connected) this.#seen = topologyOf(cluster);
  }

  /** Whether the first slot map was loaded (5.12 has no `isReady`). */
  get #connected(): boolean {
    return this.cluster.isOpen && (this.cluster.isReady ?? this.cluster.masters.length > 0);
  }

  get status(): ConnectionStatus {
    if (this.#connected) return 'ready';
    if (this.cluster.isOpen) return 'connecting';
    return this.#ended ? 'end' : 'wait';
  }

  get address(): string {
    const roots = this.cluster._options?.rootNodes ?? [];
    const named = roots.map((r) => {
      const o = r as { url?: string; socket?: { host?: string; port?: number } };
      if (o.url !== undefined) return o.url.replace(/^rediss?:\/\/(?:[^@/]*@)?/, '').replace(/\/.*$/, '');
      return `${o.socket?.host ?? 'localhost'}:${o.socket?.port ?? 6379}`;
    });
    return `cluster ${named.join(',')}`;
  }

  on<E extends keyof ConnectionEvents>(event: E, listener: ConnectionEvents[E]): void {
    this.#events.on(event, listener);
  }

  off<E extends keyof ConnectionEvents>(event: E, listener: ConnectionEvents[E]): void {
    this.#events.off(event, listener);
  }

  /** Stops listening to the cluster (on shutdown: a cluster passed in outlives this Redisson client). */
  detach(): void {
    for (const [event, listener] of this.#listening.splice(0)) this.cluster.off(event, listener);
    for (const [client, listener] of this.#onNodes.splice(0)) client.off('ready', listener);
  }

  /** The master node serving `key`'s slot, any master for a keyless command; undefined before the map is loaded. */
  #masterNode(key: string | undefined): NodeRedisClusterNode | undefined {
    if (key === undefined) return this.cluster.masters.find((m) => m.client?.isReady === true) ?? this.cluster.masters[0];
    return this.cluster.slots[keySlot(key)]?.master;
  }

  /** The node's client once ready, within the executor's `timeout` of this call (connecting it when it has none). */
  async #clientOf(node: NodeRedisClusterNode | undefined, started: number): Promise<NodeRedisClient> {
    if (node === undefined) throw new NodeRedisNotReadyError();
    const deadline = started + this.timeoutMs * 0.9;
    const client = node.client ?? (await this.cluster.nodeClient(node));
    return readyBy(client, deadline);
  }

  /** `send` for `client`: written now, or refused when it is not ready (never queued). */
  #sender(client: NodeRedisClient): (args: readonly (string | Buffer)[]) => Promise<unknown> {
    const options = commandOptionsFor(client);
    return (args) => (client.isReady ? client.sendCommand(args, options) : Promise.reject(new NodeRedisNotReadyError()));
  }

  /** The scripts `client`'s current socket was sent. */
  #loadedOn(client: NodeRedisClient): Set<LuaScriptId> {
    let loaded = this.#loaded.get(client);
    if (loaded === undefined) {
      const set = (loaded = new Set());
      this.#loaded.set(client, set);
      const forget = (): void => set.clear();
      client.on('ready', forget);
      this.#onNodes.push([client, forget]);
    }
    return loaded;
  }

  /**
   * `run` on the client of the master serving `key`, following MOVED (the slot map asked for again) and ASK (the
   * command sent after `ASKING` on the node named): a redirected command did not run, so sending it again is safe.
   */
  async #routed(key: string | undefined, run: (client: NodeRedisClient, asking: boolean) => Promise<unknown>): Promise<unknown> {
    const started = performance.now();
    let node = this.#masterNode(key);
    let asking = false;
    for (let redirects = 0; ; redirects++) {
      const client = await this.#clientOf(node, started);
      try {
        if (!asking) return await run(client, false);
        const send = this.#sender(client);
        const [, reply] = await Promise.all([send(['ASKING']), run(client, true)]);
        return reply;
      } catch (error) {
        const message = error instanceof Error ? error.message : '';
        const redirect = /^(MOVED|ASK) \d+ (\S+)$/.exec(message);
        if (redirect === null || redirects >= MAX_REDIRECTS) throw error;
        asking = redirect[1] === 'ASK';
        if (asking) {
          node = this.cluster.masters.find((m) => m.address === redirect[2]);
        } else {
          await this.refreshTopology();
          node = this.#masterNode(key);
        }
      }
    }
  }

  evalScript(id: LuaScriptId, keys: readonly string[], args: readonly WireArg[]): Promise<unknown> {
    // After ASKING, the source (the node importing the slot may not have the script).
    return this.#routed(keys[0], (client, asking) => runScript(this.#sender(client), asking ? new Set() : this.#loadedOn(client), id, keys, args));
  }

  async evalAndWait(id: LuaScriptId, keys: readonly string[], args: readonly WireArg[], replicas: number, timeoutMs: number): Promise<readonly [unknown, number]> {
    // Not redirected here: the executor refreshes the slot map after a MOVED and sends the pair again.
    const client = await this.#clientOf(this.#masterNode(keys[0]), performance.now());
    return runScriptAndWait(this.#sender(client), this.#loadedOn(client), id, keys, args, replicas, timeoutMs);
  }

  call(name: string, ...args: CommandArg[]): Promise<unknown> {
    const argv: (string | Buffer)[] = [name];
    for (const a of args) argv.push(typeof a === 'number' ? String(a) : a);
    const upper = name.toUpperCase();
    const keyArg = KEYLESS.has(upper) ? undefined : argv[KEY_SECOND.has(upper) ? 2 : 1];
    const key = keyArg === undefined ? undefined : keyArg.toString();
    return this.#routed(key, (client) => this.#sender(client)(argv));
  }

  masterOf(key: string): string | undefined {
    return this.cluster.slots[keySlot(key)]?.master.address;
  }

  #masterNamed(master: string): NodeRedisClusterNode | undefined {
    return this.cluster.masters.find((m) => m.address === master);
  }

  infoOf(master: string): ((section: string) => Promise<string>) | undefined {
    const node = this.#masterNamed(master);
    if (node === undefined) return undefined;
    return async (section) => String(await this.#sender(await this.#clientOf(node, performance.now()))(['INFO', section]));
  }

  commandOn(master: string): ((name: string, ...args: CommandArg[]) => Promise<unknown>) | undefined {
    const node = this.#masterNamed(master);
    if (node === undefined) return undefined;
    return async (name, ...args) => this.#sender(await this.#clientOf(node, performance.now()))([name, ...args.map((a) => (typeof a === 'number' ? String(a) : a))]);
  }

  /** Asks the cluster for its slot map again (one request at a time); tells the listeners when the masters changed. */
  refreshTopology(): Promise<void> {
    this.#refreshing ??= rediscover(this.cluster)
      .catch(() => undefined)
      .then(() => {
        const now = topologyOf(this.cluster);
        if (now === this.#seen) return;
        this.#seen = now;
        this.#changes++;
        this.#topology.emit('change');
      })
      .finally(() => (this.#refreshing = null));
    return this.#refreshing;
  }

  /** How many times the masters were seen to change (a follower's look ends at the next one). */
  get topologyChanges(): number {
    return this.#changes;
  }

  onTopologyChange(listener: () => void): () => void {
    this.#topology.on('change', listener);
    return () => this.#topology.off('change', listener);
  }
}
