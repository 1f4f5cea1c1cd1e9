/**
 * A client's connections on a node-redis Sentinel client (`createSentinel()` of `redis` 5.12+ or 6.x, passed in
 * or made from `{ driver: 'node-redis', sentinel }`), and how they follow a failover.
 *
 * node-redis' Sentinel client finds the master itself: it listens to the Sentinel it is connected to, and when
 * the master changed it destroys its master clients, makes new ones and emits `topology-change` with type
 * `MASTER_CHANGE`. On that event the commands are held (the gate, and a `reconnecting` status), the cached
 * replica counts forgotten, and once node-redis' new master client is connected the command connection moves
 * to it, the subscriber is replaced by a duplicate of it (where `PublishSubscribe` subscribes every channel
 * once and wakes its waiters), and the held commands go. Writes are followed by `WAIT` (`replicated`).
 */
import type { CommandGate, Connections, MasterSwitch, WaiterWaker } from '../driver.js';
import { closeClient, closeWithin } from './close.js';
import { loadNodeRedis } from './nodeRedisModule.js';
import { SentinelCommandConnection } from './SentinelCommand.js';
import { SentinelSubscriber } from './SentinelSubscriber.js';
import { isNodeRedisClient } from './recognize.js';
import type { NodeRedisClient, NodeRedisSentinel } from './types.js';

/** Resolves after `ms` (an unref'd timer). */
function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}

/** `host:port` of a node node-redis names. */
function nodeName(node: unknown): string | null {
  if (typeof node !== 'object' || node === null) return null;
  const { host, port } = node as { host?: unknown; port?: unknown };
  return typeof host === 'string' && typeof port === 'number' ? `${host}:${port}` : null;
}

/** node-redis' `nodeAddressMap` (an object by `host:port`, or a function) applied to an announced address. */
function mapNode(map: unknown, host: string, port: number): { host: string; port: number } {
  const key = `${host}:${port}`;
  const mapped: unknown = typeof map === 'function' ? (map as (address: string) => unknown)(key) : typeof map === 'object' && map !== null ? (map as Record<string, unknown>)[key] : undefined;
  const m = (mapped ?? {}) as { host?: unknown; port?: unknown };
  return typeof m.host === 'string' && typeof m.port === 'number' ? { host: m.host, port: m.port } : { host, port };
}

export interface SentinelSetup {
  readonly sentinel: NodeRedisSentinel;
  /** Whether Redisson made the Sentinel client (and closes it on shutdown). */
  readonly owns: boolean;
  /** The master name, when known (`''` for a client passed in: node-redis does not expose its options). */
  readonly masterName: string;
  /** Overrides of the subscriber's duplicate (`pingInterval`). */
  readonly ping: { readonly pingInterval?: number };
  /**
   * Sentinels to hear `+switch-master` from at once, and the client options to connect to them with (known for
   * the options form only: a client passed in does not expose its Sentinels).
   */
  readonly watch?: {
    readonly sentinels: readonly { readonly host: string; readonly port: number }[];
    readonly clientOptions: object;
    /** node-redis' `nodeAddressMap` option, applied to the address a Sentinel announces. */
    readonly addressMap?: unknown;
  };
}

/** The `+switch-master` channel Sentinel publishes a completed failover on. */
const SWITCH_MASTER = '+switch-master';
// How long a switch heard from a Sentinel waits for our client on the new master (then node-redis' is taken).
const SWITCH_HOLD_MS = 10_000;

