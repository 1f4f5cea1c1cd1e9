/**
 * The semaphores' hold API on a real server: `acquireHold` / `tryAcquireHold` / `withPermits` / `await using`
 * of RSemaphore and RPermitExpirableSemaphore. A hold gives back exactly what it took (the count; the ids),
 * once; a failed or aborted acquisition leaves nothing taken and no waiter behind; a PermitExpirableSemaphore
 * hold's signal aborts once a lease has run out in Redis. Time limits are hang guards; sleeps only let a
 * lease run out.
 */
import type { Redis } from 'ioredis';
import { beforeAll, describe, expect, it } from 'vitest';
import { PermitExpirableHold, PermitNotHeldError, SemaphoreHold, permitExpirableTimeoutName, semaphoreChannelName, type Redisson } from '../../src/index.js';
import { CommandGate } from '../support/commandGate.js';
import { eventually, sleep, uniqueName, useRedis } from '../support/redis.js';
import { allCalls, calls, noSubscriptions, numSub, parked, tracked, within } from './syncHelpers.js';

const suite = useRedis();
let raw: Redis;
beforeAll(() => {
  raw = suite.clients.raw();
});
const client = (): Redisson => suite.clients.client();
const hex = (ids: readonly string[]): string[] => [...ids].sort();
async function zsetIds(name: string): Promise<string[]> {
  return (await raw.zrangeBuffer(permitExpirableTimeoutName(name), 0, -1)).map((b) => b.toString('hex')).sort();
}

describe('RSemaphore holds', () => {
  it('acquireHold takes the permits; `await using` gives back exactly those, once', async () => {
    const name = uniqueName('sem');
    const s = client().getSemaphore(name);
    await s.trySetPermits(5);
    let seen: SemaphoreHold | undefined;
    {
      await using hold = await s.acquireHold({ permits: 3 });
      seen = hold;
      expect(hold.permits).toBe(3);
      expect(await raw.get(name)).toBe('2');
    }
    expect(seen.released).toBe(true);
    expect(await raw.get(name)).toBe('5');
    await seen.release(); // idempotent: no second release
    await seen[Symbol.asyncDispose]();
    expect(await raw.get(name)).toBe('5');
  });

  it('tryAcquireHold: null without enough permits, nothing taken; with a wait, the hold once permits are released', async () => {
    const name = uniqueName('sem');
    const s = client().getSemaphore(name);
    await s.trySetPermits(1);
    expect(await s.tryAcquireHold({ permits: 2 })).toBeNull();
    expect(await raw.get(name)).toBe('1');
    const from = await calls(raw, 'get');
    const waiter = tracked(s.tryAcquireHold({ permits: 2, waitTime: 60_000 }));
    await parked(raw, from, 1);
    expect(waiter.settled).toBe(false);
    await client().getSemaphore(name).release();
    const hold = await within(waiter.promise, 'the waiting tryAcquireHold');
    expect(hold?.permits).toBe(2);
    expect(await raw.get(name)).toBe('0');
    await hold?.release();
    expect(await raw.get(name)).toBe('2');
  });

  it('withPermits gives the permits back when the work throws, and returns its value otherwise', async () => {
    const name = uniqueName('sem');
    const s = client().getSemaphore(name);
    await s.trySetPermits(2);
    await expect(s.withPermits(() => Promise.reject(new Error('work failed')), { permits: 2 })).rejects.toThrow('work failed');
    expect(await raw.get(name)).toBe('2');
    expect(await s.withPermits(async () => Number(await raw.get(name)))).toBe(1);
    expect(await raw.get(name)).toBe('2');
  });

  it('several clients × concurrent flows through withPermits: never more than the permits inside; all given back', async () => {
    const name = uniqueName('sem');
    const clients = [client(), client(), client()];
    await (clients[0] as Redisson).getSemaphore(name).trySetPermits(3);
    let inside = 0;
    let most = 0;
    const work = async (): Promise<void> => {
      inside += 2;
      most = Math.max(most, inside);
      await sleep(5);
      inside -= 2;
    };
    // Each flow takes 2 of 3 permits: only one flow at a time may be inside.
    const flows = clients.flatMap((c) => Array.from({ length: 4 }, () => c.getSemaphore(name).withPermits(work, { permits: 2 })));
    await within(Promise.all(flows), 'twelve flows', 30_000);
    expect(most).toBe(2);
    expect(await raw.get(name)).toBe('3');
  });

  it('an aborted acquireHold rejects with the reason, takes nothing and leaves no waiter subscribed', async () => {
    const name = uniqueName('sem');
    const s = client().getSemaphore(name);
    await s.trySetPermits(0);
    const from = await calls(raw, 'get');
    const controller = new AbortController();
    const waiter = s.acquireHold({ signal: controller.signal });
    await parked(raw, from, 1);
    controller.abort(new Error('stop'));
    await expect(waiter).rejects.toThrow('stop');
    await s.release();
    expect(await raw.get(name)).toBe('1');
    await eventually(async () => (await numSub(raw, semaphoreChannelName(name))) === 0, 10_000, 'the channel to be left');
  });

  it('hold options are checked before anything is sent', async () => {
    const s = client().getSemaphore(uniqueName('sem'));
    await s.availablePermits();
    await noSubscriptions(raw);
    const before = await allCalls(raw);
    await expect(s.acquireHold({ permits: 0 })).rejects.toBeInstanceOf(RangeError);
    await expect(s.acquireHold({ waitTime: 5 } as never)).rejects.toThrow(/`waitTime` is an option of tryAcquireHold/);
    await expect(s.tryAcquireHold({ leaseTime: 5 } as never)).rejects.toThrow(/an RSemaphore permit has no lease/);
    await expect(s.acquireHold({ threadId: 1 } as never)).rejects.toThrow(/semaphore permits have no owner/);
    await expect(s.tryAcquireHold({ waitTime: Number.NaN })).rejects.toBeInstanceOf(TypeError);
    await expect(s.acquireHold(new AbortController().signal as never)).rejects.toThrow(/pass it as `\{ signal \}`/);
    expect(await allCalls(raw)).toBe(before);
  });
});

