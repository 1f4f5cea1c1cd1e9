// The fast subset (RLock behaviour, pub/sub waiting, every script) against the lowest ioredis the peer
// range admits: `npm run test:ioredis-lowest`. Every `ioredis` import of the source and the tests resolves
// to the `ioredis-lowest` alias package (IOREDIS_DIR points it at another ioredis copy when probing
// versions); ioredisGuard.ts fails the run if the alias did not take.
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import base from '../../vitest.config.js';

const dir = process.env['IOREDIS_DIR'] ?? fileURLToPath(new URL('../../node_modules/ioredis-lowest', import.meta.url));
process.env['IOREDIS_DIR'] = dir;

export default defineConfig({
  ...base,
  resolve: { alias: [{ find: /^ioredis$/, replacement: dir }, { find: /^redisson-ts$/, replacement: fileURLToPath(new URL('../../src/index.ts', import.meta.url)) }] },
  test: {
    ...base.test,
    include: ['test/locks/RLock.test.ts', 'test/pubsub/**/*.test.ts', 'test/lua/**/*.test.ts'],
    setupFiles: ['test/package/ioredisGuard.ts'],
  },
});
