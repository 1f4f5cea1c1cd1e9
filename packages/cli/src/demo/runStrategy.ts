/**
 * Runs one strategy: resets the stock, starts the buyer processes, injects the strategy's failures at
 * their moment, stops the run when it makes no progress, and measures what happened.
 */
import { fork } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import type { Redis } from 'ioredis';
import type { BuyerProcess, BuyerSpec, FromBuyer } from './protocol.js';
import type { DemoSettings, Participant, Strategy, StrategyResult } from './strategies.js';

/** Live numbers of a running strategy, for the progress line. */
export interface Progress {
  readonly sold: number;
  readonly oversold: number;
  readonly elapsedMs: number;
  /** What is going on right now, e.g. `holder stalled`, when something was injected. */
  readonly note: string;
}

export interface RunHooks {
  /** Called about every 100 ms while the strategy runs. */
  onProgress?(progress: Progress): void;
  /** What a slow start is doing, before the buyers run (e.g. `starting a JVM…`). */
  onStatus?(text: string): void;
  /** Registers cleanup for an interrupt (Ctrl-C); returns a function that unregisters it. */
  onInterrupt?(cleanup: () => void): () => void;
}

// Far beyond any strategy's normal duration: a safety net, not a verdict.
const HARD_LIMIT_MS = 120_000;
const READY_TIMEOUT_MS = 30_000;

/** The buyer worker's file next to this one: `.ts` under tsx, `.js` once built. */
function workerFile(): string {
  const ext = import.meta.url.endsWith('.ts') ? '.ts' : '.js';
  return fileURLToPath(new URL(`./buyerWorker${ext}`, import.meta.url));
}

/** Forks one Node buyer process (it inherits execArgv, so the tsx loader too when there is one). */
export function forkBuyer(label: string): BuyerProcess {
  const child = fork(workerFile(), [], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  const exited = new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once('exit', () => resolve());
  });
  return {
    pid: child.pid,
    label,
    send: (message) => {
      if (child.connected) child.send(message);
    },
    onMessage: (handler) => child.on('message', (m) => handler(m as FromBuyer)),
    exited,
    kill: () => {
      child.kill('SIGKILL');
    },
  };
}

/** The default participants: `processes` Node workers sharing `spec.buyers` as evenly as possible. */
export function nodeParticipants(settings: DemoSettings, spec: BuyerSpec): Participant[] {
  const n = Math.min(settings.processes, spec.buyers);
  return Array.from({ length: n }, (_, i) => ({
    process: forkBuyer(`node #${i + 1}`),
    spec: { ...spec, buyers: Math.floor(spec.buyers / n) + (i < spec.buyers % n ? 1 : 0) },
  }));
}

function percentile(values: number[], p: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))] ?? 0;
}

/**
 * Runs `strategy` once against `redis` (an admin connection to the demo's Redis) with keys under
 * `namespace`, and deletes those keys afterwards.
 * @throws Error when a buyer process fails (cannot connect, unexpected error) or never becomes ready.
 */
export async function runStrategy(strategy: Strategy, settings: DemoSettings, redis: Redis, namespace: string, hooks: RunHooks = {}): Promise<StrategyResult> {
  const stockKey = `${namespace}:stock`;
  const lockKey = `${namespace}:${strategy.id}:lock`;
  await redis.del(lockKey);
  await redis.set(stockKey, settings.stock);
  const spec: BuyerSpec = { strategy: strategy.buyer, redisUrl: settings.redisUrl, stockKey, lockKey, buyers: settings.buyers, ...strategy.tuning };
  let participants: Participant[];
  try {
    participants = await (strategy.participants ?? nodeParticipants)(settings, spec, (text) => hooks.onStatus?.(text));
  } catch (error) {
    await strategy.teardown?.();
    await redis.del(stockKey, lockKey);
    throw error;
  }
  const processes = participants.map((p) => p.process);
  const unregister = hooks.onInterrupt?.(() => processes.forEach((p) => p.kill()));
  let ok = false;
  try {
    const result = await supervise(strategy, settings, redis, stockKey, participants, hooks);
    ok = true;
    return result;
  } finally {
    const allExited = Promise.all(processes.map((p) => p.exited));
    // After a normal end the buyers are closing their connections: give them a moment before SIGKILL.
    if (ok) await Promise.race([allExited, sleep(2_000, undefined, { ref: false })]);
    for (const p of processes) p.kill();
    await allExited;
    unregister?.();
    await strategy.teardown?.();
    await redis.del(stockKey, lockKey);
  }
}

