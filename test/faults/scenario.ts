/**
 * Runs one fault-suite scenario: forks the workers, starts them together with a deadline, lets the
 * scenario's injector strike meanwhile, waits for every worker to finish (a hang guard, not a timing
 * assertion), and hands the logs to the history checker.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Redis } from 'ioredis';
import type { RedisServerProcess } from '../../packages/cli/src/RedisServerProcess.js';
import { uniqueName, within } from '../support/redis.js';
import { checkHistory, type CheckReport, type Fault, type HistoryEvent, type Hold, type RedisSample, type WorkerHistory } from './history.js';
import { eventsOfFlow, parseHistory } from './historyParts.js';
import type { Primitive } from './primitives.js';
import { checkLatch, type LatchReport } from './rules/latch.js';
import { checkTokens, fifoViolations, ruleOf, type QueueSample, type TokenReport } from './rules/index.js';
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
  /** @default 'lock' */
  readonly primitive?: Primitive | 'latch';
  /** Flows per process sharing its one object. @default 1 */
  readonly flows?: number;
  readonly permits?: number;
  readonly fairLockWaitTimeout?: number;
  /** RedLock: the member servers' URLs. */
  readonly memberUrls?: readonly string[];
  /** A Redis Cluster's startup nodes: the workers connect there instead of the URL (`raw` must be a Cluster). */
  readonly clusterNodes?: readonly { readonly host: string; readonly port: number }[];
}

/** The primitives whose holders are fields of the hash at the object's name. */
const HASHED = new Set<string>(['lock', 'fairLock', 'fencedLock', 'readWrite']);

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
  /** Holders are fields of the hash at `name` (else holder() goes by the workers' logs). */
  readonly hashed: boolean;
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
  /** The primitive's own figures: fencing tokens, FIFO order, latch releases, permits left at the end. */
  readonly extra: {
    readonly tokens?: TokenReport;
    readonly fifoViolations?: number;
    readonly fifoSamples?: readonly unknown[];
    readonly latch?: LatchReport;
    readonly permitsAtEnd?: number | null;
    /** Most holds under way at one instant (a semaphore's holders). */
    readonly maxHolders?: number;
  };
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

