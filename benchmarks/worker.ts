/**
 * A benchmark worker process, driven by the parent over IPC (see rpc.ts). It opens implementations on
 * demand and runs the timed parts of the multi-process scenarios; timestamps are taken on the host-wide
 * monotonic clock so the parent can subtract one process's timestamp from another's.
 */
import { Redis } from 'ioredis';
import { IMPLEMENTATION_BY_NAME, type ImplName, type Kind, type LockClient, type LockHandle } from './adapters/index.js';
import type { WorkerReply, WorkerRequest } from './rpc.js';
import { nowUs } from './stats.js';

const clients = new Map<string, Promise<LockClient>>();
const held = new Map<string, LockHandle>();
let bulk: LockHandle[] = [];
let waiters: Promise<void>[] = [];
const waiterErrors: string[] = [];
let raw: Redis | null = null;
let exiting = false;
let relay: { subscriber: Redis; tokens: Map<string, number> } | null = null;

interface ImplArgs {
  impl: ImplName;
  url: string;
  watchdogMs?: number;
}

function client(a: ImplArgs): Promise<LockClient> {
  const key = `${a.impl}|${a.watchdogMs ?? ''}`;
  let c = clients.get(key);
  if (!c) {
    c = IMPLEMENTATION_BY_NAME[a.impl].open({ url: a.url, watchdogMs: a.watchdogMs });
    clients.set(key, c);
  }
  return c;
}

/** A new handle on `a.name`, of kind `a.kind` (default `lock`). */
async function handleOf(a: Record<string, unknown>): Promise<LockHandle> {
  return (await client(a as unknown as ImplArgs)).handle(a['name'] as string, undefined, (a['kind'] as Kind | undefined) ?? 'lock');
}

function rawRedis(url: string): Redis {
  raw ??= new Redis(url);
  return raw;
}

function gcHeap(): number {
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  gc?.();
  return process.memoryUsage().heapUsed;
}

function timerCount(): number {
  return process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;
}

async function timed(n: number, fn: () => Promise<unknown>): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = nowUs();
    await fn();
    out.push(nowUs() - t0);
  }
  return out;
}

/** Runs `tasks` with at most `limit` in flight. */
async function pool<T>(items: readonly T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const lanes = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) {
      const item = items[next++] as T;
      await fn(item);
    }
  });
  await Promise.all(lanes);
}

type Handler = (args: Record<string, unknown>) => Promise<unknown>;

