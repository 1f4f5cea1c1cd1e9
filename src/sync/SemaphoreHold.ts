/**
 * Permits taken from a semaphore, as a value: release them once (`release()`, or `await using`), and for a
 * PermitExpirableSemaphore pass `signal` to the work they guard (aborted when a lease runs out in Redis).
 * The semaphores' counterpart of the locks' {@link LockHold}.
 */
import { PermitNotHeldError } from '../errors.js';
import type { PermitId } from './permitIds.js';

/**
 * Permits of an `RSemaphore`, returned by `semaphore.acquireHold()` / `tryAcquireHold()`.
 *
 * @example
 * ```ts
 * await using slot = await slots.acquireHold({ permits: 2 });
 * await encode(); // the 2 permits go back at the end of the block, whatever happened
 * ```
 */
export class SemaphoreHold implements AsyncDisposable {
  /** How many permits this hold took, and gives back. */
  readonly permits: number;
  readonly #giveBack: (permits: number) => Promise<void>;
  #released: Promise<void> | null = null;

  /** @internal made by the semaphore. */
  constructor(permits: number, giveBack: (permits: number) => Promise<void>) {
    this.permits = permits;
    this.#giveBack = giveBack;
  }

  /** True once `release()` was called. */
  get released(): boolean {
    return this.#released !== null;
  }

  /**
   * Gives back exactly the permits this hold took (one `release(permits)`, which publishes and wakes waiters).
   * Idempotent: later calls return the first call's promise. Sent once: on `ConnectionLostError` the release
   * may or may not have happened (permits are anonymous; as `semaphore.release`).
   */
  release(): Promise<void> {
    this.#released ??= this.#giveBack(this.permits);
    return this.#released;
  }

  /** `await using hold = await semaphore.acquireHold()` releases it at the end of the block. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.release();
  }
}

/** What a {@link PermitExpirableHold} needs from its semaphore. */
export interface PermitHoldOwner {
  getName(): string;
  tryRelease(ids: readonly PermitId[]): Promise<number>;
  tryRelease(id: PermitId): Promise<boolean>;
}

/**
 * Permits of an `RPermitExpirableSemaphore`, returned by `acquireHold()` / `tryAcquireHold()`: their ids, and
 * a signal that aborts when one of them is lost (its lease ran out in Redis).
 *
 * @example
 * ```ts
 * await using seat = await seats.acquireHold({ leaseTime: 30_000 });
 * await render({ signal: seat.signal }); // aborted if the lease runs out first
 * ```
 */
export class PermitExpirableHold implements AsyncDisposable {
  /** The permit ids this hold took (32 lowercase hex digits each), and releases. */
  readonly ids: readonly PermitId[];
  readonly #owner: PermitHoldOwner;
  readonly #lost: AbortController;
  readonly #stopWatching: () => void;
  #released: Promise<void> | null = null;

  /** @internal made by the semaphore. */
  constructor(owner: PermitHoldOwner, ids: readonly PermitId[], lost: AbortController, stopWatching: () => void) {
    this.#owner = owner;
    this.ids = Object.freeze([...ids]);
    this.#lost = lost;
    this.#stopWatching = stopWatching;
  }

  /** How many permits this hold took. */
  get permits(): number {
    return this.ids.length;
  }

  /**
   * Aborted (with `PermitNotHeldError`) when a permit of this hold is lost: its lease has run out (checked
   * against Redis once the lease's time has passed, and again at a lease moved by `updateLeaseTime`). Never
   * for permits without a lease.
   */
  get signal(): AbortSignal {
    return this.#lost.signal;
  }

  /** True once `release()` was called. */
  get released(): boolean {
    return this.#released !== null;
  }

  /**
   * Releases exactly this hold's ids. Idempotent: later calls return the first call's promise. When one of
   * them is no longer held (its lease ran out), the others are still released, and the call then rejects.
   * @throws PermitNotHeldError naming the ids that were no longer held.
   */
  release(): Promise<void> {
    this.#released ??= this.#release().finally(() => this.#stopWatching());
    return this.#released;
  }

  /** `await using hold = await seats.acquireHold()` releases it at the end of the block. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.release();
  }

  async #release(): Promise<void> {
    // Redisson's list release is all or none: one expired id would keep the others. Then each goes alone.
    if ((await this.#owner.tryRelease(this.ids)) === this.ids.length) return;
    const missing: PermitId[] = [];
    for (const id of this.ids) if (!(await this.#owner.tryRelease(id))) missing.push(id);
    if (missing.length === 0) return;
    throw new PermitNotHeldError(`Permits with ids [${missing.join(', ')}] of '${this.#owner.getName()}' were lost before release (lease expired or semaphore deleted)`, missing);
  }
}
