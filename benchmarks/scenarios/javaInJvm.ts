/**
 * Java Redisson without the peer's pipe (issue 15): the uncontended lock+unlock pair timed inside the JVM
 * (`System.nanoTime` around each pair, on one Java thread), beside one round trip of Java's own (an `EXISTS`
 * through `RBucket`) timed the same way — so the Java row compares with ours as ratios to each side's own round
 * trip, without the JSON-over-stdin cost the worker rows pay per call.
 *
 * The same for the other two scenarios, with two JVMs (two peers) as the Node scenarios use two worker processes:
 * - contention (`runJavaInJvmContention`): W ∈ {2, 16, 64} owners, W/2 Java threads in each JVM, looping as
 *   contention.ts's owners do (the peer's `benchContend`), both JVMs started at one instant of the shared clock;
 * - handoff (`runJavaInJvmHandoff`): holder thread in one JVM, waiter thread in the other (roles alternate), and
 *   both in one JVM; the sample is `System.nanoTime` just before the holder's `unlock()` to `System.nanoTime`
 *   when the waiter's `lock()` returned. Node only coordinates (which thread does what, and when).
 *
 * Clocks: HotSpot's `System.nanoTime` on Linux is `clock_gettime(CLOCK_MONOTONIC)` (`os::javaTimeNanos` in
 * src/hotspot/os/posix/os_posix.cpp, read in a JDK 17 tree), and Node's `process.hrtime.bigint()` is libuv's
 * `uv_hrtime`, whose Linux `uv__hrtime` reads `clock_gettime(CLOCK_MONOTONIC)` for the precise clock. One clock
 * for every process on the host, so timestamps from two JVMs and from Node can be subtracted. Also measured at run
 * time (`clockCheck`: each peer's `nanoTime` must fall inside Node's send → reply window; 0.0 µs off in the
 * runs so far): a clock with a per-process origin would be off by far more. (CLOCK_BOOTTIME differs from
 * CLOCK_MONOTONIC only by time spent suspended, so the check alone could not tell those two apart; the sources do.)
 */
import { JavaPeer, type Reply } from '../../test/interop/JavaPeer.js';
import { BENCH_JVM_FLAGS, JAVA_REDISSON_VERSION } from '../adapters/javaRedisson.js';
import type { BenchContext } from '../context.js';
import { commandStats, resetStats } from '../redisInfo.js';
import { sleep, summarize, type Summary } from '../stats.js';
import { contentionRow, contentionTiming, WORKER_COUNTS, type ContentionRow } from './contention.js';
import { handoffCounts, type HandoffRow } from './handoff.js';

export interface JavaInJvmResult {
  readonly version: string;
  readonly pair: Summary;
  readonly roundTrip: Summary;
}

export async function runJavaInJvm(ctx: BenchContext): Promise<JavaInJvmResult> {
  ctx.progress.update('java in-JVM: starting the peer');
  const peer = await JavaPeer.start(JAVA_REDISSON_VERSION, { address: ctx.url, jvmFlags: BENCH_JVM_FLAGS });
  try {
    ctx.progress.update('java in-JVM: measuring');
    const reply = await peer.request('bench', { name: 'bench:java-in-jvm', n: ctx.quick ? 300 : 1_000 });
    const result = reply.result as { pairNanos: number[]; roundTripNanos: number[] };
    const micros = (nanos: number[]): number[] => nanos.map((x) => x / 1_000);
    return { version: JAVA_REDISSON_VERSION, pair: summarize(micros(result.pairNanos)), roundTrip: summarize(micros(result.roundTripNanos)) };
  } finally {
    await peer.shutdown();
  }
}

// ------------------------------------------------------------------- two JVMs

/** Both peers, started together; `run` is given them and they are shut down after it, whatever happens. */
async function withTwoPeers<T>(ctx: BenchContext, label: string, run: (peers: [JavaPeer, JavaPeer]) => Promise<T>): Promise<T> {
  ctx.progress.update(`${label}: starting two peers`);
  const started = await Promise.allSettled([JavaPeer.start(JAVA_REDISSON_VERSION, { address: ctx.url, jvmFlags: BENCH_JVM_FLAGS }), JavaPeer.start(JAVA_REDISSON_VERSION, { address: ctx.url, jvmFlags: BENCH_JVM_FLAGS })]);
  const peers = started.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
  try {
    const failed = started.find((s): s is PromiseRejectedResult => s.status === 'rejected');
    if (failed) throw failed.reason;
    return await run(peers as [JavaPeer, JavaPeer]);
  } finally {
    await Promise.all(peers.map((p) => p.shutdown()));
  }
}

