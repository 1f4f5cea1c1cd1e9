/**
 * The acquire loop every waiting primitive reuses (Redisson's `lock`/`tryLock`/`acquire` loops): make an
 * attempt; when it fails, subscribe to the release channel, attempt again, then wait for a release message
 * or for the retry delay the attempt returned (the holder's TTL), whichever is sooner; repeat. No polling:
 * without a message a waiter wakes only when the delay it was told has run out. A primitive without a
 * channel (SpinLock) backs off between attempts instead.
 */
import type { ClientContext } from '../ClientContext.js';
import { MAX_TIMER_MS } from '../config.js';
import type { HandoffOutcome, HandoffTerms, Subscription, WaitListener, WaitOutcome } from '../pubsub/PublishSubscribe.js';
import type { WakePolicy } from '../pubsub/wakePolicies.js';
import { AbortScope, onAbort, type Canceller } from './AbortScope.js';
import { traceAcquire, traceWait, waitTraced, type TraceTarget } from '../diagnostics.js';
import { ConnectionLostError, RedisConnectionError, RedisTimeoutError } from '../errors.js';
import { isRoutingFailure } from '../connection/classify.js';

/** What one attempt found: acquired (with a value: a token, permit ids), or a delay before retrying. */
export type Attempt<T> = { readonly acquired: true; readonly value: T } | { readonly acquired: false; readonly retryAfter: number };

// The attempt of a lock whose acquisition yields nothing: one shared frozen object, not one per lock() (issue 29).
const ACQUIRED_VOID: Attempt<undefined> = Object.freeze({ acquired: true, value: undefined });
/** Acquired, with `value`. */
export const acquired = <T>(value: T): Attempt<T> => (value === undefined ? (ACQUIRED_VOID as Attempt<T>) : { acquired: true, value });
/** Not acquired: retry after `ms` at the latest (the holder's TTL; negative: only a message says when). */
export const retryAfter = <T>(ms: number): Attempt<T> => ({ acquired: false, retryAfter: ms });

/** How a waiter learns that it is worth retrying. */
export type WaitMode =
  | { readonly channel: string; readonly policy: WakePolicy }
  /** No channel: sleep `next()` ms (bounded by the retry delay and the wait left) between attempts. */
  | { readonly backoff: () => { next(): number } };

export interface AcquireParams<T> {
  readonly ctx: ClientContext;
  /** One attempt; `retry` is false for the first attempt of the call. */
  readonly attempt: (retry: boolean) => Promise<Attempt<T>>;
  /** Undoes an acquisition that landed after the wait was aborted (must work during shutdown). */
  readonly undo: (value: T) => Promise<unknown>;
  /**
   * Called when a waiting call (`waitMs` ≠ 0) ends without acquiring — ran out, aborted or failed — so a
   * primitive whose attempts enqueue the waiter (FairLock) can leave the queue. Runs in the background.
   */
  readonly giveUp?: () => Promise<unknown> | undefined;
  readonly mode: WaitMode;
  /**
   * When a retry that followed a wake-up fails, hand that wake-up to the next local waiter behind this
   * one (`Subscription.passOn`). For semaphores: a release that frees fewer permits than this waiter
   * needs may still serve a smaller request queued behind it. Default false (locks: the holder changed).
   */
  readonly passOnRefusedWake?: boolean;
  /**
   * Total wait in ms: `0` makes a single attempt, `-1` waits without limit (then the subscription itself
   * is bounded by `subscriptionTimeout`).
   */
  readonly waitMs: number;
  readonly signal?: AbortSignal | undefined;
  /** Cancels the call from outside, as the signal would (a lock's `unlock()` cancelling a pending `lock()`). */
  readonly canceller?: Canceller | undefined;
  /**
   * Called once when the call ends, acquired or not (before its promise settles): a primitive's bookkeeping
   * of the call, without a second async frame around the loop's.
   */
  settled?(acquired: boolean): void;
  /** What the call is about, for the `redisson-ts:acquire` / `redisson-ts:wait` diagnostics channels. */
  readonly trace?: TraceTarget;
  /**
   * Direct handoff (issue 29), for a lock whose release can write this waiter's hold itself: what that grant
   * writes (what {@link attempt} would send), or `null` when this waiter cannot take one now. Absent: never.
   */
  handoffTerms?(): HandoffTerms | null;
  /** A grant of `terms` landed for this waiting call: its bookkeeping, as after an acquiring attempt; the value. */
  handedOff?(terms: HandoffTerms): T;
  /** A grant of `terms` may have landed but is not taken: settle it (undo it if it landed) before the next attempt. */
  handoffDoubt?(terms: HandoffTerms): void;
}

