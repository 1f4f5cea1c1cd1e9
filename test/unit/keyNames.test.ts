/**
 * Every key and channel of PROTOCOL.md §0, for a plain name and for a name that carries its own hash tag.
 */
import { describe, expect, it } from 'vitest';
import {
  countDownLatchChannelName,
  fairLockQueueName,
  fairLockTimeoutName,
  fairLockWaiterChannelName,
  fencedLockTokenName,
  lockChannelName,
  permitExpirableTimeoutName,
  readLockTimeoutPrefix,
  readWriteLockChannelName,
  semaphoreChannelName,
  unlockLatchName,
  writeLockFieldName,
} from '../../src/keys.js';

const id = '3f2a0000-0000-4000-8000-000000000000';
const field = `${id}:7`;

describe('§0 key and channel names', () => {
  it.each([
    ['RLock family unlock channel', lockChannelName('N'), lockChannelName('a{b}'), 'redisson_lock__channel:{N}', 'redisson_lock__channel:a{b}'],
    ['unlock latch', unlockLatchName('N', 'r1'), unlockLatchName('a{b}', 'r1'), 'redisson_unlock_latch:{N}:r1', 'redisson_unlock_latch:a{b}:r1'],
    ['FairLock queue', fairLockQueueName('N'), fairLockQueueName('a{b}'), 'redisson_lock_queue:{N}', 'redisson_lock_queue:a{b}'],
    ['FairLock timeouts', fairLockTimeoutName('N'), fairLockTimeoutName('a{b}'), 'redisson_lock_timeout:{N}', 'redisson_lock_timeout:a{b}'],
    ['FairLock waiter channel', fairLockWaiterChannelName('N', field), fairLockWaiterChannelName('a{b}', field), `redisson_lock__channel:{N}:${field}`, `redisson_lock__channel:a{b}:${field}`],
    ['FencedLock token', fencedLockTokenName('N'), fencedLockTokenName('a{b}'), 'redisson_lock_token:{N}', 'redisson_lock_token:a{b}'],
    ['ReadWriteLock channel', readWriteLockChannelName('N'), readWriteLockChannelName('a{b}'), 'redisson_rwlock:{N}', 'redisson_rwlock:a{b}'],
    ['read hold timeout prefix', readLockTimeoutPrefix('N', field), readLockTimeoutPrefix('a{b}', field), `{N}:${field}:rwlock_timeout`, `a{b}:${field}:rwlock_timeout`],
    ['semaphore channel', semaphoreChannelName('N'), semaphoreChannelName('a{b}'), 'redisson_sc:{N}', 'redisson_sc:a{b}'],
    ['PermitExpirableSemaphore leases', permitExpirableTimeoutName('N'), permitExpirableTimeoutName('a{b}'), '{N}:timeout', 'a{b}:timeout'],
    // Built without the `{` check: always braced.
    ['CountDownLatch channel', countDownLatchChannelName('N'), countDownLatchChannelName('a{b}'), 'redisson_countdownlatch__channel__{N}', 'redisson_countdownlatch__channel__{a{b}}'],
  ])('%s', (_what, plain, tagged, expectedPlain, expectedTagged) => {
    expect(plain).toBe(expectedPlain);
    expect(tagged).toBe(expectedTagged);
  });

  it('write owner field', () => {
    expect(writeLockFieldName(id, 7)).toBe(`${field}:write`);
  });
});
