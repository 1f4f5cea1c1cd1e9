/** Lock-name templates and `@WithLock` option checks: errors at class definition, not per request. */
import { describe, expect, it } from 'vitest';
import { RedissonClientNotBoundError, RedissonModule, WithLock, type WithLockOptions } from 'redisson-ts-nestjs';
import { checkTemplate, lockNameOf } from '../src/lockName.js';

describe('lock names', () => {
  it('templates read arguments and their properties', () => {
    const args = [{ id: 42, customer: { id: 'c-1' } }, 'x', 7n, true];
    expect(lockNameOf('order:{0.id}', args, 'w')).toBe('order:42');
    expect(lockNameOf('{0.customer.id}/{1}/{2}/{3}', args, 'w')).toBe('c-1/x/7/true');
    expect(lockNameOf('static', args, 'w')).toBe('static');
    expect(lockNameOf((a) => `f:${String(a[1])}`, args, 'w')).toBe('f:x');
  });

  it('a placeholder naming an object, null or nothing is a TypeError naming the method', () => {
    expect(() => lockNameOf('o:{0}', [{}], 'C.m')).toThrow(/C\.m: \{0\} of "o:\{0\}" is object/);
    expect(() => lockNameOf('o:{0.id}', [null], 'C.m')).toThrow(/is undefined/);
    expect(() => lockNameOf('o:{1}', [1], 'C.m')).toThrow(/is undefined/);
    expect(() => lockNameOf(() => '', [], 'C.m')).toThrow(TypeError);
  });

  it('bad templates fail when checked', () => {
    expect(() => checkTemplate('o:{0', 'w')).toThrow(/bad placeholder/);
    expect(() => checkTemplate('o:{x}', 'w')).toThrow(/bad placeholder/);
    expect(() => checkTemplate('', 'w')).toThrow(TypeError);
    expect(() => checkTemplate('o:{0.a.b}:{12}', 'w')).not.toThrow();
  });
});

describe('@WithLock options', () => {
  const decorate = (options: WithLockOptions): void => {
    class C {
      m(): void {}
    }
    const descriptor = Object.getOwnPropertyDescriptor(C.prototype, 'm')!;
    WithLock('n', options)(C.prototype, 'm', descriptor);
  };

  it('unknown keys and contradictions throw at decoration', () => {
    expect(() => decorate({ wait: 1 } as WithLockOptions)).toThrow(/unknown option "wait"/);
    expect(() => decorate({ kind: 'mutex' as 'lock' })).toThrow(/kind must be one of/);
    expect(() => decorate({ kind: 'semaphore', leaseTime: 5 })).toThrow(/no leaseTime/);
    expect(() => decorate({ permits: 2 })).toThrow(/permits is an option of kind 'semaphore'/);
    expect(() => decorate({ onTimeout: 'skip' as 'throw' })).toThrow(/onTimeout/);
    expect(() => decorate({ kind: 'semaphore', permits: 2, waitTime: 10, onTimeout: { return: null } })).not.toThrow();
  });

  it('a method of an instance no module bound rejects with RedissonClientNotBoundError', async () => {
    class Lonely {
      @WithLock('n')
      run(): string {
        return 'ran';
      }
    }
    await expect(new Lonely().run()).rejects.toBeInstanceOf(RedissonClientNotBoundError);
  });

  it('forRoot refuses an empty client name', () => {
    expect(() => RedissonModule.forRoot({ name: '' } as never)).toThrow(/name must be a non-empty string/);
  });
});
