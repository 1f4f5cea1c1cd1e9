// Setup file of ioredis-lowest.config.ts: the run only counts if `ioredis` really is the aliased copy.
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { Redis } from 'ioredis';

const dir = process.env['IOREDIS_DIR'];
if (dir === undefined) throw new Error('IOREDIS_DIR is not set: run with -c test/package/ioredis-lowest.config.ts');
const load = createRequire(join(dir, 'package.json'));
const { version } = load('./package.json') as { version: string };
const aliased = load('./built/index.js') as { default: unknown };
if (typeof Redis !== 'function' || aliased.default !== Redis) throw new Error(`\`ioredis\` did not resolve to ${dir}`);
console.log(`ioredis under test: ${version} (${dir})`);
