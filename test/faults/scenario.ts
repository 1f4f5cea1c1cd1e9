/**
 * Runs one fault-suite scenario: forks the workers, starts them together with a deadline, lets the
 * scenario's injector strike meanwhile, waits for every worker to finish (a hang guard, not a timing
 * assertion), and hands the logs to the history checker.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Redis } from 'ioredis';
import type { RedisServerProcess } from '../../packages/cli/src/RedisServerProcess.js';
import { uniqueName, within } from '../support/redis.js';
import { checkHistory, type CheckReport, type Fault, type HistoryEvent, type RedisSample } from './history.js';
import { now, refillPool, takeWorker, type HistoryWorkerProcess } from './workers.js';

export interface ScenarioSpec {
  readonly id: string;
  /** The fault, as README's table names it. */
  readonly fault: string;
  /** What the scenario asserts, as README's table states it. */
  readonly asserts: string;
  readonly workers: number;
  readonly loadMs: number;
  /** Lease of each lock(); -1 for the watchdog. */
  readonly leaseMs: number;
  readonly watchdogMs: number;
  readonly workMs?: number;
  readonly thinkMs?: number;
  readonly inject?: (ctx: FaultContext) => Promise<void>;
}

/** What an injector can do while the workers run. */
export interface FaultContext {
  readonly server: RedisServerProcess | null;
  /** The parent's own connection (CLIENT KILL skips the connection that sends it). */
  readonly raw: Redis;
  readonly name: string;
  /** Resolves at `offsetMs` after the workers were started. */
  at(offsetMs: number): Promise<void>;
  /** The running worker that holds the lock in Redis right now, if any. */
  holder(): Promise<HistoryWorkerProcess | undefined>;
  byField(field: string): HistoryWorkerProcess | undefined;
  /** SIGKILLs `worker`, records its death in its history, and starts a replacement (in the background). */
  killAndReplace(worker: HistoryWorkerProcess): Promise<number>;
  record(fault: Fault): void;
}

