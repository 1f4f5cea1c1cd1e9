/**
 * HoldLedger: what a client believes each owner holds, and the doubts left by acquires whose reply was lost.
 * Pure bookkeeping; the behaviour it serves (a lost acquire reply settled, not re-entered) is proven against
 * a real server in locks/RLock.reliability.
 */
import { describe, expect, it } from 'vitest';
import { HoldLedger } from '../../src/locks/HoldLedger.js';

const key = HoldLedger.key('orders', 'uuid:1');
const later = (): number => performance.now() + 60_000;

describe('HoldLedger counts', () => {
  it('counts re-entries up and unlocks down, and forgets a hold that is gone', () => {
    const ledger = new HoldLedger();
    expect(ledger.expected(key)).toBe(0);
    ledger.acquired(key, later());
    ledger.acquired(key, later());
    expect(ledger.expected(key)).toBe(2);
    ledger.unlocked(key, true, later());
    expect(ledger.expected(key)).toBe(1);
    // "not still held" covers released, not held and "gone but others hold" (a read lock's reply 2) alike.
    ledger.unlocked(key, false, later());
    expect(ledger.expected(key)).toBe(0);
  });

  it('a still-held unlock never takes the count below one', () => {
    const ledger = new HoldLedger();
    ledger.unlocked(key, true, later());
    expect(ledger.expected(key)).toBe(1);
  });

  it('a hold past its expiry counts as gone; a renewed one (Infinity) never expires', () => {
    const ledger = new HoldLedger();
    ledger.acquired(key, performance.now() - 1);
    expect(ledger.expected(key)).toBe(0);
    ledger.acquired(key, Infinity);
    expect(ledger.expected(key)).toBe(1);
  });

  it('expireAll moves every non-renewed hold of one lock, and no other lock', () => {
    const ledger = new HoldLedger();
    const other = HoldLedger.key('orders', 'uuid:2');
    const renewed = HoldLedger.key('orders', 'uuid:3');
    const elsewhere = HoldLedger.key('orders-archive', 'uuid:1');
    for (const k of [key, other, elsewhere]) ledger.acquired(k, later());
    ledger.acquired(renewed, Infinity);
    ledger.expireAll('orders', performance.now() - 1);
    expect([key, other, renewed, elsewhere].map((k) => ledger.expected(k))).toEqual([0, 0, 1, 1]);
  });

  it('forget drops one owner or every owner of one lock', () => {
    const ledger = new HoldLedger();
    const other = HoldLedger.key('orders', 'uuid:2');
    const elsewhere = HoldLedger.key('ordersX', 'uuid:1');
    for (const k of [key, other, elsewhere]) ledger.acquired(k, later());
    ledger.forget('orders', 'uuid:2');
    expect([key, other, elsewhere].map((k) => ledger.expected(k))).toEqual([1, 0, 1]);
    ledger.forget('orders');
    expect([key, other, elsewhere].map((k) => ledger.expected(k))).toEqual([0, 0, 1]);
  });

  it('keys cannot collide across lock names and owner fields', () => {
    expect(HoldLedger.key('a:b', 'c')).not.toBe(HoldLedger.key('a', 'b:c'));
  });
});

describe('HoldLedger doubts', () => {
  it('settle is synchronous (undefined) while nothing is in doubt', () => {
    expect(new HoldLedger().settle(key)).toBeUndefined();
  });

  it('a doubt runs its check once, however many callers settle it, and is gone when the check succeeds', async () => {
    const ledger = new HoldLedger();
    let runs = 0;
    let finish!: () => void;
    const doubted = ledger.doubt(key, () => {
      runs++;
      return new Promise<void>((resolve) => (finish = resolve));
    });
    expect(ledger.doubtful).toBe(1);
    const a = ledger.settle(key);
    const b = ledger.settle(key);
    expect(a).toBe(b);
    finish();
    await Promise.all([doubted, a, b]);
    expect(runs).toBe(1);
    expect(ledger.doubtful).toBe(0);
    expect(ledger.settle(key)).toBeUndefined();
  });

  it('a failed check keeps the doubt, and the next settle runs it again', async () => {
    const ledger = new HoldLedger();
    let runs = 0;
    const check = (): Promise<void> => {
      runs++;
      return runs === 1 ? Promise.reject(new Error('Redis still down')) : Promise.resolve();
    };
    await expect(ledger.doubt(key, check)).rejects.toThrow('Redis still down');
    expect(ledger.doubtful).toBe(1);
    await ledger.settle(key);
    expect(runs).toBe(2);
    expect(ledger.doubtful).toBe(0);
  });

  it('a newer doubt on the same key is not cleared by the older check finishing', async () => {
    const ledger = new HoldLedger();
    let finishFirst!: () => void;
    const first = ledger.doubt(key, () => new Promise<void>((resolve) => (finishFirst = resolve)));
    let secondRuns = 0;
    void ledger.doubt(key, () => {
      secondRuns++;
      return Promise.resolve();
    });
    finishFirst();
    await first;
    await ledger.settle(key);
    expect(ledger.doubtful).toBe(0);
    expect(secondRuns).toBe(1);
  });
});
