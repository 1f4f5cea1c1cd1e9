import { describe, expect, it } from 'vitest';
import { lockChannelName, lockFieldName, prefixName, suffixName, unlockLatchName } from '../../src/keys.js';

describe('key naming (Redisson prefixName / suffixName)', () => {
  it('wraps a plain name in a hash tag', () => {
    expect(prefixName('redisson_lock__channel', 'order:42')).toBe('redisson_lock__channel:{order:42}');
    expect(suffixName('sem', 'timeout')).toBe('{sem}:timeout');
  });

  it('keeps a name that already contains { as it is, whether or not } follows', () => {
    expect(lockChannelName('orders:{42}:lock')).toBe('redisson_lock__channel:orders:{42}:lock');
    expect(lockChannelName('half{open')).toBe('redisson_lock__channel:half{open');
    expect(suffixName('a{b}', 'timeout')).toBe('a{b}:timeout');
  });

  it('builds the unlock latch and the owner field like Redisson', () => {
    expect(unlockLatchName('product_101', 'ab'.repeat(16))).toBe(`redisson_unlock_latch:{product_101}:${'ab'.repeat(16)}`);
    expect(unlockLatchName('x{1}', 'id')).toBe('redisson_unlock_latch:x{1}:id');
    expect(lockFieldName('3f2a0000-0000-4000-8000-000000000000', 57)).toBe('3f2a0000-0000-4000-8000-000000000000:57');
  });
});
