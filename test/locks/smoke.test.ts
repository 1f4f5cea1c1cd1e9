import { afterAll, beforeAll, expect, it } from 'vitest';
import { Clients, startRedis, uniqueName, type TestRedis } from '../support/redis.js';

let redis: TestRedis;
let clients: Clients;
beforeAll(async () => {
  redis = await startRedis();
  clients = new Clients(redis.url);
});
afterAll(async () => {
  await clients.closeAll();
  await redis.stop();
});

it('locks and unlocks', async () => {
  const a = clients.client();
  const b = clients.client();
  const name = uniqueName();
  const lock = a.getLock(name);
  await lock.lock();
  expect(await b.getLock(name).tryLock()).toBe(false);
  const waiter = b.getLock(name).lock();
  await lock.unlock();
  await waiter;
  expect(await b.getLock(name).isLocked()).toBe(true);
});
