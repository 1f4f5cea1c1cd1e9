/**
 * Redisson's `RCountDownLatch` (`RedissonCountDownLatch`), wire-identical: a string `N` holding the count
 * (missing ≡ 0) and the channel `redisson_countdownlatch__channel__{N}` — always braced, even when `N`
 * holds a `{` — on which `0` means "reached zero" (opens every waiter of every process) and `1` means "new
 * count set" or "deleted" (opens nobody).
 */
import type { ClientContext } from '../ClientContext.js';
import { requireInteger } from '../config.js';
import { RObject } from '../RObject.js';
import { countDownLatchChannelName } from '../keys.js';
import { latchWakePolicy, NEW_COUNT_MESSAGE, ZERO_COUNT_MESSAGE } from '../pubsub/wakePolicies.js';
import type { TimeUnit } from '../TimeUnit.js';
import { acquire, acquired, retryAfter, type Attempt } from '../wait/acquire.js';
import { parseAwait, type SignalOptions } from '../args.js';

/**
 * A distributed count-down latch. Obtain with `client.getCountDownLatch(name)`; arm it with
 * {@link trySetCount}; {@link countDown} from anywhere; {@link await} opens at zero.
 *
 * @example
 * ```ts
 * const ready = client.getCountDownLatch('workers-ready');
 * await ready.trySetCount(3);
 * // in each worker: await ready.countDown();
 * await ready.await(); // or: if (!(await ready.await(30, TimeUnit.SECONDS))) …
 * ```
 */
export class RCountDownLatch extends RObject {
  /** Diagnostics identity (see `RObject.primitive`). */
  static override readonly primitive: string = 'RCountDownLatch';
  readonly #channel: string;

  /** @internal use `client.getCountDownLatch(name)`. */
  constructor(ctx: ClientContext, name: string) {
    super(ctx, name);
    this.#channel = countDownLatchChannelName(this.rawName);
  }

  /**
   * Sets the count when the latch is not armed (missing, i.e. it reached zero or was never set), and
   * publishes `1`. Redisson `trySetCount(count)`.
   * @param count an integer ≥ 1 (Redisson also stores `0` or a negative count, which leaves a key that
   *   looks open yet refuses the next `trySetCount`; refused here).
   * @returns false when the latch is armed (nothing changes).
   * @throws RangeError | TypeError when `count` is not an integer in [1, 2^53 - 1].
   */
  async trySetCount(count: number): Promise<boolean> {
    requireInteger(count, 'count', 1, Number.MAX_SAFE_INTEGER);
    this.ctx.ensureOpen();
    const { executor } = this.ctx;
    const set = await executor.eval('countdownlatch/trySetCount', [this.rawName, this.#channel], [NEW_COUNT_MESSAGE, count]);
    return set === 1;
  }

  /**
   * Counts down by one; at zero the latch is deleted and `0` published, which opens every waiter.
   * Counting down a latch that is not armed changes nothing. Redisson `countDown()`. Sent once.
   */
  async countDown(): Promise<void> {
    this.ctx.ensureOpen();
    const { executor } = this.ctx;
    await executor.eval('countdownlatch/countDown', [this.rawName, this.#channel], [ZERO_COUNT_MESSAGE]);
  }

  /** The count now; `0` when the latch is not armed. Redisson `getCount()`. */
  async getCount(): Promise<number> {
    this.ctx.ensureOpen();
    return this.#count();
  }

  /**
   * Without a wait time: resolves once the count is zero, waiting as long as it takes (Redisson
   * `await()`). With one: waits up to it and answers whether the count reached zero (Redisson
   * `await(time, unit)`; `0` checks once).
   *
   * As in Redisson, only a `0` message makes a waiter look again: a latch deleted or re-armed while
   * waited on keeps its waiters waiting for the next time a count reaches zero.
   * @throws RedisTimeoutError (no wait time) when the channel subscription is not confirmed within
   *   `subscriptionTimeout`; with a wait time the call answers false instead.
   * @throws the signal's reason on abort; `RedissonShutdownError` when the client shuts down meanwhile.
   */
  await(options?: SignalOptions): Promise<void>;
  await(waitTime: number, options?: SignalOptions): Promise<boolean>;
  await(waitTime: number, unit?: TimeUnit, options?: SignalOptions): Promise<boolean>;
  async await(...args: unknown[]): Promise<boolean | void> {
    const { waitMs, timed, options } = parseAwait(args);
    this.ctx.ensureOpen();
    const opened = await acquire<void>({
      ctx: this.ctx,
      attempt: () => this.#check(),
      undo: () => Promise.resolve(),
      mode: { channel: this.#channel, policy: latchWakePolicy },
      waitMs,
      signal: options.signal,
      trace: this.diagnosticsTarget,
    });
    return timed ? opened !== null : undefined;
  }

  /**
   * Deletes the latch and publishes `1` (waiters are not opened). Redisson `delete()`.
   * @returns false when it did not exist (nothing published).
   */
  override async delete(): Promise<boolean> {
    this.ctx.ensureOpen();
    const { executor } = this.ctx;
    return (await executor.eval('countdownlatch/delete', [this.rawName, this.#channel], [NEW_COUNT_MESSAGE])) === 1;
  }

  async #count(): Promise<number> {
    const value = (await this.ctx.executor.command('GET', this.rawName)) as string | null;
    return value === null ? 0 : Number(value);
  }

  /** One look at the count: open at zero (or below); otherwise only a `0` message says when to look again. */
  async #check(): Promise<Attempt<void>> {
    return (await this.#count()) <= 0 ? acquired(undefined) : retryAfter(-1);
  }
}
