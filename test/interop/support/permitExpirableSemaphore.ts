/**
 * RPermitExpirableSemaphore interop (Redisson's `RPermitExpirableSemaphore` through the peer's
 * "permitExpirableSemaphore" primitive): both sides count the same `N`, keep permits as 16-byte members of
 * `{N}:timeout`, and hand the same 32-hex-digit ids out, so a permit taken on one side is released by id on
 * the other; releases and reclaims publish on `redisson_sc:{N}` and wake the other side's waiters; a lease
 * that runs out returns its permit to whichever side looks next. Acquiring several permits at once gives one
 * id per permit only from Redisson 3.23.4, so that row is n/a before.
 *
 * No assertion depends on timing: waiters are seen parked through their GETs in MONITOR before anyone
 * releases; a permit without a lease has no time-based retry, so a waiter that acquires within the hang
 * guard was woken by the message.
 */
import { expect } from 'vitest';
import { TimeUnit } from '../../../src/index.js';
import { uniqueName } from '../../support/redis.js';
import type { InteropContext, InteropScenarios } from './context.js';
import { syncWaiters } from './syncWaiters.js';

const PRIMITIVE = 'PermitExpirableSemaphore';
const HEX_ID = /^[0-9a-f]{32}$/;
const SHORT_LEASE_MS = 300;

const atLeast = (version: string, major: number, minor: number, patch: number): boolean => {
  const [a = 0, b = 0, c = 0] = version.split('.').map(Number);
  return a !== major ? a > major : b !== minor ? b > minor : c >= patch;
};

