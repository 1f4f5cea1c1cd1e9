/**
 * The write half of Redisson's ReadWriteLock (`RedissonWriteLock`), wire-identical: writer field
 * `<clientUUID>:<threadId>:write` → hold count in the hash `N` with `mode` = `write`, a re-entry adding its
 * lease to the PTTL, and `1` (READ_UNLOCK_MESSAGE: wake every waiter) published on `redisson_rwlock:{N}` —
 * on a downgrade too, where Redisson publishes nothing (COMPATIBILITY.md).
 */
import type { ClientContext } from '../ClientContext.js';
import type { AutoOwners } from './AutoOwners.js';
import { writeLockFieldName } from '../keys.js';
import { READ_UNLOCK_MESSAGE } from '../pubsub/wakePolicies.js';
import { acquired, retryAfter, type Attempt } from '../wait/acquire.js';
import { nilAcquired, type AcquireRequest } from './BaseLock.js';
import { ReadWriteHalf } from './ReadWriteHalf.js';

/**
 * The write lock of a {@link RedissonReadWriteLock}: exclusive against every other owner's reads and writes.
 * Its owner may also take the read lock; releasing the write lock then leaves the lock in read mode
 * (downgrade) and wakes the readers waiting for it. A reader can never upgrade. Obtain with `client.getReadWriteLock(name).writeLock()`.
 *
 * Times are milliseconds unless a {@link TimeUnit} follows them; without a lease time the client's watchdog
 * keeps the hold alive until unlocked.
 */
export class RedissonWriteLock extends ReadWriteHalf {
  /** Diagnostics identity (see `RObject.primitive`). */
  static override readonly primitive: string = 'RedissonWriteLock';

  /** @internal use `readWriteLock.writeLock()`. */
  constructor(ctx: ClientContext, name: string, auto: AutoOwners) {
    super(ctx, name, auto);
  }

  /** `<clientUUID>:<threadId>:write` (Redisson's `RedissonWriteLock.getLockName`). */
  protected override fieldName(threadId: number): string {
    return writeLockFieldName(this.ctx.id, threadId);
  }

  /** `rwlock/writeTryLockInner`: take a free lock or re-enter; otherwise the holders' PTTL. */
  protected override async tryAcquireOnce({ leaseMs, field, threadId }: AcquireRequest): Promise<Attempt<void>> {
    const undo = this.undoUnsynced(field, threadId, nilAcquired);
    const ttl = (await this.ctx.executor.eval('rwlock/writeTryLockInner', [this.rawName], [leaseMs, field], 'never', undo)) as number | null;
    return ttl === null ? acquired(undefined) : retryAfter(ttl);
  }

  protected override unlockInner(field: string, latch: string, latchTtl: number): Promise<unknown> {
    const { executor } = this.ctx;
    return executor.eval(
      'rwlock/writeUnlockInner',
      [this.rawName, this.channelName, latch],
      [READ_UNLOCK_MESSAGE, this.internalLockLeaseTime, field, latchTtl],
      'idempotent',
    );
  }

  protected override forceUnlockInner(): Promise<boolean> {
    return this.forceUnlockMode('write', READ_UNLOCK_MESSAGE);
  }

  /** True while some owner holds the write lock (`HGET N mode` = `write`). */
  override async isLocked(): Promise<boolean> {
    this.ctx.ensureOpen();
    return (await this.ctx.executor.command('HGET', this.rawName, 'mode')) === 'write';
  }
}
