/**
 * The Node side of a lock shared with a Java Redisson service: same config file, same lock name, same
 * keys and messages on the wire. Start `SharedLock.java`, then this: it waits until Java unlocks (woken
 * by Java's unlock message, not by polling), then holds the lock itself.
 *
 *   npm install && REDIS_PORT=6379 npm start
 */
import { fileURLToPath } from 'node:url';
import { Redisson } from 'redisson-ts';

/** The config file both sides read. */
export const CONFIG = fileURLToPath(new URL('redisson.yaml', import.meta.url));
export const LOCK_NAME = 'inventory:sku-42';

/** Takes the shared lock, runs `work` under it, releases it. */
export async function withSharedLock<T>(client: Redisson, work: () => Promise<T>): Promise<T> {
  const lock = client.getLock(LOCK_NAME);
  await lock.lock();
  try {
    return await work();
  } finally {
    await lock.unlock();
  }
}

const client = Redisson.fromConfig(CONFIG);
try {
  await withSharedLock(client, () => Promise.resolve(console.log(`Node holds ${LOCK_NAME}`)));
} finally {
  await client.shutdown();
}
