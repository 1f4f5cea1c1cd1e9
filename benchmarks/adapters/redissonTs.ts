/**
 * This project, from its build (../library.ts): every handle is its own lock object (its own owner);
 * `lock()` / `unlock()`, and the family's equivalents for the other kinds (see `Kind`).
 */
import type { Redisson } from '../../src/index.js';
import { library } from '../library.js';
import type { Implementation, Kind, LockClient, LockHandle } from './types.js';
import { packageVersion } from './versions.js';

/** A handle on `name` of `kind`, each call a fresh object. */
function familyHandle(client: Redisson, name: string, kind: Kind, ready: Map<string, Promise<unknown>>): LockHandle {
  switch (kind) {
    case 'lock':
    case 'fair':
    case 'read':
    case 'write': {
      const lock =
        kind === 'lock' ? client.getLock(name) : kind === 'fair' ? client.getFairLock(name) : kind === 'read' ? client.getReadWriteLock(name).readLock() : client.getReadWriteLock(name).writeLock();
      return { acquire: () => lock.lock(), release: () => lock.unlock() };
    }
    case 'semaphore': {
      const semaphore = client.getSemaphore(name);
      // One permit, set once per name (trySetPermits is a no-op when the semaphore exists).
      const set = (): Promise<unknown> => ready.get(name) ?? ready.set(name, semaphore.trySetPermits(1)).get(name) ?? Promise.resolve();
      return {
        acquire: async () => {
          await set();
          await semaphore.acquire();
        },
        release: () => semaphore.release(),
      };
    }
    case 'latch': {
      const latch = client.getCountDownLatch(name);
      return {
        acquire: async () => {
          if (!(await latch.trySetCount(1))) await latch.await();
        },
        release: () => latch.countDown(),
      };
    }
  }
}

export const redissonTs: Implementation = {
  name: 'redisson-ts',
  version: () => packageVersion('.'),
  settings: 'defaults (lockWatchdogTimeout 30 s); lock() waits on pub/sub',
  kinds: ['lock', 'fair', 'read', 'write', 'semaphore', 'latch'],
  async open(options): Promise<LockClient> {
    const { Redisson } = await library();
    const client = Redisson.create({
      redis: options.url,
      ...(options.watchdogMs === undefined ? {} : { lockWatchdogTimeout: options.watchdogMs }),
    });
    const ready = new Map<string, Promise<unknown>>();
    return {
      handle: (name, _owner, kind = 'lock') => familyHandle(client, name, kind, ready),
      close: () => client.shutdown(),
    };
  },
};
