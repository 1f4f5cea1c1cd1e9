/**
 * Direct handoff (issue 29) with a Java Redisson 4.7.0 waiter on the same lock: the release reaches Java's
 * subscription too, so our unlock never writes our own waiter's hold; Java's thread takes the lock by its retry.
 * Our waiter's retry is held by a {@link CommandGate} on our command connection, so who takes the lock is forced,
 * not raced: with a grant our waiter would hold it the moment the unlock resolved. Holders take 60 s leases, far
 * beyond the 10 s hang guards, so a waiter that acquires within a guard was woken by the release message.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lockChannelName, type Redisson } from '../../src/index.js';
import { CommandGate } from '../support/commandGate.js';
import { Clients, eventually, startRedis, uniqueName, within, type TestRedis } from '../support/redis.js';
import { javaAvailable, JavaPeer } from './JavaPeer.js';
import { javaMissingPlaceholder } from './support/placeholder.js';

const VERSION = '4.7.0';
const LONG_LEASE_MS = 60_000;
const GUARD_MS = 10_000;
const availability = javaAvailable();

if (!availability.ok) javaMissingPlaceholder(`Direct handoff, Redisson ${VERSION}`, availability.reason);

describe.runIf(availability.ok)(`direct handoff with a Java Redisson ${VERSION} waiter`, () => {
  let redis: TestRedis;
  let clients: Clients;
  let peer: JavaPeer;

  beforeAll(async () => {
    redis = await startRedis();
    clients = new Clients(redis.url, { shortLeaseWarning: false });
    peer = await JavaPeer.start(VERSION, { address: redis.url });
  }, 120_000);

  afterAll(async () => {
    await peer?.shutdown();
    await clients?.closeAll();
    await redis?.stop();
  });

  it('a Java thread waits on our lock beside our parked waiter: no grant, the Java thread acquires, then ours after it', async () => {
    const raw = clients.raw();
    const client: Redisson = clients.client();
    const name = uniqueName('handoff-java');
    const channel = lockChannelName(name);
    const lock = client.getLock(name);
    await lock.lock(LONG_LEASE_MS, { threadId: 1 });

    const javaWaiter = peer.call('lock', name, 'lock', [], 'java-waiter');
    await eventually(async () => Number(((await raw.pubsub('NUMSUB', channel)) as [string, number])[1]) === 1, GUARD_MS, 'Java subscribed');

    const attempts = CommandGate.scripts(client.redis, ['lock/tryLockInner']);
    try {
      const ours = lock.lock({ threadId: 2 });
      for (let i = 0; i < 2; i++) {
        // Our waiter's first attempt and its attempt after subscribing, both refused: it parks.
        const held = await within(attempts.next(), GUARD_MS, 'our attempt');
        await held.send();
        held.deliver();
      }
      expect(Number(((await raw.pubsub('NUMSUB', channel)) as [string, number])[1])).toBe(2);

      await lock.unlock({ threadId: 1 });
      // Not granted to ours: its field is not there (its retry is held), and Java's retry takes the lock.
      expect(await raw.hexists(name, `${client.getId()}:2`)).toBe(0);
      await within(javaWaiter, GUARD_MS, 'the Java waiter');
      const fields = Object.keys(await raw.hgetall(name));
      expect(fields).toHaveLength(1);
      expect(fields[0]?.startsWith(`${peer.clientId}:`)).toBe(true);

      // Our woken waiter's retry is refused (Java holds); Java's unlock then wakes it, and it acquires.
      const retry = await within(attempts.next(), GUARD_MS, 'our retry');
      expect(typeof (await retry.send())).toBe('number');
      retry.deliver();
      attempts.uninstall();
      await peer.call('lock', name, 'unlock', [], 'java-waiter');
      await within(ours, GUARD_MS, 'our waiter after Java’s unlock');
      expect(await raw.hgetall(name)).toEqual({ [`${client.getId()}:2`]: '1' });
      await lock.unlock({ threadId: 2 });
    } finally {
      attempts.uninstall();
    }
  });
});
