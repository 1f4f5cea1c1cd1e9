/**
 * The node-redis module (`redis`). This file is what the sources run (vitest, tsx): a static import, so that
 * the tests reach the version the leg pins. The published build (scripts/build.mjs) swaps in
 * nodeRedisModule.bundle.ts, a `require('redis')` made only when Redisson makes a node-redis client itself
 * (`{ driver: 'node-redis', url }`), so that redisson-ts loads without `redis` installed and says what to
 * install (RedisDriverMissingError). A client passed in needs no module: it duplicates itself.
 */
import * as redis from 'redis';

/** What the driver uses of the `redis` module. */
export interface NodeRedisModule {
  createClient(options?: object): unknown;
  createCluster(options: object): unknown;
  createSentinel(options: object): unknown;
}

export function loadNodeRedis(): NodeRedisModule {
  return redis;
}
