/**
 * `retryDelay` / `retryInterval` of a Redisson config (and the `retryDelay` option): Redisson's DelayStrategy
 * classes with ISO-8601 durations, Redisson's `calcDelay` formulas, and its two effects here — the unlock latch's
 * TTL `(timeout + calcDelay(retryAttempts)) * retryAttempts`, seen on a real server, and the delay between
 * retries of an unconfirmed write (test/replicated/).
 */
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { ConstantDelay, DecorrelatedJitterDelay, EqualJitterDelay, FullJitterDelay, Redisson, readRedissonConfig } from '../../src/index.js';
import { resolveOptions, unlockLatchTtl } from '../../src/config.js';
import { eventually, startRedis, uniqueName, type TestRedis } from '../support/redis.js';
import { openMonitor } from '../support/monitor.js';

const fixture = (name: string): string => fileURLToPath(new URL(`../fixtures/config/${name}`, import.meta.url));
const quiet = { onWarning: (): void => undefined };
const single = (fields: Record<string, unknown>): ReturnType<typeof readRedissonConfig>['options'] =>
  readRedissonConfig({ singleServerConfig: { address: 'redis://127.0.0.1:6379', ...fields } }, quiet).options;

describe('retryDelay in a Redisson config', () => {
  it("reads each DelayStrategy class with its ISO-8601 durations (Redisson's YAML tags)", () => {
    expect(readRedissonConfig(fixture('retry-delay.yaml'), quiet).options.retryDelay).toEqual(new EqualJitterDelay(200, 400));
    const cls = (name: string, fields: Record<string, unknown>): unknown => single({ retryDelay: { class: `org.redisson.config.${name}`, ...fields } }).retryDelay;
    expect(cls('FullJitterDelay', { baseDelay: 'PT0.1S', maxDelay: 'PT1M' })).toEqual(new FullJitterDelay(100, 60_000));
    expect(cls('ConstantDelay', { delay: 'PT1.5S' })).toEqual(new ConstantDelay(1_500));
    expect(cls('DecorrelatedJitterDelay', { baseDelay: 'PT1S', maxDelay: 'PT1H' })).toEqual(new DecorrelatedJitterDelay(1_000, 3_600_000));
    // An empty mapping: Redisson's constructor defaults.
    expect(cls('ConstantDelay', {})).toEqual(new ConstantDelay(100));
    expect(cls('EqualJitterDelay', {})).toEqual(new EqualJitterDelay(100, 1_000));
  });

  it('retryInterval (before Redisson 3.35) is a ConstantDelay; with both fields the later in the file wins, as Redisson\'s setters run in order', () => {
    expect(single({ retryInterval: 1500 }).retryDelay).toEqual(new ConstantDelay(1_500));
    expect(single({ retryInterval: 1500, retryDelay: { class: 'org.redisson.config.ConstantDelay', delay: 'PT0.3S' } }).retryDelay).toEqual(new ConstantDelay(300));
    expect(single({ retryDelay: { class: 'org.redisson.config.ConstantDelay', delay: 'PT0.3S' }, retryInterval: 700 }).retryDelay).toEqual(new ConstantDelay(700));
    expect(single({}).retryDelay).toBeUndefined();
  });

  it('refuses an unknown class, a bad duration and a half-given jitter, naming the path', () => {
    expect(() => single({ retryDelay: { class: 'com.acme.Delay' } })).toThrow(/singleServerConfig.retryDelay.*DelayStrategy classes/);
    expect(() => single({ retryDelay: { class: 'org.redisson.config.ConstantDelay', delay: '1s' } })).toThrow(/singleServerConfig.retryDelay.delay.*ISO-8601/);
    expect(() => single({ retryDelay: { class: 'org.redisson.config.EqualJitterDelay', baseDelay: 'PT1S' } })).toThrow(/needs both baseDelay and maxDelay/);
    expect(() => single({ retryInterval: -1 })).toThrow(/retryInterval.*non-negative integer/);
  });
});

describe('DelayStrategy classes (Redisson formulas)', () => {
  it('EqualJitterDelay: half of min(base * 2^attempt, max) plus up to the other half', () => {
    const d = new EqualJitterDelay(100, 1_000);
    for (let i = 0; i < 50; i++) {
      expect(d.calcDelay(0)).toBeGreaterThanOrEqual(50);
      expect(d.calcDelay(0)).toBeLessThanOrEqual(100);
      expect(d.calcDelay(10)).toBeGreaterThanOrEqual(500);
      expect(d.calcDelay(10)).toBeLessThanOrEqual(1_000);
    }
  });

  it('FullJitterDelay up to the ceiling; ConstantDelay the same; DecorrelatedJitterDelay within [min, max]', () => {
    const full = new FullJitterDelay(100, 1_000);
    const decorrelated = new DecorrelatedJitterDelay(100, 1_000);
    for (let i = 0; i < 50; i++) {
      expect(full.calcDelay(1)).toBeLessThanOrEqual(200);
      const d = decorrelated.calcDelay();
      expect(d).toBeGreaterThanOrEqual(100);
      expect(d).toBeLessThanOrEqual(1_000);
    }
    expect(new ConstantDelay(250).calcDelay()).toBe(250);
    expect(() => new ConstantDelay(-1)).toThrow(RangeError);
  });

  it('the retryDelay option: validated, and sizes the unlock latch TTL by Redisson\'s formula', () => {
    expect(() => resolveOptions({ retryDelay: 5 as never })).toThrow(/`retryDelay` to be a DelayStrategy/);
    expect(unlockLatchTtl(resolveOptions({ timeout: 2_000, retryAttempts: 3, retryDelay: new ConstantDelay(500) }))).toBe((2_000 + 500) * 3);
    const d = unlockLatchTtl(resolveOptions({ timeout: 2_000, retryAttempts: 3 })); // default EqualJitterDelay(1 s, 2 s): 1000..2000 at attempt 3
    expect(d).toBeGreaterThanOrEqual((2_000 + 1_000) * 3);
    expect(d).toBeLessThanOrEqual((2_000 + 2_000) * 3);
  });
});

describe('on a real server', () => {
  let server: TestRedis;
  let admin: Redis;
  beforeAll(async () => {
    server = await startRedis();
    admin = new Redis({ port: server.port });
  });
  afterAll(async () => {
    admin?.disconnect();
    await server?.stop();
  });

  it("an unlock's latch lives (timeout + retryDelay) * retryAttempts, with the config's retryDelay", async () => {
    const client = Redisson.fromConfig({ singleServerConfig: { address: `redis://127.0.0.1:${server.port}`, timeout: 1000, retryAttempts: 2, retryDelay: { class: 'org.redisson.config.ConstantDelay', delay: 'PT7S' } } }, quiet);
    try {
      const name = uniqueName('latch');
      const lock = client.getLock(name);
      await lock.lock();
      // The latch is deleted right after a successful unlock: its TTL is read off the script's SET (MONITOR).
      const isLatchSet = (a: string[]): boolean => a[0] === 'set' && (a[1] ?? '').startsWith(`redisson_unlock_latch:{${name}}:`) && a[a.length - 2] === 'px';
      const monitor = await openMonitor(admin.duplicate());
      const args: string[][] = [];
      monitor.on('monitor', (_time: string, line: string[]) => args.push(line));
      try {
        await lock.unlock();
        await eventually(() => args.some(isLatchSet), 5_000, "the unlock script's latch SET");
      } finally {
        monitor.disconnect();
      }
      const set = args.find(isLatchSet)!;
      expect(Number(set[set.length - 1])).toBe((1_000 + 7_000) * 2);
    } finally {
      await client.shutdown();
    }
  });
});
