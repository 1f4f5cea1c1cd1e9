/**
 * Picks the driver for the `redis` option and makes the client's connections: node-redis for a node-redis
 * client or `{ driver: 'node-redis' }`, ioredis (or iovalkey, a client passed in) for everything else. Another
 * driver is a folder beside `ioredis/` and `node-redis/`, and a branch here.
 */
import type { ResolvedOptions } from '../config.js';
import type { Connections } from './driver.js';
import { connectIoredis } from './ioredis/connect.js';
import { connectNodeRedis, isNodeRedisTarget } from './node-redis/connect.js';

export type { Connections };

/** The command and subscriber connections for `options.redis` (nothing is awaited: connecting goes on in the background). */
export function connect(options: ResolvedOptions): Connections {
  return isNodeRedisTarget(options.redis) ? connectNodeRedis(options) : connectIoredis(options);
}
