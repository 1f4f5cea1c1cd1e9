/**
 * app.close() while a `@WithLock` method holds its lock, with the unlock's reply held back on the command
 * connection (test/support/commandGate.ts): the release starts when the application begins to shut down, and
 * close() does not finish — the client is not shut down — before that unlock's reply arrived. Then the key is
 * gone. Forced timing, no clock: the test waits for the method to be running (the hold is tracked by then),
 * not for the key to exist — the key exists before `acquire` returns, and a close() in between is the second case.
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

/** Resolved by the method when it starts running, per id. */
const running = new Map<string, () => void>();
function whenRunning(id: string): Promise<void> {
  return new Promise((resolve) => running.set(id, resolve));
}

@Controller()
class HoldController {
  @Get('hold/:id')
  @WithLock('job:{0}')
  async hold(@Param('id') id: string): Promise<{ aborted: boolean }> {
    running.get(id)?.();
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
  const started = whenRunning(id);
  const reply = request(app.getHttpServer() as App).get(`/hold/${id}`);
  const answered = reply.then((r) => r.body as unknown);
  await started;
  expect(await raw.exists(`job:${id}`)).toBe(1);

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

it('close() while the acquisition\'s reply is on its way: the late grant is undone before the client shuts down, the method never runs', async () => {
  const app = await createApp('express', appModule([RedissonModule.forRoot({ options: { redis: redis.url } })], [HoldController]));
  const client = app.get<Redisson>(getRedissonToken());
  const id = uniqueName('job');
  let ran = false;
  void whenRunning(id).then(() => (ran = true));
  const acquireGate = CommandGate.scripts(client.redis, ['lock/tryLockInner']);
  const reply = request(app.getHttpServer() as App).get(`/hold/${id}`);
  const answered = reply.then((r) => r.status);
  const acquire = await acquireGate.next();
  await acquire.send(); // granted on the server; the reply is held
  expect(await raw.exists(`job:${id}`)).toBe(1);
  acquireGate.uninstall();
  const undoGate = CommandGate.scripts(client.redis, ['lock/unlockInner']);
  let closed = false;
  const closing = app.close().then(() => (closed = true));
  await eventually(() => Promise.resolve(client.isShutdown()), 10_000, 'the shutdown to start');
  acquire.deliver(); // the grant reaches a wait the shutdown aborted: it is undone
  const undo = await undoGate.next();
  await undo.send();
  expect(await raw.exists(`job:${id}`)).toBe(0);
  expect(closed).toBe(false);
  undo.deliver();
  undoGate.uninstall();
  await closing;
  expect(closed).toBe(true);
  expect(ran).toBe(false);
  expect(await answered).toBeGreaterThanOrEqual(500);
});
