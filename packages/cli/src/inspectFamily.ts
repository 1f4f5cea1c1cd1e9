/**
 * What `inspect` reads beyond the RLock hash: the layouts of the rest of the family (PROTOCOL.md §3, §4, §6,
 * §8–§10), found from the keys beside `N` or named with `--kind`.
 *
 * - FairLock: the queue `redisson_lock_queue:{N}` (owner fields in order) and the deadlines
 *   `redisson_lock_timeout:{N}` (absolute ms), each waiter's own channel.
 * - FencedLock: the token counter `redisson_lock_token:{N}` (the last token issued).
 * - ReadWriteLock: `mode` in the hash, writer fields `…:write`, each read hold's lease key
 *   `{N}:<field>:rwlock_timeout:<k>`, channel `redisson_rwlock:{N}`.
 * - Semaphore: `N` is the number of available permits, channel `redisson_sc:{N}`; a PermitExpirableSemaphore
 *   adds the leased permits `{N}:timeout` (permit id → absolute expiry).
 * - CountDownLatch: `N` is the count, channel `redisson_countdownlatch__channel__{N}`.
 * A number in `N` alone cannot say semaphore or latch: the channel with waiters decides, else `--kind`.
 */
import type { Redis } from 'ioredis';
import {
  countDownLatchChannelName,
  fairLockQueueName,
  fairLockTimeoutName,
  fairLockWaiterChannelName,
  fencedLockTokenName,
  permitExpirableTimeoutName,
  readLockTimeoutPrefix,
  readWriteLockChannelName,
  semaphoreChannelName,
} from 'redisson-ts';

/** The `--kind` values; `auto` reads the layout from the keys present. */
export const INSPECT_KINDS = ['auto', 'lock', 'fair', 'fenced', 'rwlock', 'semaphore', 'latch'] as const;
export type InspectKind = (typeof INSPECT_KINDS)[number];

/** What the keys say the name is. */
export type Primitive = 'lock' | 'fairLock' | 'fencedLock' | 'readWriteLock' | 'semaphore' | 'permitExpirableSemaphore' | 'countDownLatch';

/** One waiter of a FairLock queue, in queue order. */
export interface QueuedWaiter {
  readonly field: string;
  /** Its deadline (ms from now) in the timeout zset; null when the zset has no entry for it. */
  readonly deadlineInMs: number | null;
  /** Subscribers of its own channel (1 while it waits there). */
  readonly subscribers: number;
}

/** One read hold's lease key of a ReadWriteLock owner. */
export interface ReadLease {
  readonly key: string;
  readonly ttlMs: number;
}

/** One leased permit of a PermitExpirableSemaphore. */
export interface LeasedPermit {
  readonly permitId: string;
  /** ms until it expires; null when it never does. */
  readonly expiresInMs: number | null;
}

/** The family's part of the report; only the fields of the detected primitive are set. */
export interface FamilyInfo {
  readonly primitive: Primitive | null;
  /** Set when auto-detection could not choose (a bare number: semaphore or latch). */
  readonly ambiguous?: readonly Primitive[];
  readonly mode?: 'read' | 'write' | null;
  readonly queue?: readonly QueuedWaiter[];
  readonly token?: number | null;
  readonly readLeases?: Readonly<Record<string, readonly ReadLease[]>>;
  readonly permits?: number | null;
  readonly leasedPermits?: readonly LeasedPermit[];
  readonly count?: number | null;
}

async function numsub(redis: Redis, channel: string): Promise<number> {
  const reply = (await redis.pubsub('NUMSUB', channel)) as [string, number | string];
  return Number(reply[1] ?? 0);
}

/** Redis's clock (ms), so deadlines are read against the clock that wrote them. */
async function serverNow(redis: Redis): Promise<number> {
  const [s, us] = (await redis.time()) as [string | number, string | number];
  return Number(s) * 1000 + Math.floor(Number(us) / 1000);
}

/** The score Redisson gives a permit acquired without a lease (`nonExpirableTimeout`): it never expires. */
const NON_EXPIRABLE_SCORE = 922_337_203_685_477;

const asInteger = (value: string | null): number | null => (value !== null && /^-?\d+$/.test(value) ? Number(value) : null);

