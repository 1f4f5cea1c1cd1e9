/**
 * FencedLock interop (Redisson 3.19.0+; "n/a" in older versions): one lock and one token counter shared with
 * Java. The holder excludes the other side, whose waiter is woken by the unlock message and draws the next
 * token; acquisitions alternating between the sides draw consecutive tokens from one counter.
 */
import { expect } from 'vitest';
import { lockChannelName } from '../../../src/index.js';
import type { InteropContext, InteropScenarios } from './context.js';
import { expectSameWire, familyName, useFamilyWire, within, type WireStep } from './lockFamily.js';
import { LONG_LEASE_MS } from './wireSteps.js';

const PRIMITIVE = 'FencedLock';
const EXCLUSION = 'fenced-exclusion';
const TOKENS = 'fenced-tokens';
const EXCLUSION_TITLE = "Held → the other side's `tryLockAndGetToken()` is null; its waiter wakes on the holder's unlock, through the message, with the next token";
const WIRE = 'fenced-wire';
const WIRE_TITLE = 'Same commands inside the scripts, outcomes, hash and TTL as Java after each step: token acquire, re-entry, refusals, reentrant and final unlock, plain `lock`';
const STEPS: readonly WireStep[] = [
  { who: 'owner', method: 'lockAndGetToken', args: [LONG_LEASE_MS] },
  { who: 'owner', method: 'tryLockAndGetToken', args: [0, LONG_LEASE_MS] },
  { who: 'other', method: 'tryLock', args: [] },
  { who: 'other', method: 'tryLockAndGetToken', args: [0] },
  { who: 'owner', method: 'unlock', args: [] },
  { who: 'owner', method: 'unlock', args: [] },
  { who: 'other', method: 'lock', args: [LONG_LEASE_MS] },
  { who: 'other', method: 'unlock', args: [] },
];
const TOKENS_TITLE = 'Acquisitions alternating between Java and redisson-ts (`lockAndGetToken`, `tryLockAndGetToken`, `lock`, re-entry) draw consecutive tokens from one counter; `getToken` agrees on both sides';

/** Redisson 3.19.0 introduced RFencedLock. */
function hasFencedLock(version: string): boolean {
  const [major = 0, minor = 0] = version.split('.').map(Number);
  return major > 3 || (major === 3 && minor >= 19);
}

