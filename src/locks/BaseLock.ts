/**
 * What every lock of the RLock family shares (Redisson's `RedissonBaseLock` plus the waiting half of
 * `RedissonLock`): owner ids, the lock/tryLock/unlock API with its overloads, the acquire loop, the unlock
 * request id and latch, the watchdog, lost-lock reporting and the ledger of holds. A concrete lock supplies
 * its scripts and names through the protected hooks below, as Redisson's subclasses override theirs.
 */
import { randomUUID } from 'node:crypto';
import type { ClientContext } from '../ClientContext.js';
import { mapName, requireThreadId, unlockLatchTtl } from '../config.js';
import { ConnectionLostError, IllegalMonitorStateError, LockLostError } from '../errors.js';
import { lockFieldName, unlockLatchName } from '../keys.js';
import { lockWakePolicy } from '../pubsub/wakePolicies.js';
import { lockRenewal, type RenewalKind } from '../renewal/LockRenewalScheduler.js';
import type { TimeUnit } from '../TimeUnit.js';
import { acquire, type Acquired, type Attempt, type WaitMode } from '../wait/acquire.js';
import { HoldLedger } from './HoldLedger.js';
import { parseOwnerOptions, parseTimes, type OwnerOptions, type WaitOptions } from './lockArgs.js';

/** The arguments of one acquire attempt, as a concrete lock's script needs them. */
export interface AcquireRequest {
  /** Lease sent to Redis (ms): the lease given, else the object's last lease (Redisson's `internalLockLeaseTime`). */
  readonly leaseMs: number;
  /** Whether a lease was given (no watchdog) or not (watchdog). */
  readonly watchdog: boolean;
  readonly field: string;
  readonly threadId: number;
  /** The call's wait: `0` a single attempt (a fair lock must not enqueue), `-1` unlimited, else ms. */
  readonly waitMs: number;
}

/**
 * A lock of the RLock family. Times are milliseconds unless a {@link TimeUnit} follows them; `-1` (or
 * omitting it) means "not given": a lock without a lease time is kept alive by the client's watchdog
 * until unlocked.
 * @typeParam T what an acquisition yields (`void`; a fencing token for FencedLock).
 */
export abstract class BaseLock<T = void> {
  protected readonly ctx: ClientContext;
  readonly #name: string;
  /** The Redis key: the name mapped by the client's NameMapper. */
  protected readonly rawName: string;
  #threadId: number | undefined;
  /** Redisson's `internalLockLeaseTime`: the TTL a reentrant unlock leaves behind. */
  protected internalLockLeaseTime: number;

  /** @internal obtained from the client's `get…` methods. */
  constructor(ctx: ClientContext, name: string) {
    this.ctx = ctx;
    this.#name = name;
    this.rawName = mapName(ctx.options.nameMapper, name);
    this.internalLockLeaseTime = ctx.options.lockWatchdogTimeout;
  }

  // ---- hooks a concrete lock supplies ------------------------------------------------------------

  /** One run of the acquire script. */
  protected abstract tryAcquire(request: AcquireRequest): Promise<Attempt<T>>;

  /**
   * One run of the unlock script for `field`, through `executor.eval(…, 'idempotent')` (its latch makes a
   * re-sent run harmless). Resolves `1` released, `0` still held (count decremented), `null` not held.
   */
  protected abstract unlockInner(field: string, latch: string, latchTtl: number, threadId: number): Promise<unknown>;

  /** Deletes the lock whoever holds it and publishes its release; true when something was deleted. */
  protected abstract forceUnlockInner(): Promise<boolean>;

  /** How a waiter of `threadId` learns that retrying is worth it: a channel and wake policy, or a back-off. */
  protected waitMode(_threadId: number): WaitMode {
    return { channel: this.channelName, policy: lockWakePolicy };
  }

  /** The lock's release channel (Redisson's `getChannelName()`). */
  protected abstract get channelName(): string;

  /** The hash field of `threadId` (Redisson's `getLockName(threadId)`). */
  protected fieldName(threadId: number): string {
    return lockFieldName(this.ctx.id, threadId);
  }

  /** How the watchdog renews this lock's holds. */
  protected get renewalKind(): RenewalKind {
    return lockRenewal;
  }

  /**
   * A waiting acquire ended without the lock (Redisson's `acquireFailed`; FairLock leaves its queue).
   * `waitMs` is the call's wait, as {@link AcquireRequest.waitMs}.
   */
  protected acquireFailed(_threadId: number, _waitMs: number): Promise<unknown> | undefined {
    return undefined;
  }

  // ---- the API ------------------------------------------------------------------------------------

  /** The name given to the client's `get…` method. */
  getName(): string {
    return this.#name;
  }

  /** The thread id this object uses when neither an explicit id nor a `runInThread` flow applies. */
  get threadId(): number {
    this.#threadId ??= this.ctx.allocateThreadId();
    return this.#threadId;
  }

