/**
 * Parent side of ./historyWorker.ts: forks it as a real OS process (`node --import tsx`, as
 * test/fixtures/processes.ts does for lockWorker), reads back its log file, and makes sure no worker
 * outlives the suite (`killAll()`), stopped ones included. Loading tsx and the library takes a process
 * a second or more on a busy 2-core machine, so a small pool is forked ahead: {@link takeWorker}.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { HistoryEvent } from './history.js';
import type { HistoryWorkerOptions, ParentMessage } from './historyWorker.js';

const WORKER = fileURLToPath(new URL('./historyWorker.ts', import.meta.url));
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const live = new Set<HistoryWorkerProcess>();
const POOL_SIZE = 4;
const pool: HistoryWorkerProcess[] = [];

/**
 * The clock every process of the suite logs with, in ms: `process.hrtime`, which reads CLOCK_MONOTONIC —
 * one kernel clock for the whole host (Linux; mach_absolute_time on macOS), read afresh on each call.
 * Not `performance.timeOrigin + performance.now()`: that adds a per-process anchor taken at start-up, and
 * a process descheduled while it samples the anchor on a busy machine is off by as much (a worker ran
 * 115 ms ahead of the others at load 30, and the checker saw 21 "overlaps" that the counter disproved).
 * {@link HistoryWorkerProcess.arm} checks each worker's clock against the parent's.
 */
export const now = (): number => Number(process.hrtime.bigint()) / 1e6;

/** One forked history worker. */
export class HistoryWorkerProcess {
  readonly #child: ChildProcess;
  readonly #messages = new Map<string, (message: { field?: unknown; clock?: unknown; clientId?: unknown }) => void>();
  #output = '';
  #exited = false;
  #stopped = false;
  #error: string | null = null;
  #id = '?';
  #options: HistoryWorkerOptions | null = null;
  /** Resolves once the process has loaded and waits for `setup`. */
  readonly ready: Promise<void>;
  /** Resolves when the process has exited (never rejects). */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;

  constructor() {
    this.#child = fork(WORKER, [], {
      cwd: ROOT,
      execArgv: ['--import', 'tsx'],
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    });
    live.add(this);
    const collect = (chunk: Buffer): void => {
      this.#output = (this.#output + chunk.toString()).slice(-4_000);
    };
    this.#child.stdout?.on('data', collect);
    this.#child.stderr?.on('data', collect);
    this.exited = new Promise((resolve) => {
      this.#child.once('exit', (code, signal) => {
        this.#exited = true;
        live.delete(this);
        resolve({ code, signal });
      });
    });
    this.#child.on('message', (m: unknown) => {
      const message = m as { type?: unknown; field?: unknown; clock?: unknown; clientId?: unknown; message?: unknown };
      if (message.type === 'error') this.#error = String(message.message);
      if (typeof message.type === 'string') this.#messages.get(message.type)?.(message);
    });
    this.ready = this.#next('ready').then(() => undefined);
    this.ready.catch(() => undefined); // awaited later; an early failure must not go unhandled
  }

  get id(): string {
    return this.#id;
  }

  /**
   * Connects the worker for a scenario; resolves with its hash field (`clientId:threadId`) and how far its
   * clock reading fell outside the parent's send/receive window (0 when the clocks agree).
   */
  async arm(id: string, options: HistoryWorkerOptions): Promise<{ field: string; clientId: string; clockErrorMs: number }> {
    this.#id = id;
    this.#options = options;
    await this.ready;
    const armed = this.#next('armed');
    const sent = now();
    this.#send({ type: 'setup', options });
    const { field, clock, clientId } = await armed;
    const received = now();
    if (typeof field !== 'string' || typeof clock !== 'number') throw new Error(`worker ${id} armed without a field or clock`);
    return { field, clientId: String(clientId), clockErrorMs: Math.max(0, sent - clock, clock - received) };
  }

  /** The next message of `type`; rejects if the process exits first. */
  #next(type: string): Promise<{ field?: unknown; clock?: unknown; clientId?: unknown }> {
    return new Promise((resolve, reject) => {
      this.#messages.set(type, resolve);
      void this.exited.then(() => reject(new Error(`worker ${this.#id} exited before '${type}': ${this.#error ?? this.#output}`)));
    });
  }

  #send(message: ParentMessage): void {
    this.#child.send(message);
  }

  get pid(): number | undefined {
    return this.#child.pid;
  }

  get running(): boolean {
    return !this.#exited;
  }

  /** What went wrong, for failure messages: the error it reported, else its last output. */
  get diagnostics(): string {
    return this.#error ?? this.#output;
  }

  go(deadline: number): void {
    this.#send({ type: 'go', deadline });
  }

  /** Sends a signal (SIGKILL: no cleanup, no unlock; SIGSTOP/SIGCONT: freeze and thaw). */
  signal(signal: NodeJS.Signals): void {
    if (this.#exited) return;
    if (signal === 'SIGSTOP') this.#stopped = true;
    if (signal === 'SIGCONT') this.#stopped = false;
    this.#child.kill(signal);
  }

  /** SIGKILLs the process (continuing it first if stopped, so it can be reaped) and waits for it. */
  async kill(): Promise<void> {
    if (!this.#exited) {
      this.#child.kill('SIGKILL');
      if (this.#stopped) this.#child.kill('SIGCONT');
    }
    await this.exited;
  }

  /** The events it logged so far (a line cut by a kill is dropped). */
  events(): HistoryEvent[] {
    if (!this.#options || !existsSync(this.#options.logFile)) return [];
    const out: HistoryEvent[] = [];
    for (const line of readFileSync(this.#options.logFile, 'utf8').split('\n')) {
      if (line === '') continue;
      try {
        out.push(JSON.parse(line) as HistoryEvent);
      } catch {
        // the last line of a killed process may be incomplete
      }
    }
    return out;
  }
}

/** A loaded worker from the pool, or a new one if the pool is empty. */
export function takeWorker(): HistoryWorkerProcess {
  return pool.shift() ?? new HistoryWorkerProcess();
}

/**
 * Forks workers for the next scenario while this one runs. Called once a scenario's own workers are
 * connected, so their start does not compete with four more processes loading.
 */
export function refillPool(): void {
  while (pool.length < POOL_SIZE) pool.push(new HistoryWorkerProcess());
}

/** SIGKILLs every worker still running, the pool included: for `afterAll`, so a failed run leaves none. */
export async function killAll(): Promise<void> {
  pool.length = 0;
  await Promise.all([...live].map((w) => w.kill()));
}
