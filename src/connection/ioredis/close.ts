/** Connection lifecycle helpers shared by the client and the subscriber. */
import type { Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';
import type { Cluster, Redis } from 'ioredis';
import { isClusterInstance } from './recognize.js';

type NetStream = Socket | TLSSocket;

/**
 * QUIT when connected (bounded by `timeoutMs`), else drop the socket: pending commands are rejected. Returns
 * once the sockets are closed and no ioredis timer is left, so the process can exit at once.
 */
export async function closeConnection(redis: Redis | Cluster, timeoutMs: number): Promise<void> {
  const nodes: readonly Redis[] = isClusterInstance(redis) ? redis.nodes('all') : [redis];
  if (redis.status === 'ready') {
    let timer: NodeJS.Timeout | undefined;
    const closed = socketsClosed(nodes);
    const quit = redis.quit().then(
      () => closed.then(() => true),
      () => false,
    );
    const timedOut = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), timeoutMs)));
    const clean = await Promise.race([quit, timedOut]);
    clearTimeout(timer);
    if (clean) return;
  }
  const closed = socketsClosed(nodes);
  destroyOnDisconnect(nodes);
  redis.disconnect();
  // Given up: no FIN exchange to wait for (a stopped server never answers it).
  for (const node of nodes) (node.stream as NetStream | undefined)?.destroy();
  // ioredis' disconnect timer, now of 0 ms, was armed first in the same timer list: it has fired when this one
  // does. A socket's `close` comes once its handle is closed, a loop turn after `destroy()`.
  await Promise.all([new Promise((resolve) => setTimeout(resolve, 0)), closed]);
}

/** Resolves when every socket of `nodes` that is open now has closed. */
function socketsClosed(nodes: readonly Redis[]): Promise<unknown> {
  const open = nodes.map((node) => node.stream as NetStream | undefined).filter((s): s is NetStream => s !== undefined && !s.closed);
  return Promise.all(open.map((s) => new Promise((resolve) => s.once('close', resolve))));
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
function destroyOnDisconnect(nodes: readonly Redis[]): void {
  for (const node of nodes) {
    const connector = (node as unknown as { connector?: { disconnectTimeout?: unknown } }).connector;
    if (connector !== undefined && typeof connector.disconnectTimeout === 'number') connector.disconnectTimeout = 0;
  }
}