export const permitExpirableSemaphoreScenarios: InteropScenarios = (ctx: InteropContext) => {
  const w = syncWaiters(ctx);
  const manyIds = atLeast(ctx.version, 3, 23, 4);
  const java = async (name: string, method: string, args: unknown[] = [], thread = `${name}-main`): Promise<unknown> =>
    (await ctx.peer.call('permitExpirableSemaphore', name, method, args, thread)).result;
  const ours = (name: string) => ctx.clients.client().getPermitExpirableSemaphore(name);
  /** The permits held in `{N}:timeout`, as hex ids, with their scores. */
  const leases = async (name: string): Promise<Map<string, number>> => {
    const flat = await ctx.raw.zrangeBuffer(`{${name}}:timeout`, 0, -1, 'WITHSCORES');
    const out = new Map<string, number>();
    for (let i = 0; i < flat.length; i += 2) out.set((flat[i] as Buffer).toString('hex'), Number(String(flat[i + 1])));
    return out;
  };

  // --------------------------------------------------------------------------- release by id wakes
  ctx.row('pes-release', PRIMITIVE, "The holder of the only permit releases it by id: the other side's parked waiter wakes through the message and gets a permit id of its own");
  ctx.check('pes-release', 'java-to-ts', "Java holds the permit; our parked acquire() wakes on Java's release(id)", async () => {
    const name = uniqueName('interop-pes');
    expect(await java(name, 'trySetPermits', [1])).toBe(true);
    const held = (await java(name, 'acquire')) as string;
    expect(held).toMatch(HEX_ID);
    const from = await w.mark();
    const waiter = ours(name).acquire();
    await w.parked(name, from, 1, 'our waiter');
    await java(name, 'release', [held]);
    const id = await w.within(waiter, 'our waiter');
    expect(id).toMatch(HEX_ID);
    expect([...(await leases(name)).keys()]).toEqual([id]);
  });
  ctx.check('pes-release', 'ts-to-java', "we hold the permit; Java's parked acquire() wakes on our release(id)", async () => {
    const name = uniqueName('interop-pes');
    const s = ours(name);
    expect(await s.trySetPermits(1)).toBe(true);
    const held = await s.acquire();
    const from = await w.mark();
    const waiter = java(name, 'acquire', [], `${name}-w`);
    await w.parked(name, from, 1, "Java's waiter");
    await s.release(held);
    const id = (await w.within(waiter, "Java's waiter")) as string;
    expect(id).toMatch(HEX_ID);
    expect([...(await leases(name)).keys()]).toEqual([id]);
  });

  // ---------------------------------------------------------------------------- ids cross sides
  ctx.row('pes-cross', PRIMITIVE, 'A permit id handed out on one side is released by the other; releasing it again fails on both (`tryRelease` false)');
  ctx.check('pes-cross', 'java-to-ts', "we release Java's permit by its id; Java's tryRelease of it is then false", async () => {
    const name = uniqueName('interop-pes');
    expect(await java(name, 'trySetPermits', [2])).toBe(true);
    const id = (await java(name, 'acquire', [60_000])) as string;
    const s = ours(name);
    expect(await s.acquiredPermits()).toBe(1);
    await s.release(id);
    expect(await java(name, 'tryRelease', [id])).toBe(false);
    expect(await s.tryRelease(id)).toBe(false);
    expect(await java(name, 'availablePermits')).toBe(2);
  });
  ctx.check('pes-cross', 'ts-to-java', "Java releases our permit by its id; our tryRelease of it is then false", async () => {
    const name = uniqueName('interop-pes');
    const s = ours(name);
    await s.trySetPermits(2);
    const id = await s.acquire(60_000, TimeUnit.MILLISECONDS);
    expect(await java(name, 'availablePermits')).toBe(1);
    await java(name, 'release', [id]);
    expect(await s.tryRelease(id)).toBe(false);
    expect(await java(name, 'tryRelease', [id])).toBe(false);
    expect(await s.availablePermits()).toBe(2);
  });

  // ------------------------------------------------------------------------------ expired leases
  ctx.row('pes-expiry', PRIMITIVE, `A permit whose lease (${SHORT_LEASE_MS} ms) runs out unreleased goes back to the pool: the other side's waiter takes it, and the old id no longer releases`);
  ctx.check('pes-expiry', 'java-to-ts', "Java's leased permit runs out: our waiting acquire() gets it; Java's tryRelease(old id) is false", async () => {
    const name = uniqueName('interop-pes');
    expect(await java(name, 'trySetPermits', [1])).toBe(true);
    const old = (await java(name, 'acquire', [SHORT_LEASE_MS])) as string;
    const id = await w.within(ours(name).acquire(), 'our waiter after the lease');
    expect(id).not.toBe(old);
    expect(await java(name, 'tryRelease', [old])).toBe(false);
    expect([...(await leases(name)).keys()]).toEqual([id]);
  });
  ctx.check('pes-expiry', 'ts-to-java', "our leased permit runs out: Java's waiting tryAcquire gets it; our tryRelease(old id) is false", async () => {
    const name = uniqueName('interop-pes');
    const s = ours(name);
    await s.trySetPermits(1);
    const old = (await s.tryAcquire(0, SHORT_LEASE_MS)) as string;
    expect(old).toMatch(HEX_ID);
    const id = (await w.within(java(name, 'tryAcquire', [ctx.hangGuardMs - 2_000, -1], `${name}-w`), "Java's waiter after the lease")) as string;
    expect(id).toMatch(HEX_ID);
    expect(await s.tryRelease(old)).toBe(false);
    expect([...(await leases(name)).keys()]).toEqual([id]);
  });

  // ------------------------------------------------------------------------------------ one layout
  ctx.row('pes-data', PRIMITIVE, 'One layout: permits acquired with and without a lease on one side are 16-byte members with the same scores, and the other side counts them the same (`availablePermits`, `acquiredPermits`, `getPermits`)');
  for (const direction of ['java-to-ts', 'ts-to-java'] as const) {
    const javaFirst = direction === 'java-to-ts';
    ctx.check('pes-data', direction, javaFirst ? 'Java sets up and acquires; we count the same' : 'we set up and acquire; Java counts the same', async () => {
      const name = uniqueName('interop-pes');
      const s = ours(name);
      const before = Date.now();
      let ids: string[];
      if (javaFirst) {
        expect(await java(name, 'trySetPermits', [5])).toBe(true);
        ids = [(await java(name, 'acquire')) as string, (await java(name, 'acquire', [60_000])) as string];
      } else {
        expect(await s.trySetPermits(5)).toBe(true);
        ids = [await s.acquire(), (await s.tryAcquire(0, 60_000)) as string];
      }
      const held = await leases(name);
      expect([...held.keys()].sort()).toEqual([...ids].sort());
      expect(held.get(ids[0] as string)).toBe(922_337_203_685_477);
      const score = held.get(ids[1] as string) ?? 0;
      expect(score).toBeGreaterThanOrEqual(before + 60_000);
      expect(score).toBeLessThanOrEqual(Date.now() + 60_000);
      if (javaFirst) {
        expect([await s.availablePermits(), await s.acquiredPermits(), await s.getPermits()]).toEqual([3, 2, 5]);
      } else if (manyIds) {
        expect([await java(name, 'availablePermits'), await java(name, 'acquiredPermits'), await java(name, 'getPermits')]).toEqual([3, 2, 5]);
      } else {
        expect(await java(name, 'availablePermits')).toBe(3); // acquiredPermits and getPermits are Java 3.23.4+
      }
    });
  }

  // ------------------------------------------------------------------------------- several at once
  const MANY = 'pes-many';
  const MANY_TITLE = 'Several permits at once: one id per permit (Redisson ≥ 3.23.4); the other side releases the whole list, and a list with an unknown id releases nothing';
  ctx.row(MANY, PRIMITIVE, MANY_TITLE);
  if (!manyIds) {
    ctx.notInVersion(MANY, MANY_TITLE);
    return;
  }
  ctx.check(MANY, 'java-to-ts', "Java's tryAcquire(3, …) ids: we release them as one list", async () => {
    const name = uniqueName('interop-pes');
    expect(await java(name, 'trySetPermits', [5])).toBe(true);
    const ids = (await java(name, 'tryAcquireMany', [3, 0, -1])) as string[];
    expect(ids).toHaveLength(3);
    const s = ours(name);
    expect(await s.tryRelease([...ids, 'abcd'])).toBe(0);
    await s.release(ids);
    expect(await java(name, 'availablePermits')).toBe(5);
  });
  ctx.check(MANY, 'ts-to-java', "our acquire(3) ids: Java releases them as one list", async () => {
    const name = uniqueName('interop-pes');
    const s = ours(name);
    await s.trySetPermits(5);
    const ids = await s.acquire(3);
    await java(name, 'releaseMany', [ids]);
    expect(await s.availablePermits()).toBe(5);
    expect(await s.acquiredPermits()).toBe(0);
  });
};
