/**
 * The lock family and the synchronizers: for every kind an implementation has (see `Kind`), the
 * uncontended acquire+release pair (with script calls per pair from INFO commandstats) and the handoff
 * between the two worker processes, measured with the same protocol as the RLock rows (uncontended.ts,
 * handoff.ts) and in the same rounds as a plain `lock` of the same implementation, so every kind can be
 * read against RLock of the same run. The read lock's handoff is a reader woken by a writer's release
 * (two readers do not wait for each other).
 */
import { IMPLEMENTATION_BY_NAME, type ImplName, type Kind } from '../adapters/index.js';
import { rotate, type BenchContext } from '../context.js';
import { commandStats, resetStats, scriptCalls } from '../redisInfo.js';
import { summarize, type Summary } from '../stats.js';
import { baselineBatch } from './baseline.js';
import { handoffSample, type HandoffRow } from './handoff.js';

export interface FamilyRow {
  readonly impl: ImplName;
  readonly kind: Kind;
  readonly pair: Summary;
  /** Script calls (EVAL/EVALSHA) per pair. */
  readonly scriptsPerPair: number;
  readonly handoff: HandoffRow;
}

export interface FamilyResult {
  /** Raw PING p50 etc. measured between the batches of this scenario. */
  readonly ping: Summary;
  readonly rows: FamilyRow[];
}

/** Every (implementation, kind) pair measured: implementations that have more than `lock` only. */
export function familyCells(impls: readonly ImplName[]): { impl: ImplName; kind: Kind }[] {
  return impls.flatMap((impl) => {
    const kinds = IMPLEMENTATION_BY_NAME[impl].kinds ?? ['lock'];
    return kinds.length > 1 ? kinds.map((kind) => ({ impl, kind })) : [];
  });
}

export async function runFamily(ctx: BenchContext): Promise<FamilyResult> {
  const rounds = ctx.quick ? 2 : 3;
  const n = ctx.quick ? 100 : 300;
  const perRound = ctx.quick ? 10 : 30;
  const timeoutMs = ctx.quick ? 1_000 : 3_000;
  const cells = familyCells(ctx.impls);
  const ping: number[] = [];
  const pairs = new Map<string, number[]>();
  const scripts = new Map<string, number>();
  const handoffs = new Map<string, number[]>();
  const missed = new Map<string, number>();
  const key = (c: { impl: ImplName; kind: Kind }): string => `${c.impl}|${c.kind}`;
  const push = (m: Map<string, number[]>, k: string, xs: readonly number[]): void => void (m.get(k) ?? m.set(k, []).get(k))?.push(...xs);

  // Warm-up: JIT, script cache, connections (and the Java threads).
  for (const c of cells) {
    ctx.progress.update(`family: warm-up · ${c.impl} ${c.kind}`);
    await ctx.workers[0].call('pairs', { impl: c.impl, url: ctx.url, kind: c.kind, name: `bench:family:warm:${c.impl}:${c.kind}`, n: 20 });
  }
  for (let r = 0; r < rounds; r++) {
    ping.push(...(await baselineBatch(ctx, n)).ping);
    for (const c of rotate(cells, r)) {
      ctx.progress.update(`family: round ${r + 1}/${rounds} · ${c.impl} ${c.kind} pairs`);
      await resetStats(ctx.admin);
      push(pairs, key(c), await ctx.workers[0].call<number[]>('pairs', { impl: c.impl, url: ctx.url, kind: c.kind, name: `bench:family:pair:${c.impl}:${c.kind}`, n }));
      scripts.set(key(c), (scripts.get(key(c)) ?? 0) + scriptCalls(await commandStats(ctx.admin)));
      const samples: number[] = [];
      for (let i = 0; i < perRound; i++) {
        ctx.progress.update(`family: round ${r + 1}/${rounds} · ${c.impl} ${c.kind} handoff ${i + 1}`);
        const name = `bench:family:handoff:${c.impl}:${c.kind}:${r}:${i}`;
        const read = c.kind === 'read';
        const us = await handoffSample(ctx, { impl: c.impl, name, kind: read ? 'write' : c.kind, ...(read ? { waitKind: 'read' as const } : {}), flip: i % 2 === 1, timeoutMs });
        if (us === null) missed.set(key(c), (missed.get(key(c)) ?? 0) + 1);
        samples.push(us ?? timeoutMs * 1_000);
      }
      push(handoffs, key(c), samples);
    }
  }
  const rows = cells.map((c): FamilyRow => {
    const h = handoffs.get(key(c)) ?? [];
    const m = missed.get(key(c));
    return {
      ...c,
      pair: summarize(pairs.get(key(c)) ?? []),
      scriptsPerPair: (scripts.get(key(c)) ?? NaN) / (n * rounds),
      handoff: { ...summarize(h), samples: h, ...(m === undefined ? {} : { timeouts: m }) },
    };
  });
  return { ping: summarize(ping), rows };
}
