/**
 * Redisson's fair lock (`RedissonFairLock`), wire-identical: RLock's hash `N`, lease and watchdog, plus a
 * waiting queue `redisson_lock_queue:{N}` (owner fields, head first) and the waiters' deadlines
 * `redisson_lock_timeout:{N}` (a zset of absolute ms on the waiters' own clocks). Each waiter listens on
 * its own channel `redisson_lock__channel:{N}:<clientUUID>:<threadId>`; a release tells only the head.
 */
import type { ClientContext } from '../ClientContext.js';
import { IllegalMonitorStateError } from '../errors.js';
import { fairLockQueueName, fairLockTimeoutName, fairLockWaiterChannelName, lockChannelName } from '../keys.js';
import { lockWakePolicy, UNLOCK_MESSAGE } from '../pubsub/wakePolicies.js';
import { acquired, retryAfter, type Attempt, type WaitMode } from '../wait/acquire.js';
import { BaseLock, nilAcquired, type AcquireRequest } from './BaseLock.js';

/**
 * How long (ms) a queued waiter waits before asking again when told `0`: the lock is free (or expiring)
 * but someone else heads the queue. That head is told when it may go and tells the next in turn, so a
 * `0` only needs polling when the head is gone for good (it is dropped once its deadline passes).
 * Redisson asks again at once; a floor keeps such a wait from hammering Redis.
 */
const QUEUED_RETRY_FLOOR_MS = 25;

/**
 * A reentrant lock granted in request order, across clients, processes and Java Redisson. Obtain with
 * `client.getFairLock(name)`.
 *
 * A waiting call (`lock()`, `tryLock(waitTime…)`) joins the queue; the lock goes to the head of the queue
 * only. A waiter that gives up — its wait ran out, its signal aborted it, its acquire failed — leaves the
 * queue. `tryLock()` without a wait time is a single attempt that never joins the queue: it succeeds only
 * when the lock is free and nobody is queued.
 *
 * A queued waiter that stays longer than its wait (the call's wait time, else the client's
 * `fairLockWaitTimeout`, 5 min) after its predecessor's deadline is taken for dead and dropped by the
 * next operation on the lock; it joins again at the tail on its next attempt. Deadlines are written with
 * each client's own clock (as Redisson does), so keep the clocks of all clients in sync.
 *
 * Unlike an RLock, unlocking a fair lock that no longer exists (its lease ran out) is not an error, as in
 * Redisson. Times are milliseconds unless a {@link TimeUnit} follows them; `-1` (or omitting it) means "not
 * given": a lock without a lease time is kept alive by the client's watchdog until unlocked.
 * @example
 * const lock = client.getFairLock('payouts');
 * await lock.lock();
 * try { … } finally { await lock.unlock(); }
 */
export class RedissonFairLock extends BaseLock {
  /** Diagnostics identity (see `RObject.primitive`). */
  static override readonly primitive: string = 'RedissonFairLock';
  readonly #channel: string;
  readonly #queue: string;
  readonly #timeouts: string;
  /** Owners whose last attempt was refused as a re-entry: they are not queued, so there is nothing to leave. */
  readonly #refusedReentry = new Set<number>();

  /** @internal use `client.getFairLock(name)`. */
  constructor(ctx: ClientContext, name: string) {
    super(ctx, name);
    this.#channel = lockChannelName(this.rawName);
    this.#queue = fairLockQueueName(this.rawName);
    this.#timeouts = fairLockTimeoutName(this.rawName);
  }

  /**
   * The error message a re-entry gets from the acquire scripts instead of a second hold, or `null` for
   * a reentrant lock (see {@link RedissonNonReentrantFairLock}).
   */
  protected get reentryError(): string | null {
    return null;
  }

  /** The base of every waiter's channel; nobody listens on it (Redisson's `getChannelName()`). */
  protected override get channelName(): string {
    return this.#channel;
  }

