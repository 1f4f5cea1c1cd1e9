/**
 * A replicated group on ioredis (Redisson's `ReplicatedConnectionManager`): the master is the node whose
 * `INFO replication` says `role:master`, asked of every node when the client starts and every `scanInterval`
 * after the previous scan ended. When another node becomes the master (a managed service's failover, a manual
 * `REPLICAOF NO ONE`), commands are held, the command and subscriber connections are re-pointed to it and
 * re-connected, the cached replica count is forgotten, and only then are the held commands let go. The
 * subscriber's `ready` re-subscribes every waited-on channel and wakes its waiters (PublishSubscribe), as
 * after a Sentinel failover. A `READONLY` refusal (a write that reached the demoted master) scans at once.
 */
import type { Redis, RedisOptions } from 'ioredis';
import type { CommandGate, MasterSwitch } from '../driver.js';
import { nodeName, pickMaster, roleOf, type NodeAddress } from '../replicated.js';
import { loadIoredis } from './ioredisModule.js';
import { connectedTo } from './sentinel.js';
import { nextReady, sleep } from './reconnect.js';

interface Socket {
  readonly remotePort?: number;
  readonly remoteAddress?: string;
}

function socketOf(redis: Redis): Socket | undefined {
  return (redis as unknown as { stream?: Socket }).stream;
}

function normalizeIp(address: string): string {
  return address.startsWith('::ffff:') ? address.slice(7) : address;
}

/** ioredis options of one node of a deployment: the node's address on the shared connection options. */
export function nodeOptions(base: RedisOptions, node: NodeAddress): RedisOptions {
  return { ...base, host: node.host, port: node.port, ...(node.tls && base.tls === undefined ? { tls: {} } : {}) };
}

/**
 * Scans the nodes of a replicated group and keeps `command` and `subscriber` on its master. Until the first
 * scan finds a master, commands wait (at most `timeout`, as for a connection that is not ready).
 */
export class ReplicatedFollower {
  // A connection per node, only for `INFO replication` (Redisson keeps one per node for its scans too).
  readonly #probes: Redis[];
  // The index of the current master in `nodes`; -1 until a scan found one.
  #current = -1;
  #timer: NodeJS.Timeout | null = null;
  #scanning: Promise<void> | null = null;
  #closed = false;
  // Moves in progress per connection, so a burst of `ready`s does not start several.
  readonly #moving = new Set<Redis>();

