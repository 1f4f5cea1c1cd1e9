import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  // The CLI package (packages/cli) imports the library by name: the source, as in tsconfig.json's paths.
  resolve: {
    alias: {
      'redisson-ts-otel': fileURLToPath(new URL('./packages/otel/src/index.ts', import.meta.url)),
      'redisson-ts-nestjs': fileURLToPath(new URL('./packages/nestjs/src/index.ts', import.meta.url)),
      'redisson-ts': fileURLToPath(new URL('./src/index.ts', import.meta.url)),
    },
  },
  test: {
    include: ['test/**/*.test.ts', 'packages/*/test/**/*.test.ts'],
    // Each file starts its own redis-server(s). Four workers on our two cores: much of the suite waits on servers,
    // JVMs and timers. With two, it kept 1.16 cores busy on average (458 s wall, 532 s CPU); with three, 1.53 cores
    // and 323 s (2026-12-06); with four, 1.73 cores and 281 s (2026-12-07).
    pool: 'forks',
    // A directory for the run's packed tarballs, packed once by the first test that asks (test/support/pack.ts).
    globalSetup: ['./test/support/packGlobalSetup.ts'],
    maxWorkers: 4,
    testTimeout: 60_000,
    hookTimeout: 180_000,
    teardownTimeout: 30_000,
    reporters: ['default', './test/support/summaryReporter.ts'],
  },
});
