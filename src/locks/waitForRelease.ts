/**
 * The waiting engine every blocking primitive reuses: after a failed attempt, subscribe to the channel,
 * retry, then wait for a release message or for the TTL the last attempt returned (or the remaining wait
 * time), whichever is sooner; repeat. No polling: without a message a waiter wakes only when the TTL it
 * was told has run out.
 */
import { RedisTimeoutError } from '../errors.js';
import type { ClientContext } from '../ClientContext.js';
import type { Subscription } from '../pubsub/PublishSubscribe.js';

export interface WaitParams {
  readonly ctx: ClientContext;
  /** Channel as passed in KEYS (unprefixed). */
  readonly channel: string;
  /** One acquire attempt: `null` when acquired, else the holder's TTL in ms (negative: unknown). */
  readonly attempt: () => Promise<number | null>;
  /** Undoes an acquisition that completed after the wait was aborted. */
  readonly undo: () => Promise<unknown>;
  /** Total wait in ms; `-1` waits without limit (then the subscription itself is bounded by `subscriptionTimeout`). */
  readonly waitMs: number;
  readonly signal?: AbortSignal | undefined;
}

/**
 * Runs the attempt / subscribe / retry / wait loop. Resolves true when acquired, false when `waitMs` ran
 * out. Rejects with the abort reason (the user's signal, or `RedissonShutdownError` on shutdown); an
 * acquisition that lands after an abort is undone first. Leaves no subscription, timer or listener.
 */
export async function waitForRelease(p: WaitParams): Promise<boolean> {
  const { ctx, signal } = p;
  signal?.throwIfAborted();
  const started = performance.now();
  const unlimited = p.waitMs < 0;
  const remaining = (): number => (unlimited ? Infinity : p.waitMs - (performance.now() - started));

  // Fast path: an uncontended lock costs one attempt and none of the waiting machinery below.
  let ttl = await guardedAttempt(p, signal);
  if (ttl === null) return true;
  if (remaining() <= 0) return false;

  // One local controller joins the caller's signal and the client's shutdown.
  const local = new AbortController();
  const forward = (): void => local.abort(signal?.reason);
  signal?.addEventListener('abort', forward, { once: true });
  const untrack = ctx.trackWaiter((reason) => local.abort(reason));
  let sub: Subscription | null = null;
  try {
    const subscribeBudget = unlimited ? ctx.options.subscriptionTimeout : Math.ceil(remaining());
    try {
      sub = await ctx.pubsub.subscribe(p.channel, subscribeBudget, local.signal);
    } catch (error) {
      if (error instanceof RedisTimeoutError && !unlimited) return false;
      throw error;
    }

    for (;;) {
      ttl = await guardedAttempt(p, local.signal);
      if (ttl === null) return true;
      const left = remaining();
      if (left <= 0) return false;
      // Never wait longer than the holder's TTL: a holder that died without publishing is outwaited.
      const waitMs = ttl >= 0 ? Math.min(ttl, left) : left;
      await sub.wait(Number.isFinite(waitMs) ? Math.ceil(waitMs) : -1, local.signal);
      if (remaining() <= 0) return false;
    }
  } finally {
    sub?.release();
    untrack();
    signal?.removeEventListener('abort', forward);
  }
}

async function guardedAttempt(p: WaitParams, abort: AbortSignal | undefined): Promise<number | null> {
  abort?.throwIfAborted();
  const ttl = await p.attempt();
  if (abort?.aborted) {
    // Aborted while the attempt was in flight: an acquisition that still happened must not leak.
    if (ttl === null) await p.undo().catch(() => undefined);
    abort.throwIfAborted();
  }
  return ttl;
}
