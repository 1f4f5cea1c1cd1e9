/**
 * What the interop scenarios of the RLock-shaped primitives (FencedLock, SpinLock, NonReentrantLock) share:
 * a view of the server (every command scripts ran, and every message on a lock channel) to tell when a
 * waiter is parked, and small promise helpers. Opened once per suite, on first use.
 *
 * The command log is Redis `MONITOR` read from a plain socket: ioredis' monitor mode mis-parses a line that
 * shares a packet with MONITOR's own +OK, which can happen here since these scenarios start it while the
 * peers are connected.
 */
import { randomUUID } from 'node:crypto';
import { connect, type Socket } from 'node:net';
import { createInterface } from 'node:readline';
import { afterAll, expect } from 'vitest';
import { lockChannelName, type Redisson } from '../../../src/index.js';
import { eventually } from '../../support/redis.js';
import type { InteropContext } from './context.js';
import { JavaPeerError } from '../JavaPeer.js';
import { LockMessages, ttlBucket } from './wire.js';

/** One command as MONITOR shows it: `source` is `lua` for a command run by a script. */
interface Seen {
  readonly source: string;
  readonly args: readonly string[];
}

const LINE = /^\+\S+ \[\d+ ([^\]]+)\] (.*)$/;
const ARG = /"((?:[^"\\]|\\.)*)"/g;
const ESCAPES: Readonly<Record<string, string>> = { n: '\n', r: '\r', t: '\t', a: '\x07', b: '\b', '"': '"', '\\': '\\' };

/** Undoes Redis' `sdscatrepr` quoting of one MONITOR argument. */
function unquote(text: string): string {
  return text.replace(/\\(x[0-9a-fA-F]{2}|.)/g, (_, e: string) => (e.length === 3 ? String.fromCharCode(parseInt(e.slice(1), 16)) : (ESCAPES[e] ?? e)));
}

/** The server seen from the side: MONITOR's command log and the lock channels' messages. */
export class FamilyWire {
  readonly #seen: Seen[] = [];

  private constructor(
    private readonly ctx: InteropContext,
    private readonly socket: Socket,
    private readonly messages: LockMessages,
  ) {}

  static async open(ctx: InteropContext): Promise<FamilyWire> {
    const url = new URL(ctx.redis.url);
    const socket = connect(Number(url.port), url.hostname);
    socket.on('error', () => undefined);
    const messages = await LockMessages.open(ctx.clients.raw());
    const wire = new FamilyWire(ctx, socket, messages);
    const ok = new Promise<void>((resolve) => {
      createInterface({ input: socket }).on('line', (line) => {
        if (line === '+OK') return resolve();
        const m = LINE.exec(line);
        if (m) wire.#seen.push({ source: m[1] === 'lua' ? 'lua' : (m[1] ?? ''), args: [...(m[2] ?? '').matchAll(ARG)].map((a) => unquote(a[1] ?? '')) });
      });
    });
    socket.write('MONITOR\r\n');
    await ok;
    return wire;
  }

