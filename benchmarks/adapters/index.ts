/** Every implementation by name. */
import { bareProtocol } from './bareProtocol.js';
import { javaRedisson } from './javaRedisson.js';
import { nodeRedisson } from './nodeRedisson.js';
import { redisSemaphore } from './redisSemaphore.js';
import { redissonTs, redissonTsNoHandoff, redissonTsIoredis6, redissonTsIovalkey, redissonTsNodeRedis } from './redissonTs.js';
import { redlock } from './redlock.js';
import type { Implementation, ImplName } from './types.js';

export const IMPLEMENTATION_BY_NAME: Readonly<Record<ImplName, Implementation>> = {
  'redisson-ts': redissonTs,
  'redisson-ts@no-handoff': redissonTsNoHandoff,
  'redisson-ts@ioredis6': redissonTsIoredis6,
  'redisson-ts@iovalkey': redissonTsIovalkey,
  'redisson-ts@node-redis': redissonTsNodeRedis,
  'node-redisson': nodeRedisson,
  'redis-semaphore': redisSemaphore,
  redlock,
  'java-redisson': javaRedisson,
  'bare-protocol': bareProtocol,
};

export { IMPLEMENTATIONS, KINDS, type Kind, type ImplName, type Implementation, type LockClient, type LockHandle } from './types.js';
