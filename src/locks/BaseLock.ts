/**
 * What every lock of the RLock family shares (Redisson's `RedissonBaseLock` plus the waiting half of
 * `RedissonLock`): owner ids, the lock/tryLock/unlock API with its overloads, the acquire loop, the unlock
 * request id and latch, the watchdog, lost-lock reporting and the ledger of holds. A concrete lock supplies
 * its scripts and names through the protected hooks below, as Redisson's subclasses override theirs.
 */
import type { ClientContext } from '../ClientContext.js';
import { traceRelease, type DiagnosticsTarget, type TraceSource } from '../diagnostics.js';
import { requireThreadId, unlockLatchTtl } from '../config.js';
import { ConnectionLostError, IllegalMonitorStateError, IllegalStateError, LockLostError, RedisTimeoutError } from '../errors.js';
import { lockFieldName, unlockLatchName } from '../keys.js';
import { newRequestId } from '../requestId.js';
import { lockWakePolicy } from '../pubsub/wakePolicies.js';
import { lockRenewal, type RenewalKind } from '../renewal/LockRenewalScheduler.js';
import type { TimeUnit } from '../TimeUnit.js';
import { acquire, type AcquireParams, type Acquired, type Attempt, type WaitMode } from '../wait/acquire.js';
import { Canceller } from '../wait/AbortScope.js';
import { AutoOwners, selfWaitWarning, type Pending } from './AutoOwners.js';
import { parseHoldOptions, type HoldOptions, type TryHoldOptions } from './holdArgs.js';
import { LockHold } from './LockHold.js';
import { watchLease } from './leaseWatch.js';
import { HoldLedger } from './HoldLedger.js';
import { noteLease, ON_REFUSED, parseOwnerOptions, parseTimes, type OwnerOptions, type WaitOptions } from '../args.js';
import { RExpirable } from '../RExpirable.js';
import type { MemberChannel } from './multiLockRound.js';
import type { HandoffTerms } from '../pubsub/PublishSubscribe.js';
import { registerMemberKey } from './memberIdentity.js';

/**
 * The unlock reply under which the owner still holds the lock: its count was decremented. Every other
 * non-null reply ends the owner's hold — the lock released (`1`), or {@link OWNER_LEFT}.
 */
const STILL_HELD = 0;
/** The lock was released: deleted, its release published. */
const RELEASED = 1;
/**
 * The owner's last hold is gone but the lock stays held by others (a reader leaving other readers, or its own
 * write hold). Our read-unlock script's own reply; Redisson's answers `0`, as for a decremented count.
 */
const OWNER_LEFT = 2;

/** What an acquisition yields, and whose hold it is. */
export interface Held<T> {
  readonly value: T;
  readonly threadId: number;
}

/**
 * A public acquiring call in flight, which `unlock()` may cancel: the promise handed to its caller, marked
 * handled on cancel ({@link markHandled}).
 */
interface TrackedCall {
  promise?: Promise<unknown>;
}

/** A cancelled call's promise: a forgotten `await` must not crash the process with an unhandled rejection. */
function markHandled(call: TrackedCall | undefined): void {
  void call?.promise?.catch(toUndefined);
}

// Module-level: a callback made inside a call would keep that call's context alive while it waits.
const toUndefined = (): undefined => undefined;
const isAcquired = (result: Acquired<unknown>): boolean => result !== null;
/** For {@link BaseLock.undoUnsynced}: an acquire script that answers nil when it took the lock (made once, not per attempt). */
export const nilAcquired = (reply: unknown): boolean => reply === null;

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

/** {@link BaseLock}'s private steps, for its {@link LockCall}s (set in BaseLock's static block). */
interface LockSteps {
  attempt<T>(lock: BaseLock<T>, leaseMs: number, threadId: number, waitMs: number): Promise<Attempt<T>>;
  release(lock: BaseLock<unknown>, threadId: number): Promise<void>;
  acquireFailed(lock: BaseLock<unknown>, threadId: number, waitMs: number): Promise<unknown> | undefined;
  trace(lock: BaseLock<unknown>, threadId: number, leaseMs: number): DiagnosticsTarget;
  ctx(lock: BaseLock<unknown>): ClientContext;
  handoffTerms(lock: BaseLock<unknown>, threadId: number, leaseMs: number): HandoffTerms | null;
  handedOff(lock: BaseLock<unknown>, threadId: number, leaseMs: number, terms: HandoffTerms): void;
  handoffDoubt(lock: BaseLock<unknown>, threadId: number, terms: HandoffTerms): void;
  mode(lock: BaseLock<unknown>, threadId: number): WaitMode;
}
let lockSteps: LockSteps;

