/**
 * One `tryLock(waitTime, leaseTime)` of a MultiLock / RedLock over its member locks: Redisson's
 * `RedissonMultiLock.tryLock` loop (docs/protocol.md §11.1) — members in order, one owner for all, a limit of
 * failed members, restart from the first member while the wait lasts — plus what the RedLock algorithm asks
 * for and Redisson leaves out: a per-node timeout, a release sent to every member whose acquire may have
 * landed, and a validity shortened by the time the acquisition took. Where Redisson gives each member a
 * slice of the wait, here each member gets one attempt per round and the wait is spent between rounds,
 * listening on every member that refused (multiLockWatch.ts): a release of any of them is acted on at once.
 */
import { IllegalStateError, type NodeVote, RedisTimeoutError } from '../errors.js';
import { TimeUnit } from '../TimeUnit.js';
import { ON_REFUSED, withoutLeaseNotice, type WaitOptions } from '../args.js';
import { MultiLockWatch } from './multiLockWatch.js';
import type { MultiLockMember } from './multiLockMember.js';

export type { MemberChannel, MultiLockMember } from './multiLockMember.js';

export interface RoundParams {
  readonly members: readonly MultiLockMember[];
  /** Members that may fail: 0 for a MultiLock, `n - (n/2 + 1)` for a RedLock. */
  readonly failedLocksLimit: number;
  /** Total wait in ms; `-1`: one attempt per member. */
  readonly waitMs: number;
  /** Lease in ms; `-1`: the members' watchdogs. */
  readonly leaseMs: number;
  readonly threadId: number;
  /** Longest a member's acquire, PEXPIRE or unlock may take. */
  readonly nodeTimeoutMs: number;
  /** Aborted by the caller's signal or the client's shutdown. */
  readonly signal: AbortSignal;
  /**
   * Give up at once, instead of starting over while the wait lasts, when more members failed (errors,
   * timeouts) than may fail: `lock()` then reports a `QuorumError` rather than hammering live nodes.
   */
  readonly stopWhenUnreachable?: boolean;
}

export interface RoundOutcome {
  readonly acquired: boolean;
  /** Each member's answer in the last round. */
  readonly votes: readonly NodeVote[];
  /** `performance.now()` until which the lock is valid: lease − elapsed − drift; Infinity with the watchdog. */
  readonly validUntil: number;
}

const MS = TimeUnit.MILLISECONDS;

/**
 * Clock drift allowance of the RedLock algorithm: 1% of the lease plus 2 ms, subtracted from the validity
 * (the nodes' clocks may run slightly faster than ours).
 */
export function clockDrift(leaseMs: number): number {
  return Math.round(leaseMs * 0.01) + 2;
}

/**
 * Runs one acquisition. Resolves with the outcome; when not acquired, every member whose acquire may have
 * landed has been sent its release. Rejects with the signal's reason after releasing the same way. With a
 * wait, it listens between rounds on the members that refused it (see {@link MultiLockWatch}) and leaves no
 * subscription behind.
 */
export async function acquireMembers(p: RoundParams): Promise<RoundOutcome> {
  const watch = p.waitMs > 0 ? new MultiLockWatch(p.members, p.threadId, p.signal) : null;
  let outcome: RoundOutcome | undefined;
  try {
    outcome = await acquireLoop(p, watch);
    return outcome;
  } finally {
    watch?.close(outcome?.acquired === true);
  }
}

