/**
 * The buyer side of each strategy: how one buyer buys one unit. Runs inside a buyer process
 * (`buyerWorker.ts`; the Java Redisson buyers of strategy 7 are in `javaBuyerProcess.ts`). Every
 * implementation reads the stock, returns `null` when it is sold out, and otherwise returns the unit it
 * sold: the stock value it read, so the demo can spot a unit sold twice.
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Redis } from 'ioredis';
import { IllegalMonitorStateError, LockLostError, Redisson, type RLock } from 'redisson-ts';
import type { BuyerSpec } from './protocol.js';
import { redlockBuyer } from './redlockBuyer.js';
import { fencedBuyer } from './fencedBuyer.js';

/** Thrown by a buyer's wait when the demo stops the run: that buyer was stuck. */
export class StoppedError extends Error {
  override readonly name = 'StoppedError';
}

/** What one buyer sees of its process. */
export interface Buyer {
  /** This buyer's number in its process, from 0. */
  readonly index: number;
  readonly spec: BuyerSpec;
  /** The process's command connection (ioredis pipelines the buyers' commands on it). */
  readonly redis: Redis;
  /** Aborted when the demo stops the run. */
  readonly signal: AbortSignal;
  /**
   * The work inside the critical section: applies an injection the demo armed (a stall, or hanging until
   * the process is killed), then sleeps `spec.workMs`.
   */
  work(): Promise<void>;
  /** Reports a lock found lost or taken over. */
  lostLock(): void;
  /** Retries `attempt` every 2–6 ms until it returns true; throws {@link StoppedError} when stopped. */
  spin(attempt: () => Promise<boolean>): Promise<void>;
}

/** A strategy's buyer, made once per process. */
export interface BuyerImpl {
  buyOnce(buyer: Buyer): Promise<number | null>;
  close?(): Promise<void>;
}

export type BuyerFactory = (spec: BuyerSpec, onLostLock: () => void) => BuyerImpl;

/** Reads the stock as a number (a missing key counts as sold out). */
async function readStock(redis: Redis, key: string): Promise<number> {
  return Number((await redis.get(key)) ?? 0);
}

/** Read, work, write: the critical section every lock strategy protects. */
export async function sellOne(b: Buyer): Promise<number | null> {
  const stock = await readStock(b.redis, b.spec.stockKey);
  if (stock <= 0) return null;
  await b.work();
  await b.redis.set(b.spec.stockKey, stock - 1);
  return stock;
}

// Owner-checked release: delete the lock only when it still holds our value.
const RELEASE_IF_OWNER = "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end";
// Check and decrement in one atomic step: returns the unit sold, or -1 when sold out.
const BUY_ATOMICALLY = "local s = tonumber(redis.call('get', KEYS[1]) or '0') if s > 0 then redis.call('decr', KEYS[1]) return s end return -1";

/** Buyer implementations by strategy id. */
export const BUYERS: Readonly<Record<string, BuyerFactory>> = {
  /** 1. GET, work, SET: no lock at all. */
  naive: () => ({ buyOnce: (b) => sellOne(b) }),

  /** 2. SETNX lock without expiry, DEL to release. */
  setnx: () => ({
    async buyOnce(b) {
      await b.spin(async () => (await b.redis.setnx(b.spec.lockKey, '1')) === 1);
      try {
        return await sellOne(b);
      } finally {
        await b.redis.del(b.spec.lockKey);
      }
    },
  }),

  /** 3. SET NX PX with a fixed value, DEL to release (the demo makes the work outlast the lease). */
  'setnx-px': () => ({
    async buyOnce(b) {
      await b.spin(async () => (await b.redis.set(b.spec.lockKey, 'locked', 'PX', b.spec.leaseMs, 'NX')) === 'OK');
      const acquired = performance.now();
      try {
        return await sellOne(b);
      } finally {
        // The buyer cannot tell its lock from anyone else's; the demo can tell that the lease ran out.
        if (performance.now() - acquired >= b.spec.leaseMs) b.lostLock();
        await b.redis.del(b.spec.lockKey);
      }
    },
  }),

  /** 4. SET NX PX with a unique value, released only by its owner. */
  'owner-checked': () => ({
    async buyOnce(b) {
      const token = randomUUID();
      await b.spin(async () => (await b.redis.set(b.spec.lockKey, token, 'PX', b.spec.leaseMs, 'NX')) === 'OK');
      try {
        return await sellOne(b);
      } finally {
        if ((await b.redis.eval(RELEASE_IF_OWNER, 1, b.spec.lockKey, token)) !== 1) b.lostLock();
      }
    },
  }),

  /** 5. This library's RLock, watchdog lease. */
  rlock: (spec, onLostLock) => {
    const client = Redisson.create({ redis: spec.redisUrl, lockWatchdogTimeout: spec.watchdogMs });
    client.on('lockLost', onLostLock);
    return {
      async buyOnce(b) {
        const lock = client.getLock(spec.lockKey);
        try {
          await lock.lock({ signal: b.signal });
        } catch (error) {
          if (b.signal.aborted) throw new StoppedError('stopped while waiting for the lock', { cause: error });
          throw error;
        }
        try {
          return await sellOne(b);
        } finally {
          await unlock(lock, onLostLock);
        }
      },
      close: () => client.shutdown(),
    };
  },

  /** 8, 9. RedLock over five independent servers (redlockBuyer.ts); an arrow, as the two modules import each other. */
  redlock: (spec, onLostLock) => redlockBuyer(spec, onLostLock),

  /** 10. FencedLock with a short lease; the stock refuses stale tokens (fencedBuyer.ts; an arrow, as the two modules import each other). */
  fenced: (spec, onLostLock) => fencedBuyer(spec, onLostLock),

  /** 6. Check and decrement in one Lua script; the work happens outside, with nothing held. */
  lua: () => ({
    async buyOnce(b) {
      const unit = Number(await b.redis.eval(BUY_ATOMICALLY, 1, b.spec.stockKey));
      if (unit < 0) return null;
      await b.work();
      return unit;
    },
  }),
};

/** Unlocks; an owner that no longer held the lock is counted as a lost lock, once. */
async function unlock(lock: RLock, onLostLock: () => void): Promise<void> {
  try {
    await lock.unlock();
  } catch (error) {
    if (!(error instanceof IllegalMonitorStateError)) throw error;
    // A LockLostError was already reported through the client's `lockLost` event.
    if (!(error instanceof LockLostError)) onLostLock();
  }
}

/** Sleeps 2–6 ms (jittered so spinning buyers do not move in lockstep), or throws when stopped. */
export async function backoff(signal: AbortSignal): Promise<void> {
  try {
    await sleep(2 + Math.random() * 4, undefined, { signal });
  } catch (error) {
    throw new StoppedError('stopped while spinning', { cause: error });
  }
}
