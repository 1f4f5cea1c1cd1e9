/** node-redisson: a Redisson-compatible port; each `getLock()` object has its own random client id. */
import { Redisson } from 'node-redisson';
import type { Implementation, LockClient } from './types.js';
import { packageVersion } from './versions.js';

export const nodeRedisson: Implementation = {
  name: 'node-redisson',
  version: () => packageVersion('node-redisson'),
  settings: 'defaults (pubsub, lockWatchdogTimeout 30 s); lock() waits forever',
  open(options): Promise<LockClient> {
    const url = new URL(options.url);
    const client = new Redisson({
      redis: { options: { host: url.hostname, port: Number(url.port) } },
      ...(options.watchdogMs === undefined ? {} : { lockWatchdogTimeout: BigInt(options.watchdogMs) }),
    });
    return Promise.resolve({
      handle(name) {
        const lock = client.getLock(name);
        return { acquire: () => lock.lock(), release: () => lock.unlock() };
      },
      close: () => client.quit(),
    });
  },
};
