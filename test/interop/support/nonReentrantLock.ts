/**
 * NonReentrantLock interop (Redisson 4.4.0+; "n/a" in older versions): an RLock on the wire, so the holder
 * excludes the other side and its unlock message wakes the other side's waiter; and on each side the
 * holder's second acquire is an IllegalMonitorState error that leaves the count at 1, so the other side
 * gets the lock after one unlock.
 */
import { expect } from 'vitest';
import { IllegalMonitorStateError, lockChannelName } from '../../../src/index.js';
import { JavaPeerError } from '../JavaPeer.js';
import type { InteropContext, InteropScenarios } from './context.js';
import { expectSameWire, familyName, useFamilyWire, within, type WireStep } from './lockFamily.js';
import { LONG_LEASE_MS } from './wireSteps.js';

const PRIMITIVE = 'NonReentrantLock';
const EXCLUSION = 'nonreentrant-exclusion';
const REENTRY = 'nonreentrant-reentry';
const EXCLUSION_TITLE = "Held → the other side's `tryLock()` is false; its waiter wakes on the holder's unlock, through the message";
const WIRE = 'nonreentrant-wire';
const WIRE_TITLE = 'Same commands inside the scripts, outcomes (the re-entry error included), hash and TTL as Java after each step';
const STEPS: readonly WireStep[] = [
  { who: 'owner', method: 'lock', args: [LONG_LEASE_MS] },
  { who: 'owner', method: 'tryLock', args: [] },
  { who: 'owner', method: 'lock', args: [LONG_LEASE_MS] },
  { who: 'other', method: 'tryLock', args: [] },
  { who: 'owner', method: 'unlock', args: [] },
  { who: 'other', method: 'tryLock', args: [0, LONG_LEASE_MS] },
  { who: 'other', method: 'unlock', args: [] },
];
const REENTRY_TITLE = "The holder's second `lock()` / `tryLock()` throws IllegalMonitorState on its side; the count stays 1, and one unlock lets the other side in";

/** Redisson 4.4.0 introduced getNonReentrantLock. */
function hasNonReentrantLock(version: string): boolean {
  const [major = 0, minor = 0] = version.split('.').map(Number);
  return major > 4 || (major === 4 && minor >= 4);
}

