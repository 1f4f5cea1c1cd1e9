/**
 * Redisson's `RedissonMultiLock`: one lock made of several member locks, possibly from different clients
 * on different Redis servers, all taken by one owner. It has no Redis keys of its own; everything on the
 * wire is the members' own scripts (docs/protocol.md §11).
 */
import type { ClientContext } from '../ClientContext.js';
import { requireInteger } from '../config.js';
import { ArgumentRangeError, DuplicateLockMemberError, InvalidArgumentError, QuorumError } from '../errors.js';
import type { TimeUnit } from '../TimeUnit.js';
import { noteLease, parseOwnerOptions, parseTimes, requirePlainOptions, type OwnerOptions, type WaitOptions } from '../args.js';
import { parseHoldOptions, type HoldOptions, type TryHoldOptions } from './holdArgs.js';
import { serverDuplicate } from './memberIdentity.js';
import { MultiLockHold } from './MultiLockHold.js';
import { acquireMembers, withTimeout, type MultiLockMember, type RoundOutcome } from './multiLockRound.js';

export type { MultiLockMember } from './multiLockRound.js';

/** Options of `getMultiLock` / `getRedLock`. */
export interface MultiLockOptions {
  /**
   * Longest (ms) one member's acquire attempt may take, and one member's PEXPIRE or unlock:
   * a slower node is skipped (its vote is `failed`) and a late acquire on it is undone. The RedLock
   * algorithm wants it far below the lease.
   * @default a tenth of the lease, between 10 and 3000 ms; 3000 ms (Redisson's response `timeout`) without a lease
   */
  nodeTimeout?: number;
}

/** What a multilock needs of the client that made it: owner ids, and its shutdown. */
export type MultiLockHost = Pick<ClientContext, 'id' | 'currentThreadId' | 'allocateThreadId' | 'trackWaiter' | 'untrackWaiter' | 'ensureOpen' | 'noteLease'>;

/** Redisson's response timeout default, the per-node timeout when no lease bounds it. */
const DEFAULT_NODE_TIMEOUT_MS = 3_000;

/**
 * All member locks, or none. Obtain with `client.getMultiLock(lock1, lock2, …)`.
 *
 * Every member is acquired by the same owner (see {@link threadId}), in order, one attempt each; when one
 * cannot be had, `tryLock(wait, lease)` releases the others and, while the wait lasts, listens for the
 * release of every member that refused it (on each member's own client) and starts over as soon as one is
 * published — or when the shortest TTL those members returned has run out. Redisson instead gives each
 * member the remaining wait, holding the members before it meanwhile. Times are milliseconds unless a {@link TimeUnit} follows them; `-1` means "not given".
 * Redisson's `isLocked`, `forceUnlock`, `getHoldCount` and `remainTimeToLive` throw
 * `UnsupportedOperationException` on a multilock; here they do not exist.
 *
 * One client's lock given twice re-enters (as in Redisson); the same key on the same server through two
 * clients could never be acquired (two owner fields) and is refused by the first acquisition, before anything
 * is sent, with `DuplicateLockMemberError`.
 *
 * @example
 * ```ts
 * const multi = client.getMultiLock(clientA.getLock('a'), clientB.getLock('b'));
 * await multi.lock(10, TimeUnit.SECONDS);
 * try { … } finally { await multi.unlock(); }
 * ```
 */
export class RedissonMultiLock {
  readonly #host: MultiLockHost;
  readonly #members: readonly MultiLockMember[];
  readonly #nodeTimeout: number | undefined;
  #threadId: number | undefined;
  #validUntil = 0;
  /** The owner whose acquisition set {@link #validUntil}: only its release ends that validity. */
  #validOwner: number | null = null;

  /** @internal use `client.getMultiLock(...)`. */
  constructor(host: MultiLockHost, members: readonly MultiLockMember[], options: MultiLockOptions = {}) {
    this.#host = host;
    this.#members = requireMembers(members);
    this.#nodeTimeout = options.nodeTimeout === undefined ? undefined : requireInteger(options.nodeTimeout, 'nodeTimeout', 1);
  }

  /** The member locks, in acquisition order. */
  getLocks(): readonly MultiLockMember[] {
    return this.#members;
  }

  /**
   * The thread id this object uses when neither an explicit id nor a `runInThread` flow of its client
   * applies. Every member is called with the same id.
   */
  get threadId(): number {
    this.#threadId ??= this.#host.allocateThreadId();
    return this.#threadId;
  }

