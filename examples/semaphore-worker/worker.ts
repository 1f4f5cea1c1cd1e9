/**
 * A queue worker that limits how many jobs run at once across all its processes (and any Java service
 * using `RSemaphore` of the same name): every job takes one permit of `RSemaphore('jobs:slots')` and gives
 * it back when done, whatever the outcome. Start as many workers as you like; at most `permits` jobs run
 * at a time. Redisson semaphores are anonymous: nothing gives a permit back if a worker dies holding one,
 * so keep the `finally` (or use a PermitExpirableSemaphore when it lands).
 *
 * Run: `REDIS_URL=redis://127.0.0.1:6379 npx tsx examples/semaphore-worker/worker.ts` in several terminals.
 */
import { pathToFileURL } from 'node:url';
import { Redisson, type RSemaphore } from '../../src/index.js'; // in an app: from 'redisson-ts'

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

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const client = Redisson.create({ redis: process.env['REDIS_URL'] ?? 'redis://127.0.0.1:6379' });
  const jobs = Array.from({ length: 5 }, (_, i) => async () => {
    console.log(`job ${i} running in ${process.pid}`);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    return i;
  });
  try {
    console.log('done:', await runWorker(client, jobs, { slots: 'jobs:slots', permits: 2 }));
  } finally {
    await client.shutdown();
  }
}
