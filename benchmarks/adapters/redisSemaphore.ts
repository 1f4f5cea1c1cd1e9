/**
 * redis-semaphore `Mutex`: `SET NX PX` polled every `retryInterval` (default 10 ms); refreshed every
 * 0.8 × `lockTimeout`. `acquireTimeout` is raised so that it waits instead of giving up after 10 s.
 */
import { Redis } from 'ioredis';
import { Mutex } from 'redis-semaphore';
import type { Implementation, LockClient } from './types.js';
import { packageVersion } from './versions.js';

/** Long enough never to give up within a benchmark. */
const WAIT_FOREVER_MS = 3_600_000;

export const redisSemaphore: Implementation = {
  name: 'redis-semaphore',
  version: () => packageVersion('redis-semaphore'),
  settings: `Mutex defaults (lockTimeout 10 s, retryInterval 10 ms) + acquireTimeout ${WAIT_FOREVER_MS / 1000} s`,
  open(options): Promise<LockClient> {
    const redis = new Redis(options.url);
    const lost: unknown[] = [];
    return Promise.resolve({
      handle(name) {
        const mutex = new Mutex(redis, name, {
          acquireTimeout: WAIT_FOREVER_MS,
          ...(options.watchdogMs === undefined ? {} : { lockTimeout: options.watchdogMs }),
          // The default rethrows from a timer, which would kill the worker: record instead.
          onLockLost: (error) => void lost.push(error),
        });
        return { acquire: () => mutex.acquire(), release: () => mutex.release() };
      },
      async close() {
        await redis.quit();
      },
    });
  },
};
