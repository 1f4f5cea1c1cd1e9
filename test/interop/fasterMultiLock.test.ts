/**
 * FasterMultiLock interop: Java Redisson's `getMultiLock(group, values)` (the peer's "fasterMultiLock", on a
 * client configured with StringCodec or LongCodec) and ours on one redis-server name the values' fields alike,
 * exclude each other on overlapping value sets and wake each other, in Redisson 4.7.0 and 3.52.0 (3.17.7
 * predates the primitive). Holders take 60 s leases, far beyond the hang guards: a waiter that acquires within
 * a guard was woken by the release message.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lockChannelName, type FasterMultiLockCodec, type Redisson } from '../../src/index.js';
import { Clients, eventually, startRedis, uniqueName, within, type TestRedis } from '../support/redis.js';
import { javaAvailable, JavaPeer } from './JavaPeer.js';
import { javaMissingPlaceholder } from './support/placeholder.js';

const VERSIONS = ['4.7.0', '3.52.0'] as const;
const LONG_LEASE_MS = 60_000;
const HANG_GUARD_MS = 10_000;
const availability = javaAvailable();

if (!availability.ok) javaMissingPlaceholder('FasterMultiLock interop', availability.reason);

for (const version of availability.ok ? VERSIONS : []) {
  describe(`Java Redisson ${version} ⇄ redisson-ts: getMultiLock(group, values)`, () => {
    let server: TestRedis;
    let clients: Clients;
    let ours: Redisson;
    let peer: JavaPeer;

    beforeAll(async () => {
      server = await startRedis();
      clients = new Clients(server.url);
      ours = clients.client();
      peer = await JavaPeer.start(version, { address: server.url });
      expect(peer.redissonVersion).toBe(version);
    });
    afterAll(async () => {
      await peer?.shutdown();
      await clients?.closeAll();
      await server?.stop();
    });

    const java = async (codec: FasterMultiLockCodec, group: string, values: readonly (string | number)[], method: string, args: unknown[], thread: string): Promise<unknown> =>
      (await peer.call('fasterMultiLock', `${group}|${codec}|${values.join(',')}`, method, args, thread)).result;
    const subscribed = (group: string): Promise<void> =>
      eventually(async () => Number(((await clients.raw().pubsub('NUMSUB', lockChannelName(group))) as [string, number])[1]) >= 1, HANG_GUARD_MS, 'the waiter to subscribe');

    for (const [codec, values] of [
      ['StringCodec', ['Jack_001', 'Mary_002', 'ünï ✓']],
      ['LongCodec', [42, -7, 9_007_199_254_740_991]],
    ] as const) {
      it(`${codec}: both sides name the values' fields alike (same hash fields, same owner layout)`, async () => {
        const [javaGroup, ourGroup] = [uniqueName('fml-java'), uniqueName('fml-ours')];
        await java(codec, javaGroup, values, 'lock', [LONG_LEASE_MS], 'holder');
        const lock = ours.getMultiLock(ourGroup, values, { codec });
        await lock.lock(LONG_LEASE_MS);
        const raw = clients.raw();
        const valueFields = async (group: string): Promise<string[]> => Object.keys(await raw.hgetall(group)).filter((f) => !f.includes(':')).sort();
        expect(await valueFields(ourGroup)).toEqual([...lock.valueFields].sort());
        expect(await valueFields(javaGroup)).toEqual(await valueFields(ourGroup));
        // The peer's codec client has its own id; the owner is its holder thread.
        const javaThread = await peer.threadId('holder');
        const javaHash = await raw.hgetall(javaGroup);
        const owners = new Set((await valueFields(javaGroup)).map((f) => javaHash[f]));
        expect([...owners].map((o) => o?.endsWith(`:${javaThread}`))).toEqual([true]);
        const [owner] = owners;
        expect(Object.keys(javaHash).sort()).toEqual((await valueFields(javaGroup)).flatMap((f) => [f, `${f}:${owner}:expire_time`, `${f}:${owner}:lock_count`]).sort());
        await java(codec, javaGroup, values, 'unlock', [], 'holder');
        await lock.unlock();
        expect(await raw.exists(javaGroup, ourGroup)).toBe(0);
      });

      it(`${codec}: Java holds, ours (overlapping values) is excluded and wakes on Java's unlock`, async () => {
        const group = uniqueName('fml');
        await java(codec, group, values.slice(0, 2), 'lock', [LONG_LEASE_MS], 'holder');
        const lock = ours.getMultiLock(group, values.slice(1), { codec });
        expect(await lock.tryLock()).toBe(false);
        const waiter = lock.tryLock(30_000, LONG_LEASE_MS);
        await subscribed(group);
        await java(codec, group, values.slice(0, 2), 'unlock', [], 'holder');
        expect(await within(waiter, HANG_GUARD_MS, 'our waiter')).toBe(true);
        await lock.unlock();
      });

      it(`${codec}: ours holds, Java (overlapping values) is excluded and wakes on our unlock`, async () => {
        const group = uniqueName('fml');
        const lock = ours.getMultiLock(group, values.slice(0, 2), { codec });
        await lock.lock(LONG_LEASE_MS);
        expect(await java(codec, group, values.slice(1), 'tryLock', [], 'other')).toBe(false);
        expect(await java(codec, group, values.slice(1), 'isLocked', [], 'other')).toBe(true);
        const waiter = java(codec, group, values.slice(1), 'tryLock', [30_000, LONG_LEASE_MS], 'waiter');
        await subscribed(group);
        await lock.unlock();
        expect(await within(waiter, HANG_GUARD_MS, 'the Java waiter')).toBe(true);
        expect(await lock.isLocked()).toBe(true); // Java now holds values[1]
        await java(codec, group, values.slice(1), 'unlock', [], 'waiter');
        expect(await lock.isLocked()).toBe(false);
      });
    }
  });
}
