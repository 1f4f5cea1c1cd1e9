/**
 * RedissonMultiLock over three independent redis-servers, each member lock from a client of its own
 * (PROTOCOL.md §11, Redisson's RedissonMultiLockTest as the checklist). Assertions are on each node's
 * lock hash, TTL and channel subscribers, and on the order of events; time limits are hang guards only.
 */
import type { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import {
  IllegalMonitorStateError,
  QuorumError,
  Redisson,
  RedissonShutdownError,
  TimeUnit,
  type MultiLockMember,
  type OwnerOptions,
  type RLock,
  type WaitOptions,
} from '../../src/index.js';
import { eventually, sleep, uniqueName } from '../support/redis.js';
import { field, useNodes, within } from './multiNode.js';
import { openMonitor } from '../support/monitor.js';

const nodes = useNodes(3);

const activeTimers = (): number => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;

/** The hashes of `name` hold exactly `fields[i]` (count 1) on node i; `null`: nothing there. */
async function expectHeld(name: string, fields: readonly (string | null)[], count = '1'): Promise<void> {
  const hashes = await nodes.hashes(name);
  expect(hashes).toEqual(fields.map((f) => (f === null ? {} : { [f]: count })));
}

describe('MultiLock: acquire and release all members', () => {
  it('testLockUnlock: lock(lease) holds every member for one owner, unlock releases them all', async () => {
    const name = uniqueName('multi');
    const clients = nodes.clients();
    const [host] = clients as [Redisson];
    const multi = host.getMultiLock(...nodes.locks(clients, name));
    await multi.lock(10, TimeUnit.SECONDS);
    await expectHeld(name, clients.map((c) => field(c, multi.threadId)));
    for (const raw of nodes.raws) {
      const ttl = await raw.pttl(name);
      expect(ttl).toBeGreaterThan(0);
      expect(ttl).toBeLessThanOrEqual(10_000);
    }
    expect(await multi.isHeldByCurrentThread()).toBe(true);
    expect(await multi.isHeldByThread(multi.threadId)).toBe(true);
    expect(await multi.isHeldByThread(multi.threadId + 1)).toBe(false);
    await multi.unlock();
    await expectHeld(name, [null, null, null]);
    expect(await multi.isHeldByCurrentThread()).toBe(false);
  });

  it('without a lease each member is kept alive by its own client watchdog', async () => {
    const name = uniqueName('multi');
    const clients = nodes.clients({ lockWatchdogTimeout: 500 });
    const multi = (clients[0] as Redisson).getMultiLock(...nodes.locks(clients, name));
    await multi.lock();
    expect(multi.remainValidity()).toBe(-1);
    // Well past the 500 ms lease: only renewal keeps the members.
    await sleep(900);
    await expectHeld(name, clients.map((c) => field(c, multi.threadId)));
    await multi.unlock();
    await expectHeld(name, [null, null, null]);
  });

  it('re-enters: the same owner twice counts 2 on every member', async () => {
    const name = uniqueName('multi');
    const clients = nodes.clients();
    const multi = (clients[0] as Redisson).getMultiLock(...nodes.locks(clients, name));
    expect(await multi.tryLock()).toBe(true);
    expect(await multi.tryLock()).toBe(true);
    await expectHeld(name, clients.map((c) => field(c, multi.threadId)), '2');
    await multi.unlock();
    await expectHeld(name, clients.map((c) => field(c, multi.threadId)), '1');
    await multi.unlock();
    await expectHeld(name, [null, null, null]);
  });

  it('testWaitAndLeaseTimeouts: of 10 concurrent tryLock(-1, 10 s), exactly one wins and the others leave nothing', async () => {
    const name = uniqueName('multi');
    const clients = nodes.clients();
    const multis = Array.from({ length: 10 }, () => (clients[0] as Redisson).getMultiLock(...nodes.locks(clients, name)));
    const results = await Promise.all(multis.map((m) => m.tryLock(-1, 10_000)));
    expect(results.filter(Boolean)).toHaveLength(1);
    const winner = multis[results.indexOf(true)];
    await expectHeld(name, clients.map((c) => field(c, winner?.threadId ?? -1)));
  });

  it('test: while one owner holds it, another owner\'s tryLock() fails twice and releases what it took', async () => {
    const name = uniqueName('multi');
    const clients = nodes.clients();
    const holder = (clients[0] as Redisson).getMultiLock(...nodes.locks(clients, name));
    await holder.lock();
    const other = (clients[0] as Redisson).getMultiLock(...nodes.locks(clients, name));
    expect(await other.tryLock()).toBe(false);
    expect(await other.tryLock()).toBe(false);
    await expectHeld(name, clients.map((c) => field(c, holder.threadId)));
    await holder.unlock();
  });

  it('a member held by someone else: tryLock() is false and the members acquired before it are released', async () => {
    const name = uniqueName('multi');
    const clients = nodes.clients();
    const others = nodes.clients();
    const blocker = (others[2] as Redisson).getLock(name);
    await blocker.lock();
    const multi = (clients[0] as Redisson).getMultiLock(...nodes.locks(clients, name));
    expect(await multi.tryLock()).toBe(false);
    // A and B were taken, then given back when C refused.
    await expectHeld(name, [null, null, field(others[2] as Redisson, blocker.threadId)]);
    expect(await multi.tryLock(300, 5_000)).toBe(false);
    await expectHeld(name, [null, null, field(others[2] as Redisson, blocker.threadId)]);
    expect(await nodes.subscribers(name)).toEqual([0, 0, 0]);
  });

  it('testMultiThreads: a second owner\'s lock() waits for the holder, then takes every member', async () => {
    const name = uniqueName('multi');
    const clients = nodes.clients();
    const holder = (clients[0] as Redisson).getMultiLock(...nodes.locks(clients, name));
    await holder.lock(30_000);
    const events: string[] = [];
    const waiter = (clients[0] as Redisson).getMultiLock(...nodes.locks(clients, name));
    const waiting = waiter.lock(30_000).then(() => events.push('acquired'));
    // Parked on the first member's channel: only the holder's release can let it in.
    await eventually(async () => (await nodes.subscribers(name))[0] === 1, 10_000, 'the waiter to subscribe');
    events.push('released');
    await holder.unlock();
    await within(waiting, 10_000, 'the waiting lock()');
    expect(events).toEqual(['released', 'acquired']);
    await expectHeld(name, clients.map((c) => field(c, waiter.threadId)));
    await waiter.unlock();
  });
});

describe('MultiLock: members of the lock family', () => {
  it('read halves are shared by two multilock owners; a multilock of the write halves waits for both', async () => {
    const name = uniqueName('multi-rw');
    const clients = nodes.clients();
    const host = clients[0] as Redisson;
    const reads = (): ReturnType<Redisson['getMultiLock']> => host.getMultiLock(...clients.map((c) => c.getReadWriteLock(name).readLock()));
    const [r1, r2] = [reads(), reads()];
    expect(await r1.tryLock()).toBe(true);
    expect(await r2.tryLock()).toBe(true);
    const writes = host.getMultiLock(...clients.map((c) => c.getReadWriteLock(name).writeLock()));
    expect(await writes.tryLock()).toBe(false);
    for (const h of await nodes.hashes(name)) expect(h['mode']).toBe('read');
    await r1.unlock();
    await r2.unlock();
    expect(await writes.tryLock()).toBe(true);
    for (const h of await nodes.hashes(name)) expect(h['mode']).toBe('write');
    await writes.unlock();
    expect(await nodes.hashes(name)).toEqual([{}, {}, {}]);
  });
});

describe('MultiLock: lease, owner, errors', () => {
  it('with a wait and a lease, RLock members are acquired for twice the wait, then PEXPIREd to the lease (expireAsync)', async () => {
    const name = uniqueName('multi');
    const clients = nodes.clients();
    const multi = (clients[0] as Redisson).getMultiLock(...nodes.locks(clients, name));
    // What node 0 executes, in order: the acquire script's lease argument, then the re-expire's.
    const monitor = await openMonitor(nodes.raws[0] as Redis);
    const seen: string[][] = [];
    monitor.on('monitor', (_time: string, args: string[]) => {
      if (/^eval(sha)?$/i.test(args[0] ?? '') && args.includes(name)) seen.push(args);
    });
    try {
      expect(await multi.tryLock(5_000, 2_000)).toBe(true);
      for (const raw of nodes.raws) expect(await raw.pttl(name)).toBeLessThanOrEqual(2_000);
      for (const raw of nodes.raws) expect(await raw.pttl(name)).toBeGreaterThan(0);
      // Not `seen.length >= 2`: the acquire alone may show twice (EVALSHA, NOSCRIPT, EVAL, see below).
      await eventually(() => seen.at(-1)?.at(-1) === '2000', 5_000, 'the re-expire seen by MONITOR');
    } finally {
      monitor.disconnect();
    }
    // (A script's first run on a connection may show twice: EVALSHA answered NOSCRIPT, then EVAL.)
    const owner = field(clients[0] as Redisson, multi.threadId);
    const acquire = seen.find((args) => args.at(-1) === owner);
    const reExpire = seen.at(-1);
    // Twice the wait left after the duplicate-member check (INFO run_id of each node, a few ms on a busy host).
    const memberLease = Number(acquire?.at(-2));
    expect(memberLease % 2).toBe(0);
    expect(memberLease).toBeGreaterThan(2 * 4_000);
    expect(memberLease).toBeLessThanOrEqual(10_000);
    expect(reExpire?.slice(-3)).toEqual(['1', name, '2000']);
    expect(multi.remainValidity()).toBeGreaterThan(0);
    expect(multi.remainValidity()).toBeLessThanOrEqual(2_000 - 22);
    await multi.unlock();
    expect(multi.remainValidity()).toBe(0);
  });

  it('expire() re-sets the time to live of every key of the lock object, as Redisson\'s expireAsync overrides', async () => {
    const name = uniqueName('expire');
    const client = nodes.clients()[0] as Redisson;
    const raw = nodes.raws[0] as Redis;
    expect(await client.getLock(name).expire(5, TimeUnit.SECONDS)).toBe(false);
    const lock = client.getLock(name);
    await lock.lock(60_000);
    expect(await lock.expire(3, TimeUnit.SECONDS)).toBe(true);
    expect(await raw.pttl(name)).toBeLessThanOrEqual(3_000);
    await lock.unlock();
    // FencedLock: the hash and the token counter.
    const fenced = client.getFencedLock(name);
    await fenced.lock(60_000);
    expect(await fenced.expire(4_000)).toBe(true);
    for (const key of [name, `redisson_lock_token:{${name}}`]) {
      const ttl = await raw.pttl(key);
      expect(ttl).toBeGreaterThan(0);
      expect(ttl).toBeLessThanOrEqual(4_000);
    }
    await fenced.unlock();
    await raw.del(`redisson_lock_token:{${name}}`);
    // FairLock: the hash, the queue and the deadlines (a waiter keeps the last two alive).
    const fair = client.getFairLock(name);
    await fair.lock(60_000, { threadId: 1 });
    const waiter = client.getFairLock(name).tryLock(30_000, 60_000, undefined, { threadId: 2 });
    await eventually(async () => (await raw.exists(`redisson_lock_queue:{${name}}`)) === 1, 5_000, 'waiter queued');
    expect(await fair.expire(20_000)).toBe(true);
    for (const key of [name, `redisson_lock_queue:{${name}}`, `redisson_lock_timeout:{${name}}`]) {
      const ttl = await raw.pttl(key);
      expect(ttl).toBeGreaterThan(0);
      expect(ttl).toBeLessThanOrEqual(20_000);
    }
    await fair.unlock({ threadId: 1 });
    expect(await waiter).toBe(true);
    await client.getFairLock(name).unlock({ threadId: 2 });
    await expect(lock.expire(0)).rejects.toThrow(RangeError);
    await expect(lock.expire(1.5)).rejects.toThrow(RangeError);
    await expect(lock.expire(1, 'WEEKS' as TimeUnit)).rejects.toThrow(TypeError);
  });

  it('members that can PEXPIRE (Redisson\'s expireAsync) are acquired for twice the wait, then re-set to the lease', async () => {
    const name = uniqueName('multi');
    const clients = nodes.clients();
    const members = nodes.locks(clients, name).map((lock, i) => new ExpiringMember(lock, nodes.raws[i] as Redis));
    const multi = (clients[0] as Redisson).getMultiLock(...members);
    expect(await multi.tryLock(5_000, 2_000)).toBe(true);
    expect(members.map((m) => m.leases)).toEqual([[10_000], [10_000], [10_000]]);
    expect(members.map((m) => m.expired)).toEqual([[2_000], [2_000], [2_000]]);
    for (const raw of nodes.raws) expect(await raw.pttl(name)).toBeLessThanOrEqual(2_000);
    await multi.unlock();
    await expectHeld(name, [null, null, null]);
  });

  it('one owner for every member: the runInThread flow, else an explicit threadId, else the object\'s own id', async () => {
    const name = uniqueName('multi');
    const clients = nodes.clients();
    const host = clients[0] as Redisson;
    const multi = host.getMultiLock(...nodes.locks(clients, name));
    await host.runInThread(async () => {
      await multi.lock();
      // A nested multilock over the same names in the same flow re-enters.
      expect(await host.getMultiLock(...nodes.locks(clients, name)).tryLock()).toBe(true);
    }, 42);
    await expectHeld(name, clients.map((c) => field(c, 42)), '2');
    await multi.unlock({ threadId: 42 });
    await multi.unlock({ threadId: 42 });
    expect(await multi.tryLock({ threadId: 7 })).toBe(true);
    await expectHeld(name, clients.map((c) => field(c, 7)));
    await multi.unlock({ threadId: 7 });
    await multi.lock();
    await expectHeld(name, clients.map((c) => field(c, multi.threadId)));
    await multi.unlock();
  });

  it('unlock() by a non-holder of one member throws IllegalMonitorStateError after releasing the others', async () => {
    const name = uniqueName('multi');
    const clients = nodes.clients();
    const multi = (clients[0] as Redisson).getMultiLock(...nodes.locks(clients, name));
    await multi.lock();
    await (clients[1] as Redisson).getLock(name).forceUnlock();
    await expect(multi.unlock()).rejects.toBeInstanceOf(IllegalMonitorStateError);
    await expectHeld(name, [null, null, null]);
  });

  it('a member whose node is down: lock() throws QuorumError with each vote and leaves nothing on the live nodes', async () => {
    const name = uniqueName('multi');
    const clients = nodes.clients();
    const multi = (clients[0] as Redisson).getMultiLock([...nodes.locks(clients, name)], { nodeTimeout: 2_000 });
    await nodes.server(1).kill();
    const error = await within(multi.lock(10_000).catch((e: unknown) => e), 20_000, 'lock() with a node down');
    expect(error).toBeInstanceOf(QuorumError);
    const quorum = error as QuorumError;
    expect(quorum.required).toBe(3);
    expect(quorum.votes.map((v) => v.vote)).toEqual(['granted', 'failed', 'not asked']);
    expect(quorum.votes.map((v) => v.lock)).toEqual([name, name, name]);
    expect(await (nodes.raws[0] as Redis).exists(name)).toBe(0);
    expect(await (nodes.raws[2] as Redis).exists(name)).toBe(0);
  });

  it('abort: rejects with the reason, releases the members it took and leaves no subscription', async () => {
    const name = uniqueName('multi');
    const clients = nodes.clients();
    const blocker = (nodes.clients()[2] as Redisson).getLock(name);
    await blocker.lock();
    const multi = (clients[0] as Redisson).getMultiLock(...nodes.locks(clients, name));
    const timersBefore = activeTimers();
    const controller = new AbortController();
    const attempt = multi.tryLock(30_000, { signal: controller.signal });
    await eventually(async () => (await nodes.subscribers(name))[2] === 1, 10_000, 'the wait on the held member');
    const reason = new Error('caller gave up');
    controller.abort(reason);
    await expect(within(attempt, 10_000, 'the aborted tryLock')).rejects.toBe(reason);
    const hashes = await nodes.hashes(name);
    expect(hashes.slice(0, 2)).toEqual([{}, {}]);
    await eventually(async () => (await nodes.subscribers(name)).every((n) => n === 0), 5_000, 'no subscription left');
    // The per-node timers and the wait's timers are gone too.
    await eventually(() => activeTimers() <= timersBefore, 5_000, 'no timer left');
    await blocker.unlock();
  });

  it('shutdown of the client that made it rejects a pending wait with RedissonShutdownError and releases the members', async () => {
    const name = uniqueName('multi');
    const clients = nodes.clients();
    const blocker = (nodes.clients()[2] as Redisson).getLock(name);
    await blocker.lock();
    const host = Redisson.create({ redis: nodes.servers[0]?.url ?? '' });
    const multi = host.getMultiLock(...nodes.locks(clients, name));
    const attempt = multi.lock().then(
      () => 'acquired',
      (error: unknown) => error,
    );
    await eventually(async () => (await nodes.subscribers(name))[2] === 1, 10_000, 'the wait on the held member');
    await host.shutdown();
    expect(await within(attempt, 10_000, 'lock() during shutdown')).toBeInstanceOf(RedissonShutdownError);
    expect((await nodes.hashes(name)).slice(0, 2)).toEqual([{}, {}]);
    await expect(multi.tryLock()).rejects.toBeInstanceOf(RedissonShutdownError);
    await blocker.unlock();
  });

  it('bad input is a TypeError / RangeError before anything is sent', async () => {
    const name = uniqueName('multi');
    const clients = nodes.clients();
    const host = clients[0] as Redisson;
    const locks = nodes.locks(clients, name);
    expect(() => host.getMultiLock()).toThrow(RangeError);
    expect(() => host.getMultiLock([])).toThrow(RangeError);
    expect(() => host.getRedLock('a' as unknown as RLock)).toThrow(TypeError);
    expect(() => host.getMultiLock([...locks], { nodeTimeout: 0 })).toThrow(RangeError);
    expect(() => host.getMultiLock([...locks], { nodeTimeout: 1.5 })).toThrow(RangeError);
    const multi = host.getMultiLock(...locks);
    await expect(multi.tryLock(1.5)).rejects.toBeInstanceOf(RangeError);
    await expect(multi.tryLock(10, 'WEEKS' as TimeUnit)).rejects.toBeInstanceOf(TypeError);
    await expect(multi.lock(-2)).rejects.toBeInstanceOf(RangeError);
    await expect(multi.unlock({ threadId: -1 })).rejects.toBeInstanceOf(RangeError);
    await expectHeld(name, [null, null, null]);
  });
});

/**
 * A member lock with Redisson's `expireAsync` (PEXPIRE on the lock key, here through a raw connection to
 * the same node), recording the leases the multilock asked for.
 */
class ExpiringMember implements MultiLockMember {
  readonly leases: number[] = [];
  readonly expired: number[] = [];
  constructor(
    private readonly lock: RLock,
    private readonly raw: Redis,
  ) {}
  getName(): string {
    return this.lock.getName();
  }
  tryLock(waitTime: number, leaseTime: number, unit?: TimeUnit, options?: WaitOptions): Promise<boolean> {
    this.leases.push(leaseTime);
    return this.lock.tryLock(waitTime, leaseTime, unit, options);
  }
  unlock(options?: OwnerOptions): Promise<void> {
    return this.lock.unlock(options);
  }
  isHeldByThread(threadId: number): Promise<boolean> {
    return this.lock.isHeldByThread(threadId);
  }
  async expire(timeToLive: number): Promise<boolean> {
    this.expired.push(timeToLive);
    return (await this.raw.pexpire(this.lock.getName(), timeToLive)) === 1;
  }
}
