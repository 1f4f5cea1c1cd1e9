/** Connection lifecycle helpers shared by the client and the subscriber. */
import type { Cluster, Redis } from 'ioredis';
import { isClusterInstance } from './cluster.js';

/**
 * QUIT when connected (bounded by `timeoutMs`), else drop the socket: pending commands are rejected. Returns
 * once nothing of the connection is left that would keep the process alive (no socket, no ioredis timer).
 */
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
  destroyOnDisconnect(redis);
  redis.disconnect();
  // ioredis' disconnect timer, now of 0 ms, was armed first in the same timer list: it has fired when this one does.
  await new Promise((resolve) => setTimeout(resolve, 0));
}

/**
 * ioredis 5 `disconnect()` ends the socket and arms a `disconnectTimeout` timer (2 s by default, not unref'd)
 * that destroys the socket if it has not closed by then. The timer is cleared only by the socket's `close`
 * event, which never comes when the socket had already closed (Redis down, the client between reconnect
 * attempts) and comes late when Redis does not answer the FIN (a stopped or unreachable server): either way the
 * process stayed alive ~2 s after `shutdown()`. Here the socket is given up anyway (QUIT failed or could not be
 * sent), so the timer is made to fire at once. `connector.disconnectTimeout` is ioredis-internal: when a
 * version does not have it, nothing is changed.
 */
function destroyOnDisconnect(redis: Redis | Cluster): void {
  const nodes: readonly unknown[] = isClusterInstance(redis) ? redis.nodes('all') : [redis];
  for (const node of nodes) {
    const connector = (node as { connector?: { disconnectTimeout?: unknown } }).connector;
    if (connector !== undefined && typeof connector.disconnectTimeout === 'number') connector.disconnectTimeout = 0;
  }
}
