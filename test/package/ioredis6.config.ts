// The driver legs for ioredis 6 (`npm run test:ioredis6`, `npm run test:ioredis6-resp2`, both through
// scripts/driver-leg.mjs): every `ioredis` import of the source and the tests resolves to the `ioredis-6`
// alias package (IOREDIS_DIR points at another copy when probing versions). The protocol is the driver's
// default (RESP3, HELLO 3) unless REDIS_PROTOCOL says 2; test/support/ioredisSwap.mjs applies both to the
// processes tests fork, and ioredisGuard.ts fails the run if either did not take.
// The iovalkey leg (`npm run test:iovalkey`) uses this config too, with IOREDIS_DIR at node_modules/iovalkey.
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import base from '../../vitest.config.js';

const dir = process.env['IOREDIS_DIR'] ?? fileURLToPath(new URL('../../node_modules/ioredis-6', import.meta.url));
process.env['IOREDIS_DIR'] = dir;

/** The files of a leg; scripts/driver-leg.mjs runs them in three parts (name filters on the last two). */
export const DRIVER_LEG_FILES = {
  behaviour: [
    'test/package/driver.test.ts',
    'test/locks/RLock.test.ts',
    'test/locks/RLock.connection.test.ts',
    'test/locks/RLock.faults.test.ts',
    'test/locks/FairLock.test.ts',
    'test/locks/ReadWriteLock.test.ts',
    'test/locks/RedissonFencedLock.test.ts',
    'test/locks/RedissonNonReentrantLock.test.ts',
    'test/locks/RedissonSpinLock.test.ts',
    'test/sync/RSemaphore.test.ts',
    'test/sync/RCountDownLatch.test.ts',
    'test/sync/RPermitExpirableSemaphore.test.ts',
    'test/pubsub/PublishSubscribe.test.ts',
    'test/pubsub/linger.test.ts',
    'test/pubsub/passOn.test.ts',
    'test/lua/*.test.ts',
  ],
  faults: ['test/faults/faults.history.test.ts'],
  interop: ['test/interop/rlock-4.7.0.test.ts'],
};

export default defineConfig({
  ...base,
  resolve: { alias: [{ find: /^ioredis$/, replacement: dir }, { find: /^redisson-ts$/, replacement: fileURLToPath(new URL('../../src/index.ts', import.meta.url)) }] },
  test: {
    ...base.test,
    include: Object.values(DRIVER_LEG_FILES).flat(),
    setupFiles: ['test/package/ioredisGuard.ts'],
  },
});