async function supervise(
  strategy: Strategy,
  settings: DemoSettings,
  redis: Redis,
  stockKey: string,
  participants: readonly Participant[],
  hooks: RunHooks,
): Promise<StrategyResult> {
  const processes = participants.map((p) => p.process);
  const salesPerUnit = new Map<number, number>();
  const soldBy = new Map<BuyerProcess, number>();
  const latencies: number[] = [];
  let lostLocks = 0;
  let stuck = 0;
  let paused = 0;
  let note = '';
  let crash: { pid: number | undefined; soldBefore: number; killedAt: number; killedAtEpoch: number; recoveredAfterMs: number | null } | undefined;
  const killed = new Set<BuyerProcess>();
  const finished = new Set<BuyerProcess>();
  const pending = [...strategy.injections].sort((a, b) => a.at - b.at);
  const actions = [...(strategy.actions ?? [])].sort((a, b) => a.at - b.at);
  let started = 0;
  let lastProgress = 0;
  // Set from message handlers; an object so the checks below are not narrowed away.
  const outcome: { failure: Error | null } = { failure: null };
  const throwIfFailed = (): void => {
    if (outcome.failure) throw outcome.failure;
  };

  let settle!: () => void;
  const allDone = new Promise<void>((resolve) => (settle = resolve));
  const checkDone = (): void => {
    if (processes.every((p) => killed.has(p) || finished.has(p))) settle();
  };
  const fail = (error: Error): void => {
    outcome.failure ??= error;
    settle();
  };

  let readyCount = 0;
  let ready!: () => void;
  const allReady = new Promise<void>((resolve) => (ready = resolve));

  const fire = (): void => {
    while (actions[0] && latencies.length >= Math.floor(actions[0].at * settings.stock)) {
      const action = actions.shift()!;
      note = action.note;
      action.run().catch((error: unknown) => fail(error instanceof Error ? error : new Error(String(error))));
    }
    while (pending[0] && latencies.length >= Math.floor(pending[0].at * settings.stock)) {
      const { injection } = pending.shift()!;
      if (injection === 'pause') {
        note = 'a holder will stall';
        processes.forEach((p) => p.send({ type: 'arm', injection }));
      } else {
        note = 'crashing a lock holder';
        const [victim, ...others] = processes.filter((p) => !killed.has(p));
        if (!victim) continue;
        others.forEach((p) => p.send({ type: 'holdOff' }));
        victim.send({ type: 'arm', injection });
      }
    }
  };

  processes.forEach((proc) => {
    proc.onMessage((m) => {
      switch (m.type) {
        case 'ready':
          if (++readyCount === processes.length) ready();
          break;
        case 'sale': {
          salesPerUnit.set(m.unit, (salesPerUnit.get(m.unit) ?? 0) + 1);
          soldBy.set(proc, (soldBy.get(proc) ?? 0) + 1);
          latencies.push(m.ms);
          lastProgress = performance.now();
          // A sale that completed before the kill may be reported after it: compare completion times.
          if (crash && crash.recoveredAfterMs === null && m.at > crash.killedAtEpoch) crash.recoveredAfterMs = m.at - crash.killedAtEpoch;
          fire();
          break;
        }
        case 'injected':
          lastProgress = performance.now();
          if (m.injection === 'pause') {
            paused = Math.max(paused, participants.find((p) => p.process === proc)?.spec.pauseMs ?? 0);
            note = `a holder stalls ${paused} ms`;
            processes.forEach((p) => p !== proc && p.send({ type: 'disarm' }));
            strategy.onInjected?.(m.injection).catch((error: unknown) => fail(error instanceof Error ? error : new Error(String(error))));
          } else {
            // The crash: a buyer of `proc` holds the lock right now. Kill the whole process.
            killed.add(proc);
            proc.kill();
            crash = { pid: proc.pid, soldBefore: latencies.length, killedAt: performance.now(), killedAtEpoch: Date.now(), recoveredAfterMs: null };
            note = `killed process ${proc.pid ?? '?'} holding the lock`;
            processes.forEach((p) => !killed.has(p) && p.send({ type: 'resume' }));
            checkDone();
          }
          break;
        case 'lostLock':
          lostLocks++;
          break;
        case 'done':
          stuck += m.stuck;
          finished.add(proc);
          checkDone();
          break;
        case 'error':
          fail(new Error(`buyer process ${proc.label} failed: ${m.message}`));
          break;
      }
    });
    void proc.exited
      // Messages sent just before exiting may still be on their way: look a moment later.
      .then(() => sleep(500, undefined, { ref: false }))
      .then(() => {
        if (!killed.has(proc) && !finished.has(proc)) fail(new Error(`buyer process ${proc.label} exited unexpectedly`));
      });
  });

  participants.forEach((p) => p.process.send({ type: 'start', spec: p.spec }));
  const readyTimer = setTimeout(() => fail(new Error(`buyer processes not ready after ${READY_TIMEOUT_MS / 1000} s`)), READY_TIMEOUT_MS);
  await Promise.race([allReady, allDone]);
  clearTimeout(readyTimer);
  throwIfFailed();

  started = lastProgress = performance.now();
  processes.forEach((p) => p.send({ type: 'go' }));
  fire();
  let stopping = false;
  const ticker = setInterval(() => {
    const now = performance.now();
    if (!stopping && (now - lastProgress > settings.stuckAfterMs || now - started > HARD_LIMIT_MS)) {
      stopping = true;
      note = `no sale for ${((now - lastProgress) / 1000).toFixed(1)} s: giving up`;
      processes.forEach((p) => !killed.has(p) && p.send({ type: 'stop' }));
    }
    hooks.onProgress?.({ sold: latencies.length, oversold: latencies.length - salesPerUnit.size, elapsedMs: now - started, note });
  }, 100);
  try {
    await allDone;
  } finally {
    clearInterval(ticker);
  }
  throwIfFailed();
  const elapsedMs = performance.now() - started;

  const sold = latencies.length;
  return {
    strategy,
    tuning: strategy.tuning,
    stock: settings.stock,
    buyers: settings.buyers,
    sold,
    oversold: sold - salesPerUnit.size,
    maxSalesOfOneUnit: Math.max(0, ...salesPerUnit.values()),
    stuck,
    lostLocks,
    stockLeft: Number((await redis.get(stockKey)) ?? 0),
    soldBy: participants.map((p) => ({ label: p.process.label, buyers: p.spec.buyers, sold: soldBy.get(p.process) ?? 0 })),
    elapsedMs,
    opsPerSec: elapsedMs > 0 ? sold / (elapsedMs / 1000) : 0,
    p99Ms: percentile(latencies, 0.99),
    ...(crash
      ? { crash: { pid: crash.pid, soldBefore: crash.soldBefore, recoveredAfterMs: crash.recoveredAfterMs, runAfterMs: Math.round(started + elapsedMs - crash.killedAt) } }
      : {}),
    ...(paused > 0 ? { paused } : {}),
  };
}
