/**
 * SpinLock interop (Redisson 3.15.0+, so every pinned version): the spin lock keeps RLock's hash and
 * publishes nothing; a waiter on either side retries with its back-off (Redisson's default exponential one
 * on both) and takes the lock at its next attempt after the holder's unlock. No assertion depends on
 * timing: the holder's lease is 60 s, and the waiter is seen retrying (refused attempts in MONITOR) and
 * not subscribed before the unlock.
 */
import { expect } from 'vitest';
import { lockChannelName } from '../../../src/index.js';
import type { InteropContext, InteropScenarios } from './context.js';
import { expectSameWire, familyName, useFamilyWire, within, type WireStep } from './lockFamily.js';
import { LONG_LEASE_MS } from './wireSteps.js';

const PRIMITIVE = 'SpinLock';
const EXCLUSION = 'spin-exclusion';
const REENTRY = 'spin-reentrancy';
const WIRE = 'spin-wire';
const STEPS: readonly WireStep[] = [
  { who: 'owner', method: 'lock', args: [LONG_LEASE_MS] },
  { who: 'owner', method: 'lock', args: [LONG_LEASE_MS] },
  { who: 'other', method: 'tryLock', args: [] },
  { who: 'owner', method: 'unlock', args: [] },
  { who: 'owner', method: 'unlock', args: [] },
  { who: 'other', method: 'tryLock', args: [0, LONG_LEASE_MS] },
  { who: 'other', method: 'unlock', args: [] },
];

