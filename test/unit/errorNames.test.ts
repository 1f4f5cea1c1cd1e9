/**
 * Error names survive bundling: each class's `name` is set explicitly (errors.ts, ERROR_NAMES), not read from
 * `constructor.name`, which minifiers rename (the consumers matrix checks a minified webpack bundle). This
 * fails when a new error class is exported without an entry there.
 */
import { expect, it } from 'vitest';
import * as api from '../../src/index.js';
import { RedissonError } from '../../src/index.js';

const errorClasses = Object.entries(api).filter(
  (entry): entry is [string, typeof RedissonError] => typeof entry[1] === 'function' && (entry[1] === RedissonError || entry[1].prototype instanceof RedissonError),
);

it('every exported error class carries its name on its prototype, set from the table, not from constructor.name', () => {
  expect(errorClasses.length).toBeGreaterThanOrEqual(14);
  for (const [exported, cls] of errorClasses) {
    expect({ exported, own: Object.hasOwn(cls.prototype, 'name'), name: cls.prototype.name }).toEqual({ exported, own: true, name: exported });
  }
});

it("an instance's name is its class's, and a user's own subclass keeps its own name", () => {
  expect(new api.RedissonConfigError('object', []).name).toBe('RedissonConfigError');
  class AppLockError extends api.IllegalStateError {}
  expect(new AppLockError('x').name).toBe('AppLockError');
  expect(new AppLockError('x')).toBeInstanceOf(RedissonError);
});
