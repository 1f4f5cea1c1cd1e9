/**
 * The only place where a Redis key or channel name is built. Every name follows Redisson's
 * `RedissonObject.prefixName` / `suffixName` rules so that Java and Node clients meet on the same keys.
 */

/**
 * Redisson's `prefixName(prefix, name)`: `prefix:{name}`, or `prefix:name` when `name` already contains
 * a `{` (then the caller's own hash tag decides the cluster slot). Only the presence of `{` is checked.
 */
export function prefixName(prefix: string, name: string): string {
  return name.includes('{') ? `${prefix}:${name}` : `${prefix}:{${name}}`;
}

/** Redisson's `suffixName(name, suffix)`: `{name}:suffix`, or `name:suffix` when `name` contains `{`. */
export function suffixName(name: string, suffix: string): string {
  return name.includes('{') ? `${name}:${suffix}` : `{${name}}:${suffix}`;
}

/** Unlock channel of the RLock family: `redisson_lock__channel:{N}`. */
export function lockChannelName(rawName: string): string {
  return prefixName('redisson_lock__channel', rawName);
}

/** Unlock idempotency latch: `redisson_unlock_latch:{N}:<requestId>` (Redisson 3.24.0+). */
export function unlockLatchName(rawName: string, requestId: string): string {
  return `${prefixName('redisson_unlock_latch', rawName)}:${requestId}`;
}

/** Hash field of one owner: `<clientUUID>:<threadId>` (Redisson's `getLockName(threadId)`). */
export function lockFieldName(clientId: string, threadId: number): string {
  return `${clientId}:${threadId}`;
}

/**
 * Maps user-facing object names to the raw names stored in Redis, like Redisson's `NameMapper`.
 * Derived keys and channels are built from the mapped name, so a Java client with the same mapper
 * meets ours on the same keys.
 */
export interface NameMapper {
  /** The raw Redis name of object `name`. */
  map(name: string): string;
  /** The object name of raw Redis name `rawName` (the inverse of {@link map}). */
  unmap(rawName: string): string;
}

/** Redisson's `DefaultNameMapper`: the identity. */
export const identityNameMapper: NameMapper = Object.freeze({
  map: (name: string) => name,
  unmap: (rawName: string) => rawName,
});

/** ReadWriteLock write owner field: `<clientUUID>:<threadId>:write` (Redisson's `RedissonWriteLock.getLockName`). */
export function writeLockFieldName(clientId: string, threadId: number): string {
  return `${lockFieldName(clientId, threadId)}:write`;
}

/** FairLock waiting queue (list of owner fields): `redisson_lock_queue:{N}`. */
export function fairLockQueueName(rawName: string): string {
  return prefixName('redisson_lock_queue', rawName);
}

/** FairLock waiter deadlines (zset, score = absolute ms): `redisson_lock_timeout:{N}`. */
export function fairLockTimeoutName(rawName: string): string {
  return prefixName('redisson_lock_timeout', rawName);
}

/** FairLock per-waiter channel: `redisson_lock__channel:{N}:<clientUUID>:<threadId>`. */
export function fairLockWaiterChannelName(rawName: string, field: string): string {
  return `${lockChannelName(rawName)}:${field}`;
}

/** FencedLock token counter: `redisson_lock_token:{N}`. */
export function fencedLockTokenName(rawName: string): string {
  return prefixName('redisson_lock_token', rawName);
}

/** ReadWriteLock channel (read and write waiters): `redisson_rwlock:{N}`. */
export function readWriteLockChannelName(rawName: string): string {
  return prefixName('redisson_rwlock', rawName);
}

/**
 * Prefix of one reader's per-hold timeout keys: `{N}:<clientUUID>:<threadId>:rwlock_timeout`; the k-th
 * nested read hold's key is `<prefix>:<k>`.
 */
export function readLockTimeoutPrefix(rawName: string, field: string): string {
  return `${suffixName(rawName, field)}:rwlock_timeout`;
}

/** Semaphore and PermitExpirableSemaphore channel: `redisson_sc:{N}`. */
export function semaphoreChannelName(rawName: string): string {
  return prefixName('redisson_sc', rawName);
}

/** PermitExpirableSemaphore lease zset: `{N}:timeout`. */
export function permitExpirableTimeoutName(rawName: string): string {
  return suffixName(rawName, 'timeout');
}

/**
 * CountDownLatch channel: `redisson_countdownlatch__channel__{N}` — always braced, even when N contains `{`
 * (Redisson builds it without the `{` check of `prefixName`).
 */
