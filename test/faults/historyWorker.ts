/**
 * One OS process of the fault suite, forked by ./workers.ts with `--import tsx` ahead of its scenario.
 * It reports `ready` once loaded; `setup` ({@link HistoryWorkerOptions}) makes it connect and report
 * `armed` with its hash field; `go` starts it. It loops `lock()` → GET counter → a few ms of work → SET
 * counter+1 → `unlock()` until the deadline `go` carries, and appends every step to its log file as a
 * JSON line ({@link HistoryEvent}, read by ./history.ts). The log is a file written synchronously, so a
 * `kill -9` loses nothing that happened before it (an IPC message or a pipe write could still be queued).
 *
 * Errors are data, not the end of the run: a rejected `lock()`, GET/SET or `unlock()` is logged and the
 * loop goes on (ioredis reconnects by itself). The process leaves when the parent goes away.
 */
// The node-redis leg's connections (REDISSON_TEST_DRIVER=node-redis); nothing otherwise.
import '../support/driverLeg.js';
import { closeSync, openSync, writeSync } from 'node:fs';
import { Cluster, Redis } from 'ioredis';
import { Redisson, RedissonError } from '../../src/index.js';
import type { HistoryEvent } from './history.js';
import { runLatch } from './latchWorker.js';
import { makeTaker, type Primitive, type Taker } from './primitives.js';

export interface HistoryWorkerOptions {
  readonly url: string;
  readonly name: string;
  readonly counterKey: string;
  readonly logFile: string;
  /** Lease of each `lock()`; -1: the watchdog (`lockWatchdogTimeout`). */
  readonly leaseMs: number;
  readonly lockWatchdogTimeout: number;
  /** Time inside the critical section between GET and SET. */
  readonly workMs: number;
  /** Pause after each `unlock()`, so the releasing worker does not barge ahead of woken waiters. */
  readonly thinkMs: number;
  /** @default 'lock' (an RLock). `latch`: see ./latchWorker.ts. */
  readonly primitive?: Primitive | 'latch';
  /** Concurrent flows looping on the process's one object (the shared-object pattern). @default 1 */
  readonly flows?: number;
  /** Semaphores' permits. */
  readonly permits?: number;
  /** RedLock: the member servers (this process's client goes to `url`, one more per member). */
  readonly memberUrls?: readonly string[];
  /** Latch: this process counts the rounds down (one per scenario). */
  readonly latchReleaser?: boolean;
  /** FairLock: `fairLockWaitTimeout`, how long a dead waiter's queue entry may block the queue. */
  readonly fairLockWaitTimeout?: number;
  /** A Redis Cluster instead of `url`: its startup nodes (the client and the counter's connection use them). */
  readonly clusterNodes?: readonly { readonly host: string; readonly port: number }[];
}

/** IPC from the parent: first `setup`, then `go`. */
export type ParentMessage =
  | { readonly type: 'setup'; readonly options: HistoryWorkerOptions }
  | {
      readonly type: 'go';
      /** Stop taking the lock at this instant of the shared clock. */
      readonly deadline: number;
    };

/** The clock every process on the host shares: CLOCK_MONOTONIC, in ms (see ./workers.ts `now`). */
const now = (): number => Number(process.hrtime.bigint()) / 1e6;
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** A short, stable label for an error: the class name of ours; `untyped …` with the message for any other. */
function errorLabel(error: unknown): string {
  if (error instanceof RedissonError) return error.name;
  return error instanceof Error ? `untyped ${error.name}: ${error.message.slice(0, 60)}` : `untyped ${String(error)}`;
}

function send(message: Record<string, unknown>): Promise<void> {
  return new Promise((resolve) => {
    if (!process.send) resolve();
    else process.send(message, undefined, {}, () => resolve());
  });
}

/** The next message of `type` from the parent. */
function receive<T extends ParentMessage['type']>(type: T): Promise<Extract<ParentMessage, { type: T }>> {
  return new Promise((resolve) => {
    const onMessage = (m: unknown): void => {
      if (typeof m !== 'object' || m === null || (m as { type?: unknown }).type !== type) return;
      process.off('message', onMessage);
      resolve(m as Extract<ParentMessage, { type: T }>);
    };
    process.on('message', onMessage);
  });
}

