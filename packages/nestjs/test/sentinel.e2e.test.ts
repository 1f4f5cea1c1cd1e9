/**
 * Sentinel through the same module options: `options.redis` with ioredis' `sentinels`, and a Redisson YAML file
 * with `sentinelServersConfig` (what a Java service's starter reads). `@WithLock` locks on the master.
 */
import type { INestApplication } from '@nestjs/common';
import { Redis } from 'ioredis';
import request from 'supertest';
import type { App } from 'supertest/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RedissonModule } from 'redisson-ts-nestjs';
import { startSentinelSet, type SentinelSet } from '../../../test/support/sentinel.js';
import { uniqueName } from '../../../test/support/redis.js';
import { configFile, removeConfigFiles } from './support/configFile.js';
import { appModule, createApp } from './support/apps.js';

let set: SentinelSet;
let master: Redis;
const apps: INestApplication[] = [];

beforeAll(async () => {
  set = await startSentinelSet();
  master = new Redis({ port: set.master.port });
}, 120_000);

afterAll(removeConfigFiles);
afterAll(async () => {
  for (const app of apps) await app.close();
  master?.disconnect();
  await set?.stop();
});

describe('RedissonModule through Sentinel', () => {
  it('options (ioredis sentinels) and a YAML file (sentinelServersConfig): the lock is on the master', async () => {
    const addresses = set.sentinelAddresses.map((a) => `    - "redis://${a.host}:${a.port}"`).join('\n');
    const file = configFile(`sentinelServersConfig:\n  masterName: "${set.masterName}"\n  sentinelAddresses:\n${addresses}\n`);
    apps.push(await createApp('express', appModule([RedissonModule.forRoot({ options: { redis: set.redisOptions() } })])));
    apps.push(await createApp('fastify', appModule([RedissonModule.forRoot({ config: file })])));
    for (const app of apps) {
      const id = uniqueName('s');
      const reply = await request(app.getHttpServer() as App).get(`/inside/lock/${id}`);
      expect(reply.body).toMatchObject({ name: `k:${id}`, type: 'hash' });
      expect(await master.exists(`k:${id}`)).toBe(0);
      expect((await request(app.getHttpServer() as App).post(`/counter/${id}`)).status).toBe(201);
      expect(await master.get(`count:${id}`)).toBe('1');
    }
  });
});
