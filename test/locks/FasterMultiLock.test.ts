/**
 * FasterMultiLock (`getMultiLock(group, values)`, Redisson 3.38+) on a real server: the group hash's layout,
 * field names equal to the ones Java computes (HighwayHash-128 under Redisson's key, vectors taken from Java
 * Redisson 4.7.0's `Hash.hash128toBase64`), exclusion between overlapping value sets, re-entry, release
 * published and waking a waiter, the watchdog, forceUnlock, the queries, and bad input refused before
 * anything is sent. Interop with Java: interop/fasterMultiLock.test.ts.
 */
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lockChannelName, type Redisson, type RedissonFasterMultiLock } from '../../src/index.js';
import { hash128toBase64, highwayHash64 } from '../../src/locks/highwayHash.js';
import { Clients, collectMessages, eventually, startRedis, uniqueName, within, type TestRedis } from '../support/redis.js';

let server: TestRedis;
let clients: Clients;
let raw: Redis;
let a: Redisson;
let b: Redisson;
const LONG_LEASE_MS = 60_000;

beforeAll(async () => {
  server = await startRedis();
  clients = new Clients(server.url);
  raw = clients.raw();
  a = clients.client();
  b = clients.client();
});
afterAll(async () => {
  await clients.closeAll();
  await server.stop();
});

const utf8 = (s: string): Uint8Array => new Uint8Array(Buffer.from(s, 'utf8'));

describe('HighwayHash', () => {
  it("matches the reference implementation's 64-bit test vectors (key 0..31, data 0..n-1)", () => {
    const key = [0x0706050403020100n, 0x0f0e0d0c0b0a0908n, 0x1716151413121110n, 0x1f1e1d1c1b1a1918n];
    const data = (n: number): Uint8Array => Uint8Array.from({ length: n }, (_, i) => i);
    expect([0, 1, 2, 3].map((n) => highwayHash64(data(n), key).toString(16).toUpperCase())).toEqual(['907A56DE22C26E53', '7EAB43AAC7CDDD78', 'B8D0569AB0B53D62', '5C6BEFAB8A463D80']);
  });

  it("names values as Java Redisson's Hash.hash128toBase64 does (StringCodec / LongCodec bytes)", () => {
    const fromJava: Record<string, string> = {
      '': 't6rZwibGo2uy1OSmNVe8pg',
      a: 'qwvAS12pR0CgRitaypEjUw',
      Jack_001: '7pNoDdizVy2xY792MaFv+w',
      Mary_002: 'kIX2DFOX4IWct7G7K6tV9A',
      '0123456789abcdef0123456789abcdef!': 'RVwNK2RMTLLmozj/r+2k+Q',
      'ünïcödé ✓': 'JtADT1kXCaUH4D6gcXcKyg',
      ['x'.repeat(100)]: 'xLlhhuMBl4Bc0rU9DXx5Mw',
      '42': 'RE0IojEvPTY8Dofe3IkBNA',
      '-7': '0cuJoHvcFalnJDjBOKpGvQ',
      '9223372036854775807': 'u4knuatUzHiT6Vhz9t2maQ',
    };
    for (const [value, field] of Object.entries(fromJava)) expect(hash128toBase64(utf8(value)), value).toBe(field);
  });
});