async function run(): Promise<void> {
  const setup = receive('setup');
  await send({ type: 'ready' });
  const { options: o } = await setup;
  const fd = openSync(o.logFile, 'a');
  // writeSync to a regular file: in the page cache before the next line of code, whatever kills us next.
  const log = (event: HistoryEvent): void => void writeSync(fd, `${JSON.stringify(event)}\n`);
  const client = Redisson.create({
    redis: o.clusterNodes ? { clusterNodes: [...o.clusterNodes] } : o.url,
    lockWatchdogTimeout: o.lockWatchdogTimeout,
    shortLeaseWarning: false,
    ...(o.fairLockWaitTimeout !== undefined ? { fairLockWaitTimeout: o.fairLockWaitTimeout } : {}),
  });
  const members = (o.memberUrls ?? []).map((url) => Redisson.create({ redis: url, lockWatchdogTimeout: o.lockWatchdogTimeout, shortLeaseWarning: false }));
  // The counter goes over a connection of its own: the client's connection never replays a command
  // whose reply was lost, and a raw GET there could wait forever. A replayed GET/SET is harmless here.
  // A Cluster answers GET/SET as a Redis does (the latch, which needs a Redis, never runs on one).
  const data = o.clusterNodes ? (new Cluster([...o.clusterNodes]) as unknown as Redis) : new Redis(o.url);
  data.on('error', () => undefined);
  const onLost = (): void => log({ k: 'lost', t: now() });
  for (const c of [client, ...members]) c.on('lockLost', onLost);
  const primitive = o.primitive ?? 'lock';
  // The RLock's own owner id, as before (a single flow's field); other primitives report theirs per hold.
  const lock = client.getLock(o.name);
  await data.ping();
  const go = receive('go');
  await send({ type: 'armed', field: `${client.id}:${lock.threadId}`, clientId: client.id, clock: now() });
  const { deadline } = await go;

  const stop = new AbortController();
  const timer = setTimeout(() => stop.abort(new Error('deadline')), Math.max(0, deadline - now()));
  const flows = Array.from({ length: o.flows ?? 1 }, (_, f) => f);
  if (primitive === 'latch') {
    await Promise.all(flows.map((f) => runLatch({ client, data, name: o.name, flow: f, releaser: o.latchReleaser === true && f === 0, deadline, signal: stop.signal, thinkMs: o.thinkMs, log, errorLabel })));
  } else {
    const taker = makeTaker(primitive, client, { name: o.name, leaseMs: o.leaseMs, permits: o.permits ?? 1, members });
    await Promise.all(flows.map((f) => loop(taker, f)));
  }

  async function loop(taker: Taker, f: number): Promise<void> {
    for (let cycle = 0; now() < deadline; cycle++) {
      const role = taker.role(f, cycle);
      log({ k: 'wait', t: now(), f, role });
      let taken;
      try {
        taken = await taker.take(f, cycle, stop.signal);
      } catch (error) {
        if (stop.signal.aborted) break;
        log({ k: 'lockErr', t: now(), f, err: errorLabel(error) });
        await sleep(20);
        continue;
      }
      log({ k: 'acq', t: now(), f, role, ...(taken.token !== undefined ? { tok: taken.token } : {}), ...(taken.field !== undefined ? { o: taken.field } : {}) });
      try {
        const r = Number((await data.get(o.counterKey)) ?? '0');
        await sleep(o.workMs);
        // Only an exclusive hold writes: permits and read holds may coexist by design.
        if (role === 'w') {
          await data.set(o.counterKey, String(r + 1));
          log({ k: 'cs', t: now(), f, r, w: r + 1 });
        }
      } catch (error) {
        log({ k: 'csErr', t: now(), f, err: errorLabel(error) });
      }
      log({ k: 'end', t: now(), f });
      try {
        await taken.release();
        log({ k: 'rel', t: now(), f, ok: true });
      } catch (error) {
        log({ k: 'rel', t: now(), f, ok: false, err: errorLabel(error) });
      }
      await sleep(o.thinkMs);
    }
  }
  clearTimeout(timer);
  log({ k: 'exit', t: now() });
  closeSync(fd);
  await Promise.all([client, ...members].map((c) => c.shutdown()));
  data.disconnect();
  await send({ type: 'done' });
}

// Orphaned (the test process died): leave, so that no worker outlives its test run.
process.on('disconnect', () => process.exit(0));
void run().then(
  () => process.exit(0),
  async (error: unknown) => {
    await send({ type: 'error', message: error instanceof Error ? (error.stack ?? error.message) : String(error) });
    process.exit(1);
  },
);
