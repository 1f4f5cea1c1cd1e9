/**
 * A queue worker that limits how many jobs run at once across all its processes (and any Java service
 * using `RSemaphore` of the same name): every job takes one permit of `RSemaphore('jobs:slots')` and gives
 * it back when done, whatever the outcome. Start as many workers as you like; at most `permits` jobs run
 * at a time. Redisson semaphores are anonymous: nothing gives a permit back if a worker dies holding one,
 * so keep the `finally` (or use `getPermitExpirableSemaphore`, whose permits expire).
 *
 *   npm install && REDIS_URL=redis://127.0.0.1:6379 npm start     # in several terminals
 *
 * Environment: REDIS_URL, SLOTS (the semaphore, default `jobs:slots`), PERMITS (default 2), JOBS (jobs this
 * worker runs, default 5), JOB_MS (how long a job takes, default 1000).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { Redisson, type RSemaphore } from 'redisson-ts';

export interface WorkerOptions {
  /** Semaphore name shared by every worker. */
  readonly slots: string;
  /** Permits of the semaphore, set if it does not exist yet (the first worker decides). */
  readonly permits: number;
  /** Stops taking new jobs when aborted. */
  readonly signal?: AbortSignal;
}

/** Runs `jobs` one after another, each under a permit; resolves with their results. */
export async function runWorker<T>(client: Redisson, jobs: Iterable<() => Promise<T>>, options: WorkerOptions): Promise<T[]> {
  const slots: RSemaphore = client.getSemaphore(options.slots);
  await slots.trySetPermits(options.permits); // false when another worker set it first: fine
  const results: T[] = [];
  for (const job of jobs) {
    if (options.signal?.aborted) break;
    // Waits for a free permit: woken by another worker's release, not by polling.
    await slots.acquire(options.signal ? { signal: options.signal } : {});
    try {
      results.push(await job());
    } finally {
      await slots.release();
    }
  }
  return results;
}

const client = Redisson.create({ redis: process.env['REDIS_URL'] ?? 'redis://127.0.0.1:6379' });
const jobMs = Number(process.env['JOB_MS'] ?? 1_000);
const jobs = Array.from({ length: Number(process.env['JOBS'] ?? 5) }, (_, i) => async () => {
  console.log(`job ${i} running in ${process.pid}`);
  await sleep(jobMs);
  return i;
});
// Stops taking jobs on SIGINT/SIGTERM; the job running finishes and gives its permit back.
const stop = new AbortController();
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => stop.abort());
try {
  const done = await runWorker(client, jobs, { slots: process.env['SLOTS'] ?? 'jobs:slots', permits: Number(process.env['PERMITS'] ?? 2), signal: stop.signal });
  console.log(`done: ${done.join(' ')}`);
} finally {
  await client.shutdown();
}