export async function runScenario(spec: ScenarioSpec, url: string, server: RedisServerProcess | null, raw: Redis): Promise<ScenarioResult> {
  const dir = mkdtempSync(join(tmpdir(), `redisson-ts-faults-${spec.id}-`));
  const name = uniqueName(`faults:${spec.id}`);
  const lease = spec.leaseMs < 0 ? spec.watchdogMs : spec.leaseMs;
  const workers: HistoryWorkerProcess[] = [];
  const fields = new Map<HistoryWorkerProcess, string>();
  const clientIds = new Map<HistoryWorkerProcess, string>();
  const primitive = spec.primitive ?? 'lock';
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
      primitive,
      flows: spec.flows ?? 1,
      ...(spec.permits !== undefined ? { permits: spec.permits } : {}),
      ...(spec.fairLockWaitTimeout !== undefined ? { fairLockWaitTimeout: spec.fairLockWaitTimeout } : {}),
      ...(spec.memberUrls ? { memberUrls: spec.memberUrls } : {}),
      ...(spec.clusterNodes ? { clusterNodes: spec.clusterNodes } : {}),
      latchReleaser: id === 'w1',
    });
    const armed = await guard(field, 30_000, `worker ${id} armed`);
    fields.set(w, armed.field);
    clientIds.set(w, armed.clientId);
    clockErrorMs = Math.max(clockErrorMs, armed.clockErrorMs);
    return w;
  };
  const ctx: FaultContext = {
    server,
    raw,
    name,
    at: (offsetMs) => sleep(Math.max(0, started + offsetMs - now())),
    hashed: HASHED.has(primitive),
    byField: (field) => workers.find((w) => w.running && (fields.get(w) === field || field.startsWith(`${clientIds.get(w) ?? '-'}:`))),
    holder: async () => {
      if (!ctx.hashed) return workers.find((w) => w.running && w.id !== 'w1' && holdsByLog(w.events()));
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
    const [{ samples, queue }] = await Promise.all([sampleLock(raw, name, deadline, primitive), spec.inject?.(ctx)]);
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
    // Only a lock's key must be gone (a semaphore's permits and the latch rounds stay).
    const keyOf = HASHED.has(primitive) || primitive === 'redLock' ? name : `${name}:none`;
    let lockKeyLeft = (await raw.exists(keyOf)) === 1;
    for (let i = 0; lockKeyLeft && i < Math.ceil(lease / 50) + 20; i++) {
      await sleep(50);
      lockKeyLeft = (await raw.exists(keyOf)) === 1;
    }
    const counter = await raw.get(`${name}:counter`);
    const histories = workers.flatMap((w): WorkerHistory[] => {
      const events: HistoryEvent[] = w.events();
      const died = deaths.get(w.id);
      const full = died === undefined && !replacements.has(w.id) && !hung.includes(w.id);
      const clientId = clientIds.get(w);
      const flows = spec.flows ?? 1;
      return Array.from({ length: flows }, (_, f) => {
        const own = eventsOfFlow(events, f);
        if (died !== undefined) own.push({ k: 'dead', t: died });
        const field = flows === 1 && primitive === 'lock' ? fields.get(w) : undefined;
        return { id: flows === 1 ? w.id : `${w.id}.${f}`, events: own, full, ...(field !== undefined ? { field } : {}), ...(clientId !== undefined ? { clientId } : {}) };
      });
    });
    const rule = ruleOf(primitive, spec.permits);
    const report = checkHistory({
      workers: histories,
      faults,
      leaseMs: lease,
      endT,
      finalCounter: counter === null ? null : Number(counter),
      samples,
      allowed: rule.allowed,
      capacity: rule.capacity,
      leakMs: rule.leakMs(spec.leaseMs < 0 && (primitive === 'semaphore' || primitive === 'pes') ? Infinity : lease),
    });
    const extra: ScenarioResult['extra'] = {};
    if (primitive === 'fencedLock') Object.assign(extra, { tokens: checkTokens(parsedHolds(histories, endT, lease), faults) });
    if (primitive === 'fairLock') {
      const errs = new Map(histories.map((h) => [h.id, h.events.filter((e) => e.k === 'lockErr').map((e) => e.t)]));
      if (process.env.FAULTS_KEEP_LOGS) writeFileSync(join(dir, 'queue.json'), JSON.stringify(queue));
      const fifo = fifoViolations(parsedHolds(histories, endT, lease), queue, spec.fairLockWaitTimeout ?? 300_000, errs);
      Object.assign(extra, { fifoViolations: fifo.length, fifoSamples: fifo.slice(0, 5) });
    }
    if (primitive === 'latch') Object.assign(extra, { latch: checkLatch(histories, faults, endT) });
    if (primitive === 'semaphore' || primitive === 'pes') {
      const left = await raw.get(name).catch(() => null);
      Object.assign(extra, { permitsAtEnd: left === null ? null : Number(left), maxHolders: maxConcurrent(parsedHolds(histories, endT, lease)) });
    }
    return { spec, report, hung, crashed, lockKeyLeft, phases, clockErrorMs, extra };
  } finally {
    await Promise.all(workers.map((w) => w.kill()));
    // FAULTS_KEEP_LOGS=1 keeps the workers' logs for a look at a failure.
    if (process.env.FAULTS_KEEP_LOGS) process.stderr.write(`fault suite: logs of ${spec.id} kept in ${dir}\n`);
    else rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Reads the lock's fields every 50 ms until shortly before the deadline (when aborted waits may still be
 * undoing a late acquisition), for the checker's "left behind" figure; a FairLock's queue too, for FIFO.
 * Failed reads (Redis restarting, connection killed) are skipped. Primitives without a hash: no samples.
 */
async function sampleLock(raw: Redis, name: string, deadline: number, primitive: string): Promise<{ samples: RedisSample[]; queue: QueueSample[] }> {
  const samples: RedisSample[] = [];
  const queue: QueueSample[] = [];
  if (!HASHED.has(primitive)) {
    await sleep(Math.max(0, deadline - now()));
    return { samples, queue };
  }
  while (now() < deadline - 100) {
    const t0 = now();
    try {
      const fields = (await raw.hkeys(name)).filter((f) => f !== 'mode');
      samples.push({ t0, t1: now(), fields });
      if (primitive === 'fairLock') {
        const t1 = now();
        const wallOffset = Date.now() - t1;
        const replies = (await raw.multi().lrange(`redisson_lock_queue:{${name}}`, 0, -1).zrange(`redisson_lock_timeout:{${name}}`, 0, -1, 'WITHSCORES').exec()) ?? [];
        const list = (replies[0]?.[1] ?? []) as string[];
        const scores = (replies[1]?.[1] ?? []) as string[];
        const deadlines: Record<string, number> = {};
        for (let i = 0; i + 1 < scores.length; i += 2) deadlines[scores[i] as string] = Number(scores[i + 1]) - wallOffset;
        queue.push({ t0: t1, t1: now(), queue: list, deadlines });
      }
    } catch {
      // no sample this time
    }
    await sleep(50);
  }
  return { samples, queue };
}

/** A worker holds by its log: some flow's last `acq` is after its last `end`. */
function holdsByLog(events: readonly HistoryEvent[]): boolean {
  const open = new Map<number, boolean>();
  for (const e of events) {
    if (e.k === 'acq') open.set(e.f ?? 0, true);
    else if (e.k === 'end' || e.k === 'exit') open.set(e.f ?? 0, false);
  }
  return [...open.values()].some((v) => v);
}

/** Most holds (logged acquisition to the call of release) under way at one instant. */
function maxConcurrent(holds: readonly Hold[]): number {
  const edges = holds.flatMap((h): [number, number][] => [[h.start, 1], [h.end, -1]]).sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  let depth = 0;
  let max = 0;
  for (const [, d] of edges) max = Math.max(max, (depth += d));
  return max;
}

function parsedHolds(histories: readonly WorkerHistory[], endT: number, lease: number): Hold[] {
  return parseHistory(histories, endT, lease).holds;
}

/** Rejects when `promise` has not settled within `ms`: a hang guard, never an assertion on timing. */
export const guard = within;