describe('RPermitExpirableSemaphore holds', () => {
  it('acquireHold takes ids with a lease; `await using` releases exactly those ids, once', async () => {
    const name = uniqueName('pes');
    const seats = client().getPermitExpirableSemaphore(name);
    await seats.trySetPermits(4);
    const other = await seats.acquire(); // someone else's permit: must stay taken
    let seen: PermitExpirableHold | undefined;
    {
      await using hold = await seats.acquireHold({ permits: 2, leaseTime: 60_000 });
      seen = hold;
      expect(hold.permits).toBe(2);
      expect(hold.ids.every((id) => /^[0-9a-f]{32}$/.test(id))).toBe(true);
      expect(await zsetIds(name)).toEqual(hex([other, ...hold.ids]));
      const left = await seats.getLeaseTime(hold.ids[0] as string);
      expect(left).toBeGreaterThan(0);
      expect(left).toBeLessThanOrEqual(60_000);
      expect(hold.signal.aborted).toBe(false);
    }
    expect(seen.released).toBe(true);
    expect(await zsetIds(name)).toEqual([other]);
    expect(await raw.get(name)).toBe('3');
    await seen.release();
    expect(await raw.get(name)).toBe('3');
  });

  it('tryAcquireHold: null when none is free (nothing taken); withPermits releases when the work throws', async () => {
    const name = uniqueName('pes');
    const seats = client().getPermitExpirableSemaphore(name);
    await seats.trySetPermits(1);
    expect(await seats.tryAcquireHold({ permits: 2, waitTime: 0 })).toBeNull();
    expect(await raw.get(name)).toBe('1');
    expect(await raw.exists(permitExpirableTimeoutName(name))).toBe(0);
    await expect(
      seats.withPermits((signal) => {
        expect(signal.aborted).toBe(false);
        return Promise.reject(new Error('work failed'));
      }),
    ).rejects.toThrow('work failed');
    expect(await raw.get(name)).toBe('1');
    expect(await raw.exists(permitExpirableTimeoutName(name))).toBe(0);
  });

  it("a hold's signal aborts with PermitNotHeldError once its lease ran out; release() then rejects, and the permit is back", async () => {
    const name = uniqueName('pes');
    const seats = client().getPermitExpirableSemaphore(name);
    await seats.trySetPermits(1);
    const hold = await seats.acquireHold({ leaseTime: 200 });
    const reason = await within(new Promise((resolve) => hold.signal.addEventListener('abort', () => resolve(hold.signal.reason), { once: true })), 'the lease to run out');
    expect(reason).toBeInstanceOf(PermitNotHeldError);
    expect((reason as PermitNotHeldError).permitIds).toEqual(hold.ids);
    await expect(hold.release()).rejects.toBeInstanceOf(PermitNotHeldError);
    expect(await seats.availablePermits()).toBe(1);
  });

  it('a lease moved by updateLeaseTime is followed: the signal stays quiet while Redis still has the permit', async () => {
    const name = uniqueName('pes');
    const seats = client().getPermitExpirableSemaphore(name);
    await seats.trySetPermits(1);
    const hold = await seats.acquireHold({ leaseTime: 100 });
    expect(await seats.updateLeaseTime(hold.ids[0] as string, 60_000)).toBe(true);
    // The hold's timer fires after 100 ms and asks Redis (ZSCORE): wait for that question, then look.
    const from = await calls(raw, 'zscore');
    await eventually(async () => (await calls(raw, 'zscore')) > from, 10_000, 'the lease check');
    await sleep(20);
    expect(hold.signal.aborted).toBe(false);
    await hold.release();
    expect(await raw.get(name)).toBe('1');
  });

  it("a released leased hold's lease watch is stopped: no check runs and the signal stays quiet past the lease", async () => {
    const name = uniqueName('pes');
    const seats = client().getPermitExpirableSemaphore(name);
    await seats.trySetPermits(1);
    const hold = await seats.acquireHold({ leaseTime: 100 });
    await hold.release();
    const checks = await calls(raw, 'zscore');
    await sleep(300); // past the lease: a watch still armed would ask Redis, then abort
    expect(await calls(raw, 'zscore')).toBe(checks);
    expect(hold.signal.aborted).toBe(false);
  });

  it('one id of a hold gone: release() still gives back the others, then names the lost one', async () => {
    const name = uniqueName('pes');
    const seats = client().getPermitExpirableSemaphore(name);
    await seats.trySetPermits(3);
    const hold = await seats.acquireHold({ permits: 2 });
    const [lost, kept] = hold.ids as [string, string];
    expect(await client().getPermitExpirableSemaphore(name).tryRelease(lost)).toBe(true); // released behind the hold's back
    expect(await raw.get(name)).toBe('2');
    const error = await hold.release().then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(PermitNotHeldError);
    expect((error as PermitNotHeldError).permitIds).toEqual([lost]);
    expect(await raw.get(name)).toBe('3');
    expect(await zsetIds(name)).toEqual([]);
    expect(kept).toMatch(/^[0-9a-f]{32}$/);
  });

  it('several clients × concurrent flows through withPermits: never more inside than permits; all released', async () => {
    const name = uniqueName('pes');
    const clients = [client(), client(), client()];
    await (clients[0] as Redisson).getPermitExpirableSemaphore(name).trySetPermits(2);
    let inside = 0;
    let most = 0;
    const flows = clients.flatMap((c) =>
      Array.from({ length: 3 }, () =>
        c.getPermitExpirableSemaphore(name).withPermits(
          async () => {
            most = Math.max(most, ++inside);
            await sleep(5);
            inside--;
          },
          { leaseTime: 60_000 },
        ),
      ),
    );
    await within(Promise.all(flows), 'nine flows', 30_000);
    expect(most).toBeLessThanOrEqual(2);
    expect(await raw.get(name)).toBe('2');
    expect(await raw.exists(permitExpirableTimeoutName(name))).toBe(0);
  });

  it('an aborted waiting acquireHold takes nothing; hold options are checked before anything is sent', async () => {
    const name = uniqueName('pes');
    const seats = client().getPermitExpirableSemaphore(name);
    await seats.trySetPermits(0);
    const controller = new AbortController();
    const waiter = seats.acquireHold({ leaseTime: 60_000, signal: controller.signal });
    await eventually(async () => (await numSub(raw, semaphoreChannelName(name))) > 0, 10_000, 'the waiter to subscribe');
    controller.abort(new Error('stop'));
    await expect(waiter).rejects.toThrow('stop');
    await seats.addPermits(1);
    expect(await seats.availablePermits()).toBe(1);
    expect(await raw.exists(permitExpirableTimeoutName(name))).toBe(0);

    await noSubscriptions(raw);
    const before = await allCalls(raw);
    await expect(seats.acquireHold({ leaseTime: 0 })).rejects.toBeInstanceOf(RangeError);
    await expect(seats.acquireHold({ permits: -1 })).rejects.toBeInstanceOf(RangeError);
    await expect(seats.acquireHold({ waitTime: 1 } as never)).rejects.toThrow(/`waitTime` is an option of tryAcquireHold/);
    await expect(seats.tryAcquireHold({ leasetime: 1 } as never)).rejects.toThrow(/did you mean `leaseTime`/);
    expect(await allCalls(raw)).toBe(before);
  });
});

