/**
 * Redisson's reentrant lock (`RedissonLock`), wire-identical: a hash `N` with one field
 * `<clientUUID>:<threadId>` → hold count, a PTTL lease, `0` published on `redisson_lock__channel:{N}`
 * at release, and the unlock latch of Redisson 3.24+.
 */
import type { ClientContext } from '../ClientContext.js';
import { lockChannelName } from '../keys.js';
import { UNLOCK_MESSAGE } from '../pubsub/wakePolicies.js';
import type { HandoffReservation } from '../pubsub/PublishSubscribe.js';
import { acquired, retryAfter, type Attempt } from '../wait/acquire.js';
import { BaseLock, nilAcquired, type AcquireRequest } from './BaseLock.js';

/**
 * A reentrant distributed lock. Obtain with `client.getLock(name)`.
 *
 * Times are milliseconds unless a {@link TimeUnit} follows them; `-1` (or omitting it) means "not given":
 * a lock without a lease time is kept alive by the client's watchdog until unlocked.
 */
export class RLock extends BaseLock {
  /** Diagnostics identity (see `RObject.primitive`). */
  static override readonly primitive: string = 'RLock';
  readonly #channel: string;
  // The acquire script's keys, made once (the executor only reads them).
  #keys: readonly string[] | undefined;

  /** @internal use `client.getLock(name)`. */
  constructor(ctx: ClientContext, name: string) {
    super(ctx, name);
    this.#channel = lockChannelName(this.rawName);
  }

  protected override get channelName(): string {
    return this.#channel;
  }

  /** `lock/tryLockInner`: take or re-enter; otherwise the holder's PTTL. */
  protected override tryAcquireOnce(request: AcquireRequest): Promise<Attempt<void>> {
    return this.#tryLockInner(request).then(ttlAttempt);
  }

  /** As {@link tryAcquireOnce}, read by {@link readAttempt}: the attempt's one reaction is the lock's own. */
  protected override sendAttempt(request: AcquireRequest): Promise<unknown> | undefined {
    return this.#tryLockInner(request);
  }

  protected override readAttempt(reply: unknown): Attempt<void> {
    return ttlAttempt(reply);
  }

  #tryLockInner({ leaseMs, field, threadId }: AcquireRequest): Promise<unknown> {
    const undo = this.undoUnsynced(field, threadId, nilAcquired);
    this.#keys ??= [this.rawName];
    return this.ctx.executor.eval('lock/tryLockInner', this.#keys, [leaseMs, field], 'never', undo);
  }

  protected override unlockInner(field: string, latch: string, latchTtl: number): Promise<unknown> {
    const { ctx } = this;
    // Direct handoff (issue 29): the longest waiter of this client, or of a client of this process on the same
    // server, is parked on the channel; see unlockHandoff.
    const handoff = ctx.options.directHandoff && ctx.executor.countsEverySubscriber() ? ctx.pubsub.reserveHandoff(this.#channel, String(UNLOCK_MESSAGE)) : null;
    if (handoff === null) return lockUnlockInner(ctx, this.rawName, this.#channel, this.internalLockLeaseTime, field, latch, latchTtl);
    return unlockHandoff(ctx, this.rawName, this.#channel, this.internalLockLeaseTime, field, latch, latchTtl, handoff);
  }

  /** A grant written by another owner's release is what this lock's own acquire writes on a free lock. */
  protected override get takesHandoff(): boolean {
    return true;
  }

  protected override forceUnlockInner(): Promise<boolean> {
    return lockForceUnlock(this.ctx, this.rawName, this.#channel);
  }
}

/** An acquire script's reply: nil when taken, else the holder's PTTL. */
function ttlAttempt(reply: unknown): Attempt<void> {
  return reply === null ? acquired(undefined) : retryAfter(reply as number);
}

/**
 * `lock/unlockInner` (Redisson's `unlockInnerAsync`) for any lock with RLock's hash and channel (RLock,
 * FencedLock): one hold fewer, `0` published when released; re-sent with its latch if the reply was lost.
 */
export function lockUnlockInner(ctx: ClientContext, rawName: string, channel: string, leaseMs: number, field: string, latch: string, latchTtl: number): Promise<unknown> {
  return ctx.executor.eval(
    'lock/unlockInner',
    [rawName, channel, latch],
    [UNLOCK_MESSAGE, leaseMs, field, latchTtl],
    'idempotent',
  );
}

/** The reply of `lock/unlockHandoff` when it released the lock and wrote the reserved waiter's hold. */
const HANDED_OFF = 3;
/** `lock/unlockInner`'s reply for a release. */
const RELEASED = 1;

/**
 * `lock/unlockHandoff`: `lock/unlockInner` that also writes `handoff`'s waiter's hold when the release reached
 * nobody but this process's clients (exactly the subscriptions the reservation pinned) on a master without
 * replicas. Resolves as `lockUnlockInner`
 * (`1` for a release, granted or not); the waiter learns the outcome from the reservation. Re-sent with its
 * latch if the reply was lost, so a grant is written at most once and a re-sent run reports it.
 */
async function unlockHandoff(ctx: ClientContext, rawName: string, channel: string, leaseMs: number, field: string, latch: string, latchTtl: number, handoff: HandoffReservation): Promise<unknown> {
  const { terms } = handoff;
  let reply: unknown;
  try {
    reply = await ctx.executor.eval('lock/unlockHandoff', [rawName, channel, latch], [UNLOCK_MESSAGE, leaseMs, field, latchTtl, handoff.receivers, terms.field, terms.leaseMs], 'idempotent');
  } catch (error) {
    handoff.settle('unknown');
    throw error;
  }
  handoff.settle(reply === HANDED_OFF ? 'granted' : 'refused', reply === RELEASED);
  return reply === HANDED_OFF ? RELEASED : reply;
}

/** `lock/forceUnlock` for any lock with RLock's hash and channel: true when the hash was deleted. */
export async function lockForceUnlock(ctx: ClientContext, rawName: string, channel: string): Promise<boolean> {
  return (await ctx.executor.eval('lock/forceUnlock', [rawName, channel], [UNLOCK_MESSAGE])) === 1;
}
