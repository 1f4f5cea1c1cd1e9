// One driver leg of the test matrix (issue 25): `node scripts/driver-leg.mjs <leg> [--fast] [vitest args…]`.
// Legs: `ioredis6` (ioredis 6.1.0, its default RESP3), `ioredis6-resp2` (the same with protocol 2) and
// `iovalkey` (iovalkey, the Valkey fork of ioredis 5: RESP2 only, every `ioredis` import resolves to it, so
// it is both the client the tests hand to `Redisson.create` and the one Redisson builds from a URL).
// Every Node process of the leg uses the leg's ioredis (IOREDIS_DIR, REDIS_PROTOCOL, and
// test/support/ioredisSwap.mjs through NODE_OPTIONS for the processes tests fork). Three parts, each timed:
// the behaviour suites (test/package/ioredis6.config.ts), the fault suite's CLIENT KILL and restart rows,
// and the Java 4.7.0 interop rows of RLock, FairLock, ReadWriteLock, Semaphore and CountDownLatch.
// Exits non-zero when any part fails (every part runs regardless).
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const LEGS = {
  ioredis6: { dir: 'node_modules/ioredis-6', protocol: undefined },
  'ioredis6-resp2': { dir: 'node_modules/ioredis-6', protocol: '2' },
  // Always the fast behaviour subset (no script files): iovalkey parses replies with the same redis-parser 3
  // as ioredis 5, and a script's reply does not depend on the client (driver.test.ts pins the shapes on it).
  iovalkey: { dir: 'node_modules/iovalkey', protocol: undefined, scripts: false },
};
// --fast: the subset to fall back on when CI time is short — no script files (a script's reply does not
// depend on the protocol: test/package/driver.test.ts pins the shapes) and no interop part (the data written
// does not either; `npm test` runs the interop suite on RESP2). It saves about a third of a leg's time.
const args = process.argv.slice(2);
const [leg, ...extra] = args.filter((a) => a !== '--fast');
const spec = LEGS[leg];
const fast = args.includes('--fast');
if (!spec) {
  console.error(`usage: node scripts/driver-leg.mjs <${Object.keys(LEGS).join('|')}> [--fast] [vitest args…]`);
  process.exit(2);
}
const CONFIG = 'test/package/ioredis6.config.ts';
const INTEROP_ROWS = String.raw`redis-server (wake-[a-z]+|queries|non-owner-unlock|reentrancy|force-unlock|watchdog|crash|load|shared-object|wire|rw-[a-z-]+|fair-[a-z]+|sem-[a-z]+|latch-[a-z]+) \[`;
const PARTS = [
  {
    name: 'behaviour',
    args: ['test/package/driver', 'test/locks/', 'test/sync/', 'test/pubsub/', ...(fast || spec.scripts === false ? [] : ['test/lua/']), ...(spec.exclude ? ['-t', `^(?!.*${spec.exclude})`] : [])],
  },
  { name: 'faults: CLIENT KILL, restart', args: ['test/faults/faults.history', '-t', 'CLIENT KILL|restart'] },
  { name: 'interop 4.7.0: RLock, FairLock, RW, Semaphore, latch', args: ['test/interop/rlock-4.7.0', '-t', INTEROP_ROWS] },
];

const env = {
  ...process.env,
  IOREDIS_DIR: fileURLToPath(new URL(`../${spec.dir}`, import.meta.url)),
  DRIVER_LEG: leg,
  NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --import=${fileURLToPath(new URL('../test/support/ioredisSwap.mjs', import.meta.url))}`.trim(),
};
if (spec.protocol) env.REDIS_PROTOCOL = spec.protocol;
else delete env.REDIS_PROTOCOL;

const vitest = fileURLToPath(new URL('../node_modules/vitest/vitest.mjs', import.meta.url));
const results = [];
for (const part of fast ? PARTS.filter((p) => !p.name.startsWith('interop')) : PARTS) {
  const started = Date.now();
  console.log(`== ${leg}: ${part.name}`);
  const run = spawnSync(process.execPath, [vitest, 'run', '-c', CONFIG, ...part.args, ...extra], { cwd: ROOT, env, stdio: 'inherit' });
  results.push({ part: part.name, ok: run.status === 0, seconds: Math.round((Date.now() - started) / 1000) });
}
for (const r of results) console.log(`${leg}: ${r.ok ? 'passed' : 'FAILED'} ${r.part} (${r.seconds} s)`);
console.log(`${leg}: ${results.reduce((s, r) => s + r.seconds, 0)} s in all`);
process.exit(results.every((r) => r.ok) ? 0 : 1);
