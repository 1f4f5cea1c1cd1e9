/**
 * The issue's targets, evaluated on one run's results as ratios. These are goals for the benchmark to
 * report on, never assertions: a missed target is printed as such.
 */
import type { ImplName } from './adapters/index.js';
import type { BenchResults } from './report.js';
import type { ContentionResult } from './scenarios/contention.js';

export interface TargetCheck {
  readonly target: string;
  readonly measured: string;
  /** null: could not be evaluated (an implementation was not measured). */
  readonly met: boolean | null;
  /**
   * The ratio the target bounds, for a median over runs (benchmarks/median.ts): met when `value` is at most
   * (`'max'`) or at least (`'min'`) `limit`. Absent: a yes/no target, counted run by run.
   */
  readonly ratio?: { readonly value: number; readonly bound: 'max' | 'min'; readonly limit: number };
}

/** A target bounding `value`: met when within `limit` (`'max'`: at most, `'min'`: at least); null when not measured. */
function bounded(target: string, measured: string, value: number, bound: 'max' | 'min', limit: number): TargetCheck {
  if (!Number.isFinite(value)) return { target, measured, met: null };
  return { target, measured, met: bound === 'max' ? value <= limit : value >= limit, ratio: { value, bound, limit } };
}

const r2 = (x: number): string => (Number.isFinite(x) ? x.toFixed(2) : 'n/a');

