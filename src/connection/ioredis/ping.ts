/**
 * Redisson's `pingConnectionInterval` (its `PingConnectionHandler`) on an ioredis connection: a PING every
 * interval while the connection is ready; one still unanswered when the next is due means a dead socket (a
 * half-open TCP connection, a frozen server), which is dropped so that ioredis reconnects — and a subscriber
 * re-subscribes — instead of waiting for the operating system to notice. Works in subscriber mode too (PING is
 * valid there).
 */
import type { Redis } from 'ioredis';

/** Starts pinging `redis` every `intervalMs`; returns the off switch. */
export function pingConnection(redis: Redis, intervalMs: number): () => void {
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  const cycle = (): void => {
    clearTimeout(timer);
    if (stopped || redis.status !== 'ready') return; // the next `ready` starts again
    let answered = false;
    redis.ping().then(
      () => (answered = true),
      () => undefined,
    );
    timer = setTimeout(() => {
      if (stopped || redis.status !== 'ready') return;
      // Unanswered for a whole interval (Redisson waits the interval too): drop the socket, ioredis reconnects.
      // (The socket is destroyed, not ended: a frozen peer would never answer the FIN of a graceful close.)
      if (!answered) {
        const stream = (redis as unknown as { stream?: { destroy(): void } }).stream;
        if (stream) stream.destroy();
        else redis.disconnect(true);
      }
      else cycle();
    }, intervalMs);
    timer.unref();
  };
  redis.on('ready', cycle);
  cycle();
  return () => {
    stopped = true;
    clearTimeout(timer);
    redis.off('ready', cycle);
  };
}
