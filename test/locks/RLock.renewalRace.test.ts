/**
 * Issue 24, defect 5: a watchdog batch that found an owner's field gone because the owner itself unlocked
 * must not be reported as a lost lock — not when the owner has re-locked before the result is handled, not
 * when the unlock's own reply is still being handled — while a field that really vanished still is. Each
 * interleaving is forced with a {@link CommandGate} on the client's command connection (the renewal and
 * unlock scripts run on the real server; the test decides when they are written and when their replies are
 * handed on), once with a subscriber on the `redisson-ts:renewal` tracing channel and once without:
 * observing the watchdog must not change what it does.
 */
import diagnosticsChannel from 'node:diagnostics_channel';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LockLostError, type LockLostEvent, type Redisson } from '../../src/index.js';
import { CommandGate } from '../support/commandGate.js';
import { uniqueName, useRedis } from '../support/redis.js';

const suite = useRedis();
const macrotask = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe.each([
  ['with a redisson-ts:renewal subscriber', true],
  ['without a subscriber', false],
])('%s', (_, subscribed) => {
  const renewals: string[] = [];
  const handlers = {
    start: () => void renewals.push('start'),
    end: () => undefined,
    asyncStart: () => undefined,
    asyncEnd: () => void renewals.push('asyncEnd'),
    error: () => undefined,
  };
  const channel = diagnosticsChannel.tracingChannel('redisson-ts:renewal');
  beforeAll(() => {
    if (subscribed) channel.subscribe(handlers);
  });
  afterAll(() => {
    if (subscribed) channel.unsubscribe(handlers);
    if (subscribed) expect(renewals.length).toBeGreaterThan(0);
  });

  // A watchdog lease of 3 s renewed every second; replies may be held by the test for a while.
  const setup = (): { client: Redisson; lost: LockLostEvent[] } => {
    const client = suite.clients.client({ lockWatchdogTimeout: 3_000, timeout: 10_000 });
    const lost: LockLostEvent[] = [];
    client.on('lockLost', (e) => lost.push(e));
    return { client, lost };
  };

  it('the owner unlocks and re-locks while a batch that found its field gone is answered: no lockLost, the new hold is renewed', async () => {
    const { client, lost } = setup();
    const raw = suite.clients.raw();
    const gate = CommandGate.scripts(client.redis, ['lock/renewExpiration']);
    const name = uniqueName('race');
    const lock = client.getLock(name);
    try {
      await lock.lock({ threadId: 1 });
      const batch = await gate.next(); // the watchdog's batch, with this hold in it
      await lock.unlock({ threadId: 1 });
      expect(await batch.send()).toEqual([0]); // it runs after the unlock: the field is gone
      await lock.lock({ threadId: 1 }); // the owner holds the lock again before that result is handled
      await raw.pexpire(name, 2_000); // below the 3 s watchdog lease: the next renewal shows
      batch.deliver();
      await macrotask();
      expect(lost).toEqual([]);
      const next = await gate.next();
      expect(await next.send()).toEqual([1]);
      next.deliver();
      await macrotask();
      expect(await raw.pttl(name)).toBeGreaterThan(2_000);
      expect(lost).toEqual([]);
      expect(await lock.isHeldByThread(1)).toBe(true);
    } finally {
      gate.uninstall();
    }
    await lock.unlock({ threadId: 1 });
    expect(lost).toEqual([]);
  });

  it("the batch's 'gone' is handled before the owner's own unlock reply: no lockLost, the unlock resolves", async () => {
    const { client, lost } = setup();
    const gate = CommandGate.scripts(client.redis, ['lock/renewExpiration', 'lock/unlockInner']);
    const name = uniqueName('race-inflight');
    const lock = client.getLock(name);
    try {
      await lock.lock({ threadId: 1 });
      const batch = await gate.next();
      const unlocking = lock.unlock({ threadId: 1 });
      const unlock = await gate.next();
      expect(await unlock.send()).toBe(1); // the unlock ran: the hash is deleted
      expect(await batch.send()).toEqual([0]);
      batch.deliver();
      await macrotask();
      expect(lost).toEqual([]);
      unlock.deliver();
      await unlocking;
      expect(lost).toEqual([]);
      expect(await suite.clients.raw().exists(name)).toBe(0);
    } finally {
      gate.uninstall();
    }
    // The object works as before: a new hold is taken, renewed and released without a report.
    await lock.lock({ threadId: 1 });
    await lock.unlock({ threadId: 1 });
    expect(lost).toEqual([]);
  });

  it('a hold that really vanished is still reported, and unlock() says so', async () => {
    const { client, lost } = setup();
    const gate = CommandGate.scripts(client.redis, ['lock/renewExpiration']);
    const name = uniqueName('race-lost');
    const lock = client.getLock(name);
    try {
      await lock.lock({ threadId: 1 });
      const batch = await gate.next();
      await suite.clients.raw().del(name); // the key is deleted (or its lease ran out)
      expect(await batch.send()).toEqual([0]);
      batch.deliver();
      await macrotask();
      expect(lost).toEqual([{ name, clientId: client.getId(), threadId: 1 }]);
    } finally {
      gate.uninstall();
    }
    await expect(lock.unlock({ threadId: 1 })).rejects.toBeInstanceOf(LockLostError);
    expect(lost).toHaveLength(1);
  });

  it('a hold that vanished while its owner re-entered is reported; the re-entered hold is kept and renewed', async () => {
    const { client, lost } = setup();
    const raw = suite.clients.raw();
    const gate = CommandGate.scripts(client.redis, ['lock/renewExpiration']);
    const name = uniqueName('race-reenter');
    const lock = client.getLock(name);
    try {
      await lock.lock({ threadId: 1 });
      const batch = await gate.next();
      await raw.del(name);
      expect(await batch.send()).toEqual([0]);
      await lock.lock({ threadId: 1 }); // re-entry after the loss: Redis counts it as a fresh hold
      await raw.pexpire(name, 2_000);
      batch.deliver();
      await macrotask();
      expect(lost).toEqual([{ name, clientId: client.getId(), threadId: 1 }]);
      const next = await gate.next();
      expect(await next.send()).toEqual([1]);
      next.deliver();
      await macrotask();
      expect(await raw.pttl(name)).toBeGreaterThan(2_000);
    } finally {
      gate.uninstall();
    }
    await lock.unlock({ threadId: 1 });
    expect(await raw.exists(name)).toBe(0);
    expect(lost).toHaveLength(1);
  });
});