  /**
   * The hash, the queue and the deadlines: what `delete`, `sizeInMemory` and the expiry methods act on, as
   * Redisson's overrides list them.
   */
  protected override get objectKeys(): readonly string[] {
    return [this.rawName, this.#queue, this.#timeouts];
  }

  /**
   * Deletes the lock, its queue and its deadlines (`DEL N redisson_lock_queue:{N} redisson_lock_timeout:{N}`),
   * whoever holds it; publishes nothing (queued waiters find the lock free at their next attempt). Redisson's
   * `RedissonFairLock.delete()`.
   * @returns true when any of the three existed.
   */
  override delete(): Promise<boolean> {
    return this.deleteObjectKeys();
  }

  /**
   * @internal None for a MultiLock: a fair lock's release wakes only the head of its queue, and a MultiLock's
   * single attempts never queue. The refusal's TTL (the queue's estimate) bounds its wait instead.
   */
  override releaseChannel(): null {
    return null;
  }

  /** A waiter listens on its own channel, `redisson_lock__channel:{N}:<clientUUID>:<threadId>`. */
  protected override waitMode(threadId: number): WaitMode {
    return { channel: fairLockWaiterChannelName(this.rawName, this.fieldName(threadId)), policy: lockWakePolicy };
  }

  /**
   * One attempt: `fairlock/tryLockOnce` for a single attempt (never queues), else `fairlock/tryLockInner`
   * (takes the lock when free and at the head, else queues or stays queued).
   */
  protected override async tryAcquireOnce({ leaseMs, field, threadId, waitMs }: AcquireRequest): Promise<Attempt<void>> {
    const keys = [this.rawName, this.#queue, this.#timeouts];
    const wait = this.#queueWait(waitMs);
    // Redisson's clock: the caller's wall clock, not the server's (deadlines are compared across clients).
    const now = Date.now();
    const reentry = this.reentryError;
    const extra = reentry === null ? [] : [reentry];
    let reply: unknown;
    try {
      reply =
        waitMs === 0
          ? await this.ctx.executor.eval('fairlock/tryLockOnce', keys, [leaseMs, field, now, wait, ...extra], 'never', this.undoUnsynced(field, threadId, nilAcquired))
          : await this.ctx.executor.eval('fairlock/tryLockInner', keys, [leaseMs, field, wait, now, ...extra], 'never', this.undoUnsynced(field, threadId, nilAcquired));
    } catch (error) {
      if (reentry !== null && error instanceof Error && error.message.includes(reentry)) {
        if (waitMs !== 0) this.#refusedReentry.add(threadId);
        throw new IllegalMonitorStateError(
          this.getName(),
          this.ctx.id,
          threadId,
          `Lock '${this.rawName}' is non-reentrant and is already held by thread ${threadId} (node id: ${this.ctx.id})`,
          { cause: error },
        );
      }
      throw error;
    }
    if (reply === null) return acquired(undefined);
    const ttl = reply as number;
    if (waitMs === 0) return retryAfter(0);
    // -1: a lock without expiry; only its release message says when (as Redisson). 0 and -2: the lock is
    // free or expiring while someone else heads the queue; ask again shortly.
    return retryAfter(ttl === -1 ? -1 : Math.max(ttl, QUEUED_RETRY_FLOOR_MS));
  }

  /** `fairlock/acquireFailed`: leave the queue, moving the deadlines behind up by the wait queued with. */
  protected override acquireFailed(threadId: number, waitMs: number): Promise<unknown> | undefined {
    // As Redisson, whose acquire throws before any clean-up: the owner holds the lock, it is not queued.
    if (this.#refusedReentry.delete(threadId)) return undefined;
    const { executor } = this.ctx;
    return executor.eval(
      'fairlock/acquireFailed',
      [this.#queue, this.#timeouts, this.rawName, this.#channel],
      [this.fieldName(threadId), this.#queueWait(waitMs), UNLOCK_MESSAGE],
      // Redisson 4.7 retries it: a second run finds the waiter gone and changes nothing.
      'idempotent',
    );
  }

  protected override unlockInner(field: string, latch: string, latchTtl: number): Promise<unknown> {
    const { executor } = this.ctx;
    return executor.eval(
      'fairlock/unlockInner',
      [this.rawName, this.#queue, this.#timeouts, this.#channel, latch],
      [UNLOCK_MESSAGE, this.internalLockLeaseTime, field, Date.now(), latchTtl],
      'idempotent',
    );
  }

  protected override async forceUnlockInner(): Promise<boolean> {
    const { executor } = this.ctx;
    const keys = [this.rawName, this.#queue, this.#timeouts, this.#channel];
    return (await executor.eval('fairlock/forceUnlock', keys, [UNLOCK_MESSAGE, Date.now()])) === 1;
  }

  /** A waiter's wait as Redisson computes it: the call's wait time when it has one, else `fairLockWaitTimeout`. */
  #queueWait(waitMs: number): number {
    return waitMs > 0 ? waitMs : this.ctx.options.fairLockWaitTimeout;
  }
}
