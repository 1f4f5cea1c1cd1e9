/**
 * When leased permits of a PermitExpirableSemaphore are lost: once a lease has run out by the scores in
 * Redis. A lease is an absolute expiry on the acquiring client's clock (the zset score, as Redisson's
 * `System.currentTimeMillis() + lease`), so the check compares the scores Redis holds with this clock: while
 * every id is there with a score still ahead (the lease may have been moved by `updateLeaseTime`), the timer is
 * set again for the earliest; once one is gone or expired, or Redis cannot be asked, the hold is reported lost.
 */
import type { CommandExecutor } from '../connection/CommandExecutor.js';
import { NON_EXPIRABLE_SCORE } from './permitIds.js';

// setTimeout's largest delay.
const TIMER_LIMIT_MS = 2 ** 31 - 1;

/**
 * Calls `onLost` once a permit of `ids` (raw bytes) in zset `timeoutName` is gone or past its score, checking
 * when `leaseMs` has passed and then at each later earliest score. Returns the function that stops watching
 * (no call after it). Nothing is watched for a hold without a lease.
 */
export function watchPermits(executor: CommandExecutor, timeoutName: string, ids: readonly Buffer[], leaseMs: number, onLost: () => void): () => void {
  if (leaseMs < 0) return () => undefined;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  const arm = (ms: number): void => {
    timer = setTimeout(check, Math.min(Math.max(1, ms), TIMER_LIMIT_MS)).unref();
  };
  const check = (): void => {
    timer = undefined;
    void earliest(executor, timeoutName, ids).then(
      (score) => {
        if (stopped) return;
        if (score === null || score <= Date.now()) onLost();
        // Moved to "no lease" by updateLeaseTime(-1): nothing can expire any more.
        else if (score < NON_EXPIRABLE_SCORE) arm(score - Date.now());
      },
      () => {
        if (!stopped) onLost();
      },
    );
  };
  arm(leaseMs);
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}

/** The lowest score among `ids`, `null` when any of them is not in the zset. */
async function earliest(executor: CommandExecutor, timeoutName: string, ids: readonly Buffer[]): Promise<number | null> {
  const scores = await Promise.all(ids.map((id) => executor.command('ZSCORE', timeoutName, id)));
  if (scores.some((s) => s === null)) return null;
  return Math.min(...scores.map(Number));
}
