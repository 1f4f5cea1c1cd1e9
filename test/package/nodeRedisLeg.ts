// Setup file of node-redis.config.ts: the run only counts if Redisson.create really goes through node-redis.
import { NODE_REDIS_LEG } from '../support/driverLeg.js';
import { createRequire } from 'node:module';

if (!NODE_REDIS_LEG) throw new Error('REDISSON_TEST_DRIVER=node-redis is not set: run with npm run test:node-redis');
const { version } = createRequire(import.meta.url)('redis/package.json') as { version: string };
console.log(`node-redis under test: redis ${version}`);
