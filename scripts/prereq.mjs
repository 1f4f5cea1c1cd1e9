// Prerequisite step run before the demo, the benchmarks and the tests: makes sure a Redis can be had.
// REDIS_URL set → nothing to do. `redis-server` on PATH → fine. Missing: installed with apt-get when we
// are root on a Debian-like machine; otherwise a Docker that runs is enough (the test harness then uses
// testcontainers); otherwise stop at once with a one-line install hint.
import { spawnSync } from 'node:child_process';

const ok = (cmd, args) => spawnSync(cmd, args, { stdio: 'ignore' }).status === 0;

if (process.env.REDIS_URL) process.exit(0);
if (ok('redis-server', ['--version'])) process.exit(0);

const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
if (isRoot && ok('apt-get', ['--version'])) {
  console.error('prereq: redis-server missing, installing the Debian package redis-server…');
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  const update = spawnSync('apt-get', ['update', '-qq'], { stdio: 'inherit', env });
  const install = update.status === 0 && spawnSync('apt-get', ['install', '-y', '-qq', 'redis-server'], { stdio: 'inherit', env });
  if (install && install.status === 0 && ok('redis-server', ['--version'])) process.exit(0);
  console.error('prereq: apt-get could not install redis-server');
}
if (ok('docker', ['info'])) {
  console.error('prereq: no redis-server binary; tests will use Docker (testcontainers)');
  process.exit(0);
}
console.error('prereq: redis-server not found: install it (Debian/Ubuntu: sudo apt-get install redis-server; macOS: brew install redis) or set REDIS_URL=redis://host:port');
process.exit(1);