const handlers: Record<string, Handler> = {
  ping: () => Promise.resolve({ pid: process.pid, t: nowUs() }),

  open: async (a) => {
    await client(a as unknown as ImplArgs);
    return null;
  },

  /** Raw PING and EVALSHA of a trivial script, on a plain ioredis connection like the libraries use. */
  baseline: async (a) => {
    const redis = rawRedis(a['url'] as string);
    const n = a['n'] as number;
    const sha = (await redis.script('LOAD', 'return 1')) as string;
    // Alternate the two per sample so that a burst of load elsewhere hits both alike.
    const ping: number[] = [];
    const evalsha: number[] = [];
    for (let i = 0; i < n; i++) {
      ping.push(...(await timed(1, () => redis.ping())));
      evalsha.push(...(await timed(1, () => redis.evalsha(sha, 0))));
    }
    return { ping, evalsha };
  },

  /** n lock+unlock pairs on one uncontended lock (or another kind: `a.kind`). */
  pairs: async (a) => {
    const h = await handleOf(a);
    return timed(a['n'] as number, async () => {
      await h.acquire();
      await h.release();
    });
  },

  transportPing: async (a) => {
    const c = await client(a as unknown as ImplArgs);
    const ping = c.transportPing?.bind(c);
    return ping ? timed(a['n'] as number, ping) : null;
  },

  hold: async (a) => {
    const h = await handleOf(a);
    await h.acquire();
    held.set(a['name'] as string, h);
    return null;
  },

  /** Times the release call from just before it starts. */
  release: async (a) => {
    const h = held.get(a['name'] as string);
    if (!h) throw new Error(`not holding ${String(a['name'])}`);
    held.delete(a['name'] as string);
    const t = nowUs();
    await h.release();
    return { t };
  },

  /** Starts waiting; an `acquired` event carries the time the acquisition resolved. */
  wait: async (a) => {
    const h = await handleOf(a);
    const token = a['token'] as number;
    h.acquire().then(
      async () => {
        const t = nowUs();
        await h.release();
        process.send?.({ event: 'acquired', token, t });
      },
      (error: unknown) => process.send?.({ event: 'acquired', token, error: String(error) }),
    );
    return null;
  },

  /** Baseline for handoff: subscribes (once) and reports when `token` is published on `channel`. */
  relayWait: async (a) => {
    if (!relay) {
      const r = { subscriber: new Redis(a['url'] as string), tokens: new Map<string, number>() };
      r.subscriber.on('message', (_channel: string, message: string) => {
        const token = r.tokens.get(message);
        if (token === undefined) return;
        r.tokens.delete(message);
        process.send?.({ event: 'acquired', token, t: nowUs() });
      });
      await r.subscriber.subscribe(a['channel'] as string);
      relay = r;
    }
    relay.tokens.set(String(a['token']), a['token'] as number);
    return null;
  },

  /** The other half of the relay: a raw PUBLISH, timed from just before it is sent. */
  relayRelease: async (a) => {
    const redis = rawRedis(a['url'] as string);
    const t = nowUs();
    await redis.publish(a['channel'] as string, String(a['token']));
    return { t };
  },

  /** PING after `idleMs` of doing nothing, as a handoff's holder does. */
  idlePing: async (a) => {
    const redis = rawRedis(a['url'] as string);
    await new Promise((resolve) => setTimeout(resolve, a['idleMs'] as number));
    const t = nowUs();
    await redis.ping();
    return nowUs() - t;
  },

  /**
   * `workers` owners loop for `durationMs`: lock, GET counter, SET counter+1 (a non-atomic
   * read-modify-write that only the lock makes safe), unlock. Owners blocked at the deadline still finish
   * their op (counted in `late`) so that the counter can be checked exactly; those still blocked
   * `graceMs` after it are reported as `stuck` and, once they get the lock, release it without touching
   * the counter.
   */
  contend: async (a) => {
    // One client shared by this process's owners, or (`clientPerOwner`) a client of its own per owner, as
    // N service instances would have.
    const perOwner = a['clientPerOwner'] === true;
    // The users' shape: a new lock object per acquisition, GET / SET on the owner's own connection.
    const users = a['users'] === true;
    // Diagnostics (issue 29): BENCH_USERS_SHAPE=objects keeps the shared GET / SET connection, =connections one lock object per owner.
    const shape = process.env['BENCH_USERS_SHAPE'];
    const perAcquisition = users && shape !== 'connections';
    const appPerOwner = users && shape !== 'objects';
    const shared = perOwner ? null : await client(a as unknown as ImplArgs);
    const redis = rawRedis(a['url'] as string);
    const counter = a['counter'] as string;
    const workers = a['workers'] as number;
    const apps = appPerOwner ? Array.from({ length: a['workers'] as number }, () => new Redis(a['url'] as string)) : [];
    const own = perOwner ? await Promise.all(Array.from({ length: workers }, () => IMPLEMENTATION_BY_NAME[a['impl'] as ImplName].open({ url: a['url'] as string }))) : [];
    const start = nowUs();
    const end = start + (a['durationMs'] as number) * 1_000;
    // This process's CPU over the timed window (every thread: ioredis, GC, libuv).
    const cpuStart = process.cpuUsage();
    let cpuUs = NaN;
    const cpuTimer = setTimeout(() => {
      const used = process.cpuUsage(cpuStart);
      cpuUs = used.user + used.system;
    }, a['durationMs'] as number);
    const errors: string[] = [];
    const waits: number[] = [];
    const opsUs: number[] = [];
    let abandoned = false;
    const results = Array.from({ length: workers }, () => ({ ops: 0, late: 0, done: false }));
    const running = results.map(async (r, i) => {
      const lockClient = own[i] ?? shared;
      if (!lockClient) throw new Error('no client');
      const app = apps[i] ?? redis;
      let h = lockClient.handle(a['name'] as string);
      try {
        while (nowUs() < end) {
          if (perAcquisition) h = lockClient.handle(a['name'] as string);
          const t0 = nowUs();
          await h.acquire();
          waits.push(nowUs() - t0);
          if (abandoned) {
            await h.release();
            break;
          }
          try {
            const value = Number((await app.get(counter)) ?? '0');
            await app.set(counter, String(value + 1));
          } finally {
            await h.release();
          }
          const t1 = nowUs();
          if (t1 <= end) {
            r.ops++;
            if (users) opsUs.push(t1 - t0);
          } else r.late++;
        }
      } catch (error) {
        errors.push(String(error));
      }
      r.done = true;
    });
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.all(running),
      new Promise((resolve) => (timer = setTimeout(resolve, (a['durationMs'] as number) + (a['graceMs'] as number)))),
    ]);
    clearTimeout(timer);
    clearTimeout(cpuTimer);
    // Every owner finished before the timer's turn came (it fires a little after the deadline): read it now.
    if (Number.isNaN(cpuUs)) {
      const used = process.cpuUsage(cpuStart);
      cpuUs = used.user + used.system;
    }
    abandoned = true;
    const stuck = results.filter((r) => !r.done).length;
    // Owners' own clients close once every owner is done (a stuck one keeps its client until the process goes).
    if (stuck === 0) await Promise.allSettled([...own.map((c) => c.close()), ...apps.map((r) => r.quit())]);
    return {
      ops: results.map((r) => r.ops),
      late: results.reduce((s, r) => s + r.late, 0),
      stuck,
      elapsedUs: nowUs() - start,
      cpuUs,
      waits,
      opsUs,
      errors,
    };
  },

  /** Heap (after GC) and ref'd timers right now. */
  memory: () => Promise.resolve({ heap: gcHeap(), timers: timerCount(), rss: process.memoryUsage().rss }),

  /** Acquires `n` distinct locks `prefix0..n-1`, 200 in flight, all with one owner where owners are costly. */
  holdMany: async (a) => {
    const c = await client(a as unknown as ImplArgs);
    const n = a['n'] as number;
    const prefix = a['prefix'] as string;
    const t0 = nowUs();
    const handles = Array.from({ length: n }, (_, i) => c.handle(`${prefix}${i}`, 'bulk'));
    await pool(handles, 200, (h) => h.acquire());
    bulk = handles;
    return { ms: (nowUs() - t0) / 1_000 };
  },

  releaseMany: async () => {
    const handles = bulk;
    bulk = [];
    await pool(handles, 200, (h) => h.release());
    return null;
  },

  /** Starts `waiters` owners waiting on `locks` locks (`prefix0..`); returns once all have been started. */
  waitMany: async (a) => {
    const c = await client(a as unknown as ImplArgs);
    const n = a['waiters'] as number;
    const locks = a['locks'] as number;
    const prefix = a['prefix'] as string;
    waiters = Array.from({ length: n }, async (_, i) => {
      const h = c.handle(`${prefix}${i % locks}`);
      try {
        await h.acquire();
        await h.release();
      } catch (error) {
        waiterErrors.push(String(error));
      }
    });
    return null;
  },

  waitersDone: async (a) => {
    const t0 = nowUs();
    const timeoutMs = a['timeoutMs'] as number;
    let timer: NodeJS.Timeout | undefined;
    const finished = await Promise.race([
      Promise.all(waiters).then(() => true),
      new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), timeoutMs))),
    ]);
    clearTimeout(timer);
    return { finished, ms: (nowUs() - t0) / 1_000, errors: waiterErrors.slice(0, 3), errorCount: waiterErrors.length };
  },

  exit: async () => {
    exiting = true;
    const all = await Promise.allSettled([...clients.values()]);
    await Promise.allSettled(all.flatMap((r) => (r.status === 'fulfilled' ? [r.value.close()] : [])));
    await raw?.quit().catch(() => undefined);
    await relay?.subscriber.quit().catch(() => undefined);
    setTimeout(() => process.exit(0), 10).unref();
    return null;
  },
};