export function evaluateTargets(res: BenchResults): TargetCheck[] {
  const out: TargetCheck[] = [];
  const ping = res.uncontended?.ping.p50 ?? NaN;
  const ours = 'redisson-ts';
  // The protocol with nothing around it (adapters/bareProtocol.ts): where it misses a target too, the target is
  // below what Redisson's protocol costs on ioredis here. Its figure is appended to the measured column.
  const control = 'bare-protocol';
  const withControl = (text: string, theirs: string | undefined): string => (theirs === undefined ? text : `${text}; ${control} control: ${theirs}`);

  const pair = res.uncontended?.rows[ours]?.pair.p50 ?? NaN;
  out.push({
    target: 'uncontended pair p50 ≤ 2.2 × raw PING p50',
    measured: withControl(`${r2(pair / ping)} × (${r2(pair)} µs / ${r2(ping)} µs)`, res.uncontended?.rows[control] === undefined ? undefined : `${r2(res.uncontended.rows[control].pair.p50 / ping)} ×`),
    met: Number.isFinite(pair / ping) ? pair / ping <= 2.2 : null,
  });

  const handoff = res.handoff?.rows[ours]?.p50 ?? NaN;
  out.push({
    target: 'handoff p50 ≤ 3 × raw PING p50',
    measured: withControl(
      `${r2(handoff / ping)} × (${r2(handoff)} µs); against a PING after the same idle time: ${r2(handoff / (res.handoff?.idlePing.p50 ?? NaN))} ×; the bare PUBLISH hop alone: ${r2((res.handoff?.relay.p50 ?? NaN) / ping)} × PING`,
      res.handoff?.rows[control] === undefined ? undefined : `${r2(res.handoff.rows[control].p50 / ping)} ×`,
    ),
    met: Number.isFinite(handoff / ping) ? handoff / ping <= 3 : null,
  });
  const relayHop = res.handoff?.relay.p50 ?? NaN;
  const controlHandoff = res.handoff?.rows[control]?.p50;
  out.push({
    target: 'handoff p50 ≤ 1.5 × the bare PUBLISH → other-process hop (issue 15)',
    measured: withControl(`${r2(handoff / relayHop)} × (${r2(handoff)} µs vs ${r2(relayHop)} µs)`, controlHandoff === undefined ? undefined : `${r2(controlHandoff / relayHop)} ×`),
    met: Number.isFinite(handoff / relayHop) ? handoff / relayHop <= 1.5 : null,
  });
  const local = res.handoff?.local[ours]?.p50 ?? NaN;
  out.push({
    target: 'handoff within one process (same client) p50 ≤ 1.2 × raw PING p50 (issue 15)',
    measured: withControl(
      `${r2(local / ping)} × (${r2(local)} µs); against a PING after the same idle time: ${r2(local / (res.handoff?.idlePing.p50 ?? NaN))} ×`,
      res.handoff?.local[control] === undefined ? undefined : `${r2(res.handoff.local[control].p50 / ping)} ×`,
    ),
    met: Number.isFinite(local / ping) ? local / ping <= 1.2 : null,
  });
  for (const [peer, factor] of [
    ['redis-semaphore', 10],
    ['redlock', 100],
  ] as const) {
    const theirs = res.handoff?.rows[peer]?.p50 ?? NaN;
    out.push({
      target: `handoff p50 ≥ ${factor}× lower than ${peer}'s`,
      measured: `${r2(theirs / handoff)}× lower`,
      met: Number.isFinite(theirs / handoff) ? theirs / handoff >= factor : null,
    });
  }

  const mine = res.contention?.[ours] ?? [];
  for (const row of mine) {
    const opsOf = (impl: string): number =>
      Object.entries(res.contention ?? {}).find(([name]) => name === impl)?.[1].find((r) => r.workers === row.workers)?.opsPerSec ?? NaN;
    const peers = Object.keys(res.contention ?? {})
      .filter((impl) => !impl.startsWith(ours) && impl !== 'java-redisson' && impl !== 'bare-protocol')
      .map((impl) => ({ impl, ops: opsOf(impl) }))
      .filter((o) => Number.isFinite(o.ops))
      .sort((a, b) => b.ops - a.ops);
    const best = peers[0];
    const controlRow = res.contention?.[control]?.find((r) => r.workers === row.workers);
    out.push({
      target: `contention W=${row.workers}: ops/s ≥ every Node peer's, counter exact`,
      measured: withControl(
        `${Math.round(row.opsPerSec)} ops/s vs best peer ${best ? `${best.impl} ${Math.round(best.ops)} (${r2(row.opsPerSec / best.ops)}×)` : 'n/a'}; counter ${row.exact ? 'exact' : 'WRONG'}`,
        controlRow && best ? `${Math.round(controlRow.opsPerSec)} ops/s (${r2(controlRow.opsPerSec / best.ops)}×)` : undefined,
      ),
      met: best === undefined ? null : row.opsPerSec >= best.ops && row.exact,
    });
    if (row.workers > 2) {
      out.push({
        target: `contention W=${row.workers}: ≤ 3 scripts per op, and no owner starved (issue 15)`,
        measured: withControl(
          `${r2(row.scriptsPerOp)} scripts/op; per-owner ops min ${row.minOps} / max ${row.maxOps}`,
          controlRow ? `${r2(controlRow.scriptsPerOp)} scripts/op, min ${controlRow.minOps} / max ${controlRow.maxOps}` : undefined,
        ),
        met: row.scriptsPerOp <= 3 && row.minOps > 0,
      });
    }
    // Java timed inside its own JVMs when that ran (no peer pipe in its numbers), else through the peer.
    const inJvm = res.javaInJvmContention?.rows.find((r) => r.workers === row.workers)?.opsPerSec;
    const java = inJvm ?? opsOf('java-redisson');
    const how = inJvm === undefined ? "Java pays the peer's pipe per call" : 'Java timed inside its two JVMs';
    out.push({
      target: `contention W=${row.workers}: ops/s ≥ Java Redisson's`,
      measured: Number.isFinite(java) ? `${Math.round(row.opsPerSec)} vs ${Math.round(java)} ops/s (${r2(row.opsPerSec / java)}×; ${how})` : 'n/a (Java not measured)',
      met: Number.isFinite(java) ? row.opsPerSec >= java : null,
    });
  }

  const family = res.family;
  if (family) {
    const fping = family.ping.p50;
    const row = (impl: string, kind: string) => family.rows.find((r) => r.impl === impl && r.kind === kind);
    const lock = row(ours, 'lock');
    const fair = row(ours, 'fair');
    const extra = fair && lock ? (fair.handoff.p50 - lock.handoff.p50) / fping : NaN;
    out.push({
      target: 'fair-lock handoff p50 ≤ RLock handoff p50 + 1 PING (same rounds)',
      measured: `${r2(extra)} PING over RLock's (${r2(fair?.handoff.p50 ?? NaN)} µs vs ${r2(lock?.handoff.p50 ?? NaN)} µs)`,
      met: Number.isFinite(extra) ? extra <= 1 : null,
    });
    const sem = row(ours, 'semaphore')?.handoff.p50 ?? NaN;
    const theirs = row('redis-semaphore', 'semaphore')?.handoff.p50 ?? NaN;
    out.push({
      target: "semaphore handoff p50 ≥ 10× lower than redis-semaphore's Semaphore",
      measured: `${r2(theirs / sem)}× lower (${r2(sem)} µs vs ${r2(theirs)} µs)`,
      met: Number.isFinite(theirs / sem) ? theirs / sem >= 10 : null,
    });
  }

  for (const processes of [1, 2]) {
    const at16 = (impl: ImplName) => res.clients?.[impl]?.find((r) => r.workers === 16 && r.processes === processes);
    const mine16 = at16(ours);
    const theirs16 = at16('redis-semaphore');
    const control16 = at16(control);
    out.push({
      target: `16 clients (one each), ${processes} process${processes === 1 ? '' : 'es'}: ops/s ≥ redis-semaphore's`,
      measured: withControl(
        mine16 && theirs16 ? `${Math.round(mine16.opsPerSec)} vs ${Math.round(theirs16.opsPerSec)} ops/s (${r2(mine16.opsPerSec / theirs16.opsPerSec)}×)` : 'n/a',
        control16 && theirs16 ? `${Math.round(control16.opsPerSec)} ops/s (${r2(control16.opsPerSec / theirs16.opsPerSec)}×), ${r2(control16.scriptsPerOp)} scripts/op` : undefined,
      ),
      met: mine16 && theirs16 ? mine16.opsPerSec >= theirs16.opsPerSec : null,
    });
  }

  const renew = res.manyLocks?.[ours];
  out.push({
    target: 'renewal ≤ 1 script call per 100 held locks per renewal period',
    measured: renew ? `${r2(renew.scriptsPer100Locks)} per 100 locks (${r2(renew.scriptsPerPeriod)} per ${renew.periodMs} ms period, ${renew.locks} locks)` : 'n/a',
    met: renew ? renew.scriptsPer100Locks <= 1 : null,
  });

  const w = res.manyWaiters?.[ours];
  out.push({
    target: '10 000 waiters on 1 000 locks: one subscriber connection, ≤ 1 000 channel subscriptions',
    measured: w ? `${w.subscriberConnections} subscriber connection(s), ${w.subscriptions} subscriptions` : 'n/a',
    met: w ? w.subscriberConnections === 1 && w.subscriptions <= 1_000 : null,
  });
  out.push({
    target: '10 000 waiters: all acquire; no timer or subscription outlives its waiter',
    measured: w ? `${w.finished ? 'all acquired' : 'NOT all acquired'}, ${w.timersLeft} timers and ${w.subscriptionsLeft} subscriptions left` : 'n/a',
    met: w ? w.finished && w.errors === 0 && w.timersLeft <= 0 && w.subscriptionsLeft === 0 : null,
  });

  // Issue 29, direct handoff: the same-client handoff, and W owners on one client in the users' shape.
  out.push({
    target: 'handoff within one process (same client) p50 ≤ 1.3 × raw PING p50 (issue 29, direct handoff)',
    measured: `${r2(local / ping)} × (${r2(local)} µs); against a PING after the same idle time: ${r2(local / (res.handoff?.idlePing.p50 ?? NaN))} ×${res.handoff?.local['redisson-ts@no-handoff'] === undefined ? '' : `; with directHandoff: false ${r2(res.handoff.local['redisson-ts@no-handoff'].p50 / ping)} ×`}${res.handoff?.local[control] === undefined ? '' : `; ${control} control: ${r2(res.handoff.local[control].p50 / ping)} ×`}`,
    met: Number.isFinite(local / ping) ? local / ping <= 1.3 : null,
    ...(Number.isFinite(local / ping) ? { ratio: { value: local / ping, bound: 'max' as const, limit: 1.3 } } : {}),
  });
  for (const workers of [2, 16, 64]) {
    const oneClient = (impl: ImplName): ContentionRowLike | undefined => res.users?.[impl]?.find((r) => r.workers === workers && !r.clientPerOwner);
    const mine = oneClient(ours);
    const theirs = oneClient('redis-semaphore');
    const before = oneClient('redisson-ts@no-handoff');
    out.push({
      target: `W owners on one client (users' shape), W=${workers}: ops/s ≥ redis-semaphore's (issue 29)`,
      measured:
        mine && theirs
          ? `${Math.round(mine.opsPerSec)} vs ${Math.round(theirs.opsPerSec)} ops/s (${r2(mine.opsPerSec / theirs.opsPerSec)}×), per-owner min/max ${mine.minOps}/${mine.maxOps}${before ? `; with directHandoff: false ${Math.round(before.opsPerSec)} ops/s, ${before.minOps}/${before.maxOps}` : ''}`
          : 'n/a',
      met: mine && theirs ? mine.opsPerSec >= theirs.opsPerSec : null,
      ...(mine && theirs ? { ratio: { value: mine.opsPerSec / theirs.opsPerSec, bound: 'min' as const, limit: 1 } } : {}),
    });
  }

  out.push(...controlTargets(res));

  // Issue 25/29: no driver slower than ioredis (the default client, `redisson-ts`), in the same run.
  for (const driver of ['redisson-ts@ioredis6', 'redisson-ts@iovalkey', 'redisson-ts@node-redis'] as const satisfies readonly ImplName[]) {
    const theirPair = res.uncontended?.rows[driver]?.pair.p50 ?? NaN;
    const theirHandoff = res.handoff?.rows[driver]?.p50 ?? NaN;
    const at16 = (impl: ImplName): number => res.contention?.[impl]?.find((r) => r.workers === 16)?.opsPerSec ?? NaN;
    const measured = Number.isFinite(theirPair) || Number.isFinite(theirHandoff) || Number.isFinite(at16(driver));
    const pairRatio = theirPair / pair;
    const handoffRatio = theirHandoff / handoff;
    const opsRatio = at16(driver) / at16(ours);
    out.push({
      target: `${driver}: pair and handoff p50 ≤ 1.1× redisson-ts on its default ioredis, contention W=16 ≥ 0.95×`,
      measured: measured ? `pair ${r2(pairRatio)}×, handoff ${r2(handoffRatio)}×, W=16 ops/s ${r2(opsRatio)}×` : 'n/a',
      met: measured ? pairRatio <= 1.1 && handoffRatio <= 1.1 && opsRatio >= 0.95 : null,
    });
  }
  return out;
}

