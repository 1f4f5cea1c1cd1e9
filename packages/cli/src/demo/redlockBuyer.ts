/**
 * The RedLock buyer (strategies 8 and 9): the stock stays on the demo's Redis, the lock is this library's
 * RedLock over five throwaway redis-servers (`spec.nodeUrls`), one client per node, as five independent
 * masters would be reached. Each purchase tries every node once (`tryLock(-1, lease)`) and, without a
 * majority, retries after a random pause: the RedLock algorithm as its description gives it.
 */
import { once } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import { Redisson, type RedissonRedLock } from 'redisson-ts';
import { sellOne, StoppedError, type BuyerFactory } from './buyers.js';

/** Per-node timeout: well below the strategies' 1 s lease, and loose enough for a busy machine. */
export const NODE_TIMEOUT_MS = 200;

/**
 * The random pause before the next try. Longer than the other spinning buyers' (2–6 ms): every failed try
 * costs five servers a round trip and a release, and buyers that retry in step split the votes again.
 */
async function retryDelay(signal: AbortSignal): Promise<void> {
  try {
    await sleep(5 + Math.random() * 25, undefined, { signal });
  } catch (error) {
    throw new StoppedError('stopped while retrying', { cause: error });
  }
}

export const redlockBuyer: BuyerFactory = (spec, onLostLock) => {
  const urls = spec.nodeUrls ?? [];
  if (urls.length === 0) throw new Error('the redlock buyer needs spec.nodeUrls');
  // A node that is down must cost a failed vote at once, not a queue of retries.
  const clients = urls.map((url) => {
    const { hostname, port } = new URL(url);
    return Redisson.create({ redis: { host: hostname, port: Number(port), maxRetriesPerRequest: 0, enableOfflineQueue: false, retryStrategy: () => 20 }, shortLeaseWarning: false });
  });
  const ready = Promise.all(clients.map((c) => (c.redis.status === 'ready' ? Promise.resolve([]) : once(c.redis, 'ready'))));
  return {
    async buyOnce(b) {
      await ready;
      const red: RedissonRedLock = (clients[0] as Redisson).getRedLock(clients.map((c) => c.getLock(spec.lockKey)), { nodeTimeout: NODE_TIMEOUT_MS });
      while (!(await red.tryLock(-1, spec.leaseMs))) await retryDelay(b.signal);
      try {
        const unit = await sellOne(b);
        // The lease ran out while this buyer was still working: it may no longer have been the only one.
        if (red.remainValidity() === 0) onLostLock();
        return unit;
      } finally {
        await red.unlock();
      }
    },
    close: async () => {
      await Promise.all(clients.map((c) => c.shutdown()));
    },
  };
};
