/**
 * redlock v5 on one Redis node, through `using()` (its documented way to keep a lock while working:
 * automatic extension `automaticExtensionThreshold` ms before expiry). `retryCount: -1` makes it retry
 * forever instead of failing after 10 attempts; retryDelay (200 ms) and retryJitter (100 ms) stay default.
 */
import { Redis } from 'ioredis';
// redlock 5.0.0-beta.2's `exports` map has no "types" condition, so NodeNext finds no types for it:
// take them from its .d.ts by path.
// @ts-expect-error TS7016, see above
import RedlockUntyped from 'redlock';
import type RedlockTyped from '../../node_modules/redlock/dist/index.js';
import type { Implementation, LockClient } from './types.js';
import { packageVersion } from './versions.js';

const Redlock = RedlockUntyped as typeof RedlockTyped;
const DEFAULT_DURATION_MS = 30_000;

export const redlock: Implementation = {
  name: 'redlock',
  version: () => packageVersion('redlock'),
  settings: 'defaults (retryDelay 200 ms, jitter 100 ms) + retryCount -1; using(duration 30 s) auto-extends',
  open(options): Promise<LockClient> {
    const redis = new Redis(options.url);
    const rl = new Redlock([redis], { retryCount: -1 });
    // Redlock emits background errors as events; keep the default no-op behaviour explicit.
    rl.on('error', () => undefined);
    const duration = options.watchdogMs ?? DEFAULT_DURATION_MS;
    return Promise.resolve({
      handle(name) {
        let done: (() => void) | null = null;
        let running: Promise<void> | null = null;
        return {
          acquire() {
            return new Promise<void>((acquired, failed) => {
              const held = new Promise<void>((resolve) => (done = resolve));
              const run = rl.using([name], duration, async () => {
                acquired();
                await held;
              });
              running = run;
              run.catch(failed);
            });
          },
          async release() {
            const finish = done;
            const run = running;
            done = null;
            running = null;
            finish?.();
            await run;
          },
        };
      },
      async close() {
        await redis.quit();
      },
    });
  },
};