/** What the issue 29 rows read of a contention row. */
interface ContentionRowLike {
  readonly workers: number;
  readonly opsPerSec: number;
  readonly minOps: number;
  readonly maxOps: number;
  readonly clientPerOwner?: boolean;
}

/**
 * Issue 29: what redisson-ts adds to Redisson's protocol, against the bare-protocol control of the same run —
 * the uncontended pair's p50 and p99, contended ops/s and client CPU per op in each layout the bench runs
 * (W owners over two processes sharing a client each; a client per owner in one process and in two) — and
 * the heap per parked waiter against node-redisson's.
 */
function controlTargets(res: BenchResults): TargetCheck[] {
  const out: TargetCheck[] = [];
  const ours = 'redisson-ts';
  const control = 'bare-protocol';
  const mine = res.uncontended?.rows[ours]?.pair;
  const theirs = res.uncontended?.rows[control]?.pair;
  if (mine && theirs) {
    out.push(bounded('uncontended pair p50 ≤ 1.1 × the bare-protocol control (issue 29)', `${r2(mine.p50 / theirs.p50)} × (${r2(mine.p50)} µs vs ${r2(theirs.p50)} µs)`, mine.p50 / theirs.p50, 'max', 1.1));
    out.push(bounded('uncontended pair p99 ≤ 1.5 × the bare-protocol control (issue 29)', `${r2(mine.p99 / theirs.p99)} × (${r2(mine.p99)} µs vs ${r2(theirs.p99)} µs)`, mine.p99 / theirs.p99, 'max', 1.5));
  }
  const layouts: { readonly name: string; readonly rows: ContentionResult | undefined; readonly processes?: number }[] = [
    { name: 'W owners over 2 processes, a client each', rows: res.contention },
    { name: 'a client per owner, 1 process', rows: res.clients, processes: 1 },
    { name: 'a client per owner, 2 processes', rows: res.clients, processes: 2 },
  ];
  for (const layout of layouts) {
    for (const row of layout.rows?.[ours] ?? []) {
      if (layout.processes !== undefined && row.processes !== layout.processes) continue;
      const c = layout.rows?.[control]?.find((r) => r.workers === row.workers && (layout.processes === undefined || r.processes === layout.processes));
      if (!c) continue;
      out.push(
        bounded(
          `contention, ${layout.name}, W=${row.workers}: ops/s ≥ 0.95 × the control's (issue 29)`,
          `${r2(row.opsPerSec / c.opsPerSec)} × (${Math.round(row.opsPerSec)} vs ${Math.round(c.opsPerSec)} ops/s); per-owner min/max ${row.minOps}/${row.maxOps} vs ${c.minOps}/${c.maxOps}`,
          row.opsPerSec / c.opsPerSec,
          'min',
          0.95,
        ),
      );
      out.push(
        bounded(
          `contention, ${layout.name}, W=${row.workers}: client CPU per op ≤ 1.2 × the control's (issue 29)`,
          `${r2(row.clientCpuUsPerOp / c.clientCpuUsPerOp)} × (${Math.round(row.clientCpuUsPerOp)} vs ${Math.round(c.clientCpuUsPerOp)} µs)`,
          row.clientCpuUsPerOp / c.clientCpuUsPerOp,
          'max',
          1.2,
        ),
      );
    }
  }
  const w = res.manyWaiters?.[ours];
  const nr = res.manyWaiters?.['node-redisson'];
  if (w && nr) {
    const a = w.heapBytes / w.waiters;
    const b = nr.heapBytes / nr.waiters;
    out.push(bounded("heap per parked waiter ≤ node-redisson's at 10 000 waiters (issue 29)", `${r2(a / b)} × (${Math.round(a)} B vs ${Math.round(b)} B)`, a / b, 'max', 1));
  }
  return out;
}
