/**
 * AutoOwners: which owner an acquisition without a named owner uses, and which hold an unlock without one
 * releases. The behaviour on a real server (shared objects, several flows) is in locks/RLock.ownership.
 */
import { describe, expect, it } from 'vitest';
import { AutoOwners, selfWaitWarning } from '../../src/locks/AutoOwners.js';

function owners(perObject = false): { owners: AutoOwners; allocated: number[] } {
  let next = 100;
  const allocated: number[] = [];
  return {
    owners: new AutoOwners(() => {
      allocated.push(++next);
      return next;
    }, perObject),
    allocated,
  };
}

describe('AutoOwners', () => {
  it('an idle object uses its own id, allocated once; sequential use stays one owner', () => {
    const { owners: o, allocated } = owners();
    const first = o.next();
    o.started(first, () => {})(true);
    o.released(first);
    expect(o.next()).toBe(first);
    expect(allocated).toEqual([first]);
    expect(o.primary).toBe(first);
  });

  it('an acquisition while the object holds or is acquiring gets a fresh owner', () => {
    const { owners: o } = owners();
    const first = o.next();
    const endFirst = o.started(first, () => {});
    const second = o.next(); // first is still pending
    expect(second).not.toBe(first);
    endFirst(true);
    const third = o.next(); // first holds
    expect(new Set([first, second, third]).size).toBe(3);
    expect(o.exclusive).toBe(true);
  });

  it("lockOwnership 'object': every acquisition is the object's own id", () => {
    const { owners: o } = owners(true);
    const first = o.next();
    o.started(first, () => {})(true);
    expect(o.next()).toBe(first);
    expect(o.exclusive).toBe(false);
  });

  it('unlocks release the oldest hold; concurrent unlocks claim different holds', () => {
    const { owners: o } = owners();
    const a = o.next();
    o.started(a, () => {})(true);
    const b = o.next();
    o.started(b, () => {})(true);
    expect(o.current).toBe(a);
    expect(o.claim()).toBe(a);
    expect(o.claim()).toBe(b);
    expect(o.claim()).toBeUndefined();
    // a re-entrant hold stays held after its unlock: unclaimed, it is the next unlock's target again
    o.unclaim(a);
    expect(o.claim()).toBe(a);
    o.released(a);
    o.unclaim(a);
    expect(o.current).toBe(b);
    o.released(b);
    o.unclaim(b);
    expect(o.holding).toBe(false);
  });

  it('a failed acquisition holds nothing; a hold is listed once however often it is re-entered', () => {
    const { owners: o } = owners();
    const a = o.next();
    o.started(a, () => {})(false);
    expect(o.holding).toBe(false);
    o.started(a, () => {})(true);
    o.started(a, () => {})(true);
    expect(o.claim()).toBe(a);
    expect(o.claim()).toBeUndefined();
  });

  it('cancelOldestPending cancels the oldest acquisition in flight, once', () => {
    const { owners: o } = owners();
    const cancelled: string[] = [];
    o.started(o.next(), (e) => cancelled.push(`first: ${e.message}`));
    o.started(o.next(), (e) => cancelled.push(`second: ${e.message}`));
    expect(o.cancelOldestPending(new Error('unlock without a hold'))).toBe(true);
    expect(cancelled).toEqual(['first: unlock without a hold']);
    expect(o.cancelOldestPending(new Error('again'))).toBe(true);
    expect(o.cancelOldestPending(new Error('none left'))).toBe(false);
  });

  it('the self-wait warning names the lock, the time waited and the ways to re-enter', () => {
    expect(selfWaitWarning('orders', 1234.4)).toMatch(/'orders' has waited 1234 ms.*hold\.reenter\(\), client\.runInThread\(\) or an explicit threadId/);
  });
});
