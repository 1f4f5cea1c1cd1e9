/**
 * Topologies (`npm run bench -- --topology sentinel,cluster`): redisson-ts' uncontended lock+unlock pair on a
 * single server, through Sentinel and in a Redis Cluster, each beside a PING on the same deployment, measured
 * in this process in one run. Sentinel and Cluster follow every lock write with `WAIT` (Redisson's synced
 * execution); a client of the Sentinel master alone (a plain URL: single-server mode, no `WAIT`) measured on
 * the same servers shows what `WAIT` costs. The deployments are spawned from the `redis-server` binary
 * (master + 2 replicas + 3 Sentinels; 3 masters + 3 replicas) and stopped afterwards.
 */
import type { RedissonOptions } from '../../src/index.js';
import { library } from '../library.js';
import { RedisServerProcess } from '../../packages/cli/src/RedisServerProcess.js';
import { startCluster, type TestCluster } from '../../test/support/cluster.js';
import { startSentinelSet, type SentinelSet } from '../../test/support/sentinel.js';
import type { BenchContext } from '../context.js';
import { summarize, type Summary } from '../stats.js';

export const TOPOLOGIES = ['single', 'sentinel', 'cluster'] as const;
export type Topology = (typeof TOPOLOGIES)[number];

export interface TopologyRow {
  readonly label: string;
  readonly ping: Summary;
  readonly pair: Summary;
  /** Whether lock writes are followed by WAIT. */
  readonly wait: boolean;
}

export interface TopologyResult {
  readonly rows: TopologyRow[];
}

async function measure(label: string, options: RedissonOptions, wait: boolean, n: number): Promise<TopologyRow> {
  const { Redisson } = await library();
  const client = Redisson.create({ ...options, shortLeaseWarning: false });
  try {
    const lock = client.getLock(`bench:topology:${label}`);
    const connection = client.connection;
    // Warm-up: connections, slot map, script cache, the replica count.
    for (let i = 0; i < 50; i++) {
      await lock.lock();
      await lock.unlock();
      await connection.ping();
    }
    const ping: number[] = [];
    const pair: number[] = [];
    for (let i = 0; i < n; i++) {
      let t = performance.now();
      await connection.ping();
      ping.push((performance.now() - t) * 1000);
      t = performance.now();
      await lock.lock();
      await lock.unlock();
      pair.push((performance.now() - t) * 1000);
    }
    return { label, ping: summarize(ping), pair: summarize(pair), wait };
  } finally {
    await client.shutdown();
  }
}

export async function runTopology(ctx: BenchContext, wanted: readonly Topology[]): Promise<TopologyResult> {
  const n = ctx.quick ? 300 : 1_000;
  const rows: TopologyRow[] = [];
  let single: RedisServerProcess | null = null;
  let set: SentinelSet | null = null;
  let cluster: TestCluster | null = null;
  try {
    ctx.progress.update('topology: single server');
    single = await RedisServerProcess.start();
    rows.push(await measure('single server', { redis: single.url }, false, n));
    if (wanted.includes('sentinel')) {
      ctx.progress.update('topology: starting a Sentinel set');
      set = await startSentinelSet();
      rows.push(await measure('Sentinel (WAIT for 2 replicas)', { redis: set.redisOptions() }, true, n));
      rows.push(await measure('Sentinel master by URL (single-server mode, no WAIT)', { redis: `redis://127.0.0.1:${set.master.port}` }, false, n));
    }
    if (wanted.includes('cluster')) {
      ctx.progress.update('topology: starting a cluster');
      cluster = await startCluster();
      rows.push(await measure('Cluster (WAIT for 1 replica, sharded pub/sub)', { redis: { clusterNodes: [...cluster.startupNodes] } }, true, n));
    }
    return { rows };
  } finally {
    await Promise.allSettled([single?.stop(), set?.stop(), cluster?.stop()]);
  }
}
