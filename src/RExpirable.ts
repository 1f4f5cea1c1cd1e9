/**
 * An object whose keys may expire: Redisson's `RedissonExpirable` (`RExpirable`). Every method acts on all
 * of the object's keys ({@link RObject.objectKeys}) where Redisson's primitive does — a FairLock's queue and
 * deadlines, a FencedLock's token counter, a PermitExpirableSemaphore's leases — and on its own key alone for
 * the reads (`remainTimeToLive`, `getExpireTime`), as Redisson.
 *
 * Java's `Duration` is a number of milliseconds (or a number and a {@link TimeUnit}); Java's `Instant` and
 * `Date` are a `Date`; `expireAt` also takes epoch milliseconds, as Java's `expireAt(long)`.
 */
import { parseExpiry, requireTimestamp } from './args.js';
import { RObject } from './RObject.js';
import type { TimeUnit } from './TimeUnit.js';

/** PEXPIRE / PEXPIREAT's condition (Redis 7.0+); `''`: none. */
type ExpireCondition = '' | 'NX' | 'XX' | 'GT' | 'LT';

export abstract class RExpirable extends RObject {
  /**
   * Sets the object's time to live (`PEXPIRE` of each of its keys, script `object/expire`), or, given a
   * `Date`, its expiry (`PEXPIREAT`, script `object/expireAt`). Redisson `expire(Duration)`,
   * `expire(long, TimeUnit)`, `expire(Instant)`.
   * @param timeToLive at least 1 ms once converted from `unit` (default ms).
   * @returns true when the object (any of its keys) existed and got the new expiry.
   * @throws TypeError | RangeError on a bad time, unit or Date, before anything is sent.
   * @example await semaphore.expire(30, TimeUnit.SECONDS);
   */
  expire(timeToLive: number, unit?: TimeUnit): Promise<boolean>;
  expire(time: Date): Promise<boolean>;
  expire(time: number | Date, unit?: TimeUnit): Promise<boolean> {
    return this.#expire('expire', '', time, unit);
  }

  /**
   * Makes the object expire at `timestamp` (Unix time in ms, or a `Date`): `PEXPIREAT` of each of its keys. A
   * time in the past deletes it, as in Redis. Redisson `expireAt(long)` / `expireAt(Date)`.
   * @returns true when the object existed and got the new expiry.
   */
  async expireAt(timestamp: number | Date): Promise<boolean> {
    const at = requireTimestamp(timestamp);
    this.ctx.ensureOpen();
    return this.#apply({ at }, '');
  }

  /**
   * {@link expire}, only for keys that already have a time to live (`XX`, Redis 7.0+). Redisson
   * `expireIfSet(Duration | Instant)`.
   */
  expireIfSet(timeToLive: number, unit?: TimeUnit): Promise<boolean>;
  expireIfSet(time: Date): Promise<boolean>;
  expireIfSet(time: number | Date, unit?: TimeUnit): Promise<boolean> {
    return this.#expire('expireIfSet', 'XX', time, unit);
  }

  /**
   * {@link expire}, only for keys without a time to live (`NX`, Redis 7.0+). Redisson
   * `expireIfNotSet(Duration | Instant)`.
   */
  expireIfNotSet(timeToLive: number, unit?: TimeUnit): Promise<boolean>;
  expireIfNotSet(time: Date): Promise<boolean>;
  expireIfNotSet(time: number | Date, unit?: TimeUnit): Promise<boolean> {
    return this.#expire('expireIfNotSet', 'NX', time, unit);
  }

  /**
   * {@link expire}, only where the new expiry is later than the current one (`GT`, Redis 7.0+; a key
   * without a time to live counts as never expiring, so it is left so). Redisson `expireIfGreater`.
   */
  expireIfGreater(timeToLive: number, unit?: TimeUnit): Promise<boolean>;
  expireIfGreater(time: Date): Promise<boolean>;
  expireIfGreater(time: number | Date, unit?: TimeUnit): Promise<boolean> {
    return this.#expire('expireIfGreater', 'GT', time, unit);
  }

  /**
   * {@link expire}, only where the new expiry is earlier than the current one, or the key has none (`LT`,
   * Redis 7.0+). Redisson `expireIfLess`.
   */
  expireIfLess(timeToLive: number, unit?: TimeUnit): Promise<boolean>;
  expireIfLess(time: Date): Promise<boolean>;
  expireIfLess(time: number | Date, unit?: TimeUnit): Promise<boolean> {
    return this.#expire('expireIfLess', 'LT', time, unit);
  }

  /**
   * Removes the object's time to live (`PERSIST` of each of its keys; script `object/clearExpire` for more
   * than one). Redisson `clearExpire()`.
   * @returns true when a key had a time to live and lost it.
   */
  async clearExpire(): Promise<boolean> {
    this.ctx.ensureOpen();
    const keys = this.objectKeys;
    const cleared = keys.length === 1 ? await this.ctx.executor.command('PERSIST', this.rawName) : await this.objectScript('object/clearExpire', keys, []);
    if (cleared === 1) this.expiryChanged(Infinity);
    return cleared === 1;
  }

  /** Milliseconds the object's key has left (`PTTL N`): `-2` when it does not exist, `-1` without expiry. */
  async remainTimeToLive(): Promise<number> {
    this.ctx.ensureOpen();
    return Number(await this.ctx.executor.command('PTTL', this.rawName));
  }

  /**
   * When the object's key expires, as Unix time in ms (`PEXPIRETIME N`, Redis 7.0+): `-2` when it does not
   * exist, `-1` without expiry. Redisson `getExpireTime()`.
   */
  async getExpireTime(): Promise<number> {
    this.ctx.ensureOpen();
    return Number(await this.ctx.executor.command('PEXPIRETIME', this.rawName));
  }

  /**
   * The object's keys got a new expiry (`performance.now()` time; Infinity: none), as far as this client
   * knows: a lock keeps its ledger of holds in step with it.
   */
  protected expiryChanged(_until: number): void {
    // Nothing kept locally by default.
  }

  async #expire(method: string, condition: ExpireCondition, time: unknown, unit: unknown): Promise<boolean> {
    const expiry = parseExpiry(method, time, unit);
    this.ctx.ensureOpen();
    return this.#apply(expiry, condition);
  }

  async #apply(expiry: { ttl: number } | { at: number }, condition: ExpireCondition): Promise<boolean> {
    const now = performance.now();
    const args = condition === '' ? [] : [condition];
    const set =
      'ttl' in expiry
        ? await this.ctx.executor.eval('object/expire', this.objectKeys, [expiry.ttl, ...args], 'idempotent')
        : await this.objectScript('object/expireAt', this.objectKeys, [expiry.at, ...args]);
    if (set !== 1) return false;
    this.expiryChanged('ttl' in expiry ? now + expiry.ttl : now + (expiry.at - Date.now()));
    return true;
  }
}
