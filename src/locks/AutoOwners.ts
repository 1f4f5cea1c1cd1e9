/**
 * Owner ids of one lock object's acquisitions that named no owner (no explicit `threadId`, outside
 * `runInThread`). Node has no threads: one lock object shared by concurrent flows (a module-level
 * `const lock = client.getLock('x')` used by every request, as Java code keeps a `private final RLock`)
 * must not make those flows one owner, or they would re-enter each other's hold. So:
 *
 * - an acquisition on an idle object (nothing held or pending) uses the object's own id — sequential use
 *   behaves exactly as one Java thread;
 * - an acquisition while the object already holds or is acquiring gets a fresh owner id, so it excludes
 *   (and waits for) the others — as two Java threads would;
 * - `unlock()` (and the other owner queries) act on the object's oldest current hold; concurrent unlocks
 *   each take the oldest hold that no other unlock in flight is releasing.
 *
 * Re-entering a hold therefore needs an owner: `hold.reenter()`, `client.runInThread()` or an explicit
 * `threadId`. Re-locking the same object without one waits for itself; see {@link selfWaitWarning}.
 */
import { KeptSet } from '../kept.js';

/** An acquisition in flight (a lock's per-call object is one: no entry or closure of its own). */
export interface Pending {
  readonly threadId: number;
  cancel(reason: Error): void;
}

// Typed as mutable so the fields can hold it; frozen, so a push onto it throws instead of sharing state.
const NONE = Object.freeze([]) as unknown as never[];

export class AutoOwners {
  #primary: number | undefined;
  // Replaced by a one-element literal when empty: a push onto an empty array reserves room for 17 elements,
  // about 150 B kept per lock object while it waits or holds (issue 29: a lock object per request is common).
  // Empty, they are the shared frozen NONE (never pushed onto: a push would throw).
  #holding: number[] = NONE;
  #pending: Pending[] = NONE;
  // Holds an unlock in flight is releasing (see claim); made on first use (a lock object per request is common).
  // Kept: every unlock() without an owner claims and unclaims one (see KeptSet).
  #claimed: KeptSet<number> | null = null;

  /**
   * @param allocate a fresh owner id: a function, or the client's context (its `allocateThreadId`), which spares
   *   every lock object a closure.
   * @param perObject `lockOwnership: 'object'`: every acquisition uses the object's own id (re-entrant, as one
   *   Java thread), for objects one flow at a time uses.
   */
  constructor(
    private readonly allocator: (() => number) | { allocateThreadId(): number },
    private readonly perObject = false,
  ) {}

  private allocate(): number {
    return typeof this.allocator === 'function' ? this.allocator() : this.allocator.allocateThreadId();
  }

  /** The object's own id (allocated on first use). */
  get primary(): number {
    this.#primary ??= this.allocate();
    return this.#primary;
  }

  /** The owner of a new acquisition: the object's own id when idle, else a fresh one. */
  next(): number {
    return this.perObject || (this.#holding.length === 0 && this.#pending.length === 0) ? this.primary : this.allocate();
  }

  /** True when a new acquisition while the object holds would wait for it (see selfWaitWarning). */
  get exclusive(): boolean {
    return !this.perObject;
  }

  /** The oldest hold, if any: what `unlock()` releases. */
  get current(): number | undefined {
    return this.#holding[0];
  }

  /** True while this object holds the lock through an automatic owner. */
  get holding(): boolean {
    return this.#holding.length > 0;
  }

  /** An acquisition for `threadId` started; `cancel` aborts it. Returns the function that ends it. */
  started(threadId: number, cancel: (reason: Error) => void): (acquired: boolean) => void {
    const entry: Pending = { threadId, cancel };
    this.add(entry);
    return (acquired) => this.end(entry, acquired);
  }

  /** An acquisition started (as {@link started}, without a closure): end it with {@link end}. */
  add(entry: Pending): void {
    if (this.#pending.length === 0) this.#pending = [entry];
    else this.#pending.push(entry);
  }

  /** The acquisition `entry` ended, with the lock or without. */
  end(entry: Pending, acquired: boolean): void {
    const i = this.#pending.indexOf(entry);
    if (i >= 0) this.#pending.splice(i, 1);
    if (!acquired || this.#holding.includes(entry.threadId)) return;
    if (this.#holding.length === 0) this.#holding = [entry.threadId];
    else this.#holding.push(entry.threadId);
  }

  /**
   * The hold an `unlock()` without a named owner releases: the oldest one no other unlock in flight has
   * claimed, marked until {@link unclaim}. `undefined` when every hold is claimed (or none is held).
   */
  claim(): number | undefined {
    const claimed = (this.#claimed ??= new KeptSet());
    for (const threadId of this.#holding) {
      if (claimed.has(threadId)) continue;
      claimed.add(threadId);
      return threadId;
    }
    return undefined;
  }

  /** The unlock that claimed `threadId` ended (the hold was released, or is still held after a reentrant unlock). */
  unclaim(threadId: number): void {
    this.#claimed?.delete(threadId);
  }

  /** `threadId` no longer holds (released, or found not holding). */
  released(threadId: number): void {
    const i = this.#holding.indexOf(threadId);
    if (i >= 0) this.#holding.splice(i, 1);
  }

  /**
   * `unlock()` found nothing held while acquisitions are pending: a `lock()` that was not awaited. The
   * oldest is cancelled (an acquisition that still lands is undone) and reported; true when there was one.
   */
  cancelOldestPending(reason: Error): boolean {
    if (this.#pending.length === 0) return false;
    const oldest = this.#pending.shift();
    if (!oldest) return false;
    oldest.cancel(reason);
    return true;
  }
}

/** The warning for an acquisition that waits on a hold of its own lock object. */
export function selfWaitWarning(name: string, waitedMs: number): string {
  return (
    `redisson-ts: an acquisition of '${name}' has waited ${Math.round(waitedMs)} ms while the same lock object holds it. ` +
    'Acquisitions on one object exclude each other (each gets its own owner); if this is re-entry in the same flow, ' +
    'use hold.reenter(), client.runInThread() or an explicit threadId, or it waits for itself.'
  );
}
