/**
 * The app of drivers.test.ts, as a user writes it after `npm install redisson-ts <driver>@<version>`: two
 * clients; for a lock, a semaphore and a fair lock, the second client waits (subscribed to the
 * primitive's channel) until the first releases, so the wake-up travels through the installed driver's
 * pub/sub. With ioredis the clients are given the URL; with iovalkey, an iovalkey `Redis` each (what a
 * Valkey user does: Redisson duplicates it, so every connection of the client is iovalkey's); with node-redis
 * (`redis`), a `createClient()` client each, one connected by the app and one left for Redisson to connect.
 * Prints one JSON line ({@link DriverAppReport}).
 */

/** The client libraries the app can be written for. */
export type AppDriver = 'ioredis' | 'iovalkey' | 'redis';

/** What the app prints. */
export interface DriverAppReport {
  /** The driver package the app imported, and its installed version. */
  driver: AppDriver;
  version: string;
  /** `resp=` of the app's own connection in `CLIENT INFO`. */
  resp: string;
  /** Each primitive: the waiter got it after the holder released it, and the data is gone after. */
  woken: { lock: boolean; semaphore: boolean; fairLock: boolean };
}

export const DRIVER_APP = 'app.mjs';

/**
 * App source shared by the apps (this one and ./topologyApp.ts), placed in their `try` block: hands a lock, a
 * semaphore and a fair lock from \`holder\` to \`waiter\` (the app's two Redisson clients) and sets \`lock\`,
 * \`semaphore\` and \`fairLock\` to whether each was handed over and was gone from Redis after. It uses the app's
 * \`name\`, \`parked(key)\` (resolves once someone is subscribed for the key) and \`exists(key)\`.
 */
export const HAND_OFFS_SOURCE = `// Locks are taken with a 10-minute lease: a waiter that missed the release message would wait out the holder's
// lease (its last attempt's TTL) and outlive the test, instead of being served after a 30 s watchdog lease.
const LEASE = 600_000;

// The holder takes \`key\`, the waiter waits for it, the holder gives it back: the waiter must then have it.
// One object per client (a lock object's hold is its owner).
async function handOff(key, make, take, give, held) {
  const [mine, theirs] = [make(holder), make(waiter)];
  await take(mine);
  const waiting = take(theirs);
  waiting.catch(() => undefined); // awaited below; an early failure must not go unhandled
  await parked(key);
  await give(mine);
  await waiting;
  const ok = await held(theirs);
  await give(theirs);
  return ok;
}

const lockName = name + ':lock';
const lock = (await handOff(lockName, (c) => c.getLock(lockName), (l) => l.lock(LEASE), (l) => l.unlock(), (l) => l.isHeldByCurrentThread())) && !(await exists(lockName));
const semName = name + ':semaphore';
const sem = holder.getSemaphore(semName);
await sem.trySetPermits(1);
const semaphore = (await handOff(semName, (c) => c.getSemaphore(semName), (s) => s.acquire(), (s) => s.release(), async (s) => (await s.availablePermits()) === 0)) && (await sem.availablePermits()) === 1 && (await sem.delete());
const fairName = name + ':fair';
const fairLock = (await handOff(fairName, (c) => c.getFairLock(fairName), (l) => l.lock(LEASE), (l) => l.unlock(), (l) => l.isHeldByCurrentThread())) && !(await exists(fairName));
`;

/** The app's source for `driver`. */
export function driverAppSource(driver: AppDriver): string {
  const connect = driver === 'ioredis' ? 'url' : 'new Redis(url)';
  const setup =
    driver === 'redis'
      ? `import { createClient } from 'redis';
const raw = await createClient({ url }).connect();
const call = (...args) => raw.sendCommand(args.map(String));
const given = [await createClient({ url }).connect(), createClient({ url })];
const close = (redis) => redis.destroy();`
      : `import { Redis } from '${driver}';
const raw = new Redis(url);
const call = (...args) => raw.call(...args);
const given = [${connect}, ${connect}];
const close = (redis) => redis.disconnect();`;
  return `import { createRequire } from 'node:module';
import { Redisson } from 'redisson-ts';
const url = String(process.env.REDIS_URL);
const name = String(process.env.LOCK_NAME);
${setup}
const [holder, waiter] = given.map((redis) => Redisson.create({ redis }));

// Resolves once someone is subscribed to a channel naming \`key\`: the waiter is parked.
async function parked(key) {
  for (let i = 0; i < 3000; i++) {
    const channels = await call('PUBSUB', 'CHANNELS', '*' + key + '*');
    if (channels.length > 0) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error('nobody subscribed for ' + key);
}

// exists(key): whether the key is still there.
const exists = async (key) => Number(await call('EXISTS', key)) === 1;

try {
${HAND_OFFS_SOURCE}
  const version = createRequire(import.meta.url)('${driver}/package.json').version;
  const resp = /resp=(\\d)/.exec(await call('CLIENT', 'INFO'))[1];
  console.log(JSON.stringify({ driver: '${driver}', version, resp, woken: { lock, semaphore, fairLock } }));
} finally {
  await Promise.all([holder.shutdown(), waiter.shutdown()]);
  for (const redis of [raw, ...given]) if (typeof redis !== 'string') close(redis);
}
`;
}
