/**
 * What the two halves of a ReadWriteLock share (Redisson's `RedissonReadLock` and `RedissonWriteLock` are
 * both `RedissonLock`s on one hash): the channel `redisson_rwlock:{N}`, the owners of the
 * {@link RedissonReadWriteLock} they came from, and a forceUnlock that only forgets holds when it deleted
 * the hash.
 */
import type { ClientContext } from '../ClientContext.js';
import { readWriteLockChannelName } from '../keys.js';
import type { AutoOwners } from './AutoOwners.js';
import { BaseLock } from './BaseLock.js';

/** One half of a ReadWriteLock; see `RedissonReadLock` and `RedissonWriteLock`. */
export abstract class ReadWriteHalf extends BaseLock {
  readonly #channel: string;

  /**
   * @internal obtained from `readWriteLock.readLock()` / `writeLock()`; `auto` is the ReadWriteLock object's,
   * so both halves draw their owners from it (see AutoOwners).
   */
  constructor(ctx: ClientContext, name: string, auto: AutoOwners) {
    super(ctx, name, auto);
    this.#channel = readWriteLockChannelName(this.rawName);
  }

  protected override get channelName(): string {
    return this.#channel;
  }

  /**
   * Deletes the lock whoever holds it, but only while it is in this half's mode (Redisson `forceUnlock()`).
   * @returns true when the lock was deleted; false when it was free or held in the other mode (then
   * nothing changes, and this client's holds of the other half keep their watchdog).
   */
  override async forceUnlock(): Promise<boolean> {
    this.ctx.ensureOpen();
    const deleted = await this.forceUnlockInner();
    // Redisson cancels renewals even when the mode did not match; then a hold still in Redis would expire.
    if (deleted) {
      this.ctx.renewal.removeAll(this.rawName);
      this.ctx.holds.forget(this.rawName);
    }
    this.internalLockLeaseTime = this.ctx.options.lockWatchdogTimeout;
    return deleted;
  }

  /** Runs `rwlock/forceUnlock` for `mode`, publishing `message`. */
  protected async forceUnlockMode(mode: 'read' | 'write', message: number): Promise<boolean> {
    const { executor } = this.ctx;
    return (await executor.eval('rwlock/forceUnlock', [this.rawName, this.#channel], [message, mode])) === 1;
  }
}
