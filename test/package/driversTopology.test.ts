/**
 * The packed tarball (test/support/pack.ts) in fresh apps on a Redis Cluster and on a Sentinel deployment
 * (issue 25): `npm install <tarball> redis@<pinned 6.x>` and `… ioredis@<pinned 6.x>`, each app
 * (./topologyApp.ts) run against a six-node cluster and a master + two replicas + three Sentinels. The holder
 * is an instance of the driver's own (node-redis `createCluster()` / `createSentinel()`, ioredis `Cluster` /
 * `Redis` with `sentinels`), the waiter Redisson's own from options; a lock, a semaphore and a fair lock are
 * handed from one to the other through the topology's pub/sub. The single-server apps are drivers.test.ts'.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCluster, type TestCluster } from '../support/cluster.js';
import { packOnce } from '../support/pack.js';
import { uniqueName } from '../support/redis.js';
import { startSentinelSet, type SentinelSet } from '../support/sentinel.js';
import { cleanEnv, npmInstall, PEER_TROUBLE, run, type Result } from './appRun.js';
import { TOPOLOGY_APP, topologyAppSource, type Topology, type TopologyAppReport } from './topologyApp.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const versionOf = (pkg: string): string => (JSON.parse(readFileSync(join(ROOT, 'node_modules', pkg, 'package.json'), 'utf8')) as { version: string }).version;

const APPS = [
  { driver: 'redis', version: versionOf('redis') },
  { driver: 'ioredis', version: versionOf('ioredis-6') },
] as const;

let work = '';
let cluster: TestCluster | undefined;
let sentinel: SentinelSet | undefined;
const installs = new Map<string, Result>();

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'redisson-ts-topology-'));
  const tarball = (await packOnce(['redisson-ts']))['redisson-ts'].tarball;
  // One topology at a time: each is six redis-server processes, on two cores.
  cluster = await startCluster();
  sentinel = await startSentinelSet();
  for (const { driver, version } of APPS) {
    const project = join(work, driver);
    mkdirSync(project);
    writeFileSync(join(project, 'package.json'), JSON.stringify({ name: `topology-${driver}`, private: true, type: 'module' }));
    writeFileSync(join(project, TOPOLOGY_APP), topologyAppSource(driver));
    installs.set(driver, await npmInstall(project, [tarball, `${driver}@${version}`]));
  }
}, 300_000);

afterAll(async () => {
  await Promise.all([cluster?.stop(), sentinel?.stop()]);
  if (work) rmSync(work, { recursive: true, force: true });
});

/** The app's environment for `topology`. */
function topologyEnv(topology: Topology): Record<string, string> {
  if (topology === 'cluster') {
    const c = cluster as TestCluster;
    return { ROOT_NODES: JSON.stringify(c.startupNodes), DATA_PORTS: JSON.stringify(c.nodes.map((n) => n.port)), MASTER_NAME: '' };
  }
  const s = sentinel as SentinelSet;
  return {
    ROOT_NODES: JSON.stringify(s.sentinelAddresses),
    DATA_PORTS: JSON.stringify([s.master, ...s.replicas].map((n) => n.port)),
    MASTER_NAME: s.masterName,
  };
}

describe.each(APPS)('a fresh app: npm install <tarball> $driver@$version', ({ driver }) => {
  it('installs with no ERESOLVE and no peer-dependency warning', () => {
    const install = installs.get(driver) as Result;
    expect(install.code, install.stderr).toBe(0);
    expect(`${install.stdout}\n${install.stderr}`).not.toMatch(PEER_TROUBLE);
  });

  it.each(['cluster', 'sentinel'] as const)('on a %s: hands a lock, a semaphore and a fair lock from a client given to one made from options', async (topology) => {
    const { code, stdout, stderr } = await run(process.execPath, [TOPOLOGY_APP], join(work, driver), cleanEnv({ TOPOLOGY: topology, LOCK_NAME: uniqueName(`topology-${driver}`), ...topologyEnv(topology) }));
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
    const report = JSON.parse(stdout.trim().split('\n').at(-1) ?? '') as TopologyAppReport;
    expect(report).toEqual({ driver, topology, woken: { lock: true, semaphore: true, fairLock: true } });
  });
});
