import type { Redis } from 'ioredis';

/**
 * `redis.monitor()`, opened again when ioredis trips over its own start: a MONITOR line that arrives in the
 * same packet as MONITOR's `+OK` is parsed before ioredis switched the connection to monitoring, and the
 * connection fails with "Command queue state error" (ioredis 5 and 6 alike; seen in RSemaphore.test.ts
 * on a loaded machine, a previous test's lingering UNSUBSCRIBE being the line). Lines before the monitor
 * is open are never what a test waits for, so a new attempt loses nothing.
 */
export async function openMonitor(redis: Redis, attempts = 3): Promise<Redis> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await redis.monitor();
    } catch (error) {
      if (attempt >= attempts || !(error instanceof Error) || !error.message.startsWith('Command queue state error')) throw error;
    }
  }
}
