/** Small waits of the topology followers (Sentinel, replicated) while they move a connection to the master. */
import type { Redis } from 'ioredis';

/** Resolves after `ms` (an unref'd timer: it never keeps the process alive). */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}

/** Resolves on `redis`'s next `ready` or `end`, or after `ms`. */
export function nextReady(redis: Redis, ms: number): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      clearTimeout(timer);
      redis.off('ready', done).off('end', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    timer.unref();
    redis.once('ready', done).once('end', done);
  });
}
