/**
 * One Redisson YAML file, read by a Nest application (`RedissonModule.forRoot({ config: file })`) and by a Java
 * Redisson 4.7.0 service (`Config.fromYAML`, as the Spring Boot starter reads it): while Java holds the lock,
 * the `@WithLock` endpoint with a wait gets 409 and the one without waits; Java's unlock wakes it. Java holds
 * with a 60 s lease, far beyond the 10 s hang guards, so the waiter was woken by the release message.
 */
import type { INestApplication } from '@nestjs/common';
import { Redis } from 'ioredis';
import request from 'supertest';
import type { App } from 'supertest/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RedissonModule } from 'redisson-ts-nestjs';
import { javaAvailable, JavaPeer } from '../../../test/interop/JavaPeer.js';
import { javaMissingPlaceholder } from '../../../test/interop/support/placeholder.js';
import { eventually, startRedis, uniqueName, within, type TestRedis } from '../../../test/support/redis.js';
import { configFile, removeConfigFiles } from './support/configFile.js';
import { appModule, createApp } from './support/apps.js';

const VERSION = '4.7.0';
const availability = javaAvailable();

if (!availability.ok) javaMissingPlaceholder('NestJS interop', availability.reason);

describe.runIf(availability.ok)(`a Redisson YAML file shared by a Nest application and Java Redisson ${VERSION}`, () => {
  let redis: TestRedis;
  let raw: Redis;
  let peer: JavaPeer;
  let app: INestApplication;

  beforeAll(async () => {
    redis = await startRedis();
    raw = new Redis(redis.url);
    const file = configFile(`singleServerConfig:\n  address: "${redis.url}"\n  timeout: 3000\nlockWatchdogTimeout: 30000\n`);
    [peer, app] = await Promise.all([JavaPeer.start(VERSION, { address: '', configFile: file }), createApp('express', appModule([RedissonModule.forRoot({ config: file })]))]);
  }, 240_000);

  afterAll(removeConfigFiles);
  afterAll(async () => {
    await app?.close();
    await peer?.shutdown();
    raw?.disconnect();
    await redis?.stop();
  });

  it('Java holds: the endpoint with waitTime answers 409; the waiting one is woken by Java’s unlock', async () => {
    const id = uniqueName('interop');
    const server = app.getHttpServer() as App;
    await peer.call('lock', `busy:${id}`, 'lock', [60_000], 'holder');
    expect((await request(server).get(`/busy/${id}`)).status).toBe(409);
    await peer.call('lock', `busy:${id}`, 'unlock', [], 'holder');
    expect((await request(server).get(`/busy/${id}`)).body).toEqual({ ran: id });

    await peer.call('lock', `counter:${id}`, 'lock', [60_000], 'holder');
    let answered = false;
    const waiting = request(server)
      .post(`/counter/${id}`)
      .then((r) => ((answered = true), r));
    await eventually(async () => ((await raw.pubsub('NUMSUB', `redisson_lock__channel:{counter:${id}}`)) as [string, number])[1] === 1, 10_000, 'the endpoint to wait');
    expect(answered).toBe(false);
    await peer.call('lock', `counter:${id}`, 'unlock', [], 'holder');
    const reply = await within(waiting, 10_000, 'the endpoint to be woken');
    expect(reply.status).toBe(201);
    expect(reply.body).toEqual({ value: 1 });
  });
});
