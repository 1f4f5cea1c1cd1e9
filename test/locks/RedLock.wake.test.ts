/**
 * Issue 24, defect 7: a RedLock / MultiLock waiter is woken by a release of any member that refused it,
 * wherever in the member order that member is. Three independent redis-servers; the members are held by
 * other clients with a long lease, the waiter waits far longer. "In time" is judged on Redis data, not on a
 * clock: the waiter must be served while the member nobody released is still held under its 60 s lease —
 * before the old loop (which sits out the first member's wait slice, 40 s here) could have tried again.
 * Every test ends with no subscription left on any server (PUBSUB NUMSUB).
 */
import { describe, expect, it } from 'vitest';
import type { Redisson, RLock } from '../../src/index.js';
import { eventually } from '../support/redis.js';
import { field, useNodes, within } from './multiNode.js';
import { uniqueName } from '../support/redis.js';

const nodes = useNodes(3);
/** The holders' lease: far longer than any test runs. */
const HOLD_LEASE = 60_000;
/** The waiter's wait: each member's slice in the old loop would be 40 s. */
const LONG_WAIT = 120_000;

/** Waiter clients: no lingering subscriptions, so NUMSUB shows what the waiter left behind. */
const waiterClients = (): Redisson[] => nodes.clients({ subscriptionLinger: 0 });

/** Every member held by another client (one per node) under a 60 s lease. */
async function holdAll(name: string): Promise<{ holders: RLock[]; clients: Redisson[] }> {
  const clients = nodes.clients();
  const holders = nodes.locks(clients, name);
  for (const h of holders) expect(await h.tryLock(0, HOLD_LEASE)).toBe(true);
  return { holders, clients };
}

/** Resolves once the waiter listens on the release channel of node `i`. */
const listening = (name: string, i: number): Promise<void> =>
  eventually(async () => ((await nodes.subscribers(name))[i] ?? 0) > 0, 10_000, `the waiter to subscribe on node ${i}`);

