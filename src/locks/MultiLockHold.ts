/**
 * One acquisition of a MultiLock / RedLock, as a value: release it once (`release()`, or `await using`), pass
 * its `signal` to the work it guards. The multilocks' counterpart of {@link LockHold}.
 */
import { LockLostError } from '../errors.js';
import type { MultiLockMember } from './multiLockRound.js';

/** What a hold needs from its multilock. */
export interface MultiLockHoldOwner {
  /** What errors call the multilock: its members' names. */
  readonly label: string;
  readonly clientId: string;
  unlock(options: { threadId: number }): Promise<void>;
}

/** What a hold watches: the members it was granted, how many must stay held, and until when it is valid. */
export interface MultiLockHoldWatch {
  readonly members: readonly MultiLockMember[];
  /** Indexes of the members granted to this acquisition. */
  readonly granted: readonly number[];
  /** Members that must stay held: all for a MultiLock, a majority for a RedLock. */
  readonly required: number;
  /** `performance.now()` until which the acquisition is valid; Infinity with the watchdog. */
  readonly validUntil: number;
}

/**
 * A hold of a MultiLock or RedLock, returned by `multi.acquire()` / `multi.tryAcquire()`.
 *
 * @example
 * ```ts
 * await using hold = await red.acquire({ leaseTime: 10_000 });
 * await settle(batch, { signal: hold.signal }); // aborted when the validity ends or too many members are lost
 * ```
 */
export class MultiLockHold implements AsyncDisposable {
  /** The owner id every member was acquired with (the `<threadId>` of their hash fields). */
  readonly threadId: number;
  readonly #owner: MultiLockHoldOwner;
  readonly #validUntil: number;
  readonly #lost = new AbortController();
  readonly #stops: (() => void)[] = [];
  #released: Promise<void> | null = null;

  /** @internal made by the multilock. */
  constructor(owner: MultiLockHoldOwner, threadId: number, watch: MultiLockHoldWatch) {
    this.#owner = owner;
    this.threadId = threadId;
    this.#validUntil = watch.validUntil;
    this.#watch(watch);
  }

  /**
   * Aborted (with `LockLostError`) when the hold can no longer be trusted: with a lease, once its validity (the
   * lease minus the acquisition's time and the clock drift allowance) has run out; with the watchdog, once the
   * members' watchdogs found so many of the granted members gone that fewer than the required number remain
   * (one for a MultiLock; below the majority for a RedLock).
   */
  get signal(): AbortSignal {
    return this.#lost.signal;
  }

  /** True once `release()` was called. */
  get released(): boolean {
    return this.#released !== null;
  }

  /** Milliseconds of validity left: `-1` with the watchdog (no lease), `0` once it ran out. */
  remainValidity(): number {
    if (this.#validUntil === Infinity) return -1;
    return Math.max(0, Math.floor(this.#validUntil - performance.now()));
  }

  /**
   * Releases every member for this hold's owner (the multilock's `unlock`). Idempotent: later calls return the
   * first call's promise.
   * @throws what the multilock's `unlock` throws (a MultiLock: a member's `IllegalMonitorStateError`).
   */
  release(): Promise<void> {
    this.#released ??= this.#owner.unlock({ threadId: this.threadId }).finally(() => this.#stop());
    return this.#released;
  }

  /** `await using hold = await multi.acquire()` releases it at the end of the block. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.release();
  }

  #watch({ members, granted, required, validUntil }: MultiLockHoldWatch): void {
    const abort = (): void => {
      this.#lost.abort(new LockLostError(this.#owner.label, this.#owner.clientId, this.threadId));
      this.#stop();
    };
    if (validUntil !== Infinity) {
      const timer = setTimeout(abort, Math.min(Math.max(1, Math.ceil(validUntil - performance.now())), 2 ** 31 - 1)).unref();
      this.#stops.push(() => clearTimeout(timer));
      return;
    }
    let held = granted.length;
    for (const index of granted) {
      let counted = false;
      const stop = members[index]?.watchHold?.(this.threadId, () => {
        if (counted) return;
        counted = true;
        held--;
        if (held < required) abort();
      });
      if (stop) this.#stops.push(stop);
    }
  }

  #stop(): void {
    for (const stop of this.#stops.splice(0)) stop();
  }
}