export const fencedLockScenarios: InteropScenarios = (ctx: InteropContext) => {
  ctx.row(EXCLUSION, PRIMITIVE, EXCLUSION_TITLE);
  ctx.row(TOKENS, PRIMITIVE, TOKENS_TITLE);
  ctx.row(WIRE, PRIMITIVE, WIRE_TITLE);
  if (!hasFencedLock(ctx.version)) {
    ctx.notInVersion(EXCLUSION, EXCLUSION_TITLE);
    ctx.notInVersion(TOKENS, TOKENS_TITLE);
    ctx.notInVersion(WIRE, WIRE_TITLE);
    return;
  }
  const wire = useFamilyWire(ctx);
  const java = async (name: string, method: string, args: unknown[], thread: string): Promise<unknown> => (await ctx.peer.call('fencedLock', name, method, args, thread)).result;

  ctx.check(EXCLUSION, 'java-to-ts', "Java holds: our tryLockAndGetToken() is null, our waiter wakes on Java's unlock with the next token", async () => {
    const w = await wire();
    const name = familyName('fenced');
    const token = Number(await java(name, 'lockAndGetToken', [LONG_LEASE_MS], 'fenced-holder'));
    const owner = ctx.peer.lockOwner(await ctx.peer.threadId('fenced-holder'));
    expect(await ctx.raw.hgetall(name)).toEqual({ [owner]: '1' });
    expect(await ctx.raw.get(`redisson_lock_token:{${name}}`)).toBe(String(token));
    expect(await ctx.clients.client().getFencedLock(name).tryLockAndGetToken()).toBeNull();
    const lock = ctx.clients.client().getFencedLock(name);
    const from = await w.mark();
    const waiter = lock.lockAndGetToken();
    await w.parked(name, from, 'redisson-ts waiter');
    const published = await w.publishedDuring(async () => {
      await java(name, 'unlock', [], 'fenced-holder');
      expect(await within(waiter, ctx.hangGuardMs, "redisson-ts waiter after Java's unlock")).toBe(token + 1);
    });
    expect(published).toEqual([{ channel: lockChannelName(name), message: '0' }]);
    expect(await lock.isHeldByCurrentThread()).toBe(true);
    await lock.unlock();
  });

  ctx.check(EXCLUSION, 'ts-to-java', "we hold: Java's tryLockAndGetToken(0 ms) is null, a Java waiter wakes on our unlock with the next token", async () => {
    const w = await wire();
    const name = familyName('fenced');
    const client = ctx.clients.client();
    const lock = client.getFencedLock(name);
    const token = await lock.lockAndGetToken(LONG_LEASE_MS);
    expect(await ctx.raw.hgetall(name)).toEqual({ [`${client.getId()}:${lock.threadId}`]: '1' });
    // Java's no-argument tryLockAndGetToken() waits without limit: a zero wait is its single attempt.
    expect(await java(name, 'tryLockAndGetToken', [0], 'fenced-try')).toBeNull();
    const waiterTid = await ctx.peer.threadId('fenced-waiter');
    const from = await w.mark();
    const waiter = java(name, 'lockAndGetToken', [], 'fenced-waiter');
    await w.parked(name, from, 'Java waiter');
    const published = await w.publishedDuring(async () => {
      await lock.unlock();
      expect(Number(await within(waiter, ctx.hangGuardMs, 'Java waiter after our unlock'))).toBe(token + 1);
    });
    expect(published).toEqual([{ channel: lockChannelName(name), message: '0' }]);
    expect(await ctx.raw.hgetall(name)).toEqual({ [ctx.peer.lockOwner(waiterTid)]: '1' });
    await java(name, 'unlock', [], 'fenced-waiter');
  });

  ctx.check(TOKENS, 'both', 'tokens 1…8 alternate between the sides in acquisition order', async () => {
    const name = familyName('fenced');
    const client = ctx.clients.client();
    const lock = client.getFencedLock(name);
    const t = 'fenced-tokens';
    const tokens: number[] = [];
    // Our re-entry is Java's one thread: a runInThread flow of the object's own id (the default ownership).
    await client.runInThread(async () => {
      tokens.push(Number(await java(name, 'lockAndGetToken', [LONG_LEASE_MS], t)));
      // Java re-enters: a re-entry draws a token too.
      tokens.push(Number(await java(name, 'tryLockAndGetToken', [0, LONG_LEASE_MS], t)));
      expect(await lock.getToken()).toBe(2);
      await java(name, 'unlock', [], t);
      await java(name, 'unlock', [], t);
      tokens.push(await lock.lockAndGetToken(LONG_LEASE_MS));
      tokens.push((await lock.tryLockAndGetToken()) ?? -1);
      expect(Number(await java(name, 'getToken', [], t))).toBe(4);
      await lock.unlock();
      await lock.unlock();
      // Plain lock() on either side draws one too (Java's nil-returning script, our token script).
      await java(name, 'lock', [LONG_LEASE_MS], t);
      tokens.push(Number(await java(name, 'getToken', [], t)));
      await java(name, 'unlock', [], t);
      await lock.lock(LONG_LEASE_MS);
      tokens.push(await lock.getToken());
      await lock.unlock();
      tokens.push((await lock.tryLockAndGetToken(1_000, LONG_LEASE_MS)) ?? -1);
      await lock.unlock();
      tokens.push(Number(await java(name, 'tryLockAndGetToken', [1_000, LONG_LEASE_MS], t)));
      await java(name, 'unlock', [], t);
      expect(tokens).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
      expect(await ctx.raw.exists(name)).toBe(0);
      expect(await ctx.raw.get(`redisson_lock_token:{${name}}`)).toBe('8');
    }, lock.threadId);
  });

  ctx.check(WIRE, 'both', "our wire record of the sequence equals Java's", async () => {
    await expectSameWire(ctx, await wire(), 'fencedLock', (client, name) => client.getFencedLock(name), STEPS);
  });
};
