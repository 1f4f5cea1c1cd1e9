/** This project: `client.getLock(name)` objects each own a thread id; `lock()` / `unlock()`. */
import { Redisson } from '../../src/index.js';
import type { Implementation, LockClient } from './types.js';
import { packageVersion } from './versions.js';

export const redissonTs: Implementation = {
  name: 'redisson-ts',
  version: () => packageVersion('.'),
  settings: 'defaults (lockWatchdogTimeout 30 s); lock() waits on pub/sub',
  open(options): Promise<LockClient> {
    const client = Redisson.create({
      redis: options.url,
      ...(options.watchdogMs === undefined ? {} : { lockWatchdogTimeout: options.watchdogMs }),
    });
    return Promise.resolve({
      handle(name) {
        const lock = client.getLock(name);
        return { acquire: () => lock.lock(), release: () => lock.unlock() };
      },
      close: () => client.shutdown(),
    });
  },
};
