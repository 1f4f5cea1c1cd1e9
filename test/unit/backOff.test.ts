/**
 * The spin lock's back-off policies against Redisson's `LockOptions` (PROTOCOL.md §9): defaults, the
 * exponential formula `next = min(max, next × multiplier + random[0, ++fails))` with its stop at exactly
 * `max`, the constant policy, and validation.
 */
import { describe, expect, it } from 'vitest';
import { ConstantBackOff, ExponentialBackOff, ExponentialBackOffPolicy, LockOptions } from '../../src/index.js';
import { backOffSleeps, requireBackOff } from '../../src/wait/backOff.js';

const take = (policy: { getNextSleepPeriod(): number }, n: number): number[] => Array.from({ length: n }, () => policy.getNextSleepPeriod());

describe('ExponentialBackOff (LockOptions.defaults())', () => {
  it('defaults to 1 ms initial, 128 ms max, multiplier 2; each defaults() is a new setting', () => {
    const defaults = LockOptions.defaults() as ExponentialBackOff;
    expect(defaults).toBeInstanceOf(ExponentialBackOff);
    expect([defaults.getInitialDelay(), defaults.getMaxDelay(), defaults.getMultiplier()]).toEqual([1, 128, 2]);
    expect(LockOptions.defaults()).not.toBe(defaults);
  });

  it('without jitter doubles from 1 to 128 and stays there', () => {
    expect(take(new ExponentialBackOffPolicy(1, 128, 2, () => 0), 10)).toEqual([1, 2, 4, 8, 16, 32, 64, 128, 128, 128]);
  });

  it('adds random[0, n) at the n-th step, as ThreadLocalRandom.nextInt(++fails), and no jitter once at max', () => {
    const draws: number[] = [];
    const random = (): number => {
      draws.push(0);
      return 0.999;
    };
    // 1; 1·2+0 = 2; 2·2+1 = 5; 5·2+2 = 12; 27; 58; 121; min(128, 248) = 128; then 128 without drawing.
    expect(take(new ExponentialBackOffPolicy(1, 128, 2, random), 10)).toEqual([1, 2, 5, 12, 27, 58, 121, 128, 128, 128]);
    expect(draws).toHaveLength(7);
  });

  it('with Math.random every sleep lies in [previous × 2, previous × 2 + n) until the cap', () => {
    for (let run = 0; run < 50; run++) {
      const sleeps = take(new ExponentialBackOff().create(), 12);
      expect(sleeps[0]).toBe(1);
      for (let i = 1; i < sleeps.length; i++) {
        const prev = sleeps[i - 1] as number;
        const cur = sleeps[i] as number;
        if (prev === 128) expect(cur).toBe(128);
        else {
          expect(cur).toBeGreaterThanOrEqual(Math.min(128, prev * 2));
          expect(cur).toBeLessThan(Math.min(129, prev * 2 + i));
          expect(Number.isInteger(cur)).toBe(true);
        }
      }
      expect(sleeps.at(-1)).toBe(128);
    }
  });

  it('is configurable like Redisson\'s builder; an initial delay above max is used once, then max', () => {
    const b = new ExponentialBackOff().initialDelay(5).maxDelay(100).multiplier(3);
    expect([b.getInitialDelay(), b.getMaxDelay(), b.getMultiplier()]).toEqual([5, 100, 3]);
    expect(take(new ExponentialBackOffPolicy(5, 100, 3, () => 0), 5)).toEqual([5, 15, 45, 100, 100]);
    expect(take(new ExponentialBackOffPolicy(200, 128, 2, () => 0), 3)).toEqual([200, 128, 128]);
    // create() snapshots the setting: later changes make later policies only.
    const policy = b.create();
    b.initialDelay(7);
    expect(policy.getNextSleepPeriod()).toBe(5);
    expect(b.create().getNextSleepPeriod()).toBe(7);
  });

  it('rejects non-positive and non-integer settings, as Redisson\'s IllegalArgumentException', () => {
    const b = new ExponentialBackOff();
    expect(() => b.maxDelay(0)).toThrow(RangeError);
    expect(() => b.initialDelay(-1)).toThrow(RangeError);
    expect(() => b.multiplier(1.5)).toThrow(RangeError);
    expect(() => b.maxDelay(2 ** 31)).toThrow(RangeError);
    expect(() => b.multiplier('2' as unknown as number)).toThrow(TypeError);
    expect(() => b.initialDelay(Number.NaN)).toThrow(TypeError);
    expect([b.getInitialDelay(), b.getMaxDelay(), b.getMultiplier()]).toEqual([1, 128, 2]);
  });
});

describe('ConstantBackOff', () => {
  it('sleeps 64 ms by default, or the delay given, every time', () => {
    expect(take(new ConstantBackOff().create(), 3)).toEqual([64, 64, 64]);
    expect(take(new ConstantBackOff().delay(10).create(), 2)).toEqual([10, 10]);
    expect(new ConstantBackOff().getDelay()).toBe(64);
    expect(() => new ConstantBackOff().delay(0)).toThrow(RangeError);
  });
});

describe('custom back-offs', () => {
  it('requireBackOff accepts anything with create() and names what it got otherwise', () => {
    const custom = { create: () => ({ getNextSleepPeriod: () => 3 }) };
    expect(requireBackOff(custom)).toBe(custom);
    expect(() => requireBackOff({})).toThrow(/Expected `backOff` to be a BackOff/);
    expect(() => requireBackOff(128)).toThrow(TypeError);
    expect(() => requireBackOff(null)).toThrow(TypeError);
  });

  it('a policy that is not one, or returns a negative or non-finite sleep, is a TypeError of the call', () => {
    expect(() => backOffSleeps({ create: () => ({}) as never })).toThrow(/getNextSleepPeriod/);
    for (const bad of [-1, Number.NaN, Infinity, '5']) {
      const sleeps = backOffSleeps({ create: () => ({ getNextSleepPeriod: () => bad as number }) });
      expect(() => sleeps.next()).toThrow(TypeError);
    }
    expect(backOffSleeps({ create: () => ({ getNextSleepPeriod: () => 0 }) }).next()).toBe(0);
  });
});