/**
 * A lock of the RLock family. Times are milliseconds unless a {@link TimeUnit} follows them; `-1` (or
 * omitting it) means "not given": a lock without a lease time is kept alive by the client's watchdog
 * until unlocked.
 * @typeParam T what an acquisition yields (`void`; a fencing token for FencedLock).
 */
export abstract class BaseLock<T = void> extends RExpirable {
  readonly #auto: AutoOwners;
  /** Redisson's `internalLockLeaseTime`: the TTL a reentrant unlock leaves behind. */
  protected internalLockLeaseTime: number;
  // Bumped whenever a leased hold sets internalLockLeaseTime: a release's reset must not undo the lease of a hold
  // taken meanwhile (a waiter of this object granted by this very release: direct handoff).
  #leaseSets = 0;

  /**
   * @internal obtained from the client's `get…` methods.
   * @param auto owners of acquisitions that name none, when shared with other objects (the two halves of
   *   one ReadWriteLock); by default this object's own.
   */
  constructor(ctx: ClientContext, name: string, auto?: AutoOwners) {
    super(ctx, name);
    this.internalLockLeaseTime = ctx.options.lockWatchdogTimeout;
    this.#auto = auto ?? new AutoOwners(ctx, ctx.options.lockOwnership === 'object');
    // What a RedLock compares to refuse one lock given twice (memberIdentity.ts).
    registerMemberKey(this, { ctx, rawName: this.rawName });
  }

  // ---- hooks a concrete lock supplies ------------------------------------------------------------

  /** One run of the acquire script. */
  protected abstract tryAcquireOnce(request: AcquireRequest): Promise<Attempt<T>>;

  /**
   * For a lock whose attempt is one script read by {@link readAttempt}: sends it and returns its reply, so that an
   * attempt costs one promise reaction, not {@link tryAcquireOnce}'s frame under the attempt's own (issue 29).
   * `undefined` (the default): the attempt is {@link tryAcquireOnce}. A subclass that overrides
   * `tryAcquireOnce` of a lock that overrides this must override this too.
   */
  protected sendAttempt(_request: AcquireRequest): Promise<unknown> | undefined {
    return undefined;
  }

  /** What the reply of {@link sendAttempt} says. */
  protected readAttempt(reply: unknown): Attempt<T> {
    return reply as Attempt<T>;
  }

  /**
   * One run of the unlock script for `field`, through `executor.eval(…, 'idempotent')` (its latch makes a
   * re-sent run harmless). Resolves `1` released, `0` still held by this owner (count decremented), `2` this
   * owner's hold is gone while others still hold the lock (a read lock: see {@link OWNER_LEFT}), `null` not held.
   */
  protected abstract unlockInner(field: string, latch: string, latchTtl: number, threadId: number): Promise<unknown>;

  /** Deletes the lock whoever holds it and publishes its release; true when something was deleted. */
  protected abstract forceUnlockInner(): Promise<boolean>;

  /**
   * For an acquire script's `executor.eval`: when its replicas did not confirm it (`NoSyncedSlavesError`,
   * Sentinel deployments only) and `acquiredReply` says it took the lock, the hold is given back before the
   * acquire is retried — Redisson's `handleNoSync`: the unlock script with a fresh request id.
   */
  protected undoUnsynced(field: string, threadId: number, acquiredReply: (reply: unknown) => boolean): ((reply: unknown) => Promise<unknown> | undefined) | undefined {
    // Only a write that replicas must confirm is ever undone: none on a single server (no closure per attempt).
    if (this.ctx.executor.sync === null) return undefined;
    return (reply) => {
      if (!acquiredReply(reply)) return undefined;
      const latch = this.#latchName();
      return this.unlockInner(field, latch, unlockLatchTtl(this.ctx.options), threadId);
    };
  }

  /**
   * Whether a release of this lock by another owner of this client may write this lock's waiter's hold itself
   * (direct handoff, issue 29): only where that write is exactly what this lock's own acquire script writes on
   * a free lock (the field with count 1 and the lease). RLock says yes.
   */
  protected get takesHandoff(): boolean {
    return false;
  }

  /** How a waiter of `threadId` learns that retrying is worth it: a channel and wake policy, or a back-off. */
  protected waitMode(_threadId: number): WaitMode {
    return { channel: this.channelName, policy: lockWakePolicy };
  }

  /** The lock's release channel (Redisson's `getChannelName()`). */
  protected abstract get channelName(): string;

