/**
 * Fault-suite rows of the lock family (issue 24): FairLock (FIFO order against the queue and deadlines Redis
 * showed), ReadWriteLock (no writer with any other holder; readers together), FencedLock (tokens strictly
 * increasing while Redis keeps its data). 3 worker processes × 2 flows sharing each process's one object.
 * Two rows each: the covered faults (kill -9 of a holder, CLIENT KILL normal and pubsub) asserted; a data
 * loss and stalls beyond the lease recorded (see ./familySuite.ts).
 */
import { describe, expect, it } from 'vitest';
import { COVERED, HAZARD, covered, coveredFaults, hazardFaults, useFamilySuite } from './familySuite.js';
import type { Primitive } from './primitives.js';

const suite = useFamilySuite('locks');
// loadMs: the last covered fault strikes at 2.5 s; a FairLock waiter that lost its wake-up may hold the queue's head
// for up to its 500 ms deadline, so the window leaves 1.5 s for the acquisition that counts as recovery.
const base = { workers: 3, flows: 2, loadMs: 4_000, leaseMs: -1, watchdogMs: 1_500, fairLockWaitTimeout: 500 };
const COVERED_FAULTS = 'kill -9 of a holder, CLIENT KILL normal, CLIENT KILL pubsub';
const HAZARD_FAULTS = 'Redis restart (data lost), CLIENT PAUSE 1.4 s and SIGSTOP 1.6 s > lease';

describe.each<[Primitive, string]>([
  ['fairLock', 'FairLock'],
  ['readWrite', 'ReadWriteLock'],
  ['fencedLock', 'FencedLock'],
])('fault suite: %s', (primitive, label) => {
  it(`${label}, covered faults: the rule holds, no lost increment${primitive === 'fairLock' ? ', FIFO order kept' : ''}${primitive === 'fencedLock' ? ', tokens increase' : ''}`, async () => {
    await suite.run({ ...base, primitive, id: `${primitive}-covered`, fault: COVERED_FAULTS, asserts: COVERED, inject: coveredFaults }, (result) => {
      covered(result);
      if (primitive === 'fencedLock') expect(result.extra.tokens?.regressions, JSON.stringify(result.extra.tokens)).toBe(0);
      // FIFO: nobody is served ahead of a waiter queued before it, unless that waiter's deadline had passed
      // (Redisson's own rule drops it) or its wait failed (it queues again) — see rules/index.ts.
      if (primitive === 'fairLock') expect(result.extra.fifoSamples, 'pairs served out of queue order').toEqual([]);
    });
  });

  // FairLock's unlock script (Redisson's, kept for wire compatibility) answers "released" when the lock key is
  // gone altogether, so a holder stalled past its lease whose lock expired and stayed free is not told by its
  // unlock, only by a later renewal (measured: a SIGSTOPped holder released without error just before its
  // process exited). Its stall overlaps are recorded, not failed; the other locks' must all be told.
  const told = primitive === 'fairLock' ? 'recorded (FairLock: an unlock of an expired, free lock succeeds, as in Java)' : 'every overlap involves a holder told of its loss';
  // loadMs: the SIGSTOP starts once a holder is found (2.7 s, up to 3.5 s seen on a loaded CI machine) and lasts
  // 1.6 s; its recovery is the first acquisition by another worker after it ends, which must come from a cycle begun
  // inside the load window. A FairLock queue takes longer to get there (1.5 s after the SIGCONT in a passing run:
  // waiters not told by a release wake on their TTL, and a stopped waiter's queue entry holds those behind it until
  // its deadline), and once, in CI, no cycle begun in the 5.5 s window acquired after the SIGSTOP: `unrecovered: 1`.
  const loadMs = primitive === 'fairLock' ? 7_500 : 5_500;
  it(`${label}, data loss and stalls: ${told}`, async () => {
    const spec = { ...base, primitive, watchdogMs: 1_000, loadMs, id: `${primitive}-hazard`, fault: HAZARD_FAULTS, asserts: HAZARD, inject: hazardFaults };
    await suite.run(spec, (result) => expect(result.lockKeyLeft).toBe(false), { unflaggedAllowed: primitive === 'fairLock' });
  });
});
