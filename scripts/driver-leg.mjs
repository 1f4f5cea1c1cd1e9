// One driver leg of the test matrix (issue 25): `node scripts/driver-leg.mjs <leg> [--fast] [vitest args…]`.
// Legs: `ioredis6` (ioredis 6.1.0, its default RESP3), `ioredis6-resp2` (the same with protocol 2) and
// `iovalkey` (iovalkey, the Valkey fork of ioredis 5: RESP2 only, every `ioredis` import resolves to it, so
// it is both the client the tests hand to `Redisson.create` and the one Redisson builds from a URL), `node-redis`
// (node-redis 6 through `{ driver: 'node-redis', url }`, see its entry) and `node-redis5` (its behaviour part).
// Every Node process of the leg uses the leg's ioredis (IOREDIS_DIR, REDIS_PROTOCOL, and
// test/support/ioredisSwap.mjs through NODE_OPTIONS for the processes tests fork). Three parts, each timed:
// the behaviour suites (test/package/ioredis6.config.ts), the fault suite's CLIENT KILL and restart rows,
// and the Java 4.7.0 interop rows of RLock, FairLock, ReadWriteLock, Semaphore and CountDownLatch.
// Exits non-zero when any part fails (every part runs regardless).
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { countByTopology, RESULTS_DIR } from './driver-matrix.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
// Rows of the node-redis leg that cannot apply to it, by name (a regex on vitest's full test names):
const NODE_REDIS_EXCLUDED = [
  // ioredis' keyPrefix (node-redis 6's applies to typed commands only, and the driver refuses it: use nameMapper)
  'keyPrefix',
  // it reaches into ioredis' Cluster (`nodes('master')`, a node's `commandQueue` and `stream`) to drop a socket with
  // the script and WAIT written; node-redis never re-sends a written command (the driver writes each on the slot
  // master's node client), which test/drivers/nodeRedis.test.ts's CLIENT KILL rows check
  'a synced acquire whose connection drops after the script ran is not run twice',
  // they destroy ioredis' socket under a command (`client.redis.stream`); test/drivers/nodeRedis.test.ts kills
  // node-redis' connections with CLIENT KILL instead
  'testAcquireNotReplayedAfterConnectionDrop',
  'testUnlockReplayedAfterConnectionDrop',
  // node-redis re-subscribes every channel it held by itself on reconnect (it cannot be turned off); the driver
  // unsubscribes a channel nobody waits on right after `ready`, but the SUBSCRIBE this row counts was sent
  'a dropped subscriber connection ends every linger',
]
  .map((row) => `(?:${row})`)
  .join('|');
const LEGS = {
  ioredis6: { dir: 'node_modules/ioredis-6', protocol: undefined, label: 'RESP3 (its default)' },
  'ioredis6-resp2': { dir: 'node_modules/ioredis-6', protocol: '2', label: 'RESP2 (`protocol: 2`)' },
  // Always the fast behaviour subset (no script files): iovalkey parses replies with the same redis-parser 3
  // as ioredis 5, and a script's reply does not depend on the client (driver.test.ts pins the shapes on it).
  iovalkey: { dir: 'node_modules/iovalkey', protocol: undefined, scripts: false, label: 'RESP2 (its only one)' },
  // node-redis 6 (`redis` 6.4.0, RESP3 by default): every Redisson.create of the suites, and of the processes they
  // fork, connects through it (REDISSON_TEST_DRIVER, test/support/driverLeg.ts); the tests' own raw connections
  // stay on ioredis 5.
  'node-redis': {
    dir: 'node_modules/ioredis',
    driverDir: 'node_modules/redis',
    protocol: undefined,
    label: 'RESP3 (its default)',
    config: 'test/package/node-redis.config.ts',
    env: { REDISSON_TEST_DRIVER: 'node-redis' },
    // its own driver file instead of test/package/driver.test.ts (which checks ioredis copies), the
    // keyspace-notification listeners (pattern subscriptions, re-subscribed by node-redis too), the Sentinel suites
    // (through `createSentinel`) and the Cluster files (`{ clusterNodes }` as `{ driver: 'node-redis', cluster }`):
    // test/support/driverLeg.ts
    driverFiles: ['test/drivers/nodeRedis', 'test/objects/RObject.listeners', 'test/sentinel/', 'test/cluster/', 'test/objects/RObject.cluster'],
    exclude: NODE_REDIS_EXCLUDED,
  },
  // node-redis 5 (`redis-5`, 5.12.4, RESP2 by default): the behaviour part only, in vitest's process (the `redis`
  // import aliased; the processes the fault and interop parts fork would load node-redis 6). Its own driver
  // file is not in it: test/drivers/nodeRedis.test.ts runs on 5.12.4 and 6.4.0 in every leg and `npm test`.
  'node-redis5': {
    dir: 'node_modules/ioredis',
    driverDir: 'node_modules/redis-5',
    protocol: undefined,
    label: 'RESP2 (its default)',
    config: 'test/package/node-redis.config.ts',
    env: { REDISSON_TEST_DRIVER: 'node-redis', NODE_REDIS_DIR: fileURLToPath(new URL('../node_modules/redis-5', import.meta.url)) },
    driverFiles: ['test/objects/RObject.listeners', 'test/sentinel/', 'test/cluster/', 'test/objects/RObject.cluster'],
    exclude: NODE_REDIS_EXCLUDED,
    parts: ['behaviour'],
  },
};
// --fast: the subset to fall back on when CI time is short — no script files (a script's reply does not
// depend on the protocol: test/package/driver.test.ts pins the shapes) and no interop part (the data written
// does not either; `npm test` runs the interop suite on RESP2). It saves about a third of a leg's time.
// --driver-files: the behaviour part on the leg's own driver files only (for node-redis 5: the Sentinel and Cluster
// suites, where its internals differ from 6's), the subset .ci/run runs beside the node-redis 6 leg.
const args = process.argv.slice(2);
const [leg, ...extra] = args.filter((a) => a !== '--fast' && a !== '--driver-files');
const spec = LEGS[leg];
const fast = args.includes('--fast');
const driverFilesOnly = args.includes('--driver-files');
if (!spec) {
  console.error(`usage: node scripts/driver-leg.mjs <${Object.keys(LEGS).join('|')}> [--fast] [--driver-files] [vitest args…]`);
  process.exit(2);
}
const CONFIG = spec.config ?? 'test/package/ioredis6.config.ts';
const INTEROP_ROWS = String.raw`redis-server (wake-[a-z]+|queries|non-owner-unlock|reentrancy|force-unlock|watchdog|crash|load|shared-object|wire|rw-[a-z-]+|fair-[a-z]+|sem-[a-z]+|latch-[a-z]+) \[`;
const PARTS = [
  {
    name: 'behaviour',
    args: [...(spec.driverFiles ?? ['test/package/driver']), ...(driverFilesOnly ? [] : ['test/locks/', 'test/sync/', 'test/pubsub/']), ...(fast || driverFilesOnly || spec.scripts === false ? [] : ['test/lua/']), ...(spec.exclude ? ['-t', `^(?!.*(?:${spec.exclude}))`] : [])],
  },
  { name: 'faults: CLIENT KILL, restart', args: ['test/faults/faults.history', '-t', spec.exclude ? `^(?!.*(?:${spec.exclude})).*(CLIENT KILL|restart)` : 'CLIENT KILL|restart'] },
  { name: 'interop 4.7.0: RLock, FairLock, RW, Semaphore, latch', args: ['test/interop/rlock-4.7.0', '-t', spec.exclude ? `^(?!.*(?:${spec.exclude})).*${INTEROP_ROWS}` : INTEROP_ROWS] },
];