describe('FasterMultiLock on a real server', () => {
  it('lays out the group hash as Redisson: value → owner, value:owner:expire_time, value:owner:lock_count', async () => {
    const group = uniqueName('class');
    const lock = a.getMultiLock(group, ['Jack_001', 'Mary_002']);
    const before = Date.now();
    await lock.lock();
    const owner = `${a.getId()}:${lock.threadId}`;
    const hash = await raw.hgetall(group);
    expect(Object.keys(hash).sort()).toEqual(
      ['7pNoDdizVy2xY792MaFv+w', 'kIX2DFOX4IWct7G7K6tV9A'].flatMap((v) => [v, `${v}:${owner}:expire_time`, `${v}:${owner}:lock_count`]).sort(),
    );
    expect(hash['7pNoDdizVy2xY792MaFv+w']).toBe(owner);
    expect(hash[`kIX2DFOX4IWct7G7K6tV9A:${owner}:lock_count`]).toBe('1');
    expect(Number(hash[`7pNoDdizVy2xY792MaFv+w:${owner}:expire_time`])).toBeGreaterThanOrEqual(before + 30_000);
    expect(await raw.pttl(group)).toBeGreaterThan(25_000);
    expect(await lock.isHeldByCurrentThread()).toBe(true);
    expect(await lock.isLocked()).toBe(true);
    await lock.unlock();
    expect(await raw.exists(group)).toBe(0);
  });

  it('overlapping value sets exclude each other; disjoint ones of the same group do not', async () => {
    const group = uniqueName('class');
    const first = a.getMultiLock(group, ['x', 'y']);
    await first.lock(LONG_LEASE_MS);
    expect(await b.getMultiLock(group, ['y', 'z']).tryLock()).toBe(false);
    const disjoint = b.getMultiLock(group, ['z', 'w']);
    expect(await disjoint.tryLock()).toBe(true);
    expect(await b.getMultiLock(group, ['y']).isLocked()).toBe(true);
    expect(await b.getMultiLock(group, ['q']).isLocked()).toBe(false);
    await disjoint.unlock();
    await first.unlock();
    expect(await raw.exists(group)).toBe(0);
  });

  it('re-entry counts every value up; one unlock leaves it held, the second releases and publishes 0', async () => {
    const group = uniqueName('class');
    const lock = a.getMultiLock(group, [1, 2n, '3'], { codec: 'StringCodec' });
    const messages = await collectMessages(clients.raw(), lockChannelName(group));
    await a.runInThread(async () => {
      await lock.lock();
      await lock.lock();
      expect(await lock.getHoldCount()).toBe(2);
      await lock.unlock();
      expect(await lock.getHoldCount()).toBe(1);
      expect(await lock.isHeldByCurrentThread()).toBe(true);
      await lock.unlock();
    });
    expect(await raw.exists(group)).toBe(0);
    await eventually(() => messages.includes('0'), 5_000, 'the release message');
  });

  it("a waiter on an overlapping set wakes on the holder's release (a 60 s lease it did not wait out)", async () => {
    const group = uniqueName('class');
    const holder = a.getMultiLock(group, ['p', 'q']);
    await holder.lock(LONG_LEASE_MS);
    const waiterLock = b.getMultiLock(group, ['q', 'r']);
    const waiter = waiterLock.tryLock(30_000, LONG_LEASE_MS);
    await eventually(async () => Number(((await raw.pubsub('NUMSUB', lockChannelName(group))) as [string, number])[1]) === 1, 10_000, 'the waiter to subscribe');
    await holder.unlock();
    expect(await within(waiter, 10_000, 'the waiter')).toBe(true);
    await waiterLock.unlock();
  });

  it('the watchdog keeps every deadline and the hash alive past the watchdog timeout', async () => {
    const c = clients.client({ lockWatchdogTimeout: 600 });
    const group = uniqueName('class');
    const lock = c.getMultiLock(group, ['m', 'n']);
    await lock.lock();
    const owner = `${c.getId()}:${lock.threadId}`;
    const deadline = async (): Promise<number> => Number(await raw.hget(group, `${hash128toBase64(utf8('m'))}:${owner}:expire_time`));
    const first = await deadline();
    await eventually(async () => (await deadline()) > first, 5_000, 'a renewal');
    await new Promise((r) => setTimeout(r, 1_200)); // two watchdog timeouts
    expect(await lock.isHeldByCurrentThread()).toBe(true);
    expect(await raw.pttl(group)).toBeGreaterThan(0);
    await lock.unlock();
  });

  it('forceUnlock frees the values whoever holds them, wakes waiters, and leaves other values of the group', async () => {
    const group = uniqueName('class');
    const other = a.getMultiLock(group, ['keep']);
    await other.lock(LONG_LEASE_MS);
    await a.getMultiLock(group, ['f1', 'f2']).lock(LONG_LEASE_MS);
    const messages = await collectMessages(clients.raw(), lockChannelName(group));
    expect(await b.getMultiLock(group, ['f1', 'f2']).forceUnlock()).toBe(true);
    expect(await b.getMultiLock(group, ['f1', 'f2']).isLocked()).toBe(false);
    expect(await other.isHeldByCurrentThread()).toBe(true);
    expect(await b.getMultiLock(group, ['f1']).forceUnlock()).toBe(false);
    await eventually(() => messages.includes('0'), 5_000, 'the release message');
    await other.unlock();
  });

  it('an unlock by a non-owner is refused (IllegalMonitorStateError) and changes nothing', async () => {
    const group = uniqueName('class');
    const lock = a.getMultiLock(group, ['u']);
    await lock.lock(LONG_LEASE_MS);
    const before = await raw.hgetall(group);
    await expect(b.getMultiLock(group, ['u']).unlock()).rejects.toThrow(/not locked by current thread/);
    expect(await raw.hgetall(group)).toEqual(before);
    await lock.unlock();
  });

  it('refuses bad input before anything is sent', async () => {
    const calls = async (): Promise<number> => Number(/cmdstat_evalsha:calls=(\d+)/.exec(await raw.info('commandstats'))?.[1] ?? 0) + Number(/cmdstat_eval:calls=(\d+)/.exec(await raw.info('commandstats'))?.[1] ?? 0);
    const before = await calls();
    const bad: [unknown[], RegExp][] = [
      [['g', []], /at least one value/],
      [['g', 'abc'], /array of values/],
      [['g', ['a', { x: 1 }]], /values\[1\] to be a string or an integer/],
      [['g', [1.5]], /values\[0\] to be a string or an integer/],
      [['g', ['a'], { codec: 'LongCodec' }], /values\[0\] to be an integer .* for LongCodec/],
      [['g', ['a'], { codec: 'Kryo5Codec' }], /'StringCodec' or 'LongCodec'.*Kryo5Codec, cannot/],
      [['g', ['a'], { codek: 'StringCodec' }], /codek/],
      [['g', [2n ** 63n]], /fit a Java long/],
      [['', ['a']], /name/i],
    ];
    for (const [args, message] of bad) {
      expect(() => (a.getMultiLock as (...x: unknown[]) => RedissonFasterMultiLock)(...args)).toThrow(message);
    }
    expect(await calls()).toBe(before);
  });
});
