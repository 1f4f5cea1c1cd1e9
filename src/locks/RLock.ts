/**
 * Redisson's reentrant lock (`RedissonLock`), wire-identical: a hash `N` with one field
 * `<clientUUID>:<threadId>` → hold count, a PTTL lease, `0` published on `redisson_lock__channel:{N}`
 * at release, and the unlock latch of Redisson 3.24+.
 */
import { randomUUID } from 'node:crypto';
import type { ClientContext } from '../ClientContext.js';
import { requireThreadId, unlockLatchTtl } from '../config.js';
import { ConnectionLostError, IllegalMonitorStateError, LockLostError } from '../errors.js';
import { lockChannelName, lockFieldName, unlockLatchName } from '../keys.js';
import { HoldLedger } from './HoldLedger.js';
import { UNLOCK_MESSAGE } from '../pubsub/PublishSubscribe.js';
import type { TimeUnit } from '../TimeUnit.js';
import { parseOwnerOptions, parseTimes, type OwnerOptions, type WaitOptions } from './lockArgs.js';
import { waitForRelease } from './waitForRelease.js';

/**
 * A reentrant distributed lock. Obtain with `client.getLock(name)`.
 *
 * Times are milliseconds unless a {@link TimeUnit} follows them; `-1` (or omitting it) means "not given":
 * a lock without a lease time is kept alive by the client's watchdog until unlocked.
 */
export class RLock {
  readonly #ctx: ClientContext;
  readonly #name: string;
  readonly #rawName: string;
  readonly #channel: string;
  #threadId: number | undefined;
  // Redisson's `internalLockLeaseTime`: the TTL a reentrant unlock leaves behind.
  #internalLockLeaseTime: number;

  /** @internal use `client.getLock(name)`. */
  constructor(ctx: ClientContext, name: string) {
    this.#ctx = ctx;
    this.#name = name;
    this.#rawName = ctx.options.nameMapper.map(name);
    this.#channel = lockChannelName(this.#rawName);
    this.#internalLockLeaseTime = ctx.options.lockWatchdogTimeout;
  }

  /** The name given to `getLock`. */
  getName(): string {
    return this.#name;
  }

  /** The thread id this object uses when neither an explicit id nor a `runInThread` flow applies. */
  get threadId(): number {
    this.#threadId ??= this.#ctx.allocateThreadId();
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
    this.#ctx.ensureOpen();
    await this.#acquire(-1, times[0] ?? -1, options);
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
    this.#ctx.ensureOpen();
    const [waitTime, leaseTime = -1] = times;
    // No wait time: a single attempt. A wait of -1 in tryLock(wait, lease) is a single attempt too, as
    // Redisson's elapsed-time check makes it.
    return this.#acquire(waitTime === undefined || waitTime < 0 ? 0 : waitTime, leaseTime, options);
  }

  /**
   * Releases one hold. The final one deletes the lock and publishes `0`, waking a waiter.
   * @throws LockLostError when the watchdog had found this owner's lock gone (lease ran out).
   * @throws IllegalMonitorStateError when the owner does not hold the lock.
   */
  async unlock(options?: OwnerOptions): Promise<void> {
    const threadId = this.#owner(parseOwnerOptions(options));
    this.#ctx.ensureOpen();
    await this.#release(threadId);
  }