process.on('message', (msg: WorkerRequest) => {
  const handler = handlers[msg.op];
  const reply = (r: WorkerReply): void => void process.send?.(r);
  if (!handler) {
    reply({ id: msg.id, ok: false, error: `unknown op ${msg.op}` });
    return;
  }
  handler(msg.args).then(
    (result) => reply({ id: msg.id, ok: true, result }),
    (error: unknown) => reply({ id: msg.id, ok: false, error: error instanceof Error ? (error.stack ?? error.message) : String(error) }),
  );
});
// Peers can warn once per lock (node-redisson: MaxListenersExceededWarning per channel): print each kind once.
const warned = new Set<string>();
process.removeAllListeners('warning');
process.on('warning', (w) => {
  if (warned.has(w.name)) return;
  warned.add(w.name);
  process.stderr.write(`worker ${process.argv[2] ?? ''}: ${w.name}: ${w.message} (further ${w.name}s not shown)\n`);
});

// While closing, waiters that never got their lock (a peer's lost wake-up) reject with "Connection is
// closed": expected then, and not worth a stack trace.
process.on('unhandledRejection', (reason) => {
  if (exiting) return;
  process.stderr.write(`worker ${process.argv[2] ?? ''}: unhandled rejection: ${String(reason)}\n`);
});

// The parent went away: do not linger.
process.on('disconnect', () => process.exit(0));