export const nonReentrantLockScenarios: InteropScenarios = (ctx: InteropContext) => {
  ctx.row(EXCLUSION, PRIMITIVE, EXCLUSION_TITLE);
  ctx.row(REENTRY, PRIMITIVE, REENTRY_TITLE);
  ctx.row(WIRE, PRIMITIVE, WIRE_TITLE);
  if (!hasNonReentrantLock(ctx.version)) {
    ctx.notInVersion(EXCLUSION, EXCLUSION_TITLE);
    ctx.notInVersion(REENTRY, REENTRY_TITLE);
    ctx.notInVersion(WIRE, WIRE_TITLE);
    return;
  }
  const wire = useFamilyWire(ctx);
  const java = async (name: string, method: string, args: unknown[], thread: string): Promise<unknown> => (await ctx.peer.call('nonReentrantLock', name, method, args, thread)).result;
  const javaError = async (call: Promise<unknown>): Promise<string> => {
    const error = await call.then(() => null, (e: unknown) => e);
    expect(error).toBeInstanceOf(JavaPeerError);
    return (error as JavaPeerError).type;
  };

  ctx.check(EXCLUSION, 'java-to-ts', "Java holds: our tryLock() is false, our waiter wakes on Java's unlock", async () => {
    const w = await wire();
    const name = familyName('nonreentrant');
    await java(name, 'lock', [LONG_LEASE_MS], 'nr-holder');
    const owner = ctx.peer.lockOwner(await ctx.peer.threadId('nr-holder'));
    expect(await ctx.raw.hgetall(name)).toEqual({ [owner]: '1' });
    expect(await ctx.clients.client().getNonReentrantLock(name).tryLock()).toBe(false);
    const lock = ctx.clients.client().getNonReentrantLock(name);
    const from = await w.mark();
    const waiter = lock.lock();
    await w.parked(name, from, 'redisson-ts waiter');
    const published = await w.publishedDuring(async () => {
      await java(name, 'unlock', [], 'nr-holder');
      await within(waiter, ctx.hangGuardMs, "redisson-ts waiter after Java's unlock");
    });
    expect(published).toEqual([{ channel: lockChannelName(name), message: '0' }]);
    expect(await lock.isHeldByCurrentThread()).toBe(true);
    await lock.unlock();
  });

  ctx.check(EXCLUSION, 'ts-to-java', "we hold: Java's tryLock() is false, a Java waiter wakes on our unlock", async () => {
    const w = await wire();
    const name = familyName('nonreentrant');
    const client = ctx.clients.client();
    const lock = client.getNonReentrantLock(name);
    await lock.lock(LONG_LEASE_MS);
    expect(await ctx.raw.hgetall(name)).toEqual({ [`${client.getId()}:${lock.threadId}`]: '1' });
    expect(await java(name, 'tryLock', [], 'nr-try')).toBe(false);
    const waiterTid = await ctx.peer.threadId('nr-waiter');
    const from = await w.mark();
    const waiter = java(name, 'lock', [], 'nr-waiter');
    await w.parked(name, from, 'Java waiter');
    const published = await w.publishedDuring(async () => {
      await lock.unlock();
      await within(waiter, ctx.hangGuardMs, 'Java waiter after our unlock');
    });
    expect(published).toEqual([{ channel: lockChannelName(name), message: '0' }]);
    expect(await ctx.raw.hgetall(name)).toEqual({ [ctx.peer.lockOwner(waiterTid)]: '1' });
    await java(name, 'unlock', [], 'nr-waiter');
  });

  ctx.check(REENTRY, 'java-to-ts', "Java's second acquire throws; we get the lock after Java's one unlock", async () => {
    const name = familyName('nonreentrant');
    const t = 'nr-reentry';
    await java(name, 'lock', [LONG_LEASE_MS], t);
    expect(await javaError(java(name, 'lock', [], t))).toBe('IllegalMonitorStateException');
    expect(await javaError(java(name, 'tryLock', [], t))).toBe('IllegalMonitorStateException');
    const owner = ctx.peer.lockOwner(await ctx.peer.threadId(t));
    expect(await ctx.raw.hgetall(name)).toEqual({ [owner]: '1' });
    const lock = ctx.clients.client().getNonReentrantLock(name);
    expect(await lock.tryLock()).toBe(false);
    await java(name, 'unlock', [], t);
    expect(await lock.tryLock()).toBe(true);
    await lock.unlock();
  });

  ctx.check(REENTRY, 'ts-to-java', 'our second acquire throws; Java gets the lock after our one unlock', async () => {
    const name = familyName('nonreentrant');
    const client = ctx.clients.client();
    const lock = client.getNonReentrantLock(name);
    // Our re-entry is Java's one thread: a runInThread flow of the object's own id (the default ownership).
    await client.runInThread(async () => {
      await lock.lock(LONG_LEASE_MS);
      await expect(lock.lock()).rejects.toBeInstanceOf(IllegalMonitorStateError);
      await expect(lock.tryLock()).rejects.toBeInstanceOf(IllegalMonitorStateError);
      expect(await ctx.raw.hgetall(name)).toEqual({ [`${client.getId()}:${lock.threadId}`]: '1' });
      expect(await java(name, 'tryLock', [], 'nr-other')).toBe(false);
      await lock.unlock();
      expect(await java(name, 'tryLock', [], 'nr-other')).toBe(true);
      await java(name, 'unlock', [], 'nr-other');
    }, lock.threadId);
  });

  ctx.check(WIRE, 'both', "our wire record of the sequence equals Java's", async () => {
    await expectSameWire(ctx, await wire(), 'nonReentrantLock', (client, name) => client.getNonReentrantLock(name), STEPS);
  });
};
