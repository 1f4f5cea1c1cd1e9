/**
 * The fault suite's rows for the rest of the family (issue 24): the RLock suite's checks
 * (./faults.history.test.ts) for any primitive of ./primitives.ts, each test file with a Redis server and
 * figures file of its own (`results/last-run.<suite>.json`), so vitest runs the files side by side.
 * `npm run reliability:report` renders every figures file into README's table.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import { startRedis, type TestRedis } from '../support/redis.js';
import { clientKill, clientPause, kill9Holders, restartRedis, stopHolder } from './faults.js';
import { runScenario, type FaultContext, type ScenarioResult, type ScenarioSpec } from './scenario.js';
import { killAll } from './workers.js';

export const COVERED = 'no violation of the rule, no lost increment';
export const HAZARD = 'recorded: what a data loss and stalls beyond the lease do';

/** kill -9 of a holder, then CLIENT KILL of command connections, then of pub/sub connections: covered. */
export function coveredFaults(ctx: FaultContext): Promise<void> {
  return Promise.all([kill9Holders([500])(ctx), clientKill('normal', 1_000, 1_600, 150)(ctx), clientKill('pubsub', 1_900, 2_500, 100)(ctx)]).then(() => undefined);
}

/**
 * CLIENT KILL of pub/sub connections: RSemaphore's only covered fault. A permit has no owner and no lease,
 * so a holder killed, or an acquire whose reply a CLIENT KILL of the command connection lost, takes its
 * permit for good (as in Java): those are in its hazard row.
 */
export function pubsubFaults(ctx: FaultContext): Promise<void> {
  return clientKill('pubsub', 500, 1_500, 100)(ctx);
}

/** RSemaphore's hazards: Redis restart with data loss, CLIENT PAUSE, SIGSTOP, CLIENT KILL normal, kill -9. */
export function semaphoreHazards(ctx: FaultContext): Promise<void> {
  const faults = [restartRedis([400]), clientPause([900], 1_400), stopHolder([2_500], 1_600), clientKill('normal', 3_000, 3_300, 150), kill9Holders([3_500])];
  return Promise.all(faults.map((f) => f(ctx))).then(() => undefined);
}

/** Redis restart with data loss, then CLIENT PAUSE and SIGSTOP of a holder beyond the lease. */
export function hazardFaults(ctx: FaultContext): Promise<void> {
  return Promise.all([restartRedis([500])(ctx), clientPause([1_000], 1_400)(ctx), stopHolder([2_700], 1_600)(ctx)]).then(() => undefined);
}

export interface FamilySuite {
  /** Runs `spec` (unless `redisUrl` says otherwise, on the suite's server), records and checks it. */
  /**
   * `unflaggedAllowed`: holds together that no holder was told of are recorded, not failed (a semaphore's
   * holders have no lockLost to be told by). `unrecoveredAllowed`: a fault after which nobody acquires is
   * recorded (a semaphore whose permits a killed holder took). `latch`: the latch has no holds; its own checks only.
   * `raw`: the parent's connection to the deployment the spec names (a Cluster for `clusterNodes`) instead of the suite's server.
   */
  run(spec: ScenarioSpec, checks: (result: ScenarioResult) => void, options?: { unflaggedAllowed?: boolean; unrecoveredAllowed?: boolean; latch?: boolean; raw?: Redis }): Promise<ScenarioResult>;
  readonly redis: () => TestRedis;
}

