/**
 * RedissonRedLock on five independent redis-servers (nodes A–E), each member from a client of its own:
 * the majority rule with nodes killed, a lost reply, a slow node, the validity, and RedLock's known weak
 * spot — a node that restarts without the lock's key — shown with and without the mitigations.
 * Assertions are on each node's lock hash and on the order of events; time limits are hang guards, and
 * sleeps only let a lease run out.
 */
import type { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { QuorumError, type Redisson, type RedissonRedLock, type RLock } from '../../src/index.js';
import { RedisProxy } from '../support/proxy.js';
import { eventually, sleep, startRedis, uniqueName } from '../support/redis.js';
import { field, useNodes, within } from './multiNode.js';

const nodes = useNodes(5);
const LEASE = 10_000;

const redLock = (clients: readonly Redisson[], name: string, nodeTimeout = 2_000): RedissonRedLock =>
  (clients[0] as Redisson).getRedLock([...nodes.locks(clients, name)], { nodeTimeout });

const raw = (i: number): Redis => nodes.raws[i] as Redis;

/** Resolves once every client's command connection is up again (after a node restarted). */
const connected = (clients: readonly Redisson[]): Promise<void> =>
  eventually(() => clients.every((c) => c.redis.status === 'ready'), 10_000, 'the clients to reconnect');

describe('RedLock: the majority', () => {
  it('testConnectionFailed: with 2 of 5 nodes killed it still acquires (3 votes) and releases', async () => {
    const name = uniqueName('red');
    const clients = nodes.clients();
    await nodes.server(1).kill();
    await nodes.server(3).kill();
    const red = redLock(clients, name);
    expect(await within(red.tryLock(-1, LEASE), 10_000, 'tryLock with 2 nodes down')).toBe(true);
    const live = [0, 2, 4];
    for (const i of live) expect(await raw(i).hgetall(name)).toEqual({ [field(clients[i] as Redisson, red.threadId)]: '1' });
    await within(red.unlock(), 10_000, 'unlock with 2 nodes down');
    for (const i of live) expect(await raw(i).exists(name)).toBe(0);
    // lock() too, as Redisson's testConnectionFailed.
    await within(red.lock(), 20_000, 'lock with 2 nodes down');
    for (const i of live) expect(await raw(i).exists(name)).toBe(1);
    await red.unlock();
  });

  it('with 3 of 5 nodes down it fails fast, says why, and leaves nothing on the 2 live nodes', async () => {
    const name = uniqueName('red');
    const clients = nodes.clients();
    for (const i of [0, 2, 4]) await nodes.server(i).kill();
    const red = redLock(clients, name);
    expect(await within(red.tryLock(), 10_000, 'tryLock with 3 nodes down')).toBe(false);
    const error = await within(red.lock(LEASE).catch((e: unknown) => e), 10_000, 'lock with 3 nodes down');
    expect(error).toBeInstanceOf(QuorumError);
    const { required, votes } = error as QuorumError;
    expect(required).toBe(3);
    // B and D said yes and were sent their release when C's failure made a majority impossible.
    expect(votes.map((v) => v.vote)).toEqual(['failed', 'granted', 'failed', 'granted', 'failed']);
    expect(await raw(1).exists(name)).toBe(0);
    expect(await raw(3).exists(name)).toBe(0);
  });

  it('testLockSuccess2 / testLockFailed: 2 members held elsewhere still leave a majority; 3 do not', async () => {
    const name = uniqueName('red');
    const clients = nodes.clients();
    const others = nodes.clients();
    const blockers = [others[0], others[1]].map((c) => (c as Redisson).getLock(name));
    for (const b of blockers) await b.lock();
    const red = redLock(clients, name);
    expect(await red.tryLock(500, 5_000)).toBe(true);
    for (const i of [2, 3, 4]) expect(await raw(i).hexists(name, field(clients[i] as Redisson, red.threadId))).toBe(1);
    await red.unlock();
    const third = (others[2] as Redisson).getLock(name);
    await third.lock();
    expect(await red.tryLock(500, 5_000)).toBe(false);
    expect(await raw(3).exists(name)).toBe(0);
    expect(await raw(4).exists(name)).toBe(0);
    expect(await nodes.subscribers(name)).toEqual([0, 0, 0, 0, 0]);
    for (const b of [...blockers, third]) await b.unlock();
  });

  it('testLockLeasetime: owners taking turns with lock(lease) never overlap', async () => {
    const name = uniqueName('red');
    const clients = nodes.clients();
    let inside = 0;
    let counter = 0;
    const owners = Array.from({ length: 3 }, () => redLock(clients, name));
    await within(
      Promise.all(
        owners.map(async (red) => {
          for (let k = 0; k < 5; k++) {
            await red.lock(LEASE);
            inside++;
            expect(inside).toBe(1);
            await sleep(1);
            counter++;
            inside--;
            await red.unlock();
          }
        }),
      ),
      30_000,
      'the owners taking turns',
    );
    expect(counter).toBe(15);
  });
});

describe('RedLock: a waiter is served by the release', () => {
  it('granted a majority by a release, it takes one attempt at each member left instead of waiting out its slice', async () => {
    const name = uniqueName('red');
    // X holds D and E and never releases them; H holds A, B and C, a majority.
    const others = nodes.clients();
    const [d, e] = [3, 4].map((i) => (others[i] as Redisson).getLock(name)) as [RLock, RLock];
    await d.lock();
    await e.lock();
    const holder = redLock(nodes.clients(), name);
    expect(await holder.tryLock(-1, 60_000)).toBe(true);
    // W's wait is 150 s, so each member's slice is 30 s: only the release can serve W within the guard below.
    const clients = nodes.clients();
    const waiter = redLock(clients, name);
    const waiting = waiter.tryLock(150_000, 60_000);
    await eventually(async () => (await nodes.subscribers(name))[0] === 1, 10_000, 'W waiting on A');
    await holder.unlock();
    // Woken on A, W takes A, B and C: a majority, with D and E still X's. It asks D once and is done;
    // before, it waited out D's 30 s slice first.
    expect(await within(waiting, 10_000, 'the waiter after the release')).toBe(true);
    const mine = (i: number): Record<string, string> => ({ [field(clients[i] as Redisson, waiter.threadId)]: '1' });
    const xs = (i: number, lock: RLock): Record<string, string> => ({ [field(others[i] as Redisson, lock.threadId)]: '1' });
    expect(await nodes.hashes(name)).toEqual([mine(0), mine(1), mine(2), xs(3, d), xs(4, e)]);
    await waiter.unlock();
    await d.unlock();
    await e.unlock();
    for (let i = 0; i < 5; i++) expect(await raw(i).exists(name)).toBe(0);
  });
});

describe('RedLock: faults', () => {
  it('lost reply: a node whose acquire ran but whose reply was dropped is still released', async () => {
    const name = uniqueName('red');
    const clients = nodes.clients();
    const proxy = await RedisProxy.start(nodes.servers[2]?.port ?? 0);
    try {
      const viaProxy = nodes.client(proxy.port);
      const members: RLock[] = nodes.locks(clients, name);
      members[2] = viaProxy.getLock(name);
      // Warm up the connection (handshake, script cache) before replies are held back.
      expect(await viaProxy.getLock(name).tryLock({ threadId: 1 })).toBe(true);
      await viaProxy.getLock(name).unlock({ threadId: 1 });
      const red = (clients[0] as Redisson).getRedLock(members, { nodeTimeout: 30_000 });
      // And the RedLock's first acquisition, which asks each member's server who it is (duplicate check).
      expect(await red.tryLock(-1, LEASE)).toBe(true);
      await red.unlock();
      proxy.replyDelayMs = 60_000;
      const attempt = red.tryLock(-1, LEASE);
      // C ran the script (its hash has our field) but the reply is held back: drop the socket now.
      await eventually(async () => (await raw(2).hexists(name, field(viaProxy, red.threadId))) === 1, 10_000, 'the acquire on C');
      proxy.replyDelayMs = 0;
      proxy.dropAll();
      expect(await within(attempt, 10_000, 'tryLock with a lost reply')).toBe(true);
      for (const i of [0, 1, 3, 4]) expect(await raw(i).exists(name)).toBe(1);
      await within(red.unlock(), 10_000, 'unlock');
      for (let i = 0; i < 5; i++) expect(await raw(i).exists(name)).toBe(0);
    } finally {
      await proxy.stop();
    }
  });

  it('slow node: one paused beyond the per-node timeout is skipped, and its late acquire is undone', async () => {
    const name = uniqueName('red');
    const clients = nodes.clients();
    const red = redLock(clients, name, 200);
    await raw(2).call('CLIENT', 'PAUSE', '30000', 'WRITE');
    expect(await within(red.tryLock(-1, LEASE), 10_000, 'tryLock with C paused')).toBe(true);
    // Acquired while C was still paused: its script has not even run.
    expect(await raw(2).exists(name)).toBe(0);
    for (const i of [0, 1, 3, 4]) expect(await raw(i).exists(name)).toBe(1);
    await raw(2).call('CLIENT', 'UNPAUSE');
    // The release is queued behind the late acquire on C's connection.
    await within(red.unlock(), 10_000, 'unlock');
    for (let i = 0; i < 5; i++) expect(await raw(i).exists(name)).toBe(0);
  });

  it('validity: the lease minus the time spent; past the lease the acquisition fails and releases all', async () => {
    const name = uniqueName('red');
    const clients = nodes.clients();
    const red = redLock(clients, name, 5_000);
    expect(await red.tryLock(-1, LEASE)).toBe(true);
    // Counted from the moment every member's lease was re-set (Redisson's expireAsync after acquiring):
    // never more than the lease minus the drift allowance (1% + 2 ms), and every member's key outlives it.
    const validity = red.remainValidity();
    expect(validity).toBeGreaterThan(0);
    expect(validity).toBeLessThanOrEqual(LEASE - (LEASE / 100 + 2));
    for (let i = 0; i < 5; i++) expect(await raw(i).pttl(name)).toBeGreaterThanOrEqual(validity);
    await red.unlock();
    expect(red.remainValidity()).toBe(0);

    // D answers only after a 300 ms lease has run out: A, B and C, granted before it, have expired by then,
    // so re-setting their leases finds no key; D and E alone are no majority, and everything is released.
    await raw(3).call('CLIENT', 'PAUSE', '30000', 'WRITE');
    const late = red.tryLock(-1, 300);
    await eventually(async () => (await raw(2).exists(name)) === 1, 5_000, 'C granted before D');
    await sleep(400);
    expect(await raw(0).exists(name)).toBe(0);
    await raw(3).call('CLIENT', 'UNPAUSE');
    expect(await within(late, 10_000, 'tryLock past its lease')).toBe(false);
    for (let i = 0; i < 5; i++) expect(await raw(i).exists(name)).toBe(0);
  });
});

describe('RedLock: a node restarting without the lock (the known weak spot)', () => {
  const L = 2_000;

  /** Owner 1 takes A, B, C while D and E are down; then D and E come back, empty. */
  async function ownerOneHoldsABC(name: string): Promise<{ red1: RedissonRedLock; red2: RedissonRedLock; clients1: Redisson[]; clients2: Redisson[] }> {
    const clients1 = nodes.clients();
    const clients2 = nodes.clients();
    await nodes.server(3).kill();
    await nodes.server(4).kill();
    const red1 = redLock(clients1, name);
    expect(await red1.tryLock(-1, L)).toBe(true);
    for (let i = 0; i < 3; i++) expect(await raw(i).hgetall(name)).toEqual({ [field(clients1[i] as Redisson, red1.threadId)]: '1' });
    await nodes.server(3).restart();
    await nodes.server(4).restart();
    return { red1, red2: redLock(clients2, name), clients1, clients2 };
  }

  it('C restarts at once without persistence: owner 2 locks C, D, E while owner 1 still holds A, B — a double grant', async () => {
    const name = uniqueName('red');
    const { red1, red2, clients1, clients2 } = await ownerOneHoldsABC(name);
    await nodes.server(2).restart(); // SIGKILL and start again: the lock's key is gone
    await connected(clients2);
    expect(await red2.tryLock(-1, L)).toBe(true);
    // Both owners believe they hold "the" lock, each with a majority of its own.
    expect(red1.remainValidity()).toBeGreaterThan(0);
    expect(red2.remainValidity()).toBeGreaterThan(0);
    const owner1 = (i: number): Record<string, string> => ({ [field(clients1[i] as Redisson, red1.threadId)]: '1' });
    const owner2 = (i: number): Record<string, string> => ({ [field(clients2[i] as Redisson, red2.threadId)]: '1' });
    expect(await nodes.hashes(name)).toEqual([owner1(0), owner1(1), owner2(2), owner2(3), owner2(4)]);
  });

  it('C kept down longer than the lease: owner 2 gets no majority while owner 1 is valid, and only after', async () => {
    const name = uniqueName('red');
    const { red1, red2, clients2 } = await ownerOneHoldsABC(name);
    await nodes.server(2).kill();
    const killedAt = performance.now();
    expect(await red2.tryLock()).toBe(false); // A, B refused; C down; D, E are two of five
    expect(await Promise.all([0, 1, 3, 4].map((i) => raw(i).exists(name)))).toEqual([1, 1, 0, 0]);
    // The mitigation: C rejoins only once a lease has passed since it went down.
    await sleep(Math.max(0, killedAt + L - performance.now()));
    await nodes.server(2).restart();
    await connected(clients2);
    expect(red1.remainValidity()).toBe(0);
    expect(await red2.tryLock(-1, L)).toBe(true);
    await red2.unlock();
  });

  it('C runs with appendfsync always: its restart keeps the key, and owner 2 gets no majority', async () => {
    const name = uniqueName('red');
    const aof = await startRedis({ own: true, args: ['--appendonly', 'yes', '--appendfsync', 'always'] });
    try {
      const clients1 = nodes.clients();
      const clients2 = nodes.clients();
      clients1[2] = nodes.client(aof.port);
      clients2[2] = nodes.client(aof.port);
      await nodes.server(3).kill();
      await nodes.server(4).kill();
      const red1 = redLock(clients1, name);
      expect(await red1.tryLock(-1, L)).toBe(true);
      await nodes.server(3).restart();
      await nodes.server(4).restart();
      await aof.server?.restart(); // SIGKILL: the AOF written before the reply brings the key back
      await connected(clients2);
      // The restarted node still holds owner 1's field.
      expect(await clients1[2].getLock(name).isHeldByThread(red1.threadId)).toBe(true);
      const red2 = redLock(clients2, name);
      expect(await red2.tryLock()).toBe(false);
      expect(red1.remainValidity()).toBeGreaterThan(0);
    } finally {
      await aof.stop();
    }
  });
});