  /**
   * @internal What a MultiLock / RedLock waiting for this member after it refused `threadId` listens to: the
   * channel a release of this lock is published on, on this lock's own client; `null` when no such message
   * tells it (FairLock wakes only its queue's head, SpinLock publishes nothing): the refusal's TTL bounds its
   * wait instead.
   */
  releaseChannel(threadId: number): MemberChannel | null {
    const mode = this.waitMode(threadId);
    if (!('channel' in mode)) return null;
    const { pubsub, options } = this.ctx;
    return { pubsub, channel: mode.channel, policy: mode.policy, subscriptionTimeout: options.subscriptionTimeout };
  }

  /** The hash field of `threadId` (Redisson's `getLockName(threadId)`). */
  protected fieldName(threadId: number): string {
    return lockFieldName(this.ctx.id, threadId);
  }

  /**
   * The last owner's hash field and ledger key, made once for it. Every lock() and unlock() looks both up in the
   * ledger's and the watchdog's maps: a key string built per call is flattened and hashed again per lookup, a kept
   * one only once (issue 29).
   */
  #owner: { readonly threadId: number; readonly field: string; readonly key: string } | undefined;

  #ownerOf(threadId: number): { readonly field: string; readonly key: string } {
    const owner = this.#owner;
    if (owner !== undefined && owner.threadId === threadId) return owner;
    const field = this.fieldName(threadId);
    const made = { threadId, field, key: HoldLedger.key(this.rawName, field) };
    this.#owner = made;
    return made;
  }

  // `redisson_unlock_latch:{N}:`, made once per object.
  #latchPrefix: string | undefined;

  /** A fresh unlock latch name: `redisson_unlock_latch:{N}:<32 hex digits>`, as Redisson's `generateId()`. */
  #latchName(): string {
    this.#latchPrefix ??= unlockLatchName(this.rawName, '');
    return this.#latchPrefix + newRequestId();
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

  /** How many holds owner `field` has in Redis now (Redisson's `getHoldCount`: `HGET N <field>`). */
  protected async holdCountOf(field: string): Promise<number> {
    return Number((await this.ctx.executor.command('HGET', this.rawName, field)) ?? 0);
  }

  // ---- the API ------------------------------------------------------------------------------------

  /**
   * The owner id of this object's current hold when it holds the lock without a named owner, else the
   * object's own id (the one an acquisition on the idle object uses). See docs/guides/thread-identity.md.
   */
  get threadId(): number {
    return this.#auto.current ?? this.#auto.primary;
  }

  /**
   * Acquires the lock, waiting as long as it takes. Redisson `lock()` / `lock(leaseTime, unit)`.
   * `leaseTime`: the lease; omitted or `-1`: watchdog lease (`lockWatchdogTimeout`, renewed until unlock).
   * @throws RedisTimeoutError when the channel subscription is not confirmed within `subscriptionTimeout`.
   * @throws the signal's reason on abort; `RedissonShutdownError` when the client shuts down meanwhile.
   * @example await lock.lock(10, TimeUnit.SECONDS);
   */
  lock(options?: WaitOptions): Promise<void>;
  lock(leaseTime: number, options?: WaitOptions): Promise<void>;
  lock(leaseTime: number, unit?: TimeUnit, options?: WaitOptions): Promise<void>;
  lock(...args: unknown[]): Promise<void> {
    return this.#tracked((call) => {
      const { times, options } = parseTimes('lock', args, ['leaseTime']);
      this.ctx.ensureOpen();
      noteLease(this.ctx, this.getName(), times[0] ?? -1);
      return acquire<T>(this.#request(-1, times[0] ?? -1, options, call)).then(toUndefined);
    });
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
  tryLock(...args: unknown[]): Promise<boolean> {
    return this.#tracked((call) => {
      const { times, options } = parseTimes('tryLock', args, ['waitTime', 'leaseTime']);
      this.ctx.ensureOpen();
      const [waitTime, leaseTime = -1] = times;
      noteLease(this.ctx, this.getName(), leaseTime);
      // No wait time: a single attempt. A wait of -1 in tryLock(wait, lease) is a single attempt too, as
      // Redisson's elapsed-time check makes it.
      return acquire<T>(this.#request(waitTime === undefined || waitTime < 0 ? 0 : waitTime, leaseTime, options, call)).then(isAcquired);
    });
  }

  /**
   * Acquires the lock, waiting as long as it takes, and returns the hold: release it once (or `await using`
   * it), pass `hold.signal` to the guarded work. Each call is an owner of its own unless `threadId` or a
   * `runInThread` flow says otherwise, so concurrent flows sharing one lock object exclude each other.
   * @example
   * ```ts
   * await using hold = await lock.acquire();
   * await chargeCard(order, { signal: hold.signal });
   * ```
   */
  acquire(options?: HoldOptions): Promise<LockHold<T>> {
    return this.#tracked(async (call) => {
      const { leaseMs, owner } = parseHoldOptions('acquire', options, false);
      this.ctx.ensureOpen();
      noteLease(this.ctx, this.getName(), leaseMs);
      return this.#hold((await this.acquireWith(-1, leaseMs, owner, call)) as Held<T>, leaseMs);
    });
  }

  /**
   * Like {@link acquire}, but gives up: one attempt, or waits up to `waitTime` ms.
   * @returns the hold, or `null` when the lock was not acquired in time.
   */
  tryAcquire(options?: TryHoldOptions): Promise<LockHold<T> | null> {
    return this.#tracked(async (call) => {
      const { leaseMs, waitMs, owner } = parseHoldOptions('tryAcquire', options, true);
      this.ctx.ensureOpen();
      noteLease(this.ctx, this.getName(), leaseMs);
      const held = await this.acquireWith(waitMs, leaseMs, owner, call);
      return held === null ? null : this.#hold(held, leaseMs);
    });
  }

  /**
   * Runs `fn` under the lock and always releases it (redlock's `using`). `fn` gets the hold's signal, aborted
   * if the lock is lost meanwhile.
   * @throws whatever `fn` throws; `LockLostError` from the release when the lock was lost during `fn`.
   * @example await lock.withLock(async (signal) => { await reserveStock(item, { signal }); });
   */
  async withLock<R>(fn: (signal: AbortSignal) => R | Promise<R>, options?: HoldOptions): Promise<R> {
    const hold = await this.acquire(options);
    try {
      return await fn(hold.signal);
    } finally {
      await hold.release();
    }
  }

  /**
   * Releases one hold. The final one deletes the lock and publishes its release, waking a waiter.
   * @throws LockLostError when the watchdog had found this owner's lock gone (lease ran out).
   * @throws IllegalMonitorStateError when the owner does not hold the lock.
   */
  async unlock(options?: OwnerOptions): Promise<void> {
    const parsed = parseOwnerOptions(options);
    this.ctx.ensureOpen();
    const named = parsed.threadId ?? this.ctx.currentThreadId();
    if (named === undefined && this.#auto.current === undefined) {
      // Nothing held by this object, but a lock() of it still pending: a lock() that was not awaited. It is
      // cancelled (a hold that still lands is released), so the watchdog never keeps it alive unnoticed.
      const error = new IllegalMonitorStateError(
        this.getName(),
        this.ctx.id,
        this.#auto.primary,
        `unlock() of '${this.getName()}' was called while lock() of this object had not completed (was it awaited?); that acquisition was cancelled`,
      );
      if (this.#auto.cancelOldestPending(error)) {
        process.emitWarning(error.message, { code: 'REDISSON_TS_UNAWAITED_LOCK' });
        throw error;
      }
    }
    // Each unlock without a named owner takes the oldest hold no other unlock in flight is releasing: two
    // flows reading through one shared object and unlocking at once release one hold each.
    const claimed = named === undefined ? this.#auto.claim() : undefined;
    try {
      await this.#releaseTraced(named ?? claimed ?? this.threadId);
    } finally {
      if (claimed !== undefined) this.#auto.unclaim(claimed);
    }
  }

  /**
   * Deletes the lock whoever holds it and wakes a waiter. Redisson `forceUnlock()`.
   * @returns true when a lock was deleted.
   */
  async forceUnlock(): Promise<boolean> {
    this.ctx.ensureOpen();
    const deleted = await this.forceUnlockInner();
    this.#forgetHolds();
    return deleted;
  }

  /**
   * Deletes the lock whoever holds it: Redisson's `RedissonBaseLock.delete()`, which is its `forceUnlock()`
   * (the release is published and wakes a waiter). FairLock and FencedLock delete their keys instead, as
   * Redisson's overrides do (see {@link deleteObjectKeys}).
   * @returns true when a lock was deleted.
   */
  override delete(): Promise<boolean> {
    return this.forceUnlock();
  }

  /**
   * `DEL` of every key of the lock (the hash and what is kept beside it), nothing published — Redisson's
   * `delete()` of FairLock and FencedLock. This client's holds of the lock end, as after a forceUnlock.
   */
  protected async deleteObjectKeys(): Promise<boolean> {
    const deleted = await super.delete();
    this.#forgetHolds();
    return deleted;
  }

  /**
   * Milliseconds the lock has left (`PTTL N`): `-2` when it is not locked, `-1` when it does not expire.
   * Redisson `remainTimeToLive()`.
   */
  override remainTimeToLive(): Promise<number> {
    return super.remainTimeToLive();
  }

  /** True when anyone holds the lock (`EXISTS N`, on the master). */
  async isLocked(): Promise<boolean> {
    return this.isExists();
  }

  /** True when the current owner (see docs/guides/thread-identity.md) holds the lock. */
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
    return this.holdCountOf(this.fieldName(threadId));
  }

  // ---- machinery ----------------------------------------------------------------------------------

  /** A new expiry of the lock: holds that are not renewed end then (a watchdog's next renewal extends it again). */
  protected override expiryChanged(until: number): void {
    this.ctx.holds.expireAll(this.rawName, until);
  }

  /** The lock is gone: no renewal, no hold of this client, the lease back to the default. */
  #forgetHolds(): void {
    this.ctx.renewal.removeAll(this.rawName);
    this.ctx.holds.forget(this.rawName);
    this.internalLockLeaseTime = this.ctx.options.lockWatchdogTimeout;
  }

  /** The owner a query or unlock acts for: an explicit id, else the `runInThread` flow's, else this object's hold. */
  protected owner(options: OwnerOptions): number {
    return options.threadId ?? this.ctx.currentThreadId() ?? this.threadId;
  }

  /**
   * Acquires with the loop of `wait/acquire`; `null` when the wait ran out. Without a named owner the
   * acquisition gets one of its own (see AutoOwners); `call` lets `unlock()` cancel it.
   */
  protected acquireWith(waitMs: number, leaseMs: number, options: WaitOptions, call?: TrackedCall): Promise<Held<T> | null> {
    const request = this.#request(waitMs, leaseMs, options, call);
    return acquire<T>(request).then((result) => (result === null ? null : { value: result.value, threadId: request.threadId }));
  }

  /**
   * The acquire loop's parameters for one call. Without a named owner the acquisition gets one of its own (see
   * AutoOwners) and is pending on this object until the loop settles, which `unlock()` may cancel. Not an async
   * function: a parked `lock()` then keeps one suspended frame (the loop's), not two (issue 29).
   */
  #request(waitMs: number, leaseMs: number, options: WaitOptions, call: TrackedCall | undefined): LockCall<T> {
    const named = options.threadId ?? this.ctx.currentThreadId();
    const onRefused = options[ON_REFUSED];
    if (named !== undefined) return new LockCall<T>(this, named, waitMs, leaseMs, options.signal, onRefused, undefined, null);
    // unlock() may cancel this acquisition (a lock() that was not awaited): the call is its own Canceller and
    // the owners' pending entry, so a parked waiter keeps one object here.
    const request = new LockCall<T>(this, this.#auto.next(), waitMs, leaseMs, options.signal, onRefused, call, this.#auto);
    this.#auto.add(request);
    // A wait on a hold of this very object may be a re-lock in the same flow, which waits for itself.
    if (waitMs !== 0 && this.#auto.exclusive && this.#auto.holding) {
      request.warn = setTimeout(() => process.emitWarning(selfWaitWarning(this.getName(), this.ctx.options.lockWatchdogTimeout), { code: 'REDISSON_TS_SELF_WAIT' }), this.ctx.options.lockWatchdogTimeout).unref();
    }
    return request;
  }

  static {
    // The private steps a LockCall runs for its lock (a class of this module, but not of this class).
    lockSteps = {
      attempt: (lock, leaseMs, threadId, waitMs) => lock.#attempt(leaseMs, threadId, waitMs),
      release: (lock, threadId) => lock.release(threadId),
      acquireFailed: (lock, threadId, waitMs) => lock.acquireFailed(threadId, waitMs),
      trace: (lock, threadId, leaseMs) => lock.#trace(threadId, leaseMs),
      ctx: (lock) => lock.ctx,
      mode: (lock, threadId) => lock.waitMode(threadId),
      handoffTerms: (lock, threadId, leaseMs) => lock.#handoffTerms(threadId, leaseMs),
      handedOff: (lock, threadId, leaseMs, terms) => lock.#tookHold(terms.field, threadId, leaseMs, terms.leaseMs, terms.since),
      handoffDoubt: (lock, threadId, terms) => lock.#settleGrant(terms.field, threadId),
    };
  }

  /** What the diagnostics channels report about an operation of `owner`. */
  #trace(owner: number, leaseMs?: number): DiagnosticsTarget {
    // Only called while a diagnostics channel listens (the callers pass a function that makes it).
    const t = { ...this.diagnosticsTarget, owner };
    return leaseMs === undefined ? t : { ...t, leaseMs };
  }

  /**
   * @internal For a MultiLock's hold: calls `onLost` when the watchdog finds owner `threadId`'s hold of this
   * lock gone. Returns the function that stops watching.
   */
  watchHold(threadId: number, onLost: () => void): () => void {
    return this.ctx.watchLoss(this.rawName, this.fieldName(threadId), onLost);
  }

  /** Wraps an acquisition in a {@link LockHold} whose signal aborts when the hold is lost. */
  #hold(held: Held<T>, leaseMs: number): LockHold<T> {
    const lost = new AbortController();
    const abort = (): void => lost.abort(new LockLostError(this.getName(), this.ctx.id, held.threadId));
    const unwatch = this.ctx.watchLoss(this.rawName, this.fieldName(held.threadId), abort);
    // A leased hold is lost when its lease has run out in Redis (no watchdog extends it).
    const stopLease = leaseMs > 0 ? watchLease(this.ctx.executor, this.rawName, this.fieldName(held.threadId), leaseMs, abort) : undefined;
    const owner = {
      getName: () => this.getName(),
      unlock: (o: { threadId: number }) => this.unlock(o),
      reenter: async (threadId: number, lease: number, signal: AbortSignal | undefined) => {
        const again = await this.acquireWith(-1, lease, signal ? { threadId, signal } : { threadId });
        return this.#hold(again as Held<T>, lease);
      },
    };
    return new LockHold<T>(owner, held.threadId, held.value, lost, () => {
      unwatch();
      stopLease?.();
    });
  }

  /**
   * Runs a public acquiring method so that the promise handed to the caller can be marked handled when
   * `unlock()` cancels it: a forgotten `await` must not crash the process with an unhandled rejection.
   */
  #tracked<R>(run: (call: TrackedCall) => Promise<R>): Promise<R> {
    const call: TrackedCall = {};
    let promise: Promise<R>;
    try {
      promise = run(call);
    } catch (error) {
      promise = Promise.reject(error instanceof Error ? error : new IllegalStateError(String(error), { cause: error }));
    }
    call.promise = promise;
    return promise;
  }

  /** Redisson's `unlockAsync(threadId)`; also used to undo a late acquisition during shutdown. */
  protected release(threadId: number): Promise<void> {
    return this.#releaseTraced(threadId).then(toUndefined);
  }

  /** {@link release} with the script's reply: `unlock()` awaits this, not a promise more (issue 29). */
  #releaseTraced(threadId: number): Promise<unknown> {
    // The owner's hold ends (its hold time is reported) on a release, and when it left others holding.
    return traceRelease(() => this.#trace(threadId), (r) => r === RELEASED || r === OWNER_LEFT, () => this.#release(threadId));
  }

  async #release(threadId: number): Promise<unknown> {
    const { field, key } = this.#ownerOf(threadId);
    const { renewal, holds, options: config } = this.ctx;
    const kind = this.renewalKind;
    const doubt = holds.settle(key);
    if (doubt) await doubt;
    const leaseAfter = this.internalLockLeaseTime;
    const leaseSets = this.#leaseSets;
    let result: unknown;
    // Until this unlock's outcome is in, a renewal finding the field gone may be seeing this very unlock.
    renewal.releasing(kind, this.rawName, field);
    // #unlockOnce's steps, in this frame (one async frame fewer per unlock, issue 29).
    const latch = this.#latchName();
    try {
      result = await this.unlockInner(field, latch, unlockLatchTtl(this.ctx.options), threadId);
    } catch (error) {
      this.ctx.executor.fireAndForget('DEL', latch);
      renewal.remove(kind, this.rawName, field);
      // The outcome is unknown (no answer): the object forgets this hold rather than keep it as its current
      // one — else its next lock() takes a fresh owner and its next unlock() targets this stale one. A retried
      // unlock() without an owner acts on the object's own id; an unreleased hold expires with its lease.
      this.#auto.released(threadId);
      this.internalLockLeaseTime = config.lockWatchdogTimeout;
      throw error;
    }
    this.ctx.executor.fireAndForget('DEL', latch);
    // Only STILL_HELD keeps this owner's hold: "the lock stays held" (OWNER_LEFT) is someone else's hold.
    if (result !== STILL_HELD) this.#auto.released(threadId);
    if (result !== null) {
      renewal.remove(kind, this.rawName, field);
      holds.unlocked(key, result === STILL_HELD, renewal.renews(kind, this.rawName, field) ? Infinity : performance.now() + leaseAfter);
      // As Redisson, whose reply is a Boolean: only a released lock resets the lease (its OWNER_LEFT is 0).
      if (result === RELEASED && this.#leaseSets === leaseSets) this.internalLockLeaseTime = config.lockWatchdogTimeout;
      return result;
    }
    holds.unlocked(key, false, 0);
    this.internalLockLeaseTime = config.lockWatchdogTimeout;
    // nil: this owner does not hold the lock. If the watchdog was renewing it (or already found it gone),
    // the lock was lost rather than never taken: say so, and report it once.
    const loss = renewal.takeLoss(kind, this.rawName, field);
    if (loss !== null && loss !== 'reported') this.ctx.reportLost(loss);
    throw loss
      ? new LockLostError(this.getName(), this.ctx.id, threadId)
      : new IllegalMonitorStateError(this.getName(), this.ctx.id, threadId);
  }

  /**
   * One logical unlock of `field` under a fresh request id (reused if the script is re-sent, as Redisson
   * 3.52+), then the latch deleted without waiting, as Redisson (shutdown still waits for it).
   */
  async #unlockOnce(field: string, threadId: number): Promise<unknown> {
    const latch = this.#latchName();
    try {
      return await this.unlockInner(field, latch, unlockLatchTtl(this.ctx.options), threadId);
    } finally {
      this.ctx.executor.fireAndForget('DEL', latch);
    }
  }

  /**
   * One attempt, with the ledger's bookkeeping and the watchdog registration. Not an async function: one reaction
   * on the script's reply, not a frame here and one in the lock's `tryAcquireOnce` (issue 29).
   */
  #attempt(leaseMs: number, threadId: number, waitMs: number): Promise<Attempt<T>> {
    const doubt = this.ctx.holds.settle(this.#ownerOf(threadId).key);
    if (doubt) return doubt.then(() => this.#attemptNow(leaseMs, threadId, waitMs));
    return this.#attemptNow(leaseMs, threadId, waitMs);
  }

  #attemptNow(leaseMs: number, threadId: number, waitMs: number): Promise<Attempt<T>> {
    const { field, key } = this.#ownerOf(threadId);
    // As Redisson: without a lease, the object's last lease time (initially lockWatchdogTimeout), so
    // lock(60 s) then lock() on the same object keeps a 60 s TTL until the watchdog's first renewal.
    const watchdog = leaseMs <= 0;
    const lease = watchdog ? this.internalLockLeaseTime : leaseMs;
    const started = performance.now();
    const request: AcquireRequest = { leaseMs: lease, watchdog, field, threadId, waitMs };
    let raw: Promise<unknown> | undefined;
    let sent: Promise<unknown>;
    try {
      raw = this.sendAttempt(request);
      sent = raw ?? this.tryAcquireOnce(request);
    } catch (error) {
      return Promise.reject(error instanceof Error ? error : new IllegalStateError(String(error), { cause: error }));
    }
    return sent.then(
      (reply) => {
        const result = raw === undefined ? (reply as Attempt<T>) : this.readAttempt(reply);
        if (result.acquired) this.#tookHold(field, threadId, leaseMs, lease, started);
        return result;
      },
      (error: unknown) => {
        // The script may have run: learn the truth before this owner re-enters (see HoldLedger).
        if (error instanceof ConnectionLostError || error instanceof RedisTimeoutError) this.ctx.keepUntilClosed(this.ctx.holds.doubt(key, () => this.#undoIfLanded(field, key, threadId)));
        throw error;
      },
    );
  }

  /** Owner `threadId` took a hold (`leaseMs` as asked, `lease` as sent, at `started`): watchdog and ledger. */
  #tookHold(field: string, threadId: number, leaseMs: number, lease: number, started: number): void {
    const { renewal, holds } = this.ctx;
    const kind = this.renewalKind;
    if (leaseMs <= 0) renewal.add(kind, this.rawName, field, threadId);
    else {
      this.internalLockLeaseTime = leaseMs;
      this.#leaseSets++;
      renewal.clearLost(kind, this.rawName, field);
    }
    holds.acquired(this.#ownerOf(threadId).key, renewal.renews(kind, this.rawName, field) ? Infinity : started + lease);
  }

  /**
   * What a direct handoff to waiting owner `threadId` writes: its field and the lease its own attempt would send
   * (as {@link #attempt}); `null` when this lock does not take grants, or the owner's last attempt is unsettled.
   */
  #handoffTerms(threadId: number, leaseMs: number): HandoffTerms | null {
    if (!this.takesHandoff) return null;
    const { field, key } = this.#ownerOf(threadId);
    if (this.ctx.holds.isDoubtful(key)) return null;
    return { field, leaseMs: leaseMs <= 0 ? this.internalLockLeaseTime : leaseMs, since: performance.now() };
  }

  /**
   * A grant to `field` that its waiter does not take (it gave up meanwhile, or the reply was lost): undone if it
   * landed, in the background and before the owner's next operation, as a lost acquire reply is.
   */
  #settleGrant(field: string, threadId: number): void {
    const { key } = this.#ownerOf(threadId);
    this.ctx.keepUntilClosed(this.ctx.holds.doubt(key, () => this.#undoIfLanded(field, key, threadId)));
  }

  /**
   * Settles an acquire whose reply was lost: when Redis shows more holds of `field` than the ledger expected,
   * the lost acquire landed, and it is undone (publishing the release if it was the only hold).
   */
  async #undoIfLanded(field: string, key: string, threadId: number): Promise<void> {
    if ((await this.holdCountOf(field)) > this.ctx.holds.expected(key)) await this.#unlockOnce(field, threadId);
  }
}


