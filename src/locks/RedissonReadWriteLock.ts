/**
 * Redisson's `RedissonReadWriteLock`: a factory of the two halves of one lock, which share the hash `N`
 * (field `mode`), the channel `redisson_rwlock:{N}` and, in this port, an owner.
 */
import type { ClientContext } from '../ClientContext.js';
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
 * Both halves of one ReadWriteLock object act for one owner — like one Java thread — unless a `runInThread`
 * flow or an explicit `threadId` says otherwise (see README, "Thread identity in Node").
 * @example
 * const rw = client.getReadWriteLock('catalog');
 * await rw.readLock().lock();
 * try { await readCatalog(); } finally { await rw.readLock().unlock(); }
 */
export class RedissonReadWriteLock {
  readonly #ctx: ClientContext;
  readonly #name: string;
  #threadId: number | undefined;

  /** @internal use `client.getReadWriteLock(name)`. */
  constructor(ctx: ClientContext, name: string) {
    this.#ctx = ctx;
    this.#name = name;
  }

  /** The name given to `getReadWriteLock`. */
  getName(): string {
    return this.#name;
  }

  /** The thread id both halves use when neither an explicit id nor a `runInThread` flow applies. */
  get threadId(): number {
    this.#threadId ??= this.#ctx.allocateThreadId();
    return this.#threadId;
  }

  /** The read lock (Redisson `readLock()`); a new object each call, all acting for this object's owner. */
  readLock(): RedissonReadLock {
    return new RedissonReadLock(this.#ctx, this.#name, () => this.threadId);
  }

  /** The write lock (Redisson `writeLock()`); a new object each call, all acting for this object's owner. */
  writeLock(): RedissonWriteLock {
    return new RedissonWriteLock(this.#ctx, this.#name, () => this.threadId);
  }
}
