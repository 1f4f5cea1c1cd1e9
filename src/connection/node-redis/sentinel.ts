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
}

export function connectNodeRedisSentinel({ sentinel, owns, masterName, ping }: SentinelSetup): Connections {
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
      sentinel.off('topology-change', onTopology);
      sentinel.off('end', onEnd);
    },
    async close(timeoutMs: number): Promise<void> {
      stopped = true;
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