/**
 * One acquiring call of a lock: the acquire loop's parameters, its {@link Canceller} (an `unlock()` cancelling a
 * `lock()` that was not awaited) and the lock object's pending entry, in one object with methods. A parked
 * waiter keeps it as long as it waits: one object instead of a parameter bag, a canceller, a pending entry
 * and seven closures with their contexts (issue 29: about 900 B per waiter).
 */
class LockCall<T> extends Canceller implements AcquireParams<T>, Pending, TraceSource {
  readonly ctx: ClientContext;
  readonly mode: WaitMode;
  /** The self-wait warning's timer, while the lock object holds (see selfWaitWarning). */
  warn: NodeJS.Timeout | undefined = undefined;

  constructor(
    readonly lock: BaseLock<T>,
    readonly threadId: number,
    readonly waitMs: number,
    readonly leaseMs: number,
    readonly signal: AbortSignal | undefined,
    readonly onRefused: ((retryAfterMs: number) => void) | undefined,
    readonly call: TrackedCall | undefined,
    // The lock object's automatic owners, while this call is pending there; null for a named owner.
    readonly auto: AutoOwners | null,
  ) {
    super();
    this.ctx = lockSteps.ctx(lock);
    this.mode = lockSteps.mode(lock, threadId);
  }

  /** As {@link AcquireParams.canceller}: this call (cancelled through the lock object's pending entry). */
  get canceller(): Canceller {
    return this;
  }

