/**
 * The watchdog renews in batches: one script call per ≤ lockWatchdogBatchSize locks per period, only for
 * this client's fields, and reports a lock whose field is gone as lost.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Redis } from 'ioredis';
import { Clients, eventually, sleep, startRedis, uniqueName, type TestRedis } from '../support/redis.js';
import type { LockLostEvent } from '../../src/index.js';
import { CommandExecutor } from '../../src/commands.js';
import { LockRenewalScheduler, lockRenewal, type RenewalKind } from '../../src/renewal/LockRenewalScheduler.js';

let server: TestRedis;
let clients: Clients;
let raw: Redis;
beforeAll(async () => {
  server = await startRedis({ own: true });
  clients = new Clients(server.url);
  raw = clients.raw();
});
afterAll(async () => {
  await clients.closeAll();
  await server.stop();
});

async function scriptCalls(): Promise<number> {
  const info = await raw.info('commandstats');
  let calls = 0;
  for (const m of info.matchAll(/cmdstat_(?:eval|evalsha):calls=(\d+)/g)) calls += Number(m[1]);
  return calls;
}

it('renews 120 locks with 3 script calls per period when the batch size is 50', async () => {
  const client = clients.client({ lockWatchdogTimeout: 600, lockWatchdogBatchSize: 50 });
  const locks = Array.from({ length: 120 }, () => client.getLock(uniqueName('many')));
  await Promise.all(locks.map((l) => l.lock()));
  await raw.config('RESETSTAT');
  await sleep(1_000); // several periods of 200 ms
  const calls = await scriptCalls();
  expect(calls).toBeGreaterThanOrEqual(3);
  expect(calls % 3).toBe(0); // whole ticks of ceil(120 / 50) = 3 batches, nothing else
  for (const l of locks.slice(0, 5)) expect(await l.remainTimeToLive()).toBeGreaterThan(0);
  await Promise.all(locks.map((l) => l.unlock()));
});

it('never renews another client\'s lock, and reports its own lost lock once', async () => {
  const client = clients.client({ lockWatchdogTimeout: 600 });
  const lost: LockLostEvent[] = [];
  client.on('lockLost', (e) => lost.push(e));
  const name = uniqueName();
  const lock = client.getLock(name);
  await lock.lock();
  // Someone deletes it and a foreign owner takes it with a short lease.
  await raw.del(name);
  await raw.hset(name, 'ffffffff-0000-4000-8000-000000000000:1', 1);
  await raw.pexpire(name, 700);
  await eventually(() => lost.length === 1, 5_000, 'lockLost');
  expect(lost[0]).toEqual({ name, clientId: client.getId(), threadId: lock.threadId });
  // The foreign lock is not extended by our watchdog: it expires on its own.
  await eventually(async () => (await raw.exists(name)) === 0, 5_000, 'foreign lock expiry');
  await sleep(300);
  expect(lost.length).toBe(1);
});

it('renews each kind with its own script, and removing one kind\'s hold never cancels another kind\'s on the same name', async () => {
  const executor = new CommandExecutor(clients.raw());
  const calls: string[] = [];
  // A second renewal shape over the same lock script, as a read lock's is over its own.
  const other: RenewalKind = {
    id: 'other',
    renew: (run, lease, entries) => {
      calls.push('other');
      return lockRenewal.renew(run, lease, entries);
    },
  };
  const counting: RenewalKind = {
    id: lockRenewal.id,
    renew: (run, lease, entries) => {
      calls.push('lock');
      return lockRenewal.renew(run, lease, entries);
    },
  };
  const lost: unknown[] = [];
  const scheduler = new LockRenewalScheduler(
    (kind, entries) => kind.renew((id, keys, args) => executor.eval(id, keys, args), 1_000, entries),
    100,
    100,
    (l) => lost.push(l),
    () => undefined,
  );
  const name = uniqueName();
  await raw.hset(name, 'me:1', '1', 'me:1:write', '1');
  await raw.pexpire(name, 300);
  scheduler.add(counting, name, 'me:1:write', 1);
  scheduler.add(other, name, 'me:1', 1);
  expect(scheduler.size).toBe(2);
  expect(scheduler.remove(other, name, 'me:1')).toBe(true);
  expect(scheduler.renews(counting, name, 'me:1:write')).toBe(true);
  await sleep(500); // past the 300 ms the key had: only the remaining kind's renewals kept it
  expect(await raw.pttl(name)).toBeGreaterThan(0);
  expect(new Set(calls)).toEqual(new Set(['lock']));
  expect(lost).toEqual([]);
  scheduler.stop();
  executor.dispose();
});
