/**
 * The re-arming check behind the lease watches of holds (`locks/leaseWatch.ts`, `sync/permitWatch.ts`): a timer
 * that, when it fires, asks Redis whether what the hold took is still there, and either sets itself again for
 * the next moment it could run out or reports the loss once. A failed probe (Redis cannot be asked) is a loss:
 * the lease is over by the client's clock.
 */
import { MAX_TIMER_MS } from '../config.js';

/** What a probe found: `'lost'`; `'forever'` (nothing can run out any more: stop checking); or ms until the next check. */
export type Probe = 'lost' | 'forever' | number;

/**
 * Runs `probe` after `firstMs`, then after each delay it answers, until it answers `'lost'` (then `onLost` is
 * called once) or `'forever'`. Returns the function that stops watching (no call after it).
 */
export function recheckUntilLost(probe: () => Promise<Probe>, firstMs: number, onLost: () => void): () => void {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  const arm = (ms: number): void => {
    timer = setTimeout(check, Math.min(Math.max(1, ms), MAX_TIMER_MS)).unref();
  };
  const check = (): void => {
    timer = undefined;
    void probe().then(
      (found) => {
        if (stopped) return;
        if (found === 'lost') onLost();
        else if (found !== 'forever') arm(found);
      },
      () => {
        if (!stopped) onLost();
      },
    );
  };
  arm(firstMs);
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}