/** `peer.request`, rejected after `ms` (the JVM is shut down by the caller's `withTwoPeers`). */
function request(peer: JavaPeer, op: string, fields: Record<string, unknown>, ms: number): Promise<Reply> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    peer.request(op, fields).finally(() => clearTimeout(timer)),
    new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`java peer ${op}: no reply within ${ms} ms`)), ms))),
  ]);
}

/** A `System.nanoTime` the peer sent as a decimal string. */
function nanos(reply: Reply): bigint {
  return BigInt(reply.result as string);
}

/**
 * Worst disagreement (µs) between a peer's `System.nanoTime` and Node's `process.hrtime` window around the
 * request (0 when every peer timestamp fell inside its window).
 */
async function clockCheck(peers: readonly JavaPeer[]): Promise<number> {
  let worst = 0n;
  for (const peer of peers) {
    for (let i = 0; i < 20; i++) {
      const t0 = process.hrtime.bigint();
      const t = nanos(await request(peer, 'benchClock', {}, 5_000));
      const t1 = process.hrtime.bigint();
      const off = t0 - t > t - t1 ? t0 - t : t - t1;
      if (off > worst) worst = off;
    }
  }
  return Number(worst) / 1_000;
}

const micros = (nanosList: readonly number[]): number[] => nanosList.map((x) => x / 1_000);

// ------------------------------------------------------------------ contention

export interface JavaInJvmContentionResult {
  readonly version: string;
  /** Java's own round trip (`EXISTS` through `RBucket`, back to back) in the first JVM, before the runs. */
  readonly roundTrip: Summary;
  /** One row per W, both JVMs together (`processes` 2, one client per JVM). */
  readonly rows: ContentionRow[];
  /** How far past the agreed start the later JVM received its request, worst over the runs, µs (0: both in time). */
  readonly lateStartUs: number;
  readonly clockCheckUs: number;
}

interface ContendReply {
  ops: number[];
  late: number;
  stuck: number;
  waitNanos: number[];
  errors: string[];
  lateStartNanos: number;
}

/** How long before the agreed start both requests are sent: the pipe and starting W/2 threads fit in it. */
const START_LEAD_MS = 300;

export async function runJavaInJvmContention(ctx: BenchContext): Promise<JavaInJvmContentionResult> {
  const { durationMs, graceMs } = contentionTiming(ctx.quick);
  const rows: ContentionRow[] = [];
  let lateStartUs = 0;
  let roundTrip: Summary | undefined;
  let clockCheckUs = 0;
  // A run that left owners stuck gets fresh JVMs for the next W (a stuck owner acquires later and would load the server).
  let next = 0;
  while (next < WORKER_COUNTS.length) {
    next = await withTwoPeers(ctx, 'java in-JVM contention', async (peers) => {
      clockCheckUs = Math.max(clockCheckUs, await clockCheck(peers));
      // Warm both JVMs (connections, JIT) with uncontended pairs; then Java's own round trip.
      await Promise.all(peers.map((p) => request(p, 'bench', { name: 'bench:java-in-jvm:contention-warm', n: 50 }, 30_000)));
      roundTrip ??= summarize(micros((await request(peers[0], 'benchRoundTrip', { name: 'bench:java-in-jvm:probe', n: 200, idleMs: 0 }, 30_000)).result as number[]));
      for (let k = next; k < WORKER_COUNTS.length; k++) {
        const w = WORKER_COUNTS[k] as number;
        ctx.progress.update(`java in-JVM contention: W=${w}`);
        const name = `bench:java-in-jvm:contention:${w}`;
        const counter = `bench:java-in-jvm:counter:${w}`;
        await ctx.admin.del(counter);
        await resetStats(ctx.admin);
        const startAtNanos = (process.hrtime.bigint() + BigInt(START_LEAD_MS) * 1_000_000n).toString();
        const fields = { name, counter, threads: w / 2, durationMs, graceMs, startAtNanos };
        const parts = (await Promise.all(peers.map((p) => request(p, 'benchContend', fields, START_LEAD_MS + durationMs + graceMs + 15_000)))).map(
          (r) => r.result as ContendReply,
        );
        const stats = await commandStats(ctx.admin);
        const value = Number((await ctx.admin.get(counter)) ?? '0');
        lateStartUs = Math.max(lateStartUs, ...parts.map((p) => p.lateStartNanos / 1_000));
        const row = contentionRow(w, durationMs, parts, micros(parts.flatMap((p) => p.waitNanos)), stats, value, { processes: 2, clientPerOwner: false });
        rows.push(row);
        if (row.stuck > 0) return k + 1;
      }
      return WORKER_COUNTS.length;
    });
  }
  return { version: JAVA_REDISSON_VERSION, roundTrip: roundTrip ?? summarize([]), rows, lateStartUs, clockCheckUs };
}