export interface ScenarioResult {
  readonly spec: ScenarioSpec;
  readonly report: CheckReport;
  /** Workers that had not exited well after the deadline (killed by the guard). */
  readonly hung: readonly string[];
  /** Workers that exited with an error of their own (not killed by the scenario), with their output. */
  readonly crashed: readonly string[];
  /** The lock key after the run, once any lease a killed holder left had run out. */
  readonly lockKeyLeft: boolean;
  /** Largest disagreement of a worker's clock with the parent's (0 when the shared clock holds). */
  readonly clockErrorMs: number;
  /** Wall time of the phases (ms): connecting the workers, the load, waiting for them to exit. */
  readonly phases: { readonly arm: number; readonly load: number; readonly drain: number };
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

export async function runScenario(spec: ScenarioSpec, url: string, server: RedisServerProcess | null, raw: Redis): Promise<ScenarioResult> {
  const dir = mkdtempSync(join(tmpdir(), `redisson-ts-faults-${spec.id}-`));
  const name = uniqueName(`faults:${spec.id}`);
  const lease = spec.leaseMs < 0 ? spec.watchdogMs : spec.leaseMs;
  const workers: HistoryWorkerProcess[] = [];
  const fields = new Map<HistoryWorkerProcess, string>();
  const deaths = new Map<string, number>();
  const replacements = new Set<string>();
  const faults: Fault[] = [];
  const joining: Promise<void>[] = [];
  let deadline = Infinity;
  let clockErrorMs = 0;
  let started = 0;

  const spawn = async (): Promise<HistoryWorkerProcess> => {
    const id = `w${workers.length + 1}`;
    const w = takeWorker();
    workers.push(w);
    const field = w.arm(id, {
      url,
      name,
      counterKey: `${name}:counter`,
      logFile: join(dir, `${id}.jsonl`),
      leaseMs: spec.leaseMs,
      lockWatchdogTimeout: spec.watchdogMs,
      workMs: spec.workMs ?? 3,
      thinkMs: spec.thinkMs ?? 4,
    });
    const armed = await guard(field, 30_000, `worker ${id} armed`);
    fields.set(w, armed.field);
    clockErrorMs = Math.max(clockErrorMs, armed.clockErrorMs);
    return w;
  };
  const ctx: FaultContext = {
    server,
    raw,
    name,
    at: (offsetMs) => sleep(Math.max(0, started + offsetMs - now())),
    byField: (field) => workers.find((w) => w.running && fields.get(w) === field),
    holder: async () => {
      for (const field of Object.keys(await raw.hgetall(name))) {
        const w = ctx.byField(field);
        if (w) return w;
      }
      return undefined;
    },
    killAndReplace: async (w) => {
      await w.kill();
      const t = now();
      deaths.set(w.id, t);
      const joined = spawn().then((next) => {
        replacements.add(next.id);
        next.go(deadline);
      });
      refillPool(); // for the next scenario
      joined.catch(() => undefined); // awaited after the injector; a failure must not go unhandled first
      joining.push(joined);
      return t;
    },
    record: (fault) => faults.push(fault),
  };

  const begun = now();
  try {
    await Promise.all(Array.from({ length: spec.workers }, () => spawn()));
    refillPool();
    started = now();
    deadline = started + spec.loadMs;
    for (const w of workers) w.go(deadline);
    const [samples] = await Promise.all([sampleLock(raw, name, deadline), spec.inject?.(ctx)]);
    await Promise.all(joining);
    // Workers finish the cycle they are in after the deadline; a library call that never settles shows here.
    const hung: string[] = [];
    const crashed: string[] = [];
    await Promise.all(
      workers.map(async (w) => {
        const exit = await guard(w.exited, Math.max(0, deadline - now()) + 15_000, '').catch(() => null);
        if (!exit) {
          hung.push(w.id);
          await w.kill();
        } else if (exit.code !== 0 && !deaths.has(w.id)) {
          crashed.push(`${w.id}: ${JSON.stringify(exit)} ${w.diagnostics}`);
        }
      }),
    );
    const endT = now();
    const phases = { arm: started - begun, load: deadline - started, drain: endT - deadline };
    // A killed holder's lease runs out on its own; nothing else may be left.
    let lockKeyLeft = (await raw.exists(name)) === 1;
    for (let i = 0; lockKeyLeft && i < Math.ceil(lease / 50) + 20; i++) {
      await sleep(50);
      lockKeyLeft = (await raw.exists(name)) === 1;
    }
    const counter = await raw.get(`${name}:counter`);
    const report = checkHistory({
      workers: workers.map((w) => {
        const events: HistoryEvent[] = w.events();
        const died = deaths.get(w.id);
        if (died !== undefined) events.push({ k: 'dead', t: died });
        const field = fields.get(w);
        const full = died === undefined && !replacements.has(w.id) && !hung.includes(w.id);
        return { id: w.id, events, full, ...(field !== undefined ? { field } : {}) };
      }),
      faults,
      leaseMs: lease,
      endT,
      finalCounter: counter === null ? null : Number(counter),
      samples,
    });
    return { spec, report, hung, crashed, lockKeyLeft, phases, clockErrorMs };
  } finally {
    await Promise.all(workers.map((w) => w.kill()));
    // FAULTS_KEEP_LOGS=1 keeps the workers' logs for a look at a failure.
    if (process.env.FAULTS_KEEP_LOGS) process.stderr.write(`fault suite: logs of ${spec.id} kept in ${dir}\n`);
    else rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Reads the lock's fields every 50 ms until shortly before the deadline (when aborted waits may still be
 * undoing a late acquisition), for the checker's "left behind" figure. Failed reads (Redis restarting,
 * connection killed) are skipped.
 */
async function sampleLock(raw: Redis, name: string, deadline: number): Promise<RedisSample[]> {
  const samples: RedisSample[] = [];
  while (now() < deadline - 100) {
    const t0 = now();
    try {
      const fields = await raw.hkeys(name);
      samples.push({ t0, t1: now(), fields });
    } catch {
      // no sample this time
    }
    await sleep(50);
  }
  return samples;
}

/** Rejects when `promise` has not settled within `ms`: a hang guard, never an assertion on timing. */
export const guard = within;
