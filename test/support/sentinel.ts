/**
 * A Sentinel deployment for tests, spawned from the `redis-server` binary (no Docker): one master, two
 * replicas (`--replicaof`) and three Sentinels (`redis-server <conf> --sentinel`) monitoring the master with
 * quorum 2 and a 1 s down-after, so a killed master is replaced within seconds. Always torn down by `stop()`.
 */
import { Redis } from 'ioredis';
import { RedisServerProcess } from '../../packages/cli/src/RedisServerProcess.js';
import { eventually } from './poll.js';

export const MASTER_NAME = 'mymaster';

export interface SentinelSet {
  readonly masterName: string;
  /** The first master; after a failover, one of the replicas is. */
  readonly master: RedisServerProcess;
  readonly replicas: readonly RedisServerProcess[];
  readonly sentinels: readonly RedisServerProcess[];
  /** What ioredis' `sentinels` option takes. */
  readonly sentinelAddresses: readonly { host: string; port: number }[];
  /** The ioredis options of a client of this deployment. */
  redisOptions(): { sentinels: { host: string; port: number }[]; name: string; sentinelRetryStrategy: () => number };
  /** The port Sentinel reports for the master now. */
  masterPort(): Promise<number>;
  stop(): Promise<void>;
}

/** Starts master, replicas and Sentinels, and resolves once both replicas are in sync and every Sentinel sees them. */
export async function startSentinelSet(): Promise<SentinelSet> {
  const started: RedisServerProcess[] = [];
  try {
    const master = await RedisServerProcess.start();
    started.push(master);
    const replicas = await Promise.all([0, 1].map(() => RedisServerProcess.start({ args: ['--replicaof', '127.0.0.1', String(master.port)] })));
    started.push(...replicas);
    const config = [
      `sentinel monitor ${MASTER_NAME} 127.0.0.1 ${master.port} 2`,
      `sentinel down-after-milliseconds ${MASTER_NAME} 1000`,
      `sentinel failover-timeout ${MASTER_NAME} 5000`,
      `sentinel parallel-syncs ${MASTER_NAME} 2`,
      '',
    ].join('\n');
    const sentinels = await Promise.all([0, 1, 2].map(() => RedisServerProcess.start({ sentinelConfig: config })));
    started.push(...sentinels);
    const sentinelAddresses = sentinels.map((s) => ({ host: '127.0.0.1', port: s.port }));
    const probe = new Redis({ port: master.port, lazyConnect: true });
    try {
      // Connected is not enough: a replica still loading its first copy does not acknowledge writes yet.
      await eventually(async () => ((await probe.info('replication')).match(/^slave\d+:.*state=online/gm) ?? []).length === 2, 20_000, 'both replicas online');
    } finally {
      probe.disconnect();
    }
    const ask = async (port: number, ...args: string[]): Promise<unknown> => {
      const r = new Redis({ port, lazyConnect: true });
      try {
        return await r.call('SENTINEL', ...args);
      } finally {
        r.disconnect();
      }
    };
    await eventually(
      async () => {
        for (const s of sentinels) {
          const replicasSeen = (await ask(s.port, 'REPLICAS', MASTER_NAME)) as unknown[];
          const others = (await ask(s.port, 'SENTINELS', MASTER_NAME)) as unknown[];
          if (replicasSeen.length < 2 || others.length < 2) return false;
        }
        return true;
      },
      20_000,
      'every Sentinel to know both replicas and the other Sentinels',
    );
    return {
      masterName: MASTER_NAME,
      master,
      replicas,
      sentinels,
      sentinelAddresses,
      redisOptions: () => ({ sentinels: sentinelAddresses.map((a) => ({ ...a })), name: MASTER_NAME, sentinelRetryStrategy: () => 100 }),
      masterPort: async () => Number(((await ask(sentinels[0]!.port, 'GET-MASTER-ADDR-BY-NAME', MASTER_NAME)) as string[])[1]),
      stop: async () => {
        await Promise.all(started.map((p) => p.stop()));
      },
    };
  } catch (error) {
    await Promise.all(started.map((p) => p.stop()));
    throw error;
  }
}
