/**
 * Contention: W owners split over the two worker processes (or, for `clients`, with a client each, in one
 * process or two) loop on one lock, each doing a non-atomic
 * read-modify-write of a counter (GET, then SET value+1) under it. Reports ops/s, the fewest and most ops
 * any one owner got (fairness), and whether the counter equals the number of ops (mutual exclusion).
 *
 * Each implementation gets its own pair of worker processes, replaced after a run that left owners stuck:
 * a stuck waiter wakes up later (node-redisson: after the lease, then loops on UNSUBSCRIBE) and must not
 * load the server while anything else is measured.
 */
import type { ImplName } from '../adapters/index.js';
import type { BenchContext } from '../context.js';
import { commandStats, resetStats, scriptCalls, serverCpuUs } from '../redisInfo.js';
import { WorkerProcess } from '../rpc.js';
import { summarize } from '../stats.js';

export const WORKER_COUNTS = [2, 16, 64] as const;

export interface ContentionRow {
  readonly workers: number;
  readonly opsPerSec: number;
  readonly minOps: number;
  readonly maxOps: number;
  readonly ops: number;
  /** Ops that were still blocked at the deadline and completed after it (not in ops/s). */
  readonly late: number;
  /** Owners still blocked a grace period after the deadline (abandoned; they never touch the counter). */
  readonly stuck: number;
  /** Script calls (EVAL/EVALSHA) per counted op, lock and unlock together. */
  readonly scriptsPerOp: number;
  /** SUBSCRIBE + UNSUBSCRIBE commands per counted op. */
  readonly subscribesPerOp: number;
  readonly counter: number;
  readonly exact: boolean;
  readonly errors: string[];
  /** Acquire call → resolved, over every op (counted, late and abandoned), µs. */
  readonly waitP50Us: number;
  readonly waitP99Us: number;
  /** How many worker processes the owners were spread over. */
  readonly processes: number;
  /** Whether each owner had a client (connections) of its own, rather than one per process. */
  readonly clientPerOwner: boolean;
  /**
   * The users' shape (`runUsers`): a new lock object (`getLock(name)`, `new Mutex`) per acquisition, and the
   * GET / SET on a connection of the owner's own rather than one the process shares.
   */
  readonly users?: boolean;
  /** One op (acquire, GET, SET, release), µs, over counted ops. */
  readonly opP50Us?: number;
  readonly opP99Us?: number;
  /**
   * CPU time (user + system) per counted op over the timed window: the owners' processes together, and the
   * server. NaN where not measured (the in-JVM rows).
   */
  readonly clientCpuUsPerOp: number;
  readonly serverCpuUsPerOp: number;
}

export type ContentionResult = Partial<Record<ImplName, ContentionRow[]>>;

/** What each process (a worker, or a JVM) reports of one contention run. */
export interface ContentionPart {
  readonly ops: readonly number[];
  readonly late: number;
  readonly stuck: number;
  readonly errors: readonly string[];
  /** The process's CPU time (µs, user + system, all its threads) over the timed window, where measured. */
  readonly cpuUs?: number;
}

/**
 * One row from the processes' reports of a run: `waitsUs` every acquire's wait, `stats` the server's command
 * counts over the run (`INFO commandstats` after a reset), `counter` the counter's final value.
 */
export function contentionRow(
  w: number,
  durationMs: number,
  parts: readonly ContentionPart[],
  waitsUs: number[],
  stats: Record<string, number>,
  counter: number,
  layout: { readonly processes: number; readonly clientPerOwner: boolean; readonly users?: boolean },
  serverCpuUs = NaN,
  opsUs: number[] = [],
): ContentionRow {
  const op = summarize(opsUs);
  const ops = parts.flatMap((p) => p.ops);
  const waits = summarize(waitsUs);
  const total = ops.reduce((a, b) => a + b, 0);
  const late = parts.reduce((a, p) => a + p.late, 0);
  return {
    workers: w,
    opsPerSec: total / (durationMs / 1_000),
    minOps: Math.min(...ops),
    maxOps: Math.max(...ops),
    ops: total,
    late,
    stuck: parts.reduce((a, p) => a + p.stuck, 0),
    scriptsPerOp: scriptCalls(stats) / (total + late),
    subscribesPerOp: ((stats['subscribe'] ?? 0) + (stats['unsubscribe'] ?? 0)) / (total + late),
    counter,
    exact: counter === total + late,
    errors: parts.flatMap((p) => p.errors).slice(0, 3),
    waitP50Us: waits.p50,
    waitP99Us: waits.p99,
    processes: layout.processes,
    clientPerOwner: layout.clientPerOwner,
    clientCpuUsPerOp: parts.reduce((a, p) => a + (p.cpuUs ?? NaN), 0) / total,
    serverCpuUsPerOp: serverCpuUs / total,
    ...(layout.users ? { users: true, opP50Us: op.p50, opP99Us: op.p99 } : {}),
  };
}

interface WorkerResult {
  ops: number[];
  late: number;
  stuck: number;
  elapsedUs: number;
  cpuUs: number;
  /** Every acquire's wait, µs. */
  waits: number[];
  /** Every counted op, acquire to release resolved, µs. */
  opsUs?: number[];
  errors: string[];
}

/** How the owners of one run are laid out. */
interface Layout {
  readonly processes: 1 | 2;
  readonly clientPerOwner: boolean;
  /** The users' shape: see {@link ContentionRow.users}. */
  readonly users?: boolean;
}

