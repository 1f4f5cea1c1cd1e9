/**
 * Fault-suite row for RedLock (issue 24): 4 worker processes, one flow each, on one RedLock of 3 member servers;
 * a member is killed and restarted without its data under a holder, twice. With one member of three lost
 * a majority still protects the hold; the figures are recorded and the covered checks asserted. The
 * hazard of a member restarted *empty* while a majority depends on it (Redis' own RedLock caveat) is the
 * data-loss row of the single-server locks, measured there.
 *
 * One flow per process: a RedLock (MultiLock) object acquires for one owner whatever flow calls it, so two
 * flows sharing one object re-enter each other's hold (measured: 8 overlaps in 3.5 s) — unlike an RLock,
 * whose object gives each concurrent acquisition its own owner. Reported, not yet changed.
 *
 * And a row for Redis Cluster: `CLUSTER FAILOVER` of the master that serves the lock's slot, twice (there and
 * back), while 3 processes × 2 flows take the lock, plus kill -9 of a holder. A manual failover loses no
 * acknowledged write, so the covered guarantees are asserted: commands the old master refuses with MOVED are
 * sent again to the new one, and waiters re-subscribe there.
 */
import { Cluster, Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keySlot } from '../../src/connection/slots.js';
import { startCluster, type TestCluster } from '../support/cluster.js';
import { startRedisMany, type TestRedis } from '../support/redis.js';
import { COVERED, covered, useFamilySuite } from './familySuite.js';
import { kill9Holders } from './faults.js';
import type { FaultContext } from './scenario.js';
import { now } from './workers.js';

const suite = useFamilySuite('topologies');
let members: TestRedis[] = [];

beforeAll(async () => {
  members = await startRedisMany(3, { own: true });
});

afterAll(async () => {
  await Promise.all(members.map((m) => m.stop()));
});

/** Restarts member `i` with its data lost at each offset (while the workers hold and wait). */
function restartMember(i: number, offsets: readonly number[]) {
  return async (ctx: FaultContext): Promise<void> => {
    const server = members[i]?.server;
    if (!server) throw new Error('the member needs a redis-server process of its own');
    for (const offset of offsets) {
      await ctx.at(offset);
      const t = now();
      await server.kill();
      await server.restart();
      ctx.record({ kind: `member ${i + 1} restart, data lost`, t, until: now() });
    }
  };
}

describe('fault suite: RedLock of 3 servers', () => {
  it('a member killed and restarted empty under a holder, twice, and kill -9 of a holder: no overlap (a majority is left)', async () => {
    const spec = { id: 'redlock', primitive: 'redLock' as const, flows: 1, workers: 4, loadMs: 3_500, leaseMs: -1, watchdogMs: 1_500, fault: 'a member restarted without its data ×2, kill -9 of a holder', asserts: COVERED };
    await suite.run({ ...spec, memberUrls: members.map((m) => m.url), inject: (ctx) => Promise.all([restartMember(0, [600, 2_200])(ctx), kill9Holders([1_300])(ctx)]).then(() => undefined) }, (result) => {
      covered(result);
      expect(result.report.faults.length).toBeGreaterThan(0);
    });
  });
});

describe('fault suite: Redis Cluster', () => {
  let cluster: TestCluster;
  let raw: Cluster;

  beforeAll(async () => {
    cluster = await startCluster();
    raw = new Cluster([...cluster.startupNodes]);
    raw.on('error', () => undefined);
  }, 60_000);

  afterAll(async () => {
    raw?.disconnect();
    await cluster?.stop();
  });

  /** `CLUSTER FAILOVER` on the replica of the lock's master at each offset; recorded once every node agrees. */
  function failover(offsets: readonly number[]) {
    return async (ctx: FaultContext): Promise<void> => {
      const slot = keySlot(ctx.name);
      for (const offset of offsets) {
        await ctx.at(offset);
        const master = (await cluster.masterOf(slot)).port;
        const replica = await cluster.replicaOf(master);
        const t = now();
        await cluster.failOver(replica, slot);
        ctx.record({ kind: 'CLUSTER FAILOVER', t, until: now() });
      }
    };
  }

  it('CLUSTER FAILOVER of the lock\'s master there and back, and kill -9 of a holder: the rule holds, no lost increment', async () => {
    const spec = { id: 'cluster-failover', primitive: 'lock' as const, flows: 2, workers: 3, loadMs: 5_000, leaseMs: -1, watchdogMs: 1_500, fault: 'CLUSTER FAILOVER of the lock\'s master ×2, kill -9 of a holder', asserts: COVERED };
    await suite.run(
      { ...spec, clusterNodes: cluster.startupNodes, inject: (ctx) => Promise.all([failover([800, 2_800])(ctx), kill9Holders([1_900])(ctx)]).then(() => undefined) },
      (result) => {
        covered(result);
        expect(result.report.faults.filter((f) => f.kind === 'CLUSTER FAILOVER')).toHaveLength(2);
      },
      { raw: raw as unknown as Redis },
    );
  }, 90_000);
});
