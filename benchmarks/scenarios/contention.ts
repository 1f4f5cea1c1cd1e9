/**
 * Contention: W owners split over the two worker processes loop on one lock, each doing a non-atomic
 * read-modify-write of a counter (GET, then SET value+1) under it. Reports ops/s, the fewest and most ops
 * any one owner got (fairness), and whether the counter equals the number of ops (mutual exclusion).
 *
 * Each implementation gets its own pair of worker processes, replaced after a run that left owners stuck:
 * a stuck waiter wakes up later (node-redisson: after the lease, then loops on UNSUBSCRIBE) and must not
 * load the server while anything else is measured.
 */
import type { ImplName } from '../adapters/index.js';
import type { BenchContext } from '../context.js';
import { commandStats, resetStats, scriptCalls } from '../redisInfo.js';
import { WorkerProcess } from '../rpc.js';

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
}

export type ContentionResult = Partial<Record<ImplName, ContentionRow[]>>;

interface WorkerResult {
  ops: number[];
  late: number;
  stuck: number;
  elapsedUs: number;
  errors: string[];
}

export async function runContention(ctx: BenchContext): Promise<ContentionResult> {
  const durationMs = ctx.quick ? 500 : 2_500;
  const graceMs = ctx.quick ? 1_000 : 4_000;
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
    for (const w of WORKER_COUNTS) {
      for (const impl of ctx.impls) {
        await runOne(ctx, impl, w, durationMs, graceMs, await pairFor(impl), result, async () => {
          const pair = pairs.get(impl);
          pairs.delete(impl);
          await Promise.all((pair ?? []).map((p) => p.stop()));
        });
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
  result: ContentionResult,
  discardWorkers: () => Promise<void>,
): Promise<void> {
  ctx.progress.update(`contention: W=${w} · ${impl}`);
  const name = `bench:contention:${impl}:${w}`;
  const counter = `bench:counter:${impl}:${w}`;
  await ctx.admin.del(counter);
  const half = w / 2;
  await resetStats(ctx.admin);
  const parts = await Promise.all(
    workers.map((worker) =>
      worker.call<WorkerResult>('contend', { impl, url: ctx.url, name, counter, workers: half, durationMs, graceMs }),
    ),
  );
  const stats = await commandStats(ctx.admin);
  const ops = parts.flatMap((p) => p.ops);
  const total = ops.reduce((a, b) => a + b, 0);
  const late = parts.reduce((a, p) => a + p.late, 0);
  const value = Number((await ctx.admin.get(counter)) ?? '0');
  (result[impl] ??= []).push({
    workers: w,
    opsPerSec: total / (durationMs / 1_000),
    minOps: Math.min(...ops),
    maxOps: Math.max(...ops),
    ops: total,
    late,
    stuck: parts.reduce((a, p) => a + p.stuck, 0),
    scriptsPerOp: scriptCalls(stats) / (total + late),
    subscribesPerOp: ((stats['subscribe'] ?? 0) + (stats['unsubscribe'] ?? 0)) / (total + late),
    counter: value,
    exact: value === total + late,
    errors: parts.flatMap((p) => p.errors).slice(0, 3),
  });
  if (parts.some((p) => p.stuck > 0)) await discardWorkers();
}