export function useFamilySuite(suite: string): FamilySuite {
  let redis: TestRedis;
  let raw: Redis;
  const results: { result: ScenarioResult; passed: boolean }[] = [];
  beforeAll(async () => {
    redis = await startRedis({ own: true });
    raw = new Redis(redis.url);
    raw.on('error', () => undefined);
  });
  afterEach(async () => {
    if (redis.server && !redis.server.running) await redis.server.restart();
  });
  afterAll(async () => {
    await killAll();
    let version = 'unknown';
    try {
      version = /redis_version:(\S+)/.exec(await raw.info('server'))?.[1] ?? 'unknown';
    } catch {
      // the server is gone
    }
    writeResults(suite, results, version);
    raw.disconnect();
    await redis.stop();
  });
  return {
    redis: () => redis,
    run: async (spec, checks, options = {}) => {
      const result = await runScenario(spec, redis.url, options.raw ? null : redis.server, options.raw ?? raw);
      const entry = { result, passed: false };
      results.push(entry);
      const { report } = result;
      expect(result.clockErrorMs, "a worker clock disagreeing with the parent's (ms)").toBeLessThanOrEqual(1);
      expect(result.hung, 'workers whose calls never settled').toEqual([]);
      expect(result.crashed, 'workers that failed on their own').toEqual([]);
      const untyped = [...Object.keys(report.errors.lock), ...Object.keys(report.errors.unlock)].filter((e) => e.startsWith('untyped'));
      expect(untyped, 'calls rejected with an error that is not a RedissonError').toEqual([]);
      if (options.latch) {
        checks(result);
        entry.passed = true;
        return result;
      }
      expect(report.holds).toBeGreaterThan(0);
      expect(report.minHolds, `holds per flow ${JSON.stringify(report.holdsPerWorker)}`).toBeGreaterThan(0);
      if (!options.unrecoveredAllowed) expect(report.unrecovered, JSON.stringify(report.faults)).toBe(0);
      expect(report.stuckWaiters, 'waiters that saw the primitive free for longer than lease + 2 s').toEqual([]);
      if (!options.unflaggedAllowed) expect(report.unflaggedOverlaps, JSON.stringify(report.overlaps.slice(0, 5))).toBe(0);
      expect(report.leftBehind, 'holds in Redis that their worker could not account for').toEqual([]);
      checks(result);
      entry.passed = true;
      return result;
    },
  };
}

/** The guarantees of the covered faults. */
export function covered(result: ScenarioResult): void {
  const { report } = result;
  expect(report.overlaps, 'holds together that the rule forbids').toEqual([]);
  expect(report.lostIncrements).toBe(0);
  expect(result.lockKeyLeft, 'the lock key left after every worker exited').toBe(false);
}

function writeResults(suite: string, results: readonly { result: ScenarioResult; passed: boolean }[], redisVersion: string): void {
  if (results.length === 0) return;
  mkdirSync(fileURLToPath(new URL('./results/', import.meta.url)), { recursive: true });
  const cpu = cpus();
  const scenarios = results.map(({ result: { spec, report, hung, crashed, lockKeyLeft, phases, clockErrorMs, extra }, passed }) => ({
    id: spec.id,
    primitive: spec.primitive ?? 'lock',
    flows: spec.flows ?? 1,
    fault: spec.fault,
    workers: spec.workers,
    loadMs: spec.loadMs,
    lock: spec.leaseMs < 0 ? `watchdog ${spec.watchdogMs} ms` : `lease ${spec.leaseMs} ms`,
    asserts: spec.asserts,
    passed,
    hung,
    crashed: crashed.length,
    lockKeyLeft,
    clockErrorMs,
    phasesMs: { arm: Math.round(phases.arm), load: Math.round(phases.load), drain: Math.round(phases.drain) },
    ...report,
    overlaps: report.overlaps.length,
    overlapSamples: report.overlaps.slice(0, 5),
    stuckWaiters: report.stuckWaiters.length,
    stuckSamples: report.stuckWaiters.slice(0, 5),
    leftBehind: report.leftBehind.length,
    leftBehindSamples: report.leftBehind.slice(0, 5),
    extra,
  }));
  const run = {
    generatedAt: new Date().toISOString(),
    command: `npx vitest run test/faults/faults.${suite}.test.ts`,
    environment: {
      cpu: cpu[0]?.model.trim() ?? 'unknown',
      cores: cpu.length,
      memGiB: Math.round(totalmem() / 2 ** 30),
      node: process.version,
      redis: redisVersion,
      loadAvg1m: Number(loadavg()[0]?.toFixed(2)),
    },
    scenarios,
  };
  writeFileSync(fileURLToPath(new URL(`./results/last-run.${suite}.json`, import.meta.url)), `${JSON.stringify(run, null, 2)}\n`);
}
