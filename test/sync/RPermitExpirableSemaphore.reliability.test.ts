/**
 * RPermitExpirableSemaphore under a lost reply: the release (one id, several ids) and `trySetPermits` run in
 * Redis, the proxy holds their reply back and then drops the connection, and the client re-sends them on the
 * new socket. The re-sent request must answer what the first run did — the permits were released, the count
 * was set — and change nothing a second time. Each lost reply is forced: the proxy holds the reply until the
 * test has seen the script's effect on the server's data.
 */
import type { Redis } from 'ioredis';
import { afterEach, expect, it } from 'vitest';
import { TimeUnit, type Redisson } from '../../src/index.js';
import { RedisProxy } from '../support/proxy.js';
import { eventually, uniqueName, useRedis, within } from '../support/redis.js';

const suite = useRedis({ own: true });
const proxies: RedisProxy[] = [];

afterEach(async () => {
  await Promise.all(proxies.splice(0).map((p) => p.stop()));
});

/** A client whose every connection goes through a fresh proxy. */
async function proxied(): Promise<{ p: RedisProxy; client: Redisson }> {
  const p = await RedisProxy.start(suite.redis.port);
  proxies.push(p);
  const client = suite.clients.client({ redis: p.url });
  client.redis.on('error', () => undefined);
  return { p, client };
}

/**
 * Runs `call` with its reply held back, waits until `ran` sees its effect in Redis, then drops the socket:
 * the client re-sends the script. Resolves with the call's settled outcome.
 */
async function loseReply<T>(p: RedisProxy, call: () => Promise<T>, ran: () => Promise<boolean>): Promise<{ value?: T; error?: unknown }> {
  p.replyDelayMs = 5_000;
  const pending = call().then(
    (value) => ({ value }),
    (error: unknown) => ({ error }),
  );
  await eventually(ran, 5_000, 'the script ran on the server');
  p.dropAll();
  p.replyDelayMs = 0;
  return within(pending, 10_000, 'the call across the dropped reply');
}

const leases = (name: string): string => `{${name}}:timeout`;

/** No request latch is left once the call has settled (the client deletes it). */
const noLatches = (raw: Redis, name: string): Promise<void> =>
  eventually(async () => (await raw.keys(`redisson_unlock_latch:{${name}}:*`)).length === 0, 5_000, 'the latch deleted');

it('tryRelease(id) whose reply was lost is re-sent and still answers true; the permit is back once', async () => {
  const raw = suite.clients.raw();
  const { p, client } = await proxied();
  const name = uniqueName('pes');
  const sem = client.getPermitExpirableSemaphore(name);
  expect(await sem.trySetPermits(2)).toBe(true);
  const id = await sem.acquire(60, TimeUnit.SECONDS);
  expect(await raw.get(name)).toBe('1');
  const outcome = await loseReply(p, () => sem.tryRelease(id), async () => (await raw.zcard(leases(name))) === 0);
  expect(outcome).toEqual({ value: true });
  expect(await raw.get(name)).toBe('2');
  await noLatches(raw, name);
});

it('release(id) whose reply was lost resolves rather than throwing PermitNotHeldError', async () => {
  const raw = suite.clients.raw();
  const { p, client } = await proxied();
  const name = uniqueName('pes');
  const sem = client.getPermitExpirableSemaphore(name);
  expect(await sem.trySetPermits(1)).toBe(true);
  const id = await sem.acquire(60, TimeUnit.SECONDS);
  const outcome = await loseReply(p, () => sem.release(id), async () => (await raw.zcard(leases(name))) === 0);
  expect(outcome).toEqual({ value: undefined });
  expect(await raw.get(name)).toBe('1');
  await noLatches(raw, name);
});

it('tryRelease(ids) / release(ids) whose reply was lost report every id released, counted once', async () => {
  const raw = suite.clients.raw();
  const { p, client } = await proxied();
  const name = uniqueName('pes');
  const sem = client.getPermitExpirableSemaphore(name);
  expect(await sem.trySetPermits(5)).toBe(true);
  const ids = await sem.acquire(3, 60_000);
  const outcome = await loseReply(p, () => sem.tryRelease(ids), async () => (await raw.zcard(leases(name))) === 0);
  expect(outcome).toEqual({ value: 3 });
  expect(await raw.get(name)).toBe('5');
  const more = await sem.acquire(2, 60_000);
  const again = await loseReply(p, () => sem.release(more), async () => (await raw.zcard(leases(name))) === 0);
  expect(again).toEqual({ value: undefined });
  expect(await raw.get(name)).toBe('5');
  await noLatches(raw, name);
});

it('trySetPermits whose reply was lost is re-sent and still answers true', async () => {
  const raw = suite.clients.raw();
  const { p, client } = await proxied();
  const name = uniqueName('pes');
  const sem = client.getPermitExpirableSemaphore(name);
  await sem.isExists();
  const outcome = await loseReply(p, () => sem.trySetPermits(3), async () => (await raw.get(name)) === '3');
  expect(outcome).toEqual({ value: true });
  expect(await raw.get(name)).toBe('3');
  // A semaphore that exists already still answers false, with no latch written.
  expect(await sem.trySetPermits(4)).toBe(false);
  expect(await raw.get(name)).toBe('3');
  await noLatches(raw, name);
});
