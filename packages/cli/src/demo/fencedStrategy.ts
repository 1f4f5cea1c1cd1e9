/**
 * Strategy 10: the fix for the stall strategy 4 ends on. The same short lease and the same stalled holder,
 * but the lock is a FencedLock and the stock checks its tokens (fencedBuyer.ts): the stalled holder's late
 * write carries an old token and is refused, so no unit is sold twice — whatever the lease, and however
 * long the stall.
 */
import { Redis } from 'ioredis';
import { fencedLockTokenName } from 'redisson-ts';
import { fenceKey } from './fencedBuyer.js';
import { nodeParticipants } from './runStrategy.js';
import { plural, WORK_MS, type Strategy } from './strategies.js';

/** Id and row label of strategy 10. */
export const FENCED = { id: 'fenced', title: '10. FencedLock + fenced writes' } as const;

/** Strategy 10, with a lease and a stall like strategy 4's. */
export function fencedStrategy(): Strategy {
  let leftovers: { url: string; keys: string[] } | null = null;
  return {
    ...FENCED,
    buyer: 'fenced',
    expected: 'correct',
    tuning: { workMs: WORK_MS, leaseMs: 30, pauseMs: 60, watchdogMs: 0 },
    injections: [{ at: 0.25, injection: 'pause' }],
    participants(settings, spec) {
      // runStrategy deletes the stock and the lock; the fence and the token counter are this strategy's.
      leftovers = { url: settings.redisUrl, keys: [fenceKey(spec.stockKey), fencedLockTokenName(spec.lockKey)] };
      return nodeParticipants(settings, spec);
    },
    async teardown() {
      if (!leftovers) return;
      const redis = new Redis(leftovers.url, { maxRetriesPerRequest: 1 });
      try {
        await redis.del(...leftovers.keys);
      } finally {
        redis.disconnect();
        leftovers = null;
      }
    },
    explain: (r) =>
      `Strategy 4 again — a ${r.tuning.leaseMs} ms lease, and one holder stalled for ${r.paused ?? 0} ms, so others took the lock and sold on meanwhile — but each acquisition of the FencedLock draws a token one higher than the last, and the stock refuses any read or write whose token is older than the newest it has seen. The stalled holder's write came back with an old token and was refused (${plural(r.lostLocks, 'lost lock')} noticed, each before any damage); it bought again with a fresh token. ${r.sold} sold, none twice. A lease cannot stop a paused process; fencing makes the resource itself reject the stale writer, which is why it is the fix for a stall that outlasts any lease.`,
  };
}
