/**
 * Redisson's non-reentrant lock (`RedissonNonReentrantLock`, 4.4.0+), wire-identical: an RLock (same hash,
 * channel, message, unlock and watchdog) whose acquire script answers an owner asking again with the
 * error reply `NON_REENTRANT_REACQUIRE` instead of counting a second hold.
 */
import { IllegalMonitorStateError } from '../errors.js';
import { acquired, retryAfter, type Attempt } from '../wait/acquire.js';
import { nilAcquired, type AcquireRequest } from './BaseLock.js';
import { RLock } from './RLock.js';

/** The error message the acquire script returns on a re-entry (Redisson's `REENTRY_ERR`). */
export const NON_REENTRANT_REACQUIRE = 'NON_REENTRANT_REACQUIRE';

/**
 * A lock that its owner cannot take twice. Obtain with `client.getNonReentrantLock(name)`.
 *
 * Other owners contend for it as for an RLock (and exclude RLock holders of the same name, and the
 * reverse). The owner that holds it gets an {@link IllegalMonitorStateError} from `lock()` and `tryLock()`
 * alike, as in Redisson, instead of a second hold: the hold count stays 1 and one `unlock()` releases.
 * "Owner" is the thread id (see docs/guides/thread-identity.md): two lock objects of the same name used in one
 * `runInThread` flow, or with the same explicit `threadId`, are one owner.
 * @example
 * const lock = client.getNonReentrantLock('import-job');
 * await lock.lock();
 * await lock.tryLock(); // throws IllegalMonitorStateError: this owner already holds it
 */
export class RedissonNonReentrantLock extends RLock {
  /** Diagnostics identity (see `RObject.primitive`). */
  static override readonly primitive: string = 'RedissonNonReentrantLock';

  /** Not RLock's script: the attempt is {@link tryAcquireOnce}. */
  protected override sendAttempt(): undefined {
    return undefined;
  }

  /** `nonreentrant/tryLockInner`: take a free lock; a re-entry is an error, another holder's PTTL a retry. */
  protected override async tryAcquireOnce({ leaseMs, field, threadId }: AcquireRequest): Promise<Attempt<void>> {
    let ttl: unknown;
    try {
      ttl = await this.ctx.executor.eval('nonreentrant/tryLockInner', [this.rawName], [leaseMs, field, NON_REENTRANT_REACQUIRE], 'never', this.undoUnsynced(field, threadId, nilAcquired));
    } catch (error) {
      if (error instanceof Error && error.message.includes(NON_REENTRANT_REACQUIRE)) {
        throw new IllegalMonitorStateError(
          this.getName(),
          this.ctx.id,
          threadId,
          `Lock '${this.rawName}' is non-reentrant and is already held by thread ${threadId} (node id: ${this.ctx.id})`,
          { cause: error },
        );
      }
      throw error;
    }
    return ttl === null ? acquired(undefined) : retryAfter(ttl as number);
  }
}
