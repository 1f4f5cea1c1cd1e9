/**
 * Picks the driver for the `redis` option and makes the client's connections. ioredis is the only driver
 * today; another one is a folder beside `ioredis/` and a branch here.
 */
import type { ResolvedOptions } from '../config.js';
import type { Connections } from './driver.js';
import { connectIoredis } from './ioredis/connect.js';

export type { Connections };

/** The command and subscriber connections for `options.redis` (nothing is awaited: connecting goes on in the background). */
export function connect(options: ResolvedOptions): Connections {
  return connectIoredis(options);
}
