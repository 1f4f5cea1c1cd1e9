/**
 * `client.ping()` and `client.connectionStatus()`: how a framework waits for a client to be connected
 * (redisson-ts-nestjs' start-up) and reports its connections (its health indicator).
 */
import { describe, expect, it } from 'vitest';
import { Redisson, RedisConnectionError, RedissonShutdownError } from '../../src/index.js';
import { freePort } from '../../packages/cli/src/RedisServerProcess.js';
import { useRedis, uniqueName } from '../support/redis.js';

const suite = useRedis();

describe('ping and connectionStatus', () => {
  it('ping() resolves with a round trip in ms once Redis answers; the subscriber is `wait` until a lock first waits', async () => {
    const client = Redisson.create({ redis: suite.redis.url });
    try {
      const rtt = await client.ping();
      expect(typeof rtt).toBe('number');
      expect(rtt).toBeGreaterThanOrEqual(0);
      expect(client.connectionStatus()).toEqual({ command: 'ready', subscriber: 'wait' });
      const name = uniqueName();
      const holder = Redisson.create({ redis: suite.redis.url });
      const hold = await holder.getLock(name).acquire();
      const lock = client.getLock(name);
      const waiting = lock.lock();
      await expect.poll(() => client.connectionStatus().subscriber).toBe('ready');
      await hold.release();
      await waiting;
      await lock.unlock();
      await holder.shutdown();
    } finally {
      await client.shutdown();
    }
    await expect(client.ping()).rejects.toBeInstanceOf(RedissonShutdownError);
  });

  it('ping() against an unreachable Redis rejects with RedisConnectionError within timeout', async () => {
    const port = await freePort();
    const client = Redisson.create({ redis: `redis://127.0.0.1:${port}`, timeout: 300 });
    try {
      const error = await client.ping().then(
        () => null,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(RedisConnectionError);
      expect((error as RedisConnectionError).address).toBe(`127.0.0.1:${port}`);
      expect(['connecting', 'reconnecting', 'close']).toContain(client.connectionStatus().command);
    } finally {
      await client.shutdown();
    }
  });
});
