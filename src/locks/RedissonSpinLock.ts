/**
 * Redisson's spin lock (`RedissonSpinLock`, 3.15.0+), wire-identical: RLock's hash `N` (field
 * `<clientUUID>:<threadId>` → hold count), PTTL lease and watchdog, but no pub/sub at all. A waiter
 * sleeps between attempts as its {@link BackOff} says; an unlock publishes nothing.
 */
import type { ClientContext } from '../ClientContext.js';
import { lockChannelName } from '../keys.js';
import { acquired, retryAfter, type Attempt, type WaitMode } from '../wait/acquire.js';
import { backOffSleeps, type BackOff } from '../wait/backOff.js';
import { BaseLock, nilAcquired, type AcquireRequest } from './BaseLock.js';

/**
 * A reentrant lock whose waiters poll with a back-off instead of waiting for a release message: for many
 * short holds where a subscription per waiter costs more than a few extra attempts. Obtain with
 * `client.getSpinLock(name, backOff?)`.
 *
 * Its holds exclude RLock holders of the same name and the reverse, since both keep the same hash. But an
 * RLock waiter is not woken when a spin lock holder unlocks (nothing is published): it retries when the
 * holder's TTL runs out. A spin lock waiter sees any release at its next attempt.
 *
 * Times are milliseconds unless a {@link TimeUnit} follows them; `-1` (or omitting it) means "not given".
 * @example
 * const lock = client.getSpinLock('inventory', new ExponentialBackOff().maxDelay(50));
 * if (await lock.tryLock(2, 10, TimeUnit.SECONDS)) try { … } finally { await lock.unlock(); }
 */
export class RedissonSpinLock extends BaseLock {
  /** Diagnostics identity (see `RObject.primitive`). */
  static override readonly primitive: string = 'RedissonSpinLock';
  readonly #backOff: BackOff;
  readonly #channel: string;

  /** @internal use `client.getSpinLock(name, backOff?)`. */
  constructor(ctx: ClientContext, name: string, backOff: BackOff) {
    super(ctx, name);
    this.#backOff = backOff;
    this.#channel = lockChannelName(this.rawName);
  }

  /** Never subscribed to: a spin lock waiter backs off instead (see {@link waitMode}). */
  protected override get channelName(): string {
    return this.#channel;
  }

  /** A fresh policy of the lock's back-off per waiting call, as Redisson's `backOff.create()`. */
  protected override waitMode(): WaitMode {
    return { backoff: () => backOffSleeps(this.#backOff) };
  }

  /** RLock's acquire script (Redisson's spin lock script runs the same commands). */
  protected override async tryAcquireOnce({ leaseMs, field, threadId }: AcquireRequest): Promise<Attempt<void>> {
    // As Redisson: every attempt, taken or not, makes its lease the one a reentrant unlock re-applies.
    this.internalLockLeaseTime = leaseMs;
    const undo = this.undoUnsynced(field, threadId, nilAcquired);
    const ttl = (await this.ctx.executor.eval('lock/tryLockInner', [this.rawName], [leaseMs, field], 'never', undo)) as number | null;
    return ttl === null ? acquired(undefined) : retryAfter(ttl);
  }

  protected override unlockInner(field: string, latch: string, latchTtl: number): Promise<unknown> {
    return this.ctx.executor.eval('spinlock/unlockInner', [this.rawName, latch], [this.internalLockLeaseTime, field, latchTtl], 'idempotent');
  }

  /** `DEL N`, nothing published (Redisson's script does the same). */
  protected override async forceUnlockInner(): Promise<boolean> {
    return (await this.ctx.executor.command('DEL', this.rawName)) === 1;
  }
}
