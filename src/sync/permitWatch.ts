/**
 * When leased permits of a PermitExpirableSemaphore are lost: once a lease has run out by the scores in
 * Redis. A lease is an absolute expiry on the acquiring client's clock (the zset score, as Redisson's
 * `System.currentTimeMillis() + lease`), so the check compares the scores Redis holds with this clock: while
 * every id is there with a score still ahead (the lease may have been moved by `updateLeaseTime`), the timer is
 * set again for the earliest; once one is gone or expired, or Redis cannot be asked, the hold is reported lost.
 */
import type { CommandExecutor } from '../connection/CommandExecutor.js';
import { recheckUntilLost } from '../wait/recheck.js';
import { NON_EXPIRABLE_SCORE } from './permitIds.js';

/**
 * Calls `onLost` once a permit of `ids` (raw bytes) in zset `timeoutName` is gone or past its score, checking
 * when `leaseMs` has passed and then at each later earliest score. Returns the function that stops watching
 * (no call after it). Nothing is watched for a hold without a lease.
 */
export function watchPermits(executor: CommandExecutor, timeoutName: string, ids: readonly Buffer[], leaseMs: number, onLost: () => void): () => void {
  if (leaseMs < 0) return () => undefined;
  return recheckUntilLost(async () => {
    const score = await earliest(executor, timeoutName, ids);
    if (score === null || score <= Date.now()) return 'lost';
    // Moved to "no lease" by updateLeaseTime(-1): nothing can expire any more.
    return score < NON_EXPIRABLE_SCORE ? score - Date.now() : 'forever';
  }, leaseMs, onLost);
}

/** The lowest score among `ids`, `null` when any of them is not in the zset. */
async function earliest(executor: CommandExecutor, timeoutName: string, ids: readonly Buffer[]): Promise<number | null> {
  const scores = await Promise.all(ids.map((id) => executor.command('ZSCORE', timeoutName, id)));
  if (scores.some((s) => s === null)) return null;
  return Math.min(...scores.map(Number));
}
