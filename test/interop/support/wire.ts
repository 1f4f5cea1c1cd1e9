/**
 * What a Java client would see on the wire, captured from the server side:
 * - {@link WireTap}: Redis `MONITOR`, i.e. every command run by a script (source `lua`) and every command
 *   a client sent, in execution order; `mark()` is a barrier (an `ECHO` whose arrival proves all
 *   earlier commands were seen);
 * - {@link LockMessages}: every message published on any `redisson_lock__channel*` channel (a raw
 *   `PSUBSCRIBE`), with the same barrier trick;
 * - {@link lockState}: the lock hash, its PTTL and type, with owner fields and leases normalised so
 *   that Java's state and ours can be compared with `toEqual`.
 */
import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { eventually } from '../../support/redis.js';

/** One command as MONITOR reports it. */
export interface MonitoredCommand {
  /** `lua` for commands run by a script, else the client's `ip:port`. */
  readonly source: string;
  readonly args: readonly string[];
}

export class WireTap {
  readonly #commands: MonitoredCommand[] = [];
  #monitor: Redis | null = null;

  private constructor(private readonly control: Redis) {}

  /** Opens a MONITOR connection next to `control` (a plain connection used for barriers). */
  static async open(control: Redis): Promise<WireTap> {
    const tap = new WireTap(control);
    await control.ping(); // connected and idle before MONITOR starts (see the suite's beforeAll)
    const monitor = await control.monitor(); // a connection of its own
    monitor.on('monitor', (_time: string, args: string[], source: string) => {
      tap.#commands.push({ source, args });
    });
    tap.#monitor = monitor;
    await tap.mark();
    return tap;
  }

  /** Position in the command log; pass to {@link since}. */
  get position(): number {
    return this.#commands.length;
  }

  /** Resolves once every command the server ran before this call has been seen. */
  async mark(): Promise<number> {
    const token = `wiretap-mark-${randomUUID()}`;
    await this.control.echo(token);
    await eventually(() => this.#commands.some((c) => c.args[0]?.toLowerCase() === 'echo' && c.args[1] === token), 10_000, 'MONITOR barrier');
    return this.#commands.length;
  }

  /** Commands seen from `position` on. */
  since(position: number): MonitoredCommand[] {
    return this.#commands.slice(position);
  }

  close(): void {
    this.#monitor?.disconnect();
    this.#monitor = null;
  }
}

/** Every message published on a `redisson_lock__channel*` channel, in arrival order. */
export class LockMessages {
  readonly #messages: { channel: string; message: string }[] = [];

  private constructor(private readonly subscriber: Redis) {}

  static async open(subscriber: Redis): Promise<LockMessages> {
    const collector = new LockMessages(subscriber);
    subscriber.on('pmessage', (_pattern: string, channel: string, message: string) => {
      collector.#messages.push({ channel, message });
    });
    await subscriber.psubscribe('redisson_lock__channel*');
    return collector;
  }

  get position(): number {
    return this.#messages.length;
  }

  /**
   * Resolves once every message published before this call has arrived: a message of our own on the
   * same pattern is delivered after them (one connection, one order).
   */
  async mark(publisher: Redis): Promise<number> {
    const channel = `redisson_lock__channel:__mark__:${randomUUID()}`;
    await publisher.publish(channel, 'mark');
    await eventually(() => this.#messages.some((m) => m.channel === channel), 10_000, 'pub/sub barrier');
    return this.#messages.length;
  }

  /** Messages from `position` on, barrier messages left out. */
  since(position: number): { channel: string; message: string }[] {
    return this.#messages.slice(position).filter((m) => !m.channel.startsWith('redisson_lock__channel:__mark__:'));
  }
}

/** The leases the suite uses; a PTTL within 5 s below one of them is reported as `≈<lease>`. */
const KNOWN_LEASES = [60_000, 30_000, 1_500, 1_000] as const;

/** A PTTL in words: `none` (-2), `no-expiry` (-1), `≈<lease>` or the raw value. */
export function ttlBucket(pttl: number): string {
  if (pttl === -2) return 'none';
  if (pttl === -1) return 'no-expiry';
  const lease = KNOWN_LEASES.find((l) => pttl <= l && pttl > l - Math.min(5_000, l / 2));
  return lease === undefined ? String(pttl) : `≈${lease}`;
}

export interface LockState {
  readonly type: string;
  /** Hash fields with owners replaced by `owner` (the expected one) or `foreign-owner`. */
  readonly fields: Record<string, string>;
  readonly ttl: string;
}

const OWNER_FIELD = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}:\d+$/;

/** The lock key `name` as Java would find it, with `owner` (`<uuid>:<threadId>`) written as `owner`. */
export async function lockState(redis: Redis, name: string, owner: string): Promise<LockState> {
  const [type, hash, pttl] = await Promise.all([redis.type(name), redis.hgetall(name), redis.pttl(name)]);
  const fields: Record<string, string> = {};
  for (const [field, value] of Object.entries(hash)) {
    const label = field === owner ? 'owner' : OWNER_FIELD.test(field) ? 'foreign-owner' : field;
    fields[label] = value;
  }
  return { type, fields, ttl: ttlBucket(pttl) };
}

/** Ids that differ between two runs of the same step, replaced by stable placeholders. */
export interface Placeholders {
  /** Lock name → `<N>`. */
  readonly name: string;
  /** Owner client id (uuid) → `<client>`. */
  readonly clientId: string;
  /** Owner thread ids → `<thread>`, `<thread2>`, … */
  readonly threadIds: readonly number[];
}

const LATCH_REQUEST = /^(redisson_unlock_latch:.*):([0-9a-f]{32})$/;

/** A command with names and ids replaced by placeholders; command names lower-cased. */
export function normalizeCommand(args: readonly string[], p: Placeholders): string[] {
  const out = args.map((arg, i) => {
    let a = i === 0 ? arg.toLowerCase() : arg;
    p.threadIds.forEach((t, k) => {
      const label = k === 0 ? '<thread>' : `<thread${k + 1}>`;
      if (a === `${p.clientId}:${t}`) a = `<client>:${label}`;
    });
    a = a.split(p.name).join('<N>');
    a = a.split(p.clientId).join('<client>');
    a = a.replace(LATCH_REQUEST, '$1:<requestId>');
    return a;
  });
  // A latch TTL is random per unlock (16–20 s with Redisson's defaults): keep only that it is one.
  if (out[0] === 'set' && out[1]?.startsWith('redisson_unlock_latch:') && out[3]?.toLowerCase() === 'px') {
    const ttl = Number(out[4]);
    out[4] = ttl >= 13_500 && ttl <= 20_000 ? '<latchTtl>' : `<latchTtl ${String(out[4])}>`;
  }
  return out;
}

/** True for a command on an unlock latch key (`GET`/`SET`/`DEL redisson_unlock_latch:…`). */
export function isLatchCommand(args: readonly string[]): boolean {
  return args[1]?.startsWith('redisson_unlock_latch:') ?? false;
}
