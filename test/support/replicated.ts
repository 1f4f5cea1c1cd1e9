/**
 * A replicated group for tests, spawned from the `redis-server` binary (no Docker, no Sentinel): a master and
 * two replicas (`--replicaof`). A promotion is done by hand, as a managed service's failover would: `REPLICAOF
 * NO ONE` on a replica, then `REPLICAOF` to it on every other node. Always torn down by `stop()`.
 */
import { Redis } from 'ioredis';
import { RedisServerProcess } from '../../packages/cli/src/RedisServerProcess.js';
import { eventually } from './poll.js';

export interface ReplicatedSet {
  /** The three nodes, the first master first. */
  readonly nodes: readonly RedisServerProcess[];
  /** `redis://127.0.0.1:<port>` of every node. */
  readonly addresses: readonly string[];
  /** The node that is master now (after {@link promote}, the promoted one). */
  master(): RedisServerProcess;
  /** The nodes that replicate the master now. */
  replicas(): RedisServerProcess[];
  /**
   * Makes `node` the master; resolves once both others replicate it. By default `REPLICAOF NO ONE` on it, then the
   * others re-pointed: two nodes say `master` in between (for a few ms). `demote-first`
   * re-points the others first, so that no two nodes ever say `master` at once (none does for a moment): Java
   * Redisson switches back and forth while two do (COMPATIBILITY.md, replicated deployments).
   */
  promote(node: RedisServerProcess, options?: { readonly order?: 'promote-first' | 'demote-first' }): Promise<void>;
  /** A direct connection to `node` (closed by `stop()`). */
  direct(node: RedisServerProcess): Redis;
  stop(): Promise<void>;
}

/** Resolves once `master` reports `count` replicas online. */
export async function replicasOnline(master: Redis, count: number): Promise<void> {
  await eventually(async () => ((await master.info('replication')).match(/^slave\d+:.*state=online/gm) ?? []).length === count, 20_000, `${count} replicas online`);
}

/** Starts a master and two replicas, and resolves once both replicas are in sync. */
export async function startReplicatedSet(): Promise<ReplicatedSet> {
  const started: RedisServerProcess[] = [];
  const raws: Redis[] = [];
  const direct = (node: RedisServerProcess): Redis => {
    const r = new Redis({ port: node.port, maxRetriesPerRequest: 1, lazyConnect: true });
    r.on('error', () => undefined);
    raws.push(r);
    return r;
  };
  const stop = async (): Promise<void> => {
    for (const r of raws) r.disconnect();
    await Promise.all(started.map((p) => p.stop()));
  };
  try {
    const first = await RedisServerProcess.start();
    started.push(first);
    const replicas = await Promise.all([0, 1].map(() => RedisServerProcess.start({ args: ['--replicaof', '127.0.0.1', String(first.port)] })));
    started.push(...replicas);
    await replicasOnline(direct(first), 2);
    let master = first;
    return {
      nodes: started,
      addresses: started.map((n) => `redis://127.0.0.1:${n.port}`),
      master: () => master,
      replicas: () => started.filter((n) => n !== master),
      async promote(node, options = {}) {
        const others = started.filter((n) => n !== node);
        const repoint = async (): Promise<void> => {
          for (const other of others) await direct(other).call('REPLICAOF', '127.0.0.1', String(node.port));
        };
        if (options.order === 'demote-first') {
          await repoint();
          await direct(node).call('REPLICAOF', 'NO', 'ONE');
        } else {
          await direct(node).call('REPLICAOF', 'NO', 'ONE');
          await repoint();
        }
        master = node;
        await replicasOnline(direct(node), 2);
      },
      direct,
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}
