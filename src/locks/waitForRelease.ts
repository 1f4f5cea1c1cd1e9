/**
 * The waiting engine every blocking primitive reuses: after a failed attempt, subscribe to the channel,
 * retry, then wait for a release message or for the TTL the last attempt returned (or the remaining wait
 * time), whichever is sooner; repeat. No polling: without a message a waiter wakes only when the TTL it
 * was told has run out.
 */
import type { ClientContext } from '../ClientContext.js';
import type { Subscription } from '../pubsub/PublishSubscribe.js';

export interface WaitParams {
  readonly ctx: ClientContext;
  /** Channel as passed in KEYS (unprefixed). */
  readonly channel: string;
  /** One acquire attempt: `null` when acquired, else the holder's TTL in ms (negative: unknown). */
  readonly attempt: () => Promise<number | null>;
  /** Undoes an acquisition that landed after the wait was aborted (must work during shutdown). */
  readonly undo: () => Promise<unknown>;
  /**
   * Total wait in ms: `0` makes a single attempt, `-1` waits without limit (then the subscription itself
   * is bounded by `subscriptionTimeout`).
   */
  readonly waitMs: number;
  readonly signal?: AbortSignal | undefined;
}

/**
 * Runs the attempt / subscribe / retry / wait loop. Resolves true when acquired, false when `waitMs` ran
 * out. Rejects at once with the abort reason (the user's signal, or `RedissonShutdownError` on shutdown),
 * even with an attempt in flight: an acquisition that still lands is undone in the background (and
 * shutdown waits for that). Leaves no subscription, timer or listener.
 */
export async function waitForRelease(p: WaitParams): Promise<boolean> {
  const { ctx } = p;
  p.signal?.throwIfAborted();
  const started = performance.now();
  const unlimited = p.waitMs < 0;
  const remaining = (): number => (unlimited ? Infinity : p.waitMs - (performance.now() - started));
  const scope = new AbortScope(ctx, p.signal);
  let sub: Subscription | null = null;
  let woken = false;
  try {
    let ttl = await guardedAttempt(p, scope);
    if (ttl === null) return true;
    if (remaining() <= 0) return false;

    try {
      const budget = unlimited ? ctx.options.subscriptionTimeout : Math.ceil(remaining());
      sub = await ctx.pubsub.subscribe(p.channel, budget, scope.signal);
    } catch (error) {
      // Redisson's tryLock(wait) gives up (false) when it cannot subscribe in time; lock() throws.
      if (scope.aborted || unlimited) throw error;
      return false;
    }

    // A wake-up this waiter took but did not act on (it gave up or was aborted before its retry returned)
    // is handed to the next local waiter, which would otherwise sleep on a free lock.
    for (;;) {
      ttl = await guardedAttempt(p, scope);
      woken = false;
      if (ttl === null) return true;
      const left = remaining();
      if (left <= 0) return false;
      // Never wait longer than the holder's TTL: a holder that died without publishing is outwaited.
      const waitMs = ttl >= 0 ? Math.min(ttl, left) : left;
      woken = (await sub.wait(Number.isFinite(waitMs) ? Math.ceil(waitMs) : -1, scope.signal)) === 'woken';
      if (remaining() <= 0) return false;
    }
  } finally {
    sub?.release(woken);
    scope.dispose();
  }
}

/** One attempt that rejects as soon as the scope is aborted; a late acquisition is undone. */
function guardedAttempt(p: WaitParams, scope: AbortScope): Promise<number | null> {
  scope.throwIfAborted();
  const attempt = p.attempt();
  return new Promise<number | null>((resolve, reject) => {
    const off = scope.onAbort((reason) => {
      p.ctx.keepUntilClosed(attempt.then((ttl) => (ttl === null ? p.undo() : undefined)));
      reject(reason);
    });
    attempt.then(
      (ttl) => off() && resolve(ttl),
      (error: unknown) => off() && reject(error as Error),
    );
  });
}

/**
 * Joins the caller's signal and the client's shutdown. Cheap until needed: the `AbortController` behind
 * {@link signal} is only made when the wait goes past its first attempt.
 */
class AbortScope {
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
