/**
 * The read half of Redisson's ReadWriteLock (`RedissonReadLock`), wire-identical: reader field
 * `<clientUUID>:<threadId>` → hold count in the hash `N` (`mode` = `read`, or `write` when the reader is
 * also the writer), one timeout key `{N}:<clientUUID>:<threadId>:rwlock_timeout:<k>` per nested hold (Java's
 * read unlock deletes the hash when no reader has a live one), `0` published on `redisson_rwlock:{N}`.
 */
import type { ClientContext } from '../ClientContext.js';
import type { AutoOwners } from './AutoOwners.js';
import { readLockTimeoutPrefix, writeLockFieldName } from '../keys.js';
import { UNLOCK_MESSAGE } from '../pubsub/wakePolicies.js';
import type { RenewalEntry, RenewalKind, ScriptRunner } from '../renewal/LockRenewalScheduler.js';
import { acquired, retryAfter, type Attempt } from '../wait/acquire.js';
import { nilAcquired, type AcquireRequest } from './BaseLock.js';
import { ReadWriteHalf } from './ReadWriteHalf.js';

/**
 * Prefix shared by every owner's timeout keys on `rawName`: `{N}` (`N` when it contains `{`). As Redisson's
 * `getKeyPrefix`: the timeout prefix up to `:<field>`.
 */
function timeoutKeyPrefix(rawName: string, field: string): string {
  const prefix = readLockTimeoutPrefix(rawName, field);
  return prefix.slice(0, prefix.indexOf(`:${field}`));
}

/**
 * The watchdog of read holds (Redisson's `ReadLockTask`): per lock, re-expires the hash and the timeout keys
 * of every reader field this client renews there; the scheduler learns whether the first one still exists.
 * A kind of its own, so a read hold and a write hold of one name are two registrations: releasing one never
 * cancels the other's renewal.
 */
export const readLockRenewal: RenewalKind = Object.freeze({
  id: 'readLock',
  async renew(run: ScriptRunner, leaseMs: number, entries: readonly RenewalEntry[]): Promise<number[]> {
    const keys: string[] = [];
    const args: (string | number)[] = [leaseMs];
    for (const { rawName, field, owners = [] } of entries) {
      const readers = [field, ...owners.filter((f) => f !== field)];
      keys.push(rawName, timeoutKeyPrefix(rawName, field));
      args.push(readers.length, ...readers);
    }
    return (await run('rwlock/readRenewExpiration', keys, args)) as number[];
  },
});

/**
 * The read lock of a {@link RedissonReadWriteLock}: shared by any number of readers, excluded by a writer
 * (other than the reader itself). Obtain with `client.getReadWriteLock(name).readLock()`.
 *
 * Times are milliseconds unless a {@link TimeUnit} follows them; without a lease time the client's watchdog
 * keeps the hold (and its timeout keys) alive until unlocked.
 */
export class RedissonReadLock extends ReadWriteHalf {
  /** Diagnostics identity (see `RObject.primitive`). */
  static override readonly primitive: string = 'RedissonReadLock';

  /** @internal use `readWriteLock.readLock()`. */
  constructor(ctx: ClientContext, name: string, auto: AutoOwners) {
    super(ctx, name, auto);
  }

  protected override get renewalKind(): RenewalKind {
    return readLockRenewal;
  }

  /** `rwlock/readTryLockInner`: share the lock (or enter it as its writer); otherwise the writer's PTTL. */
  protected override async tryAcquireOnce({ leaseMs, field, threadId }: AcquireRequest): Promise<Attempt<void>> {
    const ttl = (await this.ctx.executor.eval(
      'rwlock/readTryLockInner',
      [this.rawName, readLockTimeoutPrefix(this.rawName, field)],
      [leaseMs, field, writeLockFieldName(this.ctx.id, threadId)],
      'never',
      this.undoUnsynced(field, threadId, nilAcquired),
    )) as number | null;
    return ttl === null ? acquired(undefined) : retryAfter(ttl);
  }

  /**
   * `rwlock/readUnlockInner`. Besides BaseLock's replies it answers `2` when this owner's last read hold is
   * gone while others keep the lock (Redisson's script answers `0` there, as for a decremented count).
   */
  protected override unlockInner(field: string, latch: string, latchTtl: number): Promise<unknown> {
    const { executor } = this.ctx;
    return executor.eval(
      'rwlock/readUnlockInner',
      [this.rawName, this.channelName, readLockTimeoutPrefix(this.rawName, field), timeoutKeyPrefix(this.rawName, field), latch],
      [UNLOCK_MESSAGE, field, latchTtl],
      'idempotent',
    );
  }

  protected override forceUnlockInner(): Promise<boolean> {
    return this.forceUnlockMode('read', UNLOCK_MESSAGE);
  }

  /**
   * True when some owner reads: mode `read`, or mode `write` with the writer also reading (Redisson 3.24+).
   * While only a writer holds the lock this is false.
   */
  override async isLocked(): Promise<boolean> {
    this.ctx.ensureOpen();
    return (await this.ctx.executor.eval('rwlock/readIsLocked', [this.rawName], [])) === 1;
  }
}
