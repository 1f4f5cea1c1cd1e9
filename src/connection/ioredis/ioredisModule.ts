/**
 * The ioredis module. This file is what the sources run (vitest, tsx): a static import, so that the test
 * configurations that swap ioredis versions (resolve aliases) reach it. The published build (scripts/build.mjs)
 * swaps in ioredisModule.bundle.ts, a `require('ioredis')` made on the first `Redisson.create`, so that
 * redisson-ts loads without ioredis installed and the client says what to install (RedisDriverMissingError).
 */
import * as ioredis from 'ioredis';

export type IoredisModule = typeof ioredis;

export function loadIoredis(): IoredisModule {
  return ioredis;
}