export function countDownLatchChannelName(rawName: string): string {
  return `redisson_countdownlatch__channel__{${rawName}}`;
}

// ---- every name of one primitive, for Redis Cluster's one-slot rule -----------------------------------

/** The primitives whose names the client checks in a cluster (the `get…` methods' objects). */
export type NamedPrimitive =
  | 'RLock'
  | 'FencedLock'
  | 'SpinLock'
  | 'NonReentrantLock'
  | 'FairLock'
  | 'NonReentrantFairLock'
  | 'ReadWriteLock'
  | 'Semaphore'
  | 'PermitExpirableSemaphore'
  | 'CountDownLatch';

/**
 * One key or channel a primitive uses: the whole name, or — when it ends with text known only at run time
 * (an owner field, a request id, a hold number; never containing a brace) — its fixed `head`, with `rest`
 * saying what follows.
 */
export interface UsedName {
  readonly type: 'key' | 'channel';
  /** What it is, for messages: `the lock hash`, `unlock latches`, … */
  readonly role: string;
  /** The whole name, or the head of names completed at run time. */
  readonly name: string;
  /** What completes {@link name} at run time (`<request id>`); absent for a whole name. */
  readonly rest?: string;
}

const head = (type: UsedName['type'], role: string, name: string, rest: string): UsedName => ({ type, role, name, rest });

/**
 * Every key and channel one script call or subscription of `primitive` named `rawName` may touch, built with
 * the functions above (so this list follows any change to them): in a Redis Cluster they must all hash to one
 * slot — a script's KEYS (channels included: they are passed in KEYS for the publish) must, and a sharded
 * channel lives on its slot's master.
 */
export function usedNames(primitive: NamedPrimitive, rawName: string): readonly UsedName[] {
  const hash: UsedName = { type: 'key', role: 'the lock hash', name: rawName };
  const latch = head('key', 'unlock latches', unlockLatchName(rawName, ''), '<request id>');
  const lockChannel: UsedName = { type: 'channel', role: 'the unlock channel', name: lockChannelName(rawName) };
  switch (primitive) {
    case 'RLock':
    case 'NonReentrantLock':
      return [hash, lockChannel, latch];
    case 'FencedLock':
      return [hash, { type: 'key', role: 'the token counter', name: fencedLockTokenName(rawName) }, lockChannel, latch];
    case 'SpinLock':
      // Its waiters back off instead of subscribing, and its unlock publishes nothing.
      return [hash, latch];
    case 'FairLock':
    case 'NonReentrantFairLock':
      return [
        hash,
        { type: 'key', role: 'the waiting queue', name: fairLockQueueName(rawName) },
        { type: 'key', role: 'the waiters\u2019 deadlines', name: fairLockTimeoutName(rawName) },
        lockChannel,
        head('channel', 'waiters\u2019 own channels', fairLockWaiterChannelName(rawName, ''), '<clientId>:<threadId>'),
        latch,
      ];
    case 'ReadWriteLock': {
      // A read hold's lease keys are `<prefix>:<field>:rwlock_timeout:<k>`; the prefix alone is a KEYS entry too.
      const leases = suffixName(rawName, '');
      return [
        { type: 'key', role: 'the lock hash', name: rawName },
        { type: 'channel', role: 'the lock channel', name: readWriteLockChannelName(rawName) },
        { type: 'key', role: 'the read lease key prefix', name: leases.slice(0, -1) },
        head('key', 'read lease keys', leases, '<clientId>:<threadId>:rwlock_timeout:<n>'),
        latch,
      ];
    }
    case 'Semaphore':
      return [
        { type: 'key', role: 'the permits', name: rawName },
        { type: 'channel', role: 'the semaphore channel', name: semaphoreChannelName(rawName) },
      ];
    case 'PermitExpirableSemaphore':
      return [
        { type: 'key', role: 'the permits', name: rawName },
        { type: 'key', role: 'the leases', name: permitExpirableTimeoutName(rawName) },
        { type: 'channel', role: 'the semaphore channel', name: semaphoreChannelName(rawName) },
        head('key', 'release latches', unlockLatchName(rawName, ''), '<request id>'),
      ];
    case 'CountDownLatch':
      return [
        { type: 'key', role: 'the latch', name: rawName },
        { type: 'channel', role: 'the latch channel', name: countDownLatchChannelName(rawName) },
      ];
  }
}