export function runContention(ctx: BenchContext): Promise<ContentionResult> {
  return runMatrix(ctx, ctx.impls, [{ processes: 2, clientPerOwner: false }], 'contention');
}

/**
 * The same loop with one client per owner (N service instances on one hot lock, each with its own
 * connections): all N in one process, and split over two. Java is left out (a JVM per client).
 */
export function runClients(ctx: BenchContext): Promise<ContentionResult> {
  return runMatrix(
    ctx,
    ctx.impls.filter((i) => i !== 'java-redisson'),
    [
      { processes: 1, clientPerOwner: true },
      { processes: 2, clientPerOwner: true },
    ],
    'clients',
  );
}

/** W of the users' shape: 1 is the uncontended op (a request handler alone), then contention. */
export const USER_COUNTS = [1, 2, 16, 64] as const;

/**
 * The shape users measure in (issue 29): one process, `getLock(name)` (a `new Mutex`) per acquisition and
 * a GET and a SET inside the lock on the owner's own connection, as a request handler does, with a client
 * per owner (N service instances) and with W owners on one client (one service, W concurrent requests).
 */
export function runUsers(ctx: BenchContext): Promise<ContentionResult> {
  return runMatrix(
    ctx,
    ctx.impls.filter((i) => i !== 'java-redisson'),
    [
      { processes: 1, clientPerOwner: true, users: true },
      { processes: 1, clientPerOwner: false, users: true },
    ],
    'users',
    USER_COUNTS,
  );
}

/** How long the owners loop, and how long owners blocked at the deadline are waited for (also the in-JVM run's). */
export function contentionTiming(quick: boolean): { durationMs: number; graceMs: number } {
  return { durationMs: quick ? 500 : 2_500, graceMs: quick ? 1_000 : 4_000 };
}

async function runMatrix(
  ctx: BenchContext,
  impls: readonly ImplName[],
  layouts: readonly Layout[],
  label: string,
  counts: readonly number[] = WORKER_COUNTS,
): Promise<ContentionResult> {
  const { durationMs, graceMs } = contentionTiming(ctx.quick);
  const result: ContentionResult = {};
  const pairs = new Map<ImplName, WorkerProcess[]>();
  const pairFor = async (impl: ImplName): Promise<WorkerProcess[]> => {
    let pair = pairs.get(impl);
    if (!pair) {
      pair = await Promise.all([WorkerProcess.start(`contend-${impl}-A`), WorkerProcess.start(`contend-${impl}-B`)]);
      pairs.set(impl, pair);
    }
    return pair;
  };
  try {
    for (const w of counts) {
      for (const layout of layouts) {
        // One owner on "one client" is the client-per-owner row again.
        if (w === 1 && !layout.clientPerOwner) continue;
        for (const impl of impls) {
          ctx.progress.update(`${label}: W=${w}${layout.clientPerOwner ? ` clients, ${layout.processes} process${layout.processes === 1 ? '' : 'es'}` : layout.users ? ' on one client' : ''} · ${impl}`);
          const pair = await pairFor(impl);
          await runOne(ctx, impl, w, durationMs, graceMs, layout.processes === 1 ? pair.slice(0, 1) : pair, layout, result, async () => {
            pairs.delete(impl);
            await Promise.all(pair.map((p) => p.stop()));
          });
        }
      }
    }
  } finally {
    await Promise.all([...pairs.values()].flat().map((p) => p.stop()));
  }
  return result;
}

async function runOne(
  ctx: BenchContext,
  impl: ImplName,
  w: number,
  durationMs: number,
  graceMs: number,
  workers: WorkerProcess[],
  layout: Layout,
  result: ContentionResult,
  discardWorkers: () => Promise<void>,
): Promise<void> {
  const tag = `${w}:${layout.processes}:${layout.clientPerOwner ? 'own' : 'shared'}${layout.users ? ':users' : ''}`;
  const name = `bench:contention:${impl}:${tag}`;
  const counter = `bench:counter:${impl}:${tag}`;
  await ctx.admin.del(counter);
  const share = w / workers.length;
  await resetStats(ctx.admin);
  // The server's CPU over the timed window, as the workers measure theirs (from the request to the deadline).
  const cpuBefore = await serverCpuUs(ctx.admin);
  let timer: NodeJS.Timeout | undefined;
  let readNow = (): void => undefined;
  const cpuAtDeadline = new Promise<number>((resolve) => {
    let read = false;
    readNow = () => {
      if (read) return;
      read = true;
      resolve(serverCpuUs(ctx.admin).catch(() => NaN));
    };
    timer = setTimeout(readNow, durationMs);
  });
  const parts = await Promise.all(
    workers.map((worker) =>
      worker.call<WorkerResult>('contend', {
        impl,
        url: ctx.url,
        name,
        counter,
        workers: share,
        durationMs,
        graceMs,
        clientPerOwner: layout.clientPerOwner,
        users: layout.users === true,
      }),
    ),
  ).finally(() => {
    // Done (or failed) before the deadline's timer: read it now rather than wait for a timer that is gone.
    clearTimeout(timer);
    readNow();
  });
  const serverCpu = (await cpuAtDeadline) - cpuBefore;
  const stats = await commandStats(ctx.admin);
  const value = Number((await ctx.admin.get(counter)) ?? '0');
  (result[impl] ??= []).push(contentionRow(w, durationMs, parts, parts.flatMap((p) => p.waits), stats, value, layout, serverCpu, parts.flatMap((p) => p.opsUs ?? [])));
  if (parts.some((p) => p.stuck > 0)) await discardWorkers();
}
