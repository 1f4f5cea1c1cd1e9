/**
 * ReadWriteLock unlocks re-sent after a lost reply (issue 24: "not held" must not set the request latch). The
 * hash is gone when the unlock runs (its lease ran out; the test deletes it, as the expiry would), the script
 * answers "not owner" and publishes; the proxy holds that reply until the publish is seen, then drops the
 * connection, and the client re-sends the script under the same latch. The re-send must answer "not owner"
 * again, not "released".
 */
import { afterEach, expect, it } from 'vitest';
import { IllegalMonitorStateError, readWriteLockChannelName, type Redisson } from '../../src/index.js';
import { RedisProxy } from '../support/proxy.js';
import { collectMessages, eventually, uniqueName, useRedis, within } from '../support/redis.js';

const suite = useRedis({ own: true });
const proxies: RedisProxy[] = [];

afterEach(async () => {
  await Promise.all(proxies.splice(0).map((p) => p.stop()));
});

async function proxied(): Promise<{ p: RedisProxy; client: Redisson }> {
  const p = await RedisProxy.start(suite.redis.port);
  proxies.push(p);
  const client = suite.clients.client({ redis: p.url });
  client.redis.on('error', () => undefined);
  return { p, client };
}

for (const half of ['read', 'write'] as const) {
  it(`${half} unlock of a hash that is gone, re-sent after a lost reply, still says "not owner"`, async () => {
    const raw = suite.clients.raw();
    const { p, client } = await proxied();
    const name = uniqueName('rw');
    const rw = client.getReadWriteLock(name);
    const lock = half === 'read' ? rw.readLock() : rw.writeLock();
    await lock.lock(60_000);
    // The hold's lease ran out in Redis (deleted here, as its expiry would).
    await raw.del(name);
    const messages = await collectMessages(suite.clients.raw(), readWriteLockChannelName(name));
    p.replyDelayMs = 5_000;
    const unlocking = lock.unlock().then(
      () => 'resolved',
      (error: unknown) => error,
    );
    await eventually(() => messages.length === 1, 5_000, 'the unlock script ran (its publish)');
    p.dropAll();
    p.replyDelayMs = 0;
    expect(await within(unlocking, 10_000, 'the unlock across the dropped reply')).toBeInstanceOf(IllegalMonitorStateError);
    expect(await raw.keys(`redisson_unlock_latch:{${name}}:*`)).toEqual([]);
  });
}
