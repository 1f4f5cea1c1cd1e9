// The node-redis driver legs (`npm run test:node-redis`, `npm run test:node-redis5`, through
// scripts/driver-leg.mjs): the files of the ioredis legs (test/package/ioredis6.config.ts), with every
// `Redisson.create` of the suites and of the processes they fork connecting through node-redis (`{ driver:
// 'node-redis', url }`): REDISSON_TEST_DRIVER=node-redis and test/support/driverLeg.ts. node-redis 6 (the `redis`
// devDependency, RESP3 by default) unless NODE_REDIS_DIR names another copy (the node-redis 5 leg: `redis-5`, whose
// `redis` import is aliased here, in this process only). The tests' own raw connections stay on ioredis 5.
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import legs, { DRIVER_LEG_FILES } from './ioredis6.config.js';

process.env['REDISSON_TEST_DRIVER'] = 'node-redis';
const nodeRedisDir = process.env['NODE_REDIS_DIR'];
const aliases = (legs.resolve?.alias ?? []) as { find: RegExp; replacement: string }[];

export default defineConfig({
  ...legs,
  resolve: { alias: [...aliases, ...(nodeRedisDir ? [{ find: /^redis$/, replacement: nodeRedisDir }] : [])] },
  test: {
    ...legs.test,
    // Its own driver file, the keyspace-notification listeners (pattern subscriptions on node-redis), and the
    // Sentinel suites (ioredis' Sentinel options become `{ driver: 'node-redis', sentinel }`), and the Cluster files
    // (`{ clusterNodes }` as `{ driver: 'node-redis', cluster }`), both through test/support/driverLeg.ts.
    include: [
      ...Object.values(DRIVER_LEG_FILES).flat(),
      'test/drivers/nodeRedis.test.ts',
      'test/objects/RObject.listeners.test.ts',
      'test/sentinel/*.test.ts',
      'test/cluster/*.test.ts',
      'test/objects/RObject.cluster.test.ts',
    ],
    setupFiles: [...(legs.test?.setupFiles as string[]), fileURLToPath(new URL('./nodeRedisLeg.ts', import.meta.url))],
  },
});
