/**
 * Redisson's `RSemaphore` (`RedissonSemaphore`), wire-identical: a string `N` holding the number of free
 * permits, and every change that frees permits publishes the new total on `redisson_sc:{N}`. Permits are
 * anonymous (no owner, no lease, no TTL): whoever holds the object may release, and a permit taken by a
 * process that dies is gone until someone adds it back.
 *
 * Waiters: one attempt; then subscribe, attempt again, and wait for a message — there is no time-based
 * retry, as in Redisson, so every path that frees permits publishes. A message `v` wakes up to `v` local
 * waiters, longest first (Redisson's `SemaphorePubSub`). Not fair: see docs/guides/synchronizers.md and COMPATIBILITY.md.
 */
import type { ClientContext } from '../ClientContext.js';
import { RExpirable } from '../RExpirable.js';
import { semaphoreChannelName } from '../keys.js';
import { semaphoreWakePolicy } from '../pubsub/wakePolicies.js';
import type { TimeUnit } from '../TimeUnit.js';
import { acquire, acquired, retryAfter, type Attempt } from '../wait/acquire.js';
import { traceRelease } from '../diagnostics.js';
import { parsePermitHold, type PermitHoldOptions, type TryPermitHoldOptions } from './holdArgs.js';
import { SemaphoreHold } from './SemaphoreHold.js';
import { MIN_PERMITS, parseAcquire, parseTryAcquire, requirePermits, requireTimeToLive, type SignalOptions } from '../args.js';

/**
 * A distributed counting semaphore. Obtain with `client.getSemaphore(name)`; set it up once with
 * {@link trySetPermits} (a missing semaphore has no permits, but {@link release} creates it).
 *
 * @example
 * ```ts
 * const slots = client.getSemaphore('encoder-slots');
 * await slots.trySetPermits(3);
 * await slots.acquire();
 * try { … } finally { await slots.release(); }
 * ```
 */
export class RSemaphore extends RExpirable {
  /** Diagnostics identity (see `RObject.primitive`). */
  static override readonly primitive: string = 'RSemaphore';
  // The base's context and key under the names this class's methods use.
  readonly #ctx: ClientContext;
  readonly #rawName: string;
  readonly #channel: string;

  /** @internal use `client.getSemaphore(name)`. */
  constructor(ctx: ClientContext, name: string) {
    super(ctx, name);
    this.#ctx = ctx;
    this.#rawName = this.rawName;
    this.#channel = semaphoreChannelName(this.rawName);
  }

  /**
   * Takes `permits` (default 1), waiting as long as it takes. Redisson `acquire()` / `acquire(permits)`.
   * `0` returns at once without a command, as in Redisson.
   * @throws RangeError | TypeError when `permits` is not an integer in [0, 2^31 - 1].
   * @throws RedisTimeoutError when the channel subscription is not confirmed within `subscriptionTimeout`.
   * @throws the signal's reason on abort; `RedissonShutdownError` when the client shuts down meanwhile.
   * @throws ConnectionLostError when the connection dropped with an attempt in flight: whether it took
   *   the permits is unknown (permits are anonymous, so nobody can tell afterwards; Redisson alike).
   */
  acquire(options?: SignalOptions): Promise<void>;
  acquire(permits: number, options?: SignalOptions): Promise<void>;
  async acquire(...args: unknown[]): Promise<void> {
    const { permits, waitMs, options } = parseAcquire(args);
    this.#ctx.ensureOpen();
    if (permits === 0) return;
    await this.#acquire(permits, waitMs, options.signal);
  }

