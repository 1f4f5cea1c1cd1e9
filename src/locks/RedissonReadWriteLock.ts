/**
 * Redisson's `RedissonReadWriteLock`: a factory of the two halves of one lock, which share the hash `N`
 * (field `mode`), the channel `redisson_rwlock:{N}` and, in this port, an owner.
 */
import type { ClientContext } from '../ClientContext.js';
import { RExpirable } from '../RExpirable.js';
import { AutoOwners } from './AutoOwners.js';
import { RedissonReadLock } from './RedissonReadLock.js';
import { RedissonWriteLock } from './RedissonWriteLock.js';

/**
 * A reentrant read/write lock, non-fair, wire-identical to Java's `RReadWriteLock`. Obtain with
 * `client.getReadWriteLock(name)`.
 *
 * Any number of owners may hold the read lock at once; the write lock excludes every other owner. The writer
 * may take the read lock too, and releasing its write lock then keeps the lock in read mode (downgrade); a
 * reader cannot take the write lock (no upgrade: it would wait for itself).
 *
 * Acquisitions that name no owner follow docs/guides/thread-identity.md: the object's own id while it is
 * idle, a fresh owner while either half holds or is acquiring. A write→read downgrade is re-entry by the
 * same owner, so it needs one: `runInThread`, an explicit `threadId`, or the write hold's `threadId`.
 * @example
 * const rw = client.getReadWriteLock('catalog');
 * await rw.readLock().lock();
 * try { await readCatalog(); } finally { await rw.readLock().unlock(); }
 */
export class RedissonReadWriteLock extends RExpirable {
  /** Diagnostics identity (see `RObject.primitive`). */
  static override readonly primitive: string = 'RedissonReadWriteLock';
  readonly #auto: AutoOwners;

  /**
   * @internal use `client.getReadWriteLock(name)`. As Redisson's `RedissonReadWriteLock` (a `RedissonExpirable`
   * on `N`), its object methods act on the hash alone: `delete()` is `DEL N` (no message; either half's
   * `forceUnlock()` publishes), `expire` re-sets the hash (not the read holds' timeout keys).
   */
  constructor(ctx: ClientContext, name: string) {
    super(ctx, name);
    this.#auto = new AutoOwners(() => ctx.allocateThreadId(), ctx.options.lockOwnership === 'object');
  }

  /**
   * The owner id of this object's current hold (either half) when it names no owner, else the object's own
   * id, which an acquisition on the idle object uses.
   */
  get threadId(): number {
    return this.#auto.current ?? this.#auto.primary;
  }

  /** The read lock (Redisson `readLock()`); a new object each call, all acting for this object's owner. */
  readLock(): RedissonReadLock {
    return new RedissonReadLock(this.ctx, this.getName(), this.#auto);
  }

  /** The write lock (Redisson `writeLock()`); a new object each call, all acting for this object's owner. */
  writeLock(): RedissonWriteLock {
    return new RedissonWriteLock(this.ctx, this.getName(), this.#auto);
  }
}