async function acquireLoop(p: RoundParams, watch: MultiLockWatch | null): Promise<RoundOutcome> {
  const { members, failedLocksLimit: limit, threadId } = p;
  const n = members.length;
  // Redisson acquires with twice the wait, so early members outlive the wait for the later ones, then
  // PEXPIREs every member to the lease. Without PEXPIRE on every member, the lease itself is used.
  const reExpire = p.leaseMs > 0 && members.every((m) => typeof m.expire === 'function');
  const memberLease = p.leaseMs > 0 ? (p.waitMs > 0 && reExpire ? p.waitMs * 2 : p.leaseMs) : -1;
  const started = performance.now();
  const remaining = (): number => p.waitMs - (performance.now() - started);
  // Every member gets a single attempt: the waiting happens between rounds, on every member that refused.
  // Both times absent: a plain single attempt with the watchdog, as Redisson's `lock.tryLock()`.
  const wait = p.waitMs <= 0 && p.leaseMs <= 0 ? -1 : 0;
  let roundStart = performance.now();
  let failedLimit = limit;
  let acquired = 0;
  let votes = notAsked(members);
  // Members whose acquire was granted or may have landed (failed): each gets a release if we give up.
  const touched = new Set<number>();
  // This round's refusals, with the retry delay each returned (-1: none known).
  const refused = new Map<number, number>();
  const giveUp = async (): Promise<RoundOutcome> => {
    await releaseMembers(members, touched, threadId, p.nodeTimeoutMs);
    return { acquired: false, votes, validUntil: 0 };
  };

  for (let i = 0; i < n; i++) {
    const member = members[i] as MultiLockMember;
    let granted = false;
    let retryAfter = -1;
    const onRefused = (ms: number): void => void (retryAfter = ms);
    try {
      granted = await askMember(member, wait, p, (signal) => withoutLeaseNotice(() => member.tryLock(wait, memberLease, MS, withOnRefused({ threadId, signal }, onRefused))));
      votes[i] = vote(i, member, granted ? 'granted' : 'refused');
      if (!granted) refused.set(i, retryAfter);
    } catch (error) {
      touched.add(i);
      if (p.signal.aborted) {
        await releaseMembers(members, touched, threadId, p.nodeTimeoutMs);
        throw p.signal.reason;
      }
      votes[i] = vote(i, member, 'failed', error);
    }
    if (granted) {
      acquired++;
      touched.add(i);
    } else {
      // Enough members are held already (a RedLock's majority): the acquisition succeeds.
      if (n - acquired === limit) break;
      if (failedLimit === 0) {
        await releaseMembers(members, touched, threadId, p.nodeTimeoutMs);
        const failed = votes.filter((v) => v.vote === 'failed').length;
        if (p.waitMs <= 0 || !watch || (failed > limit && p.stopWhenUnreachable)) return { acquired: false, votes, validUntil: 0 };
        if (remaining() <= 0) return { acquired: false, votes, validUntil: 0 };
        // Listen on the members that refused; a channel just added may have missed a release: retry at once.
        const fresh = await watch.watch(refused.keys(), Math.min(p.nodeTimeoutMs, Math.ceil(remaining())));
        if (!fresh) await watch.wait(Math.min(retryDelay(watch, refused, failed > 0, p.nodeTimeoutMs), remaining()));
        if (remaining() <= 0) return { acquired: false, votes, validUntil: 0 };
        // Start over from the first member with whatever wait is left.
        failedLimit = limit;
        acquired = 0;
        touched.clear();
        refused.clear();
        votes = notAsked(members);
        roundStart = performance.now();
        i = -1;
      } else {
        failedLimit--;
      }
    }
    if (p.waitMs > 0 && remaining() <= 0) return giveUp();
  }

  if (p.leaseMs <= 0) return { acquired: true, votes, validUntil: Infinity };
  let validFrom = roundStart;
  if (reExpire) {
    validFrom = performance.now();
    const lost = await reExpireMembers(members, votes, p);
    if (lost > 0) {
      const granted = votes.filter((v) => v.vote === 'granted').length;
      if (granted < n - limit) return giveUp();
    }
  }
  const validUntil = validFrom + p.leaseMs - clockDrift(p.leaseMs);
  // The acquisition took longer than the lease allows: the first members may already have expired.
  if (validUntil <= performance.now()) return giveUp();
  return { acquired: true, votes, validUntil };
}

/** `options` carrying `onRefused` under {@link ON_REFUSED}, not enumerable: the options' key check skips it. */
function withOnRefused(options: WaitOptions, onRefused: (retryAfterMs: number) => void): WaitOptions {
  return Object.defineProperty(options, ON_REFUSED, { value: onRefused });
}

