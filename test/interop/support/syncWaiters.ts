/**
 * What the semaphore and latch interop scenarios share: telling when waiters — ours or Java's — are
 * parked, without timing. Both sides' waiters make one look before subscribing and one after (the
 * semaphore's tryAcquire script and the latch's getCount each run one `GET N`), then wait for a message.
 * Those GETs are counted per key from a MONITOR log (a plain socket, opened once per suite: ioredis'
 * monitor mode can mis-parse a line sharing a packet with MONITOR's +OK). A waiter that settles within
 * the hang guard was woken by a message: neither primitive has a time-based retry.
 */
import { randomUUID } from 'node:crypto';
import { connect, type Socket } from 'node:net';
import { createInterface } from 'node:readline';
import { afterAll } from 'vitest';
import { eventually } from '../../support/redis.js';
import type { InteropContext } from './context.js';

const LINE = /^\+\S+ \[\d+ [^\]]+\] (.*)$/;
const ARG = /"((?:[^"\\]|\\.)*)"/g;

/** The command log of the suite's server: every command as its (unescaped enough) arguments. */
class Monitor {
  readonly seen: string[][] = [];
  private constructor(readonly socket: Socket) {}

  static async open(ctx: InteropContext): Promise<Monitor> {
    const url = new URL(ctx.redis.url);
    const socket = connect(Number(url.port), url.hostname);
    socket.on('error', () => undefined);
    const monitor = new Monitor(socket);
    await new Promise<void>((resolve) => {
      createInterface({ input: socket }).on('line', (line) => {
        if (line === '+OK') return resolve();
        const m = LINE.exec(line);
        // Names in these scenarios are plain (no quotes or escapes): the quoted text is the argument.
        if (m) monitor.seen.push([...(m[1] ?? '').matchAll(ARG)].map((a) => a[1] ?? ''));
      });
      socket.write('MONITOR\r\n');
    });
    return monitor;
  }
}

export interface SyncWaiters {
  /** Resolves once every command the server ran before this call is in the log; returns the position. */
  mark(): Promise<number>;
  /** `GET name` commands (scripts' included) since position `from`. */
  looks(name: string, from: number): number;
  /** Resolves once `n` waiters on `name` started after `from` (a {@link mark}) are parked. */
  parked(name: string, from: number, n: number, who: string): Promise<void>;
  /** Resolves once `count` looks at `name` ran since `from` (a parked waiter woken and refused: one more). */
  looked(name: string, from: number, count: number, who: string): Promise<void>;
  /** `promise`, or a rejection after the hang guard. */
  within<T>(promise: Promise<T>, what: string): Promise<T>;
}

const monitors = new WeakMap<InteropContext, () => Promise<Monitor>>();

/** The suite's waiter view; the MONITOR opens on first use and closes after the suite. Call while collecting. */
export function syncWaiters(ctx: InteropContext): SyncWaiters {
  let get = monitors.get(ctx);
  if (!get) {
    let opened: Promise<Monitor> | null = null;
    get = () => (opened ??= Monitor.open(ctx));
    monitors.set(ctx, get);
    afterAll(async () => {
      if (opened) (await opened.catch(() => null))?.socket.destroy();
    });
  }
  const monitor = get;
  let log: string[][] = [];
  const looks = (name: string, from: number): number => log.slice(from).filter((c) => c[0]?.toLowerCase() === 'get' && c[1] === name).length;
  const looked = (name: string, from: number, count: number, who: string): Promise<void> =>
    eventually(() => looks(name, from) >= count, ctx.hangGuardMs, who);
  return {
    async mark() {
      const m = await monitor();
      log = m.seen;
      const token = `sync-mark-${randomUUID()}`;
      await ctx.raw.echo(token);
      await eventually(() => m.seen.some((c) => c[0]?.toLowerCase() === 'echo' && c[1] === token), ctx.hangGuardMs, 'MONITOR barrier');
      return m.seen.length;
    },
    looks,
    looked,
    parked: (name, from, n, who) => looked(name, from, 2 * n, `${who} parked`),
    async within<T>(promise: Promise<T>, what: string): Promise<T> {
      let timer: NodeJS.Timeout | undefined;
      const guard = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`${what}: not woken within ${ctx.hangGuardMs} ms`)), ctx.hangGuardMs);
      });
      try {
        return await Promise.race([promise, guard]);
      } finally {
        clearTimeout(timer);
      }
    },
  };
}
