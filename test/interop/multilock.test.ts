/**
 * MultiLock / RedLock interop: Java Redisson's `RedissonMultiLock` / `RedissonRedLock` (the peer's
 * "multiLock" / "redLock" primitives, one Java RedissonClient per server) and ours over the same three
 * independent redis-servers exclude each other and wake each other, in Redisson 4.7.0 and 3.52.0.
 * Neither side has keys of its own: what they share is the member RLocks' hashes and channels. No
 * assertion depends on timing: holders take 60 s leases, far beyond the 10 s hang guards, so a waiter
 * that acquires within a guard was woken by the release message.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DuplicateLockMemberError, type Redisson, type RedissonMultiLock } from '../../src/index.js';
import { field, useNodes, within } from '../locks/multiNode.js';
import { eventually, uniqueName } from '../support/redis.js';
import { javaAvailable, JavaPeer } from './JavaPeer.js';
import { javaMissingPlaceholder } from './support/placeholder.js';

const VERSIONS = ['4.7.0', '3.52.0'] as const;
const LONG_LEASE_MS = 60_000;
const HANG_GUARD_MS = 10_000;

const nodes = useNodes(3);
const availability = javaAvailable();

if (!availability.ok) {
  javaMissingPlaceholder('MultiLock/RedLock interop', availability.reason);
}

for (const version of availability.ok ? VERSIONS : []) {
  describe(`Java Redisson ${version} ⇄ redisson-ts: MultiLock and RedLock over 3 redis-servers`, () => {
    let peer: JavaPeer;
    let clients: Redisson[];

    beforeAll(async () => {
      peer = await JavaPeer.start(version, { address: nodes.servers[0]?.url ?? '' });
      expect(peer.redissonVersion).toBe(version);
    });
    afterAll(async () => {
      await peer?.shutdown();
    });

    /** The peer's member spec: `name@url` of every node. */
    const spec = (name: string): string => nodes.servers.map((s) => `${name}@${s.url}`).join(',');
    const java = async (primitive: 'multiLock' | 'redLock', name: string, method: string, args: unknown[], thread: string): Promise<unknown> =>
      (await peer.call(primitive, spec(name), method, args, thread)).result;
    const ours = (kind: 'multi' | 'red', name: string): RedissonMultiLock => {
      clients = nodes.clients();
      const locks = nodes.locks(clients, name);
      return kind === 'multi' ? (clients[0] as Redisson).getMultiLock(...locks) : (clients[0] as Redisson).getRedLock(...locks);
    };
    /** Node i's hash of `name` has exactly one owner, whose field ends with `:<threadId>`. */
    const heldBy = async (name: string, threadId: number): Promise<boolean[]> =>
      (await nodes.hashes(name)).map((h) => Object.keys(h).length === 1 && (Object.keys(h)[0] ?? '').endsWith(`:${threadId}`));
    /** A waiter is parked on the first member's channel (both sides wait there first). */
    const parked = (name: string): Promise<void> =>
      eventually(async () => (await nodes.subscribers(name))[0] === 1, HANG_GUARD_MS, 'the waiter to subscribe to the first member');

    it('MultiLock, Java holds: ours is excluded (tryLock false, nothing left), and its waiter wakes on Java\'s unlock', async () => {
      const name = uniqueName('interop-multi');
      await java('multiLock', name, 'lock', [LONG_LEASE_MS], 'holder');
      const javaThread = await peer.threadId('holder');
      expect(await heldBy(name, javaThread)).toEqual([true, true, true]);
      const multi = ours('multi', name);
      expect(await multi.tryLock()).toBe(false);
      expect(await multi.tryLock(200, 5_000)).toBe(false);
      expect(await heldBy(name, javaThread)).toEqual([true, true, true]);
      const waiter = multi.tryLock(30_000, 5_000);
      await parked(name);
      await java('multiLock', name, 'unlock', [], 'holder');
      expect(await within(waiter, HANG_GUARD_MS, 'our waiter')).toBe(true);
      expect(await nodes.hashes(name)).toEqual(clients.map((c) => ({ [field(c, multi.threadId)]: '1' })));
      await multi.unlock();
    });

    it('MultiLock, ours holds: Java is excluded, and its waiter wakes on our unlock', async () => {
      const name = uniqueName('interop-multi');
      const multi = ours('multi', name);
      await multi.lock(LONG_LEASE_MS);
      expect(await java('multiLock', name, 'tryLock', [], 'other')).toBe(false);
      expect(await java('multiLock', name, 'tryLock', [200, 5_000], 'other')).toBe(false);
      expect(await nodes.hashes(name)).toEqual(clients.map((c) => ({ [field(c, multi.threadId)]: '1' })));
      const waiter = java('multiLock', name, 'tryLock', [30_000, 5_000], 'waiter');
      await parked(name);
      await multi.unlock();
      expect(await within(waiter, HANG_GUARD_MS, 'the Java waiter')).toBe(true);
      expect(await heldBy(name, await peer.threadId('waiter'))).toEqual([true, true, true]);
      await java('multiLock', name, 'unlock', [], 'waiter');
      expect(await nodes.hashes(name)).toEqual([{}, {}, {}]);
    });

    it('RedLock both ways: a majority held by one side excludes the other; a release lets it in', async () => {
      const name = uniqueName('interop-red');
      await java('redLock', name, 'lock', [LONG_LEASE_MS], 'holder');
      const red = ours('red', name);
      expect(await red.tryLock()).toBe(false);
      await java('redLock', name, 'unlock', [], 'holder');
      expect(await red.tryLock(-1, LONG_LEASE_MS)).toBe(true);
      expect(await java('redLock', name, 'tryLock', [], 'other')).toBe(false);
      expect(await java('redLock', name, 'tryLock', [300, 5_000], 'other')).toBe(false);
      await red.unlock();
      expect(await java('redLock', name, 'tryLock', [-1, 5_000], 'other')).toBe(true);
      await java('redLock', name, 'unlock', [], 'other');
      expect(await nodes.hashes(name)).toEqual([{}, {}, {}]);
    });

    it('RedLock majority across runtimes: ours holds one member, Java takes the other two; neither unlock touches the other\'s member', async () => {
      const name = uniqueName('interop-red');
      const mine = nodes.clients()[2] as Redisson;
      const single = mine.getLock(name);
      await single.lock(LONG_LEASE_MS);
      expect(await java('redLock', name, 'tryLock', [-1, LONG_LEASE_MS], 'holder')).toBe(true);
      const javaThread = await peer.threadId('holder');
      expect((await heldBy(name, javaThread)).slice(0, 2)).toEqual([true, true]);
      // A third party gets nothing: A and B are Java's, C is our single lock's.
      expect(await ours('red', name).tryLock()).toBe(false);
      // Java's RedLock unlock goes to all three members; C is not Java's, and stays ours.
      await java('redLock', name, 'unlock', [], 'holder');
      expect(await nodes.hashes(name)).toEqual([{}, {}, { [field(mine, single.threadId)]: '1' }]);
      await single.unlock();
    });

    it('duplicate members: Java counts one client\'s lock twice (a RedLock "majority" of 2 of 3 on one server) and can never take one key through two URLs; ours refuses both', async () => {
      const name = uniqueName('interop-dup');
      const [a, b] = nodes.servers.map((s) => s.url) as [string, string];
      // B is held by a third party: only A can vote.
      const third = (nodes.clients()[1] as Redisson).getLock(name);
      await third.lock(LONG_LEASE_MS);
      const twice = `${name}@${a},${name}@${a},${name}@${b}`;
      expect((await peer.call('redLock', twice, 'tryLock', [-1, LONG_LEASE_MS], 'holder')).result).toBe(true);
      const javaThread = await peer.threadId('holder');
      const [onA] = await nodes.hashes(name);
      expect(Object.entries(onA ?? {}).map(([f, count]) => [f.endsWith(`:${javaThread}`), count])).toEqual([[true, '2']]);
      await peer.call('redLock', twice, 'unlock', [], 'holder');
      expect((await nodes.hashes(name)).slice(0, 1)).toEqual([{}]);
      // Two URLs of one server are two Java clients, two owner fields: Java's MultiLock over them never succeeds.
      const twoUrls = `${name}@${a},${name}@${a.replace('127.0.0.1', 'localhost')}`;
      expect((await peer.call('multiLock', twoUrls, 'tryLock', [200, 5_000], 'holder')).result).toBe(false);
      expect((await nodes.hashes(name)).slice(0, 1)).toEqual([{}]);
      // Ours refuses the same members before sending anything.
      const [x, y] = nodes.clients() as [Redisson, Redisson];
      expect(() => x.getRedLock(x.getLock(name), x.getLock(name), y.getLock(name))).toThrow(DuplicateLockMemberError);
      const viaLocalhost = nodes.client(nodes.servers[0]?.port ?? 0, { redis: a.replace('127.0.0.1', 'localhost') });
      await expect(x.getMultiLock(x.getLock(name), viaLocalhost.getLock(name)).tryLock(200, 5_000)).rejects.toBeInstanceOf(DuplicateLockMemberError);
      expect((await nodes.hashes(name)).slice(0, 1)).toEqual([{}]);
      await third.unlock();
    });
  });
}
