/**
 * Fault-suite rows of the synchronizers (issue 24): RSemaphore and RPermitExpirableSemaphore (never more
 * holders than permits; the PES lease respected — a holder past it is told by its failed release) and
 * RCountDownLatch (every awaiter released once its round is counted down, none before). 3 worker processes ×
 * 2 flows sharing each process's one object. Each worker calls `trySetPermits` before each acquire (an
 * init-if-missing, as applications do), which is what lets a data loss over-grant: the figure is recorded.
 */
import { describe, expect, it } from 'vitest';
import { COVERED, HAZARD, pubsubFaults, covered, coveredFaults, hazardFaults, semaphoreHazards, useFamilySuite } from './familySuite.js';

const suite = useFamilySuite('sync');
const base = { workers: 3, flows: 2, loadMs: 3_000, watchdogMs: 1_500, permits: 2 };
const COVERED_FAULTS = 'kill -9 of a holder, CLIENT KILL normal, CLIENT KILL pubsub';
const HAZARD_FAULTS = 'Redis restart (data lost), CLIENT PAUSE 1.4 s and SIGSTOP 1.6 s > lease';

describe('fault suite: RSemaphore (2 permits, no lease)', () => {
  it('CLIENT KILL pubsub: never more than 2 holders', async () => {
    await suite.run({ ...base, primitive: 'semaphore', leaseMs: -1, loadMs: 2_000, id: 'semaphore-covered', fault: 'CLIENT KILL pubsub', asserts: COVERED, inject: pubsubFaults }, covered);
  });
  it('data loss, stalls, CLIENT KILL normal, kill -9: recorded (trySetPermits after a loss can over-grant; a lost acquire reply or a killed holder takes its permit for good)', async () => {
    const spec = { ...base, primitive: 'semaphore' as const, leaseMs: -1, loadMs: 4_000, id: 'semaphore-hazard', fault: `${HAZARD_FAULTS}, then CLIENT KILL normal and kill -9 of a holder`, asserts: HAZARD };
    await suite.run({ ...spec, inject: semaphoreHazards }, () => undefined, { unflaggedAllowed: true, unrecoveredAllowed: true });
  });
});

describe('fault suite: RPermitExpirableSemaphore (2 permits, lease 1 s)', () => {
  it('covered faults: never more than 2 holders within their leases', async () => {
    await suite.run({ ...base, primitive: 'pes', leaseMs: 1_000, id: 'pes-covered', fault: COVERED_FAULTS, asserts: COVERED, inject: coveredFaults }, covered);
  });
  it('data loss and stalls: recorded; a holder past its lease is told by its failed release', async () => {
    await suite.run({ ...base, primitive: 'pes', leaseMs: 1_000, loadMs: 5_500, id: 'pes-hazard', fault: HAZARD_FAULTS, asserts: HAZARD, inject: hazardFaults }, () => undefined, { unflaggedAllowed: true });
  });
});

describe('fault suite: RCountDownLatch (rounds counted down by one flow)', () => {
  it('covered faults: every awaiter released once its round reached zero, none before', async () => {
    await suite.run({ ...base, primitive: 'latch', leaseMs: -1, id: 'latch-covered', fault: COVERED_FAULTS, asserts: 'every awaiter released at zero, none before', inject: coveredFaults }, (result) => {
      const latch = result.extra.latch;
      expect(latch?.stuck, JSON.stringify(latch)).toBe(0);
      expect(latch?.early, JSON.stringify(latch)).toBe(0);
      expect(latch?.released ?? 0).toBeGreaterThan(0);
    }, { latch: true });
  });
});
