/**
 * The abort scope of one wait: the caller's `AbortSignal`, the client's shutdown and, for a lock, a
 * cancellation from `unlock()` ({@link Canceller}), joined without an `AbortController`: a waiting call
 * registers plain callbacks here instead of EventTarget listeners (about 1 KB less heap per waiter each).
 * A parked waiter is one of the largest things a client keeps (issue 29), so a scope makes no closure of its
 * own: the client tracks the scope itself, a canceller and the caller's signal call it as an object, and a
 * listener may be an object with an `aborted` method instead of a function.
 */

/** A pending wait that the client's shutdown rejects (`abortWait` gets a `RedissonShutdownError`). */
export interface TrackedWaiter {
  abortWait(reason: Error): void;
}

/** What a scope needs of its client: registering a wait that shutdown rejects (a `ClientContext` is one). */
export interface WaiterTracker {
  trackWaiter(waiter: TrackedWaiter): void;
  untrackWaiter(waiter: TrackedWaiter): void;
}

/**
 * Cancels one acquire call from outside it (a lock's `unlock()` cancelling a `lock()` that was not
 * awaited). A cancel that comes before the call's scope exists is kept and applied when it binds.
 */
export class Canceller {
  #scope: TrackedWaiter | null = null;
  #pending: Error | null = null;

  cancel(reason: Error): void {
    if (this.#scope) this.#scope.abortWait(reason);
    else this.#pending ??= reason;
  }

  /** @internal the scope of the call this cancels. */
  bind(scope: TrackedWaiter): void {
    this.#scope = scope;
    if (this.#pending) scope.abortWait(this.#pending);
  }
}

/** Called once on abort: a function, or an object whose `aborted` method is (no closure needed). */
export type AbortListener = ((reason: Error) => void) | { aborted(reason: Error): void };

/** What a wait can be aborted by: a caller's `AbortSignal`, or a wait's {@link AbortScope}. */
export type AbortSource = AbortSignal | AbortScope;

/** Calls `callback` once when `source` aborts; the returned function unregisters it. */
export function onAbort(source: AbortSource, callback: (reason: Error) => void): () => void {
  // The scope's own remover (its boolean result is ignored): no second closure per registration.
  if (source instanceof AbortScope) return source.onAbort(callback);
  // Abort reasons are Errors (a DOMException by default, RedissonShutdownError on shutdown).
  const listener = (): void => callback(source.reason as Error);
  source.addEventListener('abort', listener, { once: true });
  return () => source.removeEventListener('abort', listener);
}

function call(listener: AbortListener, reason: Error): void {
  if (typeof listener === 'function') listener(reason);
  else listener.aborted(reason);
}

/** Joins the caller's signal, the client's shutdown and an optional {@link Canceller}. */
export class AbortScope implements TrackedWaiter {
  #aborted = false;
  #reason: unknown;
  // Registered listeners: one or two at a time (an attempt's, a wait's). An array, not a Set: a scope lives as
  // long as its waiter, and a Set's table is about 100 B more per parked waiter. Made on first use.
  #listeners: AbortListener[] | null = null;
  readonly #ctx: WaiterTracker;
  readonly #user: AbortSignal | undefined;

  constructor(ctx: WaiterTracker, user: AbortSignal | undefined, cancel?: Canceller) {
    this.#ctx = ctx;
    this.#user = user;
    ctx.trackWaiter(this);
    // The scope is the signal's listener itself (EventTarget calls its handleEvent): no closure.
    user?.addEventListener('abort', this, { once: true });
    cancel?.bind(this);
  }

  get aborted(): boolean {
    return this.#aborted;
  }

  /** Why it was aborted (undefined until then); abort reasons are Errors, as a signal's default is. */
  get reason(): Error {
    return this.#reason as Error;
  }

  throwIfAborted(): void {
    if (this.#aborted) throw this.#reason;
  }

  /** Calls `callback` on abort; the returned function unregisters it and tells whether it had not fired. */
  onAbort(callback: (reason: Error) => void): () => boolean {
    this.add(callback);
    return () => this.remove(callback);
  }

  /** Calls `listener` on abort (once); see {@link remove}. */
  add(listener: AbortListener): void {
    // A literal holds one element; a push onto an empty array reserves room for 17 (about 150 B per waiter).
    if (this.#listeners?.length) this.#listeners.push(listener);
    else this.#listeners = [listener];
  }

  /** Unregisters `listener`; false when it was not registered (it fired, or was never added). */
  remove(listener: AbortListener): boolean {
    const listeners = this.#listeners;
    const i = listeners ? listeners.indexOf(listener) : -1;
    if (i < 0) return false;
    listeners?.splice(i, 1);
    return true;
  }

  dispose(): void {
    this.#ctx.untrackWaiter(this);
    this.#user?.removeEventListener('abort', this);
    this.#listeners = null;
  }

  /** @internal the caller's signal aborted (this scope is its listener). */
  handleEvent(): void {
    this.abortWait(this.#user?.reason as Error);
  }

  /** @internal aborts the wait (the client's shutdown, a {@link Canceller}, the caller's signal). */
  abortWait(reason: Error): void {
    if (this.#aborted) return;
    this.#aborted = true;
    this.#reason = reason;
    const listeners = this.#listeners;
    this.#listeners = null;
    // Abort reasons are Errors (a DOMException by default, RedissonShutdownError on shutdown).
    if (listeners) for (const listener of listeners) call(listener, reason);
  }
}
