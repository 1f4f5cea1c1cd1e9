/**
 * Many locks: one fresh process holds 10 000 locks at once with the watchdog on (lease 3 s, so renewal
 * periods are short enough to watch). Over a window of several periods the server's command counts show
 * what keeping them costs; CLIENT LIST shows the connections the process opened; heap is measured in
 * the holding process after GC, from before the client was created.
 */
import type { ImplName } from '../adapters/index.js';
import type { BenchContext } from '../context.js';
import { allCalls, clientList, commandStats, newClients, resetStats, scriptCalls } from '../redisInfo.js';
import { WorkerProcess } from '../rpc.js';
import { sleep } from '../stats.js';

const SCENARIO = 'many locks';
export const MANY_LOCKS = 10_000;
/** Watchdog lease used here; Redisson renews every third of it. */
export const MANY_WATCHDOG_MS = 3_000;

/** Renewal period (ms) of each implementation at a lease of MANY_WATCHDOG_MS, from their sources. */
export const RENEWAL_PERIOD_MS: Readonly<Partial<Record<ImplName, number>>> = {
  'redisson-ts': MANY_WATCHDOG_MS / 3,
  'node-redisson': MANY_WATCHDOG_MS / 3,
  'java-redisson': MANY_WATCHDOG_MS / 3,
  // refreshInterval = 0.8 × lockTimeout
  'redis-semaphore': MANY_WATCHDOG_MS * 0.8,
  // using(): extends automaticExtensionThreshold (500 ms) before expiry
  redlock: MANY_WATCHDOG_MS - 500,
};

export interface ManyLocksRow {
  readonly locks: number;
  readonly acquireMs: number;
  readonly periodMs: number;
  readonly windowMs: number;
  /**
   * Renewal passes seen in the window: PEXPIRE (redlock: SET … PX) calls ÷ locks, as every implementation
   * extends each lock once per pass. Per-period figures divide by this rather than by
   * window ÷ period, which a tick straddling the window's edge would skew.
   */
  readonly passes: number;
  readonly scriptsPerPeriod: number;
  readonly commandsPerPeriod: number;
  /** Script calls per 100 held locks per renewal period. */
  readonly scriptsPer100Locks: number;
  /** Heap growth (bytes, after GC) from before the client existed to holding every lock; null for the JVM. */
  readonly heapBytes: number | null;
  readonly connections: number;
  /** Raw INFO commandstats over the window. */
  readonly commands: Record<string, number>;
}

export type ManyLocksResult = Partial<Record<ImplName, ManyLocksRow>>;

interface Memory {
  heap: number;
  timers: number;
}

export async function runManyLocks(ctx: BenchContext): Promise<ManyLocksResult> {
  const result: ManyLocksResult = {};
  for (const impl of ctx.impls) {
    ctx.progress.update(`many locks: ${impl} · starting a fresh process`);
    const worker = await WorkerProcess.start(`many-locks-${impl}`);
    try {
      const before = await clientList(ctx.admin);
      const m0 = await worker.call<Memory>('memory');
      ctx.progress.update(`many locks: ${impl} · acquiring ${MANY_LOCKS}`);
      const args = { impl, url: ctx.url, watchdogMs: MANY_WATCHDOG_MS };
      const { ms } = await worker.call<{ ms: number }>('holdMany', { ...args, n: MANY_LOCKS, prefix: `bench:many:${impl}:` });
      const m1 = await worker.call<Memory>('memory');
      const period = RENEWAL_PERIOD_MS[impl];
      if (period === undefined) throw new Error(`many locks: no renewal period known for ${impl}`);
      const windowMs = Math.round(period * (ctx.quick ? 1.25 : 3.5));
      ctx.progress.update(`many locks: ${impl} · watching renewals for ${windowMs / 1000} s`);
      await resetStats(ctx.admin);
      await sleep(windowMs);
      const stats = await commandStats(ctx.admin);
      const conns = newClients(before, await clientList(ctx.admin));
      // Every implementation extends each lock once per pass with PEXPIRE (redlock: SET … PX).
      const passes = Math.max(stats['pexpire'] ?? 0, stats['set'] ?? 0) / MANY_LOCKS;
      const perPeriod = (n: number): number => (passes > 0 ? n / passes : NaN);
      result[impl] = {
        locks: MANY_LOCKS,
        acquireMs: ms,
        periodMs: period,
        windowMs,
        passes,
        scriptsPerPeriod: perPeriod(scriptCalls(stats)),
        commandsPerPeriod: perPeriod(allCalls(stats)),
        scriptsPer100Locks: (perPeriod(scriptCalls(stats)) * 100) / MANY_LOCKS,
        heapBytes: impl === 'java-redisson' ? null : m1.heap - m0.heap,
        connections: conns.length,
        commands: stats,
      };
      ctx.progress.update(`many locks: ${impl} · releasing`);
      await worker.call('releaseMany');
    } catch (error) {
      ctx.failures.push(`${SCENARIO}: ${impl}: ${error instanceof Error ? error.message : String(error)}`);
    } finally {
      await worker.stop();
    }
  }
  return result;
}
