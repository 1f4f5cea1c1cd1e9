/**
 * Redisson's `RPermitExpirableSemaphore` (`RedissonPermitExpirableSemaphore`), wire-identical (docs/protocol.md §6):
 * `N` holds the available permits; every acquired permit is a member of the zset `{N}:timeout` — its id as 16
 * raw bytes, its score the lease's expiry in absolute ms (client clock, as Java's `System.currentTimeMillis`)
 * or `922337203685477` for a permit without a lease. Ids are handed out as 32 lowercase hex digits, as Java's.
 *
 * An expired permit returns to the pool the next time any operation that reclaims runs (acquire, the counts,
 * `updateLeaseTime`, `getLeaseTime`, releasing a list); reclaiming publishes the new total on
 * `redisson_sc:{N}`, the channel RSemaphore uses too. A waiter retries on a message or, at the latest, when the
 * earliest lease expires (the attempt's `":<score>"` answer) — no polling.
 *
 * Interoperates with Java Redisson ≥ 3.23.4 (one id per permit; ≥ 3.17.0 for single permits).
 */
import { randomBytes } from 'node:crypto';
import { newRequestId } from '../requestId.js';
import type { ClientContext } from '../ClientContext.js';
import { describeValue, requireTime, requireUnit, unlockLatchTtl } from '../config.js';
import { traceRelease } from '../diagnostics.js';
import { ArgumentRangeError, IllegalStateError, InvalidArgumentError, PermitNotHeldError } from '../errors.js';
import { RExpirable } from '../RExpirable.js';
import { permitExpirableTimeoutName, semaphoreChannelName, unlockLatchName } from '../keys.js';
import { semaphoreWakePolicy } from '../pubsub/wakePolicies.js';
import { TimeUnit } from '../TimeUnit.js';
import { acquire, acquired, retryAfter, type Attempt } from '../wait/acquire.js';
import { parsePermitHold, type LeasedPermitHoldOptions, type TryLeasedPermitHoldOptions } from './holdArgs.js';
import { watchPermits } from './permitWatch.js';
import { PermitExpirableHold } from './SemaphoreHold.js';
import { MIN_PERMITS, parsePermitCall, requireLease, requirePermits, type SignalOptions } from '../args.js';

import { NON_EXPIRABLE_SCORE, type PermitId } from './permitIds.js';

export { NON_EXPIRABLE_SCORE, type PermitId };

interface ParsedPermitCall {
  /** null: the single-permit form (answers one id or null). */
  readonly permits: number | null;
  /** `0`: one attempt; `-1`: no limit; else ms. */
  readonly waitMs: number;
  /** `-1`: no lease; else ms. */
  readonly leaseMs: number;
  readonly options: SignalOptions;
}

/** A permit id as 16 (or any whole number of) bytes: even-length hex, as Netty's `decodeHexDump` accepts. */
function permitBytes(id: unknown): Buffer {
  if (typeof id !== 'string') throw new InvalidArgumentError(`Expected a permit id (hex string), got ${describeValue(id)}`);
  if (id.length === 0 || !/^(?:[0-9a-fA-F]{2})+$/.test(id)) {
    throw new ArgumentRangeError(`Expected a permit id of hex digit pairs (Redisson's are 32 lowercase hex digits), got ${describeValue(id)}`);
  }
  return Buffer.from(id, 'hex');
}

function permitList(ids: unknown, method: string): Buffer[] {
  if (!Array.isArray(ids) || ids.length === 0) throw new InvalidArgumentError(`${method}: expected a non-empty array of permit ids, got ${Array.isArray(ids) ? 'an empty array' : describeValue(ids)}`);
  return ids.map((id) => permitBytes(id));
}

/**
 * A semaphore whose permits have ids and may expire. Obtain with `client.getPermitExpirableSemaphore(name)`;
 * set it up once with {@link trySetPermits}.
 *
 * @example
 * ```ts
 * const seats = client.getPermitExpirableSemaphore('render-seats');
 * await seats.trySetPermits(4);
 * const id = await seats.acquire(30, TimeUnit.SECONDS); // returns to the pool by itself after 30 s
 * try { await render(); } finally { await seats.tryRelease(id); }
 * ```
 */
