/**
 * Following a Sentinel failover at once. ioredis' Sentinel mode finds the master when it connects, and finds
 * a new one only when its socket drops — which a demoted master's does only when Sentinel reconfigures it,
 * seconds after the switch (about 10 s after a `SENTINEL FAILOVER`). Meanwhile every write would still go to
 * the old master, where another client that follows the switch no longer looks. So a Sentinel client
 * subscribes to `+switch-master` on every Sentinel; on the message for its master it holds new commands,
 * moves its command and subscriber connections to the announced master (re-connecting until the socket is
 * there, since a Sentinel that has not heard of the switch yet would name the old one), forgets the cached
 * replica counts, and only then lets the held commands go. Self-contained: it knows ioredis and a narrow gate.
 */
import { isIP } from 'node:net';
import type { Redis, RedisOptions } from 'ioredis';
import { loadIoredis } from './ioredisModule.js';
import { nextReady, sleep } from './reconnect.js';
import type { CommandGate, MasterSwitch } from '../driver.js';

export type { MasterSwitch };

/** The `+switch-master` channel Sentinel publishes a completed failover on. */
export const SWITCH_MASTER_CHANNEL = '+switch-master';

export interface Endpoint {
  readonly host: string;
  readonly port: number;
}

/** Parses `<name> <old-ip> <old-port> <new-ip> <new-port>`; null when malformed. */
export function parseSwitchMaster(message: string): MasterSwitch & { readonly toEndpoint: Endpoint } | null {
  const [masterName, oldHost, oldPort, newHost, newPort] = message.split(' ');
  if (masterName === undefined || oldHost === undefined || oldPort === undefined || newHost === undefined || newPort === undefined) return null;
  const port = Number(newPort);
  if (!Number.isInteger(port) || port <= 0) return null;
  return { masterName, from: `${oldHost}:${oldPort}`, to: `${newHost}:${port}`, toEndpoint: { host: newHost, port } };
}

/** ioredis' `natMap` applied to an address Sentinel announced. */
function natMapped(options: RedisOptions, endpoint: Endpoint): Endpoint {
  const natMap = (options as { natMap?: unknown }).natMap;
  const key = `${endpoint.host}:${endpoint.port}`;
  const mapped: unknown =
    typeof natMap === 'function' ? (natMap as (k: string) => unknown)(key) : typeof natMap === 'object' && natMap !== null ? (natMap as Record<string, unknown>)[key] : undefined;
  if (typeof mapped === 'object' && mapped !== null && 'port' in mapped) {
    const m = mapped as { host?: string; port: number };
    return { host: m.host ?? endpoint.host, port: Number(m.port) };
  }
  return endpoint;
}

function normalizeIp(address: string): string {
  return address.startsWith('::ffff:') ? address.slice(7) : address;
}

/**
 * Whether `redis`'s socket is connected to `target`. The port always; the host too when it is an IP address
 * (a host name would need a DNS answer the socket does not carry).
 */
export function connectedTo(redis: Redis, target: Endpoint): boolean {
  if (redis.status !== 'ready') return false;
  const stream = (redis as unknown as { stream?: { remotePort?: number; remoteAddress?: string } }).stream;
  if (stream?.remotePort !== target.port) return false;
  if (isIP(target.host) === 0 || stream.remoteAddress === undefined) return true;
  return normalizeIp(stream.remoteAddress) === normalizeIp(target.host);
}

/**
 * Subscribes to `+switch-master` on every Sentinel of `command`'s options and keeps `command` and
 * `subscriber` on the master the last switch named. Until the first switch it changes nothing.
 */
export class SentinelFollower {
  readonly #watchers: Redis[] = [];
  readonly #masterName: string;
  // The master the last `+switch-master` named (natMap applied); null before any.
  #target: Endpoint | null = null;
  #lastSwitch = '';
  #closed = false;
  // Reconnects in progress per connection, so a burst of `ready`s does not start several.
  readonly #moving = new Set<Redis>();

