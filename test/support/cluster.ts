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
  /**
   * `CLUSTER FAILOVER` on the replica at `replicaPort`; resolves once every running node names it the master of
   * `slot`. The replica first finishes its sync (a master demoted by an earlier failover resyncs from the new one),
   * and the command is sent again when a manual failover did not complete: Redis drops one that could not finish in
   * 5 s, without a word.
   */
  failOver(replicaPort: number, slot: number): Promise<void>;
  /**
   * The port of a replica of the master at `masterPort`, by that master's CLUSTER NODES (a replica marked `fail`
   * left out). Waited for, up to 20 s: just after a failover the demoted node may not be listed yet.
   */
  replicaOf(masterPort: number): Promise<number>;
  /**
   * Moves `slot` from its master to another master by hand, as `redis-cli --cluster reshard` does (IMPORTING and
   * MIGRATING, its keys MIGRATEd, then NODE on every master); resolves with the new master's port once every running
   * node names it.
   */
  moveSlot(slot: number): Promise<number>;
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
    // The master every running node names for the slot (after a failover, once they all agree).
    const masterOf = async (slot: number): Promise<{ port: number }> => {
      const views = await Promise.all(nodes.filter((n) => n.running).map(async (n) => masterIn(await slotsOf(n.port), slot)));
      const first = views[0];
      if (first === undefined || views.some((v) => v !== first)) throw new Error(`the nodes do not agree on the master of slot ${slot}: ${views.join(', ')}`);
      return { port: first };
    };
    const failOver = async (replicaPort: number, slot: number): Promise<void> => {
      for (let attempt = 1; attempt <= 3; attempt++) {
        // Sent only to a replica whose link to its master is up; a node already promoted (by a try whose takeover
        // the nodes had not all seen yet) is only waited for.
        let role = '';
        await eventually(
          async () => {
            const replication = await withNode(replicaPort, (r) => r.info('replication'));
            role = /^role:(\w+)/m.exec(replication)?.[1] ?? '';
            return role === 'master' || /^master_link_status:up/m.test(replication);
          },
          20_000,
          `the replica ${replicaPort} to be in sync with its master`,
        );
        if (role !== 'master') await withNode(replicaPort, (r) => r.cluster('FAILOVER'));
        const until = Date.now() + 10_000;
        while (Date.now() < until) {
          if ((await masterOf(slot).catch(() => ({ port: 0 }))).port === replicaPort) return;
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
      }
      throw new Error(`CLUSTER FAILOVER on ${replicaPort} did not make it the master of slot ${slot} in 3 tries`);
    };
    const replicaOf = async (masterPort: number): Promise<number> => {
      let port = 0;
      await eventually(
        async () => {
          const lines = (await withNode(masterPort, async (r) => String(await r.cluster('NODES')))).trim().split('\n');
          const id = lines.find((l) => l.includes('myself'))?.split(' ')[0];
          const replica = lines.find((l) => l.split(' ')[3] === id && !l.includes('fail'));
          port = Number((replica === undefined ? undefined : /:(\d+)@/.exec(replica)?.[1]) ?? 0);
          return port !== 0;
        },
        20_000,
        `a replica of the master at ${masterPort}`,
      );
      return port;
    };
    const moveSlot = async (slot: number): Promise<number> => {
      const sourcePort = (await masterOf(slot)).port;
      const masters = (await slotsOf(sourcePort)).map((r) => Number(r[2][1]));
      const targetPort = masters.find((p) => p !== sourcePort);
      if (targetPort === undefined) throw new Error('no other master to move the slot to');
      const [sourceId, targetId] = await Promise.all([sourcePort, targetPort].map((port) => withNode(port, async (r) => String(await r.cluster('MYID')))));
      await withNode(targetPort, (r) => r.cluster('SETSLOT', slot, 'IMPORTING', sourceId!));
      await withNode(sourcePort, async (r) => {
        await r.cluster('SETSLOT', slot, 'MIGRATING', targetId!);
        for (;;) {
          const keys = await r.cluster('GETKEYSINSLOT', slot, 100);
          if (keys.length === 0) break;
          await r.migrate('127.0.0.1', targetPort, '', 0, 5_000, 'KEYS', ...keys);
        }
      });
      for (const port of new Set(masters)) await withNode(port, (r) => r.cluster('SETSLOT', slot, 'NODE', targetId!));
      await eventually(async () => (await masterOf(slot).catch(() => ({ port: 0 }))).port === targetPort, 20_000, `every node to see slot ${slot} moved`);
      return targetPort;
    };
    return {
      nodes,
      startupNodes,
      masterOf,
      failOver,
      replicaOf,
      moveSlot,
      // One entry per master: after a slot was moved (moveSlot) a master may serve several ranges.
      masters: async () => [...new Set((await slotsOf(nodes.find((n) => n.running)?.port ?? 0)).map((r) => Number(r[2][1])))],
      stop: async () => {
        await Promise.all(nodes.map((n) => n.stop()));
      },
    };
  } catch (error) {
    await Promise.all(nodes.map((n) => n.stop()));
    throw error;
  }
}
