/**
 * The published build's node-redis loader (see nodeRedisModule.ts): a literal `require('redis')` inside `try`,
 * made when Redisson makes a node-redis client itself, so that bundlers follow it and an app without `redis`
 * (an optional peer dependency) gets RedisDriverMissingError naming the install command.
 */
import { isModuleMissing } from '../ioredis/driverMissing.js';
import { nodeRedisMissing } from './driverMissing.js';

/** What the driver uses of the `redis` module. */
export interface NodeRedisModule {
  createClient(options?: object): unknown;
  createCluster(options: object): unknown;
  createSentinel(options: object): unknown;
}

export function loadNodeRedis(): NodeRedisModule {
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- the point: a require() bundlers follow
    return require('redis') as NodeRedisModule;
  } catch (error) {
    if (isModuleMissing(error, 'redis')) throw nodeRedisMissing(error);
    throw error;
  }
}
