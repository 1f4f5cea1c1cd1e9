/** Connection lifecycle helpers shared by the client and the subscriber. */
import type { Cluster, Redis } from 'ioredis';

/** QUIT when connected (bounded by `timeoutMs`), else drop the socket: pending commands are rejected. */
export async function closeConnection(redis: Redis | Cluster, timeoutMs: number): Promise<void> {
  if (redis.status === 'ready') {
    let timer: NodeJS.Timeout | undefined;
    const quit = redis.quit().then(
      () => true,
      () => false,
    );
    const timedOut = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), timeoutMs)));
    const clean = await Promise.race([quit, timedOut]);
    clearTimeout(timer);
    if (clean) return;
  }
  redis.disconnect();
}
