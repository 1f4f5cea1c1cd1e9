/**
 * Edge cases found in review: attempts in flight when a wait is aborted or the client shuts down, a stale
 * watchdog result racing a re-acquisition, listeners that throw, and thread-id ranges. One own server per
 * file (it is stalled with DEBUG SLEEP and SIGSTOP).
 */
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import type { Redis } from 'ioredis';
import { AUTO_THREAD_ID_BASE } from '../../src/Redisson.js';
import { RedissonShutdownError, TimeUnit, type LockLostEvent } from '../../src/index.js';
import { Clients, eventually, sleep, startRedis, uniqueName, type TestRedis } from '../support/redis.js';

let server: TestRedis;
let clients: Clients;
let admin: Redis;
beforeAll(async () => {
  server = await startRedis({ own: true, args: ['--enable-debug-command', 'yes'] });
  clients = new Clients(server.url);
  admin = clients.raw();
});
afterEach(() => {
  const pid = server.server?.pid;
  if (pid) process.kill(pid, 'SIGCONT');
});
afterAll(async () => {
  await clients.closeAll();
  await server.stop();
});

const settle = (p: Promise<unknown>): Promise<unknown> => p.then(() => 'resolved', (e: unknown) => e);

it('shutdown while a retry is in flight: the waiter rejects and the late acquisition is undone', async () => {
  const name = uniqueName();
  await clients.client().getLock(name).lock(200); // never unlocked, never published
  const b = clients.client();
  const waiting = settle(b.getLock(name).lock(1, TimeUnit.HOURS));
  await sleep(150);
  void admin.call('DEBUG', 'SLEEP', '0.3').catch(() => undefined); // B's retry at ~200 ms is answered late
  await sleep(100);
  await b.shutdown();
  expect(await waiting).toBeInstanceOf(RedissonShutdownError);
  expect(await admin.exists(name)).toBe(0);
});

it('shutdown while first attempts are in flight: they reject and leave nothing held', async () => {
  const b = clients.client();
  await b.getLock(uniqueName()).tryLock(); // connected, scripts loaded
  void admin.call('DEBUG', 'SLEEP', '0.3').catch(() => undefined);
  await sleep(20);
  const leased = uniqueName();
  const watched = uniqueName();
  const outcomes = [settle(b.getLock(leased).lock(1, TimeUnit.HOURS)), settle(b.getLock(watched).lock()), settle(b.getLock(uniqueName()).tryLock())];
  await sleep(20);
  await b.shutdown();
  for (const outcome of await Promise.all(outcomes)) expect(outcome).toBeInstanceOf(RedissonShutdownError);
  expect(await admin.exists(leased)).toBe(0);
  expect(await admin.exists(watched)).toBe(0);
});

it('an abort rejects at once even while Redis does not answer, and the late acquisition is undone', async () => {
  const pid = server.server?.pid;
  if (!pid) throw new Error('needs its own redis-server process');
  const client = clients.client();
  const name = uniqueName();
  await client.getLock(uniqueName()).tryLock();
  process.kill(pid, 'SIGSTOP');
  const controller = new AbortController();
  const outcome = settle(client.getLock(name).lock({ signal: controller.signal }));
  await sleep(50);
  const reason = new Error('gave up');
  controller.abort(reason);
  expect(await outcome).toBe(reason); // while Redis is still stopped
  process.kill(pid, 'SIGCONT');
  await eventually(async () => (await admin.exists(name)) === 0 && (await admin.ping()) === 'PONG', 5_000, 'undo');
  expect(await admin.exists(name)).toBe(0);
});

it('a renewal result that predates a re-acquisition does not cancel the new hold', async () => {
  const client = clients.client({ lockWatchdogTimeout: 600 });
  const lost: LockLostEvent[] = [];
  client.on('lockLost', (e) => lost.push(e));
  const name = uniqueName();
  const lock = client.getLock(name);
  // One owner throughout (a runInThread flow, as one Java thread), so the second lock() re-enters its field.
  await client.runInThread(async () => {
    await lock.lock();
    // The event loop stalls past the lease; the watchdog's renewal then finds the field gone, and this
    // flow re-acquires before that result is handled.
    setTimeout(() => {
      const end = Date.now() + 700;
      while (Date.now() < end);
    }, 50);
    await sleep(250);
    await lock.lock();
    await sleep(1_200); // two leases: only renewal keeps it
    expect(lost.length).toBe(1);
    expect(await lock.isHeldByCurrentThread()).toBe(true);
    expect(await admin.pttl(name)).toBeGreaterThan(0);
    await lock.unlock();
  });
  expect(await admin.exists(name)).toBe(0);
});

it('a listener that throws gets a warning; the watchdog goes on and reports every lost lock', async () => {
  const client = clients.client({ lockWatchdogTimeout: 600 });
  const seen: string[] = [];
  client.on('lockLost', (e) => {
    seen.push(e.name);
    throw new Error('bug in a user listener');
  });
  const warnings: string[] = [];
  const onWarning = (w: Error): void => void warnings.push(w.message);
  process.on('warning', onWarning);
  try {
    const names = [uniqueName(), uniqueName()];
    await Promise.all(names.map((n) => client.getLock(n).lock()));
    await admin.del(...names);
    await eventually(() => seen.length === 2, 5_000, 'both lost locks reported');
    expect(seen.sort()).toEqual([...names].sort());
    await eventually(() => warnings.length >= 2, 2_000, 'warnings');
    expect(warnings[0]).toMatch(/lockLost' listener threw/);
  } finally {
    process.off('warning', onWarning);
  }
});

it('explicit thread ids never collide with automatic ones', async () => {
  const client = clients.client();
  const name = uniqueName();
  const auto = client.getLock(name);
  expect(auto.threadId).toBeGreaterThanOrEqual(AUTO_THREAD_ID_BASE);
  await auto.lock();
  expect(await client.getLock(name).tryLock({ threadId: 1 })).toBe(false);
  expect(await client.runInThread(() => client.getLock(name).tryLock(), 2)).toBe(false);
  await auto.unlock();
});
