/**
 * Fault-suite rows of the lock family (issue 24): FairLock (FIFO order against the queue Redis showed:
 * recorded), ReadWriteLock (no writer with any other holder; readers together), FencedLock (tokens strictly
 * increasing while Redis keeps its data). 3 worker processes × 2 flows sharing each process's one object.
 * Two rows each: the covered faults (kill -9 of a holder, CLIENT KILL normal and pubsub) asserted; a data
 * loss and stalls beyond the lease recorded (see ./familySuite.ts).
 */
import { describe, expect, it } from 'vitest';
import { COVERED, HAZARD, covered, coveredFaults, hazardFaults, useFamilySuite } from './familySuite.js';
import type { Primitive } from './primitives.js';

const suite = useFamilySuite('locks');
const base = { workers: 3, flows: 2, loadMs: 3_000, leaseMs: -1, watchdogMs: 1_500, fairLockWaitTimeout: 500 };
const COVERED_FAULTS = 'kill -9 of a holder, CLIENT KILL normal, CLIENT KILL pubsub';
const HAZARD_FAULTS = 'Redis restart (data lost), CLIENT PAUSE 1.4 s and SIGSTOP 1.6 s > lease';

describe.each<[Primitive, string]>([
  ['fairLock', 'FairLock'],
  ['readWrite', 'ReadWriteLock'],
  ['fencedLock', 'FencedLock'],
])('fault suite: %s', (primitive, label) => {
  it(`${label}, covered faults: the rule holds, no lost increment${primitive === 'fairLock' ? ', FIFO recorded' : ''}${primitive === 'fencedLock' ? ', tokens increase' : ''}`, async () => {
    await suite.run({ ...base, primitive, id: `${primitive}-covered`, fault: COVERED_FAULTS, asserts: COVERED, inject: coveredFaults }, (result) => {
      covered(result);
      if (primitive === 'fencedLock') expect(result.extra.tokens?.regressions, JSON.stringify(result.extra.tokens)).toBe(0);
      // FIFO is recorded, not asserted, under these faults: 0–1 pairs out of queue order per run were seen
      // (once two flows of one process), not yet explained — the checker or the lock. See the report's figure.
      if (primitive === 'fairLock') expect(result.extra.fifoViolations).toBeDefined();
    });
  });

  // FairLock's unlock script (Redisson's, kept for wire compatibility) answers "released" when the lock key is
  // gone altogether, so a holder stalled past its lease whose lock expired and stayed free is not told by its
  // unlock, only by a later renewal (measured: a SIGSTOPped holder released without error just before its
  // process exited). Its stall overlaps are recorded, not failed; the other locks' must all be told.
  const told = primitive === 'fairLock' ? 'recorded (FairLock: an unlock of an expired, free lock succeeds, as in Java)' : 'every overlap involves a holder told of its loss';
  // loadMs: the SIGSTOP starts once a holder is found (2.7 s, up to 3.5 s seen on a loaded CI machine); the
  // stalled lock expires one lease later, and the next acquisition must fall inside the load window.
  it(`${label}, data loss and stalls: ${told}`, async () => {
    const spec = { ...base, primitive, watchdogMs: 1_000, loadMs: 5_500, id: `${primitive}-hazard`, fault: HAZARD_FAULTS, asserts: HAZARD, inject: hazardFaults };
    await suite.run(spec, (result) => expect(result.lockKeyLeft).toBe(false), { unflaggedAllowed: primitive === 'fairLock' });
  });
});
