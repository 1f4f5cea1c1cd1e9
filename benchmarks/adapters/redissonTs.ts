/**
 * This project, from its build (../library.ts): every handle is its own lock object (its own owner);
 * `lock()` / `unlock()`, and the family's equivalents for the other kinds (see `Kind`).
 */
import type { Redisson, RedissonOptions } from '../../src/index.js';
import { library } from '../library.js';
import type { ImplName, Implementation, Kind, LockClient, LockHandle } from './types.js';
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

/**
 * This project on another driver (issue 25): the same handles, with `redis` an instance of that driver made
 * from the URL (Redisson duplicates it for its subscriber; we close it after the client, which does not).
 * Measured in the pair, handoff and contention scenarios, beside `redisson-ts` on the default ioredis.
 */
function onDriver(name: ImplName, pkg: string, settings: string, make: (module: DriverModule, url: string) => DriverClient | Promise<DriverClient>): Implementation {
  return {
    name,
    version: () => `${packageVersion('.')} on ${packageVersion(pkg)}`,
    settings,
    scenarios: DRIVER_SCENARIOS,
    async open(options): Promise<LockClient> {
      const { Redisson } = await library();
      const redis = await make((await import(pkg)) as DriverModule, options.url);
      const client = Redisson.create({
        redis: redis as unknown as NonNullable<RedissonOptions['redis']>,
        ...(options.watchdogMs === undefined ? {} : { lockWatchdogTimeout: options.watchdogMs }),
      });
      const ready = new Map<string, Promise<unknown>>();
      return {
        handle: (lockName, _owner, kind = 'lock') => familyHandle(client, lockName, kind, ready),
        close: async () => {
          await client.shutdown();
          redis.disconnect();
        },
      };
    },
  };
}

interface DriverClient {
  disconnect(): void;
}
interface DriverModule {
  readonly Redis: new (url: string, options?: object) => DriverClient;
  /** node-redis' factory (the `redis` package). */
  readonly createClient: (options: { url: string }) => { connect(): Promise<unknown>; destroy(): void };
}

/** The scenarios the per-driver rows are measured in (issue 25: pair, handoff, contention). */
const DRIVER_SCENARIOS = ['uncontended', 'handoff', 'contention'] as const;

/** ioredis 6.x (the `ioredis-6` alias devDependency) with its default RESP3. */
export const redissonTsIoredis6 = onDriver('redisson-ts@ioredis6', 'ioredis-6', 'as redisson-ts, on ioredis 6 (RESP3, its default)', (m, url) => new m.Redis(url));

/** iovalkey (RESP2, its only protocol). */
export const redissonTsIovalkey = onDriver('redisson-ts@iovalkey', 'iovalkey', 'as redisson-ts, on iovalkey (RESP2)', (m, url) => new m.Redis(url));

/** node-redis 6.x (the `redis` devDependency) with its default RESP3: a connected `createClient()` client. */
export const redissonTsNodeRedis = onDriver('redisson-ts@node-redis', 'redis', 'as redisson-ts, on node-redis 6 (RESP3, its default)', async (m, url) => {
  const client = m.createClient({ url });
  await client.connect();
  return Object.assign(client, { disconnect: () => client.destroy() });
});

/**
 * redisson-ts with `directHandoff: false` (issue 29): every release only publishes, as before the direct
 * handoff — the "before" of that change, measured in the same rounds as `redisson-ts`. Never a peer.
 */
export const redissonTsNoHandoff: Implementation = {
  name: 'redisson-ts@no-handoff',
  version: () => packageVersion('.'),
  settings: 'as redisson-ts, with directHandoff: false (a release only publishes; the woken waiter retries)',
  scenarios: ['uncontended', 'handoff', 'contention', 'clients', 'users'],
  async open(options): Promise<LockClient> {
    const { Redisson } = await library();
    const client = Redisson.create({
      redis: options.url,
      directHandoff: false,
      ...(options.watchdogMs === undefined ? {} : { lockWatchdogTimeout: options.watchdogMs }),
    });
    const ready = new Map<string, Promise<unknown>>();
    return {
      handle: (name, _owner, kind = 'lock') => familyHandle(client, name, kind, ready),
      close: () => client.shutdown(),
    };
  },
};

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
