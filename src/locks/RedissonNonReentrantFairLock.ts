/**
 * Redisson's non-reentrant fair lock (`RedissonNonReentrantFairLock`, 4.4.0+), wire-identical: a FairLock
 * (same hash, queue, deadlines, per-waiter channels, unlock and watchdog) whose acquire scripts answer an
 * owner asking again with the error reply `NON_REENTRANT_REACQUIRE` instead of counting a second hold.
 */
import { RedissonFairLock } from './RedissonFairLock.js';
import { NON_REENTRANT_REACQUIRE } from './RedissonNonReentrantLock.js';

/**
 * A fair lock that its owner cannot take twice. Obtain with `client.getNonReentrantFairLock(name)`.
 *
 * Other owners queue for it as for a {@link RedissonFairLock} (and share the queue with fair lock holders and
 * waiters of the same name, Java's included). The owner that holds it gets an `IllegalMonitorStateError`
 * from `lock()` and `tryLock()` alike, as in Redisson: the hold count stays 1 and one `unlock()` releases.
 * "Owner" is the thread id (see docs/guides/thread-identity.md).
 * @example
 * const lock = client.getNonReentrantFairLock('settlement');
 * await lock.lock();
 * await lock.tryLock(); // throws IllegalMonitorStateError: this owner already holds it
 */
export class RedissonNonReentrantFairLock extends RedissonFairLock {
  /** Diagnostics identity (see `RObject.primitive`). */
  static override readonly primitive: string = 'RedissonNonReentrantFairLock';

  protected override get reentryError(): string {
    return NON_REENTRANT_REACQUIRE;
  }
}
