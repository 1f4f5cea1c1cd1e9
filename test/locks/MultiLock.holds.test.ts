/**
 * The hold API of MultiLock and RedLock (`acquire`, `tryAcquire`, `withLock`, `await using`) over three
 * independent redis-servers, each member from a client of its own. A hold is one owner across every member,
 * released once; concurrent flows sharing one multilock object exclude each other; a failed or aborted
 * acquisition leaves nothing held; the signal aborts when the validity ends (lease) or when too many members
 * were found gone (watchdog). Time limits are hang guards; sleeps only let a lease run out.
 */
import { once } from 'node:events';
import { describe, expect, it } from 'vitest';
import { IllegalMonitorStateError, LockLostError, MultiLockHold, type Redisson } from '../../src/index.js';
import { eventually, sleep, uniqueName } from '../support/redis.js';
import { field, useNodes, within } from './multiNode.js';

const nodes = useNodes(3);

async function expectHeld(name: string, fields: readonly (string | null)[]): Promise<void> {
  expect(await nodes.hashes(name)).toEqual(fields.map((f) => (f === null ? {} : { [f]: '1' })));
}
// Resolves at once when the signal is already aborted: the loss may be seen while the test awaits the command
// that caused it, before this is called.
const lostReason = (signal: AbortSignal): Promise<unknown> =>
  within(
    new Promise((resolve) => (signal.aborted ? resolve(signal.reason) : signal.addEventListener('abort', () => resolve(signal.reason), { once: true }))),
    10_000,
    'the hold to be lost',
  );

describe('MultiLock holds', () => {
  it('acquire() holds every member for one owner of its own; `await using` releases them all, once', async () => {
    const name = uniqueName('multi');
    const clients = nodes.clients();
    const multi = (clients[0] as Redisson).getMultiLock(...nodes.locks(clients, name));
    let seen: MultiLockHold | undefined;
    {
      await using hold = await multi.acquire();
      seen = hold;
      expect(hold.threadId).not.toBe(multi.threadId);
      await expectHeld(name, clients.map((c) => field(c, hold.threadId)));
      expect(hold.remainValidity()).toBe(-1);
      expect(await multi.isHeldByThread(hold.threadId)).toBe(true);
      // Another flow through the same object is another owner: it is refused, and leaves nothing behind.
      expect(await multi.tryAcquire()).toBeNull();
      await expectHeld(name, clients.map((c) => field(c, hold.threadId)));
    }
    expect(seen.released).toBe(true);
    await expectHeld(name, [null, null, null]);
    await seen.release(); // idempotent: no second unlock (which would throw IllegalMonitorStateError)
  });

  it('an explicit threadId or a runInThread flow names the owner; withLock releases when the work throws', async () => {
    const name = uniqueName('multi');
    const clients = nodes.clients();
    const host = clients[0] as Redisson;
    const multi = host.getMultiLock(...nodes.locks(clients, name));
    const hold = await multi.acquire({ threadId: 7 });
    expect(hold.threadId).toBe(7);
    await hold.release();
    await host.runInThread(async () => {
      const inner = await multi.acquire();
      expect(inner.threadId).toBe(host.currentThreadId());
      await inner.release();
    }, 42);
    await expect(multi.withLock(() => Promise.reject(new Error('work failed')))).rejects.toThrow('work failed');
    await expectHeld(name, [null, null, null]);
  });

  it('tryAcquire: null while a member is held by another owner, with nothing of ours left on any node', async () => {
    const name = uniqueName('multi');
    const clients = nodes.clients();
    const other = nodes.clients();
    const theirs = other[1] as Redisson;
    await theirs.getLock(name).lock({ threadId: 5 });
    const multi = (clients[0] as Redisson).getMultiLock(...nodes.locks(clients, name));
    expect(await multi.tryAcquire({ waitTime: 0 })).toBeNull();
    expect(await multi.tryAcquire({ waitTime: 200, leaseTime: 5_000 })).toBeNull();
    await expectHeld(name, [null, field(theirs, 5), null]);
    // An aborted acquire leaves nothing either.
    const controller = new AbortController();
    const waiting = multi.acquire({ signal: controller.signal });
    await eventually(async () => (await nodes.subscribers(name))[1] === 1, 10_000, 'the waiter to listen on node B');
    controller.abort(new Error('stop'));
    await expect(waiting).rejects.toThrow('stop');
    await expectHeld(name, [null, field(theirs, 5), null]);
  });

  it('concurrent flows of several clients, some sharing one multilock object, exclude each other', async () => {
    const name = uniqueName('multi');
    const processes = [nodes.clients(), nodes.clients(), nodes.clients()];
    let inside = 0;
    let most = 0;
    const work = async (): Promise<void> => {
      most = Math.max(most, ++inside);
      await sleep(5);
      inside--;
    };
    const flows = processes.flatMap((clients) => {
      const shared = (clients[0] as Redisson).getMultiLock(...nodes.locks(clients, name));
      return [0, 1, 2].map(() => shared.withLock(work));
    });
    await within(Promise.all(flows), 60_000, 'nine flows');
    expect(most).toBe(1);
    await expectHeld(name, [null, null, null]);
  });

  it("with the watchdog, a hold's signal aborts with LockLostError once a member is found gone", async () => {
    const name = uniqueName('multi');
    const clients = nodes.clients({ lockWatchdogTimeout: 300 });
    const multi = (clients[0] as Redisson).getMultiLock(...nodes.locks(clients, name));
    const hold = await multi.acquire();
    await nodes.raws[2]?.del(name);
    const reason = await lostReason(hold.signal);
    expect(reason).toBeInstanceOf(LockLostError);
    expect((reason as LockLostError).message).toContain(`MultiLock(${name}, ${name}, ${name})`);
    await expect(hold.release()).rejects.toBeInstanceOf(IllegalMonitorStateError);
    await expectHeld(name, [null, null, null]);
  });
});