  /** As {@link AcquireParams.trace}: what the diagnostics channels report (made only when one listens). */
  get trace(): TraceSource {
    return this;
  }

  traceTarget(): DiagnosticsTarget {
    return lockSteps.trace(this.lock, this.threadId, this.leaseMs);
  }

  /** `unlock()` cancels this pending call: its promise is then handled (a forgotten await must not crash). */
  override cancel(reason: Error): void {
    markHandled(this.call);
    super.cancel(reason);
  }

  attempt(): Promise<Attempt<T>> {
    const attempted = lockSteps.attempt(this.lock, this.leaseMs, this.threadId, this.waitMs);
    return this.onRefused ? attempted.then((r) => this.refused(r)) : attempted;
  }

  private refused(result: Attempt<T>): Attempt<T> {
    if (!result.acquired) this.onRefused?.(result.retryAfter);
    return result;
  }

  /** The loop ended: no longer pending on the lock object, which holds through this owner when `acquired`. */
  settled(acquired: boolean): void {
    this.auto?.end(this, acquired);
    clearTimeout(this.warn);
  }

  undo(): Promise<unknown> {
    return lockSteps.release(this.lock, this.threadId);
  }

  giveUp(): Promise<unknown> | undefined {
    return lockSteps.acquireFailed(this.lock, this.threadId, this.waitMs);
  }

  handoffTerms(): HandoffTerms | null {
    return lockSteps.handoffTerms(this.lock, this.threadId, this.leaseMs);
  }

  handedOff(terms: HandoffTerms): T {
    lockSteps.handedOff(this.lock, this.threadId, this.leaseMs, terms);
    // Only locks whose acquisition yields nothing take grants (see takesHandoff).
    return undefined as T;
  }

  handoffDoubt(terms: HandoffTerms): void {
    lockSteps.handoffDoubt(this.lock, this.threadId, terms);
  }
}