export const spinLockScenarios: InteropScenarios = (ctx: InteropContext) => {
  const wire = useFamilyWire(ctx);
  const java = async (name: string, method: string, args: unknown[], thread: string): Promise<unknown> => (await ctx.peer.call('spinLock', name, method, args, thread)).result;

  ctx.row(
    EXCLUSION,
    PRIMITIVE,
    "Held → the other side's `tryLock()` is false; its waiter backs off (never subscribes), and takes the lock at its next attempt after the holder's unlock, which publishes nothing",
  );

  ctx.check(EXCLUSION, 'java-to-ts', "Java holds: our tryLock() is false; our waiter backs off and acquires after Java's unlock", async () => {
    const w = await wire();
    const name = familyName('spin');
    await java(name, 'lock', [LONG_LEASE_MS], 'spin-holder');
    const owner = ctx.peer.lockOwner(await ctx.peer.threadId('spin-holder'));
    expect(await ctx.raw.hgetall(name)).toEqual({ [owner]: '1' });
    expect(await ctx.clients.client().getSpinLock(name).tryLock()).toBe(false);
    const lock = ctx.clients.client().getSpinLock(name);
    const from = await w.mark();
    const waiter = lock.lock();
    await w.polling(name, from, 3, 'redisson-ts waiter');
    expect(await w.subscribers(lockChannelName(name))).toBe(0);
    const published = await w.publishedDuring(async () => {
      await java(name, 'unlock', [], 'spin-holder');
      await within(waiter, ctx.hangGuardMs, "redisson-ts waiter after Java's unlock");
    });
    expect(published).toEqual([]);
    expect(await lock.isHeldByCurrentThread()).toBe(true);
    await lock.unlock();
    expect(await ctx.raw.exists(name)).toBe(0);
  });

  ctx.check(EXCLUSION, 'ts-to-java', "we hold: Java's tryLock() is false; a Java waiter backs off and acquires after our unlock", async () => {
    const w = await wire();
    const name = familyName('spin');
    const client = ctx.clients.client();
    const lock = client.getSpinLock(name);
    await lock.lock(LONG_LEASE_MS);
    expect(await ctx.raw.hgetall(name)).toEqual({ [`${client.getId()}:${lock.threadId}`]: '1' });
    expect(await java(name, 'tryLock', [], 'spin-try')).toBe(false);
    const waiterTid = await ctx.peer.threadId('spin-waiter');
    const from = await w.mark();
    const waiter = java(name, 'lock', [], 'spin-waiter');
    await w.polling(name, from, 3, 'Java waiter');
    expect(await w.subscribers(lockChannelName(name))).toBe(0);
    const published = await w.publishedDuring(async () => {
      await lock.unlock();
      await within(waiter, ctx.hangGuardMs, 'Java waiter after our unlock');
    });
    expect(published).toEqual([]);
    expect(await ctx.raw.hgetall(name)).toEqual({ [ctx.peer.lockOwner(waiterTid)]: '1' });
    await java(name, 'unlock', [], 'spin-waiter');
    expect(await ctx.raw.exists(name)).toBe(0);
  });

  ctx.row(REENTRY, PRIMITIVE, 'Holder re-enters twice: the other side stays excluded until the second unlock; `forceUnlock()` of the other side\'s lock deletes it without a message');

  ctx.check(REENTRY, 'java-to-ts', "Java re-enters twice; we stay out until its second unlock; our forceUnlock deletes Java's lock silently", async () => {
    const w = await wire();
    const name = familyName('spin');
    const t = 'spin-reentrant';
    await java(name, 'lock', [LONG_LEASE_MS], t);
    await java(name, 'lock', [LONG_LEASE_MS], t);
    const owner = ctx.peer.lockOwner(await ctx.peer.threadId(t));
    expect(await ctx.raw.hgetall(name)).toEqual({ [owner]: '2' });
    const lock = ctx.clients.client().getSpinLock(name);
    await java(name, 'unlock', [], t);
    expect(await ctx.raw.hgetall(name)).toEqual({ [owner]: '1' });
    expect(await lock.tryLock()).toBe(false);
    await java(name, 'unlock', [], t);
    expect(await lock.tryLock()).toBe(true);
    await lock.unlock();
    await java(name, 'lock', [LONG_LEASE_MS], t);
    const published = await w.publishedDuring(async () => {
      expect(await lock.forceUnlock()).toBe(true);
    });
    expect(published).toEqual([]);
    expect(await java(name, 'isLocked', [], t)).toBe(false);
  });

  ctx.check(REENTRY, 'ts-to-java', "we re-enter twice; Java stays out until our second unlock; Java's forceUnlock deletes ours silently", async () => {
    const w = await wire();
    const name = familyName('spin');
    const client = ctx.clients.client();
    const lock = client.getSpinLock(name);
    // Our re-entry is Java's one thread: a runInThread flow of the object's own id (the default ownership).
    await client.runInThread(async () => {
      await lock.lock(LONG_LEASE_MS);
      await lock.lock(LONG_LEASE_MS);
      const owner = `${client.getId()}:${lock.threadId}`;
      expect(await ctx.raw.hgetall(name)).toEqual({ [owner]: '2' });
      await lock.unlock();
      expect(await ctx.raw.hgetall(name)).toEqual({ [owner]: '1' });
      expect(await java(name, 'tryLock', [], 'spin-other')).toBe(false);
      await lock.unlock();
      expect(await java(name, 'tryLock', [], 'spin-other')).toBe(true);
      await java(name, 'unlock', [], 'spin-other');
      await lock.lock(LONG_LEASE_MS);
      const published = await w.publishedDuring(async () => {
        expect(await java(name, 'forceUnlock', [], 'spin-other')).toBe(true);
      });
      expect(published).toEqual([]);
      expect(await lock.isLocked()).toBe(false);
    }, lock.threadId);
  });

  ctx.row(WIRE, PRIMITIVE, 'Same commands inside the scripts (no PUBLISH), outcomes, hash and TTL as Java after each step: acquire, re-entry, refusal, reentrant and final unlock');

  ctx.check(WIRE, 'both', "our wire record of the sequence equals Java's", async () => {
    await expectSameWire(ctx, await wire(), 'spinLock', (client, name) => client.getSpinLock(name), STEPS);
  });
};
