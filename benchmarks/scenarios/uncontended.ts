/**
 * Uncontended: lock+unlock pairs on a lock nobody else wants, timed from the lock call to the unlock
 * resolving. Rounds interleave the baseline and every implementation (in a rotating order); Redis
 * commands per pair come from INFO commandstats around each batch.
 */
import type { ImplName } from '../adapters/index.js';
import { rotate, type BenchContext } from '../context.js';
import { allCalls, commandStats, resetStats, scriptCalls } from '../redisInfo.js';
import { summarize, type Summary } from '../stats.js';
import { baselineBatch } from './baseline.js';

export interface UncontendedRow {
  readonly pair: Summary;
  /** Script calls (EVAL/EVALSHA) per pair. */
  readonly scriptsPerPair: number;
  /** All commands per pair, including those run inside scripts. */
  readonly commandsPerPair: number;
  /** One no-op round trip through the implementation's own transport (Java peer pipe), if any. */
  readonly transport?: Summary;
}

export interface UncontendedResult {
  readonly ping: Summary;
  readonly evalsha: Summary;
  readonly rows: Partial<Record<ImplName, UncontendedRow>>;
}

export async function runUncontended(ctx: BenchContext): Promise<UncontendedResult> {
  const rounds = ctx.quick ? 3 : 6;
  const n = ctx.quick ? 150 : 500;
  const worker = ctx.workers[0];
  const ping: number[] = [];
  const evalsha: number[] = [];
  const pairs = new Map<ImplName, number[]>();
  const transport = new Map<ImplName, number[]>();
  const calls = new Map<ImplName, { scripts: number; all: number; pairs: number }>();

  // Warm-up: JIT, script cache, connections.
  ctx.progress.update('uncontended: warm-up');
  await baselineBatch(ctx, 100);
  for (const impl of ctx.impls) await worker.call('pairs', { impl, url: ctx.url, name: `bench:unc:${impl}`, n: 50 });

  for (let r = 0; r < rounds; r++) {
    const b = await baselineBatch(ctx, n);
    ping.push(...b.ping);
    evalsha.push(...b.evalsha);
    for (const impl of rotate(ctx.impls, r)) {
      ctx.progress.update(`uncontended: round ${r + 1}/${rounds} · ${impl}`);
      await resetStats(ctx.admin);
      const samples = await worker.call<number[]>('pairs', { impl, url: ctx.url, name: `bench:unc:${impl}`, n });
      const stats = await commandStats(ctx.admin);
      (pairs.get(impl) ?? pairs.set(impl, []).get(impl))?.push(...samples);
      const c = calls.get(impl) ?? { scripts: 0, all: 0, pairs: 0 };
      calls.set(impl, { scripts: c.scripts + scriptCalls(stats), all: c.all + allCalls(stats), pairs: c.pairs + n });
      const t = await worker.call<number[] | null>('transportPing', { impl, url: ctx.url, n: Math.min(n, 200) });
      if (t) (transport.get(impl) ?? transport.set(impl, []).get(impl))?.push(...t);
    }
  }

  const rows: Partial<Record<ImplName, UncontendedRow>> = {};
  for (const impl of ctx.impls) {
    const c = calls.get(impl);
    const t = transport.get(impl);
    rows[impl] = {
      pair: summarize(pairs.get(impl) ?? []),
      scriptsPerPair: c ? c.scripts / c.pairs : NaN,
      commandsPerPair: c ? c.all / c.pairs : NaN,
      ...(t ? { transport: summarize(t) } : {}),
    };
  }
  return { ping: summarize(ping), evalsha: summarize(evalsha), rows };
}
