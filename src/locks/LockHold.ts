/**
 * One acquisition of a lock, as a value: release it once (`release()`, or `await using`), pass its
 * `signal` to the work it guards (aborted when the hold is lost), re-enter it with `reenter()`.
 * The Node counterpart of redlock's `using()` and of TC39 async disposables.
 */
import { parseReenterOptions } from './holdArgs.js';
import { IllegalStateError } from '../errors.js';

/** What a hold needs from its lock. */
export interface HoldOwner<T> {
  getName(): string;
  unlock(options: { threadId: number }): Promise<void>;
  reenter(threadId: number, leaseMs: number, signal: AbortSignal | undefined): Promise<LockHold<T>>;
}

/**
 * A hold of a lock, returned by `lock.acquire()` / `lock.tryAcquire()`.
 *
 * @example
 * ```ts
 * await using hold = await lock.acquire();
 * await writeOrder(order, { signal: hold.signal }); // aborted if the lock is lost
 * // released here, whatever happened
 * ```
 */
export class LockHold<T = void> implements AsyncDisposable {
  /** The owner id of this hold (the `<threadId>` of its hash field). */
  readonly threadId: number;
  /** What the acquisition yielded (a fencing token for FencedLock; `undefined` for RLock). */
  readonly value: T;
  readonly #lock: HoldOwner<T>;
  readonly #lost: AbortController;
  readonly #stopWatching: () => void;
  #released: Promise<void> | null = null;

  /** @internal made by the lock. */
  constructor(lock: HoldOwner<T>, threadId: number, value: T, lost: AbortController, stopWatching: () => void) {
    this.#lock = lock;
    this.threadId = threadId;
    this.value = value;
    this.#lost = lost;
    this.#stopWatching = stopWatching;
  }

  /**
   * Aborted (with `LockLostError`) when the hold is lost: the watchdog found it gone, or its lease ran out in
   * Redis (checked once the lease's time has passed on the client, and again at the key's TTL while it is there).
   * Pass it to the work the lock guards, so that work stops when it is no longer protected.
   */
  get signal(): AbortSignal {
    return this.#lost.signal;
  }

  /** True once `release()` was called. */
  get released(): boolean {
    return this.#released !== null;
  }

  /**
   * Releases this hold (one unlock of its owner). Idempotent: later calls return the first call's promise.
   * @throws LockLostError when the hold had been lost; IllegalMonitorStateError when it is not held.
   */
  release(): Promise<void> {
    this.#released ??= this.#lock.unlock({ threadId: this.threadId }).finally(() => this.#stopWatching());
    return this.#released;
  }

  /**
   * Takes the lock again as the same owner (a reentrant hold, Redisson's re-entry by the same thread).
   * Release the returned hold too.
   * `leaseTime`: the lease in ms; omitted or `-1`: the watchdog.
   */
  reenter(options: { leaseTime?: number; signal?: AbortSignal } = {}): Promise<LockHold<T>> {
    try {
      const { leaseMs, owner } = parseReenterOptions(options);
      return this.#lock.reenter(this.threadId, leaseMs, owner.signal);
    } catch (error) {
      return Promise.reject(error instanceof Error ? error : new IllegalStateError(String(error), { cause: error }));
    }
  }

  /** `await using hold = await lock.acquire()` releases it at the end of the block. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.release();
  }
}
