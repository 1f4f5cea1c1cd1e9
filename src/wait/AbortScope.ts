/**
 * The abort scope of one wait: the caller's `AbortSignal`, the client's shutdown and, for a lock, a
 * cancellation from `unlock()` ({@link Canceller}), joined without an `AbortController`: a waiting call
 * registers plain callbacks here instead of EventTarget listeners (about 1 KB less heap per waiter each).
 */

/** What a scope needs of its client: registering a wait that shutdown rejects (a `ClientContext` is one). */
export interface WaiterTracker {
  trackWaiter(abort: (reason: Error) => void): () => void;
}

/**
 * Cancels one acquire call from outside it (a lock's `unlock()` cancelling a `lock()` that was not
 * awaited). A cancel that comes before the call's scope exists is kept and applied when it binds.
 */
export class Canceller {
  #abort: ((reason: Error) => void) | null = null;
  #pending: Error | null = null;

  cancel(reason: Error): void {
    if (this.#abort) this.#abort(reason);
    else this.#pending ??= reason;
  }

  /** @internal the scope of the call this cancels. */
  bind(abort: (reason: Error) => void): void {
    this.#abort = abort;
    if (this.#pending) abort(this.#pending);
  }
}

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

/** Joins the caller's signal, the client's shutdown and an optional {@link Canceller}. */
export class AbortScope {
  #aborted = false;
  #reason: unknown;
  // Registered callbacks: one or two at a time (an attempt's, a wait's). An array, not a Set: a scope lives as
  // long as its waiter, and a Set's table is about 100 B more per parked waiter.
  #callbacks: ((reason: Error) => void)[] = [];
  readonly #untrack: () => void;
  readonly #forward: (() => void) | undefined;

  constructor(
    ctx: WaiterTracker,
    private readonly user: AbortSignal | undefined,
    cancel?: Canceller,
  ) {
    // One closure for the client's shutdown, the canceller and the signal.
    const abort = (reason: unknown): void => this.#abort(reason);
    this.#untrack = ctx.trackWaiter(abort);
    if (user) {
      const forward = (): void => abort(user.reason);
      this.#forward = forward;
      user.addEventListener('abort', forward, { once: true });
    }
    cancel?.bind(abort);
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
    this.#callbacks.push(callback);
    return () => {
      const i = this.#callbacks.indexOf(callback);
      if (i < 0) return false;
      this.#callbacks.splice(i, 1);
      return true;
    };
  }

  dispose(): void {
    this.#untrack();
    if (this.#forward) this.user?.removeEventListener('abort', this.#forward);
    this.#callbacks = [];
  }

  #abort(reason: unknown): void {
    if (this.#aborted) return;
    this.#aborted = true;
    this.#reason = reason;
    const callbacks = this.#callbacks;
    this.#callbacks = [];
    // Abort reasons are Errors (a DOMException by default, RedissonShutdownError on shutdown).
    for (const callback of callbacks) callback(reason as Error);
  }
}
