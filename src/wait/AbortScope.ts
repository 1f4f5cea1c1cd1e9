/**
 * The abort scope of one wait: the caller's `AbortSignal` joined with the client's shutdown.
 */
import type { ClientContext } from '../ClientContext.js';

/**
 * Joins the caller's signal and the client's shutdown. Cheap until needed: the `AbortController` behind
 * {@link signal} is only made when the wait goes past its first attempt.
 */
export class AbortScope {
  #aborted = false;
  #reason: unknown;
  #controller: AbortController | null = null;
  readonly #callbacks = new Set<(reason: Error) => void>();
  readonly #untrack: () => void;
  readonly #forward = (): void => this.#abort(this.user?.reason);

  constructor(
    ctx: ClientContext,
    private readonly user: AbortSignal | undefined,
  ) {
    this.#untrack = ctx.trackWaiter((reason) => this.#abort(reason));
    user?.addEventListener('abort', this.#forward, { once: true });
  }

  get aborted(): boolean {
    return this.#aborted;
  }

  get signal(): AbortSignal {
    if (!this.#controller) {
      this.#controller = new AbortController();
      if (this.#aborted) this.#controller.abort(this.#reason);
    }
    return this.#controller.signal;
  }

  throwIfAborted(): void {
    if (this.#aborted) throw this.#reason;
  }

  /** Calls `callback` on abort; the returned function unregisters it and tells whether it had not fired. */
  onAbort(callback: (reason: Error) => void): () => boolean {
    this.#callbacks.add(callback);
    return () => this.#callbacks.delete(callback);
  }

  dispose(): void {
    this.#untrack();
    this.user?.removeEventListener('abort', this.#forward);
    this.#callbacks.clear();
  }

  #abort(reason: unknown): void {
    if (this.#aborted) return;
    this.#aborted = true;
    this.#reason = reason;
    const callbacks = [...this.#callbacks];
    this.#callbacks.clear();
    // Abort reasons are Errors (a DOMException by default, RedissonShutdownError on shutdown).
    for (const callback of callbacks) callback(reason as Error);
    this.#controller?.abort(reason);
  }
}
