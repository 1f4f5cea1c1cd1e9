// The node-redis driver leg (`npm run test:node-redis`, through scripts/driver-leg.mjs): the files of the ioredis
// legs (test/package/ioredis6.config.ts), with every `Redisson.create` of the suites and of the processes they
// fork connecting through node-redis 6 (`redis` 6.4.0, RESP3 by default): REDISSON_TEST_DRIVER=node-redis and
// test/support/driverLeg.ts. The tests' own raw connections stay on ioredis 5 (IOREDIS_DIR).
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import legs, { DRIVER_LEG_FILES } from './ioredis6.config.js';

process.env['REDISSON_TEST_DRIVER'] = 'node-redis';

export default defineConfig({
  ...legs,
  test: {
    ...legs.test,
    // Its own driver file, and the keyspace-notification listeners (pattern subscriptions on node-redis).
    include: [...Object.values(DRIVER_LEG_FILES).flat(), 'test/drivers/nodeRedis.test.ts', 'test/objects/RObject.listeners.test.ts'],
    setupFiles: [...(legs.test?.setupFiles as string[]), fileURLToPath(new URL('./nodeRedisLeg.ts', import.meta.url))],
  },
});