export class RPermitExpirableSemaphore extends RExpirable {
  /** Diagnostics identity (see `RObject.primitive`). */
  static override readonly primitive: string = 'RPermitExpirableSemaphore';
  // The base's context and key under the names this class's methods use.
  readonly #ctx: ClientContext;
  readonly #rawName: string;
  readonly #timeoutName: string;
  readonly #channel: string;

  /** @internal use `client.getPermitExpirableSemaphore(name)`. */
  constructor(ctx: ClientContext, name: string) {
    super(ctx, name);
    this.#ctx = ctx;
    this.#rawName = this.rawName;
    this.#timeoutName = permitExpirableTimeoutName(this.rawName);
    this.#channel = semaphoreChannelName(this.rawName);
  }

  /**
   * The permits and the leases (`N`, `{N}:timeout`): what `delete` (which publishes nothing, as Redisson's),
   * `sizeInMemory` and the expiry methods act on, as Redisson's overrides list them.
   */
  protected override get objectKeys(): readonly string[] {
    return [this.rawName, this.#timeoutName];
  }

  /**
   * Acquires permits, waiting as long as it takes. Redisson's four overloads:
   * `acquire()` → one id without a lease; `acquire(permits)` → `permits` ids; `acquire(leaseTime, unit)` →
   * one id that expires after the lease; `acquire(permits, leaseTime, unit?)` → `permits` ids with a lease.
   * A lone number is a permit count, as in Java; a lease needs its unit (or a permit count before it).
   * @throws RangeError | TypeError on a bad count, lease or unit, before anything is sent.
   * @throws the signal's reason on abort (an acquisition landing then is released); `RedisTimeoutError`
   *   when the subscription is not confirmed in time; `RedissonShutdownError` on shutdown.
   * @example const ids = await seats.acquire(2, 10, TimeUnit.SECONDS);
   */
  acquire(options?: SignalOptions): Promise<PermitId>;
  acquire(permits: number, options?: SignalOptions): Promise<PermitId[]>;
  acquire(leaseTime: number, unit: TimeUnit, options?: SignalOptions): Promise<PermitId>;
  acquire(permits: number, leaseTime: number, unit?: TimeUnit, options?: SignalOptions): Promise<PermitId[]>;
  async acquire(...args: unknown[]): Promise<PermitId | PermitId[]> {
    const { permits, times, options } = parsePermitCall('acquire', args, ['leaseTime']);
    const call: ParsedPermitCall = { permits, waitMs: -1, leaseMs: requireLease(times[0] ?? -1), options };
    this.#ctx.ensureOpen();
    const ids = await this.#acquireIds(call);
    if (ids === null) throw new IllegalStateError('unreachable: an unlimited wait ended without permits');
    return permits === null ? (ids[0] as PermitId) : ids;
  }

  /**
   * Acquires permits if it can. Redisson's five overloads: `tryAcquire()` → one id or null, one attempt;
   * `tryAcquire(permits)` → ids or `[]`, one attempt; `tryAcquire(waitTime, unit)` and
   * `tryAcquire(waitTime, leaseTime, unit?)` → one id or null, waiting up to `waitTime`;
   * `tryAcquire(permits, waitTime, leaseTime, unit?)` → ids or `[]`. `leaseTime` `-1`: no lease.
   * @example const id = await seats.tryAcquire(500, 30_000); // wait ≤ 500 ms, lease 30 s
   */
  tryAcquire(options?: SignalOptions): Promise<PermitId | null>;
  tryAcquire(permits: number, options?: SignalOptions): Promise<PermitId[]>;
  tryAcquire(waitTime: number, unit: TimeUnit, options?: SignalOptions): Promise<PermitId | null>;
  tryAcquire(waitTime: number, leaseTime: number, unit?: TimeUnit, options?: SignalOptions): Promise<PermitId | null>;
  tryAcquire(permits: number, waitTime: number, leaseTime: number, unit?: TimeUnit, options?: SignalOptions): Promise<PermitId[]>;
  async tryAcquire(...args: unknown[]): Promise<PermitId | PermitId[] | null> {
    const { permits, times, options } = parsePermitCall('tryAcquire', args, ['waitTime', 'leaseTime']);
    const [waitMs = 0, leaseMs = -1] = times;
    const call: ParsedPermitCall = { permits, waitMs: waitMs < 0 ? 0 : waitMs, leaseMs: requireLease(leaseMs), options };
    this.#ctx.ensureOpen();
    const ids = await this.#acquireIds(call);
    if (permits === null) return ids?.[0] ?? null;
    return ids ?? [];
  }

  /**
   * Releases one permit by id. Redisson `tryRelease(permitId)`.
   * @returns false when the id is unknown or already released, and also when its lease had expired (that
   *   permit still returns to the pool).
   * @throws TypeError | RangeError when the id is not hex digit pairs.
   */
  tryRelease(permitId: PermitId): Promise<boolean>;
  /**
   * Releases all the ids or none. Redisson `tryRelease(List)`.
   * @returns how many were released: the list's length, or `0` (nothing changed) when any id is unknown,
   *   released or expired.
   */
  tryRelease(permitIds: readonly PermitId[]): Promise<number>;
  async tryRelease(ids: PermitId | readonly PermitId[]): Promise<boolean | number> {
    if (Array.isArray(ids)) {
      const bytes = permitList(ids, 'tryRelease');
      this.#ctx.ensureOpen();
      return this.#releaseMany(bytes);
    }
    const bytes = permitBytes(ids);
    this.#ctx.ensureOpen();
    return this.#releaseOne(bytes);
  }

  /**
   * Like {@link tryRelease}, but throws when not everything was released. Redisson `release(id)` / `release(List)`.
   * @throws PermitNotHeldError ("Permit with id … has already been released or doesn't exist").
   */
  async release(ids: PermitId | readonly PermitId[]): Promise<void> {
    if (Array.isArray(ids)) {
      const list = ids as readonly PermitId[];
      const bytes = permitList(list, 'release');
      this.#ctx.ensureOpen();
      if ((await this.#releaseMany(bytes)) !== list.length) {
        throw new PermitNotHeldError(`Permits with ids [${list.join(', ')}] have already been released or don't exist`, list);
      }
      return;
    }
    const id = ids as PermitId;
    const bytes = permitBytes(id);
    this.#ctx.ensureOpen();
    if (!(await this.#releaseOne(bytes))) throw new PermitNotHeldError(`Permit with id ${id} has already been released or doesn't exist`, [id]);
  }

  /** Available permits now, after returning expired leases to the pool. Redisson `availablePermits()`. */
  availablePermits(): Promise<number> {
    return this.#count('availablePermits');
  }

  /** Available plus leased permits (`0` when the semaphore does not exist). Redisson `getPermits()`. */
  getPermits(): Promise<number> {
    return this.#count('getPermits');
  }

  /** Leased permits now, after returning expired ones. Redisson `acquiredPermits()`. */
  acquiredPermits(): Promise<number> {
    return this.#count('acquiredPermits');
  }

  /**
   * Sets the available permits of a semaphore that does not exist yet, and publishes them.
   * @returns false when it exists (nothing changes).
   */
  async trySetPermits(permits: number): Promise<boolean> {
    requirePermits(permits, MIN_PERMITS);
    this.#ctx.ensureOpen();
    const { executor } = this.#ctx;
    const reply = await this.#latched((latch, ttl) => executor.eval('permitExpirableSemaphore/trySetPermits', [this.#rawName, this.#channel, latch], [permits, ttl], 'idempotent'));
    return reply === 1;
  }

  /**
   * Makes the semaphore's size (available + leased) `permits`: available permits move by the difference
   * (below zero when more are leased than the new size). Publishes `permits` when anything changed.
   */
  async setPermits(permits: number): Promise<void> {
    requirePermits(permits, MIN_PERMITS);
    this.#ctx.ensureOpen();
    const { executor } = this.#ctx;
    await executor.eval('permitExpirableSemaphore/setPermits', [this.#rawName, this.#channel, this.#timeoutName], [permits], 'idempotent');
  }

  /**
   * Adds (negative: removes) available permits, creating the semaphore when missing; a positive change is
   * published. Sent once (Redisson retries it, which could add twice).
   */
  async addPermits(permits: number): Promise<void> {
    requirePermits(permits, MIN_PERMITS);
    this.#ctx.ensureOpen();
    const { executor } = this.#ctx;
    await executor.eval('permitExpirableSemaphore/addPermits', [this.#rawName, this.#channel], [permits]);
  }

  /**
   * Gives a leased permit a new lease from now. Redisson `updateLeaseTime(permitId, leaseTime, unit)`.
   * @returns false when the permit is not held (unknown, released, or already expired).
   */
  async updateLeaseTime(permitId: PermitId, leaseTime: number, unit: TimeUnit = TimeUnit.MILLISECONDS): Promise<boolean> {
    const bytes = permitBytes(permitId);
    const leaseMs = requireLease(requireTime(leaseTime, requireUnit(unit), 'leaseTime'));
    this.#ctx.ensureOpen();
    const now = Date.now();
    const score = leaseMs === -1 ? NON_EXPIRABLE_SCORE : now + leaseMs;
    const { executor } = this.#ctx;
    const args = [bytes, score, now];
    return (await executor.eval('permitExpirableSemaphore/updateLeaseTime', [this.#rawName, this.#timeoutName, this.#channel], args, 'idempotent')) === 1;
  }

  /**
   * The lease left on a permit, in ms; `-1` for a permit without a lease. Redisson `getLeaseTime` (3.41.0+).
   * @throws PermitNotHeldError when the permit is not held.
   */
  async getLeaseTime(permitId: PermitId): Promise<number> {
    const bytes = permitBytes(permitId);
    this.#ctx.ensureOpen();
    const { executor } = this.#ctx;
    const args = [bytes, NON_EXPIRABLE_SCORE, Date.now()];
    const left = Number(await executor.eval('permitExpirableSemaphore/getLeaseTime', [this.#rawName, this.#timeoutName, this.#channel], args));
    if (left === 0) throw new PermitNotHeldError(`Permit with id ${permitId} has already been released or doesn't exist`, [permitId]);
    return left;
  }

  /**
   * Acquires permits, waiting as long as it takes, and returns them as a hold: its ids, released together
   * by `release()` or at the end of an `await using` block, and a `signal` aborted when a lease runs out.
   * `permits` (default 1), `leaseTime` in ms (omitted or `-1`: no lease).
   * @throws RangeError | TypeError on a bad option, before anything is sent.
   * @throws the signal's reason on abort (permits landing then are released); `RedissonShutdownError`.
   * @example
   * ```ts
   * await using seat = await seats.acquireHold({ leaseTime: 30_000 });
   * await render({ signal: seat.signal });
   * ```
   */
  async acquireHold(options?: LeasedPermitHoldOptions): Promise<PermitExpirableHold> {
    const { permits, leaseMs, signal } = parsePermitHold('acquireHold', options, false, true);
    this.#ctx.ensureOpen();
    const ids = await this.#acquireIds({ permits, waitMs: -1, leaseMs, options: signal ? { signal } : {} });
    if (ids === null) throw new IllegalStateError('unreachable: an unlimited wait ended without permits');
    return this.#holdOf(ids, leaseMs);
  }

  /**
   * Like {@link acquireHold}, but gives up: one attempt, or waits up to `waitTime` ms.
   * @returns the hold, or `null` when the permits were not taken in time (nothing is then taken).
   */
  async tryAcquireHold(options?: TryLeasedPermitHoldOptions): Promise<PermitExpirableHold | null> {
    const { permits, waitMs, leaseMs, signal } = parsePermitHold('tryAcquireHold', options, true, true);
    this.#ctx.ensureOpen();
    const ids = await this.#acquireIds({ permits, waitMs, leaseMs, options: signal ? { signal } : {} });
    return ids === null ? null : this.#holdOf(ids, leaseMs);
  }

  /**
   * Runs `fn` with permits taken, and always releases them. `fn` gets the hold's signal, aborted if a lease
   * runs out meanwhile.
   * @throws whatever `fn` throws, once the permits are released; `PermitNotHeldError` from the release when a
   *   lease ran out during `fn`.
   * @example await seats.withPermits((signal) => render({ signal }), { leaseTime: 30_000 });
   */
  async withPermits<R>(fn: (signal: AbortSignal) => R | Promise<R>, options?: LeasedPermitHoldOptions): Promise<R> {
    const hold = await this.acquireHold(options);
    try {
      return await fn(hold.signal);
    } finally {
      await hold.release();
    }
  }

  #holdOf(ids: readonly PermitId[], leaseMs: number): PermitExpirableHold {
    const lost = new AbortController();
    const abort = (): void => lost.abort(new PermitNotHeldError(`Permits with ids [${ids.join(', ')}] of '${this.getName()}' were lost (lease expired or semaphore deleted)`, ids));
    const stop = watchPermits(this.#ctx.executor, this.#timeoutName, ids.map((id) => Buffer.from(id, 'hex')), leaseMs, abort);
    return new PermitExpirableHold(this, ids, lost, stop);
  }

  async #count(op: 'availablePermits' | 'getPermits' | 'acquiredPermits'): Promise<number> {
    this.#ctx.ensureOpen();
    const { executor } = this.#ctx;
    return Number(await executor.eval(`permitExpirableSemaphore/${op}`, [this.#rawName, this.#timeoutName, this.#channel], [Date.now()]));
  }

  async #acquireIds(call: ParsedPermitCall): Promise<PermitId[] | null> {
    const count = call.permits ?? 1;
    if (count === 0) return [];
    const result = await acquire<PermitId[]>({
      ctx: this.#ctx,
      attempt: () => this.#tryAcquireOnce(count, call.leaseMs),
      // An acquisition that lands after an abort gives its permits back (and wakes whoever needs them).
      undo: (ids) => this.#releaseMany(ids.map((id) => Buffer.from(id, 'hex'))),
      mode: { channel: this.#channel, policy: semaphoreWakePolicy },
      passOnRefusedWake: count > 1,
      waitMs: call.waitMs,
      signal: call.options.signal,
      trace: { ...this.diagnosticsTarget, permits: count },
    });
    return result === null ? null : result.value;
  }

  /** One attempt with fresh ids; the lease counts from this attempt, as Redisson's `calcTimeout` per try. */
  async #tryAcquireOnce(count: number, leaseMs: number): Promise<Attempt<PermitId[]>> {
    const ids = Array.from({ length: count }, () => randomBytes(16));
    const now = Date.now();
    const score = leaseMs === -1 ? NON_EXPIRABLE_SCORE : now + leaseMs;
    const { executor } = this.#ctx;
    const reply = await executor.eval(
      'permitExpirableSemaphore/tryAcquire',
      [this.#rawName, this.#timeoutName, this.#channel],
      [count, score, now, NON_EXPIRABLE_SCORE, ...ids],
      'never',
      // Replicas that did not confirm it (Sentinel): the ids are given back before the retry (handleNoSync).
      (r) => (r === 'OK' ? this.#releaseMany(ids) : undefined),
    );
    if (reply === 'OK') return acquired(ids.map((id) => id.toString('hex')));
    // ":<score>": a lease expires then, freeing a permit: retry by then at the latest.
    if (typeof reply === 'string' && reply.startsWith(':')) return retryAfter(Math.max(0, Math.round(Number(reply.slice(1))) - Date.now()));
    return retryAfter(-1);
  }

  async #releaseOne(id: Buffer): Promise<boolean> {
    const { executor } = this.#ctx;
    const released = await traceRelease(
      { ...this.diagnosticsTarget, permits: 1 },
      (r) => r === 1,
      () => this.#latched((latch, ttl) => executor.eval('permitExpirableSemaphore/tryRelease', [this.#rawName, this.#channel, this.#timeoutName, latch], [id, 1, Date.now(), ttl], 'idempotent')),
    );
    return released === 1;
  }

  async #releaseMany(ids: readonly Buffer[]): Promise<number> {
    const { executor } = this.#ctx;
    const released = await traceRelease(
      { ...this.diagnosticsTarget, permits: ids.length },
      (r) => Number(r) > 0,
      () =>
        this.#latched((latch, ttl) =>
          executor.eval('permitExpirableSemaphore/tryReleaseMany', [this.#rawName, this.#channel, this.#timeoutName, latch], [ids.length, Date.now(), ttl, ...ids], 'idempotent'),
        ),
    );
    return Number(released);
  }

  /**
   * Runs a script that is re-sent after a lost reply (`'idempotent'`) under a fresh request latch
   * (`redisson_unlock_latch:{N}:<id>`, as the lock family's unlock): the script keeps its answer there when it
   * changed something, so a re-sent run answers the same and changes nothing. The latch is deleted afterwards
   * without waiting; its TTL covers every re-send.
   */
  async #latched(run: (latch: string, ttlMs: number) => Promise<unknown>): Promise<unknown> {
    const latch = unlockLatchName(this.#rawName, newRequestId());
    try {
      return await run(latch, unlockLatchTtl(this.#ctx.options));
    } finally {
      this.#ctx.executor.fireAndForget('DEL', latch);
    }
  }
}
