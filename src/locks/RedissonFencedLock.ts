/**
 * Redisson's fenced lock (`RedissonFencedLock`, 3.19.0+), wire-identical: an RLock (same hash, channel,
 * message, unlock and watchdog) plus the counter `redisson_lock_token:{N}`, incremented in the same script
 * as every acquisition (re-entries and plain `lock()` / `tryLock()` included), so the newest holder always
 * has the highest token, across clients and Java.
 */
import type { ClientContext } from '../ClientContext.js';
import { fencedLockTokenName, lockChannelName } from '../keys.js';
import type { TimeUnit } from '../TimeUnit.js';
import { acquired, retryAfter, type Attempt } from '../wait/acquire.js';
import { BaseLock, type AcquireRequest } from './BaseLock.js';
import { noteLease, parseTimes, type WaitOptions } from '../args.js';
import { lockForceUnlock, lockUnlockInner } from './RLock.js';
import { IllegalStateError } from '../errors.js';

/**
 * A reentrant lock that hands out a fencing token with each acquisition. Obtain with
 * `client.getFencedLock(name)`.
 *
 * A lease can run out while its holder is stalled (a pause, a slow call) and another owner takes the lock;
 * the stalled one does not know. Pass the token along with every read and write to the guarded resource,
 * and have the resource refuse a token lower than the highest it has seen: the stale holder's late write
 * is then rejected.
 *
 * Times are milliseconds unless a {@link TimeUnit} follows them; `-1` (or omitting it) means "not given".
 * @example
 * const token = await lock.lockAndGetToken(10, TimeUnit.SECONDS);
 * try { await storage.write(data, { fence: token }); } finally { await lock.unlock(); }
 */
export class RedissonFencedLock extends BaseLock<number> {
  /** Diagnostics identity (see `RObject.primitive`). */
  static override readonly primitive: string = 'RedissonFencedLock';
  readonly #channel: string;
  readonly #tokenName: string;

  /** @internal use `client.getFencedLock(name)`. */
  constructor(ctx: ClientContext, name: string) {
    super(ctx, name);
    this.#channel = lockChannelName(this.rawName);
    this.#tokenName = fencedLockTokenName(this.rawName);
  }

  /**
   * Acquires the lock, waiting as long as it takes, and returns its fencing token. Redisson
   * `lockAndGetToken()` / `lockAndGetTokenAsync(leaseTime, unit)`.
   * `leaseTime`: the lease; omitted or `-1`: watchdog lease, renewed until unlock. (Java's blocking
   *   `lockAndGetToken(leaseTime, unit)` ignores it; its async form, like this one, applies it.)
   * @returns the token: the counter's value after this acquisition.
   * @throws the signal's reason on abort; `RedissonShutdownError` when the client shuts down meanwhile.
   * @example const token = await lock.lockAndGetToken();
   */
  lockAndGetToken(options?: WaitOptions): Promise<number>;
  lockAndGetToken(leaseTime: number, options?: WaitOptions): Promise<number>;
  lockAndGetToken(leaseTime: number, unit?: TimeUnit, options?: WaitOptions): Promise<number>;
  async lockAndGetToken(...args: unknown[]): Promise<number> {
    const { times, options } = parseTimes('lockAndGetToken', args, ['leaseTime']);
    this.ctx.ensureOpen();
    noteLease(this.ctx, this.getName(), times[0] ?? -1);
    // An unlimited wait (Java's Long.MAX_VALUE ms): the loop waits per retry delay, never one huge timer.
    const result = await this.acquireWith(-1, times[0] ?? -1, options);
    if (result === null) throw new IllegalStateError('unreachable: an unlimited wait ended without the lock');
    return result.value;
  }

  /**
   * Acquires the lock if it can and returns its fencing token, or `null`. Without arguments: one attempt,
   * never waits (as Redisson's javadoc says; Java's implementation waits without limit there, see
   * COMPATIBILITY.md). With a wait time: waits up to it; `-1` waits without limit, as in Java.
   * Redisson `tryLockAndGetToken(waitTime, unit)` and `tryLockAndGetToken(waitTime, leaseTime, unit)`.
   * @returns the token, or `null` when the lock was not acquired in time.
   * @example const token = await lock.tryLockAndGetToken(5, 30, TimeUnit.SECONDS);
   */
  tryLockAndGetToken(options?: WaitOptions): Promise<number | null>;
  tryLockAndGetToken(waitTime: number, options?: WaitOptions): Promise<number | null>;
  tryLockAndGetToken(waitTime: number, unit?: TimeUnit, options?: WaitOptions): Promise<number | null>;
  tryLockAndGetToken(waitTime: number, leaseTime: number, options?: WaitOptions): Promise<number | null>;
  tryLockAndGetToken(waitTime: number, leaseTime: number, unit?: TimeUnit, options?: WaitOptions): Promise<number | null>;
  async tryLockAndGetToken(...args: unknown[]): Promise<number | null> {
    const { times, options } = parseTimes('tryLockAndGetToken', args, ['waitTime', 'leaseTime']);
    this.ctx.ensureOpen();
    const [waitTime, leaseTime = -1] = times;
    noteLease(this.ctx, this.getName(), leaseTime);
    return (await this.acquireWith(waitTime ?? 0, leaseTime, options))?.value ?? null;
  }

  /** The token of the newest acquisition (`GET redisson_lock_token:{N}`); 0 when the lock was never taken. */
  async getToken(): Promise<number> {
    this.ctx.ensureOpen();
    const token = await this.ctx.executor.command('GET', this.#tokenName);
    return token === null ? 0 : Number(token);
  }

  protected override get channelName(): string {
    return this.#channel;
  }

  /** The hash and the token counter: what `delete`, `sizeInMemory` and the expiry methods act on, as Redisson's. */
  protected override get objectKeys(): readonly string[] {
    return [this.rawName, this.#tokenName];
  }

  /**
   * Deletes the lock and its token counter (`DEL N redisson_lock_token:{N}`), whoever holds it; publishes
   * nothing. Redisson's `RedissonFencedLock.delete()`. The next acquisition's token starts again at 1, so a
   * guarded resource that remembers the highest token seen refuses it until the counter passes that.
   * @returns true when either existed.
   */
  override delete(): Promise<boolean> {
    return this.deleteObjectKeys();
  }

  /** `fencedlock/tryLockInner`: take or re-enter, drawing a token; otherwise the holder's PTTL. */
  protected override async tryAcquireOnce({ leaseMs, field, threadId }: AcquireRequest): Promise<Attempt<number>> {
    const undo = this.undoUnsynced(field, threadId, (r) => Array.isArray(r) && r[1] !== -1);
    const [ttl, token] = (await this.ctx.executor.eval('fencedlock/tryLockInner', [this.rawName, this.#tokenName], [leaseMs, field], 'never', undo)) as [number, number];
    // The token tells: Redisson's {-1, -1} for a foreign hash without expiry is a refusal, not token -1.
    return token !== -1 ? acquired(token) : retryAfter(ttl);
  }

  protected override unlockInner(field: string, latch: string, latchTtl: number): Promise<unknown> {
    return lockUnlockInner(this.ctx, this.rawName, this.#channel, this.internalLockLeaseTime, field, latch, latchTtl);
  }

  protected override forceUnlockInner(): Promise<boolean> {
    return lockForceUnlock(this.ctx, this.rawName, this.#channel);
  }
}
