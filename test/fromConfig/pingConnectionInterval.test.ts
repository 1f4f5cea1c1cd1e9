/**
 * `pingConnectionInterval` (Redisson's `PingConnectionHandler`), from a Redisson config and as an option: a PING
 * per connection every interval while idle; a PING unanswered for a whole interval (the server frozen with
 * SIGSTOP: the socket stays open, nothing answers) drops the socket and the client reconnects. Off by default.
 */
import { once } from 'node:events';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { Redisson, readRedissonConfig } from '../../src/index.js';
import { resolveOptions } from '../../src/config.js';
import { RedisServerProcess } from '../../packages/cli/src/RedisServerProcess.js';
import { eventually, sleep } from '../support/redis.js';
import { within } from '../support/poll.js';

const quiet = { onWarning: (): void => undefined };

describe('pingConnectionInterval', () => {
  it('is mapped from a config (an integer, ms); off (0) by default; validated as an option', () => {
    const read = readRedissonConfig({ singleServerConfig: { address: 'redis://127.0.0.1:6379', pingConnectionInterval: '30000' } }, quiet);
    expect(read.options.pingConnectionInterval).toBe(30_000);
    expect(() => readRedissonConfig({ singleServerConfig: { address: 'redis://127.0.0.1:6379', pingConnectionInterval: 'often' } })).toThrow(/pingConnectionInterval.*must be an integer/);
    expect(resolveOptions().pingConnectionInterval).toBe(0);
    expect(() => resolveOptions({ pingConnectionInterval: -1 })).toThrow(RangeError);
  });

  describe('on a real server', () => {
    let server: RedisServerProcess;
    let admin: Redis;
    const clients: Redisson[] = [];
    beforeAll(async () => {
      server = await RedisServerProcess.start();
      admin = new Redis({ port: server.port });
    });
    afterAll(async () => {
      server?.resume();
      await Promise.all(clients.map((c) => c.shutdown().catch(() => undefined)));
      admin?.disconnect();
      await server?.stop();
    });
    const pings = async (): Promise<number> => Number(/cmdstat_ping:calls=(\d+)/.exec(await admin.info('commandstats'))?.[1] ?? 0);

    it('pings both connections of an idle client every interval; a frozen server makes it drop the socket and reconnect, a client without it does not', async () => {
      const pinged = Redisson.fromConfig({ singleServerConfig: { address: `redis://127.0.0.1:${server.port}`, pingConnectionInterval: 200 } }, quiet);
      const plain = Redisson.create({ redis: `redis://127.0.0.1:${server.port}` });
      clients.push(pinged, plain);
      // Both connections up (the subscriber connects with the first wait).
      const holder = plain.getLock('ping:held');
      await holder.lock(60_000);
      const waiting = pinged.getLock('ping:held').lock();
      waiting.catch(() => undefined);
      await eventually(async () => Number(((await admin.pubsub('NUMSUB', 'redisson_lock__channel:{ping:held}')) as [string, number])[1]) === 1, 10_000, 'the waiter to subscribe');
      const before = await pings();
      await sleep(700);
      expect((await pings()) - before).toBeGreaterThanOrEqual(4); // two connections, about 3 intervals
      let plainReconnected = false;
      plain.on('reconnecting', () => (plainReconnected = true));
      const reconnecting = once(pinged, 'reconnecting');
      server.pause();
      const frozenAt = performance.now();
      try {
        await within(reconnecting, 2_000, 'the pinged client to drop its socket');
        expect(performance.now() - frozenAt).toBeLessThan(2 * 200 + 500);
      } finally {
        server.resume();
      }
      expect(plainReconnected).toBe(false);
      // Back: the waiter re-subscribed on the new socket and wakes on the release.
      await eventually(async () => Number(((await admin.pubsub('NUMSUB', 'redisson_lock__channel:{ping:held}')) as [string, number])[1]) === 1, 10_000, 'the waiter to re-subscribe');
      await holder.unlock();
      await within(waiting, 10_000, 'the waiter');
      await pinged.getLock('ping:held').forceUnlock();
    }, 30_000);
  });
});