describe('holds whose acquisition lands after an abort (forced with a gate on the command connection)', () => {
  it('RSemaphore: the permits taken by the late attempt are given back; the call rejects with the reason', async () => {
    const name = uniqueName('sem');
    const c = client();
    const s = c.getSemaphore(name);
    await s.trySetPermits(2);
    const gate = CommandGate.scripts(c.redis, ['semaphore/tryAcquire']);
    try {
      const controller = new AbortController();
      // Settled as soon as the signal aborts, before the attempt's reply: observed from the start.
      const call = s.acquireHold({ permits: 2, signal: controller.signal }).then(
        () => null,
        (e: unknown) => e,
      );
      const attempt = await gate.next();
      controller.abort(new Error('stop'));
      expect(await attempt.send()).toBe(1); // it took the permits in Redis
      expect(await raw.get(name)).toBe('0');
      attempt.deliver();
      expect(((await call) as Error).message).toBe('stop');
    } finally {
      gate.uninstall();
    }
    await eventually(async () => (await raw.get(name)) === '2', 10_000, 'the late permits to be given back');
  });

  it('RPermitExpirableSemaphore: the ids taken by the late attempt are released; nothing stays leased', async () => {
    const name = uniqueName('pes');
    const c = client();
    const seats = c.getPermitExpirableSemaphore(name);
    await seats.trySetPermits(1);
    const gate = CommandGate.scripts(c.redis, ['permitExpirableSemaphore/tryAcquire']);
    try {
      const controller = new AbortController();
      // Settled as soon as the signal aborts, before the attempt's reply: observed from the start.
      const call = seats.acquireHold({ leaseTime: 60_000, signal: controller.signal }).then(
        () => null,
        (e: unknown) => e,
      );
      const attempt = await gate.next();
      controller.abort(new Error('stop'));
      expect(await attempt.send()).toBe('OK');
      expect(await raw.zcard(permitExpirableTimeoutName(name))).toBe(1);
      attempt.deliver();
      expect(((await call) as Error).message).toBe('stop');
    } finally {
      gate.uninstall();
    }
    await eventually(async () => (await raw.zcard(permitExpirableTimeoutName(name))) === 0 && (await raw.get(name)) === '1', 10_000, 'the late permit to be released');
  });
});
