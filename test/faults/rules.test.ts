/**
 * The FairLock FIFO rule of the fault suite (./rules/index.ts) on hand-made histories: the checker must find a
 * waiter served ahead of one queued before it, and excuse only what Redisson's own script does (a head whose
 * deadline passed is dropped) or a wait that failed.
 */
import { describe, expect, it } from 'vitest';
import type { Hold } from './history.js';
import { fifoViolations, type QueueSample } from './rules/index.js';

const hold = (worker: string, field: string, start: number): Hold => ({ worker, field, start, end: start + 5, closedAt: start + 6, released: true, flagged: false, role: 'w' });
const sample = (t: number, queue: string[], deadlines: Record<string, number>): QueueSample => ({ t0: t, t1: t + 1, queue, deadlines });

describe('fifoViolations', () => {
  it('y served before x, x queued ahead and within its deadline: a violation', () => {
    const holds = [hold('a', 'A', 100), hold('b', 'B', 50)];
    const out = fifoViolations(holds, [sample(10, ['A', 'B'], { A: 1_000, B: 1_500 })], 500);
    expect(out).toEqual([{ x: 'a', y: 'b', at: 50, xDeadline: 1_000 }]);
  });

  it("x's deadline had passed when y got in: Redisson drops x, no violation", () => {
    const holds = [hold('a', 'A', 900), hold('b', 'B', 600)];
    expect(fifoViolations(holds, [sample(10, ['A', 'B'], { A: 550, B: 1_050 })], 500)).toEqual([]);
  });

  it("each hold in between lowers x's deadline by the wait: excused only when even the bound had passed", () => {
    // One hold (c) after the sample lowers A's deadline from 1 000 to 500, before B's hold at 600.
    const holds = [hold('c', 'C', 200), hold('a', 'A', 900), hold('b', 'B', 600)];
    expect(fifoViolations(holds, [sample(10, ['A', 'B'], { A: 1_000, B: 1_500 })], 500)).toEqual([]);
    // Without it, A's deadline (1 000) is still ahead at 600: B was served out of order.
    expect(fifoViolations(holds.slice(1), [sample(10, ['A', 'B'], { A: 1_000, B: 1_500 })], 500)).toHaveLength(1);
  });

  it("x's wait failed in between: it queues again, no violation", () => {
    const holds = [hold('a', 'A', 100), hold('b', 'B', 50)];
    expect(fifoViolations(holds, [sample(10, ['A', 'B'], { A: 1_000, B: 1_500 })], 500, new Map([['a', [40]]]))).toEqual([]);
  });

  it('in queue order, or x never held afterwards: no violation', () => {
    expect(fifoViolations([hold('a', 'A', 50), hold('b', 'B', 100)], [sample(10, ['A', 'B'], { A: 1_000, B: 1_500 })], 500)).toEqual([]);
    expect(fifoViolations([hold('b', 'B', 100)], [sample(10, ['A', 'B'], { A: 1_000, B: 1_500 })], 500)).toEqual([]);
  });
});

describe('fifoViolations: an entry dropped and queued again', () => {
  it('x seen later at the back with a new deadline: its first deadline had passed, no violation', () => {
    const holds = [hold('a', 'A', 900), hold('b', 'B', 600)];
    const samples = [sample(10, ['A', 'B'], { A: 550, B: 1_050 }), sample(580, ['B', 'A'], { B: 1_050, A: 2_000 })];
    expect(fifoViolations(holds, samples, 500)).toEqual([]);
  });
});