const env = {
  ...process.env,
  IOREDIS_DIR: fileURLToPath(new URL(`../${spec.dir}`, import.meta.url)),
  DRIVER_LEG: leg,
  ...spec.env,
  NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --import=${fileURLToPath(new URL('../test/support/ioredisSwap.mjs', import.meta.url))}`.trim(),
};
if (spec.protocol) env.REDIS_PROTOCOL = spec.protocol;
else delete env.REDIS_PROTOCOL;

const vitest = fileURLToPath(new URL('../node_modules/vitest/vitest.mjs', import.meta.url));
// Each part also writes vitest's JSON report, counted by topology into the leg's results file (the driver
// matrix of COMPATIBILITY.md, scripts/driver-matrix.mjs) when the leg ran whole: not `--fast`, no filters.
const reports = mkdtempSync(join(tmpdir(), `driver-leg-${leg}-`));
const REPORTERS = ['--reporter=default', '--reporter=./test/support/summaryReporter.ts', '--reporter=json'];
const results = [];
const partsRun = PARTS.filter((p) => (spec.parts ? spec.parts.includes(p.name) : true) && !(fast && p.name.startsWith('interop')) && !(driverFilesOnly && p.name !== 'behaviour'));
for (const [i, part] of partsRun.entries()) {
  const started = Date.now();
  console.log(`== ${leg}: ${part.name}`);
  const report = join(reports, `${i}.json`);
  const run = spawnSync(process.execPath, [vitest, 'run', '-c', CONFIG, ...REPORTERS, `--outputFile.json=${report}`, ...part.args, ...extra], { cwd: ROOT, env, stdio: 'inherit' });
  let counts = null;
  try {
    counts = countByTopology(JSON.parse(readFileSync(report, 'utf8')));
  } catch {
    // No report (vitest did not start): the part failed, its exit status says so.
  }
  results.push({ part: part.name, ok: run.status === 0, seconds: Math.round((Date.now() - started) / 1000), counts });
}
rmSync(reports, { recursive: true, force: true });
for (const r of results) console.log(`${leg}: ${r.ok ? 'passed' : 'FAILED'} ${r.part} (${r.seconds} s)`);
console.log(`${leg}: ${results.reduce((s, r) => s + r.seconds, 0)} s in all`);
// Worker counts do not change what ran; any other argument (a file, a `-t` filter) makes the run partial.
const partial = extra.some((a) => !/^--(max|min)Workers(=|$)/.test(a) && !/^\d+$/.test(a));
if (!fast && !driverFilesOnly && !partial) {
  const pkg = JSON.parse(readFileSync(join(spec.driverDir ? fileURLToPath(new URL(`../${spec.driverDir}`, import.meta.url)) : env.IOREDIS_DIR, 'package.json'), 'utf8'));
  mkdirSync(RESULTS_DIR, { recursive: true });
  const record = {
    leg,
    driver: pkg.name,
    version: pkg.version,
    protocol: spec.label,
    command: `npm run test:${leg}`,
    parts: results.map((r) => ({ part: r.part, ok: r.ok, counts: r.counts })),
  };
  writeFileSync(join(RESULTS_DIR, `${leg}.json`), `${JSON.stringify(record, null, 2)}\n`);
  console.log(`${leg}: results written to ${join(RESULTS_DIR, `${leg}.json`)} (render them: npm run driver:matrix)`);
}
process.exit(results.every((r) => r.ok) ? 0 : 1);
