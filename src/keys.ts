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
