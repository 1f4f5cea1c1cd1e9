/**
 * redisson-ts: Redisson's distributed locks for Node.js on ioredis, wire-compatible with Java Redisson.
 */
export { Redisson, type LockLostEvent, type RedissonEventMap, type RedissonEvents } from './Redisson.js';
export { BaseLock } from './locks/BaseLock.js';
export { RLock } from './locks/RLock.js';
export { LockHold } from './locks/LockHold.js';
export type { HoldOptions, TryHoldOptions } from './locks/holdArgs.js';
export type { OwnerOptions, WaitOptions } from './locks/lockArgs.js';
export { TimeUnit } from './TimeUnit.js';
export { DEFAULTS, type RedissonOptions, type ResolvedOptions } from './config.js';
export {
  ConnectionLostError,
  IllegalStateError,
  RedisConnectionError,
  IllegalMonitorStateError,
  LockLostError,
  RedisTimeoutError,
  RedissonError,
  RedissonShutdownError,
} from './errors.js';
export { identityNameMapper, lockChannelName, prefixName, suffixName, unlockLatchName, type NameMapper } from './keys.js';
export { NEW_COUNT_MESSAGE, READ_UNLOCK_MESSAGE, UNLOCK_MESSAGE, ZERO_COUNT_MESSAGE } from './pubsub/wakePolicies.js';
