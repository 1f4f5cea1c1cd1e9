// Setup file of ioredis-lowest.config.ts and ioredis6.config.ts: the run only counts if `ioredis` really
// is the aliased copy, and (REDIS_PROTOCOL, ioredis 6+) if that copy defaults to the protocol asked for.
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { Redis } from 'ioredis';

const dir = process.env['IOREDIS_DIR'];
if (dir === undefined) throw new Error('IOREDIS_DIR is not set: run with -c test/package/ioredis-lowest.config.ts');
const load = createRequire(join(dir, 'package.json'));
const { name, version } = load('./package.json') as { name: string; version: string };
const aliased = load('./built/index.js') as { default: unknown };
if (typeof Redis !== 'function' || aliased.default !== Redis) throw new Error(`\`ioredis\` did not resolve to ${dir}`);
const protocol = process.env['REDIS_PROTOCOL'];
if (protocol !== undefined) {
  // Normally set by test/support/ioredisSwap.mjs (NODE_OPTIONS); set here too for a vitest run without it.
  const defaults = (Redis as unknown as { defaultOptions: { protocol?: number } }).defaultOptions;
  if (Number(version.split('.')[0]) < 6) throw new Error(`REDIS_PROTOCOL=${protocol} needs ioredis 6+, not ${version}`);
  defaults.protocol = Number(protocol);
}
console.log(`ioredis under test: ${name} ${version} (${dir})${protocol === undefined ? '' : `, protocol ${protocol}`}`);