  constructor(
    private readonly nodes: readonly NodeAddress[],
    base: RedisOptions,
    private readonly command: Redis,
    private readonly subscriber: Redis,
    private readonly gate: CommandGate,
    private readonly scanInterval: number,
    timeoutMs: number,
    private readonly onSwitch: (change: MasterSwitch) => void,
  ) {
    this.#probes = nodes.map((node) => {
      const probe = new (loadIoredis().Redis)({
        ...nodeOptions(base, node),
        keyPrefix: '',
        // Queued while connecting (the first scan starts with the client), failed at the first reconnect
        // attempt of a node that is down, and never longer than `timeout` (Redisson's scan uses it too).
        enableOfflineQueue: true,
        maxRetriesPerRequest: 0,
        commandTimeout: timeoutMs,
        retryStrategy: (times: number) => Math.min(times * 100, 2_000),
      });
      probe.on('error', () => undefined);
      return probe;
    });
    gate.admitWhen(() => this.#current >= 0 && this.#onMaster(command));
    gate.onReadOnly(() => this.recheck());
    for (const redis of [command, subscriber]) redis.on('ready', () => this.#check(redis));
    void this.#scanThenSchedule();
  }

  #target(): NodeAddress {
    return this.nodes[this.#current] as NodeAddress;
  }

  /**
   * Whether `redis`'s socket is on the current master. Managed services name their nodes by host name, all on
   * one port, so the port alone proves nothing: the socket's peer must not be another node's, as that node's
   * probe (connected by the same name) sees it. A peer equal to the master probe's is the master; one that equals
   * no probe's (a name with several addresses, another IP family) counts as the master when the port is its.
   */
  #onMaster(redis: Redis): boolean {
    if (this.#current < 0 || redis.status !== 'ready') return false;
    const mine = socketOf(redis);
    if (mine?.remotePort === undefined || mine.remoteAddress === undefined) return connectedTo(redis, this.#target());
    const peer = `${normalizeIp(mine.remoteAddress)}:${mine.remotePort}`;
    const peers = this.#probes.map((probe) => {
      const s = probe.status === 'ready' ? socketOf(probe) : undefined;
      return s?.remotePort === undefined || s.remoteAddress === undefined ? null : `${normalizeIp(s.remoteAddress)}:${s.remotePort}`;
    });
    if (peers[this.#current] === peer) return true;
    return mine.remotePort === this.#target().port && !peers.some((p, i) => i !== this.#current && p === peer);
  }

  /** The current master, `host:port` as the node list names it; null before the first scan found one. */
  get master(): string | null {
    return this.#current < 0 ? null : nodeName(this.#target());
  }

  /** Scans now (or joins the scan under way): after a `READONLY` refusal. */
  recheck(): Promise<void> {
    return this.#scan();
  }

  async #scanThenSchedule(): Promise<void> {
    await this.#scan();
    if (this.#closed) return;
    this.#timer = setTimeout(() => void this.#scanThenSchedule(), this.scanInterval);
    this.#timer.unref();
  }

  #scan(): Promise<void> {
    this.#scanning ??= this.#scanOnce().finally(() => (this.#scanning = null));
    return this.#scanning;
  }

  async #scanOnce(): Promise<void> {
    const roles = await Promise.all(this.#probes.map((probe) => probe.info('replication').then(roleOf, () => null)));
    if (this.#closed) return;
    const next = pickMaster(roles, this.#current);
    if (next < 0 || next === this.#current) return;
    const from = this.#current < 0 ? null : nodeName(this.#target());
    this.#current = next;
    const target = this.#target();
    this.gate.forgetReplicas();
    // ioredis connects with its options object: the next connect of each goes to the new master.
    for (const redis of [this.command, this.subscriber]) Object.assign(redis.options, { host: target.host, port: target.port });
    const moves = [this.command, this.subscriber].map((redis) => this.#moveTo(redis));
    if (from === null) return;
    const to = nodeName(target);
    void Promise.all(moves).then(() => {
      if (!this.#closed && this.master === to) this.onSwitch({ masterName: '', from, to });
    });
  }

  /** On every `ready`: a connection that landed anywhere but the current master is moved (commands held). */
  #check(redis: Redis): void {
    if (this.#current < 0 || this.#closed) return;
    if (this.#onMaster(redis)) {
      if (redis === this.command) this.gate.admit();
      return;
    }
    void this.#moveTo(redis);
  }

  /** Re-connects `redis` until its socket is on the current master. A subscriber not connected yet is left alone. */
  async #moveTo(redis: Redis): Promise<void> {
    if (this.#moving.has(redis)) return;
    this.#moving.add(redis);
    try {
      for (let attempt = 0; !this.#closed; attempt++) {
        if (this.#onMaster(redis)) {
          if (redis === this.command) this.gate.admit();
          return;
        }
        if ((redis.status as string) === 'end') return;
        if (redis.status === 'wait') {
          // The command connection is made lazily, so that its first socket goes to the master the first scan found.
          if (redis !== this.command) return;
          redis.connect().catch(() => undefined);
        } else {
          if (attempt > 0) await sleep(Math.min(50 * attempt, 500));
          if (this.#closed) return;
          if (redis.status === 'ready') redis.disconnect(true);
        }
        await nextReady(redis, 2_000);
      }
    } finally {
      this.#moving.delete(redis);
    }
  }

  /** Stops scanning and closes the node connections. */
  close(): void {
    this.#closed = true;
    if (this.#timer !== null) clearTimeout(this.#timer);
    for (const probe of this.#probes) probe.disconnect();
  }
}