  /** Resolves once every command the server ran before this call is in the log; returns the position. */
  async mark(): Promise<number> {
    const token = `family-mark-${randomUUID()}`;
    await this.ctx.raw.echo(token);
    await eventually(() => this.#seen.some((c) => c.args[0]?.toLowerCase() === 'echo' && c.args[1] === token), 10_000, 'MONITOR barrier');
    return this.#seen.length;
  }

  /** Acquire attempts on `name` refused since `from` (every refusal ends in a script's `PTTL name`). */
  refusals(name: string, from: number): number {
    return this.#seen.slice(from).filter((c) => c.source === 'lua' && c.args[0]?.toLowerCase() === 'pttl' && c.args[1] === name).length;
  }

  async subscribers(channel: string): Promise<number> {
    const reply = (await this.ctx.raw.pubsub('NUMSUB', channel)) as [string, number | string];
    return Number(reply[1]);
  }

  /**
   * Resolves once a waiter started after `from` is parked on the lock's channel: subscribed, and its
   * attempt after subscribing refused. From then on only a message (or the 60 s lease) can wake it.
   */
  async parked(name: string, from: number, who: string): Promise<void> {
    const channel = lockChannelName(name);
    await eventually(async () => (await this.subscribers(channel)) >= 1, this.ctx.hangGuardMs, `${who} subscribed to ${channel}`);
    await eventually(() => this.refusals(name, from) >= 2, this.ctx.hangGuardMs, `${who}'s attempt after subscribing`);
  }

  /** Resolves once a spin waiter started after `from` has been refused `n` times. */
  async polling(name: string, from: number, n: number, who: string): Promise<void> {
    await eventually(() => this.refusals(name, from) >= n, this.ctx.hangGuardMs, `${who} retrying`);
  }

  /** The messages published on lock channels while `fn` ran. */
  async publishedDuring(fn: () => Promise<void>): Promise<{ channel: string; message: string }[]> {
    const at = await this.messages.mark(this.ctx.raw);
    await fn();
    await this.messages.mark(this.ctx.raw);
    return this.messages.since(at);
  }

  /**
   * Runs `steps` one by one and records, after each, what it returned (or which error), the commands the
   * scripts ran on keys of `name` (unlock latches left out: 3.17.7 has none) and the lock hash and TTL,
   * with `name` and the two owners' fields replaced by placeholders, so that Java's record and ours compare.
   */
  async record(name: string, owners: Readonly<Record<Owner, string>>, steps: readonly WireStep[], run: (step: WireStep) => Promise<unknown>): Promise<StepRecord[]> {
    const label = (text: string): string => {
      for (const who of ['owner', 'other'] as const) if (text === owners[who]) return `<${who}>`;
      return text.split(name).join('<N>');
    };
    const records: StepRecord[] = [];
    for (const step of steps) {
      const from = await this.mark();
      const outcome = await run(step).then(
        (value: unknown) => value ?? null,
        (error: unknown) => ({ error: errorKind(error) }),
      );
      const to = await this.mark();
      const commands = this.#seen
        .slice(from, to)
        .filter((c) => c.source === 'lua' && c.args.some((a) => a.includes(name)) && !(c.args[1] ?? '').startsWith('redisson_unlock_latch:'))
        .map((c) => c.args.map((a, i) => (i === 0 ? a.toLowerCase() : label(a))));
      const hash = Object.fromEntries(Object.entries(await this.ctx.raw.hgetall(name)).map(([k, v]) => [label(k), v]));
      records.push({ step: `${step.who}.${step.method}(${step.args.join(', ')})`, outcome, commands, hash, ttl: ttlBucket(await this.ctx.raw.pttl(name)) });
    }
    return records;
  }

  close(): void {
    this.socket.destroy();
  }
}

export type Owner = 'owner' | 'other';

/** One call of a wire sequence, made by one of two owners on the same lock name. */
export interface WireStep {
  readonly who: Owner;
  readonly method: string;
  readonly args: readonly number[];
}

export interface StepRecord {
  readonly step: string;
  readonly outcome: unknown;
  readonly commands: readonly (readonly string[])[];
  readonly hash: Readonly<Record<string, string>>;
  readonly ttl: string;
}

/** `IllegalMonitorState` for Java's IllegalMonitorStateException and our IllegalMonitorStateError alike. */
function errorKind(error: unknown): string {
  const name = error instanceof JavaPeerError ? error.type : error instanceof Error ? error.name : String(error);
  return name.replace(/(Exception|Error)$/, '');
}

/**
 * Calls `step` on a fresh lock object from `get` (as the Java peer makes one per call), for owner thread
 * id 1 (`owner`) or 2 (`other`).
 */
function runOurStep(get: () => object, step: WireStep): Promise<unknown> {
  const lock = get() as Record<string, (...args: unknown[]) => Promise<unknown>>;
  const method = lock[step.method];
  if (typeof method !== 'function') throw new Error(`no method ${step.method}`);
  return method.call(lock, ...step.args, { threadId: step.who === 'owner' ? 1 : 2 });
}

/** Java's owner fields for the two owners of a wire sequence (wire peer threads `family-wire-<who>`). */
async function javaOwners(ctx: InteropContext): Promise<Record<Owner, string>> {
  const { wirePeer } = ctx;
  const [owner, other] = await Promise.all(['owner', 'other'].map(async (who) => wirePeer.lockOwner(await wirePeer.threadId(`family-wire-${who}`))));
  return { owner: owner ?? '', other: other ?? '' };
}

/**
 * Runs `steps` on the Java peer's `javaPrimitive` and on ours (`get`, a fresh object per step), each on a
 * fresh name, and expects the same outcomes, script commands, hash and TTL after every step.
 */
export async function expectSameWire(
  ctx: InteropContext,
  wire: FamilyWire,
  javaPrimitive: string,
  get: (client: Redisson, name: string) => object,
  steps: readonly WireStep[],
): Promise<void> {
  const javaName = familyName(javaPrimitive);
  // On the wire peer: on `peer`, a renewal timer left by an earlier check's watchdog hold renewed FairLock's
  // re-entry inside a recorded step (seen once in CI, 2026-12-07).
  const java = await wire.record(javaName, await javaOwners(ctx), steps, async (step) => (await ctx.wirePeer.call(javaPrimitive, javaName, step.method, [...step.args], `family-wire-${step.who}`)).result);
  const client = ctx.clients.client();
  const ourName = familyName(javaPrimitive);
  const ours = await wire.record(ourName, { owner: `${client.getId()}:1`, other: `${client.getId()}:2` }, steps, (step) => runOurStep(() => get(client, ourName), step));
  if (process.env['INTEROP_WIRE_DUMP']) console.log(JSON.stringify({ java, ours }, null, 1));
  expect(ours).toEqual(java);
  // Every step left something to compare: the sequence is not vacuous.
  expect(java.every((r) => r.commands.length > 0)).toBe(true);
}

const wires = new WeakMap<InteropContext, { get: () => Promise<FamilyWire> }>();

/** The suite's {@link FamilyWire}, opened on first use and closed after the suite. Call while collecting. */
export function useFamilyWire(ctx: InteropContext): () => Promise<FamilyWire> {
  let entry = wires.get(ctx);
  if (!entry) {
    let opened: Promise<FamilyWire> | null = null;
    entry = { get: () => (opened ??= FamilyWire.open(ctx)) };
    wires.set(ctx, entry);
    afterAll(async () => {
      if (opened) (await opened.catch(() => null))?.close();
    });
  }
  return entry.get;
}

/** Rejects when `promise` has not settled within `ms` (a hang guard, not a timing assertion). */
export { within } from '../../support/poll.js';

/** Observes whether a promise has settled, without waiting for it. */
export function tracked<T>(promise: Promise<T>): { readonly promise: Promise<T>; settled: boolean } {
  const state = { promise, settled: false };
  void promise.then(
    () => (state.settled = true),
    () => (state.settled = true),
  );
  return state;
}

/** A plain lock name of these scenarios. */
export const familyName = (primitive: string): string => `interop:${primitive}:${randomUUID().slice(0, 8)}`;