/**
 * The longest wait before the next round without a release message: the shortest TTL a refusal returned.
 * A refused member that neither publishes its release nor returned a TTL, or a member that failed (its
 * node down or slow), is tried again after the per-node timeout.
 */
function retryDelay(watch: MultiLockWatch, refused: ReadonlyMap<number, number>, anyFailed: boolean, nodeTimeoutMs: number): number {
  let delay = anyFailed ? nodeTimeoutMs : Infinity;
  for (const [index, ttl] of refused) {
    if (ttl >= 0) delay = Math.min(delay, ttl);
    else if (!watch.watches(index)) delay = Math.min(delay, nodeTimeoutMs);
  }
  return delay;
}

/** PEXPIREs every granted member to the lease; a member whose key was gone becomes `failed`. */
async function reExpireMembers(members: readonly MultiLockMember[], votes: NodeVote[], p: RoundParams): Promise<number> {
  const granted = votes.filter((v) => v.vote === 'granted');
  const results = await Promise.allSettled(
    granted.map(({ index }) => {
      const member = members[index] as MultiLockMember;
      return withTimeout(member.expire?.(p.leaseMs, MS) ?? Promise.resolve(false), p.nodeTimeoutMs, member);
    }),
  );
  let lost = 0;
  results.forEach((r, k) => {
    const { index } = granted[k] as NodeVote;
    if (r.status === 'fulfilled' && r.value) return;
    lost++;
    const error: unknown = r.status === 'rejected' ? r.reason : new IllegalStateError(`lock '${(members[index] as MultiLockMember).getName()}' was gone before its lease was re-set`);
    votes[index] = vote(index, members[index] as MultiLockMember, 'failed', error);
  });
  return lost;
}

/**
 * Sends the release of `indexes` to their members, in parallel, each bounded by the per-node timeout;
 * errors (not held, node down) are ignored: a member that was not acquired has nothing to release.
 */
export async function releaseMembers(members: readonly MultiLockMember[], indexes: Iterable<number>, threadId: number, nodeTimeoutMs: number): Promise<void> {
  await Promise.allSettled(
    [...indexes].map((i) => {
      const member = members[i] as MultiLockMember;
      return withTimeout(member.unlock({ threadId }), nodeTimeoutMs, member);
    }),
  );
}

/**
 * A member's acquire, aborted when the round's signal aborts or when it takes longer than its wait
 * (`waitMs`, 0 for the single attempts of a round) plus the per-node timeout (the member then undoes an acquire that lands late by itself).
 */
async function askMember(member: MultiLockMember, waitMs: number, p: RoundParams, call: (signal: AbortSignal) => Promise<boolean>): Promise<boolean> {
  p.signal.throwIfAborted();
  const controller = new AbortController();
  const forward = (): void => controller.abort(p.signal.reason);
  p.signal.addEventListener('abort', forward, { once: true });
  const limit = Math.max(0, waitMs) + p.nodeTimeoutMs;
  const timer = setTimeout(() => controller.abort(nodeTimeout(member, limit)), limit);
  try {
    return await call(controller.signal);
  } finally {
    clearTimeout(timer);
    p.signal.removeEventListener('abort', forward);
  }
}

/** `promise`, or a `RedisTimeoutError` after `ms` (the promise then settles unobserved). */
export async function withTimeout<T>(promise: Promise<T>, ms: number, member: MultiLockMember): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(nodeTimeout(member, ms)), ms)));
  promise.catch(() => undefined);
  try {
    return await Promise.race([promise, timedOut]);
  } finally {
    clearTimeout(timer);
  }
}

function nodeTimeout(member: MultiLockMember, ms: number): RedisTimeoutError {
  return new RedisTimeoutError(`lock '${member.getName()}' did not answer within ${ms} ms (per-node timeout)`);
}

function vote(index: number, member: MultiLockMember, v: NodeVote['vote'], error?: unknown): NodeVote {
  return error === undefined ? { index, lock: member.getName(), vote: v } : { index, lock: member.getName(), vote: v, error };
}

function notAsked(members: readonly MultiLockMember[]): NodeVote[] {
  return members.map((m, i) => vote(i, m, 'not asked'));
}