/** The outcome of {@link acquire}: the attempt's value, or `null` when the wait ran out. */
export type Acquired<T> = { readonly value: T } | null;

/**
 * Runs the attempt / subscribe / retry / wait loop. Resolves with the value when acquired, `null` when
 * `waitMs` ran out. Rejects at once with the abort reason (the user's signal, or `RedissonShutdownError` on
 * shutdown), even with an attempt in flight: an acquisition that still lands is undone in the background
 * (and shutdown waits for that). Leaves no subscription, timer or listener.
 */
export function acquire<T>(p: AcquireParams<T>): Promise<Acquired<T>> {
  return traceAcquire(p.trace, p.waitMs, () => start(p));
}

function start<T>(p: AcquireParams<T>): Promise<Acquired<T>> {
  if (p.signal?.aborted) {
    p.settled?.(false);
    return Promise.reject(p.signal.reason as Error);
  }
  return new Promise<Acquired<T>>((resolve, reject) => new AcquireRun(p, resolve, reject).step(false));
}

// Resumes a run a microtask later, as an awaited promise would; not queueMicrotask, which makes an
// AsyncResource per call in Node (several µs on every wake-up).
const RESOLVED = Promise.resolve();

/** What {@link AcquireRun}'s attempts return when the scope aborted one in flight: the abort ends the call. */
const ABORTED = Symbol('aborted');

/**
 * One call of the loop. Its attempts run in an async method ({@link advance}); when it has to wait for a message it
 * returns, and the run parks on its subscription as the wait's listener ({@link Subscription.park}), so a parked
 * waiter keeps this object and no suspended async frame, promise or closure (issue 29: about 600 B per waiter).
 * A message, the timeout or an abort resumes it a microtask later, as an awaited promise would.
 */
class AcquireRun<T> implements WaitListener {
  readonly #started = performance.now();
  readonly #scope: AbortScope;
  #sub: Subscription | null = null;
  // A wake-up this waiter took but did not act on (it gave up or was aborted before its retry returned)
  // is handed to the next local waiter, which would otherwise sleep on a free lock.
  #woken = false;
  #outcome: Acquired<T> = null;
  // The last refused attempt's retry delay (the holder's TTL; negative: only a message says when).
  #retryAfter = -1;
  #backoff: { next(): number } | null = null;
  // Direct handoff: the terms while a release that may grant this parked waiter the lock is in flight
  // (reserved), and what happened to the wait meanwhile (`#deferred`: a wake-up the reply decides on).
  #handoff: HandoffTerms | null = null;
  #deferred: WaitOutcome | null = null;
  #ended = false;
  // Set synchronously when the call is ending (aborted, ran out) before #end runs a microtask later.
  #leaving = false;
  // The attempt in flight; meanwhile this run is the scope's abort listener (see aborted).
  #inFlight: Promise<Attempt<T>> | null = null;

  constructor(
    private readonly p: AcquireParams<T>,
    private readonly resolve: (outcome: Acquired<T>) => void,
    private readonly reject: (reason: Error) => void,
  ) {
    this.#scope = new AbortScope(p.ctx, p.signal, p.canceller);
    // A waiting call on a channel this client is already subscribed to joins its waiters before the first
    // attempt: a release after that attempt then wakes it, so it waits without subscribing and retrying.
    if ('channel' in p.mode && p.waitMs !== 0) this.#sub = p.ctx.pubsub.join(p.mode.channel, p.mode.policy);
  }

  /** Runs attempts (`resumed`: after a wait) until the call is over or waits again. */
  step(resumed: boolean): void {
    // A retry after a wait, with nothing to wait for first: one reaction on the attempt, not the loop's async
    // frame and a reaction on it (issue 29: the path every wake-up of a herd takes).
    if (resumed && this.#backoff === null && this.#sub !== null) {
      // Woken with another client's longer waiter in this process: its retry goes first (one turn).
      if (this.#woken && this.#sub.outranked()) setImmediate(retryLater, this);
      else this.#retry();
      return;
    }
    this.#advance(resumed).then(
      (ms) => ms === ABORTED || this.#waitOrEnd(ms),
      (error: unknown) => this.#end(error as Error),
    );
  }

