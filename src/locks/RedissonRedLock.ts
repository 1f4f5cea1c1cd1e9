/**
 * Redisson's `RedissonRedLock` (deprecated in Redisson, kept for the algorithm users ask for): a
 * {@link RedissonMultiLock} that succeeds with a majority of its members, meant for members on fully
 * independent Redis masters (docs/protocol.md §11).
 */
import { DuplicateLockMemberError } from '../errors.js';
import { knownDuplicate } from './memberIdentity.js';
import { RedissonMultiLock, type MultiLockHost, type MultiLockMember, type MultiLockOptions } from './RedissonMultiLock.js';

/**
 * The RedLock algorithm over member locks on independent servers. Obtain with
 * `client.getRedLock(lockOnA, lockOnB, lockOnC, …)`.
 *
 * Acquires the members in order, each bounded by the per-node timeout (`nodeTimeout`, far below the
 * lease), and succeeds once `n/2 + 1` of them are held; with a wait time each member gets `wait / n` of
 * it. A failed acquisition sends the release to every member it touched, including those whose acquire
 * seemed to fail (the reply may have been lost after the node set the key); `unlock()` sends it to all
 * members and ignores their errors. {@link remainValidity} is the lease minus the time spent acquiring.
 * Once a majority is held, each member left gets a single attempt instead of its wait slice, so a waiter
 * granted a majority by a release is served at once (Redisson waits out the next member's slice).
 *
 * Each member must be a different lock: one client's lock given twice (its server would vote twice) is
 * refused here, the same key on one server through two clients by the first acquisition, before anything is
 * sent — both with {@link DuplicateLockMemberError}.
 *
 * Its known weak spot, as for any RedLock: a node that restarts without the lock's key (no persistence,
 * or `appendfsync everysec` losing the last second) lets a second owner reach a majority while the first
 * still holds its own. Keep a crashed node down for longer than the lease before it rejoins, or run the
 * nodes with `appendonly yes` and `appendfsync always` (see COMPATIBILITY.md).
 *
 * @example
 * ```ts
 * const red = client.getRedLock([a.getLock('job'), b.getLock('job'), c.getLock('job')], { nodeTimeout: 50 });
 * if (await red.tryLock(500, 10_000)) {
 *   try { … } finally { await red.unlock(); }
 * }
 * ```
 */
export class RedissonRedLock extends RedissonMultiLock {
  /**
   * @internal use `client.getRedLock(...)`.
   * @throws DuplicateLockMemberError when two members are one lock: the same object, or one client's locks
   *   of one name. Members of different clients on one server are refused by the first acquisition.
   */
  constructor(host: MultiLockHost, members: readonly MultiLockMember[], options?: MultiLockOptions) {
    super(host, members, options);
    // One client's lock twice: the owner would re-enter it and its server vote twice (Redisson counts it).
    const duplicate = knownDuplicate(this.getLocks());
    if (duplicate) {
      const { indexes, server } = duplicate;
      throw new DuplicateLockMemberError('RedLock', indexes, (this.getLocks()[indexes[0]] as MultiLockMember).getName(), server);
    }
  }

  /** Members that may fail: all but a majority (`n - (n/2 + 1)`). */
  protected override failedLocksLimit(): number {
    const n = this.getLocks().length;
    return n - (Math.floor(n / 2) + 1);
  }

  /** Each member gets an equal share of the remaining wait, at least 1 ms. */
  protected override lockWaitTime(remainMs: number): number {
    return Math.max(Math.trunc(remainMs / this.getLocks().length), 1);
  }

  /** What errors call this lock. */
  protected override get kind(): 'RedLock' {
    return 'RedLock';
  }

  /** Member errors on unlock are ignored: a member that was never acquired has nothing to release. */
  protected override throwsOnUnlockError(): boolean {
    return false;
  }
}
