/**
 * app.close() while a `@WithLock` method holds its lock, with the unlock's reply held back on the command
 * connection (test/support/commandGate.ts): the release starts when the application begins to shut down, and
 * close() does not finish — the client is not shut down — before that unlock's reply arrived. Then the key is
 * gone. Forced timing, no clock.
 */
import { Controller, Get, Param } from '@nestjs/common';
import { Redis } from 'ioredis';
import request from 'supertest';
import type { App } from 'supertest/types.js';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Redisson } from 'redisson-ts';
import { currentLockSignal, getRedissonToken, RedissonModule, WithLock } from 'redisson-ts-nestjs';
import { CommandGate } from '../../../test/support/commandGate.js';
import { eventually, startRedis, uniqueName, type TestRedis } from '../../../test/support/redis.js';
import { appModule, createApp } from './support/apps.js';

@Controller()
class HoldController {
  @Get('hold/:id')
  @WithLock('job:{0}')
  async hold(@Param('id') _id: string): Promise<{ aborted: boolean }> {
    const signal = currentLockSignal();
    await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
    return { aborted: signal.aborted };
  }
}

let redis: TestRedis;
let raw: Redis;

beforeAll(async () => {
  redis = await startRedis();
  raw = new Redis(redis.url);
});

afterAll(async () => {
  raw?.disconnect();
  await redis?.stop();
});

it('close() releases the held lock and waits for the unlock reply before the client shuts down', async () => {
  const app = await createApp('express', appModule([RedissonModule.forRoot({ options: { redis: redis.url } })], [HoldController]));
  const client = app.get<Redisson>(getRedissonToken());
  const id = uniqueName('job');
  const reply = request(app.getHttpServer() as App).get(`/hold/${id}`);
  const answered = reply.then((r) => r.body as unknown);
  await eventually(async () => (await raw.exists(`job:${id}`)) === 1, 10_000, 'the lock to be held');

  const gate = CommandGate.scripts(client.redis, ['lock/unlockInner']);
  let closed = false;
  const closing = app.close().then(() => (closed = true));
  const unlock = await gate.next(); // the shutdown's release, held before it is written
  await unlock.send(); // it ran on the server; its reply is held
  expect(await raw.exists(`job:${id}`)).toBe(0);
  expect(closed).toBe(false);
  expect(client.isShutdown()).toBe(false);
  unlock.deliver();
  gate.uninstall();
  await closing;
  expect(client.isShutdown()).toBe(true);
  expect(await answered).toEqual({ aborted: true });
});
