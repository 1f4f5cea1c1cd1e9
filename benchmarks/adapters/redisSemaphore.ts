/**
 * redis-semaphore `Mutex` (and `Semaphore` of limit 1 for the semaphore kind): `SET NX PX` (a sorted set
 * for the semaphore) polled every `retryInterval` (default 10 ms); refreshed every 0.8 × `lockTimeout`.
 * `acquireTimeout` is raised so that it waits instead of giving up after 10 s.
 */
import { Redis } from 'ioredis';
import { Mutex, Semaphore } from 'redis-semaphore';
import type { Implementation, LockClient } from './types.js';
import { packageVersion } from './versions.js';

/** Long enough never to give up within a benchmark. */
const WAIT_FOREVER_MS = 3_600_000;

export const redisSemaphore: Implementation = {
  name: 'redis-semaphore',
  version: () => packageVersion('redis-semaphore'),
  settings: `Mutex / Semaphore defaults (lockTimeout 10 s, retryInterval 10 ms) + acquireTimeout ${WAIT_FOREVER_MS / 1000} s`,
  kinds: ['lock', 'semaphore'],
  open(options): Promise<LockClient> {
    const redis = new Redis(options.url);
    const lost: unknown[] = [];
    const settings = {
      acquireTimeout: WAIT_FOREVER_MS,
      ...(options.watchdogMs === undefined ? {} : { lockTimeout: options.watchdogMs }),
      // The default rethrows from a timer, which would kill the worker: record instead.
      onLockLost: (error: unknown) => void lost.push(error),
    };
    return Promise.resolve({
      handle(name, _owner, kind = 'lock') {
        const lock = kind === 'semaphore' ? new Semaphore(redis, name, 1, settings) : new Mutex(redis, name, settings);
        return { acquire: () => lock.acquire(), release: () => lock.release() };
      },
      async close() {
        await redis.quit();
      },
    });
  },
};