  // What the short-lease warning calls this lock: its members' names.
  #label(): string {
    return `${this.kind}(${this.#members.map((m) => m.getName()).join(', ')})`;
  }

  /**
   * Acquires all members (a RedLock: a majority), waiting as long as it takes: rounds of `tryLock` with
   * Redisson's wait (`n × 1500` ms, or a random part of the lease). Redisson `lock()` / `lock(leaseTime, unit)`.
   * `leaseTime`: the lease; omitted or `-1`: each member's watchdog.
   * @throws QuorumError when a round failed because more members failed (down, slower than `nodeTimeout`)
   *   than may fail: waiting would not help (Redisson would retry forever).
   * @throws the signal's reason on abort; `RedissonShutdownError` when the client shuts down meanwhile.
   */
  lock(options?: WaitOptions): Promise<void>;
  lock(leaseTime: number, options?: WaitOptions): Promise<void>;
  lock(leaseTime: number, unit?: TimeUnit, options?: WaitOptions): Promise<void>;
  async lock(...args: unknown[]): Promise<void> {
    const { times, options } = parseTimes('lock', args, ['leaseTime']);
    this.#host.ensureOpen();
    const leaseMs = times[0] ?? -1;
    noteLease(this.#host, this.#label(), leaseMs);
    await this.#lockRounds(leaseMs, options);
  }

  /** `lock()`'s rounds: until one acquires, or one fails with more members unreachable than may fail. */
  async #lockRounds(leaseMs: number, options: WaitOptions): Promise<RoundOutcome> {
    for (;;) {
      const outcome = await this.#acquire(roundWait(this.#members.length, leaseMs), leaseMs, options, true);
      if (outcome.acquired) return outcome;
      const failed = outcome.votes.filter((v) => v.vote === 'failed').length;
      if (failed > this.failedLocksLimit()) throw new QuorumError(this.#members.length - this.failedLocksLimit(), outcome.votes);
    }
  }

  /**
   * Acquires the multilock, waiting as long as it takes (as {@link lock}), and returns the hold: release it once
   * (or `await using` it), pass `hold.signal` to the guarded work. Each call is an owner of its own unless
   * `threadId` or a `runInThread` flow says otherwise, so concurrent flows sharing one multilock object exclude
   * each other. `leaseTime` in ms; omitted or `-1`: the members' watchdogs.
   * @throws QuorumError, the signal's reason, `RedissonShutdownError`: as {@link lock}; nothing is left held.
   * @example
   * ```ts
   * await using hold = await red.acquire({ leaseTime: 10_000 });
   * await settle(batch, { signal: hold.signal });
   * ```
   */
  async acquire(options?: HoldOptions): Promise<MultiLockHold> {
    const { leaseMs, owner } = parseHoldOptions('acquire', options, false);
    this.#host.ensureOpen();
    noteLease(this.#host, this.#label(), leaseMs);
    const threadId = this.#holdOwner(owner.threadId);
    const outcome = await this.#lockRounds(leaseMs, { threadId, ...(owner.signal ? { signal: owner.signal } : {}) });
    return this.#holdOf(threadId, outcome);
  }

  /**
   * Like {@link acquire}, but gives up: one attempt on each member, or waits up to `waitTime` ms in total.
   * @returns the hold, or `null` when the multilock was not acquired in time (nothing is then left held).
   */
  async tryAcquire(options?: TryHoldOptions): Promise<MultiLockHold | null> {
    const { leaseMs, waitMs, owner } = parseHoldOptions('tryAcquire', options, true);
    this.#host.ensureOpen();
    noteLease(this.#host, this.#label(), leaseMs);
    const threadId = this.#holdOwner(owner.threadId);
    const outcome = await this.#acquire(waitMs === 0 ? -1 : waitMs, leaseMs, { threadId, ...(owner.signal ? { signal: owner.signal } : {}) });
    return outcome.acquired ? this.#holdOf(threadId, outcome) : null;
  }

  /**
   * Runs `fn` under the multilock and always releases it. `fn` gets the hold's signal.
   * @throws whatever `fn` throws, once released; the release's error when the release fails.
   * @example await multi.withLock(async (signal) => { await transfer(a, b, { signal }); });
   */
  async withLock<R>(fn: (signal: AbortSignal) => R | Promise<R>, options?: HoldOptions): Promise<R> {
    const hold = await this.acquire(options);
    try {
      return await fn(hold.signal);
    } finally {
      await hold.release();
    }
  }

  /** A hold's owner: the one named, else the `runInThread` flow's, else a fresh one per acquisition. */
  #holdOwner(named: number | undefined): number {
    return named ?? this.#host.currentThreadId() ?? this.#host.allocateThreadId();
  }

  #holdOf(threadId: number, outcome: RoundOutcome): MultiLockHold {
    const granted = outcome.votes.filter((v) => v.vote === 'granted').map((v) => v.index);
    const owner = { label: this.#label(), clientId: this.#host.id, unlock: (o: { threadId: number }) => this.unlock(o) };
    const required = this.#members.length - this.failedLocksLimit();
    return new MultiLockHold(owner, threadId, { members: this.#members, granted, required, validUntil: outcome.validUntil });
  }

  /**
   * Without arguments: one attempt on each member, never waits (Redisson `tryLock()`). With a wait time:
   * waits up to it in total. Redisson `tryLock(waitTime, unit)` and `tryLock(waitTime, leaseTime, unit)`.
   * @returns true when acquired; false otherwise, with nothing left held on any member.
   */
  tryLock(options?: WaitOptions): Promise<boolean>;
  tryLock(waitTime: number, options?: WaitOptions): Promise<boolean>;
  tryLock(waitTime: number, unit?: TimeUnit, options?: WaitOptions): Promise<boolean>;
  tryLock(waitTime: number, leaseTime: number, options?: WaitOptions): Promise<boolean>;
  tryLock(waitTime: number, leaseTime: number, unit?: TimeUnit, options?: WaitOptions): Promise<boolean>;
  async tryLock(...args: unknown[]): Promise<boolean> {
    const { times, options } = parseTimes('tryLock', args, ['waitTime', 'leaseTime']);
    this.#host.ensureOpen();
    const [waitMs = -1, leaseMs = -1] = times;
    noteLease(this.#host, this.#label(), leaseMs);
    return (await this.#acquire(waitMs, leaseMs, options)).acquired;
  }

  /**
   * Releases every member (all of them: one whose acquire seemed to fail may still have been set).
   * @throws the first member's error (`IllegalMonitorStateError` when a member was not held) after all
   *   members were sent their release. A RedLock ignores member errors, as Redisson's does.
   */
  async unlock(options?: OwnerOptions): Promise<void> {
    const threadId = this.#owner(parseOwnerOptions(options));
    this.#host.ensureOpen();
    // Another owner's release (a hold of another flow through this object) leaves the last acquisition's validity.
    if (threadId === this.#validOwner) {
      this.#validUntil = 0;
      this.#validOwner = null;
    }
    const timeout = this.#nodeTimeoutFor(-1);
    const results = await Promise.allSettled(this.#members.map((m) => withTimeout(m.unlock({ threadId }), timeout, m)));
    const failure = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failure && this.throwsOnUnlockError()) throw failure.reason;
  }

  /** True when thread `threadId` holds every member (Redisson: the AND over the members, also for a RedLock). */
  async isHeldByThread(threadId: number): Promise<boolean> {
    const held = await Promise.all(this.#members.map((m) => m.isHeldByThread(threadId)));
    return held.every(Boolean);
  }

  /** True when the current owner (explicit, `runInThread` flow, else this object's id) holds every member. */
  isHeldByCurrentThread(options?: OwnerOptions): Promise<boolean> {
    return this.isHeldByThread(this.#owner(parseOwnerOptions(options)));
  }

  /**
   * Milliseconds left of the validity of the last acquisition through this object: the lease minus the
   * time the acquisition took minus the clock drift allowance (1% + 2 ms). `-1` when it was taken with the
   * watchdog (no lease), `0` when nothing is held (or the validity ran out). Not in Redisson.
   */
  remainValidity(): number {
    if (this.#validUntil === Infinity) return -1;
    return Math.max(0, Math.floor(this.#validUntil - performance.now()));
  }

  /** Members that may fail to be acquired: none. Redisson `failedLocksLimit()`. */
  protected failedLocksLimit(): number {
    return 0;
  }

  /** What errors call this lock. */
  protected get kind(): 'MultiLock' | 'RedLock' {
    return 'MultiLock';
  }

  /** Whether `unlock()` reports a member's error (MultiLock) or ignores it (RedLock). */
  protected throwsOnUnlockError(): boolean {
    return true;
  }

  /**
   * Before an acquisition sends anything to a member: refuses members of different clients that reach one key
   * on one server (each client's server is asked for its `run_id` once per connection), which could never both
   * be acquired — each client writes its own owner field. A member whose server does not answer within the
   * per-node timeout cannot be compared; the next acquisition asks again.
   * @throws DuplicateLockMemberError naming the two members.
   */
  async #verifyMembers(nodeTimeoutMs: number, signal: AbortSignal): Promise<void> {
    const duplicate = await serverDuplicate(this.#members, nodeTimeoutMs, signal);
    if (!duplicate) return;
    throw new DuplicateLockMemberError(this.kind, duplicate.indexes, (this.#members[duplicate.indexes[0]] as MultiLockMember).getName(), duplicate.server);
  }

  async #acquire(waitMs: number, leaseMs: number, options: WaitOptions, stopWhenUnreachable = false): Promise<RoundOutcome> {
    const threadId = this.#owner(options);
    const user = options.signal;
    user?.throwIfAborted();
    // One signal for the members: the caller's, or this client's shutdown.
    const scope = new AbortController();
    const forward = (): void => scope.abort(user?.reason);
    user?.addEventListener('abort', forward, { once: true });
    const waiter = { abortWait: (reason: Error) => scope.abort(reason) };
    this.#host.trackWaiter(waiter);
    try {
      const nodeTimeoutMs = this.#nodeTimeoutFor(leaseMs);
      const checkedFrom = performance.now();
      await this.#verifyMembers(nodeTimeoutMs, scope.signal);
      // The check is part of the wait: a wait given is what is left of it (at least 1 ms, still a wait).
      const left = waitMs > 0 ? Math.max(1, waitMs - Math.floor(performance.now() - checkedFrom)) : waitMs;
      const outcome = await acquireMembers({
        members: this.#members,
        failedLocksLimit: this.failedLocksLimit(),
        waitMs: left,
        leaseMs,
        threadId,
        nodeTimeoutMs,
        signal: scope.signal,
        stopWhenUnreachable,
      });
      if (outcome.acquired) {
        this.#validUntil = outcome.validUntil;
        this.#validOwner = threadId;
      }
      return outcome;
    } finally {
      this.#host.untrackWaiter(waiter);
      user?.removeEventListener('abort', forward);
    }
  }

  #nodeTimeoutFor(leaseMs: number): number {
    if (this.#nodeTimeout !== undefined) return this.#nodeTimeout;
    return leaseMs > 0 ? Math.min(DEFAULT_NODE_TIMEOUT_MS, Math.max(10, Math.floor(leaseMs / 10))) : DEFAULT_NODE_TIMEOUT_MS;
  }

  /** The owner of a call, in one place (issue 9 redesigns shared-object ownership). */
  #owner(options: OwnerOptions): number {
    return options.threadId ?? this.#host.currentThreadId() ?? this.threadId;
  }
}

/**
 * The wait of each round of `lock()`, as Redisson's `lockAsync`: `n × 1500` ms without a lease; with one,
 * at least 2000 ms, else a random value in [lease/2, lease), or in [n × 1500, lease) for a longer lease.
 */
export function roundWait(n: number, leaseMs: number): number {
  const base = n * 1500;
  if (leaseMs <= 0) return base;
  if (leaseMs <= 2000) return 2000;
  const from = leaseMs <= base ? Math.floor(leaseMs / 2) : base;
  return from + Math.floor(Math.random() * (leaseMs - from));
}

/** Throws unless `members` is a non-empty list of locks. */
function requireMembers(members: readonly MultiLockMember[]): readonly MultiLockMember[] {
  const list: unknown = members;
  if (!Array.isArray(list) || list.length === 0) throw new ArgumentRangeError('Lock objects are not defined: pass at least one lock');
  members.forEach((m: unknown, i) => {
    const lock = m as Partial<Record<keyof MultiLockMember, unknown>> | null;
    if (typeof lock !== 'object' || lock === null || typeof lock.tryLock !== 'function' || typeof lock.unlock !== 'function' || typeof lock.isHeldByThread !== 'function' || typeof lock.getName !== 'function') {
      throw new InvalidArgumentError(`Expected lock #${i} to be a lock (such as an RLock from client.getLock), got ${lock === null ? 'null' : typeof lock}`);
    }
  });
  return Object.freeze([...members]);
}

/** Keys of {@link MultiLockOptions}. */
const OPTION_KEYS = ['nodeTimeout'] as const;
/** What a misplaced key of `getMultiLock`'s options is meant for. */
const OPTION_HINTS: Readonly<Record<string, string>> = {
  waitTime: '(`waitTime` is an argument of tryLock)',
  leaseTime: '(`leaseTime` is an argument of lock and tryLock)',
  threadId: '(`threadId` is an option of lock, tryLock and unlock)',
  signal: '(`signal` is an option of lock and tryLock)',
};

/**
 * Splits `method`'s arguments (`getMultiLock` / `getRedLock`): either `(lock, lock, …)` or
 * `(locks[], options?)`; options with a key that is not a {@link MultiLockOptions} key are a `TypeError`, as
 * in `Redisson.create`.
 * @internal
 */
export function parseMemberArgs(method: string, args: readonly unknown[]): { members: MultiLockMember[]; options: MultiLockOptions } {
  const [first, second, ...rest] = args;
  if (Array.isArray(first)) {
    if (rest.length > 0) throw new InvalidArgumentError(`${method}: expected (locks[], options?) or (lock, lock, …)`);
    if (second !== undefined) requirePlainOptions(second, `${method} options`, OPTION_KEYS, OPTION_HINTS);
    const members: readonly unknown[] = first;
    return { members: members as MultiLockMember[], options: second ?? {} };
  }
  return { members: args as MultiLockMember[], options: {} };
}
