/** What every scenario is given: the server, the workers, the implementations to run and the run size. */
import type { Redis } from 'ioredis';
import type { ImplName } from './adapters/index.js';
import type { Progress } from './progress.js';
import type { WorkerProcess } from './rpc.js';

export interface BenchContext {
  readonly url: string;
  readonly quick: boolean;
  /** Admin connection: stats, CLIENT LIST, setup. Never used for timed commands. */
  readonly admin: Redis;
  /** Two long-lived worker processes; every implementation can be opened in either. */
  readonly workers: readonly [WorkerProcess, WorkerProcess];
  /** Implementations that run, in table order. */
  readonly impls: readonly ImplName[];
  /** Implementations not measured, with the reason. */
  readonly skipped: Partial<Record<ImplName, string>>;
  readonly progress: Progress;
  /** Failures that did not stop the run, for the report. */
  readonly failures: string[];
}

/** `items` rotated left by `by`: each round starts with a different implementation. */
export function rotate<T>(items: readonly T[], by: number): T[] {
  if (items.length === 0) return [];
  const k = by % items.length;
  return [...items.slice(k), ...items.slice(0, k)];
}