  /**
   * Without a wait time: one attempt, never waits (Redisson `tryAcquire()` / `tryAcquire(permits)`). With
   * one: waits up to it (`tryAcquire(permits, waitTime, unit)`, or `tryAcquire(waitTime, unit)` for one
   * permit). `permits` `0` answers true without a command.
   * @returns true when the permits were taken.
   * @throws RangeError | TypeError on a bad count, time or unit, before anything is sent.
   * @example await slots.tryAcquire(2, 5, TimeUnit.SECONDS); // 2 permits, wait ≤ 5 s
   */
  tryAcquire(options?: SignalOptions): Promise<boolean>;
  tryAcquire(permits: number, options?: SignalOptions): Promise<boolean>;
  tryAcquire(waitTime: number, unit: TimeUnit, options?: SignalOptions): Promise<boolean>;
  tryAcquire(permits: number, waitTime: number, options?: SignalOptions): Promise<boolean>;
  tryAcquire(permits: number, waitTime: number, unit?: TimeUnit, options?: SignalOptions): Promise<boolean>;
  async tryAcquire(...args: unknown[]): Promise<boolean> {
    const { permits, waitMs, options } = parseTryAcquire(args);
    this.#ctx.ensureOpen();
    if (permits === 0) return true;
    return (await this.#acquire(permits, waitMs, options.signal)) !== null;
  }

  /**
   * Gives back `permits` (default 1) and publishes the new total, which wakes that many waiters per
   * process. Needs no earlier acquire; creates the semaphore when missing. `0` is a no-op. Redisson
   * `release(permits)`. Sent once: on `ConnectionLostError` the release may or may not have happened.
   * @throws RangeError | TypeError when `permits` is not an integer in [0, 2^31 - 1].
   */
  async release(permits = 1): Promise<void> {
    requirePermits(permits);
    this.#ctx.ensureOpen();
    if (permits === 0) return;
    await traceRelease({ ...this.diagnosticsTarget, permits }, () => true, () => this.#release(permits));
  }

  /**
   * {@link release}, but only when the semaphore exists (Redisson 4.0.0+ `releaseIfExists`).
   * @returns false when it does not exist (nothing changes), or for `0` permits.
   */
  async releaseIfExists(permits = 1): Promise<boolean> {
    requirePermits(permits);
    this.#ctx.ensureOpen();
    if (permits === 0) return false;
    const { executor } = this.#ctx;
    return (await executor.eval('semaphore/releaseIfExists', [this.#rawName, this.#channel], [permits])) === 1;
  }

  /** The number of free permits now (`0` when the semaphore does not exist; negative after a negative {@link addPermits}). */
  async availablePermits(): Promise<number> {
    this.#ctx.ensureOpen();
    const value = (await this.#ctx.executor.command('GET', this.#rawName)) as string | null;
    return value === null ? 0 : Number(value);
  }

  /**
   * Takes every free permit at once and answers how many there were (`0` for a missing semaphore).
   * Publishes nothing. Redisson `drainPermits()`.
   */
  async drainPermits(): Promise<number> {
    this.#ctx.ensureOpen();
    return (await this.#ctx.executor.eval('semaphore/drainPermits', [this.#rawName], [])) as number;
  }

  /**
   * Sets the number of free permits when the semaphore does not exist yet, and publishes it. Redisson
   * `trySetPermits(permits)` and, with a time to live, `trySetPermits(permits, timeToLive)` (3.29.0+).
   * @param permits any Java `int`, negative included (releases must then come first).
   * @param timeToLive optional: the key expires after it (in `unit`, default ms; at least 1 ms).
   * @returns false when it already exists (nothing changes).
   */
  async trySetPermits(permits: number, timeToLive?: number, unit?: TimeUnit): Promise<boolean> {
    requirePermits(permits, MIN_PERMITS);
    const ttl = timeToLive === undefined ? null : requireTimeToLive(timeToLive, unit);
    this.#ctx.ensureOpen();
    const { executor } = this.#ctx;
    const args = ttl === null ? [permits] : [permits, ttl];
    return (await executor.eval('semaphore/trySetPermits', [this.#rawName, this.#channel], args)) === 1;
  }

  /**
   * Sets the number of free permits, whatever it was, and publishes it. Not in Java's `RSemaphore` (its
   * deprecated `setPermits` went in Redisson 3.5.0): a SET and a publish that Java waiters understand.
   * Clears a time to live. Safe to repeat.
   * @param permits any Java `int`.
   */
  async setPermits(permits: number): Promise<void> {
    requirePermits(permits, MIN_PERMITS);
    this.#ctx.ensureOpen();
    const { executor } = this.#ctx;
    await executor.eval('semaphore/setPermits', [this.#rawName, this.#channel], [permits], 'idempotent');
  }

  /**
   * Adds `permits` free permits (negative: removes them; the count may go below 0), creating the
   * semaphore when missing, and publishes the new total. Redisson `addPermits(permits)`; clears a time
   * to live as Redisson's SET does. Sent once (Redisson retries it, which could add twice).
   * @param permits any Java `int`.
   */
  async addPermits(permits: number): Promise<void> {
    requirePermits(permits, MIN_PERMITS);
    this.#ctx.ensureOpen();
    const { executor } = this.#ctx;
    await executor.eval('semaphore/addPermits', [this.#rawName, this.#channel], [permits]);
  }

  /**
   * Takes `permits` (default 1), waiting as long as it takes, and returns them as a hold: release it once (or
   * `await using` it) and exactly those permits go back. {@link acquire} with a value to release.
   * @throws RangeError | TypeError on a bad option (`permits` must be at least 1), before anything is sent.
   * @throws the signal's reason on abort (permits landing then are given back); `RedissonShutdownError`.
   * @example
   * ```ts
   * await using slot = await slots.acquireHold({ permits: 2 });
   * await encode();
   * ```
   */
  async acquireHold(options?: PermitHoldOptions): Promise<SemaphoreHold> {
    const { permits, signal } = parsePermitHold('acquireHold', options, false, false);
    this.#ctx.ensureOpen();
    await this.#acquire(permits, -1, signal);
    return this.#holdOf(permits);
  }

  /**
   * Like {@link acquireHold}, but gives up: one attempt, or waits up to `waitTime` ms.
   * @returns the hold, or `null` when the permits were not taken in time (nothing is then taken).
   */
  async tryAcquireHold(options?: TryPermitHoldOptions): Promise<SemaphoreHold | null> {
    const { permits, waitMs, signal } = parsePermitHold('tryAcquireHold', options, true, false);
    this.#ctx.ensureOpen();
    return (await this.#acquire(permits, waitMs, signal)) === null ? null : this.#holdOf(permits);
  }

  /**
   * Runs `fn` with `permits` (default 1) taken, and always gives them back.
   * @throws whatever `fn` throws, once the permits are given back; the release's error when the release fails.
   * @example await slots.withPermits(() => encode(file), { permits: 2 });
   */
  async withPermits<R>(fn: () => R | Promise<R>, options?: PermitHoldOptions): Promise<R> {
    const hold = await this.acquireHold(options);
    try {
      return await fn();
    } finally {
      await hold.release();
    }
  }

  #holdOf(permits: number): SemaphoreHold {
    return new SemaphoreHold(permits, (n) => this.release(n));
  }

  #acquire(permits: number, waitMs: number, signal: AbortSignal | undefined): Promise<{ value: void } | null> {
    return acquire<void>({
      ctx: this.#ctx,
      attempt: () => this.#tryAcquireOnce(permits),
      // An acquisition that lands after an abort gives its permits back (and wakes whoever needs them).
      undo: () => this.#release(permits),
      mode: { channel: this.#channel, policy: semaphoreWakePolicy },
      // A release that freed too few permits for this waiter may still serve a smaller one behind it.
      passOnRefusedWake: permits > 1,
      waitMs,
      signal,
      trace: { ...this.diagnosticsTarget, permits },
    });
  }

  async #tryAcquireOnce(permits: number): Promise<Attempt<void>> {
    // Replicas that did not confirm it (Sentinel): the permits are given back before the retry (Redisson's handleNoSync).
    const undo = (reply: unknown): Promise<unknown> | undefined => (reply === 1 ? this.#release(permits) : undefined);
    const taken = await this.#ctx.executor.eval('semaphore/tryAcquire', [this.#rawName], [permits], 'never', undo);
    // No TTL to outwait: only a message says when to retry.
    return taken === 1 ? acquired(undefined) : retryAfter(-1);
  }

  #release(permits: number): Promise<unknown> {
    const { executor } = this.#ctx;
    return executor.eval('semaphore/release', [this.#rawName, this.#channel], [permits]);
  }
}
