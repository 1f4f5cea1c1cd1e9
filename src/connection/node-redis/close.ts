/** Closing a node-redis client we own: QUIT-like `close()` (pending replies first), bounded, else `destroy()`. */
import type { NodeRedisClient } from './types.js';

/**
 * `close()` when the client is ready (it waits for pending replies, then closes), at most `timeoutMs`; else, or
 * after that, `destroy()` (pending commands are rejected). Resolves once the client holds no socket.
 */
export async function closeClient(client: NodeRedisClient, timeoutMs: number): Promise<void> {
  if (!client.isOpen) {
    // Never connected, or already closed (or given up reconnecting): drop whatever socket is left.
    destroy(client);
    return;
  }
  if (client.isReady) {
    if (await closeWithin(() => client.close(), timeoutMs)) return;
  }
  destroy(client);
}

/**
 * Whether `close` (a node-redis `close()`: pending replies first) settled cleanly within `timeoutMs`; false when it
 * failed or took longer (the caller then destroys what is left). Leaves no timer behind.
 */
export async function closeWithin(close: () => Promise<unknown>, timeoutMs: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const closed = close().then(
    () => true,
    () => false,
  );
  const timedOut = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), timeoutMs)));
  try {
    return await Promise.race([closed, timedOut]);
  } finally {
    clearTimeout(timer);
  }
}

/** `destroy()`, which 5.x refuses (ClientClosedError) on a client that is not open: nothing is left to drop then. */
function destroy(client: NodeRedisClient): void {
  try {
    client.destroy();
  } catch {
    // Already closed.
  }
}

/** What closing needs of a node-redis cluster client. */
interface ClosableCluster {
  readonly isOpen: boolean;
  close(): Promise<void>;
  destroy(): void;
}

/** `close()` of a cluster client we own (every node's pending replies first), at most `timeoutMs`; else `destroy()`. */
export async function closeCluster(cluster: ClosableCluster, timeoutMs: number): Promise<void> {
  if (cluster.isOpen) {
    if (await closeWithin(() => cluster.close(), timeoutMs)) return;
  }
  try {
    cluster.destroy();
  } catch {
    // Already closed.
  }
}
