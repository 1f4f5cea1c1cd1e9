/**
 * Redisson's reentrant lock (`RedissonLock`), wire-identical: a hash `N` with one field
 * `<clientUUID>:<threadId>` → hold count, a PTTL lease, `0` published on `redisson_lock__channel:{N}`
 * at release, and the unlock latch of Redisson 3.24+.
 */
import type { ClientContext } from '../ClientContext.js';
import { lockChannelName } from '../keys.js';
import { UNLOCK_MESSAGE } from '../pubsub/wakePolicies.js';
import { acquired, retryAfter, type Attempt } from '../wait/acquire.js';
import { BaseLock, type AcquireRequest } from './BaseLock.js';

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

  /** @internal use `client.getLock(name)`. */
  constructor(ctx: ClientContext, name: string) {
    super(ctx, name);
    this.#channel = lockChannelName(this.rawName);
  }

  protected override get channelName(): string {
    return this.#channel;
  }

  /** `lock/tryLockInner`: take or re-enter; otherwise the holder's PTTL. */
  protected override async tryAcquireOnce({ leaseMs, field, threadId }: AcquireRequest): Promise<Attempt<void>> {
    const undo = this.undoUnsynced(field, threadId, (r) => r === null);
    const ttl = (await this.ctx.executor.eval('lock/tryLockInner', [this.rawName], [leaseMs, field], 'never', undo)) as number | null;
    return ttl === null ? acquired(undefined) : retryAfter(ttl);
  }

  protected override unlockInner(field: string, latch: string, latchTtl: number): Promise<unknown> {
    return lockUnlockInner(this.ctx, this.rawName, this.#channel, this.internalLockLeaseTime, field, latch, latchTtl);
  }

  protected override forceUnlockInner(): Promise<boolean> {
    return lockForceUnlock(this.ctx, this.rawName, this.#channel);
  }
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

/** `lock/forceUnlock` for any lock with RLock's hash and channel: true when the hash was deleted. */
export async function lockForceUnlock(ctx: ClientContext, rawName: string, channel: string): Promise<boolean> {
  return (await ctx.executor.eval('lock/forceUnlock', [rawName, channel], [UNLOCK_MESSAGE])) === 1;
}
