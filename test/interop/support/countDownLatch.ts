/**
 * RCountDownLatch interop (Redisson's `RCountDownLatch` through the peer's "countDownLatch" primitive;
 * the same key, always-braced channel and messages since 2.2.1): the count reaching zero on one side
 * publishes `0`, which opens every parked awaiter of the other side; `trySetCount` and `delete` publish
 * `1`, which opens nobody — on either side.
 *
 * No assertion depends on timing: awaiters are seen parked through their GETs in MONITOR (./syncWaiters.ts);
 * a latch has no time-based retry, so an awaiter that returns within the hang guard was opened by the
 * other side's message.
 */
import { expect } from 'vitest';
import { countDownLatchChannelName } from '../../../src/index.js';
import { collectMessages, eventually, uniqueName } from '../../support/redis.js';
import type { InteropContext, InteropScenarios } from './context.js';
import { syncWaiters } from './syncWaiters.js';

const PRIMITIVE = 'CountDownLatch';

export const countDownLatchScenarios: InteropScenarios = (ctx: InteropContext) => {
  const w = syncWaiters(ctx);
  const java = async (name: string, method: string, args: unknown[] = [], thread = `${name}-main`): Promise<unknown> =>
    (await ctx.peer.call('countDownLatch', name, method, args, thread)).result;

  // ------------------------------------------------------------------------------------ opening
  ctx.row('latch-open', PRIMITIVE, "Counting down to zero on one side (message `0`) opens every parked awaiter of the other side, timed and untimed; a count above zero opens none");
  ctx.check('latch-open', 'java-to-ts', "Java counts 2 → 0: our 3 awaiters (two clients) open at 0, not at 1", async () => {
    const name = uniqueName('interop-latch');
    expect(await java(name, 'trySetCount', [2])).toBe(true);
    const [a, b] = [ctx.clients.client(), ctx.clients.client()];
    const from = await w.mark();
    let opened = 0;
    const awaiters = [a.getCountDownLatch(name).await(), b.getCountDownLatch(name).await(60_000), a.getCountDownLatch(name).await(60_000)].map((p) =>
      p.then((r) => {
        opened++;
        return r;
      }),
    );
    await w.parked(name, from, 3, 'our awaiters');
    await java(name, 'countDown');
    expect(await java(name, 'getCount')).toBe(1);
    // No message at 1: nobody looked again (3 × (check + check), plus Java's getCount).
    await w.mark();
    expect(w.looks(name, from)).toBe(6 + 1);
    expect(opened).toBe(0);
    await java(name, 'countDown');
    expect(await w.within(Promise.all(awaiters), 'our awaiters')).toEqual([undefined, true, true]);
    expect(await ctx.raw.exists(name)).toBe(0);
  });
  ctx.check('latch-open', 'ts-to-java', "we count 2 → 0: Java's 2 awaiters (await(), await(time)) open at 0", async () => {
    const name = uniqueName('interop-latch');
    const latch = ctx.clients.client().getCountDownLatch(name);
    expect(await latch.trySetCount(2)).toBe(true);
    const from = await w.mark();
    const awaiters = [java(name, 'await', [], `${name}-w1`), java(name, 'await', [60_000], `${name}-w2`)];
    await w.parked(name, from, 2, "Java's awaiters");
    await latch.countDown();
    expect(await latch.getCount()).toBe(1);
    await latch.countDown();
    expect(await w.within(Promise.all(awaiters), "Java's awaiters")).toEqual([null, true]);
    expect(await java(name, 'getCount')).toBe(0);
  });

  // ------------------------------------------------------------------------ one count, set and delete
  ctx.row('latch-data', PRIMITIVE, "One count: `trySetCount`, `getCount`, `countDown`, `delete` on one side act on the other's latch; `delete` (message `1`) leaves the other side's awaiter waiting until a later count reaches zero");
  for (const direction of ['java-to-ts', 'ts-to-java'] as const) {
    const javaActs = direction === 'java-to-ts';
    const title = javaActs ? 'Java sets, counts down and deletes; we see it, and our awaiter outlives the delete' : "we set, count down and delete; Java sees it, and its awaiter outlives the delete";
    ctx.check('latch-data', direction, title, async () => {
      const name = uniqueName('interop-latch');
      const ours = ctx.clients.client().getCountDownLatch(name);
      const actor = {
        trySetCount: (n: number) => (javaActs ? java(name, 'trySetCount', [n]) : ours.trySetCount(n)),
        countDown: () => (javaActs ? java(name, 'countDown') : ours.countDown()),
        delete: () => (javaActs ? java(name, 'delete') : ours.delete()),
      };
      const observer = {
        trySetCount: (n: number) => (javaActs ? ours.trySetCount(n) : java(name, 'trySetCount', [n])),
        getCount: () => (javaActs ? ours.getCount() : java(name, 'getCount')),
        delete: () => (javaActs ? ours.delete() : java(name, 'delete')),
        await: () => (javaActs ? ours.await(60_000) : java(name, 'await', [60_000], `${name}-w`)),
      };
      expect(await actor.trySetCount(3)).toBe(true);
      expect(await observer.trySetCount(5)).toBe(false);
      expect(await observer.getCount()).toBe(3);
      await actor.countDown();
      expect(await observer.getCount()).toBe(2);

      const messages = await collectMessages(ctx.clients.raw(), countDownLatchChannelName(name));
      const from = await w.mark();
      let opened = false;
      const awaiter = observer.await().then((r) => {
        opened = true;
        return r;
      });
      await w.parked(name, from, 1, 'the awaiter');
      expect(await actor.delete()).toBe(true);
      await eventually(() => messages.length === 1, ctx.hangGuardMs, 'message 1');
      expect(messages).toEqual(['1']);
      expect(await observer.getCount()).toBe(0);
      expect(await observer.delete()).toBe(false);
      // The `1` made nobody look again: the awaiter still waits on a latch that is gone.
      await w.mark();
      expect(w.looks(name, from)).toBe(2 + 1);
      expect(opened).toBe(false);
      expect(await actor.trySetCount(1)).toBe(true);
      await actor.countDown();
      expect(await w.within(awaiter, 'the awaiter')).toBe(true);
      await eventually(() => messages.length === 3, ctx.hangGuardMs, 'messages 1, 1, 0');
      expect(messages).toEqual(['1', '1', '0']);
    });
  }
};
