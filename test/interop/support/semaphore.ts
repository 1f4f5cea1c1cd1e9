/**
 * RSemaphore interop (Redisson's `RSemaphore` through the peer's "semaphore" primitive; every pinned
 * version has it, with the same key, channel and messages since 3.1.0): both sides count the same
 * string, every release publishes the new total on `redisson_sc:{N}`, and that message wakes the other
 * side's parked waiters — up to that many per process. Permits have no owner: what one side took, the
 * other may release.
 *
 * No assertion depends on timing: waiters are seen parked through their GETs in MONITOR (./syncWaiters.ts)
 * before anyone releases, and a semaphore has no time-based retry, so a waiter that acquires within the
 * hang guard was woken by the other side's message.
 */
import { expect } from 'vitest';
import { eventually, uniqueName } from '../../support/redis.js';
import type { InteropContext, InteropScenarios } from './context.js';
import { syncWaiters } from './syncWaiters.js';

const PRIMITIVE = 'Semaphore';

export const semaphoreScenarios: InteropScenarios = (ctx: InteropContext) => {
  const w = syncWaiters(ctx);
  const java = async (name: string, method: string, args: unknown[] = [], thread = `${name}-main`): Promise<unknown> =>
    (await ctx.peer.call('semaphore', name, method, args, thread)).result;
  const settledCount = (flags: boolean[]): number => flags.filter(Boolean).length;

  // ------------------------------------------------------------------------------ release wakes
  ctx.row('sem-release', PRIMITIVE, "A release publishes the new total, which wakes the other side's parked waiters (up to that many per process)");
  ctx.check('sem-release', 'java-to-ts', "Java's release(2) wakes 2 of our 3 parked waiters (two clients); its release(1) the third", async () => {
    const name = uniqueName('interop-sem');
    expect(await java(name, 'trySetPermits', [0])).toBe(true);
    const [a, b] = [ctx.clients.client(), ctx.clients.client()];
    const settled = [false, false, false];
    const from = await w.mark();
    const waiters = [a, b, a].map((c, i) => c.getSemaphore(name).acquire().then(() => (settled[i] = true)));
    await w.parked(name, from, 3, 'our waiters');
    await java(name, 'release', [2]);
    await eventually(() => settledCount(settled) === 2, ctx.hangGuardMs, 'two of our waiters woken');
    expect(await ctx.raw.get(name)).toBe('0');
    await java(name, 'release', [1]);
    await w.within(Promise.all(waiters), 'our third waiter');
    expect(await ctx.raw.get(name)).toBe('0');
  });
  ctx.check('sem-release', 'ts-to-java', "our release(2) wakes 2 of Java's 3 parked waiters; our release(1) the third", async () => {
    const name = uniqueName('interop-sem');
    const s = ctx.clients.client().getSemaphore(name);
    expect(await s.trySetPermits(0)).toBe(true);
    const settled = [false, false, false];
    const from = await w.mark();
    const waiters = [0, 1, 2].map((i) => java(name, 'acquire', [], `${name}-w${i}`).then(() => (settled[i] = true)));
    await w.parked(name, from, 3, "Java's waiters");
    await s.release(2);
    await eventually(() => settledCount(settled) === 2, ctx.hangGuardMs, "two of Java's waiters woken");
    expect(await s.availablePermits()).toBe(0);
    await s.release();
    await w.within(Promise.all(waiters), "Java's third waiter");
    expect(await java(name, 'availablePermits')).toBe(0);
  });

  // --------------------------------------------------------------------------- no owner, cross release
  ctx.row('sem-cross', PRIMITIVE, "Permits taken on one side are released by the other (no owner): the count stays exact and the taker's parked waiter wakes");
  ctx.check('sem-cross', 'java-to-ts', 'we take both permits and park a waiter; Java releases our permits; our waiter wakes', async () => {
    const name = uniqueName('interop-sem');
    const client = ctx.clients.client();
    await client.getSemaphore(name).trySetPermits(2);
    await client.getSemaphore(name).acquire(2);
    const from = await w.mark();
    const waiter = client.getSemaphore(name).acquire();
    await w.parked(name, from, 1, 'our waiter');
    await java(name, 'release', [2]);
    await w.within(waiter, 'our waiter');
    expect(await java(name, 'availablePermits')).toBe(1);
  });
  ctx.check('sem-cross', 'ts-to-java', 'Java takes both permits and parks a waiter; we release its permits; its waiter wakes', async () => {
    const name = uniqueName('interop-sem');
    expect(await java(name, 'trySetPermits', [2])).toBe(true);
    await java(name, 'acquire', [2]);
    const from = await w.mark();
    const waiter = java(name, 'acquire', [], `${name}-w`);
    await w.parked(name, from, 1, "Java's waiter");
    await ctx.clients.client().getSemaphore(name).release(2);
    await w.within(waiter, "Java's waiter");
    expect(await ctx.clients.client().getSemaphore(name).availablePermits()).toBe(1);
  });

  // ------------------------------------------------------------------------------------ addPermits
  ctx.row('sem-add', PRIMITIVE, "`addPermits` publishes the new total: a waiter for 2 permits on the other side retries on 1 and takes them on 2");
  ctx.check('sem-add', 'java-to-ts', "Java's addPermits(1) twice: our acquire(2) retries, then acquires", async () => {
    const name = uniqueName('interop-sem');
    const from = await w.mark();
    let done = false;
    const waiter = ctx.clients.client().getSemaphore(name).acquire(2).then(() => (done = true));
    await w.parked(name, from, 1, 'our waiter');
    await java(name, 'addPermits', [1]);
    await w.looked(name, from, 3, 'our woken retry');
    expect(done).toBe(false);
    await java(name, 'addPermits', [1]);
    await w.within(waiter, 'our waiter');
    expect(await ctx.raw.get(name)).toBe('0');
  });
  ctx.check('sem-add', 'ts-to-java', "our addPermits(1), then our setPermits(2): Java's acquire(2) retries, then acquires", async () => {
    const name = uniqueName('interop-sem');
    const s = ctx.clients.client().getSemaphore(name);
    const from = await w.mark();
    let done = false;
    const waiter = java(name, 'acquire', [2], `${name}-w`).then(() => (done = true));
    await w.parked(name, from, 1, "Java's waiter");
    await s.addPermits(1);
    await w.looked(name, from, 3, "Java's woken retry");
    expect(done).toBe(false);
    await s.setPermits(2);
    await w.within(waiter, "Java's waiter");
    expect(await s.availablePermits()).toBe(0);
  });

  // ------------------------------------------------------------------------------------ one layout
  ctx.row('sem-data', PRIMITIVE, 'One count: `trySetPermits`, `tryAcquire`, `availablePermits`, a negative `addPermits` and `drainPermits` on one side are what the other sees');
  for (const direction of ['java-to-ts', 'ts-to-java'] as const) {
    const javaFirst = direction === 'java-to-ts';
    ctx.check('sem-data', direction, javaFirst ? 'Java sets up and changes the count; we see it' : 'we set up and change the count; Java sees it', async () => {
      const name = uniqueName('interop-sem');
      const s = ctx.clients.client().getSemaphore(name);
      const first = {
        trySetPermits: (n: number) => (javaFirst ? java(name, 'trySetPermits', [n]) : s.trySetPermits(n)),
        tryAcquire: (n: number) => (javaFirst ? java(name, 'tryAcquire', [n]) : s.tryAcquire(n)),
        addPermits: (n: number) => (javaFirst ? java(name, 'addPermits', [n]) : s.addPermits(n)),
      };
      const second = {
        trySetPermits: (n: number) => (javaFirst ? s.trySetPermits(n) : java(name, 'trySetPermits', [n])),
        tryAcquire: (n: number) => (javaFirst ? s.tryAcquire(n) : java(name, 'tryAcquire', [n])),
        available: () => (javaFirst ? s.availablePermits() : java(name, 'availablePermits')),
        drain: () => (javaFirst ? s.drainPermits() : java(name, 'drainPermits')),
      };
      expect(await first.trySetPermits(3)).toBe(true);
      expect(await second.trySetPermits(5)).toBe(false);
      expect(await second.available()).toBe(3);
      expect(await first.tryAcquire(2)).toBe(true);
      expect(await second.tryAcquire(2)).toBe(false);
      expect(await second.tryAcquire(1)).toBe(true);
      expect(await ctx.raw.get(name)).toBe('0');
      await first.addPermits(-2);
      expect(await second.available()).toBe(-2);
      expect(await second.tryAcquire(1)).toBe(false);
      expect(await second.drain()).toBe(-2);
      expect(await ctx.raw.get(name)).toBe('0');
    });
  }
};