  /** Redisson's `unlockAsync(threadId)`; also used to undo a late acquisition during shutdown. */
  async #release(threadId: number): Promise<void> {
    const field = lockFieldName(this.#ctx.id, threadId);
    const key = HoldLedger.key(this.#rawName, field);
    const { renewal, holds, options: config } = this.#ctx;
    const doubt = holds.settle(key);
    if (doubt) await doubt;
    const leaseAfter = this.#internalLockLeaseTime;
    let result: unknown;
    try {
      result = await this.#unlockScript(field);
    } catch (error) {
      renewal.remove(this.#rawName, field);
      this.#internalLockLeaseTime = config.lockWatchdogTimeout;
      throw error;
    }
    if (result !== null) {
      renewal.remove(this.#rawName, field);
      holds.unlocked(key, result, renewal.renews(this.#rawName, field) ? Infinity : performance.now() + leaseAfter);
      if (result === 1) this.#internalLockLeaseTime = config.lockWatchdogTimeout;
      return;
    }
    holds.unlocked(key, null, 0);
    this.#internalLockLeaseTime = config.lockWatchdogTimeout;
    // nil: this owner does not hold the lock. If the watchdog was renewing it (or already found it gone),
    // the lock was lost rather than never taken: say so, and report it once.
    const loss = renewal.takeLoss(this.#rawName, field);
    if (loss !== null && loss !== 'reported') this.#ctx.reportLost(loss);
    throw loss
      ? new LockLostError(this.#name, this.#ctx.id, threadId)
      : new IllegalMonitorStateError(this.#name, this.#ctx.id, threadId);
  }

  /**
   * One logical unlock of `field`: the unlock script, retried with the same request id when the reply was
   * lost (as Redisson 3.52+: the latch answers a second run), then the latch deleted without waiting.
   * @returns the script's reply: `1` released, `0` still held (count decremented), `null` not held.
   */
  async #unlockScript(field: string): Promise<unknown> {
    // 32 hex digits like Redisson's generateId(); randomUUID is far cheaper than randomBytes(16).
    const requestId = randomUUID().replaceAll('-', '');
    const latch = unlockLatchName(this.#rawName, requestId);
    const { executor, pubsub, options: config } = this.#ctx;
    const keys = [this.#rawName, this.#channel, latch];
    const args = [UNLOCK_MESSAGE, this.#internalLockLeaseTime, field, pubsub.publishCommand, unlockLatchTtl(config)];
    try {
      for (let attempt = 0; ; attempt++) {
        try {
          return await executor.eval('lock/unlockInner', keys, args);
        } catch (error) {
          if (!(error instanceof ConnectionLostError) || attempt >= config.retryAttempts) throw error;
        }
      }
    } finally {
      // Fire and forget, as Redisson: not a third awaited round trip (shutdown still waits for it).
      executor.fireAndForget((r) => r.del(latch));
    }
  }

  /**
   * Settles an acquire whose reply was lost: when Redis shows more holds of `field` than the ledger expected,
   * the lost acquire landed, and it is undone (publishing the release if it was the only hold).
   */
  async #undoIfLanded(field: string, key: string): Promise<void> {
    const count = await this.#ctx.executor.run((r) => r.hget(this.#rawName, field));
    if (Number(count ?? 0) > this.#ctx.holds.expected(key)) await this.#unlockScript(field);
  }

  /**
   * Deletes the lock whoever holds it and wakes a waiter. Redisson `forceUnlock()`.
   * @returns true when a lock was deleted.
   */
  async forceUnlock(): Promise<boolean> {
    this.#ctx.ensureOpen();
    const result = await this.#ctx.executor.eval('lock/forceUnlock', [this.#rawName, this.#channel], [
      UNLOCK_MESSAGE,
      this.#ctx.pubsub.publishCommand,
    ]);
    this.#ctx.renewal.removeAll(this.#rawName);
    this.#ctx.holds.forget(this.#rawName);
    this.#internalLockLeaseTime = this.#ctx.options.lockWatchdogTimeout;
    return result === 1;
  }

  /** True when anyone holds the lock (`EXISTS N`, on the master). */
  async isLocked(): Promise<boolean> {
    this.#ctx.ensureOpen();
    return (await this.#ctx.executor.run((r) => r.exists(this.#rawName))) === 1;
  }

  /** True when the current owner (see README, "Thread identity") holds the lock. */
  isHeldByCurrentThread(options?: OwnerOptions): Promise<boolean> {
    return this.isHeldByThread(this.#owner(parseOwnerOptions(options)));
  }

  /** True when thread `threadId` of this client holds the lock (`HEXISTS N <uuid>:<threadId>`). */
  async isHeldByThread(threadId: number): Promise<boolean> {
    requireThreadId(threadId);
    this.#ctx.ensureOpen();
    const field = lockFieldName(this.#ctx.id, threadId);
    return (await this.#ctx.executor.run((r) => r.hexists(this.#rawName, field))) === 1;
  }

  /** The current owner's hold count; 0 when it does not hold the lock. */
  async getHoldCount(options?: OwnerOptions): Promise<number> {
    const threadId = this.#owner(parseOwnerOptions(options));
    this.#ctx.ensureOpen();
    const field = lockFieldName(this.#ctx.id, threadId);
    const count = await this.#ctx.executor.run((r) => r.hget(this.#rawName, field));
    return count === null ? 0 : Number(count);
  }

  /** Remaining lease in ms: `-2` when not locked, `-1` when the key has no expiry (`PTTL N`). */
  async remainTimeToLive(): Promise<number> {
    this.#ctx.ensureOpen();
    return this.#ctx.executor.run((r) => r.pttl(this.#rawName));
  }

  #owner(options: OwnerOptions): number {
    return options.threadId ?? this.#ctx.currentThreadId() ?? this.threadId;
  }

  async #acquire(waitMs: number, leaseMs: number, options: WaitOptions): Promise<boolean> {
    const threadId = this.#owner(options);
    return waitForRelease({
      ctx: this.#ctx,
      channel: this.#channel,
      attempt: () => this.#attempt(leaseMs, threadId),
      undo: () => this.#release(threadId),
      waitMs,
      signal: options.signal,
    });
  }

  /** One run of the acquire script; `null` when acquired, else the holder's PTTL. */
  async #attempt(leaseMs: number, threadId: number): Promise<number | null> {
    const { executor, renewal, holds } = this.#ctx;
    const field = lockFieldName(this.#ctx.id, threadId);
    const key = HoldLedger.key(this.#rawName, field);
    const doubt = holds.settle(key);
    if (doubt) await doubt;
    // As Redisson: without a lease, the object's last lease time (initially lockWatchdogTimeout), so
    // lock(60 s) then lock() on the same object keeps a 60 s TTL until the watchdog's first renewal.
    const lease = leaseMs > 0 ? leaseMs : this.#internalLockLeaseTime;
    const started = performance.now();
    let ttl: number | null;
    try {
      ttl = (await executor.eval('lock/tryLockInner', [this.#rawName], [lease, field])) as number | null;
    } catch (error) {
      // The script may have run: learn the truth before this owner re-enters (see HoldLedger).
      if (error instanceof ConnectionLostError) this.#ctx.keepUntilClosed(holds.doubt(key, () => this.#undoIfLanded(field, key)));
      throw error;
    }
    if (ttl === null) {
      if (leaseMs > 0) {
        this.#internalLockLeaseTime = leaseMs;
        renewal.clearLost(this.#rawName, field);
      } else renewal.add(this.#rawName, field, threadId);
      holds.acquired(key, renewal.renews(this.#rawName, field) ? Infinity : started + lease);
    }
    return ttl;
  }
}