  /** The parked wait ended (from the subscription: a message, its timer). */
  woke(outcome: WaitOutcome): void {
    if (this.#handoff !== null) {
      // Reserved for a grant: the release's reply decides whether to retry. Only the wait running out ends it
      // now (the grant, if it lands, is then undone: see handedOff); else the wait goes on until the reply.
      const left = remaining(this.p.waitMs, this.#started);
      if (outcome === 'timeout' && left <= 0) {
        this.#leaving = true;
        void RESOLVED.then(() => this.#end(null));
        return;
      }
      if (outcome === 'woken' || this.#deferred === null) this.#deferred = outcome;
      this.#sub?.park(Number.isFinite(left) ? Math.ceil(left) : -1, this.#scope, this);
      return;
    }
    this.#woken = outcome === 'woken';
    void RESOLVED.then(() => this.step(true));
  }

  /** The parked wait was aborted. */
  failed(reason: Error): void {
    this.#leaving = true;
    void RESOLVED.then(() => this.#end(reason));
  }

  /**
   * The scope aborted with an attempt in flight: the call rejects now, and an acquisition that still lands is
   * undone in the background (shutdown waits for that). The attempt's own outcome is then ignored ({@link landed}).
   */
  aborted(reason: Error): void {
    const attempt = this.#inFlight;
    if (attempt === null) return;
    this.#inFlight = null;
    const { p } = this;
    p.ctx.keepUntilClosed(attempt.then((r) => (r.acquired ? p.undo(r.value) : undefined)));
    this.failed(reason);
  }

  /**
   * One attempt, with this run as the scope's abort listener while it is in flight: no guard object, promise and
   * reaction of its own per attempt (issue 29). Throws at once when the scope is already aborted.
   */
  #attempt(retry: boolean): Promise<Attempt<T>> {
    const scope = this.#scope;
    scope.throwIfAborted();
    const attempt = this.p.attempt(retry);
    this.#inFlight = attempt;
    scope.add(this);
    return attempt;
  }

  /** The attempt in flight settled: false when the scope aborted first (then the abort ends the call). */
  #landed(): boolean {
    this.#inFlight = null;
    return this.#scope.remove(this);
  }

  /** @internal {@link retryLater}'s entry. */
  retryNow(): void {
    this.#retry();
  }

  /** {@link step}'s retry after a wait: as one pass of {@link advance}'s loop. */
  #retry(): void {
    if (remaining(this.p.waitMs, this.#started) <= 0) {
      this.#end(null);
      return;
    }
    let attempt: Promise<Attempt<T>>;
    try {
      attempt = this.#attempt(true);
    } catch (error) {
      this.#end(error as Error);
      return;
    }
    attempt.then(
      (result) => {
        if (this.#landed()) this.#retried(result);
      },
      (error: unknown) => {
        if (!this.#landed()) return;
        let result: Attempt<T>;
        try {
          result = this.#retryFailure(error);
        } catch (failure) {
          this.#end(failure as Error);
          return;
        }
        this.#retried(result);
      },
    );
  }

  /** A retry's outcome: acquired, or wait again (for at most the holder's TTL). */
  #retried(result: Attempt<T>): void {
    try {
      const next = this.#afterRetry(result);
      if (next === undefined) this.#retry();
      else this.#waitOrEnd(next);
    } catch (error) {
      this.#end(error as Error);
    }
  }

  /**
   * A retry's result: passes a refused wake-up on, then, as {@link waitFor}, the ms to wait, `null` to end (acquired:
   * the outcome is set), `undefined` to attempt again at once.
   */
  #afterRetry(result: Attempt<T>): number | null | undefined {
    if (this.#woken && !result.acquired && this.p.passOnRefusedWake) this.#sub?.passOn();
    this.#woken = false;
    if (result.acquired) {
      this.#outcome = { value: result.value };
      return null;
    }
    this.#retryAfter = result.retryAfter;
    return this.#waitFor();
  }

  /**
   * After a refusal: the ms to wait for a message (`-1`: no limit), never longer than the retry delay (the holder's
   * TTL), so a holder that died without publishing is outwaited; `null` when the wait ran out; `undefined` when there
   * is no channel to wait on (a backoff primitive: attempt again).
   */
  #waitFor(): number | null | undefined {
    const left = remaining(this.p.waitMs, this.#started);
    if (left <= 0) return null;
    if (!this.#sub) return undefined;
    const waitMs = this.#retryAfter >= 0 ? Math.min(this.#retryAfter, left) : left;
    return Number.isFinite(waitMs) ? Math.ceil(waitMs) : -1;
  }

  /**
   * A retry that failed. In a cluster a master may be failing over under a waiter: its retry cannot reach the
   * slot's master. Keep waiting and try again within a second (the owner's ledger settles an attempt whose reply was
   * lost before its next one), rather than failing a wait the failover will end. Otherwise rethrows.
   */
  #retryFailure(error: unknown): Attempt<T> {
    if (!this.p.ctx.clustered || this.#scope.aborted || !isConnectionLevel(error)) throw error;
    return retryAfter(Math.min(1_000, Math.max(0, remaining(this.p.waitMs, this.#started))));
  }

  /** As {@link WaitListener.reserve}: only while parked (no attempt in flight) and not aborted. */
  reserve(): HandoffTerms | null {
    if (this.#handoff !== null || this.#ended || this.#leaving || this.#scope.aborted || !this.p.handoffTerms) return null;
    const terms = this.p.handoffTerms();
    if (terms === null) return null;
    this.#handoff = terms;
    this.#deferred = null;
    return terms;
  }

  /** As {@link WaitListener.handedOff}: the reserved release's outcome. */
  handedOff(outcome: HandoffOutcome): void {
    const terms = this.#handoff;
    if (terms === null) return;
    this.#handoff = null;
    const { p } = this;
    if (this.#ended || this.#leaving || this.#scope.aborted) {
      // The wait ended meanwhile (aborted, ran out, shutdown): a grant nobody takes is released at once, as a
      // late acquisition is; `handoffDoubt` checks the count and undoes a hold that landed.
      if (outcome !== 'refused') p.handoffDoubt?.(terms);
      return;
    }
    if (outcome === 'granted' && p.handedOff) {
      this.#sub?.unparkFor(this);
      this.#outcome = { value: p.handedOff(terms) };
      // The release message that reached this waiter while reserved was this grant's: it wakes nobody else.
      this.#woken = false;
      this.#deferred = null;
      void RESOLVED.then(() => this.#end(null));
      return;
    }
    if (outcome === 'unknown') p.handoffDoubt?.(terms);
    // Not granted: the wake-up the release sent (if it came) or the timer's, as if never reserved; an unknown
    // outcome retries at once (the attempt settles the doubt first).
    const deferred = outcome === 'unknown' ? 'woken' : this.#deferred;
    this.#deferred = null;
    if (deferred !== null && this.#sub?.unparkFor(this)) this.woke(deferred);
  }

  /** Waits `ms` (`-1`: no limit) for a message, or, `null`, ends the call with its outcome. */
  #waitOrEnd(ms: number | null): void {
    const sub = this.#sub;
    if (ms === null || !sub) {
      this.#end(null);
      return;
    }
    const { p } = this;
    if (waitTraced(p.trace)) {
      traceWait(p.trace, 'channel' in p.mode ? p.mode.channel : '', ms, sub, this.#scope).then(
        (outcome) => this.woke(outcome),
        (error: unknown) => this.failed(error as Error),
      );
    } else {
      sub.park(ms, this.#scope, this);
    }
  }

  /**
   * Attempts until acquired or out of time (`null`: the outcome is set), or until it has to wait for a message
   * (the ms to wait, `-1`: no limit).
   */
  async #advance(resumed: boolean): Promise<number | null | typeof ABORTED> {
    const { p } = this;
    const { ctx } = p;
    const scope = this.#scope;
    // After a wait: the time may have run out while it waited.
    if (resumed && remaining(p.waitMs, this.#started) <= 0) return null;
    // Joined before the attempt: wait on its result first.
    let attempted = false;
    if (!resumed) {
      // Another client in this process waits on the channel: a release that just freed the lock wakes it, but
      // its retry is sent only when the message is read. Let the event loop read it first (one turn), or a
      // client that loops on lock/unlock takes the lock every time before its neighbours' retries are written.
      if ('channel' in p.mode && ctx.pubsub.othersWaiting(p.mode.channel)) await nextTurn();
      const attempt = this.#attempt(false);
      let result: Attempt<T>;
      try {
        result = await attempt;
        if (!this.#landed()) return ABORTED;
      } catch (error) {
        if (!this.#landed()) return ABORTED;
        throw error;
      }
      if (result.acquired) {
        this.#outcome = { value: result.value };
        return null;
      }
      this.#retryAfter = result.retryAfter;
      if (remaining(p.waitMs, this.#started) <= 0) return null;
      attempted = this.#sub !== null;
      if ('channel' in p.mode && !this.#sub) {
        const unlimited = p.waitMs < 0;
        try {
          const budget = unlimited ? ctx.options.subscriptionTimeout : Math.ceil(remaining(p.waitMs, this.#started));
          this.#sub = await ctx.pubsub.subscribe(p.mode.channel, p.mode.policy, budget, scope);
        } catch (error) {
          // Redisson's tryLock(wait) gives up (false) when it cannot subscribe in time; lock() throws.
          if (scope.aborted || unlimited) throw error;
          return null;
        }
      }
      this.#backoff = 'backoff' in p.mode ? p.mode.backoff() : null;
    }
    for (;;) {
      if (!attempted) {
        if (this.#backoff) await sleep(Math.min(this.#backoff.next(), remaining(p.waitMs, this.#started)), scope);
        // Woken with another client's longer waiter in this process: its retry goes first (one turn).
        if (this.#woken && this.#sub?.outranked()) await nextTurn();
        const attempt = this.#attempt(true);
        let result: Attempt<T>;
        try {
          result = await attempt;
          if (!this.#landed()) return ABORTED;
        } catch (error) {
          if (!this.#landed()) return ABORTED;
          result = this.#retryFailure(error);
        }
        const next = this.#afterRetry(result);
        if (next !== undefined) return next;
        continue;
      }
      attempted = false;
      const next = this.#waitFor();
      if (next !== undefined) return next;
    }
  }

  /** Ends the call: resolves with its outcome (`error` null) or rejects; leaves no subscription, timer or listener. */
  #end(error: Error | null): void {
    if (this.#ended) return;
    this.#ended = true;
    const { p } = this;
    const acquired = error === null && this.#outcome !== null;
    // Acquired: the channel may linger for the next waiter of this client. A wake-up deferred by a reservation
    // still in flight is handed on (if the grant lands, the next waiter's retry is refused: harmless).
    this.#sub?.release(this.#woken || this.#deferred === 'woken', acquired);
    this.#scope.dispose();
    if (!acquired && p.waitMs !== 0 && p.giveUp) {
      const leaving = p.giveUp();
      if (leaving) p.ctx.keepUntilClosed(leaving);
    }
    p.settled?.(acquired);
    if (error === null) this.resolve(this.#outcome);
    else this.reject(error);
  }
}

/** A run's retry after the event loop's next turn (a function of the module: no closure per wake-up). */
function retryLater(run: { retryNow(): void }): void {
  run.retryNow();
}

/** What is left of a wait of `waitMs` (`< 0`: unlimited) started at `started`. */
function remaining(waitMs: number, started: number): number {
  return waitMs < 0 ? Infinity : waitMs - (performance.now() - started);
}

/** Resolves after the event loop's next turn: I/O already read is handled first. */
function nextTurn(): Promise<void> {
  return new Promise<void>((resolve) => setImmediate(resolve));
}

/** Resolves after `ms` (at most setTimeout's ceiling), or rejects with the scope's reason on abort. */
function sleep(ms: number, scope: AbortScope): Promise<void> {
  if (scope.aborted) return Promise.reject(scope.reason);
  return new Promise<void>((resolve, reject) => {
    const timer = setTimeout(
      () => {
        off();
        resolve();
      },
      Math.max(0, Math.min(Math.ceil(ms), MAX_TIMER_MS)),
    );
    const off = onAbort(scope, (reason) => {
      clearTimeout(timer);
      reject(reason);
    });
  });
}

/** A failure of the connection or of the cluster's routing, not an answer of the script. */
function isConnectionLevel(error: unknown): boolean {
  if (error instanceof ConnectionLostError || error instanceof RedisConnectionError || error instanceof RedisTimeoutError) return true;
  return isRoutingFailure(error);
}
