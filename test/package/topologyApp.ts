/**
 * The app of driversTopology.test.ts, as a user writes it after `npm install redisson-ts <driver>` against a
 * Redis Cluster or a Sentinel deployment: two clients, the holder given an instance of the driver's own
 * (ioredis `Cluster` / `Redis` with `sentinels`, node-redis `createCluster()` / `createSentinel()`), the waiter
 * made by Redisson from options (`{ clusterNodes }` / `{ sentinels, name }`, `{ driver: 'node-redis', cluster }` /
 * `{ driver: 'node-redis', sentinel }`). For a lock, a semaphore and a fair lock the waiter parks on the
 * primitive's channel until the holder releases, so the wake-up travels through that topology's pub/sub
 * (sharded on a Cluster whose servers have it). Prints one JSON line ({@link TopologyAppReport}).
 *
 * Environment: `TOPOLOGY` (`cluster` | `sentinel`), `ROOT_NODES` (JSON `[{ host, port }]`: the cluster's nodes or
 * the Sentinels), `MASTER_NAME` (Sentinel), `DATA_PORTS` (JSON: every data node's port, asked who is subscribed),
 * `LOCK_NAME`.
 */
import { HAND_OFFS_SOURCE, type AppDriver } from './driverApp.js';

export type Topology = 'cluster' | 'sentinel';

/** What the app prints. */
export interface TopologyAppReport {
  driver: AppDriver;
  topology: Topology;
  /** Each primitive: the waiter got it after the holder released it, and the data is gone after. */
  woken: { lock: boolean; semaphore: boolean; fairLock: boolean };
}

export const TOPOLOGY_APP = 'topology.mjs';

/** The app's source for `driver` (ioredis or node-redis) on either topology. */
export function topologyAppSource(driver: Exclude<AppDriver, 'iovalkey'>): string {
  const setup =
    driver === 'redis'
      ? `import { createClient, createCluster, createSentinel } from 'redis';
const probe = async (port) => createClient({ url: 'redis://127.0.0.1:' + port }).connect();
const call = (client, ...args) => client.sendCommand(args.map(String));
const close = (client) => client.destroy();
const given = topology === 'cluster'
  ? createCluster({ rootNodes: rootNodes.map(({ host, port }) => ({ url: 'redis://' + host + ':' + port })) })
  : createSentinel({ name: masterName, sentinelRootNodes: rootNodes });
const options = topology === 'cluster'
  ? { driver: 'node-redis', cluster: { rootNodes: rootNodes.map(({ host, port }) => ({ url: 'redis://' + host + ':' + port })) } }
  : { driver: 'node-redis', sentinel: { name: masterName, sentinelRootNodes: rootNodes } };`
      : `import { Cluster, Redis } from 'ioredis';
const probe = async (port) => new Redis({ port });
const call = (client, ...args) => client.call(...args);
const close = (client) => client.disconnect();
const given = topology === 'cluster' ? new Cluster(rootNodes) : new Redis({ sentinels: rootNodes, name: masterName });
const options = topology === 'cluster' ? { clusterNodes: rootNodes } : { sentinels: rootNodes, name: masterName };`;
  return `import { Redisson } from 'redisson-ts';
const topology = String(process.env.TOPOLOGY);
const rootNodes = JSON.parse(String(process.env.ROOT_NODES));
const masterName = String(process.env.MASTER_NAME);
const dataPorts = JSON.parse(String(process.env.DATA_PORTS));
const name = String(process.env.LOCK_NAME);
${setup}
const probes = await Promise.all(dataPorts.map(probe));
const holder = Redisson.create({ redis: given });
const waiter = Redisson.create({ redis: options });

// Resolves once someone is subscribed, on any data node (classic or sharded), to a channel naming \`key\`.
async function parked(key) {
  for (let i = 0; i < 3000; i++) {
    for (const p of probes) {
      for (const kind of ['CHANNELS', 'SHARDCHANNELS']) {
        if ((await call(p, 'PUBSUB', kind, '*' + key + '*')).length > 0) return;
      }
    }
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error('nobody subscribed for ' + key);
}

// Whether \`key\` exists on any data node (a replica holds a copy of its master's keys: either answers; a cluster
// node not serving the key's slot answers MOVED, which says it is not there).
async function exists(key) {
  for (const p of probes) {
    const found = await call(p, 'EXISTS', key).catch((e) => (/^MOVED /.test(String(e?.message)) ? 0 : Promise.reject(e)));
    if (Number(found) === 1) return true;
  }
  return false;
}

try {
${HAND_OFFS_SOURCE}
  console.log(JSON.stringify({ driver: '${driver}', topology, woken: { lock, semaphore, fairLock } }));
} finally {
  await Promise.all([holder.shutdown(), waiter.shutdown()]);
  for (const p of probes) close(p);
  close(given);
}
`;
}