  /**
   * Acquires the lock, waiting as long as it takes. Redisson `lock()` / `lock(leaseTime, unit)`.
   * @param leaseTime lease; omitted or `-1`: watchdog lease (`lockWatchdogTimeout`, renewed until unlock).
   * @throws RedisTimeoutError when the channel subscription is not confirmed within `subscriptionTimeout`.
   * @throws the signal's reason on abort; `RedissonShutdownError` when the client shuts down meanwhile.
   * @example await lock.lock(10, TimeUnit.SECONDS);
   */
  lock(options?: WaitOptions): Promise<void>;
  lock(leaseTime: number, options?: WaitOptions): Promise<void>;
  lock(leaseTime: number, unit?: TimeUnit, options?: WaitOptions): Promise<void>;
  async lock(...args: unknown[]): Promise<void> {
    const { times, options } = parseTimes('lock', args, ['leaseTime']);
    this.ctx.ensureOpen();
    await this.acquireWith(-1, times[0] ?? -1, options);
  }

  /**
   * Without arguments: one attempt, never waits (Redisson `tryLock()`). With a wait time: waits up to it.
   * Redisson `tryLock(waitTime, unit)` and `tryLock(waitTime, leaseTime, unit)`.
   * @returns true when acquired.
   * @example await lock.tryLock(100, 10, TimeUnit.SECONDS); // wait ≤ 100 s, lease 10 s
   */
  tryLock(options?: WaitOptions): Promise<boolean>;
  tryLock(waitTime: number, options?: WaitOptions): Promise<boolean>;
  tryLock(waitTime: number, unit?: TimeUnit, options?: WaitOptions): Promise<boolean>;
  tryLock(waitTime: number, leaseTime: number, options?: WaitOptions): Promise<boolean>;
  tryLock(waitTime: number, leaseTime: number, unit?: TimeUnit, options?: WaitOptions): Promise<boolean>;
  async tryLock(...args: unknown[]): Promise<boolean> {
    const { times, options } = parseTimes('tryLock', args, ['waitTime', 'leaseTime']);
    this.ctx.ensureOpen();
    const [waitTime, leaseTime = -1] = times;
    // No wait time: a single attempt. A wait of -1 in tryLock(wait, lease) is a single attempt too, as
    // Redisson's elapsed-time check makes it.
    return (await this.acquireWith(waitTime === undefined || waitTime < 0 ? 0 : waitTime, leaseTime, options)) !== null;
  }

  /**
   * Releases one hold. The final one deletes the lock and publishes its release, waking a waiter.
   * @throws LockLostError when the watchdog had found this owner's lock gone (lease ran out).
   * @throws IllegalMonitorStateError when the owner does not hold the lock.
   */
  async unlock(options?: OwnerOptions): Promise<void> {
    const threadId = this.owner(parseOwnerOptions(options));
    this.ctx.ensureOpen();
    await this.release(threadId);
  }

  /**
   * Deletes the lock whoever holds it and wakes a waiter. Redisson `forceUnlock()`.
   * @returns true when a lock was deleted.
   */
  async forceUnlock(): Promise<boolean> {
    this.ctx.ensureOpen();
    const deleted = await this.forceUnlockInner();
    this.ctx.renewal.removeAll(this.rawName);
    this.ctx.holds.forget(this.rawName);
    this.internalLockLeaseTime = this.ctx.options.lockWatchdogTimeout;
    return deleted;
  }

  /** True when anyone holds the lock (`EXISTS N`, on the master). */
  async isLocked(): Promise<boolean> {
    this.ctx.ensureOpen();
    return (await this.ctx.executor.command('EXISTS', this.rawName)) === 1;
  }

  /** True when the current owner (see README, "Thread identity") holds the lock. */
  isHeldByCurrentThread(options?: OwnerOptions): Promise<boolean> {
    return this.isHeldByThread(this.owner(parseOwnerOptions(options)));
  }

  /** True when thread `threadId` of this client holds the lock (`HEXISTS N <uuid>:<threadId>`). */
  async isHeldByThread(threadId: number): Promise<boolean> {
    requireThreadId(threadId);
    this.ctx.ensureOpen();
    return (await this.ctx.executor.command('HEXISTS', this.rawName, this.fieldName(threadId))) === 1;
  }

  /** The current owner's hold count; 0 when it does not hold the lock. */
  async getHoldCount(options?: OwnerOptions): Promise<number> {
    const threadId = this.owner(parseOwnerOptions(options));
    this.ctx.ensureOpen();
    const count = await this.ctx.executor.command('HGET', this.rawName, this.fieldName(threadId));
    return count === null ? 0 : Number(count);
  }

  /** Remaining lease in ms: `-2` when not locked, `-1` when the key has no expiry (`PTTL N`). */
  async remainTimeToLive(): Promise<number> {
    this.ctx.ensureOpen();
    return (await this.ctx.executor.command('PTTL', this.rawName)) as number;
  }

  // ---- machinery ----------------------------------------------------------------------------------

  /** The owner of a call: an explicit id, else the `runInThread` flow's, else this object's. */
  protected owner(options: OwnerOptions): number {
    return options.threadId ?? this.ctx.currentThreadId() ?? this.threadId;
  }