describe('RedLock: a release of the members wakes the waiter', () => {
  it('a majority released behind a first member that stays held: served while that member is still held', async () => {
    const name = uniqueName('redwake');
    const { holders, clients: holderClients } = await holdAll(name);
    const clients = waiterClients();
    const red = (clients[0] as Redisson).getRedLock(nodes.locks(clients, name));
    const waiting = red.tryLock(LONG_WAIT, 10_000);
    await listening(name, 0);
    // Node A's member stays held; B and C are released: a majority is free.
    await holders[1]?.unlock();
    await holders[2]?.unlock();
    expect(await within(waiting, 10_000, 'the RedLock waiter after B and C were released')).toBe(true);
    // Served before A's lease could have run out: A is still held by its holder, and the waiter holds B and C.
    expect(await nodes.raws[0]?.hexists(name, field(holderClients[0] as Redisson, holders[0]?.threadId ?? 0))).toBe(1);
    expect(await nodes.raws[0]?.pttl(name)).toBeGreaterThan(HOLD_LEASE - 15_000);
    for (const i of [1, 2]) expect(await nodes.raws[i]?.hexists(name, field(clients[i] as Redisson, red.threadId))).toBe(1);
    expect(await nodes.subscribers(name)).toEqual([0, 0, 0]);
    await red.unlock();
    await holders[0]?.unlock();
  });

  it('lock() without a lease: released members serve the waiter, which then holds a majority under the watchdog', async () => {
    const name = uniqueName('redwake');
    const { holders } = await holdAll(name);
    const clients = waiterClients();
    const red = (clients[0] as Redisson).getRedLock(nodes.locks(clients, name));
    const waiting = red.lock();
    await listening(name, 0);
    // C, then B: a majority is free while A is still held, and a majority is all a RedLock needs. (Releasing A
    // as well before the waiter settles made the outcome depend on which came first: a loaded machine had the
    // waiter served by B and C before A's release, holding a majority but not every member.)
    await holders[2]?.unlock();
    await holders[1]?.unlock();
    await within(waiting, 10_000, 'lock() after B and C were released');
    for (const i of [1, 2]) {
      expect(await nodes.raws[i]?.hexists(name, field(clients[i] as Redisson, red.threadId))).toBe(1);
      // Under the watchdog: the lease is lockWatchdogTimeout's, not a fixed one.
      expect(await nodes.raws[i]?.pttl(name)).toBeGreaterThan(0);
    }
    expect(await nodes.raws[0]?.hexists(name, field(clients[0] as Redisson, red.threadId))).toBe(0);
    expect(await nodes.subscribers(name)).toEqual([0, 0, 0]);
    await holders[0]?.unlock();
    await red.unlock();
    expect((await nodes.hashes(name)).map((h) => Object.keys(h).length)).toEqual([0, 0, 0]);
  });

  it('MultiLock: the last member released wakes the waiter, which holds them all', async () => {
    const name = uniqueName('multiwake');
    const { holders } = await holdAll(name);
    const clients = waiterClients();
    const multi = (clients[0] as Redisson).getMultiLock(...nodes.locks(clients, name));
    const waiting = multi.tryLock(LONG_WAIT, 10_000);
    await listening(name, 0);
    // A first: the waiter then finds B held, and must be woken by B's release, then C's.
    for (const h of holders) await h.unlock();
    expect(await within(waiting, 10_000, 'the MultiLock waiter after every member was released')).toBe(true);
    for (const i of [0, 1, 2]) expect(await nodes.raws[i]?.hexists(name, field(clients[i] as Redisson, multi.threadId))).toBe(1);
    expect(await nodes.subscribers(name)).toEqual([0, 0, 0]);
    await multi.unlock();
  });

  it('a FairLock member (no channel a multilock can hear): the TTL its refusal returned bounds the wait', async () => {
    const name = uniqueName('fairwake');
    const holder = (nodes.clients()[0] as Redisson).getFairLock(name);
    // A short lease nobody releases: only its TTL can tell the waiter when to retry (its wait is 120 s).
    expect(await holder.tryLock(0, 400)).toBe(true);
    const clients = waiterClients();
    const multi = (clients[0] as Redisson).getMultiLock((clients[0] as Redisson).getFairLock(name), (clients[1] as Redisson).getLock(name));
    expect(await within(multi.tryLock(LONG_WAIT, 10_000), 10_000, 'the MultiLock waiter after the fair lease ran out')).toBe(true);
    expect(await nodes.raws[0]?.hexists(name, field(clients[0] as Redisson, multi.threadId))).toBe(1);
    expect(await nodes.raws[0]?.pubsub('CHANNELS', '*')).toEqual([]);
    await multi.unlock();
  });

  it('a wait that runs out, and an abort, leave no subscription, nothing held and no timer', async () => {
    const name = uniqueName('redwake');
    const { holders } = await holdAll(name);
    const clients = waiterClients();
    const red = (clients[0] as Redisson).getRedLock(nodes.locks(clients, name));
    expect(await within(red.tryLock(300, 10_000), 10_000, 'a 300 ms wait')).toBe(false);
    expect(await nodes.subscribers(name)).toEqual([0, 0, 0]);
    const controller = new AbortController();
    const aborted = red.tryLock(LONG_WAIT, 10_000, { signal: controller.signal }).catch((e: unknown) => e);
    await listening(name, 0);
    const reason = new Error('stop');
    controller.abort(reason);
    expect(await within(aborted, 10_000, 'the aborted waiter')).toBe(reason);
    await eventually(async () => (await nodes.subscribers(name)).every((s) => s === 0), 5_000, 'no subscription left');
    for (const i of [0, 1, 2]) expect(await nodes.raws[i]?.hexists(name, field(clients[i] as Redisson, red.threadId))).toBe(0);
    for (const h of holders) await h.unlock();
  });
});
