/**
 * redisson-ts: Redisson's distributed locks for Node.js on ioredis, wire-compatible with Java Redisson.
 */
export { Redisson, type LockLostEvent, type RedissonEvents } from './Redisson.js';
export { RLock } from './locks/RLock.js';
export type { OwnerOptions, WaitOptions } from './locks/lockArgs.js';
export { TimeUnit } from './TimeUnit.js';
export { DEFAULTS, type RedissonOptions, type ResolvedOptions } from './config.js';
export {
  ConnectionLostError,
  IllegalMonitorStateError,
  LockLostError,
  RedisTimeoutError,
  RedissonError,
  RedissonShutdownError,
} from './errors.js';
export { identityNameMapper, lockChannelName, prefixName, suffixName, unlockLatchName, type NameMapper } from './keys.js';
export { READ_UNLOCK_MESSAGE, UNLOCK_MESSAGE } from './pubsub/PublishSubscribe.js';
