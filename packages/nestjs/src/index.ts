/**
 * redisson-ts-nestjs: the NestJS module of redisson-ts — `RedissonModule`, `@InjectRedisson()`, `@WithLock`,
 * `LockWaitTimeoutFilter` (HTTP 409), `RedissonHealthIndicator` for `@nestjs/terminus`.
 */
export { RedissonModule, InjectRedisson } from './RedissonModule.js';
export type { RedissonClientConfig, RedissonModuleAsyncOptions, RedissonModuleOptions, RedissonModuleScope } from './options.js';
export { DEFAULT_CLIENT_NAME, getRedissonToken } from './tokens.js';
export { WithLock, type LockKind, type WithLockOptions } from './WithLock.js';
export type { LockNameSource } from './lockName.js';
export { currentLock, currentLockSignal, type CurrentLock } from './lockContext.js';
export { LockWaitTimeoutError, RedissonClientNotBoundError } from './errors.js';
export { LockWaitTimeoutFilter } from './LockWaitTimeoutFilter.js';
export { RedissonHealthIndicator, type RedissonHealthOptions, type RedissonHealthResult } from './RedissonHealthIndicator.js';
