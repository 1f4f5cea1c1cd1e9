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
import { closeClient } from './close.js';
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
  readonly watch?: { readonly sentinels: readonly { readonly host: string; readonly port: number }[]; readonly clientOptions: object };
}

/** The `+switch-master` channel Sentinel publishes a completed failover on. */
const SWITCH_MASTER = '+switch-master';
// How long a switch heard from a Sentinel holds commands while node-redis has not reconfigured (then they go to
// whichever master node-redis has).
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
    const from = master;
    master = to;
    heard = null;
    if (holdTimer !== null) clearTimeout(holdTimer);
    // node-redis' first master (its initial connect): the first attachment takes it.
    if (!attached || from === null) return;
    command.beginMove();
    gate?.forgetReplicas();
    void attach().then((moved) => {
      if (!moved) return;
      command.endMove();
      gate?.admit();
      onFailover({ masterName, from, to });
    });
  };
  // node-redis hears of a failover from the one Sentinel it is connected to, on events that come after the
  // switch (its own reconfiguration then takes a round trip): meanwhile commands would still go to the old
  // master, which stays a master until Sentinel demotes it. So, as the ioredis driver, we listen to
  // `+switch-master` on every Sentinel we know and hold commands from that moment until node-redis' MASTER_CHANGE.
  let heard: string | null = null;
  let holdTimer: NodeJS.Timeout | null = null;
  const onSwitch = (message: string): void => {
    const [name, , , host, port] = message.split(' ');
    const to = host !== undefined && port !== undefined ? `${host}:${port}` : null;
    if (stopped || !attached || name !== masterName || to === null || to === master || to === heard) return;
    heard = to;
    command.beginMove();
    gate?.forgetReplicas();
    // node-redis re-asks the Sentinels when its master client is not ready: drop the old master's client (ours
    // to drop: only the options form, where Redisson made the Sentinel client, has watchers), so the attachment
    // below makes it reconfigure now instead of at some later Sentinel event.
    command.client?.destroy();
    void attach().then((moved) => {
      if (moved && heard === to && nodeName(sentinel.getMasterNode()) !== null) {
        command.endMove();
        gate?.admit();
      }
    });
    if (holdTimer !== null) clearTimeout(holdTimer);
    holdTimer = setTimeout(() => {
      // node-redis did not reconfigure in time: let the commands go to the master it has.
      if (heard !== to || stopped) return;
      void attach().then((moved) => {
        if (moved && heard === to) {
          command.endMove();
          gate?.admit();
        }
      });
    }, SWITCH_HOLD_MS);
    holdTimer.unref();
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
      if (holdTimer !== null) clearTimeout(holdTimer);
      for (const watcher of watchers.splice(0)) closeClient(watcher, 0).catch(() => undefined);
      sentinel.off('topology-change', onTopology);
      sentinel.off('end', onEnd);
    },
    async close(timeoutMs: number): Promise<void> {
      stopped = true;
      for (const watcher of watchers.splice(0)) closeClient(watcher, 0).catch(() => undefined);
      command.detach();
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
  let timer: NodeJS.Timeout | undefined;
  const closed = sentinel.close().then(
    () => true,
    () => false,
  );
  const timedOut = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), timeoutMs)));
  const clean = await Promise.race([closed, timedOut]);
  clearTimeout(timer);
  if (!clean) await Promise.resolve(sentinel.destroy()).catch(() => undefined);
}