// --------------------------------------------------------------------- handoff

export interface JavaInJvmHandoffResult {
  readonly version: string;
  /** Holder thread in one JVM, waiter thread in the other (roles alternate). */
  readonly between: HandoffRow;
  /** Holder and waiter threads in one JVM, on its one client (the JVMs alternate). */
  readonly within: HandoffRow;
  /** Java's own round trip (`EXISTS` through `RBucket`), back to back. */
  readonly roundTrip: Summary;
  /** The same round trip after 10 ms of sleep, as handoff.ts's idle PING. */
  readonly idleRoundTrip: Summary;
  /** How long the waiter was left blocked in `lock()` before the holder unlocked. */
  readonly settleMs: number;
  readonly clockCheckUs: number;
}

/** The waiter's request crosses the pipe and a JVM thread hand-off before it subscribes (as handoff.ts's Java rows). */
const SETTLE_MS = 40;
const IDLE_MS = 10;

export async function runJavaInJvmHandoff(ctx: BenchContext): Promise<JavaInJvmHandoffResult> {
  const { rounds, perRound, budgetMs, sampleTimeoutMs } = handoffCounts(ctx.quick);
  return withTwoPeers(ctx, 'java in-JVM handoff', async (peers) => {
    const clockCheckUs = await clockCheck(peers);
    await Promise.all(peers.map((p) => request(p, 'bench', { name: 'bench:java-in-jvm:handoff-warm', n: 50 }, 30_000)));
    const roundTrip = summarize(micros((await request(peers[0], 'benchRoundTrip', { name: 'bench:java-in-jvm:probe', n: 200, idleMs: 0 }, 30_000)).result as number[]));
    const idle: number[] = [];
    const between: number[] = [];
    const within: number[] = [];
    let betweenMissed = 0;
    let withinMissed = 0;
    // A waiter that missed its wake-up still blocks its thread: later samples use a fresh thread name.
    let generation = 0;

    /** One sample: µs from the holder's unlock() to the waiter's lock() returning, or null when not woken in time. */
    const sample = async (name: string, holder: JavaPeer, waiter: JavaPeer): Promise<number | null> => {
      const holderThread = `handoff-holder-${generation}`;
      const waiterThread = `handoff-waiter-${generation}`;
      await request(holder, 'benchHold', { name, thread: holderThread }, sampleTimeoutMs + 5_000);
      const acquired = waiter.request('benchWait', { name, thread: waiterThread });
      acquired.catch(() => undefined); // a late or failed waiter is handled below or abandoned with its thread
      await sleep(SETTLE_MS);
      const releasedAt = nanos(await request(holder, 'benchRelease', { name, thread: holderThread }, sampleTimeoutMs + 5_000));
      let timer: NodeJS.Timeout | undefined;
      const reply = await Promise.race([acquired, new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), sampleTimeoutMs)))]);
      clearTimeout(timer);
      if (reply === null) {
        generation++;
        return null;
      }
      return Number(nanos(reply) - releasedAt) / 1_000;
    };

    const sampleRound = async (r: number, sameJvm: boolean): Promise<void> => {
      const started = performance.now();
      for (let i = 0; i < perRound && performance.now() - started < budgetMs; i++) {
        ctx.progress.update(`java in-JVM handoff${sameJvm ? ' in one JVM' : ''}: round ${r + 1}/${rounds} · sample ${i + 1}`);
        const [a, b] = i % 2 === 0 ? peers : [peers[1], peers[0]];
        const us = await sample(`bench:java-in-jvm:handoff${sameJvm ? '-local' : ''}:${r}:${i}`, a, sameJvm ? a : b);
        if (us === null) {
          if (sameJvm) withinMissed++;
          else betweenMissed++;
        }
        (sameJvm ? within : between).push(us ?? sampleTimeoutMs * 1_000);
      }
    };

    for (let r = 0; r < rounds; r++) {
      ctx.progress.update(`java in-JVM handoff: round ${r + 1}/${rounds} · idle round trip`);
      idle.push(...micros((await request(r % 2 === 0 ? peers[0] : peers[1], 'benchRoundTrip', { name: 'bench:java-in-jvm:probe', n: 20, idleMs: IDLE_MS }, 30_000)).result as number[]));
      await sampleRound(r, false);
      await sampleRound(r, true);
    }
    const row = (samples: number[], missed: number): HandoffRow => ({ ...summarize(samples), samples, ...(missed > 0 ? { timeouts: missed } : {}) });
    return {
      version: JAVA_REDISSON_VERSION,
      between: row(between, betweenMissed),
      within: row(within, withinMissed),
      roundTrip,
      idleRoundTrip: summarize(idle),
      settleMs: SETTLE_MS,
      clockCheckUs,
    };
  });
}