describe('RedLock holds', () => {
  it('a leased hold is valid for the lease minus the acquisition and drift; its signal aborts when that ends', async () => {
    const name = uniqueName('red');
    const clients = nodes.clients({ shortLeaseWarning: false });
    const red = (clients[0] as Redisson).getRedLock(nodes.locks(clients, name));
    const hold = await red.acquire({ leaseTime: 300 });
    const validity = hold.remainValidity();
    expect(validity).toBeGreaterThan(0);
    expect(validity).toBeLessThanOrEqual(300 - 5);
    for (const raw of nodes.raws) expect(await raw.pttl(name)).toBeLessThanOrEqual(300);
    const reason = await lostReason(hold.signal);
    expect(reason).toBeInstanceOf(LockLostError);
    expect((reason as LockLostError).message).toContain(`RedLock(${name}, ${name}, ${name})`);
    expect(hold.remainValidity()).toBe(0);
    await hold.release(); // a RedLock ignores its members' errors
    await expectHeld(name, [null, null, null]);
  });

  it("another owner's release through the object leaves the last acquisition's validity", async () => {
    const name = uniqueName('red');
    const clients = nodes.clients({ shortLeaseWarning: false });
    const red = (clients[0] as Redisson).getRedLock(nodes.locks(clients, name));
    const hold = await red.acquire({ leaseTime: 30_000 });
    await red.unlock({ threadId: hold.threadId + 1_000 }); // holds nothing; a RedLock ignores its members' errors
    expect(red.remainValidity()).toBeGreaterThan(0);
    await expectHeld(name, clients.map((c) => field(c, hold.threadId)));
    await hold.release();
    expect(red.remainValidity()).toBe(0);
  });

  it("a released leased hold's validity timer is stopped: the signal stays quiet past the lease", async () => {
    const name = uniqueName('red');
    const clients = nodes.clients({ shortLeaseWarning: false });
    const red = (clients[0] as Redisson).getRedLock(nodes.locks(clients, name));
    const hold = await red.acquire({ leaseTime: 200 });
    await hold.release();
    await sleep(400); // past the validity: a timer still armed would have aborted the signal
    expect(hold.signal.aborted).toBe(false);
    await expectHeld(name, [null, null, null]);
  });

  it('with the watchdog, the signal stays quiet while a majority is held, and aborts below it', async () => {
    const name = uniqueName('red');
    const clients = nodes.clients({ lockWatchdogTimeout: 300 });
    // The default per-node timeout is a tenth of the lease (30 ms here): on a loaded machine a member could miss
    // it and the hold start with two members. This test needs all three, so no member may time out.
    const red = (clients[0] as Redisson).getRedLock(nodes.locks(clients, name), { nodeTimeout: 5_000 });
    const hold = await red.acquire();
    await expectHeld(name, clients.map((c) => field(c, hold.threadId)));
    const firstLoss = once(clients[0] as Redisson, 'lockLost');
    await nodes.raws[0]?.del(name);
    await within(firstLoss, 10_000, "node A's watchdog to find the member gone");
    expect(hold.signal.aborted).toBe(false);
    await nodes.raws[1]?.del(name);
    expect(await lostReason(hold.signal)).toBeInstanceOf(LockLostError);
    await hold.release();
    await expectHeld(name, [null, null, null]);
  });

  it('tryAcquire with a wait takes the majority once the holder releases; options are checked before anything is sent', async () => {
    const name = uniqueName('red');
    const clients = nodes.clients();
    const red = (clients[0] as Redisson).getRedLock(nodes.locks(clients, name));
    const first = await red.acquire({ leaseTime: 60_000 });
    const second = red.tryAcquire({ waitTime: 30_000, leaseTime: 60_000 });
    await eventually(async () => (await nodes.subscribers(name)).some((n) => n > 0), 10_000, 'the waiter to listen');
    await first.release();
    const hold = await within(second, 30_000, 'the waiting tryAcquire');
    expect(hold).not.toBeNull();
    // A majority: the round that the first release message starts may find a member not yet released (the
    // releases go out in parallel), and two of three is a RedLock. Nobody else holds any member.
    const mine = clients.map((c) => field(c, hold?.threadId ?? -1));
    const seen = await Promise.all(nodes.raws.map((raw) => raw.hgetall(name)));
    expect(seen.filter((h, i) => Object.keys(h).length === 1 && h[mine[i] as string] === '1').length).toBeGreaterThanOrEqual(2);
    expect(seen.every((h, i) => Object.keys(h).every((f) => f === mine[i]))).toBe(true);
    await hold?.release();
    await expect(red.acquire({ waitTime: 1 } as never)).rejects.toThrow(/`waitTime` is an option of tryAcquire/);
    await expect(red.tryAcquire({ leaseTim: 1 } as never)).rejects.toThrow(/did you mean `leaseTime`/);
    await expectHeld(name, [null, null, null]);
  });
});
