/**
 * A Redis Cluster for tests, spawned from the `redis-server` binary (no Docker): six nodes with
 * `--cluster-enabled yes`, joined by `redis-cli --cluster create … --cluster-replicas 1` into three masters
 * with one replica each, and ready once every node reports `cluster_state:ok` and knows all six. Always torn
 * down by `stop()`.
 */
import { spawn } from 'node:child_process';
import { Redis } from 'ioredis';
import { RedisServerProcess } from '../../packages/cli/src/RedisServerProcess.js';
import { eventually } from './poll.js';

export interface TestCluster {
  readonly nodes: readonly RedisServerProcess[];
  /** What ioredis' `Cluster` and our `clusterNodes` take. */
  readonly startupNodes: readonly { host: string; port: number }[];
  /** The master node serving `slot` now. */
  masterOf(slot: number): Promise<{ port: number }>;
  /** Masters now (ports). */
  masters(): Promise<number[]>;
  stop(): Promise<void>;
}

function run(command: string, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (c: Buffer) => (output += c.toString()));
    child.stderr.on('data', (c: Buffer) => (output += c.toString()));
    child.once('error', reject);
    child.once('exit', (code) => (code === 0 ? resolve(output) : reject(new Error(`${command} ${args.join(' ')} exited ${String(code)}: ${output.slice(-2_000)}`))));
  });
}

async function withNode<T>(port: number, fn: (r: Redis) => Promise<T>): Promise<T> {
  const r = new Redis({ port, lazyConnect: true, maxRetriesPerRequest: 1 });
  r.on('error', () => undefined);
  try {
    return await fn(r);
  } finally {
    r.disconnect();
  }
}

/** Starts six nodes, creates the cluster, and resolves once it is consistent everywhere. */
export async function startCluster(): Promise<TestCluster> {
  const nodes: RedisServerProcess[] = [];
  try {
    for (let i = 0; i < 6; i++) {
      nodes.push(await RedisServerProcess.start({ args: ['--cluster-enabled', 'yes', '--cluster-config-file', 'nodes.conf', '--cluster-node-timeout', '2000'] }));
    }
    await run('redis-cli', ['--cluster', 'create', ...nodes.map((n) => `127.0.0.1:${n.port}`), '--cluster-replicas', '1', '--cluster-yes']);
    await eventually(
      async () => {
        for (const n of nodes) {
          const ok = await withNode(n.port, async (r) => {
            const info = await r.cluster('INFO');
            const known = ((await r.cluster('NODES')) as string).trim().split('\n').length;
            // A master's replica must be online (not still loading its first copy) to acknowledge WAIT.
            const replication = await r.info('replication');
            const replicaReady = !/^role:master/m.test(replication) || /^slave0:.*state=online/m.test(replication);
            return /cluster_state:ok/.test(info) && known === 6 && replicaReady;
          });
          if (!ok) return false;
        }
        return true;
      },
      30_000,
      'every node to see a consistent cluster',
    );
    const startupNodes = nodes.map((n) => ({ host: '127.0.0.1', port: n.port }));
    type Slots = [number, number, [string, number]][];
    const slotsOf = (port: number): Promise<Slots> => withNode(port, async (r) => (await r.cluster('SLOTS')) as unknown as Slots);
    const masterIn = (slots: Slots, slot: number): number | undefined => {
      const range = slots.find(([from, to]) => slot >= from && slot <= to);
      return range ? Number(range[2][1]) : undefined;
    };
    return {
      nodes,
      startupNodes,
      // The master every running node names for the slot (after a failover, once they all agree).
      masterOf: async (slot) => {
        const views = await Promise.all(nodes.filter((n) => n.running).map(async (n) => masterIn(await slotsOf(n.port), slot)));
        const first = views[0];
        if (first === undefined || views.some((v) => v !== first)) throw new Error(`the nodes do not agree on the master of slot ${slot}: ${views.join(', ')}`);
        return { port: first };
      },
      masters: async () => (await slotsOf(nodes.find((n) => n.running)?.port ?? 0)).map((r) => Number(r[2][1])),
      stop: async () => {
        await Promise.all(nodes.map((n) => n.stop()));
      },
    };
  } catch (error) {
    await Promise.all(nodes.map((n) => n.stop()));
    throw error;
  }
}