/** Picks the primitive from the keys present, unless `kind` names it. */
export async function detectPrimitive(redis: Redis, name: string, type: string, kind: InspectKind): Promise<{ primitive: Primitive | null; ambiguous?: Primitive[] }> {
  switch (kind) {
    case 'lock':
      return { primitive: 'lock' };
    case 'fair':
      return { primitive: 'fairLock' };
    case 'fenced':
      return { primitive: 'fencedLock' };
    case 'rwlock':
      return { primitive: 'readWriteLock' };
    case 'semaphore':
      return { primitive: (await redis.exists(permitExpirableTimeoutName(name))) === 1 ? 'permitExpirableSemaphore' : 'semaphore' };
    case 'latch':
      return { primitive: 'countDownLatch' };
    case 'auto':
      break;
  }
  if (type === 'hash') {
    const mode = await redis.hget(name, 'mode');
    if (mode === 'read' || mode === 'write') return { primitive: 'readWriteLock' };
  }
  if (type === 'hash' || type === 'none') {
    const [queue, timeouts, token] = await Promise.all([redis.exists(fairLockQueueName(name)), redis.exists(fairLockTimeoutName(name)), redis.exists(fencedLockTokenName(name))]);
    if (queue + timeouts > 0) return { primitive: 'fairLock' };
    if (token > 0) return { primitive: 'fencedLock' };
    if (type === 'hash') return { primitive: 'lock' };
    if ((await numsub(redis, readWriteLockChannelName(name))) > 0) return { primitive: 'readWriteLock' };
    if ((await redis.exists(permitExpirableTimeoutName(name))) === 1) return { primitive: 'permitExpirableSemaphore' };
    return { primitive: null };
  }
  if (type === 'string' && asInteger(await redis.get(name)) !== null) {
    if ((await redis.exists(permitExpirableTimeoutName(name))) === 1) return { primitive: 'permitExpirableSemaphore' };
    const [sem, latch] = await Promise.all([numsub(redis, semaphoreChannelName(name)), numsub(redis, countDownLatchChannelName(name))]);
    if (sem > 0 && latch === 0) return { primitive: 'semaphore' };
    if (latch > 0 && sem === 0) return { primitive: 'countDownLatch' };
    return { primitive: null, ambiguous: ['semaphore', 'countDownLatch'] };
  }
  return { primitive: null };
}

/** The channel waiters of `primitive` listen on (a FairLock's waiters also have their own). */
export function channelOf(primitive: Primitive | null, name: string, lockChannel: string): string {
  switch (primitive) {
    case 'readWriteLock':
      return readWriteLockChannelName(name);
    case 'semaphore':
    case 'permitExpirableSemaphore':
      return semaphoreChannelName(name);
    case 'countDownLatch':
      return countDownLatchChannelName(name);
    default:
      return lockChannel;
  }
}

/** Reads the family part of the report for `primitive`. */
export async function readFamily(redis: Redis, name: string, primitive: Primitive | null, fields: Readonly<Record<string, string>>): Promise<Omit<FamilyInfo, 'primitive' | 'ambiguous'>> {
  switch (primitive) {
    case 'fairLock': {
      const [queue, now] = await Promise.all([redis.lrange(fairLockQueueName(name), 0, -1), serverNow(redis)]);
      const waiters = await Promise.all(
        queue.map(async (field): Promise<QueuedWaiter> => {
          const [score, subscribers] = await Promise.all([redis.zscore(fairLockTimeoutName(name), field), numsub(redis, fairLockWaiterChannelName(name, field))]);
          return { field, deadlineInMs: score === null ? null : Math.round(Number(score)) - now, subscribers };
        }),
      );
      return { queue: waiters };
    }
    case 'fencedLock':
      return { token: asInteger(await redis.get(fencedLockTokenName(name))) ?? 0 };
    case 'readWriteLock': {
      const mode = fields['mode'];
      const readLeases: Record<string, ReadLease[]> = {};
      for (const [field, value] of Object.entries(fields)) {
        if (field === 'mode' || field.endsWith(':write')) continue;
        const holds = asInteger(value) ?? 0;
        const prefix = readLockTimeoutPrefix(name, field);
        const keys = Array.from({ length: Math.min(holds, 1_000) }, (_, k) => `${prefix}:${k + 1}`);
        const ttls = await Promise.all(keys.map((key) => redis.pttl(key)));
        readLeases[field] = keys.map((key, i) => ({ key, ttlMs: ttls[i] as number }));
      }
      return { mode: mode === 'read' || mode === 'write' ? mode : null, readLeases };
    }
    case 'semaphore':
      return { permits: asInteger(await redis.get(name)) ?? 0 };
    case 'permitExpirableSemaphore': {
      // Permit ids are 16 raw bytes in the zset; Redisson shows them as 32 hex digits.
      const [permits, entries, now] = await Promise.all([redis.get(name), redis.zrangeBuffer(permitExpirableTimeoutName(name), 0, -1, 'WITHSCORES'), serverNow(redis)]);
      const leasedPermits: LeasedPermit[] = [];
      for (let i = 0; i < entries.length; i += 2) {
        const score = Number(String(entries[i + 1]));
        leasedPermits.push({ permitId: (entries[i] as Buffer).toString('hex'), expiresInMs: score >= NON_EXPIRABLE_SCORE ? null : Math.round(score) - now });
      }
      return { permits: asInteger(permits) ?? 0, leasedPermits };
    }
    case 'countDownLatch':
      return { count: asInteger(await redis.get(name)) ?? 0 };
    default:
      return {};
  }
}