export function connectNodeRedisSentinel({ sentinel, owns, masterName, ping, watch }: SentinelSetup): Connections {
  const command = new SentinelCommandConnection(sentinel);
  // Its own socket, only for (UN)SUBSCRIBE: no offline queue (PublishSubscribe subscribes once it is ready).
  const subscriber = new SentinelSubscriber({ disableOfflineQueue: true, ...ping });
  let stopped = false;
  let gate: CommandGate | null = null;
  let onFailover: (change: MasterSwitch) => void = () => undefined;
  // The master in use (`host:port`), and a count of the attachments begun: a later one supersedes.
  let master = nodeName(sentinel.getMasterNode());
  let attached = false;
  let generation = 0;

  /** Moves both connections to node-redis' master client, once it has one (trying again until it does). */
  const attach = async (): Promise<boolean> => {
    const mine = ++generation;
    for (let attempt = 0; !stopped && mine === generation; attempt++) {
      if (attempt > 0) await sleep(Math.min(100 * attempt, 1_000));
      if (stopped || mine !== generation) break;
      try {
        if (!sentinel.isOpen) {
          // Closed after we were on its master: the end (its owner closed it), not something to re-open.
          if (attached) break;
          await sentinel.connect();
        }
        // `fn` only hands the client out: it can neither fail nor be re-sent by node-redis' retry loop.
        const client: unknown = await sentinel._execute(false, (c: NodeRedisClient) => ({ client: c }));
        const found = (client as { client?: unknown } | undefined)?.client;
        if (stopped || mine !== generation) break;
        if (!isNodeRedisClient(found) || !found.isReady) continue;
        command.use(found);
        subscriber.moveTo(found, 1_000);
        attached = true;
        return true;
      } catch {
        // No Sentinel or master reachable yet (node-redis gave up this round): again after a pause.
      }
    }
    return false;
  };

  const onTopology = (event: unknown): void => {
    const { type, node } = (event ?? {}) as { type?: unknown; node?: unknown };
    const to = nodeName(node);
    if (type !== 'MASTER_CHANGE' || to === null || stopped) return;
    // Already there (moved on `+switch-master`, to a client of our own): nothing to do.
    if (attached && to === master) return;
    const from = master;
    master = to;
    // node-redis' first master (its initial connect): the first attachment takes it.
    if (!attached || from === null) return;
    command.beginMove();
    gate?.forgetReplicas();
    void attach().then((moved) => {
      if (moved) moved_(from, to);
    });
  };
  // node-redis hears of a failover from the one Sentinel it is connected to, on events that come after the
  // switch, and reconfigures after a round trip (seconds after a manual failover): meanwhile commands would
  // still go to the old master, which stays a master until Sentinel demotes it. So, as the ioredis driver, we
  // listen to `+switch-master` on every Sentinel we know: on it commands are held, and both connections move to
  // a client of our own on the announced master (a `duplicate()` of the master client in use, with the new
  // address); node-redis' MASTER_CHANGE to that address then changes nothing.
  const onSwitch = (message: string): void => {
    const [name, , , host, portText] = message.split(' ');
    const port = Number(portText);
    const template = command.client;
    if (stopped || !attached || name !== masterName || host === undefined || !Number.isInteger(port) || port <= 0 || template === null) return;
    const to = `${host}:${port}`;
    if (to === master) return;
    const from = master;
    master = to;
    const mine = ++generation;
    command.beginMove();
    gate?.forgetReplicas();
    const target = mapNode(watch?.addressMap, host, port);
    const own = template.duplicate({ socket: { ...template.options?.socket, host: target.host, port: target.port } });
    own.on('error', () => undefined);
    void (async () => {
      let timer: NodeJS.Timeout | undefined;
      const gaveUp = new Promise<void>((resolve) => (timer = setTimeout(resolve, SWITCH_HOLD_MS)));
      await Promise.race([own.connect().catch(() => undefined), gaveUp]);
      clearTimeout(timer);
      if (stopped || mine !== generation || !own.isReady) {
        closeClient(own, 0).catch(() => undefined);
        // Not reachable in time: node-redis' own master client, once it reconfigured.
        if (!stopped && mine === generation) {
          void attach().then((moved) => {
            if (moved) moved_(from, to);
          });
        }
        return;
      }
      command.use(own, true);
      subscriber.moveTo(own, 1_000);
      moved_(from, to);
    })();
  };
  /** The move to `to` is done: the held commands go, and the client reports the failover. */
  const moved_ = (from: string | null, to: string): void => {
    command.endMove();
    gate?.admit();
    onFailover({ masterName, from: from ?? '', to });
  };
  const watchers = (watch?.sentinels ?? []).map((node) => {
    const client = loadNodeRedis().createClient({ ...watch?.clientOptions, socket: { ...(watch?.clientOptions as { socket?: object } | undefined)?.socket, host: node.host, port: node.port } }) as NodeRedisClient;
    client.on('error', () => undefined);
    // node-redis re-subscribes after a reconnect by itself: a Sentinel that was down reports the next switch.
    client
      .connect()
      .then(() => client.subscribe(SWITCH_MASTER, (message) => onSwitch(message)))
      .catch(() => undefined);
    return client;
  });

  const onEnd = (): void => {
    if (attached) command.sentinelEnded();
  };
  // node-redis' Sentinel client is an EventEmitter: an `error` nobody listens to would crash the process.
  const onError = (): void => undefined;
  sentinel.on('topology-change', onTopology);
  sentinel.on('end', onEnd);
  sentinel.on('error', onError);
  void attach();

  return {
    command,
    subscriber,
    publishCommand: () => 'PUBLISH',
    // Redisson's synced execution: writes on a Sentinel master are followed by WAIT.
    replicated: true,
    native: sentinel,
    follow(commandGate: CommandGate, _waker: WaiterWaker, closed: () => boolean, failover: (change: MasterSwitch) => void): void {
      gate = commandGate;
      onFailover = (change) => {
        if (!closed()) failover(change);
      };
      // Nothing written to a master that was switched away from: held until its successor's client is in use.
      commandGate.admitWhen(() => command.status === 'ready');
    },
    unfollow(): void {
      stopped = true;
      for (const watcher of watchers.splice(0)) closeClient(watcher, 0).catch(() => undefined);
      sentinel.off('topology-change', onTopology);
      sentinel.off('end', onEnd);
    },
    async close(timeoutMs: number): Promise<void> {
      stopped = true;
      for (const watcher of watchers.splice(0)) closeClient(watcher, 0).catch(() => undefined);
      await command.close(timeoutMs);
      if (owns) await closeSentinel(sentinel, timeoutMs);
      // A client passed in stays open, without our listeners.
      sentinel.off('error', onError);
    },
  };
}

/** `close()` (pending replies first), at most `timeoutMs`; else `destroy()`. */
async function closeSentinel(sentinel: NodeRedisSentinel, timeoutMs: number): Promise<void> {
  if (!sentinel.isOpen) {
    await Promise.resolve(sentinel.destroy()).catch(() => undefined);
    return;
  }
  if (!(await closeWithin(() => sentinel.close(), timeoutMs))) await Promise.resolve(sentinel.destroy()).catch(() => undefined);
}