  /** Acquires with the loop of `wait/acquire`; `null` when the wait ran out. */
  protected acquireWith(waitMs: number, leaseMs: number, options: WaitOptions): Promise<Acquired<T>> {
    const threadId = this.owner(options);
    return acquire<T>({
      ctx: this.ctx,
      attempt: () => this.#attempt(leaseMs, threadId, waitMs),
      undo: () => this.release(threadId),
      giveUp: () => this.acquireFailed(threadId, waitMs),
      mode: this.waitMode(threadId),
      waitMs,
      signal: options.signal,
    });
  }

  /** Redisson's `unlockAsync(threadId)`; also used to undo a late acquisition during shutdown. */
  protected async release(threadId: number): Promise<void> {
    const field = this.fieldName(threadId);
    const key = HoldLedger.key(this.rawName, field);
    const { renewal, holds, options: config } = this.ctx;
    const kind = this.renewalKind;
    const doubt = holds.settle(key);
    if (doubt) await doubt;
    const leaseAfter = this.internalLockLeaseTime;
    let result: unknown;
    try {
      result = await this.#unlockOnce(field, threadId);
    } catch (error) {
      renewal.remove(kind, this.rawName, field);
      this.internalLockLeaseTime = config.lockWatchdogTimeout;
      throw error;
    }
    if (result !== null) {
      renewal.remove(kind, this.rawName, field);
      holds.unlocked(key, result, renewal.renews(kind, this.rawName, field) ? Infinity : performance.now() + leaseAfter);
      if (result === 1) this.internalLockLeaseTime = config.lockWatchdogTimeout;
      return;
    }
    holds.unlocked(key, null, 0);
    this.internalLockLeaseTime = config.lockWatchdogTimeout;
    // nil: this owner does not hold the lock. If the watchdog was renewing it (or already found it gone),
    // the lock was lost rather than never taken: say so, and report it once.
    const loss = renewal.takeLoss(kind, this.rawName, field);
    if (loss !== null && loss !== 'reported') this.ctx.reportLost(loss);
    throw loss
      ? new LockLostError(this.#name, this.ctx.id, threadId)
      : new IllegalMonitorStateError(this.#name, this.ctx.id, threadId);
  }

  /**
   * One logical unlock of `field` under a fresh request id (reused if the script is re-sent, as Redisson
   * 3.52+), then the latch deleted without waiting, as Redisson (shutdown still waits for it).
   */
  async #unlockOnce(field: string, threadId: number): Promise<unknown> {
    // 32 hex digits like Redisson's generateId(); randomUUID is far cheaper than randomBytes(16).
    const latch = unlockLatchName(this.rawName, randomUUID().replaceAll('-', ''));
    try {
      return await this.unlockInner(field, latch, unlockLatchTtl(this.ctx.options), threadId);
    } finally {
      this.ctx.executor.fireAndForget('DEL', latch);
    }
  }

  /** One attempt, with the ledger's bookkeeping and the watchdog registration. */
  async #attempt(leaseMs: number, threadId: number, waitMs: number): Promise<Attempt<T>> {
    const { renewal, holds } = this.ctx;
    const field = this.fieldName(threadId);
    const key = HoldLedger.key(this.rawName, field);
    const doubt = holds.settle(key);
    if (doubt) await doubt;
    // As Redisson: without a lease, the object's last lease time (initially lockWatchdogTimeout), so
    // lock(60 s) then lock() on the same object keeps a 60 s TTL until the watchdog's first renewal.
    const watchdog = leaseMs <= 0;
    const lease = watchdog ? this.internalLockLeaseTime : leaseMs;
    const started = performance.now();
    let result: Attempt<T>;
    try {
      result = await this.tryAcquire({ leaseMs: lease, watchdog, field, threadId, waitMs });
    } catch (error) {
      // The script may have run: learn the truth before this owner re-enters (see HoldLedger).
      if (error instanceof ConnectionLostError) this.ctx.keepUntilClosed(holds.doubt(key, () => this.#undoIfLanded(field, key, threadId)));
      throw error;
    }
    if (result.acquired) {
      const kind = this.renewalKind;
      if (watchdog) renewal.add(kind, this.rawName, field, threadId);
      else {
        this.internalLockLeaseTime = leaseMs;
        renewal.clearLost(kind, this.rawName, field);
      }
      holds.acquired(key, renewal.renews(kind, this.rawName, field) ? Infinity : started + lease);
    }
    return result;
  }

  /**
   * Settles an acquire whose reply was lost: when Redis shows more holds of `field` than the ledger expected,
   * the lost acquire landed, and it is undone (publishing the release if it was the only hold).
   */
  async #undoIfLanded(field: string, key: string, threadId: number): Promise<void> {
    const count = await this.ctx.executor.command('HGET', this.rawName, field);
    if (Number(count ?? 0) > this.ctx.holds.expected(key)) await this.#unlockOnce(field, threadId);
  }
}
