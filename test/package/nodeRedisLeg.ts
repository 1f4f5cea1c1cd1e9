// Setup file of node-redis.config.ts: the run only counts if Redisson.create really goes through node-redis, and
// (NODE_REDIS_DIR) if `redis` really is the copy named there.
import { createRequire } from 'node:module';
import { join } from 'node:path';
import * as redis from 'redis';
import { NODE_REDIS_LEG } from '../support/driverLeg.js';

if (!NODE_REDIS_LEG) throw new Error('REDISSON_TEST_DRIVER=node-redis is not set: run with npm run test:node-redis');
const dir = process.env['NODE_REDIS_DIR'];
const load = createRequire(dir === undefined ? import.meta.url : join(dir, 'package.json'));
const { version } = load(dir === undefined ? 'redis/package.json' : './package.json') as { version: string };
if (dir !== undefined && (load('./dist/index.js') as typeof redis).createClient !== redis.createClient) throw new Error(`\`redis\` did not resolve to ${dir}`);
console.log(`node-redis under test: redis ${version}${dir === undefined ? '' : ` (${dir})`}`);
