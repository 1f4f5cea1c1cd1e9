/**
 * The FencedLock buyer (strategy 10): a lock with a short lease, as strategy 4's, but every access to the
 * stock carries the holder's fencing token, and the stock itself refuses a token older than the newest it
 * has seen. A holder that stalled past its lease finds its late write refused, and buys again.
 */
import { IllegalMonitorStateError, Redisson, type RedissonFencedLock } from 'redisson-ts';
import { StoppedError, type Buyer, type BuyerFactory } from './buyers.js';

/** The stock's fence: the highest token that has read or written the stock. */
export const fenceKey = (stockKey: string): string => `${stockKey}:fence`;

/** What a fenced access answers when the token is older than the fence. */
const STALE = -2;
// Fenced read: refuse an older token, else raise the fence to it and return the stock. Raising the fence on
// reads too means a new holder's read already shuts out the stalled one's write (it read the same stock).
const FENCED_READ =
  "local fence = tonumber(redis.call('get', KEYS[2]) or '0') local token = tonumber(ARGV[1]) if token < fence then return -2 end redis.call('set', KEYS[2], token) return tonumber(redis.call('get', KEYS[1]) or '0')";
// Fenced write: refuse an older token, else set the stock.
const FENCED_WRITE = "if tonumber(ARGV[1]) < tonumber(redis.call('get', KEYS[2]) or '0') then return -2 end redis.call('set', KEYS[1], ARGV[2]) return 1";

/** Read, work, write, each access fenced with `token`: the unit sold, `null` when sold out, or STALE. */
async function sellFenced(b: Buyer, token: number): Promise<number | null> {
  const { stockKey } = b.spec;
  const stock = Number(await b.redis.eval(FENCED_READ, 2, stockKey, fenceKey(stockKey), token));
  if (stock === STALE) return STALE;
  if (stock <= 0) return null;
  await b.work();
  const written = Number(await b.redis.eval(FENCED_WRITE, 2, stockKey, fenceKey(stockKey), token, stock - 1));
  return written === STALE ? STALE : stock;
}

/** Unlocks; false when the lease had already run out. */
async function release(lock: RedissonFencedLock): Promise<boolean> {
  try {
    await lock.unlock();
    return true;
  } catch (error) {
    if (error instanceof IllegalMonitorStateError) return false;
    throw error;
  }
}

export const fencedBuyer: BuyerFactory = (spec) => {
  // The demo's leases are short on purpose.
  const client = Redisson.create({ redis: spec.redisUrl, shortLeaseWarning: false });
  return {
    async buyOnce(b) {
      const lock = client.getFencedLock(spec.lockKey);
      for (;;) {
        let token: number;
        try {
          token = await lock.lockAndGetToken(spec.leaseMs, { signal: b.signal });
        } catch (error) {
          if (b.signal.aborted) throw new StoppedError('stopped while waiting for the lock', { cause: error });
          throw error;
        }
        let unit: number | null;
        try {
          unit = await sellFenced(b, token);
        } catch (error) {
          await release(lock);
          throw error;
        }
        const held = await release(lock);
        // A refused access or an expired lease: this buyer lost the lock while working (counted once).
        if (unit === STALE || !held) b.lostLock();
        if (unit !== STALE) return unit;
      }
    },
    close: () => client.shutdown(),
  };
};
