/**
 * Error codes (issue 26): every error class the package exports has its own stable `code`
 * (`ERR_REDISSON_…`) and an explicit `name`, and docs/errors.md lists exactly those codes, each with its
 * class, so the table cannot go stale.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { inspect } from 'node:util';
import { expect, it } from 'vitest';
import * as api from '../../src/index.js';

type ErrorClass = abstract new (...args: never[]) => Error;
const proto = (cls: ErrorClass): { readonly name?: unknown; readonly code?: unknown } => cls.prototype as object;
const exported = Object.entries(api as Record<string, unknown>).filter(
  (entry): entry is [string, ErrorClass] => typeof entry[1] === 'function' && entry[1].prototype instanceof Error,
);
const codeOf = (cls: ErrorClass): unknown => proto(cls).code;

it('every exported error class declares its own ERR_REDISSON_ code and its name, spelled out', () => {
  expect(exported.length).toBeGreaterThanOrEqual(16);
  for (const [name, cls] of exported) {
    // Declared on the class itself (not inherited), so a subclass never shares its parent's code.
    expect(Object.hasOwn(proto(cls), 'code'), name).toBe(true);
    expect(codeOf(cls), name).toMatch(/^ERR_REDISSON_[A-Z_]+$/);
    expect(Object.hasOwn(proto(cls), 'name'), name).toBe(true);
    expect(proto(cls).name).toBe(name);
  }
  const codes = exported.map(([, cls]) => codeOf(cls));
  expect(new Set(codes).size).toBe(codes.length);
});

it('docs/errors.md lists exactly the exported codes, each with its class', () => {
  const table = readFileSync(new URL('../../docs/errors.md', import.meta.url), 'utf8');
  const rows = [...table.matchAll(/^\| `(ERR_REDISSON_[A-Z_]+)` \| `(\w+)` \|/gm)].map((m) => [m[1], m[2]]);
  const fromCode = exported.map(([name, cls]) => [codeOf(cls), name]);
  const byCode = (a: unknown[], b: unknown[]): number => String(a[0]).localeCompare(String(b[0]));
  expect(rows.sort(byCode)).toEqual(fromCode.sort(byCode));
  // Every code in the text is one of them (no stale code outside the table either).
  const mentioned = new Set([...table.matchAll(/ERR_REDISSON_[A-Z_]+/g)].map((m) => m[0]));
  expect([...mentioned].sort()).toEqual(rows.map((r) => r[0]).sort());
});

it('an instance carries its code as an own property (shown by util.inspect), and the hierarchy holds', () => {
  const lost = new api.LockLostError('n', 'uuid', 3);
  expect(lost.code).toBe('ERR_REDISSON_LOCK_LOST');
  expect(Object.keys(lost)).toContain('code');
  expect(inspect(lost)).toContain("code: 'ERR_REDISSON_LOCK_LOST'");
  expect(lost.stack?.startsWith('LockLostError: ')).toBe(true);
  expect(lost).toBeInstanceOf(api.IllegalMonitorStateError);
  expect(new api.IllegalMonitorStateError('n', 'uuid', 3).code).toBe('ERR_REDISSON_ILLEGAL_MONITOR_STATE');
  const bad = new api.InvalidArgumentError('bad');
  expect(bad).toBeInstanceOf(TypeError);
  expect(bad.code).toBe('ERR_REDISSON_INVALID_ARGUMENT');
  expect(new api.ArgumentRangeError('far')).toBeInstanceOf(RangeError);
  expect(api.isRedissonError(bad)).toBe(true);
  expect(api.isRedissonError(new TypeError('plain'))).toBe(false);
  expect(api.isRedissonError({ code: 'ERR_REDISSON_ERROR' })).toBe(false);
  // A caller's own subclass keeps its class name and inherits its parent's code.
  class AppLockError extends api.IllegalStateError {}
  expect(new AppLockError('x')).toMatchObject({ name: 'AppLockError', code: 'ERR_REDISSON_ILLEGAL_STATE' });
});

it('bad input is refused with the argument errors, which keep TypeError / RangeError', async () => {
  expect(() => api.Redisson.create({ lockWatchdogTimeout: 'x' as never })).toThrow(api.InvalidArgumentError);
  expect(() => api.Redisson.create({ lockWatchdogTimeout: 1.5 })).toThrow(api.ArgumentRangeError);
  const client = api.Redisson.create({ redis: { lazyConnect: true } });
  try {
    const typed = (() => {
      try {
        client.getLock('');
      } catch (error) {
        return error;
      }
    })();
    expect(typed).toBeInstanceOf(RangeError);
    expect((typed as api.ArgumentRangeError).code).toBe('ERR_REDISSON_OUT_OF_RANGE');
    await expect(client.getLock('n').tryLock(10, 'WEEKS' as never)).rejects.toMatchObject({ code: 'ERR_REDISSON_INVALID_ARGUMENT', name: 'InvalidArgumentError' });
  } finally {
    await client.shutdown();
  }
});

it('the library throws only its own classes: no bare Error, TypeError or RangeError is built in src/', () => {
  const root = new URL('../../src/', import.meta.url);
  const files = readdirSync(root, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts') && !f.startsWith('generated'));
  expect(files.length).toBeGreaterThan(20);
  const bare = files.flatMap((f) =>
    readFileSync(new URL(f, root), 'utf8')
      .split('\n')
      .flatMap((line, i) => (/\bnew (Error|TypeError|RangeError)\(/.test(line) ? [`src/${f}:${i + 1}: ${line.trim()}`] : [])),
  );
  expect(bare).toEqual([]);
});
