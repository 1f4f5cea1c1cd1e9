/**
 * The parent's side of a benchmark worker process (worker.ts): fork it, send it requests over the IPC
 * channel, get replies and events. Workers are separate OS processes so that holders and waiters do not
 * share an event loop.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export interface WorkerRequest {
  readonly id: number;
  readonly op: string;
  readonly args: Record<string, unknown>;
}
export type WorkerReply = { id: number; ok: true; result: unknown } | { id: number; ok: false; error: string };
export interface WorkerEvent {
  readonly event: string;
  readonly [key: string]: unknown;
}

const WORKER = fileURLToPath(new URL('./worker.ts', import.meta.url));
const REPO_ROOT = fileURLToPath(new URL('../', import.meta.url));

export class WorkerProcess {
  readonly #child: ChildProcess;
  readonly #pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  readonly #listeners = new Set<(e: WorkerEvent) => void>();
  #next = 1;
  #exited: Promise<void>;

  private constructor(readonly label: string, env?: Readonly<Record<string, string>>) {
    // --expose-gc: heap figures are taken after a full GC. BENCH_CPU_PROF=DIR profiles every worker.
    const profile = process.env['BENCH_CPU_PROF'];
    const execArgv = ['--import', 'tsx', '--expose-gc', ...(profile ? ['--cpu-prof', '--cpu-prof-dir', profile] : [])];
    this.#child = fork(WORKER, [label], { cwd: REPO_ROOT, execArgv, stdio: ['ignore', 'inherit', 'inherit', 'ipc'], ...(env ? { env: { ...process.env, ...env } } : {}) });
    this.#child.on('message', (raw: WorkerReply | WorkerEvent) => {
      if ('event' in raw) {
        for (const l of this.#listeners) l(raw);
        return;
      }
      const p = this.#pending.get(raw.id);
      if (!p) return;
      this.#pending.delete(raw.id);
      if (raw.ok) p.resolve(raw.result);
      else p.reject(new Error(`worker ${label}: ${raw.error}`));
    });
    // A send to a worker that just died is reported here, not thrown; the 'exit' handler rejects calls.
    this.#child.on('error', () => undefined);
    this.#exited = new Promise((resolve) => {
      this.#child.once('exit', (code, signal) => {
        const error = new Error(`worker ${label} exited (${signal ?? String(code)})`);
        for (const p of this.#pending.values()) p.reject(error);
        this.#pending.clear();
        resolve();
      });
    });
  }

  /** Forks a worker (`env`: added to this process's environment) and waits until it answers. */
  static async start(label: string, env?: Readonly<Record<string, string>>): Promise<WorkerProcess> {
    const worker = new WorkerProcess(label, env);
    await worker.call('ping');
    return worker;
  }

  get pid(): number | undefined {
    return this.#child.pid;
  }

  call<T = unknown>(op: string, args: Record<string, unknown> = {}): Promise<T> {
    const id = this.#next++;
    if (!this.#child.connected) return Promise.reject(new Error(`worker ${this.label} has exited`));
    return new Promise<T>((resolve, reject) => {
      this.#pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
      const request: WorkerRequest = { id, op, args };
      this.#child.send(request);
    });
  }

  onEvent(listener: (e: WorkerEvent) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Asks the worker to close its clients and exit; kills it if it has not gone after `graceMs`. */
  async stop(graceMs = 10_000): Promise<void> {
    if (this.#child.exitCode !== null || this.#child.signalCode !== null) return;
    this.call('exit').catch(() => undefined);
    const timer = setTimeout(() => this.#child.kill('SIGKILL'), graceMs);
    await this.#exited;
    clearTimeout(timer);
  }
}