  constructor(
    private readonly command: Redis,
    private readonly subscriber: Redis,
    private readonly gate: CommandGate,
    private readonly onSwitch: (change: MasterSwitch) => void,
  ) {
    const options = command.options as RedisOptions & {
      sentinels: Partial<Endpoint>[];
      name: string;
      sentinelUsername?: string | null;
      sentinelPassword?: string | null;
      sentinelTLS?: object;
      enableTLSForSentinelMode?: boolean;
    };
    this.#masterName = options.name;
    gate.admitWhen(() => this.#target === null || connectedTo(command, this.#target));
    for (const redis of [command, subscriber]) redis.on('ready', () => this.#check(redis));
    for (const sentinel of options.sentinels) {
      const watcher = new (loadIoredis().Redis)({
        host: sentinel.host ?? '127.0.0.1',
        port: sentinel.port ?? 26_379,
        ...(options.sentinelUsername ? { username: options.sentinelUsername } : {}),
        ...(options.sentinelPassword ? { password: options.sentinelPassword } : {}),
        ...(options.enableTLSForSentinelMode && options.sentinelTLS ? { tls: options.sentinelTLS } : {}),
        connectTimeout: options.connectTimeout ?? 10_000,
        enableReadyCheck: false,
        maxRetriesPerRequest: null,
        // A Sentinel that is down is tried again; the others still report the switch meanwhile.
        retryStrategy: (times) => Math.min(times * 200, 2_000),
      });
      watcher.on('error', () => undefined);
      watcher.on('message', (channel: string, message: string) => {
        if (channel === SWITCH_MASTER_CHANNEL) this.#onSwitchMaster(message);
      });
      watcher.subscribe(SWITCH_MASTER_CHANNEL).catch(() => undefined);
      this.#watchers.push(watcher);
    }
  }

  #onSwitchMaster(message: string): void {
    const change = parseSwitchMaster(message);
    if (this.#closed || change === null || change.masterName !== this.#masterName) return;
    // Every Sentinel announces the same switch: act on the first.
    if (change.to === this.#lastSwitch) return;
    this.#lastSwitch = change.to;
    this.#target = natMapped(this.command.options, change.toEndpoint);
    this.gate.forgetReplicas();
    const { toEndpoint: _unused, ...event } = change;
    const moves = [this.command, this.subscriber].map((redis) => this.#moveTo(redis));
    void Promise.all(moves).then(() => {
      if (!this.#closed && this.#lastSwitch === change.to) this.onSwitch(event);
    });
  }

  /** On every `ready`: a connection that landed anywhere but the current master is moved (commands held). */
  #check(redis: Redis): void {
    if (this.#target === null || this.#closed) return;
    if (connectedTo(redis, this.#target)) {
      if (redis === this.command) this.gate.admit();
      return;
    }
    void this.#moveTo(redis);
  }

  /**
   * Re-connects `redis` until its socket is on the current target (ioredis asks the Sentinels again on each
   * connect). A subscriber that never connected (lazy) is left alone: its first connect is checked on `ready`.
   */
  async #moveTo(redis: Redis): Promise<void> {
    if (this.#moving.has(redis)) return;
    this.#moving.add(redis);
    try {
      for (let attempt = 0; !this.#closed && this.#target !== null; attempt++) {
        const target = this.#target;
        if (connectedTo(redis, target)) {
          if (redis === this.command) this.gate.admit();
          return;
        }
        if (redis.status === 'wait' || redis.status === 'end') return;
        if (attempt > 0) await sleep(Math.min(50 * attempt, 500));
        if (this.#closed) return;
        if (redis.status === 'ready') redis.disconnect(true);
        else if ((redis.status as string) === 'end') return;
        await nextReady(redis, 2_000);
      }
    } finally {
      this.#moving.delete(redis);
    }
  }

  /** Closes the Sentinel connections. */
  close(): void {
    this.#closed = true;
    for (const watcher of this.#watchers) watcher.disconnect();
  }
}
