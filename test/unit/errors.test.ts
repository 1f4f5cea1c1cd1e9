import { expect, it } from 'vitest';
import { IllegalMonitorStateError, LockLostError, RedisTimeoutError, RedissonError, RedissonShutdownError } from '../../src/index.js';

it('names every error after its class and keeps the hierarchy', () => {
  const imse = new IllegalMonitorStateError('n', 'uuid', 3);
  expect(imse.name).toBe('IllegalMonitorStateError');
  // Redisson's message first (logs read the same on both sides), then the lock's name and the owner rule.
  expect(imse.message.startsWith('attempt to unlock lock, not locked by current thread by node id: uuid thread-id: 3 (lock ')).toBe(true);
  expect(imse).toBeInstanceOf(RedissonError);
  const lost = new LockLostError('n', 'uuid', 3);
  expect(lost.name).toBe('LockLostError');
  expect(lost).toBeInstanceOf(IllegalMonitorStateError);
  expect(new RedissonShutdownError().name).toBe('RedissonShutdownError');
  const cause = new Error('root');
  expect(new RedisTimeoutError('t', { cause }).cause).toBe(cause);
});
