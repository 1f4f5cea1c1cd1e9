/**
 * redisson-ts: Redisson's distributed locks for Node.js on ioredis, wire-compatible with Java Redisson.
 */
export { Redisson, type LockLostEvent, type RedissonEventMap, type RedissonEvents } from './Redisson.js';
export type { MasterSwitch } from './connection/driver.js';
export { RObject } from './RObject.js';
export { RExpirable } from './RExpirable.js';
export { BaseLock } from './locks/BaseLock.js';
export { RLock } from './locks/RLock.js';
export { RedissonFencedLock } from './locks/RedissonFencedLock.js';
export { fencedLockTokenName } from './keys.js';
export { RedissonSpinLock } from './locks/RedissonSpinLock.js';
export { NON_REENTRANT_REACQUIRE, RedissonNonReentrantLock } from './locks/RedissonNonReentrantLock.js';
export { RedissonFairLock } from './locks/RedissonFairLock.js';
export { RedissonNonReentrantFairLock } from './locks/RedissonNonReentrantFairLock.js';
export { fairLockQueueName, fairLockTimeoutName, fairLockWaiterChannelName } from './keys.js';
export {
  ConstantBackOff,
  ExponentialBackOff,
  ExponentialBackOffPolicy,
  LockOptions,
  type BackOff,
  type BackOffPolicy,
} from './wait/backOff.js';
export { RedissonReadWriteLock } from './locks/RedissonReadWriteLock.js';
export { RedissonReadLock } from './locks/RedissonReadLock.js';
export { RedissonWriteLock } from './locks/RedissonWriteLock.js';
export { ReadWriteHalf } from './locks/ReadWriteHalf.js';
export { readLockTimeoutPrefix, readWriteLockChannelName, writeLockFieldName } from './keys.js';
export { RedissonMultiLock, type MultiLockMember, type MultiLockOptions } from './locks/RedissonMultiLock.js';
export { RedissonFasterMultiLock, type FasterMultiLockCodec, type FasterMultiLockOptions, type FasterMultiLockValue } from './locks/RedissonFasterMultiLock.js';
export { RedissonRedLock } from './locks/RedissonRedLock.js';
export { RSemaphore } from './sync/RSemaphore.js';
export { NON_EXPIRABLE_SCORE, RPermitExpirableSemaphore, type PermitId } from './sync/RPermitExpirableSemaphore.js';
export { RCountDownLatch } from './sync/RCountDownLatch.js';
export { MAX_PERMITS, type SignalOptions } from './args.js';
export { countDownLatchChannelName, permitExpirableTimeoutName, semaphoreChannelName } from './keys.js';
export { LockHold } from './locks/LockHold.js';
export type { HoldOptions, TryHoldOptions } from './locks/holdArgs.js';
export { MultiLockHold } from './locks/MultiLockHold.js';
export { SemaphoreHold, PermitExpirableHold } from './sync/SemaphoreHold.js';
export type { PermitHoldOptions, TryPermitHoldOptions, LeasedPermitHoldOptions, TryLeasedPermitHoldOptions } from './sync/holdArgs.js';
export type { OwnerOptions, WaitOptions } from './args.js';
export { TimeUnit } from './TimeUnit.js';
export { readRedissonConfig, type FromConfigOptions, type RedissonConfig, type RedissonConfigSource, type ServerAddress } from './fromConfig.js';
export {
  CHANNELS as DIAGNOSTICS_CHANNELS,
  type AcquireContext,
  type DiagnosticsTarget,
  type LostContext,
  type ReleaseContext,
  type RenewalContext,
  type WaitContext,
} from './diagnostics.js';
export { DEFAULTS, type MasterSlaveConnectionOptions, type RedissonOptions, type ReplicatedConnectionOptions, type ResolvedOptions } from './config.js';
export { ConstantDelay, DecorrelatedJitterDelay, EqualJitterDelay, FullJitterDelay, type DelayStrategy } from './DelayStrategy.js';
export type { IoredisLikeCluster, IoredisLikeOptions, IoredisLikeRedis } from './connection/ioredis/types.js';
export {
  ArgumentRangeError,
  ConnectionLostError,
  CrossSlotNameError,
  InvalidArgumentError,
  isRedissonError,
  type ConnectionWait,
  type RedissonErrorCode,
  DuplicateLockMemberError,
  IllegalStateError,
  PermitNotHeldError,
  NoSyncedSlavesError,
  RedisConnectionError,
  IllegalMonitorStateError,
  LockLostError,
  QuorumError,
  RedisTimeoutError,
  RedissonError,
  RedissonShutdownError,
  RedissonConfigError,
  RedisDriverMissingError,
  KeyspaceNotificationsDisabledError,
  type NodeVote,
  type PlacedName,
} from './errors.js';
export type { DeletedObjectListener, ExpiredObjectListener, ObjectListener } from './listeners.js';
export { identityNameMapper, lockChannelName, prefixName, suffixName, unlockLatchName, type NameMapper } from './keys.js';
export { NEW_COUNT_MESSAGE, READ_UNLOCK_MESSAGE, UNLOCK_MESSAGE, ZERO_COUNT_MESSAGE } from './pubsub/wakePolicies.js';
